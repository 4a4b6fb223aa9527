/* SPDX-License-Identifier: MIT */
/*
 * test_sddsd.c - the sddsd binary end to end, through raw clients:
 * handshake errors, second Hello, fds on a request, handshake timeout,
 * caps, stats permission, data through the daemon (best effort, reliable
 * stall then max_blocking_ms), unknown and deleted writer ids, polling
 * mode, heartbeat, stale and busy sockets, socket activation, exit codes.
 *
 * Usage: test_sddsd PATH_TO_SDDSD
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "layout.h"
#include "tclient.h"

static const char *sddsd_path;

/* ---------------- helpers ------------------------------------------------- */

static void start(struct tc_daemon *d, const char *const *extra, const char *config)
{
	int rc = tc_daemon_start(d, sddsd_path, extra, config);

	if (rc < 0)
		fail_msg("cannot start sddsd: %s", strerror(-rc));
}

/* Stop the daemon; it must exit 0 (under ASan this also checks for leaks). */
static void stop(struct tc_daemon *d)
{
	int st = tc_daemon_stop(d);

	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("sddsd did not exit cleanly: status 0x%x", st);
}

static Sdds__Ctl__Reply *stats_of(const char *sock)
{
	struct tc_client obs;
	Sdds__Ctl__Reply *rep = NULL;

	assert_int_equal(tc_client_open(&obs, sock, "observer"), 0);
	assert_int_equal(tc_stats(&obs, &rep), 0);
	tc_client_close(&obs);
	return rep;
}

static uint64_t protocol_errors(const char *sock)
{
	Sdds__Ctl__Reply *rep = stats_of(sock);
	uint64_t n = rep->stats->sessions_protocol_errors;

	sdds__ctl__reply__free_unpacked(rep, NULL);
	return n;
}

/* Wait until the daemon counted want protocol errors (it acts asynchronously). */
static void expect_protocol_errors(const char *sock, uint64_t want)
{
	uint64_t n = 0;

	for (int i = 0; i < 200; i++) {
		n = protocol_errors(sock);
		if (n >= want)
			break;
		tc_sleep_ms(10);
	}
	assert_int_equal(n, want);
}

static const Sdds__Ctl__EndpointInfo *find_endpoint(const Sdds__Ctl__Stats *st, uint32_t session, uint32_t id)
{
	for (size_t i = 0; i < st->n_endpoints; i++) {
		if (st->endpoints[i]->session_id == session && st->endpoints[i]->id == id)
			return st->endpoints[i];
	}
	return NULL;
}

static const Sdds__Ctl__ClientInfo *find_client(const Sdds__Ctl__Stats *st, uint32_t session)
{
	for (size_t i = 0; i < st->n_clients; i++) {
		if (st->clients[i]->session_id == session)
			return st->clients[i];
	}
	return NULL;
}

/* Send one request and return its reply (raw socket, no Hello needed). */
static Sdds__Ctl__Reply *raw_call(int fd, Sdds__Ctl__Request *req, const int *fds, size_t n_fds)
{
	Sdds__Ctl__Reply *rep = NULL;
	int got[CTL_MAX_FDS];
	size_t n_got = 0;

	assert_int_equal(ctl_send_request(fd, req, fds, n_fds), 0);
	assert_int_equal(ctl_recv_reply(fd, &rep, got, CTL_MAX_FDS, &n_got), 0);
	for (size_t i = 0; i < n_got; i++)
		close(got[i]);
	return rep;
}

static Sdds__Ctl__Reply *raw_hello(int fd, uint32_t id, uint32_t proto, uint32_t layout)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Hello hello = SDDS__CTL__HELLO__INIT;

	hello.protocol_version = proto;
	hello.layout_version = layout;
	hello.name = "raw";
	req.id = id;
	req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
	req.hello = &hello;
	return raw_call(fd, &req, NULL, 0);
}

/* ---------------- handshake ----------------------------------------------- */

static void test_hello_ok(void **state)
{
	struct tc_daemon d;
	struct tc_client a, b;
	struct sdds_seg_hdr *hdr;
	uint64_t hb0, hb1;

	(void)state;
	start(&d, NULL, NULL);
	assert_int_equal(tc_client_open(&a, d.sock, "a"), 0);
	assert_int_equal(tc_client_open(&b, d.sock, "b"), 0);
	assert_int_not_equal(a.session_id, 0);
	assert_int_not_equal(b.session_id, a.session_id);
	assert_int_not_equal(a.epoch, 0);
	assert_true(a.epoch == b.epoch);
	assert_false(a.polling);
	assert_int_equal(a.max_sample, 4096);
	hdr = segment_hdr(&a.seg);
	assert_int_equal(hdr->session_id, a.session_id);
	assert_true(hdr->epoch == a.epoch);
	assert_int_equal(hdr->flags & SDDS_SEG_F_DAEMON_POLLING, 0);
	/* The heartbeat ticks every 100 ms. */
	hb0 = atomic_load(&hdr->heartbeat);
	tc_sleep_ms(350);
	hb1 = atomic_load(&hdr->heartbeat);
	assert_true(hb1 >= hb0 + 2);
	tc_client_close(&a);
	tc_client_close(&b);
	stop(&d);
}

