/* SPDX-License-Identifier: MIT */
/*
 * remote.c - the sddsd transport: control socket, shared segment, request
 * ring, eventfd kicks, and the monitor thread that notices the daemon die.
 *
 * OVERVIEW
 * remote_open connects (or adopts opts->ctl_fd), sends Hello, and receives
 * HelloReply with [memfd, eventfd]; segment_attach checks the header and the
 * offsets, ring_prod_init attaches the request ring.
 *
 * Control RPCs (topics, endpoints) hold rpc_lock for one request and its
 * reply. Replies come in order and carry the request id; a reply with another
 * id belongs to a call that timed out earlier and is dropped. The daemon
 * sends nothing unsolicited, so only RPC callers ever read the socket.
 *
 * Writes hold prod_lock only to reserve, copy and publish a record: no
 * system call unless ring_prod_publish reports that the daemon sleeps on the
 * ring (then one eventfd write, after the lock is dropped). A full ring is
 * waited out on the ring's `space` doorbell, without the lock, until the
 * daemon's cons moves past the value the failed reservation was judged by.
 *
 * The daemon drops what is left in the request ring of a client that hangs
 * up, and holds a record for a full reliable reader (answering no control
 * request meanwhile). So a writer's deletion first lingers until the daemon
 * consumed what was published (bounded by progress and a cap), and the
 * DeleteWriter round trip then returns only after the held record was
 * routed. sdds_client_free deletes its writers this way before it hangs up.
 *
 * The monitor thread blocks in poll() for POLLRDHUP/POLLHUP only, so it
 * never competes with RPC callers for data. On hang-up it marks the client
 * disconnected (which wakes every sleeper). remote_shutdown makes it return
 * by shutting the socket down on our side.
 *
 * Ownership: the client owns ctl_fd (also one handed in through
 * opts->ctl_fd, once sdds_client_new succeeded), kick_fd and the segment.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#include "ipc/ctl.h"
#include "ipc/doorbell.h"

/* A daemon that does not answer a control request within this is stuck. */
#define REMOTE_RPC_TIMEOUT_S 10
/*
 * Before a writer is deleted, the client waits for the daemon to consume the
 * request ring while the daemon makes progress (a record may be held up to
 * a writer's max_blocking_ms, plus this slack), at most REMOTE_LINGER_CAP_NS
 * in all.
 */
#define REMOTE_LINGER_SLACK_MS 100
#define REMOTE_LINGER_CAP_NS (5 * 1000 * 1000 * 1000LL)
#define REMOTE_MAX_RING_SLOTS (1u << 24)

static bool remote_is_hangup(int rc)
{
	return rc == -ECONNRESET || rc == -EPIPE || rc == -ENOTCONN || rc == -ESHUTDOWN;
}

