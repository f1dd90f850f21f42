#!/bin/sh
# Verification of signed, committed logs against unsigned ones (issue 14), in
# instructions (callgrind, which the machine's load does not change):
#
#   tools/bench-signed.sh BRP [MATCHES]      (default 100 matches a configuration)
#
# For each profile and table size, the same simulation (--seed 2026 -b greedy)
# three ways: plain (version 2), committed (the seed revealed, version 3), and
# committed and signed (one signature over the compact form). Prints, a
# configuration a line: decisions, instructions a decision of `brp verify -q
# -j 1` for each, the signed one's throughput against the plain and the
# committed ones, and the bits a decision of each whole file.
set -eu
[ $# -ge 1 ] || { echo "usage: bench-signed.sh BRP [MATCHES]" >&2; exit 2; }
brp=$1
n=${2:-100}
command -v valgrind > /dev/null || { echo "bench-signed.sh: valgrind is needed" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-signed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
"$brp" keygen -o "$tmp/k" > /dev/null
decisions() { "$brp" stats "$1" | awk '$1 == "decisions" {print $2}'; }
instructions() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$brp" verify -q -j 1 "$1" 2>&1 |
		sed -n 's/.*Collected : //p'
}
echo "| corpus | decisions (signed) | instr/decision plain | committed | signed+committed | signed / plain | signed / committed | bits/decision plain | committed | signed+committed |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for c in kzv-2 kzv-4 stbl-2 stbl-4 aberto-2 aberto-4; do
	r=${c%-*}
	p=${c#*-}
	set -- -r "$r" -p "$p" -n "$n" --seed 2026 -b greedy -q
	"$brp" simulate "$@" -o "$tmp/$c-plain"
	"$brp" simulate "$@" --commit -o "$tmp/$c-commit"
	"$brp" simulate "$@" --commit -k "$tmp/k.key" -o "$tmp/$c-signed"
	line=
	for v in plain commit signed; do
		d=$(decisions "$tmp/$c-$v")
		i=$(instructions "$tmp/$c-$v")
		b=$(cat "$tmp/$c-$v"/*.brp | wc -c)
		line="$line $d $i $b"
	done
	echo "$c $line" | awk '{
		ip = $3 / $2; ic = $6 / $5; is = $9 / $8
		printf "| %s | %d | %.0f | %.0f | %.0f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", $1, $8, ip, ic, is,
			ip / is, ic / is, 8 * $4 / $2, 8 * $7 / $5, 8 * $10 / $8 }'
done
