/* SPDX-License-Identifier: MIT */
/*
 * fake_igb.c - the fake 82576 of fake_igb.h: registers in an array, and
 * the device's reactions to the accesses the driver makes.
 *
 * OVERVIEW
 * fake_rd and fake_wr are the io.h hooks. A reset restores the power-on
 * values (MAC 52:54:00:12:34:56 in RAL0/RAH0, the PHY powered down, link
 * down) but keeps the write log and SYSTIM. The rings are read from the
 * base and length registers the driver wrote; bus addresses are pointers.
 * Descriptor indices from the registers are checked against the ring size
 * (a driver bug must not become a fake's out-of-bounds access).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_igb.h"
#include "regs.h"

#define R(reg) (f->regs[(reg) / 4])

static void fake_reset(struct fake_igb *f)
{
	memset(f->regs, 0, sizeof(f->regs));
	R(IGB_RAL0) = 0x12005452u;
	R(IGB_RAH0) = 0x5634u | IGB_RAH_AV;
	R(IGB_EECD) = 1u << 9; /* AUTO_RD */
	memset(f->phy, 0, sizeof(f->phy));
	f->phy[IGB_PHY_BMCR] = IGB_BMCR_AUTOEN | IGB_BMCR_PDOWN | 0x0140u;
	f->rdh = 0;
	f->tdh = 0;
}

static void *fake_ptr(uint32_t lo, uint32_t hi)
{
	return (void *)(uintptr_t)((uint64_t)hi << 32 | lo);
}

void fake_igb_tx_run(struct fake_igb *f)
{
	struct igb_tx_desc *ring = fake_ptr(R(IGB_TDBAL0), R(IGB_TDBAH0));
	uint32_t n = R(IGB_TDLEN0) / sizeof(struct igb_tx_desc);

	if (ring == NULL || n == 0 || R(IGB_TDT0) >= n || !(R(IGB_TXDCTL0) & IGB_QUEUE_ENABLE))
		return;
	while (f->tdh != R(IGB_TDT0)) {
		struct igb_tx_desc *d = &ring[f->tdh];
		uint32_t len = d->cmd_type_len & IGB_TXD_DTALEN_MASK;

		f->tx_cmd[f->tx_sent % FAKE_IGB_TX_LOG] = d->cmd_type_len;
		f->tx_olinfo[f->tx_sent % FAKE_IGB_TX_LOG] = d->olinfo_status;
		f->tx_last_len = len < sizeof(f->tx_last) ? len : sizeof(f->tx_last);
		memcpy(f->tx_last, fake_ptr((uint32_t)d->addr, (uint32_t)(d->addr >> 32)), f->tx_last_len);
		if ((d->cmd_type_len & IGB_TXD_TSTAMP) && (R(IGB_TSYNCTXCTL) & IGB_TSYNC_EN) &&
		    !(R(IGB_TSYNCTXCTL) & IGB_TSYNC_VALID) && !f->tx_no_stamp) {
			R(IGB_TXSTMPL) = (uint32_t)f->systim;
			R(IGB_TXSTMPH) = (uint32_t)(f->systim >> 32);
			R(IGB_TSYNCTXCTL) |= IGB_TSYNC_VALID;
		}
		__atomic_thread_fence(__ATOMIC_RELEASE);
		d->olinfo_status |= IGB_TXD_STA_DD;
		f->tx_sent++;
		f->tdh = (f->tdh + 1) % n;
		R(IGB_TDH0) = f->tdh;
		R(IGB_ICR) |= IGB_INT_TXDW;
	}
}

