/* SPDX-License-Identifier: MIT */
/*
 * test_netns_loss.c - wire reliability between two sddsd daemons in two
 * network namespaces over a veth pair, with 20% of the datagrams to the
 * unicast port (23234) dropped at random on input in both namespaces
 * (nftables `numgen random mod 10 < 2`): the node configs mark temperature
 * reliable (qos_reliability kind="reliable", ACK) with a static
 * subscription A -> B; 1,000 samples written in A arrive in B's reliable
 * reader exactly once each and in order; A's counters show resends and B's
 * the ACKs. Skips (77) when not root, when `ip netns add` fails or when nft
 * is unusable.
 *
 * argv: sddsd, sddsctl, net_helper.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *sddsd_bin, *sddsctl_bin, *helper_bin;
static char ns_a[32], ns_b[32], dir[64];
static pid_t daemon_a = -1, daemon_b = -1;
static bool made_a, made_b;

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A shell command; returns its exit status (or -1). */
static int run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

static void stop_daemon(pid_t *pid)
{
	if (*pid <= 0)
		return;
	kill(*pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		if (waitpid(*pid, NULL, WNOHANG) == *pid) {
			*pid = -1;
			return;
		}
		usleep(10000);
	}
	kill(*pid, SIGKILL);
	waitpid(*pid, NULL, 0);
	*pid = -1;
}

static void cleanup(void)
{
	stop_daemon(&daemon_a);
	stop_daemon(&daemon_b);
	if (made_a)
		run("ip netns del %s 2>/dev/null", ns_a);
	if (made_b)
		run("ip netns del %s 2>/dev/null", ns_b);
	made_a = made_b = false;
	if (dir[0] != '\0')
		run("rm -rf '%s'", dir);
	dir[0] = '\0';
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static const char topics_xml[] =
    "<domain id=\"1\">\n"
    "  <topic name=\"temperature\" domain=\"1\" id=\"A\">\n"
    "    <attribute name=\"device\" type=\"DDS_unsigned_short\" key=\"secondary\"/>\n"
    "    <attribute name=\"value\" type=\"DDS_short\"/>\n"
    "    <config type=\"qos_reliability\" reliabilitySeqnrSize=\"basic\" kind=\"reliable\" "
    "confirmationtype=\"ack\" max_blocking_time=\"100\"/>\n"
    "  </topic>\n"
    "  <topic name=\"counter\" domain=\"2\" id=\"B\">\n"
    "    <attribute name=\"seq\" type=\"DDS_unsigned_long\"/>\n"
    "    <attribute name=\"tag\" type=\"DDS_string\" size=\"7\"/>\n"
    "  </topic>\n"
    "</domain>\n";

static int write_node(const char *name, const char *me, const char *iface, bool publishes_temperature)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "<project name=\"%s\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"%s\" "
		 "iface=\"%s\" "
		 "port=\"23234\">\n"
		 "  <include filename=\"topics.xml\"/>\n"
		 "  <role topic=\"temperature\" type=\"%s\"/>\n"
		 "  <role topic=\"counter\" type=\"%s\"/>\n"
		 "  %s\n"
		 "</project>\n",
		 name, me, iface, publishes_temperature ? "publisher" : "subscriber",
		 publishes_temperature ? "subscriber" : "publisher",
		 publishes_temperature
		     ? "<subscription topic=\"temperature\"><subscriber ip=\"fe80::b\"/></subscription>"
		     : "");
	{
		char file[64];

		snprintf(file, sizeof(file), "%s.xml", name);
		if (write_file(file, text) < 0)
			return -1;
	}
	/* B polls, A sleeps in epoll: the end-of-turn flush is exercised in both loop modes. */
	snprintf(text, sizeof(text),
		 "socket = %s/%s.sock\nnode_config = %s/%s.xml\nlog_level = notice\npoll = %s\n", dir, name,
		 dir, name, strcmp(name, "b") == 0 ? "true" : "false");
	{
		char file[64];

		snprintf(file, sizeof(file), "%s.conf", name);
		return write_file(file, text);
	}
}

