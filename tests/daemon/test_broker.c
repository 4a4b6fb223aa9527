/* SPDX-License-Identifier: MIT */
/*
 * test_broker.c - unit tests of the broker core (daemon/core/broker.c).
 *
 * OVERVIEW
 * Reader rings live in heap memory formatted with rring_format; the test
 * plays the client with an rring_cons on the same memory, so what a reader
 * "got" is what rring_cons_take returns, not what the broker says it did.
 * Every test frees what it made; under ASan, LeakSanitizer reports any
 * broker object that outlived its last holder, and use-after-free of a
 * reader on the dirty list is caught at once.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "broker.h"
#include "control.pb-c.h"

#define SAMPLE 8u /* sample_size of the test topics unless said otherwise */

/* ------------------------------------------------------------ fixtures */

/* One reader ring plus the client's view of it and its notify record. */
struct tring {
	void *mem;
	struct sdds_rring_ctl *ctl;
	struct rring_prod prod;
	struct rring_cons cons;
	struct broker_reader *reader;
	unsigned notified; /* broker_flush calls for this reader */
};

static void tring_init(struct tring *tr, uint32_t cap, uint32_t max_payload)
{
	uint32_t slot = rring_slot_size(max_payload);
	size_t size = rring_size(cap, max_payload);

	memset(tr, 0, sizeof(*tr));
	size = (size + SDDS_RRING_ALIGN - 1) / SDDS_RRING_ALIGN * SDDS_RRING_ALIGN;
	tr->mem = aligned_alloc(SDDS_RRING_ALIGN, size);
	assert_non_null(tr->mem);
	memset(tr->mem, 0xa5, size); /* formatting must not rely on zeroed memory */
	tr->ctl = tr->mem;
	rring_format(tr->ctl, cap, slot);
	assert_int_equal(rring_prod_init(&tr->prod, tr->ctl, cap, slot), 0);
	assert_int_equal(rring_cons_init(&tr->cons, tr->ctl, cap, slot), 0);
}

static void tring_fini(struct tring *tr)
{
	free(tr->mem);
	tr->mem = NULL;
}

static void tring_notify(struct broker_reader *r, void *owner)
{
	struct tring *tr = owner;

	assert_ptr_equal(r, tr->reader);
	tr->notified++;
}

static struct broker_reader *tring_attach(struct tring *tr, struct broker *b, struct broker_topic *t,
					  enum broker_reliability rel, uint32_t owner_id)
{
	struct broker_qos qos = {.reliability = rel, .history_depth = tr->prod.cap};

	assert_int_equal(broker_reader_new(b, t, &qos, owner_id, &tr->prod, tring_notify, tr, &tr->reader),
			 0);
	return tr->reader;
}

/* Take one sample; returns 1 or 0 (empty). */
static int tring_take(struct tring *tr, void *buf, uint32_t *ret_origin)
{
	uint32_t len = 0, origin = 0;
	int r = rring_cons_take(&tr->cons, buf, SAMPLE, &len, &origin, NULL);

	assert_true(r == 0 || r == 1);
	if (r == 1) {
		assert_int_equal(len, SAMPLE);
		if (ret_origin)
			*ret_origin = origin;
	}
	return r;
}

/* Take one sample and check it is the counter value `want`. */
static void tring_expect(struct tring *tr, uint64_t want, uint32_t want_origin)
{
	uint64_t got = 0;
	uint32_t origin = 0;

	assert_int_equal(tring_take(tr, &got, &origin), 1);
	assert_int_equal(got, want);
	assert_int_equal(origin, want_origin);
}

static void tring_expect_empty(struct tring *tr)
{
	uint64_t got;

	assert_int_equal(tring_take(tr, &got, NULL), 0);
}

static struct broker_topic_desc raw_desc(uint16_t domain, uint16_t id, uint32_t size)
{
	struct broker_topic_desc d;

	memset(&d, 0, sizeof(d));
	d.domain = domain;
	d.topic_id = id;
	snprintf(d.name, sizeof(d.name), "t%u.%u", domain, id);
	d.sample_size = size;
	return d;
}

static void add_field(struct broker_topic_desc *d, uint8_t type, uint32_t size, const char *name)
{
	struct broker_field *f = &d->fields[d->n_fields++];

	f->type = type;
	f->size = size;
	snprintf(f->name, sizeof(f->name), "%s", name);
}

/* A typed topic: ulong + ushort + char[1]+NUL = 4 + 2 + 2 = 8 bytes. */
static struct broker_topic_desc typed_desc(uint16_t domain, uint16_t id)
{
	struct broker_topic_desc d = raw_desc(domain, id, SAMPLE);

	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_ULONG, 4, "id");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_USHORT, 2, "value");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_STRING, 2, "tag");
	return d;
}

static struct broker *new_broker(uint32_t max_topics, uint32_t max_endpoints)
{
	struct broker_limits lim;
	struct broker *b = NULL;

	broker_limits_init(&lim);
	if (max_topics)
		lim.max_topics = max_topics;
	if (max_endpoints)
		lim.max_endpoints = max_endpoints;
	assert_int_equal(broker_new(&lim, &b), 0);
	assert_non_null(b);
	return b;
}

static struct broker_topic *get_topic(struct broker *b, uint16_t domain, uint16_t id)
{
	struct broker_topic_desc d = raw_desc(domain, id, SAMPLE);
	struct broker_topic *t = NULL;

	assert_int_equal(broker_topic_get(b, &d, &t), 0);
	assert_non_null(t);
	return t;
}

static struct broker_writer *new_writer(struct broker *b, struct broker_topic *t, uint32_t owner_id)
{
	struct broker_qos qos = {.reliability = BROKER_RELIABLE, .max_blocking_ms = 100};
	struct broker_writer *w = NULL;

	assert_int_equal(broker_writer_new(b, t, &qos, owner_id, &w), 0);
	return w;
}

static int write_u64(struct broker_writer *w, uint64_t v, uint32_t skip_owner, struct broker_reader **blocker)
{
	return broker_write(w, &v, sizeof(v), skip_owner, blocker);
}

static int count_cb(struct broker_topic *t, void *arg)
{
	(void)t;
	(*(unsigned *)arg)++;
	return 0;
}

static unsigned count_topics(struct broker *b)
{
	unsigned n = 0;

	broker_foreach_topic(b, count_cb, &n);
	return n;
}

static void assert_counters(const struct broker_counters *c, uint64_t written, uint64_t delivered,
			    uint64_t dropped, uint64_t rejected)
{
	assert_int_equal(c->written, written);
	assert_int_equal(c->delivered, delivered);
	assert_int_equal(c->dropped, dropped);
	assert_int_equal(c->rejected, rejected);
}

/* ------------------------------------------------------------- broker */

