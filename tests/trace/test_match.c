/* SPDX-License-Identifier: MIT */
/*
 * test_match.c - sdds-trace's matcher on made-up events (no BPF, no root):
 * each path followed across processes with the deltas it should have, the
 * variants (callback, no wait), and what must be counted as unmatched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "match.h"

#define T1 ((1u << 16) | 1u) /* domain 1, topic 1 */
#define EPOCH 0x1234abcdull

static uint64_t now;

static void ev(struct trace_matcher *m, uint32_t pid, uint32_t tid, enum trace_phase p, uint64_t dt,
	       uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	struct sdds_trace_event e = {.pid = pid, .tid = tid, .phase = p, .arg = {a0, a1, a2, a3, 0}};

	now += dt;
	e.ts = now;
	assert_int_equal(matcher_feed(m, &e), 0);
}

static const struct trace_run *one_run(struct trace_matcher *m, enum trace_mode mode, enum trace_path path)
{
	size_t n;
	const struct trace_run *r = matcher_runs(m, &n);

	for (size_t i = 0; i < n; i++) {
		if (r[i].mode == mode && r[i].path == path)
			return &r[i];
	}
	fail_msg("no %s %s run", trace_mode_name(mode), trace_path_name(path));
	return NULL;
}

/* Client 100 writes, daemon 200 routes to client 300's ring, which takes after a wake-up. */
static void test_isolated_local(void **state)
{
	struct trace_matcher *m;
	const struct trace_run *r;
	static const uint64_t want[] = {1000, 2000, 3000, 4000, 5000, 6000};

	(void)state;
	assert_int_equal(matcher_new(&m), 0);
	now = 1000000;
	ev(m, 100, 101, TP_WRITE_ENTER, 0, T1, 8, 0, 0);
	ev(m, 100, 101, TP_REQ_ENQUEUED, 1000, EPOCH, 3, 7, 0);
	ev(m, 200, 200, TP_DAEMON_DEQUEUE, 2000, EPOCH, 3, 1, 7);
	ev(m, 200, 200, TP_ROUTED, 3000, T1, 3, 0, 0);
	ev(m, 200, 200, TP_CLIENT_ENQUEUED, 4000, 4, T1, 0, 3);
	ev(m, 300, 301, TP_CLIENT_WOKEN, 5000, 0, 0, 0, 0);
	ev(m, 300, 301, TP_TAKE_RETURN, 6000, EPOCH, 4, T1, 0);
	matcher_finish(m);
	r = one_run(m, TM_ISOLATED, TPATH_LOCAL);
	assert_int_equal(r->samples, 1);
	assert_int_equal(r->unmatched, 0);
	assert_true(r->waited);
	assert_false(r->callback);
	assert_int_equal(r->n_phases, 7);
	for (unsigned i = 0; i < 6; i++) {
		assert_int_equal(r->delta[i].n, 1);
		assert_int_equal(r->delta[i].min_ns, want[i]);
	}
	assert_int_equal(r->total.min_ns, 21000);
	assert_int_equal(matcher_unmatched_other(m), 0);
	assert_int_equal(matcher_taken(m), 1);
	matcher_free(m);
}

/* One process: writer thread 11, callback thread 12 takes inside the listener. */
static void test_monolithic_callback(void **state)
{
	struct trace_matcher *m;
	const struct trace_run *r;

	(void)state;
	assert_int_equal(matcher_new(&m), 0);
	now = 1000000;
	ev(m, 10, 11, TP_WRITE_ENTER, 0, T1, 8, 0, 0);
	ev(m, 10, 11, TP_ROUTED, 100, T1, 0, 0, 0);
	ev(m, 10, 11, TP_CLIENT_ENQUEUED, 100, 0, T1, 5, 0);
	ev(m, 10, 12, TP_CLIENT_WOKEN, 100, 0, 0, 0, 0);
	ev(m, 10, 12, TP_CALLBACK_ENTER, 100, T1, 5, 0, 0);
	ev(m, 10, 12, TP_TAKE_RETURN, 100, 0, 0, T1, 5);
	matcher_finish(m);
	r = one_run(m, TM_MONOLITHIC, TPATH_LOCAL);
	assert_int_equal(r->samples, 1);
	assert_true(r->callback);
	assert_int_equal(r->n_phases, 6);
	assert_int_equal(r->phase[0], TP_WRITE_ENTER);
	assert_int_equal(r->phase[1], TP_ROUTED);
	assert_int_equal(r->total.min_ns, 500);
	matcher_free(m);
}

/* A write to the network: two samples encoded, then one hand-off and one send for both. */
static void test_send_batch(void **state)
{
	struct trace_matcher *m;
	const struct trace_run *r;

	(void)state;
	assert_int_equal(matcher_new(&m), 0);
	now = 1000000;
	for (uint32_t k = 0; k < 2; k++) {
		ev(m, 100, 101, TP_WRITE_ENTER, 10, T1, 8, 0, 0);
		ev(m, 100, 101, TP_REQ_ENQUEUED, 10, EPOCH, 3, k, 0);
	}
	for (uint32_t k = 0; k < 2; k++) {
		ev(m, 200, 200, TP_DAEMON_DEQUEUE, 10, EPOCH, 3, 1, k);
		ev(m, 200, 200, TP_ROUTED, 10, T1, 3, 0, 0);
		ev(m, 200, 200, TP_CLIENT_ENQUEUED, 10, SDDS_TRACE_NET_OWNER, T1, 40 + k, 3);
	}
	ev(m, 200, 200, TP_ENCODED, 10, T1, 40, 1, 0);
	ev(m, 200, 200, TP_ENCODED, 10, T1, 41, 1, 0);
	ev(m, 200, 200, TP_BACKEND_HANDED, 10, 1, 0, 0, 0);
	ev(m, 200, 200, TP_SENT, 10, 1, 1, 0, 0);
	matcher_finish(m);
	r = one_run(m, TM_ISOLATED, TPATH_SEND);
	assert_int_equal(r->samples, 2);
	assert_int_equal(r->unmatched, 0);
	assert_int_equal(r->n_phases, 7);
	assert_int_equal(r->phase[6], TP_SENT);
	assert_int_equal(r->delta[5].n, 2);
	assert_int_equal(r->delta[5].min_ns, 10);
	matcher_free(m);
}

