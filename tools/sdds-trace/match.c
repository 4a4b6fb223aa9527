/* SPDX-License-Identifier: MIT */
/*
 * match.c - follow samples through probe events (see match.h for the keys).
 *
 * OVERVIEW
 * A `sample` holds the time of each boundary it passed (0: not seen). The
 * sample a thread is working on (after write_enter in a client, after
 * daemon_dequeue or decoded in a broker) is that thread's `cur`; routed and
 * the reader-ring pushes attach to it. A push copies it into a new sample
 * (one delivery per reader ring) registered under the ring's key; the
 * original becomes a template that is never counted itself. A delivery ends
 * at take_return (local and receive paths) or at sent (send path); it is
 * then checked against the boundaries its path needs and either counted in
 * its run or as unmatched. What is still open at matcher_finish is
 * unmatched too. Keys live in one hash table (open addressing, tombstones),
 * with the key kind as the first word.
 */
#include "match.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum key_kind {
	K_REQ = 1,  /* epoch, session, seq */
	K_RING,	    /* broker pid, owner, topic, pos */
	K_RING_ANY, /* owner, topic, pos (client does not know the daemon's pid) */
	K_NET,	    /* broker pid, topic, pos */
	K_EPOCH,    /* epoch -> daemon pid */
	K_TID,	    /* tid -> thread state index */
	K_PID,	    /* pid -> process state index */
};

#define SAMPLE_TEMPLATE 0x1u /* copied into deliveries; not counted itself */
#define SAMPLE_DONE 0x2u     /* counted (in a run or as unmatched) */
#define SAMPLE_AMBIGUOUS -2

struct sample {
	uint64_t ts[TP_MAX_];
	uint32_t topic;
	uint32_t client_pid; /* writer's (write_enter) or reader's (take) */
	uint32_t broker_pid; /* where routed fired */
	uint32_t flags;
};

struct kent {
	uint64_t k[5];
	int64_t v;
	uint8_t used; /* 0 empty, 1 used, 2 tombstone */
};

struct kmap {
	struct kent *e;
	size_t cap, used, tombs;
};

struct thread_state {
	int64_t cur; /* sample index or -1 */
	uint64_t last_received;
	uint64_t last_woken;
	uint64_t last_callback;
	uint32_t callback_topic;
};

struct proc_state {
	int64_t *encoded; /* samples encoded since the last hand-off */
	size_t n_encoded, cap_encoded;
	int64_t *handed; /* samples handed to the backend, waiting for `sent` */
	size_t n_handed, cap_handed;
};

struct trace_matcher {
	struct sample *s;
	size_t n_s, cap_s;
	struct kmap map;
	struct thread_state *th;
	size_t n_th, cap_th;
	struct proc_state *pr;
	size_t n_pr, cap_pr;
	struct trace_run runs[TM_MAX_ * TPATH_MAX_ * 4];
	bool run_seen[TM_MAX_ * TPATH_MAX_ * 4];
	struct trace_run out[TM_MAX_ * TPATH_MAX_ * 4];
	uint64_t unmatched_other;
	uint64_t taken;
};

/* Each phase is named as its USDT probe (provider sdds): sdds-trace attaches by these names. */
static const char *const phase_names[TP_MAX_] = {
    [TP_WRITE_ENTER] = "write_enter",
    [TP_REQ_ENQUEUED] = "req_enqueued",
    [TP_DAEMON_DEQUEUE] = "daemon_dequeue",
    [TP_RECEIVED] = "received",
    [TP_DECODED] = "decoded",
    [TP_ROUTED] = "routed",
    [TP_ENCODED] = "encoded",
    [TP_BACKEND_HANDED] = "backend_handed",
    [TP_SENT] = "sent",
    [TP_CLIENT_ENQUEUED] = "client_enqueued",
    [TP_CLIENT_WOKEN] = "client_woken",
    [TP_CALLBACK_ENTER] = "callback_enter",
    [TP_TAKE_RETURN] = "take_return",
};

const char *trace_phase_name(enum trace_phase p)
{
	return (unsigned)p < TP_MAX_ ? phase_names[p] : "?";
}

