#!/bin/sh
# Bits a decision of whole .brp files, per profile and table size, as
# tools/bench.sh makes its corpus (brp simulate --seed 2026 -b greedy), for a
# few hundred matches: a quick size check that does not run the benchmark.
#
#   tools/size-committed.sh BRP DIR [N [SIMULATE OPTION...]]
#
# One line a configuration: name, bytes, deals, decisions, bits a decision,
# and bits a decision with a signature section of SIG bytes a match added
# (SIG=78 by default: 64 + 8 bytes and framing; 112 for a section that also
# carries the public key).
set -eu
[ $# -ge 2 ] || { echo "usage: size-committed.sh BRP DIR [N [SIMULATE OPTION...]]" >&2; exit 2; }
brp=$1 dir=$2
n=${3:-300}
[ $# -ge 3 ] && shift 3 || shift 2
sig=${SIG:-78}
for c in kzv-2 kzv-4 stbl-2 stbl-4 aberto-2 aberto-4; do
	rm -rf "$dir/$c"
	"$brp" simulate -r "${c%-*}" -p "${c#*-}" -n "$n" --seed 2026 -b greedy -q -o "$dir/$c" "$@"
	bytes=$(cat "$dir/$c"/*.brp | wc -c)
	"$brp" verify --json "$dir/$c" > "$dir/$c.json"
	deals=$(sed 's/.*"deals":\([0-9]*\).*/\1/' "$dir/$c.json" | paste -sd+ - | bc)
	dec=$(sed 's/.*"decisions":\([0-9]*\).*/\1/' "$dir/$c.json" | paste -sd+ - | bc)
	printf '%s %s %s %s %s %s\n' "$c" "$bytes" "$deals" "$dec" "$(echo "scale=3; $bytes * 8 / $dec" | bc)" \
		"$(echo "scale=3; ($bytes + $sig * $n) * 8 / $dec" | bc)"
done
