/* SPDX-License-Identifier: MIT */
/*
 * realnode.c - a model of a real sDDS node's receiver (snps-wire.md §8,
 * §11.4, §15.17), the subscriber side of the reference implementation's
 * examples (`examples/basic` sub_listener), for the namespace tests:
 *
 *   realnode PORT COUNT MS [DEPTH]
 *
 * It binds [::]:PORT (a node's single socket), and per received frame, as
 * the reference's DataSink does:
 *   - every DATA sample of topic 10 (the temperature topic, 4 bytes: a
 *     2-byte primary key, then 2 bytes) is stored in the reader's history
 *     of DEPTH slots (default 20, SDDS_QOS_HISTORY_DEPTH): a sample whose
 *     key equals a queued one's overwrites that slot; a full history
 *     overwrites its oldest sample (best effort);
 *   - then, when the frame's last topic was 10, on_data_available runs
 *     once, and the example's listener takes one sample (the oldest).
 * It prints "ready" (the harness closes that pipe after the first line),
 * and at the end "taken N frames F ..." and, when the count is wrong, the
 * samples taken on stderr. It ends COUNT samples and 300 ms of silence later,
 * or after MS milliseconds. Exit: 0 when it took exactly COUNT distinct
 * samples, 1 otherwise, 2 on an error. Frames the decoder refuses are
 * counted as ignored (a real node drops them too).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "snps.h"

#define RN_TOPIC 10u
#define RN_SIZE 4u
#define RN_MAX_DEPTH 64u
#define RN_MAX_TAKEN 65536u

struct realnode {
	uint8_t hist[RN_MAX_DEPTH][RN_SIZE]; /* oldest at head */
	uint32_t head, n, depth;
	uint16_t last_topic;
	bool data_seen;
	uint32_t taken;
	uint32_t taken_v[RN_MAX_TAKEN]; /* key << 16 | value of each take */
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int rn_lookup(void *ctx, uint8_t domain, uint16_t topic, uint32_t *ret_size)
{
	(void)ctx;
	(void)domain;
	if (topic != RN_TOPIC)
		return -1;
	*ret_size = RN_SIZE;
	return 0;
}

/* The history of §11.4: keyed replacement, best-effort overwrite when full. */
static void rn_store(struct realnode *r, const uint8_t *s)
{
	for (uint32_t i = 0; i < r->n; i++) {
		uint8_t *slot = r->hist[(r->head + i) % r->depth];

		if (memcmp(slot, s, 2) == 0) {
			memcpy(slot, s, RN_SIZE);
			return;
		}
	}
	if (r->n == r->depth) {
		r->head = (r->head + 1) % r->depth;
		r->n--;
	}
	memcpy(r->hist[(r->head + r->n) % r->depth], s, RN_SIZE);
	r->n++;
}

static int rn_visit(void *ctx, const struct snps_event *ev)
{
	struct realnode *r = ctx;

	if (ev->kind == SNPS_EV_TOPIC)
		r->last_topic = ev->topic;
	if (ev->kind == SNPS_EV_DATA && ev->topic == RN_TOPIC && ev->len == RN_SIZE) {
		rn_store(r, ev->data);
		r->data_seen = true;
	}
	return 0;
}

/* The example's listener: one take_next_sample per callback. */
static void rn_on_data_available(struct realnode *r)
{
	const uint8_t *s;
	uint32_t v;

	if (r->n == 0)
		return; /* DDS_RETCODE_NO_DATA */
	s = r->hist[r->head];
	r->head = (r->head + 1) % r->depth;
	r->n--;
	v = (uint32_t)s[0] << 24 | (uint32_t)s[1] << 16 | (uint32_t)s[2] << 8 | s[3];
	if (r->taken < RN_MAX_TAKEN)
		r->taken_v[r->taken] = v;
	r->taken++;
}

static bool rn_distinct(const struct realnode *r)
{
	for (uint32_t i = 0; i < r->taken && i < RN_MAX_TAKEN; i++) {
		for (uint32_t k = 0; k < i; k++) {
			if (r->taken_v[k] == r->taken_v[i])
				return false;
		}
	}
	return true;
}

int main(int argc, char **argv)
{
	static struct realnode r;
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
	struct snps_decoder_options o;
	uint32_t count, frames = 0, ignored = 0;
	int64_t end, quiet_until = -1;
	uint8_t buf[65536];
	int fd, one = 1;
	long ms;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: realnode PORT COUNT MS [DEPTH]\n");
		return 2;
	}
	a.sin6_port = htons((uint16_t)strtoul(argv[1], NULL, 0));
	count = (uint32_t)strtoul(argv[2], NULL, 0);
	ms = strtol(argv[3], NULL, 0);
	r.depth = argc == 5 ? (uint32_t)strtoul(argv[4], NULL, 0) : 20;
	if (r.depth == 0 || r.depth > RN_MAX_DEPTH || ms <= 0) {
		fprintf(stderr, "realnode: DEPTH 1..%u, MS > 0\n", RN_MAX_DEPTH);
		return 2;
	}
	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		fprintf(stderr, "realnode: bind [::]:%s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	/* A burst must not overflow the default queue on a loaded machine: the model counts every frame. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &(int){4 << 20}, sizeof(int)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &(int){4 << 20}, sizeof(int));
	snps_decoder_options_init(&o);
	o.lookup = rn_lookup;
	printf("ready\n");
	fflush(stdout);
	end = now_ms() + ms;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int64_t t = now_ms(), until = quiet_until >= 0 && quiet_until < end ? quiet_until : end;
		ssize_t len;

		if (t >= until)
			break;
		if (poll(&p, 1, (int)(until - t)) <= 0)
			continue;
		len = recv(fd, buf, sizeof(buf), 0);
		if (len < 0)
			continue;
		frames++;
		r.data_seen = false;
		r.last_topic = 0xffff;
		if (snps_decode(buf, (size_t)len, &o, rn_visit, &r, NULL) < 0) {
			ignored++;
			continue;
		}
		/* §15.17: once per frame, for the frame's last topic. */
		if (r.last_topic == RN_TOPIC)
			rn_on_data_available(&r);
		if (r.taken >= count)
			quiet_until = now_ms() + 300;
	}
	close(fd);
	fflush(stdout);
	fprintf(stderr, "realnode: taken %u frames %u ignored %u left %u\n", r.taken, frames, ignored, r.n);
	if (r.taken != count || !rn_distinct(&r)) {
		fprintf(stderr, "realnode: took %u samples%s, want %u:", r.taken,
			rn_distinct(&r) ? "" : " (some twice)", count);
		for (uint32_t i = 0; i < r.taken && i < RN_MAX_TAKEN; i++)
			fprintf(stderr, " %04x/%u", r.taken_v[i] >> 16, r.taken_v[i] & 0xffff);
		fputc('\n', stderr);
		return 1;
	}
	return 0;
}
