/* SPDX-License-Identifier: MIT */
/*
 * test_bench_smoke.c - sdds-bench runs end to end and prints every figure.
 *
 * OVERVIEW
 * argv: the sdds-bench binary, the sddsd binary. Runs
 *   sdds-bench local -n 2000 --take-many 16 --json (short throughput and caps)
 * once in the group setup, keeps its stdout in a temp file and its wait
 * status, then checks: exit 0; the output is one JSON object (parsed by
 * python3's json module: exit 77 when python3 is missing); every figure
 * key exists with a positive number (the one-CPU yield floor among them),
 * and no ratio or goal (report.py makes those). A second run with a daemon
 * binary that does not exist must exit non-zero, say why, and print no
 * figure of the runs that needed it; a third, capped, must mark every
 * latency run capped; a fourth, without --json, must print report.py's
 * table. Figures are never compared with a bound: this is not a timed test.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchutil.h"

#define SMOKE_SKIP 77

static const char *bench_bin;
static const char *sddsd_bin;

struct smoke_run {
	char out[64]; /* temp file holding stdout */
	int status;
};

static struct smoke_run good = {.out = "/tmp/sdds-bench-smoke-XXXXXX"};
static struct smoke_run bad = {.out = "/tmp/sdds-bench-smoke-XXXXXX"};
static struct smoke_run capped = {.out = "/tmp/sdds-bench-smoke-XXXXXX"};

static const char *const check_keys_py =
    "import json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "lat = ['median_us', 'p99_us', 'p999_us', 'max_us', 'min_us', 'mean_us', 'iterations']\n"
    "req = ['baseline.spin.' + k for k in lat] + ['baseline.futex.' + k for k in lat]\n"
    "req += ['baseline.yield_same_cpu.' + k for k in lat]\n"
    "req += ['polling.latency.' + k for k in lat] + ['blocking.latency.' + k for k in lat]\n"
    "for m in ('polling', 'blocking'):\n"
    "    req += [m + '.throughput.' + k for k in ('samples_per_s', 'writer_samples_per_s',\n"
    "            'written', 'received', 'seconds')]\n"
    "    req += [m + '.throughput_take_many.' + k for k in ('samples_per_s', 'written', 'received')]\n"
    "for m in ('spin', 'sleep'):\n"
    "    req += ['monolithic.' + m + '.' + k for k in ('samples_per_s', 'written', 'received')]\n"
    "req += ['size_bytes', 'iterations', 'cpus']\n"
    "bad = ['C-side ' + k for k in ('ratios', 'goals') if k in d]\n"
    "for path in req:\n"
    "    v = d\n"
    "    for k in path.split('.'):\n"
    "        v = v.get(k) if isinstance(v, dict) else None\n"
    "    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:\n"
    "        bad.append('%s=%r' % (path, v))\n"
    "for m in ('polling', 'blocking'):\n"
    "    for k in ('latency', 'throughput'):\n"
    "        if d[m][k].get('ok') is not True: bad.append(m + '.' + k + '.ok')\n"
    "if d['iterations'] != 2000 or d['size_bytes'] != 2 or d['take_many'] != 16:\n"
    "    bad.append('options not echoed')\n"
    "if bad:\n"
    "    print('missing or not positive: ' + ', '.join(bad)); sys.exit(1)\n";

static const char *const check_failed_py =
    "import json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "bad = []\n"
    "for m in ('polling', 'blocking'):\n"
    "    for k in ('latency', 'throughput'):\n"
    "        e = d[m][k]\n"
    "        if e.get('ok') is not False or 'not found' not in e.get('error', ''):\n"
    "            bad.append(m + '.' + k + ': ' + repr(e))\n"
    "        if 'median_us' in e or 'samples_per_s' in e: bad.append(m + '.' + k + ' has figures')\n"
    "if not d['baseline']['spin']['median_us'] > 0: bad.append('baseline missing')\n"
    "if not d['baseline']['yield_same_cpu']['median_us'] > 0: bad.append('floor missing')\n"
    "if bad:\n"
    "    print('; '.join(bad)); sys.exit(1)\n";

/* Every latency run cut short by the cap says so: report.py refuses its ratios on that. */
static const char *const check_capped_py =
    "import json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "bad = []\n"
    "runs = {'baseline.' + k: d['baseline'][k] for k in ('spin', 'futex', 'yield_same_cpu')}\n"
    "runs.update({m + '.latency': d[m]['latency'] for m in ('polling', 'blocking')})\n"
    "for name, e in runs.items():\n"
    "    if e.get('capped') is not True or not e.get('done', 0) < e.get('requested', 0):\n"
    "        bad.append('%s not marked capped: %r' % (name, e))\n"
    "if bad:\n"
    "    print('; '.join(bad)); sys.exit(1)\n";

