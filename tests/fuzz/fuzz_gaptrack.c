/* SPDX-License-Identifier: MIT */
/*
 * fuzz_gaptrack.c - the NACK receive state (daemon/net/gaptrack.h) driven
 * by sequence numbers from the network: any order, duplicates, wraps,
 * numbers far ahead or behind, interleaved with the calls the network
 * layer makes (pop, skip, NACK lists). Checked after every step: a
 * delivered slot holds the number that was next, numbers go out at most
 * once and in order, slots stay below the span, NACK lists name missing
 * numbers only, the missing count never exceeds the span.
 *
 * Input: byte 0 picks the number size (4, 8, 16, 32 bits) and the span;
 * then operations: a byte whose low 2 bits say offer (4 more bytes: the
 * number, relative to the next expected one when bit 2 is set), pop, skip
 * or list.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "daemon/net/gaptrack.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned sizes[4] = {4, 8, 16, 32};
	static uint32_t ring[GAPTRACK_MAX_CAP];
	struct gaptrack g;
	uint32_t seqs[GAPTRACK_MAX_CAP];
	unsigned bits;
	uint32_t cap, mask, slot;
	size_t i = 1;

	if (size < 1)
		return 0;
	bits = sizes[data[0] & 3];
	cap = 1 + (uint32_t)(data[0] >> 2) % gaptrack_span(bits);
	if (gaptrack_init(&g, bits, cap) != 0)
		__builtin_trap();
	mask = g.mask;
	while (i < size) {
		uint8_t op = data[i++];

		if ((op & 3) == 0) {
			uint32_t seq = 0;
			int rc;

			for (int k = 0; k < 4 && i < size; k++)
				seq = seq << 8 | data[i++];
			if (op & 4)
				seq = g.expect + (seq % (2 * cap + 2)) - 1;
			seq &= mask;
			rc = gaptrack_offer(&g, seq, &slot);
			FUZZ_CHECK(rc == 0 || rc == 1 || rc == -EEXIST || rc == -ENOBUFS);
			if (rc >= 0) {
				FUZZ_CHECK(slot < cap);
				FUZZ_CHECK(((seq - g.expect) & mask) < cap);
				ring[slot] = seq;
			}
		} else if ((op & 3) == 1) {
			uint32_t want = g.expect;

			while (gaptrack_pop(&g, &slot)) {
				FUZZ_CHECK(slot < cap);
				FUZZ_CHECK(ring[slot] == want);
				ring[slot] = ~0u; /* delivered: never again */
				want = (want + 1) & mask;
				FUZZ_CHECK(g.expect == want);
			}
		} else if ((op & 3) == 2) {
			uint32_t want = g.expect;

			if (gaptrack_skip(&g, &slot) == 1) {
				FUZZ_CHECK(slot < cap);
				FUZZ_CHECK(ring[slot] == want);
				ring[slot] = ~0u;
			}
			FUZZ_CHECK(g.expect == ((want + 1) & mask));
		} else {
			uint32_t k = gaptrack_nack_list(&g, 1 + (op >> 2) % 30, seqs, GAPTRACK_MAX_CAP);

			FUZZ_CHECK(k <= cap);
			for (uint32_t j = 0; j < k; j++) {
				FUZZ_CHECK(((seqs[j] - g.expect) & mask) < g.top);
				FUZZ_CHECK(j == 0 ||
					   ((seqs[j] - g.expect) & mask) > ((seqs[j - 1] - g.expect) & mask));
			}
		}
		FUZZ_CHECK(g.top <= cap);
		FUZZ_CHECK(gaptrack_n_missing(&g) <= g.top);
	}
	return 0;
}
