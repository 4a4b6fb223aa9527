/* SPDX-License-Identifier: MIT */
/*
 * test_client_mono.c - the client API linked with libsddsmono (the broker
 * in-process, no daemon; nothing in the source asks for it):
 * ordering, best-effort loss, reliable back-pressure with timeouts, blocking
 * take, listeners (thread, count, removal), two clients in one process,
 * argument errors, and free with everything still alive.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sdds/sdds.h"

#define SAMPLE 8

static const sdds_field fields8[] = {
    {"seq", SDDS_FIELD_ULONG, 4},
    {"val", SDDS_FIELD_LONG, 4},
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static void put_seq(uint8_t *b, uint32_t v)
{
	memset(b, 0, SAMPLE);
	memcpy(b, &v, sizeof(v));
	b[4] = (uint8_t)(v * 7);
}

static uint32_t get_seq(const uint8_t *b)
{
	uint32_t v;

	memcpy(&v, b, sizeof(v));
	return v;
}

struct fix {
	sdds_client *c;
	sdds_topic *t;
};

static sdds_client *mono_client(void)
{
	sdds_client_options o;
	sdds_client *c = NULL;

	sdds_client_options_init(&o);
	o.name = "test";
	assert_int_equal(sdds_client_new(&o, &c), 0);
	assert_non_null(c);
	return c;
}

static sdds_topic *topic8(sdds_client *c, uint16_t id)
{
	sdds_topic_desc d = {
	    .name = "t8",
	    .domain = 1,
	    .id = id,
	    .sample_size = SAMPLE,
	    .fields = fields8,
	    .n_fields = 2,
	};
	sdds_topic *t = NULL;

	assert_int_equal(sdds_topic_new(c, &d, &t), 0);
	assert_int_equal(sdds_topic_sample_size(t), SAMPLE);
	return t;
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	f->c = mono_client();
	f->t = topic8(f->c, 10);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	sdds_topic_free(f->t);
	sdds_client_free(f->c);
	free(f);
	return 0;
}

static sdds_writer *writer(sdds_topic *t, sdds_reliability rel, uint32_t max_blocking_ms)
{
	sdds_qos q;
	sdds_writer *w = NULL;

	sdds_qos_init(&q);
	q.reliability = rel;
	q.max_blocking_ms = max_blocking_ms;
	assert_int_equal(sdds_writer_new(t, &q, &w), 0);
	return w;
}

static sdds_reader *reader(sdds_topic *t, sdds_reliability rel, uint32_t depth)
{
	sdds_qos q;
	sdds_reader *r = NULL;

	sdds_qos_init(&q);
	q.reliability = rel;
	q.history_depth = depth;
	assert_int_equal(sdds_reader_new(t, &q, &r), 0);
	return r;
}

/* ---------------- basic ---------------- */

static void test_session_and_connected(void **state)
{
	struct fix *f = *state;

	assert_int_equal(sdds_client_session_id(f->c), 0);
	assert_true(sdds_client_connected(f->c));
}

static void test_write_take_in_order(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_BEST_EFFORT, 100);
	sdds_reader *r = reader(f->t, SDDS_BEST_EFFORT, 64);
	uint8_t b[SAMPLE + 8];
	size_t len = 0;

	assert_int_equal(sdds_reader_take(r, b, sizeof(b), &len, 0), -EAGAIN);
	for (uint32_t i = 0; i < 50; i++) {
		put_seq(b, i);
		assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	}
	for (uint32_t i = 0; i < 50; i++) {
		memset(b, 0xee, sizeof(b));
		assert_int_equal(sdds_reader_take(r, b, sizeof(b), &len, 0), 0);
		assert_int_equal(len, SAMPLE);
		assert_int_equal(get_seq(b), i);
		assert_int_equal(b[4], (uint8_t)(i * 7));
	}
	assert_int_equal(sdds_reader_take(r, b, sizeof(b), &len, 0), -EAGAIN);
	assert_int_equal(sdds_reader_lost(r), 0);
	sdds_reader_free(r);
	sdds_writer_free(w);
}

