/* SPDX-License-Identifier: MIT */
/*
 * test_netns_realnode.c - sddsd in namespace A publishing to a model of a
 * real sDDS node's receiver in namespace B (tests/net/realnode.c: the
 * callback once per frame takes one sample; the history replaces a queued
 * sample of the same key), through a static subscription, as issue 10
 * found with the reference implementation's sub_listener:
 *   - an application writes two instances back to back (device 1 and 2)
 *     every 20 ms: the node takes all 20 samples of 10 pairs;
 *   - a burst of 200 samples of one instance: the node takes all 200;
 *   - in discovery mode (no static subscription; the model announces
 *     itself and answers A's Publications as the examples' subscriber
 *     does, so A sends to ff02::10): the same 20 of 20, one sample per
 *     frame, while the model also gets A's Participant frames, which end
 *     with the STATUS that tells another sddsd to pack (the model skips it,
 *     as real nodes do);
 *   - with B marked peer_pack (as another sddsd would be), the same pairs
 *     are packed two to a frame and the model loses samples: the check
 *     that the model sees what a real node would (it fails on a daemon
 *     that packs toward real nodes, as 5bb155e did).
 *
 * The namespaces, the veth pair and the files are the shared fixture
 * (tests/common/netns_harness.h); only daemon A runs. Skips (77) when not
 * root or when `ip netns add` fails. argv: sddsd, sddsctl, net_helper,
 * realnode.
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

static const char *sddsd_bin, *sddsctl_bin, *helper_bin, *realnode_bin;

#define A 0
#define B 1

static int write_a(bool pack)
{
	static const char node[] =
	    "<project name=\"a\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"fe80::a\" "
	    "iface=\"vna\" port=\"23234\">\n"
	    "  <include filename=\"topics.xml\"/>\n"
	    "  <role topic=\"temperature\" type=\"publisher\"/>\n"
	    "  <subscription topic=\"temperature\"><subscriber ip=\"fe80::b\"/></subscription>\n"
	    "</project>\n";

	return netns_write_configs(A, node, pack ? "peer_pack = fe80::b\n" : NULL);
}

static int group_setup(void **state)
{
	(void)state;
	if (netns_pair_setup("rn", "vna", "vnb") < 0)
		return -1;
	if (netns_write_topics(NULL, NULL) < 0 || write_a(false) < 0)
		return -1;
	return netns_daemon_start(A, sddsd_bin, NULL);
}

/* A in discovery mode, publishing temperature, no static subscription. */
static int write_a_discovery(void)
{
	static const char node[] =
	    "<project name=\"a\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"fe80::a\" "
	    "iface=\"vna\" port=\"23234\">\n"
	    "  <include filename=\"topics.xml\"/>\n"
	    "  <role topic=\"temperature\" type=\"publisher\"/>\n"
	    "</project>\n";

	return netns_write_configs(A, node,
				   "discovery = on\ndiscovery_participant_ms = 200\n"
				   "discovery_publication_ms = 200\ndiscovery_expire_ms = 5000\n");
}

/* frames_out and samples_out of A toward fe80::b. */
static void a_out(uint64_t *frames, uint64_t *samples)
{
	static char buf[65536];

	assert_int_equal(netns_ctl_json(A, sddsctl_bin, "peers", buf, sizeof(buf)), 0);
	*frames = netns_json_peer_u64(buf, "fe80::b", "frames_out");
	*samples = netns_json_peer_u64(buf, "fe80::b", "samples_out");
}

/* The model in B expecting want samples; the writer in A; the model's exit status. */
static int run(const char *want, const char *mode, const char *n, const char *ms)
{
	char sa[128];
	pid_t rn, w;
	int rc;

	netns_path("a.sock", sa, sizeof(sa));
	rn = netns_helper(B, true, realnode_bin, "23234", want, "5000", NULL);
	assert_true(rn > 0);
	if (strcmp(mode, "pairs") == 0)
		w = netns_helper(A, false, helper_bin, "pairs", sa, n, ms, NULL);
	else
		w = netns_helper(A, false, helper_bin, "write", sa, "temperature", n, NULL);
	assert_int_equal(netns_wait(w), 0);
	rc = netns_wait(rn);
	return rc;
}

