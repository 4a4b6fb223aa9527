/* SPDX-License-Identifier: MIT */
/*
 * test_snps_marshal.c - sample layouts (snps-wire.md §6): the probe_wide
 * sample field by field, the byte-swapped form of a §2 misconfigured node,
 * validation, and the range checks of the field accessors.
 *
 * OVERVIEW
 * The wide layout is the one of data/topics/wide.xml: every primitive type
 * in one 37-byte sample, as captured (E6).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sdds/sdds.h"
#include <snps/snps.h>
#include "testutil.h"

enum { W_O, W_C, W_B, W_S, W_US, W_STR, W_L, W_UL, W_LL, W_ULL };

static const struct snps_field wide_fields[] = {
    {SNPS_FIELD_OCTET, 1},    {SNPS_FIELD_CHAR, 1},	 {SNPS_FIELD_BOOLEAN, 1}, {SNPS_FIELD_SHORT, 2},
    {SNPS_FIELD_USHORT, 2},   {SNPS_FIELD_STRING, 6},	 {SNPS_FIELD_LONG, 4},	  {SNPS_FIELD_ULONG, 4},
    {SNPS_FIELD_LONGLONG, 8}, {SNPS_FIELD_ULONGLONG, 8},
};
static const struct snps_layout wide = {wide_fields, 10};

#define WIDE_HEX                                                                                             \
	"a1 5a 01 ff fe 12 34 61 62 63 00 00 00 ff ff ff fd 89 ab cd ef 01 02 03 04 05 06 07 08 f1 f2 f3 "   \
	"f4 f5 f6 "                                                                                          \
	"f7 f8"
#define WIDE_SWAPPED_HEX                                                                                     \
	"a1 5a 01 fe ff 34 12 61 62 63 00 00 00 fd ff ff ff ef cd ab 89 08 07 06 05 04 03 02 01 f8 f7 f6 "   \
	"f5 f4 f3 "                                                                                          \
	"f2 f1"

static void test_types_match_control_proto(void **state)
{
	/* The library cannot include the daemon's headers; the values must agree. */
	assert_int_equal(SNPS_FIELD_OCTET, SDDS_FIELD_OCTET);
	assert_int_equal(SNPS_FIELD_CHAR, SDDS_FIELD_CHAR);
	assert_int_equal(SNPS_FIELD_BOOLEAN, SDDS_FIELD_BOOLEAN);
	assert_int_equal(SNPS_FIELD_SHORT, SDDS_FIELD_SHORT);
	assert_int_equal(SNPS_FIELD_USHORT, SDDS_FIELD_USHORT);
	assert_int_equal(SNPS_FIELD_LONG, SDDS_FIELD_LONG);
	assert_int_equal(SNPS_FIELD_ULONG, SDDS_FIELD_ULONG);
	assert_int_equal(SNPS_FIELD_LONGLONG, SDDS_FIELD_LONGLONG);
	assert_int_equal(SNPS_FIELD_ULONGLONG, SDDS_FIELD_ULONGLONG);
	assert_int_equal(SNPS_FIELD_STRING, SDDS_FIELD_STRING);
	assert_int_equal(SNPS_FIELD_ENUM, SDDS_FIELD_ENUM);
}

