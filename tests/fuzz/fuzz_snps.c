/* SPDX-License-Identifier: MIT */
/*
 * fuzz_snps.c - datagrams from a hostile peer through the SNPS decoder, and
 * back through the frame builder.
 *
 * OVERVIEW
 * Input: byte 0 = decoder flags (SNPS_DECODE_*, low 4 bits), byte 1 =
 * topic table (0: the discovery capture's, builtins + temperature (10) +
 * wide (11) + ext topic 0x123; 1: the probes', where ids 1..7 and 10 carry
 * 2-byte samples and 11 is wide; other values: sizes derived from the byte
 * and the topic id, some topics unknown), the rest = one datagram. Checked per input:
 *  - the iterator and the visitor agree (same result, reason and events),
 *    and every event lies inside the datagram;
 *  - an accepted frame, put back submessage by submessage with the
 *    low-level builder, gives the same bytes (the DATA length nibble
 *    normalised to len & 15, trailing bytes dropped) and decodes again;
 *  - put back with the high-level builder (the §4.7 sender rules), it
 *    decodes to the same samples, acks and nacks;
 *  - builtin samples decode, and encode back to the same bytes.
 * Seeds in corpus/fuzz_snps: every distinct payload of the captures of real
 * nodes (tests/snps/data) and the examples of snps-wire.md §14, each
 * prefixed with the two control bytes.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include <snps/snps.h>

#define MAX_EVENTS 256

static int lookup(void *ctx, uint8_t domain, uint16_t topic, uint32_t *ret_size)
{
	static const uint32_t synthetic[16] = {0, 1, 2, 4, 6, 18, 37, 122, 234, 16, 15, 3, 28, 68, 8, 5};
	unsigned table = *(const uint8_t *)ctx;

	(void)domain;
	switch (table) {
	case 0:
		if (topic == 10 || topic == 11 || topic == 0x123) {
			*ret_size = topic == 10 ? 4 : topic == 11 ? 37 : 2;
			return 0;
		}
		return snps_builtin_lookup(NULL, domain, topic, ret_size);
	case 1:
		/* probe_bigid's topic went out as 10 with a 2-byte sample. */
		if ((topic >= 1 && topic <= 7) || topic == 10) {
			*ret_size = 2;
			return 0;
		}
		if (topic == 11) {
			*ret_size = 37;
			return 0;
		}
		return -1;
	default:
		if ((topic + table) % 7 == 0)
			return -1;
		*ret_size = synthetic[(topic ^ table) & 15];
		return 0;
	}
}

struct collected {
	struct snps_event ev[MAX_EVENTS];
	size_t n;
};

static int collect(void *ctx, const struct snps_event *ev)
{
	struct collected *c = ctx;

	FUZZ_CHECK(c->n < MAX_EVENTS);
	c->ev[c->n++] = *ev;
	return 0;
}

static bool same_addr(bool ha, const struct snps_addr *a, bool hb, const struct snps_addr *b)
{
	return ha == hb && (!ha || snps_addr_equal(a, b));
}

static bool same_seqnr(bool ha, const struct snps_seqnr *a, bool hb, const struct snps_seqnr *b)
{
	return ha == hb && (!ha || (a->bits == b->bits && a->value == b->value));
}

/* The events that carry meaning beyond the context they set. */
static bool is_payload(const struct snps_event *ev)
{
	return ev->kind == SNPS_EV_DATA || ev->kind == SNPS_EV_DATA_SKIPPED || ev->kind == SNPS_EV_SECURE ||
	       ev->kind == SNPS_EV_ACK || ev->kind == SNPS_EV_NACK;
}

static bool same_payload(const struct snps_event *a, const struct snps_event *b)
{
	if (a->kind != b->kind || a->domain != b->domain || a->topic != b->topic)
		return false;
	if (a->kind == SNPS_EV_ACK || a->kind == SNPS_EV_NACK)
		return same_seqnr(true, &a->seqnr, true, &b->seqnr);
	return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0) &&
	       same_seqnr(a->has_seqnr, &a->seqnr, b->has_seqnr, &b->seqnr) &&
	       same_addr(a->has_addr, &a->addr, b->has_addr, &b->addr);
}

static bool same_event(const struct snps_event *a, const struct snps_event *b)
{
	return a->kind == b->kind && a->hdr == b->hdr && a->nibble == b->nibble && a->offset == b->offset &&
	       a->wire_len == b->wire_len && a->domain == b->domain && a->topic == b->topic &&
	       a->topic_ext == b->topic_ext && a->has_topic == b->has_topic && a->data == b->data &&
	       a->len == b->len && same_seqnr(a->has_seqnr, &a->seqnr, b->has_seqnr, &b->seqnr) &&
	       same_addr(a->has_addr, &a->addr, b->has_addr, &b->addr);
}

static void check_event(const struct snps_event *ev, const uint8_t *buf, size_t len)
{
	FUZZ_CHECK((size_t)ev->offset + ev->wire_len <= len);
	FUZZ_CHECK(ev->hdr == buf[ev->offset]);
	if (ev->len > 0) {
		FUZZ_CHECK(ev->data > buf + ev->offset);
		FUZZ_CHECK(ev->data + ev->len <= buf + ev->offset + ev->wire_len);
	} else {
		FUZZ_CHECK(ev->data == NULL);
	}
	FUZZ_CHECK(ev->domain <= 15);
}

