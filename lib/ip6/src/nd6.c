/* SPDX-License-Identifier: MIT */
/*
 * nd6.c - Neighbor Discovery (RFC 4861) and stateless address
 * autoconfiguration (RFC 4862) for the stack: NS, NA, RS and RA, the
 * neighbor cache with its states and timers, packets held while a
 * neighbor resolves, the default router and on-link prefix lists, and DAD
 * and lifetimes of every address.
 *
 * OVERVIEW
 * Validation (RFC 4861 §6.1.2, §7.1.1, §7.1.2): hop limit 255 (else
 * IP6S_DROP_ND_HLIM: the message crossed a router), code 0, the fixed part
 * present, the target not multicast, options each of non-zero length
 * inside the message (IP6S_DROP_ND_OPTION), link-layer address and MTU
 * options at most once, of the Ethernet size (RFC 2464 §6) and with a
 * unicast MAC, an NS from
 * :: only to a solicited-node group and without a source link-layer
 * option, an NA to a multicast address not solicited, an RA only from a
 * link-local address. Other failures count IP6S_DROP_ND_INVALID.
 *
 * Neighbor cache (RFC 4861 §7.3.2, appendix C): a fixed table of
 * cfg.neigh_cache entries, each with one timer for its state:
 *   INCOMPLETE  multicast NS every RetransTimer (1 s), MAX_MULTICAST_SOLICIT
 *               (3) of them, then the entry goes and its held packets are
 *               dropped as IP6S_DROP_ND_UNRESOLVED;
 *   REACHABLE   for ReachableTime (30 s randomised in 0.5..1.5, §6.3.2),
 *               then STALE;
 *   STALE       no timer; sending a packet moves it to DELAY;
 *   DELAY       DELAY_FIRST_PROBE_TIME (5 s), then PROBE;
 *   PROBE       unicast NS every RetransTimer, MAX_UNICAST_SOLICIT (3),
 *               then the entry goes.
 * A full table replaces its least recently used STALE entry; when there
 * is none, the new neighbor is refused (IP6S_DROP_ND_NOENTRY). An entry
 * holds at most IP6S_PENDING_PER_NEIGH packets, the table cfg.pending_max
 * in all (IP6S_DROP_ND_PENDING beyond). No Destination Unreachable is
 * sent for the packets of an unresolved neighbor: they are our own.
 *
 * Next hop (§5.2): link-local destinations, those in the prefix of a
 * static address or of an RA prefix with the on-link flag are on-link;
 * others go to the first live default router, or fail -ENETUNREACH.
 * Routers and prefixes expire by comparing their deadline with the clock
 * when they are looked at, so they need no timer.
 *
 * Addresses (RFC 4862): every address starts TENTATIVE. With
 * cfg.dad_transmits > 0 it joins its solicited-node group (mld6, §5.4.2),
 * waits a random delay up to 1 s, sends dad_transmits NS from :: one
 * RetransTimer apart, and one RetransTimer after the last becomes
 * PREFERRED (IP6S_EV_ADDR_READY). An NS for it from :: (another node's
 * DAD) or an NA for it makes it DUPLICATE (§5.4.3, §5.4.4:
 * IP6S_EV_DAD_FAILED); it is then never used. RA prefixes with the
 * autonomous flag and a 64-bit length give prefix + the link-local's
 * interface identifier (§5.5.3), with the preferred lifetime
 * (DEPRECATED after it) and the valid lifetime (IP6S_EV_ADDR_GONE after
 * it), the valid one never cut below two hours by an RA (§5.5.3 e).
 *
 * Router solicitation (§6.3.7): up to MAX_RTR_SOLICITATIONS (3) RS,
 * RTR_SOLICITATION_INTERVAL (4 s) apart, the first after a random delay
 * up to 1 s; an RA stops them. From the link-local address with a source
 * link-layer option once it is preferred, else from :: without one.
 */
#include <errno.h>
#include <stdlib.h>

#include "stack_impl.h"

#define MS 1000000LL
#define ND_RETRANS_MS 1000u /* RETRANS_TIMER */
#define ND_MAX_MULTICAST_SOLICIT 3u
#define ND_MAX_UNICAST_SOLICIT 3u
#define ND_REACHABLE_MS 30000u /* REACHABLE_TIME */
#define ND_DELAY_FIRST_PROBE (5000 * MS)
#define ND_MAX_RTR_SOLICITATIONS 3u
#define ND_RTR_SOLICITATION_INTERVAL (4000 * MS)
#define ND_MAX_RTR_SOLICITATION_DELAY_MS 1000u
#define ND_INFINITY 0xffffffffu /* lifetime "forever" (RFC 4861 §4.6.2) */
#define SLAAC_TWO_HOURS (7200 * 1000 * MS)

/* The options of one ND message (RFC 4861 §4.6). */
struct nd_opts {
	const uint8_t *slla, *tlla, *mtu;
	const uint8_t *prefix[IP6S_MAX_PREFIXES];
	unsigned n_prefix;
};

