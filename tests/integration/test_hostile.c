/* SPDX-License-Identifier: MIT */
/*
 * test_hostile.c - hostile clients against a live sddsd, while a
 * well-behaved pair of client processes exchanges samples on it.
 *
 * OVERVIEW
 * Fixture (per test case, each case normally its own process: argv[1] names
 * the case): a private sddsd; a reader process and a writer process
 * (itest-peer) on a RELIABLE topic ("the pair"), the writer streaming about
 * 8,000 samples/s until the end of the case. The attack comes from a raw
 * client (rawcli.c: ipc/ctl.h + ipc/segment.h + ipc/layout.h, not the
 * client library) in this process, or from a child process for the kills.
 *
 * Every case then checks, besides its own expectations:
 *   - the daemon is alive and the pair's two sessions are still there;
 *   - protocol violations: the hostile client was hung up on, its session is
 *     gone from the stats, and sessions_protocol_errors went up by exactly
 *     the number of violations (hx_expect_disconnected); requests over a
 *     cap: refused with -ENOSPC, counted as rejected, client still served;
 *   - once every hostile connection is closed, the daemon holds exactly as
 *     many descriptors and memfd mappings as before the attack;
 *   - the pair: the writer saw no error, the reader got every sample in
 *     order, none lost, none duplicated, none foreign (the peers check);
 *   - the daemon shuts down cleanly on SIGTERM afterwards (exit 0; under
 *     ASan that includes LeakSanitizer's verdict).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctl.h"
#include "itest.h"
#include "rawcli.h"
#include "sample.h"

#define HX_MAX_RC 24
#define HX_PAIR_DOMAIN 0
#define HX_PAIR_TOPIC 0x99
#define HX_PAIR_SIZE 16
#define HX_HANGUP_MS 5000
/* One more field than daemon/core/broker.h's BROKER_MAX_FIELDS (64) allows. */
#define HX_MANY_FIELDS 65

/* Small per-client caps for the caps_* cases (keys from the daemon's config). */
static const char hx_caps_config[] = "# test_hostile caps\n"
				     "max_topics_per_client = 8\n"
				     "max_writers_per_client = 8\n"
				     "max_readers_per_client = 8\n";

static const char hx_clients_config[] = "# test_hostile caps_clients\n"
					"max_clients = 6\n";

struct hx {
	struct itest_daemon d;
	struct itest_proc pw, pr; /* the pair: writer, reader */
	struct itest_proc victim[2];
	uint32_t pw_session, pr_session;
	struct rawcli rc[HX_MAX_RC];
	int n_rc;
	uint64_t proto0;	 /* sessions_protocol_errors after setup */
	uint64_t proto_expected; /* violations committed since */
	int fds0;		 /* daemon descriptors after setup */
	int memfds0;
};

/* ---------------------------------------------------------- fixture */

static int hx_fds_settled(pid_t pid)
{
	int a = itest_proc_fds(pid), b;

	for (int i = 0; i < 50; i++) {
		itest_sleep_ms(20);
		b = itest_proc_fds(pid);
		if (a == b)
			return b;
		a = b;
	}
	return a;
}

static int hx_start(void **state, const char *config)
{
	struct hx *t = calloc(1, sizeof *t);
	char line[ITEST_LINE_MAX];
	Sdds__Ctl__Reply *rep;
	uint64_t v;
	uint32_t self;

	if (t == NULL)
		return -1;
	*state = t;
	itest_proc_init(&t->pw);
	itest_proc_init(&t->pr);
	itest_proc_init(&t->victim[0]);
	itest_proc_init(&t->victim[1]);
	for (int i = 0; i < HX_MAX_RC; i++) {
		t->rc[i].sock = -1;
		t->rc[i].efd = -1;
	}
	if (itest_daemon_start(&t->d, config, NULL) < 0)
		return -1;

	const char *rargs[] = {"--domain", "0",	 "--topic",   "0x99", "--size",	      "16",	"--reliable",
			       "--depth",  "64", "--writers", "1",    "--timeout-ms", "240000", NULL};
	if (itest_peer_spawn(&t->pr, "reader", t->d.sock, rargs) < 0 ||
	    itest_proc_expect(&t->pr, "ready", line, sizeof line, 20000) < 0 ||
	    !itest_kv_u64(line, "session", &v))
		return -1;
	t->pr_session = (uint32_t)v;
	/* About 8 samples per ms, until its stdin closes. */
	const char *wargs[] = {"--domain", "0", "--topic", "0x99", "--size",	 "16",	 "--reliable",
			       "--count",  "0", "--batch", "8",	   "--pause-us", "1000", "--max-blocking-ms",
			       "60000",	   NULL};
	if (itest_peer_spawn(&t->pw, "writer", t->d.sock, wargs) < 0 ||
	    itest_proc_expect(&t->pw, "ready", line, sizeof line, 20000) < 0 ||
	    !itest_kv_u64(line, "session", &v))
		return -1;
	t->pw_session = (uint32_t)v;

	/* A first stats query also brings any lazily opened daemon state in. */
	if (itest_stats(t->d.sock, &rep, &self) < 0)
		return -1;
	t->proto0 = rep->stats->sessions_protocol_errors;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	t->fds0 = hx_fds_settled(t->d.pid);
	t->memfds0 = itest_proc_memfd_maps(t->d.pid);
	itest_sleep_ms(50);
	return 0;
}

static int hx_setup(void **state)
{
	return hx_start(state, NULL);
}

static int hx_setup_caps(void **state)
{
	return hx_start(state, hx_caps_config);
}

static int hx_setup_clients(void **state)
{
	return hx_start(state, hx_clients_config);
}

