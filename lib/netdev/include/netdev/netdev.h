/* SPDX-License-Identifier: MIT */
/*
 * netdev.h - the frame-level device interface: what the IPv6 stack
 * (lib/ip6) asks of a NIC driver. drivers/tap implements it on
 * /dev/net/tun, drivers/uio-igb on a userspace-mapped 82576, and the unit
 * tests and the fuzz target on a fake.
 *
 * OVERVIEW
 * A device moves whole Ethernet frames (destination MAC first, no FCS, no
 * preamble) in buffers from one fixed pool (struct netdev_pool), allocated
 * once at open: nothing is allocated per frame. Both directions are batched
 * and return counts, so a driver maps them onto descriptor rings (igb) or a
 * run of read()/write() calls (tap).
 *
 * Ownership, per call:
 *   - netdev_buf_alloc: the caller owns the buffer it returns.
 *   - rx_batch: the caller owns every buffer returned (b[0..ret)); it gives
 *     each back with netdev_buf_free or hands it to tx_batch.
 *   - tx_batch: the device owns the buffers it took (b[0..ret)) and returns
 *     them to the pool once sent; the caller still owns b[ret..n) (the
 *     queue was full: retry or free them).
 *   - netdev_buf_free: the pool owns the buffer again.
 * The pool counts buffers out (pool.out); every user must bring it back to
 * zero before close, which the unit tests check.
 *
 * The base struct: each driver's state embeds struct netdev as member
 * `base` and gets its own struct back with netdev_of (container_of), as
 * ixy's drivers embed struct ixy_device. The driver's open function (not
 * in this interface: its arguments are the driver's own, tap_open and
 * igb_open) fills every field of the base.
 *
 * Timestamps: rx buffers carry the time the frame arrived (ts_ns, the
 * device clock of clock_ns; hardware stamps where caps has
 * NETDEV_CAP_RX_HWTS, else the driver's read time). A tx buffer that sets
 * NETDEV_BUF_TS_REQ and a cookie gets its departure time reported by
 * tx_stamps once sent (hardware with NETDEV_CAP_TX_HWTS, else the time the
 * driver handed the frame on).
 *
 * Threads: none of its own. One owner serialises every call on a device.
 * The driver never logs, never sleeps (every call is non-blocking) and
 * knows nothing of libuv: an event loop watches fd (readable: rx_batch has
 * frames), a polling owner calls rx_batch in its loop.
 *
 * Errors: 0, a count, or -errno; out-parameters only on success.
 */
#ifndef SDDS_NETDEV_NETDEV_H
#define SDDS_NETDEV_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NETDEV_ETH_ALEN 6u
/* Ethernet header: destination, source, EtherType (no VLAN tag). */
#define NETDEV_ETH_HLEN 14u
/* Bytes of one pool buffer by default: a 1500-byte MTU frame and headroom. */
#define NETDEV_BUF_SIZE 2048u

/* netdev_buf.flags */
#define NETDEV_BUF_TS_REQ 0x1u /* tx: report this frame's departure time (tx_stamps) */

/* netdev.caps */
#define NETDEV_CAP_RX_HWTS 0x1u /* rx ts_ns is the NIC's hardware stamp */
#define NETDEV_CAP_TX_HWTS 0x2u /* tx_stamps are the NIC's hardware stamps */
#define NETDEV_CAP_TX_USO 0x4u	/* tx takes UDP segmentation runs (netdev_buf.gso_size) */

/* One frame buffer of a pool. */
struct netdev_buf {
	uint8_t *data;	 /* the frame's first byte (fixed: the buffer's start) */
	uint32_t len;	 /* frame bytes at data */
	uint32_t cap;	 /* bytes the buffer holds */
	int64_t ts_ns;	 /* rx: arrival time on the device clock */
	uint64_t cookie; /* tx with NETDEV_BUF_TS_REQ: given back by tx_stamps */
	uint32_t flags;	 /* NETDEV_BUF_* */
	/*
	 * tx, with NETDEV_CAP_TX_USO: 0, a plain frame; else the frame is one
	 * Ethernet + IPv6 (no extension header) + UDP datagram whose payload
	 * the device cuts into gso_size-byte datagrams (the last may be
	 * shorter), each with the headers, its own lengths and its checksum.
	 * The UDP checksum field then holds the pseudo-header sum over the
	 * whole length, folded and not inverted (virtio-net's NEEDS_CSUM).
	 */
	uint16_t gso_size;
	/* Private to the pool. */
	uint32_t idx;
	struct netdev_buf *next_free;
	bool out; /* owned by someone other than the pool */
};

/*
 * A fixed pool of n buffers of size bytes each, in one block of memory (the
 * pool's own, or one the driver gives it: DMA memory for a NIC).
 */
