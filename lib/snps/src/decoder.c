/* SPDX-License-Identifier: MIT */
/*
 * decoder.c - SNPS frame decoder.
 *
 * OVERVIEW
 * Every read is preceded by a check against `avail`, the bytes left between
 * the current submessage and the end of the datagram; every rejection goes
 * through fail(), which makes the decoder sticky-failed. The context (§4.7)
 * lives in the decoder and is copied into each event after the submessage
 * was applied, so an event is self-contained.
 */
#include <string.h>

#include "snps/decoder.h"
#include "snps/submsg.h"

static const char *const reason_text[SNPS_R_MAX_] = {
    [SNPS_R_NONE] = "no error",
    [SNPS_R_SHORT_HEADER] = "datagram shorter than the 2-byte frame header",
    [SNPS_R_BAD_VERSION] = "frame version is not 1",
    [SNPS_R_COUNT_HIGH] = "datagram ends before the announced number of submessages",
    [SNPS_R_COUNT_LOW] = "bytes left after the announced number of submessages",
    [SNPS_R_TRUNCATED] = "submessage runs past the end of the datagram",
    [SNPS_R_UNKNOWN_EXT] = "extended submessage type with no defined length",
    [SNPS_R_NO_TOPIC] = "DATA, SECURE, SEQNR, ACK or NACK before any TOPIC",
    [SNPS_R_UNKNOWN_TOPIC] = "DATA for a topic the topic table does not know",
    [SNPS_R_DATA_NIBBLE] = "DATA length nibble disagrees with the topic's sample size",
    [SNPS_R_BAD_ADDRESS] = "ADDRESS with an unknown cast or family or a wrong length",
    [SNPS_R_ACK_NO_SEQNR] = "extended ACK or NACK marker without a following SEQNR_SMALL/BIG/HUGE",
    [SNPS_R_BAD_SECURE] = "SECURE submessage shorter than its IV and MAC",
};

const char *snps_reason_str(enum snps_reason r)
{
	if ((unsigned)r >= SNPS_R_MAX_)
		return "unknown reason";
	return reason_text[r];
}

void snps_decoder_options_init(struct snps_decoder_options *opts)
{
	memset(opts, 0, sizeof(*opts));
}

static int fail(struct snps_decoder *d, enum snps_reason r, size_t offset)
{
	d->reason = r;
	d->err_offset = offset;
	return SNPS_EPROTO;
}

int snps_decoder_init(struct snps_decoder *d, const uint8_t *buf, size_t len,
		      const struct snps_decoder_options *opts)
{
	if ((buf == NULL && len > 0) || len > SNPS_DATAGRAM_MAX)
		return SNPS_EINVAL;
	memset(d, 0, sizeof(*d));
	d->buf = buf;
	d->len = len;
	if (opts != NULL)
		d->opts = *opts;
	if (len < 2)
		return fail(d, SNPS_R_SHORT_HEADER, len);
	if (buf[0] != SNPS_VERSION)
		return fail(d, SNPS_R_BAD_VERSION, 0);
	d->count = buf[1];
	d->pos = 2;
	return 0;
}

enum snps_reason snps_decoder_reason(const struct snps_decoder *d)
{
	return d->reason;
}

size_t snps_decoder_offset(const struct snps_decoder *d)
{
	return d->err_offset;
}

unsigned snps_decoder_count(const struct snps_decoder *d)
{
	return d->count;
}

static bool swapped(const struct snps_decoder *d)
{
	return (d->opts.flags & SNPS_DECODE_SWAPPED) != 0;
}

static void set_topic(struct snps_decoder *d, uint16_t topic, bool ext)
{
	d->topic = topic;
	d->topic_ext = ext;
	d->has_topic = true;
	/* A sequence number numbers the next DATA of its own topic only. */
	d->has_seqnr = false;
}

/* Hand the per-sample context (§4.7) to a DATA or SECURE event. */
static void attach_sample_context(struct snps_decoder *d, struct snps_event *ev)
{
	ev->has_seqnr = d->has_seqnr;
	ev->seqnr = d->seqnr;
	ev->has_addr = d->has_addr;
	ev->addr = d->addr;
	d->has_seqnr = false;
}