static void fake_mdic(struct fake_igb *f, uint32_t val)
{
	uint32_t reg = (val >> IGB_MDIC_REG_SHIFT) & 31u;

	if (f->mdic_never) {
		R(IGB_MDIC) = val & ~IGB_MDIC_READY;
		return;
	}
	if (f->mdic_error) {
		R(IGB_MDIC) = val | IGB_MDIC_READY | IGB_MDIC_ERROR;
		return;
	}
	if ((val & (3u << 26)) == IGB_MDIC_OP_WRITE) {
		uint16_t v = (uint16_t)(val & IGB_MDIC_DATA_MASK);

		f->phy[reg] = v;
		if (reg == IGB_PHY_BMCR && (v & IGB_BMCR_ANRESTART) && (v & IGB_BMCR_AUTOEN) &&
		    !(v & IGB_BMCR_PDOWN)) {
			f->phy[reg] &= (uint16_t)~IGB_BMCR_ANRESTART;
			if (!f->no_link) {
				R(IGB_STATUS) |= IGB_STATUS_LU;
				R(IGB_ICR) |= IGB_INT_LSC;
			}
		}
		R(IGB_MDIC) = val | IGB_MDIC_READY;
	} else {
		R(IGB_MDIC) = (val & ~IGB_MDIC_DATA_MASK) | f->phy[reg] | IGB_MDIC_READY;
	}
}

static void fake_wr(void *ctx, uint32_t reg, uint32_t val)
{
	struct fake_igb *f = ctx;

	if (reg >= FAKE_IGB_BAR0 || reg % 4)
		abort();
	if (f->n_log < FAKE_IGB_LOG)
		f->log[f->n_log++] = (struct fake_igb_wr){reg, val};
	f->writes[reg / 4]++;
	switch (reg) {
	case IGB_CTRL:
		R(reg) = val;
		if (val & IGB_CTRL_RST) {
			f->resets++;
			f->rst_left = f->rst_reads;
			if (f->rst_reads == 0)
				fake_reset(f);
		}
		break;
	case IGB_MDIC:
		fake_mdic(f, val);
		break;
	case IGB_IMS:
		R(IGB_IMS) |= val;
		break;
	case IGB_IMC:
		R(IGB_IMS) &= ~val;
		break;
	case IGB_SYSTIML:
	case IGB_SYSTIMH:
		/* As in QEMU's model: SYSTIM is not writable. */
		break;
	case IGB_TIMADJH: {
		uint64_t adj = (uint64_t)(val & ~IGB_TIMADJH_SIGN) << 32 | R(IGB_TIMADJL);

		f->systim = (val & IGB_TIMADJH_SIGN) ? f->systim - adj : f->systim + adj;
		R(reg) = val;
		break;
	}
	case IGB_TDT0:
		R(reg) = val;
		if (!f->tx_hold)
			fake_igb_tx_run(f);
		break;
	default:
		R(reg) = val;
	}
}

static uint32_t fake_rd(void *ctx, uint32_t reg)
{
	struct fake_igb *f = ctx;
	uint32_t v;

	if (reg >= FAKE_IGB_BAR0 || reg % 4)
		abort();
	v = R(reg);
	switch (reg) {
	case IGB_CTRL:
		if ((v & IGB_CTRL_RST) && f->rst_left > 0 && --f->rst_left == 0) {
			fake_reset(f);
			v = R(reg);
		}
		break;
	case IGB_ICR:
		R(reg) = 0;
		break;
	case IGB_SYSTIML:
		f->systimh_latch = (uint32_t)(f->systim >> 32);
		v = (uint32_t)f->systim;
		break;
	case IGB_SYSTIMH:
		v = f->systimh_latch;
		break;
	case IGB_TXSTMPH:
		R(IGB_TSYNCTXCTL) &= ~IGB_TSYNC_VALID;
		break;
	case IGB_RXSTMPH:
		R(IGB_TSYNCRXCTL) &= ~IGB_TSYNC_VALID;
		break;
	default:
		break;
	}
	return v;
}

struct fake_igb *fake_igb_new(size_t dma_len)
{
	struct fake_igb *f = calloc(1, sizeof(*f));
	size_t len = (dma_len + IGB_HUGEPAGE - 1) / IGB_HUGEPAGE * IGB_HUGEPAGE;

