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
 * Disconnection is a one-way flag (client_mark_disconnected). Every wait
 * condition includes it, and setting it wakes every doorbell the client's
 * threads sleep on, so a blocked call returns -ENOTCONN; later calls return
 * -ENOTCONN before they touch anything shared with the dead daemon.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#include "broker.h"
#include "ipc/doorbell.h"

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

static int64_t client_spin_from_env(void)
{
	const char *v = getenv("SDDS_SPIN_NS");
	char *end;
	long long n;

	if (!v || !*v)
		return CLIENT_SPIN_NS_DEFAULT;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || *end || n < 0)
		return CLIENT_SPIN_NS_DEFAULT;
	return n;
}

static bool client_mono_from_env(void)
{
	const char *v = getenv("SDDS_MONOLITHIC");

	return v && (strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "true") == 0);
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
	cl_list_init(&c->topics);
	cl_list_init(&c->writers);
	cl_list_init(&c->readers);
	cl_list_init(&c->listening);
	atomic_init(&c->disconnected, false);
	atomic_init(&c->cb_stop, false);
	c->remote.ctl_fd = -1;
	c->remote.kick_fd = -1;
	c->remote.seg.fd = -1;
	/* Until a transport supplies its own, wake-ups go to a private doorbell. */
	c->evt = &c->local_evt;
	c->spin_ns = opts->spin_ns >= 0 ? opts->spin_ns : client_spin_from_env();
	c->mono = opts->monolithic || client_mono_from_env();

	if (c->mono) {
		c->ops = &mono_ops;
		rc = mono_open(c);
	} else {
		c->ops = &remote_ops;
		rc = remote_open(c, opts);
	}
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
	while (!cl_list_empty(&c->writers))
		client_writer_destroy(cl_container_of(c->writers.next, struct sdds_writer, node), false);
	c->ops->shutdown(c);
	listener_stop(c);

	while (!cl_list_empty(&c->readers))
		client_reader_destroy(cl_container_of(c->readers.next, struct sdds_reader, node), true);
	while (!cl_list_empty(&c->topics)) {
		t = cl_container_of(c->topics.next, struct sdds_topic, node);
		cl_list_del(&t->node);
		c->ops->topic_free(t);
		free(t);
	}
	c->ops->destroy(c);
	client_release(c);
}

