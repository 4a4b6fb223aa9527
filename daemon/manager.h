/* SPDX-License-Identifier: MIT */
/*
 * manager.h - the one object of sddsd that owns everything: the libuv loop,
 * the listening control socket, the sessions, the broker, the signal
 * handlers and the timers.
 *
 * OVERVIEW
 * Threads: everything runs on the thread that calls manager_run(); only
 * manager_stop() may be called from another thread (or a signal handler is
 * not needed: SIGINT/SIGTERM are handled inside the loop).
 *
 * Lifetime: manager_new() binds the socket (or takes an inherited one, see
 * below), creates the broker and the handles; manager_run() serves until
 * SIGINT, SIGTERM or manager_stop(), then closes every session and handle
 * and returns; manager_free() releases the rest. A socket file the manager
 * created is removed at the end, if it is still the same file.
 *
 * Socket activation: when LISTEN_PID equals our pid and LISTEN_FDS >= 1,
 * fd 3 must be an AF_UNIX SOCK_SEQPACKET listening socket and is used
 * instead of binding (the variables are then removed from the environment).
 *
 * Wake-up scheme (blocking mode): every session has a uv_poll on its
 * control socket and one on its eventfd. A session that just moved data is
 * "hot" and pumped on every loop turn by a uv_idle handle for spin_ns; then
 * it announces that it sleeps (request ring data.waiters = 1, full fence,
 * re-check) and leaves the hot list. The client kicks the eventfd after a
 * publish that saw the announcement. Polling mode: the idle handle runs
 * always and pumps every session each turn; no announcement is ever made.
 *
 * Back-pressure: a session whose write is refused by a full reliable reader
 * keeps that record in a private stall slot and sits on the stall list. It
 * is retried when any eventfd fires (the blocking reader's client kicks its
 * own session after it consumed), every turn in polling mode, when a reader
 * goes away, and at the stall's deadline (max_blocking_ms), after which the
 * sample goes to the readers with room and counts as dropped for the full
 * one.
 *
 * Access policy and service manager (policy.h, notify.h): the policy is
 * loaded at start (a bad file stops the start) and again on SIGHUP (a bad
 * file is refused, logged with FILE:LINE, and the last good policy stays).
 * Endpoints that exist when a new policy is loaded are kept even if it
 * would deny them; the reload logs how many. READY=1 goes to NOTIFY_SOCKET
 * once the listening socket is polled, WATCHDOG=1 from a loop timer at
 * half of WATCHDOG_USEC (a stalled loop stops feeding it), RELOADING=1 and
 * READY=1 around a reload, STOPPING=1 at shutdown.
 *
 * Admission (admission.h): every accepted connection is counted under its
 * peer's uid (SO_PEERCRED) before a session is set up; a uid over its
 * share of connections without Hello loses its own oldest one, a full
 * table drops the oldest of the biggest holder, and a Hello over a
 * session cap is refused. Out of descriptors (EMFILE), the manager gives
 * up its reserve fd to accept the newcomer, lets admission drop a pending
 * connection of the biggest holder to make room (or refuses the newcomer),
 * and takes the reserve back; so accept never spins on a readable socket
 * and a flood of connections cannot hold every descriptor. At start the
 * soft RLIMIT_NOFILE is raised (up to the hard limit) to what the caps need.
 *
 * Deferred teardown: anything that decides a session must go (hang-up,
 * protocol error, a corrupted reader ring found while another session
 * writes) only marks it dead (session_kill). The loop tears dead sessions
 * down at the end of each libuv callback (manager_reap), when no pump or
 * broker call is on the stack, so no callee ever frees what its caller still
 * uses.
 */
#ifndef SDDS_DAEMON_MANAGER_H
#define SDDS_DAEMON_MANAGER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>
#include <uv.h>

#include "admission.h"
#include "broker.h"
#include "config.h"
#include "control.pb-c.h"
#include "notify.h"
#include "policy.h"

struct session;
struct netif;
TAILQ_HEAD(session_list, session);

struct manager {
	uv_loop_t loop;
	struct sddsd_config cfg;
	struct broker *broker;
	uint64_t epoch; /* random, non-zero, chosen at start */
	uid_t uid;	/* the daemon's uid (may read stats) */
	int64_t start_ns;
	uint32_t next_session_id;

	int listen_fd;
	bool listen_inherited;
	bool listen_paused; /* accept failed and the reserve fd could not help: wait */
	int reserve_fd;	    /* /dev/null, given up to accept one connection when out of fds */
	char sock_path[CONFIG_SOCKET_MAX];
	dev_t sock_dev;
	ino_t sock_ino;
	bool sock_created; /* we made the file: remove it at the end */

