/* SPDX-License-Identifier: MIT */
/*
 * session.h - one connected client of sddsd.
 *
 * OVERVIEW
 * A session owns the client's control socket, its shared segment, its
 * eventfd, the broker objects it created (topic references, writers,
 * readers) and the arena ranges of its reader rings. All its tables are
 * allocated at Hello with the per-client caps of the config, so nothing a
 * client does later allocates on the data path and nothing grows past a cap.
 *
 * States: HANDSHAKE (connected; the first message must be Hello) -> READY.
 * A session that must go is marked dead (session_kill) and torn down later
 * by the manager (session_teardown), see manager.h "Deferred teardown".
 *
 * Ordering: control requests are handled after every record the client
 * published before them (the request ring is pumped first), so a
 * DeleteWriter never overtakes the writer's last samples. While the session
 * is stalled on a full reliable reader, its control socket is not read, and
 * a request whose pre-pump ran into the stall waits in pending_req: no
 * request is ever handled while a stalled record refers to a writer.
 *
 * Trust: everything from the client (control messages, ring records, its
 * indices) is checked; a violation disconnects this client alone and counts
 * in sessions_protocol_errors. Requests over a cap get -ENOSPC and the
 * client stays connected.
 *
 * Policy: the facts the access policy looks at (peer) are gathered once,
 * at accept; CreateWriter and CreateReader are checked against the
 * manager's current policy and refused with -EACCES (counted in denied and
 * rejected). An Attest request is accepted only as the first message of a
 * connection from a trusted uid (manager_may_attest); a refused Attest
 * gets -EPERM and the session goes on un-attested.
 *
 * Writer and reader ids: id = serial << bits | slot, where slot indexes the
 * session's table (2^bits entries) and serial counts creations from 1. A
 * record for an id that was issued but deleted since is dropped and counted
 * as rejected (the client may race its own delete); an id never issued is a
 * protocol error.
 */
#ifndef SDDS_DAEMON_SESSION_H
#define SDDS_DAEMON_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>
#include <uv.h>

#include "admission.h"
#include "arena.h"
#include "broker.h"
#include "control.pb-c.h"
#include "policy.h"
#include "ring.h"
#include "segment.h"

struct manager;

#define SESSION_NAME_MAX 64
/*
 * The pump routes up to SESSION_BATCH consecutive records of one writer in
 * one broker call when their payload fits SESSION_BATCH_STRIDE bytes
 * (larger records go one at a time): 4 KiB of copies per session.
 */
#define SESSION_BATCH 64u
#define SESSION_BATCH_STRIDE 64u
#define SESSION_HANDSHAKE_NS (5LL * 1000 * 1000 * 1000)

enum session_state { SESSION_HANDSHAKE, SESSION_READY };

struct session_writer {
	uint32_t id; /* 0: free slot */
	struct broker_writer *w;
};

struct session_reader {
	uint32_t id; /* 0: free slot */
	struct broker_reader *r;
	uint64_t range_off; /* in the arena */
	uint64_t range_len;
	uint32_t cap;
};

struct session {
	TAILQ_ENTRY(session) link;	 /* manager.sessions, until reaped */
	TAILQ_ENTRY(session) doom_link;	 /* manager.doomed when dead */
	TAILQ_ENTRY(session) hot_link;	 /* manager.hot when on_hot */
	TAILQ_ENTRY(session) stall_link; /* manager.stalled when on_stall */
	struct manager *m;
	enum session_state state;
	bool dead;
	bool on_hot, on_stall;
	bool armed;	 /* request ring data.waiters announced */
	bool ctl_paused; /* not reading control messages while stalled */

	uint32_t id; /* 0 until Hello */
	int fd;	     /* control socket, owned */
	int efd;     /* eventfd, owned, -1 before Hello */
	uv_poll_t ctl_poll;
	uv_poll_t evt_poll;
	bool evt_poll_open;
	unsigned open_handles; /* uv handles not yet closed; freed at 0 */

	pid_t pid;
	uid_t uid;
	gid_t gid;
	char name[SESSION_NAME_MAX];
	struct policy_peer peer;	/* identity facts, from accept (and Attest) */
	struct admission_ticket ticket; /* its place in the manager's admission counts */
	bool spoke;			/* a first message was received */
	int64_t created_ns;
	int64_t last_active_ns;

	/* Segment, and the values the daemon chose (never read back). */
	struct segment seg;
	struct sdds_seg_hdr *hdr;
	struct ring_cons req;
	uint64_t arena_off, arena_size;
	uint32_t max_record;
	uint32_t buf_cap; /* payload bytes rec_buf and stall_buf hold */
	uint8_t *rec_buf;
	uint8_t *stall_buf;
	/* SESSION_BATCH records of up to SESSION_BATCH_STRIDE payload bytes, copied out by the pump. */
	uint8_t *batch_buf;

	struct broker_topic **topics; /* handle = index + 1 */
	uint32_t n_topics, max_topics;
	struct session_writer *writers;
	uint32_t writer_bits, writer_serial, n_writers, max_writers;
	struct session_reader *readers;
	uint32_t reader_bits, reader_serial, n_readers, max_readers;
	struct arena arena; /* the segment's ranges for reader rings (arena.h) */

	/* The stalled record: its writer, its bytes in stall_buf, its blocker. */
	bool stalled;
	struct broker_writer *stall_w;
	uint32_t stall_len;
	struct broker_reader *stall_blocker; /* wait_space armed on it, or NULL */
	int64_t stall_deadline_ns;
	/*
	 * A control request read while the ring was pumped into a stall: it
	 * waits (owned here) until the stall resolves, so that it is handled
	 * after the records published before it, never alongside a stall.
	 */
	Sdds__Ctl__Request *pending_req;

	uint64_t rejected;		/* refused requests and records */
	uint64_t dropped;		/* samples this session's writers lost entirely */
	uint64_t denied;		/* requests the access policy refused */
	struct broker_counters retired; /* of endpoints deleted since: stats stay monotonic */
};

/*
 * Start a session on an accepted control socket (ownership of fd passes to
 * the session, also on failure: it is closed), if admission (admission.h)
 * lets its uid in; a pending connection it drops to make room is marked
 * dead. pressure: the daemon is out of descriptors (admission_connect).
 * Returns 0, -EBUSY (refused by admission, counted) or -errno.
 */
int session_new(struct manager *m, int fd, bool pressure);

/*
 * Pump the request ring: up to max_requests_per_turn records, routed through
 * the broker, released and flushed once per batch. final: the client is gone,
 * do not wait for room (stalls are resolved at once). Returns the number of
 * records consumed (>= 0).
 */
int session_pump(struct session *s, bool final);

/* Blocking mode: announce sleep; returns true if the ring was still empty. */
bool session_arm(struct session *s);

/* Re-announce the wait for room in the blocker's ring after a retry pass. */
void session_stall_rearm(struct session *s);

/* Mark dead (idempotent); protocol: count and log it as a protocol error. */
void session_kill(struct session *s, bool protocol, const char *why);

/* Free everything of a dead session; the struct goes when its handles closed. */
void session_teardown(struct session *s);

/* Bump the segment's heartbeat word. */
void session_heartbeat(struct session *s);

#endif /* SDDS_DAEMON_SESSION_H */