static int nd_opts_parse(const uint8_t *o, uint32_t len, struct nd_opts *r)
{
	*r = (struct nd_opts){0};
	while (len > 0) {
		uint32_t olen;

		if (len < 2)
			return -EINVAL;
		olen = o[1] * 8u;
		/* A zero length would loop forever (§4.6): the whole message goes. */
		if (olen == 0 || olen > len)
			return -EINVAL;
		switch (o[0]) {
		case ND_OPT_SLLA:
		case ND_OPT_TLLA: {
			const uint8_t **slot = o[0] == ND_OPT_SLLA ? &r->slla : &r->tlla;

			/*
			 * Ethernet's link-layer option is 8 bytes (RFC 2464 §6), one of each kind,
			 * and names a unicast MAC: a group MAC would send unicast to a whole link.
			 */
			if (olen != 8 || *slot != NULL || (o[2] & 1))
				return -EINVAL;
			*slot = o;
			break;
		}
		case ND_OPT_MTU:
			if (olen != 8 || r->mtu != NULL)
				return -EINVAL;
			r->mtu = o;
			break;
		case ND_OPT_PREFIX:
			if (olen != 32)
				return -EINVAL;
			/* More prefixes than we keep are ignored, as unknown options are. */
			if (r->n_prefix < IP6S_MAX_PREFIXES)
				r->prefix[r->n_prefix++] = o;
			break;
		default:
			/* Unknown options are skipped (§4.6). */
			break;
		}
		o += olen;
		len -= olen;
	}
	return 0;
}

static void pick_reachable_time(struct ip6s *s)
{
	uint64_t base = s->base_reachable_ms;

	/* MIN_RANDOM_FACTOR 0.5 to MAX_RANDOM_FACTOR 1.5 of BaseReachableTime (§6.3.2). */
	s->reachable_ns = (int64_t)(base / 2 + ((base * ip6s_random(s)) >> 32)) * MS;
}

/* ---------------------------------------------------------------- sending */

static int send_ns(struct ip6s *s, const struct in6_addr *target, const struct in6_addr *src_hint,
		   const uint8_t *ucast_mac, bool dad)
{
	struct in6_addr src = {0}, dst;
	struct netdev_buf *b;
	uint32_t len = 24;
	uint8_t *m;

	/* §7.2.2: the source of the packet that prompted it if ours, else one of ours; :: for DAD (RFC 4862
	 * §5.4.2). */
	if (!dad) {
		if (src_hint != NULL && ip6s_addr_usable(ip6s_addr_find(s, src_hint)))
			src = *src_hint;
		else if (ip6s_src_select(s, target, &src) < 0)
			return -EADDRNOTAVAIL;
	}
	if (ucast_mac != NULL)
		dst = *target;
	else
		ip6s_solicited_node(target, &dst);
	b = ip6s_tx_alloc(s);
	if (b == NULL)
		return -ENOBUFS;
	m = ip6s_l4(b, false);
	memset(m, 0, 24);
	m[0] = ICMP6_ND_NS;
	memcpy(m + 8, target, 16);
	if (!dad) {
		m[24] = ND_OPT_SLLA;
		m[25] = 1;
		memcpy(m + 26, s->dev->mac, NETDEV_ETH_ALEN);
		len += 8;
	}
	if (ip6s_ip6_output(s, b, &src, &dst, IP6S_NH_ICMP6, 255, len, false, ucast_mac) < 0)
		return -ENOBUFS;
	s->st.icmp6_out++;
	s->st.ns_out++;
	return 0;
}

static void send_na(struct ip6s *s, const struct in6_addr *target, const struct in6_addr *dst,
		    const uint8_t *dst_mac, bool solicited)
{
	struct netdev_buf *b = ip6s_tx_alloc(s);
	uint8_t *m;

	if (b == NULL)
		return;
	m = ip6s_l4(b, false);
	memset(m, 0, 32);
	m[0] = ICMP6_ND_NA;
	/* Router 0, Solicited as asked, Override 1: the address is not anycast (§7.2.4). */
	m[4] = (uint8_t)((solicited ? 0x40 : 0) | 0x20);
	memcpy(m + 8, target, 16);
	m[24] = ND_OPT_TLLA;
	m[25] = 1;
	memcpy(m + 26, s->dev->mac, NETDEV_ETH_ALEN);
	if (ip6s_ip6_output(s, b, target, dst, IP6S_NH_ICMP6, 255, 32, false, dst_mac) == 0) {
		s->st.icmp6_out++;
		s->st.na_out++;
	}
}

static void send_rs(struct ip6s *s)
{
	struct netdev_buf *b = ip6s_tx_alloc(s);
	struct in6_addr src = {0};
	bool have_src = ip6s_addr_usable(&s->addrs[0]);
	uint32_t len = 8;
	uint8_t *m;

	if (b == NULL)
		return;
	m = ip6s_l4(b, false);
	memset(m, 0, 8);
	m[0] = ICMP6_ND_RS;
	/* No source link-layer option from :: (§4.1). */
	if (have_src) {
		src = s->addrs[0].addr;
		m[8] = ND_OPT_SLLA;
		m[9] = 1;
		memcpy(m + 10, s->dev->mac, NETDEV_ETH_ALEN);
		len += 8;
	}
	if (ip6s_ip6_output(s, b, &src, &ip6s_all_routers, IP6S_NH_ICMP6, 255, len, false, NULL) == 0) {
		s->st.icmp6_out++;
		s->st.rs_out++;
	}
}

