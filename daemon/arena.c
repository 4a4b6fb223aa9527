/* SPDX-License-Identifier: MIT */
/*
 * arena.c - first-fit ranges of a client's ring arena (see arena.h).
 */
#include "arena.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int arena_init(struct arena *a, uint32_t max_alloc)
{
	memset(a, 0, sizeof(*a));
	a->free = calloc((size_t)max_alloc + 1, sizeof(*a->free));
	if (a->free == NULL)
		return -ENOMEM;
	a->max_alloc = max_alloc;
	return 0;
}

void arena_fini(struct arena *a)
{
	free(a->free);
	memset(a, 0, sizeof(*a));
}

void arena_set(struct arena *a, uint64_t off, uint64_t len)
{
	a->n_alloc = 0;
	a->n_free = 0;
	if (len > 0) {
		a->free[0].off = off;
		a->free[0].len = len;
		a->n_free = 1;
	}
}

int arena_alloc(struct arena *a, uint64_t len, uint64_t *ret_off)
{
	if (len == 0 || a->n_alloc == a->max_alloc)
		return -ENOSPC;
	for (uint32_t i = 0; i < a->n_free; i++) {
		struct arena_range *fr = &a->free[i];

		if (fr->len < len)
			continue;
		*ret_off = fr->off;
		fr->off += len;
		fr->len -= len;
		if (fr->len == 0) {
			memmove(fr, fr + 1, (a->n_free - i - 1) * sizeof(*fr));
			a->n_free--;
		}
		a->n_alloc++;
		return 0;
	}
	return -ENOSPC;
}

void arena_free(struct arena *a, uint64_t off, uint64_t len)
{
	struct arena_range *fr = a->free;
	uint32_t i = 0;

	a->n_alloc--;
	while (i < a->n_free && fr[i].off < off)
		i++;
	/* Merge with the previous and/or the next range, or insert. */
	if (i > 0 && fr[i - 1].off + fr[i - 1].len == off) {
		fr[i - 1].len += len;
		if (i < a->n_free && off + len == fr[i].off) {
			fr[i - 1].len += fr[i].len;
			memmove(&fr[i], &fr[i + 1], (a->n_free - i - 1) * sizeof(*fr));
			a->n_free--;
		}
		return;
	}
	if (i < a->n_free && off + len == fr[i].off) {
		fr[i].off = off;
		fr[i].len += len;
		return;
	}
	/* With n_alloc + 1 live before this free, at most n_alloc + 1 ranges are free: room. */
	memmove(&fr[i + 1], &fr[i], (a->n_free - i) * sizeof(*fr));
	fr[i].off = off;
	fr[i].len = len;
	a->n_free++;
}
