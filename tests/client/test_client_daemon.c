/* SPDX-License-Identifier: MIT */
/*
 * test_client_daemon.c - libsddsclient against a real sddsd started as a
 * child process on a socket in a temporary directory (one daemon per test,
 * so killing it stays local). Skips (77) when $SDDSD names no executable.
 *
 * Covers: connect (path, handed-in fd, missing daemon), write/take between
 * two clients and between two processes, reliable back-pressure through the
 * daemon, listeners, and daemon death: blocked takes and writes return
 * -ENOTCONN, later calls too, nothing hangs, free works in every state.
 * Polling daemon with yield-spinning clients sharing one CPU: every sample
 * of a reliable stream arrives, in order. sdds_reader_take_many: a reliable
 * stream in batches (both daemon modes), partial batches, arguments.
 * Every wait is bounded; a hang shows as a failed timed join.
 * The writer processes are this program run again with a role
 * (childproc.h: a forked copy of this multithreaded process must exec
 * before it creates a client).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sdds/sdds.h"

#include "childproc.h"

#define SAMPLE 16
#define SEC (1000 * 1000 * 1000LL)

static const char *sddsd_path;
static const char *self_path; /* argv[0]: childproc_spawn runs it again */

struct daemon {
	pid_t pid;
	char dir[64];
	char sock[128];
};

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static int try_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void daemon_start(struct daemon *d, bool poll_mode)
{
	int fd;

	snprintf(d->dir, sizeof(d->dir), "/tmp/sdds-client-test.XXXXXX");
	assert_non_null(mkdtemp(d->dir));
	snprintf(d->sock, sizeof(d->sock), "%s/sddsd.sock", d->dir);
	d->pid = fork();
	assert_true(d->pid >= 0);
	if (d->pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		/* Quiet unless the test is being debugged. */
		if (null >= 0 && !getenv("SDDS_TEST_VERBOSE"))
			dup2(null, 1);
		if (poll_mode)
			execl(sddsd_path, sddsd_path, "--socket", d->sock, "--poll", (char *)NULL);
		else
			execl(sddsd_path, sddsd_path, "--socket", d->sock, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 1000; i++) {
		int st;

		fd = try_connect(d->sock);
		if (fd >= 0) {
			/* That probe was a client too: let the daemon see it leave. */
			close(fd);
			return;
		}
		if (waitpid(d->pid, &st, WNOHANG) == d->pid) {
			d->pid = 0;
			fail_msg("sddsd exited during start-up (status 0x%x)", st);
		}
		sleep_ms(10);
	}
	fail_msg("sddsd did not listen on %s within 10 s", d->sock);
}

static void daemon_kill(struct daemon *d)
{
	if (d->pid > 0) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, NULL, 0);
		d->pid = 0;
	}
}

static void daemon_stop(struct daemon *d)
{
	if (d->pid > 0) {
		int st = 0;

		kill(d->pid, SIGTERM);
		for (int i = 0; i < 500 && waitpid(d->pid, &st, WNOHANG) == 0; i++)
			sleep_ms(10);
		daemon_kill(d);
	}
	unlink(d->sock);
	rmdir(d->dir);
}

static int setup(void **state)
{
	struct daemon *d = calloc(1, sizeof(*d));

	daemon_start(d, false);
	*state = d;
	return 0;
}

static int setup_poll(void **state)
{
	struct daemon *d = calloc(1, sizeof(*d));

	daemon_start(d, true);
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct daemon *d = *state;

	daemon_stop(d);
	free(d);
	return 0;
}

static sdds_client *client(struct daemon *d, const char *name)
{
	sdds_client_options o;
	sdds_client *c = NULL;

	sdds_client_options_init(&o);
	o.socket_path = d->sock;
	o.name = name;
	assert_int_equal(sdds_client_new(&o, &c), 0);
	return c;
}

static sdds_topic *topic(sdds_client *c, uint16_t id)
{
	static const sdds_field f[] = {{"seq", SDDS_FIELD_ULONG, 4}, {"pad", SDDS_FIELD_STRING, 12}};
	sdds_topic_desc desc = {
	    .name = "ct", .domain = 0, .id = id, .sample_size = SAMPLE, .fields = f, .n_fields = 2};
	sdds_topic *t = NULL;

	assert_int_equal(sdds_topic_new(c, &desc, &t), 0);
	return t;
}

