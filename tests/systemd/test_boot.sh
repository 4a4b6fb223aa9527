#!/bin/sh
# test_boot.sh - sddsd's units under a real systemd: PID 1 of a
# systemd-nspawn container booted from a Debian 12 tree (debootstrap), with
# sddsd, sddsctl and the configured units installed at their install paths.
# A oneshot unit inside runs the checks (e2e.sh below) and powers off:
# socket activation by a first client, Type=notify READY and STATUS=, the
# daemon's sandbox as applied (dynamic user, no capabilities, seccomp, no
# new privileges), the policy loaded, `systemctl reload` with a good and a
# malformed file (FILE:LINE in the journal, the last good policy kept),
# restarts behind the held socket, the watchdog restarting a stalled daemon
# (SIGSTOP), a clean stop; an unprivileged client reaches the socket; a
# client in a template instance gets its unit= identity. With
# sdds-sandbox, an example publisher and libsddsclient given: a vendor
# application as sdds-app@temp.service, sandboxed, attested as "temp",
# allowed and then denied by the policy.
#
# The tree is built once (a few minutes, from the package mirror apt is
# configured with) and kept in $SDDSD_TEST_ROOTFS (default
# /var/tmp/sddsd-rootfs). Exits 77 (skip) without root, systemd-nspawn or
# debootstrap, or when the tree cannot be built (no mirror).
#
# Usage: test_boot.sh UNIT_DIR SDDSD SDDSCTL [SDDS_SANDBOX TEMPERATURE_PUB LIBSDDSCLIENT]
set -eu

unit_dir=$1
sddsd=$2
sddsctl=$3
sandbox=${4:-}
app=${5:-}
libclient=${6:-}
root=${SDDSD_TEST_ROOTFS:-/var/tmp/sddsd-rootfs}

[ "$(id -u)" -eq 0 ] || { echo "not root: skip"; exit 77; }
for t in systemd-nspawn debootstrap; do
	command -v $t >/dev/null 2>&1 || { echo "no $t: skip"; exit 77; }
done

# The mirror apt uses here (deb822 sources first, then the one-line format).
mirror() {
	sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1
	sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\).*/\2/p' /etc/apt/sources.list 2>/dev/null | head -n 1
}

# What sddsd and the tools link (libpcap: the tap backend's capture); a tree
# built with another list is built again.
pkgs=systemd,systemd-sysv,dbus,libuv1,libprotobuf-c1,libxml2,libjson-c5,libpcap0.8,procps
if [ "$(cat "$root/.sddsd-rootfs-ok" 2>/dev/null)" != "$pkgs" ]; then
	m=$(mirror | head -n 1)
	[ -n "$m" ] || { echo "no apt mirror configured: skip"; exit 77; }
	echo "building $root with debootstrap (once)"
	rm -rf "$root.tmp"
	if ! debootstrap --variant=minbase \
		--include="$pkgs" \
		bookworm "$root.tmp" "$m" >"$root.log" 2>&1; then
		tail -5 "$root.log"
		rm -rf "$root.tmp"
		echo "cannot build the container tree: skip"
		exit 77
	fi
	rm -rf "$root"
	mv "$root.tmp" "$root"
	echo "$pkgs" >"$root/.sddsd-rootfs-ok"
fi

# Install what `meson install` would, at the paths the units name.
exec_of() { sed -n "s/^$2=\([^ ]*\).*/\1/p" "$unit_dir/$1" | head -n 1; }
sddsd_at=$(exec_of sddsd.service ExecStart)
install -D -m 0755 "$sddsd" "$root$sddsd_at"
install -D -m 0755 "$sddsctl" "$root/usr/local/bin/sddsctl"
rm -f "$root/usr/local/bin/temperature_pub"
if [ -n "$sandbox" ] && [ -x "$sandbox" ] && [ -x "$app" ] && [ -f "$libclient" ]; then
	install -D -m 0755 "$sandbox" "$root$(exec_of sdds-app@.service ExecStart)"
	install -D -m 0755 "$app" "$root/usr/local/bin/temperature_pub"
	install -D -m 0644 "$libclient" "$root/usr/local/lib/$(basename "$libclient")"
	soname=$(objdump -p "$libclient" 2>/dev/null | sed -n 's/^ *SONAME *//p')
	[ -n "$soname" ] && ln -sf "$(basename "$libclient")" "$root/usr/local/lib/$soname"
	chroot "$root" ldconfig