static void remote_close_fds(int *fds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/*
 * One request, one reply. On success *ret (freed by the caller with
 * sdds__ctl__reply__free_unpacked) has status 0 and the body `want`;
 * received descriptors (owned by the caller) are in fds[0..*ret_n_fds).
 */
static int remote_call(struct sdds_client *c, Sdds__Ctl__Request *req, Sdds__Ctl__Reply__BodyCase want,
		       Sdds__Ctl__Reply **ret, int *fds, size_t max_fds, size_t *ret_n_fds)
{
	struct remote_state *rs = &c->remote;
	Sdds__Ctl__Reply *rep = NULL;
	int got[CTL_MAX_FDS];
	size_t n_got = 0;
	int rc;

	pthread_mutex_lock(&rs->rpc_lock);
	if (atomic_load(&c->disconnected)) {
		rc = -ENOTCONN;
		goto out_unlock;
	}
	if (++rs->next_id == 0)
		rs->next_id = 1;
	req->id = rs->next_id;
	rc = ctl_send_request(rs->ctl_fd, req, NULL, 0);
	if (rc < 0)
		goto out_unlock;
	for (;;) {
		n_got = 0;
		rc = ctl_recv_reply(rs->ctl_fd, &rep, got, CTL_MAX_FDS, &n_got);
		if (rc == -EINTR)
			continue;
		if (rc < 0)
			break;
		if (rep->id == req->id)
			break;
		/* The late reply of a call that timed out. */
		sdds__ctl__reply__free_unpacked(rep, NULL);
		rep = NULL;
		remote_close_fds(got, n_got);
	}
out_unlock:
	pthread_mutex_unlock(&rs->rpc_lock);

	if (rc == -EAGAIN || rc == -EWOULDBLOCK)
		return -ETIMEDOUT;
	if (remote_is_hangup(rc)) {
		client_mark_disconnected(c);
		return -ENOTCONN;
	}
	if (rc == -EBADMSG)
		return -EPROTO;
	if (rc < 0)
		return rc;

	if (rep->status != 0) {
		rc = (rep->status < 0 && rep->status > -4096) ? rep->status : -EPROTO;
		goto fail_free;
	}
	if (rep->body_case != want || n_got > max_fds) {
		rc = -EPROTO;
		goto fail_free;
	}
	if (n_got)
		memcpy(fds, got, n_got * sizeof(int));
	*ret_n_fds = n_got;
	*ret = rep;
	return 0;

fail_free:
	sdds__ctl__reply__free_unpacked(rep, NULL);
	remote_close_fds(got, n_got);
	return rc;
}

static int remote_call_simple(struct sdds_client *c, Sdds__Ctl__Request *req, Sdds__Ctl__Reply__BodyCase want,
			      Sdds__Ctl__Reply **ret)
{
	size_t n = 0;

	return remote_call(c, req, want, ret, NULL, 0, &n);
}

static void remote_kick(struct sdds_client *c)
{
	uint64_t one = 1;
	ssize_t n;

	if (c->remote.daemon_polling)
		return;
	do
		n = write(c->remote.kick_fd, &one, sizeof(one));
	while (n < 0 && errno == EINTR);
	/* EAGAIN means the counter is saturated: the daemon has a wake-up pending. */
}

/* ---------------- monitor ---------------- */

static void *remote_monitor_main(void *arg)
{
	struct sdds_client *c = arg;
	struct pollfd p = { .fd = c->remote.ctl_fd, .events = POLLRDHUP };
	int n;

	for (;;) {
		p.revents = 0;
		n = poll(&p, 1, -1);
		if (n < 0) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			if (errno != EINTR)
				nanosleep(&ts, NULL); /* ENOMEM: try again shortly */
			continue;
		}
		if (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
			break;
	}
	client_mark_disconnected(c);
	return NULL;
}

static int remote_monitor_start(struct sdds_client *c)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&c->remote.monitor, NULL, remote_monitor_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return -rc;
	c->remote.monitor_started = true;
	return 0;
}

/* ---------------- open ---------------- */

