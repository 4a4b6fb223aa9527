/* SPDX-License-Identifier: MIT */
/*
 * frame.h - SNPS frame builder (shared/docs/snps-wire.md §3, §4, §6.6, §7).
 *
 * OVERVIEW
 * A struct snps_frame writes one frame into a buffer the caller owns and
 * lends for the life of the builder. Two levels:
 *
 *  - snps_frame_put_*() append exactly the submessage asked for (the
 *    extended ACK/NACK forms append the marker and its SEQNR_*) and track
 *    the domain/topic context, nothing more. They serve re-encoders and
 *    tests that need a given byte sequence.
 *  - snps_frame_add_*() follow the sender's context rules of §4.7 and give
 *    the recipes of §7 byte for byte: DOMAIN only when the domain differs
 *    from the frame's current one, which starts at 0 (so domain 0 is never
 *    written in a fresh frame); TOPIC when the topic differs from the
 *    current one (always for the first sample of a frame); then ADDRESS,
 *    then SEQNR, then DATA. An add either fits entirely or leaves the frame
 *    as it was.
 *
 * Limits: a frame stays strictly below max_frame bytes, which is the §6.6
 * rule of real senders (position + sample + 1 >= SDDS_NET_MAX_BUF_SIZE is
 * refused), so the default of 128 gives frames of at most 127 bytes and
 * samples of at most 122 after DOMAIN and TOPIC. It also stays within the
 * buffer. A put or add that would not fit returns SNPS_EMSGSIZE and writes
 * nothing.
 *
 * Values the wire cannot carry are refused (SNPS_EINVAL) rather than
 * truncated to a nibble as sDDS does (§4.1, probe_bigid): domain > 15, a
 * topic > 15 without SNPS_FRAME_EXT_TOPICS, a 4-bit seqnr > 15. The only
 * truncation kept is the DATA length nibble, len & 15, because real
 * receivers expect exactly that (§4.5).
 *
 * The count (byte 1) is written last, by snps_frame_finish(); until then it
 * reads 0, as in the reference sender.
 */
#ifndef SDDS_SNPS_FRAME_H
#define SDDS_SNPS_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snps/address.h"
#include "snps/decoder.h"
#include "snps/wire.h"

#define SNPS_FRAME_SWAPPED 0x1u	   /* write integers little-endian (§2 peer) */
#define SNPS_FRAME_EXT_TOPICS 0x2u /* topics > 15 go out as ext TOPIC BF hh ll */

struct snps_frame_options {
	uint32_t max_frame; /* the receivers' SDDS_NET_MAX_BUF_SIZE; 0 = 128 */
	uint32_t flags;	    /* SNPS_FRAME_* */
};

/* Defaults: max_frame 128, no flags. */
void snps_frame_options_init(struct snps_frame_options *opts);

/* Builder state. The caller owns it; fields are private. */
struct snps_frame {
	uint8_t *buf;
	size_t limit; /* largest frame length allowed */
	size_t len;
	unsigned count;
	uint32_t flags;
	uint8_t domain;
	uint16_t topic;
	bool has_topic;
};

/*
 * Start a frame in buf[0..cap). buf is borrowed until the frame is finished
 * and sent. opts may be NULL (defaults). Returns 0, or SNPS_EINVAL when the
 * buffer or max_frame leave no room for the header and one submessage.
 */
int snps_frame_init(struct snps_frame *f, uint8_t *buf, size_t cap, const struct snps_frame_options *opts);

/* Empty the frame again (same buffer and options): header only, context reset. */
void snps_frame_reset(struct snps_frame *f);

/*
 * Write the count into byte 1 and give the frame's length. The bytes are
 * buf[0..*ret_len). The builder may be reset and reused afterwards.
 */
int snps_frame_finish(struct snps_frame *f, size_t *ret_len);

/* Current length, and the number of submessages so far. */
size_t snps_frame_len(const struct snps_frame *f);
unsigned snps_frame_count(const struct snps_frame *f);

/* ---- low level: exactly one submessage each ---- */

