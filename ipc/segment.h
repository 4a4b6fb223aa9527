/* SPDX-License-Identifier: MIT */
/*
 * segment.h - create, seal, map and check the per-client shared segment.
 *
 * OVERVIEW
 * The daemon creates the segment (memfd_create, ftruncate, seals
 * F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_SEAL), maps it and formats the header and
 * the request ring. The client maps the fd it received and checks that the
 * header is one it understands and that every offset lies inside the mapping.
 * No named object is ever created: when both sides close the fd and unmap,
 * the memory is gone.
 */
#ifndef SDDS_IPC_SEGMENT_H
#define SDDS_IPC_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"

struct segment_params {
	uint32_t req_cap;    /* request ring bytes, power of two */
	uint32_t max_record; /* largest request record, header included */
	uint64_t arena_size; /* reader-ring arena bytes, multiple of 4096 */
	uint64_t epoch;
	uint32_t session_id;
	uint32_t flags; /* SDDS_SEG_F_* */
};

struct segment {
	int fd;	    /* owned */
	void *base; /* mapping, owned */
	size_t size;
};

/*
 * Daemon side: create, size, format, seal and map a segment. On success
 * *ret is filled (the caller owns fd and mapping; segment_close frees both).
 * Layout: header at 0, request ring at req_off = 192, arena page-aligned
 * after it, seg_size a multiple of 4096. name (may be NULL) is the memfd's
 * name as /proc shows it. Returns 0, -EINVAL (req_cap not a power of two,
 * 4 * max_record > req_cap, max_record < 16, arena_size not a multiple of
 * 4096) or -errno.
 */
int segment_create(const struct segment_params *params, const char *name, struct segment *ret);

/*
 * Client side: map fd (ownership of fd passes to the segment on success
 * only) and validate the header: magic, version, sizes, offsets within the
 * mapping, seals present. Returns 0, -EPROTO (bad header), -EBADF, or -errno
 * of mmap/fstat/fcntl.
 */
int segment_attach(int fd, struct segment *ret);

/*
 * Unmap and close; accepts a zeroed or already closed segment. A segment
 * is open iff base != NULL (so a zeroed struct never closes fd 0);
 * afterwards base is NULL and fd is -1.
 */
void segment_close(struct segment *seg);

static inline struct sdds_seg_hdr *segment_hdr(const struct segment *seg)
{
	return (struct sdds_seg_hdr *)seg->base;
}

/* Pointer at offset off if [off, off+len) lies inside the segment, else NULL. */
void *segment_at(const struct segment *seg, uint64_t off, uint64_t len);

#endif /* SDDS_IPC_SEGMENT_H */
