/* SPDX-License-Identifier: MIT */
/*
 * fake_netdev.c - the wireless netdev of fake_netdev.h: sent frames on a
 * list, injected frames on a queue, a MAC filter in an array.
 */
#include <errno.h>
#include <string.h>

#include "fake_netdev.h"

static struct fake_netdev *fake_of(struct netdev *d)
{
	return netdev_of(d, struct fake_netdev, base);
}

static int fake_rx_batch(struct netdev *d, struct netdev_buf **b, unsigned n)
{
	struct fake_netdev *f = fake_of(d);
	unsigned k = n < f->n_rx ? n : f->n_rx;

	for (unsigned i = 0; i < k; i++) {
		b[i] = f->rx[i];
		b[i]->ts_ns = f->clock;
	}
	memmove(f->rx, f->rx + k, (f->n_rx - k) * sizeof(f->rx[0]));
	f->n_rx -= k;
	return (int)k;
}

static int fake_tx_batch(struct netdev *d, struct netdev_buf **b, unsigned n)
{
	struct fake_netdev *f = fake_of(d);
	unsigned k = n < f->tx_room ? n : f->tx_room;

	for (unsigned i = 0; i < k; i++) {
		d->stats.tx_frames++;
		d->stats.tx_bytes += b[i]->len;
		if (f->n_sent == FAKE_MAX_SENT) {
			f->sent_overflow++;
			netdev_buf_free(&f->pool, b[i]);
			continue;
		}
		f->sent[f->n_sent++] = b[i];
	}
	return (int)k;
}

static int fake_mcast_add(struct netdev *d, const uint8_t mac[NETDEV_ETH_ALEN])
{
	struct fake_netdev *f = fake_of(d);

	if (f->n_mcast == FAKE_MAX_MCAST)
		return -ENOSPC;
	memcpy(f->mcast[f->n_mcast++], mac, NETDEV_ETH_ALEN);
	return 0;
}

static int fake_mcast_del(struct netdev *d, const uint8_t mac[NETDEV_ETH_ALEN])
{
	struct fake_netdev *f = fake_of(d);

	for (unsigned i = 0; i < f->n_mcast; i++) {
		if (memcmp(f->mcast[i], mac, NETDEV_ETH_ALEN) == 0) {
			memmove(f->mcast[i], f->mcast[i + 1], (f->n_mcast - i - 1) * sizeof(f->mcast[0]));
			f->n_mcast--;
			return 0;
		}
	}
	return -ENOENT;
}

static bool fake_link_up(struct netdev *d)
{
	return fake_of(d)->link;
}

static int64_t fake_clock_ns(struct netdev *d)
{
	return fake_of(d)->clock;
}

static void fake_close_op(struct netdev *d)
{
	(void)d;
}

static const struct netdev_ops fake_ops = {
    .name = "fake",
    .rx_batch = fake_rx_batch,
    .tx_batch = fake_tx_batch,
    .mcast_add = fake_mcast_add,
    .mcast_del = fake_mcast_del,
    .link_up = fake_link_up,
    .clock_ns = fake_clock_ns,
    .close = fake_close_op,
};

int fake_netdev_open(struct fake_netdev *f, const uint8_t mac[NETDEV_ETH_ALEN], uint32_t mtu, uint32_t nbufs)
{
	int rc;

	memset(f, 0, sizeof(*f));
	rc = netdev_pool_init(&f->pool, nbufs, NETDEV_BUF_SIZE);
	if (rc < 0)
		return rc;
	f->base.ops = &fake_ops;
	f->base.pool = &f->pool;
	strcpy(f->base.name, "fake0");
	memcpy(f->base.mac, mac, NETDEV_ETH_ALEN);
	f->base.mtu = mtu;
	f->base.fd = -1;
	f->link = true;
	f->tx_room = UINT32_MAX;
	return 0;
}

void fake_netdev_clear_sent(struct fake_netdev *f)
{
	for (unsigned i = 0; i < f->n_sent; i++)
		netdev_buf_free(&f->pool, f->sent[i]);
	f->n_sent = 0;
}

uint32_t fake_netdev_close(struct fake_netdev *f)
{
	uint32_t out;

	fake_netdev_clear_sent(f);
	for (unsigned i = 0; i < f->n_rx; i++)
		netdev_buf_free(&f->pool, f->rx[i]);
	f->n_rx = 0;
	out = f->pool.out;
	netdev_pool_fini(&f->pool);
	return out;
}

struct netdev_buf *fake_netdev_frame(struct fake_netdev *f, const void *frame, uint32_t len)
{
	struct netdev_buf *b;

	if (len > f->pool.size)
		return NULL;
	b = netdev_buf_alloc(&f->pool);
	if (b == NULL)
		return NULL;
	memcpy(b->data, frame, len);
	b->len = len;
	b->ts_ns = f->clock;
	return b;
}

int fake_netdev_inject(struct fake_netdev *f, const void *frame, uint32_t len)
{
	struct netdev_buf *b;

	if (f->n_rx == FAKE_MAX_RX)
		return -ENOBUFS;
	b = fake_netdev_frame(f, frame, len);
	if (b == NULL)
		return -ENOBUFS;
	f->rx[f->n_rx++] = b;
	return 0;
}

bool fake_netdev_mcast_has(const struct fake_netdev *f, const uint8_t mac[NETDEV_ETH_ALEN])
{
	for (unsigned i = 0; i < f->n_mcast; i++)
		if (memcmp(f->mcast[i], mac, NETDEV_ETH_ALEN) == 0)
			return true;
	return false;
}
