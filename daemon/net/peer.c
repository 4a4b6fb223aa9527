/* SPDX-License-Identifier: MIT */
/*
 * peer.c - the peer table (see peer.h). A linear search: the table holds a
 * few dozen nodes of one link, and a miss on the packet path is bounded by
 * the cap.
 */
#include "peer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int peer_table_init(struct peer_table *t, uint32_t cap)
{
	if (cap == 0)
		return -EINVAL;
	t->v = calloc(cap, sizeof(*t->v));
	if (t->v == NULL)
		return -ENOMEM;
	t->n = 0;
	t->cap = cap;
	return 0;
}

void peer_table_fini(struct peer_table *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

struct net_peer *peer_find(struct peer_table *t, const struct in6_addr *ip, uint32_t ifindex)
{
	for (uint32_t i = 0; i < t->n; i++) {
		struct net_peer *p = &t->v[i];

		if (p->addr.ifindex == ifindex && memcmp(&p->addr.ip, ip, sizeof(*ip)) == 0)
			return p;
	}
	return NULL;
}

int peer_add(struct peer_table *t, const struct net_addr *addr, uint32_t link, struct net_peer **ret)
{
	struct net_peer *p = peer_find(t, &addr->ip, addr->ifindex);

	if (p == NULL) {
		if (t->n >= t->cap)
			return -ENOSPC;
		p = &t->v[t->n++];
		memset(p, 0, sizeof(*p));
		p->addr = *addr;
		p->link = link;
		p->tx_slot = -1;
	}
	*ret = p;
	return 0;
}

void peer_remove(struct peer_table *t, uint32_t i)
{
	if (i >= t->n)
		return;
	t->v[i] = t->v[--t->n];
	memset(&t->v[t->n], 0, sizeof(t->v[t->n]));
}
