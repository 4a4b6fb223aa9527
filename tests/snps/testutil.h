/* SPDX-License-Identifier: MIT */
/*
 * testutil.h - helpers shared by the SNPS unit tests.
 *
 * OVERVIEW
 * Frames in the tests are written as hex strings with optional spaces, the
 * way snps-wire.md prints them. unhex_heap() copies them into a heap block
 * of exactly their length, so that AddressSanitizer catches any read past
 * the end of a datagram.
 */
#ifndef SDDS_TESTS_SNPS_TESTUTIL_H
#define SDDS_TESTS_SNPS_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse "01 03 10 a1" into out[0..cap); returns the byte count, or -1. */
static inline int unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;

	while (*hex != '\0') {
		unsigned v;

		if (*hex == ' ') {
			hex++;
			continue;
		}
		if (n == cap || sscanf(hex, "%2x", &v) != 1 || hex[1] == '\0' || hex[1] == ' ')
			return -1;
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	return (int)n;
}

/* A malloc'd copy of exactly the bytes of hex (caller frees), its length in
 * *ret_len (0 on failure, when NULL is returned). */
static inline uint8_t *unhex_heap(const char *hex, size_t *ret_len)
{
	uint8_t tmp[1024];
	int n = unhex(hex, tmp, sizeof(tmp));
	uint8_t *p;

	*ret_len = 0;
	if (n < 0)
		return NULL;
	p = malloc(n > 0 ? (size_t)n : 1);
	if (p != NULL) {
		memcpy(p, tmp, (size_t)n);
		*ret_len = (size_t)n;
	}
	return p;
}

#endif /* SDDS_TESTS_SNPS_TESTUTIL_H */
