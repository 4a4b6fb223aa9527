/* SPDX-License-Identifier: MIT */
/*
 * broker.c - the broker core: topic table, writers, readers, the router.
 *
 * OVERVIEW
 * Objects and ownership:
 *   struct broker owns an open-addressing hash table of topic pointers (sized
 *   once in broker_new for max_topics, so creating a topic never resizes it),
 *   a list of all topics (creation order, for iteration and teardown) and the
 *   dirty list of readers that got samples since the last broker_flush.
 *   A topic owns nothing but its description and its counters; it lists its
 *   readers (one list for reliable, one for best-effort readers) and its
 *   writers. Readers and writers each hold one reference on their topic, as
 *   does every successful broker_topic_get; the topic is unhashed and freed
 *   when the last reference goes.
 *
 * Invariants:
 *   - t->refs == registrations + t->n_readers + t->n_writers, and a topic in
 *     the table has refs >= 1.
 *   - b->n_topics <= max_topics, b->n_endpoints <= max_endpoints; the table
 *     has at least twice as many slots as max_topics, so a probe always
 *     reaches an empty slot.
 *   - A reader is on at most one of: the broker's dirty list or the batch a
 *     running broker_flush walks (r->dirty.next != NULL means "on one"). Both
 *     are doubly linked, so broker_reader_free unlinks in O(1) from either.
 *   - Every reader ring slot holds at least the topic's sample_size payload
 *     bytes (checked in broker_reader_new), so a push never fails on size.
 *
 * The write path (broker_write) allocates nothing and touches only the
 * topic's reader lists: pass 1 proves room in every reliable ring, pass 2
 * copies the sample into every ring. Pass 1 trusts the producer's cached
 * view of cons (rring_prod.cons_seen, the last validated value) while that
 * view shows room: an honest consumer only ever moves cons forward, so the
 * cached view never overstates the backlog. Only when it shows a full ring
 * does pass 1 read the client's cons (rring_prod_backlog), which also
 * validates it. So a reliable reader's cache line is read once per ring-full
 * of samples, not once per sample, and a corrupted cons is reported
 * (-EPROTO) at the latest when its ring looks full. Because pass 1 proved
 * room and room only grows, pass 2 pushes with overwrite semantics and
 * cannot fail: the write is all-or-nothing. A client that moves its cons
 * backwards meanwhile can only overwrite its own unread samples.
 *
 * broker_write_many routes a run of samples of one writer: the same two
 * passes per sample (pass 1 skipped when the cached views show room for the
 * whole run), with each reader ring's prod published once at the end of the
 * run instead of once per sample; every caller of a write publishes before
 * it returns, so a notify (broker_flush) never precedes the publish.
 *
 * Threads: none. The caller serialises every call (daemon loop, or the
 * client library's mutex in monolithic mode). Nothing here logs.
 */
#include "broker.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "control.pb-c.h"
#include "ipc/probes.h"

#define BROKER_DEFAULT_MAX_TOPICS 1024u
#define BROKER_DEFAULT_MAX_ENDPOINTS 16384u
#define BROKER_DEFAULT_MAX_SAMPLE 4096u
/* Bounds the table allocation a configuration can ask for (2^21 slots). */
#define BROKER_MAX_TOPICS_LIMIT (1u << 20)

#define broker_container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* An intrusive doubly linked list node; a head is a node pointing at itself. */
struct blink {
	struct blink *prev;
	struct blink *next;
};

static void blink_head_init(struct blink *h)
{
	h->prev = h;
	h->next = h;
}

static bool blink_empty(const struct blink *h)
{
	return h->next == h;
}

static bool blink_linked(const struct blink *n)
{
	return n->next != NULL;
}

static void blink_add_tail(struct blink *h, struct blink *n)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

/* Unlink and mark unlinked, so blink_linked() answers false afterwards. */
static void blink_del(struct blink *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->prev = NULL;
	n->next = NULL;
}

