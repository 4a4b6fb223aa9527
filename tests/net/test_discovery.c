/* SPDX-License-Identifier: MIT */
/*
 * test_discovery.c - multicast discovery (daemon/net/discovery.c through
 * netif) on the fake backend, against the `discovery` capture of real sDDS
 * nodes (shared/captures/discovery.frames.tsv; the frames are copied here
 * byte for byte): our announcements equal the capture's for the same
 * configuration, a subscriber is learnt from its captured announcements and
 * data then goes to ff02::10 as the real publisher's did, expiry of silent
 * peers, the subscription cap, node id clash and id derivation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker.h"
#include "discovery.h"
#include "fake_backend.h"
#include "netif.h"
#include <sddsxml/nodecfg.h>
#include "ring.h"
#include <snps/snps.h>

#define PUB_IP "fe80::c0ef:62ff:fed4:d26a"
#define SUB_IP "fe80::c0ef:62ff:fed4:d36b"
#define MS 1000000ll

/* From discovery.frames.tsv: frames 5 (pub participant), 1 (sub participant), 7 (publication),
 * 8 (subscription, ADDRESS ff02::10) and 16 (temperature data to ff02::10). */
static const uint8_t cap_pub_participant[] = {0x01, 0x04, 0x10, 0x11, 0x68, 0x11, 0x02, 0x00,
					      0x00, 0x00, 0x00, 0x30, 0x22, 0xd2, 0x6a};
static const uint8_t cap_sub_participant[] = {0x01, 0x04, 0x10, 0x11, 0x68, 0x11, 0x02, 0x00,
					      0x00, 0x00, 0x00, 0x30, 0x22, 0xd3, 0x6b};
static const uint8_t cap_publication[] = {0x01, 0x03, 0x10, 0x31, 0x62, 0x00, 0x00, 0xd2, 0x6a, 0x00, 0x0a};
static const uint8_t cap_subscription[] = {0x01, 0x04, 0x10, 0x41, 0x68, 0x11, 0x02, 0x00, 0x00, 0x00,
					   0x00, 0x10, 0x62, 0x00, 0x00, 0xd3, 0x6b, 0x00, 0x0a};
static const uint8_t cap_data[] = {0x01, 0x03, 0x10, 0xa1, 0x42, 0xd2, 0x6a, 0x00, 0x15};

static const char pub_xml[] = "<project name=\"pub\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" "
			      "ip=\"fe80::1\" iface=\"fk0\" port=\"23234\">\n"
			      "<domain id=\"1\">\n"
			      "<topic name=\"temperature\" domain=\"1\" id=\"A\">\n"
			      "  <attribute name=\"device\" type=\"DDS_unsigned_short\"/>\n"
			      "  <attribute name=\"value\" type=\"DDS_short\"/>\n"
			      "</topic>\n"
			      "</domain>\n"
			      "<role topic=\"temperature\" type=\"%s\"/>\n"
			      "</project>\n";

static const char builtin_id_xml[] = "<project name=\"bad\" endian=\"little\" os=\"linux\" "
				     "protocol=\"AF_INET6\" ip=\"fe80::1\" iface=\"fk0\" port=\"23234\">\n"
				     "<domain id=\"2\">\n"
				     "<topic name=\"t3\" domain=\"2\" id=\"3\">\n"
				     "  <attribute name=\"v\" type=\"DDS_unsigned_short\"/>\n"
				     "</topic>\n"
				     "</domain>\n"
				     "<role topic=\"t3\" type=\"publisher\"/>\n"
				     "</project>\n";

struct fx {
	uv_loop_t loop;
	struct broker *b;
	struct netif *n;
	struct nodecfg *nc;
	struct broker_topic *temp;
	struct broker_writer *w;
	void *rmem;
	struct rring_cons cons;
	struct broker_reader *r;
};

/* announce_pack for the next fixture (netif_options.disc). */
static bool fx_announce_pack;