static int hx_teardown(void **state)
{
	struct hx *t = *state;
	int status = 0, rc;

	if (t == NULL)
		return 0;
	for (int i = 0; i < HX_MAX_RC; i++)
		rawcli_close(&t->rc[i]);
	itest_proc_cleanup(&t->victim[0]);
	itest_proc_cleanup(&t->victim[1]);
	itest_proc_cleanup(&t->pw);
	itest_proc_cleanup(&t->pr);
	rc = itest_daemon_stop(&t->d, SIGTERM, 10000, &status);
	free(t);
	if (rc < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "sddsd did not shut down cleanly: rc %d status 0x%x\n", rc, status);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------- helpers */

static uint64_t hx_rand(uint64_t *s)
{
	/* xorshift64: deterministic garbage, reproducible from the seed. */
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static struct rawcli *hx_slot(struct hx *t)
{
	assert_true(t->n_rc < HX_MAX_RC);
	return &t->rc[t->n_rc++];
}

/* A raw client past Hello. */
static struct rawcli *hx_raw(struct hx *t)
{
	struct rawcli *rc = hx_slot(t);

	assert_int_equal(rawcli_open(t->d.sock, "itest-hostile", rc), 0);
	return rc;
}

/* A raw client that has not said Hello. */
static struct rawcli *hx_raw_nohello(struct hx *t)
{
	struct rawcli *rc = hx_slot(t);

	assert_int_equal(rawcli_connect(t->d.sock, rc), 0);
	return rc;
}

/* The client's own topic (16-byte isample layout) and a best-effort writer on it. */
static void hx_own_writer(struct rawcli *rc, uint16_t topic_id, uint32_t *ret_topic, uint32_t *ret_writer)
{
	uint32_t topic, w;

	assert_int_equal(rawcli_topic(rc, 0, topic_id, 16, true, &topic), 0);
	assert_int_equal(rawcli_writer(rc, topic, false, 100, &w), 0);
	if (ret_topic)
		*ret_topic = topic;
	*ret_writer = w;
}

/* A legitimate sample of the client's own topic. */
static void hx_own_sample(uint16_t topic_id, uint64_t seq, uint8_t out[16])
{
	struct isample s = {topic_id, 7, ISAMPLE_DATA, seq};

	isample_encode(out, 16, &s);
}

/* Write n legitimate samples and wait until the daemon consumed them. */
static void hx_legit_writes(struct rawcli *rc, uint16_t topic_id, uint32_t writer, unsigned n)
{
	uint8_t buf[16];

	for (unsigned i = 0; i < n; i++) {
		hx_own_sample(topic_id, i, buf);
		assert_int_equal(rawcli_write(rc, writer, buf, sizeof buf, 5000), 0);
	}
	assert_int_equal(rawcli_wait_consumed(rc, 5000), 0);
}

static void hx_put_rec(struct rawcli *rc, uint64_t pos, uint32_t len, uint16_t type, uint16_t flags,
		       uint32_t handle, const void *payload, size_t payload_len)
{
	struct sdds_rec h = {.len = len, .type = type, .flags = flags, .handle = handle, .seq = 0};

	rawcli_put(rc, pos, &h, payload, payload_len);
}

static Sdds__Ctl__Reply *hx_stats(struct hx *t, uint32_t *ret_self)
{
	Sdds__Ctl__Reply *rep = NULL;
	uint32_t self = 0;

	assert_int_equal(itest_stats(t->d.sock, &rep, &self), 0);
	if (ret_self)
		*ret_self = self;
	return rep;
}

static uint64_t hx_proto(struct hx *t)
{
	Sdds__Ctl__Reply *rep = hx_stats(t, NULL);
	uint64_t v = rep->stats->sessions_protocol_errors;

	sdds__ctl__reply__free_unpacked(rep, NULL);
	return v;
}

/*
 * The attack was a protocol violation: the daemon hangs up on the client,
 * forgets its session and counts exactly one more protocol error.
 * session: the client's session id, 0 if it never had one.
 */
static void hx_expect_disconnected(struct hx *t, struct rawcli *rc, const char *what)
{
	int64_t deadline;
	Sdds__Ctl__Reply *rep;
	uint32_t session = rc->session_id;

	if (!rawcli_wait_hangup(rc, HX_HANGUP_MS))
		fail_msg("%s: the daemon did not disconnect the hostile client", what);
	t->proto_expected++;
	deadline = itest_now_ms() + 3000;
	for (;;) {
		rep = hx_stats(t, NULL);
		if (rep->stats->sessions_protocol_errors >= t->proto0 + t->proto_expected &&
		    (session == 0 || itest_stats_client(rep->stats, session) == NULL))
			break;
		if (itest_now_ms() > deadline)
			break;
		sdds__ctl__reply__free_unpacked(rep, NULL);
		itest_sleep_ms(10);
	}
	if (rep->stats->sessions_protocol_errors != t->proto0 + t->proto_expected)
		fprintf(stderr, "%s: sessions_protocol_errors %" PRIu64 ", expected %" PRIu64 "\n", what,
			rep->stats->sessions_protocol_errors, t->proto0 + t->proto_expected);
	assert_int_equal(rep->stats->sessions_protocol_errors, t->proto0 + t->proto_expected);
	if (session != 0)
		assert_null(itest_stats_client(rep->stats, session));
	assert_non_null(itest_stats_client(rep->stats, t->pw_session));
	assert_non_null(itest_stats_client(rep->stats, t->pr_session));
	sdds__ctl__reply__free_unpacked(rep, NULL);
	rawcli_close(rc);
}

/*
 * After an error reply: the daemon may keep the client or hang up on it as a
 * protocol violation; either way the counters must agree.
 */
static void hx_refused_then_maybe_disconnected(struct hx *t, struct rawcli *rc, const char *what)
{
	if (rawcli_wait_hangup(rc, 300)) {
		fprintf(stderr, "%s: refused, then disconnected\n", what);
		rawcli_close(rc);
		t->proto_expected++;
	} else {
		fprintf(stderr, "%s: refused, still connected\n", what);
	}
}

/*
 * Wait until the daemon consumed everything published (1) or hung up (0).
 * A daemon that kills a session does not publish the cons of the record
 * that got it killed, so "consumed" means the records were accepted.
 */
static int hx_consumed_or_hangup(struct rawcli *rc, int ms)
{
	int64_t deadline = itest_now_ms() + ms;
	struct pollfd p = {.fd = rc->sock, .events = POLLRDHUP};

	for (;;) {
		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR)))
			return 0;
		if (rawcli_cons(rc) == rc->prod)
			return rawcli_wait_hangup(rc, 200) ? 0 : 1;
		if (itest_now_ms() > deadline)
			return -ETIMEDOUT;
		rawcli_kick(rc);
		itest_sleep_ms(1);
	}
}

/* The daemon does not hang up within ms (a refusal is not a disconnect). */
static void hx_expect_connected(struct rawcli *rc, int ms, const char *what)
{
	if (rawcli_wait_hangup(rc, ms))
		fail_msg("%s: the daemon disconnected a client it should have kept", what);
}

/*
 * End of every case: close the hostile connections, check the daemon let go
 * of everything they held, then let the pair finish and check it lost
 * nothing.
 */
static void hx_finish(struct hx *t)
{
	char line[ITEST_LINE_MAX];
	Sdds__Ctl__Reply *rep;
	uint64_t written = 0, v;
	uint32_t self;
	int64_t deadline;
	int st, fds, memfds;

	assert_true(itest_daemon_alive(&t->d));
	for (int i = 0; i < HX_MAX_RC; i++)
		rawcli_close(&t->rc[i]);

	deadline = itest_now_ms() + 5000;
	for (;;) {
		rep = hx_stats(t, &self);
		if (itest_stats_other_clients(rep->stats, self) == 2)
			break;
		if (itest_now_ms() > deadline) {
			for (size_t i = 0; i < rep->stats->n_clients; i++)
				fprintf(stderr, "  session %u name %s\n", rep->stats->clients[i]->session_id,
					rep->stats->clients[i]->name);
			fail_msg("closed hostile sessions were not torn down");
		}
		sdds__ctl__reply__free_unpacked(rep, NULL);
		itest_sleep_ms(10);
	}
	assert_non_null(itest_stats_client(rep->stats, t->pw_session));
	assert_non_null(itest_stats_client(rep->stats, t->pr_session));
	assert_int_equal(rep->stats->sessions_protocol_errors, t->proto0 + t->proto_expected);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	fds = hx_fds_settled(t->d.pid);
	memfds = itest_proc_memfd_maps(t->d.pid);
	if (fds != t->fds0 || memfds != t->memfds0)
		fprintf(stderr, "daemon fds %d (before %d), memfd maps %d (before %d)\n", fds, t->fds0,
			memfds, t->memfds0);
	assert_int_equal(fds, t->fds0);
	assert_int_equal(memfds, t->memfds0);

	itest_proc_close_stdin(&t->pw);
	st = itest_proc_finish(&t->pw, line, sizeof line, 60000);
	fprintf(stderr, "pair writer: %s\n", line);
	assert_int_equal(st, 0);
	assert_true(itest_kv_u64(line, "errors", &v));
	assert_int_equal(v, 0);
	assert_true(itest_kv_u64(line, "written", &written));
	assert_true(written > 0);
	st = itest_proc_finish(&t->pr, line, sizeof line, 60000);
	fprintf(stderr, "pair reader: %s\n", line);
	assert_int_equal(st, 0);
	assert_true(itest_kv_u64(line, "errors", &v));
	assert_int_equal(v, 0);
	assert_true(itest_kv_u64(line, "received", &v));
	assert_int_equal(v, written);
	assert_true(itest_kv_u64(line, "missing", &v));
	assert_int_equal(v, 0);
	assert_true(itest_daemon_alive(&t->d));
}

/* ---------------------------------------------------------- request ring */

static void test_hostile_garbage_ring(void **state)
{
	struct hx *t = *state;

	for (uint64_t round = 0; round < 4; round++) {
		struct rawcli *rc = hx_raw(t);
		uint64_t seed = 0x9e3779b97f4a7c15ull * (round + 1), prod;
		uint32_t w;

		hx_own_writer(rc, 0x100, NULL, &w);
		for (uint32_t i = 0; i < rc->req_cap; i += 8) {
			uint64_t r = hx_rand(&seed);

			memcpy(rc->req_data + i, &r, 8);
		}
		switch (round) {
		case 0:
			prod = hx_rand(&seed);
			break; /* any index */
		case 1:
			prod = (hx_rand(&seed) % (rc->req_cap / 16) + 1) * 16;
			break; /* aligned, in range */
		case 2:
			prod = hx_rand(&seed) % rc->req_cap + 1;
			break; /* unaligned */
		default:
			prod = 16;
			break; /* one random header */
		}
		fprintf(stderr, "garbage round %" PRIu64 ": prod %" PRIu64 "\n", round, prod);
		rawcli_publish(rc, prod);
		hx_expect_disconnected(t, rc, "garbage ring");
	}
	hx_finish(t);
}