static void test_pairs_all_taken(void **state)
{
	uint64_t f0, s0, f1, s1;

	(void)state;
	a_out(&f0, &s0);
	assert_int_equal(run("20", "pairs", "10", "20"), 0);
	a_out(&f1, &s1);
	assert_int_equal(s1 - s0, 20);
	assert_int_equal(f1 - f0, 20);
}

static void test_burst_all_taken(void **state)
{
	uint64_t f0, s0, f1, s1;

	(void)state;
	a_out(&f0, &s0);
	assert_int_equal(run("200", "write", "200", NULL), 0);
	a_out(&f1, &s1);
	assert_int_equal(s1 - s0, 200);
	assert_int_equal(f1 - f0, 200);
}

static void test_discovery_pairs_all_taken(void **state)
{
	static char buf[65536];
	int64_t end = netns_now_ms() + 5000;
	char sa[128];
	pid_t rn, w;

	(void)state;
	netns_daemon_stop(A);
	assert_int_equal(write_a_discovery(), 0);
	assert_int_equal(netns_daemon_start(A, sddsd_bin, NULL), 0);
	/* DEPTH 20, discovery on vnb, at least one frame with a STATUS. */
	rn = netns_helper(B, true, realnode_bin, "23234", "20", "8000", "20", "vnb", "1", NULL);
	assert_true(rn > 0);
	while (netns_ctl_json(A, sddsctl_bin, "peers", buf, sizeof(buf)) != 0 ||
	       !netns_json_has(buf, "address", "ff02::10")) {
		if (netns_now_ms() > end)
			fail_msg("A did not learn the model's subscription:\n%s", buf);
		usleep(50000);
	}
	netns_path("a.sock", sa, sizeof(sa));
	w = netns_helper(A, false, helper_bin, "pairs", sa, "10", "20", NULL);
	assert_int_equal(netns_wait(w), 0);
	assert_int_equal(netns_wait(rn), 0);
	assert_int_equal(netns_ctl_json(A, sddsctl_bin, "peers", buf, sizeof(buf)), 0);
	assert_int_equal(netns_json_peer_u64(buf, "ff02::10", "samples_out"), 20);
	assert_int_equal(netns_json_peer_u64(buf, "ff02::10", "frames_out"), 20);
	/* The model announced nothing of the kind: no peer of A is taken for an sddsd. */
	if (netns_json_has(buf, "pack", "announced"))
		fail_msg("A took the model for a peer that packs:\n%s", buf);
	netns_daemon_stop(A);
	assert_int_equal(write_a(false), 0);
	assert_int_equal(netns_daemon_start(A, sddsd_bin, NULL), 0);
}

/* Packing toward the model (as toward another sddsd) loses samples there. */
static void test_packed_pairs_lost(void **state)
{
	uint64_t f0, s0, f1, s1;
	int rc;

	(void)state;
	netns_daemon_stop(A);
	assert_int_equal(write_a(true), 0);
	assert_int_equal(netns_daemon_start(A, sddsd_bin, NULL), 0);
	a_out(&f0, &s0);
	rc = run("20", "pairs", "10", "20");
	a_out(&f1, &s1);
	assert_int_equal(s1 - s0, 20);
	if (f1 - f0 >= 20)
		fail_msg("peer_pack: %llu frames for 20 samples, want fewer", (unsigned long long)(f1 - f0));
	assert_int_equal(rc, 1); /* the model took fewer than 20 */
	netns_daemon_stop(A);
	assert_int_equal(write_a(false), 0);
	assert_int_equal(netns_daemon_start(A, sddsd_bin, NULL), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pairs_all_taken),
	    cmocka_unit_test(test_burst_all_taken),
	    cmocka_unit_test(test_discovery_pairs_all_taken),
	    cmocka_unit_test(test_packed_pairs_lost),
	};
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: %s SDDSD SDDSCTL NET_HELPER REALNODE\n", argv[0]);
		return 2;
	}
	sddsd_bin = argv[1];
	sddsctl_bin = argv[2];
	helper_bin = argv[3];
	realnode_bin = argv[4];
	rc = netns_available("test_netns_realnode");
	if (rc != 0)
		return rc;
	return cmocka_run_group_tests(tests, group_setup, netns_group_teardown);
}
