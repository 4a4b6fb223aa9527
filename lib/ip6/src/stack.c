/* SPDX-License-Identifier: MIT */
/*
 * stack.c - the owner of the IPv6 stack (stack.h): creation and teardown,
 * start and link changes, input dispatch, the tx batch, counters and the
 * accessors the other files and mld6.c use.
 *
 * OVERVIEW
 * ip6s_new allocates struct ip6s and the neighbor cache, nothing later. It
 * puts the link-local address fe80::/64 + the modified EUI-64 of the MAC
 * (RFC 4291 appendix A, RFC 4862 §5.3: the universal/local bit flipped,
 * ff:fe in the middle) in slot 0 and the configured ones after it, all
 * tentative, and lets ff02::1's MAC through the device filter. ip6s_start
 * begins DAD (nd6.c), router solicitation and MLD (mld6.c).
 *
 * The tx batch: frames are queued in an array of IP6S_TXQ_LEN; a full
 * array is handed to the device at once, and ip6s_flush hands over the
 * rest; what the device does not take stays queued in order. cfg.capture
 * sees each frame when it is queued, complete, as the device will get it
 * (after tx_batch the device may already have freed it). Before
 * ip6s_start and while the link is down nothing is queued (-ENETDOWN).
 *
 * Teardown (ip6s_free) gives every buffer back: the tx batch, packets held
 * for neighbors; and takes the stack's MACs out of the device filter.
 */
#include <errno.h>
#include <stdlib.h>

#include "stack_impl.h"

static const char *const drop_names[IP6S_DROP_MAX] = {
    [IP6S_DROP_ETH_SHORT] = "eth_short",
    [IP6S_DROP_ETH_TYPE] = "eth_type",
    [IP6S_DROP_ETH_OTHER_MAC] = "eth_other_mac",
    [IP6S_DROP_ETH_SRC_MCAST] = "eth_src_mcast",
    [IP6S_DROP_OVERSIZE] = "oversize",
    [IP6S_DROP_IP6_SHORT] = "ip6_short",
    [IP6S_DROP_IP6_VERSION] = "ip6_version",
    [IP6S_DROP_IP6_LEN] = "ip6_len",
    [IP6S_DROP_IP6_SRC] = "ip6_src",
    [IP6S_DROP_IP6_DST] = "ip6_dst",
    [IP6S_DROP_IP6_EXT_CHAIN] = "ip6_ext_chain",
    [IP6S_DROP_IP6_FRAGMENT] = "ip6_fragment",
    [IP6S_DROP_IP6_PROTO] = "ip6_proto",
    [IP6S_DROP_ICMP6_SHORT] = "icmp6_short",
    [IP6S_DROP_ICMP6_CKSUM] = "icmp6_cksum",
    [IP6S_DROP_ICMP6_TYPE] = "icmp6_type",
    [IP6S_DROP_ICMP6_RATE] = "icmp6_rate",
    [IP6S_DROP_ND_HLIM] = "nd_hlim",
    [IP6S_DROP_ND_INVALID] = "nd_invalid",
    [IP6S_DROP_ND_OPTION] = "nd_option",
    [IP6S_DROP_ND_NOENTRY] = "nd_noentry",
    [IP6S_DROP_ND_PENDING] = "nd_pending",
    [IP6S_DROP_ND_UNRESOLVED] = "nd_unresolved",
    [IP6S_DROP_MLD_INVALID] = "mld_invalid",
    [IP6S_DROP_UDP_SHORT] = "udp_short",
    [IP6S_DROP_UDP_LEN] = "udp_len",
    [IP6S_DROP_UDP_CKSUM] = "udp_cksum",
    [IP6S_DROP_UDP_PORT] = "udp_port",
    [IP6S_DROP_TX_NOBUF] = "tx_nobuf",
    [IP6S_DROP_TX_FULL] = "tx_full",
    [IP6S_DROP_TX_NOROUTE] = "tx_noroute",
};

const char *ip6s_drop_name(enum ip6s_drop why)
{
	if ((unsigned)why >= IP6S_DROP_MAX || drop_names[why] == NULL)
		return "?";
	return drop_names[why];
}

