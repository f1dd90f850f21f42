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
#    is left as it was. brp view -o leaves no page (an existing one as it
#    was), brp simulate no directory it made and no log of its own (a corpus
#    it adds to as it was), brp export --xlsx no workbook and one line of its
#    own: never libxlsxwriter's "[ERROR]" lines, there or on a path that
#    cannot be written.
# 4. A walk follows symbolic links but enters each directory once and gives
#    each log once, saying once what it skipped.
# 5. A list line longer than a path can be stops the list with one short
#    line, in bounded memory.
# 6. Control characters in file and player names never reach the output raw.
# 7. A database whose user_version is negative is refused for what it is.
# 8. Links planted at the names the temporary files once had (LOG.sign~,
#    LOG.minisig.part~, OUT.part~, PATH.tmp~, X.xlsx.part~) are never written
#    through; an output that is a link is refused (record, dump, view, keygen,
#    sign in place); a kill (SIGTERM, SIGINT) at each step of brp sign leaves
#    no temporary file (strace delivers it at a chosen system call).
# 9. Key files: a FIFO as -k, -K, --keyring or as a log to sign is refused at
#    once; a keyring of NUL bytes, /dev/zero, or a line longer than a key line
#    is refused with its line; a passphrase holding a NUL byte is refused.
# 10. A walk reports each directory it cannot open (as root too: a path longer
#    than PATH_MAX, a link into /proc) and checks what comes after it, exit 3;
#    --from-list DIR is refused.
# 11. keygen: --force makes a 0600 key of a 0644 file (and on a full disk
#    keeps the pair it was to replace), refuses a link, and a
#    keygen killed by the file size limit leaves nothing in the next one's way.
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
	elif [ "$rc" -ne "$want" ] || [ "$lines" -ne 1 ] || ! grep -Eq -e "$pattern" err; then
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

