/* SPDX-License-Identifier: MIT */
/*
 * net_helper.c - the processes the namespace tests run inside a network
 * namespace (through `ip netns exec`):
 *
 *   net_helper write SOCKET TOPIC COUNT       a libsddsclient writer: COUNT
 *                                             samples numbered 0..COUNT-1
 *   net_helper read SOCKET TOPIC COUNT MS     a reliable reader: exactly COUNT
 *                                             samples, in order, then nothing
 *                                             more for 300 ms; exit 0 if so
 *   net_helper expect SOCKET DEVICE VALUE N MS  N temperature samples equal to
 *                                             (DEVICE, VALUE)
 *   net_helper mismatch SOCKET                registering temperature (1/10) with
 *                                             another layout must be refused
 *   net_helper garbage DST_IP IFACE COUNT     COUNT malformed datagrams at
 *                                             [DST_IP%IFACE]:23234 (every
 *                                             rejection reason, random bytes,
 *                                             oversized)
 *   net_helper pairs SOCKET COUNT MS          COUNT pairs of temperature samples,
 *                                             device 1 and device 2 back to
 *                                             back (value = pair number), a
 *                                             pair every MS ms
 *   net_helper extids DST_IP IFACE            for every topic id 0..65535 in an
 *                                             extended TOPIC (BF hh ll), one
 *                                             ACKSEQ and one NACKSEQ frame of
 *                                             6 bytes at [DST_IP%IFACE]:23234
 *   net_helper replay SRC_IP DST_IP IFACE TSV  the payloads of a capture's
 *                                             frames.tsv, sent from SRC_IP
 *   net_helper replay-as SRC_IP IFACE TSV     the frames SRC_IP sent in the
 *                                             capture, from its address and
 *                                             source port to the captured
 *                                             destination (groups too) and port
 *
 *   net_helper exchange SOCKET OUT IN COUNT MS GO  one client: a reader of IN,
 *                                             "ready", then once the file GO
 *                                             exists COUNT samples of OUT
 *                                             written, then COUNT of IN read
 *                                             as `read` does
 *
 * SOCKET "mono:CONFIG" is for net_helper_mono, the same source linked with
 * libsddsmono: the client runs the broker and the network side of the
 * daemon-style config CONFIG in the helper's process (no daemon).
 * TOPIC is "temperature" (domain 1, id 10: device, value; the sample's
 * value carries the number) or "counter" (domain 2, id 11: seq, tag[7]).
 * Exit status: 0 success, 1 a check failed, 2 an error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sdds/sdds.h"

static const sdds_field temp_fields[] = {
    {"device", SDDS_FIELD_USHORT, 2},
    {"value", SDDS_FIELD_SHORT, 2},
};
static const sdds_field counter_fields[] = {
    {"seq", SDDS_FIELD_ULONG, 4},
    {"tag", SDDS_FIELD_STRING, 8},
};

static int topic_desc(const char *name, sdds_topic_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->name = name;
	if (strcmp(name, "temperature") == 0) {
		d->domain = 1;
		d->id = 10;
		d->sample_size = 4;
		d->fields = temp_fields;
		d->n_fields = 2;
		return 0;
	}
	if (strcmp(name, "counter") == 0) {
		d->domain = 2;
		d->id = 11;
		d->sample_size = 12;
		d->fields = counter_fields;
		d->n_fields = 2;
		return 0;
	}
	return -EINVAL;
}

/* Sample i of a topic; its number is recoverable by sample_seq. */
static void sample_make(const sdds_topic_desc *d, uint32_t i, uint8_t *s)
{
	memset(s, 0, d->sample_size);
	if (d->id == 10) {
		s[0] = 0xd2;
		s[1] = 0x6a;
		s[2] = (uint8_t)(i >> 8);
		s[3] = (uint8_t)i;
	} else {
		s[0] = (uint8_t)(i >> 24);
		s[1] = (uint8_t)(i >> 16);
		s[2] = (uint8_t)(i >> 8);
		s[3] = (uint8_t)i;
		snprintf((char *)s + 4, 8, "n%06u", i % 1000000);
	}
}

