/* SPDX-License-Identifier: MIT */
/*
 * netif.c - the network layer: topic table, peers, SNPS encode/decode,
 * bridging with the broker (see netif.h for the model).
 *
 * The state, who owns what and the invariants: netif_impl.h (OVERVIEW).
 */
#include "netif_impl.h"

static const char *const netif_drop_names[NETIF_DROP_MAX_] = {
    [SNPS_R_NONE] = "none",
    [SNPS_R_SHORT_HEADER] = "short_header",
    [SNPS_R_BAD_VERSION] = "bad_version",
    [SNPS_R_COUNT_HIGH] = "count_high",
    [SNPS_R_COUNT_LOW] = "count_low",
    [SNPS_R_TRUNCATED] = "truncated",
    [SNPS_R_UNKNOWN_EXT] = "unknown_ext",
    [SNPS_R_NO_TOPIC] = "no_topic",
    [SNPS_R_UNKNOWN_TOPIC] = "unknown_topic",
    [SNPS_R_DATA_NIBBLE] = "data_nibble",
    [SNPS_R_BAD_ADDRESS] = "bad_address",
    [SNPS_R_ACK_NO_SEQNR] = "ack_no_seqnr",
    [SNPS_R_BAD_SECURE] = "bad_secure",
    [NETIF_DROP_OVERSIZED] = "oversized",
    [NETIF_DROP_BAD_SOURCE] = "bad_source",
    [NETIF_DROP_BAD_PORT] = "bad_port",
    [NETIF_DROP_OWN] = "own_address",
    [NETIF_DROP_DOMAIN] = "domain_mismatch",
    [NETIF_DROP_BAD_SAMPLE] = "bad_sample",
    [NETIF_DROP_SEQ_SIZE] = "seq_size",
    [NETIF_DROP_SECURE] = "secure_unsupported",
    [NETIF_DROP_RX_ERROR] = "rx_error",
};

_Static_assert((int)SNPS_R_MAX_ <= (int)NETIF_DROP_OVERSIZED, "codec reasons overlap the layer's own");

const char *netif_drop_name(unsigned reason)
{
	if (reason >= NETIF_DROP_MAX_ || netif_drop_names[reason] == NULL)
		return "unknown";
	return netif_drop_names[reason];
}

void netif_options_init(struct netif_options *o)
{
	memset(o, 0, sizeof(*o));
	o->max_frame = SNPS_MAX_FRAME_DEFAULT;
	o->max_peers = 64;
	o->backlog_cap = 4096;
	o->reader_depth = 4096;
	o->rx_budget = 256;
	/* A burst of garbage must not push real frames out of the queue while we sleep. */
	o->rcvbuf = 4u << 20;
	o->sndbuf = 1u << 20;
	o->gso = true;
	o->disc.participant_ms = 1000;
	o->disc.publication_ms = 5000;
	o->disc.expire_ms = 5000;
	o->disc.max_subs = 64;
	o->disc.announce_pack = true;
}

/* ---------------- tx ------------------------------------------------------ */

