/* SPDX-License-Identifier: MIT */
/*
 * marshal.c - layouts, byte-order conversion, validation and field access.
 *
 * OVERVIEW
 * Every entry point checks the whole layout and the sample length before it
 * touches a byte, so no call reads or writes outside sample[0..len) even for
 * a layout that came from a peer or a client. Layouts are walked linearly:
 * they are short (the builtins have at most 9 fields) and this keeps the
 * library free of any table it would have to allocate.
 */
#include <string.h>

#include "snps/marshal.h"

static bool field_is_integer(uint8_t type)
{
	return type != SNPS_FIELD_STRING;
}

static bool field_is_signed(uint8_t type)
{
	return type == SNPS_FIELD_SHORT || type == SNPS_FIELD_LONG || type == SNPS_FIELD_LONGLONG;
}

static bool field_ok(const struct snps_field *fd)
{
	switch (fd->type) {
	case SNPS_FIELD_OCTET:
	case SNPS_FIELD_CHAR:
	case SNPS_FIELD_BOOLEAN:
		return fd->size == 1;
	case SNPS_FIELD_SHORT:
	case SNPS_FIELD_USHORT:
		return fd->size == 2;
	case SNPS_FIELD_LONG:
	case SNPS_FIELD_ULONG:
		return fd->size == 4;
	case SNPS_FIELD_LONGLONG:
	case SNPS_FIELD_ULONGLONG:
		return fd->size == 8;
	case SNPS_FIELD_STRING:
		return fd->size >= 1 && fd->size <= SNPS_SAMPLE_MAX;
	case SNPS_FIELD_ENUM:
		return fd->size == 1 || fd->size == 2 || fd->size == 4 || fd->size == 8;
	default:
		return false;
	}
}

int snps_layout_check(const struct snps_layout *l, uint32_t *ret_size)
{
	uint32_t total = 0;

	if (l->n_fields > 0 && l->fields == NULL)
		return SNPS_EINVAL;
	for (uint32_t i = 0; i < l->n_fields; i++) {
		const struct snps_field *fd = &l->fields[i];

		if (!field_ok(fd) || fd->size > SNPS_SAMPLE_MAX - total)
			return SNPS_EINVAL;
		total += fd->size;
	}
	*ret_size = total;
	return 0;
}

int snps_layout_offset(const struct snps_layout *l, uint32_t index, uint32_t *ret_offset)
{
	uint32_t off = 0;

	if (index >= l->n_fields || l->fields == NULL)
		return SNPS_ENOENT;
	for (uint32_t i = 0; i < index; i++)
		off += l->fields[i].size;
	*ret_offset = off;
	return 0;
}

uint32_t snps_enum_size(uint64_t largest)
{
	unsigned bits = 0;

	while (largest != 0) {
		bits++;
		largest >>= 1;
	}
	if (bits < 8)
		return 1;
	if (bits < 16)
		return 2;
	if (bits < 32)
		return 4;
	return 8;
}

/* Layout valid and len equal to its size. */
static int check_sample(const struct snps_layout *l, size_t len)
{
	uint32_t size;
	int rc = snps_layout_check(l, &size);

	if (rc < 0)
		return rc;
	if (len != size)
		return SNPS_EMSGSIZE;
	return 0;
}

/* Field `index` of a sample that passed check_sample. */
static int locate(const struct snps_layout *l, size_t len, uint32_t index, const struct snps_field **ret_fd,
		  uint32_t *ret_off)
{
	uint32_t off;
	int rc = check_sample(l, len);

	if (rc < 0)
		return rc;
	rc = snps_layout_offset(l, index, &off);
	if (rc < 0)
		return rc;
	*ret_fd = &l->fields[index];
	*ret_off = off;
	return 0;
}

int snps_sample_validate(const struct snps_layout *l, const uint8_t *sample, size_t len, uint32_t flags)
{
	uint32_t off = 0;
	int rc = check_sample(l, len);

	if (rc < 0)
		return rc;
	if (sample == NULL && len > 0)
		return SNPS_EINVAL;
	for (uint32_t i = 0; i < l->n_fields; i++) {
		const struct snps_field *fd = &l->fields[i];

		if ((flags & SNPS_VALIDATE_BOOL01) && fd->type == SNPS_FIELD_BOOLEAN && sample[off] > 1)
			return SNPS_EBADMSG;
		if ((flags & SNPS_VALIDATE_STRING_ZERO) && fd->type == SNPS_FIELD_STRING &&
		    sample[off + fd->size - 1] != 0)
			return SNPS_EBADMSG;
		off += fd->size;
	}
	return 0;
}

int snps_sample_swap(const struct snps_layout *l, uint8_t *dst, const uint8_t *src, size_t len)
{
	uint32_t off = 0;
	int rc = check_sample(l, len);

	if (rc < 0)
		return rc;
	if ((dst == NULL || src == NULL) && len > 0)
		return SNPS_EINVAL;
	if (dst != src && len > 0)
		memcpy(dst, src, len);
	for (uint32_t i = 0; i < l->n_fields; i++) {
		const struct snps_field *fd = &l->fields[i];

		if (field_is_integer(fd->type)) {
			for (uint32_t a = off, b = off + fd->size - 1; a < b; a++, b--) {
				uint8_t t = dst[a];
				dst[a] = dst[b];
				dst[b] = t;
			}
		}
		off += fd->size;
	}
	return 0;
}

