/* SPDX-License-Identifier: MIT */
/*
 * test_seqnr.c - sequence numbers and ACKs on the receive side (§11.3), on
 * the fake backend, against the probe_qback and probe_qbe captures: a real
 * reliable publisher's SEQNR + DATA frames are taken once each and answered
 * with ACKSEQ to the frame's source locator, as the real subscriber did
 * (`01 03 10 31 05` from :23234 to the publisher's ephemeral port); a
 * resent sample is dropped but acknowledged again; a best-effort topic with
 * seqnrs filters duplicates without ACKs; the 4-bit number wraps; 16-bit
 * numbers (probe_qbig) are decoded; a real NACK publisher's frames
 * (probe_qnack) past a lost one make us NACK it with NACKSEQ to the
 * publisher's locator, again after the retry time, and the resend fills
 * the gap in order.
 *
 * The captures' probe topic is id 3 in domain 1, which the node config
 * refuses (a builtin id, §4.4): the frames are the captured ones with the
 * TOPIC byte renumbered to id 0xA (`31` -> `a1`).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "broker.h"
#include "fake_backend.h"
#include "netif.h"
#include <sddsxml/nodecfg.h>
#include "ring.h"
#include <snps/snps.h>

#define PUB_IP "fe80::c0ef:62ff:fed4:d26a"

static const char node_xml[] = "<project name=\"sub\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" "
			       "ip=\"fe80::1\" iface=\"fk0\" port=\"23234\">\n"
			       "<domain id=\"1\">\n"
			       "<topic name=\"qback\" domain=\"1\" id=\"A\">\n"
			       "  <attribute name=\"number\" type=\"DDS_short\"/>\n"
			       "  <config type=\"qos_reliability\" reliabilitySeqnrSize=\"basic\" "
			       "kind=\"reliable\" confirmationtype=\"ack\" max_blocking_time=\"100\"/>\n"
			       "</topic>\n"
			       "<topic name=\"qbe\" domain=\"1\" id=\"B\">\n"
			       "  <attribute name=\"number\" type=\"DDS_short\"/>\n"
			       "</topic>\n"
			       "<topic name=\"qnack\" domain=\"1\" id=\"C\">\n"
			       "  <attribute name=\"number\" type=\"DDS_short\"/>\n"
			       "  <config type=\"qos_reliability\" reliabilitySeqnrSize=\"basic\" "
			       "kind=\"reliable\" confirmationtype=\"nack\" max_blocking_time=\"3000\"/>\n"
			       "</topic>\n"
			       "<topic name=\"qhuge\" domain=\"1\" id=\"D\">\n"
			       "  <attribute name=\"number\" type=\"DDS_short\"/>\n"
			       "  <config type=\"qos_reliability\" reliabilitySeqnrSize=\"huge\" "
			       "kind=\"reliable\" confirmationtype=\"nack\" max_blocking_time=\"3000\"/>\n"
			       "</topic>\n"
			       "</domain>\n"
			       "<role topic=\"qback\" type=\"subscriber\"/>\n"
			       "<role topic=\"qbe\" type=\"subscriber\"/>\n"
			       "<role topic=\"qnack\" type=\"subscriber\"/>\n"
			       "<role topic=\"qhuge\" type=\"subscriber\"/>\n"
			       "</project>\n";

struct fx {
	uv_loop_t loop;
	struct broker *b;
	struct netif *n;
	struct nodecfg *nc;
	struct broker_topic *t[4];
	void *rmem[4];
	struct rring_cons cons[4];
	struct broker_reader *r[4];
};

static void fx_open(struct fx *f)
{
	struct broker_qos rq = {.reliability = BROKER_BEST_EFFORT, .history_depth = 64};
	struct nodecfg_error err;
	struct netif_options o;
	char why[512];
	int rc;

	memset(f, 0, sizeof(*f));
	fake_reset();
	assert_int_equal(uv_loop_init(&f->loop), 0);
	assert_int_equal(broker_new(NULL, &f->b), 0);
	rc = nodecfg_load_memory(node_xml, sizeof(node_xml) - 1, "node.xml", &f->nc, &err);
	if (rc < 0)
		fail_msg("%s", err.msg);
	assert_true(f->nc->topics[0].reliable);
	assert_false(f->nc->topics[1].reliable);
	netif_options_init(&o);
	o.backend = &fake_backend_ops;
	o.node = f->nc;
	o.links[0] = "fk0";
	o.n_links = 1;
	rc = netif_new(&f->loop, f->b, &o, NULL, &f->n, why, sizeof(why));
	if (rc < 0)
		fail_msg("netif_new: %s", why);
	for (int i = 0; i < 4; i++) {
		struct broker_topic_desc d;
		size_t bytes = rring_size(64, 2);
		struct rring_prod prod;

		netif_broker_desc(&f->nc->topics[i].desc, &d);
		assert_int_equal(broker_topic_get(f->b, &d, &f->t[i]), 0);
		f->rmem[i] = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
		assert_non_null(f->rmem[i]);
		rring_format(f->rmem[i], 64, rring_slot_size(2));
		assert_int_equal(rring_prod_init(&prod, f->rmem[i], 64, rring_slot_size(2)), 0);
		assert_int_equal(rring_cons_init(&f->cons[i], f->rmem[i], 64, rring_slot_size(2)), 0);
		assert_int_equal(broker_reader_new(f->b, f->t[i], &rq, 7, &prod, NULL, NULL, &f->r[i]), 0);
	}
}

static void fx_close(struct fx *f)
{
	struct netif_pool_usage pu;
	struct broker_usage bu;

	for (int i = 0; i < 4; i++) {
		broker_reader_free(f->r[i]);
		free(f->rmem[i]);
		broker_topic_put(f->t[i]);
	}
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

/* Values the reader of topic i holds now, in order, into v; returns how many. */
static int take_all(struct fx *f, int i, int16_t *v, int cap)
{
	uint8_t s[8];
	uint32_t len;
	int k = 0;

	while (k < cap && rring_cons_take(&f->cons[i], s, sizeof(s), &len, NULL, NULL) == 1)
		v[k++] = (int16_t)(s[0] << 8 | s[1]);
	return k;
}

