/* SPDX-License-Identifier: MIT */
/*
 * sddsxml.c - the sdds.xml reader (libxml2 tree API).
 *
 * OVERVIEW
 * One reader context per load: the project being filled, the diagnostics,
 * and the stack of files being read (real paths, for cycle detection). Each
 * file is read into memory, parsed into a tree, walked, and freed before the
 * load returns; everything kept is copied into the project's arena, so no
 * libxml2 memory outlives a call. The walk only appends declarations; all
 * cross checks happen in gen_project_resolve() once every file is read.
 *
 * libxml2 reports parser errors through the context's structured error
 * callback (set before parsing, with XML_PARSE_NOERROR so that nothing is
 * printed); the callback keeps the first error of level ERROR or worse.
 */
#include "sddsxml/sddsxml.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#define DESCRIPTION_MAX 240u

struct reader {
	gen_project *p;
	gen_diag *d;
	const char *include_dir; /* memory mode: base of the main file's includes; NULL: refused */
	bool memory_mode;
	char *stack[SDDSXML_MAX_DEPTH]; /* real paths of the files being read (NULL for memory) */
	unsigned depth;
	unsigned order; /* declarations seen so far, for gen_loc.order */
};

/* One parsed file. */
struct xfile {
	const char *name; /* as shown in messages, in the arena */
	xmlDocPtr doc;
	unsigned *order; /* the reader's declaration counter */
};

struct parse_error {
	bool set;
	unsigned line;
	char msg[512];
};

/* ---- small helpers ---- */

static gen_loc loc_of(const struct xfile *f, const xmlNode *n)
{
	long line = n != NULL ? xmlGetLineNo(n) : 0;

	return (gen_loc){f->name, line > 0 ? (unsigned)line : 0, f->order != NULL ? ++*f->order : 0};
}

static bool is_elem(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, (const xmlChar *)name) == 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * The attribute's value, trimmed, copied into the arena; NULL when absent.
 * Sets *err to -ENOMEM on allocation failure (then also returns NULL).
 */
static const char *attr_get(struct reader *r, const xmlNode *n, const char *name, int *err)
{
	xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
	const char *s, *e, *out;

	if (v == NULL)
		return NULL;
	s = (const char *)v;
	while (is_space(*s))
		s++;
	e = s + strlen(s);
	while (e > s && is_space(e[-1]))
		e--;
	out = gen_strdup(r->p, s, (size_t)(e - s));
	xmlFree(v);
	if (out == NULL)
		*err = -ENOMEM;
	return out;
}

/* A required attribute: the value, or NULL with the error recorded in *err. */
static const char *attr_need(struct reader *r, const struct xfile *f, const xmlNode *n, const char *name,
			     int *err)
{
	const char *v = attr_get(r, n, name, err);

	if (v == NULL && *err == 0)
		*err = gen_error(r->d, loc_of(f, n), "missing attribute '%s' on <%s>", name,
				 (const char *)n->name);
	return v;
}

/* The text directly inside n (not in child elements), whitespace collapsed, at most DESCRIPTION_MAX bytes. */
static const char *text_of(struct reader *r, const xmlNode *n)
{
	char buf[DESCRIPTION_MAX + 1];
	size_t len = 0;
	bool space = false;

	for (const xmlNode *c = n->children; c != NULL; c = c->next) {
		if (c->type != XML_TEXT_NODE && c->type != XML_CDATA_SECTION_NODE)
			continue;
		for (const xmlChar *t = c->content; t != NULL && *t != '\0' && len < DESCRIPTION_MAX; t++) {
			if (is_space((char)*t)) {
				space = len > 0;
				continue;
			}
			if (space && len < DESCRIPTION_MAX)
				buf[len++] = ' ';
			space = false;
			if (len < DESCRIPTION_MAX)
				buf[len++] = (char)*t;
		}
	}
	return gen_strdup(r->p, buf, len);
}

