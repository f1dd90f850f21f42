#!/usr/bin/env python3
"""Forged and truncated signed logs (issue 14).

    forgery.py BRP

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
Every truncation of a signed log is tested in tests/unit/test_sign.c (in
process: thousands of cuts).
"""
import json
import os
import re
import shutil
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
    """The (type, payload, offset, end) of every whole section, up to the first bad frame."""
    out, pos = [], 8
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
        if pos + length + 4 > len(data):
            return out
        payload = data[pos : pos + length]
        crc = int.from_bytes(data[pos + length : pos + length + 4], "little")
        if crc != zlib.crc32(data[start : pos + length]):
            return out
        pos += length + 4
        out.append((chr(t), payload, start, pos))
    return out


def frame(t, payload):
    head = bytes([ord(t)]) + varint(len(payload))
    return head + payload + zlib.crc32(head + payload).to_bytes(4, "little")


def build(secs):
    return MAGIC + b"".join(frame(t, p) for t, p in secs)


class Suite:
    def __init__(self, brp, tmp):
        self.brp, self.tmp, self.failures, self.checks = brp, tmp, [], 0

    def verify(self, path, *extra):
        r = run(self.brp, "verify", "--json", *extra, path)
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
    flagged[e_index] = ("E", b"\x01")
    forged["the recovered flag"] = flagged
    claims = [i for i, (t, _) in enumerate(body) if t == "C"]
    forged["a section dropped (a claim)"] = [x for i, x in enumerate(body) if i != claims[0]]
    deals = [i for i, (t, _) in enumerate(body) if t == "D"]
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
    if v.get("verdict") != "ok" or rc != 0 or sg != {"status": "ok", "key": key, "trusted": True,
                                                     "covered": len(base), "size": len(base)}:
        s.fail("the signed log itself: %s %s" % (v.get("verdict"), sg))


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    brp = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="brp-forgery.")
    try:
        s = Suite(brp, tmp)
        os.chdir(tmp)
        for k in ("platform", "forger"):
            r = run(brp, "keygen", "-o", k)
            if r.returncode:
                raise SystemExit(r.stderr.decode())

        pub = open("platform.pub").read().split("\n")[0]
        key = pub.rsplit(" ", 1)[1]
        r = run(brp, "simulate", "-n", "1", "-p", "4", "-k", "platform.key", "-o", "sim", "-q")
        if r.returncode:
            raise SystemExit(r.stderr.decode())
        signed = os.path.join(tmp, "sim", "match-000001.brp")
        forgery(s, signed, key, "forger.key", "platform.pub")
        print("%d checks, %d failures" % (s.checks, len(s.failures)))
        return 1 if s.failures else 0
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())
