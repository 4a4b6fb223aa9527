/* SPDX-License-Identifier: MIT */
/*
 * client.c - the native API of libsddsclient: client, topics, writers,
 * readers, take, and the waits they share.
 *
 * OVERVIEW
 * This file is transport-neutral: it checks arguments, keeps the object
 * lists, and runs the consumer side of every reader ring (take). Requests
 * that need the broker go through c->ops (remote.c for sddsd, mono.c for the
 * in-process broker); see internal.h for the locks and lifetimes.
 *
 * Take is a local dequeue: under the reader's take_lock it calls
 * rring_cons_take; when empty it sleeps on the evt doorbell, the only place a
 * producer announces samples, until the ring's published prod moves. The
 * wait condition compares prod with the consumer position read under the
 * lock, so a sample published between the failed take and the sleep makes
 * the condition true at once; the doorbell protocol (ipc/doorbell.h) does the
 * rest. No lock is held while sleeping.
 *
 * Disconnection is a flag (client_mark_disconnected). Every wait condition
 * includes it, and setting it wakes every doorbell the client's threads
 * sleep on, so a blocked call returns -ENOTCONN; later calls return
 * -ENOTCONN before they touch anything shared with the dead daemon.
 *
 * Restart: a reconnecting client (remote.c) clears the flag again once a
 * new connection is complete. Every call that touches connection state
 * brackets it with client_enter / client_leave, a grace-period scheme:
 *
 *   enter:  g = gp_gen; inside[g & 1] += 1; if gp_gen != g: undo, retry;
 *           if disconnected: leave, -ENOTCONN
 *   grace:  (disconnected already set) gp_gen += 1; wait until
 *           inside[old & 1] == 0 in the client and in every reader
 *
 * All of these are sequentially consistent. A thread whose re-check of
 * gp_gen came before the flip also incremented before it, so the grace
 * wait sees it and waits for it; one whose re-check came after backs out
 * and enters the new generation, where it finds the flag set and touches
 * nothing. After the grace period no thread holds a pointer into the old
 * segment or an old id, so the monitor may unmap, close and rewrite in
 * place until it clears the flag (a release of everything it wrote).
 * Entering costs two atomic increments on a line of the reader (take) or
 * the client (everything else), no lock. A thread stays entered while it
 * sleeps on a doorbell of the segment; marking the client disconnected
 * wakes it, so grace periods are short. Waiting for a reconnection happens
 * outside (client_wait_connected), on the process-local state_db.
 *
 * Fast paths: a write that finds room and a take that finds a sample are
 * not entered. They hold a lock anyway (the request ring's prod_lock, the
 * reader's take_lock), check `disconnected` under it (acquire) and use the
 * connection only while holding it; the monitor takes and drops each of
 * those locks once after the grace period (client_quiesce), so no holder
 * that saw the client connected is left when it releases or rewrites the
 * connection, and every later holder sees the flag. That spares two
 * atomic read-modify-writes per call. What sleeps on the segment (a write
 * waiting for room, a take waiting for a sample) or touches it after the
 * lock is dropped (a take's kick) enters as before.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#include "ipc/doorbell.h"
#include "ipc/ctl_limits.h"
#include "ipc/probes.h"

#define CLIENT_SPIN_NS_DEFAULT 20000
#define CLIENT_DEPTH_DEFAULT 64
#define CLIENT_MAX_BLOCKING_DEFAULT 100
/* How often a sleeper re-checks the disconnected flag without a wake-up. */
#define CLIENT_WAIT_SLICE_NS (100 * 1000 * 1000LL)

void sdds_client_options_init(sdds_client_options *opts)
{
	if (!opts)
		return;
	memset(opts, 0, sizeof(*opts));
	opts->socket_path = NULL;
	opts->name = NULL;
	opts->ctl_fd = -1;
	opts->spin_ns = -1;
	opts->monolithic = false;
	opts->reconnect = -1;
	opts->reconnect_wait = false;
	opts->reconnect_max_ms = 1000;
	opts->spin_yield_ns = -1;
	opts->net_config = NULL;
}