uint32_t sdds_client_session_id(const sdds_client *c)
{
	return c ? c->session_id : 0;
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
	 * condition or is counted in `waiters` and gets the bump.
	 */
	doorbell_notify(c->evt);
	if (!c->mono && c->remote.req)
		doorbell_notify(&c->remote.req->space);
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

int client_wait_db(struct sdds_client *c, struct sdds_doorbell *db, struct client_wait *w,
		   int64_t timeout_ns)
{
	int rc;

	w->client = c;
	rc = doorbell_wait(db, client_wait_cond, w, timeout_ns, c->spin_ns,
			   c->mono ? 0 : CLIENT_WAIT_SLICE_NS, c->mono ? NULL : client_wait_abort);
	if (client_gone(c) || rc == -ECANCELED)
		return -ENOTCONN;
	return rc;
}

/* ---------------- topics ---------------- */

static int client_check_desc(const sdds_topic_desc *d)
{
	uint64_t sum = 0;
	size_t i;

	if (!d->name || strnlen(d->name, BROKER_NAME_MAX) >= BROKER_NAME_MAX)
		return -EINVAL;
	if (d->sample_size == 0)
		return -EINVAL;
	if (d->n_fields > BROKER_MAX_FIELDS || (d->n_fields && !d->fields))
		return -EINVAL;
	for (i = 0; i < d->n_fields; i++) {
		const sdds_field *f = &d->fields[i];

		if (!f->name || strnlen(f->name, BROKER_NAME_MAX) >= BROKER_NAME_MAX)
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

int sdds_topic_new(sdds_client *c, const sdds_topic_desc *desc, sdds_topic **ret_topic)
{
	struct sdds_topic *t;
	int rc;

	if (!c || !desc || !ret_topic)
		return -EINVAL;
	rc = client_check_desc(desc);
	if (rc < 0)
		return rc;
	if (client_gone(c))
		return -ENOTCONN;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->client = c;
	t->refs = 1;
	t->user_ref = true;
	t->sample_size = desc->sample_size;
	cl_list_init(&t->node);
	rc = c->ops->topic_new(t, desc);
	if (rc < 0) {
		free(t);
		return rc;
	}
	pthread_mutex_lock(&c->obj_lock);
	cl_list_add(&c->topics, &t->node);
	pthread_mutex_unlock(&c->obj_lock);
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
		cl_list_del(&t->node);
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
	w->reliable = q.reliability == SDDS_RELIABLE;
	w->max_blocking_ms = q.max_blocking_ms;
	cl_list_init(&w->node);
	rc = c->ops->writer_new(w, &q);
	if (rc < 0) {
		free(w);
		return rc;
	}
	client_topic_get(t);
	pthread_mutex_lock(&c->obj_lock);
	cl_list_add(&c->writers, &w->node);
	pthread_mutex_unlock(&c->obj_lock);
	*ret_writer = w;
	return 0;
}

static void client_writer_destroy(struct sdds_writer *w, bool closing)
{
	struct sdds_client *c = w->client;

	pthread_mutex_lock(&c->obj_lock);
	cl_list_del(&w->node);
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
	if (!w || !sample)
		return -EINVAL;
	if (len != w->topic->sample_size)
		return -EMSGSIZE;
	if (client_gone(w->client))
		return -ENOTCONN;
	return w->client->ops->writer_write(w, sample, (uint32_t)len);
}

/* ---------------- readers ---------------- */

int sdds_reader_new(sdds_topic *t, const sdds_qos *qos, sdds_reader **ret_reader)
{
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

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->client = c;
	r->topic = t;
	r->reliable = q.reliability == SDDS_RELIABLE;
	pthread_mutex_init(&r->take_lock, NULL);
	atomic_init(&r->lost, 0);
	cl_list_init(&r->node);
	cl_list_init(&r->cb_node);
	cl_list_init(&r->mono_node);
	rc = c->ops->reader_new(r, &q);
	if (rc < 0) {
		pthread_mutex_destroy(&r->take_lock);
		free(r);
		return rc;
	}
	client_topic_get(t);
	pthread_mutex_lock(&c->obj_lock);
	cl_list_add(&c->readers, &r->node);
	pthread_mutex_unlock(&c->obj_lock);
	*ret_reader = r;
	return 0;
}

static void client_reader_destroy(struct sdds_reader *r, bool closing)
{
	struct sdds_client *c = r->client;

	/* After this no callback for r runs (unless we are inside it). */
	listener_detach(r);
	pthread_mutex_lock(&c->obj_lock);
	cl_list_del(&r->node);
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

int sdds_reader_take(sdds_reader *r, void *buf, size_t cap, size_t *ret_len, int64_t timeout_ns)
{
	struct sdds_client *c;
	struct client_wait w;
	int64_t deadline = 0, left = -1;
	uint32_t len = 0;
	bool kick = false;
	int rc;

	if (!r || !buf)
		return -EINVAL;
	c = r->client;
	if (cap < r->topic->sample_size)
		return -EINVAL;
	if (timeout_ns > 0)
		deadline = doorbell_now_ns() + timeout_ns;

	for (;;) {
		if (client_gone(c))
			return -ENOTCONN;
		pthread_mutex_lock(&r->take_lock);
		/* Only a reliable ring can have a waiting producer: spare best effort the fence. */
		rc = rring_cons_take(&r->cons, buf, cap, &len, NULL, r->reliable ? &kick : NULL);
		if (r->cons.lost != atomic_load_explicit(&r->lost, memory_order_relaxed))
			atomic_store_explicit(&r->lost, r->cons.lost, memory_order_relaxed);
		/* The position the wait compares the producer's prod with. */
		memset(&w, 0, sizeof(w));
		w.watch64 = &r->cons.ctl->prod;
		w.seen64 = r->cons.cons;
		pthread_mutex_unlock(&r->take_lock);

		if (kick)
			c->ops->reader_kick(r);
		if (rc > 0) {
			if (ret_len)
				*ret_len = len;
			return 0;
		}
		if (rc < 0)
			return rc;
		if (timeout_ns == 0)
			return -EAGAIN;
		if (timeout_ns > 0) {
			left = deadline - doorbell_now_ns();
			if (left <= 0)
				return -ETIMEDOUT;
		}
		rc = client_wait_db(c, c->evt, &w, left);
		if (rc < 0)
			return rc;
	}
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
