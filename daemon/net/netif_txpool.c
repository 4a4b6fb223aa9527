/* SPDX-License-Identifier: MIT */
/*
 * netif_txpool.c - the tx frame pool: open frames per peer, raw frames, one batch per send.
 *
 * See netif_impl.h (OVERVIEW) for what this file owns and the invariants.
 */
#include "netif_impl.h"

void netif_tx_send(struct netif *n)
{
	uint32_t k = 0;

	if (!netif_be_open(n)) {
		/* Closed: what is left is not sent (the daemon is stopping). */
		for (uint32_t i = 0; i < n->tx_used; i++) {
			if (n->tx_peer[i] >= 0)
				n->peers.v[n->tx_peer[i]].tx_slot = -1;
			n->tx_peer[i] = -1;
		}
		n->c.tx_errors += n->tx_used;
		memset(n->tx_raw, 0, sizeof(n->tx_raw));
		n->tx_used = 0;
		return;
	}

	/* Finish every open frame first: its peer starts a new one next time. */
	for (uint32_t i = 0; i < n->tx_used; i++) {
		size_t len = 0;

		if (n->tx_peer[i] >= 0) {
			n->peers.v[n->tx_peer[i]].tx_slot = -1;
			n->tx_peer[i] = -1;
		}
		if (n->tx_raw[i]) {
			n->tx_raw[i] = false;
			continue;
		}
		snps_frame_finish(&n->tx_frame[i], &len);
		n->tx[i].len = (uint32_t)len;
	}
	SDDS_PROBE1(backend_handed, n->tx_used);
	/*
	 * Each run of slots that leave through one backend is one tx call, in
	 * slot order (one backend: one run, the whole batch). k counts the
	 * datagrams the backends took or refused one by one.
	 */
	for (uint32_t run = 0; run < n->tx_used;) {
		uint32_t b = n->link_be[n->tx_link[run]], end = run + 1;
		struct net_backend *be = n->be[b];

		while (end < n->tx_used && n->link_be[n->tx_link[end]] == b)
			end++;
		/* The backend's own link number: a serial or TAP link has no ifindex of its own. */
		for (uint32_t i = run; i < end; i++)
			n->tx[i].link = n->tx_link[i] - be->link_base;
		while (run < end) {
			int err = 0;
			int r = n->ops[b]->tx(be, &n->tx[run], end - run, &err);

			if (r < 0) {
				n->c.tx_errors += end - run;
				break;
			}
			for (uint32_t i = run; i < run + (uint32_t)r; i++)
				n->c.bytes_out += n->tx[i].len;
			n->c.frames_out += (uint32_t)r;
			run += (uint32_t)r;
			k += (uint32_t)r;
			if (run < end) {
				/* One datagram failed (EAGAIN, unreachable...): count it, go on. */
				n->c.tx_errors++;
				run++;
				k++;
			}
		}
		run = end;
	}
	SDDS_PROBE2(sent, n->tx_used, k);
	n->tx_used = 0;
}

/*
 * A frame of its own (no peer's batch) to dst, from the multicast socket
 * when from_mcast: an answer to one locator (ACK, NACK, a NACKed sample).
 * The caller fills the returned frame (the last tx slot), or gives the slot
 * back with n->tx_used-- when nothing fits.
 */
struct snps_frame *netif_tx_direct(struct netif *n, const struct net_addr *dst, uint32_t link,
				   bool from_mcast)
{
	uint32_t i;

	if (n->tx_used == NETIF_TX_SLOTS)
		netif_tx_send(n);
	i = n->tx_used++;
	n->tx_peer[i] = -1;
	n->tx_raw[i] = false;
	snps_frame_reset(&n->tx_frame[i]);
	n->tx[i].dst = *dst;
	n->tx[i].from_mcast = from_mcast;
	n->tx_link[i] = link;
	return &n->tx_frame[i];
}

