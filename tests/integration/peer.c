/* SPDX-License-Identifier: MIT */
/*
 * peer.c - itest-peer, the well-behaved client process of the integration
 * tests. It uses only the public API of libsddsclient (include/sdds/sdds.h).
 *
 * OVERVIEW
 * One process plays one role, chosen by argv[1]:
 *   writer  writes --count samples (0: until its stdin reaches EOF), then one
 *           END sample carrying the count; prints "done written=N errors=E".
 *   reader  takes samples (or, with --listener, lets the callback-manager
 *           thread hand them over) until it saw --writers END samples (0:
 *           until its stdin reaches EOF, then it drains what is left) and
 *           checks every one (isample_decode, topic tag, per-writer order; a
 *           reliable reader also demands no gap; --any-order checks only
 *           integrity); prints "done received=...".
 *   cycle   creates readers and a writer and writes forever: the victim the
 *           kill -9 tests shoot mid-write.
 *   gone    blocks in take / take with timeout / a reliable write / under a
 *           listener (--mode), then, once the daemon is killed, checks that
 *           every blocked call and every later call returns -ENOTCONN.
 * Every role prints "ready session=ID" once its endpoints exist, so that the
 * test can order the processes (readers before writers). Output is
 * line-buffered key=value text that tests/integration/itest.c parses. The
 * exit status is 0 only when the role saw nothing wrong.
 *
 * The process's stdin is a pipe from the test: its EOF is the stop signal.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sdds/sdds.h>

#include "sample.h"

#define PEER_MAX_WRITERS 16

struct peer_opts {
	const char *role;
	const char *socket;
	const char *mode;
	uint16_t domain;
	uint16_t topic;
	uint32_t size;
	bool reliable;
	uint32_t depth;
	uint32_t max_blocking_ms;
	uint64_t count;
	uint16_t tag;
	uint32_t batch;
	uint32_t pause_us;
	uint32_t writers;
	uint32_t slow_us;
	bool listener;
	bool any_order;
	uint32_t timeout_ms;
	int64_t spin_ns;
	uint32_t variant;
};

static int64_t peer_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void peer_sleep_us(uint32_t us)
{
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* True once the test closed our stdin (the stop signal); never blocks. */
static bool peer_stdin_closed(void)
{
	struct pollfd p = {.fd = 0, .events = POLLIN};
	char buf[64];

	if (poll(&p, 1, 0) <= 0)
		return false;
	if (p.revents & (POLLHUP | POLLERR))
		return true;
	/* Data on stdin is not used; EOF is what counts. */
	return read(0, buf, sizeof buf) == 0;
}

static int peer_connect(const struct peer_opts *o, const char *name, sdds_client **ret)
{
	sdds_client_options copts;

	sdds_client_options_init(&copts);
	copts.socket_path = o->socket;
	copts.name = name;
	copts.spin_ns = o->spin_ns;
	return sdds_client_new(&copts, ret);
}

static int peer_topic(const struct peer_opts *o, sdds_client *c, uint16_t topic, sdds_topic **ret)
{
	struct isample_field f[5];
	sdds_field fields[5];
	size_t n = isample_fields(o->size, f);
	char name[32];
	sdds_topic_desc d;

	for (size_t i = 0; i < n; i++)
		fields[i] = (sdds_field){f[i].name, (sdds_field_type)f[i].type, f[i].size};
	snprintf(name, sizeof name, "itest-%u", topic);
	d = (sdds_topic_desc){.name = name,
			      .domain = o->domain,
			      .id = topic,
			      .sample_size = o->size,
			      .fields = fields,
			      .n_fields = n};
	return sdds_topic_new(c, &d, ret);
}

static void peer_fail_setup(const char *what, int rc)
{
	printf("error setup=%s rc=%d (%s)\n", what, rc, sdds_strerror(rc));
	fflush(stdout);
}

/* ------------------------------------------------------------- writer */