static void pub_frame(uint8_t topic_hdr, uint8_t seq, int16_t value)
{
	/* probe_qback frame: 01 04 10 31 s3 22 nn nn (TOPIC renumbered). */
	uint8_t b[] = {0x01,
		       0x04,
		       0x10,
		       topic_hdr,
		       (uint8_t)(seq << 4 | 0x3),
		       0x22,
		       (uint8_t)((uint16_t)value >> 8),
		       (uint8_t)value};

	fake_inject(PUB_IP, 37670, false, b, sizeof(b));
}

static void test_ack_as_captured(void **state)
{
	int16_t v[16];
	char a[64];
	struct fx f;

	(void)state;
	fx_open(&f);
	/* The first five frames of probe_qback: seq 0..4, values 100..104. */
	for (int i = 0; i < 5; i++)
		pub_frame(0xa1, (uint8_t)i, (int16_t)(100 + i));
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 0, v, 16), 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(v[i], 100 + i);
	assert_int_equal(fake_sent(), 5);
	for (uint32_t i = 0; i < 5; i++) {
		const struct fake_dgram *d = fake_sent_at(i);
		uint8_t want[] = {0x01, 0x03, 0x10, 0xa1, (uint8_t)(i << 4 | 0x5)};

		assert_int_equal(d->len, sizeof(want));
		assert_memory_equal(d->buf, want, sizeof(want));
		inet_ntop(AF_INET6, &d->addr.ip, a, sizeof(a));
		assert_string_equal(a, PUB_IP);
		assert_int_equal(d->addr.port, 37670); /* the publisher's source port */
		assert_false(d->mcast);		       /* from our unicast port 23234 */
	}
	/* The publisher resends seq 4 (its ACK was lost): dropped, acknowledged again. */
	pub_frame(0xa1, 4, 104);
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 0, v, 16), 0);
	assert_int_equal(fake_sent(), 6);
	assert_int_equal(fake_sent_at(5)->buf[4], 0x45);
	assert_int_equal(netif_counters(f.n)->seq_dropped, 1);
	assert_int_equal(netif_counters(f.n)->acks_out, 6);
	fx_close(&f);
}

