/* SPDX-License-Identifier: MIT */
/*
 * test_snps_decoder.c - the SNPS decoder on the example frames of
 * snps-wire.md §7 and §14, on every submessage type of §4.2, and on one
 * malformed datagram per rejection reason.
 *
 * OVERVIEW
 * Datagrams are copied to heap blocks of exactly their length, so a read
 * past the end shows up under AddressSanitizer. The topic table is the
 * one of the examples: temperature (10, 4 bytes), probes (1, 4, 5, 6, 7:
 * 2 bytes), DCPSPublication (3, 6 bytes), wide (11, 37 bytes), ext topic
 * 0x123 (2 bytes), alarm (8, 23 bytes) and an empty-sample topic 12; or the
 * builtins alone.
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

struct lookup_log {
	unsigned calls;
	uint8_t last_domain;
	uint16_t last_topic;
};

static struct lookup_log lk;
/* Topic ids collide between the examples (4 is a probe and
 * DCPSSubscription, 6 a probe and DCPSLocation): some use the builtins. */
static bool use_builtins;

static int lookup(void *ctx, uint8_t domain, uint16_t topic, uint32_t *ret_size)
{
	static const struct {
		uint16_t id;
		uint32_t size;
	} table[] = {
	    {1, 2}, {3, 6}, {4, 2}, {5, 2}, {6, 2}, {7, 2}, {8, 23}, {10, 4}, {11, 37}, {12, 0}, {0x123, 2},
	};

	lk.calls++;
	lk.last_domain = domain;
	lk.last_topic = topic;
	if (use_builtins)
		return snps_builtin_lookup(ctx, domain, topic, ret_size);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (table[i].id == topic) {
			*ret_size = table[i].size;
			return 0;
		}
	}
	return -1;
}

static struct snps_decoder_options opts(uint32_t flags)
{
	struct snps_decoder_options o;

	snps_decoder_options_init(&o);
	o.lookup = lookup;
	o.flags = flags;
	return o;
}

#define MAX_EV 32

struct decoded {
	uint8_t *buf;
	size_t len;
	struct snps_event ev[MAX_EV];
	size_t n;
	int rc;
	enum snps_reason reason;
	size_t offset;
};

/* Decode hex with flags; the caller frees d->buf. */
static void decode_hex(const char *hex, uint32_t flags, struct decoded *d)
{
	struct snps_decoder_options o = opts(flags);
	struct snps_decoder dec;
	int rc;

	memset(d, 0, sizeof(*d));
	d->buf = unhex_heap(hex, &d->len);
	assert_non_null(d->buf);
	rc = snps_decoder_init(&dec, d->buf, d->len, &o);
	while (rc == 0) {
		assert_true(d->n < MAX_EV);
		rc = snps_decoder_next(&dec, &d->ev[d->n]);
		if (rc == 1) {
			d->n++;
			rc = 0;
		} else {
			break;
		}
	}
	d->rc = rc;
	d->reason = snps_decoder_reason(&dec);
	d->offset = snps_decoder_offset(&dec);
	if (rc == 0)
		assert_int_equal(d->reason, SNPS_R_NONE);
}

static void expect_ok(const char *hex, uint32_t flags, struct decoded *d)
{
	decode_hex(hex, flags, d);
	if (d->rc != 0)
		fail_msg("%s: rejected: %s at %zu", hex, snps_reason_str(d->reason), d->offset);
}

static void check_bytes(const uint8_t *got, size_t len, const char *hex)
{
	uint8_t want[512];
	int n = unhex(hex, want, sizeof(want));

	assert_int_equal(n, (int)len);
	assert_memory_equal(got, want, len);
}

/* ---- the examples of §14 ---- */

static void test_e1_tiny(void **state)
{
	struct decoded d;

	expect_ok("01 03 10 11 22 12 34", 0, &d);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.ev[0].kind, SNPS_EV_DOMAIN);
	assert_int_equal(d.ev[0].domain, 1);
	assert_int_equal(d.ev[1].kind, SNPS_EV_TOPIC);
	assert_int_equal(d.ev[1].topic, 1);
	assert_int_equal(d.ev[2].kind, SNPS_EV_DATA);
	assert_int_equal(d.ev[2].domain, 1);
	assert_int_equal(d.ev[2].topic, 1);
	assert_int_equal(d.ev[2].len, 2);
	assert_int_equal(d.ev[2].nibble, 2);
	assert_int_equal(d.ev[2].offset, 4);
	assert_int_equal(d.ev[2].wire_len, 3);
	assert_ptr_equal(d.ev[2].data, d.buf + 5);
	check_bytes(d.ev[2].data, d.ev[2].len, "12 34");
	assert_false(d.ev[2].has_seqnr);
	assert_false(d.ev[2].has_addr);
	free(d.buf);
}