static void test_hello_wrong_versions(void **state)
{
	struct tc_daemon d;
	Sdds__Ctl__Reply *rep;
	int fd;

	(void)state;
	start(&d, NULL, NULL);
	fd = tc_connect(d.sock);
	assert_true(fd >= 0);
	rep = raw_hello(fd, 41, CTL_PROTOCOL_VERSION + 7, SDDS_LAYOUT_VERSION);
	assert_int_equal(rep->id, 41);
	assert_int_equal(rep->status, -EPROTONOSUPPORT);
	assert_non_null(strstr(rep->reason, "protocol"));
	sdds__ctl__reply__free_unpacked(rep, NULL);
	assert_true(tc_peer_closed(fd, 2000));
	close(fd);

	fd = tc_connect(d.sock);
	assert_true(fd >= 0);
	rep = raw_hello(fd, 42, CTL_PROTOCOL_VERSION, SDDS_LAYOUT_VERSION + 1);
	assert_int_equal(rep->id, 42);
	assert_int_equal(rep->status, -EPROTONOSUPPORT);
	assert_non_null(strstr(rep->reason, "layout"));
	sdds__ctl__reply__free_unpacked(rep, NULL);
	assert_true(tc_peer_closed(fd, 2000));
	close(fd);
	expect_protocol_errors(d.sock, 2);
	stop(&d);
}