fi
for u in sddsd.socket sddsd.service sdds-app@.service; do
	install -D -m 0644 "$unit_dir/$u" "$root/etc/systemd/system/$u"
done
# Test settings: a short watchdog, and no 90 s wait before the SIGKILL that
# follows the watchdog's SIGABRT to a stopped process.
install -d "$root/etc/systemd/system/sddsd.service.d"
cat >"$root/etc/systemd/system/sddsd.service.d/e2e.conf" <<'EOT'
[Service]
WatchdogSec=2s
TimeoutAbortSec=1s
EOT
rm -rf "$root/etc/sdds"

install -d "$root/usr/local/lib/sddsd-e2e"
# sddsctl --json is indented JSON and the tree has no JSON parser: this puts
# each element of an array of objects (a client, a denial) on one line with
# spaces squeezed, so a grep can ask for two members of the same element.
cat >"$root/usr/local/lib/sddsd-e2e/jsonl" <<'EOT'
#!/bin/sh
tr -d '\n' | sed 's/  */ /g; s/}, {/}\n{/g'
EOT
chmod 0755 "$root/usr/local/lib/sddsd-e2e/jsonl"
cat >"$root/usr/local/lib/sddsd-e2e/e2e.sh" <<'EOT'
#!/bin/sh
out=/e2e.out
: >$out
ok() { echo "ok: $*" >>$out; }
bad() { echo "FAIL: $*" >>$out; }
check() { d=$1; shift; if "$@" >/dev/null 2>&1; then ok "$d"; else bad "$d"; fi; }
waitfor() { n=$(($1 * 10)); shift; while [ $n -gt 0 ]; do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; n=$((n - 1)); done; return 1; }
status() { systemctl show -p StatusText --value sddsd.service; }
mainpid() { systemctl show -p MainPID --value sddsd.service; }

systemctl start sddsd.socket
check "sddsd.socket active" systemctl is-active sddsd.socket
check "/run/sdds/sddsd.sock is a socket" test -S /run/sdds/sddsd.sock
check "no daemon before the first client" sh -c '! systemctl is-active sddsd.service'
check "a client starts the daemon (socket activation)" sddsctl stats
check "sddsd.service active" systemctl is-active sddsd.service
check "READY=1 with STATUS= (no policy)" sh -c 'systemctl show -p StatusText --value sddsd | grep -q "serving /run/sdds/sddsd.sock; no policy"'
check "journal: no policy, every topic open" sh -c 'journalctl -b -u sddsd --no-pager | grep -q "no access policy"'
pid=$(mainpid)
check "runs as a dynamic user" sh -c "[ \$(stat -c %u /proc/$pid) -ne 0 ]"
check "no capabilities" grep -q '^CapEff:[[:space:]]*0000000000000000' /proc/$pid/status
check "seccomp filter" grep -q '^Seccomp:[[:space:]]*2' /proc/$pid/status
check "no new privileges" grep -q '^NoNewPrivs:[[:space:]]*1' /proc/$pid/status
check "socket still in /run/sdds once the daemon runs" test -S /run/sdds/sddsd.sock
# Any local user reaches the daemon (Hello works; stats are then refused).
check "an unprivileged client connects" sh -c 'setpriv --reuid=65534 --regid=65534 --clear-groups sddsctl --socket /run/sdds/sddsd.sock stats 2>&1 | grep -q "stats are for root"'

mkdir -p /etc/sdds
printf 'allow * read 1:1\n' >/etc/sdds/policy.conf
echo 'SDDSD_ARGS=--policy /etc/sdds/policy.conf' >/etc/sdds/sddsd.env
systemctl restart sddsd.service
check "policy loaded (STATUS=)" sh -c 'systemctl show -p StatusText --value sddsd | grep -q "policy /etc/sdds/policy.conf (0 identities, 1 rules)"'
printf 'allow * read 1:1\nallow * write 1:2\n' >/etc/sdds/policy.conf
systemctl reload sddsd.service
check "systemctl reload: new policy" waitfor 5 sh -c 'systemctl show -p StatusText --value sddsd | grep -q "2 rules"'
printf 'allow * read 1:1\nallow * bogus 1:1\n' >/etc/sdds/policy.conf
systemctl reload sddsd.service
check "malformed policy refused with FILE:LINE" waitfor 5 sh -c 'journalctl -b -u sddsd --no-pager | grep -q "policy.conf:2: .bogus."'
check "still active, last good policy kept" sh -c 'systemctl is-active sddsd && systemctl show -p StatusText --value sddsd | grep -q "2 rules"'
check "reload counters in sddsctl" sh -c 'sddsctl denials | grep -q "reloads / refused files   1 / 1"'
# A malformed policy also stops a (re)start: exit status 1, FILE:LINE.
systemctl restart sddsd.service
check "restart with a malformed policy fails" sh -c '[ "$(systemctl show -p ExecMainStatus --value sddsd)" = 1 ]'
printf 'allow * read 1:1\n' >/etc/sdds/policy.conf
systemctl reset-failed sddsd.service
systemctl start sddsd.service
check "starts again with a good policy" systemctl is-active sddsd.service