static sdds_writer *writer(sdds_topic *t, sdds_reliability rel, uint32_t ms)
{
	sdds_qos q;
	sdds_writer *w = NULL;

	sdds_qos_init(&q);
	q.reliability = rel;
	q.max_blocking_ms = ms;
	assert_int_equal(sdds_writer_new(t, &q, &w), 0);
	return w;
}

static sdds_reader *reader(sdds_topic *t, sdds_reliability rel, uint32_t depth)
{
	sdds_qos q;
	sdds_reader *r = NULL;

	sdds_qos_init(&q);
	q.reliability = rel;
	q.history_depth = depth;
	assert_int_equal(sdds_reader_new(t, &q, &r), 0);
	return r;
}

static void put_seq(uint8_t *b, uint32_t v)
{
	memset(b, 0, SAMPLE);
	memcpy(b, &v, 4);
	snprintf((char *)b + 4, 12, "s%u", v % 100000);
}

static uint32_t get_seq(const uint8_t *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return v;
}

/* Join within ms or fail: a hang must show as a failure, not a timeout of the whole program. */
static void join_within(pthread_t th, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	if (pthread_timedjoin_np(th, NULL, &ts) != 0)
		fail_msg("thread did not finish within %d ms", ms);
}

/* ---------------- connect ---------------- */

static void test_connect(void **state)
{
	struct daemon *d = *state;
	sdds_client *a = client(d, "a"), *b = client(d, "b");

	assert_true(sdds_client_connected(a));
	assert_int_not_equal(sdds_client_session_id(a), 0);
	assert_int_not_equal(sdds_client_session_id(b), 0);
	assert_int_not_equal(sdds_client_session_id(a), sdds_client_session_id(b));
	sdds_client_free(a);
	sdds_client_free(b);
}

static void test_connect_handed_in_fd(void **state)
{
	struct daemon *d = *state;
	sdds_client_options o;
	sdds_client *c = NULL;
	int fd = try_connect(d->sock);

	assert_true(fd >= 0);
	sdds_client_options_init(&o);
	o.ctl_fd = fd;
	o.socket_path = "/nonexistent/never/used";
	assert_int_equal(sdds_client_new(&o, &c), 0);
	assert_int_not_equal(sdds_client_session_id(c), 0);
	sdds_client_free(c); /* closes fd */
	assert_int_equal(fcntl(fd, F_GETFD), -1);
}

static void test_connect_no_daemon(void **state)
{
	sdds_client_options o;
	sdds_client *c = NULL;
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "/tmp/sdds-client-test-none-%d.sock", (int)getpid());
	sdds_client_options_init(&o);
	o.socket_path = path;
	assert_int_equal(sdds_client_new(&o, &c), -ENOENT);
	assert_null(c);
}

/* ---------------- data ---------------- */

static void test_write_take_two_clients(void **state)
{
	struct daemon *d = *state;
	sdds_client *a = client(d, "pub"), *b = client(d, "sub");
	sdds_topic *ta = topic(a, 1), *tb = topic(b, 1);
	sdds_reader *rbe = reader(tb, SDDS_BEST_EFFORT, 256);
	sdds_reader *rrel = reader(tb, SDDS_RELIABLE, 256);
	sdds_writer *w = writer(ta, SDDS_BEST_EFFORT, 1000);
	uint8_t s[SAMPLE + 4];
	size_t len;

	assert_int_equal(sdds_reader_take(rbe, s, sizeof(s), NULL, 0), -EAGAIN);
	for (uint32_t i = 0; i < 200; i++) {
		put_seq(s, i);
		assert_int_equal(sdds_writer_write(w, s, SAMPLE), 0);
	}
	for (uint32_t i = 0; i < 200; i++) {
		len = 0;
		assert_int_equal(sdds_reader_take(rbe, s, sizeof(s), &len, 5 * SEC), 0);
		assert_int_equal(len, SAMPLE);
		assert_int_equal(get_seq(s), i);
		assert_int_equal(sdds_reader_take(rrel, s, sizeof(s), &len, 5 * SEC), 0);
		assert_int_equal(get_seq(s), i);
	}
	assert_int_equal(sdds_reader_take(rbe, s, sizeof(s), NULL, 20 * 1000000LL), -ETIMEDOUT);
	assert_int_equal(sdds_reader_lost(rbe), 0);
	assert_int_equal(sdds_writer_write(w, s, SAMPLE - 1), -EMSGSIZE);

	/* Deleting endpoints goes through the daemon; the rest keeps working. */
	sdds_reader_free(rbe);
	put_seq(s, 1000);
	assert_int_equal(sdds_writer_write(w, s, SAMPLE), 0);
	assert_int_equal(sdds_reader_take(rrel, s, sizeof(s), NULL, 5 * SEC), 0);
	assert_int_equal(get_seq(s), 1000);
	sdds_writer_free(w);
	sdds_reader_free(rrel);
	sdds_topic_free(ta);
	sdds_topic_free(tb);
	sdds_client_free(a);
	sdds_client_free(b);
}

