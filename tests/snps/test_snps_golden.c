/* SPDX-License-Identifier: MIT */
/*
 * test_snps_golden.c - every frame captured from real sDDS nodes must decode
 * to what the hand decode (NAME.decoded.txt) and the nodes' own logs say,
 * and encoding the decoded content must give back the same bytes.
 *
 * OVERVIEW
 * The topic tables come from the topic files the captured nodes were
 * generated from (data/topics/NAME.xml), the builtins from the library.
 * The lookup matches by topic id only, as real receivers do (§4.4). Each
 * capture is one CMocka test; a last test checks that no capture file in
 * the data directory was left out.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"
#include <snps/snps.h>

#define MAX_TOPICS 4
#define MAX_SAMPLES 128
#define MAX_ACKS 32

/* The receiver's topic table. */
struct table {
	const struct cap_topic *topics[MAX_TOPICS];
	size_t n_topics;
	bool builtins;
	/* Applied to declared ids: 0x0F models the sender's truncation (§4.4). */
	uint16_t id_mask;
};

struct sample_rec {
	size_t frame; /* index into the capture's frames */
	uint8_t domain;
	uint16_t topic;
	uint8_t data[CAP_FRAME_MAX];
	uint32_t len;
	bool has_seqnr;
	struct snps_seqnr seqnr;
	bool has_addr;
	struct snps_addr addr;
};

struct ack_rec {
	size_t frame;
	uint8_t domain;
	uint16_t topic;
	struct snps_seqnr seqnr;
};

struct result {
	struct capture cap;
	struct sample_rec samples[MAX_SAMPLES];
	size_t n_samples;
	struct ack_rec acks[MAX_ACKS];
	size_t n_acks;
};

static int table_lookup(void *ctx, uint8_t domain, uint16_t topic, uint32_t *ret_size)
{
	const struct table *t = ctx;

	for (size_t i = 0; i < t->n_topics; i++) {
		if ((t->topics[i]->id & t->id_mask) == topic) {
			*ret_size = t->topics[i]->size;
			return 0;
		}
	}
	if (t->builtins)
		return snps_builtin_lookup(NULL, domain, topic, ret_size);
	return -1;
}

static const struct cap_topic *table_topic(const struct table *t, uint16_t topic)
{
	for (size_t i = 0; i < t->n_topics; i++)
		if ((t->topics[i]->id & t->id_mask) == topic)
			return t->topics[i];
	return NULL;
}

static struct cap_topic *load_topic(const char *file)
{
	struct cap_topic *t = malloc(sizeof(*t));

	assert_non_null(t);
	assert_int_equal(cap_topic_load(file, t), 0);
	return t;
}

/* ---- comparison with NAME.decoded.txt ---- */

static void check_builtin_suffix(const struct snps_event *ev, const char *text)
{
	const char *arrow = strstr(text, "-> ");
	unsigned key, part, topic;

	if (arrow == NULL)
		return;
	arrow += 3;
	if (sscanf(arrow, "participant key=0x%x", &key) == 1) {
		struct snps_participant p;

		assert_int_equal(ev->topic, SNPS_BUILTIN_PARTICIPANT);
		assert_int_equal(snps_participant_decode(ev->data, ev->len, &p), 0);
		assert_int_equal(p.key, key);
	} else if (sscanf(arrow, "key=0x%x participant=0x%x topic_id=%u", &key, &part, &topic) == 3) {
		struct snps_endpoint e;

		assert_true(ev->topic == SNPS_BUILTIN_PUBLICATION || ev->topic == SNPS_BUILTIN_SUBSCRIPTION);
		assert_int_equal(snps_endpoint_decode(ev->data, ev->len, &e), 0);
		assert_int_equal(e.key, key);
		assert_int_equal(e.participant, part);
		assert_int_equal(e.topic_id, topic);
	} else {
		fail_msg("unhandled builtin decode: %s", arrow);
	}
}