static void test_hostile_prod_backwards(void **state)
{
	struct hx *t = *state;
	struct rawcli *rc = hx_raw(t);
	uint32_t w;

	hx_own_writer(rc, 0x101, NULL, &w);
	hx_legit_writes(rc, 0x101, w, 3);
	/* Take back one record the daemon already consumed. */
	rawcli_publish(rc, rc->prod - 32);
	hx_expect_disconnected(t, rc, "prod backwards");
	hx_finish(t);
}

static void test_hostile_prod_beyond_cap(void **state)
{
	struct hx *t = *state;
	uint8_t buf[16];

	/* Round 1: a ring full of valid records, and one more than fits. */
	{
		struct rawcli *rc = hx_raw(t);
		uint32_t w;

		hx_own_writer(rc, 0x102, NULL, &w);
		for (uint64_t pos = 0; pos < rc->req_cap; pos += 32) {
			hx_own_sample(0x102, pos / 32, buf);
			hx_put_rec(rc, pos, 16, SDDS_REC_WRITE, 0, w, buf, 16);
		}
		rawcli_publish(rc, (uint64_t)rc->req_cap + 32);
		hx_expect_disconnected(t, rc, "prod cap + 32");
	}
	/* Round 2: an index from far away. */
	{
		struct rawcli *rc = hx_raw(t);
		uint32_t w;

		hx_own_writer(rc, 0x102, NULL, &w);
		rawcli_publish(rc, 1ull << 62);
		hx_expect_disconnected(t, rc, "prod 2^62");
	}
	hx_finish(t);
}

static void test_hostile_record_too_long(void **state)
{
	struct hx *t = *state;
	static uint8_t zero[8192];

	/* len one byte beyond what max_record allows, all bytes published. */
	{
		struct rawcli *rc = hx_raw(t);
		uint32_t w, len;

		hx_own_writer(rc, 0x103, NULL, &w);
		len = rc->max_record - (uint32_t)sizeof(struct sdds_rec) + 1;
		assert_true(len <= sizeof zero);
		hx_put_rec(rc, 0, len, SDDS_REC_WRITE, 0, w, zero, len);
		rawcli_publish(rc, (sizeof(struct sdds_rec) + len + 15) & ~15ull);
		hx_expect_disconnected(t, rc, "len > max_record");
	}
	/* len far beyond the published bytes. */
	{
		struct rawcli *rc = hx_raw(t);
		uint32_t w;

		hx_own_writer(rc, 0x103, NULL, &w);
		hx_put_rec(rc, 0, 0xfffffff0u, SDDS_REC_WRITE, 0, w, zero, 16);
		rawcli_publish(rc, 32);
		hx_expect_disconnected(t, rc, "len 0xfffffff0");
	}
	hx_finish(t);
}

static void test_hostile_record_crosses_end(void **state)
{
	struct hx *t = *state;
	struct rawcli *rc = hx_raw(t);
	uint8_t buf[32];
	uint32_t w;
	uint64_t n;

	hx_own_writer(rc, 0x104, NULL, &w);
	/* Valid 32-byte records up to 32 bytes before the end of the ring. */
	n = (rc->req_cap - 32) / 32;
	for (uint64_t i = 0; i < n; i++) {
		hx_own_sample(0x104, i, buf);
		assert_int_equal(rawcli_write(rc, w, buf, 16, 5000), 0);
	}
	assert_int_equal(rawcli_wait_consumed(rc, 10000), 0);
	assert_int_equal(rc->prod, (uint64_t)rc->req_cap - 32);
	/* A 48-byte record in the last 32 bytes: it would wrap. */
	memset(buf, 0xab, sizeof buf);
	hx_put_rec(rc, rc->prod, 32, SDDS_REC_WRITE, 0, w, buf, 32);
	rawcli_publish(rc, rc->prod + 48);
	hx_expect_disconnected(t, rc, "record crossing the end");
	hx_finish(t);
}

static void test_hostile_pad_bad(void **state)
{
	struct hx *t = *state;
	uint8_t buf[16];

	/* A PAD that stops short of the end, then a valid record after it. */
	{
		struct rawcli *rc = hx_raw(t);
		uint32_t w;

		hx_own_writer(rc, 0x105, NULL, &w);
		hx_put_rec(rc, 0, 64, SDDS_REC_PAD, 0, 0, NULL, 0);
		hx_own_sample(0x105, 0, buf);
		hx_put_rec(rc, 80, 16, SDDS_REC_WRITE, 0, w, buf, 16);
		rawcli_publish(rc, 112);
		hx_expect_disconnected(t, rc, "short PAD");
	}
	/* A PAD that reaches past the end of the ring. */
	{
		struct rawcli *rc = hx_raw(t);
		uint32_t w;

		hx_own_writer(rc, 0x105, NULL, &w);
		hx_put_rec(rc, 0, rc->req_cap, SDDS_REC_PAD, 0, 0, NULL, 0);
		rawcli_publish(rc, 16);
		hx_expect_disconnected(t, rc, "long PAD");
	}
	hx_finish(t);
}

static void hx_bad_header(struct hx *t, uint16_t type, uint16_t flags, const char *what)
{
	struct rawcli *rc = hx_raw(t);
	uint8_t buf[16];
	uint32_t w;

	hx_own_writer(rc, 0x106, NULL, &w);
	hx_own_sample(0x106, 0, buf);
	hx_put_rec(rc, 0, 16, type, flags, w, buf, 16);
	rawcli_publish(rc, 32);
	hx_expect_disconnected(t, rc, what);
}

static void test_hostile_unknown_type(void **state)
{
	struct hx *t = *state;

	hx_bad_header(t, 3, 0, "type 3");
	hx_bad_header(t, 0, 0, "type 0");
	hx_bad_header(t, 0xffff, 0, "type 0xffff");
	hx_finish(t);
}

static void test_hostile_nonzero_flags(void **state)
{
	struct hx *t = *state;

	hx_bad_header(t, SDDS_REC_WRITE, 1, "flags 1");
	hx_bad_header(t, SDDS_REC_WRITE, 0x8000, "flags 0x8000");
	hx_bad_header(t, SDDS_REC_PAD, 2, "PAD flags 2");
	hx_finish(t);
}

/*
 * After invalid records that only the client itself could suffer from: the
 * daemon either disconnects (a protocol error) or drops each one, counts
 * it as rejected, delivers nothing of it to the client's reader (reader id
 * `reader`, which had `delivered` samples before) and keeps serving.
 */
static void hx_dropped_or_disconnected(struct hx *t, struct rawcli *rc, uint32_t reader, uint64_t delivered,
				       const char *what)
{
	Sdds__Ctl__Reply *rep;
	const Sdds__Ctl__ClientInfo *ci;
	uint32_t n_bad = 1;
	int r = hx_consumed_or_hangup(rc, 5000);

	assert_true(r >= 0);
	if (r == 0) {
		fprintf(stderr, "%s: disconnected\n", what);
		hx_expect_disconnected(t, rc, what);
		return;
	}
	fprintf(stderr, "%s: dropped, still connected\n", what);
	rep = hx_stats(t, NULL);
	ci = itest_stats_client(rep->stats, rc->session_id);
	assert_non_null(ci);
	assert_non_null(ci->counters);
	assert_int_equal(ci->counters->rejected, n_bad);
	for (size_t i = 0; i < rep->stats->n_endpoints; i++) {
		const Sdds__Ctl__EndpointInfo *ep = rep->stats->endpoints[i];

		if (ep->session_id == rc->session_id && ep->reader && ep->id == reader) {
			assert_non_null(ep->counters);
			assert_int_equal(ep->counters->delivered, delivered);
		}
	}
	sdds__ctl__reply__free_unpacked(rep, NULL);
}

static void test_hostile_write_unknown_writer(void **state)
{
	struct hx *t = *state;
	uint8_t buf[16];

	/* A client that never created a writer. */
	{
		struct rawcli *rc = hx_raw(t);
		uint32_t topic;

		assert_int_equal(rawcli_topic(rc, 0, 0x107, 16, true, &topic), 0);
		hx_own_sample(0x107, 0, buf);
		assert_int_equal(rawcli_write(rc, 0xdead, buf, 16, 1000), 0);
		hx_expect_disconnected(t, rc, "writer never created");
	}
	/*
	 * A writer id that was deleted. Records of a writer deleted a moment ago
	 * may legitimately still sit in the ring (the ring and the control socket
	 * are not ordered), so the daemon may drop such a record instead of
	 * disconnecting; then it must count it and deliver nothing.
	 */
	{
		struct rawcli *rc = hx_raw(t);
		struct rawcli_reader rd;
		uint32_t topic, w;

		hx_own_writer(rc, 0x107, &topic, &w);
		assert_int_equal(rawcli_reader(rc, topic, false, 8, &rd), 0);
		hx_legit_writes(rc, 0x107, w, 2);
		assert_int_equal(rawcli_delete(rc, false, w), 0);
		hx_own_sample(0x107, 2, buf);
		assert_int_equal(rawcli_write(rc, w, buf, 16, 1000), 0);
		hx_dropped_or_disconnected(t, rc, rd.id, 2, "deleted writer");
	}
	hx_finish(t);
}

