/* SPDX-License-Identifier: MIT */
/*
 * test_client_restart.c - libsddsclient across sddsd restarts: a real
 * daemon ($SDDSD) on a socket path in a temporary directory is killed with
 * SIGKILL and started again on the same path (it replaces the stale socket
 * file). Skips (77) when $SDDSD names no executable.
 *
 * Covers: a writer and a reader in two processes keep exchanging after a
 * restart; every call during the gap returns promptly with the documented
 * code; blocked calls return -ENOTCONN; reconnect_wait carries a blocked
 * take over to the new connection and bounds a write by max_blocking_ms;
 * the reconnect counter and the session id; listeners fire again; the dcps
 * runtime's handles stay valid; freeing during backoff is prompt; the old
 * segment is unmapped and its fds closed; a handed-in fd does not
 * reconnect by default; a sandbox's renewal channel ($SDDS_CTL_RENEW_FD)
 * brings a socket-less client back; an attempt the new daemon refuses part
 * of is retried until it can complete; freeing cuts a stuck attempt short;
 * a writer thread writing back to back across three restarts sees only 0
 * and -ENOTCONN and its samples reach a reader of the same process again
 * after each; a client process spawned while the test's own clients run
 * starts clean.
 * Every wait is bounded.
 *
 * Client processes other than the test's own are this program run again
 * with a role (childproc.h: fork, then exec at once): this process runs
 * threads, and a forked copy that went on to create a client could hang in
 * its monitor thread's start. test_child_starts_clean checks that a child
 * holds nothing of its parent's clients.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
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

#include "sdds/dcps.h"
#include "sdds/sdds.h"

#include "childproc.h"

#define SAMPLE 16
#define MS (1000 * 1000LL)
#define SEC (1000 * MS)

static const char *sddsd_path;
static const char *self_path; /* argv[0]: childproc_spawn runs it again */

