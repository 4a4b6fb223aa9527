/* SPDX-License-Identifier: MIT */
/*
 * test_netif.c - the network layer on a fake backend: local -> network
 * frames (§7 recipe, batching within max_frame, swapped peers), network ->
 * local delivery, no echo, every rejection counted by reason and never
 * delivered, the backlog behind a full reliable reader, stats.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "broker.h"
#include "fake_backend.h"
#include "netif.h"
#include "netstats.h"
#include <sddsxml/nodecfg.h>
#include "ring.h"
#include <snps/snps.h>

static const char node_xml[] = "<project name=\"t\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" "
			       "ip=\"fe80::1\" iface=\"fk0\" port=\"23234\">\n"
			       "<domain id=\"1\">\n"
			       "<topic name=\"temperature\" domain=\"1\" id=\"A\">\n"
			       "  <attribute name=\"device\" type=\"DDS_unsigned_short\"/>\n"
			       "  <attribute name=\"value\" type=\"DDS_short\"/>\n"
			       "</topic>\n"
			       "<topic name=\"probe\" domain=\"1\" id=\"C\">\n"
			       "  <attribute name=\"a\" type=\"DDS_unsigned_long\"/>\n"
			       "  <attribute name=\"s\" type=\"DDS_string\" size=\"3\"/>\n"
			       "</topic>\n"
			       "</domain>\n"
			       "<role topic=\"temperature\" type=\"publisher\"/>\n"
			       "<role topic=\"probe\" type=\"subscriber\"/>\n"
			       "<subscription topic=\"temperature\"><subscriber ip=\"fe80::2\"/><subscriber "
			       "ip=\"fe80::3\" port=\"4000\"/></subscription>\n"
			       "<subscription topic=\"probe\"><subscriber ip=\"fe80::2\"/></subscription>\n"
			       "</project>\n";

struct local_reader {
	void *mem;
	struct rring_cons cons;
	struct broker_reader *r;
};

struct fx {
	uv_loop_t loop;
	struct broker *b;
	struct netif *n;
	struct nodecfg *nc;
	struct broker_topic *temp, *probe;
	struct broker_writer *w; /* a local client's writer of temperature, owner 5 */
	struct local_reader rd;	 /* a local client's reader of temperature, owner 7 */
};

static void reader_open(struct fx *f, struct broker_topic *t, bool reliable, uint32_t cap,
			struct local_reader *lr)
{
	struct broker_qos q = {.reliability = reliable ? BROKER_RELIABLE : BROKER_BEST_EFFORT,
			       .history_depth = cap};
	uint32_t size = broker_topic_desc(t)->sample_size;
	size_t bytes = rring_size(cap, size);
	struct rring_prod prod;

	lr->mem = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	assert_non_null(lr->mem);
	rring_format(lr->mem, cap, rring_slot_size(size));
	assert_int_equal(rring_prod_init(&prod, lr->mem, cap, rring_slot_size(size)), 0);
	assert_int_equal(rring_cons_init(&lr->cons, lr->mem, cap, rring_slot_size(size)), 0);
	assert_int_equal(broker_reader_new(f->b, t, &q, 7, &prod, NULL, NULL, &lr->r), 0);
}

static void reader_close(struct local_reader *lr)
{
	broker_reader_free(lr->r);
	free(lr->mem);
}

static int reader_take(struct local_reader *lr, uint8_t *buf)
{
	uint32_t len = 0;
	int rc = rring_cons_take(&lr->cons, buf, 64, &len, NULL, NULL);

	return rc == 1 ? (int)len : rc;
}

