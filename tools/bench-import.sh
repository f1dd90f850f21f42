#!/usr/bin/env bash
# The baseline of the SQLite export benchmark: the sqlite3 shell's .import of
# the same rows, from CSV, into the same tables (the schema taken from the
# exported database).
#
#   tools/bench-import.sh prepare EXPORTED.db DIR
#       write DIR/schema.sql and one CSV file a table, from EXPORTED.db
#   tools/bench-import.sh run DIR SCRATCH.db [delete|wal]
#       create SCRATCH.db afresh with that schema (in the rollback journal
#       mode the shell and brp export give a new database, or in WAL), then
#       time one .import of every table; prints the seconds
#
# The shell runs with its defaults, as brp export's connection does: foreign
# keys not enforced, one transaction a table.
set -euo pipefail
tables="matches match_players match_meta deals deal_scores deal_seats melds actions"
case ${1:-} in
prepare)
	src=$2 dir=$3
	mkdir -p "$dir"
	sqlite3 "$src" .schema > "$dir/schema.sql"
	{
		echo ".mode csv"
		for t in $tables; do
			sqlite3 -csv "$src" "SELECT * FROM $t" > "$dir/$t.csv"
			echo ".import $dir/$t.csv $t"
		done
	} > "$dir/import.sql"
	;;
run)
	dir=$2 dst=$3 mode=${4:-delete}
	rm -f "$dst" "$dst-journal" "$dst-wal" "$dst-shm"
	if [ "$mode" = wal ]; then
		sqlite3 "$dst" 'PRAGMA journal_mode = WAL' > /dev/null
	fi
	sqlite3 "$dst" < "$dir/schema.sql"
	t0=$(date +%s.%N)
	sqlite3 "$dst" < "$dir/import.sql"
	t1=$(date +%s.%N)
	printf '%.3f\n' "$(echo "$t1 - $t0" | bc -l)"
	;;
*)
	sed -n '2,15s/^# \{0,1\}//p' "$0" >&2
	exit 2
	;;
esac
