/* SPDX-License-Identifier: MIT */
/*
 * netns_rig.c - see netns_rig.h. Namespaces are entered with
 * `ip netns exec`, so children see the namespace's /etc/netns too.
 */
#include "netns_rig.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct netns_pair netns = {.daemon = {-1, -1}, .cpu = {-1, -1}};

static const char *const side_name[2] = {"a", "b"};

int netns_run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

int netns_available(const char *prog)
{
	char probe[32];

	if (geteuid() != 0) {
		fprintf(stderr, "%s: not root: skipped\n", prog);
		return 77;
	}
	snprintf(probe, sizeof(probe), "sddsP%d", (int)getpid());
	if (netns_run("ip netns add %s 2>/dev/null", probe) != 0) {
		fprintf(stderr, "%s: ip netns add fails: skipped\n", prog);
		return 77;
	}
	netns_run("ip netns del %s", probe);
	return 0;
}

int netns_available_nft(const char *prog)
{
	if (netns_run("command -v nft >/dev/null 2>&1") != 0) {
		fprintf(stderr, "%s: no nft: skipped\n", prog);
		return 77;
	}
	return netns_available(prog);
}

void netns_daemon_stop(int side)
{
	pid_t *pid = &netns.daemon[side];

	if (*pid <= 0)
		return;
	kill(*pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		pid_t r = waitpid(*pid, NULL, WNOHANG);

		/* Reaped now, or not our child (a forked copy of this state): gone for us. */
		if (r == *pid || (r < 0 && errno == ECHILD)) {
			*pid = -1;
			return;
		}
		usleep(10000);
	}
	kill(*pid, SIGKILL);
	waitpid(*pid, NULL, 0);
	*pid = -1;
}

void netns_cleanup(void)
{
	netns_daemon_stop(0);
	netns_daemon_stop(1);
	for (int i = 0; i < 2; i++) {
		if (netns.made[i])
			netns_run("ip netns del %s 2>/dev/null", netns.ns[i]);
		netns.made[i] = false;
	}
	if (netns.dir[0] != '\0')
		netns_run("rm -rf '%s'", netns.dir);
	netns.dir[0] = '\0';
}

/* The process that set the pair up; a forked child's copy of the state is not its to clean. */
static pid_t netns_owner;

static void netns_cleanup_at_exit(void)
{
	if (getpid() == netns_owner)
		netns_cleanup();
}

