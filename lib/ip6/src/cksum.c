/* SPDX-License-Identifier: MIT */
/*
 * cksum.c - the Internet checksum (RFC 1071) and the IPv6 upper-layer
 * checksum over the pseudo-header (RFC 8200 §8.1), for ICMPv6 (RFC 4443
 * §2.3) and UDP (RFC 768, RFC 8200 §8.1).
 *
 * OVERVIEW
 * The sum is kept in 32 bits as big-endian 16-bit words and folded at the
 * end; a message up to 64 KiB cannot overflow it. An odd last byte is the
 * high half of a word padded with zero. Pure functions: no state, no
 * errors.
 */
#include "stack_impl.h"

uint32_t ip6s_csum_add(uint32_t sum, const uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t ip6s_pseudo_sum(const struct in6_addr *src, const struct in6_addr *dst, uint8_t proto, uint32_t len)
{
	uint8_t tail[8];
	uint32_t sum = 0;

	sum = ip6s_csum_add(sum, src->s6_addr, 16);
	sum = ip6s_csum_add(sum, dst->s6_addr, 16);
	ip6s_wr32(tail, len);
	tail[4] = tail[5] = tail[6] = 0;
	tail[7] = proto;
	sum = ip6s_csum_add(sum, tail, sizeof(tail));
	/* Not inverted: the device adds the data and inverts (netdev.h, gso_size). */
	return (uint16_t)~csum_fold(sum);
}

uint16_t ip6s_l4_cksum(const struct in6_addr *src, const struct in6_addr *dst, uint8_t proto,
		       const uint8_t *l4, uint32_t len)
{
	uint8_t tail[8];
	uint32_t sum = 0;

	/* The pseudo-header: source, destination, upper-layer length (32 bits), three zeros, next header. */
	sum = ip6s_csum_add(sum, src->s6_addr, 16);
	sum = ip6s_csum_add(sum, dst->s6_addr, 16);
	ip6s_wr32(tail, len);
	tail[4] = tail[5] = tail[6] = 0;
	tail[7] = proto;
	sum = ip6s_csum_add(sum, tail, sizeof(tail));
	sum = ip6s_csum_add(sum, l4, len);
	return csum_fold(sum);
}
