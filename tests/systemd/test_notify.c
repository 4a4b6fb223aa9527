/* SPDX-License-Identifier: MIT */
/*
 * test_notify.c - the service manager's side of sddsd, played by the test
 * (there is no systemd as PID 1 here):
 * - socket activation: the test binds and listens, a forked child puts the
 *   socket on fd 3, sets LISTEN_FDS=1 and LISTEN_PID to its own pid and
 *   execs sddsd (what systemd does);
 * - NOTIFY_SOCKET: a datagram socket the test reads: READY=1 (with STATUS=)
 *   once the socket is served, RELOADING=1 then READY=1 around SIGHUP,
 *   STOPPING=1 on SIGTERM;
 * - WATCHDOG_USEC: WATCHDOG=1 at half the period, never a gap of a whole
 *   period; a stalled daemon (SIGSTOP) stops sending, and sends again once
 *   it runs (SIGCONT); WATCHDOG_PID of another process turns it off;
 * - the socket outlives the daemon: a client that connects and says Hello
 *   while no daemon runs is answered by the next one on the same socket.
 *
 * Usage: test_notify PATH_TO_SDDSD
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "layout.h"
#include "tclient.h"

static const char *sddsd_path;

struct svc {
	char dir[64];
	char sock[96];
	char notify[96];
	int listen_fd;
	int notify_fd;
	pid_t pid;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int bind_unix(int type, const char *path, bool do_listen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	if (do_listen)
		assert_int_equal(listen(fd, 16), 0);
	return fd;
}

/* The "socket unit": a listening socket and a notification socket. */
static void svc_init(struct svc *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "/tmp/sddsd-notify.XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	snprintf(s->sock, sizeof(s->sock), "%s/sddsd.sock", s->dir);
	snprintf(s->notify, sizeof(s->notify), "%s/notify", s->dir);
	s->listen_fd = bind_unix(SOCK_SEQPACKET, s->sock, true);
	s->notify_fd = bind_unix(SOCK_DGRAM, s->notify, false);
}

static void svc_free(struct svc *s)
{
	close(s->listen_fd);
	close(s->notify_fd);
	unlink(s->sock);
	unlink(s->notify);
	rmdir(s->dir);
}

/*
 * Start sddsd the way systemd does. watchdog: WATCHDOG_USEC or NULL;
 * watchdog_pid: "self" for the daemon's own pid, a number, or NULL.
 */
static void svc_start(struct svc *s, const char *watchdog, const char *watchdog_pid, const char *const *extra)
{
	const char *argv[16] = {sddsd_path};
	int argc = 1;

	for (int i = 0; extra != NULL && extra[i] != NULL && argc < 14; i++)
		argv[argc++] = extra[i];
	argv[argc] = NULL;
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (s->pid == 0) {
		char pid[24];

		/* The wrapper: put the socket on fd 3, name ourselves, exec. */
		if (s->listen_fd == 3) {
			if (fcntl(3, F_SETFD, 0) < 0)
				_exit(126);
		} else if (dup2(s->listen_fd, 3) < 0) {
			_exit(126);
		}
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		setenv("LISTEN_FDS", "1", 1);
		setenv("LISTEN_PID", pid, 1);
		setenv("NOTIFY_SOCKET", s->notify, 1);
		if (watchdog != NULL)
			setenv("WATCHDOG_USEC", watchdog, 1);
		if (watchdog_pid != NULL)
			setenv("WATCHDOG_PID", strcmp(watchdog_pid, "self") == 0 ? pid : watchdog_pid, 1);
		execv(sddsd_path, (char *const *)argv);
		_exit(127);
	}
	tc_daemon_track(&(struct tc_daemon){.pid = s->pid});
}

/* Wait for the daemon's exit; returns the wait status. */
static int svc_wait(struct svc *s)
{
	int st = 0;

	for (int i = 0; i < 1000; i++) {
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			tc_daemon_untrack(s->pid);
			s->pid = 0;
			return st;
		}
		tc_sleep_ms(10);
	}
	fail_msg("sddsd did not exit");
	return -1;
}

