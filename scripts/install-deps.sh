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
# and socket tests boot a stock Debian kernel in QEMU (tests/vm/vm.sh)
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

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing:$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
# wireshark-common (pulled in by tshark) asks whether non-root users may
# capture; answer no, as its default does, so the install never prompts.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
