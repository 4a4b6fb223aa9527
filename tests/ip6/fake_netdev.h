/* SPDX-License-Identifier: MIT */
/*
 * fake_netdev.h - a netdev (lib/netdev) with no wire, for the IPv6
 * stack's unit tests and its fuzz target.
 *
 * OVERVIEW
 * The fake owns a pool of real buffers. tx_batch keeps the frames it takes
 * on a "sent" list (up to tx_room of them per call, so a test can make
 * the queue look full) for the test to read and free; frames the test
 * injects wait on an rx queue for rx_batch, or are handed out as buffers
 * for ip6s_input directly. mcast_add/mcast_del keep a MAC filter the test
 * can query. The clock is a field the test sets. close frees whatever the
 * fake still holds; the test then checks pool.out == 0 (every buffer the
 * stack took came back).
 *
 * Threads: none. Errors: -errno.
 */
#ifndef SDDS_TESTS_IP6_FAKE_NETDEV_H
#define SDDS_TESTS_IP6_FAKE_NETDEV_H

#include <stdbool.h>
#include <stdint.h>

#include <netdev/netdev.h>

#define FAKE_MAX_SENT 256u
#define FAKE_MAX_RX 64u
#define FAKE_MAX_MCAST 64u

struct fake_netdev {
	struct netdev base;
	struct netdev_pool pool;
	struct netdev_buf *sent[FAKE_MAX_SENT];
	unsigned n_sent;
	uint64_t sent_overflow; /* frames taken while the sent list was full (freed at once) */
	struct netdev_buf *rx[FAKE_MAX_RX];
	unsigned n_rx;
	uint8_t mcast[FAKE_MAX_MCAST][NETDEV_ETH_ALEN];
	unsigned n_mcast;
	bool link;
	unsigned tx_room; /* frames tx_batch takes per call (UINT32_MAX: all) */
	int64_t clock;
};

/* Opens f with nbufs buffers of NETDEV_BUF_SIZE; link up. -ENOMEM. */
int fake_netdev_open(struct fake_netdev *f, const uint8_t mac[NETDEV_ETH_ALEN], uint32_t mtu, uint32_t nbufs);
/* Frees every buffer f holds and the pool; returns pool.out just before (0: nothing leaked). */
uint32_t fake_netdev_close(struct fake_netdev *f);
/* A pool buffer holding a copy of frame (the caller owns it), or NULL (pool empty, too long). */
struct netdev_buf *fake_netdev_frame(struct fake_netdev *f, const void *frame, uint32_t len);
/* Queues a copy of frame for rx_batch; -ENOBUFS. */
int fake_netdev_inject(struct fake_netdev *f, const void *frame, uint32_t len);
/* Frees every sent frame. */
void fake_netdev_clear_sent(struct fake_netdev *f);
/* Whether mac is in the multicast filter. */
bool fake_netdev_mcast_has(const struct fake_netdev *f, const uint8_t mac[NETDEV_ETH_ALEN]);

#endif /* SDDS_TESTS_IP6_FAKE_NETDEV_H */