const char *trace_mode_name(enum trace_mode m)
{
	return m == TM_ISOLATED ? "isolated" : "monolithic";
}

const char *trace_path_name(enum trace_path p)
{
	return p == TPATH_SEND ? "send" : p == TPATH_RECEIVE ? "receive" : "local";
}

void trace_stat_add(struct trace_stat *s, uint64_t v)
{
	double d;

	if (s->n == 0 || v < s->min_ns)
		s->min_ns = v;
	if (s->n == 0 || v > s->max_ns)
		s->max_ns = v;
	s->n++;
	d = (double)v - s->mean_ns;
	s->mean_ns += d / (double)s->n;
	s->m2 += d * ((double)v - s->mean_ns);
}

double trace_stat_std_ns(const struct trace_stat *s)
{
	return s->n < 2 ? 0.0 : sqrt(s->m2 / (double)s->n);
}

/* ---------------- key map ---------------- */

static uint64_t kmap_hash(const uint64_t k[5])
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 5; i++) {
		h ^= k[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
		h *= 0xff51afd7ed558ccdull;
	}
	return h ^ (h >> 33);
}

static struct kent *kmap_find(struct kmap *m, const uint64_t k[5])
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	for (i = kmap_hash(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct kent *e = &m->e[i];

		if (e->used == 0)
			return NULL;
		if (e->used == 1 && memcmp(e->k, k, sizeof(e->k)) == 0)
			return e;
	}
}

static int kmap_put(struct kmap *m, const uint64_t k[5], int64_t v);

static int kmap_grow(struct kmap *m)
{
	struct kmap n = {0};
	size_t cap = m->cap ? m->cap * 2 : 1024;

	/* Only tombstones: rebuild at the same size. */
	if (m->used * 4 < m->cap)
		cap = m->cap;
	n.e = calloc(cap, sizeof(*n.e));
	if (!n.e)
		return -ENOMEM;
	n.cap = cap;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->e[i].used == 1)
			(void)kmap_put(&n, m->e[i].k, m->e[i].v);
	}
	free(m->e);
	*m = n;
	return 0;
}

/* Insert or replace. */
static int kmap_put(struct kmap *m, const uint64_t k[5], int64_t v)
{
	struct kent *e = kmap_find(m, k);
	size_t i;

	if (e) {
		e->v = v;
		return 0;
	}
	if ((m->used + m->tombs + 1) * 2 > m->cap) {
		int rc = kmap_grow(m);

		if (rc < 0)
			return rc;
	}
	for (i = kmap_hash(k) & (m->cap - 1); m->e[i].used == 1; i = (i + 1) & (m->cap - 1))
		;
	if (m->e[i].used == 2)
		m->tombs--;
	memcpy(m->e[i].k, k, sizeof(m->e[i].k));
	m->e[i].v = v;
	m->e[i].used = 1;
	m->used++;
	return 0;
}

static void kmap_del(struct kmap *m, struct kent *e)
{
	e->used = 2;
	m->used--;
	m->tombs++;
}

#define KEY(...) ((const uint64_t[5]){__VA_ARGS__})

/* ---------------- state ---------------- */

