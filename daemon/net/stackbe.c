/* SPDX-License-Identifier: MIT */
/*
 * stackbe.c - the own-stack backends: SNPS over sddsd's own IPv6/UDP stack
 * (lib/ip6) on a frame device (lib/netdev), instead of the kernel's
 * sockets. `tap` runs it on a TAP device (drivers/tap); the uio-igb driver
 * will plug in here the same way.
 *
 * OVERVIEW
 * One link is one device with one stack on it (struct sb_link). At open the
 * device is opened, the stack created on the network layer's timer queue
 * (backend.h: every timer of the daemon is on that one queue) and started:
 * its link-local address (fe80:: + EUI-64 of the device's MAC) and the
 * config's static addresses run DAD. The stack binds the SNPS ports
 * (port and port + 20) and the groups the layer joins become MLD joins.
 *
 * Receive: the device's fd is watched through netloop.h; readable calls the
 * layer, which calls rx until it returns 0. rx reads frames from the device
 * in batches (sb_link.rxq) and feeds them to the stack one at a time; a
 * frame gives at most one UDP datagram, which the stack's receive callback
 * copies into the layer's next net_dgram (b->rx). Everything else in the
 * frame (NDP, MLD, echo) the stack handles itself; its answers wait on its
 * tx batch, which rx flushes before it returns.
 *
 * Send: tx hands each datagram to the stack of its link, which builds the
 * frame in a pool buffer (or holds it while the neighbor resolves), and
 * flushes each stack once at the end: one write per frame on TAP.
 *
 * Addresses: the stack assigns its link-local address and the config's
 * `address` lines. The unicast address of a link (net_link_info.addr, the
 * SNPS source) is the node config's when the stack has it, else the
 * link-local one. Until
 * DAD has passed, sending from it fails with -EADDRNOTAVAIL, which the
 * layer counts as a tx error; DAD failing is reported through cfg->note
 * and the address stays unused.
 *
 * Capture: with cfg->pcap every frame the stacks receive and send is
 * written (libpcap, Ethernet link type) with the wall-clock time, flushed
 * after each rx and tx call so a capture is whole when the daemon stops.
 *
 * Ownership: the backend owns its devices, stacks and pcap handle. Closing
 * frees the stacks at once (their timers are on the layer's queue, which
 * does not outlive the close call on every path) and closes the devices
 * and frees the rest once the loop has let go of their fds (netloop.h).
 * Buffers handed to rx are the layer's (backend.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <ip6/stack.h>
#include <netdev/netdev.h>

#include "backend.h"
#include "stackbe.h"
#include "tap.h"

_Static_assert(NET_STACK_MAX_ADDRS == IP6S_MAX_STATIC, "the config's address lines must fit the stack");

/* Frames read from a device at once. */
#define SB_RX_BATCH 32u
/* The carrier is polled this often (TAP has no event for it on the fd). */
#define SB_LINK_POLL_NS 1000000000
/* Pool buffers per device: rx batch, frames held for resolution, tx batch. */
#define SB_POOL_BUFS 512u

struct sb_backend;

struct sb_link {
	struct sb_backend *b;
	uint32_t idx;
	struct netdev *dev;
	struct ip6s *ip;
	struct net_link_info info;
	struct net_watch *watch;
	struct netdev_buf *rxq[SB_RX_BATCH]; /* read, not yet given to the stack */
	unsigned rxq_n, rxq_i;
	bool drained; /* the last batch came back short: nothing more until readable */
	bool link_up;
};

struct sb_backend {
	struct net_backend base;
	struct sb_link links[NET_MAX_LINKS];
	uint32_t n_links;
	uint16_t port;
	struct net_loop *loop;
	net_readable_fn readable;
	void *ctx;
	struct timerq *tq;
	struct timerq_timer link_t; /* polls every link's carrier */
	struct timerq_timer more_t; /* rx left frames the fd no longer shows: call readable again */
	int64_t (*now)(void *ctx);
	void (*note)(void *ctx, bool error, const char *msg);
	/* The rx call in progress: where the stack's receive callback puts datagrams. */
	struct net_dgram *rx;
	unsigned rx_n, rx_got;
	uint32_t rx_link;
	pcap_t *pcap_dead;
	pcap_dumper_t *pcap;
	uint32_t open_watches;
	bool closing;
	void (*done)(void *ctx);
	void *done_ctx;
};

