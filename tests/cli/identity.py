#!/usr/bin/env python3
"""One identity per match, and logs that say when they are unclosed (issue 14, section 3).

    identity.py BRP SRCROOT

- Five byte-variants of one match (the growing form, the compact form, a deflated
  header, an optional section, the recovered flag) and the compact form without its
  end section all have one match_id; edits of its content (a name, the start time,
  metadata, a claim, a rule parameter) each give another.
- brp export (SQLite and CSV) and brp merge keep one row for the five (one copy: they verify alike);
  the row describes the best file (closed, not salvaged); a database of schema version 2 (before the
  identity) is upgraded and its rows get their identity when exported again; a version-2 shard
  merges (tests/cli/copies.py checks copies that verify differently, and every older version).
- Every cut of a log at a section boundary after its last deal is reported unclosed,
  never with the intact log's JSON, and fails --strict; samples/disputed/claim-deal.brp
  cut so is never plain ok.
- brp recover on a whole, closed log says so and writes nothing.
"""
import csv
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import zlib

MAGIC = b"\x89BRP\r\n\x1a\n"
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(*args, **kw):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def sections(data):
    """The sections of a log: (type, payload, start offset, end offset). A sealed log (its header Z,
    docs/format.md 19.5) has no checksum in its sections up to E, then one for all of them."""
    assert data[:8] == MAGIC
    pos, out, sealed = 8, [], data[8:9] == b"Z"
    while pos < len(data):
        start, t = pos, data[pos:pos + 1]
        pos += 1
        n, shift = 0, 0
        while True:
            b = data[pos]
            pos += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        crc = 0 if sealed else 4
        if sealed and t == b"E":
            crc, sealed = 4, False
        out.append((t, data[pos:pos + n], start, pos + n + crc))
        pos += n + crc
    return out


def section(t, payload):
    head = t + varint(len(payload))
    return head + payload + zlib.crc32(head + payload).to_bytes(4, "little")


def rebuild(secs):
    if secs[0][0] != b"Z":
        return MAGIC + b"".join(section(t, p) for t, p, _, _ in secs)
    out, sealed = MAGIC, True
    for t, p, _, _ in secs:
        if sealed:
            out += t + varint(len(p)) + p
            if t == b"E":
                out += zlib.crc32(out).to_bytes(4, "little")
                sealed = False
        else:
            out += section(t, p)
    return out


def verify(brp, path, *opts):
    r = run(brp, "verify", "--json", *opts, path)
    try:
        return json.loads(r.stdout), r.returncode
    except ValueError:
        fail("%s: brp verify --json printed %r (%s)" % (path, r.stdout, r.stderr))
        return {}, r.returncode


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    brp, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    env = dict(os.environ, LC_ALL="C", TZ="UTC")
    work = tempfile.mkdtemp()
    try:
        os.chdir(work)
        check_variants(brp, env)
        check_cuts(brp, os.path.join(src, "samples", "disputed", "claim-deal.brp"), mismatch=True)
        check_cuts(brp, "v/compact.brp", mismatch=False)
        check_recover(brp)
        check_export(brp, src)
    finally:
        shutil.rmtree(work)
    if failures:
        print("%d failures" % len(failures))
        sys.exit(1)
    print("identity: five byte-variants, one match_id and one row; edits, cuts and recover checked")


