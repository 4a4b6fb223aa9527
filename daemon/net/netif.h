/* SPDX-License-Identifier: MIT */
/*
 * netif.h - sddsd's network layer: a broker client inside the daemon that
 * bridges the local topics of the node config to SNPS peers.
 *
 * OVERVIEW
 * For every topic of the node config (nodecfg.h) the layer registers the
 * topic with its full layout (so a local client with another size or
 * layout for the same (domain, id) is refused by the broker, see
 * docs/DESIGN.md "The network side"), and holds
 *   - a broker reader, owner NETIF_OWNER, whose ring lives in daemon
 *     memory: local -> network. Its notify callback drains the ring into
 *     SNPS frames, one open frame per destination peer, several samples per
 *     frame while they fit in max_frame, one topic per frame (§15.16);
 *     frames are sent in one batch at the end of each loop turn (a
 *     uv_prepare handle), or earlier when the frame pool is full;
 *   - a broker writer: network -> local, written with skip_owner =
 *     NETIF_OWNER so a sample from the network never goes back out
 *     through the broker; with netif_options.forward the layer itself
 *     sends it on to the topic's destinations on the other links.
 *
 * Receive path: the backend's readable callback drains up to a budget of
 * datagrams per turn; each is checked (size <= max_frame, link-local
 * unicast source with a port, multicast only from port+20), decoded by the
 * SNPS codec (strict: exact count, known topics), and every sample checked
 * against its topic (domain, size, layout; swapped to canonical for a
 * peer_endian_swap peer) before it is written into the broker. Every
 * rejection is counted by reason (enum netif_drop); nothing rejected ever
 * reaches a client. When a local reliable reader is full, samples wait in a
 * bounded FIFO (backlog_cap) in arrival order, retried each turn and when
 * the reader's client makes room; a full FIFO delivers its oldest sample to
 * the readers with room (counted in backlog_forced).
 *
 * Links: the layer holds up to NET_MAX_BACKENDS backends at once (several
 * `socket` ones, later `tap`, `serial`) and numbers the links of all of
 * them in one sequence, the link ids that peers, discovery locators and
 * `sddsctl net` use; a datagram's ingress link and a destination's link
 * resolve to (backend, the backend's own link number).
 *
 * Ownership and threads: the layer owns its broker objects, rings, peer
 * table and the backends; everything runs on the loop thread, except with
 * netif_options.threaded (monolithic mode: client-lib/mono/mononet.c), where a
 * local writer's thread also runs the reader notify and sends, all under
 * the owner's broker lock. netif_close
 * starts closing the handles (the loop must run to finish), netif_free
 * releases the rest. Library code: it does not log; it counts, and the
 * hooks' owner (the manager) logs.
 */
#ifndef SDDS_DAEMON_NET_NETIF_H
#define SDDS_DAEMON_NET_NETIF_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "backend.h"
#include "broker.h"
#include "discovery.h"
#include <sddsxml/nodecfg.h>
#include "peer.h"

/* Owner id of the network layer's readers and writers (sessions count from 1). */
#define NETIF_OWNER 0xffffffffu

/* Why a datagram or a sample was dropped. The first SNPS_R_MAX_ values are
 * the codec's enum snps_reason (index 0 unused). */
enum netif_drop {
	NETIF_DROP_OVERSIZED = 16, /* datagram longer than max_frame */
	NETIF_DROP_BAD_SOURCE,	   /* not a link-local unicast source, or port 0 */
	NETIF_DROP_BAD_PORT,	   /* multicast not from port + 20 */
	NETIF_DROP_OWN,		   /* our own address (a loop) */
	NETIF_DROP_DOMAIN,	   /* sample's domain is not its topic's */
	NETIF_DROP_BAD_SAMPLE,	   /* sample does not fit its layout */
	NETIF_DROP_SECURE,	   /* SECURE submessage: no security here */
	NETIF_DROP_RX_ERROR,	   /* the backend failed to receive */
	NETIF_DROP_SEQ_SIZE,	   /* NACK topic sample with a SEQNR of another size than configured */
	NETIF_DROP_MAX_,
};

