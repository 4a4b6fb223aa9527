/* SPDX-License-Identifier: MIT */
/*
 * test_restart_cycles.c - the restart soak test: sddsd is killed with
 * SIGKILL and started again N times (argv[1], default 50) while a
 * publisher and a subscriber process (restart-peer) exchange RELIABLE
 * samples; afterwards both are still exchanging.
 *
 * OVERVIEW
 * Socket activation, as under systemd's sddsd.socket: the test binds and
 * listens on the control socket itself, once, and starts every sddsd
 * through sdds-listen-exec, which makes the socket fd 3 with LISTEN_FDS=1
 * and LISTEN_PID right. Clients that reconnect while no daemon runs wait
 * in the socket's backlog until the next one accepts.
 *
 * Per cycle: let samples flow 30-80 ms, SIGKILL the daemon, start a new
 * one, and wait for the subscriber's "gap" line: the first sample after its
 * client reconnected, with the samples lost (accepted by the publisher's
 * library, never delivered) and the time without delivery. At the end the
 * test prints median and max of both and of the time from the kill to the
 * first delivery, and checks: one gap per restart, one reconnection per
 * restart in each peer, no error in either (no corrupt, duplicated or
 * reordered sample; no loss within a connection), and samples still
 * arriving after the last restart.
 *
 * With argv[2] = "sandbox" the peers run inside tools/sdds-sandbox
 * ($SDDS_SANDBOX): each gets the control socket the sandbox connected as
 * $SDDS_CTL_FD and, to come back after a restart, the sandbox's renewal
 * channel ($SDDS_CTL_RENEW_FD; docs/DESIGN.md, "Restart"). Without that
 * channel (an sdds-sandbox without --no-renew in its help) the variant
 * skips: a sandboxed client could not reconnect at all.
 *
 * Binaries from the environment meson sets: $SDDSD, $SDDS_RESTART_PEER,
 * $SDDS_LISTEN_EXEC (and $SDDS_SANDBOX); exits 77 when one is missing. Children die with the
 * test (itest harness: PR_SET_PDEATHSIG, killed in the teardown).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "itest.h"

#define RESTART_DEFAULT_CYCLES 50

static struct {
	unsigned cycles;
	const char *sddsd, *peer, *wrapper, *sandbox;
	char dir[64];
	char sock[100]; /* fits sun_path */
	int lfd;
	struct itest_proc daemon, pub, sub;
} T = {.lfd = -1};

static int listen_socket(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 64) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

/* A new sddsd serving T.lfd. The socket is inheritable only during the spawn. */
static void daemon_spawn(void)
{
	char fdnum[16];
	const char *argv[] = {T.wrapper, fdnum, T.sddsd, "--socket", T.sock, "--log-level", "warning", NULL};
	int rc;

	snprintf(fdnum, sizeof(fdnum), "%d", T.lfd);
	assert_int_equal(fcntl(T.lfd, F_SETFD, 0), 0);
	rc = itest_proc_spawn(&T.daemon, argv);
	assert_int_equal(fcntl(T.lfd, F_SETFD, FD_CLOEXEC), 0);
	assert_int_equal(rc, 0);
}

static void daemon_kill9(void)
{
	int st = 0;

	itest_proc_kill(&T.daemon, SIGKILL);
	assert_int_equal(itest_proc_wait(&T.daemon, 5000, &st), 0);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	itest_proc_cleanup(&T.daemon);
}

