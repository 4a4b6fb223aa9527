/* SPDX-License-Identifier: MIT */
/*
 * test_ip6.c - unit tests of the IPv6 stack (lib/ip6) on the fake netdev:
 * DAD, NS/NA, resolution with held packets, the neighbor state machine on
 * a fake clock, SLAAC from an RA, echo, UDP checksums and ports, and every
 * drop reason the core can be made to count.
 *
 * OVERVIEW
 * Each test builds frames by hand with the test's own checksum (not the
 * stack's), feeds them to ip6s_input and reads what the stack sent from
 * the fake's list. Every frame sent is checked before it is freed: it
 * parses with the stack's parser, its ICMPv6 or UDP checksum is right by
 * the test's sum, ND goes with hop limit 255. Time moves only through
 * advance(), which runs the timer queue at each due on the way. Teardown
 * frees the stack and checks that the pool got every buffer back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <ip6/stack.h>

#include "fake_netdev.h"
#include "stack_impl.h"

#define MS 1000000LL

static const uint8_t our_mac[6] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t peer_mac[6] = {0x02, 0, 0, 0, 0, 0x02};
static const uint8_t router_mac[6] = {0x02, 0, 0, 0, 0, 0xfe};
static const uint8_t bcast_mac[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const struct in6_addr our_ll = {.s6_addr = {0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 0x01}};
static const struct in6_addr peer_ll = {.s6_addr = {0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 0x02}};
static const struct in6_addr router_ll = {.s6_addr = {0xfe, 0x80, [15] = 0x01}};
static const struct in6_addr all_nodes = {.s6_addr = {0xff, 0x02, [15] = 0x01}};
static const struct in6_addr unspec;
static const struct in6_addr our_sn = {.s6_addr = {0xff, 0x02, [11] = 0x01, [12] = 0xff, [15] = 0x01}};
static const struct in6_addr static_addr = {.s6_addr = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x01}};
static const struct in6_addr static_peer = {.s6_addr = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x02}};

struct env {
	struct fake_netdev dev;
	struct timerq tq;
	int64_t now;
	uint32_t rnd;
	struct ip6s *s;
	unsigned ev[4];
	struct in6_addr ev_addr;
	unsigned cap_in, cap_out;
	unsigned rx_n;
	uint8_t rx_data[2048];
	uint32_t rx_len;
	struct ip6s_udp_meta rx_meta;
};

static struct env env;

/* ------------------------------------------------------------ helpers */

static int64_t t_now(void *ctx)
{
	return ((struct env *)ctx)->now;
}

static uint32_t t_random(void *ctx)
{
	return ((struct env *)ctx)->rnd;
}

static void t_event(void *ctx, enum ip6s_event ev, const struct in6_addr *a)
{
	struct env *e = ctx;

	e->ev[ev]++;
	if (a != NULL)
		e->ev_addr = *a;
}

static void t_capture(void *ctx, bool out, const struct netdev_buf *b)
{
	struct env *e = ctx;

	if (out)
		e->cap_out++;
	else
		e->cap_in++;
}

static void t_udp_recv(void *ctx, const struct ip6s_udp_meta *m, const uint8_t *payload, uint32_t len)
{
	struct env *e = ctx;

	e->rx_n++;
	e->rx_meta = *m;
	memcpy(e->rx_data, payload, len);
	e->rx_len = len;
}

/* The test's own Internet checksum over the pseudo-header (RFC 8200 §8.1), independent of cksum.c. */
static uint16_t t_cksum(const struct in6_addr *src, const struct in6_addr *dst, uint8_t proto,
			const uint8_t *m, uint32_t len)
{
	uint64_t sum = 0;

	for (int i = 0; i < 16; i += 2)
		sum += (uint32_t)(src->s6_addr[i] << 8 | src->s6_addr[i + 1]) +
		       (uint32_t)(dst->s6_addr[i] << 8 | dst->s6_addr[i + 1]);
	sum += (len >> 16) + (len & 0xffff) + proto;
	for (uint32_t i = 0; i < len; i++)
		sum += (i & 1) ? m[i] : (uint32_t)m[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void env_open(void (*tweak)(struct ip6s_config *))
{
	struct ip6s_config cfg = {0};
	struct env *e = &env;

	memset(e, 0, sizeof(*e));
	assert_int_equal(fake_netdev_open(&e->dev, our_mac, 1500, 64), 0);
	timerq_init(&e->tq);
	e->now = 1000 * MS;
	cfg.dev = &e->dev.base;
	cfg.tq = &e->tq;
	cfg.now = t_now;
	cfg.random = t_random;
	cfg.event = t_event;
	cfg.capture = t_capture;
	cfg.ctx = e;
	cfg.accept_ra = true;
	cfg.dad_transmits = 1;
	if (tweak != NULL)
		tweak(&cfg);
	assert_int_equal(ip6s_new(&cfg, &e->s), 0);
}

static void advance(int64_t ms)
{
	int64_t target = env.now + ms * MS, due;

	while (timerq_next_due(&env.tq, &due) && due <= target) {
		if (due > env.now)
			env.now = due;
		timerq_run(&env.tq, env.now);
	}
	env.now = target;
	timerq_run(&env.tq, env.now);
}

/* Parses sent frame i and checks it is well formed; returns its parse. */
static struct ip6s_pkt sent(unsigned i)
{
	struct ip6s_pkt p;
	enum ip6s_drop why;
	struct netdev_buf *b;

	assert_true(i < env.dev.n_sent);
	b = env.dev.sent[i];
	assert_int_equal(ip6s_parse(b->data, b->len, &p, &why), 0);
	assert_int_equal(b->len, NETDEV_ETH_HLEN + p.ip_len);
	assert_memory_equal(p.src_mac, our_mac, 6);
	if (p.proto == IP6S_NH_ICMP6 || p.proto == IP6S_NH_UDP) {
		assert_true(p.l4_len >= 4);
		assert_int_equal(t_cksum(&p.src, &p.dst, p.proto, p.l4, p.l4_len), 0);
	}
	if (p.proto == IP6S_NH_UDP) {
		assert_int_equal(ip6s_rd16(p.l4 + 4), p.l4_len);
		assert_int_not_equal(ip6s_rd16(p.l4 + 6), 0);
	}
	if (p.proto == IP6S_NH_ICMP6 && p.l4[0] >= ICMP6_ND_RS && p.l4[0] <= ICMP6_ND_REDIRECT)
		assert_int_equal(p.hlim, 255);
	/* The destination MAC is the multicast mapping of a multicast destination (RFC 2464 §7). */
	if (p.dst.s6_addr[0] == 0xff) {
		assert_int_equal(p.dst_mac[0], 0x33);
		assert_memory_equal(p.dst_mac + 2, p.dst.s6_addr + 12, 4);
	}
	return p;
}

static unsigned flush(void)
{
	assert_int_equal(ip6s_flush(env.s), 0);
	return env.dev.n_sent;
}

/* Checks every sent frame, then frees them. */
static void clear(void)
{
	ip6s_flush(env.s);
	for (unsigned i = 0; i < env.dev.n_sent; i++)
		sent(i);
	fake_netdev_clear_sent(&env.dev);
}

/* Index of the first sent frame of ICMPv6 type (or UDP when type is 0), or -1. */
static int sent_find(uint8_t type)
{
	ip6s_flush(env.s);
	for (unsigned i = 0; i < env.dev.n_sent; i++) {
		struct ip6s_pkt p = sent(i);

		if ((type == 0 && p.proto == IP6S_NH_UDP) ||
		    (type != 0 && p.proto == IP6S_NH_ICMP6 && p.l4[0] == type))
			return (int)i;
	}
	return -1;
}

static unsigned sent_count(uint8_t type)
{
	unsigned k = 0;

	ip6s_flush(env.s);
	for (unsigned i = 0; i < env.dev.n_sent; i++) {
		struct ip6s_pkt p = sent(i);

		if ((type == 0 && p.proto == IP6S_NH_UDP) ||
		    (type != 0 && p.proto == IP6S_NH_ICMP6 && p.l4[0] == type))
			k++;
	}
	return k;
}

/*
 * An Ethernet + IPv6 frame whose payload is ext (extension headers, ext_len
 * bytes, first next header nh) then the message m of proto; the message's
 * checksum is filled when fix is true. Returns the frame length.
 */
static uint32_t mk_ext(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, const struct in6_addr *src,
		       const struct in6_addr *dst, uint8_t hlim, uint8_t nh, const uint8_t *ext,
		       uint32_t ext_len, uint8_t proto, const uint8_t *m, uint32_t len, bool fix)
{
	uint8_t *ip = f + 14, *l4 = ip + 40 + ext_len;

	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	memset(ip, 0, 40);
	ip[0] = 0x60;
	ip6s_wr16(ip + 4, (uint16_t)(ext_len + len));
	ip[6] = nh;
	ip[7] = hlim;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	if (ext_len > 0)
		memcpy(ip + 40, ext, ext_len);
	memcpy(l4, m, len);
	if (fix && proto == IP6S_NH_ICMP6) {
		l4[2] = l4[3] = 0;
		ip6s_wr16(l4 + 2, t_cksum(src, dst, proto, l4, len));
	} else if (fix && proto == IP6S_NH_UDP) {
		l4[6] = l4[7] = 0;
		ip6s_wr16(l4 + 6, t_cksum(src, dst, proto, l4, len));
	}
	return 14 + 40 + ext_len + len;
}

static uint32_t mk(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, const struct in6_addr *src,
		   const struct in6_addr *dst, uint8_t hlim, uint8_t proto, const uint8_t *m, uint32_t len)
{
	return mk_ext(f, dmac, smac, src, dst, hlim, proto, NULL, 0, proto, m, len, true);
}

static void rx(const uint8_t *f, uint32_t len)
{
	struct netdev_buf *b = fake_netdev_frame(&env.dev, f, len);

	assert_non_null(b);
	ip6s_input(env.s, b);
}

static uint32_t ns_msg(uint8_t *m, const struct in6_addr *target, const uint8_t *slla)
{
	memset(m, 0, 32);
	m[0] = ICMP6_ND_NS;
	memcpy(m + 8, target, 16);
	if (slla == NULL)
		return 24;
	m[24] = ND_OPT_SLLA;
	m[25] = 1;
	memcpy(m + 26, slla, 6);
	return 32;
}

static uint32_t na_msg(uint8_t *m, const struct in6_addr *target, uint8_t flags, const uint8_t *tlla)
{
	memset(m, 0, 32);
	m[0] = ICMP6_ND_NA;
	m[4] = flags;
	memcpy(m + 8, target, 16);
	if (tlla == NULL)
		return 24;
	m[24] = ND_OPT_TLLA;
	m[25] = 1;
	memcpy(m + 26, tlla, 6);
	return 32;
}

static void solicited_mac(const struct in6_addr *a, uint8_t mac[6])
{
	mac[0] = mac[1] = 0x33;
	mac[2] = 0xff;
	memcpy(mac + 3, a->s6_addr + 13, 3);
}

/* Starts the stack and runs DAD of the link-local to its end; nothing left sent. */
static void bring_up(void)
{
	ip6s_start(env.s);
	advance(1000);
	assert_true(ip6s_linklocal(env.s, &(struct in6_addr){0}));
	clear();
}

/* The peer's NS for our link-local: we learn the peer (STALE) and answer. */
static void peer_known(void)
{
	uint8_t f[256], m[64];
	uint32_t len = ns_msg(m, &our_ll, peer_mac);

	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 255, IP6S_NH_ICMP6, m, len));
	clear();
}

