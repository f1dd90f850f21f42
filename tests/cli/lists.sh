#!/bin/sh
# The batch commands (verify, stats, export) and their lists of logs:
#   lists.sh BRP SRCROOT
# 1. The same paths given as arguments, listed on standard input ("-"), in a
#    --from-list file (with CRLF line ends and empty lines), with --from-list -,
#    or mixed, give the same output, errors and exit code: files, directories
#    walked in name order, a file that does not exist.
# 2. -j 1 and -j 3 give the same bytes, for every form.
# 3. Peak memory does not grow with the length of the list: 20,000 lines run
#    in at most about 1 MiB more than 200 (with /usr/bin/time; else skipped).
#    Nothing here depends on how long a command takes.
set -u

[ $# -eq 2 ] || { echo "usage: lists.sh BRP SRCROOT" >&2; exit 2; }
brp=$1
root=$2
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
case $root in /*) ;; *) root=$(pwd)/$root ;; esac
s=$root/samples
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-lists.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 2
export LC_ALL=C TZ=UTC
fail=0

bad() {
	echo "FAIL: $*"
	fail=1
}

# a tree of logs, other files, and a directory below another
mkdir -p c/sub
cp "$s/kzv-4p.brp" c/a.brp
cp "$s/stbl-2p.brp" c/b.brp
cp "$s/disputed/truncated.brp" c/sub/t.brp
cp "$s/disputed/pile-frozen.brp" c/sub/p.brp
echo notes > c/notes.txt

# the paths, one a line: a file, a directory, a missing file, another directory,
# a directory with a trailing slash, a file already met
printf '%s\n' "$s/stbl-4p.brp" c nosuch.brp "$s/disputed" c/sub/ c/b.brp > paths
head -1 paths > first
sed 1d paths > rest
sed -n '2,4p' paths > middle
sed '1,4d' paths > last
# the same list with CRLF line ends and empty lines
awk '{ printf "%s\r\n\n", $0 } END { printf "\r\n" }' paths > crlf

# form NAME: run the commands with the paths given in form NAME, -j 1 and -j 3,
# into NAME.J.CMD.{out,err,rc} (and the CSV files into NAME.J.csv/)
form() {
	_f=$1
	for _j in 1 3; do
		for _c in verify stats sqlite csv; do
			case $_c in
			sqlite) set -- export --sqlite "$_f.$_j.db" ;;
			csv) set -- export --csv "$_f.$_j.csv" ;;
			*) set -- "$_c" ;;
			esac
			set -- "$@" -j "$_j"
			_in=/dev/null
			case $_f in
			args)
				while IFS= read -r _p; do set -- "$@" "$_p"; done < paths ;;
			stdin)
				set -- "$@" -
				_in=paths ;;
			fromlist)
				set -- "$@" --from-list crlf ;;
			mixed)
				# the first path, then standard input's, then the list's (which --from-list adds last)
				set -- "$@" --from-list last "$(cat first)" -
				_in=middle ;;
			fromlist-stdin)
				set -- "$@" "$(cat first)" --from-list -
				_in=rest ;;
			esac
			_rc=0
			"$brp" "$@" < "$_in" > "$_f.$_j.$_c.out" 2> "$_f.$_j.$_c.err" || _rc=$?
			echo "$_rc" > "$_f.$_j.$_c.rc"
		done
	done
}

# same FORM J: FORM -j J gives what the arguments give with -j 1
same() {
	_ok=1
	for _c in verify stats sqlite csv; do
		for _x in out err rc; do
			if ! cmp -s "args.1.$_c.$_x" "$1.$2.$_c.$_x"; then
				bad "$_c, paths as $1 with -j $2: $_x differs from the arguments with -j 1:"
				diff "args.1.$_c.$_x" "$1.$2.$_c.$_x" | sed 's/^/    /' | head -20
				_ok=0
			fi
		done
	done
	for _csv in args.1.csv/*.csv; do
		if ! cmp -s "$_csv" "$1.$2.csv/${_csv##*/}"; then
			bad "export --csv, paths as $1 with -j $2: ${_csv##*/} differs"
			_ok=0
		fi
	done
	[ $_ok = 1 ] && echo "ok: paths as $1, -j $2: the same output as the arguments"
}

for f in args stdin fromlist mixed fromlist-stdin; do
	form "$f"
done

# the reference itself: every path in its place, the missing file reported, the right exit codes
if [ "$(cut -d: -f1 args.1.verify.out | tr '\n' ' ')" != \
	"$s/stbl-4p.brp c/a.brp c/b.brp c/sub/p.brp c/sub/t.brp $(ls "$s"/disputed/*.brp | tr '\n' ' ')c/sub/p.brp c/sub/t.brp c/b.brp " ]; then
	bad "verify: not every log in its place:"
	sed 's/^/    /' args.1.verify.out