static void test_e3_participant(void **state)
{
	struct decoded d;
	uint8_t ip6[16], want[16] = {0xff, 0x02, [15] = 0x30};

	expect_ok("01 04 10 11 68 11 02 00 00 00 00 30 22 d3 6b", 0, &d);
	assert_int_equal(d.n, 4);
	assert_int_equal(d.ev[2].kind, SNPS_EV_ADDRESS);
	assert_int_equal(d.ev[2].wire_len, 8);
	assert_int_equal(d.ev[2].addr.cast, SNPS_CAST_MULTICAST);
	assert_int_equal(d.ev[2].addr.family, SNPS_FAMILY_IPV6);
	assert_int_equal(d.ev[2].addr.len, 6);
	assert_int_equal(snps_addr_group(&d.ev[2].addr, ip6), 0);
	assert_memory_equal(ip6, want, 16);
	/* The DATA carries the ADDRESS before it (§4.6). */
	assert_int_equal(d.ev[3].kind, SNPS_EV_DATA);
	assert_true(d.ev[3].has_addr);
	assert_true(snps_addr_equal(&d.ev[3].addr, &d.ev[2].addr));
	check_bytes(d.ev[3].data, d.ev[3].len, "d3 6b");
	free(d.buf);

	/* Unicast flavour: "08 10", no address bytes, "use my source". */
	expect_ok("01 04 10 11 08 10 22 d3 6b", 0, &d);
	assert_int_equal(d.ev[2].kind, SNPS_EV_ADDRESS);
	assert_int_equal(d.ev[2].addr.cast, SNPS_CAST_UNICAST);
	assert_int_equal(d.ev[2].addr.len, 0);
	assert_int_equal(d.ev[2].wire_len, 2);
	assert_int_equal(snps_addr_group(&d.ev[2].addr, ip6), SNPS_EINVAL);
	assert_true(d.ev[3].has_addr);
	free(d.buf);
}

static void test_e4_e5_endpoints(void **state)
{
	struct decoded d;
	struct snps_endpoint e;

	expect_ok("01 03 10 31 62 00 00 d2 6a 00 0a", 0, &d);
	assert_int_equal(d.ev[2].kind, SNPS_EV_DATA);
	assert_int_equal(d.ev[2].topic, SNPS_BUILTIN_PUBLICATION);
	assert_int_equal(snps_endpoint_decode(d.ev[2].data, d.ev[2].len, &e), 0);
	assert_int_equal(e.key, 0);
	assert_int_equal(e.participant, 0xd26a);
	assert_int_equal(e.topic_id, 10);
	free(d.buf);

	use_builtins = true;
	expect_ok("01 04 10 41 68 11 02 00 00 00 00 10 62 00 00 d3 6b 00 0a", 0, &d);
	use_builtins = false;
	assert_int_equal(d.ev[3].topic, SNPS_BUILTIN_SUBSCRIPTION);
	assert_true(d.ev[3].has_addr);
	assert_int_equal(d.ev[3].addr.bytes[5], 0x10);
	assert_int_equal(snps_endpoint_decode(d.ev[3].data, d.ev[3].len, &e), 0);
	assert_int_equal(e.participant, 0xd36b);
	free(d.buf);
}

static void test_e6_wide_nibble(void **state)
{
	struct decoded d;

	/* 37 bytes, nibble 5: the size comes from the table, not the nibble. */
	expect_ok("01 03 20 b1 52 a1 5a 01 ff fe 12 34 61 62 63 00 00 00 ff ff ff fd 89 ab cd ef"
		  " 01 02 03 04 05 06 07 08 f1 f2 f3 f4 f5 f6 f7 f8",
		  0, &d);
	assert_int_equal(d.ev[0].domain, 2);
	assert_int_equal(d.ev[2].kind, SNPS_EV_DATA);
	assert_int_equal(d.ev[2].nibble, 5);
	assert_int_equal(d.ev[2].len, 37);
	assert_int_equal(d.ev[2].data[36], 0xf8);
	free(d.buf);
}