/* 4-bit numbers wrap 15 -> 0; best effort (probe_qbe) takes each once and sends no ACK. */
static void test_wrap_best_effort(void **state)
{
	int16_t v[64];
	struct fx f;
	int n;

	(void)state;
	fx_open(&f);
	for (int i = 0; i < 40; i++) {
		pub_frame(0xb1, (uint8_t)(i & 15), (int16_t)i);
		if (i % 3 == 0)
			pub_frame(0xb1, (uint8_t)(i & 15), (int16_t)i); /* a duplicate now and then */
	}
	netif_receive(f.n);
	netif_flush(f.n);
	n = take_all(&f, 1, v, 64);
	assert_int_equal(n, 40);
	for (int i = 0; i < 40; i++)
		assert_int_equal(v[i], i);
	assert_int_equal(fake_sent(), 0);
	assert_int_equal(netif_counters(f.n)->seq_dropped, 14);
	fx_close(&f);
}

/* probe_qbig: 16-bit numbers (9F hh ll) are decoded and filtered the same way. */
static void test_big_seqnr(void **state)
{
	static const uint8_t f1[] = {0x01, 0x04, 0x10, 0xb1, 0x9f, 0x00, 0x00, 0x22, 0x00, 0x64};
	static const uint8_t f2[] = {0x01, 0x04, 0x10, 0xb1, 0x9f, 0x00, 0x01, 0x22, 0x00, 0x65};
	int16_t v[4];
	struct fx f;

	(void)state;
	fx_open(&f);
	fake_inject(PUB_IP, 40000, false, f1, sizeof(f1));
	fake_inject(PUB_IP, 40000, false, f2, sizeof(f2));
	fake_inject(PUB_IP, 40000, false, f1, sizeof(f1)); /* stale */
	netif_receive(f.n);
	assert_int_equal(take_all(&f, 1, v, 4), 2);
	assert_int_equal(v[0], 100);
	assert_int_equal(v[1], 101);
	assert_int_equal(netif_counters(f.n)->seq_dropped, 1);
	fx_close(&f);
}

static const char pub_xml[] = "<project name=\"pub\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" "
			      "ip=\"fe80::1\" iface=\"fk0\" port=\"23234\">\n"
			      "<domain id=\"1\">\n"
			      "<topic name=\"qback\" domain=\"1\" id=\"A\">\n"
			      "  <attribute name=\"number\" type=\"DDS_short\"/>\n"
			      "  <config type=\"qos_reliability\" reliabilitySeqnrSize=\"basic\" "
			      "kind=\"reliable\" confirmationtype=\"ack\" max_blocking_time=\"100\"/>\n"
			      "</topic>\n"
			      "</domain>\n"
			      "<role topic=\"qback\" type=\"publisher\"/>\n"
			      "<subscription topic=\"qback\"><subscriber ip=\"fe80::2\"/></subscription>\n"
			      "</project>\n";

/* Seqnrs (s3) carried by the frames sent from index from on, in order, into seq; returns how many. */
static int sent_seqs(uint32_t from, int *seq, int cap)
{
	int k = 0;

	for (uint32_t i = from; i < fake_sent(); i++) {
		const struct fake_dgram *d = fake_sent_at(i);

		for (uint32_t o = 2; o < d->len && k < cap; o++) {
			if ((d->buf[o] & 0x0f) == 0x03 && o + 1 < d->len && d->buf[o + 1] == 0x22) {
				seq[k++] = d->buf[o] >> 4;
				o += 3; /* SEQNR, DATA header, 2 sample bytes */
			}
		}
	}
	return k;
}

static void ack(uint8_t s)
{
	uint8_t b[] = {0x01, 0x03, 0x10, 0xa1, (uint8_t)(s << 4 | 0x5)};

	fake_inject("fe80::2", 23234, false, b, sizeof(b));
}

/* Our side as the reliable publisher: a window of 7 numbered samples, the rest waits for ACKs; resend after
 * the timeout. */
