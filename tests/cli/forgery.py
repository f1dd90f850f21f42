#!/usr/bin/env python3
"""Forged and truncated signed logs (issues 14 and 22).

    forgery.py BRP SAMPLES

A match is simulated and signed as it is written (`brp simulate -k`); the
platform's public key is the one trusted key. Then:

  forgery     every kind of edit a disputing player might make: the names, the
              start time, the metadata, a claim added, removed or changed, a
              rule parameter, a decision (each through `brp dump`, an edit of
              the text and `brp import`), the recovered flag, a section dropped
              or appended, the end section removed (on the bytes, every CRC
              recomputed so that only the signature can tell). Each forgery is
              tried three ways: with the original signature kept (must be
              tampered), with no signature (unsigned: untrusted), and signed
              again by the forger's own key (another key: untrusted). None may
              verify ok, and none may say a trusted signature covers it all.
  framing     with the platform's key trusted, bytes no trusted key signs get
              no verdict of their own: a signed prefix of a growing log with
              an illegal meld appended unsigned is untrusted, the illegal
              decision a detail that names no seat; the same with the illegal
              meld inside the signed bytes names it; a wrong claim appended and
              signed by a key that copies the platform's key id (the impostor)
              is untrusted, the impostor named as another key by its
              fingerprint; a whole log re-signed by the impostor too. The
              export of each with -K (SQLite and CSV) names no seat either:
              not in the seat and decision columns, nor in replay_detail (a
              rule's message names the seat: 'seat 1 already drew this
              turn'), except for the illegal meld inside the signed bytes.
  naming      brp keygen and brp sign name the key by its id and its
              fingerprint (computed here from the .pub and from the signature
              section), as verify does: the impostor's brp sign line carries
              the platform's id and its own fingerprint.
  stripping   a signed compact log cut just before its signature, and a
              signed growing log (brp record -k, killed) cut between its last
              section (a wrong claim) and that flush's signature: the header
              declares the log signed, so without keys each is untrusted
              (exit 1), the line saying which bytes no signature covers.
  unclosed    the signed growing log killed at the flush before a wrong claim
              reads ok, unclosed: with keys it fails (exit 1) and says that
              claims may be missing; without keys it is ok (exit 0); and so
              does a prefix signed by brp sign.
Every truncation of a signed log is tested in tests/unit/test_sign.c (in
process: thousands of cuts).
"""
import base64
import csv
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import zlib

MAGIC = b"\x89BRP\r\n\x1a\n"


def run(*args, **kw):
    return subprocess.run([str(a) for a in args], capture_output=True, **kw)


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def sections(data):
    """The (type, payload, offset, end) of every whole section, up to the first bad frame. A sealed
    log (its header Z, docs/format.md 19.5): no checksum up to E, then one over every byte before."""
    out, pos = [], 8
    sealed = len(data) > 8 and data[8] == ord("Z")
    while pos < len(data):
        start, t = pos, data[pos]
        pos += 1
        length = shift = 0
        while True:
            if pos >= len(data):
                return out
            b = data[pos]
            pos += 1
            length |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        if sealed and t != ord("E"):
            if pos + length > len(data):
                return out
            pos += length
            out.append((chr(t), data[pos - length : pos], start, pos))
            continue
        if pos + length + 4 > len(data):
            return out
        payload = data[pos : pos + length]
        crc = int.from_bytes(data[pos + length : pos + length + 4], "little")
        if crc != zlib.crc32(data[: pos + length] if sealed else data[start : pos + length]):
            return out
        sealed = False
        pos += length + 4
        out.append((chr(t), payload, start, pos))
    return out


def frame(t, payload):
    head = bytes([ord(t)]) + varint(len(payload))
    return head + payload + zlib.crc32(head + payload).to_bytes(4, "little")


def recovered_flag(h):
    """A header payload with the recovered flag of format version 5 set (bit 1 of its flags, the
    body's last byte), raw."""
    body = h[1:]
    if h[0] == 1:
        c = 1
        while h[c] & 0x80:
            c += 1
        body = zlib.decompress(h[c + 1 :])
    return b"\x00" + body[:-1] + bytes([body[-1] | 2])


