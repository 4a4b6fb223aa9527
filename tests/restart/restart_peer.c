/* SPDX-License-Identifier: MIT */
/*
 * restart_peer.c - restart-peer, the publisher and the subscriber of the
 * restart soak test. Public libsddsclient API only; one role per process:
 *
 *   restart-peer pub [--socket PATH] [--period-us N]
 *   restart-peer sub [--socket PATH]
 *
 * OVERVIEW
 * Both connect by path (or through $SDDS_CTL_FD), so the library reconnects
 * after every daemon restart, and both run until their stdin reaches EOF
 * (the test's stop signal), then print "done key=value..." and exit 0 when
 * they saw nothing wrong.
 *
 * pub writes RELIABLE samples of 24 bytes (sequence number, send time,
 * a check word; big-endian) every --period-us. The sequence number counts
 * accepted writes only: a write refused in the gap (-ENOTCONN) or timed out
 * is retried with the same number, so a hole at the subscriber is a sample
 * the library had accepted and the restart lost.
 *
 * sub takes with a short timeout and checks every sample (check word; the
 * sequence only grows). Within one connection a RELIABLE reader must see no
 * hole; the first sample after sdds_client_reconnects() moved is the end of
 * a gap and is reported as "gap n=K lost=L ms=T seq=S": L samples lost, T
 * milliseconds between the last sample before and the first after (time
 * without delivery, as the subscriber saw it).
 *
 * Output is line-buffered; "ready session=ID" once the endpoints exist,
 * "flowing" after the first sample (sub).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sdds/sdds.h>

#define PEER_SAMPLE 24
#define PEER_TOPIC 42
#define PEER_CHECK_MUL 0x9e3779b97f4a7c15ull

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

/* True once stdin reached EOF; never blocks. */
static bool peer_stdin_closed(void)
{
	struct pollfd p = {.fd = 0, .events = POLLIN};
	char buf[64];

	if (poll(&p, 1, 0) <= 0)
		return false;
	if (p.revents & (POLLHUP | POLLERR))
		return true;
	return read(0, buf, sizeof buf) == 0;
}

static void peer_put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t peer_get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

static int peer_open(const char *sock, const char *name, bool reader, sdds_client **ret_c,
		     sdds_writer **ret_w, sdds_reader **ret_r)
{
	static const sdds_field f[] = {
	    {"seq", SDDS_FIELD_ULONGLONG, 8},
	    {"sent", SDDS_FIELD_ULONGLONG, 8},
	    {"check", SDDS_FIELD_ULONGLONG, 8},
	};
	sdds_topic_desc d = {.name = "restart",
			     .domain = 0,
			     .id = PEER_TOPIC,
			     .sample_size = PEER_SAMPLE,
			     .fields = f,
			     .n_fields = 3};
	sdds_client_options o;
	sdds_topic *t;
	sdds_qos q;
	int rc;

	sdds_client_options_init(&o);
	o.socket_path = sock;
	o.name = name;
	/* Restarts come every 50-150 ms here: a cap below that keeps the backoff from growing. */
	o.reconnect_max_ms = 20;
	rc = sdds_client_new(&o, ret_c);
	if (rc < 0)
		return rc;
	rc = sdds_topic_new(*ret_c, &d, &t);
	if (rc < 0)
		return rc;
	sdds_qos_init(&q);
	q.reliability = SDDS_RELIABLE;
	q.history_depth = 256;
	q.max_blocking_ms = 500;
	return reader ? sdds_reader_new(t, &q, ret_r) : sdds_writer_new(t, &q, ret_w);
}

static int peer_pub(const char *sock, uint32_t period_us)
{
	uint64_t seq = 0, notconn = 0, timeouts = 0, errors = 0;
	uint8_t s[PEER_SAMPLE];
	sdds_client *c;
	sdds_writer *w;
	int rc;

	rc = peer_open(sock, "restart-pub", false, &c, &w, NULL);
	if (rc < 0) {
		fprintf(stderr, "restart-peer pub: %s\n", sdds_strerror(rc));
		return 2;
	}
	printf("ready session=%" PRIu32 "\n", sdds_client_session_id(c));
	while (!peer_stdin_closed()) {
		peer_put64(s, seq);
		peer_put64(s + 8, (uint64_t)peer_now_ns());
		peer_put64(s + 16, seq * PEER_CHECK_MUL);
		rc = sdds_writer_write(w, s, sizeof(s));
		if (rc == 0) {
			seq++;
		} else if (rc == -ENOTCONN) {
			notconn++;
			peer_sleep_us(1000);
			continue;
		} else if (rc == -ETIMEDOUT) {
			timeouts++;
		} else {
			fprintf(stderr, "restart-peer pub: write %" PRIu64 ": %s\n", seq, sdds_strerror(rc));
			errors++;
			peer_sleep_us(1000);
		}
		if (period_us)
			peer_sleep_us(period_us);
	}
	printf("done written=%" PRIu64 " notconn=%" PRIu64 " timeouts=%" PRIu64 " errors=%" PRIu64
	       " reconnects=%" PRIu64 "\n",
	       seq, notconn, timeouts, errors, sdds_client_reconnects(c));
	sdds_client_free(c);
	return errors ? 1 : 0;
}