static void test_publisher_window(void **state)
{
	struct broker_qos wq = {.reliability = BROKER_RELIABLE, .history_depth = 1, .max_blocking_ms = 100};
	struct nodecfg_error err;
	struct netif_options o;
	struct broker_topic *bt;
	struct broker_writer *w;
	struct broker_topic_desc d;
	struct nodecfg *nc;
	struct broker *b;
	struct netif *n;
	uv_loop_t loop;
	char why[256];
	int seq[64], k;
	uint32_t mark;

	(void)state;
	fake_reset();
	fake_clock_set(1000000000ll);
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_int_equal(broker_new(NULL, &b), 0);
	assert_int_equal(nodecfg_load_memory(pub_xml, sizeof(pub_xml) - 1, "pub.xml", &nc, &err), 0);
	netif_options_init(&o);
	o.backend = &fake_backend_ops;
	o.node = nc;
	o.links[0] = "fk0";
	o.n_links = 1;
	if (netif_new(&loop, b, &o, NULL, &n, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	netif_broker_desc(&nc->topics[0].desc, &d);
	assert_int_equal(broker_topic_get(b, &d, &bt), 0);
	assert_int_equal(broker_writer_new(b, bt, &wq, 5, &w), 0);
	for (int i = 0; i < 10; i++) {
		uint8_t s[2] = {0, (uint8_t)i};

		assert_int_equal(broker_write(w, s, 2, 0, NULL), 0);
	}
	broker_flush(b);
	netif_flush(n);
	k = sent_seqs(0, seq, 64);
	assert_int_equal(k, 7);
	for (int i = 0; i < 7; i++)
		assert_int_equal(seq[i], i);
	/* No ACK within the timeout: all seven again. */
	mark = fake_sent();
	fake_clock_set(1000000000ll + 20000000ll);
	netif_tick(n);
	netif_flush(n);
	assert_int_equal(sent_seqs(mark, seq, 64), 7);
	assert_int_equal(netif_counters(n)->resent, 7);
	/* ACKs for 0..4: five slots free, the last three samples go out as 7, 8, 9. */
	for (uint8_t s = 0; s < 5; s++)
		ack(s);
	mark = fake_sent();
	netif_receive(n);
	netif_flush(n);
	k = sent_seqs(mark, seq, 64);
	assert_int_equal(k, 3);
	assert_int_equal(seq[0], 7);
	assert_int_equal(seq[2], 9);
	assert_int_equal(netif_counters(n)->acks_in, 5);
	/* A resend now carries only the unacknowledged 5..9. */
	mark = fake_sent();
	fake_clock_set(1000000000ll + 40000000ll);
	netif_tick(n);
	netif_flush(n);
	k = sent_seqs(mark, seq, 64);
	assert_int_equal(k, 5);
	assert_int_equal(seq[0], 5);
	for (uint8_t s = 5; s < 10; s++)
		ack(s);
	netif_receive(n);
	mark = fake_sent();
	fake_clock_set(1000000000ll + 60000000ll);
	netif_tick(n);
	netif_flush(n);
	assert_int_equal(fake_sent(), mark); /* all acknowledged: nothing more */
	/* A destination that never answers: each sample is given up after 200 resends, then the next go. */
	for (int i = 0; i < 8; i++) {
		uint8_t s[2] = {1, (uint8_t)i};

		assert_int_equal(broker_write(w, s, 2, 0, NULL), 0);
	}
	broker_flush(b);
	for (int r = 0; r <= 201; r++) {
		fake_clock_set(2000000000ll + (int64_t)r * 20000000ll);
		netif_tick(n);
		netif_flush(n);
	}
	assert_int_equal(netif_counters(n)->rel_given_up, 7);
	mark = fake_sent();
	fake_clock_set(2000000000ll + 300 * 20000000ll);
	netif_tick(n);
	netif_flush(n);
	assert_int_equal(sent_seqs(mark, seq, 64), 1); /* the eighth, resent alone */
	broker_writer_free(w);
	broker_topic_put(bt);
	netif_close(n);
	uv_run(&loop, UV_RUN_DEFAULT);
	netif_free(n);
	assert_int_equal(uv_loop_close(&loop), 0);
	broker_free(b);
	free(nc);
	fake_clock_set(0);
}

/* A monolithic owner: the loop on its own thread, every call under one lock (netif_options.threaded). */
struct mt {
	pthread_mutex_t lock;
	uv_loop_t loop;
	uv_async_t stop;
	struct netif *n;
};

static void mt_enter(void *ctx)
{
	pthread_mutex_lock(&((struct mt *)ctx)->lock);
}

static void mt_after(void *ctx)
{
	pthread_mutex_unlock(&((struct mt *)ctx)->lock);
}

static void mt_on_stop(uv_async_t *h)
{
	struct mt *m = h->data;

	mt_enter(m);
	netif_close(m->n);
	uv_close((uv_handle_t *)&m->stop, NULL);
	mt_after(m);
}

static void *mt_loop(void *arg)
{
	uv_run(&((struct mt *)arg)->loop, UV_RUN_DEFAULT);
	return NULL;
}

static void mt_sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/*
 * The resend timer armed from a writer's thread (monolithic mode) while the
 * loop sleeps with no timer at all: the queue wakes the loop, which sets
 * its timer, and the unacknowledged sample goes out again. Without that
 * wake-up the loop would sleep on and nothing would be resent.
 */
static void test_publisher_timer_other_thread(void **state)
{
	struct broker_qos wq = {.reliability = BROKER_RELIABLE, .history_depth = 1, .max_blocking_ms = 100};
	struct netif_hooks h = {.after = mt_after, .enter = mt_enter};
	struct nodecfg_error err;
	struct netif_options o;
	struct broker_topic *bt;
	struct broker_writer *w;
	struct broker_topic_desc d;
	struct nodecfg *nc;
	struct broker *b;
	struct mt m;
	pthread_t th;
	char why[256];
	uint8_t s[2] = {0, 1};
	uint32_t mark;
	bool resent = false;

	(void)state;
	fake_reset();
	fake_clock_set(1000000000ll);
	memset(&m, 0, sizeof(m));
	pthread_mutex_init(&m.lock, NULL);
	h.ctx = &m;
	assert_int_equal(uv_loop_init(&m.loop), 0);
	assert_int_equal(uv_async_init(&m.loop, &m.stop, mt_on_stop), 0);
	m.stop.data = &m;
	assert_int_equal(broker_new(NULL, &b), 0);
	assert_int_equal(nodecfg_load_memory(pub_xml, sizeof(pub_xml) - 1, "pub.xml", &nc, &err), 0);
	netif_options_init(&o);
	o.backend = &fake_backend_ops;
	o.node = nc;
	o.links[0] = "fk0";
	o.n_links = 1;
	o.threaded = true;
	if (netif_new(&m.loop, b, &o, &h, &m.n, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	netif_broker_desc(&nc->topics[0].desc, &d);
	assert_int_equal(broker_topic_get(b, &d, &bt), 0);
	assert_int_equal(broker_writer_new(b, bt, &wq, 5, &w), 0);
	assert_int_equal(pthread_create(&th, NULL, mt_loop, &m), 0);
	/* Let the loop go to sleep: nothing is armed, it waits for readable or a wake-up. */
	mt_sleep_ms(50);
	mt_enter(&m);
	assert_int_equal(broker_write(w, s, 2, 0, NULL), 0);
	broker_flush(b);
	mark = fake_sent();
	assert_true(mark >= 1); /* sent at once from this thread */
	mt_after(&m);
	/* The backend's clock passes the timeout; the loop's timer fires about 10 ms after the arm. */
	for (int i = 0; i < 100 && !resent; i++) {
		mt_sleep_ms(10);
		mt_enter(&m);
		fake_clock_set(1000000000ll + (int64_t)(i + 2) * 10000000ll);
		resent = netif_counters(m.n)->resent > 0 && fake_sent() > mark;
		mt_after(&m);
	}
	assert_true(resent);
	mt_enter(&m);
	broker_writer_free(w);
	broker_topic_put(bt);
	mt_after(&m);
	uv_async_send(&m.stop);
	assert_int_equal(pthread_join(th, NULL), 0);
	netif_free(m.n);
	assert_int_equal(uv_loop_close(&m.loop), 0);
	broker_free(b);
	free(nc);
	pthread_mutex_destroy(&m.lock);
	fake_clock_set(0);
}

/* As a reliable receiver: a sample past a gap waits (no ACK) for the resend of the missing one. */
static void test_receiver_gap(void **state)
{
	int16_t v[16];
	struct fx f;

	(void)state;
	fx_open(&f);
	pub_frame(0xa1, 0, 100);
	pub_frame(0xa1, 2, 102); /* 1 lost */
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 0, v, 16), 1);
	assert_int_equal(fake_sent(), 1); /* ACK 0 only */
	pub_frame(0xa1, 1, 101);
	pub_frame(0xa1, 2, 102);
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 0, v, 16), 2);
	assert_int_equal(v[0], 101);
	assert_int_equal(v[1], 102);
	assert_int_equal(fake_sent(), 3);
	fx_close(&f);
}

