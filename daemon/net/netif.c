/* SPDX-License-Identifier: MIT */
/*
 * netif.c - the network layer's life cycle: options, new, start, close, free, reset, accessors, and every
 * libuv handle and callback, and the one timer queue they drive.
 *
 * See netif_impl.h (OVERVIEW) for what this file owns and the invariants.
 */
#include "netif_impl.h"

#include <time.h>

#include "log.h"

static void netif_on_tq_timer(uv_timer_t *h);

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

/* Start of every libuv callback of the layer: the owner's lock, if any. */
void netif_enter(struct netif *n)
{
	if (n->hooks.enter != NULL)
		n->hooks.enter(n->hooks.ctx);
}

/* The layer's clock: the first backend's, CLOCK_MONOTONIC's while it is not open. */
int64_t netif_now(const struct netif *n)
{
	struct timespec ts;

	if (n->be[0] != NULL)
		return n->ops[0]->clock_ns(n->be[0]);
	/* While the first backend opens: every backend's clock is CLOCK_MONOTONIC's ns so far. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* netif_now for a backend (backend.h: its timers share the layer's queue and clock). */
static int64_t netif_now_cb(void *ctx)
{
	return netif_now(ctx);
}

/* A backend's news (a failed DAD): the daemon's log. */
static void netif_note(void *ctx, bool error, const char *msg)
{
	(void)ctx;
	if (error)
		log_err("net: %s", msg);
	else
		log_info("net: %s", msg);
}

/* The backends are open (netif_new opened them all or none; netif_close closes them all). */
bool netif_be_open(const struct netif *n)
{
	return n->be[0] != NULL;
}

#define NETIF_MS_NS 1000000

/*
 * Set the libuv timer for the queue's head, or stop it (the loop's thread,
 * under the owner's lock). A timer that fires early (libuv counts from the
 * loop's cached time) runs nothing and is set again.
 */
static void netif_timers_program(struct netif *n)
{
	int64_t due, now;

	if (!n->handles_open)
		return;
	if (!timerq_next_due(&n->tq, &due)) {
		if (n->tq_programmed != INT64_MAX) {
			uv_timer_stop(&n->tq_timer);
			n->tq_programmed = INT64_MAX;
		}
		return;
	}
	if (due == n->tq_programmed)
		return;
	now = netif_now(n);
	uv_timer_start(&n->tq_timer, netif_on_tq_timer,
		       due > now ? (uint64_t)((due - now + NETIF_MS_NS - 1) / NETIF_MS_NS) : 0, 0);
	n->tq_programmed = due;
}

/*
 * Arm t at due (netif_now's ns). Any thread holding the owner's lock: off
 * the loop's thread, a timer due before the libuv timer wakes the loop,
 * which sets it again (netif_on_tq_wake); on it, the next prepare does.
 */
void netif_timer_arm(struct netif *n, struct timerq_timer *t, int64_t due)
{
	timerq_arm(&n->tq, t, due);
	if (due < n->tq_programmed && n->handles_open && !pthread_equal(pthread_self(), n->loop_thread))
		uv_async_send(&n->tq_wake);
}

/* While there is work, the reliability round (resends, NACK rounds, heartbeats) runs every RTO. */
void netif_rel_timer_on(struct netif *n)
{
	if (n->rel_on || !n->handles_open)
		return;
	n->rel_on = true;
	netif_timer_arm(n, &n->rel_t, netif_now(n) + NETIF_REL_RTO_MS * NETIF_MS_NS);
}

/* No reliability work is left: the timer stops. */
void netif_rel_timer_off(struct netif *n)
{
	n->rel_on = false;
	timerq_cancel(&n->tq, &n->rel_t);
}

/* The backlog's retry timer runs while samples wait (on), else stops. */
void netif_retry_timer(struct netif *n, bool on)
{
	if (!on)
		timerq_cancel(&n->tq, &n->retry_t);
	else if (n->handles_open && !timerq_armed(&n->retry_t))
		netif_timer_arm(n, &n->retry_t, netif_now(n) + NETIF_BACKLOG_RETRY_MS * NETIF_MS_NS);
}

static void netif_on_rel(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct netif *n = TIMERQ_CONTAINER_OF(t, struct netif, rel_t);

	(void)q;
	netif_rel_resend(n);
	if (n->rel_on && !timerq_armed(t))
		netif_timer_arm(n, t, now + NETIF_REL_RTO_MS * NETIF_MS_NS);
}

static void netif_on_retry(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct netif *n = TIMERQ_CONTAINER_OF(t, struct netif, retry_t);

	(void)q;
	(void)now;
	/* A safety net: the blocker's kick normally wakes the loop first. */
	netif_flush(n);
	netif_retry_timer(n, n->bl_n > 0);
}

static void netif_on_disc(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct netif *n = TIMERQ_CONTAINER_OF(t, struct netif, disc_t);

	(void)q;
	netif_tick(n);
	if (n->disc != NULL && !n->closing)
		netif_timer_arm(n, t, now + NETIF_DISC_TICK_MS * NETIF_MS_NS);
}

/* The one libuv timer: run what is due, send what it queued, set the next. */
static void netif_on_tq_timer(uv_timer_t *h)
{
	struct netif *n = h->data;

	netif_enter(n);
	n->tq_programmed = INT64_MAX;
	timerq_run(&n->tq, netif_now(n));
	if (n->tx_used > 0)
		netif_tx_send(n);
	netif_timers_program(n);
	if (n->hooks.after != NULL)
		n->hooks.after(n->hooks.ctx);
}

/* Another thread armed a timer due before the libuv timer. */
static void netif_on_tq_wake(uv_async_t *h)
{
	struct netif *n = h->data;

	netif_enter(n);
	netif_timers_program(n);
	if (n->hooks.after != NULL)
		n->hooks.after(n->hooks.ctx);
}

static void netif_on_prepare(uv_prepare_t *h)
{
	struct netif *n = h->data;

	netif_enter(n);
	/* The thread that runs the loop (a monolithic one starts it after netif_new). */
	n->loop_thread = pthread_self();
	netif_flush(n);
	netif_timers_program(n);
	if (n->hooks.after != NULL)
		n->hooks.after(n->hooks.ctx);
}

static void netif_on_readable(struct net_backend *b, void *ctx)
{
	struct netif *n = ctx;

	netif_enter(n);
	netif_receive_from(n, b->index);
	if (n->hooks.after != NULL)
		n->hooks.after(n->hooks.ctx);
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
	now = netif_now(n);
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
		disc_start(n->disc, netif_now(n));
		netif_timer_arm(n, &n->disc_t, netif_now(n) + NETIF_DISC_TICK_MS * NETIF_MS_NS);
	}
}