struct broker {
	struct broker_limits lim;
	struct broker_topic **tab; /* tab_mask + 1 slots, NULL = empty */
	uint32_t tab_mask;
	uint32_t tab_shift; /* 32 - log2(slots), for the multiplicative hash */
	uint32_t n_topics;
	uint32_t n_endpoints;
	struct blink topics; /* every topic, creation order */
	struct blink dirty;  /* readers delivered to since the last flush */
};

void broker_usage(const struct broker *b, struct broker_usage *ret)
{
	ret->topics = b->n_topics;
	ret->endpoints = b->n_endpoints;
}

struct broker_topic {
	struct broker *b;
	uint32_t key; /* domain << 16 | topic_id */
	uint32_t refs;
	uint32_t n_readers;
	uint32_t n_writers;
	struct blink reliable;	  /* readers with BROKER_RELIABLE */
	struct blink best_effort; /* readers with BROKER_BEST_EFFORT */
	struct blink writers;
	struct blink node; /* in b->topics */
	struct broker_counters counters;
	struct broker_topic_desc desc;
};

struct broker_writer {
	struct broker_topic *topic;
	struct blink node; /* in topic->writers */
	uint32_t owner_id;
	struct broker_qos qos;
	struct broker_counters counters;
};

struct broker_reader {
	struct blink node;  /* in topic->reliable or topic->best_effort */
	struct blink dirty; /* in b->dirty or a flush batch, else unlinked */
	struct rring_prod ring;
	uint32_t owner_id;
	bool reliable;
	bool full; /* scratch of one broker_write: pass 1 found no room */
	broker_notify_fn notify;
	void *owner;
	struct broker_topic *topic;
	struct broker_qos qos;
	struct broker_counters counters;
};

void broker_limits_init(struct broker_limits *l)
{
	l->max_topics = BROKER_DEFAULT_MAX_TOPICS;
	l->max_endpoints = BROKER_DEFAULT_MAX_ENDPOINTS;
	l->max_sample = BROKER_DEFAULT_MAX_SAMPLE;
}

/* ---------------------------------------------------------------- topics */

static uint32_t topic_key(uint16_t domain, uint16_t topic_id)
{
	return (uint32_t)domain << 16 | topic_id;
}

/* Fibonacci hashing: the top bits of key * 2^32/phi spread sequential ids. */
static uint32_t topic_home(const struct broker *b, uint32_t key)
{
	return (uint32_t)(key * 2654435769u) >> b->tab_shift;
}

/* Slot holding key, or the empty slot where it would go. */
static uint32_t topic_slot(const struct broker *b, uint32_t key)
{
	uint32_t i = topic_home(b, key);

	while (b->tab[i] && b->tab[i]->key != key)
		i = (i + 1) & b->tab_mask;
	return i;
}

/*
 * Linear probing without tombstones: after emptying slot i, move back every
 * later entry of the same probe run whose home slot does not lie cyclically
 * in (i, j], so every remaining key is still reachable from its home.
 */
static void topic_unhash(struct broker *b, const struct broker_topic *t)
{
	uint32_t i = topic_slot(b, t->key);
	uint32_t j = i;

	b->tab[i] = NULL;
	for (;;) {
		uint32_t k;

		j = (j + 1) & b->tab_mask;
		if (!b->tab[j])
			return;
		k = topic_home(b, b->tab[j]->key);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		b->tab[i] = b->tab[j];
		b->tab[j] = NULL;
		i = j;
	}
}

static bool field_size_valid(uint8_t type, uint32_t size)
{
	switch (type) {
	case SDDS__CTL__FIELD_TYPE__FIELD_OCTET:
	case SDDS__CTL__FIELD_TYPE__FIELD_CHAR:
	case SDDS__CTL__FIELD_TYPE__FIELD_BOOLEAN:
		return size == 1;
	case SDDS__CTL__FIELD_TYPE__FIELD_SHORT:
	case SDDS__CTL__FIELD_TYPE__FIELD_USHORT:
		return size == 2;
	case SDDS__CTL__FIELD_TYPE__FIELD_LONG:
	case SDDS__CTL__FIELD_TYPE__FIELD_ULONG:
		return size == 4;
	case SDDS__CTL__FIELD_TYPE__FIELD_LONGLONG:
	case SDDS__CTL__FIELD_TYPE__FIELD_ULONGLONG:
		return size == 8;
	case SDDS__CTL__FIELD_TYPE__FIELD_STRING:
		return size >= 1; /* K + 1 bytes, K may be 0 */
	case SDDS__CTL__FIELD_TYPE__FIELD_ENUM:
		return size == 1 || size == 2 || size == 4 || size == 8;
	default:
		return false;
	}
}