/* ---------------------------------------------------------- neighbor cache */

static struct ip6s_neigh *neigh_find(struct ip6s *s, const struct in6_addr *a)
{
	for (uint32_t i = 0; i < s->n_neigh; i++)
		if (s->neigh[i].used && ip6s_addr_eq(&s->neigh[i].addr, a))
			return &s->neigh[i];
	return NULL;
}

static void neigh_drop_pending(struct ip6s *s, struct ip6s_neigh *n, bool count)
{
	for (uint32_t i = 0; i < n->n_pending; i++) {
		if (count)
			ip6s_count_drop(s, IP6S_DROP_ND_UNRESOLVED);
		netdev_buf_free(s->dev->pool, n->pending[i]);
		n->pending[i] = NULL;
	}
	s->pending_total -= n->n_pending;
	n->n_pending = 0;
}

static void neigh_remove(struct ip6s *s, struct ip6s_neigh *n, bool count)
{
	timerq_cancel(s->tq, &n->t);
	neigh_drop_pending(s, n, count);
	n->used = false;
}

static void neigh_set_state(struct ip6s *s, struct ip6s_neigh *n, enum ip6s_neigh_state st)
{
	int64_t now = ip6s_now(s);

	n->state = st;
	timerq_cancel(s->tq, &n->t);
	switch (st) {
	case IP6S_NEIGH_INCOMPLETE:
	case IP6S_NEIGH_PROBE:
		timerq_arm(s->tq, &n->t, now + (int64_t)s->retrans_ms * MS);
		break;
	case IP6S_NEIGH_REACHABLE:
		timerq_arm(s->tq, &n->t, now + s->reachable_ns);
		break;
	case IP6S_NEIGH_DELAY:
		timerq_arm(s->tq, &n->t, now + ND_DELAY_FIRST_PROBE);
		break;
	case IP6S_NEIGH_STALE:
		break;
	}
}

/* Sends what n held now that its MAC is known (§7.2.5, §7.2.3). */
static void neigh_send_pending(struct ip6s *s, struct ip6s_neigh *n)
{
	uint32_t k = n->n_pending;

	for (uint32_t i = 0; i < k; i++) {
		struct netdev_buf *b = n->pending[i];

		n->pending[i] = NULL;
		ip6s_eth_fill(s, b, n->mac);
		ip6s_tx_queue(s, b);
	}
	s->pending_total -= k;
	n->n_pending = 0;
	/* A packet sent to a STALE neighbor starts its probe delay (§7.3.3). */
	if (k > 0 && n->state == IP6S_NEIGH_STALE)
		neigh_set_state(s, n, IP6S_NEIGH_DELAY);
}

static void neigh_timer_do(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct ip6s_neigh *n = TIMERQ_CONTAINER_OF(t, struct ip6s_neigh, t);
	struct ip6s *s = n->s;

	switch (n->state) {
	case IP6S_NEIGH_INCOMPLETE:
		if (n->probes >= ND_MAX_MULTICAST_SOLICIT) {
			neigh_remove(s, n, true);
			return;
		}
		n->probes++;
		if (n->n_pending > 0) {
			struct in6_addr hint;

			memcpy(&hint, n->pending[0]->data + NETDEV_ETH_HLEN + 8, 16);
			send_ns(s, &n->addr, &hint, NULL, false);
		} else {
			send_ns(s, &n->addr, NULL, NULL, false);
		}
		timerq_arm(q, t, now + (int64_t)s->retrans_ms * MS);
		break;
	case IP6S_NEIGH_REACHABLE:
		neigh_set_state(s, n, IP6S_NEIGH_STALE);
		break;
	case IP6S_NEIGH_DELAY:
		n->probes = 1;
		neigh_set_state(s, n, IP6S_NEIGH_PROBE);
		send_ns(s, &n->addr, NULL, n->mac, false);
		break;
	case IP6S_NEIGH_PROBE:
		if (n->probes >= ND_MAX_UNICAST_SOLICIT) {
			neigh_remove(s, n, true);
			return;
		}
		n->probes++;
		send_ns(s, &n->addr, NULL, n->mac, false);
		timerq_arm(q, t, now + (int64_t)s->retrans_ms * MS);
		break;
	case IP6S_NEIGH_STALE:
		break;
	}
}

/* neigh_timer_do, then what it queued leaves at once: no other call may come to flush it. */
static void neigh_timer(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct ip6s_neigh *n = TIMERQ_CONTAINER_OF(t, struct ip6s_neigh, t);
	struct ip6s *s = n->s;

	neigh_timer_do(q, t, now);
	ip6s_flush(s);
}

/* A free entry for a, or the least recently used STALE one replaced; NULL (counted) when neither. */
static struct ip6s_neigh *neigh_alloc(struct ip6s *s, const struct in6_addr *a)
{
	struct ip6s_neigh *n = NULL;

