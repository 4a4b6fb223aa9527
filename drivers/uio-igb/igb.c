/* SPDX-License-Identifier: MIT */
/*
 * igb.c - the netdev on an Intel 82576: device initialisation, the
 * advanced RX and TX descriptor rings, the IEEE 1588 clock and its
 * timestamps, the multicast table. Section numbers are those of the Intel
 * 82576EB GbE Controller Datasheet (rev 2.x).
 *
 * OVERVIEW
 * igb_open gets its register file and DMA memory either from the PCI
 * function (pci.c, dma.c) or from the caller (cfg->fake_io, fake_dma: the
 * unit tests); everything after that is the same code. DMA memory layout:
 * the RX ring at offset 0, the TX ring at 64 KiB (a ring is at most 4096 x
 * 16 bytes, so both lie in the first hugepage), then the pool's 2 KiB
 * buffers from 128 KiB: 2 KiB-aligned buffers never cross a 2 MiB page, so
 * each is physically contiguous.
 *
 * RX ring invariant: every descriptor always holds a pool buffer
 * (rx_bufs[i]); software owns [rx_next, RDT] and the device the rest. A
 * written-back descriptor is handed out (and refilled with a fresh
 * buffer) only when it passes the checks in igb_rx_check; otherwise its
 * buffer goes straight back to the device. The device may write anything
 * into a descriptor: nothing read from one is used as an index, and the
 * length is bounded by the buffer's size.
 *
 * TX ring: tx_bufs[i] is the buffer descriptor i sends; [tx_head, tx_tail)
 * are in flight (tx_used of them, at most tx_n - 1 so that TDT never
 * reaches TDH). Every descriptor asks for status (RS), and tx_batch
 * reclaims those the device marked done (DD) before queueing.
 *
 * Timestamps: the 82576 latches one TX stamp at a time (7.9.2), so one
 * request is outstanding (ts_pending); its stamp goes into a small ring
 * that tx_stamps empties, or it is declared lost after 1 s (on the host's
 * monotonic clock or the NIC's) and the latch cleared.
 *
 * Ownership: struct igb and its arrays are the driver's from igb_open to
 * close; the pool's buffers are the caller's while out (netdev.h).
 * Threads: none; one owner serialises every call.
 * Errors: 0 or -errno; `why` gets a sentence with the register values
 * when the device did not answer. The driver never logs.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "igb.h"
#include "pci.h"
#include "regs.h"
#include "why.h"

#define IGB_BUF_SIZE NETDEV_BUF_SIZE
#define IGB_TX_RING_OFF 0x10000u
#define IGB_BUFS_OFF 0x20000u
#define IGB_RING_MAX 4096u
#define IGB_MCAST_MAX 64u
#define IGB_STAMPS 16u
#define IGB_TS_TIMEOUT_NS 1000000000LL
#define IGB_MDIC_TIMEOUT_NS 100000000LL
#define IGB_QUEUE_TIMEOUT_NS 10000000LL
/* The largest frame tx_batch takes: the MTU, the Ethernet header and one VLAN tag. */
#define IGB_MTU 1500u
#define IGB_TX_MAX (IGB_MTU + NETDEV_ETH_HLEN + 4u)

struct igb_mcast {
	uint8_t mac[NETDEV_ETH_ALEN];
	uint32_t refs;
};

struct igb {
	struct netdev base;
	struct netdev_pool pool;
	struct igb_io io;
	struct igb_dma dma;
	struct igb_pci pci;
	bool real; /* io and dma are the PCI function's (else the caller's fakes) */
	bool poll;
	uint32_t reset_timeout_ms;

	volatile union igb_rx_desc *rxr;
	volatile struct igb_tx_desc *txr;
	uint32_t rx_n, tx_n;
	struct netdev_buf **rx_bufs, **tx_bufs;
	uint32_t rx_next;
	bool rx_discard;	 /* the rest of a frame that spans descriptors is dropped */
	bool rx_latch_held;	 /* the RX latch was seen held by no frame we got */
	uint64_t rx_latch_since; /* NIC time it was first seen so */
	uint32_t tx_head, tx_tail, tx_used;

	bool ts_pending;
	uint64_t ts_cookie;
	int64_t ts_mono;    /* host monotonic time of the request */
	uint64_t ts_systim; /* NIC time of the request */
	struct netdev_tx_stamp stamps[IGB_STAMPS];
	uint32_t st_head, st_tail; /* free-running */

	uint32_t irq_count; /* the kernel's total at the last take */
	struct igb_mcast mc[IGB_MCAST_MAX];
	uint32_t n_mc;
	struct igb_stats st;
};

static const struct netdev_ops igb_ops;

static struct igb *igb_of(struct netdev *d)
{
	return netdev_of(d, struct igb, base);
}

static int64_t igb_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void igb_pause_us(long us)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = us * 1000L};

	nanosleep(&ts, NULL);
}

/*
 * Write barrier before a tail register write: the descriptor (and buffer)
 * stores must be visible in memory before the device, told by the tail,
 * fetches them. x86 keeps stores in order, also against uncached MMIO
 * stores, so the compiler must only not move them (release fence).
 */
