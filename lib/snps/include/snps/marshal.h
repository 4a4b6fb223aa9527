/* SPDX-License-Identifier: MIT */
/*
 * marshal.h - sample layouts and the sDDS TopicMarshalling of
 * shared/docs/snps-wire.md §6.
 *
 * OVERVIEW
 * A sample is a byte string: fields in declaration order, packed, no
 * padding, no tags. The canonical form, which the daemon routes and stores,
 * is exactly what a correctly configured node puts on the wire: multi-byte
 * integers big-endian (§2). A misconfigured endian="big" node on a
 * little-endian CPU sends the same bytes with every multi-byte integer
 * reversed; snps_sample_swap() converts between the two (it is its own
 * inverse). Strings and single bytes never change.
 *
 * A layout is a caller-owned array of (type, size) pairs; the types are the
 * FieldType values of ipc/control.proto (and sdds_field_type of
 * include/sdds/sdds.h). Sizes are wire bytes:
 *   octet, char, boolean 1; short, ushort 2; long, ulong 4;
 *   longlong, ulonglong 8; string K+1 (the last byte is never written by
 *   sDDS and must be ignored, §6.3); enum 1, 2, 4 or 8 (§6.2 rule:
 *   snps_enum_size()).
 *
 * The field accessors read and write canonical samples in place, in a
 * buffer the caller owns; they check the layout and the sample length on
 * every call.
 */
#ifndef SDDS_SNPS_MARSHAL_H
#define SDDS_SNPS_MARSHAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snps/wire.h"

/* Values equal to FieldType in ipc/control.proto. */
enum snps_field_type {
	SNPS_FIELD_OCTET = 1,
	SNPS_FIELD_CHAR = 2,
	SNPS_FIELD_BOOLEAN = 3,
	SNPS_FIELD_SHORT = 4,
	SNPS_FIELD_USHORT = 5,
	SNPS_FIELD_LONG = 6,
	SNPS_FIELD_ULONG = 7,
	SNPS_FIELD_LONGLONG = 8,
	SNPS_FIELD_ULONGLONG = 9,
	SNPS_FIELD_STRING = 10, /* size = K + 1 */
	SNPS_FIELD_ENUM = 11,	/* size = 1, 2, 4 or 8 */
};

/* The largest sample a layout may describe (a SECURE blob caps lower). */
#define SNPS_SAMPLE_MAX 65535u

struct snps_field {
	uint8_t type; /* enum snps_field_type */
	uint32_t size;
};

struct snps_layout {
	const struct snps_field *fields; /* borrowed; outlives the layout */
	uint32_t n_fields;
};

/* Flags of snps_sample_validate. */
#define SNPS_VALIDATE_BOOL01 0x1u      /* booleans must be 0 or 1 */
#define SNPS_VALIDATE_STRING_ZERO 0x2u /* every string's K+1-th byte is 0 (our encoders) */

/*
 * Check every field's type and size and give the sample size in *ret_size.
 * Returns 0 or SNPS_EINVAL (unknown type, wrong size, NULL fields with
 * n_fields > 0, total over SNPS_SAMPLE_MAX). A layout with no field
 * describes the empty sample.
 */
int snps_layout_check(const struct snps_layout *l, uint32_t *ret_size);

/* Offset of field `index` in the sample (layout assumed checked). Returns 0
 * or SNPS_ENOENT when there is no such field. */
int snps_layout_offset(const struct snps_layout *l, uint32_t index, uint32_t *ret_offset);

/*
 * §6.2 enum rule: bytes of an enum whose largest literal value is `largest`
 * (or, without values, whose literal count is `largest`). b = bits needed;
 * b < 8 -> 1, b < 16 -> 2, b < 32 -> 4, else 8; so 200 needs 2 bytes.
 */
uint32_t snps_enum_size(uint64_t largest);

/*
 * Check sample[0..len) against the layout: len must be the layout's size
 * (SNPS_EMSGSIZE otherwise), the layout valid (SNPS_EINVAL), and with
 * flags the content rules above (SNPS_EBADMSG). Canonical or swapped form
 * both pass (nothing here depends on byte order).
 */
int snps_sample_validate(const struct snps_layout *l, const uint8_t *sample, size_t len, uint32_t flags);

/*
 * Convert between canonical and swapped form: reverse every integer field
 * of 2, 4 or 8 bytes. dst and src are len bytes, owned by the caller; they
 * may be the same buffer (in-place), not partially overlapping. Returns 0,
 * SNPS_EINVAL (bad layout) or SNPS_EMSGSIZE (len is not the layout's size).
 */
int snps_sample_swap(const struct snps_layout *l, uint8_t *dst, const uint8_t *src, size_t len);

/*
 * Set every string's ignored K+1-th byte to 0, as a compatible encoder
 * writes it (§6.3). Same returns as snps_sample_swap.
 */
int snps_sample_normalize(const struct snps_layout *l, uint8_t *sample, size_t len);

/*
 * Field accessors on a canonical sample of exactly the layout's size.
 * get_uint: any integer-like field (not STRING), zero-extended.
 * get_int: as get_uint, sign-extended for SHORT, LONG and LONGLONG.
 * set_uint / set_int: the value must fit the field (SNPS_EINVAL otherwise);
 *   set_int on an unsigned field takes 0..max, set_uint on a signed field
 *   takes 0..signed max.
 * get_string: copies the text (up to K bytes, stopping at a NUL) into
 *   dst[0..cap) and NUL-terminates it; SNPS_EMSGSIZE if cap is too small.
 * set_string: text of at most K bytes; the rest of the K+1 slot is zeroed.
 * All return 0, SNPS_ENOENT (no such field), SNPS_EINVAL (wrong field type
 * or layout) or SNPS_EMSGSIZE (len is not the layout's size).
 */
int snps_sample_get_uint(const struct snps_layout *l, const uint8_t *sample, size_t len, uint32_t index,
			 uint64_t *ret);
int snps_sample_get_int(const struct snps_layout *l, const uint8_t *sample, size_t len, uint32_t index,
			int64_t *ret);
int snps_sample_set_uint(const struct snps_layout *l, uint8_t *sample, size_t len, uint32_t index,
			 uint64_t v);
int snps_sample_set_int(const struct snps_layout *l, uint8_t *sample, size_t len, uint32_t index, int64_t v);
int snps_sample_get_string(const struct snps_layout *l, const uint8_t *sample, size_t len, uint32_t index,
			   char *dst, size_t cap);
int snps_sample_set_string(const struct snps_layout *l, uint8_t *sample, size_t len, uint32_t index,
			   const char *text);

#endif /* SDDS_SNPS_MARSHAL_H */
