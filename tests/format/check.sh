#!/bin/sh
# The educational decoder against the C reader: for each log, the text that
# brpdecode.py (written from docs/format.md alone) prints must be the text
# `brp dump` prints, byte for byte.
#
# Logs: samples/short-stbl.txt imported (compact form), the same text
# without 'end' (an unclosed log), and matches simulated by `brp simulate`
# for each profile and table size (several deals, claims, random bots), and
# the logs of tests/format/legacy/ (headers of 31 pairs, docs/format.md section 4).
#
#   check.sh BRP PYTHON3 BRPDECODE SRCROOT WORKDIR
set -eu

[ $# -eq 5 ] || { echo "usage: check.sh BRP PYTHON3 BRPDECODE SRCROOT WORKDIR" >&2; exit 2; }
brp=$1 py=$2 dec=$3 src=$4 work=$5
export LC_ALL=C TZ=UTC

rm -rf "$work"
mkdir -p "$work"
"$brp" import "$src/samples/short-stbl.txt" -o "$work/short-stbl.brp"
grep -v '^end' "$src/samples/short-stbl.txt" > "$work/short-stbl-open.txt"
"$brp" import "$work/short-stbl-open.txt" -o "$work/short-stbl-open.brp"
for r in kzv stbl aberto; do
	for p in 2 4; do
		"$brp" simulate -q -r "$r" -p "$p" -n 2 -b mixed --seed 11 -o "$work/sim-$r-$p"
	done
done

failed=0 n=0
cp "$src"/tests/format/legacy/*.brp "$work/"
for f in "$work"/*.brp "$work"/sim-*/*.brp; do
	n=$((n + 1))
	"$brp" dump "$f" > "$f.c.txt"
	if ! "$py" "$dec" "$f" > "$f.py.txt"; then
		echo "$f: the educational decoder refused it"
		failed=1
		continue
	fi
	c_id=$("$brp" verify --json "$f" | sed -n 's/.*"match_id":"\([0-9a-f]*\)".*/\1/p')
	py_id=$("$py" "$dec" --match-id "$f")
	if [ -z "$c_id" ] || [ "$c_id" != "$py_id" ]; then
		echo "$f: FAILED: match_id $c_id (brp verify), $py_id (brpdecode.py)"
		failed=1
	fi
	if cmp -s "$f.c.txt" "$f.py.txt"; then
		echo "$f: ok"
	else
		echo "$f: FAILED (brp dump, brpdecode.py):"
		diff -u "$f.c.txt" "$f.py.txt" | head -20 || true
		failed=1
	fi
done
# the same match closed and unclosed: one identity
a=$("$py" "$dec" --match-id "$work/short-stbl.brp")
b=$("$py" "$dec" --match-id "$work/short-stbl-open.brp")
[ "$a" = "$b" ] || { echo "short-stbl.brp and short-stbl-open.brp: match_id $a and $b"; failed=1; }
echo "$n logs compared"
exit $failed
