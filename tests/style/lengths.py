#!/usr/bin/env python3
"""Sizes the code keeps (issue 23; docs/conventions.md, section 6).

Usage: lengths.py SRCROOT
       lengths.py --self

Fails on a file of libreplay/src over 1,300 lines, and on a function of
libreplay/src or tools/brp over 100 lines (its signature's first line to its
closing brace) unless the comment just above it says it "stays whole" and
why: a flat switch or dispatch that reads best as one list. A function is
read as the house style lays it out (clang-format): a definition starts at
column 0 and ends at the first "}" at column 0 after it.
"""
import glob
import os
import re
import sys

FILE_MAX = 1300
FUNC_MAX = 100
DEF = re.compile(r'^[A-Za-z_][A-Za-z0-9_ \*]*\b([A-Za-z_][A-Za-z0-9_]*)\(')


def functions(lines):
    """(name, first line (1-based), length, stays_whole) of each function definition."""
    out = []
    i = 0
    while i < len(lines):
        m = DEF.match(lines[i])
        if not m or lines[i].rstrip().endswith(';') or lines[i].startswith(('typedef', 'struct', 'enum', 'union')):
            i += 1
            continue
        # the signature may run over lines; the body opens with "{" at column 0
        j = i
        while j < len(lines) and not lines[j].startswith('{') and not lines[j].rstrip().endswith(';'):
            j += 1
        if j >= len(lines) or not lines[j].startswith('{'):
            i += 1
            continue
        k = j + 1
        while k < len(lines) and not lines[k].startswith('}'):
            k += 1
        comment = []
        c = i - 1
        while c >= 0 and (lines[c].startswith((' *', '/*')) or lines[c].rstrip().endswith('*/')):
            comment.insert(0, lines[c])
            c -= 1
        whole = 'stays whole' in ' '.join(x.strip(' /*\n') for x in comment)
        out.append((m.group(1), i + 1, k - i + 1, whole))
        i = k + 1
    return out


def check(root):
    faults = []
    for path in sorted(glob.glob(os.path.join(root, 'libreplay', 'src', '**', '*.c'), recursive=True)):
        with open(path, encoding='utf-8') as f:
            lines = f.readlines()
        if len(lines) > FILE_MAX:
            faults.append('%s: %d lines, over %d: cut it along its jobs' % (os.path.relpath(path, root), len(lines),
                                                                            FILE_MAX))
    paths = glob.glob(os.path.join(root, 'libreplay', 'src', '**', '*.c'), recursive=True)
    paths += glob.glob(os.path.join(root, 'tools', 'brp', '*.c'))
    for path in sorted(paths):
        with open(path, encoding='utf-8') as f:
            lines = f.readlines()
        for name, line, length, whole in functions(lines):
            if length > FUNC_MAX and not whole:
                faults.append('%s:%d: %s is %d lines, over %d: cut the parts that have names of their own, or '
                              'say in its comment why it stays whole' % (os.path.relpath(path, root), line, name,
                                                                         length, FUNC_MAX))
    return faults


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        os.makedirs(os.path.join(t, 'libreplay', 'src', 'base'))
        os.makedirs(os.path.join(t, 'tools', 'brp'))
        body = ''.join('\tx++;\n' for _ in range(120))
        with open(os.path.join(t, 'libreplay', 'src', 'base', 'a.c'), 'w') as f:
            f.write('static int longest(int x)\n{\n' + body + '\treturn x;\n}\n')
            f.write('/*\n * A flat switch.\n * It stays whole: one case a kind.\n */\nint whole_one(int x)\n{\n' + body +
                    '\treturn x;\n}\n')
            f.write('int short_one(int x,\n              int y)\n{\n\treturn x + y;\n}\n')
        with open(os.path.join(t, 'libreplay', 'src', 'base', 'b.c'), 'w') as f:
            f.write('int x;\n' * 1301)
        faults = check(t)
        want = ['a.c:1: longest is 124 lines', 'b.c: 1301 lines']
        for w in want:
            if not any(w in x for x in faults):
                print('FAIL: the check misses "%s": %s' % (w, faults))
                return 1
        if len(faults) != 2:
            print('FAIL: the check finds too much: %s' % faults)
            return 1
    print('lengths.py finds a long function, a long file, and lets a function that stays whole be')
    return 0


def main():
    if sys.argv[1:] == ['--self']:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    faults = check(sys.argv[1])
    for x in faults:
        print('FAIL: ' + x)
    if not faults:
        print('no library file over %d lines, no function over %d lines but those that stay whole' % (FILE_MAX,
                                                                                                       FUNC_MAX))
    return 1 if faults else 0


if __name__ == '__main__':
    sys.exit(main())
