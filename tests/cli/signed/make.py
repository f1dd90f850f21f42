#!/usr/bin/env python3
"""The signed growing log of the recover-signed golden cases: make.py BRP OUTDIR

A recording of samples/stbl-2p.txt by `brp record -k` (a new key each time,
so every run makes other bytes: the golden cases are made again with it),
copied after brp record had answered its first 30 turn lines (each flush
signed), then cut 20 bytes short: the file ends inside the signature of the
last flush, so that flush's sections are whole but no signature covers them,
as a recording killed while it wrote its signature leaves them. Writes
OUTDIR/growing-cut.brp and OUTDIR/signer.pub (the secret key is dropped).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    brp, out = os.path.abspath(sys.argv[1]), sys.argv[2]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    text = open(os.path.join(root, "samples", "stbl-2p.txt")).read()
    tags = {}
    for m in re.finditer(r'^\[(\w+) "([^"]*)"(?: "([^"]*)")?\]$', text, re.M):
        tags.setdefault(m.group(1), []).append((m.group(2), m.group(3)))
    opts = ["--rules", tags["Profile"][0][0], "--players", tags["Players"][0][0],
            "--first-dealer", tags["FirstDealer"][0][0]]
    for name, value in tags.get("Rule", []):
        opts += ["--set", "%s=%s" % (name, value)]
    body = [l for l in text.splitlines() if l and not l.startswith("[") and l != "end"]
    with tempfile.TemporaryDirectory(prefix="brp-signed.") as tmp:
        subprocess.run([brp, "keygen", "-o", tmp + "/signer"], check=True, capture_output=True)
        log = tmp + "/rec.brp"
        p = subprocess.Popen([brp, "record", "-k", tmp + "/signer.key", "-o", log] + opts, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, bufsize=1)
        turns = 0
        for line in body:
            p.stdin.write(line + "\n")
            p.stdin.flush()
            answer = p.stdout.readline().strip()
            if answer not in ("ok", "kept"):
                raise SystemExit("make.py: %r answered %r" % (line, answer))
            turns += bool(re.match(r"^\d+\. ", line))
            if turns == 30:
                break
        data = open(log, "rb").read()  # the growing form, every flush signed
        p.stdin.close()
        p.wait()
        os.makedirs(out, exist_ok=True)
        open(os.path.join(out, "growing-cut.brp"), "wb").write(data[:-20])
        shutil.copy(tmp + "/signer.pub", os.path.join(out, "signer.pub"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
