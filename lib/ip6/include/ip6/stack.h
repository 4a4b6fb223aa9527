/* SPDX-License-Identifier: MIT */
/*
 * stack.h - sddsd's own IPv6/UDP stack on one netdev (lib/netdev): an IPv6
 * host on one Ethernet link, enough of one to carry SNPS (snps-wire.md §1)
 * where no kernel stack sits above the NIC (the tap and uio-igb backends).
 *
 * OVERVIEW
 * lwIP's split is the model, one file per protocol:
 *   eth.c   Ethernet II: EtherType 0x86dd only, destination MAC filter
 *           (ours, 33:33 multicast of a joined group, broadcast dropped),
 *           the multicast MAC mapping 33:33 + the group's low 32 bits.
 *   ip6.c   header checks (version, payload length against the frame,
 *           source not multicast), extension headers walked with a limit on
 *           their number (IP6S_MAX_EXT_HDRS), no fragment reassembly:
 *           fragments are counted and dropped (SNPS frames fit one
 *           datagram), destination: one of our addresses or a joined group.
 *   icmp6.c echo reply; destination unreachable (port) and parameter problem,
 *           rate-limited by a token bucket; dispatch to nd6 and mld6.
 *   nd6.c   NS/NA, RS, RA (prefixes with SLAAC, MTU), the neighbor cache
 *           (RFC 4861 states INCOMPLETE, REACHABLE, STALE, DELAY, PROBE and
 *           their timers), packets queued while a neighbor resolves, DAD
 *           (RFC 4862) for every address it assigns.
 *   mld6.c  MLDv2 (RFC 3810): reports on join and leave of every group
 *           (solicited-node groups included), robustness retransmissions,
 *           answers to general and group-specific queries.
 *   udp6.c  checksum computed on send and verified on receive, ports
 *           demultiplexed to the bound receivers (SNPS: 23234 and 23254).
 *   stack.c the owner: init, input dispatch, the tx batch, counters.
 *
 * Memory: ip6s_new allocates the stack and every table (neighbor cache,
 * pending queue, groups, addresses) once; nothing after. Frames live in the
 * netdev's pool: input takes a received buffer and gives it back; output
 * allocates from the pool, fills and queues it on the tx batch, which
 * ip6s_flush hands to the device. A packet waiting for address resolution
 * holds its buffer (at most IP6S_PENDING_PER_NEIGH per neighbor, and the
 * configured total); every drop frees it.
 *
 * Timers: every timer (ND reachability and retransmission, DAD, RS, MLD
 * reports, address lifetimes, the ICMP bucket) is on the caller's
 * lib/timerq queue, dues on the clock of cfg.now, in ns. The caller runs
 * the queue; the stack arms and cancels only. A timer's frames (an NS, a
 * report) are handed to the device before its callback returns.
 *
 * Bad input: every frame is untrusted. A frame the stack cannot use is
 * dropped and counted by reason (enum ip6s_drop); nothing is logged,
 * nothing is answered to a multicast or unspecified source.
 *
 * Threads: none. One owner serialises every call (the daemon's loop).
 * Errors: 0 or -errno; out-parameters only on success.
 */
#ifndef SDDS_IP6_STACK_H
#define SDDS_IP6_STACK_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include <netdev/netdev.h>
#include <timerq/timerq.h>

/* Addresses one stack holds: link-local, configured and RA-derived. */
#define IP6S_MAX_ADDRS 8u
/* Addresses the config may give (ip6s_config.addrs). */
#define IP6S_MAX_STATIC 4u
/* Multicast groups joined at once (sDDS's six, solicited-node, spare). */
#define IP6S_MAX_GROUPS 32u
/* Extension headers walked per packet before it is dropped. */
#define IP6S_MAX_EXT_HDRS 8u
/* Packets held per neighbor while it resolves (RFC 4861 §7.2.2: at least one). */
#define IP6S_PENDING_PER_NEIGH 4u
/* UDP ports bound at once. */
#define IP6S_MAX_PORTS 4u
/* Default routers remembered from RAs. */
#define IP6S_MAX_ROUTERS 4u

