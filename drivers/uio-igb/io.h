/* SPDX-License-Identifier: MIT */
/*
 * io.h - how the uio-igb driver reaches its device: BAR0 register reads
 * and writes, and DMA memory with its bus addresses. The real device is
 * BAR0 mapped through sysfs (pci.h) and hugepages (dma.h); the unit tests
 * put a fake register file and plain memory behind the same struct.
 *
 * OVERVIEW
 * igb_rd32/igb_wr32 are volatile 32-bit accesses to the mapped BAR0 when
 * io->rd is NULL (the real device: one predictable branch per access),
 * else calls into the fake, which may react to a write (a reset that
 * completes, a tail write that makes it "transmit" and write back
 * descriptors) as the 82576 would.
 *
 * Threads: none; the driver's one owner makes every access.
 */
#ifndef SDDS_DRIVERS_UIO_IGB_IO_H
#define SDDS_DRIVERS_UIO_IGB_IO_H

#include <stddef.h>
#include <stdint.h>

struct igb_io {
	volatile uint8_t *bar0; /* BAR0 mapped (the real device), or NULL with rd/wr */
	size_t bar0_len;
	/* The fake register file of the unit tests; NULL for the real device. */
	uint32_t (*rd)(void *ctx, uint32_t reg);
	void (*wr)(void *ctx, uint32_t reg, uint32_t val);
	void *ctx;
};

static inline uint32_t igb_rd32(const struct igb_io *io, uint32_t reg)
{
	if (__builtin_expect(io->rd == NULL, 1))
		return *(volatile uint32_t *)(void *)(io->bar0 + reg);
	return io->rd(io->ctx, reg);
}

static inline void igb_wr32(const struct igb_io *io, uint32_t reg, uint32_t val)
{
	if (__builtin_expect(io->wr == NULL, 1))
		*(volatile uint32_t *)(void *)(io->bar0 + reg) = val;
	else
		io->wr(io->ctx, reg, val);
}

#endif /* SDDS_DRIVERS_UIO_IGB_IO_H */