def build(secs):
    if secs and secs[0][0] == "Z" and "E" not in [t for t, _ in secs]:
        secs = [("H", secs[0][1])] + secs[1:]  # no E: the log cannot be sealed (docs/format.md 19.5)
    if not secs or secs[0][0] != "Z":
        return MAGIC + b"".join(frame(t, p) for t, p in secs)
    out, sealed = MAGIC, True
    for t, p in secs:
        if sealed:
            out += bytes([ord(t)]) + varint(len(p)) + p
            if t == "E":
                out += zlib.crc32(out).to_bytes(4, "little")
                sealed = False
        else:
            out += frame(t, p)
    return out


class Suite:
    def __init__(self, brp, tmp):
        self.brp, self.tmp, self.failures, self.checks = brp, tmp, [], 0

    def verify(self, path, *extra):
        r = run(self.brp, "verify", "--json", *extra, path)
        self.line = run(self.brp, "verify", *extra, path).stdout.decode().strip()
        line = r.stdout.decode().strip()
        try:
            return r.returncode, json.loads(line)
        except ValueError:
            return r.returncode, {"verdict": "?", "raw": line, "err": r.stderr.decode()}

    def fail(self, what):
        self.failures.append(what)
        print("FAIL: " + what)

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path


def text_edits(text):
    """(name, edited text) for each semantic edit of a dumped match."""
    lines = text.splitlines(keepends=True)
    edits = []

    def sub(name, pattern, repl, count=1):
        new, n = re.subn(pattern, repl, text, count=count, flags=re.M)
        if n == 0 or new == text:
            raise SystemExit("forgery.py: the edit '%s' does not apply" % name)
        edits.append((name, new))

    sub("a name", r'^\[Seat "0" "([^"]*)"\]', r'[Seat "0" "\1x"]')
    sub("the start time", r'^\[Start "2026-01-01T00:00:00Z"\]', '[Start "2026-01-02T00:00:00Z"]')
    sub("a metadata value", r'^\[Meta "platform" "[^"]*"\]', '[Meta "platform" "elsewhere"]')
    sub("metadata added", r'^(\[Meta "match" "[^"]*"\]\n)', r'\1[Meta "referee" "me"]\n')
    sub("a rule parameter", r'^(\[Profile "stbl"\]\n)', r'\1[Rule "value_joker" "60"]\n')
    sub("a claim changed", r"^claim match: (\d+) (\d+)$",
        lambda m: "claim match: %d %s" % (int(m.group(1)) + 10, m.group(2)))
    sub("a claim removed", r"^claim match: .*\n", "")
    sub("a claim added", r"^(claim match: .*\n)", r"\1claim 1: 0 0\n")
    return edits


