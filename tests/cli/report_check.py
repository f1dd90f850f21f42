#!/usr/bin/env python3
"""brp report's page and JSON, read as files (no browser): report_check.py BRP SRCROOT

On the samples: the JSON's whole-corpus figures are brp stats --json's, each
profile and table size's figures are brp stats --json's on that group's logs,
and the groups add up to the whole; the JSON and the page are the same
whatever -j. The page is one self-contained file (a Content-Security-Policy
that allows no request and no script, no script element, no src, no url(),
no link but to a fragment or to a brp view page beside a disputed log);
every chart is an <svg role="img"> labelled by its <title> and <desc>, with
two axes, tick labels and axis titles, and its figures as a table. A log
whose path holds markup is written escaped; a disputed log with a page
beside it is linked to it, relatively; past 100 disputed logs the rest are
counted, not listed; when no log can be read, no page is written.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser

BRP, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
ENV = dict(os.environ, LC_ALL='C', TZ='UTC')
SAMPLES = os.path.join(ROOT, 'samples')
bad = []


def check(cond, what):
    if not cond:
        bad.append(what)
        print('FAIL: ' + what)
    return cond


def run(*args, cwd=None):
    return subprocess.run([BRP] + list(args), capture_output=True, text=True, env=ENV, cwd=cwd)


class Page(HTMLParser):
    """The elements of a page, as (tag, attrs, text inside) of every svg and what it holds."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.svgs, self.ids, self.links, self.tags = [], [], {}, [], set()
        self.text_of = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if 'id' in a:
            self.ids[a['id']] = tag
        if tag == 'a' and 'href' in a:
            self.links.append(a['href'])
        if tag == 'svg':
            self.svgs.append({'attrs': a, 'titles': [], 'desc': [], 'groups': {}, 'texts': [], 'lines': 0, 'rects': 0})
        svg = self.svgs[-1] if self.svgs and 'svg' in self.stack else None
        if svg is not None:
            if tag == 'g':
                svg['groups'][a.get('class', '')] = {'lines': 0, 'texts': []}
                svg['group'] = a.get('class', '')
            if tag == 'line':
                svg['lines'] += 1
                if svg.get('group'):
                    svg['groups'][svg['group']]['lines'] += 1
            if tag == 'rect':
                svg['rects'] += 1
        self.stack.append(tag)
        self.text_of = (tag, a)

    def handle_endtag(self, tag):
        while self.stack:
            t = self.stack.pop()
            if t == tag:
                break
        if tag == 'g' and self.svgs:
            self.svgs[-1]['group'] = None

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_data(self, data):
        if not self.svgs or 'svg' not in self.stack or not data.strip():
            return
        svg = self.svgs[-1]
        tag, a = self.text_of
        if self.stack[-1] == 'title' and self.stack[-2] == 'svg':
            svg['titles'].append((a.get('id'), data))
        elif self.stack[-1] == 'desc':
            svg['desc'].append((a.get('id'), data))
        elif self.stack[-1] == 'text' and svg.get('group'):
            svg['groups'][svg['group']]['texts'].append((a.get('class'), data))


def report(*args, cwd=None):
    p = run('report', *args, cwd=cwd)
    return p