void sdds_qos_init(sdds_qos *qos)
{
	if (!qos)
		return;
	memset(qos, 0, sizeof(*qos));
	qos->reliability = SDDS_BEST_EFFORT;
	qos->history_depth = CLIENT_DEPTH_DEFAULT;
	qos->max_blocking_ms = CLIENT_MAX_BLOCKING_DEFAULT;
}

/* A non-negative integer from the environment variable var, or def. */
static int64_t client_ns_from_env(const char *var, int64_t def)
{
	const char *v = getenv(var);
	char *end;
	long long n;

	if (!v || !*v)
		return def;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || *end || n < 0)
		return def;
	return n;
}

static void client_release(struct sdds_client *c)
{
	pthread_cond_destroy(&c->cb_cond);
	pthread_mutex_destroy(&c->cb_lock);
	pthread_mutex_destroy(&c->obj_lock);
	free(c);
}

int sdds_client_new(const sdds_client_options *opts, sdds_client **ret_client)
{
	sdds_client_options defaults;
	struct sdds_client *c;
	int rc;

	if (!ret_client)
		return -EINVAL;
	if (!opts) {
		sdds_client_options_init(&defaults);
		opts = &defaults;
	}

	/* The local doorbell wants a cache line of its own: calloc aligns to 16 only. */
	c = aligned_alloc(_Alignof(struct sdds_client), sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->obj_lock, NULL);
	pthread_mutex_init(&c->cb_lock, NULL);
	pthread_cond_init(&c->cb_cond, NULL);
	TAILQ_INIT(&c->topics);
	TAILQ_INIT(&c->writers);
	TAILQ_INIT(&c->readers);
	TAILQ_INIT(&c->listening);
	atomic_init(&c->disconnected, false);
	atomic_init(&c->cb_stop, false);
	atomic_init(&c->gp_gen, 0);
	c->remote.ctl_fd = -1;
	c->remote.kick_fd = -1;
	c->remote.stop_fd = -1;
	c->remote.renew_fd = -1;
	c->remote.seg.fd = -1;
	/* Until a transport supplies its own, wake-ups go to a private doorbell. */
	c->evt = &c->local_evt;
	c->spin_ns =
	    opts->spin_ns >= 0 ? opts->spin_ns : client_ns_from_env("SDDS_SPIN_NS", CLIENT_SPIN_NS_DEFAULT);
	c->spin_yield_ns =
	    opts->spin_yield_ns >= 0 ? opts->spin_yield_ns : client_ns_from_env("SDDS_SPIN_YIELD_NS", -1);
	rc = client_transport_open(c, opts);
	if (rc < 0) {
		client_release(c);
		return rc;
	}
	*ret_client = c;
	return 0;
}

static void client_reader_destroy(struct sdds_reader *r, bool closing);
static void client_writer_destroy(struct sdds_writer *w, bool closing);

void sdds_client_free(sdds_client *c)
{
	struct sdds_topic *t;

	if (!c)
		return;
	/*
	 * Writers go first and the regular way: through sddsd, a deletion waits
	 * until the daemon has routed the writer's last samples (it holds a
	 * sample for a full reliable reader and answers control requests only
	 * afterwards), while a hang-up would drop them. Listeners keep taking
	 * meanwhile. Then the transport, then the callback thread: after both,
	 * nothing but this thread touches the objects.
	 */
	c->ops->closing(c);
	while (!TAILQ_EMPTY(&c->writers))
		client_writer_destroy(TAILQ_FIRST(&c->writers), false);
	c->ops->shutdown(c);
	listener_stop(c);

	while (!TAILQ_EMPTY(&c->readers))
		client_reader_destroy(TAILQ_FIRST(&c->readers), true);
	while ((t = TAILQ_FIRST(&c->topics)) != NULL) {
		TAILQ_REMOVE(&c->topics, t, node);
		c->ops->topic_free(t);
		free(t);
	}
	c->ops->destroy(c);
	client_release(c);
}

uint32_t sdds_client_session_id(const sdds_client *c)
{
	return c ? atomic_load_explicit(&((struct sdds_client *)c)->session_id, memory_order_relaxed) : 0;
}