/* Hex digits without 0x, at most max. */
static int parse_hex(struct reader *r, const struct xfile *f, const xmlNode *n, const char *what,
		     const char *s, unsigned max, const char *range, uint16_t *ret)
{
	unsigned long v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return gen_error(r->d, loc_of(f, n), "bad hex %s '%s': write the hex digits without 0x", what,
				 s);
	if (*s == '\0')
		return gen_error(r->d, loc_of(f, n), "bad hex %s '' (hex digits without 0x)", what);
	for (const char *c = s; *c != '\0'; c++) {
		unsigned dgt;

		if (*c >= '0' && *c <= '9')
			dgt = (unsigned)(*c - '0');
		else if (*c >= 'a' && *c <= 'f')
			dgt = (unsigned)(*c - 'a' + 10);
		else if (*c >= 'A' && *c <= 'F')
			dgt = (unsigned)(*c - 'A' + 10);
		else
			return gen_error(r->d, loc_of(f, n), "bad hex %s '%s' (hex digits without 0x)", what,
					 s);
		if (v <= 0xFFFFFFul)
			v = v * 16 + dgt;
		else
			v = ULONG_MAX; /* saturate: out of range either way */
	}
	if (v > max)
		return gen_error(r->d, loc_of(f, n), "%s %s is out of range (%s)", what, s, range);
	*ret = (uint16_t)v;
	return 0;
}

/* A decimal number in [min, max]. */
static int parse_dec(struct reader *r, const struct xfile *f, const xmlNode *n, const char *what,
		     const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;

	if (*s == '\0')
		return gen_error(r->d, loc_of(f, n), "bad %s '' (a decimal number)", what);
	for (const char *c = s; *c != '\0'; c++) {
		if (*c < '0' || *c > '9')
			return gen_error(r->d, loc_of(f, n), "bad %s '%s' (a decimal number)", what, s);
		uint64_t dgt = (uint64_t)(*c - '0');
		if (v > (UINT64_MAX - dgt) / 10)
			return gen_error(r->d, loc_of(f, n), "%s %s is out of range (%llu..%llu)", what, s,
					 (unsigned long long)min, (unsigned long long)max);
		v = v * 10 + dgt;
	}
	if (v < min || v > max)
		return gen_error(r->d, loc_of(f, n), "%s %s is out of range (%llu..%llu)", what, s,
				 (unsigned long long)min, (unsigned long long)max);
	*ret = v;
	return 0;
}

/* Append to a vector, reporting the cap as an error at n. */
static void *push(struct reader *r, const struct xfile *f, const xmlNode *n, void **vec, size_t *cnt,
		  size_t elem, const char *what, int *err)
{
	void *e;

	if (*cnt >= GEN_MAX_ITEMS) {
		*err = gen_error(r->d, loc_of(f, n), "more than %u %s", GEN_MAX_ITEMS, what);
		return NULL;
	}
	e = gen_vec_push(vec, cnt, elem);
	if (e == NULL)
		*err = -ENOMEM;
	return e;
}

static int unexpected(struct reader *r, const struct xfile *f, const xmlNode *n, const xmlNode *parent)
{
	return gen_error(r->d, loc_of(f, n), "unexpected element <%s> in <%s>", (const char *)n->name,
			 (const char *)parent->name);
}

/* ---- declarations ---- */

static int read_attribute(struct reader *r, const struct xfile *f, const xmlNode *n, gen_attr **vec,
			  size_t *cnt)
{
	int err = 0;
	const char *name = attr_need(r, f, n, "name", &err);
	const char *type = err ? NULL : attr_need(r, f, n, "type", &err);
	const char *size = err ? NULL : attr_get(r, n, "size", &err);
	const char *key = err ? NULL : attr_get(r, n, "key", &err);
	gen_attr *a;

	if (err)
		return err;
	a = push(r, f, n, (void **)vec, cnt, sizeof(*a), "attributes", &err);
	if (a == NULL)
		return err;
	a->name = name;
	a->type_name = type;
	a->size_text = size;
	a->loc = loc_of(f, n);
	a->description = text_of(r, n);
	if (a->description == NULL)
		return -ENOMEM;
	if (key == NULL || strcmp(key, "") == 0)
		a->key = GEN_KEY_NONE;
	else if (strcmp(key, "primary") == 0)
		a->key = GEN_KEY_PRIMARY;
	else if (strcmp(key, "secondary") == 0)
		a->key = GEN_KEY_SECONDARY;
	else
		return gen_error(r->d, a->loc, "bad key '%s' for attribute '%s' (primary or secondary)", key,
				 name);
	return 0;
}