static int remote_connect(const sdds_client_options *opts, int *ret_fd)
{
	char buf[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = opts->socket_path;
	int fd, rc;

	if (!path) {
		rc = ctl_default_path(buf, sizeof(buf));
		if (rc < 0)
			return rc;
		path = buf;
	}
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	do
		rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	while (rc < 0 && errno == EINTR);
	if (rc < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	*ret_fd = fd;
	return 0;
}

static int remote_hello(struct sdds_client *c, const char *name)
{
	struct remote_state *rs = &c->remote;
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Hello hello = SDDS__CTL__HELLO__INIT;
	Sdds__Ctl__Reply *rep;
	struct sdds_seg_hdr *hdr;
	struct sdds_ring_ctl *ring;
	int fds[2];
	size_t n_fds = 0;
	int rc;

	hello.protocol_version = CTL_PROTOCOL_VERSION;
	hello.layout_version = SDDS_LAYOUT_VERSION;
	hello.name = (char *)name;
	req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
	req.hello = &hello;
	rc = remote_call(c, &req, SDDS__CTL__REPLY__BODY_HELLO, &rep, fds, 2, &n_fds);
	if (rc < 0)
		return rc;
	if (n_fds != 2 || !rep->hello) {
		rc = -EPROTO;
		goto fail_fds;
	}
	rc = segment_attach(fds[0], &rs->seg);
	if (rc < 0)
		goto fail_fds;
	fds[0] = -1; /* the segment owns it now */

	hdr = segment_hdr(&rs->seg);
	if (hdr->session_id != rep->hello->session_id || hdr->epoch != rep->hello->epoch) {
		rc = -EPROTO;
		goto fail_seg;
	}
	ring = segment_at(&rs->seg, hdr->req_off, sizeof(struct sdds_ring_ctl) + (uint64_t)hdr->req_cap);
	if (!ring) {
		rc = -EPROTO;
		goto fail_seg;
	}
	rc = ring_prod_init(&rs->prod, ring, hdr->req_cap, hdr->max_record);
	if (rc < 0) {
		rc = -EPROTO;
		goto fail_seg;
	}
	rs->req = ring;
	rs->kick_fd = fds[1];
	rs->daemon_polling = (hdr->flags & SDDS_SEG_F_DAEMON_POLLING) || rep->hello->daemon_polling;
	rs->max_sample = rep->hello->max_sample;
	c->session_id = rep->hello->session_id;
	c->evt = &hdr->evt;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return 0;

fail_seg:
	segment_close(&rs->seg);
	rs->seg.fd = -1;
fail_fds:
	remote_close_fds(fds, n_fds);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return rc;
}

int remote_open(struct sdds_client *c, const sdds_client_options *opts)
{
	struct remote_state *rs = &c->remote;
	struct timeval tv = { .tv_sec = REMOTE_RPC_TIMEOUT_S };
	const char *name = opts->name ? opts->name : program_invocation_short_name;
	int fd = -1, rc;

	if (opts->ctl_fd >= 0) {
		fd = opts->ctl_fd;
	} else {
		rc = remote_connect(opts, &fd);
		if (rc < 0)
			return rc;
	}
	/* A stuck daemon must not hang the application in an RPC forever. */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	pthread_mutex_init(&rs->prod_lock, NULL);
	pthread_mutex_init(&rs->rpc_lock, NULL);
	rs->ctl_fd = fd;

	rc = remote_hello(c, name);
	if (rc < 0)
		goto fail;
	rc = remote_monitor_start(c);
	if (rc < 0)
		goto fail_hello;
	return 0;

fail_hello:
	c->evt = &c->local_evt;
	segment_close(&rs->seg);
	close(rs->kick_fd);
	rs->kick_fd = -1;
fail:
	/* The caller keeps a handed-in fd when we fail. */
	if (opts->ctl_fd < 0)
		close(fd);
	rs->ctl_fd = -1;
	rs->req = NULL;
	pthread_mutex_destroy(&rs->prod_lock);
	pthread_mutex_destroy(&rs->rpc_lock);
	return rc;
}

/* ---------------- topics and endpoints ---------------- */

static int remote_topic_new(struct sdds_topic *t, const sdds_topic_desc *desc)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__RegisterTopic rt = SDDS__CTL__REGISTER_TOPIC__INIT;
	Sdds__Ctl__Field *fields = NULL;
	Sdds__Ctl__Field **field_ptrs = NULL;
	Sdds__Ctl__Reply *rep;
	size_t i;
	int rc;

	if (t->client->remote.max_sample && desc->sample_size > t->client->remote.max_sample)
		return -EMSGSIZE;
	if (desc->n_fields) {
		fields = calloc(desc->n_fields, sizeof(*fields));
		field_ptrs = calloc(desc->n_fields, sizeof(*field_ptrs));
		if (!fields || !field_ptrs) {
			rc = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < desc->n_fields; i++) {
		sdds__ctl__field__init(&fields[i]);
		fields[i].name = (char *)desc->fields[i].name;
		fields[i].type = (Sdds__Ctl__FieldType)desc->fields[i].type;
		fields[i].size = desc->fields[i].size;
		field_ptrs[i] = &fields[i];
	}
	rt.domain = desc->domain;
	rt.topic_id = desc->id;
	rt.name = (char *)desc->name;
	rt.sample_size = desc->sample_size;
	rt.n_fields = desc->n_fields;
	rt.fields = field_ptrs;
	req.body_case = SDDS__CTL__REQUEST__BODY_REGISTER_TOPIC;
	req.register_topic = &rt;
	rc = remote_call_simple(t->client, &req, SDDS__CTL__REPLY__BODY_TOPIC, &rep);
	if (rc < 0)
		goto out;
	if (!rep->topic) {
		rc = -EPROTO;
	} else {
		t->handle = rep->topic->topic_handle;
	}
	sdds__ctl__reply__free_unpacked(rep, NULL);
out:
	free(field_ptrs);
	free(fields);
	return rc;
}

static void remote_topic_free(struct sdds_topic *t)
{
	/* The protocol has no unregister: the daemon drops it with the session. */
	(void)t;
}

static void remote_qos(const sdds_qos *in, Sdds__Ctl__Qos *out)
{
	sdds__ctl__qos__init(out);
	out->reliability = in->reliability == SDDS_RELIABLE ? SDDS__CTL__RELIABILITY__RELIABLE
							    : SDDS__CTL__RELIABILITY__BEST_EFFORT;
	out->history_depth = in->history_depth;
	out->max_blocking_ms = in->max_blocking_ms;
}

static int remote_writer_new(struct sdds_writer *w, const sdds_qos *qos)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__CreateWriter cw = SDDS__CTL__CREATE_WRITER__INIT;
	Sdds__Ctl__Qos q;
	Sdds__Ctl__Reply *rep;
	int rc;

	remote_qos(qos, &q);
	cw.topic_handle = w->topic->handle;
	cw.qos = &q;
	req.body_case = SDDS__CTL__REQUEST__BODY_CREATE_WRITER;
	req.create_writer = &cw;
	rc = remote_call_simple(w->client, &req, SDDS__CTL__REPLY__BODY_WRITER, &rep);
	if (rc < 0)
		return rc;
	if (!rep->writer)
		rc = -EPROTO;
	else
		w->id = rep->writer->writer_id;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return rc;
}

static void remote_delete(struct sdds_client *c, uint32_t id, bool reader)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__DeleteEndpoint del = SDDS__CTL__DELETE_ENDPOINT__INIT;
	Sdds__Ctl__Reply *rep;

	del.id = id;
	if (reader) {
		req.body_case = SDDS__CTL__REQUEST__BODY_DELETE_READER;
		req.delete_reader = &del;
	} else {
		req.body_case = SDDS__CTL__REQUEST__BODY_DELETE_WRITER;
		req.delete_writer = &del;
	}
	/* Nothing to do about a failure: the daemon frees it with the session. */
	if (remote_call_simple(c, &req, SDDS__CTL__REPLY__BODY__NOT_SET, &rep) == 0)
		sdds__ctl__reply__free_unpacked(rep, NULL);
}

