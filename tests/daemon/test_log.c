/* SPDX-License-Identifier: MIT */
/*
 * test_log.c - journald prefixes, level filter, per call site rate limit.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "log.h"

struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static void capture_start(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	log_set_stream(c->f);
}

/* Stop capturing; returns the text (caller frees). */
static char *capture_end(struct capture *c)
{
	log_set_stream(NULL);
	fclose(c->f);
	return c->buf;
}

static int count_lines(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

static void test_prefix_and_level(void **state)
{
	struct capture c;
	char *out;

	(void)state;
	log_set_level(LOG_PRIO_NOTICE);
	capture_start(&c);
	log_err("disk %d on fire", 3);
	log_warning("warm");
	log_notice("note");
	log_info("hidden info");
	log_debug("hidden debug");
	out = capture_end(&c);
	assert_string_equal(out, "<3>sddsd: disk 3 on fire\n<4>sddsd: warm\n<5>sddsd: note\n");
	free(out);

	log_set_level(99); /* clamped to debug */
	assert_int_equal(log_get_level(), LOG_PRIO_DEBUG);
	capture_start(&c);
	log_debug("now visible");
	out = capture_end(&c);
	assert_string_equal(out, "<7>sddsd: now visible\n");
	free(out);
	log_set_level(LOG_PRIO_INFO);
}

static void test_long_line_cut(void **state)
{
	struct capture c;
	char big[3000];
	char *out;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	capture_start(&c);
	log_err("%s", big);
	out = capture_end(&c);
	assert_true(strlen(out) < 1100);
	assert_non_null(strstr(out, "...\n"));
	assert_int_equal(count_lines(out, "\n"), 1);
	free(out);
}

static void test_rate_limit(void **state)
{
	struct log_ratelimit rl = {0};
	struct capture c;
	int64_t t0 = 1000000000LL;
	int printed = 0;
	char *out;

	(void)state;
	log_set_level(LOG_PRIO_INFO);
	capture_start(&c);
	for (int i = 0; i < 25; i++)
		printed += log_emit_rl(&rl, t0 + i, LOG_PRIO_WARNING, "flood %d", i);
	assert_int_equal(printed, LOG_RL_BURST);
	/* Still inside the window: suppressed. */
	assert_int_equal(log_emit_rl(&rl, t0 + LOG_RL_INTERVAL_NS - 1, LOG_PRIO_WARNING, "late"), 0);
	/* A new window: one "suppressed" line, then the message. */
	assert_int_equal(log_emit_rl(&rl, t0 + LOG_RL_INTERVAL_NS, LOG_PRIO_WARNING, "after"), 1);
	out = capture_end(&c);
	assert_int_equal(count_lines(out, "flood "), LOG_RL_BURST);
	assert_non_null(
	    strstr(out, "<4>sddsd: flood 9\n<4>sddsd: suppressed 16 messages\n<4>sddsd: after\n"));
	assert_null(strstr(out, "flood 10"));
	assert_null(strstr(out, "late"));
	free(out);

	/* Filtered lines do not use up the burst. */
	memset(&rl, 0, sizeof(rl));
	log_set_level(LOG_PRIO_ERR);
	capture_start(&c);
	for (int i = 0; i < 20; i++)
		assert_int_equal(log_emit_rl(&rl, t0, LOG_PRIO_DEBUG, "filtered"), 0);
	log_set_level(LOG_PRIO_DEBUG);
	assert_int_equal(log_emit_rl(&rl, t0, LOG_PRIO_DEBUG, "shown"), 1);
	out = capture_end(&c);
	assert_string_equal(out, "<7>sddsd: shown\n");
	free(out);
	log_set_level(LOG_PRIO_INFO);
}

static void test_rl_macro_per_site(void **state)
{
	struct capture c;
	char *out;

	(void)state;
	capture_start(&c);
	/* One call site in a loop: limited. */
	for (int i = 0; i < 30; i++)
		log_rl(LOG_PRIO_ERR, "site A %d", i);
	/* Another site has its own window. */
	log_rl(LOG_PRIO_ERR, "site B");
	out = capture_end(&c);
	assert_int_equal(count_lines(out, "site A"), LOG_RL_BURST);
	assert_int_equal(count_lines(out, "site B"), 1);
	free(out);
}

static void test_level_parse(void **state)
{
	int lv = -1;

	(void)state;
	assert_int_equal(log_level_parse("0", &lv), 0);
	assert_int_equal(lv, 0);
	assert_int_equal(log_level_parse("7", &lv), 0);
	assert_int_equal(lv, 7);
	assert_int_equal(log_level_parse("debug", &lv), 0);
	assert_int_equal(lv, LOG_PRIO_DEBUG);
	assert_int_equal(log_level_parse("ERROR", &lv), 0);
	assert_int_equal(lv, LOG_PRIO_ERR);
	assert_int_equal(log_level_parse("warn", &lv), 0);
	assert_int_equal(lv, LOG_PRIO_WARNING);
	lv = 42;
	assert_int_equal(log_level_parse("8", &lv), -EINVAL);
	assert_int_equal(log_level_parse("", &lv), -EINVAL);
	assert_int_equal(log_level_parse("01", &lv), -EINVAL);
	assert_int_equal(log_level_parse("verbose", &lv), -EINVAL);
	assert_int_equal(log_level_parse(NULL, &lv), -EINVAL);
	assert_int_equal(lv, 42);
	assert_string_equal(log_level_name(LOG_PRIO_NOTICE), "notice");
	assert_string_equal(log_level_name(8), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prefix_and_level), cmocka_unit_test(test_long_line_cut),
	    cmocka_unit_test(test_rate_limit),	     cmocka_unit_test(test_rl_macro_per_site),
	    cmocka_unit_test(test_level_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