/* swap: a peer_endian_swap address or NULL; pack: both subscribers are peer_pack. */
static int fx_open_opts(struct fx *f, uint32_t max_frame, const char *swap, bool pack)
{
	struct nodecfg_error err;
	struct netif_options o;
	struct in6_addr sw, pk[2];
	struct broker_topic_desc d;
	struct broker_qos wq = {.reliability = BROKER_RELIABLE, .history_depth = 1, .max_blocking_ms = 100};
	char why[512];
	int rc;

	memset(f, 0, sizeof(*f));
	fake_reset();
	assert_int_equal(uv_loop_init(&f->loop), 0);
	assert_int_equal(broker_new(NULL, &f->b), 0);
	rc = nodecfg_load_memory(node_xml, sizeof(node_xml) - 1, "node.xml", &f->nc, &err);
	if (rc < 0)
		fail_msg("%s", err.msg);
	netif_options_init(&o);
	o.backend = &fake_backend_ops;
	o.node = f->nc;
	o.links[0] = "fk0";
	o.n_links = 1;
	o.max_frame = max_frame;
	o.backlog_cap = 8;
	if (swap != NULL) {
		inet_pton(AF_INET6, swap, &sw);
		o.swap_peers = &sw;
		o.n_swap_peers = 1;
	}
	if (pack) {
		inet_pton(AF_INET6, "fe80::2", &pk[0]);
		inet_pton(AF_INET6, "fe80::3", &pk[1]);
		o.pack_peers = pk;
		o.n_pack_peers = 2;
	}
	rc = netif_new(&f->loop, f->b, &o, NULL, &f->n, why, sizeof(why));
	if (rc < 0)
		fail_msg("netif_new: %s", why);
	/* A local client registers the same topics, as an application would. */
	netif_broker_desc(&f->nc->topics[0].desc, &d);
	assert_int_equal(broker_topic_get(f->b, &d, &f->temp), 0);
	netif_broker_desc(&f->nc->topics[1].desc, &d);
	assert_int_equal(broker_topic_get(f->b, &d, &f->probe), 0);
	assert_int_equal(broker_writer_new(f->b, f->temp, &wq, 5, &f->w), 0);
	return 0;
}

static int fx_open(struct fx *f, uint32_t max_frame, const char *swap)
{
	return fx_open_opts(f, max_frame, swap, false);
}

static void fx_close(struct fx *f)
{
	struct netif_pool_usage pu;
	struct broker_usage bu;

	broker_writer_free(f->w);
	if (f->rd.r != NULL)
		reader_close(&f->rd);
	broker_topic_put(f->temp);
	broker_topic_put(f->probe);
	/* Nothing leaked: every pool entry is back (lwIP's tests check MEMP_STATS so). */
	netif_flush(f->n);
	netif_pool_usage(f->n, &pu);
	assert_int_equal(pu.backlog, 0);
	netif_close(f->n);
	uv_run(&f->loop, UV_RUN_DEFAULT);
	netif_free(f->n);
	assert_int_equal(fake_open_count(), 0);
	assert_int_equal(uv_loop_close(&f->loop), 0);
	broker_usage(f->b, &bu);
	assert_int_equal(bu.topics, 0);
	assert_int_equal(bu.endpoints, 0);
	broker_free(f->b);
	free(f->nc);
}

static void local_write(struct fx *f, uint16_t dev, int16_t val)
{
	uint8_t s[4] = {(uint8_t)(dev >> 8), (uint8_t)dev, (uint8_t)((uint16_t)val >> 8), (uint8_t)val};

	assert_int_equal(broker_write(f->w, s, 4, 0, NULL), 0);
}

static void test_nodecfg_table(void **state)
{
	struct fx f;

	(void)state;
	fx_open(&f, 128, NULL);
	assert_int_equal(f.nc->n_topics, 2);
	assert_int_equal(f.nc->topics[0].desc.topic_id, 10);
	assert_int_equal(f.nc->topics[0].desc.sample_size, 4);
	assert_int_equal(f.nc->topics[1].desc.sample_size, 8);
	assert_int_equal(f.nc->topics[1].desc.n_fields, 2);
	assert_int_equal(f.nc->n_dests, 3);
	assert_int_equal(f.nc->dests[1].port, 4000);
	/* Six groups joined on the link (§1). */
	assert_int_equal(fake_joined(), 6);
	/* Peers: fe80::2 (both topics) and fe80::3. */
	assert_int_equal(netif_peers(f.n)->n, 2);
	fx_close(&f);
}

