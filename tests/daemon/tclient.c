/* SPDX-License-Identifier: MIT */
/*
 * tclient.c - test helpers: sddsd as a child process, a raw client.
 *
 * OVERVIEW
 * See tclient.h. Everything here is blocking with timeouts (5 s on the
 * control socket), so a daemon bug makes a test fail, not hang; the meson
 * timeout is the last guard.
 */
#include "tclient.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "doorbell.h"
#include "layout.h"
#include "sddsd_run.h"

#define TC_TIMEOUT_S 5
#define TC_MAX_LIVE 16

/* Daemons started and not stopped yet: copies, the tc_daemon may be gone. */
static struct {
	pid_t pid;
	char dir[64];
} tc_live[TC_MAX_LIVE];

static void tc_live_add(const struct tc_daemon *d)
{
	for (int i = 0; i < TC_MAX_LIVE; i++) {
		if (tc_live[i].pid == 0) {
			tc_live[i].pid = d->pid;
			snprintf(tc_live[i].dir, sizeof(tc_live[i].dir), "%s", d->dir);
			return;
		}
	}
}

static void tc_live_remove(pid_t pid)
{
	for (int i = 0; i < TC_MAX_LIVE; i++) {
		if (tc_live[i].pid == pid)
			tc_live[i].pid = 0;
	}
}

void tc_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int tc_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = TC_TIMEOUT_S};
	int fd, rc;

	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path) >= (int)sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

static void tc_rm_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

int tc_daemon_start(struct tc_daemon *d, const char *sddsd, const char *const *extra, const char *config_text)
{
	return tc_daemon_start_at(d, sddsd, NULL, extra, config_text);
}

int tc_daemon_start_at(struct tc_daemon *d, const char *sddsd, const char *sock, const char *const *extra,
		       const char *config_text)
{
	const char *args[32];
	struct sddsd_run_opts o;
	int n = 0, rc;

	memset(d, 0, sizeof(*d));
	rc = sddsd_run_tmpdir("sddsd-test", d->dir, sizeof(d->dir));
	if (rc < 0)
		return rc;
	if (sock != NULL)
		snprintf(d->sock, sizeof(d->sock), "%s", sock);
	else
		snprintf(d->sock, sizeof(d->sock), "%s/s.sock", d->dir);
	sddsd_run_opts_init(&o);
	o.bin = sddsd;
	o.sock = d->sock;
	o.ready_ms = 5000;
	if (config_text != NULL) {
		snprintf(d->config, sizeof(d->config), "%s/sddsd.conf", d->dir);
		rc = sddsd_run_write(d->config, config_text);
		if (rc < 0) {
			tc_rm_dir(d->dir);
			return rc;
		}
		o.config = d->config;
	}
	for (int i = 0; extra != NULL && extra[i] != NULL && n < 22; i++)
		args[n++] = extra[i];
	/* SDDSD_TEST_DEBUG=1: the daemon logs everything (debugging aid). */
	if (getenv("SDDSD_TEST_DEBUG") != NULL) {
		args[n++] = "--log-level";
		args[n++] = "debug";
	}
	args[n] = NULL;
	o.extra = args;
	rc = sddsd_run_start(&o, &d->pid, NULL);
	if (rc < 0) {
		d->pid = 0;
		tc_rm_dir(d->dir);
		d->dir[0] = '\0';
		return rc;
	}
	tc_live_add(d);
	return 0;
}

int tc_daemon_stop(struct tc_daemon *d)
{
	int status = 0;

	if (d->pid > 0) {
		if (sddsd_run_stop(d->pid, SIGTERM, 5000, &status) == -ETIMEDOUT)
			status = -ETIMEDOUT;
		tc_live_remove(d->pid);
		d->pid = 0;
	}
	if (d->dir[0] != '\0')
		tc_rm_dir(d->dir);
	d->dir[0] = '\0';
	return status;
}

void tc_daemon_track(const struct tc_daemon *d)
{
	tc_live_add(d);
}

void tc_daemon_untrack(pid_t pid)
{
	tc_live_remove(pid);
}

int tc_daemon_cleanup(void **state)
{
	(void)state;
	for (int i = 0; i < TC_MAX_LIVE; i++) {
		if (tc_live[i].pid == 0)
			continue;
		kill(tc_live[i].pid, SIGKILL);
		waitpid(tc_live[i].pid, NULL, 0);
		tc_rm_dir(tc_live[i].dir);
		tc_live[i].pid = 0;
	}
	return 0;
}

int tc_count_fds(pid_t pid)
{
	char p[64];
	DIR *d;
	struct dirent *e;
	int n = 0;

	snprintf(p, sizeof(p), "/proc/%d/fd", (int)pid);
	d = opendir(p);
	if (d == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] != '.')
			n++;
	}
	closedir(d);
	return n;
}

long tc_rss_kib(pid_t pid)
{
	char p[64], line[256];
	FILE *f;
	long kib = -ENOENT;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	f = fopen(p, "r");
	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	}
	fclose(f);
	return kib;
}

