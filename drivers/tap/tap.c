/* SPDX-License-Identifier: MIT */
/*
 * tap.c - the netdev on /dev/net/tun (tap.h): read() and write() of whole
 * Ethernet frames on a non-blocking TAP fd, a software MAC filter, software
 * timestamps.
 *
 * OVERVIEW
 * Open: /dev/net/tun, TUNSETIFF with IFF_TAP | IFF_NO_PI | IFF_VNET_HDR
 * creates the interface or attaches to an existing one of that name. Each
 * frame on the fd comes after a 10-byte virtio-net header (struct
 * virtio_net_hdr, TUNSETVNETHDRSZ). TUNSETOFFLOAD offers the kernel
 * partial checksums and UDP segmentation runs (TUN_F_CSUM | TUN_F_USO6;
 * kernels before 6.2 refuse USO, then checksums alone, then nothing), so
 * it hands us a datagram whose checksum it has not finished, or a whole
 * run of datagrams of up to 64 KiB in one read, instead of doing that work
 * per datagram itself; rx undoes both (below). The header is there for tx too: a
 * frame with gso_size (netdev.h) is written with NEEDS_CSUM and
 * GSO_UDP_L4 in it, and the kernel cuts the run into datagrams (UDP
 * segmentation offload from a TAP, Linux 6.2 and later): one write()
 * for a run of up to TAP_GSO_SEGS datagrams instead of one each. A kernel
 * that refuses such a write (EINVAL) loses that frame, counted as a tx
 * error, and the driver stops offering NETDEV_CAP_TX_USO. The kernel-side interface keeps its own MAC;
 * the stack gets another (see tap.h). A datagram socket (ctl) made at open,
 * in the network namespace the TAP is in, serves the interface ioctls
 * (flags, MTU, hardware address) of open and link_up.
 *
 * Receive: one read() is one frame or one run (a TAP never splits or
 * joins what the kernel sent), into a scratch buffer of the driver (64 KiB
 * and a byte, allocated at open). vnet.c turns it into frames the wire
 * could carry, each copied into its own pool buffer: a plain frame as it
 * is, its checksum finished when the header says NEEDS_CSUM; a run as k
 * datagrams with the headers, their own lengths and checksums (counted by
 * tap_rx_offloads). The stack above only ever sees whole, checksummed,
 * one-datagram frames (netdev.h unchanged). A run longer than the n frames
 * the call may return, or than the free buffers, stays pending in the
 * driver (the scratch buffer and an offset) and its rest goes out first on
 * the next call, before anything is read: it is not in the fd any more,
 * which netdev.rx_pending tells a caller that would wait for the fd after
 * a short count (the pool ran out). A batch is a run of reads
 * until n frames are kept or read() says EAGAIN. A plain frame must fit a
 * pool buffer with a byte to spare (MTU + 14 + a VLAN tag + 1): a larger
 * one came after the MTU was raised since open, and is counted rx_errors
 * and dropped, as are frames shorter than an Ethernet header and headers
 * vnet.c finds malformed (a GSO type other than UDP, not IPv6, checksum
 * offsets out of the frame, gso_size 0). Frames for neither our MAC, broadcast nor a multicast MAC
 * of the table (mcast_add) are counted rx_filtered; the reads of one call
 * are capped (4n + 16) so a flood of foreign frames cannot keep the caller
 * here.
 *
 * No buffer: a TAP cannot say whether a frame is waiting without reading
 * it, and a frame read without a buffer would be lost, so rx_batch stops
 * before reading and leaves the frames in the kernel's queue (txqueuelen
 * frames, then the kernel drops and counts them as the interface's TX
 * drops). rx_nobuf therefore stays 0 on a TAP; the caller sees the short
 * count, and the fd stays readable until it frees buffers and reads again.
 *
 * Transmit: one writev() (header and frame) per frame; a TAP write is synchronous (the kernel
 * has the frame when write returns), so each buffer goes back to the pool
 * at once and a NETDEV_BUF_TS_REQ frame is stamped with CLOCK_MONOTONIC
 * right after its write, in a ring of TAP_STAMPS that tx_stamps empties
 * (the oldest stamp is overwritten when the owner does not read them).
 * EAGAIN stops the batch; any other error is counted tx_errors and the
 * frame freed (taken).
 *
 * Link: link_up reads IFF_UP and IFF_RUNNING. A TAP has carrier while an fd
 * is attached, but IFF_RUNNING is the kernel's operational state, which
 * its linkwatch updates up to a second after the carrier or IFF_UP
 * changes: an interface just brought up may read down for a while, and
 * the kernel's IPv6 does not run on it until it reads up.
 *
 * Ownership and threads as netdev.h: one owner, every call non-blocking,
 * nothing allocated after open (the scratch buffer is the driver's own). Errors 0 or -errno, no logging.
 */