static void test_hostile_write_foreign_writer(void **state)
{
	struct hx *t = *state;
	struct rawcli *rc = hx_raw(t);
	Sdds__Ctl__Reply *rep = hx_stats(t, NULL);
	const Sdds__Ctl__EndpointInfo *ep = itest_stats_endpoint(rep->stats, t->pw_session, false);
	struct isample s = {HX_PAIR_TOPIC, 1, ISAMPLE_DATA, 424242};
	uint8_t buf[16];
	uint32_t foreign;

	assert_non_null(ep);
	foreign = ep->id;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	/*
	 * No writer of our own, so the id cannot be ours under any numbering.
	 * The sample is one the pair's reader would reject, should it arrive.
	 */
	isample_encode(buf, sizeof buf, &s);
	assert_int_equal(rawcli_write(rc, foreign, buf, 16, 1000), 0);
	hx_expect_disconnected(t, rc, "foreign writer id");
	hx_finish(t);
}

static void test_hostile_wrong_sample_size(void **state)
{
	struct hx *t = *state;
	static const uint32_t sizes[] = {8, 24, 0};
	uint8_t buf[32] = {0};

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		struct rawcli *rc = hx_raw(t);
		struct rawcli_reader rd;
		uint32_t topic, w;

		hx_own_writer(rc, 0x108, &topic, &w);
		assert_int_equal(rawcli_reader(rc, topic, false, 8, &rd), 0);
		hx_own_sample(0x108, 0, buf);
		assert_int_equal(rawcli_write(rc, w, buf, sizes[i], 1000), 0);
		hx_dropped_or_disconnected(t, rc, rd.id, 0, "sample of the wrong size");
		if (rc->sock >= 0) {
			/* Still served: a right-sized sample goes through. */
			hx_legit_writes(rc, 0x108, w, 1);
			assert_int_equal(rawcli_reader_prod(&rd), 1);
		}
	}
	hx_finish(t);
}

/* ---------------------------------------------------------- reader rings */

static void hx_pair_reader(struct rawcli *rc, struct rawcli_reader *rd)
{
	uint32_t topic;

	assert_int_equal(rawcli_topic(rc, HX_PAIR_DOMAIN, HX_PAIR_TOPIC, HX_PAIR_SIZE, true, &topic), 0);
	assert_int_equal(rawcli_reader(rc, topic, true, 16, rd), 0);
}

static void test_hostile_reader_cons_ahead(void **state)
{
	struct hx *t = *state;

	/* On the pair's topic: the pair's writer is the one who finds out. */
	{
		struct rawcli *rc = hx_raw(t);
		struct rawcli_reader rd;

		hx_pair_reader(rc, &rd);
		rawcli_reader_set_cons(&rd, rawcli_reader_prod(&rd) + 1000);
		rawcli_kick(rc);
		hx_expect_disconnected(t, rc, "reader cons ahead (pair topic)");
	}
	/* On its own topic, fed by its own writer. */
	{
		struct rawcli *rc = hx_raw(t);
		struct rawcli_reader rd;
		uint32_t topic, w;
		uint8_t buf[16];

		hx_own_writer(rc, 0x109, &topic, &w);
		assert_int_equal(rawcli_reader(rc, topic, true, 8, &rd), 0);
		rawcli_reader_set_cons(&rd, 1000);
		/*
		 * The daemon reads cons when its own view says the ring is full
		 * (broker.h), so give it more than a ring's worth.
		 */
		for (unsigned i = 0; i < 2 * rd.cap + 2; i++) {
			hx_own_sample(0x109, i, buf);
			assert_int_equal(rawcli_write(rc, w, buf, 16, 1000), 0);
		}
		hx_expect_disconnected(t, rc, "reader cons ahead (own topic)");
	}
	hx_finish(t);
}

static void test_hostile_reader_cons_backwards(void **state)
{
	struct hx *t = *state;
	struct rawcli *rc = hx_raw(t);
	struct rawcli_reader rd;
	uint8_t buf[64];
	uint32_t len;
	int64_t deadline = itest_now_ms() + 10000;
	unsigned taken = 0;

	hx_pair_reader(rc, &rd);
	/* Keep up with the pair for a while, as a reliable reader must. */
	while (taken < 40) {
		int r = rawcli_reader_take(rc, &rd, buf, sizeof buf, &len);

		assert_true(r >= 0);
		if (r == 1) {
			struct isample s;

			assert_int_equal(isample_decode(buf, len, HX_PAIR_SIZE, &s), 0);
			taken++;
		}
		assert_true(itest_now_ms() < deadline);
	}
	/*
	 * The daemon pushed slot 39, so it has validated a cons >= 40 - cap
	 * (24): 20 is below anything it saw and cannot pass for a slow reader.
	 */
	assert_int_equal(rd.cap, 16);
	fprintf(stderr, "cons backwards: cons %" PRIu64 " -> %" PRIu64 ", prod %" PRIu64 "\n", rd.cons,
		rd.cons - 20, rawcli_reader_prod(&rd));
	rawcli_reader_set_cons(&rd, rd.cons - 20);
	/*
	 * Kick, as a reader that just consumed does: a daemon waiting for room
	 * in this ring looks at cons only when told (or at the writer's
	 * max_blocking_ms deadline).
	 */
	rawcli_kick(rc);
	hx_expect_disconnected(t, rc, "reader cons backwards");
	hx_finish(t);
}

/*
 * Fields the daemon publishes and must never read back: scribbling over them
 * must change nothing for the daemon (and is no reason to disconnect).
 */
static void test_hostile_scribble_daemon_fields(void **state)
{
	struct hx *t = *state;
	struct rawcli *rc = hx_raw(t);
	struct rawcli_reader rd;
	Sdds__Ctl__Reply *rep;
	const Sdds__Ctl__EndpointInfo *ep;
	uint32_t topic, w;
	uint8_t buf[16];
	uint64_t prod = 0;

	hx_own_writer(rc, 0x10a, &topic, &w);
	assert_int_equal(rawcli_reader(rc, topic, false, 8, &rd), 0);
	hx_legit_writes(rc, 0x10a, w, 4);

	rc->hdr->magic = 0xdeadbeef;
	rc->hdr->req_off = 0x7fffffff00ull;
	rc->hdr->req_cap = 16;
	rc->hdr->max_record = 0xffffffffu;
	rc->hdr->arena_off = 1;
	rc->hdr->arena_size = ~0ull;
	atomic_store(&rc->req->cons, 0x123456789ull);
	atomic_store(&rd.ctl->prod, 0xfedcba987ull);
	rd.ctl->cap = 1u << 30;
	rd.ctl->slot_size = 3;

	/* Ten more samples, written without trusting the scribbled cons. */
	prod = rc->prod;
	for (unsigned i = 0; i < 10; i++) {
		hx_own_sample(0x10a, 4 + i, buf);
		hx_put_rec(rc, prod, 16, SDDS_REC_WRITE, 0, w, buf, 16);
		prod += 32;
	}
	rawcli_publish(rc, prod);
	/* The daemon republishes its own cons once it consumed them. */
	assert_int_equal(rawcli_wait_consumed(rc, 5000), 0);
	hx_expect_connected(rc, 300, "scribbled daemon-owned fields");

	rep = hx_stats(t, NULL);
	ep = itest_stats_endpoint(rep->stats, rc->session_id, false);
	assert_non_null(ep);
	assert_non_null(ep->counters);
	assert_int_equal(ep->counters->written, 14);
	ep = itest_stats_endpoint(rep->stats, rc->session_id, true);
	assert_non_null(ep);
	assert_int_equal(ep->counters->delivered, 14);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	hx_finish(t);
}

/*
 * Not an attack, an edge: the client deletes a writer whose record the
 * daemon holds stalled (its own reliable reader never takes). The daemon
 * must finish the stall before the delete takes effect (it once freed the
 * writer under the stall and crashed on the retry).
 */
