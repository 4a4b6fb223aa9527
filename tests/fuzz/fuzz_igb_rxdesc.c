/* SPDX-License-Identifier: MIT */
/*
 * fuzz_igb_rxdesc.c - the uio-igb receive path (drivers/uio-igb/igb.c,
 * rx_batch) fed descriptor write-backs the fuzzer chooses, through the
 * fake 82576 of tests/uio-igb/fake_igb.c: no write-back may crash it or
 * make it hand out a frame with a bad length.
 *
 * OVERVIEW
 * Input: a run of records, each starting with an op byte (low two bits):
 *   0: a write-back: status_error (4 bytes, little-endian), length (2),
 *      n (1), then n frame bytes, written into the next descriptor the
 *      driver gave (nothing when the ring is full);
 *   1: rx_batch for (next byte % 9) frames;
 *   2: take a buffer from the pool (the pool runs dry);
 *   3: give the taken buffers back.
 * Every frame rx_batch hands out must have 14 <= len <= its buffer's
 * size, be one of the pool's buffers, and be out of the pool. At the end
 * the ring is drained, one frame with an error ends any half-dropped
 * frame, and only the ring's buffers may be out (nothing leaked).
 * The driver is opened once (its reset waits take milliseconds) and left
 * in that state between inputs. A failure crashes (FUZZ_CHECK).
 */
#include <stdlib.h>
#include <string.h>

#include "fake_igb.h"
#include "fuzz.h"
#include "igb.h"
#include "regs.h"

#define FZ_RX_N 8u
#define FZ_POOL_N 24u

static struct fake_igb *fz_fake;
static struct netdev *fz_dev;
static struct netdev_buf *fz_held[FZ_POOL_N];
static unsigned fz_n_held;

static void fz_open(void)
{
	struct igb_config cfg;
	char why[256];

	fz_fake = fake_igb_new(0x20000u + FZ_POOL_N * NETDEV_BUF_SIZE);
	FUZZ_CHECK(fz_fake != NULL);
	igb_config_init(&cfg);
	cfg.fake_io = &fz_fake->io;
	cfg.fake_dma = &fz_fake->dma;
	cfg.rx_ring = FZ_RX_N;
	cfg.tx_ring = 8;
	cfg.pool_bufs = FZ_POOL_N;
	cfg.poll = true;
	FUZZ_CHECK(igb_open(&cfg, &fz_dev, why, sizeof(why)) == 0);
}

static unsigned fz_batch(unsigned n)
{
	struct netdev_pool *p = fz_dev->pool;
	struct netdev_buf *b[8];
	int got = fz_dev->ops->rx_batch(fz_dev, b, n);

	FUZZ_CHECK(got >= 0 && (unsigned)got <= n);
	for (int k = 0; k < got; k++) {
		FUZZ_CHECK(b[k] >= p->bufs && b[k] < p->bufs + p->n && b[k]->out);
		FUZZ_CHECK(b[k]->data == p->mem + (size_t)b[k]->idx * p->size);
		FUZZ_CHECK(b[k]->len >= NETDEV_ETH_HLEN && b[k]->len <= b[k]->cap && b[k]->cap == p->size);
		netdev_buf_free(p, b[k]);
	}
	return (unsigned)got;
}

static void fz_give_back(void)
{
	while (fz_n_held > 0)
		netdev_buf_free(fz_dev->pool, fz_held[--fz_n_held]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t end_frame[64];
	size_t i = 0;

	if (fz_dev == NULL)
		fz_open();
	while (i < size) {
		uint8_t op = data[i++] & 3u;

		if (op == 0) {
			uint32_t st, n;
			uint16_t len;

			if (size - i < 7)
				break;
			st = (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 | (uint32_t)data[i + 2] << 16 |
			     (uint32_t)data[i + 3] << 24;
			len = (uint16_t)(data[i + 4] | data[i + 5] << 8);
			n = data[i + 6];
			i += 7;
			if (n > size - i)
				n = (uint32_t)(size - i);
			(void)fake_igb_rx_raw(fz_fake, data + i, n, len, st);
			i += n;
		} else if (op == 1) {
			if (i < size)
				(void)fz_batch(data[i++] % 9u);
		} else if (op == 2) {
			struct netdev_buf *b = netdev_buf_alloc(fz_dev->pool);

			if (b != NULL)
				fz_held[fz_n_held++] = b;
		} else {
			fz_give_back();
		}
	}
	fz_give_back();
	/* Drain; then a frame with an error (EOP) ends a frame the driver was dropping part by part. */
	for (unsigned k = 0; k < FZ_RX_N && fz_batch(8) > 0; k++)
		;
	if (fake_igb_rx_raw(fz_fake, end_frame, sizeof(end_frame), sizeof(end_frame),
			    IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP | IGB_RXD_ERR_RXE) == 0)
		FUZZ_CHECK(fz_batch(8) == 0);
	FUZZ_CHECK(fz_dev->pool->out == FZ_RX_N);
	return 0;
}
