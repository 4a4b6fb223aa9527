/* SPDX-License-Identifier: MIT */
/*
 * session.c - one client: handshake, control requests, the request-ring
 * pump, back-pressure stalls, teardown.
 *
 * OVERVIEW
 * Invariants (see session.h for the model):
 * - Every table (topics, writers, readers, free arena ranges) is allocated
 *   at Hello with the config's caps and never grows.
 * - The daemon never reads back what it published in the segment: offsets,
 *   sizes and indices it chose live here (hdr values copied at creation,
 *   ring_cons/rring_prod private indices).
 * - Records are copied out of the ring (ring_cons_next) before anything
 *   looks at them; a stalled record is kept in the session's private
 *   stall_buf, never in the ring.
 * - The pump takes consecutive small records of one writer as a batch
 *   (batch_buf) and routes them in one broker_write_many; records after one
 *   that stalls go back to the ring (ring_cons_rewind: not yet released, so
 *   copied and checked again when taken again), so order is kept and at
 *   most one record waits outside the ring.
 * - broker readers are freed before the segment holding their rings is
 *   unmapped, and manager_reader_gone runs before every reader free, so no
 *   stall keeps a pointer to a freed reader.
 * - Only this file and manager.c log, and errors a client can trigger are
 *   rate limited.
 */
#include "session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctl.h"
#include "doorbell.h"
#include "layout.h"
#include "log.h"
#include "ipc/probes.h"
#include "manager.h"

#define SESSION_CTL_BATCH 16 /* control messages per readable event */
#define SESSION_DEFAULT_DEPTH 64u
#define SESSION_MAX_DEPTH 65536u
#define SESSION_STALL_REARM_TRIES 4
/* Linux 6.5; older headers lack the name, older kernels answer ENOPROTOOPT. */
#ifdef SO_PEERPIDFD
#define SESSION_SO_PEERPIDFD SO_PEERPIDFD
#else
#define SESSION_SO_PEERPIDFD 77
#endif

/* ---------------- small helpers ------------------------------------------ */

static uint32_t session_bits_for(uint32_t n)
{
	uint32_t bits = 0;

	while ((1u << bits) < n && bits < 16)
		bits++;
	return bits;
}

static uint32_t session_pow2_at_least(uint32_t x)
{
	uint32_t p = 1;

	while (p < x && p < (1u << 31))
		p <<= 1;
	return p;
}

static int64_t session_now(void)
{
	return log_now_ns();
}

/* Replace anything not printable ASCII, so names are safe to print and log. */
static void session_copy_name(char *dst, size_t cap, const char *src)
{
	size_t i;

	if (src == NULL)
		src = "";
	for (i = 0; i + 1 < cap && src[i] != '\0'; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	dst[i] = '\0';
}

/* ---------------- replies ------------------------------------------------ */

/*
 * Send a reply. rep is owned by the caller and only read. A failure to send
 * means the client does not read its replies (the socket buffer is full) or
 * is gone; both end the session.
 */
static int session_send(struct session *s, Sdds__Ctl__Reply *rep, const int *fds, size_t n_fds)
{
	int rc = ctl_send_reply(s->fd, rep, fds, n_fds);

	if (rc == -EAGAIN) {
		session_kill(s, true, "client does not read its control replies");
		return rc;
	}
	if (rc < 0) {
		session_kill(s, false, "cannot send control reply");
		return rc;
	}
	return 0;
}

/* An error reply: status -errno, a reason for humans. */
static int session_reply_error(struct session *s, uint32_t id, int status, const char *reason)
{
	Sdds__Ctl__Reply rep = SDDS__CTL__REPLY__INIT;

	rep.id = id;
	rep.status = status;
	rep.reason = (char *)reason;
	return session_send(s, &rep, NULL, 0);
}

/* A request refused without harm to the session: counted, answered. */
static void session_refuse(struct session *s, uint32_t id, int status, const char *reason)
{
	s->rejected++;
	if (status == -ENOSPC)
		s->m->sessions_over_limit++;
	session_reply_error(s, id, status, reason);
}

/* A protocol violation on the control socket: answer if possible, then go. */
static void session_violation(struct session *s, uint32_t id, int status, const char *reason)
{
	session_reply_error(s, id, status, reason);
	session_kill(s, true, reason);
}

/* ---------------- lifetime ----------------------------------------------- */

static void session_on_ctl(uv_poll_t *h, int status, int events);
static void session_on_evt(uv_poll_t *h, int status, int events);

int session_new(struct manager *m, int fd, bool pressure)
{
	struct admission_ticket *victim = NULL;
	struct session *s;
	int rc;

	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		close(fd);
		return -ENOMEM;
	}
	s->m = m;
	s->fd = fd;
	s->efd = -1;
	s->seg.fd = -1;
	s->state = SESSION_HANDSHAKE;
	s->created_ns = session_now();
	rc = ctl_peercred(fd, &s->pid, &s->uid, &s->gid);
	if (rc < 0)
		goto fail_free;
	/* Before anything costly: a refused newcomer must be cheap to turn away. */
	rc = admission_connect(&m->adm, s->uid, manager_may_attest(m, s->uid), pressure, &s->ticket, &victim);
	if (rc == -EBUSY) {
		m->sessions_over_limit++;
		log_rl(LOG_PRIO_WARNING, "pid %d uid %u: refused: too many connections without Hello%s",
		       (int)s->pid, (unsigned)s->uid, pressure ? " and no descriptor left" : "");
		goto fail_free;
	}
	if (rc < 0)
		goto fail_free;
	if (victim != NULL) {
		struct session *v = (struct session *)((char *)victim - offsetof(struct session, ticket));

		m->sessions_over_limit++;
		log_rl(LOG_PRIO_WARNING,
		       "uid %u: dropping its oldest connection without Hello (pid %d) to make room for pid "
		       "%d uid %u",
		       (unsigned)v->uid, (int)v->pid, (int)s->pid, (unsigned)s->uid);
		session_kill(v, false, "dropped to make room: no Hello yet");
	}
	/* Now, pinned by a pidfd where the kernel gives one (policy.h). */
	{
		socklen_t len = sizeof(int);
		int pidfd = -1;

		if (getsockopt(fd, SOL_SOCKET, SESSION_SO_PEERPIDFD, &pidfd, &len) < 0)
			pidfd = -1;
		policy_peer_probe(&s->peer, s->pid, s->uid, s->gid, pidfd, "/proc");
		if (pidfd >= 0)
			close(pidfd);
	}
	rc = uv_poll_init(&m->loop, &s->ctl_poll, fd);
	if (rc < 0)
		goto fail_ticket;
	s->ctl_poll.data = s;
	s->open_handles = 1;
	TAILQ_INSERT_TAIL(&m->sessions, s, link);
	m->n_handshake++;
	rc = uv_poll_start(&s->ctl_poll, UV_READABLE | UV_DISCONNECT, session_on_ctl);
	if (rc < 0) {
		session_kill(s, false, "cannot poll the control socket");
		return rc;
	}
	return 0;

fail_ticket:
	admission_leave(&m->adm, &s->ticket);
fail_free:
	close(fd);
	free(s);
	return rc;
}

