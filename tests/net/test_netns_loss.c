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

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netns_harness.h"

static const char *sddsd_bin, *sddsctl_bin, *helper_bin;

#define A 0
#define B 1

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
	/* B polls, A sleeps in epoll: the end-of-turn flush is exercised in both loop modes. */
	return netns_write_configs(strcmp(name, "b") == 0 ? 1 : 0, text,
				   strcmp(name, "b") == 0 ? "poll = true\n" : "poll = false\n");
}

static int group_setup(void **state)
{
	(void)state;
	if (netns_pair_setup("loss", "vna", "vnb") < 0)
		return -1;
	if (netns_write_topics(NETNS_QOS_RELIABLE("basic", "ack"), NULL) < 0 ||
	    write_node("a", "fe80::a", "vna", true) < 0 || write_node("b", "fe80::b", "vnb", false) < 0)
		return -1;
	if (netns_daemons_start(sddsd_bin) < 0)
		return -1;
	return 0;
}

static void test_reliable_under_loss(void **state)
{
	static char buf[65536];
	char sa[128], sb[128];
	pid_t rb, wa;

	(void)state;
	if (!netns_drop(A, 23234, 20) || !netns_drop(B, 23234, 20)) {
		/* The one thing this test needs beyond test_netns: the whole program is skipped. */
		fprintf(stderr, "test_netns_loss: nft unusable: skipped\n");
		exit(77);
	}
	netns_path("a.sock", sa, sizeof(sa));
	netns_path("b.sock", sb, sizeof(sb));
	rb = netns_helper(B, true, helper_bin, "read", sb, "temperature", "1000", "60000", NULL);
	assert_true(rb > 0);
	wa = netns_helper(A, false, helper_bin, "write", sa, "temperature", "1000", NULL);
	assert_int_equal(netns_wait(wa), 0);
	if (netns_wait(rb) != 0) {
		netns_ctl_json(A, sddsctl_bin, "net", buf, sizeof(buf));
		fail_msg("B's reader did not get the 1,000 samples in order; A's counters:\n%s", buf);
	}
	assert_int_equal(netns_ctl_json(A, sddsctl_bin, "net", buf, sizeof(buf)), 0);
	if (netns_json_u64(buf, "resent") == 0 || netns_json_u64(buf, "acks_in") < 1000)
		fail_msg("no resends or too few ACKs at A:\n%s", buf);
	fprintf(stderr, "A: resent %llu, acks_in %llu\n", (unsigned long long)netns_json_u64(buf, "resent"),
		(unsigned long long)netns_json_u64(buf, "acks_in"));
	assert_int_equal(netns_ctl_json(B, sddsctl_bin, "net", buf, sizeof(buf)), 0);
	if (netns_json_u64(buf, "acks_out") < 1000)
		fail_msg("too few ACKs from B:\n%s", buf);
	fprintf(stderr, "B: acks_out %llu, seq_dropped %llu, seq_resync %llu\n",
		(unsigned long long)netns_json_u64(buf, "acks_out"),
		(unsigned long long)netns_json_u64(buf, "seq_dropped"),
		(unsigned long long)netns_json_u64(buf, "seq_resync"));
	if (netns_json_u64(buf, "seq_resync") != 0)
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
	rc = netns_available_nft("test_netns_loss");
	if (rc != 0)
		return rc;
	rc = cmocka_run_group_tests(tests, group_setup, netns_group_teardown);
	netns_cleanup();
	return rc;
}
