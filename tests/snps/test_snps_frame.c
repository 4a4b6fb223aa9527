/* SPDX-License-Identifier: MIT */
/*
 * test_snps_frame.c - the frame builder gives the recipes of snps-wire.md
 * §7 and the examples of §14 byte for byte, keeps the §6.6 size rule, and
 * refuses what the wire cannot carry without touching the frame.
 *
 * OVERVIEW
 * Each recipe is built with the high-level snps_frame_add_*() calls the
 * daemon will use, then compared with the hex of the spec. Frames built
 * with the low-level puts are decoded again to check the round trip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <snps/snps.h>
#include "testutil.h"

static void expect_frame(struct snps_frame *f, const char *hex)
{
	uint8_t want[512];
	int n = unhex(hex, want, sizeof(want));
	size_t len;

	assert_true(n > 0);
	assert_int_equal(snps_frame_finish(f, &len), 0);
	if (len != (size_t)n || memcmp(f->buf, want, len) != 0) {
		char got[1600];
		size_t k = 0;

		for (size_t i = 0; i < len && k + 4 < sizeof(got); i++)
			k += (size_t)snprintf(got + k, sizeof(got) - k, "%02x ", f->buf[i]);
		fail_msg("frame\n got  %s\n want %s", got, hex);
	}
}

static void init(struct snps_frame *f, uint8_t *buf, size_t cap)
{
	assert_int_equal(snps_frame_init(f, buf, cap, NULL), 0);
}

static const uint8_t temp_sample[] = {0xd2, 0x6a, 0x00, 0x15};

/* ---- §7 recipes ---- */

static void test_recipe_user_sample(void **state)
{
	uint8_t buf[128];
	struct snps_frame f;
	struct snps_sample_meta m = {.domain = 1, .topic = 10};

	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_add_sample(&f, &m, temp_sample, sizeof(temp_sample)), 0);
	/* The count is written last: still 0 until finish (§3). */
	assert_int_equal(buf[1], 0);
	assert_int_equal(snps_frame_count(&f), 3);
	expect_frame(&f, "01 03 10 a1 42 d2 6a 00 15");
}

static void test_recipe_domain_zero(void **state)
{
	uint8_t buf[128];
	struct snps_frame f;
	struct snps_sample_meta m = {.domain = 0, .topic = 4};
	const uint8_t v[] = {0x12, 0x34};

	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_add_sample(&f, &m, v, 2), 0);
	expect_frame(&f, "01 02 41 22 12 34");
}

static void test_recipe_seqnrs(void **state)
{
	static const char *const basic[] = {"01 04 10 51 03 22 00 64", "01 04 10 51 13 22 00 65",
					    "01 04 10 51 23 22 00 66"};
	uint8_t buf[128];
	struct snps_frame f;

	for (unsigned i = 0; i < 3; i++) {
		struct snps_seqnr s = {4, i};
		struct snps_sample_meta m = {.domain = 1, .topic = 5, .seqnr = &s};
		const uint8_t v[] = {0x00, (uint8_t)(0x64 + i)};

		init(&f, buf, sizeof(buf));
		assert_int_equal(snps_frame_add_sample(&f, &m, v, 2), 0);
		expect_frame(&f, basic[i]);
	}
	{
		struct snps_seqnr s = {16, 0};
		struct snps_sample_meta m = {.domain = 1, .topic = 4, .seqnr = &s};
		const uint8_t v[] = {0x00, 0x64};

		init(&f, buf, sizeof(buf));
		assert_int_equal(snps_frame_add_sample(&f, &m, v, 2), 0);
		expect_frame(&f, "01 04 10 41 9f 00 00 22 00 64");
	}
	{
		struct snps_seqnr s = {8, 0};
		struct snps_sample_meta m = {.domain = 1, .topic = 6, .seqnr = &s};
		const uint8_t v[] = {0x00, 0x64};

		init(&f, buf, sizeof(buf));
		assert_int_equal(snps_frame_add_sample(&f, &m, v, 2), 0);
		expect_frame(&f, "01 04 10 61 8f 00 22 00 64");
	}
	{
		struct snps_seqnr s = {32, 0x01020304};
		struct snps_sample_meta m = {.domain = 1, .topic = 6, .seqnr = &s};
		const uint8_t v[] = {0x00, 0x64};

		init(&f, buf, sizeof(buf));
		assert_int_equal(snps_frame_add_sample(&f, &m, v, 2), 0);
		expect_frame(&f, "01 04 10 61 af 01 02 03 04 22 00 64");
	}
}

