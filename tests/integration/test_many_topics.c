/* SPDX-License-Identifier: MIT */
/*
 * test_many_topics.c - three writer processes on two topics, six reader
 * processes, one daemon.
 *
 * OVERVIEW
 *   topic A (domain 3, id 0x10, 16 bytes): writers W1, W2 (reliable)
 *   topic B (domain 3, id 0x20, 48 bytes): writer W3 (reliable)
 *   RA  reliable on A   expects every sample of W1 and W2, per-writer order
 *   RB  reliable on B   expects every sample of W3
 *   SA  best effort on A, slow (2 ms per take, 4 slots): loses samples
 *   SB  best effort on B, slow (2 ms per take, 4 slots): loses samples
 *   FA  best effort on A, not slowed
 *   XA  reliable on domain 4, id 0x10: same id, other domain: gets nothing
 * Every reader checks that each sample it takes belongs to its topic (tag,
 * size, pattern) and that no writer's samples repeat or go backwards. The
 * best-effort readers must account for every sample: taken + lost == sent.
 * The slow ones must really have lost some (else the test proved nothing).
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

#define MT_COUNT "20000"
#define MT_N_READERS 6
#define MT_N_WRITERS 3

struct mt {
	struct itest_daemon d;
	struct itest_proc r[MT_N_READERS];
	struct itest_proc w[MT_N_WRITERS];
	struct rawcli holder;
};

static int mt_setup(void **state)
{
	struct mt *t = calloc(1, sizeof *t);

	if (t == NULL)
		return -1;
	for (int i = 0; i < MT_N_READERS; i++)
		itest_proc_init(&t->r[i]);
	for (int i = 0; i < MT_N_WRITERS; i++)
		itest_proc_init(&t->w[i]);
	t->holder.sock = t->holder.efd = -1;
	if (itest_daemon_start(&t->d, NULL, NULL) < 0) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int mt_teardown(void **state)
{
	struct mt *t = *state;
	int status = 0, rc;

	for (int i = 0; i < MT_N_WRITERS; i++)
		itest_proc_cleanup(&t->w[i]);
	for (int i = 0; i < MT_N_READERS; i++)
		itest_proc_cleanup(&t->r[i]);
	rawcli_close(&t->holder);
	rc = itest_daemon_stop(&t->d, SIGTERM, 10000, &status);
	free(t);
	if (rc < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "sddsd did not shut down cleanly: rc %d status 0x%x\n", rc, status);
		return -1;
	}
	return 0;
}

enum { RA, RB, SA, SB, FA, XA };

static const char *const mt_reader_args[MT_N_READERS][16] = {
    [RA] = {"--domain", "3", "--topic", "0x10", "--size", "16", "--reliable", "--depth", "64", "--writers",
	    "2", NULL},
    [RB] = {"--domain", "3", "--topic", "0x20", "--size", "48", "--reliable", "--depth", "64", "--writers",
	    "1", NULL},
    [SA] = {"--domain", "3", "--topic", "0x10", "--size", "16", "--best-effort", "--depth", "4", "--slow-us",
	    "2000", "--writers", "0", NULL},
    [SB] = {"--domain", "3", "--topic", "0x20", "--size", "48", "--best-effort", "--depth", "4", "--slow-us",
	    "2000", "--writers", "0", NULL},
    [FA] = {"--domain", "3", "--topic", "0x10", "--size", "16", "--best-effort", "--depth", "64", "--writers",
	    "0", NULL},
    [XA] = {"--domain", "4", "--topic", "0x10", "--size", "16", "--reliable", "--depth", "16", "--writers",
	    "0", NULL},
};

static const char *const mt_writer_args[MT_N_WRITERS][16] = {
    {"--domain", "3", "--topic", "0x10", "--size", "16", "--reliable", "--tag", "1", "--count", MT_COUNT,
     "--max-blocking-ms", "30000", NULL},
    {"--domain", "3", "--topic", "0x10", "--size", "16", "--reliable", "--tag", "2", "--count", MT_COUNT,
     "--max-blocking-ms", "30000", NULL},
    {"--domain", "3", "--topic", "0x20", "--size", "48", "--reliable", "--tag", "3", "--count", MT_COUNT,
     "--max-blocking-ms", "30000", NULL},
};

static const char *const mt_reader_name[MT_N_READERS] = {"RA", "RB", "SA", "SB", "FA", "XA"};

static uint64_t mt_u64(const char *line, const char *key)
{
	uint64_t v = 0;

	assert_true(itest_kv_u64(line, key, &v));
	return v;
}

/* Finish reader i and check the parts common to every reader. */
static void mt_finish_reader(struct mt *t, int i, char *line, size_t cap)
{
	int st = itest_proc_finish(&t->r[i], line, cap, 120000);

	fprintf(stderr, "%s: %s\n", mt_reader_name[i], line);
	assert_int_equal(st, 0);
	assert_int_equal(mt_u64(line, "errors"), 0);
}