fi
for c in verify stats sqlite csv; do
	grep -q 'nosuch\.brp' "args.1.$c.err" || bad "$c: the missing file is not reported: $(cat "args.1.$c.err")"
	[ "$(cat "args.1.$c.rc")" = 3 ] || bad "$c: exit $(cat "args.1.$c.rc"), not 3"
done
grep -q '^matches  *5$' args.1.stats.out || bad "stats: not 5 matches counted: $(head -1 args.1.stats.out)"
grep -q '^24 logs: .* 5 ok, 18 not ok, some unreadable$' args.1.sqlite.out ||
	bad "export --sqlite: not 24 logs: $(cat args.1.sqlite.out)"
[ -s args.1.csv/matches.csv ] || bad "export --csv wrote no matches.csv"

same args 3
for f in stdin fromlist mixed fromlist-stdin; do
	same "$f" 1
	same "$f" 3
done

# peak memory against the length of the list, with paths long enough (over 200
# bytes) that holding them all would show: 20,000 of them are over 4 MiB
long=d-directory-with-a-long-name-so-that-a-list-of-its-paths-is-big
long=$long/$long/$long
mkdir -p "$long"
cp "$s/stbl-2p.brp" "$long/stbl-2p.brp"
awk -v p="$tmp/$long/stbl-2p.brp" 'BEGIN { for (i = 0; i < 200; i++) print p }' > l200
awk -v p="$tmp/$long/stbl-2p.brp" 'BEGIN { for (i = 0; i < 20000; i++) print p }' > l20000

# a sanitizer keeps freed memory in quarantine: peak memory grows with the work done
skip=
if ! /usr/bin/time -f %M -o probe true 2> /dev/null || ! grep -q '^[0-9][0-9]*$' probe; then
	skip="no GNU /usr/bin/time"
elif grep -aq -e __asan_init -e __msan_init -e __tsan_init -e __hwasan_init "$brp"; then
	skip="brp is built with a sanitizer"
fi
if [ -n "$skip" ]; then
	echo "skipped: peak memory ($skip)"
	[ $fail -eq 0 ] && echo "all ok"
	exit $fail
fi

# peak OUT LIST CMD ARGS...: run with LIST as --from-list into OUT.{out,err}; its peak RSS (KiB) into OUT.rss
peak() {
	_o=$1
	_list=$2
	shift 2
	rm -f mem.db
	_rc=0
	/usr/bin/time -f %M -o "$_o.rss" "$brp" "$@" --from-list "$_list" > "$_o.out" 2> "$_o.err" || _rc=$?
	[ "$_rc" = 0 ] || bad "brp $* --from-list $_list: exit $_rc: $(head -3 "$_o.err")"
}

# flat LABEL CMD ARGS...: 20,000 lines at most about 1 MiB above 200. The
# paths alone are 4 MiB; what varies from run to run (the threads' malloc
# arenas) is a few hundred KiB, and each size is run twice: the larger peak
# of 200 against the smaller of 20,000.
flat() {
	_label=$1
	shift
	for _n in 200 20000; do
		peak "$_label.$_n.a" "l$_n" "$@"
		peak "$_label.$_n" "l$_n" "$@"
	done
	_small=$(tail -1 "$_label.200.rss")
	_other=$(tail -1 "$_label.200.a.rss")
	_big=$(tail -1 "$_label.20000.rss")
	_big2=$(tail -1 "$_label.20000.a.rss")
	case $_small$_other$_big$_big2 in
	'' | *[!0-9]*)
		bad "brp $*: no peak memory from /usr/bin/time: '$_small' '$_other' '$_big' '$_big2'"
		return ;;
	esac
	[ "$_other" -gt "$_small" ] && _small=$_other
	[ "$_big2" -lt "$_big" ] && _big=$_big2
	if [ "$_big" -gt $((_small + 1024)) ]; then
		bad "brp $*: peak memory $_big KiB for a list of 20,000 paths, $_small KiB for 200"
	else
		echo "ok: brp $*: peak memory $_big KiB for a list of 20,000 paths, $_small KiB for 200"
	fi
}

flat verify1 verify -q
flat verify2 verify -q -j 2
flat stats2 stats -j 2
flat export1 export --sqlite mem.db
flat export2 export --sqlite mem.db -j 2
flat csv2 export --csv mem.csv -j 2
# the long lists were worked through: every line a log
[ ! -s verify2.20000.out ] || bad "verify -q printed: $(head -3 verify2.20000.out)"
grep -q '^matches  *20000$' stats2.20000.out || bad "stats: $(head -1 stats2.20000.out), not 20000 matches"
grep -q '^20000 logs: 1 added, 19999 already in the database' export2.20000.out ||
	bad "export --sqlite: $(cat export2.20000.out)"
grep -q '^20000 logs: 1 added, 19999 already exported' csv2.20000.out || bad "export --csv: $(cat csv2.20000.out)"

[ $fail -eq 0 ] && echo "all ok"
exit $fail
