/* SPDX-License-Identifier: MIT */
/*
 * test_report_units.c - the parts of `sdds-bench report` that read other
 * programs' output: ddsperf's summary lines (ddsperf.c) and the latency
 * profile data made from per-iteration files (mdplot_ccdf_write).
 *
 * OVERVIEW
 * The ddsperf lines are copied from Cyclone DDS 0.10.2's ddsperf on this
 * machine kind, with the lines around them it also prints (rss, participant
 * news), which must be skipped. Each test states the figure the stated
 * combination rule gives and checks it exactly.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "ddsperf.h"
#include "mdplot.h"

static const char ping_out[] =
    "[3921] participant vm:3921: new (self)\n"
    "[3921] participant vm:3860: new\n"
    "[3921] 1.000  vm:3860 size 12 mean 90.000us min 10.229us 50% 80.000us 90% 16.476us 99% 900.000us "
    "max 9999.000us cnt 100\n"
    "[3921] 2.000  vm:3860 size 12 mean 17.347us min 10.229us 50% 11.266us 90% 16.476us 99% 42.285us "
    "max 2729.139us cnt 28665\n"
    "[3921] 2.000  rss:7.6MB vcsw:14445 ivcsw:14374 ddsperf:0%+1% recvUC:11%+26%\n"
    "[3921] 3.000  vm:3860 size 12 mean 19.734us min 10.249us 50% 11.230us 90% 12.553us 99% 41.954us "
    "max 3012.719us cnt 25217\n"
    "[3921] 4.000  vm:3860 size 12 mean 19.120us min 10.254us 50% 11.251us 90% 12.669us 99% 41.884us "
    "max 2735.923us cnt 26061\n"
    "[3921] 4.000  rss:8.1MB vcsw:13718 ivcsw:12411 ddsperf:1%+0% recvUC:10%+24%\n";

static const char sub_out[] =
    "[9114] 0.500  rss:7.0MB vcsw:10 ivcsw:2\n"
    "[9114] 1.002  size 4 total 375828 lost 0 delta 375828 lost 0 rate 374.97 kS/s 12.00 Mb/s (37.50 kS/s "
    "1.20 Mb/s)\n"
    "[9114] 2.000  size 4 total 1229894 lost 0 delta 854066 lost 0 rate 855.90 kS/s 27.39 Mb/s (123.25 "
    "kS/s 3.94 Mb/s)\n"
    "[9114] 3.004  size 4 total 1827363 lost 0 delta 597469 lost 0 rate 595.06 kS/s 19.04 Mb/s (182.00 "
    "kS/s 5.82 Mb/s)\n"
    "[9114] 4.000  size 4 total 2623039 lost 0 delta 795676 lost 0 rate 798.68 kS/s 25.56 Mb/s (263.29 "
    "kS/s 8.43 Mb/s)\n"
    "[9114] 4.000  rss:7.3MB vcsw:1670 ivcsw:476 tev:0%+1% recvUC:37%+1%\n"
    "[9114] 5.000  size 4 total 2909595 lost 0 delta 286556 lost 0 rate 286.65 kS/s 9.17 Mb/s (291.05 "
    "kS/s 9.31 Mb/s)\n"
    "[9114] 6.000  size 4 total 2909595 lost 0 delta 0 lost 0 rate 0.00 kS/s 0.00 Mb/s (0.00 kS/s 0.00 "
    "Mb/s)\n";

static FILE *mem(const char *s)
{
	FILE *f = fmemopen((void *)s, strlen(s), "r");

	assert_non_null(f);
	return f;
}

/* Four summaries: the first (warm-up) is dropped; medians of the other three. */
static void test_lat_four_seconds(void **state)
{
	struct ddsperf_lat r;
	FILE *f = mem(ping_out);

	(void)state;
	assert_int_equal(ddsperf_parse_lat(f, &r), 0);
	fclose(f);
	assert_int_equal(r.seconds, 3);
	assert_true(r.first_dropped);
	assert_float_equal(r.p50_us, 11.251, 1e-9);
	assert_float_equal(r.p99_us, 41.954, 1e-9);
	assert_float_equal(r.max_us, 3012.719, 1e-9);
	assert_float_equal(r.count, 28665 + 25217 + 26061, 1e-9);
}