	for (uint32_t i = 0; i < s->n_neigh && n == NULL; i++)
		if (!s->neigh[i].used)
			n = &s->neigh[i];
	for (uint32_t i = 0; i < s->n_neigh && n == NULL; i++) {
		struct ip6s_neigh *c = &s->neigh[i];

		if (c->state == IP6S_NEIGH_STALE && (n == NULL || c->last_used < n->last_used))
			n = c;
	}
	if (n == NULL) {
		ip6s_count_drop(s, IP6S_DROP_ND_NOENTRY);
		return NULL;
	}
	if (n->used)
		neigh_remove(s, n, true);
	n->used = true;
	n->addr = *a;
	memset(n->mac, 0, sizeof(n->mac));
	n->router = false;
	n->probes = 0;
	n->n_pending = 0;
	n->last_used = ip6s_now(s);
	n->state = IP6S_NEIGH_STALE;
	return n;
}

/* What an NS or RA with a source link-layer option teaches (§7.2.3, §6.3.4). */
static void neigh_learn(struct ip6s *s, const struct in6_addr *a, const uint8_t *mac, bool is_router)
{
	struct ip6s_neigh *n = neigh_find(s, a);

	if (n == NULL) {
		n = neigh_alloc(s, a);
		if (n == NULL)
			return;
		memcpy(n->mac, mac, NETDEV_ETH_ALEN);
		n->router = is_router;
		neigh_set_state(s, n, IP6S_NEIGH_STALE);
		return;
	}
	if (is_router)
		n->router = true;
	if (n->state == IP6S_NEIGH_INCOMPLETE) {
		memcpy(n->mac, mac, NETDEV_ETH_ALEN);
		neigh_set_state(s, n, IP6S_NEIGH_STALE);
		neigh_send_pending(s, n);
	} else if (memcmp(n->mac, mac, NETDEV_ETH_ALEN) != 0) {
		memcpy(n->mac, mac, NETDEV_ETH_ALEN);
		neigh_set_state(s, n, IP6S_NEIGH_STALE);
	}
}

/* ----------------------------------------------------- routes and output */

static void router_remove(struct ip6s *s, const struct in6_addr *a)
{
	for (unsigned i = 0; i < IP6S_MAX_ROUTERS; i++)
		if (s->routers[i].used && ip6s_addr_eq(&s->routers[i].addr, a))
			s->routers[i].used = false;
}

int nd6_nexthop(struct ip6s *s, const struct in6_addr *dst, struct in6_addr *ret)
{
	int64_t now = ip6s_now(s);

	if (ip6s_is_linklocal(dst)) {
		*ret = *dst;
		return 0;
	}
	for (unsigned i = 1; i < IP6S_MAX_ADDRS; i++) {
		const struct ip6s_addr_slot *a = &s->addrs[i];

		if (a->used && a->origin == IP6S_ORIGIN_STATIC && ip6s_prefix_match(&a->addr, dst, a->plen)) {
			*ret = *dst;
			return 0;
		}
	}
	for (unsigned i = 0; i < IP6S_MAX_PREFIXES; i++) {
		const struct ip6s_prefix *p = &s->prefixes[i];

		if (p->used && p->until > now && ip6s_prefix_match(&p->prefix, dst, p->plen)) {
			*ret = *dst;
			return 0;
		}
	}
	for (unsigned i = 0; i < IP6S_MAX_ROUTERS; i++) {
		if (s->routers[i].used && s->routers[i].until > now) {
			*ret = s->routers[i].addr;
			return 0;
		}
	}
	return -ENETUNREACH;
}

int nd6_output(struct ip6s *s, struct netdev_buf *b, const struct in6_addr *dst, const uint8_t *dst_mac)
{
	uint8_t mac[NETDEV_ETH_ALEN];
	struct in6_addr nh;
	struct ip6s_neigh *n;
	int rc;

	if (dst_mac != NULL) {
		ip6s_eth_fill(s, b, dst_mac);
		return ip6s_tx_queue(s, b);
	}
	if (ip6s_is_mcast(dst)) {
		ip6s_eth_mcast_mac(dst, mac);
		ip6s_eth_fill(s, b, mac);
		return ip6s_tx_queue(s, b);
	}
	rc = nd6_nexthop(s, dst, &nh);
	if (rc < 0) {
		ip6s_count_drop(s, IP6S_DROP_TX_NOROUTE);
		netdev_buf_free(s->dev->pool, b);
		return rc;
	}
	n = neigh_find(s, &nh);
	if (n == NULL) {
		n = neigh_alloc(s, &nh);
		if (n == NULL) {
			netdev_buf_free(s->dev->pool, b);
			return -ENOBUFS;
		}
		neigh_set_state(s, n, IP6S_NEIGH_INCOMPLETE);
	}
	n->last_used = ip6s_now(s);
	if (n->state == IP6S_NEIGH_INCOMPLETE) {
		bool first = n->probes == 0;

		if (n->n_pending >= IP6S_PENDING_PER_NEIGH || s->pending_total >= s->pending_max) {
			ip6s_count_drop(s, IP6S_DROP_ND_PENDING);
			netdev_buf_free(s->dev->pool, b);
			return -ENOBUFS;
		}
		n->pending[n->n_pending++] = b;
		s->pending_total++;
		if (first) {
			struct in6_addr hint;

			/* The first multicast solicitation goes now, the others on the timer (§7.2.2). */
			n->probes = 1;
			memcpy(&hint, b->data + NETDEV_ETH_HLEN + 8, 16);
			send_ns(s, &nh, &hint, NULL, false);
		}
		return 0;
	}
	ip6s_eth_fill(s, b, n->mac);
	if (n->state == IP6S_NEIGH_STALE)
		neigh_set_state(s, n, IP6S_NEIGH_DELAY);
	return ip6s_tx_queue(s, b);
}

