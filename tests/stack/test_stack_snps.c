/* SPDX-License-Identifier: MIT */
/*
 * test_stack_snps.c - SNPS between sddsd on its own IPv6 stack (`tap`
 * backend) and sddsd on the kernel's (`socket` backend), across a Linux
 * bridge:
 *
 *     namespace A                                  namespace B
 *     sddsd a (tap) == tap0 --+
 *                             br0 --- vna ======== vnb  sddsd b (socket, fe80::b)
 *     (snooping, MLD querier)
 *
 * a's node address is its link-local one (fe80:: + EUI-64 of `mac`), both
 * daemons in discovery mode; temperature (B -> A) and counter (A -> B) are
 * NACK-reliable with 16-bit numbers (snps-wire.md §11.3).
 *   - exchange: once each daemon learnt the other's subscription, clients
 *     exchange 500 samples each way, in order;
 *   - loss: 20% of the datagrams to ports 23234 and 23254 dropped at random
 *     both ways (nftables: on input in B, on the bridge's way out to tap0
 *     in A); 1,000 samples each way arrive exactly once and in order, the
 *     stack daemon NACKed and answered NACKs, no gap given up;
 *   - bad checksum: a UDP datagram b sent to a, re-sent from a forged
 *     source (fe80::99) through the kernel end of tap0 with a wrong
 *     checksum, is counted in drops.udp_cksum of `sddsctl stack` and
 *     reaches no SNPS peer; the same datagram with the right checksum does
 *     (so the probe would have been delivered);
 *   - pcap: a's `pcap = FILE` holds Ethernet frames, ICMPv6 and UDP, in and
 *     out, the bad-checksum frame among them (the capture is taken before
 *     any check); tcpdump or tshark opens it when one is installed;
 *   - MLD: the bridge's multicast database lists the six sDDS groups
 *     (ff02::10,20,30,50,60,70) on port tap0, learnt from a's MLDv2
 *     reports; when a stops, it sends a report leaving each of them
 *     (CHANGE_TO_INCLUDE_MODE with no sources, RFC 3810 §6.1), and they
 *     leave the database.
 *
 * Skips (77) when not root, without /dev/net/tun, `bridge` or nft, or
 * when `ip netns add` fails.
 *
 * argv: sddsd, sddsctl, net_helper.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stack_probe.h"

static const char *sddsd_bin, *sddsctl_bin, *helper_bin;

#define A 0
#define B 1

static const uint8_t daemon_mac[6] = {0x02, 0x00, 0x5e, 0x10, 0x00, 0x01};
static const uint8_t forged_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x99};
static struct in6_addr daemon_ll, peer_b, forged;
static char daemon_ll_text[INET6_ADDRSTRLEN];
static const uint8_t sdds_groups[] = {0x10, 0x20, 0x30, 0x50, 0x60, 0x70};

#define DISC_CONF                                                                                            \
	"discovery = on\ndiscovery_participant_ms = 200\ndiscovery_publication_ms = 1000\n"                  \
	"discovery_expire_ms = 5000\n"

static void group_addr(uint8_t g, struct in6_addr *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->s6_addr[0] = 0xff;
	ret->s6_addr[1] = 0x02;
	ret->s6_addr[15] = g;
}

static int write_node(int side)
{
	char text[2048], conf[1024], pcap[160];

	snprintf(text, sizeof(text),
		 "<project name=\"%s\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"%s\" "
		 "iface=\"%s\" port=\"23234\">\n"
		 "  <include filename=\"topics.xml\"/>\n"
		 "  <role topic=\"temperature\" type=\"%s\"/>\n"
		 "  <role topic=\"counter\" type=\"%s\"/>\n"
		 "</project>\n",
		 side == A ? "a" : "b", side == A ? daemon_ll_text : "fe80::b", side == A ? "tap0" : "vnb",
		 side == A ? "subscriber" : "publisher", side == A ? "publisher" : "subscriber");
	netns_path("a.pcap", pcap, sizeof(pcap));
	if (side == A)
		snprintf(conf, sizeof(conf),
			 "backend = tap\ninterface = tap0\nmac = 02:00:5e:10:00:01\npcap = %s\n" DISC_CONF,
			 pcap);
	else
		snprintf(conf, sizeof(conf), "%s", DISC_CONF);
	return netns_write_configs(side, text, conf);
}

static int group_setup(void **state)
{
	const char *a;

	(void)state;
	probe_eui64_ll(daemon_mac, &daemon_ll);
	inet_ntop(AF_INET6, &daemon_ll, daemon_ll_text, sizeof(daemon_ll_text));
	inet_pton(AF_INET6, "fe80::b", &peer_b);
	inet_pton(AF_INET6, "fe80::99", &forged);
	if (netns_pair_setup("sts", "vna", "vnb") < 0) {
		fprintf(stderr, "setup: %s\n", netns.why);
		return -1;
	}
	a = netns.ns[A];
	/*
	 * The bridge snoops MLD and is the querier (MLDv2, RFC 3810), with
	 * short intervals (centiseconds): a query every 3 s, memberships
	 * forgotten after 10 s without a report.
	 */
	if (netns_run(
		"ip -n %s addr flush dev vna && "
		"ip -n %s link add br0 type bridge stp_state 0 mcast_snooping 1 mcast_querier 1 "
		"mcast_mld_version 2 mcast_query_interval 300 mcast_query_response_interval 100 "
		"mcast_startup_query_interval 100 mcast_last_member_interval 50 "
		"mcast_membership_interval 1000 && "
		"ip -n %s tuntap add dev tap0 mode tap && ip -n %s link set tap0 master br0 && "
		"ip -n %s link set vna master br0 && ip -n %s link set tap0 up && ip -n %s link set br0 up",
		a, a, a, a, a, a, a) != 0) {
		fprintf(stderr, "setup: cannot build the bridge in %s\n", a);
		return -1;
	}
	if (netns_write_topics(NETNS_QOS_RELIABLE("big", "nack"), NETNS_QOS_RELIABLE("big", "nack")) < 0 ||
	    write_node(A) < 0 || write_node(B) < 0)
		return -1;
	if (netns_daemon_start(A, sddsd_bin, "a.log") < 0 || netns_daemon_start(B, sddsd_bin, NULL) < 0) {
		fprintf(stderr, "setup: %s\n", netns.why);
		return -1;
	}
	return 0;
}

