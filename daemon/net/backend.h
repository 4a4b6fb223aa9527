/* SPDX-License-Identifier: MIT */
/*
 * backend.h - the small vtable between sddsd's network layer (netif.h) and
 * whatever moves SNPS datagrams: the kernel's UDPv6 sockets (`socket`,
 * socket.c), or sddsd's own IPv6 stack on a frame device (`tap`,
 * stackbe.c; later `uio-igb`).
 *
 * OVERVIEW
 * A backend carries whole UDPv6 datagrams between the daemon and its
 * configured links. It owns its sockets or queues; the network layer owns
 * every buffer it hands to a call and gets every received byte copied into
 * buffers it lends (struct net_dgram). Calls are batched both ways: rx and
 * tx return how many datagrams they moved, so a NIC driver can map them to
 * descriptor rings and the socket backend to recvmmsg/sendmmsg. A polling
 * owner calls poll_rx between loop turns instead of waiting for readable.
 *
 * Addressing: struct net_addr is an IPv6 address, a UDP port and the
 * interface index (the scope of a link-local address, and the link a
 * datagram came in on or must go out of). Every link the backend serves is
 * one the configuration named; a backend never picks "the first one".
 *
 * Ports (snps-wire.md §1, §9): the backend listens on `port` (unicast, bound
 * to the link-local address of each link) and on `port + 20` (multicast,
 * with the groups the network layer joins, hop limit 1). A datagram says
 * which of the two it came in on (`mcast`), and a datagram to send says
 * which of the two it leaves from, since real nodes remember a peer's first
 * source port (§15.5).
 *
 * Threads: every call comes from the loop thread. The backend wakes the
 * loop through the `readable` callback given to open (called on the loop
 * thread; the network layer then calls rx until it returns 0).
 *
 * The base struct: every backend's state embeds struct net_backend as its
 * member `base`, and its ops get their own struct back with
 * net_backend_of (container_of), as ixy's drivers embed struct
 * ixy_device. open fills base.ops; the network layer owns base.link_base
 * (the layer's id of the backend's link 0: the layer numbers the links of
 * all its backends in one sequence) and base.index (its place among the
 * layer's backends). Link numbers in this interface (net_dgram.link, join,
 * link) are the backend's own, 0..n_links-1.
 *
 * The loop: a backend never sees libuv; it watches its fds through
 * netloop.h, on the opaque loop open is given.
 *
 * Errors: 0 or -errno; out-parameters only on success. Backends never log.
 */
#ifndef SDDS_DAEMON_NET_BACKEND_H
#define SDDS_DAEMON_NET_BACKEND_H

#include <netinet/in.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <timerq/timerq.h>

#include "netloop.h"

/* Most links one backend serves (config `interface`, repeatable). */
#define NET_MAX_LINKS 8u
/* Most backends one network layer holds (config `backend`, repeatable). */
#define NET_MAX_BACKENDS 4u

struct net_addr {
	struct in6_addr ip;
	uint16_t port;	  /* host order */
	uint32_t ifindex; /* 0: none (a global address) */
};

/* One received datagram, in a buffer the network layer lends. */
struct net_dgram {
	uint8_t *buf;	   /* lent by the caller, cap bytes */
	uint32_t cap;	   /* in: buffer size */
	uint32_t len;	   /* out: bytes stored (at most cap) */
	uint32_t wire_len; /* out: datagram size on the wire (> cap: truncated) */
	struct net_addr src;
	uint32_t link; /* out: index into the backend's links (ingress) */
	bool mcast;    /* out: came in on the multicast port */
};

/* One datagram to send; buf is the caller's, borrowed for the call. */
struct net_tx {
	const uint8_t *buf;
	uint32_t len;
	struct net_addr dst; /* dst.ifindex: the address's scope (a link-local address) */
	uint32_t link;	     /* the backend's own link it leaves on (index into its links) */
	bool from_mcast;     /* send from port + 20 instead of port */
};

struct net_link_info {
	char name[IF_NAMESIZE];
	uint32_t ifindex;
	struct in6_addr addr; /* the link-local address unicast is bound to */
	uint64_t rx_overflow; /* datagrams dropped on a full receive queue; the socket backend
			       * learns of them with the next datagram it reads (SO_RXQ_OVFL) */
	uint64_t tx_gso;      /* datagrams sent in segmentation-offload messages */
	bool gso_refused;     /* the kernel would not segment on this link: plain datagrams */
};

/* Static addresses one own stack takes (config `address`, lib/ip6's IP6S_MAX_STATIC). */
#define NET_STACK_MAX_ADDRS 4u

/* The own-stack backends' settings (tap): config keys mac, address, dad_transmits, pcap. */
struct net_stack_config {
	uint8_t mac[6]; /* the first link's MAC when has_mac; else random, locally administered */
	bool has_mac;
	uint32_t dad_transmits;	      /* RFC 4862 DupAddrDetectTransmits */
	const struct in6_addr *addrs; /* static addresses (/64), at most NET_STACK_MAX_ADDRS */
	uint32_t n_addrs;
	const char *pcap; /* capture every frame to this file; NULL: none */
};