static void fx_open_opts(struct fx *f, const char *role, uint16_t node_id, uint32_t max_subs, bool unicast)
{
	struct broker_qos wq = {.reliability = BROKER_RELIABLE, .history_depth = 1, .max_blocking_ms = 100};
	struct broker_qos rq = {.reliability = BROKER_BEST_EFFORT, .history_depth = 16};
	struct nodecfg_error err;
	struct netif_options o;
	struct broker_topic_desc d;
	struct rring_prod prod;
	char xml[2048], why[512];
	size_t bytes;
	int rc, len;

	memset(f, 0, sizeof(*f));
	fake_reset();
	fake_clock_set(1000 * MS);
	assert_int_equal(uv_loop_init(&f->loop), 0);
	assert_int_equal(broker_new(NULL, &f->b), 0);
	len = snprintf(xml, sizeof(xml), pub_xml, role);
	rc = nodecfg_load_memory(xml, (size_t)len, "node.xml", &f->nc, &err);
	if (rc < 0)
		fail_msg("%s", err.msg);
	netif_options_init(&o);
	o.backend = &fake_backend_ops;
	o.node = f->nc;
	o.links[0] = "fk0";
	o.n_links = 1;
	o.disc.on = true;
	o.disc.node_id = node_id;
	o.disc.expire_ms = 3000;
	o.disc.max_subs = max_subs;
	o.disc.unicast = unicast;
	/* The captures are of real nodes, which do not announce it: off but where a case turns it on. */
	o.disc.announce_pack = fx_announce_pack;
	rc = netif_new(&f->loop, f->b, &o, NULL, &f->n, why, sizeof(why));
	if (rc < 0)
		fail_msg("netif_new: %s", why);
	netif_broker_desc(&f->nc->topics[0].desc, &d);
	assert_int_equal(broker_topic_get(f->b, &d, &f->temp), 0);
	assert_int_equal(broker_writer_new(f->b, f->temp, &wq, 5, &f->w), 0);
	bytes = rring_size(16, 4);
	f->rmem = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	assert_non_null(f->rmem);
	rring_format(f->rmem, 16, rring_slot_size(4));
	assert_int_equal(rring_prod_init(&prod, f->rmem, 16, rring_slot_size(4)), 0);
	assert_int_equal(rring_cons_init(&f->cons, f->rmem, 16, rring_slot_size(4)), 0);
	assert_int_equal(broker_reader_new(f->b, f->temp, &rq, 7, &prod, NULL, NULL, &f->r), 0);
}

static void fx_open(struct fx *f, const char *role, uint16_t node_id)
{
	fx_open_opts(f, role, node_id, 64, false);
}

static void fx_close(struct fx *f)
{
	struct netif_pool_usage pu;
	struct broker_usage bu;

	broker_reader_free(f->r);
	free(f->rmem);
	broker_writer_free(f->w);
	broker_topic_put(f->temp);
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
	fake_clock_set(0);
}

static void assert_sent(uint32_t i, const uint8_t *want, size_t len, const char *dst, uint16_t port)
{
	const struct fake_dgram *d = fake_sent_at(i);
	char a[64];

	assert_non_null(d);
	assert_int_equal(d->len, len);
	assert_memory_equal(d->buf, want, len);
	inet_ntop(AF_INET6, &d->addr.ip, a, sizeof(a));
	assert_string_equal(a, dst);
	assert_int_equal(d->addr.port, port);
	assert_int_equal(d->addr.ifindex, FAKE_IFINDEX);
	assert_true(d->mcast); /* from port + 20, as real nodes (§9.5) */
}

static void local_write(struct fx *f, uint16_t dev, int16_t val)
{
	uint8_t s[4] = {(uint8_t)(dev >> 8), (uint8_t)dev, (uint8_t)((uint16_t)val >> 8), (uint8_t)val};

	assert_int_equal(broker_write(f->w, s, 4, 0, NULL), 0);
	broker_flush(f->b);
	netif_flush(f->n);
}

static void inject(const char *ip, uint16_t port, const uint8_t *buf, size_t len)
{
	fake_inject(ip, port, true, buf, (uint32_t)len);
}