/*
 * sdds_reader_take_many in monolithic mode: the writes are routed by the
 * write itself, so batches are exact: 50 samples come as 16, 16, 16, 2.
 */
static void test_take_many_batches(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_RELIABLE, 2000);
	sdds_reader *r = reader(f->t, SDDS_RELIABLE, 50);
	uint8_t b[SAMPLE], buf[SAMPLE * 16];
	uint32_t next = 0;
	size_t n = 0;

	assert_int_equal(sdds_reader_take_many(r, buf, SAMPLE, 16, &n, 0), -EAGAIN);
	for (uint32_t i = 0; i < 50; i++) {
		put_seq(b, i);
		assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	}
	for (int k = 0; k < 4; k++) {
		assert_int_equal(sdds_reader_take_many(r, buf, SAMPLE, 16, &n, 0), 0);
		assert_int_equal(n, k < 3 ? 16 : 2);
		for (size_t i = 0; i < n; i++, next++)
			assert_int_equal(get_seq(buf + i * SAMPLE), next);
	}
	assert_int_equal(sdds_reader_take_many(r, buf, SAMPLE, 16, &n, 0), -EAGAIN);
	assert_int_equal(sdds_reader_lost(r), 0);
	sdds_reader_free(r);
	sdds_writer_free(w);
}

static void test_fanout_two_readers(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_BEST_EFFORT, 100);
	sdds_reader *r1 = reader(f->t, SDDS_BEST_EFFORT, 8);
	sdds_reader *r2 = reader(f->t, SDDS_RELIABLE, 8);
	uint8_t b[SAMPLE];

	for (uint32_t i = 0; i < 5; i++) {
		put_seq(b, i);
		assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	}
	for (uint32_t i = 0; i < 5; i++) {
		assert_int_equal(sdds_reader_take(r1, b, sizeof(b), NULL, 0), 0);
		assert_int_equal(get_seq(b), i);
		assert_int_equal(sdds_reader_take(r2, b, sizeof(b), NULL, 0), 0);
		assert_int_equal(get_seq(b), i);
	}
	sdds_reader_free(r1);
	sdds_reader_free(r2);
	sdds_writer_free(w);
}

static void test_best_effort_overwrite_and_lost(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_BEST_EFFORT, 100);
	sdds_reader *r = reader(f->t, SDDS_BEST_EFFORT, 3); /* rounded up to 4 slots */
	uint8_t b[SAMPLE];

	for (uint32_t i = 0; i < 10; i++) {
		put_seq(b, i);
		/* Best effort never blocks a writer. */
		assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	}
	for (uint32_t i = 6; i < 10; i++) {
		assert_int_equal(sdds_reader_take(r, b, sizeof(b), NULL, 0), 0);
		assert_int_equal(get_seq(b), i);
	}
	assert_int_equal(sdds_reader_take(r, b, sizeof(b), NULL, 0), -EAGAIN);
	assert_int_equal(sdds_reader_lost(r), 6);
	sdds_reader_free(r);
	sdds_writer_free(w);
}

/* ---------------- reliable back-pressure ---------------- */

static void test_reliable_nonblocking_and_timeout(void **state)
{
	struct fix *f = *state;
	sdds_writer *w0 = writer(f->t, SDDS_RELIABLE, 0);
	sdds_writer *w = writer(f->t, SDDS_RELIABLE, 60);
	sdds_reader *r = reader(f->t, SDDS_RELIABLE, 2);
	uint8_t b[SAMPLE];
	int64_t t0, dt;

	put_seq(b, 0);
	assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	put_seq(b, 1);
	assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	/* max_blocking_ms 0: no waiting at all. */
	put_seq(b, 99);
	assert_int_equal(sdds_writer_write(w0, b, SAMPLE), -EAGAIN);

	t0 = now_ns();
	assert_int_equal(sdds_writer_write(w, b, SAMPLE), -ETIMEDOUT);
	dt = now_ns() - t0;
	assert_true(dt >= 55 * 1000000LL);
	assert_true(dt < 5000 * 1000000LL);

	/* Nothing was lost or reordered for the reliable reader. */
	assert_int_equal(sdds_reader_take(r, b, sizeof(b), NULL, 0), 0);
	assert_int_equal(get_seq(b), 0);
	assert_int_equal(sdds_reader_take(r, b, sizeof(b), NULL, 0), 0);
	assert_int_equal(get_seq(b), 1);
	assert_int_equal(sdds_reader_take(r, b, sizeof(b), NULL, 0), -EAGAIN);
	assert_int_equal(sdds_reader_lost(r), 0);
	sdds_reader_free(r);
	sdds_writer_free(w);
	sdds_writer_free(w0);
}