static void netif_tx_send(struct netif *n)
{
	uint32_t k = 0;

	if (n->be == NULL) {
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
	while (k < n->tx_used) {
		int err = 0;
		int r = n->ops->tx(n->be, &n->tx[k], n->tx_used - k, &err);

		if (r < 0) {
			n->c.tx_errors += n->tx_used - k;
			break;
		}
		for (uint32_t i = k; i < k + (uint32_t)r; i++)
			n->c.bytes_out += n->tx[i].len;
		n->c.frames_out += (uint32_t)r;
		k += (uint32_t)r;
		if (k < n->tx_used) {
			/* One datagram failed (EAGAIN, unreachable...): count it, go on. */
			n->c.tx_errors++;
			k++;
		}
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
static struct snps_frame *netif_tx_direct(struct netif *n, const struct net_addr *dst, bool from_mcast)
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
	return &n->tx_frame[i];
}

/* A frame slot for peer p holding topic t (the peer's open one if it fits). */
static int netif_tx_append(struct netif *n, uint32_t pi, const struct netif_topic *t, const uint8_t *sample,
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
		n->tx[p->tx_slot].from_mcast = p->tx_mcast;
		p->c.frames_out++;
	}
	/* A sample that does not fit an empty frame: netif_new refuses such topics. */
	return -EMSGSIZE;
}

static void netif_on_rel_timer(uv_timer_t *h);
static bool netif_swapped(const struct netif *n, const struct in6_addr *ip);
static bool netif_nrx_tick(struct netif *n, int64_t now);
static bool netif_nack_pub_tick(struct netif *n, int64_t now);

/* Start of every libuv callback of the layer: the owner's lock, if any. */
static void netif_enter(struct netif *n)
{
	if (n->hooks.enter != NULL)
		n->hooks.enter(n->hooks.ctx);
}

/* Send window entry k of reliable topic t to the destinations in mask. */
static void netif_rel_send(struct netif *n, struct netif_topic *t, uint32_t k, uint64_t mask)
{
	uint32_t e = (t->win_head + k) % NETIF_REL_WINDOW;
	struct snps_seqnr s = {.bits = 4, .value = t->win[e].seq};

	for (uint32_t i = 0; i < t->n_dests; i++) {
		if (mask & (1ull << i))
			netif_tx_append(n, t->dests[i], t, t->win[e].data, n->peers.v[t->dests[i]].swapped,
					&s);
	}
}

/* A reliable sample enters the window: numbered, sent to every destination, kept until all ACKed. */
static void netif_rel_push(struct netif *n, struct netif_topic *t, const uint8_t *sample)
{
	uint32_t e = (t->win_head + t->win_n) % NETIF_REL_WINDOW;
	uint64_t mask = 0;

	for (uint32_t i = 0; i < t->n_dests; i++) {
		/* A group gives no ACK that names it (answers come from each member): best effort there. */
		if (!n->peers.v[t->dests[i]].group)
			mask |= 1ull << i;
	}
	t->win[e].seq = t->next_seq;
	t->next_seq = (uint8_t)((t->next_seq + 1) & 15);
	t->win[e].pending = mask;
	t->win[e].tries = 0;
	memcpy(t->win[e].data, sample, t->cfg.desc.sample_size);
	netif_rel_send(n, t, t->win_n, ~0ull);
	if (mask == 0)
		return; /* nobody to wait for */
	t->win_n++;
	t->sent_ns = n->ops->clock_ns(n->be);
	/* Threaded: the caller may not be the loop's thread; the timer runs for good (netif_new). */
	if (n->handles_open && !n->opt.threaded && !uv_is_active((uv_handle_t *)&n->rel_timer))
		uv_timer_start(&n->rel_timer, netif_on_rel_timer, NETIF_REL_RTO_MS, NETIF_REL_RTO_MS);
}

static int64_t netif_now(const struct netif *n)
{
	return n->be != NULL ? n->ops->clock_ns(n->be) : 0;
}

static void netif_rel_timer_on(struct netif *n)
{
	/* Threaded: the caller may not be the loop's thread; the timer runs for good (netif_new). */
	if (n->handles_open && !n->opt.threaded && !uv_is_active((uv_handle_t *)&n->rel_timer))
		uv_timer_start(&n->rel_timer, netif_on_rel_timer, NETIF_REL_RTO_MS, NETIF_REL_RTO_MS);
}

static uint32_t netif_seq_mask(unsigned bits)
{
	return bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
}

/* Send kept sample e of NACK topic t to every destination (groups included). */
static void netif_nack_send_all(struct netif *n, struct netif_topic *t, const struct netif_nack_ent *e)
{
	struct snps_seqnr sq = {.bits = t->cfg.seq_bits, .value = e->seq};

	for (uint32_t i = 0; i < t->n_dests; i++)
		netif_tx_append(n, t->dests[i], t, e->data, n->peers.v[t->dests[i]].swapped, &sq);
}

/* Room in t's history for one more sample: the oldest goes once it was kept long enough. */
static bool netif_nack_room(struct netif_topic *t, int64_t now)
{
	if (t->hist_n < t->hist_cap)
		return true;
	if (now - t->hist[t->hist_head].sent_ns < (int64_t)NETIF_NACK_HOLD_MS * 1000000)
		return false;
	t->hist_head = (t->hist_head + 1) % t->hist_cap;
	t->hist_n--;
	return true;
}

/* A sample of NACK topic t: numbered, kept, sent to every destination. */
static void netif_nack_push(struct netif *n, struct netif_topic *t, const uint8_t *sample, int64_t now)
{
	struct netif_nack_ent *e = &t->hist[(t->hist_head + t->hist_n) % t->hist_cap];

	e->seq = t->nack_next;
	e->resends = 0;
	e->sent_ns = now;
	memcpy(e->data, sample, t->cfg.desc.sample_size);
	t->hist_n++;
	t->nack_next = (t->nack_next + 1) & netif_seq_mask(t->cfg.seq_bits);
	t->last_tx_ns = now;
	t->newest_ns = now;
	t->hb_sent = 0;
	netif_nack_send_all(n, t, e);
	netif_rel_timer_on(n);
}

/*
 * A NACK for number seq of our topic t from src: resend that sample to src
 * alone (from the socket the NACK came in on), if kept and within budget.
 */
static void netif_nack_answer(struct netif *n, struct netif_topic *t, const struct net_addr *src, bool mcast,
			      uint32_t seq)
{
	struct snps_sample_meta m = {.domain = (uint8_t)t->cfg.desc.domain, .topic = t->cfg.desc.topic_id};
	struct snps_seqnr sq = {.bits = t->cfg.seq_bits, .value = seq};
	struct netif_nack_ent *e = NULL;
	struct snps_frame *f;
	uint8_t *dst;

	for (uint32_t k = 0; k < t->hist_n; k++) {
		struct netif_nack_ent *c = &t->hist[(t->hist_head + k) % t->hist_cap];

		if (c->seq == seq) {
			e = c;
			break;
		}
	}
	if (e == NULL) {
		n->c.nack_unknown++;
		return;
	}
	if (e->resends >= NETIF_NACK_MAX_RESENDS || n->nack_budget == 0 || n->be == NULL) {
		n->c.nack_limited++;
		return;
	}
	f = netif_tx_direct(n, src, mcast);
	m.seqnr = &sq;
	if (snps_frame_add_sample_reserve(f, &m, t->cfg.desc.sample_size, &dst) < 0) {
		n->tx_used--;
		return;
	}
	if (netif_swapped(n, &src->ip))
		snps_sample_swap(&t->layout, dst, e->data, t->cfg.desc.sample_size);
	else
		memcpy(dst, e->data, t->cfg.desc.sample_size);
	e->resends++;
	n->nack_budget--;
	n->c.nack_resent++;
	n->c.samples_out++;
}

/* Drain the network reader's ring of t into frames for its destinations
 * (a reliable topic only while its window has room: the rest waits in the ring). */
static void netif_topic_drain(struct netif *n, struct netif_topic *t)
{
	uint32_t len;
	int rc;

	int64_t now = t->nack ? netif_now(n) : 0;

	for (;;) {
		if (t->rel && t->win_n == NETIF_REL_WINDOW)
			break;
		if (t->nack && !netif_nack_room(t, now)) {
			netif_rel_timer_on(n); /* the oldest kept one leaves at its time */
			break;
		}
		rc = rring_cons_take(&t->cons, n->sample_buf, n->max_sample, &len, NULL, NULL);
		if (rc <= 0)
			break;
		if (len != t->cfg.desc.sample_size || n->closing)
			continue;
		if (t->nack) {
			netif_nack_push(n, t, n->sample_buf, now);
			continue;
		}
		if (t->rel) {
			netif_rel_push(n, t, n->sample_buf);
			SDDS_PROBE3(encoded, SDDS_PROBE_TOPIC(t->cfg.desc.domain, t->cfg.desc.topic_id),
				    t->cons.cons - 1, t->n_dests);
			continue;
		}
		for (uint32_t i = 0; i < t->n_dests; i++)
			netif_tx_append(n, t->dests[i], t, n->sample_buf, n->peers.v[t->dests[i]].swapped,
					NULL);
		SDDS_PROBE3(encoded, SDDS_PROBE_TOPIC(t->cfg.desc.domain, t->cfg.desc.topic_id),
			    t->cons.cons - 1, t->n_dests);
	}
	n->c.local_overwritten += t->cons.lost;
	t->cons.lost = 0;
}

/* Free the acknowledged samples at the head of t's window; then take more from its ring. */
static void netif_rel_pop(struct netif *n, struct netif_topic *t)
{
	bool freed = false;

	while (t->win_n > 0 && t->win[t->win_head].pending == 0) {
		t->win_head = (t->win_head + 1) % NETIF_REL_WINDOW;
		t->win_n--;
		freed = true;
	}
	if (freed)
		netif_topic_drain(n, t);
}

/* An ACK for reliable topic t from src: the destination at that address owes nothing for seq any more. */
static void netif_rel_ack(struct netif *n, struct netif_topic *t, const struct net_addr *src, uint32_t seq)
{
	for (uint32_t i = 0; i < t->n_dests; i++) {
		const struct net_peer *p = &n->peers.v[t->dests[i]];

		/* Address only, as real nodes compare locators (§8.1). */
		if (memcmp(&p->addr.ip, &src->ip, sizeof(src->ip)) != 0 || p->addr.ifindex != src->ifindex)
			continue;
		for (uint32_t k = 0; k < t->win_n; k++) {
			uint32_t e = (t->win_head + k) % NETIF_REL_WINDOW;

			if (t->win[e].seq == (seq & 15))
				t->win[e].pending &= ~(1ull << i);
		}
	}
	netif_rel_pop(n, t);
}

/* Resend every window whose last send is older than the timeout. */
static void netif_rel_resend(struct netif *n)
{
	int64_t now = n->ops->clock_ns(n->be);
	bool waiting = false;

	for (uint32_t ti = 0; ti < n->n_topics; ti++) {
		struct netif_topic *t = &n->topics[ti];

		if (!t->rel || t->win_n == 0)
			continue;
		waiting = true;
		if (now - t->sent_ns < (int64_t)NETIF_REL_RTO_MS * 1000000)
			continue;
		for (uint32_t k = 0; k < t->win_n; k++) {
			uint32_t e = (t->win_head + k) % NETIF_REL_WINDOW;

			if (t->win[e].tries++ >= NETIF_REL_MAX_TRIES) {
				t->win[e].pending = 0;
				n->c.rel_given_up++;
				continue;
			}
			netif_rel_send(n, t, k, t->win[e].pending);
			n->c.resent++;
		}
		t->sent_ns = now;
		netif_rel_pop(n, t);
	}
	if (netif_nack_pub_tick(n, now))
		waiting = true;
	if (netif_nrx_tick(n, now))
		waiting = true;
	if (!waiting && n->handles_open && !n->opt.threaded)
		uv_timer_stop(&n->rel_timer);
}

static void netif_on_rel_timer(uv_timer_t *h)
{
	struct netif *n = h->data;

	netif_enter(n);
	netif_rel_resend(n);
	if (n->tx_used > 0)
		netif_tx_send(n);
	if (n->hooks.after != NULL)
		n->hooks.after(n->hooks.ctx);
}

/* Drain the network reader's ring of t into frames for its destinations. */
static void netif_reader_notify(struct broker_reader *r, void *owner)
{
	struct netif_topic *t = owner;

	(void)r;
	netif_topic_drain(t->n, t);
	/* Threaded: the writer's own call puts its sample on the wire (no turn of
	 * the loop to wait for, as a monolithic node sends from its write). */
	if (t->n->opt.threaded && t->n->tx_used > 0)
		netif_tx_send(t->n);
}

/* ---------------- network -> local --------------------------------------- */

static uint8_t *netif_bl_slot(struct netif *n, uint32_t i)
{
	return n->bl_data + (size_t)((n->bl_head + i) % n->opt.backlog_cap) * n->max_sample;
}

static int netif_deliver(struct netif *n, struct netif_topic *t, const uint8_t *data, bool force)
{
	struct broker_reader *blocker = NULL;
	uint32_t len = t->cfg.desc.sample_size;
	int rc;

	rc = force ? broker_write_force(t->w, data, len, NETIF_OWNER, &blocker)
		   : broker_write(t->w, data, len, NETIF_OWNER, &blocker);
	if (rc == -EPROTO) {
		/* A client broke its reader ring: it goes (reaped after this callback), the sample waits. */
		if (n->hooks.kill_owner != NULL && blocker != NULL)
			n->hooks.kill_owner(n->hooks.ctx, broker_reader_owner(blocker),
					    "reader ring corrupted (seen by the network layer)");
		return -EAGAIN;
	}
	if (rc == -EAGAIN && blocker != NULL && n->bl_blocker == NULL) {
		n->bl_blocker = blocker;
		/* The reader's client kicks its session once it consumed: the loop wakes. */
		if (rring_prod_wait_space(broker_reader_ring(blocker))) {
			rring_prod_stop_wait_space(broker_reader_ring(blocker));
			n->bl_blocker = NULL;
		}
	}
	return rc;
}

static void netif_on_retry(uv_timer_t *h);

static void netif_backlog_drain(struct netif *n)
{
	if (n->bl_blocker != NULL) {
		rring_prod_stop_wait_space(broker_reader_ring(n->bl_blocker));
		n->bl_blocker = NULL;
	}
	while (n->bl_n > 0) {
		struct netif_backlog_ent *e = &n->bl[n->bl_head];
		int rc = netif_deliver(n, &n->topics[e->topic], netif_bl_slot(n, 0), false);

		if (rc == -EAGAIN)
			break;
		n->bl_head = (n->bl_head + 1) % n->opt.backlog_cap;
		n->bl_n--;
	}
	if (!n->handles_open)
		return;
	if (n->bl_n == 0)
		uv_timer_stop(&n->retry);
	else if (!uv_is_active((uv_handle_t *)&n->retry))
		uv_timer_start(&n->retry, netif_on_retry, NETIF_BACKLOG_RETRY_MS, NETIF_BACKLOG_RETRY_MS);
}

static void netif_backlog_push(struct netif *n, uint32_t topic, const uint8_t *data)
{
	struct netif_topic *t = &n->topics[topic];
	uint32_t tail;

	if (n->bl_n == n->opt.backlog_cap) {
		/* Full: the oldest goes to the readers with room, the full one misses it. */
		struct netif_backlog_ent *e = &n->bl[n->bl_head];

		netif_deliver(n, &n->topics[e->topic], netif_bl_slot(n, 0), true);
		n->c.backlog_forced++;
		n->bl_head = (n->bl_head + 1) % n->opt.backlog_cap;
		n->bl_n--;
	}
	tail = (n->bl_head + n->bl_n) % n->opt.backlog_cap;
	n->bl[tail].topic = topic;
	n->bl[tail].len = t->cfg.desc.sample_size;
	memcpy(netif_bl_slot(n, n->bl_n), data, t->cfg.desc.sample_size);
	n->bl_n++;
}

static enum netif_seq_verdict netif_seq_check(struct netif *n, struct net_peer *p, uint16_t topic,
					      const struct snps_seqnr *s, bool strict)
{
	uint32_t mask = s->bits >= 32 ? 0xffffffffu : (1u << s->bits) - 1;
	uint32_t ahead;

	if (p == NULL || topic >= 16)
		return NETIF_SEQ_TAKE;
	if (!(p->rx_seq_valid & (1u << topic))) {
		p->rx_seq_valid |= (uint16_t)(1u << topic);
		p->rx_gap[topic] = 0;
		/*
		 * A sender counts from 0 (§11.2): a reliable stream first heard
		 * at a number inside the sender's window lost its first samples
		 * on the way; they are still unacknowledged there, so wait for
		 * their resend (resync as for any gap if they never come).
		 */
		if (strict && s->value != 0 && s->value < NETIF_REL_WINDOW) {
			p->rx_seq[topic] = mask;
			p->rx_gap[topic] = 1;
			return NETIF_SEQ_GAP;
		}
		p->rx_seq[topic] = s->value;
		return NETIF_SEQ_TAKE;
	}
	ahead = (s->value - p->rx_seq[topic]) & mask;
	if (ahead == 0 || ahead > mask / 2)
		return NETIF_SEQ_DUP;
	if (strict && ahead > 1) {
		if (++p->rx_gap[topic] < NETIF_SEQ_RESYNC)
			return NETIF_SEQ_GAP;
		n->c.seq_resync++;
	}
	p->rx_gap[topic] = 0;
	p->rx_seq[topic] = s->value;
	return NETIF_SEQ_TAKE;
}

/* ACK a reliable sample to the frame's source locator, from the socket it came in on (§9.5, probe_qback). */
static void netif_send_ack(struct netif *n, const struct net_addr *src, bool mcast, uint8_t domain,
			   uint16_t topic, const struct snps_seqnr *s)
{
	if (n->be == NULL)
		return;
	if (snps_frame_add_ack(netif_tx_direct(n, src, mcast), domain, topic, s) < 0) {
		n->tx_used--;
		return;
	}
	n->c.acks_out++;
}

/* A network sample of topic ti for the local readers (behind the backlog, if any). */
static void netif_take(struct netif *n, uint32_t ti, const uint8_t *data)
{
	if (n->bl_n > 0 || netif_deliver(n, &n->topics[ti], data, false) == -EAGAIN)
		netif_backlog_push(n, ti, data);
}

/* ---------------- NACK streams (receive side) ----------------------------- */

static uint8_t *netif_nrx_slot(const struct netif *n, const struct netif_nack_rx *r, uint32_t slot)
{
	return r->data + (size_t)slot * n->max_sample;
}

/* Deliver the held samples of r that are next in order. */
static void netif_nrx_drain(struct netif *n, struct netif_nack_rx *r)
{
	uint32_t slot;

	while (gaptrack_pop(&r->g, &slot))
		netif_take(n, r->topic, netif_nrx_slot(n, r, slot));
}

/* Give up the next number of r (missing: counted; held: delivered), then what follows it. */
static void netif_nrx_skip(struct netif *n, struct netif_nack_rx *r)
{
	uint32_t slot;

	if (gaptrack_skip(&r->g, &slot) == 1)
		netif_take(n, r->topic, netif_nrx_slot(n, r, slot));
	else
		n->c.gaps_given_up++;
	netif_nrx_drain(n, r);
}

/* Everything r holds goes out in order, the missing numbers given up; the slot is free. */
static void netif_nrx_release(struct netif *n, struct netif_nack_rx *r)
{
	while (r->g.top > 0)
		netif_nrx_skip(n, r);
	r->used = false;
}

/* NACK the missing numbers of r NACKed fewer than max_tries times, in frames to its publisher. */
static void netif_nrx_nack(struct netif *n, struct netif_nack_rx *r, uint32_t max_tries)
{
	const struct netif_topic *t = &n->topics[r->topic];
	uint32_t seqs[NETIF_NACK_PER_FRAME], k;

	if (n->be == NULL)
		return;
	while ((k = gaptrack_nack_list(&r->g, max_tries, seqs, NETIF_NACK_PER_FRAME)) > 0) {
		struct snps_frame *f = netif_tx_direct(n, &r->src, r->mcast);

		for (uint32_t j = 0; j < k; j++) {
			struct snps_seqnr sq = {.bits = r->bits, .value = seqs[j]};

			if (snps_frame_add_nack(f, (uint8_t)t->cfg.desc.domain, t->cfg.desc.topic_id, &sq) ==
			    0)
				n->c.nacks_out++;
		}
		if (k < NETIF_NACK_PER_FRAME)
			break;
	}
}

/* The stream of topic ti from src: found, or a free (else the least recently heard) slot taken. */
static struct netif_nack_rx *netif_nrx_get(struct netif *n, uint32_t ti, const struct net_addr *src,
					   uint8_t bits)
{
	struct netif_nack_rx *r = NULL, *old = NULL;

	for (uint32_t i = 0; i < NETIF_NACK_STREAMS; i++) {
		struct netif_nack_rx *c = &n->nrx[i];

		if (!c->used) {
			if (r == NULL)
				r = c;
			continue;
		}
		if (c->topic == ti && c->src.ifindex == src->ifindex &&
		    memcmp(&c->src.ip, &src->ip, sizeof(src->ip)) == 0) {
			if (c->bits == bits)
				return c;
			/* The publisher changed its number size: a new stream. */
			netif_nrx_release(n, c);
			r = c;
			break;
		}
		if (old == NULL || c->seen_ns < old->seen_ns)
			old = c;
	}
	if (r == NULL) {
		if (old == NULL || old->data == NULL)
			return NULL;
		netif_nrx_release(n, old);
		r = old;
	}
	if (r->data == NULL)
		return NULL;
	if (gaptrack_init(&r->g, bits, gaptrack_span(bits)) < 0)
		return NULL;
	r->used = true;
	r->topic = ti;
	r->src = *src;
	r->bits = bits;
	r->nacked_ns = 0;
	r->rtt_ns = 0;
	r->head_known = false;
	r->far_behind = 0;
	return r;
}

/* Whether seq is behind g's next number (not ahead of it, held) by more than its span. */
static bool netif_nrx_far_behind(const struct gaptrack *g, uint32_t seq)
{
	uint32_t behind = (g->expect - seq) & g->mask;

	return behind != 0 && behind <= g->mask / 2 + 1 && behind > g->cap;
}

/*
 * A numbered sample of NACK topic ti from src: held in its stream's
 * reorder ring, delivered in order; new gaps NACKed at once.
 */
static void netif_nrx_sample(struct netif *n, uint32_t ti, const struct net_addr *src, bool mcast,
			     const struct snps_seqnr *sq, const uint8_t *data)
{
	struct netif_nack_rx *r = netif_nrx_get(n, ti, src, sq->bits);
	int64_t now = netif_now(n);
	uint32_t slot;
	int rc;

	if (r == NULL) {
		netif_take(n, ti, data);
		return;
	}
	r->src.port = src->port; /* replies go where its last frame came from (§15.5) */
	r->mcast = mcast;
	r->seen_ns = now;
	/* The retry clock starts with the first gap; later gaps do not push the older ones' retries back. */
	if (r->g.top == 0)
		r->nacked_ns = now;
	/*
	 * Too far ahead: the oldest gaps are given up and what is held goes
	 * out, at most cap skips; with nothing held the stream jumps to the
	 * number at once, so no number from the wire costs more than cap steps.
	 */
	for (;;) {
		while ((rc = gaptrack_offer(&r->g, sq->value, &slot)) == -ENOBUFS) {
			if (r->g.top == 0 && gaptrack_jump(&r->g, sq->value) >= 0) {
				n->c.seq_resync++;
				continue;
			}
			netif_nrx_skip(n, r);
		}
		if (rc != -EEXIST)
			break;
		/*
		 * A duplicate (of a held sample ahead, or of one just behind)
		 * is dropped; a run of samples behind by more than the span
		 * restarts the stream.
		 */
		if (!netif_nrx_far_behind(&r->g, sq->value)) {
			r->far_behind = 0; /* the run is broken */
			n->c.seq_dropped++;
			return;
		}
		if (++r->far_behind < NETIF_NACK_RESTART) {
			n->c.seq_dropped++;
			return;
		}
		while (r->g.top > 0)
			netif_nrx_skip(n, r);
		gaptrack_jump(&r->g, sq->value);
		r->far_behind = 0;
		n->c.seq_resync++;
	}
	r->far_behind = 0;
	if (rc == 1) {
		/* Round-trip estimate from the NACK round to the fill: retries wait for the answer. */
		int64_t rtt = now - r->nacked_ns;

		if (rtt > 0 && rtt < (int64_t)NETIF_NACK_GIVEUP_MS * 1000000)
			r->rtt_ns = r->rtt_ns == 0 ? rtt : (7 * r->rtt_ns + rtt) / 8;
		n->c.gaps_recovered++;
	}
	memcpy(netif_nrx_slot(n, r, slot), data, n->topics[ti].cfg.desc.sample_size);
	netif_nrx_drain(n, r);
	if (r->g.top > 0) {
		/* Numbers never NACKed yet: now; the older ones at their retry time. */
		netif_nrx_nack(n, r, 1);
		netif_rel_timer_on(n);
	}
}

/*
 * Time between NACK rounds of r: NETIF_NACK_RETRY_MS, or twice the round
 * trip seen when longer, but never so long that a gap gets fewer than
 * NETIF_NACK_MIN_ROUNDS rounds before NETIF_NACK_GIVEUP_MS (the estimate
 * runs high: a fill is timed from the last round, not from the NACK that
 * asked for it).
 */
static int64_t netif_nrx_retry_ns(const struct netif_nack_rx *r)
{
	int64_t min = (int64_t)NETIF_NACK_RETRY_MS * 1000000;
	int64_t max = (int64_t)NETIF_NACK_GIVEUP_MS * 1000000 / NETIF_NACK_MIN_ROUNDS;
	int64_t v = 2 * r->rtt_ns > min ? 2 * r->rtt_ns : min;

	return v < max ? v : max;
}

/* Retry round of the NACK streams: give up exhausted heads, NACK the rest again. True while gaps remain. */
static bool netif_nrx_tick(struct netif *n, int64_t now)
{
	bool waiting = false;

	for (uint32_t i = 0; i < NETIF_NACK_STREAMS; i++) {
		struct netif_nack_rx *r = &n->nrx[i];

		if (!r->used || r->g.top == 0)
			continue;
		if (now - r->nacked_ns < netif_nrx_retry_ns(r)) {
			waiting = true;
			continue;
		}
		/*
		 * The head goes after NETIF_NACK_MAX_TRIES NACKs, or after
		 * NETIF_NACK_GIVEUP_MS once it had NETIF_NACK_MIN_ROUNDS of
		 * them: a starved daemon whose timer comes late still asks
		 * several times before it gives a sample up (at 20% loss each
		 * way a round fails with p = 0.36; 10 rounds, 4e-5). Waiting
		 * longer is safe: numbers cannot wrap onto ours, since a
		 * publisher has at most half our span of numbers kept (its
		 * history) and a number past the span gives the head up
		 * (gaptrack_offer's -ENOBUFS).
		 */
		for (;;) {
			if (r->g.passed != r->head_pos || !r->head_known) {
				r->head_pos = r->g.passed;
				r->head_known = true;
				r->head_ns = now;
			}
			if (r->g.top == 0 || (!gaptrack_head_exhausted(&r->g, NETIF_NACK_MAX_TRIES) &&
					      (now - r->head_ns < (int64_t)NETIF_NACK_GIVEUP_MS * 1000000 ||
					       !gaptrack_head_exhausted(&r->g, NETIF_NACK_MIN_ROUNDS))))
				break;
			netif_nrx_skip(n, r);
		}
		if (r->g.top > 0) {
			netif_nrx_nack(n, r, NETIF_NACK_MAX_TRIES);
			r->nacked_ns = now;
			waiting = true;
		}
	}
	return waiting;
}

/* Publisher side of the turn: heartbeats of idle NACK topics, waiting samples. True while work remains. */
static bool netif_nack_pub_tick(struct netif *n, int64_t now)
{
	bool waiting = false;

	n->nack_budget = NETIF_NACK_TURN_BUDGET;
	for (uint32_t ti = 0; ti < n->n_topics; ti++) {
		struct netif_topic *t = &n->topics[ti];

		if (!t->nack || t->hist_n == 0)
			continue;
		if (t->hist_n == t->hist_cap)
			netif_topic_drain(n, t);
		if (now - t->newest_ns >= (int64_t)NETIF_NACK_HB_SPAN_MS * 1000000)
			continue;
		waiting = true;
		/* 20, 40, 80, 160, then 320 ms after the last send: a long outage is bridged at little cost.
		 */
		if (now - t->last_tx_ns >=
		    ((int64_t)NETIF_NACK_HB_MS * 1000000 << (t->hb_sent < 4 ? t->hb_sent : 4))) {
			netif_nack_send_all(n, t, &t->hist[(t->hist_head + t->hist_n - 1) % t->hist_cap]);
			t->last_tx_ns = now;
			t->hb_sent++;
			n->c.nack_heartbeats++;
		}
	}
	return waiting;
}

struct netif_rx_ctx {
	struct netif *n;
	const struct net_addr *src;
	uint32_t link;
	bool mcast;
	struct net_peer *p;
	bool swapped;
	uint32_t samples;
	bool participant;  /* the frame held a DCPSParticipant sample */
	bool status_packs; /* and a STATUS with SNPS_STATUS_PACKS */
};

/*
 * The topic configured for a topic id, or NULL. Every id from the wire or the
 * discovery table goes through here: an extended TOPIC submessage (BF hh ll)
 * carries 16 bits, and the table has 16 entries.
 */
static int netif_topic_index(const struct netif *n, uint32_t id)
{
	if (id >= sizeof(n->topic_of_id) / sizeof(n->topic_of_id[0]))
		return -1;
	return n->topic_of_id[id];
}

static struct netif_topic *netif_topic_of(struct netif *n, uint32_t id)
{
	int ix = netif_topic_index(n, id);

	return ix >= 0 ? &n->topics[ix] : NULL;
}

static int netif_lookup(void *ctx, uint8_t domain, uint16_t topic, uint32_t *ret_size)
{
	struct netif *n = ctx;
	struct netif_topic *t;

	/* By id only, as real receivers (§4.4); the domain is checked per sample. */
	(void)domain;
	if (topic >= 16)
		return -1;
	t = netif_topic_of(n, topic);
	if (t == NULL)
		return n->disc != NULL ? snps_builtin_size(topic, ret_size) : -1;
	*ret_size = t->cfg.desc.sample_size;
	return 0;
}

static int netif_visit(void *ctx, const struct snps_event *ev)
{
	struct netif_rx_ctx *rx = ctx;
	struct netif *n = rx->n;
	struct netif_topic *t;
	const uint8_t *data;
	uint32_t ti;

	if (ev->kind == SNPS_EV_SECURE) {
		n->c.drops[NETIF_DROP_SECURE]++;
		return 0;
	}
	if (ev->kind == SNPS_EV_ACK) {
		t = netif_topic_of(n, ev->topic);
		if (t == NULL || !t->rel || ev->domain != t->cfg.desc.domain) {
			n->c.ack_bogus++;
			return 0;
		}
		n->c.acks_in++;
		netif_rel_ack(n, t, rx->src, ev->seqnr.value);
		return 0;
	}
	if (ev->kind == SNPS_EV_NACK) {
		t = netif_topic_of(n, ev->topic);
		if (t == NULL || !t->nack || ev->domain != t->cfg.desc.domain ||
		    ev->seqnr.bits != t->cfg.seq_bits) {
			n->c.nack_bogus++;
			return 0;
		}
		n->c.nacks_in++;
		netif_nack_answer(n, t, rx->src, rx->mcast, ev->seqnr.value);
		return 0;
	}
	/* An sddsd says it takes several samples per frame (anywhere in a Participant frame). */
	if (ev->kind == SNPS_EV_SKIPPED && snps_submsg_type(ev->hdr) == SNPS_BT_STATUS &&
	    (ev->nibble & SNPS_STATUS_PACKS)) {
		rx->status_packs = true;
		return 0;
	}
	if (ev->kind != SNPS_EV_DATA)
		return 0; /* context, SEQNR alone */
	if (netif_topic_index(n, ev->topic) < 0) {
		/* Only builtins get past the lookup here (discovery on; user ids 1..7 refused then). */
		const uint8_t *bd = ev->data;

		if (ev->domain != SNPS_BUILTIN_DOMAIN) {
			n->c.drops[NETIF_DROP_DOMAIN]++;
			return 0;
		}
		if (rx->swapped) {
			if (snps_sample_swap(snps_builtin_layout(ev->topic), n->builtin_buf, ev->data,
					     ev->len) < 0) {
				n->c.drops[NETIF_DROP_BAD_SAMPLE]++;
				return 0;
			}
			bd = n->builtin_buf;
		}
		if (ev->topic == SNPS_BUILTIN_PARTICIPANT)
			rx->participant = true;
		disc_receive(n->disc, n->ops->clock_ns(n->be), ev->topic, bd, ev->len,
			     ev->has_addr ? &ev->addr : NULL, &rx->src->ip, rx->src->port, rx->link);
		return 0;
	}
	ti = (uint32_t)netif_topic_index(n, ev->topic);
	t = &n->topics[ti];
	if (ev->domain != t->cfg.desc.domain) {
		n->c.drops[NETIF_DROP_DOMAIN]++;
		if (n->hooks.dropped != NULL)
			n->hooks.dropped(n->hooks.ctx, NETIF_DROP_DOMAIN, rx->src);
		return 0;
	}
	data = ev->data;
	if (rx->swapped) {
		if (snps_sample_swap(&t->layout, n->sample_buf, ev->data, ev->len) < 0) {
			n->c.drops[NETIF_DROP_BAD_SAMPLE]++;
			return 0;
		}
		data = n->sample_buf;
	}
	if (snps_sample_validate(&t->layout, data, ev->len, 0) < 0) {
		n->c.drops[NETIF_DROP_BAD_SAMPLE]++;
		return 0;
	}
	if (ev->has_seqnr && t->nack) {
		/* Both sides are configured alike (§11.1): another number size is no stream of ours. */
		if (ev->seqnr.bits != t->cfg.seq_bits) {
			n->c.drops[NETIF_DROP_SEQ_SIZE]++;
			return 0;
		}
		rx->samples++;
		if (rx->p != NULL)
			rx->p->topics_in |= (uint16_t)(1u << ev->topic);
		netif_nrx_sample(n, ti, rx->src, rx->mcast, &ev->seqnr, data);
		return 0;
	}
	if (ev->has_seqnr) {
		enum netif_seq_verdict v = netif_seq_check(n, rx->p, ev->topic, &ev->seqnr, t->cfg.reliable);

		/* A duplicate is acknowledged again: our first ACK may be what was lost. */
		if (t->cfg.reliable && v != NETIF_SEQ_GAP)
			netif_send_ack(n, rx->src, rx->mcast, ev->domain, ev->topic, &ev->seqnr);
		if (v != NETIF_SEQ_TAKE) {
			n->c.seq_dropped++;
			return 0;
		}
	}
	rx->samples++;
	SDDS_PROBE3(decoded, SDDS_PROBE_TOPIC(ev->domain, ev->topic), ev->has_seqnr ? ev->seqnr.value : 0,
		    rx->src->port);
	if (rx->p != NULL)
		rx->p->topics_in |= (uint16_t)(1u << ev->topic);
	netif_take(n, ti, data);
	return 0;
}

static bool netif_is_own(const struct netif *n, const struct in6_addr *ip)
{
	for (uint32_t i = 0; i < n->ops->n_links(n->be); i++) {
		if (memcmp(&n->ops->link(n->be, i)->addr, ip, sizeof(*ip)) == 0)
			return true;
	}
	return false;
}

/* Whether ip is a peer_pack address. */
static bool netif_packs(const struct netif *n, const struct in6_addr *ip)
{
	for (uint32_t i = 0; i < n->n_pack; i++) {
		if (memcmp(&n->pack[i], ip, sizeof(*ip)) == 0)
			return true;
	}
	return false;
}

static bool netif_swapped(const struct netif *n, const struct in6_addr *ip)
{
	for (uint32_t i = 0; i < n->n_swap; i++) {
		if (memcmp(&n->swap[i], ip, sizeof(*ip)) == 0)
			return true;
	}
	return false;
}

static void netif_drop(struct netif *n, struct net_peer *p, unsigned reason, const struct net_addr *src)
{
	n->c.drops[reason]++;
	n->c.malformed++;
	if (p != NULL)
		p->c.malformed++;
	if (n->hooks.dropped != NULL)
		n->hooks.dropped(n->hooks.ctx, reason, src);
}

static void netif_handle(struct netif *n, const struct net_dgram *d)
{
	struct snps_decoder_options o;
	struct snps_decode_error err;
	struct netif_rx_ctx rx = {.n = n, .src = &d->src, .link = d->link, .mcast = d->mcast};
	struct net_peer *p;
	int rc;

	n->c.bytes_in += d->wire_len;
	if (!IN6_IS_ADDR_LINKLOCAL(&d->src.ip) || d->src.port == 0) {
		netif_drop(n, NULL, NETIF_DROP_BAD_SOURCE, &d->src);
		return;
	}
	if (netif_is_own(n, &d->src.ip)) {
		netif_drop(n, NULL, NETIF_DROP_OWN, &d->src);
		return;
	}
	p = peer_find(&n->peers, &d->src.ip, d->src.ifindex);
	if (p == NULL) {
		struct net_addr a = d->src;

		a.port = n->node.port; /* where it would be answered (§9.3) */
		if (peer_add(&n->peers, &a, d->link, &p) < 0) {
			n->c.peer_table_full++;
			p = NULL;
		} else {
			p->swapped = netif_swapped(n, &d->src.ip);
			p->pack = netif_packs(n, &d->src.ip);
		}
	}
	if (p != NULL) {
		p->last_seen_ns = n->ops->clock_ns(n->be);
		p->last_port = d->src.port;
	}
	if (d->wire_len > n->opt.max_frame) {
		netif_drop(n, p, NETIF_DROP_OVERSIZED, &d->src);
		return;
	}
	if (d->mcast && d->src.port != n->node.port + SNPS_MCAST_PORT_OFFSET) {
		netif_drop(n, p, NETIF_DROP_BAD_PORT, &d->src);
		return;
	}
	rx.p = p;
	rx.swapped = p != NULL ? p->swapped : netif_swapped(n, &d->src.ip);
	snps_decoder_options_init(&o);
	o.lookup = netif_lookup;
	o.lookup_ctx = n;
	o.flags = rx.swapped ? SNPS_DECODE_SWAPPED : 0;
	rc = snps_decode(d->buf, d->len, &o, netif_visit, &rx, &err);
	if (rc == SNPS_EPROTO) {
		netif_drop(n, p, err.reason < SNPS_R_MAX_ ? err.reason : SNPS_R_NONE, &d->src);
		return;
	}
	if (rc < 0) {
		netif_drop(n, p, SNPS_R_NONE, &d->src);
		return;
	}
	n->c.frames_in++;
	n->c.samples_in += rx.samples;
	/*
	 * Each Participant frame says again whether its sender packs: a node
	 * that took over the address of an sddsd gets one sample per frame
	 * from its first announcement on.
	 */
	if (p != NULL && rx.participant)
		p->pack_heard = rx.status_packs;
	if (p != NULL) {
		p->c.frames_in++;
		p->c.samples_in += rx.samples;
	}
}

typedef int (*netif_rx_fn)(struct net_backend *b, struct net_dgram *d, unsigned n);

static void netif_receive_with(struct netif *n, netif_rx_fn rx)
{
	uint32_t done = 0;

	while (!n->closing && done < n->opt.rx_budget) {
		unsigned want =
		    n->opt.rx_budget - done < NETIF_RX_BATCH ? n->opt.rx_budget - done : NETIF_RX_BATCH;
		int r;

		for (unsigned i = 0; i < want; i++)
			n->rx[i].cap = n->opt.max_frame;
		r = rx(n->be, n->rx, want);
		if (r < 0) {
			n->c.drops[NETIF_DROP_RX_ERROR]++;
			break;
		}
		if (r == 0)
			break;
		SDDS_PROBE1(received, r);
		for (int i = 0; i < r; i++)
			netif_handle(n, &n->rx[i]);
		done += (uint32_t)r;
		/* A short batch: every queue was read dry just now; another call
		 * would cost a system call per socket to learn that again. */
		if ((unsigned)r < want)
			break;
	}
	/* Wake the local readers written to. */
	broker_flush(n->broker);
}

void netif_receive(struct netif *n)
{
	netif_receive_with(n, n->ops->rx);
}

static void netif_on_readable(struct net_backend *b, void *ctx)
{
	struct netif *n = ctx;

	netif_enter(n);
	(void)b;
	netif_receive(n);
	if (n->hooks.after != NULL)
		n->hooks.after(n->hooks.ctx);
}

void netif_poll(struct netif *n)
{
	if (n == NULL || n->closing)
		return;
	netif_enter(n);
	netif_receive_with(n, n->ops->poll_rx != NULL ? n->ops->poll_rx : n->ops->rx);
	if (n->hooks.after != NULL)
		n->hooks.after(n->hooks.ctx);
}

void netif_flush(struct netif *n)
{
	if (n->bl_n > 0) {
		netif_backlog_drain(n);
		broker_flush(n->broker);
	}
	if (n->tx_used > 0)
		netif_tx_send(n);
}

static void netif_on_prepare(uv_prepare_t *h)
{
	struct netif *n = h->data;

	netif_enter(n);
	netif_flush(n);
	if (n->hooks.after != NULL)
		n->hooks.after(n->hooks.ctx);
}

static void netif_on_retry(uv_timer_t *h)
{
	struct netif *n = h->data;

	netif_enter(n);
	/* A safety net: the blocker's kick normally wakes the loop first. */
	netif_flush(n);
	if (n->hooks.after != NULL)
		n->hooks.after(n->hooks.ctx);
}

void netif_reader_gone(struct netif *n, struct broker_reader *r)
{
	if (n != NULL && n->bl_blocker == r) {
		rring_prod_stop_wait_space(broker_reader_ring(r));
		n->bl_blocker = NULL;
	}
}

/* ---------------- life cycle ---------------------------------------------- */

static void netif_topic_fini(struct netif_topic *t)
{
	broker_reader_free(t->r);
	broker_writer_free(t->w);
	broker_topic_put(t->bt);
	free(t->ring_mem);
	free(t->hist);
	t->hist = NULL;
	t->r = NULL;
	t->w = NULL;
	t->bt = NULL;
	t->ring_mem = NULL;
}

/* The topic's local -> network reader on its ring t->ring_mem, formatted empty. */
static int netif_topic_reader_new(struct netif *n, struct netif_topic *t)
{
	struct broker_qos rq = {.reliability = BROKER_BEST_EFFORT, .history_depth = n->opt.reader_depth};
	uint32_t slot_size = rring_slot_size(t->cfg.desc.sample_size);
	struct rring_prod prod;
	int rc;

	memset(t->ring_mem, 0, rring_size(n->opt.reader_depth, t->cfg.desc.sample_size));
	rring_format(t->ring_mem, n->opt.reader_depth, slot_size);
	rc = rring_prod_init(&prod, t->ring_mem, n->opt.reader_depth, slot_size);
	if (rc == 0)
		rc = rring_cons_init(&t->cons, t->ring_mem, n->opt.reader_depth, slot_size);
	if (rc == 0)
		rc = broker_reader_new(n->broker, t->bt, &rq, NETIF_OWNER, &prod, netif_reader_notify, t,
				       &t->r);
	return rc;
}

static int netif_topic_init(struct netif *n, struct netif_topic *t, const struct nodecfg_topic *cfg,
			    char *why, size_t why_len)
{
	struct broker_qos wq = {.reliability = BROKER_RELIABLE, .history_depth = 1, .max_blocking_ms = 0};
	uint32_t size = cfg->desc.sample_size, overhead;
	size_t bytes;
	int rc;

	t->cfg = *cfg;
	t->n = n;
	t->nack = cfg->nack && cfg->desc.sample_size <= NETIF_REL_MAX_SAMPLE;
	t->rel = cfg->reliable && !cfg->nack && cfg->desc.sample_size <= NETIF_REL_MAX_SAMPLE;
	/*
	 * Header, DOMAIN, TOPIC, DATA header: the frame's smallest overhead,
	 * and a reliable topic's SEQNR (s3, or 8F/9F/AF and 1/2/4 bytes).
	 * Checked before anything is allocated: the caller finishes only the
	 * topics that were made.
	 */
	overhead = 5;
	if (cfg->nack)
		overhead += cfg->seq_bits == 4 ? 1 : cfg->seq_bits == 8 ? 2 : cfg->seq_bits == 16 ? 3 : 5;
	else if (cfg->reliable)
		overhead += 1;
	if (size + overhead >= n->opt.max_frame) {
		snprintf(why, why_len,
			 "%s: topic '%s': a %u-byte sample and its %u bytes of framing do not fit in a frame "
			 "below max_frame %u",
			 cfg->loc, cfg->desc.name, size, overhead, n->opt.max_frame);
		return -EMSGSIZE;
	}
	if (t->nack) {
		/*
		 * Half a receiver's reorder span: a receiver whose oldest gap is
		 * given up late still holds everything we can send meanwhile,
		 * and never mistakes a new number for an old one.
		 */
		t->hist_cap = (gaptrack_span(cfg->seq_bits) + 1) / 2;
		if (t->hist_cap > NETIF_NACK_HIST)
			t->hist_cap = NETIF_NACK_HIST;
		t->hist = calloc(t->hist_cap, sizeof(*t->hist));
		if (t->hist == NULL) {
			snprintf(why, why_len, "%s: topic '%s': no memory for its history", cfg->loc,
				 cfg->desc.name);
			return -ENOMEM;
		}
	}
	for (uint32_t i = 0; i < cfg->desc.n_fields; i++) {
		t->fields[i].type = cfg->desc.fields[i].type;
		t->fields[i].size = cfg->desc.fields[i].size;
	}
	t->layout.fields = t->fields;
	t->layout.n_fields = cfg->desc.n_fields;
	rc = broker_topic_get(n->broker, &cfg->desc, &t->bt);
	if (rc < 0) {
		snprintf(why, why_len, "%s: topic '%s': the broker refused it: %s", cfg->loc, cfg->desc.name,
			 strerror(-rc));
		return rc;
	}
	rc = broker_writer_new(n->broker, t->bt, &wq, NETIF_OWNER, &t->w);
	if (rc < 0)
		goto fail;
	bytes = rring_size(n->opt.reader_depth, size);
	if (rring_slot_size(size) == 0 || bytes == 0) {
		rc = -EINVAL;
		goto fail;
	}
	t->ring_mem = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	if (t->ring_mem == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = netif_topic_reader_new(n, t);
	if (rc < 0)
		goto fail;
	return 0;
fail:
	snprintf(why, why_len, "%s: topic '%s': cannot create its endpoints: %s", cfg->loc, cfg->desc.name,
		 strerror(-rc));
	netif_topic_fini(t);
	return rc;
}

static int netif_link_of(struct netif *n, const char *iface, uint32_t *ret)
{
	for (uint32_t i = 0; i < n->ops->n_links(n->be); i++) {
		if (strcmp(n->ops->link(n->be, i)->name, iface) == 0) {
			*ret = i;
			return 0;
		}
	}
	return -ENODEV;
}

static int netif_add_dests(struct netif *n, char *why, size_t why_len)
{
	for (uint32_t i = 0; i < n->node.n_dests; i++) {
		const struct nodecfg_dest *d = &n->node.dests[i];
		struct netif_topic *t = &n->topics[d->topic];
		struct net_addr a = {.ip = d->ip, .port = d->port != 0 ? d->port : n->node.port};
		struct net_peer *p;
		uint32_t link = 0, pi;
		int rc;

		if (d->iface[0] != '\0') {
			if (netif_link_of(n, d->iface, &link) < 0) {
				snprintf(why, why_len,
					 "%s: subscriber on interface '%s', which is not configured", d->loc,
					 d->iface);
				return -ENODEV;
			}
		} else if (n->ops->n_links(n->be) != 1) {
			snprintf(why, why_len,
				 "%s: subscriber address without %%interface and %u interfaces configured: "
				 "name the link",
				 d->loc, n->ops->n_links(n->be));
			return -EINVAL;
		}
		a.ifindex = n->ops->link(n->be, link)->ifindex;
		rc = peer_add(&n->peers, &a, link, &p);
		if (rc < 0) {
			snprintf(why, why_len, "%s: more static subscribers than max_peers", d->loc);
			return rc;
		}
		p->is_static = true;
		p->addr.port = a.port;
		p->swapped = netif_swapped(n, &d->ip);
		p->pack = netif_packs(n, &d->ip);
		p->topics_out |= (uint16_t)(1u << t->cfg.desc.topic_id);
		pi = (uint32_t)(p - n->peers.v);
		for (uint32_t k = 0; k < t->n_dests; k++) {
			if (t->dests[k] == pi)
				goto next; /* listed twice: one copy is enough */
		}
		t->dests[t->n_dests++] = pi;
	next:;
	}
	return 0;
}

/* Add the learnt destinations of the discovery table to their topics. */
static void netif_add_disc_dests(struct netif *n)
{
	const struct disc_sub *subs;
	uint32_t n_subs;

	subs = disc_subs(n->disc, &n_subs);
	for (uint32_t i = 0; i < n_subs; i++) {
		const struct disc_sub *sd = &subs[i];
		struct net_addr a = {.ip = sd->loc.ip, .port = sd->loc.port};
		struct netif_topic *t;
		struct net_peer *p;
		uint32_t pi;

		t = netif_topic_of(n, sd->topic);
		if (t == NULL || sd->loc.link >= n->ops->n_links(n->be))
			continue;
		a.ifindex = n->ops->link(n->be, sd->loc.link)->ifindex;
		if (peer_add(&n->peers, &a, sd->loc.link, &p) < 0) {
			n->c.dests_full++;
			continue;
		}
		if (!p->is_static) {
			/* §9.2: real nodes answer discovered locators from their multicast socket. */
			p->addr.port = a.port;
			p->tx_mcast = true;
			p->group = sd->loc.group;
			p->swapped = netif_swapped(n, &a.ip);
			p->pack = netif_packs(n, &a.ip);
		}
		pi = (uint32_t)(p - n->peers.v);
		for (uint32_t k = 0; k < t->n_dests; k++) {
			if (t->dests[k] == pi)
				goto next; /* several subscribers behind one group: one copy */
		}
		if (t->n_dests == NODECFG_MAX_DESTS) {
			n->c.dests_full++;
			continue;
		}
		t->dests[t->n_dests++] = pi;
		p->topics_out |= (uint16_t)(1u << sd->topic);
	next:;
	}
}

/* Rebuild every topic's destinations: static ones, then learnt ones. */
static void netif_dests_rebuild(struct netif *n)
{
	char why[8];

	for (uint32_t i = 0; i < n->n_topics; i++) {
		struct netif_topic *t = &n->topics[i];

		/* Destination indices change: what is still unacknowledged is given up (not resent). */
		t->n_dests = 0;
		t->win_n = 0;
	}
	for (uint32_t i = 0; i < n->peers.n; i++)
		n->peers.v[i].topics_out = 0;
	/* Static peers were added first at start and are never removed: this cannot fail now. */
	(void)netif_add_dests(n, why, sizeof(why));
	if (n->disc != NULL)
		netif_add_disc_dests(n);
}

/* discovery -> wire: one finished frame into a tx slot, sent at the end of the turn. */
static void netif_disc_send(void *ctx, const uint8_t *buf, uint32_t len, const struct disc_locator *dst)
{
	struct netif *n = ctx;
	uint32_t i;

	if (n->be == NULL || dst->link >= n->ops->n_links(n->be) || len > n->opt.max_frame)
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
	n->tx[i].dst.ifindex = n->ops->link(n->be, dst->link)->ifindex;
	n->tx[i].from_mcast = true;
}

static void netif_disc_changed(void *ctx)
{
	struct netif *n = ctx;

	/* Rebuilt now: peers are only added here, so open frames stay valid. */
	netif_dests_rebuild(n);
}

void netif_tick(struct netif *n)
{
	int64_t now;
	bool removed = false;

	if (n->closing)
		return;
	netif_rel_resend(n);
	if (n->disc == NULL)
		return;
	now = n->ops->clock_ns(n->be);
	disc_tick(n->disc, now);
	if (n->opt.disc.expire_ms == 0)
		return;
	/* Removal moves peers: send what is pending first, so no frame is open. */
	netif_tx_send(n);
	for (uint32_t i = 0; i < n->peers.n;) {
		struct net_peer *p = &n->peers.v[i];
		bool silent =
		    p->last_seen_ns != 0 && now - p->last_seen_ns > (int64_t)n->opt.disc.expire_ms * 1000000;

		if (!p->is_static && p->topics_out == 0 && (p->group || silent)) {
			if (!p->group)
				n->c.peers_expired++;
			peer_remove(&n->peers, i);
			removed = true;
		} else {
			i++;
		}
	}
	if (removed)
		netif_dests_rebuild(n);
}

static void netif_on_disc_timer(uv_timer_t *h)
{
	struct netif *n = h->data;

	netif_enter(n);
	netif_tick(n);
	if (n->hooks.after != NULL)
		n->hooks.after(n->hooks.ctx);
}

static int netif_disc_init(struct netif *n, char *why, size_t why_len)
{
	struct disc_callbacks cb = {.send = netif_disc_send, .changed = netif_disc_changed, .ctx = n};
	struct disc_options o;
	int rc;

	disc_options_init(&o);
	o.node_id = n->opt.disc.node_id;
	if (o.node_id == 0)
		o.node_id = disc_node_id_from_addr(&n->ops->link(n->be, 0)->addr);
	o.port = n->node.port;
	o.n_links = n->ops->n_links(n->be);
	o.participant_ms = n->opt.disc.participant_ms;
	o.publication_ms = n->opt.disc.publication_ms;
	o.expire_ms = n->opt.disc.expire_ms;
	o.unicast = n->opt.disc.unicast;
	o.packs = n->opt.disc.announce_pack;
	o.max_subs = n->opt.disc.max_subs;
	o.max_participants = n->opt.max_peers;
	o.max_frame = n->opt.max_frame;
	for (uint32_t i = 0; i < n->n_topics; i++) {
		const struct nodecfg_topic *t = &n->topics[i].cfg;
		/* A topic without a role in the node config is announced both ways. */
		bool none = !t->publisher && !t->subscriber;

		if (snps_builtin_is(t->desc.topic_id)) {
			snprintf(why, why_len,
				 "%s: topic '%s': id %u is a builtin topic id (1..7), which discovery needs "
				 "(§4.4)",
				 t->loc, t->desc.name, t->desc.topic_id);
			return -EINVAL;
		}
		if (t->publisher || none)
			o.pub_topics[o.n_pub++] = t->desc.topic_id;
		if (t->subscriber || none)
			o.sub_topics[o.n_sub++] = t->desc.topic_id;
	}
	rc = disc_new(&o, &cb, &n->disc);
	if (rc < 0)
		snprintf(why, why_len, "discovery: %s", strerror(-rc));
	return rc;
}

static void netif_backend_closed(void *ctx)
{
	(void)ctx;
}

/* The handles' start (netif_new, netif_reset): the prepare handle, discovery's start-up announcements. */
static void netif_start(struct netif *n)
{
	uv_prepare_start(&n->prepare, netif_on_prepare);
	if (n->disc != NULL) {
		/* §10.2: a Participant and every Publication at start; they leave at the end of the turn. */
		disc_start(n->disc, n->ops->clock_ns(n->be));
		uv_timer_start(&n->disc_timer, netif_on_disc_timer, NETIF_DISC_TICK_MS, NETIF_DISC_TICK_MS);
	}
	if (n->opt.threaded) {
		for (uint32_t i = 0; i < n->n_topics; i++) {
			if (n->topics[i].rel || n->topics[i].nack) {
				uv_timer_start(&n->rel_timer, netif_on_rel_timer, NETIF_REL_RTO_MS,
					       NETIF_REL_RTO_MS);
				break;
			}
		}
	}
}

/* The frame pool and the receive buffers as netif_new leaves them: empty, zeroed, no frame open. */
static void netif_buffers_init(struct netif *n)
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
	}
	n->tx_used = 0;
	for (uint32_t i = 0; i < NETIF_RX_BATCH; i++) {
		memset(&n->rx[i], 0, sizeof(n->rx[i]));
		n->rx[i].buf = n->rx_mem + (size_t)i * n->opt.max_frame;
		n->rx[i].cap = n->opt.max_frame;
	}
}

