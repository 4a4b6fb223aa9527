/* SPDX-License-Identifier: MIT */
/*
 * segment.c - create, seal, map and check the per-client shared segment.
 *
 * OVERVIEW
 * Layout (ipc/layout.h), as segment_create lays it out:
 *   [0, 192)                      struct sdds_seg_hdr
 *   [req_off, +256 + req_cap)     request ring, req_off = 192 (64-aligned)
 *   [arena_off, +arena_size)      reader-ring arena, page-aligned
 * and seg_size = arena_off + arena_size rounded up to a page.
 *
 * Invariants:
 *  - A segment handed out by segment_create carries F_SEAL_SHRINK,
 *    F_SEAL_GROW and F_SEAL_SEAL: neither side can change its size, so a
 *    mapping of seg_size bytes can never fault with SIGBUS, and nobody can
 *    remove the seals later.
 *  - Where the kernel has MFD_NOEXEC_SEAL (Linux 6.3), the segment is
 *    also born with mode 0666 and F_SEAL_EXEC: nobody can execve or
 *    fexecve it, nor chmod it executable. This does not stop mmap with
 *    PROT_EXEC (no kernel does that for a memfd); sdds-sandbox does, for
 *    the programs it runs (docs/sandbox.md, "W^X").
 *  - segment_attach checks the seals before it reads the size, so the size
 *    it maps is final; then it checks every header field it will use.
 *  - A struct segment is open iff base != NULL; segment_close leaves it
 *    closed (base NULL, fd -1), so closing twice or closing a zeroed struct
 *    is harmless and never closes fd 0.
 * Library code: no logging, errors as -errno.
 */
#include "segment.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ring.h"

#define SEG_PAGE 4096u
#define SEG_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)
#define SEG_DEFAULT_NAME "sddsd-segment"

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008u
#endif

static inline bool seg_is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

static inline uint64_t seg_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* [a, a+alen) and [b, b+blen) overlap; empty ranges overlap nothing. */
static inline bool seg_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen != 0 && blen != 0 && a < b + blen && b < a + alen;
}

/* The request ring's footprint: control block plus data. */
static inline uint64_t seg_req_bytes(uint64_t req_cap)
{
	return sizeof(struct sdds_ring_ctl) + req_cap;
}

static int seg_check_params(const struct segment_params *pp)
{
	if (pp == NULL || !seg_is_pow2(pp->req_cap) || pp->max_record < sizeof(struct sdds_rec) ||
	    (uint64_t)pp->max_record * 4 > pp->req_cap || pp->arena_size % SEG_PAGE != 0 ||
	    pp->arena_size > (UINT64_C(1) << 40))
		return -EINVAL;
	return 0;
}

int segment_create(const struct segment_params *params, const char *name, struct segment *ret)
{
	struct sdds_seg_hdr *hdr;
	uint64_t req_off, arena_off, size;
	void *base;
	int fd, rc;

	rc = seg_check_params(params);
	if (rc < 0)
		return rc;
	req_off = seg_align(sizeof(struct sdds_seg_hdr), SDDS_CACHELINE);
	arena_off = seg_align(req_off + seg_req_bytes(params->req_cap), SEG_PAGE);
	size = seg_align(arena_off + params->arena_size, SEG_PAGE);

	/*
	 * Not executable where the kernel knows the flag; older kernels (Debian
	 * 12's 6.1) say EINVAL and get the memfd without it. Asking explicitly
	 * also keeps working under vm.memfd_noexec=2, which on some kernels
	 * refuses a memfd_create that names neither MFD_EXEC nor this flag.
	 */
	name = name != NULL ? name : SEG_DEFAULT_NAME;
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0) {
		rc = -errno;
		goto fail_close_fd;
	}
	/* Seal before anyone else can hold the fd: the size is final from here. */
	if (fcntl(fd, F_ADD_SEALS, SEG_SEALS) < 0) {
		rc = -errno;
		goto fail_close_fd;
	}
	base = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		rc = -errno;
		goto fail_close_fd;
	}

	/* The memfd reads as zeros: only non-zero fields need writing. */
	hdr = base;
	hdr->magic = SDDS_SEG_MAGIC;
	hdr->layout_version = SDDS_LAYOUT_VERSION;
	hdr->epoch = params->epoch;
	hdr->seg_size = size;
	hdr->req_off = req_off;
	hdr->req_cap = params->req_cap;
	hdr->max_record = params->max_record;
	hdr->arena_off = arena_off;
	hdr->arena_size = params->arena_size;
	hdr->session_id = params->session_id;
	hdr->flags = params->flags;
	atomic_init(&hdr->heartbeat, 0);
	atomic_init(&hdr->evt.seq, 0);
	atomic_init(&hdr->evt.waiters, 0);
	ring_format((struct sdds_ring_ctl *)((uint8_t *)base + req_off), params->req_cap);

	ret->fd = fd;
	ret->base = base;
	ret->size = (size_t)size;
	return 0;