/* Put one event back with the low-level builder. */
static int put_event(struct snps_frame *f, const struct snps_event *ev)
{
	switch (ev->kind) {
	case SNPS_EV_DOMAIN:
		return snps_frame_put_domain(f, ev->domain);
	case SNPS_EV_TOPIC:
		return ev->topic_ext ? snps_frame_put_topic_ext(f, ev->topic)
				     : snps_frame_put_topic(f, ev->topic);
	case SNPS_EV_DATA:
	case SNPS_EV_DATA_SKIPPED:
		return snps_frame_put_data(f, ev->data, ev->len);
	case SNPS_EV_SECURE:
		return snps_frame_put_secure(f, ev->data, ev->len);
	case SNPS_EV_SEQNR:
		return snps_frame_put_seqnr(f, &ev->seqnr);
	case SNPS_EV_ACK:
		return snps_frame_put_ack(f, &ev->seqnr);
	case SNPS_EV_NACK:
		return snps_frame_put_nack(f, &ev->seqnr);
	case SNPS_EV_ADDRESS:
		return snps_frame_put_address(f, &ev->addr);
	case SNPS_EV_SKIPPED:
		return snps_frame_put_skippable(f, ev->hdr, ev->data, ev->len);
	}
	return -1;
}

/* Put one payload event back with the §4.7 sender rules. */
static int add_event(struct snps_frame *f, const struct snps_event *ev)
{
	struct snps_sample_meta m = {
	    .domain = ev->domain,
	    .topic = ev->topic,
	    .addr = ev->has_addr ? &ev->addr : NULL,
	    .seqnr = ev->has_seqnr ? &ev->seqnr : NULL,
	};

	switch (ev->kind) {
	case SNPS_EV_DATA:
	case SNPS_EV_DATA_SKIPPED:
		return snps_frame_add_sample(f, &m, ev->data, ev->len);
	case SNPS_EV_SECURE:
		return snps_frame_add_secure(f, &m, ev->data, ev->len);
	case SNPS_EV_ACK:
		return snps_frame_add_ack(f, ev->domain, ev->topic, &ev->seqnr);
	case SNPS_EV_NACK:
		return snps_frame_add_nack(f, ev->domain, ev->topic, &ev->seqnr);
	default:
		return 0;
	}
}