static int read_config(struct reader *r, const struct xfile *f, const xmlNode *n, gen_topic *t)
{
	int err = 0;
	const char *type = attr_need(r, f, n, "type", &err);
	gen_loc loc = loc_of(f, n);

	if (err)
		return err;
	if (strcmp(type, "qos_reliability") == 0) {
		const char *kind = attr_need(r, f, n, "kind", &err);
		const char *conf = err ? NULL : attr_get(r, n, "confirmationtype", &err);
		const char *mbt = err ? NULL : attr_get(r, n, "max_blocking_time", &err);
		const char *seq = err ? NULL : attr_get(r, n, "reliabilitySeqnrSize", &err);

		if (err)
			return err;
		if (t->has_reliability)
			return gen_error(r->d, loc, "topic '%s' has a second qos_reliability config",
					 t->name);
		t->has_reliability = true;
		if (strcmp(kind, "besteffort") == 0)
			t->reliability = GEN_REL_BEST_EFFORT;
		else if (strcmp(kind, "reliable") == 0)
			t->reliability = GEN_REL_RELIABLE;
		else
			return gen_error(r->d, loc, "bad qos_reliability kind '%s' (besteffort or reliable)",
					 kind);
		if (conf == NULL)
			t->confirm = GEN_CONFIRM_NONE;
		else if (strcmp(conf, "ack") == 0)
			t->confirm = GEN_CONFIRM_ACK;
		else if (strcmp(conf, "nack") == 0)
			t->confirm = GEN_CONFIRM_NACK;
		else
			return gen_error(r->d, loc, "bad confirmationtype '%s' (ack or nack)", conf);
		if (mbt != NULL) {
			uint64_t v;
			err = parse_dec(r, f, n, "max_blocking_time", mbt, 0, UINT32_MAX, &v);
			if (err)
				return err;
			t->has_max_blocking = true;
			t->max_blocking_ms = (uint32_t)v;
		}
		if (seq == NULL)
			t->seqnr_bits = 0;
		else if (strcmp(seq, "basic") == 0)
			t->seqnr_bits = 4;
		else if (strcmp(seq, "small") == 0)
			t->seqnr_bits = 8;
		else if (strcmp(seq, "big") == 0)
			t->seqnr_bits = 16;
		else if (strcmp(seq, "huge") == 0)
			t->seqnr_bits = 32;
		else
			return gen_error(r->d, loc,
					 "bad reliabilitySeqnrSize '%s' (basic, small, big or huge)", seq);
		return 0;
	}
	if (strcmp(type, "qos_history") == 0) {
		const char *depth = attr_get(r, n, "depth", &err);
		uint64_t v = 1; /* sDDS's default */

		if (err)
			return err;
		if (t->has_history)
			return gen_error(r->d, loc, "topic '%s' has a second qos_history config", t->name);
		if (depth != NULL) {
			err = parse_dec(r, f, n, "history depth", depth, 1, 65536, &v);
			if (err)
				return err;
		}
		t->has_history = true;
		t->history_depth = (uint32_t)v;
		return 0;
	}
	if (strcmp(type, "security") == 0) {
		t->has_security = true;
		t->data_protection_kind = attr_get(r, n, "data_protection_kind", &err);
		return err;
	}
	return gen_error(r->d, loc, "unknown config type '%s' in topic '%s'", type, t->name);
}

static int read_topic(struct reader *r, const struct xfile *f, const xmlNode *n, const char *default_domain,
		      const xmlNode *domain_node)
{
	int err = 0;
	const char *name = attr_need(r, f, n, "name", &err);
	const char *domain = err ? NULL : attr_get(r, n, "domain", &err);
	const char *id = err ? NULL : attr_need(r, f, n, "id", &err);
	gen_topic *t;

	if (err)
		return err;
	if (domain == NULL && default_domain == NULL)
		return gen_error(r->d, loc_of(f, n), "missing attribute 'domain' on <topic>");
	t = push(r, f, n, (void **)&r->p->topics, &r->p->n_topics, sizeof(*t), "topics", &err);
	if (t == NULL)
		return err;
	t->name = name;
	t->loc = loc_of(f, n);
	t->description = text_of(r, n);
	if (t->description == NULL)
		return -ENOMEM;
	err = parse_hex(r, f, n, "id", id, 0xFFFF, "0..FFFF", &t->id);
	if (err)
		return err;
	if (domain != NULL)
		err = parse_hex(r, f, n, "domain", domain, 0xF, "0..F: SNPS carries the domain in 4 bits",
				&t->domain);
	else
		err = parse_hex(r, f, domain_node, "domain", default_domain, 0xF,
				"0..F: SNPS carries the domain in 4 bits", &t->domain);
	if (err)
		return err;
	for (const xmlNode *c = n->children; c != NULL; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (is_elem(c, "attribute"))
			err = read_attribute(r, f, c, &t->attrs, &t->n_attrs);
		else if (is_elem(c, "config"))
			err = read_config(r, f, c, t);
		else
			err = unexpected(r, f, c, n);
		if (err)
			return err;
	}
	return 0;
}