static void test_new_limits(void **state)
{
	struct broker_limits lim;
	struct broker *b = NULL;

	(void)state;
	broker_limits_init(&lim);
	assert_int_equal(lim.max_topics, 1024);
	assert_int_equal(lim.max_endpoints, 16384);
	assert_int_equal(lim.max_sample, 4096);

	assert_int_equal(broker_new(NULL, &b), 0);
	assert_non_null(b);
	broker_free(b);

	b = NULL;
	lim.max_topics = 0;
	assert_int_equal(broker_new(&lim, &b), -EINVAL);
	broker_limits_init(&lim);
	lim.max_endpoints = 0;
	assert_int_equal(broker_new(&lim, &b), -EINVAL);
	broker_limits_init(&lim);
	lim.max_sample = 0;
	assert_int_equal(broker_new(&lim, &b), -EINVAL);
	broker_limits_init(&lim);
	lim.max_topics = UINT32_MAX;
	assert_int_equal(broker_new(&lim, &b), -EINVAL);
	assert_null(b); /* out-parameter untouched on failure */

	broker_free(NULL);
	broker_topic_put(NULL);
	broker_writer_free(NULL);
	broker_reader_free(NULL);
	broker_flush(NULL);
}

/* ------------------------------------------------------------- topics */

static void test_topic_find_create(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic_desc d = typed_desc(1, 42);
	struct broker_topic *t1 = NULL, *t2 = NULL, *t3 = NULL, *t4 = NULL;
	const struct broker_topic_desc *got;

	(void)state;
	assert_int_equal(broker_topic_get(b, &d, &t1), 0);
	assert_int_equal(count_topics(b), 1);

	/* Same key, field names differ: the same topic. */
	snprintf(d.fields[0].name, sizeof(d.fields[0].name), "other");
	snprintf(d.name, sizeof(d.name), "renamed");
	assert_int_equal(broker_topic_get(b, &d, &t2), 0);
	assert_ptr_equal(t1, t2);
	assert_int_equal(count_topics(b), 1);

	/* Another domain or another id is another topic. */
	d = typed_desc(2, 42);
	assert_int_equal(broker_topic_get(b, &d, &t3), 0);
	d = typed_desc(1, 43);
	assert_int_equal(broker_topic_get(b, &d, &t4), 0);
	assert_ptr_not_equal(t3, t1);
	assert_ptr_not_equal(t4, t1);
	assert_ptr_not_equal(t4, t3);
	assert_int_equal(count_topics(b), 3);

	/* The description was copied from the first registration. */
	got = broker_topic_desc(t1);
	assert_int_equal(got->domain, 1);
	assert_int_equal(got->topic_id, 42);
	assert_string_equal(got->name, "t1.42");
	assert_int_equal(got->sample_size, SAMPLE);
	assert_int_equal(got->n_fields, 3);
	assert_string_equal(got->fields[0].name, "id");
	assert_int_equal(got->fields[2].type, SDDS__CTL__FIELD_TYPE__FIELD_STRING);
	assert_int_equal(broker_topic_readers(t1), 0);
	assert_int_equal(broker_topic_writers(t1), 0);

	broker_topic_put(t1);
	broker_topic_put(t2);
	broker_topic_put(t3);
	broker_topic_put(t4);
	assert_int_equal(count_topics(b), 0);
	broker_free(b);
}

static void test_topic_name_terminated(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic_desc d = typed_desc(1, 1);
	struct broker_topic *t = NULL;

	(void)state;
	memset(d.name, 'x', sizeof(d.name)); /* no NUL at all */
	memset(d.fields[1].name, 'y', sizeof(d.fields[1].name));
	assert_int_equal(broker_topic_get(b, &d, &t), 0);
	assert_int_equal(strlen(broker_topic_desc(t)->name), BROKER_NAME_MAX - 1);
	assert_int_equal(strlen(broker_topic_desc(t)->fields[1].name), BROKER_NAME_MAX - 1);
	broker_topic_put(t);
	broker_free(b);
}

static void test_topic_invalid(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic_desc d;
	struct broker_topic *t = NULL;

	(void)state;
	d = raw_desc(1, 1, 0);
	assert_int_equal(broker_topic_get(b, &d, &t), -EINVAL);
	d = raw_desc(1, 1, 4097);
	assert_int_equal(broker_topic_get(b, &d, &t), -EMSGSIZE);
	d = raw_desc(1, 1, 4096);
	d.n_fields = BROKER_MAX_FIELDS + 1;
	assert_int_equal(broker_topic_get(b, &d, &t), -EINVAL);

	/* Field sizes must add up to sample_size. */
	d = typed_desc(1, 1);
	d.sample_size = SAMPLE + 1;
	assert_int_equal(broker_topic_get(b, &d, &t), -EINVAL);
	d = typed_desc(1, 1);
	d.sample_size = SAMPLE - 1;
	assert_int_equal(broker_topic_get(b, &d, &t), -EINVAL);

	/* Unknown type, and a size that is not the type's wire size. */
	d = typed_desc(1, 1);
	d.fields[0].type = SDDS__CTL__FIELD_TYPE__FIELD_INVALID;
	assert_int_equal(broker_topic_get(b, &d, &t), -EINVAL);
	d.fields[0].type = 200;
	assert_int_equal(broker_topic_get(b, &d, &t), -EINVAL);
	d = raw_desc(1, 1, 6);
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_LONG, 3, "a");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_OCTET, 3, "b");
	assert_int_equal(broker_topic_get(b, &d, &t), -EINVAL);
	d = raw_desc(1, 1, 3);
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_ENUM, 3, "e");
	assert_int_equal(broker_topic_get(b, &d, &t), -EINVAL);
	d = raw_desc(1, 1, 1);
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_STRING, 0, "s");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_OCTET, 1, "o");
	assert_int_equal(broker_topic_get(b, &d, &t), -EINVAL);

	/* Every type at its wire size is accepted. */
	d = raw_desc(1, 1, 0);
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_OCTET, 1, "a");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_CHAR, 1, "b");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_BOOLEAN, 1, "c");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_SHORT, 2, "d");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_USHORT, 2, "e");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_LONG, 4, "f");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_ULONG, 4, "g");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_LONGLONG, 8, "h");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_ULONGLONG, 8, "i");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_STRING, 17, "j");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_ENUM, 2, "k");
	d.sample_size = 1 + 1 + 1 + 2 + 2 + 4 + 4 + 8 + 8 + 17 + 2;
	assert_null(t);
	assert_int_equal(count_topics(b), 0); /* no failed call created one */
	assert_int_equal(broker_topic_get(b, &d, &t), 0);
	broker_topic_put(t);

	assert_int_equal(broker_topic_get(NULL, &d, &t), -EINVAL);
	assert_int_equal(broker_topic_get(b, NULL, &t), -EINVAL);
	assert_int_equal(broker_topic_get(b, &d, NULL), -EINVAL);
	broker_free(b);
}