const char *ip6s_neigh_state_name(enum ip6s_neigh_state st)
{
	switch (st) {
	case IP6S_NEIGH_INCOMPLETE:
		return "INCOMPLETE";
	case IP6S_NEIGH_REACHABLE:
		return "REACHABLE";
	case IP6S_NEIGH_STALE:
		return "STALE";
	case IP6S_NEIGH_DELAY:
		return "DELAY";
	case IP6S_NEIGH_PROBE:
		return "PROBE";
	}
	return "?";
}

const char *ip6s_addr_state_name(enum ip6s_addr_state st)
{
	switch (st) {
	case IP6S_ADDR_TENTATIVE:
		return "tentative";
	case IP6S_ADDR_PREFERRED:
		return "preferred";
	case IP6S_ADDR_DEPRECATED:
		return "deprecated";
	case IP6S_ADDR_DUPLICATE:
		return "duplicate";
	}
	return "?";
}

/* ------------------------------------------------ what the files share */

bool ip6s_running(const struct ip6s *s)
{
	return s->started && s->link_up;
}

int64_t ip6s_now(const struct ip6s *s)
{
	return s->cfg.now(s->cfg.ctx);
}

uint32_t ip6s_random(const struct ip6s *s)
{
	struct ip6s *w = (struct ip6s *)s;
	uint32_t x;

	if (s->cfg.random != NULL)
		return s->cfg.random(s->cfg.ctx);
	/* xorshift32 seeded from the MAC: jitter only needs to differ between hosts. */
	x = w->rand_state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	w->rand_state = x;
	return x;
}

struct timerq *ip6s_tq(const struct ip6s *s)
{
	return s->tq;
}

void ip6s_count_drop(struct ip6s *s, enum ip6s_drop why)
{
	if ((unsigned)why < IP6S_DROP_MAX)
		s->st.drops[why]++;
}

struct ip6s_stats *ip6s_stats_mut(struct ip6s *s)
{
	return &s->st;
}

void ip6s_event(struct ip6s *s, enum ip6s_event ev, const struct in6_addr *addr)
{
	if (s->cfg.event != NULL)
		s->cfg.event(s->cfg.ctx, ev, addr);
}

int ip6s_mld_send(struct ip6s *s, const struct in6_addr *dst, const uint8_t *msg, uint32_t len)
{
	struct in6_addr src = {0};
	struct netdev_buf *b;
	int rc;

	if (len < 4 || IP6S_HLEN + IP6S_RA_HLEN + len > s->mtu)
		return -EMSGSIZE;
	/* From the link-local address, or :: while it is not usable (RFC 3810 §5.2.13). */
	if (ip6s_addr_usable(&s->addrs[0]))
		src = s->addrs[0].addr;
	b = ip6s_tx_alloc(s);
	if (b == NULL)
		return -ENOBUFS;
	memcpy(ip6s_l4(b, true), msg, len);
	rc = ip6s_ip6_output(s, b, &src, dst, IP6S_NH_ICMP6, 1, len, true, NULL);
	if (rc < 0)
		return rc;
	s->st.icmp6_out++;
	s->st.mld_report_out++;
	/* Reports are rare and most come from mld6's timers, which have no caller to flush: now. */
	ip6s_flush(s);
	return 0;
}

/* ----------------------------------------------------------------- tx */

struct netdev_buf *ip6s_tx_alloc(struct ip6s *s)
{
	struct netdev_buf *b = netdev_buf_alloc(s->dev->pool);

	if (b == NULL)
		ip6s_count_drop(s, IP6S_DROP_TX_NOBUF);
	return b;
}

int ip6s_tx_queue(struct ip6s *s, struct netdev_buf *b)
{
	if (!ip6s_running(s)) {
		netdev_buf_free(s->dev->pool, b);
		return -ENETDOWN;
	}
	if (s->n_txq == IP6S_TXQ_LEN && ip6s_flush(s) == IP6S_TXQ_LEN) {
		ip6s_count_drop(s, IP6S_DROP_TX_FULL);
		netdev_buf_free(s->dev->pool, b);
		return -ENOBUFS;
	}
	if (s->cfg.capture != NULL)
		s->cfg.capture(s->cfg.ctx, true, b);
	s->st.eth_out++;
	s->txq[s->n_txq++] = b;
	return 0;
}