uint64_t sdds_client_reconnects(const sdds_client *c)
{
	if (!c || c->mono)
		return 0;
	return atomic_load_explicit(&((struct sdds_client *)c)->remote.reconnects, memory_order_acquire);
}

bool sdds_client_connected(const sdds_client *c)
{
	return c && !atomic_load_explicit(&((struct sdds_client *)c)->disconnected, memory_order_acquire);
}

static bool client_gone(struct sdds_client *c)
{
	return atomic_load_explicit(&c->disconnected, memory_order_acquire);
}

void client_mark_disconnected(struct sdds_client *c)
{
	if (atomic_exchange(&c->disconnected, true))
		return;
	/*
	 * The exchange is sequentially consistent and doorbell_notify fences
	 * before it reads `waiters`: a sleeper either saw the flag in its
	 * condition or is counted in `waiters` and gets the bump. The callers
	 * (the monitor, or a thread entered in the connection) keep the
	 * segment mapped while this runs.
	 */
	doorbell_notify(c->evt);
	if (!c->mono && c->remote.req)
		doorbell_notify(&c->remote.req->space);
	doorbell_notify(&c->state_db);
}

void client_mark_connected(struct sdds_client *c)
{
	atomic_store(&c->disconnected, false);
	doorbell_notify(&c->state_db);
}

void client_state_notify(struct sdds_client *c)
{
	doorbell_notify(&c->state_db);
}

/* ---------------- grace periods ---------------- */

/* Sum of the old generation's counters; under obj_lock (the reader list). */
static uint64_t client_inside(struct sdds_client *c, unsigned slot)
{
	uint64_t n = atomic_load(&c->gp.inside[slot]);
	struct sdds_reader *r;

	TAILQ_FOREACH(r, &c->readers, node)
	n += atomic_load(&r->gp.inside[slot]);
	return n;
}

/*
 * The fast paths of write and take (see "Fast paths" above) use the
 * connection under prod_lock or a reader's take_lock without entering:
 * taking and dropping each of these locks once, after `disconnected` was
 * set, waits out every holder that may have seen the client connected, and
 * every later holder sees the flag (it is set before our unlock).
 */
static void client_quiesce(struct sdds_client *c)
{
	struct sdds_reader *r;

	if (!c->mono) {
		pthread_mutex_lock(&c->remote.prod_lock);
		pthread_mutex_unlock(&c->remote.prod_lock);
	}
	pthread_mutex_lock(&c->obj_lock);
	TAILQ_FOREACH(r, &c->readers, node)
	{
		pthread_mutex_lock(&r->take_lock);
		pthread_mutex_unlock(&r->take_lock);
	}
	pthread_mutex_unlock(&c->obj_lock);
}

void client_grace(struct sdds_client *c)
{
	unsigned slot = (unsigned)(atomic_fetch_add(&c->gp_gen, 1) & 1);
	struct timespec ts = {0, 200 * 1000};
	uint64_t n;

	/*
	 * Every thread still counted is awake or about to be (it was woken by
	 * the disconnection, or it is between two instructions of a call):
	 * a short sleep between looks is enough. A reader freed meanwhile was
	 * left by its last user before (using a reader while freeing it is the
	 * application's bug).
	 */
	for (;;) {
		pthread_mutex_lock(&c->obj_lock);
		n = client_inside(c, slot);
		pthread_mutex_unlock(&c->obj_lock);
		if (n == 0)
			break;
		nanosleep(&ts, NULL);
	}
	client_quiesce(c);
}

static bool client_connected_cond(void *arg)
{
	struct sdds_client *c = arg;

	return !atomic_load(&c->disconnected) || atomic_load(&c->remote.closing);
}

int client_wait_connected(struct sdds_client *c, int64_t deadline_ns)
{
	int64_t left = -1;

	if (c->mono || !c->remote.reconnect)
		return -ENOTCONN;
	for (;;) {
		if (atomic_load(&c->remote.closing))
			return -ENOTCONN;
		if (!atomic_load(&c->disconnected))
			return 0;
		if (deadline_ns >= 0) {
			left = deadline_ns - doorbell_now_ns();
			if (left <= 0)
				return -ENOTCONN;
		}
		/* No spinning: a reconnection takes milliseconds at least. */
		(void)doorbell_wait(&c->state_db, client_connected_cond, c, left, 0, 0, NULL);
	}
}