static void check_line(const struct snps_event *ev, const struct cap_line *l, const struct cap_frame *fr)
{
	const char *t = l->text;
	char hex[2 * CAP_FRAME_MAX + 1], cast[16], type[16], addr[64];
	uint8_t bytes[CAP_FRAME_MAX];
	unsigned a, b;

	assert_int_equal(ev->hdr, l->hdr[0]);
	assert_int_equal(fr->bytes[ev->offset], l->hdr[0]);
	if (sscanf(t, "DOMAIN %u", &a) == 1) {
		assert_int_equal(ev->kind, SNPS_EV_DOMAIN);
		assert_int_equal(ev->domain, a);
	} else if (sscanf(t, "TOPIC %u", &a) == 1) {
		assert_int_equal(ev->kind, SNPS_EV_TOPIC);
		assert_int_equal(ev->topic, a);
		assert_false(ev->topic_ext);
	} else if (sscanf(t, "DATA nibble=%u used=%u: %1024s", &a, &b, hex) == 3) {
		assert_int_equal(ev->kind, SNPS_EV_DATA);
		assert_int_equal(ev->nibble, a);
		assert_int_equal(ev->len, b);
		assert_int_equal(cap_hex(hex, bytes, sizeof(bytes)), (int)b);
		assert_memory_equal(ev->data, bytes, b);
		/* The sample lies right after the DATA header in the datagram. */
		assert_ptr_equal(ev->data, fr->bytes + ev->offset + 1);
		check_builtin_suffix(ev, t);
	} else if (sscanf(t, "ADDRESS len=%u cast=%15s type=%15s addr=%63s", &a, cast, type, addr) == 4) {
		uint8_t want[16], got[16];

		assert_int_equal(ev->kind, SNPS_EV_ADDRESS);
		assert_int_equal(l->n_hdr, 2);
		assert_int_equal(fr->bytes[ev->offset + 1], l->hdr[1]);
		assert_int_equal(l->hdr[1], (ev->addr.family << 4) | ev->addr.cast);
		assert_int_equal(ev->addr.len, a);
		assert_string_equal(type, "IPv6");
		assert_int_equal(ev->addr.family, SNPS_FAMILY_IPV6);
		if (strcmp(cast, "multi") == 0) {
			assert_int_equal(ev->addr.cast, SNPS_CAST_MULTICAST);
			assert_int_equal(cap_addr_parse(addr, want), 0);
			assert_int_equal(snps_addr_group(&ev->addr, got), 0);
			assert_memory_equal(got, want, 16);
		} else {
			assert_string_equal(cast, "uni");
			assert_int_equal(ev->addr.cast, SNPS_CAST_UNICAST);
		}
	} else if (sscanf(t, "ext SEQNR_BIG %u", &a) == 1) {
		assert_int_equal(ev->kind, SNPS_EV_SEQNR);
		assert_int_equal(ev->seqnr.bits, 16);
		assert_int_equal(ev->seqnr.value, a);
	} else if (sscanf(t, "SEQNR %u", &a) == 1) {
		assert_int_equal(ev->kind, SNPS_EV_SEQNR);
		assert_int_equal(ev->seqnr.bits, 4);
		assert_int_equal(ev->seqnr.value, a);
	} else if (sscanf(t, "ACKSEQ %u", &a) == 1) {
		assert_int_equal(ev->kind, SNPS_EV_ACK);
		assert_int_equal(ev->seqnr.bits, 4);
		assert_int_equal(ev->seqnr.value, a);
	} else {
		fail_msg("unhandled line in decoded file: %s", t);
	}
}

static int count_visit(void *ctx, const struct snps_event *ev)
{
	unsigned *n = ctx;

	assert_true(ev->kind >= SNPS_EV_DOMAIN && ev->kind <= SNPS_EV_SKIPPED);
	(*n)++;
	return 0;
}

/* Encode the decoded content again with the §4.7 sender rules. */
static void reencode(const struct snps_event *evs, size_t n, const struct cap_frame *fr)
{
	uint8_t buf[CAP_FRAME_MAX];
	struct snps_frame f;
	size_t len;

	assert_int_equal(snps_frame_init(&f, buf, sizeof(buf), NULL), 0);
	for (size_t i = 0; i < n; i++) {
		const struct snps_event *ev = &evs[i];
		struct snps_sample_meta m = {
		    .domain = ev->domain,
		    .topic = ev->topic,
		    .addr = ev->has_addr ? &ev->addr : NULL,
		    .seqnr = ev->has_seqnr ? &ev->seqnr : NULL,
		};

		switch (ev->kind) {
		case SNPS_EV_DATA:
			assert_int_equal(snps_frame_add_sample(&f, &m, ev->data, ev->len), 0);
			break;
		case SNPS_EV_ACK:
			assert_int_equal(snps_frame_add_ack(&f, ev->domain, ev->topic, &ev->seqnr), 0);
			break;
		case SNPS_EV_NACK:
			assert_int_equal(snps_frame_add_nack(&f, ev->domain, ev->topic, &ev->seqnr), 0);
			break;
		default:
			/* Context submessages: the builder derives them itself. */
			break;
		}
	}
	/* The count is written last (§3). */
	assert_int_equal(buf[1], 0);
	assert_int_equal(snps_frame_finish(&f, &len), 0);
	assert_int_equal(len, fr->len);
	assert_memory_equal(buf, fr->bytes, len);
}