static void test_recipe_ack_nack(void **state)
{
	uint8_t buf[128];
	struct snps_frame f;
	struct snps_seqnr s0 = {4, 0}, s2 = {4, 2}, s2x = {8, 2}, big = {16, 0x1234};

	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_add_ack(&f, 1, 3, &s0), 0);
	expect_frame(&f, "01 03 10 31 05");
	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_add_nack(&f, 1, 7, &s2), 0);
	expect_frame(&f, "01 03 10 71 26");
	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_add_nack(&f, 1, 7, &s2x), 0);
	expect_frame(&f, "01 04 10 71 1f 8f 02");
	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_add_ack(&f, 1, 3, &big), 0);
	expect_frame(&f, "01 04 10 31 0f 9f 12 34");
}

static void test_recipe_discovery(void **state)
{
	uint8_t buf[128], sample[SNPS_LOCATION_SIZE];
	struct snps_frame f;
	struct snps_addr mc30, mc10, uni;
	struct snps_participant p = {0xd36b};
	struct snps_endpoint pub = {0, 0xd26a, 10}, sub = {0, 0xd36b, 10};
	struct snps_location loc = {0xd26a, 0xd26a, 500, 500, 0, 5, 5, 0, 1000};

	snps_addr_link_group(SNPS_GROUP_ENDPOINT, &mc30);
	snps_addr_link_group(SNPS_GROUP_DATA, &mc10);
	snps_addr_unicast(&uni);

	/* Participant, multicast mode (E3). */
	{
		struct snps_sample_meta m = {.domain = 1, .topic = SNPS_BUILTIN_PARTICIPANT, .addr = &mc30};

		init(&f, buf, sizeof(buf));
		assert_int_equal(snps_participant_encode(&p, sample, sizeof(sample)), 0);
		assert_int_equal(snps_frame_add_sample(&f, &m, sample, SNPS_PARTICIPANT_SIZE), 0);
		expect_frame(&f, "01 04 10 11 68 11 02 00 00 00 00 30 22 d3 6b");
		m.addr = &uni;
		init(&f, buf, sizeof(buf));
		assert_int_equal(snps_frame_add_sample(&f, &m, sample, SNPS_PARTICIPANT_SIZE), 0);
		expect_frame(&f, "01 04 10 11 08 10 22 d3 6b");
	}
	/* Publication: no ADDRESS (E4). */
	{
		struct snps_sample_meta m = {.domain = 1, .topic = SNPS_BUILTIN_PUBLICATION};

		init(&f, buf, sizeof(buf));
		assert_int_equal(snps_endpoint_encode(&pub, sample, sizeof(sample)), 0);
		assert_int_equal(snps_frame_add_sample(&f, &m, sample, SNPS_ENDPOINT_SIZE), 0);
		expect_frame(&f, "01 03 10 31 62 00 00 d2 6a 00 0a");
	}
	/* Subscription, both modes (E5). */
	{
		struct snps_sample_meta m = {.domain = 1, .topic = SNPS_BUILTIN_SUBSCRIPTION, .addr = &mc10};

		init(&f, buf, sizeof(buf));
		assert_int_equal(snps_endpoint_encode(&sub, sample, sizeof(sample)), 0);
		assert_int_equal(snps_frame_add_sample(&f, &m, sample, SNPS_ENDPOINT_SIZE), 0);
		expect_frame(&f, "01 04 10 41 68 11 02 00 00 00 00 10 62 00 00 d3 6b 00 0a");
		m.addr = &uni;
		init(&f, buf, sizeof(buf));
		assert_int_equal(snps_frame_add_sample(&f, &m, sample, SNPS_ENDPOINT_SIZE), 0);
		expect_frame(&f, "01 04 10 41 08 10 62 00 00 d3 6b 00 0a");
	}
	/* Location: 18 bytes, nibble 2, advertising ff02::30 (E12). */
	{
		struct snps_sample_meta m = {.domain = 1, .topic = SNPS_BUILTIN_LOCATION, .addr = &mc30};

		init(&f, buf, sizeof(buf));
		assert_int_equal(snps_location_encode(&loc, sample, sizeof(sample)), 0);
		assert_int_equal(snps_frame_add_sample(&f, &m, sample, SNPS_LOCATION_SIZE), 0);
		expect_frame(&f, "01 04 10 61 68 11 02 00 00 00 00 30 22 d2 6a d2 6a 01 f4 01 f4 00 00 00 05 "
				 "00 05 00 00 03 e8");
	}
}