#include "tap.h"
#include "vnet.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <sys/uio.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>

/* Multicast MACs the filter lets in (the stack's groups: a few per address). */
#define TAP_MCAST_MAX 64u
/* Departure stamps kept for tx_stamps; a power of two (free-running indices). */
#define TAP_STAMPS 64u
/* Room past MTU + Ethernet header: one 802.1Q tag, and one byte to tell a full read from an oversized one. */
#define TAP_RX_SLACK (4u + 1u)

struct tap_mcast {
	uint8_t mac[NETDEV_ETH_ALEN];
	uint32_t refs; /* 0: free slot */
};

#ifndef TUN_F_USO4
/* UDP segmentation toward us (Linux 6.2); bookworm's kernel headers (6.1) lack the names. */
#define TUN_F_USO4 0x20
#define TUN_F_USO6 0x40
#endif

/* Datagrams one segmentation run carries at most: the kernel's UDP_MAX_SEGMENTS before 6.9. */
#define TAP_GSO_SEGS 64u
/* The read buffer: the largest run, and a byte to tell a full read from an oversized one. */
#define TAP_SCRATCH (VNET_FRAME_MAX + 1u)

struct tap {
	struct netdev base;
	struct netdev_pool pool;
	int ctl; /* socket for the interface ioctls */
	struct tap_mcast mcast[TAP_MCAST_MAX];
	struct netdev_tx_stamp stamps[TAP_STAMPS];
	uint32_t stamp_head, stamp_tail; /* free-running: head - tail stamps are kept */
	uint8_t *scratch;		 /* TAP_SCRATCH bytes: every read lands here */
	struct vnet_run run;		 /* the frame read last; run.left > 0: frames still to emit */
	int64_t run_ts;			 /* when it was read */
	uint64_t runs_cut;		 /* GSO runs read (tap_rx_offloads) */
	uint64_t csums_done;		 /* plain frames whose checksum rx finished (tap_rx_offloads) */
};

static struct tap *tap_of(struct netdev *d)
{
	return netdev_of(d, struct tap, base);
}

static int64_t tap_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

__attribute__((format(printf, 3, 4))) static void tap_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

static void tap_ifreq(struct ifreq *ifr, const char *name)
{
	memset(ifr, 0, sizeof(*ifr));
	/* Names are at most IFNAMSIZ - 1 bytes (tap_open checks); memset left the terminator. */
	memcpy(ifr->ifr_name, name, strnlen(name, IFNAMSIZ - 1));
}

