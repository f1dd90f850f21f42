#!/usr/bin/env bash
# Every fuzz target for a short while, from its corpus (CI runs it after the
# test suite; docs/security.md, "Fuzzing"):
#
#   tests/fuzz/short-runs.sh BUILDDIR [SECONDS]
#
# BUILDDIR is configured with CC=clang -Dfuzzing=true (created if missing)
# and the targets built; then each target, one after the other, fuzzes for
# SECONDS (default: $BRP_FUZZ_SECONDS, else 60) starting from
# tests/fuzz/corpus/NAME/. New inputs go to a scratch directory and are
# dropped; a crash, a leak, a sanitizer report, a timeout (10 s an input;
# 60 s for fuzz_rules, below) or
# an out-of-memory (100 MB an allocation) fails the run, and the input is
# printed (in hex) and kept under BUILDDIR/fuzz-findings/ to be added to the
# corpus under its own name. Without clang or its libFuzzer runtime
# (libclang-rt-*-dev on Debian) it says so and exits 0: the corpora are
# still replayed by the ordinary suite.
set -euo pipefail

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: short-runs.sh BUILDDIR [SECONDS]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$1
case $build in /*) ;; *) build=$PWD/$build ;; esac
secs=${2:-${BRP_FUZZ_SECONDS:-60}}
case $secs in '' | *[!0-9]*) echo "short-runs.sh: SECONDS must be a number, not '$secs'" >&2; exit 2 ;; esac
export LC_ALL=C TZ=UTC
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/brp-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# clang that links libFuzzer: a one-line target, built
if ! command -v clang > /dev/null; then
	echo "short-runs.sh: no clang: fuzzing skipped (the ordinary suite replays the corpora)"
	exit 0
fi
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
	> "$tmp/probe.c"
if ! clang -fsanitize=fuzzer,address,undefined -o "$tmp/probe" "$tmp/probe.c" 2> "$tmp/probe.err"; then
	echo "short-runs.sh: clang cannot link libFuzzer (libclang-rt-*-dev missing?): fuzzing skipped"
	sed 's/^/    /' "$tmp/probe.err" | head -3
	exit 0
fi

opts=(-Dfuzzing=true -Db_sanitize=none)
if [ "${BRP_WERROR:-0}" = 1 ]; then opts+=(-Dwerror=true); else opts+=(-Dwerror=false); fi
if [ -f "$build/meson-private/coredata.dat" ]; then
	meson setup --reconfigure "${opts[@]}" "$build" "$root" > "$tmp/setup.log" || { cat "$tmp/setup.log"; exit 1; }
else
	CC=clang meson setup "${opts[@]}" "$build" "$root" > "$tmp/setup.log" || { cat "$tmp/setup.log"; exit 1; }
fi

targets=()
for d in "$root"/tests/fuzz/corpus/*/; do
	t=$(basename "$d")
	# a target the build does not have (meson.build leaves it out) is not run
	if meson introspect --targets "$build" | grep -q "\"name\": \"fuzz_$t\""; then
		targets+=("$t")
	else
		echo "short-runs.sh: no target fuzz_$t in this build: its corpus is not fuzzed"
	fi
done
meson compile -C "$build" "${targets[@]/#/fuzz_}" > "$tmp/compile.log" || { tail -30 "$tmp/compile.log"; exit 1; }

failed=0
findings=$build/fuzz-findings
for t in "${targets[@]}"; do
	mkdir -p "$tmp/new-$t" "$tmp/art-$t"
	rc=0
	# fuzz_rules plays a deal of 100 decisions under any rule set: some make 2-player hands of many
	# cards, whose every position lists thousands of decisions, each searched for an end of the turn
	# (bounded, docs/rules.md 11.10): the slowest input known takes 1.7 s in a plain build, 17 s
	# under the fuzzer's instrumentation on an idle machine. A deal that cannot end still hangs past 60 s.
	limit=10
	[ "$t" = rules ] && limit=60
	# the scratch corpus comes first: libFuzzer writes new inputs there, never into the tree
	(cd "$tmp" && timeout $((secs + 120)) "$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout="$limit" \
		-malloc_limit_mb=100 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$tmp/art-$t/" \
		"$tmp/new-$t" "$root/tests/fuzz/corpus/$t") > "$tmp/log-$t" 2>&1 || rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log-$t" | tail -1)
	if [ "$rc" -eq 0 ]; then
		echo "fuzz_$t: ${secs} s, ${runs:-?} inputs, nothing found"
		continue
	fi
	failed=1
	echo "fuzz_$t: FAILED (exit $rc) after ${runs:-?} inputs:"
	grep -E 'ERROR|invariant broken|SUMMARY|Test unit written|^    #[0-9]' "$tmp/log-$t" | head -40 | sed 's/^/    /'
	mkdir -p "$findings"
	for a in "$tmp/art-$t"/*; do
		[ -f "$a" ] || continue
		cp "$a" "$findings/$t-$(basename "$a")"
		echo "    input ($(wc -c < "$a") bytes, kept as $findings/$t-$(basename "$a")):"
		od -An -tx1 -v "$a" | head -20 | sed 's/^/     /'
	done
done
exit $failed
