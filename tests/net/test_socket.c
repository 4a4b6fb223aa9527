/* SPDX-License-Identifier: MIT */
/*
 * test_socket.c - the `socket` backend's send path (daemon/net/socket.c)
 * on real links: runs of equal datagrams to one peer leave as UDP GSO
 * messages, and the wire carries the datagrams one by one, as plain
 * sendmmsg sends them.
 *   - veth (two namespaces of the shared fixture): a batch that mixes
 *     runs of one size, a shorter last datagram, other destinations and
 *     the multicast socket reaches plain sockets in B datagram by
 *     datagram, bytes and order as handed in; the link counts the
 *     datagrams that left in GSO messages; with gso off, none does and
 *     the wire is the same;
 *   - TAP: the batch read back from the TAP frame by frame, every
 *     datagram once, in order, one IPv6/UDP frame each; and again with the
 *     kernel refusing to segment on the unicast socket (a socket without
 *     checksums: EINVAL; a device without checksum offload gave EIO
 *     before Linux 6.11): the backend goes on with plain datagrams, loses
 *     none, and the link says GSO was refused. With SDDS_TAP_REFUSES_GSO=1
 *     (tests/vm/guest-socket.sh, on a kernel before 6.11, which refuses
 *     UDP GSO on a device without checksum offload with EIO) the TAP
 *     itself makes the kernel refuse, on both sockets.
 * Root only (namespaces, TAP); otherwise 77.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "netns_harness.h"
#include "netloop_uv.h"
#include "socket.h"

#define A 0
#define B 1
#define PORT 23234

static int self_ns = -1;

/* Into side's namespace (or back to ours with side < 0). */
static void enter(int side)
{
	char path[96];
	int fd;

	if (side < 0) {
		assert_int_equal(setns(self_ns, CLONE_NEWNET), 0);
		return;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", netns.ns[side]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(setns(fd, CLONE_NEWNET), 0);
	close(fd);
}

static void on_readable(struct net_backend *b, void *ctx)
{
	(void)b;
	(void)ctx;
}

/* The socket backend on link dev of the current namespace, with gso as given. */
static struct net_backend *open_backend(uv_loop_t *loop, const char *dev, const char *ip, bool gso)
{
	struct net_backend_config cfg = {
	    .n_links = 1, .port = PORT, .has_prefer = true, .max_dgram = 128, .gso = gso};
	struct net_backend *be = NULL;
	int rc;

	cfg.links[0] = dev;
	assert_int_equal(inet_pton(AF_INET6, ip, &cfg.prefer), 1);
	rc = net_socket_ops.open(net_loop_uv(loop), &cfg, on_readable, NULL, &be);
	if (rc < 0)
		fail_msg("open the socket backend on %s: %s", dev, strerror(-rc));
	return be;
}

static void close_backend(uv_loop_t *loop, struct net_backend *be)
{
	net_socket_ops.close(be, NULL, NULL);
	uv_run(loop, UV_RUN_DEFAULT);
}

/* A plain UDP socket bound to [ip%dev]:port of the current namespace. */
static int plain_socket(const char *ip, const char *dev, uint16_t port)
{
	struct sockaddr_in6 sa = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct timeval tv = {.tv_sec = 2};

	assert_true(fd >= 0);
	assert_int_equal(inet_pton(AF_INET6, ip, &sa.sin6_addr), 1);
	sa.sin6_scope_id = if_nametoindex(dev);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	return fd;
}

/*
 * The batch: 40 datagrams of 7 bytes to B:PORT (one GSO message), one of
 * 5 (the shorter last of it), 3 of 9 to B:PORT+1, 65 of 7 to B:PORT again
 * (64, the most one message carries, and one alone), then 2 from the
 * multicast socket to B:PORT. Every datagram's bytes are its index and
 * its length.
 */
#define N_TX 111u

static uint32_t tx_len(unsigned i)
{
	return i < 40 ? 7 : i == 40 ? 5 : i < 44 ? 9 : 7;
}

static void make_batch(struct net_tx *tx, uint8_t (*buf)[16], uint32_t ifindex)
{
	struct in6_addr b;

	assert_int_equal(inet_pton(AF_INET6, "fe80::b", &b), 1);
	for (unsigned i = 0; i < N_TX; i++) {
		tx[i].buf = buf[i];
		tx[i].len = tx_len(i);
		memset(buf[i], (int)tx_len(i), sizeof(buf[i]));
		buf[i][0] = (uint8_t)i;
		tx[i].dst.ip = b;
		tx[i].dst.port = i >= 41 && i < 44 ? PORT + 1 : PORT;
		tx[i].dst.ifindex = ifindex;
		tx[i].from_mcast = i >= N_TX - 2;
		tx[i].link = 0;
	}
}

/* Nothing more arrives on fd within 150 ms: no datagram was sent twice. */
static void expect_nothing_more(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	if (poll(&p, 1, 150) != 0)
		fail_msg("a datagram more than was sent arrived");
}

/* Reads the datagrams of one port: indexes in order, each with its bytes. */
static void expect_dgrams(int fd, const struct net_tx *tx, uint16_t port, uint16_t src_port)
{
	for (unsigned i = 0; i < N_TX; i++) {
		struct sockaddr_in6 from;
		socklen_t fl = sizeof(from);
		uint8_t got[256];
		ssize_t n;

		if (tx[i].dst.port != port)
			continue;
		n = recvfrom(fd, got, sizeof(got), 0, (struct sockaddr *)&from, &fl);
		if (n < 0)
			fail_msg("datagram %u to port %u: %s", i, port, strerror(errno));
		if ((size_t)n != tx[i].len || memcmp(got, tx[i].buf, tx[i].len) != 0)
			fail_msg("port %u: got %zd bytes starting %u, want datagram %u of %u bytes", port, n,
				 got[0], i, tx[i].len);
		/* The multicast socket's datagrams come from PORT + 20, the rest from PORT. */
		assert_int_equal(ntohs(from.sin6_port), tx[i].from_mcast ? src_port + 20 : src_port);
	}
}

static void run_veth(bool gso)
{
	static uint8_t buf[N_TX][16];
	struct net_tx tx[N_TX];
	const struct net_link_info *li;
	struct net_backend *be;
	uv_loop_t loop;
	int fd0, fd1, err = 0, r;

	enter(B);
	fd0 = plain_socket("fe80::b", "vsb", PORT);
	fd1 = plain_socket("fe80::b", "vsb", PORT + 1);
	enter(A);
	assert_int_equal(uv_loop_init(&loop), 0);
	be = open_backend(&loop, "vsa", "fe80::a", gso);
	make_batch(tx, buf, if_nametoindex("vsa"));
	r = net_socket_ops.tx(be, tx, N_TX, &err);
	if (r != (int)N_TX)
		fail_msg("tx: %d of %u left (%s)", r, N_TX, strerror(-err));
	li = net_socket_ops.link(be, 0);
	if (gso) {
		/* 40 + the shorter one, 3, 64 + 1 (alone: a plain datagram), 2: all but one in GSO. */
		assert_int_equal(li->tx_gso, N_TX - 1);
	} else {
		assert_int_equal(li->tx_gso, 0);
	}
	assert_false(li->gso_refused);
	expect_dgrams(fd0, tx, PORT, PORT);
	expect_dgrams(fd1, tx, PORT + 1, PORT);
	expect_nothing_more(fd0);
	expect_nothing_more(fd1);
	close_backend(&loop, be);
	assert_int_equal(uv_loop_close(&loop), 0);
	enter(-1);
	close(fd0);
	close(fd1);
}

static void test_veth_gso(void **state)
{
	(void)state;
	run_veth(true);
}

static void test_veth_plain(void **state)
{
	(void)state;
	run_veth(false);
}

/*
 * Frames longer than the link's MTU less the IPv6 and UDP headers cannot
 * be GSO segments (the kernel refuses them: EMSGSIZE): a run of three of
 * 1,460 bytes on a 1,500-byte veth leaves as plain datagrams (fragmented
 * by the kernel), and GSO stays on for the run of small frames after it.
 * Then the link's MTU drops to 1,280 under the open backend: a run of
 * 1,300-byte frames, which fitted the MTU it knew, still arrives whole.
 */
static void test_veth_long_frames(void **state)
{
	static uint8_t big[3][1460], small[5][8];
	struct net_tx tx[8];
	const struct net_link_info *li;
	struct net_backend *be;
	struct in6_addr b;
	uv_loop_t loop;
	int fd, err = 0, r;

	(void)state;
	enter(B);
	fd = plain_socket("fe80::b", "vsb", PORT);
	enter(A);
	assert_int_equal(uv_loop_init(&loop), 0);
	be = open_backend(&loop, "vsa", "fe80::a", true);
	assert_int_equal(inet_pton(AF_INET6, "fe80::b", &b), 1);
	for (unsigned i = 0; i < 8; i++) {
		tx[i].buf = i < 3 ? big[i] : small[i - 3];
		tx[i].len = i < 3 ? sizeof(big[0]) : sizeof(small[0]);
		memset((uint8_t *)tx[i].buf, (int)i, tx[i].len);
		tx[i].dst.ip = b;
		tx[i].dst.port = PORT;
		tx[i].dst.ifindex = if_nametoindex("vsa");
		tx[i].from_mcast = false;
		tx[i].link = 0;
	}
	r = net_socket_ops.tx(be, tx, 8, &err);
	if (r != 8)
		fail_msg("tx: %d of 8 left (%s)", r, strerror(-err));
	li = net_socket_ops.link(be, 0);
	assert_false(li->gso_refused);
	assert_int_equal(li->tx_gso, 5);
	for (unsigned i = 0; i < 8; i++) {
		uint8_t got[2048];
		ssize_t n = recv(fd, got, sizeof(got), 0);

		if (n != (ssize_t)tx[i].len || memcmp(got, tx[i].buf, tx[i].len) != 0)
			fail_msg("datagram %u: got %zd bytes starting %u, want %u", i, n, n > 0 ? got[0] : 0,
				 tx[i].len);
	}
	expect_nothing_more(fd);

	assert_int_equal(netns_run("ip -n %s link set dev vsa mtu 1280", netns.ns[A]), 0);
	for (unsigned i = 0; i < 3; i++)
		tx[i].len = 1300;
	r = net_socket_ops.tx(be, tx, 3, &err);
	assert_int_equal(netns_run("ip -n %s link set dev vsa mtu 1500", netns.ns[A]), 0);
	if (r != 3)
		fail_msg("tx after the MTU dropped: %d of 3 left (%s)", r, strerror(-err));
	assert_false(li->gso_refused);
	assert_int_equal(li->tx_gso, 5);
	for (unsigned i = 0; i < 3; i++) {
		uint8_t got[2048];
		ssize_t n = recv(fd, got, sizeof(got), 0);

		if (n != 1300 || memcmp(got, tx[i].buf, 1300) != 0)
			fail_msg("after the MTU dropped, datagram %u: got %zd bytes", i, n);
	}
	expect_nothing_more(fd);
	close_backend(&loop, be);
	assert_int_equal(uv_loop_close(&loop), 0);
	enter(-1);
	close(fd);
}

/* A TAP device in A (no offloads: the kernel cannot segment for it), its fd. */
static int make_tap(const char *name)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The next UDP datagram to PORT or PORT + 1 read from the TAP (Ethernet,
 * IPv6, UDP) within ms milliseconds: its payload length, or -1.
 */
static int tap_next_udp_within(int fd, uint16_t *dport, uint8_t *payload, size_t cap, int ms)
{
	for (int waited = 0; waited < ms;) {
		uint8_t f[2048];
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (poll(&p, 1, 10) == 0) {
			waited += 10;
			continue;
		}
		n = read(fd, f, sizeof(f));
		/* 14 Ethernet + 40 IPv6 (next header 17, UDP) + 8 UDP. */
		if (n < 62 || f[12] != 0x86 || f[13] != 0xdd || f[14 + 6] != 17)
			continue;
		*dport = (uint16_t)(f[56] << 8 | f[57]);
		if (*dport != PORT && *dport != PORT + 1)
			continue;
		if ((size_t)(n - 62) > cap)
			return -1;
		memcpy(payload, f + 62, (size_t)(n - 62));
		return (int)(n - 62);
	}
	return -1;
}

/*
 * The backend's unicast socket of this process (bound to port PORT): the
 * test reaches into it to make the kernel refuse UDP_SEGMENT there.
 */
static int backend_fd(void)
{
	for (int fd = 3; fd < 1024; fd++) {
		struct sockaddr_in6 sa;
		socklen_t len = sizeof(sa);

		if (getsockname(fd, (struct sockaddr *)&sa, &len) == 0 && sa.sin6_family == AF_INET6 &&
		    ntohs(sa.sin6_port) == PORT)
			return fd;
	}
	return -1;
}

/*
 * The batch over a TAP, read back frame by frame. refuse: the unicast
 * socket sends without checksums (UDP_NO_CHECK6_TX), with which the kernel
 * refuses to segment (EINVAL), as it does on a device without checksum
 * offload before Linux 6.11 (EIO); then every datagram must still leave.
 */
static void run_tap(bool refuse)
{
	static uint8_t buf[N_TX][16];
	struct net_tx tx[N_TX];
	const struct net_link_info *li;
	struct net_backend *be;
	uv_loop_t loop;
	int tap, err = 0, r;
	const char *e = getenv("SDDS_TAP_REFUSES_GSO");
	bool tap_refuses = e != NULL && strcmp(e, "1") == 0;

	enter(A);
	tap = make_tap("tpa");
	if (tap < 0)
		fail_msg("cannot make a TAP device (/dev/net/tun): %s", strerror(errno));
	assert_int_equal(
	    netns_run("ip -n %s link set tpa up && ip -n %s addr add fe80::a/64 dev tpa nodad && "
		      "ip -n %s neigh replace fe80::b lladdr 02:00:00:00:00:0b dev tpa nud permanent",
		      netns.ns[A], netns.ns[A], netns.ns[A]),
	    0);
	assert_int_equal(uv_loop_init(&loop), 0);
	be = open_backend(&loop, "tpa", "fe80::a", true);
	if (refuse) {
		int one = 1, fd = backend_fd();

		assert_true(fd >= 0);
		assert_int_equal(setsockopt(fd, SOL_UDP, UDP_NO_CHECK6_TX, &one, sizeof(one)), 0);
	}
	make_batch(tx, buf, if_nametoindex("tpa"));
	r = net_socket_ops.tx(be, tx, N_TX, &err);
	if (r != (int)N_TX)
		fail_msg("tx on a TAP: %d of %u left (%s)", r, N_TX, strerror(-err));
	li = net_socket_ops.link(be, 0);
	fprintf(stderr, "TAP%s: %llu datagrams in GSO messages, GSO %s\n", refuse ? " (no checksums)" : "",
		(unsigned long long)li->tx_gso, li->gso_refused ? "refused" : "taken");
	if (tap_refuses) {
		/* The kernel refuses both sockets on this device: nothing left in GSO messages. */
		assert_true(li->gso_refused);
		assert_int_equal(li->tx_gso, 0);
	} else if (refuse) {
		/* The multicast socket's two still segment: only the unicast one was refused. */
		assert_true(li->gso_refused);
		assert_int_equal(li->tx_gso, 2);
	} else {
		assert_false(li->gso_refused);
		assert_int_equal(li->tx_gso, N_TX - 1);
	}
	/* Every datagram once, one frame each; each port's in the order handed in. */
	for (unsigned i = 0, next[2] = {0, 0}; i < N_TX; i++) {
		uint8_t got[256];
		uint16_t port = PORT;
		int n = tap_next_udp_within(tap, &port, got, sizeof(got), 2000);
		unsigned *k;

		if (n < 0)
			fail_msg("TAP: %u of %u datagrams read", i, N_TX);
		k = &next[port - PORT];
		while (*k < N_TX && tx[*k].dst.port != port)
			(*k)++;
		if (*k == N_TX || n != (int)tx[*k].len || memcmp(got, tx[*k].buf, tx[*k].len) != 0)
			fail_msg("TAP, port %u: got %d bytes starting %u, want datagram %u", port, n, got[0],
				 *k);
		(*k)++;
	}
	{
		uint8_t got[256];
		uint16_t port;

		if (tap_next_udp_within(tap, &port, got, sizeof(got), 150) >= 0)
			fail_msg("TAP: a datagram more than was sent, to port %u", port);
	}
	close_backend(&loop, be);
	assert_int_equal(uv_loop_close(&loop), 0);
	close(tap);
	enter(-1);
}

static void test_tap_wire(void **state)
{
	(void)state;
	run_tap(false);
}

static void test_tap_gso_refused(void **state)
{
	(void)state;
	run_tap(true);
}

static int group_setup(void **state)
{
	(void)state;
	self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self_ns < 0)
		return -1;
	return netns_pair_setup("so", "vsa", "vsb");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_veth_gso),	     cmocka_unit_test(test_veth_plain),
	    cmocka_unit_test(test_veth_long_frames), cmocka_unit_test(test_tap_wire),
	    cmocka_unit_test(test_tap_gso_refused),
	};
	int rc = netns_available("test_socket");

	if (rc != 0)
		return rc;
	return cmocka_run_group_tests(tests, group_setup, netns_group_teardown);
}
