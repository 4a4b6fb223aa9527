/* SPDX-License-Identifier: MIT */
/*
 * test_reliable_100k.c - two client processes, one writer and one reader on
 * a RELIABLE topic, 100,000 samples through sddsd: every sample arrives, in
 * order, once, intact.
 *
 * OVERVIEW
 * The reader (itest-peer reader) checks each sample's sequence number and
 * pattern itself and fails on any gap, duplicate, reordering or corruption;
 * this program checks the counts both peers report and the daemon's topic
 * counters (the test keeps a raw registration of the topic open so that the
 * topic outlives the peers and its counters can be read at the end).
 * argv[1] == "--poll" runs the daemon in polling mode.
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
#include "rawcli.h"

#define R100K_COUNT 100000u
#define R100K_TOPIC 0x31
#define R100K_DOMAIN 1

static bool r100k_poll;

struct r100k {
	struct itest_daemon d;
	struct itest_proc reader, writer;
	struct rawcli holder;
};

static int r100k_setup(void **state)
{
	static const char *const poll_args[] = {"--poll", NULL};
	struct r100k *t = calloc(1, sizeof *t);

	if (t == NULL)
		return -1;
	itest_proc_init(&t->reader);
	itest_proc_init(&t->writer);
	t->holder.sock = t->holder.efd = -1;
	if (itest_daemon_start(&t->d, NULL, r100k_poll ? poll_args : NULL) < 0) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int r100k_teardown(void **state)
{
	struct r100k *t = *state;
	int status = 0, rc;

	itest_proc_cleanup(&t->writer);
	itest_proc_cleanup(&t->reader);
	rawcli_close(&t->holder);
	rc = itest_daemon_stop(&t->d, SIGTERM, 10000, &status);
	free(t);
	if (rc < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "sddsd did not shut down cleanly: rc %d status 0x%x\n", rc, status);
		return -1;
	}
	return 0;
}

static void test_reliable_100k(void **state)
{
	struct r100k *t = *state;
	char count[32], line[ITEST_LINE_MAX];
	uint64_t v, written = 0;
	int64_t t0, t1;
	uint32_t handle, self;
	Sdds__Ctl__Reply *rep;
	const Sdds__Ctl__TopicInfo *ti;
	int st;

	/* Keeps the topic alive after both peers exit, for its counters. */
	assert_int_equal(rawcli_open(t->d.sock, "itest-holder", &t->holder), 0);
	assert_int_equal(rawcli_topic(&t->holder, R100K_DOMAIN, R100K_TOPIC, 16, true, &handle), 0);

	const char *rargs[] = {"--domain", "1",	  "--topic",   "0x31", "--size",       "16",	 "--reliable",
			       "--depth",  "256", "--writers", "1",    "--timeout-ms", "150000", NULL};
	assert_int_equal(itest_peer_spawn(&t->reader, "reader", t->d.sock, rargs), 0);
	assert_int_equal(itest_proc_expect(&t->reader, "ready", line, sizeof line, 20000), 0);

	snprintf(count, sizeof count, "%u", R100K_COUNT);
	const char *wargs[] = {"--domain", "1",	  "--topic",	       "0x31",	"--size", "16", "--reliable",
			       "--count",  count, "--max-blocking-ms", "30000", NULL};
	t0 = itest_now_ns();
	assert_int_equal(itest_peer_spawn(&t->writer, "writer", t->d.sock, wargs), 0);

	st = itest_proc_finish(&t->writer, line, sizeof line, 150000);
	fprintf(stderr, "writer: %s\n", line);
	assert_int_equal(st, 0);
	assert_true(itest_kv_u64(line, "written", &written));
	assert_int_equal(written, R100K_COUNT);
	assert_true(itest_kv_u64(line, "errors", &v));
	assert_int_equal(v, 0);

	st = itest_proc_finish(&t->reader, line, sizeof line, 150000);
	t1 = itest_now_ns();
	fprintf(stderr, "reader: %s\n", line);
	assert_int_equal(st, 0);
	assert_true(itest_kv_u64(line, "errors", &v));
	assert_int_equal(v, 0);
	assert_true(itest_kv_u64(line, "received", &v));
	assert_int_equal(v, R100K_COUNT);
	/* Samples taken include the END sample; nothing more, nothing lost. */
	assert_true(itest_kv_u64(line, "samples", &v));
	assert_int_equal(v, R100K_COUNT + 1);
	assert_true(itest_kv_u64(line, "missing", &v));
	assert_int_equal(v, 0);
	assert_true(itest_kv_u64(line, "lost", &v));
	assert_int_equal(v, 0);
	fprintf(stderr, "%u samples in %.3f s (%.0f samples/s, daemon %s, process start included)\n",
		R100K_COUNT, (double)(t1 - t0) / 1e9, R100K_COUNT / ((double)(t1 - t0) / 1e9),
		r100k_poll ? "polling" : "blocking");

	/* The daemon counted the same: every sample accepted, delivered once, none dropped. */
	assert_int_equal(itest_stats(t->d.sock, &rep, &self), 0);
	ti = itest_stats_topic(rep->stats, R100K_DOMAIN, R100K_TOPIC);
	assert_non_null(ti);
	assert_non_null(ti->counters);
	fprintf(stderr,
		"topic counters: written %" PRIu64 " delivered %" PRIu64 " dropped %" PRIu64
		" rejected %" PRIu64 "\n",
		ti->counters->written, ti->counters->delivered, ti->counters->dropped,
		ti->counters->rejected);
	assert_int_equal(ti->counters->written, R100K_COUNT + 1);
	assert_int_equal(ti->counters->delivered, R100K_COUNT + 1);
	assert_int_equal(ti->counters->dropped, 0);
	assert_int_equal(ti->counters->rejected, 0);
	assert_int_equal(rep->stats->sessions_protocol_errors, 0);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	assert_true(itest_daemon_alive(&t->d));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_reliable_100k, r100k_setup, r100k_teardown),
	};
	int rc = itest_check_env();

	if (rc != 0)
		return rc;
	r100k_poll = argc > 1 && strcmp(argv[1], "--poll") == 0;
	return cmocka_run_group_tests_name(r100k_poll ? "reliable_100k_poll" : "reliable_100k", tests, NULL,
					   NULL);
}