int netif_new(uv_loop_t *loop, struct broker *b, const struct netif_options *o, const struct netif_hooks *h,
	      struct netif **ret, char *why, size_t why_len)
{
	struct net_backend_config bc;
	char dummy[8];
	struct netif *n;
	int rc;

	if (why == NULL) {
		why = dummy;
		why_len = sizeof(dummy);
	}
	why[0] = '\0';
	if (o->backend == NULL || o->node == NULL || o->n_links == 0 || o->n_links > NET_MAX_LINKS ||
	    o->max_frame < 8 || o->max_frame > SNPS_DATAGRAM_MAX || o->max_peers == 0 ||
	    o->backlog_cap == 0 || o->reader_depth < 2 || (o->reader_depth & (o->reader_depth - 1)) != 0 ||
	    o->rx_budget == 0 || o->n_swap_peers > 64 || o->n_pack_peers > 64) {
		snprintf(why, why_len, "invalid network options");
		return -EINVAL;
	}
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return -ENOMEM;
	n->loop = loop;
	n->broker = b;
	n->opt = *o;
	n->node = *o->node;
	n->opt.node = &n->node;
	if (h != NULL)
		n->hooks = *h;
	n->ops = o->backend;
	memset(n->topic_of_id, -1, sizeof(n->topic_of_id));
	for (uint32_t i = 0; i < o->n_swap_peers; i++)
		n->swap[i] = o->swap_peers[i];
	n->n_swap = o->n_swap_peers;
	for (uint32_t i = 0; i < o->n_pack_peers; i++)
		n->pack[i] = o->pack_peers[i];
	n->n_pack = o->n_pack_peers;
	n->max_sample = 1;
	for (uint32_t i = 0; i < n->node.n_topics; i++) {
		if (n->node.topics[i].desc.sample_size > n->max_sample)
			n->max_sample = n->node.topics[i].desc.sample_size;
	}
	rc = peer_table_init(&n->peers, o->max_peers);
	if (rc < 0)
		goto fail_free;
	n->tx_mem = calloc(NETIF_TX_SLOTS, o->max_frame);
	n->rx_mem = calloc(NETIF_RX_BATCH, o->max_frame);
	n->sample_buf = calloc(1, n->max_sample);
	n->bl = calloc(o->backlog_cap, sizeof(*n->bl));
	n->bl_data = calloc(o->backlog_cap, n->max_sample);
	if (n->tx_mem == NULL || n->rx_mem == NULL || n->sample_buf == NULL || n->bl == NULL ||
	    n->bl_data == NULL) {
		rc = -ENOMEM;
		goto fail_free;
	}
	netif_buffers_init(n);