static void hx_delete_while_stalled(struct hx *t, bool kick, uint16_t topic_id)
{
	struct rawcli *rc = hx_raw(t);
	struct rawcli_reader rd;
	Sdds__Ctl__Reply *rep;
	const Sdds__Ctl__EndpointInfo *ep;
	uint32_t topic, w, len;
	uint8_t buf[16];
	unsigned n = 0;

	assert_int_equal(rawcli_topic(rc, 0, topic_id, 16, true, &topic), 0);
	assert_int_equal(rawcli_reader(rc, topic, true, 2, &rd), 0);
	assert_int_equal(rawcli_writer(rc, topic, true, 300, &w), 0);
	for (unsigned i = 0; i < 5; i++) {
		hx_own_sample(topic_id, i, buf);
		assert_int_equal(rawcli_write_nopub(rc, w, buf, 16), 0);
	}
	if (kick) {
		/* The daemon pumps now and stalls on the third record. */
		rawcli_publish(rc, rc->prod);
		itest_sleep_ms(50);
	} else {
		/*
		 * Published but not kicked: the daemon first sees the records
		 * when the delete arrives and pumps them before handling it.
		 */
		atomic_store_explicit(&rc->req->prod, rc->prod, memory_order_release);
	}
	/* The reply waits for the stall to be resolved. */
	assert_int_equal(rawcli_delete(rc, false, w), 0);
	hx_expect_connected(rc, 100, "delete while stalled");
	assert_true(itest_daemon_alive(&t->d));
	rep = hx_stats(t, NULL);
	assert_null(itest_stats_endpoint(rep->stats, rc->session_id, false));
	ep = itest_stats_endpoint(rep->stats, rc->session_id, true);
	assert_non_null(ep);
	assert_non_null(ep->counters);
	/* Two fit; the other three waited out max_blocking_ms and were dropped for it. */
	assert_int_equal(ep->counters->delivered, 2);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	/* The reader still works once it takes. */
	while (rawcli_reader_take(rc, &rd, buf, sizeof buf, &len) == 1)
		n++;
	assert_int_equal(n, 2);
}

/*
 * Not an attack, an edge: the client deletes a writer whose record the
 * daemon holds stalled (its own reliable reader never takes). The daemon
 * must finish the stall before the delete takes effect; an earlier daemon
 * freed the writer under the stall and crashed on the retry when the stall
 * began in the pump that runs before a control request is handled.
 */
static void test_hostile_delete_while_stalled(void **state)
{
	struct hx *t = *state;

	hx_delete_while_stalled(t, true, 0x116);
	hx_delete_while_stalled(t, false, 0x117);
	itest_sleep_ms(400);
	assert_true(itest_daemon_alive(&t->d));
	hx_finish(t);
}

/* ---------------------------------------------------------- flooding */

static void test_hostile_flood(void **state)
{
	struct hx *t = *state;
	struct rawcli *rc = hx_raw(t);
	struct rawcli_reader rd;
	Sdds__Ctl__Reply *rep;
	const Sdds__Ctl__EndpointInfo *ep;
	uint8_t buf[16];
	uint32_t topic, w;
	uint64_t n = 0;
	int64_t t0 = itest_now_ms(), ms = itest_asan() ? 1000 : 1500;

	hx_own_writer(rc, 0x10b, &topic, &w);
	/* A reader that never takes: every sample costs the daemon a ring push. */
	assert_int_equal(rawcli_reader(rc, topic, false, 64, &rd), 0);
	hx_own_sample(0x10b, 0, buf);
	while (itest_now_ms() - t0 < ms) {
		unsigned batch = 0;

		while (batch < 256 && rawcli_write_nopub(rc, w, buf, 16) == 0)
			batch++;
		if (batch) {
			rawcli_publish(rc, rc->prod);
			n += batch;
		} else {
			rawcli_kick(rc);
			sched_yield();
		}
	}
	assert_int_equal(rawcli_wait_consumed(rc, 20000), 0);
	fprintf(stderr, "flood: %" PRIu64 " records in %" PRId64 " ms (%.0f/s) through the daemon\n", n,
		itest_now_ms() - t0, n * 1000.0 / (double)(itest_now_ms() - t0));
	/* Flooding within the rules is allowed: still connected, all counted. */
	hx_expect_connected(rc, 200, "flood");
	rep = hx_stats(t, NULL);
	ep = itest_stats_endpoint(rep->stats, rc->session_id, false);
	assert_non_null(ep);
	assert_non_null(ep->counters);
	assert_int_equal(ep->counters->written, n);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	hx_finish(t);
}

/* Writing on without looking at cons: the producer laps the daemon. */
static void test_hostile_flood_overrun(void **state)
{
	struct hx *t = *state;
	struct rawcli *rc = hx_raw(t);
	uint8_t buf[16];
	uint32_t w;
	uint64_t prod;

	hx_own_writer(rc, 0x10c, NULL, &w);
	hx_own_sample(0x10c, 0, buf);
	prod = rc->prod;
	for (uint64_t i = 0; i < 2ull * rc->req_cap / 32; i++) {
		hx_put_rec(rc, prod, 16, SDDS_REC_WRITE, 0, w, buf, 16);
		prod += 32;
	}
	/*
	 * Two laps published in one store: a daemon that is awake and
	 * draining could keep pace with records published one by one, and
	 * then no lap would ever be seen; this one is, whatever it was doing.
	 */
	rc->prod = prod;
	atomic_store_explicit(&rc->req->prod, prod, memory_order_release);
	rawcli_kick(rc);
	hx_expect_disconnected(t, rc, "request ring overrun");
	hx_finish(t);
}

/* ---------------------------------------------------------- control socket */

static void hx_garbage_packet(uint8_t *buf, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)hx_rand(&seed);
	/* Wire type 7 does not exist: no protobuf parser can accept this. */
	buf[0] = (uint8_t)((buf[0] & 0xf8) | 7);
}

static void test_hostile_ctl_garbage(void **state)
{
	struct hx *t = *state;
	uint8_t buf[200];

	/* After Hello. */
	{
		struct rawcli *rc = hx_raw(t);

		hx_garbage_packet(buf, sizeof buf, 1);
		assert_int_equal(rawcli_send_raw(rc, buf, sizeof buf, NULL, 0), 0);
		hx_expect_disconnected(t, rc, "garbage packet after Hello");
	}
	/* As the first packet. */
	{
		struct rawcli *rc = hx_raw_nohello(t);

		hx_garbage_packet(buf, 64, 2);
		assert_int_equal(rawcli_send_raw(rc, buf, 64, NULL, 0), 0);
		hx_expect_disconnected(t, rc, "garbage packet before Hello");
	}
	/* A valid Request with no body at all. */
	{
		struct rawcli *rc = hx_raw(t);
		Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
		Sdds__Ctl__Reply *rep = NULL;
		int r;

		r = rawcli_rpc(rc, &req, &rep);
		if (r == 0) {
			/* Refusing it is right; the client may stay. */
			assert_true(rep->status < 0);
			sdds__ctl__reply__free_unpacked(rep, NULL);
			hx_refused_then_maybe_disconnected(t, rc, "request without a body");
		} else {
			hx_expect_disconnected(t, rc, "request without a body");
		}
	}
	hx_finish(t);
}

/* True when the read end sees EOF within ms: nobody holds the write end. */
static bool hx_pipe_eof(int rfd, int ms)
{
	struct pollfd p = {.fd = rfd, .events = POLLIN};
	char c;

	if (poll(&p, 1, ms) <= 0)
		return false;
	return read(rfd, &c, 1) == 0;
}

/*
 * Send a packet with n pipe write ends attached, close our copies, and check
 * that the daemon did not keep any: every read end must see EOF.
 */
static void hx_send_with_fds(struct rawcli *rc, const void *pkt, size_t len, size_t n)
{
	int rfd[32], wfd[32], p[2];

	assert_true(n <= 32);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(pipe2(p, O_CLOEXEC), 0);
		rfd[i] = p[0];
		wfd[i] = p[1];
	}
	assert_int_equal(rawcli_send_raw(rc, pkt, len, wfd, n), 0);
	for (size_t i = 0; i < n; i++)
		close(wfd[i]);
	for (size_t i = 0; i < n; i++) {
		bool eof = hx_pipe_eof(rfd[i], 3000);

		close(rfd[i]);
		if (!eof)
			fail_msg("the daemon kept descriptor %zu of %zu it was sent", i + 1, n);
	}
}

