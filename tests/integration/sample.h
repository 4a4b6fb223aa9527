/* SPDX-License-Identifier: MIT */
/*
 * sample.h - the sample format the integration tests put on their topics.
 *
 * OVERVIEW
 * Every test sample is at least ISAMPLE_HDR bytes: a topic tag, a writer tag,
 * a kind (data or end-of-stream) and a 64-bit sequence number, big-endian as
 * SNPS marshals integers. The bytes after the header are a pattern derived
 * from the sequence number, so a sample that was torn, mixed up with another
 * or written by a stranger fails isample_decode. An END sample carries in
 * `seq` the number of DATA samples its writer wrote before it.
 *
 * The field list (isample_fields) is the one every process registers for a
 * topic of a given size, so that the peers and the raw client agree on the
 * layout the broker compares.
 */
#ifndef SDDS_ITEST_SAMPLE_H
#define SDDS_ITEST_SAMPLE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#define ISAMPLE_HDR 16u
#define ISAMPLE_MAX 4096u
#define ISAMPLE_DATA 0x44415441u /* "DATA" */
#define ISAMPLE_END 0x454e4421u	 /* "END!" */

struct isample {
	uint16_t topic_tag;
	uint16_t writer_tag;
	uint32_t kind;
	uint64_t seq;
};

static inline void isample_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void isample_put32(uint8_t *p, uint32_t v)
{
	isample_put16(p, (uint16_t)(v >> 16));
	isample_put16(p + 2, (uint16_t)v);
}

static inline uint16_t isample_get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t isample_get32(const uint8_t *p)
{
	return ((uint32_t)isample_get16(p) << 16) | isample_get16(p + 2);
}

static inline uint8_t isample_pattern(uint64_t seq, size_t i)
{
	return (uint8_t)(seq * 31u + i * 7u + 1u);
}

/* Fill buf (size bytes, size >= ISAMPLE_HDR; the caller owns buf). */
static inline void isample_encode(void *buf, size_t size, const struct isample *s)
{
	uint8_t *p = buf;

	isample_put16(p, s->topic_tag);
	isample_put16(p + 2, s->writer_tag);
	isample_put32(p + 4, s->kind);
	isample_put32(p + 8, (uint32_t)(s->seq >> 32));
	isample_put32(p + 12, (uint32_t)s->seq);
	for (size_t i = ISAMPLE_HDR; i < size; i++)
		p[i] = isample_pattern(s->seq, i);
}

/*
 * Check and parse len bytes (expected: size). *ret is written only on
 * success. Returns 0, or -EBADMSG for a wrong length, kind or pattern.
 */
static inline int isample_decode(const void *buf, size_t len, size_t size, struct isample *ret)
{
	const uint8_t *p = buf;
	struct isample s;

	if (len != size || len < ISAMPLE_HDR)
		return -EBADMSG;
	s.topic_tag = isample_get16(p);
	s.writer_tag = isample_get16(p + 2);
	s.kind = isample_get32(p + 4);
	s.seq = ((uint64_t)isample_get32(p + 8) << 32) | isample_get32(p + 12);
	if (s.kind != ISAMPLE_DATA && s.kind != ISAMPLE_END)
		return -EBADMSG;
	for (size_t i = ISAMPLE_HDR; i < size; i++)
		if (p[i] != isample_pattern(s.seq, i))
			return -EBADMSG;
	*ret = s;
	return 0;
}

/*
 * The field layout of a test topic of `size` bytes: the header fields, then
 * the rest as one string field (K + 1 bytes on the wire). Values are the
 * Sdds__Ctl__FieldType / sdds_field_type numbers. Returns the field count.
 */
struct isample_field {
	const char *name;
	int type;
	uint32_t size;
};

static inline size_t isample_fields(size_t size, struct isample_field out[5])
{
	size_t n = 0;

	out[n++] = (struct isample_field){"topic", 5 /* USHORT */, 2};
	out[n++] = (struct isample_field){"writer", 5 /* USHORT */, 2};
	out[n++] = (struct isample_field){"kind", 7 /* ULONG */, 4};
	out[n++] = (struct isample_field){"seq", 9 /* ULONGLONG */, 8};
	if (size > ISAMPLE_HDR)
		out[n++] = (struct isample_field){"pad", 10 /* STRING */, (uint32_t)(size - ISAMPLE_HDR)};
	return n;
}

#endif /* SDDS_ITEST_SAMPLE_H */
