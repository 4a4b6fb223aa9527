/* SPDX-License-Identifier: MIT */
/*
 * stack_impl.h - the inside of struct ip6s and the functions the stack's
 * files (stack.c, eth.c, ip6.c, icmp6.c, nd6.c, udp6.c, cksum.c) call in
 * each other. Internal to lib/ip6; the unit tests and the fuzz target also
 * use the parser (ip6s_parse) and the checksum to check what the stack sent.
 *
 * OVERVIEW
 * One struct ip6s owns every table: addresses (slot 0 the link-local, then
 * the static ones, then RA-derived ones), the neighbor cache (allocated
 * once by ip6s_new), default routers and on-link prefixes (expired lazily
 * by comparing their deadline with now), bound UDP ports, the multicast MAC
 * filter's reference counts, the MLD state and the tx batch.
 *
 * Output path: a protocol allocates a buffer (ip6s_tx_alloc), writes its
 * message at ip6s_l4(b, router_alert), and hands it to ip6s_ip6_output,
 * which writes the IPv6 header (and the Router Alert hop-by-hop header),
 * fills the ICMPv6 or UDP checksum and passes it to nd6_output; nd6_output
 * finds the destination MAC (multicast mapping, the neighbor cache, or
 * holds the frame while the neighbor resolves) and queues it on the tx
 * batch (ip6s_tx_queue). Each of these takes the buffer in every case: on
 * an error it is freed and the drop counted.
 *
 * Input path: stack.c's ip6s_input hands the frame to eth.c (filter), then
 * ip6.c (parse, destination check, dispatch) and icmp6.c/udp6.c/nd6.c. The
 * frame stays the caller's; nothing keeps a pointer into it.
 *
 * Threads: none (see stack.h).
 */
#ifndef SDDS_IP6_STACK_IMPL_H
#define SDDS_IP6_STACK_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <ip6/stack.h>

#include "mld6.h"

/* Frames queued for the device before ip6s_flush (or an automatic flush). */
#define IP6S_TXQ_LEN 32u
/* The IPv6 header (RFC 8200 §3). */
#define IP6S_HLEN 40u
/* The hop-by-hop header that carries a Router Alert (RFC 2711): 8 bytes. */
#define IP6S_RA_HLEN 8u
/* Unicast ICMPv6 errors include the invoking packet up to the minimum MTU (RFC 4443 §2.4 c). */
#define IP6S_MIN_MTU 1280u
/* Default on-link prefixes remembered from RAs. */
#define IP6S_MAX_PREFIXES 8u

/* Next header values (IANA). */
#define IP6S_NH_HOPOPTS 0u
#define IP6S_NH_UDP 17u
#define IP6S_NH_ROUTING 43u
#define IP6S_NH_FRAGMENT 44u
#define IP6S_NH_ICMP6 58u
#define IP6S_NH_NONE 59u
#define IP6S_NH_DSTOPTS 60u

/* ICMPv6 types (RFC 4443 §2.1, RFC 4861 §4, RFC 3810 §5). */
#define ICMP6_DST_UNREACH 1u
#define ICMP6_PARAM_PROB 4u
#define ICMP6_ECHO_REQUEST 128u
#define ICMP6_ECHO_REPLY 129u
#define ICMP6_MLD_QUERY 130u
#define ICMP6_MLD_REPORT 131u
#define ICMP6_MLD_DONE 132u
#define ICMP6_ND_RS 133u
#define ICMP6_ND_RA 134u
#define ICMP6_ND_NS 135u
#define ICMP6_ND_NA 136u
#define ICMP6_ND_REDIRECT 137u
#define ICMP6_MLD2_REPORT 143u

/* ND option types (RFC 4861 §4.6). */
#define ND_OPT_SLLA 1u
#define ND_OPT_TLLA 2u
#define ND_OPT_PREFIX 3u
#define ND_OPT_MTU 5u

/* One parsed frame: views into the frame, valid while it is. */
struct ip6s_pkt {
	uint8_t dst_mac[NETDEV_ETH_ALEN], src_mac[NETDEV_ETH_ALEN];
	const uint8_t *ip; /* the IPv6 header */
	uint32_t ip_len;   /* header + payload length (Ethernet padding excluded) */
	struct in6_addr src, dst;
	uint8_t hlim;
	uint8_t proto;	   /* the upper-layer protocol after the extension headers */
	uint32_t nh_off;   /* offset from ip of the next header byte that names proto */
	const uint8_t *l4; /* the upper-layer message */
	uint32_t l4_len;
	unsigned n_ext;	   /* extension headers walked */
	bool router_alert; /* hop-by-hop Router Alert with value 0 (MLD, RFC 2711) */
};