static void test_e8_e9_e10_seqnr_ack_nack(void **state)
{
	struct decoded d;

	expect_ok("01 04 10 51 03 22 00 64", 0, &d);
	assert_int_equal(d.ev[2].kind, SNPS_EV_SEQNR);
	assert_int_equal(d.ev[2].seqnr.bits, 4);
	assert_int_equal(d.ev[2].seqnr.value, 0);
	assert_true(d.ev[3].has_seqnr);
	assert_int_equal(d.ev[3].seqnr.value, 0);
	free(d.buf);

	expect_ok("01 04 10 41 9f 00 01 22 00 65", 0, &d);
	assert_int_equal(d.ev[2].seqnr.bits, 16);
	assert_int_equal(d.ev[2].seqnr.value, 1);
	assert_int_equal(d.ev[2].wire_len, 3);
	assert_int_equal(d.ev[3].seqnr.value, 1);
	free(d.buf);

	expect_ok("01 04 10 61 8f 07 22 00 64", 0, &d);
	assert_int_equal(d.ev[2].seqnr.bits, 8);
	assert_int_equal(d.ev[2].seqnr.value, 7);
	free(d.buf);

	expect_ok("01 04 10 61 af 89 ab cd ef 22 00 64", 0, &d);
	assert_int_equal(d.ev[2].seqnr.bits, 32);
	assert_int_equal(d.ev[2].seqnr.value, 0x89abcdefu);
	free(d.buf);

	expect_ok("01 03 10 31 05", 0, &d);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.ev[2].kind, SNPS_EV_ACK);
	assert_int_equal(d.ev[2].seqnr.bits, 4);
	assert_int_equal(d.ev[2].seqnr.value, 0);
	free(d.buf);

	expect_ok("01 03 10 71 26", 0, &d);
	assert_int_equal(d.ev[2].kind, SNPS_EV_NACK);
	assert_int_equal(d.ev[2].seqnr.value, 2);
	free(d.buf);

	/* Extended NACK: marker and SEQNR_SMALL, two counted submessages, one event. */
	expect_ok("01 04 10 71 1f 8f 02", 0, &d);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.ev[2].kind, SNPS_EV_NACK);
	assert_int_equal(d.ev[2].hdr, 0x1f);
	assert_int_equal(d.ev[2].wire_len, 3);
	assert_int_equal(d.ev[2].seqnr.bits, 8);
	assert_int_equal(d.ev[2].seqnr.value, 2);
	free(d.buf);

	expect_ok("01 04 10 31 0f 9f 01 02", 0, &d);
	assert_int_equal(d.ev[2].kind, SNPS_EV_ACK);
	assert_int_equal(d.ev[2].seqnr.bits, 16);
	assert_int_equal(d.ev[2].seqnr.value, 0x0102);
	free(d.buf);

	expect_ok("01 04 10 31 0f af 00 00 01 00", 0, &d);
	assert_int_equal(d.ev[2].seqnr.bits, 32);
	assert_int_equal(d.ev[2].seqnr.value, 256);
	free(d.buf);
}

static void test_e11_ext_topic(void **state)
{
	struct decoded d;

	expect_ok("01 03 10 bf 01 23 22 12 34", 0, &d);
	assert_int_equal(d.ev[1].kind, SNPS_EV_TOPIC);
	assert_int_equal(d.ev[1].topic, 0x123);
	assert_true(d.ev[1].topic_ext);
	assert_int_equal(d.ev[1].wire_len, 3);
	assert_int_equal(d.ev[2].topic, 0x123);
	assert_int_equal(lk.last_topic, 0x123);
	free(d.buf);

	/* A §2 peer writes the id little-endian. */
	expect_ok("01 03 10 bf 23 01 22 12 34", SNPS_DECODE_SWAPPED, &d);
	assert_int_equal(d.ev[1].topic, 0x123);
	free(d.buf);
	/* Read without the swap it names topic 0x2301, which nobody knows. */
	decode_hex("01 03 10 bf 23 01 22 12 34", 0, &d);
	assert_int_equal(d.rc, SNPS_EPROTO);
	assert_int_equal(d.reason, SNPS_R_UNKNOWN_TOPIC);
	free(d.buf);
}

static void test_e12_location(void **state)
{
	struct decoded d;
	struct snps_location loc;

	use_builtins = true;
	expect_ok(
	    "01 04 10 61 68 11 02 00 00 00 00 30 22 d2 6a d2 6a 01 f4 01 f4 00 00 00 05 00 05 00 00 03 e8", 0,
	    &d);
	use_builtins = false;
	assert_int_equal(d.ev[3].kind, SNPS_EV_DATA);
	assert_int_equal(d.ev[3].nibble, 2);
	assert_int_equal(d.ev[3].len, 18);
	assert_int_equal(snps_location_decode(d.ev[3].data, d.ev[3].len, &loc), 0);
	assert_int_equal(loc.key, 0xd26a);
	assert_int_equal(loc.x, 500);
	assert_int_equal(loc.age, 1000);
	free(d.buf);
}

