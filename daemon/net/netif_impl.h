/* SPDX-License-Identifier: MIT */
/*
 * netif_impl.h - the network layer's private state, shared by its files
 * only (not installed; nothing outside daemon/net/netif*.c includes it).
 * The public interface is netif.h.
 *
 * OVERVIEW
 * Who owns what:
 * - netif.c: the life cycle (netif_options_init, netif_new, netif_start,
 *   netif_close, netif_free, netif_reset), the backends (be[], opened in
 *   config order, closed together; each backend's state is its own, the
 *   layer holds its base) and the link ids (link_be[], each backend's
 *   link_base: link id l is backend link_be[l]'s link l - link_base; a
 *   datagram's link is made a link id as it is received, a tx slot keeps
 *   the link id it leaves on), the accessors, and every libuv
 *   handle of the layer: the prepare handle, and the one libuv timer and
 *   wake-up that drive the layer's timer queue (tq: lib/timerq, dues in
 *   netif_now's ns). The queue holds the reliability round (rel_t, every
 *   NETIF_REL_RTO_MS while there is work: netif_rel_timer_on/off), the
 *   backlog's retry (retry_t, netif_retry_timer) and discovery's tick
 *   (disc_t: netif_tick, announcements and expiry); the same queue, the
 *   same code, in sddsd and in a monolithic application's network thread.
 *   A timer may be armed from any thread that holds the owner's lock
 *   (netif_timer_arm); only the loop's thread runs them.
 * - netif_txpool.c: the frame pool. NETIF_TX_SLOTS buffers of max_frame
 *   bytes (tx_mem), each either a frame being built (tx_frame[i], open for
 *   peer tx_peer[i] or finished, tx_peer[i] == -1) or finished bytes
 *   (tx_raw[i], discovery's frames). The pool owns the buffers; a net_tx
 *   points into them and the backend borrows them for the tx call only.
 *   netif_tx_send finishes every frame and hands the batch to the backend;
 *   it runs at the end of each turn (netif_flush) or when the pool is full.
 * - netif_relwriter.c: the writer side of reliability: the ACK window of
 *   each reliable topic (win[], NETIF_REL_WINDOW entries) and the history
 *   of each NACK topic (hist[], hist_cap entries): numbering, resends on
 *   timeout, answers to NACKs, heartbeats, ACKs taken.
 * - netif_relreader.c: the reader side: the sequence filter of reliable
 *   and numbered best-effort streams (per peer and topic, in struct
 *   net_peer), the ACKs it sends, and the NACK receive streams (nrx[]):
 *   reorder rings (nrx[i].data, owned by the layer), NACK rounds, give-up.
 * - netif_rx.c: receive dispatch: the receive buffers (rx_mem, lent to the
 *   backend for one rx call), the checks of a datagram, the codec's lookup
 *   and visit callbacks, drop accounting, polling.
 * - netif_bridge.c: the bridge between broker and wire: the topics (their
 *   broker topic, writer, reader and reader ring, owned by the topic), the
 *   destinations of each topic, the reader notify that drains a ring into
 *   frames, and the backlog (bl, bl_data) of samples waiting for full
 *   reliable local readers; discovery's set-up and its changed callback.
 *
 * Invariants:
 * - Every sample that leaves for the network was read from one of our
 *   reader rings, or came from the network on another link (forward on,
 *   netif_take), and every sample from the network is written by one of
 *   our writers with skip_owner NETIF_OWNER: no sample goes back to the
 *   link it came from.
 * - The backlog is FIFO over all topics and, while it holds anything, new
 *   samples from the network queue behind it: local readers see each
 *   peer's samples in the order they arrived.
 * - A peer's open frame sits in a tx slot (tx_slot >= 0) only between the
 *   notify that started it and the next netif_flush / pool flush; a frame
 *   holds samples of one topic, and only one unless the peer packs
 *   (peer_pack): a real node's receiver runs its callback once per frame
 *   and takes one sample (snps-wire.md §15.17), so a second would be lost.
 * - No allocation after netif_new: frame slots, receive buffers, rings,
 *   the backlog and the peer table are sized there (netif_reset, a test
 *   entry point, makes the discovery state and the topics' readers again).
 * - netif_reset puts back every member of struct netif and struct
 *   netif_topic that changes after netif_new: a new member that does must
 *   be handled there too (the fuzz_netif reset check compares a reset
 *   layer with a fresh one).
 * - Discovery (discovery.h): a topic's destinations are its static
 *   subscribers followed by the learnt ones, rebuilt from the node config
 *   and the discovery table whenever that table changes or a peer is
 *   removed; peers are removed only in netif_tick, after the pending frames
 *   went out, so no open frame ever points at a moved peer. A rebuild gives
 *   up the ACK windows (destination indices change).
 *
 * What the reliability windows guarantee:
 * - ACK (reliable topics): at most NETIF_REL_WINDOW (7) samples of a topic
 *   are unacknowledged, fewer than half the 4-bit number space, so a
 *   receiver tells a resend from a new sample; each is resent every
 *   NETIF_REL_RTO_MS to the unicast destinations that still owe its ACK,
 *   at most NETIF_REL_MAX_TRIES times, then given up (counted). While the
 *   window is full, samples wait in the topic's ring (they may be
 *   overwritten there, counted in local_overwritten). Groups get best
 *   effort. A receiving reliable stream takes only the next number; a
 *   sample past a gap waits for its resend, up to NETIF_SEQ_RESYNC.
 * - NACK topics: every sample sent is kept at least NETIF_NACK_HOLD_MS and
 *   at most hist_cap (half a receiver's reorder span) are kept, so every
 *   sample can be NACKed for that long and a receiver never mistakes a new
 *   number for an old one; each is resent at most NETIF_NACK_MAX_RESENDS
 *   times and a turn answers at most NETIF_NACK_TURN_BUDGET NACKs. A
 *   receiving stream delivers in order, NACKs each gap at once and every
 *   retry period, and gives a number up after NETIF_NACK_MAX_TRIES NACKs
 *   or NETIF_NACK_GIVEUP_MS (with at least NETIF_NACK_MIN_ROUNDS rounds).
 *
 * Threads: everything runs on the loop thread, except with
 * netif_options.threaded (monolithic mode), where a local writer's thread
 * also runs the reader notify and netif_tx_send, under the owner's broker
 * lock (hooks.enter / hooks.after around every callback of the layer).
 * That thread may arm and cancel timers on the queue (under the lock);
 * when one is due before the libuv timer, it wakes the loop, which sets
 * the libuv timer again.
 */
