#!/usr/bin/env python3
"""brp export --integrity: the integrity screen's evidence in the SQLite database (issue 25).

    integrity_export.py BRP SRCROOT

- the table integrity_deals and its views exist, with the latest schema version; each ok log has rows,
  with its decisions and the calibration of their options, and a log that does not verify ok has none;
- the views' sums and values are brp integrity --json --pairs's for the same logs and seed (each line,
  its decisions, deals, matches, observed, expected and value), and the value is what docs/schema.md's
  example query computes, and its query of one player's deals adds up to the same; -j 1 and -j 2 give the
  same rows; its Python sign-flip test gives brp integrity's p (players of 9 deals or more);
- a row keeps its first screen; a row exported without --integrity takes one when exported again with it;
  a database of schema version 6 is upgraded with its rows kept;
- brp merge of two shards gives the rows and the views of one export of both;
- --integrity without --sqlite is a usage error.
The corpus is small (single-deal matches): the values are checked for equality, not for power.
"""
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from copies import LATEST, old_database  # tests/cli/copies.py: the schema version brp writes; a database of an older one

failures = []
SEED = "5"


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(*args, check=True):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if check and r.returncode not in (0, 1):  # brp integrity: 1 when a line is flagged
        fail("%s: exit %d: %s" % (" ".join(str(a) for a in args), r.returncode, r.stderr.strip()))
    return r


def rows(db, sql, args=()):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def scalar(db, sql, args=()):
    return rows(db, sql, args)[0][0]


def evidence(db):
    """Every integrity_deals row, named by its match's file rather than its match_id, in key order."""
    return rows(db, "SELECT m.file, i.deal, i.seat, i.statistic, i.target, i.relation, i.bin, i.decisions, "
                    "i.observed, i.expected, i.residual, i.options, i.excess, i.samples, i.seed, i.version "
                    "FROM integrity_deals i JOIN matches m USING (match_id) "
                    "ORDER BY m.file, i.deal, i.seat, i.statistic, ifnull(i.target, -1), i.bin")


def views(db):
    return (rows(db, "SELECT * FROM integrity_players ORDER BY name, statistic"),
            rows(db, "SELECT * FROM integrity_pairs ORDER BY name, target_name, statistic"))


def doc_query(src, mark):
    """docs/schema.md's example query that holds mark."""
    text = open(os.path.join(src, "docs", "schema.md"), encoding="utf-8").read()
    for q in re.findall(r"```sql\n(.*?)```", text, re.S):
        if mark in q:
            return q
    fail("docs/schema.md has no example query with %r" % mark)
    return "SELECT 1 WHERE 0"


def check_deals_query(src, db):
    """The doc's query of one player's deals: their centred sums add up to the player's value."""
    deals = rows(db, doc_query(src, "mp.name = 'greedy-1'"))
    r = rows(db, "SELECT decisions, raw, centre FROM integrity_players WHERE name = 'greedy-1' "
                 "AND statistic = 'peek'")
    if not deals or not r or sum(d[2] for d in deals) != r[0][0] or \
            abs(sum(d[3] for d in deals) - r[0][0] * (r[0][1] - r[0][2])) > 1e-9:
        fail("greedy-1's deals by the doc's query %r, its integrity_players row %r" % (deals, r))
    print("deals: the doc's query of one player's deals adds up to its value (%d deals)" % len(deals))


def check_snippet(brp, src, db, logs):
    """The doc's Python sign-flip test on the doc's deals query: brp integrity's p for a player of 9 deals or more."""
    text = open(os.path.join(src, "docs", "schema.md"), encoding="utf-8").read()
    m = re.search(r"in Python,\n\n((?:    .*\n)+)", text)
    if not m:
        fail("docs/schema.md has no Python snippet of the sign-flip test")
        return
    snippet = "\n".join(line[4:] for line in m.group(1).splitlines())
    query = doc_query(src, "mp.name = 'greedy-1'")
    out = run(brp, "integrity", "--json", "--seed", SEED, *logs).stdout
    checked = 0
    for o in (json.loads(line) for line in out.splitlines()):
        if o.get("statistic") != "peek" or o["deals"] < 9:
            continue
        env = {"random": random, "x": [-r[3] for r in rows(db, query.replace("'greedy-1'", "?"), (o["player"],))]}
        exec(snippet, env)
        checked += 1
        # brp's large p-values are sequential estimates (50 reaching flips): within a third of themselves
        if abs(env["p"] - o["p"]) > max(0.02, o["p"] / 3):
            fail("%s: the doc's sign-flip test gives p %.4f, brp integrity %.4f" % (o["player"], env["p"], o["p"]))
    if not checked:
        fail("no player of 9 deals to check the doc's sign-flip test on")
    print("snippet: the doc's sign-flip test agrees with brp integrity's p (%d players)" % checked)


