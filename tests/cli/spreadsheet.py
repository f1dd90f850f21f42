#!/usr/bin/python3
"""brp export --xlsx and --csv --bom, read back by the programs analysts use.

  spreadsheet.py BRP SRCROOT

1. A match whose names and metadata are hard for spreadsheets ("José, o Ás", "007", "3,5",
   =HYPERLINK(...), a leading ') is imported and exported to a workbook and to CSV files with a BOM.
2. openpyxl reads the workbook: one sheet a table with the CSV files' columns, the header frozen, an
   autofilter over every row, widths that fit; every text cell exactly as written and of type text;
   integers as numbers; start_time_utc a date; every sheet has the CSV file's rows. The workbook's
   first sheet, Summary, is checked by summary.py.
3. LibreOffice (headless, when installed), under pt_BR and en_US: the workbook converted to CSV gives
   the texts exactly, the date as written and the numbers; the CSV file with its BOM, converted with
   the import options docs/schema.md gives, keeps the accents and the texts and reads the time as a
   date. Without LibreOffice, part 3 is skipped with a message (exit 77 only if nothing else ran).
"""
import csv
import datetime
import io
import os
import shutil
import subprocess
import sys
import tempfile

import openpyxl

NAMES = ['José, o Ás', '007', '3,5', '=HYPERLINK("http://example.com","clique")']
META = [('mesa', "'Mesa 7"), ('cidade', 'São Paulo'), ('nota', '+55 11')]
START = datetime.datetime(2026, 11, 30, 1, 58, 23)
SHEETS = ['matches', 'meta', 'deals', 'deal_scores', 'deal_seats', 'melds', 'actions', 'players']


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


def run(*args, **kw):
    p = subprocess.run(list(args), capture_output=True, text=True, **kw)
    if p.returncode != 0:
        fail(f'{" ".join(args)}: exit {p.returncode}: {p.stderr.strip()}')
    return p.stdout


def make_log(brp, root, tmp):
    """samples/short-stbl.txt with the hard names and metadata."""
    lines = []
    for line in open(os.path.join(root, 'samples', 'short-stbl.txt'), encoding='utf-8'):
        if line.startswith('[Seat ') or line.startswith('[Meta '):
            continue
        lines.append(line)
        if line.startswith('[Players '):
            for seat, name in enumerate(NAMES):
                lines.append('[Seat "%d" "%s"]\n' % (seat, name.replace('\\', '\\\\').replace('"', '\\"')))
            for k, v in META:
                lines.append('[Meta "%s" "%s"]\n' % (k, v))
    text = os.path.join(tmp, 'hard.txt')
    with open(text, 'w', encoding='utf-8') as f:
        f.writelines(lines)
    log = os.path.join(tmp, 'logs', 'hard.brp')
    os.makedirs(os.path.dirname(log))
    run(brp, 'import', text, '-o', log)
    shutil.copy(os.path.join(root, 'samples', 'stbl-4p.brp'), os.path.join(tmp, 'logs', 'stbl-4p.brp'))
    shutil.copy(os.path.join(root, 'samples', 'disputed', 'pile-frozen.brp'),
                os.path.join(tmp, 'logs', 'pile-frozen.brp'))
    return os.path.join(tmp, 'logs')


def read_csv(path):
    with open(path, encoding='utf-8', newline='') as f:
        data = f.read()
    if not data.startswith('\ufeff'):
        fail(f'{path}: no byte order mark with --bom')
    return list(csv.reader(io.StringIO(data[1:], newline='')))


