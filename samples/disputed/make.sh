#!/bin/sh
# Derive the disputed samples from the legal ones in samples/, as README.md
# describes: each illegal or wrong match is the canonical text of a legal
# match with one turn or one claim edited, imported with `brp import` (which
# records without the rules engine); the damaged logs are legal logs cut
# short or with one byte changed, at the offsets given below.
#
#   make.sh BRP SAMPLES OUTDIR
#
# The samples are shipped; this script says how they were made and lets the
# tests check that they still are what it makes (tests/cli/samples.sh).
set -eu

[ $# -eq 3 ] || { echo "usage: make.sh BRP SAMPLES OUTDIR" >&2; exit 2; }
brp=$1
src=$2
out=$3
mkdir -p "$out"

# edit NAME SOURCE OLD NEW: SOURCE.txt up to the turn line OLD (exact), that
# line replaced by NEW, then 'end'; the rest of the match is dropped (the
# verdict stops at the first illegal decision anyway).
edit() {
	awk -v old="$3" -v new="$4" '
		$0 == old { print new; print "end"; found = 1; exit }
		{ print }
		END { if (!found) { print "make.sh: no line \"" old "\"" > "/dev/stderr"; exit 1 } }
	' "$src/$2.txt" > "$out/$1.txt"
	"$brp" import "$out/$1.txt" -o "$out/$1.brp"
}

# claim NAME SOURCE OLD NEW: the whole match, one claim line replaced.
claim() {
	awk -v old="$3" -v new="$4" '
		$0 == old { print new; found = 1; next }
		{ print }
		END { if (!found) { print "make.sh: no line \"" old "\"" > "/dev/stderr"; exit 1 } }
	' "$src/$2.txt" > "$out/$1.txt"
	"$brp" import "$out/$1.txt" -o "$out/$1.brp"
}

# ABERTO allows one wild in a meld: 2h and 2s both stand in (for 5c, 6c).
edit meld-two-wilds aberto-4p \
	'2. 1: draw, meld 2c 3c 4c 2h, meld Jh Kh 2s, discard Kh' \
	'2. 1: draw, meld 2c 3c 4c 2h 2s, discard Kh'
# ABERTO: side 0 has 1540 after deal 1, so it is vulnerable in deal 2 and
# its first melds must reach 75 card points in one turn; 2c Jc Qc Kc is 40.
edit vulnerable-open aberto-4p \
	'1. 0: draw, meld 2c Jc Qc Kc, meld 2h 10s Qs Ks, discard 10d' \
	'1. 0: draw, meld 2c Jc Qc Kc, discard 10d'
# KZV: seat 2 discarded a joker in turn 10, freezing the pile; seat 3 takes it.
edit pile-frozen kzv-4p \
	'11. 3: draw, discard Kh' \
	'11. 3: take, discard Kh'
# STBL: who takes the pile must lay its top card (7d) in that same turn.
edit pile-top-not-laid stbl-2p \
	'8. 0: take, meld 6d 7d 8d 9d, discard 8s' \
	'8. 0: take, discard 8s'
# STBL: a dead end (docs/rules.md 11.10). Seat 0 takes the pile, whose top card As must be laid this
# turn, and first melds 2h 3h JK: the two wilds As needed are gone, no lay can hold it, and no decision
# can end the turn. The discard that follows is refused (pile.top_not_laid); the verdict names the meld.
edit dead-end stbl-2p \
	'2. 0: take, meld 2h As 3s, meld 9c 10c JK, discard 9d' \
	'2. 0: take, meld 2h 3h JK, discard 9d'
# STBL: going out needs a clean canastra; with 9s alone, 0.6 is 9s..As, six
# cards, and side 0's three canastras are dirty.
edit out-no-clean-canastra stbl-4p \
	'57. 2: take, add 0.6 8s 9s, add 0.0 Qd' \
	'57. 2: take, add 0.6 9s, add 0.0 Qd, discard 8s'
# A wrong claim for deal 2 (side 1 made 515), and a wrong match total.
claim claim-deal kzv-4p 'claim 2: 675 515' 'claim 2: 675 615'
claim claim-match stbl-4p 'claim match: 1220 275' 'claim match: 1220 285'

# A recording that was never closed: stbl-2p up to turn 40, no 'end' (the
# log stays in its growing form).
awk '{ print } /^40\. / { exit }' "$src/stbl-2p.txt" > "$out/unfinished.txt"
"$brp" import "$out/unfinished.txt" -o "$out/unfinished.brp"

# claim-deal.brp (433 bytes) cut after 404 bytes, the end of deal 2's section:
# its two claims (the wrong one included) and its end are gone, every decision
# is there. Not plain ok: unclosed, the claims after the last section may be
# missing.
head -c 404 "$out/claim-deal.brp" > "$out/claims-cut.brp"
# aberto-4p.brp (461 bytes) cut after 380 bytes: the cut falls inside the
# section of deal 2, bytes 317 to 431.
head -c 380 "$src/aberto-4p.brp" > "$out/truncated.brp"
# kzv-4p.brp (433 bytes) with byte 350 (inside deal 2's section, bytes 298
# to 403) changed by xor 0x01: the section's checksum no longer matches.
{
	head -c 350 "$src/kzv-4p.brp"
	b=$(od -An -tu1 -j350 -N1 "$src/kzv-4p.brp" | tr -d ' ')
	printf "\\$(printf '%03o' $((b ^ 1)))"
	tail -c +352 "$src/kzv-4p.brp"
} > "$out/damaged-byte.brp"
# What brp recover salvages from truncated.brp: deal 1 and its claim.
"$brp" recover "$out/truncated.brp" -o "$out/recovered.brp" > /dev/null
"$brp" dump "$out/recovered.brp" -o "$out/recovered.txt"
# A committed match whose platform dealt deal 1 otherwise than its seed
# derives (the last two stock cards, which nobody drew, swapped), recorded
# without the seed (so nothing refused the layout), then the seed revealed
# in an R section put before the end section, as a platform that reveals
# at the end writes it: the deals are not those committed.
sed -e '/^seed /d' -e '0,/^stock: /s/ 10s Kh 6s$/ 10s 6s Kh/' "$src/committed-4p.txt" > "$out/deal-mismatch.tmp"
"$brp" import "$out/deal-mismatch.tmp" -o "$out/deal-mismatch.tmp.brp"
seed=$(sed -n 's/^seed //p' "$src/committed-4p.txt")
{
	printf 'R\040'
	printf '%s' "$seed" | sed 's/../\\x&/g' | xargs -0 printf
} > "$out/deal-mismatch.R"
{
	head -c -7 "$out/deal-mismatch.tmp.brp"
	cat "$out/deal-mismatch.R"
	gzip -c < "$out/deal-mismatch.R" | tail -c 8 | head -c 4 # the CRC-32 of the section, little-endian
	tail -c 7 "$out/deal-mismatch.tmp.brp"                     # the end section
} > "$out/deal-mismatch.brp"
rm -f "$out/deal-mismatch.tmp" "$out/deal-mismatch.tmp.brp" "$out/deal-mismatch.R"
# Not a match log at all.
printf 'this is not a match log\n' > "$out/not-a-log.brp"