static void test_recipe_wide_and_ext_topic(void **state)
{
	uint8_t buf[128], wide[37];
	struct snps_frame f;
	struct snps_frame_options o;
	struct snps_sample_meta m = {.domain = 2, .topic = 11};
	const uint8_t v[] = {0x12, 0x34};

	assert_int_equal(unhex("a1 5a 01 ff fe 12 34 61 62 63 00 00 00 ff ff ff fd 89 ab cd ef"
			       " 01 02 03 04 05 06 07 08 f1 f2 f3 f4 f5 f6 f7 f8",
			       wide, sizeof(wide)),
			 37);
	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_add_sample(&f, &m, wide, sizeof(wide)), 0);
	/* E6: nibble 37 & 15 = 5. */
	expect_frame(&f, "01 03 20 b1 52 a1 5a 01 ff fe 12 34 61 62 63 00 00 00 ff ff ff fd 89 ab cd ef"
			 " 01 02 03 04 05 06 07 08 f1 f2 f3 f4 f5 f6 f7 f8");

	/* E11: only with extended topics enabled. */
	snps_frame_options_init(&o);
	o.flags = SNPS_FRAME_EXT_TOPICS;
	assert_int_equal(snps_frame_init(&f, buf, sizeof(buf), &o), 0);
	m.domain = 1;
	m.topic = 0x123;
	assert_int_equal(snps_frame_add_sample(&f, &m, v, 2), 0);
	expect_frame(&f, "01 03 10 bf 01 23 22 12 34");
	/* Little-endian for a §2 peer. */
	o.flags |= SNPS_FRAME_SWAPPED;
	assert_int_equal(snps_frame_init(&f, buf, sizeof(buf), &o), 0);
	assert_int_equal(snps_frame_add_sample(&f, &m, v, 2), 0);
	expect_frame(&f, "01 03 10 bf 23 01 22 12 34");
}

static void test_recipe_secure_and_stateless(void **state)
{
	uint8_t buf[256], blob[47], psm[SNPS_STATELESS_SIZE];
	struct snps_frame f;
	struct snps_frame_options o;
	struct snps_sample_meta m = {.domain = 1, .topic = 8};
	size_t len;

	for (size_t i = 0; i < sizeof(blob); i++)
		blob[i] = (uint8_t)(0x80 + i);
	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_add_secure(&f, &m, blob, sizeof(blob)), 0);
	assert_int_equal(snps_frame_finish(&f, &len), 0);
	assert_int_equal(len, 6 + 47);
	assert_memory_equal(buf, "\x01\x03\x10\x81\xef\x2f", 6);
	assert_memory_equal(buf + 6, blob, sizeof(blob));

	/* E14: the 234-byte handshake sample needs the security buffer size. */
	memset(psm, 0x5a, sizeof(psm));
	m.topic = SNPS_BUILTIN_STATELESS;
	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_add_sample(&f, &m, psm, sizeof(psm)), SNPS_EMSGSIZE);
	assert_int_equal(snps_frame_len(&f), 2);
	snps_frame_options_init(&o);
	o.max_frame = SNPS_MAX_FRAME_SECURITY;
	assert_int_equal(snps_frame_init(&f, buf, sizeof(buf), &o), 0);
	assert_int_equal(snps_frame_add_sample(&f, &m, psm, sizeof(psm)), 0);
	assert_int_equal(snps_frame_finish(&f, &len), 0);
	assert_int_equal(len, 239);
	assert_memory_equal(buf, "\x01\x03\x10\x51\xa2", 5);
}

/* ---- §6.6 size rule ---- */