static void on_signal(int sig)
{
	if (getpid() == netns_owner)
		netns_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

int netns_pair_setup(const char *tag, const char *dev_a, const char *dev_b)
{
	static bool registered;
	int p = (int)getpid();

	netns_owner = getpid();
	if (!registered) {
		signal(SIGTERM, on_signal);
		signal(SIGINT, on_signal);
		atexit(netns_cleanup_at_exit);
		registered = true;
	}
	snprintf(netns.ns[0], sizeof(netns.ns[0]), "sdds%sA%d", tag, p);
	snprintf(netns.ns[1], sizeof(netns.ns[1]), "sdds%sB%d", tag, p);
	snprintf(netns.dev[0], sizeof(netns.dev[0]), "%s", dev_a);
	snprintf(netns.dev[1], sizeof(netns.dev[1]), "%s", dev_b);
	snprintf(netns.dir, sizeof(netns.dir), "/tmp/sdds%s.XXXXXX", tag);
	if (mkdtemp(netns.dir) == NULL) {
		snprintf(netns.why, sizeof(netns.why), "mkdtemp: %s", strerror(errno));
		netns.dir[0] = '\0';
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		if (netns_run("ip netns add %s", netns.ns[i]) != 0) {
			snprintf(netns.why, sizeof(netns.why), "ip netns add %s failed", netns.ns[i]);
			return -1;
		}
		netns.made[i] = true;
	}
	/* Created under names unique to this process, renamed inside the namespaces. */
	if (netns_run("ip link add nha%d type veth peer name nhb%d", p, p) != 0 ||
	    netns_run("ip link set nha%d netns %s && ip link set nhb%d netns %s", p, netns.ns[0], p,
		      netns.ns[1]) != 0 ||
	    netns_run("ip -n %s link set nha%d name %s && ip -n %s link set nhb%d name %s", netns.ns[0], p,
		      dev_a, netns.ns[1], p, dev_b) != 0) {
		snprintf(netns.why, sizeof(netns.why), "cannot create the veth pair");
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		const char *ns = netns.ns[i];
		const char *dev = netns.dev[i];

		if (netns_run("ip netns exec %s sysctl -qw net.ipv6.conf.all.accept_dad=0 "
			      "net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.%s.accept_dad=0",
			      ns, dev) != 0 ||
		    netns_run("ip -n %s link set lo up && ip -n %s addr add %s/64 dev %s nodad && "
			      "ip -n %s link set %s up",
			      ns, ns, i == 0 ? "fe80::a" : "fe80::b", dev, ns, dev) != 0) {
			snprintf(netns.why, sizeof(netns.why), "cannot configure %s in %s", dev, ns);
			return -1;
		}
	}
	return 0;
}

int netns_enter(int side)
{
	char path[64];
	int fd, rc = 0;

	snprintf(path, sizeof(path), "/run/netns/%s", netns.ns[side]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

void netns_path(const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%s", netns.dir, name);
}

int netns_write(const char *name, const char *text)
{
	char path[192];
	FILE *f;

	netns_path(name, path, sizeof(path));
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

int netns_write_configs(int side, const char *node_xml, const char *extra)
{
	char file[16], text[1024];
	const char *me = side_name[side];

	snprintf(file, sizeof(file), "%s.xml", me);
	if (netns_write(file, node_xml) < 0)
		return -1;
	snprintf(text, sizeof(text), "socket = %s/%s.sock\nnode_config = %s/%s.xml\nlog_level = notice\n%s",
		 netns.dir, me, netns.dir, me, extra != NULL ? extra : "");
	snprintf(file, sizeof(file), "%s.conf", me);
	return netns_write(file, text);
}

int netns_daemon_start(int side, const char *sddsd, const char *log)
{
	char conf[192], sock[192], logpath[192];
	pid_t pid;

	snprintf(conf, sizeof(conf), "%s/%s.conf", netns.dir, side_name[side]);
	snprintf(sock, sizeof(sock), "%s/%s.sock", netns.dir, side_name[side]);
	if (log != NULL)
		netns_path(log, logpath, sizeof(logpath));
	pid = fork();
	if (pid < 0) {
		snprintf(netns.why, sizeof(netns.why), "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (log != NULL) {
			int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

			if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
				_exit(127);
		}
		/* The affinity is inherited through ip's exec of sddsd. */
		if (netns.cpu[side] >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(netns.cpu[side], &set);
			if (sched_setaffinity(0, sizeof(set), &set) < 0)
				_exit(126);
		}
		execlp("ip", "ip", "netns", "exec", netns.ns[side], sddsd, "-c", conf, (char *)NULL);
		_exit(127);
	}
	/* Polled every 10 ms; a daemon under valgrind needs longer than 5 s. */
	for (int i = 0; i < (netns.start_ms > 0 ? netns.start_ms : 5000) / 10; i++) {
		struct stat st;

		if (stat(sock, &st) == 0) {
			netns.daemon[side] = pid;
			return 0;
		}
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			char line[160] = "";
			FILE *f = log != NULL ? fopen(logpath, "r") : NULL;

			/* Its last line says why. */
			while (f != NULL && fgets(line, sizeof(line), f) != NULL)
				;
			if (f != NULL)
				fclose(f);
			line[strcspn(line, "\n")] = '\0';
			snprintf(netns.why, sizeof(netns.why), "sddsd in %s exited at start: %s",
				 netns.ns[side], line);
			return -1;
		}
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	snprintf(netns.why, sizeof(netns.why), "sddsd in %s did not open its socket within %d ms",
		 netns.ns[side], netns.start_ms > 0 ? netns.start_ms : 5000);
	return -1;
}

int netns_daemons_start(const char *sddsd)
{
	if (netns_daemon_start(0, sddsd, NULL) < 0 || netns_daemon_start(1, sddsd, NULL) < 0)
		return -1;
	return 0;
}

pid_t netns_helper(int side, bool want_ready, const char *bin, ...)
{
	const char *argv[16];
	size_t n = 0;
	int pfd[2];
	va_list ap;
	pid_t pid;

	argv[n++] = "ip";
	argv[n++] = "netns";
	argv[n++] = "exec";
	argv[n++] = netns.ns[side];
	argv[n++] = bin;
	va_start(ap, bin);
	for (const char *a = va_arg(ap, const char *); a != NULL && n < 13; a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	/* Close-on-exec: another helper started meanwhile must not hold this one's pipe open. */
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execvp("ip", (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	if (want_ready) {
		char buf[64];
		ssize_t r = read(pfd[0], buf, sizeof(buf) - 1);

		if (r <= 0 || strncmp(buf, "ready", 5) != 0) {
			/* Not ready: it is ours to stop, not a process left behind. */
			close(pfd[0]);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return -1;
		}
	}
	close(pfd[0]);
	return pid;
}

int netns_wait(pid_t pid)
{
	int st;

	if (pid <= 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int netns_ctl_json(int side, const char *sddsctl, const char *cmd, char *buf, size_t cap)
{
	char line[512];
	FILE *p;
	size_t n;

	snprintf(line, sizeof(line), "ip netns exec %s %s --json --socket %s/%s.sock %s", netns.ns[side],
		 sddsctl, netns.dir, side_name[side], cmd);
	p = popen(line, "r");
	if (p == NULL)
		return -1;
	n = fread(buf, 1, cap - 1, p);
	buf[n] = '\0';
	return pclose(p) == 0 ? 0 : -1;
}

int64_t netns_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool netns_drop(int side, unsigned dport, unsigned percent)
{
	const char *ns = netns.ns[side], *peer_ns = netns.ns[!side];
	char match[64];

	/*
	 * A daemon hands the kernel runs of frames to one peer as one GSO
	 * message, which a veth carries whole: the rule would see (and drop)
	 * up to 64 datagrams as one packet. A wire carries them one by one, so
	 * the sending end segments before the veth here (gso_max_segs 1).
	 */
	if (netns_run("ip -n %s link set dev %s gso_max_segs 1", peer_ns, netns.dev[!side]) != 0) {
		fprintf(stderr, "netns_drop: cannot set gso_max_segs on %s (iproute2 too old?)\n",
			netns.dev[!side]);
		return false;
	}
	if (percent >= 100)
		match[0] = '\0';
	else
		snprintf(match, sizeof(match), "numgen random mod 100 '<' %u", percent);
	/* One table per port, so a test can drop on several ports; counted for netns_dropped. */
	return netns_run(
		   "ip netns exec %s nft add table inet t%u 2>/dev/null && "
		   "ip netns exec %s nft add chain inet t%u in '{ type filter hook input priority 0; }' && "
		   "ip netns exec %s nft add rule inet t%u in udp dport %u %s counter drop",
		   ns, dport, ns, dport, ns, dport, dport, match) == 0;
}

void netns_undrop(int side, unsigned dport)
{
	netns_run("ip netns exec %s nft delete table inet t%u 2>/dev/null", netns.ns[side], dport);
	/* GSO messages whole through the veth again, as before netns_drop (veth's default). */
	netns_run("ip -n %s link set dev %s gso_max_segs 65535", netns.ns[!side], netns.dev[!side]);
}

uint64_t netns_nft_counted(int side, const char *table)
{
	char cmd[256], line[512];
	uint64_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ip netns exec %s nft list table %s 2>/dev/null", netns.ns[side], table);
	p = popen(cmd, "r");
	if (p == NULL)
		return 0;
	while (fgets(line, sizeof(line), p) != NULL) {
		const char *c = strstr(line, "counter packets ");

		if (c != NULL)
			n += strtoull(c + strlen("counter packets "), NULL, 10);
	}
	pclose(p);
	return n;
}

uint64_t netns_dropped(int side, unsigned dport)
{
	char table[32];

	snprintf(table, sizeof(table), "inet t%u", dport);
	return netns_nft_counted(side, table);
}