static void test_topic_mismatch(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic_desc d = typed_desc(3, 7);
	struct broker_topic *t = NULL, *t2 = NULL;

	(void)state;
	assert_int_equal(broker_topic_get(b, &d, &t), 0);

	/* Another sample_size. */
	d = raw_desc(3, 7, SAMPLE + 4);
	assert_int_equal(broker_topic_get(b, &d, &t2), -EINVAL);
	/* Same size, another type at the same place. */
	d = typed_desc(3, 7);
	d.fields[0].type = SDDS__CTL__FIELD_TYPE__FIELD_LONG;
	assert_int_equal(broker_topic_get(b, &d, &t2), -EINVAL);
	/* Same size, sizes moved between fields. */
	d = raw_desc(3, 7, SAMPLE);
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_ULONG, 4, "id");
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_STRING, 4, "tag");
	assert_int_equal(broker_topic_get(b, &d, &t2), -EINVAL);
	/* Same size, another field count. */
	d = raw_desc(3, 7, SAMPLE);
	add_field(&d, SDDS__CTL__FIELD_TYPE__FIELD_ULONGLONG, 8, "all");
	assert_int_equal(broker_topic_get(b, &d, &t2), -EINVAL);
	assert_null(t2);

	/* A mismatch took no reference: one put frees the topic. */
	broker_topic_put(t);
	assert_int_equal(count_topics(b), 0);
	assert_int_equal(broker_topic_get(b, &d, &t2), 0); /* the key is free again */
	broker_topic_put(t2);
	broker_free(b);
}

static void test_topic_raw_matches_typed(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic_desc raw = raw_desc(1, 5, SAMPLE);
	struct broker_topic_desc typed = typed_desc(1, 5);
	struct broker_topic_desc other = raw_desc(1, 5, SAMPLE);
	struct broker_topic *t1 = NULL, *t2 = NULL, *t3 = NULL, *t4 = NULL;

	(void)state;
	add_field(&other, SDDS__CTL__FIELD_TYPE__FIELD_ULONGLONG, 8, "x");

	assert_int_equal(broker_topic_get(b, &raw, &t1), 0);
	assert_int_equal(broker_topic_desc(t1)->n_fields, 0);
	/* The first typed registration fixes the layout... */
	assert_int_equal(broker_topic_get(b, &typed, &t2), 0);
	assert_ptr_equal(t1, t2);
	assert_int_equal(broker_topic_desc(t1)->n_fields, 3);
	assert_string_equal(broker_topic_desc(t1)->name, "t1.5");
	/* ...after which another layout is refused and raw still fits. */
	assert_int_equal(broker_topic_get(b, &other, &t3), -EINVAL);
	assert_int_equal(broker_topic_get(b, &raw, &t3), 0);
	assert_ptr_equal(t1, t3);
	raw.sample_size = SAMPLE + 1;
	assert_int_equal(broker_topic_get(b, &raw, &t4), -EINVAL);

	broker_topic_put(t1);
	broker_topic_put(t2);
	broker_topic_put(t3);
	broker_free(b);
}

static void test_topic_cap(void **state)
{
	struct broker *b = new_broker(4, 0);
	struct broker_topic *t[5] = {NULL};
	struct broker_topic *again = NULL;
	struct broker_topic_desc d;

	(void)state;
	for (int i = 0; i < 4; i++)
		t[i] = get_topic(b, 0, (uint16_t)i);
	d = raw_desc(0, 4, SAMPLE);
	assert_int_equal(broker_topic_get(b, &d, &t[4]), -ENOSPC);
	assert_null(t[4]);
	/* At the cap, existing topics are still found. */
	d = raw_desc(0, 2, SAMPLE);
	assert_int_equal(broker_topic_get(b, &d, &again), 0);
	assert_ptr_equal(again, t[2]);
	broker_topic_put(again);

	broker_topic_put(t[1]);
	d = raw_desc(0, 4, SAMPLE);
	assert_int_equal(broker_topic_get(b, &d, &t[4]), 0);
	t[1] = NULL;
	for (int i = 0; i < 5; i++)
		broker_topic_put(t[i]);
	assert_int_equal(count_topics(b), 0);
	broker_free(b);
}

/*
 * Many topics, removed in a scrambled order: after every removal each
 * remaining key must still find its own topic (the table deletes without
 * tombstones), and a new topic may take the freed room.
 */