static void test_size_rule(void **state)
{
	uint8_t buf[512], sample[256];
	struct snps_frame f;
	struct snps_frame_options o;
	struct snps_sample_meta m1 = {.domain = 1, .topic = 10}, m0 = {.domain = 0, .topic = 10};
	size_t room, len;

	memset(sample, 0xab, sizeof(sample));
	/* After DOMAIN and TOPIC (position 4): 122 bytes fit, 123 do not. */
	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_room(&f, &m1, &room), 0);
	assert_int_equal(room, 122);
	assert_int_equal(snps_frame_add_sample(&f, &m1, sample, 123), SNPS_EMSGSIZE);
	assert_int_equal(snps_frame_len(&f), 2);
	assert_int_equal(snps_frame_count(&f), 0);
	assert_int_equal(snps_frame_add_sample(&f, &m1, sample, 122), 0);
	assert_int_equal(snps_frame_finish(&f, &len), 0);
	assert_int_equal(len, 127);
	assert_int_equal(buf[4], 0xa2); /* 122 & 15 = 10 */

	/* Domain 0 saves the DOMAIN byte: 123 fit. */
	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_room(&f, &m0, &room), 0);
	assert_int_equal(room, 123);
	assert_int_equal(snps_frame_add_sample(&f, &m0, sample, 124), SNPS_EMSGSIZE);
	assert_int_equal(snps_frame_add_sample(&f, &m0, sample, 123), 0);
	assert_int_equal(snps_frame_len(&f), 127);
	assert_int_equal(snps_frame_room(&f, &m0, &room), SNPS_EMSGSIZE);

	/* A configured peer buffer of 64: frames up to 63 bytes. */
	snps_frame_options_init(&o);
	o.max_frame = 64;
	assert_int_equal(snps_frame_init(&f, buf, sizeof(buf), &o), 0);
	assert_int_equal(snps_frame_add_sample(&f, &m1, sample, 59), SNPS_EMSGSIZE);
	assert_int_equal(snps_frame_add_sample(&f, &m1, sample, 58), 0);
	assert_int_equal(snps_frame_len(&f), 63);

	/* The buffer bounds the frame when it is smaller than max_frame. */
	assert_int_equal(snps_frame_init(&f, buf, 20, NULL), 0);
	assert_int_equal(snps_frame_add_sample(&f, &m1, sample, 16), SNPS_EMSGSIZE);
	assert_int_equal(snps_frame_add_sample(&f, &m1, sample, 15), 0);
	assert_int_equal(snps_frame_len(&f), 20);

	assert_int_equal(snps_frame_init(&f, NULL, 128, NULL), SNPS_EINVAL);
	assert_int_equal(snps_frame_init(&f, buf, 2, NULL), SNPS_EINVAL);
	o.max_frame = 3;
	assert_int_equal(snps_frame_init(&f, buf, sizeof(buf), &o), SNPS_EINVAL);
}

/* ---- §4.7 context rules across several samples ---- */

static void test_context_rules(void **state)
{
	uint8_t buf[128];
	struct snps_frame f;
	struct snps_seqnr s = {4, 3};
	struct snps_sample_meta a = {.domain = 1, .topic = 10}, b = {.domain = 1, .topic = 10, .seqnr = &s},
				c = {.domain = 2, .topic = 5}, z = {.domain = 0, .topic = 4};
	const uint8_t two[] = {0xaa, 0xbb};
	uint8_t *p;

	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_add_sample(&f, &a, temp_sample, 4), 0);
	assert_int_equal(snps_frame_add_sample(&f, &b, temp_sample, 4), 0);
	assert_int_equal(snps_frame_add_sample(&f, &c, two, 2), 0);
	assert_int_equal(snps_frame_add_sample_reserve(&f, &z, 2, &p), 0);
	p[0] = 0xcc;
	p[1] = 0xdd;
	/* DOMAIN and TOPIC only on change; domain 0 written when switching back. */
	expect_frame(&f, "01 0b 10 a1 42 d2 6a 00 15 33 42 d2 6a 00 15 20 51 22 aa bb 00 41 22 cc dd");

	/* Reset starts over: domain 0 again omitted, TOPIC written. */
	snps_frame_reset(&f);
	assert_int_equal(snps_frame_add_sample(&f, &z, two, 2), 0);
	expect_frame(&f, "01 02 41 22 aa bb");
}

