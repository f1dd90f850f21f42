#!/usr/bin/env python3
"""brp integrity --html in a real browser: test_integrity.py BRP SRCROOT [--picture PNG]

Headless Chromium (Debian's chromium, chromium-driver, python3-selenium) opens the report brp integrity
--html --pairs writes for a corpus with two planted cheaters (a peeker at seat 0, a signaller at seat 2,
greedy bots elsewhere; 30 one-deal matches on a fixed seed), with the network cut off. Checked:
- one section a statistic, each with one plot that renders (a non-zero box), role="img" with a title and
  a description, both axes with tick labels and a title, the null's curve, one bar a non-empty bin and
  one dot a subject, as many dots as rows in the section's table;
- the dots and rows of the flagged subjects are the flagged lines of brp integrity --json (the peeker's
  peek, the signaller's signal line against its partner), the dots in vermillion, the others not;
- each flagged row lists its decisions as links to the log's brp view page at #d=DEAL&t=TURN&n=DECISION;
  following the first (its page made by brp view beside the log) opens that page at that position;
- no console message of level error and no request but for the files.

--picture PNG: no checks; the peek section as a picture (docs/integrity.md's).

Exit 77 (meson: skipped) with a message when chromium, chromedriver or selenium is not installed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from browser import By, FAILURES, check, check_quiet, offline_driver  # exits 77 without a browser

BRP = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])
PICTURE = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == '--picture' else None


def run(*args):
    return subprocess.run([BRP] + [str(a) for a in args], capture_output=True, text=True,
                          env=dict(os.environ, LC_ALL='C', TZ='UTC'))


READ = r'''
function box(e) { const r = e.getBoundingClientRect(); return [r.width, r.height]; }
function bbox(e) { const b = e.getBBox(); return [b.width, b.height]; }
function text(id) { const e = id && document.getElementById(id); return e ? e.textContent.trim() : ''; }
return Array.from(document.querySelectorAll('section[id^="stat-"]')).map(function (sec) {
  const s = sec.querySelector('svg.plot'), ids = s ? (s.getAttribute('aria-labelledby') || '').split(/\s+/) : [];
  const axis = function (cls) {
    const g = s.querySelector('g.' + cls);
    return g ? {ticks: Array.from(g.querySelectorAll('text:not(.axis-title)')).filter(t => bbox(t)[0] > 0).length,
                title: Array.from(g.querySelectorAll('text.axis-title')).map(t => t.textContent)} : null;
  };
  return {
    id: sec.id, plots: sec.querySelectorAll('svg.plot').length, box: s ? box(s) : [0, 0],
    role: s ? s.getAttribute('role') : null, labels: ids.map(text), x: s ? axis('x-axis') : null,
    y: s ? axis('y-axis') : null, curve: s ? s.querySelectorAll('path.null').length : 0,
    bins: s ? s.querySelectorAll('rect.bin').length : 0,
    dots: s ? Array.from(s.querySelectorAll('circle.subject')).map(c => ({
      flagged: c.dataset.flagged === '1', fill: getComputedStyle(c).fill, name: c.textContent.split(':')[0],
      box: box(c)})) : [],
    rows: Array.from(sec.querySelectorAll('tbody tr')).map(r => ({
      flagged: r.classList.contains('flagged'), name: r.querySelector('th').textContent,
      links: Array.from(r.querySelectorAll('ul.evidence a')).map(a => a.getAttribute('href'))}))
  };
});
'''


def name_of(line):
    return line['player'] if 'player' in line else '%s > %s' % tuple(line['pair'])


def main():
    tmp = tempfile.mkdtemp(prefix='brp-integrity-')
    d = None
    try:
        corpus = os.path.join(tmp, 'corpus')
        p = run('simulate', '-q', '-b', 'peeker,greedy,signaller,greedy', '-n', 30, '-t', 0, '--seed', 77, '-o', corpus)
        check(p.returncode == 0, 'simulate: ' + p.stderr)
        page = os.path.join(tmp, 'integrity.html')
        p = run('integrity', '--pairs', '--json', '--html', page, corpus)
        check(p.returncode == 1, 'brp integrity: exit %d, not 1 (flagged): %s' % (p.returncode, p.stderr))
        lines = [json.loads(x) for x in p.stdout.splitlines()]
        flagged = {(l['statistic'], name_of(l)) for l in lines if l['flagged']}
        check(('peek', 'peeker-0') in flagged and ('signal', 'signaller-2 > peeker-0') in flagged,
              'the cheaters are not flagged: %s' % sorted(flagged))
        d = offline_driver('--force-device-scale-factor=1', '--allow-file-access-from-files')
        d.get('about:blank')
        d.get('file://' + page)
        check_quiet(d, page)
        if PICTURE:
            sec = d.find_element(By.ID, 'stat-peek')
            d.execute_script('arguments[0].scrollIntoView()', sec)
            with open(PICTURE, 'wb') as out:
                out.write(sec.screenshot_as_png)
            print('picture in ' + PICTURE)
            return
        sections = d.execute_script(READ)
        stats = sorted({l['statistic'] for l in lines})
        check(sorted(s['id'] for s in sections) == sorted('stat-' + s for s in stats),
              'sections %s for statistics %s' % ([s['id'] for s in sections], stats))
        for s in sections:
            what = s['id']
            mine = [l for l in lines if 'stat-' + l['statistic'] == what]
            check(s['plots'] == 1 and s['box'][0] > 100 and s['box'][1] > 50, what + ': no rendered plot %r' % s['box'])
            check(s['role'] == 'img' and len(s['labels']) == 2 and all(s['labels']),
                  what + ': no text alternative: %r' % s['labels'])
            for ax in ('x', 'y'):
                check(s[ax] and s[ax]['ticks'] >= 2 and len(s[ax]['title']) == 1 and s[ax]['title'][0],
                      '%s: the %s axis: %r' % (what, ax, s[ax]))
            check(s['curve'] == 1 and s['bins'] >= 1, what + ': no null curve or no bins')
            check(len(s['dots']) == len(s['rows']) == len(mine),
                  '%s: %d dots, %d rows, %d lines' % (what, len(s['dots']), len(s['rows']), len(mine)))
            check(all(dot['box'][0] > 0 for dot in s['dots']), what + ': a dot is not rendered')
            want = {name_of(l) for l in mine if l['flagged']}
            check({x['name'] for x in s['dots'] if x['flagged']} == want, what + ': flagged dots %s' % want)
            check({x['name'] for x in s['rows'] if x['flagged']} == want, what + ': flagged rows %s' % want)
            check(len({x['fill'] for x in s['dots'] if x['flagged']} & {x['fill'] for x in s['dots'] if not x['flagged']}) == 0,
                  what + ': flagged dots are drawn as the others')
            for r in s['rows']:
                check(bool(r['links']) == r['flagged'], '%s: row %s: links %s' % (what, r['name'], r['links']))
                for h in r['links']:
                    check(h.startswith('file:///') and '.html#d=' in h and '&t=' in h and '&n=' in h,
                          '%s: a link is not a view page at a position: %s' % (what, h))
        # follow the peeker's first evidence link to the log's own brp view page
        peek = [s for s in sections if s['id'] == 'stat-peek'][0]
        href = [r for r in peek['rows'] if r['flagged']][0]['links'][0]
        path, frag = href[len('file://'):].split('#')
        log = path[:-len('.html')] + '.brp'
        p = run('view', '-o', path, log)
        check(p.returncode == 0, 'brp view %s: %s' % (log, p.stderr))
        d.get(href)
        time.sleep(0.5)
        check_quiet(d, path, data_urls=True)
        got = d.execute_script('return {hash: location.hash, moved: document.querySelectorAll(".card.moved").length}')
        check(got['hash'] == '#' + frag, 'the view page opened at %s, not #%s' % (got['hash'], frag))
        print('%d sections checked, %d flagged lines, the view link followed' % (len(sections), len(flagged)))
    finally:
        if d:
            d.quit()
        shutil.rmtree(tmp)
    if FAILURES:
        sys.exit(1)


if __name__ == '__main__':
    main()