/* ---------------- waits ---------------- */

static bool client_wait_cond(void *arg)
{
	struct client_wait *w = arg;

	if (client_gone(w->client))
		return true;
	if (w->watch64 && atomic_load_explicit(w->watch64, memory_order_acquire) != w->seen64)
		return true;
	if (w->watch32 && atomic_load_explicit(w->watch32, memory_order_acquire) != w->seen32)
		return true;
	return w->ready && w->ready(w);
}

static bool client_wait_abort(void *arg)
{
	struct client_wait *w = arg;

	return client_gone(w->client);
}

int client_wait_db(struct sdds_client *c, struct sdds_doorbell *db, struct client_wait *w, int64_t timeout_ns)
{
	int rc;

	w->client = c;
	rc = doorbell_wait_yield(db, client_wait_cond, w, timeout_ns, c->spin_ns, c->spin_yield_ns,
				 c->mono ? 0 : CLIENT_WAIT_SLICE_NS, c->mono ? NULL : client_wait_abort);
	SDDS_PROBE1(client_woken, rc);
	if (client_gone(c) || rc == -ECANCELED)
		return -ENOTCONN;
	return rc;
}

/* ---------------- topics ---------------- */

static int client_check_desc(const sdds_topic_desc *d)
{
	uint64_t sum = 0;
	size_t i;

	if (!d->name || strnlen(d->name, IPC_NAME_MAX) >= IPC_NAME_MAX)
		return -EINVAL;
	if (d->sample_size == 0)
		return -EINVAL;
	if (d->n_fields > IPC_MAX_FIELDS || (d->n_fields && !d->fields))
		return -EINVAL;
	for (i = 0; i < d->n_fields; i++) {
		const sdds_field *f = &d->fields[i];

		if (!f->name || strnlen(f->name, IPC_NAME_MAX) >= IPC_NAME_MAX)
			return -EINVAL;
		if (f->type < SDDS_FIELD_OCTET || f->type > SDDS_FIELD_ENUM || f->size == 0)
			return -EINVAL;
		sum += f->size;
	}
	/* A topic without a field list is opaque bytes; with one, sizes add up. */
	if (d->n_fields && sum != d->sample_size)
		return -EINVAL;
	return 0;
}

/*
 * A topic with a deep copy of desc (checked) in the same allocation: the
 * reconnection registers it again long after the caller's desc is gone.
 * The caller frees it with free().
 */
static struct sdds_topic *client_topic_alloc(const sdds_topic_desc *d)
{
	size_t size = sizeof(struct sdds_topic), i;
	struct sdds_topic *t;
	sdds_field *fields;
	char *p;

	size += d->n_fields * sizeof(sdds_field) + strlen(d->name) + 1;
	for (i = 0; i < d->n_fields; i++)
		size += strlen(d->fields[i].name) + 1;
	t = calloc(1, size);
	if (!t)
		return NULL;
	fields = (sdds_field *)(t + 1);
	p = (char *)(fields + d->n_fields);
	t->desc = *d;
	t->desc.fields = d->n_fields ? fields : NULL;
	t->desc.name = p;
	p = stpcpy(p, d->name) + 1;
	for (i = 0; i < d->n_fields; i++) {
		fields[i] = d->fields[i];
		fields[i].name = p;
		p = stpcpy(p, d->fields[i].name) + 1;
	}
	return t;
}