static int topic_desc_check(const struct broker *b, const struct broker_topic_desc *d)
{
	uint64_t sum = 0;

	if (d->sample_size < 1 || d->n_fields > BROKER_MAX_FIELDS)
		return -EINVAL;
	if (d->sample_size > b->lim.max_sample)
		return -EMSGSIZE;
	if (d->n_fields == 0)
		return 0;
	for (uint32_t i = 0; i < d->n_fields; i++) {
		if (!field_size_valid(d->fields[i].type, d->fields[i].size))
			return -EINVAL;
		sum += d->fields[i].size;
	}
	return sum == d->sample_size ? 0 : -EINVAL;
}

/*
 * Same wire layout: sample_size, and type and size of every field in order.
 * A raw description (no fields) on either side matches any layout of the
 * same size, so raw tools can attach to typed topics.
 */
static bool topic_desc_compatible(const struct broker_topic_desc *have, const struct broker_topic_desc *want)
{
	if (have->sample_size != want->sample_size)
		return false;
	if (have->n_fields == 0 || want->n_fields == 0)
		return true;
	if (have->n_fields != want->n_fields)
		return false;
	for (uint32_t i = 0; i < have->n_fields; i++) {
		if (have->fields[i].type != want->fields[i].type ||
		    have->fields[i].size != want->fields[i].size)
			return false;
	}
	return true;
}

/* Copy a description; names are forced to be NUL-terminated. */
static void topic_desc_copy(struct broker_topic_desc *dst, const struct broker_topic_desc *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->domain = src->domain;
	dst->topic_id = src->topic_id;
	memcpy(dst->name, src->name, BROKER_NAME_MAX - 1);
	dst->sample_size = src->sample_size;
	dst->n_fields = src->n_fields;
	for (uint32_t i = 0; i < src->n_fields; i++) {
		dst->fields[i].type = src->fields[i].type;
		dst->fields[i].size = src->fields[i].size;
		memcpy(dst->fields[i].name, src->fields[i].name, BROKER_NAME_MAX - 1);
	}
}

int broker_topic_get(struct broker *b, const struct broker_topic_desc *desc, struct broker_topic **ret)
{
	struct broker_topic *t;
	uint32_t key, slot;
	int r;

	if (!b || !desc || !ret)
		return -EINVAL;
	r = topic_desc_check(b, desc);
	if (r < 0)
		return r;

	key = topic_key(desc->domain, desc->topic_id);
	slot = topic_slot(b, key);
	t = b->tab[slot];
	if (t) {
		if (!topic_desc_compatible(&t->desc, desc))
			return -EINVAL;
		if (t->refs == UINT32_MAX)
			return -EOVERFLOW;
		/* The first typed registration fixes the layout of a raw topic. */
		if (t->desc.n_fields == 0 && desc->n_fields != 0) {
			struct broker_topic_desc typed;

			topic_desc_copy(&typed, desc);
			memcpy(typed.name, t->desc.name, BROKER_NAME_MAX);
			t->desc = typed;
		}
		t->refs++;
		*ret = t;
		return 0;
	}

	if (b->n_topics >= b->lim.max_topics)
		return -ENOSPC;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->b = b;
	t->key = key;
	t->refs = 1;
	blink_head_init(&t->reliable);
	blink_head_init(&t->best_effort);
	blink_head_init(&t->writers);
	topic_desc_copy(&t->desc, desc);
	b->tab[slot] = t;
	blink_add_tail(&b->topics, &t->node);
	b->n_topics++;
	*ret = t;
	return 0;
}