/* Short name of a drop reason ("count_high", "oversized"), static. */
const char *netif_drop_name(unsigned reason);

struct netif_counters {
	uint64_t frames_in, samples_in, bytes_in;
	uint64_t frames_out, samples_out, bytes_out;
	uint64_t tx_errors; /* datagrams the backend did not send */
	uint64_t malformed; /* datagrams dropped, any reason */
	uint64_t drops[NETIF_DROP_MAX_];
	uint64_t backlog_forced;    /* samples delivered past a full reliable reader */
	uint64_t peer_table_full;   /* sources not kept as peers (table full) */
	uint64_t local_overwritten; /* local samples the network reader lost */
	uint64_t peers_expired;	    /* dynamic peers removed after expire_ms of silence (discovery) */
	uint64_t dests_full;	    /* learnt destinations not added: peer table or topic list full */
	uint64_t seq_dropped;	    /* samples with a SEQNR not ahead of the last taken (duplicates, late) */
	uint64_t acks_out;	    /* ACKs sent for reliable topics (§11.3) */
	uint64_t acks_in;	    /* ACKs received for our reliable topics */
	uint64_t ack_bogus;    /* ACKs for a topic we do not publish reliably, other domain, unknown id */
	uint64_t resent;       /* reliable samples sent again after NETIF_REL_RTO_MS without ACK */
	uint64_t seq_resync;   /* reliable streams taken up again past a gap that never filled */
	uint64_t rel_given_up; /* reliable samples given up after NETIF_REL_MAX_TRIES resends */
	/* NACK reliability (confirmationtype="nack", §11.3). */
	uint64_t nacks_out;	  /* NACKs sent (one per missing number and round) */
	uint64_t nacks_in;	  /* NACKs received for a topic we publish with NACK reliability */
	uint64_t nack_resent;	  /* samples sent again on a NACK */
	uint64_t nack_unknown;	  /* NACKs for a number no longer (or never) kept: not answered */
	uint64_t nack_bogus;	  /* NACKs for a topic we do not publish so, other domain or seqnr size */
	uint64_t nack_limited;	  /* NACKs not answered: the sample's or the turn's resend budget is spent */
	uint64_t gaps_recovered;  /* missing numbers that arrived later (resend or reordering) */
	uint64_t gaps_given_up;	  /* missing numbers given up (never arrived after the NACKs) */
	uint64_t nack_heartbeats; /* newest sample repeated after an idle period (tail loss) */
	uint64_t forwarded;	  /* samples from one link sent on to another (netif_options.forward) */
};

/* Calls back into the daemon's loop layer. */
struct netif_hooks {
	/* A reader's client corrupted its ring (broker -EPROTO): disconnect it. */
	void (*kill_owner)(void *ctx, uint32_t owner, const char *why);
	/* End of every libuv callback of the layer (the manager reaps there). */
	void (*after)(void *ctx);
	/* A datagram or sample was dropped (for a rate-limited log); may be NULL. */
	void (*dropped)(void *ctx, unsigned reason, const struct net_addr *src);
	void *ctx;
	/* Start of every libuv callback of the layer, paired with `after`: a
	 * threaded owner takes its broker lock here (may be NULL). */
	void (*enter)(void *ctx);
};

/* Links of one network layer at most: every backend's. */
#define NETIF_MAX_LINKS (NET_MAX_BACKENDS * NET_MAX_LINKS)

/* One backend of the layer and the links it serves (interface names, borrowed for netif_new). */
struct netif_backend_options {
	const struct net_backend_ops *ops;
	const char *links[NET_MAX_LINKS];
	uint32_t n_links;
};