unsigned ip6s_flush(struct ip6s *s)
{
	int rc;

	if (s->n_txq == 0)
		return 0;
	rc = s->dev->ops->tx_batch(s->dev, s->txq, s->n_txq);
	/* An error takes nothing: the frames stay queued for the next flush. */
	if (rc <= 0)
		return s->n_txq;
	if ((unsigned)rc > s->n_txq)
		rc = (int)s->n_txq;
	memmove(s->txq, s->txq + rc, (s->n_txq - (unsigned)rc) * sizeof(s->txq[0]));
	s->n_txq -= (unsigned)rc;
	return s->n_txq;
}

/* ------------------------------------------------------------ life */

int ip6s_new(const struct ip6s_config *cfg, struct ip6s **ret)
{
	struct ip6s *s;
	struct ip6s_addr_slot *a;
	int rc;

	if (cfg == NULL || ret == NULL || cfg->dev == NULL || cfg->dev->ops == NULL ||
	    cfg->dev->pool == NULL || cfg->dev->ops->tx_batch == NULL || cfg->tq == NULL ||
	    cfg->now == NULL || cfg->n_addrs > IP6S_MAX_STATIC || cfg->dev->mtu < IP6S_MIN_MTU)
		return -EINVAL;
	for (uint32_t i = 0; i < cfg->n_addrs; i++)
		if (cfg->prefix_lens[i] > 128 || ip6s_is_mcast(&cfg->addrs[i]) ||
		    ip6s_is_unspec(&cfg->addrs[i]))
			return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->cfg = *cfg;
	if (s->cfg.neigh_cache == 0)
		s->cfg.neigh_cache = 64;
	if (s->cfg.pending_max == 0)
		s->cfg.pending_max = 64;
	if (s->cfg.icmp_rate == 0)
		s->cfg.icmp_rate = 10;
	if (s->cfg.icmp_rate > 1000000000u)
		s->cfg.icmp_rate = 1000000000u;
	s->dev = cfg->dev;
	s->tq = cfg->tq;
	s->mtu = s->dev->mtu;
	s->cur_hlim = 64;
	s->n_neigh = s->cfg.neigh_cache;
	s->pending_max = s->cfg.pending_max;
	s->rand_state = 0x9e3779b9u ^ ip6s_rd32(s->dev->mac + 2);
	rc = nd6_init(s);
	if (rc < 0)
		goto fail_free;
	s->icmp_last = ip6s_now(s);
	s->icmp_credit = (1000000000 / (int64_t)s->cfg.icmp_rate) * s->cfg.icmp_rate;

	/* fe80::/64 + modified EUI-64 (RFC 4291 appendix A, RFC 4862 §5.3). */
	a = &s->addrs[0];
	a->used = true;
	a->origin = IP6S_ORIGIN_LINKLOCAL;
	a->plen = 64;
	a->addr.s6_addr[0] = 0xfe;
	a->addr.s6_addr[1] = 0x80;
	a->addr.s6_addr[8] = s->dev->mac[0] ^ 0x02;
	a->addr.s6_addr[9] = s->dev->mac[1];
	a->addr.s6_addr[10] = s->dev->mac[2];
	a->addr.s6_addr[11] = 0xff;
	a->addr.s6_addr[12] = 0xfe;
	memcpy(a->addr.s6_addr + 13, s->dev->mac + 3, 3);
	a->valid_until = a->preferred_until = INT64_MAX;
	for (uint32_t i = 0; i < cfg->n_addrs; i++) {
		if (ip6s_addr_find(s, &cfg->addrs[i]) != NULL)
			continue;
		a = &s->addrs[1 + i];
		a->used = true;
		a->origin = IP6S_ORIGIN_STATIC;
		a->addr = cfg->addrs[i];
		a->plen = cfg->prefix_lens[i] != 0 ? cfg->prefix_lens[i] : 64;
		a->valid_until = a->preferred_until = INT64_MAX;
	}
	mld6_init(&s->mld, s);
	/* Every host listens to all-nodes (RFC 4291 §2.8); it holds its MAC for the stack's life. */
	rc = ip6s_mac_filter(s, &ip6s_all_nodes, true);
	if (rc < 0)
		goto fail_mld;
	*ret = s;
	return 0;

fail_mld:
	mld6_fini(&s->mld);
	nd6_fini(s);
fail_free:
	free(s);
	return rc;
}