def forgery(s, signed, key, other_key, trusted):
    base = open(signed, "rb").read()
    secs = sections(base)
    if [t for t, _, _, _ in secs][-2:] != ["E", "s"]:
        s.fail("the signed compact log does not end with E then s: %s" % [t for t, _, _, _ in secs])
        return
    sig = secs[-1]
    body = [(t, p) for t, p, _, _ in secs[:-1]]
    forged = {}
    # semantic edits through the text notation
    text = run(s.brp, "dump", signed).stdout.decode()
    for name, new in text_edits(text):
        tpath = os.path.join(s.tmp, "edit.txt")
        with open(tpath, "w") as f:
            f.write(new)
        opath = os.path.join(s.tmp, "edit.brp")
        r = run(s.brp, "import", tpath, "-o", opath)
        if not os.path.exists(opath):
            s.fail("%s: brp import refused the edited text: %s" % (name, r.stderr.decode().strip()))
            continue
        data = open(opath, "rb").read()
        os.unlink(opath)
        forged[name] = [(t, p) for t, p, _, _ in sections(data)]
    # byte edits
    e_index = [i for i, (t, _) in enumerate(body) if t == "E"][0]
    flagged = list(body)
    flagged[0] = (body[0][0], recovered_flag(body[0][1]))  # format version 5: the header's flags, bit 1
    forged["the recovered flag"] = flagged
    claims = [i for i, (t, _) in enumerate(body) if t == "C"]
    if claims:
        forged["a section dropped (a claim)"] = [x for i, x in enumerate(body) if i != claims[0]]
    elif body[e_index][1]:  # version 5: the claims after the last decision are in E (docs/format.md 19.4)
        # (version 7's are in its M stream, E empty: the text edits change them)
        forged["the claims of the end section dropped"] = body[:e_index] + [("E", b"")] + \
            body[e_index + 1:]
    deals = [i for i, (t, _) in enumerate(body) if t in ("D", "M")]  # version 7: one M, the whole match
    forged["a section dropped (the last deal)"] = [x for i, x in enumerate(body) if i != deals[-1]]
    forged["a section appended (a claim before the end)"] = body[:e_index] + [("C", b"\x00\x00\x00")] + body[e_index:]
    forged["the end section removed"] = body[:e_index] + body[e_index + 1 :]
    # a decision and a layout card: a byte of a deal's coded stream (the layout comes first, about
    # 56 bytes; its decisions after), whatever it then decodes to
    for name, where in (("a decision", -8), ("a layout card", 6)):
        edited = list(body)
        t, p = edited[deals[0]]
        p = bytearray(p)
        p[where] ^= 0x10
        edited[deals[0]] = (t, bytes(p))
        forged[name] = edited
    for name, fsecs in sorted(forged.items()):
        if build(fsecs) == build(body):
            s.fail("%s: the edit changed nothing" % name)
            continue
        kept = s.write("kept.brp", build(fsecs + [("s", sig[1])]))
        unsigned = s.write("unsigned.brp", build(fsecs))
        resigned = s.write("resigned.brp", build(fsecs))
        r = run(s.brp, "sign", "-k", other_key, resigned)
        for how, path in (("the signature kept", kept), ("unsigned", unsigned), ("signed by another key", resigned)):
            s.checks += 1
            rc, v = s.verify(path, "-K", trusted)
            sg = v.get("signature", {})
            print("%-45s %-22s %-10s signature %s" % (name, how, v.get("verdict"), sg.get("status")))
            whole = sg.get("status") == "ok" and sg.get("trusted") and sg.get("covered") == sg.get("size")
            if v.get("verdict") == "ok" or whole or rc == 0:
                s.fail("%s, %s: verifies %s (exit %d) %s" % (name, how, v.get("verdict"), rc, sg))
            want = {"the signature kept": "invalid", "unsigned": "unsigned", "signed by another key": "ok"}[how]
            if how == "signed by another key" and r.returncode != 0:
                want = "unsigned"  # brp sign refuses a log that does not read (a decoded forgery always does)
            if sg.get("status") != want:
                s.fail("%s, %s: signature status %s, not %s" % (name, how, sg.get("status"), want))
            if how == "the signature kept" and v.get("verdict") != "tampered":
                s.fail("%s, %s: verdict %s, not tampered" % (name, how, v.get("verdict")))
            if how == "signed by another key" and sg.get("trusted"):
                s.fail("%s, %s: the forger's key is trusted" % (name, how))
    # a section appended after the signature: not covered
    appended = s.write("appended.brp", base + frame("x", b"later"))
    s.checks += 1
    rc, v = s.verify(appended, "-K", trusted)
    sg = v.get("signature", {})
    if sg.get("status") != "partial" or sg.get("covered") != len(base) or v.get("verdict") == "ok" or rc == 0:
        s.fail("a section appended after the signature: %s %s" % (v.get("verdict"), sg))
    # the untouched log: ok, trusted, whole
    s.checks += 1
    rc, v = s.verify(signed, "-K", trusted)
    sg = v.get("signature", {})
    fp = fingerprint(trusted)
    if v.get("verdict") != "ok" or rc != 0 or sg != {"status": "ok", "key": key, "fingerprint": fp, "trusted": True,
                                                     "covered": len(base), "size": len(base), "trusted_key": fp,
                                                     "trusted_covered": len(base), "id_clash": None,
                                                     "header_signed": True}:
        s.fail("the signed log itself: %s %s" % (v.get("verdict"), sg))
    if not s.line.endswith("; signed by the trusted key %s (fingerprint %s)" % (key, fp)):
        s.fail("the signed log's line does not name the trusted key by its fingerprint: " + s.line)


