/* SPDX-License-Identifier: MIT */
/*
 * mono.c - monolithic transport: the broker core inside the application.
 *
 * OVERVIEW
 * One broker per process, shared by every monolithic client (so that two
 * clients of one process talk to each other as they would through sddsd),
 * created by the first and freed by the last. Every broker call happens
 * under mono.lock: the core is single-threaded by contract (broker.h).
 *
 * Reader rings are formatted in process memory (aligned_alloc, owned by the
 * reader) and consumed by the same take/listener code as the segment's rings
 * (client.c, listener.c). The broker's notify callback bumps the reader's
 * client's evt doorbell, a process-local one.
 *
 * Reliable back-pressure: broker_write returns -EAGAIN and names the full
 * reader. The writer announces itself on that ring (rring_prod_wait_space,
 * which re-checks with a full fence), remembers mono.space_gen, drops the
 * lock, and sleeps on the process-wide `space` doorbell until space_gen
 * moves. A take that frees a slot the producer waits for gets "kick" from
 * rring_cons_take and bumps space_gen (reader_kick). Because space_gen is read
 * before the announcement and the consumer checks the announcement after
 * publishing cons (Dekker, fences in ring.c), either the writer's re-check
 * sees the room or the consumer sees the announcement: no lost wake-up.
 * The announcement is withdrawn when the last writer blocked on that ring
 * leaves (n_blocked, under mono.lock); a reader freed meanwhile is found
 * gone by its serial number and wakes the writers itself.
 * After max_blocking_ms the sample goes to the readers with room
 * (broker_write_force: the full reader counts it as dropped), as sddsd does,
 * and the write returns -ETIMEDOUT to say that not every reader got it.
 *
 * Network (mononet.c): the first client may give a daemon-style config
 * (sdds_client_options.net_config, $SDDS_NET_CONFIG); then sddsd's network
 * layer runs on a thread of the process, on this broker, under mono.lock,
 * until the last client leaves. Later clients share it whatever they ask.
 * mono.life serialises the first open and the last close, which start and
 * stop that thread without holding mono.lock (the thread takes it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#include "broker.h"
#include "ipc/doorbell.h"
#include "mononet.h"

#define MONO_MAX_SLOTS (1u << 16)

static struct {
	pthread_mutex_t life; /* first open, last close; taken before lock */
	pthread_mutex_t lock;
	struct broker *broker;		   /* while refs > 0 */
	struct mono_net *net;		   /* the network side, if the first client asked for one */
	unsigned refs;			   /* monolithic clients alive */
	TAILQ_HEAD(, sdds_reader) readers; /* every monolithic reader, for the blocker lookup */
	uint64_t next_serial;
	struct sdds_doorbell space;
	_Atomic uint32_t space_gen;
} mono = {
    .life = PTHREAD_MUTEX_INITIALIZER,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .readers = TAILQ_HEAD_INITIALIZER(mono.readers),
};

int mono_open(struct sdds_client *c, const char *net_config)
{
	struct broker_limits limits;
	struct mono_net *net = NULL;
	int rc = 0;

	pthread_mutex_lock(&mono.life);
	/* refs and broker change only under life too: stable here. */
	if (mono.refs == 0) {
		broker_limits_init(&limits);
		pthread_mutex_lock(&mono.lock);
		rc = broker_new(&limits, &mono.broker);
		pthread_mutex_unlock(&mono.lock);
		if (rc == 0 && net_config != NULL && net_config[0] != '\0') {
			rc = mononet_start(mono.broker, &mono.lock, net_config, &net);
			if (rc < 0) {
				pthread_mutex_lock(&mono.lock);
				broker_free(mono.broker);
				mono.broker = NULL;
				pthread_mutex_unlock(&mono.lock);
			}
		}
	}
	if (rc == 0) {
		pthread_mutex_lock(&mono.lock);
		if (mono.refs++ == 0)
			mono.net = net;
		pthread_mutex_unlock(&mono.lock);
	}
	pthread_mutex_unlock(&mono.life);
	if (rc < 0)
		return rc;
	c->session_id = 0;
	c->evt = &c->local_evt;
	return 0;
}

static void mono_space_wake(void)
{
	atomic_fetch_add(&mono.space_gen, 1);
	doorbell_notify(&mono.space);
}

static void mono_shutdown(struct sdds_client *c)
{
	client_mark_disconnected(c);
	/* A writer of this client blocked on another client's reader leaves too. */
	mono_space_wake();
}

static void mono_closing(struct sdds_client *c)
{
	/* Nothing reconnects in-process. */
	(void)c;
}

