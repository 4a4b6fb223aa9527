/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ip6.c - the whole IPv6 stack (lib/ip6) on the fake netdev
 * (tests/ip6), fed raw Ethernet frames with timer steps, sends and group
 * changes interleaved; every frame it emits must be well formed.
 *
 * OVERVIEW
 * Input: a sequence of records, each one op byte (op % 6) and its operands:
 *   0  frame:  u8 len, len bytes, as received (taken as they are)
 *   1  frame:  u8 len, len bytes, with the IPv6 payload length and the
 *              ICMPv6 or UDP checksum made right first (so the fuzzer
 *              reaches ND, echo and UDP past the checksum)
 *   2  clock:  u8 n, the clock moves n * 20 ms and the timer queue runs
 *   3  send:   u8 dst (peer link-local, all-nodes, on-link global,
 *              off-link global), u8 len: a UDP datagram of len bytes
 *   4  group:  u8 g: join (bit 7 clear) or leave group ff02::1:ff00:g
 *   5  link:   u8 up (bit 0): the link goes down or up
 * A truncated record ends the input. Frames are 0..255 bytes: enough for
 * every header the stack parses. Each input runs on a fresh stack: MAC
 * 02:00:00:00:00:01, a static address 2001:db8::1/64, one DAD transmit,
 * RAs accepted, a 4-entry neighbor cache; the fake's random is a counter.
 *
 * After every record the stack's tx batch is flushed and each frame the
 * device got is checked with the stack's own parser: Ethernet from our
 * MAC, IPv6 length equal to the frame, within the MTU, ICMPv6 or UDP only,
 * a right checksum (UDP's never zero, its length the payload's), hop
 * limit 255 on ND, 1 and a Router Alert on MLD, a multicast destination
 * on its 33:33 MAC. At the end the stack is freed and the pool must have
 * every buffer back. A failure crashes (FUZZ_CHECK).
 */
#include <string.h>

#include <ip6/stack.h>

#include "fake_netdev.h"
#include "fuzz.h"
#include "stack_impl.h"

static const uint8_t fz_mac[6] = {0x02, 0, 0, 0, 0, 0x01};

struct fz {
	struct fake_netdev dev;
	struct timerq tq;
	int64_t now;
	uint32_t rnd;
	struct ip6s *s;
};

static int64_t fz_now(void *ctx)
{
	return ((struct fz *)ctx)->now;
}

static uint32_t fz_random(void *ctx)
{
	struct fz *z = ctx;

	z->rnd = z->rnd * 1103515245u + 12345u;
	return z->rnd;
}

static void fz_udp(void *ctx, const struct ip6s_udp_meta *m, const uint8_t *payload, uint32_t len)
{
	volatile uint8_t sink = 0;

	(void)ctx;
	/* The payload must be readable to its end (ASan checks). */
	for (uint32_t i = 0; i < len; i++)
		sink ^= payload[i];
	FUZZ_CHECK(m->dport == 23234);
	(void)sink;
}

static void check_frame(const struct fz *z, const struct netdev_buf *b)
{
	struct ip6s_pkt p;
	enum ip6s_drop why;

	FUZZ_CHECK(ip6s_parse(b->data, b->len, &p, &why) == 0);
	FUZZ_CHECK(b->len == NETDEV_ETH_HLEN + p.ip_len);
	FUZZ_CHECK(p.ip_len <= ip6s_mtu(z->s));
	FUZZ_CHECK(memcmp(p.src_mac, fz_mac, 6) == 0);
	FUZZ_CHECK(p.proto == IP6S_NH_ICMP6 || p.proto == IP6S_NH_UDP);
	if (p.dst.s6_addr[0] == 0xff)
		FUZZ_CHECK(p.dst_mac[0] == 0x33 && p.dst_mac[1] == 0x33 &&
			   memcmp(p.dst_mac + 2, p.dst.s6_addr + 12, 4) == 0);
	else
		FUZZ_CHECK((p.dst_mac[0] & 1) == 0);
	if (p.proto == IP6S_NH_UDP) {
		FUZZ_CHECK(p.l4_len >= 8);
		FUZZ_CHECK(ip6s_rd16(p.l4 + 4) == p.l4_len);
		FUZZ_CHECK(ip6s_rd16(p.l4 + 6) != 0);
		FUZZ_CHECK(!ip6s_is_unspec(&p.src));
	} else {
		FUZZ_CHECK(p.l4_len >= 4);
	}
	FUZZ_CHECK(ip6s_l4_cksum(&p.src, &p.dst, p.proto, p.l4, p.l4_len) == 0);
	if (p.proto != IP6S_NH_ICMP6)
		return;
	switch (p.l4[0]) {
	case ICMP6_ND_RS:
	case ICMP6_ND_RA:
	case ICMP6_ND_NS:
	case ICMP6_ND_NA:
	case ICMP6_ND_REDIRECT:
		FUZZ_CHECK(p.hlim == 255);
		break;
	case ICMP6_MLD_QUERY:
	case ICMP6_MLD_REPORT:
	case ICMP6_MLD_DONE:
	case ICMP6_MLD2_REPORT:
		FUZZ_CHECK(p.hlim == 1 && p.router_alert);
		break;
	case ICMP6_DST_UNREACH:
	case ICMP6_PARAM_PROB:
		/* Errors never go to a multicast address (RFC 4443 §2.4 e). */
		FUZZ_CHECK(p.dst.s6_addr[0] != 0xff);
		break;
	default:
		break;
	}
}