static void run_frame(const struct table *tab, struct result *res, size_t idx)
{
	const struct cap_frame *fr = &res->cap.frames[idx];
	const struct cap_decoded *dec = &res->cap.decoded[idx];
	struct snps_decoder_options o;
	struct snps_event evs[CAP_LINES_MAX];
	struct snps_decoder d;
	size_t n = 0;
	unsigned visited = 0;
	int rc;

	assert_int_equal(fr->no, dec->no);
	assert_int_equal(dec->version, 1);
	assert_int_equal(fr->bytes[0], dec->version);
	assert_int_equal(fr->bytes[1], dec->submsgs);
	/* Real senders never exceed 127 bytes with the default buffer (§6.6). */
	assert_true(fr->len < SNPS_MAX_FRAME_DEFAULT);

	snps_decoder_options_init(&o);
	o.lookup = table_lookup;
	o.lookup_ctx = (void *)tab;
	assert_int_equal(snps_decoder_init(&d, fr->bytes, fr->len, &o), 0);
	assert_int_equal(snps_decoder_count(&d), dec->submsgs);
	while ((rc = snps_decoder_next(&d, &evs[n])) == 1) {
		assert_true(n < dec->n_lines);
		check_line(&evs[n], &dec->lines[n], fr);
		n++;
	}
	if (rc != 0)
		fail_msg("frame #%u rejected: %s at %zu", fr->no, snps_reason_str(snps_decoder_reason(&d)),
			 snps_decoder_offset(&d));
	assert_int_equal(n, dec->n_lines);
	/* Every byte consumed: the decoder refuses leftovers by default. */
	assert_int_equal(evs[n - 1].offset + evs[n - 1].wire_len, fr->len);

	for (size_t i = 0; i < n; i++) {
		const struct snps_event *ev = &evs[i];

		if (ev->kind == SNPS_EV_DATA) {
			struct sample_rec *s = &res->samples[res->n_samples++];
			const struct cap_topic *ct = table_topic(tab, ev->topic);

			assert_true(res->n_samples <= MAX_SAMPLES);
			s->frame = idx;
			s->domain = ev->domain;
			s->topic = ev->topic;
			memcpy(s->data, ev->data, ev->len);
			s->len = ev->len;
			s->has_seqnr = ev->has_seqnr;
			s->seqnr = ev->seqnr;
			s->has_addr = ev->has_addr;
			s->addr = ev->addr;
			/* The sample matches its topic's layout. */
			if (ct != NULL) {
				assert_int_equal(snps_sample_validate(&ct->layout, ev->data, ev->len,
								      SNPS_VALIDATE_BOOL01),
						 0);
				assert_int_equal(ev->domain, ct->domain);
			} else {
				const struct snps_layout *bl = snps_builtin_layout(ev->topic);

				assert_non_null(bl);
				assert_int_equal(ev->domain, SNPS_BUILTIN_DOMAIN);
				assert_int_equal(snps_sample_validate(bl, ev->data, ev->len, 0), 0);
			}
		} else if (ev->kind == SNPS_EV_ACK) {
			struct ack_rec *a = &res->acks[res->n_acks++];

			assert_true(res->n_acks <= MAX_ACKS);
			a->frame = idx;
			a->domain = ev->domain;
			a->topic = ev->topic;
			a->seqnr = ev->seqnr;
		}
	}

	/* The visitor sees the same events; strict nibble checking passes too,
	 * since real senders write len & 15. */
	assert_int_equal(snps_decode(fr->bytes, fr->len, &o, count_visit, &visited, NULL), 0);
	assert_int_equal(visited, n);
	o.flags = SNPS_DECODE_STRICT_NIBBLE;
	assert_int_equal(snps_decode(fr->bytes, fr->len, &o, NULL, NULL, NULL), 0);

	reencode(evs, n, fr);
}

static struct result *run_capture(const char *name, const struct table *tab)
{
	struct result *res = calloc(1, sizeof(*res));

	assert_non_null(res);
	assert_int_equal(cap_load(name, &res->cap), 0);
	assert_true(res->cap.n_frames > 0);
	assert_int_equal(res->cap.n_frames, res->cap.n_decoded);
	for (size_t i = 0; i < res->cap.n_frames; i++)
		run_frame(tab, res, i);
	return res;
}

static void result_free(struct result *res)
{
	cap_free(&res->cap);
	free(res);
}

static int64_t field_int(const struct cap_topic *t, const struct sample_rec *s, const char *name)
{
	int idx = cap_topic_field(t, name);
	int64_t v;

	assert_true(idx >= 0);
	assert_int_equal(snps_sample_get_int(&t->layout, s->data, s->len, (uint32_t)idx, &v), 0);
	return v;
}

