/* SPDX-License-Identifier: MIT */
/*
 * internal.h - libsddsclient's private objects and the transport vtable.
 *
 * OVERVIEW
 * A client talks to the broker through one of two transports:
 *   - remote (remote.c): sddsd over the control socket and the shared
 *     segment; writes go into the request ring, reader rings live in the
 *     segment's arena;
 *   - mono (mono/mono.c): the broker core in this process behind one process-wide
 *     mutex; reader rings live in process memory.
 * Everything else (take, blocking, listeners, object lifetime) is common code
 * in client.c and listener.c and only sees `struct client_ops` plus two
 * pointers: the `evt` doorbell samples are announced on and each reader's
 * consumer handle. The transports differ in nothing a reader can observe.
 *
 * Locks, in the order they may nest (never the other way):
 *   cb_lock (listener.c)  >  take_lock (per reader)
 *   obj_lock (object lists)  >  take_lock, rpc_lock (only remote.c's
 *   reconnection nests them: it re-creates the objects under obj_lock)
 *   the transport's other locks are leaves.
 * No lock is held while a thread sleeps on a doorbell. client_enter never
 * blocks and may be called under any lock; an entered thread may take a
 * lock only if its holders never wait for a grace period (or for anything
 * that does, such as a reconnection) while holding it.
 *
 * Restart (remote.c, client.c): everything that lives in or refers to one
 * connection (the segment, its rings and doorbells, the fds, the daemon's
 * ids of topics, writers and readers) is used only between client_enter and
 * client_leave, and only while the client is connected. The monitor thread
 * changes it only after a grace period (client_grace): it marks the client
 * disconnected, flips gp_gen and waits until every thread that entered
 * under the old generation has left. Until it marks the client connected
 * again, nobody else reads that state, so it may rewrite it in place.
 * The grace period ends by taking and dropping prod_lock and every
 * reader's take_lock once (client_quiesce): the fast paths of write and
 * take use the connection under one of those locks without entering.
 *
 * Lifetime: the client owns every topic, writer and reader created through
 * it and frees what is left in sdds_client_free. A topic is referenced by
 * its writers and readers and by the application until sdds_topic_free; its
 * memory goes with the last reference.
 */
#ifndef SDDS_CLIENT_INTERNAL_H
#define SDDS_CLIENT_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "sdds/sdds.h"

#include "ipc/layout.h"
#include "ipc/ring.h"
#include "ipc/segment.h"

struct broker_topic;
struct broker_writer;
struct broker_reader;

#define cl_container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/*
 * Grace-period counters: threads that entered under generation g count
 * themselves in inside[g & 1]. The client has one pair, every reader another
 * (takes from different readers then share no cache line).
 */
struct client_gp {
	alignas(64) _Atomic uint64_t inside[2];
};

/* What client_enter hands to client_leave. */
struct client_ref {
	_Atomic uint64_t *ctr;
};

/* Transport operations; each returns 0 or -errno like the public API. */
struct client_ops {
	/* Fill t->handle / t->bt. */
	int (*topic_new)(struct sdds_topic *t, const sdds_topic_desc *desc);
	void (*topic_free)(struct sdds_topic *t);
	/* Fill w->id / w->bw. */
	int (*writer_new)(struct sdds_writer *w, const sdds_qos *qos);
	/* closing: the client goes away (no round trip needed). */
	void (*writer_free)(struct sdds_writer *w, bool closing);
	/*
	 * len was checked against the topic's sample size. Called not entered:
	 * the transport enters (client_enter) where it needs the connection
	 * without holding prod_lock (see "Restart" above).
	 */
	int (*writer_write)(struct sdds_writer *w, const void *sample, uint32_t len);
	/* Fill r->id and attach r->cons to a formatted reader ring. */
	int (*reader_new)(struct sdds_reader *r, const sdds_qos *qos);
	void (*reader_free)(struct sdds_reader *r, bool closing);
	/* A take freed a slot the producer waits for. */
	void (*reader_kick)(struct sdds_reader *r);
	/* sdds_client_free begins: stop reconnecting (the connection stays). */
	void (*closing)(struct sdds_client *c);
	/* Stop the transport's threads and wake every waiter; idempotent. */
	void (*shutdown)(struct sdds_client *c);
	/* Release what the transport holds; after shutdown and all objects. */
	void (*destroy)(struct sdds_client *c);
};

/*
 * The daemon transport's state (remote.c). The first block is the current
 * connection: see "Restart" above for who may touch it when.
 */
