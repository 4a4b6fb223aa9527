/* SPDX-License-Identifier: MIT */
/*
 * test_stack_host.c - sddsd on the `tap` backend (its own IPv6 stack,
 * daemon/net/stackbe.c) as an IPv6 host on a link whose other end is the
 * Linux kernel: the kernel end of the TAP device tap0, in namespace A of
 * the rig (tests/common/netns_harness.h), is the peer host.
 *   - ping: the kernel pings the stack's link-local address (fe80:: +
 *     EUI-64 of `mac`) through its own ICMPv6 socket, three echo requests,
 *     three replies; the kernel resolved the stack by NDP (`ip -6 neigh`
 *     shows the daemon's MAC REACHABLE: its NS was answered by a solicited
 *     NA, RFC 4861 §7.2.5); `sddsctl stack --json` shows the kernel's
 *     address as a neighbor with the kernel's MAC and echo_in >= 3, and the
 *     stack's own entry for the kernel reaches REACHABLE (RFC 4861 §7.3.3:
 *     STALE from the kernel's NS, DELAY, PROBE, then confirmed by the
 *     kernel's NA to the stack's unicast NS);
 *   - DAD: the kernel end holds fd00::10 (nodad) and the daemon is
 *     configured with `address = fd00::10`: the daemon logs that duplicate
 *     address detection failed (RFC 4862 §5.4.5), `sddsctl stack` shows the
 *     address "duplicate", the link-local one still "preferred"; the daemon
 *     never sends from fd00::10 nor advertises it (every frame from its MAC
 *     is watched on the kernel end), and an echo request to fd00::10 gets no
 *     answer while one to its link-local address does;
 *   - MLD: an MLDv2 General Query from the kernel's address (1000-ms maximum
 *     response delay) is answered by a report within that delay;
 *   - DAD between two daemons: two TAPs in one bridge (namespace B), both
 *     daemons with the same `mac`: the second's link-local address fails
 *     DAD against the first, which keeps its own.
 *
 * tap0 is made persistent before the daemon starts (`ip tuntap add`), so it
 * outlives a daemon stop and the raw socket that watches it stays bound.
 * The kernel is pinged by this program's own ICMPv6 socket rather than
 * ping(8): the same kernel path, without the tool.
 * Skips (77) when not root, without /dev/net/tun or when `ip netns add` fails.
 *
 * argv: sddsd, sddsctl.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <netinet/icmp6.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stack_probe.h"

static const char *sddsd_bin, *sddsctl_bin;

#define A 0
#define B 1

static const uint8_t daemon_mac[6] = {0x02, 0x00, 0x5e, 0x10, 0x00, 0x01};
static struct in6_addr daemon_ll, dup_addr, kernel_other;
static uint8_t kernel_mac[6];
static int sniff_fd = -1, tap_ifindex;

#define TAP_CONF "backend = tap\ninterface = tap0\nmac = 02:00:5e:10:00:01\n"

/* A node config: a subscriber of temperature at ip on iface. */
static void node_xml(char *out, size_t cap, const char *name, const char *ip, const char *iface)
{
	snprintf(out, cap,
		 "<project name=\"%s\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"%s\" "
		 "iface=\"%s\" port=\"23234\">\n"
		 "  <include filename=\"topics.xml\"/>\n"
		 "  <role topic=\"temperature\" type=\"subscriber\"/>\n"
		 "</project>\n",
		 name, ip, iface);
}

static int write_configs(const char *extra)
{
	char node[1024], ll[INET6_ADDRSTRLEN], conf[512];

	inet_ntop(AF_INET6, &daemon_ll, ll, sizeof(ll));
	node_xml(node, sizeof(node), "a", ll, "tap0");
	snprintf(conf, sizeof(conf), "%s%s", TAP_CONF, extra != NULL ? extra : "");
	return netns_write_configs(A, node, conf);
}

