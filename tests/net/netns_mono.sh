#!/bin/sh
# SPDX-License-Identifier: MIT
# netns_mono.sh SDDSD NET_HELPER - monolithic mode's network side
# (client-lib/mononet.c) on the wire: a monolithic application in network
# namespace A, with sddsd's network layer on a thread of its own, exchanges
# 1,000 samples each way, exact and in order,
#   1. with an isolated client of sddsd in namespace B (mono <-> daemon),
#   2. with a monolithic application in B (mono <-> mono), blocking in A and
#      polling in B.
# Root only (network namespaces); otherwise exit 77.
set -u
SDDSD=$1
HELPER=$2
N=1000
if [ "$(id -u)" != 0 ]; then
	echo "netns_mono: needs root for network namespaces: skipped" >&2
	exit 77
fi
A=smA$$
B=smB$$
DIR=$(mktemp -d /tmp/sddsmono.XXXXXX)
DAEMON=
cleanup() {
	[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	rm -rf "$DIR"
}
trap cleanup EXIT
fail() {
	echo "netns_mono: $*" >&2
	exit 1
}
if ! ip netns add $A 2>/dev/null; then
	echo "netns_mono: ip netns add fails: skipped" >&2
	exit 77
fi
ip netns add $B || fail "ip netns add $B"
ip link add vma$$ type veth peer name vmb$$ &&
	ip link set vma$$ netns $A && ip link set vmb$$ netns $B &&
	ip -n $A link set vma$$ name vna && ip -n $B link set vmb$$ name vnb || fail "veth"
for side in "$A vna fe80::a" "$B vnb fe80::b"; do
	set -- $side
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 &&
		ip -n "$1" link set lo up && ip -n "$1" addr add "$3"/64 dev "$2" nodad &&
		ip -n "$1" link set "$2" up || fail "addresses in $1"
done

cat >"$DIR/topics.xml" <<'XML'
<domain id="1">
  <topic name="temperature" domain="1" id="A">
    <attribute name="device" type="DDS_unsigned_short" key="secondary"/>
    <attribute name="value" type="DDS_short"/>
  </topic>
  <topic name="counter" domain="2" id="B">
    <attribute name="seq" type="DDS_unsigned_long"/>
    <attribute name="tag" type="DDS_string" size="7"/>
  </topic>
</domain>
XML
# node NAME ME IFACE PEER OUT IN POLL: NAME publishes OUT to PEER, takes IN.
node() {
	cat >"$DIR/$1.xml" <<XML
<project name="$1" endian="little" os="linux" protocol="AF_INET6" ip="$2" iface="$3" port="23234">
  <include filename="topics.xml"/>
  <role topic="$5" type="publisher"/>
  <role topic="$6" type="subscriber"/>
  <subscription topic="$5"><subscriber ip="$4"/></subscription>
</project>
XML
	printf 'socket = %s/%s.sock\nnode_config = %s/%s.xml\nlog_level = notice\npoll = %s\n' \
		"$DIR" "$1" "$DIR" "$1" "$7" >"$DIR/$1.conf"
}
node a fe80::a vna fe80::b temperature counter false
node b fe80::b vnb fe80::a counter temperature true

# spawn NS OUTFILE ARGS...: a helper in the background; its stdout in OUTFILE.
spawn() {
	ns=$1
	out=$2
	shift 2
	ip netns exec "$ns" "$HELPER" "$@" >"$out" &
}
# ready FILE: the helper wrote its "ready" line (5 s at most).
ready() {
	for _ in $(seq 500); do
		grep -q ready "$1" 2>/dev/null && return 0
		sleep 0.01
	done
	fail "no ready line in $1"
}
waitpid() {
	wait "$1" || fail "$2 failed (status $?)"
}

# 1. mono A <-> sddsd B and its isolated clients.
ip netns exec $B "$SDDSD" -c "$DIR/b.conf" &
DAEMON=$!
for _ in $(seq 500); do [ -S "$DIR/b.sock" ] && break; sleep 0.01; done
[ -S "$DIR/b.sock" ] || fail "sddsd in B did not start"
spawn $B "$DIR/rb.out" read "$DIR/b.sock" temperature $N 5000
RB=$!
ready "$DIR/rb.out"
spawn $A "$DIR/ma.out" exchange "mono:$DIR/a.conf" temperature counter $N 5000 "$DIR/go1"
MA=$!
ready "$DIR/ma.out"
spawn $B /dev/null write "$DIR/b.sock" counter $N
WB=$!
touch "$DIR/go1"
waitpid $WB "isolated writer in B"
waitpid $MA "monolithic exchange in A (with sddsd in B)"
waitpid $RB "isolated reader in B"
kill $DAEMON
wait $DAEMON
DAEMON=

# 2. mono A <-> mono B (B polls).
spawn $A "$DIR/ma2.out" exchange "mono:$DIR/a.conf" temperature counter $N 5000 "$DIR/go2"
MA=$!
spawn $B "$DIR/mb2.out" exchange "mono:$DIR/b.conf" counter temperature $N 5000 "$DIR/go2"
MB=$!
ready "$DIR/ma2.out"
ready "$DIR/mb2.out"
touch "$DIR/go2"
waitpid $MA "monolithic exchange in A (with a monolithic B)"
waitpid $MB "monolithic exchange in B (polling)"
echo "netns_mono: $N samples each way: mono<->sddsd, mono<->mono" >&2
exit 0