static void session_on_close(uv_handle_t *h)
{
	struct session *s = h->data;

	if (--s->open_handles == 0)
		free(s);
}

void session_kill(struct session *s, bool protocol, const char *why)
{
	struct manager *m = s->m;

	if (s->dead)
		return;
	s->dead = true;
	if (protocol) {
		m->sessions_protocol_errors++;
		log_rl(LOG_PRIO_WARNING, "session %u (pid %d, '%s'): protocol error: %s; disconnecting",
		       s->id, (int)s->pid, s->name, why);
	} else {
		log_debug("session %u (pid %d, '%s'): closing: %s", s->id, (int)s->pid, s->name, why);
	}
	/* No more callbacks for a dead session; the handles close at teardown. */
	uv_poll_stop(&s->ctl_poll);
	if (s->evt_poll_open)
		uv_poll_stop(&s->evt_poll);
	/* Lists are left alone: a caller may be walking them; manager_reap unlinks. */
	TAILQ_INSERT_TAIL(&m->doomed, s, doom_link);
}

static void session_stall_clear(struct session *s)
{
	if (!s->stalled)
		return;
	if (s->stall_blocker != NULL)
		rring_prod_stop_wait_space(broker_reader_ring(s->stall_blocker));
	s->stall_blocker = NULL;
	s->stall_w = NULL;
	s->stalled = false;
	manager_stall_remove(s->m, s);
}

void session_teardown(struct session *s)
{
	struct manager *m = s->m;
	uint32_t i;

	session_stall_clear(s);
	admission_leave(&m->adm, &s->ticket);
	if (s->state == SESSION_READY)
		m->n_ready--;
	else
		m->n_handshake--;
	for (i = 0; s->readers != NULL && i < (1u << s->reader_bits); i++) {
		if (s->readers[i].id == 0)
			continue;
		manager_reader_gone(m, s->readers[i].r);
		broker_reader_free(s->readers[i].r);
	}
	for (i = 0; s->writers != NULL && i < (1u << s->writer_bits); i++) {
		if (s->writers[i].id != 0)
			broker_writer_free(s->writers[i].w);
	}
	for (i = 0; i < s->n_topics; i++)
		broker_topic_put(s->topics[i]);
	/* Rings in the segment are referenced by nobody any more. */
	segment_close(&s->seg);
	free(s->topics);
	free(s->writers);
	free(s->readers);
	arena_fini(&s->arena);
	free(s->rec_buf);
	free(s->stall_buf);
	free(s->batch_buf);
	if (s->pending_req != NULL)
		sdds__ctl__request__free_unpacked(s->pending_req, NULL);
	s->pending_req = NULL;
	s->topics = NULL;
	s->writers = NULL;
	s->readers = NULL;
	s->rec_buf = NULL;
	s->stall_buf = NULL;
	s->batch_buf = NULL;

	/* uv_close stops polling synchronously, so the fds may close right after. */
	uv_close((uv_handle_t *)&s->ctl_poll, session_on_close);
	close(s->fd);
	s->fd = -1;
	if (s->evt_poll_open) {
		s->open_handles++;
		uv_close((uv_handle_t *)&s->evt_poll, session_on_close);
	}
	if (s->efd >= 0)
		close(s->efd);
	s->efd = -1;
}

void session_heartbeat(struct session *s)
{
	if (s->state == SESSION_READY && !s->dead)
		atomic_fetch_add_explicit(&s->hdr->heartbeat, 1, memory_order_release);
}

/* ---------------- handshake ---------------------------------------------- */

static int session_alloc_tables(struct session *s)
{
	const struct sddsd_config *cfg = &s->m->cfg;

	s->max_topics = cfg->max_topics_per_client;
	s->max_writers = cfg->max_writers_per_client;
	s->max_readers = cfg->max_readers_per_client;
	s->writer_bits = session_bits_for(s->max_writers);
	s->reader_bits = session_bits_for(s->max_readers);
	s->writer_serial = 1;
	s->reader_serial = 1;
	s->buf_cap = s->max_record - (uint32_t)sizeof(struct sdds_rec);
	s->topics = calloc(s->max_topics ? s->max_topics : 1, sizeof(*s->topics));
	s->writers = calloc(1u << s->writer_bits, sizeof(*s->writers));
	s->readers = calloc(1u << s->reader_bits, sizeof(*s->readers));
	s->rec_buf = malloc(s->buf_cap);
	s->stall_buf = malloc(s->buf_cap);
	s->batch_buf = malloc((size_t)SESSION_BATCH * SESSION_BATCH_STRIDE);
	/* One arena range per reader ring; the session's teardown frees what was made. */
	if (arena_init(&s->arena, s->max_readers) < 0 || s->topics == NULL || s->writers == NULL ||
	    s->readers == NULL || s->rec_buf == NULL || s->stall_buf == NULL || s->batch_buf == NULL)
		return -ENOMEM;
	return 0;
}