struct net_backend_config {
	const char *links[NET_MAX_LINKS]; /* interface names, borrowed for open */
	uint32_t n_links;
	/* Preferred unicast address (the node config's ip): used on the link
	 * that has it; other links bind their first link-local address. */
	struct in6_addr prefer;
	bool has_prefer;
	uint16_t port;	    /* unicast base port; multicast is port + 20 */
	uint32_t max_dgram; /* receive buffer size the layer lends (for sizing) */
	uint32_t rcvbuf;    /* receive queue bytes wished per socket, 0: kernel default */
	uint32_t sndbuf;    /* send queue bytes wished per socket, 0: kernel default */
	/*
	 * May send a run of datagrams of one size to one destination as one
	 * segmentation-offload message (the socket backend: UDP_SEGMENT); the
	 * wire carries the same datagrams either way.
	 */
	bool gso;
	/*
	 * The network layer's timer queue and its clock (ns): a backend with
	 * timers of its own (the IPv6 stack's ND and MLD) arms them there, on
	 * the loop's thread; the layer runs the queue.
	 */
	struct timerq *tq;
	int64_t (*now)(void *ctx);
	/*
	 * Things the daemon should log (a failed DAD), on the loop's thread:
	 * backends never log themselves. May be NULL.
	 */
	void (*note)(void *ctx, bool error, const char *msg);
	/* Where open explains a failure in words (may be NULL). */
	char *why;
	size_t why_len;
	struct net_stack_config stack;
};

struct net_backend_ops;
struct ip6s;
struct netdev;

/* The part every backend's state starts from (see OVERVIEW). */
struct net_backend {
	const struct net_backend_ops *ops; /* set by open */
	uint32_t link_base;		   /* set by the network layer: its id of our link 0 */
	uint32_t index;			   /* set by the network layer: our place among its backends */
};

/* The backend struct `type` whose member `member` (a struct net_backend) is at b. */
#define net_backend_of(b, type, member) ((type *)(void *)((char *)(b)-offsetof(type, member)))

/* Called on the loop thread when rx would return datagrams. */
typedef void (*net_readable_fn)(struct net_backend *b, void *ctx);

struct net_backend_ops {
	const char *name;
	/*
	 * Open the links of cfg on loop; *ret is the base of the backend's
	 * state (freed by close), ops set, link_base and index 0. Returns 0
	 * or -errno (-ENODEV: no such interface, -EADDRNOTAVAIL: no usable
	 * link-local address on it yet).
	 */
	int (*open)(struct net_loop *loop, const struct net_backend_config *cfg, net_readable_fn readable,
		    void *ctx, struct net_backend **ret);
	/* Receive up to n datagrams into d[0..n); returns how many (0: none now) or -errno. */
	int (*rx)(struct net_backend *b, struct net_dgram *d, unsigned n);
	/*
	 * As rx, for a polling loop's turn (busy-poll instead of sleeping until
	 * readable): the cheapest look at the data path, so it may skip queues
	 * the readable callback still covers (the socket backend reads only its
	 * unicast sockets). NULL: the layer uses rx.
	 */
	int (*poll_rx)(struct net_backend *b, struct net_dgram *d, unsigned n);
	/*
	 * Send tx[0..n); returns how many left (in order; fewer than n: the
	 * rest would block or failed, *ret_err says why) or -errno.
	 */
	int (*tx)(struct net_backend *b, const struct net_tx *tx, unsigned n, int *ret_err);
	/* Join the multicast group on link `link` (multicast port). */
	int (*join)(struct net_backend *b, uint32_t link, const struct in6_addr *group);
	/* Links served: count, and the info of one. */
	uint32_t (*n_links)(const struct net_backend *b);
	const struct net_link_info *(*link)(const struct net_backend *b, uint32_t link);
	/* The backend's clock (monotonic ns; a NIC may give its own). */
	int64_t (*clock_ns)(struct net_backend *b);
	/* The own stack and device of a link (sddsctl stack); NULL ops or result: none. */
	const struct ip6s *(*stack)(const struct net_backend *b, uint32_t link);
	const struct netdev *(*netdev)(const struct net_backend *b, uint32_t link);
	/*
	 * Start closing: the backend stops calling readable and releases its
	 * handles; done(ctx) runs on the loop once all are gone and b is freed.
	 * done may be NULL. Accepts NULL b (then done is called at once).
	 */
	void (*close)(struct net_backend *b, void (*done)(void *ctx), void *ctx);
};

/* The backend registered under name ("socket"), or NULL. */
const struct net_backend_ops *net_backend_find(const char *name);

/* Names for messages: "socket" (comma-separated list, static storage). */
const char *net_backend_names(void);

#endif /* SDDS_DAEMON_NET_BACKEND_H */