static int read_enum(struct reader *r, const struct xfile *f, const xmlNode *n)
{
	int err = 0;
	const char *name = attr_need(r, f, n, "name", &err);
	const char *ns = err ? NULL : attr_get(r, n, "namespace", &err);
	gen_enum *e;

	if (err)
		return err;
	e = push(r, f, n, (void **)&r->p->enums, &r->p->n_enums, sizeof(*e), "enums", &err);
	if (e == NULL)
		return err;
	e->name = name;
	e->ns = ns != NULL ? ns : "";
	e->loc = loc_of(f, n);
	e->description = text_of(r, n);
	if (e->description == NULL)
		return -ENOMEM;
	for (const xmlNode *c = n->children; c != NULL; c = c->next) {
		const char *lname, *value;
		gen_literal *l;

		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (!is_elem(c, "literal"))
			return unexpected(r, f, c, n);
		lname = attr_need(r, f, c, "name", &err);
		value = err ? NULL : attr_get(r, c, "value", &err);
		if (err)
			return err;
		l = push(r, f, c, (void **)&e->literals, &e->n_literals, sizeof(*l), "literals", &err);
		if (l == NULL)
			return err;
		l->name = lname;
		l->loc = loc_of(f, c);
		if (value != NULL) {
			err = parse_dec(r, f, c, "literal value", value, 0, UINT64_MAX, &l->value);
			if (err)
				return err;
			l->has_value = true;
		}
	}
	return 0;
}

static int read_struct(struct reader *r, const struct xfile *f, const xmlNode *n)
{
	int err = 0;
	const char *name = attr_need(r, f, n, "name", &err);
	gen_struct *s;

	if (err)
		return err;
	s = push(r, f, n, (void **)&r->p->structs, &r->p->n_structs, sizeof(*s), "structs", &err);
	if (s == NULL)
		return err;
	s->name = name;
	s->loc = loc_of(f, n);
	s->description = text_of(r, n);
	if (s->description == NULL)
		return -ENOMEM;
	for (const xmlNode *c = n->children; c != NULL; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (!is_elem(c, "attribute"))
			return unexpected(r, f, c, n);
		err = read_attribute(r, f, c, &s->attrs, &s->n_attrs);
		if (err)
			return err;
	}
	return 0;
}

static int read_datatype(struct reader *r, const struct xfile *f, const xmlNode *n)
{
	int err = 0;
	const char *name = attr_need(r, f, n, "name", &err);
	const char *ns = err ? NULL : attr_get(r, n, "namespace", &err);
	const char *type = err ? NULL : attr_need(r, f, n, "type", &err);
	gen_datatype *t;

	if (err)
		return err;
	t = push(r, f, n, (void **)&r->p->datatypes, &r->p->n_datatypes, sizeof(*t), "datatypes", &err);
	if (t == NULL)
		return err;
	t->name = name;
	t->ns = ns != NULL ? ns : "";
	t->type_name = type;
	t->loc = loc_of(f, n);
	return 0;
}

static int read_subscriber(struct reader *r, const struct xfile *f, const xmlNode *n, gen_subscription *s)
{
	int err = 0;
	const char *ip = attr_need(r, f, n, "ip", &err);
	const char *port = err ? NULL : attr_get(r, n, "port", &err);
	gen_subscriber *sub;

	if (err)
		return err;
	sub = push(r, f, n, (void **)&s->subscribers, &s->n_subscribers, sizeof(*sub), "subscribers", &err);
	if (sub == NULL)
		return err;
	sub->ip = ip;
	sub->loc = loc_of(f, n);
	if (port != NULL) {
		uint64_t v;
		err = parse_dec(r, f, n, "port", port, 1, 65535, &v);
		if (err)
			return err;
		sub->port = (uint16_t)v;
	}
	return 0;
}

