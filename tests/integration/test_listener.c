/* SPDX-License-Identifier: MIT */
/*
 * test_listener.c - listener delivery across processes.
 *
 * OVERVIEW
 * The listener peers (itest-peer reader --listener) take exactly one sample
 * per on_data_available call and check that every call runs on one thread
 * that is not the main thread, that each call found a sample (no spurious
 * call), that the samples come in order, and that no call comes after the
 * last sample (they wait 300 ms for one). This program checks the counts:
 * calls == samples taken == samples written (END samples included).
 *   one_writer:  one writer process, one listener process, 20,000 samples.
 *   two_writers: two writer processes, two listener processes on one topic.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "itest.h"

#define LS_COUNT 20000u

struct ls {
	struct itest_daemon d;
	struct itest_proc r[2], w[2];
};

static int ls_setup(void **state)
{
	struct ls *t = calloc(1, sizeof *t);

	if (t == NULL)
		return -1;
	for (int i = 0; i < 2; i++) {
		itest_proc_init(&t->r[i]);
		itest_proc_init(&t->w[i]);
	}
	if (itest_daemon_start(&t->d, NULL, NULL) < 0) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int ls_teardown(void **state)
{
	struct ls *t = *state;
	int status = 0, rc;

	for (int i = 0; i < 2; i++) {
		itest_proc_cleanup(&t->w[i]);
		itest_proc_cleanup(&t->r[i]);
	}
	rc = itest_daemon_stop(&t->d, SIGTERM, 10000, &status);
	free(t);
	if (rc < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "sddsd did not shut down cleanly: rc %d status 0x%x\n", rc, status);
		return -1;
	}
	return 0;
}

static uint64_t ls_u64(const char *line, const char *key)
{
	uint64_t v = 0;

	assert_true(itest_kv_u64(line, key, &v));
	return v;
}

static void ls_run(struct ls *t, int n_writers, int n_listeners)
{
	char line[ITEST_LINE_MAX], count[32], writers[16], tag[16];
	uint64_t expect = 0;

	snprintf(count, sizeof count, "%u", LS_COUNT);
	snprintf(writers, sizeof writers, "%d", n_writers);
	for (int i = 0; i < n_listeners; i++) {
		const char *args[] = {"--domain", "2",		"--topic", "0x44", "--size",
				      "24",	  "--reliable", "--depth", "32",   "--writers",
				      writers,	  "--listener", NULL};

		assert_int_equal(itest_peer_spawn(&t->r[i], "reader", t->d.sock, args), 0);
		assert_int_equal(itest_proc_expect(&t->r[i], "ready", line, sizeof line, 20000), 0);
	}
	for (int i = 0; i < n_writers; i++) {
		snprintf(tag, sizeof tag, "%d", i + 1);
		const char *args[] = {"--domain", "2",	     "--topic",	   "0x44",
				      "--size",	  "24",	     "--reliable", "--tag",
				      tag,	  "--count", count,	   "--max-blocking-ms",
				      "30000",	  NULL};

		assert_int_equal(itest_peer_spawn(&t->w[i], "writer", t->d.sock, args), 0);
	}
	for (int i = 0; i < n_writers; i++) {
		int st = itest_proc_finish(&t->w[i], line, sizeof line, 120000);

		fprintf(stderr, "writer %d: %s\n", i + 1, line);
		assert_int_equal(st, 0);
		assert_int_equal(ls_u64(line, "errors"), 0);
		assert_int_equal(ls_u64(line, "written"), LS_COUNT);
		expect += LS_COUNT + 1;
	}
	for (int i = 0; i < n_listeners; i++) {
		int st = itest_proc_finish(&t->r[i], line, sizeof line, 120000);

		fprintf(stderr, "listener %d: %s\n", i + 1, line);
		assert_int_equal(st, 0);
		assert_int_equal(ls_u64(line, "errors"), 0);
		assert_int_equal(ls_u64(line, "samples"), expect);
		assert_int_equal(ls_u64(line, "calls"), expect);
		assert_int_equal(ls_u64(line, "missing"), 0);
		assert_int_equal(ls_u64(line, "ends"), (uint64_t)n_writers);
	}
	assert_true(itest_daemon_alive(&t->d));
}

static void test_listener_one_writer(void **state)
{
	ls_run(*state, 1, 1);
}

static void test_listener_two_writers(void **state)
{
	ls_run(*state, 2, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_listener_one_writer, ls_setup, ls_teardown),
	    cmocka_unit_test_setup_teardown(test_listener_two_writers, ls_setup, ls_teardown),
	};
	int rc = itest_check_env();

	if (rc != 0)
		return rc;
	return cmocka_run_group_tests_name("listener", tests, NULL, NULL);
}