struct ip6s_addr_slot {
	struct ip6s *s;
	struct in6_addr addr;
	uint8_t plen;
	bool used;
	bool sn_joined; /* holds a reference to its solicited-node group */
	enum ip6s_addr_state state;
	enum ip6s_addr_origin origin;
	int64_t valid_until, preferred_until; /* INT64_MAX: forever */
	uint32_t dad_left;		      /* DAD NS still to send */
	struct timerq_timer dad_t;	      /* next DAD NS, or the end of DAD */
	struct timerq_timer life_t;	      /* preferred or valid lifetime end */
};

struct ip6s_neigh {
	struct ip6s *s;
	struct in6_addr addr;
	uint8_t mac[NETDEV_ETH_ALEN];
	bool used, router;
	enum ip6s_neigh_state state;
	uint32_t probes;       /* NS sent in INCOMPLETE or PROBE */
	int64_t last_used;     /* for LRU replacement of STALE entries */
	struct timerq_timer t; /* the state's timer (RFC 4861 §7.3.2) */
	struct netdev_buf *pending[IP6S_PENDING_PER_NEIGH];
	uint32_t n_pending;
};

struct ip6s_router {
	struct in6_addr addr;
	int64_t until;
	bool used;
};

struct ip6s_prefix {
	struct in6_addr prefix;
	uint8_t plen;
	int64_t until;
	bool used;
};

struct ip6s_port {
	uint16_t port;
	bool used;
	ip6s_udp_recv_fn fn;
	void *ctx;
};

struct ip6s_mac_ref {
	uint8_t mac[NETDEV_ETH_ALEN];
	uint32_t refs;
};

struct ip6s {
	struct ip6s_config cfg;
	struct netdev *dev;
	struct timerq *tq;
	struct ip6s_stats st;
	bool started, link_up;
	uint32_t mtu;
	uint8_t cur_hlim;    /* unicast hop limit: 64 or the RA's Cur Hop Limit */
	uint32_t rand_state; /* when cfg.random is NULL */

	struct ip6s_addr_slot addrs[IP6S_MAX_ADDRS];

	struct ip6s_neigh *neigh;
	uint32_t n_neigh; /* table size */
	uint32_t pending_total, pending_max;
	int64_t reachable_ns; /* RFC 4861 ReachableTime: the base randomised */
	uint32_t base_reachable_ms;
	uint32_t retrans_ms;

	struct ip6s_router routers[IP6S_MAX_ROUTERS];
	struct ip6s_prefix prefixes[IP6S_MAX_PREFIXES];
	uint32_t rs_left;
	struct timerq_timer rs_t;

	struct ip6s_port ports[IP6S_MAX_PORTS];

	/* The 33:33 MACs the device lets in, reference counted (groups may share one). */
	struct ip6s_mac_ref macs[IP6S_MAX_GROUPS + 1];

	/* The ICMPv6 error token bucket, in ns of credit (RFC 4443 §2.4 f). */
	int64_t icmp_credit, icmp_last;

	struct mld6 mld;

	struct netdev_buf *txq[IP6S_TXQ_LEN];
	unsigned n_txq;
};

/* Big-endian loads and stores. */
static inline uint16_t ip6s_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint32_t ip6s_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void ip6s_wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
static inline void ip6s_wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Address classes (RFC 4291 §2.4). */
static inline bool ip6s_is_mcast(const struct in6_addr *a)
{
	return a->s6_addr[0] == 0xff;
}
static inline bool ip6s_is_unspec(const struct in6_addr *a)
{
	static const struct in6_addr zero;

	return memcmp(a, &zero, sizeof(*a)) == 0;
}
static inline bool ip6s_is_linklocal(const struct in6_addr *a)
{
	return a->s6_addr[0] == 0xfe && (a->s6_addr[1] & 0xc0) == 0x80;
}
static inline bool ip6s_addr_eq(const struct in6_addr *a, const struct in6_addr *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}
/* ff02::1:ffXX:XXXX for a (RFC 4291 §2.7.1). */
void ip6s_solicited_node(const struct in6_addr *a, struct in6_addr *ret);
/* Whether the first plen bits of a and b agree. */
bool ip6s_prefix_match(const struct in6_addr *a, const struct in6_addr *b, unsigned plen);
extern const struct in6_addr ip6s_all_nodes;   /* ff02::1 */
extern const struct in6_addr ip6s_all_routers; /* ff02::2 */

/* cksum.c: the Internet checksum (RFC 1071) over the IPv6 pseudo-header (RFC 8200 §8.1). */
uint32_t ip6s_csum_add(uint32_t sum, const uint8_t *p, uint32_t len);
/*
 * The checksum of an upper-layer message of len bytes: with its checksum
 * field zero, the value to store there; over a message that carries its
 * checksum, 0 when it is right.
 */
/* The pseudo-header's sum alone (len: the upper-layer length), folded, not inverted. */
uint16_t ip6s_pseudo_sum(const struct in6_addr *src, const struct in6_addr *dst, uint8_t proto, uint32_t len);
uint16_t ip6s_l4_cksum(const struct in6_addr *src, const struct in6_addr *dst, uint8_t proto,
		       const uint8_t *l4, uint32_t len);