static int peer_writer(const struct peer_opts *o)
{
	uint8_t buf[ISAMPLE_MAX];
	sdds_client *c = NULL;
	sdds_topic *t = NULL;
	sdds_writer *w = NULL;
	sdds_qos q;
	uint64_t written = 0, errors = 0;
	int first_error = 0, rc;

	rc = peer_connect(o, "itest-writer", &c);
	if (rc < 0) {
		peer_fail_setup("connect", rc);
		return 1;
	}
	rc = peer_topic(o, c, o->topic, &t);
	if (rc < 0) {
		peer_fail_setup("topic", rc);
		goto out;
	}
	sdds_qos_init(&q);
	q.reliability = o->reliable ? SDDS_RELIABLE : SDDS_BEST_EFFORT;
	q.max_blocking_ms = o->max_blocking_ms;
	rc = sdds_writer_new(t, &q, &w);
	if (rc < 0) {
		peer_fail_setup("writer", rc);
		goto out;
	}
	printf("ready session=%" PRIu32 "\n", sdds_client_session_id(c));
	fflush(stdout);

	for (uint64_t i = 0; o->count == 0 || i < o->count; i++) {
		struct isample s = {o->topic, o->tag, ISAMPLE_DATA, written};

		isample_encode(buf, o->size, &s);
		rc = sdds_writer_write(w, buf, o->size);
		if (rc == 0) {
			written++;
		} else {
			if (errors++ == 0)
				first_error = rc;
			/* The daemon is gone: nothing more will succeed. */
			if (rc == -ENOTCONN)
				break;
		}
		if (o->batch != 0 && (i + 1) % o->batch == 0) {
			if (o->pause_us)
				peer_sleep_us(o->pause_us);
			if (o->count == 0 && peer_stdin_closed())
				break;
		} else if (o->count == 0 && (i & 1023) == 1023 && peer_stdin_closed()) {
			break;
		}
	}
	{
		struct isample s = {o->topic, o->tag, ISAMPLE_END, written};

		isample_encode(buf, o->size, &s);
		rc = sdds_writer_write(w, buf, o->size);
		if (rc < 0 && errors++ == 0)
			first_error = rc;
	}
	printf("done written=%" PRIu64 " errors=%" PRIu64 " first_error=%d\n", written, errors, first_error);
	fflush(stdout);
	rc = errors ? -EIO : 0;
out:
	sdds_writer_free(w);
	sdds_topic_free(t);
	sdds_client_free(c);
	return rc < 0 ? 1 : 0;
}

/* ------------------------------------------------------------- reader */

struct peer_track {
	uint16_t tag;
	bool ended;
	uint64_t next;	   /* the sequence number expected next */
	uint64_t received; /* DATA samples */
	uint64_t total;	   /* from the END sample */
};

struct peer_reader {
	const struct peer_opts *o;
	sdds_reader *r;
	uint32_t session;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct peer_track track[PEER_MAX_WRITERS];
	uint32_t n_track;
	uint32_t ends;
	uint64_t samples; /* everything taken, END samples included */
	uint64_t data;
	uint64_t errors;
	char first_error[256];
	/* listener mode */
	uint64_t calls;
	uint64_t empty_calls;
	pthread_t main_thread;
	pthread_t cb_thread;
	bool cb_thread_set;
	bool cb_wrong_thread;
	bool done;
};