pid=$(mainpid)
systemctl restart sddsd.service
check "restart behind the held socket" sddsctl stats
check "a new daemon" sh -c "[ \$(systemctl show -p MainPID --value sddsd) != $pid ]"

pid=$(mainpid)
[ "$pid" -gt 1 ] && kill -STOP "$pid"
check "watchdog: a stalled daemon is restarted" waitfor 20 sh -c "p=\$(systemctl show -p MainPID --value sddsd); [ \$p != $pid ] && [ \$p != 0 ] && systemctl is-active sddsd"
check "journal: watchdog timeout" sh -c 'journalctl -b -u sddsd --no-pager | grep -qi "watchdog timeout"'
check "clients get through after the watchdog restart" waitfor 5 sddsctl stats

# unit= identities: a client in a template instance (its own slice).
printf 'identity byunit unit=sdds-probe@x.service\nallow byunit read 7:7\n' >/etc/sdds/policy.conf
systemctl reload sddsd.service
waitfor 5 sh -c 'journalctl -b -u sddsd --no-pager | grep -q "1 identities, 1 rules"'
systemd-run --quiet --wait --unit=sdds-probe@x -p StandardOutput=file:/e2e-probe.json \
	/usr/local/bin/sddsctl --json clients >/e2e-probe.err 2>&1
check "unit= identity of a client in sdds-probe@x.service" sh -c '/usr/local/lib/sddsd-e2e/jsonl </e2e-probe.json | grep -q "\"name\": \"sddsctl\".*\"identity\": \"byunit\""'

