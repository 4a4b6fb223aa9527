/* SPDX-License-Identifier: MIT */
/*
 * policy.c - the access policy: parser, identity, decision, peer facts.
 *
 * OVERVIEW
 * See policy.h for the model and the precedence rules. Invariants kept
 * here:
 * - The parser works on its own struct policy and hands it out only when
 *   the whole text parsed, so a caller never sees half a policy (the
 *   daemon keeps its last good one on a failed reload).
 * - Every table is bounded (POLICY_MAX_IDENTITIES, POLICY_MAX_RULES) and
 *   every string is checked for length and characters before it is kept,
 *   so names are safe to print in logs and replies.
 * - Nothing reads past the text's length; NUL and control characters are
 *   errors, so a line number in a message always points at what is wrong.
 */
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define POLICY_QUOTE_MAX 48
#define POLICY_APP_PREFIX "sdds-app@"
#define POLICY_APP_SUFFIX ".service"
#define POLICY_SYSTEM_SLICE "/system.slice/"

/* Kinds of selector, in the order of precedence (lower value wins). */
enum policy_kind {
	POLICY_KIND_UNIT,
	POLICY_KIND_EXE,
	POLICY_KIND_UID,
	POLICY_KIND_GID,
	POLICY_N_KINDS,
};

struct policy_identity {
	char name[POLICY_NAME_MAX];
	enum policy_kind kind;
	uint32_t id; /* uid or gid */
	char *str;   /* unit or exe, owned */
	unsigned line;
};

struct policy_range {
	uint32_t lo, hi;
};

struct policy_rule {
	char name[POLICY_NAME_MAX]; /* "*": every client */
	bool allow;
	unsigned ops; /* POLICY_READ | POLICY_WRITE */
	struct policy_range domain, topic;
	unsigned line;
};

struct policy {
	struct policy_identity *ids;
	size_t n_ids, cap_ids;
	struct policy_rule *rules;
	size_t n_rules, cap_rules;
};

/* ---------------- small helpers ------------------------------------------ */

static void policy_errorf(struct policy_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void policy_errorf(struct policy_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* A printable, bounded copy of untrusted bytes for a message; out has QUOTE_MAX + 4 bytes. */
static const char *policy_quote(const char *s, size_t len, char *out)
{
	size_t i, n = len < POLICY_QUOTE_MAX ? len : POLICY_QUOTE_MAX;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (len > n) {
		memcpy(out + i, "...", 3);
		i += 3;
	}
	out[i] = '\0';
	return out;
}

static bool policy_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.' || c == ':' || c == '@' || c == '-';
}

bool policy_name_valid(const char *name, size_t len)
{
	if (name == NULL || len == 0 || len >= POLICY_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!policy_name_char(name[i]))
			return false;
	}
	return true;
}

/* Unit names: what systemd allows, plus nothing that needs quoting in logs. */
static bool policy_unit_valid(const char *s, size_t len)
{
	if (len == 0 || len >= POLICY_UNIT_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!policy_name_char(s[i]) && s[i] != '\\')
			return false;
	}
	return true;
}

static bool policy_word_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(s, word, len) == 0;
}

/* A decimal number 0..max, nothing else. */
static int policy_number(const char *s, size_t len, uint64_t max, uint64_t *ret)
{
	uint64_t x = 0;

	if (len == 0 || len > 10)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (x > max)
		return -ERANGE;
	*ret = x;
	return 0;
}

/* "*", "N" or "N-M" (N <= M). */
static int policy_range_parse(const char *s, size_t len, struct policy_range *ret)
{
	const char *dash;
	uint64_t lo, hi;

	if (len == 1 && s[0] == '*') {
		ret->lo = 0;
		ret->hi = UINT32_MAX;
		return 0;
	}
	dash = memchr(s, '-', len);
	if (dash == NULL) {
		if (policy_number(s, len, UINT32_MAX, &lo) < 0)
			return -EINVAL;
		hi = lo;
	} else if (policy_number(s, (size_t)(dash - s), UINT32_MAX, &lo) < 0 ||
		   policy_number(dash + 1, len - (size_t)(dash - s) - 1, UINT32_MAX, &hi) < 0 || lo > hi) {
		return -EINVAL;
	}
	ret->lo = (uint32_t)lo;
	ret->hi = (uint32_t)hi;
	return 0;
}

