/* SPDX-License-Identifier: MIT */
/*
 * socket.c - the `socket` backend: SNPS over the kernel's UDPv6 sockets.
 *
 * OVERVIEW
 * Two sockets per configured link, so the ingress link of every datagram
 * is the socket it came in on and no control message is needed:
 *   - unicast: bound to [link-local address % link]:port (snps-wire.md §9.2;
 *     the address is the node config's ip when the link has it, else the
 *     link's first link-local address), no SO_REUSEADDR, as real nodes;
 *   - multicast: bound to [::]:port+20 with SO_REUSEADDR and
 *     SO_BINDTODEVICE (only this link's traffic), IPV6_MULTICAST_IF the
 *     link, hop limit 1 (§1), loopback off (our own frames never come back);
 *     what it sends carries the unicast socket's address as its source
 *     (IPV6_PKTINFO), so a node has one address on the wire.
 * Every socket is non-blocking and watched through the loop's netloop.h
 * (a uv_poll_t in sddsd; this file has no libuv); a readable
 * socket calls the network layer's callback, which drains the sockets
 * epoll reported (ready[]) with rx (recvmmsg per socket, MSG_TRUNC so the
 * true size of an oversized datagram is known and it can be counted, not
 * silently truncated as real nodes do). tx groups consecutive datagrams of one socket into one
 * sendmmsg. poll_rx (a polling loop's turn) reads the unicast sockets only.
 *
 * Ownership: the backend owns its sockets and handles and frees itself
 * when the last handle closed (close's done callback). Buffers are the
 * caller's (backend.h).
 */
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <netinet/udp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "socket.h"

#define SOCK_BATCH 32u
/* Datagrams one GSO message carries at most: the kernel's UDP_MAX_SEGMENTS (64 before 6.9). */
#define SOCK_GSO_SEGS 64u
/* Bytes of one GSO message at most: an IPv6 payload length, less the UDP header. */
#define SOCK_GSO_BYTES (65535u - 8u)
/* IPv6 and UDP headers: a segment and these must fit the link's MTU. */
#define SOCK_UDP6_HEADERS (40u + 8u)
/* Datagrams one sendmmsg carries at most (its iovecs). */
#define SOCK_TX_DGRAMS 128u

struct sock_link {
	struct net_link_info info;
	uint32_t ovfl[2]; /* SO_RXQ_OVFL: the kernel's cumulative drop count per socket */
	int fd[2];	  /* [0] unicast, [1] multicast */
	bool ready[2];	  /* epoll said readable and a read has not come back short since */
	bool gso_off[2];  /* no UDP_SEGMENT for this socket: configured off, or the kernel refused */
	uint32_t gso_max; /* longest datagram a GSO message may carry: the link's MTU less headers */
	struct net_watch *watch[2];
};

/* The backend's state; base is what the network layer holds (backend.h). */
struct sock_backend {
	struct net_backend base;
	struct net_loop *loop;
	net_readable_fn readable;
	void *ctx;
	uint16_t port;
	struct sock_link links[NET_MAX_LINKS];
	uint32_t n_links;
	uint32_t rx_next; /* socket to read first: fairness between links */
	unsigned open_handles;
	bool closing;
	void (*done)(void *ctx);
	void *done_ctx;
};

static struct sock_backend *sock_of(struct net_backend *nb)
{
	return net_backend_of(nb, struct sock_backend, base);
}

static const struct sock_backend *sock_of_const(const struct net_backend *nb)
{
	return net_backend_of(nb, const struct sock_backend, base);
}

static void sock_on_readable(void *ctx, int fd)
{
	struct sock_backend *b = ctx;

	for (uint32_t i = 0; i < b->n_links; i++) {
		for (unsigned k = 0; k < 2; k++) {
			if (fd == b->links[i].fd[k])
				b->links[i].ready[k] = true;
		}
	}
	if (!b->closing)
		b->readable(&b->base, b->ctx);
}

