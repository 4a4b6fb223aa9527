/* SPDX-License-Identifier: MIT */
/*
 * test_netns.c - two sddsd daemons in two network namespaces joined by a
 * veth pair, each with a node config whose static subscriptions point at
 * the other's link-local address; clients (libsddsclient, tests/net/
 * net_helper) in each namespace:
 *   - A -> B and B -> A at once, two topics of two domains, reliable
 *     readers, 1,000 samples each way in order with nothing lost or extra;
 *   - the same with the topics swapped;
 *   - thousands of malformed datagrams at B while A's client sends to B's:
 *     B's counters show them by reason and the reader sees exactly the
 *     1,000 samples;
 *   - real-node interop: the datagrams of the `basic` capture (a real sDDS
 *     publisher, fe80::c0ef:62ff:fed4:d26a) replayed from that address at B:
 *     B's local reader receives device 0xD26A, value 21, once per frame.
 *
 * Daemon A runs in blocking mode, daemon B in polling mode.
 *
 * The namespaces, the veth pair and the files are created here and removed
 * at the end, also when a check fails or the test is killed (SIGTERM from
 * meson's timeout). DAD is off in the namespaces and the addresses are
 * added `nodad`, so no waiting for it. Skips (77) when not root or when
 * `ip netns add` fails.
 *
 * argv: sddsd, sddsctl, net_helper, the capture directory (tests/snps/data).
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

static const char *sddsd_bin, *sddsctl_bin, *helper_bin, *capture_dir;
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

static int write_node(const char *name, const char *me, const char *iface, const char *peer)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "<project name=\"%s\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"%s\" "
		 "iface=\"%s\" "
		 "port=\"23234\">\n"
		 "  <include filename=\"topics.xml\"/>\n"
		 "  <role topic=\"temperature\" type=\"publisher\"/>\n"
		 "  <role topic=\"counter\" type=\"subscriber\"/>\n"
		 "  <subscription topic=\"temperature\"><subscriber ip=\"%s\"/></subscription>\n"
		 "  <subscription topic=\"counter\"><subscriber ip=\"%s%%%s\"/></subscription>\n"
		 "</project>\n",
		 name, me, iface, peer, peer, iface);
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
	snprintf(ns_a, sizeof(ns_a), "sddsA%d", p);
	snprintf(ns_b, sizeof(ns_b), "sddsB%d", p);
	snprintf(dir, sizeof(dir), "/tmp/sddsnet.XXXXXX");
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
	if (run("ip link add va%d type veth peer name vb%d", p, p) != 0 ||
	    run("ip link set va%d netns %s && ip link set vb%d netns %s", p, ns_a, p, ns_b) != 0 ||
	    run("ip -n %s link set va%d name vna && ip -n %s link set vb%d name vnb", ns_a, p, ns_b, p) != 0)
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
	/* The address of the real publisher of the `basic` capture, for the replay. */
	if (run("ip -n %s addr add fe80::c0ef:62ff:fed4:d26a/64 dev vna nodad", ns_a) != 0)
		return -1;
	if (write_file("topics.xml", topics_xml) < 0 || write_node("a", "fe80::a", "vna", "fe80::b") < 0 ||
	    write_node("b", "fe80::b", "vnb", "fe80::a") < 0)
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

static void exchange(const char *a_to_b, const char *b_to_a)
{
	char sa[128], sb[128];
	pid_t rb, ra, wa, wb;

	sock_of("a", sa, sizeof(sa));
	sock_of("b", sb, sizeof(sb));
	rb = helper(ns_b, true, "read", sb, a_to_b, "1000", "5000", NULL);
	ra = helper(ns_a, true, "read", sa, b_to_a, "1000", "5000", NULL);
	assert_true(rb > 0 && ra > 0);
	wa = helper(ns_a, false, "write", sa, a_to_b, "1000", NULL, NULL);
	wb = helper(ns_b, false, "write", sb, b_to_a, "1000", NULL, NULL);
	assert_int_equal(wait_ok(wa), 0);
	assert_int_equal(wait_ok(wb), 0);
	assert_int_equal(wait_ok(rb), 0);
	assert_int_equal(wait_ok(ra), 0);
}

static void test_both_directions(void **state)
{
	(void)state;
	exchange("temperature", "counter");
}

static void test_both_directions_swapped_topics(void **state)
{
	(void)state;
	exchange("counter", "temperature");
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

static void test_garbage_while_exchanging(void **state)
{
	static const char *const reasons[] = {
	    "short_header", "bad_version",   "count_high",  "count_low",    "truncated",  "unknown_ext",
	    "no_topic",	    "unknown_topic", "bad_address", "ack_no_seqnr", "bad_secure", "oversized",
	};
	static char before[65536], after[65536];
	char sa[128], sb[128];
	uint64_t mal_before, mal_after;
	pid_t rb, wa, g;
	int rc;

	(void)state;
	sock_of("a", sa, sizeof(sa));
	sock_of("b", sb, sizeof(sb));
	assert_int_equal(ctl_json(ns_b, "b", "net", before, sizeof(before)), 0);
	mal_before = json_u64(before, "malformed");
	rb = helper(ns_b, true, "read", sb, "temperature", "1000", "5000", NULL);
	assert_true(rb > 0);
	g = helper(ns_a, false, "garbage", "fe80::b", "vna", "5600", NULL, NULL);
	wa = helper(ns_a, false, "write", sa, "temperature", "1000", NULL, NULL);
	assert_int_equal(wait_ok(g), 0);
	assert_int_equal(wait_ok(wa), 0);
	rc = wait_ok(rb);
	assert_int_equal(ctl_json(ns_b, "b", "net", after, sizeof(after)), 0);
	if (rc != 0)
		fail_msg("the reader in B failed (%d); B's counters:\n%s", rc, after);
	mal_after = json_u64(after, "malformed");
	/* 14 kinds cycle: 12 malformed, 1 oversized among them, 1 wrong domain, 1 random. */
	if (mal_after - mal_before < 4400)
		fail_msg("malformed went from %llu to %llu, want +4400 or more:\n%s",
			 (unsigned long long)mal_before, (unsigned long long)mal_after, after);
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		char k[64];

		snprintf(k, sizeof(k), "\"%s\": ", reasons[i]);
		if (strstr(after, k) == NULL)
			fail_msg("no count for %s in:\n%s", reasons[i], after);
	}
	assert_non_null(strstr(after, "\"domain_mismatch\": "));
	/* The peers view shows A with its malformed datagrams. */
	assert_int_equal(ctl_json(ns_b, "b", "peers", after, sizeof(after)), 0);
	assert_non_null(strstr(after, "\"address\": \"fe80::a\""));
	assert_true(json_u64(strstr(after, "\"address\": \"fe80::a\""), "samples_in") >= 1000);
}

