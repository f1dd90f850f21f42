#!/bin/sh
# The tree itself, checked:
#   tree-check.sh large SRCROOT   no tracked file over 1 MB (1,000,000 bytes) outside samples/ and the
#                                 data of tests/ (a file of tests/ that is no source: .c .h .py .sh
#                                 meson.build); a scratch file committed by mistake fails here
#   tree-check.sh snapshot SRCROOT FILE
#                                 what git says of the working tree (changed and untracked files,
#                                 ignored ones aside) into FILE, before the suite runs
#   tree-check.sh compare SRCROOT FILE
#                                 after the suite: fails when a test wrote into the source tree (a file
#                                 changed or made that the snapshot did not have), naming each
#   tree-check.sh self SCRIPT     the checks above on made-up trees: they find what they must find
# Outside a git checkout (a release tarball) snapshot and compare do nothing.
set -eu

[ $# -ge 2 ] || { echo "usage: tree-check.sh large|snapshot|compare SRCROOT [FILE]" >&2; exit 2; }
mode=$1 root=$2
if [ "$mode" = self ]; then
	case $root in /*) script=$root ;; *) script=$(pwd)/$root ;; esac
else
	cd "$root"
fi

status() {
	git status --porcelain=v1 --untracked-files=all 2> /dev/null | LC_ALL=C sort
}

case $mode in
large)
	command -v git > /dev/null && git rev-parse --git-dir > /dev/null 2>&1 || { echo "not a git checkout: nothing to check"; exit 0; }
	bad=0
	git ls-files -z | xargs -0 stat -c '%s %n' 2> /dev/null | while read -r size path; do
		case $path in
		samples/*) continue ;;
		tests/*.c | tests/*.h | tests/*.py | tests/*.sh | tests/*/meson.build | tests/meson.build) ;;
		tests/*) continue ;;
		esac
		if [ "$size" -gt 1000000 ]; then
			echo "FAIL: $path is $size bytes, over 1 MB: a scratch file? (only samples/ and test data may be)"
			echo bad
		fi
	done > "${TMPDIR:-/tmp}/tree-check.$$"
	grep -v '^bad$' "${TMPDIR:-/tmp}/tree-check.$$" || true
	grep -q '^bad$' "${TMPDIR:-/tmp}/tree-check.$$" && bad=1
	rm -f "${TMPDIR:-/tmp}/tree-check.$$"
	[ $bad = 0 ] && echo "no tracked file over 1 MB outside samples/ and test data"
	exit $bad
	;;
snapshot)
	[ $# -eq 3 ] || exit 2
	if git rev-parse --git-dir > /dev/null 2>&1; then status > "$3"; else : > "$3"; fi
	;;
compare)
	[ $# -eq 3 ] || exit 2
	git rev-parse --git-dir > /dev/null 2>&1 || exit 0
	now=$(mktemp "${TMPDIR:-/tmp}/tree-now.XXXXXX")
	status > "$now"
	new=$(LC_ALL=C comm -13 "$3" "$now")
	rm -f "$now"
	if [ -n "$new" ]; then
		echo "FAIL: the test suite wrote into the source tree (tests must write under the build directory or a scratch directory):"
		printf '%s\n' "$new"
		exit 1
	fi
	echo "the test suite left the source tree as it found it"
	;;
self)
	# $root is the script itself here; a made-up repository with a scratch file and a big sample
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/tree-self.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	git init -q "$tmp/repo"
	mkdir -p "$tmp/repo/samples" "$tmp/repo/tests/fuzz"
	head -c 1000001 /dev/zero > "$tmp/repo/long.txt"
	head -c 1000001 /dev/zero > "$tmp/repo/samples/big.brp"
	head -c 1000001 /dev/zero > "$tmp/repo/tests/fuzz/seed-big"
	head -c 10 /dev/zero > "$tmp/repo/small"
	(cd "$tmp/repo" && git add -A)
	out=$(sh "$script" large "$tmp/repo" || true)
	printf '%s\n' "$out" | grep -q 'long.txt is 1000001 bytes' || { echo "FAIL: large did not name long.txt: $out"; exit 1; }
	printf '%s\n' "$out" | grep -q 'samples/big.brp\|seed-big' && { echo "FAIL: large named a sample or test data: $out"; exit 1; }
	sh "$script" large "$tmp/repo" > /dev/null && { echo "FAIL: large passed a tree with a 1 MB scratch file"; exit 1; }
	sh "$script" snapshot "$tmp/repo" "$tmp/before"
	sh "$script" compare "$tmp/repo" "$tmp/before" > /dev/null || { echo "FAIL: compare failed an untouched tree"; exit 1; }
	echo x > "$tmp/repo/written-by-a-test"
	out=$(sh "$script" compare "$tmp/repo" "$tmp/before" || true)
	printf '%s\n' "$out" | grep -q 'written-by-a-test' || { echo "FAIL: compare missed a file a test wrote: $out"; exit 1; }
	echo "large and compare find a scratch file and a file written into the tree"
	;;
*) echo "tree-check.sh: unknown mode $mode" >&2; exit 2 ;;
esac
