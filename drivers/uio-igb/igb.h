/* SPDX-License-Identifier: MIT */
/*
 * igb.h - the netdev (lib/netdev/include/netdev/netdev.h) on an Intel
 * 82576 driven from userspace: BAR0 and interrupts through uio_pci_generic
 * (pci.h), descriptor rings and frame buffers in hugepages (dma.h), and
 * the NIC's IEEE 1588 clock (SYSTIM) for every timestamp.
 *
 * OVERVIEW
 * igb_open finds (or takes) the PCI function, resets the device, brings
 * the link up through PHY autonegotiation (MDIC), sets up one advanced RX
 * and one advanced TX descriptor ring, starts SYSTIM at 1 ns per ns
 * (TIMINCA) aligned to CLOCK_REALTIME (TIMADJ), and gives back a struct
 * netdev. Each step cites the 82576 datasheet section it follows (igb.c).
 *
 * Interrupts or polling: with igb_config.poll off, netdev.fd is /dev/uioN
 * (readable on an interrupt: RX written back, link change); rx_batch
 * consumes the event, clears the cause and unmasks INTx again. With poll
 * on, the device never interrupts and netdev.fd is -1: the owner calls
 * rx_batch in a loop (on a pinned core).
 *
 * Timestamps (the 82576 latches one TX and one RX stamp at a time,
 * datasheet 7.9): a NETDEV_BUF_TS_REQ frame is sent with the descriptor's
 * timestamp bit when no other stamp is outstanding, and tx_stamps gives
 * back its SYSTIM latch (NETDEV_CAP_TX_HWTS); a request made while one is
 * outstanding goes out unstamped and is counted (igb_stats.tx_ts_busy).
 * The 82576 stamps received PTP event frames only (it cannot stamp every
 * frame, unlike the 82580), so every other frame's ts_ns is the SYSTIM read
 * when rx_batch found it, and NETDEV_CAP_RX_HWTS is off.
 *
 * Ownership: the caller owns the netdev from igb_open until ops->close,
 * which resets the device (no DMA after it returns), unmaps and closes.
 * Threads: none; one owner serialises every call (netdev.h).
 * Errors: 0 or -errno; `why` gets a sentence on failure, with the register
 * values when the device did not answer (reset, link, MDIC).
 */
#ifndef SDDS_DRIVERS_UIO_IGB_IGB_H
#define SDDS_DRIVERS_UIO_IGB_IGB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netdev/netdev.h>

#include "dma.h"
#include "io.h"

#define IGB_RING_DEFAULT 256u
#define IGB_POOL_DEFAULT 1024u

struct igb_config {
	/* The PCI function (0000:00:03.0); "" the first 82576 found. */
	char pci[32];
	/* Bind uio_pci_generic when the function has no driver or another one. */
	bool bind;
	/* Busy-poll: no interrupts, netdev.fd -1. */
	bool poll;
	/* Descriptors per ring: a multiple of 8 in [8, 4096]; 0: IGB_RING_DEFAULT. */
	uint32_t rx_ring, tx_ring;
	/* Frame buffers (rx and tx share them); 0: IGB_POOL_DEFAULT. */
	uint32_t pool_bufs;
	/* The station address when mac_set; else the NIC's own (RAL0/RAH0 after reset). */
	uint8_t mac[NETDEV_ETH_ALEN];
	bool mac_set;
	/* Give up after these (ms; 0: the defaults 100 and 5000). A link still down is not an error. */
	uint32_t reset_timeout_ms, link_timeout_ms;
	/* Tests: a fake register file and DMA memory instead of the PCI function (pci ignored). */
	const struct igb_io *fake_io;
	const struct igb_dma *fake_dma;
};

/* Counters beyond netdev_stats. */
struct igb_stats {
	uint64_t rx_desc_bad;	/* written-back descriptors refused (length, EOP, error bits) */
	uint64_t rx_ptp_stamps; /* PTP frames with the hardware RX latch */
	uint64_t tx_stamps;	/* TX hardware stamps read back */
	uint64_t tx_ts_busy;	/* requests sent unstamped: a stamp was outstanding */
	uint64_t tx_ts_lost;	/* stamps that never latched (cleared after a timeout) */
	uint64_t irqs;		/* interrupt events taken from /dev/uioN */
	uint64_t link_changes;
};

/* The defaults: first 82576, bind off, interrupts, default rings, pool and timeouts. */
void igb_config_init(struct igb_config *cfg);

/* Opens and starts the device of cfg; *ret is its netdev (the caller's until ops->close). */
int igb_open(const struct igb_config *cfg, struct netdev **ret, char *why, size_t why_len);

/* Whether d is a uio-igb netdev. */
bool igb_is(const struct netdev *d);
/* d's counters (d from igb_open). */
void igb_stats(struct netdev *d, struct igb_stats *ret);
/* The NIC clock: the whole 64-bit SYSTIM, read in its latching order (ns). */
uint64_t igb_systim(struct netdev *d);
/* Adds delta_ns to SYSTIM (TIMADJ). */
int igb_clock_adjust(struct netdev *d, int64_t delta_ns);

/*
 * The PCIe paper's measurement on one frame (sdds-nicprobe): b (the
 * caller's, from d's pool; the device owns it after the call) is queued
 * with a timestamp request, the tail written, then SYSTIM read twice at
 * once (t_clk1, t_clk2); the call waits (bounded: -ETIMEDOUT) for the TX
 * latch, t_tx. -EBUSY: a stamp is outstanding or the ring is full.
 */
struct igb_probe_times {
	uint64_t t_clk1, t_clk2, t_tx;
};
int igb_probe_xmit(struct netdev *d, struct netdev_buf *b, struct igb_probe_times *ret);

#endif /* SDDS_DRIVERS_UIO_IGB_IGB_H */