static void test_e13_secure(void **state)
{
	char hex[512];
	struct decoded d;
	size_t n;

	/* 01 03 10 81 ef 2f + 47 blob bytes (IV 12, alarm 23, MAC 12). */
	n = (size_t)snprintf(hex, sizeof(hex), "01 03 10 81 ef 2f");
	for (unsigned i = 0; i < 47; i++)
		n += (size_t)snprintf(hex + n, sizeof(hex) - n, " %02x", i + 0x40);
	expect_ok(hex, 0, &d);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.ev[2].kind, SNPS_EV_SECURE);
	assert_int_equal(d.ev[2].topic, 8);
	assert_int_equal(d.ev[2].len, 47);
	assert_int_equal(d.ev[2].wire_len, 49);
	assert_int_equal(d.ev[2].data[0], 0x40);
	assert_int_equal(d.ev[2].data[46], 0x40 + 46);
	free(d.buf);
}

static void test_e15_domain_zero(void **state)
{
	struct decoded d;

	lk.last_domain = 99;
	expect_ok("01 02 41 22 12 34", 0, &d);
	assert_int_equal(d.n, 2);
	assert_int_equal(d.ev[1].kind, SNPS_EV_DATA);
	assert_int_equal(d.ev[1].domain, 0);
	assert_int_equal(d.ev[1].topic, 4);
	/* The lookup is told the current domain (0 without a DOMAIN). */
	assert_int_equal(lk.last_domain, 0);
	free(d.buf);
}

/* ---- every other type of the §4.2 table ---- */

static void test_skippable_types(void **state)
{
	struct decoded d;

	/* TS (3), STATUS (1), the unassigned 9..E (1 each), TSDDS (9). */
	expect_ok("01 0a 54 aa bb 97 19 2a 3b 4c 5d 6e 3f 01 02 03 04 05 06 07 08 c1", 0, &d);
	assert_int_equal(d.n, 10);
	assert_int_equal(d.ev[0].kind, SNPS_EV_SKIPPED);
	assert_int_equal(d.ev[0].hdr, 0x54);
	assert_int_equal(d.ev[0].len, 2);
	check_bytes(d.ev[0].data, 2, "aa bb");
	assert_int_equal(d.ev[1].kind, SNPS_EV_SKIPPED);
	assert_int_equal(d.ev[1].hdr, 0x97);
	assert_int_equal(d.ev[1].len, 0);
	assert_null(d.ev[1].data);
	for (size_t i = 2; i <= 7; i++) {
		assert_int_equal(d.ev[i].kind, SNPS_EV_SKIPPED);
		assert_int_equal(d.ev[i].wire_len, 1);
	}
	assert_int_equal(d.ev[8].kind, SNPS_EV_SKIPPED);
	assert_int_equal(d.ev[8].hdr, 0x3f);
	assert_int_equal(d.ev[8].len, 8);
	check_bytes(d.ev[8].data, 8, "01 02 03 04 05 06 07 08");
	/* And the frame went on after them: the last one is a TOPIC. */
	assert_int_equal(d.ev[9].kind, SNPS_EV_TOPIC);
	assert_int_equal(d.ev[9].topic, 12);
	free(d.buf);
}

static void test_empty_sample_and_empty_frame(void **state)
{
	struct decoded d;

	expect_ok("01 03 10 c1 02", 0, &d);
	assert_int_equal(d.ev[2].kind, SNPS_EV_DATA);
	assert_int_equal(d.ev[2].len, 0);
	assert_null(d.ev[2].data);
	free(d.buf);

	expect_ok("01 00", 0, &d);
	assert_int_equal(d.n, 0);
	free(d.buf);
}

/* ---- §4.7 context rules ---- */

static void test_context_several_samples(void **state)
{
	struct decoded d;

	/* Latency budget style (§4.7): an ADDRESS, seqnr 3 + a sample, a bare
	 * sample, a switch to domain 2 topic 5, and back to domain 0 topic 4. */
	expect_ok("01 0c 10 68 11 02 00 00 00 00 30 a1 33 42 01 02 03 04 42 05 06 07 08 20 51 22 aa bb 00 41 "
		  "22 cc dd",
		  0, &d);
	assert_int_equal(d.n, 12);
	/* First DATA: seqnr 3 and the address. */
	assert_int_equal(d.ev[4].kind, SNPS_EV_DATA);
	assert_int_equal(d.ev[4].topic, 10);
	assert_true(d.ev[4].has_seqnr);
	assert_int_equal(d.ev[4].seqnr.value, 3);
	assert_true(d.ev[4].has_addr);
	check_bytes(d.ev[4].data, 4, "01 02 03 04");
	/* Second DATA: no seqnr of its own; the address slot stays (§4.6). */
	assert_int_equal(d.ev[5].kind, SNPS_EV_DATA);
	check_bytes(d.ev[5].data, 4, "05 06 07 08");
	assert_false(d.ev[5].has_seqnr);
	assert_true(d.ev[5].has_addr);
	/* Domain 2, topic 5. */
	assert_int_equal(d.ev[8].kind, SNPS_EV_DATA);
	assert_int_equal(d.ev[8].domain, 2);
	assert_int_equal(d.ev[8].topic, 5);
	check_bytes(d.ev[8].data, 2, "aa bb");
	/* DOMAIN 0 written explicitly when switching back; topic 4. */
	assert_int_equal(d.ev[9].kind, SNPS_EV_DOMAIN);
	assert_int_equal(d.ev[9].domain, 0);
	assert_int_equal(d.ev[11].kind, SNPS_EV_DATA);
	assert_int_equal(d.ev[11].domain, 0);
	assert_int_equal(d.ev[11].topic, 4);
	free(d.buf);

	/* A SEQNR belongs to its topic: a TOPIC in between drops it. */
	expect_ok("01 05 10 a1 33 41 22 00 01", 0, &d);
	assert_int_equal(d.ev[4].kind, SNPS_EV_DATA);
	assert_false(d.ev[4].has_seqnr);
	free(d.buf);
}