	if (f == NULL || len / IGB_HUGEPAGE > IGB_DMA_MAX_PAGES)
		goto fail;
	f->dma.va = aligned_alloc(4096, len);
	if (f->dma.va == NULL)
		goto fail;
	memset(f->dma.va, 0, len);
	f->dma.len = len;
	f->dma.n_pages = (uint32_t)(len / IGB_HUGEPAGE);
	for (uint32_t i = 0; i < f->dma.n_pages; i++)
		f->dma.pa[i] = (uint64_t)(uintptr_t)(f->dma.va + (size_t)i * IGB_HUGEPAGE);
	f->io = (struct igb_io){.rd = fake_rd, .wr = fake_wr, .ctx = f};
	f->rst_reads = 2;
	f->systim = 1000;
	fake_reset(f);
	return f;
fail:
	free(f);
	return NULL;
}

void fake_igb_free(struct fake_igb *f)
{
	if (f == NULL)
		return;
	free(f->dma.va);
	free(f);
}

void fake_igb_advance(struct fake_igb *f, uint64_t ns)
{
	uint32_t inca = R(IGB_TIMINCA);
	uint32_t period = inca >> IGB_TIMINCA_PERIOD_SHIFT, value = inca & 0xffffffu;

	if (period != 0)
		f->systim += ns * value / (period * 16u);
}

int fake_igb_rx_raw(struct fake_igb *f, const uint8_t *frame, uint32_t len, uint16_t wb_len,
		    uint32_t status_error)
{
	union igb_rx_desc *ring = fake_ptr(R(IGB_RDBAL0), R(IGB_RDBAH0));
	uint32_t n = R(IGB_RDLEN0) / sizeof(union igb_rx_desc);
	uint32_t bsize = (R(IGB_SRRCTL0) & 0x7fu) * 1024u;
	union igb_rx_desc *d;
	uint8_t *buf;

	if (ring == NULL || n == 0 || !(R(IGB_RXDCTL0) & IGB_QUEUE_ENABLE) || !(R(IGB_RCTL) & IGB_RCTL_EN) ||
	    R(IGB_RDT0) >= n || f->rdh == R(IGB_RDT0))
		return -ENOSPC;
	d = &ring[f->rdh];
	buf = fake_ptr((uint32_t)d->read.pkt_addr, (uint32_t)(d->read.pkt_addr >> 32));
	memcpy(buf, frame, len < bsize ? len : bsize);
	d->wb.pkt_info = 0;
	d->wb.hdr_info = 0;
	d->wb.rss = 0;
	d->wb.length = wb_len;
	d->wb.vlan = 0;
	/* The write-back's status goes last: the driver reads the rest only after DD. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	d->wb.status_error = status_error;
	f->rdh = (f->rdh + 1) % n;
	R(IGB_RDH0) = f->rdh;
	R(IGB_ICR) |= IGB_INT_RXDW;
	return 0;
}

int fake_igb_rx(struct fake_igb *f, const uint8_t *frame, uint32_t len)
{
	uint32_t st = IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP;
	uint32_t etqf = R(IGB_ETQF(0));

	if (len >= 14 && (uint32_t)(frame[12] << 8 | frame[13]) == IGB_ETHERTYPE_1588 &&
	    (etqf & IGB_ETQF_FILTER_EN) && (etqf & IGB_ETQF_1588) && (etqf & 0xffffu) == IGB_ETHERTYPE_1588 &&
	    (R(IGB_TSYNCRXCTL) & IGB_TSYNC_EN) && !(R(IGB_TSYNCRXCTL) & IGB_TSYNC_VALID)) {
		R(IGB_RXSTMPL) = (uint32_t)f->systim;
		R(IGB_RXSTMPH) = (uint32_t)(f->systim >> 32);
		R(IGB_TSYNCRXCTL) |= IGB_TSYNC_VALID;
		st |= IGB_RXD_STAT_TS;
	}
	return fake_igb_rx_raw(f, frame, len, (uint16_t)len, st);
}

int fake_igb_find(const struct fake_igb *f, uint32_t reg, uint32_t from)
{
	for (uint32_t i = from; i < f->n_log; i++)
		if (f->log[i].reg == reg)
			return (int)i;
	return -1;
}