static void test_topic_conflict(void **state)
{
	struct daemon *d = *state;
	sdds_client *a = client(d, "a");
	sdds_topic *t = topic(a, 2), *t2 = NULL;
	sdds_topic_desc other = {.name = "ct", .domain = 0, .id = 2, .sample_size = SAMPLE + 8};

	assert_int_equal(sdds_topic_new(a, &other, &t2), -EINVAL);
	assert_null(t2);
	sdds_topic_free(t);
	sdds_client_free(a);
}

/* ---------------- writer processes (childproc.h) ---------------- */

/* A client whose waits spin (never sleep) and yield the CPU between checks. */
static sdds_client *yield_client(const char *sock, const char *name)
{
	sdds_client_options o;
	sdds_client *c = NULL;

	sdds_client_options_init(&o);
	o.socket_path = sock;
	o.name = name;
	o.spin_ns = 60 * SEC;
	o.spin_yield_ns = 0;
	if (sdds_client_new(&o, &c) != 0)
		return NULL;
	return c;
}

#define CHILD_STREAM_N 5000
#define CHILD_YIELD_N 20000
#define CHILD_HELD_N 20

/*
 * A writer process: n reliable samples 0..n-1 on topic id of "ct", each
 * write allowed max_ms, then sdds_client_free. yield: a yield_client.
 * Exit 0, or the step that failed.
 */
static int writer_child(const char *sock, bool yield, uint16_t id, uint32_t n, uint32_t max_ms)
{
	static const sdds_field f[] = {{"seq", SDDS_FIELD_ULONG, 4}, {"pad", SDDS_FIELD_STRING, 12}};
	sdds_topic_desc desc = {
	    .name = "ct", .domain = 0, .id = id, .sample_size = SAMPLE, .fields = f, .n_fields = 2};
	sdds_client_options o;
	sdds_client *a = NULL;
	sdds_topic *ta;
	sdds_writer *w;
	sdds_qos q;
	uint8_t s[SAMPLE];

	if (yield) {
		a = yield_client(sock, "yield-pub");
	} else {
		sdds_client_options_init(&o);
		o.socket_path = sock;
		if (sdds_client_new(&o, &a) != 0)
			a = NULL;
	}
	if (a == NULL || sdds_topic_new(a, &desc, &ta))
		return 2;
	sdds_qos_init(&q);
	q.reliability = SDDS_RELIABLE;
	q.max_blocking_ms = max_ms;
	if (sdds_writer_new(ta, &q, &w))
		return 3;
	for (uint32_t i = 0; i < n; i++) {
		put_seq(s, i);
		if (sdds_writer_write(w, s, SAMPLE) != 0)
			return 4;
	}
	/* "held": all but two samples are still in the daemon or the ring; freeing waits. */
	sdds_client_free(a);
	return 0;
}

static void test_write_take_two_processes(void **state)
{
	struct daemon *d = *state;
	sdds_client *b = client(d, "sub");
	sdds_topic *t = topic(b, 3);
	sdds_reader *r = reader(t, SDDS_RELIABLE, 8);
	const uint32_t n = CHILD_STREAM_N;
	uint8_t s[SAMPLE];
	pid_t pid;

	pid = childproc_spawn(self_path, "stream", d->sock, -1);
	assert_true(pid > 0);
	for (uint32_t i = 0; i < n; i++) {
		int rc = sdds_reader_take(r, s, sizeof(s), NULL, 10 * SEC);

		if (rc != 0)
			fail_msg("take %u: %s", i, sdds_strerror(rc));
		if (get_seq(s) != i)
			fail_msg("sample %u arrived as %u", i, get_seq(s));
		/* A slow reader: the reliable ring of 8 fills and the writer waits. */
		if (i % 512 == 0)
			sleep_ms(2);
	}
	assert_int_equal(childproc_wait(pid, 30000), 0);
	assert_int_equal(sdds_reader_lost(r), 0);
	sdds_client_free(b);
}

