#!/bin/sh
# guest-cgroup2.sh MODE - the second stage of the cgroup2 test guest
# (vm.sh), PID 1 on the host's read-only root, run from RUN/stage2 next to
# RUN/guest.env (the test's environment: $SDDSD, $SDDS_SANDBOX, $VM_PROG,
# the built test_cgroup, ...). Prints "VMTEST_RESULT NAME STATUS" per case and
# "VMTEST_DONE" at the end, then powers the guest off.
#   main  test_cgroup's cases from the root cgroup (whose subtree_control
#         starts empty: sdds-sandbox enables memory and pids itself and
#         the last one out disables them), then from a shared non-root
#         cgroup like a login session's (root's controllers enabled, as
#         systemd does), where each sandbox gets a delegated cgroup
RUN=$(dirname "$0")
MODE=$1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp
. "$RUN/guest.env"
CG=/sys/fs/cgroup

result() { echo "VMTEST_RESULT $1 $2"; }
case_run() {
	name=$1
	shift
	echo "VMTEST_BEGIN $name"
	"$@"
	result "$name" $?
}
poweroff_now() {
	echo VMTEST_DONE
	sync
	echo o > /proc/sysrq-trigger
	sleep 30
}

ROOT_CASES="shm threads fork refuse refuse_nobody pair stale swap_weak lock own_leaf enabled_xattr"
SESSION_CASES="shm threads fork refuse pair stale swap_weak own_leaf enabled_xattr"
echo "VMTEST kernel $(uname -r), $(nproc) cpu, swap: $(tail -n +2 /proc/swaps | wc -l) area(s)"
echo "VMTEST_PLAN controllers $(for c in $ROOT_CASES; do printf 'root_%s ' $c; done)root_clean" \
	"session_enter $(for c in $SESSION_CASES; do printf 'session_%s ' $c; done)session_clean"
# cgroup2 alone: no v1 hierarchy, memory and pids available.
if grep -q ' cgroup ' /proc/mounts || [ "$(grep -c ' cgroup2 ' /proc/mounts)" != 1 ]; then
	grep cgroup /proc/mounts
	result mounts 1
	poweroff_now
fi
grep -qw memory $CG/cgroup.controllers && grep -qw pids $CG/cgroup.controllers
result controllers $?

# No leaf, no enabled controller left behind in the root cgroup.
root_clean() {
	left=$(find $CG -mindepth 1 -maxdepth 1 -type d | wc -l)
	sub=$(cat $CG/cgroup.subtree_control)
	echo "VMTEST root: $left child cgroup(s), subtree_control '$sub'"
	[ "$left" = 0 ] && [ -z "$sub" ]
}

# Overcommit as on the host: 3 GiB of MAP_SHARED in a 1 GiB guest is the
# cgroup's to stop, not mmap's.
echo 1 > /proc/sys/vm/overcommit_memory

case $MODE in
main)
	for c in $ROOT_CASES; do
		case_run "root_$c" "$VM_PROG" $c
	done
	root_clean
	result root_clean $?
	# A shared session scope: the test, its sddsd and this shell.
	echo "+memory +pids" > $CG/cgroup.subtree_control
	mkdir $CG/session.scope && echo $$ > $CG/session.scope/cgroup.procs
	result session_enter $?
	for c in $SESSION_CASES; do
		case_run "session_$c" "$VM_PROG" $c
	done
	echo $$ > $CG/cgroup.procs && rmdir $CG/session.scope
	result session_clean $?
	;;
*)
	result mode 1
	;;
esac
poweroff_now