enum { EXT_SEQNR_OK, EXT_SEQNR_NOT, EXT_SEQNR_SHORT };

/* Read a SEQNR_SMALL/BIG/HUGE at p (avail bytes from p on). */
static int read_ext_seqnr(const struct snps_decoder *d, const uint8_t *p, size_t avail, struct snps_seqnr *s,
			  size_t *wire_len)
{
	unsigned size;

	if (!snps_submsg_is_ext(p[0]))
		return EXT_SEQNR_NOT;
	switch (snps_submsg_value(p[0])) {
	case SNPS_XT_SEQNR_SMALL:
		size = 1;
		break;
	case SNPS_XT_SEQNR_BIG:
		size = 2;
		break;
	case SNPS_XT_SEQNR_HUGE:
		size = 4;
		break;
	default:
		return EXT_SEQNR_NOT;
	}
	if (avail < 1 + (size_t)size)
		return EXT_SEQNR_SHORT;
	s->bits = (uint8_t)(8 * size);
	s->value = (uint32_t)snps_load(p + 1, size, swapped(d));
	*wire_len = 1 + size;
	return EXT_SEQNR_OK;
}

static int decode_data(struct snps_decoder *d, const uint8_t *p, size_t avail, struct snps_event *ev,
		       size_t *wire_len)
{
	unsigned nibble = snps_submsg_value(p[0]);
	uint32_t size = 0;
	bool known;

	if (!d->has_topic)
		return fail(d, SNPS_R_NO_TOPIC, d->pos);
	known = d->opts.lookup != NULL && d->opts.lookup(d->opts.lookup_ctx, d->domain, d->topic, &size) == 0;
	if (known) {
		if ((d->opts.flags & SNPS_DECODE_STRICT_NIBBLE) && (size & 0xFu) != nibble)
			return fail(d, SNPS_R_DATA_NIBBLE, d->pos);
		ev->kind = SNPS_EV_DATA;
	} else {
		if (!(d->opts.flags & SNPS_DECODE_SKIP_UNKNOWN))
			return fail(d, SNPS_R_UNKNOWN_TOPIC, d->pos);
		/* The reference receiver's skip rule: right only up to 15 bytes. */
		size = nibble;
		ev->kind = SNPS_EV_DATA_SKIPPED;
	}
	if (size > avail - 1)
		return fail(d, SNPS_R_TRUNCATED, d->pos);
	ev->data = size > 0 ? p + 1 : NULL;
	ev->len = size;
	attach_sample_context(d, ev);
	*wire_len = 1 + (size_t)size;
	return 0;
}

static int decode_address(struct snps_decoder *d, const uint8_t *p, size_t avail, struct snps_event *ev,
			  size_t *wire_len)
{
	struct snps_addr a;

	if (avail < 2)
		return fail(d, SNPS_R_TRUNCATED, d->pos);
	memset(&a, 0, sizeof(a));
	a.cast = p[1] & 0xFu;
	a.family = p[1] >> 4;
	a.len = (uint8_t)snps_submsg_value(p[0]);
	if (!snps_addr_valid(&a))
		return fail(d, SNPS_R_BAD_ADDRESS, d->pos);
	if (avail < 2 + (size_t)a.len)
		return fail(d, SNPS_R_TRUNCATED, d->pos);
	memcpy(a.bytes, p + 2, a.len);
	d->addr = a;
	d->has_addr = true;
	ev->kind = SNPS_EV_ADDRESS;
	ev->addr = a;
	ev->has_addr = true;
	*wire_len = 2 + (size_t)a.len;
	return 0;
}