static void session_handle_hello(struct session *s, const Sdds__Ctl__Request *req)
{
	struct manager *m = s->m;
	const struct sddsd_config *cfg = &m->cfg;
	const Sdds__Ctl__Hello *h = req->hello;
	Sdds__Ctl__Reply rep = SDDS__CTL__REPLY__INIT;
	Sdds__Ctl__HelloReply hr = SDDS__CTL__HELLO_REPLY__INIT;
	struct segment_params params;
	struct sdds_seg_hdr *hdr;
	char reason[160];
	char segname[32];
	uint64_t arena_start;
	int fds[2];
	int rc;

	if (h == NULL || h->protocol_version != CTL_PROTOCOL_VERSION ||
	    h->layout_version != SDDS_LAYOUT_VERSION) {
		snprintf(reason, sizeof(reason),
			 "unsupported protocol %u / layout %u (the daemon speaks protocol %u, layout %u)",
			 h ? h->protocol_version : 0, h ? h->layout_version : 0, CTL_PROTOCOL_VERSION,
			 SDDS_LAYOUT_VERSION);
		session_violation(s, req->id, -EPROTONOSUPPORT, reason);
		return;
	}
	if (admission_hello(&m->adm, &s->ticket, reason, sizeof(reason)) < 0) {
		m->sessions_over_limit++;
		log_rl(LOG_PRIO_WARNING, "refusing pid %d uid %u: %s", (int)s->pid, (unsigned)s->uid, reason);
		session_reply_error(s, req->id, -ENOSPC, reason);
		session_kill(s, false, reason);
		return;
	}
	session_copy_name(s->name, sizeof(s->name), h->name);
	s->id = m->next_session_id++;
	if (m->next_session_id == 0)
		m->next_session_id = 1;
	s->max_record = config_max_record(cfg);
	rc = session_alloc_tables(s);
	if (rc < 0)
		goto fail;

	memset(&params, 0, sizeof(params));
	params.req_cap = cfg->request_ring_bytes;
	params.max_record = s->max_record;
	params.arena_size = cfg->arena_bytes;
	params.epoch = m->epoch;
	params.session_id = s->id;
	params.flags = cfg->poll ? SDDS_SEG_F_DAEMON_POLLING : 0;
	snprintf(segname, sizeof(segname), "sddsd-session-%u", s->id);
	rc = segment_create(&params, segname, &s->seg);
	if (rc < 0)
		goto fail;
	/* The client has not seen the segment yet: its header is still ours to read. */
	hdr = segment_hdr(&s->seg);
	s->hdr = hdr;
	s->arena_off = hdr->arena_off;
	s->arena_size = hdr->arena_size;
	rc = ring_cons_init(&s->req,
			    segment_at(&s->seg, hdr->req_off, sizeof(struct sdds_ring_ctl) + params.req_cap),
			    params.req_cap, s->max_record);
	if (rc < 0)
		goto fail;
	/* Reader rings start SDDS_RRING_ALIGN-aligned in the segment. */
	arena_start = (s->arena_off + SDDS_RRING_ALIGN - 1) & ~(uint64_t)(SDDS_RRING_ALIGN - 1);
	if (arena_start - s->arena_off < s->arena_size)
		arena_set(&s->arena, arena_start - s->arena_off,
			  (s->arena_size - (arena_start - s->arena_off)) & ~(uint64_t)(SDDS_RRING_ALIGN - 1));

	s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->efd < 0) {
		rc = -errno;
		goto fail;
	}
	rc = uv_poll_init(&m->loop, &s->evt_poll, s->efd);
	if (rc < 0)
		goto fail;
	s->evt_poll.data = s;
	s->evt_poll_open = true;
	rc = uv_poll_start(&s->evt_poll, UV_READABLE, session_on_evt);
	if (rc < 0)
		goto fail;

	hr.session_id = s->id;
	hr.epoch = m->epoch;
	hr.seg_size = s->seg.size;
	hr.max_sample = cfg->max_sample;
	hr.daemon_polling = cfg->poll;
	rep.id = req->id;
	rep.status = 0;
	rep.body_case = SDDS__CTL__REPLY__BODY_HELLO;
	rep.hello = &hr;
	fds[0] = s->seg.fd;
	fds[1] = s->efd;
	s->state = SESSION_READY;
	m->n_handshake--;
	m->n_ready++;
	m->sessions_total++;
	s->last_active_ns = session_now();
	if (session_send(s, &rep, fds, 2) < 0)
		return;
	log_debug("session %u: pid %d uid %u name '%s' connected", s->id, (int)s->pid, (unsigned)s->uid,
		  s->name);
	/* Blocking mode: announce at once that we sleep on the (empty) ring. */
	manager_mark_hot(m, s);
	return;

fail:
	snprintf(reason, sizeof(reason), "cannot set up the session: %s", strerror(-rc));
	log_rl(LOG_PRIO_ERR, "session for pid %d: %s", (int)s->pid, reason);
	session_reply_error(s, req->id, rc, reason);
	session_kill(s, false, reason);
}

/* ---------------- topics, writers, readers -------------------------------- */

static struct broker_topic *session_topic(struct session *s, uint32_t handle)
{
	if (handle == 0 || handle > s->n_topics)
		return NULL;
	return s->topics[handle - 1];
}