/* One notification within timeout_ms into buf; false on timeout. */
static bool recv_note(struct svc *s, int timeout_ms, char *buf, size_t cap)
{
	struct pollfd p = {.fd = s->notify_fd, .events = POLLIN};
	ssize_t n;

	if (poll(&p, 1, timeout_ms) <= 0)
		return false;
	n = recv(s->notify_fd, buf, cap - 1, MSG_DONTWAIT);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* Is `line` (e.g. "READY=1") one of the lines of msg? */
static bool note_has(const char *msg, const char *line)
{
	size_t len = strlen(line);

	for (const char *p = msg; p != NULL && *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t l = nl != NULL ? (size_t)(nl - p) : strlen(p);

		if (l == len && memcmp(p, line, len) == 0)
			return true;
		p = nl != NULL ? nl + 1 : NULL;
	}
	return false;
}

/*
 * Wait for a notification with `line`, skipping others (watchdog pings);
 * the whole message goes to buf. Fails the test after timeout_ms.
 */
static void expect_note(struct svc *s, const char *line, int timeout_ms, char *buf, size_t cap)
{
	int64_t end = now_ms() + timeout_ms;

	for (;;) {
		int64_t left = end - now_ms();

		if (left <= 0 || !recv_note(s, (int)left, buf, cap))
			fail_msg("no %s from sddsd within %d ms", line, timeout_ms);
		if (note_has(buf, line))
			return;
	}
}

/* Drop what is queued. */
static void drain(struct svc *s)
{
	char buf[512];

	while (recv_note(s, 0, buf, sizeof(buf)))
		;
}

static void test_ready_status_stopping(void **state)
{
	struct tc_client c;
	struct svc s;
	char buf[1024];

	(void)state;
	svc_init(&s);
	svc_start(&s, NULL, NULL, NULL);
	expect_note(&s, "READY=1", 10000, buf, sizeof(buf));
	/* The same datagram says what the daemon serves. */
	assert_non_null(strstr(buf, "STATUS=serving "));
	assert_non_null(strstr(buf, s.sock));
	assert_non_null(strstr(buf, "no policy"));
	/* READY=1 means served: a client gets through at once. */
	assert_int_equal(tc_client_open(&c, s.sock, "after-ready"), 0);
	tc_client_close(&c);
	/* No watchdog was asked for: no pings. */
	assert_false(recv_note(&s, 300, buf, sizeof(buf)) && note_has(buf, "WATCHDOG=1"));
	assert_int_equal(kill(s.pid, SIGTERM), 0);
	expect_note(&s, "STOPPING=1", 5000, buf, sizeof(buf));
	{
		int st = svc_wait(&s);

		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	svc_free(&s);
}

static void test_watchdog(void **state)
{
	const int usec_ms = 400;
	int64_t start, last, gap_max = 0;
	int pings = 0;
	struct svc s;
	char buf[1024];

	(void)state;
	svc_init(&s);
	svc_start(&s, "400000", "self", NULL);
	expect_note(&s, "READY=1", 10000, buf, sizeof(buf));
	/* Pings every usec/2; a gap of a whole period would make systemd kill it. */
	start = last = now_ms();
	while (now_ms() - start < 2000) {
		if (!recv_note(&s, 50, buf, sizeof(buf)) || !note_has(buf, "WATCHDOG=1"))
			continue;
		if (pings > 0 && now_ms() - last > gap_max)
			gap_max = now_ms() - last;
		last = now_ms();
		pings++;
	}
	print_message("watchdog: %d pings in 2 s, longest gap %lld ms (period %d ms)\n", pings,
		      (long long)gap_max, usec_ms);
	assert_true(pings >= 5);
	assert_true(pings <= 25);
	assert_true(gap_max < usec_ms);

	/* A stalled loop stops feeding the watchdog: systemd would see the timeout. */
	assert_int_equal(kill(s.pid, SIGSTOP), 0);
	tc_sleep_ms(50);
	drain(&s);
	start = now_ms();
	while (now_ms() - start < 3 * usec_ms) {
		if (recv_note(&s, 50, buf, sizeof(buf)) && note_has(buf, "WATCHDOG=1"))
			fail_msg("WATCHDOG=1 from a stopped daemon");
	}
	assert_int_equal(kill(s.pid, SIGCONT), 0);
	expect_note(&s, "WATCHDOG=1", usec_ms, buf, sizeof(buf));

	assert_int_equal(kill(s.pid, SIGTERM), 0);
	expect_note(&s, "STOPPING=1", 5000, buf, sizeof(buf));
	assert_int_equal(svc_wait(&s), 0);
	svc_free(&s);
}

static void test_watchdog_other_pid(void **state)
{
	struct svc s;
	char buf[1024];

	(void)state;
	svc_init(&s);
	/* WATCHDOG_PID names another process: this one must not ping. */
	svc_start(&s, "100000", "1", NULL);
	expect_note(&s, "READY=1", 10000, buf, sizeof(buf));
	for (int64_t start = now_ms(); now_ms() - start < 400;) {
		if (recv_note(&s, 50, buf, sizeof(buf)) && note_has(buf, "WATCHDOG=1"))
			fail_msg("WATCHDOG=1 although WATCHDOG_PID is another process");
	}
	assert_int_equal(kill(s.pid, SIGTERM), 0);
	assert_int_equal(svc_wait(&s), 0);
	svc_free(&s);
}

static void test_reload_notes(void **state)
{
	char policy[128], buf[1024];
	const char *extra[] = {"--policy", policy, NULL};
	struct svc s;
	FILE *f;

	(void)state;
	svc_init(&s);
	snprintf(policy, sizeof(policy), "%s/policy.conf", s.dir);
	f = fopen(policy, "w");
	assert_non_null(f);
	fputs("allow * read 1:1\n", f);
	fclose(f);
	svc_start(&s, NULL, NULL, extra);
	expect_note(&s, "READY=1", 10000, buf, sizeof(buf));
	assert_non_null(strstr(buf, "policy "));
	assert_non_null(strstr(buf, "1 rules"));
	f = fopen(policy, "w");
	assert_non_null(f);
	fputs("allow * read 1:1\nallow * write 1:2\n", f);
	fclose(f);
	assert_int_equal(kill(s.pid, SIGHUP), 0);
	expect_note(&s, "RELOADING=1", 5000, buf, sizeof(buf));
	expect_note(&s, "READY=1", 5000, buf, sizeof(buf));
	assert_non_null(strstr(buf, "2 rules"));
	assert_int_equal(kill(s.pid, SIGTERM), 0);
	expect_note(&s, "STOPPING=1", 5000, buf, sizeof(buf));
	assert_int_equal(svc_wait(&s), 0);
	unlink(policy);
	svc_free(&s);
}

static void test_socket_survives_restart(void **state)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Hello hello = SDDS__CTL__HELLO__INIT;
	Sdds__Ctl__Reply *rep = NULL;
	int fds[CTL_MAX_FDS];
	size_t n_fds = 0;
	struct tc_client c;
	struct svc s;
	char buf[1024];
	uint64_t epoch1;
	int fd;

	(void)state;
	svc_init(&s);
	svc_start(&s, NULL, NULL, NULL);
	expect_note(&s, "READY=1", 10000, buf, sizeof(buf));
	assert_int_equal(tc_client_open(&c, s.sock, "first"), 0);
	epoch1 = c.epoch;
	tc_client_close(&c);
	assert_int_equal(kill(s.pid, SIGTERM), 0);
	assert_int_equal(svc_wait(&s), 0);

	/* No daemon now; the socket is still held (by us, as by systemd). */
	fd = tc_connect(s.sock);
	assert_true(fd >= 0);
	hello.protocol_version = CTL_PROTOCOL_VERSION;
	hello.layout_version = SDDS_LAYOUT_VERSION;
	hello.name = "while-down";
	req.id = 1;
	req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
	req.hello = &hello;
	assert_int_equal(ctl_send_request(fd, &req, NULL, 0), 0);

	svc_start(&s, NULL, NULL, NULL);
	/* The queued connection is accepted and its Hello answered (5 s timeout). */
	assert_int_equal(ctl_recv_reply(fd, &rep, fds, CTL_MAX_FDS, &n_fds), 0);
	for (size_t i = 0; i < n_fds; i++)
		close(fds[i]);
	assert_int_equal(rep->status, 0);
	assert_int_equal(rep->body_case, SDDS__CTL__REPLY__BODY_HELLO);
	assert_int_equal(n_fds, 2);
	/* A new daemon: a new epoch. */
	assert_true(rep->hello->epoch != epoch1);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	close(fd);
	expect_note(&s, "READY=1", 10000, buf, sizeof(buf));
	assert_int_equal(kill(s.pid, SIGTERM), 0);
	assert_int_equal(svc_wait(&s), 0);
	/* The daemon never unlinks a socket it inherited. */
	assert_int_equal(access(s.sock, F_OK), 0);
	svc_free(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_ready_status_stopping, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_watchdog, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_watchdog_other_pid, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_reload_notes, tc_daemon_cleanup),
	    cmocka_unit_test_teardown(test_socket_survives_restart, tc_daemon_cleanup),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH_TO_SDDSD\n", argv[0]);
		return 2;
	}
	sddsd_path = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
