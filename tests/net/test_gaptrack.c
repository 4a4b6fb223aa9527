/* SPDX-License-Identifier: MIT */
/*
 * test_gaptrack.c - the receive side of NACK streams (daemon/net/gaptrack.h):
 * in-order delivery, reordering, duplicates, gaps and their NACK lists,
 * giving up, the start rule, and the wrap at 4, 8, 16 and 32 bits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "gaptrack.h"

/* A stream with its sample ring: the number of each held sample per slot. */
struct stream {
	struct gaptrack g;
	uint32_t ring[GAPTRACK_MAX_CAP];
	uint32_t out[4096];
	uint32_t n_out;
};

static int offer(struct stream *s, uint32_t seq)
{
	uint32_t slot;
	int rc = gaptrack_offer(&s->g, seq, &slot);

	if (rc >= 0) {
		assert_true(slot < s->g.cap);
		s->ring[slot] = seq & s->g.mask;
		while (gaptrack_pop(&s->g, &slot))
			s->out[s->n_out++] = s->ring[slot];
	}
	return rc;
}

static void setup(struct stream *s, unsigned bits, uint32_t cap)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(gaptrack_init(&s->g, bits, cap), 0);
}

static void test_init_limits(void **state)
{
	struct gaptrack g;

	(void)state;
	assert_int_equal(gaptrack_span(4), 7);
	assert_int_equal(gaptrack_span(8), 127);
	assert_int_equal(gaptrack_span(16), GAPTRACK_MAX_CAP);
	assert_int_equal(gaptrack_span(32), GAPTRACK_MAX_CAP);
	assert_int_equal(gaptrack_init(&g, 4, 8), -EINVAL);
	assert_int_equal(gaptrack_init(&g, 5, 4), -EINVAL);
	assert_int_equal(gaptrack_init(&g, 8, 0), -EINVAL);
	assert_int_equal(gaptrack_init(&g, 4, 7), 0);
}

static void test_in_order_and_duplicates(void **state)
{
	struct stream s;

	(void)state;
	setup(&s, 8, 32);
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(offer(&s, i), 0);
	assert_int_equal(s.n_out, 10);
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(s.out[i], i);
	/* Already delivered: duplicates and late ones are refused. */
	assert_int_equal(offer(&s, 9), -EEXIST);
	assert_int_equal(offer(&s, 3), -EEXIST);
	assert_int_equal(s.n_out, 10);
	assert_int_equal(gaptrack_n_missing(&s.g), 0);
}

static void test_reorder_and_nack_list(void **state)
{
	struct stream s;
	uint32_t seqs[8];

	(void)state;
	setup(&s, 8, 32);
	assert_int_equal(offer(&s, 0), 0);
	assert_int_equal(offer(&s, 3), 0); /* 1 and 2 missing */
	assert_int_equal(offer(&s, 5), 0); /* and 4 */
	assert_int_equal(offer(&s, 5), -EEXIST);
	assert_int_equal(s.n_out, 1);
	assert_int_equal(gaptrack_n_missing(&s.g), 3);
	assert_int_equal(gaptrack_nack_list(&s.g, 2, seqs, 8), 3);
	assert_int_equal(seqs[0], 1);
	assert_int_equal(seqs[1], 2);
	assert_int_equal(seqs[2], 4);
	/* Each may be NACKed twice, then no more. */
	assert_int_equal(gaptrack_nack_list(&s.g, 2, seqs, 8), 3);
	assert_int_equal(gaptrack_nack_list(&s.g, 2, seqs, 8), 0);
	assert_true(gaptrack_head_exhausted(&s.g, 2));
	/* 2 fills a gap: held; 1 fills the head: 1, 2, 3 go out. */
	assert_int_equal(offer(&s, 2), 1);
	assert_int_equal(s.n_out, 1);
	assert_int_equal(offer(&s, 1), 1);
	assert_int_equal(s.n_out, 4);
	assert_int_equal(s.out[3], 3);
	assert_int_equal(gaptrack_n_missing(&s.g), 1);
	assert_int_equal(offer(&s, 4), 1);
	assert_int_equal(s.n_out, 6);
	assert_int_equal(s.out[5], 5);
	assert_int_equal(gaptrack_n_missing(&s.g), 0);
	assert_false(gaptrack_head_exhausted(&s.g, 2));
}

static void test_skip_gives_up(void **state)
{
	struct stream s;
	uint32_t slot;

	(void)state;
	setup(&s, 16, 8);
	assert_int_equal(offer(&s, 100), 0); /* a start past the span: from 100 */
	assert_int_equal(s.n_out, 1);
	assert_int_equal(offer(&s, 103), 0);
	/* 101 given up, 102 given up, then 103 is next and held. */
	assert_int_equal(gaptrack_skip(&s.g, &slot), 0);
	assert_int_equal(gaptrack_skip(&s.g, &slot), 0);
	assert_true(gaptrack_pop(&s.g, &slot));
	assert_int_equal(s.ring[slot], 103);
	/* Far ahead: -ENOBUFS until the caller skipped enough. */
	assert_int_equal(offer(&s, 104 + 8), -ENOBUFS);
	assert_int_equal(gaptrack_skip(&s.g, &slot), 0); /* 104 */
	assert_int_equal(offer(&s, 104 + 8), 0);
	/* A late 104 is behind now. */
	assert_int_equal(offer(&s, 104), -EEXIST);
}