struct remote_drain {
	struct client_wait w;
	struct sdds_ring_ctl *req;
	uint64_t target;
};

static bool remote_drained(struct client_wait *w)
{
	struct remote_drain *d = cl_container_of(w, struct remote_drain, w);

	return (int64_t)(atomic_load_explicit(&d->req->cons, memory_order_acquire) - d->target) >= 0;
}

/*
 * Wait until the daemon consumed every record this client published so
 * far, as long as it makes progress at least every idle_ns, and at most
 * cap_ns in all. Used before a writer is deleted: a delete must not
 * overtake the writer's last samples (the daemon voids records of deleted
 * writers, and drops what is left in the ring of a client that hangs up).
 */
static void remote_linger(struct sdds_client *c, int64_t idle_ns, int64_t cap_ns)
{
	struct remote_drain d;
	int64_t end = doorbell_now_ns() + cap_ns, left;
	uint64_t last, cur;
	int rc;

	if (!c->remote.req || atomic_load(&c->disconnected))
		return;
	memset(&d, 0, sizeof(d));
	d.req = c->remote.req;
	d.w.ready = remote_drained;
	pthread_mutex_lock(&c->remote.prod_lock);
	d.target = c->remote.prod.prod;
	pthread_mutex_unlock(&c->remote.prod_lock);
	last = atomic_load_explicit(&d.req->cons, memory_order_acquire);
	for (;;) {
		if (remote_drained(&d.w))
			return;
		left = end - doorbell_now_ns();
		if (left > idle_ns)
			left = idle_ns;
		if (left <= 0)
			return;
		/* Wake on any progress, not only on the end: idle is what ends it. */
		d.w.watch64 = &d.req->cons;
		d.w.seen64 = last;
		rc = client_wait_db(c, &d.req->space, &d.w, left);
		if (rc == -ENOTCONN)
			return;
		cur = atomic_load_explicit(&d.req->cons, memory_order_acquire);
		if (rc == -ETIMEDOUT && cur == last)
			return;
		last = cur;
	}
}

