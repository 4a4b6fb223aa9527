/* SPDX-License-Identifier: MIT */
/*
 * test_bench_units.c - unit tests of sdds-bench's statistics and JSON
 * emitter (tools/sdds-bench/stats.c, json.c).
 *
 * OVERVIEW
 * The figures the benchmark prints are only as good as these two: the
 * percentile definition (nearest rank, no interpolation) and valid JSON for
 * every string a failure reason may contain.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "json.h"
#include "stats.h"

static void test_stats_nearest_rank(void **state)
{
	uint64_t v[1000];
	struct stats st;

	(void)state;
	/* Reversed, so stats_compute must sort. */
	for (int i = 0; i < 1000; i++)
		v[i] = (uint64_t)(1000 - i);
	assert_int_equal(stats_compute(v, 1000, 1.0, &st), 0);
	assert_int_equal(st.n, 1000);
	assert_true(st.min == 1.0);
	assert_true(st.median == 500.0);
	assert_true(st.p99 == 990.0);
	assert_true(st.p999 == 999.0);
	assert_true(st.max == 1000.0);
	assert_true(fabs(st.mean - 500.5) < 1e-9);
	for (int i = 1; i < 1000; i++)
		assert_true(v[i - 1] <= v[i]);
}

static void test_stats_scale_and_small(void **state)
{
	uint64_t v[3] = {40, 10, 20};
	uint64_t one[1] = {7};
	struct stats st;

	(void)state;
	/* Round trips to one-way: halves. p99.9 of 3 values is the largest. */
	assert_int_equal(stats_compute(v, 3, 0.5, &st), 0);
	assert_true(st.min == 5.0);
	assert_true(st.median == 10.0);
	assert_true(st.p99 == 20.0);
	assert_true(st.p999 == 20.0);
	assert_true(st.max == 20.0);
	assert_int_equal(stats_compute(one, 1, 1.0, &st), 0);
	assert_true(st.median == 7.0 && st.p999 == 7.0);
}

static void test_stats_empty(void **state)
{
	struct stats st = {.n = 42};
	uint64_t v[1] = {1};

	(void)state;
	assert_int_equal(stats_compute(v, 0, 1.0, &st), -EINVAL);
	/* Out-parameter untouched on failure. */
	assert_int_equal(st.n, 42);
}

static void test_stats_dump(void **state)
{
	char path[] = "/tmp/sdds-bench-dump-XXXXXX";
	uint64_t v[3] = {3, 1, 2};
	char buf[64] = {0};
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(stats_dump(path, v, 3, 0.5), 0);
	f = fdopen(fd, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf) - 1, f), strlen("1.5\n0.5\n1.0\n"));
	assert_string_equal(buf, "1.5\n0.5\n1.0\n");
	fclose(f);
	unlink(path);
}

static void test_json_nesting_and_escapes(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct json j;

	(void)state;
	assert_non_null(f);
	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_str(&j, "s", "a\"b\\c\n\x01");
	json_uint(&j, "u", 18446744073709551615ull);
	json_int(&j, "i", -3);
	json_num(&j, "x", 0.25);
	json_num(&j, "nan", NAN);
	json_bool(&j, "t", true);
	json_null(&j, "z");
	json_arr_begin(&j, "a");
	json_uint(&j, NULL, 1);
	json_obj_begin(&j, NULL);
	json_obj_end(&j);
	json_arr_begin(&j, NULL);
	json_arr_end(&j);
	json_arr_end(&j);
	json_str(&j, "n", NULL);
	json_obj_end(&j);
	json_finish(&j);
	fclose(f);
	assert_string_equal(out,
			    "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"u\":18446744073709551615,\"i\":-3,"
			    "\"x\":0.25,\"nan\":null,\"t\":true,\"z\":null,\"a\":[1,{},[]],\"n\":null}\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stats_nearest_rank),
	    cmocka_unit_test(test_stats_scale_and_small),
	    cmocka_unit_test(test_stats_empty),
	    cmocka_unit_test(test_stats_dump),
	    cmocka_unit_test(test_json_nesting_and_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
