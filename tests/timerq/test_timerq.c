/* SPDX-License-Identifier: MIT */
/*
 * test_timerq.c - the timer queue (lib/timerq): 10,000 random dues run in
 * the order of a stable sort, equal dues in arm order, cancel of idle,
 * head, middle and last timers, re-arm earlier and later, callbacks that
 * re-arm themselves, cancel another due timer, arm new timers in the past
 * or call timerq_run again, next_due after every step, and 200,000 random
 * arms, cancels and runs, with callbacks that arm and cancel, against a
 * model that is a plain array.
 *
 * OVERVIEW
 * Each timer is embedded in a struct tt that knows its index; callbacks
 * append the index to a log and may act on the queue as the test says.
 * After every step the heap is walked: every parent link is right, every
 * parent runs before its children, and it holds as many nodes as the
 * queue counts. Random numbers come from a fixed-seed xorshift, so a
 * failure repeats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <timerq/timerq.h>

struct tt {
	struct timerq_timer timer;
	size_t id;
};

/* The run log and what the callbacks do, shared by every test. */
static size_t g_log[20000];
static size_t g_n_log;
static int64_t g_log_now[20000];

static void log_cb(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct tt *x = TIMERQ_CONTAINER_OF(t, struct tt, timer);

	(void)q;
	assert_false(timerq_armed(t));
	assert_true(timerq_timer_due(t) <= now);
	assert_true(g_n_log < sizeof(g_log) / sizeof(g_log[0]));
	g_log_now[g_n_log] = now;
	g_log[g_n_log++] = x->id;
}

static uint64_t g_rng = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
	g_rng ^= g_rng << 13;
	g_rng ^= g_rng >> 7;
	g_rng ^= g_rng << 17;
	return g_rng;
}

