/* SPDX-License-Identifier: MIT */
/*
 * rawcli.c - the raw client of the hostile tests (see rawcli.h).
 *
 * OVERVIEW
 * Request ring producer, from layout.h: records are 16-byte aligned and
 * never wrap (a PAD record fills the tail); the payload is written before
 * the release store of `prod`, so the daemon's acquire load of prod sees
 * it. The reader-ring consumer follows the slot protocol of layout.h
 * (seq == position + 1 means valid; re-read after the copy). Single thread.
 */
#include "rawcli.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "itest.h"
#include "sample.h"

#define RAWCLI_ALIGN(x) (((x) + (SDDS_REC_ALIGN - 1)) & ~(uint64_t)(SDDS_REC_ALIGN - 1))

int rawcli_connect(const char *path, struct rawcli *rc)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	memset(rc, 0, sizeof *rc);
	rc->sock = -1;
	rc->efd = -1;
	rc->seg.fd = -1;
	rc->next_id = 1;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (strlen(path) >= sizeof sa.sun_path) {
		close(fd);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	/* A daemon that never answers fails the call, not the whole test run. */
	{
		struct timeval tv = {.tv_sec = 10};

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	}
	rc->sock = fd;
	return 0;
}

int rawcli_hello(struct rawcli *rc, const char *name)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Hello hello = SDDS__CTL__HELLO__INIT;
	Sdds__Ctl__Reply *rep = NULL;
	struct segment seg;
	int fds[2] = {-1, -1};
	size_t n_fds = 0;
	int err;

	hello.protocol_version = CTL_PROTOCOL_VERSION;
	hello.layout_version = SDDS_LAYOUT_VERSION;
	hello.name = (char *)name;
	req.id = rc->next_id++;
	req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
	req.hello = &hello;
	err = ctl_send_request(rc->sock, &req, NULL, 0);
	if (err < 0)
		return err;
	err = ctl_recv_reply(rc->sock, &rep, fds, 2, &n_fds);
	if (err < 0)
		return err;
	rc->last_status = rep->status;
	if (rep->status != 0) {
		err = rep->status;
		goto fail_fds;
	}
	if (rep->body_case != SDDS__CTL__REPLY__BODY_HELLO || n_fds != 2) {
		err = -EPROTO;
		goto fail_fds;
	}
	err = segment_attach(fds[0], &seg);
	if (err < 0)
		goto fail_fds;
	rc->seg = seg;
	rc->efd = fds[1];
	rc->hdr = segment_hdr(&rc->seg);
	rc->req_cap = rc->hdr->req_cap;
	rc->max_record = rc->hdr->max_record;
	rc->req =
	    segment_at(&rc->seg, rc->hdr->req_off, sizeof(struct sdds_ring_ctl) + (uint64_t)rc->req_cap);
	if (rc->req == NULL) {
		err = -EPROTO;
		goto fail_seg;
	}
	rc->req_data = (uint8_t *)(rc->req + 1);
	rc->prod = atomic_load_explicit(&rc->req->prod, memory_order_relaxed);
	rc->session_id = rep->hello->session_id;
	rc->max_sample = rep->hello->max_sample;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return 0;

fail_seg:
	segment_close(&rc->seg);
	rc->seg.fd = -1;
	rc->hdr = NULL;
	close(fds[1]);
	rc->efd = -1;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return err;
fail_fds:
	for (size_t i = 0; i < n_fds; i++)
		close(fds[i]);
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return err;
}

int rawcli_open(const char *path, const char *name, struct rawcli *rc)
{
	int err = rawcli_connect(path, rc);

	if (err < 0)
		return err;
	err = rawcli_hello(rc, name);
	if (err < 0)
		rawcli_close(rc);
	return err;
}

void rawcli_close(struct rawcli *rc)
{
	if (rc->hdr != NULL) {
		segment_close(&rc->seg);
		rc->hdr = NULL;
	}
	if (rc->efd >= 0)
		close(rc->efd);
	if (rc->sock >= 0)
		close(rc->sock);
	rc->efd = -1;
	rc->sock = -1;
	rc->seg.fd = -1;
	rc->req = NULL;
}

