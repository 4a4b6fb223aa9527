/* SPDX-License-Identifier: MIT */
/*
 * stackstats.c - one own-stack link's state as a StackInfo (control.proto):
 * MAC, MTU, addresses with their DAD state, the neighbor cache, the joined
 * groups, the per-protocol counters, drops by reason and the device's
 * pool and counters.
 *
 * OVERVIEW
 * Everything goes into the caller's block of stackstats_size() bytes,
 * carved by a bump pointer with a fixed upper bound per table (the stack's
 * own limits), so netstats.c keeps its one allocation per Stats request.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "stackstats.h"

/* Neighbors shown at most (the stack's default cache size). */
#define STACKSTATS_NEIGH_MAX 64u
#define STACKSTATS_ADDR_LEN INET6_ADDRSTRLEN
#define STACKSTATS_MAC_LEN 18u

/* The per-protocol counters of struct ip6s_stats, by name. */
static const struct {
	const char *name;
	size_t off;
} stackstats_counters[] = {
#define C(f)                                                                                                 \
	{                                                                                                    \
#f, offsetof(struct ip6s_stats, f)                                                           \
	}
    C(eth_in),	C(eth_out),	 C(ip6_in),	 C(ip6_out),	  C(icmp6_in),	     C(icmp6_out),
    C(echo_in), C(echo_out),	 C(errors_out),	 C(ns_in),	  C(ns_out),	     C(na_in),
    C(na_out),	C(rs_out),	 C(ra_in),	 C(mld_query_in), C(mld_report_out), C(udp_in),
    C(udp_out), C(udp_runs_out), C(dad_started), C(dad_failed),
#undef C
};
#define STACKSTATS_N_COUNTERS (sizeof(stackstats_counters) / sizeof(stackstats_counters[0]))
/* The device's counters (struct netdev_stats), by name. */
static const struct {
	const char *name;
	size_t off;
} stackstats_dev[] = {
#define D(f)                                                                                                 \
	{                                                                                                    \
#f, offsetof(struct netdev_stats, f)                                                         \
	}
    D(rx_frames), D(rx_bytes),	D(tx_frames),	D(tx_bytes),
    D(rx_nobuf),  D(rx_errors), D(rx_filtered), D(tx_errors),
#undef D
};
#define STACKSTATS_N_DEV (sizeof(stackstats_dev) / sizeof(stackstats_dev[0]))

struct bump {
	char *p;
	size_t left;
};

/* n bytes of the block, 16-byte aligned; the size bound below makes NULL impossible. */
static void *bump(struct bump *b, size_t n)
{
	void *r = b->p;

	n = (n + 15) & ~(size_t)15;
	if (n > b->left)
		return NULL;
	b->p += n;
	b->left -= n;
	return r;
}

#define ALIGN16(n) (((n) + 15) & ~(size_t)15)

size_t stackstats_size(void)
{
	size_t drop = ALIGN16(sizeof(Sdds__Ctl__NetDrop));

	return ALIGN16(sizeof(Sdds__Ctl__StackInfo)) + 2 * ALIGN16(STACKSTATS_MAC_LEN) +
	       ALIGN16(IP6S_MAX_ADDRS * sizeof(void *)) +
	       IP6S_MAX_ADDRS * (ALIGN16(sizeof(Sdds__Ctl__StackAddr)) + ALIGN16(STACKSTATS_ADDR_LEN)) +
	       ALIGN16(STACKSTATS_NEIGH_MAX * sizeof(void *)) +
	       STACKSTATS_NEIGH_MAX * (ALIGN16(sizeof(Sdds__Ctl__StackNeigh)) + ALIGN16(STACKSTATS_ADDR_LEN) +
				       ALIGN16(STACKSTATS_MAC_LEN)) +
	       ALIGN16(IP6S_MAX_GROUPS * sizeof(char *)) + IP6S_MAX_GROUPS * ALIGN16(STACKSTATS_ADDR_LEN) +
	       ALIGN16(STACKSTATS_N_COUNTERS * sizeof(void *)) + STACKSTATS_N_COUNTERS * drop +
	       ALIGN16(IP6S_DROP_MAX * sizeof(void *)) + IP6S_DROP_MAX * drop +
	       ALIGN16(STACKSTATS_N_DEV * sizeof(void *)) + STACKSTATS_N_DEV * drop +
	       ALIGN16(sizeof(struct ip6s_addr_info) * IP6S_MAX_ADDRS) +
	       ALIGN16(sizeof(struct ip6s_neigh_info) * STACKSTATS_NEIGH_MAX) +
	       ALIGN16(sizeof(struct ip6s_group_info) * IP6S_MAX_GROUPS);
}