/* ---------------- the parser --------------------------------------------- */

struct policy_tok {
	const char *s;
	size_t len;
};

#define POLICY_MAX_TOKENS 256

static int policy_add_identity(struct policy *p, const struct policy_identity *id, const char *where,
			       struct policy_error *err)
{
	if (p->n_ids == p->cap_ids) {
		size_t cap = p->cap_ids ? p->cap_ids * 2 : 16;
		struct policy_identity *n;

		if (p->n_ids >= POLICY_MAX_IDENTITIES) {
			policy_errorf(err, "%s: more than %d identity lines", where, POLICY_MAX_IDENTITIES);
			return -ENOSPC;
		}
		if (cap > POLICY_MAX_IDENTITIES)
			cap = POLICY_MAX_IDENTITIES;
		n = realloc(p->ids, cap * sizeof(*n));
		if (n == NULL) {
			policy_errorf(err, "%s: out of memory", where);
			return -ENOMEM;
		}
		p->ids = n;
		p->cap_ids = cap;
	}
	p->ids[p->n_ids++] = *id;
	return 0;
}

static int policy_add_rule(struct policy *p, const struct policy_rule *r, const char *where,
			   struct policy_error *err)
{
	if (p->n_rules == p->cap_rules) {
		size_t cap = p->cap_rules ? p->cap_rules * 2 : 32;
		struct policy_rule *n;

		if (p->n_rules >= POLICY_MAX_RULES) {
			policy_errorf(err, "%s: more than %d rules (one per topic of each allow/deny line)",
				      where, POLICY_MAX_RULES);
			return -ENOSPC;
		}
		if (cap > POLICY_MAX_RULES)
			cap = POLICY_MAX_RULES;
		n = realloc(p->rules, cap * sizeof(*n));
		if (n == NULL) {
			policy_errorf(err, "%s: out of memory", where);
			return -ENOMEM;
		}
		p->rules = n;
		p->cap_rules = cap;
	}
	p->rules[p->n_rules++] = *r;
	return 0;
}

