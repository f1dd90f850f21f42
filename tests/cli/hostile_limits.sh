#!/bin/sh
# Bounded work on hostile logs (issue 22, docs/security.md "Limits"):
#   hostile_limits.sh BRP BRP-HOSTILE
# BRP-HOSTILE (tools/bench/hostile.c) builds the worst logs of each kind a
# reader accepts, and the same made to pass a limit by one section:
#   claims          65 536 claims (the limit) in a committed log, their deals
#                   scattered: verify (the identity sorts them), recover,
#                   export -a, view and dump handle it; one C more is refused
#   decisions       4 194 304 legal decisions in one deal (the limit): recover
#                   salvages them all, export -a stores them, view refuses the
#                   page (past 64 MiB) with one line and writes nothing;
#                   36 copies of its last section more (42 million decisions
#                   declared, the log of issue 22) are refused by verify and dump
#   header          the largest header (names and metadata at their limits):
#                   verify, export, view, dump
#   empty sections  64 MiB of empty continuation sections: verify, recover,
#                   export
#   too large       a sparse file of 80 MiB: verify refuses it unread, export
#                   records it malformed with the SHA-256 of all its bytes
# Each command exits as it should, with one line on stderr when it fails,
# and (with GNU /usr/bin/time, not under a sanitizer, which keeps freed
# memory) within a peak memory bound: 32 MiB for what does not grow with the
# log (the claims, the header, verify and dump, the too large file), the file
# itself and 16 MiB more for the 64 MiB log, and for the decisions at the
# limit what the limit allows: recover 160 MiB (a recorder keeps 32 bytes a
# decision: 128 MiB), export -a 176 MiB (36 bytes a decision: 144 MiB), view
# 96 MiB (a page of 64 MiB). Before issue 22 these took 1 GB (recover and
# view of the decisions) and 566 MiB (export -a). Nothing here is timed.
set -u