static void mono_destroy(struct sdds_client *c)
{
	struct mono_net *net = NULL;
	bool last;

	(void)c;
	pthread_mutex_lock(&mono.life);
	pthread_mutex_lock(&mono.lock);
	last = --mono.refs == 0;
	if (last) {
		net = mono.net;
		mono.net = NULL;
	}
	pthread_mutex_unlock(&mono.lock);
	if (last) {
		/* The network thread takes mono.lock: stopped without holding it. */
		mononet_stop(net);
		pthread_mutex_lock(&mono.lock);
		broker_free(mono.broker);
		mono.broker = NULL;
		pthread_mutex_unlock(&mono.lock);
	}
	pthread_mutex_unlock(&mono.life);
}

/* ---------------- topics ---------------- */

static int mono_topic_new(struct sdds_topic *t, const sdds_topic_desc *desc)
{
	struct broker_topic_desc *bd;
	size_t i;
	int rc;

	/* About 5 KiB: not for the stack of an application thread. */
	bd = calloc(1, sizeof(*bd));
	if (!bd)
		return -ENOMEM;
	bd->domain = desc->domain;
	bd->topic_id = desc->id;
	/* Lengths were checked by client_check_desc. */
	strcpy(bd->name, desc->name);
	bd->sample_size = desc->sample_size;
	bd->n_fields = (uint32_t)desc->n_fields;
	for (i = 0; i < desc->n_fields; i++) {
		bd->fields[i].type = (uint8_t)desc->fields[i].type;
		bd->fields[i].size = desc->fields[i].size;
		strcpy(bd->fields[i].name, desc->fields[i].name);
	}
	pthread_mutex_lock(&mono.lock);
	rc = broker_topic_get(mono.broker, bd, &t->bt);
	pthread_mutex_unlock(&mono.lock);
	free(bd);
	return rc;
}

static void mono_topic_free(struct sdds_topic *t)
{
	pthread_mutex_lock(&mono.lock);
	broker_topic_put(t->bt);
	pthread_mutex_unlock(&mono.lock);
	t->bt = NULL;
}

static void mono_qos(const sdds_qos *in, struct broker_qos *out)
{
	memset(out, 0, sizeof(*out));
	out->reliability = in->reliability == SDDS_RELIABLE ? BROKER_RELIABLE : BROKER_BEST_EFFORT;
	out->history_depth = in->history_depth;
	out->max_blocking_ms = in->max_blocking_ms;
}

/* ---------------- writers ---------------- */

static int mono_writer_new(struct sdds_writer *w, const sdds_qos *qos)
{
	struct broker_qos bq;
	int rc;

	mono_qos(qos, &bq);
	pthread_mutex_lock(&mono.lock);
	rc = broker_writer_new(mono.broker, w->topic->bt, &bq, 0, &w->bw);
	pthread_mutex_unlock(&mono.lock);
	return rc;
}

static void mono_writer_free(struct sdds_writer *w, bool closing)
{
	(void)closing;
	pthread_mutex_lock(&mono.lock);
	broker_writer_free(w->bw);
	pthread_mutex_unlock(&mono.lock);
	w->bw = NULL;
}

/* Under mono.lock. */
static struct sdds_reader *mono_reader_by_broker(const struct broker_reader *br)
{
	struct sdds_reader *r;

	TAILQ_FOREACH(r, &mono.readers, mono_node)
	{
		if (r->br == br)
			return r;
	}
	return NULL;
}

/* Under mono.lock. */
static struct sdds_reader *mono_reader_by_serial(uint64_t serial)
{
	struct sdds_reader *r;

	TAILQ_FOREACH(r, &mono.readers, mono_node)
	{
		if (r->serial == serial)
			return r;
	}
	return NULL;
}

