/* SPDX-License-Identifier: MIT */
/*
 * flood.c - itest-flood, the client processes of test_admission: a local
 * user flooding sddsd's control socket, and an honest client timing its
 * connections meanwhile. The test starts each under its own uid.
 *
 * OVERVIEW
 *   itest-flood pending SOCK N
 *     Keeps N connections open that never send anything, reopening each
 *     one as soon as the daemon hangs up on it; a connect refused by a
 *     full backlog is retried at once. Prints "ready" after the first N
 *     attempts, "done connects=.. hangups=.. eagain=.. open=.." when its
 *     stdin closes.
 *   itest-flood sessions SOCK N
 *     Opens up to N full sessions (Hello), keeps them, and retries the
 *     refused ones every 20 ms. Prints "ready sessions=.. refused=.."
 *     after the first round, "done sessions=.. refused=.." at the end.
 *   itest-flood honest SOCK ATTEMPTS BOUND_MS
 *     ATTEMPTS times, 50 ms apart: sdds_client_new (libsddsclient, as an
 *     application connects), then sdds_client_free. An attempt counts as
 *     ok when it succeeded within BOUND_MS; one that hangs is given up
 *     after 5 * BOUND_MS. Prints "attempt I rc=.. ms=.." each, then
 *     "done ok=.. attempts=.. max_ms=..".
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rawcli.h"
#include "sdds/sdds.h"

static int64_t flood_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool flood_stdin_closed(int timeout_ms)
{
	struct pollfd p = {.fd = 0, .events = POLLIN};

	return poll(&p, 1, timeout_ms) > 0;
}

/* A non-blocking connect: 0 and *ret_fd, or -errno (-EAGAIN: backlog full). */
static int flood_connect(const struct sockaddr_un *sa, int *ret_fd)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	*ret_fd = fd;
	return 0;
}

static int flood_pending(const char *sock, int n)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct pollfd *p = calloc((size_t)n + 1, sizeof(*p));
	unsigned long connects = 0, hangups = 0, eagain = 0;
	bool ready = false;
	int open_now = 0;

	if (p == NULL)
		return 1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	p[0].fd = 0;
	p[0].events = POLLIN;
	for (int i = 1; i <= n; i++)
		p[i].fd = -1;
	for (;;) {
		bool full = false;

		for (int i = 1; i <= n && !full; i++) {
			int rc;

			if (p[i].fd >= 0)
				continue;
			rc = flood_connect(&sa, &p[i].fd);
			if (rc == 0) {
				p[i].events = POLLIN;
				connects++;
				open_now++;
			} else if (rc == -EAGAIN) {
				eagain++;
				full = true;
			} else {
				fprintf(stderr, "itest-flood: connect: %s\n", strerror(-rc));
				full = true;
			}
		}
		if (!ready) {
			printf("ready open=%d\n", open_now);
			fflush(stdout);
			ready = true;
		}
		/* Slots free: come back at once (as an attacker would), else wait for a hang-up. */
		if (poll(p, (nfds_t)n + 1, open_now < n ? 0 : 100) < 0 && errno != EINTR)
			return 1;
		if (p[0].revents != 0)
			break;
		for (int i = 1; i <= n; i++) {
			if (p[i].fd < 0 || p[i].revents == 0)
				continue;
			close(p[i].fd);
			p[i].fd = -1;
			p[i].revents = 0;
			hangups++;
			open_now--;
		}
		if (open_now < n)
			sched_yield();
	}
	printf("done connects=%lu hangups=%lu eagain=%lu open=%d\n", connects, hangups, eagain, open_now);
	return 0;
}

static int flood_sessions(const char *sock, int n)
{
	struct rawcli *rc = calloc((size_t)n, sizeof(*rc));
	int have = 0;
	unsigned long refused = 0;
	bool ready = false;

	if (rc == NULL)
		return 1;
	for (int i = 0; i < n; i++)
		rc[i].sock = -1;
	for (;;) {
		for (int i = 0; i < n; i++) {
			if (rc[i].sock >= 0)
				continue;
			if (rawcli_open(sock, "flood", &rc[i]) == 0) {
				have++;
			} else {
				rc[i].sock = -1;
				refused++;
			}
		}
		if (!ready) {
			printf("ready sessions=%d refused=%lu\n", have, refused);
			fflush(stdout);
			ready = true;
		}
		if (flood_stdin_closed(20))
			break;
	}
	printf("done sessions=%d refused=%lu\n", have, refused);
	return 0;
}

struct flood_attempt {
	const char *sock;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool finished;
	int rc;
	int64_t ms;
};

static void *flood_attempt_run(void *arg)
{
	struct flood_attempt *a = arg;
	sdds_client_options o;
	sdds_client *c = NULL;
	int64_t t0 = flood_now_ms();
	int rc;

	sdds_client_options_init(&o);
	o.socket_path = a->sock;
	o.name = "honest";
	o.reconnect = 0;
	rc = sdds_client_new(&o, &c);
	pthread_mutex_lock(&a->mu);
	a->rc = rc;
	a->ms = flood_now_ms() - t0;
	a->finished = true;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	if (rc == 0)
		sdds_client_free(c);
	return NULL;
}

static int flood_honest(const char *sock, int attempts, int bound_ms)
{
	int ok = 0;
	int64_t max_ms = 0;

	for (int i = 0; i < attempts; i++) {
		/* Leaked on purpose when an attempt hangs: the thread may still use it. */
		struct flood_attempt *a = calloc(1, sizeof(*a));
		struct timespec until;
		pthread_t th;
		bool finished;

		if (a == NULL)
			return 1;
		a->sock = sock;
		pthread_mutex_init(&a->mu, NULL);
		pthread_cond_init(&a->cv, NULL);
		if (pthread_create(&th, NULL, flood_attempt_run, a) != 0)
			return 1;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += (5 * bound_ms) / 1000;
		until.tv_nsec += (long)((5 * bound_ms) % 1000) * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&a->mu);
		while (!a->finished && pthread_cond_timedwait(&a->cv, &a->mu, &until) != ETIMEDOUT)
			;
		finished = a->finished;
		pthread_mutex_unlock(&a->mu);
		if (!finished) {
			pthread_detach(th);
			printf("attempt %d rc=hung ms=>%d\n", i, 5 * bound_ms);
			max_ms = 5 * bound_ms;
		} else {
			pthread_join(th, NULL);
			printf("attempt %d rc=%d ms=%lld\n", i, a->rc, (long long)a->ms);
			if (a->ms > max_ms)
				max_ms = a->ms;
			if (a->rc == 0 && a->ms <= bound_ms)
				ok++;
			free(a);
		}
		fflush(stdout);
		usleep(50000);
	}
	printf("done ok=%d attempts=%d max_ms=%lld\n", ok, attempts, (long long)max_ms);
	fflush(stdout);
	/* A hung attempt's thread must not keep the process alive. */
	_exit(0);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "pending") == 0)
		return flood_pending(argv[2], atoi(argv[3]));
	if (argc == 4 && strcmp(argv[1], "sessions") == 0)
		return flood_sessions(argv[2], atoi(argv[3]));
	if (argc == 5 && strcmp(argv[1], "honest") == 0)
		return flood_honest(argv[2], atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr,
		"usage: itest-flood pending SOCK N | sessions SOCK N | honest SOCK ATTEMPTS BOUND_MS\n");
	return 2;
}
