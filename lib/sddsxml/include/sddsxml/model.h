/* SPDX-License-Identifier: MIT */
/*
 * model.h - what an sdds.xml describes, as sdds-gen understands it.
 *
 * OVERVIEW
 * A gen_project is built in two steps. The XML reader (sddsxml.h) appends
 * raw declarations in document order, each with the file and line it came
 * from: enums, datatypes, structs, topics with their attributes (type names
 * still unresolved), roles, subscriptions and defines. gen_project_resolve()
 * then resolves every type name, computes the wire layout of every struct
 * and topic (snps-wire.md §6: packed, declaration order, strings K+1 bytes,
 * the enum size rule of §6.2, structs flattened), applies the roles and
 * drops the topics without one, as sDDS's generator does.
 *
 * Ownership: the project owns everything it points to. Strings live in its
 * string arena and stay valid until gen_project_free(); arrays are owned
 * vectors. Cross references are indices into the project's arrays, so the
 * vectors may grow while the reader appends.
 *
 * Limits: every count and size is bounded (GEN_MAX_*), both because sddsd
 * refuses larger topics (daemon/core/broker.h, docs/DESIGN.md) and because the
 * reader is fed untrusted bytes by the fuzzer.
 *
 * Not thread-safe; no global state. Library code: it never prints, errors
 * and warnings go to a gen_diag the caller owns.
 */
#ifndef SDDS_GEN_MODEL_H
#define SDDS_GEN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest marshalled sample sddsd carries (a request record holds 16 + 4096). */
#define GEN_MAX_SAMPLE 4096u
/* Longest topic or (flattened) field name: the broker keeps 64 bytes with the NUL. */
#define GEN_NAME_MAX 63u
/* Most flattened fields of one topic the broker keeps (BROKER_MAX_FIELDS). */
#define GEN_MAX_FIELDS 64u
/* Largest DDS_string size K (the slot is K + 1 bytes). */
#define GEN_MAX_STRING (GEN_MAX_SAMPLE - 1u)
/* Real sDDS nodes cannot carry larger samples in a 128-byte frame (§6.6). */
#define GEN_SNPS_MAX_SAMPLE 122u
/* Bound on any one declaration list (topics, attributes, literals, ...). */
#define GEN_MAX_ITEMS 4096u

typedef enum gen_kind {
	GEN_OCTET,
	GEN_CHAR,
	GEN_BOOLEAN,
	GEN_SHORT,
	GEN_USHORT,
	GEN_LONG,
	GEN_ULONG,
	GEN_LONGLONG,
	GEN_ULONGLONG,
	GEN_STRING,
	GEN_ENUM,
	GEN_STRUCT,
	GEN_DATATYPE,
} gen_kind;

typedef enum gen_key { GEN_KEY_NONE, GEN_KEY_PRIMARY, GEN_KEY_SECONDARY } gen_key;

/* Where a declaration came from. file points into the project's arena;
 * order counts declarations across all files in reading order (0: unknown). */
typedef struct gen_loc {
	const char *file;
	unsigned line;
	unsigned order;
} gen_loc;

typedef struct gen_attr {
	const char *name;
	const char *type_name;	 /* as written in the XML */
	const char *description; /* whitespace-collapsed text, may be "" */
	gen_key key;
	const char *size_text; /* the size attribute as written, NULL if absent */
	/* Filled by gen_project_resolve: */
	uint32_t str_size; /* K, for DDS_string */
	gen_kind kind;
	size_t ref; /* index into enums/structs/datatypes for those kinds */
	uint32_t wire_size;
	gen_loc loc;
} gen_attr;

typedef struct gen_literal {
	const char *name;
	uint64_t value; /* the given value, else the literal's position (as sDDS) */
	bool has_value;
	gen_loc loc;
} gen_literal;

typedef struct gen_enum {
	const char *name;
	const char *ns;	    /* namespace, may be "" */
	const char *c_name; /* ns_name, or name without a namespace */
	const char *description;
	gen_literal *literals;
	size_t n_literals;
	uint32_t wire_size; /* 1, 2, 4 or 8 (resolved) */
	gen_loc loc;
} gen_enum;

typedef struct gen_datatype {
	const char *name;
	const char *ns;
	const char *c_name;
	const char *type_name;
	gen_kind kind; /* a primitive kind (resolved) */
	uint32_t wire_size;
	gen_loc loc;
} gen_datatype;

typedef struct gen_struct {
	const char *name;
	const char *c_name; /* first letter upper-cased */
	const char *description;
	gen_attr *attrs;
	size_t n_attrs;
	uint32_t wire_size; /* resolved */
	uint32_t n_leaves;  /* primitive fields after flattening (resolved) */
	unsigned state;	    /* resolution state, private to model.c */
	gen_loc loc;
} gen_struct;

typedef enum gen_reliability { GEN_REL_BEST_EFFORT, GEN_REL_RELIABLE } gen_reliability;
typedef enum gen_confirm { GEN_CONFIRM_NONE, GEN_CONFIRM_ACK, GEN_CONFIRM_NACK } gen_confirm;

typedef struct gen_topic {
	const char *name;
	const char *c_name; /* first letter upper-cased */
	const char *description;
	uint16_t domain;
	uint16_t id;
	gen_attr *attrs;
	size_t n_attrs;

	/* <config type="qos_reliability"> */
	bool has_reliability;
	gen_reliability reliability;
	gen_confirm confirm;
	unsigned seqnr_bits; /* 0 (not given), 4, 8, 16 or 32 */
	bool has_max_blocking;
	uint32_t max_blocking_ms;
	/* <config type="qos_history"> */
	bool has_history;
	uint32_t history_depth;
	/* <config type="security">: kept for the network side, not generated. */
	bool has_security;
	const char *data_protection_kind;

	/* Filled by gen_project_resolve: */
	bool publisher;
	bool subscriber;
	uint32_t wire_size;
	uint32_t n_leaves;
	gen_loc loc;
} gen_topic;