bool tc_peer_closed(int fd, int timeout_ms)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN | POLLRDHUP};
	char buf[CTL_MAX_PACKET];

	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		ssize_t n;

		if (poll(&pfd, 1, 10) <= 0)
			continue;
		/* Drain any reply first: only a 0-byte read proves the hang-up. */
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return true;
	}
	return false;
}

int tc_call(struct tc_client *c, Sdds__Ctl__Request *req, Sdds__Ctl__Reply **ret)
{
	Sdds__Ctl__Reply *rep = NULL;
	int fds[CTL_MAX_FDS];
	size_t n_fds = 0;
	int rc;

	req->id = ++c->next_id;
	rc = ctl_send_request(c->fd, req, NULL, 0);
	if (rc < 0)
		return rc;
	rc = ctl_recv_reply(c->fd, &rep, fds, CTL_MAX_FDS, &n_fds);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n_fds; i++)
		close(fds[i]);
	if (rep->id != req->id) {
		sdds__ctl__reply__free_unpacked(rep, NULL);
		return -EPROTO;
	}
	*ret = rep;
	return 0;
}

int tc_client_open(struct tc_client *c, const char *path, const char *name)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Hello hello = SDDS__CTL__HELLO__INIT;
	Sdds__Ctl__Reply *rep = NULL;
	struct sdds_seg_hdr *hdr;
	int fds[CTL_MAX_FDS];
	size_t n_fds = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	c->efd = -1;
	c->seg.fd = -1;
	c->fd = tc_connect(path);
	if (c->fd < 0)
		return c->fd;
	hello.protocol_version = CTL_PROTOCOL_VERSION;
	hello.layout_version = SDDS_LAYOUT_VERSION;
	hello.name = (char *)name;
	req.id = ++c->next_id;
	req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
	req.hello = &hello;
	rc = ctl_send_request(c->fd, &req, NULL, 0);
	if (rc == 0)
		rc = ctl_recv_reply(c->fd, &rep, fds, CTL_MAX_FDS, &n_fds);
	if (rc < 0)
		goto fail;
	if (rep->status != 0 || rep->body_case != SDDS__CTL__REPLY__BODY_HELLO || n_fds != 2) {
		rc = rep->status != 0 ? rep->status : -EPROTO;
		for (size_t i = 0; i < n_fds; i++)
			close(fds[i]);
		sdds__ctl__reply__free_unpacked(rep, NULL);
		goto fail;
	}
	c->session_id = rep->hello->session_id;
	c->epoch = rep->hello->epoch;
	c->polling = rep->hello->daemon_polling;
	c->max_sample = rep->hello->max_sample;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	c->efd = fds[1];
	rc = segment_attach(fds[0], &c->seg);
	if (rc < 0) {
		close(fds[0]);
		goto fail;
	}
	c->attached = true;
	hdr = segment_hdr(&c->seg);
	rc = ring_prod_init(&c->prod,
			    segment_at(&c->seg, hdr->req_off, sizeof(struct sdds_ring_ctl) + hdr->req_cap),
			    hdr->req_cap, hdr->max_record);
	if (rc < 0)
		goto fail;
	return 0;

fail:
	tc_client_close(c);
	return rc;
}

void tc_client_close(struct tc_client *c)
{
	if (c->attached)
		segment_close(&c->seg);
	c->attached = false;
	if (c->efd >= 0)
		close(c->efd);
	c->efd = -1;
	if (c->fd > 0)
		close(c->fd);
	c->fd = -1;
}

/* Run req; return the reply's status; keep the reply in *ret when wanted. */
static int tc_rpc(struct tc_client *c, Sdds__Ctl__Request *req, Sdds__Ctl__Reply **ret)
{
	Sdds__Ctl__Reply *rep = NULL;
	int rc = tc_call(c, req, &rep);

	if (rc < 0)
		return rc;
	rc = rep->status;
	if (rc == 0 && ret != NULL)
		*ret = rep;
	else
		sdds__ctl__reply__free_unpacked(rep, NULL);
	return rc;
}

int tc_register_topic(struct tc_client *c, uint32_t domain, uint32_t topic_id, const char *name,
		      uint32_t sample_size, uint32_t *ret_handle)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__RegisterTopic rt = SDDS__CTL__REGISTER_TOPIC__INIT;
	Sdds__Ctl__Reply *rep = NULL;
	int rc;

	rt.domain = domain;
	rt.topic_id = topic_id;
	rt.name = (char *)name;
	rt.sample_size = sample_size;
	req.body_case = SDDS__CTL__REQUEST__BODY_REGISTER_TOPIC;
	req.register_topic = &rt;
	rc = tc_rpc(c, &req, &rep);
	if (rc == 0) {
		if (rep->body_case != SDDS__CTL__REPLY__BODY_TOPIC)
			rc = -EPROTO;
		else if (ret_handle != NULL)
			*ret_handle = rep->topic->topic_handle;
		sdds__ctl__reply__free_unpacked(rep, NULL);
	}
	return rc;
}