static struct sb_backend *sb_of(struct net_backend *nb)
{
	return net_backend_of(nb, struct sb_backend, base);
}

static const struct sb_backend *sb_of_const(const struct net_backend *nb)
{
	return net_backend_of(nb, const struct sb_backend, base);
}

static int64_t sb_now(void *ctx)
{
	struct sb_link *l = ctx;

	return l->b->now(l->b->ctx);
}

static uint32_t sb_random(void *ctx)
{
	uint32_t v = 0;

	(void)ctx;
	/* getrandom of 4 bytes never blocks once the pool is initialised, and never returns short. */
	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v))
		v = (uint32_t)clock();
	return v;
}

static void sb_event(void *ctx, enum ip6s_event ev, const struct in6_addr *addr)
{
	struct sb_link *l = ctx;
	char a[INET6_ADDRSTRLEN] = "?", msg[160];

	if (l->b->note == NULL)
		return;
	if (addr != NULL)
		inet_ntop(AF_INET6, addr, a, sizeof(a));
	switch (ev) {
	case IP6S_EV_DAD_FAILED:
		snprintf(msg, sizeof(msg),
			 "%s: duplicate address detection failed for %s: another node on the link has it; "
			 "the address is not used",
			 l->info.name, a);
		l->b->note(l->b->ctx, true, msg);
		break;
	case IP6S_EV_ADDR_READY:
		snprintf(msg, sizeof(msg), "%s: %s passed duplicate address detection", l->info.name, a);
		l->b->note(l->b->ctx, false, msg);
		break;
	case IP6S_EV_ADDR_GONE:
		snprintf(msg, sizeof(msg), "%s: %s expired (router advertisement lifetime)", l->info.name, a);
		l->b->note(l->b->ctx, false, msg);
		break;
	case IP6S_EV_LINK:
		break;
	}
}

static void sb_capture(void *ctx, bool out, const struct netdev_buf *nb)
{
	struct sb_link *l = ctx;
	struct pcap_pkthdr h;
	struct timespec ts;

	int64_t wall;

	if (l->b->pcap == NULL)
		return;
	/*
	 * pcap carries wall-clock time, which is what Wireshark shows; a
	 * received frame is stamped with its arrival (ts_ns, the device's
	 * CLOCK_MONOTONIC), moved onto the wall clock, not with when the stack
	 * got to it.
	 */
	clock_gettime(CLOCK_REALTIME, &ts);
	wall = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (!out && nb->ts_ns > 0) {
		int64_t age = l->dev->ops->clock_ns(l->dev) - nb->ts_ns;

		if (age > 0)
			wall -= age;
	}
	h.ts.tv_sec = (time_t)(wall / 1000000000);
	h.ts.tv_usec = (suseconds_t)(wall % 1000000000 / 1000);
	h.caplen = nb->len;
	h.len = nb->len;
	pcap_dump((u_char *)l->b->pcap, &h, nb->data);
}

/* One UDP datagram for an SNPS port: into the layer's next buffer. */
static void sb_on_udp(void *ctx, const struct ip6s_udp_meta *m, const uint8_t *payload, uint32_t len)
{
	struct sb_link *l = ctx;
	struct sb_backend *b = l->b;
	struct net_dgram *d;

	/* rx stops feeding frames once the layer's buffers are full (one datagram per frame). */
	if (b->rx == NULL || b->rx_got >= b->rx_n)
		return;
	d = &b->rx[b->rx_got++];
	d->wire_len = len;
	d->len = len < d->cap ? len : d->cap;
	memcpy(d->buf, payload, d->len);
	d->src.ip = m->src;
	d->src.port = m->sport;
	d->src.ifindex = l->info.ifindex;
	d->link = l->idx;
	d->mcast = m->dport != b->port;
}