/* A frame slot for peer p holding topic t (the peer's open one if it fits). */
int netif_tx_append(struct netif *n, uint32_t pi, const struct netif_topic *t, const uint8_t *sample,
		    bool swap, const struct snps_seqnr *seq)
{
	struct net_peer *p = &n->peers.v[pi];
	struct snps_sample_meta m = {
	    .domain = (uint8_t)t->cfg.desc.domain, .topic = t->cfg.desc.topic_id, .seqnr = seq};
	uint32_t size = t->cfg.desc.sample_size;
	uint8_t *dst;
	int rc;

	for (int attempt = 0; attempt < 2; attempt++) {
		if (p->tx_slot >= 0 && p->tx_topic == t->cfg.desc.topic_id) {
			rc = snps_frame_add_sample_reserve(&n->tx_frame[p->tx_slot], &m, size, &dst);
			if (rc == 0) {
				if (swap)
					snps_sample_swap(&t->layout, dst, sample, size);
				else
					memcpy(dst, sample, size);
				p->c.samples_out++;
				n->c.samples_out++;
				/* Closed at once for a receiver that takes one sample per frame. */
				if (!(p->pack || p->pack_heard) || p->group) {
					n->tx_peer[p->tx_slot] = -1;
					p->tx_slot = -1;
				}
				return 0;
			}
		}
		/* Close the peer's frame (it is sent with the batch) and open a new one. */
		if (p->tx_slot >= 0) {
			n->tx_peer[p->tx_slot] = -1;
			p->tx_slot = -1;
		}
		if (n->tx_used == NETIF_TX_SLOTS)
			netif_tx_send(n);
		p->tx_slot = (int)n->tx_used++;
		p->tx_topic = t->cfg.desc.topic_id;
		n->tx_peer[p->tx_slot] = (int32_t)pi;
		snps_frame_reset(&n->tx_frame[p->tx_slot]);
		n->tx[p->tx_slot].dst = p->addr;
		n->tx_link[p->tx_slot] = p->link;
		n->tx[p->tx_slot].from_mcast = p->tx_mcast;
		p->c.frames_out++;
	}
	/* A sample that does not fit an empty frame: netif_new refuses such topics. */
	return -EMSGSIZE;
}

/* discovery -> wire: one finished frame into a tx slot, sent at the end of the turn. */
void netif_disc_send(void *ctx, const uint8_t *buf, uint32_t len, const struct disc_locator *dst)
{
	struct netif *n = ctx;
	uint32_t i;

	if (!netif_be_open(n) || dst->link >= n->n_links || len > n->opt.max_frame)
		return;
	if (n->tx_used == NETIF_TX_SLOTS)
		netif_tx_send(n);
	i = n->tx_used++;
	n->tx_raw[i] = true;
	n->tx_peer[i] = -1;
	memcpy(n->tx_mem + (size_t)i * n->opt.max_frame, buf, len);
	n->tx[i].len = len;
	n->tx[i].dst.ip = dst->ip;
	n->tx[i].dst.port = dst->port;
	n->tx[i].dst.ifindex = netif_link(n, dst->link)->ifindex;
	n->tx_link[i] = dst->link;
	n->tx[i].from_mcast = true;
}

/* The frame pool and the receive buffers as netif_new leaves them: empty, zeroed, no frame open. */
void netif_buffers_init(struct netif *n)
{
	memset(n->tx_mem, 0, (size_t)NETIF_TX_SLOTS * n->opt.max_frame);
	memset(n->rx_mem, 0, (size_t)NETIF_RX_BATCH * n->opt.max_frame);
	for (uint32_t i = 0; i < NETIF_TX_SLOTS; i++) {
		struct snps_frame_options fo;

		snps_frame_options_init(&fo);
		fo.max_frame = n->opt.max_frame;
		snps_frame_init(&n->tx_frame[i], n->tx_mem + (size_t)i * n->opt.max_frame, n->opt.max_frame,
				&fo);
		memset(&n->tx[i], 0, sizeof(n->tx[i]));
		n->tx[i].buf = n->tx_mem + (size_t)i * n->opt.max_frame;
		n->tx_peer[i] = -1;
		n->tx_raw[i] = false;
		n->tx_link[i] = 0;
	}
	n->tx_used = 0;
	for (uint32_t i = 0; i < NETIF_RX_BATCH; i++) {
		memset(&n->rx[i], 0, sizeof(n->rx[i]));
		n->rx[i].buf = n->rx_mem + (size_t)i * n->opt.max_frame;
		n->rx[i].cap = n->opt.max_frame;
	}
}
