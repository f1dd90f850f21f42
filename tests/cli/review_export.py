#!/usr/bin/env python3
"""brp export --review: the review in the SQLite database (issue 24).

    review_export.py BRP SRCROOT

- the reviews and decision_values tables hold, for each ok log, one row a decision that brp review
  --json reviews with the same strength and seed, with its values, and its summaries (a seat and deal,
  a seat for the match as deal 0);
- -j 1 and -j 2 give the same rows; a log that does not verify ok has none;
- a database of schema version 5 (made from schema/001..005 and filled with an export's rows) is
  upgraded to the latest version with its rows kept, and its copy takes the review; a row keeps its first review;
- brp merge carries the review; --review without --sqlite is a usage error.
Strengths are small: the values are checked for equality, not for quality.
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import json

from copies import LATEST, old_database  # tests/cli/copies.py: the schema version brp writes; a database of an older one

failures = []
STRENGTH, SEED = "3", "7"


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(*args, check=True):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if check and r.returncode != 0:
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


def table(db, t, match_id=None):
    """The rows of t (of one match, without its match_id, when match_id is given), in key order."""
    if match_id is None:
        return rows(db, "SELECT * FROM %s ORDER BY 1, 2, 3" % t)
    return [r[1:] for r in rows(db, "SELECT * FROM %s WHERE match_id = ? ORDER BY 1, 2, 3" % t, (match_id,))]


def export(brp, db, *args):
    return run(brp, "export", "-q", "--sqlite", db, *args)


def check_against_review(brp, db):
    """Each ok match's rows are brp review --json's objects for the same strength and seed."""
    for mid, path in rows(db, "SELECT match_id, file FROM matches WHERE verdict = 'ok' ORDER BY match_id"):
        out = run(brp, "review", "--json", "--strength", STRENGTH, "--seed", SEED, path).stdout
        objs = [json.loads(line) for line in out.splitlines()]
        want = [o for o in objs if "summary" not in o and "verdict" not in o and "review" not in o]
        got = rows(db, "SELECT deal, turn, decision, seat, played, best, greedy, value_played, value_best, loss, "
                       "se, samples, candidates, class, uncertain, win_loss, accuracy, number, side "
                       "FROM decision_values WHERE match_id = ? ORDER BY deal, number", (mid,))
        if len(got) != len(want) or not want:
            fail("%s: %d decision_values rows, brp review reviews %d decisions" % (path, len(got), len(want)))
            continue
        for g, w in zip(got, want):
            mine = (g[0], g[1], g[2], g[3], g[4], g[5], g[6], "%.1f" % g[7], "%.1f" % g[8], "%.1f" % g[9],
                    "%.1f" % g[10], g[11], g[12], g[13], bool(g[14]), "%.2f" % g[15], "%.1f" % g[16], g[18])
            theirs = (w["deal"], w["turn"], w["decision"], w["seat"], w["played"], w["best"], w["greedy"],
                      "%.1f" % w["value_played"], "%.1f" % w["value_best"], "%.1f" % w["loss"], "%.1f" % w["se"],
                      w["samples"], w["candidates"], w["class"], w["class_uncertain"], "%.2f" % w["win_loss"],
                      "%.1f" % w["accuracy"], w["seat"] % 2)
            if mine != theirs:
                fail("%s: decision_values %r, brp review %r" % (path, mine, theirs))
                break
        # number is the decision's place in the deal: the actions table's seq (the same turn)
        numbers = rows(db, "SELECT count(*) FROM decision_values v JOIN actions a ON a.match_id = v.match_id AND "
                           "a.deal = v.deal AND a.seq = v.number AND a.turn = v.turn AND a.seat = v.seat AND "
                           "a.text = v.played WHERE v.match_id = ?", (mid,))[0][0]
        if numbers != len(got):
            fail("%s: %d of %d decision_values rows match their actions row" % (path, numbers, len(got)))
        summaries = [o for o in objs if o.get("summary")]
        got = rows(db, "SELECT seat, deal, decisions, accuracy, match_rate, loss, inaccuracies, mistakes, blunders, "
                       "strength, seed FROM reviews WHERE match_id = ?", (mid,))
        mine = sorted((r[0], r[1], r[2], "%.1f" % r[3], "%.1f" % r[4], "%.1f" % r[5], r[6], r[7], r[8])
                      for r in got)
        theirs = sorted((o["seat"], o["deal"] or 0, o["decisions"], "%.1f" % o["accuracy"], "%.1f" % o["match_rate"],
                         "%.1f" % o["loss"], o["inaccuracies"], o["mistakes"], o["blunders"]) for o in summaries)
        if mine != theirs:
            fail("%s: reviews %r, brp review's summaries %r" % (path, mine, theirs))
        if {(r[9], r[10]) for r in got} != {(int(STRENGTH), int(SEED))}:
            fail("%s: reviews' strength and seed %r" % (path, {(r[9], r[10]) for r in got}))
    print("review: each ok match's rows are brp review --json's decisions and summaries")


def main():
    brp, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    work = tempfile.mkdtemp(prefix="brp-review-export-")
    os.chdir(work)
    try:
        logs = []
        for f in ("stbl-2p.brp", "stbl-4p.brp"):
            shutil.copy(os.path.join(src, "samples", f), f)
            logs.append(f)
        shutil.copy(os.path.join(src, "samples", "disputed", "damaged-byte.brp"), "damaged.brp")
        logs.append("damaged.brp")
        review = ("--review-strength", STRENGTH, "--review-seed", SEED)

        # the tables, filled, and equal to brp review's
        export(brp, "j1.db", "-a", *review, "-j", "1", *logs)
        export(brp, "j2.db", "-a", *review, "-j", "2", *logs)
        if scalar("j1.db", "PRAGMA user_version") != LATEST:
            fail("schema version %r, not %d" % (scalar("j1.db", "PRAGMA user_version"), LATEST))
        check_against_review(brp, "j1.db")
        if scalar("j1.db", "SELECT count(*) FROM decision_values v JOIN matches m USING (match_id) "
                           "WHERE m.verdict <> 'ok'") != 0 or \
                scalar("j1.db", "SELECT count(*) FROM reviews r JOIN matches m USING (match_id) "
                                "WHERE m.verdict <> 'ok'") != 0:
            fail("a log that does not verify ok has review rows")
        for t in ("reviews", "decision_values", "matches"):
            if table("j1.db", t) != table("j2.db", t):
                fail("%s: -j 1 and -j 2 give different rows" % t)
        print("determinism: -j 1 and -j 2 give the same rows")

        # a row keeps its first review: exported again with another seed, nothing changes
        before = table("j1.db", "decision_values")
        export(brp, "j1.db", "--review-strength", STRENGTH, "--review-seed", "8", *logs)
        if table("j1.db", "decision_values") != before:
            fail("a second review replaced the first")

        # schema version 5: upgraded, rows kept, and its copies take the review
        export(brp, "plain.db", "-a", *logs)
        old_database(src, 5, "plain.db", "v5.db")
        matches_before = table("v5.db", "matches")
        export(brp, "v5.db", *review, *logs)
        if scalar("v5.db", "PRAGMA user_version") != LATEST:
            fail("version 5 not upgraded: user_version %r" % scalar("v5.db", "PRAGMA user_version"))
        if table("v5.db", "matches") != matches_before:
            fail("version 5 upgraded: the matches rows changed")
        for (mid, h) in rows("v5.db", "SELECT match_id, hash FROM matches"):
            other = scalar("j1.db", "SELECT match_id FROM matches WHERE hash = ?", (h,))
            for t in ("reviews", "decision_values"):
                if table("v5.db", t, mid) != table("j1.db", t, other):
                    fail("version 5 upgraded: %s of match %d differs from a new export's" % (t, mid))
        print("upgrade: a version-5 database keeps its rows and its copies take the review")

        # brp merge carries the review
        run(brp, "merge", "merged.db", "j1.db")
        for t in ("reviews", "decision_values"):
            if table("merged.db", t) != table("j1.db", t):
                fail("merge: %s differs" % t)
        # and a version-5 shard merges without one
        old_database(src, 5, "plain.db", "shard5.db")
        run(brp, "merge", "merged5.db", "shard5.db")
        if scalar("merged5.db", "SELECT count(*) FROM matches") != len(logs) or \
                scalar("merged5.db", "SELECT count(*) FROM reviews") != 0:
            fail("merge of a version-5 shard: %r" % rows("merged5.db", "SELECT file FROM matches"))
        print("merge: the review goes along; a version-5 shard merges")

        r = run(brp, "export", "--csv", "csv", "--review", logs[0], check=False)
        if r.returncode != 2 or os.path.exists("csv"):
            fail("--review without --sqlite: exit %d, %r" % (r.returncode, r.stderr))
        r = run(brp, "export", "--sqlite", "x.db", "--review-strength", "1", logs[0], check=False)
        if r.returncode != 2 or os.path.exists("x.db"):
            fail("--review-strength 1: exit %d, %r" % (r.returncode, r.stderr))
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("%d failed" % len(failures))
        sys.exit(1)
    print("all passed")


if __name__ == "__main__":
    main()