static int group_setup(void **state)
{
	(void)state;
	probe_eui64_ll(daemon_mac, &daemon_ll);
	inet_pton(AF_INET6, "fd00::10", &dup_addr);
	inet_pton(AF_INET6, "fd00::1", &kernel_other);
	if (netns_pair_setup("sth", "vha", "vhb") < 0) {
		fprintf(stderr, "setup: %s\n", netns.why);
		return -1;
	}
	/* Persistent: the kernel end stays (without carrier) while no daemon holds it. */
	if (netns_run("ip -n %s tuntap add dev tap0 mode tap && ip -n %s link set tap0 up", netns.ns[A],
		      netns.ns[A]) != 0)
		return -1;
	sniff_fd = probe_raw_open(A, "tap0", &tap_ifindex, kernel_mac);
	if (sniff_fd < 0)
		return -1;
	if (netns_write_topics(NULL, NULL) < 0 || write_configs(NULL) < 0)
		return -1;
	if (netns_daemon_start(A, sddsd_bin, "a.log") < 0) {
		fprintf(stderr, "setup: %s\n", netns.why);
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	if (sniff_fd >= 0)
		close(sniff_fd);
	return netns_group_teardown(state);
}

/* Waits up to ms for addr to be in state on link 0 of the daemon at DIR/sock in side; the last JSON into raw.
 */
static bool log_has(const char *name, const char *text);

static bool wait_state_of(int side, const char *sock, const struct in6_addr *addr, const char *want, int ms,
			  char *raw, size_t cap)
{
	int64_t end = netns_now_ms() + ms;

	do {
		struct json_object *l = probe_stack_link_of(side, sddsctl_bin, sock, raw, cap);
		const char *s = probe_stack_addr_state(l, addr);
		bool ok = s != NULL && strcmp(s, want) == 0;

		probe_stack_put(l);
		if (ok)
			return true;
		usleep(100000);
	} while (netns_now_ms() < end);
	return false;
}

static bool wait_addr_state(const struct in6_addr *addr, const char *want, int ms, char *raw, size_t cap)
{
	return wait_state_of(A, "a.sock", addr, want, ms, raw, cap);
}

static void drain(int fd)
{
	uint8_t buf[2048];

	while (probe_raw_recv(fd, buf, sizeof(buf), 0, NULL) > 0)
		;
}

static void test_ping(void **state)
{
	static char raw[65536];
	struct in6_addr kernel_ll;
	struct json_object *l, *n;
	char kstate[32], want_mac[18], last[32];
	uint8_t mac[6];
	int64_t end, t0;
	int got;

	(void)state;
	if (!wait_addr_state(&daemon_ll, "preferred", 5000, raw, sizeof(raw)))
		probe_fail(raw, "the stack's link-local address is not preferred within 5 s");
	/* The kernel end forms its own link-local address once the daemon brings carrier. */
	end = netns_now_ms() + 3000;
	while (!probe_kernel_ll(A, "tap0", &kernel_ll) && netns_now_ms() < end)
		usleep(50000);
	assert_true(probe_kernel_ll(A, "tap0", &kernel_ll));

	got = probe_ping(A, "tap0", &daemon_ll, 3, 1000);
	if (got != 3)
		fail_msg("the kernel got %d of 3 echo replies from the stack", got);

	/* The kernel resolved the stack: its solicited NA makes the entry REACHABLE (RFC 4861 §7.2.5). */
	if (!probe_kernel_neigh(A, "tap0", &daemon_ll, mac, kstate, sizeof(kstate)))
		fail_msg("the kernel has no neighbor entry for the stack's address");
	if (memcmp(mac, daemon_mac, 6) != 0 || strcmp(kstate, "REACHABLE") != 0)
		fail_msg(
		    "kernel's entry: %02x:%02x:%02x:%02x:%02x:%02x %s (want 02:00:5e:10:00:01 REACHABLE)",
		    mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], kstate);

	l = probe_stack_link(A, sddsctl_bin, raw, sizeof(raw));
	if (l == NULL)
		probe_fail(raw, "no stack view");
	snprintf(want_mac, sizeof(want_mac), "%02x:%02x:%02x:%02x:%02x:%02x", kernel_mac[0], kernel_mac[1],
		 kernel_mac[2], kernel_mac[3], kernel_mac[4], kernel_mac[5]);
	n = probe_stack_neigh(l, &kernel_ll);
	if (n == NULL || strcasecmp(probe_str(n, "mac"), want_mac) != 0 ||
	    strcmp(probe_str(n, "state"), "INCOMPLETE") == 0)
		probe_fail(raw, "the stack does not hold the kernel (%s) as a resolved neighbor", want_mac);
	if (probe_stack_u64(l, "counters", "echo_in") < 3 || probe_stack_u64(l, "counters", "echo_out") < 3 ||
	    probe_stack_u64(l, "counters", "ns_in") < 1)
		probe_fail(raw, "echo or NS counters too low");
	if (strcmp(probe_str(l, "device"), "tap") != 0 ||
	    strcasecmp(probe_str(l, "mac"), "02:00:5e:10:00:01") != 0)
		probe_fail(raw, "device or MAC wrong in the stack view");
	probe_stack_put(l);

	/*
	 * The stack confirms the kernel itself: STALE from the kernel's NS,
	 * DELAY once it sent to it, PROBE after 5 s, REACHABLE on the kernel's
	 * NA (RFC 4861 §7.3.3). The states it passes are printed.
	 */
	t0 = netns_now_ms();
	last[0] = '\0';
	for (;;) {
		const char *st;
		bool reachable;

		l = probe_stack_link(A, sddsctl_bin, raw, sizeof(raw));
		n = probe_stack_neigh(l, &kernel_ll);
		st = n != NULL ? probe_str(n, "state") : "(none)";
		if (strcmp(st, last) != 0) {
			fprintf(stderr, "the stack's entry for the kernel: %s at +%lld ms\n", st,
				(long long)(netns_now_ms() - t0));
			snprintf(last, sizeof(last), "%s", st);
		}
		reachable = strcmp(st, "REACHABLE") == 0;
		probe_stack_put(l);
		if (reachable)
			break;
		if (netns_now_ms() - t0 > 9000)
			probe_fail(raw,
				   "the stack's entry for the kernel is not REACHABLE 9 s after the ping");
		usleep(100000);
	}
}