/*
 * <subscription topic> with <subscriber>s, or the older
 * <role topic type="publisher"><subscriber/></role> form (then n is the role).
 */
static int read_subscription(struct reader *r, const struct xfile *f, const xmlNode *n, const char *topic)
{
	int err = 0;
	gen_subscription *s;

	s = push(r, f, n, (void **)&r->p->subscriptions, &r->p->n_subscriptions, sizeof(*s), "subscriptions",
		 &err);
	if (s == NULL)
		return err;
	s->topic = topic;
	s->loc = loc_of(f, n);
	for (const xmlNode *c = n->children; c != NULL; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (!is_elem(c, "subscriber"))
			return unexpected(r, f, c, n);
		err = read_subscriber(r, f, c, s);
		if (err)
			return err;
	}
	return 0;
}

static int read_role(struct reader *r, const struct xfile *f, const xmlNode *n)
{
	int err = 0;
	const char *topic = attr_need(r, f, n, "topic", &err);
	const char *type = err ? NULL : attr_need(r, f, n, "type", &err);
	gen_role *ro;
	bool nested = false;

	if (err)
		return err;
	ro = push(r, f, n, (void **)&r->p->roles, &r->p->n_roles, sizeof(*ro), "roles", &err);
	if (ro == NULL)
		return err;
	ro->topic = topic;
	ro->loc = loc_of(f, n);
	if (strcmp(type, "publisher") == 0)
		ro->type = GEN_ROLE_PUBLISHER;
	else if (strcmp(type, "subscriber") == 0)
		ro->type = GEN_ROLE_SUBSCRIBER;
	else
		return gen_error(r->d, ro->loc, "bad role type '%s' (publisher or subscriber)", type);
	for (const xmlNode *c = n->children; c != NULL; c = c->next)
		if (c->type == XML_ELEMENT_NODE)
			nested = true;
	return nested ? read_subscription(r, f, n, topic) : 0;
}

static int read_define(struct reader *r, const struct xfile *f, const xmlNode *n)
{
	int err = 0;
	const char *name = attr_need(r, f, n, "name", &err);
	const char *value = err ? NULL : attr_get(r, n, "value", &err);
	gen_define *d;

	if (err)
		return err;
	/* The value becomes the body of a #define: one line, no comment openers. */
	for (const char *c = value; c != NULL && *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f || (c[0] == '/' && (c[1] == '*' || c[1] == '/')) ||
		    *c == '\\')
			return gen_error(r->d, loc_of(f, n),
					 "define '%s' has a value that is not one line of C", name);
	d = push(r, f, n, (void **)&r->p->defines, &r->p->n_defines, sizeof(*d), "defines", &err);
	if (d == NULL)
		return err;
	d->name = name;
	d->value = value;
	d->loc = loc_of(f, n);
	return 0;
}

/* ---- files ---- */

static int walk_children(struct reader *r, const struct xfile *f, const xmlNode *parent, const char *domain,
			 const xmlNode *domain_node);
static int read_included(struct reader *r, const struct xfile *f, const xmlNode *n, const char *path);

/* Read the whole file into a malloc'd buffer (*ret_buf, the caller frees). */
static int slurp(const char *path, char **ret_buf, size_t *ret_len)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	if ((uint64_t)st.st_size > SDDSXML_MAX_FILE) {
		close(fd);
		return -EFBIG;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		close(fd);
		return -ENOMEM;
	}
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* shrank under us: parse what is there */
		len += (size_t)n;
	}
	close(fd);
	*ret_buf = buf;
	*ret_len = len;
	return 0;
}

static void on_xml_error(void *ctx, xmlErrorPtr e)
{
	xmlParserCtxtPtr pc = ctx;
	struct parse_error *pe = pc->_private;
	size_t n;

	if (pe == NULL || pe->set || e == NULL || e->level < XML_ERR_ERROR)
		return;
	pe->set = true;
	pe->line = e->line > 0 ? (unsigned)e->line : 0;
	snprintf(pe->msg, sizeof(pe->msg), "%s", e->message != NULL ? e->message : "parse error");
	n = strlen(pe->msg);
	while (n > 0 && is_space(pe->msg[n - 1]))
		pe->msg[--n] = '\0';
}

