#!/usr/bin/env python3
"""The integrity screen's benchmark (issue 25, docs/integrity.md, docs/performance.md "The integrity screen").

Three parts, each printing a table (and, with --json FILE, the figures as JSON):

  fa     false alarms: honest corpora (greedy, mixed, search bots) of each profile, cut into samples of about
         --deals deals (a sample is one brp simulate run: its own seed, its own players), each screened alone
         with --pairs; the share of players, pairs and lines flagged at the nominal level, and how uniform the
         p-values of honest subjects are (the share below 0.01, 0.05, 0.1 and 0.5).
  power  a planted cheater at seat 0 (peeker, feeder, signaller) among greedy bots: the share of samples of N
         deals in which it is flagged (the peeker's peek line, the feeder's feed line against seat 1, the
         signaller's signal line against seat 2), for each N of --sizes: the power curve.
  speed  the screen's decisions a second on one core and on two (-j 1, -j 2), interleaved rounds, medians.

Usage: tools/integrity-bench.py BRP [--part fa,power,speed] [--matches N] [--search-matches N] ...
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

# about how many deals a match of each profile lasts at 4 players (brp stats on greedy corpora)
DEALS_PER_MATCH = {"stbl": 1.0, "kzv": 5.1, "aberto": 3.7}


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def simulate(brp, out, profile, players, bots, matches, seed):
    run([brp, "simulate", "-q", "-r", profile, "-p", str(players), "-b", bots, "-n", str(matches),
         "--seed", str(seed), "-o", out])


FULL = []  # ["--full"] with --full: the full test's lines too


def screen(brp, corpus, extra=()):
    p = subprocess.run([brp, "integrity", "--pairs", "--json", *FULL, *extra, corpus], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit("brp integrity failed: " + p.stderr)
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def sample(args, tmp, profile, players, bots, matches, seed):
    """One sample: simulate a corpus, screen it, and return its lines."""
    d = os.path.join(tmp, "s%d" % seed)
    try:
        simulate(args.brp, d, profile, players, bots, matches, seed)
        return screen(args.brp, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def part_fa(args, tmp):
    rows, everything, all_results = [], [], []
    kinds = [(k, args.matches) for k in args.kinds if k in ("greedy", "mixed")]
    if args.search_matches and "search" in args.kinds:
        kinds.append(("search:%d" % args.search_strength, args.search_matches))
    for profile in args.profiles:
        per = max(1, round(args.deals / DEALS_PER_MATCH[profile]))
        for bots, total in kinds:
            jobs = []
            for k in range(max(1, total // per)):
                seed = 1000003 * (1 + args.profiles.index(profile)) + 7919 * len(rows) + k + args.seed
                jobs.append((profile, args.players, bots, per, seed))
            with ThreadPoolExecutor(args.jobs) as ex:
                results = list(ex.map(lambda j: sample(args, tmp, *j), jobs))
            lines = [l for r in results for l in r]
            everything += lines
            all_results += results
            rows.append(fa_row(profile, bots, len(jobs), per, results, lines))
            print_fa(rows[-1])
    total = fa_row("all", "all", sum(r["samples"] for r in rows), 0, all_results, everything)
    print_fa(total)
    return {"rows": rows, "all": total}


def fa_row(profile, bots, samples, per, results, lines):
    # subjects are per sample: a name in two samples is two players
    players, pairs = {}, {}
    for si, r in enumerate(results):
        for l in r:
            if "player" in l:
                players.setdefault((si, l["player"]), []).append(l)
            else:
                pairs.setdefault((si, tuple(l["pair"])), []).append(l)
    pf = sum(any(l["flagged"] for l in v) for v in players.values())
    qf = sum(any(l["flagged"] for l in v) for v in pairs.values())
    ps = [l["p"] for l in lines]
    share = lambda t: sum(p <= t for p in ps) / max(1, len(ps))
    return {"profile": profile, "bots": bots, "samples": samples, "matches_per_sample": per,
            "players": len(players), "players_flagged": pf, "pairs": len(pairs), "pairs_flagged": qf,
            "lines": len(lines), "lines_flagged": sum(l["flagged"] for l in lines),
            "p_le_0.01": share(0.01), "p_le_0.05": share(0.05), "p_le_0.1": share(0.1), "p_le_0.5": share(0.5)}


def wilson(k, n, z=1.96):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def print_fa(r):
    lo, hi = wilson(r["players_flagged"] + r["pairs_flagged"], r["players"] + r["pairs"])
    print("%-7s %-10s samples %4d  players %4d flagged %3d  pairs %5d flagged %3d  = %.2f%% [%.2f, %.2f]  "
          "p<=.01 %.3f  p<=.05 %.3f  p<=.1 %.3f  p<=.5 %.3f" % (
              r["profile"], r["bots"], r["samples"], r["players"], r["players_flagged"], r["pairs"],
              r["pairs_flagged"], 100.0 * (r["players_flagged"] + r["pairs_flagged"]) / max(1, r["players"] + r["pairs"]),
              100 * lo, 100 * hi, r["p_le_0.01"], r["p_le_0.05"], r["p_le_0.1"], r["p_le_0.5"]), flush=True)


CHEATS = {
    # kind: (the line that must be flagged: statistic and subject)
    "peeker": ("peek", lambda l: l.get("player") == "peeker-0"),
    "feeder": ("feed", lambda l: l.get("pair") == ["feeder-0", "greedy-1"]),
    "signaller": ("signal", lambda l: l.get("pair") == ["signaller-0", "greedy-2"]),
}


def part_power(args, tmp):
    out = []
    for kind in args.cheaters:
        stat, pick = CHEATS[kind.split(":")[0]]
        for deals in args.sizes:
            per = max(1, round(deals / DEALS_PER_MATCH[args.power_profile]))
            bots = ",".join([kind] + ["greedy"] * (args.players - 1))
            jobs = [(args.power_profile, args.players, bots, per, 500009 * (1 + args.sizes.index(deals)) + k + args.seed)
                    for k in range(args.samples)]
            with ThreadPoolExecutor(args.jobs) as ex:
                results = list(ex.map(lambda j: sample(args, tmp, *j), jobs))
            hits = hind = 0
            name = kind.split(":")[0] + "-0"  # the cheater sits at seat 0
            for r in results:
                mine = [l for l in r if l["statistic"] == stat and pick(l)]
                hits += bool(mine and mine[0]["flagged"])
                hind += any(l["statistic"] == "hindsight" and l.get("player") == name and l["flagged"] for l in r)
            lo, hi = wilson(hits, len(results))
            row = {"cheater": kind, "deals": deals, "matches": per, "samples": len(results), "flagged": hits,
                   "rate": hits / len(results), "ci": [lo, hi]}
            if FULL:
                row["hindsight_flagged"] = hind
            out.append(row)
            print("%-12s %4d deals (%3d matches)  flagged %3d of %3d = %5.1f%% [%.1f, %.1f]%s" % (
                kind, deals, per, hits, len(results), 100 * row["rate"], 100 * lo, 100 * hi,
                "  hindsight line flagged in %d" % hind if FULL else ""), flush=True)
    return out


def part_speed(args, tmp):
    corpus = os.path.join(tmp, "speed")
    simulate(args.brp, corpus, args.power_profile, args.players, "greedy", args.speed_matches, 77)
    stats = json.loads(run([args.brp, "stats", "--json", corpus]).stdout)
    times = {1: [], 2: []}
    for _ in range(args.rounds):
        for j in (1, 2):
            t0 = time.perf_counter()
            subprocess.run([args.brp, "integrity", "-q", "-j", str(j), corpus], stdout=subprocess.DEVNULL)
            times[j].append(time.perf_counter() - t0)
    m1, m2 = statistics.median(times[1]), statistics.median(times[2])
    res = {"decisions": stats["decisions"], "deals": stats["deals"], "j1_s": m1, "j2_s": m2,
           "decisions_per_s_j1": stats["decisions"] / m1, "decisions_per_s_j2": stats["decisions"] / m2,
           "speedup": m1 / m2}
    print("speed: %d decisions, %d deals: -j 1 %.2f s (%.0f decisions/s), -j 2 %.2f s (%.0f/s), %.2fx" % (
        res["decisions"], res["deals"], m1, res["decisions_per_s_j1"], m2, res["decisions_per_s_j2"], res["speedup"]))
    # the full test against the review of the same logs (one thread each, interleaved rounds: CPU time)
    small = os.path.join(tmp, "speed-full")
    simulate(args.brp, small, args.power_profile, args.players, "greedy", args.full_matches, 78)
    logs = sorted(os.path.join(small, f) for f in os.listdir(small))
    full, review = [], []
    for _ in range(args.rounds):
        full.append(cpu([args.brp, "integrity", "-q", "--full", "-j", "1", small]))
        review.append(sum(cpu([args.brp, "review", l]) for l in logs))
    sstats = json.loads(run([args.brp, "stats", "--json", small]).stdout)
    f, r = statistics.median(full), statistics.median(review)
    res.update({"full_matches": args.full_matches, "full_decisions": sstats["decisions"], "full_cpu_s": f,
                "review_cpu_s": r, "full_over_review": f / r})
    print("full test: %d matches, %d decisions: %.2f s of CPU (%.0f decisions/s), brp review of the same logs "
          "%.2f s: %.2f of the review's cost" % (args.full_matches, sstats["decisions"], f, sstats["decisions"] / f,
                                                 r, f / r))
    return res


def cpu(cmd):
    """The CPU time (user + system) of cmd and its children."""
    before = os.times()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("brp")
    ap.add_argument("--part", default="fa,power,speed")
    ap.add_argument("--profiles", default="stbl,kzv,aberto")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--deals", type=int, default=40, help="deals a false-alarm sample (default 40)")
    ap.add_argument("--matches", type=int, default=1000, help="matches a profile and bot kind (greedy, mixed)")
    ap.add_argument("--search-matches", type=int, default=0, help="matches a profile of search bots (slow)")
    ap.add_argument("--search-strength", type=int, default=8)
    ap.add_argument("--kinds", default="greedy,mixed,search", help="the honest corpora of fa")
    ap.add_argument("--cheaters", default="peeker,feeder,signaller")
    ap.add_argument("--sizes", default="10,20,40,70,100")
    ap.add_argument("--samples", type=int, default=50, help="samples a size (power)")
    ap.add_argument("--power-profile", default="stbl")
    ap.add_argument("--speed-matches", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--full", action="store_true", help="screen with --full (the hindsight test) in fa and power")
    ap.add_argument("--full-matches", type=int, default=10, help="matches of the full test's cost (speed)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    args.profiles = args.profiles.split(",")
    args.cheaters = args.cheaters.split(",")
    args.kinds = args.kinds.split(",")
    args.sizes = [int(x) for x in args.sizes.split(",")]
    parts = args.part.split(",")
    if args.full:
        FULL.append("--full")
    tmp = tempfile.mkdtemp(prefix="integrity-bench-")
    figures = {}
    try:
        if "fa" in parts:
            figures["fa"] = part_fa(args, tmp)
        if "power" in parts:
            figures["power"] = part_power(args, tmp)
        if "speed" in parts:
            figures["speed"] = part_speed(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