/* ---- flags ---- */

static void test_skip_unknown_like_real_receivers(void **state)
{
	struct decoded d;
	struct snps_decoder_options o;
	struct snps_decoder dec;
	struct snps_event ev;
	uint8_t *buf;
	size_t len;

	/* Topic 9 is unknown: skipped by its nibble, the frame goes on. */
	expect_ok("01 05 10 91 42 01 02 03 04 a1 42 d2 6a 00 15", SNPS_DECODE_SKIP_UNKNOWN, &d);
	assert_int_equal(d.ev[2].kind, SNPS_EV_DATA_SKIPPED);
	assert_int_equal(d.ev[2].len, 4);
	assert_int_equal(d.ev[4].kind, SNPS_EV_DATA);
	check_bytes(d.ev[4].data, 4, "d2 6a 00 15");
	free(d.buf);

	/* The nibble rule goes wrong above 15 bytes (§4.5): the 37-byte wide
	 * sample is skipped as 5 bytes and 32 bytes are left over. */
	buf = unhex_heap("01 03 20 b1 52 a1 5a 01 ff fe 12 34 61 62 63 00 00 00 ff ff ff fd 89 ab cd ef"
			 " 01 02 03 04 05 06 07 08 f1 f2 f3 f4 f5 f6 f7 f8",
			 &len);
	assert_non_null(buf);
	snps_decoder_options_init(&o);
	o.flags = SNPS_DECODE_SKIP_UNKNOWN;
	assert_int_equal(snps_decoder_init(&dec, buf, len, &o), 0);
	assert_int_equal(snps_decoder_next(&dec, &ev), 1);
	assert_int_equal(snps_decoder_next(&dec, &ev), 1);
	assert_int_equal(snps_decoder_next(&dec, &ev), 1);
	assert_int_equal(ev.kind, SNPS_EV_DATA_SKIPPED);
	assert_int_equal(ev.len, 5);
	assert_int_equal(snps_decoder_next(&dec, &ev), SNPS_EPROTO);
	assert_int_equal(snps_decoder_reason(&dec), SNPS_R_COUNT_LOW);
	assert_int_equal(snps_decoder_offset(&dec), 10);
	o.flags |= SNPS_DECODE_ALLOW_TRAILING;
	assert_int_equal(snps_decode(buf, len, &o, NULL, NULL, NULL), 0);
	free(buf);
}

static void test_strict_nibble(void **state)
{
	struct decoded d;

	/* Nibble 3 for a 4-byte sample: real receivers do not care... */
	expect_ok("01 03 10 a1 32 d2 6a 00 15", 0, &d);
	assert_int_equal(d.ev[2].nibble, 3);
	assert_int_equal(d.ev[2].len, 4);
	free(d.buf);
	/* ...strict mode does. */
	decode_hex("01 03 10 a1 32 d2 6a 00 15", SNPS_DECODE_STRICT_NIBBLE, &d);
	assert_int_equal(d.rc, SNPS_EPROTO);
	assert_int_equal(d.reason, SNPS_R_DATA_NIBBLE);
	assert_int_equal(d.offset, 4);
	free(d.buf);
	/* 37 & 15 = 5 passes strict mode. */
	expect_ok("01 03 20 b1 52 a1 5a 01 ff fe 12 34 61 62 63 00 00 00 ff ff ff fd 89 ab cd ef"
		  " 01 02 03 04 05 06 07 08 f1 f2 f3 f4 f5 f6 f7 f8",
		  SNPS_DECODE_STRICT_NIBBLE, &d);
	free(d.buf);
}