static int decode_basic(struct snps_decoder *d, const uint8_t *p, size_t avail, struct snps_event *ev,
			size_t *wire_len)
{
	unsigned value = snps_submsg_value(p[0]);
	unsigned len;

	switch (snps_submsg_type(p[0])) {
	case SNPS_BT_DOMAIN:
		d->domain = (uint8_t)value;
		ev->kind = SNPS_EV_DOMAIN;
		return 0;
	case SNPS_BT_TOPIC:
		set_topic(d, (uint16_t)value, false);
		ev->kind = SNPS_EV_TOPIC;
		return 0;
	case SNPS_BT_DATA:
		return decode_data(d, p, avail, ev, wire_len);
	case SNPS_BT_SEQNR:
		if (!d->has_topic)
			return fail(d, SNPS_R_NO_TOPIC, d->pos);
		d->seqnr.bits = 4;
		d->seqnr.value = value;
		d->has_seqnr = true;
		ev->kind = SNPS_EV_SEQNR;
		ev->seqnr = d->seqnr;
		ev->has_seqnr = true;
		return 0;
	case SNPS_BT_ACKSEQ:
	case SNPS_BT_NACKSEQ:
		if (!d->has_topic)
			return fail(d, SNPS_R_NO_TOPIC, d->pos);
		ev->kind = snps_submsg_type(p[0]) == SNPS_BT_ACKSEQ ? SNPS_EV_ACK : SNPS_EV_NACK;
		ev->seqnr.bits = 4;
		ev->seqnr.value = value;
		ev->has_seqnr = true;
		return 0;
	case SNPS_BT_ADDRESS:
		return decode_address(d, p, avail, ev, wire_len);
	default:
		/* TS, STATUS and the unassigned types: skipped as real receivers do. */
		len = snps_submsg_fixed_len(p[0]);
		if (avail < len)
			return fail(d, SNPS_R_TRUNCATED, d->pos);
		ev->kind = SNPS_EV_SKIPPED;
		ev->data = len > 1 ? p + 1 : NULL;
		ev->len = len - 1;
		*wire_len = len;
		return 0;
	}
}

static int decode_ext_ack(struct snps_decoder *d, const uint8_t *p, size_t avail, struct snps_event *ev,
			  size_t *wire_len)
{
	size_t seq_len = 0;
	int rc;

	if (!d->has_topic)
		return fail(d, SNPS_R_NO_TOPIC, d->pos);
	/* The marker and its SEQNR_* are two counted submessages (§4.2). */
	if (d->done + 1 >= d->count)
		return fail(d, SNPS_R_ACK_NO_SEQNR, d->pos);
	if (avail < 2)
		return fail(d, SNPS_R_COUNT_HIGH, d->pos + 1);
	rc = read_ext_seqnr(d, p + 1, avail - 1, &ev->seqnr, &seq_len);
	if (rc == EXT_SEQNR_NOT)
		return fail(d, SNPS_R_ACK_NO_SEQNR, d->pos + 1);
	if (rc == EXT_SEQNR_SHORT)
		return fail(d, SNPS_R_TRUNCATED, d->pos + 1);
	ev->kind = snps_submsg_value(p[0]) == SNPS_XT_ACK ? SNPS_EV_ACK : SNPS_EV_NACK;
	ev->has_seqnr = true;
	*wire_len = 1 + seq_len;
	return 0;
}

