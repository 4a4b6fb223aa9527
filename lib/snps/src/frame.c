/* SPDX-License-Identifier: MIT */
/*
 * frame.c - SNPS frame builder.
 *
 * OVERVIEW
 * Invariant: 2 <= f->len <= f->limit and f->count <= 255. Every put checks
 * the room for its whole submessage (and the count) before it writes a
 * byte, so a refused put leaves the frame unchanged. An add is a sequence
 * of puts; on failure it restores the saved builder state, which is enough
 * to undo it because puts only ever append.
 */
#include <string.h>

#include "snps/frame.h"
#include "snps/submsg.h"

#define COUNT_MAX 255u

void snps_frame_options_init(struct snps_frame_options *opts)
{
	opts->max_frame = SNPS_MAX_FRAME_DEFAULT;
	opts->flags = 0;
}

int snps_frame_init(struct snps_frame *f, uint8_t *buf, size_t cap, const struct snps_frame_options *opts)
{
	struct snps_frame_options o;
	size_t limit;

	if (opts != NULL)
		o = *opts;
	else
		snps_frame_options_init(&o);
	if (o.max_frame == 0)
		o.max_frame = SNPS_MAX_FRAME_DEFAULT;
	if (buf == NULL || o.max_frame < 4)
		return SNPS_EINVAL;
	/* §6.6: real senders stay strictly below the receivers' buffer size. */
	limit = (size_t)o.max_frame - 1;
	if (cap < limit)
		limit = cap;
	if (limit < 3)
		return SNPS_EINVAL;
	memset(f, 0, sizeof(*f));
	f->buf = buf;
	f->limit = limit;
	f->flags = o.flags;
	snps_frame_reset(f);
	return 0;
}

void snps_frame_reset(struct snps_frame *f)
{
	f->buf[0] = SNPS_VERSION;
	/* The count is only known at the end; the reference sender writes it last. */
	f->buf[1] = 0;
	f->len = 2;
	f->count = 0;
	f->domain = 0;
	f->topic = 0;
	f->has_topic = false;
}

int snps_frame_finish(struct snps_frame *f, size_t *ret_len)
{
	f->buf[1] = (uint8_t)f->count;
	*ret_len = f->len;
	return 0;
}

size_t snps_frame_len(const struct snps_frame *f)
{
	return f->len;
}

unsigned snps_frame_count(const struct snps_frame *f)
{
	return f->count;
}

static bool swapped(const struct snps_frame *f)
{
	return (f->flags & SNPS_FRAME_SWAPPED) != 0;
}

/* 0 when `bytes` more bytes in `submsgs` more submessages fit. */
static int check_room(const struct snps_frame *f, size_t bytes, unsigned submsgs)
{
	if (f->count + submsgs > COUNT_MAX)
		return SNPS_ENOSPC;
	if (bytes > f->limit - f->len)
		return SNPS_EMSGSIZE;
	return 0;
}

/* Bytes of the payload of a SEQNR_* of s->bits, or 0 for the basic form. */
static int seqnr_payload(const struct snps_seqnr *s, unsigned *ret_size)
{
	switch (s->bits) {
	case 4:
		if (s->value > 0xFu)
			return SNPS_EINVAL;
		*ret_size = 0;
		return 0;
	case 8:
		if (s->value > 0xFFu)
			return SNPS_EINVAL;
		*ret_size = 1;
		return 0;
	case 16:
		if (s->value > 0xFFFFu)
			return SNPS_EINVAL;
		*ret_size = 2;
		return 0;
	case 32:
		*ret_size = 4;
		return 0;
	default:
		return SNPS_EINVAL;
	}
}

static uint8_t seqnr_ext_type(unsigned size)
{
	return size == 1 ? SNPS_XT_SEQNR_SMALL : size == 2 ? SNPS_XT_SEQNR_BIG : SNPS_XT_SEQNR_HUGE;
}

/* Append SEQNR_* of `size` payload bytes; room already checked. */
static void write_ext_seqnr(struct snps_frame *f, const struct snps_seqnr *s, unsigned size)
{
	f->buf[f->len] = snps_submsg_ext(seqnr_ext_type(size));
	snps_store(f->buf + f->len + 1, size, s->value, swapped(f));
	f->len += 1 + (size_t)size;
	f->count++;
}

static int append1(struct snps_frame *f, uint8_t hdr)
{
	int rc = check_room(f, 1, 1);

	if (rc < 0)
		return rc;
	f->buf[f->len++] = hdr;
	f->count++;
	return 0;
}

int snps_frame_put_domain(struct snps_frame *f, uint8_t domain)
{
	int rc;

	if (domain > 0xFu)
		return SNPS_EINVAL;
	rc = append1(f, snps_submsg_basic(SNPS_BT_DOMAIN, domain));
	if (rc < 0)
		return rc;
	f->domain = domain;
	return 0;
}

