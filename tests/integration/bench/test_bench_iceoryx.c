/* SPDX-License-Identifier: MIT */
/*
 * test_bench_iceoryx.c - `sdds-bench iceoryx` runs end to end, prints every
 * figure and leaves no iceoryx file behind.
 *
 * OVERVIEW
 * argv: the sdds-bench binary, "built" or "not-built" (whether meson found
 * the iceoryx C binding). Without iox-roudi in PATH: exit 77. Runs once in
 * the group setup
 *   sdds-bench iceoryx -n 2000 --warmup 200 --json
 * and checks: built, exit 0 and one JSON object (python3's json module; 77
 * without python3) with both modes ok, every figure positive and in
 * order, and what was asked and done; not built, exit 1 and both modes not
 * ok with the "not built" reason. Either way every key of the run's
 * parameters and of its RouDi (binary, note, files removed and left) is
 * there: the output is JSON only, so report.py shows them. Then, holding the lock
 * every sdds-bench iceoryx run holds while its RouDi lives (so another
 * worktree's run cannot be mistaken for ours), that /dev/shm has no
 * iceoryx_mgmt nor *iceoryx* entry and /tmp no RouDi socket nor a file of
 * this run's runtimes. A bad size is a usage error (2). Figures are never
 * compared with a bound: this is not a timed test.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchutil.h"

/* The lock of tools/sdds-bench/roudi.h (ROUDI_LOCK_PATH). */
#define IXT_LOCK_PATH "/tmp/sdds-bench-iceoryx.lock"

static const char *bench_bin;
static bool built;
static char out_path[64] = "/tmp/sdds-bench-iox-smoke-XXXXXX";
static int run_status = -1;
static pid_t run_pid;

static const char *const check_py =
    "import json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "built = sys.argv[2] == 'built'\n"
    "assert d['bench'] == 'iceoryx' and d['size'] == 2 and d['n'] == 2000, d\n"
    "assert d['built'] is built, d\n"
    "for k in ('warmup', 'roudi', 'leader_cpu', 'follower_cpu', 'roudi_note', 'leftovers_removed',\n"
    "          'leftovers', 'load_start', 'load_end'):\n"
    "    assert k in d, (k, d)\n"
    "modes = d['modes']\n"
    "assert [m['mode'] for m in modes] == ['polling', 'waitset'], modes\n"
    "if built:\n"
    "    assert d['ok'] is True and d['why'] == '', d\n"
    "    for m in modes:\n"
    "        assert m['ok'] is True and m['iterations'] == 2000, m\n"
    "        for f in ('median_us', 'p99_us', 'p999_us', 'max_us'):\n"
    "            assert m[f] > 0, (f, m)\n"
    "        assert m['median_us'] <= m['p99_us'] <= m['p999_us'] <= m['max_us'], m\n"
    "        assert m['requested'] == 2000 and 'done' in m and 'capped' in m, m\n"
    "else:\n"
    "    assert d['ok'] is False and d['why'].startswith('not built'), d\n"
    "    for m in modes:\n"
    "        assert m['ok'] is False and m['why'].startswith('not built'), m\n"
    "        assert 'median_us' not in m, m\n";

static int group_setup(void **state)
{
	char *argv[] = {(char *)bench_bin, "iceoryx", "--json", "-n", "2000", "--warmup", "200", NULL};

	(void)state;
	run_status = benchutil_run_to_temp(argv, out_path, &run_pid);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	unlink(out_path);
	return 0;
}

static void test_exit_status(void **state)
{
	(void)state;
	benchutil_assert_exit(run_status, built ? 0 : 1);
}

static void test_every_figure(void **state)
{
	(void)state;
	benchutil_check_json(check_py, out_path, built ? "built" : "not-built");
}

/* The shared lock, waiting up to 200 s for another run to end; -1 if not had. */
static int ixt_lock(void)
{
	int fd = open(IXT_LOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC, 0666);

	if (fd < 0)
		return -1;
	for (int i = 0; i < 2000; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		usleep(100000);
	}
	close(fd);
	return -1;
}

static void test_no_leftovers(void **state)
{
	char mine[64], found[1024] = "";
	size_t len = 0;
	int fd = ixt_lock();
	DIR *d;

	(void)state;
	assert_true(fd >= 0);
	d = opendir("/dev/shm");
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strstr(e->d_name, "iceoryx") && len < sizeof(found))
			len += (size_t)snprintf(found + len, sizeof(found) - len, " /dev/shm/%s", e->d_name);
	closedir(d);
	if (access("/tmp/roudi", F_OK) == 0 && len < sizeof(found))
		len += (size_t)snprintf(found + len, sizeof(found) - len, " /tmp/roudi");
	/* The runtimes of the run are named sddsbench-iox-<pid>-<mode>-<role>. */
	snprintf(mine, sizeof(mine), "sddsbench-iox-%d-", (int)run_pid);
	d = opendir("/tmp");
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strncmp(e->d_name, mine, strlen(mine)) == 0 && len < sizeof(found))
			len += (size_t)snprintf(found + len, sizeof(found) - len, " /tmp/%s", e->d_name);
	closedir(d);
	close(fd);
	if (len)
		fail_msg("iceoryx files left after the run:%s", found);
}

static void test_bad_size(void **state)
{
	char *argv[] = {(char *)bench_bin, "iceoryx", "--size", "0", NULL};

	(void)state;
	benchutil_assert_usage_error(argv);
}

/* iox-roudi in PATH (what sdds-bench looks for). */
static bool ixt_have_roudi(void)
{
	return system("command -v iox-roudi >/dev/null 2>&1") == 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exit_status),
	    cmocka_unit_test(test_every_figure),
	    cmocka_unit_test(test_no_leftovers),
	    cmocka_unit_test(test_bad_size),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: test_bench_iceoryx SDDS_BENCH built|not-built\n");
		return 2;
	}
	bench_bin = argv[1];
	built = strcmp(argv[2], "built") == 0;
	if (built && !ixt_have_roudi()) {
		fprintf(stderr,
			"test_bench_iceoryx: iox-roudi not in PATH (Debian package iceoryx): skipped\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
