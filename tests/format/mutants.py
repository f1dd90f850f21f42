#!/usr/bin/env python3
"""Damaged logs, read alike by the C reader and the educational decoder.

    mutants.py BRP PYTHON3 BRPDECODE SEED COUNT WORKDIR LOG...

Makes COUNT mutants of the given logs. Most have one change to one section's
payload (a bit flipped, a byte replaced, inserted or deleted, the payload cut
short), framed again: its length, its CRC-32 and, for a sealed log, the
log's checksum (docs/format.md sections 3 and 19.5) are written anew, so
that the damage reaches the decoders rather than the checksums. One in eight
is the log's bytes damaged as they are (a byte changed, or the file cut), for
the frames and checksums themselves. For each
mutant, `brp dump` and brpdecode.py (written from docs/format.md alone) must
agree: both read it or both refuse it; the same text on standard output
(what was decoded before a refusal included); a refusal at the same byte;
and, when both read it, `brp verify --json`'s match_id must be
brpdecode.py --match-id's. Then every mutant is exported in one run of
`brp export --sqlite`, and the row of its copy (docs/schema.md: its own row,
or the one of the copy it belongs to) must say what `brp verify --json`
says of it: the verdict, the identity, and for its own row the message; for
an ok log the deals, decisions, totals and winner. A disagreement is a place
where the library and the specification, or two of the library's readers,
part: the mutant is kept in WORKDIR and the run fails.

The mutants depend only on SEED and the logs, so a failure reproduces.
"""
import hashlib
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import zlib

MAGIC = b"\x89BRP\r\n\x1a\n"


def varint(b, p):
    n = shift = 0
    while True:
        x = b[p]
        p += 1
        n |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            return n, p


def put_varint(n):
    out = bytearray()
    while True:
        x, n = n & 0x7F, n >> 7
        out.append(x | 0x80 if n else x)
        if not n:
            return bytes(out)


def sections(d):
    """The sections of a log that frames correctly: [(type, payload, in the seal)]."""
    p, out = 8, []
    sealed = len(d) > 8 and d[8] == ord("Z")
    while p < len(d):
        t = d[p]
        n, q = varint(d, p + 1)
        out.append((t, d[q:q + n], sealed))
        p = q + n
        if not sealed or t == ord("E"):
            p += 4  # a section's CRC-32, or the seal's checksum after E
            sealed = False
    return out


def frame(secs):
    out = bytearray(MAGIC)
    for t, payload, sealed in secs:
        f = bytes([t]) + put_varint(len(payload)) + payload
        out += f
        if not sealed:
            out += zlib.crc32(f).to_bytes(4, "little")
        elif t == ord("E"):
            out += zlib.crc32(bytes(out)).to_bytes(4, "little")
    return bytes(out)


def mutate(secs, rng):
    secs = list(secs)
    i = rng.choice([k for k, s in enumerate(secs) if s[1]])
    t, payload, sealed = secs[i]
    p = bytearray(payload)
    op, j = rng.randrange(5), rng.randrange(len(p))
    if op == 0 or op == 1:
        p[j] ^= 1 << rng.randrange(8)  # twice as likely: the damage storage does
    elif op == 2:
        p[j] = rng.randrange(256)
    elif op == 3:
        p.insert(j, rng.randrange(256))
    elif rng.randrange(2):
        del p[j:]
    else:
        del p[j]
    secs[i] = (t, bytes(p), sealed)
    return secs


def run(cmd):
    r = subprocess.run(cmd, capture_output=True)
    return r.returncode, r.stdout, r.stderr


def refused_at(stderr):
    m = re.search(rb"byte (\d+)", stderr)
    return int(m.group(1)) if m else None


COLUMNS = "file, hash, identity, verdict, verdict_detail, deals, decisions, total0, total1, winner"


