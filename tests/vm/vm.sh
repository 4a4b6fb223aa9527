#!/bin/bash
# vm.sh STAGE2 PROG - a test program of the build run for real in a QEMU
# guest on a stock Debian kernel, for what this machine's kernel cannot
# show:
#   guest-cgroup2.sh test_cgroup: sdds-sandbox's cgroup v2 path in a guest
#     whose only cgroup hierarchy is cgroup2 (docs/sandbox.md, "The cgroup
#     v2 test"); the host (and CI) mount memory and pids on v1;
#   guest-socket.sh test_socket: the socket backend on Debian 12's own
#     kernel (6.1), where a device without checksum offload (a TAP) makes
#     the kernel refuse UDP GSO with EIO, as Linux 6.11 and later no
#     longer do (docs/DESIGN.md, "Sockets").
#
# A stock Debian kernel (the linux-image package linux-image-amd64 depends
# on) is fetched with apt-get download and unpacked, never installed, into
# $SDDS_VM_CACHE (default /var/tmp/sddsd-vm), kept for later runs. An
# initramfs of busybox-static and the virtio/9p/zram/veth/tun modules boots
# it under TCG (KVM cannot run a stock kernel on the test machines); the
# guest mounts this machine's root read-only over 9p and runs the built
# programs from there: guest-init.sh, then STAGE2 (a guest-*.sh of this
# folder) with PROG as $VM_PROG, with 256 MiB of swap.
#
# The environment is the one meson gives the test ($SDDSD, $SDDS_SANDBOX,
# $SDDS_CGROUP_HOG, ...), passed on to the guest. Exit: 0 every case
# passed, 1 one failed, 77 not root, or no QEMU, busybox, cpio, depmod or
# kernel to be had (scripts/install-deps.sh installs them).
# SDDS_VM_TIMEOUT: seconds per boot (default 240).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
STAGE2=${1:?usage: vm.sh STAGE2 PROG}
VM_PROG=${2:?usage: vm.sh STAGE2 PROG}
[ -f "$HERE/$STAGE2" ] || { echo "vm: no $HERE/$STAGE2"; exit 1; }
CACHE=${SDDS_VM_CACHE:-/var/tmp/sddsd-vm}
TIMEOUT=${SDDS_VM_TIMEOUT:-240}
export PATH=$PATH:/usr/sbin:/sbin

# CI installs everything (scripts/install-deps.sh) and runs as root: there
# a missing piece is a failure, not a skip that would hide one.
skip() {
	if [ "${CI:-}" = true ]; then
		echo "vm: FAIL: $* (CI=true: the test must run)"
		exit 1
	fi
	echo "skip: $*" >&2
	exit 77
}
[ "$(id -u)" = 0 ] || { echo "skip: not root" >&2; exit 77; }
for t in qemu-system-x86_64 cpio depmod apt-get apt-cache dpkg-deb flock timeout; do
	command -v $t > /dev/null || skip "$t missing (scripts/install-deps.sh)"
done
BUSYBOX=/bin/busybox
dpkg-query -W -f='${Status}' busybox-static 2> /dev/null | grep -q 'ok installed' ||
	skip "no static busybox (busybox-static)"
case $VM_PROG in /*) ;; *) VM_PROG=$PWD/$VM_PROG ;; esac

# Root boots what the cache holds with this machine's / exported to it:
# the cache must be root's own, not a directory another user made first.
install -d -m 0700 "$CACHE" || exit 1
if [ -L "$CACHE" ] || [ ! -O "$CACHE" ] || [ -n "$(find "$CACHE" -maxdepth 0 -perm /022)" ]; then
	echo "vm: FAIL: $CACHE is not a directory of root's that only root may write"
	exit 1
fi
T0=${EPOCHREALTIME/./}
ms() { echo $(((${EPOCHREALTIME/./} - T0) / 1000)); }

# ---- the kernel: fetched once, shared by concurrent runs (flock) ----
PKG=$(apt-cache depends linux-image-amd64 2> /dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$PKG" ] || skip "apt-cache knows no linux-image-amd64 (apt-get update?)"
KROOT=$CACHE/$PKG
exec 9> "$CACHE/lock"
flock 9
if [ ! -e "$KROOT/ready" ]; then
	rm -rf "$KROOT" "$CACHE/dl"
	mkdir -p "$CACHE/dl"
	(cd "$CACHE/dl" && apt-get download -q -o APT::Sandbox::User=root "$PKG" > /dev/null) ||
		skip "cannot download $PKG"
	dpkg-deb -x "$CACHE"/dl/"$PKG"_*.deb "$KROOT.tmp" || skip "cannot unpack $PKG"
	# The .deb has no modules.dep (its postinst runs depmod).
	depmod -b "$KROOT.tmp" "$(ls "$KROOT.tmp/lib/modules")" || exit 1
	rm -rf "$CACHE/dl"
	mv "$KROOT.tmp" "$KROOT" && touch "$KROOT/ready"
	# Older kernels (the candidate changed) and runs killed mid-way go.
	for d in "$CACHE"/linux-image-*; do [ "$d" = "$KROOT" ] || rm -rf "$d"; done
	echo "vm: kernel $PKG fetched and unpacked in $(ms) ms"
fi
find "$CACHE" -maxdepth 1 -name 'run.*' -mmin +60 -exec rm -rf {} +
flock -u 9
KVER=$(ls "$KROOT/lib/modules")
MODS=$KROOT/lib/modules/$KVER

# ---- this run's directory: initramfs, stage 2 and the environment ----
RUN=$(mktemp -d "$CACHE/run.XXXXXX")
trap 'rm -rf "$RUN"' EXIT
IRD=$RUN/initramfs
mkdir -p "$IRD/bin" "$IRD/lib/modules"
cp "$BUSYBOX" "$IRD/bin/busybox"
cp "$HERE/guest-init.sh" "$IRD/init"
chmod 755 "$IRD/init"
# Each module after what it needs (modules.dep), decompressed for insmod.
declare -A SEEN=()
ORDER=()
add_module() {
	local rel=$1 dep
	[ -n "${SEEN[$rel]:-}" ] && return
	SEEN[$rel]=1
	for dep in $(awk -v m="$rel:" '$1 == m {for (i = NF; i > 1; i--) print $i}' "$MODS/modules.dep"); do
		add_module "$dep"
	done
	ORDER+=("$rel")
}
for m in virtio_pci 9pnet_virtio 9p zram veth tun; do
	rel=$(awk -F: -v m="$m" '{n = $1; sub(/.*\//, "", n); sub(/\.ko.*/, "", n); gsub(/-/, "_", n)} n == m {print $1; exit}' "$MODS/modules.dep")
	[ -n "$rel" ] || { echo "vm: module $m not in $PKG"; exit 1; }
	add_module "$rel"
