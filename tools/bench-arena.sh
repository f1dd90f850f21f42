#!/usr/bin/env bash
# The strength of the bots, measured as issue 28 asks: brp arena on
# duplicate pairs of one-deal matches with 4 players (docs/performance.md,
# "The arena", gives the figures and the commands one by one).
#
#   tools/bench-arena.sh BRP OUTDIR [PAIRS]
#
# BRP is a brp of a release build (meson setup build-rel --buildtype=release
# -Db_ndebug=true). Writes one JSON object a line (brp arena --json --times)
# to OUTDIR/arena.jsonl:
#   1. greedy against random, PAIRS pairs (default 200) a profile;
#   2. search against greedy, PAIRS pairs a profile, at the strength of
#      STRENGTH_KZV, STRENGTH_STBL, STRENGTH_ABERTO (default: the default
#      strength, search; KZV needs it, the others meet the target with less);
#   3. the cost curve: search:N against greedy at KZV, N = 4 to 256, on
#      CURVE pairs (default 20) of seed 7.
# It takes hours of CPU at the defaults (a search decision at 128 samples
# costs about 0.13 s): -j 2 is used throughout; the seconds in the output
# are CPU seconds of the deciding thread, so a loaded machine does not
# inflate them.
set -euo pipefail

brp=${1:?usage: tools/bench-arena.sh BRP OUTDIR [PAIRS]}
out=${2:?usage: tools/bench-arena.sh BRP OUTDIR [PAIRS]}
pairs=${3:-200}
curve=${CURVE:-20}
mkdir -p "$out"
res=$out/arena.jsonl
: > "$res"

arena() {
	"$brp" arena "$@" -p 4 -j 2 --times --json >> "$res"
	tail -n 1 "$res"
}

for p in kzv stbl aberto; do
	arena greedy random -r $p -n "$pairs" --seed 2026
done
arena "${STRENGTH_KZV:-search}" greedy -r kzv -n "$pairs" --seed 2026
arena "${STRENGTH_STBL:-search}" greedy -r stbl -n "$pairs" --seed 2026
arena "${STRENGTH_ABERTO:-search}" greedy -r aberto -n "$pairs" --seed 2026
for n in 4 16 64 128 256; do
	arena search:$n greedy -r kzv -n "$curve" --seed 7
done
