/* SPDX-License-Identifier: MIT */
/*
 * ip6.c - IPv6 (RFC 8200) for the stack: the parser every frame goes
 * through (ours on input, the tests' and the fuzz target's on output), the
 * destination check and dispatch, source address selection and the
 * header on output.
 *
 * OVERVIEW
 * Input: ip6s_parse checks the header (version 6, payload length within
 * the frame: Ethernet may pad a short frame, RFC 2464, so the payload
 * length wins over the frame's), rejects a multicast source (RFC 4291
 * §2.7) and walks the extension headers (RFC 8200 §4): hop-by-hop only
 * first (§4.1), destination options and routing headers anywhere, at most
 * IP6S_MAX_EXT_HDRS of them, each inside the payload. Options are walked
 * (§4.2): Pad1, PadN and Router Alert (RFC 2711) are understood; an
 * unknown option whose type asks for anything but "skip" drops the packet
 * (without the Parameter Problem §4.2 allows: a host of SNPS needs none).
 * A routing header with segments left is dropped: we are no router
 * (§4.4). A fragment header drops the packet (no reassembly: SNPS frames
 * fit one datagram) and is counted as IP6S_DROP_IP6_FRAGMENT.
 * ip6s_ip6_input then checks the destination: one of our addresses that
 * is preferred or deprecated (a tentative one takes nothing, RFC 4862
 * §5.4), ff02::1, or a group joined through mld6; and dispatches to
 * ICMPv6 and UDP, answering any other next header with a Parameter
 * Problem, code 1, pointing at it (RFC 8200 §4, RFC 4443 §3.4).
 *
 * Output: ip6s_ip6_output writes the header (flow label 0), a hop-by-hop
 * header with a Router Alert when asked (MLD, RFC 3810 §5), the ICMPv6 or
 * UDP checksum, and hands the frame to nd6_output.
 *
 * Source selection (RFC 6724 reduced to the scope rule stack.h gives):
 * link-local for a link-local destination or a multicast one of scope at
 * most link-local; otherwise a preferred global address, the longest
 * prefix match with the destination first.
 */
#include <errno.h>

#include "stack_impl.h"

const struct in6_addr ip6s_all_nodes = {.s6_addr = {0xff, 0x02, [15] = 0x01}};
const struct in6_addr ip6s_all_routers = {.s6_addr = {0xff, 0x02, [15] = 0x02}};

void ip6s_solicited_node(const struct in6_addr *a, struct in6_addr *ret)
{
	*ret = (struct in6_addr){.s6_addr = {0xff, 0x02, [11] = 0x01, [12] = 0xff}};
	memcpy(ret->s6_addr + 13, a->s6_addr + 13, 3);
}

bool ip6s_prefix_match(const struct in6_addr *a, const struct in6_addr *b, unsigned plen)
{
	unsigned bytes = plen / 8, bits = plen % 8;

	if (plen > 128)
		return false;
	if (memcmp(a->s6_addr, b->s6_addr, bytes) != 0)
		return false;
	if (bits == 0)
		return true;
	return ((a->s6_addr[bytes] ^ b->s6_addr[bytes]) & (uint8_t)(0xff00 >> bits)) == 0;
}

/* Walks the TLV options of a hop-by-hop or destination options header (RFC 8200 §4.2). */
static int walk_options(const uint8_t *o, uint32_t len, bool *router_alert)
{
	uint32_t i = 0;

	while (i < len) {
		uint8_t type = o[i];

		if (type == 0) { /* Pad1 */
			i++;
			continue;
		}
		if (len - i < 2 || o[i + 1] > len - i - 2)
			return -EINVAL;
		if (type == 5) { /* Router Alert, RFC 2711 §2.1 */
			if (o[i + 1] != 2)
				return -EINVAL;
			if (ip6s_rd16(o + i + 2) == 0)
				*router_alert = true;
		} else if (type != 1 && (type >> 6) != 0) {
			/* Unknown, and its two high bits say not to skip it (§4.2). */
			return -EINVAL;
		}
		i += 2u + o[i + 1];
	}
	return 0;
}