/* The link-local address of ifindex: prefer if it has it, else its first. */
static int sock_find_ll(uint32_t ifindex, const struct in6_addr *prefer, struct in6_addr *ret)
{
	struct ifaddrs *ifa, *i;
	struct in6_addr first;
	bool have = false;

	if (getifaddrs(&ifa) < 0)
		return -errno;
	for (i = ifa; i != NULL; i = i->ifa_next) {
		const struct sockaddr_in6 *sa = (const void *)i->ifa_addr;

		if (sa == NULL || sa->sin6_family != AF_INET6 || if_nametoindex(i->ifa_name) != ifindex)
			continue;
		if (prefer != NULL && memcmp(&sa->sin6_addr, prefer, 16) == 0) {
			*ret = sa->sin6_addr;
			freeifaddrs(ifa);
			return 0;
		}
		if (!have && IN6_IS_ADDR_LINKLOCAL(&sa->sin6_addr)) {
			first = sa->sin6_addr;
			have = true;
		}
	}
	freeifaddrs(ifa);
	if (!have)
		return -EADDRNOTAVAIL;
	*ret = first;
	return 0;
}

static int sock_setopt(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v)) < 0 ? -errno : 0;
}

/*
 * A queue size: FORCE (root, CAP_NET_ADMIN) may pass net.core.rmem_max /
 * wmem_max; without it the plain option is capped there, silently.
 */
static int sock_setbuf(int fd, int force, int plain, uint32_t bytes)
{
	if (bytes == 0)
		return 0;
	if (sock_setopt(fd, SOL_SOCKET, force, (int)bytes) == 0)
		return 0;
	return sock_setopt(fd, SOL_SOCKET, plain, (int)bytes);
}

static int sock_open_fd(const struct sock_link *l, bool mcast, uint16_t port,
			const struct net_backend_config *cfg, int *ret_fd)
{
	struct sockaddr_in6 sa = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	int fd, rc = 0;

	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = sock_setopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
	if (rc == 0)
		rc = sock_setbuf(fd, SO_RCVBUFFORCE, SO_RCVBUF, cfg->rcvbuf);
	if (rc == 0)
		rc = sock_setbuf(fd, SO_SNDBUFFORCE, SO_SNDBUF, cfg->sndbuf);
	/* Queue overflows are counted by the kernel; we report them per link. */
	if (rc == 0)
		rc = sock_setopt(fd, SOL_SOCKET, SO_RXQ_OVFL, 1);
	if (rc == 0 && mcast) {
		rc = sock_setopt(fd, SOL_SOCKET, SO_REUSEADDR, 1);
		if (rc == 0 && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, l->info.name,
					  (socklen_t)strlen(l->info.name)) < 0)
			rc = -errno;
		if (rc == 0)
			rc = sock_setopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, (int)l->info.ifindex);
		if (rc == 0)
			rc = sock_setopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, 1);
		if (rc == 0)
			rc = sock_setopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, 0);
		sa.sin6_addr = in6addr_any;
	} else {
		sa.sin6_addr = l->info.addr;
		sa.sin6_scope_id = l->info.ifindex;
	}
	if (rc == 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		rc = -errno;
	if (rc < 0) {
		close(fd);
		return rc;
	}
	*ret_fd = fd;
	return 0;
}

/*
 * Whether the kernel segments UDP for us (Linux 4.18 and later; an older
 * one would ignore the control message and send a run as one datagram),
 * and the longest segment the link takes: the kernel refuses a segment
 * that does not fit the MTU with EINVAL, which would turn GSO off for
 * good, so longer frames go as plain datagrams instead.
 */
static void sock_gso_probe(struct sock_link *l)
{
	struct ifreq ifr;
	int v = 0;
	socklen_t len = sizeof(v);

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", l->info.name);
	if (getsockopt(l->fd[0], SOL_UDP, UDP_SEGMENT, &v, &len) < 0 ||
	    ioctl(l->fd[0], SIOCGIFMTU, &ifr) < 0 || ifr.ifr_mtu <= (int)SOCK_UDP6_HEADERS) {
		l->gso_off[0] = l->gso_off[1] = true;
		l->info.gso_refused = true;
		return;
	}
	l->gso_max = (uint32_t)ifr.ifr_mtu - SOCK_UDP6_HEADERS;
}

/* The loop never closes a watched fd: we do, once its watch is gone. */
static void sock_close_fds(struct sock_backend *b)
{
	for (uint32_t i = 0; i < b->n_links; i++) {
		for (int k = 0; k < 2; k++) {
			if (b->links[i].fd[k] >= 0) {
				close(b->links[i].fd[k]);
				b->links[i].fd[k] = -1;
			}
		}
	}
}