static struct ip6s_neigh_info *neigh_get(const struct in6_addr *a)
{
	static struct ip6s_neigh_info info[64];
	unsigned n = ip6s_neighbors(env.s, info, 64);

	for (unsigned i = 0; i < n; i++)
		if (memcmp(&info[i].addr, a, 16) == 0)
			return &info[i];
	return NULL;
}

static const struct ip6s_addr_info *addr_get(const struct in6_addr *a)
{
	static struct ip6s_addr_info info[IP6S_MAX_ADDRS];
	unsigned n = ip6s_addrs(env.s, info, IP6S_MAX_ADDRS);

	for (unsigned i = 0; i < n; i++)
		if (memcmp(&info[i].addr, a, 16) == 0)
			return &info[i];
	return NULL;
}

static uint64_t drops(enum ip6s_drop why)
{
	return ip6s_stats(env.s)->drops[why];
}

static int teardown(void **state)
{
	uint32_t out;

	(void)state;
	clear();
	ip6s_free(env.s);
	env.s = NULL;
	assert_int_equal(timerq_count(&env.tq), 0);
	/* Every MAC the stack let in was taken out again. */
	assert_int_equal(env.dev.n_mcast, 0);
	out = fake_netdev_close(&env.dev);
	assert_int_equal(out, 0);
	return 0;
}

/* -------------------------------------------------------------- tests */

static void test_linklocal_dad_ok(void **state)
{
	uint8_t sn_mac[6], all_mac[6] = {0x33, 0x33, 0, 0, 0, 1};
	struct ip6s_pkt p;
	int i;

	(void)state;
	env_open(NULL);
	/* Nothing goes out before start. */
	assert_int_equal(flush(), 0);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &all_nodes, 2, 0, "x", 1), -ENETDOWN);
	ip6s_start(env.s);
	solicited_mac(&our_ll, sn_mac);
	assert_true(fake_netdev_mcast_has(&env.dev, sn_mac));
	assert_true(fake_netdev_mcast_has(&env.dev, all_mac));
	assert_int_equal(addr_get(&our_ll)->state, IP6S_ADDR_TENTATIVE);
	/* Tentative: no source yet. */
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &all_nodes, 2, 0, "x", 1), -EADDRNOTAVAIL);
	advance(0);
	i = sent_find(ICMP6_ND_NS);
	assert_true(i >= 0);
	p = sent((unsigned)i);
	assert_true(ip6s_is_unspec(&p.src));
	assert_memory_equal(&p.dst, &our_sn, 16);
	assert_memory_equal(p.l4 + 8, &our_ll, 16);
	assert_int_equal(p.l4_len, 24); /* no source link-layer option from :: */
	/* And an RS from :: to all-routers. */
	i = sent_find(ICMP6_ND_RS);
	assert_true(i >= 0);
	p = sent((unsigned)i);
	assert_true(ip6s_is_unspec(&p.src));
	clear();
	advance(999);
	assert_int_equal(env.ev[IP6S_EV_ADDR_READY], 0);
	advance(1);
	assert_int_equal(env.ev[IP6S_EV_ADDR_READY], 1);
	assert_memory_equal(&env.ev_addr, &our_ll, 16);
	assert_int_equal(addr_get(&our_ll)->state, IP6S_ADDR_PREFERRED);
	assert_int_equal(ip6s_stats(env.s)->dad_started, 1);
	/* RS again 4 s apart, three in all, now from the link-local with our MAC. */
	advance(4000);
	i = sent_find(ICMP6_ND_RS);
	assert_true(i >= 0);
	p = sent((unsigned)i);
	assert_memory_equal(&p.src, &our_ll, 16);
	assert_int_equal(p.l4[8], ND_OPT_SLLA);
	advance(20000);
	assert_int_equal(ip6s_stats(env.s)->rs_out, 3);
	assert_int_equal(env.cap_out, ip6s_stats(env.s)->eth_out);
}

static void test_dad_fail_na(void **state)
{
	uint8_t f[256], m[64];
	uint32_t len;

	(void)state;
	env_open(NULL);
	ip6s_start(env.s);
	advance(0);
	clear();
	/* Someone answers for our tentative address. */
	len = na_msg(m, &our_ll, 0x20, peer_mac);
	rx(f, mk(f, (const uint8_t[]){0x33, 0x33, 0, 0, 0, 1}, peer_mac, &our_ll, &all_nodes, 255,
		 IP6S_NH_ICMP6, m, len));
	assert_int_equal(addr_get(&our_ll)->state, IP6S_ADDR_DUPLICATE);
	assert_int_equal(env.ev[IP6S_EV_DAD_FAILED], 1);
	assert_int_equal(ip6s_stats(env.s)->dad_failed, 1);
	advance(5000);
	assert_int_equal(env.ev[IP6S_EV_ADDR_READY], 0);
	assert_false(ip6s_linklocal(env.s, &(struct in6_addr){0}));
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &all_nodes, 2, 0, "x", 1), -EADDRNOTAVAIL);
	/* Its solicited-node group was left. */
	uint8_t sn_mac[6];
	solicited_mac(&our_ll, sn_mac);
	assert_false(fake_netdev_mcast_has(&env.dev, sn_mac));
}

