#!/usr/bin/env bash
# The benchmark: one command from a fresh clone.
#
#   tools/bench.sh [-n MATCHES_PER_CONFIG] [-j JOBS] [-r ROUNDS]
#
# Builds the tree (tools/dev.sh build, in a release build directory), makes a
# fixed corpus with brp simulate (each profile, 2 and 4 players; 1,700
# matches each by default: 10,200 in all), and measures, side by side with
# its baseline in the same run:
#   1. size: bits a decision and bytes a deal of .brp, against the same
#      matches as text notation, gzip -9 and xz -9 (each match a file);
#      the bits a decision of 300 random-bot matches a configuration; and
#      the order the layouts hold that no play uses (brp-bench slack);
#   2. verification speed: decisions and matches a second, one thread and
#      -j; decoding against rule checking (in memory);
#   3. SQLite export speed against the sqlite3 shell's .import of the same
#      rows; 4. CSV export speed; the recorder's cost a decision with a
#      flush a turn;
#   5. peak memory of verify and export on 1,000 matches and on all.
# Times are medians of ROUNDS runs (default 3). The results go to stdout
# and to $BRP_BUILDDIR/bench/results.md. The machine is shared and noisy:
# compare figures of one run, not across runs.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
per=1700
jobs=$(nproc 2> /dev/null || echo 2)
rounds=3
while getopts "n:j:r:" o; do
	case $o in
	n) per=$OPTARG ;;
	j) jobs=$OPTARG ;;
	r) rounds=$OPTARG ;;
	*) sed -n '2,22s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done

export BRP_BUILDDIR=${BRP_BUILDDIR:-$root/build-release}
build=$BRP_BUILDDIR
bash "$root/tools/dev.sh" build > /dev/null
# link-time optimization: the reader, the codec and the engine are inlined
# into each other across files (docs/performance.md, "Verification, round three")
meson configure "$build" -Dbuildtype=release -Db_ndebug=true -Db_lto=true > /dev/null
meson compile -C "$build" > /dev/null
brp=$build/tools/brp
bench=$build/tools/brp-bench
work=$build/bench
corpus=$work/corpus
mkdir -p "$work"
export LC_ALL=C TZ=UTC

out=$work/results.md
: > "$out"
say() { echo "$*" | tee -a "$out"; }

# the median of numbers, one an argument
med() {
	printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]}'
}
# the wall time of one run of a command, in seconds
once() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" > /dev/null
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}
# the median wall time of ROUNDS runs of a command, in seconds
median() {
	local times=()
	for _ in $(seq "$rounds"); do
		times+=("$(once "$@")")
	done
	med "${times[@]}"
}

configs="kzv-2 kzv-4 stbl-2 stbl-4 aberto-2 aberto-4"
# the corpus is kept between runs while the log format and its size stay the same
# (the newest version format.h names: the one brp simulate writes)
format=$(grep -E '^#define BRP_VERSION(_[0-9]+)? ' "$root/libreplay/src/log/format.h" | awk '{print $3}' | sort -n | tail -1)
stamp=$corpus/.stamp-$per-v$format
if [ ! -f "$stamp" ]; then
	rm -rf "$corpus"
	mkdir -p "$corpus"
	t0=$(date +%s.%N)
	for c in $configs; do
		"$brp" simulate -r "${c%-*}" -p "${c#*-}" -n "$per" --seed 2026 -b greedy -j "$jobs" -q -o "$corpus/$c"
	done
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l > "$corpus/.simulate-seconds"
	touch "$stamp"
fi
find "$corpus" -name '*.brp' | sort > "$work/all.list"
head -n 1000 "$work/all.list" > "$work/1000.list"
total=$(wc -l < "$work/all.list")

# The value of KEY in FILE, a "KEY VALUE" a line (what brp-bench prints)
val() { awk -v k="$2" '$1 == k {print $2}' "$1"; }

say "# Benchmark results"
say ""
say "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(uname -sr)."
say "Corpus: $total matches (brp simulate --seed 2026 -b greedy, $per per profile and table size)."
say "Times: median of $rounds runs; -j $jobs threads."
[ -f "$corpus/.simulate-seconds" ] && say "Simulating the corpus (brp simulate -j $jobs, the six runs): $(printf '%.1f' "$(cat "$corpus/.simulate-seconds")") s."
say ""