static void sock_finish(struct sock_backend *b)
{
	void (*done)(void *ctx) = b->done;
	void *ctx = b->done_ctx;

	sock_close_fds(b);
	free(b);
	if (done != NULL)
		done(ctx);
}

static void sock_on_watch_closed(void *ctx)
{
	struct sock_backend *b = ctx;

	if (--b->open_handles == 0)
		sock_finish(b);
}

static void sock_close_b(struct sock_backend *b, void (*done)(void *ctx), void *ctx)
{
	if (b == NULL) {
		if (done != NULL)
			done(ctx);
		return;
	}
	b->closing = true;
	b->done = done;
	b->done_ctx = ctx;
	if (b->open_handles == 0) {
		sock_finish(b);
		return;
	}
	for (uint32_t i = 0; i < b->n_links; i++) {
		for (int k = 0; k < 2; k++) {
			struct sock_link *l = &b->links[i];

			if (l->watch[k] != NULL) {
				net_watch_close(l->watch[k], sock_on_watch_closed, b);
				l->watch[k] = NULL;
			}
		}
	}
}

static void sock_close(struct net_backend *nb, void (*done)(void *ctx), void *ctx)
{
	sock_close_b(nb != NULL ? sock_of(nb) : NULL, done, ctx);
}

static int sock_open(struct net_loop *loop, const struct net_backend_config *cfg, net_readable_fn readable,
		     void *ctx, struct net_backend **ret)
{
	struct sock_backend *b;
	int rc = 0;

	if (cfg->n_links == 0 || cfg->n_links > NET_MAX_LINKS || readable == NULL || cfg->port == 0 ||
	    cfg->port > 65535 - 20)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	b->base.ops = &net_socket_ops;
	b->loop = loop;
	b->readable = readable;
	b->ctx = ctx;
	b->port = cfg->port;
	for (uint32_t i = 0; i < cfg->n_links; i++) {
		struct sock_link *l = &b->links[i];

		l->fd[0] = l->fd[1] = -1;
		l->gso_off[0] = l->gso_off[1] = !cfg->gso;
		if (strlen(cfg->links[i]) >= IF_NAMESIZE) {
			rc = -ENODEV;
			goto fail_close;
		}
		strcpy(l->info.name, cfg->links[i]);
		l->info.ifindex = if_nametoindex(l->info.name);
		b->n_links = i + 1;
		if (l->info.ifindex == 0) {
			rc = -ENODEV;
			goto fail_close;
		}
		for (uint32_t k = 0; k < i; k++) {
			if (b->links[k].info.ifindex == l->info.ifindex) {
				rc = -EEXIST;
				goto fail_close;
			}
		}
		rc = sock_find_ll(l->info.ifindex, cfg->has_prefer ? &cfg->prefer : NULL, &l->info.addr);
		if (rc < 0)
			goto fail_close;
		rc = sock_open_fd(l, false, cfg->port, cfg, &l->fd[0]);
		if (rc == 0)
			rc = sock_open_fd(l, true, (uint16_t)(cfg->port + 20), cfg, &l->fd[1]);
		if (rc < 0)
			goto fail_close;
		if (cfg->gso)
			sock_gso_probe(l);
	}
	for (uint32_t i = 0; i < b->n_links; i++) {
		for (int k = 0; k < 2; k++) {
			struct sock_link *l = &b->links[i];

			rc = net_watch_new(loop, l->fd[k], sock_on_readable, b, &l->watch[k]);
			if (rc < 0)
				goto fail_close;
			b->open_handles++;
		}
	}
	*ret = &b->base;
	return 0;

fail_close:
	/* Watches already made close through the loop; the caller runs it. */
	sock_close_b(b, NULL, NULL);
	return rc;
}

/* The kernel's drop count rides on each datagram; keep the link's total. */
static void sock_note_overflow(struct sock_link *l, unsigned k, struct msghdr *mh)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		uint32_t v;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_RXQ_OVFL ||
		    c->cmsg_len < CMSG_LEN(sizeof(v)))
			continue;
		memcpy(&v, CMSG_DATA(c), sizeof(v));
		l->info.rx_overflow += (uint32_t)(v - l->ovfl[k]); /* wraps like the kernel's */
		l->ovfl[k] = v;
	}
}

