#!/bin/sh
# The hostile benchmark (issue 22, docs/security.md "Limits"): the worst log of
# each kind a reader accepts, and one past the limits, each through the commands
# that read a whole log, with their time and peak memory.
#
#   tools/bench-hostile.sh BUILDDIR [KIND...]     (default: every kind)
#
# BUILDDIR holds tools/brp and tools/brp-hostile (tools/bench/hostile.c, which
# says what each log holds). Each command runs once under GNU time
# (/usr/bin/time -f); its output goes to /dev/null, or to a scratch file that is
# removed. Prints one line a log and command: the log, its size, the command,
# its exit code, wall and CPU seconds, peak resident memory (MiB), and brp's
# first line on stderr when it failed. Times depend on the machine and its
# load (say both with the figures); memory does not.
set -eu
[ $# -ge 1 ] || { echo "usage: bench-hostile.sh BUILDDIR [KIND...]" >&2; exit 2; }
build=$1
shift
brp=$build/tools/brp
gen=$build/tools/brp-hostile
for x in "$brp" "$gen"; do
	[ -x "$x" ] || { echo "bench-hostile.sh: no $x (build first)" >&2; exit 2; }
done
/usr/bin/time -f %M true > /dev/null 2>&1 || { echo "bench-hostile.sh: GNU /usr/bin/time is needed" >&2; exit 2; }
case $brp in /*) ;; *) brp=$(pwd)/$brp gen=$(pwd)/$gen ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-bench-hostile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp"
[ $# -gt 0 ] || set -- $("$gen" list)

echo "machine: $(uname -m), $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| log | bytes | command | exit | wall s | cpu s | peak MiB | message |"
echo "|---|---|---|---|---|---|---|---|"

# run LOG NAME ARGS...: brp ARGS under time, one row of the table
run() {
	_log=$1
	_name=$2
	shift 2
	_rc=0
	/usr/bin/time -f '%e %U %S %M' -o time.out "$brp" "$@" > /dev/null 2> err.out || _rc=$?
	_t=$(tail -1 time.out)
	_msg=$(head -1 err.out | cut -c1-110 | sed 's/|/\\|/g')
	echo "$_t" | awk -v lg="$_log" -v size="$(wc -c < "$_log.brp")" -v cmd="$_name" -v rc="$_rc" -v msg="$_msg" \
		'{ printf "| %s | %d | %s | %d | %.2f | %.2f | %.1f | %s |\n", lg, size, cmd, rc, $1, $2 + $3, $4 / 1024, msg }'
	rm -f out.brp out.db out.db-journal out.db-wal out.html
}

for k in "$@"; do
	"$gen" "$k" "$k.brp" > "$k.about"
	run "$k" verify verify "$k.brp"
	run "$k" recover recover "$k.brp" -o out.brp
	run "$k" "recover --unsigned" recover --unsigned "$k.brp" -o out.brp
	run "$k" export export -q --sqlite out.db "$k.brp"
	run "$k" "export -a" export -q -a --sqlite out.db "$k.brp"
	run "$k" view view -o out.html "$k.brp"
	run "$k" dump dump "$k.brp"
	rm -f "$k.brp"
done
echo
for k in "$@"; do
	cat "$k.about"
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
