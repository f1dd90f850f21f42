#!/bin/sh
# The notation's round trips and a brp record session, end to end through brp:
#   text -> log -> text    samples/short-stbl.txt (canonical) comes back identical
#   log -> text -> log     the log brp import wrote comes back byte for byte
#   stdin                  brp import - reads the same text from stdin
#   never closed           a text without 'end' gives a log without it
#   record                 tests/cli/notation/record-session.txt fed to brp record:
#                          its answers and exit code, then the log's text
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
	cd "$tmp"
}

run C UTC
run "$foreign" America/Sao_Paulo
exit "$failed"
