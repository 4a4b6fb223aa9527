/* SPDX-License-Identifier: MIT */
/*
 * test_snps_wire.c - error codes, byte-order helpers and the submessage
 * type table of snps-wire.md §4.2.
 *
 * OVERVIEW
 * The library defines its error codes without <errno.h>; this test pins
 * them to the Linux values so daemon code may return them as -errno.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <snps/snps.h>

static void test_errno_values(void **state)
{
	assert_int_equal(SNPS_EINVAL, -EINVAL);
	assert_int_equal(SNPS_EMSGSIZE, -EMSGSIZE);
	assert_int_equal(SNPS_ENOSPC, -ENOSPC);
	assert_int_equal(SNPS_ENOENT, -ENOENT);
	assert_int_equal(SNPS_EPROTO, -EPROTO);
	assert_int_equal(SNPS_EBADMSG, -EBADMSG);
	assert_string_equal(snps_strerror(0), "success");
	assert_string_equal(snps_strerror(-12345), "unknown error");
	assert_string_not_equal(snps_strerror(SNPS_EINVAL), snps_strerror(SNPS_EPROTO));
	assert_string_not_equal(snps_strerror(SNPS_EMSGSIZE), "unknown error");
	assert_string_not_equal(snps_strerror(SNPS_ENOSPC), "unknown error");
	assert_string_not_equal(snps_strerror(SNPS_ENOENT), "unknown error");
	assert_string_not_equal(snps_strerror(SNPS_EBADMSG), "unknown error");
}

static void test_byte_order(void **state)
{
	uint8_t b[8];

	snps_store16(b, 0xd26a, false);
	assert_memory_equal(b, "\xd2\x6a", 2);
	snps_store16(b, 0xd26a, true);
	assert_memory_equal(b, "\x6a\xd2", 2);
	snps_store32(b, 0x89abcdef, false);
	assert_memory_equal(b, "\x89\xab\xcd\xef", 4);
	assert_int_equal(snps_load32(b, false), 0x89abcdef);
	assert_int_equal(snps_load32(b, true), 0xefcdab89);
	snps_store(b, 8, 0x0102030405060708, true);
	assert_memory_equal(b, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
	assert_true(snps_load(b, 8, true) == 0x0102030405060708);
	assert_int_equal(snps_load16((const uint8_t *)"\x00\x15", false), 21);
}

static void test_submsg_table(void **state)
{
	/* §4.2: lengths a receiver steps over, 0 for variable or undefined. */
	static const struct {
		uint8_t hdr;
		unsigned len;
		bool desync;
		const char *name;
	} table[] = {
	    {0x10, 1, false, "DOMAIN"},
	    {0xa1, 1, false, "TOPIC"},
	    {0x42, 0, false, "DATA"},
	    {0x33, 1, false, "SEQNR"},
	    {0x54, 3, false, "TS"},
	    {0x05, 1, false, "ACKSEQ"},
	    {0x26, 1, false, "NACKSEQ"},
	    {0x07, 1, false, "STATUS"},
	    {0x68, 0, false, "ADDRESS"},
	    {0x09, 1, false, "unassigned 9"},
	    {0x0e, 1, false, "unassigned E"},
	    {0x0f, 1, false, "ext ACK"},
	    {0x1f, 1, false, "ext NACK"},
	    {0x2f, 0, true, "ext SEP"},
	    {0x3f, 9, false, "ext TSDDS"},
	    {0x4f, 0, true, "ext ADDR16"},
	    {0x5f, 0, true, "ext CRC"},
	    {0x6f, 0, true, "ext TSUSEC"},
	    {0x7f, 0, true, "ext TSMSEC"},
	    {0x8f, 2, false, "ext SEQNR_SMALL"},
	    {0x9f, 3, false, "ext SEQNR_BIG"},
	    {0xaf, 5, false, "ext SEQNR_HUGE"},
	    {0xbf, 3, false, "ext TOPIC"},
	    {0xcf, 0, true, "ext FRAG"},
	    {0xdf, 0, true, "ext FRAGNACK"},
	    {0xef, 0, false, "ext SECURE"},
	    {0xff, 0, true, "ext EXTENDED"},
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		assert_int_equal(snps_submsg_fixed_len(table[i].hdr), table[i].len);
		assert_int_equal(snps_submsg_is_desync(table[i].hdr), table[i].desync);
		assert_string_equal(snps_submsg_name(table[i].hdr), table[i].name);
	}
	/* Header bytes: value high, type low; values masked as real encoders do. */
	assert_int_equal(snps_submsg_basic(SNPS_BT_DATA, 37), 0x52);
	assert_int_equal(snps_submsg_basic(SNPS_BT_TOPIC, 0x1a), 0xa1);
	assert_int_equal(snps_submsg_ext(SNPS_XT_SECURE), 0xef);
	assert_true(snps_submsg_is_ext(0xbf));
	assert_false(snps_submsg_is_ext(0xb1));
	assert_int_equal(snps_submsg_type(0x68), SNPS_BT_ADDRESS);
	assert_int_equal(snps_submsg_value(0x68), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_errno_values),
	    cmocka_unit_test(test_byte_order),
	    cmocka_unit_test(test_submsg_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