/*
 * Polling daemon, writer and reader processes pinned to one CPU, both
 * spinning with sched_yield between checks (the two-CPU polling placement
 * of sdds-bench): a reliable stream through a small ring, so the writer
 * waits for room again and again, arrives whole and in order.
 */
static void test_yield_spin_same_cpu(void **state)
{
	struct daemon *d = *state;
	const uint32_t n = CHILD_YIELD_N;
	cpu_set_t old, one;
	sdds_client *b;
	sdds_topic *t;
	sdds_reader *r;
	uint8_t s[SAMPLE];
	int cpu = sched_getcpu();
	pid_t pid;

	assert_true(cpu >= 0);
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	b = yield_client(d->sock, "yield-sub");
	assert_non_null(b);
	t = topic(b, 5);
	r = reader(t, SDDS_RELIABLE, 16);
	/* The child inherits the affinity (fork and exec keep it). */
	pid = childproc_spawn(self_path, "yield-stream", d->sock, -1);
	assert_true(pid > 0);
	for (uint32_t i = 0; i < n; i++) {
		int rc = sdds_reader_take(r, s, sizeof(s), NULL, 10 * SEC);

		if (rc != 0)
			fail_msg("take %u: %s", i, sdds_strerror(rc));
		if (get_seq(s) != i)
			fail_msg("sample %u arrived as %u", i, get_seq(s));
	}
	assert_int_equal(childproc_wait(pid, 60000), 0);
	assert_int_equal(sdds_reader_lost(r), 0);
	sdds_client_free(b);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
}

/*
 * A writer process that frees its client while the daemon still holds its
 * samples for a full reliable reader: freeing waits, nothing is lost.
 */
static void test_free_delivers_held_samples(void **state)
{
	struct daemon *d = *state;
	sdds_client *b = client(d, "slow-sub");
	sdds_topic *t = topic(b, 12);
	sdds_reader *r = reader(t, SDDS_RELIABLE, 2);
	const uint32_t n = CHILD_HELD_N;
	uint8_t s[SAMPLE];
	pid_t pid;

	pid = childproc_spawn(self_path, "held", d->sock, -1);
	assert_true(pid > 0);
	sleep_ms(300);
	for (uint32_t i = 0; i < n; i++) {
		int rc = sdds_reader_take(r, s, sizeof(s), NULL, 5 * SEC);

		if (rc != 0)
			fail_msg("take %u: %s", i, sdds_strerror(rc));
		assert_int_equal(get_seq(s), i);
		sleep_ms(5);
	}
	assert_int_equal(childproc_wait(pid, 30000), 0);
	sdds_client_free(b);
}

struct stream {
	sdds_writer *w;
	uint32_t n;
	int rc;
};

static void *stream_writer_main(void *arg)
{
	struct stream *st = arg;
	uint8_t s[SAMPLE];

	for (uint32_t i = 0; i < st->n; i++) {
		put_seq(s, i);
		st->rc = sdds_writer_write(st->w, s, SAMPLE);
		if (st->rc != 0)
			break;
	}
	return NULL;
}

/*
 * A reliable stream through a ring of 4 in both daemon modes: blocking (the
 * reader's takes kick the daemon) and polling (nobody kicks).
 */
static void reliable_stream(struct daemon *d, bool one_client, uint32_t n)
{
	sdds_client *a = client(d, "pub"), *b = one_client ? a : client(d, "sub");
	sdds_topic *ta = topic(a, 8), *tb = one_client ? ta : topic(b, 8);
	sdds_reader *r = reader(tb, SDDS_RELIABLE, 4);
	struct stream st = {.w = writer(ta, SDDS_RELIABLE, 5000), .n = n};
	uint8_t s[SAMPLE];
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, stream_writer_main, &st), 0);
	for (uint32_t i = 0; i < st.n; i++) {
		int rc = sdds_reader_take(r, s, sizeof(s), NULL, 10 * SEC);

		if (rc != 0)
			fail_msg("take %u: %s", i, sdds_strerror(rc));
		if (get_seq(s) != i)
			fail_msg("sample %u arrived as %u", i, get_seq(s));
	}
	join_within(th, 10000);
	assert_int_equal(st.rc, 0);
	assert_int_equal(sdds_reader_lost(r), 0);
	sdds_client_free(a);
	if (b != a)
		sdds_client_free(b);
}

static void test_reliable_stream(void **state)
{
	reliable_stream(*state, false, 20000);
}

