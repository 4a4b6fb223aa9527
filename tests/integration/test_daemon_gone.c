/* SPDX-License-Identifier: MIT */
/*
 * test_daemon_gone.c - the daemon dies under clients that are blocked.
 *
 * OVERVIEW
 * Five client processes (itest-peer gone) wait on one daemon: one blocked
 * in take without a timeout, one in take with a 60 s timeout, one in a
 * reliable write waiting for room (a reliable reader that never takes
 * stalled the daemon's pump and the request ring filled up), one with a
 * working listener, and one doing all four at once in threads. Then the
 * daemon is killed (SIGKILL: it has no chance to say goodbye) or stopped
 * (SIGTERM: clean shutdown). Each peer reports when each blocked call came
 * back and with what; this program checks that every one returned
 * -ENOTCONN within ITEST_GONE_PROMPT_MS of the kill (CLOCK_MONOTONIC is one
 * clock for all processes), and that each peer then saw -ENOTCONN from
 * every further call, freed everything and exited 0 (under ASan: no leak).
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

#define GONE_N 5
#define GONE_PROMPT_MS 1000

struct gone {
	struct itest_daemon d;
	struct itest_proc p[GONE_N];
};

static const char *const gone_modes[GONE_N] = {"take", "take-timeout", "write", "listener", "all"};
static const char *const gone_topics[GONE_N] = {"0x50", "0x58", "0x60", "0x68", "0x70"};
/* Blocked calls each mode reports. */
static const int gone_blocked[GONE_N] = {1, 1, 1, 1, 4};

static int gone_setup(void **state)
{
	struct gone *t = calloc(1, sizeof *t);

	if (t == NULL)
		return -1;
	for (int i = 0; i < GONE_N; i++)
		itest_proc_init(&t->p[i]);
	if (itest_daemon_start(&t->d, NULL, NULL) < 0) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int gone_teardown(void **state)
{
	struct gone *t = *state;

	for (int i = 0; i < GONE_N; i++)
		itest_proc_cleanup(&t->p[i]);
	itest_daemon_stop(&t->d, SIGKILL, 1000, NULL);
	free(t);
	return 0;
}

static void gone_run(struct gone *t, int sig)
{
	char line[ITEST_LINE_MAX];
	int64_t kill_ns, prompt_ns = (int64_t)GONE_PROMPT_MS * 1000000 * (itest_asan() ? 2 : 1);
	int status;

	for (int i = 0; i < GONE_N; i++) {
		const char *args[] = {"--mode", gone_modes[i], "--topic", gone_topics[i], NULL};

		assert_int_equal(itest_peer_spawn(&t->p[i], "gone", t->d.sock, args), 0);
	}
	for (int i = 0; i < GONE_N; i++) {
		int rc = itest_proc_expect(&t->p[i], "ready", line, sizeof line, 60000);

		if (rc < 0)
			fprintf(stderr, "gone peer %s did not get ready\n", gone_modes[i]);
		assert_int_equal(rc, 0);
		fprintf(stderr, "%s: %s\n", gone_modes[i], line);
	}
	assert_true(itest_daemon_alive(&t->d));

	kill_ns = itest_now_ns();
	assert_int_equal(itest_daemon_kill(&t->d, sig, &status), 0);
	if (sig == SIGTERM) {
		/* A clean shutdown with clients attached is still a clean exit. */
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}

	for (int i = 0; i < GONE_N; i++) {
		int blocked = 0;

		for (;;) {
			int64_t rc64 = 0, t_ns = 0;

			assert_int_equal(itest_proc_readline(&t->p[i], line, sizeof line, 10000), 0);
			fprintf(stderr, "%s: %s\n", gone_modes[i], line);
			if (strncmp(line, "done", 4) == 0)
				break;
			if (strncmp(line, "blocked", 7) != 0)
				continue;
			blocked++;
			assert_true(itest_kv_i64(line, "rc", &rc64));
			assert_true(itest_kv_i64(line, "t_ns", &t_ns));
			assert_int_equal(rc64, -ENOTCONN);
			if (t_ns - kill_ns > prompt_ns)
				fprintf(stderr, "%s: blocked call returned %.1f ms after the kill\n",
					gone_modes[i], (double)(t_ns - kill_ns) / 1e6);
			assert_true(t_ns - kill_ns <= prompt_ns);
		}
		assert_int_equal(blocked, gone_blocked[i]);
		assert_int_equal(itest_proc_wait(&t->p[i], 10000, &status), 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fprintf(stderr, "%s: exit status 0x%x\n", gone_modes[i], status);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
}

static void test_daemon_gone_sigkill(void **state)
{
	gone_run(*state, SIGKILL);
}

static void test_daemon_gone_sigterm(void **state)
{
	gone_run(*state, SIGTERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_daemon_gone_sigkill, gone_setup, gone_teardown),
	    cmocka_unit_test_setup_teardown(test_daemon_gone_sigterm, gone_setup, gone_teardown),
	};
	int rc = itest_check_env();

	if (rc != 0)
		return rc;
	return cmocka_run_group_tests_name("daemon_gone", tests, NULL, NULL);
}
