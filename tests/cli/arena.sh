#!/bin/sh
# brp arena end to end, for each profile and table size (greedy against random,
# which is quick, and one pair with the search bot):
#   determinism  the same options give the same JSON with -j 1 and -j 2, and
#                with -o DIR (the logs change no figure)
#   logs         -o DIR holds two logs a pair, each verifies ok with its deal
#                commitment revealed, and the two logs of a pair have the same
#                commitment and the same first deal, A at side 0 in one and
#                side 1 in the other
#   failures     a run that fails leaves no log and no directory it made
#
#   arena.sh BRP
set -eu

[ $# -eq 1 ] || { echo "usage: arena.sh BRP" >&2; exit 2; }
brp=$1
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
export LC_ALL=C LANG=C TZ=UTC

tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-arena.XXXXXX")
trap 'chmod -R u+w "$tmp" 2> /dev/null; rm -rf "$tmp"' EXIT INT TERM
cd "$tmp"

failed=0
bad() {
	echo "FAILED: $*"
	failed=1
}

# check LABEL PAIRS A B OPTIONS...: the checks above
check() {
	label=$1
	n=$2
	shift 2
	rm -rf out j1 j2 jo
	"$brp" arena "$@" -n "$n" --seed 3 -j 1 --json > j1 || { bad "$label: -j 1 failed"; return; }
	"$brp" arena "$@" -n "$n" --seed 3 -j 2 --json > j2 || { bad "$label: -j 2 failed"; return; }
	"$brp" arena "$@" -n "$n" --seed 3 -j 2 --json -o out > jo || { bad "$label: -o failed"; return; }
	cmp -s j1 j2 || bad "$label: -j 1 and -j 2 differ: $(cat j1) $(cat j2)"
	sed 's/,"output":"out"}$/}/' jo | cmp -s j1 - || bad "$label: -o changes the result: $(cat jo)"
	grep -q "^{\"pairs\":$n,\"margin\":" j1 || bad "$label: $(cat j1)"
	[ "$(ls out | wc -l)" = $((2 * n)) ] || bad "$label: $(ls out | wc -l) logs for $n pairs"
	rc=0
	"$brp" verify out > verdicts || rc=$?
	[ "$rc" = 0 ] || { bad "$label: verify exits $rc:"; grep -v ': ok: ' verdicts || true; }
	[ "$(grep -c ': ok: .*; deal commitment revealed$' verdicts)" = $((2 * n)) ] ||
		bad "$label: not every log is ok with its deal commitment revealed: $(cat verdicts)"
	for f in out/pair-*-a0.brp; do
		g=${f%-a0.brp}-a1.brp
		"$brp" deal --log "$f" -d 1 > d0 && "$brp" deal --log "$g" -d 1 > d1 ||
			{ bad "$label: brp deal --log $f or $g fails"; continue; }
		cmp -s d0 d1 || bad "$label: $f and $g have another commitment or layout"
		"$brp" dump "$f" | grep -q '^\[Meta "a_side" "0"\]$' || bad "$label: $f does not say A at side 0"
		"$brp" dump "$g" | grep -q '^\[Meta "a_side" "1"\]$' || bad "$label: $g does not say A at side 1"
	done
	echo "$label: $n pairs: ok"
}

check "kzv, 2 players" 3 greedy random -r kzv -p 2
check "kzv, 4 players" 3 greedy random -r kzv -p 4
check "stbl, 2 players" 3 random greedy -r stbl -p 2
check "stbl, 4 players" 3 greedy random -r stbl -p 4
check "aberto, 2 players" 3 greedy random -r aberto -p 2
check "aberto, 4 players" 3 greedy random -r aberto -p 4
check "stbl, 2 players, search" 1 search:1 greedy -r stbl -p 2

# A seat's bot is seeded by the pair and the seat, not by who sits there: B
# against A is A against B with the sign turned.
"$brp" arena greedy random -r kzv -n 5 --seed 9 --json > ab
"$brp" arena random greedy -r kzv -n 5 --seed 9 --json > ba
ma=$(sed 's/.*"margin":\([-0-9.]*\),.*/\1/' ab)
mb=$(sed 's/.*"margin":\([-0-9.]*\),.*/\1/' ba)
[ "$(awk -v a="$ma" -v b="$mb" 'BEGIN { print (a + b == 0) }')" = 1 ] ||
	bad "greedy against random is $ma, random against greedy $mb"

# A kind against itself: the two seatings of a pair are the same game.
"$brp" arena greedy greedy -r aberto -n 5 --seed 9 --json > aa
grep -q '"margin":0.0,"se":0.0,"won":0,"lost":0,"tied":5,' aa || bad "greedy against greedy: $(cat aa)"

# A run that cannot write its logs leaves nothing behind (exit 3).
if [ "$(id -u)" != 0 ]; then
	mkdir ro
	chmod a-w ro
	rc=0
	"$brp" arena greedy random -n 2 -o ro/out 2> err || rc=$?
	[ "$rc" = 3 ] || bad "an unwritable parent: exit $rc, not 3: $(cat err)"
	[ ! -e ro/out ] || bad "an unwritable parent: ro/out exists"
	chmod u+w ro
	mkdir full
	chmod a-w full
	rc=0
	"$brp" arena greedy random -n 2 -o full 2> err || rc=$?
	[ "$rc" = 3 ] || bad "an unwritable directory: exit $rc, not 3: $(cat err)"
	[ -z "$(ls full)" ] || bad "an unwritable directory: $(ls full) left in it"
	chmod u+w full
fi

exit $failed
