/* SPDX-License-Identifier: MIT */
/*
 * test_admission.c - one local user floods sddsd's control socket; an
 * honest client of another uid must still get in, every time, fast.
 *
 * OVERVIEW
 * Real processes under real uids (root only; exits 77 otherwise): the
 * daemon runs as root; itest-flood (flood.c) runs as uid 65534 ("nobody")
 * and floods; itest-flood honest runs as uid 1000 and makes 20 connection
 * attempts through libsddsclient, 50 ms apart. The bound: every one of the
 * 20 must succeed within HONEST_BOUND_MS (1 s). Cases (argv[1]):
 *   pending_flood  two processes of uid 65534 keep 500 connections each
 *                  open that never say Hello, reopening each one as the
 *                  daemon hangs up on it (defaults of the config);
 *   session_flood  uid 65534 opens 300 full sessions and retries the
 *                  refused ones every 20 ms (defaults: its cap is 64);
 *   fd_budget      the daemon starts with RLIMIT_NOFILE 200 and caps on
 *                  pending connections far above it; the flood of 600
 *                  pending connections must run into admission, not into
 *                  EMFILE, and the daemon's descriptors stay below 200.
 * Each case also checks the daemon's admission stats (the flooding uid
 * was held to its cap, the honest uid lost nothing) and that the daemon
 * is alive and shuts down cleanly.
 *
 * On the code before admission control (5bb155e) pending_flood and
 * session_flood get 0 of 20 honest attempts in, and fd_budget (with its
 * two max_handshakes keys removed, which that daemon does not know) too.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "itest.h"

#define FLOOD_UID 65534
#define HONEST_UID 1000
#define HONEST_ATTEMPTS "20"
#define HONEST_BOUND_MS 1000
#define FLOOD_NOFILE 4096

struct ad {
	struct itest_daemon d;
	struct itest_proc flood[2];
	int n_flood;
	struct itest_proc honest;
};

static int ad_setup(void **state)
{
	struct ad *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return -1;
	for (int i = 0; i < 2; i++)
		itest_proc_init(&t->flood[i]);
	itest_proc_init(&t->honest);
	*state = t;
	return 0;
}

static int ad_teardown(void **state)
{
	struct ad *t = *state;

	for (int i = 0; i < 2; i++)
		itest_proc_cleanup(&t->flood[i]);
	itest_proc_cleanup(&t->honest);
	itest_daemon_stop(&t->d, SIGKILL, 1000, NULL);
	free(t);
	return 0;
}

/* Start the daemon; the other uids need to reach the socket in its private directory. */
static void ad_start(struct ad *t, const char *config, unsigned long nofile)
{
	assert_int_equal(itest_daemon_start_nofile(&t->d, config, NULL, nofile), 0);
	assert_int_equal(chmod(t->d.dir, 0755), 0);
}

static void ad_flood(struct ad *t, const char *mode, const char *n)
{
	const char *argv[] = {getenv("SDDS_ITEST_FLOOD"), mode, t->d.sock, n, NULL};
	struct itest_proc *p = &t->flood[t->n_flood++];
	char line[ITEST_LINE_MAX];

	assert_int_equal(itest_proc_spawn_as(p, argv, FLOOD_UID, FLOOD_NOFILE), 0);
	assert_int_equal(itest_proc_expect(p, "ready", line, sizeof(line), 30000), 0);
	fprintf(stderr, "flood %s: %s\n", mode, line);
}

/* The honest client's 20 attempts while the flood goes on; returns how many made the bound. */
static uint64_t ad_honest(struct ad *t, uint64_t *ret_max_ms)
{
	char bound[16];
	const char *argv[] = {getenv("SDDS_ITEST_FLOOD"), "honest", t->d.sock, HONEST_ATTEMPTS, bound, NULL};
	char line[ITEST_LINE_MAX];
	uint64_t ok = 0;

	snprintf(bound, sizeof(bound), "%d", HONEST_BOUND_MS);
	assert_int_equal(itest_proc_spawn_as(&t->honest, argv, HONEST_UID, 0), 0);
	for (;;) {
		int rc =
		    itest_proc_readline(&t->honest, line, sizeof(line), 20 * 5 * HONEST_BOUND_MS + 10000);

		assert_int_equal(rc, 0);
		fprintf(stderr, "honest uid %d: %s\n", HONEST_UID, line);
		if (strncmp(line, "done", 4) == 0)
			break;
	}
	assert_true(itest_kv_u64(line, "ok", &ok));
	assert_true(itest_kv_u64(line, "max_ms", ret_max_ms));
	return ok;
}

static const Sdds__Ctl__UidAdmission *ad_uid(const Sdds__Ctl__Stats *st, uint32_t uid)
{
	if (st->admission == NULL)
		return NULL;
	for (size_t i = 0; i < st->admission->n_uids; i++) {
		if (st->admission->uids[i]->uid == uid)
			return st->admission->uids[i];
	}
	return NULL;
}