static void test_topic_table_churn(void **state)
{
	enum { N = 1000 };
	struct broker *b = new_broker(N, 0);
	struct broker_topic **t = calloc(N, sizeof(*t));
	uint32_t *order = calloc(N, sizeof(*order));
	uint16_t *domain = calloc(N, sizeof(*domain));
	uint16_t *id = calloc(N, sizeof(*id));
	uint32_t seed = 12345;

	(void)state;
	assert_non_null(t);
	assert_non_null(order);
	assert_non_null(domain);
	assert_non_null(id);
	/*
	 * Pseudo-random keys: regular ones (id = i * k) hash without a single
	 * collision and would never exercise the probe runs deletion repairs.
	 */
	for (uint32_t i = 0; i < N; i++) {
		struct broker_topic_desc d;

		seed = seed * 1103515245u + 12345u;
		domain[i] = (uint16_t)(seed >> 28);
		seed = seed * 1103515245u + 12345u;
		id[i] = (uint16_t)(seed >> 16);
		d = raw_desc(domain[i], id[i], SAMPLE);
		assert_int_equal(broker_topic_get(b, &d, &t[i]), 0);
		if (count_topics(b) != i + 1) { /* a repeated key: draw again */
			broker_topic_put(t[i]);
			i--;
			continue;
		}
		order[i] = i;
	}
	assert_int_equal(count_topics(b), N);
	for (uint32_t i = N - 1; i > 0; i--) {
		uint32_t j, tmp;

		seed = seed * 1103515245u + 12345u;
		j = (seed >> 8) % (i + 1);
		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (uint32_t k = 0; k < N; k++) {
		broker_topic_put(t[order[k]]);
		t[order[k]] = NULL;
		if (k % 50 != 0)
			continue;
		for (uint32_t i = 0; i < N; i++) {
			struct broker_topic *found;

			if (!t[i])
				continue;
			found = get_topic(b, domain[i], id[i]);
			assert_ptr_equal(found, t[i]);
			broker_topic_put(found);
		}
		assert_int_equal(count_topics(b), N - k - 1);
	}
	assert_int_equal(count_topics(b), 0);
	free(id);
	free(domain);
	free(order);
	free(t);
	broker_free(b);
}

static int stop_after_two(struct broker_topic *t, void *arg)
{
	unsigned *n = arg;

	(void)t;
	return ++*n == 2;
}

static int put_each(struct broker_topic *t, void *arg)
{
	(void)arg;
	broker_topic_put(t);
	return 0;
}

static void test_foreach(void **state)
{
	struct broker *b = new_broker(0, 0);
	unsigned n = 0;

	(void)state;
	for (int i = 0; i < 5; i++)
		get_topic(b, 9, (uint16_t)i);
	broker_foreach_topic(b, stop_after_two, &n);
	assert_int_equal(n, 2);
	/* fn may drop the topic it is handed. */
	broker_foreach_topic(b, put_each, NULL);
	assert_int_equal(count_topics(b), 0);
	broker_free(b);
}

/* --------------------------------------------------------- refcounting */

static void test_refcount(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct tring tr;
	struct broker_topic *t = get_topic(b, 1, 1);
	struct broker_topic_desc d;
	struct broker_writer *w;
	struct broker_topic *t2 = NULL;

	(void)state;
	tring_init(&tr, 4, SAMPLE);
	w = new_writer(b, t, 1);
	tring_attach(&tr, b, t, BROKER_BEST_EFFORT, 2);
	assert_ptr_equal(broker_writer_topic(w), t);
	assert_ptr_equal(broker_reader_topic(tr.reader), t);
	assert_int_equal(broker_topic_readers(t), 1);
	assert_int_equal(broker_topic_writers(t), 1);

	/* The registration goes; writer and reader still hold the topic. */
	broker_topic_put(t);
	assert_int_equal(count_topics(b), 1);
	broker_writer_free(w);
	assert_int_equal(count_topics(b), 1);
	assert_int_equal(broker_topic_readers(t), 1);
	assert_int_equal(broker_topic_writers(t), 0);
	broker_reader_free(tr.reader);
	assert_int_equal(count_topics(b), 0);

	/* Freed for real: the key takes another layout now. */
	d = raw_desc(1, 1, SAMPLE * 2);
	assert_int_equal(broker_topic_get(b, &d, &t2), 0);
	broker_topic_put(t2);
	assert_int_equal(count_topics(b), 0);

	tring_fini(&tr);
	broker_free(b);
}

static void test_endpoint_cap(void **state)
{
	struct broker *b = new_broker(0, 3);
	struct broker_topic *t = get_topic(b, 1, 1);
	struct broker_qos qos = {.reliability = BROKER_BEST_EFFORT};
	struct broker_writer *w1, *w2, *w3 = NULL;
	struct broker_reader *r = NULL;
	struct tring tr;

	(void)state;
	tring_init(&tr, 4, SAMPLE);
	w1 = new_writer(b, t, 1);
	w2 = new_writer(b, t, 1);
	tring_attach(&tr, b, t, BROKER_BEST_EFFORT, 1);
	assert_int_equal(broker_writer_new(b, t, &qos, 1, &w3), -ENOSPC);
	assert_int_equal(broker_reader_new(b, t, &qos, 1, &tr.prod, NULL, NULL, &r), -ENOSPC);
	assert_null(w3);
	assert_null(r);
	broker_writer_free(w1);
	assert_int_equal(broker_writer_new(b, t, &qos, 1, &w3), 0);

	broker_writer_free(w2);
	broker_writer_free(w3);
	broker_reader_free(tr.reader);
	broker_topic_put(t);
	tring_fini(&tr);
	broker_free(b);
}

static void test_endpoint_invalid(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker *other = new_broker(0, 0);
	struct broker_topic *t = get_topic(b, 1, 1);
	struct broker_qos qos = {.reliability = BROKER_BEST_EFFORT};
	struct broker_qos bad_qos = {.reliability = (enum broker_reliability)7};
	struct broker_writer *w = NULL;
	struct broker_reader *r = NULL;
	struct rring_prod small, odd;
	struct tring tr;

	(void)state;
	tring_init(&tr, 4, SAMPLE);
	/* A slot too small for the sample, a cap that is not a power of two. */
	small = tr.prod;
	small.slot_size = (uint32_t)sizeof(struct sdds_rslot); /* no payload room */
	assert_int_equal(broker_reader_new(b, t, &qos, 1, &small, NULL, NULL, &r), -EINVAL);
	odd = tr.prod;
	odd.cap = 3;
	assert_int_equal(broker_reader_new(b, t, &qos, 1, &odd, NULL, NULL, &r), -EINVAL);
	assert_int_equal(broker_reader_new(b, t, &bad_qos, 1, &tr.prod, NULL, NULL, &r), -EINVAL);
	assert_int_equal(broker_reader_new(b, t, &qos, 1, NULL, NULL, NULL, &r), -EINVAL);
	assert_int_equal(broker_writer_new(b, t, &bad_qos, 1, &w), -EINVAL);
	/* A topic of another broker. */
	assert_int_equal(broker_writer_new(other, t, &qos, 1, &w), -EINVAL);
	assert_int_equal(broker_reader_new(other, t, &qos, 1, &tr.prod, NULL, NULL, &r), -EINVAL);
	assert_null(w);
	assert_null(r);
	assert_int_equal(broker_topic_readers(t), 0);
	assert_int_equal(broker_topic_writers(t), 0);

	/* Nothing took a reference: one put frees the topic. */
	broker_topic_put(t);
	assert_int_equal(count_topics(b), 0);
	tring_fini(&tr);
	broker_free(other);
	broker_free(b);
}

/* ------------------------------------------------------------- routing */

static void test_route_several_topics(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic *ta = get_topic(b, 0, 1);
	struct broker_topic *tb = get_topic(b, 0, 2);
	struct broker_writer *wa = new_writer(b, ta, 10);
	struct broker_writer *wb = new_writer(b, tb, 11);
	struct tring ra[3], rb[2];

	(void)state;
	for (int i = 0; i < 3; i++) {
		tring_init(&ra[i], 8, SAMPLE);
		tring_attach(&ra[i], b, ta, i == 1 ? BROKER_RELIABLE : BROKER_BEST_EFFORT,
			     (uint32_t)(20 + i));
	}
	for (int i = 0; i < 2; i++) {
		tring_init(&rb[i], 8, SAMPLE);
		tring_attach(&rb[i], b, tb, i == 0 ? BROKER_RELIABLE : BROKER_BEST_EFFORT,
			     (uint32_t)(30 + i));
	}

	for (uint64_t v = 0; v < 5; v++)
		assert_int_equal(write_u64(wa, 100 + v, 0, NULL), 0);
	assert_int_equal(write_u64(wb, 200, 0, NULL), 0);

	/* Every reader of A has A's samples in order, origin = writer owner. */
	for (int i = 0; i < 3; i++) {
		for (uint64_t v = 0; v < 5; v++)
			tring_expect(&ra[i], 100 + v, 10);
		tring_expect_empty(&ra[i]);
	}
	for (int i = 0; i < 2; i++) {
		tring_expect(&rb[i], 200, 11);
		tring_expect_empty(&rb[i]);
	}

	assert_counters(broker_writer_counters(wa), 5, 15, 0, 0);
	assert_counters(broker_topic_counters(ta), 5, 15, 0, 0);
	assert_counters(broker_writer_counters(wb), 1, 2, 0, 0);
	assert_counters(broker_topic_counters(tb), 1, 2, 0, 0);
	for (int i = 0; i < 3; i++)
		assert_counters(broker_reader_counters(ra[i].reader), 0, 5, 0, 0);

	broker_flush(b);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ra[i].notified, 1);
		broker_reader_free(ra[i].reader);
		tring_fini(&ra[i]);
	}
	for (int i = 0; i < 2; i++) {
		assert_int_equal(rb[i].notified, 1);
		broker_reader_free(rb[i].reader);
		tring_fini(&rb[i]);
	}
	broker_writer_free(wa);
	broker_writer_free(wb);
	broker_topic_put(ta);
	broker_topic_put(tb);
	assert_int_equal(count_topics(b), 0);
	broker_free(b);
}