static void test_add_is_atomic(void **state)
{
	uint8_t buf[128], big[200];
	struct snps_frame f;
	struct snps_seqnr bad = {4, 16};
	struct snps_addr badaddr = {SNPS_CAST_UNICAST, SNPS_FAMILY_IPV6, 6, {0}};
	struct snps_sample_meta a = {.domain = 1, .topic = 10}, other = {.domain = 3, .topic = 9},
				withbad = {.domain = 3, .topic = 9, .seqnr = &bad},
				withbadaddr = {.domain = 3, .topic = 9, .addr = &badaddr};

	memset(big, 0, sizeof(big));
	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_add_sample(&f, &a, temp_sample, 4), 0);
	/* Each refusal leaves the frame and its context as they were. */
	assert_int_equal(snps_frame_add_sample(&f, &other, big, 118), SNPS_EMSGSIZE);
	assert_int_equal(snps_frame_add_sample(&f, &withbad, temp_sample, 4), SNPS_EINVAL);
	assert_int_equal(snps_frame_add_sample(&f, &withbadaddr, temp_sample, 4), SNPS_EINVAL);
	assert_int_equal(snps_frame_add_sample(&f, &a, NULL, 4), SNPS_EINVAL);
	assert_int_equal(snps_frame_count(&f), 3);
	assert_int_equal(snps_frame_len(&f), 9);
	/* So the next sample of the old topic still needs no context. */
	assert_int_equal(snps_frame_add_sample(&f, &a, temp_sample, 4), 0);
	expect_frame(&f, "01 04 10 a1 42 d2 6a 00 15 42 d2 6a 00 15");
}

/* ---- values the wire cannot carry ---- */

static void test_refusals(void **state)
{
	uint8_t buf[128], blob[256];
	struct snps_frame f;
	struct snps_seqnr s;
	struct snps_addr addr;

	memset(blob, 0, sizeof(blob));
	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_put_domain(&f, 16), SNPS_EINVAL);
	assert_int_equal(snps_frame_put_topic(&f, 16), SNPS_EINVAL);
	s = (struct snps_seqnr){4, 16};
	assert_int_equal(snps_frame_put_seqnr(&f, &s), SNPS_EINVAL);
	assert_int_equal(snps_frame_put_ack(&f, &s), SNPS_EINVAL);
	s = (struct snps_seqnr){8, 256};
	assert_int_equal(snps_frame_put_seqnr(&f, &s), SNPS_EINVAL);
	s = (struct snps_seqnr){16, 65536};
	assert_int_equal(snps_frame_put_nack(&f, &s), SNPS_EINVAL);
	s = (struct snps_seqnr){12, 1};
	assert_int_equal(snps_frame_put_seqnr(&f, &s), SNPS_EINVAL);
	snps_addr_unicast(&addr);
	addr.len = 6;
	assert_int_equal(snps_frame_put_address(&f, &addr), SNPS_EINVAL);
	snps_addr_link_group(0x10, &addr);
	addr.len = 5;
	assert_int_equal(snps_frame_put_address(&f, &addr), SNPS_EINVAL);
	addr.len = 6;
	addr.cast = 3;
	assert_int_equal(snps_frame_put_address(&f, &addr), SNPS_EINVAL);
	assert_int_equal(snps_frame_put_secure(&f, blob, 23), SNPS_EINVAL);
	assert_int_equal(snps_frame_put_secure(&f, blob, 256), SNPS_EINVAL);
	assert_int_equal(snps_frame_put_secure(&f, NULL, 30), SNPS_EINVAL);
	assert_int_equal(snps_frame_put_skippable(&f, 0x02, blob, 0), SNPS_EINVAL); /* DATA */
	assert_int_equal(snps_frame_put_skippable(&f, 0x08, blob, 0), SNPS_EINVAL); /* ADDRESS */
	assert_int_equal(snps_frame_put_skippable(&f, 0x54, blob, 1), SNPS_EINVAL); /* TS is 2 + hdr */
	assert_int_equal(snps_frame_put_skippable(&f, 0x2f, blob, 0), SNPS_EINVAL); /* SEP */
	assert_int_equal(snps_frame_put_skippable(&f, 0x0f, blob, 0), SNPS_EINVAL); /* ext ACK */
	assert_int_equal(snps_frame_put_data(&f, NULL, 1), SNPS_EINVAL);
	/* Nothing of that reached the frame. */
	assert_int_equal(snps_frame_len(&f), 2);
	assert_int_equal(snps_frame_count(&f), 0);
}

static void test_count_limit(void **state)
{
	static uint8_t buf[1024];
	struct snps_frame f;
	struct snps_frame_options o;
	size_t len;

	snps_frame_options_init(&o);
	o.max_frame = sizeof(buf) + 1;
	assert_int_equal(snps_frame_init(&f, buf, sizeof(buf), &o), 0);
	for (unsigned i = 0; i < 255; i++)
		assert_int_equal(snps_frame_put_domain(&f, (uint8_t)(i & 15)), 0);
	assert_int_equal(snps_frame_put_domain(&f, 1), SNPS_ENOSPC);
	assert_int_equal(snps_frame_finish(&f, &len), 0);
	assert_int_equal(buf[1], 255);
	assert_int_equal(len, 257);
}