/* Two summaries: both used (nothing to spare for warm-up), median of two is their mean. */
static void test_lat_two_seconds(void **state)
{
	const char *two = strstr(ping_out, "[3921] 3.000");
	struct ddsperf_lat r;
	FILE *f = mem(two);

	(void)state;
	assert_int_equal(ddsperf_parse_lat(f, &r), 0);
	fclose(f);
	assert_int_equal(r.seconds, 2);
	assert_false(r.first_dropped);
	assert_float_equal(r.p50_us, (11.230 + 11.251) / 2, 1e-9);
	assert_float_equal(r.max_us, 3012.719, 1e-9);
}

static void test_lat_no_summary(void **state)
{
	struct ddsperf_lat r = {.p50_us = 7};
	FILE *f = mem("[1] participant x: new\n[1] 1.000  rss:7.6MB vcsw:1\nddsperf: error\n");

	(void)state;
	assert_int_equal(ddsperf_parse_lat(f, &r), -ENODATA);
	fclose(f);
	assert_float_equal(r.p50_us, 7, 0); /* untouched on failure */
}

/*
 * Intervals with data: 1.002 .. 5.000. The first (ends at 1.002) and the
 * last (ends at 5.000) are left out: (854066 + 597469 + 795676) samples in
 * 4.000 - 1.002 s.
 */
static void test_tput(void **state)
{
	struct ddsperf_tput r;
	FILE *f = mem(sub_out);

	(void)state;
	assert_int_equal(ddsperf_parse_tput(f, &r), 0);
	fclose(f);
	assert_int_equal(r.intervals, 3);
	assert_float_equal(r.samples, 854066 + 597469 + 795676, 1e-6);
	assert_float_equal(r.rate, (854066.0 + 597469 + 795676) / (4.000 - 1.002), 1e-6);
}

static void test_tput_too_short(void **state)
{
	const char *two = strstr(sub_out, "[9114] 4.000  size");
	struct ddsperf_tput r;
	FILE *f = mem(two);

	(void)state;
	assert_int_equal(ddsperf_parse_tput(f, &r), -ENODATA);
	fclose(f);
}

/* 5 samples (ns) 5,1,3,3,2: at or above 1 us/1000: 5; 2: 4; 3: 3 (the tie once); 5: 1. */
static void test_ccdf(void **state)
{
	char raw[] = "/tmp/sdds-report-units-XXXXXX", dat[64], line[128],
	     want[][32] = {
		 "0.0010 5",
		 "0.0020 4",
		 "0.0030 3",
		 "0.0050 1",
	     };
	uint64_t n = 0;
	size_t k = 0;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(raw);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "5.0\n1.0\n3.0\n3.0\n2.0\n", 20), 20);
	close(fd);
	snprintf(dat, sizeof(dat), "%s.dat", raw);
	assert_int_equal(mdplot_ccdf_write(raw, dat, &n), 0);
	assert_int_equal(n, 5);
	f = fopen(dat, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		assert_true(k < 4);
		assert_string_equal(line, want[k]);
		k++;
	}
	fclose(f);
	assert_int_equal(k, 4);
	unlink(dat);
	/* An empty file has nothing to draw. */
	fd = open(raw, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mdplot_ccdf_write(raw, dat, &n), -ENODATA);
	unlink(raw);
	unlink(dat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lat_four_seconds), cmocka_unit_test(test_lat_two_seconds),
	    cmocka_unit_test(test_lat_no_summary),   cmocka_unit_test(test_tput),
	    cmocka_unit_test(test_tput_too_short),   cmocka_unit_test(test_ccdf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