struct remote_state {
	uint64_t gen; /* connection number: 1 for the first, +1 per reconnection */
	int ctl_fd;   /* owned */
	int kick_fd;  /* eventfd to wake the daemon, owned */
	struct segment seg;
	struct sdds_ring_ctl *req; /* request ring, inside seg */
	bool daemon_polling;
	uint32_t max_sample;
	uint64_t epoch; /* the daemon instance (segment header) */

	pthread_mutex_t prod_lock; /* the request ring producer */
	struct ring_prod prod;

	pthread_mutex_t rpc_lock; /* the control socket, request ids */
	uint32_t next_id;

	/* Reconnection (set at open, then read-only). */
	bool reconnect;
	bool reconnect_wait;
	uint32_t reconnect_max_ms;
	char *path;   /* socket path, owned; NULL when the fd was handed in */
	int renew_fd; /* $SDDS_CTL_RENEW_FD: asks for a new socket, owned, or -1 */
	char *name;   /* application name for Hello, owned */

	int stop_fd;	     /* eventfd: wakes the monitor (closing or stop), owned */
	atomic_bool closing; /* no more reconnection attempts */
	atomic_bool stop;    /* the monitor returns */
	_Atomic uint64_t reconnects;
	_Atomic uint64_t attempts;

	pthread_t monitor;
	bool monitor_started;
};

struct sdds_client {
	const struct client_ops *ops;
	bool mono;
	int64_t spin_ns;
	int64_t spin_yield_ns; /* pure spin before the spin phase yields; <0: never */
	_Atomic uint32_t session_id;
	atomic_bool disconnected;
	/* Samples are announced here: the segment's or the local doorbell. */
	struct sdds_doorbell *evt;

	/* Grace periods (see "Restart" above). */
	_Atomic uint64_t gp_gen;
	struct client_gp gp;
	/*
	 * Bumped (doorbell_notify) on every change of `disconnected` and on
	 * closing: threads waiting for a reconnection sleep here.
	 */
	struct sdds_doorbell state_db;

	pthread_mutex_t obj_lock; /* the three lists below */
	TAILQ_HEAD(, sdds_topic) topics;
	TAILQ_HEAD(, sdds_writer) writers;
	TAILQ_HEAD(, sdds_reader) readers;

	/* Callback manager (listener.c). */
	pthread_mutex_t cb_lock;
	pthread_cond_t cb_cond;
	TAILQ_HEAD(, sdds_reader) listening; /* readers with a listener, under cb_lock */
	uint64_t cb_gen;		     /* bumped when `listening` changes, under cb_lock */
	pthread_t cb_thread;
	bool cb_started; /* under cb_lock */
	atomic_bool cb_stop;

	struct remote_state remote;

	/* Mono mode: the evt doorbell in process memory. */
	struct sdds_doorbell local_evt;
};

struct sdds_topic {
	struct sdds_client *client;
	TAILQ_ENTRY(sdds_topic) node; /* client->topics */
	uint32_t refs;		      /* under obj_lock */
	bool user_ref;		      /* the application has not called sdds_topic_free */
	uint32_t sample_size;
	/* A deep copy of the description, to register the topic again. */
	sdds_topic_desc desc;	 /* name and fields point into the same allocation */
	uint32_t handle;	 /* remote */
	uint64_t conn_gen;	 /* remote: the connection `handle` belongs to */
	struct broker_topic *bt; /* mono */
};

struct sdds_writer {
	struct sdds_client *client;
	struct sdds_topic *topic;
	TAILQ_ENTRY(sdds_writer) node; /* client->writers */
	sdds_qos qos;		       /* as created, to create it again */
	uint32_t id;		       /* remote */
	uint64_t conn_gen;	       /* remote: the connection `id` belongs to */
	uint32_t max_blocking_ms;
	bool reliable;
	struct broker_writer *bw; /* mono */
};

struct sdds_reader {
	struct sdds_client *client;
	struct sdds_topic *topic;
	TAILQ_ENTRY(sdds_reader) node; /* client->readers */
	sdds_qos qos;		       /* as created, to create it again */
	uint32_t id;		       /* remote */
	uint64_t conn_gen;	       /* remote: the connection `id` and `cons` belong to */
	bool reliable;
	struct client_gp gp; /* takes enter here */

	pthread_mutex_t take_lock; /* cons */
	struct rring_cons cons;
	atomic_uint_fast64_t lost; /* copy of cons.lost for other threads */

	/* Listener, under client->cb_lock. */
	sdds_listener_fn fn;
	void *fn_arg;
	uint64_t cb_seen;		  /* producer position up to which fn was called */
	uint64_t cb_conn_gen;		  /* the connection whose ring cb_seen counts in */
	TAILQ_ENTRY(sdds_reader) cb_node; /* client->listening while fn != NULL */