/* A publisher configured as the capture's (node id d26a): start-up announcements equal frames 5 and 7. */
static void test_pub_startup_bytes(void **state)
{
	struct fx f;

	(void)state;
	fx_open(&f, "publisher", 0xd26a);
	netif_flush(f.n);
	assert_int_equal(fake_sent(), 2);
	assert_sent(0, cap_pub_participant, sizeof(cap_pub_participant), "ff02::20", 23254);
	assert_sent(1, cap_publication, sizeof(cap_publication), "ff02::30", 23254);
	/* No subscriber learnt yet: a local sample goes nowhere. */
	local_write(&f, 0xd26a, 21);
	assert_int_equal(fake_sent(), 2);
	fx_close(&f);
}

/* The peer entry at ip, or fail. */
static const struct net_peer *fx_peer(const struct fx *f, const char *ip)
{
	const struct peer_table *pt = netif_peers(f->n);
	struct in6_addr a;

	assert_int_equal(inet_pton(AF_INET6, ip, &a), 1);
	for (uint32_t i = 0; i < pt->n; i++) {
		if (memcmp(&pt->v[i].addr.ip, &a, sizeof(a)) == 0)
			return &pt->v[i];
	}
	fail_msg("no peer %s", ip);
	return NULL;
}

static int builtin_lookup(void *ctx, uint8_t domain, uint16_t topic, uint32_t *ret_size)
{
	(void)ctx;
	(void)domain;
	return snps_builtin_size(topic, ret_size);
}

/*
 * announce_pack: our Participant frame is the capture's with STATUS 1
 * (`17`) after the sample and the count one higher; a real node's
 * Participant (the capture's) marks nobody, one ending so marks its
 * sender as taking several samples per frame, until a Participant frame
 * of it without the STATUS.
 */
static void test_announce_pack(void **state)
{
	uint8_t want[sizeof(cap_pub_participant) + 1], heard[sizeof(cap_sub_participant) + 1];
	struct snps_decoder_options o;
	struct fx f;

	(void)state;
	memcpy(want, cap_pub_participant, sizeof(cap_pub_participant));
	want[1]++;
	want[sizeof(cap_pub_participant)] = 0x17;
	memcpy(heard, cap_sub_participant, sizeof(cap_sub_participant));
	heard[1]++;
	heard[sizeof(cap_sub_participant)] = 0x17;
	fx_announce_pack = true;
	fx_open(&f, "publisher", 0xd26a);
	fx_announce_pack = false;
	netif_flush(f.n);
	assert_sent(0, want, sizeof(want), "ff02::20", 23254);
	/* Our own decoder takes the frame, STATUS included. */
	snps_decoder_options_init(&o);
	o.lookup = builtin_lookup;
	assert_int_equal(snps_decode(want, sizeof(want), &o, NULL, NULL, NULL), 0);
	inject(SUB_IP, 23254, cap_sub_participant, sizeof(cap_sub_participant));
	netif_receive(f.n);
	netif_flush(f.n);
	assert_false(fx_peer(&f, SUB_IP)->pack_heard);
	inject(SUB_IP, 23254, heard, sizeof(heard));
	netif_receive(f.n);
	netif_flush(f.n);
	assert_true(fx_peer(&f, SUB_IP)->pack_heard);
	assert_false(fx_peer(&f, SUB_IP)->pack);
	/* Each Participant frame says it again: one without STATUS (a real node now) clears it. */
	inject(SUB_IP, 23254, cap_sub_participant, sizeof(cap_sub_participant));
	netif_receive(f.n);
	netif_flush(f.n);
	assert_false(fx_peer(&f, SUB_IP)->pack_heard);
	/* It is still a participant like any other. */
	assert_int_equal(disc_counters(netif_discovery(f.n))->participants_new, 1);
	fx_close(&f);
}