static int64_t sample_new(struct trace_matcher *m)
{
	if (m->n_s == m->cap_s) {
		size_t cap = m->cap_s ? m->cap_s * 2 : 4096;
		struct sample *s = realloc(m->s, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		m->s = s;
		m->cap_s = cap;
	}
	memset(&m->s[m->n_s], 0, sizeof(m->s[0]));
	return (int64_t)m->n_s++;
}

static struct thread_state *thread_get(struct trace_matcher *m, uint32_t tid)
{
	struct kent *e = kmap_find(&m->map, KEY(K_TID, tid));

	if (e)
		return &m->th[e->v];
	if (m->n_th == m->cap_th) {
		size_t cap = m->cap_th ? m->cap_th * 2 : 64;
		struct thread_state *t = realloc(m->th, cap * sizeof(*t));

		if (!t)
			return NULL;
		m->th = t;
		m->cap_th = cap;
	}
	if (kmap_put(&m->map, KEY(K_TID, tid), (int64_t)m->n_th) < 0)
		return NULL;
	memset(&m->th[m->n_th], 0, sizeof(m->th[0]));
	m->th[m->n_th].cur = -1;
	return &m->th[m->n_th++];
}

static struct proc_state *proc_get(struct trace_matcher *m, uint32_t pid)
{
	struct kent *e = kmap_find(&m->map, KEY(K_PID, pid));

	if (e)
		return &m->pr[e->v];
	if (m->n_pr == m->cap_pr) {
		size_t cap = m->cap_pr ? m->cap_pr * 2 : 16;
		struct proc_state *p = realloc(m->pr, cap * sizeof(*p));

		if (!p)
			return NULL;
		m->pr = p;
		m->cap_pr = cap;
	}
	if (kmap_put(&m->map, KEY(K_PID, pid), (int64_t)m->n_pr) < 0)
		return NULL;
	memset(&m->pr[m->n_pr], 0, sizeof(m->pr[0]));
	return &m->pr[m->n_pr++];
}

static int vec_push(int64_t **v, size_t *n, size_t *cap, int64_t x)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		int64_t *p = realloc(*v, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

int matcher_new(struct trace_matcher **ret)
{
	struct trace_matcher *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	*ret = m;
	return 0;
}

void matcher_free(struct trace_matcher *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_pr; i++) {
		free(m->pr[i].encoded);
		free(m->pr[i].handed);
	}
	free(m->pr);
	free(m->th);
	free(m->map.e);
	free(m->s);
	free(m);
}

/* ---------------- classification ---------------- */

/* The boundaries a path needs, in order. */
static unsigned path_phases(enum trace_mode mode, enum trace_path path, bool callback, bool waited,
			    enum trace_phase *out)
{
	unsigned n = 0;

	if (path == TPATH_RECEIVE) {
		out[n++] = TP_RECEIVED;
		out[n++] = TP_DECODED;
	} else {
		out[n++] = TP_WRITE_ENTER;
		if (mode == TM_ISOLATED) {
			out[n++] = TP_REQ_ENQUEUED;
			out[n++] = TP_DAEMON_DEQUEUE;
		}
	}
	out[n++] = TP_ROUTED;
	if (path == TPATH_SEND) {
		out[n++] = TP_ENCODED;
		out[n++] = TP_BACKEND_HANDED;
		out[n++] = TP_SENT;
		return n;
	}
	out[n++] = TP_CLIENT_ENQUEUED;
	if (waited)
		out[n++] = TP_CLIENT_WOKEN;
	if (callback)
		out[n++] = TP_CALLBACK_ENTER;
	out[n++] = TP_TAKE_RETURN;
	return n;
}

static struct trace_run *run_get(struct trace_matcher *m, enum trace_mode mode, enum trace_path path,
				 bool callback, bool waited)
{
	unsigned i =
	    ((unsigned)mode * TPATH_MAX_ + (unsigned)path) * 4 + (callback ? 1 : 0) + (waited ? 0 : 2);
	struct trace_run *r = &m->runs[i];

	if (!m->run_seen[i]) {
		m->run_seen[i] = true;
		memset(r, 0, sizeof(*r));
		r->mode = mode;
		r->path = path;
		r->callback = callback;
		r->waited = waited;
		r->n_phases = path_phases(mode, path, callback, waited, r->phase);
	}
	return r;
}

/* Count a finished (or abandoned) delivery. */
static void sample_close(struct trace_matcher *m, struct sample *s)
{
	enum trace_path path;
	enum trace_mode mode;
	struct trace_run *r;
	bool callback = s->ts[TP_CALLBACK_ENTER] != 0;

	if (s->flags & (SAMPLE_DONE | SAMPLE_TEMPLATE))
		return;
	s->flags |= SAMPLE_DONE;
	if (s->ts[TP_ENCODED] || s->ts[TP_SENT])
		path = TPATH_SEND;
	else if (s->ts[TP_DECODED] || s->ts[TP_RECEIVED])
		path = TPATH_RECEIVE;
	else if (s->ts[TP_WRITE_ENTER] || s->ts[TP_DAEMON_DEQUEUE])
		path = TPATH_LOCAL;
	else {
		m->unmatched_other++;
		return;
	}
	if (s->ts[TP_REQ_ENQUEUED] || s->ts[TP_DAEMON_DEQUEUE])
		mode = TM_ISOLATED;
	else if (s->client_pid != 0 && s->broker_pid != 0)
		mode = s->client_pid == s->broker_pid ? TM_MONOLITHIC : TM_ISOLATED;
	else {
		m->unmatched_other++;
		return;
	}
	/* A take that found the sample already there never waited: its own variant, no wake-up. */
	r = run_get(m, mode, path, callback, path == TPATH_SEND || s->ts[TP_CLIENT_WOKEN] != 0);
	for (unsigned i = 0; i < r->n_phases; i++) {
		if (s->ts[r->phase[i]] == 0 || (i > 0 && s->ts[r->phase[i]] < s->ts[r->phase[i - 1]])) {
			r->unmatched++;
			return;
		}
	}
	for (unsigned i = 0; i + 1 < r->n_phases; i++)
		trace_stat_add(&r->delta[i], s->ts[r->phase[i + 1]] - s->ts[r->phase[i]]);
	trace_stat_add(&r->total, s->ts[r->phase[r->n_phases - 1]] - s->ts[r->phase[0]]);
	r->samples++;
	if (path != TPATH_SEND)
		m->taken++;
}

/* ---------------- events ---------------- */

static int on_write_enter(struct trace_matcher *m, struct thread_state *t, const struct sdds_trace_event *e)
{
	int64_t i = sample_new(m);

	if (i < 0)
		return (int)i;
	/* A write that never got further (refused, disconnected) stays open: unmatched. */
	m->s[i].ts[TP_WRITE_ENTER] = e->ts;
	m->s[i].topic = (uint32_t)e->arg[0];
	m->s[i].client_pid = e->pid;
	t->cur = i;
	return 0;
}

static int on_req_enqueued(struct trace_matcher *m, struct thread_state *t, const struct sdds_trace_event *e)
{
	if (t->cur < 0 || m->s[t->cur].ts[TP_REQ_ENQUEUED] != 0)
		return 0;
	m->s[t->cur].ts[TP_REQ_ENQUEUED] = e->ts;
	return kmap_put(&m->map, KEY(K_REQ, e->arg[0], (uint32_t)e->arg[1], (uint32_t)e->arg[2]), t->cur);
}

static int on_daemon_dequeue(struct trace_matcher *m, struct thread_state *t,
			     const struct sdds_trace_event *e)
{
	struct kent *k = kmap_find(&m->map, KEY(K_REQ, e->arg[0], (uint32_t)e->arg[1], (uint32_t)e->arg[3]));
	int rc = kmap_put(&m->map, KEY(K_EPOCH, e->arg[0]), e->pid);

	if (rc < 0)
		return rc;
	if (!k) {
		/* Written before the tracer attached, or its enqueue event was lost. */
		int64_t i = sample_new(m);

		if (i < 0)
			return (int)i;
		m->s[i].ts[TP_DAEMON_DEQUEUE] = e->ts;
		t->cur = i;
		return 0;
	}
	t->cur = k->v;
	kmap_del(&m->map, k);
	m->s[t->cur].ts[TP_DAEMON_DEQUEUE] = e->ts;
	return 0;
}

static int on_decoded(struct trace_matcher *m, struct thread_state *t, const struct sdds_trace_event *e)
{
	int64_t i = sample_new(m);

	if (i < 0)
		return (int)i;
	m->s[i].ts[TP_RECEIVED] = t->last_received;
	m->s[i].ts[TP_DECODED] = e->ts;
	m->s[i].topic = (uint32_t)e->arg[0];
	t->cur = i;
	return 0;
}

static void on_routed(struct trace_matcher *m, struct thread_state *t, const struct sdds_trace_event *e)
{
	struct sample *s;

	if (t->cur < 0)
		return;
	s = &m->s[t->cur];
	if (s->ts[TP_ROUTED] != 0 || (s->topic != 0 && s->topic != (uint32_t)e->arg[0])) {
		/* Not the sample this thread took last (a stalled write retried): do not guess. */
		t->cur = -1;
		return;
	}
	s->topic = (uint32_t)e->arg[0];
	s->ts[TP_ROUTED] = e->ts;
	s->broker_pid = e->pid;
}

static int on_client_enqueued(struct trace_matcher *m, struct thread_state *t,
			      const struct sdds_trace_event *e)
{
	uint32_t owner = (uint32_t)e->arg[0], topic = (uint32_t)e->arg[1];
	uint64_t pos = e->arg[2];
	struct kent *k;
	int64_t d;
	int rc;

	if (t->cur < 0 || m->s[t->cur].ts[TP_ROUTED] == 0 || m->s[t->cur].topic != topic)
		return 0;
	d = sample_new(m);
	if (d < 0)
		return (int)d;
	m->s[d] = m->s[t->cur]; /* after sample_new: m->s may have moved */
	m->s[t->cur].flags |= SAMPLE_TEMPLATE;
	m->s[d].flags &= ~SAMPLE_TEMPLATE;
	if (owner == SDDS_TRACE_NET_OWNER)
		return kmap_put(&m->map, KEY(K_NET, e->pid, topic, pos), d);
	m->s[d].ts[TP_CLIENT_ENQUEUED] = e->ts;
	/* A key still open: the earlier delivery was never taken (overwritten); it is void. */
	k = kmap_find(&m->map, KEY(K_RING, e->pid, owner, topic, pos));
	if (k)
		sample_close(m, &m->s[k->v]);
	rc = kmap_put(&m->map, KEY(K_RING, e->pid, owner, topic, pos), d);
	if (rc < 0)
		return rc;
	k = kmap_find(&m->map, KEY(K_RING_ANY, owner, topic, pos));
	if (k && (k->v == SAMPLE_AMBIGUOUS || (k->v != d && !(m->s[k->v].flags & SAMPLE_DONE))))
		return kmap_put(&m->map, KEY(K_RING_ANY, owner, topic, pos), SAMPLE_AMBIGUOUS);
	return kmap_put(&m->map, KEY(K_RING_ANY, owner, topic, pos), d);
}

static int on_encoded(struct trace_matcher *m, const struct sdds_trace_event *e)
{
	struct kent *k = kmap_find(&m->map, KEY(K_NET, e->pid, (uint32_t)e->arg[0], e->arg[1]));
	struct proc_state *p;
	int64_t d;

	if (!k)
		return 0;
	d = k->v;
	kmap_del(&m->map, k);
	p = proc_get(m, e->pid);
	if (!p)
		return -ENOMEM;
	m->s[d].ts[TP_ENCODED] = e->ts;
	return vec_push(&p->encoded, &p->n_encoded, &p->cap_encoded, d);
}

static int on_backend_handed(struct trace_matcher *m, const struct sdds_trace_event *e)
{
	struct proc_state *p = proc_get(m, e->pid);

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_encoded; i++) {
		int64_t d = p->encoded[i];
		int rc;

		m->s[d].ts[TP_BACKEND_HANDED] = e->ts;
		rc = vec_push(&p->handed, &p->n_handed, &p->cap_handed, d);
		if (rc < 0)
			return rc;
	}
	p->n_encoded = 0;
	return 0;
}

