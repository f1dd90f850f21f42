#!/usr/bin/env python3
"""Checks of brp export with the real clients: the sqlite3 shell and Python's csv module.

  export_check.py agree SQLITE3 DB CSVDIR SCHEMA_MD VERIFY_JSONL STATS_JSON
      the CSV files read back (headers as docs/schema.md lists them, row counts), the same
      numbers as the database, and both the same as the engine's (brp verify --json, brp stats --json)
  export_check.py queries SQLITE3 DB SCHEMA_MD
      every example query of docs/schema.md runs in the sqlite3 shell and answers with the
      documented columns (and no row where the doc says so)
  export_check.py names CSVDIR NAMES_FILE
      each name of NAMES_FILE (one JSON string a line) comes back from matches.csv and players.csv
      as text: itself, or itself behind the one ' of the formula-injection rule
Standard library only. Exits 1 with a message on the first difference.
"""
import csv
import io
import json
import os
import re
import subprocess
import sys

FORMULA_START = ('=', '+', '-', '@', '\t', '\r', "'")


def fail(msg):
    print('export_check: ' + msg)
    sys.exit(1)


def read_csv(path):
    with open(path, newline='', encoding='utf-8') as f:
        data = f.read()
    rows = list(csv.reader(io.StringIO(data, newline='')))
    if not rows:
        fail(f'{path}: empty (no header row)')
    return rows[0], rows[1:]


def unguard(v):
    """The formula-injection rule undone: one leading ' removed when there is one."""
    return v[1:] if v.startswith("'") else v


def sql(sqlite3, db, query):
    """Rows of a query through the sqlite3 shell, as CSV (header first)."""
    p = subprocess.run([sqlite3, '-bail', '-header', '-csv', db, query], capture_output=True, text=True,
                       encoding='utf-8')
    if p.returncode != 0:
        fail(f'sqlite3 failed ({p.returncode}) on: {query}\n{p.stderr}')
    return list(csv.reader(io.StringIO(p.stdout, newline='')))


def doc_csv_columns(schema_md):
    """{file: [columns]} from the CSV table of docs/schema.md."""
    cols = {}
    for line in open(schema_md, encoding='utf-8'):
        m = re.match(r'\| `(\w+\.csv)` \|[^|]*\| (.*?) \|', line)
        if m:
            cols[m.group(1)] = re.findall(r'`(\w+)`', m.group(2))
    return cols


def compare(label, want_rows, got_rows, text_cols):
    """Row by row; got (CSV) text columns have the guard undone first."""
    if len(want_rows) != len(got_rows):
        fail(f'{label}: {len(got_rows)} CSV rows, {len(want_rows)} in the database')
    for i, (w, g) in enumerate(zip(want_rows, got_rows)):
        g = [unguard(v) if j in text_cols else v for j, v in enumerate(g)]
        if w != g:
            for j, (a, b) in enumerate(zip(w, g)):
                if a != b:
                    fail(f'{label} row {i + 1} column {j + 1}: database {a!r}, CSV {b!r}')
            fail(f'{label} row {i + 1}: database {w!r}, CSV {g!r}')