static void test_layout_check(void **state)
{
	uint32_t size, off;
	struct snps_field f[2];
	struct snps_layout l = {f, 1};

	assert_int_equal(snps_layout_check(&wide, &size), 0);
	assert_int_equal(size, 37);
	assert_int_equal(snps_layout_offset(&wide, W_STR, &off), 0);
	assert_int_equal(off, 7);
	assert_int_equal(snps_layout_offset(&wide, W_ULL, &off), 0);
	assert_int_equal(off, 29);
	assert_int_equal(snps_layout_offset(&wide, 10, &off), SNPS_ENOENT);

	/* Wrong sizes and types. */
	static const struct {
		uint8_t type;
		uint32_t size;
		bool ok;
	} cases[] = {
	    {SNPS_FIELD_OCTET, 1, true},
	    {SNPS_FIELD_OCTET, 2, false},
	    {SNPS_FIELD_SHORT, 4, false},
	    {SNPS_FIELD_LONG, 2, false},
	    {SNPS_FIELD_ULONGLONG, 4, false},
	    {SNPS_FIELD_STRING, 0, false},
	    {SNPS_FIELD_STRING, 1, true},
	    {SNPS_FIELD_ENUM, 1, true},
	    {SNPS_FIELD_ENUM, 3, false},
	    {SNPS_FIELD_ENUM, 8, true},
	    {SNPS_FIELD_ENUM, 16, false},
	    {0, 1, false},
	    {12, 1, false},
	    {SNPS_FIELD_BOOLEAN, 0, false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f[0].type = cases[i].type;
		f[0].size = cases[i].size;
		assert_int_equal(snps_layout_check(&l, &size), cases[i].ok ? 0 : SNPS_EINVAL);
	}
	/* Over SNPS_SAMPLE_MAX in total, without overflowing. */
	f[0] = (struct snps_field){SNPS_FIELD_STRING, 40000};
	f[1] = (struct snps_field){SNPS_FIELD_STRING, 40000};
	l.n_fields = 2;
	assert_int_equal(snps_layout_check(&l, &size), SNPS_EINVAL);
	l.fields = NULL;
	assert_int_equal(snps_layout_check(&l, &size), SNPS_EINVAL);
	/* No field: the empty sample. */
	l.n_fields = 0;
	size = 99;
	assert_int_equal(snps_layout_check(&l, &size), 0);
	assert_int_equal(size, 0);
}

static void test_enum_size_rule(void **state)
{
	/* §6.2: b bits for the largest value; one size up early (200 -> 2). */
	assert_int_equal(snps_enum_size(0), 1);
	assert_int_equal(snps_enum_size(3), 1);
	assert_int_equal(snps_enum_size(127), 1);
	assert_int_equal(snps_enum_size(128), 2);
	assert_int_equal(snps_enum_size(200), 2);
	assert_int_equal(snps_enum_size(32767), 2);
	assert_int_equal(snps_enum_size(32768), 4);
	assert_int_equal(snps_enum_size(65535), 4);
	assert_int_equal(snps_enum_size(0x7fffffff), 4);
	assert_int_equal(snps_enum_size(0x80000000u), 8);
	assert_int_equal(snps_enum_size(UINT64_MAX), 8);
}

static void test_wide_fields(void **state)
{
	uint8_t s[37];
	uint64_t u;
	int64_t i;
	char str[16];

	assert_int_equal(unhex(WIDE_HEX, s, sizeof(s)), 37);
	/* The values probe_wide's subscriber printed. */
	assert_int_equal(snps_sample_get_uint(&wide, s, 37, W_O, &u), 0);
	assert_int_equal(u, 0xa1);
	assert_int_equal(snps_sample_get_uint(&wide, s, 37, W_C, &u), 0);
	assert_int_equal(u, 'Z');
	assert_int_equal(snps_sample_get_uint(&wide, s, 37, W_B, &u), 0);
	assert_int_equal(u, 1);
	assert_int_equal(snps_sample_get_int(&wide, s, 37, W_S, &i), 0);
	assert_int_equal(i, -2);
	assert_int_equal(snps_sample_get_uint(&wide, s, 37, W_S, &u), 0);
	assert_int_equal(u, 0xfffe);
	assert_int_equal(snps_sample_get_uint(&wide, s, 37, W_US, &u), 0);
	assert_int_equal(u, 0x1234);
	assert_int_equal(snps_sample_get_string(&wide, s, 37, W_STR, str, sizeof(str)), 0);
	assert_string_equal(str, "abc");
	assert_int_equal(snps_sample_get_int(&wide, s, 37, W_L, &i), 0);
	assert_int_equal(i, -3);
	assert_int_equal(snps_sample_get_uint(&wide, s, 37, W_UL, &u), 0);
	assert_int_equal(u, 0x89abcdefu);
	/* get_int does not sign-extend unsigned fields. */
	assert_int_equal(snps_sample_get_int(&wide, s, 37, W_UL, &i), 0);
	assert_int_equal(i, 0x89abcdefu);
	assert_int_equal(snps_sample_get_int(&wide, s, 37, W_LL, &i), 0);
	assert_int_equal(i, 0x0102030405060708);
	assert_int_equal(snps_sample_get_uint(&wide, s, 37, W_ULL, &u), 0);
	assert_true(u == 0xf1f2f3f4f5f6f7f8u);
	assert_int_equal(snps_sample_get_int(&wide, s, 37, W_ULL, &i), 0);
	assert_true(i == (int64_t)-0x0e0d0c0b0a090808);
}

static void test_wide_build(void **state)
{
	uint8_t s[37], want[37];

	/* Built field by field, it gives the captured bytes (our encoder writes
	 * the string's ignored last byte as 0, which the capture also shows). */
	memset(s, 0xee, sizeof(s));
	assert_int_equal(snps_sample_set_uint(&wide, s, 37, W_O, 0xa1), 0);
	assert_int_equal(snps_sample_set_int(&wide, s, 37, W_C, 'Z'), 0);
	assert_int_equal(snps_sample_set_uint(&wide, s, 37, W_B, 1), 0);
	assert_int_equal(snps_sample_set_int(&wide, s, 37, W_S, -2), 0);
	assert_int_equal(snps_sample_set_uint(&wide, s, 37, W_US, 0x1234), 0);
	assert_int_equal(snps_sample_set_string(&wide, s, 37, W_STR, "abc"), 0);
	assert_int_equal(snps_sample_set_int(&wide, s, 37, W_L, -3), 0);
	assert_int_equal(snps_sample_set_uint(&wide, s, 37, W_UL, 0x89abcdef), 0);
	assert_int_equal(snps_sample_set_int(&wide, s, 37, W_LL, 0x0102030405060708), 0);
	assert_int_equal(snps_sample_set_uint(&wide, s, 37, W_ULL, 0xf1f2f3f4f5f6f7f8u), 0);
	assert_int_equal(unhex(WIDE_HEX, want, sizeof(want)), 37);
	assert_memory_equal(s, want, 37);
}

static void test_swap(void **state)
{
	uint8_t s[37], sw[37], want[37], back[37];

	assert_int_equal(unhex(WIDE_HEX, s, sizeof(s)), 37);
	assert_int_equal(unhex(WIDE_SWAPPED_HEX, want, sizeof(want)), 37);
	assert_int_equal(snps_sample_swap(&wide, sw, s, 37), 0);
	assert_memory_equal(sw, want, 37);
	/* Its own inverse; in place works. */
	assert_int_equal(snps_sample_swap(&wide, back, sw, 37), 0);
	assert_memory_equal(back, s, 37);
	assert_int_equal(snps_sample_swap(&wide, sw, sw, 37), 0);
	assert_memory_equal(sw, s, 37);
	assert_int_equal(snps_sample_swap(&wide, sw, s, 36), SNPS_EMSGSIZE);

	/* The temperature sample of §6.5 from a misconfigured node. */
	{
		static const struct snps_field tf[] = {{SNPS_FIELD_USHORT, 2}, {SNPS_FIELD_SHORT, 2}};
		const struct snps_layout tl = {tf, 2};
		uint8_t t[4] = {0xd2, 0x6a, 0x00, 0x15}, tw[4];

		assert_int_equal(snps_sample_swap(&tl, tw, t, 4), 0);
		assert_memory_equal(tw, "\x6a\xd2\x15\x00", 4);
	}
	/* Enums of 2+ bytes are integers too. */
	{
		static const struct snps_field ef[] = {{SNPS_FIELD_ENUM, 1}, {SNPS_FIELD_ENUM, 4}};
		const struct snps_layout el = {ef, 2};
		uint8_t e[5] = {1, 2, 3, 4, 5}, ew[5];

		assert_int_equal(snps_sample_swap(&el, ew, e, 5), 0);
		assert_memory_equal(ew, "\x01\x05\x04\x03\x02", 5);
	}
}

static void test_validate(void **state)
{
	uint8_t s[37];

	assert_int_equal(unhex(WIDE_HEX, s, sizeof(s)), 37);
	assert_int_equal(snps_sample_validate(&wide, s, 37, SNPS_VALIDATE_BOOL01 | SNPS_VALIDATE_STRING_ZERO),
			 0);
	assert_int_equal(snps_sample_validate(&wide, s, 36, 0), SNPS_EMSGSIZE);
	assert_int_equal(snps_sample_validate(&wide, s, 38, 0), SNPS_EMSGSIZE);
	s[W_B] = 2;
	assert_int_equal(snps_sample_validate(&wide, s, 37, 0), 0);
	assert_int_equal(snps_sample_validate(&wide, s, 37, SNPS_VALIDATE_BOOL01), SNPS_EBADMSG);
	s[W_B] = 1;
	/* §6.3: sDDS never writes the K+1-th byte; a received one may be anything. */
	s[12] = 'X';
	assert_int_equal(snps_sample_validate(&wide, s, 37, SNPS_VALIDATE_BOOL01), 0);
	assert_int_equal(snps_sample_validate(&wide, s, 37, SNPS_VALIDATE_STRING_ZERO), SNPS_EBADMSG);
	assert_int_equal(snps_sample_normalize(&wide, s, 37), 0);
	assert_int_equal(s[12], 0);
	assert_int_equal(snps_sample_validate(&wide, s, 37, SNPS_VALIDATE_STRING_ZERO), 0);
}

static void test_string_slot(void **state)
{
	uint8_t s[37];
	char out[8];

	assert_int_equal(unhex(WIDE_HEX, s, sizeof(s)), 37);
	/* K = 5 text bytes fill the slot; the 6th byte is ignored on decode. */
	memcpy(s + 7, "abcdeX", 6);
	assert_int_equal(snps_sample_get_string(&wide, s, 37, W_STR, out, sizeof(out)), 0);
	assert_string_equal(out, "abcde");
	assert_int_equal(snps_sample_get_string(&wide, s, 37, W_STR, out, 5), SNPS_EMSGSIZE);
	assert_int_equal(snps_sample_get_string(&wide, s, 37, W_STR, out, 6), 0);
	assert_int_equal(snps_sample_set_string(&wide, s, 37, W_STR, "abcdef"), SNPS_EINVAL);
	assert_int_equal(snps_sample_set_string(&wide, s, 37, W_STR, "abcde"), 0);
	assert_memory_equal(s + 7, "abcde\0", 6);
	assert_int_equal(snps_sample_set_string(&wide, s, 37, W_STR, ""), 0);
	assert_memory_equal(s + 7, "\0\0\0\0\0\0", 6);
	assert_int_equal(snps_sample_get_string(&wide, s, 37, W_STR, out, 1), 0);
	assert_string_equal(out, "");
}

static void test_accessor_ranges(void **state)
{
	uint8_t s[37];
	uint64_t u;
	int64_t i;
	char str[8];

	memset(s, 0, sizeof(s));
	assert_int_equal(snps_sample_set_int(&wide, s, 37, W_S, -32768), 0);
	assert_int_equal(snps_sample_get_int(&wide, s, 37, W_S, &i), 0);
	assert_int_equal(i, -32768);
	assert_int_equal(snps_sample_set_int(&wide, s, 37, W_S, -32769), SNPS_EINVAL);
	assert_int_equal(snps_sample_set_int(&wide, s, 37, W_S, 32768), SNPS_EINVAL);
	assert_int_equal(snps_sample_set_uint(&wide, s, 37, W_S, 32767), 0);
	assert_int_equal(snps_sample_set_uint(&wide, s, 37, W_S, 32768), SNPS_EINVAL);
	assert_int_equal(snps_sample_set_uint(&wide, s, 37, W_US, 65535), 0);
	assert_int_equal(snps_sample_set_uint(&wide, s, 37, W_US, 65536), SNPS_EINVAL);
	assert_int_equal(snps_sample_set_int(&wide, s, 37, W_US, -1), SNPS_EINVAL);
	assert_int_equal(snps_sample_set_uint(&wide, s, 37, W_O, 256), SNPS_EINVAL);
	assert_int_equal(snps_sample_set_int(&wide, s, 37, W_LL, INT64_MIN), 0);
	assert_int_equal(snps_sample_get_int(&wide, s, 37, W_LL, &i), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(snps_sample_set_int(&wide, s, 37, W_LL, INT64_MAX), 0);
	assert_int_equal(snps_sample_get_int(&wide, s, 37, W_LL, &i), 0);
	assert_true(i == INT64_MAX);
	assert_int_equal(snps_sample_set_uint(&wide, s, 37, W_ULL, UINT64_MAX), 0);
	assert_int_equal(snps_sample_get_uint(&wide, s, 37, W_ULL, &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(snps_sample_set_int(&wide, s, 37, W_L, INT32_MIN), 0);
	assert_int_equal(snps_sample_get_int(&wide, s, 37, W_L, &i), 0);
	assert_int_equal(i, INT32_MIN);
	/* Wrong kinds, indexes and lengths. */
	assert_int_equal(snps_sample_get_uint(&wide, s, 37, W_STR, &u), SNPS_EINVAL);
	assert_int_equal(snps_sample_set_int(&wide, s, 37, W_STR, 1), SNPS_EINVAL);
	assert_int_equal(snps_sample_get_string(&wide, s, 37, W_US, str, sizeof(str)), SNPS_EINVAL);
	assert_int_equal(snps_sample_get_uint(&wide, s, 37, 10, &u), SNPS_ENOENT);
	assert_int_equal(snps_sample_get_uint(&wide, s, 30, W_O, &u), SNPS_EMSGSIZE);
	/* Out-parameters untouched on failure. */
	u = 77;
	assert_int_equal(snps_sample_get_uint(&wide, s, 37, 99, &u), SNPS_ENOENT);
	assert_int_equal(u, 77);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_types_match_control_proto),
	    cmocka_unit_test(test_layout_check),
	    cmocka_unit_test(test_enum_size_rule),
	    cmocka_unit_test(test_wide_fields),
	    cmocka_unit_test(test_wide_build),
	    cmocka_unit_test(test_swap),
	    cmocka_unit_test(test_validate),
	    cmocka_unit_test(test_string_slot),
	    cmocka_unit_test(test_accessor_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
