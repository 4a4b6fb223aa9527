/* SPDX-License-Identifier: MIT */
/*
 * sdds/sdds.h - the native API of libsddsclient (and of libsddsmono).
 *
 * An application connects to sddsd, registers topics, and creates writers
 * and readers. The same source linked with libsddsmono instead runs the
 * broker core in-process ("monolithic mode", the baseline that measures
 * what isolation costs); libsddsclient has no broker and no network code.
 * Samples are opaque byte strings of the topic's sample size, marshalled as
 * SNPS puts them on the wire (the generated code of sdds-gen does this for
 * typed sDDS applications).
 *
 * Errors: every function returns 0 or a negative errno:
 *   -ENOTCONN   the daemon went away (the client stays usable for free();
 *               see "Restart" below: it may come back)
 *   -EACCES     the daemon's policy denies the request
 *   -ETIMEDOUT  a blocking call ran out of time
 *   -EAGAIN     nothing to take (non-blocking take), or no room (non-blocking write)
 *   -EINVAL     bad argument, or a topic that conflicts with one already known
 *   -EMSGSIZE   a sample of the wrong size
 *   -ENOSPC     a daemon limit was reached
 *   -ENOTSUP    monolithic mode asked of libsddsclient (link libsddsmono)
 * Out-parameters (ret_*) are written only on success. Handles are freed with
 * their _free function, which accepts NULL. Threads: every call is safe from
 * any thread; one reader is best taken from by one thread at a time.
 *
 * fork(): a client's threads (its reconnection monitor, the listener
 * thread) do not exist in a child of fork(), and the child inherits the
 * client's shared segment. A child must not use a client created before
 * the fork, and should exec before it creates one: in the child of a
 * multithreaded process only async-signal-safe calls are safe (under a
 * sanitizer runtime, a client created there has been seen to hang its
 * monitor thread at start, and then never notices the daemon go away).
 *
 * Restart. When sddsd goes away (crash, restart, upgrade), a client that
 * reconnects (sdds_client_options.reconnect) keeps every handle valid: its
 * monitor thread connects again with exponential backoff (10 ms doubling to
 * reconnect_max_ms, jittered; not reset by a connection that lived less
 * than reconnect_max_ms), registers every topic again and re-creates
 * every writer and reader with its QoS (new daemon ids, new reader rings);
 * listeners stay set and fire for samples of the new connection. Then
 * sdds_client_connected() is true again and sdds_client_reconnects() has
 * grown by one. The gap:
 *   - Samples in flight when the daemon died are lost: written but not yet
 *     routed, or routed but not yet taken. sdds_reader_lost() does not count
 *     them (nobody can).
 *   - During the gap every call that needs the daemon returns -ENOTCONN at
 *     once: write, take (with any timeout), topic, writer and reader
 *     creation, setting a listener. Freeing anything and removing a
 *     listener always work, also while the client is reconnecting.
 *   - A call blocked when the daemon died (take, write waiting for room)
 *     returns -ENOTCONN.
 *   - With sdds_client_options.reconnect_wait, a write or take that would
 *     return -ENOTCONN because of the gap waits for the new connection
 *     instead, within its own time budget (write: the writer's
 *     max_blocking_ms; take: timeout_ns, 0 = not at all), and carries on on
 *     the new connection; -ENOTCONN once the budget is spent.
 * Re-creation is all or nothing: if the new daemon refuses one object (its
 * policy, a conflicting topic, a cap), the attempt is dropped and retried
 * after the next backoff delay.
 */
#ifndef SDDS_SDDS_H
#define SDDS_SDDS_H

#include <errno.h> /* the -E* codes every function returns */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SDDS_API __attribute__((visibility("default")))

typedef struct sdds_client sdds_client;
typedef struct sdds_topic sdds_topic;
typedef struct sdds_writer sdds_writer;
typedef struct sdds_reader sdds_reader;