static uint64_t field_uint(const struct cap_topic *t, const struct sample_rec *s, const char *name)
{
	int idx = cap_topic_field(t, name);
	uint64_t v;

	assert_true(idx >= 0);
	assert_int_equal(snps_sample_get_uint(&t->layout, s->data, s->len, (uint32_t)idx, &v), 0);
	return v;
}

/* Values printed by a node log: the number (in `base`) after `prefix` on
 * every line that starts with it. */
static size_t log_values(const char *file, const char *prefix, int base, long *out, size_t cap)
{
	char *text = cap_read_file(file), *save = NULL;
	size_t n = 0, plen = strlen(prefix);

	assert_non_null(text);
	for (char *line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		char *end;

		if (strncmp(line, prefix, plen) != 0)
			continue;
		assert_true(n < cap);
		out[n++] = strtol(line + plen, &end, base);
		assert_true(end != line + plen);
	}
	free(text);
	return n;
}

/* Lines of a node log that contain `text`. */
static size_t log_count(const char *file, const char *text)
{
	char *all = cap_read_file(file), *save = NULL;
	size_t n = 0;

	assert_non_null(all);
	for (char *line = strtok_r(all, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, text) != NULL)
			n++;
	free(all);
	return n;
}

/* ---- the captures ---- */

/* Temperature samples as the subscriber's log shows them (§6.5). */
static void check_temperature_log(const struct result *res, const struct cap_topic *temp, const char *log)
{
	long dev[64], val[64];
	size_t n_dev = log_values(log, "   device => ", 16, dev, 64);
	size_t n_val = log_values(log, "   value => ", 10, val, 64);
	size_t k = 0;

	assert_int_equal(n_dev, n_val);
	assert_true(n_dev > 0);
	for (size_t i = 0; i < res->n_samples; i++) {
		const struct sample_rec *s = &res->samples[i];

		if (s->topic != temp->id)
			continue;
		assert_true(k < n_dev);
		assert_int_equal(field_uint(temp, s, "device"), dev[k]);
		assert_int_equal(field_int(temp, s, "value"), val[k]);
		/* The device is the publisher's node id: its MAC-derived address. */
		assert_int_equal(field_uint(temp, s, "device"),
				 cap_addr_low16(res->cap.frames[s->frame].src));
		k++;
	}
	assert_int_equal(k, n_dev);
}

static void test_basic(void **state)
{
	struct cap_topic *temp = load_topic("temperature.xml");
	struct table tab = {.topics = {temp}, .n_topics = 1, .id_mask = 0xFFFF};
	struct result *res = run_capture("basic", &tab);

	assert_int_equal(temp->domain, 1);
	assert_int_equal(temp->id, 0xA);
	assert_int_equal(temp->size, 4);
	check_temperature_log(res, temp, "basic.sub.log");
	/* Static unicast from an unbound (ephemeral) port to 23234 (§9.2). */
	for (size_t i = 0; i < res->cap.n_frames; i++) {
		assert_int_equal(res->cap.frames[i].dport, SNPS_PORT);
		assert_int_equal(res->cap.frames[i].hlim, 64);
	}
	result_free(res);
	free(temp);
}

static void check_group(const char *dst, uint8_t group)
{
	uint8_t a[16], b[16];
	struct snps_addr sa;

	snps_addr_link_group(group, &sa);
	assert_int_equal(snps_addr_group(&sa, a), 0);
	assert_int_equal(cap_addr_parse(dst, b), 0);
	assert_memory_equal(a, b, 16);
}