static int connect_topic(const char *sock, const char *topic, sdds_client **rc_client, sdds_topic **rt,
			 sdds_topic_desc *d)
{
	sdds_client_options o;
	int rc;

	if (topic_desc(topic, d) < 0) {
		fprintf(stderr, "net_helper: unknown topic %s\n", topic);
		return -EINVAL;
	}
	sdds_client_options_init(&o);
	o.socket_path = sock;
	if (strncmp(sock, "mono:", 5) == 0)
		o.net_config = sock + 5;
	o.name = "net_helper";
	o.reconnect = 0;
	rc = sdds_client_new(&o, rc_client);
	if (rc < 0) {
		fprintf(stderr, "net_helper: connect %s: %s\n", sock, sdds_strerror(rc));
		return rc;
	}
	rc = sdds_topic_new(*rc_client, d, rt);
	if (rc < 0) {
		fprintf(stderr, "net_helper: topic %s: %s\n", topic, sdds_strerror(rc));
		sdds_client_free(*rc_client);
	}
	return rc;
}

/* COUNT numbered samples of t, paced; 0 or 2 (an error). */
static int write_n(sdds_topic *t, const sdds_topic_desc *d, uint32_t count)
{
	sdds_writer *w;
	sdds_qos q;
	uint8_t s[64];

	sdds_qos_init(&q);
	q.reliability = SDDS_RELIABLE;
	q.max_blocking_ms = 2000;
	if (sdds_writer_new(t, &q, &w) < 0)
		return 2;
	for (uint32_t i = 0; i < count; i++) {
		int rc;

		sample_make(d, i, s);
		rc = sdds_writer_write(w, s, d->sample_size);
		if (rc < 0) {
			fprintf(stderr, "net_helper: write %u: %s\n", i, sdds_strerror(rc));
			return 2;
		}
		/* Pace a little: the wire has no back-pressure (a quiet link, not a flood). */
		if (i % 64 == 63)
			usleep(2000);
	}
	usleep(200 * 1000); /* let the daemon route the tail before the writer goes */
	sdds_writer_free(w);
	return 0;
}

/* Two instances written back to back, as an application with two devices does. */
static int do_pairs(const char *sock, uint32_t count, long ms)
{
	sdds_client *c;
	sdds_topic *t;
	sdds_topic_desc d;
	sdds_writer *w;
	sdds_qos q;

	if (connect_topic(sock, "temperature", &c, &t, &d) < 0)
		return 2;
	sdds_qos_init(&q);
	q.reliability = SDDS_RELIABLE;
	q.max_blocking_ms = 2000;
	if (sdds_writer_new(t, &q, &w) < 0)
		return 2;
	for (uint32_t i = 0; i < count; i++) {
		for (uint8_t dev = 1; dev <= 2; dev++) {
			uint8_t s[4] = {0, dev, (uint8_t)(i >> 8), (uint8_t)i};
			int rc = sdds_writer_write(w, s, sizeof(s));

			if (rc < 0) {
				fprintf(stderr, "net_helper: pair %u: %s\n", i, sdds_strerror(rc));
				return 2;
			}
		}
		usleep((useconds_t)ms * 1000);
	}
	usleep(200 * 1000); /* let the daemon route the tail before the writer goes */
	sdds_writer_free(w);
	sdds_topic_free(t);
	sdds_client_free(c);
	return 0;
}

static int do_write(const char *sock, const char *topic, uint32_t count)
{
	sdds_client *c;
	sdds_topic *t;
	sdds_topic_desc d;

	if (connect_topic(sock, topic, &c, &t, &d) < 0)
		return 2;
	if (write_n(t, &d, count) != 0)
		return 2;
	sdds_topic_free(t);
	sdds_client_free(c);
	return 0;
}

static int reader_open(sdds_topic *t, sdds_reader **ret)
{
	sdds_qos q;

	sdds_qos_init(&q);
	q.reliability = SDDS_RELIABLE;
	q.history_depth = 256;
	return sdds_reader_new(t, &q, ret);
}

