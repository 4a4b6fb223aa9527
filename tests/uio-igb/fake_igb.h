/* SPDX-License-Identifier: MIT */
/*
 * fake_igb.h - a fake 82576 register file and DMA memory for the uio-igb
 * unit tests and fuzz target: the driver runs on it through struct igb_io
 * (io.h) exactly as on BAR0.
 *
 * OVERVIEW
 * An array of registers plus the reactions the driver depends on, as the
 * datasheet describes them: CTRL.RST self-clears after rst_reads reads of
 * CTRL (never when negative), MDIC completes (or reports ERROR, or never
 * becomes ready), STATUS.LU comes with an autonegotiation restart, SYSTIM
 * advances from a fake clock (fake_igb_advance) at the TIMINCA rate and
 * takes TIMADJ, ICR clears on read, a TDT write "transmits" every
 * descriptor up to the tail (writes DD, latches a TX stamp when asked and
 * the latch is free), and fake_igb_rx "receives" a frame into the next RX
 * descriptor the driver gave. Every register write is logged in order.
 * DMA memory is aligned_alloc'd and its bus address is its virtual one.
 *
 * Ownership: the test owns a struct fake_igb from fake_igb_new to
 * fake_igb_free. Threads: none.
 */
#ifndef SDDS_TESTS_UIO_IGB_FAKE_IGB_H
#define SDDS_TESTS_UIO_IGB_FAKE_IGB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dma.h"
#include "io.h"

#define FAKE_IGB_BAR0 0x20000u
#define FAKE_IGB_LOG 8192u
#define FAKE_IGB_TX_LOG 64u

struct fake_igb_wr {
	uint32_t reg, val;
};

struct fake_igb {
	uint32_t regs[FAKE_IGB_BAR0 / 4];
	struct igb_io io;
	struct igb_dma dma;

	/* Behaviour, set before igb_open. */
	int rst_reads;	  /* CTRL reads until RST clears; < 0: never */
	bool mdic_error;  /* every MDIC access ends with ERROR */
	bool mdic_never;  /* MDIC never becomes ready */
	bool no_link;	  /* autonegotiation never brings the link up */
	bool tx_hold;	  /* TDT writes do not transmit until fake_igb_tx_run */
	bool tx_no_stamp; /* the TX latch never takes a stamp */

	/* State. */
	int rst_left;
	uint16_t phy[32];
	uint64_t systim;
	uint32_t systimh_latch;
	uint32_t rdh, tdh;
	uint32_t resets;
	struct fake_igb_wr log[FAKE_IGB_LOG];
	uint32_t n_log;
	uint32_t writes[FAKE_IGB_BAR0 / 4]; /* per register */
	uint32_t tx_sent;
	uint32_t tx_cmd[FAKE_IGB_TX_LOG], tx_olinfo[FAKE_IGB_TX_LOG]; /* of the sent descriptors */
	uint8_t tx_last[2048];
	uint32_t tx_last_len;
};

/* A fake with dma_len bytes of DMA memory (rounded up to whole "hugepages"); NULL: out of memory. */
struct fake_igb *fake_igb_new(size_t dma_len);
void fake_igb_free(struct fake_igb *f);

/* The fake clock: SYSTIM gains ns at the TIMINCA rate (INCVALUE / (INCPERIOD x 16 ns)). */
void fake_igb_advance(struct fake_igb *f, uint64_t ns);
/* Transmits every descriptor up to TDT (what a TDT write does without tx_hold). */
void fake_igb_tx_run(struct fake_igb *f);

/*
 * Receives a frame into the next RX descriptor the driver gave: len bytes
 * copied (at most the buffer's size), the write-back with length wb_len
 * and status_error as given (DD is the caller's). -ENOSPC: no descriptor.
 */
int fake_igb_rx_raw(struct fake_igb *f, const uint8_t *frame, uint32_t len, uint16_t wb_len,
		    uint32_t status_error);
/* A good frame: DD, EOP, its length; a PTP (0x88f7) frame gets the RX latch and TS when ETQF(0) asks. */
int fake_igb_rx(struct fake_igb *f, const uint8_t *frame, uint32_t len);

/* The index in the write log of the first write to reg at or after from; -1: none. */
int fake_igb_find(const struct fake_igb *f, uint32_t reg, uint32_t from);

#endif /* SDDS_TESTS_UIO_IGB_FAKE_IGB_H */
