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
charts are the director's. Those seat
pages carry a review (brp view --review, brp review --json at strength 2):
the page holds only that seat's reviewed decisions and summary, and each
better decision names only cards of the seat's hand before it; the
director's page has every marked decision and each seat's accuracy in its
summary, outside any script, and is the page --review-strength 2 makes; the
review of an illegal log is shown, a file reviewing a damaged log refused.
The default output name, -o -, and the page of a log that is not a log.
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


CARD = re.compile(r'^(?:A|[2-9]|10|J|Q|K)[cdhs]$|^JK$')
ALPHA = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz*'


def card_name(ch):
    i = ALPHA.index(ch)
    return 'JK' if i == 52 else ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'][i % 13] + 'cdhs'[i // 13]


def review_lines(path, rfile):
    """brp review --json at strength 2 into rfile: the header, the decisions and the match's summaries."""
    p = run('review', '--strength', '2', '--json', path)
    with open(rfile, 'w') as f:
        f.write(p.stdout)
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    return rows[0], [r for r in rows if 'played' in r], [r for r in rows if r.get('summary') and r['deal'] is None]


def review_summary(name, outside, decisions, summaries, seat=-1):
    """The summary's review, without the script: each seat's accuracy, every marked decision, no other seat's."""
    got = re.findall(r'<tr data-seat="(\d)" data-accuracy="([\d.]+)" data-match-rate="([\d.]+)">', outside)
    want = [(str(r['seat']), '%.1f' % r['accuracy'], '%.1f' % r['match_rate']) for r in summaries
            if seat < 0 or r['seat'] == seat]
    check(got == want, '%s: the review\'s seats %s, brp review %s' % (name, got, want))
    got = re.findall(r'<tr class="rv rv-(\w+)" data-deal="(\d+)" data-turn="(\d+)" data-decision="(\d+)" '
                     r'data-seat="(\d)">', outside)
    want = [(r['class'], str(r['deal']), str(r['turn']), str(r['decision']), str(r['seat'])) for r in decisions
            if r['class'] and (seat < 0 or r['seat'] == seat)]
    check(got == want, '%s: the marked decisions %s, brp review %s' % (name, got[:3], want[:3]))


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
        rfile = os.path.join(tmp, 'review.json')
        header, decisions, summaries = review_lines(path, rfile)
        check(header['match_id'] == json.loads(run('verify', '--json', path).stdout)['match_id'],
              log + ': brp review --json does not name the match')
        director = run('view', '--review', rfile, '-o', '-', path).stdout
        if log in ('kzv-4p.brp', 'stbl-2p.brp'):  # the review made here is brp review's
            check(director == run('view', '--review-strength', '2', '-o', '-', path).stdout,
                  log + ': --review-strength 2 and --review of brp review --strength 2 differ')
        data, outside = parts(director)
        full = positions(data)
        review_summary(log, outside, decisions, summaries)
        check(len(data['review']['rows']) == len(decisions), log + ': not every reviewed decision in the data')
        for row, d in zip(data['review']['rows'], decisions):
            q = full[row[0]]
            check((q['d'], q['t'], q['n'], q['s'], q['a']) == (d['deal'], d['turn'], d['decision'], d['seat'],
                                                                d['played']),
                  '%s: review row %s at position %s' % (log, d, (q['d'], q['t'], q['n'])))
            check(row[1:] == ([] if d['best'] == d['played'] else
                              [{None: 0, 'inaccuracy': 1, 'mistake': 2, 'blunder': 3}[d['class']],
                               int(d['class_uncertain']), d['best'], d['loss'], d['se'], d['accuracy']]),
                  '%s: review row %s, brp review %s' % (log, row, d))
        for seat in range(n):
            p = run('view', '--seat', str(seat), '--review', rfile, '-o', '-', path)
            check(p.returncode == 0, '%s --seat %d: exit %d' % (log, seat, p.returncode))
            self_contained(log, p.stdout)
            # the course charts draw public numbers only (melds on the table, totals of deals ended)
            check(course(p.stdout) and course(p.stdout) == course(director),
                  '%s --seat %d: the course charts differ from the director\'s' % (log, seat))
            data, outside = parts(p.stdout)
            check(data['seat'] == seat, log + ': the page does not say its seat')
            review_summary('%s --seat %d' % (log, seat), outside, decisions, summaries, seat)
            mine = [d for d in decisions if d['seat'] == seat]
            check(len(data['review']['rows']) == len(mine), '%s --seat %d: %d review rows, the seat has %d' %
                  (log, seat, len(data['review']['rows']), len(mine)))
            for row in data['review']['rows']:
                before = full[row[0] - 1]['h%d' % seat]  # the seat's hand before its decision
                check(full[row[0]]['s'] == seat, '%s --seat %d: a review row of seat %d' % (log, seat,
                                                                                           full[row[0]]['s']))
                if len(row) > 1:
                    named = [w for w in row[3].split() if CARD.match(w)]
                    hand = [card_name(c) for c in before]
                    check(all(named.count(c) <= hand.count(c) for c in named),
                          '%s --seat %d: the better decision %s names a card not in hand %s' % (log, seat, row[3],
                                                                                               hand))
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
    # a review of an illegal log (its last line, the verdict, is long); of a damaged log, which has no
    # identity to match a file to: refused, and made here instead
    for log, rc in (('disputed/dead-end.brp', 0), ('disputed/damaged-byte.brp', 3)):
        path, rfile = os.path.join(ROOT, 'samples', log), os.path.join(tmp, 'review.json')
        review_lines(path, rfile)
        p = run('view', '--review', rfile, '-o', '-', path)
        check(p.returncode == rc and (rc == 0 or 'no match identity' in p.stderr),
              '%s --review: exit %d %s' % (log, p.returncode, p.stderr))
        p = run('view', '--review-strength', '2', '-o', '-', path)
        check(p.returncode == 0 and 'id="review-seats"' in p.stdout, '%s --review-strength 2: exit %d %s' %
              (log, p.returncode, p.stderr))
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