static void test_discovery(void **state)
{
	struct cap_topic *temp = load_topic("temperature.xml");
	struct table tab = {.topics = {temp}, .n_topics = 1, .builtins = true, .id_mask = 0xFFFF};
	struct result *res = run_capture("discovery", &tab);
	struct snps_addr ff02_30, ff02_10;
	size_t n_part = 0, n_pub = 0, n_sub = 0;

	snps_addr_link_group(SNPS_GROUP_ENDPOINT, &ff02_30);
	snps_addr_link_group(SNPS_GROUP_DATA, &ff02_10);
	for (size_t i = 0; i < res->cap.n_frames; i++) {
		const struct cap_frame *fr = &res->cap.frames[i];

		/* Everything goes multicast, port 23254 to 23254, hop limit 1 (§9.5). */
		assert_int_equal(fr->sport, SNPS_MCAST_PORT);
		assert_int_equal(fr->dport, SNPS_MCAST_PORT);
		assert_int_equal(fr->hlim, 1);
	}
	for (size_t i = 0; i < res->n_samples; i++) {
		const struct sample_rec *s = &res->samples[i];
		const struct cap_frame *fr = &res->cap.frames[s->frame];
		int sender = cap_addr_low16(fr->src);
		struct snps_participant p;
		struct snps_endpoint e;
		uint8_t again[SNPS_ENDPOINT_SIZE];

		switch (s->topic) {
		case SNPS_BUILTIN_PARTICIPANT:
			/* Sent to ff02::20, advertising ff02::30, key = own node id. */
			check_group(fr->dst, SNPS_GROUP_PARTICIPANT);
			assert_true(s->has_addr);
			assert_true(snps_addr_equal(&s->addr, &ff02_30));
			assert_int_equal(snps_participant_decode(s->data, s->len, &p), 0);
			assert_int_equal(p.key, sender);
			assert_int_equal(snps_participant_encode(&p, again, sizeof(again)), 0);
			assert_memory_equal(again, s->data, s->len);
			n_part++;
			break;
		case SNPS_BUILTIN_PUBLICATION:
			/* Sent to ff02::30 without ADDRESS: {writer 0, node, topic}. */
			check_group(fr->dst, SNPS_GROUP_ENDPOINT);
			assert_false(s->has_addr);
			assert_int_equal(snps_endpoint_decode(s->data, s->len, &e), 0);
			assert_int_equal(e.key, 0);
			assert_int_equal(e.participant, sender);
			assert_int_equal(e.topic_id, temp->id);
			assert_int_equal(snps_endpoint_encode(&e, again, sizeof(again)), 0);
			assert_memory_equal(again, s->data, s->len);
			n_pub++;
			break;
		case SNPS_BUILTIN_SUBSCRIPTION:
			/* Sent to ff02::30 asking for data on ff02::10: {reader 0, node, topic}. */
			check_group(fr->dst, SNPS_GROUP_ENDPOINT);
			assert_true(s->has_addr);
			assert_true(snps_addr_equal(&s->addr, &ff02_10));
			assert_int_equal(snps_endpoint_decode(s->data, s->len, &e), 0);
			assert_int_equal(e.key, 0);
			assert_int_equal(e.participant, sender);
			assert_int_equal(e.topic_id, temp->id);
			assert_int_equal(snps_endpoint_encode(&e, again, sizeof(again)), 0);
			assert_memory_equal(again, s->data, s->len);
			n_sub++;
			break;
		default:
			/* User data goes where the subscription asked: ff02::10. */
			assert_int_equal(s->topic, temp->id);
			check_group(fr->dst, SNPS_GROUP_DATA);
			assert_false(s->has_addr);
			break;
		}
	}
	assert_true(n_part > 0 && n_pub > 0 && n_sub > 0);
	/* Each Publication is answered by one Subscription (§10.3). */
	assert_int_equal(n_pub, n_sub);
	check_temperature_log(res, temp, "discovery.sub.log");
	/* The first of the publisher's writes had no destination yet (§10.3). */
	assert_int_equal(log_count("discovery.pub.log", "Send a temperature sample"),
			 res->n_samples - n_part - n_pub - n_sub + 1);
	result_free(res);
	free(temp);
}

/* One uint16 "value" per sample, as the subscriber logged it. */
static void check_value_log(const struct result *res, const struct cap_topic *t, const char *log)
{
	long vals[64];
	size_t n = log_values(log, "received value=0x", 16, vals, 64);

	assert_int_equal(n, res->n_samples);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(res->samples[i].topic, t->id & 0xF);
		assert_int_equal(field_uint(t, &res->samples[i], "value"), vals[i]);
	}
}

static void test_probe_tiny(void **state)
{
	struct cap_topic *t = load_topic("tiny.xml");
	struct table tab = {.topics = {t}, .n_topics = 1, .id_mask = 0xFFFF};
	struct result *res = run_capture("probe_tiny", &tab);

	/* E1: domain 1, topic 1 (the DCPSParticipant id, no builtins here). */
	assert_int_equal(t->domain, 1);
	assert_int_equal(t->id, 1);
	check_value_log(res, t, "probe_tiny.sub.log");
	result_free(res);
	free(t);
}

static void test_probe_zero(void **state)
{
	struct cap_topic *t = load_topic("zero.xml");
	struct table tab = {.topics = {t}, .n_topics = 1, .id_mask = 0xFFFF};
	struct result *res = run_capture("probe_zero", &tab);

	/* E15: domain 0 is never written: the frame starts with the TOPIC. */
	assert_int_equal(t->domain, 0);
	for (size_t i = 0; i < res->cap.n_frames; i++) {
		assert_int_equal(res->cap.frames[i].bytes[1], 2);
		assert_int_equal(res->cap.frames[i].bytes[2], 0x41);
		assert_int_equal(res->samples[i].domain, 0);
	}
	check_value_log(res, t, "probe_zero.sub.log");
	result_free(res);
	free(t);
}

