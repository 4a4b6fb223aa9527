/* SPDX-License-Identifier: MIT */
/*
 * discovery.h - SNPS multicast discovery as real sDDS nodes run it
 * (shared/docs/snps-wire.md §10), plus leases the real nodes lack.
 *
 * OVERVIEW
 * A pure state machine: no sockets, no clock, no allocation after
 * disc_new. The network layer (netif.c) feeds it the builtin samples it
 * decoded (with the frame's source, link and ADDRESS) and the time, and it
 * answers through two callbacks: `send` (one finished SNPS frame and where
 * it goes) and `changed` (the set of learnt data destinations moved, so
 * the layer rebuilds its per-topic destination lists).
 *
 * What it sends, byte for byte as the discovery capture (§7, §10.2-10.3):
 *   - DCPSParticipant {node id} with ADDRESS ff02::30 (or `08 10` in
 *     unicast mode) to ff02::20, at start, every participant_ms, and at
 *     once when a new participant is heard;
 *   - one DCPSPublication {writer index, node id, topic} per published
 *     topic, no ADDRESS, to ff02::30 (and to the unicast address a
 *     participant advertised), at start, every publication_ms and when a
 *     new participant is heard;
 *   - one DCPSSubscription {reader index, node id, topic} with ADDRESS
 *     ff02::10 (or `08 10` in unicast mode), in answer to every
 *     DCPSPublication of a topic we read, never periodically (§10.2).
 *
 * What it learns: a DCPSSubscription of a topic we publish adds a data
 * destination keyed (participant, topic): the group ff02::10 (multicast
 * mode) or the frame's source locator (unicast mode, §4.6).
 *
 * Beyond sDDS (§15.8-15.9): a repeated subscription refreshes its entry
 * instead of taking a new slot; both tables have caps and a full table is
 * counted, never grown; a participant not heard for expire_ms is removed
 * with its subscriptions, and a subscription whose participant never
 * announced itself expires on its own age. Node id 0 is refused (§9.4,
 * §15.10); a DCPSParticipant carrying our own id from another address is
 * a clash: counted, and it never enters the table.
 *
 * Threads: the loop thread owns it. Callbacks run inside the calls.
 */
#ifndef SDDS_DAEMON_NET_DISCOVERY_H
#define SDDS_DAEMON_NET_DISCOVERY_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include <snps/snps.h>

/* Where a frame goes, or where learnt data goes. */
struct disc_locator {
	bool group; /* ip is a multicast group, port is base + 20 */
	struct in6_addr ip;
	uint16_t port; /* host order */
	uint32_t link; /* the network layer's link id (one sequence over its backends) */
};

struct disc_participant {
	uint16_t id;
	bool adv_unicast;    /* advertised `08 10`: talk to its source */
	struct in6_addr src; /* its source address */
	uint16_t src_port;
	uint32_t link;
	int64_t last_ns;
};

struct disc_sub {
	uint16_t participant;
	uint16_t topic;
	struct disc_locator loc;
	int64_t last_ns;
};

struct disc_counters {
	uint64_t participants_new, participants_expired;
	uint64_t subs_new, subs_refreshed, subs_expired;
	uint64_t table_full; /* participants or subscriptions not kept: cap reached */
	uint64_t id_clash;   /* our node id heard from another address */
	uint64_t frames_out;
	uint64_t ignored; /* builtin samples not for us (other topics, id 0, ...) */
};

struct disc_callbacks {
	/* One finished frame (buf borrowed for the call) to send from port + 20 to dst on dst->link. */
	void (*send)(void *ctx, const uint8_t *buf, uint32_t len, const struct disc_locator *dst);
	/* The learnt destinations changed (disc_subs). */
	void (*changed)(void *ctx);
	void *ctx;
};

struct disc_options {
	uint16_t node_id;	 /* never 0 */
	uint16_t port;		 /* base port; announcements use port + 20 */
	uint32_t n_links;	 /* announcements go out on every link */
	uint32_t participant_ms; /* 0: only at start and on reaction */
	uint32_t publication_ms; /* 0: same */
	uint32_t expire_ms;	 /* 0: never (like real nodes) */
	bool unicast;		 /* advertise `08 10` instead of ff02::30 / ff02::10 */
	bool packs;		 /* end each Participant frame with STATUS SNPS_STATUS_PACKS */
	uint32_t max_participants;
	uint32_t max_subs;
	uint32_t max_frame;
	/* Topics we publish / read, in announcement order (writer / reader index). */
	uint16_t pub_topics[16];
	uint32_t n_pub;
	uint16_t sub_topics[16];
	uint32_t n_sub;
};

/* Defaults: periods 1000 / 5000 ms, expiry 5000 ms, 32 participants, 64 subscriptions, frame 128. */
void disc_options_init(struct disc_options *o);

struct disc;

/* Allocate the tables. -EINVAL (node id 0, no link, cap 0) or -ENOMEM. */
int disc_new(const struct disc_options *o, const struct disc_callbacks *cb, struct disc **ret);
void disc_free(struct disc *d); /* accepts NULL */

/* Start-up announcements (§10.2): a Participant and every Publication. */
void disc_start(struct disc *d, int64_t now_ns);
/* Periodic announcements and expiry; call at least every few hundred ms. */
void disc_tick(struct disc *d, int64_t now_ns);

/* A builtin sample of domain 1 from src:port on link; addr is the frame's
 * last ADDRESS before it (NULL: none). sample is borrowed for the call. */
void disc_receive(struct disc *d, int64_t now_ns, uint16_t topic, const uint8_t *sample, uint32_t len,
		  const struct snps_addr *addr, const struct in6_addr *src, uint16_t src_port, uint32_t link);

/* Learnt subscriptions (valid until the next call into d). */
const struct disc_sub *disc_subs(const struct disc *d, uint32_t *ret_n);
const struct disc_participant *disc_participants(const struct disc *d, uint32_t *ret_n);
const struct disc_counters *disc_counters(const struct disc *d);
uint16_t disc_node_id(const struct disc *d);

/* A node id from a link-local address: its last two bytes (the MAC's, for
 * EUI-64 addresses, as real Linux nodes use, §9.4); never 0. */
uint16_t disc_node_id_from_addr(const struct in6_addr *a);

#endif /* SDDS_DAEMON_NET_DISCOVERY_H */