	memset(&bc, 0, sizeof(bc));
	for (uint32_t i = 0; i < o->n_links; i++)
		bc.links[i] = o->links[i];
	bc.n_links = o->n_links;
	bc.prefer = n->node.ip;
	bc.has_prefer = true;
	bc.port = n->node.port;
	bc.max_dgram = o->max_frame;
	bc.rcvbuf = o->rcvbuf;
	bc.sndbuf = o->sndbuf;
	bc.gso = o->gso;
	rc = n->ops->open(loop, &bc, netif_on_readable, n, &n->be);
	if (rc < 0) {
		snprintf(why, why_len, "cannot open the %s backend on %s%s (port %u): %s", n->ops->name,
			 o->links[0], o->n_links > 1 ? ",..." : "", n->node.port, strerror(-rc));
		goto fail_free;
	}
	/* §1: every group, on every link; the data path uses ff02::10 only for now. */
	for (uint32_t l = 0; l < n->ops->n_links(n->be); l++) {
		static const uint8_t groups[] = {SNPS_GROUP_DATA,     SNPS_GROUP_PARTICIPANT,
						 SNPS_GROUP_ENDPOINT, SNPS_GROUP_TOPIC,
						 SNPS_GROUP_SECURITY, SNPS_GROUP_LOCATION};

		for (size_t g = 0; g < sizeof(groups); g++) {
			struct in6_addr ga = {.s6_addr = {0xff, 0x02}};

			ga.s6_addr[15] = groups[g];
			rc = n->ops->join(n->be, l, &ga);
			if (rc < 0) {
				snprintf(why, why_len, "cannot join ff02::%x on %s: %s", groups[g],
					 n->ops->link(n->be, l)->name, strerror(-rc));
				goto fail_backend;
			}
		}
	}
	for (uint32_t i = 0; i < n->node.n_topics; i++) {
		rc = netif_topic_init(n, &n->topics[i], &n->node.topics[i], why, why_len);
		if (rc < 0)
			goto fail_topics;
		n->n_topics++;
		n->topic_of_id[n->node.topics[i].desc.topic_id] = (int8_t)i;
	}
	for (uint32_t i = 0; i < n->n_topics; i++) {
		if (!n->topics[i].nack)
			continue;
		for (uint32_t k = 0; k < NETIF_NACK_STREAMS; k++) {
			n->nrx[k].data = calloc(GAPTRACK_MAX_CAP, n->max_sample);
			if (n->nrx[k].data == NULL) {
				rc = -ENOMEM;
				snprintf(why, why_len, "no memory for the NACK streams");
				goto fail_topics;
			}
		}
		break;
	}
	n->nack_budget = NETIF_NACK_TURN_BUDGET;
	rc = netif_add_dests(n, why, why_len);
	if (rc < 0)
		goto fail_topics;
	if (o->disc.on) {
		rc = netif_disc_init(n, why, why_len);
		if (rc < 0)
			goto fail_topics;
	}
	uv_prepare_init(loop, &n->prepare);
	uv_timer_init(loop, &n->retry);
	uv_timer_init(loop, &n->disc_timer);
	uv_timer_init(loop, &n->rel_timer);
	n->rel_timer.data = n;
	n->prepare.data = n;
	n->retry.data = n;
	n->disc_timer.data = n;
	n->handles_open = true;
	netif_start(n);
	*ret = n;
	return 0;

fail_topics:
	for (uint32_t i = 0; i < n->n_topics; i++)
		netif_topic_fini(&n->topics[i]);
	for (uint32_t k = 0; k < NETIF_NACK_STREAMS; k++)
		free(n->nrx[k].data);
fail_backend:
	n->ops->close(n->be, netif_backend_closed, NULL);
	n->be = NULL;
fail_free:
	peer_table_fini(&n->peers);
	free(n->tx_mem);
	free(n->rx_mem);
	free(n->sample_buf);
	free(n->bl);
	free(n->bl_data);
	free(n);
	return rc;
}