def pubkey(pub):
    """The 32-byte Ed25519 key of a minisign public key file."""
    return base64.b64decode(open(pub).read().split("\n")[1])[10:42]


def fingerprint(pub):
    """A key's fingerprint, computed here: the first 16 bytes of BLAKE2b-256 of the public key, in hex."""
    return hashlib.blake2b(pubkey(pub), digest_size=32).hexdigest()[:32]


def impostor(s, pub, key, name):
    """NAME.key and NAME.pub: the unencrypted secret key file key rewritten to carry the key id of pub,
    as anyone can (its checksum zeroed, as minisign -G -W leaves it)."""
    pid = base64.b64decode(open(pub).read().split("\n")[1])[2:10]
    lines = open(key).read().split("\n")
    sk = bytearray(base64.b64decode(lines[1]))
    if sk[2:4] != b"\0\0":
        raise SystemExit("forgery.py: %s is encrypted" % key)
    sk[54:62] = pid  # the key id, after the algorithms, the salt and the scrypt limits
    sk[-32:] = bytes(32)
    with open(name + ".key", "w") as f:
        f.write(lines[0] + "\n" + base64.b64encode(bytes(sk)).decode() + "\n")
    return name + ".key"


def import_text(s, name, text):
    """brp import of text (a growing log when it has no 'end'): its bytes."""
    tpath = os.path.join(s.tmp, name + ".txt")
    with open(tpath, "w") as f:
        f.write(text)
    opath = os.path.join(s.tmp, name + ".brp")
    r = run(s.brp, "import", tpath, "-o", opath)
    if r.returncode:
        raise SystemExit("forgery.py: brp import %s: %s" % (name, r.stderr.decode()))
    return open(opath, "rb").read()


def sign(s, name, data, key):
    """data signed by key with brp sign (one signature over all of it): the signed bytes."""
    path = s.write(name, data)
    r = run(s.brp, "sign", "-k", key, path)
    if r.returncode:
        raise SystemExit("forgery.py: brp sign %s: %s" % (name, r.stderr.decode()))
    # the signer named by its public key, as verify names it: the impostor's line differs from the platform's
    signed = open(path, "rb").read()
    pk = sections(signed)[-1][1][74:106]
    want = "%s: signed by key %s (fingerprint %s)" % (path, key_id_text(sections(signed)[-1][1][2:10]),
                                                      hashlib.blake2b(pk, digest_size=32).hexdigest()[:32])
    s.checks += 1
    if r.stdout.decode().strip() != want:
        s.fail("brp sign %s: the line is %r, not %r" % (name, r.stdout.decode().strip(), want))
    return signed


def key_id_text(raw):
    """A key id as minisign and brp write it: the 8 bytes little-endian, in hex without leading zeros."""
    return "%X" % int.from_bytes(raw, "little")


def zigzag(v):
    return v * 2 if v >= 0 else -v * 2 - 1


def expect(s, what, path, trusted, want, want_rc=1):
    """Verify path with -K trusted: every key of want must be in the JSON (a dict: its keys too); the
    verdict and its line are returned for more checks."""
    s.checks += 1
    rc, v = s.verify(path, "-K", trusted)
    print("%-45s %-10s replay %-10s %s" % (what, v.get("verdict"), v.get("replay"), v.get("signature", {}).get("status")))
    for k, w in want.items():
        got = v.get(k, "(absent)")
        if isinstance(w, dict):
            got = {kk: (got or {}).get(kk, "(absent)") for kk in w}
        if got != w:
            s.fail("%s: %s is %r, not %r (%s)" % (what, k, got, w, s.line))
    if rc != want_rc:
        s.fail("%s: exit %d, not %d" % (what, rc, want_rc))
    return v, s.line