/* Exactly COUNT numbered samples in order, then nothing for 300 ms: 0, else 1. */
static int read_n(sdds_reader *r, const sdds_topic_desc *d, const char *topic, uint32_t count, int64_t ms)
{
	uint8_t s[64], want[64];
	size_t len;
	int rc;

	for (uint32_t i = 0; i < count; i++) {
		rc = sdds_reader_take(r, s, sizeof(s), &len, ms * 1000000);
		if (rc < 0) {
			fprintf(stderr, "net_helper: %s: took %u of %u: %s\n", topic, i, count,
				sdds_strerror(rc));
			return 1;
		}
		sample_make(d, i, want);
		if (len != d->sample_size || memcmp(s, want, len) != 0) {
			fprintf(stderr,
				"net_helper: %s: sample %u is not the one written (out of order or corrupt):",
				topic, i);
			for (size_t k = 0; k < len; k++)
				fprintf(stderr, " %02x", s[k]);
			fputc('\n', stderr);
			return 1;
		}
	}
	rc = sdds_reader_take(r, s, sizeof(s), &len, 300 * 1000000LL);
	if (rc != -ETIMEDOUT) {
		fprintf(stderr, "net_helper: %s: a sample beyond the %u written (rc %d)\n", topic, count, rc);
		return 1;
	}
	fprintf(stderr, "%s: %u samples in order\n", topic, count);
	return 0;
}

static int do_read(const char *sock, const char *topic, uint32_t count, int64_t ms)
{
	sdds_client *c;
	sdds_topic *t;
	sdds_reader *r;
	sdds_topic_desc d;
	int rc;

	if (connect_topic(sock, topic, &c, &t, &d) < 0)
		return 2;
	if (reader_open(t, &r) < 0)
		return 2;
	printf("ready\n");
	fflush(stdout);
	rc = read_n(r, &d, topic, count, ms);
	if (rc != 0)
		return rc;
	sdds_reader_free(r);
	sdds_topic_free(t);
	sdds_client_free(c);
	return 0;
}

static int do_exchange(const char *sock, const char *out, const char *in, uint32_t count, int64_t ms,
		       const char *go)
{
	sdds_topic_desc dout, din;
	sdds_topic *tout, *tin;
	sdds_client *c;
	sdds_reader *r;
	int rc;

	if (connect_topic(sock, in, &c, &tin, &din) < 0)
		return 2;
	if (topic_desc(out, &dout) < 0 || sdds_topic_new(c, &dout, &tout) < 0 || reader_open(tin, &r) < 0)
		return 2;
	printf("ready\n");
	fflush(stdout);
	for (int64_t waited = 0; access(go, F_OK) != 0; waited++) {
		if (waited > ms) {
			fprintf(stderr, "net_helper: %s never appeared\n", go);
			return 2;
		}
		usleep(1000);
	}
	if (write_n(tout, &dout, count) != 0)
		return 2;
	rc = read_n(r, &din, in, count, ms);
	if (rc != 0)
		return rc;
	sdds_reader_free(r);
	sdds_topic_free(tin);
	sdds_topic_free(tout);
	sdds_client_free(c);
	return 0;
}

static int do_expect(const char *sock, unsigned device, int value, uint32_t n, int64_t ms)
{
	sdds_client *c;
	sdds_topic *t;
	sdds_reader *r;
	sdds_topic_desc d;
	sdds_qos q;
	uint8_t s[64];
	size_t len;

	if (connect_topic(sock, "temperature", &c, &t, &d) < 0)
		return 2;
	sdds_qos_init(&q);
	q.reliability = SDDS_RELIABLE;
	if (sdds_reader_new(t, &q, &r) < 0)
		return 2;
	printf("ready\n");
	fflush(stdout);
	for (uint32_t i = 0; i < n; i++) {
		int rc = sdds_reader_take(r, s, sizeof(s), &len, ms * 1000000);

		if (rc < 0) {
			fprintf(stderr, "net_helper: took %u of %u: %s\n", i, n, sdds_strerror(rc));
			return 1;
		}
		if (((unsigned)s[0] << 8 | s[1]) != device ||
		    (int16_t)((unsigned)s[2] << 8 | s[3]) != value) {
			fprintf(stderr, "net_helper: sample %u: device %02x%02x value %d\n", i, s[0], s[1],
				(int16_t)((unsigned)s[2] << 8 | s[3]));
			return 1;
		}
	}
	fprintf(stderr, "temperature: %u samples device %04X value %d\n", n, device, value);
	sdds_reader_free(r);
	sdds_topic_free(t);
	sdds_client_free(c);
	return 0;
}

