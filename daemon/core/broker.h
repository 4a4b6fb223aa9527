/* SPDX-License-Identifier: MIT */
/*
 * broker.h - the broker core: topic table, writers, readers, the router.
 *
 * OVERVIEW
 * The core knows nothing of sockets, libuv or sessions: it is a library that
 * the daemon (one broker per process, driven by the libuv loop) and the
 * client library's monolithic mode (a broker inside the application, behind
 * a mutex) both use. It is single-threaded: the caller serialises every call.
 *
 * Samples are opaque byte strings of exactly the topic's sample_size
 * (marshalled as SNPS does on the wire, see docs/DESIGN.md). A reader is a
 * reader ring (ipc/ring.h rring_prod) that the owner formatted in memory the
 * reader's consumer can see, plus a notify callback the router calls once per
 * flush for every reader it delivered to.
 *
 * Reliability: before a sample is delivered, every reliable reader of the
 * topic must have room; if one has none, broker_write delivers to nobody and
 * returns -EAGAIN with *ret_blocker set, and the caller retries later (the
 * daemon stops pumping that writer's ring). Best-effort readers never block
 * a writer: the oldest sample is overwritten and counted as dropped.
 *
 * Ownership: the broker allocates its objects; a topic lives while a writer
 * or reader refers to it or a registration holds it (broker_topic_put).
 * Every count a client can grow is capped by struct broker_limits.
 */
#ifndef SDDS_DAEMON_BROKER_H
#define SDDS_DAEMON_BROKER_H

#include <stdbool.h>
#include <stdint.h>

#include "ctl_limits.h"
#include "ring.h"

#define BROKER_NAME_MAX IPC_NAME_MAX
#define BROKER_MAX_FIELDS IPC_MAX_FIELDS

struct broker;
struct broker_topic;
struct broker_writer;
struct broker_reader;

struct broker_limits {
	uint32_t max_topics;	/* whole broker */
	uint32_t max_endpoints; /* readers + writers, whole broker */
	uint32_t max_sample;	/* largest sample_size accepted */
};
void broker_limits_init(struct broker_limits *l); /* sensible defaults */

struct broker_counters {
	uint64_t written;
	uint64_t delivered;
	uint64_t dropped;
	uint64_t rejected;
};

struct broker_field {
	uint8_t type; /* Sdds__Ctl__FieldType values */
	uint32_t size;
	char name[BROKER_NAME_MAX];
};

struct broker_topic_desc {
	uint16_t domain;
	uint16_t topic_id;
	char name[BROKER_NAME_MAX];
	uint32_t sample_size;
	uint32_t n_fields;
	struct broker_field fields[BROKER_MAX_FIELDS];
};

enum broker_reliability { BROKER_BEST_EFFORT = 0, BROKER_RELIABLE = 1 };

struct broker_qos {
	enum broker_reliability reliability;
	uint32_t history_depth;
	uint32_t max_blocking_ms;
};

/*
 * Called by broker_flush once for each reader that got samples. It may free
 * readers (this one too), write and flush; it must not call broker_free.
 */
typedef void (*broker_notify_fn)(struct broker_reader *r, void *owner);

/*
 * limits NULL = broker_limits_init defaults; -EINVAL on a zero limit or
 * max_topics over 2^20 (the topic table is sized once, here).
 */
int broker_new(const struct broker_limits *limits, struct broker **ret);
/*
 * Accepts NULL. Frees everything left (topics, writers, readers): every
 * handle the broker gave out is invalid afterwards.
 */
void broker_free(struct broker *b);

/* What the broker holds now (module tests check that nothing leaked). */
struct broker_usage {
	uint32_t topics;
	uint32_t endpoints; /* readers and writers */
};
void broker_usage(const struct broker *b, struct broker_usage *ret);

/*
 * Find the topic (domain, topic_id) or create it. An existing topic must
 * match sample_size and field layout exactly, else -EINVAL (a mismatch is a
 * configuration error between applications). Takes a reference the caller
 * drops with broker_topic_put. -ENOSPC over max_topics, -EMSGSIZE over
 * max_sample.
 * desc is copied. sample_size >= 1; with fields (n_fields > 0), every field
 * must have a known type with its wire size (1/2/4/8 for the integer types,
 * 1, 2, 4 or 8 for ENUM, K + 1 >= 1 for STRING) and the sizes must add up to
 * sample_size, else -EINVAL. "Same layout" compares type and size of each
 * field, not names. A raw description (n_fields == 0) only has to match
 * sample_size, either way round; the first typed registration of a raw
 * topic fixes its field list.
 */
