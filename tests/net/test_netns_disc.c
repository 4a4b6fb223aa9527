/* SPDX-License-Identifier: MIT */
/*
 * test_netns_disc.c - two sddsd daemons in two network namespaces joined by
 * a veth pair, in discovery mode (discovery = on, no static subscriptions
 * in their node configs; snps-wire.md §10, daemon/net/discovery.h):
 *   - clients in A and B exchange 1,000 samples each way, in order, once
 *     each daemon has learnt the other's subscription (its ff02::10 group
 *     destination shows in `sddsctl peers`);
 *   - daemon B stopped: A expires it (B and the group leave A's peers, the
 *     expiry is counted in `sddsctl net`);
 *   - daemon B started again later (a late subscriber): it announces, A
 *     learns it again and B's reader gets A's samples.
 *
 * Periods are shortened (participant 200 ms, publication 1 s, expiry
 * 1.5 s) to keep the test short. The fixture is the one of test_netns.c.
 * Skips (77) when not root or when `ip netns add` fails.
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
		 "</project>\n",
		 name, me, iface, publishes_temperature ? "publisher" : "subscriber",
		 publishes_temperature ? "subscriber" : "publisher");
	{
		char file[64];

		snprintf(file, sizeof(file), "%s.xml", name);
		if (write_file(file, text) < 0)
			return -1;
	}
	/* B polls, A sleeps in epoll: the end-of-turn flush is exercised in both loop modes. */
	snprintf(text, sizeof(text),
		 "socket = %s/%s.sock\nnode_config = %s/%s.xml\nlog_level = notice\npoll = %s\n"
		 "discovery = on\ndiscovery_participant_ms = 200\ndiscovery_publication_ms = 1000\n"
		 "discovery_expire_ms = 1500\n",
		 dir, name, dir, name, strcmp(name, "b") == 0 ? "true" : "false");
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
	snprintf(ns_a, sizeof(ns_a), "sddsDA%d", p);
	snprintf(ns_b, sizeof(ns_b), "sddsDB%d", p);
	snprintf(dir, sizeof(dir), "/tmp/sddsdisc.XXXXXX");
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
	if (run("ip link add da%d type veth peer name db%d", p, p) != 0 ||
	    run("ip link set da%d netns %s && ip link set db%d netns %s", p, ns_a, p, ns_b) != 0 ||
	    run("ip -n %s link set da%d name vna && ip -n %s link set db%d name vnb", ns_a, p, ns_b, p) != 0)
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

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait up to ms for daemon `name`'s peers view to contain (want) or lack (!want) text. */
static bool wait_peers(const char *ns, const char *name, const char *text, bool want, int ms, char *buf,
		       size_t cap)
{
	int64_t end = now_ms() + ms;

	do {
		if (ctl_json(ns, name, "peers", buf, cap) == 0 && (strstr(buf, text) != NULL) == want)
			return true;
		usleep(50000);
	} while (now_ms() < end);
	return false;
}

static void wait_learnt(void)
{
	static char buf[65536];

	/* Each daemon sends its published topic to the group its peer's Subscription named. */
	if (!wait_peers(ns_a, "a", "\"address\": \"ff02::10\"", true, 5000, buf, sizeof(buf)))
		fail_msg("A did not learn B's subscription:\n%s", buf);
	if (!wait_peers(ns_b, "b", "\"address\": \"ff02::10\"", true, 5000, buf, sizeof(buf)))
		fail_msg("B did not learn A's subscription:\n%s", buf);
}

static void exchange(int count)
{
	char sa[128], sb[128], n[16];
	pid_t rb, ra, wa, wb;

	snprintf(n, sizeof(n), "%d", count);
	sock_of("a", sa, sizeof(sa));
	sock_of("b", sb, sizeof(sb));
	rb = helper(ns_b, true, "read", sb, "temperature", n, "5000", NULL);
	ra = helper(ns_a, true, "read", sa, "counter", n, "5000", NULL);
	assert_true(rb > 0 && ra > 0);
	wa = helper(ns_a, false, "write", sa, "temperature", n, NULL, NULL);
	wb = helper(ns_b, false, "write", sb, "counter", n, NULL, NULL);
	assert_int_equal(wait_ok(wa), 0);
	assert_int_equal(wait_ok(wb), 0);
	assert_int_equal(wait_ok(rb), 0);
	assert_int_equal(wait_ok(ra), 0);
}

/* No static subscriptions: the data flows once discovery ran, both ways. */
static void test_discovery_exchange(void **state)
{
	(void)state;
	wait_learnt();
	exchange(1000);
}

/* B stops: A expires it. B comes back later: A learns it again and B gets data. */
static void test_expiry_and_late_subscriber(void **state)
{
	static char buf[65536];
	int64_t t0;

	(void)state;
	wait_learnt();
	/* B is heard from its multicast socket (its source address is the kernel's choice on vnb). */
	assert_true(wait_peers(ns_a, "a", "\"last_port\": 23254", true, 2000, buf, sizeof(buf)));
	stop_daemon(&daemon_b);
	t0 = now_ms();
	if (!wait_peers(ns_a, "a", "\"last_port\": 23254", false, 6000, buf, sizeof(buf)))
		fail_msg("A still lists B 6 s after B stopped:\n%s", buf);
	/* Not before the 1.5-s expiry. */
	assert_true(now_ms() - t0 >= 1000);
	assert_null(strstr(buf, "\"address\": \"ff02::10\""));
	assert_int_equal(ctl_json(ns_a, "a", "net", buf, sizeof(buf)), 0);
	if (json_u64(buf, "peers_expired") < 1)
		fail_msg("no peers_expired in A's net view:\n%s", buf);

	daemon_b = start_daemon(ns_b, "b");
	assert_true(daemon_b > 0);
	wait_learnt();
	exchange(200);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_discovery_exchange),
	    cmocka_unit_test(test_expiry_and_late_subscriber),
	};
	int rc;

	if (argc < 4) {
		fprintf(stderr, "usage: %s SDDSD SDDSCTL NET_HELPER\n", argv[0]);
		return 2;
	}
	sddsd_bin = argv[1];
	sddsctl_bin = argv[2];
	helper_bin = argv[3];
	if (geteuid() != 0) {
		fprintf(stderr, "test_netns_disc: not root: skipped\n");
		return 77;
	}
	snprintf(ns_a, sizeof(ns_a), "sddsQ%d", (int)getpid());
	if (run("ip netns add %s 2>/dev/null", ns_a) != 0) {
		fprintf(stderr, "test_netns_disc: ip netns add fails: skipped\n");
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