static void peer_reader_error(struct peer_reader *pr, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void peer_reader_error(struct peer_reader *pr, const char *fmt, ...)
{
	va_list ap;

	if (pr->errors++ == 0) {
		va_start(ap, fmt);
		vsnprintf(pr->first_error, sizeof pr->first_error, fmt, ap);
		va_end(ap);
	}
}

/* Check one taken sample; the caller holds pr->lock in listener mode. */
static void peer_reader_process(struct peer_reader *pr, const uint8_t *buf, size_t len)
{
	const struct peer_opts *o = pr->o;
	struct peer_track *t = NULL;
	struct isample s;

	pr->samples++;
	if (isample_decode(buf, len, o->size, &s) < 0) {
		char hex[2 * 48 + 1] = "";

		for (size_t i = 0; i < len && i < 48; i++)
			snprintf(hex + 2 * i, 3, "%02x", buf[i]);
		peer_reader_error(pr, "corrupt sample len=%zu after %" PRIu64 " samples: %s", len,
				  pr->samples - 1, hex);
		return;
	}
	if (s.topic_tag != o->topic) {
		peer_reader_error(pr, "sample of topic %u on topic %u", s.topic_tag, o->topic);
		return;
	}
	for (uint32_t i = 0; i < pr->n_track; i++)
		if (pr->track[i].tag == s.writer_tag)
			t = &pr->track[i];
	if (t == NULL) {
		if (pr->n_track == PEER_MAX_WRITERS) {
			peer_reader_error(pr, "too many writer tags");
			return;
		}
		t = &pr->track[pr->n_track++];
		*t = (struct peer_track){.tag = s.writer_tag};
	}
	if (o->any_order) {
		/* Writers come and go under one tag: only integrity is checked. */
		if (s.kind == ISAMPLE_END)
			pr->ends++;
		else
			pr->data++;
		t->received += s.kind == ISAMPLE_DATA;
		return;
	}
	if (t->ended) {
		peer_reader_error(pr, "writer %u: sample after its END", t->tag);
		return;
	}
	if (s.seq < t->next) {
		peer_reader_error(pr,
				  "writer %u: seq %" PRIu64 " after %" PRIu64 " (duplicate or out of order)",
				  t->tag, s.seq, t->next);
		return;
	}
	if (s.kind == ISAMPLE_END) {
		if (o->reliable && s.seq != t->next)
			peer_reader_error(pr, "writer %u: END says %" PRIu64 " samples, got up to %" PRIu64,
					  t->tag, s.seq, t->next);
		t->ended = true;
		t->total = s.seq;
		pr->ends++;
		return;
	}
	if (o->reliable && s.seq != t->next) {
		peer_reader_error(pr, "writer %u: gap, seq %" PRIu64 " expected %" PRIu64, t->tag, s.seq,
				  t->next);
		return;
	}
	t->next = s.seq + 1;
	t->received++;
	pr->data++;
}

static bool peer_reader_finished(const struct peer_reader *pr)
{
	return pr->o->writers != 0 && pr->ends >= pr->o->writers;
}

static void peer_listener_cb(sdds_reader *r, void *arg)
{
	struct peer_reader *pr = arg;
	uint8_t buf[ISAMPLE_MAX];
	size_t len = 0;
	int rc;

	pthread_mutex_lock(&pr->lock);
	pr->calls++;
	if (pthread_equal(pthread_self(), pr->main_thread))
		pr->cb_wrong_thread = true;
	if (!pr->cb_thread_set) {
		pr->cb_thread = pthread_self();
		pr->cb_thread_set = true;
	} else if (!pthread_equal(pr->cb_thread, pthread_self())) {
		pr->cb_wrong_thread = true;
	}
	pthread_mutex_unlock(&pr->lock);

	/* One call, one sample: take exactly one. */
	rc = sdds_reader_take(r, buf, sizeof buf, &len, 0);

	pthread_mutex_lock(&pr->lock);
	if (rc == 0)
		peer_reader_process(pr, buf, len);
	else if (rc == -EAGAIN)
		pr->empty_calls++;
	else
		peer_reader_error(pr, "take in listener: %d", rc);
	if (peer_reader_finished(pr))
		pthread_cond_broadcast(&pr->cond);
	pthread_mutex_unlock(&pr->lock);
}

static int peer_reader_run_listener(struct peer_reader *pr, int64_t deadline)
{
	const struct peer_opts *o = pr->o;
	int rc;

	rc = sdds_reader_set_listener(pr->r, peer_listener_cb, pr);
	if (rc < 0) {
		peer_fail_setup("set_listener", rc);
		return rc;
	}
	printf("ready session=%" PRIu32 "\n", pr->session);
	fflush(stdout);
	pthread_mutex_lock(&pr->lock);
	while (!peer_reader_finished(pr) && peer_now_ns() < deadline) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&pr->cond, &pr->lock, &ts);
		if (o->writers == 0) {
			pthread_mutex_unlock(&pr->lock);
			bool stop = peer_stdin_closed();
			pthread_mutex_lock(&pr->lock);
			if (stop)
				break;
		}
	}
	if (!peer_reader_finished(pr) && o->writers != 0)
		peer_reader_error(pr, "timeout: %u of %u END samples", pr->ends, o->writers);
	pthread_mutex_unlock(&pr->lock);

	/* Once per sample means no call after the last sample either. */
	peer_sleep_us(300 * 1000);
	rc = sdds_reader_set_listener(pr->r, NULL, NULL);
	pthread_mutex_lock(&pr->lock);
	if (rc < 0)
		peer_reader_error(pr, "set_listener(NULL): %d", rc);
	if (pr->cb_wrong_thread)
		peer_reader_error(pr, "listener called on the main thread or on several threads");
	if (pr->calls != pr->samples)
		peer_reader_error(pr,
				  "%" PRIu64 " listener calls for %" PRIu64 " samples (%" PRIu64
				  " found nothing to take)",
				  pr->calls, pr->samples, pr->empty_calls);
	pthread_mutex_unlock(&pr->lock);
	return 0;
}

