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

#include "ring.h"

#define BROKER_NAME_MAX 64
#define BROKER_MAX_FIELDS 64

struct broker;
struct broker_topic;
struct broker_writer;
struct broker_reader;

struct broker_limits {
	uint32_t max_topics;         /* whole broker */
	uint32_t max_endpoints;      /* readers + writers, whole broker */
	uint32_t max_sample;         /* largest sample_size accepted */
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

/* Called by broker_flush once for each reader that got samples. */
typedef void (*broker_notify_fn)(struct broker_reader *r, void *owner);

int broker_new(const struct broker_limits *limits, struct broker **ret);
void broker_free(struct broker *b); /* accepts NULL; frees everything left */

/*
 * Find the topic (domain, topic_id) or create it. An existing topic must
 * match sample_size and field layout exactly, else -EINVAL (a mismatch is a
 * configuration error between applications). Takes a reference the caller
 * drops with broker_topic_put. -ENOSPC over max_topics, -EMSGSIZE over
 * max_sample.
 */
int broker_topic_get(struct broker *b, const struct broker_topic_desc *desc, struct broker_topic **ret);
void broker_topic_put(struct broker_topic *t);
const struct broker_topic_desc *broker_topic_desc(const struct broker_topic *t);
const struct broker_counters *broker_topic_counters(const struct broker_topic *t);

/* owner_id: the session id of the creating client (0 = network/in-process). */
int broker_writer_new(struct broker *b, struct broker_topic *t, const struct broker_qos *qos,
		      uint32_t owner_id, struct broker_writer **ret);
void broker_writer_free(struct broker_writer *w); /* accepts NULL */

/*
 * ring: a producer handle for a formatted reader ring (copied; the memory
 * must outlive the reader). notify/owner: see broker_notify_fn.
 */
int broker_reader_new(struct broker *b, struct broker_topic *t, const struct broker_qos *qos,
		      uint32_t owner_id, const struct rring_prod *ring, broker_notify_fn notify,
		      void *owner, struct broker_reader **ret);
void broker_reader_free(struct broker_reader *r); /* accepts NULL */

/*
 * Route one sample of writer w (len must equal the topic's sample_size, else
 * -EINVAL and counted as rejected) to every reader of the topic except those
 * whose owner_id equals skip_owner (0 = skip none). Returns 0, -EAGAIN (a
 * reliable reader is full; nothing was delivered; *ret_blocker names it when
 * ret_blocker is not NULL) or -EPROTO (a reader's client corrupted its cons
 * index: *ret_blocker names the reader; its owner must be disconnected).
 */
int broker_write(struct broker_writer *w, const void *data, uint32_t len, uint32_t skip_owner,
		 struct broker_reader **ret_blocker);

/* Call notify for every reader delivered to since the last flush. */
void broker_flush(struct broker *b);

/* Accessors for stats and for the session layer. */
const struct broker_counters *broker_writer_counters(const struct broker_writer *w);
const struct broker_counters *broker_reader_counters(const struct broker_reader *r);
struct broker_topic *broker_writer_topic(const struct broker_writer *w);
struct broker_topic *broker_reader_topic(const struct broker_reader *r);
const struct broker_qos *broker_reader_qos(const struct broker_reader *r);
const struct broker_qos *broker_writer_qos(const struct broker_writer *w);
uint32_t broker_reader_owner(const struct broker_reader *r);
struct rring_prod *broker_reader_ring(struct broker_reader *r);

/* Iterate topics (for stats); fn returns non-zero to stop. */
void broker_foreach_topic(struct broker *b, int (*fn)(struct broker_topic *t, void *arg), void *arg);

#endif /* SDDS_DAEMON_BROKER_H */