/* Why an input frame (or an output packet) was dropped. */
enum ip6s_drop {
	IP6S_DROP_ETH_SHORT,	 /* shorter than an Ethernet header */
	IP6S_DROP_ETH_TYPE,	 /* not IPv6 (not 0x86dd) */
	IP6S_DROP_ETH_OTHER_MAC, /* unicast to another MAC, or an unjoined multicast MAC */
	IP6S_DROP_ETH_SRC_MCAST, /* a multicast source MAC */
	IP6S_DROP_OVERSIZE,	 /* larger than the device MTU allows */
	IP6S_DROP_IP6_SHORT,	 /* shorter than an IPv6 header */
	IP6S_DROP_IP6_VERSION,	 /* version is not 6 */
	IP6S_DROP_IP6_LEN,	 /* payload length disagrees with the frame */
	IP6S_DROP_IP6_SRC,	 /* multicast source address */
	IP6S_DROP_IP6_DST,	 /* not one of our addresses or joined groups */
	IP6S_DROP_IP6_EXT_CHAIN, /* extension headers too many, truncated or malformed */
	IP6S_DROP_IP6_FRAGMENT,	 /* a fragment: no reassembly */
	IP6S_DROP_IP6_PROTO,	 /* an upper protocol we do not speak */
	IP6S_DROP_ICMP6_SHORT,	 /* truncated ICMPv6 message */
	IP6S_DROP_ICMP6_CKSUM,	 /* bad ICMPv6 checksum */
	IP6S_DROP_ICMP6_TYPE,	 /* a type we ignore */
	IP6S_DROP_ICMP6_RATE,	 /* an error message we would send, over the rate limit */
	IP6S_DROP_ND_HLIM,	 /* ND message with a hop limit other than 255 */
	IP6S_DROP_ND_INVALID,	 /* ND message failing RFC 4861's validity checks */
	IP6S_DROP_ND_OPTION,	 /* bad, zero-length or duplicate ND option */
	IP6S_DROP_ND_NOENTRY,	 /* neighbor cache full */
	IP6S_DROP_ND_PENDING,	 /* no room to hold a packet while its neighbor resolves */
	IP6S_DROP_ND_UNRESOLVED, /* neighbor never answered: its held packets */
	IP6S_DROP_MLD_INVALID,	 /* MLD with hop limit != 1, off-link source or bad length */
	IP6S_DROP_UDP_SHORT,	 /* truncated UDP header */
	IP6S_DROP_UDP_LEN,	 /* UDP length disagrees with the IPv6 payload */
	IP6S_DROP_UDP_CKSUM,	 /* bad or zero UDP checksum */
	IP6S_DROP_UDP_PORT,	 /* no receiver bound to the port */
	IP6S_DROP_TX_NOBUF,	 /* output: the pool was empty */
	IP6S_DROP_TX_FULL,	 /* output: the device queue stayed full */
	IP6S_DROP_TX_NOROUTE,	 /* output: no source address or route for the destination */
	IP6S_DROP_MAX
};

/* Name of a drop reason for sddsctl ("udp_cksum"), or "?". */
const char *ip6s_drop_name(enum ip6s_drop why);

/* Per-protocol counters (packets in and out, as accepted or sent). */
struct ip6s_stats {
	uint64_t eth_in, eth_out;
	uint64_t ip6_in, ip6_out;
	uint64_t icmp6_in, icmp6_out;
	uint64_t echo_in, echo_out;
	uint64_t errors_out; /* ICMPv6 error messages sent */
	uint64_t ns_in, ns_out, na_in, na_out, rs_out, ra_in;
	uint64_t mld_query_in, mld_report_out;
	uint64_t udp_in, udp_out;
	uint64_t udp_runs_out; /* frames that carried a run of datagrams (ip6s_udp_send_run) */
	uint64_t dad_started, dad_failed;
	uint64_t drops[IP6S_DROP_MAX];
};

/* Address states (RFC 4862). */
enum ip6s_addr_state {
	IP6S_ADDR_TENTATIVE, /* DAD running: not used as a source, not answered for */
	IP6S_ADDR_PREFERRED,
	IP6S_ADDR_DEPRECATED, /* preferred lifetime over: kept, not chosen as a source */
	IP6S_ADDR_DUPLICATE,  /* DAD failed: never used */
};

