/* SPDX-License-Identifier: MIT */
/*
 * icmp6.c - ICMPv6 (RFC 4443) for the stack: checksum and length checks,
 * Echo Reply, the two errors a host of SNPS sends (Destination
 * Unreachable, port, and Parameter Problem, unrecognized next header),
 * and dispatch of ND (nd6.c) and MLD (mld6.c) messages.
 *
 * OVERVIEW
 * Errors follow RFC 4443 §2.4: never about an ICMPv6 error message or a
 * packet whose source is unspecified or multicast, never about a packet
 * to a multicast address or sent as link-layer multicast (the two
 * exceptions of §2.4 e, Packet Too Big and a Parameter Problem code 2,
 * are messages this stack never sends), and at most cfg.icmp_rate per
 * second with a burst of the same size (§2.4 f): a token bucket whose
 * credit is nanoseconds of the clock, refilled from cfg.now when an error
 * is due, so it needs no timer. An error carries as much of the invoking
 * packet as fits in the minimum MTU (§2.4 c).
 *
 * Echo Requests to a multicast address are answered from a unicast
 * address (§4.2); those from the unspecified address are not.
 */
#include <errno.h>

#include "stack_impl.h"

static bool icmp_rate_ok(struct ip6s *s)
{
	int64_t now = ip6s_now(s);
	int64_t cost = 1000000000 / (int64_t)s->cfg.icmp_rate;
	int64_t cap = cost * (int64_t)s->cfg.icmp_rate;

	if (now > s->icmp_last) {
		s->icmp_credit += now - s->icmp_last;
		if (s->icmp_credit > cap)
			s->icmp_credit = cap;
	}
	s->icmp_last = now;
	if (s->icmp_credit < cost)
		return false;
	s->icmp_credit -= cost;
	return true;
}

void ip6s_icmp6_error(struct ip6s *s, const struct ip6s_pkt *p, uint8_t type, uint8_t code, uint32_t pointer)
{
	struct in6_addr src;
	struct netdev_buf *b;
	uint32_t quote;
	uint8_t *m;

	if (ip6s_is_unspec(&p->src) || ip6s_is_mcast(&p->src) || ip6s_is_mcast(&p->dst) ||
	    (p->dst_mac[0] & 1))
		return;
	/* Never an error about an error (§2.4 e.1); p->l4 may be an ICMPv6 message under extension headers.
	 */
	if (p->proto == IP6S_NH_ICMP6 && (p->l4_len < 1 || p->l4[0] < 128))
		return;
	/* The destination was one of our usable addresses (ip6.c checked it): answer from it. */
	src = p->dst;
	if (!icmp_rate_ok(s)) {
		ip6s_count_drop(s, IP6S_DROP_ICMP6_RATE);
		return;
	}
	b = ip6s_tx_alloc(s);
	if (b == NULL)
		return;
	quote = p->ip_len;
	if (quote > IP6S_MIN_MTU - IP6S_HLEN - 8)
		quote = IP6S_MIN_MTU - IP6S_HLEN - 8;
	if (quote > s->mtu - IP6S_HLEN - 8)
		quote = s->mtu - IP6S_HLEN - 8;
	m = ip6s_l4(b, false);
	m[0] = type;
	m[1] = code;
	ip6s_wr32(m + 4, pointer);
	memcpy(m + 8, p->ip, quote);
	if (ip6s_ip6_output(s, b, &src, &p->src, IP6S_NH_ICMP6, s->cur_hlim, 8 + quote, false, NULL) == 0) {
		s->st.icmp6_out++;
		s->st.errors_out++;
	}
}

static void echo_reply(struct ip6s *s, const struct ip6s_pkt *p)
{
	struct in6_addr src;
	struct netdev_buf *b;
	uint8_t *m;

	if (p->l4_len < 8) {
		ip6s_count_drop(s, IP6S_DROP_ICMP6_SHORT);
		return;
	}
	if (ip6s_is_unspec(&p->src)) {
		ip6s_count_drop(s, IP6S_DROP_IP6_SRC);
		return;
	}
	s->st.echo_in++;
	if (ip6s_is_mcast(&p->dst)) {
		if (ip6s_src_select(s, &p->src, &src) < 0) {
			ip6s_count_drop(s, IP6S_DROP_TX_NOROUTE);
			return;
		}
	} else {
		src = p->dst;
	}
	b = ip6s_tx_alloc(s);
	if (b == NULL)
		return;
	m = ip6s_l4(b, false);
	memcpy(m, p->l4, p->l4_len);
	m[0] = ICMP6_ECHO_REPLY;
	m[1] = 0;
	if (ip6s_ip6_output(s, b, &src, &p->src, IP6S_NH_ICMP6, s->cur_hlim, p->l4_len, false, NULL) == 0) {
		s->st.icmp6_out++;
		s->st.echo_out++;
	}
}

void ip6s_icmp6_input(struct ip6s *s, const struct ip6s_pkt *p)
{
	if (p->l4_len < 4) {
		ip6s_count_drop(s, IP6S_DROP_ICMP6_SHORT);
		return;
	}
	if (ip6s_l4_cksum(&p->src, &p->dst, IP6S_NH_ICMP6, p->l4, p->l4_len) != 0) {
		ip6s_count_drop(s, IP6S_DROP_ICMP6_CKSUM);
		return;
	}
	s->st.icmp6_in++;
	switch (p->l4[0]) {
	case ICMP6_ECHO_REQUEST:
		if (p->l4[1] != 0) {
			ip6s_count_drop(s, IP6S_DROP_ICMP6_TYPE);
			return;
		}
		echo_reply(s, p);
		break;
	case ICMP6_ND_RA:
	case ICMP6_ND_NS:
	case ICMP6_ND_NA:
		nd6_input(s, p);
		break;
	case ICMP6_MLD_QUERY:
	case ICMP6_MLD_REPORT:
	case ICMP6_MLD_DONE:
	case ICMP6_MLD2_REPORT:
		mld6_input(&s->mld, &p->src, &p->dst, p->hlim, p->router_alert, p->l4, p->l4_len);
		break;
	default:
		/*
		 * Echo replies, router solicitations and redirects (a host ignores
		 * them), errors about packets of ours (we keep no state they could
		 * act on) and unknown types (§2.4 b) are dropped.
		 */
		ip6s_count_drop(s, IP6S_DROP_ICMP6_TYPE);
		break;
	}
}
