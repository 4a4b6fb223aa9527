/* SPDX-License-Identifier: MIT */
/*
 * test_tap.c - drivers/tap against the Linux kernel on the other end of the
 * TAP, in a network namespace of its own (tools/common/netns_rig: side A
 * of a pair, entered with setns, so every TAP made here dies with it).
 *
 * OVERVIEW
 *   - kernel: the kernel's own frames when the link comes up (MLD reports,
 *     RS) arrive once their groups are added, as IPv6 from the kernel's
 *     MAC; an NS we write for the kernel's address gets its NA back, and a
 *     hand-built echo request its echo reply (checksums checked both ways).
 *   - filter: frames the kernel sends (an AF_PACKET socket on the
 *     interface) to another MAC, or a multicast MAC not added, are counted
 *     rx_filtered; ours, broadcast and added groups come in; the group
 *     table's references; oversized frames counted rx_errors.
 *   - nobuf: with the pool empty the frames wait in the kernel, in order.
 *   - tx: written frames reach the kernel whole, stamps come back in order
 *     and monotonic, the ring keeps the newest, bad frames are tx_errors.
 *   - uso_run, rx_csum: a run written to one TAP crosses a bridge whole and
 *     is cut by the driver of the other into datagrams with their lengths
 *     and checksums, two per call (the rest pending in the driver); a
 *     kernel UDP datagram with a partial checksum arrives finished.
 *   - link, open errors: IFF_DOWN seen by link_up; a TUN, a veth and a busy
 *     TAP refused with a sentence; a persistent TAP attached and left
 *     behind; without CAP_NET_ADMIN the interface stays down and `why` says
 *     what to run (need_up: -EPERM); MAC checks.
 * Every test checks that no pool buffer is out before close.
 * Root and /dev/net/tun only; otherwise 77.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "netns_rig.h"
#include "tap.h"

#define A 0
/* An EtherType for local experiments (IEEE 802): frames of our own that the kernel does not answer. */
#define ETH_P_TEST 0x88b5

static const uint8_t our_mac[6] = {0x02, 0x00, 0x5e, 0x10, 0x00, 0x01};
static const uint8_t other_mac[6] = {0x02, 0x00, 0x5e, 0x10, 0x00, 0x99};
static const uint8_t bcast_mac[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const uint8_t mdns_mac[6] = {0x33, 0x33, 0x00, 0x00, 0x00, 0xfb};
/* 2001:db8::1, the address given to the kernel side (RFC 3849's documentation prefix). */
static const uint8_t kernel_ip[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Waits up to ms for link_up to say want. IFF_RUNNING follows the kernel's
 * operational state, which its linkwatch updates up to a second after the
 * carrier changes: a link just brought up may read down for a while.
 */
static bool wait_link(struct netdev *d, bool want, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;

	while (d->ops->link_up(d) != want) {
		if (now_ns() >= end)
			return false;
		usleep(10000);
	}
	return true;
}

static struct netdev *open_tap(const char *name, bool up, uint32_t pool)
{
	struct tap_config cfg;
	struct netdev *d = NULL;
	char why[256];
	int rc;

	tap_config_init(&cfg);
	snprintf(cfg.name, sizeof(cfg.name), "%s", name);
	memcpy(cfg.mac, our_mac, 6);
	cfg.mac_set = true;
	cfg.bring_up = up;
	if (pool != 0)
		cfg.pool_size = pool;
	rc = tap_open(&cfg, &d, why, sizeof(why));
	if (rc != 0)
		fail_msg("tap_open %s: %d: %s", name, rc, why);
	assert_string_equal(why, "");
	assert_string_equal(d->name, name);
	assert_string_equal(d->ops->name, "tap");
	assert_memory_equal(d->mac, our_mac, 6);
	assert_int_equal(d->mtu, 1500);
	assert_true(d->fd >= 0);
	if (up && !wait_link(d, true, 3000))
		fail_msg("%s: not up and running 3 s after open", name);
	return d;
}

/* Leak check, then close. */
static void close_tap(struct netdev *d)
{
	assert_int_equal(d->pool->out, 0);
	d->ops->close(d);
}

/* The kernel side of d with IPv6 off: no frames of its own, so counts are exact. Then up. */
static void quiet_up(struct netdev *d)
{
	assert_int_equal(
	    netns_run("sysctl -qw net.ipv6.conf.%s.disable_ipv6=1 && ip link set %s up", d->name, d->name),
	    0);
	assert_true(wait_link(d, true, 3000));
}

static void kernel_mac(const char *name, uint8_t mac[6])
{
	struct ifreq ifr = {0};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	assert_int_equal(ioctl(s, SIOCGIFHWADDR, &ifr), 0);
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(s);
}

/* An AF_PACKET socket on name: what it sends, the kernel transmits on the interface (to our fd). */
static int packet_socket(const char *name)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL)};
	int s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));

	assert_true(s >= 0);
	sll.sll_ifindex = (int)if_nametoindex(name);
	assert_true(sll.sll_ifindex > 0);
	assert_int_equal(bind(s, (struct sockaddr *)&sll, sizeof(sll)), 0);
	return s;
}