static void test_reliable_timeout_still_feeds_others(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_RELIABLE, 20);
	sdds_reader *full = reader(f->t, SDDS_RELIABLE, 1);
	sdds_reader *be = reader(f->t, SDDS_BEST_EFFORT, 8);
	uint8_t b[SAMPLE];

	put_seq(b, 1);
	assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	put_seq(b, 2);
	assert_int_equal(sdds_writer_write(w, b, SAMPLE), -ETIMEDOUT);
	/* The best-effort reader got both; the full reliable one only the first. */
	assert_int_equal(sdds_reader_take(be, b, sizeof(b), NULL, 0), 0);
	assert_int_equal(get_seq(b), 1);
	assert_int_equal(sdds_reader_take(be, b, sizeof(b), NULL, 0), 0);
	assert_int_equal(get_seq(b), 2);
	assert_int_equal(sdds_reader_take(full, b, sizeof(b), NULL, 0), 0);
	assert_int_equal(get_seq(b), 1);
	assert_int_equal(sdds_reader_take(full, b, sizeof(b), NULL, 0), -EAGAIN);
	sdds_reader_free(full);
	sdds_reader_free(be);
	sdds_writer_free(w);
}

struct delayed_take {
	sdds_reader *r;
	int delay_ms;
	int rc;
	uint32_t got;
};

static void *delayed_take_main(void *arg)
{
	struct delayed_take *d = arg;
	uint8_t b[SAMPLE];

	sleep_ms(d->delay_ms);
	d->rc = sdds_reader_take(d->r, b, sizeof(b), NULL, 0);
	d->got = get_seq(b);
	return NULL;
}

static void test_reliable_blocked_writer_released_by_take(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_RELIABLE, 3000);
	sdds_reader *r = reader(f->t, SDDS_RELIABLE, 1);
	struct delayed_take d = {.r = r, .delay_ms = 30};
	uint8_t b[SAMPLE];
	pthread_t th;
	int64_t t0, dt;

	put_seq(b, 1);
	assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	assert_int_equal(pthread_create(&th, NULL, delayed_take_main, &d), 0);
	t0 = now_ns();
	put_seq(b, 2);
	assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	dt = now_ns() - t0;
	pthread_join(th, NULL);
	assert_int_equal(d.rc, 0);
	assert_int_equal(d.got, 1);
	/* Released by the take, long before max_blocking_ms. */
	assert_true(dt >= 20 * 1000000LL);
	assert_true(dt < 2500 * 1000000LL);
	assert_int_equal(sdds_reader_take(r, b, sizeof(b), NULL, 0), 0);
	assert_int_equal(get_seq(b), 2);
	sdds_reader_free(r);
	sdds_writer_free(w);
}

static void *free_reader_later(void *arg)
{
	sleep_ms(30);
	sdds_reader_free(arg);
	return NULL;
}

static void test_reliable_blocker_freed(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_RELIABLE, 3000);
	sdds_reader *r = reader(f->t, SDDS_RELIABLE, 1);
	uint8_t b[SAMPLE];
	pthread_t th;
	int64_t t0;

	put_seq(b, 1);
	assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	assert_int_equal(pthread_create(&th, NULL, free_reader_later, r), 0);
	t0 = now_ns();
	assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	assert_true(now_ns() - t0 < 2500 * 1000000LL);
	pthread_join(th, NULL);
	sdds_writer_free(w);
}