int broker_topic_get(struct broker *b, const struct broker_topic_desc *desc, struct broker_topic **ret);
void broker_topic_put(struct broker_topic *t);
const struct broker_topic_desc *broker_topic_desc(const struct broker_topic *t);
const struct broker_counters *broker_topic_counters(const struct broker_topic *t);
uint32_t broker_topic_readers(const struct broker_topic *t); /* readers attached now */
uint32_t broker_topic_writers(const struct broker_topic *t); /* writers attached now */

/* owner_id: the session id of the creating client (0 = network/in-process). */
int broker_writer_new(struct broker *b, struct broker_topic *t, const struct broker_qos *qos,
		      uint32_t owner_id, struct broker_writer **ret);
void broker_writer_free(struct broker_writer *w); /* accepts NULL */

/*
 * ring: a producer handle for a formatted reader ring (copied; the memory
 * must outlive the reader; its slots must hold sample_size payload bytes,
 * else -EINVAL). notify/owner: see broker_notify_fn; notify may be NULL (the
 * reader is then never put on the flush list).
 */
int broker_reader_new(struct broker *b, struct broker_topic *t, const struct broker_qos *qos,
		      uint32_t owner_id, const struct rring_prod *ring, broker_notify_fn notify, void *owner,
		      struct broker_reader **ret);
void broker_reader_free(struct broker_reader *r); /* accepts NULL */

/*
 * Route one sample of writer w (len must equal the topic's sample_size, else
 * -EINVAL and counted as rejected) to every reader of the topic except those
 * whose owner_id equals skip_owner (0 = skip none). Returns 0, -EAGAIN (a
 * reliable reader is full; nothing was delivered; *ret_blocker names it when
 * ret_blocker is not NULL) or -EPROTO (a reader's client corrupted its cons
 * index: *ret_blocker names the reader; nothing was delivered; its owner
 * must be disconnected, then the write may be retried). Only reliable
 * readers' cons indices are read, and only when the producer's cached view
 * (rring_prod.cons_seen) shows the ring full: a corrupted cons is reported
 * when its ring looks full, not earlier. data is copied into the
 * rings; the caller keeps it. Counters: written per routed sample,
 * delivered per reader ring pushed to, dropped per best-effort overwrite.
 */
int broker_write(struct broker_writer *w, const void *data, uint32_t len, uint32_t skip_owner,
		 struct broker_reader **ret_blocker);

/*
 * broker_write for count samples of one writer in one call: sample i is the
 * len bytes at samples + i * stride. Samples are routed in order, each as
 * broker_write would (every probe fires per sample); the topic and its
 * reader lists are resolved once, and each reader ring's prod is published
 * once per call instead of once per sample. *ret_done gets the number of
 * samples routed (or rejected for a wrong len) before the call stopped.
 * Returns 0 (all count samples done), or broker_write's -EAGAIN / -EPROTO
 * for sample *ret_done (not delivered; *ret_blocker as for broker_write),
 * or -EINVAL for bad arguments (nothing done). samples is the caller's.
 */
int broker_write_many(struct broker_writer *w, const void *samples, uint32_t stride, uint32_t count,
		      uint32_t len, uint32_t skip_owner, uint32_t *ret_done,
		      struct broker_reader **ret_blocker);

/*
 * Like broker_write, but never -EAGAIN: for the writer's max_blocking_ms
 * timeout. Full reliable readers miss this sample (counted as dropped on
 * the reader, the writer and the topic); all others get it. -EPROTO as for
 * broker_write (then nothing was delivered).
 */
int broker_write_force(struct broker_writer *w, const void *data, uint32_t len, uint32_t skip_owner,
		       struct broker_reader **ret_blocker);

/*
 * Call notify for every reader delivered to since the last flush, each
 * once. Readers that callbacks deliver to wait for the next flush.
 */
void broker_flush(struct broker *b);

/* Accessors for stats and for the session layer. */
const struct broker_counters *broker_writer_counters(const struct broker_writer *w);
const struct broker_counters *broker_reader_counters(const struct broker_reader *r);
struct broker_topic *broker_writer_topic(const struct broker_writer *w);
struct broker_topic *broker_reader_topic(const struct broker_reader *r);
const struct broker_qos *broker_reader_qos(const struct broker_reader *r);
const struct broker_qos *broker_writer_qos(const struct broker_writer *w);
uint32_t broker_reader_owner(const struct broker_reader *r);
uint32_t broker_writer_owner(const struct broker_writer *w);
struct rring_prod *broker_reader_ring(struct broker_reader *r);

/*
 * Iterate topics in creation order (for stats); fn returns non-zero to
 * stop. fn may put the topic it is handed, no other.
 */
void broker_foreach_topic(struct broker *b, int (*fn)(struct broker_topic *t, void *arg), void *arg);

#endif /* SDDS_DAEMON_BROKER_H */