static void test_swapped_seqnr(void **state)
{
	struct decoded d;

	expect_ok("01 04 10 41 9f 01 00 22 00 65", SNPS_DECODE_SWAPPED, &d);
	assert_int_equal(d.ev[2].seqnr.value, 1);
	free(d.buf);
	expect_ok("01 04 10 41 9f 01 00 22 00 65", 0, &d);
	assert_int_equal(d.ev[2].seqnr.value, 256);
	free(d.buf);
	expect_ok("01 04 10 41 af 04 03 02 01 22 00 65", SNPS_DECODE_SWAPPED, &d);
	assert_int_equal(d.ev[2].seqnr.value, 0x01020304u);
	free(d.buf);
	/* Single bytes are not affected (§2). */
	expect_ok("01 04 10 41 8f 09 22 00 65", SNPS_DECODE_SWAPPED, &d);
	assert_int_equal(d.ev[2].seqnr.value, 9);
	free(d.buf);
}

/* ---- rejections: one datagram per reason, with its offset ---- */

struct bad {
	const char *hex;
	uint32_t flags;
	enum snps_reason reason;
	size_t offset;
};

static const struct bad bad_frames[] = {
    {"", 0, SNPS_R_SHORT_HEADER, 0},
    {"01", 0, SNPS_R_SHORT_HEADER, 1},
    {"02 03 10 a1 42 d2 6a 00 15", 0, SNPS_R_BAD_VERSION, 0},
    {"00 00", 0, SNPS_R_BAD_VERSION, 0},
    {"01 04 10 a1 42 d2 6a 00 15", 0, SNPS_R_COUNT_HIGH, 9},
    {"01 01", 0, SNPS_R_COUNT_HIGH, 2},
    {"01 02 10 a1 42 d2 6a 00 15", 0, SNPS_R_COUNT_LOW, 4},
    {"01 00 00", 0, SNPS_R_COUNT_LOW, 2},
    {"01 03 10 a1 42 d2 6a 00", 0, SNPS_R_TRUNCATED, 4},
    {"01 02 10 68", 0, SNPS_R_TRUNCATED, 3},
    {"01 02 10 68 11 02 00 00 00 00", 0, SNPS_R_TRUNCATED, 3},
    {"01 02 10 bf 00", 0, SNPS_R_TRUNCATED, 3},
    {"01 03 10 41 9f 00", 0, SNPS_R_TRUNCATED, 4},
    {"01 03 10 41 8f", 0, SNPS_R_TRUNCATED, 4},
    {"01 03 10 41 af 00 00 00", 0, SNPS_R_TRUNCATED, 4},
    {"01 01 54 00", 0, SNPS_R_TRUNCATED, 2},
    {"01 01 3f 00 00 00 00 00 00 00", 0, SNPS_R_TRUNCATED, 2},
    {"01 03 10 81 ef", 0, SNPS_R_TRUNCATED, 4},
    {"01 03 10 81 ef 18 00", 0, SNPS_R_TRUNCATED, 4},
    {"01 04 10 31 0f 9f 00", 0, SNPS_R_TRUNCATED, 5},
    {"01 01 2f 00", 0, SNPS_R_UNKNOWN_EXT, 2},
    {"01 01 4f 00", 0, SNPS_R_UNKNOWN_EXT, 2},
    {"01 01 5f 00", 0, SNPS_R_UNKNOWN_EXT, 2},
    {"01 01 6f 00", 0, SNPS_R_UNKNOWN_EXT, 2},
    {"01 01 7f 00", 0, SNPS_R_UNKNOWN_EXT, 2},
    {"01 01 cf 00", 0, SNPS_R_UNKNOWN_EXT, 2},
    {"01 01 df 00", 0, SNPS_R_UNKNOWN_EXT, 2},
    {"01 02 10 ff 00", 0, SNPS_R_UNKNOWN_EXT, 3},
    {"01 02 10 22 12 34", 0, SNPS_R_NO_TOPIC, 3},
    {"01 01 03", 0, SNPS_R_NO_TOPIC, 2},
    {"01 01 8f 01", 0, SNPS_R_NO_TOPIC, 2},
    {"01 01 05", 0, SNPS_R_NO_TOPIC, 2},
    {"01 01 16", 0, SNPS_R_NO_TOPIC, 2},
    {"01 02 0f 8f 01", 0, SNPS_R_NO_TOPIC, 2},
    {"01 01 ef 18", 0, SNPS_R_NO_TOPIC, 2},
    {"01 03 10 91 22 12 34", 0, SNPS_R_UNKNOWN_TOPIC, 4},
    {"01 03 10 a1 32 d2 6a 00 15", SNPS_DECODE_STRICT_NIBBLE, SNPS_R_DATA_NIBBLE, 4},
    {"01 01 68 10 00 00 00 00 00 00", 0, SNPS_R_BAD_ADDRESS, 2},
    {"01 01 08 11", 0, SNPS_R_BAD_ADDRESS, 2},
    {"01 01 58 11 02 00 00 00 30", 0, SNPS_R_BAD_ADDRESS, 2},
    {"01 01 78 11 02 00 00 00 00 30 00", 0, SNPS_R_BAD_ADDRESS, 2},
    {"01 01 08 13", 0, SNPS_R_BAD_ADDRESS, 2},
    {"01 01 08 20", 0, SNPS_R_BAD_ADDRESS, 2},
    {"01 03 10 31 0f", 0, SNPS_R_ACK_NO_SEQNR, 4},
    {"01 03 10 31 0f 8f 00", 0, SNPS_R_ACK_NO_SEQNR, 4},
    {"01 04 10 31 0f 22 12 34", 0, SNPS_R_ACK_NO_SEQNR, 5},
    {"01 04 10 31 1f 03", 0, SNPS_R_ACK_NO_SEQNR, 5},
    {"01 04 10 31 1f bf 00 01", 0, SNPS_R_ACK_NO_SEQNR, 5},
    {"01 04 10 31 0f", 0, SNPS_R_COUNT_HIGH, 5},
    {"01 03 10 81 ef 17 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", 0,
     SNPS_R_BAD_SECURE, 4},
};