static void test_route_no_readers(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic *t = get_topic(b, 0, 1);
	struct broker_writer *w = new_writer(b, t, 1);

	(void)state;
	assert_int_equal(write_u64(w, 1, 0, NULL), 0);
	assert_counters(broker_writer_counters(w), 1, 0, 0, 0);
	broker_flush(b);
	broker_writer_free(w);
	broker_topic_put(t);
	broker_free(b);
}

static void test_skip_owner(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic *t = get_topic(b, 0, 1);
	struct broker_writer *w = new_writer(b, t, 7);
	struct tring own, other, own_rel;
	struct broker_reader *blocker = NULL;

	(void)state;
	tring_init(&own, 4, SAMPLE);
	tring_init(&other, 4, SAMPLE);
	tring_init(&own_rel, 2, SAMPLE);
	tring_attach(&own, b, t, BROKER_BEST_EFFORT, 7);
	tring_attach(&other, b, t, BROKER_BEST_EFFORT, 8);
	tring_attach(&own_rel, b, t, BROKER_RELIABLE, 7);

	assert_int_equal(write_u64(w, 1, 7, NULL), 0);
	assert_int_equal(write_u64(w, 2, 0, NULL), 0);
	assert_int_equal(write_u64(w, 3, 0, NULL), 0);
	/* own_rel is full now; a write that skips its owner is not blocked. */
	assert_int_equal(write_u64(w, 4, 0, &blocker), -EAGAIN);
	assert_ptr_equal(blocker, own_rel.reader);
	assert_int_equal(write_u64(w, 5, 7, NULL), 0);

	tring_expect(&own, 2, 7);
	tring_expect(&own, 3, 7);
	tring_expect_empty(&own);
	tring_expect(&own_rel, 2, 7);
	tring_expect(&own_rel, 3, 7);
	tring_expect_empty(&own_rel);
	tring_expect(&other, 1, 7);
	tring_expect(&other, 2, 7);
	tring_expect(&other, 3, 7);
	tring_expect(&other, 5, 7);
	tring_expect_empty(&other);
	assert_int_equal(broker_reader_owner(own.reader), 7);
	assert_int_equal(broker_writer_owner(w), 7);

	broker_reader_free(own.reader);
	broker_reader_free(other.reader);
	broker_reader_free(own_rel.reader);
	broker_writer_free(w);
	broker_topic_put(t);
	broker_free(b);
	tring_fini(&own);
	tring_fini(&other);
	tring_fini(&own_rel);
}

/* ---------------------------------------------------------- reliability */

static void test_reliable_all_or_nothing(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic *t = get_topic(b, 0, 1);
	struct broker_writer *w = new_writer(b, t, 1);
	struct tring rel_a, rel_b, be;
	struct broker_reader *blocker = NULL;
	uint64_t got;

	(void)state;
	tring_init(&rel_a, 4, SAMPLE);
	tring_init(&rel_b, 2, SAMPLE);
	tring_init(&be, 8, SAMPLE);
	tring_attach(&rel_a, b, t, BROKER_RELIABLE, 2);
	tring_attach(&rel_b, b, t, BROKER_RELIABLE, 3);
	tring_attach(&be, b, t, BROKER_BEST_EFFORT, 4);

	assert_int_equal(write_u64(w, 1, 0, NULL), 0);
	assert_int_equal(write_u64(w, 2, 0, NULL), 0);
	/* rel_b (cap 2) is full: nobody gets sample 3, not even best effort. */
	assert_int_equal(write_u64(w, 3, 0, &blocker), -EAGAIN);
	assert_ptr_equal(blocker, rel_b.reader);
	assert_int_equal(write_u64(w, 3, 0, NULL), -EAGAIN); /* NULL blocker is fine */
	assert_counters(broker_writer_counters(w), 2, 6, 0, 0);
	assert_counters(broker_topic_counters(t), 2, 6, 0, 0);
	assert_counters(broker_reader_counters(be.reader), 0, 2, 0, 0);

	tring_expect(&be, 1, 1);
	tring_expect(&be, 2, 1);
	tring_expect_empty(&be);
	tring_expect(&rel_a, 1, 1);

	/* The consumer of rel_b takes one: room for exactly one more. */
	tring_expect(&rel_b, 1, 1);
	assert_int_equal(write_u64(w, 3, 0, &blocker), 0);
	assert_int_equal(write_u64(w, 4, 0, &blocker), -EAGAIN);
	assert_ptr_equal(blocker, rel_b.reader);

	tring_expect(&rel_b, 2, 1);
	tring_expect(&rel_b, 3, 1);
	tring_expect_empty(&rel_b);
	/* rel_a holds 2 and 3 (cap 4): two more fit, the third blocks on rel_a. */
	assert_int_equal(write_u64(w, 4, 0, NULL), 0);
	assert_int_equal(write_u64(w, 5, 0, NULL), 0);
	assert_int_equal(write_u64(w, 6, 0, &blocker), -EAGAIN);
	assert_ptr_equal(blocker, rel_a.reader);
	for (uint64_t v = 2; v <= 5; v++)
		tring_expect(&rel_a, v, 1);
	assert_int_equal(write_u64(w, 6, 0, NULL), -EAGAIN); /* rel_b is full again */
	tring_expect(&rel_b, 4, 1);
	assert_int_equal(write_u64(w, 6, 0, NULL), 0);
	tring_expect(&rel_a, 6, 1);
	tring_expect(&rel_b, 5, 1);
	tring_expect(&rel_b, 6, 1);
	for (uint64_t v = 3; v <= 6; v++)
		tring_expect(&be, v, 1);
	assert_int_equal(tring_take(&be, &got, NULL), 0);

	/* Reliable rings never overwrote anything. */
	assert_int_equal(rel_a.cons.lost, 0);
	assert_int_equal(rel_b.cons.lost, 0);
	assert_counters(broker_writer_counters(w), 6, 18, 0, 0);
	assert_counters(broker_reader_counters(rel_b.reader), 0, 6, 0, 0);
	assert_int_equal(broker_reader_qos(rel_b.reader)->reliability, BROKER_RELIABLE);
	assert_int_equal(broker_writer_qos(w)->max_blocking_ms, 100);

	broker_reader_free(rel_a.reader);
	broker_reader_free(rel_b.reader);
	broker_reader_free(be.reader);
	broker_writer_free(w);
	broker_topic_put(t);
	broker_free(b);
	tring_fini(&rel_a);
	tring_fini(&rel_b);
	tring_fini(&be);
}