static inline void igb_wmb(void)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

/*
 * Read barrier after a descriptor's DD bit was seen set: the reads of the
 * rest of the write-back (length, errors) and of the frame must not be
 * done before the DD read, or they could see the values from before the
 * device wrote them. x86 keeps loads in order; the fence stops the compiler.
 */
static inline void igb_rmb(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

static inline uint32_t igb_rd(const struct igb *g, uint32_t reg)
{
	return igb_rd32(&g->io, reg);
}

static inline void igb_wr(const struct igb *g, uint32_t reg, uint32_t val)
{
	igb_wr32(&g->io, reg, val);
}

/* 8.16.x: reading SYSTIML latches SYSTIMH, so the low word goes first. */
static uint64_t igb_read_systim(const struct igb *g)
{
	uint32_t lo = igb_rd(g, IGB_SYSTIML);
	uint32_t hi = igb_rd(g, IGB_SYSTIMH);

	return (uint64_t)hi << 32 | lo;
}

/*
 * 8.16.x TIMADJ: sign (TIMADJH bit 31) and magnitude; the device adds it to
 * SYSTIM when TIMADJH is written. QEMU 10's model reads the pair as one
 * two's complement number instead, so there only positive adjustments
 * (the alignment at open, where SYSTIM lags CLOCK_REALTIME) mean the same.
 */
static void igb_timadj(const struct igb *g, int64_t delta)
{
	uint64_t mag = delta < 0 ? -(uint64_t)delta : (uint64_t)delta;

	igb_wr(g, IGB_TIMADJL, (uint32_t)mag);
	igb_wr(g, IGB_TIMADJH,
	       ((uint32_t)(mag >> 32) & ~IGB_TIMADJH_SIGN) | (delta < 0 ? IGB_TIMADJH_SIGN : 0));
}

/* 4.5.x / 4.6.3.2: global reset (CTRL.RST), waited for with a bound. */
static int igb_reset(struct igb *g, char *why, size_t why_len)
{
	int64_t end = igb_mono_ns() + (int64_t)g->reset_timeout_ms * 1000000LL;
	uint32_t ctrl;

	igb_wr(g, IGB_CTRL, igb_rd(g, IGB_CTRL) | IGB_CTRL_RST);
	/* The device ignores register accesses for about 1 ms after the reset starts (4.5). */
	igb_pause_us(1000);
	/* A read after the deadline decides: an oversleeping host must not fail a device that is done. */
	for (;;) {
		bool late = igb_mono_ns() > end;

		ctrl = igb_rd(g, IGB_CTRL);
		if (!(ctrl & IGB_CTRL_RST))
			return 0;
		if (late)
			break;
		igb_pause_us(100);
	}
	igb_why(why, why_len,
		"82576 reset did not complete in %u ms (CTRL.RST still set): CTRL=0x%08x STATUS=0x%08x "
		"EECD=0x%08x",
		g->reset_timeout_ms, ctrl, igb_rd(g, IGB_STATUS), igb_rd(g, IGB_EECD));
	return -ETIMEDOUT;
}

/* 8.2.4 MDIC: one PHY register access, waited for (READY) with a bound; ERROR is an error. */
static int igb_mdic(struct igb *g, bool write, uint32_t reg, uint16_t *val, char *why, size_t why_len)
{
	uint32_t cmd = reg << IGB_MDIC_REG_SHIFT | IGB_PHY_ADDR << IGB_MDIC_PHY_SHIFT;
	int64_t end = igb_mono_ns() + IGB_MDIC_TIMEOUT_NS;
	uint32_t m;

	cmd |= write ? IGB_MDIC_OP_WRITE | *val : IGB_MDIC_OP_READ;
	igb_wr(g, IGB_MDIC, cmd);
	for (;;) {
		bool late = igb_mono_ns() > end;

		m = igb_rd(g, IGB_MDIC);
		if (m & IGB_MDIC_READY)
			break;
		if (late) {
			igb_why(why, why_len,
				"PHY register %u %s: MDIC never became ready: MDIC=0x%08x STATUS=0x%08x", reg,
				write ? "write" : "read", m, igb_rd(g, IGB_STATUS));
			return -ETIMEDOUT;
		}
		igb_pause_us(10);
	}
	if (m & IGB_MDIC_ERROR) {
		igb_why(why, why_len, "PHY register %u %s failed: MDIC=0x%08x (ERROR) STATUS=0x%08x", reg,
			write ? "write" : "read", m, igb_rd(g, IGB_STATUS));
		return -EIO;
	}
	if (!write)
		*val = (uint16_t)(m & IGB_MDIC_DATA_MASK);
	return 0;
}

/* Hands descriptor i to the device with its buffer (7.1.5 read format; hdr_addr 0 also clears DD). */
static void igb_rx_give(struct igb *g, uint32_t i)
{
	g->rxr[i].read.pkt_addr = igb_dma_pa(&g->dma, g->rx_bufs[i]->data);
	g->rxr[i].read.hdr_addr = 0;
}

/* 8.10.x MTA with RCTL.MO 0: the hash is address bits 47:36, a bit among 128 x 32. */
static uint32_t igb_mta_hash(const uint8_t mac[NETDEV_ETH_ALEN])
{
	return ((uint32_t)mac[5] << 8 | mac[4]) >> 4 & 0xfffu;
}

static void igb_mta_write(struct igb *g)
{
	uint32_t mta[IGB_MTA_N] = {0};

	for (uint32_t k = 0; k < g->n_mc; k++) {
		uint32_t h = igb_mta_hash(g->mc[k].mac);

		mta[h >> 5] |= 1u << (h & 31);
	}
	for (uint32_t k = 0; k < IGB_MTA_N; k++)
		igb_wr(g, IGB_MTA(k), mta[k]);
}

/* Waits (bounded) for a queue's ENABLE bit to read back (4.6.7, 4.6.8). */
static int igb_queue_wait(struct igb *g, uint32_t reg, const char *what, char *why, size_t why_len)
{
	int64_t end = igb_mono_ns() + IGB_QUEUE_TIMEOUT_NS;
	uint32_t v;

	for (;;) {
		bool late = igb_mono_ns() > end;

		v = igb_rd(g, reg);
		if (v & IGB_QUEUE_ENABLE)
			return 0;
		if (late) {
			igb_why(why, why_len, "%s queue 0 did not enable: %sDCTL=0x%08x STATUS=0x%08x", what,
				what, v, igb_rd(g, IGB_STATUS));
			return -ETIMEDOUT;
		}
		igb_pause_us(10);
	}
}

/* The device's start (4.6), on g's register file and DMA memory, whatever they are. */
static int igb_init(struct igb *g, const struct igb_config *cfg, char *why, size_t why_len)
{
	uint32_t link_ms = cfg->link_timeout_ms ? cfg->link_timeout_ms : 5000;
	uint64_t rx_pa = igb_dma_pa(&g->dma, (const void *)g->rxr);
	uint64_t tx_pa = igb_dma_pa(&g->dma, (const void *)g->txr);
	struct timespec rt;
	uint16_t bmcr;
	int64_t end;
	int err;

	/* 4.6.3.1: interrupts masked before the reset, so none fires while it runs. */
	igb_wr(g, IGB_IMC, 0xffffffffu);
	igb_wr(g, IGB_EIMC, 0xffffffffu);
	/* 4.6.3.2: global reset; then mask again (the reset clears the masks) and clear pending causes. */
	err = igb_reset(g, why, why_len);
	if (err)
		return err;
	igb_wr(g, IGB_IMC, 0xffffffffu);
	igb_wr(g, IGB_EIMC, 0xffffffffu);
	(void)igb_rd(g, IGB_ICR);

	/* 4.6.5 link setup (copper): CTRL.SLU, then PHY autonegotiation through MDIC (8.2.4). */
	igb_wr(g, IGB_CTRL, igb_rd(g, IGB_CTRL) | IGB_CTRL_SLU);
	err = igb_mdic(g, false, IGB_PHY_BMCR, &bmcr, why, why_len);
	if (err)
		return err;
	bmcr = (uint16_t)((bmcr | IGB_BMCR_AUTOEN | IGB_BMCR_ANRESTART) & ~IGB_BMCR_PDOWN);
	err = igb_mdic(g, true, IGB_PHY_BMCR, &bmcr, why, why_len);
	if (err)
		return err;
	/* A link still down after the wait is not an error: link_up says so and LSC tells when it comes. */
	end = igb_mono_ns() + (int64_t)link_ms * 1000000LL;
	while (!(igb_rd(g, IGB_STATUS) & IGB_STATUS_LU) && igb_mono_ns() < end)
		igb_pause_us(1000);

	/* 8.10.x RAL0/RAH0: the station address, the caller's or the one the NIC loaded from its EEPROM. */
	if (cfg->mac_set) {
		const uint8_t *m = cfg->mac;

		igb_wr(g, IGB_RAL0,
		       (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24);
		igb_wr(g, IGB_RAH0, (uint32_t)m[4] | (uint32_t)m[5] << 8 | IGB_RAH_AV);
		memcpy(g->base.mac, m, NETDEV_ETH_ALEN);
	} else {
		uint32_t ral = igb_rd(g, IGB_RAL0), rah = igb_rd(g, IGB_RAH0);

		for (unsigned k = 0; k < 4; k++)
			g->base.mac[k] = (uint8_t)(ral >> (8 * k));
		g->base.mac[4] = (uint8_t)rah;
		g->base.mac[5] = (uint8_t)(rah >> 8);
		igb_wr(g, IGB_RAH0, rah | IGB_RAH_AV);
	}

	/* 4.6.7 receive initialisation: an empty MTA, then ring 0 with advanced one-buffer descriptors. */
	igb_mta_write(g);
	for (uint32_t i = 0; i < g->rx_n; i++)
		igb_rx_give(g, i);
	igb_wr(g, IGB_RDBAL0, (uint32_t)rx_pa);
	igb_wr(g, IGB_RDBAH0, (uint32_t)(rx_pa >> 32));
	igb_wr(g, IGB_RDLEN0, g->rx_n * (uint32_t)sizeof(union igb_rx_desc));
	igb_wr(g, IGB_SRRCTL0,
	       (IGB_BUF_SIZE / 1024u) << IGB_SRRCTL_BSIZEPKT_SHIFT | IGB_SRRCTL_DESCTYPE_ADV1 |
		   IGB_SRRCTL_DROP_EN);
	igb_wr(g, IGB_RDH0, 0);
	igb_wr(g, IGB_RXDCTL0, IGB_QUEUE_ENABLE);
	err = igb_queue_wait(g, IGB_RXDCTL0, "RX", why, why_len);
	if (err)
		return err;
	/* The descriptors were written before RDT hands them over (igb_wmb). */
	igb_wmb();
	igb_wr(g, IGB_RDT0, g->rx_n - 1);
	/* 8.10.1 RCTL: no promiscuous mode (UPE, MPE clear), broadcasts in, MO 0, FCS stripped. */
	igb_wr(g, IGB_RCTL, IGB_RCTL_EN | IGB_RCTL_BAM | IGB_RCTL_SECRC);

	/* 4.6.8 transmit initialisation: ring 0, then TCTL (8.12.1) with padding and full-duplex COLD. */
	igb_wr(g, IGB_TDBAL0, (uint32_t)tx_pa);
	igb_wr(g, IGB_TDBAH0, (uint32_t)(tx_pa >> 32));
	igb_wr(g, IGB_TDLEN0, g->tx_n * (uint32_t)sizeof(struct igb_tx_desc));
	igb_wr(g, IGB_TDH0, 0);
	igb_wr(g, IGB_TDT0, 0);
	igb_wr(g, IGB_TXDCTL0, IGB_QUEUE_ENABLE);
	err = igb_queue_wait(g, IGB_TXDCTL0, "TX", why, why_len);
	if (err)
		return err;
	igb_wr(g, IGB_TCTL,
	       IGB_TCTL_EN | IGB_TCTL_PSP | IGB_TCTL_CT << IGB_TCTL_CT_SHIFT |
		   IGB_TCTL_COLD << IGB_TCTL_COLD_SHIFT);

	/*
	 * 7.9 time sync: SYSTIM gains INCVALUE 16 every INCPERIOD 1 (16 ns),
	 * 1 ns per ns (7.9.1.1). QEMU's model does not let SYSTIM be written,
	 * so it is aligned to CLOCK_REALTIME by adding the difference (TIMADJ).
	 */
	igb_wr(g, IGB_TIMINCA, 1u << IGB_TIMINCA_PERIOD_SHIFT | 16u);
	clock_gettime(CLOCK_REALTIME, &rt);
	igb_timadj(g, (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec - (int64_t)igb_read_systim(g));
	/* 7.9.2: TX stamps on request; RX stamps for L2 PTP v2 frames, which ETQF(0) marks (8.10.x). */
	igb_wr(g, IGB_TSYNCTXCTL, IGB_TSYNC_EN);
	igb_wr(g, IGB_TSYNCRXCTL, IGB_TSYNC_EN | IGB_TSYNCRXCTL_TYPE_L2_V2);
	igb_wr(g, IGB_ETQF(0), IGB_ETHERTYPE_1588 | IGB_ETQF_FILTER_EN | IGB_ETQF_1588);

	/* 8.8.x IMS: interrupt on RX write-back and link change; busy-poll leaves all masked. */
	if (!cfg->poll)
		igb_wr(g, IGB_IMS, IGB_INT_RXDW | IGB_INT_LSC);
	return 0;
}

/* Checks a written-back descriptor (7.1.5): true when its frame may be handed out. */
static bool igb_rx_check(struct igb *g, uint32_t status_error, uint32_t len, uint32_t cap)
{
	bool spans = g->rx_discard;

	/* A frame larger than one buffer spans descriptors: drop every part up to its EOP. */
	g->rx_discard = !(status_error & IGB_RXD_STAT_EOP);
	if (spans || g->rx_discard)
		return false;
	if (status_error & IGB_RXD_ERR_FRAME)
		return false;
	return len >= NETDEV_ETH_HLEN && len <= cap;
}

/*
 * A dropped frame that the device stamped (TS) holds the RX latch: reading
 * RXSTMPH frees it, or no later PTP frame would be stamped (7.9.2).
 */
static void igb_rx_unlatch(struct igb *g, uint32_t status_error)
{
	if ((status_error & IGB_RXD_STAT_TS) && (igb_rd(g, IGB_TSYNCRXCTL) & IGB_TSYNC_VALID))
		(void)igb_rd(g, IGB_RXSTMPH);
}

/*
 * A PTP frame came without a stamp while the RX latch may be held by a
 * frame the device dropped (its ring was full): such a latch would block
 * every later stamp. Held for over a second of NIC time across such
 * frames, it is freed (RXSTMPH). Only unstamped PTP frames pay the read.
 */
static void igb_rx_latch_check(struct igb *g, uint64_t now)
{
	if (!(igb_rd(g, IGB_TSYNCRXCTL) & IGB_TSYNC_VALID)) {
		g->rx_latch_held = false;
	} else if (!g->rx_latch_held) {
		g->rx_latch_held = true;
		g->rx_latch_since = now;
	} else if (now - g->rx_latch_since > (uint64_t)IGB_TS_TIMEOUT_NS) {
		(void)igb_rd(g, IGB_RXSTMPH);
		g->rx_latch_held = false;
	}
}

/* Interrupt mode: consumes the UIO event and clears the device's causes (ICR, read to clear). */
static bool igb_irq_begin(struct igb *g)
{
	uint32_t icr, count;

	if (g->real) {
		if (igb_pci_irq_take(&g->pci, &count) != 1)
			return false;
		g->st.irqs += count - g->irq_count;
		g->irq_count = count;
	}
	icr = igb_rd(g, IGB_ICR);
	if (icr & IGB_INT_LSC)
		g->st.link_changes++;
	return true;
}

static int igb_rx_batch(struct netdev *d, struct netdev_buf **b, unsigned n)
{
	struct igb *g = igb_of(d);
	bool have_ts = false, took_irq = false;
	int64_t batch_ts = 0;
	uint32_t done = 0;
	unsigned got = 0;

	if (!g->poll)
		took_irq = igb_irq_begin(g);
	/* At most rx_n - 1 descriptors are the device's, so one batch never laps the ring. */
	while (got < n && done < g->rx_n - 1) {
		uint32_t i = g->rx_next;
		volatile union igb_rx_desc *rd = &g->rxr[i];
		uint32_t se = rd->wb.status_error, len;
		struct netdev_buf *f = g->rx_bufs[i], *fresh;

		if (!(se & IGB_RXD_STAT_DD))
			break;
		igb_rmb();
		se = rd->wb.status_error;
		len = rd->wb.length;
		done++;
		g->rx_next = (i + 1) % g->rx_n;
		if (!igb_rx_check(g, se, len, f->cap)) {
			g->st.rx_desc_bad++;
			d->stats.rx_errors++;
			igb_rx_unlatch(g, se);
			igb_rx_give(g, i);
			continue;
		}
		fresh = netdev_buf_alloc(&g->pool);
		if (fresh == NULL) {
			/* No buffer to take its place: the frame is dropped, its buffer stays in the ring. */
			d->stats.rx_nobuf++;
			igb_rx_unlatch(g, se);
			igb_rx_give(g, i);
			continue;
		}
		g->rx_bufs[i] = fresh;
		igb_rx_give(g, i);
		f->len = len;
		f->flags = 0;
		f->cookie = 0;
		if ((se & IGB_RXD_STAT_TS) && (igb_rd(g, IGB_TSYNCRXCTL) & IGB_TSYNC_VALID)) {
			/* 7.9.2: RXSTMPL first; reading RXSTMPH unlocks the latch for the next PTP frame. */
			uint32_t lo = igb_rd(g, IGB_RXSTMPL);
			uint32_t hi = igb_rd(g, IGB_RXSTMPH);

			f->ts_ns = (int64_t)((uint64_t)hi << 32 | lo);
			g->st.rx_ptp_stamps++;
			g->rx_latch_held = false;
		} else {
			if (!have_ts) {
				batch_ts = (int64_t)igb_read_systim(g);
				have_ts = true;
			}
			f->ts_ns = batch_ts;
			if (len >= NETDEV_ETH_HLEN && f->data[12] == 0x88 && f->data[13] == 0xf7)
				igb_rx_latch_check(g, (uint64_t)batch_ts);
		}
		d->stats.rx_frames++;
		d->stats.rx_bytes += len;
		b[got++] = f;
	}
	if (done) {
		/* The refilled descriptors must be in memory before RDT gives them back to the device. */
		igb_wmb();
		igb_wr(g, IGB_RDT0, (g->rx_next + g->rx_n - 1) % g->rx_n);
	}
	/* After ICR and the walk: a frame written back since then raises INTx again once unmasked. */
	if (took_irq && g->real)
		(void)igb_pci_intx_unmask(&g->pci);
	return (int)got;
}

/* Gives back the buffers of descriptors the device has sent (DD, 7.2.3). */
static void igb_tx_reclaim(struct igb *g)
{
	while (g->tx_used > 0) {
		uint32_t h = g->tx_head;

		if (!(g->txr[h].olinfo_status & IGB_TXD_STA_DD))
			break;
		netdev_buf_free(&g->pool, g->tx_bufs[h]);
		g->tx_bufs[h] = NULL;
		g->tx_head = (h + 1) % g->tx_n;
		g->tx_used--;
	}
}

/* Collects the outstanding TX stamp when latched (7.9.2), or gives it up after IGB_TS_TIMEOUT_NS. */
static void igb_ts_poll(struct igb *g)
{
	uint64_t lo, hi;

	if (!g->ts_pending)
		return;
	if (igb_rd(g, IGB_TSYNCTXCTL) & IGB_TSYNC_VALID) {
		/* TXSTMPL first; reading TXSTMPH unlocks the latch. */
		lo = igb_rd(g, IGB_TXSTMPL);
		hi = igb_rd(g, IGB_TXSTMPH);
		/* A full ring loses its oldest stamp: its owner has not asked for IGB_STAMPS of them. */
		if (g->st_head - g->st_tail == IGB_STAMPS)
			g->st_tail++;
		g->stamps[g->st_head++ % IGB_STAMPS] =
		    (struct netdev_tx_stamp){.cookie = g->ts_cookie, .ts_ns = (int64_t)(hi << 32 | lo)};
		g->st.tx_stamps++;
		g->ts_pending = false;
		return;
	}
	if (igb_mono_ns() - g->ts_mono > IGB_TS_TIMEOUT_NS ||
	    igb_read_systim(g) - g->ts_systim > (uint64_t)IGB_TS_TIMEOUT_NS) {
		(void)igb_rd(g, IGB_TXSTMPH);
		g->st.tx_ts_lost++;
		g->ts_pending = false;
	}
}

/* Fills the next TX descriptor with f (7.2.2.3); the caller checked there is room. */
static void igb_tx_put(struct igb *g, struct netdev_buf *f, uint32_t extra)
{
	uint32_t t = g->tx_tail;
	volatile struct igb_tx_desc *td = &g->txr[t];

	td->addr = igb_dma_pa(&g->dma, f->data);
	td->cmd_type_len =
	    f->len | IGB_TXD_DTYP_DATA | IGB_TXD_DEXT | IGB_TXD_IFCS | IGB_TXD_EOP | IGB_TXD_RS | extra;
	td->olinfo_status = f->len << IGB_TXD_PAYLEN_SHIFT;
	g->tx_bufs[t] = f;
	g->tx_tail = (t + 1) % g->tx_n;
	g->tx_used++;
	g->base.stats.tx_frames++;
	g->base.stats.tx_bytes += f->len;
}

static bool igb_tx_len_ok(const struct netdev_buf *f)
{
	return f->len > 0 && f->len <= f->cap && f->len <= IGB_TX_MAX;
}

static int igb_tx_batch(struct netdev *d, struct netdev_buf **b, unsigned n)
{
	struct igb *g = igb_of(d);
	unsigned k, queued = 0;

	igb_tx_reclaim(g);
	igb_ts_poll(g);
	for (k = 0; k < n; k++) {
		struct netdev_buf *f = b[k];
		uint32_t extra = 0;

		if (g->tx_used == g->tx_n - 1)
			break;
		if (!igb_tx_len_ok(f)) {
			d->stats.tx_errors++;
			netdev_buf_free(&g->pool, f);
			continue;
		}
		if (f->flags & NETDEV_BUF_TS_REQ) {
			if (!g->ts_pending) {
				extra = IGB_TXD_TSTAMP;
				g->ts_pending = true;
				g->ts_cookie = f->cookie;
				g->ts_mono = igb_mono_ns();
				g->ts_systim = igb_read_systim(g);
			} else {
				g->st.tx_ts_busy++;
			}
		}
		/* Frames under 60 bytes are padded by the device (TCTL.PSP). */
		igb_tx_put(g, f, extra);
		queued++;
	}
	if (queued) {
		/* The descriptors must be in memory before TDT tells the device to fetch them. */
		igb_wmb();
		igb_wr(g, IGB_TDT0, g->tx_tail);
	}
	return (int)k;
}

static int igb_tx_stamps(struct netdev *d, struct netdev_tx_stamp *out, unsigned n)
{
	struct igb *g = igb_of(d);
	unsigned k = 0;

	igb_ts_poll(g);
	while (k < n && g->st_tail != g->st_head)
		out[k++] = g->stamps[g->st_tail++ % IGB_STAMPS];
	return (int)k;
}

static int igb_mcast_add(struct netdev *d, const uint8_t mac[NETDEV_ETH_ALEN])
{
	struct igb *g = igb_of(d);

	if (!(mac[0] & 1))
		return -EINVAL;
	for (uint32_t k = 0; k < g->n_mc; k++) {
		if (memcmp(g->mc[k].mac, mac, NETDEV_ETH_ALEN) == 0) {
			g->mc[k].refs++;
			return 0;
		}
	}
	if (g->n_mc == IGB_MCAST_MAX)
		return -ENOSPC;
	memcpy(g->mc[g->n_mc].mac, mac, NETDEV_ETH_ALEN);
	g->mc[g->n_mc++].refs = 1;
	igb_mta_write(g);
	return 0;
}

static int igb_mcast_del(struct netdev *d, const uint8_t mac[NETDEV_ETH_ALEN])
{
	struct igb *g = igb_of(d);

	for (uint32_t k = 0; k < g->n_mc; k++) {
		if (memcmp(g->mc[k].mac, mac, NETDEV_ETH_ALEN) != 0)
			continue;
		if (--g->mc[k].refs == 0) {
			g->mc[k] = g->mc[--g->n_mc];
			igb_mta_write(g);
		}
		return 0;
	}
	return -ENOENT;
}

static bool igb_link_up(struct netdev *d)
{
	return (igb_rd(igb_of(d), IGB_STATUS) & IGB_STATUS_LU) != 0;
}

static int64_t igb_clock_ns(struct netdev *d)
{
	return (int64_t)igb_read_systim(igb_of(d));
}

/* Frees g and what it holds; the device is stopped already (or was never started). */
static void igb_free(struct igb *g)
{
	if (g->rx_bufs != NULL) {
		for (uint32_t i = 0; i < g->rx_n; i++)
			netdev_buf_free(&g->pool, g->rx_bufs[i]);
	}
	if (g->tx_bufs != NULL) {
		for (uint32_t i = 0; i < g->tx_n; i++)
			netdev_buf_free(&g->pool, g->tx_bufs[i]);
	}
	/* Buffers still out are the caller's bug (netdev.h); the pool's memory goes anyway. */
	free(g->pool.bufs);
	netdev_pool_fini(&g->pool);
	if (g->real) {
		igb_pci_close(&g->pci);
		igb_dma_free(&g->dma);
	}
	free(g->rx_bufs);
	free(g->tx_bufs);
	free(g);
}

static void igb_close(struct netdev *d)
{
	struct igb *g;

	if (d == NULL)
		return;
	g = igb_of(d);
	/* 4.6.3.1: no interrupts; 8.10.x, 8.12.x: the queues and the receiver and transmitter off. */
	igb_wr(g, IGB_IMC, 0xffffffffu);
	igb_wr(g, IGB_EIMC, 0xffffffffu);
	igb_wr(g, IGB_RXDCTL0, igb_rd(g, IGB_RXDCTL0) & ~IGB_QUEUE_ENABLE);
	igb_wr(g, IGB_TXDCTL0, igb_rd(g, IGB_TXDCTL0) & ~IGB_QUEUE_ENABLE);
	igb_wr(g, IGB_RCTL, 0);
	igb_wr(g, IGB_TCTL, 0);
	/* 4.5: a global reset stops every DMA engine; the buffers can then go back (no DMA after stop). */
	(void)igb_reset(g, NULL, 0);
	igb_wr(g, IGB_IMC, 0xffffffffu);
	igb_free(g);
}

static const struct netdev_ops igb_ops = {
    .name = "uio-igb",
    .rx_batch = igb_rx_batch,
    .tx_batch = igb_tx_batch,
    .mcast_add = igb_mcast_add,
    .mcast_del = igb_mcast_del,
    .link_up = igb_link_up,
    .clock_ns = igb_clock_ns,
    .tx_stamps = igb_tx_stamps,
    .close = igb_close,
};

void igb_config_init(struct igb_config *cfg)
{
	*cfg = (struct igb_config){0};
}

static bool igb_ring_ok(uint32_t n)
{
	return n >= 8 && n <= IGB_RING_MAX && n % 8 == 0;
}

/* The register file and DMA memory: the PCI function's (pci.c, dma.c), or the caller's fakes. */
static int igb_attach(struct igb *g, const struct igb_config *cfg, size_t dma_len, char *why, size_t why_len)
{
	int err;

	g->pci.cfg_fd = -1;
	g->pci.uio_fd = -1;
	if (cfg->fake_io != NULL) {
		if (cfg->fake_dma == NULL || cfg->fake_dma->len < dma_len) {
			igb_why(why, why_len, "the fake DMA memory is missing or smaller than %zu bytes",
				dma_len);
			return -EINVAL;
		}
		g->io = *cfg->fake_io;
		g->dma = *cfg->fake_dma;
		return 0;
	}
	err = igb_pci_find(cfg->pci, g->pci.bdf, why, why_len);
	if (err)
		return err;
	if (cfg->bind) {
		err = igb_pci_bind_uio(g->pci.bdf, why, why_len);
		if (err)
			return err;
	}
	err = igb_pci_open(g->pci.bdf, &g->pci, why, why_len);
	if (err)
		return err;
	err = igb_dma_alloc(dma_len, &g->dma, why, why_len);
	if (err) {
		igb_pci_close(&g->pci);
		return err;
	}
	g->io = (struct igb_io){.bar0 = g->pci.bar0, .bar0_len = g->pci.bar0_len};
	g->real = true;
	return 0;
}

int igb_open(const struct igb_config *cfg, struct netdev **ret, char *why, size_t why_len)
{
	uint32_t rx_n = cfg->rx_ring ? cfg->rx_ring : IGB_RING_DEFAULT;
	uint32_t tx_n = cfg->tx_ring ? cfg->tx_ring : IGB_RING_DEFAULT;
	uint32_t nbufs = cfg->pool_bufs ? cfg->pool_bufs : IGB_POOL_DEFAULT;
	size_t dma_len = IGB_BUFS_OFF + (size_t)nbufs * IGB_BUF_SIZE;
	struct netdev_buf *descs;
	struct igb *g;
	int err;

	if (!igb_ring_ok(rx_n) || !igb_ring_ok(tx_n)) {
		igb_why(why, why_len, "ring sizes must be multiples of 8 in [8, %u]: rx %u, tx %u",
			IGB_RING_MAX, rx_n, tx_n);
		return -EINVAL;
	}
	if (nbufs <= rx_n || dma_len > (size_t)IGB_DMA_MAX_PAGES * IGB_HUGEPAGE) {
		igb_why(why, why_len, "pool of %u buffers: needs more than the RX ring's %u and at most %u",
			nbufs, rx_n,
			(unsigned)(((size_t)IGB_DMA_MAX_PAGES * IGB_HUGEPAGE - IGB_BUFS_OFF) / IGB_BUF_SIZE));
		return -EINVAL;
	}
	g = calloc(1, sizeof(*g));
	descs = calloc(nbufs, sizeof(*descs));
	if (g != NULL) {
		g->rx_bufs = calloc(rx_n, sizeof(*g->rx_bufs));
		g->tx_bufs = calloc(tx_n, sizeof(*g->tx_bufs));
	}
	if (g == NULL || descs == NULL || g->rx_bufs == NULL || g->tx_bufs == NULL) {
		if (g != NULL) {
			free(g->rx_bufs);
			free(g->tx_bufs);
		}
		free(g);
		free(descs);
		igb_why(why, why_len, "out of memory");
		return -ENOMEM;
	}
	g->rx_n = rx_n;
	g->tx_n = tx_n;
	g->poll = cfg->poll;
	g->reset_timeout_ms = cfg->reset_timeout_ms ? cfg->reset_timeout_ms : 100;
	err = igb_attach(g, cfg, dma_len, why, why_len);
	if (err) {
		free(descs);
		free(g->rx_bufs);
		free(g->tx_bufs);
		free(g);
		return err;
	}
	g->rxr = (volatile union igb_rx_desc *)(void *)g->dma.va;
	g->txr = (volatile struct igb_tx_desc *)(void *)(g->dma.va + IGB_TX_RING_OFF);
	netdev_pool_init_on(&g->pool, descs, g->dma.va + IGB_BUFS_OFF, nbufs, IGB_BUF_SIZE);
	for (uint32_t i = 0; i < rx_n; i++)
		g->rx_bufs[i] = netdev_buf_alloc(&g->pool);

	g->base = (struct netdev){
	    .ops = &igb_ops,
	    .pool = &g->pool,
	    .mtu = IGB_MTU,
	    .caps = NETDEV_CAP_TX_HWTS,
	    .fd = (g->real && !cfg->poll) ? g->pci.uio_fd : -1,
	};
	if (g->real)
		snprintf(g->base.name, sizeof(g->base.name), "%s", g->pci.bdf);
	else
		snprintf(g->base.name, sizeof(g->base.name), "fake-igb");

	err = igb_init(g, cfg, why, why_len);
	if (err) {
		/* The device may have started: stop it before its memory goes (no DMA after failure). */
		igb_wr(g, IGB_IMC, 0xffffffffu);
		igb_wr(g, IGB_RCTL, 0);
		igb_wr(g, IGB_TCTL, 0);
		(void)igb_reset(g, NULL, 0);
		igb_free(g);
		return err;
	}
	*ret = &g->base;
	return 0;
}

bool igb_is(const struct netdev *d)
{
	return d != NULL && d->ops == &igb_ops;
}

void igb_stats(struct netdev *d, struct igb_stats *ret)
{
	*ret = igb_of(d)->st;
}

uint64_t igb_systim(struct netdev *d)
{
	return igb_read_systim(igb_of(d));
}

int igb_clock_adjust(struct netdev *d, int64_t delta_ns)
{
	if (delta_ns == INT64_MIN)
		return -ERANGE;
	igb_timadj(igb_of(d), delta_ns);
	return 0;
}

int igb_probe_xmit(struct netdev *d, struct netdev_buf *b, struct igb_probe_times *ret)
{
	struct igb *g = igb_of(d);
	struct igb_probe_times t;
	int64_t end;

	igb_tx_reclaim(g);
	igb_ts_poll(g);
	if (g->ts_pending || g->tx_used == g->tx_n - 1)
		return -EBUSY;
	if (!igb_tx_len_ok(b))
		return -EINVAL;
	igb_tx_put(g, b, IGB_TXD_TSTAMP);
	/* The descriptor must be in memory before TDT tells the device to fetch it. */
	igb_wmb();
	igb_wr(g, IGB_TDT0, g->tx_tail);
	/* The paper's t_clk1, t_clk2: two whole SYSTIM reads right after the tail write. */
	t.t_clk1 = igb_read_systim(g);
	t.t_clk2 = igb_read_systim(g);
	end = igb_mono_ns() + IGB_TS_TIMEOUT_NS;
	while (!(igb_rd(g, IGB_TSYNCTXCTL) & IGB_TSYNC_VALID)) {
		if (igb_mono_ns() > end) {
			(void)igb_rd(g, IGB_TXSTMPH);
			g->st.tx_ts_lost++;
			return -ETIMEDOUT;
		}
	}
	t.t_tx = igb_rd(g, IGB_TXSTMPL);
	t.t_tx |= (uint64_t)igb_rd(g, IGB_TXSTMPH) << 32;
	g->st.tx_stamps++;
	*ret = t;
	return 0;
}