static void peer_reader_run_take(struct peer_reader *pr, int64_t deadline)
{
	const struct peer_opts *o = pr->o;
	uint8_t buf[ISAMPLE_MAX];
	bool draining = false;

	printf("ready session=%" PRIu32 "\n", pr->session);
	fflush(stdout);
	while (!peer_reader_finished(pr)) {
		size_t len = 0;
		int rc = sdds_reader_take(pr->r, buf, sizeof buf, &len, draining ? 0 : 20 * 1000000);

		if (rc == 0) {
			peer_reader_process(pr, buf, len);
			if (o->slow_us)
				peer_sleep_us(o->slow_us);
			continue;
		}
		if (rc != -ETIMEDOUT && rc != -EAGAIN) {
			peer_reader_error(pr, "take: %d (%s)", rc, sdds_strerror(rc));
			return;
		}
		if (draining)
			return;
		if (o->writers == 0 && peer_stdin_closed()) {
			draining = true;
			continue;
		}
		if (peer_now_ns() > deadline) {
			peer_reader_error(pr, "timeout: %u of %u END samples, %" PRIu64 " samples", pr->ends,
					  o->writers, pr->samples);
			return;
		}
	}
	/* A duplicate would arrive after the last END: look for one. */
	if (o->reliable) {
		size_t len = 0;

		if (sdds_reader_take(pr->r, buf, sizeof buf, &len, 100 * 1000000) == 0)
			peer_reader_error(pr, "extra sample after the last END");
	}
}

static int peer_reader(const struct peer_opts *o)
{
	struct peer_reader pr = {.o = o};
	int64_t deadline = peer_now_ns() + (int64_t)o->timeout_ms * 1000000;
	sdds_client *c = NULL;
	sdds_topic *t = NULL;
	sdds_qos q;
	uint64_t missing = 0;
	int rc;

	pthread_mutex_init(&pr.lock, NULL);
	pthread_cond_init(&pr.cond, NULL);
	pr.main_thread = pthread_self();
	rc = peer_connect(o, o->listener ? "itest-listener" : "itest-reader", &c);
	if (rc < 0) {
		peer_fail_setup("connect", rc);
		return 1;
	}
	rc = peer_topic(o, c, o->topic, &t);
	if (rc < 0) {
		peer_fail_setup("topic", rc);
		goto out;
	}
	sdds_qos_init(&q);
	q.reliability = o->reliable ? SDDS_RELIABLE : SDDS_BEST_EFFORT;
	if (o->depth)
		q.history_depth = o->depth;
	rc = sdds_reader_new(t, &q, &pr.r);
	if (rc < 0) {
		peer_fail_setup("reader", rc);
		goto out;
	}
	pr.session = sdds_client_session_id(c);
	if (o->listener) {
		rc = peer_reader_run_listener(&pr, deadline);
		if (rc < 0)
			goto out;
	} else {
		peer_reader_run_take(&pr, deadline);
	}
	for (uint32_t i = 0; i < pr.n_track; i++) {
		const struct peer_track *tr = &pr.track[i];

		if (tr->ended)
			missing += tr->total - tr->received;
		printf("writer tag=%u received=%" PRIu64 " total=%" PRIu64 " ended=%d\n", tr->tag,
		       tr->received, tr->total, tr->ended);
	}
	if (o->reliable && missing)
		peer_reader_error(&pr, "reliable reader missed %" PRIu64 " samples", missing);
	printf("done received=%" PRIu64 " samples=%" PRIu64 " lost=%" PRIu64 " missing=%" PRIu64
	       " ends=%u calls=%" PRIu64 " errors=%" PRIu64 " first_error=\"%s\"\n",
	       pr.data, pr.samples, sdds_reader_lost(pr.r), missing, pr.ends, pr.calls, pr.errors,
	       pr.first_error);
	fflush(stdout);
	rc = pr.errors ? -EIO : 0;
out:
	sdds_reader_free(pr.r);
	sdds_topic_free(t);
	sdds_client_free(c);
	pthread_cond_destroy(&pr.cond);
	pthread_mutex_destroy(&pr.lock);
	return rc < 0 ? 1 : 0;
}

/* ------------------------------------------------------------- cycle */

/*
 * Readers and a writer on one topic, then writes until killed. variant 0:
 * a reliable reader that never takes stalls the writer (killed while the
 * daemon holds a stalled record and the write waits for room); variant 1:
 * best effort only (killed in a stream of writes).
 */