static void sb_flush_all(struct sb_backend *b)
{
	for (uint32_t i = 0; i < b->n_links; i++)
		ip6s_flush(b->links[i].ip);
	if (b->pcap != NULL)
		pcap_dump_flush(b->pcap);
}

static void sb_on_readable(void *ctx, int fd)
{
	struct sb_backend *b = ctx;

	for (uint32_t i = 0; i < b->n_links; i++) {
		if (b->links[i].dev->fd == fd)
			b->links[i].drained = false;
	}
	if (!b->closing)
		b->readable(&b->base, b->ctx);
}

/* The carrier of l changed: the stack restarts DAD and RS when it comes back. */
static void sb_check_link(struct sb_link *l)
{
	bool up = l->dev->ops->link_up(l->dev);
	char msg[96];

	if (up == l->link_up)
		return;
	l->link_up = up;
	ip6s_link_changed(l->ip, up);
	ip6s_flush(l->ip);
	if (l->b->note != NULL) {
		snprintf(msg, sizeof(msg), "%s: link %s", l->info.name, up ? "up" : "down");
		l->b->note(l->b->ctx, !up, msg);
	}
}

/*
 * rx returned with frames read but not yet handed to the stack (rxq), or
 * held by the driver (rx_pending): the layer stops at its budget and waits
 * for readable, which the fd, already read, will not say. This timer, due
 * at once, says it on the next loop turn.
 */
static void sb_on_more(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct sb_backend *b = TIMERQ_CONTAINER_OF(t, struct sb_backend, more_t);

	(void)q;
	(void)now;
	if (!b->closing)
		b->readable(&b->base, b->ctx);
}

static void sb_on_link_timer(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct sb_backend *b = TIMERQ_CONTAINER_OF(t, struct sb_backend, link_t);

	for (uint32_t i = 0; i < b->n_links; i++)
		sb_check_link(&b->links[i]);
	if (!b->closing)
		timerq_arm(q, t, now + SB_LINK_POLL_NS);
}

static int sb_rx(struct net_backend *nb, struct net_dgram *d, unsigned n)
{
	struct sb_backend *b = sb_of(nb);

	if (b->closing)
		return 0;
	b->rx = d;
	b->rx_n = n;
	b->rx_got = 0;
	for (uint32_t tried = 0; tried < b->n_links && b->rx_got < n; tried++) {
		struct sb_link *l = &b->links[(b->rx_link + tried) % b->n_links];

		while (b->rx_got < n) {
			if (l->rxq_i == l->rxq_n) {
				int r;

				/* A short batch read the device dry: another read would only say EAGAIN. */
				if (l->drained)
					break;
				r = l->dev->ops->rx_batch(l->dev, l->rxq, SB_RX_BATCH);
				l->rxq_i = l->rxq_n = 0;
				/*
				 * Frames the driver still holds (a run's rest) are not in
				 * the fd: not drained while they wait. They only wait for
				 * buffers, and SB_POOL_BUFS exceeds what the stack and rxq
				 * can hold at once, so the next call takes them.
				 */
				if (r <= 0) {
					l->drained = !l->dev->rx_pending;
					break;
				}
				l->rxq_n = (unsigned)r;
				l->drained = (unsigned)r < SB_RX_BATCH && !l->dev->rx_pending;
			}
			ip6s_input(l->ip, l->rxq[l->rxq_i++]);
		}
	}
	b->rx_link = (b->rx_link + 1) % b->n_links;
	b->rx = NULL;
	for (uint32_t i = 0; i < b->n_links && !timerq_armed(&b->more_t); i++) {
		const struct sb_link *l = &b->links[i];

		if (l->rxq_i < l->rxq_n || l->dev->rx_pending)
			timerq_arm(b->tq, &b->more_t, b->now(b->ctx));
	}
	sb_flush_all(b);
	return (int)b->rx_got;
}

/* Datagrams of one run (equal length, one destination, one source port) handed to the stack at once. */
#define SB_RUN_MAX 64u