/* ---- low level: every submessage, decoded again ---- */

static int lookup2(void *ctx, uint8_t domain, uint16_t topic, uint32_t *ret_size)
{
	*ret_size = 2;
	return 0;
}

static void test_puts_round_trip(void **state)
{
	uint8_t buf[256], blob[30], tsdds[8] = {1, 2, 3, 4, 5, 6, 7, 8}, ts[2] = {0xaa, 0xbb};
	const uint8_t v[2] = {0x12, 0x34};
	struct snps_frame f;
	struct snps_frame_options o;
	struct snps_decoder_options dopt;
	struct snps_decoder d;
	struct snps_event ev[32];
	struct snps_seqnr s4 = {4, 9}, s8 = {8, 200}, s16 = {16, 0xbeef}, s32 = {32, 0xdeadbeef};
	struct snps_addr uni, mc;
	uint8_t *p;
	size_t len, n = 0;
	int rc;

	for (size_t i = 0; i < sizeof(blob); i++)
		blob[i] = (uint8_t)i;
	snps_addr_unicast(&uni);
	snps_addr_link_group(0x70, &mc);
	for (int swapped = 0; swapped <= 1; swapped++) {
		snps_frame_options_init(&o);
		o.max_frame = sizeof(buf) + 1;
		o.flags = SNPS_FRAME_EXT_TOPICS | (swapped ? SNPS_FRAME_SWAPPED : 0);
		assert_int_equal(snps_frame_init(&f, buf, sizeof(buf), &o), 0);
		assert_int_equal(snps_frame_put_domain(&f, 0), 0);
		assert_int_equal(snps_frame_put_topic(&f, 15), 0);
		assert_int_equal(snps_frame_put_topic(&f, 0x4321), 0);
		assert_int_equal(snps_frame_put_topic_ext(&f, 7), 0);
		assert_int_equal(snps_frame_put_address(&f, &uni), 0);
		assert_int_equal(snps_frame_put_address(&f, &mc), 0);
		assert_int_equal(snps_frame_put_seqnr(&f, &s4), 0);
		assert_int_equal(snps_frame_put_seqnr(&f, &s8), 0);
		assert_int_equal(snps_frame_put_seqnr(&f, &s16), 0);
		assert_int_equal(snps_frame_put_seqnr(&f, &s32), 0);
		assert_int_equal(snps_frame_put_data(&f, v, 2), 0);
		assert_int_equal(snps_frame_reserve_data(&f, 2, &p), 0);
		memcpy(p, v, 2);
		assert_int_equal(snps_frame_put_ack(&f, &s4), 0);
		assert_int_equal(snps_frame_put_ack(&f, &s8), 0);
		assert_int_equal(snps_frame_put_nack(&f, &s16), 0);
		assert_int_equal(snps_frame_put_nack(&f, &s32), 0);
		assert_int_equal(snps_frame_put_secure(&f, blob, sizeof(blob)), 0);
		assert_int_equal(snps_frame_put_skippable(&f, 0x54, ts, 2), 0);
		assert_int_equal(snps_frame_put_skippable(&f, 0x37, NULL, 0), 0);
		assert_int_equal(snps_frame_put_skippable(&f, 0xe9, NULL, 0), 0);
		assert_int_equal(snps_frame_put_skippable(&f, 0x3f, tsdds, 8), 0);
		assert_int_equal(snps_frame_finish(&f, &len), 0);
		/* The two wide ACK/NACK count twice. */
		assert_int_equal(buf[1], 24);
		if (swapped)
			assert_memory_equal(buf + 4, "\xbf\x21\x43", 3);
		else
			assert_memory_equal(buf + 4, "\xbf\x43\x21", 3);

		snps_decoder_options_init(&dopt);
		dopt.lookup = lookup2;
		dopt.flags = swapped ? SNPS_DECODE_SWAPPED : 0;
		assert_int_equal(snps_decoder_init(&d, buf, len, &dopt), 0);
		n = 0;
		while ((rc = snps_decoder_next(&d, &ev[n])) == 1)
			n++;
		assert_int_equal(rc, 0);
		assert_int_equal(n, 21);
		assert_int_equal(ev[0].kind, SNPS_EV_DOMAIN);
		assert_int_equal(ev[1].topic, 15);
		assert_false(ev[1].topic_ext);
		assert_int_equal(ev[2].topic, 0x4321);
		assert_true(ev[2].topic_ext);
		assert_int_equal(ev[3].topic, 7);
		assert_true(ev[3].topic_ext);
		assert_true(snps_addr_equal(&ev[4].addr, &uni));
		assert_true(snps_addr_equal(&ev[5].addr, &mc));
		assert_int_equal(ev[6].seqnr.value, 9);
		assert_int_equal(ev[7].seqnr.value, 200);
		assert_int_equal(ev[8].seqnr.value, 0xbeef);
		assert_int_equal(ev[9].seqnr.value, 0xdeadbeef);
		assert_int_equal(ev[10].kind, SNPS_EV_DATA);
		assert_true(ev[10].has_seqnr);
		assert_int_equal(ev[10].seqnr.bits, 32);
		assert_int_equal(ev[11].kind, SNPS_EV_DATA);
		assert_false(ev[11].has_seqnr);
		assert_memory_equal(ev[11].data, v, 2);
		assert_int_equal(ev[12].kind, SNPS_EV_ACK);
		assert_int_equal(ev[12].seqnr.bits, 4);
		assert_int_equal(ev[13].kind, SNPS_EV_ACK);
		assert_int_equal(ev[13].seqnr.value, 200);
		assert_int_equal(ev[14].kind, SNPS_EV_NACK);
		assert_int_equal(ev[14].seqnr.value, 0xbeef);
		assert_int_equal(ev[15].kind, SNPS_EV_NACK);
		assert_int_equal(ev[15].seqnr.value, 0xdeadbeef);
		assert_int_equal(ev[16].kind, SNPS_EV_SECURE);
		assert_memory_equal(ev[16].data, blob, sizeof(blob));
		assert_int_equal(ev[17].kind, SNPS_EV_SKIPPED);
		assert_memory_equal(ev[17].data, ts, 2);
		assert_int_equal(ev[18].hdr, 0x37);
		assert_int_equal(ev[19].hdr, 0xe9);
		assert_int_equal(ev[20].hdr, 0x3f);
		assert_memory_equal(ev[20].data, tsdds, 8);
	}
}