def agree(sqlite3, db, csvdir, schema_md, verify_jsonl, stats_json):
    doc = doc_csv_columns(schema_md)
    files = ['matches.csv', 'meta.csv', 'deals.csv', 'deal_scores.csv', 'deal_seats.csv', 'melds.csv',
             'actions.csv', 'players.csv']
    if sorted(doc) != sorted(files):
        fail(f'docs/schema.md documents {sorted(doc)}, expected {sorted(files)}')
    if sorted(f for f in os.listdir(csvdir) if not f.startswith('.')) != sorted(files):
        fail(f'{csvdir} holds {sorted(os.listdir(csvdir))}')
    if [f for f in os.listdir(csvdir) if f.startswith('.')]:
        fail(f'{csvdir}: temporary files left behind: {os.listdir(csvdir)}')
    csvs = {}
    for f in files:
        header, rows = read_csv(os.path.join(csvdir, f))
        if header != doc[f]:
            fail(f'{f}: header {header}, docs/schema.md says {doc[f]}')
        for i, r in enumerate(rows):
            if len(r) != len(header):
                fail(f'{f} row {i + 1}: {len(r)} fields, not {len(header)}')
        csvs[f] = (header, rows)

    # the database, through the sqlite3 shell, in the CSV files' order and columns
    players = ', '.join(f'(SELECT name FROM match_players p WHERE p.match_id = m.match_id AND p.seat = {s}) '
                        f'AS player{s}' for s in range(4))
    # start_time_utc is the database's start_time in the form spreadsheets read as a date
    mcols = [("replace(replace(start_time, 'T', ' '), 'Z', '') AS start_time_utc" if c == 'start_time_utc' else c)
             for c in doc['matches.csv'] if not re.fullmatch(r'player\d', c)]
    queries = {
        'matches.csv': 'SELECT ' + ', '.join(mcols[:11]) + ', ' + players + ', ' + ', '.join(mcols[11:]) +
                       ' FROM matches m ORDER BY match_id',
        'meta.csv': 'SELECT m.hash, x.idx, x.key, x.value FROM match_meta x JOIN matches m USING (match_id) '
                    'ORDER BY m.match_id, x.idx',
        'deals.csv': 'SELECT m.hash, ' + ', '.join('d.' + c for c in doc['deals.csv'][1:]) +
                     ' FROM deals d JOIN matches m USING (match_id) ORDER BY m.match_id, d.deal',
        'deal_scores.csv': 'SELECT m.hash, ' + ', '.join('s.' + c for c in doc['deal_scores.csv'][1:]) +
                           ' FROM deal_scores s JOIN matches m USING (match_id) ORDER BY m.match_id, s.deal, s.side',
        'deal_seats.csv': 'SELECT m.hash, ' + ', '.join('s.' + c for c in doc['deal_seats.csv'][1:]) +
                          ' FROM deal_seats s JOIN matches m USING (match_id) ORDER BY m.match_id, s.deal, s.seat',
        'melds.csv': 'SELECT m.hash, ' + ', '.join('x.' + c for c in doc['melds.csv'][1:]) +
                     ' FROM melds x JOIN matches m USING (match_id) ORDER BY m.match_id, x.deal, x.side, x.idx',
        'actions.csv': 'SELECT m.hash, ' + ', '.join('a.' + c for c in doc['actions.csv'][1:]) +
                       ' FROM actions a JOIN matches m USING (match_id) ORDER BY m.match_id, a.deal, a.seq',
        'players.csv': 'SELECT ' + ', '.join(doc['players.csv']) + ' FROM player_stats ORDER BY name',
    }
    for f in files:
        header, rows = csvs[f]
        result = sql(sqlite3, db, queries[f])
        if not result:
            result = [header]
        if result[0] != header:
            fail(f'{f}: the database query answers with {result[0]}')
        text = {j for j, c in enumerate(header)
                if c in ('hash', 'file', 'profile', 'overrides', 'verdict', 'verdict_detail',
                         'verdict_decision', 'verdict_rule', 'key', 'value', 'name', 'end_kind', 'morto0',
                         'morto1', 'suit', 'category', 'cards', 'kind', 'text') or
                c.startswith('player') and c != 'players'}
        compare(f, result[1:], rows, text)
        print(f'{f}: {len(rows)} rows, the same as the database')

    # the engine's own verdicts and totals (brp verify --json, one object a line)
    verdicts = {}
    for line in open(verify_jsonl, encoding='utf-8'):
        v = json.loads(line)
        verdicts[v['file']] = v
    header, rows = csvs['matches.csv']
    col = {c: j for j, c in enumerate(header)}
    if len(rows) != len(verdicts):
        fail(f'matches.csv has {len(rows)} rows, brp verify judged {len(verdicts)} logs')
    sums = {}
    for r in csvs['deal_scores.csv'][1]:
        key = (r[0], int(r[2]))
        sums[key] = sums.get(key, 0) + int(r[14])
    for r in rows:
        v = verdicts.get(unguard(r[col['file']]))
        if v is None:
            fail(f'{r[col["file"]]}: not judged by brp verify')
        if r[col['verdict']] != v['verdict']:
            fail(f'{r[col["file"]]}: exported verdict {r[col["verdict"]]}, brp verify says {v["verdict"]}')
        if unguard(r[col['verdict_detail']]) != v['message']:
            fail(f'{r[col["file"]]}: detail {r[col["verdict_detail"]]!r}, brp verify says {v["message"]!r}')
        if v['verdict'] == 'ok':
            got = [int(r[col['total0']]), int(r[col['total1']]), int(r[col['winner']]), int(r[col['deals']]),
                   int(r[col['decisions']])]
            want = v['total'] + [v['winner'], v['deals'], v['decisions']]
            if got != want:
                fail(f'{r[col["file"]]}: totals, winner, deals, decisions {got}, brp verify says {want}')
            for s in (0, 1):
                if sums.get((r[0], s)) != v['total'][s]:
                    fail(f'{r[col["file"]]}: side {s} deal scores add up to {sums.get((r[0], s))}, '
                         f'not {v["total"][s]}')
        elif r[col['deals']] or r[col['total0']] or r[col['winner']]:
            fail(f'{r[col["file"]]}: not ok, yet exported with totals')
    print(f'matches.csv: every verdict, total, winner and deal count as brp verify says')

    # the engine's event counts (brp stats --json) against the sums of the deals and scores
    stats = json.load(open(stats_json, encoding='utf-8'))
    dh, drows = csvs['deals.csv']
    dc = {c: j for j, c in enumerate(dh)}
    sh, srows = csvs['deal_scores.csv']
    sc = {c: j for j, c in enumerate(sh)}

    def total(rows, j):
        return sum(int(r[j]) for r in rows)
    mine = {
        'matches': sum(1 for r in rows if r[col['verdict']] == 'ok'),
        'deals': len(drows),
        'turns': total(drows, dc['turns']),
        'decisions': total(drows, dc['decisions']),
        'pile_taken': total(drows, dc['pile_taken']),
        'pile_frozen': total(drows, dc['pile_frozen']),
        'rejects': total(drows, dc['rejects']),
        'morto_direct': total(drows, dc['morto_direct']),
        'morto_indirect': total(drows, dc['morto_indirect']),
        'morto_to_stock': total(drows, dc['morto_to_stock']),
        'vulnerable_open': total(drows, dc['vulnerable_open']),
        'ended_out': sum(1 for r in drows if r[dc['end_kind']] == 'out'),
        'ended_stock': sum(1 for r in drows if r[dc['end_kind']] == 'stock'),
    }
    for k, v in mine.items():
        if stats[k] != v:
            fail(f'{k}: the export says {v}, brp stats {stats[k]}')
    for cat in ('dirty', 'clean', 'clean13', 'clean14', 'dirty14'):
        v = total(srows, sc['canastras_' + cat])
        if stats['canastras'][cat] != v:
            fail(f'canastras {cat}: the export says {v}, brp stats {stats["canastras"][cat]}')
    for k in ('illegal', 'mismatch', 'incomplete', 'malformed'):
        v = sum(1 for r in rows if r[col['verdict']] == k)
        if stats['verdicts'][k] != v:
            fail(f'verdict {k}: the export says {v}, brp stats {stats["verdicts"][k]}')
    # the morto columns agree with the counts
    for r in drows:
        fates = [r[dc['morto0']], r[dc['morto1']]]
        if (fates.count('direct'), fates.count('indirect'), fates.count('stock')) != \
                (int(r[dc['morto_direct']]), int(r[dc['morto_indirect']]), int(r[dc['morto_to_stock']])):
            fail(f'deals.csv {r[0]} deal {r[1]}: morto fates {fates} disagree with the counts')
    print(f'deals.csv, deal_scores.csv: every count as brp stats says ({mine["deals"]} deals)')

    # players.csv is counted by the library in C, player_stats by SQL: compared above
    if not csvs['players.csv'][1]:
        fail('players.csv is empty')