void ip6s_free(struct ip6s *s)
{
	if (s == NULL)
		return;
	nd6_fini(s);
	mld6_fini(&s->mld);
	ip6s_eth_filter_clear(s);
	for (unsigned i = 0; i < s->n_txq; i++)
		netdev_buf_free(s->dev->pool, s->txq[i]);
	s->n_txq = 0;
	free(s);
}

void ip6s_start(struct ip6s *s)
{
	if (s->started)
		return;
	s->started = true;
	s->link_up = s->dev->ops->link_up == NULL || s->dev->ops->link_up(s->dev);
	if (!s->link_up)
		return;
	nd6_start(s);
	mld6_start(&s->mld);
}

void ip6s_link_changed(struct ip6s *s, bool up)
{
	if (up == s->link_up)
		return;
	s->link_up = up;
	if (s->started) {
		if (up) {
			/* A link that comes back may hold another owner of our addresses (RFC 4862 §5.4). */
			nd6_start(s);
			mld6_start(&s->mld);
		} else {
			nd6_stop(s);
		}
	}
	/* Frames queued before the link went down (an NS, a report) would leave stale when it comes back. */
	if (!up) {
		for (unsigned i = 0; i < s->n_txq; i++)
			netdev_buf_free(s->dev->pool, s->txq[i]);
		s->n_txq = 0;
	}
	ip6s_event(s, IP6S_EV_LINK, NULL);
}

/* ----------------------------------------------------------------- rx */

void ip6s_input(struct ip6s *s, struct netdev_buf *b)
{
	enum ip6s_drop why;

	if (s->cfg.capture != NULL)
		s->cfg.capture(s->cfg.ctx, false, b);
	if (ip6s_eth_accept(s, b, &why))
		ip6s_ip6_input(s, b);
	else
		ip6s_count_drop(s, why);
	netdev_buf_free(s->dev->pool, b);
}

/* ------------------------------------------------------------- state */

bool ip6s_linklocal(const struct ip6s *s, struct in6_addr *ret)
{
	*ret = s->addrs[0].addr;
	return ip6s_addr_usable(&s->addrs[0]);
}

const struct ip6s_stats *ip6s_stats(const struct ip6s *s)
{
	return &s->st;
}

unsigned ip6s_addrs(const struct ip6s *s, struct ip6s_addr_info *out, unsigned n)
{
	unsigned k = 0;

	for (unsigned i = 0; i < IP6S_MAX_ADDRS && k < n; i++) {
		const struct ip6s_addr_slot *a = &s->addrs[i];

		if (!a->used)
			continue;
		out[k++] = (struct ip6s_addr_info){
		    .addr = a->addr,
		    .prefix_len = a->plen,
		    .state = a->state,
		    .origin = a->origin,
		    .valid_until = a->valid_until,
		};
	}
	return k;
}

unsigned ip6s_neighbors(const struct ip6s *s, struct ip6s_neigh_info *out, unsigned n)
{
	unsigned k = 0;

	for (uint32_t i = 0; i < s->n_neigh && k < n; i++) {
		const struct ip6s_neigh *e = &s->neigh[i];

		if (!e->used)
			continue;
		out[k] = (struct ip6s_neigh_info){
		    .addr = e->addr,
		    .state = e->state,
		    .router = e->router,
		    .pending = e->n_pending,
		};
		if (e->state != IP6S_NEIGH_INCOMPLETE)
			memcpy(out[k].mac, e->mac, NETDEV_ETH_ALEN);
		k++;
	}
	return k;
}

unsigned ip6s_groups(const struct ip6s *s, struct ip6s_group_info *out, unsigned n)
{
	return mld6_groups(&s->mld, out, n);
}

uint32_t ip6s_mtu(const struct ip6s *s)
{
	return s->mtu;
}

int ip6s_join(struct ip6s *s, const struct in6_addr *group)
{
	return mld6_join(&s->mld, group);
}

int ip6s_leave(struct ip6s *s, const struct in6_addr *group)
{
	return mld6_leave(&s->mld, group);
}