static void test_dad_fail_ns(void **state)
{
	uint8_t f[256], m[64], sn_mac[6];
	uint32_t len;

	(void)state;
	env_open(NULL);
	ip6s_start(env.s);
	solicited_mac(&our_ll, sn_mac);
	/* An NS for it from another node doing DAD (from ::, to the solicited-node group). */
	len = ns_msg(m, &our_ll, NULL);
	rx(f, mk(f, sn_mac, peer_mac, &unspec, &our_sn, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(addr_get(&our_ll)->state, IP6S_ADDR_DUPLICATE);
	assert_int_equal(env.ev[IP6S_EV_DAD_FAILED], 1);
	advance(3000);
	assert_int_equal(env.ev[IP6S_EV_ADDR_READY], 0);
}

static void test_ns_na(void **state)
{
	uint8_t f[256], m[64], sn_mac[6];
	struct ip6s_neigh_info *n;
	struct ip6s_pkt p;
	uint32_t len;
	int i;

	(void)state;
	env_open(NULL);
	bring_up();
	solicited_mac(&our_ll, sn_mac);
	len = ns_msg(m, &our_ll, peer_mac);
	rx(f, mk(f, sn_mac, peer_mac, &peer_ll, &our_sn, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(ip6s_stats(env.s)->ns_in, 1);
	i = sent_find(ICMP6_ND_NA);
	assert_true(i >= 0);
	p = sent((unsigned)i);
	assert_memory_equal(p.dst_mac, peer_mac, 6);
	assert_memory_equal(&p.dst, &peer_ll, 16);
	assert_memory_equal(&p.src, &our_ll, 16);
	assert_int_equal(p.l4[4], 0x60); /* solicited, override */
	assert_memory_equal(p.l4 + 8, &our_ll, 16);
	assert_int_equal(p.l4[24], ND_OPT_TLLA);
	assert_memory_equal(p.l4 + 26, our_mac, 6);
	n = neigh_get(&peer_ll);
	assert_non_null(n);
	assert_int_equal(n->state, IP6S_NEIGH_STALE);
	assert_memory_equal(n->mac, peer_mac, 6);
	clear();
	/* From :: (another node's DAD for our preferred address): an unsolicited NA to all nodes. */
	len = ns_msg(m, &our_ll, NULL);
	rx(f, mk(f, sn_mac, peer_mac, &unspec, &our_sn, 255, IP6S_NH_ICMP6, m, len));
	i = sent_find(ICMP6_ND_NA);
	assert_true(i >= 0);
	p = sent((unsigned)i);
	assert_memory_equal(&p.dst, &all_nodes, 16);
	assert_int_equal(p.l4[4], 0x20);
	assert_int_equal(addr_get(&our_ll)->state, IP6S_ADDR_PREFERRED);
	clear();
	/* An NS for an address not ours: nothing. */
	len = ns_msg(m, &peer_ll, peer_mac);
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(flush(), 0);
}

static void test_echo(void **state)
{
	uint8_t f[256], m[64];
	struct ip6s_pkt p;
	int i;

	(void)state;
	env_open(NULL);
	bring_up();
	peer_known();
	memset(m, 0, sizeof(m));
	m[0] = ICMP6_ECHO_REQUEST;
	ip6s_wr16(m + 4, 0x1234);
	ip6s_wr16(m + 6, 7);
	memcpy(m + 8, "hello, echo", 11);
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_ICMP6, m, 19));
	i = sent_find(ICMP6_ECHO_REPLY);
	assert_true(i >= 0);
	p = sent((unsigned)i);
	assert_memory_equal(p.dst_mac, peer_mac, 6);
	assert_memory_equal(&p.dst, &peer_ll, 16);
	assert_memory_equal(&p.src, &our_ll, 16);
	assert_int_equal(p.l4_len, 19);
	assert_memory_equal(p.l4 + 4, m + 4, 15);
	assert_int_equal(ip6s_stats(env.s)->echo_in, 1);
	assert_int_equal(ip6s_stats(env.s)->echo_out, 1);
	/* Sending to the STALE peer started its delay (RFC 4861 §7.3.3). */
	assert_int_equal(neigh_get(&peer_ll)->state, IP6S_NEIGH_DELAY);
	clear();
	/* To all nodes: answered from our unicast address. */
	rx(f, mk(f, (const uint8_t[]){0x33, 0x33, 0, 0, 0, 1}, peer_mac, &peer_ll, &all_nodes, 64,
		 IP6S_NH_ICMP6, m, 19));
	i = sent_find(ICMP6_ECHO_REPLY);
	assert_true(i >= 0);
	p = sent((unsigned)i);
	assert_memory_equal(&p.src, &our_ll, 16);
	clear();
	/* From ::, not answered. */
	rx(f, mk(f, our_mac, peer_mac, &unspec, &our_ll, 64, IP6S_NH_ICMP6, m, 19));
	assert_int_equal(flush(), 0);
	assert_int_equal(drops(IP6S_DROP_IP6_SRC), 1);
	assert_int_equal(env.cap_in, 4); /* the NS of peer_known too */
}

static void test_resolution_held(void **state)
{
	uint8_t f[256], m[64];
	struct ip6s_neigh_info *n;
	struct ip6s_pkt p;
	uint32_t len;
	int i;

	(void)state;
	env_open(NULL);
	bring_up();
	for (unsigned k = 0; k < IP6S_PENDING_PER_NEIGH; k++)
		assert_int_equal(ip6s_udp_send(env.s, NULL, 1000, &peer_ll, 2000, 0, "data", 4), 0);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1000, &peer_ll, 2000, 0, "data", 4), -ENOBUFS);
	assert_int_equal(drops(IP6S_DROP_ND_PENDING), 1);
	n = neigh_get(&peer_ll);
	assert_non_null(n);
	assert_int_equal(n->state, IP6S_NEIGH_INCOMPLETE);
	assert_int_equal(n->pending, IP6S_PENDING_PER_NEIGH);
	/* One multicast NS to the peer's solicited-node group, with our MAC. */
	assert_int_equal(sent_count(ICMP6_ND_NS), 1);
	assert_int_equal(sent_count(0), 0);
	p = sent((unsigned)sent_find(ICMP6_ND_NS));
	assert_int_equal(p.dst.s6_addr[0], 0xff);
	assert_memory_equal(p.l4 + 8, &peer_ll, 16);
	assert_int_equal(p.l4[24], ND_OPT_SLLA);
	clear();
	len = na_msg(m, &peer_ll, 0x60, peer_mac);
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(sent_count(0), IP6S_PENDING_PER_NEIGH);
	i = sent_find(0);
	p = sent((unsigned)i);
	assert_memory_equal(p.dst_mac, peer_mac, 6);
	assert_int_equal(ip6s_rd16(p.l4), 1000);
	assert_int_equal(ip6s_rd16(p.l4 + 2), 2000);
	assert_int_equal(p.hlim, 64);
	n = neigh_get(&peer_ll);
	assert_int_equal(n->state, IP6S_NEIGH_REACHABLE);
	assert_int_equal(n->pending, 0);
	assert_int_equal(ip6s_stats(env.s)->udp_out, IP6S_PENDING_PER_NEIGH);
}

static void test_unresolved(void **state)
{
	(void)state;
	env_open(NULL);
	bring_up();
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &peer_ll, 2, 0, "a", 1), 0);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &peer_ll, 2, 0, "b", 1), 0);
	advance(2500);
	assert_int_equal(sent_count(ICMP6_ND_NS), 3); /* MAX_MULTICAST_SOLICIT */
	assert_non_null(neigh_get(&peer_ll));
	advance(1000);
	assert_null(neigh_get(&peer_ll));
	assert_int_equal(drops(IP6S_DROP_ND_UNRESOLVED), 2);
	assert_int_equal(sent_count(ICMP6_ND_NS), 3);
	/* No Destination Unreachable for our own packets. */
	assert_int_equal(sent_count(ICMP6_DST_UNREACH), 0);
}