enum ip6s_addr_origin {
	IP6S_ORIGIN_LINKLOCAL, /* fe80:: + EUI-64 of the MAC */
	IP6S_ORIGIN_STATIC,    /* the config's */
	IP6S_ORIGIN_RA,	       /* SLAAC from an RA's prefix */
};

struct ip6s_addr_info {
	struct in6_addr addr;
	uint8_t prefix_len;
	enum ip6s_addr_state state;
	enum ip6s_addr_origin origin;
	int64_t valid_until; /* ns on cfg.now's clock; INT64_MAX: forever */
};

/* Neighbor cache states (RFC 4861 §7.3.2). */
enum ip6s_neigh_state {
	IP6S_NEIGH_INCOMPLETE,
	IP6S_NEIGH_REACHABLE,
	IP6S_NEIGH_STALE,
	IP6S_NEIGH_DELAY,
	IP6S_NEIGH_PROBE,
};

struct ip6s_neigh_info {
	struct in6_addr addr;
	uint8_t mac[NETDEV_ETH_ALEN]; /* zero while INCOMPLETE */
	enum ip6s_neigh_state state;
	bool router;
	uint32_t pending; /* packets held for it */
};

struct ip6s_group_info {
	struct in6_addr addr;
	uint32_t refs; /* joins less leaves */
};

/* Name of a state for sddsctl ("REACHABLE", "tentative"). */
const char *ip6s_neigh_state_name(enum ip6s_neigh_state s);
const char *ip6s_addr_state_name(enum ip6s_addr_state s);

/* Things the owner hears about (cfg.event). */
enum ip6s_event {
	IP6S_EV_ADDR_READY, /* addr passed DAD (or has none to pass): usable */
	IP6S_EV_DAD_FAILED, /* another node has addr: the stack will not use it */
	IP6S_EV_ADDR_GONE,  /* addr's valid lifetime ended (RA-derived) */
	IP6S_EV_LINK,	    /* the link came up or went down (ip6s_link_changed) */
};

struct ip6s_config {
	struct netdev *dev; /* borrowed for the stack's life */
	struct timerq *tq;  /* borrowed: every timer of the stack goes on it */
	/* The clock of tq's dues, in ns (CLOCK_MONOTONIC for sddsd). */
	int64_t (*now)(void *ctx);
	/* 32 random bits (ND and MLD jitter, RFC 4861's random reachable time). */
	uint32_t (*random)(void *ctx);
	void (*event)(void *ctx, enum ip6s_event ev, const struct in6_addr *addr);
	/*
	 * Every frame received (out false, before any check) and sent (out
	 * true, as handed to the device), for a capture (sddsd's pcap = FILE).
	 * NULL: none.
	 */
	void (*capture)(void *ctx, bool out, const struct netdev_buf *b);
	void *ctx; /* for now, random, event and capture */
	/* Static addresses (prefix length 64 if 0), assigned after DAD. */
	struct in6_addr addrs[IP6S_MAX_STATIC];
	uint8_t prefix_lens[IP6S_MAX_STATIC];
	uint32_t n_addrs;
	bool accept_ra;		/* process RAs (prefixes, MTU, routers); default on */
	uint32_t dad_transmits; /* RFC 4862 DupAddrDetectTransmits; 0: no DAD */
	uint32_t neigh_cache;	/* entries (0: 64) */
	uint32_t pending_max;	/* packets held for unresolved neighbors in all (0: 64) */
	uint32_t icmp_rate;	/* ICMPv6 errors per second (0: 10), burst the same */
};

/* One received datagram (ip6s_udp_recv_fn). */
struct ip6s_udp_meta {
	struct in6_addr src, dst;
	uint16_t sport, dport; /* host order */
	uint8_t hlim;
	int64_t ts_ns; /* the frame's arrival time (netdev_buf.ts_ns) */
};

/* A datagram for port; payload valid during the call only. */
typedef void (*ip6s_udp_recv_fn)(void *ctx, const struct ip6s_udp_meta *m, const uint8_t *payload,
				 uint32_t len);

