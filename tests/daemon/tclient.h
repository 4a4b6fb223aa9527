/* SPDX-License-Identifier: MIT */
/*
 * tclient.h - test helpers: run the sddsd binary as a child on a private
 * socket, and talk to it as a raw client (ipc/ctl.h, segment.h, ring.h; not
 * the client library, so tests can also break the protocol on purpose).
 *
 * OVERVIEW
 * Every helper returns 0 or -errno (a daemon's error status is returned as
 * is), never asserts, so the test decides what is expected. A tc_daemon owns
 * its child and its temp directory; tc_daemon_stop sends SIGTERM, reaps the
 * child and removes the directory. A tc_client owns its socket, its mapping
 * and its eventfd; tc_client_close frees them (accepts a zeroed client).
 */
#ifndef SDDS_TESTS_DAEMON_TCLIENT_H
#define SDDS_TESTS_DAEMON_TCLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctl.h"
#include "ring.h"
#include "segment.h"

struct tc_daemon {
	pid_t pid;
	char dir[64];
	char sock[128];
	char config[128];
};

/*
 * Start `sddsd` (path) on dir/s.sock with extra arguments (NULL-terminated
 * list, may be NULL) and, if config_text is not NULL, `-c dir/sddsd.conf`
 * holding it. Waits until the socket accepts a connection (5 s at most);
 * -ECHILD when the daemon exited instead.
 */
int tc_daemon_start(struct tc_daemon *d, const char *sddsd, const char *const *extra,
		    const char *config_text);
/* The same on a socket path of the caller's (NULL: dir/s.sock). */
int tc_daemon_start_at(struct tc_daemon *d, const char *sddsd, const char *sock, const char *const *extra,
		       const char *config_text);

/* SIGTERM, reap (5 s, then SIGKILL), remove the temp dir. Returns the wait status, or -errno. */
int tc_daemon_stop(struct tc_daemon *d);

/*
 * Stop (SIGKILL) every daemon started and not stopped yet, and remove its
 * directory: for a test's teardown, which also runs when the test failed
 * half-way. Returns 0 so it can serve as a CMocka teardown.
 */
int tc_daemon_cleanup(void **state);
/* Let tc_daemon_cleanup also reap a daemon the test forked itself (d->pid, d->dir)... */
void tc_daemon_track(const struct tc_daemon *d);
/* ... until the test reaped it itself. */
void tc_daemon_untrack(pid_t pid);

/* Number of open fds of process pid, or -errno. */
int tc_count_fds(pid_t pid);
/* VmRSS of pid in KiB, or -errno. */
long tc_rss_kib(pid_t pid);

/* A connected SOCK_SEQPACKET socket to path (blocking, 5 s timeouts), or -errno. */
int tc_connect(const char *path);

struct tc_client {
	int fd;
	int efd;
	struct segment seg;
	bool attached;
	uint32_t session_id;
	uint64_t epoch;
	bool polling;
	uint32_t max_sample;
	struct ring_prod prod;
	uint32_t next_id;
};

/* Connect and Hello; on success the segment is attached and the producer ready. */
int tc_client_open(struct tc_client *c, const char *path, const char *name);
void tc_client_close(struct tc_client *c);

/*
 * Send req (id assigned here) and wait for the reply with that id. On
 * success *ret is the reply (free with sdds__ctl__reply__free_unpacked),
 * whatever its status. fds the reply carries are closed.
 */
int tc_call(struct tc_client *c, Sdds__Ctl__Request *req, Sdds__Ctl__Reply **ret);

/* The RPCs; each returns the reply's status (0 or -errno) or a transport -errno. */
int tc_register_topic(struct tc_client *c, uint32_t domain, uint32_t topic_id, const char *name,
		      uint32_t sample_size, uint32_t *ret_handle);
int tc_create_writer(struct tc_client *c, uint32_t topic, bool reliable, uint32_t max_blocking_ms,
		     uint32_t *ret_id);
/* ret_ring (may be NULL) is attached to the reader ring in the segment. */
int tc_create_reader(struct tc_client *c, uint32_t topic, bool reliable, uint32_t depth, uint32_t *ret_id,
		     struct rring_cons *ret_ring);
int tc_delete(struct tc_client *c, uint32_t id, bool reader);
/* On success *ret is a reply with a Stats body (free as for tc_call). */
int tc_stats(struct tc_client *c, Sdds__Ctl__Reply **ret);

/*
 * Put one WRITE record for writer_id into the request ring, publish it and
 * kick the daemon if it sleeps. -EAGAIN when the ring is full.
 */
int tc_write(struct tc_client *c, uint32_t writer_id, const void *data, uint32_t len);
/* Kick the daemon's eventfd (as a reliable reader's client does after taking). */
void tc_kick(struct tc_client *c);

/*
 * Take one sample from r into buf (waits up to timeout_ms for one; kicks the
 * daemon when it waits for room). Returns 1 taken, 0 none, or -errno.
 */
int tc_take(struct tc_client *c, struct rring_cons *r, void *buf, size_t cap, uint32_t *ret_len,
	    int timeout_ms);

/* True once the peer closed the control socket (waits up to timeout_ms). */
bool tc_peer_closed(int fd, int timeout_ms);

/* Sleep for ms milliseconds. */
void tc_sleep_ms(int ms);

#endif /* SDDS_TESTS_DAEMON_TCLIENT_H */