/* Interface flags (IFF_*) of name, or -errno. */
static int tap_if_flags(int ctl, const char *name)
{
	struct ifreq ifr;

	tap_ifreq(&ifr, name);
	if (ioctl(ctl, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	return (unsigned short)ifr.ifr_flags;
}

/* A frame to dst is ours: our unicast MAC, broadcast, or a multicast MAC of the table. */
static bool tap_wanted(const struct tap *t, const uint8_t *dst)
{
	static const uint8_t bcast[NETDEV_ETH_ALEN] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

	if ((dst[0] & 1) == 0)
		return memcmp(dst, t->base.mac, NETDEV_ETH_ALEN) == 0;
	if (memcmp(dst, bcast, NETDEV_ETH_ALEN) == 0)
		return true;
	for (unsigned i = 0; i < TAP_MCAST_MAX; i++)
		if (t->mcast[i].refs > 0 && memcmp(t->mcast[i].mac, dst, NETDEV_ETH_ALEN) == 0)
			return true;
	return false;
}

/*
 * Emits the pending run's frames into pool buffers, b[*got..n); stops when n are kept or the pool is empty
 * (the rest stays pending for the next call).
 */
static void tap_rx_emit(struct tap *t, struct netdev_buf **b, unsigned n, unsigned *got)
{
	struct netdev *d = &t->base;

	while (*got < n && t->run.left > 0) {
		struct netdev_buf *buf = netdev_buf_alloc(&t->pool);
		size_t len;

		if (buf == NULL)
			return;
		len = vnet_next(&t->run, buf->data, buf->cap);
		if (len == 0) {
			/* Cannot happen: vnet_prepare sized every frame for the pool's buffers. */
			netdev_buf_free(&t->pool, buf);
			d->stats.rx_errors++;
			t->run.left = 0;
			return;
		}
		buf->len = (uint32_t)len;
		buf->ts_ns = t->run_ts;
		d->stats.rx_frames++;
		d->stats.rx_bytes += len;
		b[(*got)++] = buf;
	}
}

static int tap_rx_batch(struct netdev *d, struct netdev_buf **b, unsigned n)
{
	struct tap *t = tap_of(d);
	unsigned got = 0, reads = 0, budget = 4 * n + 16;
	int err = 0;

	/* What a run left over last time goes first: it arrived before anything still in the kernel. */
	tap_rx_emit(t, b, n, &got);
	while (got < n && reads < budget && t->run.left == 0) {
		struct virtio_net_hdr vh;
		struct iovec iov[2] = {{&vh, sizeof(vh)}, {t->scratch, TAP_SCRATCH}};
		ssize_t r;
		int k;

		/* No buffer: stop before reading, the frames wait in the kernel's queue (OVERVIEW). */
		if (t->pool.free_head == NULL)
			break;
		r = readv(d->fd, iov, 2);
		reads++;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				err = -errno;
			break;
		}
		r = r >= (ssize_t)sizeof(vh) ? r - (ssize_t)sizeof(vh) : 0;
		if ((size_t)r >= TAP_SCRATCH || (size_t)r < NETDEV_ETH_HLEN) {
			d->stats.rx_errors++;
			continue;
		}
		if (!tap_wanted(t, t->scratch)) {
			d->stats.rx_filtered++;
			continue;
		}
		/* A plain frame must fit a buffer with a byte to spare, as a read into one would (OVERVIEW).
		 */
		k = vnet_prepare(&t->run, &vh, t->scratch, (size_t)r, t->pool.size - 1);
		if (k < 0) {
			d->stats.rx_errors++;
			continue;
		}
		if (t->run.seg != 0)
			t->runs_cut++;
		else if (vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
			t->csums_done++;
		t->run_ts = tap_now();
		tap_rx_emit(t, b, n, &got);
	}
	d->rx_pending = t->run.left > 0;
	return got > 0 ? (int)got : err;
}

static void tap_stamp(struct tap *t, uint64_t cookie)
{
	/* Full: the oldest stamp goes, the owner has stopped reading them. */
	if (t->stamp_head - t->stamp_tail == TAP_STAMPS)
		t->stamp_tail++;
	t->stamps[t->stamp_head % TAP_STAMPS] =
	    (struct netdev_tx_stamp){.cookie = cookie, .ts_ns = tap_now()};
	t->stamp_head++;
}

static int tap_tx_batch(struct netdev *d, struct netdev_buf **b, unsigned n)
{
	struct tap *t = tap_of(d);
	unsigned i;

	for (i = 0; i < n; i++) {
		struct netdev_buf *f = b[i];
		ssize_t w = -1;

		struct virtio_net_hdr vh = {0};
		struct iovec iov[2] = {{&vh, sizeof(vh)}, {f->data, f->len}};

		if (f->gso_size != 0) {
			/* A run (netdev.h): the kernel cuts the UDP payload every gso_size bytes and finishes
			 * each datagram's checksum from the pseudo-header sum in the UDP header. */
			vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
			vh.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4;
			vh.gso_size = f->gso_size;
			vh.hdr_len = VNET_L4_OFF + 8;
			vh.csum_start = VNET_L4_OFF;
			vh.csum_offset = 6;
		}
		if (f->len >= NETDEV_ETH_HLEN && f->len <= f->cap) {
			do
				w = writev(d->fd, iov, 2);
			while (w < 0 && errno == EINTR);
			if (w < 0 && errno == EAGAIN)
				break; /* b[i..n) stay the caller's */
			if (w < 0 && errno == EINVAL && f->gso_size != 0)
				d->caps &= ~NETDEV_CAP_TX_USO; /* this kernel takes no runs from a TAP */
		}
		if (w == (ssize_t)(sizeof(vh) + f->len)) {
			d->stats.tx_frames++;
			d->stats.tx_bytes += f->len;
			if (f->flags & NETDEV_BUF_TS_REQ)
				tap_stamp(t, f->cookie);
		} else {
			d->stats.tx_errors++;
		}
		/* The kernel copied the frame in write(): the buffer is free now. */
		netdev_buf_free(&t->pool, f);
	}
	return (int)i;
}

static int tap_mcast_add(struct netdev *d, const uint8_t mac[NETDEV_ETH_ALEN])
{
	struct tap *t = tap_of(d);
	struct tap_mcast *slot = NULL;

	if ((mac[0] & 1) == 0)
		return -EINVAL;
	for (unsigned i = 0; i < TAP_MCAST_MAX; i++) {
		struct tap_mcast *m = &t->mcast[i];

		if (m->refs > 0 && memcmp(m->mac, mac, NETDEV_ETH_ALEN) == 0) {
			m->refs++;
			return 0;
		}
		if (m->refs == 0 && slot == NULL)
			slot = m;
	}
	if (slot == NULL)
		return -ENOSPC;
	memcpy(slot->mac, mac, NETDEV_ETH_ALEN);
	slot->refs = 1;
	return 0;
}

static int tap_mcast_del(struct netdev *d, const uint8_t mac[NETDEV_ETH_ALEN])
{
	struct tap *t = tap_of(d);

	for (unsigned i = 0; i < TAP_MCAST_MAX; i++) {
		struct tap_mcast *m = &t->mcast[i];

		if (m->refs > 0 && memcmp(m->mac, mac, NETDEV_ETH_ALEN) == 0) {
			m->refs--;
			return 0;
		}
	}
	return -ENOENT;
}

/* The kernel side is up (IFF_UP) and has carrier (IFF_RUNNING: a TAP has it while an fd is attached). */
static bool tap_link_up(struct netdev *d)
{
	int fl = tap_if_flags(tap_of(d)->ctl, d->name);

	return fl >= 0 && (fl & IFF_UP) && (fl & IFF_RUNNING);
}

static int64_t tap_clock_ns(struct netdev *d)
{
	return tap_now();
}

static int tap_tx_stamps(struct netdev *d, struct netdev_tx_stamp *out, unsigned n)
{
	struct tap *t = tap_of(d);
	unsigned k = 0;

	while (k < n && t->stamp_tail != t->stamp_head) {
		out[k++] = t->stamps[t->stamp_tail % TAP_STAMPS];
		t->stamp_tail++;
	}
	return (int)k;
}

static void tap_close(struct netdev *d)
{
	struct tap *t;

	if (d == NULL)
		return;
	t = tap_of(d);
	/* Buffers still out are the caller's bug (netdev.h); the pool's memory goes anyway. */
	netdev_pool_fini(&t->pool);
	close(d->fd);
	close(t->ctl);
	free(t->scratch);
	free(t);
}

static const struct netdev_ops tap_ops = {
    .name = "tap",
    .rx_batch = tap_rx_batch,
    .tx_batch = tap_tx_batch,
    .mcast_add = tap_mcast_add,
    .mcast_del = tap_mcast_del,
    .link_up = tap_link_up,
    .clock_ns = tap_clock_ns,
    .tx_stamps = tap_tx_stamps,
    .close = tap_close,
};

void tap_rx_offloads(struct netdev *d, uint64_t *runs, uint64_t *csums)
{
	bool tap = d->ops == &tap_ops;

	*runs = tap ? tap_of(d)->runs_cut : 0;
	*csums = tap ? tap_of(d)->csums_done : 0;
}

void tap_config_init(struct tap_config *cfg)
{
	*cfg = (struct tap_config){.pool_size = TAP_POOL_DEFAULT, .bring_up = true};
}

/* A socket for interface ioctls; any family reaches them, IPv4 may be compiled out. */
static int tap_ctl_socket(void)
{
	static const int families[] = {AF_INET, AF_INET6, AF_UNIX};
	int err = -EAFNOSUPPORT;

	for (unsigned i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		int s = socket(families[i], SOCK_DGRAM | SOCK_CLOEXEC, 0);

		if (s >= 0)
			return s;
		err = -errno;
	}
	return err;
}

/* TUNSETIFF said EINVAL: the name is taken by something that is not a TAP we can attach to. Says what. */
static void tap_explain_einval(int ctl, const char *name, char *why, size_t len)
{
	struct ethtool_drvinfo info = {.cmd = ETHTOOL_GDRVINFO};
	struct ifreq ifr;

	tap_ifreq(&ifr, name);
	if (ioctl(ctl, SIOCGIFINDEX, &ifr) < 0) {
		tap_why(why, len, "cannot create TAP %s: invalid name or flags (TUNSETIFF: EINVAL)", name);
		return;
	}
	ifr.ifr_data = (void *)&info;
	if (ioctl(ctl, SIOCETHTOOL, &ifr) < 0 || strcmp(info.driver, "tun") != 0) {
		tap_why(why, len, "%s exists and is not a TUN/TAP device (driver %s); choose another name",
			name, info.driver[0] != '\0' ? info.driver : "unknown");
		return;
	}
	tap_ifreq(&ifr, name);
	if (ioctl(ctl, SIOCGIFHWADDR, &ifr) == 0 && ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
		tap_why(why, len,
			"%s exists and is a TUN device (IP packets, no Ethernet), not a TAP; delete it "
			"(`ip tuntap del dev %s mode tun`) or choose another name",
			name, name);
		return;
	}
	tap_why(why, len,
		"%s is a TAP with other flags (multi-queue?) than ours (IFF_TAP|IFF_NO_PI|IFF_VNET_HDR); "
		"cannot attach",
		name);
}

/* Says why TUNSETIFF failed with err (negative) in words. */
static void tap_explain(int ctl, const char *name, int err, char *why, size_t len)
{
	struct ifreq ifr;
	bool exists;

	tap_ifreq(&ifr, name);
	exists = name[0] != '\0' && ioctl(ctl, SIOCGIFINDEX, &ifr) == 0;
	switch (err) {
	case -EBUSY:
		tap_why(why, len, "%s is busy: another process has the TAP open (it takes one reader)", name);
		break;
	case -EPERM:
	case -EACCES:
		if (exists)
			tap_why(why, len,
				"not allowed to attach to TAP %s: it belongs to another user or group "
				"(needs CAP_NET_ADMIN, or `ip tuntap add dev %s mode tap user USER`)",
				name, name);
		else
			tap_why(
			    why, len,
			    "cannot create TAP %s: %s (needs CAP_NET_ADMIN; or have root create it once with "
			    "`ip tuntap add dev %s mode tap user USER`)",
			    name[0] != '\0' ? name : "tapN", strerror(-err), name[0] != '\0' ? name : "NAME");
		break;
	case -EINVAL:
		tap_explain_einval(ctl, name, why, len);
		break;
	default:
		tap_why(why, len, "cannot create or attach TAP %s: TUNSETIFF: %s", name, strerror(-err));
		break;
	}
}

/*
 * Offloads toward us: partial checksums and UDP runs where the kernel has them (6.2: USO4 and USO6 only
 * together; the IPv4 runs are dropped by rx as malformed, the stack above is IPv6 only), else partial
 * checksums alone (older kernels refuse the USO bits with EINVAL), else none. 0 or -errno.
 */
static int tap_offload(int fd)
{
	static const unsigned long tries[] = {TUN_F_CSUM | TUN_F_USO6, TUN_F_CSUM | TUN_F_USO4 | TUN_F_USO6,
					      TUN_F_CSUM, 0};
	int err = -EINVAL;

	for (unsigned i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (ioctl(fd, TUNSETOFFLOAD, tries[i]) == 0)
			return 0;
		err = -errno;
		if (err != -EINVAL)
			break;
	}
	return err;
}

/* Opens /dev/net/tun and makes it the TAP name; the fd or -errno (why set). Writes the kernel's name to out.
 */
static int tap_attach(int ctl, const char *name, char out[IFNAMSIZ], char *why, size_t len)
{
	struct ifreq ifr;
	int fd, err, hdr_size;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT || err == -ENODEV || err == -ENXIO)
			tap_why(why, len, "no /dev/net/tun: %s (the kernel needs TUN/TAP: `modprobe tun`)",
				strerror(-err));
		else
			tap_why(why, len,
				"cannot open /dev/net/tun: %s (needs root or access to the device node)",
				strerror(-err));
		return err;
	}
	tap_ifreq(&ifr, name);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		err = -errno;
		tap_explain(ctl, name, err, why, len);
		close(fd);
		return err;
	}
	/* The 10-byte header (not virtio 1.0's 12), and the offloads toward us rx undoes (OVERVIEW). */
	hdr_size = (int)sizeof(struct virtio_net_hdr);
	if (ioctl(fd, TUNSETVNETHDRSZ, &hdr_size) < 0 || tap_offload(fd) < 0) {
		err = -errno;
		tap_why(why, len, "TAP %s: cannot set its virtio-net header: %s", name, strerror(-err));
		close(fd);
		return err;
	}
	memcpy(out, ifr.ifr_name, IFNAMSIZ);
	out[IFNAMSIZ - 1] = '\0';
	return fd;
}

