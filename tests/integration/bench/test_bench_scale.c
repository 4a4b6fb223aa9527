/* SPDX-License-Identifier: MIT */
/*
 * test_bench_scale.c - `sdds-bench scale` runs end to end and prints every
 * figure of every point.
 *
 * OVERVIEW
 * argv: the sdds-bench binary, the sddsd binary. Runs once in the group
 * setup
 *   sdds-bench scale --clients 1,3,16 -n 500 --warmup 50 --json --sddsd SDDSD
 * and checks: exit 0; one JSON object (python3's json module; 77 without
 * python3) with the three points in order, each ok, with positive latency
 * figures in order, positive daemon memory (VmRSS and Pss, with and
 * before the clients) and the per-client figures equal to
 * (memory with N - memory before) / N. Then: a client count of 0 or 257 is
 * a usage error (2). Figures are never compared with a bound: this is not
 * a timed test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchutil.h"

static const char *bench_bin, *sddsd_bin;
static char out_path[64] = "/tmp/sdds-bench-scale-smoke-XXXXXX";
static int run_status = -1;

static const char *const check_py =
    "import json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "assert d['bench'] == 'scale' and d['ok'] is True and d['why'] == '', d\n"
    "pts = d['points']\n"
    "assert [p['clients'] for p in pts] == [1, 3, 16], pts\n"
    "for p in pts:\n"
    "    assert p['ok'] is True and p['why'] == '', p\n"
    "    assert p['iterations'] == 500, p\n"
    "    assert 0 < p['p50_us'] <= p['p99_us'] <= p['max_us'], p\n"
    "    for k in ('daemon_rss_kib', 'daemon_pss_kib', 'daemon_rss0_kib', 'daemon_pss0_kib'):\n"
    "        assert p[k] > 0, (k, p)\n"
    "    n = p['clients']\n"
    "    for m in ('rss', 'pss'):\n"
    "        want = (p['daemon_%s_kib' % m] - p['daemon_%s0_kib' % m]) / n\n"
    "        assert abs(p['%s_per_client_kib' % m] - want) < 1e-6, (m, want, p)\n";

static int group_setup(void **state)
{
	char *argv[] = {
	    (char *)bench_bin, "scale",	  "--clients",	     "1,3,16", "-n", "500", "--warmup", "50",
	    "--json",	       "--sddsd", (char *)sddsd_bin, NULL};

	(void)state;
	run_status = benchutil_run_to_temp(argv, out_path, NULL);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	unlink(out_path);
	return 0;
}

static void test_exit_zero(void **state)
{
	(void)state;
	benchutil_assert_exit(run_status, 0);
}

static void test_every_point(void **state)
{
	(void)state;
	benchutil_check_json(check_py, out_path, NULL);
}

static void sct_usage_error(const char *list)
{
	char *argv[] = {(char *)bench_bin, "scale", "--clients", (char *)list, NULL};

	benchutil_assert_usage_error(argv);
}

static void test_bad_clients(void **state)
{
	(void)state;
	sct_usage_error("0");
	sct_usage_error("1,257");
	sct_usage_error("4,,8x");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exit_zero),
	    cmocka_unit_test(test_every_point),
	    cmocka_unit_test(test_bad_clients),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: test_bench_scale SDDS_BENCH SDDSD\n");
		return 2;
	}
	bench_bin = argv[1];
	sddsd_bin = argv[2];
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
