/* SPDX-License-Identifier: MIT */
/*
 * test_kill9_cycles.c - clients killed with SIGKILL mid-write, over and
 * over: the daemon must not keep anything of them.
 *
 * OVERVIEW
 * Each cycle starts a client process (itest-peer cycle: a topic, one or two
 * readers and a writer, then writes in a loop; variant 0 has a reliable
 * reader that never takes, so the daemon holds a stalled record and the
 * write waits for room when the kill lands; variant 1 streams best effort),
 * waits until it is writing, lets it write for a short random time and
 * kills it with SIGKILL. Two victims run at a time to keep the cycle rate
 * up on two cores. A long-lived reader process on the same topic sees the
 * victims' samples throughout (its session must survive them all).
 *
 * After the first ITEST_K9_WARM cycles and again at the end, with every
 * victim's session gone (stats), the daemon's descriptor count, memfd
 * mappings and VmRSS are read; the end values may exceed the early ones
 * only by a small bound. argv[1] = cycle count (meson: 1000 by default,
 * about 25-40 s; in a sanitizer build 200 by default and 1000 in 'slow').
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

#define K9_WARM 50
#define K9_PAR 2

static unsigned k9_cycles = 200;

struct k9 {
	struct itest_daemon d;
	struct itest_proc victim[K9_PAR];
	struct itest_proc watcher;
};

struct k9_snapshot {
	int fds;
	int memfds;
	long rss_kb;
	uint64_t sessions_total;
};

static int k9_setup(void **state)
{
	struct k9 *t = calloc(1, sizeof *t);

	if (t == NULL)
		return -1;
	if (itest_asan()) {
		/*
		 * ASan keeps freed memory in a quarantine of up to 256 MiB by
		 * default, which shows as RSS growth per freed session; a small
		 * quarantine keeps the daemon's RSS meaningful here.
		 */
		const char *old = getenv("ASAN_OPTIONS");
		char opts[512];

		snprintf(opts, sizeof opts, "%s%squarantine_size_mb=4", old ? old : "",
			 old && *old ? ":" : "");
		setenv("ASAN_OPTIONS", opts, 1);
	}
	for (int i = 0; i < K9_PAR; i++)
		itest_proc_init(&t->victim[i]);
	itest_proc_init(&t->watcher);
	if (itest_daemon_start(&t->d, NULL, NULL) < 0) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int k9_teardown(void **state)
{
	struct k9 *t = *state;
	int status = 0, rc;

	for (int i = 0; i < K9_PAR; i++)
		itest_proc_cleanup(&t->victim[i]);
	itest_proc_cleanup(&t->watcher);
	rc = itest_daemon_stop(&t->d, SIGTERM, 10000, &status);
	free(t);
	if (rc < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "sddsd did not shut down cleanly: rc %d status 0x%x\n", rc, status);
		return -1;
	}
	return 0;
}

/*
 * Wait until only `keep` (the watcher) and our own stats session are left,
 * then read the daemon's resources while that one stats session is open
 * (so both snapshots see the same set of sessions).
 */
static void k9_snapshot(struct k9 *t, uint32_t keep, struct k9_snapshot *snap)
{
	int64_t deadline = itest_now_ms() + 10000;
	Sdds__Ctl__Reply *rep = NULL;
	uint32_t self = 0;

	for (;;) {
		size_t others;

		assert_int_equal(itest_stats(t->d.sock, &rep, &self), 0);
		others = itest_stats_other_clients(rep->stats, self);
		if (others == 1 && itest_stats_client(rep->stats, keep) != NULL)
			break;
		if (itest_now_ms() > deadline) {
			fprintf(stderr, "sessions left: %zu besides ours, watcher %s\n", others,
				itest_stats_client(rep->stats, keep) ? "present" : "missing");
			for (size_t i = 0; i < rep->stats->n_clients; i++)
				fprintf(stderr, "  session %u pid %d name %s\n",
					rep->stats->clients[i]->session_id, rep->stats->clients[i]->pid,
					rep->stats->clients[i]->name);
			fail_msg("killed sessions were not torn down");
		}
		sdds__ctl__reply__free_unpacked(rep, NULL);
		itest_sleep_ms(20);
	}
	snap->sessions_total = rep->stats->sessions_total;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	/* The stats connection is closed now; let its teardown finish too. */
	for (int i = 0; i < 50; i++) {
		int a = itest_proc_fds(t->d.pid);

		itest_sleep_ms(20);
		if (a == itest_proc_fds(t->d.pid))
			break;
	}
	snap->fds = itest_proc_fds(t->d.pid);
	snap->memfds = itest_proc_memfd_maps(t->d.pid);
	snap->rss_kb = itest_proc_rss_kb(t->d.pid);
	assert_true(snap->fds > 0);
	assert_true(snap->memfds >= 0);
	assert_true(snap->rss_kb > 0);
}