/* The stack's MAC: cfg's, or random, unicast, locally administered (IEEE 802 U/L bit) and not the kernel's.
 */
static int tap_pick_mac(const struct tap_config *cfg, const uint8_t kmac[NETDEV_ETH_ALEN], const char *name,
			uint8_t mac[NETDEV_ETH_ALEN], char *why, size_t len)
{
	static const uint8_t zero[NETDEV_ETH_ALEN];

	if (cfg->mac_set) {
		if ((cfg->mac[0] & 1) != 0 || memcmp(cfg->mac, zero, NETDEV_ETH_ALEN) == 0) {
			tap_why(why, len, "the MAC for %s must be a unicast address, not zero or multicast",
				name);
			return -EINVAL;
		}
		if (memcmp(cfg->mac, kmac, NETDEV_ETH_ALEN) == 0) {
			tap_why(
			    why, len,
			    "the MAC given is %s's own, the kernel's address on that link; the stack needs "
			    "another one",
			    name);
			return -EINVAL;
		}
		memcpy(mac, cfg->mac, NETDEV_ETH_ALEN);
		return 0;
	}
	do {
		if (getrandom(mac, NETDEV_ETH_ALEN, 0) != (ssize_t)NETDEV_ETH_ALEN) {
			int err = errno != 0 ? -errno : -EIO;

			tap_why(why, len, "cannot draw a random MAC: %s", strerror(-err));
			return err;
		}
		mac[0] = (uint8_t)((mac[0] & ~1u) | 2u);
	} while (memcmp(mac, kmac, NETDEV_ETH_ALEN) == 0);
	return 0;
}

