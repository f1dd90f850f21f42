#!/usr/bin/python3
"""The README's shell examples, run as written (issue 16, item 10).

    readme.py BRP SRCROOT

Every block of README.md fenced as ```console is a transcript: a line that
starts with "$ " is a command (a line ending in a backslash goes on on the
next), the lines after it until the next command are what it prints. The
blocks run in order, in one scratch directory that looks like the top of the
tree after the setup (build/tools/brp the built brp; samples/, tools/ and
examples/ the source tree's), under bash with pipefail. Each command must
exit 0 (an example that shows a failure says so with `; echo "exit $?"`), and
the lines shown must come out, in that order (a line holding "..." stands for
lines left out and is not compared; key ids and fingerprints, which keygen
makes anew, match any key id and any fingerprint). The demo of tools/dev.sh prints each step's command from the very
arguments it runs (its step function), never a label of its own.
"""
import os
import re
import subprocess
import sys
import tempfile

BRP, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def transcripts(text):
    """[(line number, command, [expected lines])] of every ```console block, in order."""
    out, block, lineno = [], None, 0
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if block is None:
            if line.strip() == "```console":
                block = []
            continue
        if line.strip() == "```":
            out += block
            block = None
            continue
        if line.startswith("$ "):
            lineno, cmd = i, line[2:]
            while cmd.endswith("\\") and i < len(lines):
                cmd = cmd[:-1] + " " + lines[i].strip()
                i += 1
            block.append((lineno, cmd, []))
        elif block:
            block[-1][2].append(line)
        else:
            check(False, "README.md:%d: output before any command in a console block" % i)
    check(block is None, "README.md: a console block is not closed")
    return out


def norm(line):
    line = re.sub(r"fingerprint [0-9a-f]{32}\b", "fingerprint FINGERPRINT", line.rstrip())
    return re.sub(r"key [0-9A-F]{1,16}\b", "key KEYID", line)


def main(tmp):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        steps = transcripts(f.read())
    check(len(steps) >= 30, "README.md has only %d commands in console blocks" % len(steps))
    os.makedirs(os.path.join(tmp, "build", "tools"))
    os.symlink(BRP, os.path.join(tmp, "build", "tools", "brp"))
    for d in ("samples", "tools", "examples"):
        os.symlink(os.path.join(ROOT, d), os.path.join(tmp, d))
    env = dict(os.environ, LC_ALL="C", TZ="UTC", HOME=tmp)
    for lineno, cmd, expected in steps:
        p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        got = [norm(l) for l in p.stdout.decode("utf-8", "replace").splitlines()]
        where = "README.md:%d: $ %s" % (lineno, cmd)
        check(p.returncode == 0, "%s: exit %d: %s" % (where, p.returncode, "\n".join(got[-5:])))
        k = 0
        for want in expected:
            if "..." in want or not want.strip():
                continue
            want = norm(want)
            while k < len(got) and got[k] != want:
                k += 1
            if k == len(got):
                check(False, "%s: does not print %r (it printed: %r)" % (where, want, got[:8]))
                break
            k += 1
    print("%d README commands run" % len(steps))

    # the demo's labels come from what it runs
    with open(os.path.join(ROOT, "tools", "dev.sh"), encoding="utf-8") as f:
        dev = f.read()
    demo = dev[dev.index("\ndemo() {"):dev.index("\n}\n", dev.index("\ndemo() {"))]
    labels = [l.strip() for l in demo.splitlines() if re.search(r'echo "\\\$ ', l)]
    check(not labels, "tools/dev.sh demo prints labels of its own: %r" % labels)
    check("step " in demo, "tools/dev.sh demo has no step")
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("every README example runs as written")
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="brp-readme.") as tmp:
        sys.exit(main(tmp))
