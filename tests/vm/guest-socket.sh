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
# The refusal the TAP cases expect, by the kernel's version (6.11 took it away).
set -- $(uname -r | tr '.-' '  ')
if [ "$1" -lt 6 ] || { [ "$1" -eq 6 ] && [ "$2" -lt 11 ]; }; then
	export SDDS_TAP_REFUSES_GSO=1
fi
"$VM_PROG"
result socket $?
poweroff_now
