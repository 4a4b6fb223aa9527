/* SPDX-License-Identifier: MIT */
/*
 * test_netns_pack.c - sddsd to sddsd keeps several samples per frame with
 * no peer_pack line: each daemon ends its DCPSParticipant frames with a
 * STATUS submessage (`17`, SNPS_STATUS_PACKS), which real nodes skip, and
 * a daemon that hears it packs toward that peer (daemon/net/netif.c).
 * Daemon A publishes temperature, daemon B subscribes with
 * discovery_unicast = on, so A's data goes to B's own address (a group
 * destination never gets packed frames):
 *   - A lists B with PACK "announced" in `sddsctl peers`, and a burst of
 *     200 samples reaches B's reader in order in far fewer than 200 frames;
 *   - B restarted with announce_pack = off: A learns it from B's next
 *     Participant frame and sends the same burst one sample per frame.
 * The fixture is tests/common/netns_harness.h. Skips (77) when not root
 * or when `ip netns add` fails. argv: sddsd, sddsctl, net_helper.
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

#define DISC_CONF                                                                                            \
	"discovery = on\ndiscovery_participant_ms = 200\ndiscovery_publication_ms = 500\n"                   \
	"discovery_expire_ms = 3000\n"

static int write_node(int side, bool announce)
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
				   side == A  ? DISC_CONF
				   : announce ? DISC_CONF "discovery_unicast = on\n"
					      : DISC_CONF "discovery_unicast = on\nannounce_pack = off\n");
}

static int group_setup(void **state)
{
	(void)state;
	if (netns_pair_setup("pack", "vna", "vnb") < 0)
		return -1;
	if (netns_write_topics(NULL, NULL) < 0 || write_node(A, true) < 0 || write_node(B, true) < 0)
		return -1;
	return netns_daemons_start(sddsd_bin);
}

/* Waits up to 5 s until A learnt B's subscription and lists fe80::b with PACK want. */
static void wait_dest(const char *want)
{
	static char buf[65536];
	int64_t end = netns_now_ms() + 5000;

	for (;;) {
		if (netns_net_counter(A, sddsctl_bin, "subscriptions") > 0 &&
		    netns_ctl_json(A, sddsctl_bin, "peers", buf, sizeof(buf)) == 0 &&
		    netns_json_peer_u64(buf, "fe80::b", "frames_in") > 0 &&
		    netns_json_peer_is(buf, "fe80::b", "pack", want))
			return;
		if (netns_now_ms() > end)
			fail_msg("A never listed fe80::b with pack \"%s\":\n%s", want, buf);
		usleep(50000);
	}
}

/* A burst of n samples A -> B, read in order in B; the frames A sent B for them. */
static uint64_t burst(const char *n)
{
	static char buf[65536];
	char sa[128], sb[128];
	uint64_t f0, f1;
	pid_t rb, wa;

	assert_int_equal(netns_ctl_json(A, sddsctl_bin, "peers", buf, sizeof(buf)), 0);
	f0 = netns_json_peer_u64(buf, "fe80::b", "frames_out");
	netns_path("a.sock", sa, sizeof(sa));
	netns_path("b.sock", sb, sizeof(sb));
	rb = netns_helper(B, true, helper_bin, "read", sb, "temperature", n, "5000", NULL);
	assert_true(rb > 0);
	wa = netns_helper(A, false, helper_bin, "write", sa, "temperature", n, NULL);
	assert_int_equal(netns_wait(wa), 0);
	assert_int_equal(netns_wait(rb), 0);
	assert_int_equal(netns_ctl_json(A, sddsctl_bin, "peers", buf, sizeof(buf)), 0);
	f1 = netns_json_peer_u64(buf, "fe80::b", "frames_out");
	return f1 - f0;
}

static void test_packs_to_an_sddsd(void **state)
{
	uint64_t frames;

	(void)state;
	wait_dest("announced");
	frames = burst("200");
	fprintf(stderr, "A -> B, announced: 200 samples in %llu frames\n", (unsigned long long)frames);
	/* Packing needs samples waiting in one turn: a burst written at once has them. */
	if (frames >= 200)
		fail_msg("200 samples to an sddsd that announced packing took %llu frames",
			 (unsigned long long)frames);
}

static void test_one_per_frame_without_announcement(void **state)
{
	uint64_t frames;

	(void)state;
	netns_daemon_stop(B);
	assert_int_equal(write_node(B, false), 0);
	assert_int_equal(netns_daemon_start(B, sddsd_bin, NULL), 0);
	wait_dest("");
	frames = burst("200");
	fprintf(stderr, "A -> B, not announced: 200 samples in %llu frames\n", (unsigned long long)frames);
	assert_int_equal(frames, 200);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_packs_to_an_sddsd),
	    cmocka_unit_test(test_one_per_frame_without_announcement),
	};
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: %s SDDSD SDDSCTL NET_HELPER\n", argv[0]);
		return 2;
	}
	sddsd_bin = argv[1];
	sddsctl_bin = argv[2];
	helper_bin = argv[3];
	rc = netns_available("test_netns_pack");
	if (rc != 0)
		return rc;
	return cmocka_run_group_tests(tests, group_setup, netns_group_teardown);
}