static pid_t start_daemon(const char *ns, const char *name)
{
	char conf[128], sock[128];
	pid_t pid;

	snprintf(conf, sizeof(conf), "%s/%s.conf", dir, name);
	snprintf(sock, sizeof(sock), "%s/%s.sock", dir, name);
	pid = fork();
	if (pid == 0) {
		execlp("ip", "ip", "netns", "exec", ns, sddsd_bin, "-c", conf, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		struct stat st;

		if (stat(sock, &st) == 0)
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static int group_setup(void **state)
{
	int p = (int)getpid();

	(void)state;
	snprintf(ns_a, sizeof(ns_a), "sddsLA%d", p);
	snprintf(ns_b, sizeof(ns_b), "sddsLB%d", p);
	snprintf(dir, sizeof(dir), "/tmp/sddsloss.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		dir[0] = '\0';
		return -1;
	}
	if (run("ip netns add %s 2>/dev/null", ns_a) != 0)
		return -1;
	made_a = true;
	if (run("ip netns add %s", ns_b) != 0)
		return -1;
	made_b = true;
	if (run("ip link add la%d type veth peer name lb%d", p, p) != 0 ||
	    run("ip link set la%d netns %s && ip link set lb%d netns %s", p, ns_a, p, ns_b) != 0 ||
	    run("ip -n %s link set la%d name vna && ip -n %s link set lb%d name vnb", ns_a, p, ns_b, p) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		const char *ns = i == 0 ? ns_a : ns_b;
		const char *dev = i == 0 ? "vna" : "vnb";
		const char *addr = i == 0 ? "fe80::a" : "fe80::b";

		if (run("ip netns exec %s sysctl -qw net.ipv6.conf.all.accept_dad=0 "
			"net.ipv6.conf.default.accept_dad=0 "
			"net.ipv6.conf.%s.accept_dad=0",
			ns, dev) != 0 ||
		    run("ip -n %s link set lo up && ip -n %s addr add %s/64 dev %s nodad && ip -n %s link "
			"set %s up",
			ns, ns, addr, dev, ns, dev) != 0)
			return -1;
	}
	if (write_file("topics.xml", topics_xml) < 0 || write_node("a", "fe80::a", "vna", true) < 0 ||
	    write_node("b", "fe80::b", "vnb", false) < 0)
		return -1;
	daemon_a = start_daemon(ns_a, "a");
	daemon_b = start_daemon(ns_b, "b");
	if (daemon_a < 0 || daemon_b < 0)
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	cleanup();
	return 0;
}

/* A helper in a namespace; with want_ready, wait for its "ready" line. */
static pid_t helper(const char *ns, bool want_ready, const char *a1, const char *a2, const char *a3,
		    const char *a4, const char *a5, const char *a6)
{
	int pfd[2];
	pid_t pid;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execlp("ip", "ip", "netns", "exec", ns, helper_bin, a1, a2, a3, a4, a5, a6, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	if (want_ready) {
		char buf[64];
		ssize_t n = read(pfd[0], buf, sizeof(buf) - 1);

		if (n <= 0 || strncmp(buf, "ready", 5) != 0) {
			close(pfd[0]);
			return -1;
		}
	}
	close(pfd[0]);
	return pid;
}

static int wait_ok(pid_t pid)
{
	int st;

	if (pid <= 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void sock_of(const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%s.sock", dir, name);
}

/* sddsctl --json CMD of daemon `name` into buf. */
static int ctl_json(const char *ns, const char *name, const char *cmd, char *buf, size_t cap)
{
	char line[512], sock[128];
	FILE *p;
	size_t n;

	sock_of(name, sock, sizeof(sock));
	snprintf(line, sizeof(line), "ip netns exec %s %s --json --socket %s %s", ns, sddsctl_bin, sock, cmd);
	p = popen(line, "r");
	if (p == NULL)
		return -1;
	n = fread(buf, 1, cap - 1, p);
	buf[n] = '\0';
	return pclose(p) == 0 ? 0 : -1;
}

static uint64_t json_u64(const char *json, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\": ", key);
	p = strstr(json, k);
	return p != NULL ? strtoull(p + strlen(k), NULL, 10) : 0;
}

/* 20% of the datagrams to port 23234 dropped on input in namespace ns; false when nft does not work. */
static bool lossy(const char *ns)
{
	return run("ip netns exec %s nft add table inet t 2>/dev/null && "
		   "ip netns exec %s nft add chain inet t in '{ type filter hook input priority 0; }' && "
		   "ip netns exec %s nft add rule inet t in udp dport 23234 numgen random mod 10 '<' 2 drop",
		   ns, ns, ns) == 0;
}

static void test_reliable_under_loss(void **state)
{
	static char buf[65536];
	char sa[128], sb[128];
	pid_t rb, wa;

	(void)state;
	if (!lossy(ns_a) || !lossy(ns_b)) {
		/* The one thing this test needs beyond test_netns: the whole program is skipped. */
		fprintf(stderr, "test_netns_loss: nft unusable: skipped\n");
		exit(77);
	}
	sock_of("a", sa, sizeof(sa));
	sock_of("b", sb, sizeof(sb));
	rb = helper(ns_b, true, "read", sb, "temperature", "1000", "60000", NULL);
	assert_true(rb > 0);
	wa = helper(ns_a, false, "write", sa, "temperature", "1000", NULL, NULL);
	assert_int_equal(wait_ok(wa), 0);
	if (wait_ok(rb) != 0) {
		ctl_json(ns_a, "a", "net", buf, sizeof(buf));
		fail_msg("B's reader did not get the 1,000 samples in order; A's counters:\n%s", buf);
	}
	assert_int_equal(ctl_json(ns_a, "a", "net", buf, sizeof(buf)), 0);
	if (json_u64(buf, "resent") == 0 || json_u64(buf, "acks_in") < 1000)
		fail_msg("no resends or too few ACKs at A:\n%s", buf);
	fprintf(stderr, "A: resent %llu, acks_in %llu\n", (unsigned long long)json_u64(buf, "resent"),
		(unsigned long long)json_u64(buf, "acks_in"));
	assert_int_equal(ctl_json(ns_b, "b", "net", buf, sizeof(buf)), 0);
	if (json_u64(buf, "acks_out") < 1000)
		fail_msg("too few ACKs from B:\n%s", buf);
	fprintf(stderr, "B: acks_out %llu, seq_dropped %llu, seq_resync %llu\n",
		(unsigned long long)json_u64(buf, "acks_out"),
		(unsigned long long)json_u64(buf, "seq_dropped"),
		(unsigned long long)json_u64(buf, "seq_resync"));
	if (json_u64(buf, "seq_resync") != 0)
		fail_msg("B resynchronised past a gap (a sample given up):\n%s", buf);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reliable_under_loss),
	};
	int rc;

	if (argc < 4) {
		fprintf(stderr, "usage: %s SDDSD SDDSCTL NET_HELPER\n", argv[0]);
		return 2;
	}
	sddsd_bin = argv[1];
	sddsctl_bin = argv[2];
	helper_bin = argv[3];
	if (run("command -v nft >/dev/null 2>&1") != 0) {
		fprintf(stderr, "test_netns_loss: no nft: skipped\n");
		return 77;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "test_netns_loss: not root: skipped\n");
		return 77;
	}
	snprintf(ns_a, sizeof(ns_a), "sddsR%d", (int)getpid());
	if (run("ip netns add %s 2>/dev/null", ns_a) != 0) {
		fprintf(stderr, "test_netns_loss: ip netns add fails: skipped\n");
		return 77;
	}
	run("ip netns del %s", ns_a);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	atexit(cleanup);
	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	cleanup();
	return rc;
}
