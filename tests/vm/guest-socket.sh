#!/bin/sh
# guest-socket.sh MODE - the second stage of the socket test guest (vm.sh),
# PID 1 on the host's read-only root, run from RUN/stage2 next to
# RUN/guest.env ($VM_PROG: the built test_socket). The guest's kernel is
# Debian 12's own; before Linux 6.11 the kernel refuses UDP GSO on a
# device without checksum offload (EIO, udp_v6_send_skb), and a TAP
# without TUNSETOFFLOAD is such a device: test_socket's TAP cases are told
# to expect the refusal (SDDS_TAP_REFUSES_GSO=1) and check that the
# backend falls back and loses nothing. Prints "VMTEST_RESULT NAME STATUS"
# and "VMTEST_DONE", then powers the guest off.
RUN=$(dirname "$0")
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp
. "$RUN/guest.env"

result() { echo "VMTEST_RESULT $1 $2"; }
poweroff_now() {
	echo VMTEST_DONE
	sync
	echo o > /proc/sysrq-trigger
	sleep 30
}

echo "VMTEST kernel $(uname -r)"
mkdir -p /run/netns
ip link set lo up
echo "VMTEST_PLAN socket"
# The refusal the TAP cases are here to see; Linux 6.11 took it away, and
# a guest kernel without it would pass without testing the fallback.
set -- $(uname -r | tr '.-' '  ')
if [ "$1" -gt 6 ] || { [ "$1" -eq 6 ] && [ "$2" -ge 11 ]; }; then
	echo "VMTEST_SKIP the guest kernel $(uname -r) no longer refuses UDP GSO on a TAP"
	result socket 0
	poweroff_now
fi
export SDDS_TAP_REFUSES_GSO=1
"$VM_PROG"
result socket $?
poweroff_now
