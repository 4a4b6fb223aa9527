/* SPDX-License-Identifier: MIT */
/*
 * netstats.c - Stats.net from the network layer (see netstats.h).
 *
 * OVERVIEW
 * One calloc sized from the peer and link counts, carved into the message
 * structs, pointer arrays and the address strings; the layer is only read.
 */
#include "netstats.h"
#include "stackstats.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NETSTATS_ADDR_MAX INET6_ADDRSTRLEN

static int64_t netstats_now(const struct netif *n)
{
	/* The clock the layer stamped last_seen with: the first backend's. */
	if (netif_backend(n) != NULL)
		return netif_backend_ops(n)->clock_ns(netif_backend(n));
	return 0;
}

static size_t netstats_bits(uint16_t mask, uint32_t *out)
{
	size_t k = 0;

	for (uint32_t i = 0; i < 16; i++) {
		if (mask & (1u << i))
			out[k++] = i;
	}
	return k;
}

/* Whether link id i runs the own stack (tap): its stack and device then, when asked. */
static bool netstats_link_stack(const struct netif *n, uint32_t i, const struct ip6s **ret_ip,
				const struct netdev **ret_dev)
{
	uint32_t local;
	const struct net_backend *be = netif_link_backend(n, i, &local);
	const struct ip6s *ip;
	const struct netdev *dev;

	if (be == NULL || be->ops->stack == NULL || be->ops->netdev == NULL)
		return false;
	ip = be->ops->stack(be, local);
	dev = be->ops->netdev(be, local);
	if (ip == NULL || dev == NULL)
		return false;
	if (ret_ip != NULL)
		*ret_ip = ip;
	if (ret_dev != NULL)
		*ret_dev = dev;
	return true;
}

