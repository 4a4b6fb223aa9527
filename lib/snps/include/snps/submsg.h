/* SPDX-License-Identifier: MIT */
/*
 * submsg.h - the submessage header byte and the table of types
 * (shared/docs/snps-wire.md §4.1, §4.2, §11.2).
 *
 * OVERVIEW
 * Every submessage starts with one header byte: low nibble = type, high
 * nibble = value. Type 0xF marks an extended submessage whose extended type
 * is the high nibble; its payload follows in the next bytes. Nothing in
 * this module keeps state: it names types and tells how long a submessage
 * whose length does not depend on the topic table is.
 */
#ifndef SDDS_SNPS_SUBMSG_H
#define SDDS_SNPS_SUBMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Basic types (low nibble); 9..0xE are unassigned. */
enum snps_basic_type {
	SNPS_BT_DOMAIN = 0x0,
	SNPS_BT_TOPIC = 0x1,
	SNPS_BT_DATA = 0x2,
	SNPS_BT_SEQNR = 0x3,
	SNPS_BT_TS = 0x4,
	SNPS_BT_ACKSEQ = 0x5,
	SNPS_BT_NACKSEQ = 0x6,
	SNPS_BT_STATUS = 0x7,
	SNPS_BT_ADDRESS = 0x8,
	SNPS_BT_EXT = 0xF,
};

/*
 * STATUS (x7) values sddsd sends: real receivers only skip a STATUS
 * (snps-wire.md §4.2; a reliability build reads it as a SEQNR for the
 * next DATA, so it only ever ends a frame). Bit 0: the sender is an sddsd
 * that takes several samples per frame.
 */
#define SNPS_STATUS_PACKS 0x1u

/* Extended types (high nibble of a 0x?F header byte). */
enum snps_ext_type {
	SNPS_XT_ACK = 0x0,
	SNPS_XT_NACK = 0x1,
	SNPS_XT_SEP = 0x2,
	SNPS_XT_TSDDS = 0x3,
	SNPS_XT_ADDR16 = 0x4,
	SNPS_XT_CRC = 0x5,
	SNPS_XT_TSUSEC = 0x6,
	SNPS_XT_TSMSEC = 0x7,
	SNPS_XT_SEQNR_SMALL = 0x8,
	SNPS_XT_SEQNR_BIG = 0x9,
	SNPS_XT_SEQNR_HUGE = 0xA,
	SNPS_XT_TOPIC = 0xB,
	SNPS_XT_FRAG = 0xC,
	SNPS_XT_FRAGNACK = 0xD,
	SNPS_XT_SECURE = 0xE,
	SNPS_XT_EXTENDED = 0xF,
};

/* §12.6: a SECURE blob is IV(12) + ciphertext + MAC(12). */
#define SNPS_SECURE_OVERHEAD 24

/* Header byte of basic type t with 4-bit value v. v is masked to 4 bits, as
 * real encoders do (§4.1); callers that must not lose bits check first. */
static inline uint8_t snps_submsg_basic(unsigned type, unsigned value)
{
	return (uint8_t)(((value & 0xFu) << 4) | (type & 0xFu));
}

/* Header byte of extended type e. */
static inline uint8_t snps_submsg_ext(unsigned ext)
{
	return (uint8_t)(((ext & 0xFu) << 4) | SNPS_BT_EXT);
}

static inline unsigned snps_submsg_type(uint8_t hdr)
{
	return hdr & 0xFu;
}

static inline unsigned snps_submsg_value(uint8_t hdr)
{
	return hdr >> 4;
}

static inline bool snps_submsg_is_ext(uint8_t hdr)
{
	return (hdr & 0xFu) == SNPS_BT_EXT;
}

/*
 * Total length in bytes (header included) of the submessage starting with
 * hdr when that length follows from hdr alone (§4.2): 1, 2, 3, 5 or 9.
 * Returns 0 when it does not: DATA (the topic's sample size decides),
 * ADDRESS (2 + n), SECURE (2 + L), and the extended types that have no
 * defined length at all (SEP, ADDR16, CRC, TSUSEC, TSMSEC, FRAG, FRAGNACK,
 * EXTENDED). Unassigned basic types count as 1 byte, as real receivers
 * treat them.
 */
unsigned snps_submsg_fixed_len(uint8_t hdr);

/* True for the extended types a receiver cannot skip (§4.2 "desync"). */
bool snps_submsg_is_desync(uint8_t hdr);

/* Name of the type of hdr ("DOMAIN", "ext SEQNR_BIG", ...); static storage. */
const char *snps_submsg_name(uint8_t hdr);

#endif /* SDDS_SNPS_SUBMSG_H */