def check_against_brp(brp, src, db, logs):
    """The views are brp integrity --json --pairs's lines for the same logs and seed."""
    out = run(brp, "integrity", "--json", "--pairs", "--seed", SEED, *logs).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    players = {(r[0], r[1]): r for r in rows(db, "SELECT name, statistic, matches, deals, decisions, observed, "
                                                 "expected, raw, centre FROM integrity_players")}
    pairs = {(r[0], r[1], r[2]): r for r in rows(db, "SELECT name, target_name, statistic, matches, deals, "
                                                     "decisions, observed, expected, raw, centre "
                                                     "FROM integrity_pairs")}
    values = {(r[0], r[1]): r[5] for r in rows(db, doc_query(src, "FROM integrity_players"))}
    if not lines or len(lines) != len(players) + len(pairs):
        fail("brp integrity gives %d lines, the views %d players and %d pairs" % (len(lines), len(players),
                                                                                  len(pairs)))
    stats = set()
    for o in lines:
        stats.add(o["statistic"])
        if "player" in o:
            r = players.get((o["player"], o["statistic"]))
            sums, sign = (r[2:7] if r else None), -1 if o["statistic"] == "peek" else 1
        else:
            r = pairs.get((o["pair"][0], o["pair"][1], o["statistic"]))
            sums, sign = (r[3:8] if r else None), 1
        if not r:
            fail("no view row for brp integrity's %r" % o)
            continue
        raw, centre = r[-2], r[-1]
        mine = (sums[0], sums[1], sums[2], "%.4f" % sums[3], "%.4f" % sums[4], "%.6f" % (sign * (raw - centre)))
        theirs = (o["matches"], o["deals"], o["n"], "%.4f" % o["observed"], "%.4f" % o["expected"],
                  "%.6f" % o["value"])
        if mine != theirs:
            fail("%r: the views give %r, brp integrity %r" % (o.get("player", o.get("pair")), mine, theirs))
        if "player" in o and "%.6f" % values.get((o["player"], o["statistic"]), float("nan")) != "%.6f" % o["value"]:
            fail("%s %s: docs/schema.md's query gives %r, brp integrity %r" % (
                o["player"], o["statistic"], values.get((o["player"], o["statistic"])), o["value"]))
    if stats != {"peek", "draw", "feed", "signal"}:
        fail("the corpus gives the statistics %r, not all four" % sorted(stats))
    print("views: %d lines of brp integrity --json --pairs, each the views' sums and value" % len(lines))


def export(brp, db, *args):
    return run(brp, "export", "-q", "--sqlite", db, *args)