int rawcli_rpc(struct rawcli *rc, Sdds__Ctl__Request *req, Sdds__Ctl__Reply **ret)
{
	Sdds__Ctl__Reply *rep = NULL;
	size_t n_fds = 0;
	int fds[4];
	int err;

	req->id = rc->next_id++;
	err = ctl_send_request(rc->sock, req, NULL, 0);
	if (err < 0)
		return err;
	for (;;) {
		err = ctl_recv_reply(rc->sock, &rep, fds, 4, &n_fds);
		if (err < 0)
			return err;
		/* A reply never carries fds except to Hello: do not keep any. */
		for (size_t i = 0; i < n_fds; i++)
			close(fds[i]);
		if (rep->id == req->id)
			break;
		sdds__ctl__reply__free_unpacked(rep, NULL);
	}
	rc->last_status = rep->status;
	*ret = rep;
	return 0;
}

int rawcli_topic(struct rawcli *rc, uint16_t domain, uint16_t id, uint32_t size, bool fields,
		 uint32_t *ret_handle)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__RegisterTopic rt = SDDS__CTL__REGISTER_TOPIC__INIT;
	Sdds__Ctl__Field f[5], *fp[5];
	struct isample_field isf[5];
	Sdds__Ctl__Reply *rep;
	char name[32];
	int err;

	snprintf(name, sizeof name, "itest-%u", id);
	rt.domain = domain;
	rt.topic_id = id;
	rt.name = name;
	rt.sample_size = size;
	if (fields && size >= ISAMPLE_HDR) {
		rt.n_fields = isample_fields(size, isf);
		for (size_t i = 0; i < rt.n_fields; i++) {
			sdds__ctl__field__init(&f[i]);
			f[i].name = (char *)isf[i].name;
			f[i].type = (Sdds__Ctl__FieldType)isf[i].type;
			f[i].size = isf[i].size;
			fp[i] = &f[i];
		}
		rt.fields = fp;
	}
	req.body_case = SDDS__CTL__REQUEST__BODY_REGISTER_TOPIC;
	req.register_topic = &rt;
	err = rawcli_rpc(rc, &req, &rep);
	if (err < 0)
		return err;
	err = rep->status;
	if (err == 0 && rep->body_case != SDDS__CTL__REPLY__BODY_TOPIC)
		err = -EPROTO;
	if (err == 0)
		*ret_handle = rep->topic->topic_handle;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return err;
}

int rawcli_writer(struct rawcli *rc, uint32_t topic, bool reliable, uint32_t max_blocking_ms,
		  uint32_t *ret_id)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__CreateWriter cw = SDDS__CTL__CREATE_WRITER__INIT;
	Sdds__Ctl__Qos qos = SDDS__CTL__QOS__INIT;
	Sdds__Ctl__Reply *rep;
	int err;

	qos.reliability = reliable ? SDDS__CTL__RELIABILITY__RELIABLE : SDDS__CTL__RELIABILITY__BEST_EFFORT;
	qos.max_blocking_ms = max_blocking_ms;
	cw.topic_handle = topic;
	cw.qos = &qos;
	req.body_case = SDDS__CTL__REQUEST__BODY_CREATE_WRITER;
	req.create_writer = &cw;
	err = rawcli_rpc(rc, &req, &rep);
	if (err < 0)
		return err;
	err = rep->status;
	if (err == 0 && rep->body_case != SDDS__CTL__REPLY__BODY_WRITER)
		err = -EPROTO;
	if (err == 0)
		*ret_id = rep->writer->writer_id;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return err;
}