def check_workbook(xlsx, csvdir):
    wb = openpyxl.load_workbook(xlsx)
    if wb.sheetnames != ['Summary'] + SHEETS:
        fail(f'sheets {wb.sheetnames}, expected Summary and {SHEETS}')
    for name in SHEETS:
        ws = wb[name]
        rows = read_csv(os.path.join(csvdir, name + '.csv'))
        got = [[c.value for c in r] for r in ws.iter_rows()]
        if [str(v) for v in got[0]] != rows[0]:
            fail(f'sheet {name}: header {got[0]}, the CSV file has {rows[0]}')
        if len(got) != len(rows):
            fail(f'sheet {name}: {len(got)} rows, the CSV file {len(rows)}')
        if ws.freeze_panes != 'A2':
            fail(f'sheet {name}: frozen at {ws.freeze_panes}, not below the header')
        last = openpyxl.utils.get_column_letter(len(rows[0]))
        if ws.auto_filter.ref != f'A1:{last}{len(rows)}':
            fail(f'sheet {name}: autofilter {ws.auto_filter.ref}, expected A1:{last}{len(rows)}')
        for j, h in enumerate(rows[0]):
            width = ws.column_dimensions[openpyxl.utils.get_column_letter(j + 1)].width
            if not width or width < len(h):
                fail(f'sheet {name}: column {h} is {width} wide, narrower than its header')
        # every cell of the sheet is the CSV file's field, typed
        for i, (wrow, crow) in enumerate(zip(ws.iter_rows(min_row=2), rows[1:])):
            for cell, field, h in zip(wrow, crow, rows[0]):
                v = cell.value
                if field == '':
                    if v is not None:
                        fail(f'sheet {name} row {i + 2} {h}: {v!r} where the CSV field is empty')
                elif h == 'start_time_utc':
                    if not isinstance(v, datetime.datetime) or v.strftime('%Y-%m-%d %H:%M:%S') != field:
                        fail(f'sheet {name} row {i + 2} {h}: {v!r}, not the date {field}')
                elif isinstance(v, str):
                    want = field[1:] if field.startswith("'") else field  # the CSV formula guard
                    if v != want or cell.data_type != 's':
                        fail(f'sheet {name} row {i + 2} {h}: {v!r} ({cell.data_type}), CSV {field!r}')
                elif isinstance(v, (int, float)) and not isinstance(v, bool):
                    if v != int(field) or cell.data_type != 'n':
                        fail(f'sheet {name} row {i + 2} {h}: {v!r}, CSV {field!r}')
                else:
                    fail(f'sheet {name} row {i + 2} {h}: unexpected {v!r}')
    ws = wb['matches']
    header = [c.value for c in ws[1]]
    hard = [r for r in ws.iter_rows(min_row=2, values_only=True) if r[header.index('file')].endswith('hard.brp')]
    if len(hard) != 1:
        fail('the hard match is not in the matches sheet once')
    r = dict(zip(header, hard[0]))
    for seat, name in enumerate(NAMES):
        if r[f'player{seat}'] != name:
            fail(f'player{seat}: {r[f"player{seat}"]!r}, written {name!r}')
    if r['start_time_utc'] != START:
        fail(f'start_time_utc: {r["start_time_utc"]!r}, not {START}')
    if not isinstance(r['bytes'], int) or not isinstance(r['players'], int):
        fail('bytes and players are not numbers')
    meta = [(k, v) for (_, _, k, v) in wb['meta'].iter_rows(min_row=2, values_only=True) if k in dict(META)]
    if sorted(meta) != sorted(META):
        fail(f'meta: {meta}, written {META}')
    print(f'openpyxl: {len(SHEETS)} sheets, every cell the CSV field with its type; the names exact')


def soffice_convert(soffice, tmp, env_locale, src, target, outdir, infilter=None, sheet=None):
    profile = os.path.join(tmp, 'lo-profile')
    env = dict(os.environ, LC_ALL=env_locale, LANG=env_locale, LANGUAGE='', HOME=tmp)
    args = [soffice, '--headless', '--norestore', f'-env:UserInstallation=file://{profile}']
    if infilter:
        args.append(f'--infilter={infilter}')
    args += ['--convert-to', target, '--outdir', outdir, src]
    p = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
    base = os.path.splitext(os.path.basename(src))[0]
    if sheet:  # one sheet of many: LibreOffice names the file after it
        base += '-' + sheet
    out = os.path.join(outdir, base + '.' + target.split(':')[0])
    if p.returncode != 0 or not os.path.exists(out):
        fail(f'LibreOffice ({env_locale}) did not convert {src}: {p.stdout} {p.stderr}')
    return out