static void test_state_machine(void **state)
{
	uint8_t f[256], m[64];
	struct ip6s_pkt p;
	uint32_t len;
	int i;

	(void)state;
	env_open(NULL);
	env.rnd = 0; /* ReachableTime = 0.5 * 30 s */
	bring_up();
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &peer_ll, 2, 0, "a", 1), 0);
	len = na_msg(m, &peer_ll, 0x40, peer_mac);
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(neigh_get(&peer_ll)->state, IP6S_NEIGH_REACHABLE);
	clear();
	advance(14999);
	assert_int_equal(neigh_get(&peer_ll)->state, IP6S_NEIGH_REACHABLE);
	advance(1);
	assert_int_equal(neigh_get(&peer_ll)->state, IP6S_NEIGH_STALE);
	assert_int_equal(sent_count(0), 0);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &peer_ll, 2, 0, "b", 1), 0);
	assert_int_equal(sent_count(0), 1);
	assert_int_equal(neigh_get(&peer_ll)->state, IP6S_NEIGH_DELAY);
	clear();
	advance(4999);
	assert_int_equal(neigh_get(&peer_ll)->state, IP6S_NEIGH_DELAY);
	advance(1);
	assert_int_equal(neigh_get(&peer_ll)->state, IP6S_NEIGH_PROBE);
	/* A unicast probe to the cached MAC. */
	i = sent_find(ICMP6_ND_NS);
	assert_true(i >= 0);
	p = sent((unsigned)i);
	assert_memory_equal(p.dst_mac, peer_mac, 6);
	assert_memory_equal(&p.dst, &peer_ll, 16);
	clear();
	advance(2000);
	assert_int_equal(sent_count(ICMP6_ND_NS), 2);
	assert_non_null(neigh_get(&peer_ll));
	advance(1000);
	assert_null(neigh_get(&peer_ll));
	assert_int_equal(sent_count(ICMP6_ND_NS), 2);
	/* A solicited NA while probing brings it back to REACHABLE. */
	clear();
	peer_known();
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &peer_ll, 2, 0, "c", 1), 0);
	advance(5000);
	assert_int_equal(neigh_get(&peer_ll)->state, IP6S_NEIGH_PROBE);
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(neigh_get(&peer_ll)->state, IP6S_NEIGH_REACHABLE);
	/* An NA without override for another MAC only makes it STALE, keeping the MAC. */
	len = na_msg(m, &peer_ll, 0x40, router_mac);
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(neigh_get(&peer_ll)->state, IP6S_NEIGH_STALE);
	assert_memory_equal(neigh_get(&peer_ll)->mac, peer_mac, 6);
}

static void tweak_reach_random(struct ip6s_config *cfg)
{
	(void)cfg;
	env.rnd = 0xffffffffu;
}

static void test_reachable_random(void **state)
{
	uint8_t f[256], m[64];
	uint32_t len;

	(void)state;
	/* random all ones: ReachableTime just under 1.5 * 30 s. */
	env_open(tweak_reach_random);
	ip6s_start(env.s);
	advance(1000);
	/* The DAD delay is random too: 0xffffffff % 1000 ms. */
	assert_false(ip6s_linklocal(env.s, &(struct in6_addr){0}));
	advance(295);
	clear();
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &peer_ll, 2, 0, "a", 1), 0);
	len = na_msg(m, &peer_ll, 0x40, peer_mac);
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 255, IP6S_NH_ICMP6, m, len));
	advance(44000);
	assert_int_equal(neigh_get(&peer_ll)->state, IP6S_NEIGH_REACHABLE);
	advance(1000);
	assert_int_equal(neigh_get(&peer_ll)->state, IP6S_NEIGH_STALE);
}

static uint32_t ra_msg(uint8_t *m, uint16_t router_life, const uint8_t *slla, uint32_t mtu, uint8_t pflags,
		       uint32_t valid, uint32_t preferred)
{
	uint32_t len = 16;

	memset(m, 0, 128);
	m[0] = ICMP6_ND_RA;
	m[4] = 64;
	ip6s_wr16(m + 6, router_life);
	if (slla != NULL) {
		m[len] = ND_OPT_SLLA;
		m[len + 1] = 1;
		memcpy(m + len + 2, slla, 6);
		len += 8;
	}
	if (mtu != 0) {
		m[len] = ND_OPT_MTU;
		m[len + 1] = 1;
		ip6s_wr32(m + len + 4, mtu);
		len += 8;
	}
	if (pflags != 0) {
		static const uint8_t prefix[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1};

		m[len] = ND_OPT_PREFIX;
		m[len + 1] = 4;
		m[len + 2] = 64;
		m[len + 3] = pflags;
		ip6s_wr32(m + len + 4, valid);
		ip6s_wr32(m + len + 8, preferred);
		memcpy(m + len + 16, prefix, 16);
		len += 32;
	}
	return len;
}

static void test_slaac_ra(void **state)
{
	static const struct in6_addr slaac = {
	    .s6_addr = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [11] = 0xff, [12] = 0xfe, [15] = 0x01}};
	static const struct in6_addr offlink = {.s6_addr = {0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 0x05}};
	static const struct in6_addr onlink = {.s6_addr = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 0x05}};
	const uint8_t all_mac[6] = {0x33, 0x33, 0, 0, 0, 1};
	const struct ip6s_addr_info *a;
	uint8_t f[256], m[128];
	struct ip6s_pkt p;
	uint32_t len;
	int64_t t0;
	int i;

	(void)state;
	env_open(NULL);
	bring_up();
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &offlink, 2, 0, "x", 1), -EADDRNOTAVAIL);
	/* Bad RAs first: hop limit, global source, MTU out of range. */
	len = ra_msg(m, 1800, router_mac, 0, 0xc0, 3600, 1800);
	rx(f, mk(f, all_mac, router_mac, &router_ll, &all_nodes, 64, IP6S_NH_ICMP6, m, len));
	assert_int_equal(drops(IP6S_DROP_ND_HLIM), 1);
	rx(f, mk(f, all_mac, router_mac, &static_peer, &all_nodes, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(drops(IP6S_DROP_ND_INVALID), 1);
	assert_int_equal(ip6s_stats(env.s)->ra_in, 0);
	assert_null(addr_get(&slaac));
	len = ra_msg(m, 1800, router_mac, 1000, 0, 0, 0);
	rx(f, mk(f, all_mac, router_mac, &router_ll, &all_nodes, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(ip6s_mtu(env.s), 1500);
	/* The good one. */
	len = ra_msg(m, 1800, router_mac, 1400, 0xc0, 3600, 1800);
	t0 = env.now;
	rx(f, mk(f, all_mac, router_mac, &router_ll, &all_nodes, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(ip6s_stats(env.s)->ra_in, 2);
	assert_int_equal(ip6s_mtu(env.s), 1400);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &offlink, 2, 0, "x", 1500 - 48), -EMSGSIZE);
	a = addr_get(&slaac);
	assert_non_null(a);
	assert_int_equal(a->state, IP6S_ADDR_TENTATIVE);
	assert_int_equal(a->origin, IP6S_ORIGIN_RA);
	assert_int_equal(a->valid_until, t0 + 3600000 * MS);
	assert_true(neigh_get(&router_ll)->router);
	advance(1000);
	assert_int_equal(addr_get(&slaac)->state, IP6S_ADDR_PREFERRED);
	clear();
	/* Off-link through the router (known from its option, so sent at once), from the SLAAC address. */
	assert_int_equal(ip6s_udp_send(env.s, NULL, 5, &offlink, 6, 0, "routed", 6), 0);
	i = sent_find(0);
	assert_true(i >= 0);
	p = sent((unsigned)i);
	assert_memory_equal(p.dst_mac, router_mac, 6);
	assert_memory_equal(&p.src, &slaac, 16);
	assert_memory_equal(&p.dst, &offlink, 16);
	clear();
	/* On-link (the L flag): resolved directly, not through the router. */
	assert_int_equal(ip6s_udp_send(env.s, NULL, 5, &onlink, 6, 0, "direct", 6), 0);
	p = sent((unsigned)sent_find(ICMP6_ND_NS));
	assert_memory_equal(p.l4 + 8, &onlink, 16);
	clear();
	/* Two-hour rule (RFC 4862 §5.5.3 e): a short valid lifetime does not cut ours under 2 h. */
	len = ra_msg(m, 1800, NULL, 0, 0x40, 60, 30);
	rx(f, mk(f, all_mac, router_mac, &router_ll, &all_nodes, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(addr_get(&slaac)->valid_until, t0 + 3600000 * MS);
	/* Preferred 30 s from now: then deprecated, no longer chosen. */
	advance(30000);
	assert_int_equal(addr_get(&slaac)->state, IP6S_ADDR_DEPRECATED);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 5, &offlink, 6, 0, "x", 1), -EADDRNOTAVAIL);
	/* And gone at the end of its valid lifetime. */
	advance(3600000);
	assert_null(addr_get(&slaac));
	assert_int_equal(env.ev[IP6S_EV_ADDR_GONE], 1);
	/* The router's lifetime ended too: no route. */
	assert_int_equal(ip6s_udp_send(env.s, &our_ll, 5, &offlink, 6, 0, "x", 1), -ENETUNREACH);
}

/* A link that goes down drops what was queued for it: it would leave stale when the link came back. */
static void test_link_down_drops_queue(void **state)
{
	(void)state;
	env_open(NULL);
	bring_up();
	env.dev.tx_room = 0;
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &all_nodes, 2, 0, "q", 1), 0);
	assert_int_equal(ip6s_flush(env.s), 4);
	assert_int_equal(env.dev.pool.out, 4);
	ip6s_link_changed(env.s, false);
	assert_int_equal(env.dev.pool.out, 0);
	env.dev.tx_room = UINT32_MAX;
	assert_int_equal(ip6s_flush(env.s), 0);
	assert_int_equal(env.dev.n_sent, 0);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &all_nodes, 2, 0, "q", 1), -ENETDOWN);
}