fail_close_fd:
	close(fd);
	return rc;
}

/* Check a copy of the header against the mapping size. */
static int seg_check_hdr(const struct sdds_seg_hdr *h, uint64_t size)
{
	uint64_t req_bytes;

	if (h->magic != SDDS_SEG_MAGIC || h->layout_version != SDDS_LAYOUT_VERSION || h->seg_size != size)
		return -EPROTO;
	if (h->req_off % SDDS_CACHELINE != 0 || !seg_is_pow2(h->req_cap) ||
	    h->max_record < sizeof(struct sdds_rec) || (uint64_t)h->max_record * 4 > h->req_cap)
		return -EPROTO;
	req_bytes = seg_req_bytes(h->req_cap);
	/* Written as "length fits in what is left" so that no sum can overflow. */
	if (h->req_off > size || req_bytes > size - h->req_off)
		return -EPROTO;
	if (h->arena_off % SDDS_RRING_ALIGN != 0 || h->arena_off > size ||
	    h->arena_size > size - h->arena_off)
		return -EPROTO;
	if (seg_overlap(0, sizeof(*h), h->req_off, req_bytes) ||
	    seg_overlap(0, sizeof(*h), h->arena_off, h->arena_size) ||
	    seg_overlap(h->req_off, req_bytes, h->arena_off, h->arena_size))
		return -EPROTO;
	return 0;
}

int segment_attach(int fd, struct segment *ret)
{
	struct sdds_seg_hdr copy;
	struct stat st;
	void *base;
	int seals, rc;

	if (fd < 0)
		return -EBADF;
	/* Seals first: once they are there, the size read next cannot change. */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0)
		return -errno;
	if ((seals & SEG_SEALS) != SEG_SEALS)
		return -EPROTO;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(struct sdds_seg_hdr) ||
	    (uint64_t)st.st_size > SIZE_MAX)
		return -EPROTO;
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	/* Check a copy: the fields cannot change between check and use below. */
	memcpy(&copy, base, sizeof(copy));
	rc = seg_check_hdr(&copy, (uint64_t)st.st_size);
	if (rc < 0)
		goto fail_unmap;
	ret->fd = fd;
	ret->base = base;
	ret->size = (size_t)st.st_size;
	return 0;

fail_unmap:
	munmap(base, (size_t)st.st_size);
	return rc;
}

void segment_close(struct segment *seg)
{
	if (seg == NULL || seg->base == NULL)
		return;
	munmap(seg->base, seg->size);
	if (seg->fd >= 0)
		close(seg->fd);
	seg->base = NULL;
	seg->fd = -1;
	seg->size = 0;
}

void *segment_at(const struct segment *seg, uint64_t off, uint64_t len)
{
	if (seg->base == NULL || off > seg->size || len > seg->size - off)
		return NULL;
	return (uint8_t *)seg->base + off;
}
