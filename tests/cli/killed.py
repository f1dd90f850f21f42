#!/usr/bin/env python3
"""A recording killed at random moments (issue 7).

    killed.py BRP [KILLS [SEED]]

A match is made with `brp simulate` and dumped as text; its body is fed to
`brp record` one line at a time through a pipe. brp answers each line after
it has flushed what the line recorded, so every decision of a line answered
before the kill is on disk. At a random moment (after a random number of
answers, a random delay into the next line, or in the middle of writing a
line) the recorder gets SIGKILL; then `brp recover` salvages what is left,
and the salvaged log must
  - verify as ok or incomplete (never malformed or illegal),
  - hold every decision answered before the kill, and nothing that was not
    in the input, in order;
  - hold every deal whose stock line was answered `ok` (issue 13: the lines of
    a deal block before it are answered `kept`, not `ok`: they are written with
    the stock line).
The run is deterministic for a given SEED but the kill lands wherever the
scheduler puts it, which is the point.
"""
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

TURN = re.compile(r"^(\d+)\. (\d+): (.*)$")


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, text=True, **kw)


def decisions(text):
    """Every decision of the turn lines of a text, in order, as (deal, text)."""
    out, deal = [], 0
    for line in text.splitlines():
        if line.startswith("deal "):
            deal = int(line.split()[1])
        m = TURN.match(line)
        if m:
            out += [(deal, d.strip()) for d in m.group(3).split(",")]
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    brp = os.path.abspath(sys.argv[1])
    kills = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    env = dict(os.environ, LC_ALL="C", TZ="UTC")
    failures = 0

    with tempfile.TemporaryDirectory(prefix="brp-killed.") as tmp:
        r = run(brp, "simulate", "--rules", "stbl", "--players", "4", "--target", "0", "--seed", "7",
                "-q", "-o", tmp + "/sim", env=env)
        if r.returncode != 0:
            print("brp simulate failed:", r.stderr)
            return 1
        text = run(brp, "dump", tmp + "/sim/match-000001.brp", env=env).stdout
        tags = dict()
        for m in re.finditer(r'^\[(\w+) "([^"]*)"(?: "([^"]*)")?\]$', text, re.M):
            tags.setdefault(m.group(1), []).append((m.group(2), m.group(3)))
        opts = ["--rules", tags["Profile"][0][0], "--players", tags["Players"][0][0],
                "--first-dealer", tags["FirstDealer"][0][0]]
        for name, value in tags.get("Rule", []):
            opts += ["--set", "%s=%s" % (name, value)]
        # the body: deal blocks, turns and claims; 'end' is left out (a kill comes first)
        body = [l for l in text.splitlines() if l and not l.startswith("[") and l != "end"]
        wanted = decisions(text)
        print("%d lines, %d decisions; %d kills" % (len(body), len(wanted), kills))

        stats = {"ok": 0, "incomplete": 0}
        for k in range(kills):
            log = "%s/rec-%02d.brp" % (tmp, k)
            salvaged = "%s/salvaged-%02d.brp" % (tmp, k)
            answered = rng.randrange(0, len(body))  # lines answered before the kill
            how = rng.choice(["after-answer", "delay", "mid-line"])
            delay = rng.uniform(0, 0.003)
            p = subprocess.Popen([brp, "record", "-o", log] + opts, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
                                 bufsize=1)
            acked = []  # the lines answered "ok"
            try:
                for i in range(answered):
                    p.stdin.write(body[i] + "\n")
                    p.stdin.flush()
                    answer = p.stdout.readline().strip()
                    expect = "kept" if body[i].split(" ")[0] in ("deal", "hand", "morto") else "ok"
                    if answer != expect:
                        print("FAIL kill %d: line %d %r answered %r" % (k, i + 1, body[i], answer))
                        failures += 1
                        break
                    acked.append(body[i])
                nxt = body[answered]
                if how == "mid-line":
                    p.stdin.write(nxt[: len(nxt) // 2])
                    p.stdin.flush()
                elif how == "delay":
                    p.stdin.write(nxt + "\n")
                    p.stdin.flush()
                    time.sleep(delay)
            except BrokenPipeError:
                pass
            p.send_signal(signal.SIGKILL)
            p.wait()
            if p.returncode != -signal.SIGKILL:
                print("FAIL kill %d: brp record ended with %d before the kill" % (k, p.returncode))
                failures += 1
                continue
            for f in (p.stdin, p.stdout, p.stderr):
                try:
                    f.close()
                except BrokenPipeError:
                    pass
            must = decisions("\n".join(acked))
            r = run(brp, "recover", log, "-o", salvaged, env=env)
            if r.returncode != 0:
                print("FAIL kill %d (%s, %d lines answered): brp recover: %s" % (k, how, len(acked),
                                                                               r.stderr.strip()))
                failures += 1
                continue
            v = run(brp, "verify", salvaged, env=env)
            verdict = v.stdout.split(": ")[1] if ": " in v.stdout else v.stdout
            if verdict not in stats:
                print("FAIL kill %d (%s): the salvaged log is %r" % (k, how, v.stdout.strip()))
                failures += 1
                continue
            stats[verdict] += 1
            dumped = run(brp, "dump", salvaged, env=env).stdout
            got = decisions(dumped)
            deals_acked = sum(1 for l in acked if l.startswith("stock:"))
            deals_kept = sum(1 for l in dumped.splitlines() if l.startswith("deal "))
            if deals_kept < deals_acked:
                print("FAIL kill %d (%s): %d deals answered ok, the salvaged log holds %d" %
                      (k, how, deals_acked, deals_kept))
                failures += 1
            elif got[: len(must)] != must:
                print("FAIL kill %d (%s): %d decisions answered, the salvaged log holds %d of them" %
                      (k, how, len(must), sum(1 for a, b in zip(got, must) if a == b)))
                failures += 1
            elif got != wanted[: len(got)]:
                print("FAIL kill %d (%s): the salvaged log holds decisions that were not recorded" % (k, how))
                failures += 1
            else:
                print("kill %2d %-12s %3d lines answered, %3d decisions answered, %3d salvaged: %s" %
                      (k, how, len(acked), len(must), len(got), verdict))
        print("%d kills: %d salvaged logs ok, %d incomplete; %d failures" %
              (kills, stats["ok"], stats["incomplete"], failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
