#!/bin/sh
# test_example_pair.sh SDDSD PUB SUB - the example applications end to end:
# sddsd on a private socket, the listener subscriber, then the publisher,
# as three processes; the subscriber must print every sample, in order, in
# sDDS's format, with the publisher's device id.
set -eu
SDDSD=$1
PUB=$2
SUB=$3
N=${EXAMPLE_PAIR_COUNT:-20}

dir=$(mktemp -d "${TMPDIR:-/tmp}/sdds-example-pair.XXXXXX")
dpid=""
spid=""
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM
fail() {
	echo "FAIL: $*" >&2
	for f in daemon.log sub.out sub.err pub.out pub.err; do
		[ -s "$dir/$f" ] && { echo "--- $f" >&2; cat "$dir/$f" >&2; }
	done
	exit 1
}

sock="$dir/sddsd.sock"
"$SDDSD" --socket "$sock" >"$dir/daemon.log" 2>&1 &
dpid=$!
i=0
while [ ! -S "$sock" ]; do
	i=$((i + 1))
	[ $i -gt 200 ] && fail "sddsd did not create $sock"
	kill -0 "$dpid" 2>/dev/null || fail "sddsd exited"
	sleep 0.05
done
export SDDS_SOCKET="$sock"

# The subscriber's reader must exist before the first sample is written.
"$SUB" -n "$N" -t 30 >"$dir/sub.out" 2>"$dir/sub.err" &
spid=$!
i=0
until grep -q "^Waiting for $N samples" "$dir/sub.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 200 ] && fail "the subscriber did not get ready"
	kill -0 "$spid" 2>/dev/null || fail "the subscriber exited early"
	sleep 0.05
done

"$PUB" -n "$N" -i 20 >"$dir/pub.out" 2>"$dir/pub.err" || fail "the publisher failed"
[ "$(grep -c '^Send a temperature sample$' "$dir/pub.out")" -eq "$N" ] || fail "the publisher did not send $N samples"
device=$(sed -n "s/^Publishing topic 'temperature' as device \([0-9A-F]\{4\}\)$/\1/p" "$dir/pub.out")
[ -n "$device" ] || fail "the publisher did not name its device"

st=0
wait "$spid" || st=$?
spid=""
[ "$st" -eq 0 ] || fail "the subscriber exited with $st"

# The exact sDDS output: one block per sample, values 21, 22, ... in order.
expect="$dir/expect.out"
echo "Waiting for $N samples of topic 'temperature'" >"$expect"
v=21
while [ $v -lt $((21 + N)) ]; do
	printf "Received a sample from topic 'temperature': {\n   device => %s\n   value => %d\n}\n" "$device" $v >>"$expect"
	v=$((v + 1))
done
cmp -s "$expect" "$dir/sub.out" || {
	diff "$expect" "$dir/sub.out" >&2 || true
	fail "the subscriber's output differs"
}
echo "ok: $N samples from device $device"