/* eth.c */
void ip6s_eth_mcast_mac(const struct in6_addr *group, uint8_t mac[NETDEV_ETH_ALEN]);
/* Whether b passes the Ethernet checks (counted as eth_in); else *why. */
bool ip6s_eth_accept(struct ip6s *s, const struct netdev_buf *b, enum ip6s_drop *why);
/* Writes the Ethernet header of an IPv6 frame from our MAC to dst. */
void ip6s_eth_fill(struct ip6s *s, struct netdev_buf *b, const uint8_t dst[NETDEV_ETH_ALEN]);
/* Takes every MAC the stack added out of the device filter (ip6s_free). */
void ip6s_eth_filter_clear(struct ip6s *s);

/* ip6.c */
/*
 * Parses an Ethernet frame of len bytes as IPv6 (RFC 8200 §3, §4): 0 and
 * *p, or -EINVAL and *why. Structure only: no MAC or destination check.
 */
int ip6s_parse(const uint8_t *frame, uint32_t len, struct ip6s_pkt *p, enum ip6s_drop *why);
/* The rest of the input after eth.c: b stays the caller's. */
void ip6s_ip6_input(struct ip6s *s, const struct netdev_buf *b);
/* Our address slot for a, or NULL. */
struct ip6s_addr_slot *ip6s_addr_find(struct ip6s *s, const struct in6_addr *a);
/* Whether a may be used as a source and is answered for (preferred or deprecated). */
bool ip6s_addr_usable(const struct ip6s_addr_slot *a);
/* The source for dst (stack.h's rule), -EADDRNOTAVAIL. */
int ip6s_src_select(struct ip6s *s, const struct in6_addr *dst, struct in6_addr *ret);
/* Where the message of a tx buffer starts. */
static inline uint8_t *ip6s_l4(struct netdev_buf *b, bool router_alert)
{
	return b->data + NETDEV_ETH_HLEN + IP6S_HLEN + (router_alert ? IP6S_RA_HLEN : 0);
}
/*
 * Sends the l4_len-byte message at ip6s_l4(b, router_alert): IPv6 header,
 * checksum (ICMPv6 and UDP), then nd6_output (dst_mac non-NULL: to that
 * MAC without resolution). Takes b. 0, -EMSGSIZE, -ENOBUFS, -ENETUNREACH,
 * -ENETDOWN.
 */
int ip6s_ip6_output(struct ip6s *s, struct netdev_buf *b, const struct in6_addr *src,
		    const struct in6_addr *dst, uint8_t proto, uint8_t hlim, uint32_t l4_len,
		    bool router_alert, const uint8_t *dst_mac);

/* stack.c */
/* A tx buffer, or NULL (counted as IP6S_DROP_TX_NOBUF). */
struct netdev_buf *ip6s_tx_alloc(struct ip6s *s);
/* Queues a complete frame on the tx batch (flushing when full). Takes b. 0, -ENOBUFS, -ENETDOWN. */
int ip6s_tx_queue(struct ip6s *s, struct netdev_buf *b);
void ip6s_event(struct ip6s *s, enum ip6s_event ev, const struct in6_addr *addr);

/* icmp6.c */
void ip6s_icmp6_input(struct ip6s *s, const struct ip6s_pkt *p);
/*
 * Sends an ICMPv6 error about the packet p (RFC 4443 §2.4: never about an
 * error, a multicast or unspecified source, a multicast destination or
 * link-layer multicast, rate-limited).
 */
void ip6s_icmp6_error(struct ip6s *s, const struct ip6s_pkt *p, uint8_t type, uint8_t code, uint32_t pointer);

/* nd6.c */
int nd6_init(struct ip6s *s);
void nd6_fini(struct ip6s *s);
/* The link is usable: DAD of every address, RS. */
void nd6_start(struct ip6s *s);
/* The link went down: timers stop, neighbors and held packets go. */
void nd6_stop(struct ip6s *s);
/* NS, NA, RA (already checksummed). */
void nd6_input(struct ip6s *s, const struct ip6s_pkt *p);
/* Finds dst's MAC and queues b (see the OVERVIEW). Takes b. */
int nd6_output(struct ip6s *s, struct netdev_buf *b, const struct in6_addr *dst, const uint8_t *dst_mac);
/* The next hop for dst: 0, -ENETUNREACH. */
int nd6_nexthop(struct ip6s *s, const struct in6_addr *dst, struct in6_addr *ret);
/* Starts using a (DAD first when configured). */
void nd6_addr_start(struct ip6s_addr_slot *a);

/* udp6.c */
void ip6s_udp6_input(struct ip6s *s, const struct ip6s_pkt *p, int64_t ts_ns);

#endif /* SDDS_IP6_STACK_IMPL_H */
