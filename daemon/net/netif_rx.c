/* SPDX-License-Identifier: MIT */
/*
 * netif_rx.c - receive dispatch: datagram checks, the codec's lookup and visit, drop accounting.
 *
 * See netif_impl.h (OVERVIEW) for what this file owns and the invariants.
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

struct netif_topic *netif_topic_of(struct netif *n, uint32_t id)
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
		netif_nack_answer(n, t, rx->src, rx->link, rx->mcast, ev->seqnr.value);
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
		disc_receive(n->disc, netif_now(n), ev->topic, bd, ev->len, ev->has_addr ? &ev->addr : NULL,
			     &rx->src->ip, rx->src->port, rx->link);
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
		netif_nrx_sample(n, ti, rx->src, rx->link, rx->mcast, &ev->seqnr, data);
		return 0;
	}
	if (ev->has_seqnr) {
		enum netif_seq_verdict v = netif_seq_check(n, rx->p, ev->topic, &ev->seqnr, t->cfg.reliable);

		/* A duplicate is acknowledged again: our first ACK may be what was lost. */
		if (t->cfg.reliable && v != NETIF_SEQ_GAP)
			netif_send_ack(n, rx->src, rx->link, rx->mcast, ev->domain, ev->topic, &ev->seqnr);
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
	netif_take(n, ti, data, rx->link);
	return 0;
}

static bool netif_is_own(const struct netif *n, const struct in6_addr *ip)
{
	for (uint32_t i = 0; i < n->n_links; i++) {
		if (memcmp(&netif_link(n, i)->addr, ip, sizeof(*ip)) == 0)
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
		p->last_seen_ns = netif_now(n);
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

/*
 * Up to rx_budget datagrams from backend k (poll: through its poll_rx when
 * it has one), each handled with its ingress link made a link id. The
 * caller flushes the broker.
 */
static void netif_receive_be(struct netif *n, uint32_t k, bool poll)
{
	struct net_backend *be = n->be[k];
	netif_rx_fn rx;
	uint32_t done = 0;

	if (be == NULL)
		return;
	rx = poll && n->ops[k]->poll_rx != NULL ? n->ops[k]->poll_rx : n->ops[k]->rx;
	while (!n->closing && done < n->opt.rx_budget) {
		unsigned want =
		    n->opt.rx_budget - done < NETIF_RX_BATCH ? n->opt.rx_budget - done : NETIF_RX_BATCH;
		int r;

		for (unsigned i = 0; i < want; i++)
			n->rx[i].cap = n->opt.max_frame;
		r = rx(be, n->rx, want);
		if (r < 0) {
			n->c.drops[NETIF_DROP_RX_ERROR]++;
			break;
		}
		if (r == 0)
			break;
		SDDS_PROBE1(received, r);
		for (int i = 0; i < r; i++) {
			n->rx[i].link += be->link_base;
			netif_handle(n, &n->rx[i]);
		}
		done += (uint32_t)r;
		/* A short batch: every queue was read dry just now; another call
		 * would cost a system call per socket to learn that again. */
		if ((unsigned)r < want)
			break;
	}
}

void netif_receive_from(struct netif *n, uint32_t k)
{
	netif_receive_be(n, k, false);
	/* Wake the local readers written to. */
	broker_flush(n->broker);
}

void netif_receive(struct netif *n)
{
	for (uint32_t k = 0; k < n->n_be; k++)
		netif_receive_be(n, k, false);
	/* Wake the local readers written to. */
	broker_flush(n->broker);
}

void netif_poll(struct netif *n)
{
	if (n == NULL || n->closing)
		return;
	netif_enter(n);
	for (uint32_t k = 0; k < n->n_be; k++)
		netif_receive_be(n, k, true);
	broker_flush(n->broker);
	if (n->hooks.after != NULL)
		n->hooks.after(n->hooks.ctx);
}