/* A jump moves expect at once when nothing is held, and is refused while something is. */
static void test_jump(void **state)
{
	struct stream s;
	uint32_t slot;
	uint64_t passed;

	(void)state;
	setup(&s, 32, 256);
	assert_int_equal(offer(&s, 0), 0);
	assert_int_equal(offer(&s, 2), 0); /* 1 missing, 2 held */
	assert_int_equal(gaptrack_jump(&s.g, 0x7fffffffu), -EBUSY);
	assert_int_equal(gaptrack_skip(&s.g, &slot), 0); /* 1 given up */
	assert_true(gaptrack_pop(&s.g, &slot));		 /* 2 */
	passed = s.g.passed;
	assert_int_equal(gaptrack_jump(&s.g, 0x7fffffffu), 0x7fffffffu - 3);
	assert_true(s.g.passed == passed + 0x7fffffffu - 3);
	assert_int_equal(offer(&s, 0x7fffffffu), 0);
	assert_int_equal(s.n_out, 2);
	assert_int_equal(s.out[1], 0x7fffffff);
	/* Behind the jump: old numbers are duplicates now. */
	assert_int_equal(offer(&s, 5), -EEXIST);
}

static void test_start_rule(void **state)
{
	struct stream s;
	uint32_t seqs[8];

	(void)state;
	/* First heard at 3 (< span): 0..2 were lost on the way and are missing. */
	setup(&s, 8, 32);
	assert_int_equal(offer(&s, 3), 0);
	assert_int_equal(s.n_out, 0);
	assert_int_equal(gaptrack_nack_list(&s.g, 1, seqs, 8), 3);
	assert_int_equal(seqs[0], 0);
	assert_int_equal(seqs[2], 2);
	offer(&s, 0);
	offer(&s, 2);
	offer(&s, 1);
	assert_int_equal(s.n_out, 4);
	/* First heard at 200 (>= span): a stream joined late starts there. */
	setup(&s, 8, 32);
	assert_int_equal(offer(&s, 200), 0);
	assert_int_equal(s.n_out, 1);
	assert_int_equal(s.out[0], 200);
}

/* Run 3 * space numbers with every 5th one late by 3 through a stream of bits, all in order. */
static void wrap_run(unsigned bits, uint32_t first)
{
	static struct stream s;
	uint32_t cap = gaptrack_span(bits) < 16 ? gaptrack_span(bits) : 16;
	uint32_t mask = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
	uint32_t n = bits <= 8 ? 3 * (mask + 1) : 3000; /* below the 4096 of out */
	uint32_t delivered = 0, late = UINT32_MAX;

	setup(&s, bits, cap);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t seq = (first + i) & mask;

		if (i % 5 == 1 && i + 1 < n) {
			late = seq; /* held back, offered after the next two */
			continue;
		}
		assert_true(offer(&s, seq) >= 0);
		if (late != UINT32_MAX && i % 5 == 3) {
			assert_int_equal(offer(&s, late), 1);
			late = UINT32_MAX;
		}
		while (delivered < s.n_out) {
			assert_int_equal(s.out[delivered], (first + delivered) & mask);
			delivered++;
		}
	}
	if (late != UINT32_MAX)
		assert_int_equal(offer(&s, late), 1);
	assert_int_equal(s.n_out, n);
	for (; delivered < s.n_out; delivered++)
		assert_int_equal(s.out[delivered], (first + delivered) & mask);
	assert_int_equal(gaptrack_n_missing(&s.g), 0);
	/* The position counts every number passed, across the wraps (first <= span: counted from 0). */
	assert_int_equal(s.g.passed, first < cap ? n + first : n);
	/* A duplicate of the last one is refused. */
	assert_int_equal(offer(&s, (first + delivered - 1) & mask), -EEXIST);
}

static void test_wrap_4(void **state)
{
	(void)state;
	wrap_run(4, 0);
}

static void test_wrap_8(void **state)
{
	(void)state;
	wrap_run(8, 0);
}

static void test_wrap_16(void **state)
{
	(void)state;
	wrap_run(16, 65000);
}

static void test_wrap_32(void **state)
{
	(void)state;
	wrap_run(32, 0xfffffc00u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_init_limits),
	    cmocka_unit_test(test_in_order_and_duplicates),
	    cmocka_unit_test(test_reorder_and_nack_list),
	    cmocka_unit_test(test_skip_gives_up),
	    cmocka_unit_test(test_jump),
	    cmocka_unit_test(test_start_rule),
	    cmocka_unit_test(test_wrap_4),
	    cmocka_unit_test(test_wrap_8),
	    cmocka_unit_test(test_wrap_16),
	    cmocka_unit_test(test_wrap_32),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