static void test_garbage_packet(void **state)
{
	static const uint8_t junk[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x07, 0x07, 0x07};
	struct tc_daemon d;
	Sdds__Ctl__Reply *rep = NULL;
	int fd;

	(void)state;
	start(&d, NULL, NULL);
	fd = tc_connect(d.sock);
	assert_true(fd >= 0);
	assert_int_equal(send(fd, junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
	assert_int_equal(ctl_recv_reply(fd, &rep, NULL, 0, NULL), 0);
	assert_int_equal(rep->status, -EBADMSG);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	assert_true(tc_peer_closed(fd, 2000));
	close(fd);
	expect_protocol_errors(d.sock, 1);
	stop(&d);
}

static void test_first_message_not_hello(void **state)
{
	struct tc_daemon d;
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__StatsQuery sq = SDDS__CTL__STATS_QUERY__INIT;
	Sdds__Ctl__Reply *rep;
	int fd;

	(void)state;
	start(&d, NULL, NULL);
	fd = tc_connect(d.sock);
	assert_true(fd >= 0);
	req.id = 5;
	req.body_case = SDDS__CTL__REQUEST__BODY_STATS;
	req.stats = &sq;
	rep = raw_call(fd, &req, NULL, 0);
	assert_int_equal(rep->id, 5);
	assert_int_equal(rep->status, -EPROTO);
	assert_non_null(strstr(rep->reason, "Hello"));
	sdds__ctl__reply__free_unpacked(rep, NULL);
	assert_true(tc_peer_closed(fd, 2000));
	close(fd);
	expect_protocol_errors(d.sock, 1);
	stop(&d);
}

static void test_second_hello_and_fds(void **state)
{
	struct tc_daemon d;
	struct tc_client c;
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__StatsQuery sq = SDDS__CTL__STATS_QUERY__INIT;
	Sdds__Ctl__Reply *rep;
	int base, fds[2], n = 0;

	(void)state;
	start(&d, NULL, NULL);
	/* Wait for the readiness probe's connection to be gone from the count. */
	tc_sleep_ms(100);
	base = tc_count_fds(d.pid);
	assert_true(base > 0);

	assert_int_equal(tc_client_open(&c, d.sock, "twice"), 0);
	rep = raw_hello(c.fd, 77, CTL_PROTOCOL_VERSION, SDDS_LAYOUT_VERSION);
	assert_int_equal(rep->id, 77);
	assert_int_equal(rep->status, -EPROTO);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	assert_true(tc_peer_closed(c.fd, 2000));
	tc_client_close(&c);

	/* A request carrying descriptors: refused, and the daemon keeps none. */
	assert_int_equal(tc_client_open(&c, d.sock, "fds"), 0);
	assert_int_equal(pipe(fds), 0);
	req.id = 9;
	req.body_case = SDDS__CTL__REQUEST__BODY_STATS;
	req.stats = &sq;
	rep = raw_call(c.fd, &req, fds, 2);
	assert_int_equal(rep->id, 9);
	assert_int_equal(rep->status, -EPROTO);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	assert_true(tc_peer_closed(c.fd, 2000));
	tc_client_close(&c);
	close(fds[0]);
	close(fds[1]);
	expect_protocol_errors(d.sock, 2);
	for (int i = 0; i < 200; i++) {
		n = tc_count_fds(d.pid);
		if (n == base)
			break;
		tc_sleep_ms(10);
	}
	assert_int_equal(n, base);
	stop(&d);
}

static void test_no_hello_timeout(void **state)
{
	struct tc_daemon d;
	int fd;

	(void)state;
	start(&d, NULL, NULL);
	fd = tc_connect(d.sock);
	assert_true(fd >= 0);
	/* Silent for more than the 5 s handshake limit: dropped. */
	assert_false(tc_peer_closed(fd, 3000));
	assert_true(tc_peer_closed(fd, 4000));
	close(fd);
	expect_protocol_errors(d.sock, 1);
	stop(&d);
}

/* ---------------- caps and permissions ------------------------------------ */

static void test_caps(void **state)
{
	struct tc_daemon d;
	struct tc_client c, c2, c3;
	Sdds__Ctl__Reply *rep;
	uint32_t t[3], w[2], r[3], t2;

	(void)state;
	start(&d, NULL,
	      "max_clients = 2\n"
	      "max_topics_per_client = 2\n"
	      "max_writers_per_client = 1\n"
	      "max_readers_per_client = 2\n"
	      "arena_bytes = 64K\n");
	assert_int_equal(tc_client_open(&c, d.sock, "capped"), 0);
	assert_int_equal(tc_register_topic(&c, 1, 1, "a", 8, &t[0]), 0);
	assert_int_equal(tc_register_topic(&c, 1, 2, "b", 8, &t[1]), 0);
	/* Registering a known topic again is not a new one. */
	assert_int_equal(tc_register_topic(&c, 1, 1, "a", 8, &t2), 0);
	assert_int_equal(t2, t[0]);
	assert_int_equal(tc_register_topic(&c, 1, 3, "c", 8, &t[2]), -ENOSPC);

	assert_int_equal(tc_create_writer(&c, t[0], false, 0, &w[0]), 0);
	assert_int_equal(tc_create_writer(&c, t[1], false, 0, &w[1]), -ENOSPC);
	/* Freed: room again, and a different id. */
	assert_int_equal(tc_delete(&c, w[0], false), 0);
	assert_int_equal(tc_delete(&c, w[0], false), -EINVAL);
	assert_int_equal(tc_create_writer(&c, t[1], false, 0, &w[1]), 0);
	assert_int_not_equal(w[1], w[0]);

	/*
	 * Arena of 64 KiB, rings of 8-byte samples: 32-byte slots behind a
	 * 192-byte header, so 1024 slots take 32960 bytes: one fits, two not.
	 */
	assert_int_equal(tc_create_reader(&c, t[0], false, 1024, &r[0], NULL), 0);
	assert_int_equal(tc_create_reader(&c, t[1], false, 1024, &r[1], NULL), -ENOSPC);
	assert_int_equal(tc_create_reader(&c, t[1], false, 2, &r[1], NULL), 0);
	/* Two readers: the per-client cap. */
	assert_int_equal(tc_create_reader(&c, t[1], false, 2, &r[2], NULL), -ENOSPC);
	/* The first ring's range comes back and is reused. */
	assert_int_equal(tc_delete(&c, r[0], true), 0);
	assert_int_equal(tc_create_reader(&c, t[0], false, 1024, &r[0], NULL), 0);
	assert_int_equal(tc_delete(&c, r[0], true), 0);
	assert_int_equal(tc_delete(&c, r[1], true), 0);
	/* Depth is capped at 65536 slots, still far over this arena. */
	assert_int_equal(tc_create_reader(&c, t[1], false, 1u << 20, &r[1], NULL), -ENOSPC);
	/* Unknown handles and ids are plain errors; the client stays. */
	assert_int_equal(tc_create_writer(&c, 99, false, 0, &w[0]), -EINVAL);
	assert_int_equal(tc_delete(&c, 12345, true), -EINVAL);

	/* max_clients = 2: the second is fine, the third is refused. */
	assert_int_equal(tc_client_open(&c2, d.sock, "second"), 0);
	assert_int_equal(tc_client_open(&c3, d.sock, "third"), -ENOSPC);
	tc_client_close(&c2);

	assert_int_equal(tc_stats(&c, &rep), 0);
	{
		const Sdds__Ctl__ClientInfo *ci = find_client(rep->stats, c.session_id);

		assert_non_null(ci);
		assert_int_equal(ci->writers, 1);
		assert_int_equal(ci->readers, 0);
		/* Over caps: topic, writer, arena, reader count, depth; unknown: topic, writer id, reader id.
		 */
		assert_int_equal(ci->counters->rejected, 8);
		assert_string_equal(ci->name, "capped");
		assert_int_equal(ci->pid, getpid());
	}
	/* topic, writer, arena, reader count, depth, the third client. */
	assert_int_equal(rep->stats->sessions_over_limit, 6);
	assert_int_equal(rep->stats->sessions_protocol_errors, 0);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	tc_client_close(&c);
	stop(&d);
}

static void test_topic_conflict(void **state)
{
	struct tc_daemon d;
	struct tc_client a, b;
	uint32_t t;

	(void)state;
	start(&d, NULL, NULL);
	assert_int_equal(tc_client_open(&a, d.sock, "a"), 0);
	assert_int_equal(tc_client_open(&b, d.sock, "b"), 0);
	assert_int_equal(tc_register_topic(&a, 3, 4, "x", 8, &t), 0);
	assert_int_equal(tc_register_topic(&b, 3, 4, "x", 9, &t), -EINVAL);
	assert_int_equal(tc_register_topic(&b, 3, 70000, "x", 8, &t), -EINVAL);
	assert_int_equal(tc_register_topic(&b, 3, 5, "big", 5000, &t), -EMSGSIZE);
	assert_int_equal(tc_register_topic(&b, 3, 4, "x", 8, &t), 0);
	tc_client_close(&a);
	tc_client_close(&b);
	stop(&d);
}

static void test_stats_permission(void **state)
{
	struct tc_daemon d;
	pid_t pid;
	int status;

	(void)state;
	if (geteuid() != 0)
		skip();
	start(&d, NULL, NULL);
	/* Let another uid reach the socket (the socket itself is 0666). */
	assert_int_equal(chmod(d.dir, 0755), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct tc_client c;
		Sdds__Ctl__Reply *rep = NULL;
		uint32_t t;

		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
			_exit(10);
		if (tc_client_open(&c, d.sock, "nobody") < 0)
			_exit(11);
		if (tc_stats(&c, &rep) != -EACCES)
			_exit(12);
		/* Refused, not disconnected. */
		if (tc_register_topic(&c, 1, 1, "t", 4, &t) != 0)
			_exit(13);
		tc_client_close(&c);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	stop(&d);
}

/* ---------------- data ---------------------------------------------------- */

static void test_best_effort_flow(void **state)
{
	struct tc_daemon d;
	struct tc_client pub, sub;
	struct rring_cons ring;
	uint32_t tp, ts, w, r, len;
	uint64_t sample, got;
	uint64_t received = 0, last = 0;
	Sdds__Ctl__Reply *rep;
	const int total = 40;

	(void)state;
	start(&d, NULL, NULL);
	assert_int_equal(tc_client_open(&pub, d.sock, "pub"), 0);
	assert_int_equal(tc_client_open(&sub, d.sock, "sub"), 0);
	assert_int_equal(tc_register_topic(&pub, 0, 7, "seq", 8, &tp), 0);
	assert_int_equal(tc_register_topic(&sub, 0, 7, "seq", 8, &ts), 0);
	assert_int_equal(tc_create_reader(&sub, ts, false, 4, &r, &ring), 0);
	assert_int_equal(tc_create_writer(&pub, tp, false, 0, &w), 0);
	for (int i = 1; i <= total; i++) {
		sample = (uint64_t)i;
		assert_int_equal(tc_write(&pub, w, &sample, sizeof(sample)), 0);
	}
	/* Wait until the daemon routed all of them. */
	for (int i = 0; i < 300; i++) {
		const Sdds__Ctl__EndpointInfo *e;

		rep = stats_of(d.sock);
		e = find_endpoint(rep->stats, pub.session_id, w);
		assert_non_null(e);
		got = e->counters->written;
		sdds__ctl__reply__free_unpacked(rep, NULL);
		if (got == (uint64_t)total)
			break;
		tc_sleep_ms(10);
	}
	assert_int_equal(got, total);
	/* A ring of 4 best-effort slots: the newest survive, in order, and the loss is counted. */
	while (tc_take(&sub, &ring, &sample, sizeof(sample), &len, 0) == 1) {
		assert_int_equal(len, 8);
		assert_true(sample > last);
		last = sample;
		received++;
	}
	assert_int_equal(last, total);
	assert_int_equal(received + ring.lost, total);
	assert_true(received <= 4);

	rep = stats_of(d.sock);
	{
		const Sdds__Ctl__EndpointInfo *e = find_endpoint(rep->stats, sub.session_id, r);

		assert_non_null(e);
		assert_true(e->reader);
		assert_int_equal(e->depth, 4);
		assert_int_equal(e->counters->delivered, total);
		assert_int_equal(e->counters->dropped, total - 4);
	}
	sdds__ctl__reply__free_unpacked(rep, NULL);
	tc_client_close(&pub);
	tc_client_close(&sub);
	stop(&d);
}

static uint64_t reader_counter(const char *sock, uint32_t session, uint32_t id, bool dropped)
{
	Sdds__Ctl__Reply *rep = stats_of(sock);
	const Sdds__Ctl__EndpointInfo *e = find_endpoint(rep->stats, session, id);
	uint64_t v;

	assert_non_null(e);
	v = dropped ? e->counters->dropped : e->counters->delivered;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return v;
}

static void wait_reader_counter(const char *sock, uint32_t session, uint32_t id, bool dropped, uint64_t want)
{
	uint64_t v = 0;

	for (int i = 0; i < 300; i++) {
		v = reader_counter(sock, session, id, dropped);
		if (v >= want)
			break;
		tc_sleep_ms(10);
	}
	assert_int_equal(v, want);
}

static void run_reliable_stall(const char *const *extra)
{
	struct tc_daemon d;
	struct tc_client pub, sub;
	struct rring_cons ring;
	uint32_t tp, ts, w, r, len;
	uint64_t sample;

	start(&d, extra, NULL);
	assert_int_equal(tc_client_open(&pub, d.sock, "pub"), 0);
	assert_int_equal(tc_client_open(&sub, d.sock, "sub"), 0);
	assert_int_equal(tc_register_topic(&pub, 0, 9, "rel", 8, &tp), 0);
	assert_int_equal(tc_register_topic(&sub, 0, 9, "rel", 8, &ts), 0);
	assert_int_equal(tc_create_reader(&sub, ts, true, 2, &r, &ring), 0);
	assert_int_equal(tc_create_writer(&pub, tp, true, 400, &w), 0);
	for (uint64_t i = 1; i <= 4; i++)
		assert_int_equal(tc_write(&pub, w, &i, sizeof(i)), 0);
	/* Two fit; the third waits in the daemon (reliable never overwrites). */
	wait_reader_counter(d.sock, sub.session_id, r, false, 2);
	tc_sleep_ms(50);
	assert_int_equal(reader_counter(d.sock, sub.session_id, r, false), 2);
	/* Taking makes room; the take kicks the daemon, which retries the stall. */
	assert_int_equal(tc_take(&sub, &ring, &sample, sizeof(sample), &len, 1000), 1);
	assert_int_equal(sample, 1);
	wait_reader_counter(d.sock, sub.session_id, r, false, 3);
	/* Sample 4 is stuck behind a full ring until max_blocking_ms: then dropped for this reader. */
	assert_int_equal(reader_counter(d.sock, sub.session_id, r, true), 0);
	wait_reader_counter(d.sock, sub.session_id, r, true, 1);
	assert_int_equal(reader_counter(d.sock, sub.session_id, r, false), 3);
	for (uint64_t want = 2; want <= 3; want++) {
		assert_int_equal(tc_take(&sub, &ring, &sample, sizeof(sample), &len, 1000), 1);
		assert_int_equal(sample, want);
	}
	assert_int_equal(tc_take(&sub, &ring, &sample, sizeof(sample), &len, 50), 0);
	/* The writer's client is unblocked: its later samples flow again. */
	sample = 5;
	assert_int_equal(tc_write(&pub, w, &sample, sizeof(sample)), 0);
	assert_int_equal(tc_take(&sub, &ring, &sample, sizeof(sample), &len, 2000), 1);
	assert_int_equal(sample, 5);
	tc_client_close(&pub);
	tc_client_close(&sub);
	stop(&d);
}

static void test_reliable_stall_blocking(void **state)
{
	(void)state;
	run_reliable_stall(NULL);
}

static void test_reliable_stall_polling(void **state)
{
	static const char *const extra[] = {"--poll", NULL};

	(void)state;
	run_reliable_stall(extra);
}

static void test_stalled_reader_dies(void **state)
{
	struct tc_daemon d;
	struct tc_client pub, sub, sub2;
	struct rring_cons ring2;
	uint32_t tp, ts, ts2, w, r, r2, len;
	uint64_t sample;

	(void)state;
	start(&d, NULL, NULL);
	assert_int_equal(tc_client_open(&pub, d.sock, "pub"), 0);
	assert_int_equal(tc_client_open(&sub, d.sock, "stuck"), 0);
	assert_int_equal(tc_client_open(&sub2, d.sock, "fine"), 0);
	assert_int_equal(tc_register_topic(&pub, 0, 9, "rel", 8, &tp), 0);
	assert_int_equal(tc_register_topic(&sub, 0, 9, "rel", 8, &ts), 0);
	assert_int_equal(tc_register_topic(&sub2, 0, 9, "rel", 8, &ts2), 0);
	assert_int_equal(tc_create_reader(&sub, ts, true, 2, &r, NULL), 0);
	assert_int_equal(tc_create_reader(&sub2, ts2, true, 16, &r2, &ring2), 0);
	/* A long max_blocking_ms: only the blocker's death can end this stall. */
	assert_int_equal(tc_create_writer(&pub, tp, true, 60000, &w), 0);
	for (uint64_t i = 1; i <= 5; i++)
		assert_int_equal(tc_write(&pub, w, &i, sizeof(i)), 0);
	wait_reader_counter(d.sock, sub2.session_id, r2, false, 2);
	tc_sleep_ms(50);
	assert_int_equal(reader_counter(d.sock, sub2.session_id, r2, false), 2);
	/* The full reader's client goes away: the writer flows to the other one. */
	tc_client_close(&sub);
	for (uint64_t want = 1; want <= 5; want++) {
		assert_int_equal(tc_take(&sub2, &ring2, &sample, sizeof(sample), &len, 2000), 1);
		assert_int_equal(sample, want);
	}
	tc_client_close(&pub);
	tc_client_close(&sub2);
	stop(&d);
}

static void test_delete_while_stalled(void **state)
{
	struct tc_daemon d;
	struct tc_client pub, sub;
	struct rring_cons ring;
	uint32_t tp, ts, w, r, len;
	uint64_t sample, t0, ms;
	struct timespec a, b;

	(void)state;
	start(&d, NULL, NULL);
	assert_int_equal(tc_client_open(&pub, d.sock, "pub"), 0);
	assert_int_equal(tc_client_open(&sub, d.sock, "sub"), 0);
	assert_int_equal(tc_register_topic(&pub, 0, 9, "rel", 8, &tp), 0);
	assert_int_equal(tc_register_topic(&sub, 0, 9, "rel", 8, &ts), 0);
	assert_int_equal(tc_create_reader(&sub, ts, true, 2, &r, &ring), 0);
	assert_int_equal(tc_create_writer(&pub, tp, true, 300, &w), 0);
	for (uint64_t i = 1; i <= 4; i++)
		assert_int_equal(tc_write(&pub, w, &i, sizeof(i)), 0);
	wait_reader_counter(d.sock, sub.session_id, r, false, 2);
	/*
	 * DeleteWriter while samples 3 and 4 wait for room: it is answered
	 * only after both were resolved (each after its max_blocking_ms), and
	 * the stalled writer is never freed under the stall.
	 */
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(tc_delete(&pub, w, false), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	t0 = (uint64_t)a.tv_sec * 1000 + (uint64_t)a.tv_nsec / 1000000;
	ms = (uint64_t)b.tv_sec * 1000 + (uint64_t)b.tv_nsec / 1000000 - t0;
	assert_true(ms >= 250);
	assert_int_equal(reader_counter(d.sock, sub.session_id, r, true), 2);
	for (uint64_t want = 1; want <= 2; want++) {
		assert_int_equal(tc_take(&sub, &ring, &sample, sizeof(sample), &len, 1000), 1);
		assert_int_equal(sample, want);
	}
	assert_int_equal(tc_take(&sub, &ring, &sample, sizeof(sample), &len, 50), 0);
	/* The session goes on normally. */
	assert_int_equal(tc_create_writer(&pub, tp, true, 300, &w), 0);
	sample = 9;
	assert_int_equal(tc_write(&pub, w, &sample, sizeof(sample)), 0);
	assert_int_equal(tc_take(&sub, &ring, &sample, sizeof(sample), &len, 2000), 1);
	assert_int_equal(sample, 9);
	tc_client_close(&pub);
	tc_client_close(&sub);
	stop(&d);
}

static void test_writer_ids(void **state)
{
	struct tc_daemon d;
	struct tc_client c, bad;
	struct rring_cons ring;
	uint32_t t, tb, w, r, len;
	uint64_t sample = 1;
	Sdds__Ctl__Reply *rep;

	(void)state;
	start(&d, NULL, NULL);
	assert_int_equal(tc_client_open(&c, d.sock, "ids"), 0);
	assert_int_equal(tc_register_topic(&c, 0, 1, "t", 8, &t), 0);
	assert_int_equal(tc_create_reader(&c, t, false, 8, &r, &ring), 0);
	assert_int_equal(tc_create_writer(&c, t, false, 0, &w), 0);
	assert_int_equal(tc_write(&c, w, &sample, sizeof(sample)), 0);
	assert_int_equal(tc_take(&c, &ring, &sample, sizeof(sample), &len, 2000), 1);
	/* A late record of a writer the client deleted: void, counted, no disconnect. */
	assert_int_equal(tc_delete(&c, w, false), 0);
	assert_int_equal(tc_write(&c, w, &sample, sizeof(sample)), 0);
	/* A wrong sample size: rejected by the broker, no disconnect. */
	assert_int_equal(tc_create_writer(&c, t, false, 0, &w), 0);
	assert_int_equal(tc_write(&c, w, &sample, 4), 0);
	assert_int_equal(tc_stats(&c, &rep), 0);
	{
		const Sdds__Ctl__ClientInfo *ci = find_client(rep->stats, c.session_id);

		assert_non_null(ci);
		assert_int_equal(ci->counters->rejected, 2);
		assert_int_equal(ci->counters->written, 1);
	}
	sdds__ctl__reply__free_unpacked(rep, NULL);

	/* A record for an id never issued: protocol error, that client alone goes. */
	assert_int_equal(tc_client_open(&bad, d.sock, "bad"), 0);
	assert_int_equal(tc_register_topic(&bad, 0, 1, "t", 8, &tb), 0);
	assert_int_equal(tc_write(&bad, 0x7fff0001u, &sample, sizeof(sample)), 0);
	assert_true(tc_peer_closed(bad.fd, 2000));
	tc_client_close(&bad);
	expect_protocol_errors(d.sock, 1);
	/* The good client still works. */
	assert_int_equal(tc_write(&c, w, &sample, sizeof(sample)), 0);
	assert_int_equal(tc_take(&c, &ring, &sample, sizeof(sample), &len, 2000), 1);
	tc_client_close(&c);
	stop(&d);
}

static void test_corrupt_request_ring(void **state)
{
	struct tc_daemon d;
	struct tc_client c;
	uint32_t t, w;
	uint64_t sample = 1;

	(void)state;
	start(&d, NULL, NULL);
	assert_int_equal(tc_client_open(&c, d.sock, "scribbler"), 0);
	assert_int_equal(tc_register_topic(&c, 0, 1, "t", 8, &t), 0);
	assert_int_equal(tc_create_writer(&c, t, false, 0, &w), 0);
	/* prod far beyond what the ring can hold. */
	atomic_store(&c.prod.ctl->prod, (uint64_t)1 << 40);
	tc_kick(&c);
	(void)sample;
	assert_true(tc_peer_closed(c.fd, 2000));
	tc_client_close(&c);
	expect_protocol_errors(d.sock, 1);
	stop(&d);
}

static void test_polling_mode(void **state)
{
	static const char *const extra[] = {"--poll", NULL};
	struct tc_daemon d;
	struct tc_client c;
	struct rring_cons ring;
	uint32_t t, w, r, len;
	uint64_t sample;

	(void)state;
	start(&d, extra, NULL);
	assert_int_equal(tc_client_open(&c, d.sock, "poller"), 0);
	assert_true(c.polling);
	assert_int_not_equal(segment_hdr(&c.seg)->flags & SDDS_SEG_F_DAEMON_POLLING, 0);
	assert_int_equal(tc_register_topic(&c, 0, 1, "t", 8, &t), 0);
	assert_int_equal(tc_create_reader(&c, t, true, 64, &r, &ring), 0);
	assert_int_equal(tc_create_writer(&c, t, true, 100, &w), 0);
	/* No kicks in polling mode: the daemon finds the records on its own. */
	for (uint64_t i = 1; i <= 50; i++)
		assert_int_equal(tc_write(&c, w, &i, sizeof(i)), 0);
	for (uint64_t i = 1; i <= 50; i++) {
		assert_int_equal(tc_take(&c, &ring, &sample, sizeof(sample), &len, 2000), 1);
		assert_int_equal(sample, i);
	}
	tc_client_close(&c);
	stop(&d);
}

/* Total written on topic (domain 0, id) from a Stats reply, or 0. */
static uint64_t topic_written(const Sdds__Ctl__Stats *st, uint32_t id)
{
	for (size_t i = 0; i < st->n_topics; i++)
		if (st->topics[i]->domain == 0 && st->topics[i]->topic_id == id && st->topics[i]->counters)
			return st->topics[i]->counters->written;
	return 0;
}

/*
 * Polling mode pumps the request rings in a tight loop and gives libuv a
 * turn only every poll_turn_ns: while another client floods its ring
 * without pause, control requests are still answered, the 100 ms heartbeat
 * timer still ticks, and samples of a second client still arrive in order.
 */
static void test_polling_flood_control(void **state)
{
	static const char *const extra[] = {"--poll", NULL};
	struct tc_daemon d;
	struct tc_client c;
	struct rring_cons ring;
	Sdds__Ctl__Reply *rep;
	uint32_t t, t2, w, r, len;
	uint64_t sample, hb0, hb1, flood0, flood1;
	pid_t pid;
	int status;

	(void)state;
	start(&d, extra, NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct tc_client f;
		struct rring_cons fr;
		uint32_t ft, fw, frd;
		uint64_t i = 0;
		time_t end = time(NULL) + 4;

		alarm(30);
		if (tc_client_open(&f, d.sock, "flooder") != 0 ||
		    tc_register_topic(&f, 0, 7, "flood", 8, &ft) != 0 ||
		    tc_create_reader(&f, ft, false, 64, &frd, &fr) != 0 ||
		    tc_create_writer(&f, ft, false, 0, &fw) != 0)
			_exit(10);
		/* Best effort into a reader that never takes: the daemon routes every record. */
		while (time(NULL) < end) {
			i++;
			(void)tc_write(&f, fw, &i, sizeof(i));
		}
		tc_client_close(&f);
		_exit(0);
	}
	assert_int_equal(tc_client_open(&c, d.sock, "observer"), 0);
	/* Wait until the flood runs (its topic has written samples). */
	flood0 = 0;
	for (int tries = 0; tries < 200 && flood0 == 0; tries++) {
		tc_sleep_ms(10);
		assert_int_equal(tc_stats(&c, &rep), 0);
		flood0 = topic_written(rep->stats, 7);
		sdds__ctl__reply__free_unpacked(rep, NULL);
	}
	assert_true(flood0 > 0);
	hb0 = atomic_load(&segment_hdr(&c.seg)->heartbeat);
	/* Control requests while the flood goes on. */
	assert_int_equal(tc_register_topic(&c, 0, 8, "t", 8, &t), 0);
	assert_int_equal(tc_register_topic(&c, 0, 9, "u", 8, &t2), 0);
	assert_int_equal(tc_create_reader(&c, t, true, 128, &r, &ring), 0);
	assert_int_equal(tc_create_writer(&c, t, true, 100, &w), 0);
	for (uint64_t i = 1; i <= 100; i++)
		assert_int_equal(tc_write(&c, w, &i, sizeof(i)), 0);
	for (uint64_t i = 1; i <= 100; i++) {
		assert_int_equal(tc_take(&c, &ring, &sample, sizeof(sample), &len, 2000), 1);
		assert_int_equal(sample, i);
	}
	tc_sleep_ms(1000);
	hb1 = atomic_load(&segment_hdr(&c.seg)->heartbeat);
	assert_int_equal(tc_stats(&c, &rep), 0);
	flood1 = topic_written(rep->stats, 7);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	/* The flood went on meanwhile; the timer ticked (10 per s; 3 is generous on a busy VM). */
	assert_true(flood1 > flood0);
	assert_true(hb1 >= hb0 + 3);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	tc_client_close(&c);
	stop(&d);
}

static void test_exit_drains_ring(void **state)
{
	struct tc_daemon d;
	struct tc_client pub, sub;
	struct rring_cons ring;
	uint32_t tp, ts, w, r, len;
	uint64_t sample;

	(void)state;
	start(&d, NULL, NULL);
	assert_int_equal(tc_client_open(&sub, d.sock, "sub"), 0);
	assert_int_equal(tc_client_open(&pub, d.sock, "pub"), 0);
	assert_int_equal(tc_register_topic(&sub, 0, 2, "t", 8, &ts), 0);
	assert_int_equal(tc_register_topic(&pub, 0, 2, "t", 8, &tp), 0);
	assert_int_equal(tc_create_reader(&sub, ts, false, 256, &r, &ring), 0);
	assert_int_equal(tc_create_writer(&pub, tp, false, 0, &w), 0);
	/* Publish without kicking, then hang up: the daemon still delivers them. */
	pub.polling = true;
	for (uint64_t i = 1; i <= 100; i++)
		assert_int_equal(tc_write(&pub, w, &i, sizeof(i)), 0);
	tc_client_close(&pub);
	for (uint64_t i = 1; i <= 100; i++) {
		assert_int_equal(tc_take(&sub, &ring, &sample, sizeof(sample), &len, 2000), 1);
		assert_int_equal(sample, i);
	}
	tc_client_close(&sub);
	stop(&d);
}

/* ---------------- the socket ---------------------------------------------- */

static void test_socket_stale_and_busy(void **state)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct tc_daemon d, d2;
	char dir[] = "/tmp/sddsd-stale.XXXXXX";
	char path[100];
	const char *argv_busy[4];
	struct tc_client c;
	pid_t pid;
	int fd, status;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.sock", dir);
	/* A socket file nobody listens on: stale, replaced. */
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	assert_int_equal(tc_daemon_start_at(&d, sddsd_path, path, NULL, NULL), 0);
	assert_int_equal(tc_client_open(&c, path, "after-stale"), 0);
	tc_client_close(&c);

	/* A second daemon on the same live socket must refuse to start (exit 2). */
	argv_busy[0] = sddsd_path;
	argv_busy[1] = "--socket";
	argv_busy[2] = path;
	argv_busy[3] = NULL;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		execv(sddsd_path, (char *const *)argv_busy);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 2);
	/* ... and it did not take the first one's socket away. */
	assert_int_equal(tc_client_open(&c, path, "still-there"), 0);
	tc_client_close(&c);
	stop(&d);
	/* A clean stop removes the socket file. */
	assert_int_equal(access(path, F_OK), -1);

	/* A path that is not a socket is never clobbered. */
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tc_daemon_start_at(&d2, sddsd_path, path, NULL, NULL), -ECHILD);
	assert_int_equal(access(path, F_OK), 0);
	unlink(path);
	rmdir(dir);
}

static void test_socket_activation(void **state)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[] = "/tmp/sddsd-act.XXXXXX";
	char path[100], other[100];
	struct tc_client c;
	pid_t pid;
	int lfd, status;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/act.sock", dir);
	snprintf(other, sizeof(other), "%s/not-used.sock", dir);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 16), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char pidbuf[32];

		if (dup2(lfd, 3) < 0)
			_exit(126);
		if (lfd != 3)
			close(lfd);
		snprintf(pidbuf, sizeof(pidbuf), "%d", (int)getpid());
		setenv("LISTEN_PID", pidbuf, 1);
		setenv("LISTEN_FDS", "1", 1);
		execl(sddsd_path, sddsd_path, "--socket", other, (char *)NULL);
		_exit(127);
	}
	close(lfd);
	{
		struct tc_daemon tracked = {.pid = pid};

		/* The directory is the test's: tracked for the kill, not removed. */
		tc_daemon_track(&tracked);
	}
	for (int i = 0; i < 200; i++) {
		if (tc_client_open(&c, path, "activated") == 0)
			break;
		c.fd = -1;
		tc_sleep_ms(10);
	}
	assert_true(c.fd > 0);
	assert_int_not_equal(c.session_id, 0);
	tc_client_close(&c);
	/* The inherited socket is used; nothing was bound at --socket. */
	assert_int_equal(access(other, F_OK), -1);
	kill(pid, SIGTERM);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	tc_daemon_untrack(pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* An inherited socket belongs to whoever passed it: not unlinked. */
	assert_int_equal(access(path, F_OK), 0);
	unlink(path);
	rmdir(dir);
}

