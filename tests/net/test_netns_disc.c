/* SPDX-License-Identifier: MIT */
/*
 * test_netns_disc.c - two sddsd daemons in two network namespaces joined by
 * a veth pair, in discovery mode (discovery = on, no static subscriptions
 * in their node configs; snps-wire.md §10, daemon/net/discovery.h):
 *   - clients in A and B exchange 1,000 samples each way, in order, once
 *     each daemon has learnt the other's subscription (its ff02::10 group
 *     destination shows in `sddsctl peers`);
 *   - each knows the other by its node config ip alone (group frames leave
 *     a socket bound to [::] with that source, not the link's EUI-64 one);
 *   - daemon B stopped: A expires it (B and the group leave A's peers, the
 *     expiry is counted in `sddsctl net`);
 *   - daemon B started again later (a late subscriber): it announces, A
 *     learns it again and B's reader gets A's samples.
 *
 * Periods are shortened (participant 200 ms, publication 1 s, expiry
 * 1.5 s) to keep the test short. The fixture is
 * tests/common/netns_harness.h.
 * Skips (77) when not root or when `ip netns add` fails.
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

#define DISC_CONF                                                                                            \
	"discovery = on\ndiscovery_participant_ms = 200\ndiscovery_publication_ms = 1000\n"                  \
	"discovery_expire_ms = 1500\n"

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
		 "</project>\n",
		 name, me, iface, publishes_temperature ? "publisher" : "subscriber",
		 publishes_temperature ? "subscriber" : "publisher");
	/* B polls, A sleeps in epoll: the end-of-turn flush is exercised in both loop modes. */
	return netns_write_configs(strcmp(name, "b") == 0 ? 1 : 0, text,
				   strcmp(name, "b") == 0 ? "poll = true\n" DISC_CONF
							  : "poll = false\n" DISC_CONF);
}

static int group_setup(void **state)
{
	(void)state;
	if (netns_pair_setup("disc", "vna", "vnb") < 0)
		return -1;
	if (netns_write_topics(NULL, NULL) < 0 || write_node("a", "fe80::a", "vna", true) < 0 ||
	    write_node("b", "fe80::b", "vnb", false) < 0)
		return -1;
	if (netns_daemons_start(sddsd_bin) < 0)
		return -1;
	return 0;
}

/* Wait up to ms for side's peers view to have (want) or lack (!want) a peer whose key is value. */
static bool wait_peers(int side, const char *key, const char *value, bool want, int ms, char *buf, size_t cap)
{
	int64_t end = netns_now_ms() + ms;

	do {
		if (netns_ctl_json(side, sddsctl_bin, "peers", buf, cap) == 0 &&
		    netns_json_has(buf, key, value) == want)
			return true;
		usleep(50000);
	} while (netns_now_ms() < end);
	return false;
}

static void wait_learnt(void)
{
	static char buf[65536];

	/* Each daemon sends its published topic to the group its peer's Subscription named. */
	if (!wait_peers(A, "address", "ff02::10", true, 5000, buf, sizeof(buf)))
		fail_msg("A did not learn B's subscription:\n%s", buf);
	if (!wait_peers(B, "address", "ff02::10", true, 5000, buf, sizeof(buf)))
		fail_msg("B did not learn A's subscription:\n%s", buf);
}

static void exchange(int count)
{
	char sa[128], sb[128], n[16];
	pid_t rb, ra, wa, wb;

	snprintf(n, sizeof(n), "%d", count);
	netns_path("a.sock", sa, sizeof(sa));
	netns_path("b.sock", sb, sizeof(sb));
	rb = netns_helper(B, true, helper_bin, "read", sb, "temperature", n, "5000", NULL);
	ra = netns_helper(A, true, helper_bin, "read", sa, "counter", n, "5000", NULL);
	assert_true(rb > 0 && ra > 0);
	wa = netns_helper(A, false, helper_bin, "write", sa, "temperature", n, NULL);
	wb = netns_helper(B, false, helper_bin, "write", sb, "counter", n, NULL);
	assert_int_equal(netns_wait(wa), 0);
	assert_int_equal(netns_wait(wb), 0);
	assert_int_equal(netns_wait(rb), 0);
	assert_int_equal(netns_wait(ra), 0);
}

/*
 * Side knows its peer by one address, the peer's node config ip, though the
 * peer's link also has its EUI-64 link-local: group frames leave a socket
 * bound to [::], and must still carry that address.
 */
static void assert_one_address(int side, const char *want)
{
	static char buf[65536];
	unsigned n = 0;

	assert_int_equal(netns_ctl_json(side, sddsctl_bin, "peers", buf, sizeof(buf)), 0);
	for (const char *p = buf; (p = strstr(p, "\"address\": \"fe80::")) != NULL; p++)
		n++;
	if (n != 1 || !netns_json_has(buf, "address", want))
		fail_msg("peers of side %d should hold %s alone:\n%s", side, want, buf);
}

/* No static subscriptions: the data flows once discovery ran, both ways. */
static void test_discovery_exchange(void **state)
{
	(void)state;
	wait_learnt();
	exchange(1000);
	assert_one_address(A, "fe80::b");
	assert_one_address(B, "fe80::a");
}

/* B stops: A expires it. B comes back later: A learns it again and B gets data. */
static void test_expiry_and_late_subscriber(void **state)
{
	static char buf[65536];
	int64_t t0;

	(void)state;
	wait_learnt();
	/* B is heard from its multicast socket (its source address is the kernel's choice on vnb). */
	assert_true(wait_peers(A, "last_port", "23254", true, 2000, buf, sizeof(buf)));
	netns_daemon_stop(B);
	t0 = netns_now_ms();
	if (!wait_peers(A, "last_port", "23254", false, 6000, buf, sizeof(buf)))
		fail_msg("A still lists B 6 s after B stopped:\n%s", buf);
	/* Not before the 1.5-s expiry. */
	assert_true(netns_now_ms() - t0 >= 1000);
	assert_false(netns_json_has(buf, "address", "ff02::10"));
	assert_int_equal(netns_ctl_json(A, sddsctl_bin, "net", buf, sizeof(buf)), 0);
	if (netns_json_u64(buf, "peers_expired") < 1)
		fail_msg("no peers_expired in A's net view:\n%s", buf);

	assert_int_equal(netns_daemon_start(B, sddsd_bin, NULL), 0);
	wait_learnt();
	exchange(200);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_discovery_exchange),
	    cmocka_unit_test(test_expiry_and_late_subscriber),
	};
	int rc;

	if (argc < 4) {
		fprintf(stderr, "usage: %s SDDSD SDDSCTL NET_HELPER\n", argv[0]);
		return 2;
	}
	sddsd_bin = argv[1];
	sddsctl_bin = argv[2];
	helper_bin = argv[3];
	rc = netns_available("test_netns_disc");
	if (rc != 0)
		return rc;
	rc = cmocka_run_group_tests(tests, group_setup, netns_group_teardown);
	netns_cleanup();
	return rc;
}
