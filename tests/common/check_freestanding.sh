#!/bin/sh
# check_freestanding.sh STUB_DIR LIB_DIR TOOL_PREFIX CC [CC args...]
#
# Builds every .c of a library under lib/ (LIB_DIR/src, headers
# LIB_DIR/include/NAME, NAME the folder's name: snps, timerq) alone, the way
# the Cortex-M4 firmware will: strict C11, -ffreestanding,
# no libc headers except a <string.h> that declares memcpy/memmove/memset/
# memcmp only, nothing of the rest of the tree. Then checks that the
# objects need no other external symbol, that no source includes anything
# else, and prints the size of the build (text, data, bss).
#
# TOOL_PREFIX names the binutils of CC's target: "" for the host's nm and
# size, "arm-none-eabi-" for the MCU's. Exit 77 when CC or the tools are
# missing (scripts/install-deps.sh installs gcc-arm-none-eabi).
set -eu

stub=$1
lib=$2
prefix=$3
shift 3
name=$(basename "$lib")

for t in "$1" "${prefix}nm" "${prefix}size"; do
	if ! command -v "$t" > /dev/null 2>&1; then
		echo "$t missing: skipped"
		exit 77
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

inc=$("$@" -print-file-name=include)
if [ ! -f "$inc/stdint.h" ] || [ ! -f "$inc/stddef.h" ]; then
	echo "compiler has no freestanding include dir ($inc): skipped"
	exit 77
fi

for f in "$lib"/src/*.c; do
	o="$tmp/$(basename "$f" .c).o"
	"$@" -std=c11 -pedantic -Wall -Wextra -Werror -O2 -ffreestanding -fno-builtin \
		-nostdinc -isystem "$inc" -isystem "$stub" -I "$lib/include" -c "$f" -o "$o"
done

# Symbols the objects need but none of them defines.
"${prefix}nm" -u "$tmp"/*.o | awk 'NF == 2 { print $2 }' | sort -u > "$tmp/needed"
"${prefix}nm" -g --defined-only "$tmp"/*.o | awk 'NF == 3 { print $3 }' | sort -u > "$tmp/defined"
comm -23 "$tmp/needed" "$tmp/defined" > "$tmp/undef"
bad=$(grep -v -x -e memcpy -e memmove -e memset -e memcmp "$tmp/undef" || true)
if [ -n "$bad" ]; then
	echo "$name library needs symbols a freestanding target lacks:"
	echo "$bad"
	exit 1
fi

# Only the freestanding headers, and the library's own by "NAME/FILE.h".
bad=$(grep -h '^[[:space:]]*#[[:space:]]*include' "$lib"/src/*.c "$lib"/include/"$name"/*.h |
	grep -v -e '<stdint\.h>' -e '<stddef\.h>' -e '<stdbool\.h>' -e '<string\.h>' \
		-e "\"$name/[a-z_]*\\.h\"" || true)
if [ -n "$bad" ]; then
	echo "$name library includes headers a freestanding target lacks, or from outside it:"
	echo "$bad"
	exit 1
fi

echo "$name: freestanding build OK ($*); external symbols: $(tr '\n' ' ' < "$tmp/undef")"
"${prefix}size" -t "$tmp"/*.o | tail -n 1 |
	awk '{ printf "size: text %d, data %d, bss %d bytes (%d in all)\n", $1, $2, $3, $4 }'
