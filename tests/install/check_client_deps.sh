#!/bin/sh
# SPDX-License-Identifier: MIT
# check_client_deps.sh - libsddsclient is a client and nothing else.
#
# The library every sandboxed application links may depend on libc,
# pthreads and protobuf-c only (a sanitizer build adds its runtimes), loads
# nothing else transitively (ldd), defines no symbol of the daemon's code
# (broker, config, network layer, SNPS codec, node config) and imports no
# call that only network code makes: it talks to sddsd over the UNIX
# control socket and shared memory, never over IP.
#
# usage: check_client_deps.sh LIBSDDSCLIENT
set -u
lib=$1
fail() {
	echo "check_client_deps: $lib: $*" >&2
	exit 1
}
[ -f "$lib" ] || fail "no such file"
for tool in readelf nm ldd; do
	command -v $tool >/dev/null 2>&1 || {
		echo "skip: $tool not installed" >&2
		exit 77
	}
done

# Direct dependencies (DT_NEEDED).
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "readelf shows no NEEDED entry"
for n in $needed; do
	case $n in
	libc.so.* | libpthread.so.* | libprotobuf-c.so.* | ld-linux*.so.*) ;;
	libasan.so.* | libubsan.so.*) ;; # -Db_sanitize builds
	*) fail "depends on $n (allowed: libc, pthreads, protobuf-c)" ;;
	esac
done

# Everything the loader would bring in, but what a sanitizer runtime brings
# itself (libubsan loads libstdc++).
deps=$(ldd "$lib") || fail "ldd failed"
runtime=
for n in $needed; do
	case $n in
	libasan.so.* | libubsan.so.*)
		path=$(printf '%s\n' "$deps" | awk -v n="$n" '$1 == n { print $3 }')
		[ -n "$path" ] && runtime="$runtime $(ldd "$path" | awk '{ print $1 }')"
		;;
	esac
done
for bad in libuv libxml2 libicu libstdc++ liblzma libz. libseccomp libbpf; do
	if printf '%s\n' $runtime | grep -q "^$bad"; then
		continue
	fi
	if printf '%s\n' "$deps" | grep -q "$bad"; then
		fail "loads $bad: $(printf '%s\n' "$deps" | grep "$bad" | head -n 1)"
	fi
done

# No code of the daemon's side: its symbols keep their prefixes in .symtab
# (present unless the library was stripped; then the dynamic imports below
# still apply).
if nm "$lib" >/dev/null 2>&1; then
	own=$(nm --defined-only "$lib" | awk '{print $3}' |
		grep -E '^(broker_|netif_|net_|sock_|disc_|peer_|gaptrack_|netstats_|netconf_|nodecfg_|config_|log_|mono_|mononet_|snps_|sddsxml_|timerq_)' |
		head -n 5)
	[ -z "$own" ] || fail "contains daemon code: $(echo $own)"
fi

# No import that only network code needs: no IP sockets, no batched
# datagram calls, no interface or address lookups, no libuv, no libxml2.
imports=$(nm -D --undefined-only "$lib" | awk '{print $2}' | sed 's/@.*//')
for sym in $imports; do
	case $sym in
	bind | listen | accept | accept4 | sendto | recvfrom | sendmmsg | recvmmsg | \
		if_nametoindex | if_indextoname | getifaddrs | freeifaddrs | inet_pton | inet_ntop | \
		getaddrinfo | in6addr_any | uv_* | xml*)
		fail "imports $sym, which only network or daemon code uses"
		;;
	esac
done
echo "check_client_deps: $lib: NEEDED $(echo $needed), no daemon code, no network imports"