#ifndef SDDS_DAEMON_NET_NETIF_IMPL_H
#define SDDS_DAEMON_NET_NETIF_IMPL_H

#include "netif.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gaptrack.h"
#include "netloop_uv.h"
#include "ring.h"
#include <snps/snps.h>
#include <timerq/timerq.h>
#include "ipc/probes.h"

#define NETIF_RX_BATCH 32u

#define NETIF_TX_SLOTS 64u

#define NETIF_BACKLOG_RETRY_MS 10

#define NETIF_DISC_TICK_MS 100

/* Reliable topics toward the wire (§11.3): at most this many unacknowledged
 * samples, below half the 4-bit number space so a receiver tells a resend
 * from a new sample; resent after NETIF_REL_RTO_MS without every ACK. */
#define NETIF_REL_WINDOW 7u

#define NETIF_REL_RTO_MS 10

#define NETIF_REL_MAX_SAMPLE 128u

/* A destination that never ACKs must not hold a topic for ever: a sample is
 * given up after this many resends (2 s at the 10-ms timeout). */
#define NETIF_REL_MAX_TRIES 200u

/*
 * NACK reliability (§11.3, confirmationtype="nack"). Publisher: the last
 * samples of a topic are kept for resends, each for NETIF_NACK_HOLD_MS at
 * least; while the history is full of younger ones, the rest waits in the
 * topic's ring (the rate limit that keeps every sample NACKable). After
 * NETIF_NACK_HB_MS without a new sample the newest is sent again, then
 * after 40, 80, 160 and every 320 ms, for NETIF_NACK_HB_SPAN_MS (tail
 * loss; a receiver that has it drops the duplicate). Each kept sample is
 * resent at most NETIF_NACK_MAX_RESENDS times and a turn answers at most
 * NETIF_NACK_TURN_BUDGET NACKs (bogus floods). Receiver: per (source,
 * topic) stream a gap tracker (gaptrack.h): a missing number is NACKed when
 * found and every NETIF_NACK_RETRY_MS (twice the measured round trip when
 * that is longer, NETIF_NACK_MIN_ROUNDS rounds in NETIF_NACK_GIVEUP_MS at
 * least), NETIF_NACK_MAX_TRIES times, or for NETIF_NACK_GIVEUP_MS when it
 * had NETIF_NACK_MIN_ROUNDS NACKs, then given up.
 */
