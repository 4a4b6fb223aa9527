/* SPDX-License-Identifier: MIT */
/*
 * test_ring.c - unit tests of the request ring and the reader ring.
 *
 * OVERVIEW
 * Rings live in heap memory (aligned_alloc) sized exactly, so ASan sees any
 * access beyond them. The violation tests play a hostile client: they write
 * raw bytes and indices into the shared control block and data, then check
 * that the daemon-side handle answers -EPROTO and keeps answering it. Two
 * threaded tests run a real producer against a real consumer for a bounded
 * number of records.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ipc/doorbell.h"
#include "ipc/ring.h"

/* ------------------------------------------------------------------ */
/* request ring helpers                                                */
/* ------------------------------------------------------------------ */

struct req_fixture {
	struct sdds_ring_ctl *ctl;
	uint8_t *data;
	uint32_t cap;
	uint32_t max_record;
	struct ring_prod p;
	struct ring_cons c;
};

static struct req_fixture *req_new(uint32_t cap, uint32_t max_record)
{
	struct req_fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->ctl = aligned_alloc(SDDS_CACHELINE, sizeof(struct sdds_ring_ctl) + cap);
	assert_non_null(f->ctl);
	memset(f->ctl, 0xa5, sizeof(struct sdds_ring_ctl) + cap);
	ring_format(f->ctl, cap);
	f->data = (uint8_t *)f->ctl + sizeof(struct sdds_ring_ctl);
	f->cap = cap;
	f->max_record = max_record;
	assert_int_equal(ring_prod_init(&f->p, f->ctl, cap, max_record), 0);
	assert_int_equal(ring_cons_init(&f->c, f->ctl, cap, max_record), 0);
	return f;
}

static void req_free(struct req_fixture *f)
{
	free(f->ctl);
	free(f);
}

static void fill_pattern(uint8_t *buf, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed * 131u + i * 7u);
}

static void check_pattern(const uint8_t *buf, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		assert_int_equal(buf[i], (uint8_t)(seed * 131u + i * 7u));
}

/* Reserve, fill and stamp one WRITE record; does not publish. */
static int req_put(struct req_fixture *f, uint32_t len, uint32_t handle)
{
	struct sdds_rec *r;
	int rc = ring_prod_reserve(&f->p, len, &r);

	if (rc < 0)
		return rc;
	assert_int_equal(r->len, len);
	assert_int_equal(r->flags, 0);
	r->type = SDDS_REC_WRITE;
	r->handle = handle;
	fill_pattern((uint8_t *)(r + 1), len, handle);
	return 0;
}

static void req_get(struct req_fixture *f, uint32_t len, uint32_t handle)
{
	uint8_t buf[4096];
	struct sdds_rec rec;

	assert_int_equal(ring_cons_next(&f->c, &rec, buf, sizeof(buf)), 1);
	assert_int_equal(rec.type, SDDS_REC_WRITE);
	assert_int_equal(rec.len, len);
	assert_int_equal(rec.handle, handle);
	check_pattern(buf, len, handle);
}

/* Raw header write, as a hostile client would. */
static void raw_rec(struct req_fixture *f, uint32_t off, uint32_t len, uint16_t type, uint16_t flags)
{
	struct sdds_rec r = {.len = len, .type = type, .flags = flags, .handle = 1, .seq = 0};

	memcpy(f->data + off, &r, sizeof(r));
}

static void set_prod(struct req_fixture *f, uint64_t v)
{
	atomic_store(&f->ctl->prod, v);
}

static int next_rc(struct req_fixture *f)
{
	uint8_t buf[4096];
	struct sdds_rec rec;

	return ring_cons_next(&f->c, &rec, buf, sizeof(buf));
}

/* ------------------------------------------------------------------ */
/* request ring tests                                                  */
/* ------------------------------------------------------------------ */

static void test_req_init_rejects(void **state)
{
	struct sdds_ring_ctl *ctl = aligned_alloc(64, sizeof(*ctl) + 1024);
	struct ring_prod p;
	struct ring_cons c;

	(void)state;
	ring_format(ctl, 1024);
	assert_int_equal(ring_prod_init(&p, ctl, 1000, 64), -EINVAL);  /* not a power of two */
	assert_int_equal(ring_cons_init(&c, ctl, 1024, 257), -EINVAL); /* 4 * max_record > cap */
	assert_int_equal(ring_cons_init(&c, ctl, 1024, 8), -EINVAL);   /* smaller than a header */
	assert_int_equal(ring_prod_init(&p, NULL, 1024, 64), -EINVAL);
	assert_int_equal(ring_prod_init(&p, ctl, 1024, 256), 0);
	free(ctl);
}

static void test_req_empty(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	assert_true(ring_cons_empty(&f->c));
	assert_int_equal(next_rc(f), 0);
	assert_false(ring_cons_release(&f->c));
	assert_int_equal(ring_prod_free(&f->p), 1024);
	req_free(f);
}

