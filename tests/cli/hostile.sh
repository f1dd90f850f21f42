#!/usr/bin/env bash
# Hostile paths and outputs for the brp tools (issue 13):
#   hostile.sh BRP SRCROOT
# 1. A FIFO named as a log is refused at once, with one line, by every
#    command that reads logs, and in a list of paths (each under a timeout:
#    a regression must fail, not hang the suite).
# 2. A database output that exists and is not a regular file (a character
#    device, a FIFO) is refused before anything is written; merge refuses a
#    missing or special IN.db without creating it.
# 3. On a full disk (ulimit -f, SIGXFSZ ignored: EFBIG), a failed export or
#    merge leaves no database and no directory it created; an existing one
#    is left as it was.
# 4. A walk follows symbolic links but enters each directory once and gives
#    each log once, saying once what it skipped.
# 5. A list line longer than a path can be stops the list with one short
#    line, in bounded memory.
# 6. Control characters in file and player names never reach the output raw.
# 7. A database whose user_version is negative is refused for what it is.
set -u

[ $# -eq 2 ] || { echo "usage: hostile.sh BRP SRCROOT" >&2; exit 2; }
brp=$1
root=$2
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
case $root in /*) ;; *) root=$(pwd)/$root ;; esac
s=$root/samples
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-hostile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 2
export LC_ALL=C TZ=UTC
fail=0
limit=20 # seconds: far more than any of these takes; a hang fails instead of blocking

bad() {
	echo "FAIL: $*"
	fail=1
}

# expect RC PATTERN CMD ARGS...: brp CMD ARGS exits RC within the time limit,
# with exactly one line on stderr matching PATTERN (grep -E), no raw control byte in it
expect() {
	local want=$1 pattern=$2 rc=0 lines
	shift 2
	timeout "$limit" "$brp" "$@" < /dev/null > out 2> err || rc=$?
	lines=$(wc -l < err)
	if [ "$rc" -eq 124 ]; then
		bad "brp $*: still running after $limit s"
	elif [ "$rc" -ne "$want" ] || [ "$lines" -ne 1 ] || ! grep -Eq "$pattern" err; then
		bad "brp $*: exit $rc (want $want), $lines lines on stderr (want one matching '$pattern'):"
		sed 's/^/    /' err
	else
		echo "ok: brp $*: $(cat err)"
	fi
}

# no_raw FILE WHAT: FILE holds no control byte but newlines
no_raw() {
	if LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' < "$1"); then
		bad "$2: a raw control character in the output:"
		od -c "$1" | sed 's/^/    /' | head -5
	fi
}

# --- 1. FIFOs as logs
mkfifo fifo.brp
for cmd in verify dump show stats; do
	expect 3 'fifo.brp: a FIFO, not a regular file' $cmd fifo.brp
done
expect 3 'fifo.brp: .*a FIFO, not a regular file' recover fifo.brp -o salvaged.brp
[ -e salvaged.brp ] && bad "recover of a FIFO left salvaged.brp"
expect 3 'fifo.brp: a FIFO, not a regular file' export -q --sqlite fifo.db fifo.brp
rm -f fifo.db
rc=0
echo "$tmp/fifo.brp" | timeout "$limit" "$brp" verify - > out 2> err || rc=$?
if [ "$rc" -ne 3 ] || [ "$(wc -l < err)" -ne 1 ] || ! grep -q 'a FIFO, not a regular file' err; then
	bad "verify - with a FIFO in the list: exit $rc: $(cat err)"
else
	echo "ok: verify - with a FIFO in the list: $(cat err)"
fi

# --- 2. special files as database outputs and inputs
"$brp" export -q --sqlite shard.db "$s/stbl-4p.brp" || bad "export into shard.db failed"
expect 3 '/dev/null: a character device, not a regular file' export -q --sqlite /dev/null "$s/stbl-4p.brp"
expect 3 '/dev/null: a character device, not a regular file' merge /dev/null shard.db
[ -c /dev/null ] || bad "/dev/null is no longer a character device"
mkfifo out.db
expect 3 'out.db: a FIFO, not a regular file' export -q --sqlite out.db "$s/stbl-4p.brp"
expect 3 'out.db: a FIFO, not a regular file' merge out.db shard.db
[ -p out.db ] || bad "out.db is no longer a FIFO"
for f in out.db-journal out.db-wal; do
	[ -e $f ] && bad "a refused export left $f"
done
expect 3 'nosuch.db: cannot open: No such file or directory' merge merged.db nosuch.db
[ -e nosuch.db ] && bad "merge created the missing IN.db nosuch.db"
[ -e merged.db ] && bad "a failed merge left the new merged.db"
expect 3 'fifo.brp: a FIFO, not a regular file' merge merged.db fifo.brp
[ -e merged.db ] && bad "a failed merge left the new merged.db"

# --- 3. a full disk: EFBIG past the file size limit
# full BLOCKS CMD ARGS...: brp CMD ARGS with files limited to BLOCKS KiB; prints the exit code
# (stderr is captured through a pipe: a file would be limited too)
full() {
	local blocks=$1
	shift
	(
		trap '' XFSZ
		ulimit -f "$blocks"
		timeout "$limit" "$brp" "$@" 2>&1
		echo "exit $?"
	)
}
# the size of a database with the schema only (no log could be read: nothing added)
"$brp" export -q --sqlite schema.db nosuch.brp 2> /dev/null
schema_kib=$(($(wc -c < schema.db) / 1024))
for blocks in 0 $((schema_kib + 4)); do
	got=$(full $blocks export -q --sqlite new.db "$s"/*.brp "$s"/disputed/*.brp)
	case $got in
	*"exit 3") echo "ok: export on a full disk ($blocks KiB): ${got%%$'\n'*}" ;;
	*) bad "export on a full disk ($blocks KiB): $got" ;;
	esac
	for f in new.db new.db-journal new.db-wal; do
		[ -e $f ] && bad "export failing on a full disk ($blocks KiB) left $f ($(wc -c < $f) bytes)"
	done
	rm -f new.db new.db-journal new.db-wal
done
got=$(full 0 merge new.db shard.db)
case $got in *"exit 3") echo "ok: merge on a full disk: ${got%%$'\n'*}" ;; *) bad "merge on a full disk: $got" ;; esac
[ -e new.db ] && bad "merge failing on a full disk left new.db"
got=$(full 0 export -q --csv newdir "$s/stbl-4p.brp")
case $got in *"exit 3") echo "ok: CSV export on a full disk: ${got%%$'\n'*}" ;; *) bad "CSV export on a full disk: $got" ;; esac
[ -e newdir ] && bad "CSV export failing on a full disk left newdir"
# the same on 4 threads: the first write stops the pool, the matches loaded meanwhile are freed
got=$(full 0 export -q -j 4 --csv newdir "$s"/*.brp "$s"/disputed/*.brp)
case $got in *"exit 3") echo "ok: CSV export on a full disk, -j 4: ${got%%$'\n'*}" ;; *) bad "CSV export on a full disk, -j 4: $got" ;; esac
[ -e newdir ] && bad "CSV export failing on a full disk with -j 4 left newdir"
# an existing database is never removed, and keeps what it had
cp shard.db kept.db
got=$(full 0 export -q --sqlite kept.db "$s/kzv-4p.brp")
cmp -s kept.db shard.db || bad "a failed export changed the existing kept.db"

# --- 4. symbolic link loops in a walk
mkdir -p walk/sub
cp "$s/stbl-4p.brp" walk/a.brp
cp "$s/kzv-4p.brp" walk/sub/b.brp
ln -s . walk/self1
ln -s . walk/self2
ln -s .. walk/sub/up
ln -s ../a.brp walk/sub/again.brp
ln -s loop walk/loop
rc=0
timeout "$limit" "$brp" verify walk > out 2> err || rc=$?
[ "$rc" -eq 0 ] || bad "verify of a walk with link loops: exit $rc"
[ "$(wc -l < out)" -eq 2 ] || { bad "verify of a walk with link loops: not the 2 logs once each:"; sed 's/^/    /' out; }
grep -q '^walk/a.brp: ok' out && grep -q '^walk/sub/b.brp: ok' out || bad "the walk's logs are not walk/a.brp and walk/sub/b.brp"
for skipped in walk/self1 walk/self2 walk/sub/up walk/sub/again.brp; do
	[ "$(grep -c "^brp verify: $skipped: skipped: " err)" -eq 1 ] || bad "$skipped is not said skipped exactly once"
done
[ "$(wc -l < err)" -eq 4 ] || { bad "the walk said more than what it skipped:"; sed 's/^/    /' err; }
rc=0
timeout "$limit" "$brp" stats --json -j 2 walk > out 2> /dev/null || rc=$?
grep -q '"matches":2,' out || bad "stats of the walk did not count 2 matches: $(cat out)"
echo "ok: the walk gave each log once and said what it skipped"

# --- 5. list lines longer than a path
# a path, then 8 MiB without a newline; then a line holding a NUL
rc=0
{
	echo "$s/stbl-4p.brp"
	head -c 8388608 /dev/zero | tr '\0' a
} | timeout "$limit" "$brp" verify - > out 2> err || rc=$?
[ "$rc" -eq 3 ] || bad "verify - with an 8 MiB line: exit $rc"
grep -q 'stbl-4p.brp: ok' out || bad "verify - with an 8 MiB line: the path before it was not verified"
[ "$(wc -l < err)" -eq 1 ] && grep -q '^brp verify: standard input, line 2: longer than 4095 bytes' err ||
	{ bad "verify - with an 8 MiB line: not one line on stderr:"; head -c 300 err; }
[ "$(wc -c < err)" -lt 200 ] || bad "verify - with an 8 MiB line: $(wc -c < err) bytes on stderr, not a short quote"
echo "ok: an 8 MiB list line: $(cat err)"
rc=0
printf '%s\n' "$s/stbl-4p.brp" | sed 's/stbl/st\x00bl/' | timeout "$limit" "$brp" verify - > out 2> err || rc=$?
[ "$rc" -eq 3 ] && grep -q '^brp verify: standard input, line 1: holds a NUL byte, so no path: "' err ||
	bad "verify - with a NUL in a line: exit $rc: $(cat err)"
if [ -x /usr/bin/time ]; then
	kib=$({ head -c 67108864 /dev/zero | tr '\0' a; } |
		/usr/bin/time -f '%M' "$brp" verify --from-list - 2>&1 > /dev/null | tail -1)
	if [ "$kib" -gt 16384 ]; then bad "a 64 MiB list line took $kib KiB"; else echo "ok: a 64 MiB list line: $kib KiB at the peak"; fi
fi

# --- 6. control characters in names
evil=$(printf 'e\033[2J\033]0;title\007\nvil\302\233.brp')
cp "$s/stbl-4p.brp" "$evil"
timeout "$limit" "$brp" verify "$evil" > out 2> err
no_raw out "verify of a file named with control characters"
[ "$(wc -l < out)" -eq 1 ] || bad "verify of a file named with a newline: not one line"
grep -qF 'e\x1b[2J\x1b]0;title\x07\nvil\xc2\x9b.brp: ok' out || bad "the name is not escaped as expected: $(cat out)"
timeout "$limit" "$brp" verify "$evil.missing" > out 2> err
no_raw err "brp verify's error for a missing file named with control characters"
[ "$(wc -l < err)" -eq 1 ] || bad "an error line with a name with a newline: not one line"
sed 's/\[Seat "0" "greedy-0"\]/[Seat "0" "bad\\x1b[2J\\x07\\x9b\\x0aname"]/' "$s/stbl-2p.txt" > evil.txt
"$brp" import evil.txt -o evil.brp || bad "import of a log with a hostile name failed"
timeout "$limit" "$brp" show evil.brp --deal 1 --turn 0 > out 2> err
no_raw out "show of a player named with control characters"
grep -qF 'hand 0 (bad\x1b[2J\x07\x9b\nname)' out || bad "the player's name is not escaped: $(grep '^hand 0' out)"
echo "ok: control characters in names are escaped"

# --- 7. a negative schema version
if command -v sqlite3 > /dev/null; then
	sqlite3 neg.db 'PRAGMA user_version = -1'
	expect 3 'neg.db: the database has schema version -1 .*not an export' export -q --sqlite neg.db "$s/stbl-4p.brp"
	[ -e neg.db ] || bad "the refused neg.db was removed"
fi

[ $fail -eq 0 ] && echo "all ok"
exit $fail