static void topic_unref(struct broker_topic *t)
{
	struct broker *b = t->b;

	if (--t->refs > 0)
		return;
	topic_unhash(b, t);
	blink_del(&t->node);
	b->n_topics--;
	free(t);
}

void broker_topic_put(struct broker_topic *t)
{
	if (t)
		topic_unref(t);
}

const struct broker_topic_desc *broker_topic_desc(const struct broker_topic *t)
{
	return &t->desc;
}

const struct broker_counters *broker_topic_counters(const struct broker_topic *t)
{
	return &t->counters;
}

uint32_t broker_topic_readers(const struct broker_topic *t)
{
	return t->n_readers;
}

uint32_t broker_topic_writers(const struct broker_topic *t)
{
	return t->n_writers;
}

void broker_foreach_topic(struct broker *b, int (*fn)(struct broker_topic *t, void *arg), void *arg)
{
	struct blink *n, *next;

	if (!b || !fn)
		return;
	/* next is fetched first, so fn may put the topic it was handed. */
	for (n = b->topics.next; n != &b->topics; n = next) {
		next = n->next;
		if (fn(broker_container_of(n, struct broker_topic, node), arg))
			return;
	}
}

/* ------------------------------------------------------------- endpoints */

static int qos_check(const struct broker_qos *qos)
{
	if (qos->reliability != BROKER_BEST_EFFORT && qos->reliability != BROKER_RELIABLE)
		return -EINVAL;
	return 0;
}

/* The topic must belong to b and the endpoint cap must allow one more. */
static int endpoint_admit(const struct broker *b, const struct broker_topic *t)
{
	if (t->b != b)
		return -EINVAL;
	if (b->n_endpoints >= b->lim.max_endpoints)
		return -ENOSPC;
	if (t->refs == UINT32_MAX)
		return -EOVERFLOW;
	return 0;
}

int broker_writer_new(struct broker *b, struct broker_topic *t, const struct broker_qos *qos,
		      uint32_t owner_id, struct broker_writer **ret)
{
	struct broker_writer *w;
	int r;

	if (!b || !t || !qos || !ret)
		return -EINVAL;
	r = qos_check(qos);
	if (r < 0)
		return r;
	r = endpoint_admit(b, t);
	if (r < 0)
		return r;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->topic = t;
	w->owner_id = owner_id;
	w->qos = *qos;
	blink_add_tail(&t->writers, &w->node);
	t->n_writers++;
	t->refs++;
	b->n_endpoints++;
	*ret = w;
	return 0;
}

/* Unlink w and free it; the topic reference is the caller's to drop. */
static void writer_destroy(struct broker_writer *w)
{
	struct broker_topic *t = w->topic;

	blink_del(&w->node);
	t->n_writers--;
	t->b->n_endpoints--;
	free(w);
}

void broker_writer_free(struct broker_writer *w)
{
	struct broker_topic *t;

	if (!w)
		return;
	t = w->topic;
	writer_destroy(w);
	topic_unref(t);
}

int broker_reader_new(struct broker *b, struct broker_topic *t, const struct broker_qos *qos,
		      uint32_t owner_id, const struct rring_prod *ring, broker_notify_fn notify, void *owner,
		      struct broker_reader **ret)
{
	struct broker_reader *rd;
	int r;

	if (!b || !t || !qos || !ring || !ret)
		return -EINVAL;
	r = qos_check(qos);
	if (r < 0)
		return r;
	/* A slot must hold a whole sample: pushes then never fail on size. */
	if (!ring->ctl || !ring->slots || ring->cap == 0 || (ring->cap & (ring->cap - 1)) != 0 ||
	    ring->slot_size < sizeof(struct sdds_rslot) ||
	    ring->slot_size - sizeof(struct sdds_rslot) < t->desc.sample_size)
		return -EINVAL;
	r = endpoint_admit(b, t);
	if (r < 0)
		return r;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -ENOMEM;
	rd->ring = *ring;
	rd->owner_id = owner_id;
	rd->reliable = qos->reliability == BROKER_RELIABLE;
	rd->notify = notify;
	rd->owner = owner;
	rd->topic = t;
	rd->qos = *qos;
	blink_add_tail(rd->reliable ? &t->reliable : &t->best_effort, &rd->node);
	t->n_readers++;
	t->refs++;
	b->n_endpoints++;
	*ret = rd;
	return 0;
}

