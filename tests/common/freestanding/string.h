/* SPDX-License-Identifier: MIT */
/*
 * string.h - the only <string.h> functions the SNPS library may use.
 *
 * OVERVIEW
 * check_freestanding.sh compiles lib/snps with -nostdinc, the compiler's
 * own freestanding headers (stdint.h, stddef.h, stdbool.h) and this file,
 * as a bare-metal toolchain would. A call to anything not declared here
 * fails to compile.
 */
#ifndef SNPS_FREESTANDING_STRING_H
#define SNPS_FREESTANDING_STRING_H

#include <stddef.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

#endif