static void test_probe_bigid(void **state)
{
	struct cap_topic *t = load_topic("bigid.xml");
	struct table sub_table = {.topics = {t}, .n_topics = 1, .id_mask = 0xFFFF};
	struct table wire_table = {.topics = {t}, .n_topics = 1, .id_mask = 0x0F};
	struct snps_decoder_options o;
	struct snps_decode_error err;
	struct capture cap;
	struct result *res;
	long vals[16];
	size_t n;

	/* Declared "1A" (26): the sender truncated it to 10 (E7). */
	assert_int_equal(t->id, 0x1A);
	assert_int_equal(cap_load("probe_bigid", &cap), 0);
	snps_decoder_options_init(&o);
	o.lookup = table_lookup;
	o.lookup_ctx = &sub_table;
	for (size_t i = 0; i < cap.n_frames; i++) {
		struct snps_decoder d;
		struct snps_event ev;
		int rc;

		/* The subscriber, which knows topic 26, gets nothing. Strictly:
		 * DATA for an unknown topic; like a real receiver: skipped. */
		assert_int_equal(snps_decode(cap.frames[i].bytes, cap.frames[i].len, &o, NULL, NULL, &err),
				 SNPS_EPROTO);
		assert_int_equal(err.reason, SNPS_R_UNKNOWN_TOPIC);
		assert_int_equal(err.offset, 4);
		o.flags = SNPS_DECODE_SKIP_UNKNOWN;
		assert_int_equal(snps_decoder_init(&d, cap.frames[i].bytes, cap.frames[i].len, &o), 0);
		while ((rc = snps_decoder_next(&d, &ev)) == 1)
			assert_int_not_equal(ev.kind, SNPS_EV_DATA);
		assert_int_equal(rc, 0);
		o.flags = 0;
	}
	cap_free(&cap);
	n = log_values("probe_bigid.sub.log", "received value=0x", 16, vals, 16);
	assert_int_equal(n, 0);

	/* What went out is topic 10 with the values the publisher wrote. */
	res = run_capture("probe_bigid", &wire_table);
	n = log_values("probe_bigid.pub.log", "write value=0x", 16, vals, 16);
	assert_int_equal(log_count("probe_bigid.pub.log", "rc=0"), n);
	assert_int_equal(n, res->n_samples);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(res->samples[i].topic, 10);
		assert_int_equal(field_uint(t, &res->samples[i], "value"), vals[i]);
	}
	result_free(res);

	/* Our builder refuses to truncate: 26 needs the extended form. */
	{
		uint8_t buf[64];
		struct snps_frame f;
		struct snps_sample_meta m = {.domain = 1, .topic = 0x1A};
		const uint8_t v[2] = {0x12, 0x34};

		assert_int_equal(snps_frame_init(&f, buf, sizeof(buf), NULL), 0);
		assert_int_equal(snps_frame_add_sample(&f, &m, v, 2), SNPS_EINVAL);
		assert_int_equal(snps_frame_count(&f), 0);
	}
	free(t);
}

static void test_probe_wide(void **state)
{
	struct cap_topic *t = load_topic("wide.xml");
	struct table tab = {.topics = {t}, .n_topics = 1, .id_mask = 0xFFFF};
	struct result *res = run_capture("probe_wide", &tab);
	char *text = cap_read_file("probe_wide.sub.log"), *save = NULL;
	size_t k = 0;

	assert_non_null(text);
	/* E6: 37 bytes, nibble 5; the string slot is K+1 = 6 bytes. */
	assert_int_equal(t->size, 37);
	assert_int_equal(t->fields[cap_topic_field(t, "str")].size, 6);
	for (char *line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		unsigned o, us;
		char c, str[32], got[32];
		int b, s, l;
		unsigned ul;
		unsigned long long ll, ull;
		const struct sample_rec *smp;
		int idx;

		if (sscanf(line,
			   "received o=0x%x c=%c b=%d s=%d us=0x%x str='%31[^']' l=%d ul=0x%x ll=0x%llx "
			   "ull=0x%llx",
			   &o, &c, &b, &s, &us, str, &l, &ul, &ll, &ull) != 10)
			continue;
		assert_true(k < res->n_samples);
		smp = &res->samples[k++];
		assert_int_equal(smp->domain, 2);
		assert_int_equal(smp->topic, 0xB);
		assert_int_equal(field_uint(t, smp, "o"), o);
		assert_int_equal(field_uint(t, smp, "c"), (unsigned char)c);
		assert_int_equal(field_uint(t, smp, "b"), b);
		assert_int_equal(field_int(t, smp, "s"), s);
		assert_int_equal(field_uint(t, smp, "us"), us);
		idx = cap_topic_field(t, "str");
		assert_int_equal(
		    snps_sample_get_string(&t->layout, smp->data, smp->len, (uint32_t)idx, got, sizeof(got)),
		    0);
		assert_string_equal(got, str);
		assert_int_equal(field_int(t, smp, "l"), l);
		assert_int_equal(field_uint(t, smp, "ul"), ul);
		assert_int_equal(field_int(t, smp, "ll"), (int64_t)ll);
		assert_true(field_uint(t, smp, "ull") == ull);
	}
	assert_int_equal(k, res->n_samples);
	assert_int_equal(k, 5);
	free(text);
	result_free(res);
	free(t);
}

