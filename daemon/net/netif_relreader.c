/* SPDX-License-Identifier: MIT */
/*
 * netif_relreader.c - the reliability reader side: sequence checks and ACKs sent for reliable topics, the
 * NACK receive streams.
 *
 * See netif_impl.h (OVERVIEW) for what this file owns and the invariants.
 */
#include "netif_impl.h"

enum netif_seq_verdict netif_seq_check(struct netif *n, struct net_peer *p, uint16_t topic,
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
void netif_send_ack(struct netif *n, const struct net_addr *src, uint32_t link, bool mcast, uint8_t domain,
		    uint16_t topic, const struct snps_seqnr *s)
{
	if (!netif_be_open(n))
		return;
	if (snps_frame_add_ack(netif_tx_direct(n, src, link, mcast), domain, topic, s) < 0) {
		n->tx_used--;
		return;
	}
	n->c.acks_out++;
}

static uint8_t *netif_nrx_slot(const struct netif *n, const struct netif_nack_rx *r, uint32_t slot)
{
	return r->data + (size_t)slot * n->max_sample;
}

/* Deliver the held samples of r that are next in order. */
static void netif_nrx_drain(struct netif *n, struct netif_nack_rx *r)
{
	uint32_t slot;

	while (gaptrack_pop(&r->g, &slot))
		netif_take(n, r->topic, netif_nrx_slot(n, r, slot), r->link);
}

/* Give up the next number of r (missing: counted; held: delivered), then what follows it. */
static void netif_nrx_skip(struct netif *n, struct netif_nack_rx *r)
{
	uint32_t slot;

	if (gaptrack_skip(&r->g, &slot) == 1)
		netif_take(n, r->topic, netif_nrx_slot(n, r, slot), r->link);
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

	if (!netif_be_open(n))
		return;
	while ((k = gaptrack_nack_list(&r->g, max_tries, seqs, NETIF_NACK_PER_FRAME)) > 0) {
		struct snps_frame *f = netif_tx_direct(n, &r->src, r->link, r->mcast);

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
void netif_nrx_sample(struct netif *n, uint32_t ti, const struct net_addr *src, uint32_t link, bool mcast,
		      const struct snps_seqnr *sq, const uint8_t *data)
{
	struct netif_nack_rx *r = netif_nrx_get(n, ti, src, sq->bits);
	int64_t now = netif_now(n);
	uint32_t slot;
	int rc;

	if (r == NULL) {
		netif_take(n, ti, data, link);
		return;
	}
	r->src.port = src->port; /* replies go where its last frame came from (§15.5) */
	r->link = link;
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
bool netif_nrx_tick(struct netif *n, int64_t now)
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
