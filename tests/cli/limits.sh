#!/bin/sh
# Limits on what brp import and brp record read, and what a failed record leaves (issue 13):
#   limits.sh BRP SRCROOT
# 0. A deal of more than 1,048,576 decisions imports, verifies and dumps back (item 1).
# 1. brp record answers a line longer than RPL_NOTATION_MAX_LINE (65536 bytes)
#    with one short error line that quotes 16 bytes of it, skips it and goes on
#    (item 7); brp import refuses it with one line, and /dev/zero too (item 6).
# 2. brp record on a full disk (a file size limit of 0, SIGXFSZ ignored: EFBIG)
#    exits 3 with one line and leaves no log behind (item 3).
# 3. Peak memory does not grow with the input: a 64 MiB line, and 16 MiB of
#    comment lines imported (with GNU /usr/bin/time, not under a sanitizer,
#    which keeps freed memory; else skipped). Nothing here depends on time.
set -u

[ $# -eq 2 ] || { echo "usage: limits.sh BRP SRCROOT" >&2; exit 2; }
brp=$1
root=$2
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
case $root in /*) ;; *) root=$(pwd)/$root ;; esac
s=$root/samples
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-limits.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 2
export LC_ALL=C TZ=UTC
fail=0

bad() {
	echo "FAIL: $*"
	fail=1
}

# a turn line of 64 MiB + 1 byte: 'x' repeated
long_line() {
	head -c 67108865 /dev/zero | tr '\0' x
}

# 1. brp record: the long line between two good ones
{
	sed -n '/^deal 1$/,/^stock:/p' "$s/short-stbl.txt"
	long_line
	printf '\n1. 0: draw, meld 5h 6h 7h, discard Kc\n'
} > record.txt
rc=0
"$brp" record -o rec.brp < record.txt > rec.out 2> rec.err || rc=$?
want='error: line 9: a line holds at most 65536 bytes; this one is longer ('"'"'xxxxxxxxxxxxxxxx...'"'"')'
[ "$rc" -eq 1 ] || bad "brp record with a long line: exit $rc"
[ -s rec.err ] && bad "brp record with a long line wrote on stderr: $(head -c 300 rec.err)"
if [ "$(sed -n 9p rec.out)" != "$want" ]; then
	bad "brp record answered the long line with: $(sed -n 9p rec.out | head -c 300)"
else
	echo "ok: brp record: $want"
fi
[ "$(wc -l < rec.out)" -eq 10 ] || bad "brp record: $(wc -l < rec.out) answers to 10 lines"
[ "$(sed -n 10p rec.out)" = ok ] || bad "brp record: the line after the long one: $(sed -n 10p rec.out)"
"$brp" verify rec.brp > verify.out 2>&1
grep -q 'incomplete: the log stops in deal 1 after turn 1$' verify.out || bad "the recorded log: $(cat verify.out)"

# 1. brp import: the same long line, and /dev/zero
{
	sed -n '1,/^stock:/p' "$s/short-stbl.txt"
	long_line
	printf '\n'
} > import.txt
for input in import.txt /dev/zero; do
	rc=0
	"$brp" import "$input" -o imp.brp > imp.out 2> imp.err || rc=$?
	case $input in
	/dev/zero) want="brp import: line 1: a line holds at most 65536 bytes; this one is longer ('????????????????...')" ;;
	*) want="brp import: line 20: a line holds at most 65536 bytes; this one is longer ('xxxxxxxxxxxxxxxx...')" ;;
	esac
	if [ "$rc" -ne 3 ] || [ "$(cat imp.err)" != "$want" ] || [ -s imp.out ]; then
		bad "brp import $input: exit $rc: $(head -c 300 imp.err)"
	else
		echo "ok: brp import $input: $want"
	fi
	[ -e imp.brp ] || [ -e imp.brp.part~ ] && bad "brp import $input left a file behind"
done

# 0. a deal of more than 1,048,576 decisions (a take/discard loop under
#    pile_rule=free, item 1): brp import wrote it as one section its reader
#    refuses; now it imports, verifies and dumps back to the same text (the
#    stock but its first card in version 7's order)
{
	sed -n '1,2p' "$s/short-stbl.txt"
	echo '[Rule "pile_rule" "free"]'
	sed -n '3,/^stock:/p' "$s/short-stbl.txt"
	echo '1. 0: draw, discard 7h'
	awk 'BEGIN { for (t = 2; t <= 530000; t++) printf "%d. %d: take, discard 7h\n", t, (t - 1) % 4 }'
	echo end
} > long.txt
rc=0
"$brp" import long.txt -o long.brp 2> long.err || rc=$?
[ "$rc" -eq 0 ] || bad "brp import of a deal of 1,060,000 decisions: exit $rc: $(cat long.err)"
"$brp" verify long.brp > long.verify 2>&1
if ! grep -q 'incomplete: the log stops in deal 1 after turn 530000$' long.verify; then
	bad "a deal of 1,060,000 decisions imported: $(cat long.verify)"
else
	echo "ok: a deal of 1,060,000 decisions imported: $(cat long.verify)"
fi
"$brp" dump long.brp > long.out 2>&1
# version 7 keeps of the stock only the card play drew (7h), the rest ascending: the stock line aside
grep -v '^stock:' long.txt > long.want
grep -v '^stock:' long.out > long.got
cmp -s long.want long.got || bad "a deal of 1,060,000 decisions: the text dumped is not the text imported"

# 2. brp record on a full disk
# (the limit holds for every file brp writes: its stderr goes through a pipe)
( (ulimit -f 0 && trap '' XFSZ && exec "$brp" record -o full.brp < /dev/null 2>&1); echo "exit $?" ) | cat > full.err
rc=$(tail -1 full.err)
sed -i '$d' full.err
if [ "$rc" != "exit 3" ] || [ "$(wc -l < full.err)" -ne 1 ] || ! grep -q '^brp record: cannot record into full.brp: ' full.err; then
	bad "brp record on a full disk: $rc: $(cat full.err)"
else
	echo "ok: brp record on a full disk: $(cat full.err)"
fi
[ -e full.brp ] && bad "brp record on a full disk left full.brp ($(wc -c < full.brp) bytes)"

# 3. peak memory
skip=
if ! /usr/bin/time -f %M -o probe true 2> /dev/null || ! grep -q '^[0-9][0-9]*$' probe; then
	skip="no GNU /usr/bin/time"
elif grep -aq -e __asan_init -e __msan_init -e __tsan_init -e __hwasan_init "$brp"; then
	skip="brp is built with a sanitizer"
fi
if [ -n "$skip" ]; then
	echo "skipped: peak memory ($skip)"
	[ $fail -eq 0 ] && echo "all ok"
	exit $fail
fi

# peak NAME INPUT CMD ARGS...: CMD < INPUT, its peak RSS (KiB) into NAME.rss
peak() {
	_n=$1
	_in=$2
	shift 2
	/usr/bin/time -f %M -o "$_n.rss" "$brp" "$@" < "$_in" > "$_n.out" 2> "$_n.err" || true
	_k=$(tail -1 "$_n.rss")
	case $_k in '' | *[!0-9]*) bad "brp $*: no peak memory: '$_k'"; _k=0 ;; esac
	echo "$_k"
}

# a short text, and the same with 16 MiB of comment lines before its end
cp "$s/short-stbl.txt" small.txt
{
	sed '/^end$/d' small.txt
	yes '; a comment' | head -c 16777216
	printf '\nend\n'
} > big.txt
small=$(peak small small.txt import - -o small.brp)
big=$(peak big big.txt import - -o big.brp)
cmp -s small.brp big.brp || bad "64 MiB of comments changed the imported log"
if [ "$big" -gt $((small + 1024)) ]; then
	bad "brp import: peak memory $big KiB for a text of 16 MiB, $small KiB for a short one"
else
	echo "ok: brp import: peak memory $big KiB for a text of 16 MiB, $small KiB for a short one"
fi
line=$(peak line import.txt import - -o line.brp)
if [ "$line" -gt $((small + 1024)) ]; then
	bad "brp import: peak memory $line KiB for a line of 64 MiB, $small KiB for a short text"
else
	echo "ok: brp import: peak memory $line KiB for a line of 64 MiB"
fi
sed -n '/^deal 1$/,/^stock:/p' "$s/short-stbl.txt" > short-record.txt
small=$(peak rsmall short-record.txt record -o rsmall.brp)
line=$(peak rline record.txt record -o rline.brp)
if [ "$line" -gt $((small + 1024)) ]; then
	bad "brp record: peak memory $line KiB with a line of 64 MiB, $small KiB without"
else
	echo "ok: brp record: peak memory $line KiB with a line of 64 MiB, $small KiB without"
fi

[ $fail -eq 0 ] && echo "all ok"
exit $fail
