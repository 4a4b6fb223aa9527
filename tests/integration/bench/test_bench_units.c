/* SPDX-License-Identifier: MIT */
/*
 * test_bench_units.c - unit tests of sdds-bench's statistics and JSON
 * writer, which the figures it prints are only as good as: the nearest-rank
 * percentiles, and valid JSON for any string a failure reason may contain.
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

/* A JSON document written into memory, for comparing its text. */
struct doc {
	char *out;
	size_t len;
	FILE *f;
	struct json j;
};

static void doc_open(struct doc *d, bool pretty)
{
	d->out = NULL;
	d->len = 0;
	d->f = open_memstream(&d->out, &d->len);
	assert_non_null(d->f);
	if (pretty)
		json_init_pretty(&d->j, d->f);
	else
		json_init(&d->j, d->f);
}

/* The text written (every document finished) is want; frees it. */
static void doc_check(struct doc *d, const char *want)
{
	fclose(d->f);
	assert_string_equal(d->out, want);
	free(d->out);
}

static void test_json_nesting_and_escapes(void **state)
{
	struct doc d;

	(void)state;
	doc_open(&d, false);
	json_obj_begin(&d.j, NULL);
	json_str(&d.j, "s", "a\"b\\c\n\x01");
	json_uint(&d.j, "u", 18446744073709551615ull);
	json_int(&d.j, "i", -3);
	json_num(&d.j, "x", 0.25);
	json_num(&d.j, "nan", NAN);
	json_bool(&d.j, "t", true);
	json_null(&d.j, "z");
	json_arr_begin(&d.j, "a");
	json_uint(&d.j, NULL, 1);
	json_obj_begin(&d.j, NULL);
	json_obj_end(&d.j);
	json_arr_begin(&d.j, NULL);
	json_arr_end(&d.j);
	json_arr_end(&d.j);
	json_str(&d.j, "n", NULL);
	json_obj_end(&d.j);
	assert_int_equal(json_finish(&d.j), 0);
	doc_check(&d, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"u\":18446744073709551615,\"i\":-3,"
		      "\"x\":0.25,\"nan\":null,\"t\":true,\"z\":null,\"a\":[1,{},[]],\"n\":null}\n");
}

/*
 * Numbers keep their "%.9g" text (3, not json-c's 3.0), '/' and UTF-8 pass
 * unescaped, infinities are null, and a finished writer starts a new
 * document.
 */
static void test_json_numbers_and_reuse(void **state)
{
	struct doc d;

	(void)state;
	doc_open(&d, false);
	json_arr_begin(&d.j, NULL);
	json_num(&d.j, NULL, 3.0);
	json_num(&d.j, NULL, 1.0 / 3.0);
	json_num(&d.j, NULL, 1.5e-7);
	json_num(&d.j, NULL, -INFINITY);
	json_str(&d.j, NULL, "a/b \xc3\xa9 \b\x7f");
	json_arr_end(&d.j);
	assert_int_equal(json_finish(&d.j), 0);
	json_num(&d.j, NULL, 42);
	assert_int_equal(json_finish(&d.j), 0);
	doc_check(&d, "[3,0.333333333,1.5e-07,null,\"a/b \xc3\xa9 \\b\x7f\"]\n42\n");
}

/*
 * Bytes that are not UTF-8 become U+FFFD, in values and in keys, so the
 * document stays valid JSON; well-formed sequences up to 4 bytes pass.
 */
static void test_json_utf8_repair(void **state)
{
	struct doc d;

	(void)state;
	doc_open(&d, false);
	json_obj_begin(&d.j, NULL);
	/* e-acute, snowman, U+1F600; then a stray 0xff, an overlong '/', a surrogate, a cut sequence */
	json_str(&d.j, "ok", "\xc3\xa9\xe2\x98\x83\xf0\x9f\x98\x80");
	json_str(&d.j, "bad",
		 "a\xff"
		 "b\xc0\xaf"
		 "c\xed\xa0\x80"
		 "d\xe2\x98");
	json_uint(&d.j, "k\xfe", 1);
	json_obj_end(&d.j);
	assert_int_equal(json_finish(&d.j), 0);
	doc_check(&d, "{\"ok\":\"\xc3\xa9\xe2\x98\x83\xf0\x9f\x98\x80\","
		      "\"bad\":\"a\xef\xbf\xbd"
		      "b\xef\xbf\xbd\xef\xbf\xbd"
		      "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
		      "d\xef\xbf\xbd\xef\xbf\xbd\","
		      "\"k\xef\xbf\xbd\":1}\n");
}

/* The form people read: one member per line, "key": value. */
static void test_json_pretty(void **state)
{
	struct doc d;

	(void)state;
	doc_open(&d, true);
	json_obj_begin(&d.j, NULL);
	json_fixed(&d.j, "x", 2.0 / 3.0, 3);
	json_arr_begin(&d.j, "a");
	json_int(&d.j, NULL, -1);
	json_arr_end(&d.j);
	json_obj_end(&d.j);
	assert_int_equal(json_finish(&d.j), 0);
	doc_check(&d, "{\n  \"x\": 0.667,\n  \"a\": [\n    -1\n  ]\n}\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stats_nearest_rank),
	    cmocka_unit_test(test_stats_scale_and_small),
	    cmocka_unit_test(test_stats_empty),
	    cmocka_unit_test(test_stats_dump),
	    cmocka_unit_test(test_json_nesting_and_escapes),
	    cmocka_unit_test(test_json_numbers_and_reuse),
	    cmocka_unit_test(test_json_utf8_repair),
	    cmocka_unit_test(test_json_pretty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