def check_libreoffice(soffice, tmp, xlsx, csvdir):
    infilter = 'CSV:44,34,76,1,,0,true,true'  # docs/schema.md: quoted fields as text, special numbers
    for loc in ('pt_BR.UTF-8', 'en_US.UTF-8'):
        out = os.path.join(tmp, 'lo-' + loc)
        os.makedirs(out)
        # the workbook, as LibreOffice reads it, written back as CSV: its second sheet, matches (the
        # twelfth token; the seventh to eleventh as LibreOffice's defaults for an export)
        got = soffice_convert(soffice, tmp, loc, xlsx,
                              'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,2', out,
                              sheet='matches')
        with open(got, encoding='utf-8', newline='') as f:
            rows = list(csv.reader(f))
        header = rows[0]
        hard = [r for r in rows[1:] if r[header.index('file')].endswith('hard.brp')]
        if len(hard) != 1:
            fail(f'LibreOffice {loc}: the hard match is not in matches once')
        r = dict(zip(header, hard[0]))
        for seat, name in enumerate(NAMES):
            if r[f'player{seat}'] != name:
                fail(f'LibreOffice {loc}: player{seat} reads {r[f"player{seat}"]!r}, written {name!r}')
        if r['start_time_utc'] != START.strftime('%Y-%m-%d %H:%M:%S'):
            fail(f'LibreOffice {loc}: start_time_utc reads {r["start_time_utc"]!r}')
        if r['players'] != '4' or not r['bytes'].isdigit():
            fail(f'LibreOffice {loc}: numbers read as {r["players"]!r}, {r["bytes"]!r}')

        # the CSV file with its BOM, imported as docs/schema.md says, saved as a workbook
        src = os.path.join(out, 'matches.csv')
        shutil.copy(os.path.join(csvdir, 'matches.csv'), src)
        wbpath = soffice_convert(soffice, tmp, loc, src, 'xlsx', os.path.join(out, 'x'), infilter)
        ws = openpyxl.load_workbook(wbpath)['matches']
        header = [c.value for c in ws[1]]
        if header[0] != 'hash':
            fail(f'LibreOffice {loc}: the CSV header reads {header[:2]} (the BOM not understood)')
        hard = [row for row in ws.iter_rows(min_row=2, values_only=True)
                if str(row[header.index('file')]).endswith('hard.brp')]
        r = dict(zip(header, hard[0]))
        for seat, name in enumerate(NAMES):
            want = "'" + name if name.startswith('=') else name  # the CSV formula guard stays visible
            if r[f'player{seat}'] != want:
                fail(f'LibreOffice {loc}: CSV player{seat} reads {r[f"player{seat}"]!r}, written {want!r}')
        if r['start_time_utc'] != START:
            fail(f'LibreOffice {loc}: CSV start_time_utc reads {r["start_time_utc"]!r}, not a date')
        if r['players'] != 4:
            fail(f'LibreOffice {loc}: CSV players reads {r["players"]!r}, not a number')
        print(f'LibreOffice {loc}: the workbook and the CSV file read back as written')


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    brp, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix='brp-sheet.')
    try:
        logs = make_log(brp, root, tmp)
        xlsx = os.path.join(tmp, 'games.xlsx')
        csvdir = os.path.join(tmp, 'csv')
        run(brp, 'export', '-q', '--actions', '--xlsx', xlsx, '--csv', csvdir, '--bom', logs)
        if os.path.exists(xlsx + '.part~'):
            fail('the temporary workbook was left behind')
        check_workbook(xlsx, csvdir)
        soffice = shutil.which('soffice')
        if soffice:
            check_libreoffice(soffice, tmp, xlsx, csvdir)
        else:
            print('SKIP: no LibreOffice (soffice): the workbook was checked with openpyxl only')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