void netif_close(struct netif *n)
{
	if (n == NULL || n->closing)
		return;
	netif_flush(n);
	n->closing = true;
	if (n->bl_blocker != NULL) {
		rring_prod_stop_wait_space(broker_reader_ring(n->bl_blocker));
		n->bl_blocker = NULL;
	}
	if (n->handles_open) {
		uv_close((uv_handle_t *)&n->prepare, NULL);
		uv_close((uv_handle_t *)&n->retry, NULL);
		uv_close((uv_handle_t *)&n->disc_timer, NULL);
		uv_close((uv_handle_t *)&n->rel_timer, NULL);
		n->handles_open = false;
	}
	n->ops->close(n->be, netif_backend_closed, NULL);
	n->be = NULL;
}

void netif_free(struct netif *n)
{
	if (n == NULL)
		return;
	netif_close(n);
	for (uint32_t i = 0; i < n->n_topics; i++)
		netif_topic_fini(&n->topics[i]);
	for (uint32_t k = 0; k < NETIF_NACK_STREAMS; k++)
		free(n->nrx[k].data);
	disc_free(n->disc);
	peer_table_fini(&n->peers);
	free(n->tx_mem);
	free(n->rx_mem);
	free(n->sample_buf);
	free(n->bl);
	free(n->bl_data);
	free(n);
}