static void test_local_to_net_recipe(void **state)
{
	static const uint8_t want[] = {0x01, 0x03, 0x10, 0xa1, 0x42, 0xd2, 0x6a, 0x00, 0x15};
	const struct fake_dgram *d;
	char a[64];
	struct fx f;

	(void)state;
	fx_open(&f, 128, NULL);
	local_write(&f, 0xd26a, 21);
	broker_flush(f.b);
	assert_int_equal(fake_sent(), 0); /* sent at the end of the turn */
	netif_flush(f.n);
	assert_int_equal(fake_sent(), 2);
	d = fake_sent_at(0);
	assert_int_equal(d->len, sizeof(want));
	assert_memory_equal(d->buf, want, sizeof(want));
	inet_ntop(AF_INET6, &d->addr.ip, a, sizeof(a));
	assert_string_equal(a, "fe80::2");
	assert_int_equal(d->addr.port, 23234);
	assert_int_equal(d->addr.ifindex, FAKE_IFINDEX);
	assert_false(d->mcast);
	d = fake_sent_at(1);
	assert_memory_equal(d->buf, want, sizeof(want));
	assert_int_equal(d->addr.port, 4000);
	assert_int_equal(netif_counters(f.n)->samples_out, 2);
	assert_int_equal(netif_counters(f.n)->frames_out, 2);
	fx_close(&f);
}

struct collect {
	uint8_t samples[256][4];
	uint32_t n;
	uint32_t frames;
};

static int collect_lookup(void *ctx, uint8_t domain, uint16_t topic, uint32_t *ret_size)
{
	(void)ctx;
	(void)domain;
	if (topic != 10)
		return -1;
	*ret_size = 4;
	return 0;
}

static int collect_visit(void *ctx, const struct snps_event *ev)
{
	struct collect *c = ctx;

	if (ev->kind == SNPS_EV_DATA && c->n < 256)
		memcpy(c->samples[c->n++], ev->data, 4);
	return 0;
}

/* Toward peer_pack peers, samples of a turn share frames up to max_frame. */
static void test_local_to_net_batching(void **state)
{
	struct snps_decoder_options o;
	struct collect c = {.n = 0};
	struct fx f;

	(void)state;
	fx_open_opts(&f, 128, NULL, true);
	for (int i = 0; i < 30; i++)
		local_write(&f, 0x1234, (int16_t)i);
	broker_flush(f.b);
	netif_flush(f.n);
	/* 4 + 5k <= 127: 24 samples in the first frame, 6 in the second; per peer. */
	assert_int_equal(fake_sent(), 4);
	snps_decoder_options_init(&o);
	o.lookup = collect_lookup;
	for (uint32_t i = 0; i < fake_sent(); i++) {
		const struct fake_dgram *d = fake_sent_at(i);
		char a[64];

		assert_true(d->len < 128);
		inet_ntop(AF_INET6, &d->addr.ip, a, sizeof(a));
		if (strcmp(a, "fe80::2") != 0)
			continue;
		assert_int_equal(snps_decode(d->buf, d->len, &o, collect_visit, &c, NULL), 0);
	}
	assert_int_equal(c.n, 30);
	for (uint32_t i = 0; i < 30; i++)
		assert_int_equal(c.samples[i][3], i);
	assert_int_equal(fake_sent_at(0)->len, 4 + 24 * 5);
	fx_close(&f);
}

/*
 * Toward any other peer, one sample per frame: a real node's receiver
 * takes one sample per received frame (snps-wire.md §15.17).
 */
