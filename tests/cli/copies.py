#!/usr/bin/env python3
"""The export never hides a disputed copy (issue 22, part 3).

    copies.py BRP SRCROOT               run every check below
    copies.py make BRP SRCROOT DIR      only write the copies into DIR (export.sh's example queries use them)

Copies of one match (one match identity) that verify differently are each a row of their own:
- committed: the unrevealed copy of a committed match exported first and its mismatching (a wrong seed
  revealed) or revealed copy next, and the reverse order, in one run and in two;
- signed: a tampered copy beside the genuine one; a signed and a stripped (its signature section cut off)
  copy; a copy signed by another key; each without -K and with -K (and --keyring), into one database;
- coverage: a growing log whose signed prefix ends before an illegal meld, the rest unsigned, and one
  signed past the meld, the end section unsigned after it: both untrusted under -K, partial, signed by the
  platform; the second shows that the platform signed the meld (replay_trusted), so neither may hide the
  other (schema version 5), in either order, in one run and in two, in CSV and through brp merge;
- identical copies (the same bytes, a revealed log and its revealed byte-variant) are one row; a better
  file of one copy (the closed form of a signed recording over its growing form) gives the row every
  column of that file, never some;
- CSV: one row a copy, the deals of each ok copy, players.csv and player_stats counting a match once;
- merge: two databases each holding one copy give both rows; merging again adds nothing;
- upgrade: databases of schema versions 1, 2 and 3 (made from schema/00N-*.sql and filled with an export's
  rows) are upgraded by brp merge with every row kept and every view answering as before; their rows
  take their file's columns when exported again; their shards merge. A database of version 4 is upgraded
  with every row as it was, and then keeps the coverage copies apart.
Each row is checked against brp verify --json of its own file: its hash, bytes, verdict, message,
identity, end, signature (status, key, fingerprint from the .pub files, coverage) and dealing.
"""
import base64
import csv
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import identity  # noqa: E402  (sections and rebuild of a log)

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(*args, check=True, **kw):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(str(a) for a in args), r.returncode, r.stderr.strip()))
    return r


def verify(brp, path, *opts):
    r = run(brp, "verify", "--json", *opts, path, check=False)
    try:
        return json.loads(r.stdout)
    except ValueError:
        fail("%s: brp verify --json printed %r (%s)" % (path, r.stdout, r.stderr))
        return {}


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def rows(db, sql, args=()):
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute(sql, args).fetchall()]
    finally:
        con.close()


