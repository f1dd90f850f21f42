#!/usr/bin/env python3
"""brp report in a real browser: test_report.py BRP SRCROOT [--pictures DIR]

Headless Chromium (Debian's chromium, driven by chromium-driver through
python3-selenium) opens the page brp report writes for the samples and a
simulated match of each profile and table size, with the network cut off
(every request the page makes recorded: only its own file may be loaded).
Every chart renders (a non-zero box on the page), has a title (its <title>,
also the figure's caption), a text alternative (role="img", aria-labelledby
its title and its description, both non-empty), two axes each drawn as a
line with tick labels and an axis title, all rendered with a non-zero box,
and one bar a figure of its table; no console message of level error (a
style or script the page's Content-Security-Policy refuses would be one).

--pictures DIR: no checks; the charts of the samples' report (the profile
and table size with the most matches, kzv with 4 players) as DIR/report-N.png,
the pictures of docs/report.md.

Exit 77 (meson: skipped) with a message when chromium, chromedriver or
selenium is not installed; any other failure fails.
"""
import os
import shutil
import subprocess
import sys
import tempfile

from browser import By, FAILURES, check, check_quiet, offline_driver  # exits 77 without a browser

BRP = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])
PICTURES = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == '--pictures' else None



def run(*args):
    return subprocess.run([BRP] + list(args), capture_output=True, text=True, env=dict(os.environ, LC_ALL='C', TZ='UTC'))


# Each chart as the browser lays it out: its box, its title, its text alternative, its axes.
READ = r'''
function box(e) { const r = e.getBoundingClientRect(); return [r.width, r.height]; }
function bbox(e) { const b = e.getBBox(); return [b.width, b.height]; }
function text(id) { const e = id && document.getElementById(id); return e ? e.textContent.trim() : null; }
return Array.from(document.querySelectorAll('svg.chart')).map(function (s) {
  const fig = s.closest('figure'), ids = (s.getAttribute('aria-labelledby') || '').split(/\s+/);
  const axis = function (cls) {
    const g = s.querySelector('g.' + cls);
    if (!g) return null;
    return {
      lines: Array.from(g.querySelectorAll('line')).map(bbox),
      ticks: Array.from(g.querySelectorAll('text:not(.axis-title)')).map(function (t) { return [t.textContent, bbox(t)]; }),
      title: Array.from(g.querySelectorAll('text.axis-title')).map(function (t) { return [t.textContent, bbox(t)]; })
    };
  };
  const title = s.querySelector(':scope > title');
  return {
    id: fig ? fig.id : null, box: box(s), role: s.getAttribute('role'),
    title: title ? title.textContent.trim() : null, titleId: title ? title.id : null,
    caption: fig && fig.querySelector('figcaption') ? fig.querySelector('figcaption').textContent.trim() : null,
    labelledby: ids, labels: ids.map(text),
    x: axis('x-axis'), y: axis('y-axis'),
    bars: s.querySelectorAll('g.bars rect').length,
    rows: fig ? fig.querySelectorAll('table tbody tr').length : 0,
    series: fig ? fig.querySelectorAll('table thead th').length - 1 : 0
  };
});
'''


class Browser:
    def __init__(self):
        self.d = offline_driver('--force-device-scale-factor=1')

    def open(self, path):
        self.d.get('about:blank')
        self.d.get('file://' + path)
        check_quiet(self.d, path)
        return self.d.execute_script(READ)

    def quit(self):
        self.d.quit()


def check_chart(c):
    what = 'chart %s' % c['id']
    check(c['box'][0] > 0 and c['box'][1] > 0, what + ': not rendered (box %r)' % c['box'])
    check(c['role'] == 'img', what + ': not role="img"')
    check(bool(c['title']) and c['caption'] == c['title'], what + ': no title, or a caption that is not it')
    check(len(c['labelledby']) == 2 and c['labelledby'][0] == c['titleId'] and all(c['labels']),
          what + ': aria-labelledby is not a title and a description with text: %r' % c['labels'])
    for name in ('x', 'y'):
        a = c[name]
        if not check(a is not None, what + ': no %s axis' % name):
            continue
        check(a['lines'] and max(w + h for w, h in a['lines']) > 0, what + ': the %s axis has no line' % name)
        check(len(a['ticks']) >= 2 and all(t and b[0] > 0 and b[1] > 0 for t, b in a['ticks']),
              what + ': the %s axis has no rendered tick labels' % name)
        check(len(a['title']) == 1 and a['title'][0][0] and a['title'][0][1][0] > 0,
              what + ': the %s axis has no rendered title' % name)
    check(c['bars'] >= 1 and c['bars'] == c['rows'] * c['series'],
          what + ': %d bars for %d rows of %d series' % (c['bars'], c['rows'], c['series']))


def main():
    tmp = tempfile.mkdtemp(prefix='brp-report-')
    b = None
    try:
        samples = os.path.join(ROOT, 'samples')
        page = os.path.join(tmp, 'report.html')
        if PICTURES:
            run('report', '-o', page, samples)
            b = Browser()
            b.open(page)
            os.makedirs(PICTURES, exist_ok=True)
            figs = b.d.find_elements(By.CSS_SELECTOR, '#g-kzv-4 figure svg')
            for i, f in enumerate(figs):
                b.d.execute_script('arguments[0].scrollIntoView()', f)
                with open(os.path.join(PICTURES, 'report-%d.png' % (i + 1)), 'wb') as out:
                    out.write(f.screenshot_as_png)
            print('%d pictures in %s' % (len(figs), PICTURES))
            return
        corpus = [samples]
        for rules in ('kzv', 'stbl', 'aberto'):
            for players in ('2', '4'):
                out = os.path.join(tmp, 'sim-%s-%s' % (rules, players))
                p = run('simulate', '-q', '-r', rules, '-p', players, '-n', '3', '--seed', '5', '--bot', 'mixed',
                        '-o', out)
                check(p.returncode == 0, 'simulate %s %s: %s' % (rules, players, p.stderr))
                corpus.append(out)
        p = run('report', '-o', page, *corpus)
        check(p.returncode == 3, 'brp report: exit %d (the samples hold malformed logs: 3)' % p.returncode)
        b = Browser()
        charts = b.open(page)
        check(len(charts) == 6 * 6, '%d charts, not 6 for each of 6 profiles and table sizes' % len(charts))
        for c in charts:
            check_chart(c)
        print('%d charts checked' % len(charts))
    finally:
        if b:
            b.quit()
        shutil.rmtree(tmp)
    if FAILURES:
        sys.exit(1)


if __name__ == '__main__':
    main()
