/* SPDX-License-Identifier: MIT */
/*
 * decoder.h - SNPS frame decoder: an iterator (and a visitor on top of it)
 * over one datagram (shared/docs/snps-wire.md §3, §4, §8).
 *
 * OVERVIEW
 * The decoder walks the submessages of one datagram and yields one event per
 * submessage it understood (an extended ACK/NACK marker and the SEQNR that
 * follows it make one event). It never reads outside [buf, buf + len) and
 * never writes to the datagram. Events point into the datagram: the caller
 * keeps the datagram alive and unchanged while it uses them.
 *
 * What it accepts is what real receivers parse, with the exact submessage
 * count of §3. What it rejects comes with an enum snps_reason and the offset
 * of the offending byte; after a rejection the decoder stays failed. Events
 * yielded before a rejection were well-formed, but the frame as a whole is
 * not: snps_decode() validates the whole frame before it calls the visitor
 * once, so a visitor sees complete frames only.
 *
 * Context (§4.7): DOMAIN and TOPIC set the context for what follows; the
 * domain starts at 0 in every frame (senders omit DOMAIN 0). SEQNR and
 * ADDRESS come before the DATA they belong to: a DATA event carries the
 * SEQNR given since the previous DATA of the frame, and the last ADDRESS of
 * the frame so far (a real receiver keeps one address slot and applies it
 * to every following builtin DATA; stale addresses of earlier frames are
 * the caller's business, see §4.6).
 *
 * DATA length: the 4-bit length nibble is len & 15 (§4.5), so the decoder
 * asks the caller's topic lookup for the sample size and never trusts the
 * nibble. The lookup receives the frame's current domain, but real
 * receivers match by topic id only (§4.4): a compatible lookup ignores it.
 * snps_decode() runs the lookup twice per DATA (validation and visit): it
 * must answer the same both times.
 *
 * Byte order: SNPS_DECODE_SWAPPED reads extended topic ids and 16/32-bit
 * sequence numbers little-endian (a §2 misconfigured peer). Sample bytes
 * are handed out as they are; convert them with snps_sample_swap().
 */
#ifndef SDDS_SNPS_DECODER_H
#define SDDS_SNPS_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snps/address.h"
#include "snps/wire.h"

/* The largest datagram the decoder takes (the largest UDP payload fits). */
#define SNPS_DATAGRAM_MAX 65535u

/* Why a datagram was rejected. */
enum snps_reason {
	SNPS_R_NONE = 0,
	SNPS_R_SHORT_HEADER,  /* fewer than the 2 header bytes */
	SNPS_R_BAD_VERSION,   /* version byte is not 1 */
	SNPS_R_COUNT_HIGH,    /* datagram ends before submsg_count submessages */
	SNPS_R_COUNT_LOW,     /* bytes left over after submsg_count submessages */
	SNPS_R_TRUNCATED,     /* a submessage runs past the end of the datagram */
	SNPS_R_UNKNOWN_EXT,   /* extended type with no defined length (desync) */
	SNPS_R_NO_TOPIC,      /* DATA, SECURE, SEQNR, ACK or NACK before a TOPIC */
	SNPS_R_UNKNOWN_TOPIC, /* DATA for a topic the lookup does not know */
	SNPS_R_DATA_NIBBLE,   /* length nibble != sample size & 15 (strict mode) */
	SNPS_R_BAD_ADDRESS,   /* ADDRESS with bad cast/family or wrong length */
	SNPS_R_ACK_NO_SEQNR,  /* ext ACK/NACK marker without SEQNR_SMALL/BIG/HUGE */
	SNPS_R_BAD_SECURE,    /* SECURE shorter than its IV and MAC */
	SNPS_R_MAX_,	      /* number of reasons; not a reason */
};

/* One sentence per reason (static storage; never NULL). */
const char *snps_reason_str(enum snps_reason r);

/*
 * Topic lookup: give the sample size of (domain, topic) in *ret_size and
 * return 0, or return a negative value when the topic is unknown.
 * ctx is the caller's lookup_ctx.
 */
typedef int (*snps_topic_lookup_fn)(void *ctx, uint8_t domain, uint16_t topic, uint32_t *ret_size);

/* Decoder flags. */
#define SNPS_DECODE_SWAPPED 0x1u	/* peer writes integers little-endian (§2) */
#define SNPS_DECODE_SKIP_UNKNOWN 0x2u	/* skip DATA of unknown topics by the nibble, */
					/* as real receivers do, instead of rejecting */
#define SNPS_DECODE_ALLOW_TRAILING 0x4u /* ignore bytes after the counted submessages */
#define SNPS_DECODE_STRICT_NIBBLE 0x8u	/* reject DATA whose nibble != size & 15 */

