#!/bin/sh
# Check every row of a meld-dispute table (samples/melds.tsv) with `brp meld`.
#
# Columns, tab-separated; '#' starts a comment line:
#   profile  cards (space-separated)  verdict (valid|invalid)  expect  source
# expect is space-separated KEY=VALUE checks against the JSON answer:
#   rule=meld.wilds, points=70, bonus=1000, clean=true, category=clean14, ...
#
#   melds.sh BRP TSV
set -eu

[ $# -eq 2 ] || { echo "usage: melds.sh BRP TSV" >&2; exit 2; }
brp=$1
tsv=$2
tab=$(printf '\t')
set -f # cards are split on spaces; never glob them

failed=0
rows=0
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	case $line in '' | '#'*) continue ;; esac
	IFS=$tab read -r profile cards verdict expect _ <<ROW
$line
ROW
	rows=$((rows + 1))
	where="$tsv:$lineno: $profile $cards"
	case $verdict in
	valid) want_rc=0 ;;
	invalid) want_rc=1 ;;
	*) echo "$where: verdict must be valid or invalid, not '$verdict'"; failed=1; continue ;;
	esac
	rc=0
	# shellcheck disable=SC2086 # the cards are meant to split
	json=$(LC_ALL=C TZ=UTC "$brp" meld --json --rules "$profile" $cards 2>&1) || rc=$?
	ok=1
	[ "$rc" = "$want_rc" ] || ok=0
	for kv in $expect; do
		k=${kv%%=*}
		v=${kv#*=}
		case $v in
		true | false | -[0-9]* | [0-9]*) pat="\"$k\":${v}[,}]" ;;
		*) pat="\"$k\":\"$v\"" ;;
		esac
		printf '%s\n' "$json" | grep -q "$pat" || ok=0
	done
	if [ "$ok" = 1 ]; then
		echo "ok    $profile $cards: $verdict $expect"
	else
		echo "FAIL  $where: expected $verdict (exit $want_rc) $expect; got exit $rc: $json"
		failed=1
	fi
done < "$tsv"
echo "$rows rows checked"
[ "$rows" -gt 0 ] || { echo "no rows in $tsv"; exit 1; }
exit "$failed"