/* Reliability probes: "number" values, and seqnrs 0, 1, 2... of `bits`. */
static void check_qos(const struct result *res, const struct cap_topic *t, const char *sublog,
		      const char *publog, unsigned bits)
{
	long rx[16], tx[16];
	size_t n_rx = log_values(sublog, "received ", 10, rx, 16);
	size_t n_tx = log_values(publog, "write ", 10, tx, 16);

	assert_int_equal(n_rx, res->n_samples);
	assert_int_equal(n_tx, res->n_samples);
	for (size_t i = 0; i < res->n_samples; i++) {
		const struct sample_rec *s = &res->samples[i];

		assert_int_equal(s->topic, t->id);
		assert_int_equal(field_int(t, s, "number"), rx[i]);
		assert_int_equal(field_int(t, s, "number"), tx[i]);
		assert_true(s->has_seqnr);
		assert_int_equal(s->seqnr.bits, bits);
		/* Each writer counts from 0 (§11.2). */
		assert_int_equal(s->seqnr.value, i);
	}
}

static void test_probe_qbe(void **state)
{
	struct cap_topic *t = load_topic("qbe.xml");
	struct table tab = {.topics = {t}, .n_topics = 1, .id_mask = 0xFFFF};
	struct result *res = run_capture("probe_qbe", &tab);

	check_qos(res, t, "probe_qbe.sub.log", "probe_qbe.pub.log", 4); /* reliabilitySeqnrSize="basic" */
	result_free(res);
	free(t);
}

static void test_probe_qbig(void **state)
{
	struct cap_topic *t = load_topic("qbig.xml");
	struct table tab = {.topics = {t}, .n_topics = 1, .id_mask = 0xFFFF};
	struct result *res = run_capture("probe_qbig", &tab);

	check_qos(res, t, "probe_qbig.sub.log", "probe_qbig.pub.log", 16); /* "big" */
	result_free(res);
	free(t);
}

static void test_probe_qnack(void **state)
{
	struct cap_topic *t = load_topic("qnack.xml");
	struct table tab = {.topics = {t}, .n_topics = 1, .id_mask = 0xFFFF};
	struct result *res = run_capture("probe_qnack", &tab);

	/* No loss, so no NACK on the wire: data with 4-bit seqnrs only. */
	check_qos(res, t, "probe_qnack.sub.log", "probe_qnack.pub.log", 4);
	assert_int_equal(res->n_acks, 0);
	result_free(res);
	free(t);
}

static void test_probe_qback(void **state)
{
	struct cap_topic *t = load_topic("qback.xml");
	struct table tab = {.topics = {t}, .n_topics = 1, .id_mask = 0xFFFF};
	struct result *res = run_capture("probe_qback", &tab);

	check_qos(res, t, "probe_qback.sub.log", "probe_qback.pub.log", 4);
	/* E9: every sample is acknowledged by the subscriber from 23234 to the
	 * publisher's source port, with the sample's seqnr. */
	assert_int_equal(res->n_acks, res->n_samples);
	for (size_t i = 0; i < res->n_acks; i++) {
		const struct ack_rec *a = &res->acks[i];
		const struct sample_rec *s = &res->samples[i];
		const struct cap_frame *af = &res->cap.frames[a->frame];
		const struct cap_frame *sf = &res->cap.frames[s->frame];

		assert_true(a->frame > s->frame);
		assert_int_equal(a->topic, s->topic);
		assert_int_equal(a->domain, s->domain);
		assert_int_equal(a->seqnr.bits, s->seqnr.bits);
		assert_int_equal(a->seqnr.value, s->seqnr.value);
		assert_int_equal(af->sport, SNPS_PORT);
		assert_int_equal(af->dport, sf->sport);
		assert_string_equal(af->src, sf->dst);
		assert_string_equal(af->dst, sf->src);
	}
	result_free(res);
	free(t);
}