static void test_local_to_net_one_per_frame(void **state)
{
	struct snps_decoder_options o;
	struct collect c = {.n = 0};
	struct fx f;

	(void)state;
	fx_open(&f, 128, NULL);
	for (int i = 0; i < 30; i++)
		local_write(&f, 0x1234, (int16_t)i);
	broker_flush(f.b);
	netif_flush(f.n);
	assert_int_equal(fake_sent(), 60); /* 30 to each of the two subscribers */
	snps_decoder_options_init(&o);
	o.lookup = collect_lookup;
	for (uint32_t i = 0; i < fake_sent(); i++) {
		const struct fake_dgram *d = fake_sent_at(i);
		char a[64];
		uint32_t before = c.n;

		assert_int_equal(d->len, 4 + 5); /* header, TOPIC+DOMAIN, DATA */
		inet_ntop(AF_INET6, &d->addr.ip, a, sizeof(a));
		if (strcmp(a, "fe80::2") != 0)
			continue;
		assert_int_equal(snps_decode(d->buf, d->len, &o, collect_visit, &c, NULL), 0);
		assert_int_equal(c.n, before + 1);
	}
	assert_int_equal(c.n, 30);
	for (uint32_t i = 0; i < 30; i++)
		assert_int_equal(c.samples[i][3], i);
	assert_int_equal(netif_counters(f.n)->frames_out, 60);
	assert_int_equal(netif_counters(f.n)->samples_out, 60);
	fx_close(&f);
}

static void test_net_to_local_no_echo(void **state)
{
	static const uint8_t frame[] = {0x01, 0x03, 0x10, 0xa1, 0x42, 0xd2, 0x6a, 0x00, 0x15};
	uint8_t buf[64];
	struct fx f;

	(void)state;
	fx_open(&f, 128, NULL);
	reader_open(&f, f.temp, true, 16, &f.rd);
	fake_inject("fe80::2", 48660, false, frame, sizeof(frame));
	netif_receive(f.n);
	assert_int_equal(reader_take(&f.rd, buf), 4);
	assert_memory_equal(buf, frame + 5, 4);
	assert_int_equal(reader_take(&f.rd, buf), 0);
	netif_flush(f.n);
	/* Never sent back out to the network. */
	assert_int_equal(fake_sent(), 0);
	assert_int_equal(netif_counters(f.n)->frames_in, 1);
	assert_int_equal(netif_counters(f.n)->samples_in, 1);
	assert_int_equal(netif_peers(f.n)->v[0].c.samples_in, 1);
	assert_int_equal(netif_peers(f.n)->v[0].last_port, 48660);
	/* A source that is not a static peer becomes a heard one. */
	fake_inject("fe80::99", 1234, false, frame, sizeof(frame));
	netif_receive(f.n);
	assert_int_equal(netif_peers(f.n)->n, 3);
	assert_int_equal(reader_take(&f.rd, buf), 4);
	fx_close(&f);
}

struct bad {
	const char *name;
	const char *src;
	uint16_t port;
	bool mcast;
	uint8_t bytes[200];
	uint32_t len;
	unsigned reason;
};

