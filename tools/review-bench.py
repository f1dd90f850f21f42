#!/usr/bin/python3
"""The review's targets (issue 24; figures in docs/performance.md, "The review").

    tools/review-bench.py BRP [--matches N] [--blunder-matches N] [--multiplier M] [--jobs J]

1. Mixed greedy and random bots (brp simulate -b mixed, STBL, 4 players: one deal a match): in how
   many matches with both kinds the greedy seats' mean accuracy is above the random seats'.
2. Blunder bots (brp simulate -b blunder): the blunder bot's injected decisions (those where it did
   not play the greedy bot's choice) whose loss, measured at M times the default strength, is 100
   points or more: the share classed mistake or blunder at the default strength; and the share of its
   greedy decisions classed so.
3. The same matches reviewed with another seed: the share of decisions whose class changes.
4. CPU a seat and deal at the default strength (user + system time of brp review -j 1).
5. -j 2 against -j 1: the wall-time speed-up (on an idle machine only).
Prints one line a figure with what it was measured on.
"""
import argparse
import json
import os
import resource
import subprocess
import tempfile
import time


def review(brp, log, *args):
    out = subprocess.run([brp, 'review', '--json', *args, log], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise SystemExit('brp review %s: %s' % (log, out.stderr.strip()))
    return [json.loads(line) for line in out.stdout.splitlines()]


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('brp')
    ap.add_argument('--matches', type=int, default=300)
    ap.add_argument('--blunder-matches', type=int, default=20)
    ap.add_argument('--multiplier', type=int, default=16)
    ap.add_argument('--jobs', type=int, default=2)
    a = ap.parse_args()
    brp = a.brp
    with tempfile.TemporaryDirectory() as tmp:
        mixed, blunder = os.path.join(tmp, 'mixed'), os.path.join(tmp, 'blunder')
        subprocess.run([brp, 'simulate', '-q', '-b', 'mixed', '-n', str(a.matches), '--seed', '24', '-j',
                        str(a.jobs), '-o', mixed], check=True)
        subprocess.run([brp, 'simulate', '-q', '-b', 'blunder', '-n', str(a.blunder_matches), '--seed', '24',
                        '-j', str(a.jobs), '-o', blunder], check=True)

        # 1 and 4: accuracy of greedy and random seats; CPU a seat and deal at -j 1
        both = above = 0
        seat_deals = 0
        cpu0 = children_cpu()
        for name in sorted(os.listdir(mixed)):
            rows = review(brp, os.path.join(mixed, name))
            acc = {'greedy': [], 'random': []}
            for r in rows:
                if r.get('summary') and r['deal'] is None:
                    acc[r['player'].split('-')[0]].append(r['accuracy'])
                elif r.get('summary'):
                    seat_deals += 1
            if acc['greedy'] and acc['random']:
                both += 1
                above += sum(acc['greedy']) / len(acc['greedy']) > sum(acc['random']) / len(acc['random'])
        cpu = children_cpu() - cpu0
        print('1. greedy seats above random seats in accuracy: %d of %d matches with both (%.1f %%); '
              '%d matches, STBL, 4 players, -b mixed --seed 24' % (above, both, 100.0 * above / max(both, 1),
                                                                  a.matches))
        print('4. CPU at the default strength: %.2f s a seat and deal (%d seat-deals, %.1f s)' %
              (cpu / max(seat_deals, 1), seat_deals, cpu))

        # 2 and 3: the blunder bot's decisions
        inj_big = inj_big_classed = greedy_n = greedy_classed = 0
        decisions = changed = 0
        for name in sorted(os.listdir(blunder)):
            log = os.path.join(blunder, name)
            base = [r for r in review(brp, log) if 'played' in r]
            other = [r for r in review(brp, log, '--seed', '2') if 'played' in r]
            strong = [r for r in review(brp, log, '--strength', str(24 * a.multiplier), '-j', str(a.jobs))
                      if 'played' in r]
            key = lambda r: (r['deal'], r['turn'], r['decision'])
            strong_by = {key(r): r for r in strong}
            for r, o in zip(base, other):
                decisions += 1
                changed += r['class'] != o['class']
            for r in base:
                classed = r['class'] in ('mistake', 'blunder')
                if r['played'] == r['greedy']:
                    greedy_n += 1
                    greedy_classed += classed
                elif strong_by[key(r)]['loss'] >= 100:
                    inj_big += 1
                    inj_big_classed += classed
        print('2. injected decisions losing >= 100 points at %dx strength classed mistake or blunder: %d of %d '
              '(%.1f %%); greedy decisions so classed: %d of %d (%.1f %%); %d matches, -b blunder --seed 24' %
              (a.multiplier, inj_big_classed, inj_big, 100.0 * inj_big_classed / max(inj_big, 1), greedy_classed,
               greedy_n, 100.0 * greedy_classed / max(greedy_n, 1), a.blunder_matches))
        print('3. class changed by another seed (--seed 2): %d of %d decisions (%.1f %%)' %
              (changed, decisions, 100.0 * changed / max(decisions, 1)))

        # 5: -j 2 against -j 1 on one match, wall time
        log = os.path.join(mixed, sorted(os.listdir(mixed))[0])
        walls = []
        for j in ('1', '2'):
            t = time.monotonic()
            review(brp, log, '-j', j)
            walls.append(time.monotonic() - t)
        print('5. -j 2 speed-up: %.2fx (%.1f s at -j 1, %.1f s at -j 2, wall time, one match)' %
              (walls[0] / walls[1], walls[0], walls[1]))


if __name__ == '__main__':
    main()
