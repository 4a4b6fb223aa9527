/* SPDX-License-Identifier: MIT */
/*
 * gaptrack.h - the receive side of a NACK-reliable stream (snps-wire.md
 * §11.3): which sequence numbers of one (source, topic) stream are taken,
 * held out of order, missing, and in which order the held ones go out.
 *
 * OVERVIEW
 * A stream has a number space of 4, 8, 16 or 32 bits (wrapping) and a
 * reorder span of `cap` numbers (below half the space, so "ahead" and
 * "behind" never mix). `expect` is the next number to deliver; offsets
 * 0..cap-1 from it are slots of a ring the caller owns (cap samples): the
 * tracker says which slot a sample goes to and which slot to deliver next,
 * it never touches sample bytes. Invariants: bit k of `held` is set only for
 * k < cap; `top` is one past the highest held offset (0 when none), so the
 * missing numbers are exactly the clear bits below `top`; a number is
 * delivered at most once and in order; a missing number is given up only
 * by gaptrack_skip (the caller decides when: too far ahead, or NACKed too
 * often). No allocation, no clock, no I/O.
 */
#ifndef SDDS_DAEMON_NET_GAPTRACK_H
#define SDDS_DAEMON_NET_GAPTRACK_H

#include <stdbool.h>
#include <stdint.h>

#define GAPTRACK_MAX_CAP 256u

struct gaptrack {
	uint32_t mask;	 /* number space - 1 */
	uint32_t cap;	 /* reorder span, < half the space, <= GAPTRACK_MAX_CAP */
	uint32_t expect; /* next number to deliver */
	uint32_t head;	 /* ring slot of expect */
	uint32_t top;	 /* one past the highest held offset */
	uint64_t passed; /* numbers moved past since the start: names expect without wrapping */
	bool started;	 /* a first number was seen */
	uint64_t held[GAPTRACK_MAX_CAP / 64];
	uint8_t tries[GAPTRACK_MAX_CAP]; /* per offset: NACKs sent for that number */
};

/* The largest useful span for a number size: min(GAPTRACK_MAX_CAP, half the space - 1). */
uint32_t gaptrack_span(unsigned bits);

/* Empty stream of `bits` (4, 8, 16, 32) with reorder span cap (1..gaptrack_span(bits)). 0 or -EINVAL. */
int gaptrack_init(struct gaptrack *g, unsigned bits, uint32_t cap);

/*
 * The first number of a stream. A publisher counts from 0 (§11.2), so a
 * first number below the span is taken as "0 onwards, the ones before it
 * lost": they become missing (and are NACKed); a larger one starts there.
 */
void gaptrack_start(struct gaptrack *g, uint32_t seq);

/*
 * A sample numbered seq arrived. 0 (or 1 when it fills a gap, a number
 * missing before): keep it in ring slot *ret_slot, then deliver with
 * gaptrack_pop. -EEXIST: delivered or held already, or
 * behind: drop it. -ENOBUFS: too far ahead for the span: the caller gives
 * up the head with gaptrack_skip (delivering what it returns) and offers
 * again. A first offer starts the stream (gaptrack_start).
 */
int gaptrack_offer(struct gaptrack *g, uint32_t seq, uint32_t *ret_slot);

/* True with *ret_slot when the next number is held: deliver that slot. */
bool gaptrack_pop(struct gaptrack *g, uint32_t *ret_slot);

/*
 * Move past the next number: 1 with *ret_slot when it was held (deliver
 * it), 0 when it was missing (given up).
 */
int gaptrack_skip(struct gaptrack *g, uint32_t *ret_slot);

/*
 * Move expect to seq at once when nothing is held (top == 0): the numbers
 * in between are given up together instead of one gaptrack_skip each (a
 * 32-bit number 2^31 - 1 ahead would take 2^31 skips). Returns how many
 * numbers were passed; -EBUSY when something is held (skip those first).
 */
int64_t gaptrack_jump(struct gaptrack *g, uint32_t seq);

/* Missing numbers below the highest held one. */
uint32_t gaptrack_n_missing(const struct gaptrack *g);

/* True when the next number is missing and was NACKed at least max_tries times. */
bool gaptrack_head_exhausted(const struct gaptrack *g, uint32_t max_tries);

/*
 * Lists up to cap missing numbers (oldest first) NACKed fewer than
 * max_tries times into seqs, counting one more NACK for each. Returns how
 * many were listed.
 */
uint32_t gaptrack_nack_list(struct gaptrack *g, uint32_t max_tries, uint32_t *seqs, uint32_t cap);

#endif /* SDDS_DAEMON_NET_GAPTRACK_H */
