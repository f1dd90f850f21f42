#!/bin/sh
# One index of a Kubernetes Indexed Job exporting a corpus (README, "A corpus on
# many machines"): index I of N takes every Nth path of the list, starting at
# line I+1, and exports them into its own shard database; a final brp merge
# joins the shards.
#
#   JOB_COMPLETION_INDEX  this pod's index, 0..N-1 (Kubernetes sets it)
#   SHARDS                N, the Job's completions
#   LIST                  the path list, one log a line (on shared storage)
#   OUT                   the directory of the shard databases (shared storage)
#   BRP                   the brp program (default: brp on PATH)
#
# The shard is written as OUT/.shard-I.db.part and renamed to OUT/shard-I.db
# once exported, so a pod killed and restarted by the Job starts its shard
# again and a merge never reads half a shard.
set -eu
: "${JOB_COMPLETION_INDEX:?}" "${SHARDS:?}" "${LIST:?}" "${OUT:?}"
brp=${BRP:-brp}
part=$OUT/.shard-$JOB_COMPLETION_INDEX.db.part
rm -f "$part" "$part-journal"
mine=$OUT/.shard-$JOB_COMPLETION_INDEX.list
awk -v n="$SHARDS" -v i="$JOB_COMPLETION_INDEX" '(NR - 1) % n == i' "$LIST" > "$mine"
if [ -s "$mine" ]; then # more indexes than logs: an empty share exports nothing
	"$brp" export -q --sqlite "$part" --from-list "$mine"
	mv -f "$part" "$OUT/shard-$JOB_COMPLETION_INDEX.db"
fi
rm -f "$mine"
