/* SPDX-License-Identifier: MIT */
/*
 * ring.h - the two ring kinds of the shared segment (layout in layout.h).
 *
 * OVERVIEW
 * Each side keeps a private handle (struct ring_prod / ring_cons /
 * rring_prod / rring_cons) holding its own free-running index and pointers
 * into the mapping. A side never re-reads an index it owns from shared
 * memory; it only publishes it. The daemon's consumer and producer handles
 * bound every index the client published and report a violation with
 * -EPROTO; the caller disconnects the client.
 *
 * Threads: each handle is used by one thread at a time (the caller
 * serialises several application threads on the client side).
 */
#ifndef SDDS_IPC_RING_H
#define SDDS_IPC_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"

/* ---------------- request ring: client produces, daemon consumes ------- */

struct ring_prod {
	struct sdds_ring_ctl *ctl;
	uint8_t *data;
	uint32_t cap;	     /* power of two */
	uint32_t max_record; /* header + payload, aligned */
	uint64_t prod;	     /* private */
	uint64_t cons_cache; /* last cons seen */
	uint32_t seq;
};

struct ring_cons {
	struct sdds_ring_ctl *ctl;
	uint8_t *data;
	uint32_t cap;
	uint32_t max_record;
	uint64_t cons;	    /* private */
	uint64_t prod_seen; /* last validated prod */
	uint64_t cons_pub;  /* cons as last published by ring_cons_release */
	int err;	    /* 0, or -EPROTO once the producer broke the protocol */
};

/* Lay out an empty ring at ctl (cap data bytes follow); both indices 0. */
void ring_format(struct sdds_ring_ctl *ctl, uint32_t cap);

/*
 * Attach handles to a formatted ring. ctl must be followed by cap bytes.
 * cap must be a power of two >= 4 * max_record. Returns 0 or -EINVAL.
 */
int ring_prod_init(struct ring_prod *p, struct sdds_ring_ctl *ctl, uint32_t cap, uint32_t max_record);
int ring_cons_init(struct ring_cons *c, struct sdds_ring_ctl *ctl, uint32_t cap, uint32_t max_record);

/*
 * Producer: reserve a record with `len` payload bytes. On success *ret_rec
 * points into the ring (the caller fills header fields type/handle and the
 * payload after it; len is already set) and the record is not visible until
 * ring_prod_publish. Several reservations may precede one publish.
 * Returns 0, -EAGAIN (no room now) or -EMSGSIZE (can never fit).
 * reserve writes len, flags = 0, seq and type = handle = 0: a record whose
 * type the caller forgot to set is a protocol error, not a silent write.
 * The record memory belongs to the ring; the caller may write it only until
 * the next publish.
 */
int ring_prod_reserve(struct ring_prod *p, uint32_t len, struct sdds_rec **ret_rec);

/*
 * Publish every reserved record (one release store). Returns true when the
 * consumer has announced that it sleeps (data.waiters != 0) and must be
 * kicked; the fence that makes this check correct is inside. The
 * announcement is taken (cleared) with it: the consumer is kicked once per
 * announcement and announces again (ring_cons_wait_data) before it sleeps.
 */
bool ring_prod_publish(struct ring_prod *p);

/*
 * Publish for a consumer that never sleeps (a polling daemon): the release
 * store only, no fence and no waiter check, so no kick is ever due.
 */
void ring_prod_publish_nowake(struct ring_prod *p);

/* Bytes free for the producer right now (refreshes cons_cache). */
uint32_t ring_prod_free(struct ring_prod *p);

/*
 * True when ring_prod_reserve(p, len) would succeed now (counts the PAD a
 * wrap needs; refreshes cons_cache only when the cached view says no).
 * Meant as the doorbell_wait condition on ctl->space for a blocked writer.
 */
bool ring_prod_has_room(struct ring_prod *p, uint32_t len);