/* Whether b continues the run a starts: the same link, destination, source port and length. */
static bool sb_same_run(const struct net_tx *a, const struct net_tx *b)
{
	return a->link == b->link && a->from_mcast == b->from_mcast && a->len == b->len &&
	       a->dst.port == b->dst.port && memcmp(&a->dst.ip, &b->dst.ip, sizeof(a->dst.ip)) == 0;
}

/*
 * Runs of equal datagrams to one destination go to the stack together
 * (ip6s_udp_send_run), which makes one frame of them where the device
 * cuts runs (a TAP: one write instead of one each), as the socket
 * backend hands such runs to the kernel as one UDP GSO message.
 */
static int sb_tx(struct net_backend *nb, const struct net_tx *tx, unsigned n, int *ret_err)
{
	struct sb_backend *b = sb_of(nb);
	const void *payloads[SB_RUN_MAX];
	unsigned i = 0;
	int rc = 0;

	if (b->closing)
		return -ESHUTDOWN;
	while (i < n) {
		const struct net_tx *t = &tx[i];
		uint16_t sport = (uint16_t)(t->from_mcast ? b->port + 20 : b->port);
		struct sb_link *l;
		unsigned k = 1, sent = 0;

		if (t->link >= b->n_links) {
			rc = -ENXIO;
			break;
		}
		l = &b->links[t->link];
		payloads[0] = t->buf;
		while (i + k < n && k < SB_RUN_MAX && sb_same_run(t, &tx[i + k])) {
			payloads[k] = tx[i + k].buf;
			k++;
		}
		/* An empty pool may be full of frames the tx batch holds: they go first. */
		if (l->dev->pool->free_head == NULL)
			ip6s_flush(l->ip);
		rc = ip6s_udp_send_run(l->ip, &l->info.addr, sport, &t->dst.ip, t->dst.port, 0, payloads,
				       t->len, k, &sent);
		i += sent;
		if (rc < 0)
			break;
	}
	sb_flush_all(b);
	if (i < n && ret_err != NULL)
		*ret_err = rc;
	return (int)i;
}

static int sb_join(struct net_backend *nb, uint32_t link, const struct in6_addr *group)
{
	struct sb_backend *b = sb_of(nb);
	int rc;

	if (link >= b->n_links)
		return -ENXIO;
	rc = ip6s_join(b->links[link].ip, group);
	ip6s_flush(b->links[link].ip);
	return rc;
}

static uint32_t sb_n_links(const struct net_backend *nb)
{
	return sb_of_const(nb)->n_links;
}

static const struct net_link_info *sb_link(const struct net_backend *nb, uint32_t link)
{
	const struct sb_backend *b = sb_of_const(nb);

	return link < b->n_links ? &b->links[link].info : NULL;
}

static int64_t sb_clock_ns(struct net_backend *nb)
{
	struct sb_backend *b = sb_of(nb);

	return b->links[0].dev->ops->clock_ns(b->links[0].dev);
}

static const struct ip6s *sb_stack(const struct net_backend *nb, uint32_t link)
{
	const struct sb_backend *b = sb_of_const(nb);

	return link < b->n_links ? b->links[link].ip : NULL;
}

static const struct netdev *sb_netdev(const struct net_backend *nb, uint32_t link)
{
	const struct sb_backend *b = sb_of_const(nb);

	return link < b->n_links ? b->links[link].dev : NULL;
}

static void sb_finish(struct sb_backend *b)
{
	void (*done)(void *ctx) = b->done;
	void *ctx = b->done_ctx;

	for (uint32_t i = 0; i < b->n_links; i++) {
		if (b->links[i].dev != NULL)
			b->links[i].dev->ops->close(b->links[i].dev);
	}
	if (b->pcap != NULL)
		pcap_dump_close(b->pcap);
	if (b->pcap_dead != NULL)
		pcap_close(b->pcap_dead);
	free(b);
	if (done != NULL)
		done(ctx);
}

static void sb_on_watch_closed(void *ctx)
{
	struct sb_backend *b = ctx;

	if (--b->open_watches == 0)
		sb_finish(b);
}