static void test_garbage_counted(void **state)
{
	static const struct bad bads[] = {
	    {"short", "fe80::2", 5000, false, {0x01}, 1, SNPS_R_SHORT_HEADER},
	    {"version", "fe80::2", 5000, false, {0x02, 0x00}, 2, SNPS_R_BAD_VERSION},
	    {"count high", "fe80::2", 5000, false, {0x01, 0x02, 0x10}, 3, SNPS_R_COUNT_HIGH},
	    {"count low", "fe80::2", 5000, false, {0x01, 0x01, 0x10, 0x10}, 4, SNPS_R_COUNT_LOW},
	    {"truncated", "fe80::2", 5000, false, {0x01, 0x02, 0xa1, 0x42, 0xd2}, 5, SNPS_R_TRUNCATED},
	    {"ext", "fe80::2", 5000, false, {0x01, 0x01, 0x2f}, 3, SNPS_R_UNKNOWN_EXT},
	    {"no topic", "fe80::2", 5000, false, {0x01, 0x01, 0x42, 1, 2, 3, 4}, 7, SNPS_R_NO_TOPIC},
	    {"unknown topic",
	     "fe80::2",
	     5000,
	     false,
	     {0x01, 0x02, 0xb1, 0x42, 1, 2, 3, 4},
	     8,
	     SNPS_R_UNKNOWN_TOPIC},
	    {"address", "fe80::2", 5000, false, {0x01, 0x01, 0x38, 0x10, 1, 2, 3}, 7, SNPS_R_BAD_ADDRESS},
	    {"ack", "fe80::2", 5000, false, {0x01, 0x03, 0xa1, 0x0f, 0x10}, 5, SNPS_R_ACK_NO_SEQNR},
	    {"secure", "fe80::2", 5000, false, {0x01, 0x02, 0xa1, 0xef, 0x02, 0, 0}, 7, SNPS_R_BAD_SECURE},
	    {"oversized", "fe80::2", 5000, false, {0x01, 0x01, 0x10}, 129, NETIF_DROP_OVERSIZED},
	    {"global source", "2001:db8::2", 5000, false, {0x01, 0x01, 0x10}, 3, NETIF_DROP_BAD_SOURCE},
	    {"port 0", "fe80::2", 0, false, {0x01, 0x01, 0x10}, 3, NETIF_DROP_BAD_SOURCE},
	    {"mcast port", "fe80::2", 5000, true, {0x01, 0x01, 0x10}, 3, NETIF_DROP_BAD_PORT},
	    {"own", "fe80::1", 23234, false, {0x01, 0x01, 0x10}, 3, NETIF_DROP_OWN},
	};
	static const uint8_t wrong_domain[] = {0x01, 0x03, 0x20, 0xa1, 0x42, 1, 2, 3, 4};
	static const uint8_t good[] = {0x01, 0x03, 0x10, 0xa1, 0x42, 0xd2, 0x6a, 0x00, 0x15};
	const struct netif_counters *c;
	Sdds__Ctl__NetStats *st;
	uint8_t buf[64];
	void *mem;
	struct fx f;
	uint32_t n_bad = sizeof(bads) / sizeof(bads[0]);

	(void)state;
	fx_open(&f, 128, NULL);
	reader_open(&f, f.temp, true, 1024, &f.rd);
	srand(7);
	for (int round = 0; round < 50; round++) {
		for (uint32_t i = 0; i < n_bad; i++)
			fake_inject(bads[i].src, bads[i].port, bads[i].mcast, bads[i].bytes, bads[i].len);
		fake_inject("fe80::2", 5000, false, wrong_domain, sizeof(wrong_domain));
		fake_inject("fe80::2", 5000, false, good, sizeof(good));
		netif_receive(f.n);
	}
	c = netif_counters(f.n);
	for (uint32_t i = 0; i < n_bad; i++) {
		if (c->drops[bads[i].reason] < 50)
			fail_msg("%s: reason %s counted %llu times, want >= 50", bads[i].name,
				 netif_drop_name(bads[i].reason),
				 (unsigned long long)c->drops[bads[i].reason]);
	}
	assert_int_equal(c->drops[NETIF_DROP_DOMAIN], 50);
	assert_int_equal(c->malformed, 50 * n_bad);
	/* Only the 50 good samples reached the local reader, in order, nothing else. */
	for (int i = 0; i < 50; i++) {
		assert_int_equal(reader_take(&f.rd, buf), 4);
		assert_memory_equal(buf, good + 5, 4);
	}
	assert_int_equal(reader_take(&f.rd, buf), 0);
	/* Random bytes: never a crash, never a sample. */
	for (int i = 0; i < 2000; i++) {
		uint8_t r[160];
		uint32_t len = (uint32_t)(rand() % 160);

		for (uint32_t k = 0; k < len; k++)
			r[k] = (uint8_t)rand();
		if (len > 2 && (rand() & 1)) {
			r[0] = 1;
			r[1] = (uint8_t)(rand() % 6);
		}
		fake_inject("fe80::2", 5000, (rand() % 4) == 0, r, len);
		if (i % 100 == 99)
			netif_receive(f.n);
	}
	netif_receive(f.n);
	while (reader_take(&f.rd, buf) == 4) {
		/* Random frames that happen to be valid temperature samples are fine. */
	}
	assert_int_equal(fake_sent(), 0);
	/* The stats message carries the reasons. */
	assert_int_equal(netstats_build(f.n, &st, &mem), 0);
	assert_true(st->n_drops >= n_bad - 2);
	assert_int_equal(st->malformed, c->malformed);
	assert_int_equal(st->n_peers, netif_peers(f.n)->n);
	free(mem);
	fx_close(&f);
}

