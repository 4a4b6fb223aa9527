#!/bin/sh
# SPDX-License-Identifier: MIT
# fuzz.sh - run every libFuzzer target of a -Dfuzz=true build.
#
# usage: scripts/fuzz.sh [-n RUNS] [-m] BUILD_DIR SECONDS
#
# Every executable BUILD_DIR/tests/fuzz/fuzz_* runs, one after the other,
# starting from a temporary copy of its seed corpus tests/fuzz/corpus/<target>/:
#   without -n  for SECONDS each (-max_total_time): the long campaign;
#   -n RUNS     until RUNS executions each (-runs), SECONDS being each
#               target's time cap: CI's budget. A target that stops short
#               of RUNS before its cap fails; one that hits its cap is
#               reported loudly (the machine is slower than the budget
#               assumes) but does not fail.
#   -m          merge what found new coverage back into the repository's
#               corpus (libFuzzer -merge=1: only inputs that add coverage,
#               minimal ones first), for targets without findings.
# A target's own libFuzzer flags, if any, are in tests/fuzz/<target>.options,
# the format OSS-Fuzz reads: `key = value` lines under [libfuzzer] become
# -key=value (# starts a comment).
# Every target's executions, rate and wall time are printed. Exit status 1
# if any target found a crash, a leak, a timeout or an out-of-memory, or
# stopped short of RUNS; its reproducer is copied to BUILD_DIR/fuzz-artifacts/
# (replay it with: BUILD_DIR/tests/fuzz/<target> FILE).
set -eu

usage() {
	echo "usage: $0 [-n RUNS] [-m] BUILD_DIR SECONDS" >&2
	exit 2
}

runs=""
merge=0
while getopts n:m opt; do
	case $opt in
	n) runs=$OPTARG ;;
	m) merge=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
build=$1
seconds=$2
for v in "$seconds" ${runs:+"$runs"}; do
	case $v in
	'' | *[!0-9]* | 0)
		echo "fuzz.sh: SECONDS and RUNS must be positive numbers" >&2
		exit 2
		;;
	esac
done

src=$(cd "$(dirname "$0")/.." && pwd)
fuzzdir=$build/tests/fuzz
if [ ! -d "$fuzzdir" ]; then
	echo "fuzz.sh: $fuzzdir does not exist (build with: CC=clang meson setup $build -Dfuzz=true)" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sdds-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# Findings must be crashes: UBSan stops at the first report, ASan aborts.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS ASAN_OPTIONS

# The value of a libFuzzer final statistic in a log (0 when absent).
stat() {
	v=$(sed -n "s/^stat::$1: *\([0-9]*\).*/\1/p" "$2" | tail -n 1)
	echo "${v:-0}"
}

failed=""
capped=""
ran=0
start_all=$(date +%s)
for t in "$fuzzdir"/fuzz_*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	name=$(basename "$t")
	# A replay build (gcc, no libFuzzer) would take the flags for files.
	if ! grep -q "max_total_time" "$t"; then
		echo "fuzz.sh: $t is not a libFuzzer binary (configure $build with -Dfuzz=true, CC=clang)" >&2
		exit 2
	fi
	corpus=$tmp/$name/corpus
	artifacts=$tmp/$name/artifacts
	mkdir -p "$corpus" "$artifacts"
	if [ -d "$src/tests/fuzz/corpus/$name" ]; then
		cp -R "$src/tests/fuzz/corpus/$name/." "$corpus/"
	fi
	if [ -n "$runs" ]; then
		budget="-runs=$runs -max_total_time=$seconds"
		echo "=== $name: $runs runs (cap ${seconds}s), $(ls "$corpus" | wc -l) seeds"
	else
		budget="-max_total_time=$seconds"
		echo "=== $name: ${seconds}s, $(ls "$corpus" | wc -l) seeds"
	fi
	flags=""
	if [ -f "$src/tests/fuzz/$name.options" ]; then
		flags=$(awk '{ sub(/#.*/, "") }
			/^[[:space:]]*\[/ { lf = ($0 ~ /^[[:space:]]*\[libfuzzer\][[:space:]]*$/); next }
			lf && /=/ { k = $0; sub(/[[:space:]]*=.*/, "", k); gsub(/[[:space:]]/, "", k)
				v = $0; sub(/^[^=]*=[[:space:]]*/, "", v); sub(/[[:space:]]*$/, "", v)
				printf "-%s=%s ", k, v }' "$src/tests/fuzz/$name.options")
		echo "    flags: $flags"
	fi
	ran=$((ran + 1))
	t0=$(date +%s)
	# shellcheck disable=SC2086 # $budget is two flags, $flags the target's own
	if "$t" $budget $flags -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$artifacts/" "$corpus" >"$tmp/$name/log" 2>&1; then
		wall=$(($(date +%s) - t0))
		units=$(stat number_of_executed_units "$tmp/$name/log")
		echo "    $units runs in ${wall}s ($(stat average_exec_per_sec "$tmp/$name/log") execs/s)," \
			"$(stat new_units_added "$tmp/$name/log") new units"
		if [ -n "$runs" ] && [ "$units" -lt "$runs" ]; then
			if [ "$wall" -ge "$seconds" ]; then
				echo "!!! $name: TIME CAP HIT: ${seconds}s were not enough for $runs runs (only $units)"
				capped="$capped $name"
			else
				echo "!!! $name FAILED: stopped after $units of $runs runs, before its ${seconds}s cap;" \
					"last lines of its log:"
				tail -n 20 "$tmp/$name/log"
				failed="$failed $name"
				continue
			fi
		fi
		if [ "$merge" -eq 1 ]; then
			mkdir -p "$src/tests/fuzz/corpus/$name"
			before=$(ls "$src/tests/fuzz/corpus/$name" | wc -l)
			if ! "$t" -merge=1 -timeout=10 -rss_limit_mb=2048 "$src/tests/fuzz/corpus/$name" "$corpus" \
				>"$tmp/$name/merge.log" 2>&1; then
				echo "!!! $name: merge FAILED; last lines of its log:"
				tail -n 20 "$tmp/$name/merge.log"
				failed="$failed $name"
				continue
			fi
			echo "    merged: $(($(ls "$src/tests/fuzz/corpus/$name" | wc -l) - before)) new files in" \
				"tests/fuzz/corpus/$name"
		fi
	else
		echo "!!! $name FAILED; last lines of its log:"
		tail -n 40 "$tmp/$name/log"
		mkdir -p "$build/fuzz-artifacts"
		for a in "$artifacts"/*; do
			[ -f "$a" ] || continue
			cp "$a" "$build/fuzz-artifacts/$name-$(basename "$a")"
			echo "!!! reproducer: $build/fuzz-artifacts/$name-$(basename "$a")"
		done
		failed="$failed $name"
	fi
done

if [ "$ran" -eq 0 ]; then
	echo "fuzz.sh: no fuzz_* targets in $fuzzdir" >&2
	exit 2
fi
echo "fuzz.sh: $ran targets in $(($(date +%s) - start_all))s"
if [ -n "$capped" ]; then
	echo "!!! fuzz.sh: TIME CAP HIT, fewer than $runs runs:$capped"
fi
if [ -n "$failed" ]; then
	echo "fuzz.sh: FAILED:$failed"
	exit 1
fi
echo "fuzz.sh: no findings"
