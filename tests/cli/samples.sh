#!/bin/sh
# The shipped sample logs against samples/MANIFEST, through brp:
#   listed      every .brp under samples/ is in the manifest, every listed file exists
#   verdicts    `brp verify --json FILE` gives the verdict and every KEY=VALUE detail
#               of the file's line, with exit 0 (ok), 1 (illegal, mismatch,
#               incomplete) or 3 (malformed); plain `brp verify` gives the same
#               verdict and exit code; -q prints the file only when not ok
#   round trips a log with a .txt beside it: `brp dump` gives that text, `brp import`
#               of the text gives the log byte for byte, and dump -> import gives
#               the log again; a log without one (damaged) cannot be dumped (exit 3)
#   derivation  samples/disputed/make.sh makes exactly the shipped disputed files
#   batch       `brp verify samples/` walks every log once, in name order, exit 3
# Everything runs under LC_ALL=C TZ=UTC in a scratch directory.
#
#   samples.sh BRP SRCROOT
set -eu

[ $# -eq 2 ] || { echo "usage: samples.sh BRP SRCROOT" >&2; exit 2; }
brp=$1
src=$2
case $brp in /*) ;; *) brp=$(pwd)/$brp ;; esac
case $src in /*) ;; *) src=$(pwd)/$src ;; esac
samples=$src/samples
manifest=$samples/MANIFEST
export LC_ALL=C LANG=C TZ=UTC

tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-samples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp"

failed=0
bad() {
	echo "FAILED: $*"
	failed=1
}
tab=$(printf '\t')

# The manifest without comments and blank lines.
grep -v -e '^#' -e '^[[:space:]]*$' "$manifest" > entries || { echo "no entries in $manifest"; exit 1; }
cut -f1 entries | sort > listed
(cd "$samples" && find . -name '*.brp' | sed 's|^\./||' | sort) > present
if ! cmp -s listed present; then
	bad "the logs listed in MANIFEST (-) differ from the .brp files in samples/ (+):"
	diff -u listed present || true
fi

# has JSON KEY VALUE: the JSON line holds "KEY":VALUE (a number, true/false) or "KEY":"VALUE"
has() {
	case $3 in
	true | false | -[0-9]* | [0-9]*) _v=$3 ;;
	*) _v="\"$3\"" ;;
	esac
	case $1 in
	*"\"$2\":$_v,"* | *"\"$2\":$_v}"*) return 0 ;;
	esac
	return 1
}

n=0
while IFS= read -r line; do
	n=$((n + 1))
	file=$(printf '%s\n' "$line" | cut -f1)
	verdict=$(printf '%s\n' "$line" | cut -f2)
	path=$samples/$file
	case $verdict in
	ok) want=0 ;;
	illegal | mismatch | incomplete) want=1 ;;
	malformed) want=3 ;;
	*)
		bad "$file: unknown verdict '$verdict' in MANIFEST"
		continue
		;;
	esac
	[ -f "$path" ] || { bad "$file: listed in MANIFEST but missing"; continue; }

	# --json: the verdict, each detail, the exit code
	rc=0
	"$brp" verify --json "$path" > json 2> err || rc=$?
	json=$(cat json)
	[ "$rc" = "$want" ] || bad "$file: verify --json exits $rc, not $want"
	[ ! -s err ] || bad "$file: verify --json wrote to stderr: $(cat err)"
	[ "$(wc -l < json)" -eq 1 ] || bad "$file: verify --json printed $(wc -l < json) lines, not 1"
	has "$json" verdict "$verdict" || bad "$file: verdict is not $verdict: $json"
	has "$json" file "$path" || bad "$file: the file is not named: $json"
	printf '%s\n' "$line" | cut -f3- | tr "$tab" '\n' | while IFS= read -r kv; do
		[ -n "$kv" ] || continue
		k=${kv%%=*}
		v=${kv#*=}
		has "$json" "$k" "$v" || { echo "FAILED: $file: \"$k\" is not $v: $json"; echo x >> details-failed; }
	done

	# plain text: "PATH: VERDICT: ..." ("PATH: VERDICT, unclosed: ..." without an end section), the same exit code
	rc=0
	"$brp" verify "$path" > text 2> err || rc=$?
	[ "$rc" = "$want" ] || bad "$file: verify exits $rc, not $want"
	case $(cat text) in
	"$path: $verdict: "*) [ "$verdict" = malformed ] || has "$json" closed true || bad "$file: an unclosed log without 'unclosed': $(cat text)" ;;
	"$path: $verdict, unclosed: "*) has "$json" closed false || bad "$file: a closed log said unclosed: $(cat text)" ;;
	*) bad "$file: verify says: $(cat text)" ;;
	esac
	# -q: nothing for an ok, closed log, the same line otherwise
	rc=0
	"$brp" verify -q "$path" > quiet 2> err || rc=$?
	[ "$rc" = "$want" ] || bad "$file: verify -q exits $rc, not $want"
	if [ "$verdict" = ok ] && has "$json" closed true; then
		[ ! -s quiet ] || bad "$file: verify -q printed an ok log: $(cat quiet)"
	else
		cmp -s text quiet || bad "$file: verify -q printed '$(cat quiet)', not '$(cat text)'"
	fi

	# round trips
	txt=${path%.brp}.txt
	if [ -f "$txt" ]; then
		"$brp" dump "$path" > dumped.txt || bad "$file: dump failed"
		cmp -s "$txt" dumped.txt || { bad "$file: dump differs from ${file%.brp}.txt:"; diff -u "$txt" dumped.txt | head -20 || true; }
		"$brp" import "$txt" -o imported.brp || bad "$file: import of its .txt failed"
		cmp -s "$path" imported.brp || bad "$file: import of ${file%.brp}.txt is not the same log byte for byte"
		"$brp" import dumped.txt -o again.brp || bad "$file: import of its dump failed"
		cmp -s "$path" again.brp || bad "$file: dump -> import is not the same log byte for byte"
		"$brp" dump again.brp > again.txt && cmp -s "$txt" again.txt || bad "$file: text -> log -> text differs"
		rm -f dumped.txt imported.brp again.brp again.txt
	elif [ "$verdict" = malformed ]; then
		rc=0
		"$brp" dump "$path" > /dev/null 2> err || rc=$?
		[ "$rc" = 3 ] || bad "$file: dump of a malformed log exits $rc, not 3"
		[ "$(wc -l < err)" -eq 1 ] || bad "$file: dump of a malformed log wrote $(wc -l < err) error lines, not 1"
	elif [ "$file" = disputed/claims-cut.brp ]; then
		# a byte cut (its text would import to the growing form, other bytes): it dumps
		"$brp" dump "$path" > /dev/null || bad "$file: dump fails"
	elif [ "$file" = disputed/deal-mismatch.brp ]; then
		# bytes put in by hand (an R section): it dumps, and its text, seed and all, does not
		# import, since a committed recorder refuses a layout the seed does not derive
		"$brp" dump "$path" > dumped.txt || bad "$file: dump fails"
		if "$brp" import dumped.txt -o imported.brp 2> err; then
			bad "$file: its text imports"
		else
			grep -q 'deal.layout: deal 1: the layout is not the one the committed seed derives' err ||
				bad "$file: import refuses it otherwise: $(cat err)"
		fi
		rm -f dumped.txt imported.brp
	else
		bad "$file: a readable log without its .txt"
	fi
done < entries
[ ! -f details-failed ] || failed=1
echo "$n logs checked against MANIFEST"

# make.sh makes exactly the shipped disputed samples
if sh "$samples/disputed/make.sh" "$brp" "$samples" made > make.out 2>&1; then
	(cd made && ls) > made.list
	(cd "$samples/disputed" && ls | grep -v -e '^README.md$' -e '^make.sh$') > shipped.list
	cmp -s made.list shipped.list || { bad "make.sh makes other files than samples/disputed holds:"; diff -u shipped.list made.list || true; }
	for f in $(cat made.list); do
		[ -f "$samples/disputed/$f" ] || continue
		cmp -s "made/$f" "$samples/disputed/$f" || bad "disputed/$f is not what make.sh makes"
	done
	echo "make.sh: $(wc -l < made.list) files compared"
else
	bad "make.sh failed:"
	cat make.out
fi

# the whole directory, in name order (directories and files sorted together, as brp verify walks)
rc=0
"$brp" verify "$samples" > all.out 2> err || rc=$?
[ "$rc" = 3 ] || bad "verify samples/ exits $rc, not 3 (there are malformed logs)"
sed 's/: .*//' all.out > all.files
(cd "$samples" && find . -name '*.brp' | sed "s|^\./|$samples/|" | LC_ALL=C sort) > all.want
cmp -s all.files all.want || { bad "verify samples/ did not list every log once, in name order:"; diff -u all.want all.files || true; }

if [ "$failed" = 0 ]; then
	echo "all samples: ok"
fi
exit "$failed"