static void test_swapped_peer(void **state)
{
	static const uint8_t swapped[] = {0x01, 0x03, 0x10, 0xa1, 0x42, 0x6a, 0xd2, 0x15, 0x00};
	static const uint8_t want_out[] = {0x01, 0x03, 0x10, 0xa1, 0x42, 0x6a, 0xd2, 0x15, 0x00};
	uint8_t buf[64];
	struct fx f;

	(void)state;
	fx_open(&f, 128, "fe80::2");
	reader_open(&f, f.temp, true, 16, &f.rd);
	fake_inject("fe80::2", 5000, false, swapped, sizeof(swapped));
	netif_receive(f.n);
	assert_int_equal(reader_take(&f.rd, buf), 4);
	assert_int_equal(buf[0], 0xd2);
	assert_int_equal(buf[1], 0x6a);
	assert_int_equal(buf[3], 0x15);
	local_write(&f, 0xd26a, 21);
	broker_flush(f.b);
	netif_flush(f.n);
	assert_int_equal(fake_sent(), 2);
	assert_memory_equal(fake_sent_at(0)->buf, want_out, sizeof(want_out)); /* fe80::2: swapped */
	assert_int_equal(fake_sent_at(1)->buf[5], 0xd2);		       /* fe80::3: canonical */
	fx_close(&f);
}

static void test_backlog_order(void **state)
{
	uint8_t frame[2 + 2 + 5 * 12];
	uint8_t buf[64];
	struct fx f;
	uint32_t k = 0, got = 0;

	(void)state;
	fx_open(&f, 128, NULL);
	reader_open(&f, f.temp, true, 2, &f.rd);
	frame[k++] = 0x01;
	frame[k++] = 1 + 1 + 12;
	frame[k++] = 0x10;
	frame[k++] = 0xa1;
	for (int i = 0; i < 12; i++) {
		frame[k++] = 0x42;
		frame[k++] = 0;
		frame[k++] = 1;
		frame[k++] = 0;
		frame[k++] = (uint8_t)i;
	}
	fake_inject("fe80::2", 5000, false, frame, k);
	netif_receive(f.n);
	/* Ring of 2 full, backlog of 8: the 2 oldest in the backlog went forced. */
	assert_int_equal(netif_backlog(f.n), 8);
	assert_int_equal(netif_counters(f.n)->backlog_forced, 2);
	for (int turn = 0; turn < 10; turn++) {
		while (reader_take(&f.rd, buf) == 4) {
			if (got < 2)
				assert_int_equal(buf[3], got);
			else
				assert_int_equal(buf[3], got + 2); /* 2 and 3 were forced past us */
			got++;
		}
		netif_flush(f.n);
	}
	assert_int_equal(got, 10);
	assert_int_equal(netif_backlog(f.n), 0);
	fx_close(&f);
}