/* Another node has our interface identifier: no SLAAC address is made from it (RFC 4862 §5.4.5). */
static void test_slaac_after_dup_linklocal(void **state)
{
	static const struct in6_addr slaac = {
	    .s6_addr = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [11] = 0xff, [12] = 0xfe, [15] = 0x01}};
	const uint8_t all_mac[6] = {0x33, 0x33, 0, 0, 0, 1};
	uint8_t f[256], m[128];
	uint32_t len;

	(void)state;
	env_open(NULL);
	ip6s_start(env.s);
	advance(0);
	len = na_msg(m, &our_ll, 0x20, peer_mac);
	rx(f, mk(f, all_mac, peer_mac, &our_ll, &all_nodes, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(addr_get(&our_ll)->state, IP6S_ADDR_DUPLICATE);
	len = ra_msg(m, 1800, router_mac, 0, 0xc0, 3600, 1800);
	rx(f, mk(f, all_mac, router_mac, &router_ll, &all_nodes, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(ip6s_stats(env.s)->ra_in, 1);
	assert_null(addr_get(&slaac));
}

/* The IPv6 pseudo-header's sum for UDP of len bytes, folded, not inverted (a run's checksum field). */
static uint16_t pseudo_sum(const struct in6_addr *a, const struct in6_addr *b, uint32_t len)
{
	uint32_t sum = len + IP6S_NH_UDP;

	for (int i = 0; i < 16; i += 2)
		sum += (uint32_t)(a->s6_addr[i] << 8 | a->s6_addr[i + 1]) +
		       (uint32_t)(b->s6_addr[i] << 8 | b->s6_addr[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static void tweak_no_capture(struct ip6s_config *cfg)
{
	cfg->capture = NULL;
}

/* A capture shows the frames of the wire: with one, a run leaves as one frame per datagram. */
static void test_udp_run_capture(void **state)
{
	static const uint8_t seg[2][7] = {"AAAAAAA", "BBBBBBB"};
	const void *pl[2] = {seg[0], seg[1]};
	unsigned sent_n = 0;

	(void)state;
	env_open(NULL);
	bring_up();
	env.dev.base.caps |= NETDEV_CAP_TX_USO;
	env.dev.base.gso_max_segs = 64;
	assert_int_equal(ip6s_udp_send_run(env.s, NULL, 1, &all_nodes, 2, 0, pl, 7, 2, &sent_n), 0);
	assert_int_equal(ip6s_flush(env.s), 0);
	assert_int_equal(env.dev.n_sent, 2);
	assert_int_equal(sent(1).l4_len, 15);
	assert_int_equal(ip6s_stats(env.s)->udp_runs_out, 0);
}

/* Runs of equal datagrams: one frame per run where the device cuts them, one each where it does not. */
static void test_udp_run(void **state)
{
	static const uint8_t seg[5][7] = {"AAAAAAA", "BBBBBBB", "CCCCCCC", "DDDDDDD", "EEEEEEE"};
	const void *pl[5] = {seg[0], seg[1], seg[2], seg[3], seg[4]};
	unsigned sent_n = 0;

	(void)state;
	env_open(tweak_no_capture);
	bring_up();
	/* No offload: five frames, each a whole datagram with its checksum (sent() checks it). */
	assert_int_equal(ip6s_udp_send_run(env.s, NULL, 1, &all_nodes, 2, 0, pl, 7, 5, &sent_n), 0);
	assert_int_equal(sent_n, 5);
	assert_int_equal(ip6s_flush(env.s), 0);
	assert_int_equal(env.dev.n_sent, 5);
	for (unsigned i = 0; i < 5; i++) {
		struct ip6s_pkt p = sent(i);

		assert_int_equal(p.l4_len, 15);
		assert_memory_equal(p.l4 + 8, seg[i], 7);
		assert_int_equal(env.dev.sent[i]->gso_size, 0);
	}
	assert_int_equal(ip6s_stats(env.s)->udp_runs_out, 0);
	clear();
	/* Offload, three per run: a run of three and one of two. */
	env.dev.base.caps |= NETDEV_CAP_TX_USO;
	env.dev.base.gso_max_segs = 3;
	assert_int_equal(ip6s_udp_send_run(env.s, NULL, 1, &all_nodes, 2, 0, pl, 7, 5, &sent_n), 0);
	assert_int_equal(sent_n, 5);
	assert_int_equal(ip6s_flush(env.s), 0);
	assert_int_equal(env.dev.n_sent, 2);
	for (unsigned r = 0, first = 0; r < 2; r++) {
		const struct netdev_buf *b = env.dev.sent[r];
		unsigned k = r == 0 ? 3 : 2;
		const uint8_t *ip = b->data + NETDEV_ETH_HLEN, *u = ip + 40;
		struct in6_addr src, dst;

		assert_int_equal(b->gso_size, 7);
		assert_int_equal(b->len, NETDEV_ETH_HLEN + 40 + 8 + 7 * k);
		assert_int_equal(ip[4] << 8 | ip[5], 8 + 7 * k);
		assert_int_equal(ip[6], IP6S_NH_UDP);
		assert_int_equal(ip[7], 1);
		assert_int_equal(u[4] << 8 | u[5], 8 + 7 * k);
		memcpy(&src, ip + 8, 16);
		memcpy(&dst, ip + 24, 16);
		assert_memory_equal(&src, &our_ll, 16);
		assert_int_equal(u[6] << 8 | u[7], pseudo_sum(&src, &dst, 8 + 7 * k));
		for (unsigned i = 0; i < k; i++)
			assert_memory_equal(u + 8 + 7 * i, seg[first + i], 7);
		first += k;
	}
	assert_int_equal(ip6s_stats(env.s)->udp_runs_out, 2);
	assert_int_equal(ip6s_stats(env.s)->udp_out, 10);
	/* Not clear(): a run's checksum is the device's to finish. */
	fake_netdev_clear_sent(&env.dev);
	/* Over the MTU per datagram: refused as ip6s_udp_send refuses it. */
	assert_int_equal(ip6s_udp_send_run(env.s, NULL, 1, &all_nodes, 2, 0, pl, 1500, 2, &sent_n),
			 -EMSGSIZE);
	assert_int_equal(sent_n, 0);
}

static void tweak_static(struct ip6s_config *cfg)
{
	cfg->addrs[0] = static_addr;
	cfg->prefix_lens[0] = 64;
	cfg->n_addrs = 1;
	cfg->dad_transmits = 2;
}

static void test_static_dad(void **state)
{
	(void)state;
	env_open(tweak_static);
	ip6s_start(env.s);
	advance(0);
	assert_int_equal(sent_count(ICMP6_ND_NS), 2); /* one per address */
	advance(1000);
	assert_int_equal(sent_count(ICMP6_ND_NS), 4);
	assert_int_equal(addr_get(&static_addr)->state, IP6S_ADDR_TENTATIVE);
	advance(1000);
	assert_int_equal(addr_get(&static_addr)->state, IP6S_ADDR_PREFERRED);
	assert_int_equal(env.ev[IP6S_EV_ADDR_READY], 2);
	clear();
	/* Global destination: the static address as source; on-link by its prefix. */
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &static_peer, 2, 0, "x", 1), 0);
	struct ip6s_pkt p = sent((unsigned)sent_find(ICMP6_ND_NS));
	assert_memory_equal(&p.src, &static_addr, 16);
	/* Link down: -ENETDOWN, the held packet dropped; up again: DAD again. */
	ip6s_link_changed(env.s, false);
	assert_int_equal(env.ev[IP6S_EV_LINK], 1);
	assert_int_equal(drops(IP6S_DROP_ND_UNRESOLVED), 1);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &static_peer, 2, 0, "x", 1), -ENETDOWN);
	ip6s_link_changed(env.s, true);
	assert_int_equal(addr_get(&static_addr)->state, IP6S_ADDR_TENTATIVE);
	advance(2000);
	assert_int_equal(addr_get(&static_addr)->state, IP6S_ADDR_PREFERRED);
}

static void test_udp(void **state)
{
	uint8_t f[256], u[64];
	uint32_t len;
	int i;

	(void)state;
	env_open(NULL);
	bring_up();
	peer_known();
	assert_int_equal(ip6s_udp_bind(env.s, 23234, t_udp_recv, &env), 0);
	assert_int_equal(ip6s_udp_bind(env.s, 23234, t_udp_recv, &env), -EADDRINUSE);
	assert_int_equal(ip6s_udp_bind(env.s, 1, t_udp_recv, &env), 0);
	assert_int_equal(ip6s_udp_bind(env.s, 2, t_udp_recv, &env), 0);
	assert_int_equal(ip6s_udp_bind(env.s, 3, t_udp_recv, &env), 0);
	assert_int_equal(ip6s_udp_bind(env.s, 4, t_udp_recv, &env), -ENOSPC);
	ip6s_wr16(u, 40000);
	ip6s_wr16(u + 2, 23234);
	ip6s_wr16(u + 4, 8 + 5);
	memcpy(u + 8, "snps!", 5);
	len = mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 7, IP6S_NH_UDP, u, 13);
	env.dev.clock = 4242;
	rx(f, len);
	assert_int_equal(env.rx_n, 1);
	assert_int_equal(env.rx_len, 5);
	assert_memory_equal(env.rx_data, "snps!", 5);
	assert_int_equal(env.rx_meta.sport, 40000);
	assert_int_equal(env.rx_meta.dport, 23234);
	assert_int_equal(env.rx_meta.hlim, 7);
	assert_int_equal(env.rx_meta.ts_ns, 4242);
	assert_memory_equal(&env.rx_meta.src, &peer_ll, 16);
	/* Bad checksum. */
	f[len - 1] ^= 0x55;
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_UDP_CKSUM), 1);
	/* Zero checksum: invalid in IPv6. */
	f[len - 1] ^= 0x55;
	f[14 + 40 + 6] = f[14 + 40 + 7] = 0;
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_UDP_CKSUM), 2);
	/* UDP length against the payload. */
	ip6s_wr16(u + 4, 12);
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 7, IP6S_NH_UDP, u, 13));
	assert_int_equal(drops(IP6S_DROP_UDP_LEN), 1);
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 7, IP6S_NH_UDP, u, 6));
	assert_int_equal(drops(IP6S_DROP_UDP_SHORT), 1);
	assert_int_equal(env.rx_n, 1);
	assert_int_equal(ip6s_stats(env.s)->udp_in, 1);
	/* An unbound port: Destination Unreachable code 4 with the datagram quoted. */
	ip6s_wr16(u + 2, 9999);
	ip6s_wr16(u + 4, 13);
	len = mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 7, IP6S_NH_UDP, u, 13);
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_UDP_PORT), 1);
	i = sent_find(ICMP6_DST_UNREACH);
	assert_true(i >= 0);
	struct ip6s_pkt p = sent((unsigned)i);
	assert_int_equal(p.l4[1], 4);
	assert_memory_equal(&p.dst, &peer_ll, 16);
	assert_int_equal(p.l4_len, 8 + len - 14);
	assert_memory_equal(p.l4 + 8, f + 14, len - 14);
	assert_int_equal(ip6s_stats(env.s)->errors_out, 1);
	clear();
	/* Not to a multicast destination. */
	rx(f, mk(f, (const uint8_t[]){0x33, 0x33, 0, 0, 0, 1}, peer_mac, &peer_ll, &all_nodes, 7, IP6S_NH_UDP,
		 u, 13));
	assert_int_equal(drops(IP6S_DROP_UDP_PORT), 2);
	assert_int_equal(flush(), 0);
	/* Sending: checksummed (sent() checks it), multicast hop limit 1, a zero checksum never. */
	assert_int_equal(ip6s_udp_send(env.s, NULL, 23234, &all_nodes, 23234, 0, "multi", 5), 0);
	p = sent((unsigned)sent_find(0));
	assert_int_equal(p.hlim, 1);
	assert_memory_equal(&p.src, &our_ll, 16);
	assert_memory_equal(p.l4 + 8, "multi", 5);
	assert_int_equal(ip6s_udp_send(env.s, &static_addr, 1, &all_nodes, 2, 0, "x", 1), -EADDRNOTAVAIL);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &all_nodes, 2, 0, "x", 1500 - 47), -EMSGSIZE);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &all_nodes, 2, 0, "x", 0), 0);
}

