/* SPDX-License-Identifier: MIT */
/*
 * listener.c - the callback-manager thread: calls reader listeners.
 *
 * OVERVIEW
 * One thread per client, started by the first sdds_reader_set_listener with
 * a function and joined by sdds_client_free. It sleeps on the client's evt
 * doorbell and, for each reader with a listener, calls fn once per sample
 * the producer published since the last pass: it compares the ring's prod
 * with r->cb_seen, not "while the ring is not empty", so a listener that does
 * not take costs one call per sample and the thread goes back to sleep.
 * A lapped best-effort ring announces at most cap samples (the rest are
 * lost anyway).
 *
 * Invariants:
 *   - The thread holds cb_lock for a whole dispatch pass, callbacks
 *     included. sdds_reader_set_listener and reader destruction take
 *     cb_lock, so when they return no callback of the old listener runs or
 *     will run. Called from a listener (on this thread, which already holds
 *     cb_lock) they change the state directly.
 *   - cb_gen is bumped whenever `listening` changes; the pass restarts from
 *     the head when a callback changed it, so it never follows a link of a
 *     reader that was unlinked or freed meanwhile.
 *   - A new listener starts at the reader's consumer position, so samples
 *     that were waiting when it was set are announced too.
 *   - No lock is held while the thread sleeps.
 *   - Restart: the thread reads ring positions and sleeps on evt only while
 *     entered in the connection (client_enter), and calls listeners while
 *     not entered, so a listener that blocks never holds up a grace period.
 *     While the client is disconnected it sleeps on state_db. A reader
 *     whose ring belongs to a newer connection than cb_seen counts in
 *     (cb_conn_gen != conn_gen) restarts at its consumer position in the
 *     new ring: samples waiting there are announced, lost ones are not.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#include "ipc/doorbell.h"
#include "ipc/probes.h"

/* The client whose callback thread this is (NULL on other threads). */
static __thread struct sdds_client *listener_tls_client;

bool listener_on_thread(const struct sdds_client *c)
{
	return listener_tls_client == c;
}

/* Producer position of r's ring (acquire: the slots before it are written). */
static uint64_t listener_prod(struct sdds_reader *r)
{
	return atomic_load_explicit(&r->cons.ctl->prod, memory_order_acquire);
}

/*
 * Entered, with cb_lock: a reader whose ring is newer than cb_seen starts
 * over at its consumer position (the ring of the new connection).
 */
static void listener_sync(struct sdds_reader *r)
{
	if (r->cb_conn_gen == r->conn_gen)
		return;
	pthread_mutex_lock(&r->take_lock);
	r->cb_seen = r->cons.cons;
	pthread_mutex_unlock(&r->take_lock);
	r->cb_conn_gen = r->conn_gen;
}

/*
 * Producer position and size of r's ring, entered for the moment of
 * reading (a reconnection replaces both); false when the client is
 * disconnected.
 */
static bool listener_prod_entered(struct sdds_reader *r, uint64_t *ret_prod, uint64_t *ret_cap)
{
	struct client_ref ref;

	if (client_enter(r->client, &r->client->gp, &ref) < 0)
		return false;
	listener_sync(r);
	*ret_prod = listener_prod(r);
	*ret_cap = r->cons.cap;
	client_leave(&ref);
	return true;
}

/* Calls with cb_lock held. */
static void listener_dispatch(struct sdds_client *c)
{
	struct sdds_reader *r;
	uint64_t gen;

restart:
	gen = c->cb_gen;
	TAILQ_FOREACH(r, &c->listening, cb_node)
	{
		uint64_t prod, cap;

		if (!listener_prod_entered(r, &prod, &cap))
			return;
		if (prod - r->cb_seen > cap)
			r->cb_seen = prod - cap;
		/* cb_seen advances per call, so a restarted pass misses nothing. */
		while (r->cb_seen != prod) {
			r->cb_seen++;
			SDDS_PROBE2(callback_enter,
				    SDDS_PROBE_TOPIC(r->topic->desc.domain, r->topic->desc.id),
				    r->cb_seen - 1);
			r->fn(r, r->fn_arg);
			/* The callback may have removed r or freed it: do not touch it. */
			if (c->cb_gen != gen || atomic_load_explicit(&c->cb_stop, memory_order_relaxed))
				goto restart_or_stop;
		}
	}
	return;

restart_or_stop:
	if (atomic_load_explicit(&c->cb_stop, memory_order_relaxed))
		return;
	goto restart;
}

