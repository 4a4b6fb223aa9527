/* SPDX-License-Identifier: MIT */
/*
 * layout.h - the shared segment between one client and sddsd.
 *
 * OVERVIEW
 * One segment per client: a memfd created by the daemon, sized, sealed
 * (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) and handed to the client with
 * SCM_RIGHTS. Both sides map all of it read-write. Nothing in it is a pointer:
 * every location is an offset from the start of the segment.
 *
 *   +0                    struct sdds_seg_hdr          (daemon writes, client reads)
 *   +req_off              struct sdds_ring_ctl + data  request ring (client -> daemon)
 *   +arena_off            reader rings                 (daemon -> client), carved
 *                         by the daemon at reader creation; each one is a
 *                         struct sdds_rring_ctl followed by cap slots.
 *
 * Trust: the daemon trusts nothing in the segment. It never reads back a
 * value it published (it keeps private copies of its own indices), copies
 * every record out before it checks it, and bounds every index a client
 * published against its private view. A client that breaks a rule is
 * disconnected alone. The client trusts the daemon, but still checks that
 * offsets handed to it fall inside the mapping.
 *
 * Atomics are at most 64 bits and lock-free; no process-shared mutex exists.
 */
#ifndef SDDS_IPC_LAYOUT_H
#define SDDS_IPC_LAYOUT_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#include <atomic>
#define SDDS_ATOMIC(t) std::atomic<t>
#else
#include <stdatomic.h>
#define SDDS_ATOMIC(t) _Atomic t
#endif

#define SDDS_SEG_MAGIC 0x53444453u /* "SDDS" */
#define SDDS_LAYOUT_VERSION 1u
#define SDDS_CACHELINE 64

/*
 * A doorbell: the futex word `seq` is bumped by the notifier, and only when
 * `waiters` is non-zero, so a side that is awake costs the other side one
 * fence and one load, never a system call. See ipc/doorbell.h for the
 * protocol that makes it free of lost wake-ups.
 */
struct sdds_doorbell {
	alignas(SDDS_CACHELINE) SDDS_ATOMIC(uint32_t) seq;
	SDDS_ATOMIC(uint32_t) waiters;
	uint8_t pad_[SDDS_CACHELINE - 8];
};
_Static_assert(sizeof(struct sdds_doorbell) == 64, "doorbell is one cache line");

/*
 * Segment header, at offset 0. The daemon fills it before it hands the
 * segment over; afterwards it writes only `heartbeat` and the doorbells.
 */
struct sdds_seg_hdr {
	uint32_t magic;		 /* SDDS_SEG_MAGIC */
	uint32_t layout_version; /* SDDS_LAYOUT_VERSION */
	uint64_t epoch;		 /* daemon instance; changes on every daemon start */
	uint64_t seg_size;	 /* bytes in the whole segment */
	uint64_t req_off;	 /* offset of the request ring's struct sdds_ring_ctl */
	uint32_t req_cap;	 /* request ring data bytes, a power of two */
	uint32_t max_record;	 /* largest request record (header + payload) */
	uint64_t arena_off;	 /* offset of the reader-ring arena */
	uint64_t arena_size;	 /* bytes in the arena */
	uint32_t session_id;	 /* the daemon's id for this client */
	uint32_t flags;		 /* SDDS_SEG_F_* */
	/* flags ends at byte 64: heartbeat starts the next cache line. */
	alignas(SDDS_CACHELINE) SDDS_ATOMIC(uint64_t) heartbeat; /* daemon loop tick counter */
	/*
	 * Event doorbell: bumped whenever the daemon publishes into any reader
	 * ring of this client while the client has a waiter (a blocking take or
	 * the callback-manager thread).
	 */
	struct sdds_doorbell evt;
};
#define SDDS_SEG_F_DAEMON_POLLING 0x1u /* daemon polls rings: no kick needed */

_Static_assert(offsetof(struct sdds_seg_hdr, magic) == 0, "layout pinned");
_Static_assert(offsetof(struct sdds_seg_hdr, epoch) == 8, "layout pinned");
_Static_assert(offsetof(struct sdds_seg_hdr, req_off) == 24, "layout pinned");
_Static_assert(offsetof(struct sdds_seg_hdr, arena_off) == 40, "layout pinned");
_Static_assert(offsetof(struct sdds_seg_hdr, session_id) == 56, "layout pinned");
_Static_assert(offsetof(struct sdds_seg_hdr, heartbeat) == 64, "layout pinned");
_Static_assert(offsetof(struct sdds_seg_hdr, evt) == 128, "layout pinned");
_Static_assert(sizeof(struct sdds_seg_hdr) == 192, "layout pinned");