/*
 * probe_qnack: a real NACK publisher (qnack.xml: 4-bit numbers) sends
 * 01 04 10 71 s3 22 nn nn from an ephemeral port (TOPIC renumbered to
 * 0xC). Frame 2 is lost: we NACK it (01 03 10 c1 26, NACKSEQ 2) to that
 * locator from our unicast port, hold frame 3, NACK again after 10 ms, and
 * deliver 2 and 3 in order when the resend comes. No ACK is sent.
 */
static void test_nack_real_publisher(void **state)
{
	static const uint8_t nack2[] = {0x01, 0x03, 0x10, 0xc1, 0x26};
	int16_t v[8];
	char a[64];
	struct fx f;

	(void)state;
	fake_clock_set(1000000000ll);
	fx_open(&f);
	for (int i = 0; i < 4; i++) {
		uint8_t b[] = {
		    0x01, 0x04, 0x10, 0xc1, (uint8_t)(i << 4 | 0x3), 0x22, 0x00, (uint8_t)(0x64 + i)};

		if (i != 2)
			fake_inject(PUB_IP, 57338, false, b, sizeof(b));
	}
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 2, v, 8), 2);
	assert_int_equal(v[0], 100);
	assert_int_equal(v[1], 101);
	assert_int_equal(fake_sent(), 1);
	assert_int_equal(fake_sent_at(0)->len, sizeof(nack2));
	assert_memory_equal(fake_sent_at(0)->buf, nack2, sizeof(nack2));
	inet_ntop(AF_INET6, &fake_sent_at(0)->addr.ip, a, sizeof(a));
	assert_string_equal(a, PUB_IP);
	assert_int_equal(fake_sent_at(0)->addr.port, 57338);
	assert_false(fake_sent_at(0)->mcast);
	/* Not before the retry time; then again. */
	netif_tick(f.n);
	netif_flush(f.n);
	assert_int_equal(fake_sent(), 1);
	fake_clock_set(1000000000ll + 20000000ll);
	netif_tick(f.n);
	netif_flush(f.n);
	assert_int_equal(fake_sent(), 2);
	assert_memory_equal(fake_sent_at(1)->buf, nack2, sizeof(nack2));
	/* The publisher's resend of 2 (SEQNR + DATA, as it sent it first). */
	{
		uint8_t b[] = {0x01, 0x04, 0x10, 0xc1, 0x23, 0x22, 0x00, 0x66};

		fake_inject(PUB_IP, 57338, false, b, sizeof(b));
	}
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 2, v, 8), 2);
	assert_int_equal(v[0], 102);
	assert_int_equal(v[1], 103);
	assert_int_equal(netif_counters(f.n)->gaps_recovered, 1);
	assert_int_equal(netif_counters(f.n)->nacks_out, 2);
	assert_int_equal(netif_counters(f.n)->acks_out, 0);
	assert_int_equal(fake_sent(), 2);
	fx_close(&f);
	fake_clock_set(0);
}