say "## 1. Size"
say ""
say "| corpus | matches | deals | decisions | .brp bytes | bits/decision (stream) | bits/decision (file) | bytes/deal | text | text gzip -9 | text xz -9 | .brp / xz |"
say "|---|---|---|---|---|---|---|---|---|---|---|---|"
for c in $configs; do
	"$bench" size "$corpus/$c" > "$work/size-$c.txt"
	get() { val "$work/size-$c.txt" "$1"; }
	mkdir -p "$work/text/$c"
	find "$corpus/$c" -name '*.brp' | xargs -P "$jobs" -I{} sh -c '"$0" dump "$1" > "$2/$(basename "$1" .brp).txt"' "$brp" {} "$work/text/$c"
	text=$(cat "$work/text/$c"/*.txt | wc -c)
	gz=$(find "$work/text/$c" -name '*.txt' -print0 | xargs -0 -P "$jobs" -n 50 sh -c 'for f; do gzip -9 -c "$f" | wc -c; done' sh | awk '{s += $1} END {print s}')
	xz=$(find "$work/text/$c" -name '*.txt' -print0 | xargs -0 -P "$jobs" -n 50 sh -c 'for f; do xz -9 -c "$f" | wc -c; done' sh | awk '{s += $1} END {print s}')
	say "| $c | $(get matches) | $(get deals) | $(get decisions) | $(get bytes) | $(get bits_per_decision_stream) | $(get bits_per_decision_file) | $(get bytes_per_deal_file) | $text | $gz | $xz | $(echo "scale=3; $(get bytes) / $xz" | bc -l) |"
done
say ""
# The decision coder predicts with what a player usually does (docs/format.md, section 9): the corpus
# above is played by the greedy bot, which plays much like that. A player who does not costs more:
# the same measure on matches of the random bot, which picks any legal move.
say "The same measure for matches of the random bot (300 of each, \`brp simulate --seed 2026 -b random\`), which plays"
say "any legal move and so follows none of the habits the coder predicts:"
say ""
say "| corpus | decisions | bits/decision (stream) | bits/decision (file) |"
say "|---|---|---|---|"
for c in $configs; do
	rdir=$work/random/$c
	if [ ! -f "$rdir/.stamp-v$format" ]; then
		rm -rf "$rdir"
		"$brp" simulate -r "${c%-*}" -p "${c#*-}" -n 300 --seed 2026 -b random -j "$jobs" -q -o "$rdir"
		touch "$rdir/.stamp-v$format"
	fi
	"$bench" size "$rdir" > "$work/size-random-$c.txt"
	rg() { val "$work/size-random-$c.txt" "$1"; }
	say "| $c random | $(rg decisions) | $(rg bits_per_decision_stream) | $(rg bits_per_decision_file) |"
done
say ""
# What a layout stores that no play uses (docs/format.md 20.8): the order of the stock cards never
# drawn and of the mortos that never became the stock, log2 of the number of their orders.
say "What the layouts hold that no decision, claim or score uses (\`brp-bench slack\`, docs/format.md 20.8): the order"
say "of the stock cards never drawn and of the mortos that never became the stock:"
say ""
say "| corpus | stock cards never drawn a deal | their order, bytes a deal | the mortos' order, bytes a deal | bytes a match | bits/decision (file) without it | takes whose stock card no later draw shows |"
say "|---|---|---|---|---|---|---|"
for c in $configs; do
	"$bench" slack "$corpus/$c" > "$work/slack-$c.txt"
	gs() { val "$work/slack-$c.txt" "$1"; }
	say "| $c | $(gs stock_cards_never_drawn_per_deal) | $(gs stock_order_bytes_per_deal) | $(gs morto_order_bytes_per_deal) | $(gs slack_bytes_per_match) | $(echo "scale=3; ($(get bytes) - $(gs slack_bytes_per_match) * $(get matches)) * 8 / $(get decisions)" | bc -l) | $(gs takes_whose_stock_top_no_draw_reveals) of $(gs takes) |"
done
say ""

say "## 2. Verification speed"
say ""
"$bench" speed "$corpus/stbl-4" "$rounds" > "$work/speed.txt"
sget() { val "$work/speed.txt" "$1"; }
decisions=$(cat "$work"/size-*.txt | awk '$1 == "decisions" {s += $2} END {print s}')
t1=$(median "$brp" verify -q -j 1 --from-list "$work/all.list")
tj=$(median "$brp" verify -q -j "$jobs" --from-list "$work/all.list")
say "| what | seconds | decisions/s | matches/s |"
say "|---|---|---|---|"
say "| brp verify, 1 thread, all $total matches (files on disk) | $t1 | $(echo "$decisions / $t1" | bc) | $(echo "$total / $t1" | bc) |"
say "| brp verify -j $jobs | $tj | $(echo "$decisions / $tj" | bc) | $(echo "$total / $tj" | bc) |"
say "| in memory, stbl-4: decode only | $(sget decode_seconds) | $(sget decode_decisions_per_second) | |"
say "| in memory, stbl-4: decode + rules | $(sget verify_seconds) | $(sget verify_decisions_per_second) | $(sget verify_matches_per_second) |"
say ""
say "Speed-up of -j $jobs over one thread: $(echo "scale=2; $t1 / $tj" | bc -l)x. Decoding is $(echo "scale=0; 100 * $(sget decode_share) / 1" | bc)% of verification time in memory."
say ""

# one export into a new database DB (MODE delete: as brp export creates it; wal: switched to WAL first)
export_once() {
	local db=$1 mode=$2
	shift 2
	rm -f "$db" "$db-journal" "$db-wal" "$db-shm"
	[ "$mode" = wal ] && sqlite3 "$db" 'PRAGMA journal_mode = WAL' > /dev/null
	once "$brp" export -q "$@" --sqlite "$db" --from-list "$work/all.list"
}

if "$brp" export --help > /dev/null 2>&1; then
	say "## 3. Export"
	say ""
	# the baseline's CSV files, from a first export
	export_once "$work/export.db" delete > /dev/null
	rows=$(sqlite3 "$work/export.db" "SELECT (SELECT count(*) FROM matches) + (SELECT count(*) FROM match_players) + (SELECT count(*) FROM match_meta) + (SELECT count(*) FROM deals) + (SELECT count(*) FROM deal_scores) + (SELECT count(*) FROM deal_seats) + (SELECT count(*) FROM melds);")
	bash "$root/tools/bench-import.sh" prepare "$work/export.db" "$work/import"
	# the export and its baseline take turns, so that each round sees the same load of the machine
	e1=() ej=() im=() w1=() wj=() wi=() r1=() rj=() rw1=() rwj=()
	for _ in $(seq "$rounds"); do
		a=$(export_once "$work/export.db" delete -j 1)
		b=$(export_once "$work/export.db" delete -j "$jobs")
		c=$(bash "$root/tools/bench-import.sh" run "$work/import" "$work/import.db" delete)
		d=$(export_once "$work/export-wal.db" wal -j 1)
		e=$(export_once "$work/export-wal.db" wal -j "$jobs")
		f=$(bash "$root/tools/bench-import.sh" run "$work/import" "$work/import.db" wal)
		e1+=("$a") ej+=("$b") im+=("$c") w1+=("$d") wj+=("$e") wi+=("$f")
		r1+=("$(echo "$a / $c" | bc -l)") rj+=("$(echo "$b / $c" | bc -l)")
		rw1+=("$(echo "$d / $f" | bc -l)") rwj+=("$(echo "$e / $f" | bc -l)")
	done
	tc=$(median sh -c "rm -rf '$work/csv'; '$brp' export -q --csv '$work/csv' --from-list '$work/all.list'")
	row() { say "| $1 | $2 | $3 | $(echo "$rows / $3" | bc) | $4 |"; }
	say "$rows rows (every table but actions). brp export reads, verifies and replays each log, then inserts its rows;"
	say "the shell reads them from CSV files. Each round runs the six in turn; the last column is the median of the"
	say "rounds' ratios to the shell's time in the same journal mode (below 1: faster than the shell)."
	say ""
	say "| what | journal | seconds | rows/s | time / .import |"
	say "|---|---|---|---|---|"
	row "brp export --sqlite, 1 thread" "rollback (a new database)" "$(med "${e1[@]}")" "$(med "${r1[@]}")"
	row "brp export --sqlite -j $jobs" "rollback" "$(med "${ej[@]}")" "$(med "${rj[@]}")"
	row "sqlite3 shell .import of the same rows from CSV" "rollback" "$(med "${im[@]}")" "1"
	row "brp export --sqlite, 1 thread" "WAL (switched before)" "$(med "${w1[@]}")" "$(med "${rw1[@]}")"
	row "brp export --sqlite -j $jobs" "WAL" "$(med "${wj[@]}")" "$(med "${rwj[@]}")"
	row "sqlite3 shell .import of the same rows from CSV" "WAL" "$(med "${wi[@]}")" "1"
	say ""
	say "| brp export --csv (reads, verifies and replays each log) | $tc s |"
	say "|---|---|"
	say ""
fi

say "## 4. The recorder"
say ""
mkdir -p "$work/rec"
head -n 200 "$work/all.list" | while read -r f; do cp "$f" "$work/rec/$(basename "$(dirname "$f")")-$(basename "$f")"; done
"$bench" record "$work/rec" "$rounds" "$work" > "$work/rec.txt"
rget() { val "$work/rec.txt" "$1"; }
say "Recording 200 matches again ($(rget decisions) decisions, $(rget flushes) flushes: one a turn), checked by the engine:"
say "$(rget record_ns_per_decision) ns a decision, flush included; closing a match (compact rewrite, fsync, rename): $(rget close_ms_per_match) ms."
say ""

say "## 5. Peak memory"
say ""
say "| command | 1,000 matches | $total matches |"
say "|---|---|---|"
m1=$( { /usr/bin/time -f %M "$brp" verify -q --from-list "$work/1000.list" > /dev/null; } 2>&1 | tail -1)
m2=$( { /usr/bin/time -f %M "$brp" verify -q --from-list "$work/all.list" > /dev/null; } 2>&1 | tail -1)
say "| brp verify (KiB) | $m1 | $m2 |"
if "$brp" export --help > /dev/null 2>&1; then
	rm -f "$work/m.db"*
	m3=$( { /usr/bin/time -f %M "$brp" export -q --sqlite "$work/m.db" --from-list "$work/1000.list" > /dev/null; } 2>&1 | tail -1)
	rm -f "$work/m.db"*
	m4=$( { /usr/bin/time -f %M "$brp" export -q --sqlite "$work/m.db" --from-list "$work/all.list" > /dev/null; } 2>&1 | tail -1)
	say "| brp export --sqlite (KiB) | $m3 | $m4 |"
fi
say ""
say "Written to $out."