/* Whether the daemon's log holds text. */
static bool log_has(const char *name, const char *text)
{
	char path[192], line[512];
	bool hit = false;
	FILE *f;

	netns_path(name, path, sizeof(path));
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	while (!hit && fgets(line, sizeof(line), f) != NULL)
		hit = strstr(line, text) != NULL;
	fclose(f);
	return hit;
}

/* An ICMPv6 echo request frame from (smac, src) to the daemon's MAC and dst; its length. */
static size_t echo_frame(uint8_t *out, size_t cap, const struct in6_addr *src, const struct in6_addr *dst,
			 uint16_t id)
{
	uint8_t req[16] = {ICMP6_ECHO_REQUEST, 0, 0, 0, (uint8_t)(id >> 8), (uint8_t)id, 0, 1, 'd', 'a', 'd'};

	return probe_frame(out, cap, daemon_mac, kernel_mac, src, dst, PROBE_NH_ICMP6, 64, req, sizeof(req));
}

struct watch {
	unsigned from_daemon; /* frames from the daemon's MAC */
	unsigned from_dup;    /* of them with source fd00::10 */
	unsigned na_dup;      /* of them NAs for fd00::10 */
	unsigned reply[2];    /* echo replies with id 1 (to fd00::10) and 2 (to the link-local) */
};

/* Reads the frames the kernel end received within ms into w. */
static void watch_frames(struct watch *w, int ms)
{
	uint8_t buf[2048];
	int64_t end = netns_now_ms() + ms;
	int64_t left;

	while ((left = end - netns_now_ms()) > 0) {
		struct probe_pkt p;
		int type;
		ssize_t n = probe_raw_recv(sniff_fd, buf, sizeof(buf), (int)left, &type);

		if (n <= 0)
			break;
		if (type == PACKET_OUTGOING || !probe_parse(buf, (size_t)n, &p) ||
		    memcmp(p.smac, daemon_mac, 6) != 0)
			continue;
		w->from_daemon++;
		if (IN6_ARE_ADDR_EQUAL(&p.src, &dup_addr))
			w->from_dup++;
		if (p.nh != PROBE_NH_ICMP6 || p.l4_len < 8)
			continue;
		if (p.l4[0] == ND_NEIGHBOR_ADVERT && p.l4_len >= 24 && memcmp(p.l4 + 8, &dup_addr, 16) == 0)
			w->na_dup++;
		if (p.l4[0] == ICMP6_ECHO_REPLY && p.l4[4] == 0 && (p.l4[5] == 1 || p.l4[5] == 2))
			w->reply[p.l4[5] - 1]++;
	}
}