/* identity NAME SELECTOR */
static int policy_line_identity(struct policy *p, const struct policy_tok *t, size_t n, const char *where,
				unsigned line, struct policy_error *err)
{
	struct policy_identity id = {.line = line};
	char q[POLICY_QUOTE_MAX + 4];
	const char *eq, *v;
	size_t klen, vlen;
	uint64_t x;
	int rc;

	if (n != 3) {
		policy_errorf(err, "%s: expected 'identity NAME uid=N|gid=N|unit=NAME|exe=/PATH'", where);
		return -EINVAL;
	}
	if (!policy_name_valid(t[1].s, t[1].len)) {
		policy_errorf(err, "%s: '%s' is not an identity name (1..%d of A-Z a-z 0-9 _ . : @ -)", where,
			      policy_quote(t[1].s, t[1].len, q), POLICY_NAME_MAX - 1);
		return -EINVAL;
	}
	memcpy(id.name, t[1].s, t[1].len);
	id.name[t[1].len] = '\0';
	eq = memchr(t[2].s, '=', t[2].len);
	if (eq == NULL) {
		policy_errorf(err, "%s: '%s' is not a selector (uid=N, gid=N, unit=NAME or exe=/PATH)", where,
			      policy_quote(t[2].s, t[2].len, q));
		return -EINVAL;
	}
	klen = (size_t)(eq - t[2].s);
	v = eq + 1;
	vlen = t[2].len - klen - 1;
	if (policy_word_is(t[2].s, klen, "uid") || policy_word_is(t[2].s, klen, "gid")) {
		/* (uid_t)-1 means "no change" to the kernel; nobody has it. */
		if (policy_number(v, vlen, UINT32_MAX - 1, &x) < 0) {
			policy_errorf(err, "%s: '%s' is not a numeric %.3s (names are not looked up)", where,
				      policy_quote(v, vlen, q), t[2].s);
			return -EINVAL;
		}
		id.kind = t[2].s[0] == 'u' ? POLICY_KIND_UID : POLICY_KIND_GID;
		id.id = (uint32_t)x;
	} else if (policy_word_is(t[2].s, klen, "unit")) {
		/* A bare instance name means the vendor application unit. */
		bool bare = memchr(v, '.', vlen) == NULL;
		size_t full = bare ? strlen(POLICY_APP_PREFIX) + vlen + strlen(POLICY_APP_SUFFIX) : vlen;

		if (!policy_unit_valid(v, vlen) || full >= POLICY_UNIT_MAX) {
			policy_errorf(err, "%s: '%s' is not a unit name", where, policy_quote(v, vlen, q));
			return -EINVAL;
		}
		id.kind = POLICY_KIND_UNIT;
		id.str = malloc(full + 1);
		if (id.str == NULL) {
			policy_errorf(err, "%s: out of memory", where);
			return -ENOMEM;
		}
		if (bare)
			snprintf(id.str, full + 1, "%s%.*s%s", POLICY_APP_PREFIX, (int)vlen, v,
				 POLICY_APP_SUFFIX);
		else
			snprintf(id.str, full + 1, "%.*s", (int)vlen, v);
	} else if (policy_word_is(t[2].s, klen, "exe")) {
		if (vlen == 0 || v[0] != '/' || vlen >= POLICY_EXE_MAX) {
			policy_errorf(err, "%s: exe= needs an absolute path of at most %d bytes, got '%s'",
				      where, POLICY_EXE_MAX - 1, policy_quote(v, vlen, q));
			return -EINVAL;
		}
		id.kind = POLICY_KIND_EXE;
		id.str = malloc(vlen + 1);
		if (id.str == NULL) {
			policy_errorf(err, "%s: out of memory", where);
			return -ENOMEM;
		}
		memcpy(id.str, v, vlen);
		id.str[vlen] = '\0';
	} else {
		policy_errorf(err, "%s: unknown selector '%s' (uid, gid, unit or exe)", where,
			      policy_quote(t[2].s, klen, q));
		return -EINVAL;
	}
	rc = policy_add_identity(p, &id, where, err);
	if (rc < 0)
		free(id.str);
	return rc;
}