static void test_topic_too_big_for_frame(void **state)
{
	struct nodecfg_error err;
	struct netif_options o;
	struct nodecfg *nc;
	struct broker *b;
	struct netif *n = NULL;
	uv_loop_t loop;
	char why[512];

	(void)state;
	fake_reset();
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_int_equal(broker_new(NULL, &b), 0);
	assert_int_equal(nodecfg_load_memory(node_xml, sizeof(node_xml) - 1, "node.xml", &nc, &err), 0);
	netif_options_init(&o);
	o.backend = &fake_backend_ops;
	o.node = nc;
	o.links[0] = "fk0";
	o.n_links = 1;
	o.max_frame = 13; /* 8-byte probe + 5 > 12 */
	assert_int_equal(netif_new(&loop, b, &o, NULL, &n, why, sizeof(why)), -EMSGSIZE);
	assert_non_null(strstr(why, "node.xml:"));
	assert_non_null(strstr(why, "probe"));
	assert_int_equal(fake_open_count(), 0);
	o.max_frame = 128;
	o.links[0] = "nope0";
	assert_true(netif_new(&loop, b, &o, NULL, &n, why, sizeof(why)) < 0);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
	broker_free(b);
	free(nc);
}

/*
 * A reliable topic's SEQNR counts in its framing: a 4-byte sample with
 * 32-bit NACK numbers needs 2 + 1 + 1 + 5 + 1 + 4 = 14 bytes, so it is
 * refused below max_frame 14 (it fitted the old check of 5 bytes of
 * framing, then could never be sent: issue 9's audit, F5).
 */
static void test_seqnr_counts_in_frame(void **state)
{
	static const char xml[] =
	    "<project name=\"t\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"fe80::1\" "
	    "iface=\"fk0\">\n"
	    "<topic name=\"huge\" domain=\"1\" id=\"A\"><attribute name=\"v\" type=\"DDS_unsigned_long\"/>"
	    "<config type=\"qos_reliability\" reliabilitySeqnrSize=\"huge\" kind=\"reliable\" "
	    "confirmationtype=\"nack\" max_blocking_time=\"100\"/></topic>\n"
	    "<role topic=\"huge\" type=\"publisher\"/>\n"
	    "<subscription topic=\"huge\"><subscriber ip=\"fe80::2\"/></subscription>\n"
	    "</project>\n";
	struct nodecfg_error err;
	struct netif_options o;
	struct nodecfg *nc;
	struct broker *b;
	struct netif *n = NULL;
	uv_loop_t loop;
	char why[512];

	(void)state;
	fake_reset();
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_int_equal(broker_new(NULL, &b), 0);
	if (nodecfg_load_memory(xml, sizeof(xml) - 1, "huge.xml", &nc, &err) < 0)
		fail_msg("%s", err.msg);
	netif_options_init(&o);
	o.backend = &fake_backend_ops;
	o.node = nc;
	o.links[0] = "fk0";
	o.n_links = 1;
	o.max_frame = 14;
	assert_int_equal(netif_new(&loop, b, &o, NULL, &n, why, sizeof(why)), -EMSGSIZE);
	assert_non_null(strstr(why, "10 bytes of framing"));
	o.max_frame = 15;
	if (netif_new(&loop, b, &o, NULL, &n, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	netif_close(n);
	uv_run(&loop, UV_RUN_DEFAULT);
	netif_free(n);
	assert_int_equal(fake_open_count(), 0);
	assert_int_equal(uv_loop_close(&loop), 0);
	broker_free(b);
	free(nc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nodecfg_table),	  cmocka_unit_test(test_local_to_net_recipe),
	    cmocka_unit_test(test_local_to_net_batching), cmocka_unit_test(test_local_to_net_one_per_frame),
	    cmocka_unit_test(test_seqnr_counts_in_frame), cmocka_unit_test(test_net_to_local_no_echo),
	    cmocka_unit_test(test_garbage_counted),	  cmocka_unit_test(test_swapped_peer),
	    cmocka_unit_test(test_backlog_order),	  cmocka_unit_test(test_topic_too_big_for_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
