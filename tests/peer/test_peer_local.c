/* SPDX-License-Identifier: MIT */
/*
 * test_peer_local.c - two sdds-peers through one private sddsd: the echo
 * side (--echo, plays the node: Beta in, Alpha out) and the pinger (Beta
 * out, Alpha in), in ping-pong and with a period; the pinger must report
 * every echo and print the round-trip statistics, the echo side its count.
 * Also: a topic file the daemon would refuse (a user topic on a builtin id)
 * is refused by sdds-peer with FILE:LINE, and another topic file with other
 * names and a larger sample works (--topics, --sub, --pub).
 *
 * argv: sddsd, sdds-peer.
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

static const char *sddsd_bin, *peer_bin;
static char dir[64], sock[128];
static pid_t daemon_pid = -1;
static char out[65536];

static void path_of(const char *name, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/%s", dir, name);
}

static int write_file(const char *name, const char *text)
{
	char p[128];
	FILE *f;

	path_of(name, p, sizeof(p));
	f = fopen(p, "w");
	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int setup(void **state)
{
	char conf[128], log[128], text[512];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sddspeer.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	path_of("d.sock", sock, sizeof(sock));
	snprintf(text, sizeof(text), "socket = %s\nlog_level = notice\n", sock);
	if (write_file("d.conf", text) < 0)
		return -1;
	path_of("d.conf", conf, sizeof(conf));
	path_of("d.log", log, sizeof(log));
	daemon_pid = peerrun_start(NULL, log, (char *[]){(char *)sddsd_bin, (char *)"-c", conf, NULL});
	for (int i = 0; i < 500; i++) {
		if (access(sock, F_OK) == 0)
			return 0;
		usleep(10000);
	}
	return -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (daemon_pid > 0) {
		kill(daemon_pid, SIGTERM);
		peerrun_wait(daemon_pid, 5000);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Run an echo side and a pinger with the extra arguments; both must succeed. */
static void pair(const char *count, const char *period, const char *topics, const char *sub, const char *pub,
		 bool quiet)
{
	char eo[128], po[128], want[128];
	char *eargs[16], *pargs[16];
	size_t ne = 0, np = 0;
	pid_t e, p;

	path_of("echo.out", eo, sizeof(eo));
	path_of("ping.out", po, sizeof(po));
	eargs[ne++] = (char *)peer_bin;
	eargs[ne++] = (char *)"--echo";
	eargs[ne++] = (char *)"-s";
	eargs[ne++] = sock;
	eargs[ne++] = (char *)"-n";
	eargs[ne++] = (char *)count;
	eargs[ne++] = (char *)"-q";
	pargs[np++] = (char *)peer_bin;
	pargs[np++] = (char *)"-s";
	pargs[np++] = sock;
	pargs[np++] = (char *)"-n";
	pargs[np++] = (char *)count;
	pargs[np++] = (char *)"-p";
	pargs[np++] = (char *)period;
	if (quiet)
		pargs[np++] = (char *)"-q";
	if (topics != NULL) {
		eargs[ne++] = (char *)"--topics";
		eargs[ne++] = (char *)topics;
		eargs[ne++] = (char *)"--sub";
		eargs[ne++] = (char *)pub;
		eargs[ne++] = (char *)"--pub";
		eargs[ne++] = (char *)sub;
		pargs[np++] = (char *)"--topics";
		pargs[np++] = (char *)topics;
		pargs[np++] = (char *)"--sub";
		pargs[np++] = (char *)sub;
		pargs[np++] = (char *)"--pub";
		pargs[np++] = (char *)pub;
	}
	eargs[ne] = NULL;
	pargs[np] = NULL;
	e = peerrun_start(NULL, eo, eargs);
	assert_true(e > 0);
	if (!peerrun_wait_line(eo, "ready:", 5000)) {
		peerrun_slurp(eo, out, sizeof(out));
		fail_msg("the echo side is not ready:\n%s", out);
	}
	p = peerrun_start(NULL, po, pargs);
	assert_true(p > 0);
	{
		int rp = peerrun_wait(p, 60000), re = peerrun_wait(e, 10000);

		peerrun_slurp(po, out, sizeof(out));
		if (rp != 0 || re != 0)
			fail_msg("pinger %d, echo %d; pinger said:\n%.4000s", rp, re, out);
	}
	snprintf(want, sizeof(want), "sent %s %s, received %s echoes on %s, 0 other samples\n", count,
		 pub ? pub : "Beta", count, sub ? sub : "Alpha");
	if (strstr(out, want) == NULL)
		fail_msg("want \"%s\" in:\n%.4000s", want, out);
	snprintf(want, sizeof(want), "rtt: count %s lost 0 min ", count);
	if (strstr(out, want) == NULL || strstr(out, " median ") == NULL || strstr(out, " p99 ") == NULL ||
	    strstr(out, " max ") == NULL)
		fail_msg("no statistics line \"%s...\" in:\n%.4000s", want, out);
	/* Without -q the pinger prints what it receives. */
	if (!quiet && strstr(out, "recv ") == NULL)
		fail_msg("no received sample printed:\n%.4000s", out);
	peerrun_slurp(eo, out, sizeof(out));
	snprintf(want, sizeof(want), "echoed %s samples of %s on %s", count, pub ? pub : "Beta",
		 sub ? sub : "Alpha");
	if (strstr(out, want) == NULL)
		fail_msg("want \"%s\" in:\n%.4000s", want, out);
}