struct daemon {
	pid_t pid;
	char dir[64];
	char sock[100]; /* fits sun_path */
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

/*
 * Start sddsd on d->sock (the directory exists), with a config file of
 * config_text unless NULL; wait until it listens.
 */
static void daemon_run_config(struct daemon *d, const char *config_text)
{
	char conf[128];
	int fd;

	if (config_text) {
		FILE *f;

		snprintf(conf, sizeof(conf), "%s/sddsd.conf", d->dir);
		f = fopen(conf, "w");
		assert_non_null(f);
		fputs(config_text, f);
		fclose(f);
	}

	d->pid = fork();
	assert_true(d->pid >= 0);
	if (d->pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0 && !getenv("SDDS_TEST_VERBOSE")) {
			dup2(null, 1);
			dup2(null, 2);
		}
		if (config_text)
			execl(sddsd_path, sddsd_path, "--socket", d->sock, "-c", conf, (char *)NULL);
		else
			execl(sddsd_path, sddsd_path, "--socket", d->sock, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 1000; i++) {
		int st;

		fd = try_connect(d->sock);
		if (fd >= 0) {
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

static void daemon_run(struct daemon *d)
{
	daemon_run_config(d, NULL);
}

static void daemon_kill(struct daemon *d)
{
	if (d->pid > 0) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, NULL, 0);
		d->pid = 0;
	}
}

static int setup(void **state)
{
	struct daemon *d = calloc(1, sizeof(*d));

	snprintf(d->dir, sizeof(d->dir), "/tmp/sdds-restart-test.XXXXXX");
	assert_non_null(mkdtemp(d->dir));
	snprintf(d->sock, sizeof(d->sock), "%s/sddsd.sock", d->dir);
	daemon_run(d);
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct daemon *d = *state;
	char path[128];

	daemon_kill(d);
	unlink(d->sock);
	snprintf(path, sizeof(path), "%s/sddsd.conf", d->dir);
	unlink(path);
	rmdir(d->dir);
	free(d);
	return 0;
}

static sdds_client *client_opts(struct daemon *d, const char *name, bool wait)
{
	sdds_client_options o;
	sdds_client *c = NULL;

	sdds_client_options_init(&o);
	o.socket_path = d->sock;
	o.name = name;
	o.reconnect_wait = wait;
	o.reconnect_max_ms = 100; /* keep the tests quick */
	assert_int_equal(sdds_client_new(&o, &c), 0);
	return c;
}

static sdds_client *client(struct daemon *d, const char *name)
{
	return client_opts(d, name, false);
}

static sdds_topic *topic(sdds_client *c, uint16_t id)
{
	static const sdds_field f[] = {{"seq", SDDS_FIELD_ULONG, 4}, {"pad", SDDS_FIELD_STRING, 12}};
	sdds_topic_desc desc = {
	    .name = "rt", .domain = 0, .id = id, .sample_size = SAMPLE, .fields = f, .n_fields = 2};
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

/* Wait until the client is connected after `n` reconnections (bounded). */
static void wait_reconnected(sdds_client *c, uint64_t n, int ms)
{
	int64_t end = now_ns() + ms * MS;

	while (!(sdds_client_connected(c) && sdds_client_reconnects(c) >= n)) {
		if (now_ns() > end)
			fail_msg("not reconnected within %d ms (connected %d, reconnects %llu)", ms,
				 sdds_client_connected(c), (unsigned long long)sdds_client_reconnects(c));
		sleep_ms(2);
	}
	assert_int_equal(sdds_client_reconnects(c), n);
}

static void wait_disconnected(sdds_client *c, int ms)
{
	int64_t end = now_ns() + ms * MS;

	while (sdds_client_connected(c)) {
		if (now_ns() > end)
			fail_msg("still connected %d ms after the kill", ms);
		sleep_ms(1);
	}
}

/* Mappings of memfds (the daemon's segments) and open fds of this process. */
static int memfd_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/memfd:sddsd-session"))
			n++;
	fclose(f);
	return n;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the DIR's own */
}

/* ---------------- child processes (childproc.h) ---------------- */

/*
 * Role "probe": what the child holds of its parent, then one client
 * created and freed (sdds_client_free joins the monitor thread). Exit 0, or
 * 10 + what went wrong.
 */
static int probe_child(const char *sock)
{
	sdds_client_options o;
	sdds_client *c;
	int threads = 0;
	DIR *dir;
	struct dirent *e;

	/* Only this thread: nothing of the parent's monitors or their locks. */
	dir = opendir("/proc/self/task");
	if (!dir)
		return 10;
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.')
			threads++;
	closedir(dir);
	if (threads != 1) {
		fprintf(stderr, "probe child: %d threads at start\n", threads);
		return 11;
	}
	/* Neither the parent's segments nor their descriptors. */
	if (memfd_maps() != 0) {
		fprintf(stderr, "probe child: a segment of the parent is mapped\n");
		return 12;
	}
	sdds_client_options_init(&o);
	o.socket_path = sock;
	o.name = "probe";
	if (sdds_client_new(&o, &c) != 0)
		return 13;
	if (memfd_maps() != 1) {
		fprintf(stderr, "probe child: %d segments mapped, wanted its own only\n", memfd_maps());
		return 14;
	}
	sdds_client_free(c);
	return 0;
}

/*
 * A child spawned while the parent has clients, one of them just created
 * (its monitor thread starting as the parent forks, as in
 * test_two_processes_keep_exchanging) starts clean: one thread, no segment
 * of the parent, and a client of its own that comes up and goes away.
 */
static void test_child_starts_clean(void **state)
{
	struct daemon *d = *state;
	sdds_client *a = client(d, "parent-a"), *b;
	sdds_topic *t = topic(a, 30);
	sdds_reader *r = reader(t, SDDS_RELIABLE, 8);
	pid_t pid;

	(void)r;
	for (int i = 0; i < 8; i++) {
		b = client(d, "parent-b");
		pid = childproc_spawn(self_path, "probe", d->sock, -1);
		assert_true(pid > 0);
		sdds_client_free(b);
		assert_int_equal(childproc_wait(pid, 10000), 0);
	}
	sdds_client_free(a);
}

/* ---------------- two processes across a restart ---------------- */

/*
 * Role "writer": the child writes reliable samples until stop_fd (its
 * stdin, a pipe) closes, riding out the gap on -ENOTCONN; exit status 0
 * when it saw exactly one reconnection and no error other than -ENOTCONN.
 */
static int writer_child(const char *sock, int stop_fd)
{
	sdds_client_options o;
	sdds_client *c;
	sdds_topic *t;
	sdds_writer *w;
	sdds_qos q;
	uint8_t s[SAMPLE];
	uint32_t seq = 0;
	char b;
	static const sdds_field f[] = {{"seq", SDDS_FIELD_ULONG, 4}, {"pad", SDDS_FIELD_STRING, 12}};
	sdds_topic_desc desc = {
	    .name = "rt", .domain = 0, .id = 1, .sample_size = SAMPLE, .fields = f, .n_fields = 2};

	sdds_client_options_init(&o);
	o.socket_path = sock;
	o.reconnect_max_ms = 100;
	if (sdds_client_new(&o, &c) || sdds_topic_new(c, &desc, &t))
		return 2;
	sdds_qos_init(&q);
	q.reliability = SDDS_RELIABLE;
	q.max_blocking_ms = 2000;
	if (sdds_writer_new(t, &q, &w))
		return 3;
	(void)fcntl(stop_fd, F_SETFL, O_NONBLOCK);
	for (;;) {
		int rc;

		if (read(stop_fd, &b, 1) == 0)
			break;
		put_seq(s, seq);
		rc = sdds_writer_write(w, s, SAMPLE);
		if (rc == 0)
			seq++;
		else if (rc == -ENOTCONN)
			sleep_ms(1);
		else if (rc == -ETIMEDOUT && read(stop_fd, &b, 1) == 0)
			break; /* the reader stopped taking: the test is over */
		else {
			fprintf(stderr, "writer child: write %u: %s\n", seq, sdds_strerror(rc));
			return 4;
		}
		if (seq % 64 == 0)
			sleep_ms(1); /* a steady stream, not a flood */
	}
	if (sdds_client_reconnects(c) != 1)
		return 5;
	sdds_client_free(c);
	return 0;
}

static void test_two_processes_keep_exchanging(void **state)
{
	struct daemon *d = *state;
	sdds_client *b = client(d, "sub");
	sdds_topic *t = topic(b, 1);
	sdds_reader *r = reader(t, SDDS_RELIABLE, 64);
	uint32_t last = 0, before, after_first = 0;
	uint8_t s[SAMPLE];
	int pfd[2], rc;
	uint32_t session;
	pid_t pid;
	bool got_after = false;
	int64_t end;

	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0); /* the daemons must not hold it */
	pid = childproc_spawn(self_path, "writer", d->sock, pfd[0]);
	assert_true(pid > 0);
	close(pfd[0]);

	/* In order and complete before the restart. */
	for (uint32_t i = 0; i < 2000; i++) {
		rc = sdds_reader_take(r, s, sizeof(s), NULL, 10 * SEC);
		if (rc != 0)
			fail_msg("take %u: %s", i, sdds_strerror(rc));
		assert_int_equal(get_seq(s), i);
		last = i;
	}
	before = last;
	session = sdds_client_session_id(b);
	daemon_kill(d);
	wait_disconnected(b, 2000);
	daemon_run(d);
	wait_reconnected(b, 1, 10000);
	assert_int_not_equal(sdds_client_session_id(b), 0);
	(void)session; /* a new daemon may hand out the same id: not checked */

	/* Samples flow again, newer than the last one before the kill, in order. */
	end = now_ns() + 10 * SEC;
	while (now_ns() < end) {
		rc = sdds_reader_take(r, s, sizeof(s), NULL, 100 * MS);
		if (rc == -ETIMEDOUT || rc == -ENOTCONN)
			continue;
		assert_int_equal(rc, 0);
		if (!got_after) {
			got_after = true;
			after_first = get_seq(s);
			assert_true(after_first > before);
		} else {
			assert_int_equal(get_seq(s), last + 1);
		}
		last = get_seq(s);
		if (last >= after_first + 2000)
			break;
	}
	assert_true(got_after);
	assert_true(last >= after_first + 2000);
	fprintf(stderr, "# restart: last before %u, first after %u (gap %u samples)\n", before, after_first,
		after_first - before - 1);

	close(pfd[1]);
	assert_int_equal(sdds_reader_lost(r), 0);
	/*
	 * Free the reader first: with it full, the daemon would hold each of
	 * the writer's records up to its max_blocking_ms, and the child's free
	 * (which lingers until the daemon consumed its ring, up to 5 s, then
	 * deletes the writer) would take that long.
	 */
	sdds_client_free(b);
	assert_int_equal(childproc_wait(pid, 30000), 0);
}

/* ---------------- one process, writer and reader threads ---------------- */

#define HAMMER_RESTARTS 3

struct hammer {
	sdds_writer *w;
	sdds_reader *r;
	int stop_w;	  /* atomic: the writer thread returns */
	int stop_r;	  /* atomic: the reader thread returns */
	int bad_rc;	  /* the writer's first result other than 0 / -ENOTCONN */
	int take_rc;	  /* the reader's first result other than 0 / -ETIMEDOUT / -ENOTCONN */
	uint32_t taken;	  /* atomic: samples taken */
	uint32_t last;	  /* atomic: the last sample taken */
	uint32_t gaps;	  /* a sample that does not follow the one before */
	uint32_t reorder; /* a sample not newer than the one before */
};

/* Writes back to back (no pause); a write inside the gap sleeps 1 ms. */
static void *hammer_write_main(void *arg)
{
	struct hammer *h = arg;
	uint8_t s[SAMPLE];
	uint32_t seq = 1;

	while (!__atomic_load_n(&h->stop_w, __ATOMIC_SEQ_CST)) {
		int rc;

		put_seq(s, seq);
		rc = sdds_writer_write(h->w, s, SAMPLE);
		if (rc == 0) {
			seq++;
		} else if (rc == -ENOTCONN) {
			sleep_ms(1);
		} else {
			h->bad_rc = rc;
			break;
		}
	}
	return NULL;
}

static void *hammer_take_main(void *arg)
{
	struct hammer *h = arg;
	uint8_t s[SAMPLE];
	uint32_t last = 0;

	while (!__atomic_load_n(&h->stop_r, __ATOMIC_SEQ_CST)) {
		int rc = sdds_reader_take(h->r, s, sizeof(s), NULL, 100 * MS);

		if (rc == -ETIMEDOUT || rc == -ENOTCONN)
			continue;
		if (rc != 0) {
			h->take_rc = rc;
			break;
		}
		if (get_seq(s) <= last)
			h->reorder++;
		else if (last != 0 && get_seq(s) != last + 1)
			h->gaps++;
		last = get_seq(s);
		__atomic_store_n(&h->last, last, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&h->taken, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

/* Wait until the reader took a sample newer than `than` plus n (bounded). */
static void hammer_wait_past(struct hammer *h, uint32_t than, uint32_t n, int ms)
{
	int64_t end = now_ns() + ms * MS;

	while (__atomic_load_n(&h->last, __ATOMIC_SEQ_CST) < than + n) {
		if (now_ns() > end)
			fail_msg("the reader got no sample past %u within %d ms (last %u)", than + n, ms,
				 __atomic_load_n(&h->last, __ATOMIC_SEQ_CST));
		sleep_ms(2);
	}
}

/*
 * A writer thread that writes back to back into the request ring while the
 * daemon is killed and started again, three times, and a reader thread of
 * another client of the same process: the writer sees nothing but 0 and
 * -ENOTCONN (never -ETIMEDOUT against a dead daemon, which a write into the
 * old ring after the switch would end in), and after each reconnection its
 * samples reach the reader again, in order, with one gap per restart at
 * most (what was in flight at the kill).
 */
static void test_writer_thread_across_restarts(void **state)
{
	struct daemon *d = *state;
	sdds_client *a = client(d, "hammer-pub"), *b = client(d, "hammer-sub");
	sdds_topic *ta = topic(a, 31), *tb = topic(b, 31);
	struct hammer h = {.r = reader(tb, SDDS_RELIABLE, 64), .w = writer(ta, SDDS_RELIABLE, 5000)};
	pthread_t tw, tr;
	uint32_t before;

	assert_int_equal(pthread_create(&tr, NULL, hammer_take_main, &h), 0);
	assert_int_equal(pthread_create(&tw, NULL, hammer_write_main, &h), 0);
	hammer_wait_past(&h, 0, 1000, 10000);
	for (uint64_t k = 1; k <= HAMMER_RESTARTS; k++) {
		daemon_kill(d);
		wait_disconnected(a, 2000);
		wait_disconnected(b, 2000);
		before = __atomic_load_n(&h.last, __ATOMIC_SEQ_CST);
		daemon_run(d);
		wait_reconnected(a, k, 10000);
		wait_reconnected(b, k, 10000);
		hammer_wait_past(&h, before, 1000, 10000);
	}
	/* The writer first: with the reader gone it would wait for room. */
	__atomic_store_n(&h.stop_w, 1, __ATOMIC_SEQ_CST);
	join_within(tw, 10000);
	__atomic_store_n(&h.stop_r, 1, __ATOMIC_SEQ_CST);
	join_within(tr, 2000);
	if (h.bad_rc != 0)
		fail_msg("write: %s", sdds_strerror(h.bad_rc));
	if (h.take_rc != 0)
		fail_msg("take: %s", sdds_strerror(h.take_rc));
	assert_int_equal(h.reorder, 0);
	assert_true(h.gaps <= HAMMER_RESTARTS);
	assert_int_equal(sdds_reader_lost(h.r), 0);
	sdds_client_free(b);
	sdds_client_free(a);
}

/* ---------------- the gap ---------------- */

struct blocked {
	sdds_reader *r;
	sdds_writer *w;
	int64_t timeout;
	int rc;
	uint32_t seq;
	int64_t t_end;
};

static void *blocked_take_main(void *arg)
{
	struct blocked *bt = arg;
	uint8_t s[SAMPLE];

	int rc = sdds_reader_take(bt->r, s, sizeof(s), NULL, bt->timeout);

	if (rc == 0)
		bt->seq = get_seq(s);
	bt->t_end = now_ns();
	__atomic_store_n(&bt->rc, rc, __ATOMIC_SEQ_CST);
	return NULL;
}

static void *blocked_write_main(void *arg)
{
	struct blocked *bt = arg;
	uint8_t s[SAMPLE] = {0};

	int rc;

	do
		rc = sdds_writer_write(bt->w, s, SAMPLE);
	while (rc == 0);
	bt->t_end = now_ns();
	__atomic_store_n(&bt->rc, rc, __ATOMIC_SEQ_CST);
	return NULL;
}

static int count_calls;

static void count_fn(sdds_reader *r, void *arg)
{
	uint8_t s[SAMPLE];

	(void)arg;
	if (sdds_reader_take(r, s, sizeof(s), NULL, 0) == 0)
		__atomic_add_fetch(&count_calls, 1, __ATOMIC_SEQ_CST);
}

/* Assert that `call` returns `want` within `ms` milliseconds. */
#define PROMPT(want, ms, call)                                                                               \
	do {                                                                                                 \
		int64_t t0_ = now_ns();                                                                      \
		int rc_ = (call);                                                                            \
		int64_t dt_ = now_ns() - t0_;                                                                \
		if (rc_ != (want))                                                                           \
			fail_msg("%s: %d (%s), wanted %d", #call, rc_, sdds_strerror(rc_), (want));          \
		if (dt_ > (ms)*MS)                                                                           \
			fail_msg("%s took %lld ms", #call, (long long)(dt_ / MS));                           \
	} while (0)

static void test_gap_calls_prompt(void **state)
{
	struct daemon *d = *state;
	sdds_client *c = client(d, "gap");
	sdds_topic *t = topic(c, 2), *tf = topic(c, 12), *t2 = NULL;
	sdds_reader *r = reader(t, SDDS_RELIABLE, 4), *r2 = NULL;
	sdds_reader *rf = reader(tf, SDDS_RELIABLE, 1);
	sdds_writer *w = writer(t, SDDS_RELIABLE, 60000), *w2 = NULL;
	struct blocked bt = {.r = r, .timeout = -1, .rc = 1};
	struct blocked bw = {.w = writer(tf, SDDS_RELIABLE, 60000), .rc = 1};
	sdds_topic_desc other = {.name = "x", .id = 9, .sample_size = 4};
	uint8_t s[SAMPLE] = {0};
	pthread_t th_take, th_write;
	int64_t t0;

	/*
	 * A take blocked without timeout on an empty topic, and a writer
	 * blocked on a full reliable reader (rf, never taken from) once the
	 * daemon holds a record and the request ring is full.
	 */
	assert_int_equal(pthread_create(&th_take, NULL, blocked_take_main, &bt), 0);
	assert_int_equal(pthread_create(&th_write, NULL, blocked_write_main, &bw), 0);
	sleep_ms(500);
	assert_int_equal(__atomic_load_n(&bt.rc, __ATOMIC_SEQ_CST), 1);
	assert_int_equal(__atomic_load_n(&bw.rc, __ATOMIC_SEQ_CST), 1);

	t0 = now_ns();
	daemon_kill(d);
	join_within(th_take, 3000);
	join_within(th_write, 3000);
	assert_int_equal(bt.rc, -ENOTCONN);
	assert_int_equal(bw.rc, -ENOTCONN);
	assert_true(bt.t_end - t0 < 2 * SEC);
	assert_true(bw.t_end - t0 < 2 * SEC);
	(void)rf;

	/* Every call during the gap: -ENOTCONN at once (200 ms: a busy 2-core VM, not the call). */
	assert_false(sdds_client_connected(c));
	PROMPT(-ENOTCONN, 200, sdds_writer_write(w, s, SAMPLE));
	PROMPT(-ENOTCONN, 200, sdds_reader_take(r, s, sizeof(s), NULL, 0));
	PROMPT(-ENOTCONN, 200, sdds_reader_take(r, s, sizeof(s), NULL, SEC));
	PROMPT(-ENOTCONN, 200, sdds_reader_take(r, s, sizeof(s), NULL, -1));
	PROMPT(-ENOTCONN, 200, sdds_topic_new(c, &other, &t2));
	PROMPT(-ENOTCONN, 200, sdds_writer_new(t, NULL, &w2));
	PROMPT(-ENOTCONN, 200, sdds_reader_new(t, NULL, &r2));
	PROMPT(-ENOTCONN, 200, sdds_reader_set_listener(r, count_fn, NULL));
	PROMPT(0, 200, sdds_reader_set_listener(r, NULL, NULL));
	assert_null(t2);
	assert_null(w2);
	assert_null(r2);
	assert_int_equal(sdds_client_reconnects(c), 0);

	/* Backoff keeps failing (no daemon); freeing a writer and the client is prompt. */
	sleep_ms(300);
	t0 = now_ns();
	sdds_writer_free(w);
	sdds_client_free(c);
	assert_true(now_ns() - t0 < SEC);
}

/* reconnect_wait: budgets are honoured, and a blocked take carries over. */
static void test_reconnect_wait(void **state)
{
	struct daemon *d = *state;
	sdds_client *c = client_opts(d, "waiter", true), *p = client(d, "pub");
	sdds_topic *t = topic(c, 3), *tp = topic(p, 3);
	sdds_reader *r = reader(t, SDDS_RELIABLE, 16);
	sdds_writer *w = writer(t, SDDS_BEST_EFFORT, 200);
	sdds_writer *wp = writer(tp, SDDS_RELIABLE, 1000);
	struct blocked bt = {.r = r, .timeout = -1, .rc = 1};
	uint8_t s[SAMPLE] = {0};
	pthread_t th;
	int64_t t0, dt;

	daemon_kill(d);
	wait_disconnected(c, 2000);
	wait_disconnected(p, 2000);

	/* A write waits max_blocking_ms (200) for the new connection. */
	t0 = now_ns();
	assert_int_equal(sdds_writer_write(w, s, SAMPLE), -ENOTCONN);
	dt = now_ns() - t0;
	assert_true(dt >= 190 * MS);
	assert_true(dt < 1500 * MS);
	/* A take waits its timeout; timeout 0 does not wait. */
	t0 = now_ns();
	assert_int_equal(sdds_reader_take(r, s, sizeof(s), NULL, 150 * MS), -ENOTCONN);
	dt = now_ns() - t0;
	assert_true(dt >= 140 * MS);
	assert_true(dt < 1500 * MS);
	PROMPT(-ENOTCONN, 200, sdds_reader_take(r, s, sizeof(s), NULL, 0));

	/* A take without timeout, started in the gap, returns a sample of the new connection. */
	assert_int_equal(pthread_create(&th, NULL, blocked_take_main, &bt), 0);
	sleep_ms(100);
	daemon_run(d);
	wait_reconnected(c, 1, 10000);
	wait_reconnected(p, 1, 10000);
	put_seq(s, 77);
	assert_int_equal(sdds_writer_write(wp, s, SAMPLE), 0);
	join_within(th, 5000);
	assert_int_equal(bt.rc, 0);
	assert_int_equal(bt.seq, 77);
	sdds_client_free(p);
	sdds_client_free(c);
}

/* ---------------- counter, listeners, mappings ---------------- */

static void test_listener_and_counter(void **state)
{
	struct daemon *d = *state;
	sdds_client *a = client(d, "pub"), *b = client(d, "sub");
	sdds_topic *ta = topic(a, 4), *tb = topic(b, 4);
	sdds_reader *r = reader(tb, SDDS_RELIABLE, 64);
	sdds_writer *w = writer(ta, SDDS_RELIABLE, 2000);
	int maps_before, fds_before;
	uint8_t s[SAMPLE];

	__atomic_store_n(&count_calls, 0, __ATOMIC_SEQ_CST);
	assert_int_equal(sdds_reader_set_listener(r, count_fn, NULL), 0);
	for (uint32_t i = 0; i < 100; i++) {
		put_seq(s, i);
		assert_int_equal(sdds_writer_write(w, s, SAMPLE), 0);
	}
	for (int i = 0; i < 5000 && __atomic_load_n(&count_calls, __ATOMIC_SEQ_CST) < 100; i++)
		sleep_ms(1);
	assert_int_equal(__atomic_load_n(&count_calls, __ATOMIC_SEQ_CST), 100);
	maps_before = memfd_maps();
	fds_before = open_fds();
	assert_true(maps_before >= 2);

	/* Three restarts: the counter counts each, mappings and fds do not pile up. */
	for (uint64_t k = 1; k <= 3; k++) {
		daemon_kill(d);
		wait_disconnected(a, 2000);
		wait_disconnected(b, 2000);
		/* In the gap the old segments are gone already. */
		for (int i = 0; i < 2000 && memfd_maps() != 0; i++)
			sleep_ms(1);
		assert_int_equal(memfd_maps(), 0);
		daemon_run(d);
		wait_reconnected(a, k, 10000);
		wait_reconnected(b, k, 10000);
		assert_int_equal(memfd_maps(), maps_before);
		assert_int_equal(open_fds(), fds_before);

		__atomic_store_n(&count_calls, 0, __ATOMIC_SEQ_CST);
		for (uint32_t i = 0; i < 100; i++) {
			put_seq(s, i);
			assert_int_equal(sdds_writer_write(w, s, SAMPLE), 0);
		}
		for (int i = 0; i < 5000 && __atomic_load_n(&count_calls, __ATOMIC_SEQ_CST) < 100; i++)
			sleep_ms(1);
		assert_int_equal(__atomic_load_n(&count_calls, __ATOMIC_SEQ_CST), 100);
	}
	assert_int_equal(sdds_reader_set_listener(r, NULL, NULL), 0);
	sdds_client_free(a);
	sdds_client_free(b);
	assert_int_equal(memfd_maps(), 0);
}

/* Objects created and freed between restarts: only the live ones come back. */
static void test_objects_change_between_restarts(void **state)
{
	struct daemon *d = *state;
	sdds_client *a = client(d, "churn");
	sdds_topic *t1 = topic(a, 5), *t2 = topic(a, 6);
	sdds_reader *r1 = reader(t1, SDDS_RELIABLE, 8), *r2 = reader(t2, SDDS_BEST_EFFORT, 8);
	sdds_writer *w1 = writer(t1, SDDS_RELIABLE, 500), *w2 = writer(t2, SDDS_BEST_EFFORT, 500);
	uint8_t s[SAMPLE];

	daemon_kill(d);
	wait_disconnected(a, 2000);
	/* Freed during the gap: not re-created. */
	sdds_reader_free(r2);
	sdds_writer_free(w2);
	sdds_topic_free(t2);
	daemon_run(d);
	wait_reconnected(a, 1, 10000);
	put_seq(s, 5);
	assert_int_equal(sdds_writer_write(w1, s, SAMPLE), 0);
	assert_int_equal(sdds_reader_take(r1, s, sizeof(s), NULL, 5 * SEC), 0);
	assert_int_equal(get_seq(s), 5);
	/* Created on the new connection, then carried over one more restart. */
	t2 = topic(a, 6);
	r2 = reader(t2, SDDS_RELIABLE, 8);
	w2 = writer(t2, SDDS_RELIABLE, 500);
	daemon_kill(d);
	daemon_run(d);
	wait_reconnected(a, 2, 10000);
	put_seq(s, 6);
	assert_int_equal(sdds_writer_write(w2, s, SAMPLE), 0);
	assert_int_equal(sdds_reader_take(r2, s, sizeof(s), NULL, 5 * SEC), 0);
	assert_int_equal(get_seq(s), 6);
	assert_int_equal(sdds_reader_take(r1, s, sizeof(s), NULL, 0), -EAGAIN);
	sdds_topic_free(t1);
	sdds_topic_free(t2);
	sdds_client_free(a);
}

/* A handed-in socket has no path to reconnect through: by default it stays down. */
static void test_handed_in_fd_no_reconnect(void **state)
{
	struct daemon *d = *state;
	sdds_client_options o;
	sdds_client *c = NULL;
	int fd = try_connect(d->sock);

	assert_true(fd >= 0);
	sdds_client_options_init(&o);
	o.ctl_fd = fd;
	o.reconnect_max_ms = 50;
	assert_int_equal(sdds_client_new(&o, &c), 0);
	daemon_kill(d);
	wait_disconnected(c, 2000);
	daemon_run(d);
	sleep_ms(500);
	assert_false(sdds_client_connected(c));
	assert_int_equal(sdds_client_reconnects(c), 0);
	sdds_client_free(c);

	/* Asked to, it reconnects through socket_path. */
	fd = try_connect(d->sock);
	assert_true(fd >= 0);
	o.ctl_fd = fd;
	o.socket_path = d->sock;
	o.reconnect = 1;
	assert_int_equal(sdds_client_new(&o, &c), 0);
	daemon_kill(d);
	wait_disconnected(c, 2000);
	daemon_run(d);
	wait_reconnected(c, 1, 10000);
	sdds_client_free(c);
}

/* ---------------- attempts that cannot complete ---------------- */

/*
 * All or nothing: while the new daemon refuses one of the client's objects
 * (its caps allow this client no reader), every attempt fails and the
 * client stays disconnected; a daemon that accepts them all brings
 * everything back.
 */
static void test_refused_object_retries(void **state)
{
	struct daemon *d = *state;
	sdds_client_options o;
	sdds_client *c;
	sdds_topic *t;
	sdds_reader *r;
	sdds_writer *w;
	uint8_t s[SAMPLE];

	sdds_client_options_init(&o);
	o.socket_path = d->sock;
	o.reconnect_max_ms = 50;
	assert_int_equal(sdds_client_new(&o, &c), 0);
	t = topic(c, 20);
	r = reader(t, SDDS_RELIABLE, 8);
	w = writer(t, SDDS_RELIABLE, 500);
	daemon_kill(d);
	wait_disconnected(c, 2000);
	daemon_run_config(d, "max_readers_per_client = 0\n");
	sleep_ms(1000); /* some 20 attempts, each refused at the reader */
	assert_false(sdds_client_connected(c));
	assert_int_equal(sdds_client_reconnects(c), 0);
	assert_int_equal(sdds_writer_write(w, s, SAMPLE), -ENOTCONN);
	daemon_kill(d);
	daemon_run(d);
	wait_reconnected(c, 1, 10000);
	put_seq(s, 20);
	assert_int_equal(sdds_writer_write(w, s, SAMPLE), 0);
	assert_int_equal(sdds_reader_take(r, s, sizeof(s), NULL, 5 * SEC), 0);
	assert_int_equal(get_seq(s), 20);
	sdds_client_free(c);
}

/*
 * An attempt stuck in Hello (a socket that accepts connections but never
 * answers, as a socket-activated one does while no daemon runs): freeing
 * the client cuts it short.
 */
static void test_free_during_stuck_attempt(void **state)
{
	struct daemon *d = *state;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	sdds_client *c = client(d, "stuck");
	int lfd;
	int64_t t0;

	(void)topic(c, 21);
	daemon_kill(d);
	wait_disconnected(c, 2000);
	unlink(d->sock);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->sock);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 8), 0);
	/* Backoff 5-10 ms, then the attempt connects and waits for a Hello reply. */
	sleep_ms(300);
	assert_false(sdds_client_connected(c));
	t0 = now_ns();
	sdds_client_free(c);
	assert_true(now_ns() - t0 < SEC);
	close(lfd);
	unlink(d->sock);
}

/* ---------------- a sandbox's renewal channel ---------------- */

/*
 * What a sandbox supervisor does on $SDDS_CTL_RENEW_FD: for every request,
 * connect to the daemon and pass the socket back (SCM_RIGHTS); refuse (an
 * answer without an fd) while the daemon is down.
 */
struct renewer {
	int fd;
	const char *sock;
	int served;  /* atomic */
	int refused; /* atomic */
};

static void *renewer_main(void *arg)
{
	struct renewer *rn = arg;
	char buf[64];

	for (;;) {
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(int))];
		} ctrl;
		struct iovec iov = {.iov_base = "k", .iov_len = 1};
		struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
		struct cmsghdr *cm;
		ssize_t n = recv(rn->fd, buf, sizeof(buf), 0);
		int fd;

		if (n <= 0)
			return NULL; /* the test closed the channel */
		if (n != 5 || memcmp(buf, "renew", 5) != 0)
			return NULL;
		fd = try_connect(rn->sock);
		if (fd >= 0) {
			memset(&ctrl, 0, sizeof(ctrl));
			msg.msg_control = ctrl.b;
			msg.msg_controllen = sizeof(ctrl.b);
			cm = CMSG_FIRSTHDR(&msg);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &fd, sizeof(int));
			__atomic_add_fetch(&rn->served, 1, __ATOMIC_SEQ_CST);
		} else {
			__atomic_add_fetch(&rn->refused, 1, __ATOMIC_SEQ_CST);
		}
		(void)sendmsg(rn->fd, &msg, MSG_NOSIGNAL);
		if (fd >= 0)
			close(fd);
	}
}

