/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ring_records.c - hostile request-ring contents and indices fed
 * through the daemon's consumer (ring_cons_next).
 *
 * OVERVIEW
 * Input layout (missing bytes read as zero):
 *   [0]      ring capacity: 64 << (b % 7), i.e. 64 .. 4096 bytes
 *   [1..2]   max_record selector (16 .. cap/4)
 *   [3]      payload buffer size selector (full, or smaller than a record)
 *   [4..11]  the consumer's starting free-running position (any 64-bit value)
 *   [12..19] prod as published by the client, relative to that start
 *   [20..27] a second prod, published after the first pass
 *   [28..29] how many content bytes the first pass sees
 *   [30..]   content: the first part is the ring data, the rest overwrites
 *            the ring from the consumer's position before the second pass
 *            (a client scribbling while the daemon reads).
 * The ring and the payload buffer are heap blocks of exactly their size,
 * so ASan flags any access outside them. Invariants checked on every
 * result: only WRITE records with flags 0 come out, their length fits the
 * buffer and max_record, the consumer never passes the prod it validated,
 * and -EPROTO stays.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "ipc/ring.h"

static uint64_t get_le(const uint8_t *data, size_t size, size_t off, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		if (off + i < size)
			v |= (uint64_t)data[off + i] << (8 * i);
	return v;
}

#define CONTENT_OFF 30u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t cap = 64u << (get_le(data, size, 0, 1) % 7);
	uint32_t max_record = 16 + (uint32_t)(get_le(data, size, 1, 2) % (cap / 4 - 16 + 1));
	uint8_t bufsel = (uint8_t)get_le(data, size, 3, 1);
	uint64_t start = get_le(data, size, 4, 8) & ~(uint64_t)(SDDS_REC_ALIGN - 1);
	uint64_t delta1 = get_le(data, size, 12, 8);
	uint64_t delta2 = get_le(data, size, 20, 8);
	size_t content = size > CONTENT_OFF ? size - CONTENT_OFF : 0;
	size_t first = content == 0 ? 0 : get_le(data, size, 28, 2) % (content + 1);
	size_t buf_cap = (bufsel & 1) ? max_record - 16 : bufsel % (max_record - 16 + 1);
	struct sdds_ring_ctl *ctl;
	struct ring_cons c;
	uint8_t *ring_data, *buf;
	bool second_done = false;

	ctl = aligned_alloc(SDDS_CACHELINE, sizeof(*ctl) + cap);
	buf = malloc(buf_cap > 0 ? buf_cap : 1);
	FUZZ_CHECK(ctl != NULL && buf != NULL);
	ring_format(ctl, cap);
	ring_data = (uint8_t *)ctl + sizeof(*ctl);
	memset(ring_data, 0, cap);
	memcpy(ring_data, data + CONTENT_OFF, first < cap ? first : cap);
	FUZZ_CHECK(ring_cons_init(&c, ctl, cap, max_record) == 0);
	/* A consumer that has been running for a while, anywhere in 64-bit space. */
	c.cons = c.prod_seen = c.cons_pub = start;
	atomic_store(&ctl->prod, start + delta1);

	for (uint32_t iter = 0; iter < cap / 16 + 8; iter++) {
		struct sdds_rec rec;
		uint64_t before = c.cons;
		int rc = ring_cons_next(&c, &rec, buf, buf_cap);

		switch (rc) {
		case 1:
			FUZZ_CHECK(rec.type == SDDS_REC_WRITE && rec.flags == 0);
			FUZZ_CHECK(rec.len <= buf_cap && 16u + rec.len <= max_record);
			FUZZ_CHECK(c.cons - before >= 16 && c.cons - before <= cap);
			FUZZ_CHECK((c.cons & (SDDS_REC_ALIGN - 1)) == 0);
			FUZZ_CHECK(c.prod_seen - c.cons <= cap);
			if (iter & 1)
				ring_cons_release(&c);
			break;
		case 0:
			FUZZ_CHECK(c.prod_seen == c.cons);
			if (second_done)
				goto out;
			/* The client scribbles more and publishes a new prod. */
			second_done = true;
			if (content > first) {
				size_t more = content - first;
				uint32_t pos = (uint32_t)c.cons & (cap - 1);

				for (size_t i = 0; i < more && i < cap; i++)
					ring_data[(pos + i) & (cap - 1)] = data[CONTENT_OFF + first + i];
			}
			atomic_store(&ctl->prod, c.cons + delta2);
			break;
		case -EMSGSIZE:
			/* Not consumed: the caller's buffer is too small, not a client fault. */
			FUZZ_CHECK(c.cons == before && buf_cap < max_record - 16);
			goto out;
		case -EPROTO:
			FUZZ_CHECK(ring_cons_next(&c, &rec, buf, buf_cap) == -EPROTO);
			FUZZ_CHECK(!ring_cons_empty(&c));
			goto out;
		default:
			FUZZ_CHECK(0);
		}
	}
out:
	ring_cons_release(&c);
	free(buf);
	free(ctl);
	return 0;
}
