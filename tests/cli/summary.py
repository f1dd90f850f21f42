#!/usr/bin/python3
"""The Summary sheet of brp export --xlsx: its tables, its charts, and LibreOffice's view of them.

  summary.py BRP SRCROOT              the workbook as written (openpyxl and its XML)
  summary.py --libreoffice BRP SRCROOT  the workbook as LibreOffice shows it (exit 77 without soffice)

The samples (samples/*.brp and samples/disputed/*.brp) are exported to one workbook.

Without --libreoffice: Summary is the first sheet; each of its six blocks has a title, a header
and rows; every formula refers to whole columns (A:A) of the data sheets, and to the columns the
block is about (by their headers); every value the workbook carries is the one computed here
from the data sheets' rows; there are six charts on Summary, one a block, with the block's title,
whose series take their categories from the block's first column, their values from the column
headed by the series' name, over exactly the block's rows, and their colours from the Okabe-Ito
palette (side 0 blue, side 1 vermillion striped with white, which a greyscale print keeps apart).

With --libreoffice: the workbook converted to PDF has the Summary first, a page a table and a page
a chart: each chart's page has its title and axis names as text (pdftotext) and bars of each of
its series' colours (pdftoppm, pixels counted); and a copy of the workbook with a row added to
the deals sheet (through openpyxl, which keeps formulas but not charts), converted to CSV, has
the Summary's counts grown by that row: rows an analyst adds count.

Without --libreoffice, also: brp report on the same logs draws the same six charts (docs/report.md):
its --json figures for the corpus are the Summary's values, bin for bin (the same bounds), and each
chart of its page has a block's title, the block's rows as its table's rows and the block's series.
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
import xml.etree.ElementTree as ET

import openpyxl

DATA = ['matches', 'meta', 'deals', 'deal_scores', 'deal_seats', 'melds', 'actions', 'players']
CATS = ['dirty', 'clean', 'clean13', 'clean14', 'dirty14']
# block title -> (x axis name or None, y axis name, the (sheet, column) its formulas read)
BLOCKS = {
    'Wins by seat': ('Seat', 'Deals or matches',
                     {('deal_seats', 'went_out'), ('deal_seats', 'seat'), ('matches', 'winner'),
                      ('matches', 'players')}),
    'Wins by side': (None, 'Deals or matches', {('matches', 'winner'), ('deals', 'out_side')}),
    'Deal scores': ('Points a side scored in a deal', 'Deals', {('deal_scores', 'side'), ('deal_scores', 'total')}),
    'Deal length': ('Turns in a deal', 'Deals', {('deals', 'turns')}),
    'Canastras per deal': ('Category', 'Canastras a side made, on average',
                           {('deal_scores', 'side')} | {('deal_scores', 'canastras_' + c) for c in CATS}),
    'Pile takes and frozen piles': ('Times in a deal', 'Deals', {('deals', 'pile_taken'), ('deals', 'pile_frozen')}),
}
OKABE_ITO = {'0072B2', 'D55E00', 'E69F00', '56B4E9', '009E73', 'F0E442', 'CC79A7', '000000'}
SIDE_COLOUR = {'Side 0': '0072B2', 'Side 1': 'D55E00'}
NS = {'c': 'http://schemas.openxmlformats.org/drawingml/2006/chart',
      'a': 'http://schemas.openxmlformats.org/drawingml/2006/main'}
WHOLE = re.compile(r"([A-Za-z_]+)!\$([A-Z]+):\$([A-Z]+)")


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


def run(*args, **kw):
    p = subprocess.run(list(args), capture_output=True, text=True, **kw)
    if p.returncode not in (0, 1, 2):  # 1, 2: a disputed sample's verdict
        fail(f'{" ".join(args)}: exit {p.returncode}: {p.stderr.strip()}')
    return p.stdout


def export(brp, root, tmp):
    logs = sorted(os.path.join(root, 'samples', f) for f in os.listdir(os.path.join(root, 'samples'))
                  if f.endswith('.brp'))
    logs += sorted(os.path.join(root, 'samples', 'disputed', f)
                   for f in os.listdir(os.path.join(root, 'samples', 'disputed')) if f.endswith('.brp'))
    xlsx = os.path.join(tmp, 'games.xlsx')
    run(brp, 'export', '-q', '--xlsx', xlsx, *logs)
    if not os.path.exists(xlsx):
        fail('no workbook written')
    return xlsx, logs


def report_values(j, title, k, r):
    """What brp report --json (the corpus) gives for row k of a Summary block (r: the row, bounds in r[1:3])."""
    bins = {'Deal scores': 'deal_scores', 'Deal length': 'deal_turns', 'Pile takes and frozen piles': 'piles'}
    if title in bins:
        b = j[bins[title]]
        if b['bins'][k] != [r[1], r[2]]:
            fail(f'{title}, row {r[0]!r}: brp report\'s bin is {b["bins"][k]}, the Summary\'s [{r[1]}, {r[2]}]')
    if title == 'Wins by seat':
        return [j['wins_by_seat']['deals_gone_out'][k], j['wins_by_seat']['matches_won'][k]]
    if title == 'Wins by side':
        return j['wins_by_side']['matches_won' if k == 0 else 'deals_gone_out']
    if title == 'Deal scores':
        return [j['deal_scores']['side0'][k], j['deal_scores']['side1'][k]]
    if title == 'Deal length':
        return [j['deal_turns']['deals'][k]]
    if title == 'Canastras per deal':
        c = j['canastras']
        return [c['side%d' % s][k] / c['deals'] if c['deals'] else 0 for s in (0, 1)]
    return [j['piles']['taken'][k], j['piles']['frozen'][k]]


def check_report(brp, logs, tmp, found):
    """brp report on the same logs: the same figures, bins, titles, rows and series as the Summary."""
    page = os.path.join(tmp, 'report.html')
    p = subprocess.run([brp, 'report', '-q', '--json', '-o', page] + logs, capture_output=True, text=True)
    if p.returncode not in (0, 1, 2, 3):
        fail(f'brp report: exit {p.returncode}: {p.stderr.strip()}')
    j = json.loads(p.stdout)
    for title, (trow, head, data, first) in found.items():
        lead = 3 if head[1:3] == ['From', 'To'] else 1
        if len(data) != len(j['deal_scores']['bins']) and title == 'Deal scores':
            fail(f'{title}: brp report has {len(j["deal_scores"]["bins"])} bins, the Summary {len(data)}')
        for k, r in enumerate(data):
            want = r[lead:lead + len([h for h in head[lead:] if h])]
            got = report_values(j, title, k, r)
            if len(got) != len(want) or any(abs(g - w) > 1e-9 for g, w in zip(got, want)):
                fail(f'{title}, row {r[0]!r}: brp report counts {got}, the Summary {want}')
    # the page: a 4-player group's six charts are the Summary's blocks, in order, with their rows and series
    text = open(page, encoding='utf-8').read()
    sec = re.search(r'<section id="g-kzv-4">(.*?)</section>', text, re.S)
    if not sec:
        fail('brp report: no section g-kzv-4 for the samples')
    figs = re.findall(r'<figure id="[^"]*">\n<figcaption>([^<]*)</figcaption>.*?<thead><tr>(.*?)</tr></thead>'
                      r'(.*?)</tbody>', sec.group(1), re.S)
    if [f[0] for f in figs] != list(BLOCKS):
        fail(f'brp report\'s charts are {[f[0] for f in figs]}, the Summary\'s {list(BLOCKS)}')
    for (title, thead, tbody), (_, head, data, _) in zip(figs, found.values()):
        lead = 3 if head[1:3] == ['From', 'To'] else 1
        series = re.findall(r'<th scope="col">([^<]*)</th>', thead)[1:]
        rows = re.findall(r'<th scope="row">([^<]*)</th>', tbody)
        if series != [h for h in head[lead:] if h]:
            fail(f'{title}: brp report\'s series {series}, the Summary\'s {head[lead:]}')
        if rows != [r[0] for r in data]:
            fail(f'{title}: brp report\'s rows {rows}, the Summary\'s {[r[0] for r in data]}')
    print('brp report: the same six charts, titles, rows, series, bins and figures as the Summary')


def blocks(ws):
    """{title: (title row, header row's values, [data rows' values], first data row)} of Summary."""
    rows = [[c.value for c in r] for r in ws.iter_rows(max_col=5)]
    out = {}
    for i, r in enumerate(rows):
        if r[0] in BLOCKS:
            data = []
            j = i + 2
            while j < len(rows) and rows[j][0] not in (None, '') and rows[j][0] not in BLOCKS:
                data.append(rows[j])
                j += 1
            out[r[0]] = (i + 1, rows[i + 1], data, i + 3)
    if list(out) != list(BLOCKS):
        fail(f'Summary has the blocks {list(out)}, expected {list(BLOCKS)}')
    return out


def table(wb, name):
    rows = list(wb[name].iter_rows(values_only=True))
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def inbin(v, lo, hi):
    return isinstance(v, int) and (lo is None or v >= lo) and (hi is None or v < hi)


def expected(wb, title, head, data):
    """The values of a block's data rows (the columns after the first, or after From and To), from the data sheets."""
    m, d, sc, st = table(wb, 'matches'), table(wb, 'deals'), table(wb, 'deal_scores'), table(wb, 'deal_seats')
    out = []
    for k, r in enumerate(data):
        if title == 'Wins by seat':
            out.append([sum(x['went_out'] for x in st if x['seat'] == k),
                        sum(1 for x in m if x['winner'] == k % 2 and isinstance(x['players'], int) and x['players'] > k)])
        elif title == 'Wins by side':
            key, rows = ('winner', m) if k == 0 else ('out_side', d)
            out.append([sum(1 for x in rows if x[key] == side) for side in (0, 1)])
        elif title == 'Deal scores':
            out.append([sum(1 for x in sc if x['side'] == side and inbin(x['total'], r[1], r[2])) for side in (0, 1)])
        elif title == 'Deal length':
            out.append([sum(1 for x in d if inbin(x['turns'], r[1], r[2]))])
        elif title == 'Canastras per deal':
            vals = []
            for side in (0, 1):
                rows = [x['canastras_' + r[0]] for x in sc if x['side'] == side]
                vals.append(sum(rows) / len(rows) if rows else 0)
            out.append(vals)
        else:
            out.append([sum(1 for x in d if inbin(x[key], r[1], r[2])) for key in ('pile_taken', 'pile_frozen')])
    return out