/*
 * §2 quirk: a node built with endian="big" on a little-endian CPU sends the
 * same samples with every integer reversed, and so its 16-bit seqnrs.
 */
static void test_misconfigured_endian(void **state)
{
	static const char *const files[] = {"temperature.xml", "wide.xml", "qbig.xml"};
	static const char *const captures[] = {"basic", "probe_wide", "probe_qbig"};

	for (size_t c = 0; c < 3; c++) {
		struct cap_topic *t = load_topic(files[c]);
		struct table tab = {.topics = {t}, .n_topics = 1, .id_mask = 0xFFFF};
		struct result *res = run_capture(captures[c], &tab);

		for (size_t i = 0; i < res->n_samples; i++) {
			const struct sample_rec *s = &res->samples[i];
			struct snps_frame_options fo;
			struct snps_decoder_options o;
			struct snps_sample_meta m = {
			    .domain = s->domain, .topic = s->topic, .seqnr = s->has_seqnr ? &s->seqnr : NULL};
			uint8_t swapped[CAP_FRAME_MAX], back[CAP_FRAME_MAX], buf[CAP_FRAME_MAX];
			struct snps_frame f;
			struct snps_decoder d;
			struct snps_event ev;
			size_t len;
			int rc;

			assert_int_equal(snps_sample_swap(&t->layout, swapped, s->data, s->len), 0);
			snps_frame_options_init(&fo);
			fo.flags = SNPS_FRAME_SWAPPED;
			assert_int_equal(snps_frame_init(&f, buf, sizeof(buf), &fo), 0);
			assert_int_equal(snps_frame_add_sample(&f, &m, swapped, s->len), 0);
			assert_int_equal(snps_frame_finish(&f, &len), 0);
			assert_int_equal(len, res->cap.frames[s->frame].len);

			snps_decoder_options_init(&o);
			o.lookup = table_lookup;
			o.lookup_ctx = &tab;
			o.flags = SNPS_DECODE_SWAPPED;
			assert_int_equal(snps_decoder_init(&d, buf, len, &o), 0);
			while ((rc = snps_decoder_next(&d, &ev)) == 1 && ev.kind != SNPS_EV_DATA)
				;
			assert_int_equal(rc, 1);
			assert_memory_equal(ev.data, swapped, s->len);
			assert_int_equal(ev.has_seqnr, s->has_seqnr);
			if (s->has_seqnr)
				assert_int_equal(ev.seqnr.value, s->seqnr.value);
			assert_int_equal(snps_sample_swap(&t->layout, back, ev.data, ev.len), 0);
			assert_memory_equal(back, s->data, s->len);
		}
		result_free(res);
		free(t);
	}
}

/* Every capture in the data directory has a test above. */
static void test_all_captures_covered(void **state)
{
	static const char *const covered[] = {"basic",	     "discovery",  "probe_tiny", "probe_zero",
					      "probe_bigid", "probe_wide", "probe_qbe",	 "probe_qbig",
					      "probe_qnack", "probe_qback"};
	DIR *dir = opendir(cap_data_dir());
	struct dirent *de;
	size_t seen = 0;

	assert_non_null(dir);
	while ((de = readdir(dir)) != NULL) {
		const char *suffix = strstr(de->d_name, ".frames.tsv");
		bool found = false;

		if (suffix == NULL || suffix[strlen(".frames.tsv")] != '\0')
			continue;
		for (size_t i = 0; i < sizeof(covered) / sizeof(covered[0]); i++)
			if (strlen(covered[i]) == (size_t)(suffix - de->d_name) &&
			    strncmp(covered[i], de->d_name, strlen(covered[i])) == 0)
				found = true;
		if (!found)
			fail_msg("capture %s has no golden test", de->d_name);
		seen++;
	}
	closedir(dir);
	assert_int_equal(seen, sizeof(covered) / sizeof(covered[0]));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_basic),
	    cmocka_unit_test(test_discovery),
	    cmocka_unit_test(test_probe_tiny),
	    cmocka_unit_test(test_probe_zero),
	    cmocka_unit_test(test_probe_bigid),
	    cmocka_unit_test(test_probe_wide),
	    cmocka_unit_test(test_probe_qbe),
	    cmocka_unit_test(test_probe_qbig),
	    cmocka_unit_test(test_probe_qnack),
	    cmocka_unit_test(test_probe_qback),
	    cmocka_unit_test(test_misconfigured_endian),
	    cmocka_unit_test(test_all_captures_covered),
	};

	if (argc > 1)
		cap_set_data_dir(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