static int peer_cycle(const struct peer_opts *o)
{
	uint8_t buf[ISAMPLE_MAX];
	sdds_client *c = NULL;
	sdds_topic *t = NULL;
	sdds_reader *r1 = NULL, *r2 = NULL;
	sdds_writer *w = NULL;
	sdds_qos q;
	int rc;

	rc = peer_connect(o, "itest-cycle", &c);
	if (rc == 0)
		rc = peer_topic(o, c, o->topic, &t);
	if (rc == 0) {
		sdds_qos_init(&q);
		q.reliability = SDDS_BEST_EFFORT;
		q.history_depth = 8;
		rc = sdds_reader_new(t, &q, &r1);
	}
	if (rc == 0 && o->variant == 0) {
		sdds_qos_init(&q);
		q.reliability = SDDS_RELIABLE;
		q.history_depth = 4;
		rc = sdds_reader_new(t, &q, &r2);
	}
	if (rc == 0) {
		sdds_qos_init(&q);
		q.reliability = o->variant == 0 ? SDDS_RELIABLE : SDDS_BEST_EFFORT;
		q.max_blocking_ms = 5;
		rc = sdds_writer_new(t, &q, &w);
	}
	if (rc < 0) {
		peer_fail_setup("cycle", rc);
		goto out;
	}
	printf("ready session=%" PRIu32 "\n", sdds_client_session_id(c));
	fflush(stdout);
	for (uint64_t i = 0;; i++) {
		struct isample s = {o->topic, o->tag, ISAMPLE_DATA, i};

		isample_encode(buf, o->size, &s);
		rc = sdds_writer_write(w, buf, o->size);
		if (rc == -ENOTCONN)
			break;
		if ((i & 255) == 255 && peer_stdin_closed())
			break;
	}
out:
	sdds_writer_free(w);
	sdds_reader_free(r2);
	sdds_reader_free(r1);
	sdds_topic_free(t);
	sdds_client_free(c);
	return 0;
}

/* ------------------------------------------------------------- gone */

/*
 * Topic T carries the writer, a reliable reader that never takes (it stalls
 * the writer until the request ring is full and the write blocks) and the
 * listener's reader; topic T + 2 has no writer, so takes on its readers block.
 */
struct peer_gone {
	const struct peer_opts *o;
	sdds_client *c;
	sdds_topic *t, *t2;
	sdds_reader *r_block, *r_lis, *r_take, *r_take_to;
	sdds_writer *w;
	pthread_t take_thread, take_to_thread, write_thread;
	bool take_started, take_to_started, write_started;
	atomic_int take_rc, take_to_rc, write_rc;
	atomic_llong take_ns, take_to_ns, write_ns;
	atomic_bool in_take, in_take_to;
	atomic_ullong write_progress;
	atomic_ullong listener_calls;
	atomic_int listener_rc;
	uint64_t errors;
};

static void *peer_gone_take(void *arg)
{
	struct peer_gone *g = arg;
	uint8_t buf[ISAMPLE_MAX];

	atomic_store(&g->in_take, true);
	int rc = sdds_reader_take(g->r_take, buf, sizeof buf, NULL, -1);
	atomic_store(&g->take_ns, peer_now_ns());
	atomic_store(&g->take_rc, rc);
	return NULL;
}

static void *peer_gone_take_to(void *arg)
{
	struct peer_gone *g = arg;
	uint8_t buf[ISAMPLE_MAX];

	atomic_store(&g->in_take_to, true);
	/* Far longer than the test waits: -ETIMEDOUT here is a failure. */
	int rc = sdds_reader_take(g->r_take_to, buf, sizeof buf, NULL, 60LL * 1000000000);
	atomic_store(&g->take_to_ns, peer_now_ns());
	atomic_store(&g->take_to_rc, rc);
	return NULL;
}

static void *peer_gone_write(void *arg)
{
	struct peer_gone *g = arg;
	uint8_t buf[ISAMPLE_MAX];
	int rc;

	for (uint64_t i = 0;; i++) {
		struct isample s = {g->o->topic, 1, ISAMPLE_DATA, 100 + i};

		isample_encode(buf, g->o->size, &s);
		rc = sdds_writer_write(g->w, buf, g->o->size);
		if (rc != 0)
			break;
		atomic_store(&g->write_progress, i + 1);
	}
	atomic_store(&g->write_ns, peer_now_ns());
	atomic_store(&g->write_rc, rc);
	return NULL;
}

static void peer_gone_listener(sdds_reader *r, void *arg)
{
	struct peer_gone *g = arg;
	uint8_t buf[ISAMPLE_MAX];
	int rc = sdds_reader_take(r, buf, sizeof buf, NULL, 0);

	if (rc != 0)
		atomic_store(&g->listener_rc, rc);
	atomic_fetch_add(&g->listener_calls, 1);
}

static void peer_gone_check(struct peer_gone *g, const char *what, int rc)
{
	printf("call name=%s rc=%d\n", what, rc);
	if (rc != -ENOTCONN)
		g->errors++;
}

/* Wait until cond holds or ms passed; returns whether it holds. */
static bool peer_wait_until(bool (*cond)(struct peer_gone *), struct peer_gone *g, int ms)
{
	int64_t deadline = peer_now_ns() + (int64_t)ms * 1000000;

	while (!cond(g)) {
		if (peer_now_ns() > deadline)
			return false;
		peer_sleep_us(1000);
	}
	return true;
}

static bool peer_gone_listener_saw5(struct peer_gone *g)
{
	return atomic_load(&g->listener_calls) >= 5;
}

