/* SPDX-License-Identifier: MIT */
/*
 * arena.h - the ranges of a client's segment that its reader rings take:
 * a first-fit allocator over offsets, with no memory of its own but its
 * table of free ranges.
 *
 * OVERVIEW
 * The free ranges are kept sorted by offset and coalesced, so k live
 * allocations leave at most k + 1 of them: the table has max_alloc + 1
 * slots and arena_alloc refuses an allocation past max_alloc, which keeps
 * arena_free from ever needing a slot it does not have. Lengths and
 * offsets are the caller's units; the session rounds them to
 * SDDS_RRING_ALIGN, so every range start stays aligned. arena_free takes
 * back exactly what arena_alloc gave (the caller's bookkeeping); a range
 * freed twice or never allocated breaks the table.
 */
#ifndef SDDS_DAEMON_ARENA_H
#define SDDS_DAEMON_ARENA_H

#include <stdint.h>

struct arena_range {
	uint64_t off, len;
};

struct arena {
	struct arena_range *free; /* sorted by off, coalesced: at most n_alloc + 1 */
	uint32_t n_free;
	uint32_t n_alloc, max_alloc;
};

/* Tables for max_alloc allocations, nothing free yet. 0 or -ENOMEM. */
int arena_init(struct arena *a, uint32_t max_alloc);

/* Frees the table; a may be zeroed or initialised. */
void arena_fini(struct arena *a);

/* Everything free again: one range [off, off + len), none when len is 0. */
void arena_set(struct arena *a, uint64_t off, uint64_t len);

/* First fit: the lowest free range of len or more. 0 and *ret_off, or -ENOSPC. */
int arena_alloc(struct arena *a, uint64_t len, uint64_t *ret_off);

/* Gives [off, off + len) back, merged with its free neighbours. */
void arena_free(struct arena *a, uint64_t off, uint64_t len);

#endif /* SDDS_DAEMON_ARENA_H */