static void ad_finish(struct ad *t)
{
	char line[ITEST_LINE_MAX];
	int status;

	for (int i = 0; i < t->n_flood; i++) {
		itest_proc_close_stdin(&t->flood[i]);
		if (itest_proc_finish(&t->flood[i], line, sizeof(line), 10000) >= 0)
			fprintf(stderr, "flood %d: %s\n", i, line);
	}
	assert_true(itest_daemon_alive(&t->d));
	assert_int_equal(itest_daemon_stop(&t->d, SIGTERM, 10000, &status), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_admission_pending_flood(void **state)
{
	struct ad *t = *state;
	Sdds__Ctl__Reply *rep;
	const Sdds__Ctl__UidAdmission *fu;
	uint64_t ok, max_ms;
	uint32_t self;
	int fds0, fds;

	ad_start(t, NULL, 0);
	fds0 = itest_proc_fds(t->d.pid);
	ad_flood(t, "pending", "500");
	ad_flood(t, "pending", "500");
	itest_sleep_ms(500);
	ok = ad_honest(t, &max_ms);
	fds = itest_proc_fds(t->d.pid);
	fprintf(stderr,
		"honest: %" PRIu64 " of %s within %d ms (slowest %" PRIu64 " ms); daemon fds %d -> %d\n", ok,
		HONEST_ATTEMPTS, HONEST_BOUND_MS, max_ms, fds0, fds);
	assert_int_equal(ok, 20);

	assert_int_equal(itest_stats(t->d.sock, &rep, &self), 0);
	fu = ad_uid(rep->stats, FLOOD_UID);
	assert_non_null(fu);
	fprintf(stderr, "uid %d: pending %u dropped %" PRIu64 " refused %" PRIu64 "\n", FLOOD_UID,
		fu->pending, fu->dropped, fu->refused);
	/* Held to its share (max_handshakes_per_uid = 8), and it paid for its flood itself. */
	assert_true(fu->pending <= rep->stats->admission->max_handshakes_per_uid);
	assert_true(fu->dropped > 0);
	if (ad_uid(rep->stats, HONEST_UID) != NULL)
		assert_int_equal(ad_uid(rep->stats, HONEST_UID)->dropped, 0);
	/* The flood holds 8 descriptors of the daemon, not hundreds. */
	assert_true(fds <= fds0 + (int)rep->stats->admission->max_handshakes_per_uid + 8);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	ad_finish(t);
}

static void test_admission_session_flood(void **state)
{
	struct ad *t = *state;
	Sdds__Ctl__Reply *rep;
	const Sdds__Ctl__UidAdmission *fu;
	uint64_t ok, max_ms;
	uint32_t self;

	ad_start(t, NULL, 0);
	ad_flood(t, "sessions", "300");
	itest_sleep_ms(300);
	ok = ad_honest(t, &max_ms);
	fprintf(stderr, "honest: %" PRIu64 " of %s within %d ms (slowest %" PRIu64 " ms)\n", ok,
		HONEST_ATTEMPTS, HONEST_BOUND_MS, max_ms);
	assert_int_equal(ok, 20);

	assert_int_equal(itest_stats(t->d.sock, &rep, &self), 0);
	fu = ad_uid(rep->stats, FLOOD_UID);
	assert_non_null(fu);
	fprintf(stderr, "uid %d: sessions %u hello_refused %" PRIu64 "; max_clients_per_uid %u\n", FLOOD_UID,
		fu->sessions, fu->hello_refused, rep->stats->admission->max_clients_per_uid);
	assert_int_equal(fu->sessions, rep->stats->admission->max_clients_per_uid);
	assert_true(fu->hello_refused > 0);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	ad_finish(t);
}

static void test_admission_fd_budget(void **state)
{
	struct ad *t = *state;
	Sdds__Ctl__Reply *rep;
	const Sdds__Ctl__UidAdmission *fu;
	uint64_t ok, max_ms;
	uint32_t self;
	int fds;

	/* Caps far above the descriptors: only the fd budget holds the flood. */
	ad_start(t, "max_handshakes = 1000\nmax_handshakes_per_uid = 900\n", 200);
	ad_flood(t, "pending", "600");
	itest_sleep_ms(500);
	ok = ad_honest(t, &max_ms);
	fds = itest_proc_fds(t->d.pid);
	fprintf(stderr,
		"honest: %" PRIu64 " of %s within %d ms (slowest %" PRIu64 " ms); daemon fds %d of 200\n", ok,
		HONEST_ATTEMPTS, HONEST_BOUND_MS, max_ms, fds);
	assert_int_equal(ok, 20);
	assert_true(fds > 0 && fds < 200);

	assert_int_equal(itest_stats(t->d.sock, &rep, &self), 0);
	fu = ad_uid(rep->stats, FLOOD_UID);
	assert_non_null(fu);
	fprintf(stderr, "uid %d: pending %u dropped %" PRIu64 "\n", FLOOD_UID, fu->pending, fu->dropped);
	assert_true(fu->dropped > 0);
	assert_true(fu->pending < 200);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	ad_finish(t);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_admission_pending_flood, ad_setup, ad_teardown),
	    cmocka_unit_test_setup_teardown(test_admission_session_flood, ad_setup, ad_teardown),
	    cmocka_unit_test_setup_teardown(test_admission_fd_budget, ad_setup, ad_teardown),
	};
	char filter[128];
	int rc = itest_check_env();

	if (rc != 0)
		return rc;
	if (geteuid() != 0) {
		fprintf(stderr, "test_admission: needs root (its clients run under other uids)\n");
		return ITEST_SKIP;
	}
	if (getenv("SDDS_ITEST_FLOOD") == NULL || access(getenv("SDDS_ITEST_FLOOD"), X_OK) != 0) {
		fprintf(stderr, "test_admission: $SDDS_ITEST_FLOOD is not an executable\n");
		return ITEST_SKIP;
	}
	if (argc > 1) {
		snprintf(filter, sizeof(filter), "test_admission_%s", argv[1]);
		cmocka_set_test_filter(filter);
	}
	return cmocka_run_group_tests_name("admission", tests, NULL, NULL);
}