static bool listener_has_work(struct client_wait *w)
{
	struct sdds_client *c = w->client;
	struct sdds_reader *r;
	bool work = false;

	if (atomic_load_explicit(&c->cb_stop, memory_order_acquire))
		return true;
	/* The waiting thread is entered: the rings are mapped. */
	pthread_mutex_lock(&c->cb_lock);
	for (r = TAILQ_FIRST(&c->listening); r != NULL && !work; r = TAILQ_NEXT(r, cb_node))
		work = r->cb_conn_gen != r->conn_gen || listener_prod(r) != r->cb_seen;
	pthread_mutex_unlock(&c->cb_lock);
	return work;
}

static bool listener_resume_cond(void *arg)
{
	struct sdds_client *c = arg;

	return atomic_load(&c->cb_stop) || !atomic_load(&c->disconnected);
}

static void *listener_main(void *arg)
{
	struct sdds_client *c = arg;
	struct client_wait w;
	struct client_ref ref;

	listener_tls_client = c;
	for (;;) {
		pthread_mutex_lock(&c->cb_lock);
		if (atomic_load(&c->cb_stop)) {
			pthread_mutex_unlock(&c->cb_lock);
			break;
		}
		listener_dispatch(c);
		pthread_mutex_unlock(&c->cb_lock);

		if (client_enter(c, &c->gp, &ref) == 0) {
			memset(&w, 0, sizeof(w));
			w.ready = listener_has_work;
			(void)client_wait_db(c, c->evt, &w, -1);
			client_leave(&ref);
		} else {
			/*
			 * Disconnected: nothing arrives until a reconnection (if
			 * ever); sleep until then or until the client is freed.
			 */
			(void)doorbell_wait(&c->state_db, listener_resume_cond, c, -1, 0, 0, NULL);
		}
	}
	listener_tls_client = NULL;
	return NULL;
}

/* Start the thread with every signal blocked: signals belong to the application. */
static int listener_start(struct sdds_client *c)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&c->cb_thread, NULL, listener_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return -rc;
	c->cb_started = true;
	return 0;
}

int listener_set(struct sdds_reader *r, sdds_listener_fn fn, void *arg)
{
	struct sdds_client *c = r->client;
	bool on_thread = listener_on_thread(c);
	struct client_ref ref;
	int rc = 0;

	if (fn && atomic_load(&c->disconnected))
		return -ENOTCONN;
	if (!on_thread)
		pthread_mutex_lock(&c->cb_lock);
	/*
	 * Entered under cb_lock, never the other way round (the callback
	 * thread does the same): a thread entered is never one that waits for
	 * cb_lock, so a long listener cannot hold up a grace period.
	 */
	if (fn) {
		rc = client_enter(c, &c->gp, &ref);
		if (rc < 0)
			goto out_unlock;
	}
	if (fn && !c->cb_started && !atomic_load(&c->cb_stop)) {
		rc = listener_start(c);
		if (rc < 0)
			goto out_leave;
	}
	if (fn) {
		if (!r->fn) {
			/* Entered: cons and conn_gen are current. */
			pthread_mutex_lock(&r->take_lock);
			r->cb_seen = r->cons.cons;
			pthread_mutex_unlock(&r->take_lock);
			r->cb_conn_gen = r->conn_gen;
			TAILQ_INSERT_TAIL(&c->listening, r, cb_node);
			c->cb_gen++;
		}
		r->fn = fn;
		r->fn_arg = arg;
		/* Let the thread look at the new listener's pending samples. */
		if (!on_thread)
			doorbell_notify(c->evt);
	} else if (r->fn) {
		TAILQ_REMOVE(&c->listening, r, cb_node);
		c->cb_gen++;
		r->fn = NULL;
		r->fn_arg = NULL;
	}
out_leave:
	if (fn)
		client_leave(&ref);
out_unlock:
	if (!on_thread)
		pthread_mutex_unlock(&c->cb_lock);
	return rc;
}

void listener_detach(struct sdds_reader *r)
{
	(void)listener_set(r, NULL, NULL);
}

void listener_stop(struct sdds_client *c)
{
	bool started;

	pthread_mutex_lock(&c->cb_lock);
	atomic_store(&c->cb_stop, true);
	started = c->cb_started;
	pthread_cond_broadcast(&c->cb_cond);
	pthread_mutex_unlock(&c->cb_lock);
	if (!started)
		return;
	/*
	 * cb_stop is part of the thread's wait conditions, on evt and on
	 * state_db. The transport is shut down: the monitor, the only thread
	 * that changes evt, is gone, and evt is still mapped (or local).
	 */
	doorbell_notify(c->evt);
	client_state_notify(c);
	pthread_join(c->cb_thread, NULL);
	pthread_mutex_lock(&c->cb_lock);
	c->cb_started = false;
	pthread_mutex_unlock(&c->cb_lock);
}
