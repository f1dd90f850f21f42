#!/usr/bin/env bash
# brp export, checked with the real clients (the sqlite3 shell, Python's csv module).
#
#   export.sh MODE BRP SRCROOT SQLITE3 PYTHON3
#
#   agree     a corpus (three profiles, both table sizes, a rule override, the disputed samples)
#             exported to SQLite and CSV: both agree with each other and with brp verify and
#             brp stats; -j gives the same bytes; --actions stores every decision
#   queries   every example query of docs/schema.md runs in the sqlite3 shell as documented (on a corpus
#             that holds copies of one match that verify differently)
#   failures  an export killed mid-way leaves the database as it was and a rerun completes it; a
#             double export adds nothing; two exports into one database at once both succeed; a
#             killed CSV export leaves every file whole, as before or as the new export writes it;
#             schema versions are checked
#   hostile   player names and metadata that a spreadsheet would take for formulas, or that hold
#             quotes, commas, newlines or bad UTF-8, come back as text
set -euo pipefail
mode=$1 brp=$2 src=$3 sqlite3=$4 python3=$5
case $brp in /*) ;; *) brp=$PWD/$brp ;; esac
case $src in /*) ;; *) src=$PWD/$src ;; esac
check="$python3 $src/tests/cli/export_check.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LC_ALL=C TZ=UTC
cd "$work"

die() {
	echo "FAIL: $*"
	exit 1
}

q() { "$sqlite3" -bail db "$@"; }

# a corpus of matches: 3 profiles, 2 and 4 players, one with a rule override, in c/
corpus() {
	local n=$1
	mkdir -p c
	"$brp" simulate -r kzv -p 4 -n "$n" --seed 11 -b mixed -j 2 -q -o c/kzv4
	"$brp" simulate -r stbl -p 2 -n "$n" --seed 12 -b mixed -t 1500 -j 2 -q -o c/stbl2
	"$brp" simulate -r aberto -p 4 -n "$n" --seed 13 -b mixed -j 2 -q -o c/aberto4
}

# the content of a database, whatever the order rows were added in (match_id differs)
content() {
	"$sqlite3" -bail "$1" "
		SELECT hash, file, bytes, profile, overrides, verdict, verdict_detail, deals, winner, total0, total1
		FROM matches ORDER BY hash;
		SELECT m.hash, d.deal, d.dealer, d.first_seat, d.end_kind, d.out_seat, d.turns, d.decisions, d.morto0,
		d.morto1 FROM deals d JOIN matches m USING (match_id) ORDER BY m.hash, d.deal;
		SELECT m.hash, s.deal, s.side, s.melded, s.bonus, s.canastras, s.going_out, s.hand, s.morto, s.total,
		s.match_total FROM deal_scores s JOIN matches m USING (match_id) ORDER BY m.hash, s.deal, s.side;
		SELECT m.hash, x.deal, x.side, x.idx, x.cards FROM melds x JOIN matches m USING (match_id)
		ORDER BY m.hash, x.deal, x.side, x.idx;
		SELECT * FROM player_stats ORDER BY name;"
}

# no deal without its match, no ok match without its deals, every deal with its scores
orphans() {
	local n
	n=$(q "SELECT (SELECT count(*) FROM deals WHERE match_id NOT IN (SELECT match_id FROM matches))
		+ (SELECT count(*) FROM deal_scores WHERE match_id NOT IN (SELECT match_id FROM matches))
		+ (SELECT count(*) FROM matches WHERE verdict = 'ok' AND match_id NOT IN (SELECT match_id FROM deals))
		+ (SELECT count(*) FROM matches WHERE verdict = 'ok' AND deals <> (SELECT count(*) FROM deals d
		   WHERE d.match_id = matches.match_id))
		+ (SELECT count(*) FROM deals d WHERE 2 <> (SELECT count(*) FROM deal_scores s
		   WHERE s.match_id = d.match_id AND s.deal = d.deal))")
	[ "$n" = 0 ] || die "$n partial matches or orphan rows in the database"
	# every meld and every seat's deal row is there: they add up to their deal's score and counts
	n=$(q "SELECT (SELECT count(*) FROM deal_scores s WHERE
		   melded <> (SELECT coalesce(sum(points), 0) FROM melds x
		              WHERE x.match_id = s.match_id AND x.deal = s.deal AND x.side = s.side)
		   OR bonus <> (SELECT coalesce(sum(bonus), 0) FROM melds x
		                WHERE x.match_id = s.match_id AND x.deal = s.deal AND x.side = s.side)
		   OR canastras <> (SELECT count(*) FROM melds x
		                    WHERE x.match_id = s.match_id AND x.deal = s.deal AND x.side = s.side AND category <> 'none'))
		+ (SELECT count(*) FROM deals d WHERE
		   turns <> (SELECT sum(turns) FROM deal_seats t WHERE t.match_id = d.match_id AND t.deal = d.deal)
		   OR decisions <> (SELECT sum(draws + takes + rejects + melds + adds + discards + mortos) FROM deal_seats t
		                    WHERE t.match_id = d.match_id AND t.deal = d.deal)
		   OR (SELECT players FROM matches m WHERE m.match_id = d.match_id) <>
		      (SELECT count(*) FROM deal_seats t WHERE t.match_id = d.match_id AND t.deal = d.deal))")
	[ "$n" = 0 ] || die "$n deals whose melds or seat rows do not add up to the deal"
	[ "$(q 'PRAGMA integrity_check')" = ok ] || die "integrity_check: $(q 'PRAGMA integrity_check')"
	[ "$(q 'PRAGMA foreign_key_check' | wc -l)" = 0 ] || die "foreign_key_check: $(q 'PRAGMA foreign_key_check')"
}

case $mode in
agree)
	corpus 20
	mkdir c/disputed
	cp "$src"/samples/disputed/*.brp "$src"/samples/*.brp c/disputed/
	start=$(date +%s%N)
	"$brp" export -q -j 3 --actions --sqlite db c
	"$brp" export -q --actions --csv csv c
	end=$(date +%s%N)
	echo "exported $(q 'SELECT count(*) FROM matches') logs to SQLite and CSV in $(((end - start) / 1000000)) ms"
	"$brp" verify --json c > verify.jsonl || true
	"$brp" stats --json c > stats.json || [ $? -eq 3 ] # the disputed logs: exit 3, as brp verify
	$check agree "$sqlite3" db csv "$src/docs/schema.md" verify.jsonl stats.json
	orphans

	# the decisions: one row each, as many as the matches' decisions
	[ "$(q "SELECT count(*) FROM actions")" = "$(q "SELECT sum(decisions) FROM matches WHERE verdict = 'ok'")" ] ||
		die "the actions table does not hold every decision"
	[ "$(q "SELECT count(*) FROM matches WHERE verdict = 'ok' AND actions_stored = 0")" = 0 ] ||
		die "actions_stored not set"
	[ "$(q "SELECT text FROM actions a JOIN matches m USING (match_id) WHERE m.file = 'c/disputed/stbl-4p.brp'
		AND a.deal = 1 AND a.seq = 1")" = "$("$brp" dump c/disputed/stbl-4p.brp | sed -n 's/^1\. [0-9]: \([a-z]*\).*/\1/p' | head -1)" ] ||
		die "the first decision of stbl-4p.brp is not its first decision in notation"

	# the overrides and the start time
	[ "$(q "SELECT DISTINCT overrides FROM matches WHERE file LIKE 'c/stbl2/%'")" = '{"target":1500}' ] ||
		die "overrides: $(q "SELECT DISTINCT overrides FROM matches WHERE file LIKE 'c/stbl2/%'")"
	[ "$(q "SELECT start_time, start_unix FROM matches WHERE file = 'c/kzv4/match-000002.brp'")" = \
		"2026-01-01T01:00:00Z|1767229200" ] || die "start time: $(q "SELECT start_time, start_unix FROM matches WHERE file = 'c/kzv4/match-000002.brp'")"

	# the same result whatever -j: the database and the CSV bytes
	"$brp" export -q -j 1 --actions --sqlite db1 c
	"$sqlite3" db .dump > dump3
	"$sqlite3" db1 .dump > dump1
	cmp -s dump1 dump3 || die "-j 3 and -j 1 give different databases"
	"$brp" export -q -j 4 --actions --csv csv4 c
	for f in csv/*.csv; do
		cmp -s "$f" "csv4/$(basename "$f")" || die "-j 4 and -j 1 give different $(basename "$f")"
	done
	# the CSV does not depend on the locale either
	loc=$(locale -a 2> /dev/null | grep -E '^(pt_BR|de_DE|fr_FR|tr_TR)' | head -1 || true)
	LC_ALL=${loc:-C.UTF-8} TZ=America/Sao_Paulo "$brp" export -q --actions --csv csvloc c
	for f in csv/*.csv; do
		cmp -s "$f" "csvloc/$(basename "$f")" || die "${loc:-C.UTF-8}: a different $(basename "$f")"
	done
	echo "agree: SQLite, CSV, brp verify and brp stats agree; -j and the locale change nothing"
	;;

queries)
	corpus 10
	cp "$src"/samples/disputed/*.brp c/
	# copies of one match that verify differently (tests/cli/copies.py): the queries of copies answer
	"$python3" "$src/tests/cli/copies.py" make "$brp" "$src" c/copies > /dev/null
	"$brp" export -q --sqlite db c
	# two samples reviewed, at the smallest strength, for the queries of the review (docs/schema.md)
	"$brp" export -q --sqlite db --review-strength 2 "$src"/samples/stbl-2p.brp "$src"/samples/stbl-4p.brp
	# and screened, for the queries of the integrity screen: rows the database has take its evidence
	"$brp" export -q --sqlite db --integrity "$src"/samples/stbl-2p.brp "$src"/samples/stbl-4p.brp
	$check queries "$sqlite3" db "$src/docs/schema.md"
	# version 2: the usual filters use their index; seat_results says what side = winner says by hand
	for f in "profile = 'stbl' AND players = 4:matches_profile" "start_unix >= 0:matches_start" \
		"verdict = 'illegal':matches_verdict"; do
		plan=$(q "EXPLAIN QUERY PLAN SELECT count(*) FROM matches WHERE ${f%:*}")
		echo "$plan" | grep -q "USING .*INDEX ${f##*:}" || die "WHERE ${f%:*} does not use ${f##*:}: $plan"
	done
	a=$(q "SELECT seat, count(*), sum(won) FROM seat_results GROUP BY seat ORDER BY seat")
	# by hand: each match once, from its first ok copy (the corpus holds copies of one match)
	b=$(q "SELECT mp.seat, count(*), sum(m.winner = mp.side) FROM matches m JOIN match_players mp USING (match_id)
		WHERE m.match_id IN (SELECT min(match_id) FROM matches WHERE verdict = 'ok' GROUP BY coalesce(identity, hash))
		GROUP BY mp.seat ORDER BY mp.seat")
	[ -n "$a" ] && [ "$a" = "$b" ] || die "seat_results by seat: $a, by hand: $b"
	;;

failures)
	corpus 10
	mkdir big
	"$brp" simulate -r kzv -p 4 -n 150 --seed 21 -b mixed -j 2 -q -o big

	# schema versions: a database the sqlite3 shell made from schema/001 is accepted as version 1
	"$sqlite3" -bail v1.db < "$src/schema/001-initial.sql"
	"$brp" export -q --sqlite v1.db c/kzv4 || die "a database made from schema/001-initial.sql is refused"
	# a newer schema, and a database that is not an export, are refused
	"$sqlite3" newer.db "CREATE TABLE t (x); PRAGMA user_version = 99;"
	rc=0
	"$brp" export -q --sqlite newer.db c/kzv4 2> err || rc=$?
	[ $rc = 3 ] && grep -q 'schema version 99, newer' err || die "a newer schema: rc $rc, $(cat err)"
	"$sqlite3" other.db "CREATE TABLE t (x);"
	rc=0
	"$brp" export -q --sqlite other.db c/kzv4 2> err || rc=$?
	[ $rc = 3 ] && grep -q 'not an export' err || die "a foreign database: rc $rc, $(cat err)"

	# a first batch, committed
	"$brp" export -q --sqlite db c
	before=$(content db)
	nbefore=$(q "SELECT count(*) FROM matches")

	# double export: nothing added
	out=$("$brp" export --sqlite db c)
	case $out in *" 0 added"*) ;; *) die "the second export says: $out" ;; esac
	[ "$(content db)" = "$before" ] || die "a double export changed the database"

	# kill an export mid-way (the big corpus listed 4 times on stdin: slow enough to be caught)
	killed=0
	for delay in 0.3 0.15 0.05; do
		for i in 1 2 3 4; do printf '%s\n' big/*.brp; done > list
		"$brp" export -q --actions --sqlite db - < list &
		pid=$!
		sleep "$delay"
		kill -KILL $pid 2> /dev/null || true
		rc=0
		wait $pid || rc=$?
		if [ $rc = 137 ]; then
			killed=1
			# a hot journal shows the kill came after the batch had written pages (0: before)
			echo "killed after ${delay}s; journal bytes: $(stat -c %s db-journal 2> /dev/null || echo 0)"
			break
		fi
		# it finished before the kill: undo it and try sooner
		rm -f db db-journal db-wal db-shm
		"$brp" export -q --sqlite db c
	done
	[ $killed = 1 ] || die "the export always finished before it could be killed"
	orphans
	[ "$(q "SELECT count(*) FROM matches")" = "$nbefore" ] || die "a killed export left $(q "SELECT count(*) FROM matches") matches, not $nbefore"
	[ "$(content db)" = "$before" ] || die "a killed export changed the database"
	# the rerun completes it, and equals an export that was never killed
	"$brp" export -q --actions --sqlite db - < list
	orphans
	"$brp" export -q --sqlite fresh.db c
	"$brp" export -q --sqlite fresh.db big
	[ "$(content db)" = "$(content fresh.db)" ] || die "the rerun after a kill differs from a clean export"
	echo "kill: the database stayed as before the batch; the rerun completed it"

	# two exports into one new database at once, and a reader meanwhile
	rm -f db db-journal db-wal db-shm
	"$brp" export -q --actions --sqlite db big & p1=$!
	"$brp" export -q --sqlite db c & p2=$!
	sleep 0.1
	if [ -f db ]; then
		"$sqlite3" db "SELECT count(*) FROM matches" > /dev/null 2>&1 || true
	fi
	rc1=0 rc2=0
	wait $p1 || rc1=$?
	wait $p2 || rc2=$?
	[ $rc1 = 0 ] && [ $rc2 = 0 ] || die "concurrent exports: exit $rc1 and $rc2"
	orphans
	[ "$(content db)" = "$(content fresh.db)" ] || die "two concurrent exports differ from one after the other"
	echo "concurrent: both exports succeeded; the database holds both"

	# the journal mode is the file's: a new database has the rollback journal, a WAL one stays WAL
	[ "$("$sqlite3" db 'PRAGMA journal_mode')" = delete ] || die "a new database is in journal mode $("$sqlite3" db 'PRAGMA journal_mode')"
	rm -f wal.db*
	[ "$("$sqlite3" wal.db 'PRAGMA journal_mode = WAL')" = wal ] || die "cannot make a WAL database"
	"$brp" export -q --sqlite wal.db c
	"$brp" export -q --sqlite wal.db big
	[ "$("$sqlite3" wal.db 'PRAGMA journal_mode')" = wal ] || die "an export took the database out of WAL mode"
	[ "$(content wal.db)" = "$(content fresh.db)" ] || die "an export into a WAL database differs"
	echo "journal: new databases use the rollback journal; a WAL database stays in WAL"

	# a CSV export killed mid-way leaves the previous files whole, and no partial one
	"$brp" export -q --csv out c
	cp -r out out.before
	killed=0
	for delay in 0.3 0.15 0.05; do
		"$brp" export -q --csv out - < list &
		pid=$!
		sleep "$delay"
		kill -KILL $pid 2> /dev/null || true
		rc=0
		wait $pid || rc=$?
		[ $rc = 137 ] && killed=1 && break
		rm -rf out && cp -r out.before out
	done
	[ $killed = 1 ] || die "the CSV export always finished before it could be killed"
	# each file is put in place whole by its own rename: a kill among the renames leaves some files
	# of the new export beside the rest of the old one, but never a file that is neither
	"$brp" export -q --csv out.after - < list
	for f in out.before/*.csv; do
		b=$(basename "$f")
		cmp -s "$f" "out/$b" || cmp -s "out.after/$b" "out/$b" ||
			die "a killed CSV export left $b neither as it was nor as a whole export writes it"
	done
	ls out | grep -v '\.csv$' | grep -q . && die "a killed CSV export left a file that is not a table: $(ls out | grep -v '\.csv$')"
	echo "csv kill: every file is whole, the previous one or the new one"
	;;

hostile)
	"$brp" simulate -r kzv -p 4 -n 2 --seed 5 -q -o sim
	# names and metadata a spreadsheet would take for formulas, or hard to quote
	"$python3" - sim "$brp" <<'EOF'
import json, subprocess, sys
sim, brp = sys.argv[1], sys.argv[2]
names = [['=HYPERLINK("x")', '+1', '@SUM(A1)', '-2'],
         ['a "quoted", name', 'line\nbreak', "'apostrophe", 'Jos\u00e9\tTab']]
raw = [[n.encode() for n in names[0]], [n.encode() for n in names[1]]]
raw[1][3] = b'bad\xffbyte'          # not UTF-8: exported as U+FFFD
expect = names[0] + names[1][:3] + ['bad\ufffdbyte']
def esc(b):
    out = ''
    for c in b:
        if c in (0x22, 0x5c):
            out += '\\' + chr(c)
        elif 0x20 <= c < 0x7f:
            out += chr(c)
        else:
            out += '\\x%02x' % c
    return out
for m in (0, 1):
    text = subprocess.run([brp, 'dump', f'{sim}/match-00000{m + 1}.brp'], capture_output=True, check=True).stdout
    lines = []
    for line in text.decode().splitlines():
        if line.startswith('[Seat '):
            seat = int(line.split('"')[1])
            line = f'[Seat "{seat}" "{esc(raw[m][seat])}"]'
        lines.append(line)
        if line.startswith('[FirstDealer'):
            lines.append('[Meta "=1+1" "@SUM(A1:A9)"]')
    open(f'hostile{m}.txt', 'w').write('\n'.join(lines) + '\n')
with open('names.jsonl', 'w') as f:
    for n in expect:
        f.write(json.dumps(n) + '\n')
EOF
	mkdir logs
	"$brp" import hostile0.txt -o logs/hostile0.brp
	"$brp" import hostile1.txt -o logs/hostile1.brp
	"$brp" verify -q logs || die "the hostile logs do not verify ok"
	"$brp" export -q --sqlite db --csv csv logs
	$check names csv names.jsonl
	# SQLite keeps the text exactly (no guard there)
	"$python3" - db "$sqlite3" <<'EOF'
import csv, io, json, subprocess, sys
db, sqlite3 = sys.argv[1], sys.argv[2]
out = subprocess.run([sqlite3, '-csv', db, 'SELECT name FROM match_players ORDER BY match_id, seat'],
                     capture_output=True, text=True, check=True).stdout
got = [r[0] for r in csv.reader(io.StringIO(out, newline=''))]
want = [json.loads(l) for l in open('names.jsonl') if l.strip()]
if got != want:
    sys.exit(f'FAIL: SQLite holds {got!r}, not {want!r}')
print('SQLite holds every hostile name exactly')
EOF
	;;

*)
	die "unknown mode $mode"
	;;
esac