/* A reliable pipeline through a tiny ring: nothing lost, nothing stuck. */
struct stream {
	sdds_reader *r;
	uint32_t n;
	uint32_t bad;
};

static void *stream_reader_main(void *arg)
{
	struct stream *s = arg;
	uint8_t b[SAMPLE];

	for (uint32_t i = 0; i < s->n; i++) {
		if (sdds_reader_take(s->r, b, sizeof(b), NULL, 5000LL * 1000000) != 0 || get_seq(b) != i) {
			s->bad++;
			break;
		}
		/* Random short pauses make the writer block and sleep often. */
		if ((i * 2654435761u) % 97 == 0)
			sleep_ms(0);
	}
	return NULL;
}

static void test_reliable_stream_no_loss(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_RELIABLE, 5000);
	sdds_reader *r = reader(f->t, SDDS_RELIABLE, 4);
	struct stream s = {.r = r, .n = 30000};
	uint8_t b[SAMPLE];
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, stream_reader_main, &s), 0);
	for (uint32_t i = 0; i < s.n; i++) {
		put_seq(b, i);
		if (sdds_writer_write(w, b, SAMPLE) != 0)
			fail_msg("write %u failed", i);
	}
	pthread_join(th, NULL);
	assert_int_equal(s.bad, 0);
	assert_int_equal(sdds_reader_lost(r), 0);
	sdds_reader_free(r);
	sdds_writer_free(w);
}

/* ---------------- blocking take ---------------- */

struct delayed_write {
	sdds_writer *w;
	int delay_ms;
	uint32_t val;
	int rc;
};

static void *delayed_write_main(void *arg)
{
	struct delayed_write *d = arg;
	uint8_t b[SAMPLE];

	sleep_ms(d->delay_ms);
	put_seq(b, d->val);
	d->rc = sdds_writer_write(d->w, b, SAMPLE);
	return NULL;
}

static void test_take_timeout_and_wakeup(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_BEST_EFFORT, 100);
	sdds_reader *r = reader(f->t, SDDS_BEST_EFFORT, 8);
	struct delayed_write d = {.w = w, .delay_ms = 30, .val = 77};
	uint8_t b[SAMPLE];
	pthread_t th;
	int64_t t0, dt;

	t0 = now_ns();
	assert_int_equal(sdds_reader_take(r, b, sizeof(b), NULL, 40 * 1000000LL), -ETIMEDOUT);
	dt = now_ns() - t0;
	assert_true(dt >= 35 * 1000000LL);

	assert_int_equal(pthread_create(&th, NULL, delayed_write_main, &d), 0);
	assert_int_equal(sdds_reader_take(r, b, sizeof(b), NULL, -1), 0);
	assert_int_equal(get_seq(b), 77);
	pthread_join(th, NULL);
	assert_int_equal(d.rc, 0);

	d.delay_ms = 10;
	d.val = 78;
	assert_int_equal(pthread_create(&th, NULL, delayed_write_main, &d), 0);
	assert_int_equal(sdds_reader_take(r, b, sizeof(b), NULL, 3000 * 1000000LL), 0);
	assert_int_equal(get_seq(b), 78);
	pthread_join(th, NULL);
	assert_int_equal(d.rc, 0);
	sdds_reader_free(r);
	sdds_writer_free(w);
}

/* ---------------- listeners ---------------- */

struct lis {
	pthread_mutex_t m;
	unsigned calls;
	unsigned taken;
	bool take;
	bool wrong_thread;
	pthread_t main_thread;
	pthread_t cb_thread;
	uint32_t next;
	unsigned order_errors;
	int sleep_ms;
	volatile int in_cb;
	sdds_reader *expect;
};

