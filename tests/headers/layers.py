#!/usr/bin/env python3
"""The layers of libreplay/src: its folders and its files (docs/conventions.md, section 6).

Usage: layers.py NM ARCHIVE [SRCDIR]

Reads the symbols of each object of the static library with nm: a file
calls another when it uses a symbol the other defines (a static inline
function of a header counts for the file that includes it). Fails when some
files call each other round, directly or through others, and prints each
circle; and when a file calls a file of a folder above its own (FOLDERS,
lowest first: a file calls only its own folder and the folders below it).

With SRCDIR (libreplay/src), also reads the sources: a file that is not in
one of FOLDERS, or that includes a private header of a folder above its own
("rules/game_impl.h" from base/), fails; and the rooms cut in several
files: a private header SRCDIR/FOLDER/*_impl.h whose first comment lists its
files in order (lines " *   name.c   what it holds"). Fails when a file
calls one listed after it, or when a listed file is not in the library.
"""
import glob
import os
import re
import subprocess
import sys


# The folders of libreplay/src, lowest first: each may call its own and those before it.
FOLDERS = ('base', 'rules', 'log', 'verify', 'notation', 'play', 'analysis', 'export')


def split(member):
    """('log', 'codec_rc.c') for the archive member src_log_codec_rc.c.o; (None, NAME) outside a folder."""
    n = os.path.basename(member)
    n = n[len('src_'):] if n.startswith('src_') else n
    n = n[:-len('.o')] if n.endswith('.o') else n
    for folder in FOLDERS:
        if n.startswith(folder + '_'):
            return folder, n[len(folder) + 1:]
    return None, n


def name(member):
    """codec_rc.c for the archive member src_log_codec_rc.c.o (or src_codec_rc.c.o)."""
    return split(member)[1]


def folder_faults(calls):
    """Each call from a file to a file of a higher folder, and each file outside the folders."""
    faults, outside = [], set()
    for member, callees in sorted(calls.items()):
        fa, na = split(member)
        if fa is None:
            outside.add(na)
            continue
        for c in sorted(callees):
            fb, nb = split(c)
            if fb is None:
                outside.add(nb)
            elif FOLDERS.index(fb) > FOLDERS.index(fa):
                faults.append('%s/%s calls %s/%s: %s is above %s' % (fa, na, fb, nb, fb, fa))
    faults += ['%s is in no folder of libreplay/src' % n for n in sorted(outside)]
    return faults


def include_faults(srcdir):
    """Each source of srcdir in no folder, and each include of a private header of a higher folder."""
    faults = []
    for path in sorted(glob.glob(os.path.join(srcdir, '*.[ch]'))):
        faults.append('%s is in no folder of libreplay/src' % os.path.basename(path))
    for folder in FOLDERS:
        for path in sorted(glob.glob(os.path.join(srcdir, folder, '*.[ch]'))):
            with open(path, encoding='utf-8') as f:
                for m in re.finditer(r'^#include "(\w+)/(\w+\.h)"', f.read(), re.M):
                    fb = m.group(1)
                    if fb == 'libreplay':
                        continue  # a public header: any layer may include the API's declarations
                    if fb not in FOLDERS:
                        faults.append('%s/%s includes %s/%s: no such folder' % (folder, os.path.basename(path),
                                                                             fb, m.group(2)))
                    elif FOLDERS.index(fb) > FOLDERS.index(folder):
                        faults.append('%s/%s includes %s/%s: %s is above %s' % (folder, os.path.basename(path),
                                                                             fb, m.group(2), fb, folder))
    return faults


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


def rooms(srcdir):
    """(header, [file, ...]) for each private header that lists its room's files in its first comment."""
    found = []
    for h in sorted(glob.glob(os.path.join(srcdir, '*_impl.h')) + glob.glob(os.path.join(srcdir, '*', '*_impl.h'))):
        with open(h, encoding='utf-8') as f:
            m = re.match(r'\s*/\*(.*?)\*/', f.read(), re.S)
        files = re.findall(r'^\s*\*\s{2,}(\w+\.c)\s', m.group(1), re.M) if m else []
        if files:
            found.append((os.path.basename(h), files))
    return found


def order_faults(calls, room_list):
    """What breaks a room's order: a call to a file listed later, a listed file the library lacks."""
    named = {name(m): {name(c) for c in cs} for m, cs in calls.items()}
    known = set(named) | {c for cs in named.values() for c in cs}
    faults = []
    for header, files in room_list:
        for i, f in enumerate(files):
            if f not in known:
                faults.append('%s lists %s, which is not in the library' % (header, f))
                continue
            for later in files[i + 1:]:
                if later in named.get(f, ()):
                    faults.append('%s calls %s, which %s lists after it' % (f, later, header))
    return faults


def main(nm, archive, srcdir=None):
    calls = graph(nm, archive)
    if not calls:
        print('no objects read from %s' % archive)
        return 1
    bad = circles(calls)
    for comp in bad:
        print('these files of libreplay/src call each other round: %s' % ', '.join(name(c) for c in comp))
    faults = folder_faults(calls)
    if srcdir:
        faults += include_faults(srcdir) + order_faults(calls, rooms(srcdir))
    for f in faults:
        print(f)
    return 1 if bad or faults else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:4]))