static bool peer_gone_threads_in(struct peer_gone *g)
{
	return (!g->take_started || atomic_load(&g->in_take)) &&
	       (!g->take_to_started || atomic_load(&g->in_take_to));
}

/* The write thread is blocked once its progress stops moving for 500 ms. */
static bool peer_gone_write_stuck(struct peer_gone *g)
{
	uint64_t before = atomic_load(&g->write_progress);

	peer_sleep_us(500 * 1000);
	return atomic_load(&g->write_progress) == before && atomic_load(&g->write_rc) == 1;
}

static bool peer_gone_disconnected(struct peer_gone *g)
{
	return !sdds_client_connected(g->c);
}

static int peer_gone_reader(struct peer_gone *g, sdds_topic *t, sdds_reliability rel, uint32_t depth,
			    sdds_reader **ret)
{
	sdds_qos q;

	sdds_qos_init(&q);
	q.reliability = rel;
	q.history_depth = depth;
	return sdds_reader_new(t, &q, ret);
}

static int peer_gone_setup(struct peer_gone *g, bool want_take, bool want_take_to, bool want_write,
			   bool want_listener)
{
	const struct peer_opts *o = g->o;
	uint8_t buf[ISAMPLE_MAX];
	sdds_qos q;
	int rc;

	rc = peer_topic(o, g->c, o->topic, &g->t);
	if (rc == 0)
		rc = peer_topic(o, g->c, (uint16_t)(o->topic + 2), &g->t2);
	if (rc == 0)
		rc = peer_gone_reader(g, g->t2, SDDS_BEST_EFFORT, 4, &g->r_take);
	if (rc == 0 && want_take_to)
		rc = peer_gone_reader(g, g->t2, SDDS_BEST_EFFORT, 4, &g->r_take_to);
	if (rc == 0 && (want_write || want_listener)) {
		sdds_qos_init(&q);
		q.reliability = SDDS_RELIABLE;
		q.max_blocking_ms = 60000;
		rc = sdds_writer_new(g->t, &q, &g->w);
	}
	if (rc < 0) {
		peer_fail_setup("endpoints", rc);
		return rc;
	}
	if (want_listener) {
		/* Prove the listener works before the daemon goes away. */
		rc = peer_gone_reader(g, g->t, SDDS_RELIABLE, 64, &g->r_lis);
		if (rc == 0)
			rc = sdds_reader_set_listener(g->r_lis, peer_gone_listener, g);
		for (uint64_t i = 0; rc == 0 && i < 5; i++) {
			struct isample s = {o->topic, 1, ISAMPLE_DATA, i};

			isample_encode(buf, o->size, &s);
			rc = sdds_writer_write(g->w, buf, o->size);
		}
		if (rc < 0) {
			peer_fail_setup("listener", rc);
			return rc;
		}
		if (!peer_wait_until(peer_gone_listener_saw5, g, 10000)) {
			peer_fail_setup("listener-calls", -ETIMEDOUT);
			return -ETIMEDOUT;
		}
	}
	if (want_write) {
		rc = peer_gone_reader(g, g->t, SDDS_RELIABLE, 2, &g->r_block);
		if (rc < 0) {
			peer_fail_setup("block-reader", rc);
			return rc;
		}
	}
	if (want_take) {
		g->take_started = pthread_create(&g->take_thread, NULL, peer_gone_take, g) == 0;
		if (!g->take_started)
			return -EAGAIN;
	}
	if (want_take_to) {
		g->take_to_started = pthread_create(&g->take_to_thread, NULL, peer_gone_take_to, g) == 0;
		if (!g->take_to_started)
			return -EAGAIN;
	}
	if (want_write) {
		g->write_started = pthread_create(&g->write_thread, NULL, peer_gone_write, g) == 0;
		if (!g->write_started)
			return -EAGAIN;
	}
	if (!peer_wait_until(peer_gone_threads_in, g, 10000)) {
		peer_fail_setup("threads", -ETIMEDOUT);
		return -ETIMEDOUT;
	}
	if (want_write) {
		int64_t deadline = peer_now_ns() + 20LL * 1000000000;

		while (!peer_gone_write_stuck(g)) {
			if (peer_now_ns() > deadline || atomic_load(&g->write_rc) != 1) {
				peer_fail_setup("write-block", atomic_load(&g->write_rc));
				return -ETIMEDOUT;
			}
		}
	}
	return 0;
}

static void peer_gone_report(struct peer_gone *g, const char *name, atomic_int *rc, atomic_llong *t_ns)
{
	printf("blocked name=%s rc=%d t_ns=%lld\n", name, atomic_load(rc), (long long)atomic_load(t_ns));
	if (atomic_load(rc) != -ENOTCONN)
		g->errors++;
}