static int mono_writer_write(struct sdds_writer *w, const void *sample, uint32_t len)
{
	struct sdds_client *c = w->client;
	struct broker_reader *blocker;
	struct sdds_reader *full;
	struct client_wait wait;
	int64_t deadline = 0, left;
	uint64_t serial;
	struct client_ref ref;
	int rc;

	/* Called not entered (client.c); here nothing shortcuts the broker lock. */
	rc = client_enter(c, &c->gp, &ref);
	if (rc < 0)
		return rc;
	pthread_mutex_lock(&mono.lock);
	for (;;) {
		blocker = NULL;
		rc = broker_write(w->bw, sample, len, 0, &blocker);
		if (rc != -EAGAIN || w->max_blocking_ms == 0)
			break;
		if (deadline == 0)
			deadline = doorbell_now_ns() + (int64_t)w->max_blocking_ms * 1000000;
		left = deadline - doorbell_now_ns();
		if (left <= 0) {
			/* As sddsd does: the readers with room get it, the full one misses it. */
			rc = broker_write_force(w->bw, sample, len, 0, NULL);
			if (rc == 0) {
				broker_flush(mono.broker);
				rc = -ETIMEDOUT;
			}
			break;
		}
		full = blocker ? mono_reader_by_broker(blocker) : NULL;
		if (!full) {
			rc = -EPROTO; /* the core named no reader we know: a bug */
			break;
		}
		memset(&wait, 0, sizeof(wait));
		wait.watch32 = &mono.space_gen;
		wait.seen32 = atomic_load(&mono.space_gen);
		if (rring_prod_wait_space(broker_reader_ring(full->br))) {
			if (full->n_blocked == 0)
				rring_prod_stop_wait_space(broker_reader_ring(full->br));
			continue;
		}
		full->n_blocked++;
		serial = full->serial;
		pthread_mutex_unlock(&mono.lock);

		rc = client_wait_db(c, &mono.space, &wait, left);

		pthread_mutex_lock(&mono.lock);
		full = mono_reader_by_serial(serial);
		if (full && --full->n_blocked == 0)
			rring_prod_stop_wait_space(broker_reader_ring(full->br));
		if (rc == -ENOTCONN)
			break;
		/* On -ETIMEDOUT try once more: the room may have come with the deadline. */
	}
	if (rc == 0)
		broker_flush(mono.broker);
	pthread_mutex_unlock(&mono.lock);
	client_leave(&ref);
	return rc;
}

/* ---------------- readers ---------------- */

/* broker_flush, under mono.lock: samples arrived for r. */
static void mono_notify(struct broker_reader *br, void *owner)
{
	struct sdds_reader *r = owner;

	(void)br;
	doorbell_notify(r->client->evt);
}

static int mono_reader_new(struct sdds_reader *r, const sdds_qos *qos)
{
	struct broker_qos bq;
	struct rring_prod prod;
	uint32_t cap = 1, slot;
	size_t size;
	int rc;

	if (qos->history_depth > MONO_MAX_SLOTS)
		return -ENOSPC;
	while (cap < qos->history_depth)
		cap <<= 1;
	slot = rring_slot_size(r->topic->sample_size);
	size = rring_size(cap, r->topic->sample_size);
	size = (size + SDDS_RRING_ALIGN - 1) & ~(size_t)(SDDS_RRING_ALIGN - 1);
	r->ring_mem = aligned_alloc(SDDS_RRING_ALIGN, size);
	if (!r->ring_mem)
		return -ENOMEM;
	memset(r->ring_mem, 0, size);
	rring_format(r->ring_mem, cap, slot);
	rc = rring_prod_init(&prod, r->ring_mem, cap, slot);
	if (rc < 0)
		goto fail_free;
	rc = rring_cons_init(&r->cons, r->ring_mem, cap, slot);
	if (rc < 0)
		goto fail_free;

	mono_qos(qos, &bq);
	pthread_mutex_lock(&mono.lock);
	rc = broker_reader_new(mono.broker, r->topic->bt, &bq, 0, &prod, mono_notify, r, &r->br);
	if (rc == 0) {
		r->serial = ++mono.next_serial;
		TAILQ_INSERT_TAIL(&mono.readers, r, mono_node);
	}
	pthread_mutex_unlock(&mono.lock);
	if (rc < 0)
		goto fail_free;
	return 0;

fail_free:
	free(r->ring_mem);
	r->ring_mem = NULL;
	return rc;
}

static void mono_reader_free(struct sdds_reader *r, bool closing)
{
	(void)closing;
	pthread_mutex_lock(&mono.lock);
	mononet_reader_gone(mono.net, r->br);
	broker_reader_free(r->br);
	r->br = NULL;
	TAILQ_REMOVE(&mono.readers, r, mono_node);
	/* Writers blocked on this ring retry without it. */
	if (r->n_blocked)
		mono_space_wake();
	pthread_mutex_unlock(&mono.lock);
	free(r->ring_mem);
	r->ring_mem = NULL;
}

static void mono_reader_kick(struct sdds_reader *r)
{
	(void)r;
	mono_space_wake();
	/* The network layer's writer may wait for this room too (its backlog). */
	mononet_kick(mono.net);
}

const struct client_ops mono_ops = {
    .topic_new = mono_topic_new,
    .topic_free = mono_topic_free,
    .writer_new = mono_writer_new,
    .writer_free = mono_writer_free,
    .writer_write = mono_writer_write,
    .reader_new = mono_reader_new,
    .reader_free = mono_reader_free,
    .reader_kick = mono_reader_kick,
    .closing = mono_closing,
    .shutdown = mono_shutdown,
    .destroy = mono_destroy,
};
