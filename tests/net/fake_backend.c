/* SPDX-License-Identifier: MIT */
/*
 * fake_backend.c - see fake_backend.h. Static storage; rx hands out queued
 * datagrams in order (truncated to the lent buffer, wire_len the real
 * size), tx copies each datagram into the sent list.
 */
#include "fake_backend.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The fake's state, with the base the network layer holds (backend.h). */
struct fake_backend {
	struct net_backend base;
	struct net_link_info link;
};

static struct fake_backend *fake_of(const struct net_backend *b)
{
	return net_backend_of(b, struct fake_backend, base);
}

static struct fake_dgram fake_rxq[FAKE_MAX], fake_txq[FAKE_MAX];
static uint32_t fake_rx_head, fake_rx_n, fake_tx_n, fake_joins;
static int fake_opened;
static int64_t fake_now_ns; /* 0: the real monotonic clock */

void fake_clock_set(int64_t ns)
{
	fake_now_ns = ns;
}

void fake_reset(void)
{
	fake_rx_head = fake_rx_n = fake_tx_n = fake_joins = 0;
}

void fake_inject(const char *src_ip, uint16_t port, bool mcast, const void *buf, uint32_t len)
{
	struct fake_dgram *d = &fake_rxq[(fake_rx_head + fake_rx_n) % FAKE_MAX];

	if (fake_rx_n == FAKE_MAX || len > FAKE_DGRAM)
		abort(); /* a test bug */
	memcpy(d->buf, buf, len);
	d->len = len;
	inet_pton(AF_INET6, src_ip, &d->addr.ip);
	d->addr.port = port;
	d->addr.ifindex = FAKE_IFINDEX;
	d->mcast = mcast;
	fake_rx_n++;
}

uint32_t fake_sent(void)
{
	return fake_tx_n;
}

const struct fake_dgram *fake_sent_at(uint32_t i)
{
	return i < fake_tx_n ? &fake_txq[i] : NULL;
}

uint32_t fake_joined(void)
{
	return fake_joins;
}

int fake_open_count(void)
{
	return fake_opened;
}

static int fake_open(struct net_loop *loop, const struct net_backend_config *cfg, net_readable_fn readable,
		     void *ctx, struct net_backend **ret)
{
	struct fake_backend *b;

	(void)loop;
	(void)readable;
	(void)ctx;
	if (cfg->n_links != 1 || strcmp(cfg->links[0], "fk0") != 0)
		return -ENODEV;
	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	strcpy(b->link.name, "fk0");
	b->link.ifindex = FAKE_IFINDEX;
	inet_pton(AF_INET6, "fe80::1", &b->link.addr);
	b->base.ops = &fake_backend_ops;
	fake_opened++;
	*ret = &b->base;
	return 0;
}

static int fake_rx(struct net_backend *b, struct net_dgram *d, unsigned n)
{
	unsigned got = 0;

	(void)b;
	while (got < n && fake_rx_n > 0) {
		struct fake_dgram *f = &fake_rxq[fake_rx_head];
		struct net_dgram *g = &d[got++];

		g->wire_len = f->len;
		g->len = f->len < g->cap ? f->len : g->cap;
		memcpy(g->buf, f->buf, g->len);
		g->src = f->addr;
		g->link = 0;
		g->mcast = f->mcast;
		fake_rx_head = (fake_rx_head + 1) % FAKE_MAX;
		fake_rx_n--;
	}
	return (int)got;
}

static int fake_tx(struct net_backend *b, const struct net_tx *tx, unsigned n, int *ret_err)
{
	(void)b;
	for (unsigned i = 0; i < n; i++) {
		struct fake_dgram *f;

		if (fake_tx_n == FAKE_MAX || tx[i].len > FAKE_DGRAM) {
			*ret_err = -ENOBUFS;
			return (int)i;
		}
		f = &fake_txq[fake_tx_n++];
		memcpy(f->buf, tx[i].buf, tx[i].len);
		f->len = tx[i].len;
		f->addr = tx[i].dst;
		f->mcast = tx[i].from_mcast;
	}
	return (int)n;
}

static int fake_join(struct net_backend *b, uint32_t link, const struct in6_addr *group)
{
	(void)b;
	(void)group;
	if (link != 0)
		return -EINVAL;
	fake_joins++;
	return 0;
}

static uint32_t fake_n_links(const struct net_backend *b)
{
	(void)b;
	return 1;
}

static const struct net_link_info *fake_link(const struct net_backend *b, uint32_t link)
{
	return link == 0 ? &fake_of(b)->link : NULL;
}

static int64_t fake_clock_ns(struct net_backend *b)
{
	struct timespec ts;

	(void)b;
	if (fake_now_ns != 0)
		return fake_now_ns;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void fake_close(struct net_backend *b, void (*done)(void *ctx), void *ctx)
{
	if (b != NULL) {
		fake_opened--;
		free(fake_of(b));
	}
	if (done != NULL)
		done(ctx);
}

const struct net_backend_ops fake_backend_ops = {
    .name = "fake",
    .open = fake_open,
    .rx = fake_rx,
    .tx = fake_tx,
    .join = fake_join,
    .n_links = fake_n_links,
    .link = fake_link,
    .clock_ns = fake_clock_ns,
    .close = fake_close,
};