#define NETIF_NACK_HIST 128u

#define NETIF_NACK_HOLD_MS 500

#define NETIF_NACK_HB_MS 20

#define NETIF_NACK_HB_SPAN_MS 5000

#define NETIF_NACK_MAX_RESENDS 64u

#define NETIF_NACK_TURN_BUDGET 1024u

#define NETIF_NACK_RETRY_MS 10

#define NETIF_NACK_MAX_TRIES 40u

#define NETIF_NACK_GIVEUP_MS 400

#define NETIF_NACK_MIN_ROUNDS 10u

#define NETIF_NACK_STREAMS 16u

#define NETIF_NACK_PER_FRAME 24u

/*
 * A stream whose samples arrive this many times in a row further behind
 * than its span is taken up again where they are: its publisher restarted,
 * or a forged number far ahead moved the stream (gaptrack_jump) and would
 * otherwise silence it for up to half the number space.
 */
#define NETIF_NACK_RESTART 8u

/* A kept sample of a NACK topic. */
struct netif_nack_ent {
	uint32_t seq;
	uint16_t resends;
	int64_t sent_ns; /* first send */
	uint8_t data[NETIF_REL_MAX_SAMPLE];
};

/* The receive state of one (source, topic) NACK stream. */
struct netif_nack_rx {
	bool used;
	uint32_t topic;	     /* index into topics */
	struct net_addr src; /* the publisher's locator: NACKs go there (port of its last frame) */
	uint32_t link;	     /* the link id its data came in on */
	bool mcast;	     /* its data came in on the multicast socket: answer from there */
	uint8_t bits;	     /* number size of the stream */
	int64_t seen_ns;     /* last sample, for reuse of the slot */
	int64_t nacked_ns;   /* last NACK round */
	/*
	 * The next number as the retry round last saw it, by its position
	 * (g.passed), not its value: a 4-bit number comes round again every
	 * 16 samples, and a new gap on the same value is a new head.
	 */
	uint64_t head_pos;
	bool head_known;
	int64_t head_ns;     /* when the retry round first saw head_pos next */
	int64_t rtt_ns;	     /* smoothed NACK-to-fill time, 0: none yet */
	uint32_t far_behind; /* samples in a row further behind than the span (NETIF_NACK_RESTART) */
	struct gaptrack g;
	uint8_t *data; /* GAPTRACK_MAX_CAP samples of max_sample bytes, owned by the netif */
};

struct netif_topic {
	struct nodecfg_topic cfg;
	struct snps_field fields[BROKER_MAX_FIELDS];
	struct snps_layout layout;
	struct broker_topic *bt;
	struct broker_writer *w;
	struct broker_reader *r;
	void *ring_mem; /* owned, the reader ring */
	struct rring_cons cons;
	uint32_t dests[NODECFG_MAX_DESTS]; /* peer indices */
	uint32_t n_dests;
	struct netif *n;
	/* Reliable topics: the window of unacknowledged samples, oldest first. */
	struct {
		uint8_t seq;
		uint16_t tries;	  /* resends so far */
		uint64_t pending; /* bit per dests[] index still owing its ACK */
		uint8_t data[NETIF_REL_MAX_SAMPLE];
	} win[NETIF_REL_WINDOW];
	uint32_t win_head, win_n;
	uint8_t next_seq;
	int64_t sent_ns; /* last (re)send of the window */
	bool rel;	 /* reliable in the node config, unicast destinations tracked */
	/* NACK topics (nack): the history of the last samples sent, oldest first. */
	bool nack;
	struct netif_nack_ent *hist; /* hist_cap entries, owned */
	uint32_t hist_cap, hist_head, hist_n;
	uint32_t nack_next; /* number of the next sample */
	int64_t last_tx_ns; /* last new sample or heartbeat */
	int64_t newest_ns;  /* first send of the newest kept sample */
	uint32_t hb_sent;   /* heartbeats of the newest sample so far */
};