done
for rel in "${ORDER[@]}"; do
	name=$(basename "$rel")
	case $name in
	*.ko.xz) xz -dc "$MODS/$rel" > "$IRD/lib/modules/${name%.xz}" ;;
	*.ko.zst) zstd -qdc "$MODS/$rel" > "$IRD/lib/modules/${name%.zst}" ;;
	*) cp "$MODS/$rel" "$IRD/lib/modules/$name" ;;
	esac
	echo "${name%.ko*}.ko"
done > "$IRD/modules.list"
(cd "$IRD" && find . | cpio -o -H newc --owner 0:0 --quiet) | gzip -1 > "$RUN/initramfs.cpio.gz"
NMODS=${#ORDER[@]}
rm -rf "$IRD"
cp "$HERE/$STAGE2" "$RUN/stage2"
{
	quote() { printf "%s" "$1" | sed "s/'/'\\\\''/g"; }
	echo "export VM_PROG='$(quote "$VM_PROG")'"
	env | grep -E '^(SDDS|SDDSD|ASAN|UBSAN|LSAN|MSAN)[A-Z_]*=' | while IFS='=' read -r k v; do
		echo "export $k='$(quote "$v")'"
	done
} > "$RUN/guest.env"
# The guest mounts tmpfs on /tmp and /run, which would hide a build or
# source tree there (a clone in /tmp): each such tree is shared with the
# guest too, read-only, and mounted back at its own path (RUN/binds).
VIRTFS=()
n=0
for p in "$VM_PROG" $(env | grep -E '^(SDDS|SDDSD)[A-Z_]*=/' | cut -d= -f2-); do
	case $p in
	/tmp/?* | /run/?*) top=$(printf '%s' "$p" | cut -d/ -f1-3) ;;
	*) continue ;;
	esac
	[ -d "$top" ] || continue
	[ -f "$RUN/binds" ] && awk -v t="$top" '$2 == t { f = 1 } END { exit !f }' "$RUN/binds" && continue
	VIRTFS+=(-virtfs "local,path=$top,mount_tag=bind$n,security_model=none,readonly=on,multidevs=remap")
	echo "bind$n $top" >> "$RUN/binds"
	n=$((n + 1))
done
echo "vm: initramfs with $NMODS modules ready at $(ms) ms"

# ---- the boots ----
FAILED=0
boot() {
	local mode=$1 extra=$2 log=$RUN/$1.log rc
	echo "vm: boot '$mode' ($KVER, TCG) at $(ms) ms"
	timeout "$TIMEOUT" qemu-system-x86_64 -M q35 -accel tcg -cpu max -m 1024 -smp 1 \
		-nodefaults -no-user-config -display none -no-reboot -serial stdio \
		-kernel "$KROOT/boot/vmlinuz-$KVER" -initrd "$RUN/initramfs.cpio.gz" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 sddsvm=$RUN sddsvm.mode=$mode $extra" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		"${VIRTFS[@]}" < /dev/null 2>&1 | tr -d '\r' | tee "$log"
	rc=${PIPESTATUS[0]}
	echo "vm: boot '$mode' ended (qemu status $rc) at $(ms) ms"
	if ! grep -aq '^VMTEST_DONE' "$log"; then
		echo "vm: FAIL: boot '$mode' did not finish$([ "$rc" = 124 ] && echo " within ${TIMEOUT} s")"
		FAILED=1
	fi
	while read -r _ name status; do
		if [ "$status" = 0 ] || { [ "$status" = 77 ] && [ "$name" = root_refuse_nobody ]; }; then
			echo "vm: ok   $mode/$name ($status)"
		else
			echo "vm: FAIL $mode/$name (status $status)"
			FAILED=1
		fi
	done < <(grep -a '^VMTEST_RESULT ' "$log")
	# Every case the stage planned must have reported (a garbled or missing line fails).
	for name in $(grep -a '^VMTEST_PLAN ' "$log" | cut -d' ' -f2-); do
		grep -aq "^VMTEST_RESULT $name " "$log" || {
			echo "vm: FAIL $mode/$name: no result"
			FAILED=1
		}
	done
	grep -aq '^VMTEST_PLAN ' "$log" || {
		echo "vm: FAIL: boot '$mode' planned no case"
		FAILED=1
	}
	grep -aq '^VMTEST_FATAL' "$log" && FAILED=1
}
boot main ""
SKIPPED=$(grep -a '^VMTEST_SKIP ' "$RUN/main.log" | head -n 1 | cut -d' ' -f2-)
echo "vm: $([ $FAILED = 0 ] && echo passed || echo FAILED) in $(ms) ms"
[ $FAILED = 0 ] && [ -n "$SKIPPED" ] && skip "$SKIPPED"
exit $FAILED
