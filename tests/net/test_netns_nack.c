/* SPDX-License-Identifier: MIT */
/*
 * test_netns_nack.c - NACK reliability (snps-wire.md §11.3,
 * confirmationtype="nack") between two sddsd daemons in two network
 * namespaces (tests/common/netns_harness.h), static subscriptions A -> B:
 *   - temperature (16-bit numbers): 1,000 samples through 20% random loss
 *     on input in both namespaces (nftables) arrive in B's reliable reader
 *     exactly once each and in order; B NACKed, A resent, nothing given up;
 *   - counter (4-bit numbers, a history of 4): 40 samples, the same;
 *   - tail loss: B drops everything while A writes one sample and sends
 *     its first two heartbeats (the newest sample again after an idle
 *     period); a later heartbeat brings it;
 *   - a NACK for a number A no longer keeps is answered with nothing and
 *     counted (nack_unknown);
 *   - a flood of bogus NACKs (a topic A does not publish so, a 32-bit number
 *     for the 16-bit topic, and one kept number asked 500 times from an
 *     address A never heard of) is counted and the resends stay within the
 *     per-sample cap; A keeps working.
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

/* Samples of temperature written so far (its next number, mod 65536). */
static unsigned temp_written;

static int write_node(int side)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "<project name=\"%s\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"%s\" "
		 "iface=\"%s\" port=\"23234\">\n"
		 "  <include filename=\"topics.xml\"/>\n"
		 "  <role topic=\"temperature\" type=\"%s\"/>\n"
		 "  <role topic=\"counter\" type=\"%s\"/>\n"
		 "%s"
		 "</project>\n",
		 side == A ? "a" : "b", side == A ? "fe80::a" : "fe80::b", side == A ? "vna" : "vnb",
		 side == A ? "publisher" : "subscriber", side == A ? "publisher" : "subscriber",
		 side == A
		     ? "  <subscription topic=\"temperature\"><subscriber ip=\"fe80::b\"/></subscription>\n"
		       "  <subscription topic=\"counter\"><subscriber ip=\"fe80::b\"/></subscription>\n"
		     : "");
	/* B polls, A sleeps in epoll. */
	return netns_write_configs(side, text, side == B ? "poll = true\n" : "poll = false\n");
}

static int group_setup(void **state)
{
	(void)state;
	if (netns_pair_setup("nack", "vna", "vnb") < 0)
		return -1;
	/* An address A never heard of, for the bogus NACKs. */
	if (netns_run("ip -n %s addr add fe80::99/64 dev vnb nodad", netns.ns[B]) != 0)
		return -1;
	if (netns_write_topics(NETNS_QOS_RELIABLE("big", "nack"), NETNS_QOS_RELIABLE("basic", "nack")) < 0 ||
	    write_node(A) < 0 || write_node(B) < 0)
		return -1;
	if (netns_daemons_start(sddsd_bin) < 0)
		return -1;
	return 0;
}

static void show(const char *what)
{
	static char buf[65536];

	netns_ctl_json(A, sddsctl_bin, "net", buf, sizeof(buf));
	fprintf(stderr, "%s; A: %s\n", what, buf);
	netns_ctl_json(B, sddsctl_bin, "net", buf, sizeof(buf));
	fprintf(stderr, "B: %s\n", buf);
}

/* COUNT samples of topic from A's writer to B's reliable reader, all in order. */
static void transfer(const char *topic, unsigned count)
{
	char sa[128], sb[128], n[16];
	pid_t rb, wa;

	snprintf(n, sizeof(n), "%u", count);
	netns_path("a.sock", sa, sizeof(sa));
	netns_path("b.sock", sb, sizeof(sb));
	rb = netns_helper(B, true, helper_bin, "read", sb, topic, n, "20000", NULL);
	assert_true(rb > 0);
	wa = netns_helper(A, false, helper_bin, "write", sa, topic, n, NULL);
	assert_int_equal(netns_wait(wa), 0);
	if (netns_wait(rb) != 0) {
		show("B's reader did not get every sample in order");
		fail();
	}
	if (strcmp(topic, "temperature") == 0)
		temp_written += count;
}

static void lossy_both(void)
{
	if (!netns_drop(A, 23234, 20) || !netns_drop(B, 23234, 20)) {
		fprintf(stderr, "test_netns_nack: nft unusable: skipped\n");
		exit(77);
	}
}

static void lossless(void)
{
	netns_undrop(A, 23234);
	netns_undrop(B, 23234);
}

