#!/bin/sh
# demo.sh BUILD_DIR - start sddsd and two separate application processes
# (an sDDS-style temperature publisher and a listener subscriber, generated
# from their sdds.xml by sdds-gen) that exchange samples through it.
# Needs no root: the daemon listens on a socket in a private temp directory.
set -eu
B=${1:-build}
COUNT=${DEMO_COUNT:-10}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sddsd-demo.XXXXXX")
sock="$dir/sddsd.sock"
dpid=""
cleanup() {
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM

echo "== starting sddsd on $sock"
"$B/daemon/sddsd" --socket "$sock" &
dpid=$!
i=0
while [ ! -S "$sock" ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && { echo "sddsd did not come up" >&2; exit 1; }
	kill -0 "$dpid" 2>/dev/null || { echo "sddsd exited" >&2; exit 1; }
	sleep 0.05
done

export SDDS_SOCKET="$sock"
echo "== subscriber (process 1) and publisher (process 2), $COUNT samples"
"$B/examples/temperature/sub/temperature_sub_listener" -n "$COUNT" &
spid=$!
sleep 0.3
"$B/examples/temperature/pub/temperature_pub" -n "$COUNT" -i 200 &
ppid=$!
sleep 1
echo "== daemon view while they run (sddsctl clients, topics)"
"$B/tools/sddsctl/sddsctl" --socket "$sock" clients || true
"$B/tools/sddsctl/sddsctl" --socket "$sock" topics || true
wait "$ppid"
wait "$spid"
echo "== demo done"