def exported(s, what, path, trusted, want_detail, blame):
    """The row of path in brp export -K trusted, SQLite and CSV: the verdict untrusted, the replay's finding
    want_detail, the seat and the decision given only when blame (the finding in trusted bytes)."""
    s.checks += 1
    db, out = os.path.join(s.tmp, "framed.db"), os.path.join(s.tmp, "framed-csv")
    for old in (db, os.path.join(out, "matches.csv")):
        if os.path.exists(old):
            os.remove(old)
    r = run(s.brp, "export", "-q", "--sqlite", db, "-K", trusted, path)
    r2 = run(s.brp, "export", "-q", "--csv", out, "-K", trusted, path)
    if r.returncode or r2.returncode:
        s.fail("%s: brp export -K: exit %d, %d: %s" % (what, r.returncode, r2.returncode, (r.stderr + r2.stderr).decode()))
        return
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    rows = [dict(x) for x in con.execute("SELECT * FROM matches")]
    con.close()
    with open(os.path.join(out, "matches.csv"), newline="") as f:
        rows += [{k: (int(v) if v.lstrip("-").isdigit() else v or None) for k, v in x.items()} for x in csv.DictReader(f)]
    for row, sink in zip(rows, ("SQLite", "CSV")):
        if row["verdict"] != "untrusted" or row["replay"] != "illegal" or row["replay_detail"] != want_detail or \
                (row["verdict_seat"] is not None) or (row["verdict_decision"] is not None):
            s.fail("%s: the %s row blames what it may not, or says another finding: %r" % (
                what, sink, {k: row[k] for k in ("verdict", "replay", "replay_trusted", "replay_detail",
                                                 "verdict_seat", "verdict_decision")}))
        if not blame and ("seat" in row["verdict_detail"] or "seat" in row["replay_detail"]):
            s.fail("%s: the %s row names a seat for bytes no trusted key signed: %r" % (what, sink, row))
    if len(rows) != 2:
        s.fail("%s: %d rows exported, not one in each sink" % (what, len(rows)))


