/* SPDX-License-Identifier: MIT */
/*
 * test_snps_builtin.c - the builtin topic samples of snps-wire.md §10.1:
 * sizes, layouts, and the codecs against the bytes of §7 and §14.
 *
 * OVERVIEW
 * Each codec is checked both ways on a known sample; the layouts are
 * checked against the sizes so that snps_sample_swap() converts builtins of
 * a §2 misconfigured node field by field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <snps/snps.h>
#include "testutil.h"

static void test_sizes_and_layouts(void **state)
{
	static const uint32_t sizes[] = {0, 2, 28, 6, 6, 234, 18, 68};

	for (uint16_t id = 0; id < 10; id++) {
		uint32_t size = 12345, lsize;
		const struct snps_layout *l = snps_builtin_layout(id);

		if (id >= 1 && id <= 7) {
			assert_true(snps_builtin_is(id));
			assert_int_equal(snps_builtin_size(id, &size), 0);
			assert_int_equal(size, sizes[id]);
			assert_non_null(l);
			assert_int_equal(snps_layout_check(l, &lsize), 0);
			assert_int_equal(lsize, size);
			/* The lookup form ignores the domain, as real receivers (§4.4). */
			size = 0;
			assert_int_equal(snps_builtin_lookup(NULL, 0, id, &size), 0);
			assert_int_equal(size, sizes[id]);
			assert_int_equal(snps_builtin_lookup(NULL, 9, id, &size), 0);
		} else {
			assert_false(snps_builtin_is(id));
			assert_int_equal(snps_builtin_size(id, &size), SNPS_ENOENT);
			assert_int_equal(size, 12345);
			assert_null(l);
			assert_true(snps_builtin_lookup(NULL, 1, id, &size) < 0);
		}
	}
}

static void test_participant(void **state)
{
	struct snps_participant p = {0xd36b}, q;
	uint8_t b[2];

	assert_int_equal(snps_participant_encode(&p, b, 2), 0);
	assert_memory_equal(b, "\xd3\x6b", 2);
	assert_int_equal(snps_participant_encode(&p, b, 1), SNPS_EMSGSIZE);
	assert_int_equal(snps_participant_decode(b, 2, &q), 0);
	assert_int_equal(q.key, 0xd36b);
	assert_int_equal(snps_participant_decode(b, 3, &q), SNPS_EMSGSIZE);
}

static void test_endpoint(void **state)
{
	struct snps_endpoint e = {0, 0xd26a, 10}, f;
	uint8_t b[6], sw[6];

	assert_int_equal(snps_endpoint_encode(&e, b, sizeof(b)), 0);
	assert_memory_equal(b, "\x00\x00\xd2\x6a\x00\x0a", 6);
	assert_int_equal(snps_endpoint_decode(b, 6, &f), 0);
	assert_int_equal(f.key, 0);
	assert_int_equal(f.participant, 0xd26a);
	assert_int_equal(f.topic_id, 10);
	assert_int_equal(snps_endpoint_decode(b, 5, &f), SNPS_EMSGSIZE);
	assert_int_equal(snps_endpoint_encode(&e, b, 5), SNPS_EMSGSIZE);
	/* A misconfigured node's publication, through the layout. */
	assert_int_equal(snps_sample_swap(snps_builtin_layout(SNPS_BUILTIN_PUBLICATION), sw, b, 6), 0);
	assert_memory_equal(sw, "\x00\x00\x6a\xd2\x0a\x00", 6);
}

