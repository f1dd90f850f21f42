#!/bin/bash
# brp play end to end, its input piped:
#   whole matches  one deal of each profile and table size, the person always
#                  choosing decision 1, then matches to the profile's target:
#                  the match ends (exit 0, "match over"), and the log written
#                  with -o verifies ok with its deal commitment revealed
#   determinism    the same seed and answers print the same lines, with or
#                  without -o
#   any answers    numbers at random (0 and past the list among them, refused)
#                  and decisions in notation: the match still ends, ok
#   hidden cards   no line names a card of another hand (only known ones)
#   quit           the log is closed with the seed revealed and verifies
#                  incomplete
#   killed         brp play killed (SIGKILL) while it waits for an answer: the
#                  log verifies incomplete, every answered decision in it
#
#   play.sh BRP
set -eu

[ $# -eq 1 ] || { echo "usage: play.sh BRP" >&2; exit 2; }
brp=$1
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
export LC_ALL=C LANG=C TZ=UTC

tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-play.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
cd "$tmp"

failed=0
bad() {
	echo "FAILED: $*"
	failed=1
}

# hidden LABEL OUT: no line of OUT shows a card of another seat's hand, only its size and known cards
hidden() {
	if grep -E '^  seat [0-9] \([^)]*\)(, your partner)?: [0-9]+ cards' "$2" |
		grep -vE ': [0-9]+ cards(; known:( [0-9AJQK]+[cdhs]| JK)+)?$' > leak; then
		bad "$1: a line shows more of another hand than its size and known cards: $(head -1 leak)"
	fi
}

# whole LABEL SEED OPTIONS...: a match with the answer 1 throughout, recorded and verified
whole() {
	label=$1
	seed=$2
	shift 2
	rm -f m.brp
	rc=0
	yes 1 | "$brp" play --seed "$seed" -o m.brp "$@" > m.out || rc=$?
	[ "$rc" = 0 ] || { bad "$label: brp play exits $rc"; return; }
	tail -1 m.out | grep -q '^match over: ' || bad "$label: the last line is not the match's end: $(tail -1 m.out)"
	rc=0
	"$brp" verify m.brp > v || rc=$?
	[ "$rc" = 0 ] || bad "$label: brp verify exits $rc: $(cat v)"
	grep -q ': ok: .*; deal commitment revealed$' v || bad "$label: not ok with the deals revealed: $(cat v)"
	hidden "$label" m.out
	yes 1 | "$brp" play --seed "$seed" "$@" > again.out || bad "$label: brp play without -o failed"
	cmp -s m.out again.out || bad "$label: the same seed and answers printed other lines (or -o changed them)"
	echo "$label: $(sed 's/^[^:]*: //' v)"
}

whole "stbl, 2 players, one deal" 1 -r stbl -p 2 -t 0
whole "stbl, 4 players, one deal, seat 2" 2 -r stbl -p 4 -t 0 --seat 2
whole "kzv, 2 players, one deal, seat 1" 3 -r kzv -p 2 -t 0 --seat 1
whole "kzv, 4 players, one deal, random bots" 4 -r kzv -p 4 -t 0 -b random
whole "aberto, 2 players, one deal" 5 -r aberto -p 2 -t 0
whole "aberto, 4 players, one deal, seat 3" 6 -r aberto -p 4 -t 0 --seat 3
whole "kzv, 4 players, to the target" 7 -r kzv -p 4
whole "aberto, 2 players, to the target, -s" 8 -r aberto -p 2 -s bonus_going_out=200

# any answers: numbers from 0 to 6 at random, a decision in notation now and then
awk 'BEGIN { srand(11); for (i = 0; i < 40000; i++) { r = int(rand() * 8); print (r == 7 ? "draw" : r) } }' > answers
rc=0
"$brp" play --seed 9 -p 4 -t 0 -b random -o any.brp < answers > any.out || rc=$?
[ "$rc" = 0 ] || bad "any answers: brp play exits $rc"
tail -1 any.out | grep -q '^match over: ' || bad "any answers: the match did not end: $(tail -1 any.out)"
grep -q '^no decision 0: ' any.out || bad "any answers: the answer 0 was not refused"
"$brp" verify any.brp > v || bad "any answers: brp verify: $(cat v)"
hidden "any answers" any.out
echo "any answers: $(sed 's/^[^:]*: //' v)"

# quit after three decisions: closed, the seed revealed, incomplete
rc=0
printf '1\n1\n1\nquit\n' | "$brp" play --seed 10 -o quit.brp > quit.out || rc=$?
[ "$rc" = 0 ] || bad "quit: brp play exits $rc"
grep -q '^quit in deal 1, turn ' quit.out || bad "quit: not said: $(tail -1 quit.out)"
rc=0
"$brp" verify --json quit.brp > v || rc=$?
[ "$rc" = 1 ] || bad "quit: brp verify exits $rc, not 1"
grep -q '"verdict":"incomplete"' v || bad "quit: not incomplete: $(cat v)"
grep -q '"closed":true' v || bad "quit: the log was not closed: $(cat v)"
grep -q '"commitment":"revealed"' v || bad "quit: the seed was not revealed: $(cat v)"
echo "quit: incomplete, closed, the seed revealed"

# killed while it waits for the fourth answer: what it took is in the log
mkfifo in
"$brp" play --seed 12 -p 2 -o killed.brp < in > killed.out &
pid=$!
exec 3> in
printf '1\n1\n1\n' >&3
i=0
while [ "$(grep -o 'choose> ' killed.out | wc -l)" -lt 4 ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -9 "$pid"
wait "$pid" 2> /dev/null || true
pid=
exec 3>&-
rc=0
"$brp" verify --json killed.brp > v || rc=$?
[ "$rc" = 1 ] || bad "killed: brp verify exits $rc, not 1"
grep -q '"verdict":"incomplete"' v || bad "killed: not incomplete: $(cat v)"
grep -q '"closed":false' v || bad "killed: the log says it was closed: $(cat v)"
took=$(grep -c '^  seat 0 (you): ' killed.out || true)
[ "$took" = 3 ] || bad "killed: $took decisions of the person's were said, not 3"
decisions=$(sed -n 's/.*"decisions":\([0-9]*\).*/\1/p' v)
[ "${decisions:-0}" -ge 3 ] || bad "killed: the log holds ${decisions:-no} decisions, fewer than the 3 answered"
echo "killed: incomplete, $decisions decisions kept"

exit $failed