/* After the daemon died: every call fails with -ENOTCONN, and at once. */
static void peer_gone_after(struct peer_gone *g)
{
	const struct peer_opts *o = g->o;
	uint8_t buf[ISAMPLE_MAX];
	sdds_topic *t3 = NULL;
	sdds_reader *r3 = NULL;
	sdds_writer *w3 = NULL;
	sdds_qos q;
	int64_t t0 = peer_now_ns(), dt;

	printf("call name=connected rc=%d\n", sdds_client_connected(g->c) ? 1 : 0);
	if (sdds_client_connected(g->c))
		g->errors++;
	peer_gone_check(g, "take0", sdds_reader_take(g->r_take, buf, sizeof buf, NULL, 0));
	peer_gone_check(g, "take_timeout", sdds_reader_take(g->r_take, buf, sizeof buf, NULL, 300000000));
	peer_gone_check(g, "take_forever", sdds_reader_take(g->r_take, buf, sizeof buf, NULL, -1));
	if (g->w) {
		struct isample s = {o->topic, 1, ISAMPLE_DATA, 0};

		isample_encode(buf, o->size, &s);
		peer_gone_check(g, "write", sdds_writer_write(g->w, buf, o->size));
	}
	peer_gone_check(g, "topic_new", peer_topic(o, g->c, (uint16_t)(o->topic + 4), &t3));
	sdds_qos_init(&q);
	peer_gone_check(g, "reader_new", sdds_reader_new(g->t, &q, &r3));
	peer_gone_check(g, "writer_new", sdds_writer_new(g->t, &q, &w3));
	sdds_reader_free(r3);
	sdds_writer_free(w3);
	sdds_topic_free(t3);
	dt = peer_now_ns() - t0;
	printf("calls ms=%lld\n", (long long)(dt / 1000000));
	/* A take with a 300 ms timeout must not sleep it out once the daemon is gone. */
	if (dt > 250000000LL)
		g->errors++;
}

static int peer_gone(const struct peer_opts *o)
{
	struct peer_gone g = {.o = o};
	const char *m = o->mode ? o->mode : "all";
	bool all = strcmp(m, "all") == 0;
	bool want_take = all || strcmp(m, "take") == 0;
	bool want_take_to = all || strcmp(m, "take-timeout") == 0;
	bool want_write = all || strcmp(m, "write") == 0;
	bool want_listener = all || strcmp(m, "listener") == 0;
	int rc;

	atomic_init(&g.take_rc, 1);
	atomic_init(&g.take_to_rc, 1);
	atomic_init(&g.write_rc, 1);
	atomic_init(&g.listener_rc, 0);
	rc = peer_connect(o, "itest-gone", &g.c);
	if (rc < 0) {
		peer_fail_setup("connect", rc);
		return 1;
	}
	rc = peer_gone_setup(&g, want_take, want_take_to, want_write, want_listener);
	if (rc < 0)
		goto out;
	/* Let the takes settle into their futex sleep. */
	peer_sleep_us(200 * 1000);
	printf("ready session=%" PRIu32 " writes=%llu\n", sdds_client_session_id(g.c),
	       (unsigned long long)atomic_load(&g.write_progress));
	fflush(stdout);

	/* The test kills the daemon now; the blocked calls must come back. */
	if (g.take_started)
		pthread_join(g.take_thread, NULL);
	if (g.take_to_started)
		pthread_join(g.take_to_thread, NULL);
	if (g.write_started)
		pthread_join(g.write_thread, NULL);
	if (g.take_started)
		peer_gone_report(&g, "take", &g.take_rc, &g.take_ns);
	if (g.take_to_started)
		peer_gone_report(&g, "take_timeout", &g.take_to_rc, &g.take_to_ns);
	if (g.write_started)
		peer_gone_report(&g, "write", &g.write_rc, &g.write_ns);
	g.take_started = g.take_to_started = g.write_started = false;
	if (want_listener) {
		/* Nothing blocks under a listener: the library must notice by itself. */
		bool gone = peer_wait_until(peer_gone_disconnected, &g, 5000);
		int64_t t0;

		printf("blocked name=listener rc=%d t_ns=%lld\n", gone ? -ENOTCONN : 0,
		       (long long)peer_now_ns());
		if (!gone)
			g.errors++;
		t0 = peer_now_ns();
		rc = sdds_reader_set_listener(g.r_lis, NULL, NULL);
		t0 = peer_now_ns() - t0;
		printf("call name=set_listener_null rc=%d ms=%lld\n", rc, (long long)(t0 / 1000000));
		if ((rc != 0 && rc != -ENOTCONN) || t0 > 1000000000LL)
			g.errors++;
	}
	peer_gone_after(&g);
	rc = 0;
out:
	if (g.take_started || g.take_to_started || g.write_started) {
		/* Setup failed with threads blocked in calls: do not hang in free. */
		printf("done errors=1 setup_failed=1\n");
		fflush(stdout);
		_exit(1);
	}
	{
		int64_t t0 = peer_now_ns();

		sdds_writer_free(g.w);
		sdds_reader_free(g.r_block);
		sdds_reader_free(g.r_lis);
		sdds_reader_free(g.r_take_to);
		sdds_reader_free(g.r_take);
		sdds_topic_free(g.t2);
		sdds_topic_free(g.t);
		sdds_client_free(g.c);
		printf("call name=free ms=%lld\n", (long long)((peer_now_ns() - t0) / 1000000));
	}
	if (rc < 0)
		g.errors++;
	printf("done errors=%" PRIu64 " listener_calls=%llu listener_rc=%d\n", g.errors,
	       (unsigned long long)atomic_load(&g.listener_calls), atomic_load(&g.listener_rc));
	fflush(stdout);
	return g.errors ? 1 : 0;
}

