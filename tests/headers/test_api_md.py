#!/usr/bin/env python3
"""api_md.py on made-up headers, and on the real ones: every declaration is
in the reference with its code and its comment, the order is libreplay.h's,
the output does not depend on the arguments' order, and --check fails with
the command that rewrites the reference when a header changed."""
import contextlib
import io
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import api_md  # noqa: E402
import doc_check  # noqa: E402

failures = []


def check(what, ok):
    if not ok:
        failures.append(what)


UMBRELLA = """/*
 * The umbrella of a made-up library.
 */
#ifndef U_H
#define U_H
#include "libreplay/b.h"
#include "libreplay/a.h"
#endif
"""

A = """/*
 * Header a: its introduction.
 *
 * Its second paragraph.
 */
#ifndef A_H
#define A_H

/* ---- first part ---- */

/* Limits, one a line. */
#define RPL_A_ONE 1   /* the first */
#define RPL_A_TWO 2   /* the second */
/* The third, whose line has no comment of its own. */
#define RPL_A_THREE 3
#define RPL_A_FOUR 4  /* the fourth */

/* A point. Plain data. */
typedef struct rpl_point {
	int x;        /* across */
	/* a comment of its own line among the fields */
	int y;        /* down */
} rpl_point;

/*
 * Moves p by *d. Returns 0, or RPL_A_TWO when
 * out->x is negative:
 *
 * - a list item
 *   that goes on
 * - another
 *
 *   name   what it does
 *   other  what that does
 */
RPL_API int rpl_point_move(rpl_point *p,
                           const int *d);

#endif
"""

B = """/* Header b. */
#ifndef B_H
#define B_H
RPL_API void rpl_b(void); /* does b */
#endif
"""

with tempfile.TemporaryDirectory() as tmp:
    paths = {}
    for name, text in (('libreplay.h', UMBRELLA), ('a.h', A), ('b.h', B)):
        paths[name] = os.path.join(tmp, name)
        with open(paths[name], 'w', encoding='utf-8') as f:
            f.write(text)
    args = [paths['a.h'], paths['b.h'], paths['libreplay.h']]
    out = api_md.render(args)
    check('the output does not depend on the arguments\' order',
          out == api_md.render(list(reversed(args))))
    check('the regeneration command is at the top', api_md.COMMAND in '\n'.join(out.split('\n')[:12]))
    check('the umbrella\'s comment introduces the reference', 'The umbrella of a made-up library.' in out)
    check('b.h comes before a.h, as libreplay.h includes them',
          0 < out.find('\n## b.h\n') < out.find('\n## a.h\n'))
    check('a header\'s introduction, paragraphs kept',
          'Header a: its introduction.\n\nIts second paragraph.\n' in out)
    check('a separator comment is a heading', '\n### first part\n' in out)
    check('a function: its declaration as in the header, comments removed',
          '```c\nRPL_API int rpl_point_move(rpl_point *p,\n                           const int *d);\n```' in out)
    check('a function: its comment, names as code',
          'Moves p by `*d`. Returns 0, or `RPL_A_TWO` when\n`out->x` is negative:' in out)
    check('a list stays a list', '- a list item\n  that goes on\n- another' in out)
    check('an indented table stays as laid out',
          '```text\n  name   what it does\n  other  what that does\n```' in out)
    check('a struct without its comments',
          '```c\ntypedef struct rpl_point {\n\tint x;\n\tint y;\n} rpl_point;\n```' in out)
    check('a struct\'s field comments, in order',
          '- `int x`: across\n- a comment of its own line among the fields\n- `int y`: down' in out)
    check('a group of macros under one comment, each line\'s comment listed',
          '#### RPL_A_ONE, RPL_A_TWO' in out and '- `RPL_A_ONE 1`: the first\n- `RPL_A_TWO 2`: the second' in out)
    check('the comment above a group whose first line has none is that line\'s',
          '- `RPL_A_THREE 3`: The third, whose line has no comment of its own.\n- `RPL_A_FOUR 4`: the fourth' in out)
    check('a function documented at the end of its line', '- `rpl_b()`: does b' in out)
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', out))
    links = set(re.findall(r'\]\(#([^)]+)\)', out))
    check('every link of the contents has its anchor', links and links <= anchors)
    check('no time stamp', not re.search(r'\b20\d\d-\d\d-\d\d\b', out))

    ref = os.path.join(tmp, 'api.md')
    with open(ref, 'w', encoding='utf-8') as f:
        f.write(out)
    with contextlib.redirect_stdout(io.StringIO()) as said:
        rc = api_md.main(['--check', ref] + args)
    check('--check accepts the reference it wrote (%d: %s)' % (rc, said.getvalue()), rc == 0)
    with open(paths['a.h'], 'w', encoding='utf-8') as f:
        f.write(A.replace('Moves p by', 'Moves the point p by'))
    with contextlib.redirect_stdout(io.StringIO()) as said:
        rc = api_md.main(['--check', ref] + args)
    check('--check refuses a reference older than a header', rc == 1)
    check('... and says the one command that rewrites it',
          said.getvalue() == 'docs/api.md is out of step with the headers; rewrite it: %s\n' % api_md.COMMAND)

# the real headers: every public declaration doc_check.py finds is a heading
inc = os.path.join(HERE, '..', '..', 'libreplay', 'include', 'libreplay')
real = sorted(os.path.join(inc, n) for n in os.listdir(inc) if n.endswith('.h') or n == 'version.h.in')
out = api_md.render(real)
headings = set()
for line in out.split('\n'):
    if line.startswith('#### '):
        headings.update(n.strip() for n in line[5:].split(','))
for path in real:
    with open(path, encoding='utf-8') as f:
        code, _ = doc_check.split_comments(f.read())
    for no, kind, name in doc_check.declarations(code.split('\n')):
        check('%s:%d: %s %s is in the reference' % (os.path.basename(path), no, kind, name), name in headings)

for f in failures:
    print('FAIL: ' + f)
print('%d failures' % len(failures))
sys.exit(1 if failures else 0)