static void test_dad_kernel_holds(void **state)
{
	static char raw[65536];
	struct in6_addr kernel_ll;
	struct watch w = {0};
	struct json_object *l;
	uint8_t f[256];
	size_t len;
	int64_t end;

	(void)state;
	netns_daemon_stop(A);
	assert_int_equal(netns_run("ip -n %s addr add fd00::10/64 dev tap0 nodad && "
				   "ip -n %s addr add fd00::1/64 dev tap0 nodad",
				   netns.ns[A], netns.ns[A]),
			 0);
	assert_int_equal(write_configs("address = fd00::10\ndad_transmits = 1\n"), 0);
	drain(sniff_fd);
	if (netns_daemon_start(A, sddsd_bin, "a-dad.log") < 0)
		fail_msg("%s", netns.why);

	end = netns_now_ms() + 6000;
	while (!log_has("a-dad.log", "duplicate address detection failed for fd00::10") &&
	       netns_now_ms() < end)
		usleep(100000);
	if (!log_has("a-dad.log", "net: tap0: duplicate address detection failed for fd00::10"))
		fail_msg("no DAD failure for fd00::10 in the daemon's log within 6 s");
	/* The link-local address runs its own DAD, which passes. */
	if (!wait_addr_state(&daemon_ll, "preferred", 5000, raw, sizeof(raw)))
		probe_fail(raw, "the link-local address is not preferred within 5 s");
	l = probe_stack_link(A, sddsctl_bin, raw, sizeof(raw));
	if (l == NULL || probe_stack_addr_state(l, &dup_addr) == NULL ||
	    strcmp(probe_stack_addr_state(l, &dup_addr), "duplicate") != 0 ||
	    probe_stack_addr_state(l, &daemon_ll) == NULL ||
	    strcmp(probe_stack_addr_state(l, &daemon_ll), "preferred") != 0 ||
	    probe_stack_u64(l, "counters", "dad_failed") < 1)
		probe_fail(raw, "want fd00::10 duplicate, the link-local preferred, dad_failed >= 1");
	probe_stack_put(l);

	/* Asked at fd00::10 the daemon stays silent; asked at its link-local address it answers. */
	assert_true(probe_kernel_ll(A, "tap0", &kernel_ll));
	len = echo_frame(f, sizeof(f), &kernel_other, &dup_addr, 1);
	assert_int_equal(probe_raw_send(sniff_fd, tap_ifindex, f, len), 0);
	len = echo_frame(f, sizeof(f), &kernel_ll, &daemon_ll, 2);
	assert_int_equal(probe_raw_send(sniff_fd, tap_ifindex, f, len), 0);
	watch_frames(&w, 1500);
	fprintf(stderr, "from the daemon: %u frames, %u from fd00::10, %u NAs for it, replies %u/%u\n",
		w.from_daemon, w.from_dup, w.na_dup, w.reply[0], w.reply[1]);
	if (w.reply[1] != 1)
		fail_msg("no echo reply from the stack's link-local address (the probe itself failed)");
	assert_int_equal(w.reply[0], 0);
	assert_int_equal(w.from_dup, 0);
	assert_int_equal(w.na_dup, 0);
}

/*
 * An MLDv2 General Query (RFC 3810 §5.1) from the kernel's link-local
 * address, Maximum Response Code 1000 (ms): the stack answers with a
 * Current State Report within that delay (§6.2), not whenever its next
 * frame happens to arrive. Nothing else runs on this link (no discovery):
 * the answer has nothing to ride out with.
 */
