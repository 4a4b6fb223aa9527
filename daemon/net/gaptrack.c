/* SPDX-License-Identifier: MIT */
/*
 * gaptrack.c - see gaptrack.h. Offsets are counted from `expect`; the
 * held bitmap and the tries array are indexed by offset and shifted when
 * expect moves, the sample ring by (head + offset) % cap.
 */
#include "gaptrack.h"

#include <errno.h>
#include <string.h>

static bool gaptrack_held(const struct gaptrack *g, uint32_t off)
{
	return (g->held[off / 64] >> (off % 64)) & 1u;
}

static void gaptrack_set(struct gaptrack *g, uint32_t off)
{
	g->held[off / 64] |= 1ull << (off % 64);
}

/* Drop offset 0: every offset moves down by one. */
static void gaptrack_shift(struct gaptrack *g)
{
	for (uint32_t w = 0; w < GAPTRACK_MAX_CAP / 64; w++) {
		g->held[w] >>= 1;
		if (w + 1 < GAPTRACK_MAX_CAP / 64)
			g->held[w] |= (g->held[w + 1] & 1u) << 63;
	}
	memmove(g->tries, g->tries + 1, GAPTRACK_MAX_CAP - 1);
	g->tries[GAPTRACK_MAX_CAP - 1] = 0;
	g->expect = (g->expect + 1) & g->mask;
	g->passed++;
	g->head = (g->head + 1) % g->cap;
	if (g->top > 0)
		g->top--;
}

uint32_t gaptrack_span(unsigned bits)
{
	uint32_t half = bits >= 32 ? 0x80000000u : 1u << (bits - 1);

	return half - 1 < GAPTRACK_MAX_CAP ? half - 1 : GAPTRACK_MAX_CAP;
}

int gaptrack_init(struct gaptrack *g, unsigned bits, uint32_t cap)
{
	if ((bits != 4 && bits != 8 && bits != 16 && bits != 32) || cap == 0 || cap > gaptrack_span(bits))
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	g->mask = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
	g->cap = cap;
	return 0;
}

void gaptrack_start(struct gaptrack *g, uint32_t seq)
{
	seq &= g->mask;
	g->started = true;
	g->head = 0;
	g->top = 0;
	memset(g->held, 0, sizeof(g->held));
	memset(g->tries, 0, sizeof(g->tries));
	g->expect = seq < g->cap ? 0 : seq;
}

int gaptrack_offer(struct gaptrack *g, uint32_t seq, uint32_t *ret_slot)
{
	uint32_t off;

	seq &= g->mask;
	if (!g->started)
		gaptrack_start(g, seq);
	off = (seq - g->expect) & g->mask;
	/* Behind (more than half the space ahead is the same as behind). */
	if (off > g->mask / 2)
		return -EEXIST;
	if (off >= g->cap)
		return -ENOBUFS;
	if (gaptrack_held(g, off))
		return -EEXIST;
	gaptrack_set(g, off);
	*ret_slot = (g->head + off) % g->cap;
	if (off < g->top)
		return 1;
	g->top = off + 1;
	return 0;
}

bool gaptrack_pop(struct gaptrack *g, uint32_t *ret_slot)
{
	uint32_t slot = g->head;

	if (!gaptrack_held(g, 0))
		return false;
	gaptrack_shift(g);
	*ret_slot = slot;
	return true;
}

int gaptrack_skip(struct gaptrack *g, uint32_t *ret_slot)
{
	uint32_t slot = g->head;
	bool held = gaptrack_held(g, 0);

	gaptrack_shift(g);
	if (!held)
		return 0;
	*ret_slot = slot;
	return 1;
}

int64_t gaptrack_jump(struct gaptrack *g, uint32_t seq)
{
	uint32_t off;

	if (g->top != 0)
		return -EBUSY;
	seq &= g->mask;
	off = (seq - g->expect) & g->mask;
	g->expect = seq;
	g->head = 0;
	g->passed += off;
	memset(g->tries, 0, sizeof(g->tries));
	return off;
}

uint32_t gaptrack_n_missing(const struct gaptrack *g)
{
	uint32_t k = 0;

	for (uint32_t off = 0; off < g->top; off++) {
		if (!gaptrack_held(g, off))
			k++;
	}
	return k;
}

bool gaptrack_head_exhausted(const struct gaptrack *g, uint32_t max_tries)
{
	return g->top > 0 && !gaptrack_held(g, 0) && g->tries[0] >= max_tries;
}

uint32_t gaptrack_nack_list(struct gaptrack *g, uint32_t max_tries, uint32_t *seqs, uint32_t cap)
{
	uint32_t k = 0;

	for (uint32_t off = 0; off < g->top && k < cap; off++) {
		if (gaptrack_held(g, off) || g->tries[off] >= max_tries)
			continue;
		g->tries[off]++;
		seqs[k++] = (g->expect + off) & g->mask;
	}
	return k;
}