static void sb_close_b(struct sb_backend *b, void (*done)(void *ctx), void *ctx)
{
	if (b == NULL) {
		if (done != NULL)
			done(ctx);
		return;
	}
	b->closing = true;
	timerq_cancel(b->tq, &b->link_t);
	timerq_cancel(b->tq, &b->more_t);
	b->done = done;
	b->done_ctx = ctx;
	/*
	 * Leaving the groups tells the snooping switches at once (RFC 3810
	 * §6.1) instead of at their timeout; the leave goes out once, since
	 * the layer's timers no longer run. Then the stacks go now: their
	 * timers are on the layer's queue, which may be freed before the
	 * watches are let go of (netif_new's failure paths). Only the
	 * devices wait for the watches.
	 */
	for (uint32_t i = 0; i < b->n_links; i++) {
		struct sb_link *l = &b->links[i];
		struct ip6s_group_info g[IP6S_MAX_GROUPS];
		unsigned ng;

		if (l->ip == NULL)
			continue;
		ng = ip6s_groups(l->ip, g, IP6S_MAX_GROUPS);
		for (unsigned k = 0; k < ng; k++) {
			for (uint32_t r = 0; r < g[k].refs; r++)
				ip6s_leave(l->ip, &g[k].addr);
		}
		ip6s_flush(l->ip);
		while (l->rxq_i < l->rxq_n)
			netdev_buf_free(l->dev->pool, l->rxq[l->rxq_i++]);
		ip6s_free(l->ip);
		l->ip = NULL;
	}
	if (b->pcap != NULL)
		pcap_dump_flush(b->pcap);
	if (b->open_watches == 0) {
		sb_finish(b);
		return;
	}
	for (uint32_t i = 0; i < b->n_links; i++) {
		if (b->links[i].watch != NULL) {
			net_watch_close(b->links[i].watch, sb_on_watch_closed, b);
			b->links[i].watch = NULL;
		}
	}
}

static void sb_close(struct net_backend *nb, void (*done)(void *ctx), void *ctx)
{
	sb_close_b(nb != NULL ? sb_of(nb) : NULL, done, ctx);
}