/*
 * Writer and reliable reader in one client: the reader's kicks (room made)
 * reach the session whose request ring the writer fills, also while that
 * session sleeps with an empty ring. The daemon must stay armed for data.
 */
static void test_reliable_stream_one_client(void **state)
{
	reliable_stream(*state, true, 100000);
}

/*
 * sdds_reader_take_many: a reliable stream through a ring of 4 (the daemon
 * waits for room all the time, so every batch's one wake-up check must
 * kick it), taken in batches of up to 16 into a buffer with a stride larger
 * than the sample: every sample arrives once, in order, in its place.
 */
static void test_take_many_stream(void **state)
{
	struct daemon *d = *state;
	enum { STRIDE = SAMPLE + 8, MAX = 16 };
	sdds_client *a = client(d, "pub"), *b = client(d, "sub");
	sdds_topic *ta = topic(a, 12), *tb = topic(b, 12);
	sdds_reader *r = reader(tb, SDDS_RELIABLE, 4);
	struct stream st = {.w = writer(ta, SDDS_RELIABLE, 5000), .n = 20000};
	uint8_t buf[STRIDE * MAX];
	uint32_t next = 0, batches = 0;
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, stream_writer_main, &st), 0);
	while (next < st.n) {
		size_t n = 0;
		int rc;

		memset(buf, 0xee, sizeof(buf));
		rc = sdds_reader_take_many(r, buf, STRIDE, MAX, &n, 10 * SEC);
		if (rc != 0)
			fail_msg("take_many after %u: %s", next, sdds_strerror(rc));
		assert_true(n >= 1 && n <= MAX);
		for (size_t i = 0; i < n; i++, next++) {
			if (get_seq(buf + i * STRIDE) != next)
				fail_msg("sample %u arrived as %u", next, get_seq(buf + i * STRIDE));
			/* The bytes between samples are the caller's: untouched. */
			assert_int_equal(buf[i * STRIDE + SAMPLE], 0xee);
		}
		/* Nothing beyond the n samples was written. */
		if (n < MAX)
			assert_int_equal(buf[n * STRIDE], 0xee);
		batches++;
	}
	join_within(th, 10000);
	assert_int_equal(st.rc, 0);
	assert_int_equal(sdds_reader_lost(r), 0);
	/* Some call took more than one sample (the ring holds 4 and the writer keeps it full). */
	assert_true(batches < st.n);
	sdds_client_free(a);
	sdds_client_free(b);
}

/*
 * sdds_reader_take_many's arguments and its partial batches: it takes what
 * is there (never waiting for more than the first), and waits, times out
 * or gives -EAGAIN like sdds_reader_take.
 */
static void test_take_many_partial(void **state)
{
	struct daemon *d = *state;
	sdds_client *c = client(d, "one");
	sdds_topic *t = topic(c, 13);
	sdds_reader *r = reader(t, SDDS_RELIABLE, 16);
	sdds_writer *w = writer(t, SDDS_RELIABLE, 1000);
	uint8_t s[SAMPLE], buf[SAMPLE * 8];
	size_t n = 99;
	int64_t t0;

	assert_int_equal(sdds_reader_take_many(r, buf, SAMPLE, 0, &n, 0), -EINVAL);
	assert_int_equal(sdds_reader_take_many(r, buf, SAMPLE - 1, 8, &n, 0), -EINVAL);
	assert_int_equal(sdds_reader_take_many(r, buf, SAMPLE, 8, NULL, 0), -EINVAL);
	assert_int_equal(sdds_reader_take_many(r, NULL, SAMPLE, 8, &n, 0), -EINVAL);
	assert_int_equal(sdds_reader_take_many(NULL, buf, SAMPLE, 8, &n, 0), -EINVAL);
	assert_int_equal(sdds_reader_take_many(r, buf, SIZE_MAX / 2, 8, &n, 0), -EINVAL);
	assert_int_equal(sdds_reader_take_many(r, buf, SAMPLE, 8, &n, 0), -EAGAIN);
	t0 = now_ns();
	assert_int_equal(sdds_reader_take_many(r, buf, SAMPLE, 8, &n, 50 * 1000 * 1000LL), -ETIMEDOUT);
	assert_true(now_ns() - t0 >= 40 * 1000 * 1000LL);
	assert_int_equal(n, 99); /* written only on success */

	for (uint32_t i = 0; i < 5; i++) {
		put_seq(s, i);
		assert_int_equal(sdds_writer_write(w, s, SAMPLE), 0);
	}
	/* Batches of at most 3 hold what has arrived, in order, until all five are in. */
	for (uint32_t next = 0; next < 5;) {
		assert_int_equal(sdds_reader_take_many(r, buf, SAMPLE, 3, &n, 2 * SEC), 0);
		assert_true(n >= 1 && n <= 3 && next + n <= 5);
		for (uint32_t i = 0; i < n; i++, next++)
			assert_int_equal(get_seq(buf + i * SAMPLE), next);
	}
	assert_int_equal(sdds_reader_take_many(r, buf, SAMPLE, 8, &n, 0), -EAGAIN);
	/* sdds_reader_take and take_many share the position. */
	put_seq(s, 5);
	assert_int_equal(sdds_writer_write(w, s, SAMPLE), 0);
	put_seq(s, 6);
	assert_int_equal(sdds_writer_write(w, s, SAMPLE), 0);
	assert_int_equal(sdds_reader_take(r, s, sizeof(s), NULL, 2 * SEC), 0);
	assert_int_equal(get_seq(s), 5);
	assert_int_equal(sdds_reader_take_many(r, buf, SAMPLE, 8, &n, 2 * SEC), 0);
	assert_int_equal(n, 1);
	assert_int_equal(get_seq(buf), 6);
	sdds_client_free(c);
}