/*
 * How long the daemon may sit on one record without progress: the longest
 * max_blocking_ms among w and the client's other writers (any of their
 * records may be the one held), plus slack.
 */
static int64_t remote_idle_ns(struct sdds_client *c, const struct sdds_writer *w)
{
	uint32_t ms = w->max_blocking_ms;
	struct cl_link *l;

	pthread_mutex_lock(&c->obj_lock);
	for (l = c->writers.next; l != &c->writers; l = l->next) {
		const struct sdds_writer *o = cl_container_of(l, struct sdds_writer, node);

		if (o->max_blocking_ms > ms)
			ms = o->max_blocking_ms;
	}
	pthread_mutex_unlock(&c->obj_lock);
	return ((int64_t)ms + REMOTE_LINGER_SLACK_MS) * 1000000;
}

static void remote_writer_free(struct sdds_writer *w, bool closing)
{
	struct sdds_client *c = w->client;

	if (closing || atomic_load(&c->disconnected))
		return;
	remote_linger(c, remote_idle_ns(c, w), REMOTE_LINGER_CAP_NS);
	remote_delete(c, w->id, false);
}

static int remote_writer_write(struct sdds_writer *w, const void *sample, uint32_t len)
{
	struct sdds_client *c = w->client;
	struct remote_state *rs = &c->remote;
	struct client_wait wait;
	struct sdds_rec *rec;
	int64_t deadline = 0, left;
	bool kick;
	int rc;

	memset(&wait, 0, sizeof(wait));
	for (;;) {
		pthread_mutex_lock(&rs->prod_lock);
		if (atomic_load_explicit(&c->disconnected, memory_order_relaxed)) {
			pthread_mutex_unlock(&rs->prod_lock);
			return -ENOTCONN;
		}
		rc = ring_prod_reserve(&rs->prod, len, &rec);
		if (rc == -EAGAIN) {
			/*
			 * Judge the retry by a fresh cons: the wait below ends when
			 * the daemon's cons moves past the value seen here.
			 */
			(void)ring_prod_free(&rs->prod);
			memset(&wait, 0, sizeof(wait));
			wait.watch64 = &rs->req->cons;
			wait.seen64 = rs->prod.cons_cache;
			rc = ring_prod_reserve(&rs->prod, len, &rec);
		}
		if (rc == 0) {
			rec->type = SDDS_REC_WRITE;
			rec->flags = 0;
			rec->handle = w->id;
			memcpy(rec + 1, sample, len);
			kick = ring_prod_publish(&rs->prod);
			pthread_mutex_unlock(&rs->prod_lock);
			if (kick)
				remote_kick(c);
			return 0;
		}
		pthread_mutex_unlock(&rs->prod_lock);
		if (rc != -EAGAIN)
			return rc;
		if (w->max_blocking_ms == 0)
			return -EAGAIN;
		if (deadline == 0)
			deadline = doorbell_now_ns() + (int64_t)w->max_blocking_ms * 1000000;
		left = deadline - doorbell_now_ns();
		if (left <= 0)
			return -ETIMEDOUT;
		rc = client_wait_db(c, &rs->req->space, &wait, left);
		if (rc < 0)
			return rc;
	}
}