static void sb_why(const struct net_backend_config *cfg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sb_why(const struct net_backend_config *cfg, const char *fmt, ...)
{
	va_list ap;

	if (cfg->why == NULL || cfg->why_len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(cfg->why, cfg->why_len, fmt, ap);
	va_end(ap);
}

static int sb_open_link(struct sb_backend *b, const struct net_backend_config *cfg, uint32_t i)
{
	struct sb_link *l = &b->links[i];
	struct tap_config tc;
	struct ip6s_config ic = {0};
	char why[192] = "";
	int rc;

	l->b = b;
	l->idx = i;
	tap_config_init(&tc);
	snprintf(tc.name, sizeof(tc.name), "%s", cfg->links[i]);
	if (cfg->stack.has_mac) {
		/* Several links, one configured MAC: each link's differs in its last byte. */
		memcpy(tc.mac, cfg->stack.mac, sizeof(tc.mac));
		tc.mac[5] = (uint8_t)(tc.mac[5] + i);
		tc.mac_set = true;
	}
	tc.pool_size = SB_POOL_BUFS;
	tc.bring_up = true;
	rc = tap_open(&tc, &l->dev, why, sizeof(why));
	if (rc < 0) {
		if (why[0] != '\0')
			sb_why(cfg, "%s", why);
		else
			sb_why(cfg, "cannot open the TAP device %s", cfg->links[i]);
		return rc;
	}
	/* Opened, with something left undone the user should hear of (the TAP is still down). */
	if (why[0] != '\0' && b->note != NULL)
		b->note(b->ctx, true, why);
	snprintf(l->info.name, sizeof(l->info.name), "%s", cfg->links[i]);
	/* The kernel's index of the TAP interface names the link in peers' scope ids. */
	l->info.ifindex = if_nametoindex(cfg->links[i]);
	ic.dev = l->dev;
	ic.tq = b->tq;
	ic.now = sb_now;
	ic.random = sb_random;
	ic.event = sb_event;
	ic.capture = b->pcap != NULL ? sb_capture : NULL;
	ic.ctx = l;
	ic.accept_ra = true;
	ic.dad_transmits = cfg->stack.dad_transmits;
	for (uint32_t k = 0; k < cfg->stack.n_addrs && k < IP6S_MAX_STATIC; k++)
		ic.addrs[ic.n_addrs++] = cfg->stack.addrs[k];
	rc = ip6s_new(&ic, &l->ip);
	if (rc < 0) {
		sb_why(cfg, "%s: cannot create the IPv6 stack", cfg->links[i]);
		return rc;
	}
	/*
	 * The SNPS source: the node config's address when the stack has it (its
	 * link-local one, or an `address` line), else the link-local address.
	 */
	ip6s_linklocal(l->ip, &l->info.addr);
	if (cfg->has_prefer) {
		bool have = memcmp(&cfg->prefer, &l->info.addr, sizeof(cfg->prefer)) == 0;

		for (uint32_t k = 0; k < ic.n_addrs; k++)
			have = have || memcmp(&cfg->prefer, &ic.addrs[k], sizeof(cfg->prefer)) == 0;
		if (have)
			l->info.addr = cfg->prefer;
	}
	rc = ip6s_udp_bind(l->ip, b->port, sb_on_udp, l);
	if (rc == 0)
		rc = ip6s_udp_bind(l->ip, (uint16_t)(b->port + 20), sb_on_udp, l);
	if (rc < 0)
		return rc;
	if (l->dev->fd >= 0) {
		rc = net_watch_new(b->loop, l->dev->fd, sb_on_readable, b, &l->watch);
		if (rc < 0)
			return rc;
		b->open_watches++;
	}
	l->link_up = l->dev->ops->link_up(l->dev);
	ip6s_start(l->ip);
	if (!l->link_up)
		ip6s_link_changed(l->ip, false);
	ip6s_flush(l->ip);
	return 0;
}

static int sb_open_tap(struct net_loop *loop, const struct net_backend_config *cfg, net_readable_fn readable,
		       void *ctx, struct net_backend **ret)
{
	struct sb_backend *b;
	int rc = 0;

	if (cfg->n_links == 0 || cfg->n_links > NET_MAX_LINKS || readable == NULL || cfg->port == 0 ||
	    cfg->port > 65535 - 20 || cfg->tq == NULL || cfg->now == NULL)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	b->base.ops = &net_tap_ops;
	b->loop = loop;
	b->readable = readable;
	b->ctx = ctx;
	b->port = (uint16_t)cfg->port;
	b->tq = cfg->tq;
	b->now = cfg->now;
	b->note = cfg->note;
	if (cfg->stack.pcap != NULL && cfg->stack.pcap[0] != '\0') {
		b->pcap_dead = pcap_open_dead(DLT_EN10MB, 65535);
		if (b->pcap_dead != NULL)
			b->pcap = pcap_dump_open(b->pcap_dead, cfg->stack.pcap);
		if (b->pcap == NULL) {
			sb_why(cfg, "pcap = %s: %s", cfg->stack.pcap,
			       b->pcap_dead != NULL ? pcap_geterr(b->pcap_dead) : "out of memory");
			rc = -EIO;
			goto fail;
		}
	}
	for (uint32_t i = 0; i < cfg->n_links; i++) {
		b->n_links = i + 1;
		rc = sb_open_link(b, cfg, i);
		if (rc < 0)
			goto fail;
	}
	timerq_timer_init(&b->link_t, sb_on_link_timer);
	timerq_timer_init(&b->more_t, sb_on_more);
	timerq_arm(b->tq, &b->link_t, b->now(b->ctx) + SB_LINK_POLL_NS);
	*ret = &b->base;
	return 0;
fail:
	sb_close_b(b, NULL, NULL);
	return rc;
}

const struct net_backend_ops net_tap_ops = {
    .name = "tap",
    .open = sb_open_tap,
    .rx = sb_rx,
    .poll_rx = NULL,
    .tx = sb_tx,
    .join = sb_join,
    .n_links = sb_n_links,
    .link = sb_link,
    .clock_ns = sb_clock_ns,
    .stack = sb_stack,
    .netdev = sb_netdev,
    .close = sb_close,
};