static int decode_ext(struct snps_decoder *d, const uint8_t *p, size_t avail, struct snps_event *ev,
		      size_t *wire_len, unsigned *used)
{
	size_t len;

	switch (snps_submsg_value(p[0])) {
	case SNPS_XT_ACK:
	case SNPS_XT_NACK:
		*used = 2;
		return decode_ext_ack(d, p, avail, ev, wire_len);
	case SNPS_XT_SEQNR_SMALL:
	case SNPS_XT_SEQNR_BIG:
	case SNPS_XT_SEQNR_HUGE:
		if (!d->has_topic)
			return fail(d, SNPS_R_NO_TOPIC, d->pos);
		if (read_ext_seqnr(d, p, avail, &d->seqnr, wire_len) != EXT_SEQNR_OK)
			return fail(d, SNPS_R_TRUNCATED, d->pos);
		d->has_seqnr = true;
		ev->kind = SNPS_EV_SEQNR;
		ev->seqnr = d->seqnr;
		ev->has_seqnr = true;
		return 0;
	case SNPS_XT_TOPIC:
		if (avail < 3)
			return fail(d, SNPS_R_TRUNCATED, d->pos);
		set_topic(d, snps_load16(p + 1, swapped(d)), true);
		ev->kind = SNPS_EV_TOPIC;
		*wire_len = 3;
		return 0;
	case SNPS_XT_TSDDS:
		if (avail < 9)
			return fail(d, SNPS_R_TRUNCATED, d->pos);
		ev->kind = SNPS_EV_SKIPPED;
		ev->data = p + 1;
		ev->len = 8;
		*wire_len = 9;
		return 0;
	case SNPS_XT_SECURE:
		if (!d->has_topic)
			return fail(d, SNPS_R_NO_TOPIC, d->pos);
		if (avail < 2)
			return fail(d, SNPS_R_TRUNCATED, d->pos);
		len = p[1];
		if (len < SNPS_SECURE_OVERHEAD)
			return fail(d, SNPS_R_BAD_SECURE, d->pos);
		if (avail < 2 + len)
			return fail(d, SNPS_R_TRUNCATED, d->pos);
		ev->kind = SNPS_EV_SECURE;
		ev->data = p + 2;
		ev->len = (uint32_t)len;
		attach_sample_context(d, ev);
		*wire_len = 2 + len;
		return 0;
	default:
		/* Real receivers consume only the header byte and then read the
		 * payload as submessages; nothing sensible can follow. */
		return fail(d, SNPS_R_UNKNOWN_EXT, d->pos);
	}
}

int snps_decoder_next(struct snps_decoder *d, struct snps_event *ret_ev)
{
	struct snps_event ev;
	const uint8_t *p;
	size_t avail, wire_len = 1;
	unsigned used = 1;
	int rc;

	if (d->reason != SNPS_R_NONE)
		return SNPS_EPROTO;
	if (d->done >= d->count) {
		if (d->pos < d->len && !(d->opts.flags & SNPS_DECODE_ALLOW_TRAILING))
			return fail(d, SNPS_R_COUNT_LOW, d->pos);
		return 0;
	}
	if (d->pos >= d->len)
		return fail(d, SNPS_R_COUNT_HIGH, d->pos);

	p = d->buf + d->pos;
	avail = d->len - d->pos;
	memset(&ev, 0, sizeof(ev));
	ev.hdr = p[0];
	ev.nibble = (uint8_t)snps_submsg_value(p[0]);
	ev.offset = (uint16_t)d->pos;
	if (snps_submsg_is_ext(p[0]))
		rc = decode_ext(d, p, avail, &ev, &wire_len, &used);
	else
		rc = decode_basic(d, p, avail, &ev, &wire_len);
	if (rc < 0)
		return rc;

	d->pos += wire_len;
	d->done += used;
	ev.wire_len = (uint16_t)wire_len;
	ev.domain = d->domain;
	ev.topic = d->topic;
	ev.topic_ext = d->topic_ext;
	ev.has_topic = d->has_topic;
	*ret_ev = ev;
	return 1;
}

int snps_decode(const uint8_t *buf, size_t len, const struct snps_decoder_options *opts, snps_visit_fn visit,
		void *ctx, struct snps_decode_error *err)
{
	struct snps_decoder d;
	struct snps_event ev;
	int rc;

	/* Pass 1: the whole frame must parse before anyone sees an event. */
	rc = snps_decoder_init(&d, buf, len, opts);
	while (rc == 0) {
		rc = snps_decoder_next(&d, &ev);
		if (rc == 0)
			break;
		if (rc == 1)
			rc = 0;
	}
	if (rc == SNPS_EPROTO && err != NULL) {
		err->reason = d.reason;
		err->offset = d.err_offset;
	}
	if (rc < 0 || visit == NULL)
		return rc;

	/* Pass 2: cannot fail unless the lookup changed its answers. */
	rc = snps_decoder_init(&d, buf, len, opts);
	while (rc == 0 && (rc = snps_decoder_next(&d, &ev)) == 1) {
		rc = visit(ctx, &ev);
		if (rc != 0)
			return rc;
	}
	if (rc == SNPS_EPROTO && err != NULL) {
		err->reason = d.reason;
		err->offset = d.err_offset;
	}
	return rc;
}