static void session_handle_register_topic(struct session *s, const Sdds__Ctl__Request *req)
{
	const Sdds__Ctl__RegisterTopic *rt = req->register_topic;
	Sdds__Ctl__Reply rep = SDDS__CTL__REPLY__INIT;
	Sdds__Ctl__TopicReply tr = SDDS__CTL__TOPIC_REPLY__INIT;
	struct broker_topic_desc desc;
	struct broker_topic *t;
	char reason[160];
	uint32_t i;
	int rc;

	if (rt == NULL || rt->domain > UINT16_MAX || rt->topic_id > UINT16_MAX) {
		session_refuse(s, req->id, -EINVAL, "domain and topic id must be 0..65535");
		return;
	}
	if (rt->name != NULL && strlen(rt->name) >= BROKER_NAME_MAX) {
		session_refuse(s, req->id, -EINVAL, "topic name too long");
		return;
	}
	if (rt->n_fields > BROKER_MAX_FIELDS) {
		session_refuse(s, req->id, -EINVAL, "too many fields");
		return;
	}
	memset(&desc, 0, sizeof(desc));
	desc.domain = (uint16_t)rt->domain;
	desc.topic_id = (uint16_t)rt->topic_id;
	session_copy_name(desc.name, sizeof(desc.name), rt->name);
	desc.sample_size = rt->sample_size;
	desc.n_fields = (uint32_t)rt->n_fields;
	for (i = 0; i < desc.n_fields; i++) {
		const Sdds__Ctl__Field *f = rt->fields[i];

		if (f == NULL || f->type <= SDDS__CTL__FIELD_TYPE__FIELD_INVALID ||
		    f->type > SDDS__CTL__FIELD_TYPE__FIELD_ENUM) {
			session_refuse(s, req->id, -EINVAL, "field with an invalid type");
			return;
		}
		if (f->name != NULL && strlen(f->name) >= BROKER_NAME_MAX) {
			session_refuse(s, req->id, -EINVAL, "field name too long");
			return;
		}
		desc.fields[i].type = (uint8_t)f->type;
		desc.fields[i].size = f->size;
		session_copy_name(desc.fields[i].name, sizeof(desc.fields[i].name), f->name);
	}
	rc = broker_topic_get(s->m->broker, &desc, &t);
	if (rc < 0) {
		switch (rc) {
		case -EINVAL:
			snprintf(
			    reason, sizeof(reason),
			    "topic %u/%u: bad layout, or it exists with a different sample size or fields",
			    rt->domain, rt->topic_id);
			break;
		case -ENOSPC:
			snprintf(reason, sizeof(reason), "the daemon's topic table is full");
			break;
		case -EMSGSIZE:
			snprintf(reason, sizeof(reason), "sample size %u is over the daemon's max_sample %u",
				 rt->sample_size, s->m->cfg.max_sample);
			break;
		default:
			snprintf(reason, sizeof(reason), "cannot register topic: %s", strerror(-rc));
			break;
		}
		session_refuse(s, req->id, rc, reason);
		return;
	}
	/* Registering twice gives the same handle and holds one reference. */
	for (i = 0; i < s->n_topics; i++) {
		if (s->topics[i] == t) {
			broker_topic_put(t);
			break;
		}
	}
	if (i == s->n_topics) {
		if (s->n_topics >= s->max_topics) {
			broker_topic_put(t);
			snprintf(reason, sizeof(reason),
				 "too many topics for one client (max_topics_per_client = %u)",
				 s->max_topics);
			session_refuse(s, req->id, -ENOSPC, reason);
			return;
		}
		s->topics[s->n_topics++] = t;
	}
	tr.topic_handle = i + 1;
	rep.id = req->id;
	rep.body_case = SDDS__CTL__REPLY__BODY_TOPIC;
	rep.topic = &tr;
	session_send(s, &rep, NULL, 0);
}

/* Parse a Qos; NULL means defaults. Returns 0 or -EINVAL. */
static int session_qos(const Sdds__Ctl__Qos *q, struct broker_qos *ret)
{
	struct broker_qos qos = {BROKER_BEST_EFFORT, 0, 0};

	if (q != NULL) {
		if (q->reliability == SDDS__CTL__RELIABILITY__RELIABLE)
			qos.reliability = BROKER_RELIABLE;
		else if (q->reliability != SDDS__CTL__RELIABILITY__BEST_EFFORT)
			return -EINVAL;
		qos.history_depth = q->history_depth;
		qos.max_blocking_ms = q->max_blocking_ms;
	}
	*ret = qos;
	return 0;
}

/* A new id for table slot `slot`; 0 when the serials ran out. */
static uint32_t session_make_id(uint32_t *serial, uint32_t bits, uint32_t slot)
{
	uint32_t id;

	if (*serial > (UINT32_MAX >> bits))
		return 0;
	id = (*serial << bits) | slot;
	(*serial)++;
	return id;
}

/*
 * Ask the access policy. Returns true when allowed; otherwise the request
 * is refused with -EACCES, counted and logged (rate limited) here.
 */
static bool session_policy_allows(struct session *s, uint32_t req_id, struct broker_topic *t,
				  enum policy_op op)
{
	const struct broker_topic_desc *d = broker_topic_desc(t);
	struct policy_denial den = {0};
	struct policy_verdict v;
	char reason[256], why[48];

	if (policy_check(s->m->policy, &s->peer, op, d->domain, d->topic_id, &v) < 0 || v.allowed)
		return true;
	if (v.line != 0)
		snprintf(why, sizeof(why), "denied by line %u", v.line);
	else
		snprintf(why, sizeof(why), "no rule allows it");
	snprintf(reason, sizeof(reason), "access policy: %s%s%s (uid %u) may not %s topic %u:%u '%s' (%s)",
		 v.identity != NULL ? "identity '" : "a client without identity",
		 v.identity != NULL ? v.identity : "", v.identity != NULL ? "'" : "", (unsigned)s->uid,
		 op == POLICY_WRITE ? "write" : "read", d->domain, d->topic_id, d->name, why);
	s->denied++;
	den.when_ns = session_now();
	den.session_id = s->id;
	den.pid = s->pid;
	den.uid = s->uid;
	den.op = op;
	den.domain = d->domain;
	den.topic_id = d->topic_id;
	if (v.identity != NULL)
		snprintf(den.identity, sizeof(den.identity), "%s", v.identity);
	manager_policy_denied(s->m, &den);
	log_rl(LOG_PRIO_WARNING, "session %u (pid %d, '%s'): %s", s->id, (int)s->pid, s->name, reason);
	session_refuse(s, req_id, -EACCES, reason);
	return false;
}

static void session_handle_create_writer(struct session *s, const Sdds__Ctl__Request *req)
{
	const Sdds__Ctl__CreateWriter *cw = req->create_writer;
	Sdds__Ctl__Reply rep = SDDS__CTL__REPLY__INIT;
	Sdds__Ctl__WriterReply wr = SDDS__CTL__WRITER_REPLY__INIT;
	struct broker_topic *t;
	struct broker_writer *w;
	struct broker_qos qos;
	char reason[128];
	uint32_t slot, id;
	int rc;

	t = cw != NULL ? session_topic(s, cw->topic_handle) : NULL;
	if (t == NULL) {
		session_refuse(s, req->id, -EINVAL, "unknown topic handle");
		return;
	}
	if (session_qos(cw->qos, &qos) < 0) {
		session_refuse(s, req->id, -EINVAL, "unknown reliability kind");
		return;
	}
	if (!session_policy_allows(s, req->id, t, POLICY_WRITE))
		return;
	if (s->n_writers >= s->max_writers) {
		snprintf(reason, sizeof(reason),
			 "too many writers for one client (max_writers_per_client = %u)", s->max_writers);
		session_refuse(s, req->id, -ENOSPC, reason);
		return;
	}
	for (slot = 0; s->writers[slot].id != 0; slot++)
		;
	id = session_make_id(&s->writer_serial, s->writer_bits, slot);
	if (id == 0) {
		session_refuse(s, req->id, -ENOSPC, "writer ids of this session are used up");
		return;
	}
	rc = broker_writer_new(s->m->broker, t, &qos, s->id, &w);
	if (rc < 0) {
		snprintf(reason, sizeof(reason), "cannot create writer: %s",
			 rc == -ENOSPC ? "the daemon's endpoint table is full" : strerror(-rc));
		session_refuse(s, req->id, rc, reason);
		return;
	}
	s->writers[slot].id = id;
	s->writers[slot].w = w;
	s->n_writers++;
	wr.writer_id = id;
	rep.id = req->id;
	rep.body_case = SDDS__CTL__REPLY__BODY_WRITER;
	rep.writer = &wr;
	session_send(s, &rep, NULL, 0);
}