struct netif_options {
	/*
	 * The backends: backends[0..n_backends), opened in this order. The
	 * layer numbers the links of all of them in one sequence (link ids):
	 * backends[0]'s links first, in their order, then backends[1]'s...
	 * n_backends 0: one backend, `backend` on `links` (the form a
	 * single-backend owner fills; netconf fills both).
	 */
	struct netif_backend_options backends[NET_MAX_BACKENDS];
	uint32_t n_backends;
	const struct net_backend_ops *backend;
	const struct nodecfg *node; /* copied */
	const char *links[NET_MAX_LINKS];
	uint32_t n_links;
	uint32_t max_frame;		   /* frames toward peers stay below this (§6.6) */
	const struct in6_addr *swap_peers; /* peer_endian_swap addresses (copied) */
	uint32_t n_swap_peers;
	/* peer_pack addresses (copied): several samples per frame toward them; one toward any other. */
	const struct in6_addr *pack_peers;
	uint32_t n_pack_peers;
	uint32_t max_peers;
	uint32_t backlog_cap;	       /* samples waiting for full reliable readers */
	uint32_t reader_depth;	       /* slots of each local -> network ring (power of two) */
	uint32_t rx_budget;	       /* datagrams per readable callback */
	uint32_t rcvbuf, sndbuf;       /* socket queue bytes (backend.h) */
	bool gso;		       /* let the backend segment runs of frames (backend.h) */
	struct net_stack_config stack; /* the own-stack backends' settings (backend.h) */
	/*
	 * A bridge between links: a sample from the network also goes to its
	 * topic's destinations on the other links than the one it came in on
	 * (best effort, unnumbered; never back to its own link). Off: samples
	 * from the network reach local readers only.
	 */
	bool forward;
	/*
	 * The broker is shared with other threads (monolithic mode), every call
	 * into it under one lock that the hooks' enter/after take around the
	 * layer's callbacks and that other threads hold around their broker
	 * calls. Then a local write's notify sends its frames at once from the
	 * writer's thread (no loop turn to wait for). Timers need nothing of
	 * this: one armed from the writer's thread wakes the loop (netif_impl.h).
	 */
	bool threaded;
	/* Multicast discovery (discovery.h, snps-wire.md §10); off: static mode only. */
	struct {
		bool on;
		uint16_t node_id; /* 0: from the first link's address (§9.4) */
		uint32_t participant_ms, publication_ms;
		uint32_t expire_ms; /* 0: peers and subscriptions never expire */
		bool unicast;	    /* advertise `08 10` (data unicast to us) instead of ff02::10 */
		uint32_t max_subs;  /* learnt (participant, topic) subscriptions */
		/*
		 * End our Participant frames with STATUS SNPS_STATUS_PACKS, so that
		 * another sddsd packs samples to us (real nodes skip it).
		 */
		bool announce_pack;
	} disc;
};

/* Defaults: max_frame 128, 64 peers, backlog 4096, depth 4096, budget 256, rcvbuf 4 MiB, sndbuf 1 MiB, gso
 * on; discovery off, periods 1000 / 5000 ms, expiry 5000 ms, 64 subscriptions, announce_pack on. */
void netif_options_init(struct netif_options *o);

struct netif;

/*
 * Open the backends on loop, join the SNPS groups (§1) on every link,
 * register the topics and create the endpoints. Returns 0, or -errno with
 * *ret_why (static or in the layer's message buffer; may be NULL) saying
 * what failed; on failure everything made is undone (the caller runs the
 * loop once more for closed handles).
 */
int netif_new(uv_loop_t *loop, struct broker *b, const struct netif_options *o, const struct netif_hooks *h,
	      struct netif **ret, char *why, size_t why_len);

/* Stop the handles and the backends; run the loop, then netif_free. Accepts NULL. */
void netif_close(struct netif *n);
/* Free everything; accepts NULL. After netif_close and a loop run. */
void netif_free(struct netif *n);

