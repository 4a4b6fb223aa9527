/* SPDX-License-Identifier: MIT */
/*
 * policy.h - sddsd's access policy: who may write and read which topics.
 *
 * OVERVIEW
 * A policy is parsed from a line-based text (docs/policy.md has the full
 * syntax and an example):
 *
 *   identity NAME SELECTOR     SELECTOR: uid=N | gid=N | unit=U | exe=/PATH
 *   allow NAME|* OPS TOPIC...  OPS: read | write | read,write
 *   deny  NAME|* OPS TOPIC...  TOPIC: DOMAIN:ID, each a number, N-M or *
 *
 * Identity of a client (policy_identity), decided once per question from
 * the facts gathered at connect time (struct policy_peer):
 *   1. a name the sandbox attested on the connection, if any; the peer's
 *      credentials are then the sandbox's and are not looked at;
 *   2. else the first `identity` line, in this order of kinds: unit, exe,
 *      uid, gid; within one kind, file order;
 *   3. else none: only the rules for `*` apply.
 * Decision (policy_check): the rules whose identity is the client's or `*`
 * and that cover the operation and topic are considered; any deny wins,
 * else any allow allows, else the request is denied. Without a policy (a
 * NULL struct policy) everything is allowed: the caller says so in its log.
 *
 * Ownership: a struct policy is immutable after parsing and owned by whoever
 * parsed it; strings a verdict points to live as long as the policy and the
 * peer. Nothing here logs or keeps global state; the parser never reads
 * past the length it is given and bounds every table (POLICY_MAX_*), since
 * the file may come from an administrator's mistake or a fuzzer.
 *
 * Unit identity is read from /proc/PID/cgroup and trusted only under
 * /system.slice/: a user's delegated cgroup subtree can hold a directory of
 * any name, the system slice only what the service manager created.
 */
#ifndef SDDS_DAEMON_POLICY_H
#define SDDS_DAEMON_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define POLICY_NAME_MAX 64  /* identity names, NUL included */
#define POLICY_UNIT_MAX 256 /* systemd unit names, NUL included */
#define POLICY_EXE_MAX 512  /* executable paths, NUL included */
#define POLICY_FILE_MAX (1024 * 1024)
#define POLICY_MAX_IDENTITIES 1024
#define POLICY_MAX_RULES 8192
#define POLICY_ERROR_MAX 512
#define POLICY_DENIALS_MAX 16 /* recent denials a struct policy_denials keeps */

enum policy_op {
	POLICY_READ = 1u,
	POLICY_WRITE = 2u,
};

struct policy;

struct policy_error {
	char msg[POLICY_ERROR_MAX]; /* "FILE:LINE: what is wrong", NUL-terminated */
};

/*
 * What the daemon knows about a connected client. Empty strings mean
 * unknown (exe unreadable, cgroup outside the system slice, not attested).
 */
struct policy_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	char exe[POLICY_EXE_MAX];
	char unit[POLICY_UNIT_MAX];	/* e.g. "sdds-app@camera.service" */
	char attested[POLICY_NAME_MAX]; /* set by a trusted Attest */
};

struct policy_verdict {
	bool allowed;
	const char *identity; /* the client's identity, or NULL: none */
	unsigned line;	      /* the rule that decided; 0: no rule (default) */
};

/*
 * Parse a policy text of len bytes (not NUL-terminated; the caller keeps
 * it), called `name` in messages. Returns 0 and *ret (free with
 * policy_free), or -EINVAL (-EFBIG over POLICY_FILE_MAX, -ENOSPC over a
 * table cap, -ENOMEM) with *err filled; *ret is then untouched.
 */
int policy_parse_text(const char *name, const char *text, size_t len, struct policy **ret,
		      struct policy_error *err);

/* Read and parse a file; failures to open or read also fill *err. */
int policy_load_file(const char *path, struct policy **ret, struct policy_error *err);

/* Free; accepts NULL. */
void policy_free(struct policy *p);

/* Sizes, for the log and STATUS= lines. */
size_t policy_n_identities(const struct policy *p);
size_t policy_n_rules(const struct policy *p);

/*
 * The client's identity under p (see OVERVIEW), or NULL. The string lives
 * in p or in peer. p may be NULL: then only an attested name counts.
 */
const char *policy_identity(const struct policy *p, const struct policy_peer *peer);

/*
 * May peer do op on topic (domain, topic_id)? Fills *ret, always returns 0
 * (-EINVAL for an op that is neither READ nor WRITE). p NULL: allowed.
 */
int policy_check(const struct policy *p, const struct policy_peer *peer, enum policy_op op, uint32_t domain,
		 uint32_t topic_id, struct policy_verdict *ret);

/* Is name a valid identity name (1..63 of [A-Za-z0-9_.:@-])? */
bool policy_name_valid(const char *name, size_t len);

/*
 * The unit a cgroup file's text names, if the process lives under
 * /system.slice/: the cgroup v2 line ("0::") is preferred, else the
 * name=systemd v1 line. Writes the unit (e.g. "sdds-app@cam.service") into
 * unit (cap bytes) and returns 0, or -ENOENT (no unit under the system
 * slice) or -ENAMETOOLONG.
 */
int policy_unit_from_cgroup(const char *text, size_t len, char *unit, size_t cap);

/*
 * Gather the facts of a peer: pid, uid and gid as given (SO_PEERCRED), the
 * executable from PROC/PID/exe and the unit from PROC/PID/cgroup, where
 * PROC is proc_root ("/proc" in the daemon, a fake tree in tests). Facts
 * that cannot be read stay empty (the daemon may not be allowed to read
 * another user's exe link). pidfd (SO_PEERPIDFD, or -1 when the kernel has
 * none; not closed here) pins the peer: if the process is gone after the
 * reads, its pid may already name another process, so exe and unit are
 * dropped. Returns 0; *ret is always written.
 */
int policy_peer_probe(struct policy_peer *ret, pid_t pid, uid_t uid, gid_t gid, int pidfd,
		      const char *proc_root);

/*
 * The last POLICY_DENIALS_MAX denials, for stats. A plain value; the
 * daemon keeps one and pushes every denial into it.
 */
struct policy_denial {
	int64_t when_ns; /* monotonic */
	uint32_t session_id;
	pid_t pid;
	uid_t uid;
	enum policy_op op;
	uint32_t domain, topic_id;
	char identity[POLICY_NAME_MAX]; /* "" when none */
};

struct policy_denials {
	struct policy_denial ring[POLICY_DENIALS_MAX];
	uint64_t total; /* pushed ever; the newest is ring[(total - 1) % MAX] */
};

void policy_denials_push(struct policy_denials *d, const struct policy_denial *x);
/* The i-th newest (0 = newest), or NULL past what is kept. */
const struct policy_denial *policy_denials_get(const struct policy_denials *d, size_t i);

#endif /* SDDS_DAEMON_POLICY_H */