static void test_renew_channel(void **state)
{
	struct daemon *d = *state;
	struct renewer rn = {.sock = d->sock};
	sdds_client_options o;
	sdds_client *c = NULL, *p;
	sdds_topic *t, *tp;
	sdds_reader *r;
	sdds_writer *w;
	char num[16];
	int sv[2], fd;
	pthread_t th;
	uint8_t s[SAMPLE];

	/* As sdds-sandbox would: a connected socket and a renewal channel in the environment. */
	fd = try_connect(d->sock);
	assert_true(fd >= 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	snprintf(num, sizeof(num), "%d", fd);
	setenv("SDDS_CTL_FD", num, 1);
	snprintf(num, sizeof(num), "%d", sv[1]);
	setenv("SDDS_CTL_RENEW_FD", num, 1);
	rn.fd = sv[0];
	assert_int_equal(pthread_create(&th, NULL, renewer_main, &rn), 0);

	sdds_client_options_init(&o);
	o.socket_path = "/nonexistent/never/used";
	o.reconnect_max_ms = 50;
	assert_int_equal(sdds_client_new(&o, &c), 0);
	assert_null(getenv("SDDS_CTL_FD"));
	assert_null(getenv("SDDS_CTL_RENEW_FD"));
	t = topic(c, 8);
	r = reader(t, SDDS_RELIABLE, 16);
	p = client(d, "plain-pub");
	tp = topic(p, 8);
	w = writer(tp, SDDS_RELIABLE, 1000);

	daemon_kill(d);
	wait_disconnected(c, 2000);
	sleep_ms(200); /* some refused requests while no daemon runs */
	daemon_run(d);
	wait_reconnected(c, 1, 10000);
	wait_reconnected(p, 1, 10000);
	assert_true(__atomic_load_n(&rn.served, __ATOMIC_SEQ_CST) >= 1);
	assert_true(__atomic_load_n(&rn.refused, __ATOMIC_SEQ_CST) >= 1);
	put_seq(s, 88);
	assert_int_equal(sdds_writer_write(w, s, SAMPLE), 0);
	assert_int_equal(sdds_reader_take(r, s, sizeof(s), NULL, 5 * SEC), 0);
	assert_int_equal(get_seq(s), 88);

	/* The supervisor goes away: after the next restart the client stays down, and frees promptly. */
	shutdown(sv[0], SHUT_RDWR);
	join_within(th, 2000);
	close(sv[0]);
	daemon_kill(d);
	wait_disconnected(c, 2000);
	daemon_run(d);
	sleep_ms(300);
	assert_false(sdds_client_connected(c));
	assert_int_equal(sdds_client_reconnects(c), 1);
	sdds_client_free(c);
	sdds_client_free(p);
}

/* ---------------- the sDDS runtime ---------------- */

static void test_dcps_across_restart(void **state)
{
	struct daemon *d = *state;
	static const sdds_field f[] = {{"seq", SDDS_FIELD_ULONG, 4}, {"pad", SDDS_FIELD_STRING, 12}};
	sdds_topic_desc desc = {
	    .name = "dt", .domain = 0, .id = 7, .sample_size = SAMPLE, .fields = f, .n_fields = 2};
	DDS_DataWriter w;
	DDS_DataReader r;
	sdds_topic *t;
	uint8_t s[SAMPLE];
	DDS_ReturnCode_t rc = DDS_RETCODE_ERROR;

	setenv("SDDS_SOCKET", d->sock, 1);
	assert_int_equal(sdds_dcps_init("dcps-restart"), SDDS_RT_OK);
	t = sdds_dcps_topic(&desc);
	assert_non_null(t);
	w = sdds_dcps_writer(t, NULL);
	r = sdds_dcps_reader(t, NULL);
	assert_non_null(w);
	assert_non_null(r);
	put_seq(s, 1);
	assert_int_equal(sdds_dcps_write(w, s, SAMPLE), DDS_RETCODE_OK);
	for (int i = 0; i < 2000 && rc != DDS_RETCODE_OK; i++) {
		rc = sdds_dcps_take(r, s, SAMPLE);
		if (rc != DDS_RETCODE_OK)
			sleep_ms(1);
	}
	assert_int_equal(rc, DDS_RETCODE_OK);
	rc = DDS_RETCODE_ERROR;

	daemon_kill(d);
	wait_disconnected(sdds_dcps_client(), 2000);
	/* The gap: an error, not a crash. */
	assert_int_equal(sdds_dcps_write(w, s, SAMPLE), DDS_RETCODE_ERROR);
	daemon_run(d);
	wait_reconnected(sdds_dcps_client(), 1, 10000);
	/* The same handles work again. */
	put_seq(s, 2);
	assert_int_equal(sdds_dcps_write(w, s, SAMPLE), DDS_RETCODE_OK);
	for (int i = 0; i < 2000 && rc != DDS_RETCODE_OK; i++) {
		rc = sdds_dcps_take(r, s, SAMPLE);
		if (rc != DDS_RETCODE_OK)
			sleep_ms(1);
	}
	assert_int_equal(rc, DDS_RETCODE_OK);
	assert_int_equal(get_seq(s), 2);
	/* The process's client lives until exit, as in sDDS. */
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_child_starts_clean, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_two_processes_keep_exchanging, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_writer_thread_across_restarts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gap_calls_prompt, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reconnect_wait, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_listener_and_counter, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_objects_change_between_restarts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_handed_in_fd_no_reconnect, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_renew_channel, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refused_object_retries, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_free_during_stuck_attempt, setup, teardown),
	    /* Last: its client lives until the process ends. */
	    cmocka_unit_test_setup_teardown(test_dcps_across_restart, setup, teardown),
	};

	self_path = argv[0];
	/* A client process of a test (childproc_spawn): its role, the socket. */
	if (argc == 4 && strcmp(argv[1], "--child") == 0) {
		signal(SIGPIPE, SIG_DFL);
		if (strcmp(argv[2], "writer") == 0)
			return writer_child(argv[3], 0);
		if (strcmp(argv[2], "probe") == 0)
			return probe_child(argv[3]);
		fprintf(stderr, "unknown child role %s\n", argv[2]);
		return 2;
	}
	sddsd_path = getenv("SDDSD");
	if (!sddsd_path || access(sddsd_path, X_OK) != 0) {
		fprintf(stderr, "no sddsd binary (SDDSD=%s): skipped\n", sddsd_path ? sddsd_path : "");
		return 77;
	}
	unsetenv("SDDS_MONOLITHIC");
	unsetenv("SDDS_CTL_FD");
	signal(SIGPIPE, SIG_DFL);
	/* TEST_FILTER=pattern runs only the matching tests (debugging aid). */
	if (getenv("TEST_FILTER") != NULL)
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