static int udp_to(const char *src, const char *dst, const char *iface, int *ret_fd, struct sockaddr_in6 *to)
{
	int fd = socket(AF_INET6, SOCK_DGRAM, 0);

	if (fd < 0)
		return -errno;
	memset(to, 0, sizeof(*to));
	to->sin6_family = AF_INET6;
	to->sin6_port = htons(23234);
	to->sin6_scope_id = if_nametoindex(iface);
	if (inet_pton(AF_INET6, dst, &to->sin6_addr) != 1 || to->sin6_scope_id == 0) {
		close(fd);
		return -EINVAL;
	}
	if (src != NULL) {
		struct sockaddr_in6 me = *to;

		me.sin6_port = 0;
		inet_pton(AF_INET6, src, &me.sin6_addr);
		if (bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
			int rc = -errno;

			close(fd);
			return rc;
		}
	}
	*ret_fd = fd;
	return 0;
}

static int do_garbage(const char *dst, const char *iface, uint32_t count)
{
	static const struct {
		uint8_t b[12];
		size_t len;
	} bad[] = {
	    {{0x01}, 1},						 /* short header */
	    {{0x02, 0x00}, 2},						 /* bad version */
	    {{0x01, 0x02, 0x10}, 3},					 /* count high */
	    {{0x01, 0x01, 0x10, 0x10}, 4},				 /* count low */
	    {{0x01, 0x02, 0xa1, 0x42, 0xd2}, 5},			 /* truncated */
	    {{0x01, 0x01, 0x2f}, 3},					 /* unknown ext */
	    {{0x01, 0x01, 0x42, 1, 2, 3, 4}, 7},			 /* no topic */
	    {{0x01, 0x02, 0xe1, 0x42, 1, 2, 3, 4}, 8},			 /* unknown topic */
	    {{0x01, 0x01, 0x38, 0x10, 1, 2, 3}, 7},			 /* bad address */
	    {{0x01, 0x03, 0xa1, 0x0f, 0x10}, 5},			 /* ack without seqnr */
	    {{0x01, 0x02, 0xa1, 0xef, 0x02, 0, 0}, 7},			 /* bad secure */
	    {{0x01, 0x03, 0x30, 0xa1, 0x42, 0xd2, 0x6a, 0x00, 0x15}, 9}, /* wrong domain */
	};
	struct sockaddr_in6 to;
	uint8_t buf[1500];
	int fd;

	if (udp_to(NULL, dst, iface, &fd, &to) < 0)
		return 2;
	srand(11);
	for (uint32_t i = 0; i < count; i++) {
		size_t len;
		uint32_t k = i % (sizeof(bad) / sizeof(bad[0]) + 2);

		if (k < sizeof(bad) / sizeof(bad[0])) {
			memcpy(buf, bad[k].b, bad[k].len);
			len = bad[k].len;
		} else if (k == sizeof(bad) / sizeof(bad[0])) {
			len = 129 + (size_t)(rand() % 1200); /* oversized */
			memset(buf, 0x01, len);
		} else {
			len = (size_t)(rand() % 100);
			for (size_t j = 0; j < len; j++)
				buf[j] = (uint8_t)rand();
			/* Never a well-formed temperature frame by accident. */
			if (len > 0)
				buf[0] = 0x7f;
		}
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0 && errno != ECONNREFUSED)
			return 2;
		if (i % 32 == 31)
			usleep(1000); /* a receive buffer is finite: count them all */
	}
	close(fd);
	return 0;
}

/*
 * The frames of issue 9's remote crash: 01 02 BF hh ll 05 (ACKSEQ 0) and
 * ... 06 (NACKSEQ 0) indexed a 16-entry table with the 16-bit id.
 */