def record_growing(brp, text, env):
    """The match of text recorded with brp record: (the growing form before the close, the closed log)."""
    body = text.split("\n\n", 1)[1]
    lines = [l for l in body.splitlines() if l.strip() and l.strip() != "end"]
    p = subprocess.Popen([brp, "record", "-o", "rec.brp", "-r", "stbl", "-s", "target=0", "-p", "2",
                          "--seat", "0=Ana", "--seat", "1=Bia", "--first-dealer", "1",
                          "--start", "2026-11-30T01:58:23Z", "--meta", "platform=test"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    for l in lines:
        p.stdin.write(l + "\n")
        p.stdin.flush()
        answer = p.stdout.readline()
        if answer.strip() not in ("ok", "kept"):
            fail("brp record answered %r to %r" % (answer, l))
    # every line answered: flushed, and the recording not closed yet
    with open("rec.brp", "rb") as f:
        growing = f.read()
    p.stdin.close()
    p.wait()
    with open("rec.brp", "rb") as f:
        closed = f.read()
    return growing, closed


def import_text(brp, text, name):
    write(name + ".txt", text.encode())
    r = run(brp, "import", name + ".txt", "-o", name + ".brp")
    if r.returncode != 0:
        fail("brp import %s: %s" % (name, r.stderr))
    return name + ".brp"


def check_variants(brp, env):
    os.mkdir("v")
    r = run(brp, "simulate", "-r", "stbl", "-p", "2", "-n", "2", "-t", "0", "--seed", "5", "-q", "-o", "sim")
    if r.returncode != 0:
        fail("brp simulate: " + r.stderr)
    text = run(brp, "dump", "sim/match-000001.brp").stdout
    # the same match under the header brp record is given
    head = ('[Notation "1"]\n[Profile "stbl"]\n[Rule "target" "0"]\n[Players "2"]\n[Seat "0" "Ana"]\n'
            '[Seat "1" "Bia"]\n[FirstDealer "1"]\n[Start "2026-11-30T01:58:23Z"]\n[Meta "platform" "test"]\n')
    text = head + "\n" + text.split("\n\n", 1)[1]
    growing, compact = record_growing(brp, text, env)
    write("v/growing.brp", growing)
    write("v/compact.brp", compact)
    secs = sections(compact)
    types = [t for t, _, _, _ in secs]
    if b"A" not in [t for t, _, _, _ in sections(growing)] or types[-1] != b"E":
        fail("the growing form has no A section, or the compact form no E: %r" % types)
    # the header deflated (a decoder must accept it, shorter or not)
    h = secs[0]
    assert h[0] in (b"H", b"Z") and h[1][0] == 0  # Z: a sealed log (docs/format.md 19.5)
    body = h[1][1:]
    defl = [(h[0], b"\x01" + varint(len(body)) + zlib.compress(body, 9), 0, 0)] + secs[1:]
    write("v/deflated.brp", rebuild(defl))
    # an optional section after the header
    write("v/optional.brp", rebuild(secs[:1] + [(b"x", b"an optional note", 0, 0)] + secs[1:]))
    # the recovered flag (format version 5: bit 1 of the header's flags, the header's last byte here)
    end = secs[-1][1]
    write("v/recovered.brp", rebuild([(h[0], h[1][:-1] + bytes([h[1][-1] | 2]), 0, 0)] + secs[1:]))
    # and the end section removed: its claims (version 5: all of E), if any, in a C as the growing
    # form has them; without E, the log cannot be sealed: its header H, every section with its CRC
    write("v/no-end.brp", rebuild([(b"H", h[1], 0, 0)] + secs[1:-1] + ([(b"C", end, 0, 0)] if end else [])))

    variants = ["growing", "compact", "deflated", "optional", "recovered", "no-end"]
    ids = {}
    for v in variants:
        j, rc = verify(brp, "v/%s.brp" % v)
        ids[v] = j.get("match_id")
        if j.get("verdict") != "ok" or rc != 0:
            fail("%s: verdict %s, exit %d" % (v, j.get("verdict"), rc))
        want_closed = v not in ("growing", "no-end")
        if j.get("closed") is not want_closed:
            fail("%s: closed is %r" % (v, j.get("closed")))
        if j.get("recovered") is not (v == "recovered"):
            fail("%s: recovered is %r" % (v, j.get("recovered")))
        _, rc = verify(brp, "v/%s.brp" % v, "--strict")
        if rc != (0 if want_closed else 1):
            fail("%s: --strict exits %d" % (v, rc))
        line = run(brp, "verify", "v/%s.brp" % v).stdout
        if ("ok, unclosed: " in line) == want_closed or (": ok" not in line):
            fail("%s: the text line: %r" % (v, line))
    mid = ids["compact"]
    if not mid or len(mid) != 64 or any(c not in "0123456789abcdef" for c in mid):
        fail("the match_id is not 64 lower-case hex digits: %r" % mid)
    for v in variants:
        if ids[v] != mid:
            fail("%s has match_id %s, the compact form %s" % (v, ids[v], mid))
    if len({hashlib.sha256(open("v/%s.brp" % v, "rb").read()).hexdigest() for v in variants}) != len(variants):
        fail("the variants are not six different files")
    # the text through brp import: the same match
    if verify(brp, import_text(brp, text, "same"))[0].get("match_id") != mid:
        fail("brp import of the match's own text gives another match_id")

    # another match, and edits of this one's content: each another identity
    other = verify(brp, "sim/match-000002.brp")[0].get("match_id")
    edits = {
        "name": text.replace('[Seat "1" "Bia"]', '[Seat "1" "Bea"]'),
        "start": text.replace("01:58:23Z", "01:58:24Z"),
        "meta": text.replace('"platform" "test"', '"platform" "tesT"'),
        "rule": text.replace('[Rule "target" "0"]', '[Rule "target" "0"]\n[Rule "bonus_going_out" "150"]'),
        "claim": text.replace("claim match: ", "claim match: 1"),
        "no-claims": "\n".join(l for l in text.splitlines() if not l.startswith("claim")) + "\n",
    }
    seen = {mid: "the match", other: "another match"}
    for name, t in edits.items():
        if t == text:
            fail("edit %s changed nothing" % name)
            continue
        eid = verify(brp, import_text(brp, t, "edit-" + name))[0].get("match_id")
        if not eid or eid in seen:
            fail("edit %s: match_id %s, as %s" % (name, eid, seen.get(eid)))
        seen[eid] = name
    # a log that does not decode has none
    write("v/cut.brp", compact[:-3])
    j, _ = verify(brp, "v/cut.brp")
    if j.get("verdict") != "malformed" or j.get("match_id") is not None or j.get("closed") is not False:
        fail("a cut log: %r" % j)
    os.remove("v/cut.brp")
    os.remove("v/no-end.brp")


def check_cuts(brp, path, mismatch):
    """Every cut of path at a section boundary after its last deal section: unclosed, never the intact JSON."""
    with open(path, "rb") as f:
        data = f.read()
    secs = sections(data)
    intact, _ = verify(brp, path)
    last_d = max(i for i, s in enumerate(secs) if s[0] in (b"D", b"A", b"M"))  # version 7: M, the match
    cuts = [secs[i][3] for i in range(last_d, len(secs) - 1)]
    if not cuts:
        fail("%s: no section boundary after its last deal" % path)
    for k, end in enumerate(cuts):
        name = "cut-%d.brp" % k
        write(name, data[:end])
        j, rc = verify(brp, name)
        j.pop("file", None)
        base = dict(intact)
        base.pop("file", None)
        if j == base:
            fail("%s cut at byte %d: the intact log's JSON" % (path, end))
        if j.get("closed") is not False:
            fail("%s cut at byte %d: closed is %r" % (path, end, j.get("closed")))
        line = run(brp, "verify", name).stdout
        if data[8:9] == b"Z":
            # a sealed log (docs/format.md 19.5) cut anywhere has lost its one checksum: malformed
            if j.get("verdict") != "malformed" or "sealed log" not in line or j.get("match_id") is not None:
                fail("%s cut at byte %d: a sealed log cut reads %r" % (path, end, line))
            continue
        if ", unclosed: " not in line:
            fail("%s cut at byte %d: the line does not say unclosed: %r" % (path, end, line))
        if j.get("verdict") == "ok":
            if "may be missing" not in j.get("message", ""):
                fail("%s cut at byte %d: ok without saying what may be missing: %r" % (path, end, j))
            if verify(brp, name, "--strict")[1] != 1:
                fail("%s cut at byte %d: ok under --strict" % (path, end))
        elif j.get("verdict") != "mismatch" or not mismatch:
            fail("%s cut at byte %d: verdict %s" % (path, end, j.get("verdict")))
        os.remove(name)


def check_recover(brp):
    for path in ("v/compact.brp", "v/recovered.brp"):
        r = run(brp, "recover", path, "-o", "salvaged.brp")
        if r.returncode != 1 or "nothing to salvage" not in r.stdout or os.path.exists("salvaged.brp"):
            fail("recover of the closed %s: exit %d, %r, output %s" % (path, r.returncode, r.stdout,
                                                                       os.path.exists("salvaged.brp")))
        write("kept.brp", b"not touched")
        run(brp, "recover", path, "-o", "kept.brp")
        if open("kept.brp", "rb").read() != b"not touched":
            fail("recover of the closed %s changed an existing output" % path)
        os.remove("kept.brp")
    # the growing form salvaged: closed, recovered, the same match
    r = run(brp, "recover", "v/growing.brp", "-o", "salvaged.brp")
    j, _ = verify(brp, "salvaged.brp")
    mid = verify(brp, "v/compact.brp")[0].get("match_id")
    if r.returncode != 0 or j.get("closed") is not True or j.get("recovered") is not True or j.get("match_id") != mid:
        fail("recover of the growing form: exit %d, %r" % (r.returncode, j))
    os.remove("salvaged.brp")


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def check_export(brp, src):
    five = ["v/growing.brp", "v/recovered.brp", "v/compact.brp", "v/deflated.brp", "v/optional.brp"]
    mid = verify(brp, "v/compact.brp")[0].get("match_id")
    sha = hashlib.sha256(open("v/compact.brp", "rb").read()).hexdigest()
    r = run(brp, "export", "--sqlite", "all.db", "--csv", "csv", *five)
    if r.returncode != 0:
        fail("brp export: " + r.stderr)
    got = rows("all.db", "SELECT identity, hash, file, closed, recovered, verdict, verdict_detail FROM matches")
    if got != [(mid, sha, "v/compact.brp", 1, 0, "ok", got[0][6] if got else None)] or "missing" in got[0][6]:
        fail("five byte-variants exported: %r" % got)
    from copies import LATEST  # tests/cli/copies.py: the schema version brp writes
    if rows("all.db", "PRAGMA user_version") != [(LATEST,)]:
        fail("the schema version is not %d" % LATEST)
    with open("csv/matches.csv", newline="") as f:
        recs = list(csv.DictReader(f))
    if len(recs) != 1 or recs[0]["identity"] != mid or recs[0]["closed"] != "0" or recs[0]["hash"] != \
            hashlib.sha256(open("v/growing.brp", "rb").read()).hexdigest():
        fail("five byte-variants in matches.csv (the first given): %r" % recs)
    with open("csv/deals.csv", newline="") as f:
        if len(list(csv.DictReader(f))) != 1:
            fail("deals.csv does not hold the match's one deal once")
    # one at a time, each run its own batch: still one match; the growing form alone gives closed = 0
    for p in five:
        run(brp, "export", "-q", "--sqlite", "one.db", p)
        if p == five[0] and rows("one.db", "SELECT closed, verdict_detail LIKE '%may be missing%' FROM matches") != \
                [(0, 1)]:
            fail("the growing form exported: %r" % rows("one.db", "SELECT closed, verdict_detail FROM matches"))
    if rows("one.db", "SELECT count(*), max(hash), max(closed) FROM matches") != [(1, sha, 1)]:
        fail("five exports of one match: %r" % rows("one.db", "SELECT hash, file, closed FROM matches"))
    # merge: shards holding different variants and another match
    run(brp, "export", "-q", "--sqlite", "a.db", five[0], five[1])
    run(brp, "export", "-q", "--sqlite", "b.db", five[2], five[3], five[4], "sim/match-000002.brp")
    r = run(brp, "merge", "m.db", "a.db", "b.db")
    if r.returncode != 0 or rows("m.db", "SELECT count(*) FROM matches") != [(2,)]:
        fail("merge of two shards: %s %s %r" % (r.stdout, r.stderr, rows("m.db", "SELECT file FROM matches")))
    if rows("m.db", "SELECT hash, closed, recovered FROM matches WHERE identity = '%s'" % mid) != [(sha, 1, 0)]:
        fail("merge: the match's row does not describe its best file: %r" % rows("m.db", "SELECT * FROM matches"))
    if not run(brp, "merge", "m.db", "a.db", "b.db").stdout.startswith("0 matches added"):
        fail("merging again added something")
    # a database of schema version 2 (before the identity, made from schema/001 and 002): upgraded; its
    # rows get their identity when exported again
    from copies import old_database  # tests/cli/copies.py
    run(brp, "export", "-q", "--sqlite", "new.db", "v/compact.brp", "sim/match-000002.brp")
    old_database(src, 2, "new.db", "old.db")
    shutil.copy("old.db", "old-shard.db")
    run(brp, "export", "-q", "--sqlite", "old.db", "v/compact.brp")
    if rows("old.db", "PRAGMA user_version") != [(LATEST,)] or \
            rows("old.db", "SELECT identity, closed FROM matches WHERE hash = '%s'" % sha) != [(mid, 1)]:
        fail("a version-2 database exported again: %r" % rows("old.db", "SELECT hash, identity FROM matches"))
    run(brp, "export", "-q", "--sqlite", "old.db", *five)
    if rows("old.db", "SELECT count(*) FROM matches") != [(2,)]:
        fail("a version-2 database, then the five variants: %r" % rows("old.db", "SELECT file FROM matches"))
    r = run(brp, "merge", "m1.db", "old-shard.db")
    if r.returncode != 0 or rows("m1.db", "SELECT count(*), count(identity) FROM matches") != [(2, 0)]:
        fail("merge of a version-2 shard: %s %s" % (r.stdout, r.stderr))


if __name__ == "__main__":
    main()
