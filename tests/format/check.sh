#!/bin/sh
# The educational decoder against the C reader: for each log, the text that
# brpdecode.py (written from docs/format.md alone) prints must be the text
# `brp dump` prints, byte for byte.
#
# Logs: samples/short-stbl.txt imported (compact form), the same text
# without 'end' (an unclosed log), and matches simulated by `brp simulate`
# for each profile and table size (several deals, claims, random bots), and
# the logs of tests/format/legacy/ (headers of 31 pairs, docs/format.md section 4),
# and committed ones (format version 3): revealed compact logs, with and without
# player seeds, and a growing log cut before its reveal, then with an R section.
# Then the test vectors of docs/format.md section 15.4: brpdecode.py --deal
# must print what `brp deal` prints.
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

for r in kzv stbl aberto; do
	"$brp" simulate -q -r "$r" -p 4 -n 2 -b mixed --seed 12 --commit -o "$work/sim-$r-commit"
	"$brp" simulate -q -r "$r" -p 2 -n 1 -t 0 -b mixed --seed 13 --commit --player-seeds 3 -s bonus_clean=250 \
		-o "$work/sim-$r-commit-seeds"
done
# a growing committed log: the text of a revealed log without its seed and end lines,
# imported, is the same match committed and unrevealed; then the seed appended as R
f=$(ls "$work"/sim-stbl-commit/*.brp | head -n 1)
"$brp" dump "$f" > "$work/commit.txt"
grep -v -e '^seed ' -e '^end' "$work/commit.txt" > "$work/commit-open.txt"
"$brp" import "$work/commit-open.txt" -o "$work/commit-unrevealed.brp"
seed=$(sed -n 's/^seed //p' "$work/commit.txt")
"$py" -c 'import sys, zlib
s = bytes.fromhex(sys.argv[2]); sec = b"R" + bytes([len(s)]) + s
open(sys.argv[1], "ab").write(sec + zlib.crc32(sec).to_bytes(4, "little"))' "$work/commit-unrevealed.brp" "$seed"
mv "$work/commit-unrevealed.brp" "$work/commit-r-section.brp"

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
	if cmp -s "$f.c.txt" "$f.py.txt"; then
		echo "$f: ok"
	else
		echo "$f: FAILED (brp dump, brpdecode.py):"
		diff -u "$f.c.txt" "$f.py.txt" | head -20 || true
		failed=1
	fi
done
echo "$n logs compared"

vec() {
	"$brp" deal --seed "$1" --deal "$2" -p "$3" $(for s in $4; do echo --player-seed "$s"; done) > "$work/vec.c.txt"
	"$py" "$dec" --deal "$1" "$2" "$3" $4 > "$work/vec.py.txt"
	if cmp -s "$work/vec.c.txt" "$work/vec.py.txt"; then
		echo "vector $5: ok"
	else
		echo "vector $5: FAILED (brp deal, brpdecode.py --deal):"
		diff -u "$work/vec.c.txt" "$work/vec.py.txt" || true
		failed=1
	fi
}
a=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
f=ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
vec $a 1 4 "" 1
vec $a 2 4 "" 2
vec $f 1 2 "0101010101010101010101010101010101010101010101010101010101010101 0202020202020202020202020202020202020202020202020202020202020202" 3
exit $failed