	/* Mono mode, under the process-wide broker lock. */
	struct broker_reader *br;
	void *ring_mem; /* aligned_alloc, owned */
	uint64_t serial;
	uint32_t n_blocked;		    /* writers waiting for room in this ring */
	TAILQ_ENTRY(sdds_reader) mono_node; /* mono.readers */
};

extern const struct client_ops remote_ops;
extern const struct client_ops mono_ops;

/* remote.c: connect and hello; fills c->remote, c->session_id, c->evt. */
int remote_open(struct sdds_client *c, const sdds_client_options *opts);
/* mono/mono.c: join the process-wide broker; fills c->evt. */
int mono_open(struct sdds_client *c, const char *net_config);

/*
 * Pick the transport for a new client, set c->ops (and c->mono) and open it.
 * Each library defines it once: libsddsclient's connects to sddsd
 * (transport.c; -ENOTSUP for monolithic mode), libsddsmono's runs the
 * broker in this process (mono/open.c). Returns 0 or -errno.
 */
int client_transport_open(struct sdds_client *c, const sdds_client_options *opts);

/*
 * client.c: mark the client disconnected (once) and wake everybody who
 * sleeps on one of its doorbells. Safe from any thread, any number of times.
 */
void client_mark_disconnected(struct sdds_client *c);

/*
 * client.c: enter the current connection, counting in gp (&c->gp or a
 * reader's). Returns 0 (connected: the connection's state may be used
 * until client_leave) or -ENOTCONN (nothing to leave). Nests.
 */
static inline int client_enter(struct sdds_client *c, struct client_gp *gp, struct client_ref *ref)
{
	_Atomic uint64_t *ctr;
	uint64_t g;

	for (;;) {
		g = atomic_load(&c->gp_gen);
		ctr = &gp->inside[g & 1];
		atomic_fetch_add(ctr, 1);
		if (__builtin_expect(atomic_load(&c->gp_gen) == g, 1))
			break;
		/* The monitor flipped meanwhile: count in the new generation. */
		atomic_fetch_sub(ctr, 1);
	}
	if (__builtin_expect(atomic_load(&c->disconnected), 0)) {
		atomic_fetch_sub(ctr, 1);
		return -ENOTCONN;
	}
	ref->ctr = ctr;
	return 0;
}

static inline void client_leave(struct client_ref *ref)
{
	/* Release: what this thread did inside happens before the grace ends. */
	atomic_fetch_sub_explicit(ref->ctr, 1, memory_order_release);
}
/*
 * client.c, for the monitor thread: flip the generation and wait until
 * every thread that entered under the old one has left (the client must be
 * marked disconnected first, which wakes every sleeper), then wait out the
 * holders of prod_lock and of every take_lock (the unentered fast paths).
 */
void client_grace(struct sdds_client *c);
/* client.c: the client is connected again: wake those who wait for it. */
void client_mark_connected(struct sdds_client *c);
/* client.c: bump state_db (closing, or a waiter's condition changed). */
void client_state_notify(struct sdds_client *c);
/*
 * client.c: wait, without being entered, until the client is connected
 * again, up to deadline_ns (monotonic, < 0 forever). 0 when connected,
 * -ENOTCONN when the deadline passed, the client is closing, or it does not
 * reconnect at all.
 */
int client_wait_connected(struct sdds_client *c, int64_t deadline_ns);

/* client.c: wait helper shared by the transports. */
struct client_wait {
	struct sdds_client *client;
	bool (*ready)(struct client_wait *w);
	_Atomic uint64_t *watch64; /* ready when *watch64 != seen64 */
	uint64_t seen64;
	_Atomic uint32_t *watch32; /* ready when *watch32 != seen32 */
	uint32_t seen32;
};
/*
 * Sleep on db until the watched word moved or the client got disconnected,
 * with the client's spin budget, up to timeout_ns (< 0 forever).
 * Returns 0 (moved), -ETIMEDOUT or -ENOTCONN.
 */
int client_wait_db(struct sdds_client *c, struct sdds_doorbell *db, struct client_wait *w,
		   int64_t timeout_ns);

/* listener.c */
int listener_set(struct sdds_reader *r, sdds_listener_fn fn, void *arg);
/* Withdraw r's listener before r goes away (waits for a running callback). */
void listener_detach(struct sdds_reader *r);
/* Stop and join the callback-manager thread (never from the thread itself). */
void listener_stop(struct sdds_client *c);
/* True on the callback-manager thread of c. */
bool listener_on_thread(const struct sdds_client *c);

#endif /* SDDS_CLIENT_INTERNAL_H */
