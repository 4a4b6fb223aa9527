/* SPDX-License-Identifier: MIT */
/*
 * test_arena.c - the reader-ring arena of a session (daemon/arena.c): first
 * fit, merging with either neighbour or both, the table bound (max_alloc
 * allocations, max_alloc + 1 free ranges), an empty arena, and 200,000
 * random allocations and frees against a model that marks every unit of
 * the arena: no two live allocations overlap, every allocation lies inside
 * the arena, the free table is sorted, coalesced and exactly the units the
 * model has free, and all freed the arena is one range again.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

static void test_first_fit_and_merge(void **state)
{
	struct arena a;
	uint64_t o[4];

	(void)state;
	assert_int_equal(arena_init(&a, 4), 0);
	arena_set(&a, 100, 40);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(arena_alloc(&a, 10, &o[i]), 0);
		assert_int_equal(o[i], 100 + 10 * (uint64_t)i);
	}
	assert_int_equal(a.n_free, 0);
	/* Full: nothing is left, and the fifth allocation is over max_alloc anyway. */
	assert_int_equal(arena_alloc(&a, 1, &o[0]), -ENOSPC);
	/* Free 1 and 3: two ranges; then 2 merges with both into one. */
	arena_free(&a, o[1], 10);
	arena_free(&a, o[3], 10);
	assert_int_equal(a.n_free, 2);
	arena_free(&a, o[2], 10);
	assert_int_equal(a.n_free, 1);
	assert_int_equal(a.free[0].off, 110);
	assert_int_equal(a.free[0].len, 30);
	/* First fit takes the lowest range that is long enough. */
	assert_int_equal(arena_alloc(&a, 5, &o[1]), 0);
	assert_int_equal(o[1], 110);
	/* Merge with the next range only, then with the previous only. */
	arena_free(&a, o[0], 10);
	assert_int_equal(a.n_free, 2);
	assert_int_equal(a.free[0].off, 100);
	assert_int_equal(a.free[0].len, 10);
	arena_free(&a, o[1], 5);
	assert_int_equal(a.n_free, 1);
	assert_int_equal(a.free[0].len, 40);
	arena_fini(&a);
}

static void test_bounds(void **state)
{
	struct arena a;
	uint64_t o;

	(void)state;
	/* An arena of nothing (the segment had no room after alignment). */
	assert_int_equal(arena_init(&a, 2), 0);
	arena_set(&a, 64, 0);
	assert_int_equal(a.n_free, 0);
	assert_int_equal(arena_alloc(&a, 1, &o), -ENOSPC);
	/* A zero length is refused; more than is there too. */
	arena_set(&a, 0, 100);
	assert_int_equal(arena_alloc(&a, 0, &o), -ENOSPC);
	assert_int_equal(arena_alloc(&a, 101, &o), -ENOSPC);
	/* max_alloc allocations, then no more even with room left. */
	assert_int_equal(arena_alloc(&a, 10, &o), 0);
	assert_int_equal(arena_alloc(&a, 10, &o), 0);
	assert_int_equal(arena_alloc(&a, 10, &o), -ENOSPC);
	/* arena_set starts over. */
	arena_set(&a, 0, 100);
	assert_int_equal(a.n_alloc, 0);
	assert_int_equal(arena_alloc(&a, 100, &o), 0);
	arena_fini(&a);
	arena_fini(&a); /* twice: zeroed */
}

#define R_UNITS 4096u
#define R_MAX 64u

struct live {
	uint64_t off, len;
};

/* The free table is sorted, coalesced, and exactly the units the model has free. */
static void check_table(const struct arena *a, const uint8_t *used, uint64_t base)
{
	uint64_t free_units = 0;

	assert_true(a->n_free <= a->n_alloc + 1);
	for (uint32_t i = 0; i < a->n_free; i++) {
		const struct arena_range *r = &a->free[i];

		assert_true(r->len > 0);
		assert_true(r->off >= base && r->off + r->len <= base + R_UNITS);
		if (i > 0)
			assert_true(a->free[i - 1].off + a->free[i - 1].len < r->off);
		for (uint64_t u = r->off; u < r->off + r->len; u++)
			assert_int_equal(used[u - base], 0);
		free_units += r->len;
	}
	for (uint64_t u = 0, n = 0; u < R_UNITS; u++) {
		n += used[u] ? 0 : 1;
		if (u == R_UNITS - 1)
			assert_int_equal(n, free_units);
	}
}

static void test_random_against_model(void **state)
{
	static uint8_t used[R_UNITS];
	struct live live[R_MAX];
	uint32_t n_live = 0, refused = 0;
	const uint64_t base = 1000;
	struct arena a;

	(void)state;
	srand(12345);
	memset(used, 0, sizeof(used));
	assert_int_equal(arena_init(&a, R_MAX), 0);
	arena_set(&a, base, R_UNITS);
	for (int step = 0; step < 200000; step++) {
		if (n_live > 0 && (n_live == R_MAX || rand() % 2 == 0)) {
			uint32_t k = (uint32_t)rand() % n_live;

			arena_free(&a, live[k].off, live[k].len);
			memset(used + (live[k].off - base), 0, live[k].len);
			live[k] = live[--n_live];
		} else {
			uint64_t len = 1 + (uint64_t)(rand() % 300), off;

			if (arena_alloc(&a, len, &off) < 0) {
				/* Refused only when no free range is long enough. */
				for (uint32_t i = 0; i < a.n_free; i++)
					assert_true(a.free[i].len < len);
				refused++;
			} else {
				assert_true(off >= base && off + len <= base + R_UNITS);
				for (uint64_t u = 0; u < len; u++) {
					assert_int_equal(used[off - base + u], 0);
					used[off - base + u] = 1;
				}
				live[n_live++] = (struct live){off, len};
			}
		}
		if (step % 97 == 0)
			check_table(&a, used, base);
	}
	assert_true(refused > 0); /* the run reached a full arena too */
	while (n_live > 0) {
		arena_free(&a, live[n_live - 1].off, live[n_live - 1].len);
		n_live--;
	}
	assert_int_equal(a.n_free, 1);
	assert_int_equal(a.free[0].off, base);
	assert_int_equal(a.free[0].len, R_UNITS);
	arena_fini(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_fit_and_merge),
	    cmocka_unit_test(test_bounds),
	    cmocka_unit_test(test_random_against_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
