/* SPDX-License-Identifier: MIT */
/*
 * udp6.c - UDP over IPv6 (RFC 768, RFC 8200 §8.1) for the stack: the
 * ports SNPS binds, checksums on both sides, Destination Unreachable
 * (port) for a datagram no one waits for.
 *
 * OVERVIEW
 * Input checks the header (8 bytes), the UDP length against the IPv6
 * payload (exactly equal: with no jumbograms a disagreement is damage)
 * and the checksum, which IPv6 makes mandatory: a zero checksum is
 * dropped like a wrong one (RFC 8200 §8.1). A datagram to an unbound port
 * is answered with Destination Unreachable code 4 (RFC 4443 §3.1) when it
 * was unicast; icmp6.c applies the rest of §2.4's rules. The receiver's
 * callback runs inside ip6s_input and sees the payload only during the
 * call.
 *
 * Output builds the header and payload in one pool buffer; ip6.c writes
 * the checksum (a computed 0 goes out as 0xffff).
 */
#include <errno.h>

#include "stack_impl.h"

void ip6s_udp6_input(struct ip6s *s, const struct ip6s_pkt *p, int64_t ts_ns)
{
	const uint8_t *u = p->l4;
	struct ip6s_udp_meta m;

	if (p->l4_len < 8) {
		ip6s_count_drop(s, IP6S_DROP_UDP_SHORT);
		return;
	}
	if (ip6s_rd16(u + 4) != p->l4_len) {
		ip6s_count_drop(s, IP6S_DROP_UDP_LEN);
		return;
	}
	if (ip6s_rd16(u + 6) == 0 || ip6s_l4_cksum(&p->src, &p->dst, IP6S_NH_UDP, u, p->l4_len) != 0) {
		ip6s_count_drop(s, IP6S_DROP_UDP_CKSUM);
		return;
	}
	m = (struct ip6s_udp_meta){
	    .src = p->src,
	    .dst = p->dst,
	    .sport = ip6s_rd16(u),
	    .dport = ip6s_rd16(u + 2),
	    .hlim = p->hlim,
	    .ts_ns = ts_ns,
	};
	for (unsigned i = 0; i < IP6S_MAX_PORTS; i++) {
		if (s->ports[i].used && s->ports[i].port == m.dport) {
			s->st.udp_in++;
			s->ports[i].fn(s->ports[i].ctx, &m, u + 8, p->l4_len - 8);
			return;
		}
	}
	ip6s_count_drop(s, IP6S_DROP_UDP_PORT);
	ip6s_icmp6_error(s, p, ICMP6_DST_UNREACH, 4, 0);
}

int ip6s_udp_bind(struct ip6s *s, uint16_t port, ip6s_udp_recv_fn fn, void *ctx)
{
	struct ip6s_port *free_slot = NULL;

	if (fn == NULL)
		return -EINVAL;
	for (unsigned i = 0; i < IP6S_MAX_PORTS; i++) {
		if (s->ports[i].used && s->ports[i].port == port)
			return -EADDRINUSE;
		if (!s->ports[i].used && free_slot == NULL)
			free_slot = &s->ports[i];
	}
	if (free_slot == NULL)
		return -ENOSPC;
	*free_slot = (struct ip6s_port){.port = port, .used = true, .fn = fn, .ctx = ctx};
	return 0;
}

/*
 * One frame with k datagrams of len bytes (payloads[0..k)): a plain
 * datagram for k 1, else a run the device cuts (netdev.h, gso_size).
 */
static int udp_output(struct ip6s *s, const struct in6_addr *src, uint16_t sport, const struct in6_addr *dst,
		      uint16_t dport, uint8_t hlim, const void *const *payloads, uint32_t len, unsigned k)
{
	struct in6_addr from, nh;
	struct netdev_buf *b;
	uint8_t *u;
	int rc;

	if (!ip6s_running(s))
		return -ENETDOWN;
	if (len > s->mtu - IP6S_HLEN - 8 || NETDEV_ETH_HLEN + IP6S_HLEN + 8 + k * len > s->dev->pool->size)
		return -EMSGSIZE;
	if (ip6s_is_unspec(dst))
		return -EINVAL;
	if (src != NULL) {
		if (!ip6s_addr_usable(ip6s_addr_find(s, src)))
			return -EADDRNOTAVAIL;
		from = *src;
	} else if (ip6s_src_select(s, dst, &from) < 0) {
		return -EADDRNOTAVAIL;
	}
	/* Refuse an unreachable destination before a buffer is taken (RFC 4861 §5.2). */
	if (!ip6s_is_mcast(dst) && nd6_nexthop(s, dst, &nh) < 0)
		return -ENETUNREACH;
	if (hlim == 0)
		hlim = ip6s_is_mcast(dst) ? 1 : s->cur_hlim;
	b = ip6s_tx_alloc(s);
	if (b == NULL)
		return -ENOBUFS;
	if (k > 1)
		b->gso_size = (uint16_t)len;
	u = ip6s_l4(b, false);
	ip6s_wr16(u, sport);
	ip6s_wr16(u + 2, dport);
	ip6s_wr16(u + 4, (uint16_t)(8 + k * len));
	for (unsigned i = 0; i < k && len > 0; i++)
		memcpy(u + 8 + i * len, payloads[i], len);
	rc = ip6s_ip6_output(s, b, &from, dst, IP6S_NH_UDP, hlim, 8 + k * len, false, NULL);
	if (rc < 0)
		return rc;
	s->st.udp_out += k;
	if (k > 1)
		s->st.udp_runs_out++;
	return 0;
}

int ip6s_udp_send(struct ip6s *s, const struct in6_addr *src, uint16_t sport, const struct in6_addr *dst,
		  uint16_t dport, uint8_t hlim, const void *payload, uint32_t len)
{
	return udp_output(s, src, sport, dst, dport, hlim, &payload, len, 1);
}

/* Datagrams of len bytes one run of the device may carry in one pool buffer and one IPv6 payload. */
static unsigned udp_run_max(const struct ip6s *s, uint32_t len)
{
	uint32_t room = s->dev->pool->size - NETDEV_ETH_HLEN - IP6S_HLEN - 8;
	uint32_t k = room / len, k2 = (0xffffu - 8) / len;

	if (k2 < k)
		k = k2;
	if (s->dev->gso_max_segs < k)
		k = s->dev->gso_max_segs;
	return k;
}

int ip6s_udp_send_run(struct ip6s *s, const struct in6_addr *src, uint16_t sport, const struct in6_addr *dst,
		      uint16_t dport, uint8_t hlim, const void *const *payloads, uint32_t len, unsigned n,
		      unsigned *ret_sent)
{
	bool runs = (s->dev->caps & NETDEV_CAP_TX_USO) != 0 && s->cfg.capture == NULL && len > 0 &&
		    len <= s->mtu - IP6S_HLEN - 8 && udp_run_max(s, len) >= 2;
	unsigned sent = 0;
	int rc = 0;

	while (sent < n && rc == 0) {
		unsigned k = runs ? udp_run_max(s, len) : 1;

		if (k > n - sent)
			k = n - sent;
		rc = udp_output(s, src, sport, dst, dport, hlim, payloads + sent, len, k);
		if (rc == 0)
			sent += k;
	}
	*ret_sent = sent;
	return sent == n ? 0 : rc;
}