static void lis_fn(sdds_reader *r, void *arg)
{
	struct lis *l = arg;
	uint8_t b[SAMPLE];

	l->in_cb = 1;
	if (r != l->expect || pthread_equal(pthread_self(), l->main_thread))
		l->wrong_thread = true;
	pthread_mutex_lock(&l->m);
	if (l->calls == 0)
		l->cb_thread = pthread_self();
	else if (!pthread_equal(l->cb_thread, pthread_self()))
		l->wrong_thread = true;
	l->calls++;
	pthread_mutex_unlock(&l->m);
	if (l->take && sdds_reader_take(r, b, sizeof(b), NULL, 0) == 0) {
		if (get_seq(b) != l->next)
			l->order_errors++;
		l->next = get_seq(b) + 1;
		l->taken++;
	}
	if (l->sleep_ms)
		sleep_ms(l->sleep_ms);
	l->in_cb = 0;
}

static unsigned lis_calls(struct lis *l)
{
	unsigned n;

	pthread_mutex_lock(&l->m);
	n = l->calls;
	pthread_mutex_unlock(&l->m);
	return n;
}

static bool lis_wait_calls(struct lis *l, unsigned n, int ms)
{
	for (int i = 0; i < ms; i++) {
		if (lis_calls(l) >= n)
			return true;
		sleep_ms(1);
	}
	return lis_calls(l) >= n;
}

static void lis_init(struct lis *l, sdds_reader *r)
{
	memset(l, 0, sizeof(*l));
	pthread_mutex_init(&l->m, NULL);
	l->main_thread = pthread_self();
	l->expect = r;
}

static void test_listener_once_per_sample_no_take(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_BEST_EFFORT, 100);
	sdds_reader *r = reader(f->t, SDDS_BEST_EFFORT, 64);
	struct lis l;
	uint8_t b[SAMPLE];

	lis_init(&l, r);
	assert_int_equal(sdds_reader_set_listener(r, lis_fn, &l), 0);
	for (uint32_t i = 0; i < 10; i++) {
		put_seq(b, i);
		assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	}
	assert_true(lis_wait_calls(&l, 10, 3000));
	/* The listener does not take: it must not be called again and again. */
	sleep_ms(50);
	assert_int_equal(lis_calls(&l), 10);
	assert_false(l.wrong_thread);
	/* The samples are all still there. */
	for (uint32_t i = 0; i < 10; i++) {
		assert_int_equal(sdds_reader_take(r, b, sizeof(b), NULL, 0), 0);
		assert_int_equal(get_seq(b), i);
	}
	assert_int_equal(sdds_reader_set_listener(r, NULL, NULL), 0);
	sdds_reader_free(r);
	sdds_writer_free(w);
	pthread_mutex_destroy(&l.m);
}

static void test_listener_takes_everything(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_RELIABLE, 3000);
	sdds_reader *r = reader(f->t, SDDS_RELIABLE, 8);
	struct lis l;
	uint8_t b[SAMPLE];
	const uint32_t n = 2000;

	lis_init(&l, r);
	l.take = true;
	assert_int_equal(sdds_reader_set_listener(r, lis_fn, &l), 0);
	for (uint32_t i = 0; i < n; i++) {
		put_seq(b, i);
		assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	}
	assert_true(lis_wait_calls(&l, n, 5000));
	sleep_ms(20);
	/* After removal returns, every callback happened before: read l freely. */
	assert_int_equal(sdds_reader_set_listener(r, NULL, NULL), 0);
	assert_int_equal(lis_calls(&l), n);
	assert_int_equal(l.taken, n);
	assert_int_equal(l.order_errors, 0);
	assert_false(l.wrong_thread);
	sdds_reader_free(r); /* with the listener still set */
	sdds_writer_free(w);
	pthread_mutex_destroy(&l.m);
}