int tc_create_writer(struct tc_client *c, uint32_t topic, bool reliable, uint32_t max_blocking_ms,
		     uint32_t *ret_id)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__CreateWriter cw = SDDS__CTL__CREATE_WRITER__INIT;
	Sdds__Ctl__Qos qos = SDDS__CTL__QOS__INIT;
	Sdds__Ctl__Reply *rep = NULL;
	int rc;

	qos.reliability = reliable ? SDDS__CTL__RELIABILITY__RELIABLE : SDDS__CTL__RELIABILITY__BEST_EFFORT;
	qos.max_blocking_ms = max_blocking_ms;
	cw.topic_handle = topic;
	cw.qos = &qos;
	req.body_case = SDDS__CTL__REQUEST__BODY_CREATE_WRITER;
	req.create_writer = &cw;
	rc = tc_rpc(c, &req, &rep);
	if (rc == 0) {
		if (rep->body_case != SDDS__CTL__REPLY__BODY_WRITER)
			rc = -EPROTO;
		else if (ret_id != NULL)
			*ret_id = rep->writer->writer_id;
		sdds__ctl__reply__free_unpacked(rep, NULL);
	}
	return rc;
}

int tc_create_reader(struct tc_client *c, uint32_t topic, bool reliable, uint32_t depth, uint32_t *ret_id,
		     struct rring_cons *ret_ring)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__CreateReader cr = SDDS__CTL__CREATE_READER__INIT;
	Sdds__Ctl__Qos qos = SDDS__CTL__QOS__INIT;
	Sdds__Ctl__Reply *rep = NULL;
	int rc;

	qos.reliability = reliable ? SDDS__CTL__RELIABILITY__RELIABLE : SDDS__CTL__RELIABILITY__BEST_EFFORT;
	qos.history_depth = depth;
	cr.topic_handle = topic;
	cr.qos = &qos;
	req.body_case = SDDS__CTL__REQUEST__BODY_CREATE_READER;
	req.create_reader = &cr;
	rc = tc_rpc(c, &req, &rep);
	if (rc != 0)
		return rc;
	if (rep->body_case != SDDS__CTL__REPLY__BODY_READER) {
		rc = -EPROTO;
	} else {
		const Sdds__Ctl__ReaderReply *rr = rep->reader;
		struct sdds_rring_ctl *ctl =
		    segment_at(&c->seg, rr->ring_off,
			       (uint64_t)sizeof(struct sdds_rring_ctl) + (uint64_t)rr->cap * rr->slot_size);

		if (ctl == NULL || rr->ring_off % SDDS_RRING_ALIGN != 0)
			rc = -EPROTO;
		else if (ret_ring != NULL)
			rc = rring_cons_init(ret_ring, ctl, rr->cap, rr->slot_size);
		if (rc == 0 && ret_id != NULL)
			*ret_id = rr->reader_id;
	}
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return rc;
}

int tc_delete(struct tc_client *c, uint32_t id, bool reader)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__DeleteEndpoint de = SDDS__CTL__DELETE_ENDPOINT__INIT;

	de.id = id;
	if (reader) {
		req.body_case = SDDS__CTL__REQUEST__BODY_DELETE_READER;
		req.delete_reader = &de;
	} else {
		req.body_case = SDDS__CTL__REQUEST__BODY_DELETE_WRITER;
		req.delete_writer = &de;
	}
	return tc_rpc(c, &req, NULL);
}

int tc_stats(struct tc_client *c, Sdds__Ctl__Reply **ret)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__StatsQuery sq = SDDS__CTL__STATS_QUERY__INIT;
	Sdds__Ctl__Reply *rep = NULL;
	int rc;

	req.body_case = SDDS__CTL__REQUEST__BODY_STATS;
	req.stats = &sq;
	rc = tc_rpc(c, &req, &rep);
	if (rc != 0)
		return rc;
	if (rep->body_case != SDDS__CTL__REPLY__BODY_STATS || rep->stats == NULL) {
		sdds__ctl__reply__free_unpacked(rep, NULL);
		return -EPROTO;
	}
	*ret = rep;
	return 0;
}

void tc_kick(struct tc_client *c)
{
	uint64_t one = 1;

	if (write(c->efd, &one, sizeof(one)) < 0) {
		/* A saturated counter still wakes the daemon. */
	}
}

int tc_write(struct tc_client *c, uint32_t writer_id, const void *data, uint32_t len)
{
	struct sdds_rec *rec;
	int rc;

	rc = ring_prod_reserve(&c->prod, len, &rec);
	if (rc < 0)
		return rc;
	rec->type = SDDS_REC_WRITE;
	rec->handle = writer_id;
	memcpy(rec + 1, data, len);
	if (ring_prod_publish(&c->prod) && !c->polling)
		tc_kick(c);
	return 0;
}

int tc_take(struct tc_client *c, struct rring_cons *r, void *buf, size_t cap, uint32_t *ret_len,
	    int timeout_ms)
{
	for (int waited = 0;; waited++) {
		uint32_t len = 0;
		bool kick = false;
		int rc = rring_cons_take(r, buf, cap, &len, NULL, &kick);

		if (kick)
			tc_kick(c);
		if (rc != 0) {
			if (rc == 1 && ret_len != NULL)
				*ret_len = len;
			return rc;
		}
		if (waited >= timeout_ms)
			return 0;
		tc_sleep_ms(1);
	}
}