/*
 * One recvmmsg on socket s (link s / 2, multicast when odd) into
 * d[0..want): how many, 0 when none now (or an ICMP error was consumed), or
 * -errno.
 */
static int sock_rx_one(struct sock_backend *b, uint32_t s, struct net_dgram *d, unsigned want)
{
	struct sock_link *l = &b->links[s / 2];
	struct mmsghdr mm[SOCK_BATCH];
	struct iovec iov[SOCK_BATCH];
	struct sockaddr_in6 from[SOCK_BATCH];
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} ctl[SOCK_BATCH];
	int r;

	if (want > SOCK_BATCH)
		want = SOCK_BATCH;
	memset(mm, 0, sizeof(mm[0]) * want);
	for (unsigned i = 0; i < want; i++) {
		iov[i].iov_base = d[i].buf;
		iov[i].iov_len = d[i].cap;
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
		mm[i].msg_hdr.msg_name = &from[i];
		mm[i].msg_hdr.msg_namelen = sizeof(from[i]);
		mm[i].msg_hdr.msg_control = ctl[i].buf;
		mm[i].msg_hdr.msg_controllen = sizeof(ctl[i].buf);
	}
	/* MSG_TRUNC: msg_len is the datagram's real size even when cut. */
	r = recvmmsg(l->fd[s % 2], mm, want, MSG_DONTWAIT | MSG_TRUNC, NULL);
	if (r < 0) {
		/* An ICMP error queued on the socket is consumed by the call: go on. */
		if (errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED || errno == EHOSTUNREACH ||
		    errno == ENETUNREACH)
			return 0;
		return -errno;
	}
	for (int i = 0; i < r; i++) {
		struct net_dgram *g = &d[i];

		g->wire_len = mm[i].msg_len;
		g->len = mm[i].msg_len < g->cap ? mm[i].msg_len : g->cap;
		g->src.ip = from[i].sin6_addr;
		g->src.port = ntohs(from[i].sin6_port);
		g->src.ifindex = l->info.ifindex;
		g->link = s / 2;
		g->mcast = (s % 2) == 1;
		sock_note_overflow(l, s % 2, &mm[i].msg_hdr);
	}
	return r;
}

static int sock_rx(struct net_backend *nb, struct net_dgram *d, unsigned n)
{
	struct sock_backend *b = sock_of(nb);
	uint32_t n_socks = b->n_links * 2;
	unsigned got = 0;

	if (b->closing)
		return 0;
	for (uint32_t tried = 0; tried < n_socks && got < n; tried++) {
		uint32_t s = (b->rx_next + tried) % n_socks;
		bool *ready = &b->links[s / 2].ready[s % 2];
		int r;

		/* Only the sockets epoll reported: the others would answer EAGAIN
		 * (a system call each); level-triggered, they report when they have data. */
		if (!*ready)
			continue;
		r = sock_rx_one(b, s, d + got, n - got);
		if (r < 0) {
			if (got == 0)
				return r;
			break;
		}
		/* Short: read dry (sock_rx_one asks for at most SOCK_BATCH). */
		if ((unsigned)r < (n - got < SOCK_BATCH ? n - got : SOCK_BATCH))
			*ready = false;
		got += (unsigned)r;
	}
	b->rx_next = (b->rx_next + 1) % n_socks;
	return (int)got;
}

/* The polling turn's receive: the unicast sockets only (the data path, one
 * recvmmsg each); multicast (discovery) waits for the readable callback. */
static int sock_poll_rx(struct net_backend *nb, struct net_dgram *d, unsigned n)
{
	struct sock_backend *b = sock_of(nb);
	unsigned got = 0;

	if (b->closing)
		return 0;
	for (uint32_t i = 0; i < b->n_links && got < n; i++) {
		int r = sock_rx_one(b, i * 2, d + got, n - got);

		if (r < 0) {
			if (got == 0)
				return r;
			break;
		}
		got += (unsigned)r;
	}
	return (int)got;
}

/*
 * The multicast socket is bound to [::], so without this the kernel would
 * pick the source of its datagrams among the link's addresses (on Linux the
 * newest link-local, often the EUI-64 one, not the node config's ip): the
 * node's frames must all come from the one address it is known by (§9.2),
 * or a peer sees two nodes and sends unicast where nothing listens.
 */