int sdds_topic_new(sdds_client *c, const sdds_topic_desc *desc, sdds_topic **ret_topic)
{
	struct client_ref ref;
	struct sdds_topic *t;
	int rc;

	if (!c || !desc || !ret_topic)
		return -EINVAL;
	rc = client_check_desc(desc);
	if (rc < 0)
		return rc;
	if (client_gone(c))
		return -ENOTCONN;

	t = client_topic_alloc(desc);
	if (!t)
		return -ENOMEM;
	t->client = c;
	t->refs = 1;
	t->user_ref = true;
	t->sample_size = desc->sample_size;
	/* Entered until the topic is listed: a reconnection then sees it. */
	rc = client_enter(c, &c->gp, &ref);
	if (rc < 0) {
		free(t);
		return rc;
	}
	rc = c->ops->topic_new(t, &t->desc);
	if (rc == 0) {
		pthread_mutex_lock(&c->obj_lock);
		TAILQ_INSERT_TAIL(&c->topics, t, node);
		pthread_mutex_unlock(&c->obj_lock);
	}
	client_leave(&ref);
	if (rc < 0) {
		free(t);
		return rc;
	}
	*ret_topic = t;
	return 0;
}

static void client_topic_put(struct sdds_topic *t)
{
	struct sdds_client *c = t->client;
	bool last;

	pthread_mutex_lock(&c->obj_lock);
	last = --t->refs == 0;
	if (last)
		TAILQ_REMOVE(&c->topics, t, node);
	pthread_mutex_unlock(&c->obj_lock);
	if (last) {
		c->ops->topic_free(t);
		free(t);
	}
}

static void client_topic_get(struct sdds_topic *t)
{
	pthread_mutex_lock(&t->client->obj_lock);
	t->refs++;
	pthread_mutex_unlock(&t->client->obj_lock);
}

void sdds_topic_free(sdds_topic *t)
{
	bool drop;

	if (!t)
		return;
	pthread_mutex_lock(&t->client->obj_lock);
	drop = t->user_ref;
	t->user_ref = false;
	pthread_mutex_unlock(&t->client->obj_lock);
	if (drop)
		client_topic_put(t);
}

uint32_t sdds_topic_sample_size(const sdds_topic *t)
{
	return t ? t->sample_size : 0;
}

/* ---------------- writers ---------------- */

static int client_qos(const sdds_qos *in, sdds_qos *out)
{
	if (in)
		*out = *in;
	else
		sdds_qos_init(out);
	if (out->reliability != SDDS_BEST_EFFORT && out->reliability != SDDS_RELIABLE)
		return -EINVAL;
	return 0;
}

int sdds_writer_new(sdds_topic *t, const sdds_qos *qos, sdds_writer **ret_writer)
{
	struct client_ref ref;
	struct sdds_client *c;
	struct sdds_writer *w;
	sdds_qos q;
	int rc;

	if (!t || !ret_writer)
		return -EINVAL;
	rc = client_qos(qos, &q);
	if (rc < 0)
		return rc;
	c = t->client;
	if (client_gone(c))
		return -ENOTCONN;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->client = c;
	w->topic = t;
	w->qos = q;
	w->reliable = q.reliability == SDDS_RELIABLE;
	w->max_blocking_ms = q.max_blocking_ms;
	rc = client_enter(c, &c->gp, &ref);
	if (rc < 0) {
		free(w);
		return rc;
	}
	rc = c->ops->writer_new(w, &q);
	if (rc == 0) {
		client_topic_get(t);
		pthread_mutex_lock(&c->obj_lock);
		TAILQ_INSERT_TAIL(&c->writers, w, node);
		pthread_mutex_unlock(&c->obj_lock);
	}
	client_leave(&ref);
	if (rc < 0) {
		free(w);
		return rc;
	}
	*ret_writer = w;
	return 0;
}

static void client_writer_destroy(struct sdds_writer *w, bool closing)
{
	struct sdds_client *c = w->client;

	pthread_mutex_lock(&c->obj_lock);
	TAILQ_REMOVE(&c->writers, w, node);
	pthread_mutex_unlock(&c->obj_lock);
	c->ops->writer_free(w, closing);
	if (!closing)
		client_topic_put(w->topic);
	free(w);
}

void sdds_writer_free(sdds_writer *w)
{
	if (w)
		client_writer_destroy(w, false);
}

