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
 * the veth pair and the files (tests/common/netns_harness.h) are removed at
 * the end, also on SIGTERM.
 *
 * argv: sddsd, sdds-peer, topics.xml.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netns_harness.h"
#include "peerrun.h"

static const char *sddsd_bin, *peer_bin, *topics_xml;
static char sock_a[128], sock_b[128];
static char out[65536];

#define A 0
#define B 1

/* Node config and daemon config of one side: `out_topic` goes to the peer. */
static int write_side(int side, const char *name, const char *me, const char *iface, const char *peer,
		      const char *out_topic, const char *in_topic)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "<project name=\"%s\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"%s\" "
		 "iface=\"%s\" "
		 "port=\"23234\">\n"
		 "  <include filename=\"%s\"/>\n"
		 "  <role topic=\"%s\" type=\"publisher\"/>\n"
		 "  <role topic=\"%s\" type=\"subscriber\"/>\n"
		 "  <subscription topic=\"%s\"><subscriber ip=\"%s\"/></subscription>\n"
		 "</project>\n",
		 name, me, iface, topics_xml, out_topic, in_topic, out_topic, peer);
	return netns_write_configs(side, text, NULL);
}

static int group_setup(void **state)
{
	(void)state;
	if (netns_pair_setup("peer", "vpa", "vpb") < 0)
		return -1;
	/* The pinger in A sends Beta to B; the echo side in B sends Alpha to A. */
	if (write_side(A, "a", "fe80::a", "vpa", "fe80::b", "Beta", "Alpha") < 0 ||
	    write_side(B, "b", "fe80::b", "vpb", "fe80::a", "Alpha", "Beta") < 0)
		return -1;
	netns_path("a.sock", sock_a, sizeof(sock_a));
	netns_path("b.sock", sock_b, sizeof(sock_b));
	if (netns_daemon_start(A, sddsd_bin, "a.log") < 0 || netns_daemon_start(B, sddsd_bin, "b.log") < 0)
		return -1;
	return 0;
}

static void pair(const char *count, const char *period)
{
	char eo[128], po[128], want[128];
	pid_t e, p;
	int rp, re;

	netns_path("echo.out", eo, sizeof(eo));
	netns_path("ping.out", po, sizeof(po));
	e = peerrun_start(netns.ns[B], eo,
			  (char *[]){(char *)peer_bin, (char *)"--echo", (char *)"-s", sock_b, (char *)"-n",
				     (char *)count, (char *)"-q", NULL});
	assert_true(e > 0);
	if (!peerrun_wait_line(eo, "ready:", 5000)) {
		peerrun_slurp(eo, out, sizeof(out));
		fail_msg("the echo side is not ready:\n%s", out);
	}
	p = peerrun_start(netns.ns[A], po,
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
	rc = netns_available("test_peer_netns");
	if (rc != 0)
		return rc;
	rc = cmocka_run_group_tests(tests, group_setup, netns_group_teardown);
	netns_cleanup();
	return rc;
}
