#!/usr/bin/env bash
# The baseline of the SQLite export benchmark: the sqlite3 shell's .import of
# the same rows, from CSV, into the same tables (the schema taken from the
# exported database). Prints the median seconds of ROUNDS imports; the
# schema is created before the clock starts.
#
#   tools/bench-import.sh EXPORTED.db SCRATCH.db ROUNDS
set -euo pipefail
src=$1
dst=$2
rounds=${3:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
tables="matches match_players match_meta deals deal_scores deal_seats melds actions"
sqlite3 "$src" .schema > "$dir/schema.sql"
{
	echo ".mode csv"
	for t in $tables; do
		sqlite3 -csv "$src" "SELECT * FROM $t" > "$dir/$t.csv"
		echo ".import $dir/$t.csv $t"
	done
} > "$dir/import.sql"
times=()
for _ in $(seq "$rounds"); do
	rm -f "$dst" "$dst-wal" "$dst-shm"
	sqlite3 "$dst" < "$dir/schema.sql"
	t0=$(date +%s.%N)
	sqlite3 "$dst" < "$dir/import.sql"
	t1=$(date +%s.%N)
	times+=("$(echo "$t1 - $t0" | bc -l)")
done
printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.3f\n", a[int((NR+1)/2)]}'
