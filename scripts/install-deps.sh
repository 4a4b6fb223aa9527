#!/bin/sh
# install-deps.sh - install the Debian 12 packages sddsd builds and tests with.
# Idempotent: installs only what is missing; needs root (or sudo) only then.
# Uses the package mirror the machine is already configured with.
set -eu

# nftables: packet loss in a namespace (tests/net netns-loss; no tc netem in the test kernel)
# systemd: systemd-analyze (tests/systemd) and systemd.pc (the unit directory);
# debootstrap, systemd-container: the units booted under a real systemd (test_boot.sh)
# clang-format: `make format-check`, part of `make test`
# libbpf-dev, bpftool, systemtap-sdt-dev: USDT probes and sdds-trace (BPF CO-RE)
# gnuplot-nox, valgrind, cyclonedds-tools, iceoryx, libiceoryx-binding-c-dev:
# sdds-bench report (plots, instructions per sample, ddsperf and iceoryx baselines);
# libpcap-dev: the own-stack backends write pcap = FILE captures (daemon/net/stackbe.c)
# libjson-c-dev: the tools write their JSON with it (sddsctl --json, sdds-bench,
# sdds-trace) and sdds-bench report reads the JSON of the benchmarks it runs
# qemu-system-x86, busybox-static, cpio, kmod (depmod), xz-utils: the cgroup v2
# and socket tests boot a stock Debian kernel in QEMU (tests/vm/vm.sh); the
# igb tests need QEMU's igb model (the 82576), QEMU 8.0 and later: below
# gcc-arm-none-eabi: lib/snps is built alone for the STM32F4's Cortex-M4
# (tests/snps, snps_cortex_m4)
# groff-base, man-db: the man pages render without warnings (tests/install)
# tshark: the SNPS dissector is run over the captures (tests/wireshark)
PKGS="gcc clang clang-format make meson ninja-build pkg-config python3
libuv1-dev libprotobuf-c-dev protobuf-c-compiler libxml2-dev libcmocka-dev libpcap-dev
libseccomp-dev iproute2 iputils-ping procps nftables
systemd debootstrap systemd-container
libbpf-dev bpftool systemtap-sdt-dev
gnuplot-nox valgrind cyclonedds-tools iceoryx libiceoryx-binding-c-dev libjson-c-dev
qemu-system-x86 busybox-static cpio kmod xz-utils
gcc-arm-none-eabi
groff-base man-db
tshark"

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "install-deps: installing:$missing" >&2
	$SUDO apt-get update -qq
	# wireshark-common (pulled in by tshark) asks whether non-root users may
	# capture; answer no, as its default does, so the install never prompts.
	echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

# QEMU's igb model (tests/vm, the uio-igb driver's VM tests) came with QEMU
# 8.0; Debian 12 ships 7.2, bookworm-backports a later one. The backports
# suite is added from the mirror this machine already uses for bookworm.
qemu_has_igb() {
	qemu-system-x86_64 -device help 2>/dev/null | grep -q '"igb"'
}
qemu_has_igb && exit 0
# shellcheck source=/dev/null
. /etc/os-release
if [ "${VERSION_CODENAME:-}" != bookworm ]; then
	echo "install-deps: QEMU has no igb model and this is not Debian 12: install QEMU 8.0 or later" >&2
	exit 0
fi
if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
	uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	[ -n "$uri" ] || uri=$(awk '$1 == "deb" && $3 ~ /^bookworm/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
	if [ -z "$uri" ]; then
		echo "install-deps: no bookworm mirror configured, cannot add bookworm-backports for QEMU's igb" >&2
		exit 1
	fi
	echo "install-deps: adding bookworm-backports from $uri (QEMU with the igb model)" >&2
	echo "deb $uri bookworm-backports main" | $SUDO tee /etc/apt/sources.list.d/bookworm-backports.list > /dev/null
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports qemu-system-x86
qemu_has_igb || { echo "install-deps: qemu-system-x86 from bookworm-backports has no igb model" >&2; exit 1; }