def main():
    brp, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    work = tempfile.mkdtemp(prefix="brp-integrity-export-")
    os.chdir(work)
    try:
        # 4 players (mixed bots: pairs of every kind) and 2 players of another profile, with shared names
        run(brp, "simulate", "-q", "-o", "c4", "-p", "4", "-n", "6", "-t", "0", "-b", "mixed", "--seed", "3")
        run(brp, "simulate", "-q", "-o", "c2", "-p", "2", "-n", "4", "-t", "0", "-r", "kzv", "--seed", "4")
        logs = sorted("c4/" + f for f in os.listdir("c4")) + sorted("c2/" + f for f in os.listdir("c2"))
        shutil.copy(os.path.join(src, "samples", "disputed", "damaged-byte.brp"), "damaged.brp")
        screen = ("--integrity-seed", SEED)

        export(brp, "j1.db", *screen, "-j", "1", *logs, "damaged.brp")
        export(brp, "j2.db", *screen, "-j", "2", *logs, "damaged.brp")
        if scalar("j1.db", "PRAGMA user_version") != LATEST:
            fail("schema version %r, not %d" % (scalar("j1.db", "PRAGMA user_version"), LATEST))
        per_match = dict(rows("j1.db", "SELECT m.file, count(i.match_id) FROM matches m LEFT JOIN integrity_deals i "
                                       "USING (match_id) GROUP BY m.match_id"))
        if [f for f in logs if per_match.get(f, 0) == 0] or per_match.get("damaged.brp") != 0:
            fail("rows by match: %r" % per_match)
        if scalar("j1.db", "SELECT count(*) FROM integrity_deals WHERE decisions = 0 AND options > 0") == 0 or \
                scalar("j1.db", "SELECT count(*) FROM integrity_deals WHERE decisions > options OR options = 0"):
            fail("the calibration's rows: every row has an option, some rows no decision")
        if scalar("j1.db", "SELECT count(*) FROM integrity_deals WHERE samples <> 32 OR seed <> ?", (int(SEED),)):
            fail("rows with other options than the defaults and seed %s" % SEED)
        if evidence("j1.db") != evidence("j2.db"):
            fail("-j 1 and -j 2 give different rows")
        check_against_brp(brp, src, "j1.db", logs)
        check_deals_query(src, "j1.db")
        check_snippet(brp, src, "j1.db", logs)

        # a row keeps its first screen
        before = evidence("j1.db")
        export(brp, "j1.db", "--integrity-seed", "6", *logs)
        if evidence("j1.db") != before:
            fail("a second screen replaced the first")

        # exported without --integrity first: no rows, the same database otherwise; then they come
        export(brp, "plain.db", "-a", *logs)
        if scalar("plain.db", "SELECT count(*) FROM integrity_deals") != 0:
            fail("rows without --integrity")
        export(brp, "plain.db", *screen, *logs)
        if evidence("plain.db") != before:
            fail("a row exported without --integrity does not take the screen's rows when exported with it")

        # schema version 6: upgraded, rows kept, and its copies take the screen
        export(brp, "plain6.db", "-a", *logs)
        old_database(src, 6, "plain6.db", "v6.db")
        matches_before = rows("v6.db", "SELECT * FROM matches ORDER BY match_id")
        export(brp, "v6.db", *screen, *logs)
        if scalar("v6.db", "PRAGMA user_version") != LATEST:
            fail("version 6 not upgraded: user_version %r" % scalar("v6.db", "PRAGMA user_version"))
        if rows("v6.db", "SELECT * FROM matches ORDER BY match_id") != matches_before:
            fail("version 6 upgraded: the matches rows changed")
        if evidence("v6.db") != before or views("v6.db") != views("j1.db"):
            fail("version 6 upgraded: its rows differ from a new export's")
        print("copies: a row keeps its first screen, takes one later, and a version-6 database upgrades")

        # brp merge of two shards: the rows and the views of one export
        export(brp, "s4.db", *screen, *[f for f in logs if f.startswith("c4/")])
        export(brp, "s2.db", *screen, *[f for f in logs if f.startswith("c2/")])
        export(brp, "one.db", *screen, *logs)
        run(brp, "merge", "merged.db", "s4.db", "s2.db")
        if evidence("merged.db") != evidence("one.db") or not evidence("one.db"):
            fail("merge of two shards: rows differ from one export's")
        if views("merged.db") != views("one.db"):
            fail("merge of two shards: the views differ from one export's")
        print("merge: two shards give one export's rows and views")

        r = run(brp, "export", "--csv", "csv", "--integrity", logs[0], check=False)
        if r.returncode != 2 or os.path.exists("csv") or "--integrity" not in r.stderr:
            fail("--integrity without --sqlite: exit %d, %r" % (r.returncode, r.stderr))
        r = run(brp, "export", "--sqlite", "x.db", "--integrity-seed", "x", logs[0], check=False)
        if r.returncode != 2 or os.path.exists("x.db"):
            fail("--integrity-seed x: exit %d, %r" % (r.returncode, r.stderr))
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("%d failed" % len(failures))
        sys.exit(1)
    print("all passed")


if __name__ == "__main__":
    main()
