/* SPDX-License-Identifier: MIT */
/*
 * nodecfg.h - the node-config view of an sDDS sdds.xml, what sddsd and
 * sdds-peer take from it:
 * the network topic table, the node's address, interface and base port,
 * and the static subscriptions (snps-wire.md §9, §13.2).
 *
 * OVERVIEW
 * nodecfg_load reads the file with lib/sddsxml's reader (the same code
 * sdds-gen generates the nodes from) and flattens what the daemon
 * needs into a plain value: no pointers, fixed arrays, so it can be copied
 * and freed with free(). Every topic's layout is the flattened leaf list of
 * its attributes (§6), checked with the SNPS codec.
 *
 * Refused, with "FILE:LINE: what": an XML error of the reader; a domain or
 * topic id over 15 (real nodes truncate them, §4.4); two topics with the
 * same id (receivers look topics up by id only, §4.4, §15.6); a user topic
 * in domain 1 with an id 1..7 (the builtins); a subscriber address that is
 * not IPv6 or names an unknown interface; more topics or destinations than
 * the caps below.
 *
 * A subscriber's address may carry a zone ("fe80::1%veth0"); without one,
 * the link is chosen later by the network layer (the only configured link,
 * else an error: never "the first one").
 */
#ifndef SDDSXML_NODECFG_H
#define SDDSXML_NODECFG_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#define NODECFG_MAX_TOPICS 16u /* ids are 0..15 */
#define NODECFG_MAX_DESTS 64u
#define NODECFG_LOC_MAX 160u /* "FILE:LINE" of a declaration, for messages */
#define NODECFG_ERROR_MAX 1024u
#define NODECFG_NAME_MAX 64u   /* topic and field names, NUL included */
#define NODECFG_MAX_FIELDS 64u /* flattened fields of one topic */

/* One flattened field, in wire order. */
struct nodecfg_field {
	uint8_t type;  /* SNPS_FIELD_* (lib/snps) */
	uint32_t size; /* bytes on the wire */
	char name[NODECFG_NAME_MAX];
};

/* A topic as the wire and a broker know it. */
struct nodecfg_desc {
	uint16_t domain;
	uint16_t topic_id;
	char name[NODECFG_NAME_MAX];
	uint32_t sample_size;
	uint32_t n_fields;
	struct nodecfg_field fields[NODECFG_MAX_FIELDS];
};

struct nodecfg_topic {
	struct nodecfg_desc desc;   /* domain, id, name, size, flattened fields */
	bool publisher, subscriber; /* the roles of the file (informative) */
	bool reliable;
	bool nack;		/* reliable with confirmationtype="nack" (§11.3) */
	uint8_t seq_bits;	/* reliabilitySeqnrSize: 4, 8, 16 or 32 (4 when not given) */
	uint32_t history_depth; /* 0: not given */
	char loc[NODECFG_LOC_MAX];
};

struct nodecfg_dest {
	uint32_t topic; /* index into topics */
	struct in6_addr ip;
	char iface[IF_NAMESIZE]; /* the zone given with the address, or "" */
	uint16_t port;		 /* 0: the project's base port */
	char loc[NODECFG_LOC_MAX];
};

struct nodecfg {
	char name[NODECFG_NAME_MAX];
	char iface[IF_NAMESIZE]; /* project iface attribute, may be "" */
	struct in6_addr ip;	 /* project ip attribute (default fe80::10) */
	uint16_t port;		 /* project port (default 23234) */
	bool endian_big;	 /* endian="big": the node's own integers are swapped (§2) */
	struct nodecfg_topic topics[NODECFG_MAX_TOPICS];
	uint32_t n_topics;
	struct nodecfg_dest dests[NODECFG_MAX_DESTS];
	uint32_t n_dests;
	char loc[NODECFG_LOC_MAX]; /* of the project element */
	/*
	 * Discovery as the node's own <define>s configure a real node
	 * (snps-wire.md §10.1, §10.2): on when FEATURE_SDDS_BUILTIN_TOPICS_ENABLED
	 * and FEATURE_SDDS_DISCOVERY_ENABLED are both defined. The periods, in
	 * ms, from SDDS_BUILTIN_TOPIC_PARTICIPANT_TIMER and
	 * SDDS_BUILTIN_TOPIC_PUBLICATION_TIMER (seconds; the feature/security
	 * branch's SDDS_DISCOVERY_*_TIMER names too); -1: not defined. A
	 * define that is present but not a number of seconds is refused.
	 */
	bool discovery;
	int64_t participant_ms;
	int64_t publication_ms;
};

struct nodecfg_error {
	char msg[NODECFG_ERROR_MAX]; /* "FILE:LINE: what is wrong" */
};

/*
 * Read path (and its includes). On success *ret is a new nodecfg the caller
 * frees with free(); on error -EINVAL (err says why), -ENOMEM or the -errno
 * of opening the file (err says which).
 */
int nodecfg_load(const char *path, struct nodecfg **ret, struct nodecfg_error *err);

/* Same from memory (len bytes of buf, borrowed); includes are refused. */
int nodecfg_load_memory(const void *buf, size_t len, const char *name, struct nodecfg **ret,
			struct nodecfg_error *err);

/* Topic index with this id (domain ignored, as receivers do), or -ENOENT. */
int nodecfg_topic_by_id(const struct nodecfg *nc, uint16_t id);

#endif /* SDDSXML_NODECFG_H */