/* Wait up to ms for side's peers view to have a member key equal to value. */
static bool wait_peers(int side, const char *key, const char *value, int ms, char *buf, size_t cap)
{
	int64_t end = netns_now_ms() + ms;

	do {
		if (netns_ctl_json(side, sddsctl_bin, "peers", buf, cap) == 0 &&
		    netns_json_has(buf, key, value))
			return true;
		usleep(50000);
	} while (netns_now_ms() < end);
	return false;
}

static void wait_learnt(void)
{
	static char buf[65536];

	if (!wait_peers(A, "address", "ff02::10", 8000, buf, sizeof(buf)))
		probe_fail(buf, "a (tap) did not learn b's subscription");
	if (!wait_peers(B, "address", "ff02::10", 8000, buf, sizeof(buf)))
		probe_fail(buf, "b (socket) did not learn a's subscription");
}

/* Waits up to ms for pid: its exit status; killed (SIGKILL) and -1 when it is still running then. */
static int wait_within(pid_t pid, int ms)
{
	int64_t end = netns_now_ms() + ms;

	while (netns_now_ms() < end) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (r < 0)
			return -1;
		usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* Dumps both daemons' net and a's stack views to stderr (a failure's context). */
static void dump_views(void)
{
	static char buf[262144];

	if (netns_ctl_json(A, sddsctl_bin, "net", buf, sizeof(buf)) == 0)
		fprintf(stderr, "a (tap) net:\n%s\n", buf);
	if (netns_ctl_json(A, sddsctl_bin, "stack", buf, sizeof(buf)) == 0)
		fprintf(stderr, "a (tap) stack:\n%s\n", buf);
	if (netns_ctl_json(B, sddsctl_bin, "net", buf, sizeof(buf)) == 0)
		fprintf(stderr, "b (socket) net:\n%s\n", buf);
}

/*
 * Samples of temperature B -> A and counter A -> B, count each, in order;
 * readers wait ms, and everything is over within ms + 5 s.
 */
static void exchange(int count, int ms)
{
	char sa[128], sb[128], n[16], t[16];
	pid_t ra, rb, wa, wb;
	int sta, stb, swa, swb;

	snprintf(n, sizeof(n), "%d", count);
	snprintf(t, sizeof(t), "%d", ms);
	netns_path("a.sock", sa, sizeof(sa));
	netns_path("b.sock", sb, sizeof(sb));
	ra = netns_helper(A, true, helper_bin, "read", sa, "temperature", n, t, NULL);
	rb = netns_helper(B, true, helper_bin, "read", sb, "counter", n, t, NULL);
	assert_true(ra > 0 && rb > 0);
	wb = netns_helper(B, false, helper_bin, "write", sb, "temperature", n, NULL);
	wa = netns_helper(A, false, helper_bin, "write", sa, "counter", n, NULL);
	/* A writer may block on a reliable topic: bounded, so that a stall fails here and not by meson's
	 * timeout. */
	swa = wait_within(wa, ms + 5000);
	swb = wait_within(wb, 5000);
	sta = wait_within(ra, 5000);
	stb = wait_within(rb, 5000);
	if (swa != 0 || swb != 0 || sta != 0 || stb != 0) {
		dump_views();
		fail_msg("writers: a (tap) counter %d, b (socket) temperature %d; readers: a temperature %d, "
			 "b counter %d (-1: stalled, killed)",
			 swa, swb, sta, stb);
	}
}

static void test_exchange(void **state)
{
	static char buf[65536];

	(void)state;
	wait_learnt();
	exchange(500, 10000);
	/* b knows a by its node address, the stack's link-local one. */
	assert_int_equal(netns_ctl_json(B, sddsctl_bin, "peers", buf, sizeof(buf)), 0);
	if (!netns_json_has(buf, "address", daemon_ll_text))
		probe_fail(buf, "b does not list a at %s", daemon_ll_text);
}

/* Packets the bridge rule of bridge_drop dropped so far. */
static uint64_t bridge_dropped(void)
{
	return netns_nft_counted(A, "bridge sloss");
}

/*
 * Drops percent % of the UDP datagrams to the SNPS ports that the bridge
 * forwards to tap0: the stack daemon's input is not the kernel's, so the
 * inet input hook of netns_drop never sees it. vnb segments b's GSO
 * messages first, so that the rule sees datagrams as a wire carries them.
 */
static bool bridge_drop(unsigned percent)
{
	const char *a = netns.ns[A];

	return netns_run("ip -n %s link set dev vnb gso_max_segs 1", netns.ns[B]) == 0 &&
	       netns_run(
		   "ip netns exec %s nft add table bridge sloss && "
		   "ip netns exec %s nft add chain bridge sloss f '{ type filter hook forward priority 0; }' "
		   "&& "
		   "ip netns exec %s nft add rule bridge sloss f oifname tap0 udp dport '{ 23234, 23254 }' "
		   "numgen random mod 100 '<' %u counter drop",
		   a, a, a, percent) == 0;
}

static void bridge_undrop(void)
{
	netns_run("ip netns exec %s nft delete table bridge sloss 2>/dev/null", netns.ns[A]);
	netns_run("ip -n %s link set dev vnb gso_max_segs 65535", netns.ns[B]);
}

static void test_nack_under_loss(void **state)
{
	static char na[65536], nb[65536];
	uint64_t to_a, to_b;

	(void)state;
	if (!netns_drop(B, 23234, 20) || !netns_drop(B, 23254, 20) || !bridge_drop(20)) {
		/* nft was checked at start: a failure here is the rig's. */
		fail_msg("cannot set up the nftables loss");
	}
	exchange(1000, 30000);
	to_a = bridge_dropped();
	to_b = netns_dropped(B, 23234) + netns_dropped(B, 23254);
	netns_undrop(B, 23234);
	netns_undrop(B, 23254);
	bridge_undrop();
	assert_int_equal(netns_ctl_json(A, sddsctl_bin, "net", na, sizeof(na)), 0);
	assert_int_equal(netns_ctl_json(B, sddsctl_bin, "net", nb, sizeof(nb)), 0);
	fprintf(stderr,
		"dropped to a %llu, to b %llu; a: nacks_out %llu nack_resent %llu gaps_recovered %llu; "
		"b: nacks_out %llu nack_resent %llu gaps_recovered %llu\n",
		(unsigned long long)to_a, (unsigned long long)to_b,
		(unsigned long long)netns_json_u64(na, "nacks_out"),
		(unsigned long long)netns_json_u64(na, "nack_resent"),
		(unsigned long long)netns_json_u64(na, "gaps_recovered"),
		(unsigned long long)netns_json_u64(nb, "nacks_out"),
		(unsigned long long)netns_json_u64(nb, "nack_resent"),
		(unsigned long long)netns_json_u64(nb, "gaps_recovered"));
	assert_true(to_a > 0 && to_b > 0);
	/* Both ends lost data and recovered it by NACK: the stack daemon NACKed and resent. */
	if (netns_json_u64(na, "nacks_out") == 0 || netns_json_u64(na, "nack_resent") == 0 ||
	    netns_json_u64(na, "gaps_given_up") != 0)
		probe_fail(na, "a (tap) did not NACK and resend, or gave a gap up");
	if (netns_json_u64(nb, "nacks_out") == 0 || netns_json_u64(nb, "nack_resent") == 0 ||
	    netns_json_u64(nb, "gaps_given_up") != 0)
		probe_fail(nb, "b (socket) did not NACK and resend, or gave a gap up");
}

/* The next UDP frame b sent toward a (out of the kernel end of tap0) within ms, preferring ff02::10. */
static size_t capture_from_b(int fd, uint8_t *out, size_t cap, int ms)
{
	uint8_t buf[2048];
	int64_t end = netns_now_ms() + ms;
	size_t got = 0;
	int64_t left;

	while ((left = end - netns_now_ms()) > 0) {
		struct probe_pkt p;
		int type;
		ssize_t n = probe_raw_recv(fd, buf, sizeof(buf), (int)left, &type);
		struct in6_addr data;

		if (n <= 0)
			break;
		if (type != PACKET_OUTGOING || (size_t)n > cap || !probe_parse(buf, (size_t)n, &p) ||
		    p.nh != PROBE_NH_UDP || !IN6_ARE_ADDR_EQUAL(&p.src, &peer_b) ||
		    p.l4 != buf + PROBE_ETH_HLEN + PROBE_IP6_HLEN)
			continue;
		memcpy(out, buf, (size_t)n);
		got = (size_t)n;
		group_addr(0x10, &data);
		if (IN6_ARE_ADDR_EQUAL(&p.dst, &data))
			break;
	}
	return got;
}

static void test_bad_checksum(void **state)
{
	static char raw[65536], peers[65536];
	uint8_t orig[2048], f[2048];
	struct json_object *l;
	struct probe_pkt p;
	uint64_t before, after;
	char sb[128];
	size_t len, flen;
	int fd, ifindex;
	pid_t wb;
	uint16_t c;

	(void)state;
	fd = probe_raw_open(A, "tap0", &ifindex, NULL);
	assert_true(fd >= 0);
	/* b's samples to a's group: the frames to copy. */
	netns_path("b.sock", sb, sizeof(sb));
	wb = netns_helper(B, false, helper_bin, "write", sb, "temperature", "20", NULL);
	len = capture_from_b(fd, orig, sizeof(orig), 3000);
	assert_int_equal(netns_wait(wb), 0);
	if (len == 0)
		fail_msg("no UDP frame from b seen on tap0 within 3 s");
	assert_true(probe_parse(orig, len, &p));

	/* The same datagram from a source a never heard from, with a wrong checksum, then a right one. */
	flen = probe_frame(f, sizeof(f), p.dmac, forged_mac, &forged, &p.dst, PROBE_NH_UDP, p.hlim, p.l4,
			   p.l4_len);
	assert_true(flen == len);
	c = (uint16_t)(f[PROBE_ETH_HLEN + PROBE_IP6_HLEN + 6] << 8 | f[PROBE_ETH_HLEN + PROBE_IP6_HLEN + 7]);
	f[PROBE_ETH_HLEN + PROBE_IP6_HLEN + 6] ^= 0x5a;

	l = probe_stack_link(A, sddsctl_bin, raw, sizeof(raw));
	if (l == NULL)
		probe_fail(raw, "no stack view");
	before = probe_stack_u64(l, "drops", "udp_cksum");
	probe_stack_put(l);
	assert_int_equal(probe_raw_send(fd, ifindex, f, flen), 0);
	usleep(300000);
	l = probe_stack_link(A, sddsctl_bin, raw, sizeof(raw));
	after = probe_stack_u64(l, "drops", "udp_cksum");
	probe_stack_put(l);
	if (after != before + 1)
		probe_fail(raw, "drops.udp_cksum went from %llu to %llu (want +1)",
			   (unsigned long long)before, (unsigned long long)after);
	assert_int_equal(netns_ctl_json(A, sddsctl_bin, "peers", peers, sizeof(peers)), 0);
	if (netns_json_has(peers, "address", "fe80::99"))
		probe_fail(peers, "the datagram with a bad checksum reached SNPS");

	/* Control: with its checksum right, the very same frame is delivered. */
	f[PROBE_ETH_HLEN + PROBE_IP6_HLEN + 6] = (uint8_t)(c >> 8);
	assert_int_equal(probe_raw_send(fd, ifindex, f, flen), 0);
	if (!wait_peers(A, "address", "fe80::99", 2000, peers, sizeof(peers)))
		probe_fail(peers, "the probe with a right checksum did not reach SNPS either");
	close(fd);
}

struct pcap_count {
	unsigned frames, ip6, icmp6_in, icmp6_out, udp_in, udp_out, bad_probe;
};

static void pcap_frame(void *ctx, const uint8_t *f, size_t len)
{
	struct pcap_count *c = ctx;
	struct probe_pkt p;
	bool out;

	c->frames++;
	if (!probe_parse(f, len, &p))
		return;
	c->ip6++;
	out = memcmp(p.smac, daemon_mac, 6) == 0;
	if (p.nh == PROBE_NH_ICMP6)
		(*(out ? &c->icmp6_out : &c->icmp6_in))++;
	if (p.nh == PROBE_NH_UDP) {
		(*(out ? &c->udp_out : &c->udp_in))++;
		if (IN6_ARE_ADDR_EQUAL(&p.src, &forged) &&
		    probe_cksum(&p.src, &p.dst, PROBE_NH_UDP, p.l4, p.l4_len) != 0)
			c->bad_probe++;
	}
}

/*
 * The exchange's SNPS, decoded by the project's dissector (tools/wireshark)
 * in tshark: frames with a topic on both ports' traffic, and no error in
 * the whole decode. Skipped without tshark.
 */
static void test_pcap_snps(const char *path)
{
	const char *lua = getenv("SNPS_LUA");
	char out[192];
	FILE *f;
	unsigned topics = 0, lines = 0;
	char line[256];

	if (lua == NULL || netns_run("command -v tshark >/dev/null 2>&1") != 0) {
		fprintf(stderr,
			"no tshark (or SNPS_LUA unset): the SNPS decode of the capture is not checked\n");
		return;
	}
	netns_path("a.snps.txt", out, sizeof(out));
	assert_int_equal(
	    netns_run("tshark -X 'lua_script:%s' -nr '%s' -Y snps -T fields -e snps.topic > '%s' 2>&1", lua,
		      path, out),
	    0);
	f = fopen(out, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		lines++;
		if (strncmp(line, "0x", 2) == 0 || (line[0] >= '0' && line[0] <= '9'))
			topics++;
	}
	fclose(f);
	fprintf(stderr, "tshark with snps.lua: %u SNPS frames, %u with a topic\n", lines, topics);
	assert_true(topics > 0);
	/* No dissector error anywhere in the full decode. */
	assert_int_not_equal(netns_run("tshark -X 'lua_script:%s' -nr '%s' -V 2>&1 | grep -E -q "
				       "'Malformed|Lua Error|\\[Expert Info \\(Error'",
				       lua, path),
			     0);
}

static void test_pcap(void **state)
{
	struct pcap_count c = {0};
	char path[192];
	uint32_t linktype = 0;
	int n;

	(void)state;
	netns_path("a.pcap", path, sizeof(path));
	n = probe_pcap_each(path, pcap_frame, &c, &linktype);
	fprintf(stderr, "a.pcap: %d frames, %u IPv6; ICMPv6 in %u out %u; UDP in %u out %u; bad probe %u\n",
		n, c.frames, c.icmp6_in, c.icmp6_out, c.udp_in, c.udp_out, c.bad_probe);
	if (n < 0)
		fail_msg("%s does not read as a pcap file: %s", path, strerror(-n));
	assert_int_equal(linktype, 1); /* LINKTYPE_ETHERNET */
	assert_true(c.icmp6_in > 0 && c.icmp6_out > 0);
	assert_true(c.udp_in > 0 && c.udp_out > 0);
	assert_int_equal(c.bad_probe, 1);
	/* A standard reader opens it too, when one is installed. */
	if (netns_run("command -v tcpdump >/dev/null 2>&1") == 0)
		assert_int_equal(netns_run("tcpdump -nr '%s' >/dev/null 2>&1", path), 0);
	else if (netns_run("command -v tshark >/dev/null 2>&1") == 0)
		assert_int_equal(netns_run("tshark -nr '%s' >/dev/null 2>&1", path), 0);
	else
		fprintf(stderr, "neither tcpdump nor tshark: the capture was read by this test alone\n");
	test_pcap_snps(path);
}

/* Groups whose leave (an MLDv2 record CHANGE_TO_INCLUDE_MODE, no sources) f carries, as bits of sdds_groups.
 */
static unsigned leaves_in(const uint8_t *f, size_t len)
{
	struct probe_pkt p;
	unsigned bits = 0;
	size_t off = 8;

	/* RFC 3810 §5.2: type 143, reserved, checksum, reserved, the number of records, then the records. */
	if (!probe_parse(f, len, &p) || memcmp(p.smac, daemon_mac, 6) != 0 || p.nh != PROBE_NH_ICMP6 ||
	    p.l4_len < 8 || p.l4[0] != 143)
		return 0;
	for (unsigned r = 0, nr = (unsigned)p.l4[6] << 8 | p.l4[7]; r < nr && off + 20 <= p.l4_len; r++) {
		const uint8_t *rec = p.l4 + off;
		unsigned nsrc = (unsigned)rec[2] << 8 | rec[3];
		struct in6_addr g;

		memcpy(&g, rec + 4, 16);
		for (size_t k = 0; k < sizeof(sdds_groups); k++) {
			struct in6_addr want;

			group_addr(sdds_groups[k], &want);
			if (rec[0] == 3 && nsrc == 0 && IN6_ARE_ADDR_EQUAL(&g, &want))
				bits |= 1u << k;
		}
		off += 20 + (size_t)rec[1] * 4 + (size_t)nsrc * 16;
	}
	return bits;
}

static unsigned mdb_count(const char *port)
{
	unsigned n = 0;

	for (size_t k = 0; k < sizeof(sdds_groups); k++) {
		struct in6_addr g;

		group_addr(sdds_groups[k], &g);
		n += probe_mdb_has(A, "br0", port, &g);
	}
	return n;
}

static void test_mld(void **state)
{
	static char raw[65536];
	uint8_t buf[2048];
	struct json_object *l;
	unsigned leaves = 0, n;
	int64_t end, t0;
	int fd;

	(void)state;
	l = probe_stack_link(A, sddsctl_bin, raw, sizeof(raw));
	for (size_t k = 0; k < sizeof(sdds_groups); k++) {
		struct in6_addr g;

		group_addr(sdds_groups[k], &g);
		if (!probe_stack_has_group(l, &g))
			probe_fail(raw, "the stack has not joined ff02::%x", sdds_groups[k]);
	}
	if (probe_stack_u64(l, "counters", "mld_report_out") == 0)
		probe_fail(raw, "no MLD report counted");
	probe_stack_put(l);
	end = netns_now_ms() + 5000;
	while ((n = mdb_count("tap0")) < sizeof(sdds_groups) && netns_now_ms() < end)
		usleep(100000);
	if (n < sizeof(sdds_groups)) {
		netns_run("bridge -n %s mdb show >&2", netns.ns[A]);
		fail_msg("%u of the six sDDS groups on port tap0 of br0 after 5 s", n);
	}

	fd = probe_raw_open(A, "tap0", NULL, NULL);
	assert_true(fd >= 0);
	netns_daemon_stop(A);
	t0 = netns_now_ms();
	/* The leave reports a sent as it stopped: the frames the kernel end received. */
	for (;;) {
		int type;
		ssize_t r = probe_raw_recv(fd, buf, sizeof(buf), 200, &type);

		if (r <= 0)
			break;
		if (type != PACKET_OUTGOING)
			leaves |= leaves_in(buf, (size_t)r);
	}
	close(fd);
	end = netns_now_ms() + 10000;
	while ((n = mdb_count("tap0")) > 0 && netns_now_ms() < end)
		usleep(100000);
	fprintf(stderr, "leaves seen: %#x of %#x; the database emptied in %lld ms\n", leaves,
		(1u << sizeof(sdds_groups)) - 1, (long long)(netns_now_ms() - t0));
	assert_int_equal(n, 0);
	assert_int_equal(leaves, (1u << sizeof(sdds_groups)) - 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exchange),	 cmocka_unit_test(test_nack_under_loss),
	    cmocka_unit_test(test_bad_checksum), cmocka_unit_test(test_pcap),
	    cmocka_unit_test(test_mld),
	};
	int rc;

	if (argc < 4) {
		fprintf(stderr, "usage: %s SDDSD SDDSCTL NET_HELPER\n", argv[0]);
		return 2;
	}
	sddsd_bin = argv[1];
	sddsctl_bin = argv[2];
	helper_bin = argv[3];
	if (access("/dev/net/tun", R_OK | W_OK) != 0) {
		fprintf(stderr, "test_stack_snps: no /dev/net/tun: skipped\n");
		return 77;
	}
	if (netns_run("command -v bridge >/dev/null 2>&1") != 0) {
		fprintf(stderr, "test_stack_snps: no bridge(8): skipped\n");
		return 77;
	}
	rc = netns_available_nft("test_stack_snps");
	if (rc != 0)
		return rc;
	rc = cmocka_run_group_tests(tests, group_setup, netns_group_teardown);
	netns_cleanup();
	return rc;
}