static void test_rejections(void **state)
{
	bool seen[SNPS_R_MAX_] = {false};

	for (size_t i = 0; i < sizeof(bad_frames) / sizeof(bad_frames[0]); i++) {
		const struct bad *b = &bad_frames[i];
		struct snps_decoder_options o = opts(b->flags);
		struct snps_decode_error err = {SNPS_R_NONE, 0};
		struct decoded d;
		unsigned visits = 0;

		decode_hex(b->hex, b->flags, &d);
		if (d.rc != SNPS_EPROTO || d.reason != b->reason || d.offset != b->offset)
			fail_msg("\"%s\": rc %d reason %d (%s) offset %zu, want reason %d offset %zu", b->hex,
				 d.rc, d.reason, snps_reason_str(d.reason), d.offset, b->reason, b->offset);
		/* The visitor form rejects before visiting anything. */
		assert_int_equal(snps_decode(d.buf, d.len, &o, NULL, &visits, &err), SNPS_EPROTO);
		assert_int_equal(err.reason, b->reason);
		assert_int_equal(err.offset, b->offset);
		seen[b->reason] = true;
		free(d.buf);
	}
	for (int r = SNPS_R_NONE + 1; r < SNPS_R_MAX_; r++)
		if (!seen[r])
			fail_msg("no rejection test for reason %d (%s)", r,
				 snps_reason_str((enum snps_reason)r));
}

static void test_unknown_topic_without_lookup(void **state)
{
	uint8_t frame[] = {0x01, 0x03, 0x10, 0xa1, 0x42, 0xd2, 0x6a, 0x00, 0x15};
	struct snps_decode_error err;

	assert_int_equal(snps_decode(frame, sizeof(frame), NULL, NULL, NULL, &err), SNPS_EPROTO);
	assert_int_equal(err.reason, SNPS_R_UNKNOWN_TOPIC);
}

static void test_failure_is_sticky(void **state)
{
	uint8_t *buf;
	size_t len;
	struct snps_decoder_options o = opts(0);
	struct snps_decoder d;
	struct snps_event ev;

	buf = unhex_heap("01 03 10 2f a1", &len);
	assert_int_equal(snps_decoder_init(&d, buf, len, &o), 0);
	assert_int_equal(snps_decoder_next(&d, &ev), 1);
	assert_int_equal(snps_decoder_next(&d, &ev), SNPS_EPROTO);
	assert_int_equal(snps_decoder_next(&d, &ev), SNPS_EPROTO);
	assert_int_equal(snps_decoder_reason(&d), SNPS_R_UNKNOWN_EXT);
	free(buf);

	/* The header is checked at init. */
	buf = unhex_heap("03 01 10", &len);
	assert_int_equal(snps_decoder_init(&d, buf, len, &o), SNPS_EPROTO);
	assert_int_equal(snps_decoder_reason(&d), SNPS_R_BAD_VERSION);
	assert_int_equal(snps_decoder_next(&d, &ev), SNPS_EPROTO);
	free(buf);

	assert_int_equal(snps_decoder_init(&d, NULL, 3, &o), SNPS_EINVAL);
	assert_int_equal(snps_decoder_init(&d, (const uint8_t *)"\x01\x00", SNPS_DATAGRAM_MAX + 1, &o),
			 SNPS_EINVAL);
}