/*
 * Consumer: copy the next record out into rec (header) and buf (payload,
 * up to buf_cap bytes). The header is copied before it is checked, the
 * payload after the header was checked. PAD records are consumed silently.
 * Returns 1 when a record was taken, 0 when the ring is empty, -EPROTO when
 * the producer broke the protocol (bad index, length, type, flags or a record
 * crossing the end); -EPROTO is sticky.
 * -EMSGSIZE when the payload is longer than buf_cap: nothing is taken (size
 * buf for max_record - sizeof(struct sdds_rec) bytes and it never happens).
 * rec and buf are the caller's; buf's contents are unspecified unless 1 is
 * returned.
 * The record's bytes are released (cons advanced privately) at once;
 * ring_cons_release publishes cons.
 */
int ring_cons_next(struct ring_cons *c, struct sdds_rec *rec, void *buf, size_t buf_cap);

/*
 * Publish cons (one release store) and wake a producer that waits for
 * space. Call once per batch. Returns true if a futex wake was issued.
 */
bool ring_cons_release(struct ring_cons *c);

/*
 * Consumer: take a run of up to max WRITE records that follow, each with
 * this handle and exactly len payload bytes, copying record i's payload to
 * buf + i * stride and its seq to seqs[i] (both the caller's, max entries).
 * Each header is copied out and checked before its payload is copied, as in
 * ring_cons_next. Stops before the first record that is anything else (a
 * PAD, another writer or length, a bad header, the end of what is published)
 * and leaves it for ring_cons_next, which takes or refuses it. Returns the
 * number taken. For the daemon's batches: one call instead of one
 * ring_cons_next per record.
 */
uint32_t ring_cons_next_run(struct ring_cons *c, uint32_t handle, uint32_t len, uint8_t *buf, uint32_t stride,
			    uint32_t max, uint32_t *seqs);

/*
 * Consumer: give back records taken since the last ring_cons_release, so the
 * next ring_cons_next starts at pos again (a batch that stopped early).
 * pos must be a record boundary in [published cons, private cons]; the
 * records are copied out and checked again when taken again. Returns 0 or
 * -EINVAL (pos outside that range, or the ring already failed).
 */
int ring_cons_rewind(struct ring_cons *c, uint64_t pos);

/* True when the ring holds nothing the consumer has not taken (acquire). */
bool ring_cons_empty(struct ring_cons *c);

/*
 * Consumer about to sleep (in epoll, on the eventfd the producer kicks):
 * announce it in data.waiters, full fence, re-check. Returns true when data
 * arrived after all: do not sleep, pump again. Pairs with the check inside
 * ring_prod_publish, so a record published concurrently is never missed.
 */
bool ring_cons_wait_data(struct ring_cons *c);
/* Consumer: withdraw the announcement (after waking). */
void ring_cons_stop_wait_data(struct ring_cons *c);

/* ---------------- reader ring: daemon produces, client consumes -------- */

struct rring_prod {
	struct sdds_rring_ctl *ctl;
	uint8_t *slots;
	uint32_t cap;	      /* slots, power of two */
	uint32_t slot_size;   /* bytes per slot including struct sdds_rslot */
	uint64_t prod;	      /* private */
	uint64_t cons_seen;   /* last validated cons */
	uint64_t overwritten; /* best-effort drops (client lagged by cap) */
};

struct rring_cons {
	struct sdds_rring_ctl *ctl;
	uint8_t *slots;
	uint32_t cap;
	uint32_t slot_size;
	uint64_t cons; /* private */
	uint64_t lost; /* slots skipped because the producer lapped us */
};

/*
 * Bytes needed for a reader ring of cap slots with payloads up to
 * max_payload, rounded up to SDDS_RRING_ALIGN so rings carved back to back
 * stay aligned. 0 when it does not fit in a size_t.
 */
size_t rring_size(uint32_t cap, uint32_t max_payload);
/* Slot size for a payload size (header + payload rounded up to 16); 0 if too big. */
uint32_t rring_slot_size(uint32_t max_payload);

