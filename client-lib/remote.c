/* SPDX-License-Identifier: MIT */
/*
 * remote.c - the sddsd transport: control socket, shared segment, request
 * ring, eventfd kicks, and the monitor thread that notices the daemon die
 * and reconnects.
 *
 * OVERVIEW
 * remote_open connects (or adopts opts->ctl_fd or $SDDS_CTL_FD), sends
 * Hello, and receives HelloReply with [memfd, eventfd]; segment_attach
 * checks the header and the offsets, ring_prod_init attaches the request
 * ring.
 *
 * Control RPCs (topics, endpoints) hold rpc_lock for one request and its
 * reply. Replies come in order and carry the request id; a reply with another
 * id belongs to a call that timed out earlier and is dropped. The daemon
 * sends nothing unsolicited, so only RPC callers ever read the socket.
 *
 * Writes hold prod_lock only to reserve, copy and publish a record: no
 * system call unless ring_prod_publish reports that the daemon sleeps on the
 * ring (then one eventfd write, under the lock). A write that finds room is
 * not entered in the connection (client_enter): prod_lock alone keeps it,
 * because the monitor takes it once after the grace period (client.c,
 * client_quiesce). A full ring is waited out on the ring's `space`
 * doorbell, entered and without the lock, until the daemon's cons moves
 * past the value the failed reservation was judged by.
 *
 * The daemon drops what is left in the request ring of a client that hangs
 * up, and holds a record for a full reliable reader (answering no control
 * request meanwhile). So a writer's deletion first lingers until the daemon
 * consumed what was published (bounded by progress and a cap), and the
 * DeleteWriter round trip then returns only after the held record was
 * routed. sdds_client_free deletes its writers this way before it hangs up.
 *
 * The monitor thread blocks in poll() for POLLRDHUP/POLLHUP of the control
 * socket and for its stop eventfd, so it never competes with RPC callers
 * for data. On hang-up it marks the client disconnected (which wakes every
 * sleeper), waits for the grace period (client_grace: no application thread
 * is inside the connection any more), and releases the connection: unmaps
 * the segment, closes the fds. Then, if the client reconnects, it tries
 * again and again with backoff (REMOTE_BACKOFF_MIN_MS doubling to
 * reconnect_max_ms, each delay drawn from [d/2, d]): connect, Hello, map,
 * register every topic, create every writer and every reader (under
 * obj_lock, so none is freed meanwhile), each with what it was created
 * with. Only when all of it succeeded does it mark the client connected;
 * a failed attempt closes its socket (the daemon frees that session) and
 * leaves the client disconnected. Until the flag is cleared nobody else
 * touches the connection's state (internal.h, "Restart"), so the attempt
 * writes the new ids, rings and pointers in place. A client whose socket
 * came from a sandbox through $SDDS_CTL_FD cannot connect(); if the sandbox
 * also handed it a renewal channel ($SDDS_CTL_RENEW_FD), an attempt asks
 * there for a new socket instead (remote_renew). Every wait of an attempt
 * (backoff, connect, replies) also polls the stop eventfd: closing the
 * client cuts an attempt short.
 *
 * Reconnection invariants (client.c and internal.h, "Restart", give the
 * grace-period scheme they rest on):
 *  - Detection is the monitor's: it alone watches the control socket (an
 *    RPC caller that meets a hang-up marks it too). Every other thread
 *    learns of the death from the disconnected flag: marking it wakes every
 *    doorbell a thread of this client sleeps on (evt, the request ring's
 *    space, state_db), and every sleeper re-checks the flag at least every
 *    CLIENT_WAIT_SLICE_NS without a wake-up. So a write waiting for room, a
 *    take, a linger and the listener thread return -ENOTCONN within a slice
 *    of the mark, never at their own timeout. The flip side: a process
 *    whose monitor cannot run never learns of it (a child of fork() that
 *    did not exec has no monitor, and one it starts may hang at start on a
 *    lock held at fork time: issue 2, see sdds.h).
 *  - The monitor writes the connection's state (ctl_fd, kick_fd, seg, req,
 *    prod, epoch, gen, every object's id, handle, ring and conn_gen)
 *    without prod_lock, rpc_lock or take_lock, and that is safe: it does so
 *    only between client_grace and client_mark_connected. After the grace
 *    period no thread is entered, and client_quiesce (the end of
 *    client_grace) has waited out every holder of prod_lock and of each
 *    take_lock, the fast paths that use the connection unentered; every
 *    later holder finds the flag set under its lock and touches nothing.
 *    An application thread uses that state only so, entered or under one
 *    of those locks, and only after it saw the client connected (acquire):
 *    clearing the flag is the release that publishes the new state.
 *  - Nothing is carried from one connection to the next but the objects'
 *    descriptions: a pointer into the old segment, an old id or the old
 *    producer position is never read after the grace period, and the new
 *    ring starts at the daemon's format (ring_prod_init).
 *
 * Ownership: the client owns ctl_fd (also one handed in through
 * opts->ctl_fd, once sdds_client_new succeeded, and one claimed from
 * $SDDS_CTL_FD, from the moment it is claimed), kick_fd, stop_fd, the
 * segment, and the copies of the path and the name.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#include "ipc/ctl.h"
#include "ipc/doorbell.h"
#include "ipc/probes.h"

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
/* Reconnection backoff: the first delay, and the default longest one. */
#define REMOTE_BACKOFF_MIN_MS 10
#define REMOTE_BACKOFF_MAX_MS 1000

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