/* Network -> daemon -> client; the second take found its sample without waiting. */
static void test_receive_and_no_wait(void **state)
{
	struct trace_matcher *m;
	const struct trace_run *r;
	size_t n;

	(void)state;
	assert_int_equal(matcher_new(&m), 0);
	now = 1000000;
	/* The epoch becomes known to the tracer through a dequeue of this daemon. */
	ev(m, 200, 200, TP_DAEMON_DEQUEUE, 10, EPOCH, 9, 1, 99);
	ev(m, 200, 200, TP_RECEIVED, 10, 2, 0, 0, 0);
	for (uint32_t k = 0; k < 2; k++) {
		ev(m, 200, 200, TP_DECODED, 10, T1, k, 5000, 0);
		ev(m, 200, 200, TP_ROUTED, 10, T1, SDDS_TRACE_NET_OWNER, 0, 0);
		ev(m, 200, 200, TP_CLIENT_ENQUEUED, 10, 4, T1, k, SDDS_TRACE_NET_OWNER);
		/* The reader sleeps for the first only; the second is there when it takes again. */
		if (k == 0)
			ev(m, 300, 301, TP_CLIENT_WOKEN, 10, 0, 0, 0, 0);
		ev(m, 300, 301, TP_TAKE_RETURN, 10, EPOCH, 4, T1, k);
	}
	matcher_finish(m);
	assert_int_equal(matcher_unmatched_other(m), 0);
	r = matcher_runs(m, &n);
	/* The dequeue of a record written before tracing: an unmatched local sample. */
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		if (r[i].path == TPATH_LOCAL) {
			assert_int_equal(r[i].samples, 0);
			assert_int_equal(r[i].unmatched, 1);
			continue;
		}
		assert_int_equal(r[i].path, TPATH_RECEIVE);
		assert_int_equal(r[i].samples, 1);
		assert_int_equal(r[i].unmatched, 0);
		assert_int_equal(r[i].n_phases, r[i].waited ? 6 : 5);
		assert_int_equal(r[i].phase[0], TP_RECEIVED);
	}
	matcher_free(m);
}

/* Keys nobody can tell apart, and takes of samples never seen pushed, are not guessed. */
static void test_unmatched(void **state)
{
	struct trace_matcher *m;
	size_t n;

	(void)state;
	assert_int_equal(matcher_new(&m), 0);
	now = 1000000;
	/* Two daemons (epochs unknown to the tracer) push the same owner/topic/position. */
	for (uint32_t pid = 200; pid <= 201; pid++) {
		ev(m, pid, pid, TP_RECEIVED, 10, 1, 0, 0, 0);
		ev(m, pid, pid, TP_DECODED, 10, T1, 0, 5000, 0);
		ev(m, pid, pid, TP_ROUTED, 10, T1, SDDS_TRACE_NET_OWNER, 0, 0);
		ev(m, pid, pid, TP_CLIENT_ENQUEUED, 10, 1, T1, 0, SDDS_TRACE_NET_OWNER);
	}
	ev(m, 300, 301, TP_CLIENT_WOKEN, 10, 0, 0, 0, 0);
	ev(m, 300, 301, TP_TAKE_RETURN, 10, 0x77, 1, T1, 0);
	/* A take of a sample pushed before tracing. */
	ev(m, 300, 301, TP_TAKE_RETURN, 10, 0x77, 1, T1, 9);
	matcher_finish(m);
	/* Both takes, and the two pushes nobody took (no reader process known: no mode). */
	assert_int_equal(matcher_unmatched_other(m), 4);
	(void)matcher_runs(m, &n);
	assert_int_equal(n, 0);
	matcher_free(m);
}

static void test_stat(void **state)
{
	struct trace_stat s = {0};

	(void)state;
	trace_stat_add(&s, 2);
	trace_stat_add(&s, 4);
	trace_stat_add(&s, 4);
	trace_stat_add(&s, 4);
	trace_stat_add(&s, 5);
	trace_stat_add(&s, 5);
	trace_stat_add(&s, 7);
	trace_stat_add(&s, 9);
	assert_int_equal(s.min_ns, 2);
	assert_int_equal(s.max_ns, 9);
	assert_true(s.mean_ns > 4.999 && s.mean_ns < 5.001);
	assert_true(trace_stat_std_ns(&s) > 1.999 && trace_stat_std_ns(&s) < 2.001);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_isolated_local), cmocka_unit_test(test_monolithic_callback),
	    cmocka_unit_test(test_send_batch),	   cmocka_unit_test(test_receive_and_no_wait),
	    cmocka_unit_test(test_unmatched),	   cmocka_unit_test(test_stat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
