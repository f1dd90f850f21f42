#!/bin/sh
# The manual pages and the help agree with the tool:
#   man.sh BRP SRCROOT [MANDIR]
# 1. every command that brp --help lists has a page docs/man/brp-CMD.1.scd,
#    named in brp.1.scd, and every page is of a command brp has;
# 2. every long option that brp CMD --help names appears in the page;
# 3. brp help CMD prints exactly what brp CMD --help prints, with the same exit code,
#    and it has the exit-status paragraph ("Exit status: 0 ...");
# 4. the pages render (MANDIR: the built pages, when scdoc built them) with a
#    NAME and a SYNOPSIS section, and man(1) formats them without a warning;
# 5. the bash completion offers the commands, a command's options and the values of some (a profile,
#    a seat, not file names).
set -u

[ $# -ge 2 ] || { echo "usage: man.sh BRP SRCROOT [MANDIR]" >&2; exit 2; }
brp=$1
root=$2
mandir=${3:-}
pages=$root/docs/man
tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-man.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C TZ=UTC
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

cmds=$("$brp" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
[ -n "$cmds" ] || bad "brp --help lists no command"
for c in $cmds; do
	page=$pages/brp-$c.1.scd
	if [ ! -f "$page" ]; then
		bad "no manual page docs/man/brp-$c.1.scd for brp $c"
		continue
	fi
	grep -q "brp-$c(1)" "$pages/brp.1.scd" || bad "brp.1.scd does not name brp-$c(1)"
	"$brp" "$c" --help > "$tmp/help" 2> "$tmp/help.err"
	rc=$?
	[ $rc -eq 0 ] || bad "brp $c --help exits $rc"
	grep -q '^Exit status[ ,:]' "$tmp/help" || bad "brp $c --help has no exit-status paragraph"
	# the options of the option list: lines that start with -x, or --name
	for opt in $(sed -n 's/^ *\(-[A-Za-z], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' "$tmp/help" | sort -u); do
		# scdoc pages write options as *--name*
		grep -q -- "\*$opt\*" "$page" || bad "brp-$c.1.scd does not describe $opt"
	done
	"$brp" help "$c" > "$tmp/help2" 2> "$tmp/help2.err"
	rc2=$?
	[ $rc2 -eq $rc ] || bad "brp help $c exits $rc2, brp $c --help $rc"
	cmp -s "$tmp/help" "$tmp/help2" || bad "brp help $c differs from brp $c --help"
done
for page in "$pages"/brp-*.1.scd; do
	c=$(basename "$page" .1.scd)
	c=${c#brp-}
	echo "$cmds" | grep -qx "$c" || bad "docs/man/brp-$c.1.scd is the page of no command"
done
"$brp" help > "$tmp/h1"
"$brp" --help > "$tmp/h2"
cmp -s "$tmp/h1" "$tmp/h2" || bad "brp help differs from brp --help"
"$brp" help nosuch > /dev/null 2> "$tmp/err" && bad "brp help nosuch succeeds"
grep -q "unknown command 'nosuch'" "$tmp/err" || bad "brp help nosuch: $(cat "$tmp/err")"

if [ -n "$mandir" ]; then
	for c in brp $(for c in $cmds; do echo "brp-$c"; done); do
		f=$mandir/$c.1
		if [ ! -s "$f" ]; then
			bad "the page $c.1 was not built"
			continue
		fi
		grep -q '^\.SH NAME' "$f" || bad "$c.1 has no NAME section"
		grep -q '^\.SH SYNOPSIS' "$f" || bad "$c.1 has no SYNOPSIS section"
		if command -v man > /dev/null; then
			MANWIDTH=80 man --warnings -l "$f" > "$tmp/out" 2> "$tmp/warn" || bad "man cannot format $c.1"
			[ -s "$tmp/warn" ] && bad "man warns on $c.1: $(head -3 "$tmp/warn")"
			grep -q "$c" "$tmp/out" || bad "$c.1 does not render its name"
		fi
	done
fi

# the completion: a function that completes the command, then its options
if command -v bash > /dev/null; then
	out=$(bash -c '
		. "$1"
		COMP_WORDS=("$2" ve); COMP_CWORD=1; _brp; echo "${COMPREPLY[*]}"
		COMP_WORDS=("$2" verify --js); COMP_CWORD=2; _brp; echo "${COMPREPLY[*]}"
		COMP_WORDS=("$2" meld --rules k); COMP_CWORD=3; _brp; echo "${COMPREPLY[*]}"
		COMP_WORDS=("$2" verify --lo); COMP_CWORD=2; _brp; echo "${COMPREPLY[*]}"
		COMP_WORDS=("$2" deal --commitment-version ""); COMP_CWORD=3; _brp; echo "${COMPREPLY[*]}"
		cd "$(mktemp -d)" && COMP_WORDS=("$2" dump --log ""); COMP_CWORD=3; _brp; echo "${COMPREPLY[*]}"
		touch a-file; COMP_WORDS=("$2" view --seat ""); COMP_CWORD=3; _brp; echo "${COMPREPLY[*]}"
		COMP_WORDS=("$2" record --seat ""); COMP_CWORD=3; _brp; echo "${COMPREPLY[*]}"; rm a-file; rmdir "$PWD"
	' sh "$root/tools/completion/brp.bash" "$brp" 2>&1)
	[ "$(echo "$out" | sed -n 1p)" = verify ] || bad "completion of 've': $out"
	[ "$(echo "$out" | sed -n 2p)" = --json ] || bad "completion of 'verify --js': $out"
	[ "$(echo "$out" | sed -n 3p)" = kzv ] || bad "completion of 'meld --rules k': $out"
	[ "$(echo "$out" | sed -n 4p)" = --log ] || bad "completion of 'verify --lo': $out"
	[ "$(echo "$out" | sed -n 5p)" = "1 2" ] || bad "completion of 'deal --commitment-version ': $out"
	[ "$(echo "$out" | sed -n 6p)" = - ] || bad "completion of 'dump --log ': $out"
	[ "$(echo "$out" | sed -n 7p)" = "0 1 2 3" ] || bad "completion of 'view --seat ' (seats, not file names): $out"
	[ "$(echo "$out" | sed -n 8p)" = "0= 1= 2= 3=" ] || bad "completion of 'record --seat ' (I=NAME): $out"
fi

[ $fail -eq 0 ] && echo "manual pages, help and completion agree"
exit $fail