static void session_reader_notify(struct broker_reader *r, void *owner)
{
	struct session *s = owner;

	(void)r;
	doorbell_notify(&s->hdr->evt);
}

static void session_handle_create_reader(struct session *s, const Sdds__Ctl__Request *req)
{
	const Sdds__Ctl__CreateReader *cr = req->create_reader;
	Sdds__Ctl__Reply rep = SDDS__CTL__REPLY__INIT;
	Sdds__Ctl__ReaderReply rr = SDDS__CTL__READER_REPLY__INIT;
	struct broker_topic *t;
	struct broker_reader *r;
	struct broker_qos qos;
	struct rring_prod prod;
	struct sdds_rring_ctl *ctl;
	char reason[160];
	uint32_t slot, id, cap, slot_size, sample_size;
	uint64_t bytes, off;
	int rc;

	t = cr != NULL ? session_topic(s, cr->topic_handle) : NULL;
	if (t == NULL) {
		session_refuse(s, req->id, -EINVAL, "unknown topic handle");
		return;
	}
	if (session_qos(cr->qos, &qos) < 0) {
		session_refuse(s, req->id, -EINVAL, "unknown reliability kind");
		return;
	}
	if (!session_policy_allows(s, req->id, t, POLICY_READ))
		return;
	if (s->n_readers >= s->max_readers) {
		snprintf(reason, sizeof(reason),
			 "too many readers for one client (max_readers_per_client = %u)", s->max_readers);
		session_refuse(s, req->id, -ENOSPC, reason);
		return;
	}
	cap = qos.history_depth == 0 ? SESSION_DEFAULT_DEPTH : qos.history_depth;
	if (cap > SESSION_MAX_DEPTH)
		cap = SESSION_MAX_DEPTH;
	cap = session_pow2_at_least(cap);
	if (cap < 2)
		cap = 2;
	sample_size = broker_topic_desc(t)->sample_size;
	slot_size = rring_slot_size(sample_size);
	/* A multiple of SDDS_RRING_ALIGN, so ranges carved back to back stay aligned. */
	bytes = rring_size(cap, sample_size);
	if (slot_size == 0 || bytes == 0 || arena_alloc(&s->arena, bytes, &off) < 0) {
		snprintf(
		    reason, sizeof(reason),
		    "no room for a ring of %u slots of %u bytes in the client's arena (arena_bytes = %" PRIu64
		    ")",
		    cap, slot_size, s->arena_size);
		session_refuse(s, req->id, -ENOSPC, reason);
		return;
	}
	for (slot = 0; s->readers[slot].id != 0; slot++)
		;
	id = session_make_id(&s->reader_serial, s->reader_bits, slot);
	if (id == 0) {
		arena_free(&s->arena, off, bytes);
		session_refuse(s, req->id, -ENOSPC, "reader ids of this session are used up");
		return;
	}
	ctl = segment_at(&s->seg, s->arena_off + off, bytes);
	/* rring_format clears the slot sequences a former reader left here. */
	rring_format(ctl, cap, slot_size);
	rc = rring_prod_init(&prod, ctl, cap, slot_size);
	if (rc == 0)
		rc = broker_reader_new(s->m->broker, t, &qos, s->id, &prod, session_reader_notify, s, &r);
	if (rc < 0) {
		arena_free(&s->arena, off, bytes);
		snprintf(reason, sizeof(reason), "cannot create reader: %s",
			 rc == -ENOSPC ? "the daemon's endpoint table is full" : strerror(-rc));
		session_refuse(s, req->id, rc, reason);
		return;
	}
	s->readers[slot].id = id;
	s->readers[slot].r = r;
	s->readers[slot].range_off = off;
	s->readers[slot].range_len = bytes;
	s->readers[slot].cap = cap;
	s->n_readers++;
	rr.reader_id = id;
	rr.ring_off = s->arena_off + off;
	rr.cap = cap;
	rr.slot_size = slot_size;
	rep.id = req->id;
	rep.body_case = SDDS__CTL__REPLY__BODY_READER;
	rep.reader = &rr;
	session_send(s, &rep, NULL, 0);
}

static struct session_writer *session_writer_lookup(struct session *s, uint32_t id)
{
	struct session_writer *sw = &s->writers[id & ((1u << s->writer_bits) - 1)];

	return (id != 0 && sw->id == id) ? sw : NULL;
}

static struct session_reader *session_reader_lookup(struct session *s, uint32_t id)
{
	struct session_reader *sr = &s->readers[id & ((1u << s->reader_bits) - 1)];

	return (id != 0 && sr->id == id) ? sr : NULL;
}

static void session_handle_delete(struct session *s, const Sdds__Ctl__Request *req, bool reader)
{
	const Sdds__Ctl__DeleteEndpoint *de = reader ? req->delete_reader : req->delete_writer;
	Sdds__Ctl__Reply rep = SDDS__CTL__REPLY__INIT;
	uint32_t id = de != NULL ? de->id : 0;

	if (reader) {
		struct session_reader *sr = session_reader_lookup(s, id);

		if (sr == NULL) {
			session_refuse(s, req->id, -EINVAL, "unknown reader id");
			return;
		}
		s->retired.delivered += broker_reader_counters(sr->r)->delivered;
		s->retired.dropped += broker_reader_counters(sr->r)->dropped;
		manager_reader_gone(s->m, sr->r);
		broker_reader_free(sr->r);
		arena_free(&s->arena, sr->range_off, sr->range_len);
		memset(sr, 0, sizeof(*sr));
		s->n_readers--;
	} else {
		struct session_writer *sw = session_writer_lookup(s, id);

		if (sw == NULL) {
			session_refuse(s, req->id, -EINVAL, "unknown writer id");
			return;
		}
		s->retired.written += broker_writer_counters(sw->w)->written;
		s->retired.rejected += broker_writer_counters(sw->w)->rejected;
		/* Control is not read while stalled, so no stall refers to sw->w. */
		broker_writer_free(sw->w);
		memset(sw, 0, sizeof(*sw));
		s->n_writers--;
	}
	rep.id = req->id;
	session_send(s, &rep, NULL, 0);
}

