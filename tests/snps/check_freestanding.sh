#!/bin/sh
# check_freestanding.sh STUB_DIR SRC_DIR CC [CC args...]
#
# Builds every .c of the SNPS library the way the Cortex-M4 firmware will:
# strict C11, -ffreestanding, no libc headers except a <string.h> that
# declares memcpy/memmove/memset/memcmp only. Then checks that the objects
# need no other external symbol, and that no source includes anything else.
set -eu

stub=$1
src=$2
shift 2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

inc=$("$@" -print-file-name=include)
if [ ! -f "$inc/stdint.h" ] || [ ! -f "$inc/stddef.h" ]; then
	echo "compiler has no freestanding include dir ($inc): skipped"
	exit 77
fi

for f in "$src"/*.c; do
	o="$tmp/$(basename "$f" .c).o"
	"$@" -std=c11 -pedantic -Wall -Wextra -Werror -O2 -ffreestanding -fno-builtin \
		-nostdinc -isystem "$inc" -isystem "$stub" -I "$src" -c "$f" -o "$o"
done

# Symbols the objects need but none of them defines.
nm -u "$tmp"/*.o | awk 'NF == 2 { print $2 }' | sort -u > "$tmp/needed"
nm -g --defined-only "$tmp"/*.o | awk 'NF == 3 { print $3 }' | sort -u > "$tmp/defined"
comm -23 "$tmp/needed" "$tmp/defined" > "$tmp/undef"
bad=$(grep -v -x -e memcpy -e memmove -e memset -e memcmp "$tmp/undef" || true)
if [ -n "$bad" ]; then
	echo "SNPS library needs symbols a freestanding target lacks:"
	echo "$bad"
	exit 1
fi

bad=$(grep -h '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' "$src"/*.c "$src"/*.h |
	grep -v -e '<stdint\.h>' -e '<stddef\.h>' -e '<stdbool\.h>' -e '<string\.h>' || true)
if [ -n "$bad" ]; then
	echo "SNPS library includes headers a freestanding target lacks:"
	echo "$bad"
	exit 1
fi

echo "freestanding build OK; external symbols: $(tr '\n' ' ' < "$tmp/undef")"