/* Pack a request into buf (cap bytes); returns the length. */
static size_t hx_pack(Sdds__Ctl__Request *req, uint8_t *buf, size_t cap)
{
	size_t len = sdds__ctl__request__get_packed_size(req);

	assert_true(len <= cap);
	return sdds__ctl__request__pack(req, buf);
}

/* After a packet with unexpected fds: a refusal or a disconnect, both consistent. */
static void hx_after_fds(struct hx *t, struct rawcli *rc, const char *what)
{
	Sdds__Ctl__Reply *rep = NULL;
	size_t n_fds = 0;
	int fds[4];
	struct pollfd p = {.fd = rc->sock, .events = POLLIN | POLLRDHUP};

	if (poll(&p, 1, 2000) == 1 && !(p.revents & (POLLHUP | POLLRDHUP)) &&
	    ctl_recv_reply(rc->sock, &rep, fds, 4, &n_fds) == 0) {
		for (size_t i = 0; i < n_fds; i++)
			close(fds[i]);
		fprintf(stderr, "%s: answered with status %d (%s)\n", what, rep->status,
			rep->reason ? rep->reason : "");
		sdds__ctl__reply__free_unpacked(rep, NULL);
		/* Then it must either go on serving or hang up as a violation. */
		if (rawcli_wait_hangup(rc, 300)) {
			fprintf(stderr, "%s: disconnected after the answer\n", what);
			t->proto_expected++;
		}
		return;
	}
	fprintf(stderr, "%s: disconnected\n", what);
	hx_expect_disconnected(t, rc, what);
}

static void test_hostile_ctl_fds(void **state)
{
	struct hx *t = *state;
	uint8_t pkt[512];
	size_t len;

	/* A StatsQuery carrying three descriptors. */
	{
		struct rawcli *rc = hx_raw(t);
		Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
		Sdds__Ctl__StatsQuery sq = SDDS__CTL__STATS_QUERY__INIT;

		req.id = 77;
		req.body_case = SDDS__CTL__REQUEST__BODY_STATS;
		req.stats = &sq;
		len = hx_pack(&req, pkt, sizeof pkt);
		hx_send_with_fds(rc, pkt, len, 3);
		hx_after_fds(t, rc, "StatsQuery with 3 fds");
	}
	/* A Hello carrying two. */
	{
		struct rawcli *rc = hx_raw_nohello(t);
		Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
		Sdds__Ctl__Hello hello = SDDS__CTL__HELLO__INIT;

		hello.protocol_version = CTL_PROTOCOL_VERSION;
		hello.layout_version = SDDS_LAYOUT_VERSION;
		hello.name = (char *)"fds";
		req.id = 1;
		req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
		req.hello = &hello;
		len = hx_pack(&req, pkt, sizeof pkt);
		hx_send_with_fds(rc, pkt, len, 2);
		hx_after_fds(t, rc, "Hello with 2 fds");
	}
	/* A RegisterTopic carrying 32, more than CTL_MAX_FDS. */
	{
		struct rawcli *rc = hx_raw(t);
		Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
		Sdds__Ctl__RegisterTopic rt = SDDS__CTL__REGISTER_TOPIC__INIT;

		rt.domain = 0;
		rt.topic_id = 0x10d;
		rt.name = (char *)"fds";
		rt.sample_size = 16;
		req.id = 5;
		req.body_case = SDDS__CTL__REQUEST__BODY_REGISTER_TOPIC;
		req.register_topic = &rt;
		len = hx_pack(&req, pkt, sizeof pkt);
		hx_send_with_fds(rc, pkt, len, 32);
		hx_after_fds(t, rc, "RegisterTopic with 32 fds");
	}
	hx_finish(t);
}

static void test_hostile_ctl_oversized(void **state)
{
	struct hx *t = *state;
	static const size_t sizes[] = {100000, CTL_MAX_PACKET + 1};

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		struct rawcli *rc = hx_raw(t);
		Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
		Sdds__Ctl__RegisterTopic rt = SDDS__CTL__REGISTER_TOPIC__INIT;
		size_t name_len = sizes[i], len;
		char *name = malloc(name_len + 1);
		uint8_t *pkt;

		assert_non_null(name);
		/* A well-formed message whose only fault is its size. */
		rt.topic_id = 0x10e;
		rt.sample_size = 16;
		rt.name = name;
		req.id = 9;
		req.body_case = SDDS__CTL__REQUEST__BODY_REGISTER_TOPIC;
		req.register_topic = &rt;
		for (;;) {
			memset(name, 'x', name_len);
			name[name_len] = '\0';
			len = sdds__ctl__request__get_packed_size(&req);
			if (len <= sizes[i])
				break;
			name_len -= len - sizes[i];
		}
		pkt = malloc(len);
		assert_non_null(pkt);
		sdds__ctl__request__pack(&req, pkt);
		assert_int_equal(len, sizes[i]);
		assert_int_equal(rawcli_send_raw(rc, pkt, len, NULL, 0), 0);
		free(pkt);
		free(name);
		hx_expect_disconnected(t, rc, "oversized control packet");
	}
	hx_finish(t);
}

/* Requests a client may send but the daemon must refuse; the client stays. */
static void test_hostile_ctl_bad_requests(void **state)
{
	struct hx *t = *state;
	struct rawcli *rc = hx_raw(t);
	Sdds__Ctl__Request req;
	Sdds__Ctl__RegisterTopic rt;
	Sdds__Ctl__Field f[HX_MANY_FIELDS], *fp[HX_MANY_FIELDS];
	Sdds__Ctl__Reply *rep;
	uint32_t topic, w, h;
	struct rawcli_reader rd;
	int r;

	/* Sample sizes 0 and 1 MiB. */
	assert_true(rawcli_topic(rc, 0, 0x110, 0, false, &h) < 0);
	assert_true(rawcli_topic(rc, 0, 0x110, 1u << 20, false, &h) < 0);
	/* The pair's topic with another size: a conflict, the pair unharmed. */
	assert_int_equal(rawcli_topic(rc, HX_PAIR_DOMAIN, HX_PAIR_TOPIC, 32, true, &h), -EINVAL);
	/* Fields that do not add up to the sample size; too many fields. */
	for (size_t i = 0; i < HX_MANY_FIELDS; i++) {
		sdds__ctl__field__init(&f[i]);
		f[i].name = (char *)"f";
		f[i].type = SDDS__CTL__FIELD_TYPE__FIELD_OCTET;
		f[i].size = 1;
		fp[i] = &f[i];
	}
	req = (Sdds__Ctl__Request)SDDS__CTL__REQUEST__INIT;
	rt = (Sdds__Ctl__RegisterTopic)SDDS__CTL__REGISTER_TOPIC__INIT;
	rt.topic_id = 0x111;
	rt.name = (char *)"bad";
	rt.sample_size = 5;
	rt.n_fields = 4;
	rt.fields = fp;
	req.body_case = SDDS__CTL__REQUEST__BODY_REGISTER_TOPIC;
	req.register_topic = &rt;
	assert_int_equal(rawcli_rpc(rc, &req, &rep), 0);
	assert_true(rep->status < 0);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	rt.sample_size = HX_MANY_FIELDS;
	rt.n_fields = HX_MANY_FIELDS;
	assert_int_equal(rawcli_rpc(rc, &req, &rep), 0);
	assert_true(rep->status < 0);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	/* Endpoints on a topic handle never handed out; deleting what does not exist. */
	assert_true(rawcli_writer(rc, 0xbad, false, 10, &w) < 0);
	assert_true(rawcli_reader(rc, 0xbad, false, 4, &rd) < 0);
	assert_true(rawcli_delete(rc, true, 0xbad) < 0);
	assert_true(rawcli_delete(rc, false, 0xbad) < 0);
	/* Still served after all that. */
	hx_expect_connected(rc, 100, "refused requests");
	r = rawcli_topic(rc, 0, 0x112, 16, true, &topic);
	assert_int_equal(r, 0);
	assert_int_equal(rawcli_writer(rc, topic, false, 10, &w), 0);
	hx_finish(t);
}