/* Parse len bytes into f->doc. name is f->name (for messages). */
static int parse_buffer(struct reader *r, struct xfile *f, const char *buf, size_t len)
{
	struct parse_error pe = {0};
	xmlParserCtxtPtr pc;
	int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES;

	if (len > SDDSXML_MAX_FILE)
		return gen_error(r->d, (gen_loc){.file = f->name, .line = 0}, "file is larger than %u bytes",
				 SDDSXML_MAX_FILE);
	pc = xmlNewParserCtxt();
	if (pc == NULL)
		return -ENOMEM;
	pc->_private = &pe;
	pc->sax->serror = on_xml_error;
	f->doc = xmlCtxtReadMemory(pc, buf, (int)len, f->name, NULL, opts);
	if (f->doc != NULL && !pc->wellFormed) {
		xmlFreeDoc(f->doc);
		f->doc = NULL;
	}
	xmlFreeParserCtxt(pc);
	if (f->doc == NULL) {
		gen_loc loc = {.file = f->name, .line = pe.line};
		if (!pe.set)
			return gen_error(r->d, loc, "malformed XML");
		return gen_error(r->d, loc, "malformed XML: %s", pe.msg);
	}
	if (f->doc->intSubset != NULL || f->doc->extSubset != NULL) {
		/* libxml2 keeps no line for a DTD node; the root element's is the next best. */
		const xmlNode *root = xmlDocGetRootElement(f->doc);
		return gen_error(r->d, root != NULL ? loc_of(f, root) : (gen_loc){.file = f->name, .line = 1},
				 "DOCTYPE declarations are not allowed in an sdds.xml");
	}
	if (xmlDocGetRootElement(f->doc) == NULL)
		return gen_error(r->d, (gen_loc){.file = f->name, .line = 1},
				 "malformed XML: no root element");
	return 0;
}

static int read_include(struct reader *r, const struct xfile *f, const xmlNode *n)
{
	int err = 0;
	const char *filename = attr_need(r, f, n, "filename", &err);
	char *path = NULL;
	const char *base_dir = NULL;
	size_t base_len = 0;

	if (err)
		return err;
	if (filename[0] == '\0')
		return gen_error(r->d, loc_of(f, n), "empty include filename");
	if (r->memory_mode && r->depth == 1) {
		if (r->include_dir == NULL)
			return gen_error(r->d, loc_of(f, n), "include '%s': includes are disabled here",
					 filename);
		base_dir = r->include_dir;
		base_len = strlen(base_dir);
	} else {
		const char *slash = strrchr(f->name, '/');
		base_dir = f->name;
		base_len = slash != NULL ? (size_t)(slash - f->name) : 0;
		if (slash == f->name)
			base_len = 1; /* "/x.xml": the root directory */
	}
	if (filename[0] == '/' || base_len == 0) {
		path = strdup(filename);
	} else {
		size_t len = base_len + 1 + strlen(filename) + 1;
		path = malloc(len);
		if (path != NULL)
			snprintf(path, len, "%.*s/%s", (int)base_len, base_dir, filename);
	}
	if (path == NULL)
		return -ENOMEM;
	err = read_included(r, f, n, path);
	free(path);
	return err;
}

static int walk_children(struct reader *r, const struct xfile *f, const xmlNode *parent, const char *domain,
			 const xmlNode *domain_node)
{
	int err = 0;

	for (const xmlNode *c = parent->children; c != NULL && err == 0; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (is_elem(c, "include")) {
			err = read_include(r, f, c);
		} else if (is_elem(c, "topic")) {
			err = read_topic(r, f, c, domain, domain_node);
		} else if (is_elem(c, "domain")) {
			/* A <domain id> groups topics and gives them a default domain. */
			const char *id = attr_get(r, c, "id", &err);
			if (err == 0)
				err = walk_children(r, f, c, id != NULL ? id : domain,
						    id != NULL ? c : domain_node);
		} else if (is_elem(c, "enum")) {
			err = read_enum(r, f, c);
		} else if (is_elem(c, "struct")) {
			err = read_struct(r, f, c);
		} else if (is_elem(c, "datatype")) {
			err = read_datatype(r, f, c);
		} else if (is_elem(c, "role")) {
			err = read_role(r, f, c);
		} else if (is_elem(c, "subscription")) {
			int e2 = 0;
			const char *topic = attr_need(r, f, c, "topic", &e2);
			err = e2 ? e2 : read_subscription(r, f, c, topic);
		} else if (is_elem(c, "define")) {
			err = read_define(r, f, c);
		} else if (is_elem(c, "access_control") || is_elem(c, "topicFilter") ||
			   is_elem(c, "geometryEntry") || is_elem(c, "license")) {
			/* Security, location filters and geometries belong to the
			 * network side of sDDS; sdds-gen generates nothing for them. */
			continue;
		} else {
			err = gen_error(r->d, loc_of(f, c), "unknown element <%s> in <%s>",
					(const char *)c->name, (const char *)parent->name);
		}
	}
	return err;
}

