#!/bin/sh
# Output errors and what a failure leaves behind (issue 7):
#   io.sh BRP SRCROOT
# 1. Every subcommand that prints, with stdout on a full disk (/dev/full),
#    exits 3 with exactly one line on stderr, "brp CMD: ...".
# 2. A failed import, recover or dump leaves no file behind, and a failed
#    import or recover leaves an existing output untouched (they write a
#    temporary file and rename it; its name, when it has one, is .OUT.*~). Never run as an output path a device
#    such as /dev/null: as root, a rename over it would replace it.
set -u

[ $# -eq 2 ] || { echo "usage: io.sh BRP SRCROOT" >&2; exit 2; }
brp=$1
root=$2
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
s=$root/samples
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-io.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 2
export LC_ALL=C TZ=UTC
fail=0

bad() {
	echo "FAIL: $*"
	fail=1
}

# full CMD ARGS...: stdout on /dev/full
full() {
	rc=0
	"$brp" "$@" > /dev/full 2> err || rc=$?
	lines=$(wc -l < err)
	case $1 in -*) who="brp: " ;; *) who="brp $1: " ;; esac
	if [ "$rc" -ne 3 ] || [ "$lines" -ne 1 ] || ! grep -q "^$who" err; then
		bad "brp $* > /dev/full: exit $rc, $lines lines on stderr:"
		sed 's/^/    /' err
	else
		echo "ok: brp $* > /dev/full: $(cat err)"
	fi
}

full rules kzv
full rules --json stbl
full meld 8d 9d 10d
full dump "$s/stbl-4p.brp"
full verify "$s/stbl-4p.brp"
full verify --json "$s/stbl-4p.brp"
full show "$s/stbl-4p.brp" --deal 1 --turn 3
full stats "$s/stbl-4p.brp"
full recover "$s/disputed/truncated.brp" -o "$tmp/rec.brp"
full simulate -n 1 --target 0 -o "$tmp/sim"
printf 'deal 1\n' | full record -o "$tmp/recorded.brp"
full --help
full --version
rm -rf "$tmp/rec.brp" "$tmp/sim" "$tmp/recorded.brp"

# nothing left behind
printf '[Notation "1"]\n[Profile "stbl"]\n[Players "4"]\n\ndeal 1\nhand 0: Ac\n' > broken.txt
"$brp" import broken.txt -o new.brp 2> /dev/null && bad "import of a broken text succeeded"
[ -e new.brp ] && bad "a failed import left new.brp"
for f in .new.brp.*~ new.brp.part~; do
	[ -e "$f" ] && bad "a failed import left $f"
done

cp "$s/stbl-2p.brp" kept.brp
"$brp" import broken.txt -o kept.brp 2> /dev/null && bad "import of a broken text succeeded"
cmp -s kept.brp "$s/stbl-2p.brp" || bad "a failed import changed the existing kept.brp"
for f in .kept.brp.*~ kept.brp.part~; do
	[ -e "$f" ] && bad "a failed import left $f"
done

"$brp" recover "$s/disputed/not-a-log.brp" -o salvaged.brp 2> /dev/null && bad "recover of a non-log succeeded"
[ -e salvaged.brp ] && bad "a failed recover left salvaged.brp"
cp "$s/stbl-2p.brp" kept2.brp
"$brp" recover "$s/disputed/not-a-log.brp" -o kept2.brp 2> /dev/null
cmp -s kept2.brp "$s/stbl-2p.brp" || bad "a failed recover changed the existing kept2.brp"

"$brp" dump "$s/disputed/not-a-log.brp" -o text.txt 2> /dev/null && bad "dump of a non-log succeeded"
[ -e text.txt ] && bad "a failed dump left text.txt"

# an empty input (a directory without logs, an empty list) is the same usage error for
# verify, stats and export (exit 2), and export creates no database or CSV directory
mkdir empty
for form in dir list; do
	for cmd in verify stats "export --sqlite empty.db" "export --csv emptycsv" "export --xlsx empty.xlsx"; do
		rc=0
		if [ $form = dir ]; then
			"$brp" $cmd empty 2> err || rc=$?
		else
			"$brp" $cmd - < /dev/null 2> err || rc=$?
		fi
		[ "$rc" -eq 2 ] && grep -q "^brp ${cmd%% *}: no .brp log found in the arguments\$" err ||
			bad "$cmd on an empty $form: exit $rc, $(cat err)"
	done
done
for f in empty.db emptycsv empty.xlsx; do
	[ -e $f ] && bad "an export of an empty input created $f"
done
rmdir empty

# a successful import or recover leaves the log and nothing else
"$brp" import "$s/stbl-2p.txt" -o good.brp || bad "import of stbl-2p.txt failed"
"$brp" recover "$s/disputed/truncated.brp" -o good2.brp > /dev/null || bad "recover of truncated.brp failed"
"$brp" verify -q good.brp || bad "the imported log does not verify"
for f in *~ .*~; do
	[ -e "$f" ] && bad "a temporary file was left behind: $f"
done

[ $fail -eq 0 ] && echo "all ok"
exit $fail