/* ------------------------------------------------------------- addresses */

static void addr_life_arm(struct ip6s_addr_slot *a)
{
	struct ip6s *s = a->s;
	int64_t due = a->valid_until;

	if (a->state != IP6S_ADDR_DEPRECATED && a->preferred_until < due)
		due = a->preferred_until;
	if (due == INT64_MAX)
		timerq_cancel(s->tq, &a->life_t);
	else
		timerq_arm(s->tq, &a->life_t, due);
}

static void addr_leave_sn(struct ip6s_addr_slot *a)
{
	struct in6_addr sn;

	if (!a->sn_joined)
		return;
	ip6s_solicited_node(&a->addr, &sn);
	mld6_leave(&a->s->mld, &sn);
	a->sn_joined = false;
}

static void addr_remove(struct ip6s_addr_slot *a)
{
	struct ip6s *s = a->s;
	struct in6_addr gone = a->addr;

	timerq_cancel(s->tq, &a->dad_t);
	timerq_cancel(s->tq, &a->life_t);
	addr_leave_sn(a);
	a->used = false;
	ip6s_event(s, IP6S_EV_ADDR_GONE, &gone);
}

static void addr_ready(struct ip6s_addr_slot *a)
{
	struct ip6s *s = a->s;

	a->state = ip6s_now(s) >= a->preferred_until ? IP6S_ADDR_DEPRECATED : IP6S_ADDR_PREFERRED;
	addr_life_arm(a);
	ip6s_event(s, IP6S_EV_ADDR_READY, &a->addr);
}

static void dad_failed(struct ip6s_addr_slot *a)
{
	struct ip6s *s = a->s;

	timerq_cancel(s->tq, &a->dad_t);
	a->state = IP6S_ADDR_DUPLICATE;
	s->st.dad_failed++;
	addr_leave_sn(a);
	ip6s_event(s, IP6S_EV_DAD_FAILED, &a->addr);
}

static void dad_timer_do(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct ip6s_addr_slot *a = TIMERQ_CONTAINER_OF(t, struct ip6s_addr_slot, dad_t);
	struct ip6s *s = a->s;

	if (a->state != IP6S_ADDR_TENTATIVE)
		return;
	if (a->dad_left == 0) {
		/* RetransTimer after the last NS and no answer: the address is ours (RFC 4862 §5.4). */
		addr_ready(a);
		return;
	}
	a->dad_left--;
	send_ns(s, &a->addr, NULL, NULL, true);
	timerq_arm(q, t, now + (int64_t)s->retrans_ms * MS);
}

/* dad_timer_do, then what it queued leaves at once: no other call may come to flush it. */
static void dad_timer(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct ip6s_addr_slot *a = TIMERQ_CONTAINER_OF(t, struct ip6s_addr_slot, dad_t);
	struct ip6s *s = a->s;

	dad_timer_do(q, t, now);
	ip6s_flush(s);
}

static void life_timer_do(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct ip6s_addr_slot *a = TIMERQ_CONTAINER_OF(t, struct ip6s_addr_slot, life_t);

	if (now >= a->valid_until) {
		addr_remove(a);
		return;
	}
	if (now >= a->preferred_until && a->state == IP6S_ADDR_PREFERRED)
		a->state = IP6S_ADDR_DEPRECATED;
	if (a->state == IP6S_ADDR_TENTATIVE) {
		/* DAD decides; only the end of the valid lifetime is left to watch. */
		timerq_arm(q, t, a->valid_until);
		return;
	}
	addr_life_arm(a);
}

/* life_timer_do, then what it queued leaves at once: no other call may come to flush it. */
static void life_timer(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct ip6s_addr_slot *a = TIMERQ_CONTAINER_OF(t, struct ip6s_addr_slot, life_t);
	struct ip6s *s = a->s;

	life_timer_do(q, t, now);
	ip6s_flush(s);
}

void nd6_addr_start(struct ip6s_addr_slot *a)
{
	struct ip6s *s = a->s;
	struct in6_addr sn;

	timerq_cancel(s->tq, &a->dad_t);
	a->state = IP6S_ADDR_TENTATIVE;
	if (!ip6s_running(s))
		return;
	if (s->cfg.dad_transmits == 0) {
		addr_ready(a);
		return;
	}
	/* Join the solicited-node group first, so an answer or a rival's NS reaches us (RFC 4862 §5.4.2). */
	if (!a->sn_joined) {
		ip6s_solicited_node(&a->addr, &sn);
		a->sn_joined = mld6_join(&s->mld, &sn) == 0;
	}
	a->dad_left = s->cfg.dad_transmits;
	s->st.dad_started++;
	timerq_arm(s->tq, &a->dad_t,
		   ip6s_now(s) + (int64_t)(ip6s_random(s) % ND_MAX_RTR_SOLICITATION_DELAY_MS) * MS);
	if (a->valid_until != INT64_MAX)
		timerq_arm(s->tq, &a->life_t, a->valid_until);
}

