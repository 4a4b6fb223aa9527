/* SPDX-License-Identifier: MIT */
/*
 * test_igb.c - the uio-igb device logic (drivers/uio-igb/igb.c) on the fake
 * 82576 of fake_igb.h: the init sequence and its errors, receive, transmit,
 * timestamps, the multicast table, close.
 *
 * OVERVIEW
 * Each test opens the driver on a fresh fake (small rings, so wrapping and
 * filling them is cheap), drives it through the netdev ops and checks the
 * register writes the fake logged, the descriptors, the frames and the
 * counters; teardown checks that every pool buffer came back (pool.out
 * holds only the RX ring's) before close. No root, no device.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "fake_igb.h"
#include "igb.h"
#include "regs.h"

#define RX_N 8u
#define TX_N 8u
#define POOL_N 32u
#define DMA_LEN (0x20000u + POOL_N * 2048u)

struct rig {
	struct fake_igb *f;
	struct netdev *d;
	struct igb_config cfg;
	char why[256];
};

static void rig_config(struct rig *r)
{
	igb_config_init(&r->cfg);
	r->cfg.fake_io = &r->f->io;
	r->cfg.fake_dma = &r->f->dma;
	r->cfg.rx_ring = RX_N;
	r->cfg.tx_ring = TX_N;
	r->cfg.pool_bufs = POOL_N;
	r->cfg.poll = true;
	/* The default reset bound (100 ms): a loaded host's sleeps must not fail a fake that answers. */
	r->cfg.link_timeout_ms = 20;
}

static struct rig *rig_new(void)
{
	struct rig *r = test_calloc(1, sizeof(*r));

	assert_non_null(r);
	r->f = fake_igb_new(DMA_LEN);
	assert_non_null(r->f);
	rig_config(r);
	return r;
}

static void rig_open(struct rig *r)
{
	int err = igb_open(&r->cfg, &r->d, r->why, sizeof(r->why));

	if (err)
		fail_msg("igb_open: %d %s", err, r->why);
	assert_true(igb_is(r->d));
}

static int setup(void **state)
{
	struct rig *r = rig_new();

	rig_open(r);
	*state = r;
	return 0;
}

static int setup_unopened(void **state)
{
	*state = rig_new();
	return 0;
}

static int teardown(void **state)
{
	struct rig *r = *state;

	if (r->d != NULL) {
		/* Only the RX ring's buffers are out: the tests gave every frame back. */
		assert_int_equal(r->d->pool->out, RX_N);
		r->d->ops->close(r->d);
	}
	fake_igb_free(r->f);
	test_free(r);
	return 0;
}

