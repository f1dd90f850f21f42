#!/usr/bin/python3
"""The pictures of the XLSX Summary's charts in docs/img/, made from the samples.

Usage: tools/xlsx-pictures.py BRP [OUTDIR]      (OUTDIR: docs/img of this tree)

Exports samples/*.brp and samples/disputed/*.brp to one workbook with BRP (brp export --xlsx),
converts it to PDF with LibreOffice headless (a private profile), and writes each chart's page
(the Summary prints a page a table, then a page its chart: pages 2, 4, ... 12), cropped to the
chart, as OUTDIR/xlsx-NAME.png at 80 dots an inch with pdftoppm (Debian's poppler-utils). Run it
again after a change to the charts, and look at the pictures before committing them.
"""
import os
import shutil
import subprocess
import sys
import tempfile

# the charts in the Summary's order, by the name of their picture
CHARTS = ['wins-by-seat', 'wins-by-side', 'deal-scores', 'deal-length', 'canastras', 'pile']
DPI = 80


def bbox(ppm):
    """(x, y, w, h) of what is not white on a binary PPM page, with a margin of 4 pixels."""
    with open(ppm, 'rb') as f:
        data = f.read()
    magic, w, h, maxval, pix = data.split(maxsplit=4)
    w, h = int(w), int(h)
    xs, ys = [], []
    for y in range(h):
        row = pix[3 * w * y:3 * w * (y + 1)]
        dark = [x for x in range(w) if min(row[3 * x:3 * x + 3]) < 235]
        if dark:
            ys.append(y)
            xs += [dark[0], dark[-1]]
    if not xs:
        sys.exit(f'{ppm}: an empty page')
    x0, y0 = max(0, min(xs) - 4), max(0, min(ys) - 4)
    return x0, y0, min(w, max(xs) + 5) - x0, min(h, max(ys) + 5) - y0


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    brp = os.path.abspath(sys.argv[1])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    outdir = os.path.abspath(sys.argv[2]) if len(sys.argv) == 3 else os.path.join(root, 'docs', 'img')
    os.makedirs(outdir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix='brp-pictures.')
    try:
        logs = [os.path.join(d, f) for d in (os.path.join(root, 'samples'), os.path.join(root, 'samples', 'disputed'))
                for f in sorted(os.listdir(d)) if f.endswith('.brp')]
        xlsx = os.path.join(tmp, 'samples.xlsx')
        subprocess.run([brp, 'export', '-q', '--xlsx', xlsx] + logs, check=False)
        if not os.path.exists(xlsx):
            sys.exit('no workbook written')
        env = dict(os.environ, HOME=tmp, LC_ALL='C.UTF-8', LANG='C.UTF-8')
        subprocess.run(['soffice', '--headless', '--norestore', f'-env:UserInstallation=file://{tmp}/profile',
                        '--convert-to', 'pdf', '--outdir', tmp, xlsx], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pdf = os.path.join(tmp, 'samples.pdf')
        for k, name in enumerate(CHARTS):
            page = str(2 * k + 2)
            base = os.path.join(tmp, name)
            subprocess.run(['pdftoppm', '-r', str(DPI), '-f', page, '-l', page, '-singlefile', pdf, base], check=True)
            x, y, w, h = bbox(base + '.ppm')
            out = os.path.join(outdir, 'xlsx-' + name)
            subprocess.run(['pdftoppm', '-png', '-r', str(DPI), '-f', page, '-l', page, '-singlefile',
                            '-x', str(x), '-y', str(y), '-W', str(w), '-H', str(h), pdf, out], check=True)
            print(f'{out}.png: {w}x{h}, {os.path.getsize(out + ".png")} bytes')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