/* The backend list of o, in either form (netif.h): 0 or -EINVAL. */
static int netif_backends_check(const struct netif_options *o)
{
	uint32_t links = 0;

	if (o->n_backends == 0)
		return o->backend != NULL && o->n_links > 0 && o->n_links <= NET_MAX_LINKS ? 0 : -EINVAL;
	if (o->n_backends > NET_MAX_BACKENDS)
		return -EINVAL;
	for (uint32_t k = 0; k < o->n_backends; k++) {
		const struct netif_backend_options *bo = &o->backends[k];

		if (bo->ops == NULL || bo->n_links == 0 || bo->n_links > NET_MAX_LINKS)
			return -EINVAL;
		links += bo->n_links;
	}
	return links <= NETIF_MAX_LINKS ? 0 : -EINVAL;
}

/* Close every open backend (their handles finish on the loop); the layer counts as closed. */
static void netif_backends_close(struct netif *n)
{
	for (uint32_t k = n->n_be; k-- > 0;) {
		if (n->be[k] != NULL)
			n->ops[k]->close(n->be[k], netif_backend_closed, NULL);
		n->be[k] = NULL;
	}
}

/*
 * Open the backends in order, number their links in one sequence (link
 * ids) and join the SNPS groups (§1) on every link. On failure every
 * backend opened is closed again and why says what failed.
 */