static void test_req_batch_publish(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	assert_int_equal(req_put(f, 10, 1), 0);
	assert_int_equal(req_put(f, 0, 2), 0);
	assert_int_equal(req_put(f, 112, 3), 0);
	/* Reserved but not published: invisible. */
	assert_true(ring_cons_empty(&f->c));
	assert_int_equal(next_rc(f), 0);
	assert_false(ring_prod_publish(&f->p));
	assert_false(ring_cons_empty(&f->c));
	req_get(f, 10, 1);
	req_get(f, 0, 2);
	req_get(f, 112, 3);
	assert_int_equal(next_rc(f), 0);
	assert_true(ring_cons_empty(&f->c));
	/* Consumed but not released: the producer still sees the bytes used. */
	assert_int_equal(ring_prod_free(&f->p), 1024 - 32 - 16 - 128);
	assert_false(ring_cons_release(&f->c));
	assert_int_equal(atomic_load(&f->ctl->cons), 32 + 16 + 128);
	assert_int_equal(ring_prod_free(&f->p), 1024);
	req_free(f);
}

static void test_req_full(void **state)
{
	struct req_fixture *f = req_new(256, 64);
	int n = 0;

	(void)state;
	/* 48-byte payloads are 64-byte records: exactly 4 fit. */
	while (req_put(f, 48, (uint32_t)n) == 0)
		n++;
	assert_int_equal(n, 4);
	assert_int_equal(req_put(f, 0, 99), -EAGAIN);
	assert_false(ring_prod_has_room(&f->p, 0));
	assert_false(ring_prod_publish(&f->p));
	req_get(f, 48, 0);
	/* Room appears only after the consumer publishes cons. */
	assert_false(ring_prod_has_room(&f->p, 48));
	ring_cons_release(&f->c);
	assert_true(ring_prod_has_room(&f->p, 48));
	assert_int_equal(req_put(f, 48, 4), 0);
	ring_prod_publish(&f->p);
	for (uint32_t i = 1; i <= 4; i++)
		req_get(f, 48, i);
	assert_int_equal(next_rc(f), 0);
	req_free(f);
}

static void test_req_emsgsize(void **state)
{
	struct req_fixture *f = req_new(1024, 100);
	struct sdds_rec *r;

	(void)state;
	assert_int_equal(ring_prod_reserve(&f->p, 85, &r), -EMSGSIZE);
	assert_int_equal(ring_prod_reserve(&f->p, UINT32_MAX, &r), -EMSGSIZE);
	assert_false(ring_prod_has_room(&f->p, 85));
	assert_int_equal(ring_prod_reserve(&f->p, 84, &r), 0);
	req_free(f);
}

static void test_req_pad_wrap(void **state)
{
	struct req_fixture *f = req_new(256, 64);

	(void)state;
	/* 3 x 64 bytes, consumed: the producer sits at 192, 64 bytes to the end. */
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(req_put(f, 48, i), 0);
	ring_prod_publish(&f->p);
	for (uint32_t i = 0; i < 3; i++)
		req_get(f, 48, i);
	ring_cons_release(&f->c);
	/* 32 bytes fit at 192; then 48 (64 bytes) does not fit the 32 left: PAD. */
	assert_int_equal(req_put(f, 16, 10), 0);
	assert_int_equal(req_put(f, 48, 11), 0);
	ring_prod_publish(&f->p);
	{
		struct sdds_rec pad;

		memcpy(&pad, f->data + 224, sizeof(pad));
		assert_int_equal(pad.type, SDDS_REC_PAD);
		assert_int_equal(pad.len, 16);
	}
	assert_int_equal(atomic_load(&f->ctl->prod), 192 + 32 + 32 + 64);
	req_get(f, 16, 10);
	req_get(f, 48, 11);
	assert_int_equal(next_rc(f), 0);
	req_free(f);
}

/* A wrap needs the tail plus the record: reserve fails rather than writing a PAD it cannot follow. */
static void test_req_pad_needs_room(void **state)
{
	struct req_fixture *f = req_new(256, 64);

	(void)state;
	/* 32 + 64 + 64 + 32 + 32 bytes: prod at 224, 32 bytes to the end. */
	assert_int_equal(req_put(f, 16, 0), 0);
	assert_int_equal(req_put(f, 48, 1), 0);
	assert_int_equal(req_put(f, 48, 2), 0);
	assert_int_equal(req_put(f, 16, 3), 0);
	assert_int_equal(req_put(f, 16, 4), 0);
	ring_prod_publish(&f->p);
	req_get(f, 16, 0);
	ring_cons_release(&f->c);
	/* 64 bytes free (32 at the tail, 32 at the head), but a 64-byte record needs 96. */
	assert_int_equal(ring_prod_free(&f->p), 64);
	assert_false(ring_prod_has_room(&f->p, 48));
	assert_int_equal(req_put(f, 48, 5), -EAGAIN);
	assert_int_equal(f->p.prod, 224); /* no PAD written */
	assert_true(ring_prod_has_room(&f->p, 16));
	assert_int_equal(req_put(f, 16, 5), 0);
	ring_prod_publish(&f->p);
	req_get(f, 48, 1);
	req_get(f, 48, 2);
	req_get(f, 16, 3);
	req_get(f, 16, 4);
	req_get(f, 16, 5);
	assert_int_equal(next_rc(f), 0);
	req_free(f);
}