/* A payload whose checksum comes out zero is sent with 0xffff (RFC 8200 §8.1). */
static void test_udp_zero_sum(void **state)
{
	uint8_t payload[2], hdr[10];
	uint16_t c;
	struct ip6s_pkt p;

	(void)state;
	env_open(NULL);
	bring_up();
	/* Find the two payload bytes that make the sum 0xffff: the checksum over them with 0 is then 0. */
	ip6s_wr16(hdr, 7);
	ip6s_wr16(hdr + 2, 9);
	ip6s_wr16(hdr + 4, 10);
	hdr[6] = hdr[7] = hdr[8] = hdr[9] = 0;
	c = t_cksum(&our_ll, &all_nodes, IP6S_NH_UDP, hdr, 10);
	ip6s_wr16(payload, c);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 7, &all_nodes, 9, 0, payload, 2), 0);
	p = sent((unsigned)sent_find(0));
	assert_int_equal(ip6s_rd16(p.l4 + 6), 0xffff);
}

static void test_drops_eth_ip6(void **state)
{
	uint8_t f[2100], m[64], ext[128];
	const uint8_t other_mac[6] = {0x02, 9, 9, 9, 9, 9};
	const uint8_t mcast_src[6] = {0x03, 0, 0, 0, 0, 2};
	const uint8_t unjoined[6] = {0x33, 0x33, 0, 0, 0, 0x77};
	const struct in6_addr other = {.s6_addr = {0xfe, 0x80, [15] = 0x99}};
	const struct in6_addr mcast = {.s6_addr = {0xff, 0x02, [15] = 0x99}};
	uint32_t len;

	(void)state;
	env_open(NULL);
	bring_up();
	peer_known();
	memset(m, 0, sizeof(m));
	m[0] = ICMP6_ECHO_REQUEST;
	len = mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_ICMP6, m, 16);
	rx(f, 10);
	assert_int_equal(drops(IP6S_DROP_ETH_SHORT), 1);
	f[12] = 0x08;
	f[13] = 0x00;
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_ETH_TYPE), 1);
	len = mk(f, other_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_ICMP6, m, 16);
	rx(f, len);
	len = mk(f, unjoined, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_ICMP6, m, 16);
	rx(f, len);
	len = mk(f, bcast_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_ICMP6, m, 16);
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_ETH_OTHER_MAC), 3);
	len = mk(f, our_mac, mcast_src, &peer_ll, &our_ll, 64, IP6S_NH_ICMP6, m, 16);
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_ETH_SRC_MCAST), 1);
	memset(f + 14, 0, 1600);
	len = mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_ICMP6, m, 16);
	rx(f, 14 + 1501);
	assert_int_equal(drops(IP6S_DROP_OVERSIZE), 1);
	rx(f, 14 + 39);
	assert_int_equal(drops(IP6S_DROP_IP6_SHORT), 1);
	f[14] = 0x40;
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_IP6_VERSION), 1);
	f[14] = 0x60;
	rx(f, len - 1);
	assert_int_equal(drops(IP6S_DROP_IP6_LEN), 1);
	/* Padding after the payload is fine (a short frame padded to 60 bytes). */
	rx(f, len + 8);
	assert_int_equal(ip6s_stats(env.s)->echo_in, 1);
	len = mk(f, our_mac, peer_mac, &mcast, &our_ll, 64, IP6S_NH_ICMP6, m, 16);
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_IP6_SRC), 1);
	len = mk(f, our_mac, peer_mac, &peer_ll, &other, 64, IP6S_NH_ICMP6, m, 16);
	rx(f, len);
	len = mk(f, (const uint8_t[]){0x33, 0x33, 0, 0, 0, 0x99}, peer_mac, &peer_ll, &mcast, 64,
		 IP6S_NH_ICMP6, m, 16);
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_ETH_OTHER_MAC), 4);
	assert_int_equal(drops(IP6S_DROP_IP6_DST), 1);
	clear();

	/* Extension headers: one destination options header with a PadN, and a Router Alert in hop-by-hop. */
	memset(ext, 0, sizeof(ext));
	ext[0] = IP6S_NH_DSTOPTS;
	ext[2] = 5;
	ext[3] = 2;
	ext[6] = 1; /* hop-by-hop: Router Alert 0 and PadN 0 */
	ext[8] = IP6S_NH_ICMP6;
	ext[10] = 1;
	ext[11] = 4; /* PadN of 6 */
	len = mk_ext(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_HOPOPTS, ext, 16, IP6S_NH_ICMP6, m,
		     16, true);
	rx(f, len);
	assert_int_equal(ip6s_stats(env.s)->echo_in, 2);
	clear();
	/* Nine destination options headers: over the limit. */
	for (unsigned k = 0; k < 9; k++) {
		memset(ext + 8 * k, 0, 8);
		ext[8 * k] = k == 8 ? IP6S_NH_ICMP6 : IP6S_NH_DSTOPTS;
		ext[8 * k + 2] = 1;
		ext[8 * k + 3] = 4;
	}
	len = mk_ext(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_DSTOPTS, ext, 72, IP6S_NH_ICMP6, m,
		     16, true);
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_IP6_EXT_CHAIN), 1);
	/* A header longer than the payload. */
	ext[1] = 40;
	len = mk_ext(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_DSTOPTS, ext, 8, IP6S_NH_ICMP6, m,
		     16, true);
	rx(f, len);
	/* An option running past its header. */
	ext[1] = 0;
	ext[3] = 9;
	len = mk_ext(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_DSTOPTS, ext, 8, IP6S_NH_ICMP6, m,
		     16, true);
	rx(f, len);
	/* Hop-by-hop not first. */
	ext[0] = IP6S_NH_HOPOPTS;
	ext[3] = 4;
	ext[8] = IP6S_NH_ICMP6;
	ext[9] = 0;
	ext[10] = 1;
	ext[11] = 4;
	len = mk_ext(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_DSTOPTS, ext, 16, IP6S_NH_ICMP6, m,
		     16, true);
	rx(f, len);
	/* A routing header with segments left. */
	memset(ext, 0, 16);
	ext[0] = IP6S_NH_ICMP6;
	ext[3] = 1;
	len = mk_ext(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_ROUTING, ext, 8, IP6S_NH_ICMP6, m,
		     16, true);
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_IP6_EXT_CHAIN), 5);
	/* A fragment. */
	len = mk_ext(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_FRAGMENT, ext, 8, IP6S_NH_ICMP6, m,
		     16, true);
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_IP6_FRAGMENT), 1);
	assert_int_equal(flush(), 0);
	/* An unknown next header: Parameter Problem code 1 pointing at it (offset 6). */
	len = mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, 253, m, 16);
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_IP6_PROTO), 1);
	struct ip6s_pkt p = sent((unsigned)sent_find(ICMP6_PARAM_PROB));
	assert_int_equal(p.l4[1], 1);
	assert_int_equal(ip6s_rd32(p.l4 + 4), 6);
	clear();
	/* No next header: nothing answered. */
	len = mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_NONE, m, 0);
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_IP6_PROTO), 2);
	assert_int_equal(flush(), 0);
}