/* broker_write_many: in order, stops at the sample a full reliable reader blocks, prod published once. */
static void test_write_many(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic *t = get_topic(b, 0, 1);
	struct broker_writer *w = new_writer(b, t, 1);
	struct tring rel, be;
	struct broker_reader *blocker = NULL;
	uint64_t samples[6];
	uint32_t done = 99;

	(void)state;
	tring_init(&rel, 4, SAMPLE);
	tring_init(&be, 8, SAMPLE);
	tring_attach(&rel, b, t, BROKER_RELIABLE, 2);
	tring_attach(&be, b, t, BROKER_BEST_EFFORT, 3);
	for (uint32_t i = 0; i < 6; i++)
		samples[i] = 100 + i;

	assert_int_equal(broker_write_many(w, samples, 4, 2, SAMPLE, 0, &done, NULL),
			 -EINVAL); /* stride < len */
	assert_int_equal(broker_write_many(w, samples, SAMPLE, 2, SAMPLE, 0, NULL, NULL), -EINVAL);
	assert_int_equal(done, 99);

	/* Room for 4 in the reliable ring: samples 0..3 go, sample 4 blocks. */
	assert_int_equal(broker_write_many(w, samples, SAMPLE, 6, SAMPLE, 0, &done, &blocker), -EAGAIN);
	assert_int_equal(done, 4);
	assert_ptr_equal(blocker, rel.reader);
	assert_int_equal(atomic_load(&rel.ctl->prod), 4);
	assert_int_equal(atomic_load(&be.ctl->prod), 4);
	assert_counters(broker_writer_counters(w), 4, 8, 0, 0);
	broker_flush(b);
	assert_int_equal(rel.notified, 1);
	assert_int_equal(be.notified, 1);
	for (uint64_t v = 100; v < 104; v++) {
		tring_expect(&rel, v, 1);
		tring_expect(&be, v, 1);
	}
	tring_expect_empty(&rel);

	/* The rest, with room again. */
	assert_int_equal(broker_write_many(w, samples + 4, SAMPLE, 2, SAMPLE, 0, &done, &blocker), 0);
	assert_int_equal(done, 2);
	tring_expect(&rel, 104, 1);
	tring_expect(&rel, 105, 1);
	tring_expect(&be, 104, 1);
	tring_expect(&be, 105, 1);

	/* A wrong length rejects the whole batch, as count broker_writes would. */
	assert_int_equal(broker_write_many(w, samples, SAMPLE, 3, SAMPLE - 1, 0, &done, NULL), 0);
	assert_int_equal(done, 3);
	assert_counters(broker_writer_counters(w), 6, 12, 0, 3);
	tring_expect_empty(&rel);
	tring_expect_empty(&be);

	broker_reader_free(rel.reader);
	broker_reader_free(be.reader);
	broker_writer_free(w);
	broker_topic_put(t);
	broker_free(b);
	tring_fini(&rel);
	tring_fini(&be);
}

static void test_write_force(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic *t = get_topic(b, 0, 1);
	struct broker_writer *w = new_writer(b, t, 1);
	struct tring full, roomy, be;
	struct broker_reader *blocker = NULL;

	(void)state;
	tring_init(&full, 2, SAMPLE);
	tring_init(&roomy, 8, SAMPLE);
	tring_init(&be, 8, SAMPLE);
	tring_attach(&full, b, t, BROKER_RELIABLE, 2);
	tring_attach(&roomy, b, t, BROKER_RELIABLE, 3);
	tring_attach(&be, b, t, BROKER_BEST_EFFORT, 4);

	assert_int_equal(write_u64(w, 1, 0, NULL), 0);
	assert_int_equal(write_u64(w, 2, 0, NULL), 0);
	assert_int_equal(write_u64(w, 3, 0, &blocker), -EAGAIN);
	/* The timeout passed: deliver to those with room, drop for the full one. */
	uint64_t v = 3;
	assert_int_equal(broker_write_force(w, &v, sizeof(v), 0, &blocker), 0);
	assert_counters(broker_reader_counters(full.reader), 0, 2, 1, 0);
	assert_counters(broker_reader_counters(roomy.reader), 0, 3, 0, 0);
	assert_counters(broker_writer_counters(w), 3, 8, 1, 0);
	assert_counters(broker_topic_counters(t), 3, 8, 1, 0);

	/* A forced write to a reader that has room is a plain write. */
	tring_expect(&full, 1, 1);
	v = 4;
	assert_int_equal(broker_write_force(w, &v, sizeof(v), 0, NULL), 0);
	tring_expect(&full, 2, 1);
	tring_expect(&full, 4, 1);
	tring_expect_empty(&full);
	for (v = 1; v <= 4; v++) {
		tring_expect(&roomy, v, 1);
		tring_expect(&be, v, 1);
	}
	assert_counters(broker_reader_counters(full.reader), 0, 3, 1, 0);
	/* Length is checked as for broker_write. */
	assert_int_equal(broker_write_force(w, &v, 3, 0, NULL), -EINVAL);
	assert_int_equal(broker_writer_counters(w)->rejected, 1);

	broker_reader_free(full.reader);
	broker_reader_free(roomy.reader);
	broker_reader_free(be.reader);
	broker_writer_free(w);
	broker_topic_put(t);
	broker_free(b);
	tring_fini(&full);
	tring_fini(&roomy);
	tring_fini(&be);
}

static void test_best_effort_overwrite(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic *t = get_topic(b, 0, 1);
	struct broker_writer *w = new_writer(b, t, 5);
	struct tring be, slow;

	(void)state;
	tring_init(&be, 2, SAMPLE);
	tring_init(&slow, 4, SAMPLE);
	tring_attach(&be, b, t, BROKER_BEST_EFFORT, 1);
	tring_attach(&slow, b, t, BROKER_BEST_EFFORT, 2);

	/* Never blocks: 7 samples into rings of 2 and 4 slots. */
	for (uint64_t v = 0; v < 7; v++)
		assert_int_equal(write_u64(w, v, 0, NULL), 0);
	assert_counters(broker_reader_counters(be.reader), 0, 7, 5, 0);
	assert_counters(broker_reader_counters(slow.reader), 0, 7, 3, 0);
	assert_counters(broker_writer_counters(w), 7, 14, 8, 0);
	assert_counters(broker_topic_counters(t), 7, 14, 8, 0);

	/* The client sees the newest samples and counts the same loss. */
	tring_expect(&be, 5, 5);
	tring_expect(&be, 6, 5);
	tring_expect_empty(&be);
	assert_int_equal(be.cons.lost, 5);
	for (uint64_t v = 3; v < 7; v++)
		tring_expect(&slow, v, 5);
	tring_expect_empty(&slow);
	assert_int_equal(slow.cons.lost, 3);

	/* Caught up: no more drops. */
	assert_int_equal(write_u64(w, 7, 0, NULL), 0);
	assert_int_equal(broker_reader_counters(be.reader)->dropped, 5);
	tring_expect(&be, 7, 5);

	broker_reader_free(be.reader);
	broker_reader_free(slow.reader);
	broker_writer_free(w);
	broker_topic_put(t);
	broker_free(b);
	tring_fini(&be);
	tring_fini(&slow);
}

/*
 * Corrupted cons of a reliable reader: -EPROTO naming it, nothing
 * delivered. The broker reads cons when its cached view shows the ring
 * full, so the test fills the ring (cap 2) before each corruption.
 */