/* Many records of random sizes through many wraps, with batches of every size. */
static void test_req_random_wraps(void **state)
{
	struct req_fixture *f = req_new(4096, 512);
	uint32_t rnd = 12345, sent = 0, got = 0;
	uint32_t lens[8192];

	(void)state;
	while (got < 20000) {
		uint32_t batch = (rnd = rnd * 1103515245u + 12345u) >> 28;

		for (uint32_t i = 0; i <= batch; i++) {
			uint32_t len = ((rnd = rnd * 1103515245u + 12345u) >> 16) % (512 - 16 + 1);

			if (req_put(f, len, sent) < 0)
				break;
			lens[sent % 8192] = len;
			sent++;
		}
		ring_prod_publish(&f->p);
		batch = (rnd = rnd * 1103515245u + 12345u) >> 28;
		for (uint32_t i = 0; i <= batch && got < sent; i++) {
			req_get(f, lens[got % 8192], got);
			got++;
		}
		ring_cons_release(&f->c);
	}
	assert_true(atomic_load(&f->ctl->prod) > 10 * 4096);
	req_free(f);
}

static void test_req_small_buf(void **state)
{
	struct req_fixture *f = req_new(1024, 128);
	uint8_t small[8];
	struct sdds_rec rec;

	(void)state;
	assert_int_equal(req_put(f, 20, 7), 0);
	ring_prod_publish(&f->p);
	assert_int_equal(ring_cons_next(&f->c, &rec, small, sizeof(small)), -EMSGSIZE);
	/* Not taken, not sticky. */
	req_get(f, 20, 7);
	req_free(f);
}

static void test_req_waiters(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	/* The daemon announces sleep on an empty ring: the next publish must kick. */
	assert_false(ring_cons_wait_data(&f->c));
	assert_int_equal(req_put(f, 4, 1), 0);
	assert_true(ring_prod_publish(&f->p));
	/* One kick per announcement: the next publish does not kick again. */
	assert_int_equal(atomic_load(&f->ctl->data.waiters), 0);
	assert_false(ring_prod_publish(&f->p));
	/* Data already there: wait_data tells the daemon not to sleep. */
	assert_true(ring_cons_wait_data(&f->c));
	ring_cons_stop_wait_data(&f->c);
	assert_false(ring_prod_publish(&f->p));

	/* A producer waiting for space is woken by the release (seq bumped). */
	req_get(f, 4, 1);
	atomic_store(&f->ctl->space.waiters, 1);
	assert_true(ring_cons_release(&f->c));
	assert_int_equal(atomic_load(&f->ctl->space.seq), 1);
	/* Nothing new consumed: no second wake. */
	assert_false(ring_cons_release(&f->c));
	req_free(f);
}

/* ---- violations: each must give -EPROTO, and keep giving it ---------- */

static void expect_proto(struct req_fixture *f)
{
	assert_int_equal(next_rc(f), -EPROTO);
	assert_int_equal(next_rc(f), -EPROTO);
	/* Sticky even if the client repairs the ring. */
	set_prod(f, f->c.cons);
	assert_int_equal(next_rc(f), -EPROTO);
	assert_false(ring_cons_empty(&f->c));
}

/* Move the consumer to byte position pos (consumed and released). */
static void advance_to(struct req_fixture *f, uint32_t pos)
{
	uint32_t n = 0;

	while (f->p.prod < pos) {
		uint32_t left = pos - (uint32_t)f->p.prod;
		uint32_t len = left >= 64 ? 48 : left - 16;

		assert_int_equal(req_put(f, len, n), 0);
		ring_prod_publish(&f->p);
		req_get(f, len, n);
		n++;
	}
	ring_cons_release(&f->c);
	assert_int_equal(f->c.cons, pos);
}

static void test_viol_prod_backwards(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	advance_to(f, 128);
	set_prod(f, 64);
	expect_proto(f);
	req_free(f);
}

static void test_viol_prod_beyond_cap(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	raw_rec(f, 0, 0, SDDS_REC_WRITE, 0);
	set_prod(f, 1024 + 16);
	expect_proto(f);
	req_free(f);
}

static void test_viol_prod_huge(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	set_prod(f, UINT64_MAX - 15);
	expect_proto(f);
	req_free(f);
}

static void test_viol_prod_misaligned(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	raw_rec(f, 0, 0, SDDS_REC_WRITE, 0);
	set_prod(f, 24);
	expect_proto(f);
	req_free(f);
}

static void test_viol_len_beyond_max_record(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	raw_rec(f, 0, 113, SDDS_REC_WRITE, 0); /* 16 + 113 > 128 */
	set_prod(f, 256);
	expect_proto(f);
	req_free(f);
}

static void test_viol_len_huge(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	raw_rec(f, 0, UINT32_MAX, SDDS_REC_WRITE, 0);
	set_prod(f, 1024);
	expect_proto(f);
	req_free(f);
}

static void test_viol_len_beyond_published(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	raw_rec(f, 0, 100, SDDS_REC_WRITE, 0); /* needs 128 bytes */
	set_prod(f, 64);
	expect_proto(f);
	req_free(f);
}

static void test_viol_crosses_end(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	advance_to(f, 1024 - 32);
	raw_rec(f, 1024 - 32, 64, SDDS_REC_WRITE, 0); /* 80 bytes, 32 to the end */
	set_prod(f, 1024 - 32 + 96);
	expect_proto(f);
	req_free(f);
}

static void test_viol_unknown_type(void **state)
{
	static const uint16_t types[] = {0, 3, 0xffff};

	(void)state;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct req_fixture *f = req_new(1024, 128);

		raw_rec(f, 0, 0, types[i], 0);
		set_prod(f, 16);
		expect_proto(f);
		req_free(f);
	}
}

/* An unknown type with exactly a PAD's length must not be skipped as one. */
static void test_viol_unknown_type_pad_len(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	advance_to(f, 1024 - 64);
	raw_rec(f, 1024 - 64, 48, 3, 0);
	set_prod(f, 1024 + 16);
	raw_rec(f, 0, 0, SDDS_REC_WRITE, 0);
	expect_proto(f);
	req_free(f);
}