static void test_ping_pong(void **state)
{
	(void)state;
	pair("500", "0", NULL, NULL, NULL, false);
}

static void test_periodic(void **state)
{
	(void)state;
	pair("200", "2", NULL, NULL, NULL, false);
}

/*
 * More than 65536 sends: the 16-bit counter wraps and echoes still match
 * (reliable endpoints, nothing lost).
 */
static void test_counter_wraps(void **state)
{
	(void)state;
	/* Ping-pong (period 0): a fixed 100 kHz period let an echo side starved
	 * by a loaded machine time the reliable writer out (1 s blocking). */
	pair("70000", "0", NULL, NULL, NULL, true);
}

static void test_other_topics(void **state)
{
	char path[128];

	(void)state;
	assert_int_equal(write_file("other.xml",
				    "<domain id=\"3\">\n"
				    "  <topic name=\"Ping\" domain=\"3\" id=\"C\">\n"
				    "    <attribute name=\"n\" type=\"DDS_unsigned_short\"/>\n"
				    "    <attribute name=\"pad\" type=\"DDS_unsigned_long\"/>\n"
				    "  </topic>\n"
				    "  <topic name=\"Pong\" domain=\"3\" id=\"D\">\n"
				    "    <attribute name=\"n\" type=\"DDS_unsigned_short\"/>\n"
				    "    <attribute name=\"tag\" type=\"DDS_string\" size=\"5\"/>\n"
				    "  </topic>\n"
				    "</domain>\n"),
			 0);
	path_of("other.xml", path, sizeof(path));
	pair("100", "0", path, "Pong", "Ping", false);
}

static void test_bad_topic_file(void **state)
{
	char path[128], po[128];
	pid_t p;

	(void)state;
	assert_int_equal(write_file("bad.xml",
				    "<domain id=\"1\">\n"
				    "  <topic name=\"Alpha\" domain=\"1\" id=\"3\">\n"
				    "    <attribute name=\"counter\" type=\"DDS_unsigned_short\"/>\n"
				    "  </topic>\n"
				    "  <topic name=\"Beta\" domain=\"1\" id=\"9\">\n"
				    "    <attribute name=\"counter\" type=\"DDS_unsigned_short\"/>\n"
				    "  </topic>\n"
				    "</domain>\n"),
			 0);
	path_of("bad.xml", path, sizeof(path));
	path_of("bad.out", po, sizeof(po));
	p = peerrun_start(NULL, po,
			  (char *[]){(char *)peer_bin, (char *)"-s", sock, (char *)"--topics", path, NULL});
	assert_int_equal(peerrun_wait(p, 10000), 2);
	peerrun_slurp(po, out, sizeof(out));
	if (strstr(out, "bad.xml:2") == NULL)
		fail_msg("no FILE:LINE in:\n%s", out);
	/* An unknown topic name. */
	p = peerrun_start(
	    NULL, po,
	    (char *[]){(char *)peer_bin, (char *)"-s", sock, (char *)"--sub", (char *)"Gamma", NULL});
	assert_int_equal(peerrun_wait(p, 10000), 2);
}

/* No echo: exit 1 and say so. */
static void test_no_echo(void **state)
{
	char po[128];
	pid_t p;

	(void)state;
	path_of("alone.out", po, sizeof(po));
	p = peerrun_start(NULL, po,
			  (char *[]){(char *)peer_bin, (char *)"-s", sock, (char *)"-n", (char *)"3",
				     (char *)"-p", (char *)"1", (char *)"-w", (char *)"100", NULL});
	assert_int_equal(peerrun_wait(p, 10000), 1);
	peerrun_slurp(po, out, sizeof(out));
	assert_non_null(strstr(out, "sent 3 Beta, received 0 echoes"));
	assert_non_null(strstr(out, "rtt: no echo received"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ping_pong),	   cmocka_unit_test(test_periodic),
	    cmocka_unit_test(test_counter_wraps),  cmocka_unit_test(test_other_topics),
	    cmocka_unit_test(test_bad_topic_file), cmocka_unit_test(test_no_echo),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: test_peer_local SDDSD SDDS_PEER\n");
		return 2;
	}
	sddsd_bin = argv[1];
	peer_bin = argv[2];
	return cmocka_run_group_tests(tests, setup, teardown);
}