def check_tables(xlsx):
    wb = openpyxl.load_workbook(xlsx, data_only=True)
    wf = openpyxl.load_workbook(xlsx)
    if wb.sheetnames != ['Summary'] + DATA:
        fail(f'sheets {wb.sheetnames}, expected Summary first, then {DATA}')
    heads = {s: [c.value for c in wb[s][1]] for s in DATA}
    found = blocks(wb['Summary'])
    formulas = wf['Summary']
    nformulas = 0
    for title, (trow, head, data, first) in found.items():
        lead = 3 if head[1:3] == ['From', 'To'] else 1
        want = expected(wb, title, head, data)
        refs = set()
        for k, (r, w) in enumerate(zip(data, want)):
            got = [v for v in r[lead:lead + len(w)]]
            if any(abs(g - x) > 1e-9 for g, x in zip(got, w)) or len(got) != len(w):
                fail(f'{title}, row {r[0]!r}: the workbook carries {got}, the data sheets give {w}')
            for j in range(len(w)):
                f = formulas.cell(row=first + k, column=lead + 1 + j).value
                if not isinstance(f, str) or not f.startswith('='):
                    fail(f'{title}, row {r[0]!r}: {f!r} is not a formula')
                nformulas += 1
                for sheet, c1, c2 in WHOLE.findall(f):
                    if c1 != c2 or sheet not in heads:
                        fail(f'{title}: {f} refers to {sheet}!{c1}:{c2}, not a whole column of a data sheet')
                    refs.add((sheet, heads[sheet][openpyxl.utils.column_index_from_string(c1) - 1]))
                if re.search(r'(?<![A-Za-z_])(?!Summary)[A-Za-z_]+!\$?[A-Z]+\$?[0-9]', f):
                    fail(f'{title}: {f} refers to cells of a data sheet, not whole columns')
        if refs != BLOCKS[title][2]:
            fail(f'{title}: the formulas read {sorted(refs)}, expected {sorted(BLOCKS[title][2])}')
    print(f'openpyxl: Summary first, 6 blocks, {nformulas} formulas over whole columns, their values right')
    return found