typedef enum gen_role_type { GEN_ROLE_PUBLISHER, GEN_ROLE_SUBSCRIBER } gen_role_type;

typedef struct gen_role {
	const char *topic;
	gen_role_type type;
	gen_loc loc;
} gen_role;

typedef struct gen_subscriber {
	const char *ip;
	uint16_t port; /* 0: the project's base port */
	gen_loc loc;
} gen_subscriber;

typedef struct gen_subscription {
	const char *topic;
	gen_subscriber *subscribers;
	size_t n_subscribers;
	gen_loc loc;
} gen_subscription;

typedef struct gen_define {
	const char *name;
	const char *value; /* NULL when the define has no value */
	gen_loc loc;
} gen_define;

struct gen_arena;

typedef struct gen_project {
	const char *name;
	const char *description;
	const char *endian; /* "little", "big" or "" (kept for the network side) */
	const char *os;
	const char *protocol; /* default AF_INET6 */
	const char *ip;	      /* default fe80::10 */
	const char *iface;    /* default "" */
	const char *device;   /* default: iface */
	uint16_t port;	      /* default 23234 */
	gen_loc loc;

	gen_enum *enums;
	size_t n_enums;
	gen_datatype *datatypes;
	size_t n_datatypes;
	gen_struct *structs;
	size_t n_structs;
	size_t *struct_order; /* structs, members before their users (resolved) */
	gen_topic *topics;    /* after resolve: only the topics with a role */
	size_t n_topics;
	gen_role *roles;
	size_t n_roles;
	gen_subscription *subscriptions;
	size_t n_subscriptions;
	gen_define *defines;
	size_t n_defines;

	const char **files; /* every XML file read, the main one first */
	size_t n_files;

	struct gen_arena *arena;
} gen_project;

/*
 * Diagnostics. error holds the first error as "FILE:LINE: message" ("" while
 * there is none); warnings are owned strings in the same format. The caller
 * owns the gen_diag and frees it with gen_diag_free.
 */
typedef struct gen_diag {
	char error[1024];
	char **warnings;
	size_t n_warnings;
} gen_diag;

void gen_diag_init(gen_diag *d);
void gen_diag_free(gen_diag *d);
/* Record the first error (later ones are dropped); returns -EINVAL for "return gen_error(...)". */
int gen_error(gen_diag *d, gen_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Append a warning. Returns 0 or -ENOMEM. */
int gen_warn(gen_diag *d, gen_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* An empty project (defaults filled in later by the reader). Returns 0 or -ENOMEM. */
int gen_project_new(gen_project **ret_project);
/* Accepts NULL. */
void gen_project_free(gen_project *p);

/* Copy n bytes of s (n = strlen when (size_t)-1) into the arena, NUL-terminated; NULL on ENOMEM. */
const char *gen_strdup(gen_project *p, const char *s, size_t n);

/*
 * Append a zeroed element to a vector of elements of size elem (at most
 * GEN_MAX_ITEMS of them). Returns the new element (owned by the vector), or
 * NULL on ENOMEM or over the limit (then *n is unchanged).
 */
void *gen_vec_push(void **vec, size_t *n, size_t elem);

/*
 * Resolve types, compute layouts, apply roles, drop topics without a role,
 * and check everything that spans declarations (duplicates, unknown names,
 * limits). Returns 0, -EINVAL (d->error says why) or -ENOMEM.
 */
int gen_project_resolve(gen_project *p, gen_diag *d);

/*
 * One leaf of a topic's flattened sample (snps-wire.md §6): an attribute
 * that is not a struct, reached through the structs around it, in
 * declaration order, which is wire order. Every part of the tree that
 * needs a topic's fields walks them with gen_topic_leaves: the generator's
 * field tables, codecs and dump, and sddsd's node configuration.
 */
typedef struct gen_leaf {
	const gen_attr *attr; /* the leaf's attribute (key, str_size, wire_size, ref) */
	gen_kind kind;	      /* its kind with a datatype resolved to its primitive */
	const char *name;     /* the flattened name, "pos.x" (valid during the call only) */
	uint32_t offset;      /* its wire offset in the sample */
} gen_leaf;

typedef int (*gen_leaf_fn)(const gen_leaf *leaf, void *ctx);

/*
 * Call fn for every leaf of topic t of a resolved project, in wire order.
 * Returns 0, fn's first non-zero return (the walk stops there), or
 * -EINVAL for a project that was not resolved (names over GEN_NAME_MAX,
 * structs nested deeper than GEN_MAX_ITEMS).
 */
int gen_topic_leaves(const gen_project *p, const gen_topic *t, gen_leaf_fn fn, void *ctx);

/* The wire size of a primitive kind (GEN_OCTET..GEN_ULONGLONG), else 0. */
uint32_t gen_kind_size(gen_kind k);
/* The DDS_* C type of a primitive kind, or NULL. */
const char *gen_kind_ctype(gen_kind k);
/* Look a DDS_* type name up: 0 and *ret_kind for a primitive or DDS_string; -ENOENT else. */
int gen_kind_from_name(const char *name, gen_kind *ret_kind);

/* The enum size rule of snps-wire.md §6.2 for bits b: 1, 2, 4 or 8. */
uint32_t gen_enum_size_for_bits(unsigned bits);
/* Bits needed for v as sDDS counts them: the smallest b with 2^b > v. */
unsigned gen_count_bits(uint64_t v);

#endif /* SDDS_GEN_MODEL_H */
