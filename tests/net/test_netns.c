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
 *   - every topic id 0..65535 in an extended TOPIC followed by ACKSEQ or
 *     NACKSEQ (issue 9's remote crash) at B: each counted as a bogus ACK or
 *     NACK (or a kernel queue drop), and B still carries 1,000 samples;
 *   - real-node interop: the datagrams of the `basic` capture (a real sDDS
 *     publisher, fe80::c0ef:62ff:fed4:d26a) replayed from that address at B:
 *     B's local reader receives device 0xD26A, value 21, once per frame.
 *
 * Daemon A runs in blocking mode, daemon B in polling mode.
 *
 * The namespaces, the veth pair and the files are those of the shared
 * fixture (tests/common/netns_harness.h), removed at the end, also when a
 * check fails or the test is killed (SIGTERM from meson's timeout). Skips
 * (77) when not root or when `ip netns add` fails.
 *
 * argv: sddsd, sddsctl, net_helper, the capture directory (tests/snps/data).
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

static const char *sddsd_bin, *sddsctl_bin, *helper_bin, *capture_dir;

#define A 0
#define B 1

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
	/* B polls, A sleeps in epoll: the end-of-turn flush is exercised in both loop modes. */
	return netns_write_configs(strcmp(name, "b") == 0 ? 1 : 0, text,
				   strcmp(name, "b") == 0 ? "poll = true\n" : "poll = false\n");
}

static int group_setup(void **state)
{
	(void)state;
	if (netns_pair_setup("net", "vna", "vnb") < 0)
		return -1;
	/* The address of the real publisher of the `basic` capture, for the replay. */
	if (netns_run("ip -n %s addr add fe80::c0ef:62ff:fed4:d26a/64 dev vna nodad", netns.ns[A]) != 0)
		return -1;
	if (netns_write_topics(NULL, NULL) < 0 || write_node("a", "fe80::a", "vna", "fe80::b") < 0 ||
	    write_node("b", "fe80::b", "vnb", "fe80::a") < 0)
		return -1;
	if (netns_daemons_start(sddsd_bin) < 0)
		return -1;
	return 0;
}

static void exchange(const char *a_to_b, const char *b_to_a)
{
	char sa[128], sb[128];
	pid_t rb, ra, wa, wb;

	netns_path("a.sock", sa, sizeof(sa));
	netns_path("b.sock", sb, sizeof(sb));
	rb = netns_helper(B, true, helper_bin, "read", sb, a_to_b, "1000", "5000", NULL);
	ra = netns_helper(A, true, helper_bin, "read", sa, b_to_a, "1000", "5000", NULL);
	assert_true(rb > 0 && ra > 0);
	wa = netns_helper(A, false, helper_bin, "write", sa, a_to_b, "1000", NULL);
	wb = netns_helper(B, false, helper_bin, "write", sb, b_to_a, "1000", NULL);
	assert_int_equal(netns_wait(wa), 0);
	assert_int_equal(netns_wait(wb), 0);
	assert_int_equal(netns_wait(rb), 0);
	assert_int_equal(netns_wait(ra), 0);
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
	netns_path("a.sock", sa, sizeof(sa));
	netns_path("b.sock", sb, sizeof(sb));
	assert_int_equal(netns_ctl_json(B, sddsctl_bin, "net", before, sizeof(before)), 0);
	mal_before = netns_json_u64(before, "malformed");
	rb = netns_helper(B, true, helper_bin, "read", sb, "temperature", "1000", "5000", NULL);
	assert_true(rb > 0);
	g = netns_helper(A, false, helper_bin, "garbage", "fe80::b", "vna", "5600", NULL);
	wa = netns_helper(A, false, helper_bin, "write", sa, "temperature", "1000", NULL);
	assert_int_equal(netns_wait(g), 0);
	assert_int_equal(netns_wait(wa), 0);
	rc = netns_wait(rb);
	assert_int_equal(netns_ctl_json(B, sddsctl_bin, "net", after, sizeof(after)), 0);
	if (rc != 0)
		fail_msg("the reader in B failed (%d); B's counters:\n%s", rc, after);
	mal_after = netns_json_u64(after, "malformed");
	/* 14 kinds cycle: 12 malformed, 1 oversized among them, 1 wrong domain, 1 random. */
	if (mal_after - mal_before < 4400)
		fail_msg("malformed went from %llu to %llu, want +4400 or more:\n%s",
			 (unsigned long long)mal_before, (unsigned long long)mal_after, after);
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		if (!netns_json_has(after, reasons[i], NULL))
			fail_msg("no count for %s in:\n%s", reasons[i], after);
	}
	assert_true(netns_json_has(after, "domain_mismatch", NULL));
	/* The peers view shows A with its malformed datagrams. */
	assert_int_equal(netns_ctl_json(B, sddsctl_bin, "peers", after, sizeof(after)), 0);
	assert_true(netns_json_has(after, "address", "fe80::a"));
	assert_true(netns_json_peer_u64(after, "fe80::a", "samples_in") >= 1000);
}