/* allow|deny NAME|* OPS TOPIC... */
static int policy_line_rule(struct policy *p, const struct policy_tok *t, size_t n, bool allow,
			    const char *where, unsigned line, struct policy_error *err)
{
	struct policy_rule r = {.allow = allow, .line = line};
	char q[POLICY_QUOTE_MAX + 4];
	int rc;

	if (n < 4) {
		policy_errorf(err, "%s: expected '%s NAME|* read|write|read,write DOMAIN:TOPIC...'", where,
			      allow ? "allow" : "deny");
		return -EINVAL;
	}
	if (!(t[1].len == 1 && t[1].s[0] == '*') && !policy_name_valid(t[1].s, t[1].len)) {
		policy_errorf(err, "%s: '%s' is not an identity name or '*'", where,
			      policy_quote(t[1].s, t[1].len, q));
		return -EINVAL;
	}
	memcpy(r.name, t[1].s, t[1].len);
	r.name[t[1].len] = '\0';
	if (policy_word_is(t[2].s, t[2].len, "read"))
		r.ops = POLICY_READ;
	else if (policy_word_is(t[2].s, t[2].len, "write"))
		r.ops = POLICY_WRITE;
	else if (policy_word_is(t[2].s, t[2].len, "read,write") ||
		 policy_word_is(t[2].s, t[2].len, "write,read"))
		r.ops = POLICY_READ | POLICY_WRITE;
	else {
		policy_errorf(err, "%s: '%s' is not read, write or read,write", where,
			      policy_quote(t[2].s, t[2].len, q));
		return -EINVAL;
	}
	for (size_t i = 3; i < n; i++) {
		const char *colon = memchr(t[i].s, ':', t[i].len);
		size_t dlen;

		if (colon == NULL) {
			policy_errorf(err, "%s: '%s' is not DOMAIN:TOPIC (each a number, N-M or *)", where,
				      policy_quote(t[i].s, t[i].len, q));
			return -EINVAL;
		}
		dlen = (size_t)(colon - t[i].s);
		if (policy_range_parse(t[i].s, dlen, &r.domain) < 0 ||
		    policy_range_parse(colon + 1, t[i].len - dlen - 1, &r.topic) < 0) {
			policy_errorf(err,
				      "%s: '%s' is not DOMAIN:TOPIC (each a number, N-M with N <= M, or *)",
				      where, policy_quote(t[i].s, t[i].len, q));
			return -EINVAL;
		}
		rc = policy_add_rule(p, &r, where, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static bool policy_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

int policy_parse_text(const char *name, const char *text, size_t len, struct policy **ret,
		      struct policy_error *err)
{
	struct policy_tok toks[POLICY_MAX_TOKENS];
	char where[POLICY_ERROR_MAX / 2];
	char q[POLICY_QUOTE_MAX + 4];
	struct policy *p;
	unsigned line = 0;
	size_t pos = 0;
	int rc;

	if (name == NULL)
		name = "policy";
	if (len > POLICY_FILE_MAX) {
		policy_errorf(err, "%s: %zu bytes, at most %d", name, len, POLICY_FILE_MAX);
		return -EFBIG;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		policy_errorf(err, "%s: out of memory", name);
		return -ENOMEM;
	}
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl != NULL ? (size_t)(nl - text) : len;
		size_t n = 0, i = pos;

		line++;
		snprintf(where, sizeof(where), "%s:%u", name, line);
		for (size_t k = pos; k < end; k++) {
			unsigned char c = (unsigned char)text[k];

			if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
				policy_errorf(err, "%s: control character (byte 0x%02x) in line", where, c);
				rc = -EINVAL;
				goto fail;
			}
		}
		/* Tokens split at blanks; a token starting with '#' ends the line. */
		while (i < end) {
			size_t b;

			while (i < end && policy_blank(text[i]))
				i++;
			if (i == end || text[i] == '#')
				break;
			b = i;
			while (i < end && !policy_blank(text[i]))
				i++;
			if (n == POLICY_MAX_TOKENS) {
				policy_errorf(err, "%s: more than %d words in one line", where,
					      POLICY_MAX_TOKENS);
				rc = -EINVAL;
				goto fail;
			}
			toks[n].s = text + b;
			toks[n].len = i - b;
			n++;
		}
		pos = end + 1;
		if (n == 0)
			continue;
		if (policy_word_is(toks[0].s, toks[0].len, "identity"))
			rc = policy_line_identity(p, toks, n, where, line, err);
		else if (policy_word_is(toks[0].s, toks[0].len, "allow"))
			rc = policy_line_rule(p, toks, n, true, where, line, err);
		else if (policy_word_is(toks[0].s, toks[0].len, "deny"))
			rc = policy_line_rule(p, toks, n, false, where, line, err);
		else {
			policy_errorf(err, "%s: unknown statement '%s' (identity, allow or deny)", where,
				      policy_quote(toks[0].s, toks[0].len, q));
			rc = -EINVAL;
		}
		if (rc < 0)
			goto fail;
	}
	*ret = p;
	return 0;

fail:
	policy_free(p);
	return rc;
}

int policy_load_file(const char *path, struct policy **ret, struct policy_error *err)
{
	char *text = NULL;
	size_t len = 0, cap = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
		policy_errorf(err, "%s: %s", path, strerror(errno));
		return rc;
	}
	for (;;) {
		ssize_t r;

		if (len == cap) {
			char *n;

			/* One byte past the cap tells "too big" from "exactly at the cap". */
			if (cap > POLICY_FILE_MAX) {
				policy_errorf(err, "%s: larger than %d bytes", path, POLICY_FILE_MAX);
				rc = -EFBIG;
				goto fail_free;
			}
			cap = cap ? cap * 2 : 4096;
			if (cap > POLICY_FILE_MAX + 1)
				cap = POLICY_FILE_MAX + 1;
			n = realloc(text, cap);
			if (n == NULL) {
				policy_errorf(err, "%s: out of memory", path);
				rc = -ENOMEM;
				goto fail_free;
			}
			text = n;
		}
		r = read(fd, text + len, cap - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			policy_errorf(err, "%s: %s", path, strerror(errno));
			goto fail_free;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	rc = policy_parse_text(path, text != NULL ? text : "", len, ret, err);

fail_free:
	free(text);
	close(fd);
	return rc;
}

void policy_free(struct policy *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->n_ids; i++)
		free(p->ids[i].str);
	free(p->ids);
	free(p->rules);
	free(p);
}

size_t policy_n_identities(const struct policy *p)
{
	return p != NULL ? p->n_ids : 0;
}

size_t policy_n_rules(const struct policy *p)
{
	return p != NULL ? p->n_rules : 0;
}

/* ---------------- identity and decision ---------------------------------- */

static bool policy_identity_matches(const struct policy_identity *id, const struct policy_peer *peer)
{
	switch (id->kind) {
	case POLICY_KIND_UNIT:
		return peer->unit[0] != '\0' && strcmp(peer->unit, id->str) == 0;
	case POLICY_KIND_EXE:
		return peer->exe[0] != '\0' && strcmp(peer->exe, id->str) == 0;
	case POLICY_KIND_UID:
		return (uint32_t)peer->uid == id->id;
	case POLICY_KIND_GID:
		return (uint32_t)peer->gid == id->id;
	case POLICY_N_KINDS:
		break;
	}
	return false;
}

const char *policy_identity(const struct policy *p, const struct policy_peer *peer)
{
	if (peer->attested[0] != '\0')
		return peer->attested;
	if (p == NULL)
		return NULL;
	for (int kind = 0; kind < POLICY_N_KINDS; kind++) {
		for (size_t i = 0; i < p->n_ids; i++) {
			if ((int)p->ids[i].kind == kind && policy_identity_matches(&p->ids[i], peer))
				return p->ids[i].name;
		}
	}
	return NULL;
}

int policy_check(const struct policy *p, const struct policy_peer *peer, enum policy_op op, uint32_t domain,
		 uint32_t topic_id, struct policy_verdict *ret)
{
	const struct policy_rule *allow = NULL;
	const char *ident;

	if (op != POLICY_READ && op != POLICY_WRITE)
		return -EINVAL;
	ident = policy_identity(p, peer);
	if (p == NULL) {
		ret->allowed = true;
		ret->identity = ident;
		ret->line = 0;
		return 0;
	}
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct policy_rule *r = &p->rules[i];

		if (!(r->ops & (unsigned)op) || domain < r->domain.lo || domain > r->domain.hi ||
		    topic_id < r->topic.lo || topic_id > r->topic.hi)
			continue;
		if (!(r->name[0] == '*' && r->name[1] == '\0') &&
		    (ident == NULL || strcmp(r->name, ident) != 0))
			continue;
		if (!r->allow) {
			/* Deny wins over any allow, wherever it stands in the file. */
			ret->allowed = false;
			ret->identity = ident;
			ret->line = r->line;
			return 0;
		}
		if (allow == NULL)
			allow = r;
	}
	ret->allowed = allow != NULL;
	ret->identity = ident;
	ret->line = allow != NULL ? allow->line : 0;
	return 0;
}