/* The capture's subscriber announces itself and subscribes: data then goes to ff02::10 (frame 16). */
static void test_pub_learns_subscriber(void **state)
{
	const struct disc_sub *subs;
	uint32_t n_subs, n_parts;
	struct fx f;

	(void)state;
	fx_open(&f, "publisher", 0xd26a);
	netif_flush(f.n);
	inject(SUB_IP, 23254, cap_sub_participant, sizeof(cap_sub_participant));
	netif_receive(f.n);
	netif_flush(f.n);
	/* §10.3 reaction to a new participant: Publications, then our Participant. */
	assert_int_equal(fake_sent(), 4);
	assert_sent(2, cap_publication, sizeof(cap_publication), "ff02::30", 23254);
	assert_sent(3, cap_pub_participant, sizeof(cap_pub_participant), "ff02::20", 23254);
	disc_participants(netif_discovery(f.n), &n_parts);
	assert_int_equal(n_parts, 1);

	inject(SUB_IP, 23254, cap_subscription, sizeof(cap_subscription));
	netif_receive(f.n);
	subs = disc_subs(netif_discovery(f.n), &n_subs);
	assert_int_equal(n_subs, 1);
	assert_int_equal(subs[0].participant, 0xd36b);
	assert_int_equal(subs[0].topic, 10);
	assert_true(subs[0].loc.group);

	local_write(&f, 0xd26a, 21);
	assert_int_equal(fake_sent(), 5);
	assert_sent(4, cap_data, sizeof(cap_data), "ff02::10", 23254);

	/* The 5-s re-answer of the real subscriber refreshes, it does not take a slot (§15.8). */
	for (int i = 0; i < 20; i++) {
		inject(SUB_IP, 23254, cap_subscription, sizeof(cap_subscription));
		netif_receive(f.n);
	}
	disc_subs(netif_discovery(f.n), &n_subs);
	assert_int_equal(n_subs, 1);
	assert_int_equal(disc_counters(netif_discovery(f.n))->subs_refreshed, 20);
	local_write(&f, 0xd26a, 22);
	assert_int_equal(fake_sent(), 6); /* still one copy to the group */
	assert_int_equal(netif_counters(f.n)->malformed, 0);
	fx_close(&f);
}

/* A subscriber configured as the capture's (d36b): it answers the Publication with frame 8 and takes the
 * data. */
static void test_sub_answers_publication(void **state)
{
	uint8_t got[8];
	uint32_t len = 0;
	struct fx f;

	(void)state;
	fx_open(&f, "subscriber", 0xd36b);
	netif_flush(f.n);
	assert_int_equal(fake_sent(), 1); /* a subscriber has no Publication */
	assert_sent(0, cap_sub_participant, sizeof(cap_sub_participant), "ff02::20", 23254);

	inject(PUB_IP, 23254, cap_pub_participant, sizeof(cap_pub_participant));
	inject(PUB_IP, 23254, cap_publication, sizeof(cap_publication));
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(fake_sent(), 3);
	assert_sent(1, cap_sub_participant, sizeof(cap_sub_participant), "ff02::20", 23254);
	assert_sent(2, cap_subscription, sizeof(cap_subscription), "ff02::30", 23254);

	inject(PUB_IP, 23254, cap_data, sizeof(cap_data));
	netif_receive(f.n);
	assert_int_equal(rring_cons_take(&f.cons, got, sizeof(got), &len, NULL, NULL), 1);
	assert_int_equal(len, 4);
	assert_memory_equal(got, "\xd2\x6a\x00\x15", 4);
	/* Every Publication is answered (§10.4 step 5). */
	inject(PUB_IP, 23254, cap_publication, sizeof(cap_publication));
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(fake_sent(), 4);
	assert_sent(3, cap_subscription, sizeof(cap_subscription), "ff02::30", 23254);
	assert_int_equal(netif_counters(f.n)->malformed, 0);
	fx_close(&f);
}

/* Periodic announcements follow the configured periods (1 s participant, 5 s publication). */
static void test_periodic(void **state)
{
	uint32_t parts = 0, pubs = 0;
	struct fx f;

	(void)state;
	fx_open(&f, "publisher", 0xd26a);
	netif_flush(f.n);
	for (int i = 1; i <= 100; i++) {
		fake_clock_set(1000 * MS + i * 100 * MS); /* 10 s in 100-ms ticks */
		netif_tick(f.n);
	}
	netif_flush(f.n);
	for (uint32_t i = 0; i < fake_sent(); i++) {
		const struct fake_dgram *d = fake_sent_at(i);

		if (d->len == sizeof(cap_pub_participant) && memcmp(d->buf, cap_pub_participant, d->len) == 0)
			parts++;
		else if (d->len == sizeof(cap_publication) && memcmp(d->buf, cap_publication, d->len) == 0)
			pubs++;
		else
			fail_msg("unexpected frame %u", i);
	}
	assert_int_equal(parts, 1 + 10);
	assert_int_equal(pubs, 1 + 2);
	fx_close(&f);
}