/* A NACK-topic sample numbered seq (4 bits) with value v, from the publisher's port. */
static void nack_sample(uint8_t seq, int16_t v)
{
	uint8_t b[] = {
	    0x01, 0x04, 0x10, 0xc1, (uint8_t)(seq << 4 | 0x3), 0x22, (uint8_t)((uint16_t)v >> 8), (uint8_t)v};

	fake_inject(PUB_IP, 57338, false, b, sizeof(b));
}

/* A sample of topic id topic_hdr >> 4 numbered with SEQNR_HUGE (AF + BE32). */
static void huge_sample(uint8_t topic_hdr, uint32_t seq, int16_t v)
{
	uint8_t b[] = {0x01,
		       0x04,
		       0x10,
		       topic_hdr,
		       0xaf,
		       (uint8_t)(seq >> 24),
		       (uint8_t)(seq >> 16),
		       (uint8_t)(seq >> 8),
		       (uint8_t)seq,
		       0x22,
		       (uint8_t)((uint16_t)v >> 8),
		       (uint8_t)v};

	fake_inject(PUB_IP, 57338, false, b, sizeof(b));
}

/*
 * A 32-bit number 2^31 - 1 ahead of the stream's: the stream jumps there
 * at once (one resync) instead of giving up 2^31 numbers one by one, which
 * held the loop for about a minute per datagram (issue 9's audit, F1).
 */