struct netif_backlog_ent {
	uint32_t topic;
	uint32_t len;
};

struct netif {
	uv_loop_t *loop;
	struct broker *broker;
	struct netif_options opt;
	struct nodecfg node;
	struct netif_hooks hooks;
	/* The backends, in config order; be[k] NULL: closed (ops[k] stays, for names). */
	const struct net_backend_ops *ops[NET_MAX_BACKENDS];
	struct net_backend *be[NET_MAX_BACKENDS];
	uint32_t n_be;
	/* Link ids: link l is be[link_be[l]]'s link l - be[link_be[l]]->link_base. */
	uint32_t n_links;
	uint8_t link_be[NETIF_MAX_LINKS];
	bool closing;

	struct netif_topic topics[NODECFG_MAX_TOPICS];
	uint32_t n_topics;
	int8_t topic_of_id[16]; /* topic id -> index, -1 none */
	uint32_t max_sample;

	struct peer_table peers;
	struct in6_addr swap[64];
	uint32_t n_swap;
	struct in6_addr pack[64];
	uint32_t n_pack;

	/* tx: a pool of frame buffers, each max_frame bytes. */
	uint8_t *tx_mem;
	struct snps_frame tx_frame[NETIF_TX_SLOTS];
	struct net_tx tx[NETIF_TX_SLOTS];
	int32_t tx_peer[NETIF_TX_SLOTS];  /* peer index of the slot's open frame, -1 finished */
	uint32_t tx_link[NETIF_TX_SLOTS]; /* link id the slot leaves on (picks the backend) */
	bool tx_raw[NETIF_TX_SLOTS];	  /* finished bytes (discovery), not a builder */
	uint32_t tx_used;

	/* rx */
	uint8_t *rx_mem;
	struct net_dgram rx[NETIF_RX_BATCH];
	uint8_t *sample_buf;			  /* max_sample bytes: swap target, ring take */
	uint8_t builtin_buf[SNPS_STATELESS_SIZE]; /* swap target of builtin samples */

	/* network -> local, waiting for full reliable readers */
	struct netif_backlog_ent *bl;
	uint8_t *bl_data; /* backlog_cap * max_sample */
	uint32_t bl_head, bl_n;
	struct broker_reader *bl_blocker; /* wait_space announced on it */

	uv_prepare_t prepare;
	bool handles_open;

	/*
	 * Timers: every timer of the layer is on one queue (lib/timerq, dues
	 * in netif_now's ns), run by one libuv timer set for the queue's head
	 * (tq_timer, programmed in netif_timers_program). A timer armed off the
	 * loop's thread (a monolithic application's writer) wakes the loop
	 * (tq_wake) when it is due before what tq_timer is set for; the owner's
	 * lock serialises the queue.
	 */
	struct timerq tq;
	struct timerq_timer rel_t;   /* resends, NACK rounds, heartbeats: while there is work */
	struct timerq_timer retry_t; /* the backlog's retry: while samples wait */
	struct timerq_timer disc_t;  /* discovery's announcements and expiry, peers' expiry */
	bool rel_on;		     /* rel_t runs every NETIF_REL_RTO_MS */
	uv_timer_t tq_timer;
	uv_async_t tq_wake;
	int64_t tq_programmed; /* the due tq_timer is set for; INT64_MAX: stopped */
	pthread_t loop_thread; /* runs the loop (netif_new's caller, or its first callback) */

	struct disc *disc; /* NULL: static mode */

	struct netif_nack_rx nrx[NETIF_NACK_STREAMS]; /* data allocated only with NACK topics */
	uint32_t nack_budget;			      /* NACK answers left this turn */