def check_charts(xlsx, found):
    z = zipfile.ZipFile(xlsx)
    rels = z.read('xl/worksheets/_rels/sheet1.xml.rels').decode()
    if 'drawing' not in rels:
        fail('the first sheet (Summary) has no drawing')
    names = sorted(n for n in z.namelist() if re.fullmatch(r'xl/charts/chart\d+\.xml', n))
    if len(names) != len(BLOCKS):
        fail(f'{len(names)} charts, expected {len(BLOCKS)}')
    seen = []
    for n in names:
        root = ET.fromstring(z.read(n))
        ch = root.find('c:chart', NS)
        title = ''.join(t.text or '' for t in ch.find('c:title', NS).iter(f'{{{NS["a"]}}}t'))
        if title not in found:
            fail(f'{n}: title {title!r} is no block of Summary')
        seen.append(title)
        trow, head, data, first = found[title]
        last = first + len(data) - 1
        if root.find('.//c:barChart', NS) is None:
            fail(f'{title}: not a column chart')
        axes = [''.join(t.text or '' for t in ax.find('c:title', NS).iter(f'{{{NS["a"]}}}t'))
                for ax in root.findall('.//c:plotArea/*', NS) if ax.find('c:title', NS) is not None]
        want_axes = [a for a in BLOCKS[title][:2] if a]
        if sorted(axes) != sorted(want_axes):
            fail(f'{title}: axis names {axes}, expected {want_axes}')
        sers = root.findall('.//c:ser', NS)
        if len(sers) != sum(1 for h in head[3 if head[1:3] == ['From', 'To'] else 1:] if h):
            fail(f'{title}: {len(sers)} series for the header {head}')
        for s in sers:
            name = s.find('c:tx/c:strRef/c:f', NS).text
            cat = s.find('c:cat//c:f', NS).text
            val = s.find('c:val/c:numRef/c:f', NS).text
            solid = s.find('c:spPr/a:solidFill/a:srgbClr', NS)
            stripes = s.find('c:spPr/a:pattFill/a:bgClr/a:srgbClr', NS)  # side 1: white stripes on its colour
            colour = (solid if solid is not None else stripes).get('val').upper()
            mn = re.fullmatch(r'Summary!\$([A-Z])\$(\d+)', name)
            mv = re.fullmatch(r'Summary!\$([A-Z])\$(\d+):\$([A-Z])\$(\d+)', val)
            if cat != f'Summary!$A${first}:$A${last}':
                fail(f'{title}: categories {cat}, expected Summary!$A${first}:$A${last}')
            if not mn or not mv or mv.group(1) != mn.group(1) or mv.group(1) != mv.group(3) or \
                    (int(mv.group(2)), int(mv.group(4))) != (first, last) or int(mn.group(2)) != trow + 1:
                fail(f'{title}: series {name} over {val}, not a column of the block under its header')
            label = head[openpyxl.utils.column_index_from_string(mn.group(1)) - 1]
            if colour not in OKABE_ITO:
                fail(f'{title}, {label}: colour {colour} is not of the Okabe-Ito palette')
            if label in SIDE_COLOUR and colour != SIDE_COLOUR[label]:
                fail(f'{title}, {label}: colour {colour}, expected {SIDE_COLOUR[label]}')
            if (label == 'Side 1') != (stripes is not None):
                fail(f'{title}, {label}: {"no" if label == "Side 1" else ""} stripes (side 1 alone has them, for print)')
    if sorted(seen) != sorted(BLOCKS):
        fail(f'charts {seen}, expected one each of {list(BLOCKS)}')
    print(f'charts: {len(names)} on Summary, each over its block\'s rows, Okabe-Ito colours')