static int remote_reader_attach(struct sdds_reader *r, const Sdds__Ctl__ReaderReply *rr)
{
	struct segment *seg = &r->client->remote.seg;
	struct sdds_seg_hdr *hdr = segment_hdr(seg);
	uint32_t cap = rr->cap, slot = rr->slot_size;
	uint64_t size;
	void *ctl;

	if (cap == 0 || (cap & (cap - 1)) || cap > REMOTE_MAX_RING_SLOTS)
		return -EPROTO;
	if (slot < sizeof(struct sdds_rslot) + (uint64_t)r->topic->sample_size || slot % 16)
		return -EPROTO;
	if (rr->ring_off % SDDS_RRING_ALIGN)
		return -EPROTO;
	size = sizeof(struct sdds_rring_ctl) + (uint64_t)cap * slot;
	if (rr->ring_off < hdr->arena_off || size > hdr->arena_size ||
	    rr->ring_off - hdr->arena_off > hdr->arena_size - size)
		return -EPROTO;
	ctl = segment_at(seg, rr->ring_off, size);
	if (!ctl)
		return -EPROTO;
	if (rring_cons_init(&r->cons, ctl, cap, slot) < 0)
		return -EPROTO;
	return 0;
}

static int remote_reader_new(struct sdds_reader *r, const sdds_qos *qos)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__CreateReader cr = SDDS__CTL__CREATE_READER__INIT;
	Sdds__Ctl__Qos q;
	Sdds__Ctl__Reply *rep;
	int rc;

	remote_qos(qos, &q);
	cr.topic_handle = r->topic->handle;
	cr.qos = &q;
	req.body_case = SDDS__CTL__REQUEST__BODY_CREATE_READER;
	req.create_reader = &cr;
	rc = remote_call_simple(r->client, &req, SDDS__CTL__REPLY__BODY_READER, &rep);
	if (rc < 0)
		return rc;
	if (!rep->reader) {
		rc = -EPROTO;
	} else {
		r->id = rep->reader->reader_id;
		rc = remote_reader_attach(r, rep->reader);
		if (rc < 0)
			remote_delete(r->client, r->id, true);
	}
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return rc;
}

static void remote_reader_free(struct sdds_reader *r, bool closing)
{
	if (closing || atomic_load(&r->client->disconnected))
		return;
	remote_delete(r->client, r->id, true);
}

static void remote_reader_kick(struct sdds_reader *r)
{
	remote_kick(r->client);
}

static void remote_shutdown(struct sdds_client *c)
{
	struct remote_state *rs = &c->remote;

	/* sdds_client_free deleted the writers (each lingered): the ring is drained. */
	if (rs->monitor_started) {
		/* Our own shutdown raises POLLHUP in the monitor's poll. */
		shutdown(rs->ctl_fd, SHUT_RDWR);
		pthread_join(rs->monitor, NULL);
		rs->monitor_started = false;
	}
	client_mark_disconnected(c);
}

static void remote_destroy(struct sdds_client *c)
{
	struct remote_state *rs = &c->remote;

	rs->req = NULL;
	c->evt = &c->local_evt;
	segment_close(&rs->seg);
	if (rs->kick_fd >= 0)
		close(rs->kick_fd);
	if (rs->ctl_fd >= 0)
		close(rs->ctl_fd);
	rs->kick_fd = -1;
	rs->ctl_fd = -1;
	pthread_mutex_destroy(&rs->prod_lock);
	pthread_mutex_destroy(&rs->rpc_lock);
}

const struct client_ops remote_ops = {
	.topic_new = remote_topic_new,
	.topic_free = remote_topic_free,
	.writer_new = remote_writer_new,
	.writer_free = remote_writer_free,
	.writer_write = remote_writer_write,
	.reader_new = remote_reader_new,
	.reader_free = remote_reader_free,
	.reader_kick = remote_reader_kick,
	.shutdown = remote_shutdown,
	.destroy = remote_destroy,
};
