/* SPDX-License-Identifier: MIT */
/*
 * netif_bridge.c - the bridge between broker and wire: topics, destinations, reader notify, backlog toward
 * full local readers.
 *
 * See netif_impl.h (OVERVIEW) for what this file owns and the invariants.
 */
#include "netif_impl.h"

#include "control.pb-c.h"

/* Drain the network reader's ring of t into frames for its destinations
 * (a reliable topic only while its window has room: the rest waits in the ring). */
void netif_topic_drain(struct netif *n, struct netif_topic *t)
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
	netif_retry_timer(n, n->bl_n > 0);
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

/*
 * forward: a sample that came in on link `link` also goes, best effort and
 * unnumbered, to t's destinations on the other links.
 */
static void netif_forward(struct netif *n, struct netif_topic *t, const uint8_t *data, uint32_t link)
{
	bool sent = false;

	for (uint32_t i = 0; i < t->n_dests; i++) {
		const struct net_peer *p = &n->peers.v[t->dests[i]];

		if (p->link == link)
			continue;
		if (netif_tx_append(n, t->dests[i], t, data, p->swapped, NULL) == 0)
			sent = true;
	}
	if (sent)
		n->c.forwarded++;
}

/*
 * A network sample of topic ti from link `link` for the local readers
 * (behind the backlog, if any) and, with forward, for the other links.
 */
void netif_take(struct netif *n, uint32_t ti, const uint8_t *data, uint32_t link)
{
	if (n->opt.forward && !n->closing)
		netif_forward(n, &n->topics[ti], data, link);
	if (n->bl_n > 0 || netif_deliver(n, &n->topics[ti], data, false) == -EAGAIN)
		netif_backlog_push(n, ti, data);
}

/* Whether ip is a peer_pack address. */
bool netif_packs(const struct netif *n, const struct in6_addr *ip)
{
	for (uint32_t i = 0; i < n->n_pack; i++) {
		if (memcmp(&n->pack[i], ip, sizeof(*ip)) == 0)
			return true;
	}
	return false;
}

bool netif_swapped(const struct netif *n, const struct in6_addr *ip)
{
	for (uint32_t i = 0; i < n->n_swap; i++) {
		if (memcmp(&n->swap[i], ip, sizeof(*ip)) == 0)
			return true;
	}
	return false;
}

void netif_topic_fini(struct netif_topic *t)
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
int netif_topic_reader_new(struct netif *n, struct netif_topic *t)
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

_Static_assert(NODECFG_NAME_MAX == BROKER_NAME_MAX, "node config and broker agree on names");
_Static_assert(NODECFG_MAX_FIELDS == BROKER_MAX_FIELDS, "node config and broker agree on fields");
/* The node config's field types are the codec's; the broker's are the control protocol's. */
_Static_assert((int)SNPS_FIELD_OCTET == (int)SDDS__CTL__FIELD_TYPE__FIELD_OCTET &&
		   (int)SNPS_FIELD_CHAR == (int)SDDS__CTL__FIELD_TYPE__FIELD_CHAR &&
		   (int)SNPS_FIELD_BOOLEAN == (int)SDDS__CTL__FIELD_TYPE__FIELD_BOOLEAN &&
		   (int)SNPS_FIELD_SHORT == (int)SDDS__CTL__FIELD_TYPE__FIELD_SHORT &&
		   (int)SNPS_FIELD_USHORT == (int)SDDS__CTL__FIELD_TYPE__FIELD_USHORT &&
		   (int)SNPS_FIELD_LONG == (int)SDDS__CTL__FIELD_TYPE__FIELD_LONG &&
		   (int)SNPS_FIELD_ULONG == (int)SDDS__CTL__FIELD_TYPE__FIELD_ULONG &&
		   (int)SNPS_FIELD_LONGLONG == (int)SDDS__CTL__FIELD_TYPE__FIELD_LONGLONG &&
		   (int)SNPS_FIELD_ULONGLONG == (int)SDDS__CTL__FIELD_TYPE__FIELD_ULONGLONG &&
		   (int)SNPS_FIELD_STRING == (int)SDDS__CTL__FIELD_TYPE__FIELD_STRING &&
		   (int)SNPS_FIELD_ENUM == (int)SDDS__CTL__FIELD_TYPE__FIELD_ENUM,
	       "field type numbers agree");

void netif_broker_desc(const struct nodecfg_desc *in, struct broker_topic_desc *out)
{
	memset(out, 0, sizeof(*out));
	out->domain = in->domain;
	out->topic_id = in->topic_id;
	memcpy(out->name, in->name, sizeof(out->name));
	out->sample_size = in->sample_size;
	out->n_fields = in->n_fields;
	for (uint32_t i = 0; i < in->n_fields; i++) {
		out->fields[i].type = in->fields[i].type;
		out->fields[i].size = in->fields[i].size;
		memcpy(out->fields[i].name, in->fields[i].name, sizeof(out->fields[i].name));
	}
}

int netif_topic_init(struct netif *n, struct netif_topic *t, const struct nodecfg_topic *cfg, char *why,
		     size_t why_len)
{
	struct broker_qos wq = {.reliability = BROKER_RELIABLE, .history_depth = 1, .max_blocking_ms = 0};
	uint32_t size = cfg->desc.sample_size, overhead;
	struct broker_topic_desc bd;
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
	netif_broker_desc(&cfg->desc, &bd);
	rc = broker_topic_get(n->broker, &bd, &t->bt);
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
	for (uint32_t i = 0; i < n->n_links; i++) {
		if (strcmp(netif_link(n, i)->name, iface) == 0) {
			*ret = i;
			return 0;
		}
	}
	return -ENODEV;
}

int netif_add_dests(struct netif *n, char *why, size_t why_len)
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
		} else if (n->n_links != 1) {
			snprintf(why, why_len,
				 "%s: subscriber address without %%interface and %u interfaces configured: "
				 "name the link",
				 d->loc, n->n_links);
			return -EINVAL;
		}
		a.ifindex = netif_link(n, link)->ifindex;
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
		if (t == NULL || sd->loc.link >= n->n_links)
			continue;
		a.ifindex = netif_link(n, sd->loc.link)->ifindex;
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
void netif_dests_rebuild(struct netif *n)
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

static void netif_disc_changed(void *ctx)
{
	struct netif *n = ctx;

	/* Rebuilt now: peers are only added here, so open frames stay valid. */
	netif_dests_rebuild(n);
}

int netif_disc_init(struct netif *n, char *why, size_t why_len)
{
	struct disc_callbacks cb = {.send = netif_disc_send, .changed = netif_disc_changed, .ctx = n};
	struct disc_options o;
	int rc;

	disc_options_init(&o);
	o.node_id = n->opt.disc.node_id;
	if (o.node_id == 0)
		o.node_id = disc_node_id_from_addr(&netif_link(n, 0)->addr);
	o.port = n->node.port;
	o.n_links = n->n_links;
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

void netif_flush(struct netif *n)
{
	if (n->bl_n > 0) {
		netif_backlog_drain(n);
		broker_flush(n->broker);
	}
	if (n->tx_used > 0)
		netif_tx_send(n);
}

void netif_reader_gone(struct netif *n, struct broker_reader *r)
{
	if (n != NULL && n->bl_blocker == r) {
		rring_prod_stop_wait_space(broker_reader_ring(r));
		n->bl_blocker = NULL;
	}
}