int sdds_writer_write(sdds_writer *w, const void *sample, size_t len)
{
	struct sdds_client *c;
	int64_t deadline = -2;
	int rc;

	if (!w || !sample)
		return -EINVAL;
	if (len != w->topic->sample_size)
		return -EMSGSIZE;
	SDDS_PROBE2(write_enter, SDDS_PROBE_TOPIC(w->topic->desc.domain, w->topic->desc.id), len);
	c = w->client;
	for (;;) {
		/* Not entered: the transport enters where it needs to (see "Fast paths"). */
		rc = c->ops->writer_write(w, sample, (uint32_t)len);
		if (__builtin_expect(rc != -ENOTCONN, 1) || !c->remote.reconnect_wait)
			return rc;
		/* The gap: wait for the new connection within max_blocking_ms. */
		if (deadline == -2)
			deadline = doorbell_now_ns() + (int64_t)w->max_blocking_ms * 1000000;
		if (client_wait_connected(c, deadline) < 0)
			return -ENOTCONN;
	}
}

/* ---------------- readers ---------------- */

int sdds_reader_new(sdds_topic *t, const sdds_qos *qos, sdds_reader **ret_reader)
{
	struct client_ref ref;
	struct sdds_client *c;
	struct sdds_reader *r;
	sdds_qos q;
	int rc;

	if (!t || !ret_reader)
		return -EINVAL;
	rc = client_qos(qos, &q);
	if (rc < 0)
		return rc;
	if (q.history_depth == 0)
		q.history_depth = 1;
	c = t->client;
	if (client_gone(c))
		return -ENOTCONN;

	/* aligned_alloc: the grace counters want a cache line of their own. */
	r = aligned_alloc(_Alignof(struct sdds_reader), sizeof(*r));
	if (!r)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	r->client = c;
	r->topic = t;
	r->qos = q;
	r->reliable = q.reliability == SDDS_RELIABLE;
	pthread_mutex_init(&r->take_lock, NULL);
	atomic_init(&r->lost, 0);
	rc = client_enter(c, &c->gp, &ref);
	if (rc == 0) {
		rc = c->ops->reader_new(r, &q);
		if (rc == 0) {
			client_topic_get(t);
			pthread_mutex_lock(&c->obj_lock);
			TAILQ_INSERT_TAIL(&c->readers, r, node);
			pthread_mutex_unlock(&c->obj_lock);
		}
		client_leave(&ref);
	}
	if (rc < 0) {
		pthread_mutex_destroy(&r->take_lock);
		free(r);
		return rc;
	}
	*ret_reader = r;
	return 0;
}

static void client_reader_destroy(struct sdds_reader *r, bool closing)
{
	struct sdds_client *c = r->client;

	/* After this no callback for r runs (unless we are inside it). */
	listener_detach(r);
	pthread_mutex_lock(&c->obj_lock);
	TAILQ_REMOVE(&c->readers, r, node);
	pthread_mutex_unlock(&c->obj_lock);
	c->ops->reader_free(r, closing);
	if (!closing)
		client_topic_put(r->topic);
	pthread_mutex_destroy(&r->take_lock);
	free(r);
}

void sdds_reader_free(sdds_reader *r)
{
	if (r)
		client_reader_destroy(r, false);
}

/* Where a take puts its samples, and what it got. */
struct client_take {
	uint8_t *buf;  /* sample i at buf + i * stride; the caller's */
	size_t stride; /* bytes per sample in buf (sdds_reader_take: its cap) */
	size_t max;    /* samples wanted, >= 1 */
	size_t n;      /* taken */
	uint32_t len;  /* length of the last sample taken */
};

/*
 * One try under r's take_lock: takes up to t->max samples that are there
 * (t->n, t->len). Returns 1 when at least one was taken, 0 empty,
 * -ENOTCONN, or rring_cons_take's error for the first sample. The caller
 * need not be entered: holding take_lock while the client is connected
 * keeps the connection (see client_quiesce). *ret_seen gets the consumer
 * position a wait compares the producer's prod with; *ret_kick (written on
 * every return: the callers test it) whether the daemon waits for the room
 * this take made (the caller kicks, entered).
 */