static int record_file(struct reader *r, const char *name)
{
	const char **slot;
	int err = 0;

	slot = push(r, &(struct xfile){name, NULL, NULL}, NULL, (void **)&r->p->files, &r->p->n_files,
		    sizeof(*slot), "files", &err);
	if (slot == NULL)
		return err;
	*slot = name;
	return 0;
}

/* Read the included file at path; its root's children join the including element. */
static int read_included(struct reader *r, const struct xfile *f, const xmlNode *n, const char *path)
{
	struct xfile inc = {0};
	char *real, *buf = NULL;
	size_t len = 0;
	const xmlNode *root;
	const char *domain;
	int err;

	if (r->depth >= SDDSXML_MAX_DEPTH)
		return gen_error(r->d, loc_of(f, n), "include '%s': includes nested deeper than %u files",
				 path, SDDSXML_MAX_DEPTH);
	real = realpath(path, NULL);
	if (real == NULL) {
		int e = errno;
		if (e == ENOMEM)
			return -ENOMEM;
		return gen_error(r->d, loc_of(f, n), "include '%s' not found: %s", path, strerror(e));
	}
	for (unsigned i = 0; i < r->depth; i++)
		if (r->stack[i] != NULL && strcmp(r->stack[i], real) == 0) {
			free(real);
			return gen_error(r->d, loc_of(f, n), "include cycle: '%s' is already being read",
					 path);
		}
	err = slurp(path, &buf, &len);
	if (err < 0) {
		free(real);
		if (err == -ENOMEM)
			return err;
		if (err == -EFBIG)
			return gen_error(r->d, loc_of(f, n), "include '%s' is larger than %u bytes", path,
					 SDDSXML_MAX_FILE);
		return gen_error(r->d, loc_of(f, n), "include '%s' cannot be read: %s", path, strerror(-err));
	}
	inc.order = &r->order;
	inc.name = gen_strdup(r->p, path, (size_t)-1);
	if (inc.name == NULL || record_file(r, inc.name) < 0) {
		free(real);
		free(buf);
		return -ENOMEM;
	}
	r->stack[r->depth++] = real;
	err = parse_buffer(r, &inc, buf, len);
	free(buf);
	if (err == 0) {
		root = xmlDocGetRootElement(inc.doc);
		/* <domain id> as the root (the usual topic file) gives the default domain. */
		domain = NULL;
		if (is_elem(root, "domain"))
			domain = attr_get(r, root, "id", &err);
		if (is_elem(root, "project"))
			err = gen_error(r->d, loc_of(&inc, root), "an included file cannot be a <project>");
		if (err == 0)
			err = walk_children(r, &inc, root, domain, domain != NULL ? root : NULL);
	}
	xmlFreeDoc(inc.doc);
	r->depth--;
	free(r->stack[r->depth]);
	r->stack[r->depth] = NULL;
	return err;
}