/* The kernel sends a test frame of len bytes to dst, marked with mark. */
static void kernel_send(int ps, const uint8_t dst[6], uint8_t mark, size_t len)
{
	uint8_t f[4096] = {0};

	assert_true(len >= 15 && len <= sizeof(f));
	memcpy(f, dst, 6);
	memcpy(f + 6, other_mac, 6); /* any source: the kernel does not look */
	f[12] = ETH_P_TEST >> 8;
	f[13] = ETH_P_TEST & 0xff;
	f[14] = mark;
	if (send(ps, f, len, 0) != (ssize_t)len)
		fail_msg("AF_PACKET send of %zu bytes: %s", len, strerror(errno));
}

/* Waits up to ms for the fd, then one rx_batch of up to n. Its result. */
static int pump(struct netdev *d, struct netdev_buf **b, unsigned n, int ms)
{
	struct pollfd p = {.fd = d->fd, .events = POLLIN};

	if (poll(&p, 1, ms) < 0)
		return -errno;
	return d->ops->rx_batch(d, b, n);
}

/* Receives for up to ms until one of our test frames comes in; its mark, or -1. Others are freed. */
static int next_mark(struct netdev *d, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;

	while (now_ns() < end) {
		struct netdev_buf *b;
		int n = pump(d, &b, 1, 50);

		assert_true(n >= 0);
		if (n == 0)
			continue;
		if (b->len >= 15 && b->data[12] == (ETH_P_TEST >> 8) && b->data[13] == (ETH_P_TEST & 0xff)) {
			int mark = b->data[14];

			netdev_buf_free(d->pool, b);
			return mark;
		}
		netdev_buf_free(d->pool, b);
	}
	return -1;
}

/* Waits up to ms for the counter at c to pass old. */
static bool counter_passes(struct netdev *d, const uint64_t *c, uint64_t old, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;

	while (*c <= old && now_ns() < end) {
		struct netdev_buf *b;

		if (pump(d, &b, 1, 20) == 1)
			netdev_buf_free(d->pool, b);
	}
	return *c > old;
}

