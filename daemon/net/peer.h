/* SPDX-License-Identifier: MIT */
/*
 * peer.h - the network layer's table of remote SNPS nodes.
 *
 * OVERVIEW
 * A peer is one IPv6 address on one link (snps-wire.md §8.1: real nodes
 * tell peers apart by address only; the link is added because link-local
 * addresses repeat across links). Static peers come from the node config's
 * <subscriber>s and carry the port data goes to; dynamic peers are sources
 * the daemon heard from, kept for statistics. The table is one array
 * allocated at start (cap from the config): a full table stops adding
 * dynamic peers, never static ones (they are added first), and never
 * allocates on the packet path. Under discovery (discovery.h) dynamic
 * peers that fell silent are removed (peer_remove) and the group a
 * discovered subscriber asked for (ff02::10) is a peer of its own.
 *
 * Not thread-safe; the loop thread owns it.
 */
#ifndef SDDS_DAEMON_NET_PEER_H
#define SDDS_DAEMON_NET_PEER_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"

struct net_peer_counters {
	uint64_t frames_in, samples_in;
	uint64_t frames_out, samples_out;
	uint64_t malformed; /* datagrams from it that were dropped */
};

struct net_peer {
	struct net_addr addr; /* ip, link (ifindex) and, for static peers, the port data goes to */
	uint32_t link;	      /* the network layer's link id (one sequence over its backends) */
	bool is_static;
	bool group;	      /* a multicast group learnt by discovery (ff02::10), not a node */
	bool tx_mcast;	      /* data to it leaves from port + 20 (discovered destinations, §9.2) */
	bool swapped;	      /* §2 peer: integers little-endian on the wire */
	bool pack;	      /* takes several samples per frame (peer_pack); else one per frame */
	bool pack_heard;      /* announced that it does (SNPS_STATUS_PACKS: an sddsd) */
	int64_t last_seen_ns; /* 0: never heard from */
	uint16_t last_port;   /* source port of its last datagram */
	uint16_t topics_in;   /* bit per topic id it sent us */
	uint16_t topics_out;  /* bit per topic id we send it */
	/* Highest sequence number taken per topic id (§11.3: per source locator). */
	uint32_t rx_seq[16];
	uint16_t rx_seq_valid; /* bit per topic id */
	uint8_t rx_gap[16];    /* reliable samples past a gap in a row, per topic id */
	struct net_peer_counters c;
	/* Frame under construction this turn (netif.c), or -1. */
	int tx_slot;
	uint16_t tx_topic;
};

struct peer_table {
	struct net_peer *v; /* owned */
	uint32_t n, cap;
};

/* Allocate room for cap peers. Returns 0, -EINVAL (cap 0) or -ENOMEM. */
int peer_table_init(struct peer_table *t, uint32_t cap);
void peer_table_fini(struct peer_table *t); /* accepts a zeroed table */

/* The peer at (ip, ifindex), or NULL. */
struct net_peer *peer_find(struct peer_table *t, const struct in6_addr *ip, uint32_t ifindex);

/*
 * Add a peer (zeroed counters) or return the existing one at that address
 * in *ret. -ENOSPC when the table is full.
 */
int peer_add(struct peer_table *t, const struct net_addr *addr, uint32_t link, struct net_peer **ret);

/*
 * Remove the peer at index i: the last peer moves into its place, so the
 * caller rebuilds every index it keeps (netif rebuilds its destination
 * lists) and calls this only while no frame is open for any peer.
 */
void peer_remove(struct peer_table *t, uint32_t i);

#endif /* SDDS_DAEMON_NET_PEER_H */
