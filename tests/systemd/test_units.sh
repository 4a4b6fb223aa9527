#!/bin/sh
# test_units.sh - the systemd units of sddsd, checked by systemd itself:
#   1. `systemd-analyze verify` on the three units passes with no message,
#      in a root tree laid out as `meson install` lays it out (the units
#      as configured, the binaries at their install paths, the host's
#      targets and slices, /bin/kill for ExecReload=);
#   2. `systemd-analyze security --offline=true sddsd.service` reports an
#      overall exposure of at most 2.0.
# Exits 77 (skip) when systemd-analyze is missing.
#
# Usage: test_units.sh UNIT_DIR SDDSD [SDDS_SANDBOX]
#   UNIT_DIR: where meson configured the units (BUILD/systemd)
set -eu

unit_dir=$1
sddsd=$2
sandbox=${3:-}
max_exposure=2.0

command -v systemd-analyze >/dev/null 2>&1 || { echo "no systemd-analyze: skip"; exit 77; }

root=$(mktemp -d /tmp/sddsd-units.XXXXXX)
trap 'rm -rf "$root"' EXIT INT TERM

# The paths the units name, read from the units themselves.
exec_of() { sed -n "s/^$2=\([^ ]*\).*/\1/p" "$unit_dir/$1" | head -n 1; }
sddsd_at=$(exec_of sddsd.service ExecStart)
sandbox_at=$(exec_of sdds-app@.service ExecStart)
kill_at=$(exec_of sddsd.service ExecReload)

unitdir="$root/usr/lib/systemd/system"
mkdir -p "$unitdir" "$root/usr/bin" "$root/usr/sbin" "$root/etc/sdds/apps"
ln -s usr/bin "$root/bin"
ln -s usr/sbin "$root/sbin"
cp "$unit_dir/sddsd.socket" "$unit_dir/sddsd.service" "$unit_dir/sdds-app@.service" "$unitdir/"
# What the units pull in: the host's targets and slices (as files: links
# would point outside the root).
for f in /lib/systemd/system/*.target /lib/systemd/system/*.slice; do
	[ -e "$f" ] && cp -L "$f" "$unitdir/" 2>/dev/null || true
done
install_bin() { mkdir -p "$root$(dirname "$2")"; cp "$1" "$root$2"; chmod 0755 "$root$2"; }
install_bin "$sddsd" "$sddsd_at"
install_bin "$kill_at" "$kill_at"
if [ -n "$sandbox" ] && [ -x "$sandbox" ]; then
	install_bin "$sandbox" "$sandbox_at"
else
	# sdds-sandbox is not built in this tree: verify checks only that the
	# path is executable, so any executable stands in for it here.
	echo "note: no sdds-sandbox binary given; $sandbox_at is /bin/true for verify"
	install_bin /bin/true "$sandbox_at"
fi

fail=0
out=$(cd "$unitdir" && systemd-analyze verify --root="$root" sddsd.socket sddsd.service \
	sdds-app@test.service 2>&1) || fail=1
if [ -n "$out" ] || [ $fail -ne 0 ]; then
	echo "FAIL: systemd-analyze verify:"
	echo "$out"
	exit 1
fi
echo "ok: systemd-analyze verify (sddsd.socket sddsd.service sdds-app@test.service)"

report=$(systemd-analyze security --offline=true --root="$root" sddsd.service 2>&1) || true
level=$(echo "$report" | sed -n 's/.*Overall exposure level for sddsd.service: \([0-9.]*\).*/\1/p')
if [ -z "$level" ]; then
	echo "FAIL: no exposure level in:"
	echo "$report"
	exit 1
fi
if awk -v l="$level" -v m="$max_exposure" 'BEGIN { exit !(l + 0 > m + 0) }'; then
	echo "FAIL: exposure $level > $max_exposure"
	echo "$report" | grep -v '^✓' || true
	exit 1
fi
echo "ok: exposure level $level <= $max_exposure"