static void test_room_refusals(void **state)
{
	uint8_t buf[128], src[128] = {0};
	struct snps_frame f;
	struct snps_seqnr bad = {4, 99}, s16 = {16, 1};
	struct snps_addr mc;
	struct snps_sample_meta m = {.domain = 16, .topic = 1};
	size_t room;

	init(&f, buf, sizeof(buf));
	assert_int_equal(snps_frame_room(&f, &m, &room), SNPS_EINVAL);
	m.domain = 1;
	m.topic = 99;
	assert_int_equal(snps_frame_room(&f, &m, &room), SNPS_EINVAL);
	m.topic = 1;
	m.seqnr = &bad;
	assert_int_equal(snps_frame_room(&f, &m, &room), SNPS_EINVAL);
	/* Every extra is counted: ADDRESS 8, SEQNR_BIG 3. */
	snps_addr_link_group(0x30, &mc);
	m.seqnr = &s16;
	m.addr = &mc;
	assert_int_equal(snps_frame_room(&f, &m, &room), 0);
	assert_int_equal(room, 125 - 2 - 8 - 3 - 1);
	assert_int_equal(snps_frame_add_sample(&f, &m, src, room + 1), SNPS_EMSGSIZE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_recipe_user_sample),
	    cmocka_unit_test(test_recipe_domain_zero),
	    cmocka_unit_test(test_recipe_seqnrs),
	    cmocka_unit_test(test_recipe_ack_nack),
	    cmocka_unit_test(test_recipe_discovery),
	    cmocka_unit_test(test_recipe_wide_and_ext_topic),
	    cmocka_unit_test(test_recipe_secure_and_stateless),
	    cmocka_unit_test(test_size_rule),
	    cmocka_unit_test(test_context_rules),
	    cmocka_unit_test(test_add_is_atomic),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_count_limit),
	    cmocka_unit_test(test_puts_round_trip),
	    cmocka_unit_test(test_room_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
