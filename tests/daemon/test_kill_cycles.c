/* SPDX-License-Identifier: MIT */
/*
 * test_kill_cycles.c - no fd or memory growth in sddsd over many clients
 * killed with SIGKILL at every stage: during the handshake, right after it,
 * with endpoints, in the middle of a stream of writes, stalled on a full
 * reliable reader of its own.
 *
 * Usage: test_kill_cycles PATH_TO_SDDSD [CYCLES]   (default 1000)
 *
 * After a warm-up, the daemon's open fd count (/proc/PID/fd) is the
 * baseline; after all cycles every session must be gone (stats list only
 * the observer) and the fd count must be back at the baseline exactly.
 * Without a sanitizer, VmRSS may not grow by more than RSS_SLACK_KIB
 * between cycle 50 and the end. Under ASan the daemon's clean exit runs
 * LeakSanitizer, which the final stop checks.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tclient.h"

#define WARMUP 50
#define RSS_SLACK_KIB 4096

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static const char *sddsd_path;
static int cycles = 1000;

enum variant { V_HANDSHAKE, V_HELLO_ONLY, V_BEST_EFFORT, V_RELIABLE_STALL, V_N };

/* The doomed client: does its part, says "ready", then writes until killed. */
static void child_run(const char *sock, enum variant v, int ready_fd)
{
	struct tc_client c;
	struct rring_cons ring;
	uint32_t t, w, r;
	uint8_t sample[16] = {0};
	uint64_t n = 0;

	if (v == V_HANDSHAKE) {
		/* Connected, Hello maybe not yet sent: the parent kills at random. */
		int fd = tc_connect(sock);

		(void)!write(ready_fd, "r", 1);
		if (fd >= 0)
			tc_client_open(&c, sock, "doomed-handshake");
		for (;;)
			pause();
	}
	if (tc_client_open(&c, sock, "doomed") < 0)
		_exit(3);
	if (v == V_HELLO_ONLY) {
		(void)!write(ready_fd, "r", 1);
		for (;;)
			pause();
	}
	if (tc_register_topic(&c, 0, 42, "kill-cycles", sizeof(sample), &t) < 0)
		_exit(4);
	if (tc_create_reader(&c, t, v == V_RELIABLE_STALL, 2, &r, &ring) < 0)
		_exit(5);
	if (tc_create_writer(&c, t, v == V_RELIABLE_STALL, 60000, &w) < 0)
		_exit(6);
	(void)!write(ready_fd, "r", 1);
	/* Stream until killed; a reliable reader nobody takes from stalls us. */
	for (;;) {
		memcpy(sample, &n, sizeof(n));
		if (tc_write(&c, w, sample, sizeof(sample)) == 0)
			n++;
		else
			usleep(50);
	}
}

static void one_cycle(const char *sock, int i, unsigned *seed)
{
	enum variant v = (enum variant)(i % V_N);
	int p[2], status;
	pid_t pid;
	char b;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		child_run(sock, v, p[1]);
		_exit(0);
	}
	close(p[1]);
	/* Ready (or dead: read returns 0 then, and the cycle still counts). */
	(void)!read(p[0], &b, 1);
	close(p[0]);
	/* Kill at a random point of what the child does next. */
	usleep(rand_r(seed) % 400);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status))
		fail_msg("cycle %d: child exited %d before the kill", i, WEXITSTATUS(status));
}

/* Wait until the daemon holds no client but the observer; returns the client count. */
static size_t wait_no_sessions(const char *sock)
{
	size_t n = 0;

	for (int i = 0; i < 500; i++) {
		struct tc_client obs;
		Sdds__Ctl__Reply *rep = NULL;

		assert_int_equal(tc_client_open(&obs, sock, "observer"), 0);
		assert_int_equal(tc_stats(&obs, &rep), 0);
		n = rep->stats->n_clients;
		sdds__ctl__reply__free_unpacked(rep, NULL);
		tc_client_close(&obs);
		if (n == 1)
			break;
		tc_sleep_ms(10);
	}
	return n;
}

/* Wait until the fd count equals want (sessions close asynchronously). */
static int wait_fds(pid_t pid, int want)
{
	int n = -1;

	for (int i = 0; i < 500; i++) {
		n = tc_count_fds(pid);
		if (n == want)
			break;
		tc_sleep_ms(10);
	}
	return n;
}

static void test_kill_cycles(void **state)
{
	struct tc_daemon d;
	unsigned seed = 12345;
	long rss0 = 0, rss1 = 0;
	int fds0, fds1, st;
	struct timespec a, b;

	(void)state;
	assert_int_equal(tc_daemon_start(&d, sddsd_path, NULL, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < WARMUP && i < cycles; i++)
		one_cycle(d.sock, i, &seed);
	assert_int_equal(wait_no_sessions(d.sock), 1);
	/* The observer's own session must be gone too before counting. */
	tc_sleep_ms(50);
	fds0 = tc_count_fds(d.pid);
	rss0 = tc_rss_kib(d.pid);
	assert_true(fds0 > 0);
	for (int i = WARMUP; i < cycles; i++)
		one_cycle(d.sock, i, &seed);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_int_equal(wait_no_sessions(d.sock), 1);
	fds1 = wait_fds(d.pid, fds0);
	rss1 = tc_rss_kib(d.pid);
	print_message("%d cycles in %.1f s; daemon fds %d -> %d, VmRSS %ld -> %ld KiB\n", cycles,
		      (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9, fds0, fds1, rss0,
		      rss1);
	assert_int_equal(fds1, fds0);
#ifndef UNDER_ASAN
	assert_true(rss1 - rss0 < RSS_SLACK_KIB);
#endif
	st = tc_daemon_stop(&d);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_kill_cycles, tc_daemon_cleanup),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH_TO_SDDSD [CYCLES]\n", argv[0]);
		return 2;
	}
	sddsd_path = argv[1];
	if (argc > 2)
		cycles = atoi(argv[2]);
	if (cycles < 1)
		cycles = 1;
	if (access(sddsd_path, X_OK) != 0)
		return 77;
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