int ip6s_parse(const uint8_t *frame, uint32_t len, struct ip6s_pkt *p, enum ip6s_drop *why)
{
	const uint8_t *ip;
	uint32_t avail, end, off, nh_off;
	uint8_t nh;

	*p = (struct ip6s_pkt){0};
	if (len < NETDEV_ETH_HLEN) {
		*why = IP6S_DROP_ETH_SHORT;
		return -EINVAL;
	}
	memcpy(p->dst_mac, frame, NETDEV_ETH_ALEN);
	memcpy(p->src_mac, frame + NETDEV_ETH_ALEN, NETDEV_ETH_ALEN);
	if (ip6s_rd16(frame + 12) != 0x86dd) {
		*why = IP6S_DROP_ETH_TYPE;
		return -EINVAL;
	}
	ip = frame + NETDEV_ETH_HLEN;
	avail = len - NETDEV_ETH_HLEN;
	if (avail < IP6S_HLEN) {
		*why = IP6S_DROP_IP6_SHORT;
		return -EINVAL;
	}
	if ((ip[0] >> 4) != 6) {
		*why = IP6S_DROP_IP6_VERSION;
		return -EINVAL;
	}
	/* Ethernet pads frames under 60 bytes: the payload length may be shorter, never longer. */
	if (ip6s_rd16(ip + 4) > avail - IP6S_HLEN) {
		*why = IP6S_DROP_IP6_LEN;
		return -EINVAL;
	}
	end = IP6S_HLEN + ip6s_rd16(ip + 4);
	p->ip = ip;
	p->ip_len = end;
	p->hlim = ip[7];
	memcpy(&p->src, ip + 8, 16);
	memcpy(&p->dst, ip + 24, 16);
	if (ip6s_is_mcast(&p->src)) {
		*why = IP6S_DROP_IP6_SRC;
		return -EINVAL;
	}
	nh = ip[6];
	nh_off = 6;
	off = IP6S_HLEN;
	for (;;) {
		uint32_t hl;

		switch (nh) {
		case IP6S_NH_HOPOPTS:
		case IP6S_NH_DSTOPTS:
		case IP6S_NH_ROUTING:
			/* Hop-by-hop comes right after the IPv6 header or not at all (§4.1). */
			if ((nh == IP6S_NH_HOPOPTS && off != IP6S_HLEN) || ++p->n_ext > IP6S_MAX_EXT_HDRS ||
			    end - off < 8) {
				*why = IP6S_DROP_IP6_EXT_CHAIN;
				return -EINVAL;
			}
			hl = (ip[off + 1] + 1u) * 8u;
			if (hl > end - off) {
				*why = IP6S_DROP_IP6_EXT_CHAIN;
				return -EINVAL;
			}
			if (nh == IP6S_NH_ROUTING) {
				/* Segments left: we would have to forward it (§4.4). */
				if (ip[off + 3] != 0) {
					*why = IP6S_DROP_IP6_EXT_CHAIN;
					return -EINVAL;
				}
			} else {
				bool ra = false;

				if (walk_options(ip + off + 2, hl - 2, &ra) < 0) {
					*why = IP6S_DROP_IP6_EXT_CHAIN;
					return -EINVAL;
				}
				if (nh == IP6S_NH_HOPOPTS)
					p->router_alert = ra;
			}
			nh_off = off;
			nh = ip[off];
			off += hl;
			continue;
		case IP6S_NH_FRAGMENT:
			*why = IP6S_DROP_IP6_FRAGMENT;
			return -EINVAL;
		default:
			p->proto = nh;
			p->nh_off = nh_off;
			p->l4 = ip + off;
			p->l4_len = end - off;
			return 0;
		}
	}
}

struct ip6s_addr_slot *ip6s_addr_find(struct ip6s *s, const struct in6_addr *a)
{
	for (unsigned i = 0; i < IP6S_MAX_ADDRS; i++)
		if (s->addrs[i].used && ip6s_addr_eq(&s->addrs[i].addr, a))
			return &s->addrs[i];
	return NULL;
}

bool ip6s_addr_usable(const struct ip6s_addr_slot *a)
{
	return a != NULL && a->used && (a->state == IP6S_ADDR_PREFERRED || a->state == IP6S_ADDR_DEPRECATED);
}

static bool dst_ours(struct ip6s *s, const struct in6_addr *dst)
{
	if (ip6s_is_mcast(dst)) {
		/* Interface-local (and reserved scope 0) multicast never comes from the wire (RFC 4291 §2.7).
		 */
		if ((dst->s6_addr[1] & 0x0f) <= 1)
			return false;
		return ip6s_addr_eq(dst, &ip6s_all_nodes) || mld6_joined(&s->mld, dst);
	}
	return ip6s_addr_usable(ip6s_addr_find(s, dst));
}

void ip6s_ip6_input(struct ip6s *s, const struct netdev_buf *b)
{
	struct ip6s_pkt p;
	enum ip6s_drop why;

	if (ip6s_parse(b->data, b->len, &p, &why) < 0) {
		ip6s_count_drop(s, why);
		return;
	}
	if (!dst_ours(s, &p.dst)) {
		ip6s_count_drop(s, IP6S_DROP_IP6_DST);
		return;
	}
	s->st.ip6_in++;
	switch (p.proto) {
	case IP6S_NH_ICMP6:
		ip6s_icmp6_input(s, &p);
		break;
	case IP6S_NH_UDP:
		ip6s_udp6_input(s, &p, b->ts_ns);
		break;
	case IP6S_NH_NONE:
		/* Nothing follows (RFC 8200 §4.7): nothing to answer. */
		ip6s_count_drop(s, IP6S_DROP_IP6_PROTO);
		break;
	default:
		ip6s_count_drop(s, IP6S_DROP_IP6_PROTO);
		/* Unrecognized Next Header, pointing at the byte that named it (RFC 4443 §3.4). */
		ip6s_icmp6_error(s, &p, ICMP6_PARAM_PROB, 1, p.nh_off);
		break;
	}
}