static int smoke_setup(void **state)
{
	char *good_argv[] = {
	    (char *)bench_bin, "local", "-n",	   "2000", "--warmup",	  "200", "-t",	    "0.3",
	    "--max-seconds",   "4",	"--depth", "256",  "--take-many", "16",	 "--sddsd", (char *)sddsd_bin,
	    "--json",	       NULL};
	char *bad_argv[] = {(char *)bench_bin,
			    "local",
			    "-n",
			    "300",
			    "--warmup",
			    "10",
			    "-t",
			    "0.1",
			    "--sddsd",
			    "/nonexistent/sdds-bench-test/sddsd",
			    "--json",
			    NULL};

	/* So many round trips that the 0.2 s cap ends every latency run. */
	char *capped_argv[] = {(char *)bench_bin, "local", "-n", "1000000000", "--warmup", "10",
			       "--max-seconds",	  "0.2",   "-t", "0.1",	       "--sddsd",  (char *)sddsd_bin,
			       "--json",	  NULL};

	(void)state;
	good.status = benchutil_run_to_temp(good_argv, good.out, NULL);
	bad.status = benchutil_run_to_temp(bad_argv, bad.out, NULL);
	capped.status = benchutil_run_to_temp(capped_argv, capped.out, NULL);
	return good.status == -1 || bad.status == -1 || capped.status == -1 ? -1 : 0;
}

static int smoke_teardown(void **state)
{
	(void)state;
	unlink(good.out);
	unlink(bad.out);
	unlink(capped.out);
	return 0;
}

static void test_exit_zero(void **state)
{
	(void)state;
	benchutil_assert_exit(good.status, 0);
}

static void test_json_parses(void **state)
{
	(void)state;
	assert_int_equal(benchutil_python("import json, sys; json.load(open(sys.argv[1]))", good.out, NULL),
			 0);
}

static void test_every_figure_positive(void **state)
{
	(void)state;
	assert_int_equal(benchutil_python(check_keys_py, good.out, NULL), 0);
}

static void test_missing_daemon_fails_without_figures(void **state)
{
	(void)state;
	benchutil_assert_exit(bad.status, 1);
	assert_int_equal(benchutil_python(check_failed_py, bad.out, NULL), 0);
}

static void test_capped_runs_say_so(void **state)
{
	(void)state;
	assert_int_equal(benchutil_python(check_capped_py, capped.out, NULL), 0);
}

/*
 * Without --json, sdds-bench hands the JSON to report.py --show: a table
 * with the polling row (report.py's ROWS label "sddsd polling") and a
 * figure on it.
 */
static void test_table_without_json(void **state)
{
	char out[] = "/tmp/sdds-bench-smoke-XXXXXX";
	char *argv[] = {(char *)bench_bin,
			"local",
			"-n",
			"300",
			"--warmup",
			"10",
			"-t",
			"0.1",
			"--max-seconds",
			"2",
			"--sddsd",
			(char *)sddsd_bin,
			NULL};
	int st, rc;

	(void)state;
	st = benchutil_run_to_temp(argv, out, NULL);
	rc = benchutil_python(
	    "import re, sys\n"
	    "t = open(sys.argv[1]).read()\n"
	    "if not re.search(r'sddsd polling.*[0-9]+\\.[0-9]+', t): print(t[:4096]); sys.exit(1)\n",
	    out, NULL);
	unlink(out);
	benchutil_assert_exit(st, 0);
	assert_int_equal(rc, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exit_zero),
	    cmocka_unit_test(test_json_parses),
	    cmocka_unit_test(test_every_figure_positive),
	    cmocka_unit_test(test_missing_daemon_fails_without_figures),
	    cmocka_unit_test(test_capped_runs_say_so),
	    cmocka_unit_test(test_table_without_json),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: %s SDDS_BENCH SDDSD\n", argv[0]);
		return 2;
	}
	bench_bin = argv[1];
	sddsd_bin = argv[2];
	if (access(sddsd_bin, X_OK) < 0 || access(bench_bin, X_OK) < 0) {
		fprintf(stderr, "sdds-bench or sddsd not built: skip\n");
		return SMOKE_SKIP;
	}
	if (benchutil_python("import json", "", NULL) != 0) {
		fprintf(stderr, "python3 with json not available: skip\n");
		return SMOKE_SKIP;
	}
	return cmocka_run_group_tests(tests, smoke_setup, smoke_teardown);
}