static void test_extended_ids_acked(void **state)
{
	static char before[65536], after[65536];
	uint64_t d_ack, d_nack, d_ovf;
	char sa[128], sb[128];
	pid_t rb, wa;

	(void)state;
	assert_int_equal(netns_ctl_json(B, sddsctl_bin, "net", before, sizeof(before)), 0);
	assert_int_equal(netns_wait(netns_helper(A, false, helper_bin, "extids", "fe80::b", "vna", NULL)), 0);
	/* B must still be there and carrying samples. */
	netns_path("a.sock", sa, sizeof(sa));
	netns_path("b.sock", sb, sizeof(sb));
	rb = netns_helper(B, true, helper_bin, "read", sb, "temperature", "1000", "5000", NULL);
	assert_true(rb > 0);
	wa = netns_helper(A, false, helper_bin, "write", sa, "temperature", "1000", NULL);
	assert_int_equal(netns_wait(wa), 0);
	assert_int_equal(netns_wait(rb), 0);
	assert_int_equal(netns_ctl_json(B, sddsctl_bin, "net", after, sizeof(after)), 0);
	d_ack = netns_json_u64(after, "ack_bogus") - netns_json_u64(before, "ack_bogus");
	d_nack = netns_json_u64(after, "nack_bogus") - netns_json_u64(before, "nack_bogus");
	d_ovf = netns_json_u64(after, "rx_overflow") - netns_json_u64(before, "rx_overflow");
	fprintf(stderr, "extended ids: ack_bogus +%llu, nack_bogus +%llu, rx_overflow +%llu\n",
		(unsigned long long)d_ack, (unsigned long long)d_nack, (unsigned long long)d_ovf);
	/* No topic of B is reliable: every ACK and NACK is bogus, whatever its id. */
	if (d_ack + d_nack + d_ovf != 2 * 65536 || d_ack == 0 || d_nack == 0)
		fail_msg("want 131072 ACKs and NACKs counted as bogus or dropped by the kernel:\n%s", after);
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
	netns_path("b.sock", sb, sizeof(sb));
	snprintf(line, sizeof(line), "%u", frames);
	rb = netns_helper(B, true, helper_bin, "expect", sb, "0xd26a", "21", line, "5000", NULL);
	assert_true(rb > 0);
	rp = netns_helper(A, false, helper_bin, "replay", "fe80::c0ef:62ff:fed4:d26a", "fe80::b", "vna", tsv,
			  NULL);
	assert_int_equal(netns_wait(rp), 0);
	assert_int_equal(netns_wait(rb), 0);
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
	assert_int_equal(netns_ctl_json(B, sddsctl_bin, "net", before, sizeof(before)), 0);
	netns_path("b.sock", sb, sizeof(sb));
	snprintf(n, sizeof(n), "%u", data_frames);
	rb = netns_helper(B, true, helper_bin, "expect", sb, "0xd26a", "21", n, "5000", NULL);
	assert_true(rb > 0);
	rp = netns_helper(A, false, helper_bin, "replay-as", "fe80::c0ef:62ff:fed4:d26a", "vna", tsv, NULL);
	assert_int_equal(netns_wait(rp), 0);
	assert_int_equal(netns_wait(rb), 0);
	assert_int_equal(netns_ctl_json(B, sddsctl_bin, "net", after, sizeof(after)), 0);
	assert_int_equal(netns_json_u64(after, "unknown_topic") - netns_json_u64(before, "unknown_topic"),
			 builtin_frames);
}

/* A local client cannot register a node-config topic with another layout. */
static void test_layout_mismatch_refused(void **state)
{
	char sa[128];

	(void)state;
	netns_path("a.sock", sa, sizeof(sa));
	assert_int_equal(netns_wait(netns_helper(A, false, helper_bin, "mismatch", sa, NULL)), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_both_directions),
	    cmocka_unit_test(test_both_directions_swapped_topics),
	    cmocka_unit_test(test_garbage_while_exchanging),
	    cmocka_unit_test(test_extended_ids_acked),
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
	rc = netns_available("test_netns");
	if (rc != 0)
		return rc;
	rc = cmocka_run_group_tests(tests, group_setup, netns_group_teardown);
	netns_cleanup();
	return rc;
}