/* A subscriber that stops announcing expires: its subscription, its peer entry and the group destination go.
 */
static void test_expiry(void **state)
{
	uint32_t n_subs, n_parts, before;
	struct fx f;

	(void)state;
	fx_open(&f, "publisher", 0xd26a);
	inject(SUB_IP, 23254, cap_sub_participant, sizeof(cap_sub_participant));
	inject(SUB_IP, 23254, cap_subscription, sizeof(cap_subscription));
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(netif_peers(f.n)->n, 2); /* the subscriber (heard) and the group ff02::10 */
	/* 2.5 s later it announced again (participant only, as real nodes every 1 s): it stays. */
	fake_clock_set(3500 * MS);
	inject(SUB_IP, 23254, cap_sub_participant, sizeof(cap_sub_participant));
	netif_receive(f.n);
	fake_clock_set(5500 * MS);
	netif_tick(f.n);
	disc_subs(netif_discovery(f.n), &n_subs);
	assert_int_equal(n_subs, 1);
	before = fake_sent();
	local_write(&f, 1, 1);
	assert_int_equal(fake_sent(), before + 1);
	/* Then silence for more than expire_ms (3 s). */
	fake_clock_set(6600 * MS);
	netif_tick(f.n);
	disc_subs(netif_discovery(f.n), &n_subs);
	disc_participants(netif_discovery(f.n), &n_parts);
	assert_int_equal(n_subs, 0);
	assert_int_equal(n_parts, 0);
	assert_int_equal(netif_peers(f.n)->n, 0);
	assert_int_equal(netif_counters(f.n)->peers_expired, 1);
	assert_int_equal(disc_counters(netif_discovery(f.n))->participants_expired, 1);
	netif_flush(f.n);
	before = fake_sent();
	local_write(&f, 1, 2);
	assert_int_equal(fake_sent(), before); /* nobody to send to */
	/* It comes back (a late or restarted subscriber): learnt again. */
	inject(SUB_IP, 23254, cap_sub_participant, sizeof(cap_sub_participant));
	inject(SUB_IP, 23254, cap_subscription, sizeof(cap_subscription));
	netif_receive(f.n);
	netif_flush(f.n);
	before = fake_sent();
	local_write(&f, 1, 3);
	assert_int_equal(fake_sent(), before + 1);
	assert_sent(before, (const uint8_t *)"\x01\x03\x10\xa1\x42\x00\x01\x00\x03", 9, "ff02::10", 23254);
	fx_close(&f);
}

/* Unicast-mode subscribers (`08 10`) each become a destination; the table cap holds and is counted. */
static void test_subscription_cap(void **state)
{
	uint8_t frame[] = {0x01, 0x04, 0x10, 0x41, 0x08, 0x10, 0x62, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a};
	uint32_t n_subs, before;
	struct fx f;
	char ip[64];

	(void)state;
	fx_open_opts(&f, "publisher", 0xd26a, 2, false);
	for (int i = 1; i <= 5; i++) {
		frame[9] = (uint8_t)(0x10 + i); /* participant 0x0011.. */
		snprintf(ip, sizeof(ip), "fe80::%x", 0x100 + i);
		inject(ip, 23254, frame, sizeof(frame));
	}
	netif_receive(f.n);
	disc_subs(netif_discovery(f.n), &n_subs);
	assert_int_equal(n_subs, 2);
	assert_int_equal(disc_counters(netif_discovery(f.n))->table_full, 3);
	netif_flush(f.n);
	before = fake_sent();
	local_write(&f, 7, 7);
	/* Two unicast destinations, each at its source locator, from port + 20 (§9.2). */
	assert_int_equal(fake_sent(), before + 2);
	assert_sent(before, (const uint8_t *)"\x01\x03\x10\xa1\x42\x00\x07\x00\x07", 9, "fe80::101", 23254);
	assert_sent(before + 1, (const uint8_t *)"\x01\x03\x10\xa1\x42\x00\x07\x00\x07", 9, "fe80::102",
		    23254);
	fx_close(&f);
}

