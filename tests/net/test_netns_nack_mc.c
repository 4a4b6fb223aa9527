/* SPDX-License-Identifier: MIT */
/*
 * test_netns_nack_mc.c - reliable multicast: a NACK-reliable topic
 * (snps-wire.md §11.3, 16-bit numbers) between two sddsd daemons in
 * discovery mode (§10), so A sends temperature to the group B's
 * Subscription names (ff02::10, port 23254) and B NACKs A by unicast. With
 * 20% of the datagrams to ports 23234 and 23254 dropped at random on input
 * in both namespaces (nftables), 1,000 samples written in A arrive in B's
 * reliable reader exactly once each and in order; B recovered gaps by
 * NACK and gave none up. The fixture is tests/common/netns_harness.h.
 * Skips (77) when not root, when `ip netns add` fails or when nft is
 * unusable.
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

static const char topics_xml[] =
    "<domain id=\"1\">\n"
    "  <topic name=\"temperature\" domain=\"1\" id=\"A\">\n"
    "    <attribute name=\"device\" type=\"DDS_unsigned_short\" key=\"secondary\"/>\n"
    "    <attribute name=\"value\" type=\"DDS_short\"/>\n"
    "    <config type=\"qos_reliability\" reliabilitySeqnrSize=\"big\" kind=\"reliable\" "
    "confirmationtype=\"nack\" max_blocking_time=\"100\"/>\n"
    "  </topic>\n"
    "</domain>\n";

static int write_node(int side)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "<project name=\"%s\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"%s\" "
		 "iface=\"%s\" port=\"23234\">\n"
		 "  <include filename=\"topics.xml\"/>\n"
		 "  <role topic=\"temperature\" type=\"%s\"/>\n"
		 "</project>\n",
		 side == A ? "a" : "b", side == A ? "fe80::a" : "fe80::b", side == A ? "vna" : "vnb",
		 side == A ? "publisher" : "subscriber");
	return netns_write_configs(side, text,
				   "discovery = on\ndiscovery_participant_ms = 200\n"
				   "discovery_publication_ms = 1000\ndiscovery_expire_ms = 5000\n");
}

static int group_setup(void **state)
{
	(void)state;
	if (netns_pair_setup("nackmc", "vna", "vnb") < 0)
		return -1;
	if (netns_write("topics.xml", topics_xml) < 0 || write_node(A) < 0 || write_node(B) < 0)
		return -1;
	if (netns_daemons_start(sddsd_bin) < 0)
		return -1;
	return 0;
}

static void test_reliable_multicast_under_loss(void **state)
{
	static char buf[65536];
	char sa[128], sb[128];
	int64_t end = netns_now_ms() + 10000;
	pid_t rb, wa;

	(void)state;
	/* A sends temperature to the group once it learnt B's Subscription. */
	while (netns_ctl_json(A, sddsctl_bin, "peers", buf, sizeof(buf)) != 0 ||
	       !netns_json_has(buf, "address", "ff02::10")) {
		if (netns_now_ms() > end)
			fail_msg("A did not learn B's subscription:\n%s", buf);
		usleep(50000);
	}
	if (!netns_drop(A, 23234, 20) || !netns_drop(B, 23234, 20) || !netns_drop(A, 23254, 20) ||
	    !netns_drop(B, 23254, 20)) {
		fprintf(stderr, "test_netns_nack_mc: nft unusable: skipped\n");
		exit(77);
	}
	netns_path("a.sock", sa, sizeof(sa));
	netns_path("b.sock", sb, sizeof(sb));
	rb = netns_helper(B, true, helper_bin, "read", sb, "temperature", "1000", "20000", NULL);
	assert_true(rb > 0);
	wa = netns_helper(A, false, helper_bin, "write", sa, "temperature", "1000", NULL);
	assert_int_equal(netns_wait(wa), 0);
	if (netns_wait(rb) != 0) {
		netns_ctl_json(A, sddsctl_bin, "net", buf, sizeof(buf));
		fprintf(stderr, "A: %s\n", buf);
		netns_ctl_json(B, sddsctl_bin, "net", buf, sizeof(buf));
		fail_msg("B's reader did not get the 1,000 samples in order; B: %s", buf);
	}
	fprintf(stderr,
		"multicast, 1000 samples, 20%% loss both ways: A sent %llu datagrams, dropped at B %llu "
		"(port 23254) + %llu (23234), at A %llu + %llu; B nacks_out %llu, gaps_recovered %llu, "
		"gaps_given_up %llu; A nacks_in %llu, nack_resent %llu, heartbeats %llu\n",
		(unsigned long long)netns_net_counter(A, sddsctl_bin, "frames_out"),
		(unsigned long long)netns_dropped(B, 23254), (unsigned long long)netns_dropped(B, 23234),
		(unsigned long long)netns_dropped(A, 23254), (unsigned long long)netns_dropped(A, 23234),
		(unsigned long long)netns_net_counter(B, sddsctl_bin, "nacks_out"),
		(unsigned long long)netns_net_counter(B, sddsctl_bin, "gaps_recovered"),
		(unsigned long long)netns_net_counter(B, sddsctl_bin, "gaps_given_up"),
		(unsigned long long)netns_net_counter(A, sddsctl_bin, "nacks_in"),
		(unsigned long long)netns_net_counter(A, sddsctl_bin, "nack_resent"),
		(unsigned long long)netns_net_counter(A, sddsctl_bin, "nack_heartbeats"));
	assert_true(netns_net_counter(B, sddsctl_bin, "gaps_recovered") > 0);
	assert_true(netns_net_counter(A, sddsctl_bin, "nack_resent") > 0);
	assert_int_equal(netns_net_counter(B, sddsctl_bin, "gaps_given_up"), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reliable_multicast_under_loss),
	};
	int rc;

	if (argc < 4) {
		fprintf(stderr, "usage: %s SDDSD SDDSCTL NET_HELPER\n", argv[0]);
		return 2;
	}
	sddsd_bin = argv[1];
	sddsctl_bin = argv[2];
	helper_bin = argv[3];
	rc = netns_available_nft("test_netns_nack_mc");
	if (rc != 0)
		return rc;
	rc = cmocka_run_group_tests(tests, group_setup, netns_group_teardown);
	netns_cleanup();
	return rc;
}
