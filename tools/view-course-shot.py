#!/usr/bin/env python3
"""The pictures of brp view's course charts in docs/view.md, made from the samples.

Usage: tools/view-course-shot.py BRP SRCROOT [OUTDIR]   (OUTDIR: SRCROOT/docs/img)

brp view writes each sample's page; headless Chromium (Debian's chromium and
chromium-driver, through python3-selenium, as the browser test) opens it and
takes a picture of its course section (#course, the figures named below):

  view-course.png           samples/kzv-4p.brp: the match and both deals
  view-course-disputed.png  samples/disputed/meld-two-wilds.brp: the match and
                            deal 2, the refused meld marked on both
  view-course-print.png     samples/kzv-4p.brp as printed (print media) and
                            in grey: the sides told apart by line and marker

The pictures change only when the charts, the style sheet or the samples do.
"""
import os
import subprocess
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

SHOTS = [
    # (file, sample, the figures shown (None: all), print and grey)
    ('view-course.png', 'kzv-4p.brp', None, False),
    ('view-course-disputed.png', 'disputed/meld-two-wilds.brp', ['course-match', 'course-d2'], False),
    ('view-course-print.png', 'kzv-4p.brp', ['course-match', 'course-d1'], True),
]


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    brp, root = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    out = os.path.abspath(argv[3]) if len(argv) > 3 else os.path.join(root, 'docs', 'img')
    os.makedirs(out, exist_ok=True)
    o = Options()
    o.binary_location = '/usr/bin/chromium'
    for a in ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1280,1000',
              '--hide-scrollbars', '--force-device-scale-factor=1']:
        o.add_argument(a)
    d = webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=o)
    try:
        with tempfile.TemporaryDirectory(prefix='brp-course-shot-') as tmp:
            for name, sample, figures, grey in SHOTS:
                html = os.path.join(tmp, name + '.html')
                subprocess.run([brp, 'view', '-o', html, os.path.join(root, 'samples', sample)], check=True,
                               env=dict(os.environ, LC_ALL='C', TZ='UTC'))
                d.execute_cdp_cmd('Emulation.setEmulatedMedia', {'media': 'print' if grey else ''})
                d.get('file://' + html)
                # the page as it opens, less what the picture does not show: the current deal's frame and line
                d.execute_script('''
                    const keep = arguments[0], grey = arguments[1];
                    document.querySelectorAll('#course .on').forEach(e => e.classList.remove('on'));
                    if (keep)
                        document.querySelectorAll('#course figure').forEach(f => {
                            if (!keep.includes(f.id)) f.style.display = 'none'; });
                    const c = document.getElementById('course');
                    c.style.background = 'var(--paper)';
                    if (grey) c.style.filter = 'grayscale(1)';
                    c.scrollIntoView();''', figures, grey)
                d.find_element(By.ID, 'course').screenshot(os.path.join(out, name))
                print('%s: %s' % (os.path.join(out, name), sample))
    finally:
        d.quit()


if __name__ == '__main__':
    main(sys.argv)