static void session_handle_stats(struct session *s, const Sdds__Ctl__Request *req)
{
	Sdds__Ctl__Reply rep = SDDS__CTL__REPLY__INIT;
	struct manager_stats st;
	char reason[96];

	if (s->uid != 0 && s->uid != s->m->uid) {
		snprintf(reason, sizeof(reason), "stats are for root and uid %u only", (unsigned)s->m->uid);
		s->rejected++;
		session_reply_error(s, req->id, -EACCES, reason);
		return;
	}
	if (manager_stats_build(s->m, &st) < 0) {
		session_reply_error(s, req->id, -ENOMEM, "out of memory building stats");
		return;
	}
	rep.id = req->id;
	rep.body_case = SDDS__CTL__REPLY__BODY_STATS;
	rep.stats = &st.stats;
	/* Drop detail, coarsest last, until the reply fits in one packet. */
	for (int level = 0;; level++) {
		if (sdds__ctl__reply__get_packed_size(&rep) <= CTL_MAX_PACKET)
			break;
		if (level == 0) {
			st.stats.n_endpoints = 0;
			rep.reason = "truncated: endpoints omitted (too many for one packet)";
		} else if (level == 1) {
			st.stats.n_topics = 0;
			rep.reason = "truncated: topics and endpoints omitted (too many for one packet)";
		} else {
			st.stats.n_clients = 0;
			rep.reason = "truncated: only totals (too many clients for one packet)";
			break;
		}
	}
	session_send(s, &rep, NULL, 0);
	manager_stats_free(&st);
}

/* ---------------- the control socket -------------------------------------- */

static void session_handle_request(struct session *s, const Sdds__Ctl__Request *req);

/*
 * Attest: a trusted launcher names the application it connects for. Only
 * as the very first message, and only from a trusted uid; anything else is
 * refused with -EPERM and the session stays as it was (un-attested).
 */
static void session_handle_attest(struct session *s, const Sdds__Ctl__Request *req, bool first)
{
	const char *name = req->attest != NULL && req->attest->identity != NULL ? req->attest->identity : "";
	Sdds__Ctl__Reply rep = SDDS__CTL__REPLY__INIT;
	char reason[160];

	if (!first || s->state != SESSION_HANDSHAKE) {
		session_refuse(s, req->id, -EPERM,
			       "Attest is accepted only as the first message of a connection");
		return;
	}
	if (!manager_may_attest(s->m, s->uid)) {
		snprintf(reason, sizeof(reason),
			 "uid %u may not attest identities (root, uid %u and attest_uid only)",
			 (unsigned)s->uid, (unsigned)s->m->uid);
		log_rl(LOG_PRIO_WARNING, "pid %d uid %u: Attest refused: not a trusted uid", (int)s->pid,
		       (unsigned)s->uid);
		session_refuse(s, req->id, -EPERM, reason);
		return;
	}
	if (!policy_name_valid(name, strlen(name))) {
		session_refuse(s, req->id, -EINVAL,
			       "Attest: not an identity name (1..63 of A-Z a-z 0-9 _ . : @ -)");
		return;
	}
	snprintf(s->peer.attested, sizeof(s->peer.attested), "%s", name);
	log_debug("pid %d uid %u attests identity '%s'", (int)s->pid, (unsigned)s->uid, name);
	rep.id = req->id;
	session_send(s, &rep, NULL, 0);
}

/*
 * Handle one request. Returns true when it was kept (s->pending_req took
 * ownership of req), false when the caller frees it.
 */
static bool session_dispatch(struct session *s, Sdds__Ctl__Request *req)
{
	bool first = !s->spoke;

	s->spoke = true;
	if (req->body_case == SDDS__CTL__REQUEST__BODY_ATTEST && s->state == SESSION_HANDSHAKE) {
		session_handle_attest(s, req, first);
		return false;
	}
	if (s->state == SESSION_HANDSHAKE) {
		if (req->body_case != SDDS__CTL__REQUEST__BODY_HELLO)
			session_violation(s, req->id, -EPROTO, "the first message must be Hello");
		else
			session_handle_hello(s, req);
		return false;
	}
	/* Records the client published before this request go first. */
	session_pump(s, false);
	if (s->dead)
		return false;
	if (s->stalled) {
		/* Handled once the stall resolves (see session_pump). */
		s->pending_req = req;
		return true;
	}
	session_handle_request(s, req);
	return false;
}

/* An established session's request, after the records published before it. */
static void session_handle_request(struct session *s, const Sdds__Ctl__Request *req)
{
	switch (req->body_case) {
	case SDDS__CTL__REQUEST__BODY_REGISTER_TOPIC:
		session_handle_register_topic(s, req);
		break;
	case SDDS__CTL__REQUEST__BODY_CREATE_WRITER:
		session_handle_create_writer(s, req);
		break;
	case SDDS__CTL__REQUEST__BODY_CREATE_READER:
		session_handle_create_reader(s, req);
		break;
	case SDDS__CTL__REQUEST__BODY_DELETE_WRITER:
		session_handle_delete(s, req, false);
		break;
	case SDDS__CTL__REQUEST__BODY_DELETE_READER:
		session_handle_delete(s, req, true);
		break;
	case SDDS__CTL__REQUEST__BODY_STATS:
		session_handle_stats(s, req);
		break;
	case SDDS__CTL__REQUEST__BODY_HELLO:
		session_violation(s, req->id, -EPROTO, "a second Hello");
		break;
	case SDDS__CTL__REQUEST__BODY_ATTEST:
		session_handle_attest(s, req, false);
		break;
	default:
		session_violation(s, req->id, -EPROTO, "a request without a known body");
		break;
	}
}

/* The client hung up: deliver what it published, without waiting, then go. */
static void session_gone(struct session *s)
{
	if (s->state == SESSION_READY && !s->dead)
		session_pump(s, true);
	session_kill(s, false, "client hung up");
}