static void sock_set_source(struct cmsghdr *c, const struct net_link_info *l)
{
	struct in6_pktinfo pi = {.ipi6_addr = l->addr, .ipi6_ifindex = l->ifindex};

	c->cmsg_level = IPPROTO_IPV6;
	c->cmsg_type = IPV6_PKTINFO;
	c->cmsg_len = CMSG_LEN(sizeof(pi));
	memcpy(CMSG_DATA(c), &pi, sizeof(pi));
}

/* Same socket and destination: one GSO message may carry both. */
static bool sock_same_dst(const struct net_tx *a, const struct net_tx *c)
{
	return a->from_mcast == c->from_mcast && a->dst.ifindex == c->dst.ifindex &&
	       a->dst.port == c->dst.port && memcmp(&a->dst.ip, &c->dst.ip, sizeof(a->dst.ip)) == 0;
}

/*
 * Datagrams tx[0..n) that one message can carry: a run to the same
 * destination, all of the first one's size but the last, which may be
 * shorter (the kernel cuts a GSO message into gso_size pieces), none
 * longer than max (the link's MTU less headers). One
 * sample per frame makes such runs: a batch of frames of one topic to
 * one peer has frames of one size.
 */
static unsigned sock_gso_run(const struct net_tx *tx, unsigned n, uint32_t max)
{
	unsigned k = 1;
	uint32_t total = tx[0].len;

	if (tx[0].len == 0 || tx[0].len > max)
		return 1;
	while (k < n && k < SOCK_GSO_SEGS && sock_same_dst(&tx[0], &tx[k]) && tx[k].len <= tx[0].len &&
	       tx[k].len > 0 && total + tx[k].len <= SOCK_GSO_BYTES) {
		total += tx[k].len;
		k++;
		if (tx[k - 1].len < tx[0].len)
			break;
	}
	return k;
}

/* The control messages of one message: its source (multicast socket) and its GSO size. */
static void sock_tx_cmsgs(struct msghdr *h, char *buf, size_t cap, const struct net_link_info *l,
			  bool from_mcast, uint16_t gso)
{
	struct cmsghdr *c;

	if (!from_mcast && gso == 0)
		return;
	memset(buf, 0, cap);
	h->msg_control = buf;
	h->msg_controllen = (from_mcast ? CMSG_SPACE(sizeof(struct in6_pktinfo)) : 0) +
			    (gso != 0 ? CMSG_SPACE(sizeof(uint16_t)) : 0);
	c = CMSG_FIRSTHDR(h);
	if (from_mcast) {
		sock_set_source(c, l);
		c = CMSG_NXTHDR(h, c);
	}
	if (gso != 0) {
		c->cmsg_level = SOL_UDP;
		c->cmsg_type = UDP_SEGMENT;
		c->cmsg_len = CMSG_LEN(sizeof(gso));
		memcpy(CMSG_DATA(c), &gso, sizeof(gso));
	}
}

/*
 * Errors that say the kernel cannot segment on this link, not that the
 * datagrams cannot go: no checksum offload on the device before Linux
 * 6.11 (EIO), a socket without checksums or a path whose MTU shrank below
 * a segment (EINVAL), a path that cannot (EOPNOTSUPP).
 */
static bool sock_gso_refused(int err)
{
	return err == EIO || err == EINVAL || err == EOPNOTSUPP;
}