struct netdev_pool {
	struct netdev_buf *bufs; /* n descriptors */
	uint8_t *mem;		 /* n * size bytes */
	uint32_t n, size;
	struct netdev_buf *free_head;
	uint32_t out;	     /* buffers not in the pool now */
	uint64_t alloc_fail; /* allocations refused: the pool was empty */
	uint32_t out_max;    /* most buffers out at once */
	bool own_mem;	     /* mem was allocated by netdev_pool_init */
};

/* Frame counters every driver keeps (netdev.stats). */
struct netdev_stats {
	uint64_t rx_frames, rx_bytes;
	uint64_t tx_frames, tx_bytes;
	uint64_t rx_nobuf;    /* frames the device had but no buffer could take */
	uint64_t rx_errors;   /* frames the device flagged bad (length, CRC) */
	uint64_t rx_filtered; /* frames for another MAC or an unjoined group */
	uint64_t tx_errors;   /* frames the device could not send */
};

struct netdev_ops;

/* The part every driver's state starts from (see OVERVIEW). */
struct netdev {
	const struct netdev_ops *ops;
	struct netdev_pool *pool; /* rx buffers come from it, tx buffers must */
	char name[32];		  /* the device's name (tap0, 0000:00:03.0) */
	uint8_t mac[NETDEV_ETH_ALEN];
	uint32_t mtu;	       /* IP MTU: the largest payload after the Ethernet header */
	uint32_t caps;	       /* NETDEV_CAP_* */
	int fd;		       /* readable when rx_batch has frames, or -1 (poll only) */
	uint32_t gso_max_segs; /* with NETDEV_CAP_TX_USO: datagrams one run may carry at most */
	/*
	 * After rx_batch: the driver still holds frames it read from the
	 * device (the rest of a run it cut), which the fd no longer shows; a
	 * short count with this set is not "drained".
	 */
	bool rx_pending;
	struct netdev_stats stats;
};

/* The driver struct `type` whose member `member` (a struct netdev) is at d. */
#define netdev_of(d, type, member) ((type *)(void *)((char *)(d)-offsetof(type, member)))

/* One departure time (tx_stamps). */
struct netdev_tx_stamp {
	uint64_t cookie;
	int64_t ts_ns;
};

struct netdev_ops {
	const char *name; /* the driver: "tap", "uio-igb", "fake" */
	/* Receive up to n frames into b[0..ret); 0: none now. */
	int (*rx_batch)(struct netdev *d, struct netdev_buf **b, unsigned n);
	/* Send b[0..n): takes b[0..ret) (see OVERVIEW); fewer than n: the queue is full. */
	int (*tx_batch)(struct netdev *d, struct netdev_buf **b, unsigned n);
	/* Let frames to the multicast MAC in (or stop them); reference counted by the caller. */
	int (*mcast_add)(struct netdev *d, const uint8_t mac[NETDEV_ETH_ALEN]);
	int (*mcast_del)(struct netdev *d, const uint8_t mac[NETDEV_ETH_ALEN]);
	/* Carrier: frames can go out and come in. */
	bool (*link_up)(struct netdev *d);
	/* The device clock (ns; the host's CLOCK_MONOTONIC where the device has none). */
	int64_t (*clock_ns)(struct netdev *d);
	/* Departure times of sent NETDEV_BUF_TS_REQ frames, oldest first; NULL: none kept. */
	int (*tx_stamps)(struct netdev *d, struct netdev_tx_stamp *out, unsigned n);
	/* Stop the device and free its state; every buffer must be back (pool.out == 0). */
	void (*close)(struct netdev *d);
};

/* Makes p a pool of n buffers of size bytes in memory it allocates; -ENOMEM. */
int netdev_pool_init(struct netdev_pool *p, uint32_t n, uint32_t size);
/*
 * As netdev_pool_init on the caller's memory: mem holds n * size bytes
 * (a driver's DMA memory) and desc n descriptors; neither is freed by fini.
 */
void netdev_pool_init_on(struct netdev_pool *p, struct netdev_buf *desc, uint8_t *mem, uint32_t n,
			 uint32_t size);
/* Releases p's memory (its own only). The caller checks p->out == 0 first. */
void netdev_pool_fini(struct netdev_pool *p);
/* A buffer (len 0, flags 0, ts 0) or NULL when the pool is empty (counted). */
struct netdev_buf *netdev_buf_alloc(struct netdev_pool *p);
/* Gives b back to p; NULL does nothing. A buffer given back twice is a bug: it aborts. */
void netdev_buf_free(struct netdev_pool *p, struct netdev_buf *b);

#endif /* SDDS_NETDEV_NETDEV_H */