def soffice(tmp, src, target, outdir):
    profile = os.path.join(tmp, 'lo-profile')
    env = dict(os.environ, LC_ALL='C.UTF-8', LANG='C.UTF-8', LANGUAGE='', HOME=tmp)
    args = ['soffice', '--headless', '--norestore', f'-env:UserInstallation=file://{profile}',
            '--convert-to', target, '--outdir', outdir, src]
    p = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        fail(f'LibreOffice did not convert {src}: {p.stdout} {p.stderr}')


def ppm_pixels(path):
    """(width, height, bytes) of a binary PPM (P6, maxval 255)."""
    with open(path, 'rb') as f:
        data = f.read()
    parts = data.split(maxsplit=4)
    if parts[0] != b'P6' or parts[3] != b'255':
        fail(f'{path}: not a PPM of 8 bits')
    return int(parts[1]), int(parts[2]), parts[4]


def count_colour(pix, rgb):
    r, g, b = (int(rgb[i:i + 2], 16) for i in (0, 2, 4))
    n = 0
    for i in range(0, len(pix) - 2, 3):
        if abs(pix[i] - r) + abs(pix[i + 1] - g) + abs(pix[i + 2] - b) < 24:
            n += 1
    return n


def check_pdf(tmp, xlsx, found):
    out = os.path.join(tmp, 'pdf')
    soffice(tmp, xlsx, 'pdf', out)
    pdf = os.path.join(out, 'games.pdf')
    z = zipfile.ZipFile(xlsx)
    colours = {}
    for n in z.namelist():
        if re.fullmatch(r'xl/charts/chart\d+\.xml', n):
            root = ET.fromstring(z.read(n))
            title = ''.join(t.text or '' for t in root.find('c:chart/c:title', NS).iter(f'{{{NS["a"]}}}t'))
            colours[title] = [c.get('val') for c in root.findall('.//c:ser/c:spPr/a:solidFill/a:srgbClr', NS)]
    for k, title in enumerate(BLOCKS):
        table_page, chart_page = 2 * k + 1, 2 * k + 2
        text = subprocess.run(['pdftotext', '-f', str(table_page), '-l', str(table_page), pdf, '-'],
                              capture_output=True, text=True).stdout
        if title not in text:
            fail(f'PDF page {table_page}: no table {title!r}')
        text = subprocess.run(['pdftotext', '-f', str(chart_page), '-l', str(chart_page), pdf, '-'],
                              capture_output=True, text=True).stdout
        for word in [title] + [a for a in BLOCKS[title][:2] if a]:
            if word not in text:
                fail(f'PDF page {chart_page}: the chart {title!r} without {word!r}')
        base = os.path.join(out, f'p{chart_page}')
        subprocess.run(['pdftoppm', '-r', '40', '-f', str(chart_page), '-l', str(chart_page), '-singlefile',
                        pdf, base], check=True)
        _, _, pix = ppm_pixels(base + '.ppm')
        for c in colours[title]:
            n = count_colour(pix, c)
            if n < 20:
                fail(f'PDF page {chart_page}: the chart {title!r} has {n} pixels of #{c}: no bars')
    print(f'LibreOffice: the PDF has each table and each chart on its page, the charts with their titles, '
          f'axis names and bars of each series\' colour')


