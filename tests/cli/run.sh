#!/bin/sh
# Golden tests for brp.
#
# A case NAME is a set of files in CASEDIR:
#   NAME.args  the arguments, one per line (the subcommand included);
#              @SRCROOT@ in a line is replaced by $BRP_SRCROOT
#   NAME.out   the expected stdout
#   NAME.err   the expected stderr (optional: without it, stderr must be empty)
#   NAME.rc    the expected exit code
#   NAME.in    standard input (optional: without it, /dev/null); @SRCROOT@
#              is replaced as in NAME.args
# $BRP_SRCROOT in stdout and stderr is written @SRCROOT@ before comparing, so
# that a case may print paths of files in the source tree.
# Each case runs under LC_ALL=C TZ=UTC, then again under a foreign locale and
# time zone: the output must not change. Cases run in an empty scratch
# directory, so they cannot depend on the working directory.
#
#   run.sh BRP CASEDIR NAME...             check cases
#   run.sh --update BRP CASEDIR NAME...    write the expected files (review them!)
#   run.sh --check-list CASEDIR NAME...    the names are exactly the cases in CASEDIR
set -eu

usage() {
	echo "usage: run.sh [--update] BRP CASEDIR NAME..." >&2
	echo "       run.sh --check-list CASEDIR NAME..." >&2
	exit 2
}

mode=check
case "${1-}" in
--update) mode=update; shift ;;
--check-list) mode=list; shift ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/cwd"

if [ "$mode" = list ]; then
	[ $# -ge 1 ] || usage
	dir=$1
	shift
	for n in "$@"; do echo "$n"; done | sort > "$tmp/listed"
	(cd "$dir" && for f in *.args; do echo "${f%.args}"; done) | sort > "$tmp/present"
	if ! cmp -s "$tmp/listed" "$tmp/present"; then
		echo "the cases listed in meson.build (-) differ from the .args files in $dir (+):"
		diff -u "$tmp/listed" "$tmp/present" || true
		exit 1
	fi
	echo "$(wc -l < "$tmp/present") cases, all listed"
	exit 0
fi

[ $# -ge 3 ] || usage
brp=$1
dir=$2
shift 2
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
case $dir in /*) ;; *) dir=$(pwd)/$dir ;; esac
[ -x "$brp" ] || { echo "run.sh: $brp is not an executable" >&2; exit 2; }

# The foreign locale: the first one installed, else C.UTF-8 (still a
# different LC_CTYPE from C).
foreign=C.UTF-8
installed=$(locale -a 2>/dev/null || true)
for l in pt_BR.utf8 de_DE.utf8 fr_FR.utf8 tr_TR.utf8; do
	if printf '%s\n' "$installed" | grep -qix "$l"; then
		foreign=$l
		break
	fi
done

# run_case NAME PREFIX LOCALE TZ: run brp with NAME's arguments, write PREFIX.{out,err,rc}
run_case() {
	_args=$dir/$1.args
	_prefix=$2
	_loc=$3
	_tz=$4
	_in=/dev/null
	if [ -f "$dir/$1.in" ]; then
		_in=$tmp/stdin
		sed "s|@SRCROOT@|${BRP_SRCROOT:-}|g" "$dir/$1.in" > "$_in"
	fi
	set --
	while IFS= read -r _line || [ -n "$_line" ]; do
		case $_line in
		*@SRCROOT@*) _line=$(printf '%s\n' "$_line" | sed "s|@SRCROOT@|${BRP_SRCROOT:-}|g") ;;
		esac
		set -- "$@" "$_line"
	done < "$_args"
	_rc=0
	# a fresh directory for every run: no case sees what another (or its own first run) wrote
	rm -rf "$tmp/cwd"
	mkdir "$tmp/cwd"
	(cd "$tmp/cwd" && LC_ALL=$_loc LANG=$_loc TZ=$_tz exec "$brp" "$@") \
		> "$_prefix.out" 2> "$_prefix.err" < "$_in" || _rc=$?
	echo "$_rc" > "$_prefix.rc"
	if [ -n "${BRP_SRCROOT:-}" ]; then
		for _s in out err; do
			sed "s|$_root_re|@SRCROOT@|g" "$_prefix.$_s" > "$_prefix.tmp" && mv "$_prefix.tmp" "$_prefix.$_s"
		done
	fi
}
# BRP_SRCROOT as a sed pattern
_root_re=$(printf '%s\n' "${BRP_SRCROOT:-}" | sed 's/[][\\.*^$|]/\\&/g')

# same LABEL EXPECTED ACTUAL: compare, print a diff when they differ
same() {
	if ! cmp -s "$2" "$3"; then
		echo "--- $1 differs (expected, actual):"
		diff -u "$2" "$3" || true
		return 1
	fi
}

failed=0
for name in "$@"; do
	if [ ! -f "$dir/$name.args" ]; then
		echo "$name: no such case ($dir/$name.args)"
		failed=1
		continue
	fi
	run_case "$name" "$tmp/c" C UTC
	if [ "$mode" = update ]; then
		cp "$tmp/c.out" "$dir/$name.out"
		cp "$tmp/c.rc" "$dir/$name.rc"
		if [ -s "$tmp/c.err" ]; then
			cp "$tmp/c.err" "$dir/$name.err"
		else
			rm -f "$dir/$name.err"
		fi
		echo "$name: updated (exit $(cat "$tmp/c.rc")); review the expected files"
		continue
	fi

	ok=1
	if [ -f "$dir/$name.err" ]; then experr=$dir/$name.err; else experr=/dev/null; fi
	same "$name: stdout" "$dir/$name.out" "$tmp/c.out" || ok=0
	same "$name: stderr" "$experr" "$tmp/c.err" || ok=0
	same "$name: exit code" "$dir/$name.rc" "$tmp/c.rc" || ok=0

	run_case "$name" "$tmp/f" "$foreign" America/Sao_Paulo
	for s in out err rc; do
		same "$name: $s under LC_ALL=$foreign TZ=America/Sao_Paulo vs C/UTC" "$tmp/c.$s" "$tmp/f.$s" || ok=0
	done

	if [ "$ok" = 1 ]; then
		echo "$name: ok"
	else
		printf '%s: FAILED; arguments:' "$name"
		while IFS= read -r a || [ -n "$a" ]; do printf " '%s'" "$a"; done < "$dir/$name.args"
		echo
		failed=1
	fi
done
exit "$failed"