struct ip6s;

/* A stack on cfg->dev, stopped (no frame sent before ip6s_start); -ENOMEM, -EINVAL. */
int ip6s_new(const struct ip6s_config *cfg, struct ip6s **ret);
/*
 * Cancels every timer, frees every held packet and the tx batch back to
 * the pool, leaves every group (no report is sent: the caller may send the
 * leaves first with ip6s_leave) and frees s. NULL does nothing.
 */
void ip6s_free(struct ip6s *s);
/* Starts: link-local address and DAD, static addresses, RS, MLD for joined groups. */
void ip6s_start(struct ip6s *s);
/* The link went down or up: up restarts DAD and RS (RFC 4862 §5.4, RFC 4861 §6.3.7). */
void ip6s_link_changed(struct ip6s *s, bool up);

/* Processes one received frame; b goes back to the pool (input never keeps it). */
void ip6s_input(struct ip6s *s, struct netdev_buf *b);
/* Hands the queued output frames to the device; returns how many are still queued. */
unsigned ip6s_flush(struct ip6s *s);

/* Binds fn to UDP port (host order); -EADDRINUSE, -ENOSPC. */
int ip6s_udp_bind(struct ip6s *s, uint16_t port, ip6s_udp_recv_fn fn, void *ctx);
/*
 * Sends one datagram of len bytes: from src (NULL: the best preferred
 * address for dst, RFC 6724's scope rule) and sport, to dst:dport, hop
 * limit hlim (0: 1 for multicast, 64 for unicast). Queued on the tx batch
 * (ip6s_flush sends it) or held while dst's neighbor resolves. Returns 0,
 * -EMSGSIZE (over the MTU), -ENOBUFS (pool empty or nothing more may be
 * held), -EADDRNOTAVAIL (no usable source address yet: DAD runs),
 * -ENETUNREACH (off-link with no router), -ENETDOWN (link down),
 * -EINVAL (an unspecified or otherwise unusable destination).
 */
int ip6s_udp_send(struct ip6s *s, const struct in6_addr *src, uint16_t sport, const struct in6_addr *dst,
		  uint16_t dport, uint8_t hlim, const void *payload, uint32_t len);

/*
 * Sends n datagrams of len bytes each (payloads[0..n)) as ip6s_udp_send
 * would, one after another. On a device with NETDEV_CAP_TX_USO a run of
 * them leaves as one frame that the device cuts (netdev.h, gso_size): one
 * write on a TAP instead of n, as UDP_SEGMENT does for a kernel socket.
 * Without it, with a capture (it shows the frames of the wire) or for a
 * lone datagram, one frame each. *ret_sent: how many were taken; returns
 * 0, or the error of the first that was not (ip6s_udp_send's).
 */
int ip6s_udp_send_run(struct ip6s *s, const struct in6_addr *src, uint16_t sport, const struct in6_addr *dst,
		      uint16_t dport, uint8_t hlim, const void *const *payloads, uint32_t len, unsigned n,
		      unsigned *ret_sent);

/* Joins or leaves a multicast group (reference counted): MAC filter and MLD. */
int ip6s_join(struct ip6s *s, const struct in6_addr *group);
int ip6s_leave(struct ip6s *s, const struct in6_addr *group);

/* The link-local address (known from ip6s_new on: the MAC's EUI-64), true once it passed DAD. */
bool ip6s_linklocal(const struct ip6s *s, struct in6_addr *ret);

/* State, for sddsctl: each fills out[0..ret) with at most n entries. */
const struct ip6s_stats *ip6s_stats(const struct ip6s *s);
unsigned ip6s_addrs(const struct ip6s *s, struct ip6s_addr_info *out, unsigned n);
unsigned ip6s_neighbors(const struct ip6s *s, struct ip6s_neigh_info *out, unsigned n);
unsigned ip6s_groups(const struct ip6s *s, struct ip6s_group_info *out, unsigned n);
/* The link MTU now (the device's, or lower from an RA). */
uint32_t ip6s_mtu(const struct ip6s *s);

#endif /* SDDS_IP6_STACK_H */
