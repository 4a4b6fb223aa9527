/* SPDX-License-Identifier: MIT */
/*
 * dma.h - memory the 82576 can read and write by bus address: 2 MiB
 * hugepages, locked, with each page's physical address read from
 * /proc/self/pagemap.
 *
 * OVERVIEW
 * Without an IOMMU (uio_pci_generic gives none) the device addresses
 * physical memory directly, so DMA memory must (1) not move: hugepages are
 * never swapped or migrated while mapped and locked (MAP_LOCKED); (2) be
 * physically contiguous for each descriptor ring and each frame buffer:
 * a 2 MiB hugepage is, and nothing the driver places crosses a page
 * boundary; (3) have its physical address known: /proc/self/pagemap gives
 * the frame numbers only to CAP_SYS_ADMIN (0 otherwise, which igb_dma_alloc
 * reports). The limits that follow are written down in docs/DESIGN.md: root
 * only, pinned memory, and a device that can reach all of RAM.
 *
 * Ownership: the caller owns a struct igb_dma from igb_dma_alloc until
 * igb_dma_free. The unit tests fill one by hand (malloc'd memory whose
 * "bus address" is its virtual address).
 *
 * Errors: 0 or -errno; `why` gets a sentence on failure.
 */
#ifndef SDDS_DRIVERS_UIO_IGB_DMA_H
#define SDDS_DRIVERS_UIO_IGB_DMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IGB_HUGEPAGE (2u << 20)
#define IGB_DMA_MAX_PAGES 16u

struct igb_dma {
	uint8_t *va;			/* the first byte */
	size_t len;			/* a multiple of IGB_HUGEPAGE */
	uint32_t n_pages;		/* len / IGB_HUGEPAGE */
	uint64_t pa[IGB_DMA_MAX_PAGES]; /* each page's bus address */
	bool owned;			/* mapped by igb_dma_alloc (munmap at free) */
};

/*
 * Maps len bytes (rounded up to whole hugepages, at most IGB_DMA_MAX_PAGES)
 * of zeroed, locked hugepage memory and reads each page's physical
 * address. -ENOMEM: no free hugepages (vm.nr_hugepages); -EPERM: pagemap
 * gave no frame numbers (not CAP_SYS_ADMIN).
 */
int igb_dma_alloc(size_t len, struct igb_dma *ret, char *why, size_t why_len);
/* Unmaps what igb_dma_alloc mapped; accepts a zeroed struct. */
void igb_dma_free(struct igb_dma *d);

/* The bus address of va, which lies inside d. */
static inline uint64_t igb_dma_pa(const struct igb_dma *d, const void *va)
{
	size_t off = (size_t)((const uint8_t *)va - d->va);

	return d->pa[off / IGB_HUGEPAGE] + off % IGB_HUGEPAGE;
}

#endif /* SDDS_DRIVERS_UIO_IGB_DMA_H */
