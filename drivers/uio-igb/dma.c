// SPDX-License-Identifier: MIT
/*
 * dma.c - DMA memory for the 82576: 2 MiB hugepages, locked, each page's
 * physical address read from /proc/self/pagemap.
 *
 * OVERVIEW
 * igb_dma_alloc maps whole hugepages (MAP_HUGETLB, 2 MiB) shared and
 * anonymous, MAP_LOCKED and MAP_POPULATE so every page is faulted in at
 * once, then reads each page's frame number from /proc/self/pagemap (one
 * 64-bit entry per 4 KiB virtual page: bit 63 "present", bits 0-54 the
 * page frame number; Documentation/admin-guide/mm/pagemap.rst). A hugepage
 * is one physically contiguous 2 MiB frame, so one entry gives the whole
 * page's address; the entry of its last 4 KiB is checked to agree.
 *
 * The limits without an IOMMU (uio_pci_generic sets up none):
 *  - root only: pagemap shows frame numbers only to CAP_SYS_ADMIN (0 to
 *    others, since Linux 4.2), and only root may bind the device and
 *    write its config space;
 *  - pinned memory: the pages must never move while the device may reach
 *    them; hugetlb pages are neither swapped nor migrated while mapped,
 *    MAP_LOCKED says so to the kernel, and MADV_DONTFORK keeps a fork()
 *    (a helper the daemon spawns) from making them copy-on-write, after
 *    which the parent's next write would land on a new page the device
 *    does not know. The mapping is MAP_SHARED for the same reason;
 *  - the device reaches all of RAM: a bus address it is given, or a bad
 *    descriptor it writes back, is not checked by anything, so a driver
 *    bug can corrupt any memory. The driver hands the device only
 *    addresses from this mapping, and igb_pci_close clears bus master
 *    before the memory is freed;
 *  - hugepages must be reserved first (vm.nr_hugepages); the pool is the
 *    system's, shared with every other user.
 *
 * Ownership: the caller owns struct igb_dma until igb_dma_free.
 * Threads: none. Errors: 0 or -errno with a sentence in why.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dma.h"
#include "why.h"

#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_PFN_MASK ((1ull << 55) - 1)

/* The free 2 MiB hugepages the kernel reports, or -1 when it does not say. */
static long hugepages_free(void)
{
	char buf[32];
	long n = -1;
	ssize_t r;
	int fd = open("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r > 0) {
		buf[r] = '\0';
		if (sscanf(buf, "%ld", &n) != 1)
			n = -1;
	}
	return n;
}

/* The physical address of the 4 KiB page at va; 0 when pagemap gives no frame number, or -errno. */
static int pagemap_pa(int fd, const void *va, uint64_t *ret)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t e;
	ssize_t n = pread(fd, &e, sizeof(e), (off_t)((uintptr_t)va / (uintptr_t)ps * sizeof(e)));

	if (n < 0)
		return -errno;
	if (n != sizeof(e))
		return -EIO;
	if (!(e & PAGEMAP_PRESENT) || (e & PAGEMAP_PFN_MASK) == 0) {
		*ret = 0;
		return 0;
	}
	*ret = (e & PAGEMAP_PFN_MASK) * (uint64_t)ps + (uintptr_t)va % (uintptr_t)ps;
	return 0;
}

int igb_dma_alloc(size_t len, struct igb_dma *ret, char *why, size_t why_len)
{
	struct igb_dma d = {.owned = true};
	size_t pages;
	void *va;
	int err, fd;

	if (len == 0 || len > (size_t)IGB_DMA_MAX_PAGES * IGB_HUGEPAGE) {
		igb_why(why, why_len, "%zu bytes of DMA memory asked for: 1 to %u hugepages of 2 MiB", len,
			IGB_DMA_MAX_PAGES);
		return -EINVAL;
	}
	pages = (len + IGB_HUGEPAGE - 1) / IGB_HUGEPAGE;
	d.len = pages * IGB_HUGEPAGE;
	d.n_pages = (uint32_t)pages;

	/* Anonymous memory comes zeroed, as the header promises; MAP_SHARED and MAP_LOCKED: OVERVIEW. */
	va = mmap(NULL, d.len, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB | MAP_LOCKED | MAP_POPULATE, -1, 0);
	if (va == MAP_FAILED) {
		err = -errno;
		if (err == -ENOMEM) {
			igb_why(why, why_len,
				"%zu free 2 MiB hugepages needed, %ld free: reserve them with "
				"echo N > /proc/sys/vm/nr_hugepages (sysctl vm.nr_hugepages)",
				pages, hugepages_free());
		} else if (err == -EAGAIN || err == -EPERM) {
			igb_why(
			    why, why_len,
			    "cannot lock %zu bytes of hugepages (RLIMIT_MEMLOCK; root has CAP_IPC_LOCK): %s",
			    d.len, strerror(-err));
		} else {
			igb_why(why, why_len, "cannot map %zu hugepages of 2 MiB: %s", pages, strerror(-err));
		}
		return err;
	}
	d.va = va;
	if (madvise(va, d.len, MADV_DONTFORK) < 0) {
		err = -errno;
		igb_why(why, why_len, "madvise(MADV_DONTFORK) on DMA memory: %s", strerror(-err));
		goto fail_unmap;
	}

	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		igb_why(why, why_len, "cannot open /proc/self/pagemap: %s", strerror(-err));
		goto fail_unmap;
	}
	for (uint32_t i = 0; i < d.n_pages; i++) {
		const uint8_t *page = d.va + (size_t)i * IGB_HUGEPAGE;
		uint64_t pa = 0, pa_last = 0;

		err = pagemap_pa(fd, page, &pa);
		if (err == 0)
			err = pagemap_pa(fd, page + IGB_HUGEPAGE - 4096, &pa_last);
		if (err < 0) {
			igb_why(why, why_len, "cannot read /proc/self/pagemap: %s", strerror(-err));
			goto fail_close;
		}
		if (pa == 0) {
			igb_why(why, why_len,
				"/proc/self/pagemap gives no physical addresses: the driver needs "
				"CAP_SYS_ADMIN (root)");
			err = -EPERM;
			goto fail_close;
		}
		/* A hugepage is one 2 MiB-aligned frame; anything else is not what the rings may assume. */
		if (pa % IGB_HUGEPAGE != 0 || pa_last != pa + IGB_HUGEPAGE - 4096) {
			igb_why(why, why_len,
				"hugepage %u is not one contiguous 2 MiB frame (pa 0x%llx, its last 4 KiB at "
				"0x%llx)",
				i, (unsigned long long)pa, (unsigned long long)pa_last);
			err = -EIO;
			goto fail_close;
		}
		d.pa[i] = pa;
	}
	close(fd);
	*ret = d;
	return 0;

fail_close:
	close(fd);
fail_unmap:
	munmap(va, d.len);
	return err;
}

void igb_dma_free(struct igb_dma *d)
{
	if (d->owned && d->va != NULL)
		munmap(d->va, d->len);
	d->va = NULL;
	d->len = 0;
	d->n_pages = 0;
	d->owned = false;
}