static void test_replay_real_node(void **state)
{
	char sb[128], tsv[512], line[4096];
	unsigned frames = 0;
	pid_t rb, rp;
	FILE *f;

	(void)state;
	snprintf(tsv, sizeof(tsv), "%s/basic.frames.tsv", capture_dir);
	f = fopen(tsv, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (line[0] >= '0' && line[0] <= '9')
			frames++;
	}
	fclose(f);
	assert_true(frames > 0);
	sock_of("b", sb, sizeof(sb));
	snprintf(line, sizeof(line), "%u", frames);
	rb = helper(ns_b, true, "expect", sb, "0xd26a", "21", line, "5000");
	assert_true(rb > 0);
	rp = helper(ns_a, false, "replay", "fe80::c0ef:62ff:fed4:d26a", "fe80::b", "vna", tsv, NULL);
	assert_int_equal(wait_ok(rp), 0);
	assert_int_equal(wait_ok(rb), 0);
}

/*
 * The discovery capture: a real publisher (d26a) multicasting from port
 * 23254: Participants to ff02::20, Publications to ff02::30 (builtin topics:
 * not in B's table, dropped as unknown_topic) and temperature samples to
 * ff02::10, which B's local reader must get, one per frame.
 */
static void test_replay_multicast(void **state)
{
	static char before[65536], after[65536];
	char sb[128], tsv[512], line[4096], n[16];
	unsigned data_frames = 0, builtin_frames = 0;
	pid_t rb, rp;
	FILE *f;

	(void)state;
	snprintf(tsv, sizeof(tsv), "%s/discovery.frames.tsv", capture_dir);
	f = fopen(tsv, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char num[32], when[32], src[64], sport[16], dst[64];

		/* number, time, source, source port, destination: only the publisher's frames. */
		if (sscanf(line, "%31s %31s %63s %15s %63s", num, when, src, sport, dst) != 5 ||
		    strcmp(src, "fe80::c0ef:62ff:fed4:d26a") != 0)
			continue;
		if (strcmp(dst, "ff02::10") == 0)
			data_frames++;
		else
			builtin_frames++;
	}
	fclose(f);
	assert_true(data_frames > 0);
	assert_int_equal(ctl_json(ns_b, "b", "net", before, sizeof(before)), 0);
	sock_of("b", sb, sizeof(sb));
	snprintf(n, sizeof(n), "%u", data_frames);
	rb = helper(ns_b, true, "expect", sb, "0xd26a", "21", n, "5000");
	assert_true(rb > 0);
	rp = helper(ns_a, false, "replay-as", "fe80::c0ef:62ff:fed4:d26a", "vna", tsv, NULL, NULL);
	assert_int_equal(wait_ok(rp), 0);
	assert_int_equal(wait_ok(rb), 0);
	assert_int_equal(ctl_json(ns_b, "b", "net", after, sizeof(after)), 0);
	assert_int_equal(json_u64(after, "unknown_topic") - json_u64(before, "unknown_topic"),
			 builtin_frames);
}

/* A local client cannot register a node-config topic with another layout. */
static void test_layout_mismatch_refused(void **state)
{
	char sa[128];

	(void)state;
	sock_of("a", sa, sizeof(sa));
	assert_int_equal(wait_ok(helper(ns_a, false, "mismatch", sa, NULL, NULL, NULL, NULL)), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_both_directions),
	    cmocka_unit_test(test_both_directions_swapped_topics),
	    cmocka_unit_test(test_garbage_while_exchanging),
	    cmocka_unit_test(test_replay_real_node),
	    cmocka_unit_test(test_replay_multicast),
	    cmocka_unit_test(test_layout_mismatch_refused),
	};
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: test_netns SDDSD SDDSCTL NET_HELPER CAPTURE_DIR\n");
		return 2;
	}
	sddsd_bin = argv[1];
	sddsctl_bin = argv[2];
	helper_bin = argv[3];
	capture_dir = argv[4];
	if (geteuid() != 0) {
		fprintf(stderr, "test_netns: not root: skipped\n");
		return 77;
	}
	snprintf(ns_a, sizeof(ns_a), "sddsP%d", (int)getpid());
	if (run("ip netns add %s 2>/dev/null", ns_a) != 0) {
		fprintf(stderr, "test_netns: ip netns add fails: skipped\n");
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