static void k9_start_victim(struct k9 *t, int slot, unsigned cycle)
{
	char line[ITEST_LINE_MAX];
	const char *args[] = {"--topic", "0x77", "--size", "32", "--variant", cycle % 2 ? "1" : "0", NULL};

	assert_int_equal(itest_peer_spawn(&t->victim[slot], "cycle", t->d.sock, args), 0);
	assert_int_equal(itest_proc_expect(&t->victim[slot], "ready", line, sizeof line, 20000), 0);
}

static void k9_kill_victim(struct k9 *t, int slot)
{
	int status;

	itest_proc_kill(&t->victim[slot], SIGKILL);
	assert_int_equal(itest_proc_wait(&t->victim[slot], 10000, &status), 0);
	assert_true(WIFSIGNALED(status));
	itest_proc_cleanup(&t->victim[slot]);
}

static void test_kill9_cycles(void **state)
{
	struct k9 *t = *state;
	struct k9_snapshot early, late;
	char line[ITEST_LINE_MAX];
	uint64_t watcher_session = 0, v;
	unsigned seed = 12345;
	int64_t t0 = itest_now_ns(), t_warm = 0;
	long rss_bound;

	/* Every victim counts from 0 under tag 1: the watcher checks integrity only. */
	const char *wargs[] = {"--topic",      "0x77",	 "--size",    "32", "--best-effort",
			       "--depth",      "64",	 "--writers", "0",  "--any-order",
			       "--timeout-ms", "600000", NULL};
	assert_int_equal(itest_peer_spawn(&t->watcher, "reader", t->d.sock, wargs), 0);
	assert_int_equal(itest_proc_expect(&t->watcher, "ready", line, sizeof line, 20000), 0);
	assert_true(itest_kv_u64(line, "session", &watcher_session));

	for (unsigned c = 0; c < k9_cycles; c += K9_PAR) {
		for (int s = 0; s < K9_PAR && c + (unsigned)s < k9_cycles; s++)
			k9_start_victim(t, s, c + (unsigned)s);
		/* Writing by now; let them get into the thick of it. */
		itest_sleep_ms((int)(rand_r(&seed) % 4));
		for (int s = 0; s < K9_PAR && c + (unsigned)s < k9_cycles; s++)
			k9_kill_victim(t, s);
		assert_true(itest_daemon_alive(&t->d));
		if (c + K9_PAR == K9_WARM) {
			k9_snapshot(t, (uint32_t)watcher_session, &early);
			t_warm = itest_now_ns();
		}
	}
	k9_snapshot(t, (uint32_t)watcher_session, &late);
	{
		double secs = (double)(itest_now_ns() - t0) / 1e9;

		fprintf(stderr, "%u kill -9 cycles in %.1f s (%.1f ms per cycle)\n", k9_cycles, secs,
			secs * 1000 / k9_cycles);
		(void)t_warm;
	}
	fprintf(stderr, "after %d cycles: fds %d memfd maps %d rss %ld KiB sessions %" PRIu64 "\n", K9_WARM,
		early.fds, early.memfds, early.rss_kb, early.sessions_total);
	fprintf(stderr, "after %u cycles: fds %d memfd maps %d rss %ld KiB sessions %" PRIu64 "\n", k9_cycles,
		late.fds, late.memfds, late.rss_kb, late.sessions_total);

	/* Every victim got a session, and none is left. */
	assert_true(late.sessions_total >= early.sessions_total + (k9_cycles - K9_WARM));
	assert_true(late.fds <= early.fds + 2);
	assert_int_equal(late.memfds, early.memfds);
	/*
	 * A leaked segment's touched pages alone would be ~1 MiB per 100
	 * cycles. Under ASan the (small) quarantine may fill meanwhile.
	 */
	rss_bound = itest_asan() ? 6144 : 2048;
	assert_true(late.rss_kb <= early.rss_kb + rss_bound);

	/* The long-lived reader was never disturbed. */
	itest_proc_close_stdin(&t->watcher);
	v = (uint64_t)itest_proc_finish(&t->watcher, line, sizeof line, 30000);
	fprintf(stderr, "watcher: %s\n", line);
	assert_int_equal(v, 0);
	assert_true(itest_kv_u64(line, "errors", &v));
	assert_int_equal(v, 0);
	assert_true(itest_kv_u64(line, "samples", &v));
	assert_true(v > 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_kill9_cycles, k9_setup, k9_teardown),
	};
	int rc = itest_check_env();

	if (rc != 0)
		return rc;
	if (argc > 1)
		k9_cycles = (unsigned)strtoul(argv[1], NULL, 10);
	if (k9_cycles < K9_WARM + K9_PAR || k9_cycles % K9_PAR != 0) {
		fprintf(stderr, "cycle count must be an even number > %d\n", K9_WARM);
		return 2;
	}
	return cmocka_run_group_tests_name("kill9_cycles", tests, NULL, NULL);
}