/*
 * Brings name up when cfg says so. 0 (up, or left down when cfg allows:
 * why says so) or -errno with why.
 */
static int tap_up(int ctl, const struct tap_config *cfg, const char *name, char *why, size_t len)
{
	struct ifreq ifr;
	int fl = tap_if_flags(ctl, name), err;

	if (fl < 0) {
		tap_why(why, len, "cannot read the flags of %s: %s", name, strerror(-fl));
		return fl;
	}
	if (fl & IFF_UP)
		return 0;
	if (!cfg->bring_up) {
		if (!cfg->need_up)
			return 0;
		tap_why(why, len, "%s is down; bring it up with `ip link set %s up`", name, name);
		return -ENETDOWN;
	}
	tap_ifreq(&ifr, name);
	ifr.ifr_flags = (short)(fl | IFF_UP);
	if (ioctl(ctl, SIOCSIFFLAGS, &ifr) == 0)
		return 0;
	err = -errno;
	if (err == -EPERM || err == -EACCES)
		tap_why(why, len,
			"cannot bring %s up: %s (needs CAP_NET_ADMIN); bring it up with `ip link set %s up`",
			name, strerror(-err), name);
	else
		tap_why(why, len, "cannot bring %s up: %s; bring it up with `ip link set %s up`", name,
			strerror(-err), name);
	/* Left down: an error only when cfg demands the link up. */
	return cfg->need_up ? err : 0;
}