def main():
    tmp = tempfile.mkdtemp(prefix='brp-report.')
    try:
        # the figures: brp stats' own, and the same whatever -j
        st = json.loads(run('stats', '--json', SAMPLES).stdout)
        one = report('--json', SAMPLES)
        check(one.returncode == 3, 'report of the samples exits 3 (malformed samples), not %d' % one.returncode)
        rep = json.loads(one.stdout)
        check(rep['stats'] == st, 'report --json stats differ from brp stats --json')
        three = report('--json', '-j', '3', SAMPLES)
        check(three.stdout == one.stdout, 'report --json differs between -j 1 and -j 3')
        ok = 0
        sums = {}
        for g in rep['groups']:
            ok += g['stats']['matches']
            check(sum(g['wins_by_side']['matches_won']) + g['no_winner'] == g['stats']['matches'],
                  '%s %d: the wins by side do not add up to the matches' % (g['profile'], g['players']))
            check(sum(g['wins_by_seat']['matches_won']) == sum(g['wins_by_side']['matches_won']) * g['players'] // 2,
                  '%s %d: the wins by seat are not the side wins of each seat' % (g['profile'], g['players']))
            check(sum(g['wins_by_seat']['deals_gone_out']) == sum(g['wins_by_side']['deals_gone_out'])
                  == g['stats']['ended_out'], 'deals gone out by seat != by side != brp stats\' ended out')
            check(sum(g['deal_turns']['deals']) == g['stats']['deals'], 'deal turns bins != deals')
            check(sum(g['deal_scores']['side0']) == sum(g['deal_scores']['side1']) == g['stats']['deals'],
                  'deal scores bins of a side != deals')
            check(sum(g['piles']['taken']) == sum(g['piles']['frozen']) == g['stats']['deals'], 'pile bins != deals')
            check(g['canastras']['deals'] == g['stats']['deals'], 'canastras over other deals than stats\'')
            for k, cat in enumerate(('dirty', 'clean', 'clean13', 'clean14', 'dirty14')):
                check(g['canastras']['side0'][k] + g['canastras']['side1'][k] == g['stats']['canastras'][cat],
                      '%s canastras of both sides != brp stats\'' % cat)
            for k in ('deals', 'turns', 'decisions', 'bytes', 'pile_taken', 'pile_frozen'):
                sums[k] = sums.get(k, 0) + g['stats'][k]
        check(ok == st['matches'], 'the groups hold %d matches, brp stats %d' % (ok, st['matches']))
        for k, v in sums.items():
            check(v == st[k], 'the groups add up to %d %s, brp stats says %d' % (v, k, st[k]))
        # one group against brp stats of its logs alone
        g0 = rep['groups'][0]
        logs = [os.path.join(d, f) for d, _, fs in os.walk(SAMPLES) for f in sorted(fs) if f.endswith('.brp')]
        mine = []
        for path in logs:
            r = json.loads(report('--json', path).stdout)
            if r['groups'] and (r['groups'][0]['profile'], r['groups'][0]['players']) == (g0['profile'], g0['players']):
                mine.append(path)
        if check(mine, 'no sample of the first group'):
            sub = json.loads(run('stats', '--json', *mine).stdout)
            check(sub['matches'] == g0['stats']['matches'] and sub['deals'] == g0['stats']['deals'],
                  'group %s %d: not brp stats of its logs' % (g0['profile'], g0['players']))

        # the page: same whatever -j, self-contained, every chart complete
        page1, page3 = os.path.join(tmp, 'r1.html'), os.path.join(tmp, 'r3.html')
        report('-o', page1, SAMPLES)
        report('-o', page3, '-j', '3', SAMPLES)
        text = open(page1, encoding='utf-8').read()
        check(text == open(page3, encoding='utf-8').read(), 'the page differs between -j 1 and -j 3')
        csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', text)
        check(csp and csp.group(1).startswith("default-src 'none'") and 'script-src' not in csp.group(1),
              'no strict Content-Security-Policy')
        check('<script' not in text.lower(), 'a script element in the page')
        check(not re.search(r'\ssrc=|url\(|@import', text), 'a src, url() or @import in the page')
        check(not re.search(r'https?://(?!www\.w3\.org/2000/svg")', text), 'a URL other than the SVG namespace')
        p = Page()
        p.feed(text)
        check(all(h.startswith('#') for h in p.links), 'a link that is not a fragment: %r' % p.links)
        check(len(p.svgs) == 6 * len(rep['groups']), '%d charts for %d groups' % (len(p.svgs), len(rep['groups'])))
        for i, svg in enumerate(p.svgs):
            a = svg['attrs']
            what = 'chart %d (%s)' % (i, svg['titles'][0][1] if svg['titles'] else '?')
            check(a.get('role') == 'img', what + ': not role="img"')
            ids = a.get('aria-labelledby', '').split()
            check(len(ids) == 2 and svg['titles'] and svg['desc'] and ids == [svg['titles'][0][0], svg['desc'][0][0]],
                  what + ': aria-labelledby is not its title and desc')
            for axis in ('axis x-axis', 'axis y-axis'):
                g = svg['groups'].get(axis)
                if check(g is not None, what + ': no ' + axis):
                    check(g['lines'] >= 1 and sum(c is None for c, _ in g['texts']) >= 2,
                          what + ': ' + axis + ' has no line and ticks')
                    check(any(c == 'axis-title' for c, _ in g['texts']), what + ': ' + axis + ' has no title')
                    check(any(c is None for c, _ in g['texts']), what + ': ' + axis + ' has no tick label')
            check(svg['rects'] >= 1, what + ': no bar')
        check(text.count('<details class="data">') == len(p.svgs), 'a chart without its table of figures')

        # escaping, links to the pages beside the logs, the cap on the list
        odd = os.path.join(tmp, 'odd')
        os.mkdir(odd)
        shutil.copy(os.path.join(SAMPLES, 'disputed', 'pile-frozen.brp'), os.path.join(odd, '<b>&"x\'.brp'))
        shutil.copy(os.path.join(SAMPLES, 'disputed', 'pile-frozen.brp'), os.path.join(odd, 'with page.brp'))
        run('view', os.path.join(odd, 'with page.brp'))
        check(os.path.exists(os.path.join(odd, 'with page.html')), 'brp view wrote no page beside the log')
        out = os.path.join(tmp, 'sub', 'r.html')
        os.mkdir(os.path.dirname(out))
        r = report('-o', out, odd)
        check(r.returncode == 1, 'two illegal logs: exit %d, not 1' % r.returncode)
        t = open(out, encoding='utf-8').read()
        check('&lt;b&gt;&amp;&quot;x&#39;.brp' in t and '<b>&' not in t, 'a log name with markup is not escaped')
        check('<a href="../odd/with%20page.html">' in t, 'the disputed log is not linked to its page beside it')
        check(t.count('<a href="../') == 1, 'a log without a page beside it is linked')
        many = os.path.join(tmp, 'many')
        os.mkdir(many)
        for i in range(105):
            shutil.copy(os.path.join(SAMPLES, 'disputed', 'pile-frozen.brp'), os.path.join(many, 'x%03d.brp' % i))
        r = report('--json', '-o', os.path.join(tmp, 'many.html'), many)
        j = json.loads(r.stdout)
        check(len(j['disputed']) == 100 and j['disputed_unlisted'] == 5, '105 disputed logs: not 100 listed, 5 counted')
        t = open(os.path.join(tmp, 'many.html'), encoding='utf-8').read()
        check(t.count('<li><code>') == 100 and 'And 5 more disputed logs' in t, 'the page does not cap the list')

        # no log could be read: no page (as brp stats prints no table), an old one untouched
        old = os.path.join(tmp, 'old.html')
        with open(old, 'w') as f:
            f.write('old')
        r = report('-o', old, os.path.join(tmp, 'nothing-here'))
        check(r.returncode == 3 and open(old).read() == 'old', 'a report of no readable log replaced the old page')
    finally:
        shutil.rmtree(tmp)
    if bad:
        sys.exit(1)
    print('report: all checks passed')


if __name__ == '__main__':
    main()
