#!/bin/sh
# brp record of a committed match (--commitment, --player-seed, a 'seed' line):
#   seed first  the body of samples/committed-4p.txt, its seed line first,
#               recorded with the header as options: the very bytes of
#               samples/committed-4p.brp, and every line taken
#   seed last   the seed revealed before 'end' instead: the same bytes
#   refused     with the seed first, a layout that is not the derived one is
#               refused (deal.layout); revealed last, a seed that is not the
#               one committed to is refused
#   usage       --player-seed without --commitment, a seed line without a
#               commitment
# Runs under LC_ALL=C TZ=UTC in a scratch directory.
#
#   record_commit.sh BRP SRCROOT
set -eu

[ $# -eq 2 ] || { echo "usage: record_commit.sh BRP SRCROOT" >&2; exit 2; }
brp=$1
src=$2
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-rcommit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp"
export LC_ALL=C TZ=UTC
fails=0
bad() { echo "FAILED: $*"; fails=$((fails + 1)); }

txt=$src/samples/committed-4p.txt
tag() { sed -n "s/^\\[$1 \"\\(.*\\)\"\\]\$/\\1/p" "$txt"; }
commitment=$(tag Commitment)
pseed=$(tag PlayerSeed)
seed=$(sed -n 's/^seed //p' "$txt")
[ -n "$commitment" ] && [ -n "$pseed" ] && [ -n "$seed" ] || { echo "FAILED: $txt has no commitment, player seed or seed"; exit 1; }
record() {
	"$brp" record -r kzv -s target=600 -s wrap_as_dirty=false -p 4 --seat 0=greedy-0 --seat 1=greedy-1 --seat 2=greedy-2 \
		--seat 3=greedy-3 --first-dealer 1 --start 2026-01-01T00:00:00Z --meta 'platform=brp simulate' \
		--meta corpus_seed=4 --meta match=1 --commitment "$commitment" --commitment-version 1 --player-seed "$pseed" "$@"
}

# the body: every line after the header (deals, turns, claims, the seed and end)
sed -n '/^seed /,$p' "$txt" > first.txt
rc=0
record -o first.brp < first.txt > first.out || rc=$?
[ "$rc" = 0 ] || bad "seed first: exit $rc: $(grep -v '^ok$\|^kept$' first.out | head -3)"
cmp -s first.brp "$src/samples/committed-4p.brp" || bad "seed first: not the bytes of samples/committed-4p.brp"
grep -qv '^ok$\|^kept$' first.out && bad "seed first: a line not taken: $(grep -v '^ok$\|^kept$' first.out | head -1)"

{ grep -v '^seed \|^end$' first.txt; echo "seed $seed"; echo end; } > last.txt
rc=0
record -o last.brp < last.txt > last.out || rc=$?
[ "$rc" = 0 ] || bad "seed last: exit $rc: $(grep -v '^ok$\|^kept$' last.out | head -3)"
cmp -s last.brp "$src/samples/committed-4p.brp" || bad "seed last: not the bytes of samples/committed-4p.brp"

# deal 1's last two stock cards swapped: not the derived layout
sed '0,/^stock: /s/ 10s Kh 6s$/ 10s 6s Kh/' first.txt > swapped.txt
rc=0
record -o swapped.brp < swapped.txt > swapped.out || rc=$?
[ "$rc" = 1 ] || bad "swapped layout: exit $rc, not 1"
grep -q '^refused: deal.layout: deal 1: the layout is not the one the committed seed derives' swapped.out ||
	bad "swapped layout: not refused as deal.layout: $(grep -v '^ok$\|^kept$' swapped.out | head -1)"
# another seed revealed at the end
other=$(printf '%s' "$seed" | sed 's/^./0/; t; s/^/0/')
[ "$other" != "$seed" ] || other=$(printf '%s' "$seed" | sed 's/^./1/')
{ grep -v '^seed \|^end$' first.txt; echo "seed $other"; echo end; } > wrong.txt
rc=0
record -o wrong.brp < wrong.txt > wrong.out || rc=$?
[ "$rc" = 1 ] || bad "wrong seed: exit $rc, not 1"
grep -q 'commit' wrong.out || bad "wrong seed: the answer does not say so: $(grep -v '^ok$\|^kept$' wrong.out | head -1)"

# usage
rc=0
"$brp" record -o x.brp --player-seed "$pseed" < /dev/null > /dev/null 2> err || rc=$?
[ "$rc" = 2 ] || bad "--player-seed without --commitment: exit $rc, not 2"
grep -q 'needs --commitment' err || bad "--player-seed without --commitment: $(cat err)"
[ -e x.brp ] && bad "--player-seed without --commitment: a log was written"
rc=0
printf 'seed %s\nend\n' "$seed" | "$brp" record -o y.brp > y.out || rc=$?
[ "$rc" = 1 ] || bad "a seed line without a commitment: exit $rc, not 1"
grep -q '^error: ' y.out || bad "a seed line without a commitment: $(cat y.out)"

[ "$fails" = 0 ] || exit 1
echo "record_commit: committed recording as brp import writes it, refusals and usage checked"