static void test_many_topics(void **state)
{
	struct mt *t = *state;
	char line[ITEST_LINE_MAX];
	uint64_t written[MT_N_WRITERS], sent_a, sent_b, samples, lost;
	uint32_t ha, hb, self;
	Sdds__Ctl__Reply *rep;
	const Sdds__Ctl__TopicInfo *ta, *tb;

	assert_int_equal(rawcli_open(t->d.sock, "itest-holder", &t->holder), 0);
	assert_int_equal(rawcli_topic(&t->holder, 3, 0x10, 16, true, &ha), 0);
	assert_int_equal(rawcli_topic(&t->holder, 3, 0x20, 48, true, &hb), 0);

	for (int i = 0; i < MT_N_READERS; i++) {
		assert_int_equal(itest_peer_spawn(&t->r[i], "reader", t->d.sock, mt_reader_args[i]), 0);
		assert_int_equal(itest_proc_expect(&t->r[i], "ready", line, sizeof line, 20000), 0);
	}
	for (int i = 0; i < MT_N_WRITERS; i++)
		assert_int_equal(itest_peer_spawn(&t->w[i], "writer", t->d.sock, mt_writer_args[i]), 0);
	for (int i = 0; i < MT_N_WRITERS; i++) {
		int st = itest_proc_finish(&t->w[i], line, sizeof line, 120000);

		fprintf(stderr, "W%d: %s\n", i + 1, line);
		assert_int_equal(st, 0);
		assert_int_equal(mt_u64(line, "errors"), 0);
		written[i] = mt_u64(line, "written");
		assert_int_equal(written[i], strtoull(MT_COUNT, NULL, 10));
	}
	/* Every sample counts, END samples included. */
	sent_a = written[0] + 1 + written[1] + 1;
	sent_b = written[2] + 1;

	/* The reliable readers stop at the END samples: all of A and B was routed. */
	mt_finish_reader(t, RA, line, sizeof line);
	assert_int_equal(mt_u64(line, "samples"), sent_a);
	assert_int_equal(mt_u64(line, "missing"), 0);
	assert_int_equal(mt_u64(line, "lost"), 0);
	mt_finish_reader(t, RB, line, sizeof line);
	assert_int_equal(mt_u64(line, "samples"), sent_b);
	assert_int_equal(mt_u64(line, "missing"), 0);
	assert_int_equal(mt_u64(line, "lost"), 0);

	/* Read the counters while every endpoint still exists. */
	assert_int_equal(itest_stats(t->d.sock, &rep, &self), 0);
	ta = itest_stats_topic(rep->stats, 3, 0x10);
	tb = itest_stats_topic(rep->stats, 3, 0x20);
	assert_non_null(ta);
	assert_non_null(tb);
	assert_non_null(ta->counters);
	assert_non_null(tb->counters);
	assert_int_equal(ta->counters->written, sent_a);
	assert_int_equal(tb->counters->written, sent_b);
	assert_int_equal(ta->sample_size, 16);
	assert_int_equal(tb->sample_size, 48);
	/* Same id in another domain is another topic, and nobody writes it. */
	{
		const Sdds__Ctl__TopicInfo *tx = itest_stats_topic(rep->stats, 4, 0x10);

		assert_non_null(tx);
		assert_non_null(tx->counters);
		assert_int_equal(tx->counters->written, 0);
		assert_int_equal(tx->counters->delivered, 0);
	}
	sdds__ctl__reply__free_unpacked(rep, NULL);

	/* The others drain what is left and stop. */
	for (int i = SA; i <= XA; i++)
		itest_proc_close_stdin(&t->r[i]);

	mt_finish_reader(t, SA, line, sizeof line);
	samples = mt_u64(line, "samples");
	lost = mt_u64(line, "lost");
	assert_int_equal(samples + lost, sent_a);
	assert_true(lost > 0);
	mt_finish_reader(t, SB, line, sizeof line);
	samples = mt_u64(line, "samples");
	lost = mt_u64(line, "lost");
	assert_int_equal(samples + lost, sent_b);
	assert_true(lost > 0);
	mt_finish_reader(t, FA, line, sizeof line);
	samples = mt_u64(line, "samples");
	lost = mt_u64(line, "lost");
	assert_int_equal(samples + lost, sent_a);
	mt_finish_reader(t, XA, line, sizeof line);
	assert_int_equal(mt_u64(line, "samples"), 0);
	assert_int_equal(mt_u64(line, "lost"), 0);

	assert_true(itest_daemon_alive(&t->d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_many_topics, mt_setup, mt_teardown),
	};
	int rc = itest_check_env();

	if (rc != 0)
		return rc;
	return cmocka_run_group_tests_name("many_topics", tests, NULL, NULL);
}