static void test_corrupt_cons(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic *t = get_topic(b, 0, 1);
	struct broker_writer *w = new_writer(b, t, 1);
	struct tring good, bad, be;
	struct broker_reader *blocker = NULL;
	uint64_t v;

	(void)state;
	tring_init(&good, 8, SAMPLE);
	tring_init(&bad, 2, SAMPLE);
	tring_init(&be, 8, SAMPLE);
	tring_attach(&good, b, t, BROKER_RELIABLE, 2);
	tring_attach(&bad, b, t, BROKER_RELIABLE, 3);
	tring_attach(&be, b, t, BROKER_BEST_EFFORT, 4);

	assert_int_equal(write_u64(w, 1, 0, NULL), 0);
	assert_int_equal(write_u64(w, 2, 0, NULL), 0);
	tring_expect(&bad, 1, 1);
	tring_expect(&bad, 2, 1);
	assert_int_equal(write_u64(w, 3, 0, NULL), 0); /* the broker read cons == 2 */
	assert_int_equal(write_u64(w, 4, 0, NULL), 0); /* full again (3, 4) */

	/* cons ahead of prod. */
	atomic_store(&bad.ctl->cons, 1000);
	assert_int_equal(write_u64(w, 5, 0, &blocker), -EPROTO);
	assert_ptr_equal(blocker, bad.reader);
	/* cons gone backwards. */
	blocker = NULL;
	atomic_store(&bad.ctl->cons, 1);
	assert_int_equal(write_u64(w, 5, 0, &blocker), -EPROTO);
	assert_ptr_equal(blocker, bad.reader);
	/* Forcing does not get past a protocol violation either. */
	blocker = NULL;
	v = 5;
	assert_int_equal(broker_write_force(w, &v, sizeof(v), 0, &blocker), -EPROTO);
	assert_ptr_equal(blocker, bad.reader);

	/* Nothing of sample 5 went anywhere, and nothing was counted. */
	assert_counters(broker_writer_counters(w), 4, 12, 0, 0);
	assert_counters(broker_topic_counters(t), 4, 12, 0, 0);
	for (v = 1; v <= 4; v++) {
		tring_expect(&good, v, 1);
		tring_expect(&be, v, 1);
	}
	tring_expect_empty(&good);
	tring_expect_empty(&be);

	/* The caller disconnects the owner; then the retry succeeds. */
	broker_reader_free(bad.reader);
	assert_int_equal(write_u64(w, 5, 0, NULL), 0);
	tring_expect(&good, 5, 1);
	tring_expect(&be, 5, 1);

	broker_flush(b);
	broker_reader_free(good.reader);
	broker_reader_free(be.reader);
	broker_writer_free(w);
	broker_topic_put(t);
	broker_free(b);
	tring_fini(&good);
	tring_fini(&bad);
	tring_fini(&be);
}

static void test_rejected(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic *t = get_topic(b, 0, 1);
	struct broker_writer *w = new_writer(b, t, 1);
	struct tring tr;
	uint8_t big[SAMPLE + 1] = {0};

	(void)state;
	tring_init(&tr, 4, SAMPLE);
	tring_attach(&tr, b, t, BROKER_BEST_EFFORT, 2);
	assert_int_equal(broker_write(w, big, SAMPLE + 1, 0, NULL), -EINVAL);
	assert_int_equal(broker_write(w, big, SAMPLE - 1, 0, NULL), -EINVAL);
	assert_int_equal(broker_write(w, big, 0, 0, NULL), -EINVAL);
	assert_int_equal(broker_write(w, NULL, SAMPLE, 0, NULL), -EINVAL);
	assert_int_equal(broker_write(NULL, big, SAMPLE, 0, NULL), -EINVAL);
	assert_counters(broker_writer_counters(w), 0, 0, 0, 3);
	assert_counters(broker_topic_counters(t), 0, 0, 0, 3);
	assert_counters(broker_reader_counters(tr.reader), 0, 0, 0, 0);
	tring_expect_empty(&tr);
	broker_flush(b);
	assert_int_equal(tr.notified, 0);

	broker_reader_free(tr.reader);
	broker_writer_free(w);
	broker_topic_put(t);
	broker_free(b);
	tring_fini(&tr);
}

/* Counters are per writer, per reader and per topic, each its own. */
static void test_counters(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic *t = get_topic(b, 0, 1);
	struct broker_writer *w1 = new_writer(b, t, 1);
	struct broker_writer *w2 = new_writer(b, t, 2);
	struct tring r1, r2;
	uint8_t s[SAMPLE] = {0};

	(void)state;
	tring_init(&r1, 2, SAMPLE);
	tring_init(&r2, 8, SAMPLE);
	tring_attach(&r1, b, t, BROKER_BEST_EFFORT, 1); /* owned by w1's client */
	tring_attach(&r2, b, t, BROKER_BEST_EFFORT, 3);

	for (int i = 0; i < 3; i++)
		assert_int_equal(broker_write(w1, s, SAMPLE, 1, NULL), 0); /* r1 skipped */
	for (int i = 0; i < 4; i++)
		assert_int_equal(broker_write(w2, s, SAMPLE, 0, NULL), 0); /* r1 overwrites twice */
	assert_int_equal(broker_write(w2, s, 1, 0, NULL), -EINVAL);

	assert_counters(broker_writer_counters(w1), 3, 3, 0, 0);
	assert_counters(broker_writer_counters(w2), 4, 8, 2, 1);
	assert_counters(broker_reader_counters(r1.reader), 0, 4, 2, 0);
	assert_counters(broker_reader_counters(r2.reader), 0, 7, 0, 0);
	assert_counters(broker_topic_counters(t), 7, 11, 2, 1);

	broker_reader_free(r1.reader);
	broker_reader_free(r2.reader);
	broker_writer_free(w1);
	broker_writer_free(w2);
	broker_topic_put(t);
	broker_free(b);
	tring_fini(&r1);
	tring_fini(&r2);
}

/* --------------------------------------------------------------- flush */

static void test_flush_once_per_reader(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic *ta = get_topic(b, 0, 1);
	struct broker_topic *tb = get_topic(b, 0, 2);
	struct broker_writer *wa = new_writer(b, ta, 1);
	struct tring r1, r2, idle, silent;
	struct broker_qos qos = {.reliability = BROKER_BEST_EFFORT};
	struct broker_reader *silent_reader = NULL;

	(void)state;
	tring_init(&r1, 8, SAMPLE);
	tring_init(&r2, 8, SAMPLE);
	tring_init(&idle, 8, SAMPLE);
	tring_init(&silent, 8, SAMPLE);
	tring_attach(&r1, b, ta, BROKER_BEST_EFFORT, 2);
	tring_attach(&r2, b, ta, BROKER_RELIABLE, 3);
	tring_attach(&idle, b, tb, BROKER_BEST_EFFORT, 4);
	/* A reader without notify is routed to but never flushed. */
	assert_int_equal(broker_reader_new(b, ta, &qos, 5, &silent.prod, NULL, NULL, &silent_reader), 0);

	broker_flush(b); /* nothing dirty yet */
	assert_int_equal(r1.notified + r2.notified + idle.notified, 0);

	for (uint64_t v = 0; v < 3; v++)
		assert_int_equal(write_u64(wa, v, 0, NULL), 0);
	broker_flush(b);
	assert_int_equal(r1.notified, 1);
	assert_int_equal(r2.notified, 1);
	assert_int_equal(idle.notified, 0);
	broker_flush(b);
	assert_int_equal(r1.notified, 1);
	assert_int_equal(r2.notified, 1);

	/* A reader skipped by the write is not dirty. */
	assert_int_equal(write_u64(wa, 9, 2, NULL), 0);
	broker_flush(b);
	assert_int_equal(r1.notified, 1);
	assert_int_equal(r2.notified, 2);
	for (uint64_t v = 0; v < 3; v++)
		tring_expect(&silent, v, 1);
	tring_expect(&silent, 9, 1);

	broker_reader_free(r1.reader);
	broker_reader_free(r2.reader);
	broker_reader_free(idle.reader);
	broker_reader_free(silent_reader);
	broker_writer_free(wa);
	broker_topic_put(ta);
	broker_topic_put(tb);
	broker_free(b);
	tring_fini(&r1);
	tring_fini(&r2);
	tring_fini(&idle);
	tring_fini(&silent);
}