typedef struct sdds_client_options {
	const char *socket_path;   /* NULL: $SDDS_SOCKET or the default path */
	const char *name;	   /* shown by sddsctl; NULL: program name */
	int ctl_fd;		   /* >= 0: an already connected control socket
				    * (handed in by a sandbox); -1: connect.
				    * The client owns it once sdds_client_new
				    * succeeded (sdds_client_free closes it); on
				    * failure the caller keeps it. */
	int64_t spin_ns;	   /* spin budget before sleeping; <0: $SDDS_SPIN_NS or 20000 */
	bool monolithic;	   /* the broker core in-process, no daemon: what
				    * linking libsddsmono instead of libsddsclient
				    * does (it ignores this); libsddsclient, which
				    * has no broker, refuses it with -ENOTSUP */
	int reconnect;		   /* reconnect after the daemon went away (see
				    * "Restart" above): 1 yes, 0 no, -1 default:
				    * yes when connecting by path, no with a
				    * handed-in ctl_fd. With ctl_fd and 1, the
				    * client reconnects through socket_path (or the
				    * default path). A socket claimed from
				    * $SDDS_CTL_FD (a sandbox) reconnects by
				    * default when $SDDS_CTL_RENEW_FD names a
				    * channel to ask the sandbox for a new one
				    * (docs/DESIGN.md, "Restart"); without it the
				    * application, which cannot connect(), stays
				    * disconnected for good and should exit so that
				    * its supervisor restarts it. Ignored in
				    * monolithic mode. */
	bool reconnect_wait;	   /* during the gap, writes and takes wait for the
				    * new connection within their time budget */
	uint32_t reconnect_max_ms; /* longest backoff delay; 0: 1000 */
	int64_t spin_yield_ns;	   /* after this much pure spinning, the spin
				    * phase yields the CPU (sched_yield) between
				    * checks, so spinners sharing a CPU alternate
				    * within microseconds instead of at the
				    * scheduler tick; 0: yield at once; <0:
				    * $SDDS_SPIN_YIELD_NS, else never yield */
	const char *net_config;	   /* libsddsmono: a daemon-style config file
				    * (sddsd.conf keys node_config, interface,
				    * discovery..., poll) whose network side runs
				    * in this process, on a thread of the library,
				    * as sddsd would run it; NULL: $SDDS_NET_CONFIG,
				    * unset: no network. The first monolithic
				    * client of the process decides. */
} sdds_client_options;

/* Fill defaults: socket_path NULL, name NULL, ctl_fd -1, spin_ns -1,
 * monolithic false ($SDDS_MONOLITHIC=1 asks for it at sdds_client_new),
 * reconnect -1, reconnect_wait false, reconnect_max_ms 1000,
 * spin_yield_ns -1, net_config NULL. */
SDDS_API void sdds_client_options_init(sdds_client_options *opts);

/* Connect. opts may be NULL for defaults. */
SDDS_API int sdds_client_new(const sdds_client_options *opts, sdds_client **ret_client);
/*
 * Disconnect and free every topic, writer and reader it still holds (their
 * handles are invalid afterwards). Writers are deleted first, through the
 * daemon, which answers once their samples already written were routed
 * (bounded by the writers' max_blocking_ms and a few seconds). Works in
 * every state, also after the daemon went away. Not from a listener: it
 * joins the callback-manager thread.
 */
SDDS_API void sdds_client_free(sdds_client *client);
/* Session id the daemon gave this client (0 in monolithic mode); a new one after a reconnection. */
SDDS_API uint32_t sdds_client_session_id(const sdds_client *client);
/* False once the daemon went away; true again after a reconnection. */
SDDS_API bool sdds_client_connected(const sdds_client *client);
/*
 * Reconnections completed so far (0 in monolithic mode). A change tells the
 * application that a gap happened between two looks, even one it did not
 * see as -ENOTCONN.
 */
SDDS_API uint64_t sdds_client_reconnects(const sdds_client *client);

typedef enum sdds_field_type {
	SDDS_FIELD_OCTET = 1,
	SDDS_FIELD_CHAR = 2,
	SDDS_FIELD_BOOLEAN = 3,
	SDDS_FIELD_SHORT = 4,
	SDDS_FIELD_USHORT = 5,
	SDDS_FIELD_LONG = 6,
	SDDS_FIELD_ULONG = 7,
	SDDS_FIELD_LONGLONG = 8,
	SDDS_FIELD_ULONGLONG = 9,
	SDDS_FIELD_STRING = 10, /* size = K + 1 */
	SDDS_FIELD_ENUM = 11,	/* size = 1, 2, 4 or 8 */
} sdds_field_type;

typedef struct sdds_field {
	const char *name;
	sdds_field_type type;
	uint32_t size; /* bytes in the marshalled sample */
} sdds_field;

typedef struct sdds_topic_desc {
	const char *name;
	uint16_t domain;
	uint16_t id;
	uint32_t sample_size; /* sum of the field sizes */
	const sdds_field *fields;
	size_t n_fields;
} sdds_topic_desc;

