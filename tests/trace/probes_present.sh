#!/bin/sh
# SPDX-License-Identifier: MIT
# Every USDT probe of the send and the receive path is in the ELF notes
# (.note.stapsdt, provider sdds) of the binary it belongs to.
# usage: probes_present.sh SDDSD LIBSDDSCLIENT LIBSDDSMONO
set -u
sddsd=$1
lib=$2
mono=$3
if ! command -v readelf >/dev/null 2>&1; then
	echo "skip: readelf (binutils) not installed" >&2
	exit 77
fi
fail=0
# name: binaries that must carry it
check() {
	bin=$1
	shift
	notes=$(readelf -n "$bin" 2>/dev/null | awk '/Provider: sdds/ { getline; print $2 }' | sort -u)
	for p in "$@"; do
		if ! printf '%s\n' "$notes" | grep -qx "$p"; then
			echo "FAIL: probe sdds:$p missing in $bin" >&2
			fail=1
		fi
	done
	echo "$bin: $(printf '%s\n' "$notes" | grep -c .) sdds probes"
}
check "$sddsd" daemon_dequeue routed client_enqueued encoded backend_handed sent received decoded
# The client library: its own probes only (no broker, no network layer in it).
check "$lib" write_enter req_enqueued client_woken callback_enter take_return
# The monolithic library: the client's probes, the broker's and the network layer's.
check "$mono" write_enter routed client_enqueued client_woken callback_enter take_return \
	encoded backend_handed sent received decoded
exit $fail