static void test_mld_query_answer(void **state)
{
	static const struct in6_addr all_nodes = {{{0xff, 0x02, [15] = 0x01}}};
	static const uint8_t all_nodes_mac[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0x01};
	/* Hop-by-hop header with the router alert (RFC 2711, value 0: MLD), then the query. */
	uint8_t l4[8 + 28] = {PROBE_NH_ICMP6, 0, 5, 2, 0, 0, 1, 0, 130, 0, 0, 0, 0x03, 0xe8};
	struct in6_addr kernel_ll;
	uint8_t f[256], buf[2048];
	int64_t t0, answered = -1;
	size_t len;
	uint16_t c;

	(void)state;
	assert_true(probe_kernel_ll(A, "tap0", &kernel_ll));
	l4[8 + 24] = 2;	  /* QRV */
	l4[8 + 25] = 125; /* QQIC: 125 s */
	c = probe_cksum(&kernel_ll, &all_nodes, PROBE_NH_ICMP6, l4 + 8, 28);
	l4[8 + 2] = (uint8_t)(c >> 8);
	l4[8 + 3] = (uint8_t)c;
	len = probe_frame(f, sizeof(f), all_nodes_mac, kernel_mac, &kernel_ll, &all_nodes, PROBE_NH_HOPOPTS,
			  1, l4, sizeof(l4));
	assert_true(len > 0);
	drain(sniff_fd);
	t0 = netns_now_ms();
	assert_int_equal(probe_raw_send(sniff_fd, tap_ifindex, f, len), 0);
	while (answered < 0 && netns_now_ms() - t0 < 4000) {
		struct probe_pkt p;
		int type;
		ssize_t n = probe_raw_recv(sniff_fd, buf, sizeof(buf), 100, &type);

		if (n > 0 && type != PACKET_OUTGOING && probe_parse(buf, (size_t)n, &p) &&
		    memcmp(p.smac, daemon_mac, 6) == 0 && p.nh == PROBE_NH_ICMP6 && p.l4_len >= 8 &&
		    p.l4[0] == 143)
			answered = netns_now_ms() - t0;
	}
	fprintf(stderr, "the stack's report came %lld ms after the query (-1: none within 4 s)\n",
		(long long)answered);
	if (answered < 0 || answered > 1500)
		fail_msg("no MLD report within the query's 1000-ms maximum response delay (+500 ms): %lld ms",
			 (long long)answered);
}

/*
 * Two daemons on two TAPs in one bridge (namespace B), configured with the
 * same MAC: the first one's link-local address passes DAD; the second
 * one's, the same EUI-64 address, meets the first's NA (RFC 4862 §5.4.5)
 * and is reported, shown "duplicate" and not used; the first keeps its.
 */