/*
 * Request ring (client -> daemon): variable-size records in a byte ring with
 * free-running 64-bit indices. A record never wraps: a producer that does not
 * fit before the end writes a PAD record to the end and starts at 0.
 *
 * `prod` is written by the client only; `cons` by the daemon only.
 * `data` doorbell: the daemon, about to sleep on this ring, sets
 *   data.waiters; the client, after publishing, kicks the daemon's eventfd
 *   (not a futex: the daemon sleeps in epoll).
 * `space` doorbell: the client, waiting for room, sleeps on space.seq;
 *   the daemon bumps and wakes it after consuming.
 */
struct sdds_ring_ctl {
	alignas(SDDS_CACHELINE) SDDS_ATOMIC(uint64_t) prod;
	struct sdds_doorbell data;
	alignas(SDDS_CACHELINE) SDDS_ATOMIC(uint64_t) cons;
	struct sdds_doorbell space;
	/* data bytes follow at offset sizeof(struct sdds_ring_ctl) */
};
_Static_assert(sizeof(struct sdds_ring_ctl) == 256, "layout pinned");
_Static_assert(offsetof(struct sdds_ring_ctl, cons) == 128, "layout pinned");

/* A request record header; payload follows; records are 16-byte aligned. */
struct sdds_rec {
	uint32_t len;	 /* payload bytes (not counting this header) */
	uint16_t type;	 /* SDDS_REC_* */
	uint16_t flags;	 /* must be 0 */
	uint32_t handle; /* writer id for SDDS_REC_WRITE */
	uint32_t seq;	 /* client's running count, for diagnostics */
};
_Static_assert(sizeof(struct sdds_rec) == 16, "layout pinned");
#define SDDS_REC_ALIGN 16u
#define SDDS_REC_PAD 1u	  /* skip to the start of the ring; len = bytes to skip after header */
#define SDDS_REC_WRITE 2u /* a sample for writer `handle`, payload = marshalled sample */

/*
 * Reader ring (daemon -> client): fixed-size slots with per-slot sequence
 * words (a seqlock per slot). The daemon is the only producer and keeps its
 * index privately; `prod` is published for the client. The client owns
 * `cons`.
 *
 * Best effort: the daemon never waits. When the client lags by `cap` slots
 * the daemon overwrites the oldest slot (drop oldest); the client sees a slot
 * sequence beyond the one it expects, skips forward, and counts the loss.
 * Reliable: the daemon does not publish position p while p - cons >= cap
 * (cons as read from the client, bounded); it sets space.waiters and the
 * client kicks the daemon's eventfd after it consumed.
 *
 * Slot protocol (producer at position p, slot i = p & (cap - 1)):
 *   seq = 0 (relaxed); release fence; write len + data; seq = p + 1 (release);
 *   and once per batch of slots, prod = p + 1 (release). A slot is valid by
 *   its seq word before prod covers it: a consumer may take past prod, and
 *   sees prod catch up before the daemon notifies or waits.
 * Consumer at position c: s1 = seq (acquire); s1 == c + 1 means the slot
 * holds c; copy out; acquire fence; s2 = seq; s2 != s1 means the slot was
 * overwritten while copying: the copy is void, skip forward.
 */
struct sdds_rring_ctl {
	alignas(SDDS_CACHELINE) SDDS_ATOMIC(uint64_t) prod;
	uint32_t cap;	    /* slots, a power of two */
	uint32_t slot_size; /* bytes per slot including struct sdds_rslot */
	alignas(SDDS_CACHELINE) SDDS_ATOMIC(uint64_t) cons;
	struct sdds_doorbell space;
	/* slots follow at offset sizeof(struct sdds_rring_ctl) */
};
_Static_assert(sizeof(struct sdds_rring_ctl) == 192, "layout pinned");
_Static_assert(offsetof(struct sdds_rring_ctl, cons) == 64, "layout pinned");

struct sdds_rslot {
	SDDS_ATOMIC(uint64_t) seq; /* position + 1 when valid, 0 while written */
	uint32_t len;		   /* payload bytes */
	uint32_t origin;	   /* session id of the writer's client, 0 = network */
				   /* payload follows */
};
_Static_assert(sizeof(struct sdds_rslot) == 16, "layout pinned");

#define SDDS_RRING_ALIGN 64u

#endif /* SDDS_IPC_LAYOUT_H */