int netstats_build(const struct netif *n, Sdds__Ctl__NetStats **ret_stats, void **ret_mem)
{
	const struct peer_table *pt = netif_peers(n);
	const struct netif_counters *c = netif_counters(n);
	const struct nodecfg *nc = netif_node(n);
	uint32_t n_links = 0, n_drops = 0, n_bes = netif_n_backends(n);
	Sdds__Ctl__NetStats *st;
	Sdds__Ctl__NetBackend *bes, **be_ptrs;
	Sdds__Ctl__NetLink *lks, **lk_ptrs;
	char *lk_addrs;
	Sdds__Ctl__PeerInfo *peers, **peer_ptrs;
	Sdds__Ctl__NetDrop *drops, **drop_ptrs;
	char **link_names;
	char *addrs, *names;
	uint32_t *topic_ids;
	size_t bytes;
	char *mem;
	size_t stack_off;
	int64_t now = netstats_now(n);

	for (unsigned r = 1; r < NETIF_DROP_MAX_; r++) {
		if (c->drops[r] != 0)
			n_drops++;
	}
	n_links = netif_n_links(n);
	bytes = sizeof(*st) + n_bes * (sizeof(*bes) + sizeof(*be_ptrs)) +
		n_links * (sizeof(*lks) + sizeof(*lk_ptrs) + NETSTATS_ADDR_MAX) +
		pt->n * (sizeof(*peers) + sizeof(*peer_ptrs) + NETSTATS_ADDR_MAX + IF_NAMESIZE +
			 32 * sizeof(uint32_t)) +
		n_drops * (sizeof(*drops) + sizeof(*drop_ptrs)) + n_links * (sizeof(char *) + IF_NAMESIZE) +
		64;
	/* Then each own-stack link's StackInfo (sddsctl stack), aligned. */
	bytes = (bytes + 15) & ~(size_t)15;
	stack_off = bytes;
	for (uint32_t i = 0; i < n_links; i++) {
		if (netstats_link_stack(n, i, NULL, NULL))
			bytes += stackstats_size();
	}
	/* The discovery part sits at the end of the block, aligned. */
	bytes = (bytes + 15) & ~(size_t)15;
	bytes += (sizeof(Sdds__Ctl__DiscoveryStats) + 15) & ~(size_t)15;
	mem = calloc(1, bytes);
	if (mem == NULL)
		return -ENOMEM;
	st = (void *)mem;
	bes = (void *)(st + 1);
	lks = (void *)(bes + n_bes);
	peers = (void *)(lks + n_links);
	drops = (void *)(peers + pt->n);
	peer_ptrs = (void *)(drops + n_drops);
	drop_ptrs = (void *)(peer_ptrs + pt->n);
	link_names = (void *)(drop_ptrs + n_drops);
	be_ptrs = (void *)(link_names + n_links);
	lk_ptrs = (void *)(be_ptrs + n_bes);
	topic_ids = (void *)(lk_ptrs + n_links);
	addrs = (void *)(topic_ids + pt->n * 32);
	names = addrs + pt->n * NETSTATS_ADDR_MAX;
	/* After the peers' and the links' names: the links' addresses. */
	lk_addrs = names + (size_t)(pt->n + n_links) * IF_NAMESIZE;

	sdds__ctl__net_stats__init(st);
	st->backend = (char *)netif_backend_name(n);
	st->max_frame = netif_max_frame(n);
	st->port = nc->port;
	st->frames_in = c->frames_in;
	st->samples_in = c->samples_in;
	st->bytes_in = c->bytes_in;
	st->frames_out = c->frames_out;
	st->samples_out = c->samples_out;
	st->bytes_out = c->bytes_out;
	st->tx_errors = c->tx_errors;
	st->malformed = c->malformed;
	st->backlog_forced = c->backlog_forced;
	st->peer_table_full = c->peer_table_full;
	st->local_overwritten = c->local_overwritten;
	st->backlog = netif_backlog(n);
	st->peers_expired = c->peers_expired;
	st->dests_full = c->dests_full;
	st->seq_dropped = c->seq_dropped;
	st->acks_out = c->acks_out;
	st->acks_in = c->acks_in;
	st->ack_bogus = c->ack_bogus;
	st->resent = c->resent;
	st->seq_resync = c->seq_resync;
	st->rel_given_up = c->rel_given_up;
	st->nacks_out = c->nacks_out;
	st->nacks_in = c->nacks_in;
	st->nack_resent = c->nack_resent;
	st->nack_unknown = c->nack_unknown;
	st->nack_bogus = c->nack_bogus;
	st->nack_limited = c->nack_limited;
	st->gaps_recovered = c->gaps_recovered;
	st->gaps_given_up = c->gaps_given_up;
	st->nack_heartbeats = c->nack_heartbeats;
	st->forwarded = c->forwarded;
	if (netif_discovery(n) != NULL) {
		const struct disc *d = netif_discovery(n);
		const struct disc_counters *dc = disc_counters(d);
		Sdds__Ctl__DiscoveryStats *ds = (void *)(mem + bytes - sizeof(*ds));
		uint32_t k;

		sdds__ctl__discovery_stats__init(ds);
		ds->node_id = disc_node_id(d);
		disc_participants(d, &k);
		ds->participants = k;
		disc_subs(d, &k);
		ds->subscriptions = k;
		ds->participants_expired = dc->participants_expired;
		ds->subscriptions_expired = dc->subs_expired;
		ds->table_full = dc->table_full;
		ds->id_clash = dc->id_clash;
		ds->frames_out = dc->frames_out;
		st->discovery = ds;
	}
	for (unsigned r = 1, k = 0; r < NETIF_DROP_MAX_; r++) {
		if (c->drops[r] == 0)
			continue;
		sdds__ctl__net_drop__init(&drops[k]);
		drops[k].reason = (char *)netif_drop_name(r);
		drops[k].count = c->drops[r];
		drop_ptrs[k] = &drops[k];
		k++;
	}
	st->n_drops = n_drops;
	st->drops = drop_ptrs;
	for (uint32_t k = 0; k < n_bes; k++) {
		const struct net_backend *be = netif_backend_at(n, k);

		sdds__ctl__net_backend__init(&bes[k]);
		bes[k].name = (char *)netif_backend_ops_at(n, k)->name;
		if (be != NULL && n_links > 0) {
			bes[k].first_link = be->link_base;
			bes[k].n_links = be->ops->n_links(be);
		}
		be_ptrs[k] = &bes[k];
	}
	st->n_backends = n_bes;
	st->backends = be_ptrs;
	{
		char *ln = names + pt->n * IF_NAMESIZE;

		/* Link ids in order: every backend's links, one sequence. */
		for (uint32_t i = 0; i < n_links; i++) {
			const struct net_link_info *li = netif_link(n, i);
			const struct net_backend *be;
			const struct ip6s *ip;
			const struct netdev *dev;

			snprintf(ln + i * IF_NAMESIZE, IF_NAMESIZE, "%s", li->name);
			link_names[i] = ln + i * IF_NAMESIZE;
			st->rx_overflow += li->rx_overflow;
			st->tx_gso += li->tx_gso;
			st->gso_refused += li->gso_refused ? 1 : 0;
			sdds__ctl__net_link__init(&lks[i]);
			be = netif_link_backend(n, i, &lks[i].local);
			lks[i].id = i;
			lks[i].backend = be->index;
			lks[i].name = link_names[i];
			inet_ntop(AF_INET6, &li->addr, lk_addrs + i * NETSTATS_ADDR_MAX, NETSTATS_ADDR_MAX);
			lks[i].address = lk_addrs + i * NETSTATS_ADDR_MAX;
			lks[i].rx_overflow = li->rx_overflow;
			lks[i].tx_gso = li->tx_gso;
			lks[i].gso_refused = li->gso_refused;
			if (netstats_link_stack(n, i, &ip, &dev)) {
				lks[i].stack = stackstats_fill(ip, dev, mem + stack_off);
				stack_off += stackstats_size();
			}
			lk_ptrs[i] = &lks[i];
		}
	}
	st->n_interfaces = n_links;
	st->interfaces = link_names;
	st->n_links = n_links;
	st->links = lk_ptrs;
	for (uint32_t i = 0; i < pt->n; i++) {
		const struct net_peer *p = &pt->v[i];
		Sdds__Ctl__PeerInfo *pi = &peers[i];
		uint32_t *ids = topic_ids + i * 32;
		char *a = addrs + i * NETSTATS_ADDR_MAX;
		char *nm = names + i * IF_NAMESIZE;

		sdds__ctl__peer_info__init(pi);
		inet_ntop(AF_INET6, &p->addr.ip, a, NETSTATS_ADDR_MAX);
		pi->address = a;
		if (if_indextoname(p->addr.ifindex, nm) == NULL)
			snprintf(nm, IF_NAMESIZE, "#%u", p->addr.ifindex);
		pi->iface = nm;
		pi->port = p->addr.port;
		pi->is_static = p->is_static;
		pi->swapped = p->swapped;
		pi->seen = p->last_seen_ns != 0;
		pi->last_seen_ms = p->last_seen_ns != 0 ? (uint64_t)(now - p->last_seen_ns) / 1000000 : 0;
		pi->last_port = p->last_port;
		pi->n_topics_in = netstats_bits(p->topics_in, ids);
		pi->topics_in = ids;
		pi->n_topics_out = netstats_bits(p->topics_out, ids + 16);
		pi->topics_out = ids + 16;
		pi->frames_in = p->c.frames_in;
		pi->samples_in = p->c.samples_in;
		pi->frames_out = p->c.frames_out;
		pi->samples_out = p->c.samples_out;
		pi->malformed = p->c.malformed;
		pi->pack = (char *)(p->pack ? "config" : p->pack_heard ? "announced" : "");
		peer_ptrs[i] = pi;
	}
	st->n_peers = pt->n;
	st->peers = peer_ptrs;
	*ret_stats = st;
	*ret_mem = mem;
	return 0;
}