int snps_frame_put_topic_ext(struct snps_frame *f, uint16_t topic)
{
	int rc = check_room(f, 3, 1);

	if (rc < 0)
		return rc;
	f->buf[f->len] = snps_submsg_ext(SNPS_XT_TOPIC);
	snps_store16(f->buf + f->len + 1, topic, swapped(f));
	f->len += 3;
	f->count++;
	f->topic = topic;
	f->has_topic = true;
	return 0;
}

int snps_frame_put_topic(struct snps_frame *f, uint16_t topic)
{
	int rc;

	if (topic > 0xFu) {
		if (!(f->flags & SNPS_FRAME_EXT_TOPICS))
			return SNPS_EINVAL;
		return snps_frame_put_topic_ext(f, topic);
	}
	rc = append1(f, snps_submsg_basic(SNPS_BT_TOPIC, topic));
	if (rc < 0)
		return rc;
	f->topic = topic;
	f->has_topic = true;
	return 0;
}

int snps_frame_reserve_data(struct snps_frame *f, size_t len, uint8_t **ret_ptr)
{
	int rc;

	if (len >= f->limit)
		return SNPS_EMSGSIZE;
	rc = check_room(f, 1 + len, 1);
	if (rc < 0)
		return rc;
	/* §4.5: the nibble is the length modulo 16; receivers know the size. */
	f->buf[f->len] = snps_submsg_basic(SNPS_BT_DATA, (unsigned)(len & 0xFu));
	*ret_ptr = f->buf + f->len + 1;
	f->len += 1 + len;
	f->count++;
	return 0;
}

int snps_frame_put_data(struct snps_frame *f, const void *data, size_t len)
{
	uint8_t *p;
	int rc;

	if (data == NULL && len > 0)
		return SNPS_EINVAL;
	rc = snps_frame_reserve_data(f, len, &p);
	if (rc < 0)
		return rc;
	if (len > 0)
		memcpy(p, data, len);
	return 0;
}

int snps_frame_put_seqnr(struct snps_frame *f, const struct snps_seqnr *s)
{
	unsigned size;
	int rc = seqnr_payload(s, &size);

	if (rc < 0)
		return rc;
	if (size == 0)
		return append1(f, snps_submsg_basic(SNPS_BT_SEQNR, s->value));
	rc = check_room(f, 1 + (size_t)size, 1);
	if (rc < 0)
		return rc;
	write_ext_seqnr(f, s, size);
	return 0;
}

static int put_ack_nack(struct snps_frame *f, const struct snps_seqnr *s, unsigned basic, unsigned ext)
{
	unsigned size;
	int rc = seqnr_payload(s, &size);

	if (rc < 0)
		return rc;
	if (size == 0)
		return append1(f, snps_submsg_basic(basic, s->value));
	/* The marker and the SEQNR_* after it are two submessages (§4.2). */
	rc = check_room(f, 2 + (size_t)size, 2);
	if (rc < 0)
		return rc;
	f->buf[f->len++] = snps_submsg_ext(ext);
	f->count++;
	write_ext_seqnr(f, s, size);
	return 0;
}

int snps_frame_put_ack(struct snps_frame *f, const struct snps_seqnr *s)
{
	return put_ack_nack(f, s, SNPS_BT_ACKSEQ, SNPS_XT_ACK);
}

int snps_frame_put_nack(struct snps_frame *f, const struct snps_seqnr *s)
{
	return put_ack_nack(f, s, SNPS_BT_NACKSEQ, SNPS_XT_NACK);
}

int snps_frame_put_address(struct snps_frame *f, const struct snps_addr *a)
{
	int rc;

	if (!snps_addr_valid(a))
		return SNPS_EINVAL;
	rc = check_room(f, 2 + (size_t)a->len, 1);
	if (rc < 0)
		return rc;
	f->buf[f->len] = snps_submsg_basic(SNPS_BT_ADDRESS, a->len);
	f->buf[f->len + 1] = (uint8_t)((a->family << 4) | a->cast);
	memcpy(f->buf + f->len + 2, a->bytes, a->len);
	f->len += 2 + (size_t)a->len;
	f->count++;
	return 0;
}

int snps_frame_put_secure(struct snps_frame *f, const uint8_t *blob, size_t len)
{
	int rc;

	if (blob == NULL || len < SNPS_SECURE_OVERHEAD || len > 0xFFu)
		return SNPS_EINVAL;
	rc = check_room(f, 2 + len, 1);
	if (rc < 0)
		return rc;
	f->buf[f->len] = snps_submsg_ext(SNPS_XT_SECURE);
	f->buf[f->len + 1] = (uint8_t)len;
	memcpy(f->buf + f->len + 2, blob, len);
	f->len += 2 + len;
	f->count++;
	return 0;
}