static int do_extids(const char *dst, const char *iface)
{
	struct sockaddr_in6 to;
	uint8_t f[6] = {0x01, 0x02, 0xbf, 0, 0, 0};
	uint32_t sent = 0;
	int fd;

	if (udp_to(NULL, dst, iface, &fd, &to) < 0)
		return 2;
	for (uint32_t id = 0; id <= 0xffff; id++) {
		for (uint8_t kind = 0x05; kind <= 0x06; kind++) {
			f[3] = (uint8_t)(id >> 8);
			f[4] = (uint8_t)id;
			f[5] = kind;
			if (sendto(fd, f, sizeof(f), 0, (struct sockaddr *)&to, sizeof(to)) < 0 &&
			    errno != ECONNREFUSED)
				return 2;
			if (++sent % 32 == 0)
				usleep(500); /* a receive buffer is finite: count them all */
		}
	}
	close(fd);
	return 0;
}

static int unhex(const char *s, uint8_t *out, size_t cap, size_t *ret_len)
{
	size_t n = 0;

	while (s[0] != '\0' && s[0] != '\n' && s[1] != '\0') {
		unsigned v;

		if (n == cap || sscanf(s, "%2x", &v) != 1)
			return -EINVAL;
		out[n++] = (uint8_t)v;
		s += 2;
	}
	*ret_len = n;
	return 0;
}

static int do_replay(const char *src, const char *dst, const char *iface, const char *tsv)
{
	struct sockaddr_in6 to;
	char line[4096];
	FILE *f = fopen(tsv, "r");
	int fd, sent = 0;

	if (f == NULL || udp_to(src, dst, iface, &fd, &to) < 0)
		return 2;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *col = line, *data;
		uint8_t buf[2048];
		size_t len;
		int c;

		/* number time src srcport dst dstport hlim data */
		for (c = 0; c < 7 && col != NULL; c++) {
			col = strchr(col, '\t');
			if (col != NULL)
				col++;
		}
		if (col == NULL || line[0] < '0' || line[0] > '9')
			continue;
		data = col;
		if (unhex(data, buf, sizeof(buf), &len) < 0)
			continue;
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
			return 2;
		sent++;
		usleep(1000);
	}
	fclose(f);
	close(fd);
	fprintf(stderr, "replayed %d frames\n", sent);
	return sent > 0 ? 0 : 2;
}

/* Column c (0-based) of a tab-separated line into out. */
static int tsv_col(const char *line, int c, char *out, size_t cap)
{
	const char *p = line, *e;

	for (int i = 0; i < c; i++) {
		p = strchr(p, '\t');
		if (p == NULL)
			return -1;
		p++;
	}
	e = p + strcspn(p, "\t\n");
	if ((size_t)(e - p) >= cap)
		return -1;
	memcpy(out, p, (size_t)(e - p));
	out[e - p] = '\0';
	return 0;
}

static int do_replay_as(const char *src, const char *iface, const char *tsv)
{
	char line[4096], col[1024];
	FILE *f = fopen(tsv, "r");
	unsigned ifindex = if_nametoindex(iface);
	int fd = -1, sent = 0, one = 1, zero = 0, hops = 1;

	if (f == NULL || ifindex == 0)
		return 2;
	while (fgets(line, sizeof(line), f) != NULL) {
		struct sockaddr_in6 to = {.sin6_family = AF_INET6, .sin6_scope_id = ifindex};
		uint8_t buf[2048];
		size_t len;

		if (line[0] < '0' || line[0] > '9' || tsv_col(line, 2, col, sizeof(col)) < 0 ||
		    strcmp(col, src) != 0)
			continue;
		if (fd < 0) {
			struct sockaddr_in6 me = {.sin6_family = AF_INET6, .sin6_scope_id = ifindex};

			if (tsv_col(line, 3, col, sizeof(col)) < 0)
				return 2;
			me.sin6_port = htons((uint16_t)atoi(col));
			inet_pton(AF_INET6, src, &me.sin6_addr);
			fd = socket(AF_INET6, SOCK_DGRAM, 0);
			/* The daemon here holds the multicast port with SO_REUSEADDR too. */
			if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
			    setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifindex, sizeof(ifindex)) < 0 ||
			    setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &zero, sizeof(zero)) < 0 ||
			    setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops, sizeof(hops)) < 0 ||
			    bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
				perror("net_helper: replay-as socket");
				return 2;
			}
		}
		if (tsv_col(line, 4, col, sizeof(col)) < 0 || inet_pton(AF_INET6, col, &to.sin6_addr) != 1 ||
		    tsv_col(line, 5, col, sizeof(col)) < 0)
			continue;
		to.sin6_port = htons((uint16_t)atoi(col));
		if (tsv_col(line, 7, col, sizeof(col)) < 0 || unhex(col, buf, sizeof(buf), &len) < 0)
			continue;
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
			perror("net_helper: replay-as sendto");
			return 2;
		}
		sent++;
		usleep(1000);
	}
	fclose(f);
	if (fd >= 0)
		close(fd);
	fprintf(stderr, "replayed %d frames of %s\n", sent, src);
	return sent > 0 ? 0 : 2;
}

