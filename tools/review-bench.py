#!/usr/bin/python3
"""The review's targets (issue 24; figures in docs/performance.md, "The review").

    tools/review-bench.py BRP [--matches N] [--blunder-matches N] [--multiplier M] [--search-pairs N]
                              [--search-strength S] [--speedup-matches N] [--rounds R] [--jobs J] [--only LIST]
                              [--review-args "OPTIONS"]

Every review is made at the default strength and options unless said, each log by its own
`brp review -j 1`, J of them at a time (so the CPU a seat and deal is one core's).

1. Mixed greedy and random bots (brp simulate -b mixed, STBL, 4 players: one deal a match): in how
   many matches with both kinds the greedy seats' mean accuracy is above the random seats'.
2. Blunder bots (brp simulate -b blunder): the blunder bot's injected decisions (those where it did
   not play the greedy bot's choice) whose loss, measured at M times the default strength, is 100
   points or more: the share classed mistake or blunder at the default strength; and the share of its
   greedy decisions classed so. --multiplier 0 skips the reference review (parts 2's first figure).
3. The blunder matches reviewed with another seed: the share of decisions whose class changes.
4. CPU a seat and deal at the default strength (user + system time of the reviews of 1).
5. -j 2 against -j 1: the wall-time speed-up of brp review on N matches, R interleaved rounds, the
   median of the ratios (meaningful on an idle machine only: the load average is printed beside it).
6. The search bot against greedy (brp arena search:S greedy, duplicate pairs, STBL, 4 players): in how
   many logs the search side's mean accuracy is above the greedy side's, and each side's mean.
--only 1,2,6 runs those parts (2 and 3 go together; 4 comes with 1).
Prints one line a figure with what it was measured on.
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor


EXTRA = []  # --review-args: given to every review before its own arguments


def review(brp, log, *args):
    out = subprocess.run([brp, 'review', '--json', *EXTRA, *args, log], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise SystemExit('brp review %s: %s' % (log, out.stderr.strip()))
    return [json.loads(line) for line in out.stdout.splitlines()]


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def review_all(brp, logs, jobs, *args):
    with ThreadPoolExecutor(jobs) as ex:
        return list(ex.map(lambda log: review(brp, log, *args), logs))


def logs_in(d):
    return [os.path.join(d, n) for n in sorted(os.listdir(d)) if n.endswith('.brp')]


def mean(xs):
    return sum(xs) / len(xs) if xs else float('nan')


def part_mixed(a, tmp):
    mixed = os.path.join(tmp, 'mixed')
    subprocess.run([a.brp, 'simulate', '-q', '-b', 'mixed', '-n', str(a.matches), '--seed', '24', '-j',
                    str(a.jobs), '-o', mixed], check=True)
    cpu0 = children_cpu()
    results = review_all(a.brp, logs_in(mixed), a.jobs)
    cpu = children_cpu() - cpu0
    both = above = seat_deals = 0
    for rows in results:
        acc = {'greedy': [], 'random': []}
        for r in rows:
            if r.get('summary') and r['deal'] is None:
                acc[r['player'].split('-')[0]].append(r['accuracy'])
            elif r.get('summary'):
                seat_deals += 1
        if acc['greedy'] and acc['random']:
            both += 1
            above += mean(acc['greedy']) > mean(acc['random'])
    print('1. greedy seats above random seats in accuracy: %d of %d matches with both (%.1f %%); '
          '%d matches, STBL, 4 players, -b mixed --seed 24' % (above, both, 100.0 * above / max(both, 1), a.matches),
          flush=True)
    print('4. CPU at the default strength: %.2f s a seat and deal (%d seat-deals, %.1f s)' %
          (cpu / max(seat_deals, 1), seat_deals, cpu), flush=True)
    return mixed


def part_blunder(a, tmp):
    blunder = os.path.join(tmp, 'blunder')
    subprocess.run([a.brp, 'simulate', '-q', '-b', 'blunder', '-n', str(a.blunder_matches), '--seed', '24', '-j',
                    str(a.jobs), '-o', blunder], check=True)
    logs = logs_in(blunder)
    decided = lambda rows: [r for r in rows if 'played' in r]
    base = [decided(x) for x in review_all(a.brp, logs, a.jobs)]
    other = [decided(x) for x in review_all(a.brp, logs, a.jobs, '--seed', '2')]
    strong = ([decided(x) for x in review_all(a.brp, logs, a.jobs, '--strength', str(24 * a.multiplier))]
              if a.multiplier else [[] for _ in logs])
    key = lambda r: (r['deal'], r['turn'], r['decision'])
    inj_big = inj_big_classed = greedy_n = greedy_classed = 0
    decisions = changed = 0
    for b, o, s in zip(base, other, strong):
        strong_by = {key(r): r for r in s}
        for r, q in zip(b, o):
            decisions += 1
            changed += r['class'] != q['class']
        for r in b:
            classed = r['class'] in ('mistake', 'blunder')
            if r['played'] == r['greedy']:
                greedy_n += 1
                greedy_classed += classed
            elif a.multiplier and strong_by[key(r)]['loss'] >= 100:
                inj_big += 1
                inj_big_classed += classed
    print('2. injected decisions losing >= 100 points at %dx strength classed mistake or blunder: %d of %d '
          '(%.1f %%); greedy decisions so classed: %d of %d (%.1f %%); %d matches, -b blunder --seed 24' %
          (a.multiplier, inj_big_classed, inj_big, 100.0 * inj_big_classed / max(inj_big, 1), greedy_classed,
           greedy_n, 100.0 * greedy_classed / max(greedy_n, 1), a.blunder_matches), flush=True)
    print('3. class changed by another seed (--seed 2): %d of %d decisions (%.1f %%)' %
          (changed, decisions, 100.0 * changed / max(decisions, 1)), flush=True)


def part_speedup(a, tmp, mixed):
    if mixed is None:
        mixed = os.path.join(tmp, 'speedup')
        subprocess.run([a.brp, 'simulate', '-q', '-b', 'greedy', '-n', str(a.speedup_matches), '--seed', '24', '-o',
                        mixed], check=True)
    logs = logs_in(mixed)[:a.speedup_matches]
    ratios, walls = [], {'1': [], '2': []}
    load = os.getloadavg()[0]
    for _ in range(a.rounds):
        for log in logs:
            w = {}
            for j in ('1', '2'):
                t = time.monotonic()
                review(a.brp, log, '-j', j)
                w[j] = time.monotonic() - t
                walls[j].append(w[j])
            ratios.append(w['1'] / w['2'])
    print('5. -j 2 speed-up: %.2fx, the median of %d ratios (%d matches, %d rounds interleaved; median wall %.2f s '
          'at -j 1, %.2f s at -j 2); load average %.2f before, %.2f after' %
          (statistics.median(ratios), len(ratios), len(logs), a.rounds, statistics.median(walls['1']),
           statistics.median(walls['2']), load, os.getloadavg()[0]), flush=True)


def part_search(a, tmp):
    arena = os.path.join(tmp, 'arena')
    subprocess.run([a.brp, 'arena', 'search:%d' % a.search_strength, 'greedy', '-n', str(a.search_pairs), '--seed',
                    '24', '-j', str(a.jobs), '-q', '-o', arena], check=True, stdout=subprocess.DEVNULL)
    logs = logs_in(arena)
    above = 0
    pooled = {'search': [], 'greedy': []}
    for log, rows in zip(logs, review_all(a.brp, logs, a.jobs)):
        side_a = int(re.search(r'-a(\d)\.brp$', log).group(1))  # the side the search bot played
        acc = {'search': [], 'greedy': []}
        for r in rows:
            if 'played' in r:
                kind = 'search' if r['seat'] % 2 == side_a else 'greedy'
                acc[kind].append(r['accuracy'])
                pooled[kind].append(r['accuracy'])
        above += mean(acc['search']) > mean(acc['greedy'])
    print('6. search:%d above greedy in accuracy: %d of %d logs (%.1f %%); mean accuracy a decision %.2f against '
          '%.2f; brp arena search:%d greedy -n %d --seed 24, STBL, 4 players' %
          (a.search_strength, above, len(logs), 100.0 * above / max(len(logs), 1), mean(pooled['search']),
           mean(pooled['greedy']), a.search_strength, a.search_pairs), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('brp')
    ap.add_argument('--matches', type=int, default=300)
    ap.add_argument('--blunder-matches', type=int, default=20)
    ap.add_argument('--multiplier', type=int, default=16)
    ap.add_argument('--search-pairs', type=int, default=20)
    ap.add_argument('--search-strength', type=int, default=128)
    ap.add_argument('--speedup-matches', type=int, default=3)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--only', default='1,2,5,6')
    ap.add_argument('--review-args', default='', help='more options for every brp review, e.g. "--horizon 8"')
    a = ap.parse_args()
    EXTRA.extend(a.review_args.split())
    parts = set(a.only.split(','))
    with tempfile.TemporaryDirectory() as tmp:
        mixed = part_mixed(a, tmp) if '1' in parts else None
        if '2' in parts:
            part_blunder(a, tmp)
        if '6' in parts:
            part_search(a, tmp)
        if '5' in parts:
            part_speedup(a, tmp, mixed)


if __name__ == '__main__':
    main()
