#!/usr/bin/python3
"""brp record at a keyboard, through a pseudo-terminal (issue 16, item 9).

    record_tty.py BRP SRCROOT

With standard input a terminal, brp record prompts on stderr before each line
with whose turn it is and what the game waits for; a bad card in a deal block
keeps the block's earlier lines and says so; Ctrl-D closes the log. The same
lines piped get their answers with no prompt at all. Nothing here depends on
how long anything takes (the waits only guard against a hang).
"""
import os
import pty
import re
import select
import subprocess
import sys
import tempfile

BRP, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
ENV = dict(os.environ, LC_ALL="C", TZ="UTC")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


class Terminal:
    """brp record with its standard input, output and error on one pseudo-terminal."""

    def __init__(self, args):
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen([BRP] + args, stdin=slave, stdout=slave, stderr=slave, env=ENV,
                                     close_fds=True)
        os.close(slave)
        self.seen = ""

    def until(self, pattern, what):
        """Read until pattern matches what came since the last call; return that text."""
        buf = ""
        while not re.search(pattern, buf):
            ready, _, _ = select.select([self.master], [], [], 60)
            if not ready:
                check(False, "%s: no %r after 60 s; got %r" % (what, pattern, buf[-300:]))
                return buf
            try:
                chunk = os.read(self.master, 4096).decode("utf-8", "replace")
            except OSError:  # the other end closed
                chunk = ""
            if not chunk:
                check(False, "%s: the output ended before %r; got %r" % (what, pattern, buf[-300:]))
                return buf
            buf += chunk.replace("\r\n", "\n")
        self.seen += buf
        return buf

    def send(self, line):
        os.write(self.master, (line + "\n").encode())


def main():
    with open(os.path.join(ROOT, "samples", "short-stbl.txt"), encoding="utf-8") as f:
        text = f.read().splitlines()
    block = text[text.index("deal 1"):text.index("deal 1") + 8]  # deal, 4 hands, 2 mortos, stock
    check(block[-1].startswith("stock:"), "short-stbl.txt's block: %r" % block[-1])
    bad_hand1 = re.sub(r"\S+$", "Xs", block[2])  # hand 1 with its last card not a card

    t = Terminal(["record", "-o", "x.brp", "--seat", "2=Caio"])
    out = t.until(r"> $", "the first prompt")
    check("recording into x.brp" in out, "no banner: %r" % out)
    check(out.endswith("'deal 1', then a hand line a seat, 'morto 0:', 'morto 1:', 'stock:'> "),
          "first prompt: %r" % out[-120:])
    t.send(block[0])
    out = t.until(r"> $", "after deal 1")
    check("kept\n" in out and out.endswith("deal 1, deal block: 'hand 0:' next> "), "after deal 1: %r" % out)
    t.send(block[1])
    out = t.until(r"> $", "after hand 0")
    check(out.endswith("deal 1, deal block: 'hand 1:' next> "), "after hand 0: %r" % out)

    # one bad card: the block keeps what it had, and says which line it wants
    t.send(bad_hand1)
    out = t.until(r"> $", "after a bad card")
    check("error: line 3, column" in out and "not a card: 'Xs'" in out
          and "deal 1's block keeps lines 1-2; next: 'hand 1:'" in out, "bad card's answer: %r" % out)
    check(out.endswith("deal 1, deal block: 'hand 1:' next> "), "after the bad card: %r" % out[-80:])
    for line in block[2:7]:
        t.send(line)
        t.until(r"> $", "a block line")
    t.send(block[7])
    out = t.until(r"> $", "after the stock")
    check("ok\n" in out and out.endswith("deal 1, turn 1: seat 0 to draw or take the pile> "),
          "after the stock: %r" % out)

    # whose turn, and the phase within it
    t.send("1. 0: draw")
    out = t.until(r"> $", "after a draw")
    check(out.endswith("deal 1, turn 1: seat 0 to meld, add or discard> "), "after the draw: %r" % out)
    t.send("1. 0: meld 5h 6h 7h, discard Kc")
    out = t.until(r"> $", "after turn 1")
    check(out.endswith("deal 1, turn 2: seat 1 to draw or take the pile> "), "after turn 1: %r" % out)
    t.send("2. 1: draw, discard 9s")
    out = t.until(r"> $", "after turn 2")
    check(out.endswith("deal 1, turn 3: seat 2 (Caio) to draw or take the pile> "), "after turn 2: %r" % out)
    t.send("3. 2: take, discard AA")
    out = t.until(r"> $", "after a syntax error")
    check("error: line 13, column 21: not a card" in out and out.endswith("seat 2 (Caio) to draw or take the pile> "),
          "after a syntax error: %r" % out)

    os.write(t.master, b"\x04")  # Ctrl-D: the end of the input
    rc = t.proc.wait(timeout=60)
    os.close(t.master)
    check(rc == 1, "exit %d after a line not taken, not 1" % rc)
    v = subprocess.run([BRP, "verify", "x.brp"], stdout=subprocess.PIPE, env=ENV).stdout.decode()
    check(v.startswith("x.brp: incomplete: the log stops in deal 1 after turn 2"), "verify: %r" % v)

    # the same lines piped: answers only, no prompt, no banner
    lines = [block[0], block[1], bad_hand1] + block[2:8] + ["1. 0: draw", "1. 0: meld 5h 6h 7h, discard Kc"]
    p = subprocess.run([BRP, "record", "-o", "y.brp"], input=("\n".join(lines) + "\n").encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    check(p.stderr == b"", "piped: stderr %r" % p.stderr[:200])
    answers = p.stdout.decode().splitlines()
    check(len(answers) == len(lines) and answers[:2] == ["kept", "kept"] and answers[2].startswith("error: ")
          and answers[-2:] == ["ok", "ok"], "piped answers: %r" % answers)

    if failures:
        print("%d failures" % len(failures))
        return 1
    print("brp record at a terminal prompts, keeps the block, closes on Ctrl-D; piped, it answers only")
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="brp-tty.") as tmp:
        os.chdir(tmp)
        sys.exit(main())