static int peer_sub(const char *sock)
{
	uint64_t received = 0, lost = 0, errors = 0, gaps = 0, last = 0, seen_reconnects = 0, now_rc;
	int64_t t_last = 0, t;
	uint8_t s[PEER_SAMPLE];
	sdds_client *c;
	sdds_reader *r;
	bool first = true;
	int rc;

	rc = peer_open(sock, "restart-sub", true, &c, NULL, &r);
	if (rc < 0) {
		fprintf(stderr, "restart-peer sub: %s\n", sdds_strerror(rc));
		return 2;
	}
	printf("ready session=%" PRIu32 "\n", sdds_client_session_id(c));
	while (!peer_stdin_closed()) {
		uint64_t seq, miss;

		rc = sdds_reader_take(r, s, sizeof(s), NULL, 50 * 1000 * 1000LL);
		if (rc == -ENOTCONN) {
			peer_sleep_us(1000);
			continue;
		}
		if (rc == -ETIMEDOUT || rc == -EAGAIN)
			continue;
		if (rc < 0) {
			fprintf(stderr, "restart-peer sub: take: %s\n", sdds_strerror(rc));
			errors++;
			peer_sleep_us(1000);
			continue;
		}
		t = peer_now_ns();
		seq = peer_get64(s);
		if (peer_get64(s + 16) != seq * PEER_CHECK_MUL) {
			fprintf(stderr, "restart-peer sub: sample %" PRIu64 " corrupt\n", seq);
			errors++;
			continue;
		}
		received++;
		now_rc = sdds_client_reconnects(c);
		if (first) {
			first = false;
			seen_reconnects = now_rc;
			printf("flowing seq=%" PRIu64 "\n", seq);
		} else if (seq <= last) {
			fprintf(stderr, "restart-peer sub: %" PRIu64 " after %" PRIu64 "\n", seq, last);
			errors++;
		} else {
			miss = seq - last - 1;
			if (now_rc != seen_reconnects) {
				gaps++;
				lost += miss;
				printf("gap n=%" PRIu64 " lost=%" PRIu64 " us=%" PRId64 " seq=%" PRIu64 "\n",
				       now_rc, miss, (t - t_last) / 1000, seq);
				seen_reconnects = now_rc;
			} else if (miss) {
				/* A reliable reader loses nothing within one connection. */
				fprintf(stderr,
					"restart-peer sub: %" PRIu64 " lost before %" PRIu64
					" without a restart\n",
					miss, seq);
				errors++;
			}
		}
		last = seq;
		t_last = t;
	}
	printf("done received=%" PRIu64 " last=%" PRIu64 " lost=%" PRIu64 " gaps=%" PRIu64 " errors=%" PRIu64
	       " reconnects=%" PRIu64 " rlost=%" PRIu64 "\n",
	       received, last, lost, gaps, errors, sdds_client_reconnects(c), sdds_reader_lost(r));
	sdds_client_free(c);
	return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"socket", required_argument, NULL, 's'},
	    {"period-us", required_argument, NULL, 'p'},
	    {NULL, 0, NULL, 0},
	};
	const char *sock = NULL;
	uint32_t period_us = 500;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "s:p:", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			sock = optarg;
			break;
		case 'p':
			period_us = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: restart-peer pub|sub [--socket PATH] [--period-us N]\n");
		return 2;
	}
	if (strcmp(argv[optind], "pub") == 0)
		return peer_pub(sock, period_us);
	if (strcmp(argv[optind], "sub") == 0)
		return peer_sub(sock);
	fprintf(stderr, "restart-peer: unknown role %s\n", argv[optind]);
	return 2;
}