/*
 * A reader's kick ("I made room") reaches the daemon while the reader's own
 * session sleeps with an empty request ring. Afterwards that session must
 * still be woken by its next write. Deterministic: C1 idles (the daemon
 * sleeps on its ring), C2's reliable write stalls on C1's full reader, C1's
 * take kicks, then C1 writes.
 */
static void test_room_kick_then_write(void **state)
{
	struct daemon *d = *state;
	sdds_client *c1 = client(d, "c1"), *c2 = client(d, "c2");
	sdds_topic *t1a = topic(c1, 10), *t2a = topic(c1, 11);
	sdds_topic *t1b = topic(c2, 10), *t2b = topic(c2, 11);
	sdds_writer *w1 = writer(t1a, SDDS_BEST_EFFORT, 100);
	sdds_reader *r2 = reader(t2a, SDDS_RELIABLE, 1);
	sdds_writer *w2 = writer(t2b, SDDS_RELIABLE, 5000);
	sdds_reader *r1 = reader(t1b, SDDS_BEST_EFFORT, 8);
	uint8_t s[SAMPLE];

	put_seq(s, 1);
	assert_int_equal(sdds_writer_write(w2, s, SAMPLE), 0);
	assert_int_equal(sdds_reader_take(r2, s, sizeof(s), NULL, 2 * SEC), 0);
	/* sddsd gives depth 1 two slots: 2 and 3 fill them, 4 stalls on r2. */
	for (uint32_t i = 2; i <= 4; i++) {
		put_seq(s, i);
		assert_int_equal(sdds_writer_write(w2, s, SAMPLE), 0);
	}
	sleep_ms(100); /* both sessions go to sleep */
	for (uint32_t i = 2; i <= 4; i++) {
		assert_int_equal(sdds_reader_take(r2, s, sizeof(s), NULL, 2 * SEC), 0);
		assert_int_equal(get_seq(s), i);
	}
	sleep_ms(100);
	put_seq(s, 4);
	assert_int_equal(sdds_writer_write(w1, s, SAMPLE), 0);
	assert_int_equal(sdds_reader_take(r1, s, sizeof(s), NULL, 2 * SEC), 0);
	assert_int_equal(get_seq(s), 4);
	sdds_client_free(c1);
	sdds_client_free(c2);
}

struct counter {
	int calls;
	int taken;
	int wrong;
	pthread_t main;
};

static void count_fn(sdds_reader *r, void *arg)
{
	struct counter *c = arg;
	uint8_t s[SAMPLE];

	if (pthread_equal(pthread_self(), c->main))
		__atomic_add_fetch(&c->wrong, 1, __ATOMIC_SEQ_CST);
	if (sdds_reader_take(r, s, sizeof(s), NULL, 0) == 0)
		__atomic_add_fetch(&c->taken, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&c->calls, 1, __ATOMIC_SEQ_CST);
}