static void test_nack_under_loss(void **state)
{
	uint64_t nacks_out, nacks_in, resent, recovered, given_up, dropped_a, dropped_b, frames;

	(void)state;
	lossy_both();
	transfer("temperature", 1000);
	dropped_a = netns_dropped(A, 23234);
	dropped_b = netns_dropped(B, 23234);
	frames = netns_net_counter(A, sddsctl_bin, "frames_out");
	nacks_out = netns_net_counter(B, sddsctl_bin, "nacks_out");
	recovered = netns_net_counter(B, sddsctl_bin, "gaps_recovered");
	given_up = netns_net_counter(B, sddsctl_bin, "gaps_given_up");
	nacks_in = netns_net_counter(A, sddsctl_bin, "nacks_in");
	resent = netns_net_counter(A, sddsctl_bin, "nack_resent");
	fprintf(stderr,
		"temperature, 1000 samples, 20%% loss both ways: A sent %llu datagrams, %llu dropped at B "
		"(data), %llu at A (NACKs); B nacks_out %llu, gaps_recovered %llu, gaps_given_up %llu; "
		"A nacks_in %llu, nack_resent %llu (unknown %llu, limited %llu), heartbeats %llu\n",
		(unsigned long long)frames, (unsigned long long)dropped_b, (unsigned long long)dropped_a,
		(unsigned long long)nacks_out, (unsigned long long)recovered, (unsigned long long)given_up,
		(unsigned long long)nacks_in, (unsigned long long)resent,
		(unsigned long long)netns_net_counter(A, sddsctl_bin, "nack_unknown"),
		(unsigned long long)netns_net_counter(A, sddsctl_bin, "nack_limited"),
		(unsigned long long)netns_net_counter(A, sddsctl_bin, "nack_heartbeats"));
	if (nacks_out == 0 || nacks_in == 0 || resent == 0 || recovered == 0)
		fail_msg("no NACK recovery seen under 20%% loss");
	assert_int_equal(given_up, 0);
}

static void test_nack_4bit_under_loss(void **state)
{
	uint64_t before = netns_net_counter(B, sddsctl_bin, "gaps_recovered");

	(void)state;
	transfer("counter", 40);
	fprintf(stderr, "counter (4-bit), 40 samples: gaps_recovered +%llu, gaps_given_up %llu\n",
		(unsigned long long)(netns_net_counter(B, sddsctl_bin, "gaps_recovered") - before),
		(unsigned long long)netns_net_counter(B, sddsctl_bin, "gaps_given_up"));
	assert_int_equal(netns_net_counter(B, sddsctl_bin, "gaps_given_up"), 0);
	lossless();
}

static void test_tail_loss(void **state)
{
	char sa[128], sb[128];
	uint64_t hb = netns_net_counter(A, sddsctl_bin, "nack_heartbeats");
	int64_t t0;
	pid_t rb, wa;

	(void)state;
	lossless();
	netns_path("a.sock", sa, sizeof(sa));
	netns_path("b.sock", sb, sizeof(sb));
	rb = netns_helper(B, true, helper_bin, "read", sb, "temperature", "1", "10000", NULL);
	assert_true(rb > 0);
	assert_true(netns_drop(B, 23234, 100));
	wa = netns_helper(A, false, helper_bin, "write", sa, "temperature", "1", NULL);
	assert_int_equal(netns_wait(wa), 0);
	/* The sample and its first two heartbeats (20 and 60 ms later) are lost; the next ones pass. */
	t0 = netns_now_ms();
	for (int i = 0; i < 100 && netns_net_counter(A, sddsctl_bin, "nack_heartbeats") < hb + 2; i++)
		usleep(10000);
	fprintf(stderr, "tail: %llu datagrams dropped at B, heartbeats %llu -> %llu after %lld ms\n",
		(unsigned long long)netns_dropped(B, 23234), (unsigned long long)hb,
		(unsigned long long)netns_net_counter(A, sddsctl_bin, "nack_heartbeats"),
		(long long)(netns_now_ms() - t0));
	lossless();
	if (netns_wait(rb) != 0) {
		show("the lost last sample did not arrive");
		fail();
	}
	temp_written++;
	assert_true(netns_net_counter(A, sddsctl_bin, "nack_heartbeats") > hb);
}