static char *stackstats_mac(struct bump *b, const uint8_t *m)
{
	char *s = bump(b, STACKSTATS_MAC_LEN);

	snprintf(s, STACKSTATS_MAC_LEN, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return s;
}

static char *stackstats_addr(struct bump *b, const struct in6_addr *a)
{
	char *s = bump(b, STACKSTATS_ADDR_LEN);

	inet_ntop(AF_INET6, a, s, STACKSTATS_ADDR_LEN);
	return s;
}

static const char *const stackstats_origins[] = {"linklocal", "static", "ra"};

Sdds__Ctl__StackInfo *stackstats_fill(const struct ip6s *ip, const struct netdev *dev, void *mem)
{
	struct bump b = {mem, stackstats_size()};
	Sdds__Ctl__StackInfo *si = bump(&b, sizeof(*si));
	const struct ip6s_stats *st = ip6s_stats(ip);
	struct ip6s_addr_info *ai = bump(&b, sizeof(*ai) * IP6S_MAX_ADDRS);
	struct ip6s_neigh_info *ni = bump(&b, sizeof(*ni) * STACKSTATS_NEIGH_MAX);
	struct ip6s_group_info *gi = bump(&b, sizeof(*gi) * IP6S_MAX_GROUPS);
	unsigned na = ip6s_addrs(ip, ai, IP6S_MAX_ADDRS);
	unsigned nn = ip6s_neighbors(ip, ni, STACKSTATS_NEIGH_MAX);
	unsigned ng = ip6s_groups(ip, gi, IP6S_MAX_GROUPS);
	uint32_t nd = 0;

	sdds__ctl__stack_info__init(si);
	si->device = (char *)dev->ops->name;
	si->mac = stackstats_mac(&b, dev->mac);
	si->mtu = ip6s_mtu(ip);
	si->link_up = dev->ops->link_up((struct netdev *)dev);
	si->addresses = bump(&b, IP6S_MAX_ADDRS * sizeof(void *));
	for (unsigned i = 0; i < na; i++) {
		Sdds__Ctl__StackAddr *a = bump(&b, sizeof(*a));

		sdds__ctl__stack_addr__init(a);
		a->address = stackstats_addr(&b, &ai[i].addr);
		a->prefix_len = ai[i].prefix_len;
		a->state = (char *)ip6s_addr_state_name(ai[i].state);
		a->origin = (char *)(ai[i].origin < 3 ? stackstats_origins[ai[i].origin] : "?");
		si->addresses[si->n_addresses++] = a;
	}
	si->neighbors = bump(&b, STACKSTATS_NEIGH_MAX * sizeof(void *));
	for (unsigned i = 0; i < nn; i++) {
		Sdds__Ctl__StackNeigh *n = bump(&b, sizeof(*n));

		sdds__ctl__stack_neigh__init(n);
		n->address = stackstats_addr(&b, &ni[i].addr);
		n->mac = ni[i].state == IP6S_NEIGH_INCOMPLETE ? (char *)"" : stackstats_mac(&b, ni[i].mac);
		n->state = (char *)ip6s_neigh_state_name(ni[i].state);
		n->router = ni[i].router;
		n->pending = ni[i].pending;
		si->neighbors[si->n_neighbors++] = n;
	}
	si->groups = bump(&b, IP6S_MAX_GROUPS * sizeof(char *));
	for (unsigned i = 0; i < ng; i++)
		si->groups[si->n_groups++] = stackstats_addr(&b, &gi[i].addr);
	si->counters = bump(&b, STACKSTATS_N_COUNTERS * sizeof(void *));
	for (size_t i = 0; i < STACKSTATS_N_COUNTERS; i++) {
		Sdds__Ctl__NetDrop *c = bump(&b, sizeof(*c));

		sdds__ctl__net_drop__init(c);
		c->reason = (char *)stackstats_counters[i].name;
		memcpy(&c->count, (const char *)st + stackstats_counters[i].off, sizeof(c->count));
		si->counters[si->n_counters++] = c;
	}
	si->drops = bump(&b, IP6S_DROP_MAX * sizeof(void *));
	for (unsigned r = 0; r < IP6S_DROP_MAX; r++) {
		Sdds__Ctl__NetDrop *c;

		if (st->drops[r] == 0)
			continue;
		c = bump(&b, sizeof(*c));
		sdds__ctl__net_drop__init(c);
		c->reason = (char *)ip6s_drop_name((enum ip6s_drop)r);
		c->count = st->drops[r];
		si->drops[nd++] = c;
	}
	si->n_drops = nd;
	si->device_counters = bump(&b, STACKSTATS_N_DEV * sizeof(void *));
	for (size_t i = 0; i < STACKSTATS_N_DEV; i++) {
		Sdds__Ctl__NetDrop *c = bump(&b, sizeof(*c));

		sdds__ctl__net_drop__init(c);
		c->reason = (char *)stackstats_dev[i].name;
		memcpy(&c->count, (const char *)&dev->stats + stackstats_dev[i].off, sizeof(c->count));
		si->device_counters[si->n_device_counters++] = c;
	}
	si->pool_size = dev->pool->n;
	si->pool_out = dev->pool->out;
	si->pool_alloc_fail = dev->pool->alloc_fail;
	return si;
}