	struct netif_counters c;
};

/*
 * §11.3 receive filter, per (source, topic): take a sample whose seqnr is
 * ahead of the last one taken by less than half the number space (so a
 * wrap and a publisher restart after half a cycle both pass), drop the
 * others (duplicates of a resend, stale reordering).
 */
enum netif_seq_verdict { NETIF_SEQ_TAKE, NETIF_SEQ_DUP, NETIF_SEQ_GAP };

/*
 * For a reliable topic only the next number is taken once the stream is
 * known: a sample past a gap waits for the resend of the missing one
 * (not ACKed, so its sender keeps it), unless NETIF_SEQ_RESYNC of them came
 * in a row (a real sender's slot expired, §11.3: the gap never fills).
 */
#define NETIF_SEQ_RESYNC 64u

/* netif_txpool.c */
void netif_tx_send(struct netif *n);
struct snps_frame *netif_tx_direct(struct netif *n, const struct net_addr *dst, uint32_t link,
				   bool from_mcast);
int netif_tx_append(struct netif *n, uint32_t pi, const struct netif_topic *t, const uint8_t *sample,
		    bool swap, const struct snps_seqnr *seq);
void netif_disc_send(void *ctx, const uint8_t *buf, uint32_t len, const struct disc_locator *dst);
void netif_buffers_init(struct netif *n);

/* netif_relwriter.c */
void netif_rel_push(struct netif *n, struct netif_topic *t, const uint8_t *sample);
bool netif_nack_room(struct netif_topic *t, int64_t now);
void netif_nack_push(struct netif *n, struct netif_topic *t, const uint8_t *sample, int64_t now);
void netif_nack_answer(struct netif *n, struct netif_topic *t, const struct net_addr *src, uint32_t link,
		       bool mcast, uint32_t seq);
void netif_rel_ack(struct netif *n, struct netif_topic *t, const struct net_addr *src, uint32_t seq);
void netif_rel_resend(struct netif *n);

/* netif_relreader.c */
enum netif_seq_verdict netif_seq_check(struct netif *n, struct net_peer *p, uint16_t topic,
				       const struct snps_seqnr *s, bool strict);
void netif_send_ack(struct netif *n, const struct net_addr *src, uint32_t link, bool mcast, uint8_t domain,
		    uint16_t topic, const struct snps_seqnr *s);
void netif_nrx_sample(struct netif *n, uint32_t ti, const struct net_addr *src, uint32_t link, bool mcast,
		      const struct snps_seqnr *sq, const uint8_t *data);
bool netif_nrx_tick(struct netif *n, int64_t now);

/* netif_rx.c */
/* The readable callback's body for backend k: its datagrams, then the broker's flush. */
void netif_receive_from(struct netif *n, uint32_t k);
struct netif_topic *netif_topic_of(struct netif *n, uint32_t id);

/* netif_bridge.c */
void netif_topic_drain(struct netif *n, struct netif_topic *t);
void netif_take(struct netif *n, uint32_t ti, const uint8_t *data, uint32_t link);
bool netif_packs(const struct netif *n, const struct in6_addr *ip);
bool netif_swapped(const struct netif *n, const struct in6_addr *ip);
void netif_topic_fini(struct netif_topic *t);
int netif_topic_reader_new(struct netif *n, struct netif_topic *t);
int netif_topic_init(struct netif *n, struct netif_topic *t, const struct nodecfg_topic *cfg, char *why,
		     size_t why_len);
int netif_add_dests(struct netif *n, char *why, size_t why_len);
void netif_dests_rebuild(struct netif *n);
int netif_disc_init(struct netif *n, char *why, size_t why_len);

/* netif.c */
void netif_enter(struct netif *n);
int64_t netif_now(const struct netif *n);
bool netif_be_open(const struct netif *n);
void netif_timer_arm(struct netif *n, struct timerq_timer *t, int64_t due);
void netif_rel_timer_on(struct netif *n);
void netif_rel_timer_off(struct netif *n);
void netif_retry_timer(struct netif *n, bool on);

#endif /* SDDS_DAEMON_NET_NETIF_IMPL_H */
