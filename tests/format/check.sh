#!/bin/sh
# The educational decoder against the C reader: for each log, the text that
# brpdecode.py (written from docs/format.md alone) prints must be the text
# `brp dump` prints, byte for byte.
#
# Logs: samples/short-stbl.txt imported (compact form), the same text
# without 'end' (an unclosed log), and matches simulated by `brp simulate`
# for each profile and table size (several deals, claims, random bots),
# the logs of tests/format/legacy/ (headers of 31 pairs, docs/format.md section 4),
# the shipped samples of format versions 2 to 7, simulated logs in version 7 (sim-*, below, compact: one
# M), the same in version 6 (imported from their text with [FormatVersion "6"], their claims in E) and in
# version 7's growing form (D, A and C sections, written by brp-v7-lab beside brp in the build),
# and committed ones (format version 6; samples/committed-4p.brp is version 3): revealed compact logs, with and without
# player seeds, and a growing log cut before its reveal, then with an R section;
# then signed ones: simulated with -k (a committed one too), signed twice, a
# section appended after the signature (partial; after E, so malformed), a signed
# byte changed (invalid). For every log the decoder's --signatures line must also
# be what `brp verify --json` says of the signatures (status, key, fingerprint,
# covered, size).
# Then the test vectors of docs/format.md sections 15.4 (protocol 1) and 18.4
# (protocol 2): brpdecode.py --deal must print what `brp deal` prints, and so
# must docs/format.md (its commitments and layouts, read from the page); and
# brp deal --log against brpdecode.py --deal-log for committed logs of both
# protocols, a seed in the header or in an R section (the commitment printed
# is brp verify's digest), an unrevealed log with and without --seed, a wrong seed.
# Last, 400 damaged copies of those logs (BRP_MUTANTS=N for another count): brp dump and
# brpdecode.py must read each alike or refuse it at the same byte, and brp export's row of each
# must say what brp verify --json says (tests/format/mutants.py).
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