static void check_sent(struct fz *z)
{
	ip6s_flush(z->s);
	for (unsigned i = 0; i < z->dev.n_sent; i++)
		check_frame(z, z->dev.sent[i]);
	fake_netdev_clear_sent(&z->dev);
}

/* Makes the IPv6 payload length and the upper checksum of f right, where it parses that far. */
static void fix_frame(uint8_t *f, uint32_t len)
{
	struct ip6s_pkt p;
	enum ip6s_drop why;
	uint8_t *l4;

	if (len < NETDEV_ETH_HLEN + IP6S_HLEN)
		return;
	ip6s_wr16(f + NETDEV_ETH_HLEN + 4, (uint16_t)(len - NETDEV_ETH_HLEN - IP6S_HLEN));
	if (ip6s_parse(f, len, &p, &why) < 0)
		return;
	l4 = f + (p.l4 - f);
	if (p.proto == IP6S_NH_ICMP6 && p.l4_len >= 4) {
		l4[2] = l4[3] = 0;
		ip6s_wr16(l4 + 2, ip6s_l4_cksum(&p.src, &p.dst, p.proto, l4, p.l4_len));
	} else if (p.proto == IP6S_NH_UDP && p.l4_len >= 8) {
		l4[6] = l4[7] = 0;
		ip6s_wr16(l4 + 6, ip6s_l4_cksum(&p.src, &p.dst, p.proto, l4, p.l4_len));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct in6_addr dsts[4] = {
	    {.s6_addr = {0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 0x02}},
	    {.s6_addr = {0xff, 0x02, [15] = 0x01}},
	    {.s6_addr = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x02}},
	    {.s6_addr = {0x20, 0x01, 0x0d, 0xb9, [15] = 0x02}},
	};
	static const uint8_t zeros[256];
	struct ip6s_config cfg = {0};
	struct fz z;
	size_t i = 0;

	memset(&z, 0, sizeof(z));
	if (fake_netdev_open(&z.dev, fz_mac, 1500, 64) < 0)
		return 0;
	timerq_init(&z.tq);
	z.now = 1000000000;
	cfg.dev = &z.dev.base;
	cfg.tq = &z.tq;
	cfg.now = fz_now;
	cfg.random = fz_random;
	cfg.ctx = &z;
	cfg.accept_ra = true;
	cfg.dad_transmits = 1;
	cfg.neigh_cache = 4;
	cfg.pending_max = 8;
	cfg.addrs[0] = dsts[2];
	cfg.addrs[0].s6_addr[15] = 0x01;
	cfg.n_addrs = 1;
	FUZZ_CHECK(ip6s_new(&cfg, &z.s) == 0);
	FUZZ_CHECK(ip6s_udp_bind(z.s, 23234, fz_udp, &z) == 0);
	ip6s_start(z.s);
	check_sent(&z);

	while (i < size) {
		uint8_t op = data[i++] % 6;

		if (i >= size)
			break;
		switch (op) {
		case 0:
		case 1: {
			uint32_t len = data[i++];
			struct netdev_buf *b;

			if (size - i < len)
				goto done;
			b = fake_netdev_frame(&z.dev, data + i, len);
			i += len;
			if (b == NULL)
				break;
			if (op == 1)
				fix_frame(b->data, b->len);
			ip6s_input(z.s, b);
			break;
		}
		case 2: {
			int64_t target = z.now + (int64_t)data[i++] * 20000000, due;

			while (timerq_next_due(&z.tq, &due) && due <= target) {
				if (due > z.now)
					z.now = due;
				timerq_run(&z.tq, z.now);
				check_sent(&z);
			}
			z.now = target;
			timerq_run(&z.tq, z.now);
			break;
		}
		case 3: {
			uint8_t d, len;

			if (size - i < 2)
				goto done;
			d = data[i++];
			len = data[i++];
			ip6s_udp_send(z.s, NULL, 23234, &dsts[d % 4], 23234, 0, zeros, len);
			break;
		}
		case 4: {
			struct in6_addr g = {.s6_addr = {0xff, 0x02, [11] = 0x01, [12] = 0xff}};
			uint8_t v = data[i++];

			g.s6_addr[15] = v & 0x7f;
			if (v & 0x80)
				ip6s_leave(z.s, &g);
			else
				ip6s_join(z.s, &g);
			break;
		}
		case 5:
			ip6s_link_changed(z.s, data[i++] & 1);
			break;
		}
		check_sent(&z);
	}
done:
	check_sent(&z);
	ip6s_free(z.s);
	FUZZ_CHECK(timerq_count(&z.tq) == 0);
	FUZZ_CHECK(fake_netdev_close(&z.dev) == 0);
	return 0;
}