static void test_drops_icmp_nd(void **state)
{
	uint8_t f[256], m[64], sn_mac[6];
	uint32_t len;

	(void)state;
	env_open(NULL);
	bring_up();
	peer_known();
	solicited_mac(&our_ll, sn_mac);
	memset(m, 0, sizeof(m));
	m[0] = ICMP6_ECHO_REQUEST;
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_ICMP6, m, 3));
	assert_int_equal(drops(IP6S_DROP_ICMP6_SHORT), 1);
	len = mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_ICMP6, m, 16);
	f[len - 1] ^= 1;
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_ICMP6_CKSUM), 1);
	m[0] = 200;
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_ICMP6, m, 16));
	m[0] = ICMP6_ECHO_REPLY;
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_ICMP6, m, 16));
	/* An error about an error is never answered: an error for us is just dropped. */
	m[0] = ICMP6_DST_UNREACH;
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_ICMP6, m, 16));
	assert_int_equal(drops(IP6S_DROP_ICMP6_TYPE), 3);
	assert_int_equal(flush(), 0);

	/* ND: hop limit, zero-length, duplicate and truncated options, multicast target, bad :: NS. */
	len = ns_msg(m, &our_ll, peer_mac);
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 254, IP6S_NH_ICMP6, m, len));
	assert_int_equal(drops(IP6S_DROP_ND_HLIM), 1);
	m[25] = 0;
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 255, IP6S_NH_ICMP6, m, len));
	m[25] = 1;
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 255, IP6S_NH_ICMP6, m, len - 2));
	memcpy(m + 32, m + 24, 8);
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 255, IP6S_NH_ICMP6, m, 40));
	m[26] = 0x33; /* a group MAC as the source's link-layer address */
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 255, IP6S_NH_ICMP6, m, 32));
	m[26] = peer_mac[0];
	assert_int_equal(drops(IP6S_DROP_ND_OPTION), 4);
	len = ns_msg(m, &all_nodes, peer_mac);
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 255, IP6S_NH_ICMP6, m, len));
	len = ns_msg(m, &our_ll, peer_mac); /* from :: with a link-layer option */
	rx(f, mk(f, sn_mac, peer_mac, &unspec, &our_sn, 255, IP6S_NH_ICMP6, m, len));
	len = ns_msg(m, &our_ll, NULL); /* from :: to a unicast address */
	rx(f, mk(f, our_mac, peer_mac, &unspec, &our_ll, 255, IP6S_NH_ICMP6, m, len));
	rx(f, mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 255, IP6S_NH_ICMP6, m, 20));
	len = na_msg(m, &peer_ll, 0x40, peer_mac); /* solicited to a multicast address */
	rx(f, mk(f, (const uint8_t[]){0x33, 0x33, 0, 0, 0, 1}, peer_mac, &peer_ll, &all_nodes, 255,
		 IP6S_NH_ICMP6, m, len));
	assert_int_equal(drops(IP6S_DROP_ND_INVALID), 5);
	assert_int_equal(flush(), 0);
	assert_int_equal(addr_get(&our_ll)->state, IP6S_ADDR_PREFERRED);

	/* MLD with a hop limit other than 1 (mld6's check). */
	memset(m, 0, sizeof(m));
	m[0] = ICMP6_MLD_QUERY;
	rx(f, mk(f, (const uint8_t[]){0x33, 0x33, 0, 0, 0, 1}, peer_mac, &peer_ll, &all_nodes, 64,
		 IP6S_NH_ICMP6, m, 28));
	assert_int_equal(drops(IP6S_DROP_MLD_INVALID), 1);
}

static void test_icmp_rate(void **state)
{
	uint8_t f[256], m[16] = {0};
	uint32_t len;

	(void)state;
	env_open(NULL);
	bring_up();
	peer_known();
	len = mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, 253, m, 16);
	for (int k = 0; k < 15; k++)
		rx(f, len);
	/* Burst of 10 (the default rate), then the limit. */
	assert_int_equal(sent_count(ICMP6_PARAM_PROB), 10);
	assert_int_equal(drops(IP6S_DROP_ICMP6_RATE), 5);
	clear();
	advance(100); /* one token back */
	rx(f, len);
	rx(f, len);
	assert_int_equal(sent_count(ICMP6_PARAM_PROB), 1);
	assert_int_equal(drops(IP6S_DROP_ICMP6_RATE), 6);
}

static void tweak_small_cache(struct ip6s_config *cfg)
{
	cfg->neigh_cache = 1;
	cfg->pending_max = 1;
}

