#!/usr/bin/env python3
"""brp integrity (issue 25): calibration, planted cheaters, the JSON lines' schema, the options.

    integrity_check.py BRP SRCROOT

- calibration: on honest corpora (greedy and random bots at random seats; 24 samples of 20 one-deal
  matches, each screened alone with --pairs), the p-values of honest players and pairs are uniform: the
  share at or below 0.05, 0.1 and 0.5 within binomial bounds of their nominal value, the Kolmogorov-Smirnov
  distance by which they fall below uniform ones below its 0.1 % critical value, and no more than 2 % of
  lines flagged;
- each planted cheater at seat 0 among greedy bots (peeker, feeder, signaller; 30 one-deal matches on a
  fixed seed) is flagged on its own line, with the decisions behind it, and no greedy seat is flagged;
- every JSON line has the documented keys and types, flagged is p < level, the evidence's view
  fragments are brp view's (#d=DEAL&t=TURN&n=DECISION) and the position they name is one of the player's
  discards (brp show --json at that fragment);
- the same lines at -j 1 and -j 2; --seat, --player, --level and the exit status (1 when something is
  flagged); a log that does not verify ok is left out with a message; usage errors exit 2;
- -K: a log no trusted key signs is left out as untrusted, and the signed ones give the lines they give
  alone;
- --full adds one hindsight line a player (the same at -j 1 and -j 2), each player then tested at the
  level over three statistics, and changes none of the other lines.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

BRP, ROOT = sys.argv[1], sys.argv[2]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(*args):
    return subprocess.run([BRP] + [str(a) for a in args], capture_output=True, text=True,
                          env=dict(os.environ, LC_ALL="C", TZ="UTC"))


def simulate(out, bots, n, seed, players=4, profile="stbl"):
    r = run("simulate", "-q", "-r", profile, "-p", players, "-b", bots, "-n", n, "-t", "0", "--seed", seed, "-o", out)
    if r.returncode != 0:
        raise SystemExit("brp simulate: " + r.stderr)


def screen(corpus, *extra):
    r = run("integrity", "--json", "--pairs", *extra, corpus)
    if r.returncode not in (0, 1):
        raise SystemExit("brp integrity %s: exit %d: %s" % (corpus, r.returncode, r.stderr))
    return r, [json.loads(l) for l in r.stdout.splitlines()]


KEYS = {"statistic": str, "value": float, "n": int, "deals": int, "matches": int, "observed": float,
        "expected": float, "z": float, "p": float, "level": float, "flagged": bool, "evidence": list}


def check_schema(lines, where):
    for l in lines:
        if ("player" in l) == ("pair" in l):
            fail("%s: a line is a player or a pair: %s" % (where, l))
        if "player" in l and (not isinstance(l["player"], str) or l["statistic"] not in ("peek", "draw", "hindsight")):
            fail("%s: a player line: %s" % (where, l))
        if "pair" in l and (len(l["pair"]) != 2 or l["statistic"] not in ("feed", "signal")):
            fail("%s: a pair line: %s" % (where, l))
        for k, t in KEYS.items():
            v = l.get(k)
            if t is float and isinstance(v, int) and not isinstance(v, bool):
                v = float(v)
            if not isinstance(v, t):
                fail("%s: %s is not a %s in %s" % (where, k, t.__name__, l))
                return
        if not (0 < l["p"] <= 1) or l["n"] < 1 or l["deals"] < 1 or l["deals"] > l["n"]:
            fail("%s: p, n or deals out of range: %s" % (where, l))
        if l["flagged"] != (l["p"] < l["level"]):
            fail("%s: flagged is not p < level: %s" % (where, l))
        for e in l["evidence"]:
            if set(e) != {"log", "deal", "turn", "decision", "number", "residual", "view"} or \
                    e["view"] != "#d=%d&t=%d&n=%d" % (e["deal"], e["turn"], e["decision"]) or e["residual"] <= 0:
                fail("%s: evidence: %s" % (where, e))


def ks_uniform(ps):
    ps = sorted(ps)
    n = len(ps)
    return max(max((i + 1) / n - p, p - i / n) for i, p in enumerate(ps))


def calibration(tmp):
    ps, flagged, lines = [], 0, 0
    for k in range(24):
        d = os.path.join(tmp, "honest%d" % k)
        simulate(d, "mixed", 20, 9000 + k)
        _, ls = screen(d)
        check_schema(ls, d)
        ps += [l["p"] for l in ls]
        flagged += sum(l["flagged"] for l in ls)
        lines += len(ls)
        shutil.rmtree(d)
    n = len(ps)
    for level in (0.05, 0.1, 0.5):
        share = sum(p <= level for p in ps) / n
        sd = math.sqrt(level * (1 - level) / n)
        # the lines of one sample share its decisions: a wider band than independent lines would need
        if abs(share - level) > 4 * sd + 0.01:
            fail("calibration: %.3f of %d honest p-values at or below %.2f" % (share, n, level))
    # a test on a few deals has a few p-values only (a sign test on 3 deals: 1/8, 2/8 ...), each at
    # least as large as its uniform share: so the p-values are checked not to be smaller than uniform
    # ones anywhere (one-sided Kolmogorov-Smirnov, its 0.1 % critical value)
    d = max((i + 1) / n - p for i, p in enumerate(sorted(ps)))
    if d > 1.86 / math.sqrt(n):
        fail("calibration: the honest p-values are smaller than uniform ones (Kolmogorov-Smirnov %.3f, n %d)"
             % (d, n))
    if flagged > 0.02 * lines:
        fail("calibration: %d of %d honest lines flagged" % (flagged, lines))
    print("calibration: %d honest lines, %d flagged, one-sided KS %.3f; at or below 0.05, 0.1, 0.5: %s"
          % (lines, flagged, d, ", ".join("%.3f" % (sum(p <= a for p in ps) / n) for a in (0.05, 0.1, 0.5))))
    return ps


def cheaters(tmp):
    cases = [("peeker,greedy,greedy,greedy", "peek", lambda l: l.get("player") == "peeker-0"),
             ("feeder,greedy,greedy,greedy", "feed", lambda l: l.get("pair") == ["feeder-0", "greedy-1"]),
             ("greedy,greedy,signaller,greedy", "signal", lambda l: l.get("pair") == ["signaller-2", "greedy-0"])]
    for bots, stat, pick in cases:
        d = os.path.join(tmp, bots.replace(",", "-"))
        simulate(d, bots, 30, 77)
        r, ls = screen(d)
        check_schema(ls, d)
        mine = [l for l in ls if l["statistic"] == stat and pick(l)]
        if len(mine) != 1 or not mine[0]["flagged"] or not mine[0]["evidence"]:
            fail("%s: the cheater's %s line is not flagged: %s" % (bots, stat, mine))
        elif r.returncode != 1:
            fail("%s: exit %d with a flag" % (bots, r.returncode))
        else:
            e = mine[0]["evidence"][0]
            s = run("show", "--json", "-d", e["deal"], "-t", e["turn"], "-D", e["decision"], e["log"])
            if s.returncode not in (0, 1) or "discard" not in json.dumps(json.loads(s.stdout)).lower():
                fail("%s: the evidence's position is not a discard: %s" % (bots, e))
        honest = [l for l in ls if l["flagged"] and not pick(l) and "greedy" in (l.get("player") or l["pair"][0])]
        if honest:
            fail("%s: an honest seat is flagged: %s" % (bots, honest))
    return d


def options(tmp, corpus):
    _, a = screen(corpus, "-j", "1")
    _, b = screen(corpus, "-j", "2")
    if a != b:
        fail("-j 1 and -j 2 give other lines")
    _, seat = screen(corpus, "--seat", "2")
    if not seat or any((l.get("player") or l["pair"][0]) != "signaller-2" for l in seat):
        fail("--seat 2: lines of other seats: %s" % seat[:2])
    _, pl = screen(corpus, "--player", "greedy-0")
    if not pl or any("greedy-0" not in ([l["player"]] if "player" in l else l["pair"]) for l in pl):
        fail("--player greedy-0: %s" % pl[:2])
    r, lv = screen(corpus, "--level", "0.000001")
    if any(l["flagged"] for l in lv) or r.returncode != 0:
        fail("--level 0.000001 still flags (exit %d)" % r.returncode)
    players_only = run("integrity", "--json", corpus)
    if any("pair" in json.loads(l) for l in players_only.stdout.splitlines()):
        fail("without --pairs, pair lines are printed")
    text = run("integrity", "--pairs", corpus)
    if text.returncode != 1 or "FLAGGED" not in text.stdout or "#d=" not in text.stdout:
        fail("the text report: exit %d: %s" % (text.returncode, text.stdout[:300]))
    # a log that does not verify ok is left out, said; the rest is screened
    bad = os.path.join(tmp, "with-bad")
    shutil.copytree(corpus, bad)
    shutil.copy(os.path.join(ROOT, "samples", "disputed", "pile-frozen.brp"), bad)
    r = run("integrity", "--json", "--pairs", bad)
    if "left out" not in r.stderr or r.returncode != 1:
        fail("a log that does not verify: exit %d, %s" % (r.returncode, r.stderr))
    for args in (["--level", "0"], ["--level", "x"], ["--samples", "0"], [], ["--permutations", "5"]):
        r = run("integrity", *(args + ([corpus] if args else [])))
        if r.returncode != 2 or r.stderr.count("\n") != 1:
            fail("integrity %s: exit %d, %r" % (" ".join(args), r.returncode, r.stderr))


def full(tmp):
    """--full adds one hindsight line a player, the same at -j 1 and -j 2, and no other line changes."""
    d = os.path.join(tmp, "full")
    simulate(d, "peeker,greedy,greedy,greedy", 4, 78)
    _, plain = screen(d)
    _, a = screen(d, "--full", "--full-strength", "3", "-j", "1")
    _, b = screen(d, "--full", "--full-strength", "3", "-j", "2")
    check_schema(a, d + " --full")
    if a != b:
        fail("--full: -j 1 and -j 2 give other lines")
    hind = [l for l in a if l["statistic"] == "hindsight"]
    if sorted(l["player"] for l in hind) != ["greedy-1", "greedy-2", "greedy-3", "peeker-0"]:
        fail("--full: the hindsight lines are not one a player: %s" % [l.get("player") for l in hind])
    key = lambda l: (l["statistic"], l.get("player"), tuple(l.get("pair", ())))
    others = sorted((key(l), l["value"], l["z"], l["n"]) for l in a if l["statistic"] != "hindsight")
    if others != sorted((key(l), l["value"], l["z"], l["n"]) for l in plain):
        fail("--full changes the screen's own lines")
    if any(abs(l["level"] - 0.01 / 3) > 1e-7 for l in a if "player" in l):
        fail("--full: a player's level is not the level over its three statistics")


def trusted(tmp, corpus):
    """-K: a log no trusted key signs is untrusted and left out, said; the signed ones are screened as before."""
    d = os.path.join(tmp, "signed")
    shutil.copytree(corpus, d)
    key = os.path.join(tmp, "platform")
    r = run("keygen", "-o", key)
    if r.returncode != 0:
        fail("brp keygen: " + r.stderr)
        return
    logs = sorted(os.listdir(d))
    for f in logs[:-2]:
        if run("sign", "-k", key + ".key", os.path.join(d, f)).returncode != 0:
            fail("brp sign " + f)
    r = run("integrity", "--json", "-K", key + ".pub", d)
    left = [l for l in r.stderr.splitlines() if "left out" in l]
    if len(left) != 2 or not all("untrusted" in l for l in left):
        fail("-K: the two unsigned logs are not left out as untrusted: %r" % r.stderr)
    _, signed_only = screen(d, "-K", key + ".pub")
    for f in logs[-2:]:
        os.remove(os.path.join(d, f))
    _, without = screen(d)
    if signed_only != without:
        fail("-K: the signed logs are not screened as they are without the unsigned ones")
    r = run("integrity", "--keyring", os.path.join(tmp, "no-such.pub"), d)
    if r.returncode not in (2, 3) or r.stderr.count("\n") != 1:
        fail("--keyring of a missing file: exit %d, %r" % (r.returncode, r.stderr))


def main():
    tmp = tempfile.mkdtemp(prefix="integrity-check-")
    try:
        calibration(tmp)
        corpus = cheaters(tmp)
        options(tmp, corpus)
        trusted(tmp, corpus)
        full(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
