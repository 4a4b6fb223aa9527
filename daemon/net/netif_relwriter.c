/* SPDX-License-Identifier: MIT */
/*
 * netif_relwriter.c - the reliability writer side: the ACK window of reliable topics and the NACK publisher
 * (history, answers, heartbeats).
 *
 * See netif_impl.h (OVERVIEW) for what this file owns and the invariants.
 */
#include "netif_impl.h"

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
void netif_rel_push(struct netif *n, struct netif_topic *t, const uint8_t *sample)
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
	t->sent_ns = netif_now(n);
	netif_rel_timer_on(n);
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
bool netif_nack_room(struct netif_topic *t, int64_t now)
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
void netif_nack_push(struct netif *n, struct netif_topic *t, const uint8_t *sample, int64_t now)
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
void netif_nack_answer(struct netif *n, struct netif_topic *t, const struct net_addr *src, uint32_t link,
		       bool mcast, uint32_t seq)
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
	if (e->resends >= NETIF_NACK_MAX_RESENDS || n->nack_budget == 0 || !netif_be_open(n)) {
		n->c.nack_limited++;
		return;
	}
	f = netif_tx_direct(n, src, link, mcast);
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
void netif_rel_ack(struct netif *n, struct netif_topic *t, const struct net_addr *src, uint32_t seq)
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

/* Resend every window whose last send is older than the timeout. */
void netif_rel_resend(struct netif *n)
{
	int64_t now = netif_now(n);
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
	if (!waiting)
		netif_rel_timer_off(n);
}