/* The Internet checksum over the IPv6 pseudo-header (RFC 8200 section 8.1) and the upper-layer data. */
static uint16_t csum6(const uint8_t *src, const uint8_t *dst, uint8_t nh, const uint8_t *p, size_t len)
{
	uint32_t s = 0;

	for (int i = 0; i < 16; i += 2)
		s += (uint32_t)(src[i] << 8 | src[i + 1]) + (uint32_t)(dst[i] << 8 | dst[i + 1]);
	s += (uint32_t)(len >> 16) + (uint32_t)(len & 0xffff) + nh;
	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* fe80::/64 with the modified EUI-64 of mac (RFC 4291 appendix A, RFC 4862 section 5.3). */
static void link_local(const uint8_t mac[6], uint8_t ip[16])
{
	static const uint8_t ll[8] = {0xfe, 0x80};

	memcpy(ip, ll, 8);
	ip[8] = mac[0] ^ 2;
	ip[9] = mac[1];
	ip[10] = mac[2];
	ip[11] = 0xff;
	ip[12] = 0xfe;
	ip[13] = mac[3];
	ip[14] = mac[4];
	ip[15] = mac[5];
}

/* Ethernet + IPv6 + ICMPv6 message icmp (checksum filled here) into a pool buffer. */
static struct netdev_buf *icmp6_frame(struct netdev *d, const uint8_t dmac[6], const uint8_t src[16],
				      const uint8_t dst[16], uint8_t hlim, const uint8_t *icmp, size_t len)
{
	struct netdev_buf *b = netdev_buf_alloc(d->pool);
	uint8_t *f, *m;
	uint16_t c;

	assert_non_null(b);
	f = b->data;
	memcpy(f, dmac, 6);
	memcpy(f + 6, d->mac, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	memset(f + 14, 0, 40);
	f[14] = 0x60;
	f[18] = (uint8_t)(len >> 8);
	f[19] = (uint8_t)len;
	f[20] = 58;
	f[21] = hlim;
	memcpy(f + 22, src, 16);
	memcpy(f + 38, dst, 16);
	m = f + 54;
	memcpy(m, icmp, len);
	m[2] = m[3] = 0;
	c = csum6(src, dst, 58, m, len);
	m[2] = (uint8_t)(c >> 8);
	m[3] = (uint8_t)c;
	b->len = (uint32_t)(54 + len);
	return b;
}

/* An ICMPv6 frame of type from the kernel (src MAC kmac) to us, checksum valid: its ICMPv6 part, else NULL.
 */
static const uint8_t *icmp6_of(const struct netdev_buf *b, const uint8_t kmac[6], uint8_t type, size_t *len)
{
	const uint8_t *f = b->data;
	size_t plen;

	if (b->len < 54 + 8 || f[12] != 0x86 || f[13] != 0xdd || f[20] != 58 || f[54] != type)
		return NULL;
	assert_memory_equal(f + 6, kmac, 6);
	assert_memory_equal(f, our_mac, 6);
	plen = (size_t)f[18] << 8 | f[19];
	assert_true(54 + plen <= b->len);
	/* A message with its checksum in place sums to zero (RFC 4443 section 2.3). */
	assert_int_equal(csum6(f + 22, f + 38, 58, f + 54, plen), 0);
	*len = plen;
	return f + 54;
}

/* Waits up to ms for an ICMPv6 message of type from the kernel; copies it to out. Its length or 0. */
static size_t wait_icmp6(struct netdev *d, const uint8_t kmac[6], uint8_t type, uint8_t *out, size_t cap,
			 uint8_t *hlim, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;

	while (now_ns() < end) {
		struct netdev_buf *b;
		const uint8_t *m;
		size_t len;

		if (pump(d, &b, 1, 50) != 1)
			continue;
		m = icmp6_of(b, kmac, type, &len);
		if (m != NULL) {
			assert_true(len <= cap);
			memcpy(out, m, len);
			*hlim = b->data[21];
			netdev_buf_free(d->pool, b);
			return len;
		}
		netdev_buf_free(d->pool, b);
	}
	return 0;
}

static void test_kernel_frames(void **state)
{
	/* MLDv2 reports go to ff02::16, RS to ff02::2 (RFC 3810 section 5.2.14, RFC 4861 section 6.3.7). */
	static const uint8_t mld_mac[6] = {0x33, 0x33, 0, 0, 0, 0x16};
	static const uint8_t rs_mac[6] = {0x33, 0x33, 0, 0, 0, 0x02};
	struct netdev *d = open_tap("tpk", true, 0);
	uint8_t kmac[6];
	bool seen = false;
	int64_t end = now_ns() + 4000000000;

	kernel_mac("tpk", kmac);
	assert_int_equal(d->ops->mcast_add(d, mld_mac), 0);
	assert_int_equal(d->ops->mcast_add(d, rs_mac), 0);
	assert_true(d->ops->link_up(d));
	assert_int_equal(netns_run("ip addr add 2001:db8::1/64 dev tpk nodad"), 0);
	while (!seen && now_ns() < end) {
		struct netdev_buf *b[8];
		int n = pump(d, b, 8, 100);

		assert_true(n >= 0);
		for (int i = 0; i < n; i++) {
			const uint8_t *f = b[i]->data;

			/* IPv6 (RFC 8200 section 3) from the kernel's MAC, to a group we added. */
			assert_true(b[i]->len >= 54);
			assert_memory_equal(f + 6, kmac, 6);
			assert_true(memcmp(f, mld_mac, 6) == 0 || memcmp(f, rs_mac, 6) == 0);
			assert_int_equal(f[12] << 8 | f[13], 0x86dd);
			assert_int_equal(f[14] >> 4, 6);
			assert_true(b[i]->ts_ns > 0 && b[i]->ts_ns <= d->ops->clock_ns(d));
			seen = true;
			netdev_buf_free(d->pool, b[i]);
		}
	}
	if (!seen)
		fail_msg("no MLD report or RS from the kernel in 4 s (rx %llu, filtered %llu)",
			 (unsigned long long)d->stats.rx_frames, (unsigned long long)d->stats.rx_filtered);
	close_tap(d);
}

static void test_kernel_ns_na_echo(void **state)
{
	struct netdev *d = open_tap("tpe", true, 0);
	uint8_t kmac[6], ll[16], got[1500], hlim = 0, sn_mac[6] = {0x33, 0x33, 0xff, 0, 0, 1};
	/* ff02::1:ff00:1, the solicited-node group of 2001:db8::1 (RFC 4291 section 2.7.1). */
	uint8_t sn_ip[16] = {0xff, 0x02, [11] = 1, [12] = 0xff, [15] = 1};
	uint8_t ns[32] = {135}, echo[8 + 32] = {128}, hl;
	struct netdev_buf *b;
	size_t len;

	kernel_mac("tpe", kmac);
	link_local(our_mac, ll);
	assert_int_equal(netns_run("ip addr add 2001:db8::1/64 dev tpe nodad"), 0);
	/* NS (RFC 4861 section 4.3): target, then our link-layer address (section 4.6.1), hop limit 255. */
	memcpy(ns + 8, kernel_ip, 16);
	ns[24] = 1;
	ns[25] = 1;
	memcpy(ns + 26, our_mac, 6);
	b = icmp6_frame(d, sn_mac, ll, sn_ip, 255, ns, sizeof(ns));
	assert_int_equal(d->ops->tx_batch(d, &b, 1), 1);
	len = wait_icmp6(d, kmac, 136, got, sizeof(got), &hlim, 3000);
	if (len == 0)
		fail_msg("no NA from the kernel for 2001:db8::1 in 3 s (rx %llu, filtered %llu, tx %llu)",
			 (unsigned long long)d->stats.rx_frames, (unsigned long long)d->stats.rx_filtered,
			 (unsigned long long)d->stats.tx_frames);
	/* NA (RFC 4861 section 4.4): hop limit 255, Solicited set, our target, the kernel's MAC as TLLA. */
	assert_int_equal(hlim, 255);
	assert_true(len >= 24);
	assert_true(got[4] & 0x40);
	assert_memory_equal(got + 8, kernel_ip, 16);
	if (len >= 32 && got[24] == 2 && got[25] == 1)
		assert_memory_equal(got + 26, kmac, 6);

	/* Echo request (RFC 4443 section 4.1) from our link-local to the kernel's address; it knows us now.
	 */
	echo[4] = 0x12;
	echo[5] = 0x34;
	echo[7] = 1;
	for (unsigned i = 8; i < sizeof(echo); i++)
		echo[i] = (uint8_t)(i * 7);
	b = icmp6_frame(d, kmac, ll, kernel_ip, 64, echo, sizeof(echo));
	assert_int_equal(d->ops->tx_batch(d, &b, 1), 1);
	len = wait_icmp6(d, kmac, 129, got, sizeof(got), &hl, 3000);
	if (len == 0)
		fail_msg("no echo reply from the kernel in 3 s");
	assert_int_equal(len, sizeof(echo));
	assert_memory_equal(got + 4, echo + 4, sizeof(echo) - 4);
	assert_int_equal(d->stats.tx_errors, 0);
	close_tap(d);
}

static void test_filter(void **state)
{
	struct netdev *d = open_tap("tpf", false, 0);
	struct netdev_stats *st = &d->stats;
	uint8_t mac[6] = {0x33, 0x33, 0xff, 0, 0, 0};
	uint64_t old;
	int ps;

	quiet_up(d);
	ps = packet_socket("tpf");

	old = st->rx_filtered;
	kernel_send(ps, other_mac, 1, 60);
	assert_true(counter_passes(d, &st->rx_filtered, old, 2000));
	kernel_send(ps, our_mac, 2, 60);
	assert_int_equal(next_mark(d, 2000), 2);
	kernel_send(ps, bcast_mac, 3, 60);
	assert_int_equal(next_mark(d, 2000), 3);
	assert_int_equal(st->rx_filtered, old + 1);

	/* A group not added is filtered; added twice, it takes two deletes to go. */
	kernel_send(ps, mdns_mac, 4, 60);
	assert_true(counter_passes(d, &st->rx_filtered, old + 1, 2000));
	assert_int_equal(d->ops->mcast_add(d, mdns_mac), 0);
	assert_int_equal(d->ops->mcast_add(d, mdns_mac), 0);
	assert_int_equal(d->ops->mcast_del(d, mdns_mac), 0);
	kernel_send(ps, mdns_mac, 5, 60);
	assert_int_equal(next_mark(d, 2000), 5);
	assert_int_equal(d->ops->mcast_del(d, mdns_mac), 0);
	assert_int_equal(d->ops->mcast_del(d, mdns_mac), -ENOENT);
	kernel_send(ps, mdns_mac, 6, 60);
	assert_true(counter_passes(d, &st->rx_filtered, old + 2, 2000));
	assert_int_equal(st->rx_filtered, old + 3);
	assert_int_equal(st->rx_frames, 3);

	/* Only multicast MACs go in the table, and it is bounded. */
	assert_int_equal(d->ops->mcast_add(d, our_mac), -EINVAL);
	for (unsigned i = 0;; i++) {
		int rc;

		mac[5] = (uint8_t)i;
		rc = d->ops->mcast_add(d, mac);
		if (rc == -ENOSPC) {
			assert_true(i >= 8);
			break;
		}
		assert_int_equal(rc, 0);
		assert_true(i < 256);
	}

	/* Larger than the buffer (the MTU was raised after open): counted rx_errors, not delivered. */
	assert_int_equal(netns_run("ip link set tpf mtu 4000"), 0);
	old = st->rx_errors;
	kernel_send(ps, our_mac, 7, 3000);
	assert_true(counter_passes(d, &st->rx_errors, old, 2000));
	/* The largest frame of the MTU at open still fits. */
	kernel_send(ps, our_mac, 8, 1514);
	assert_int_equal(next_mark(d, 2000), 8);
	assert_int_equal(st->rx_errors, old + 1);
	assert_int_equal(st->rx_nobuf, 0);
	close(ps);
	close_tap(d);
}

static void test_nobuf(void **state)
{
	struct netdev *d = open_tap("tpn", false, 4);
	struct netdev_buf *b[16];
	int ps, n, next = 0;

	quiet_up(d);
	ps = packet_socket("tpn");
	for (int i = 0; i < 10; i++)
		kernel_send(ps, our_mac, (uint8_t)i, 60);
	/* Four buffers: four frames, the rest wait in the kernel (nothing counted lost). */
	n = pump(d, b, 16, 2000);
	assert_int_equal(n, 4);
	assert_int_equal(d->pool->out, 4);
	assert_int_equal(d->ops->rx_batch(d, b + 4, 12), 0);
	assert_int_equal(d->stats.rx_nobuf, 0);
	for (int i = 0; i < n; i++) {
		assert_int_equal(b[i]->data[14], next++);
		netdev_buf_free(d->pool, b[i]);
	}
	while (next < 10) {
		n = pump(d, b, 16, 2000);
		assert_true(n > 0 && n <= 4);
		for (int i = 0; i < n; i++) {
			assert_int_equal(b[i]->data[14], next++);
			netdev_buf_free(d->pool, b[i]);
		}
	}
	assert_int_equal(d->stats.rx_frames, 10);
	assert_int_equal(d->pool->out_max, 4);
	close(ps);
	close_tap(d);
}

/* The next frame of EtherType ETH_P_TEST the kernel got on ps within ms: its mark, or -1. */
static int kernel_recv_mark(int ps, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	uint8_t f[2048];

	while (now_ns() < end) {
		struct pollfd p = {.fd = ps, .events = POLLIN};
		ssize_t r;

		if (poll(&p, 1, 50) <= 0)
			continue;
		r = recv(ps, f, sizeof(f), 0);
		if (r >= 15 && f[12] == (ETH_P_TEST >> 8) && f[13] == (ETH_P_TEST & 0xff))
			return f[14];
	}
	return -1;
}

static struct netdev_buf *test_frame(struct netdev *d, uint8_t mark, bool stamp, uint64_t cookie)
{
	struct netdev_buf *b = netdev_buf_alloc(d->pool);

	assert_non_null(b);
	memset(b->data, 0, 60);
	memcpy(b->data, other_mac, 6);
	memcpy(b->data + 6, d->mac, 6);
	b->data[12] = ETH_P_TEST >> 8;
	b->data[13] = ETH_P_TEST & 0xff;
	b->data[14] = mark;
	b->len = 60;
	if (stamp) {
		b->flags |= NETDEV_BUF_TS_REQ;
		b->cookie = cookie;
	}
	return b;
}

static void test_tx(void **state)
{
	struct netdev *d = open_tap("tpt", false, 0);
	struct netdev_tx_stamp st[80];
	struct netdev_buf *b[80];
	int64_t t0, t1;
	int ps, n;

	quiet_up(d);
	ps = packet_socket("tpt");
	for (unsigned i = 0; i < 6; i++)
		b[i] = test_frame(d, (uint8_t)i, i != 3, 100 + i);
	/* Too short for an Ethernet header: taken, counted, freed. */
	b[6] = netdev_buf_alloc(d->pool);
	b[6]->len = 5;
	t0 = d->ops->clock_ns(d);
	assert_int_equal(d->ops->tx_batch(d, b, 7), 7);
	t1 = d->ops->clock_ns(d);
	assert_int_equal(d->pool->out, 0);
	assert_int_equal(d->stats.tx_frames, 6);
	assert_int_equal(d->stats.tx_bytes, 6 * 60);
	assert_int_equal(d->stats.tx_errors, 1);
	for (int i = 0; i < 6; i++)
		assert_int_equal(kernel_recv_mark(ps, 2000), i);

	n = d->ops->tx_stamps(d, st, 80);
	assert_int_equal(n, 5);
	for (int i = 0, c = 100; i < n; i++, c++) {
		c += c == 103;
		assert_int_equal(st[i].cookie, c);
		assert_true(st[i].ts_ns >= t0 && st[i].ts_ns <= t1);
		if (i > 0)
			assert_true(st[i].ts_ns >= st[i - 1].ts_ns);
	}
	assert_int_equal(d->ops->tx_stamps(d, st, 80), 0);

	/* More stamps than the ring holds: the newest are kept, in order. */
	for (unsigned i = 0; i < 80; i++)
		b[i] = test_frame(d, 0, true, 1000 + i);
	assert_int_equal(d->ops->tx_batch(d, b, 80), 80);
	n = d->ops->tx_stamps(d, st, 80);
	assert_true(n >= 16 && n < 80);
	for (int i = 0; i < n; i++)
		assert_int_equal(st[i].cookie, 1000 + 80 - n + i);
	close(ps);
	close_tap(d);
}

static void set_flags(const char *name, bool up)
{
	struct ifreq ifr = {0};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	assert_int_equal(ioctl(s, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags = (short)(up ? ifr.ifr_flags | IFF_UP : ifr.ifr_flags & ~IFF_UP);
	assert_int_equal(ioctl(s, SIOCSIFFLAGS, &ifr), 0);
	close(s);
}

static void test_link(void **state)
{
	struct netdev *d = open_tap("tpl", true, 0);

	assert_true(d->ops->link_up(d));
	set_flags("tpl", false);
	assert_false(d->ops->link_up(d));
	set_flags("tpl", true);
	assert_true(wait_link(d, true, 3000));
	close_tap(d);
	/* Not persistent: gone with its fd. */
	assert_int_not_equal(netns_run("ip link show tpl >/dev/null 2>&1"), 0);
}

static int try_open(const char *name, const uint8_t *mac, bool bring_up, bool need_up, char *why, size_t len,
		    struct netdev **ret)
{
	struct tap_config cfg;

	tap_config_init(&cfg);
	snprintf(cfg.name, sizeof(cfg.name), "%s", name);
	if (mac != NULL) {
		memcpy(cfg.mac, mac, 6);
		cfg.mac_set = true;
	}
	cfg.bring_up = bring_up;
	cfg.need_up = need_up;
	return tap_open(&cfg, ret, why, len);
}

static void test_refused(void **state)
{
	struct netdev *d = NULL, *d2 = NULL;
	struct tap_config cfg;
	char why[256];
	uint8_t kmac[6];

	/* A TUN of that name, a veth, a TAP someone has open. */
	assert_int_equal(netns_run("ip tuntap add dev tun7 mode tun"), 0);
	assert_int_equal(try_open("tun7", NULL, true, false, why, sizeof(why), &d), -EINVAL);
	assert_null(d);
	assert_non_null(strstr(why, "tun7 exists and is a TUN device"));
	assert_int_equal(try_open("vta", NULL, true, false, why, sizeof(why), &d), -EINVAL);
	assert_non_null(strstr(why, "vta exists and is not a TUN/TAP device (driver veth)"));
	d = open_tap("tpb", true, 0);
	assert_int_equal(try_open("tpb", NULL, true, false, why, sizeof(why), &d2), -EBUSY);
	assert_null(d2);
	assert_non_null(strstr(why, "tpb is busy"));

	close_tap(d);

	/* The MAC, on a persistent TAP (its kernel MAC stays): the kernel's, multicast, zero refused. */
	assert_int_equal(netns_run("ip tuntap add dev tpm mode tap"), 0);
	kernel_mac("tpm", kmac);
	assert_int_equal(try_open("tpm", kmac, true, false, why, sizeof(why), &d), -EINVAL);
	assert_non_null(strstr(why, "the kernel's address"));
	assert_int_equal(try_open("tpm", mdns_mac, true, false, why, sizeof(why), &d), -EINVAL);
	assert_int_equal(try_open("tpm", (const uint8_t[6]){0}, true, false, why, sizeof(why), &d), -EINVAL);
	/* None given: a random one, unicast and locally administered (IEEE 802 U/L bit), not the kernel's. */
	assert_int_equal(try_open("tpm", NULL, true, false, why, sizeof(why), &d), 0);
	assert_int_equal(d->mac[0] & 3, 2);
	assert_memory_not_equal(d->mac, kmac, 6);
	close_tap(d);
	assert_int_equal(netns_run("ip link del tpm"), 0);
	/* A name that fills the field with no terminator: longer than IFNAMSIZ - 1. */
	tap_config_init(&cfg);
	memset(cfg.name, 'a', sizeof(cfg.name));
	assert_int_equal(tap_open(&cfg, &d, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "too long"));
}

static void test_persistent(void **state)
{
	struct netdev *d = NULL;
	char why[256];

	assert_int_equal(netns_run("ip tuntap add dev tpp mode tap"), 0);
	assert_int_equal(try_open("tpp", NULL, false, true, why, sizeof(why), &d), -ENETDOWN);
	assert_non_null(strstr(why, "ip link set tpp up"));
	d = open_tap("tpp", true, 0);
	assert_true(wait_link(d, true, 3000));
	close_tap(d);
	/* Persistent: still there after close, up, without carrier. */
	assert_int_equal(netns_run("ip link show tpp | grep -q NO-CARRIER"), 0);
	assert_int_equal(netns_run("ip link del tpp"), 0);
}

/* Drops CAP_NET_ADMIN from this process (and every other capability: uid 0 still opens /dev/net/tun). */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct c[2] = {{0}};

	return (int)syscall(SYS_capset, &h, c);
}

/* In a child without capabilities: open the down TAP tpq. Exit 0 when all is as expected. */
static int no_cap_child(void)
{
	struct netdev *d = NULL;
	char why[256];
	int rc;

	if (drop_caps() != 0)
		return 10;
	rc = try_open("tpq", NULL, true, false, why, sizeof(why), &d);
	fprintf(stderr, "without CAP_NET_ADMIN: %d, why: %s\n", rc, why);
	if (rc != 0)
		return 11;
	if (strstr(why, "cannot bring tpq up") == NULL || strstr(why, "(needs CAP_NET_ADMIN)") == NULL ||
	    strstr(why, "`ip link set tpq up`") == NULL)
		return 12;
	if (d->ops->link_up(d))
		return 13;
	d->ops->close(d);
	rc = try_open("tpq", NULL, true, true, why, sizeof(why), &d);
	if (rc != -EPERM || strstr(why, "needs CAP_NET_ADMIN") == NULL)
		return 14;
	return 0;
}

static void test_no_cap(void **state)
{
	pid_t pid;
	int st;

	assert_int_equal(netns_run("ip tuntap add dev tpq mode tap"), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(no_cap_child());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(netns_run("ip link del tpq"), 0);
}

/*
 * A UDP segmentation run (netdev_buf.gso_size) written on one TAP comes out
 * of another TAP of the same bridge as separate datagrams, each with its
 * own lengths and a checksum this test verifies: the kernel cut the run
 * and finished the checksums from the pseudo-header sum the frame carried.
 */
static void test_uso_run(void **state)
{
	static const uint8_t src[16] = {0xfe, 0x80, [15] = 1}, dst[16] = {0xfe, 0x80, [15] = 2};
	enum { SEG = 7, N = 5 };
	struct tap_config cfg;
	struct netdev *a, *b = NULL;
	struct netdev_buf *f, *in[8];
	char why[256];
	uint32_t sum = 0, ulen = 8 + SEG * N;
	uint8_t *u;
	unsigned got = 0;
	uint64_t runs, csums;
	int64_t end;

	(void)state;
	assert_int_equal(
	    netns_run("ip link add br9 type bridge && sysctl -qw net.ipv6.conf.br9.disable_ipv6=1"), 0);
	a = open_tap("tua", false, 0);
	assert_true((a->caps & NETDEV_CAP_TX_USO) != 0);
	assert_int_equal(a->gso_max_segs, 64);
	tap_config_init(&cfg);
	snprintf(cfg.name, sizeof(cfg.name), "tub");
	memcpy(cfg.mac, other_mac, 6);
	cfg.mac_set = true;
	cfg.bring_up = false;
	if (tap_open(&cfg, &b, why, sizeof(why)) != 0)
		fail_msg("tap_open tub: %s", why);
	assert_int_equal(
	    netns_run("sysctl -qw net.ipv6.conf.tua.disable_ipv6=1 net.ipv6.conf.tub.disable_ipv6=1 && "
		      "ip link set tua master br9 && ip link set tub master br9 && "
		      "ip link set tua up && ip link set tub up && ip link set br9 up"),
	    0);
	assert_true(wait_link(a, true, 3000) && wait_link(b, true, 3000));
	f = netdev_buf_alloc(a->pool);
	assert_non_null(f);
	memcpy(f->data, other_mac, 6);
	memcpy(f->data + 6, our_mac, 6);
	f->data[12] = 0x86;
	f->data[13] = 0xdd;
	memset(f->data + 14, 0, 40);
	f->data[14] = 0x60;
	f->data[18] = (uint8_t)(ulen >> 8);
	f->data[19] = (uint8_t)ulen;
	f->data[20] = 17;
	f->data[21] = 1;
	memcpy(f->data + 22, src, 16);
	memcpy(f->data + 38, dst, 16);
	u = f->data + 54;
	u[0] = 4000 >> 8, u[1] = 4000 & 0xff, u[2] = 5000 >> 8, u[3] = 5000 & 0xff;
	u[4] = (uint8_t)(ulen >> 8), u[5] = (uint8_t)ulen;
	for (int i = 0; i < N * SEG; i++)
		u[8 + i] = (uint8_t)('A' + i / SEG);
	/* The pseudo-header's sum, folded, not inverted (netdev.h). */
	for (int i = 0; i < 16; i += 2)
		sum += (uint32_t)(src[i] << 8 | src[i + 1]) + (uint32_t)(dst[i] << 8 | dst[i + 1]);
	sum += ulen + 17;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	u[6] = (uint8_t)(sum >> 8), u[7] = (uint8_t)sum;
	f->len = 54 + ulen;
	f->gso_size = SEG;
	assert_int_equal(a->ops->tx_batch(a, &f, 1), 1);
	assert_int_equal(a->stats.tx_errors, 0);
	end = now_ns() + 3000000000LL;
	while (got < N && now_ns() < end) {
		/* Two at a time: a run cut in the driver leaves the rest pending, not in the fd. */
		int n = got == 0 ? pump(b, in, 2, 50) : b->ops->rx_batch(b, in, 2);

		assert_true(n >= 0);
		if (got > 0 && n == 0)
			break; /* datagrams after the first come without waiting, or not at all */
		for (int k = 0; k < n; k++) {
			const uint8_t *v = in[k]->data + 54;

			if (in[k]->len != 54 + 8 + SEG || in[k]->data[20] != 17) {
				netdev_buf_free(b->pool, in[k]);
				continue;
			}
			assert_int_equal(in[k]->data[18] << 8 | in[k]->data[19], 8 + SEG);
			assert_int_equal(v[4] << 8 | v[5], 8 + SEG);
			assert_int_equal(csum6(in[k]->data + 22, in[k]->data + 38, 17, v, 8 + SEG), 0);
			assert_int_equal(v[8], 'A' + got);
			assert_memory_equal(v + 8, v + 9, SEG - 1);
			got++;
			netdev_buf_free(b->pool, in[k]);
		}
	}
	/* The bridge hands tub the run whole (tub takes USO6): one read, cut by the driver. */
	tap_rx_offloads(b, &runs, &csums);
	assert_int_equal(runs, 1);
	assert_int_equal(b->stats.rx_errors, 0);
	assert_int_equal(got, N);
	close_tap(a);
	close_tap(b);
	netns_run("ip link del br9");
}

/*
 * A datagram from a kernel UDP socket leaves the kernel with its checksum
 * partial (the TAP offers checksum offload): it arrives with the checksum
 * finished by the driver, and counted as such.
 */
static void test_rx_csum(void **state)
{
	static const uint8_t peer[16] = {0xfe, 0x80, [15] = 2};
	enum { LEN = 37 }; /* odd: the checksum's last word is half padding */
	struct sockaddr_in6 to = {.sin6_family = AF_INET6, .sin6_port = htons(5000)};
	struct netdev *d = open_tap("tuc", false, 0);
	char msg[LEN];
	uint64_t runs, csums;
	int64_t end;
	bool seen = false;
	int s;

	(void)state;
	/* No DAD: the kernel's link-local is usable as a source at once. */
	assert_int_equal(
	    netns_run("sysctl -qw net.ipv6.conf.tuc.accept_dad=0 && ip link set tuc up && "
		      "ip -6 neigh replace fe80::2 lladdr 02:00:5e:10:00:01 dev tuc nud permanent"),
	    0);
	assert_true(wait_link(d, true, 3000));
	memcpy(&to.sin6_addr, peer, 16);
	to.sin6_scope_id = if_nametoindex("tuc");
	memset(msg, 'z', sizeof(msg));
	s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(s >= 0);
	end = now_ns() + 3000000000LL;
	while (!seen && now_ns() < end) {
		struct netdev_buf *b;
		int n;

		/* Resent until one arrives: the link-local address may not be ready for the first. */
		sendto(s, msg, sizeof(msg), 0, (struct sockaddr *)&to, sizeof(to));
		n = pump(d, &b, 1, 100);
		assert_true(n >= 0);
		if (n == 0)
			continue;
		if (b->len == 54 + 8 + LEN && b->data[12] == 0x86 && b->data[13] == 0xdd &&
		    b->data[20] == 17) {
			const uint8_t *u = b->data + 54;

			assert_int_equal(u[4] << 8 | u[5], 8 + LEN);
			assert_true((u[6] | u[7]) != 0);
			assert_int_equal(csum6(b->data + 22, b->data + 38, 17, u, 8 + LEN), 0);
			assert_memory_equal(u + 8, msg, LEN);
			seen = true;
		}
		netdev_buf_free(d->pool, b);
	}
	close(s);
	assert_true(seen);
	tap_rx_offloads(d, &runs, &csums);
	assert_true(csums >= 1);
	assert_int_equal(d->stats.rx_errors, 0);
	close_tap(d);
}

static int group_setup(void **state)
{
	if (netns_pair_setup("tp", "vta", "vtb") != 0) {
		fprintf(stderr, "netns setup: %s\n", netns.why);
		return -1;
	}
	return netns_enter(A) == 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
	netns_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kernel_frames),
	    cmocka_unit_test(test_kernel_ns_na_echo),
	    cmocka_unit_test(test_filter),
	    cmocka_unit_test(test_nobuf),
	    cmocka_unit_test(test_tx),
	    cmocka_unit_test(test_uso_run),
	    cmocka_unit_test(test_rx_csum),
	    cmocka_unit_test(test_link),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_persistent),
	    cmocka_unit_test(test_no_cap),
	};
	int rc = netns_available("test_tap");

	if (rc != 0)
		return rc;
	if (access("/dev/net/tun", R_OK | W_OK) != 0) {
		fprintf(stderr, "test_tap: no /dev/net/tun: skipped\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