/* ------------------------------------------------------------- main */

static void peer_usage(void)
{
	fprintf(stderr,
		"usage: itest-peer writer|reader|cycle|gone --socket PATH [--domain D] [--topic ID]\n"
		"  [--size BYTES] [--reliable|--best-effort] [--depth N] [--max-blocking-ms MS]\n"
		"  [--count N] [--tag T] [--batch N --pause-us US] [--writers K] [--slow-us US]\n"
		"  [--listener] [--any-order] [--timeout-ms MS] [--spin-ns NS] [--mode M] [--variant V]\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"socket", required_argument, NULL, 's'},
	    {"domain", required_argument, NULL, 'd'},
	    {"topic", required_argument, NULL, 't'},
	    {"size", required_argument, NULL, 'z'},
	    {"reliable", no_argument, NULL, 'R'},
	    {"best-effort", no_argument, NULL, 'B'},
	    {"depth", required_argument, NULL, 'D'},
	    {"max-blocking-ms", required_argument, NULL, 'M'},
	    {"count", required_argument, NULL, 'n'},
	    {"tag", required_argument, NULL, 'g'},
	    {"batch", required_argument, NULL, 'b'},
	    {"pause-us", required_argument, NULL, 'p'},
	    {"writers", required_argument, NULL, 'w'},
	    {"slow-us", required_argument, NULL, 'S'},
	    {"listener", no_argument, NULL, 'L'},
	    {"any-order", no_argument, NULL, 'A'},
	    {"timeout-ms", required_argument, NULL, 'T'},
	    {"spin-ns", required_argument, NULL, 'P'},
	    {"mode", required_argument, NULL, 'm'},
	    {"variant", required_argument, NULL, 'v'},
	    {NULL, 0, NULL, 0},
	};
	struct peer_opts o = {
	    .size = ISAMPLE_HDR,
	    .topic = 1,
	    .max_blocking_ms = 10000,
	    .tag = 1,
	    .timeout_ms = 60000,
	    .spin_ns = -1,
	};
	int c;

	if (argc < 2) {
		peer_usage();
		return 2;
	}
	o.role = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o.socket = optarg;
			break;
		case 'd':
			o.domain = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 't':
			o.topic = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'z':
			o.size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'R':
			o.reliable = true;
			break;
		case 'B':
			o.reliable = false;
			break;
		case 'D':
			o.depth = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'M':
			o.max_blocking_ms = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			o.count = strtoull(optarg, NULL, 0);
			break;
		case 'g':
			o.tag = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			o.batch = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'p':
			o.pause_us = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'w':
			o.writers = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'S':
			o.slow_us = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'L':
			o.listener = true;
			break;
		case 'A':
			o.any_order = true;
			break;
		case 'T':
			o.timeout_ms = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'P':
			o.spin_ns = strtoll(optarg, NULL, 0);
			break;
		case 'm':
			o.mode = optarg;
			break;
		case 'v':
			o.variant = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			peer_usage();
			return 2;
		}
	}
	if (o.size < ISAMPLE_HDR || o.size > ISAMPLE_MAX) {
		fprintf(stderr, "itest-peer: --size must be %u..%u\n", ISAMPLE_HDR, ISAMPLE_MAX);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(o.role, "writer") == 0)
		return peer_writer(&o);
	if (strcmp(o.role, "reader") == 0)
		return peer_reader(&o);
	if (strcmp(o.role, "cycle") == 0)
		return peer_cycle(&o);
	if (strcmp(o.role, "gone") == 0)
		return peer_gone(&o);
	peer_usage();
	return 2;
}