def scalar(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def fingerprint(key):
    """A key's fingerprint (docs/security.md): BLAKE2b-256 of its 32-byte public key, the first 16 bytes."""
    return hashlib.blake2b(key, digest_size=32).digest()[:16].hex()


def pubkey(pub):
    """The (key id, public key) of a minisign public key file."""
    with open(pub) as f:
        raw = base64.b64decode(f.read().splitlines()[1])
    return raw[2:10], raw[10:42]


def last_signer(path):
    """The (key id, public key) of a log's last signature section (valid or not), or None."""
    data = open(path, "rb").read()
    try:
        secs = [p for t, p, _, _ in identity.sections(data) if t == b"s"]
    except (AssertionError, IndexError):
        return None
    return (secs[-1][2:10], secs[-1][74:106]) if secs else None


# ---- the copies ----

def make_copies(brp, src, out):
    """Write the copies into out; returns {name: path}."""
    os.makedirs(out, exist_ok=True)
    here = os.getcwd()
    os.chdir(out)
    try:
        # the committed sample: unrevealed (recorded without its seed), revealed (an R section), wrong seed
        txt = os.path.join(src, "samples", "committed-4p.txt")
        tags = {}
        body = []
        seed = None
        for line in open(txt):
            line = line.rstrip("\n")
            if line.startswith("[") and " " in line:
                tags.setdefault(line[1:].split(" ", 1)[0], line.split('"')[1])
            elif line.startswith("seed "):
                seed = line.split()[1]
            elif line.strip() and not line.startswith("["):
                body.append(line)
        # the sample's rules: KZV as it stood, before wrap_as_dirty became narrow
        r = subprocess.run([brp, "record", "-r", "kzv", "-s", "target=600", "-s", "wrap_as_dirty=false", "-p", "4",
                            "--seat", "0=greedy-0", "--seat", "1=greedy-1", "--seat", "2=greedy-2", "--seat", "3=greedy-3",
                            "--first-dealer", "1", "--start", "2026-01-01T00:00:00Z", "--meta",
                            "platform=brp simulate", "--meta", "corpus_seed=4", "--meta", "match=1",
                            "--commitment", tags["Commitment"], "--commitment-version", "1",
                            "--player-seed", tags["PlayerSeed"],
                            "-o", "unrevealed.brp"], input="\n".join(body) + "\n", capture_output=True, text=True)
        if r.returncode != 0:
            fail("brp record of the unrevealed copy: %s" % r.stderr)
        data = open("unrevealed.brp", "rb").read()
        secs = identity.sections(data)
        reveal = secs[:-1] + [(b"R", bytes.fromhex(seed), 0, 0)] + secs[-1:]
        open("revealed.brp", "wb").write(identity.rebuild(reveal))
        wrong = secs[:-1] + [(b"R", bytes(32), 0, 0)] + secs[-1:]
        open("wrong-seed.brp", "wb").write(identity.rebuild(wrong))
        shutil.copy(os.path.join(src, "samples", "committed-4p.brp"), "committed.brp")
        # a committed match of format version 4 (every seat adds a seed): brp simulate --commit's revealed
        # log, and its unrevealed and wrong-seed copies (its text without the seed line, imported)
        run(brp, "simulate", "-r", "stbl", "-p", "4", "-n", "1", "--commit", "--seed", "8", "-q", "-o", "sim4")
        shutil.copy("sim4/match-000001.brp", "revealed4.brp")
        text = run(brp, "dump", "revealed4.brp").stdout
        with open("unrevealed4.txt", "w") as f:
            f.write("".join(l for l in text.splitlines(True) if not l.startswith("seed ")))
        run(brp, "import", "unrevealed4.txt", "-o", "unrevealed4.brp")
        secs = identity.sections(open("unrevealed4.brp", "rb").read())
        open("wrong-seed4.brp", "wb").write(identity.rebuild(secs[:-1] + [(b"R", bytes(32), 0, 0)] + secs[-1:]))
        os.remove("unrevealed4.txt")
        shutil.rmtree("sim4")

        # a signed match: signed, stripped, tampered (a byte of its signature changed, CRC mended), another
        # key, and another key that carries the platform's key id (the id is not signed: the signature holds)
        for k in ("platform", "other"):
            if not os.path.exists(k + ".pub"):
                run(brp, "keygen", "-o", k)
        run(brp, "simulate", "-r", "stbl", "-p", "2", "-n", "1", "--seed", "7", "-q", "-o", "sim")
        shutil.copy("sim/match-000001.brp", "signed.brp")
        shutil.copy("sim/match-000001.brp", "impostor.brp")
        run(brp, "sign", "-k", "platform.key", "signed.brp")
        run(brp, "sign", "-k", "other.key", "impostor.brp")
        data = open("signed.brp", "rb").read()
        secs = identity.sections(data)
        if secs[-1][0] != b"s":
            fail("brp sign wrote no signature section last: %r" % [t for t, _, _, _ in secs])
        open("stripped.brp", "wb").write(data[:secs[-1][2]])
        t, p, _, _ = secs[-1]
        p = bytearray(p)
        p[20] ^= 1  # inside the 64 bytes of the Ed25519 signature
        open("tampered.brp", "wb").write(identity.rebuild(secs[:-1] + [(t, bytes(p), 0, 0)]))
        isecs = identity.sections(open("impostor.brp", "rb").read())
        t, p, _, _ = isecs[-1]
        p = p[:2] + pubkey("platform.pub")[0] + p[10:]
        open("clash.brp", "wb").write(identity.rebuild(isecs[:-1] + [(t, p, 0, 0)]))
        shutil.rmtree("sim")
    finally:
        os.chdir(here)
    names = ["unrevealed", "revealed", "wrong-seed", "committed", "unrevealed4", "revealed4", "wrong-seed4", "signed",
             "stripped", "tampered", "impostor", "clash"]
    return {n: os.path.join(out, n + ".brp") for n in names}


def record_signed(brp, out):
    """A signed recording: (its growing form, signed at every flush, before the close; the closed log)."""
    run(brp, "simulate", "-r", "stbl", "-p", "2", "-n", "1", "-t", "0", "--seed", "9", "-q", "-o", "rec-sim")
    text = run(brp, "dump", "rec-sim/match-000001.brp").stdout
    head, body = text.split("\n\n", 1)
    dealer = [l.split('"')[1] for l in head.splitlines() if l.startswith("[FirstDealer ")][0]
    lines = [l for l in body.splitlines() if l.strip() and l.strip() != "end"]
    p = subprocess.Popen([brp, "record", "-o", out, "-r", "stbl", "-s", "target=0", "-p", "2", "-k",
                          "copies/platform.key", "--seat", "0=Ana", "--seat", "1=Bia", "--first-dealer", dealer,
                          "--start", "2026-11-30T01:58:23Z"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    for l in lines:
        p.stdin.write(l + "\n")
        p.stdin.flush()
        if p.stdout.readline().strip() not in ("ok", "kept"):
            fail("brp record refused %r" % l)
    growing = open(out, "rb").read()
    p.stdin.close()
    p.wait()
    shutil.rmtree("rec-sim")
    return growing, open(out, "rb").read()


# ---- what a row must say ----

class Judge:
    """What brp verify says of each file, under no key and under the platform's key."""

    def __init__(self, brp, platform):
        self.brp = brp
        self.platform = platform  # (key id, public key) of the trusted key
        self.cache = {}

    def json(self, path, keyed):
        k = (path, keyed)
        if k not in self.cache:
            self.cache[k] = verify(self.brp, path, *(["-K", "copies/platform.pub"] if keyed else []))
        return self.cache[k]

    def copy_of(self, path, keyed):
        """The copy a file is (the fields docs/schema.md names a copy by)."""
        j = self.json(path, keyed)
        sig = j.get("signature", {})
        signer = last_signer(path) if sig.get("status") != "unsigned" else None
        fp = fingerprint(signer[1]) if signer else None
        trusted = int(bool(keyed and sig.get("status") == "ok" and signer == self.platform))
        # whether a trusted key signs what the replay found: said by verify for an untrusted verdict
        replay_trusted = int(j["replay_trusted"]) if "replay_trusted" in j else None
        return (j.get("match_id") or sha256(path), j.get("verdict"), sig.get("status"), sig.get("key"), fp, trusted,
                j.get("dealing", {}).get("commitment"), replay_trusted)

    def check_row(self, label, row, path, keyed):
        """Every file-derived column of row is the file's own."""
        j = self.json(path, keyed)
        sig = j.get("signature", {})
        deal = j.get("dealing", {})
        want = {
            "file": path, "hash": sha256(path), "bytes": os.path.getsize(path), "verdict": j.get("verdict"),
            "verdict_detail": j.get("message"), "identity": j.get("match_id"),
            "closed": None if j.get("verdict") == "malformed" else int(j.get("closed")),
            "recovered": int(bool(j.get("recovered"))), "trusted_keys": 1 if keyed else 0,
            "signature": sig.get("status"), "signature_key": sig.get("key"),
            "signature_fingerprint": self.copy_of(path, keyed)[4],
            "signature_covered": sig.get("covered"),
            "signature_trusted": self.copy_of(path, keyed)[5],
            "dealing": deal.get("commitment"), "dealing_digest": deal.get("digest"),
        }
        # what brp verify --json says of the signature and the replay, where it says it
        for col, key, conv in (("signature_fingerprint", "fingerprint", None), ("signature_trusted", "trusted", int),
                               ("signature_trusted_covered", "trusted_covered", None),
                               ("signature_header_signed", "header_signed", int),
                               ("signature_id_clash", "id_clash", lambda v: int(v is not None))):
            if key in sig:
                want[col] = conv(sig[key]) if conv else sig[key]
        if "replay" in j or j.get("verdict") not in ("tampered", "untrusted"):  # a tampered log's JSON has none
            want["replay"] = j.get("replay", j.get("verdict"))
        if "replay_trusted" in j:
            want["replay_trusted"] = int(j["replay_trusted"])
        if j.get("verdict") not in ("tampered", "untrusted"):
            want["replay_detail"] = j.get("message")
        if sig.get("status") != "invalid":  # a broken signature's key may be a trusted one
            want["signature_key_trusted"] = int(bool(keyed and last_signer(path) == self.platform))
            want["signature_id_clash"] = int(bool(keyed and last_signer(path) and
                                                  last_signer(path)[0] == self.platform[0] and
                                                  last_signer(path) != self.platform))
        if deal.get("commitment") not in (None, "none"):
            # the header's seeds: the version-3 sample has one, brp simulate --commit gives every seat one
            version = 3 if "4" not in os.path.basename(path) else 4
            want["dealing_player_seeds"] = j.get("player_seeds", deal.get("player_seeds",
                                                                        1 if version == 3 else 4))
            want["dealing_protocol"] = 1 if version == 3 else 2
        else:
            want["dealing_player_seeds"] = want["dealing_protocol"] = None
        if j.get("verdict") == "ok":
            want.update({"deals": j["deals"], "decisions": j["decisions"], "winner": j["winner"],
                         "total0": j["total"][0], "total1": j["total"][1]})
        else:
            want.update({"deals": None, "winner": None, "total0": None})
        if j.get("verdict") == "mismatch" and "deal" in j:
            want["verdict_deal"] = j["deal"]
        for k, v in want.items():
            if row.get(k) != v:
                fail("%s: the row of %s has %s = %r; its file says %r" % (label, path, k, row.get(k), v))

    def check_db(self, label, db, expect):
        """db holds exactly one row for each copy of expect [(path, keyed)], each the file's own."""
        got = rows(db, "SELECT * FROM matches ORDER BY match_id")
        copies = {}
        for path, keyed in expect:
            copies.setdefault(self.copy_of(path, keyed), (path, keyed))
        if len(got) != len(copies):
            fail("%s: %d rows, %d copies: %r" % (label, len(got), len(copies),
                                                  [(r["file"], r["verdict"], r["signature"], r["dealing"])
                                                   for r in got]))
            return got
        for r in got:
            key = (r["identity"] or r["hash"], r["verdict"], r["signature"], r["signature_key"],
                   r["signature_fingerprint"], r["signature_trusted"], r["dealing"],
                   r["replay_trusted"] if r["verdict"] == "untrusted" else None)
            if key not in copies:
                fail("%s: a row of no expected copy: %r" % (label, key))
                continue
            # the row describes one file of its copy (the first given, or a better one), all of its columns
            cands = [(p, k) for p, k in expect if self.copy_of(p, k) == key and p == r["file"]]
            if not cands:
                fail("%s: the row of copy %r names %s, not a file of it" % (label, key, r["file"]))
                continue
            self.check_row(label, r, *cands[0])
        return got


def counted(db):
    return rows(db, "SELECT match_id, identity, file FROM counted_matches ORDER BY match_id")


def check_counted_once(label, db):
    """Every view counts each match once, whatever its copies."""
    c = counted(db)
    ids = [r["identity"] for r in c if r["identity"]]
    if len(ids) != len(set(ids)):
        fail("%s: counted_matches holds a match twice: %r" % (label, c))
    n = scalar(db, "SELECT count(DISTINCT coalesce(identity, hash)) FROM matches WHERE verdict = 'ok'")
    if len(c) != n:
        fail("%s: counted_matches has %d rows, %d matches have an ok copy" % (label, len(c), n))
    for view, col in (("seat_results", "match_id"), ("player_deals", "match_id")):
        extra = scalar(db, "SELECT count(*) FROM %s WHERE %s NOT IN (SELECT match_id FROM counted_matches)"
                       % (view, col))
        if extra:
            fail("%s: %s counts %d rows of copies that are not counted" % (label, view, extra))
    m = scalar(db, "SELECT coalesce(max(matches), 0) FROM player_stats")
    if m > len(c):
        fail("%s: player_stats counts %d matches for a player, the database has %d" % (label, m, len(c)))
    sa = scalar(db, "SELECT coalesce(sum(matches), 0) FROM seat_advantage")
    want = scalar(db, "SELECT coalesce(sum(players), 0) FROM counted_matches")
    if sa != want:
        fail("%s: seat_advantage counts %d seats, the counted matches have %d" % (label, sa, want))
    da = scalar(db, "SELECT coalesce(sum(deals), 0) FROM deal_advantage")
    want = scalar(db, "SELECT coalesce(sum(deals * players), 0) FROM counted_matches")
    if da != want:
        fail("%s: deal_advantage counts %d seat-deals, the counted matches have %d" % (label, da, want))
    fk = rows(db, "PRAGMA foreign_key_check")
    if fk or scalar(db, "PRAGMA integrity_check") != "ok":
        fail("%s: foreign_key_check %r, integrity_check %s" % (label, fk, scalar(db, "PRAGMA integrity_check")))


def export(brp, db, *paths, keyed=False, keyring=False):
    opts = []
    if keyed:
        opts = ["--keyring", "copies/platform.pub"] if keyring else ["-K", "copies/platform.pub"]
    return run(brp, "export", "-q", "--sqlite", db, *opts, *paths)


def fresh(db):
    for suffix in ("", "-journal", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)


# ---- the checks ----

def check_committed(brp, j, c):
    """The stacked-deal attack: the unrevealed copy first, then the revealed or mismatching one; and reversed."""
    for v in ("", "4"):
        u, w, r = c["unrevealed" + v], c["wrong-seed" + v], c["revealed" + v]
        ju, jw, jr = j.json(u, False), j.json(w, False), j.json(r, False)
        if ju.get("verdict") != "ok" or ju["dealing"]["commitment"] != "unrevealed" or jw.get("verdict") == "ok" \
                or jr.get("verdict") != "ok" or jr["dealing"]["commitment"] != "revealed" or \
                not ju.get("match_id") or len({ju.get("match_id"), jw.get("match_id"), jr.get("match_id")}) != 1:
            fail("the copies of a committed match are not what the attack needs: %r %r %r" % (ju, jw, jr))
    for v, second in (("", "wrong-seed"), ("", "revealed"), ("4", "wrong-seed4"), ("4", "revealed4")):
        for order in ((c["unrevealed" + v], c[second]), (c[second], c["unrevealed" + v])):
            for runs in (1, 2):
                fresh("c.db")
                if runs == 1:
                    export(brp, "c.db", *order)
                else:
                    for p in order:
                        export(brp, "c.db", p)
                label = "committed %s then %s, %d run%s" % (os.path.basename(order[0]), os.path.basename(order[1]),
                                                          runs, "s" if runs > 1 else "")
                got = j.check_db(label, "c.db", [(p, False) for p in order])
                if len(got) != 2:
                    continue
                check_counted_once(label, "c.db")
                if len(counted("c.db")) != 1:
                    fail("%s: counted_matches: %r" % (label, counted("c.db")))
                # the dispute is in the example query of docs/schema.md
                disputed = rows("c.db", "SELECT identity FROM matches WHERE identity IS NOT NULL GROUP BY identity "
                                "HAVING count(DISTINCT verdict) > 1")
                if second.startswith("wrong-seed") != (len(disputed) == 1):
                    fail("%s: the disputed matches: %r" % (label, disputed))
                # the ok copy keeps its deals; the mismatching one has none
                for r in got:
                    n = scalar("c.db", "SELECT count(*) FROM deals WHERE match_id = %d" % r["match_id"])
                    if n != (r["deals"] or 0):
                        fail("%s: the row of %s has %d deals rows, deals = %r" % (label, r["file"], n, r["deals"]))
    # five copies alike are one row
    fresh("c.db")
    export(brp, "c.db", c["revealed"], c["committed"], c["revealed"])
    export(brp, "c.db", c["committed"], c["revealed"])
    j.check_db("two revealed byte-variants", "c.db", [(c["revealed"], False), (c["committed"], False)])
    if scalar("c.db", "SELECT count(*) FROM matches") != 1:
        fail("identical copies are not one row")
    print("committed: the unrevealed and the mismatching or revealed copies are two rows, in either order")


def check_signed(brp, j, c):
    pairs = [("signed", "tampered"), ("signed", "stripped"), ("signed", "impostor"), ("stripped", "tampered"),
             ("signed", "clash")]
    for a, b in pairs:
        for keyed in (False, True):
            for order in ((c[a], c[b]), (c[b], c[a])):
                fresh("s.db")
                export(brp, "s.db", *order, keyed=keyed, keyring=(a == "stripped"))
                label = "%s then %s%s" % (os.path.basename(order[0]), os.path.basename(order[1]),
                                         " with -K" if keyed else "")
                got = j.check_db(label, "s.db", [(p, keyed) for p in order])
                if len(got) != 2:
                    fail("%s: not two rows" % label)
                check_counted_once(label, "s.db")
    # with -K the verdicts differ as verify says: the signed copy trusted, the others not
    fresh("s.db")
    export(brp, "s.db", c["stripped"], c["signed"], c["impostor"], c["clash"], keyed=True)
    got = {os.path.basename(r["file"]): r for r in rows("s.db", "SELECT * FROM matches")}
    if got.get("signed.brp", {}).get("signature_trusted") != 1 or \
            got.get("signed.brp", {}).get("verdict") != "ok" or \
            got.get("stripped.brp", {}).get("verdict") == "ok" or \
            got.get("impostor.brp", {}).get("verdict") == "ok" or \
            got.get("impostor.brp", {}).get("signature_key_trusted") != 0 or \
            got.get("clash.brp", {}).get("verdict") == "ok" or got.get("clash.brp", {}).get("signature_id_clash") != 1 or \
            got.get("clash.brp", {}).get("signature_key") != got.get("signed.brp", {}).get("signature_key") or \
            got.get("clash.brp", {}).get("signature_fingerprint") != got.get("impostor.brp", {}).get("signature_fingerprint"):
        fail("with -K: %r" % {k: (v["verdict"], v["signature"], v["signature_trusted"]) for k, v in got.items()})
    if [r["file"] for r in counted("s.db")] != [c["signed"]]:
        fail("with -K only the trusted copy is counted: %r" % counted("s.db"))
    # one database, without keys and then with: the same files judged twice are other copies
    fresh("s.db")
    export(brp, "s.db", c["signed"], c["stripped"])
    export(brp, "s.db", c["signed"], c["stripped"], keyed=True)
    export(brp, "s.db", c["signed"], c["stripped"], keyed=True, keyring=True)
    expect = [(c["signed"], False), (c["stripped"], False), (c["signed"], True), (c["stripped"], True)]
    got = j.check_db("without and with -K", "s.db", expect)
    # the signed log is two copies (trusted or not); the stripped one, untrusted either way since its
    # header says it is signed, one or two as verify judges it
    if len(got) != len({j.copy_of(p, k) for p, k in expect}) or len(got) < 3 or len({r["hash"] for r in got}) != 2:
        fail("without and with -K: %r" % [(r["file"], r["verdict"], r["trusted_keys"]) for r in got])
    check_counted_once("without and with -K", "s.db")
    # an unreadable key: nothing exported, exit 3
    r = run(brp, "export", "--sqlite", "k.db", "-K", "copies/none.pub", c["signed"], check=False)
    if r.returncode != 3 or os.path.exists("k.db") or len(r.stderr.splitlines()) != 1:
        fail("export -K of a missing key: exit %d, %r, database made: %s" % (r.returncode, r.stderr,
                                                                             os.path.exists("k.db")))
    print("signed: tampered, stripped and impostor copies beside the genuine one, with and without -K")


def coverage_copies(brp, src):
    """Two growing logs of one match, each signed by the platform over a prefix and untrusted after it:
    (the one signed before deal 2's illegal meld, the one signed past it)."""
    text = open(os.path.join(src, "samples", "disputed", "meld-two-wilds.txt")).read()
    lines = text.splitlines(keepends=True)
    with open("cov-prefix.txt", "w") as f:
        f.write("".join(lines[:lines.index("deal 2\n")]))
    with open("cov-whole.txt", "w") as f:
        f.write("".join(l for l in lines if l != "end\n"))
    run(brp, "import", "cov-prefix.txt", "-o", "cov-prefix.brp")
    run(brp, "import", "cov-whole.txt", "-o", "cov-whole.brp")
    prefix, whole = open("cov-prefix.brp", "rb").read(), open("cov-whole.brp", "rb").read()
    if not whole.startswith(prefix):
        fail("coverage: the growing log of deal 1 is not a prefix of the whole one")
    end = [x for x in identity.sections(open(os.path.join(src, "samples", "disputed", "meld-two-wilds.brp"),
                                               "rb").read()) if x[0] == b"E"]
    end = identity.rebuild(end)[len(identity.MAGIC):]
    run(brp, "sign", "-k", "copies/platform.key", "cov-prefix.brp")
    signed = open("cov-prefix.brp", "rb").read()
    with open("copies/cov-before.brp", "wb") as f:  # the platform's signature ends before deal 2
        f.write(signed + whole[len(prefix):] + end)
    with open("cov-past.brp", "wb") as f:
        f.write(signed + whole[len(prefix):])
    run(brp, "sign", "-k", "copies/platform.key", "cov-past.brp")
    with open("copies/cov-past.brp", "wb") as f:  # signed again after deal 2; the end section unsigned
        f.write(open("cov-past.brp", "rb").read() + end)
    return "copies/cov-before.brp", "copies/cov-past.brp"


def check_coverage(brp, j, before, past):
    """Copies that differ only in whether the platform signed the replay's finding are two rows."""
    jb, jp = j.json(before, True), j.json(past, True)
    sb, sp = jb.get("signature", {}), jp.get("signature", {})
    if jb.get("match_id") != jp.get("match_id") or not jb.get("match_id") or \
            [jb.get("verdict"), jp.get("verdict")] != ["untrusted", "untrusted"] or \
            [jb.get("replay"), jp.get("replay")] != ["illegal", "illegal"] or \
            [jb.get("replay_trusted"), jp.get("replay_trusted")] != [False, True] or \
            [sb.get("status"), sp.get("status")] != ["partial", "partial"] or \
            sb.get("fingerprint") != sp.get("fingerprint") or "seat 1" not in jp.get("message", "") + \
            run(brp, "verify", "-K", "copies/platform.pub", past, check=False).stdout:
        fail("coverage: the copies are not what the attack needs: %r %r" % (jb, jp))
    for order in ((before, past), (past, before)):
        for runs in (1, 2):
            fresh("v.db")
            if runs == 1:
                export(brp, "v.db", *order, keyed=True)
            else:
                for p in order:
                    export(brp, "v.db", p, keyed=True)
            label = "coverage: %s then %s, %d run%s" % (os.path.basename(order[0]), os.path.basename(order[1]),
                                                      runs, "s" if runs > 1 else "")
            got = j.check_db(label, "v.db", [(p, True) for p in order])
            if sorted((r["file"], r["replay_trusted"]) for r in got) != sorted([(before, 0), (past, 1)]):
                fail("%s: %r" % (label, [(r["file"], r["replay_trusted"]) for r in got]))
    # CSV: one row each
    out = run(brp, "export", "-q", "--csv", "cov-csv", "-K", "copies/platform.pub", before, past).stdout
    with open("cov-csv/matches.csv", newline="") as f:
        files = sorted(r["file"] for r in csv.DictReader(f))
    if files != sorted([before, past]):
        fail("coverage: matches.csv holds %r" % files)
    shutil.rmtree("cov-csv")
    # brp merge of two databases, each holding one of them
    for a, b in ((before, past), (past, before)):
        fresh("va.db")
        fresh("vb.db")
        export(brp, "va.db", a, keyed=True)
        export(brp, "vb.db", b, keyed=True)
        run(brp, "merge", "va.db", "vb.db")
        got = rows("va.db", "SELECT file, replay_trusted FROM matches ORDER BY match_id")
        if [(r["file"], r["replay_trusted"]) for r in got] != [(a, int(a == past)), (b, int(b == past))]:
            fail("coverage: %s merged with %s: %r" % (a, b, got))
    print("coverage: a copy the platform signed past the illegal meld and one signed before it are two rows")


def check_better_file(brp, j):
    """A better file of one copy gives the row every column of that file, or none."""
    growing, closed = record_signed(brp, "copies/rec.brp")
    with open("copies/growing.brp", "wb") as f:
        f.write(growing)
    with open("copies/closed.brp", "wb") as f:
        f.write(closed)
    g, cl = "copies/growing.brp", "copies/closed.brp"
    # the closed log with its signature cut off: another copy (its header says it is signed)
    secs = identity.sections(closed)
    with open("copies/closed-stripped.brp", "wb") as f:
        f.write(closed[:secs[-1][2]])
    for keyed in (False, True):
        for order in ((cl, "copies/closed-stripped.brp"), ("copies/closed-stripped.brp", cl)):
            fresh("b.db")
            export(brp, "b.db", *order, keyed=keyed)
            label = "a signed recording and its stripped copy%s, %s first" % (" with -K" if keyed else "",
                                                                             os.path.basename(order[0]))
            if len(j.check_db(label, "b.db", [(p, keyed) for p in order])) != 2:
                fail("%s: not two rows" % label)
    if j.copy_of(g, False) != j.copy_of(cl, False) or j.json(g, False)["signature"]["covered"] == \
            j.json(cl, False)["signature"]["covered"]:
        fail("the growing and closed signed forms are not one copy with two coverages: %r %r" % (
            j.json(g, False), j.json(cl, False)))
    for order in ((g, cl), (cl, g)):
        for runs in (1, 2):
            fresh("b.db")
            if runs == 1:
                export(brp, "b.db", *order)
            else:
                for p in order:
                    export(brp, "b.db", p)
            got = rows("b.db", "SELECT * FROM matches")
            label = "better file, %s first, %d run(s)" % (os.path.basename(order[0]), runs)
            if len(got) != 1:
                fail("%s: %d rows" % (label, len(got)))
                continue
            j.check_row(label, got[0], cl, False)
    print("better file: the closed signed form replaces the growing one whole, coverage included")


def check_csv(brp, j, c):
    if os.path.isdir("csv"):
        shutil.rmtree("csv")
    order = [c["unrevealed"], c["wrong-seed"], c["revealed"], c["committed"], c["signed"], c["stripped"]]
    run(brp, "export", "-q", "--csv", "csv", "--sqlite", "csv.db", *order)
    with open("csv/matches.csv", newline="") as f:
        recs = list(csv.DictReader(f))
    got = [(r["file"], r["verdict"], r["signature"], r["dealing"]) for r in recs]
    want = [(r["file"], r["verdict"], r["signature"], r["dealing"]) for r in
            rows("csv.db", "SELECT * FROM matches ORDER BY match_id")]
    if got != want or len(got) != 5:
        fail("matches.csv %r, the database %r" % (got, want))
    for r in recs:
        path = r["file"]
        jj = j.json(path, False)
        if r["hash"] != sha256(path) or r["verdict_detail"] != jj.get("message") or \
                r["dealing_digest"] != (jj.get("dealing", {}).get("digest") or "") or \
                r["signature_covered"] != str(jj["signature"]["covered"]):
            fail("matches.csv: the row of %s is not its file's: %r" % (path, r))
    with open("csv/deals.csv", newline="") as f:
        deals = list(csv.DictReader(f))
    ok = {r["hash"]: int(r["deals"]) for r in recs if r["verdict"] == "ok"}
    per = {}
    for d in deals:
        per[d["hash"]] = per.get(d["hash"], 0) + 1
    if per != ok:
        fail("deals.csv: %r, the ok copies %r" % (per, ok))
    with open("csv/players.csv", newline="") as f:
        players = {r["name"]: r for r in csv.DictReader(f)}
    stats = {r["name"]: r for r in rows("csv.db", "SELECT * FROM player_stats")}
    if set(players) != set(stats) or any(int(players[n]["matches"]) != stats[n]["matches"] or
                                         int(players[n]["points"]) != stats[n]["points"] for n in stats):
        fail("players.csv %r, player_stats %r" % (players, stats))
    # each name's matches: the distinct identities of the ok copies it sits in
    per_name = {r["name"]: r["n"] for r in rows("csv.db", "SELECT name, count(DISTINCT identity) AS n FROM "
                                                "match_players JOIN matches USING (match_id) WHERE verdict = 'ok' "
                                                "AND name IS NOT NULL GROUP BY name")}
    if {n: int(p["matches"]) for n, p in players.items()} != per_name:
        fail("players.csv counts a match twice: %r, its matches %r" % (players, per_name))
    print("csv: one row a copy, the deals of each ok copy, each match counted once")


def check_merge(brp, j, c):
    fresh("m.db")
    for db in ("a.db", "b.db"):
        fresh(db)
    export(brp, "a.db", c["unrevealed"], c["signed"])
    export(brp, "b.db", c["wrong-seed"], c["tampered"], c["revealed"])
    out = run(brp, "merge", "m.db", "a.db", "b.db").stdout
    expect = [(c[n], False) for n in ("unrevealed", "signed", "wrong-seed", "tampered", "revealed")]
    j.check_db("merge of two databases", "m.db", expect)
    if not out.startswith("5 matches added"):
        fail("merge said %r" % out)
    check_counted_once("merge", "m.db")
    again = run(brp, "merge", "m.db", "b.db", "a.db").stdout
    if not again.startswith("0 matches added"):
        fail("merging again: %r" % again)
    fresh("m2.db")
    run(brp, "merge", "m2.db", "b.db", "a.db")
    j.check_db("merge in the other order", "m2.db", expect)
    # the same copy in both, the better file in the second: the row is that file's, whole
    for db in ("a.db", "b.db", "m.db"):
        fresh(db)
    export(brp, "a.db", "copies/growing.brp", c["stripped"])
    export(brp, "b.db", "copies/closed.brp")
    export(brp, "b.db", c["stripped"], keyed=True)
    run(brp, "merge", "m.db", "a.db", "b.db")
    j.check_db("merge, a better file", "m.db", [("copies/growing.brp", False), ("copies/closed.brp", False),
                                                 (c["stripped"], False), (c["stripped"], True)])
    r = rows("m.db", "SELECT file FROM matches WHERE identity = ?", (j.json("copies/closed.brp", False)["match_id"],))
    if r != [{"file": "copies/closed.brp"}]:
        fail("merge, a better file: %r" % r)
    # the merged database equals one export of the same logs in the same order (ids aside)
    fresh("one.db")
    export(brp, "one.db", "copies/growing.brp", c["stripped"])
    export(brp, "one.db", "copies/closed.brp")
    export(brp, "one.db", c["stripped"], keyed=True)
    cols = "file, hash, verdict, verdict_detail, signature, signature_covered, signature_trusted, trusted_keys, dealing"
    if rows("m.db", "SELECT %s FROM matches ORDER BY match_id" % cols) != \
            rows("one.db", "SELECT %s FROM matches ORDER BY match_id" % cols):
        fail("merge differs from one export: %r\n%r" % (rows("m.db", "SELECT %s FROM matches" % cols),
                                                         rows("one.db", "SELECT %s FROM matches" % cols)))
    print("merge: two databases holding different copies give both rows; merging again adds nothing")


# ---- databases of earlier schema versions ----

def old_database(src, version, new_db, out):
    """A database of schema version `version`, made from schema/00N-*.sql, holding new_db's rows."""
    if os.path.exists(out):
        os.remove(out)
    con = sqlite3.connect(out)
    names = sorted(f for f in os.listdir(os.path.join(src, "schema")) if f.endswith(".sql"))
    for n in names[:version]:
        con.executescript(open(os.path.join(src, "schema", n)).read())
    con.execute("ATTACH DATABASE ? AS new", (new_db,))
    for t in ("matches", "match_players", "match_meta", "deals", "deal_scores", "deal_seats", "melds", "actions"):
        cols = ", ".join('"%s"' % r[1] for r in con.execute("PRAGMA main.table_info(%s)" % t))
        con.execute("INSERT INTO main.%s (%s) SELECT %s FROM new.%s" % (t, cols, cols, t))
    con.commit()
    con.execute("DETACH DATABASE new")
    con.close()
    assert scalar(out, "PRAGMA user_version") == version


LATEST = 7  # the schema version brp writes


VIEWS = {1: ("player_stats", "player_deals", "seat_advantage", "deal_advantage"),
         2: ("player_stats", "player_deals", "seat_advantage", "deal_advantage", "seat_results")}


def snapshot(db, version):
    """Every table's rows in the columns of that version, and every view's answer."""
    out = {}
    con = sqlite3.connect(db)
    try:
        for t in ("matches", "match_players", "match_meta", "deals", "deal_scores", "deal_seats", "melds", "actions"):
            out[t] = con.execute("SELECT * FROM %s ORDER BY 1, 2, 3" % t).fetchall()
        for v in VIEWS[min(version, 2)]:
            out[v] = sorted(con.execute("SELECT * FROM %s" % v).fetchall(), key=repr)
    finally:
        con.close()
    return out


def check_upgrades(brp, src, j, c):
    # the corpus: simulated matches of two profiles, a committed match, an illegal and a damaged log
    run(brp, "simulate", "-r", "kzv", "-p", "4", "-n", "3", "--seed", "21", "-q", "-o", "old")
    run(brp, "simulate", "-r", "aberto", "-p", "2", "-n", "2", "--seed", "22", "-q", "-o", "old", "--add")
    logs = sorted("old/" + f for f in os.listdir("old")) + [c["revealed"]]
    for f in ("pile-frozen.brp", "damaged-byte.brp"):
        shutil.copy(os.path.join(src, "samples", "disputed", f), "old/" + f)
        logs.append("old/" + f)
    fresh("src.db")
    export(brp, "src.db", "--actions", *logs)
    empty = "empty.db"
    fresh(empty)
    con = sqlite3.connect(empty)
    for n in sorted(f for f in os.listdir(os.path.join(src, "schema")) if f.endswith(".sql")):
        con.executescript(open(os.path.join(src, "schema", n)).read())
    con.close()
    for version in (1, 2, 3):
        old = "v%d.db" % version
        old_database(src, version, "src.db", old)
        shutil.copy(old, "v%d-shard.db" % version)
        before = snapshot(old, version)
        # upgraded by brp merge of an empty database: nothing added, every row kept
        out = run(brp, "merge", old, empty).stdout
        label = "version %d upgraded" % version
        if scalar(old, "PRAGMA user_version") != LATEST or not out.startswith("0 matches added"):
            fail("%s: user_version %d, merge said %r" % (label, scalar(old, "PRAGMA user_version"), out))
        after = snapshot(old, version)
        ncols = len(before["matches"][0])
        for t in before:
            got = [r[:ncols] for r in after[t]] if t == "matches" else after[t]
            if got != before[t]:
                fail("%s: %s differs from before the upgrade" % (label, t))
        new_cols = [r for r in rows(old, "SELECT signature, dealing, trusted_keys, signature_covered FROM matches")
                    if any(v is not None for v in r.values())]
        if new_cols:
            fail("%s: the columns of version 4 are not NULL: %r" % (label, new_cols))
        check_counted_once(label, old)
        # its files exported again: the rows take their file's columns, no row is added
        export(brp, old, *logs)
        label = "version %d, its logs exported again" % version
        got = j.check_db(label, old, [(p, False) for p in logs])
        if len(got) != len(before["matches"]):
            fail("%s: %d rows, %d before" % (label, len(got), len(before["matches"])))
        again = snapshot(old, version)
        for v in VIEWS[min(version, 2)]:
            if again[v] != before[v]:
                fail("%s: the view %s answers otherwise" % (label, v))
        # a disputing copy is a row of its own
        export(brp, old, c["wrong-seed"])
        if scalar(old, "SELECT count(*) FROM matches") != len(before["matches"]) + 1:
            fail("version %d: the wrong-seed copy is not a row of its own" % version)
        check_counted_once("version %d with a disputing copy" % version, old)
        # the old shard merged: into an empty database all its rows (as they are), into one that has
        # their files' copies nothing
        fresh("into.db")
        run(brp, "merge", "into.db", "v%d-shard.db" % version)
        if scalar("into.db", "SELECT count(*) FROM matches") != len(before["matches"]) or \
                scalar("into.db", "SELECT count(*) FROM matches WHERE signature IS NOT NULL") != 0:
            fail("version %d shard merged into a new database: %r" % (version, rows("into.db", "SELECT file FROM "
                                                                                       "matches")))
        check_counted_once("version %d shard merged" % version, "into.db")
        out = run(brp, "merge", old, "v%d-shard.db" % version).stdout
        if not out.startswith("0 matches added"):
            fail("version %d shard merged into the database that has its files: %r" % (version, out))
        # the merged rows of the older shard take the columns of a complete row of their file
        run(brp, "merge", "into.db", old)
        if scalar("into.db", "SELECT count(*) FROM matches WHERE signature IS NULL") != 0 or \
                scalar("into.db", "SELECT count(*) FROM matches") != len(before["matches"]) + 1:
            fail("version %d: a complete database merged into its old shard: %r" % (
                version, rows("into.db", "SELECT file, signature FROM matches")))
        check_counted_once("version %d, both merged" % version, "into.db")
    print("upgrade: versions 1, 2 and 3 keep every row and view; their rows and shards become copies")


def check_upgrade_4(brp, src, j, before, past):
    """A database of version 4 holding one coverage copy: upgraded with its rows as they were, it then
    takes the other copy as a row of its own."""
    fresh("w.db")
    export(brp, "w.db", before, keyed=True)
    for version in (4,):
        old_database(src, version, "w.db", "v%d.db" % version)
        rows_before = rows("v%d.db" % version, "SELECT * FROM matches")
        out = run(brp, "merge", "v%d.db" % version, "w.db").stdout
        if scalar("v%d.db" % version, "PRAGMA user_version") != LATEST or not out.startswith("0 matches added"):
            fail("version %d upgraded: user_version %d, merge said %r" % (
                version, scalar("v%d.db" % version, "PRAGMA user_version"), out))
        if rows("v%d.db" % version, "SELECT * FROM matches") != rows_before:
            fail("version %d upgraded: the rows changed" % version)
        export(brp, "v%d.db" % version, past, keyed=True)
        j.check_db("version %d upgraded, the other coverage copy exported" % version, "v%d.db" % version,
                   [(before, True), (past, True)])
        check_counted_once("version %d upgraded" % version, "v%d.db" % version)
    print("upgrade: version 4 keeps every row, then keeps the coverage copies apart")


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "make":
        brp, src, out = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]), sys.argv[4]
        make_copies(brp, src, out)
        sys.exit(1 if failures else 0)
    brp, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.environ.update(LC_ALL="C", TZ="UTC")
    work = tempfile.mkdtemp()
    try:
        os.chdir(work)
        c = make_copies(brp, src, "copies")
        j = Judge(brp, pubkey("copies/platform.pub"))
        check_committed(brp, j, c)
        check_signed(brp, j, c)
        check_better_file(brp, j)
        check_csv(brp, j, c)
        check_merge(brp, j, c)
        before, past = coverage_copies(brp, src)
        check_coverage(brp, j, before, past)
        check_upgrades(brp, src, j, c)
        check_upgrade_4(brp, src, j, before, past)
    finally:
        shutil.rmtree(work)
    if failures:
        print("%d failures" % len(failures))
        sys.exit(1)
    print("copies: every copy of a match is a row of its own, with its own file's columns")


if __name__ == "__main__":
    main()
