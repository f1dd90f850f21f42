#!/bin/sh
# The notation's round trips and a brp record session, end to end through brp:
#   text -> log -> text    samples/short-stbl.txt (canonical) comes back identical
#   log -> text -> log     the log brp import wrote comes back byte for byte
#   stdin                  brp import - reads the same text from stdin
#   never closed           a text without 'end' gives a log without it
#   record                 tests/cli/notation/record-session.txt fed to brp record:
#                          its answers and exit code, then the log's text
#   [CommitmentVersion]    "2" imports as the tag's absence does; "1" gives the
#                          version-3 sample byte for byte; without it, protocol 1's
#                          revealed text is refused (its commitment is not protocol 2's)
#   [FormatVersion]        "2" gives a version-2 sample byte for byte, "5" a version-5
#                          one, "6" version 6, the same match; its absence or "7" the
#                          newest version (7), the same verdict; "2" or "7" with a
#                          commitment, "3" without [CommitmentVersion "1"] are refused
# Everything runs under LC_ALL=C TZ=UTC and again under a foreign locale and
# time zone, in a scratch directory.
#
#   notation.sh BRP SRCROOT
set -eu

[ $# -eq 2 ] || { echo "usage: notation.sh BRP SRCROOT" >&2; exit 2; }
brp=$1
src=$2
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
case $src in /*) ;; *) src=$(pwd)/$src ;; esac
sample=$src/samples/short-stbl.txt
data=$src/tests/cli/notation

tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-notation.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

foreign=C.UTF-8
installed=$(locale -a 2>/dev/null || true)
for l in pt_BR.utf8 de_DE.utf8 fr_FR.utf8 tr_TR.utf8; do
	if printf '%s\n' "$installed" | grep -qix "$l"; then
		foreign=$l
		break
	fi
done

failed=0
check() { # LABEL EXPECTED ACTUAL
	if cmp -s "$2" "$3"; then
		echo "$1: ok"
	else
		echo "$1: FAILED (expected, actual):"
		diff -u "$2" "$3" || true
		failed=1
	fi
}

run() { # LOCALE TZ
	d=$tmp/$1
	mkdir -p "$d"
	cd "$d"
	export LC_ALL=$1 LANG=$1 TZ=$2

	"$brp" import "$sample" -o a.brp
	"$brp" dump a.brp > a.txt
	check "[$1] text -> log -> text" "$sample" a.txt
	"$brp" import a.txt -o b.brp
	check "[$1] log -> text -> log" a.brp b.brp
	"$brp" dump -o b.txt b.brp
	check "[$1] dump -o" a.txt b.txt
	"$brp" import - -o c.brp < "$sample"
	check "[$1] import from stdin" a.brp c.brp

	grep -v '^end$' "$sample" > open.txt
	"$brp" import open.txt -o open.brp
	"$brp" dump open.brp > open.out
	check "[$1] a recording never closed" open.txt open.out

	rc=0
	"$brp" record -o rec.brp --seat 0=Ana --seat 1=Bia --seat 2=Caio --seat 3=Dora \
		--start 2026-11-30T01:58:23Z --meta platform=example \
		< "$data/record-session.txt" > rec.out 2> rec.err || rc=$?
	echo "exit $rc" >> rec.out
	check "[$1] record: answers" "$data/record-session.out" rec.out
	check "[$1] record: stderr" /dev/null rec.err
	"$brp" dump rec.brp > rec.txt
	check "[$1] record: the log" "$data/record-session.dump" rec.txt

	# [CommitmentVersion]: "2" is the protocol the tag's absence means; "1" writes format version 3 again
	sed 's/^\(\[Commitment ".*"\]\)$/\1\n[CommitmentVersion "2"]/' "$src/samples/committed-v4-4p.txt" > v2.txt
	"$brp" import v2.txt -o v2.brp
	check "[$1] [CommitmentVersion \"2\"]" "$src/samples/committed-v4-4p.brp" v2.brp
	"$brp" import "$src/samples/committed-4p.txt" -o v1.brp
	check "[$1] [CommitmentVersion \"1\"]" "$src/samples/committed-4p.brp" v1.brp
	grep -v '^\[CommitmentVersion' "$src/samples/committed-4p.txt" > v1-untagged.txt
	if "$brp" import v1-untagged.txt -o v1-untagged.brp 2> v1.err; then
		echo "[$1] committed-4p.txt without its [CommitmentVersion \"1\"]: imported, but its commitment is of protocol 1"
		failed=1
	else
		echo "[$1] without [CommitmentVersion \"1\"], protocol 1's commitment is refused: ok"
	fi
	# [FormatVersion]: "2" writes the version-2 sample again, "5" the version-5 one; "6", version 6, the
	# same match; without it (or "7"), version 7, the same verdict (another identity: version 7 keeps of
	# the stock only the order play revealed)
	"$brp" import "$src/samples/stbl-2p.txt" -o f2.brp
	check "[$1] [FormatVersion \"2\"]" "$src/samples/stbl-2p.brp" f2.brp
	"$brp" import "$src/samples/stbl-2p-v5.txt" -o f5.brp
	check "[$1] [FormatVersion \"5\"]" "$src/samples/stbl-2p-v5.brp" f5.brp
	sed 's/^\[FormatVersion "2"\]$/[FormatVersion "6"]/' "$src/samples/stbl-2p.txt" > f6.txt
	grep -v '^\[FormatVersion' "$src/samples/stbl-2p.txt" > f7.txt
	sed 's/^\[FormatVersion "2"\]$/[FormatVersion "7"]/' "$src/samples/stbl-2p.txt" > f7t.txt
	"$brp" import f6.txt -o f6.brp
	"$brp" import f7.txt -o f7.brp
	"$brp" import f7t.txt -o f7t.brp
	id() { "$brp" verify --json "$1" | sed 's/.*"match_id":"\([0-9a-f]*\)".*/\1/'; }
	say() { "$brp" verify "$1" | sed 's/^[^:]*: //'; }
	if [ "$("$brp" dump --json f6.brp | sed 's/.*"format":\([0-9]*\).*/\1/')" != 6 ] ||
		[ "$(id f6.brp)" != "$(id "$src/samples/stbl-2p.brp")" ]; then
		echo "[$1] [FormatVersion \"6\"]: not version 6, or another match"
		failed=1
	else
		echo "[$1] [FormatVersion \"6\"]: version 6, the same match: ok"
	fi
	if [ "$("$brp" dump --json f7.brp | sed 's/.*"format":\([0-9]*\).*/\1/')" != 7 ] || ! cmp -s f7.brp f7t.brp ||
		[ "$(say f7.brp)" != "$(say "$src/samples/stbl-2p.brp")" ]; then
		echo "[$1] without [FormatVersion], or \"7\": not version 7, not alike, or another verdict"
		failed=1
	else
		echo "[$1] without [FormatVersion], or \"7\": version 7, the same verdict: ok"
	fi
	sed 's/^\(\[Commitment ".*"\]\)$/\1\n[FormatVersion "2"]/' "$src/samples/committed-v4-4p.txt" | grep -v '^\[FormatVersion "4"' > f2c.txt
	sed 's/^\[FormatVersion "2"\]$/[FormatVersion "3"]/' "$src/samples/stbl-2p.txt" > f3.txt
	sed 's/^\[FormatVersion "4"\]$/[FormatVersion "7"]/' "$src/samples/committed-v4-4p.txt" > f7c.txt
	for t in f2c f3 f7c; do
		if "$brp" import $t.txt -o $t.brp 2> $t.err || ! grep -q 'FormatVersion' $t.err; then
			echo "[$1] $t.txt: imported, or refused without naming [FormatVersion]: $(cat $t.err)"
			failed=1
		else
			echo "[$1] $t.txt refused: ok"
		fi
	done
	cd "$tmp"
}

run C UTC
run "$foreign" America/Sao_Paulo
exit "$failed"
