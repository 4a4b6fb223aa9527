/* SPDX-License-Identifier: MIT */
/*
 * test_netns_mono.c - monolithic mode's network side
 * (client-lib/mono/mononet.c) on the wire. A monolithic application
 * (tests/net/net_helper_mono `exchange`
 * with SOCKET "mono:CONFIG": the broker core and sddsd's network layer in
 * its own process, no daemon) in namespace A exchanges 1,000 samples each
 * way, exact and in order, as a reliable reader with 256 slots (so the
 * layer's backlog and the reader's kick are exercised while the
 * application is still writing):
 *   - with an isolated client of sddsd in namespace B (mono <-> daemon);
 *   - with a monolithic application in B (mono <-> mono), A blocking in
 *     epoll, B polling.
 *
 * The namespaces, the veth pair and the files are the shared fixture
 * (tests/common/netns_harness.h). Skips (77) when not root or when
 * `ip netns add` fails. argv: sddsd, net_helper, net_helper_mono.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netns_harness.h"

static const char *sddsd_bin, *helper_bin, *mono_helper_bin;

#define A 0
#define B 1

/* Side publishes `out` to peer and subscribes to `in`. */
static int write_side(int side, const char *me, const char *peer, const char *out, const char *in, bool poll)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "<project name=\"mono%d\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"%s\" "
		 "iface=\"%s\" port=\"23234\">\n"
		 "  <include filename=\"topics.xml\"/>\n"
		 "  <role topic=\"%s\" type=\"publisher\"/>\n"
		 "  <role topic=\"%s\" type=\"subscriber\"/>\n"
		 "  <subscription topic=\"%s\"><subscriber ip=\"%s\"/></subscription>\n"
		 "</project>\n",
		 side, me, netns.dev[side], out, in, out, peer);
	return netns_write_configs(side, text, poll ? "poll = true\n" : "poll = false\n");
}

static int group_setup(void **state)
{
	(void)state;
	if (netns_pair_setup("mono", "vna", "vnb") < 0)
		return -1;
	if (netns_write_topics(NULL, NULL) < 0 ||
	    write_side(A, "fe80::a", "fe80::b", "temperature", "counter", false) < 0 ||
	    write_side(B, "fe80::b", "fe80::a", "counter", "temperature", true) < 0)
		return -1;
	return 0;
}

static void test_mono_with_daemon(void **state)
{
	char sock_b[128], conf_a[160], mono_a[170], go[128];
	pid_t rb, ma, wb;

	(void)state;
	netns_path("b.sock", sock_b, sizeof(sock_b));
	netns_path("a.conf", conf_a, sizeof(conf_a));
	netns_path("go1", go, sizeof(go));
	snprintf(mono_a, sizeof(mono_a), "mono:%s", conf_a);
	assert_int_equal(netns_daemon_start(B, sddsd_bin, NULL), 0);
	rb = netns_helper(B, true, helper_bin, "read", sock_b, "temperature", "1000", "5000", NULL);
	assert_true(rb > 0);
	ma = netns_helper(A, true, mono_helper_bin, "exchange", mono_a, "temperature", "counter", "1000",
			  "5000", go, NULL);
	assert_true(ma > 0);
	wb = netns_helper(B, false, helper_bin, "write", sock_b, "counter", "1000", NULL);
	assert_true(wb > 0);
	assert_int_equal(netns_write("go1", ""), 0);
	assert_int_equal(netns_wait(wb), 0);
	assert_int_equal(netns_wait(ma), 0);
	assert_int_equal(netns_wait(rb), 0);
	netns_daemon_stop(B);
}

static void test_mono_with_mono(void **state)
{
	char conf_a[160], conf_b[160], mono_a[170], mono_b[170], go[128];
	pid_t ma, mb;

	(void)state;
	netns_path("a.conf", conf_a, sizeof(conf_a));
	netns_path("b.conf", conf_b, sizeof(conf_b));
	netns_path("go2", go, sizeof(go));
	snprintf(mono_a, sizeof(mono_a), "mono:%s", conf_a);
	snprintf(mono_b, sizeof(mono_b), "mono:%s", conf_b);
	ma = netns_helper(A, true, mono_helper_bin, "exchange", mono_a, "temperature", "counter", "1000",
			  "5000", go, NULL);
	mb = netns_helper(B, true, mono_helper_bin, "exchange", mono_b, "counter", "temperature", "1000",
			  "5000", go, NULL);
	assert_true(ma > 0 && mb > 0);
	assert_int_equal(netns_write("go2", ""), 0);
	assert_int_equal(netns_wait(ma), 0);
	assert_int_equal(netns_wait(mb), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mono_with_daemon),
	    cmocka_unit_test(test_mono_with_mono),
	};
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: test_netns_mono SDDSD NET_HELPER NET_HELPER_MONO\n");
		return 2;
	}
	sddsd_bin = argv[1];
	helper_bin = argv[2];
	mono_helper_bin = argv[3];
	rc = netns_available("test_netns_mono");
	if (rc != 0)
		return rc;
	return cmocka_run_group_tests(tests, group_setup, netns_group_teardown);
}