def check_added_row(tmp, xlsx, found):
    wb = openpyxl.load_workbook(xlsx)
    ws = wb['deals']
    head = [c.value for c in ws[1]]
    row = {h: 0 for h in head}
    row.update(hash='added by hand', deal=1, end_kind='out', out_seat=1, out_side=1, turns=95, pile_taken=0,
               pile_frozen=4, morto0='none', morto1='none')
    ws.append([row[h] for h in head])
    added = os.path.join(tmp, 'added.xlsx')
    wb.save(added)
    out = os.path.join(tmp, 'added')
    soffice(tmp, added, 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,1', out)
    path = os.path.join(out, 'added-Summary.csv')
    if not os.path.exists(path):
        path = os.path.join(out, 'added.csv')
    with open(path, encoding='utf-8', newline='') as f:
        rows = list(csv.reader(f))
    values = {}
    title = None
    for r in rows:
        if r and r[0] in BLOCKS:
            title = r[0]
        elif title and r and r[0]:
            values[(title, r[0])] = r[1:]
    before = {(t, r[0]): r for t, (_, _, data, _) in found.items() for r in data}

    def grew(title, label, col, by):
        old = before[(title, label)][col]
        new = values.get((title, label), [None] * 5)[col - 1]
        if new is None or float(new) != old + by:
            fail(f'a row added to deals: {title}, {label}: {new}, expected {old + by}')

    grew('Deal length', '80 or more', 3, 1)
    grew('Wins by side', 'Deals gone out', 2, 1)
    grew('Pile takes and frozen piles', '0', 3, 1)
    grew('Pile takes and frozen piles', '3 to 5', 4, 1)
    grew('Deal scores', '500 to 749', 3, 0)
    print('LibreOffice: a row added to the deals sheet counts in the Summary')


def main():
    args = sys.argv[1:]
    lo = args[:1] == ['--libreoffice']
    if lo:
        args = args[1:]
    if len(args) != 2:
        print(__doc__)
        sys.exit(2)
    brp, root = os.path.abspath(args[0]), os.path.abspath(args[1])
    if lo and not shutil.which('soffice'):
        print('SKIP: no LibreOffice (soffice)')
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix='brp-summary.')
    try:
        xlsx, logs = export(brp, root, tmp)
        found = check_tables(xlsx)
        if lo:
            check_pdf(tmp, xlsx, found)
            check_added_row(tmp, xlsx, found)
        else:
            check_charts(xlsx, found)
            check_report(brp, logs, tmp, found)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