static void test_viol_flags(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	raw_rec(f, 0, 0, SDDS_REC_WRITE, 1);
	set_prod(f, 16);
	expect_proto(f);
	req_free(f);

	f = req_new(1024, 128);
	advance_to(f, 1024 - 32);
	raw_rec(f, 1024 - 32, 16, SDDS_REC_PAD, 0x8000);
	set_prod(f, 1024);
	expect_proto(f);
	req_free(f);
}

static void test_viol_pad_len(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	advance_to(f, 1024 - 64);
	raw_rec(f, 1024 - 64, 32, SDDS_REC_PAD, 0); /* must be 48 */
	set_prod(f, 1024 + 16);
	raw_rec(f, 0, 0, SDDS_REC_WRITE, 0);
	expect_proto(f);
	req_free(f);
}

static void test_viol_pad_beyond_published(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	advance_to(f, 1024 - 64);
	raw_rec(f, 1024 - 64, 48, SDDS_REC_PAD, 0); /* skips 64, only 32 published */
	set_prod(f, 1024 - 32);
	expect_proto(f);
	req_free(f);
}

/* Legal hostile-looking cases that must not be errors. */
static void test_pad_only(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	advance_to(f, 1024 - 64);
	raw_rec(f, 1024 - 64, 48, SDDS_REC_PAD, 0);
	set_prod(f, 1024);
	assert_int_equal(next_rc(f), 0);
	assert_int_equal(f->c.cons, 1024);
	assert_true(ring_cons_empty(&f->c));
	/* Then a record at the start of the ring. */
	raw_rec(f, 0, 5, SDDS_REC_WRITE, 0);
	set_prod(f, 1024 + 32);
	assert_int_equal(next_rc(f), 1);
	req_free(f);
}

/* Publishing only part of a batch, then the rest. */
static void test_partial_visibility(void **state)
{
	struct req_fixture *f = req_new(1024, 128);

	(void)state;
	assert_int_equal(req_put(f, 8, 1), 0);
	ring_prod_publish(&f->p);
	assert_int_equal(req_put(f, 8, 2), 0);
	req_get(f, 8, 1);
	assert_int_equal(next_rc(f), 0);
	ring_prod_publish(&f->p);
	req_get(f, 8, 2);
	req_free(f);
}

/* ------------------------------------------------------------------ */
/* reader ring                                                         */
/* ------------------------------------------------------------------ */

struct rr_fixture {
	struct sdds_rring_ctl *ctl;
	size_t size;
	struct rring_prod p;
	struct rring_cons c;
};

static struct rr_fixture *rr_new(uint32_t cap, uint32_t max_payload)
{
	struct rr_fixture *f = calloc(1, sizeof(*f));
	uint32_t slot = rring_slot_size(max_payload);

	assert_non_null(f);
	f->size = rring_size(cap, max_payload);
	assert_true(f->size >= sizeof(struct sdds_rring_ctl) + (size_t)cap * slot);
	assert_int_equal(f->size % SDDS_RRING_ALIGN, 0);
	f->ctl = aligned_alloc(SDDS_RRING_ALIGN, f->size);
	assert_non_null(f->ctl);
	/* Stale bytes everywhere, as in a reused arena range. */
	memset(f->ctl, 0xff, f->size);
	rring_format(f->ctl, cap, slot);
	assert_int_equal(rring_prod_init(&f->p, f->ctl, cap, slot), 0);
	assert_int_equal(rring_cons_init(&f->c, f->ctl, cap, slot), 0);
	return f;
}

static void rr_free(struct rr_fixture *f)
{
	free(f->ctl);
	free(f);
}

static int rr_push(struct rr_fixture *f, uint32_t v, bool reliable)
{
	uint8_t buf[64];

	fill_pattern(buf, sizeof(buf), v);
	return rring_prod_push(&f->p, buf, sizeof(buf), v, reliable);
}

static void rr_take(struct rr_fixture *f, uint32_t v)
{
	uint8_t buf[64];
	uint32_t len = 0, origin = 0;

	assert_int_equal(rring_cons_take(&f->c, buf, sizeof(buf), &len, &origin, NULL), 1);
	assert_int_equal(len, 64);
	assert_int_equal(origin, v);
	check_pattern(buf, 64, v);
}

static int rr_take_rc(struct rr_fixture *f)
{
	uint8_t buf[64];
	uint32_t len;

	return rring_cons_take(&f->c, buf, sizeof(buf), &len, NULL, NULL);
}

static void test_rr_sizes(void **state)
{
	(void)state;
	assert_int_equal(rring_slot_size(0), 16);
	assert_int_equal(rring_slot_size(1), 32);
	assert_int_equal(rring_slot_size(16), 32);
	assert_int_equal(rring_slot_size(UINT32_MAX), 0);
	assert_int_equal(rring_size(4, 16), 192 + 4 * 32);
	assert_int_equal(rring_size(2, 16), 256); /* 192 + 64 */
	assert_int_equal(rring_size(1, 16), 256); /* 224 rounded to 64 */
	assert_int_equal(rring_size(4, UINT32_MAX), 0);
}