int rawcli_reader(struct rawcli *rc, uint32_t topic, bool reliable, uint32_t depth, struct rawcli_reader *ret)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__CreateReader cr = SDDS__CTL__CREATE_READER__INIT;
	Sdds__Ctl__Qos qos = SDDS__CTL__QOS__INIT;
	Sdds__Ctl__Reply *rep;
	struct rawcli_reader rd = {0};
	int err;

	qos.reliability = reliable ? SDDS__CTL__RELIABILITY__RELIABLE : SDDS__CTL__RELIABILITY__BEST_EFFORT;
	qos.history_depth = depth;
	cr.topic_handle = topic;
	cr.qos = &qos;
	req.body_case = SDDS__CTL__REQUEST__BODY_CREATE_READER;
	req.create_reader = &cr;
	err = rawcli_rpc(rc, &req, &rep);
	if (err < 0)
		return err;
	err = rep->status;
	if (err == 0 && rep->body_case != SDDS__CTL__REPLY__BODY_READER)
		err = -EPROTO;
	if (err == 0) {
		const Sdds__Ctl__ReaderReply *rr = rep->reader;

		rd.id = rr->reader_id;
		rd.cap = rr->cap;
		rd.slot_size = rr->slot_size;
		if (rd.cap == 0 || (rd.cap & (rd.cap - 1)) != 0 || rd.slot_size < sizeof(struct sdds_rslot))
			err = -EPROTO;
		else
			rd.ctl = segment_at(&rc->seg, rr->ring_off,
					    sizeof(struct sdds_rring_ctl) + (uint64_t)rd.cap * rd.slot_size);
		if (err == 0 && rd.ctl == NULL)
			err = -EPROTO;
	}
	if (err == 0) {
		rd.slots = (uint8_t *)(rd.ctl + 1);
		rd.cons = atomic_load_explicit(&rd.ctl->cons, memory_order_relaxed);
		*ret = rd;
	}
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return err;
}

int rawcli_delete(struct rawcli *rc, bool reader, uint32_t id)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__DeleteEndpoint de = SDDS__CTL__DELETE_ENDPOINT__INIT;
	Sdds__Ctl__Reply *rep;
	int err;

	de.id = id;
	if (reader) {
		req.body_case = SDDS__CTL__REQUEST__BODY_DELETE_READER;
		req.delete_reader = &de;
	} else {
		req.body_case = SDDS__CTL__REQUEST__BODY_DELETE_WRITER;
		req.delete_writer = &de;
	}
	err = rawcli_rpc(rc, &req, &rep);
	if (err < 0)
		return err;
	err = rep->status;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return err;
}

/* ---------------------------------------------------------- request ring */

uint64_t rawcli_cons(const struct rawcli *rc)
{
	return atomic_load_explicit(&rc->req->cons, memory_order_acquire);
}

void rawcli_kick(struct rawcli *rc)
{
	uint64_t one = 1;

	/* EAGAIN (counter saturated) still leaves the daemon woken. */
	if (rc->efd >= 0 && write(rc->efd, &one, sizeof one) < 0) {
	}
}

void rawcli_put(struct rawcli *rc, uint64_t pos, const struct sdds_rec *h, const void *payload, size_t len)
{
	const uint8_t *hb = (const uint8_t *)h;
	const uint8_t *pb = payload;
	uint32_t mask = rc->req_cap - 1;

	for (size_t i = 0; i < sizeof *h; i++)
		rc->req_data[(pos + i) & mask] = hb[i];
	for (size_t i = 0; i < len; i++)
		rc->req_data[(pos + sizeof *h + i) & mask] = pb[i];
}

void rawcli_publish(struct rawcli *rc, uint64_t prod)
{
	rc->prod = prod;
	/* Release: the record bytes written before are visible with prod. */
	atomic_store_explicit(&rc->req->prod, prod, memory_order_release);
	rawcli_kick(rc);
}

int rawcli_write_nopub(struct rawcli *rc, uint32_t writer, const void *data, uint32_t len)
{
	uint64_t need = RAWCLI_ALIGN(sizeof(struct sdds_rec) + (uint64_t)len);
	uint64_t pos = rc->prod & (rc->req_cap - 1);
	uint64_t tail = rc->req_cap - pos;
	uint64_t total = need + (tail < need ? tail : 0);
	struct sdds_rec h;

	if (sizeof(struct sdds_rec) + (uint64_t)len > rc->max_record)
		return -EMSGSIZE;
	if (rc->prod + total - rawcli_cons(rc) > rc->req_cap)
		return -EAGAIN;
	if (tail < need) {
		h = (struct sdds_rec){
		    .len = (uint32_t)(tail - sizeof h), .type = SDDS_REC_PAD, .seq = rc->rec_seq++};
		memcpy(rc->req_data + pos, &h, sizeof h);
		rc->prod += tail;
		pos = 0;
	}
	h = (struct sdds_rec){.len = len, .type = SDDS_REC_WRITE, .handle = writer, .seq = rc->rec_seq++};
	memcpy(rc->req_data + pos, &h, sizeof h);
	memcpy(rc->req_data + pos + sizeof h, data, len);
	rc->prod += need;
	return 0;
}

