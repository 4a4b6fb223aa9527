#!/bin/sh
# golden.sh SDDS_GEN SOURCE_ROOT [--update] - sdds-gen's output on every node
# config of the tree, against tests/gen/golden.sha256.
#
# Every *.xml that git tracks (or, without git, every *.xml under the source
# root) whose root element is <project> is a config. For each the manifest
# keeps the SHA-256 of the two generated files and of --dump's output (the
# topics' flattened fields, offsets and sizes), or, for a config sdds-gen
# refuses, of its message (the paths in it relative to the source root), so
# that a change to the reader or the generator that changes any output,
# accepted or refused, fails here. --update writes the manifest anew (after
# a change meant to change the output; the diff shows which configs moved).
# Exit 0 all the same, 1 a difference (each listed), 2 a usage error.
set -eu

gen=$1
src=$(cd "$2" && pwd)
update=${3:-}
manifest=$src/tests/gen/golden.sha256
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

case $gen in /*) ;; *) gen=$PWD/$gen ;; esac
cd "$src"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	files=$(git ls-files '*.xml')
else
	files=$(find . -name '*.xml' -not -path './build*' | sed 's|^\./||' | sort)
fi

for f in $files; do
	head -c 400 "$f" | grep -q '<project' || continue
	out=$tmp/out
	rm -rf "$out"
	mkdir -p "$out"
	if "$gen" -o "$out" "$f" > "$tmp/msg" 2>&1; then
		for g in "$out"/*_sdds_impl.h "$out"/*_sdds_impl.c; do
			printf '%s %s %s\n' "$f" "$(basename "$g")" "$(sha256sum < "$g" | cut -d' ' -f1)"
		done
		"$gen" --dump "$f" > "$tmp/dump" 2>&1 || echo "exit $?" >> "$tmp/dump"
		printf '%s --dump %s\n' "$f" "$(sed "s|$src/||g" "$tmp/dump" | sha256sum | cut -d' ' -f1)"
	else
		printf '%s refused %s\n' "$f" "$(sed "s|$src/||g" "$tmp/msg" | sha256sum | cut -d' ' -f1)"
	fi
done > "$tmp/now"

if [ "$update" = --update ]; then
	cp "$tmp/now" "$manifest"
	echo "golden.sh: $(wc -l < "$manifest") lines written to $manifest"
	exit 0
fi
if [ -n "$update" ]; then
	echo "usage: golden.sh SDDS_GEN SOURCE_ROOT [--update]" >&2
	exit 2
fi
if ! diff -u "$manifest" "$tmp/now" > "$tmp/diff"; then
	echo "sdds-gen's output changed (- recorded, + now); if meant: golden.sh SDDS_GEN . --update"
	cat "$tmp/diff"
	exit 1
fi
echo "golden.sh: $(grep -c . "$manifest") outputs of $(cut -d' ' -f1 "$manifest" | sort -u | wc -l) configs as recorded"