/* Inlined: sdds_reader_take's copy is specialised for max 1 (callgrind: 383 -> 330 per sample). */
static inline __attribute__((always_inline)) int
client_take_locked(struct sdds_reader *r, struct client_take *t, uint64_t *ret_seen, bool *ret_kick)
{
	struct sdds_client *c = r->client;
	/*
	 * Only a reliable ring can have a waiting producer, and a polling
	 * daemon retries a full ring every round without asking for a kick:
	 * spare the others the full fence. It is paid once per call, after
	 * the last sample taken.
	 */
	bool check = r->reliable && !c->remote.daemon_polling;
	int rc = 0;

	t->n = 0;
	*ret_kick = false;
	*ret_seen = 0;
	pthread_mutex_lock(&r->take_lock);
	/*
	 * Acquire: pairs with the monitor's store that marks the client
	 * connected, after it rewrote the connection in place. Samples left
	 * in a dead daemon's ring are not handed out.
	 */
	if (atomic_load_explicit(&c->disconnected, memory_order_acquire)) {
		pthread_mutex_unlock(&r->take_lock);
		return -ENOTCONN;
	}
	while (t->n < t->max) {
		uint32_t len = 0;

		rc = rring_cons_take(&r->cons, t->buf + t->n * t->stride, t->stride, &len, NULL, NULL);
		if (rc <= 0)
			break;
		t->len = len;
		t->n++;
		SDDS_PROBE4(take_return, c->remote.epoch,
			    atomic_load_explicit(&c->session_id, memory_order_relaxed),
			    SDDS_PROBE_TOPIC(r->topic->desc.domain, r->topic->desc.id), r->cons.cons - 1);
	}
	/* -EMSGSIZE consumed the sample: the check is due all the same. */
	*ret_kick = check && (t->n > 0 || rc < 0) && rring_cons_need_kick(&r->cons);
	if (rc < 0 && t->n > 0) {
		/* Reported with the first sample only: after others, the long one counts as lost. */
		r->cons.lost++;
		rc = 1;
	}
	if (__builtin_expect(r->cons.lost != atomic_load_explicit(&r->lost, memory_order_relaxed), 0))
		atomic_store_explicit(&r->lost, r->cons.lost, memory_order_relaxed);
	*ret_seen = r->cons.cons;
	pthread_mutex_unlock(&r->take_lock);
	return rc < 0 ? rc : t->n > 0;
}

/*
 * One take on the current connection (entered by the caller): 1 taken, or
 * 0 / -ETIMEDOUT / -ENOTCONN / another error as sdds_reader_take returns
 * them (0 here means -EAGAIN). *deadline (< 0: not yet set) is set from
 * the clock when the take first has to wait: one clock read before a
 * polling client's wait, which yields its CPU to the peer at once.
 */
static int client_take_once(struct sdds_reader *r, struct client_take *t, int64_t timeout_ns,
			    int64_t *deadline)
{
	struct sdds_client *c = r->client;
	struct client_wait w;
	int64_t left = -1;
	bool kick;
	int rc;

	for (;;) {
		memset(&w, 0, sizeof(w));
		rc = client_take_locked(r, t, &w.seen64, &kick);
		if (kick)
			c->ops->reader_kick(r);
		if (rc != 0)
			return rc;
		if (timeout_ns == 0)
			return 0;
		if (timeout_ns > 0) {
			int64_t now = doorbell_now_ns();

			if (*deadline < 0)
				*deadline = now + timeout_ns;
			left = *deadline - now;
			if (left <= 0)
				return -ETIMEDOUT;
		}
		/* The wait ends when prod moves past the position the take saw. */
		w.watch64 = &r->cons.ctl->prod;
		rc = client_wait_db(c, c->evt, &w, left);
		if (rc < 0)
			return rc;
	}
}