int snps_frame_put_skippable(struct snps_frame *f, uint8_t hdr, const uint8_t *payload, size_t len)
{
	unsigned type = snps_submsg_type(hdr);
	bool ok;
	int rc;

	if (snps_submsg_is_ext(hdr))
		ok = snps_submsg_value(hdr) == SNPS_XT_TSDDS;
	else
		ok = type == SNPS_BT_TS || type == SNPS_BT_STATUS || type > SNPS_BT_ADDRESS;
	if (!ok || len + 1 != snps_submsg_fixed_len(hdr) || (payload == NULL && len > 0))
		return SNPS_EINVAL;
	rc = check_room(f, 1 + len, 1);
	if (rc < 0)
		return rc;
	f->buf[f->len] = hdr;
	if (len > 0)
		memcpy(f->buf + f->len + 1, payload, len);
	f->len += 1 + len;
	f->count++;
	return 0;
}

/* Append what §4.7 puts before a sample; the caller restores on failure. */
static int put_context(struct snps_frame *f, const struct snps_sample_meta *m)
{
	int rc;

	if (m->domain != f->domain) {
		rc = snps_frame_put_domain(f, m->domain);
		if (rc < 0)
			return rc;
	}
	if (!f->has_topic || m->topic != f->topic) {
		rc = snps_frame_put_topic(f, m->topic);
		if (rc < 0)
			return rc;
	}
	if (m->addr != NULL) {
		rc = snps_frame_put_address(f, m->addr);
		if (rc < 0)
			return rc;
	}
	if (m->seqnr != NULL) {
		rc = snps_frame_put_seqnr(f, m->seqnr);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int snps_frame_room(const struct snps_frame *f, const struct snps_sample_meta *m, size_t *ret_room)
{
	size_t need = 1; /* the DATA header */
	unsigned submsgs = 1;
	unsigned size;
	int rc;

	if (m->domain > 0xFu)
		return SNPS_EINVAL;
	if (m->domain != f->domain) {
		need++;
		submsgs++;
	}
	if (!f->has_topic || m->topic != f->topic) {
		if (m->topic <= 0xFu)
			need += 1;
		else if (f->flags & SNPS_FRAME_EXT_TOPICS)
			need += 3;
		else
			return SNPS_EINVAL;
		submsgs++;
	}
	if (m->addr != NULL) {
		if (!snps_addr_valid(m->addr))
			return SNPS_EINVAL;
		need += 2 + (size_t)m->addr->len;
		submsgs++;
	}
	if (m->seqnr != NULL) {
		rc = seqnr_payload(m->seqnr, &size);
		if (rc < 0)
			return rc;
		need += 1 + (size_t)size;
		submsgs++;
	}
	rc = check_room(f, need, submsgs);
	if (rc < 0)
		return rc == SNPS_ENOSPC ? SNPS_EMSGSIZE : rc;
	*ret_room = f->limit - f->len - need;
	return 0;
}

int snps_frame_add_sample_reserve(struct snps_frame *f, const struct snps_sample_meta *m, size_t len,
				  uint8_t **ret_ptr)
{
	struct snps_frame saved = *f;
	uint8_t *p;
	int rc;

	rc = put_context(f, m);
	if (rc < 0)
		goto fail_restore;
	rc = snps_frame_reserve_data(f, len, &p);
	if (rc < 0)
		goto fail_restore;
	*ret_ptr = p;
	return 0;

fail_restore:
	*f = saved;
	return rc;
}

int snps_frame_add_sample(struct snps_frame *f, const struct snps_sample_meta *m, const void *data,
			  size_t len)
{
	uint8_t *p;
	int rc;

	if (data == NULL && len > 0)
		return SNPS_EINVAL;
	rc = snps_frame_add_sample_reserve(f, m, len, &p);
	if (rc < 0)
		return rc;
	if (len > 0)
		memcpy(p, data, len);
	return 0;
}

int snps_frame_add_secure(struct snps_frame *f, const struct snps_sample_meta *m, const uint8_t *blob,
			  size_t len)
{
	struct snps_frame saved = *f;
	int rc;

	rc = put_context(f, m);
	if (rc < 0)
		goto fail_restore;
	rc = snps_frame_put_secure(f, blob, len);
	if (rc < 0)
		goto fail_restore;
	return 0;

fail_restore:
	*f = saved;
	return rc;
}

static int add_ack_nack(struct snps_frame *f, uint8_t domain, uint16_t topic, const struct snps_seqnr *s,
			bool nack)
{
	struct snps_frame saved = *f;
	struct snps_sample_meta m = {.domain = domain, .topic = topic};
	int rc;

	rc = put_context(f, &m);
	if (rc < 0)
		goto fail_restore;
	rc = nack ? snps_frame_put_nack(f, s) : snps_frame_put_ack(f, s);
	if (rc < 0)
		goto fail_restore;
	return 0;

fail_restore:
	*f = saved;
	return rc;
}

int snps_frame_add_ack(struct snps_frame *f, uint8_t domain, uint16_t topic, const struct snps_seqnr *s)
{
	return add_ack_nack(f, domain, topic, s, false);
}

int snps_frame_add_nack(struct snps_frame *f, uint8_t domain, uint16_t topic, const struct snps_seqnr *s)
{
	return add_ack_nack(f, domain, topic, s, true);
}