int snps_frame_put_domain(struct snps_frame *f, uint8_t domain);
/* Basic TOPIC for 0..15; > 15 needs SNPS_FRAME_EXT_TOPICS and goes out as ext. */
int snps_frame_put_topic(struct snps_frame *f, uint16_t topic);
/* Always the extended form BF hh ll (E11); never send it to real nodes (§4.4). */
int snps_frame_put_topic_ext(struct snps_frame *f, uint16_t topic);
/* DATA: header (len & 15) << 4 | 2, then len bytes copied from data
 * (borrowed for the call; may be NULL when len is 0). */
int snps_frame_put_data(struct snps_frame *f, const void *data, size_t len);
/* DATA whose len sample bytes the caller writes at *ret_ptr (inside the
 * frame buffer) before finishing: marshal in place, no copy. */
int snps_frame_reserve_data(struct snps_frame *f, size_t len, uint8_t **ret_ptr);
/* SEQNR: 4 bits -> s3, 8 -> 8F ss, 16 -> 9F + 2 bytes, 32 -> AF + 4 bytes. */
int snps_frame_put_seqnr(struct snps_frame *f, const struct snps_seqnr *s);
/* ACK / NACK: 4 bits -> s5 / s6; wider -> 0F / 1F marker + SEQNR_*.
 * Real subscribers crash on the extended forms (§11.3). */
int snps_frame_put_ack(struct snps_frame *f, const struct snps_seqnr *s);
int snps_frame_put_nack(struct snps_frame *f, const struct snps_seqnr *s);
/* ADDRESS: only the forms snps_addr_valid() accepts. */
int snps_frame_put_address(struct snps_frame *f, const struct snps_addr *a);
/* SECURE: EF, L, then the L-byte blob (borrowed), which the caller has
 * already byte-reversed if the peer expects that (§12.6). 24 <= L <= 255. */
int snps_frame_put_secure(struct snps_frame *f, const uint8_t *blob, size_t len);
/* A submessage receivers only skip: TS (x4 + 2 bytes), STATUS (x7),
 * unassigned basic types (x9..xE), TSDDS (3F + 8 bytes). payload is what
 * follows the header byte (borrowed) and must have the type's length. */
int snps_frame_put_skippable(struct snps_frame *f, uint8_t hdr, const uint8_t *payload, size_t len);

/* ---- high level: the §7 recipes ---- */

struct snps_sample_meta {
	uint8_t domain;
	uint16_t topic;
	const struct snps_addr *addr;	/* NULL: no ADDRESS */
	const struct snps_seqnr *seqnr; /* NULL: no SEQNR */
};

/*
 * Largest sample snps_frame_add_sample(f, m, ...) could still take, in
 * *ret_room. Returns 0, SNPS_EMSGSIZE when not even an empty DATA fits (a
 * new frame is needed), or SNPS_EINVAL when m cannot be encoded at all.
 */
int snps_frame_room(const struct snps_frame *f, const struct snps_sample_meta *m, size_t *ret_room);

/* [DOMAIN] [TOPIC] [ADDRESS] [SEQNR] DATA. data is borrowed for the call. */
int snps_frame_add_sample(struct snps_frame *f, const struct snps_sample_meta *m, const void *data,
			  size_t len);
/* As add_sample, but the caller writes the len sample bytes at *ret_ptr. */
int snps_frame_add_sample_reserve(struct snps_frame *f, const struct snps_sample_meta *m, size_t len,
				  uint8_t **ret_ptr);
/* [DOMAIN] [TOPIC] [ADDRESS] [SEQNR] SECURE. */
int snps_frame_add_secure(struct snps_frame *f, const struct snps_sample_meta *m, const uint8_t *blob,
			  size_t len);
/* [DOMAIN] [TOPIC] ACK / NACK (E9, E10). */
int snps_frame_add_ack(struct snps_frame *f, uint8_t domain, uint16_t topic, const struct snps_seqnr *s);
int snps_frame_add_nack(struct snps_frame *f, uint8_t domain, uint16_t topic, const struct snps_seqnr *s);

#endif /* SDDS_SNPS_FRAME_H */