# one_line WHAT GOT: GOT (a full's output) is one line of brp's and "exit 3"
one_line() {
	case $2 in
	*"[ERROR]"* | *"[WARNING]"*) bad "$1: a library's own message reached stderr: $2" ;;
	"brp "*$'\n'"exit 3") echo "ok: $1: ${2%%$'\n'*}" ;;
	*) bad "$1: not one line and exit 3: $2" ;;
	esac
}
got=$(full 0 view "$s/stbl-4p.brp" -o page.html)
one_line "view on a full disk" "$got"
[ -e page.html ] && bad "view failing on a full disk left page.html ($(wc -c < page.html) bytes)"
"$brp" view "$s/stbl-4p.brp" -o page.html || bad "view -o page.html failed"
cp page.html page.orig
got=$(full 8 view "$s/kzv-4p.brp" -o page.html)
one_line "view over an existing page on a full disk" "$got"
cmp -s page.html page.orig || bad "view failing on a full disk changed the existing page.html"
got=$(full 0 simulate -n 2 -o made/deep/sim)
one_line "simulate on a full disk" "$got"
[ -e made ] && bad "simulate failing on a full disk left the directories it made: $(find made | tr '\n' ' ')"
# the first match fits in 4 KiB, the second does not: what the first wrote goes too
got=$(full 4 simulate -r kzv -t 30000 -n 4 --seed 3 -o made2/sim)
one_line "simulate failing half way" "$got"
[ -e made2 ] && bad "simulate failing half way left: $(find made2 | tr '\n' ' ')"
"$brp" simulate -q -n 2 -o corpus && cp -r corpus corpus.orig
got=$(full 0 simulate -q -n 3 --add -o corpus)
one_line "simulate --add on a full disk" "$got"
diff -r corpus corpus.orig > /dev/null || bad "simulate --add failing on a full disk changed the corpus: $(ls corpus)"
for blocks in 0 64 96; do
	got=$(full $blocks export -q --xlsx book.xlsx "$s"/*.brp "$s"/disputed/*.brp)
	one_line "export --xlsx on a full disk ($blocks KiB)" "$got"
	[ -e book.xlsx ] && bad "export --xlsx failing on a full disk left book.xlsx"
done
expect 3 '^brp export: nosuch/book.xlsx: No such file or directory$' export -q --xlsx nosuch/book.xlsx "$s/stbl-4p.brp"
mkdir -p samples-dir
expect 3 '^brp export: samples-dir: a directory, not a regular file$' export -q --xlsx samples-dir "$s/stbl-4p.brp"
rmdir samples-dir

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
	# against the peak of a one-line list, so that the bound is the line's cost, not the program's size
	# (a sanitized build's brp starts far larger than a plain one's)
	base=$(printf '%s\n' "$s/stbl-4p.brp" | /usr/bin/time -f '%M' "$brp" verify --from-list - 2>&1 > /dev/null | tail -1)
	kib=$({ head -c 67108864 /dev/zero | tr '\0' a; } |
		/usr/bin/time -f '%M' "$brp" verify --from-list - 2>&1 > /dev/null | tail -1)
	if [ "$kib" -gt $((base + 8192)) ]; then
		bad "a 64 MiB list line took $kib KiB, a one-line list $base KiB"
	else
		echo "ok: a 64 MiB list line: $kib KiB at the peak (a one-line list: $base KiB)"
	fi
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

# --- 8. planted links and temporary files
# planted NAME...: each NAME a link to victim.brp (another match's log), which holds a copy of stbl-2p.brp
planted() {
	cp "$s/stbl-2p.brp" victim.brp
	for n in "$@"; do
		rm -f "$n"
		ln -s victim.brp "$n"
	done
}
# untouched NAME...: victim.brp is as it was, each NAME still a link to it
untouched() {
	cmp -s victim.brp "$s/stbl-2p.brp" || bad "$1: victim.brp, the planted link's target, was written"
	for n in "$@"; do
		[ -L "$n" ] && [ "$(readlink "$n")" = victim.brp ] || bad "$n: the planted link was replaced or removed"
	done
}
"$brp" keygen -o signer > /dev/null || bad "keygen failed"
cp "$s/stbl-4p.brp" log.brp
planted log.brp.sign~ log.brp.minisig.part~
"$brp" sign -k signer.key log.brp > /dev/null || bad "sign with a planted log.brp.sign~ failed"
"$brp" sign -k signer.key --detached log.brp > /dev/null || bad "sign --detached with a planted link failed"
untouched log.brp.sign~ log.brp.minisig.part~
[ -f log.brp ] && [ ! -L log.brp ] || bad "log.brp is no longer a regular file"
"$brp" verify -q -K signer.pub log.brp || bad "log.brp signed beside planted links does not verify: $("$brp" verify -K signer.pub log.brp)"
echo "ok: brp sign beside links planted at log.brp.sign~ and log.brp.minisig.part~"
planted imported.brp.part~ imported.brp.part~.tmp~ salvaged.brp.part~ salvaged.brp.part~.tmp~ recorded.brp.tmp~ book.xlsx.part~
"$brp" import "$s/stbl-2p.txt" -o imported.brp || bad "import beside planted links failed"
"$brp" recover "$s/disputed/truncated.brp" -o salvaged.brp > /dev/null || bad "recover beside planted links failed"
"$brp" dump "$s/stbl-2p.brp" | sed '/^end$/d' | "$brp" record -r stbl -o recorded.brp > /dev/null 2>&1
printf 'end\n' | "$brp" record -r stbl -o recorded2.brp > /dev/null 2>&1
"$brp" export -q --xlsx book.xlsx "$s/stbl-2p.brp" || bad "export --xlsx beside a planted link failed"
untouched imported.brp.part~ imported.brp.part~.tmp~ salvaged.brp.part~ salvaged.brp.part~.tmp~ recorded.brp.tmp~ book.xlsx.part~
for f in imported.brp salvaged.brp; do
	"$brp" verify "$f" > /dev/null 2>&1
	[ $? -le 1 ] || bad "$f, written beside planted links, does not read"
done
echo "ok: import, recover, record and export --xlsx beside planted links"
# an output that is a link: refused, its target untouched
planted out.brp out.txt out.html k.key
expect 3 'out.brp: a symbolic link, not a regular file' record -o out.brp
expect 3 'out.txt: a symbolic link, not a regular file' dump "$s/stbl-4p.brp" -o out.txt
expect 3 'out.html: a symbolic link, not a regular file' view "$s/stbl-4p.brp" -o out.html
expect 3 'k.key: a symbolic link, not a regular file' keygen --force -o k
expect 3 'out.brp: a symbolic link, not a regular file' sign -k signer.key out.brp
untouched out.brp out.txt out.html k.key
[ -e k.pub ] && bad "a refused keygen wrote k.pub"
# a kill at each step of brp sign (strace delivers it on entering the system call)
if command -v strace > /dev/null && strace -o /dev/null true 2> /dev/null; then
	"$brp" keygen -o killkey > /dev/null
	mkdir kill
	for sig in TERM INT; do
		for call in openat write fsync linkat rename; do
			cp "$s/stbl-4p.brp" kill/log.brp
			before=$(ls -A kill)
			# (in a subshell of its own, whose note "Terminated" goes nowhere)
			rc=$( (timeout "$limit" strace -f -o /dev/null -e trace="$call" -e inject="$call:signal=SIG$sig:when=1" \
				"$brp" sign -k killkey.key kill/log.brp > /dev/null 2>&1; echo $?) 2> /dev/null)
			after=$(ls -A kill)
			[ "$after" = "$before" ] || bad "brp sign killed (SIG$sig) at $call left: $(ls -A kill | tr '\n' ' ')"
			"$brp" verify -q kill/log.brp || bad "brp sign killed (SIG$sig) at $call left a log that does not verify"
			echo "ok: brp sign killed by SIG$sig at $call (exit $rc): nothing left but kill/log.brp"
		done
	done
else
	echo "SKIP: no strace that may trace here: the kill at each step of brp sign is not performed"
fi

# --- 9. key files
mkfifo key.fifo
expect 3 'key.fifo: a FIFO, not a regular file' sign -k key.fifo log.brp
expect 3 'key.fifo: a FIFO, not a regular file' verify -K key.fifo "$s/stbl-4p.brp"
expect 3 'key.fifo: a FIFO, not a regular file' verify --keyring key.fifo "$s/stbl-4p.brp"
expect 3 'key.fifo: a FIFO, not a regular file' record -k key.fifo -o keyed.brp
expect 3 'key.fifo: a FIFO, not a regular file' simulate -k key.fifo -o keyed
expect 3 'fifo.brp: a FIFO, not a regular file' sign -k signer.key fifo.brp
expect 3 'fifo.brp: a FIFO, not a regular file' sign -k signer.key --detached fifo.brp
[ -e fifo.brp.minisig ] && bad "sign --detached of a FIFO wrote fifo.brp.minisig"
head -c 1048576 /dev/zero > zeros.pub
expect 3 'zeros.pub: line 1: holds a NUL byte' verify -K zeros.pub "$s/stbl-4p.brp"
expect 3 '/dev/zero: a character device, not a regular file' verify --keyring /dev/zero "$s/stbl-4p.brp"
{ cat signer.pub; printf 'RW\000xx\n'; } > nul.pub
expect 3 'nul.pub: line 3: holds a NUL byte' verify -K nul.pub "$s/stbl-4p.brp"
{ cat signer.pub; head -c 9000 /dev/zero | tr '\0' A; echo; } > long.pub
expect 3 'long.pub: line 3: longer than 8192 bytes' verify -K long.pub "$s/stbl-4p.brp"
{ head -1 signer.key; printf 'RW\000\n'; } > nul.key
expect 3 'nul.key: line 2: holds a NUL byte' sign -k nul.key log.brp
# "\0\0\0secret" would be the empty passphrase: refused, and no key is made with it
printf '\000\000\000secret\n' > nulpass
expect 3 'the passphrase on file descriptor 3 holds a NUL byte' keygen --encrypt --fast-kdf --passphrase-fd 3 -o nulpass-key 3< nulpass
[ -e nulpass-key.key ] && bad "keygen made a key with a passphrase holding a NUL byte"
printf 'secret\n' | "$brp" keygen --encrypt --fast-kdf --passphrase-fd 0 -o enc > /dev/null || bad "keygen --encrypt failed"
expect 3 'the passphrase on file descriptor 3 holds a NUL byte' sign -k enc.key --passphrase-fd 3 log.brp 3< nulpass

# --- 10. walks that meet a directory they cannot open, as root too
mkdir -p walk2/a walk2/z
cp "$s/stbl-4p.brp" walk2/a/first.brp
cp "$s/kzv-4p.brp" walk2/z/last.brp
# a path longer than PATH_MAX: opendir fails with ENAMETOOLONG whoever runs it
(
	cd walk2/a || exit 1
	name=$(printf '%0200d' 0)
	for i in $(seq 22); do
		mkdir "$name" && cd "$name" || exit 1
	done
	cp "$s/stbl-2p.brp" hidden.brp
) || bad "cannot make the deep tree"
unopened=1
if [ "$(id -u)" -ne 0 ]; then
	mkdir walk2/m/ && chmod 000 walk2/m && unopened=2
elif ! ls /proc/1/map_files > /dev/null 2>&1; then
	ln -s /proc/1/map_files walk2/m && unopened=2 # opens, but does not read
fi
rc=0
timeout "$limit" "$brp" verify walk2 > out 2> err || rc=$?
[ "$rc" -eq 3 ] || bad "verify of a walk with a directory it cannot open: exit $rc, not 3"
grep -q '^walk2/a/first.brp: ok' out && grep -q '^walk2/z/last.brp: ok' out ||
	{ bad "the walk did not go on past the directory it cannot open:"; sed 's/^/    /' out; }
[ "$(grep -c 'cannot \(open\|read\): ' err)" -eq "$unopened" ] && [ "$(wc -l < err)" -eq "$unopened" ] ||
	{ bad "the walk did not say each directory it cannot open, once:"; cut -c 1-100 err | sed 's/^/    /'; }
grep -q 'File name too long' err || bad "the directory too deep is not said: $(cut -c 1-100 err)"
echo "ok: the walk said $unopened directories it cannot open and went on (exit 3)"
for cmd in "stats" "export -q --sqlite walk2.db"; do
	rc=0
	timeout "$limit" "$brp" $cmd walk2 > out 2> err || rc=$?
	[ "$rc" -eq 3 ] && grep -q 'File name too long' err || bad "$cmd of the walk: exit $rc, $(cut -c 1-100 err)"
done
[ "$(sqlite3 walk2.db 'SELECT count(*) FROM matches' 2> /dev/null || echo 2)" = 2 ] ||
	bad "export of the walk did not keep the 2 logs it could read"
[ -d walk2/m ] && [ ! -L walk2/m ] && chmod 755 walk2/m
expect 3 '--from-list walk2: a directory, not a list of paths' verify --from-list walk2
expect 3 '--from-list walk2: a directory, not a list of paths' stats --from-list walk2
expect 3 '--from-list walk2: a directory, not a list of paths' export -q --sqlite list.db --from-list walk2
[ -e list.db ] && bad "export --from-list DIR made list.db"

# --- 11. keygen
"$brp" keygen -o mode > /dev/null
chmod 644 mode.key
"$brp" keygen --force -o mode > /dev/null || bad "keygen --force failed"
[ "$(stat -c %a mode.key)" = 600 ] || bad "keygen --force kept mode $(stat -c %a mode.key), not 0600"
# --force on a full disk: the key pair it was to replace is kept whole, nothing of its own left
cp mode.key mode.key.before && cp mode.pub mode.pub.before
got=$(full 0 keygen --force -o mode)
case $got in *"exit 3") echo "ok: keygen --force on a full disk: ${got%%$'\n'*}" ;; *) bad "keygen --force on a full disk: $got" ;; esac
cmp -s mode.key mode.key.before && cmp -s mode.pub mode.pub.before || bad "keygen --force on a full disk changed the key pair"
[ "$(ls -A | grep -c '^\.mode\.')" -eq 0 ] || bad "keygen --force on a full disk left $(ls -A | grep '^\.mode\.' | tr '\n' ' ')"
rm mode.key.before mode.pub.before
got=$(full 0 keygen -o half)
case $got in *"exit 3") echo "ok: keygen on a full disk: ${got%%$'\n'*}" ;; *) bad "keygen on a full disk: $got" ;; esac
[ -e half.key ] || [ -e half.pub ] && bad "keygen on a full disk left $(ls half.* | tr '\n' ' ')"
"$brp" keygen -o half > /dev/null || bad "keygen after the one that failed on a full disk failed"
"$brp" keygen -o existing > /dev/null
rm existing.key
expect 3 'existing.pub: File exists' keygen -o existing
[ -e existing.key ] && bad "keygen refused for existing.pub left existing.key"

[ $fail -eq 0 ] && echo "all ok"
exit $fail