static void test_reader_freed_while_dirty(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic *t = get_topic(b, 0, 1);
	struct broker_writer *w = new_writer(b, t, 1);
	struct tring r[4];

	(void)state;
	for (int i = 0; i < 4; i++) {
		tring_init(&r[i], 8, SAMPLE);
		tring_attach(&r[i], b, t, BROKER_BEST_EFFORT, (uint32_t)(10 + i));
	}
	assert_int_equal(write_u64(w, 1, 0, NULL), 0);
	/* Free the first, a middle and the last reader of the dirty list. */
	broker_reader_free(r[0].reader);
	broker_reader_free(r[2].reader);
	broker_reader_free(r[3].reader);
	broker_flush(b);
	assert_int_equal(r[1].notified, 1);
	assert_int_equal(r[0].notified + r[2].notified + r[3].notified, 0);
	assert_int_equal(broker_topic_readers(t), 1);

	broker_reader_free(r[1].reader);
	/* All dirty readers gone: flush has nothing left to touch. */
	assert_int_equal(write_u64(w, 2, 0, NULL), 0);
	broker_flush(b);
	assert_int_equal(r[1].notified, 1);

	broker_writer_free(w);
	broker_topic_put(t);
	broker_free(b);
	for (int i = 0; i < 4; i++)
		tring_fini(&r[i]);
}

/* Callbacks that free readers and write during a flush. */
struct reentrant {
	struct broker *b;
	struct broker_writer *w;
	struct tring *self;
	struct tring *victim; /* freed by this callback, if not NULL */
	bool free_self;
	bool write;
};

static struct reentrant re_ctx[3];
static unsigned re_calls[3];

static void reentrant_notify(struct broker_reader *r, void *owner)
{
	struct reentrant *c = owner;
	unsigned idx = (unsigned)(c - re_ctx);

	assert_ptr_equal(r, c->self->reader);
	re_calls[idx]++;
	if (c->victim) {
		broker_reader_free(c->victim->reader);
		c->victim->reader = NULL;
		c->victim = NULL;
	}
	if (c->write) {
		c->write = false;
		assert_int_equal(write_u64(c->w, 99, 0, NULL), 0);
	}
	if (c->free_self) {
		broker_reader_free(r);
		c->self->reader = NULL;
	}
}

static void test_flush_reentrant(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct broker_topic *t = get_topic(b, 0, 1);
	struct broker_writer *w = new_writer(b, t, 1);
	struct broker_qos qos = {.reliability = BROKER_BEST_EFFORT};
	struct tring r[3];

	(void)state;
	memset(re_calls, 0, sizeof(re_calls));
	for (int i = 0; i < 3; i++) {
		tring_init(&r[i], 8, SAMPLE);
		re_ctx[i] = (struct reentrant){.b = b, .w = w, .self = &r[i]};
		assert_int_equal(broker_reader_new(b, t, &qos, (uint32_t)(10 + i), &r[i].prod,
						   reentrant_notify, &re_ctx[i], &r[i].reader),
				 0);
	}
	/* r0 frees r1 (still waiting in the batch) and writes; r2 frees itself. */
	re_ctx[0].victim = &r[1];
	re_ctx[0].write = true;
	re_ctx[2].free_self = true;
	assert_int_equal(write_u64(w, 1, 0, NULL), 0);
	broker_flush(b);
	assert_int_equal(re_calls[0], 1);
	assert_int_equal(re_calls[1], 0);
	assert_int_equal(re_calls[2], 1);
	assert_null(r[1].reader);
	assert_null(r[2].reader);

	/* The write inside the flush dirtied r0 again: notified next flush. */
	broker_flush(b);
	assert_int_equal(re_calls[0], 2);
	broker_flush(b);
	assert_int_equal(re_calls[0], 2);
	tring_expect(&r[0], 1, 1);
	tring_expect(&r[0], 99, 1);

	broker_reader_free(r[0].reader);
	broker_writer_free(w);
	broker_topic_put(t);
	broker_free(b);
	for (int i = 0; i < 3; i++)
		tring_fini(&r[i]);
}

/* broker_free releases what the caller never freed (LeakSanitizer checks). */
static void test_free_everything(void **state)
{
	struct broker *b = new_broker(0, 0);
	struct tring r[3];

	(void)state;
	for (uint16_t i = 0; i < 3; i++) {
		struct broker_topic *t = get_topic(b, 1, i);
		struct broker_writer *w = new_writer(b, t, 1);

		tring_init(&r[i], 4, SAMPLE);
		tring_attach(&r[i], b, t, i == 1 ? BROKER_RELIABLE : BROKER_BEST_EFFORT, 2);
		assert_int_equal(write_u64(w, i, 0, NULL), 0); /* leaves readers dirty */
		if (i == 2)
			broker_topic_put(t); /* held by endpoints only */
	}
	broker_free(b);
	for (int i = 0; i < 3; i++)
		tring_fini(&r[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_new_limits),
	    cmocka_unit_test(test_topic_find_create),
	    cmocka_unit_test(test_topic_name_terminated),
	    cmocka_unit_test(test_topic_invalid),
	    cmocka_unit_test(test_topic_mismatch),
	    cmocka_unit_test(test_topic_raw_matches_typed),
	    cmocka_unit_test(test_topic_cap),
	    cmocka_unit_test(test_topic_table_churn),
	    cmocka_unit_test(test_foreach),
	    cmocka_unit_test(test_refcount),
	    cmocka_unit_test(test_endpoint_cap),
	    cmocka_unit_test(test_endpoint_invalid),
	    cmocka_unit_test(test_route_several_topics),
	    cmocka_unit_test(test_route_no_readers),
	    cmocka_unit_test(test_skip_owner),
	    cmocka_unit_test(test_reliable_all_or_nothing),
	    cmocka_unit_test(test_write_many),
	    cmocka_unit_test(test_write_force),
	    cmocka_unit_test(test_best_effort_overwrite),
	    cmocka_unit_test(test_corrupt_cons),
	    cmocka_unit_test(test_rejected),
	    cmocka_unit_test(test_counters),
	    cmocka_unit_test(test_flush_once_per_reader),
	    cmocka_unit_test(test_reader_freed_while_dirty),
	    cmocka_unit_test(test_flush_reentrant),
	    cmocka_unit_test(test_free_everything),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