static void peer_spawn(struct itest_proc *p, const char *role)
{
	const char *plain[] = {T.peer, role, "--socket", T.sock, NULL};
	/*
	 * Under the sanitizers the runtime's shadow memory needs RLIMIT_DATA
	 * lifted and LeakSanitizer's ptrace is denied inside (as tests/sandbox
	 * does it).
	 */
	const char *boxed[] = {T.sandbox, "--socket", T.sock, "--mem", itest_asan() ? "0" : "1G",
			       "--",	  T.peer,     role,   NULL};
	char line[ITEST_LINE_MAX];

	assert_int_equal(itest_proc_spawn(p, T.sandbox ? boxed : plain), 0);
	assert_int_equal(itest_proc_expect(p, "ready", line, sizeof(line), 10000), 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n ? v[n / 2] : 0;
}

static uint64_t maximum(const uint64_t *v, size_t n)
{
	uint64_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

static void test_restart_cycles(void **state)
{
	uint64_t *lost = calloc(T.cycles, sizeof(uint64_t));
	uint64_t *gap_us = calloc(T.cycles, sizeof(uint64_t));
	uint64_t *back_us = calloc(T.cycles, sizeof(uint64_t));
	uint64_t v, n, last_gap_seq = 0, total_lost = 0;
	char line[ITEST_LINE_MAX];
	int64_t t0, t_kill;
	unsigned seed = (unsigned)getpid();

	(void)state;
	assert_non_null(lost);
	assert_non_null(gap_us);
	assert_non_null(back_us);
	daemon_spawn();
	peer_spawn(&T.sub, "sub");
	peer_spawn(&T.pub, "pub");
	assert_int_equal(itest_proc_expect(&T.sub, "flowing", line, sizeof(line), 10000), 0);

	t0 = itest_now_ms();
	for (unsigned i = 1; i <= T.cycles; i++) {
		itest_sleep_ms(30 + (int)(rand_r(&seed) % 51));
		t_kill = itest_now_ns();
		daemon_kill9();
		daemon_spawn();
		if (itest_proc_expect(&T.sub, "gap ", line, sizeof(line), 15000) != 0)
			fail_msg("cycle %u: no sample arrived within 15 s of the restart", i);
		back_us[i - 1] = (uint64_t)(itest_now_ns() - t_kill) / 1000;
		assert_true(itest_kv_u64(line, "n", &n));
		assert_true(itest_kv_u64(line, "lost", &lost[i - 1]));
		assert_true(itest_kv_u64(line, "us", &gap_us[i - 1]));
		assert_true(itest_kv_u64(line, "seq", &last_gap_seq));
		if (n != i)
			fail_msg("cycle %u: the subscriber reports reconnection %" PRIu64, i, n);
		total_lost += lost[i - 1];
	}
	fprintf(stderr, "# %u restarts in %.1f s\n", T.cycles, (double)(itest_now_ms() - t0) / 1000.0);

	/* Still exchanging after the last restart. */
	itest_sleep_ms(300);
	itest_proc_close_stdin(&T.pub);
	assert_true(itest_proc_finish(&T.pub, line, sizeof(line), 10000) == 0);
	fprintf(stderr, "# pub: %s\n", line);
	assert_true(itest_kv_u64(line, "errors", &v) && v == 0);
	assert_true(itest_kv_u64(line, "reconnects", &v) && v == T.cycles);
	itest_proc_close_stdin(&T.sub);
	assert_true(itest_proc_finish(&T.sub, line, sizeof(line), 10000) == 0);
	fprintf(stderr, "# sub: %s\n", line);
	assert_true(itest_kv_u64(line, "errors", &v) && v == 0);
	assert_true(itest_kv_u64(line, "reconnects", &v) && v == T.cycles);
	assert_true(itest_kv_u64(line, "gaps", &v) && v == T.cycles);
	assert_true(itest_kv_u64(line, "lost", &v) && v == total_lost);
	assert_true(itest_kv_u64(line, "last", &v) && v > last_gap_seq + 100);

	fprintf(stderr,
		"# samples lost per restart: median %" PRIu64 ", max %" PRIu64 ", total %" PRIu64 "\n",
		median(lost, T.cycles), maximum(lost, T.cycles), total_lost);
	fprintf(stderr,
		"# time without delivery (subscriber): median %.1f ms, max %.1f ms; kill to first delivery: "
		"median %.1f ms, max %.1f ms\n",
		(double)median(gap_us, T.cycles) / 1000.0, (double)maximum(gap_us, T.cycles) / 1000.0,
		(double)median(back_us, T.cycles) / 1000.0, (double)maximum(back_us, T.cycles) / 1000.0);
	free(lost);
	free(gap_us);
	free(back_us);
}

static int setup(void **state)
{
	(void)state;
	snprintf(T.dir, sizeof(T.dir), "/tmp/sdds-restart.XXXXXX");
	if (!mkdtemp(T.dir))
		return -1;
	snprintf(T.sock, sizeof(T.sock), "%s/sddsd.sock", T.dir);
	T.lfd = listen_socket(T.sock);
	if (T.lfd < 0)
		return -1;
	itest_proc_init(&T.daemon);
	itest_proc_init(&T.pub);
	itest_proc_init(&T.sub);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	itest_proc_cleanup(&T.pub);
	itest_proc_cleanup(&T.sub);
	itest_proc_cleanup(&T.daemon);
	if (T.lfd >= 0)
		close(T.lfd);
	unlink(T.sock);
	rmdir(T.dir);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_restart_cycles, setup, teardown),
	};

	T.cycles = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : RESTART_DEFAULT_CYCLES;
	if (T.cycles == 0)
		T.cycles = RESTART_DEFAULT_CYCLES;
	T.sddsd = getenv("SDDSD");
	T.peer = getenv("SDDS_RESTART_PEER");
	T.wrapper = getenv("SDDS_LISTEN_EXEC");
	if (!T.sddsd || !T.peer || !T.wrapper || access(T.sddsd, X_OK) || access(T.peer, X_OK) ||
	    access(T.wrapper, X_OK)) {
		fprintf(stderr, "SDDSD, SDDS_RESTART_PEER or SDDS_LISTEN_EXEC missing: skipped\n");
		return ITEST_SKIP;
	}
	if (argc > 2 && strcmp(argv[2], "sandbox") == 0) {
		char cmd[512];

		T.sandbox = getenv("SDDS_SANDBOX");
		if (!T.sandbox || access(T.sandbox, X_OK)) {
			fprintf(stderr, "SDDS_SANDBOX missing: skipped\n");
			return ITEST_SKIP;
		}
		snprintf(cmd, sizeof(cmd), "'%s' --help 2>&1 | grep -q -- --no-renew", T.sandbox);
		if (system(cmd) != 0) {
			fprintf(stderr, "this sdds-sandbox offers no renewal channel: skipped\n");
			return ITEST_SKIP;
		}
		if (itest_asan()) {
			const char *old = getenv("ASAN_OPTIONS");
			char opts[512];

			snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0", old ? old : "", old ? ":" : "");
			setenv("ASAN_OPTIONS", opts, 1);
		}
	}
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