static void test_hostile_no_hello(void **state)
{
	struct hx *t = *state;
	struct rawcli *idle[12];

	/* A RegisterTopic as the first message. */
	{
		struct rawcli *rc = hx_raw_nohello(t);
		Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
		Sdds__Ctl__RegisterTopic rt = SDDS__CTL__REGISTER_TOPIC__INIT;

		rt.topic_id = 0x113;
		rt.name = (char *)"early";
		rt.sample_size = 16;
		req.id = 1;
		req.body_case = SDDS__CTL__REQUEST__BODY_REGISTER_TOPIC;
		req.register_topic = &rt;
		assert_int_equal(ctl_send_request(rc->sock, &req, NULL, 0), 0);
		hx_expect_disconnected(t, rc, "RegisterTopic before Hello");
	}
	/* A StatsQuery as the first message. */
	{
		struct rawcli *rc = hx_raw_nohello(t);
		Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
		Sdds__Ctl__StatsQuery sq = SDDS__CTL__STATS_QUERY__INIT;

		req.id = 1;
		req.body_case = SDDS__CTL__REQUEST__BODY_STATS;
		req.stats = &sq;
		assert_int_equal(ctl_send_request(rc->sock, &req, NULL, 0), 0);
		hx_expect_disconnected(t, rc, "StatsQuery before Hello");
	}
	/* Connections that never say anything must not stop the others. */
	for (size_t i = 0; i < sizeof idle / sizeof idle[0]; i++)
		idle[i] = hx_raw_nohello(t);
	itest_sleep_ms(300);
	{
		struct rawcli *rc = hx_raw(t);
		uint32_t w;

		hx_own_writer(rc, 0x113, NULL, &w);
		hx_legit_writes(rc, 0x113, w, 10);
	}
	for (size_t i = 0; i < sizeof idle / sizeof idle[0]; i++)
		rawcli_close(idle[i]);
	hx_finish(t);
}

static void test_hostile_bad_hello(void **state)
{
	struct hx *t = *state;
	static const uint32_t versions[][2] = {
	    {CTL_PROTOCOL_VERSION + 1, SDDS_LAYOUT_VERSION},
	    {CTL_PROTOCOL_VERSION, SDDS_LAYOUT_VERSION + 1},
	    {0, 0},
	};

	for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
		struct rawcli *rc = hx_raw_nohello(t);
		Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
		Sdds__Ctl__Hello hello = SDDS__CTL__HELLO__INIT;
		Sdds__Ctl__Reply *rep = NULL;
		size_t n_fds = 0;
		int fds[4], r;

		hello.protocol_version = versions[i][0];
		hello.layout_version = versions[i][1];
		req.id = 1;
		req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
		req.hello = &hello;
		assert_int_equal(ctl_send_request(rc->sock, &req, NULL, 0), 0);
		r = ctl_recv_reply(rc->sock, &rep, fds, 4, &n_fds);
		if (r == 0) {
			/* An error reply, and no segment handed out. */
			assert_true(rep->status < 0);
			assert_int_equal(n_fds, 0);
			sdds__ctl__reply__free_unpacked(rep, NULL);
		}
		/* Then the daemon hangs up, as it does on any failed handshake. */
		hx_expect_disconnected(t, rc, "Hello with the wrong version");
	}
	hx_finish(t);
}

static void test_hostile_second_hello(void **state)
{
	struct hx *t = *state;
	struct rawcli *rc = hx_raw(t);
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Hello hello = SDDS__CTL__HELLO__INIT;
	Sdds__Ctl__Reply *rep = NULL;
	size_t n_fds = 0;
	int fds[4], r;

	hello.protocol_version = CTL_PROTOCOL_VERSION;
	hello.layout_version = SDDS_LAYOUT_VERSION;
	hello.name = (char *)"again";
	req.id = 50;
	req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
	req.hello = &hello;
	assert_int_equal(ctl_send_request(rc->sock, &req, NULL, 0), 0);
	r = ctl_recv_reply(rc->sock, &rep, fds, 4, &n_fds);
	for (size_t i = 0; i < n_fds; i++)
		close(fds[i]);
	if (r == 0) {
		fprintf(stderr, "second Hello: status %d (%s), %zu fds\n", rep->status,
			rep->reason ? rep->reason : "", n_fds);
		/* Refused, without a second segment. */
		assert_true(rep->status < 0);
		assert_int_equal(n_fds, 0);
		sdds__ctl__reply__free_unpacked(rep, NULL);
		if (rawcli_wait_hangup(rc, 300)) {
			t->proto_expected++;
		} else {
			uint32_t w;

			/* Still the same session, still served. */
			hx_own_writer(rc, 0x114, NULL, &w);
			hx_legit_writes(rc, 0x114, w, 3);
		}
	} else {
		hx_expect_disconnected(t, rc, "second Hello");
	}
	hx_finish(t);
}

/* ---------------------------------------------------------- caps */

static uint64_t hx_rejected(struct hx *t, uint32_t session)
{
	Sdds__Ctl__Reply *rep = hx_stats(t, NULL);
	const Sdds__Ctl__ClientInfo *ci = itest_stats_client(rep->stats, session);
	uint64_t v;

	assert_non_null(ci);
	assert_non_null(ci->counters);
	v = ci->counters->rejected;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return v;
}

static void test_hostile_caps_topics(void **state)
{
	struct hx *t = *state;
	struct rawcli *rc = hx_raw(t);
	uint32_t h, first = 0, w;

	for (uint16_t i = 0; i < 8; i++)
		assert_int_equal(rawcli_topic(rc, 0, (uint16_t)(0x120 + i), 16, true, i ? &h : &first), 0);
	assert_int_equal(rawcli_topic(rc, 0, 0x128, 16, true, &h), -ENOSPC);
	assert_int_equal(rawcli_topic(rc, 1, 0x129, 16, true, &h), -ENOSPC);
	hx_expect_connected(rc, 100, "topics over the cap");
	assert_int_equal(hx_rejected(t, rc->session_id), 2);
	/* The topics it holds still work. */
	assert_int_equal(rawcli_writer(rc, first, false, 10, &w), 0);
	hx_legit_writes(rc, 0x120, w, 5);
	hx_finish(t);
}