/* A tsv of frames for net_helper replay: each line's payload is hex[i]. */
static void write_frames(const char *name, const char *const *hex, unsigned n, unsigned times)
{
	static char text[1 << 20];
	size_t off = 0;

	off += (size_t)snprintf(text + off, sizeof(text) - off, "frame.number\tt\ts\tsp\td\tdp\th\tdata\n");
	for (unsigned k = 0; k < times; k++) {
		for (unsigned i = 0; i < n && off < sizeof(text) - 128; i++)
			off += (size_t)snprintf(text + off, sizeof(text) - off, "%u\t0\t-\t0\t-\t0\t64\t%s\n",
						k * n + i + 1, hex[i]);
	}
	assert_int_equal(netns_write(name, text), 0);
}

static void test_nack_not_kept(void **state)
{
	char tsv[128], hex[64];
	const char *frames[1] = {hex};
	/* A keeps the last 128 numbers: the one 300 back is gone. */
	unsigned old = (temp_written - 300) & 0xffff;
	uint64_t unknown = netns_net_counter(A, sddsctl_bin, "nack_unknown"),
		 resent = netns_net_counter(A, sddsctl_bin, "nack_resent");

	(void)state;
	/* version 1, 4 submessages: DOMAIN 1, TOPIC 10, ext NACK, SEQNR_BIG. */
	snprintf(hex, sizeof(hex), "010410a11f9f%04x", old);
	write_frames("notkept.tsv", frames, 1, 1);
	netns_path("notkept.tsv", tsv, sizeof(tsv));
	assert_int_equal(
	    netns_wait(netns_helper(B, false, helper_bin, "replay", "fe80::b", "fe80::a", "vnb", tsv, NULL)),
	    0);
	usleep(100000);
	assert_int_equal(netns_net_counter(A, sddsctl_bin, "nack_unknown"), unknown + 1);
	assert_int_equal(netns_net_counter(A, sddsctl_bin, "nack_resent"), resent);
}

static void test_bogus_nack_flood(void **state)
{
	char tsv[128], kept[64];
	/* Topic 5 (not ours), a 32-bit number for the 16-bit topic, then a kept number. */
	const char *frames[3] = {"010410511f8f01", "010410a11faffffffff0", kept};
	uint64_t bogus = netns_net_counter(A, sddsctl_bin, "nack_bogus"),
		 in = netns_net_counter(A, sddsctl_bin, "nacks_in");
	uint64_t resent = netns_net_counter(A, sddsctl_bin, "nack_resent"),
		 limited = netns_net_counter(A, sddsctl_bin, "nack_limited");
	uint64_t d_bogus, d_in, d_resent, d_limited;

	(void)state;
	snprintf(kept, sizeof(kept), "010410a11f9f%04x", (temp_written - 2) & 0xffff);
	write_frames("bogus.tsv", frames, 3, 500);
	netns_path("bogus.tsv", tsv, sizeof(tsv));
	assert_int_equal(
	    netns_wait(netns_helper(B, false, helper_bin, "replay", "fe80::99", "fe80::a", "vnb", tsv, NULL)),
	    0);
	usleep(100000);
	d_bogus = netns_net_counter(A, sddsctl_bin, "nack_bogus") - bogus;
	d_in = netns_net_counter(A, sddsctl_bin, "nacks_in") - in;
	d_resent = netns_net_counter(A, sddsctl_bin, "nack_resent") - resent;
	d_limited = netns_net_counter(A, sddsctl_bin, "nack_limited") - limited;
	fprintf(stderr, "bogus flood: bogus +%llu, nacks_in +%llu, resent +%llu, limited +%llu\n",
		(unsigned long long)d_bogus, (unsigned long long)d_in, (unsigned long long)d_resent,
		(unsigned long long)d_limited);
	assert_int_equal(d_bogus, 1000);
	assert_int_equal(d_in, 500);
	/* One sample resent at most 64 times, whoever asks. */
	assert_true(d_resent <= 64);
	assert_int_equal(d_resent + d_limited, 500);
	/* A still carries data. */
	transfer("temperature", 50);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nack_under_loss),  cmocka_unit_test(test_nack_4bit_under_loss),
	    cmocka_unit_test(test_tail_loss),	     cmocka_unit_test(test_nack_not_kept),
	    cmocka_unit_test(test_bogus_nack_flood),
	};
	int rc;

	if (argc < 4) {
		fprintf(stderr, "usage: %s SDDSD SDDSCTL NET_HELPER\n", argv[0]);
		return 2;
	}
	sddsd_bin = argv[1];
	sddsctl_bin = argv[2];
	helper_bin = argv[3];
	rc = netns_available_nft("test_netns_nack");
	if (rc != 0)
		return rc;
	rc = cmocka_run_group_tests(tests, group_setup, netns_group_teardown);
	netns_cleanup();
	return rc;
}