/* ------------------------------------------------------------------ input */

static void ns_input(struct ip6s *s, const struct ip6s_pkt *p)
{
	const uint8_t *m = p->l4;
	struct in6_addr target, sn;
	struct ip6s_addr_slot *a;
	struct ip6s_neigh *n;
	struct nd_opts o;
	bool unspec = ip6s_is_unspec(&p->src);

	if (p->l4_len < 24 || m[1] != 0) {
		ip6s_count_drop(s, IP6S_DROP_ND_INVALID);
		return;
	}
	memcpy(&target, m + 8, 16);
	if (ip6s_is_mcast(&target)) {
		ip6s_count_drop(s, IP6S_DROP_ND_INVALID);
		return;
	}
	if (nd_opts_parse(m + 24, p->l4_len - 24, &o) < 0) {
		ip6s_count_drop(s, IP6S_DROP_ND_OPTION);
		return;
	}
	/* From :: only DAD's NS: to the target's solicited-node group, without our kind of option (§7.1.1).
	 */
	ip6s_solicited_node(&target, &sn);
	if (unspec && (!ip6s_addr_eq(&p->dst, &sn) || o.slla != NULL)) {
		ip6s_count_drop(s, IP6S_DROP_ND_INVALID);
		return;
	}
	s->st.ns_in++;
	a = ip6s_addr_find(s, &target);
	if (a == NULL || a->state == IP6S_ADDR_DUPLICATE)
		return;
	if (a->state == IP6S_ADDR_TENTATIVE) {
		/* Another node runs DAD for our tentative address (RFC 4862 §5.4.3). */
		if (unspec)
			dad_failed(a);
		return;
	}
	if (unspec) {
		/* Answer a rival's DAD to all nodes, unsolicited (§7.2.4). */
		send_na(s, &target, &ip6s_all_nodes, NULL, false);
		return;
	}
	if (o.slla != NULL)
		neigh_learn(s, &p->src, o.slla + 2, false);
	n = neigh_find(s, &p->src);
	send_na(s, &target, &p->src, n != NULL && n->state != IP6S_NEIGH_INCOMPLETE ? n->mac : p->src_mac,
		true);
}

static void na_input(struct ip6s *s, const struct ip6s_pkt *p)
{
	const uint8_t *m = p->l4;
	struct in6_addr target;
	struct ip6s_addr_slot *a;
	struct ip6s_neigh *n;
	struct nd_opts o;
	bool is_router, solicited, override, same;

	if (p->l4_len < 24 || m[1] != 0) {
		ip6s_count_drop(s, IP6S_DROP_ND_INVALID);
		return;
	}
	is_router = m[4] & 0x80;
	solicited = m[4] & 0x40;
	override = m[4] & 0x20;
	memcpy(&target, m + 8, 16);
	if (ip6s_is_mcast(&target) || (solicited && ip6s_is_mcast(&p->dst))) {
		ip6s_count_drop(s, IP6S_DROP_ND_INVALID);
		return;
	}
	if (nd_opts_parse(m + 24, p->l4_len - 24, &o) < 0) {
		ip6s_count_drop(s, IP6S_DROP_ND_OPTION);
		return;
	}
	s->st.na_in++;
	a = ip6s_addr_find(s, &target);
	if (a != NULL) {
		/* Someone has our tentative address (RFC 4862 §5.4.4); for a preferred one, nothing to do. */
		if (a->state == IP6S_ADDR_TENTATIVE)
			dad_failed(a);
		return;
	}
	n = neigh_find(s, &target);
	if (n == NULL)
		return;
	/* §7.2.5 */
	if (n->state == IP6S_NEIGH_INCOMPLETE) {
		if (o.tlla == NULL)
			return;
		memcpy(n->mac, o.tlla + 2, NETDEV_ETH_ALEN);
		n->router = is_router;
		neigh_set_state(s, n, solicited ? IP6S_NEIGH_REACHABLE : IP6S_NEIGH_STALE);
		neigh_send_pending(s, n);
		return;
	}
	same = o.tlla == NULL || memcmp(o.tlla + 2, n->mac, NETDEV_ETH_ALEN) == 0;
	if (!override && !same) {
		if (n->state == IP6S_NEIGH_REACHABLE)
			neigh_set_state(s, n, IP6S_NEIGH_STALE);
		return;
	}
	if (o.tlla != NULL)
		memcpy(n->mac, o.tlla + 2, NETDEV_ETH_ALEN);
	if (solicited)
		neigh_set_state(s, n, IP6S_NEIGH_REACHABLE);
	else if (!same)
		neigh_set_state(s, n, IP6S_NEIGH_STALE);
	if (n->router && !is_router)
		router_remove(s, &n->addr);
	n->router = is_router;
}

static int64_t deadline(struct ip6s *s, uint32_t secs)
{
	return secs == ND_INFINITY ? INT64_MAX : ip6s_now(s) + (int64_t)secs * 1000 * MS;
}

