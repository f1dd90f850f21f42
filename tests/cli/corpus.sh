#!/usr/bin/env bash
# The simulator's promise, checked on a corpus: for each profile and both
# table sizes, a few hundred matches made by brp simulate all verify ok;
# over them every kind of event brp stats counts happens at least once;
# and the same arguments give the same bytes whatever -j.
#
#   corpus.sh BRP [MATCHES]
set -euo pipefail
brp=$1
matches=${2:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LC_ALL=C TZ=UTC

fail=0
declare -A total
keys=(pile_taken pile_frozen rejects morto_direct morto_indirect morto_to_stock ended_out ended_stock
	vulnerable_open dirty clean clean13 clean14 dirty14)
for k in "${keys[@]}"; do total[$k]=0; done

for profile in kzv stbl aberto; do
	for players in 2 4; do
		dir=$work/$profile-$players
		"$brp" simulate -r "$profile" -p "$players" -n "$matches" --seed 7 -b mixed -j 2 -q -o "$dir"
		if ! out=$("$brp" verify -q "$dir"); then
			echo "$profile/$players: not every match verifies ok:"
			echo "$out" | head -5
			fail=1
		fi
		json=$("$brp" stats --json -j 2 "$dir")
		n=$(echo "$json" | sed 's/.*"matches":\([0-9]*\).*/\1/')
		if [ "$n" != "$matches" ]; then
			echo "$profile/$players: stats counts $n matches, not $matches"
			fail=1
		fi
		for k in "${keys[@]}"; do
			v=$(echo "$json" | sed "s/.*\"$k\":\([0-9]*\).*/\1/")
			total[$k]=$((total[$k] + v))
		done
		echo "$profile/$players: $matches matches ok: $json"
	done
done

for k in "${keys[@]}"; do
	if [ "${total[$k]}" -eq 0 ]; then
		echo "event $k never happened in the corpus"
		fail=1
	fi
done

# determinism: the same arguments, another thread count, the same bytes
"$brp" simulate -r kzv -p 4 -n 40 --seed 7 -b mixed -j 1 -q -o "$work/again"
for f in "$work/again"/*.brp; do
	if ! cmp -s "$f" "$work/kzv-4/$(basename "$f")"; then
		echo "simulate is not deterministic: $(basename "$f") differs between -j 2 and -j 1"
		fail=1
		break
	fi
done

[ $fail -eq 0 ] && echo "corpus: every profile and table size verifies; every event kind occurs; deterministic"
exit $fail
