/* SPDX-License-Identifier: MIT */
/*
 * builtin.h - the builtin topics of shared/docs/snps-wire.md §10.1.
 *
 * OVERVIEW
 * All builtin topics live in domain 1 with ids 1..7. This module gives
 * their sample sizes and layouts (for the topic lookup of the decoder and
 * for snps_sample_swap), and converts the samples discovery needs between
 * their canonical wire form and plain C structs:
 *
 *   1 DCPSParticipant   key                                   2 bytes
 *   2 DCPSTopic         key, name[26] (raw slot, no +1)       28 bytes (never sent)
 *   3 DCPSPublication   key, participant, topic_id            6 bytes
 *   4 DCPSSubscription  key, participant, topic_id            6 bytes
 *   5 ParticipantStatelessMessage                             234 bytes (layout only)
 *   6 DCPSLocation      key, device, x, y, z, width, length,  18 bytes
 *                       expiration (i16), age (i16)
 *   7 DCPSManagement    key, participant, mKey[32], mValue[32] 68 bytes
 *
 * Encoders write exactly the sample size into a caller-owned buffer of at
 * least that size; decoders read a sample of exactly that size (borrowed
 * for the call) into a caller-owned struct. Both speak canonical
 * (big-endian) form; swap with snps_sample_swap() and the layout for a §2
 * misconfigured peer.
 */
#ifndef SDDS_SNPS_BUILTIN_H
#define SDDS_SNPS_BUILTIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snps/marshal.h"
#include "snps/wire.h"

#define SNPS_BUILTIN_DOMAIN 1

enum snps_builtin_topic {
	SNPS_BUILTIN_PARTICIPANT = 1,
	SNPS_BUILTIN_TOPIC = 2,
	SNPS_BUILTIN_PUBLICATION = 3,
	SNPS_BUILTIN_SUBSCRIPTION = 4,
	SNPS_BUILTIN_STATELESS = 5, /* ParticipantStatelessMessage (security) */
	SNPS_BUILTIN_LOCATION = 6,
	SNPS_BUILTIN_MANAGEMENT = 7,
};

#define SNPS_PARTICIPANT_SIZE 2
#define SNPS_DCPSTOPIC_SIZE 28
#define SNPS_DCPSTOPIC_NAME_LEN 26
#define SNPS_ENDPOINT_SIZE 6
#define SNPS_STATELESS_SIZE 234
#define SNPS_LOCATION_SIZE 18
#define SNPS_MANAGEMENT_SIZE 68
#define SNPS_MANAGEMENT_SLOT 32

/* True for ids 1..7 (the domain is not looked at, as real receivers do). */
bool snps_builtin_is(uint16_t topic);

/* Sample size of builtin `topic`: 0 or SNPS_ENOENT. Usable as the core of a
 * decoder topic lookup. */
int snps_builtin_size(uint16_t topic, uint32_t *ret_size);

/* Layout of builtin `topic` (static storage), or NULL. */
const struct snps_layout *snps_builtin_layout(uint16_t topic);

/*
 * A ready snps_topic_lookup_fn that knows the builtins only (ctx unused);
 * real receivers match by id and ignore the domain (§4.4).
 */
int snps_builtin_lookup(void *ctx, uint8_t domain, uint16_t topic, uint32_t *ret_size);

/* DCPSParticipant: the sender's 16-bit node id (§9.4), never 0. */
struct snps_participant {
	uint16_t key;
};

/* DCPSPublication and DCPSSubscription share one layout. */
struct snps_endpoint {
	uint16_t key;	      /* writer index (publication) or reader index (subscription) */
	uint16_t participant; /* the sender's node id */
	uint16_t topic_id;    /* the user topic */
};

struct snps_dcpstopic {
	uint16_t key;
	char name[SNPS_DCPSTOPIC_NAME_LEN + 1]; /* NUL-terminated copy of the slot */
};

struct snps_location {
	uint16_t key;
	uint16_t device;
	uint16_t x, y, z;
	uint16_t width, length;
	int16_t expiration;
	int16_t age; /* ms since the position was measured */
};

struct snps_management {
	uint16_t key; /* never initialised by real senders: garbage */
	uint16_t participant;
	uint8_t mkey[SNPS_MANAGEMENT_SLOT];   /* ASCII command, NUL-padded */
	uint8_t mvalue[SNPS_MANAGEMENT_SLOT]; /* raw arguments */
};

/*
 * Encoders: write the sample into buf[0..cap); SNPS_EMSGSIZE when cap is
 * smaller than the sample size (nothing written). The DCPSTopic name must
 * fit its 26-byte slot (SNPS_EINVAL); shorter names are NUL-padded.
 * Decoders: SNPS_EMSGSIZE unless len is exactly the sample size.
 */
int snps_participant_encode(const struct snps_participant *v, uint8_t *buf, size_t cap);
int snps_participant_decode(const uint8_t *sample, size_t len, struct snps_participant *ret);
int snps_endpoint_encode(const struct snps_endpoint *v, uint8_t *buf, size_t cap);
int snps_endpoint_decode(const uint8_t *sample, size_t len, struct snps_endpoint *ret);
int snps_dcpstopic_encode(const struct snps_dcpstopic *v, uint8_t *buf, size_t cap);
int snps_dcpstopic_decode(const uint8_t *sample, size_t len, struct snps_dcpstopic *ret);
int snps_location_encode(const struct snps_location *v, uint8_t *buf, size_t cap);
int snps_location_decode(const uint8_t *sample, size_t len, struct snps_location *ret);
int snps_management_encode(const struct snps_management *v, uint8_t *buf, size_t cap);
int snps_management_decode(const uint8_t *sample, size_t len, struct snps_management *ret);

/*
 * DCPSPublication key of writer `index` (§10.1): the index itself, or with
 * reliability compiled in, (node_id << 4 | index) truncated to 16 bits.
 */
uint16_t snps_publication_key(uint16_t node_id, uint16_t index, bool reliability);

#endif /* SDDS_SNPS_BUILTIN_H */