static int do_mismatch(const char *sock)
{
	static const sdds_field wrong[] = {
	    {"device", SDDS_FIELD_ULONG, 4},
	    {"value", SDDS_FIELD_SHORT, 2},
	};
	static const sdds_field reordered[] = {
	    {"value", SDDS_FIELD_SHORT, 2},
	    {"device", SDDS_FIELD_BOOLEAN, 1},
	    {"pad", SDDS_FIELD_OCTET, 1},
	};
	sdds_topic_desc d = {
	    .name = "temperature", .domain = 1, .id = 10, .sample_size = 6, .fields = wrong, .n_fields = 2};
	sdds_client_options o;
	sdds_client *c;
	sdds_topic *t;
	int rc;

	sdds_client_options_init(&o);
	o.socket_path = sock;
	o.reconnect = 0;
	if (sdds_client_new(&o, &c) < 0)
		return 2;
	rc = sdds_topic_new(c, &d, &t);
	if (rc != -EINVAL) {
		fprintf(stderr, "net_helper: a 6-byte temperature was not refused (%d)\n", rc);
		return 1;
	}
	d.sample_size = 4;
	d.fields = reordered;
	d.n_fields = 3;
	rc = sdds_topic_new(c, &d, &t);
	if (rc != -EINVAL) {
		fprintf(stderr, "net_helper: a temperature of another layout was not refused (%d)\n", rc);
		return 1;
	}
	sdds_client_free(c);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "mismatch") == 0)
		return do_mismatch(argv[2]);
	if (argc == 5 && strcmp(argv[1], "replay-as") == 0)
		return do_replay_as(argv[2], argv[3], argv[4]);
	if (argc == 5 && strcmp(argv[1], "write") == 0)
		return do_write(argv[2], argv[3], (uint32_t)strtoul(argv[4], NULL, 0));
	if (argc == 6 && strcmp(argv[1], "read") == 0)
		return do_read(argv[2], argv[3], (uint32_t)strtoul(argv[4], NULL, 0),
			       strtoll(argv[5], NULL, 0));
	if (argc == 7 && strcmp(argv[1], "expect") == 0)
		return do_expect(argv[2], (unsigned)strtoul(argv[3], NULL, 0), atoi(argv[4]),
				 (uint32_t)strtoul(argv[5], NULL, 0), strtoll(argv[6], NULL, 0));
	if (argc == 8 && strcmp(argv[1], "exchange") == 0)
		return do_exchange(argv[2], argv[3], argv[4], (uint32_t)strtoul(argv[5], NULL, 0),
				   strtoll(argv[6], NULL, 0), argv[7]);
	if (argc == 5 && strcmp(argv[1], "garbage") == 0)
		return do_garbage(argv[2], argv[3], (uint32_t)strtoul(argv[4], NULL, 0));
	if (argc == 5 && strcmp(argv[1], "pairs") == 0)
		return do_pairs(argv[2], (uint32_t)strtoul(argv[3], NULL, 0), strtol(argv[4], NULL, 0));
	if (argc == 4 && strcmp(argv[1], "extids") == 0)
		return do_extids(argv[2], argv[3]);
	if (argc == 6 && strcmp(argv[1], "replay") == 0)
		return do_replay(argv[2], argv[3], argv[4], argv[5]);
	fprintf(stderr, "usage: see net_helper.c\n");
	return 2;
}