/* ---------------- peer facts --------------------------------------------- */

static bool policy_ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && memcmp(s + len - n, suffix, n) == 0;
}

/*
 * The unit under /system.slice/ in one cgroup path, or -ENOENT. Template
 * instances sit in a slice of their own (/system.slice/system-sdds\x2dapp.slice/
 * sdds-app@cam.service): slices are skipped, and the first component that
 * is not a slice must be the service. Only the service manager creates
 * slices there; a delegated service's own sub-cgroups come after it.
 */
static int policy_unit_from_path(const char *path, size_t len, char *unit, size_t cap)
{
	size_t pre = strlen(POLICY_SYSTEM_SLICE), ulen;
	const char *u, *slash, *end = path + len;

	if (len <= pre || memcmp(path, POLICY_SYSTEM_SLICE, pre) != 0)
		return -ENOENT;
	u = path + pre;
	for (;;) {
		slash = memchr(u, '/', (size_t)(end - u));
		ulen = slash != NULL ? (size_t)(slash - u) : (size_t)(end - u);
		if (slash == NULL || !policy_ends_with(u, ulen, ".slice"))
			break;
		u = slash + 1;
	}
	if (ulen <= strlen(POLICY_APP_SUFFIX) ||
	    memcmp(u + ulen - strlen(POLICY_APP_SUFFIX), POLICY_APP_SUFFIX, strlen(POLICY_APP_SUFFIX)) != 0 ||
	    !policy_unit_valid(u, ulen))
		return -ENOENT;
	if (ulen >= cap)
		return -ENAMETOOLONG;
	memcpy(unit, u, ulen);
	unit[ulen] = '\0';
	return 0;
}