# the same matches in format version 6 (a text's [FormatVersion "6"]) and in version 7's growing form
lab=$(dirname "$brp")/brp-v7-lab
mkdir "$work/v7-in" "$work/sim-v7" "$work/sim-v6"
for r in kzv stbl aberto; do
	for p in 2 4; do
		for f in "$work/sim-$r-$p"/*.brp; do
			n=$r-$p-$(basename "$f" .brp)
			cp "$f" "$work/v7-in/$n.brp"
			"$brp" dump "$f" | sed '/^\[FirstDealer /a [FormatVersion "6"]' | "$brp" import - -o "$work/sim-v6/$n.brp"
		done
	done
done
"$lab" write "$work/v7-in" "$work/sim-v7" growing
rm -r "$work/v7-in"

for r in kzv stbl aberto; do
	"$brp" simulate -q -r "$r" -p 4 -n 2 -b mixed --seed 12 --commit -o "$work/sim-$r-commit"
	"$brp" simulate -q -r "$r" -p 2 -n 1 -t 0 -b mixed --seed 13 --commit --player-seeds 1 -s bonus_clean=250 \
		-o "$work/sim-$r-commit-seeds"
done
# a growing committed log: the text of a revealed log without its seed and end lines,
# imported, is the same match committed and unrevealed; then the seed appended as R
f=$(ls "$work"/sim-stbl-commit/*.brp | head -n 1)
"$brp" dump "$f" > "$work/commit.txt"
grep -v -e '^seed ' -e '^end' "$work/commit.txt" > "$work/commit-open.txt"
"$brp" import "$work/commit-open.txt" -o "$work/commit-unrevealed.brp"
cp "$work/commit-unrevealed.brp" "$work/commit-r-section.brp"
seed=$(sed -n 's/^seed //p' "$work/commit.txt")
"$py" -c 'import sys, zlib
s = bytes.fromhex(sys.argv[2]); sec = b"R" + bytes([len(s)]) + s
open(sys.argv[1], "ab").write(sec + zlib.crc32(sec).to_bytes(4, "little"))' "$work/commit-r-section.brp" "$seed"
mkdir "$work/sigonly" # logs whose signatures only are compared (they need not decode)
"$brp" keygen -o "$work/key" > /dev/null
"$brp" simulate -q -r stbl -p 4 -n 2 --seed 12 -k "$work/key.key" -o "$work/sim-signed"
"$brp" simulate -q -r kzv -p 4 -n 1 --seed 14 --commit --player-seeds 2 -k "$work/key.key" -o "$work/sim-signed-commit"
cp "$work/sim-signed/match-000001.brp" "$work/signed-twice.brp"
"$brp" sign -k "$work/key.key" "$work/signed-twice.brp" > /dev/null
"$py" - "$work/sim-signed/match-000002.brp" "$work" << 'PYEOF'
import sys, zlib
data = open(sys.argv[1], "rb").read()
extra = b"x" + bytes([5]) + b"later"
open(sys.argv[2] + "/sigonly/signed-partial.brp", "wb").write(data + extra + zlib.crc32(extra).to_bytes(4, "little"))
# a byte of the first deal's stream changed, its CRC recomputed (a sealed log's, format.md 19.5, after
# E): the signature no longer verifies
d = bytearray(data)
sealed = d[8] == ord("Z")


def frame(pos):
    p, n, sh = pos + 1, 0, 0
    while True:
        n |= (d[p] & 0x7F) << sh
        sh += 7
        p += 1
        if not d[p - 1] & 0x80:
            return p, n


pos = 8
while chr(d[pos]) not in "DM":
    p, n = frame(pos)
    pos = p + n + (0 if sealed else 4)
p, n = frame(pos)
d[p + n - 5] ^= 0x01
if sealed:
    while chr(d[pos]) != "E":
        p, n = frame(pos)
        pos = p + n
    p, n = frame(pos)
    d[p + n : p + n + 4] = zlib.crc32(bytes(d[: p + n])).to_bytes(4, "little")
else:
    d[p + n : p + n + 4] = zlib.crc32(bytes(d[pos : p + n])).to_bytes(4, "little")
open(sys.argv[2] + "/sigonly/signed-invalid.brp", "wb").write(bytes(d))
PYEOF

failed=0 n=0
cp "$src"/tests/format/legacy/*.brp "$work/"
# the shipped samples of every version: 2 (a match dealt freely), 3, 4, 5 (docs/format.md 19) and 6
# (section 20: disputed/recovered.brp, brp recover's salvage)
for v in stbl-2p stbl-4p kzv-4p aberto-4p committed-4p committed-v4-4p stbl-2p-v5 committed-v5-4p; do
	cp "$src/samples/$v.brp" "$work/sample-$v.brp"
done
cp "$src/samples/disputed/recovered.brp" "$work/sample-recovered.brp"
for f in "$work"/*.brp "$work"/sim-*/*.brp "$work"/sigonly/*.brp; do
	"$py" "$dec" --signatures "$f" > "$f.py.sig"
	"$brp" verify --json "$f" |
		sed -n 's/.*"signature":{"status":"\([a-z]*\)","key":"\{0,1\}\([0-9A-Fnul]*\)"\{0,1\},"fingerprint":"\{0,1\}\([0-9a-fnul]*\)"\{0,1\},"trusted":[a-z]*,"covered":\([0-9]*\),"size":\([0-9]*\),.*/\1 \2 \3 \4 \5/p' |
		sed 's/ null/ -/g' > "$f.c.sig"
	if cmp -s "$f.c.sig" "$f.py.sig"; then
		echo "$f: signatures $(cat "$f.py.sig")"
	else
		echo "$f: FAILED signatures (brp verify, brpdecode.py): $(cat "$f.c.sig") / $(cat "$f.py.sig")"
		failed=1
	fi
done
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

# vec NAME "BRP DEAL OPTIONS" "BRPDECODE.PY --deal ARGUMENTS": the same commitment and layout
vec() {
	"$brp" deal $2 > "$work/vec.c.txt"
	"$py" "$dec" --deal $3 > "$work/vec.py.txt"
	cp "$work/vec.c.txt" "$work/vector-$1.txt"
	if cmp -s "$work/vec.c.txt" "$work/vec.py.txt"; then
		echo "vector $1: ok"
	else
		echo "vector $1: FAILED (brp deal, brpdecode.py --deal):"
		diff -u "$work/vec.c.txt" "$work/vec.py.txt" || true
		failed=1
	fi
}
a=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
f=ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
p1=0101010101010101010101010101010101010101010101010101010101010101
p2=0202020202020202020202020202020202020202020202020202020202020202
p3=0303030303030303030303030303030303030303030303030303030303030303
p4=0404040404040404040404040404040404040404040404040404040404040404
# protocol 1 (section 15.4)
vec 1 "--commitment-version 1 --seed $a --deal 1" "--protocol 1 $a 1 4"
vec 2 "--commitment-version 1 --seed $a --deal 2" "--protocol 1 $a 2 4"
vec 3 "--commitment-version 1 --seed $f -p 2 --player-seed $p1 --player-seed $p2" "--protocol 1 $f 1 2 $p1 $p2"
# protocol 2 (section 18.4): the players' seeds given to brp deal in another order than to the decoder
vec 4 "--seed $a" "$a 1 4"
vec 5 "--seed $f -r kzv -s target=1500 -s wrap_as_dirty=false -p 2 --seat 0=Ana --seat 1=Bia --first-dealer 0 --player-seed $p2 --player-seed $p1" \
	"--rules kzv --set target=1500 --set wrap_as_dirty=false --seat 0=Ana --seat 1=Bia --first-dealer 0 $f 1 2 $p1 $p2"