static void test_nack_far_jump(void **state)
{
	int16_t v[8];
	struct fx f;

	(void)state;
	fx_open(&f);
	huge_sample(0xd1, 0, 10);
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 3, v, 8), 1);
	huge_sample(0xd1, 0x7fffffffu, 11);
	huge_sample(0xd1, 0x80000000u, 12);
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 3, v, 8), 2);
	assert_int_equal(v[0], 11);
	assert_int_equal(v[1], 12);
	assert_int_equal(netif_counters(f.n)->seq_resync, 1);
	assert_true(netif_counters(f.n)->gaps_given_up <= 256);
	/*
	 * Had those been forged, the real stream goes on at 1, 2, ...: far
	 * behind now. NETIF_NACK_RESTART (8) of them in a row take the stream
	 * up again there; the 7 before are dropped, the ones after delivered.
	 */
	for (uint32_t s = 1; s <= 10; s++)
		huge_sample(0xd1, s, (int16_t)(100 + s));
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 3, v, 8), 3);
	assert_int_equal(v[0], 108);
	assert_int_equal(v[2], 110);
	assert_int_equal(netif_counters(f.n)->seq_resync, 2);
	fx_close(&f);
}

/*
 * Duplicates of a sample held ahead of a gap are duplicates, not samples
 * far behind: repeated resends of 5 while 1 is missing once restarted the
 * stream at 5 after NETIF_NACK_RESTART of them, giving 1 up (the reader
 * of netns-nack-mc saw a sample missing under 20% loss).
 */
static void test_nack_dups_ahead_kept(void **state)
{
	int16_t v[8];
	struct fx f;

	(void)state;
	fx_open(&f);
	huge_sample(0xd1, 0, 200);
	for (uint32_t s = 2; s <= 5; s++)
		huge_sample(0xd1, s, (int16_t)(200 + s));
	for (int k = 0; k < 20; k++)
		huge_sample(0xd1, 5, 205);
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 3, v, 8), 1);
	huge_sample(0xd1, 1, 201);
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 3, v, 8), 5);
	for (int k = 0; k < 5; k++)
		assert_int_equal(v[k], 201 + k);
	assert_int_equal(netif_counters(f.n)->seq_resync, 0);
	assert_int_equal(netif_counters(f.n)->gaps_given_up, 0);
	assert_int_equal(netif_counters(f.n)->seq_dropped, 20);
	fx_close(&f);
}

/* A NACK topic configured with 4-bit numbers drops a sample numbered with 32 bits (§11.1). */
static void test_nack_seq_size_dropped(void **state)
{
	int16_t v[8];
	struct fx f;

	(void)state;
	fx_open(&f);
	huge_sample(0xc1, 0, 20);
	huge_sample(0xc1, 0x7fffffffu, 21);
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 2, v, 8), 0);
	assert_int_equal(netif_counters(f.n)->drops[NETIF_DROP_SEQ_SIZE], 2);
	nack_sample(0, 22);
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 2, v, 8), 1);
	assert_int_equal(v[0], 22);
	fx_close(&f);
}

/*
 * A gap on a 4-bit number that had a gap 16 samples before is a new gap:
 * it gets its own NACK rounds and its own give-up time, not the old one's
 * (the tick once named the head by its value and gave the second gap up at
 * once when the first was older than the give-up time).
 */