static void check_builtin(const struct snps_event *ev)
{
	uint8_t again[SNPS_MANAGEMENT_SIZE];
	uint32_t size;

	if (ev->kind != SNPS_EV_DATA || snps_builtin_size(ev->topic, &size) < 0 || size != ev->len)
		return;
	FUZZ_CHECK(snps_sample_validate(snps_builtin_layout(ev->topic), ev->data, ev->len, 0) == 0);
	switch (ev->topic) {
	case SNPS_BUILTIN_PARTICIPANT: {
		struct snps_participant p;
		FUZZ_CHECK(snps_participant_decode(ev->data, ev->len, &p) == 0);
		FUZZ_CHECK(snps_participant_encode(&p, again, sizeof(again)) == 0);
		break;
	}
	case SNPS_BUILTIN_PUBLICATION:
	case SNPS_BUILTIN_SUBSCRIPTION: {
		struct snps_endpoint e;
		FUZZ_CHECK(snps_endpoint_decode(ev->data, ev->len, &e) == 0);
		FUZZ_CHECK(snps_endpoint_encode(&e, again, sizeof(again)) == 0);
		break;
	}
	case SNPS_BUILTIN_LOCATION: {
		struct snps_location l;
		FUZZ_CHECK(snps_location_decode(ev->data, ev->len, &l) == 0);
		FUZZ_CHECK(snps_location_encode(&l, again, sizeof(again)) == 0);
		break;
	}
	case SNPS_BUILTIN_MANAGEMENT: {
		struct snps_management m;
		FUZZ_CHECK(snps_management_decode(ev->data, ev->len, &m) == 0);
		FUZZ_CHECK(snps_management_encode(&m, again, sizeof(again)) == 0);
		break;
	}
	case SNPS_BUILTIN_TOPIC: {
		struct snps_dcpstopic t;
		FUZZ_CHECK(snps_dcpstopic_decode(ev->data, ev->len, &t) == 0);
		FUZZ_CHECK(snps_dcpstopic_encode(&t, again, sizeof(again)) == 0);
		/* The name stops at the first NUL; the key always survives. */
		FUZZ_CHECK(memcmp(again, ev->data, 2) == 0);
		return;
	}
	default:
		return;
	}
	FUZZ_CHECK(memcmp(again, ev->data, ev->len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snps_decoder_options o;
	struct snps_decode_error err = {SNPS_R_NONE, 0};
	struct snps_frame_options fo;
	struct snps_decoder d;
	struct snps_frame f;
	struct collected *it, *vis, *again;
	uint8_t table, *buf = NULL, *out = NULL, *expect = NULL;
	size_t len, out_cap, out_len, consumed = 2;
	int rc, vrc;

	if (size < 2 || size - 2 > SNPS_DATAGRAM_MAX)
		return 0;
	table = data[1];
	len = size - 2;
	/* An exact-size copy: any read past the datagram is an ASan report. */
	buf = malloc(len > 0 ? len : 1);
	it = calloc(1, sizeof(*it));
	vis = calloc(1, sizeof(*vis));
	again = calloc(1, sizeof(*again));
	FUZZ_CHECK(buf != NULL && it != NULL && vis != NULL && again != NULL);
	memcpy(buf, data + 2, len);

	snps_decoder_options_init(&o);
	o.lookup = lookup;
	o.lookup_ctx = &table;
	o.flags = data[0] & 0xFu;

	/* Iterator. */
	rc = snps_decoder_init(&d, buf, len, &o);
	while (rc == 0) {
		FUZZ_CHECK(it->n < MAX_EVENTS);
		rc = snps_decoder_next(&d, &it->ev[it->n]);
		if (rc != 1)
			break;
		check_event(&it->ev[it->n], buf, len);
		consumed = (size_t)it->ev[it->n].offset + it->ev[it->n].wire_len;
		it->n++;
		rc = 0;
	}
	FUZZ_CHECK(rc == 0 || rc == SNPS_EPROTO);
	FUZZ_CHECK((rc == 0) == (snps_decoder_reason(&d) == SNPS_R_NONE));
	FUZZ_CHECK(snps_decoder_offset(&d) <= len);
	FUZZ_CHECK(snps_reason_str(snps_decoder_reason(&d)) != NULL);

	/* Visitor: same verdict; events only for an accepted frame. */
	vrc = snps_decode(buf, len, &o, collect, vis, &err);
	FUZZ_CHECK(vrc == rc);
	if (rc != 0) {
		FUZZ_CHECK(vis->n == 0);
		FUZZ_CHECK(err.reason == snps_decoder_reason(&d) && err.offset == snps_decoder_offset(&d));
		goto out;
	}
	FUZZ_CHECK(vis->n == it->n);
	for (size_t i = 0; i < it->n; i++)
		FUZZ_CHECK(same_event(&vis->ev[i], &it->ev[i]));
	FUZZ_CHECK(len >= 2 && consumed <= len);
	if (!(o.flags & SNPS_DECODE_ALLOW_TRAILING))
		FUZZ_CHECK(consumed == len);

	/* Low level: the same bytes, with the DATA nibble as senders write it. */
	out_cap = 4 * len + 64;
	out = malloc(out_cap);
	expect = malloc(consumed);
	FUZZ_CHECK(out != NULL && expect != NULL);
	memcpy(expect, buf, consumed);
	snps_frame_options_init(&fo);
	fo.max_frame = (uint32_t)out_cap + 1;
	fo.flags = SNPS_FRAME_EXT_TOPICS | ((o.flags & SNPS_DECODE_SWAPPED) ? SNPS_FRAME_SWAPPED : 0);
	FUZZ_CHECK(snps_frame_init(&f, out, out_cap, &fo) == 0);
	for (size_t i = 0; i < it->n; i++) {
		const struct snps_event *ev = &it->ev[i];

		FUZZ_CHECK(put_event(&f, ev) == 0);
		if (ev->kind == SNPS_EV_DATA)
			expect[ev->offset] = snps_submsg_basic(SNPS_BT_DATA, ev->len & 0xFu);
		check_builtin(ev);
	}
	FUZZ_CHECK(snps_frame_finish(&f, &out_len) == 0);
	FUZZ_CHECK(out_len == consumed);
	FUZZ_CHECK(memcmp(out, expect, consumed) == 0);
	o.flags &= ~SNPS_DECODE_ALLOW_TRAILING;
	FUZZ_CHECK(snps_decode(out, out_len, &o, NULL, NULL, NULL) == 0);

	/* High level: the same samples, acks and nacks. */
	FUZZ_CHECK(snps_frame_init(&f, out, out_cap, &fo) == 0);
	for (size_t i = 0; i < it->n; i++) {
		rc = add_event(&f, &it->ev[i]);
		/* Repeated context (one ADDRESS per sample) may outgrow a frame. */
		if (rc == SNPS_EMSGSIZE || rc == SNPS_ENOSPC)
			goto out;
		FUZZ_CHECK(rc == 0);
	}
	FUZZ_CHECK(snps_frame_finish(&f, &out_len) == 0);
	FUZZ_CHECK(snps_decode(out, out_len, &o, collect, again, NULL) == 0);
	{
		size_t a = 0, b = 0;

		for (;;) {
			while (a < it->n && !is_payload(&it->ev[a]))
				a++;
			while (b < again->n && !is_payload(&again->ev[b]))
				b++;
			if (a == it->n || b == again->n)
				break;
			FUZZ_CHECK(same_payload(&it->ev[a], &again->ev[b]));
			a++;
			b++;
		}
		FUZZ_CHECK(a == it->n && b == again->n);
	}

out:
	free(expect);
	free(out);
	free(again);
	free(vis);
	free(it);
	free(buf);
	return 0;
}