static void test_hostile_caps_writers(void **state)
{
	struct hx *t = *state;
	struct rawcli *rc = hx_raw(t);
	uint32_t topic, w[9];

	assert_int_equal(rawcli_topic(rc, 0, 0x130, 16, true, &topic), 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(rawcli_writer(rc, topic, i % 2, 10, &w[i]), 0);
	assert_int_equal(rawcli_writer(rc, topic, false, 10, &w[8]), -ENOSPC);
	assert_int_equal(rawcli_writer(rc, topic, true, 10, &w[8]), -ENOSPC);
	assert_int_equal(rawcli_writer(rc, topic, false, 10, &w[8]), -ENOSPC);
	hx_expect_connected(rc, 100, "writers over the cap");
	assert_int_equal(hx_rejected(t, rc->session_id), 3);
	/* Deleting one makes room again. */
	assert_int_equal(rawcli_delete(rc, false, w[0]), 0);
	assert_int_equal(rawcli_writer(rc, topic, false, 10, &w[0]), 0);
	hx_legit_writes(rc, 0x130, w[0], 5);
	hx_finish(t);
}

static void test_hostile_caps_readers(void **state)
{
	struct hx *t = *state;
	struct rawcli *rc = hx_raw(t);
	struct rawcli_reader rd[9];
	uint32_t topic;

	assert_int_equal(rawcli_topic(rc, 0, 0x140, 16, true, &topic), 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(rawcli_reader(rc, topic, false, 4, &rd[i]), 0);
	assert_int_equal(rawcli_reader(rc, topic, false, 4, &rd[8]), -ENOSPC);
	assert_int_equal(rawcli_reader(rc, topic, true, 4, &rd[8]), -ENOSPC);
	hx_expect_connected(rc, 100, "readers over the cap");
	assert_int_equal(hx_rejected(t, rc->session_id), 2);
	assert_int_equal(rawcli_delete(rc, true, rd[3].id), 0);
	assert_int_equal(rawcli_reader(rc, topic, false, 4, &rd[3]), 0);
	hx_finish(t);
}

static void test_hostile_caps_arena(void **state)
{
	struct hx *t = *state;
	struct rawcli *rc = hx_raw(t);
	struct rawcli_reader rd[64], big;
	uint32_t topic;
	int n = 0, r;

	assert_int_equal(rawcli_topic(rc, 0, 0x150, 4096, false, &topic), 0);
	/* 65536 slots of 4 KiB: far beyond any arena. */
	assert_int_equal(rawcli_reader(rc, topic, false, 65536, &big), -ENOSPC);
	/* About 1 MiB each, until the arena is exhausted. */
	while ((r = rawcli_reader(rc, topic, false, 256, &rd[n])) == 0) {
		n++;
		assert_true(n < 64);
	}
	fprintf(stderr, "arena: %d readers of 256 x 4 KiB fit\n", n);
	assert_int_equal(r, -ENOSPC);
	assert_true(n >= 1);
	hx_expect_connected(rc, 100, "arena exhausted");
	assert_int_equal(hx_rejected(t, rc->session_id), 2);
	/* The freed range is reusable. */
	assert_int_equal(rawcli_delete(rc, true, rd[0].id), 0);
	assert_int_equal(rawcli_reader(rc, topic, false, 256, &rd[0]), 0);
	hx_finish(t);
}

static void test_hostile_caps_clients(void **state)
{
	struct hx *t = *state;
	Sdds__Ctl__Reply *rep;
	uint64_t over0;
	uint32_t self;
	int ok = 0, r;
	int64_t deadline = itest_now_ms() + 5000;

	/* Wait until only the pair is connected (setup's own queries are gone). */
	for (;;) {
		rep = hx_stats(t, &self);
		over0 = rep->stats->sessions_over_limit;
		r = (int)itest_stats_other_clients(rep->stats, self);
		sdds__ctl__reply__free_unpacked(rep, NULL);
		if (r == 2)
			break;
		assert_true(itest_now_ms() < deadline);
		itest_sleep_ms(10);
	}
	itest_sleep_ms(100);
	/* max_clients = 6, the pair holds 2. */
	for (;;) {
		struct rawcli *rc = hx_slot(t);

		r = rawcli_open(t->d.sock, "itest-many", rc);
		if (r < 0) {
			fprintf(stderr, "client %d refused: %d\n", ok + 3, r);
			t->n_rc--;
			break;
		}
		ok++;
		assert_true(ok <= 4);
	}
	assert_int_equal(ok, 4);
	/* Free one slot so that the stats query gets in. */
	rawcli_close(&t->rc[t->n_rc - 1]);
	deadline = itest_now_ms() + 3000;
	for (;;) {
		rep = hx_stats(t, &self);
		if (rep->stats->sessions_over_limit >= over0 + 1 || itest_now_ms() > deadline)
			break;
		sdds__ctl__reply__free_unpacked(rep, NULL);
		itest_sleep_ms(10);
	}
	assert_int_equal(rep->stats->sessions_over_limit, over0 + 1);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	/* The connected ones are served. */
	{
		uint32_t w;

		hx_own_writer(&t->rc[0], 0x160, NULL, &w);
		hx_legit_writes(&t->rc[0], 0x160, w, 3);
	}
	hx_finish(t);
}

/* ---------------------------------------------------------- death */

/* The raw child: consume the pair's topic as a reliable reader and flood its own. */
static void hx_raw_child(const char *sock)
{
	struct rawcli rc;
	struct rawcli_reader rd;
	uint32_t topic, w;
	uint8_t buf[64];
	uint32_t len;

	if (rawcli_open(sock, "itest-doomed", &rc) < 0 ||
	    rawcli_topic(&rc, HX_PAIR_DOMAIN, HX_PAIR_TOPIC, HX_PAIR_SIZE, true, &topic) < 0 ||
	    rawcli_reader(&rc, topic, true, 16, &rd) < 0 ||
	    rawcli_topic(&rc, 0, 0x170, 16, true, &topic) < 0 || rawcli_writer(&rc, topic, false, 10, &w) < 0)
		_exit(2);
	if (write(1, "ready\n", 6) != 6)
		_exit(3);
	hx_own_sample(0x170, 0, buf);
	for (;;) {
		for (int i = 0; i < 64 && rawcli_write_nopub(&rc, w, buf, 16) == 0; i++)
			;
		rawcli_publish(&rc, rc.prod);
		while (rawcli_reader_take(&rc, &rd, buf, sizeof buf, &len) == 1)
			;
	}
}

static void test_hostile_kill_mid_write(void **state)
{
	struct hx *t = *state;
	char line[ITEST_LINE_MAX];
	int status;

	/* A raw client, mid-write and holding a reliable reader on the pair's topic. */
	{
		int p[2];
		pid_t pid;

		assert_int_equal(pipe2(p, O_CLOEXEC), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			dup2(p[1], 1);
			hx_raw_child(t->d.sock);
			_exit(0);
		}
		close(p[1]);
		t->victim[0].pid = pid;
		t->victim[0].out_fd = p[0];
		assert_int_equal(itest_proc_expect(&t->victim[0], "ready", line, sizeof line, 10000), 0);
		itest_sleep_ms(300);
		itest_proc_kill(&t->victim[0], SIGKILL);
		assert_int_equal(itest_proc_wait(&t->victim[0], 5000, &status), 0);
		assert_true(WIFSIGNALED(status));
		itest_proc_cleanup(&t->victim[0]);
	}
	/* Library clients: a stalled reliable writer, a slow reliable reader of the pair. */
	{
		const char *cargs[] = {"--topic", "0x171", "--size", "16", "--variant", "0", NULL};
		const char *rargs[] = {"--domain", "0", "--topic",   "0x99", "--size",	  "16", "--reliable",
				       "--depth",  "4", "--slow-us", "3000", "--writers", "0",	NULL};

		assert_int_equal(itest_peer_spawn(&t->victim[0], "cycle", t->d.sock, cargs), 0);
		assert_int_equal(itest_proc_expect(&t->victim[0], "ready", line, sizeof line, 10000), 0);
		assert_int_equal(itest_peer_spawn(&t->victim[1], "reader", t->d.sock, rargs), 0);
		assert_int_equal(itest_proc_expect(&t->victim[1], "ready", line, sizeof line, 10000), 0);
		itest_sleep_ms(300);
		itest_proc_kill(&t->victim[0], SIGKILL);
		itest_proc_kill(&t->victim[1], SIGKILL);
		for (int i = 0; i < 2; i++) {
			assert_int_equal(itest_proc_wait(&t->victim[i], 5000, &status), 0);
			assert_true(WIFSIGNALED(status));
			itest_proc_cleanup(&t->victim[i]);
		}
	}
	/* Dying is not a protocol error. */
	assert_int_equal(hx_proto(t), t->proto0 + t->proto_expected);
	hx_finish(t);
}

/* ---------------------------------------------------------- main */

#define HX_CASE(name) cmocka_unit_test_setup_teardown(test_hostile_##name, hx_setup, hx_teardown)
#define HX_CASE_CAPS(name) cmocka_unit_test_setup_teardown(test_hostile_##name, hx_setup_caps, hx_teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    HX_CASE(garbage_ring),
	    HX_CASE(prod_backwards),
	    HX_CASE(prod_beyond_cap),
	    HX_CASE(record_too_long),
	    HX_CASE(record_crosses_end),
	    HX_CASE(pad_bad),
	    HX_CASE(unknown_type),
	    HX_CASE(nonzero_flags),
	    HX_CASE(write_unknown_writer),
	    HX_CASE(write_foreign_writer),
	    HX_CASE(wrong_sample_size),
	    HX_CASE(reader_cons_ahead),
	    HX_CASE(reader_cons_backwards),
	    HX_CASE(scribble_daemon_fields),
	    HX_CASE(delete_while_stalled),
	    HX_CASE(flood),
	    HX_CASE(flood_overrun),
	    HX_CASE(ctl_garbage),
	    HX_CASE(ctl_fds),
	    HX_CASE(ctl_oversized),
	    HX_CASE(ctl_bad_requests),
	    HX_CASE(no_hello),
	    HX_CASE(bad_hello),
	    HX_CASE(second_hello),
	    HX_CASE_CAPS(caps_topics),
	    HX_CASE_CAPS(caps_writers),
	    HX_CASE_CAPS(caps_readers),
	    HX_CASE(caps_arena),
	    cmocka_unit_test_setup_teardown(test_hostile_caps_clients, hx_setup_clients, hx_teardown),
	    HX_CASE(kill_mid_write),
	};
	char filter[128];
	int rc = itest_check_env();

	if (rc != 0)
		return rc;
	if (argc > 1) {
		bool known = false;

		snprintf(filter, sizeof filter, "test_hostile_%s", argv[1]);
		for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
			known = known || strcmp(tests[i].name, filter) == 0;
		if (!known) {
			fprintf(stderr, "test_hostile: no case %s\n", argv[1]);
			return 2;
		}
		cmocka_set_test_filter(filter);
	}
	return cmocka_run_group_tests_name("hostile", tests, NULL, NULL);
}