int policy_unit_from_cgroup(const char *text, size_t len, char *unit, size_t cap)
{
	/* Pass 0: the cgroup v2 line; pass 1: the v1 name=systemd line. */
	for (int pass = 0; pass < 2; pass++) {
		size_t pos = 0;

		while (pos < len) {
			const char *nl = memchr(text + pos, '\n', len - pos);
			size_t end = nl != NULL ? (size_t)(nl - text) : len;
			const char *ln = text + pos, *c1, *c2;
			size_t ll = end - pos;

			pos = end + 1;
			c1 = memchr(ln, ':', ll);
			if (c1 == NULL)
				continue;
			c2 = memchr(c1 + 1, ':', ll - (size_t)(c1 + 1 - ln));
			if (c2 == NULL)
				continue;
			if (pass == 0 ? (c1 - ln == 1 && ln[0] == '0' && c2 == c1 + 1)
				      : policy_word_is(c1 + 1, (size_t)(c2 - c1 - 1), "name=systemd")) {
				int rc = policy_unit_from_path(c2 + 1, ll - (size_t)(c2 + 1 - ln), unit, cap);

				if (rc != -ENOENT)
					return rc;
			}
		}
	}
	return -ENOENT;
}

int policy_peer_probe(struct policy_peer *ret, pid_t pid, uid_t uid, gid_t gid, int pidfd,
		      const char *proc_root)
{
	char path[POLICY_EXE_MAX];
	char buf[4096];
	ssize_t n;
	int fd;

	memset(ret, 0, sizeof(*ret));
	ret->pid = pid;
	ret->uid = uid;
	ret->gid = gid;
	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "%s/%d/exe", proc_root, (int)pid);
	n = readlink(path, ret->exe, sizeof(ret->exe));
	if (n <= 0 || (size_t)n >= sizeof(ret->exe))
		ret->exe[0] = '\0'; /* unreadable or too long: no exe= selector can match */
	else
		ret->exe[n] = '\0';
	snprintf(path, sizeof(path), "%s/%d/cgroup", proc_root, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n > 0 && policy_unit_from_cgroup(buf, (size_t)n, ret->unit, sizeof(ret->unit)) < 0)
		ret->unit[0] = '\0';
	/*
	 * A pid is not reused while its process lives (or is a zombie): if the
	 * peer still exists now, what we read under its pid was its own. Only
	 * ESRCH says it is gone; EPERM (a daemon that may not signal the peer)
	 * still proves it exists.
	 */
	if (pidfd >= 0 && syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0 && errno == ESRCH) {
		ret->exe[0] = '\0';
		ret->unit[0] = '\0';
	}
	return 0;
}

/* ---------------- recent denials ----------------------------------------- */

void policy_denials_push(struct policy_denials *d, const struct policy_denial *x)
{
	d->ring[d->total % POLICY_DENIALS_MAX] = *x;
	d->total++;
}

const struct policy_denial *policy_denials_get(const struct policy_denials *d, size_t i)
{
	if (i >= POLICY_DENIALS_MAX || i >= d->total)
		return NULL;
	return &d->ring[(d->total - 1 - i) % POLICY_DENIALS_MAX];
}