def exported(brp, work, mutants):
    """Every mutant exported at once; [(mutant, why)] for each whose copy's row is not verify's word."""
    db = os.path.join(work, "mutants.db")
    if os.path.exists(db):
        os.remove(db)
    rc, _, err = run([brp, "export", "-q", "--sqlite", db] + [m for m, _ in mutants])
    if rc not in (0, 1):  # 1: some log is not ok, which a mutant seldom is
        return [(db, "brp export exits %d: %s" % (rc, err.decode(errors="replace").strip()))]
    con = sqlite3.connect(db)
    rows = [dict(zip([c.strip() for c in COLUMNS.split(",")], r))
            for r in con.execute("SELECT %s FROM matches" % COLUMNS)]
    con.close()
    apart = []
    for m, _ in mutants:
        v = json.loads(run([brp, "verify", "--json", m])[1])
        with open(m, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        mine = [r for r in rows if r["file"] == m]
        # a file of a copy exported before it has no row of its own: its copy's row (docs/schema.md)
        row = mine[0] if mine else next((r for r in rows if r["verdict"] == v["verdict"] and (
            r["identity"] == v.get("match_id") if v.get("match_id") else r["hash"] == digest)), None)
        if row is None:
            apart.append((m, "no row for its copy (%s, %s)" % (v["verdict"], v.get("match_id"))))
            continue
        want = {"verdict": v["verdict"], "identity": v.get("match_id")}
        if mine:
            want["verdict_detail"] = v["message"]
        if v["verdict"] == "ok":
            want.update(deals=v["deals"], decisions=v["decisions"], total0=v["total"][0], total1=v["total"][1],
                        winner=v["winner"])
        for k, x in want.items():
            if row[k] != x:
                apart.append((m, "the export's %s is %r, brp verify says %r" % (k, row[k], x)))
                break
    return apart


def main():
    if len(sys.argv) < 8:
        sys.exit("usage: mutants.py BRP PYTHON3 BRPDECODE SEED COUNT WORKDIR LOG...")
    brp, py, dec, seed, count, work = sys.argv[1:7]
    logs = []
    for path in sorted(sys.argv[7:]):
        with open(path, "rb") as f:
            data = f.read()
        logs.append((path, data, sections(data)))
    rng = random.Random(int(seed))
    os.makedirs(work, exist_ok=True)
    failed = read = refused = 0
    mutants, kept = [], set()
    for k in range(int(count)):
        path, data, secs = logs[rng.randrange(len(logs))]
        mutant = os.path.join(work, "mutant-%05d.brp" % k)
        if rng.randrange(8):
            data = frame(mutate(secs, rng))
        else:
            j = rng.randrange(8, len(data))
            data = data[:j] if rng.randrange(2) else data[:j] + bytes([rng.randrange(256)]) + data[j + 1:]
        with open(mutant, "wb") as f:
            f.write(data)
        mutants.append((mutant, path))
        c, p = run([brp, "dump", mutant]), run([py, dec, mutant])
        why = None
        if (c[0] == 0) != (p[0] == 0):
            why = "brp dump exits %d, brpdecode.py %d" % (c[0], p[0])
        elif c[1] != p[1]:
            why = "the texts differ"
        elif c[0] and refused_at(c[2]) != refused_at(p[2]):
            why = "refused at byte %s and at byte %s" % (refused_at(c[2]), refused_at(p[2]))
        elif c[0]:
            refused += 1
        else:
            read += 1
            v, i = run([brp, "verify", "--json", mutant]), run([py, dec, "--match-id", mutant])
            c_id = json.loads(v[1] or b"{}").get("match_id")
            if c_id != i[1].decode().strip():
                why = "identities %s and %s" % (c_id, i[1].decode().strip())
        if why:
            failed += 1
            kept.add(mutant)
            print("%s (a mutant of %s): %s" % (mutant, path, why))
            for name, r in (("brp dump", c), ("brpdecode.py", p)):
                print("    %s: %s" % (name, r[2].decode(errors="replace").strip()[:300]))
    apart = exported(brp, work, mutants)
    kept |= set(m for m, _ in apart)
    for m, why in apart:
        print("%s: %s" % (m, why))
    for m, _ in mutants:
        if m not in kept:
            os.remove(m)
    print("%s mutants: the decoders read %d alike, refused %d alike, %d apart; the export and verify %d apart"
          % (count, read, refused, failed, len(apart)))
    sys.exit(1 if failed or apart else 0)


main()