static void test_nack_gap_after_wrap(void **state)
{
	const int64_t t0 = 1000000000ll;
	int16_t v[32];
	struct fx f;
	uint32_t sent;

	(void)state;
	fake_clock_set(t0);
	fx_open(&f);
	/* 0, 1, (2 lost), 3: a gap at 2, NACKed at once and in the round 20 ms later. */
	nack_sample(0, 100);
	nack_sample(1, 101);
	nack_sample(3, 103);
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 2, v, 32), 2);
	fake_clock_set(t0 + 20000000ll);
	netif_tick(f.n);
	netif_flush(f.n);
	assert_int_equal(netif_counters(f.n)->nacks_out, 2);
	nack_sample(2, 102);
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 2, v, 32), 2);
	assert_int_equal(v[0], 102);
	assert_int_equal(v[1], 103);
	/* A second later the numbers have gone round: 4..15, 0, 1 arrive, 2 (sample 18) is lost again, 3
	 * comes. */
	fake_clock_set(t0 + 1000000000ll);
	for (int i = 4; i < 18; i++)
		nack_sample((uint8_t)(i & 15), (int16_t)(100 + i));
	nack_sample(3, 119);
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 2, v, 32), 14);
	assert_int_equal(v[13], 117);
	sent = netif_counters(f.n)->nacks_out;
	fake_clock_set(t0 + 1000000000ll + 20000000ll);
	netif_tick(f.n);
	netif_flush(f.n);
	/* NACKed again, not given up: 119 still waits behind the gap. */
	assert_int_equal(netif_counters(f.n)->gaps_given_up, 0);
	assert_int_equal(netif_counters(f.n)->nacks_out, sent + 1);
	assert_int_equal(take_all(&f, 2, v, 32), 0);
	nack_sample(2, 118);
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 2, v, 32), 2);
	assert_int_equal(v[0], 118);
	assert_int_equal(v[1], 119);
	/* Given up only after the give-up time of its own: a third gap, 450 ms of rounds. */
	nack_sample(5, 121);
	netif_receive(f.n);
	netif_flush(f.n);
	for (int ms = 40; ms <= 500; ms += 10) {
		fake_clock_set(t0 + 1000000000ll + (int64_t)ms * 1000000);
		netif_tick(f.n);
		netif_flush(f.n);
		if (ms < 400)
			assert_int_equal(netif_counters(f.n)->gaps_given_up, 0);
	}
	assert_int_equal(netif_counters(f.n)->gaps_given_up, 1);
	assert_int_equal(take_all(&f, 2, v, 32), 1);
	assert_int_equal(v[0], 121);
	fx_close(&f);
	fake_clock_set(0);
}

/*
 * A starved daemon whose timer runs every 150 ms instead of 10 still NACKs
 * a gap NETIF_NACK_MIN_ROUNDS (10) times before it gives the sample up,
 * though the give-up time (400 ms) passed long before.
 */
static void test_nack_starved_timer(void **state)
{
	const int64_t t0 = 1000000000ll;
	int16_t v[8];
	struct fx f;
	int rounds = 0;

	(void)state;
	fake_clock_set(t0);
	fx_open(&f);
	nack_sample(0, 100);
	nack_sample(2, 102);
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(take_all(&f, 2, v, 8), 1);
	assert_int_equal(netif_counters(f.n)->nacks_out, 1);
	while (netif_counters(f.n)->gaps_given_up == 0) {
		assert_true(++rounds < 40);
		/* Not given up yet: at most 10 NACKs of number 1 went out (all unanswered). */
		assert_true(netif_counters(f.n)->nacks_out <= 10);
		fake_clock_set(t0 + (int64_t)rounds * 150000000ll);
		netif_tick(f.n);
		netif_flush(f.n);
	}
	/* Given up in the round after the tenth NACK, 1.5 s after the gap, not at 400 ms. */
	assert_int_equal(netif_counters(f.n)->nacks_out, 10);
	assert_true(rounds >= 10);
	assert_int_equal(take_all(&f, 2, v, 8), 1);
	assert_int_equal(v[0], 102);
	fx_close(&f);
	fake_clock_set(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ack_as_captured),
	    cmocka_unit_test(test_wrap_best_effort),
	    cmocka_unit_test(test_big_seqnr),
	    cmocka_unit_test(test_publisher_window),
	    cmocka_unit_test(test_publisher_timer_other_thread),
	    cmocka_unit_test(test_receiver_gap),
	    cmocka_unit_test(test_nack_real_publisher),
	    cmocka_unit_test(test_nack_gap_after_wrap),
	    cmocka_unit_test(test_nack_far_jump),
	    cmocka_unit_test(test_nack_dups_ahead_kept),
	    cmocka_unit_test(test_nack_seq_size_dropped),
	    cmocka_unit_test(test_nack_starved_timer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