static void test_listener_pending_when_set(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_BEST_EFFORT, 100);
	sdds_reader *r = reader(f->t, SDDS_BEST_EFFORT, 16);
	struct lis l;
	uint8_t b[SAMPLE];

	for (uint32_t i = 0; i < 3; i++) {
		put_seq(b, i);
		assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	}
	assert_int_equal(sdds_reader_take(r, b, sizeof(b), NULL, 0), 0);
	lis_init(&l, r);
	l.take = true;
	l.next = 1;
	/* Two samples wait already: the listener hears of both. */
	assert_int_equal(sdds_reader_set_listener(r, lis_fn, &l), 0);
	assert_true(lis_wait_calls(&l, 2, 3000));
	sleep_ms(20);
	assert_int_equal(sdds_reader_set_listener(r, NULL, NULL), 0);
	assert_int_equal(lis_calls(&l), 2);
	assert_int_equal(l.taken, 2);
	assert_int_equal(l.order_errors, 0);
	sdds_reader_free(r);
	sdds_writer_free(w);
	pthread_mutex_destroy(&l.m);
}

static void test_set_listener_null_waits_for_callback(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_BEST_EFFORT, 100);
	sdds_reader *r = reader(f->t, SDDS_BEST_EFFORT, 16);
	struct lis l;
	uint8_t b[SAMPLE];

	lis_init(&l, r);
	l.sleep_ms = 80;
	assert_int_equal(sdds_reader_set_listener(r, lis_fn, &l), 0);
	put_seq(b, 0);
	assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	assert_true(lis_wait_calls(&l, 1, 3000));
	/* The callback now sleeps; removal must wait until it has returned. */
	assert_int_equal(sdds_reader_set_listener(r, NULL, NULL), 0);
	assert_int_equal(l.in_cb, 0);
	assert_int_equal(lis_calls(&l), 1);
	/* And it is never called again. */
	for (uint32_t i = 1; i < 5; i++) {
		put_seq(b, i);
		assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	}
	sleep_ms(50);
	assert_int_equal(lis_calls(&l), 1);
	/* Setting it again picks up the untaken samples. */
	l.sleep_ms = 0;
	assert_int_equal(sdds_reader_set_listener(r, lis_fn, &l), 0);
	assert_true(lis_wait_calls(&l, 1 + 5, 3000));
	sdds_reader_free(r);
	sdds_writer_free(w);
	pthread_mutex_destroy(&l.m);
}

/* A listener that removes itself and frees its reader from inside the callback. */
struct selfremove {
	int calls;
	sdds_reader *other;
	int other_calls;
};

static void selfremove_fn(sdds_reader *r, void *arg)
{
	struct selfremove *s = arg;

	s->calls++;
	if (sdds_reader_set_listener(r, NULL, NULL) != 0)
		s->calls += 100;
	sdds_reader_free(r);
}

static void other_fn(sdds_reader *r, void *arg)
{
	struct selfremove *s = arg;
	uint8_t b[SAMPLE];

	(void)sdds_reader_take(r, b, sizeof(b), NULL, 0);
	__atomic_add_fetch(&s->other_calls, 1, __ATOMIC_SEQ_CST);
}

static void test_listener_frees_own_reader(void **state)
{
	struct fix *f = *state;
	sdds_writer *w = writer(f->t, SDDS_BEST_EFFORT, 100);
	sdds_reader *r = reader(f->t, SDDS_BEST_EFFORT, 16);
	sdds_reader *r2 = reader(f->t, SDDS_BEST_EFFORT, 16);
	struct selfremove s = {0};
	uint8_t b[SAMPLE];

	assert_int_equal(sdds_reader_set_listener(r, selfremove_fn, &s), 0);
	assert_int_equal(sdds_reader_set_listener(r2, other_fn, &s), 0);
	for (uint32_t i = 0; i < 3; i++) {
		put_seq(b, i);
		assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	}
	for (int i = 0; i < 3000 && __atomic_load_n(&s.other_calls, __ATOMIC_SEQ_CST) < 3; i++)
		sleep_ms(1);
	assert_int_equal(__atomic_load_n(&s.other_calls, __ATOMIC_SEQ_CST), 3);
	assert_int_equal(s.calls, 1);
	sdds_reader_free(r2);
	sdds_writer_free(w);
}