/*
 * Lay out an empty reader ring at ctl; writes cap and slot_size into ctl and
 * zeroes every slot's seq word (memory reused from an earlier ring must not
 * hold sequence numbers a new consumer would accept).
 */
void rring_format(struct sdds_rring_ctl *ctl, uint32_t cap, uint32_t slot_size);

/*
 * Attach; the daemon passes the values it chose, never those read back.
 * cap: a power of two; slot_size: a multiple of 16, at least 16. Returns 0
 * or -EINVAL. rring_cons_init also checks that ctl holds the same cap and
 * slot_size (the client's check that the ReaderReply matches the ring).
 */
int rring_prod_init(struct rring_prod *p, struct sdds_rring_ctl *ctl, uint32_t cap, uint32_t slot_size);
int rring_cons_init(struct rring_cons *c, struct sdds_rring_ctl *ctl, uint32_t cap, uint32_t slot_size);

/*
 * Producer: number of slots the client has not consumed yet, read from the
 * client's cons and bounded: returns -EPROTO if cons is ahead of prod or
 * went backwards. Used for reliable readers (full when == cap).
 */
int64_t rring_prod_backlog(struct rring_prod *p);

/*
 * Producer: write one sample. reliable: returns -EAGAIN when full (then
 * the caller sets the space doorbell via rring_prod_wait_space and retries
 * later); best effort: overwrites the oldest slot when full and counts it in
 * p->overwritten. Returns 0, -EAGAIN, -EMSGSIZE (len > slot payload) or
 * -EPROTO (client cons invalid, reliable only).
 * The payload is copied; the caller keeps ownership of data.
 */
int rring_prod_push(struct rring_prod *p, const void *data, uint32_t len, uint32_t origin, bool reliable);

/*
 * Producer, batched: rring_prod_write is rring_prod_push without publishing
 * prod (the slot is valid by its seq word at once, so a spinning consumer
 * may take it before prod covers it); rring_prod_publish stores prod once
 * for every slot written since (one release store). Call it before
 * notifying the consumer and before the daemon waits or sleeps.
 */
int rring_prod_write(struct rring_prod *p, const void *data, uint32_t len, uint32_t origin, bool reliable);
void rring_prod_publish(struct rring_prod *p);

/*
 * Producer (reliable): announce that the daemon waits for space and re-check
 * (full fence inside). Returns true if there is space now after all.
 */
bool rring_prod_wait_space(struct rring_prod *p);
/* Producer: withdraw the announcement. */
void rring_prod_stop_wait_space(struct rring_prod *p);

/*
 * Consumer: take the next sample into buf (up to buf_cap bytes; a longer
 * payload gives -EMSGSIZE and is skipped). *ret_len gets the payload length,
 * *ret_origin (may be NULL) the origin. Returns 1 taken, 0 empty.
 * Skips forward over overwritten slots and adds them to c->lost.
 * After taking, returns via *ret_kick (may be NULL) whether the daemon waits
 * for space and must be kicked. That check costs a full fence; a consumer
 * that takes in batches passes NULL and calls rring_cons_need_kick once per
 * batch instead. *ret_kick is also written when -EMSGSIZE is returned (the
 * sample was consumed all the same). buf is the caller's; its contents are
 * unspecified unless 1 is returned.
 */
int rring_cons_take(struct rring_cons *c, void *buf, size_t buf_cap, uint32_t *ret_len, uint32_t *ret_origin,
		    bool *ret_kick);

/*
 * Consumer: full fence, then true when the daemon waits for space in this
 * ring (space.waiters) and must be kicked. Once per batch of takes. The
 * announcement is taken (cleared) with it: one kick per announcement; a
 * producer that still waits after the kick announces again.
 */
bool rring_cons_need_kick(struct rring_cons *c);

/* Consumer: true when nothing new is published (acquire load of prod). */
bool rring_cons_empty(struct rring_cons *c);
/* Consumer: number of published, untaken slots (may exceed cap when lapped). */
uint64_t rring_cons_pending(struct rring_cons *c);

#endif /* SDDS_IPC_RING_H */