int ip6s_src_select(struct ip6s *s, const struct in6_addr *dst, struct in6_addr *ret)
{
	const struct ip6s_addr_slot *best = NULL;
	unsigned best_len = 0;

	if (ip6s_is_linklocal(dst) || (ip6s_is_mcast(dst) && (dst->s6_addr[1] & 0x0f) <= 2)) {
		if (!ip6s_addr_usable(&s->addrs[0]))
			return -EADDRNOTAVAIL;
		*ret = s->addrs[0].addr;
		return 0;
	}
	for (unsigned i = 1; i < IP6S_MAX_ADDRS; i++) {
		const struct ip6s_addr_slot *a = &s->addrs[i];
		unsigned len = 0;

		if (!a->used || a->state != IP6S_ADDR_PREFERRED || ip6s_is_linklocal(&a->addr))
			continue;
		while (len < 128 && ip6s_prefix_match(&a->addr, dst, len + 1))
			len++;
		if (best == NULL || len > best_len) {
			best = a;
			best_len = len;
		}
	}
	if (best == NULL)
		return -EADDRNOTAVAIL;
	*ret = best->addr;
	return 0;
}

int ip6s_ip6_output(struct ip6s *s, struct netdev_buf *b, const struct in6_addr *src,
		    const struct in6_addr *dst, uint8_t proto, uint8_t hlim, uint32_t l4_len,
		    bool router_alert, const uint8_t *dst_mac)
{
	uint32_t ext = router_alert ? IP6S_RA_HLEN : 0;
	uint8_t *ip = b->data + NETDEV_ETH_HLEN;
	uint8_t *l4 = ip + IP6S_HLEN + ext;
	/* A segmentation run: each datagram it becomes must fit the MTU, the run the buffer. */
	uint32_t wire_l4 = b->gso_size != 0 ? 8u + b->gso_size : l4_len;
	int rc;

	if (IP6S_HLEN + ext + wire_l4 > s->mtu || NETDEV_ETH_HLEN + IP6S_HLEN + ext + l4_len > b->cap ||
	    ext + l4_len > 0xffff) {
		ip6s_count_drop(s, IP6S_DROP_OVERSIZE);
		netdev_buf_free(s->dev->pool, b);
		return -EMSGSIZE;
	}
	ip[0] = 0x60; /* version 6, traffic class 0, flow label 0 (RFC 8200 §3) */
	ip[1] = ip[2] = ip[3] = 0;
	ip6s_wr16(ip + 4, (uint16_t)(ext + l4_len));
	ip[6] = router_alert ? IP6S_NH_HOPOPTS : proto;
	ip[7] = hlim;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	if (router_alert) {
		uint8_t *h = ip + IP6S_HLEN;

		/* Hop-by-hop: Router Alert "MLD" (RFC 2711, RFC 3810 §5) and a PadN of 2 to 8 bytes. */
		h[0] = proto;
		h[1] = 0;
		h[2] = 5;
		h[3] = 2;
		h[4] = h[5] = 0;
		h[6] = 1;
		h[7] = 0;
	}
	if (proto == IP6S_NH_ICMP6 && l4_len >= 4) {
		l4[2] = l4[3] = 0;
		ip6s_wr16(l4 + 2, ip6s_l4_cksum(src, dst, proto, l4, l4_len));
	} else if (proto == IP6S_NH_UDP && l4_len >= 8 && b->gso_size != 0) {
		/* The device finishes each datagram's checksum from the pseudo-header's sum (netdev.h). */
		ip6s_wr16(l4 + 6, ip6s_pseudo_sum(src, dst, proto, l4_len));
	} else if (proto == IP6S_NH_UDP && l4_len >= 8) {
		uint16_t c;

		l4[6] = l4[7] = 0;
		c = ip6s_l4_cksum(src, dst, proto, l4, l4_len);
		/* A computed zero is sent as all ones: zero means "none", invalid in IPv6 (RFC 8200 §8.1). */
		ip6s_wr16(l4 + 6, c == 0 ? 0xffff : c);
	}
	b->len = NETDEV_ETH_HLEN + IP6S_HLEN + ext + l4_len;
	rc = nd6_output(s, b, dst, dst_mac);
	if (rc == 0)
		s->st.ip6_out++;
	return rc;
}
