#!/usr/bin/env bash
# brp merge: a corpus exported in shards (as GNU parallel or a cluster's map
# step would) and merged gives the same database content as one export of
# the whole corpus; merging again adds nothing.
#
#   merge.sh BRP
set -euo pipefail
brp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export LC_ALL=C TZ=UTC
fail() { echo "merge: $*"; exit 1; }

"$brp" simulate -r stbl -p 4 -n 12 --seed 3 -q -o c
"$brp" simulate -r aberto -p 2 -n 9 --seed 4 -q -o c2
ls c/*.brp c2/*.brp > all.list
# shards: files split three ways, each exported to its own database
split -n l/3 all.list shard.
for s in shard.*; do "$brp" export -q --sqlite "$s.db" - < "$s"; done
"$brp" merge -q merged.db shard.*.db
"$brp" export -q --sqlite whole.db - < all.list

# the content, without the match ids (a merge renumbers them)
dump() {
	sqlite3 "$1" "SELECT hash, file, profile, winner, total0, total1, verdict FROM matches ORDER BY hash;" \
		"SELECT m.hash, d.deal, d.dealer, d.end_kind, d.turns, d.morto0, d.morto1 FROM deals d JOIN matches m USING (match_id) ORDER BY 1, 2;" \
		"SELECT m.hash, s.deal, s.side, s.total, s.melded, s.bonus FROM deal_scores s JOIN matches m USING (match_id) ORDER BY 1, 2, 3;" \
		"SELECT m.hash, x.deal, x.side, x.idx, x.suit, x.lo, x.hi FROM melds x JOIN matches m USING (match_id) ORDER BY 1, 2, 3, 4;" \
		"SELECT m.hash, p.seat, p.name FROM match_players p JOIN matches m USING (match_id) ORDER BY 1, 2;"
}
dump whole.db > whole.txt || fail "cannot read whole.db"
dump merged.db > merged.txt || fail "cannot read merged.db"
[ -s whole.txt ] || fail "nothing exported"
cmp -s whole.txt merged.txt || { diff whole.txt merged.txt | head; fail "merged shards differ from one export"; }
[ "$(sqlite3 merged.db 'PRAGMA integrity_check;')" = ok ] || fail "integrity_check"

out=$("$brp" merge merged.db shard.*.db)
case $out in "0 matches added"*) ;; *) fail "merging again added something: $out" ;; esac
if "$brp" merge merged.db merged.db 2> err.txt; then fail "a database merged into itself"; fi
if "$brp" merge merged.db nope.db 2> err.txt; then fail "a missing shard merged"; fi
[ "$(wc -l < err.txt)" -eq 1 ] || fail "not one line of error: $(cat err.txt)"

# the export does not evaluate the schema's CHECKs on the rows of logs (rpl_export_db_begin), but a merge
# copies rows another file holds, which anything may have written: a shard edited to break one is refused
# whole, and nothing of it is added
cp shard.aa.db bad.db
sqlite3 bad.db "PRAGMA ignore_check_constraints = ON;" \
	"UPDATE melds SET suit = 'x' WHERE (match_id, deal, side, idx) IN (SELECT match_id, deal, side, idx FROM melds LIMIT 1);"
[ "$(sqlite3 bad.db "SELECT count(*) FROM melds WHERE suit = 'x'")" = 1 ] || fail "the shard was not edited"
"$brp" export -q --sqlite fresh.db - < shard.ab
if "$brp" merge fresh.db bad.db 2> err.txt; then fail "a shard breaking a CHECK merged"; fi
grep -q "CHECK" err.txt || fail "the refusal does not name the CHECK: $(cat err.txt)"
[ "$(sqlite3 fresh.db 'SELECT count(*) FROM matches')" = "$(wc -l < shard.ab)" ] || fail "a refused merge added rows"
[ "$(sqlite3 fresh.db 'PRAGMA integrity_check;')" = ok ] || fail "integrity_check after a refused merge"
# and an export into the same database after a merge does without them again, with the same rows
"$brp" merge -q fresh.db shard.aa.db
"$brp" export -q --sqlite fresh.db - < shard.ac
[ "$(sqlite3 fresh.db 'SELECT count(*) FROM matches')" = "$(wc -l < all.list)" ] || fail "not every match after the merge"
[ "$(sqlite3 fresh.db 'PRAGMA integrity_check;')" = ok ] || fail "integrity_check after a merge and an export"
echo "merge: shards merged equal one export; merging twice adds nothing; a shard breaking a CHECK is refused"