def framing(s, samples, trusted, platform_key, forger_key):
    """Untrusted bytes get no verdict of their own (issue 22, part 1)."""
    key = open(trusted).read().split("\n")[0].rsplit(" ", 1)[1]
    fp = fingerprint(trusted)
    text = open(os.path.join(samples, "disputed", "meld-two-wilds.txt")).read()
    lines = text.splitlines(keepends=True)
    deal2 = lines.index("deal 2\n")
    body = [l for l in lines if l != "end\n"]
    # the platform's signed growing log up to its last signature (the end of deal 1 and its claim)...
    prefix = import_text(s, "prefix", "".join(lines[:deal2]))
    whole = import_text(s, "whole", "".join(body))
    if not whole.startswith(prefix):
        raise SystemExit("forgery.py: the growing log of deal 1 is not a prefix of the one with deal 2")
    signed = sign(s, "prefix-signed.brp", prefix, platform_key)
    # ...and the player's deal 2 appended, unsigned: an illegal meld by seat 1
    path = s.write("framed.brp", signed + whole[len(prefix):])
    v, line = expect(s, "an illegal meld appended unsigned", path, trusted,
                     {"verdict": "untrusted", "replay": "illegal", "deal": 2, "turn": 2, "rule": "meld.wilds",
                      "seat": "(absent)", "decision": "(absent)", "replay_trusted": False,
                      "signature": {"status": "partial", "trusted": False, "trusted_key": fp,
                                    "trusted_covered": len(signed), "covered": len(signed)}})
    want = ("untrusted, unclosed: the trusted key %s (fingerprint %s) signs bytes 0 to %d of %d; no key signs the "
            "rest; in the rest the replay finds illegal: deal 2, turn 2 (meld.wilds)"
            % (key, fp, len(signed), len(signed) + len(whole) - len(prefix)))
    if line != path + ": " + want:
        s.fail("an illegal meld appended unsigned: the line is\n  %s\nnot\n  %s: %s" % (line, path, want))
    for word in ("seat", "2h 2s", "wilds in one meld"):
        if word in line or word in v.get("message", ""):
            s.fail("an illegal meld appended unsigned: the line blames a seat (%r): %s" % (word, line))
    exported(s, "an illegal meld appended unsigned, exported", path, trusted, "deal 2, turn 2 (meld.wilds)", False)
    # a take after the draw appended unsigned: the rule's own message names the seat, which no row may give
    took = import_text(s, "took", "".join(body).replace("2. 1: draw, meld 2c 3c 4c 2h 2s, discard Kh",
                                                          "2. 1: draw, take, discard Kh"))
    if not took.startswith(prefix):
        raise SystemExit("forgery.py: the growing log of deal 1 is not a prefix of the one with the take")
    path = s.write("framed-take.brp", signed + took[len(prefix):])
    v, line = expect(s, "a take after the draw appended unsigned", path, trusted,
                     {"verdict": "untrusted", "replay": "illegal", "deal": 2, "turn": 2, "rule": "turn.already_drew",
                      "seat": "(absent)", "replay_trusted": False})
    if "seat" in line:
        s.fail("a take after the draw appended unsigned: the line blames a seat: " + line)
    exported(s, "a take after the draw appended unsigned, exported", path, trusted,
             "deal 2, turn 2 (turn.already_drew)", False)
    # the illegal meld inside the platform's signature, an unsigned claim after it: the seat is named
    claim = frame("C", varint(2) + varint(zigzag(0)) + varint(zigzag(0)))
    signed_all = sign(s, "whole-signed.brp", whole, platform_key)
    path = s.write("framed-inside.brp", signed_all + claim)
    v, line = expect(s, "an illegal meld signed, a claim appended", path, trusted,
                     {"verdict": "untrusted", "replay": "illegal", "deal": 2, "turn": 2, "seat": 1,
                      "decision": "meld 2c 3c 4c 2h 2s", "rule": "meld.wilds", "replay_trusted": True,
                      "signature": {"status": "partial", "trusted": False, "trusted_covered": len(signed_all)}})
    if "in the trusted bytes the replay finds illegal: deal 2, turn 2, seat 1: meld 2c 3c 4c 2h 2s: meld.wilds:" \
            not in line:
        s.fail("an illegal meld signed, a claim appended: the line does not name the signed decision: " + line)
    exported(s, "an illegal meld signed, a claim appended, exported", path, trusted,
             "ABERTO: 2 wilds in one meld: at most 1 allowed", True)
    # the signed illegal meld alone: the verdict is illegal, trusted
    path = s.write("illegal-signed.brp", signed_all)
    v, line = expect(s, "an illegal meld signed", path, trusted,
                     {"verdict": "illegal", "seat": 1, "replay": "(absent)", "signature": {"trusted": True}})
    # a wrong claim appended, signed by a key that carries the platform's key id
    imp = impostor(s, trusted, forger_key, "impostor")
    wrong = frame("C", varint(1) + varint(zigzag(1540)) + varint(zigzag(480)))
    path = s.write("impostor.brp", sign(s, "impostor.brp", signed + wrong, imp))
    sig = sections(open(path, "rb").read())[-1][1]
    if sig[2:10] != base64.b64decode(open(trusted).read().split("\n")[1])[2:10]:
        s.fail("the impostor's signature does not carry the platform's key id")
    ifp = hashlib.blake2b(sig[74:106], digest_size=32).hexdigest()[:32]
    v, line = expect(s, "a wrong claim signed by an impostor", path, trusted,
                     {"verdict": "untrusted", "replay": "mismatch", "deal": 1, "side": 1, "claimed": 480,
                      "computed": 380, "replay_trusted": False,
                      "signature": {"status": "ok", "key": key, "fingerprint": ifp, "trusted": False,
                                    "trusted_key": fp, "trusted_covered": len(signed), "id_clash": ifp}})
    want = ("the trusted key %s (fingerprint %s) signs bytes 0 to %d of %d; the rest is signed by key %s "
            "(fingerprint %s), which carries the id of a trusted key but is another key; in the rest the "
            "replay finds mismatch: deal 1, side 1: claimed 480, recomputed 380"
            % (key, fp, len(signed), len(signed) + len(wrong) + 112, key, ifp))
    if want not in line:
        s.fail("a wrong claim signed by an impostor: the line is\n  %s\nwithout\n  %s" % (line, want))
    # the whole match with a wrong claim, signed by the impostor alone: no trusted byte at all
    forged = import_text(s, "forged", "".join(lines[:deal2]).replace("claim 1: 1540 380", "claim 1: 1540 480"))
    path = s.write("impostor-all.brp", sign(s, "impostor-all.brp", forged, imp))
    v, line = expect(s, "a forged log signed by an impostor", path, trusted,
                     {"verdict": "untrusted", "replay": "mismatch", "replay_trusted": False,
                      "signature": {"status": "ok", "fingerprint": ifp, "trusted": False, "trusted_key": None,
                                    "trusted_covered": 0, "id_clash": ifp}})
    want = ("untrusted, unclosed: signed by key %s (fingerprint %s), which carries the id of a trusted key but is "
            "another key; the replay finds mismatch: deal 1, side 1: claimed 480, recomputed 380" % (key, ifp))
    if not line.startswith(path + ": " + want):
        s.fail("a forged log signed by an impostor: the line is\n  %s\nnot\n  %s: %s..." % (line, path, want))