/* Register (or find) a topic. Conflicting layouts for the same (domain, id) give -EINVAL. */
SDDS_API int sdds_topic_new(sdds_client *client, const sdds_topic_desc *desc, sdds_topic **ret_topic);
SDDS_API void sdds_topic_free(sdds_topic *topic); /* after its writers and readers */
SDDS_API uint32_t sdds_topic_sample_size(const sdds_topic *topic);

typedef enum sdds_reliability { SDDS_BEST_EFFORT = 0, SDDS_RELIABLE = 1 } sdds_reliability;

typedef struct sdds_qos {
	sdds_reliability reliability;
	uint32_t history_depth;	  /* reader: samples kept for it (default 64) */
	uint32_t max_blocking_ms; /* writer: how long a write may wait for room (default 100) */
} sdds_qos;

SDDS_API void sdds_qos_init(sdds_qos *qos);

SDDS_API int sdds_writer_new(sdds_topic *topic, const sdds_qos *qos, sdds_writer **ret_writer);
SDDS_API void sdds_writer_free(sdds_writer *writer);
/*
 * Write one sample of exactly the topic's sample size (the bytes are copied;
 * the caller keeps sample). Waits up to max_blocking_ms for room when the
 * pipeline is full, then gives -ETIMEDOUT (max_blocking_ms 0: -EAGAIN at
 * once). Returns 0 also when nobody reads the topic.
 * Through sddsd, "room" is room in the client's request ring; the daemon
 * holds a sample for a full reliable reader up to max_blocking_ms and then
 * delivers it to the other readers. In monolithic mode the write itself
 * waits for the full reliable reader, and after max_blocking_ms delivers to
 * the readers with room and returns -ETIMEDOUT.
 */
SDDS_API int sdds_writer_write(sdds_writer *writer, const void *sample, size_t len);

SDDS_API int sdds_reader_new(sdds_topic *topic, const sdds_qos *qos, sdds_reader **ret_reader);
SDDS_API void sdds_reader_free(sdds_reader *reader);
/*
 * Take the next sample into buf (cap bytes, at least the sample size, else
 * -EINVAL; buf is the caller's).
 * timeout_ns: 0 = do not wait (-EAGAIN when empty), < 0 = wait forever,
 * else wait that long (-ETIMEDOUT). *ret_len (may be NULL) gets the length.
 * A local dequeue from the shared segment: no round trip to the daemon.
 * Once the daemon went away it returns -ENOTCONN, also when samples remain.
 */
SDDS_API int sdds_reader_take(sdds_reader *reader, void *buf, size_t cap, size_t *ret_len,
			      int64_t timeout_ns);
/*
 * Take up to max samples in one call, in order: sample i goes to
 * buf + i * stride (stride at least the sample size, else -EINVAL; buf
 * holds max * stride bytes and is the caller's). *ret_n gets how many were
 * taken (at least 1 on success), each of the sample size. Waits as
 * sdds_reader_take does for the first sample only (timeout_ns 0: -EAGAIN
 * when empty, < 0 forever, else -ETIMEDOUT), then takes what is there
 * without waiting. The reader's lock and, for a reliable reader, the check
 * whether the daemon waits for room are paid once per call instead of once
 * per sample. Errors as sdds_reader_take; -EINVAL for max 0.
 */
SDDS_API int sdds_reader_take_many(sdds_reader *reader, void *buf, size_t stride, size_t max, size_t *ret_n,
				   int64_t timeout_ns);

typedef void (*sdds_listener_fn)(sdds_reader *reader, void *arg);
/*
 * Call fn(reader, arg) on the client's callback-manager thread once for every
 * sample that arrives (the listener is expected to take it; samples already
 * waiting when the listener is set count as arriving). fn NULL removes
 * the listener. Returns once the change is in effect: after removal returns,
 * the old fn is not running and will not run. May be called from inside a
 * listener (also to free the reader). -ENOTCONN when setting one after the
 * daemon went away; removal always works.
 */
SDDS_API int sdds_reader_set_listener(sdds_reader *reader, sdds_listener_fn fn, void *arg);
/* Samples this reader lost because it fell behind (best effort). */
SDDS_API uint64_t sdds_reader_lost(const sdds_reader *reader);

/* A static, human-readable text for an error code from this API. */
SDDS_API const char *sdds_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* SDDS_SDDS_H */
