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
echo "merge: shards merged equal one export; merging twice adds nothing"
