#!/bin/sh
# SPDX-License-Identifier: MIT
# test_install.sh - `meson install --destdir` lays out what the README and
# issue promise, and an application builds against the installed copy.
#
# usage: test_install.sh BUILD_DIR SOURCE_DIR
#
# Checked in a temporary DESTDIR: one versioned libsddsclient.so.X.Y.Z with
# the .so.X and .so links and SONAME libsddsclient.so.X; its exported
# symbols are exactly the version script's patterns (hidden visibility: no
# broker_, ring_, libuv or libxml2 symbol leaks), each in the script's
# version node; it is a client and nothing else (check_client_deps.sh:
# libc, pthreads, protobuf-c); libsddsmono is installed beside it with
# exactly the same exports; the public headers and libsddsclient.pc (its
# Version is the library's); a program built with `pkg-config --cflags
# --libs libsddsclient` against the DESTDIR links and runs with the
# installed library, and the same source built against libsddsmono runs
# the broker in its process; sddsd, sddsctl, sdds-gen and sdds-sandbox are
# installed and answer --help; the systemd units are there; the man pages
# of the programs (sections 1 and 8) and of sddsd.conf and the policy file
# (section 5) are under share/man/manN and render without a warning, with
# `groff -man -ww -z` (every groff warning) and `man --warnings -l` at
# MANWIDTH=80 (what a reader's man says). That each page names every
# option of its program is check_man_options.sh's test.
set -eu

build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
dest=$(mktemp -d /tmp/sdds-install-test.XXXXXX)
trap 'rm -rf "$dest"' EXIT INT TERM

fail() {
	echo "test_install: $*" >&2
	exit 1
}

for tool in objdump nm pkg-config cc groff man; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "test_install: $tool not found: skipped" >&2
		exit 77
	}
done

meson install -C "$build" --no-rebuild --destdir "$dest" >"$dest/install.log" 2>&1 || {
	cat "$dest/install.log" >&2
	fail "meson install failed"
}

# The library: one real file, two links, the SONAME.
real=$(find "$dest" -name 'libsddsclient.so.*.*.*' -type f)
[ "$(echo "$real" | grep -c .)" -eq 1 ] || fail "expected one libsddsclient.so.X.Y.Z, found: $real"
libdir=$(dirname "$real")
version=${real##*/libsddsclient.so.}
major=${version%%.*}
[ -L "$libdir/libsddsclient.so.$major" ] || fail "no libsddsclient.so.$major link"
[ -L "$libdir/libsddsclient.so" ] || fail "no libsddsclient.so link"
[ "$(readlink -f "$libdir/libsddsclient.so")" = "$(readlink -f "$real")" ] || fail "libsddsclient.so does not lead to $real"
soname=$(objdump -p "$real" | sed -n 's/^ *SONAME *//p')
[ "$soname" = "libsddsclient.so.$major" ] || fail "SONAME is '$soname', not libsddsclient.so.$major"

# Exported symbols: every one matches a global pattern of the version script, in its node.
map="$src/client-lib/libsddsclient.map"
node=$(sed -n 's/^\([A-Za-z0-9_]*\) *{.*/\1/p' "$map" | head -n 1)
patterns=$(sed -n '/^global:/,/^local:/p' "$map" | sed -e '1d' -e '$d' -e 's/[[:space:];]//g' | grep -v '^$')
[ -n "$node" ] && [ -n "$patterns" ] || fail "cannot read $map"
n=0
for entry in $(nm -D --defined-only "$real" | awk '{print $3}'); do
	name=${entry%%@*}
	[ "$name" = "$node" ] && continue
	case $entry in
	*"@@$node") ;;
	*) fail "symbol $entry is not in version node $node" ;;
	esac
	ok=no
	for p in $patterns; do
		# shellcheck disable=SC2254
		case $name in
		$p) ok=yes ;;
		esac
	done
	[ $ok = yes ] || fail "symbol $name is exported but not in $map"
	n=$((n + 1))
done
[ $n -ge 20 ] || fail "only $n symbols exported"
for must in sdds_client_new sdds_writer_write sdds_reader_take sdds_strerror DDS_DataReader_set_listener; do
	nm -D --defined-only "$real" | grep -q " $must@@" || fail "$must is not exported"
done

# The installed library is a client and nothing else (its NEEDED entries,
# what ldd loads, no daemon code, no network imports).
sh "$src/tests/install/check_client_deps.sh" "$real" || fail "libsddsclient is more than a client"