int rawcli_write(struct rawcli *rc, uint32_t writer, const void *data, uint32_t len, int timeout_ms)
{
	int64_t deadline = itest_now_ms() + timeout_ms;
	int err;

	while ((err = rawcli_write_nopub(rc, writer, data, len)) == -EAGAIN) {
		rawcli_kick(rc);
		if (itest_now_ms() > deadline)
			return -ETIMEDOUT;
		sched_yield();
	}
	if (err < 0)
		return err;
	rawcli_publish(rc, rc->prod);
	return 0;
}

int rawcli_wait_consumed(struct rawcli *rc, int timeout_ms)
{
	int64_t deadline = itest_now_ms() + timeout_ms;

	while (rawcli_cons(rc) != rc->prod) {
		if (itest_now_ms() > deadline)
			return -ETIMEDOUT;
		rawcli_kick(rc);
		itest_sleep_ms(1);
	}
	return 0;
}

/* ---------------------------------------------------------- control socket */

bool rawcli_wait_hangup(struct rawcli *rc, int timeout_ms)
{
	int64_t deadline = itest_now_ms() + timeout_ms;
	static uint8_t buf[CTL_MAX_PACKET];

	for (;;) {
		struct pollfd p = {.fd = rc->sock, .events = POLLIN | POLLRDHUP};
		int64_t left = deadline - itest_now_ms();
		int r;

		if (left < 0)
			return false;
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno != EINTR)
			return false;
		if (r <= 0)
			continue;
		if (p.revents & (POLLHUP | POLLRDHUP | POLLERR))
			return true;
		ssize_t n = recv(rc->sock, buf, sizeof buf, MSG_DONTWAIT);

		if (n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE)))
			return true;
		/* A reply the daemon sent before hanging up: dropped. */
	}
}

int rawcli_send_raw(struct rawcli *rc, const void *buf, size_t len, const int *fds, size_t n_fds)
{
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * 64)];
	} cbuf;

	if (n_fds > 64)
		return -EINVAL;
	if (n_fds > 0) {
		struct cmsghdr *c;

		memset(&cbuf, 0, sizeof cbuf);
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
	}
	if (sendmsg(rc->sock, &mh, MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}

/* ---------------------------------------------------------- reader ring */

uint64_t rawcli_reader_prod(const struct rawcli_reader *rd)
{
	return atomic_load_explicit(&rd->ctl->prod, memory_order_acquire);
}

void rawcli_reader_set_cons(struct rawcli_reader *rd, uint64_t cons)
{
	atomic_store_explicit(&rd->ctl->cons, cons, memory_order_release);
}

int rawcli_reader_take(struct rawcli *rc, struct rawcli_reader *rd, void *buf, size_t cap, uint32_t *ret_len)
{
	struct sdds_rslot *s = (struct sdds_rslot *)(rd->slots + (rd->cons & (rd->cap - 1)) * rd->slot_size);
	uint64_t s1, s2, prod;
	uint32_t len;

	s1 = atomic_load_explicit(&s->seq, memory_order_acquire);
	if (s1 != rd->cons + 1) {
		prod = rawcli_reader_prod(rd);
		if (s1 <= rd->cons || prod <= rd->cons)
			return 0;
		/* Lapped: skip to the oldest slot the producer still holds. */
		rd->cons = prod - rd->cap;
		rawcli_reader_set_cons(rd, rd->cons);
		return -EOVERFLOW;
	}
	len = s->len;
	if (len > rd->slot_size - sizeof *s || len > cap)
		len = 0;
	memcpy(buf, s + 1, len);
	/* Acquire: the copy above is complete before seq is read again. */
	atomic_thread_fence(memory_order_acquire);
	s2 = atomic_load_explicit(&s->seq, memory_order_relaxed);
	if (s2 != s1)
		return 0;
	rd->cons++;
	rawcli_reader_set_cons(rd, rd->cons);
	/* Full fence: cons is visible before we look for a daemon waiting for space. */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&rd->ctl->space.waiters, memory_order_relaxed) != 0)
		rawcli_kick(rc);
	*ret_len = len;
	return 1;
}