/*
 * Zero a topic's state but what netif_topic_init computed or allocated, and
 * give it a new reader on its emptied ring: a struct member added later
 * starts at zero here as it does in the calloc'ed layer.
 */
static int netif_topic_reset(struct netif *n, struct netif_topic *t)
{
	struct netif_topic keep = *t;

	broker_reader_free(t->r);
	memset(t, 0, sizeof(*t));
	t->cfg = keep.cfg;
	memcpy(t->fields, keep.fields, sizeof(t->fields));
	t->layout = keep.layout;
	t->layout.fields = t->fields;
	t->bt = keep.bt;
	t->w = keep.w;
	t->ring_mem = keep.ring_mem;
	t->n = n;
	t->rel = keep.rel;
	t->nack = keep.nack;
	t->hist = keep.hist;
	t->hist_cap = keep.hist_cap;
	if (t->hist != NULL)
		memset(t->hist, 0, (size_t)t->hist_cap * sizeof(*t->hist));
	return netif_topic_reader_new(n, t);
}

int netif_reset(struct netif *n, char *why, size_t why_len)
{
	char dummy[8];
	int rc;

	if (why == NULL) {
		why = dummy;
		why_len = sizeof(dummy);
	}
	why[0] = '\0';
	if (n->closing || !n->handles_open) {
		snprintf(why, why_len, "the network layer is closing");
		return -EINVAL;
	}
	uv_timer_stop(&n->retry);
	uv_timer_stop(&n->disc_timer);
	uv_timer_stop(&n->rel_timer);
	if (n->bl_blocker != NULL) {
		rring_prod_stop_wait_space(broker_reader_ring(n->bl_blocker));
		n->bl_blocker = NULL;
	}
	disc_free(n->disc);
	n->disc = NULL;
	memset(n->peers.v, 0, (size_t)n->peers.cap * sizeof(*n->peers.v));
	n->peers.n = 0;
	netif_buffers_init(n);
	memset(n->sample_buf, 0, n->max_sample);
	memset(n->builtin_buf, 0, sizeof(n->builtin_buf));
	memset(n->bl, 0, (size_t)n->opt.backlog_cap * sizeof(*n->bl));
	memset(n->bl_data, 0, (size_t)n->opt.backlog_cap * n->max_sample);
	n->bl_head = n->bl_n = 0;
	for (uint32_t k = 0; k < NETIF_NACK_STREAMS; k++) {
		uint8_t *data = n->nrx[k].data;

		if (data != NULL)
			memset(data, 0, (size_t)GAPTRACK_MAX_CAP * n->max_sample);
		memset(&n->nrx[k], 0, sizeof(n->nrx[k]));
		n->nrx[k].data = data;
	}
	n->nack_budget = NETIF_NACK_TURN_BUDGET;
	memset(&n->c, 0, sizeof(n->c));
	for (uint32_t i = 0; i < n->n_topics; i++) {
		rc = netif_topic_reset(n, &n->topics[i]);
		if (rc < 0) {
			snprintf(why, why_len, "%s: topic '%s': cannot create its reader again: %s",
				 n->topics[i].cfg.loc, n->topics[i].cfg.desc.name, strerror(-rc));
			goto fail;
		}
	}
	/* Static peers first, at the indices netif_new gave them. */
	rc = netif_add_dests(n, why, why_len);
	if (rc < 0)
		goto fail;
	if (n->opt.disc.on) {
		rc = netif_disc_init(n, why, why_len);
		if (rc < 0)
			goto fail;
	}
	netif_start(n);
	return 0;
fail:
	/* Half reset (no memory): only netif_close and netif_free may follow. */
	return rc;
}

const struct netif_counters *netif_counters(const struct netif *n)
{
	return &n->c;
}

const struct peer_table *netif_peers(const struct netif *n)
{
	return &n->peers;
}

const struct nodecfg *netif_node(const struct netif *n)
{
	return &n->node;
}

struct net_backend *netif_backend(const struct netif *n)
{
	return n->be;
}

const char *netif_backend_name(const struct netif *n)
{
	return n->ops->name;
}

const struct net_backend_ops *netif_backend_ops(const struct netif *n)
{
	return n->ops;
}

uint32_t netif_max_frame(const struct netif *n)
{
	return n->opt.max_frame;
}

const struct disc *netif_discovery(const struct netif *n)
{
	return n->disc;
}

uint32_t netif_backlog(const struct netif *n)
{
	return n->bl_n;
}