/* Every prefix of a valid frame is rejected, without a read past its end. */
static void test_every_truncation(void **state)
{
	static const char *const frames[] = {
	    "01 04 10 11 68 11 02 00 00 00 00 30 22 d3 6b",
	    "01 04 10 41 9f 00 01 22 00 65",
	    "01 04 10 71 1f 8f 02",
	    "01 04 10 31 0f af 00 00 01 00",
	    "01 03 10 bf 01 23 22 12 34",
	    "01 0a 54 aa bb 97 19 2a 3b 4c 5d 6e 3f 01 02 03 04 05 06 07 08 c1",
	    ("01 03 20 b1 52 a1 5a 01 ff fe 12 34 61 62 63 00 00 00 ff ff ff fd 89 ab cd ef"
	     " 01 02 03 04 05 06 07 08 f1 f2 f3 f4 f5 f6 f7 f8"),
	};

	for (size_t f = 0; f < sizeof(frames) / sizeof(frames[0]); f++) {
		uint8_t full[256];
		int n = unhex(frames[f], full, sizeof(full));

		assert_true(n > 0);
		for (int cut = 0; cut <= n; cut++) {
			struct snps_decoder_options o = opts(0);
			struct snps_decode_error err;
			uint8_t *p = malloc(cut > 0 ? (size_t)cut : 1);
			int rc;

			assert_non_null(p);
			memcpy(p, full, (size_t)cut);
			rc = snps_decode(p, (size_t)cut, &o, NULL, NULL, &err);
			if (cut == n) {
				assert_int_equal(rc, 0);
			} else {
				assert_int_equal(rc, SNPS_EPROTO);
				assert_true(err.reason == SNPS_R_SHORT_HEADER ||
					    err.reason == SNPS_R_TRUNCATED ||
					    err.reason == SNPS_R_COUNT_HIGH);
				assert_true(err.offset <= (size_t)cut);
			}
			free(p);
		}
	}
}

struct visit_state {
	unsigned seen;
	unsigned stop_at;
};

static int stopping_visit(void *ctx, const struct snps_event *ev)
{
	struct visit_state *s = ctx;

	s->seen++;
	return s->seen == s->stop_at ? 42 : 0;
}

static void test_visitor(void **state)
{
	uint8_t frame[] = {0x01, 0x04, 0x10, 0x11, 0x08, 0x10, 0x22, 0xd3, 0x6b};
	struct snps_decoder_options o = opts(0);
	struct visit_state s = {0, 0};

	assert_int_equal(snps_decode(frame, sizeof(frame), &o, stopping_visit, &s, NULL), 0);
	assert_int_equal(s.seen, 4);
	s.seen = 0;
	s.stop_at = 2;
	assert_int_equal(snps_decode(frame, sizeof(frame), &o, stopping_visit, &s, NULL), 42);
	assert_int_equal(s.seen, 2);
	/* A frame that fails late is never visited at all. */
	frame[1] = 5;
	s.seen = 0;
	s.stop_at = 0;
	assert_int_equal(snps_decode(frame, sizeof(frame), &o, stopping_visit, &s, NULL), SNPS_EPROTO);
	assert_int_equal(s.seen, 0);
	assert_int_equal(snps_decode(NULL, 1, &o, NULL, NULL, NULL), SNPS_EINVAL);
}

static void test_reason_strings(void **state)
{
	for (int r = 0; r < SNPS_R_MAX_; r++) {
		const char *s = snps_reason_str((enum snps_reason)r);

		assert_non_null(s);
		assert_true(strlen(s) > 5);
		for (int q = 0; q < r; q++)
			assert_string_not_equal(s, snps_reason_str((enum snps_reason)q));
	}
	assert_string_equal(snps_reason_str(SNPS_R_MAX_), "unknown reason");
	assert_string_equal(snps_reason_str((enum snps_reason) - 1), "unknown reason");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_e1_tiny),
	    cmocka_unit_test(test_e3_participant),
	    cmocka_unit_test(test_e4_e5_endpoints),
	    cmocka_unit_test(test_e6_wide_nibble),
	    cmocka_unit_test(test_e8_e9_e10_seqnr_ack_nack),
	    cmocka_unit_test(test_e11_ext_topic),
	    cmocka_unit_test(test_e12_location),
	    cmocka_unit_test(test_e13_secure),
	    cmocka_unit_test(test_e15_domain_zero),
	    cmocka_unit_test(test_skippable_types),
	    cmocka_unit_test(test_empty_sample_and_empty_frame),
	    cmocka_unit_test(test_context_several_samples),
	    cmocka_unit_test(test_skip_unknown_like_real_receivers),
	    cmocka_unit_test(test_strict_nibble),
	    cmocka_unit_test(test_swapped_seqnr),
	    cmocka_unit_test(test_rejections),
	    cmocka_unit_test(test_unknown_topic_without_lookup),
	    cmocka_unit_test(test_failure_is_sticky),
	    cmocka_unit_test(test_every_truncation),
	    cmocka_unit_test(test_visitor),
	    cmocka_unit_test(test_reason_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