static int64_t rnd_range(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* Walks the subtree at t: links, order; returns its node count. */
static size_t heap_check_node(const struct timerq_timer *t, const struct timerq_timer *parent)
{
	if (t == NULL)
		return 0;
	assert_ptr_equal(t->link.heap.parent, parent);
	assert_true(timerq_armed(t));
	if (parent != NULL)
		assert_true(parent->due < t->due || (parent->due == t->due && parent->seq < t->seq));
	return 1 + heap_check_node(t->link.heap.left, t) + heap_check_node(t->link.heap.right, t);
}

static void heap_check(const struct timerq *q)
{
	assert_int_equal(heap_check_node(q->root, NULL), q->n_heap);
	if (!q->running)
		assert_int_equal(q->n_heap, timerq_count(q));
}

static void tts_init(struct tt *x, size_t n, timerq_cb cb)
{
	for (size_t i = 0; i < n; i++) {
		x[i].id = i;
		timerq_timer_init(&x[i].timer, cb);
	}
}

static void assert_next_due(const struct timerq *q, int64_t want)
{
	int64_t due = INT64_MIN;

	assert_true(timerq_next_due(q, &due));
	assert_int_equal(due, want);
}

static void assert_empty(const struct timerq *q)
{
	int64_t due = 12345;

	assert_false(timerq_next_due(q, &due));
	assert_int_equal(due, 12345); /* left alone */
	assert_int_equal(timerq_count(q), 0);
	heap_check(q);
}

static int setup(void **state)
{
	(void)state;
	g_n_log = 0;
	return 0;
}

static void test_empty(void **state)
{
	struct timerq q;
	struct tt x;

	(void)state;
	timerq_init(&q);
	assert_empty(&q);
	assert_int_equal(timerq_run(&q, INT64_MAX), 0);
	tts_init(&x, 1, log_cb);
	assert_false(timerq_armed(&x.timer));
	timerq_arm(&q, &x.timer, INT64_MIN);
	assert_true(timerq_armed(&x.timer));
	assert_next_due(&q, INT64_MIN);
	assert_int_equal(timerq_run(&q, INT64_MIN), 1);
	assert_false(timerq_armed(&x.timer));
	assert_empty(&q);
}

/* Sorts indices by (due, index): the index is the arm order. */
static int64_t *g_sort_due;

static int cmp_due_then_index(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (g_sort_due[i] != g_sort_due[j])
		return g_sort_due[i] < g_sort_due[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

#define N_ORDER 10000

static void order_random(bool stepwise)
{
	static struct tt x[N_ORDER];
	static int64_t due[N_ORDER];
	static size_t want[N_ORDER];
	struct timerq q;

	timerq_init(&q);
	tts_init(x, N_ORDER, log_cb);
	for (size_t i = 0; i < N_ORDER; i++) {
		/* Few enough values that many dues tie; some negative. */
		due[i] = rnd_range(-1000, 3000) * 1000000;
		want[i] = i;
		timerq_arm(&q, &x[i].timer, due[i]);
	}
	heap_check(&q);
	assert_int_equal(timerq_count(&q), N_ORDER);
	g_sort_due = due;
	qsort(want, N_ORDER, sizeof(want[0]), cmp_due_then_index);
	assert_next_due(&q, due[want[0]]);

	if (!stepwise) {
		assert_int_equal(timerq_run(&q, INT64_MAX), N_ORDER);
	} else {
		/* Runs at random steps of time: each runs exactly what is due. */
		size_t done = 0;
		int64_t now = -1001 * 1000000;
		while (done < N_ORDER) {
			size_t expect = 0;
			now += rnd_range(0, 5000000);
			while (done + expect < N_ORDER && due[want[done + expect]] <= now)
				expect++;
			assert_int_equal(timerq_run(&q, now), expect);
			done += expect;
			heap_check(&q);
			assert_int_equal(timerq_count(&q), N_ORDER - done);
			if (done < N_ORDER) {
				assert_next_due(&q, due[want[done]]);
				assert_true(due[want[done]] > now);
			}
		}
	}
	assert_int_equal(g_n_log, N_ORDER);
	for (size_t i = 0; i < N_ORDER; i++)
		assert_int_equal(g_log[i], want[i]);
	assert_empty(&q);
}

static void test_order_random(void **state)
{
	(void)state;
	order_random(false);
}

static void test_order_random_stepwise(void **state)
{
	(void)state;
	order_random(true);
}

static void test_ties_fifo(void **state)
{
	static const size_t order[] = {3, 1, 4, 0, 2, 6, 5};
	struct timerq q;
	struct tt x[7];

	(void)state;
	timerq_init(&q);
	tts_init(x, 7, log_cb);
	for (size_t i = 0; i < 7; i++)
		timerq_arm(&q, &x[order[i]].timer, 50);
	/* Re-arming at the same due goes behind every equal timer: 4 runs last. */
	timerq_arm(&q, &x[4].timer, 50);
	/* An earlier one in front of all. */
	timerq_arm(&q, &x[5].timer, 49);
	heap_check(&q);
	assert_next_due(&q, 49);
	assert_int_equal(timerq_run(&q, 49), 1);
	assert_next_due(&q, 50);
	assert_int_equal(timerq_run(&q, 50), 6);
	static const size_t want[] = {5, 3, 1, 0, 2, 6, 4};
	assert_int_equal(g_n_log, 7);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(g_log[i], want[i]);
	assert_empty(&q);
}

static void test_cancel(void **state)
{
	struct timerq q;
	struct tt x[10];

	(void)state;
	timerq_init(&q);
	tts_init(x, 10, log_cb);
	/* An idle timer, never armed: nothing happens, twice. */
	timerq_cancel(&q, &x[0].timer);
	timerq_cancel(&q, &x[0].timer);
	assert_empty(&q);

	for (size_t i = 0; i < 10; i++)
		timerq_arm(&q, &x[i].timer, 100 + 10 * (int64_t)i);
	/* The head. */
	timerq_cancel(&q, &x[0].timer);
	assert_false(timerq_armed(&x[0].timer));
	heap_check(&q);
	assert_next_due(&q, 110);
	/* In the middle, and the last armed. */
	timerq_cancel(&q, &x[5].timer);
	timerq_cancel(&q, &x[9].timer);
	heap_check(&q);
	assert_int_equal(timerq_count(&q), 7);
	assert_next_due(&q, 110);
	/* Cancelled again: nothing happens. */
	timerq_cancel(&q, &x[5].timer);
	assert_int_equal(timerq_count(&q), 7);

	assert_int_equal(timerq_run(&q, 130), 3);
	/* A timer that ran is idle: cancel does nothing. */
	timerq_cancel(&q, &x[1].timer);
	assert_int_equal(timerq_count(&q), 4);
	assert_next_due(&q, 140);
	/* The head again, then the rest one by one from the back. */
	timerq_cancel(&q, &x[4].timer);
	assert_next_due(&q, 160);
	for (size_t i = 8; i >= 6; i--) {
		timerq_cancel(&q, &x[i].timer);
		heap_check(&q);
	}
	assert_empty(&q);
	assert_int_equal(timerq_run(&q, INT64_MAX), 0);
	static const size_t want[] = {1, 2, 3};
	assert_int_equal(g_n_log, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(g_log[i], want[i]);
}

static void test_rearm(void **state)
{
	struct timerq q;
	struct tt x[5];

	(void)state;
	timerq_init(&q);
	tts_init(x, 5, log_cb);
	for (size_t i = 0; i < 5; i++)
		timerq_arm(&q, &x[i].timer, 100 + 10 * (int64_t)i);
	/* Later: the head moves to the back; the count does not change. */
	timerq_arm(&q, &x[0].timer, 500);
	assert_int_equal(timerq_count(&q), 5);
	assert_int_equal(timerq_timer_due(&x[0].timer), 500);
	assert_next_due(&q, 110);
	heap_check(&q);
	/* Earlier: the last becomes the head. */
	timerq_arm(&q, &x[4].timer, 50);
	assert_next_due(&q, 50);
	heap_check(&q);
	/* A middle one, earlier but not the head. */
	timerq_arm(&q, &x[3].timer, 60);
	assert_next_due(&q, 50);
	assert_int_equal(timerq_run(&q, 110), 3);
	assert_next_due(&q, 120);
	assert_int_equal(timerq_run(&q, 1000), 2);
	static const size_t want[] = {4, 3, 1, 2, 0};
	assert_int_equal(g_n_log, 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(g_log[i], want[i]);
	/* A timer that ran arms again like a new one. */
	timerq_arm(&q, &x[2].timer, 7);
	assert_next_due(&q, 7);
	assert_int_equal(timerq_run(&q, 7), 1);
	assert_empty(&q);
}

/* Re-arms itself one period after its due: drift-free periodic. */
#define PERIOD 10

static void periodic_cb(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	log_cb(q, t, now);
	timerq_arm(q, t, timerq_timer_due(t) + PERIOD);
}

static void test_periodic(void **state)
{
	struct timerq q;
	struct tt x[2];

	(void)state;
	timerq_init(&q);
	tts_init(x, 1, periodic_cb);
	tts_init(&x[1], 1, log_cb);
	x[1].id = 1;
	timerq_arm(&q, &x[0].timer, PERIOD);
	timerq_arm(&q, &x[1].timer, 30);
	/* On time: once per period. */
	for (int64_t now = PERIOD; now <= 3 * PERIOD; now += PERIOD) {
		assert_int_equal(timerq_run(&q, now), now == 3 * PERIOD ? 2 : 1);
		assert_next_due(&q, now + PERIOD);
		heap_check(&q);
	}
	/* Late by 3.5 periods: one run per call, never a loop in one call. */
	int64_t now = 75;
	for (int64_t due = 40; due <= 70; due += PERIOD) {
		assert_next_due(&q, due);
		assert_int_equal(timerq_run(&q, now), 1);
	}
	assert_next_due(&q, 80);
	assert_int_equal(timerq_run(&q, now), 0);
	timerq_cancel(&q, &x[0].timer);
	assert_empty(&q);
	static const size_t want[] = {0, 0, 1, 0, 0, 0, 0, 0};
	assert_int_equal(g_n_log, 8);
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(g_log[i], want[i]);
}

/* Callbacks that act on other timers, told through these. */
static struct tt g_x[8];
static struct timerq *g_q;
static int64_t g_arm_due;

static void cancel_next_cb(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct tt *x = TIMERQ_CONTAINER_OF(t, struct tt, timer);

	log_cb(q, t, now);
	timerq_cancel(q, &g_x[x->id + 1].timer);
	assert_false(timerq_armed(&g_x[x->id + 1].timer));
}

static void test_cb_cancels_due(void **state)
{
	struct timerq q;

	(void)state;
	timerq_init(&q);
	tts_init(g_x, 8, log_cb);
	timerq_timer_init(&g_x[0].timer, cancel_next_cb);
	timerq_timer_init(&g_x[3].timer, cancel_next_cb);
	/* 0 cancels 1 (due, ready); 3 cancels 4 (due later, in the heap). */
	for (size_t i = 0; i < 6; i++)
		timerq_arm(&q, &g_x[i].timer, (int64_t)i);
	assert_int_equal(timerq_run(&q, 3), 3);
	assert_next_due(&q, 5);
	assert_int_equal(timerq_run(&q, 10), 1);
	static const size_t want[] = {0, 2, 3, 5};
	assert_int_equal(g_n_log, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(g_log[i], want[i]);
	assert_empty(&q);
}

/* Arms g_x[x->id + 1] at g_arm_due and checks next_due from inside. */
static void arm_next_cb(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct tt *x = TIMERQ_CONTAINER_OF(t, struct tt, timer);

	log_cb(q, t, now);
	timerq_arm(q, &g_x[x->id + 1].timer, g_arm_due);
	assert_true(timerq_armed(&g_x[x->id + 1].timer));
	heap_check(q);
}

static void test_cb_arms_past(void **state)
{
	struct timerq q;

	(void)state;
	timerq_init(&q);
	tts_init(g_x, 8, log_cb);
	/* 0 arms the idle 1 in the past; 1 must wait, 2 (due) runs. */
	timerq_timer_init(&g_x[0].timer, arm_next_cb);
	timerq_arm(&q, &g_x[0].timer, 10);
	timerq_arm(&q, &g_x[2].timer, 10);
	g_arm_due = -5;
	assert_int_equal(timerq_run(&q, 10), 2);
	assert_true(timerq_armed(&g_x[1].timer));
	assert_next_due(&q, -5);
	assert_int_equal(timerq_run(&q, 10), 1);
	assert_empty(&q);

	/* 3 re-arms 4, due and not yet run, to now: it waits for the next call. */
	timerq_timer_init(&g_x[3].timer, arm_next_cb);
	timerq_arm(&q, &g_x[3].timer, 20);
	timerq_arm(&q, &g_x[4].timer, 20);
	timerq_arm(&q, &g_x[5].timer, 20);
	g_arm_due = 20;
	assert_int_equal(timerq_run(&q, 20), 2);
	assert_next_due(&q, 20);
	/* ...and 6 re-armed later by 5 does not run now either. */
	timerq_timer_init(&g_x[5].timer, arm_next_cb);
	timerq_arm(&q, &g_x[5].timer, 20);
	timerq_arm(&q, &g_x[6].timer, 20);
	g_arm_due = 30;
	assert_int_equal(timerq_run(&q, 20), 2);
	assert_next_due(&q, 30);
	assert_int_equal(timerq_run(&q, 30), 1);
	assert_empty(&q);
	static const size_t want[] = {0, 2, 1, 3, 5, 4, 5, 6};
	assert_int_equal(g_n_log, 8);
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(g_log[i], want[i]);
}

/* Re-arms itself at now: runs once per call, never loops. */
static void rearm_now_cb(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	log_cb(q, t, now);
	timerq_arm(q, t, now);
	/* From inside, next_due sees the timer just armed. */
	assert_next_due(q, now);
}

static void nested_run_cb(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	log_cb(q, t, now);
	assert_int_equal(timerq_run(q, now), 0);
}

static void test_cb_rearm_now_and_nested(void **state)
{
	struct timerq q;
	struct tt x[2];

	(void)state;
	timerq_init(&q);
	tts_init(x, 2, log_cb);
	timerq_timer_init(&x[0].timer, rearm_now_cb);
	timerq_timer_init(&x[1].timer, nested_run_cb);
	timerq_arm(&q, &x[0].timer, 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(timerq_run(&q, 100), 1);
	timerq_cancel(&q, &x[0].timer);
	/* A nested run does nothing; 0 waits in the ready list meanwhile. */
	timerq_timer_init(&x[0].timer, log_cb);
	timerq_arm(&q, &x[1].timer, 1);
	timerq_arm(&q, &x[0].timer, 2);
	assert_int_equal(timerq_run(&q, 2), 2);
	assert_empty(&q);
	static const size_t want[] = {0, 0, 0, 0, 0, 1, 0};
	assert_int_equal(g_n_log, 7);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(g_log[i], want[i]);
}

/* A callback may free its object (here: scribble over it) if it did not re-arm it. */
static void scribble_cb(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	log_cb(q, t, now);
	memset(t, 0xa5, sizeof(*t));
}

static void test_cb_frees_self(void **state)
{
	struct timerq q;
	struct tt x[3];

	(void)state;
	timerq_init(&q);
	tts_init(x, 3, scribble_cb);
	for (size_t i = 0; i < 3; i++)
		timerq_arm(&q, &x[i].timer, 5);
	assert_int_equal(timerq_run(&q, 5), 3);
	assert_empty(&q);
}

/*
 * The model: a plain array of what each timer should be, and during a run
 * the due timers in (due, seq) order as the run began. A callback checks it
 * is the next of those still untouched, then arms or cancels others in the
 * queue and in the model alike.
 */
#define N_MODEL 64

struct model {
	bool armed;
	bool ready; /* due at the start of this run, untouched since */
	int64_t due;
	uint64_t seq;
};

static struct model g_m[N_MODEL];
static struct tt g_mx[N_MODEL];
static uint64_t g_mseq;
static size_t g_run_order[N_MODEL];
static size_t g_n_run_order, g_run_pos, g_model_ran;

static void model_arm(size_t i, int64_t due)
{
	timerq_arm(g_q, &g_mx[i].timer, due);
	g_m[i].armed = true;
	g_m[i].ready = false;
	g_m[i].due = due;
	g_m[i].seq = g_mseq++;
}

static void model_cancel(size_t i)
{
	timerq_cancel(g_q, &g_mx[i].timer);
	g_m[i].armed = false;
	g_m[i].ready = false;
}

static void model_check(void)
{
	bool any = false;
	int64_t min = 0;
	size_t n = 0;

	for (size_t i = 0; i < N_MODEL; i++) {
		assert_int_equal(timerq_armed(&g_mx[i].timer), g_m[i].armed);
		if (!g_m[i].armed)
			continue;
		n++;
		if (!any || g_m[i].due < min)
			min = g_m[i].due;
		any = true;
	}
	assert_int_equal(timerq_count(g_q), n);
	if (any)
		assert_next_due(g_q, min);
	else
		assert_empty(g_q);
	heap_check(g_q);
}

static int cmp_model(const void *a, const void *b)
{
	const struct model *x = &g_m[*(const size_t *)a], *y = &g_m[*(const size_t *)b];

	if (x->due != y->due)
		return x->due < y->due ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void model_cb(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct tt *x = TIMERQ_CONTAINER_OF(t, struct tt, timer);

	assert_ptr_equal(q, g_q);
	while (g_run_pos < g_n_run_order && !g_m[g_run_order[g_run_pos]].ready)
		g_run_pos++;
	assert_true(g_run_pos < g_n_run_order);
	assert_int_equal(x->id, g_run_order[g_run_pos]);
	g_run_pos++;
	g_m[x->id].armed = false;
	g_m[x->id].ready = false;
	g_model_ran++;
	model_check();

	/* Up to three actions: re-arm self, arm another, cancel another. */
	for (uint64_t k = rnd() % 4; k > 0; k--) {
		size_t j = rnd() % 4 == 0 ? x->id : (size_t)(rnd() % N_MODEL);
		if (rnd() % 3 == 0)
			model_cancel(j);
		else
			model_arm(j, now + rnd_range(-20, 40));
		model_check();
	}
}

static void test_model(void **state)
{
	struct timerq q;
	int64_t now = 0;

	(void)state;
	g_q = &q;
	g_mseq = 0;
	memset(g_m, 0, sizeof(g_m));
	timerq_init(&q);
	tts_init(g_mx, N_MODEL, model_cb);
	for (int step = 0; step < 200000; step++) {
		uint64_t op = rnd() % 10;
		size_t i = (size_t)(rnd() % N_MODEL);

		if (op < 5) {
			model_arm(i, now + rnd_range(-10, 100));
		} else if (op < 7) {
			model_cancel(i);
		} else {
			now += rnd_range(0, 15);
			g_n_run_order = 0;
			for (size_t k = 0; k < N_MODEL; k++) {
				if (g_m[k].armed && g_m[k].due <= now) {
					g_m[k].ready = true;
					g_run_order[g_n_run_order++] = k;
				}
			}
			qsort(g_run_order, g_n_run_order, sizeof(g_run_order[0]), cmp_model);
			g_run_pos = 0;
			g_model_ran = 0;
			size_t ran = timerq_run(&q, now);
			assert_int_equal(ran, g_model_ran);
			/* Everything due at the start ran or was touched. */
			for (size_t k = 0; k < N_MODEL; k++)
				assert_false(g_m[k].ready);
		}
		model_check();
	}
	for (size_t k = 0; k < N_MODEL; k++)
		model_cancel(k);
	assert_empty(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_empty, setup),
	    cmocka_unit_test_setup(test_order_random, setup),
	    cmocka_unit_test_setup(test_order_random_stepwise, setup),
	    cmocka_unit_test_setup(test_ties_fifo, setup),
	    cmocka_unit_test_setup(test_cancel, setup),
	    cmocka_unit_test_setup(test_rearm, setup),
	    cmocka_unit_test_setup(test_periodic, setup),
	    cmocka_unit_test_setup(test_cb_cancels_due, setup),
	    cmocka_unit_test_setup(test_cb_arms_past, setup),
	    cmocka_unit_test_setup(test_cb_rearm_now_and_nested, setup),
	    cmocka_unit_test_setup(test_cb_frees_self, setup),
	    cmocka_unit_test_setup(test_model, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