/* ---------------- two clients, lifetimes ---------------- */

static void test_two_clients_one_process(void **state)
{
	sdds_client *a = mono_client(), *b = mono_client();
	sdds_topic *ta = topic8(a, 20), *tb = topic8(b, 20);
	sdds_writer *w = writer(ta, SDDS_RELIABLE, 1000);
	sdds_reader *r = reader(tb, SDDS_RELIABLE, 4);
	uint8_t s[SAMPLE];

	(void)state;
	for (uint32_t i = 0; i < 3; i++) {
		put_seq(s, i);
		assert_int_equal(sdds_writer_write(w, s, SAMPLE), 0);
	}
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(sdds_reader_take(r, s, sizeof(s), NULL, 1000 * 1000000LL), 0);
		assert_int_equal(get_seq(s), i);
	}
	/* Freed with their objects alive: the client frees them. */
	sdds_client_free(b);
	put_seq(s, 3);
	assert_int_equal(sdds_writer_write(w, s, SAMPLE), 0);
	sdds_client_free(a);
}

static void test_free_with_everything_alive(void **state)
{
	sdds_client *c = mono_client();
	sdds_topic *t = topic8(c, 30);
	sdds_writer *w = writer(t, SDDS_BEST_EFFORT, 100);
	sdds_reader *r = reader(t, SDDS_BEST_EFFORT, 4);
	struct lis l;
	uint8_t b[SAMPLE];

	(void)state;
	lis_init(&l, r);
	assert_int_equal(sdds_reader_set_listener(r, lis_fn, &l), 0);
	put_seq(b, 0);
	assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	assert_true(lis_wait_calls(&l, 1, 3000));
	sdds_client_free(c);
	pthread_mutex_destroy(&l.m);
}

static void test_topic_freed_before_endpoints(void **state)
{
	sdds_client *c = mono_client();
	sdds_topic *t = topic8(c, 31);
	sdds_writer *w = writer(t, SDDS_BEST_EFFORT, 100);
	sdds_reader *r = reader(t, SDDS_BEST_EFFORT, 4);
	uint8_t b[SAMPLE];

	(void)state;
	sdds_topic_free(t); /* endpoints keep it */
	put_seq(b, 5);
	assert_int_equal(sdds_writer_write(w, b, SAMPLE), 0);
	assert_int_equal(sdds_reader_take(r, b, sizeof(b), NULL, 0), 0);
	assert_int_equal(get_seq(b), 5);
	sdds_writer_free(w);
	sdds_reader_free(r);
	sdds_client_free(c);
}

/* ---------------- argument errors ---------------- */

