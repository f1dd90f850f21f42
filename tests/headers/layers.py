#!/usr/bin/env python3
"""No circle between the files of libreplay/src (docs/conventions.md, section 6).

Usage: layers.py NM ARCHIVE

Reads the symbols of each object of the static library with nm: a file
calls another when it uses a symbol the other defines. Fails when some files
call each other round, directly or through others, and prints each circle.
"""
import os
import subprocess
import sys


def graph(nm, archive):
    out = subprocess.run([nm, '-A', archive], capture_output=True, text=True, check=True).stdout
    defined, used = {}, {}
    for line in out.splitlines():
        head, _, rest = line.rpartition(':')
        member = head.split(':')[-1] if ':' in head else head
        fields = rest.split()
        if len(fields) == 3 and fields[1] in 'TDRBC':
            defined[fields[2]] = member
        elif len(fields) == 2 and fields[0] == 'U':
            used.setdefault(member, set()).add(fields[1])
    calls = {}
    for member, symbols in used.items():
        calls[member] = {defined[s] for s in symbols if s in defined and defined[s] != member}
    return calls


def circles(calls):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in calls.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(calls):
        if v not in index:
            visit(v)
    return found


def main(nm, archive):
    calls = graph(nm, archive)
    if not calls:
        print('no objects read from %s' % archive)
        return 1
    bad = circles(calls)
    for comp in bad:
        names = []
        for c in comp:
            n = os.path.basename(c)
            n = n[len('src_'):] if n.startswith('src_') else n
            names.append(n[:-len('.o')] if n.endswith('.o') else n)
        print('these files of libreplay/src call each other round: %s' % ', '.join(names))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