int snps_sample_normalize(const struct snps_layout *l, uint8_t *sample, size_t len)
{
	uint32_t off = 0;
	int rc = check_sample(l, len);

	if (rc < 0)
		return rc;
	if (sample == NULL && len > 0)
		return SNPS_EINVAL;
	for (uint32_t i = 0; i < l->n_fields; i++) {
		if (l->fields[i].type == SNPS_FIELD_STRING)
			sample[off + l->fields[i].size - 1] = 0;
		off += l->fields[i].size;
	}
	return 0;
}

int snps_sample_get_uint(const struct snps_layout *l, const uint8_t *sample, size_t len, uint32_t index,
			 uint64_t *ret)
{
	const struct snps_field *fd;
	uint32_t off;
	int rc = locate(l, len, index, &fd, &off);

	if (rc < 0)
		return rc;
	if (!field_is_integer(fd->type) || sample == NULL)
		return SNPS_EINVAL;
	*ret = snps_load(sample + off, fd->size, false);
	return 0;
}

int snps_sample_get_int(const struct snps_layout *l, const uint8_t *sample, size_t len, uint32_t index,
			int64_t *ret)
{
	const struct snps_field *fd;
	uint32_t off;
	uint64_t v;
	int rc = locate(l, len, index, &fd, &off);

	if (rc < 0)
		return rc;
	if (!field_is_integer(fd->type) || sample == NULL)
		return SNPS_EINVAL;
	v = snps_load(sample + off, fd->size, false);
	if (field_is_signed(fd->type) && fd->size < 8 && (v >> (8 * fd->size - 1)) != 0)
		v |= ~(uint64_t)0 << (8 * fd->size);
	/* Two's complement without relying on implementation-defined casts. */
	*ret = v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(~v) - 1;
	return 0;
}

/* Store v, already range-checked, into the field. */
static void store_field(uint8_t *sample, uint32_t off, const struct snps_field *fd, uint64_t v)
{
	snps_store(sample + off, fd->size, v, false);
}

static uint64_t field_umax(const struct snps_field *fd)
{
	uint64_t max = fd->size >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * fd->size)) - 1;

	return field_is_signed(fd->type) ? max >> 1 : max;
}

int snps_sample_set_uint(const struct snps_layout *l, uint8_t *sample, size_t len, uint32_t index, uint64_t v)
{
	const struct snps_field *fd;
	uint32_t off;
	int rc = locate(l, len, index, &fd, &off);

	if (rc < 0)
		return rc;
	if (!field_is_integer(fd->type) || sample == NULL || v > field_umax(fd))
		return SNPS_EINVAL;
	store_field(sample, off, fd, v);
	return 0;
}

int snps_sample_set_int(const struct snps_layout *l, uint8_t *sample, size_t len, uint32_t index, int64_t v)
{
	const struct snps_field *fd;
	uint32_t off;
	int rc = locate(l, len, index, &fd, &off);

	if (rc < 0)
		return rc;
	if (!field_is_integer(fd->type) || sample == NULL)
		return SNPS_EINVAL;
	if (field_is_signed(fd->type)) {
		int64_t max = (int64_t)field_umax(fd);

		if (v > max || v < -max - 1)
			return SNPS_EINVAL;
		/* Conversion to unsigned is modulo 2^64: two's complement. */
		store_field(sample, off, fd, (uint64_t)v);
		return 0;
	}
	if (v < 0 || (uint64_t)v > field_umax(fd))
		return SNPS_EINVAL;
	store_field(sample, off, fd, (uint64_t)v);
	return 0;
}

int snps_sample_get_string(const struct snps_layout *l, const uint8_t *sample, size_t len, uint32_t index,
			   char *dst, size_t cap)
{
	const struct snps_field *fd;
	uint32_t off, k, n = 0;
	int rc = locate(l, len, index, &fd, &off);

	if (rc < 0)
		return rc;
	if (fd->type != SNPS_FIELD_STRING || sample == NULL || dst == NULL)
		return SNPS_EINVAL;
	/* §6.3: K text bytes; the K+1-th is never written by sDDS. */
	k = fd->size - 1;
	while (n < k && sample[off + n] != 0)
		n++;
	if (cap < (size_t)n + 1)
		return SNPS_EMSGSIZE;
	memcpy(dst, sample + off, n);
	dst[n] = '\0';
	return 0;
}

int snps_sample_set_string(const struct snps_layout *l, uint8_t *sample, size_t len, uint32_t index,
			   const char *text)
{
	const struct snps_field *fd;
	uint32_t off, n = 0;
	int rc = locate(l, len, index, &fd, &off);

	if (rc < 0)
		return rc;
	if (fd->type != SNPS_FIELD_STRING || sample == NULL || text == NULL)
		return SNPS_EINVAL;
	/* Bounded scan: text need not be shorter than the slot to be rejected. */
	while (n < fd->size && text[n] != '\0')
		n++;
	if (n > fd->size - 1)
		return SNPS_EINVAL;
	memcpy(sample + off, text, n);
	memset(sample + off + n, 0, fd->size - n);
	return 0;
}