static void router_update(struct ip6s *s, const struct in6_addr *a, uint16_t lifetime)
{
	struct ip6s_router *free_slot = NULL;

	for (unsigned i = 0; i < IP6S_MAX_ROUTERS; i++) {
		struct ip6s_router *r = &s->routers[i];

		if (r->used && ip6s_addr_eq(&r->addr, a)) {
			if (lifetime == 0)
				r->used = false;
			else
				r->until = deadline(s, lifetime);
			return;
		}
		if ((!r->used || r->until <= ip6s_now(s)) && free_slot == NULL)
			free_slot = r;
	}
	if (lifetime != 0 && free_slot != NULL)
		*free_slot = (struct ip6s_router){.addr = *a, .until = deadline(s, lifetime), .used = true};
}

static void onlink_update(struct ip6s *s, const struct in6_addr *prefix, uint8_t plen, uint32_t valid)
{
	struct ip6s_prefix *free_slot = NULL;

	/* §6.3.4 */
	for (unsigned i = 0; i < IP6S_MAX_PREFIXES; i++) {
		struct ip6s_prefix *p = &s->prefixes[i];

		if (p->used && p->plen == plen && ip6s_prefix_match(&p->prefix, prefix, plen)) {
			if (valid == 0)
				p->used = false;
			else
				p->until = deadline(s, valid);
			return;
		}
		if ((!p->used || p->until <= ip6s_now(s)) && free_slot == NULL)
			free_slot = p;
	}
	if (valid != 0 && free_slot != NULL)
		*free_slot = (struct ip6s_prefix){
		    .prefix = *prefix, .plen = plen, .until = deadline(s, valid), .used = true};
}

/* RFC 4862 §5.5.3 for one Prefix Information option. */
static void slaac_prefix(struct ip6s *s, const struct in6_addr *prefix, uint8_t plen, uint32_t valid,
			 uint32_t preferred)
{
	struct ip6s_addr_slot *a;
	struct in6_addr addr;
	int64_t now = ip6s_now(s), remaining;

	/* c) and d): the interface identifier is 64 bits, so only a /64 makes an address. */
	if (preferred > valid || plen != 64)
		return;
	/* Another node has our interface identifier (its link-local failed DAD): no address from it (§5.4.5).
	 */
	if (s->addrs[0].state == IP6S_ADDR_DUPLICATE)
		return;
	memcpy(addr.s6_addr, prefix->s6_addr, 8);
	memcpy(addr.s6_addr + 8, s->addrs[0].addr.s6_addr + 8, 8);
	a = ip6s_addr_find(s, &addr);
	if (a == NULL) {
		if (valid == 0)
			return;
		for (unsigned i = 1; i < IP6S_MAX_ADDRS && a == NULL; i++)
			if (!s->addrs[i].used)
				a = &s->addrs[i];
		if (a == NULL)
			return;
		a->used = true;
		a->addr = addr;
		a->plen = plen;
		a->origin = IP6S_ORIGIN_RA;
		a->sn_joined = false;
		a->valid_until = deadline(s, valid);
		a->preferred_until = deadline(s, preferred);
		nd6_addr_start(a);
		return;
	}
	if (a->origin != IP6S_ORIGIN_RA)
		return;
	/* e) */
	a->preferred_until = deadline(s, preferred);
	remaining = a->valid_until - now;
	if (valid == ND_INFINITY || (int64_t)valid * 1000 * MS > SLAAC_TWO_HOURS ||
	    (int64_t)valid * 1000 * MS > remaining)
		a->valid_until = deadline(s, valid);
	else if (remaining > SLAAC_TWO_HOURS)
		a->valid_until = now + SLAAC_TWO_HOURS;
	if (a->state == IP6S_ADDR_DEPRECATED && now < a->preferred_until)
		a->state = IP6S_ADDR_PREFERRED;
	if (a->state == IP6S_ADDR_PREFERRED || a->state == IP6S_ADDR_DEPRECATED)
		addr_life_arm(a);
	else if (a->valid_until != INT64_MAX)
		timerq_arm(s->tq, &a->life_t, a->valid_until);
	else
		timerq_cancel(s->tq, &a->life_t);
}