/*
 * Put an open layer back into the state netif_new left it in, without
 * building it again (the fuzz target's per-input setup): no peers but the
 * static ones, empty rings, windows, histories, NACK streams and backlog,
 * counters at zero, discovery started afresh (its start-up announcements
 * queued again, at the backend's clock now), timers as at start. The
 * allocations and the broker topics and writers stay; each topic's reader
 * is made again on its emptied ring, so the broker lists it after readers
 * made since netif_new (make those again afterwards to keep the order of
 * a fresh start). The broker's own counters are not the layer's and keep
 * counting. Call between loop turns. Returns 0, or -ENOMEM / -EINVAL
 * (closing) with *why set (may be NULL); after a failure only netif_close
 * and netif_free may follow.
 */
int netif_reset(struct netif *n, char *why, size_t why_len);

/* A local reader is about to be freed: forget it as the backlog's blocker. */
void netif_reader_gone(struct netif *n, struct broker_reader *r);

/* End of a turn, as the prepare handle does it: retry the backlog, send frames. */
void netif_flush(struct netif *n);

/* Receive and handle what every backend has now (the readable callback's body). */
void netif_receive(struct netif *n);

/*
 * Busy-poll: the readable callback as the backend would call it, hooks
 * included (enter, receive without waiting, after), for an owner that
 * polls between loop turns instead of sleeping (sddsd's and a monolithic
 * application's polling mode). Accepts NULL.
 */
void netif_poll(struct netif *n);

/* Discovery's tick: resends of unacknowledged reliable samples; discovery's
 * announcements, expiry of subscriptions and of silent dynamic peers (the
 * layer's timer queue runs it every 100 ms, resends also every 10 ms while
 * there are any; tests call this). */
void netif_tick(struct netif *n);

/* The discovery state, or NULL when discovery is off. */
const struct disc *netif_discovery(const struct netif *n);

const struct netif_counters *netif_counters(const struct netif *n);
const struct peer_table *netif_peers(const struct netif *n);
const struct nodecfg *netif_node(const struct netif *n);

/* The node config's view of a topic (lib/sddsxml) as the broker's description. */
void netif_broker_desc(const struct nodecfg_desc *in, struct broker_topic_desc *out);
/* The first backend (NULL once closed), its name and ops. */
struct net_backend *netif_backend(const struct netif *n);
const char *netif_backend_name(const struct netif *n);
const struct net_backend_ops *netif_backend_ops(const struct netif *n);
/* Backends configured, and backend i (NULL once closed) and its ops (kept after close). */
uint32_t netif_n_backends(const struct netif *n);
struct net_backend *netif_backend_at(const struct netif *n, uint32_t i);
const struct net_backend_ops *netif_backend_ops_at(const struct netif *n, uint32_t i);
/* Links over all backends (0 once closed), and the info of link id `link` (NULL: none). */
uint32_t netif_n_links(const struct netif *n);
const struct net_link_info *netif_link(const struct netif *n, uint32_t link);
/* The backend of link id `link` (NULL: none or closed) and its own number of the link. */
struct net_backend *netif_link_backend(const struct netif *n, uint32_t link, uint32_t *ret_local);
uint32_t netif_max_frame(const struct netif *n);
uint32_t netif_backlog(const struct netif *n); /* samples waiting now */

/* Entries of the layer's fixed pools in use now (module tests check for leaks). */
struct netif_pool_usage {
	uint32_t tx_frames; /* frame buffers holding a frame not yet sent */
	uint32_t backlog;   /* received samples waiting for a full reader */
	uint32_t nack_rx;   /* NACK receive streams */
	uint32_t peers;	    /* peer table entries */
	uint32_t timers;    /* armed timers on the layer's queue */
};
void netif_pool_usage(const struct netif *n, struct netif_pool_usage *ret);

#endif /* SDDS_DAEMON_NET_NETIF_H */