static int read_project(struct reader *r, struct xfile *f)
{
	const xmlNode *root = xmlDocGetRootElement(f->doc);
	gen_project *p = r->p;
	const char *port;
	int err = 0;

	if (!is_elem(root, "project"))
		return gen_error(r->d, loc_of(f, root), "root element is <%s>, expected <project>",
				 (const char *)root->name);
	p->loc = loc_of(f, root);
	p->name = attr_need(r, f, root, "name", &err);
	if (err)
		return err;
	if (p->name[0] == '\0')
		return gen_error(r->d, p->loc, "empty project name");
	/* The name makes file names and a C string: keep it to a safe alphabet. */
	for (const char *c = p->name; *c != '\0'; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '_' || *c == '-' || *c == '.') ||
		    (c == p->name && *c == '.'))
			return gen_error(r->d, p->loc,
					 "project name '%s' may only hold letters, digits, '_', '-' and '.'",
					 p->name);
	if (strlen(p->name) > GEN_NAME_MAX)
		return gen_error(r->d, p->loc, "project name '%s' is longer than %u characters", p->name,
				 GEN_NAME_MAX);
	p->endian = attr_get(r, root, "endian", &err);
	p->os = err ? NULL : attr_get(r, root, "os", &err);
	p->protocol = err ? NULL : attr_get(r, root, "protocol", &err);
	p->ip = err ? NULL : attr_get(r, root, "ip", &err);
	p->iface = err ? NULL : attr_get(r, root, "iface", &err);
	p->device = err ? NULL : attr_get(r, root, "device", &err);
	port = err ? NULL : attr_get(r, root, "port", &err);
	if (err)
		return err;
	/* Defaults of sDDS's Linux platform (snps-wire.md §9.1). */
	if (p->endian == NULL)
		p->endian = "";
	if (p->os == NULL)
		p->os = "linux";
	if (p->protocol == NULL)
		p->protocol = "AF_INET6";
	if (p->ip == NULL)
		p->ip = "fe80::10";
	if (p->iface == NULL)
		p->iface = "";
	if (p->device == NULL)
		p->device = p->iface;
	p->port = 23234;
	if (port != NULL) {
		uint64_t v;
		err = parse_dec(r, f, root, "port", port, 1, 65535, &v);
		if (err)
			return err;
		p->port = (uint16_t)v;
	}
	if (strcmp(p->endian, "") != 0 && strcmp(p->endian, "little") != 0 && strcmp(p->endian, "big") != 0)
		return gen_error(r->d, p->loc, "bad endian '%s' (little or big)", p->endian);
	p->description = text_of(r, root);
	if (p->description == NULL)
		return -ENOMEM;
	return walk_children(r, f, root, NULL, NULL);
}

static int load(struct reader *r, const char *name, const char *buf, size_t len, gen_project **ret_project)
{
	struct xfile f = {0};
	int err;

	LIBXML_TEST_VERSION;
	err = gen_project_new(&r->p);
	if (err < 0)
		return err;
	f.order = &r->order;
	f.name = gen_strdup(r->p, name, (size_t)-1);
	err = f.name != NULL ? record_file(r, f.name) : -ENOMEM;
	if (err == 0)
		err = parse_buffer(r, &f, buf, len);
	if (err == 0)
		err = read_project(r, &f);
	xmlFreeDoc(f.doc);
	if (err == 0)
		err = gen_project_resolve(r->p, r->d);
	for (unsigned i = 0; i < r->depth; i++)
		free(r->stack[i]);
	if (err < 0) {
		gen_project_free(r->p);
		return err;
	}
	*ret_project = r->p;
	return 0;
}

int sddsxml_load_file(const char *path, gen_project **ret_project, gen_diag *d)
{
	struct reader r = {.d = d};
	char *buf = NULL;
	size_t len = 0;
	int err;

	err = slurp(path, &buf, &len);
	if (err == -ENOMEM)
		return err;
	if (err == -EFBIG)
		return gen_error(d, (gen_loc){.file = path, .line = 0}, "file is larger than %u bytes",
				 SDDSXML_MAX_FILE);
	if (err < 0)
		return gen_error(d, (gen_loc){.file = NULL, .line = 0}, "%s: cannot read: %s", path,
				 strerror(-err));
	/* Without a real path (a race with rename) cycles through the main file go
	 * unnoticed one level late: the depth limit still ends them. */
	r.stack[0] = realpath(path, NULL);
	if (r.stack[0] == NULL && errno == ENOMEM) {
		free(buf);
		return -ENOMEM;
	}
	r.depth = 1;
	err = load(&r, path, buf, len, ret_project);
	free(buf);
	return err;
}

int sddsxml_load_memory(const void *buf, size_t len, const char *name, const char *include_dir,
			gen_project **ret_project, gen_diag *d)
{
	struct reader r = {.d = d, .include_dir = include_dir, .memory_mode = true};

	r.depth = 1; /* stack[0] stays NULL: the buffer has no path to include it by */
	return load(&r, name, buf, len, ret_project);
}
