/* SPDX-License-Identifier: MIT */
/*
 * address.c - ADDRESS values and the §5 multicast compression.
 *
 * OVERVIEW
 * Built from the binary address rather than its text, as snps-wire.md §5
 * allows: the sDDS compressor parses "ffFS::..." strings, which yields the
 * same six bytes for every group it accepts. Security builds advertise the
 * all-zero compressed group (ff00::); it expands like any other.
 */
#include <string.h>

#include "snps/address.h"

int snps_addr_compress(const uint8_t ip6[16], uint8_t ret_bytes[SNPS_ADDR_COMPRESSED_LEN])
{
	if (ip6[0] != 0xff)
		return SNPS_EINVAL;
	for (unsigned i = 2; i <= 10; i++)
		if (ip6[i] != 0)
			return SNPS_EINVAL;
	ret_bytes[0] = ip6[1];
	memcpy(ret_bytes + 1, ip6 + 11, 5);
	return 0;
}

void snps_addr_expand(const uint8_t bytes[SNPS_ADDR_COMPRESSED_LEN], uint8_t ret_ip6[16])
{
	memset(ret_ip6, 0, 16);
	ret_ip6[0] = 0xff;
	ret_ip6[1] = bytes[0];
	memcpy(ret_ip6 + 11, bytes + 1, 5);
}

int snps_addr_multicast(const uint8_t ip6[16], struct snps_addr *ret)
{
	uint8_t b[SNPS_ADDR_COMPRESSED_LEN];
	int rc = snps_addr_compress(ip6, b);

	if (rc < 0)
		return rc;
	ret->cast = SNPS_CAST_MULTICAST;
	ret->family = SNPS_FAMILY_IPV6;
	ret->len = SNPS_ADDR_COMPRESSED_LEN;
	memcpy(ret->bytes, b, sizeof(b));
	return 0;
}

void snps_addr_link_group(uint64_t group, struct snps_addr *ret)
{
	ret->cast = SNPS_CAST_MULTICAST;
	ret->family = SNPS_FAMILY_IPV6;
	ret->len = SNPS_ADDR_COMPRESSED_LEN;
	ret->bytes[0] = 0x02; /* flags 0, scope 2: link-local */
	for (unsigned i = 0; i < 5; i++)
		ret->bytes[5 - i] = (uint8_t)(group >> (8 * i));
}

void snps_addr_unicast(struct snps_addr *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->cast = SNPS_CAST_UNICAST;
	ret->family = SNPS_FAMILY_IPV6;
}

bool snps_addr_valid(const struct snps_addr *a)
{
	if (a->cast > SNPS_CAST_BROADCAST || a->family > SNPS_FAMILY_IPV6)
		return false;
	if (a->cast == SNPS_CAST_UNICAST)
		return a->len == 0;
	return a->len == SNPS_ADDR_COMPRESSED_LEN;
}

int snps_addr_group(const struct snps_addr *a, uint8_t ret_ip6[16])
{
	if (!snps_addr_valid(a) || a->cast == SNPS_CAST_UNICAST)
		return SNPS_EINVAL;
	snps_addr_expand(a->bytes, ret_ip6);
	return 0;
}

bool snps_addr_equal(const struct snps_addr *a, const struct snps_addr *b)
{
	if (a->cast != b->cast || a->family != b->family || a->len != b->len)
		return false;
	/* len comes from the caller; never compare past the array. */
	size_t n = a->len < sizeof(a->bytes) ? a->len : sizeof(a->bytes);
	return memcmp(a->bytes, b->bytes, n) == 0;
}
