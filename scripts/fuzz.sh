#!/bin/sh
# SPDX-License-Identifier: MIT
# fuzz.sh - run every libFuzzer target of a -Dfuzz=true build for a while.
#
# usage: scripts/fuzz.sh BUILD_DIR SECONDS
#
# Every executable BUILD_DIR/tests/fuzz/fuzz_* is run for SECONDS
# (-max_total_time), one after the other, starting from a temporary copy of
# its seed corpus tests/fuzz/corpus/<target>/ (the repository is never
# modified). Exit status 1 if any target found a crash, a leak, a timeout or
# an out-of-memory; its reproducer is copied to BUILD_DIR/fuzz-artifacts/
# (replay it with: BUILD_DIR/tests/fuzz/<target> FILE). Inputs that found
# new coverage are thrown away with the temporary directory; add an
# interesting one to the corpus by hand.
set -eu

if [ $# -ne 2 ]; then
	echo "usage: $0 BUILD_DIR SECONDS" >&2
	exit 2
fi
build=$1
seconds=$2
case $seconds in
'' | *[!0-9]*)
	echo "fuzz.sh: SECONDS must be a number" >&2
	exit 2
	;;
esac

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

failed=""
ran=0
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
	echo "=== $name: ${seconds}s, $(ls "$corpus" | wc -l) seeds"
	ran=$((ran + 1))
	if "$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$artifacts/" "$corpus" >"$tmp/$name/log" 2>&1; then
		grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done )" "$tmp/$name/log" || true
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
if [ -n "$failed" ]; then
	echo "fuzz.sh: FAILED:$failed"
	exit 1
fi
echo "fuzz.sh: $ran targets, no findings"
