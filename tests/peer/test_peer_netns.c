/* SPDX-License-Identifier: MIT */
/*
 * test_peer_netns.c - two sdds-peers through two daemons in two network
 * namespaces joined by a veth pair (as tests/net/test_netns.c): the pinger
 * in A publishes Beta, whose static subscription points at B; the echo side
 * in B takes Beta and writes Alpha, whose subscription points back at A.
 * Both node configs include sdds-peer's own topics.xml. The pinger must see
 * every echo and print the statistics; a periodic run too.
 *
 * Skips (77) when not root or when `ip netns add` fails. The namespaces,
 * the veth pair and the files are removed at the end, also on SIGTERM.
 *
 * argv: sddsd, sdds-peer, topics.xml.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peerrun.h"

static const char *sddsd_bin, *peer_bin, *topics_xml;
static char ns_a[32], ns_b[32], dir[64], sock_a[128], sock_b[128];
static pid_t daemon_a = -1, daemon_b = -1;
static bool made_a, made_b;
static char out[65536];

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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
	peerrun_wait(*pid, 2000);
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

/* Node config and daemon config of one side: `out_topic` goes to the peer. */
static int write_side(const char *name, const char *me, const char *iface, const char *peer,
		      const char *out_topic, const char *in_topic)
{
	char path[128], text[2048];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.xml", dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fprintf(f,
		"<project name=\"%s\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"%s\" "
		"iface=\"%s\" "
		"port=\"23234\">\n"
		"  <include filename=\"%s\"/>\n"
		"  <role topic=\"%s\" type=\"publisher\"/>\n"
		"  <role topic=\"%s\" type=\"subscriber\"/>\n"
		"  <subscription topic=\"%s\"><subscriber ip=\"%s\"/></subscription>\n"
		"</project>\n",
		name, me, iface, topics_xml, out_topic, in_topic, out_topic, peer);
	if (fclose(f) != 0)
		return -1;
	snprintf(text, sizeof(text), "socket = %s/%s.sock\nnode_config = %s/%s.xml\nlog_level = notice\n",
		 dir, name, dir, name);
	snprintf(path, sizeof(path), "%s/%s.conf", dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static pid_t start_daemon(const char *ns, const char *name, const char *sock)
{
	char conf[128], log[128];
	pid_t pid;

	snprintf(conf, sizeof(conf), "%s/%s.conf", dir, name);
	snprintf(log, sizeof(log), "%s/%s.log", dir, name);
	pid = peerrun_start(ns, log, (char *[]){(char *)sddsd_bin, (char *)"-c", conf, NULL});
	for (int i = 0; i < 500 && pid > 0; i++) {
		if (access(sock, F_OK) == 0)
			return pid;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(10000);
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return -1;
}

static int group_setup(void **state)
{
	int p = (int)getpid();

	(void)state;
	snprintf(ns_a, sizeof(ns_a), "sdpA%d", p);
	snprintf(ns_b, sizeof(ns_b), "sdpB%d", p);
	snprintf(dir, sizeof(dir), "/tmp/sddspeerns.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		dir[0] = '\0';
		return -1;
	}
	if (run("ip netns add %s", ns_a) != 0)
		return -1;
	made_a = true;
	if (run("ip netns add %s", ns_b) != 0)
		return -1;
	made_b = true;
	if (run("ip link add pa%d type veth peer name pb%d", p, p) != 0 ||
	    run("ip link set pa%d netns %s && ip link set pb%d netns %s", p, ns_a, p, ns_b) != 0 ||
	    run("ip -n %s link set pa%d name vpa && ip -n %s link set pb%d name vpb", ns_a, p, ns_b, p) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		const char *ns = i == 0 ? ns_a : ns_b;
		const char *dev = i == 0 ? "vpa" : "vpb";
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
	/* The pinger in A sends Beta to B; the echo side in B sends Alpha to A. */
	if (write_side("a", "fe80::a", "vpa", "fe80::b", "Beta", "Alpha") < 0 ||
	    write_side("b", "fe80::b", "vpb", "fe80::a", "Alpha", "Beta") < 0)
		return -1;
	snprintf(sock_a, sizeof(sock_a), "%s/a.sock", dir);
	snprintf(sock_b, sizeof(sock_b), "%s/b.sock", dir);
	daemon_a = start_daemon(ns_a, "a", sock_a);
	daemon_b = start_daemon(ns_b, "b", sock_b);
	return daemon_a > 0 && daemon_b > 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	cleanup();
	return 0;
}

static void pair(const char *count, const char *period)
{
	char eo[128], po[128], want[128];
	pid_t e, p;
	int rp, re;

	snprintf(eo, sizeof(eo), "%s/echo.out", dir);
	snprintf(po, sizeof(po), "%s/ping.out", dir);
	e = peerrun_start(ns_b, eo,
			  (char *[]){(char *)peer_bin, (char *)"--echo", (char *)"-s", sock_b, (char *)"-n",
				     (char *)count, (char *)"-q", NULL});
	assert_true(e > 0);
	if (!peerrun_wait_line(eo, "ready:", 5000)) {
		peerrun_slurp(eo, out, sizeof(out));
		fail_msg("the echo side is not ready:\n%s", out);
	}
	p = peerrun_start(ns_a, po,
			  (char *[]){(char *)peer_bin, (char *)"-s", sock_a, (char *)"-n", (char *)count,
				     (char *)"-p", (char *)period, NULL});
	assert_true(p > 0);
	rp = peerrun_wait(p, 60000);
	re = peerrun_wait(e, 10000);
	peerrun_slurp(po, out, sizeof(out));
	if (rp != 0 || re != 0)
		fail_msg("pinger %d, echo %d; pinger said:\n%.4000s", rp, re, out);
	snprintf(want, sizeof(want), "sent %s Beta, received %s echoes on Alpha, 0 other samples\n", count,
		 count);
	if (strstr(out, want) == NULL)
		fail_msg("want \"%s\" in:\n%.4000s", want, out);
	snprintf(want, sizeof(want), "rtt: count %s lost 0 min ", count);
	if (strstr(out, want) == NULL || strstr(out, " median ") == NULL || strstr(out, " p99 ") == NULL ||
	    strstr(out, " max ") == NULL)
		fail_msg("no statistics line \"%s...\" in:\n%.4000s", want, out);
	if (strstr(out, "recv Alpha counter=") == NULL)
		fail_msg("no received sample printed:\n%.4000s", out);
	peerrun_slurp(eo, out, sizeof(out));
	snprintf(want, sizeof(want), "echoed %s samples of Beta on Alpha", count);
	if (strstr(out, want) == NULL)
		fail_msg("want \"%s\" in:\n%.4000s", want, out);
}

static void test_ping_pong(void **state)
{
	(void)state;
	pair("1000", "0");
}

static void test_periodic(void **state)
{
	(void)state;
	pair("200", "5");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ping_pong),
	    cmocka_unit_test(test_periodic),
	};
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: test_peer_netns SDDSD SDDS_PEER TOPICS_XML\n");
		return 2;
	}
	sddsd_bin = argv[1];
	peer_bin = argv[2];
	topics_xml = argv[3];
	if (geteuid() != 0) {
		fprintf(stderr, "test_peer_netns: not root: skipped\n");
		return 77;
	}
	snprintf(ns_a, sizeof(ns_a), "sdpP%d", (int)getpid());
	if (run("ip netns add %s 2>/dev/null", ns_a) != 0) {
		fprintf(stderr, "test_peer_netns: ip netns add fails: skipped\n");
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