static void session_read_ctl(struct session *s, int events)
{
	for (int i = 0; i < SESSION_CTL_BATCH && !s->dead && !s->ctl_paused; i++) {
		Sdds__Ctl__Request *req = NULL;
		int fds[CTL_MAX_FDS];
		size_t n_fds = 0;
		int rc;

		rc = ctl_recv_request(s->fd, &req, fds, CTL_MAX_FDS, &n_fds);
		if (rc == -EAGAIN) {
			/* Nothing left to read: a hang-up flag now means the peer is gone. */
			if (events & UV_DISCONNECT)
				session_gone(s);
			return;
		}
		if (rc == -EBADMSG) {
			session_violation(s, 0, -EBADMSG, "a control message that does not parse");
			return;
		}
		if (rc < 0) {
			session_gone(s);
			return;
		}
		if (n_fds > 0) {
			for (size_t k = 0; k < n_fds; k++)
				close(fds[k]);
			session_violation(s, req->id, -EPROTO, "file descriptors attached to a request");
			sdds__ctl__request__free_unpacked(req, NULL);
			return;
		}
		if (!session_dispatch(s, req))
			sdds__ctl__request__free_unpacked(req, NULL);
	}
}

static void session_on_ctl(uv_poll_t *h, int status, int events)
{
	struct session *s = h->data;
	struct manager *m = s->m;

	if (status < 0)
		session_gone(s);
	else if (s->ctl_paused)
		session_gone(s); /* only UV_DISCONNECT is polled while paused */
	else
		session_read_ctl(s, events);
	manager_reap(m);
}

/* While stalled, control messages wait (ordering); hang-ups are still seen. */
static void session_ctl_pause(struct session *s, bool pause)
{
	if (s->ctl_paused == pause || s->dead)
		return;
	s->ctl_paused = pause;
	if (uv_poll_start(&s->ctl_poll, pause ? UV_DISCONNECT : UV_READABLE | UV_DISCONNECT, session_on_ctl) <
	    0)
		session_kill(s, false, "cannot poll the control socket");
}

/* ---------------- the request ring --------------------------------------- */

static void session_on_evt(uv_poll_t *h, int status, int events)
{
	struct session *s = h->data;
	struct manager *m = s->m;
	uint64_t v;

	(void)events;
	if (status < 0) {
		session_kill(s, false, "eventfd error");
		manager_reap(m);
		return;
	}
	/* Drain the counter; kicks coalesce, the ring says what to do. */
	if (read(s->efd, &v, sizeof(v)) < 0 && errno != EAGAIN && errno != EINTR) {
		session_kill(s, false, "eventfd read error");
		manager_reap(m);
		return;
	}
	/*
	 * Stay armed: the kick may come from a reader of this client that made
	 * room, or its records may have been pumped already by a control
	 * request; then the ring is empty and the client must still kick for
	 * its next record. session_pump disarms once it finds records (and
	 * makes the session hot), so a session is always hot or armed.
	 * The client took the announcement with its kick (ring_prod_publish,
	 * rring_cons_need_kick clear it): a session still armed after a pump
	 * that found nothing announces again, so its next record kicks.
	 */
	if (session_pump(s, false) == 0 && s->armed && !s->stalled && !s->dead && !session_arm(s))
		session_pump(s, false);
	/* The kick may also say: a reliable reader of this client made room. */
	if (!TAILQ_EMPTY(&m->stalled))
		manager_retry_stalled(m);
	manager_reap(m);
}

bool session_arm(struct session *s)
{
	if (s->dead || s->state != SESSION_READY)
		return true;
	/* Dekker with the client's publish: announce, full fence, re-check. */
	s->armed = true;
	return !ring_cons_wait_data(&s->req);
}

/* A reader's client corrupted its ring index: that client goes. */
static void session_kill_reader_owner(struct session *s, struct broker_reader *r)
{
	struct session *owner = manager_find_session(s->m, broker_reader_owner(r));

	if (owner != NULL)
		session_kill(owner, true, "reader ring consumer index corrupted");
}

/*
 * The stall's time is up (or the client is gone): the sample goes to every
 * reader with room, and full reliable readers miss it (the broker counts
 * the drop on them). Returns true when resolved; false when a reader's
 * client corrupted its ring: that client goes and the retry after its
 * teardown forces again.
 */
static bool session_stall_force(struct session *s)
{
	struct broker_reader *blocker = NULL;
	int rc;

	rc = broker_write_force(s->stall_w, s->stall_buf, s->stall_len, 0, &blocker);
	if (rc == -EPROTO) {
		if (blocker != NULL)
			session_kill_reader_owner(s, blocker);
		s->m->retry_pending = true;
		return false;
	}
	if (rc < 0)
		s->dropped++;
	session_stall_clear(s);
	return true;
}

/*
 * Try the stalled record again. Returns true when the stall is resolved
 * (delivered, forced or dropped), false while it must keep waiting.
 */
static bool session_stall_retry(struct session *s, bool final)
{
	struct broker_reader *blocker = NULL;
	int rc;

	for (int tries = 0; tries < SESSION_STALL_REARM_TRIES; tries++) {
		if (final || session_now() >= s->stall_deadline_ns) {
			if (final) {
				/* The writer's client is gone: nobody will retry. */
				if (!session_stall_force(s)) {
					s->dropped++;
					session_stall_clear(s);
				}
				return true;
			}
			return session_stall_force(s);
		}
		rc = broker_write(s->stall_w, s->stall_buf, s->stall_len, 0, &blocker);
		if (rc != -EAGAIN && rc != -EPROTO) {
			session_stall_clear(s);
			return true;
		}
		if (s->stall_blocker != NULL && s->stall_blocker != blocker) {
			rring_prod_stop_wait_space(broker_reader_ring(s->stall_blocker));
			s->stall_blocker = NULL;
		}
		if (rc == -EPROTO) {
			/* Retry after the corrupting client's teardown. */
			if (blocker != NULL)
				session_kill_reader_owner(s, blocker);
			s->m->retry_pending = true;
			return false;
		}
		s->stall_blocker = blocker;
		/* Polling mode retries every turn: no need to ask for a kick. */
		if (s->m->cfg.poll || blocker == NULL)
			return false;
		if (!rring_prod_wait_space(broker_reader_ring(blocker)))
			return false;
		/* Room appeared while arming: try again at once. */
	}
	s->m->retry_pending = true;
	return false;
}

void session_stall_rearm(struct session *s)
{
	if (!s->stalled || s->stall_blocker == NULL || s->m->cfg.poll)
		return;
	if (rring_prod_wait_space(broker_reader_ring(s->stall_blocker)))
		s->m->retry_pending = true;
}