static void test_listener_through_daemon(void **state)
{
	struct daemon *d = *state;
	sdds_client *a = client(d, "pub"), *b = client(d, "sub");
	sdds_topic *ta = topic(a, 4), *tb = topic(b, 4);
	sdds_reader *r = reader(tb, SDDS_RELIABLE, 16);
	sdds_writer *w = writer(ta, SDDS_RELIABLE, 3000);
	struct counter cnt = {.main = pthread_self()};
	uint8_t s[SAMPLE];
	const int n = 500;

	assert_int_equal(sdds_reader_set_listener(r, count_fn, &cnt), 0);
	for (int i = 0; i < n; i++) {
		put_seq(s, (uint32_t)i);
		assert_int_equal(sdds_writer_write(w, s, SAMPLE), 0);
	}
	for (int i = 0; i < 5000 && __atomic_load_n(&cnt.taken, __ATOMIC_SEQ_CST) < n; i++)
		sleep_ms(1);
	assert_int_equal(__atomic_load_n(&cnt.taken, __ATOMIC_SEQ_CST), n);
	assert_int_equal(__atomic_load_n(&cnt.calls, __ATOMIC_SEQ_CST), n);
	assert_int_equal(cnt.wrong, 0);
	assert_int_equal(sdds_reader_set_listener(r, NULL, NULL), 0);
	sdds_client_free(a);
	sdds_client_free(b);
}

/* ---------------- daemon death ---------------- */

struct blocked_take {
	sdds_reader *r;
	int rc;
};

static void *blocked_take_main(void *arg)
{
	struct blocked_take *bt = arg;
	uint8_t s[SAMPLE];

	bt->rc = sdds_reader_take(bt->r, s, sizeof(s), NULL, -1);
	return NULL;
}

static void test_daemon_killed(void **state)
{
	struct daemon *d = *state;
	sdds_client *c = client(d, "victim");
	sdds_topic *t = topic(c, 5), *t2 = NULL;
	sdds_reader *r = reader(t, SDDS_BEST_EFFORT, 8), *r2 = NULL;
	sdds_writer *w = writer(t, SDDS_BEST_EFFORT, 100), *w2 = NULL;
	struct blocked_take bt = {.r = r, .rc = 1};
	struct counter cnt = {.main = pthread_self()};
	uint8_t s[SAMPLE] = {0};
	pthread_t th;
	int64_t t0;

	assert_int_equal(sdds_reader_set_listener(r, count_fn, &cnt), 0);
	/* Let the listener take part: it takes, the blocked take waits on. */
	assert_int_equal(pthread_create(&th, NULL, blocked_take_main, &bt), 0);
	sleep_ms(50);
	t0 = now_ns();
	daemon_kill(d);
	join_within(th, 5000);
	assert_int_equal(bt.rc, -ENOTCONN);
	assert_true(now_ns() - t0 < 3 * SEC);

	assert_false(sdds_client_connected(c));
	assert_int_equal(sdds_writer_write(w, s, SAMPLE), -ENOTCONN);
	assert_int_equal(sdds_reader_take(r, s, sizeof(s), NULL, 0), -ENOTCONN);
	assert_int_equal(sdds_reader_take(r, s, sizeof(s), NULL, SEC), -ENOTCONN);
	assert_int_equal(sdds_topic_new(c, &(sdds_topic_desc){.name = "x", .id = 9, .sample_size = 4}, &t2),
			 -ENOTCONN);
	assert_int_equal(sdds_writer_new(t, NULL, &w2), -ENOTCONN);
	assert_int_equal(sdds_reader_new(t, NULL, &r2), -ENOTCONN);
	assert_int_equal(sdds_reader_set_listener(r, count_fn, &cnt), -ENOTCONN);
	assert_null(t2);
	assert_null(w2);
	assert_null(r2);
	/* Removing a listener and freeing objects still work. */
	assert_int_equal(sdds_reader_set_listener(r, NULL, NULL), 0);
	sdds_writer_free(w);
	sdds_client_free(c); /* with the reader and topic still alive */
}

struct flood {
	sdds_writer *w;
	uint32_t written; /* atomic */
	int rc;		  /* atomic */
};

static void *flood_main(void *arg)
{
	struct flood *f = arg;
	uint8_t s[SAMPLE] = {0};
	int rc;

	for (;;) {
		rc = sdds_writer_write(f->w, s, SAMPLE);
		if (rc != 0) {
			__atomic_store_n(&f->rc, rc, __ATOMIC_SEQ_CST);
			return NULL;
		}
		__atomic_add_fetch(&f->written, 1, __ATOMIC_SEQ_CST);
	}
}