/* Unlink rd (also from a dirty list or flush batch) and free it. */
static void reader_destroy(struct broker_reader *rd)
{
	struct broker_topic *t = rd->topic;

	if (blink_linked(&rd->dirty))
		blink_del(&rd->dirty);
	blink_del(&rd->node);
	t->n_readers--;
	t->b->n_endpoints--;
	free(rd);
}

void broker_reader_free(struct broker_reader *rd)
{
	struct broker_topic *t;

	if (!rd)
		return;
	t = rd->topic;
	reader_destroy(rd);
	topic_unref(t);
}

/* ---------------------------------------------------------------- router */

/*
 * Pass 1: every reliable reader (but those skipped) must have room. With
 * force, a full reader is marked instead of failing the write. The client's
 * cons is read only when the cached view says full (see OVERVIEW).
 */
static int route_check(struct broker_topic *t, uint32_t skip_owner, bool force,
		       struct broker_reader **ret_blocker)
{
	for (struct blink *n = t->reliable.next; n != &t->reliable; n = n->next) {
		struct broker_reader *rd = broker_container_of(n, struct broker_reader, node);
		int64_t backlog;

		rd->full = false;
		if (skip_owner != 0 && rd->owner_id == skip_owner)
			continue;
		if (rd->ring.prod - rd->ring.cons_seen < rd->ring.cap)
			continue;
		backlog = rring_prod_backlog(&rd->ring);
		if (backlog < 0 || backlog > rd->ring.cap) {
			if (ret_blocker)
				*ret_blocker = rd;
			return -EPROTO;
		}
		if (backlog == rd->ring.cap) {
			if (!force) {
				if (ret_blocker)
					*ret_blocker = rd;
				return -EAGAIN;
			}
			rd->full = true;
		}
	}
	return 0;
}

/*
 * True when every reliable reader (but those skipped) has room for count
 * more samples by the producer's cached view of its cons. That view never
 * overstates the backlog (see OVERVIEW), so count route_checks would all
 * pass without reading a cons; false means "check per sample".
 */
static bool route_room_cached(const struct broker_topic *t, uint32_t skip_owner, uint32_t count)
{
	for (const struct blink *n = t->reliable.next; n != &t->reliable; n = n->next) {
		const struct broker_reader *rd = broker_container_of(n, struct broker_reader, node);

		if (skip_owner != 0 && rd->owner_id == skip_owner)
			continue;
		if (rd->ring.prod - rd->ring.cons_seen + count > rd->ring.cap)
			return false;
	}
	return true;
}

static void route_mark_dirty(struct broker *b, struct broker_reader *rd)
{
	if (rd->notify && !blink_linked(&rd->dirty))
		blink_add_tail(&b->dirty, &rd->dirty);
}

