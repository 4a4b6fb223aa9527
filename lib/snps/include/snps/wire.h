/* SPDX-License-Identifier: MIT */
/*
 * wire.h - what every part of the SNPS codec shares: error codes, protocol
 * numbers (shared/docs/snps-wire.md §1, §3, §10.1) and the byte-order
 * helpers of §2.
 *
 * OVERVIEW
 * The SNPS library is freestanding: it includes only <stdint.h>,
 * <stddef.h>, <stdbool.h> and <string.h>, never allocates, never logs and
 * keeps no global state, so the daemon, test peers and the Cortex-M4
 * firmware build the same sources. Every function is reentrant; objects
 * (decoder, frame builder) belong to the caller and are used by one thread
 * at a time.
 *
 * Errors are 0 or one of the negative SNPS_E* codes below. Their values are
 * the Linux errno numbers, so Linux code may return them as -errno; the
 * header does not include <errno.h> because a freestanding toolchain need
 * not have it (and newlib numbers some of them differently).
 *
 * Byte order: a correctly configured node (endian="little" on a
 * little-endian CPU) puts every multi-byte integer on the wire big-endian.
 * A node built with endian="big" for a little-endian CPU puts them
 * little-endian: the "swapped" peers of §2. Every function that reads or
 * writes a multi-byte integer on the wire takes that choice as a flag;
 * "canonical" always means network order.
 */
#ifndef SDDS_SNPS_WIRE_H
#define SDDS_SNPS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SNPS_EINVAL (-22)   /* bad argument or a value the wire cannot carry */
#define SNPS_EMSGSIZE (-90) /* does not fit (frame limit, buffer, sample size) */
#define SNPS_ENOSPC (-28)   /* a counter ran out (255 submessages per frame) */
#define SNPS_ENOENT (-2)    /* no such topic, field or builtin */
#define SNPS_EPROTO (-71)   /* the datagram breaks the protocol (see snps_reason) */
#define SNPS_EBADMSG (-74)  /* a sample's content breaks its layout */

/* §3: the only frame version there is. */
#define SNPS_VERSION 0x01
/* §1, §6.6: receivers read this many bytes; senders stay one below it. */
#define SNPS_MAX_FRAME_DEFAULT 128
/* §6.6: security builds use this; the 239-byte handshake frame needs it. */
#define SNPS_MAX_FRAME_SECURITY 250

/* §1: unicast base port, and the multicast port (base + 20). */
#define SNPS_PORT 23234
#define SNPS_MCAST_PORT_OFFSET 20
#define SNPS_MCAST_PORT (SNPS_PORT + SNPS_MCAST_PORT_OFFSET)

/* §1: the link-local groups are ff02::XX; these are the XX. */
#define SNPS_GROUP_DATA 0x10	    /* general group: user data */
#define SNPS_GROUP_PARTICIPANT 0x20 /* DCPSParticipant */
#define SNPS_GROUP_ENDPOINT 0x30    /* DCPSPublication/Subscription; advertised */
#define SNPS_GROUP_TOPIC 0x50	    /* DCPSTopic */
#define SNPS_GROUP_SECURITY 0x60    /* ParticipantStatelessMessage */
#define SNPS_GROUP_LOCATION 0x70    /* DCPSLocation */

/* Human-readable text for an SNPS_E* code (static storage; never NULL). */
const char *snps_strerror(int err);

/*
 * Load and store unsigned integers of 2, 4 and 8 bytes at p, in network
 * order, or reversed when swapped is true (a §2 misconfigured peer).
 * p needs no alignment. The caller guarantees the bytes exist.
 */
static inline uint64_t snps_load(const uint8_t *p, unsigned size, bool swapped)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v = (v << 8) | p[swapped ? size - 1 - i : i];
	return v;
}

static inline void snps_store(uint8_t *p, unsigned size, uint64_t v, bool swapped)
{
	for (unsigned i = 0; i < size; i++) {
		p[swapped ? i : size - 1 - i] = (uint8_t)v;
		v >>= 8;
	}
}

static inline uint16_t snps_load16(const uint8_t *p, bool swapped)
{
	return (uint16_t)snps_load(p, 2, swapped);
}

static inline uint32_t snps_load32(const uint8_t *p, bool swapped)
{
	return (uint32_t)snps_load(p, 4, swapped);
}

static inline void snps_store16(uint8_t *p, uint16_t v, bool swapped)
{
	snps_store(p, 2, v, swapped);
}

static inline void snps_store32(uint8_t *p, uint32_t v, bool swapped)
{
	snps_store(p, 4, v, swapped);
}

#endif /* SDDS_SNPS_WIRE_H */
