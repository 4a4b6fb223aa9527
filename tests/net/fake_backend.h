/* SPDX-License-Identifier: MIT */
/*
 * fake_backend.h - a network backend for unit tests: datagrams the test
 * queues come out of rx, datagrams the layer sends are kept for the test
 * to inspect. One instance at a time (tests are single-threaded).
 */
#ifndef SDDS_TESTS_NET_FAKE_BACKEND_H
#define SDDS_TESTS_NET_FAKE_BACKEND_H

#include "backend.h"

#define FAKE_IFINDEX 1000u
#define FAKE_MAX 4096u
#define FAKE_DGRAM 2048u

struct fake_dgram {
	uint8_t buf[FAKE_DGRAM];
	uint32_t len;
	struct net_addr addr; /* rx: source; tx: destination */
	bool mcast;
};

extern const struct net_backend_ops fake_backend_ops;

/* Our link-local address: fe80::1. */
void fake_reset(void);
/* Queue a datagram from ip:port (text address, on the fake link). */
void fake_inject(const char *src_ip, uint16_t port, bool mcast, const void *buf, uint32_t len);
/* Sent datagrams so far, and the i-th. */
uint32_t fake_sent(void);
const struct fake_dgram *fake_sent_at(uint32_t i);
/* Groups joined. */
uint32_t fake_joined(void);
/* Fix the backend's clock at ns (0: the real monotonic clock again). */
void fake_clock_set(int64_t ns);
/* Open instances (0 after close). */
int fake_open_count(void);

#endif