int tap_open(const struct tap_config *cfg, struct netdev **ret, char *why, size_t why_len)
{
	char name[IFNAMSIZ];
	uint8_t kmac[NETDEV_ETH_ALEN] = {0};
	struct ifreq ifr;
	uint32_t mtu = 1500, size;
	struct tap *t;
	int fd, err;

	tap_why(why, why_len, "%s", "");
	if (memchr(cfg->name, '\0', sizeof(cfg->name)) == NULL || strlen(cfg->name) >= IFNAMSIZ) {
		tap_why(why, why_len, "TAP name too long (at most %d characters)", IFNAMSIZ - 1);
		return -EINVAL;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL) {
		tap_why(why, why_len, "out of memory");
		return -ENOMEM;
	}
	err = tap_ctl_socket();
	if (err < 0) {
		tap_why(why, why_len, "no socket for interface ioctls: %s", strerror(-err));
		goto fail_free;
	}
	t->ctl = err;
	t->scratch = malloc(TAP_SCRATCH);
	if (t->scratch == NULL) {
		err = -ENOMEM;
		tap_why(why, why_len, "out of memory");
		goto fail_close_ctl;
	}
	fd = tap_attach(t->ctl, cfg->name, name, why, why_len);
	if (fd < 0) {
		err = fd;
		goto fail_close_ctl;
	}
	tap_ifreq(&ifr, name);
	if (ioctl(t->ctl, SIOCGIFHWADDR, &ifr) == 0)
		memcpy(kmac, ifr.ifr_hwaddr.sa_data, NETDEV_ETH_ALEN);
	err = tap_pick_mac(cfg, kmac, name, t->base.mac, why, why_len);
	if (err < 0)
		goto fail_close_fd;
	/* The IP MTU of the kernel side; an interface that will not say gets Ethernet's. */
	tap_ifreq(&ifr, name);
	if (ioctl(t->ctl, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0)
		mtu = (uint32_t)ifr.ifr_mtu;
	size = mtu + NETDEV_ETH_HLEN + TAP_RX_SLACK;
	size = size < NETDEV_BUF_SIZE ? NETDEV_BUF_SIZE : (size + 63u) & ~63u;
	err = netdev_pool_init(&t->pool, cfg->pool_size != 0 ? cfg->pool_size : TAP_POOL_DEFAULT, size);
	if (err < 0) {
		tap_why(why, why_len, "no memory for the pool of %s", name);
		goto fail_close_fd;
	}
	err = tap_up(t->ctl, cfg, name, why, why_len);
	if (err < 0)
		goto fail_pool;
	t->base.ops = &tap_ops;
	t->base.pool = &t->pool;
	snprintf(t->base.name, sizeof(t->base.name), "%s", name);
	t->base.mtu = mtu;
	t->base.caps = NETDEV_CAP_TX_USO;
	t->base.gso_max_segs = TAP_GSO_SEGS;
	t->base.fd = fd;
	*ret = &t->base;
	return 0;

fail_pool:
	netdev_pool_fini(&t->pool);
fail_close_fd:
	close(fd);
fail_close_ctl:
	close(t->ctl);
fail_free:
	free(t->scratch);
	free(t);
	return err;
}