/* Unicast mode on our side: ADDRESS 08 10 in Participant and Subscription (§7 recipes). */
static void test_unicast_mode_bytes(void **state)
{
	static const uint8_t part[] = {0x01, 0x04, 0x10, 0x11, 0x08, 0x10, 0x22, 0xd3, 0x6b};
	static const uint8_t sub[] = {0x01, 0x04, 0x10, 0x41, 0x08, 0x10, 0x62,
				      0x00, 0x00, 0xd3, 0x6b, 0x00, 0x0a};
	struct fx f;

	(void)state;
	fx_open_opts(&f, "subscriber", 0xd36b, 64, true);
	inject(PUB_IP, 23254, cap_publication, sizeof(cap_publication));
	netif_receive(f.n);
	netif_flush(f.n);
	assert_int_equal(fake_sent(), 2);
	assert_sent(0, part, sizeof(part), "ff02::20", 23254);
	assert_sent(1, sub, sizeof(sub), "ff02::30", 23254);
	fx_close(&f);
}

/* Our node id from another address is a clash: counted, never a participant. Id 0 is ignored. */
static void test_clash_and_zero(void **state)
{
	static const uint8_t zero[] = {0x01, 0x04, 0x10, 0x11, 0x68, 0x11, 0x02, 0x00,
				       0x00, 0x00, 0x00, 0x30, 0x22, 0x00, 0x00};
	uint32_t n_parts;
	struct fx f;

	(void)state;
	fx_open(&f, "publisher", 0xd26a);
	inject(PUB_IP, 23254, cap_pub_participant, sizeof(cap_pub_participant));
	inject(SUB_IP, 23254, zero, sizeof(zero));
	netif_receive(f.n);
	disc_participants(netif_discovery(f.n), &n_parts);
	assert_int_equal(n_parts, 0);
	assert_int_equal(disc_counters(netif_discovery(f.n))->id_clash, 1);
	assert_int_equal(disc_counters(netif_discovery(f.n))->ignored, 1);
	fx_close(&f);
}

/* Node id derivation: the last two bytes of the address (§9.4), never 0; the default one is the link's. */
static void test_node_id(void **state)
{
	struct in6_addr a;
	struct fx f;

	(void)state;
	inet_pton(AF_INET6, PUB_IP, &a);
	assert_int_equal(disc_node_id_from_addr(&a), 0xd26a);
	inet_pton(AF_INET6, "fe80::1234:0", &a);
	assert_int_not_equal(disc_node_id_from_addr(&a), 0);
	inet_pton(AF_INET6, "fe80::", &a);
	assert_int_not_equal(disc_node_id_from_addr(&a), 0);
	fx_open(&f, "publisher", 0);
	assert_int_equal(disc_node_id(netif_discovery(f.n)), 0x0001); /* the fake link is fe80::1 */
	fx_close(&f);
}

/* Under discovery a user topic may not use a builtin id (1..7), in any domain (§4.4). */
static void test_builtin_id_refused(void **state)
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
	assert_int_equal(
	    nodecfg_load_memory(builtin_id_xml, sizeof(builtin_id_xml) - 1, "bad.xml", &nc, &err), 0);
	netif_options_init(&o);
	o.backend = &fake_backend_ops;
	o.node = nc;
	o.links[0] = "fk0";
	o.n_links = 1;
	o.disc.on = true;
	assert_int_equal(netif_new(&loop, b, &o, NULL, &n, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "builtin"));
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(fake_open_count(), 0);
	assert_int_equal(uv_loop_close(&loop), 0);
	broker_free(b);
	free(nc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pub_startup_bytes),
	    cmocka_unit_test(test_announce_pack),
	    cmocka_unit_test(test_pub_learns_subscriber),
	    cmocka_unit_test(test_sub_answers_publication),
	    cmocka_unit_test(test_periodic),
	    cmocka_unit_test(test_expiry),
	    cmocka_unit_test(test_subscription_cap),
	    cmocka_unit_test(test_unicast_mode_bytes),
	    cmocka_unit_test(test_clash_and_zero),
	    cmocka_unit_test(test_node_id),
	    cmocka_unit_test(test_builtin_id_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