/* sdds_reader_take and sdds_reader_take_many: 0 (t->n >= 1) or an error. */
/* Inlined into both callers (see client_take_locked). */
static inline __attribute__((always_inline)) int client_take(struct sdds_reader *r, struct client_take *t,
							     int64_t timeout_ns)
{
	struct sdds_client *c = r->client;
	struct client_ref ref;
	int64_t deadline = -1;
	uint64_t seen;
	bool kick;
	int rc;

	/*
	 * Fast path: one try, not entered (take_lock keeps the connection),
	 * no clock read. Entering, the deadline and the wait are for a take
	 * that found nothing, and for the kick (kick_fd is the connection's).
	 */
	rc = client_take_locked(r, t, &seen, &kick);
	if (__builtin_expect(kick, 0) && client_enter(c, &r->gp, &ref) == 0) {
		c->ops->reader_kick(r);
		client_leave(&ref);
	}
	if (rc > 0)
		return 0;
	if (rc == 0 && timeout_ns == 0)
		return -EAGAIN;
	if (rc < 0 && (rc != -ENOTCONN || timeout_ns == 0 || !c->remote.reconnect_wait))
		return rc;
	/* client_take_once sets the deadline when it first waits. */

	for (;;) {
		rc = client_enter(c, &r->gp, &ref);
		if (rc == 0) {
			rc = client_take_once(r, t, timeout_ns, &deadline);
			client_leave(&ref);
		}
		if (rc == 1)
			return 0;
		if (rc == 0)
			return -EAGAIN;
		if (rc != -ENOTCONN || timeout_ns == 0 || !c->remote.reconnect_wait)
			return rc;
		/* The gap: wait for the new connection within timeout_ns. */
		if (deadline < 0 && timeout_ns > 0)
			deadline = doorbell_now_ns() + timeout_ns;
		if (client_wait_connected(c, deadline) < 0)
			return -ENOTCONN;
	}
}

int sdds_reader_take(sdds_reader *r, void *buf, size_t cap, size_t *ret_len, int64_t timeout_ns)
{
	struct client_take t = {.buf = buf, .stride = cap, .max = 1};
	int rc;

	if (!r || !buf)
		return -EINVAL;
	if (cap < r->topic->sample_size)
		return -EINVAL;
	rc = client_take(r, &t, timeout_ns);
	if (rc == 0 && ret_len)
		*ret_len = t.len;
	return rc;
}

int sdds_reader_take_many(sdds_reader *r, void *buf, size_t stride, size_t max, size_t *ret_n,
			  int64_t timeout_ns)
{
	struct client_take t = {.buf = buf, .stride = stride, .max = max};
	size_t bytes;
	int rc;

	if (!r || !buf || !ret_n || max == 0)
		return -EINVAL;
	if (stride < r->topic->sample_size || __builtin_mul_overflow(stride, max, &bytes))
		return -EINVAL;
	rc = client_take(r, &t, timeout_ns);
	if (rc == 0)
		*ret_n = t.n;
	return rc;
}

int sdds_reader_set_listener(sdds_reader *r, sdds_listener_fn fn, void *arg)
{
	if (!r)
		return -EINVAL;
	return listener_set(r, fn, arg);
}

uint64_t sdds_reader_lost(const sdds_reader *r)
{
	if (!r)
		return 0;
	return atomic_load_explicit(&((struct sdds_reader *)r)->lost, memory_order_relaxed);
}

/* ---------------- errors ---------------- */

const char *sdds_strerror(int err)
{
	const char *s;

	if (err > 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case -ENOTCONN:
		return "the daemon went away";
	case -EACCES:
		return "denied by the daemon's policy";
	case -ETIMEDOUT:
		return "timed out";
	case -EAGAIN:
		return "nothing to take, or no room to write";
	case -EINVAL:
		return "invalid argument or conflicting topic";
	case -EMSGSIZE:
		return "sample of the wrong size";
	case -ENOSPC:
		return "a daemon limit was reached";
	case -EPROTO:
		return "protocol error between client and daemon";
	case -ENOENT:
		return "no daemon socket at that path";
	case -ECONNREFUSED:
		return "no daemon listens on that socket";
	case -ENOMEM:
		return "out of memory";
	default:
		break;
	}
	if (err == INT_MIN)
		return "unknown error";
	/* glibc's table is static and thread-safe, unlike strerror()'s buffer. */
	s = strerrordesc_np(-err);
	return s ? s : "unknown error";
}
