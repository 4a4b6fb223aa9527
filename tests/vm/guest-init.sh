#!/bin/busybox sh
# guest-init.sh - /init of the test guests' initramfs (busybox-static;
# built by vm.sh). Loads the virtio, 9p, zram, veth and tun modules listed in
# /modules.list (dependencies first), turns on 256 MiB of zram swap, mounts
# the host's root filesystem (9p, read-only, tag hostroot) with tmpfs on
# /tmp and /run and cgroup2 alone on /sys/fs/cgroup, and switches to it:
# the second stage is RUN/stage2 of the host (kernel argument sddsvm=RUN).
/bin/busybox mkdir -p /proc /sys /dev /newroot
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
/bin/busybox --install -s /bin
export PATH=/bin

die() {
	echo "VMTEST_FATAL $*"
	echo o > /proc/sysrq-trigger
	sleep 10
}

for m in $(cat /modules.list); do
	insmod "/lib/modules/$m" || die "insmod $m"
done
RUN= MODE=
for a in $(cat /proc/cmdline); do
	case $a in
	sddsvm=*) RUN=${a#sddsvm=} ;;
	sddsvm.mode=*) MODE=${a#sddsvm.mode=} ;;
	esac
done
[ -n "$RUN" ] || die "no sddsvm= on the kernel command line"

# Swap, so that memory.swap.max (or its absence) matters.
echo 256M > /sys/block/zram0/disksize || die "zram"
mkswap /dev/zram0 > /dev/null && swapon /dev/zram0 || die "swapon"

mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /newroot ||
	die "mount hostroot"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /newroot/tmp || die "tmpfs /tmp"
mount -t tmpfs -o mode=755,nosuid,nodev tmpfs /newroot/run || die "tmpfs /run"
# Trees under the host's /tmp or /run that the test needs (vm.sh: RUN/binds).
if [ -f "/newroot$RUN/binds" ]; then
	while read -r tag dir; do
		mkdir -p "/newroot$dir" &&
			mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose "$tag" "/newroot$dir" ||
			die "mount $dir"
	done < "/newroot$RUN/binds"
fi
mount -t cgroup2 cgroup2 /sys/fs/cgroup || die "mount cgroup2"
mount --move /dev /newroot/dev || die "move /dev"
mount --move /sys /newroot/sys || die "move /sys"
mount --move /proc /newroot/proc || die "move /proc"
exec switch_root /newroot /bin/sh "$RUN/stage2" "$MODE"