static void test_rr_init_rejects(void **state)
{
	struct rr_fixture *f = rr_new(4, 64);
	struct rring_cons c;
	struct rring_prod p;

	(void)state;
	assert_int_equal(rring_cons_init(&c, f->ctl, 8, f->p.slot_size), -EINVAL); /* cap mismatch */
	assert_int_equal(rring_cons_init(&c, f->ctl, 4, f->p.slot_size + 16), -EINVAL);
	assert_int_equal(rring_prod_init(&p, f->ctl, 3, 80), -EINVAL);
	assert_int_equal(rring_prod_init(&p, f->ctl, 4, 72), -EINVAL);
	assert_int_equal(rring_prod_init(&p, f->ctl, 4, 8), -EINVAL);
	rr_free(f);
}

static void test_rr_empty_and_roundtrip(void **state)
{
	struct rr_fixture *f = rr_new(8, 64);

	(void)state;
	/* rring_format cleared the 0xff seq words: nothing stale is taken. */
	assert_true(rring_cons_empty(&f->c));
	assert_int_equal(rr_take_rc(f), 0);
	for (uint32_t i = 1; i <= 5; i++)
		assert_int_equal(rr_push(f, i, true), 0);
	assert_false(rring_cons_empty(&f->c));
	assert_int_equal(rring_cons_pending(&f->c), 5);
	for (uint32_t i = 1; i <= 5; i++)
		rr_take(f, i);
	assert_int_equal(rr_take_rc(f), 0);
	assert_int_equal(f->c.lost, 0);
	assert_int_equal(atomic_load(&f->ctl->cons), 5);
	rr_free(f);
}

/* Records taken since the last release can be given back and are taken again, checked again. */
static void test_req_rewind(void **state)
{
	struct req_fixture *f = req_new(1024, 128);
	uint64_t start, second;

	(void)state;
	for (uint32_t h = 1; h <= 3; h++)
		assert_int_equal(req_put(f, 20, h), 0);
	ring_prod_publish(&f->p);
	start = f->c.cons;
	req_get(f, 20, 1);
	second = f->c.cons;
	req_get(f, 20, 2);
	req_get(f, 20, 3);
	/* Not a record boundary, or beyond what was taken: refused. */
	assert_int_equal(ring_cons_rewind(&f->c, second + 1), -EINVAL);
	assert_int_equal(ring_cons_rewind(&f->c, f->c.cons + SDDS_REC_ALIGN), -EINVAL);
	assert_int_equal(ring_cons_rewind(&f->c, second), 0);
	assert_int_equal(f->c.cons, second);
	req_get(f, 20, 2);
	/* A hostile client rewrote record 3 meanwhile: the second take checks it again. */
	raw_rec(f, (uint32_t)(f->c.cons & (f->cap - 1)), 20, SDDS_REC_WRITE, 1);
	assert_int_equal(next_rc(f), -EPROTO);
	assert_int_equal(ring_cons_rewind(&f->c, second), -EINVAL); /* sticky failure */
	req_free(f);

	/* Released bytes are the producer's again: no rewind below the published cons. */
	f = req_new(1024, 128);
	start = f->c.cons;
	assert_int_equal(req_put(f, 8, 7), 0);
	assert_int_equal(req_put(f, 8, 8), 0);
	ring_prod_publish(&f->p);
	req_get(f, 8, 7);
	ring_cons_release(&f->c);
	assert_int_equal(ring_cons_rewind(&f->c, start), -EINVAL);
	req_get(f, 8, 8);
	assert_int_equal(next_rc(f), 0);
	req_free(f);
}

/* A run takes only consecutive records of one writer and length; the rest is ring_cons_next's. */
static void test_req_next_run(void **state)
{
	struct req_fixture *f = req_new(512, 128);
	uint8_t buf[8 * 32];
	uint32_t seqs[8];

	(void)state;
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(req_put(f, 20, 5), 0);
	assert_int_equal(req_put(f, 20, 6), 0); /* another writer */
	assert_int_equal(req_put(f, 12, 5), 0); /* another length */
	/* Nothing published yet: nothing taken. */
	assert_int_equal(ring_cons_next_run(&f->c, 5, 20, buf, 32, 8, seqs), 0);
	ring_prod_publish(&f->p);
	req_get(f, 20, 5);
	/* max and stride are honoured; len beyond stride is refused. */
	assert_int_equal(ring_cons_next_run(&f->c, 5, 20, buf, 16, 8, seqs), 0);
	assert_int_equal(ring_cons_next_run(&f->c, 5, 20, buf, 32, 2, seqs), 2);
	check_pattern(buf, 20, 5);
	check_pattern(buf + 32, 20, 5);
	assert_int_equal(seqs[0], 1);
	assert_int_equal(seqs[1], 2);
	assert_int_equal(ring_cons_next_run(&f->c, 5, 20, buf, 32, 8, seqs), 1);
	assert_int_equal(seqs[0], 3);
	assert_int_equal(ring_cons_next_run(&f->c, 5, 20, buf, 32, 8, seqs), 0);
	req_get(f, 20, 6);
	assert_int_equal(ring_cons_next_run(&f->c, 5, 20, buf, 32, 8, seqs), 0);
	req_get(f, 12, 5);
	assert_int_equal(next_rc(f), 0);
	req_free(f);

	/* A bad header ends the run and ring_cons_next refuses it. */
	f = req_new(512, 128);
	assert_int_equal(req_put(f, 20, 5), 0);
	assert_int_equal(req_put(f, 20, 5), 0);
	ring_prod_publish(&f->p);
	raw_rec(f, 48, 20, SDDS_REC_WRITE, 1);
	assert_int_equal(ring_cons_next_run(&f->c, 5, 20, buf, 32, 8, seqs), 1);
	assert_int_equal(ring_cons_next_run(&f->c, 5, 20, buf, 32, 8, seqs), 0);
	assert_int_equal(next_rc(f), -EPROTO);
	req_free(f);
}