if [ -x /usr/local/bin/temperature_pub ]; then
	mkdir -p /etc/sdds/apps
	printf 'allow temp write *:*\n' >/etc/sdds/policy.conf
	systemctl reload sddsd.service
	echo 'SDDS_APP_EXEC=/usr/local/bin/temperature_pub -n 400 -i 25' >/etc/sdds/apps/temp.conf
	check "sdds-app@temp: MemoryMax=1152M, TasksMax=160, Delegate=yes" sh -c '[ "$(systemctl show -p MemoryMax --value sdds-app@temp)" = 1207959552 ] && [ "$(systemctl show -p TasksMax --value sdds-app@temp)" = 160 ] && [ "$(systemctl show -p Delegate --value sdds-app@temp)" = yes ]'
	# The application's own cgroup, where the container has one to give:
	# the memory limit file of the cgroup of the sandboxed program says 1G.
	app_cgroup_limit() {
		p=$(pgrep -x temperature_pub | head -n 1); [ -n "$p" ] || return 1
		v2=$(sed -n 's/^0:://p' /proc/$p/cgroup)
		v1=$(sed -n 's/^[0-9]*:memory://p' /proc/$p/cgroup)
		if [ -f "/sys/fs/cgroup$v2/memory.max" ]; then
			case $v2 in */sdds-app@temp.service/sdds-sandbox.*) cat "/sys/fs/cgroup$v2/memory.max";; esac
		elif [ -n "$v1" ]; then
			case $v1 in */sdds-sandbox.*) cat "/sys/fs/cgroup/memory$v1/memory.limit_in_bytes";; esac
		fi
	}
	app_cgroup_1g() { [ "$(app_cgroup_limit)" = 1073741824 ]; }
	systemctl start sdds-app@temp.service
	waitfor 10 sh -c 'pgrep -x temperature_pub || journalctl -b -u sdds-app@temp --no-pager | grep -q "refusing to start"'
	if journalctl -b -u sdds-app@temp --no-pager | grep -q "no cgroup for the program's limits"; then
		# A container whose cgroup hierarchies are read-only (nspawn on
		# a host with the v1 memory controller): the sandbox must refuse,
		# and runs only when the configuration accepts rlimits alone.
		check "sdds-app@temp: no writable cgroup: refused, the unit fails" sh -c '! pgrep -x temperature_pub && [ "$(systemctl show -p ExecMainStatus --value sdds-app@temp)" = 125 ]'
		systemctl stop sdds-app@temp.service
		systemctl reset-failed sdds-app@temp.service
		echo 'SDDS_SANDBOX_ARGS=--allow-weak-limits' >>/etc/sdds/apps/temp.conf
		systemctl start sdds-app@temp.service
		check "sdds-app@temp: --allow-weak-limits in SDDS_SANDBOX_ARGS: runs, with a warning" waitfor 10 sh -c 'journalctl -b -u sdds-app@temp --no-pager | grep -q "warning: no cgroup for the program.s limits"'
	else
		check "sdds-app@temp: the application in its own cgroup, memory limit 1G" waitfor 10 app_cgroup_1g
	fi
	check "sdds-app@temp: the sandboxed publisher runs" waitfor 10 sh -c 'sddsctl --json clients | /usr/local/lib/sddsd-e2e/jsonl | grep -q "\"writers\": 1, .*\"identity\": \"temp\""'
	check "sdds-app@temp: attested identity, samples written" waitfor 10 sh -c 'sddsctl --json clients | /usr/local/lib/sddsd-e2e/jsonl | grep "\"identity\": \"temp\"" | grep -qv "\"written\": 0,"'
	systemctl stop sdds-app@temp.service
	printf 'deny temp write *:*\nallow * write *:*\n' >/etc/sdds/policy.conf
	systemctl reload sddsd.service
	systemctl start sdds-app@temp.service
	check "sdds-app@temp: denied by the policy, the unit fails" waitfor 10 sh -c '[ "$(systemctl show -p ActiveState --value sdds-app@temp)" != active ] || [ "$(systemctl show -p NRestarts --value sdds-app@temp)" -gt 0 ]'
	check "sdds-app@temp: the denial names identity temp" waitfor 5 sh -c 'sddsctl --json denials | /usr/local/lib/sddsd-e2e/jsonl | grep -q "\"identity\": \"temp\", \"kind\": \"writer\""'
	systemctl stop sdds-app@temp.service
else
	echo "skip: sdds-app@ (no sdds-sandbox / example publisher given)" >>$out
fi

systemctl stop sddsd.service
check "clean stop" sh -c '[ "$(systemctl show -p Result --value sddsd)" = success ]'
check "socket stays after the daemon stopped" test -S /run/sdds/sddsd.sock
journalctl -b -u sddsd --no-pager >/e2e.journal 2>&1
echo "done" >>$out
EOT
chmod 0755 "$root/usr/local/lib/sddsd-e2e/e2e.sh"
cat >"$root/etc/systemd/system/sddsd-e2e.service" <<'EOT'
[Unit]
Description=sddsd end-to-end checks
After=multi-user.target
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStart=/usr/local/lib/sddsd-e2e/e2e.sh
TimeoutStartSec=150
EOT
install -d "$root/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/sddsd-e2e.service "$root/etc/systemd/system/multi-user.target.wants/sddsd-e2e.service"
rm -rf "$root/e2e.out" "$root/e2e.journal" "$root/e2e-probe.json" "$root/e2e-probe.err" "$root/etc/sdds"

# --keep-unit --register=no: no systemd on the host to talk to.
rc=0
timeout 240 systemd-nspawn -q --keep-unit --register=no -D "$root" -b --console=pipe \
	</dev/null >"$root/../sddsd-e2e-console.log" 2>&1 || rc=$?
rm -f "$root/etc/systemd/system/multi-user.target.wants/sddsd-e2e.service"
if [ ! -s "$root/e2e.out" ]; then
	echo "FAIL: the container produced no result (nspawn exit $rc)"
	tail -30 "$root/../sddsd-e2e-console.log"
	exit 1
fi
cat "$root/e2e.out"
if grep -q '^FAIL' "$root/e2e.out" || ! grep -q '^done$' "$root/e2e.out"; then
	echo "--- journal of sddsd.service:"
	cat "$root/e2e.journal" 2>/dev/null | tail -40
	exit 1
fi
echo "$(grep -c '^ok' "$root/e2e.out") passed, 0 failed"
