#!/usr/bin/env python3
"""brp view's pages, read as files (no browser): view_check.py BRP SRCROOT

For every sample: the page is one self-contained file (a Content-Security-Policy
that allows no fetch; no src, href but to a fragment, url() or @import that could reach out); the
summary, outside any script, holds the verdict line exactly as brp verify
prints it, one row a deal and the damage offset of a malformed log; the
embedded positions are as many as brp show can select, each at the deal, turn
and decision brp show --json gives. For every seat of the 4- and 2-player
samples, a --seat page holds no other seat's hand, no pile card beyond the
ones the profile shows, and no moved card into another hand, and its course
charts are the director's. The default
output name, -o -, and the page of a log that is not a log.
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

BRP, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
ENV = dict(os.environ, LC_ALL='C', TZ='UTC')
bad = []


def check(cond, what):
    if not cond:
        bad.append(what)
        print('FAIL: ' + what)


def run(*args, cwd=None):
    return subprocess.run([BRP] + list(args), capture_output=True, text=True, env=ENV, cwd=cwd)


def parts(text):
    m = re.search(r'<script type="application/json" id="brp-data">\n(.*?)</script>', text, re.S)
    data = json.loads(m.group(1))
    outside = re.sub(r'<script.*?</script>', '', text, flags=re.S)
    outside = re.sub(r'<style>.*?</style>', '', outside, flags=re.S)
    return data, outside


def positions(data):
    out, prev = [], {}
    for r in data['positions']:
        prev = dict(prev, **r)
        out.append(prev)
    return out


def course(text):
    """The page's course charts (docs/view.md, "The match's course"), as written."""
    m = re.search(r'<section id="course".*?</section>', text, re.S)
    return m.group(0) if m else None


def self_contained(name, text):
    check("default-src 'none'" in text, name + ': no Content-Security-Policy that forbids fetching')
    for pat in (r'\ssrc\s*=', r'\shref\s*=\s*"(?!#)', r'url\(', r'@import', r'https?://', r'fetch\(', r'XMLHttpRequest',
                r'WebSocket', r'\bimport\('):
        check(not re.search(pat, text), '%s: %s in the page' % (name, pat))


tmp = tempfile.mkdtemp(prefix='brp-view-check-')
try:
    logs = []
    for d, _, files in os.walk(os.path.join(ROOT, 'samples')):
        logs += [os.path.join(d, f) for f in sorted(files) if f.endswith('.brp')]
    for log in sorted(logs):
        name = os.path.relpath(log, ROOT)
        out = os.path.join(tmp, 'page.html')
        p = run('view', '-o', out, log)
        if name.endswith('not-a-log.brp'):  # not a log at all: no page, one line and exit 3
            check(p.returncode == 3 and 'not a .brp match log' in p.stderr,
                  '%s: exit %d %s' % (name, p.returncode, p.stderr))
            continue
        check(p.returncode == 0 and p.stdout == '' and p.stderr == '', '%s: exit %d %s' % (name, p.returncode, p.stderr))
        text = open(out, encoding='utf-8').read()
        self_contained(name, text)
        data, outside = parts(text)
        line = run('verify', log).stdout.rstrip('\n')
        check(line == log + ': ' + data['line'], '%s: page line %r, verify %r' % (name, data['line'], line))
        check(html.escape(data['line'], quote=True).replace('&#x27;', '&#39;') in outside,
              name + ': the verdict line is not in the summary')
        vj = json.loads(run('verify', '--json', log).stdout)
        if vj['verdict'] == 'malformed':
            check('damaged at byte %d' % vj['offset'] in outside, name + ': the summary does not say the byte')
        ps = positions(data)
        deals = sorted({p['d'] for p in ps})
        check(len(re.findall(r'<tr data-deal="\d+">', outside)) == len(deals), name + ': not one summary row a deal')
        for p in ps[:3] + ps[-3:]:
            args = ['show', '--json', '-d', str(p['d']), '-t', str(p['t'])] + (['-D', str(p['n'])] if p['t'] else [])
            j = json.loads(run(*(args + [log])).stdout)
            check((j['deal'], j['turn'], j['decision'], j['kind']) == (p['d'], p['t'], p['n'],
                                                                       ['dealt', 'decision', 'refused'][p['k']]),
                  '%s: position %s, show %s' % (name, (p['d'], p['t'], p['n']), (j['deal'], j['turn'], j['decision'])))
    # seat pages
    for log, n in (('stbl-4p.brp', 4), ('stbl-2p.brp', 2), ('kzv-4p.brp', 4), ('aberto-4p.brp', 4),
                   ('disputed/meld-two-wilds.brp', 4)):
        path = os.path.join(ROOT, 'samples', log)
        director = run('view', '-o', '-', path).stdout
        full = positions(parts(director)[0])
        for seat in range(n):
            p = run('view', '--seat', str(seat), '-o', '-', path)
            check(p.returncode == 0, '%s --seat %d: exit %d' % (log, seat, p.returncode))
            self_contained(log, p.stdout)
            # the course charts draw public numbers only (melds on the table, totals of deals ended)
            check(course(p.stdout) and course(p.stdout) == course(director),
                  '%s --seat %d: the course charts differ from the director\'s' % (log, seat))
            data = parts(p.stdout)[0]
            check(data['seat'] == seat, log + ': the page does not say its seat')
            prev = {}
            for i, r in enumerate(data['positions']):
                prev = dict(prev, **r)
                for s in range(n):
                    if s != seat:
                        check(not isinstance(r.get('h%d' % s, 0), str),
                              '%s --seat %d: hand %d at position %d' % (log, seat, s, i))
                pile = prev['p']
                check(len(pile) == prev['c'][1] and full[i]['p'].endswith(pile),
                      '%s --seat %d: pile %r at position %d' % (log, seat, pile, i))
                if 'stbl' in log:
                    check(len(pile) <= 1, '%s --seat %d: STBL shows the top card only' % (log, seat))
                check(prev['h%d' % seat] == full[i]['h%d' % seat], '%s --seat %d: own hand' % (log, seat))
                over = prev['g'][0] >= 4
                check(all((sc[3] is None and sc[5] is None) != over for sc in prev['sc']),
                      '%s --seat %d: the points left in the hands during the deal at %d' % (log, seat, i))
                for m in r.get('mv', []):
                    check(m[0] != 2 or m[1] == seat, '%s --seat %d: a card into hand %d' % (log, seat, m[1]))
    # the default output name, and standard output
    shutil.copy(os.path.join(ROOT, 'samples', 'stbl-2p.brp'), tmp)
    p = run('view', 'stbl-2p.brp', cwd=tmp)
    check(p.returncode == 0 and os.path.exists(os.path.join(tmp, 'stbl-2p.html')), 'default output: not stbl-2p.html')
    check(open(os.path.join(tmp, 'stbl-2p.html'), encoding='utf-8').read() ==
          run('view', '-o', '-', os.path.join(tmp, 'stbl-2p.brp')).stdout.replace(tmp + '/', ''),
          'the page on standard output differs from the file')
finally:
    shutil.rmtree(tmp, ignore_errors=True)
if bad:
    print('%d failures' % len(bad))
    sys.exit(1)
print('ok')