	uv_poll_t listen_poll;
	uv_timer_t listen_retry;
	uv_signal_t sig_int, sig_term;
	uv_timer_t heartbeat;
	uv_timer_t stall_timer;
	uv_idle_t idle;
	uv_async_t stop_async;
	bool idle_active;
	bool poll_moved;	/* polling: a pump moved records since the last clock read */
	int64_t poll_active_ns; /* polling: when records last moved (for poll_yield_ns) */
	bool stopping;
	bool retry_pending;	    /* stalled sessions should be retried next turn */
	int64_t stall_timer_due_ns; /* 0: not armed */

	/*
	 * Lists change only in ways a walker survives: a session leaves
	 * `sessions` and `hot` only in manager_reap (or, for `hot`, by the
	 * walker itself); `stalled` is walked over a snapshot (scratch).
	 */
	struct session_list sessions; /* every session until reaped, creation order */
	struct session_list hot;      /* blocking mode: pumped each turn */
	struct session_list stalled;  /* waiting for room in a reliable reader */
	struct session_list doomed;   /* dead, torn down by manager_reap */
	struct session **scratch;     /* max_clients entries, for the stall snapshot */
	uint32_t n_handshake;	      /* connected, no Hello yet */
	uint32_t n_ready;	      /* Hello done */

	uint64_t sessions_total;
	uint64_t sessions_protocol_errors;
	uint64_t sessions_over_limit;
	/* Caps per uid on pending connections and sessions (admission.h). */
	struct admission adm;

	/* Access policy: NULL means none (every topic open to every client). */
	struct policy *policy;
	uint64_t policy_denied;
	uint64_t policy_reloads;
	uint64_t policy_reload_failures;
	struct policy_denials denials;
	uv_signal_t sig_hup;
	/* Service manager notifications and the watchdog fed from the loop. */
	struct notify notify;
	uv_timer_t watchdog;

	/* The network side (daemon/net/netif.h); NULL when net is off. */
	struct netif *net;
};

/*
 * Create the manager from cfg (copied). Binds or inherits the listening
 * socket; logs what fails. Returns 0 and *ret, or -errno.
 */
int manager_new(const struct sddsd_config *cfg, struct manager **ret);

/* Serve until stopped. Returns 0 on a clean shutdown, or -errno. */
int manager_run(struct manager *m);

/* Ask a running manager to shut down; safe from any thread. */
void manager_stop(struct manager *m);

/* Free; accepts NULL. Call after manager_run returned (or instead of it). */
void manager_free(struct manager *m);

/* The path the control socket listens on (inherited: as bound by its owner). */
const char *manager_socket_path(const struct manager *m);

/* ---- for session.c: the loop layer's internal calls ---------------------- */

/* Pump hot sessions on the next turns (starts the idle handle if needed). */
void manager_mark_hot(struct manager *m, struct session *s);
/* Put s on the stall list and (re)arm the stall timer for its deadline. */
void manager_stall_add(struct manager *m, struct session *s);
void manager_stall_remove(struct manager *m, struct session *s);
/* A reader is about to be freed: forget it as a blocker of any stall. */
void manager_reader_gone(struct manager *m, struct broker_reader *r);
/* Live, established session with this id, or NULL. */
struct session *manager_find_session(struct manager *m, uint32_t id);
/* Tear down the sessions marked dead; call at the end of every callback. */
void manager_reap(struct manager *m);
/* Retry every stalled session now. */
void manager_retry_stalled(struct manager *m);
/* May a peer with this uid send Attest? (root, the daemon's uid, attest_uid) */
bool manager_may_attest(const struct manager *m, uid_t uid);
/* Count and remember a request the policy refused (the caller logs it). */
void manager_policy_denied(struct manager *m, const struct policy_denial *d);

/*
 * A Stats message of the whole daemon. Strings point into live sessions and
 * topics: send it before the loop runs again, then manager_stats_free.
 */
struct manager_stats {
	Sdds__Ctl__Stats stats;
	void *mem;     /* every array of the message, one allocation */
	void *net_mem; /* the network part (daemon/net/netstats.h), or NULL */
	Sdds__Ctl__Denial denials[POLICY_DENIALS_MAX];
	Sdds__Ctl__Denial *denial_ptrs[POLICY_DENIALS_MAX];
	Sdds__Ctl__Admission adm;
	void *adm_mem; /* the per-uid entries of adm, or NULL */
};
int manager_stats_build(struct manager *m, struct manager_stats *ret);
void manager_stats_free(struct manager_stats *st);

#endif /* SDDS_DAEMON_MANAGER_H */
