/* SPDX-License-Identifier: MIT */
/*
 * realnode.c - a model of a real sDDS node's receiver (snps-wire.md §8,
 * §11.4, §15.17), the subscriber side of the reference implementation's
 * examples (`examples/basic` sub_listener), for the namespace tests:
 *
 *   realnode PORT COUNT MS [DEPTH [IFACE [MIN_STATUS]]]
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
 * With IFACE, it also takes part in discovery as the examples' subscriber
 * does (§10): a second socket on PORT+20 in ff02::10, ff02::20 and
 * ff02::30 on IFACE, a DCPSParticipant (the capture's frame, node id 000b)
 * at start and every second, and a DCPSSubscription of topic 10 naming
 * ff02::10 in answer to each DCPSPublication of topic 10; frames from
 * both sockets go through the same receiver. It counts the frames that
 * held a STATUS submessage (sddsd's announcement that it packs, which a
 * real node skips); with MIN_STATUS, fewer such frames also make it fail.
 * It prints "ready" (the harness closes that pipe after the first line),
 * and at the end "taken N frames F ..." and, when the count is wrong, the
 * samples taken on stderr. It ends COUNT samples and 300 ms without data later,
 * or after MS milliseconds. Exit: 0 when it took exactly COUNT distinct
 * samples, 1 otherwise, 2 on an error. Frames the decoder refuses are
 * counted as ignored (a real node drops them too).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
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

#include <snps/snps.h>

#define RN_TOPIC 10u
#define RN_SIZE 4u
#define RN_MAX_DEPTH 64u
#define RN_MAX_TAKEN 65536u

struct realnode {
	uint8_t hist[RN_MAX_DEPTH][RN_SIZE]; /* oldest at head */
	uint32_t head, n, depth;
	uint16_t last_topic;
	bool data_seen;
	bool status_seen; /* the frame held a STATUS */
	bool publication; /* the frame held a DCPSPublication of RN_TOPIC */
	uint32_t taken;
	uint32_t taken_v[RN_MAX_TAKEN]; /* key << 16 | value of each take */
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Topic 10, and the builtins when it takes part in discovery (ctx non-NULL). */
static int rn_lookup(void *ctx, uint8_t domain, uint16_t topic, uint32_t *ret_size)
{
	(void)domain;
	if (topic == RN_TOPIC) {
		*ret_size = RN_SIZE;
		return 0;
	}
	return ctx != NULL ? snps_builtin_size(topic, ret_size) : -1;
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
	if (ev->kind == SNPS_EV_SKIPPED && snps_submsg_type(ev->hdr) == SNPS_BT_STATUS)
		r->status_seen = true;
	/* DCPSPublication: key, participant_key, topic_id (BE16 each, §10.1). */
	if (ev->kind == SNPS_EV_DATA && ev->domain == SNPS_BUILTIN_DOMAIN &&
	    ev->topic == SNPS_BUILTIN_PUBLICATION && ev->len == 6 && ev->data[4] == 0 &&
	    ev->data[5] == RN_TOPIC)
		r->publication = true;
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

/* From shared/captures/discovery.frames.tsv (the examples' subscriber), node id d36b made 000b. */
static const uint8_t rn_participant[] = {0x01, 0x04, 0x10, 0x11, 0x68, 0x11, 0x02, 0x00,
					 0x00, 0x00, 0x00, 0x30, 0x22, 0x00, 0x0b};
static const uint8_t rn_subscription[] = {0x01, 0x04, 0x10, 0x41, 0x68, 0x11, 0x02, 0x00, 0x00, 0x00,
					  0x00, 0x10, 0x62, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x0a};

/* One frame from the multicast socket to group ff02::g, port. */
static void rn_announce(int fd, unsigned ifindex, uint8_t g, uint16_t port, const uint8_t *f, size_t len)
{
	struct sockaddr_in6 to = {
	    .sin6_family = AF_INET6, .sin6_port = htons(port), .sin6_scope_id = ifindex};

	to.sin6_addr.s6_addr[0] = 0xff;
	to.sin6_addr.s6_addr[1] = 0x02;
	to.sin6_addr.s6_addr[15] = g;
	(void)sendto(fd, f, len, 0, (struct sockaddr *)&to, sizeof(to));
}

/* The multicast socket of discovery: [::]:port in the groups ff02::10, ::20 and ::30 on ifindex. */
static int rn_mcast_socket(uint16_t port, unsigned ifindex)
{
	struct sockaddr_in6 a = {
	    .sin6_family = AF_INET6, .sin6_port = htons(port), .sin6_addr = IN6ADDR_ANY_INIT};
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1, hops = 1;
	static const uint8_t groups[] = {0x10, 0x20, 0x30};

	if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifindex, sizeof(ifindex)) < 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops, sizeof(hops)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(groups); i++) {
		struct ipv6_mreq mr = {.ipv6mr_interface = ifindex};

		mr.ipv6mr_multiaddr.s6_addr[0] = 0xff;
		mr.ipv6mr_multiaddr.s6_addr[1] = 0x02;
		mr.ipv6mr_multiaddr.s6_addr[15] = groups[i];
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr, sizeof(mr)) < 0)
			return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	static struct realnode r;
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
	struct snps_decoder_options o;
	uint32_t count, frames = 0, ignored = 0, status_frames = 0, subs_sent = 0;
	int64_t end, quiet_until = -1, next_participant = 0;
	uint8_t buf[65536];
	int fd, mfd = -1, one = 1;
	unsigned ifindex = 0;
	uint16_t port;
	long ms;

	if (argc < 4 || argc > 7) {
		fprintf(stderr, "usage: realnode PORT COUNT MS [DEPTH [IFACE [MIN_STATUS]]]\n");
		return 2;
	}
	port = (uint16_t)strtoul(argv[1], NULL, 0);
	a.sin6_port = htons(port);
	count = (uint32_t)strtoul(argv[2], NULL, 0);
	ms = strtol(argv[3], NULL, 0);
	r.depth = argc >= 5 ? (uint32_t)strtoul(argv[4], NULL, 0) : 20;
	if (r.depth == 0 || r.depth > RN_MAX_DEPTH || ms <= 0) {
		fprintf(stderr, "realnode: DEPTH 1..%u, MS > 0\n", RN_MAX_DEPTH);
		return 2;
	}
	if (argc >= 6 && (ifindex = if_nametoindex(argv[5])) == 0) {
		fprintf(stderr, "realnode: no interface %s\n", argv[5]);
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
	if (ifindex != 0) {
		mfd = rn_mcast_socket((uint16_t)(port + 20), ifindex);
		if (mfd < 0) {
			fprintf(stderr, "realnode: multicast socket on %s: %s\n", argv[5], strerror(errno));
			return 2;
		}
		if (setsockopt(mfd, SOL_SOCKET, SO_RCVBUFFORCE, &(int){4 << 20}, sizeof(int)) < 0)
			(void)setsockopt(mfd, SOL_SOCKET, SO_RCVBUF, &(int){4 << 20}, sizeof(int));
	}
	snps_decoder_options_init(&o);
	o.lookup = rn_lookup;
	o.lookup_ctx = ifindex != 0 ? &r : NULL;
	printf("ready\n");
	fflush(stdout);
	end = now_ms() + ms;
	for (;;) {
		struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = mfd, .events = POLLIN}};
		int64_t t = now_ms(), until = quiet_until >= 0 && quiet_until < end ? quiet_until : end;
		ssize_t len;
		int from;

		if (t >= until)
			break;
		if (mfd >= 0 && t >= next_participant) {
			rn_announce(mfd, ifindex, 0x20, (uint16_t)(port + 20), rn_participant,
				    sizeof(rn_participant));
			next_participant = t + 1000;
		}
		if (mfd >= 0 && next_participant < until)
			until = next_participant;
		if (poll(p, mfd >= 0 ? 2 : 1, (int)(until - t)) <= 0)
			continue;
		from = (p[0].revents & POLLIN) ? fd : mfd;
		len = recv(from, buf, sizeof(buf), MSG_DONTWAIT);
		if (len < 0)
			continue;
		frames++;
		r.data_seen = false;
		r.status_seen = false;
		r.publication = false;
		r.last_topic = 0xffff;
		if (snps_decode(buf, (size_t)len, &o, rn_visit, &r, NULL) < 0) {
			ignored++;
			continue;
		}
		status_frames += r.status_seen;
		/* §10.2: a subscriber answers each Publication of a topic it reads. */
		if (r.publication && mfd >= 0) {
			rn_announce(mfd, ifindex, 0x30, (uint16_t)(port + 20), rn_subscription,
				    sizeof(rn_subscription));
			subs_sent++;
		}
		/* §15.17: once per frame, for the frame's last topic. */
		if (r.last_topic == RN_TOPIC)
			rn_on_data_available(&r);
		/* Silence is of data: discovery's announcements go on. */
		if (r.taken >= count && (r.data_seen || quiet_until < 0))
			quiet_until = now_ms() + 300;
	}
	close(fd);
	if (mfd >= 0)
		close(mfd);
	fprintf(stderr, "realnode: taken %u frames %u ignored %u left %u status %u subscriptions %u\n",
		r.taken, frames, ignored, r.n, status_frames, subs_sent);
	if (argc == 7 && status_frames < strtoul(argv[6], NULL, 0)) {
		fprintf(stderr, "realnode: %u frames with a STATUS, want %s\n", status_frames, argv[6]);
		return 1;
	}
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