/* Consume the stop eventfd's count (it is only a wake-up). */
static void remote_stop_drain(struct remote_state *rs)
{
	uint64_t v;

	(void)!read(rs->stop_fd, &v, sizeof(v));
}

static void remote_stop_signal(struct remote_state *rs)
{
	uint64_t one = 1;

	if (rs->stop_fd >= 0)
		(void)!write(rs->stop_fd, &one, sizeof(one));
}

/*
 * Wait until fd has `events` or timeout_ms passes, while the client is not
 * closing. Returns 0 (ready), -ETIMEDOUT, or -ECANCELED (closing).
 */
static int remote_poll_closing(struct sdds_client *c, int fd, short events, int timeout_ms)
{
	struct remote_state *rs = &c->remote;
	struct pollfd p[2] = {{.fd = fd, .events = events}, {.fd = rs->stop_fd, .events = POLLIN}};
	int64_t end = doorbell_now_ns() + (int64_t)timeout_ms * 1000000;
	int64_t left;
	int n;

	for (;;) {
		if (atomic_load(&rs->closing))
			return -ECANCELED;
		left = (end - doorbell_now_ns() + 999999) / 1000000;
		if (left <= 0)
			return -ETIMEDOUT;
		/* Without an fd, only the stop eventfd is watched. */
		n = fd >= 0 ? poll(p, 2, (int)left) : poll(p + 1, 1, (int)left);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n <= 0)
			continue;
		if (p[1].revents)
			remote_stop_drain(rs); /* closing is checked above */
		if (fd >= 0 && p[0].revents)
			return 0;
	}
}

/*
 * One request, one reply. On success *ret (freed by the caller with
 * sdds__ctl__reply__free_unpacked) has status 0 and the body `want`;
 * received descriptors (owned by the caller) are in fds[0..*ret_n_fds).
 * setup: the monitor's call on a connection it is building (the client is
 * disconnected meanwhile): no check of the flag, no marking on hang-up, and
 * every wait for the reply also ends when the client closes (-ECANCELED).
 */