static int on_sent(struct trace_matcher *m, const struct sdds_trace_event *e)
{
	struct proc_state *p = proc_get(m, e->pid);

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_handed; i++) {
		struct sample *s = &m->s[p->handed[i]];

		s->ts[TP_SENT] = e->ts;
		sample_close(m, s);
	}
	p->n_handed = 0;
	return 0;
}

static void on_take_return(struct trace_matcher *m, struct thread_state *t, const struct sdds_trace_event *e)
{
	uint64_t epoch = e->arg[0];
	uint32_t session = (uint32_t)e->arg[1], topic = (uint32_t)e->arg[2];
	uint64_t pos = e->arg[3];
	struct kent *k = NULL, *kany;
	struct sample *s;
	uint64_t after;

	if (epoch == 0) {
		/* Monolithic: the broker is this process. */
		k = kmap_find(&m->map, KEY(K_RING, e->pid, session, topic, pos));
	} else {
		struct kent *ep = kmap_find(&m->map, KEY(K_EPOCH, epoch));

		if (ep)
			k = kmap_find(&m->map, KEY(K_RING, (uint64_t)ep->v, session, topic, pos));
	}
	kany = kmap_find(&m->map, KEY(K_RING_ANY, session, topic, pos));
	if (!k && kany && kany->v >= 0)
		k = kmap_find(&m->map, KEY(K_RING, m->s[kany->v].broker_pid, session, topic, pos));
	if (!k) {
		/* Pushed before the tracer attached, lost, or ambiguous: not guessed. */
		m->unmatched_other++;
		return;
	}
	s = &m->s[k->v];
	if (kany && (kany->v == k->v || kany->v == SAMPLE_AMBIGUOUS))
		kmap_del(&m->map, kany);
	kmap_del(&m->map, k);
	s->client_pid = e->pid;
	s->ts[TP_TAKE_RETURN] = e->ts;
	after = s->ts[TP_CLIENT_ENQUEUED];
	if (t->last_woken >= after && t->last_woken != 0) {
		s->ts[TP_CLIENT_WOKEN] = t->last_woken;
		after = t->last_woken;
	}
	if (t->last_callback >= after && t->last_callback != 0 && t->callback_topic == topic)
		s->ts[TP_CALLBACK_ENTER] = t->last_callback;
	sample_close(m, s);
}

