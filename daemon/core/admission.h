/* SPDX-License-Identifier: MIT */
/*
 * admission.h - who may hold a connection to sddsd: caps per uid on
 * connections that have not said Hello yet ("pending") and on sessions.
 *
 * OVERVIEW
 * Any local user may connect to the control socket, so without a share per
 * uid one user that keeps connecting (and reconnecting as the daemon hangs
 * up on it) fills every slot and locks everyone else out. This module is
 * the bookkeeping only: no sockets, no loop, no clock; the manager asks it
 * before it starts a session and tells it when one goes.
 *
 * Pending connections (between accept and Hello): an ordinary uid holds at
 * most max_pending_per_uid of them; a newcomer of a uid at its cap is
 * admitted and that uid's own oldest pending connection is dropped instead
 * (a flood only ever pushes out the flood). When the whole table
 * (max_pending) is full, the oldest pending connection of the uid holding
 * the most is dropped, provided that uid holds more than the newcomer's
 * uid does; otherwise the newcomer's uid holds the most itself and loses
 * its own oldest. Only with no pending connection at all to drop is a
 * newcomer refused. So a uid with fewer pending connections than the
 * biggest holder always gets in, and the shares even out. Trusted uids (root,
 * the daemon's uid, the configured launchers: the same set that may send
 * Attest) have max_pending as their own cap.
 *
 * Sessions (after Hello): at most max_sessions in all; an ordinary uid
 * holds at most max_sessions_per_uid, and ordinary uids together at most
 * max_sessions - reserved_sessions, so the reserve is left to trusted
 * uids (a launcher such as sdds-sandbox connects for every application it
 * runs, under its own uid). Sessions are never dropped to make room: a
 * Hello over a cap is refused.
 *
 * Descriptors: with an fd_budget, the table also counts as full when one
 * more connection would leave too few descriptors for a Hello (2 more),
 * and a Hello that would exceed the budget is refused; so a flood runs the
 * daemon out of its pending slots, never out of descriptors.
 *
 * Refusals and drops are counted per uid. A uid's record lives while it
 * has connections; afterwards it is kept for its counters, up to
 * ADMISSION_IDLE_MAX such records (the oldest is forgotten first; the
 * totals keep everything).
 *
 * Tickets: each connection embeds a struct admission_ticket. A ticket that
 * was dropped (returned as a victim) is already out of the counts; the
 * caller closes its connection and admission_leave on it is a no-op.
 */
#ifndef SDDS_DAEMON_ADMISSION_H
#define SDDS_DAEMON_ADMISSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#define ADMISSION_IDLE_MAX 64
#define ADMISSION_BUCKETS 256

struct admission_limits {
	uint32_t max_pending;	       /* max_handshakes */
	uint32_t max_pending_per_uid;  /* max_handshakes_per_uid, ordinary uids */
	uint32_t max_sessions;	       /* max_clients */
	uint32_t max_sessions_per_uid; /* max_clients_per_uid, ordinary uids */
	uint32_t reserved_sessions;    /* reserved_clients: for trusted uids only */
	/*
	 * Descriptors the connections may hold (a pending one 1, a session 3:
	 * socket, segment memfd, eventfd); 0: no limit. A newcomer that would
	 * leave no room for one Hello is admitted only by dropping (pressure).
	 */
	uint32_t fd_budget;
};

enum admission_state { ADMISSION_NONE, ADMISSION_PENDING, ADMISSION_SESSION };

struct admission_uid;

struct admission_ticket {
	TAILQ_ENTRY(admission_ticket) link; /* the uid's pending list, oldest first */
	struct admission_uid *u;
	enum admission_state state;
};
TAILQ_HEAD(admission_ticket_list, admission_ticket);

struct admission_uid {
	LIST_ENTRY(admission_uid) hash_link;
	TAILQ_ENTRY(admission_uid) all_link;  /* admission.uids */
	TAILQ_ENTRY(admission_uid) idle_link; /* admission.idle while no connections */
	uid_t uid;
	bool trusted;
	bool idle;
	uint32_t n_pending, n_sessions;
	uint64_t dropped;	/* pending connections dropped to make room */
	uint64_t refused;	/* connections refused before Hello */
	uint64_t hello_refused; /* Hello refused: a session cap */
	struct admission_ticket_list pending;
};
TAILQ_HEAD(admission_uid_list, admission_uid);
LIST_HEAD(admission_bucket, admission_uid);

struct admission {
	struct admission_limits lim;
	struct admission_bucket buckets[ADMISSION_BUCKETS];
	struct admission_uid_list uids; /* every record, oldest first */
	struct admission_uid_list idle; /* records without connections, oldest first */
	uint32_t n_uids, n_idle;
	uint32_t n_pending, n_sessions;
	uint32_t n_ordinary_sessions;		  /* sessions of uids that are not trusted */
	uint64_t dropped, refused, hello_refused; /* totals, forgotten records included */
};

void admission_init(struct admission *a, const struct admission_limits *lim);
/* Free every record; tickets still held must not be used afterwards. */
void admission_fini(struct admission *a);

/*
 * A new connection of uid (trusted: see OVERVIEW). pressure: out of
 * descriptors, so admit only by dropping a pending connection, as if the
 * table were full. Returns 0 with t pending and *ret_victim the ticket of
 * a connection the caller must close now (or NULL); -EBUSY when the
 * newcomer is refused (counted); -ENOMEM. t must be in state NONE.
 */
int admission_connect(struct admission *a, uid_t uid, bool trusted, bool pressure, struct admission_ticket *t,
		      struct admission_ticket **ret_victim);

/*
 * The pending connection t said Hello: 0 and t is a session, or -ENOSPC
 * (counted) with why set to a reason for the client and t still pending.
 */
int admission_hello(struct admission *a, struct admission_ticket *t, char *why, size_t why_size);

/* The connection of t is gone (any state; NONE is a no-op). */
void admission_leave(struct admission *a, struct admission_ticket *t);

/* Count a connection of uid that could not even be looked at (no descriptors). */
void admission_count_refused(struct admission *a, uid_t uid, bool trusted);

/* The record of uid, or NULL. */
const struct admission_uid *admission_find(const struct admission *a, uid_t uid);

#endif /* SDDS_DAEMON_ADMISSION_H */