/* rring_prod_write: a slot is taken by its seq before prod is published; publish once. */
static void test_rr_write_then_publish(void **state)
{
	struct rr_fixture *f = rr_new(8, 64);
	uint8_t buf[64];

	(void)state;
	for (uint32_t i = 1; i <= 3; i++) {
		fill_pattern(buf, sizeof(buf), i);
		assert_int_equal(rring_prod_write(&f->p, buf, sizeof(buf), i, true), 0);
	}
	assert_int_equal(atomic_load(&f->ctl->prod), 0);
	assert_true(rring_cons_empty(&f->c));
	/* A spinning consumer takes by the slot's seq word. */
	rr_take(f, 1);
	rr_take(f, 2);
	/* Ahead of the published prod: nothing pending, not "huge". */
	assert_int_equal(rring_cons_pending(&f->c), 0);
	rring_prod_publish(&f->p);
	assert_int_equal(atomic_load(&f->ctl->prod), 3);
	assert_int_equal(rring_cons_pending(&f->c), 1);
	rr_take(f, 3);
	assert_int_equal(rr_take_rc(f), 0);
	/* Reliable back-pressure still counts unpublished slots. */
	for (uint32_t i = 4; i < 12; i++) {
		fill_pattern(buf, sizeof(buf), i);
		assert_int_equal(rring_prod_write(&f->p, buf, sizeof(buf), i, true), 0);
	}
	assert_int_equal(rring_prod_write(&f->p, buf, sizeof(buf), 12, true), -EAGAIN);
	rring_prod_publish(&f->p);
	for (uint32_t i = 4; i < 12; i++)
		rr_take(f, i);
	assert_int_equal(f->c.lost, 0);
	rr_free(f);
}

static void test_rr_reliable_full(void **state)
{
	struct rr_fixture *f = rr_new(4, 64);

	(void)state;
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(rr_push(f, i, true), 0);
	assert_int_equal(rr_push(f, 4, true), -EAGAIN);
	assert_int_equal(rring_prod_backlog(&f->p), 4);
	rr_take(f, 0);
	assert_int_equal(rring_prod_backlog(&f->p), 3);
	assert_int_equal(rr_push(f, 4, true), 0);
	assert_int_equal(rr_push(f, 5, true), -EAGAIN);
	for (uint32_t i = 1; i <= 4; i++)
		rr_take(f, i);
	assert_int_equal(f->p.overwritten, 0);
	assert_int_equal(f->c.lost, 0);
	rr_free(f);
}

static void test_rr_wait_space_kick(void **state)
{
	struct rr_fixture *f = rr_new(2, 64);
	uint8_t buf[64];
	uint32_t len;
	bool kick = true;

	(void)state;
	assert_int_equal(rr_push(f, 0, true), 0);
	/* Not waiting: the consumer is told not to kick. */
	assert_int_equal(rring_cons_take(&f->c, buf, sizeof(buf), &len, NULL, &kick), 1);
	assert_false(kick);
	assert_int_equal(rr_push(f, 1, true), 0);
	assert_int_equal(rr_push(f, 2, true), 0);
	assert_int_equal(rr_push(f, 3, true), -EAGAIN);
	assert_false(rring_prod_wait_space(&f->p));
	assert_int_equal(atomic_load(&f->ctl->space.waiters), 1);
	assert_int_equal(rring_cons_take(&f->c, buf, sizeof(buf), &len, NULL, &kick), 1);
	assert_true(kick);
	/* The kick took the announcement: no second kick for the same wait. */
	assert_int_equal(atomic_load(&f->ctl->space.waiters), 0);
	assert_false(rring_cons_need_kick(&f->c));
	/* Announced again: kicked again. */
	assert_true(rring_prod_wait_space(&f->p));
	assert_true(rring_cons_need_kick(&f->c));
	assert_true(rring_prod_wait_space(&f->p));
	rring_prod_stop_wait_space(&f->p);
	assert_false(rring_cons_need_kick(&f->c));
	assert_int_equal(rr_push(f, 3, true), 0);
	rr_free(f);
}

static void test_rr_best_effort_overwrite(void **state)
{
	struct rr_fixture *f = rr_new(4, 64);

	(void)state;
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(rr_push(f, i, false), 0);
	assert_int_equal(f->p.overwritten, 6);
	assert_int_equal(rring_cons_pending(&f->c), 10);
	/* The four newest survive; the six oldest are counted lost. */
	for (uint32_t i = 6; i < 10; i++)
		rr_take(f, i);
	assert_int_equal(f->c.lost, 6);
	assert_int_equal(rr_take_rc(f), 0);
	/* Caught up: no more drops counted. */
	for (uint32_t i = 10; i < 14; i++)
		assert_int_equal(rr_push(f, i, false), 0);
	assert_int_equal(f->p.overwritten, 6);
	for (uint32_t i = 10; i < 14; i++)
		rr_take(f, i);
	assert_int_equal(f->c.lost, 6);
	rr_free(f);
}