static int netif_backends_open(struct netif *n, uv_loop_t *loop, char *why, size_t why_len)
{
	/* §1: every group, on every link; the data path uses ff02::10 only for now. */
	static const uint8_t groups[] = {SNPS_GROUP_DATA,  SNPS_GROUP_PARTICIPANT, SNPS_GROUP_ENDPOINT,
					 SNPS_GROUP_TOPIC, SNPS_GROUP_SECURITY,	   SNPS_GROUP_LOCATION};
	char be_why[256];
	int rc;

	n->n_links = 0;
	for (uint32_t k = 0; k < n->n_be; k++) {
		const struct netif_backend_options *bo = &n->opt.backends[k];
		struct net_backend_config bc;
		struct net_backend *be;
		uint32_t nl;

		memset(&bc, 0, sizeof(bc));
		for (uint32_t i = 0; i < bo->n_links; i++)
			bc.links[i] = bo->links[i];
		bc.n_links = bo->n_links;
		bc.prefer = n->node.ip;
		bc.has_prefer = true;
		bc.port = n->node.port;
		bc.max_dgram = n->opt.max_frame;
		bc.rcvbuf = n->opt.rcvbuf;
		bc.sndbuf = n->opt.sndbuf;
		bc.gso = n->opt.gso;
		bc.tq = &n->tq;
		bc.now = netif_now_cb;
		bc.note = netif_note;
		bc.why = be_why;
		bc.why_len = sizeof(be_why);
		bc.stack = n->opt.stack;
		be_why[0] = '\0';
		rc = n->ops[k]->open(net_loop_uv(loop), &bc, netif_on_readable, n, &be);
		if (rc < 0) {
			snprintf(why, why_len, "cannot open the %s backend on %s%s (port %u): %s",
				 n->ops[k]->name, bo->links[0], bo->n_links > 1 ? ",..." : "", n->node.port,
				 be_why[0] != '\0' ? be_why : strerror(-rc));
			goto fail_close;
		}
		n->be[k] = be;
		nl = n->ops[k]->n_links(be);
		if (n->n_links + nl > NETIF_MAX_LINKS) {
			snprintf(why, why_len, "more than %u links over all backends", NETIF_MAX_LINKS);
			rc = -EINVAL;
			goto fail_close;
		}
		be->link_base = n->n_links;
		be->index = k;
		for (uint32_t l = 0; l < nl; l++) {
			n->link_be[n->n_links++] = (uint8_t)k;
			for (size_t g = 0; g < sizeof(groups); g++) {
				struct in6_addr ga = {.s6_addr = {0xff, 0x02}};

				ga.s6_addr[15] = groups[g];
				rc = n->ops[k]->join(be, l, &ga);
				if (rc < 0) {
					snprintf(why, why_len, "cannot join ff02::%x on %s: %s", groups[g],
						 n->ops[k]->link(be, l)->name, strerror(-rc));
					goto fail_close;
				}
			}
		}
	}
	return 0;

fail_close:
	netif_backends_close(n);
	n->n_links = 0;
	return rc;
}

int netif_new(uv_loop_t *loop, struct broker *b, const struct netif_options *o, const struct netif_hooks *h,
	      struct netif **ret, char *why, size_t why_len)
{
	char dummy[8];
	struct netif *n;
	int rc;