/* Run sddsd with args, capture stdout; returns the exit code. */
static int run_sddsd(const char *const *args, char *out, size_t cap)
{
	const char *argv[16];
	int pfd[2], status, argc = 0;
	ssize_t n, got = 0;
	pid_t pid;

	argv[argc++] = sddsd_path;
	for (int i = 0; args[i] != NULL && argc < 15; i++)
		argv[argc++] = args[i];
	argv[argc] = NULL;
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(pfd[1], 1);
		dup2(null, 2);
		close(pfd[0]);
		execv(sddsd_path, (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], out + got, cap - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = '\0';
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_exit_codes(void **state)
{
	char out[4096];
	char conf[] = "/tmp/sddsd-conf.XXXXXX";
	int fd;

	(void)state;
	assert_int_equal(
	    run_sddsd((const char *const[]){"--check-config", "--poll", "--socket", "/tmp/q.sock", NULL}, out,
		      sizeof(out)),
	    0);
	assert_non_null(strstr(out, "poll = true\n"));
	assert_non_null(strstr(out, "socket = /tmp/q.sock\n"));
	assert_int_equal(run_sddsd((const char *const[]){"--help", NULL}, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "--check-config"));
	assert_int_equal(run_sddsd((const char *const[]){"--bogus", NULL}, out, sizeof(out)), 1);
	assert_int_equal(
	    run_sddsd((const char *const[]){"--log-level", "11", "--check-config", NULL}, out, sizeof(out)),
	    1);
	assert_int_equal(run_sddsd((const char *const[]){"-c", "/nonexistent.conf", NULL}, out, sizeof(out)),
			 1);

	fd = mkstemp(conf);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "max_clients = 3\nlog_level = err\n", 32), 32);
	close(fd);
	/* File values, overridden by the command line where both say something. */
	assert_int_equal(
	    run_sddsd((const char *const[]){"-c", conf, "--log-level", "debug", "--check-config", NULL}, out,
		      sizeof(out)),
	    0);
	assert_non_null(strstr(out, "max_clients = 3\n"));
	assert_non_null(strstr(out, "log_level = debug\n"));
	fd = open(conf, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "max_clients = many\n", 19), 19);
	close(fd);
	assert_int_equal(
	    run_sddsd((const char *const[]){"-c", conf, "--check-config", NULL}, out, sizeof(out)), 1);
	unlink(conf);
	/* A socket in a directory that cannot exist: runtime failure. */
	assert_int_equal(
	    run_sddsd((const char *const[]){"--socket", "/nonexistent/dir/s.sock", NULL}, out, sizeof(out)),
	    2);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_hello_ok, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_hello_wrong_versions, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_garbage_packet, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_first_message_not_hello, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_second_hello_and_fds, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_no_hello_timeout, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_caps, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_topic_conflict, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_stats_permission, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_best_effort_flow, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_reliable_stall_blocking, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_reliable_stall_polling, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_stalled_reader_dies, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_delete_while_stalled, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_writer_ids, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_corrupt_request_ring, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_polling_mode, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_polling_flood_control, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_exit_drains_ring, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_socket_stale_and_busy, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_socket_activation, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_exit_codes, tc_daemon_cleanup),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH_TO_SDDSD\n", argv[0]);
		return 2;
	}
	sddsd_path = argv[1];
	if (access(sddsd_path, X_OK) != 0) {
		fprintf(stderr, "%s: not found, skipping\n", sddsd_path);
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	/* TEST_FILTER=pattern runs only the matching tests (debugging aid). */
	if (getenv("TEST_FILTER") != NULL)
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