/* Pass 2 over one reader list; adds to *delivered and *dropped. */
/* Inlined: called twice per write, and the call with eight arguments costs more than the loop. */
static inline __attribute__((always_inline)) void route_push(struct broker *b, struct blink *list,
							     const void *data, uint32_t len, uint32_t origin,
							     uint32_t skip_owner, uint64_t *delivered,
							     uint64_t *dropped)
{
	for (struct blink *n = list->next; n != list; n = n->next) {
		struct broker_reader *rd = broker_container_of(n, struct broker_reader, node);
		uint64_t overwritten;
		int r;

		if (skip_owner != 0 && rd->owner_id == skip_owner)
			continue;
		if (rd->full) {
			/* Forced past a full reliable reader: it misses this sample. */
			rd->full = false;
			rd->counters.dropped++;
			(*dropped)++;
			continue;
		}
		overwritten = rd->ring.overwritten;
		/*
		 * Overwrite semantics even for reliable readers: pass 1 proved
		 * room, so this only overwrites if the client broke the protocol
		 * in between, and then only its own unread samples.
		 */
		/* Before the publish: a spinning reader may take the slot before we get back here. */
		SDDS_PROBE4(client_enqueued, rd->owner_id,
			    SDDS_PROBE_TOPIC(rd->topic->desc.domain, rd->topic->desc.topic_id), rd->ring.prod,
			    origin);
		r = rring_prod_write(&rd->ring, data, len, origin, false);
		if (r < 0) {
			/* Unreachable by the slot-size check; keep the count honest. */
			rd->counters.dropped++;
			(*dropped)++;
			continue;
		}
		overwritten = rd->ring.overwritten - overwritten;
		rd->counters.delivered++;
		rd->counters.dropped += overwritten;
		(*delivered)++;
		*dropped += overwritten;
		route_mark_dirty(b, rd);
	}
}

/* Publish prod of every reader ring of a list: once per routed batch. */
static void route_publish(struct blink *list)
{
	for (struct blink *n = list->next; n != list; n = n->next) {
		struct broker_reader *rd = broker_container_of(n, struct broker_reader, node);

		rring_prod_publish(&rd->ring);
	}
}

/*
 * Routes count samples of one writer (sample i at data + i * stride), each
 * with its own pass 1 and pass 2, then publishes every reader ring once.
 */
static int route(struct broker_writer *w, const uint8_t *data, uint32_t stride, uint32_t count, uint32_t len,
		 uint32_t skip_owner, bool force, uint32_t *ret_done, struct broker_reader **ret_blocker)
{
	struct broker_topic *t;
	uint64_t delivered = 0, dropped = 0;
	uint32_t i;
	bool cached;
	int r = 0;

	if (!w || (!data && len != 0 && count != 0))
		return -EINVAL;
	t = w->topic;
	if (len != t->desc.sample_size) {
		w->counters.rejected += count;
		t->counters.rejected += count;
		*ret_done = count;
		return -EINVAL;
	}
	/* Room for the whole batch by the cached views: pass 1 has nothing to prove per sample. */
	cached = count > 1 && route_room_cached(t, skip_owner, count);
	for (i = 0; i < count; i++) {
		const uint8_t *sample = data + (size_t)i * stride;

		if (!cached) {
			r = route_check(t, skip_owner, force, ret_blocker);
			if (r < 0)
				break;
		}
		SDDS_PROBE2(routed, SDDS_PROBE_TOPIC(t->desc.domain, t->desc.topic_id), w->owner_id);
		route_push(t->b, &t->reliable, sample, len, w->owner_id, skip_owner, &delivered, &dropped);
		route_push(t->b, &t->best_effort, sample, len, w->owner_id, skip_owner, &delivered, &dropped);
	}
	if (i > 0) {
		/* After the slots, before any notify (broker_flush) or wait: see rring_prod_publish. */
		route_publish(&t->reliable);
		route_publish(&t->best_effort);
	}
	w->counters.written += i;
	w->counters.delivered += delivered;
	w->counters.dropped += dropped;
	t->counters.written += i;
	t->counters.delivered += delivered;
	t->counters.dropped += dropped;
	*ret_done = i;
	return r;
}

int broker_write(struct broker_writer *w, const void *data, uint32_t len, uint32_t skip_owner,
		 struct broker_reader **ret_blocker)
{
	uint32_t done;

	return route(w, data, 0, 1, len, skip_owner, false, &done, ret_blocker);
}

int broker_write_many(struct broker_writer *w, const void *samples, uint32_t stride, uint32_t count,
		      uint32_t len, uint32_t skip_owner, uint32_t *ret_done,
		      struct broker_reader **ret_blocker)
{
	uint32_t done = 0;
	int r;

