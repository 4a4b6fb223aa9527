#!/bin/sh
# SPDX-License-Identifier: MIT
# check_man_options.sh - every option a program's getopt table accepts is
# in the OPTIONS section of its man page, and that section names no long
# option the table lacks; likewise every key of sddsd's config_keys table
# (daemon/core/config.c) in the KEYS section of sddsd.conf.5.
#
# usage: check_man_options.sh SOURCE_DIR [MAN_DIR]
#
# MAN_DIR defaults to SOURCE_DIR/docs/man. Long options are the names of
# the `{"name", ...}` entries of each `struct option` table of the source
# file (up to its `{NULL` or `{0` terminator); short options are the
# letters of the option string of its getopt_long call. The page is read
# as roff with `\-` taken as `-` and font escapes dropped; an option is
# present when `--name` (or `-x`) stands as a word of the OPTIONS section,
# from `.SH OPTIONS` to the next `.SH`. The reverse check reads the tags
# of that section (the line after each `.TP`): a long option there that
# the table lacks is an invented one. Config keys are the KEY(name, ...)
# and {"name", CT_...} entries of config_keys; the page's are the first
# words of the KEYS section's tags (`key = type`).
set -eu

src=$(cd "$1" && pwd)
man=${2:-$src/docs/man}
[ -d "$man" ] || {
	echo "check_man_options: no directory $man" >&2
	exit 1
}

failed=0
fail() {
	echo "check_man_options: $*" >&2
	failed=1
}

# The long option names of every struct option table of a C file.
long_opts() {
	awk '
		/struct option/ && /\[\]/ { inside = 1; next }
		inside && /\{ *(NULL|0) *,/ { inside = 0; next }
		inside {
			line = $0
			while (match(line, /\{"[^"]+"/)) {
				print substr(line, RSTART + 2, RLENGTH - 3)
				line = substr(line, RSTART + RLENGTH)
			}
		}
	' "$1"
}

# The letters of the option string of the getopt_long call (':' and a
# leading '+' or '-' dropped).
short_opts() {
	sed -n 's/.*getopt_long([^"]*"\([^"]*\)".*/\1/p' "$1" | head -n 1 |
		sed -e 's/^[+-]//' -e 's/://g' | fold -w 1
}

# The OPTIONS section of a page as plain words: `\-` is `-`, font and
# size escapes and `\(..` glyphs dropped.
options_section() {
	awk '
		/^\.SH/ { inside = ($0 ~ /^\.SH +"?OPTIONS"?$/); next }
		inside { print }
	' "$1" | sed -e 's/\\-/-/g' -e 's/\\f(..//g' -e 's/\\f[A-Z]//g' -e 's/\\(..//g' -e 's/\\&//g'
}

# The long options in the tags of the OPTIONS section.
tag_opts() {
	options_section "$1" | awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }' |
		grep -o -- '--[A-Za-z0-9][A-Za-z0-9-]*' | sed 's/^--//' | sort -u
}

check() {
	prog=$1 file=$src/$2 page=$man/$3
	[ -f "$file" ] || {
		fail "$prog: no source $file"
		return
	}
	[ -f "$page" ] || {
		fail "$prog: no page $page"
		return
	}
	longs=$(long_opts "$file")
	shorts=$(short_opts "$file")
	[ -n "$longs" ] || {
		fail "$prog: no struct option table found in $2"
		return
	}
	[ -n "$(options_section "$page")" ] || {
		fail "$prog: $3 has no OPTIONS section"
		return
	}
	n=0
	for o in $longs; do
		options_section "$page" | grep -q -E -- "(^|[^A-Za-z0-9-])--$o([^A-Za-z0-9-]|\$)" ||
			fail "$prog: --$o (in $2) is not in the OPTIONS section of $3"
		n=$((n + 1))
	done
	for o in $shorts; do
		options_section "$page" | grep -q -E -- "(^|[^A-Za-z0-9-])-$o([^A-Za-z0-9-]|\$)" ||
			fail "$prog: -$o (in $2) is not in the OPTIONS section of $3"
	done
	for o in $(tag_opts "$page"); do
		echo "$longs" | grep -q -x -- "$o" ||
			fail "$prog: $3 documents --$o, which $2 does not accept"
	done
	echo "check_man_options: $prog: $n long options and $(echo "$shorts" | grep -c .) short ones in $3"
}

# The keys of config_keys in daemon/core/config.c.
config_keys() {
	awk '
		/config_keys\[\] *=/ { inside = 1; next }
		inside && /^};/ { inside = 0 }
		inside { print }
	' "$1" | sed -n -e 's/^ *KEY(\([a-z0-9_]*\),.*/\1/p' -e 's/^ *{"\([a-z0-9_]*\)", *CT_.*/\1/p'
}

# The keys the tags of a page's KEYS section name.
page_keys() {
	awk '
		/^\.SH/ { inside = ($0 ~ /^\.SH +"?KEYS"?$/); next }
		inside && tag { print; tag = 0 }
		inside && /^\.TP/ { tag = 1 }
	' "$1" | sed -e 's/\\f[A-Z]//g' -e 's/\\-/-/g' | sed -n 's/^\([a-z0-9_]*\) *=.*/\1/p'
}

check_keys() {
	file=$src/daemon/core/config.c page=$man/sddsd.conf.5
	[ -f "$page" ] || {
		fail "no page $page"
		return
	}
	keys=$(config_keys "$file")
	documented=$(page_keys "$page")
	[ -n "$keys" ] || {
		fail "no config_keys table found in daemon/core/config.c"
		return
	}
	for k in $keys; do
		echo "$documented" | grep -q -x -- "$k" ||
			fail "sddsd.conf: key $k (in daemon/core/config.c) is not in the KEYS section of sddsd.conf.5"
	done
	for k in $documented; do
		echo "$keys" | grep -q -x -- "$k" ||
			fail "sddsd.conf: sddsd.conf.5 documents key $k, which daemon/core/config.c does not accept"
	done
	echo "check_man_options: sddsd.conf: $(echo "$keys" | grep -c .) keys in sddsd.conf.5"
}

check sddsd daemon/main.c sddsd.8
check sddsctl tools/sddsctl/sddsctl.c sddsctl.1
check sdds-gen tools/sdds-gen/main.c sdds-gen.1
check sdds-sandbox tools/sdds-sandbox/main.c sdds-sandbox.1
check_keys
exit $failed