static int remote_call(struct sdds_client *c, bool setup, Sdds__Ctl__Request *req,
		       Sdds__Ctl__Reply__BodyCase want, Sdds__Ctl__Reply **ret, int *fds, size_t max_fds,
		       size_t *ret_n_fds)
{
	struct remote_state *rs = &c->remote;
	Sdds__Ctl__Reply *rep = NULL;
	int got[CTL_MAX_FDS];
	size_t n_got = 0;
	int rc;

	pthread_mutex_lock(&rs->rpc_lock);
	if (!setup && atomic_load(&c->disconnected)) {
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
		if (setup) {
			rc = remote_poll_closing(c, rs->ctl_fd, POLLIN, REMOTE_RPC_TIMEOUT_S * 1000);
			if (rc < 0)
				break;
		}
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
		if (!setup)
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

static int remote_call_simple(struct sdds_client *c, bool setup, Sdds__Ctl__Request *req,
			      Sdds__Ctl__Reply__BodyCase want, Sdds__Ctl__Reply **ret)
{
	size_t n = 0;

	return remote_call(c, setup, req, want, ret, NULL, 0, &n);
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

/* ---------------- connection ---------------- */

/*
 * Connect to path. nonblock: the reconnection's connect, which must not
 * wait on a full listen backlog (-EAGAIN instead). Returns 0 and *ret_fd
 * (blocking, close-on-exec, owned by the caller) or -errno.
 */
static int remote_connect_path(const char *path, bool nonblock, int *ret_fd)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, rc, fl;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
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
	if (nonblock) {
		fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
			rc = -errno;
			close(fd);
			return rc;
		}
	}
	*ret_fd = fd;
	return 0;
}

/*
 * Hello on rs->ctl_fd; on success the connection's segment, request ring,
 * kick fd, flags, session id and evt are set. setup: see remote_call.
 */
static int remote_hello(struct sdds_client *c, bool setup)
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
	hello.name = rs->name;
	req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
	req.hello = &hello;
	rc = remote_call(c, setup, &req, SDDS__CTL__REPLY__BODY_HELLO, &rep, fds, 2, &n_fds);
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
	rs->epoch = hdr->epoch;
	atomic_store(&c->session_id, rep->hello->session_id);
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

/*
 * Release the current connection: segment, kick fd, control socket. Only
 * when nobody can be inside it (after a grace period, or at destroy).
 */
static void remote_conn_release(struct sdds_client *c)
{
	struct remote_state *rs = &c->remote;

	c->evt = &c->local_evt;
	rs->req = NULL;
	segment_close(&rs->seg);
	rs->seg.fd = -1;
	if (rs->kick_fd >= 0)
		close(rs->kick_fd);
	if (rs->ctl_fd >= 0)
		close(rs->ctl_fd);
	rs->kick_fd = -1;
	rs->ctl_fd = -1;
}

/*
 * Ask whoever handed the control socket in (a sandbox supervisor) for a new
 * one over the renewal channel ($SDDS_CTL_RENEW_FD, a connected AF_UNIX
 * SOCK_SEQPACKET socket): the client sends one packet "renew"; the answer is
 * one packet whose SCM_RIGHTS carry exactly one fd, a control socket
 * connected to sddsd (attested like the first). An answer without an fd is
 * a refusal (the attempt fails; the next comes after the backoff delay).
 * Returns 0 and *ret_fd (owned by the caller), -ENOTCONN when the channel
 * is gone, -ECANCELED when the client closes, or -errno.
 */
static int remote_renew(struct sdds_client *c, int *ret_fd)
{
	struct remote_state *rs = &c->remote;
	static const char ask[] = "renew";
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * CTL_MAX_FDS)];
	} ctrl;
	char data[64];
	struct iovec iov = {.iov_base = data, .iov_len = sizeof(data)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *cm;
	int fds[CTL_MAX_FDS];
	size_t n_fds = 0, i;
	ssize_t n;
	int rc, type = 0;
	socklen_t len = sizeof(type);

	do
		n = send(rs->renew_fd, ask, sizeof(ask) - 1, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return remote_is_hangup(-errno) ? -ENOTCONN : -errno;
	rc = remote_poll_closing(c, rs->renew_fd, POLLIN, REMOTE_RPC_TIMEOUT_S * 1000);
	if (rc < 0)
		return rc;
	msg.msg_control = ctrl.buf;
	msg.msg_controllen = sizeof(ctrl.buf);
	do
		n = recvmsg(rs->renew_fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return remote_is_hangup(-errno) ? -ENOTCONN : -errno;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		size_t k;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (n_fds < CTL_MAX_FDS)
				fds[n_fds++] = fd;
			else
				close(fd);
		}
	}
	if (n == 0 && n_fds == 0)
		return -ENOTCONN; /* the supervisor hung up */
	if (n_fds != 1 || (msg.msg_flags & MSG_CTRUNC)) {
		remote_close_fds(fds, n_fds);
		return n_fds ? -EPROTO : -ECONNREFUSED;
	}
	if (getsockopt(fds[0], SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_SEQPACKET) {
		close(fds[0]);
		return -EPROTO;
	}
	*ret_fd = fds[0];
	return 0;
}

static int remote_topic_register(struct sdds_client *c, bool setup, struct sdds_topic *t);
static int remote_writer_create(struct sdds_client *c, bool setup, struct sdds_writer *w);
static int remote_reader_create(struct sdds_client *c, bool setup, struct sdds_reader *r);

/*
 * One reconnection attempt (the client is disconnected and the old
 * connection released). Returns 0 with the new connection complete, or
 * -errno with nothing of it left (-ECANCELED: the client is closing).
 */
static int remote_attempt(struct sdds_client *c)
{
	struct remote_state *rs = &c->remote;
	struct timeval tv = {.tv_sec = REMOTE_RPC_TIMEOUT_S};
	struct sdds_topic *t;
	struct sdds_writer *w;
	struct sdds_reader *r;
	int fd, rc;

	if (rs->renew_fd >= 0)
		rc = remote_renew(c, &fd);
	else
		rc = remote_connect_path(rs->path, true, &fd);
	if (rc < 0)
		return rc;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	rs->ctl_fd = fd;
	rs->gen++;
	rc = remote_hello(c, true);
	if (rc < 0)
		goto fail;

	/*
	 * Topics before the endpoints that need their handles. obj_lock keeps
	 * every object alive and listed meanwhile; the application's calls
	 * that would touch these fields see the client disconnected.
	 */
	pthread_mutex_lock(&c->obj_lock);
	for (t = TAILQ_FIRST(&c->topics); rc == 0 && t != NULL; t = TAILQ_NEXT(t, node))
		rc = remote_topic_register(c, true, t);
	for (w = TAILQ_FIRST(&c->writers); rc == 0 && w != NULL; w = TAILQ_NEXT(w, node))
		rc = remote_writer_create(c, true, w);
	for (r = TAILQ_FIRST(&c->readers); rc == 0 && r != NULL; r = TAILQ_NEXT(r, node))
		rc = remote_reader_create(c, true, r);
	pthread_mutex_unlock(&c->obj_lock);
	if (rc < 0)
		goto fail;
	return 0;

fail:
	/* Hanging up frees whatever the daemon made for this attempt. */
	remote_conn_release(c);
	return rc;
}

/* Sleep ms unless the client closes. Returns 0 or -ECANCELED. */
static int remote_backoff_sleep(struct sdds_client *c, uint32_t ms)
{
	int rc = remote_poll_closing(c, -1, 0, (int)ms);

	return rc == -ECANCELED ? rc : 0;
}

static uint32_t remote_backoff_next(const struct remote_state *rs, uint32_t delay)
{
	delay = delay >= rs->reconnect_max_ms / 2 ? rs->reconnect_max_ms : delay * 2;
	return delay < REMOTE_BACKOFF_MIN_MS ? REMOTE_BACKOFF_MIN_MS : delay;
}

/*
 * Reconnect with backoff, starting at *delay, until it works (0) or the
 * client closes (-ECANCELED). *delay is left at the delay that worked.
 */
static int remote_reconnect(struct sdds_client *c, unsigned *seed, uint32_t *delay_io)
{
	struct remote_state *rs = &c->remote;
	uint32_t delay = *delay_io, ms;
	int rc;

	for (;;) {
		/* Jitter: clients of one daemon do not come back in lockstep. */
		ms = delay / 2 + (uint32_t)rand_r(seed) % (delay / 2 + 1);
		if (remote_backoff_sleep(c, ms) < 0)
			return -ECANCELED;
		atomic_fetch_add(&rs->attempts, 1);
		rc = remote_attempt(c);
		if (rc == 0) {
			*delay_io = delay;
			return 0;
		}
		if (rc == -ECANCELED)
			return rc;
		delay = remote_backoff_next(rs, delay);
	}
}

/* ---------------- monitor ---------------- */

/*
 * Wait for the control socket to hang up. Returns true on hang-up, false
 * when the monitor is to stop.
 */
static bool remote_watch(struct sdds_client *c)
{
	struct remote_state *rs = &c->remote;
	struct pollfd p[2] = {{.fd = rs->ctl_fd, .events = POLLRDHUP}, {.fd = rs->stop_fd, .events = POLLIN}};
	int n;

	for (;;) {
		if (atomic_load(&rs->stop))
			return false;
		p[0].revents = p[1].revents = 0;
		n = poll(p, 2, -1);
		if (n < 0) {
			struct timespec ts = {0, 10 * 1000 * 1000};

			if (errno != EINTR)
				nanosleep(&ts, NULL); /* ENOMEM: try again shortly */
			continue;
		}
		if (p[0].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
			return true;
		/* Closing alone changes nothing while the connection lives. */
		if (p[1].revents)
			remote_stop_drain(rs);
	}
}

static void *remote_monitor_main(void *arg)
{
	struct sdds_client *c = arg;
	struct remote_state *rs = &c->remote;
	unsigned seed = (unsigned)doorbell_now_ns() ^ (unsigned)getpid();
	uint32_t delay = REMOTE_BACKOFF_MIN_MS;
	int64_t since = 0;

	for (;;) {
		if (!remote_watch(c))
			break;
		/* Wake everybody; the segment stays mapped until the grace ends. */
		client_mark_disconnected(c);
		client_grace(c);
		remote_conn_release(c);
		if (!rs->reconnect)
			break;
		/*
		 * A connection that lived less than the longest delay (a daemon
		 * that hangs up on this client again and again, or keeps
		 * crashing) does not reset the backoff: no reconnection storm.
		 */
		if (since && doorbell_now_ns() - since < (int64_t)rs->reconnect_max_ms * 1000000)
			delay = remote_backoff_next(rs, delay);
		else
			delay = REMOTE_BACKOFF_MIN_MS;
		if (remote_reconnect(c, &seed, &delay) < 0)
			break;
		since = doorbell_now_ns();
		atomic_fetch_add(&rs->reconnects, 1);
		client_mark_connected(c);
	}
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

/*
 * A sandbox (tools/sdds-sandbox) hands the application a connected control
 * socket as $SDDS_CTL_FD (and may hand a renewal channel as
 * $SDDS_CTL_RENEW_FD, see remote_renew). Claiming one unsets the variable,
 * so that children do not believe they own the same fd, and marks it
 * close-on-exec for the same reason. From here on the fd is ours as if we
 * had connected it: it is closed on failure too, since nobody else knows of
 * it any more. Returns 0 and *ret_fd, 1 when the variable is unset, or
 * -errno.
 */
static int remote_env_fd(const char *var, int *ret_fd)
{
	const char *v = getenv(var);
	int type = 0;
	socklen_t len = sizeof(type);
	char *end;
	long n;

	if (!v)
		return 1;
	errno = 0;
	n = strtol(v, &end, 10);
	unsetenv(var);
	if (errno || end == v || *end || n < 0 || n > INT_MAX)
		return -EBADF;
	if (getsockopt((int)n, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
		return -errno;
	if (type != SOCK_SEQPACKET)
		return -EPROTOTYPE;
	(void)fcntl((int)n, F_SETFD, FD_CLOEXEC);
	*ret_fd = (int)n;
	return 0;
}

/* The path to connect (and reconnect) to, copied: opts, $SDDS_SOCKET or the default. */
static int remote_path(const sdds_client_options *opts, char **ret)
{
	char buf[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *path = opts->socket_path;
	int rc;

	if (!path) {
		rc = ctl_default_path(buf, sizeof(buf));
		if (rc < 0)
			return rc;
		path = buf;
	}
	*ret = strdup(path);
	return *ret ? 0 : -ENOMEM;
}

static void remote_state_free(struct remote_state *rs)
{
	free(rs->path);
	free(rs->name);
	if (rs->renew_fd >= 0)
		close(rs->renew_fd);
	rs->renew_fd = -1;
	rs->path = NULL;
	rs->name = NULL;
	if (rs->stop_fd >= 0)
		close(rs->stop_fd);
	rs->stop_fd = -1;
	pthread_mutex_destroy(&rs->prod_lock);
	pthread_mutex_destroy(&rs->rpc_lock);
}

int remote_open(struct sdds_client *c, const sdds_client_options *opts)
{
	struct remote_state *rs = &c->remote;
	struct timeval tv = {.tv_sec = REMOTE_RPC_TIMEOUT_S};
	const char *name = opts->name ? opts->name : program_invocation_short_name;
	bool handed_in = opts->ctl_fd >= 0, claimed = false;
	int fd = -1, rc;

	pthread_mutex_init(&rs->prod_lock, NULL);
	pthread_mutex_init(&rs->rpc_lock, NULL);
	rs->gen = 1;
	rs->reconnect_wait = opts->reconnect_wait;
	rs->reconnect_max_ms = opts->reconnect_max_ms ? opts->reconnect_max_ms : REMOTE_BACKOFF_MAX_MS;
	if (rs->reconnect_max_ms < REMOTE_BACKOFF_MIN_MS)
		rs->reconnect_max_ms = REMOTE_BACKOFF_MIN_MS;
	rs->name = strdup(name ? name : "");
	rs->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!rs->name || rs->stop_fd < 0) {
		rc = rs->stop_fd < 0 ? -errno : -ENOMEM;
		goto fail_state;
	}

	if (handed_in) {
		fd = opts->ctl_fd;
	} else {
		rc = remote_env_fd("SDDS_CTL_FD", &fd);
		if (rc < 0)
			goto fail_state;
		claimed = rc == 0;
	}
	if (claimed) {
		rc = remote_env_fd("SDDS_CTL_RENEW_FD", &rs->renew_fd);
		if (rc < 0)
			goto fail_fd;
	}
	/*
	 * Reconnecting needs a path. By default only a client that connected
	 * by path has one in mind; asked to, a client with a handed-in socket
	 * reconnects through socket_path or the default path.
	 */
	rs->reconnect =
	    opts->reconnect > 0 || (opts->reconnect < 0 && ((!handed_in && !claimed) || rs->renew_fd >= 0));
	if ((rs->reconnect && rs->renew_fd < 0) || (!handed_in && !claimed)) {
		rc = remote_path(opts, &rs->path);
		if (rc < 0)
			goto fail_fd;
	}
	if (!handed_in && !claimed) {
		rc = remote_connect_path(rs->path, false, &fd);
		if (rc < 0)
			goto fail_state;
	}
	/* A stuck daemon must not hang the application in an RPC forever. */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	rs->ctl_fd = fd;

	rc = remote_hello(c, false);
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
	rs->ctl_fd = -1;
	rs->req = NULL;
fail_fd:
	/* The caller keeps a handed-in fd when we fail. */
	if (!handed_in && fd >= 0)
		close(fd);
fail_state:
	remote_state_free(rs);
	return rc;
}

/* ---------------- topics and endpoints ---------------- */

/*
 * Register t (its stored description) on the current connection: sets
 * t->handle and t->conn_gen. Entered by the caller, or setup (the monitor).
 */
static int remote_topic_register(struct sdds_client *c, bool setup, struct sdds_topic *t)
{
	const sdds_topic_desc *desc = &t->desc;
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__RegisterTopic rt = SDDS__CTL__REGISTER_TOPIC__INIT;
	Sdds__Ctl__Field *fields = NULL;
	Sdds__Ctl__Field **field_ptrs = NULL;
	Sdds__Ctl__Reply *rep;
	size_t i;
	int rc;

	if (c->remote.max_sample && desc->sample_size > c->remote.max_sample)
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
	rc = remote_call_simple(c, setup, &req, SDDS__CTL__REPLY__BODY_TOPIC, &rep);
	if (rc < 0)
		goto out;
	if (!rep->topic) {
		rc = -EPROTO;
	} else {
		t->handle = rep->topic->topic_handle;
		t->conn_gen = c->remote.gen;
	}
	sdds__ctl__reply__free_unpacked(rep, NULL);
out:
	free(field_ptrs);
	free(fields);
	return rc;
}

static int remote_topic_new(struct sdds_topic *t, const sdds_topic_desc *desc)
{
	(void)desc; /* t->desc is the same, copied */
	return remote_topic_register(t->client, false, t);
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

/* Create w (its stored QoS) on the current connection: sets w->id, w->conn_gen. */
static int remote_writer_create(struct sdds_client *c, bool setup, struct sdds_writer *w)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__CreateWriter cw = SDDS__CTL__CREATE_WRITER__INIT;
	Sdds__Ctl__Qos q;
	Sdds__Ctl__Reply *rep;
	int rc;

	remote_qos(&w->qos, &q);
	cw.topic_handle = w->topic->handle;
	cw.qos = &q;
	req.body_case = SDDS__CTL__REQUEST__BODY_CREATE_WRITER;
	req.create_writer = &cw;
	rc = remote_call_simple(c, setup, &req, SDDS__CTL__REPLY__BODY_WRITER, &rep);
	if (rc < 0)
		return rc;
	if (!rep->writer) {
		rc = -EPROTO;
	} else {
		w->id = rep->writer->writer_id;
		w->conn_gen = c->remote.gen;
	}
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return rc;
}

static int remote_writer_new(struct sdds_writer *w, const sdds_qos *qos)
{
	(void)qos; /* w->qos is the same */
	return remote_writer_create(w->client, false, w);
}

static void remote_delete(struct sdds_client *c, bool setup, uint32_t id, bool reader)
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
	if (remote_call_simple(c, setup, &req, SDDS__CTL__REPLY__BODY__NOT_SET, &rep) == 0)
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
 * Entered by the caller.
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
	const struct sdds_writer *o;

	pthread_mutex_lock(&c->obj_lock);
	TAILQ_FOREACH(o, &c->writers, node)
	{
		if (o->max_blocking_ms > ms)
			ms = o->max_blocking_ms;
	}
	pthread_mutex_unlock(&c->obj_lock);
	return ((int64_t)ms + REMOTE_LINGER_SLACK_MS) * 1000000;
}

static void remote_writer_free(struct sdds_writer *w, bool closing)
{
	struct sdds_client *c = w->client;
	struct client_ref ref;

	if (closing || client_enter(c, &c->gp, &ref) < 0)
		return;
	/*
	 * A writer unlisted before a reconnection re-created the others has
	 * an id of an older connection: the daemon that knew it is gone.
	 */
	if (w->conn_gen == c->remote.gen) {
		remote_linger(c, remote_idle_ns(c, w), REMOTE_LINGER_CAP_NS);
		remote_delete(c, false, w->id, false);
	}
	client_leave(&ref);
}

/*
 * Reserve, fill and publish one record under prod_lock (held by the
 * caller), and kick the daemon if it sleeps on the ring. The caller need
 * not be entered: holding prod_lock while the client is connected keeps the
 * connection, kick_fd included (client.c, client_quiesce). -EAGAIN: no
 * room; then *wait (may be NULL) is set up to wait for the daemon's cons to
 * move past the value the reservation was judged by.
 */
static int remote_write_locked(struct sdds_writer *w, const void *sample, uint32_t len,
			       struct client_wait *wait)
{
	struct sdds_client *c = w->client;
	struct remote_state *rs = &c->remote;
	struct sdds_rec *rec;
	int rc;

	/* Acquire: pairs with the monitor's store that marks the client connected. */
	if (atomic_load_explicit(&c->disconnected, memory_order_acquire))
		return -ENOTCONN;
	/* Not re-created (being freed by another thread): its id means nothing here. */
	if (w->conn_gen != rs->gen)
		return -ENOTCONN;
	rc = ring_prod_reserve(&rs->prod, len, &rec);
	if (__builtin_expect(rc == -EAGAIN, 0)) {
		/* Judge the retry by a fresh cons. */
		(void)ring_prod_free(&rs->prod);
		if (wait != NULL) {
			memset(wait, 0, sizeof(*wait));
			wait->watch64 = &rs->req->cons;
			wait->seen64 = rs->prod.cons_cache;
		}
		rc = ring_prod_reserve(&rs->prod, len, &rec);
	}
	if (rc < 0)
		return rc;
	rec->type = SDDS_REC_WRITE;
	rec->flags = 0;
	rec->handle = w->id;
	/* Samples are mostly a few bytes: a fixed-size copy when it fits (no libc call). */
	if (len == 2)
		memcpy(rec + 1, sample, 2);
	else if (len == 4)
		memcpy(rec + 1, sample, 4);
	else if (len == 8)
		memcpy(rec + 1, sample, 8);
	else
		memcpy(rec + 1, sample, len);
	/* Before the publish: the daemon may take the record before we get back here. */
	SDDS_PROBE3(req_enqueued, rs->epoch, atomic_load_explicit(&c->session_id, memory_order_relaxed),
		    rec->seq);
	/*
	 * A polling daemon never sleeps on the ring: spare the full fence of
	 * the waiter check on every write. The kick is made under the lock,
	 * where kick_fd is still this connection's.
	 */
	if (rs->daemon_polling)
		ring_prod_publish_nowake(&rs->prod);
	else if (ring_prod_publish(&rs->prod))
		remote_kick(c);
	return 0;
}

/* Not entered by the caller (client.c): the fast path needs only prod_lock. */
static int remote_writer_write(struct sdds_writer *w, const void *sample, uint32_t len)
{
	struct sdds_client *c = w->client;
	struct remote_state *rs = &c->remote;
	struct client_wait wait;
	struct client_ref ref;
	int64_t deadline = 0, left;
	int rc;

	pthread_mutex_lock(&rs->prod_lock);
	rc = remote_write_locked(w, sample, len, NULL);
	pthread_mutex_unlock(&rs->prod_lock);
	if (__builtin_expect(rc != -EAGAIN, 1) || w->max_blocking_ms == 0)
		return rc;
	/*
	 * A full ring is waited out on its space doorbell without the lock,
	 * entered: the segment stays mapped while this thread sleeps on it.
	 */
	rc = client_enter(c, &c->gp, &ref);
	if (rc < 0)
		return rc;
	memset(&wait, 0, sizeof(wait));
	for (;;) {
		pthread_mutex_lock(&rs->prod_lock);
		rc = remote_write_locked(w, sample, len, &wait);
		pthread_mutex_unlock(&rs->prod_lock);
		if (rc != -EAGAIN)
			break;
		if (deadline == 0)
			deadline = doorbell_now_ns() + (int64_t)w->max_blocking_ms * 1000000;
		left = deadline - doorbell_now_ns();
		if (left <= 0) {
			rc = -ETIMEDOUT;
			break;
		}
		rc = client_wait_db(c, &rs->req->space, &wait, left);
		if (rc < 0)
			break;
	}
	client_leave(&ref);
	return rc;
}

/*
 * Attach r->cons to the ring the daemon carved, after checking that it lies
 * inside the arena. The count of lost samples carries over from the ring of
 * an earlier connection.
 */
static int remote_reader_attach(struct sdds_reader *r, const Sdds__Ctl__ReaderReply *rr)
{
	struct segment *seg = &r->client->remote.seg;
	struct sdds_seg_hdr *hdr = segment_hdr(seg);
	uint32_t cap = rr->cap, slot = rr->slot_size;
	struct rring_cons cons;
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
	if (rring_cons_init(&cons, ctl, cap, slot) < 0)
		return -EPROTO;
	pthread_mutex_lock(&r->take_lock);
	cons.lost = r->cons.lost;
	r->cons = cons;
	pthread_mutex_unlock(&r->take_lock);
	return 0;
}

/* Create r (its stored QoS) on the current connection: sets id, cons, conn_gen. */
static int remote_reader_create(struct sdds_client *c, bool setup, struct sdds_reader *r)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__CreateReader cr = SDDS__CTL__CREATE_READER__INIT;
	Sdds__Ctl__Qos q;
	Sdds__Ctl__Reply *rep;
	int rc;

	remote_qos(&r->qos, &q);
	cr.topic_handle = r->topic->handle;
	cr.qos = &q;
	req.body_case = SDDS__CTL__REQUEST__BODY_CREATE_READER;
	req.create_reader = &cr;
	rc = remote_call_simple(c, setup, &req, SDDS__CTL__REPLY__BODY_READER, &rep);
	if (rc < 0)
		return rc;
	if (!rep->reader) {
		rc = -EPROTO;
	} else {
		rc = remote_reader_attach(r, rep->reader);
		if (rc < 0) {
			remote_delete(c, setup, rep->reader->reader_id, true);
		} else {
			r->id = rep->reader->reader_id;
			r->conn_gen = c->remote.gen;
		}
	}
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return rc;
}

static int remote_reader_new(struct sdds_reader *r, const sdds_qos *qos)
{
	(void)qos; /* r->qos is the same */
	return remote_reader_create(r->client, false, r);
}

static void remote_reader_free(struct sdds_reader *r, bool closing)
{
	struct sdds_client *c = r->client;
	struct client_ref ref;

	if (closing || client_enter(c, &c->gp, &ref) < 0)
		return;
	if (r->conn_gen == c->remote.gen)
		remote_delete(c, false, r->id, true);
	client_leave(&ref);
}

/* Entered by the caller (take). */
static void remote_reader_kick(struct sdds_reader *r)
{
	remote_kick(r->client);
}

static void remote_closing(struct sdds_client *c)
{
	struct remote_state *rs = &c->remote;

	atomic_store(&rs->closing, true);
	remote_stop_signal(rs);
	/* Those who wait for a reconnection give up. */
	client_state_notify(c);
}

static void remote_shutdown(struct sdds_client *c)
{
	struct remote_state *rs = &c->remote;

	/* sdds_client_free deleted the writers (each lingered): the ring is drained. */
	atomic_store(&rs->closing, true);
	atomic_store(&rs->stop, true);
	if (rs->monitor_started) {
		remote_stop_signal(rs);
		pthread_join(rs->monitor, NULL);
		rs->monitor_started = false;
	}
	/*
	 * The monitor is gone: a connection it did not release is still mapped
	 * (woken sleepers may still look at it until destroy).
	 */
	client_mark_disconnected(c);
	if (rs->ctl_fd >= 0)
		shutdown(rs->ctl_fd, SHUT_RDWR);
}

static void remote_destroy(struct sdds_client *c)
{
	remote_conn_release(c);
	remote_state_free(&c->remote);
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
    .closing = remote_closing,
    .shutdown = remote_shutdown,
    .destroy = remote_destroy,
};