# libsddsmono: the same API with the broker in the process, installed the same way.
mono=$(find "$dest" -name 'libsddsmono.so.*.*.*' -type f)
[ "$(echo "$mono" | grep -c .)" -eq 1 ] || fail "expected one libsddsmono.so.X.Y.Z, found: $mono"
[ -L "$libdir/libsddsmono.so" ] || fail "no libsddsmono.so link"
nm -D --defined-only "$real" | awk '{print $3}' | sort >"$dest/client.syms"
nm -D --defined-only "$mono" | awk '{print $3}' | sort >"$dest/mono.syms"
cmp -s "$dest/client.syms" "$dest/mono.syms" || fail "libsddsmono does not export exactly libsddsclient's symbols"

# Headers and pkg-config.
inc=$(find "$dest" -path '*/include/sdds' -type d)
[ -f "$inc/sdds.h" ] && [ -f "$inc/dcps.h" ] || fail "headers missing under $inc"
pc=$(find "$dest" -name libsddsclient.pc)
[ -n "$pc" ] || fail "no libsddsclient.pc"
pcver=$(sed -n 's/^Version: *//p' "$pc")
[ "$pcver" = "$version" ] || fail "libsddsclient.pc says $pcver, the library is $version"

# An application against the installed copy only (no -I or -L into the
# tree). It asks for no daemon in particular: with libsddsclient it cannot
# connect (none listens there), with libsddsmono the same source runs the
# broker in the process and succeeds.
cat >"$dest/app.c" <<'APP'
#include <errno.h>
#include <stdio.h>
#include <sdds/sdds.h>

int main(void)
{
	sdds_client_options o;
	sdds_client *c = NULL;
	int rc;

	sdds_client_options_init(&o);
	o.socket_path = "/nonexistent/sddsd.sock";
	o.reconnect = 0;
	rc = sdds_client_new(&o, &c);
	printf("%s\n", rc == 0 ? "connected" : sdds_strerror(rc));
	sdds_client_free(c);
	return 0;
}
APP
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --cflags --libs libsddsclient) ||
	fail "pkg-config refused libsddsclient.pc"
# A sanitizer build's library needs its runtime first: build the application the same way.
san=
objdump -p "$real" | grep -q 'NEEDED *libasan' && san=-fsanitize=address,undefined
# shellcheck disable=SC2086
cc -Wall -Werror $san -o "$dest/app" "$dest/app.c" $flags || fail "an application does not build with: $flags"
out=$(LD_LIBRARY_PATH=$libdir "$dest/app") || fail "the application does not run"
[ -n "$out" ] && [ "$out" != connected ] || fail "with libsddsclient and no daemon, the application says '$out'"
LD_LIBRARY_PATH=$libdir ldd "$dest/app" | grep -q "libsddsclient.so.$major => $libdir/" ||
	fail "the application does not load the installed library"

# The same source against libsddsmono: the broker in the process.
mpc=$(find "$dest" -name libsddsmono.pc)
[ -n "$mpc" ] || fail "no libsddsmono.pc"
mflags=$(PKG_CONFIG_PATH=$(dirname "$mpc") PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --cflags --libs libsddsmono) ||
	fail "pkg-config refused libsddsmono.pc"
# shellcheck disable=SC2086
cc -Wall -Werror $san -o "$dest/app-mono" "$dest/app.c" $mflags || fail "the application does not build with: $mflags"
out=$(LD_LIBRARY_PATH=$libdir "$dest/app-mono") || fail "the application does not run with libsddsmono"
[ "$out" = connected ] || fail "with libsddsmono the application says '$out', not connected"

# Programs and units.
for prog in sbin/sddsd bin/sddsctl bin/sdds-gen bin/sdds-sandbox; do
	p=$(find "$dest" -path "*/$prog" -type f)
	[ -x "$p" ] || fail "$prog not installed"
	LD_LIBRARY_PATH=$libdir "$p" --help >/dev/null 2>&1 || fail "$prog --help failed"
done
for unit in sddsd.service sddsd.socket sdds-app@.service; do
	[ -n "$(find "$dest" -name "$unit")" ] || fail "$unit not installed"
done

# Man pages: each in its section, each renders without a warning.
npages=0
for page in man8/sddsd.8 man1/sddsctl.1 man1/sdds-gen.1 man1/sdds-sandbox.1 man5/sddsd.conf.5 man5/sdds-policy.5; do
	f=$(find "$dest" -path "*/share/man/$page" -type f)
	[ -n "$f" ] || fail "$page not installed under share/man"
	warn=$(groff -man -ww -z "$f" 2>&1) || fail "groff failed on $page: $warn"
	[ -z "$warn" ] || fail "groff warns on $page: $warn"
	warn=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null) || fail "man failed on $page: $warn"
	[ -z "$warn" ] || fail "man warns on $page: $warn"
	npages=$((npages + 1))
done
echo "test_install: $real ($soname, $n symbols), headers, .pc $pcver, programs, units and $npages man pages"