static void session_stall_begin(struct session *s, struct broker_writer *w, uint32_t len,
				struct broker_reader *blocker, int rc)
{
	uint8_t *tmp;

	/* Keep the record: the pump buffer becomes the stall slot. */
	tmp = s->stall_buf;
	s->stall_buf = s->rec_buf;
	s->rec_buf = tmp;
	s->stall_w = w;
	s->stall_len = len;
	s->stall_blocker = NULL;
	s->stall_deadline_ns = session_now() + (int64_t)broker_writer_qos(w)->max_blocking_ms * 1000000;
	s->stalled = true;
	manager_stall_add(s->m, s);
	session_ctl_pause(s, true);
	if (rc == -EPROTO) {
		if (blocker != NULL)
			session_kill_reader_owner(s, blocker);
		s->m->retry_pending = true;
		return;
	}
	s->stall_blocker = blocker;
	if (!s->m->cfg.poll && blocker != NULL && rring_prod_wait_space(broker_reader_ring(blocker)))
		s->m->retry_pending = true;
	if (blocker == NULL)
		s->m->retry_pending = true;
}

int session_pump(struct session *s, bool final)
{
	struct manager *m = s->m;
	uint32_t budget = m->cfg.max_requests_per_turn;
	uint64_t cons_before;

	int n = 0;

	/*
	 * A client that hung up gets everything it published delivered now,
	 * bounded by one ring's worth of records (another process sharing its
	 * segment could otherwise keep us here forever).
	 */
	if (final)
		budget = m->cfg.request_ring_bytes / SDDS_REC_ALIGN;
	if (s->dead || s->state != SESSION_READY)
		return 0;
	cons_before = s->req.cons;
	if (s->stalled) {
		if (!session_stall_retry(s, final))
			return 0;
		n++;
	}
	while ((uint32_t)n < budget) {
		uint32_t seqs[SESSION_BATCH];
		uint64_t run_start;
		struct sdds_rec rec;
		struct session_writer *sw;
		struct broker_reader *blocker = NULL;
		uint8_t *first = s->batch_buf;
		uint32_t k, done = 0;
		int rc;

		rc = ring_cons_next(&s->req, &rec, s->batch_buf, SESSION_BATCH_STRIDE);
		if (rc == -EMSGSIZE) {
			/* Nothing was taken: a large record goes alone, through rec_buf. */
			first = s->rec_buf;
			rc = ring_cons_next(&s->req, &rec, s->rec_buf, s->buf_cap);
		}
		if (rc == 0)
			break;
		if (rc < 0) {
			session_kill(s, true, "request ring corrupted (bad index or record)");
			break;
		}
		n++;
		SDDS_PROBE4(daemon_dequeue, s->m->epoch, s->id, rec.handle, rec.seq);
		if (rec.type != SDDS_REC_WRITE) {
			session_kill(s, true, "request record of an unknown type");
			break;
		}
		sw = session_writer_lookup(s, rec.handle);
		if (sw == NULL) {
			uint32_t serial = rec.handle >> s->writer_bits;

			if (serial != 0 && serial < s->writer_serial) {
				/* A writer the client deleted since: its late record is void. */
				s->rejected++;
				continue;
			}
			session_kill(s, true, "record for a writer id never issued");
			break;
		}
		/*
		 * The records that follow, while they are small writes of the
		 * same writer and length, join the batch (ring_cons_next_run).
		 * Any other record, or a bad one, ends it and is met by
		 * ring_cons_next in the next round of this loop.
		 */
		k = 1;
		run_start = s->req.cons;
		if (first == s->batch_buf && (uint32_t)n < budget) {
			uint32_t max = budget - (uint32_t)n < SESSION_BATCH - 1 ? budget - (uint32_t)n
										: SESSION_BATCH - 1;
			uint32_t got = ring_cons_next_run(&s->req, rec.handle, rec.len,
							  s->batch_buf + SESSION_BATCH_STRIDE,
							  SESSION_BATCH_STRIDE, max, seqs + 1);

			for (uint32_t i = 1; i <= got; i++) {
				uint32_t seq = seqs[i];

				/*
				 * In a register: an indexed memory operand in
				 * the probe's note is one sdds-trace cannot read.
				 */
				__asm__("" : "+r"(seq));
				SDDS_PROBE4(daemon_dequeue, s->m->epoch, s->id, rec.handle, seq);
			}
			n += (int)got;
			k += got;
		}
		rc = broker_write_many(sw->w, first, SESSION_BATCH_STRIDE, k, rec.len, 0, &done, &blocker);
		if (rc == -EAGAIN || rc == -EPROTO) {
			/* Sample `done` waits in the stall; the ones after it go back to the ring. */
			if (done + 1 < k) {
				/* The run's records lie back to back from run_start, rec_bytes each. */
				uint64_t rec_bytes =
				    (sizeof(struct sdds_rec) + rec.len + SDDS_REC_ALIGN - 1) &
				    ~(uint64_t)(SDDS_REC_ALIGN - 1);

				(void)ring_cons_rewind(&s->req, run_start + (uint64_t)done * rec_bytes);
				n -= (int)(k - done - 1);
			}
			if (first != s->rec_buf)
				memcpy(s->rec_buf, first + (size_t)done * SESSION_BATCH_STRIDE, rec.len);
			session_stall_begin(s, sw->w, rec.len, blocker, rc);
			/* Gone clients do not wait: resolve now and go on. */
			if (final && session_stall_retry(s, true))
				continue;
			break;
		}
		/* A wrong size was counted as rejected by the broker. */
	}
	if (s->req.cons != cons_before && !s->dead)
		ring_cons_release(&s->req);
	if (n > 0) {
		if (s->armed) {
			/* Busy again: spare the client its kicks until we sleep again. */
			ring_cons_stop_wait_data(&s->req);
			s->armed = false;
		}
		s->last_active_ns = session_now();
		broker_flush(m->broker);
		if (!s->dead && !final)
			manager_mark_hot(m, s);
	}
	if (s->stalled || s->dead || final)
		return n;
	/* The stall is over: the request that waited for it, then control again. */
	if (s->pending_req != NULL) {
		Sdds__Ctl__Request *req = s->pending_req;

		s->pending_req = NULL;
		session_handle_request(s, req);
		sdds__ctl__request__free_unpacked(req, NULL);
	}
	if (!s->dead)
		session_ctl_pause(s, false);
	return n;
}