static void test_dad_same_mac(void **state)
{
	static char raw[65536];
	static const uint8_t mac2[6] = {0x02, 0x00, 0x5e, 0x10, 0x00, 0x02};
	const char *b = netns.ns[B];
	char node[1024], ll[INET6_ADDRSTRLEN], conf[1024];
	struct in6_addr ll2;
	int64_t end;
	pid_t c = -1;

	(void)state;
	probe_eui64_ll(mac2, &ll2);
	inet_ntop(AF_INET6, &ll2, ll, sizeof(ll));
	assert_int_equal(
	    netns_run("ip -n %s link add br1 type bridge stp_state 0 mcast_snooping 0 && "
		      "ip -n %s tuntap add dev tapx mode tap && ip -n %s tuntap add dev tapy mode tap && "
		      "ip -n %s link set tapx master br1 && ip -n %s link set tapy master br1 && "
		      "ip -n %s link set tapx up && ip -n %s link set tapy up && ip -n %s link set br1 up",
		      b, b, b, b, b, b, b, b),
	    0);
	node_xml(node, sizeof(node), "b", ll, "tapx");
	assert_int_equal(
	    netns_write_configs(B, node, "backend = tap\ninterface = tapx\nmac = 02:00:5e:10:00:02\n"), 0);
	if (netns_daemon_start(B, sddsd_bin, "b.log") < 0)
		fail_msg("%s", netns.why);
	if (!wait_state_of(B, "b.sock", &ll2, "preferred", 5000, raw, sizeof(raw)))
		probe_fail(raw, "the first daemon's %s is not preferred within 5 s", ll);

	/* The second: its own socket and node config, the other TAP, the same MAC. */
	node_xml(conf, sizeof(conf), "c", ll, "tapy");
	assert_int_equal(netns_write("c.xml", conf), 0);
	snprintf(conf, sizeof(conf),
		 "socket = %s/c.sock\nnode_config = %s/c.xml\nlog_level = notice\n"
		 "backend = tap\ninterface = tapy\nmac = 02:00:5e:10:00:02\n",
		 netns.dir, netns.dir);
	assert_int_equal(netns_write("c.conf", conf), 0);
	assert_int_equal(probe_daemon_start(B, sddsd_bin, "c", &c), 0);

	end = netns_now_ms() + 6000;
	snprintf(conf, sizeof(conf), "net: tapy: duplicate address detection failed for %s", ll);
	while (!log_has("c.log", conf) && netns_now_ms() < end)
		usleep(100000);
	if (!log_has("c.log", conf)) {
		probe_daemon_stop(c);
		fail_msg("no \"%s\" in the second daemon's log within 6 s", conf);
	}
	if (!wait_state_of(B, "c.sock", &ll2, "duplicate", 1000, raw, sizeof(raw))) {
		probe_daemon_stop(c);
		probe_fail(raw, "the second daemon does not show %s duplicate", ll);
	}
	probe_daemon_stop(c);
	if (!wait_state_of(B, "b.sock", &ll2, "preferred", 0, raw, sizeof(raw)))
		probe_fail(raw, "the first daemon lost %s", ll);
	netns_daemon_stop(B);
}

/*
 * A second TAP link that cannot open (it names a veth): the daemon refuses
 * to start with the driver's sentence and exits cleanly, after the first
 * link's stack had armed its DAD, RS and MLD timers on the layer's queue
 * (under ASan this is where freeing them after the layer would show).
 */
static void test_open_fails_cleanly(void **state)
{
	const char *b = netns.ns[B];
	char node[1024], conf[1024], cmd[1024], out[4096] = "";
	FILE *p;
	size_t n;
	int st;

	(void)state;
	assert_int_equal(
	    netns_run("ip -n %s tuntap add dev tapz mode tap && ip -n %s link set tapz up", b, b), 0);
	node_xml(node, sizeof(node), "d", "fe80::d", "tapz");
	assert_int_equal(netns_write("d.xml", node), 0);
	snprintf(conf, sizeof(conf),
		 "socket = %s/d.sock\nnode_config = %s/d.xml\nlog_level = notice\n"
		 "backend = tap\ninterface = tapz\ninterface = %s\n",
		 netns.dir, netns.dir, netns.dev[B]);
	assert_int_equal(netns_write("d.conf", conf), 0);
	snprintf(cmd, sizeof(cmd), "ip netns exec %s %s -c %s/d.conf 2>&1", b, sddsd_bin, netns.dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	st = pclose(p);
	fprintf(stderr, "sddsd on a veth as a TAP: %s", out);
	assert_true(WIFEXITED(st));
	assert_int_not_equal(WEXITSTATUS(st), 0);
	assert_non_null(strstr(out, netns.dev[B]));
	assert_null(strstr(out, "Sanitizer"));
	netns_run("ip -n %s link del tapz", b);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ping),
	    cmocka_unit_test(test_dad_kernel_holds),
	    cmocka_unit_test(test_mld_query_answer),
	    cmocka_unit_test(test_dad_same_mac),
	    cmocka_unit_test(test_open_fails_cleanly),
	};
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: %s SDDSD SDDSCTL\n", argv[0]);
		return 2;
	}
	sddsd_bin = argv[1];
	sddsctl_bin = argv[2];
	if (access("/dev/net/tun", R_OK | W_OK) != 0) {
		fprintf(stderr, "test_stack_host: no /dev/net/tun: skipped\n");
		return 77;
	}
	rc = netns_available("test_stack_host");
	if (rc != 0)
		return rc;
	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	netns_cleanup();
	return rc;
}