	if (why == NULL) {
		why = dummy;
		why_len = sizeof(dummy);
	}
	why[0] = '\0';
	if (o->node == NULL || netif_backends_check(o) < 0 || o->max_frame < 8 ||
	    o->max_frame > SNPS_DATAGRAM_MAX || o->max_peers == 0 || o->backlog_cap == 0 ||
	    o->reader_depth < 2 || (o->reader_depth & (o->reader_depth - 1)) != 0 || o->rx_budget == 0 ||
	    o->n_swap_peers > 64 || o->n_pack_peers > 64) {
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
	if (o->n_backends == 0) {
		/* The single-backend form: made the first entry of the list. */
		n->opt.backends[0].ops = o->backend;
		for (uint32_t i = 0; i < o->n_links; i++)
			n->opt.backends[0].links[i] = o->links[i];
		n->opt.backends[0].n_links = o->n_links;
		n->opt.n_backends = 1;
	}
	n->n_be = n->opt.n_backends;
	for (uint32_t k = 0; k < n->n_be; k++)
		n->ops[k] = n->opt.backends[k].ops;
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

	/* Before the backends: an own-stack backend arms its ND and MLD timers as it opens. */
	timerq_init(&n->tq);
	rc = netif_backends_open(n, loop, why, why_len);
	if (rc < 0)
		goto fail_free;
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
	timerq_timer_init(&n->rel_t, netif_on_rel);
	timerq_timer_init(&n->retry_t, netif_on_retry);
	timerq_timer_init(&n->disc_t, netif_on_disc);
	n->tq_programmed = INT64_MAX;
	n->loop_thread = pthread_self();
	uv_prepare_init(loop, &n->prepare);
	uv_timer_init(loop, &n->tq_timer);
	uv_async_init(loop, &n->tq_wake, netif_on_tq_wake);
	n->prepare.data = n;
	n->tq_timer.data = n;
	n->tq_wake.data = n;
	n->handles_open = true;
	netif_start(n);
	*ret = n;
	return 0;

fail_topics:
	for (uint32_t i = 0; i < n->n_topics; i++)
		netif_topic_fini(&n->topics[i]);
	for (uint32_t k = 0; k < NETIF_NACK_STREAMS; k++)
		free(n->nrx[k].data);
	netif_backends_close(n);
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
		netif_rel_timer_off(n);
		timerq_cancel(&n->tq, &n->retry_t);
		timerq_cancel(&n->tq, &n->disc_t);
		uv_close((uv_handle_t *)&n->prepare, NULL);
		uv_close((uv_handle_t *)&n->tq_timer, NULL);
		uv_close((uv_handle_t *)&n->tq_wake, NULL);
		n->handles_open = false;
	}
	netif_backends_close(n);
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
	netif_rel_timer_off(n);
	timerq_cancel(&n->tq, &n->retry_t);
	timerq_cancel(&n->tq, &n->disc_t);
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
	return n->be[0];
}

const char *netif_backend_name(const struct netif *n)
{
	return n->ops[0]->name;
}

const struct net_backend_ops *netif_backend_ops(const struct netif *n)
{
	return n->ops[0];
}

uint32_t netif_n_backends(const struct netif *n)
{
	return n->n_be;
}

struct net_backend *netif_backend_at(const struct netif *n, uint32_t i)
{
	return i < n->n_be ? n->be[i] : NULL;
}

const struct net_backend_ops *netif_backend_ops_at(const struct netif *n, uint32_t i)
{
	return i < n->n_be ? n->ops[i] : NULL;
}

uint32_t netif_n_links(const struct netif *n)
{
	return netif_be_open(n) ? n->n_links : 0;
}

struct net_backend *netif_link_backend(const struct netif *n, uint32_t link, uint32_t *ret_local)
{
	struct net_backend *be;

	if (link >= n->n_links)
		return NULL;
	be = n->be[n->link_be[link]];
	if (be == NULL)
		return NULL;
	if (ret_local != NULL)
		*ret_local = link - be->link_base;
	return be;
}

const struct net_link_info *netif_link(const struct netif *n, uint32_t link)
{
	uint32_t local;
	struct net_backend *be = netif_link_backend(n, link, &local);

	return be != NULL ? be->ops->link(be, local) : NULL;
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

void netif_pool_usage(const struct netif *n, struct netif_pool_usage *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->tx_frames = n->tx_used;
	ret->backlog = n->bl_n;
	for (uint32_t k = 0; k < NETIF_NACK_STREAMS; k++)
		ret->nack_rx += n->nrx[k].used ? 1 : 0;
	ret->peers = n->peers.n;
	ret->timers = (uint32_t)timerq_count(&n->tq);
}