struct snps_decoder_options {
	snps_topic_lookup_fn lookup; /* NULL: every DATA is for an unknown topic */
	void *lookup_ctx;
	uint32_t flags; /* SNPS_DECODE_* */
};

/* Defaults: no lookup, no flags (strict frame, lenient nibble). */
void snps_decoder_options_init(struct snps_decoder_options *opts);

enum snps_event_kind {
	SNPS_EV_DOMAIN = 1,   /* domain */
	SNPS_EV_TOPIC,	      /* topic, topic_ext */
	SNPS_EV_DATA,	      /* data/len/nibble, seqnr if has_seqnr, addr if has_addr */
	SNPS_EV_DATA_SKIPPED, /* DATA of an unknown topic stepped over by its nibble */
	SNPS_EV_SECURE,	      /* data/len = the L-byte blob as on the wire (§12.6) */
	SNPS_EV_SEQNR,	      /* seqnr */
	SNPS_EV_ACK,	      /* seqnr: ACKSEQ (4 bit) or ext ACK + SEQNR_* */
	SNPS_EV_NACK,	      /* seqnr: NACKSEQ (4 bit) or ext NACK + SEQNR_* */
	SNPS_EV_ADDRESS,      /* addr */
	SNPS_EV_SKIPPED,      /* TS, STATUS, TSDDS or an unassigned basic type: */
			      /* hdr, data/len = payload after the header byte */
};

struct snps_seqnr {
	uint8_t bits; /* 4 (basic), 8 (SMALL), 16 (BIG) or 32 (HUGE) */
	uint32_t value;
};

struct snps_event {
	enum snps_event_kind kind;
	uint8_t hdr;	   /* the submessage's header byte (the marker for ext ACK/NACK) */
	uint8_t nibble;	   /* high nibble of hdr */
	uint16_t offset;   /* of the header byte in the datagram */
	uint16_t wire_len; /* bytes the event covers, header(s) included */
	/* Context after this submessage. */
	uint8_t domain;
	uint16_t topic;
	bool topic_ext; /* the current topic came in an extended TOPIC (BF hh ll) */
	bool has_topic; /* a TOPIC was seen in this frame */
	/* Payload, by kind. */
	const uint8_t *data; /* into the datagram; NULL when len is 0 */
	uint32_t len;
	bool has_seqnr;
	struct snps_seqnr seqnr;
	bool has_addr;
	struct snps_addr addr;
};

/* Iterator state. The caller owns it; fields are private. */
struct snps_decoder {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	unsigned count; /* submessages the header announces */
	unsigned done;	/* submessages consumed */
	struct snps_decoder_options opts;
	/* §4.7 context */
	uint8_t domain;
	uint16_t topic;
	bool has_topic;
	bool topic_ext;
	bool has_seqnr;
	struct snps_seqnr seqnr;
	bool has_addr;
	struct snps_addr addr;
	/* failure */
	enum snps_reason reason;
	size_t err_offset;
};

/*
 * Start decoding the datagram buf[0..len). buf is borrowed (not copied) for
 * the life of the decoder and of every event. opts may be NULL (defaults).
 * Checks the frame header: returns 0, or SNPS_EPROTO with the decoder failed
 * (snps_decoder_reason() says why), or SNPS_EINVAL for buf NULL with len > 0
 * or len > SNPS_DATAGRAM_MAX.
 */
int snps_decoder_init(struct snps_decoder *d, const uint8_t *buf, size_t len,
		      const struct snps_decoder_options *opts);

/*
 * Next event: returns 1 with *ret_ev filled, 0 at the end of a well-formed
 * frame, or SNPS_EPROTO when the datagram is rejected (and on every call
 * after that).
 */
int snps_decoder_next(struct snps_decoder *d, struct snps_event *ret_ev);

/* Reason and datagram offset of the rejection (SNPS_R_NONE / 0 if none). */
enum snps_reason snps_decoder_reason(const struct snps_decoder *d);
size_t snps_decoder_offset(const struct snps_decoder *d);

/* The submsg_count of the frame header. */
unsigned snps_decoder_count(const struct snps_decoder *d);

/* Visitor: return 0 to go on; anything else stops snps_decode with it. */
typedef int (*snps_visit_fn)(void *ctx, const struct snps_event *ev);

struct snps_decode_error {
	enum snps_reason reason;
	size_t offset;
};

/*
 * Validate the whole datagram, then call visit for each event. Returns 0,
 * SNPS_EPROTO (rejected; visit was never called; *err, when err is not
 * NULL, receives reason and offset), SNPS_EINVAL (bad arguments), or the
 * first non-zero value visit returned. visit may be NULL (validate only).
 */
int snps_decode(const uint8_t *buf, size_t len, const struct snps_decoder_options *opts, snps_visit_fn visit,
		void *ctx, struct snps_decode_error *err);

#endif /* SDDS_SNPS_DECODER_H */
