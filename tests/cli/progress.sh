#!/bin/sh
# Progress on a terminal, and nothing elsewhere:
#   progress.sh BRP
# Each long command (simulate, verify, stats, export, merge) run under a
# pseudo-terminal (script(1)) ends with its count on standard error
# ("brp simulate: 40/40 matches, 100%"; export and stats count their logs
# ahead for the total, unless standard input gives them); the same command with standard error
# to a file, or with -q, writes no progress at all; results printed to the
# terminal never share a line with the progress line. Nothing here depends on
# how long a command takes.
set -u

[ $# -eq 1 ] || { echo "usage: progress.sh BRP" >&2; exit 2; }
brp=$1
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-progress.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 2
export LC_ALL=C TZ=UTC
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
command -v script > /dev/null || { echo "SKIP: no script(1) to make a terminal"; exit 77; }

# on a terminal: the output with the progress line's redraws (CR, wipe) turned into line ends
tty_run() {
	script -qec "$*" /dev/null < /dev/null | sed 's/\x1b\[K//g' | tr '\r' '\n' | grep -v '^$'
}

tty_run "$brp" simulate -n 40 -j 2 --seed 3 -o c > sim.out
grep -qx 'brp simulate: 40/40 matches, 100%.*' sim.out || bad "simulate on a terminal: $(cat sim.out)"
"$brp" simulate -n 40 --seed 3 -o c2 2> sim.err > /dev/null
[ -s sim.err ] && bad "simulate with stderr to a file wrote: $(cat sim.err)"
tty_run "$brp" simulate -q -n 5 --seed 3 -o c3 > simq.out
[ -s simq.out ] && bad "simulate -q on a terminal wrote: $(cat simq.out)"

tty_run "$brp" verify c > ver.out
grep -q '^brp verify: 40 logs\(, .*\)\{0,1\}$' ver.out || bad "verify on a terminal: $(tail -3 ver.out)"
[ "$(grep -c '^c/match-0000[0-9][0-9].brp: ok: ' ver.out)" = 40 ] || bad "verify's result lines are not whole: $(head -5 ver.out)"
tty_run "$brp" verify -q c > verq.out
[ -s verq.out ] && bad "verify -q on a terminal wrote: $(cat verq.out)"
"$brp" verify c 2> ver.err > /dev/null
[ -s ver.err ] && bad "verify with stderr to a file wrote: $(cat ver.err)"

tty_run "$brp" stats c > st.out
grep -qx 'brp stats: 40/40 logs, 100%.*' st.out || bad "stats on a terminal (a total, counted ahead): $(tail -3 st.out)"
grep -q '^matches  *40$' st.out || bad "stats' table is not whole: $(head -3 st.out)"

tty_run "$brp" export --sqlite a.db c > ex.out
grep -qx 'brp export: 40/40 logs, 100%.*' ex.out || bad "export on a terminal (a total, counted ahead): $(cat ex.out)"
# a list of paths on standard input cannot be counted ahead without taking it: a count alone
ls c/*.brp > list
tty_run "cat list | $brp export --csv csvdir -" > exl.out
grep -q '^brp export: 40 logs\(, .*\)\{0,1\}$' exl.out || bad "export of a piped list: $(cat exl.out)"
grep -q '^40 logs: 40 added' ex.out || bad "export's summary: $(cat ex.out)"
tty_run "$brp" export -q --sqlite b.db c > exq.out
[ -s exq.out ] && bad "export -q on a terminal wrote: $(cat exq.out)"

"$brp" export -q --sqlite s1.db c/match-00000[1-5].brp
"$brp" export -q --sqlite s2.db c/match-00001*.brp
tty_run "$brp" merge m.db s1.db s2.db > me.out
grep -qx 'brp merge: 2/2 databases, 100%.*' me.out || bad "merge on a terminal: $(cat me.out)"

[ $fail -eq 0 ] && echo "progress on a terminal only, never with -q, never mixed with results"
exit $fail