int matcher_feed(struct trace_matcher *m, const struct sdds_trace_event *e)
{
	struct thread_state *t = thread_get(m, e->tid);

	if (!t)
		return -ENOMEM;
	switch (e->phase) {
	case TP_WRITE_ENTER:
		return on_write_enter(m, t, e);
	case TP_REQ_ENQUEUED:
		return on_req_enqueued(m, t, e);
	case TP_DAEMON_DEQUEUE:
		return on_daemon_dequeue(m, t, e);
	case TP_RECEIVED:
		t->last_received = e->ts;
		return 0;
	case TP_DECODED:
		return on_decoded(m, t, e);
	case TP_ROUTED:
		on_routed(m, t, e);
		return 0;
	case TP_ENCODED:
		return on_encoded(m, e);
	case TP_BACKEND_HANDED:
		return on_backend_handed(m, e);
	case TP_SENT:
		return on_sent(m, e);
	case TP_CLIENT_ENQUEUED:
		return on_client_enqueued(m, t, e);
	case TP_CLIENT_WOKEN:
		/* Only a wait that ended because something changed (not a timeout). */
		if ((int64_t)e->arg[0] >= 0)
			t->last_woken = e->ts;
		return 0;
	case TP_CALLBACK_ENTER:
		t->last_callback = e->ts;
		t->callback_topic = (uint32_t)e->arg[0];
		return 0;
	case TP_TAKE_RETURN:
		on_take_return(m, t, e);
		return 0;
	default:
		return 0;
	}
}

void matcher_finish(struct trace_matcher *m)
{
	for (size_t i = 0; i < m->n_s; i++) {
		struct sample *s = &m->s[i];

		/* A template that reached no reader (nobody subscribed) is no delivery. */
		if ((s->flags & (SAMPLE_TEMPLATE | SAMPLE_DONE)) ||
		    (s->ts[TP_ROUTED] && !s->ts[TP_CLIENT_ENQUEUED] && !s->ts[TP_ENCODED] && !s->ts[TP_SENT]))
			continue;
		sample_close(m, s);
	}
}

const struct trace_run *matcher_runs(const struct trace_matcher *m, size_t *ret_n)
{
	struct trace_matcher *mm = (struct trace_matcher *)m;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(m->runs) / sizeof(m->runs[0]); i++) {
		if (m->run_seen[i])
			mm->out[n++] = m->runs[i];
	}
	*ret_n = n;
	return mm->out;
}

uint64_t matcher_unmatched_other(const struct trace_matcher *m)
{
	return m->unmatched_other;
}

uint64_t matcher_taken(const struct trace_matcher *m)
{
	return m->taken;
}
