#!/bin/sh
# Logs through pipes (issue 16, item 6):
#   stdin.sh BRP SRCROOT
# Every command that reads one log reads it from standard input too: each
# sample (and a damaged, an empty and a disputed log) piped into verify,
# stats, dump, show, view and recover, spelled --log -, /dev/stdin and (where - is
# not a list of paths) -, prints exactly what the path form prints, with the
# path written "-". Standard input is one thing at a time (a log or a list),
# a path to a FIFO stays refused, and -j keeps the stdin log first.
set -u

[ $# -eq 2 ] || { echo "usage: stdin.sh BRP SRCROOT" >&2; exit 2; }
brp=$1
root=$2
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
case $root in /*) ;; *) root=$(pwd)/$root ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-stdin.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 2
export LC_ALL=C TZ=UTC
fail=0
n=0

bad() {
	echo "FAIL: $*"
	fail=1
}

# same LOG SPELLING CMD [ARGS...]: "brp CMD ARGS LOG" against "brp CMD ARGS SPELLING < LOG",
# stdout, stderr and exit code, with LOG written - in the path form's output.
same() {
	log=$1
	spelling=$2
	shift 2
	rc1=0
	rc2=0
	"$brp" "$@" "$log" > p.out 2> p.err || rc1=$?
	if [ "$spelling" = --log ]; then
		"$brp" "$@" --log - < "$log" > s.out 2> s.err || rc2=$?
	else
		"$brp" "$@" "$spelling" < "$log" > s.out 2> s.err || rc2=$?
	fi
	base=${log##*/}
	for f in out err; do
		# the path, then (brp view) its base name in the page's title
		sed -e "s|$log|-|g" -e "s|$base|-|g" "p.$f" > "p.$f.named"
	done
	n=$((n + 1))
	[ "$rc1" = "$rc2" ] || bad "brp $* $spelling < $log: exit $rc2, the path form $rc1"
	cmp -s p.out.named s.out || { bad "brp $* $spelling < $log: stdout differs:"; diff p.out.named s.out | head -5; }
	cmp -s p.err.named s.err || { bad "brp $* $spelling < $log: stderr differs:"; diff p.err.named s.err | head -5; }
}

cp "$root"/samples/*.brp .
cp "$root"/samples/disputed/*.brp . 2> /dev/null || true
head -c 200 stbl-4p.brp > cut.brp
: > empty.brp
logs=$(ls ./*.brp)

for log in $logs; do
	for sp in --log /dev/stdin; do
		same "$log" "$sp" verify
		same "$log" "$sp" verify --json
		same "$log" "$sp" stats
		same "$log" "$sp" stats --json
	done
	for sp in --log /dev/stdin -; do
		same "$log" "$sp" dump
		same "$log" "$sp" show
		same "$log" "$sp" show --json -d 1 -t 2
		same "$log" "$sp" view -o -
		same "$log" "$sp" recover -o salvaged.brp
	done
done
# what recover writes from a pipe is what it writes from the file
"$brp" recover cut.brp -o a.brp > /dev/null
"$brp" recover - -o b.brp < cut.brp > /dev/null
cmp -s a.brp b.brp || bad "recover - wrote another log than recover FILE"
[ -s p.out ] || bad "the last case printed nothing: the comparisons compare nothing"

# the stdin log comes first, whatever -j
"$brp" verify stbl-2p.brp stbl-4p.brp > want 2>&1
"$brp" verify stbl-4p.brp > w1 2>&1
sed 's|^\./stbl-4p.brp|-|; s|^stbl-4p.brp|-|' w1 > w2
cat w2 > want2
"$brp" verify stbl-2p.brp >> want2 2>&1
for j in 1 2 4; do
	"$brp" verify -j $j --log - stbl-2p.brp < stbl-4p.brp > got 2>&1 || bad "verify -j $j --log -: exit $?"
	cmp -s want2 got || { bad "verify -j $j --log - FILE: not the stdin log first:"; diff want2 got; }
done
# /dev/stdin among the arguments is read in its place
"$brp" verify stbl-2p.brp /dev/stdin kzv-4p.brp < stbl-4p.brp > got 2>&1
{ "$brp" verify stbl-2p.brp; cat w2; "$brp" verify kzv-4p.brp; } > want3 2>&1
cmp -s want3 got || { bad "verify A /dev/stdin B: not in the arguments' order:"; diff want3 got; }

# standard input is a log or a list, not both; twice is refused too (a usage
# error, 2; a log that cannot be read is a failure, 3)
for args in "--log - -" "--log - --from-list -" "/dev/stdin -" "--log - /dev/stdin" "--log - --log -"; do
	rc=0
	# shellcheck disable=SC2086
	"$brp" verify $args < stbl-4p.brp > out 2> err || rc=$?
	[ $rc -eq 2 ] || bad "verify $args: exit $rc, not 2"
	grep -q "^brp verify: standard input is read once" err || bad "verify $args: $(cat err)"
	[ -s out ] && bad "verify $args printed a verdict"
done
rc=0
"$brp" dump - --log - < stbl-4p.brp > out 2> err || rc=$?
[ $rc -eq 2 ] && grep -q "one log at a time" err || bad "dump - --log -: exit $rc: $(cat err)"
# a command that reads one log takes one --log: a second is refused by the option layer
for cmd in dump show view "recover -o out.brp"; do
	rc=0
	# shellcheck disable=SC2086
	"$brp" $cmd --log - --log stbl-4p.brp < stbl-4p.brp > out 2> err || rc=$?
	[ $rc -eq 2 ] && grep -q "^brp ${cmd%% *}: --log given twice: it takes one value" err ||
		bad "$cmd --log - --log FILE: exit $rc: $(cat err)"
	[ -s out ] && bad "$cmd --log - --log FILE printed something"
done
[ -e out.brp ] && bad "recover --log twice wrote its output"

# in a batch --log is repeatable: the --log paths come first, in their order
for cmd in verify stats; do
	"$brp" $cmd --log stbl-2p.brp --log kzv-4p.brp stbl-4p.brp > got 2>&1 || bad "$cmd --log A --log B C: exit $?"
	"$brp" $cmd stbl-2p.brp kzv-4p.brp stbl-4p.brp > want 2>&1
	cmp -s want got || { bad "$cmd --log A --log B C is not $cmd A B C:"; diff want got; }
done

# a list of paths on standard input is still a list
echo stbl-4p.brp | "$brp" verify - > got 2>&1
"$brp" verify stbl-4p.brp > want 2>&1
cmp -s want got || bad "verify - (a list) changed: $(cat got)"

# a path to a FIFO is refused, never waited on (a writer that never comes)
mkfifo fifo.brp
for cmd in verify dump show; do
	rc=0
	timeout 10 "$brp" $cmd fifo.brp > out 2> err || rc=$?
	[ $rc -eq 3 ] && grep -q "fifo.brp: a FIFO, not a regular file" err || bad "$cmd FIFO: exit $rc: $(cat err)"
done

# a pipe longer than a reader accepts: refused as the path form is, reading no more than the limit
rc=0
head -c 67108865 /dev/zero | "$brp" verify --log - > out 2> err || rc=$?
[ $rc -eq 3 ] && grep -q "^-: malformed: more than the 67108864 bytes a reader accepts" out ||
	bad "a 64 MiB + 1 pipe: exit $rc: $(cat out err)"

# the commands that do not read one log say so in their help
for cmd in export sign; do
	"$brp" $cmd --help | grep -q "standard input" || bad "brp $cmd --help does not say why it reads no log from standard input"
done

[ $fail -eq 0 ] && echo "$n commands read a log from standard input as from its path"
exit $fail