[ $# -eq 2 ] || { echo "usage: hostile_limits.sh BRP BRP-HOSTILE" >&2; exit 2; }
brp=$1
gen=$2
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
case $gen in /*) ;; *) gen=$(pwd)/$gen ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-hostile-limits.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 2
export LC_ALL=C TZ=UTC
# meson sets MALLOC_PERTURB_, with which glibc writes over every block it hands
# out or takes back: resident memory is then what was allocated, not what is used
unset MALLOC_PERTURB_
fail=0

bad() {
	echo "FAIL: $*"
	fail=1
}

measure=1
if ! /usr/bin/time -f %M -o probe true 2> /dev/null || ! grep -q '^[0-9][0-9]*$' probe; then
	measure=0
	echo "peak memory not checked: no GNU /usr/bin/time"
elif grep -aq -e __asan_init -e __msan_init -e __tsan_init -e __hwasan_init "$brp"; then
	measure=0
	echo "peak memory not checked: brp is built with a sanitizer"
fi

# run RC MIB PATTERN ARGS...: brp ARGS exits RC, its peak memory under MIB MiB,
# and its stderr empty (PATTERN -) or one line matching PATTERN (grep -E)
run() {
	_want=$1 _mib=$2 _pat=$3
	shift 3
	_rc=0
	if [ $measure -eq 1 ]; then
		/usr/bin/time -f %M -o rss "$brp" "$@" > out 2> err || _rc=$?
	else
		"$brp" "$@" > out 2> err || _rc=$?
	fi
	if [ "$_rc" -ne "$_want" ]; then
		bad "brp $*: exit $_rc, not $_want: $(head -c 300 err)"
		return
	fi
	if [ "$_pat" = - ] && [ -s err ]; then
		bad "brp $*: $(head -c 300 err)"
		return
	elif [ "$_pat" != - ] && { [ "$(wc -l < err)" -ne 1 ] || ! grep -Eq "$_pat" err; }; then
		bad "brp $*: stderr is not one line matching '$_pat': $(head -c 300 err)"
		return
	fi
	if [ $measure -eq 1 ]; then
		_k=$(tail -1 rss)
		case $_k in '' | *[!0-9]*) bad "brp $*: no peak memory: '$_k'"; return ;; esac
		if [ "$_k" -gt $((_mib * 1024)) ]; then
			bad "brp $*: peak memory $((_k / 1024)) MiB, over $_mib MiB"
			return
		fi
		echo "ok: brp $*: exit $_rc, peak $((_k / 1024)) MiB (bound $_mib)"
	else
		echo "ok: brp $*: exit $_rc"
	fi
}

# json FIELD FILE: a top-level field of a JSON line
json() {
	/usr/bin/python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[2]))[sys.argv[1]]))' "$1" "$2"
}

"$gen" claims claims.brp claims-past.brp || exit 2
"$gen" decisions decisions.brp decisions-past.brp || exit 2
"$gen" header header.brp || exit 2
"$gen" empty-sections empty.brp || exit 2
truncate -s 83886080 large.brp || exit 2

# claims: the identity sorts 65 536 of them; one more is refused
run 1 32 - verify claims.brp
grep -q ': mismatch, unclosed: a score is claimed for deal [0-9]*, which never ended' out ||
	bad "verify claims.brp: $(cat out)"
run 0 32 - recover --json claims.brp -o claims-out.brp
[ "$(json claims out)" = 65536 ] || bad "recover claims.brp kept $(json claims out) claims"
run 0 32 - export -q -a --sqlite claims.db claims.brp
run 0 32 - view -o claims.html claims.brp
run 0 32 - dump claims.brp
run 3 32 - verify claims-past.brp
grep -q ": malformed: byte $(wc -c < claims.brp): section .C. takes the match past 65536 claims, the most a log holds\$" out ||
	bad "verify claims-past.brp: $(cat out)"

# decisions at the limit, and past it
run 0 160 - recover --json decisions.brp -o decisions-out.brp
[ "$(json decisions out)" = 4194304 ] || bad "recover decisions.brp kept $(json decisions out) decisions"
run 1 32 - verify decisions-out.brp
grep -q 'after turn 2097152 (recovered log)$' out || bad "the salvaged decisions: $(cat out)"
run 0 176 - export -q -a --sqlite decisions.db decisions.brp
run 3 96 'the page would pass 64 MiB, the most a page holds \(docs/view.md\); [0-9]+ positions fit$' \
	view -o decisions.html decisions.brp
[ -e decisions.html ] && bad "view of decisions.brp wrote a page"
past="byte $(wc -c < decisions.brp): section .A. takes the match past 4194304 decisions, the most a log holds"
run 3 32 - verify decisions-past.brp
grep -q "^decisions-past.brp: malformed: $past\$" out || bad "verify decisions-past.brp: $(cat out)"
run 3 32 "^brp dump: decisions-past.brp: $past" dump decisions-past.brp

# the largest header
run 0 32 - verify header.brp
run 0 32 - export -q --sqlite header.db header.brp
run 0 32 - view -o header.html header.brp
run 0 32 - dump header.brp

# 64 MiB of empty sections: the file, and no more
run 1 80 - verify empty.brp
run 0 80 - recover empty.brp -o empty-out.brp
run 0 80 - export -q --sqlite empty.db empty.brp

# larger than a reader accepts: refused unread; exported malformed, its hash of all of it
run 3 32 - verify large.brp
grep -q 'malformed: 83886080 bytes: larger than the 67108864 bytes a reader accepts$' out ||
	bad "verify large.brp: $(cat out)"
run 0 32 - export -q --csv large-csv large.brp
sum=$(sha256sum large.brp | cut -d' ' -f1)
grep -q "$sum" large-csv/matches.csv || bad "export of large.brp: no row with its SHA-256 $sum"

[ $fail -eq 0 ] && echo "all ok"
exit $fail