/* Lapped more than once between two takes: the skip is still exact. */
static void test_rr_best_effort_many_laps(void **state)
{
	struct rr_fixture *f = rr_new(8, 64);

	(void)state;
	rr_push(f, 0, false);
	rr_take(f, 0);
	for (uint32_t i = 1; i <= 100; i++)
		assert_int_equal(rr_push(f, i, false), 0);
	assert_int_equal(f->p.overwritten, 92);
	for (uint32_t i = 93; i <= 100; i++)
		rr_take(f, i);
	assert_int_equal(f->c.lost, 92);
	rr_free(f);
}

static void test_rr_msgsize(void **state)
{
	struct rr_fixture *f = rr_new(4, 64);
	uint8_t big[80] = {0}, small[8];
	uint32_t len = 1234;
	bool kick = true;

	(void)state;
	assert_int_equal(rring_prod_push(&f->p, big, 65, 0, true), -EMSGSIZE);
	assert_int_equal(rring_prod_push(&f->p, big, 64, 0, true), 0);
	assert_int_equal(rring_prod_push(&f->p, big, 0, 9, true), 0);
	/* Too long for the caller's buffer: skipped, kick still reported. */
	assert_int_equal(rring_cons_take(&f->c, small, sizeof(small), &len, NULL, &kick), -EMSGSIZE);
	assert_int_equal(len, 1234);
	assert_false(kick);
	assert_int_equal(rring_cons_take(&f->c, small, sizeof(small), &len, NULL, NULL), 1);
	assert_int_equal(len, 0);
	rr_free(f);
}

static void test_rr_bad_cons(void **state)
{
	struct rr_fixture *f = rr_new(4, 64);

	(void)state;
	for (uint32_t i = 0; i < 3; i++)
		rr_push(f, i, true);
	/* Ahead of prod. */
	atomic_store(&f->ctl->cons, 4);
	assert_int_equal(rring_prod_backlog(&f->p), -EPROTO);
	atomic_store(&f->ctl->cons, UINT64_MAX);
	assert_int_equal(rring_prod_backlog(&f->p), -EPROTO);
	/* Valid again, then backwards. */
	atomic_store(&f->ctl->cons, 2);
	assert_int_equal(rring_prod_backlog(&f->p), 1);
	atomic_store(&f->ctl->cons, 1);
	assert_int_equal(rring_prod_backlog(&f->p), -EPROTO);
	/* Reliable push on a (seemingly) full ring reports the corruption. */
	rr_push(f, 3, true);
	rr_push(f, 4, true);
	rr_push(f, 5, true);
	atomic_store(&f->ctl->cons, 100);
	assert_int_equal(rr_push(f, 6, true), -EPROTO);
	/* The wait announcement says "retry" so the push reports it. */
	assert_true(rring_prod_wait_space(&f->p));
	/* Best effort: overwrites regardless, counts the drop, no error. */
	assert_int_equal(rr_push(f, 6, false), 0);
	assert_int_equal(f->p.overwritten, 1);
	rr_free(f);
}

/* ---- threaded: a real producer against a real consumer ------------- */

#define SPSC_RECORDS 300000u

/* cmocka's asserts may only run on the main thread: threads report here. */
static atomic_int thread_failed_line;
#define THREAD_CHECK(cond)                                                                                   \
	do {                                                                                                 \
		if (!(cond)) {                                                                               \
			atomic_store(&thread_failed_line, __LINE__);                                         \
			return NULL;                                                                         \
		}                                                                                            \
	} while (0)

static bool req_room_cond(void *arg)
{
	struct req_fixture *f = arg;

	return ring_prod_has_room(&f->p, 200);
}

static void *req_producer(void *arg)
{
	struct req_fixture *f = arg;
	uint32_t rnd = 7;

	for (uint32_t i = 0; i < SPSC_RECORDS;) {
		uint32_t len = ((rnd = rnd * 1103515245u + 12345u) >> 16) % 200;
		struct sdds_rec *r;
		int rc = ring_prod_reserve(&f->p, len, &r);

		if (rc == -EAGAIN) {
			ring_prod_publish(&f->p);
			THREAD_CHECK(doorbell_wait(&f->ctl->space, req_room_cond, f, 10 * 1000000000LL, 1000,
						   0, NULL) == 0);
			continue;
		}
		THREAD_CHECK(rc == 0);
		r->type = SDDS_REC_WRITE;
		r->handle = i;
		fill_pattern((uint8_t *)(r + 1), len, i);
		i++;
		if (i % 8 == 0)
			ring_prod_publish(&f->p);
	}
	ring_prod_publish(&f->p);
	return NULL;
}

static void test_req_threaded(void **state)
{
	struct req_fixture *f = req_new(2048, 256);
	pthread_t th;
	uint8_t buf[256];
	uint32_t got = 0;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, req_producer, f), 0);
	while (got < SPSC_RECORDS) {
		struct sdds_rec rec;
		int rc = ring_cons_next(&f->c, &rec, buf, sizeof(buf));

		assert_true(rc >= 0);
		if (rc == 0) {
			ring_cons_release(&f->c);
			if (atomic_load(&thread_failed_line) != 0)
				break;
			doorbell_cpu_relax();
			continue;
		}
		assert_int_equal(rec.handle, got);
		check_pattern(buf, rec.len, got);
		got++;
		if (got % 4 == 0)
			ring_cons_release(&f->c);
	}
	ring_cons_release(&f->c);
	pthread_join(th, NULL);
	assert_int_equal(atomic_load(&thread_failed_line), 0);
	req_free(f);
}