static void test_location(void **state)
{
	uint8_t wire[18], b[18], sw[18];
	struct snps_location l, neg = {1, 2, 3, 4, 5, 6, 7, -1, -32768};

	/* E12's 18 bytes. */
	assert_int_equal(unhex("d2 6a d2 6a 01 f4 01 f4 00 00 00 05 00 05 00 00 03 e8", wire, sizeof(wire)),
			 18);
	assert_int_equal(snps_location_decode(wire, 18, &l), 0);
	assert_int_equal(l.key, 0xd26a);
	assert_int_equal(l.device, 0xd26a);
	assert_int_equal(l.x, 500);
	assert_int_equal(l.y, 500);
	assert_int_equal(l.z, 0);
	assert_int_equal(l.width, 5);
	assert_int_equal(l.length, 5);
	assert_int_equal(l.expiration, 0);
	assert_int_equal(l.age, 1000);
	assert_int_equal(snps_location_encode(&l, b, sizeof(b)), 0);
	assert_memory_equal(b, wire, 18);
	/* Signed fields survive the round trip. */
	assert_int_equal(snps_location_encode(&neg, b, sizeof(b)), 0);
	assert_memory_equal(b + 14, "\xff\xff\x80\x00", 4);
	assert_int_equal(snps_location_decode(b, 18, &l), 0);
	assert_int_equal(l.expiration, -1);
	assert_int_equal(l.age, -32768);
	assert_int_equal(snps_sample_swap(snps_builtin_layout(SNPS_BUILTIN_LOCATION), sw, wire, 18), 0);
	assert_memory_equal(sw + 16, "\xe8\x03", 2);
	assert_int_equal(snps_location_decode(wire, 17, &l), SNPS_EMSGSIZE);
}

static void test_dcpstopic(void **state)
{
	struct snps_dcpstopic t = {.key = 7}, u;
	uint8_t b[28];

	strcpy(t.name, "temperature");
	assert_int_equal(snps_dcpstopic_encode(&t, b, sizeof(b)), 0);
	assert_memory_equal(b, "\x00\x07temperature\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 28);
	assert_int_equal(snps_dcpstopic_decode(b, 28, &u), 0);
	assert_int_equal(u.key, 7);
	assert_string_equal(u.name, "temperature");
	/* The slot is 26 bytes with no room for a NUL: a full name fits. */
	memset(t.name, 'n', 26);
	t.name[26] = '\0';
	assert_int_equal(snps_dcpstopic_encode(&t, b, sizeof(b)), 0);
	assert_int_equal(snps_dcpstopic_decode(b, 28, &u), 0);
	assert_int_equal(strlen(u.name), 26);
	/* 27 characters (no NUL inside the array) do not. */
	memset(t.name, 'n', sizeof(t.name));
	assert_int_equal(snps_dcpstopic_encode(&t, b, sizeof(b)), SNPS_EINVAL);
	assert_int_equal(snps_dcpstopic_decode(b, 27, &u), SNPS_EMSGSIZE);
}

static void test_management(void **state)
{
	struct snps_management m, n;
	uint8_t b[68];

	memset(&m, 0, sizeof(m));
	m.key = 0xbeef;
	m.participant = 0;
	strcpy((char *)m.mkey, "set_subscription_state");
	m.mvalue[0] = 10;   /* topic */
	m.mvalue[1] = 0xd3; /* subscriber id, BE16 */
	m.mvalue[2] = 0x6b;
	m.mvalue[3] = 2; /* paused */
	assert_int_equal(snps_management_encode(&m, b, sizeof(b)), 0);
	assert_memory_equal(b, "\xbe\xef\x00\x00set_subscription_state", 26);
	assert_memory_equal(b + 36, "\x0a\xd3\x6b\x02", 4);
	assert_int_equal(snps_management_decode(b, 68, &n), 0);
	assert_memory_equal(&n, &m, sizeof(m));
	assert_int_equal(snps_management_encode(&m, b, 67), SNPS_EMSGSIZE);
	assert_int_equal(snps_management_decode(b, 69, &n), SNPS_EMSGSIZE);
}

static void test_publication_key(void **state)
{
	assert_int_equal(snps_publication_key(0xd26a, 0, false), 0);
	assert_int_equal(snps_publication_key(0xd26a, 3, false), 3);
	/* With reliability: (node << 4 | index), truncated to 16 bits. */
	assert_int_equal(snps_publication_key(0xd26a, 3, true), 0x26a3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sizes_and_layouts), cmocka_unit_test(test_participant),
	    cmocka_unit_test(test_endpoint),	      cmocka_unit_test(test_location),
	    cmocka_unit_test(test_dcpstopic),	      cmocka_unit_test(test_management),
	    cmocka_unit_test(test_publication_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
