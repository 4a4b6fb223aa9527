/* SPDX-License-Identifier: MIT */
/*
 * why.h - the sentence a failing call of the uio-igb driver leaves for a
 * human (its callers log it; the driver never logs). One helper for
 * igb.c, pci.c and dma.c.
 */
#ifndef SDDS_DRIVERS_UIO_IGB_WHY_H
#define SDDS_DRIVERS_UIO_IGB_WHY_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Formats into why (len bytes); NULL or 0 len: nothing asked. */
__attribute__((format(printf, 3, 4))) static inline void igb_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

#endif /* SDDS_DRIVERS_UIO_IGB_WHY_H */
