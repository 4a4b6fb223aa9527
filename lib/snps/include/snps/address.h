/* SPDX-License-Identifier: MIT */
/*
 * address.h - the ADDRESS submessage (shared/docs/snps-wire.md §4.6) and the
 * 6-byte compressed multicast group (§5).
 *
 * OVERVIEW
 * struct snps_addr is the value of one ADDRESS submessage, as plain data the
 * caller owns. Two forms exist on the wire and only these two are accepted
 * (real receivers desynchronise on anything else):
 *   unicast:   "08 10"  n = 0, meaning "use this frame's source address and
 *              port" (the receiver never skips address bytes here);
 *   multicast: "68 11" + 6 bytes of compressed ffFS::GGGG:GGGG:GG group.
 * Broadcast (cast 2) is carried like multicast: the same 6 bytes.
 * IPv4 (family 0) is accepted on decode because the spec byte allows it,
 * but real receivers expand the 6 bytes as IPv6 whatever the family says.
 */
#ifndef SDDS_SNPS_ADDRESS_H
#define SDDS_SNPS_ADDRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "snps/wire.h"

enum snps_cast {
	SNPS_CAST_UNICAST = 0,
	SNPS_CAST_MULTICAST = 1,
	SNPS_CAST_BROADCAST = 2,
};

enum snps_family {
	SNPS_FAMILY_IPV4 = 0,
	SNPS_FAMILY_IPV6 = 1,
};

#define SNPS_ADDR_COMPRESSED_LEN 6

struct snps_addr {
	uint8_t cast;	/* enum snps_cast */
	uint8_t family; /* enum snps_family */
	uint8_t len;	/* address bytes on the wire: 0 (unicast) or 6 */
	uint8_t bytes[SNPS_ADDR_COMPRESSED_LEN];
};

/*
 * Compress the 16-byte IPv6 multicast address ip6 (network order) into the
 * 6 wire bytes of §5. Only ffFS:0:0:0:0:00GG:GGGG:GGGG compresses (bytes
 * 2..10 zero). Returns 0, or SNPS_EINVAL when ip6 is not of that form.
 */
int snps_addr_compress(const uint8_t ip6[16], uint8_t ret_bytes[SNPS_ADDR_COMPRESSED_LEN]);

/* Expand 6 compressed bytes into the 16-byte address ff<b0>::<b1..b5>. */
void snps_addr_expand(const uint8_t bytes[SNPS_ADDR_COMPRESSED_LEN], uint8_t ret_ip6[16]);

/*
 * Fill *ret with the multicast ADDRESS of group ip6 ("68 11" + 6 bytes).
 * Returns 0 or SNPS_EINVAL (not compressible; *ret untouched).
 */
int snps_addr_multicast(const uint8_t ip6[16], struct snps_addr *ret);

/* Fill *ret with the multicast ADDRESS of ff02::<group> (group < 2^40). */
void snps_addr_link_group(uint64_t group, struct snps_addr *ret);

/* Fill *ret with the unicast "use my source address" ADDRESS ("08 10"). */
void snps_addr_unicast(struct snps_addr *ret);

/*
 * Check that *a is one of the forms real receivers parse (see OVERVIEW):
 * cast 0..2, family 0..1, len 0 for unicast and 6 otherwise.
 */
bool snps_addr_valid(const struct snps_addr *a);

/*
 * The 16-byte IPv6 group a non-unicast ADDRESS names. Returns 0, or
 * SNPS_EINVAL for a unicast or invalid ADDRESS (the locator is then the
 * frame's source, which only the transport knows).
 */
int snps_addr_group(const struct snps_addr *a, uint8_t ret_ip6[16]);

/* Equality of two ADDRESS values as they would appear on the wire. */
bool snps_addr_equal(const struct snps_addr *a, const struct snps_addr *b);

#endif /* SDDS_SNPS_ADDRESS_H */