static void test_cache_full(void **state)
{
	const struct in6_addr third = {.s6_addr = {0xfe, 0x80, [15] = 0x33}};
	uint8_t f[256], m[64];
	uint32_t len;

	(void)state;
	env_open(tweak_small_cache);
	bring_up();
	/* One INCOMPLETE entry holding the one packet allowed. */
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &third, 2, 0, "a", 1), 0);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &third, 2, 0, "b", 1), -ENOBUFS);
	assert_int_equal(drops(IP6S_DROP_ND_PENDING), 1);
	/* No STALE entry to replace. */
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &peer_ll, 2, 0, "c", 1), -ENOBUFS);
	assert_int_equal(drops(IP6S_DROP_ND_NOENTRY), 1);
	advance(4000);
	assert_int_equal(drops(IP6S_DROP_ND_UNRESOLVED), 1);
	/* A STALE entry is replaced by the next neighbor (LRU). */
	peer_known();
	assert_int_equal(neigh_get(&peer_ll)->state, IP6S_NEIGH_STALE);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &third, 2, 0, "d", 1), 0);
	assert_null(neigh_get(&peer_ll));
	assert_int_equal(neigh_get(&third)->state, IP6S_NEIGH_INCOMPLETE);
	len = na_msg(m, &third, 0x60, router_mac);
	rx(f, mk(f, our_mac, router_mac, &third, &our_ll, 255, IP6S_NH_ICMP6, m, len));
	assert_int_equal(sent_count(0), 1);
}

static void test_tx_pool_and_queue(void **state)
{
	struct netdev_buf *held[64 + 1]; /* the pool's 64 and the NULL that ends the loop */
	unsigned n = 0;

	(void)state;
	env_open(NULL);
	bring_up();
	/* The device takes nothing: 32 queued, the 33rd dropped as TX_FULL. */
	env.dev.tx_room = 0;
	for (unsigned k = 0; k < IP6S_TXQ_LEN; k++)
		assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &all_nodes, 2, 0, "q", 1), 0);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &all_nodes, 2, 0, "q", 1), -ENOBUFS);
	assert_int_equal(drops(IP6S_DROP_TX_FULL), 1);
	assert_int_equal(ip6s_flush(env.s), IP6S_TXQ_LEN);
	/* Half taken, in order. */
	env.dev.tx_room = 16;
	assert_int_equal(ip6s_flush(env.s), IP6S_TXQ_LEN - 16);
	env.dev.tx_room = UINT32_MAX;
	assert_int_equal(ip6s_flush(env.s), 0);
	assert_int_equal(env.dev.n_sent, IP6S_TXQ_LEN);
	clear();
	/* An empty pool. */
	while ((held[n] = netdev_buf_alloc(&env.dev.pool)) != NULL)
		n++;
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &all_nodes, 2, 0, "q", 1), -ENOBUFS);
	assert_int_equal(drops(IP6S_DROP_TX_NOBUF), 1);
	while (n > 0)
		netdev_buf_free(&env.dev.pool, held[--n]);
	/* Auto-flush: more than a batch goes out without ip6s_flush. */
	for (unsigned k = 0; k < IP6S_TXQ_LEN + 1; k++)
		assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &all_nodes, 2, 0, "q", 1), 0);
	assert_int_equal(env.dev.n_sent, IP6S_TXQ_LEN);
}

static void test_noroute_and_groups(void **state)
{
	const struct in6_addr far = {.s6_addr = {0x20, 0x01, 0x0d, 0xb9, [15] = 0x05}};
	const struct in6_addr group = {.s6_addr = {0xff, 0x02, [15] = 0x55}};
	const uint8_t gmac[6] = {0x33, 0x33, 0, 0, 0, 0x55};
	struct ip6s_group_info gi[IP6S_MAX_GROUPS];
	uint8_t f[256], m[16] = {ICMP6_ECHO_REQUEST};
	uint32_t len;

	(void)state;
	env_open(tweak_static);
	ip6s_start(env.s);
	advance(2000);
	clear();
	/* An echo from off-link with no router: the reply has no route. */
	len = mk(f, our_mac, peer_mac, &far, &static_addr, 64, IP6S_NH_ICMP6, m, 16);
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_TX_NOROUTE), 1);
	assert_int_equal(ip6s_udp_send(env.s, NULL, 1, &far, 2, 0, "x", 1), -ENETUNREACH);
	/* Groups: reference counted, the MAC let in once, out at the last leave. */
	assert_int_equal(ip6s_join(env.s, &group), 0);
	assert_int_equal(ip6s_join(env.s, &group), 0);
	assert_int_equal(ip6s_join(env.s, &static_addr), -EINVAL);
	assert_true(fake_netdev_mcast_has(&env.dev, gmac));
	assert_true(ip6s_groups(env.s, gi, IP6S_MAX_GROUPS) >= 1);
	len = mk(f, gmac, peer_mac, &peer_ll, &group, 64, IP6S_NH_ICMP6, m, 16);
	rx(f, len);
	assert_int_equal(ip6s_stats(env.s)->echo_in, 2);
	assert_int_equal(ip6s_leave(env.s, &group), 0);
	assert_true(fake_netdev_mcast_has(&env.dev, gmac));
	assert_int_equal(ip6s_leave(env.s, &group), 0);
	assert_false(fake_netdev_mcast_has(&env.dev, gmac));
	assert_int_equal(ip6s_leave(env.s, &group), -ENOENT);
	rx(f, len);
	assert_int_equal(drops(IP6S_DROP_ETH_OTHER_MAC), 1);
	assert_string_equal(ip6s_drop_name(IP6S_DROP_UDP_CKSUM), "udp_cksum");
	assert_string_equal(ip6s_drop_name(IP6S_DROP_MAX), "?");
	assert_string_equal(ip6s_neigh_state_name(IP6S_NEIGH_REACHABLE), "REACHABLE");
	assert_string_equal(ip6s_addr_state_name(IP6S_ADDR_TENTATIVE), "tentative");
}

/* Through the device's rx_batch, as the daemon's loop does. */
static void test_rx_batch(void **state)
{
	struct netdev_buf *b[8];
	uint8_t f[256], m[16] = {ICMP6_ECHO_REQUEST};
	int n;

	(void)state;
	env_open(NULL);
	bring_up();
	peer_known();
	for (int k = 0; k < 3; k++)
		assert_int_equal(
		    fake_netdev_inject(&env.dev, f,
				       mk(f, our_mac, peer_mac, &peer_ll, &our_ll, 64, IP6S_NH_ICMP6, m, 16)),
		    0);
	n = env.dev.base.ops->rx_batch(&env.dev.base, b, 8);
	assert_int_equal(n, 3);
	for (int k = 0; k < n; k++)
		ip6s_input(env.s, b[k]);
	assert_int_equal(sent_count(ICMP6_ECHO_REPLY), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_linklocal_dad_ok, teardown),
	    cmocka_unit_test_teardown(test_dad_fail_na, teardown),
	    cmocka_unit_test_teardown(test_dad_fail_ns, teardown),
	    cmocka_unit_test_teardown(test_ns_na, teardown),
	    cmocka_unit_test_teardown(test_echo, teardown),
	    cmocka_unit_test_teardown(test_resolution_held, teardown),
	    cmocka_unit_test_teardown(test_unresolved, teardown),
	    cmocka_unit_test_teardown(test_state_machine, teardown),
	    cmocka_unit_test_teardown(test_reachable_random, teardown),
	    cmocka_unit_test_teardown(test_slaac_ra, teardown),
	    cmocka_unit_test_teardown(test_slaac_after_dup_linklocal, teardown),
	    cmocka_unit_test_teardown(test_link_down_drops_queue, teardown),
	    cmocka_unit_test_teardown(test_static_dad, teardown),
	    cmocka_unit_test_teardown(test_udp, teardown),
	    cmocka_unit_test_teardown(test_udp_run, teardown),
	    cmocka_unit_test_teardown(test_udp_run_capture, teardown),
	    cmocka_unit_test_teardown(test_udp_zero_sum, teardown),
	    cmocka_unit_test_teardown(test_drops_eth_ip6, teardown),
	    cmocka_unit_test_teardown(test_drops_icmp_nd, teardown),
	    cmocka_unit_test_teardown(test_icmp_rate, teardown),
	    cmocka_unit_test_teardown(test_cache_full, teardown),
	    cmocka_unit_test_teardown(test_tx_pool_and_queue, teardown),
	    cmocka_unit_test_teardown(test_noroute_and_groups, teardown),
	    cmocka_unit_test_teardown(test_rx_batch, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