static void test_daemon_killed_while_writer_blocked(void **state)
{
	struct daemon *d = *state;
	sdds_client *a = client(d, "flood"), *b = client(d, "stuck");
	sdds_topic *ta = topic(a, 6), *tb = topic(b, 6);
	/* A full reliable reader that never takes holds the writer's requests. */
	sdds_reader *r = reader(tb, SDDS_RELIABLE, 1);
	struct flood f = {.w = writer(ta, SDDS_RELIABLE, 60000), .rc = 0};
	uint32_t before;
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, flood_main, &f), 0);
	/* Wait until the writer stops making progress: it sleeps on a full ring. */
	do {
		before = __atomic_load_n(&f.written, __ATOMIC_SEQ_CST);
		sleep_ms(200);
	} while (__atomic_load_n(&f.written, __ATOMIC_SEQ_CST) != before &&
		 __atomic_load_n(&f.rc, __ATOMIC_SEQ_CST) == 0);
	assert_int_equal(__atomic_load_n(&f.rc, __ATOMIC_SEQ_CST), 0);
	assert_true(__atomic_load_n(&f.written, __ATOMIC_SEQ_CST) > 1);

	daemon_kill(d);
	join_within(th, 5000);
	assert_int_equal(f.rc, -ENOTCONN);
	(void)r;
	sdds_client_free(b);
	sdds_client_free(a);
}

static void test_free_in_every_state(void **state)
{
	struct daemon *d = *state;
	sdds_client *c;
	sdds_topic *t;
	sdds_reader *r;
	struct counter cnt = {.main = pthread_self()};

	/* Right after connecting. */
	sdds_client_free(client(d, "bare"));

	/* With objects and a listener, daemon alive. */
	c = client(d, "full");
	t = topic(c, 7);
	r = reader(t, SDDS_RELIABLE, 4);
	(void)writer(t, SDDS_RELIABLE, 100);
	assert_int_equal(sdds_reader_set_listener(r, count_fn, &cnt), 0);
	sdds_client_free(c);

	/* With objects, a listener thread and a dead daemon. */
	c = client(d, "orphan");
	t = topic(c, 7);
	r = reader(t, SDDS_BEST_EFFORT, 4);
	(void)writer(t, SDDS_BEST_EFFORT, 100);
	assert_int_equal(sdds_reader_set_listener(r, count_fn, &cnt), 0);
	daemon_kill(d);
	for (int i = 0; i < 3000 && sdds_client_connected(c); i++)
		sleep_ms(1);
	assert_false(sdds_client_connected(c));
	sdds_client_free(c);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_connect, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_connect_handed_in_fd, setup, teardown),
	    cmocka_unit_test(test_connect_no_daemon),
	    cmocka_unit_test_setup_teardown(test_write_take_two_clients, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_topic_conflict, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_take_two_processes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_free_delivers_held_samples, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reliable_stream, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reliable_stream, setup_poll, teardown),
	    cmocka_unit_test_setup_teardown(test_yield_spin_same_cpu, setup_poll, teardown),
	    cmocka_unit_test_setup_teardown(test_reliable_stream_one_client, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_room_kick_then_write, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_take_many_stream, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_take_many_stream, setup_poll, teardown),
	    cmocka_unit_test_setup_teardown(test_take_many_partial, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_listener_through_daemon, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_daemon_killed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_daemon_killed_while_writer_blocked, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_free_in_every_state, setup, teardown),
	};

	self_path = argv[0];
	/* A writer process of a test (childproc_spawn): its role, the socket. */
	if (argc == 4 && strcmp(argv[1], "--child") == 0) {
		signal(SIGPIPE, SIG_DFL);
		if (strcmp(argv[2], "stream") == 0)
			return writer_child(argv[3], false, 3, CHILD_STREAM_N, 5000);
		if (strcmp(argv[2], "yield-stream") == 0) {
			alarm(60);
			return writer_child(argv[3], true, 5, CHILD_YIELD_N, 10000);
		}
		if (strcmp(argv[2], "held") == 0)
			return writer_child(argv[3], false, 12, CHILD_HELD_N, 5000);
		fprintf(stderr, "unknown child role %s\n", argv[2]);
		return 2;
	}
	sddsd_path = getenv("SDDSD");
	if (!sddsd_path || access(sddsd_path, X_OK) != 0) {
		fprintf(stderr, "no sddsd binary (SDDSD=%s): skipped\n", sddsd_path ? sddsd_path : "");
		return 77;
	}
	unsetenv("SDDS_MONOLITHIC");
	/* SIGPIPE stays fatal: the library must never raise it, even with the daemon dead. */
	signal(SIGPIPE, SIG_DFL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