/*
 * Best effort, producer much faster than the consumer: every taken sample
 * must be internally consistent (no torn read accepted), positions must
 * only increase, and taken + lost must account for every position passed.
 * Runs for a fixed time rather than a count: what matters is how long both
 * threads really run at once on a shared 2-core machine.
 */
#define SEQLOCK_NS (2 * 1000000000LL)
#define SEQLOCK_PAYLOAD 1024u /* long copies: overwrites land mid-copy often */

static atomic_uint seqlock_pushed;
static atomic_bool seqlock_stop;

static void *rr_producer(void *arg)
{
	struct rr_fixture *f = arg;
	uint8_t buf[SEQLOCK_PAYLOAD];
	uint32_t i;

	for (i = 1; !atomic_load_explicit(&seqlock_stop, memory_order_relaxed); i++) {
		for (uint32_t k = 0; k < sizeof(buf); k += 4)
			memcpy(buf + k, &i, 4);
		THREAD_CHECK(rring_prod_push(&f->p, buf, sizeof(buf), i, false) == 0);
	}
	atomic_store(&seqlock_pushed, i - 1);
	return NULL;
}

static void test_rr_seqlock_threaded(void **state)
{
	struct rr_fixture *f = rr_new(8, SEQLOCK_PAYLOAD);
	pthread_t th;
	uint8_t buf[SEQLOCK_PAYLOAD];
	uint32_t last = 0, taken = 0;
	int64_t end = doorbell_now_ns() + SEQLOCK_NS;
	bool stopped = false;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, rr_producer, f), 0);
	for (;;) {
		uint32_t len, origin, v;
		int rc = rring_cons_take(&f->c, buf, sizeof(buf), &len, &origin, NULL);

		if (rc == 0) {
			if (atomic_load(&thread_failed_line) != 0)
				break;
			if (stopped)
				break; /* producer joined and everything drained */
			doorbell_cpu_relax();
		} else {
			assert_int_equal(rc, 1);
			assert_int_equal(len, SEQLOCK_PAYLOAD);
			memcpy(&v, buf, 4);
			assert_int_equal(v, origin);
			for (uint32_t k = 4; k < sizeof(buf); k += 4) {
				uint32_t w;

				memcpy(&w, buf + k, 4);
				assert_int_equal(w, v);
			}
			assert_true(v > last);
			last = v;
			taken++;
		}
		if (!stopped && (taken & 255) == 0 && doorbell_now_ns() >= end) {
			atomic_store(&seqlock_stop, true);
			pthread_join(th, NULL);
			stopped = true;
		}
	}
	if (!stopped)
		pthread_join(th, NULL);
	assert_int_equal(atomic_load(&thread_failed_line), 0);
	assert_true(atomic_load(&seqlock_pushed) > 0);
	assert_int_equal(last, atomic_load(&seqlock_pushed));
	assert_int_equal(taken + f->c.lost, atomic_load(&seqlock_pushed));
	assert_int_equal(f->c.cons, atomic_load(&seqlock_pushed));
	rr_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_req_init_rejects),
	    cmocka_unit_test(test_req_empty),
	    cmocka_unit_test(test_req_batch_publish),
	    cmocka_unit_test(test_req_full),
	    cmocka_unit_test(test_req_emsgsize),
	    cmocka_unit_test(test_req_pad_wrap),
	    cmocka_unit_test(test_req_pad_needs_room),
	    cmocka_unit_test(test_req_random_wraps),
	    cmocka_unit_test(test_req_small_buf),
	    cmocka_unit_test(test_req_waiters),
	    cmocka_unit_test(test_req_rewind),
	    cmocka_unit_test(test_req_next_run),
	    cmocka_unit_test(test_rr_write_then_publish),
	    cmocka_unit_test(test_viol_prod_backwards),
	    cmocka_unit_test(test_viol_prod_beyond_cap),
	    cmocka_unit_test(test_viol_prod_huge),
	    cmocka_unit_test(test_viol_prod_misaligned),
	    cmocka_unit_test(test_viol_len_beyond_max_record),
	    cmocka_unit_test(test_viol_len_huge),
	    cmocka_unit_test(test_viol_len_beyond_published),
	    cmocka_unit_test(test_viol_crosses_end),
	    cmocka_unit_test(test_viol_unknown_type),
	    cmocka_unit_test(test_viol_unknown_type_pad_len),
	    cmocka_unit_test(test_viol_flags),
	    cmocka_unit_test(test_viol_pad_len),
	    cmocka_unit_test(test_viol_pad_beyond_published),
	    cmocka_unit_test(test_pad_only),
	    cmocka_unit_test(test_partial_visibility),
	    cmocka_unit_test(test_rr_sizes),
	    cmocka_unit_test(test_rr_init_rejects),
	    cmocka_unit_test(test_rr_empty_and_roundtrip),
	    cmocka_unit_test(test_rr_reliable_full),
	    cmocka_unit_test(test_rr_wait_space_kick),
	    cmocka_unit_test(test_rr_best_effort_overwrite),
	    cmocka_unit_test(test_rr_best_effort_many_laps),
	    cmocka_unit_test(test_rr_msgsize),
	    cmocka_unit_test(test_rr_bad_cons),
	    cmocka_unit_test(test_req_threaded),
	    cmocka_unit_test(test_rr_seqlock_threaded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