static void test_argument_errors(void **state)
{
	struct fix *f = *state;
	sdds_topic_desc d = {
	    .name = "t8", .domain = 1, .id = 10, .sample_size = SAMPLE, .fields = fields8, .n_fields = 2};
	sdds_field badf[] = {{"a", SDDS_FIELD_ULONG, 4}, {"b", SDDS_FIELD_ULONG, 2}};
	sdds_writer *w = writer(f->t, SDDS_BEST_EFFORT, 100);
	sdds_reader *r = reader(f->t, SDDS_BEST_EFFORT, 4);
	sdds_topic *t = NULL;
	sdds_writer *w2 = NULL;
	sdds_reader *r2 = NULL;
	sdds_qos q;
	uint8_t b[64];

	assert_int_equal(sdds_client_new(NULL, NULL), -EINVAL);
	assert_int_equal(sdds_topic_new(NULL, &d, &t), -EINVAL);
	assert_int_equal(sdds_topic_new(f->c, NULL, &t), -EINVAL);
	assert_int_equal(sdds_topic_new(f->c, &d, NULL), -EINVAL);
	d.name = NULL;
	assert_int_equal(sdds_topic_new(f->c, &d, &t), -EINVAL);
	d.name = "t8";
	d.sample_size = 0;
	assert_int_equal(sdds_topic_new(f->c, &d, &t), -EINVAL);
	/* Field sizes that do not add up. */
	d.sample_size = SAMPLE;
	d.fields = badf;
	assert_int_equal(sdds_topic_new(f->c, &d, &t), -EINVAL);
	/* The same (domain, id) with another size conflicts. */
	d.fields = NULL;
	d.n_fields = 0;
	d.sample_size = 12;
	assert_int_equal(sdds_topic_new(f->c, &d, &t), -EINVAL);
	assert_null(t);

	assert_int_equal(sdds_writer_new(NULL, NULL, &w2), -EINVAL);
	assert_int_equal(sdds_writer_new(f->t, NULL, NULL), -EINVAL);
	sdds_qos_init(&q);
	q.reliability = (sdds_reliability)7;
	assert_int_equal(sdds_writer_new(f->t, &q, &w2), -EINVAL);
	assert_int_equal(sdds_reader_new(f->t, &q, &r2), -EINVAL);
	assert_null(w2);
	assert_null(r2);

	assert_int_equal(sdds_writer_write(NULL, b, SAMPLE), -EINVAL);
	assert_int_equal(sdds_writer_write(w, NULL, SAMPLE), -EINVAL);
	assert_int_equal(sdds_writer_write(w, b, SAMPLE - 1), -EMSGSIZE);
	assert_int_equal(sdds_writer_write(w, b, SAMPLE + 1), -EMSGSIZE);
	assert_int_equal(sdds_reader_take(NULL, b, sizeof(b), NULL, 0), -EINVAL);
	assert_int_equal(sdds_reader_take(r, NULL, sizeof(b), NULL, 0), -EINVAL);
	assert_int_equal(sdds_reader_take(r, b, SAMPLE - 1, NULL, 0), -EINVAL);
	assert_int_equal(sdds_reader_set_listener(NULL, NULL, NULL), -EINVAL);
	assert_int_equal(sdds_reader_lost(NULL), 0);
	assert_int_equal(sdds_topic_sample_size(NULL), 0);
	assert_false(sdds_client_connected(NULL));

	/* NULL is accepted by every _free. */
	sdds_client_free(NULL);
	sdds_topic_free(NULL);
	sdds_writer_free(NULL);
	sdds_reader_free(NULL);
	sdds_reader_free(r);
	sdds_writer_free(w);
}

static void test_strerror(void **state)
{
	static const int codes[] = {0,	       -ENOTCONN, -EACCES, -ETIMEDOUT, -EAGAIN, -EINVAL,
				    -EMSGSIZE, -ENOSPC,	  -EPROTO, -ENOENT,    -EIO,	-9999};

	(void)state;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		const char *s = sdds_strerror(codes[i]);

		assert_non_null(s);
		assert_true(strlen(s) > 0);
	}
	assert_string_equal(sdds_strerror(-ENOTCONN), sdds_strerror(ENOTCONN));
	assert_true(strcmp(sdds_strerror(-ETIMEDOUT), sdds_strerror(-EAGAIN)) != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_session_and_connected, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_take_in_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_take_many_batches, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fanout_two_readers, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_best_effort_overwrite_and_lost, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reliable_nonblocking_and_timeout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reliable_timeout_still_feeds_others, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reliable_blocked_writer_released_by_take, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reliable_blocker_freed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reliable_stream_no_loss, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_take_timeout_and_wakeup, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_listener_once_per_sample_no_take, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_listener_takes_everything, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_listener_pending_when_set, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_set_listener_null_waits_for_callback, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_listener_frees_own_reader, setup, teardown),
	    cmocka_unit_test(test_two_clients_one_process),
	    cmocka_unit_test(test_free_with_everything_alive),
	    cmocka_unit_test(test_topic_freed_before_endpoints),
	    cmocka_unit_test_setup_teardown(test_argument_errors, setup, teardown),
	    cmocka_unit_test(test_strerror),
	};

	/* The environment must not switch the mode under the test. */
	unsetenv("SDDS_MONOLITHIC");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