static void frame_make(uint8_t *p, uint32_t len, uint16_t ethertype, uint8_t fill)
{
	static const uint8_t dst[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
	static const uint8_t src[6] = {0x02, 0, 0, 0, 0, 0x02};

	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
	p[12] = (uint8_t)(ethertype >> 8);
	p[13] = (uint8_t)ethertype;
	for (uint32_t i = 14; i < len; i++)
		p[i] = (uint8_t)(fill + i);
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The index of the write of val to reg at or after from, failing the test when there is none. */
static uint32_t wr_at(const struct fake_igb *f, uint32_t reg, uint32_t from)
{
	int i = fake_igb_find(f, reg, from);

	if (i < 0)
		fail_msg("no write to 0x%05x after log entry %u", reg, from);
	return (uint32_t)i;
}

static void test_init_sequence(void **state)
{
	struct rig *r = *state;
	struct fake_igb *f = r->f;
	uint32_t i, rst, mdic_rd, mdic_wr, rdt, rxdctl, tim;
	int64_t now = realtime_ns();

	/* 4.6.3.1: IMC and EIMC all ones before the reset. */
	assert_int_equal(f->log[0].reg, IGB_IMC);
	assert_int_equal(f->log[0].val, 0xffffffffu);
	assert_int_equal(f->log[1].reg, IGB_EIMC);
	assert_int_equal(f->log[1].val, 0xffffffffu);
	rst = wr_at(f, IGB_CTRL, 2);
	assert_true(f->log[rst].val & IGB_CTRL_RST);
	/* Masked again after the reset, then link up and the PHY. */
	i = wr_at(f, IGB_IMC, rst);
	assert_int_equal(f->log[i].val, 0xffffffffu);
	i = wr_at(f, IGB_CTRL, rst + 1);
	assert_true(f->log[i].val & IGB_CTRL_SLU);
	assert_false(f->log[i].val & IGB_CTRL_RST);
	mdic_rd = wr_at(f, IGB_MDIC, i);
	assert_int_equal(f->log[mdic_rd].val, IGB_MDIC_OP_READ | IGB_PHY_ADDR << 21 | IGB_PHY_BMCR << 16);
	mdic_wr = wr_at(f, IGB_MDIC, mdic_rd + 1);
	assert_int_equal(f->log[mdic_wr].val & (3u << 26), IGB_MDIC_OP_WRITE);
	assert_true(f->log[mdic_wr].val & IGB_BMCR_AUTOEN);
	assert_true(f->log[mdic_wr].val & IGB_BMCR_ANRESTART);
	assert_false(f->log[mdic_wr].val & IGB_BMCR_PDOWN);
	assert_true(r->d->ops->link_up(r->d));
	/* The NIC's own address, kept valid. */
	assert_memory_equal(r->d->mac, ((uint8_t[]){0x52, 0x54, 0x00, 0x12, 0x34, 0x56}), 6);
	assert_true(f->regs[IGB_RAH0 / 4] & IGB_RAH_AV);
	/* RX ring: base, length, SRRCTL, enable, then the tail; RCTL without promiscuous bits. */
	assert_int_equal(f->regs[IGB_RDLEN0 / 4], RX_N * 16);
	assert_int_equal(f->regs[IGB_SRRCTL0 / 4] & 0x7f, 2);
	assert_true(f->regs[IGB_SRRCTL0 / 4] & IGB_SRRCTL_DESCTYPE_ADV1);
	rxdctl = wr_at(f, IGB_RXDCTL0, mdic_wr);
	assert_true(f->log[rxdctl].val & IGB_QUEUE_ENABLE);
	assert_true(wr_at(f, IGB_RDBAL0, mdic_wr) < rxdctl);
	assert_true(wr_at(f, IGB_SRRCTL0, mdic_wr) < rxdctl);
	rdt = wr_at(f, IGB_RDT0, rxdctl);
	assert_int_equal(f->log[rdt].val, RX_N - 1);
	assert_int_equal(f->regs[IGB_RCTL / 4], IGB_RCTL_EN | IGB_RCTL_BAM | IGB_RCTL_SECRC);
	for (i = 0; i < IGB_MTA_N; i++)
		assert_int_equal(f->regs[IGB_MTA(i) / 4], 0);
	assert_int_equal(f->writes[IGB_MTA(127) / 4], 1);
	/* TX ring and TCTL. */
	assert_int_equal(f->regs[IGB_TDLEN0 / 4], TX_N * 16);
	assert_true(wr_at(f, IGB_TDBAL0, rdt) < wr_at(f, IGB_TXDCTL0, rdt));
	assert_int_equal(f->regs[IGB_TCTL / 4], IGB_TCTL_EN | IGB_TCTL_PSP | 0x0fu << 4 | 0x3fu << 12);
	/* 1588: 1 ns per ns, aligned to CLOCK_REALTIME through TIMADJ; stamps on; ETQF(0) for PTP. */
	tim = wr_at(f, IGB_TIMINCA, 0);
	assert_int_equal(f->log[tim].val, 0x01000010u);
	assert_true(wr_at(f, IGB_TIMADJH, tim) > tim);
	assert_true(llabs((int64_t)igb_systim(r->d) - now) < 1000000000LL);
	assert_int_equal(f->regs[IGB_TSYNCTXCTL / 4], IGB_TSYNC_EN);
	assert_int_equal(f->regs[IGB_TSYNCRXCTL / 4], IGB_TSYNC_EN);
	assert_int_equal(f->regs[IGB_ETQF(0) / 4], 0x88f7u | 1u << 26 | 1u << 30);
	/* Busy-poll: no interrupt enabled. */
	assert_int_equal(f->regs[IGB_IMS / 4], 0);
	assert_int_equal(f->resets, 1);
	/* The netdev base. */
	assert_string_equal(r->d->name, "fake-igb");
	assert_int_equal(r->d->mtu, 1500);
	assert_int_equal(r->d->caps, NETDEV_CAP_TX_HWTS);
	assert_int_equal(r->d->fd, -1);
	assert_string_equal(r->d->ops->name, "uio-igb");
}

static void test_init_irq_mode(void **state)
{
	struct rig *r = *state;
	struct igb_stats st;
	struct netdev_buf *b[4];

	r->cfg.poll = false;
	rig_open(r);
	assert_int_equal(r->f->regs[IGB_IMS / 4], IGB_INT_RXDW | IGB_INT_LSC);
	/* A link change: ICR.LSC, read (and cleared) by rx_batch. */
	r->f->regs[IGB_ICR / 4] |= IGB_INT_LSC;
	assert_int_equal(r->d->ops->rx_batch(r->d, b, 4), 0);
	igb_stats(r->d, &st);
	assert_int_equal(st.link_changes, 1);
	assert_int_equal(r->f->regs[IGB_ICR / 4], 0);
}

static void test_reset_timeout(void **state)
{
	struct rig *r = *state;
	int err;

	r->f->rst_reads = -1;
	r->cfg.reset_timeout_ms = 5;
	err = igb_open(&r->cfg, &r->d, r->why, sizeof(r->why));
	assert_int_equal(err, -ETIMEDOUT);
	assert_null(r->d);
	assert_non_null(strstr(r->why, "CTRL=0x04000000"));
	assert_non_null(strstr(r->why, "STATUS=0x"));
	assert_non_null(strstr(r->why, "EECD=0x"));
}

static void test_mdic_error(void **state)
{
	struct rig *r = *state;
	int err;

	r->f->mdic_error = true;
	err = igb_open(&r->cfg, &r->d, r->why, sizeof(r->why));
	assert_int_equal(err, -EIO);
	assert_null(r->d);
	assert_non_null(strstr(r->why, "MDIC=0x5"));
}

static void test_mdic_never_ready(void **state)
{
	struct rig *r = *state;
	int err;

	r->f->mdic_never = true;
	err = igb_open(&r->cfg, &r->d, r->why, sizeof(r->why));
	assert_int_equal(err, -ETIMEDOUT);
	assert_non_null(strstr(r->why, "MDIC=0x"));
}

static void test_link_down_is_not_error(void **state)
{
	struct rig *r = *state;

	r->f->no_link = true;
	rig_open(r);
	assert_false(r->d->ops->link_up(r->d));
}

static void test_mac_set(void **state)
{
	struct rig *r = *state;
	static const uint8_t mac[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};

	memcpy(r->cfg.mac, mac, 6);
	r->cfg.mac_set = true;
	rig_open(r);
	assert_int_equal(r->f->regs[IGB_RAL0 / 4], 0x33221102u);
	assert_int_equal(r->f->regs[IGB_RAH0 / 4], 0x5544u | IGB_RAH_AV);
	assert_memory_equal(r->d->mac, mac, 6);
}

static void test_bad_config(void **state)
{
	struct rig *r = *state;

	r->cfg.rx_ring = 12;
	assert_int_equal(igb_open(&r->cfg, &r->d, r->why, sizeof(r->why)), -EINVAL);
	rig_config(r);
	r->cfg.pool_bufs = RX_N;
	assert_int_equal(igb_open(&r->cfg, &r->d, r->why, sizeof(r->why)), -EINVAL);
	rig_config(r);
	r->cfg.pool_bufs = POOL_N * 4; /* more than the fake's DMA memory */
	r->f->dma.len = 0x20000u + POOL_N * 2048u;
	assert_int_equal(igb_open(&r->cfg, &r->d, r->why, sizeof(r->why)), -EINVAL);
	assert_null(r->d);
}

static void test_rx_good(void **state)
{
	struct rig *r = *state;
	struct netdev_buf *b[8];
	uint8_t fr[3][200];
	uint32_t rdt_writes = r->f->writes[IGB_RDT0 / 4];
	uint64_t t0 = igb_systim(r->d);
	int n;

	for (int k = 0; k < 3; k++) {
		frame_make(fr[k], 60 + 50u * (uint32_t)k, 0x88b5, (uint8_t)k);
		assert_int_equal(fake_igb_rx(r->f, fr[k], 60 + 50u * (uint32_t)k), 0);
	}
	fake_igb_advance(r->f, 1000);
	n = r->d->ops->rx_batch(r->d, b, 8);
	assert_int_equal(n, 3);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(b[k]->len, 60 + 50 * k);
		assert_memory_equal(b[k]->data, fr[k], b[k]->len);
		/* One SYSTIM read per batch: the same time for every frame of it. */
		assert_int_equal(b[k]->ts_ns, (int64_t)t0 + 1000);
	}
	assert_int_equal(r->f->writes[IGB_RDT0 / 4], rdt_writes + 1);
	assert_int_equal(r->f->regs[IGB_RDT0 / 4], 2);
	assert_int_equal(r->d->stats.rx_frames, 3);
	assert_int_equal(r->d->stats.rx_bytes, 60 + 110 + 160);
	for (int k = 0; k < 3; k++)
		netdev_buf_free(r->d->pool, b[k]);
	/* Nothing more: no tail write. */
	assert_int_equal(r->d->ops->rx_batch(r->d, b, 8), 0);
	assert_int_equal(r->f->writes[IGB_RDT0 / 4], rdt_writes + 1);
}

static void test_rx_bad_descriptors(void **state)
{
	struct rig *r = *state;
	struct netdev_buf *b[8];
	struct igb_stats st;
	uint8_t fr[300];
	const uint32_t ok = IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP;

	frame_make(fr, sizeof(fr), 0x88b5, 7);
	assert_int_equal(fake_igb_rx_raw(r->f, fr, 100, 100, ok | IGB_RXD_ERR_RXE), 0);
	assert_int_equal(fake_igb_rx_raw(r->f, fr, 100, 10, ok), 0);
	assert_int_equal(fake_igb_rx_raw(r->f, fr, 100, 3000, ok), 0);
	/* A frame over two descriptors: both parts dropped. */
	assert_int_equal(fake_igb_rx_raw(r->f, fr, 100, 2048, IGB_RXD_STAT_DD), 0);
	assert_int_equal(fake_igb_rx_raw(r->f, fr, 100, 100, ok), 0);
	assert_int_equal(fake_igb_rx_raw(r->f, fr, 100, 100, ok | IGB_RXD_ERR_CE), 0);
	assert_int_equal(fake_igb_rx_raw(r->f, fr, 300, 300, ok), 0);
	assert_int_equal(r->d->ops->rx_batch(r->d, b, 8), 1);
	assert_int_equal(b[0]->len, 300);
	assert_memory_equal(b[0]->data, fr, 300);
	igb_stats(r->d, &st);
	assert_int_equal(st.rx_desc_bad, 6);
	assert_int_equal(r->d->stats.rx_errors, 6);
	netdev_buf_free(r->d->pool, b[0]);
	/* The refused descriptors went back to the device: a full ring's worth still fits. */
	for (uint32_t k = 0; k < RX_N - 1; k++)
		assert_int_equal(fake_igb_rx(r->f, fr, 64), 0);
	assert_int_equal(fake_igb_rx(r->f, fr, 64), -ENOSPC);
	assert_int_equal(r->d->ops->rx_batch(r->d, b, 8), RX_N - 1);
	for (uint32_t k = 0; k < RX_N - 1; k++)
		netdev_buf_free(r->d->pool, b[k]);
}

static void test_rx_pool_dry(void **state)
{
	struct rig *r = *state;
	struct netdev_buf *held[POOL_N], *b[8];
	uint8_t fr[64];
	unsigned n_held = 0;

	frame_make(fr, sizeof(fr), 0x88b5, 1);
	while ((held[n_held] = netdev_buf_alloc(r->d->pool)) != NULL)
		n_held++;
	assert_int_equal(n_held, POOL_N - RX_N);
	assert_int_equal(fake_igb_rx(r->f, fr, 64), 0);
	assert_int_equal(fake_igb_rx(r->f, fr, 64), 0);
	assert_int_equal(r->d->ops->rx_batch(r->d, b, 8), 0);
	assert_int_equal(r->d->stats.rx_nobuf, 2);
	/* The ring kept its buffers and goes on once the pool has some again. */
	for (unsigned k = 0; k < n_held; k++)
		netdev_buf_free(r->d->pool, held[k]);
	assert_int_equal(fake_igb_rx(r->f, fr, 64), 0);
	assert_int_equal(r->d->ops->rx_batch(r->d, b, 8), 1);
	assert_memory_equal(b[0]->data, fr, 64);
	netdev_buf_free(r->d->pool, b[0]);
}

static void test_rx_wrap(void **state)
{
	struct rig *r = *state;
	struct netdev_buf *b[8];
	uint8_t fr[80];
	unsigned seq = 0, got = 0;

	for (int round = 0; round < 20; round++) {
		unsigned burst = 1 + (unsigned)round % 5;

		for (unsigned k = 0; k < burst; k++) {
			frame_make(fr, sizeof(fr), 0x88b5, (uint8_t)(seq++));
			assert_int_equal(fake_igb_rx(r->f, fr, sizeof(fr)), 0);
		}
		/* Two at a time: a batch may end before the ring is drained. */
		for (int n; (n = r->d->ops->rx_batch(r->d, b, 2)) > 0;) {
			for (int k = 0; k < n; k++) {
				assert_int_equal(b[k]->data[14], (uint8_t)(got + 14));
				got++;
				netdev_buf_free(r->d->pool, b[k]);
			}
		}
	}
	assert_int_equal(got, seq);
}

static void test_rx_ptp_stamp(void **state)
{
	struct rig *r = *state;
	struct netdev_buf *b[8];
	struct igb_stats st;
	uint8_t fr[90];
	uint64_t t_ptp;

	frame_make(fr, sizeof(fr), 0x88f7, 0);
	t_ptp = igb_systim(r->d);
	assert_int_equal(fake_igb_rx(r->f, fr, sizeof(fr)), 0);
	fake_igb_advance(r->f, 5000);
	frame_make(fr, sizeof(fr), 0x88b5, 0);
	assert_int_equal(fake_igb_rx(r->f, fr, sizeof(fr)), 0);
	assert_int_equal(r->d->ops->rx_batch(r->d, b, 8), 2);
	assert_int_equal(b[0]->ts_ns, (int64_t)t_ptp);
	assert_int_equal(b[1]->ts_ns, (int64_t)t_ptp + 5000);
	igb_stats(r->d, &st);
	assert_int_equal(st.rx_ptp_stamps, 1);
	/* RXSTMPH was read: the latch is free for the next PTP frame. */
	assert_false(r->f->regs[IGB_TSYNCRXCTL / 4] & IGB_TSYNC_VALID);
	netdev_buf_free(r->d->pool, b[0]);
	netdev_buf_free(r->d->pool, b[1]);
}

static void test_rx_dropped_ptp_frees_latch(void **state)
{
	struct rig *r = *state;
	struct netdev_buf *held[POOL_N], *b[8];
	struct igb_stats st;
	uint8_t fr[90];
	unsigned n_held = 0;
	uint64_t t_second;

	/* A stamped PTP frame dropped for want of a buffer must not keep the RX latch. */
	frame_make(fr, sizeof(fr), 0x88f7, 0);
	while ((held[n_held] = netdev_buf_alloc(r->d->pool)) != NULL)
		n_held++;
	assert_int_equal(fake_igb_rx(r->f, fr, sizeof(fr)), 0);
	assert_int_equal(r->d->ops->rx_batch(r->d, b, 8), 0);
	for (unsigned k = 0; k < n_held; k++)
		netdev_buf_free(r->d->pool, held[k]);
	assert_false(r->f->regs[IGB_TSYNCRXCTL / 4] & IGB_TSYNC_VALID);
	fake_igb_advance(r->f, 300);
	t_second = igb_systim(r->d);
	assert_int_equal(fake_igb_rx(r->f, fr, sizeof(fr)), 0);
	fake_igb_advance(r->f, 300);
	assert_int_equal(r->d->ops->rx_batch(r->d, b, 8), 1);
	assert_int_equal(b[0]->ts_ns, (int64_t)t_second);
	igb_stats(r->d, &st);
	assert_int_equal(st.rx_ptp_stamps, 1);
	netdev_buf_free(r->d->pool, b[0]);
}

static void test_rx_stale_latch_freed(void **state)
{
	struct rig *r = *state;
	struct netdev_buf *b[8];
	struct igb_stats st;
	uint8_t fr[90];

	/* The device latched a PTP frame it then dropped: VALID set, no descriptor with TS. */
	r->f->regs[IGB_TSYNCRXCTL / 4] |= IGB_TSYNC_VALID;
	frame_make(fr, sizeof(fr), 0x88f7, 0);
	for (int k = 0; k < 3; k++) {
		/* Unstamped PTP frames while the latch stays held, half a second apart. */
		assert_int_equal(
		    fake_igb_rx_raw(r->f, fr, sizeof(fr), sizeof(fr), IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP), 0);
		assert_int_equal(r->d->ops->rx_batch(r->d, b, 8), 1);
		netdev_buf_free(r->d->pool, b[0]);
		assert_int_equal((r->f->regs[IGB_TSYNCRXCTL / 4] & IGB_TSYNC_VALID) != 0, k < 2);
		fake_igb_advance(r->f, 600000000ull);
	}
	/* Freed after a second: the next PTP frame is stamped again. */
	assert_int_equal(fake_igb_rx(r->f, fr, sizeof(fr)), 0);
	assert_int_equal(r->d->ops->rx_batch(r->d, b, 8), 1);
	netdev_buf_free(r->d->pool, b[0]);
	igb_stats(r->d, &st);
	assert_int_equal(st.rx_ptp_stamps, 1);
}

static struct netdev_buf *tx_frame(struct rig *r, uint32_t len, uint8_t fill)
{
	struct netdev_buf *b = netdev_buf_alloc(r->d->pool);

	assert_non_null(b);
	frame_make(b->data, len, 0x88b5, fill);
	b->len = len;
	return b;
}

static void test_tx_batch(void **state)
{
	struct rig *r = *state;
	struct netdev_buf *b[3];
	uint32_t tdt_writes = r->f->writes[IGB_TDT0 / 4];
	uint8_t copy[100];

	b[0] = tx_frame(r, 42, 1);
	b[1] = tx_frame(r, 60, 2);
	b[2] = tx_frame(r, 100, 3);
	memcpy(copy, b[2]->data, 100);
	assert_int_equal(r->d->ops->tx_batch(r->d, b, 3), 3);
	assert_int_equal(r->f->writes[IGB_TDT0 / 4], tdt_writes + 1);
	assert_int_equal(r->f->tx_sent, 3);
	for (int k = 0; k < 3; k++) {
		uint32_t cmd = r->f->tx_cmd[k];
		uint32_t len = k == 0 ? 42 : k == 1 ? 60 : 100;

		assert_int_equal(cmd & 0xffff, len);
		assert_int_equal(cmd & 0xfff00000u,
				 IGB_TXD_DTYP_DATA | IGB_TXD_DEXT | IGB_TXD_IFCS | IGB_TXD_EOP | IGB_TXD_RS);
		assert_false(cmd & IGB_TXD_TSTAMP);
		assert_int_equal(r->f->tx_olinfo[k] >> 14, len);
	}
	assert_memory_equal(r->f->tx_last, copy, 100);
	assert_int_equal(r->d->stats.tx_frames, 3);
	/* Sent: the next batch gives their buffers back. */
	assert_int_equal(r->d->pool->out, RX_N + 3);
	assert_int_equal(r->d->ops->tx_batch(r->d, b, 0), 0);
	assert_int_equal(r->d->pool->out, RX_N);
}

static void test_tx_ring_full(void **state)
{
	struct rig *r = *state;
	struct netdev_buf *b[10];

	r->f->tx_hold = true;
	for (int k = 0; k < 10; k++)
		b[k] = tx_frame(r, 64, (uint8_t)k);
	assert_int_equal(r->d->ops->tx_batch(r->d, b, 10), TX_N - 1);
	assert_int_equal(r->f->regs[IGB_TDT0 / 4], TX_N - 1);
	/* Still full: nothing taken, no tail write. */
	assert_int_equal(r->d->ops->tx_batch(r->d, b + 7, 3), 0);
	fake_igb_tx_run(r->f);
	assert_int_equal(r->d->ops->tx_batch(r->d, b + 7, 3), 3);
	assert_int_equal(r->f->regs[IGB_TDT0 / 4], (TX_N - 1 + 3) % TX_N);
	fake_igb_tx_run(r->f);
	assert_int_equal(r->f->tx_sent, 10);
	assert_int_equal(r->d->ops->tx_batch(r->d, b, 0), 0);
	assert_int_equal(r->d->pool->out, RX_N);
}

static void test_tx_bad_length(void **state)
{
	struct rig *r = *state;
	struct netdev_buf *b[2];

	b[0] = tx_frame(r, 64, 0);
	b[0]->len = 0;
	b[1] = tx_frame(r, 64, 0);
	b[1]->len = 3000;
	assert_int_equal(r->d->ops->tx_batch(r->d, b, 2), 2);
	assert_int_equal(r->d->stats.tx_errors, 2);
	assert_int_equal(r->f->tx_sent, 0);
	assert_int_equal(r->d->pool->out, RX_N);
}

static void test_tx_stamps(void **state)
{
	struct rig *r = *state;
	struct netdev_buf *b[2];
	struct netdev_tx_stamp ts[4];
	struct igb_stats st;
	uint64_t t_send;

	r->f->tx_hold = true;
	b[0] = tx_frame(r, 80, 0);
	b[0]->flags = NETDEV_BUF_TS_REQ;
	b[0]->cookie = 42;
	b[1] = tx_frame(r, 80, 1);
	b[1]->flags = NETDEV_BUF_TS_REQ;
	b[1]->cookie = 43;
	assert_int_equal(r->d->ops->tx_batch(r->d, b, 2), 2);
	/* Not sent yet: no stamp; the second request found the first outstanding. */
	assert_int_equal(r->d->ops->tx_stamps(r->d, ts, 4), 0);
	fake_igb_advance(r->f, 777);
	t_send = r->f->systim;
	fake_igb_tx_run(r->f);
	assert_true(r->f->tx_cmd[0] & IGB_TXD_TSTAMP);
	assert_false(r->f->tx_cmd[1] & IGB_TXD_TSTAMP);
	fake_igb_advance(r->f, 10000);
	assert_int_equal(r->d->ops->tx_stamps(r->d, ts, 4), 1);
	assert_int_equal(ts[0].cookie, 42);
	assert_int_equal(ts[0].ts_ns, (int64_t)t_send);
	assert_false(r->f->regs[IGB_TSYNCTXCTL / 4] & IGB_TSYNC_VALID);
	igb_stats(r->d, &st);
	assert_int_equal(st.tx_stamps, 1);
	assert_int_equal(st.tx_ts_busy, 1);
	assert_int_equal(st.tx_ts_lost, 0);
	assert_int_equal(r->d->ops->tx_batch(r->d, b, 0), 0);
}

static void test_tx_stamp_lost(void **state)
{
	struct rig *r = *state;
	struct netdev_buf *b[1];
	struct netdev_tx_stamp ts[4];
	struct igb_stats st;

	r->f->tx_no_stamp = true;
	b[0] = tx_frame(r, 80, 0);
	b[0]->flags = NETDEV_BUF_TS_REQ;
	b[0]->cookie = 7;
	assert_int_equal(r->d->ops->tx_batch(r->d, b, 1), 1);
	assert_int_equal(r->d->ops->tx_stamps(r->d, ts, 4), 0);
	igb_stats(r->d, &st);
	assert_int_equal(st.tx_ts_lost, 0);
	/* A second of NIC time later the request is given up and the latch cleared. */
	fake_igb_advance(r->f, 1100000000ull);
	assert_int_equal(r->d->ops->tx_stamps(r->d, ts, 4), 0);
	igb_stats(r->d, &st);
	assert_int_equal(st.tx_ts_lost, 1);
	/* The next request gets a stamp again. */
	r->f->tx_no_stamp = false;
	b[0] = tx_frame(r, 80, 0);
	b[0]->flags = NETDEV_BUF_TS_REQ;
	b[0]->cookie = 8;
	assert_int_equal(r->d->ops->tx_batch(r->d, b, 1), 1);
	assert_int_equal(r->d->ops->tx_stamps(r->d, ts, 4), 1);
	assert_int_equal(ts[0].cookie, 8);
	assert_int_equal(r->d->ops->tx_batch(r->d, b, 0), 0);
}

static void test_probe_xmit(void **state)
{
	struct rig *r = *state;
	struct igb_probe_times t;
	struct netdev_buf *b = tx_frame(r, 60, 0);
	struct igb_stats st;

	assert_int_equal(igb_probe_xmit(r->d, b, &t), 0);
	assert_true(r->f->tx_cmd[0] & IGB_TXD_TSTAMP);
	assert_true(t.t_clk1 <= t.t_clk2);
	assert_int_equal(t.t_tx, r->f->systim);
	igb_stats(r->d, &st);
	assert_int_equal(st.tx_stamps, 1);
	/* A pending stamp makes the probe busy. */
	r->f->tx_hold = true;
	b = tx_frame(r, 60, 0);
	b->flags = NETDEV_BUF_TS_REQ;
	assert_int_equal(r->d->ops->tx_batch(r->d, &b, 1), 1);
	b = tx_frame(r, 60, 0);
	assert_int_equal(igb_probe_xmit(r->d, b, &t), -EBUSY);
	netdev_buf_free(r->d->pool, b);
	fake_igb_tx_run(r->f);
	assert_int_equal(r->d->ops->tx_batch(r->d, &b, 0), 0);
}

static void test_clock_adjust(void **state)
{
	struct rig *r = *state;
	uint64_t t0 = igb_systim(r->d);

	assert_int_equal(igb_clock_adjust(r->d, 5000000000LL), 0);
	assert_int_equal(igb_systim(r->d), t0 + 5000000000ull);
	assert_int_equal(igb_clock_adjust(r->d, -7), 0);
	assert_int_equal((uint64_t)r->d->ops->clock_ns(r->d), t0 + 5000000000ull - 7);
	/* TIMINCA: the fake clock's nanoseconds are SYSTIM's. */
	fake_igb_advance(r->f, 123);
	assert_int_equal(igb_systim(r->d), t0 + 5000000000ull - 7 + 123);
}

static void test_mta(void **state)
{
	struct rig *r = *state;
	static const uint8_t all_nodes[6] = {0x33, 0x33, 0, 0, 0, 0x01};
	static const uint8_t solicited[6] = {0x33, 0x33, 0xff, 0x12, 0x34, 0x56};
	static const uint8_t unicast[6] = {0x02, 0, 0, 0, 0, 1};

	assert_int_equal(r->d->ops->mcast_add(r->d, all_nodes), 0);
	/* Bits 47:36 of 33:33:00:00:00:01 are 0x010: MTA[0] bit 16. */
	assert_int_equal(r->f->regs[IGB_MTA(0) / 4], 1u << 16);
	assert_int_equal(r->d->ops->mcast_add(r->d, solicited), 0);
	/* 33:33:ff:12:34:56: bytes 4, 5 = 0x34, 0x56, bits 47:36 = 0x563: MTA[43] bit 3. */
	assert_int_equal(r->f->regs[IGB_MTA(43) / 4], 1u << 3);
	assert_int_equal(r->d->ops->mcast_add(r->d, all_nodes), 0);
	assert_int_equal(r->d->ops->mcast_del(r->d, all_nodes), 0);
	assert_int_equal(r->f->regs[IGB_MTA(0) / 4], 1u << 16);
	assert_int_equal(r->d->ops->mcast_del(r->d, all_nodes), 0);
	assert_int_equal(r->f->regs[IGB_MTA(0) / 4], 0);
	assert_int_equal(r->f->regs[IGB_MTA(43) / 4], 1u << 3);
	assert_int_equal(r->d->ops->mcast_del(r->d, all_nodes), -ENOENT);
	assert_int_equal(r->d->ops->mcast_add(r->d, unicast), -EINVAL);
	assert_int_equal(r->d->ops->mcast_del(r->d, solicited), 0);
	for (uint32_t i = 0; i < IGB_MTA_N; i++)
		assert_int_equal(r->f->regs[IGB_MTA(i) / 4], 0);
	/* Promiscuous stays off. */
	assert_false(r->f->regs[IGB_RCTL / 4] & (IGB_RCTL_UPE | IGB_RCTL_MPE));
}

static void test_close(void **state)
{
	struct rig *r = *state;
	struct fake_igb *f = r->f;
	struct netdev_buf *b[8];
	uint8_t fr[64];
	uint32_t from = f->n_log, rctl, tctl, rst;

	/* Frames in flight and received but not yet taken: close still gives every buffer back. */
	f->tx_hold = true;
	b[0] = tx_frame(r, 64, 0);
	assert_int_equal(r->d->ops->tx_batch(r->d, b, 1), 1);
	frame_make(fr, sizeof(fr), 0x88b5, 0);
	assert_int_equal(fake_igb_rx(f, fr, sizeof(fr)), 0);
	from = f->n_log;
	r->d->ops->close(r->d);
	r->d = NULL;
	assert_int_equal(f->log[from].reg, IGB_IMC);
	assert_int_equal(f->log[from].val, 0xffffffffu);
	rctl = wr_at(f, IGB_RCTL, from);
	tctl = wr_at(f, IGB_TCTL, from);
	assert_int_equal(f->log[rctl].val, 0);
	assert_int_equal(f->log[tctl].val, 0);
	assert_false(f->log[wr_at(f, IGB_RXDCTL0, from)].val & IGB_QUEUE_ENABLE);
	assert_false(f->log[wr_at(f, IGB_TXDCTL0, from)].val & IGB_QUEUE_ENABLE);
	rst = wr_at(f, IGB_CTRL, from);
	assert_true(f->log[rst].val & IGB_CTRL_RST);
	assert_true(rst > rctl && rst > tctl);
	assert_int_equal(f->resets, 2);
	/* After the reset the device is quiet: no ring, no receiver. */
	assert_int_equal(fake_igb_rx(f, fr, sizeof(fr)), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_init_sequence, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_init_irq_mode, setup_unopened, teardown),
	    cmocka_unit_test_setup_teardown(test_reset_timeout, setup_unopened, teardown),
	    cmocka_unit_test_setup_teardown(test_mdic_error, setup_unopened, teardown),
	    cmocka_unit_test_setup_teardown(test_mdic_never_ready, setup_unopened, teardown),
	    cmocka_unit_test_setup_teardown(test_link_down_is_not_error, setup_unopened, teardown),
	    cmocka_unit_test_setup_teardown(test_mac_set, setup_unopened, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_config, setup_unopened, teardown),
	    cmocka_unit_test_setup_teardown(test_rx_good, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rx_bad_descriptors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rx_pool_dry, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rx_wrap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rx_ptp_stamp, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rx_dropped_ptp_frees_latch, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rx_stale_latch_freed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tx_batch, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tx_ring_full, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tx_bad_length, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tx_stamps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tx_stamp_lost, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_probe_xmit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_clock_adjust, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mta, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_close, setup, teardown),
	};

	return cmocka_run_group_tests_name("uio-igb", tests, NULL, NULL);
}