static int sock_tx(struct net_backend *nb, const struct net_tx *tx, unsigned n, int *ret_err)
{
	struct sock_backend *b = sock_of(nb);
	unsigned done = 0;

	if (b->closing)
		return -ESHUTDOWN;
	while (done < n) {
		struct mmsghdr mm[SOCK_BATCH];
		struct iovec iov[SOCK_TX_DGRAMS];
		struct sockaddr_in6 to[SOCK_BATCH];
		unsigned segs[SOCK_BATCH];
		union {
			char buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(uint16_t))];
			struct cmsghdr align;
		} ctl[SOCK_BATCH];
		int link = tx[done].link < b->n_links ? (int)tx[done].link : -1;
		bool from_mcast = tx[done].from_mcast, gso;
		unsigned k = 0, used = 0;
		int r;

		if (link < 0) {
			*ret_err = -ENXIO;
			return (int)done;
		}
		gso = !b->links[link].gso_off[from_mcast ? 1 : 0];
		/* One sendmmsg per run of datagrams leaving the same socket; in it, one
		 * message per run to one destination when the kernel segments for us. */
		while (done + used < n && k < SOCK_BATCH && used < SOCK_TX_DGRAMS &&
		       tx[done + used].from_mcast == from_mcast && tx[done + used].link == tx[done].link) {
			const struct net_tx *t = &tx[done + used];
			unsigned run = 1;

			if (gso) {
				run = n - done - used;
				run =
				    sock_gso_run(t, run < SOCK_TX_DGRAMS - used ? run : SOCK_TX_DGRAMS - used,
						 b->links[link].gso_max);
			}
			memset(&mm[k], 0, sizeof(mm[k]));
			memset(&to[k], 0, sizeof(to[k]));
			to[k].sin6_family = AF_INET6;
			to[k].sin6_addr = t->dst.ip;
			to[k].sin6_port = htons(t->dst.port);
			to[k].sin6_scope_id = t->dst.ifindex;
			for (unsigned j = 0; j < run; j++) {
				iov[used + j].iov_base = (void *)t[j].buf;
				iov[used + j].iov_len = t[j].len;
			}
			mm[k].msg_hdr.msg_iov = &iov[used];
			mm[k].msg_hdr.msg_iovlen = run;
			mm[k].msg_hdr.msg_name = &to[k];
			mm[k].msg_hdr.msg_namelen = sizeof(to[k]);
			sock_tx_cmsgs(&mm[k].msg_hdr, ctl[k].buf, sizeof(ctl[k].buf), &b->links[link].info,
				      from_mcast, run > 1 ? (uint16_t)t->len : 0);
			segs[k++] = run;
			used += run;
		}
		r = sendmmsg(b->links[link].fd[from_mcast ? 1 : 0], mm, k, MSG_DONTWAIT);
		if (r < 0) {
			struct sock_link *l = &b->links[link];
			int err = errno; /* sock_gso_probe's calls may change errno */

			if (err == EINTR)
				continue;
			/* The link's MTU shrank under a segment: learn it again, then try again. */
			if (segs[0] > 1 && err == EMSGSIZE) {
				uint32_t was = l->gso_max;

				sock_gso_probe(l);
				if (l->gso_max < was)
					continue;
			}
			if (segs[0] > 1 && (sock_gso_refused(err) || err == EMSGSIZE)) {
				/* Not on this link: plain datagrams from now on. */
				l->gso_off[from_mcast ? 1 : 0] = true;
				l->info.gso_refused = true;
				continue;
			}
			*ret_err = -err;
			return (int)done;
		}
		/* A short count: the next call says why the next message did not go. */
		for (int i = 0; i < r; i++) {
			done += segs[i];
			if (segs[i] > 1)
				b->links[link].info.tx_gso += segs[i];
		}
	}
	return (int)done;
}

static int sock_join(struct net_backend *nb, uint32_t link, const struct in6_addr *group)
{
	struct sock_backend *b = sock_of(nb);
	struct ipv6_mreq mr;

	if (link >= b->n_links)
		return -EINVAL;
	mr.ipv6mr_multiaddr = *group;
	mr.ipv6mr_interface = b->links[link].info.ifindex;
	if (setsockopt(b->links[link].fd[1], IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr, sizeof(mr)) < 0)
		return -errno;
	return 0;
}

static uint32_t sock_n_links(const struct net_backend *nb)
{
	const struct sock_backend *b = sock_of_const(nb);

	return b->n_links;
}

static const struct net_link_info *sock_link(const struct net_backend *nb, uint32_t link)
{
	const struct sock_backend *b = sock_of_const(nb);

	return link < b->n_links ? &b->links[link].info : NULL;
}

static int64_t sock_clock_ns(struct net_backend *nb)
{
	struct sock_backend *b = sock_of(nb);
	struct timespec ts;

	(void)b;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

const struct net_backend_ops net_socket_ops = {
    .name = "socket",
    .open = sock_open,
    .rx = sock_rx,
    .poll_rx = sock_poll_rx,
    .tx = sock_tx,
    .join = sock_join,
    .n_links = sock_n_links,
    .link = sock_link,
    .clock_ns = sock_clock_ns,
    .close = sock_close,
};
