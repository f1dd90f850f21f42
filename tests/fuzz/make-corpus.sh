#!/bin/sh
# Rebuild the seed corpora of the fuzz targets from samples/ and from brp
# (and brp-v7-lab, which the same build makes beside it):
#   tests/fuzz/make-corpus.sh BUILD/tools/brp
# Seeds are the files named seed-*; they are replaced. Any other file in a
# corpus directory is an input a fuzzer found (crash-*, timeout-*, ...):
# a regression test, kept. Run it after the .brp format or the samples
# change, then review and commit the corpus.
set -eu

[ $# -eq 1 ] || { echo "usage: make-corpus.sh BRP" >&2; exit 2; }
brp=$1
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
[ -x "$brp" ] || { echo "make-corpus.sh: $brp is not an executable" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
corpus=$here/corpus
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C TZ=UTC

for t in reader notation notation_chunks card_meld rules; do
	mkdir -p "$corpus/$t"
	rm -f "$corpus/$t"/seed-*
done

# reader and notation: the samples, legal and disputed
for f in "$root"/samples/*.brp "$root"/samples/disputed/*.brp; do
	[ -f "$f" ] || continue
	d=$(basename "$(dirname "$f")")
	case $d in samples) p= ;; *) p=$d- ;; esac
	cp "$f" "$corpus/reader/seed-$p$(basename "$f")"
done
# logs written before parameter 32 (headers of 31 pairs, docs/format.md section 4)
for f in "$root"/tests/format/legacy/*.brp; do
	cp "$f" "$corpus/reader/seed-legacy31-$(basename "$f")"
done
for f in "$root"/samples/*.txt "$root"/samples/disputed/*.txt; do
	[ -f "$f" ] || continue
	d=$(basename "$(dirname "$f")")
	case $d in samples) p= ;; *) p=$d- ;; esac
	cp "$f" "$corpus/notation/seed-$p$(basename "$f")"
done

# simulated matches: each profile and table size, one deal and a whole match
n=0
for profile in kzv stbl aberto; do
	for players in 2 4; do
		for target in 0 default; do
			n=$((n + 1))
			set -- --rules "$profile" --players "$players" --bot mixed --seed "$n" -q -o "$tmp/sim$n"
			[ "$target" = default ] || set -- "$@" --target "$target"
			"$brp" simulate "$@"
			name=sim-$profile-${players}p-$target
			cp "$tmp/sim$n/match-000001.brp" "$corpus/reader/seed-$name.brp"
			# the text of a whole match is long: one deal is enough to seed the notation
			[ "$target" = default ] || "$brp" dump "$tmp/sim$n/match-000001.brp" > "$corpus/notation/seed-$name.txt"
		done
	done
done
# the growing form (no E): a dumped match without its 'end', imported
sed '/^end/d' "$corpus/notation/seed-sim-stbl-4p-0.txt" > "$tmp/open.txt"
"$brp" import "$tmp/open.txt" -o "$corpus/reader/seed-growing-stbl-4p.brp"

# format version 7 (docs/format.md 21, in progress: written only by brp-v7-lab, beside brp in the build):
# a 4-player KZV match of several deals and a 2-player STBL one, compact and growing
lab=$(dirname "$brp")/brp-v7-lab
mkdir -p "$tmp/v7in" "$tmp/v7"
cp "$tmp/sim2/match-000001.brp" "$tmp/v7in/kzv-2p.brp"
cp "$tmp/sim12/match-000001.brp" "$tmp/v7in/aberto-4p.brp"
cp "$root/samples/stbl-2p.brp" "$tmp/v7in/stbl-2p.brp"
"$lab" write "$tmp/v7in" "$tmp/v7" growing
for f in "$tmp"/v7/*.brp; do
	cp "$f" "$corpus/reader/seed-v7-$(basename "$f")"
done

# signed logs (docs/format.md section 14): a compact match signed as it was written, the growing
# form signed afterwards (one signature, no E), a committed one, and a log signed twice
"$brp" keygen -o "$tmp/key" > /dev/null
"$brp" simulate --rules stbl --players 4 --bot mixed --seed 90 -q -k "$tmp/key.key" -o "$tmp/signed"
cp "$tmp/signed/match-000001.brp" "$corpus/reader/seed-signed-stbl-4p.brp"
"$brp" simulate --rules kzv --players 4 --bot mixed --seed 91 --target 600 --commit --player-seeds 1 -q \
	-k "$tmp/key.key" -o "$tmp/signed-commit"
cp "$tmp/signed-commit/match-000001.brp" "$corpus/reader/seed-signed-committed-kzv-4p.brp"
cp "$corpus/reader/seed-growing-stbl-4p.brp" "$tmp/growing.brp"
"$brp" sign -k "$tmp/key.key" "$tmp/growing.brp" > /dev/null
cp "$tmp/growing.brp" "$corpus/reader/seed-signed-growing-stbl-4p.brp"
"$brp" keygen -o "$tmp/key2" > /dev/null
"$brp" sign -k "$tmp/key2.key" "$tmp/growing.brp" > /dev/null
cp "$tmp/growing.brp" "$corpus/reader/seed-signed-twice-stbl-4p.brp"

# notation_chunks: each notation seed behind a byte that says how to cut it (bits 0-2: pieces of
# 1 to 2^k bytes; bit 7 on every fourth: the reading fails half way), and a few made to straddle
i=0
for f in "$corpus"/notation/seed-*; do
	i=$((i + 1))
	b=$(((i * 37) & 127))
	[ $((i % 4)) -eq 0 ] && b=$((b | 128))
	{ printf "\\$(printf %03o $b)"; cat "$f"; } > "$corpus/notation_chunks/$(basename "$f")"
done
{ printf '\000'; sed 's/$/\r/' "$root/samples/stbl-2p.txt"; } > "$corpus/notation_chunks/seed-crlf-1byte"
{ printf '\007[Notation "1"]\n[Seat "0" "'; head -c 70000 /dev/zero | tr '\0' a; printf '"]\n'; } \
	> "$corpus/notation_chunks/seed-long-line"
{ printf '\003'; sed 's/\[Seat "0" "greedy-0"\]/[Seat "0" "Jos\\xc3\\xa9 \\"q\\" \\\\"]/' "$root/samples/stbl-2p.txt"; } \
	> "$corpus/notation_chunks/seed-escapes"

# card_meld: one seed per row of samples/melds.tsv (byte 0: the profile)
i=0
while IFS='	' read -r profile cards _; do
	case $profile in kzv) b='\000' ;; stbl) b='\001' ;; aberto) b='\002' ;; *) continue ;; esac
	i=$((i + 1))
	{ printf "$b"; printf '%s' "$cards"; } > "$corpus/card_meld/seed-$(printf %03d $i)"
done < "$root/samples/melds.tsv"
printf '\004%s' 'JK 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc Kc Ac' > "$corpus/card_meld/seed-long"
printf '\005%s' '10♥ J♥ Q♥ K♥ A♥ T♥ jk 0c 1c 11c Xs' > "$corpus/card_meld/seed-symbols"

# rules: each profile, then every parameter set to the value it has
for profile in kzv stbl aberto; do
	printf '%s\n' "$profile" > "$corpus/rules/seed-$profile"
	{
		printf '%s\n' "$profile"
		"$brp" rules "$profile" | sed -n 's/^[* ] \([a-z0-9_]*\) *\([^ ]*\) .*/\1=\2/p'
	} > "$corpus/rules/seed-$profile-all"
done
printf 'ABERTO\ntarget=0\nallow_4_players=no\nallow_2_players=false\nwild_end_default=high\nmax_wilds=99\nvalue_joker=-5\n' \
	> "$corpus/rules/seed-odd"

for t in reader notation notation_chunks card_meld rules; do
	printf '%s: %s seeds\n' "$t" "$(ls "$corpus/$t" | grep -c '^seed-')"
done