vec 6 "--seed $a -r aberto -s one_card_pile_no_return=true --seat 0=Ana --seat 1=Bia --seat 2=Caio --seat 3=Dora -d 2 --player-seed $p4 --player-seed $p3 --player-seed $p2 --player-seed $p1" \
	"--rules aberto --set one_card_pile_no_return=true --seat 0=Ana --seat 1=Bia --seat 2=Caio --seat 3=Dora $a 2 4 $p1 $p2 $p3 $p4"
# the vectors as docs/format.md prints them (15.4, 18.4): its commitments and layouts are brp deal's
"$py" - "$src/docs/format.md" "$work" << 'PYEOF' || failed=1
import re, sys
doc, work = open(sys.argv[1]).read(), sys.argv[2]
bad = 0
for n in range(1, 7):
    part = re.split(r"\*\*Vector \d\.\*\*", doc)[n]
    lines = [l.strip() for l in part.splitlines() if re.match(r"    (hand \d|morto \d|stock):", l)]
    got = open("%s/vector-%d.txt" % (work, n)).read().splitlines()
    want_commit = re.search(r"Commitment `([0-9a-f]{64})`", part)
    if lines != [l for l in got if not l.startswith(("commitment:", "deal "))] or (
            want_commit and got[0] != "commitment: " + want_commit.group(1)):
        print("docs/format.md vector %d: FAILED, not what brp deal prints" % n)
        bad = 1
    else:
        print("docs/format.md vector %d: ok" % n)
sys.exit(bad)
PYEOF
# brp deal --log: the terms, the players' seeds and the seed of a log (header or R section), both protocols;
# the deal after the log's last one too
for f in "$src/samples/committed-4p.brp" "$src/samples/committed-v4-4p.brp" "$work/commit-r-section.brp" "$work"/sim-kzv-commit-seeds/*.brp; do
	for d in 1 2 7; do
		"$brp" deal --log "$f" -d "$d" > "$work/vec.c.txt"
		"$py" "$dec" --deal-log "$f" "$d" > "$work/vec.py.txt"
		if cmp -s "$work/vec.c.txt" "$work/vec.py.txt"; then
			echo "$f: deal --log -d $d: ok"
		else
			echo "$f: deal --log -d $d: FAILED (brp deal --log, brpdecode.py --deal-log):"
			diff -u "$work/vec.c.txt" "$work/vec.py.txt" || true
			failed=1
		fi
	done
	# the commitment printed is the one brp verify reports
	digest=$("$brp" verify --json "$f" | sed -n 's/.*"digest":"\([0-9a-f]*\)".*/\1/p')
	[ "$(sed -n 's/^commitment: //p' "$work/vec.c.txt")" = "$digest" ] ||
		{ echo "$f: brp deal --log's commitment is not verify's digest $digest"; failed=1; }
done
# an unrevealed log: no seed to take (exit 2), or the seed given; a wrong seed: exit 1
rc=0
"$brp" deal --log "$work/commit-unrevealed.brp" > /dev/null 2> "$work/vec.err" || rc=$?
[ "$rc" = 2 ] && grep -q 'does not reveal its seed' "$work/vec.err" ||
	{ echo "deal --log of an unrevealed log: exit $rc, $(cat "$work/vec.err")"; failed=1; }
"$brp" deal --log "$work/commit-unrevealed.brp" --seed "$seed" > "$work/vec.c.txt" ||
	{ echo "deal --log of an unrevealed log with its seed fails"; failed=1; }
"$brp" deal --log "$work/commit-r-section.brp" > "$work/vec.r.txt"
cmp -s "$work/vec.c.txt" "$work/vec.r.txt" || { echo "deal --log --seed differs from the log's own reveal"; failed=1; }
rc=0
"$brp" deal --log "$work/commit-unrevealed.brp" --seed "$a" > /dev/null 2> "$work/vec.err" || rc=$?
[ "$rc" = 1 ] && grep -q 'not the one the log commits to' "$work/vec.err" ||
	{ echo "deal --log with a wrong seed: exit $rc, $(cat "$work/vec.err")"; failed=1; }

# Last, damaged logs: mutants of every log above, framed again so that the damage reaches the
# decoders (and one in eight not), must be read alike, or refused alike at the same byte, and
# exported as brp verify judges them (mutants.py)
find "$work" -name '*.brp' | sort > "$work/mutant-sources"
# shellcheck disable=SC2046 # one log a line, no spaces in the names
"$py" "$src/tests/format/mutants.py" "$brp" "$py" "$dec" 2026 "${BRP_MUTANTS:-400}" "$work/mutants" \
	$(cat "$work/mutant-sources") || failed=1
exit $failed