	if (!ret_done || (count > 1 && stride < len))
		return -EINVAL;
	r = route(w, samples, stride, count, len, skip_owner, false, &done, ret_blocker);
	if (r == -EINVAL && done == 0 && count != 0)
		return r;
	*ret_done = done;
	return r == -EINVAL ? 0 : r;
}

int broker_write_force(struct broker_writer *w, const void *data, uint32_t len, uint32_t skip_owner,
		       struct broker_reader **ret_blocker)
{
	uint32_t done;

	return route(w, data, 0, 1, len, skip_owner, true, &done, ret_blocker);
}

void broker_flush(struct broker *b)
{
	struct blink batch;

	if (!b || blink_empty(&b->dirty))
		return;
	/*
	 * Move the dirty list to a private batch first: readers dirtied by
	 * a notify callback (it may write) wait for the next flush, so one
	 * flush notifies each reader at most once, and a reader freed by a
	 * callback unlinks itself from the batch.
	 */
	batch.next = b->dirty.next;
	batch.prev = b->dirty.prev;
	batch.next->prev = &batch;
	batch.prev->next = &batch;
	blink_head_init(&b->dirty);

	while (!blink_empty(&batch)) {
		struct broker_reader *rd = broker_container_of(batch.next, struct broker_reader, dirty);

		blink_del(&rd->dirty);
		rd->notify(rd, rd->owner);
	}
}

/* ------------------------------------------------------ broker lifecycle */

int broker_new(const struct broker_limits *limits, struct broker **ret)
{
	struct broker_limits lim;
	struct broker *b;
	uint32_t slots = 16, shift = 28;

	if (!ret)
		return -EINVAL;
	if (limits)
		lim = *limits;
	else
		broker_limits_init(&lim);
	if (lim.max_topics == 0 || lim.max_topics > BROKER_MAX_TOPICS_LIMIT || lim.max_endpoints == 0 ||
	    lim.max_sample == 0)
		return -EINVAL;
	while (slots < 2 * lim.max_topics) {
		slots <<= 1;
		shift--;
	}

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->tab = calloc(slots, sizeof(*b->tab));
	if (!b->tab) {
		free(b);
		return -ENOMEM;
	}
	b->lim = lim;
	b->tab_mask = slots - 1;
	b->tab_shift = shift;
	blink_head_init(&b->topics);
	blink_head_init(&b->dirty);
	*ret = b;
	return 0;
}

void broker_free(struct broker *b)
{
	struct blink *n, *next;

	if (!b)
		return;
	for (n = b->topics.next; n != &b->topics; n = next) {
		struct broker_topic *t = broker_container_of(n, struct broker_topic, node);

		next = n->next;
		while (!blink_empty(&t->reliable))
			reader_destroy(broker_container_of(t->reliable.next, struct broker_reader, node));
		while (!blink_empty(&t->best_effort))
			reader_destroy(broker_container_of(t->best_effort.next, struct broker_reader, node));
		while (!blink_empty(&t->writers))
			writer_destroy(broker_container_of(t->writers.next, struct broker_writer, node));
		free(t);
	}
	free(b->tab);
	free(b);
}

/* ------------------------------------------------------------- accessors */

const struct broker_counters *broker_writer_counters(const struct broker_writer *w)
{
	return &w->counters;
}

const struct broker_counters *broker_reader_counters(const struct broker_reader *r)
{
	return &r->counters;
}

struct broker_topic *broker_writer_topic(const struct broker_writer *w)
{
	return w->topic;
}

struct broker_topic *broker_reader_topic(const struct broker_reader *r)
{
	return r->topic;
}

const struct broker_qos *broker_reader_qos(const struct broker_reader *r)
{
	return &r->qos;
}

const struct broker_qos *broker_writer_qos(const struct broker_writer *w)
{
	return &w->qos;
}

uint32_t broker_reader_owner(const struct broker_reader *r)
{
	return r->owner_id;
}

uint32_t broker_writer_owner(const struct broker_writer *w)
{
	return w->owner_id;
}

struct rring_prod *broker_reader_ring(struct broker_reader *r)
{
	return &r->ring;
}