static void ra_input(struct ip6s *s, const struct ip6s_pkt *p)
{
	const uint8_t *m = p->l4;
	uint32_t reachable, retrans;
	struct nd_opts o;

	if (p->l4_len < 16 || m[1] != 0 || !ip6s_is_linklocal(&p->src)) {
		ip6s_count_drop(s, IP6S_DROP_ND_INVALID);
		return;
	}
	if (nd_opts_parse(m + 16, p->l4_len - 16, &o) < 0) {
		ip6s_count_drop(s, IP6S_DROP_ND_OPTION);
		return;
	}
	if (!s->cfg.accept_ra || !ip6s_running(s)) {
		ip6s_count_drop(s, IP6S_DROP_ICMP6_TYPE);
		return;
	}
	s->st.ra_in++;
	/* A router answered: no more solicitations (§6.3.7). */
	s->rs_left = 0;
	timerq_cancel(s->tq, &s->rs_t);
	/* §6.3.4 */
	if (m[4] != 0)
		s->cur_hlim = m[4];
	reachable = ip6s_rd32(m + 8);
	retrans = ip6s_rd32(m + 12);
	if (reachable != 0 && reachable <= 3600000u && reachable != s->base_reachable_ms) {
		s->base_reachable_ms = reachable;
		pick_reachable_time(s);
	}
	if (retrans != 0 && retrans <= 3600000u)
		s->retrans_ms = retrans;
	router_update(s, &p->src, ip6s_rd16(m + 6));
	if (o.slla != NULL)
		neigh_learn(s, &p->src, o.slla + 2, true);
	if (o.mtu != NULL) {
		uint32_t mtu = ip6s_rd32(o.mtu + 4);

		/* Within IPv6's minimum and the link's own (§6.3.4). */
		if (mtu >= IP6S_MIN_MTU && mtu <= s->dev->mtu)
			s->mtu = mtu;
	}
	for (unsigned i = 0; i < o.n_prefix; i++) {
		const uint8_t *pi = o.prefix[i];
		struct in6_addr prefix;
		uint8_t plen = pi[2];

		memcpy(&prefix, pi + 16, 16);
		if (plen > 128 || ip6s_is_linklocal(&prefix))
			continue;
		if (pi[3] & 0x80)
			onlink_update(s, &prefix, plen, ip6s_rd32(pi + 4));
		if (pi[3] & 0x40)
			slaac_prefix(s, &prefix, plen, ip6s_rd32(pi + 4), ip6s_rd32(pi + 8));
	}
}

void nd6_input(struct ip6s *s, const struct ip6s_pkt *p)
{
	/* Only a message from this link has a hop limit of 255 (§6.1, §7.1). */
	if (p->hlim != 255) {
		ip6s_count_drop(s, IP6S_DROP_ND_HLIM);
		return;
	}
	switch (p->l4[0]) {
	case ICMP6_ND_NS:
		ns_input(s, p);
		break;
	case ICMP6_ND_NA:
		na_input(s, p);
		break;
	case ICMP6_ND_RA:
		ra_input(s, p);
		break;
	default:
		ip6s_count_drop(s, IP6S_DROP_ICMP6_TYPE);
		break;
	}
}

/* ------------------------------------------------------------ life cycle */

static void rs_timer(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct ip6s *s = TIMERQ_CONTAINER_OF(t, struct ip6s, rs_t);

	if (s->rs_left == 0)
		return;
	s->rs_left--;
	send_rs(s);
	ip6s_flush(s);
	if (s->rs_left > 0)
		timerq_arm(q, t, now + ND_RTR_SOLICITATION_INTERVAL);
}

int nd6_init(struct ip6s *s)
{
	s->neigh = calloc(s->n_neigh, sizeof(*s->neigh));
	if (s->neigh == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->n_neigh; i++) {
		s->neigh[i].s = s;
		timerq_timer_init(&s->neigh[i].t, neigh_timer);
	}
	for (unsigned i = 0; i < IP6S_MAX_ADDRS; i++) {
		s->addrs[i].s = s;
		timerq_timer_init(&s->addrs[i].dad_t, dad_timer);
		timerq_timer_init(&s->addrs[i].life_t, life_timer);
	}
	timerq_timer_init(&s->rs_t, rs_timer);
	s->base_reachable_ms = ND_REACHABLE_MS;
	s->retrans_ms = ND_RETRANS_MS;
	pick_reachable_time(s);
	return 0;
}

void nd6_stop(struct ip6s *s)
{
	timerq_cancel(s->tq, &s->rs_t);
	s->rs_left = 0;
	for (unsigned i = 0; i < IP6S_MAX_ADDRS; i++)
		timerq_cancel(s->tq, &s->addrs[i].dad_t);
	for (uint32_t i = 0; i < s->n_neigh; i++)
		if (s->neigh[i].used)
			neigh_remove(s, &s->neigh[i], true);
}

void nd6_fini(struct ip6s *s)
{
	if (s->neigh == NULL)
		return;
	timerq_cancel(s->tq, &s->rs_t);
	for (unsigned i = 0; i < IP6S_MAX_ADDRS; i++) {
		timerq_cancel(s->tq, &s->addrs[i].dad_t);
		timerq_cancel(s->tq, &s->addrs[i].life_t);
	}
	for (uint32_t i = 0; i < s->n_neigh; i++)
		if (s->neigh[i].used)
			neigh_remove(s, &s->neigh[i], false);
	free(s->neigh);
	s->neigh = NULL;
}

void nd6_start(struct ip6s *s)
{
	pick_reachable_time(s);
	for (unsigned i = 0; i < IP6S_MAX_ADDRS; i++)
		if (s->addrs[i].used)
			nd6_addr_start(&s->addrs[i]);
	if (s->cfg.accept_ra) {
		s->rs_left = ND_MAX_RTR_SOLICITATIONS;
		timerq_arm(s->tq, &s->rs_t,
			   ip6s_now(s) + (int64_t)(ip6s_random(s) % ND_MAX_RTR_SOLICITATION_DELAY_MS) * MS);
	}
}
