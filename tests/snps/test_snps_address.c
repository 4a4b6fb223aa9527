/* SPDX-License-Identifier: MIT */
/*
 * test_snps_address.c - the compressed multicast groups of snps-wire.md §5
 * and the two ADDRESS forms of §4.6.
 *
 * OVERVIEW
 * Addresses are parsed from text with inet_pton so the expected bytes are
 * independent of the code under test.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <snps/snps.h>
#include "testutil.h"

static void ip6(const char *text, uint8_t out[16])
{
	assert_int_equal(inet_pton(AF_INET6, text, out), 1);
}

static void test_groups_table(void **state)
{
	static const struct {
		const char *text;
		const char *wire;
	} table[] = {
	    {"ff02::10", "02 00 00 00 00 10"},
	    {"ff02::20", "02 00 00 00 00 20"},
	    {"ff02::30", "02 00 00 00 00 30"},
	    {"ff02::50", "02 00 00 00 00 50"},
	    {"ff02::60", "02 00 00 00 00 60"},
	    {"ff02::70", "02 00 00 00 00 70"},
	    /* Flags and scope nibbles, and all 40 group bits. */
	    {"ff15::12:3456:789a", "15 12 34 56 78 9a"},
	    /* Security builds never compute it: ff00:: (§5). */
	    {"ff00::", "00 00 00 00 00 00"},
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		uint8_t a[16], b[6], want[6], back[16];
		struct snps_addr sa;

		ip6(table[i].text, a);
		assert_int_equal(unhex(table[i].wire, want, sizeof(want)), 6);
		assert_int_equal(snps_addr_compress(a, b), 0);
		assert_memory_equal(b, want, 6);
		snps_addr_expand(b, back);
		assert_memory_equal(back, a, 16);
		assert_int_equal(snps_addr_multicast(a, &sa), 0);
		assert_int_equal(sa.cast, SNPS_CAST_MULTICAST);
		assert_int_equal(sa.family, SNPS_FAMILY_IPV6);
		assert_int_equal(sa.len, 6);
		assert_memory_equal(sa.bytes, want, 6);
		assert_true(snps_addr_valid(&sa));
		assert_int_equal(snps_addr_group(&sa, back), 0);
		assert_memory_equal(back, a, 16);
	}
}

static void test_link_group(void **state)
{
	static const uint8_t groups[] = {SNPS_GROUP_DATA,  SNPS_GROUP_PARTICIPANT, SNPS_GROUP_ENDPOINT,
					 SNPS_GROUP_TOPIC, SNPS_GROUP_SECURITY,	   SNPS_GROUP_LOCATION};
	static const char *const text[] = {"ff02::10", "ff02::20", "ff02::30",
					   "ff02::50", "ff02::60", "ff02::70"};

	for (size_t i = 0; i < 6; i++) {
		struct snps_addr a, b;
		uint8_t addr[16];

		ip6(text[i], addr);
		snps_addr_link_group(groups[i], &a);
		assert_int_equal(snps_addr_multicast(addr, &b), 0);
		assert_true(snps_addr_equal(&a, &b));
	}
}

static void test_not_compressible(void **state)
{
	static const char *const bad[] = {"fe80::c0ef:62ff:fed4:d36b", "ff02::1:0:0:0:1", "ff02:1::10",
					  "ff02::100:0:0:10", "::1"};
	uint8_t out[6] = {9, 9, 9, 9, 9, 9};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t a[16];
		struct snps_addr sa;

		ip6(bad[i], a);
		memset(&sa, 0x77, sizeof(sa));
		assert_int_equal(snps_addr_compress(a, out), SNPS_EINVAL);
		assert_int_equal(snps_addr_multicast(a, &sa), SNPS_EINVAL);
		/* Nothing written on failure. */
		assert_int_equal(sa.cast, 0x77);
	}
	assert_memory_equal(out, "\x09\x09\x09\x09\x09\x09", 6);
}

static void test_forms(void **state)
{
	struct snps_addr u, m;
	uint8_t g[16];

	snps_addr_unicast(&u);
	assert_int_equal(u.cast, SNPS_CAST_UNICAST);
	assert_int_equal(u.family, SNPS_FAMILY_IPV6);
	assert_int_equal(u.len, 0);
	assert_true(snps_addr_valid(&u));
	assert_int_equal(snps_addr_group(&u, g), SNPS_EINVAL);

	snps_addr_link_group(0x10, &m);
	assert_false(snps_addr_equal(&u, &m));
	m.cast = SNPS_CAST_BROADCAST;
	assert_true(snps_addr_valid(&m));
	m.cast = 3;
	assert_false(snps_addr_valid(&m));
	assert_int_equal(snps_addr_group(&m, g), SNPS_EINVAL);
	m.cast = SNPS_CAST_MULTICAST;
	m.family = 2;
	assert_false(snps_addr_valid(&m));
	m.family = SNPS_FAMILY_IPV4;
	assert_true(snps_addr_valid(&m));
	m.len = 0;
	assert_false(snps_addr_valid(&m));
	u.len = 6;
	assert_false(snps_addr_valid(&u));
	/* A caller's bogus length never makes equality read past the bytes. */
	u.len = 200;
	m.len = 200;
	m.cast = u.cast;
	m.family = u.family;
	memcpy(m.bytes, u.bytes, sizeof(m.bytes));
	assert_true(snps_addr_equal(&u, &m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_groups_table),
	    cmocka_unit_test(test_link_group),
	    cmocka_unit_test(test_not_compressible),
	    cmocka_unit_test(test_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