def queries(sqlite3, db, schema_md):
    text = open(schema_md, encoding='utf-8').read()
    section = text.split('## Example queries', 1)
    if len(section) != 2:
        fail('docs/schema.md has no "## Example queries" section')
    blocks = re.findall(r'```sql\n(.*?)```\s*\n\s*Columns: (.*?)\. (.*?)(?:\n\n|\Z)', section[1], re.S)
    count = section[1].count('```sql')
    if count == 0 or len(blocks) != count:
        fail(f'docs/schema.md: {count} sql blocks, {len(blocks)} with a "Columns:" line after them')
    for query, cols, rows_text in blocks:
        want = re.findall(r'`(\w+)`', cols)
        result = sql(sqlite3, db, query)
        no_row = rows_text.strip().startswith('No row')
        if no_row:
            if result:
                fail(f'this query should answer with no row:\n{query}\nit answers:\n{result}')
        else:
            if len(result) < 2:
                fail(f'this query answers with no row:\n{query}')
            if result[0] != want:
                fail(f'this query answers with columns {result[0]}, the doc says {want}:\n{query}')
        print(f'ok: {len(result) - 1 if result else 0} rows: {query.splitlines()[0][:80]}')
    print(f'{len(blocks)} example queries of docs/schema.md answer as documented')


def names(csvdir, names_file):
    want = [json.loads(line) for line in open(names_file, encoding='utf-8') if line.strip()]
    header, rows = read_csv(os.path.join(csvdir, 'matches.csv'))
    col = {c: j for j, c in enumerate(header)}
    got = set()
    for r in rows:
        for s in range(4):
            got.add(r[col[f'player{s}']])
    ph, prows = read_csv(os.path.join(csvdir, 'players.csv'))
    pgot = {r[0] for r in prows}
    mh, mrows = read_csv(os.path.join(csvdir, 'meta.csv'))
    mgot = {r[2] for r in mrows} | {r[3] for r in mrows}
    for n in want:
        written = "'" + n if n.startswith(FORMULA_START) else n
        for label, pool in (('matches.csv', got), ('players.csv', pgot)):
            if written not in pool:
                fail(f'{label}: {n!r} not found as {written!r}; it holds {sorted(pool)!r}')
    for pool_label, pool in (('matches.csv', got), ('players.csv', pgot), ('meta.csv', mgot)):
        for v in pool:
            if v.startswith(('=', '+', '-', '@', '\t', '\r')):
                fail(f'{pool_label}: {v!r} would be a formula in a spreadsheet')
    if "'@SUM(A1:A9)" not in mgot or "'=1+1" not in mgot:
        fail(f'meta.csv: the hostile metadata is not there, guarded: {sorted(mgot)!r}')
    print(f'{len(want)} hostile names come back as text from matches.csv and players.csv')


def main(argv):
    if len(argv) >= 2 and argv[1] == 'agree' and len(argv) == 8:
        agree(*argv[2:])
    elif len(argv) >= 2 and argv[1] == 'queries' and len(argv) == 5:
        queries(*argv[2:])
    elif len(argv) >= 2 and argv[1] == 'names' and len(argv) == 4:
        names(*argv[2:])
    else:
        fail(__doc__)


if __name__ == '__main__':
    main(sys.argv)