def record_killed(s, name, text, key, upto):
    """brp record -k key fed the body of text one line at a time, killed once the line upto (exact) is
    answered: brp answers a line after it has flushed and signed what it recorded, so the growing log holds
    every line up to it and a signature after it. The log's bytes."""
    tags = dict()
    for m in re.finditer(r'^\[(\w+) "([^"]*)"(?: "([^"]*)")?\]$', text, re.M):
        tags.setdefault(m.group(1), []).append((m.group(2), m.group(3)))
    opts = ["--rules", tags["Profile"][0][0], "--players", tags["Players"][0][0],
            "--first-dealer", tags["FirstDealer"][0][0]]
    for rule, value in tags.get("Rule", []):
        opts += ["--set", "%s=%s" % (rule, value)]
    body = [l for l in text.splitlines() if l and not l.startswith("[") and l != "end"]
    log = os.path.join(s.tmp, name)
    p = subprocess.Popen([s.brp, "record", "-o", log, "-k", key] + opts, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    try:
        for line in body:
            p.stdin.write(line + "\n")
            p.stdin.flush()
            answer = p.stdout.readline().strip()
            if answer not in ("ok", "kept"):
                raise SystemExit("forgery.py: brp record answered %r to %r" % (answer, line))
            if line == upto:
                break
        else:
            raise SystemExit("forgery.py: no line %r" % upto)
    finally:
        p.kill()
        p.communicate()
    return open(log, "rb").read()


def stripping(s, samples, signed, key, platform_key):
    """A cut of a signed log does not hide what came after it (issue 22, part 2)."""
    fp = fingerprint("platform.pub")
    data = open(signed, "rb").read()
    if sections(data)[-1][0] != "s":
        raise SystemExit("forgery.py: the signed compact log does not end with its signature")
    path = s.write("stripped.brp", data[:-112])
    s.checks += 1
    rc, v = s.verify(path)
    want = ("untrusted: the header declares the log signed, but no signature is in it: none covers bytes 0 to %d; "
            "the replay finds ok: " % (len(data) - 112))
    print("%-45s %-10s replay %-10s %s" % ("a signed compact log cut before its signature", v.get("verdict"),
                                           v.get("replay"), v.get("signature", {}).get("status")))
    if rc != 1 or v.get("verdict") != "untrusted" or v.get("replay") != "ok" or not v.get("closed") or \
            v.get("signature", {}).get("header_signed") is not True or not s.line.startswith(path + ": " + want):
        s.fail("a signed compact log cut before its signature, without keys: exit %d, %s\n  %s" % (rc, v, s.line))
    # brp stats counts it as untrusted, and fails as brp verify does
    s.checks += 1
    r = run(s.brp, "stats", "--json", path)
    counts = json.loads(r.stdout.decode() or "{}").get("verdicts", {})
    if r.returncode != 1 or counts.get("untrusted") != 1 or counts.get("ok") != 0:
        s.fail("brp stats of a signed compact log cut before its signature: exit %d, %s" % (r.returncode, counts))
    # the growing log of brp record -k, killed once the wrong claim is flushed, cut before that flush's signature
    text = open(os.path.join(samples, "disputed", "claim-deal.txt")).read()
    grown = record_killed(s, "grown.brp", text, platform_key, "claim 2: 675 615")
    secs = sections(grown)
    if [t for t, _, _, _ in secs[-2:]] != ["C", "s"] or secs[-1][3] != len(grown):
        raise SystemExit("forgery.py: the killed recording does not end with the claim's flush: %s"
                         % [t for t, _, _, _ in secs])
    path = s.write("grown-cut.brp", grown[:-112])
    s.checks += 1
    rc, v = s.verify(path)
    claim_at = secs[-2][2]
    want = ("untrusted, unclosed: the header declares the log signed, but no signature covers bytes %d to %d: the "
            "last, by key %s (fingerprint %s), signs bytes 0 to %d; the replay finds mismatch: deal 2, side 1: "
            "claimed 615, recomputed 515" % (claim_at, len(grown) - 112, key, fp, claim_at))
    print("%-45s %-10s replay %-10s %s" % ("a signed growing log cut before its last signature",
                                           v.get("verdict"), v.get("replay"), v.get("signature", {}).get("status")))
    if rc != 1 or v.get("verdict") != "untrusted" or v.get("replay") != "mismatch" or \
            v.get("signature", {}).get("covered") != claim_at or not s.line.startswith(path + ": " + want):
        s.fail("a signed growing log cut before its last signature, without keys: exit %d, %s\n  %s\nnot\n  %s"
               % (rc, v, s.line, want))
    # whole, it is what it is: the wrong claim, signed
    path = s.write("grown.brp", grown)
    s.checks += 1
    rc, v = s.verify(path)
    if rc != 1 or v.get("verdict") != "mismatch" or v.get("signature", {}).get("status") != "ok":
        s.fail("the signed growing log with its wrong claim: exit %d, %s" % (rc, v))


def unclosed(s, samples, trusted, platform_key):
    """A signed prefix cut before a wrong claim: ok, unclosed, and with keys not a success (issue 22, part 2)."""
    text = open(os.path.join(samples, "disputed", "claim-deal.txt")).read()
    lines = text.splitlines(keepends=True)
    cut = lines.index("claim 2: 675 615\n")  # the wrong claim, which the player cuts off with all after it
    killed = record_killed(s, "killed.brp", text, platform_key, lines[cut - 1].rstrip("\n"))
    by_sign = sign(s, "cut.brp", import_text(s, "cut", "".join(lines[:cut])), platform_key)
    for how, data in (("killed before a wrong claim", killed), ("signed by brp sign before a wrong claim", by_sign)):
        path = s.write("cut-before-claim.brp", data)
        v, line = expect(s, how, path, trusted,
                         {"verdict": "ok", "closed": False, "signature": {"status": "ok", "trusted": True}})
        if "ok, unclosed: " not in line or "claims recorded after its last section may be missing" not in line:
            s.fail("%s: the line does not say what may be missing: %s" % (how, line))
        s.checks += 1
        rc, v = s.verify(path)
        if rc != 0 or v.get("verdict") != "ok":
            s.fail("%s, without keys: %s, exit %d" % (how, v.get("verdict"), rc))


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    brp = os.path.abspath(sys.argv[1])
    samples = os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix="brp-forgery.")
    try:
        s = Suite(brp, tmp)
        os.chdir(tmp)
        for k in ("platform", "forger"):
            r = run(brp, "keygen", "-o", k)
            if r.returncode:
                raise SystemExit(r.stderr.decode())
            # the fingerprint to publish with the .pub, said when the key is made
            s.checks += 1
            want = "key %s (fingerprint %s): secret key %s.key (unencrypted), public key %s.pub" % (
                open(k + ".pub").read().split("\n")[0].rsplit(" ", 1)[1], fingerprint(k + ".pub"), k, k)
            if r.stdout.decode().strip() != want:
                s.fail("brp keygen: the line is %r, not %r" % (r.stdout.decode().strip(), want))

        pub = open("platform.pub").read().split("\n")[0]
        key = pub.rsplit(" ", 1)[1]
        r = run(brp, "simulate", "-n", "1", "-p", "4", "-k", "platform.key", "-o", "sim", "-q")
        if r.returncode:
            raise SystemExit(r.stderr.decode())
        signed = os.path.join(tmp, "sim", "match-000001.brp")
        forgery(s, signed, key, "forger.key", "platform.pub")
        framing(s, samples, "platform.pub", "platform.key", "forger.key")
        stripping(s, samples, signed, key, "platform.key")
        unclosed(s, samples, "platform.pub", "platform.key")
        print("%d checks, %d failures" % (s.checks, len(s.failures)))
        return 1 if s.failures else 0
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())
