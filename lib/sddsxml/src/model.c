/* SPDX-License-Identifier: MIT */
/*
 * model.c - the sdds.xml model: storage, diagnostics, type resolution and
 * wire layout.
 *
 * OVERVIEW
 * Storage: strings go to a bump arena of 16 KiB blocks (never moved, so the
 * pointers handed out stay valid); declaration lists are realloc'd vectors
 * owned by the project. Cross references are indices, see model.h.
 *
 * Resolution (gen_project_resolve) runs once, after the reader appended
 * everything, so declarations may come in any order and from any included
 * file, as with sDDS's GSL scripts. Struct layouts are resolved depth first
 * with a three-state mark (unvisited, in progress, done) that finds a struct
 * containing itself; struct_order lists the structs in the order they were
 * finished, which is an order in which C can declare them.
 *
 * Every size is checked against GEN_MAX_SAMPLE as it is summed, so no sum
 * can overflow however deeply structs nest.
 */
#include "sddsxml/model.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ARENA_BLOCK 16384u

struct arena_block {
	struct arena_block *next;
	size_t used;
	size_t cap;
	char data[];
};

struct gen_arena {
	struct arena_block *head;
};

enum { STRUCT_UNVISITED = 0, STRUCT_IN_PROGRESS = 1, STRUCT_DONE = 2 };

/* ---- diagnostics ---- */

void gen_diag_init(gen_diag *d)
{
	memset(d, 0, sizeof(*d));
}

void gen_diag_free(gen_diag *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->n_warnings; i++)
		free(d->warnings[i]);
	free(d->warnings);
	d->warnings = NULL;
	d->n_warnings = 0;
}

__attribute__((format(printf, 4, 0))) static int diag_vformat(char *buf, size_t cap, gen_loc loc,
							      const char *fmt, va_list ap)
{
	int n = 0;

	if (loc.file != NULL)
		n = snprintf(buf, cap, "%s:%u: ", loc.file, loc.line);
	if (n < 0 || (size_t)n >= cap)
		return -EINVAL;
	vsnprintf(buf + n, cap - (size_t)n, fmt, ap);
	return 0;
}

int gen_error(gen_diag *d, gen_loc loc, const char *fmt, ...)
{
	va_list ap;

	/* The first error is the one worth reading; later ones are consequences. */
	if (d->error[0] != '\0')
		return -EINVAL;
	va_start(ap, fmt);
	diag_vformat(d->error, sizeof(d->error), loc, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int gen_warn(gen_diag *d, gen_loc loc, const char *fmt, ...)
{
	char buf[1024];
	char **w;
	va_list ap;

	va_start(ap, fmt);
	diag_vformat(buf, sizeof(buf), loc, fmt, ap);
	va_end(ap);
	if (d->n_warnings >= GEN_MAX_ITEMS)
		return 0; /* enough said */
	w = realloc(d->warnings, (d->n_warnings + 1) * sizeof(*w));
	if (w == NULL)
		return -ENOMEM;
	d->warnings = w;
	w[d->n_warnings] = strdup(buf);
	if (w[d->n_warnings] == NULL)
		return -ENOMEM;
	d->n_warnings++;
	return 0;
}

/* ---- storage ---- */

int gen_project_new(gen_project **ret_project)
{
	gen_project *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return -ENOMEM;
	p->arena = calloc(1, sizeof(*p->arena));
	if (p->arena == NULL) {
		free(p);
		return -ENOMEM;
	}
	*ret_project = p;
	return 0;
}

static void attrs_free(gen_attr *a)
{
	free(a);
}

void gen_project_free(gen_project *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->n_enums; i++)
		free(p->enums[i].literals);
	free(p->enums);
	free(p->datatypes);
	for (size_t i = 0; i < p->n_structs; i++)
		attrs_free(p->structs[i].attrs);
	free(p->structs);
	free(p->struct_order);
	for (size_t i = 0; i < p->n_topics; i++)
		attrs_free(p->topics[i].attrs);
	free(p->topics);
	free(p->roles);
	for (size_t i = 0; i < p->n_subscriptions; i++)
		free(p->subscriptions[i].subscribers);
	free(p->subscriptions);
	free(p->defines);
	free(p->files);
	if (p->arena != NULL) {
		struct arena_block *b = p->arena->head;
		while (b != NULL) {
			struct arena_block *next = b->next;
			free(b);
			b = next;
		}
		free(p->arena);
	}
	free(p);
}

const char *gen_strdup(gen_project *p, const char *s, size_t n)
{
	struct arena_block *b = p->arena->head;
	char *out;

	if (n == (size_t)-1)
		n = strlen(s);
	if (n >= ARENA_BLOCK / 4) {
		/* A big string gets a block of its own, linked behind the head so
		 * the head keeps its free space. */
		struct arena_block *big = malloc(sizeof(*big) + n + 1);
		if (big == NULL)
			return NULL;
		big->used = big->cap = n + 1;
		if (b != NULL) {
			big->next = b->next;
			b->next = big;
		} else {
			big->next = NULL;
			p->arena->head = big;
		}
		memcpy(big->data, s, n);
		big->data[n] = '\0';
		return big->data;
	}
	if (b == NULL || b->cap - b->used < n + 1) {
		b = malloc(sizeof(*b) + ARENA_BLOCK);
		if (b == NULL)
			return NULL;
		b->used = 0;
		b->cap = ARENA_BLOCK;
		b->next = p->arena->head;
		p->arena->head = b;
	}
	out = b->data + b->used;
	memcpy(out, s, n);
	out[n] = '\0';
	b->used += n + 1;
	return out;
}

void *gen_vec_push(void **vec, size_t *n, size_t elem)
{
	char *v;

	if (*n >= GEN_MAX_ITEMS)
		return NULL;
	/* Capacities are 4, 8, 16...: the capacity is implied by n. */
	if (*n == 0 || (*n >= 4 && (*n & (*n - 1)) == 0)) {
		size_t cap = *n == 0 ? 4 : *n * 2;
		v = realloc(*vec, cap * elem);
		if (v == NULL)
			return NULL;
		*vec = v;
	}
	v = (char *)*vec + *n * elem;
	memset(v, 0, elem);
	(*n)++;
	return v;
}

/* ---- kinds ---- */

static const struct {
	const char *name;
	gen_kind kind;
	uint32_t size;
	const char *ctype;
} kinds[] = {
    {"DDS_octet", GEN_OCTET, 1, "DDS_octet"},
    {"DDS_char", GEN_CHAR, 1, "DDS_char"},
    {"DDS_boolean", GEN_BOOLEAN, 1, "DDS_boolean"},
    {"DDS_short", GEN_SHORT, 2, "DDS_short"},
    {"DDS_unsigned_short", GEN_USHORT, 2, "DDS_unsigned_short"},
    {"DDS_long", GEN_LONG, 4, "DDS_long"},
    {"DDS_unsigned_long", GEN_ULONG, 4, "DDS_unsigned_long"},
    {"DDS_long_long", GEN_LONGLONG, 8, "DDS_long_long"},
    {"DDS_unsigned_long_long", GEN_ULONGLONG, 8, "DDS_unsigned_long_long"},
    {"DDS_string", GEN_STRING, 0, "DDS_char"},
};

static const char *const float_names[] = {"DDS_float", "DDS_double", "DDS_long_double"};

uint32_t gen_kind_size(gen_kind k)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].kind == k)
			return kinds[i].size;
	return 0;
}

const char *gen_kind_ctype(gen_kind k)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].kind == k)
			return kinds[i].ctype;
	return NULL;
}

int gen_kind_from_name(const char *name, gen_kind *ret_kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].name, name) == 0) {
			*ret_kind = kinds[i].kind;
			return 0;
		}
	return -ENOENT;
}

static bool is_float_name(const char *name)
{
	for (size_t i = 0; i < sizeof(float_names) / sizeof(float_names[0]); i++)
		if (strcmp(float_names[i], name) == 0)
			return true;
	return false;
}

unsigned gen_count_bits(uint64_t v)
{
	unsigned b = 0;

	while (b < 64 && (UINT64_C(1) << b) <= v)
		b++;
	return b;
}

uint32_t gen_enum_size_for_bits(unsigned bits)
{
	/* §6.2: the step comes one bit early (a value of 200 needs 8 bits and
	 * already gets 2 bytes), as sDDS's generator does it. */
	if (bits >= 32)
		return 8;
	if (bits >= 16)
		return 4;
	if (bits >= 8)
		return 2;
	return 1;
}

/* ---- names ---- */

static const char *const c_keywords[] = {
    "auto",	  "break",     "case",		 "char",
    "const",	  "continue",  "default",	 "do",
    "double",	  "else",      "enum",		 "extern",
    "float",	  "for",       "goto",		 "if",
    "inline",	  "int",       "long",		 "register",
    "restrict",	  "return",    "short",		 "signed",
    "sizeof",	  "static",    "struct",	 "switch",
    "typedef",	  "union",     "unsigned",	 "void",
    "volatile",	  "while",     "_Alignas",	 "_Alignof",
    "_Atomic",	  "_Bool",     "_Complex",	 "_Generic",
    "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
    "bool",	  "true",      "false",		 "asm",
    "typeof",
};

/* Macros of the headers <sdds/dcps.h> brings: a member of that name would be expanded. */
static const char *const std_macros[] = {
    "NULL", "EOF", "errno", "stdin", "stdout", "stderr", "offsetof", "assert",
};

static bool is_c_identifier(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (s++; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	return true;
}

static bool is_c_keyword(const char *s)
{
	for (size_t i = 0; i < sizeof(c_keywords) / sizeof(c_keywords[0]); i++)
		if (strcmp(c_keywords[i], s) == 0)
			return true;
	for (size_t i = 0; i < sizeof(std_macros) / sizeof(std_macros[0]); i++)
		if (strcmp(std_macros[i], s) == 0)
			return true;
	return false;
}

/* A name that becomes a C identifier: checked once here for every kind of declaration. */
static int check_ident(gen_diag *d, gen_loc loc, const char *what, const char *name)
{
	if (!is_c_identifier(name))
		return gen_error(d, loc, "%s name '%s' is not a C identifier", what, name);
	if (is_c_keyword(name))
		return gen_error(d, loc, "%s name '%s' is a C keyword or a standard macro", what, name);
	if (strlen(name) > GEN_NAME_MAX)
		return gen_error(d, loc, "%s name '%s' is longer than %u characters", what, name,
				 GEN_NAME_MAX);
	return 0;
}

/* Name -> CName, the way sDDS names the C type of a topic or struct. */
static const char *upper_first(gen_project *p, const char *name)
{
	const char *s = gen_strdup(p, name, (size_t)-1);
	char *w = (char *)s;

	if (w != NULL && w[0] >= 'a' && w[0] <= 'z')
		w[0] = (char)(w[0] - 'a' + 'A');
	return s;
}

/* ---- type resolution ---- */

struct type_hit {
	gen_kind kind;
	size_t ref;
	gen_loc loc;
};

/* Find a user type (enum, struct, datatype) by its XML name. */
static bool find_user_type(const gen_project *p, const char *name, struct type_hit *hit)
{
	for (size_t i = 0; i < p->n_enums; i++)
		if (strcmp(p->enums[i].name, name) == 0) {
			*hit = (struct type_hit){GEN_ENUM, i, p->enums[i].loc};
			return true;
		}
	for (size_t i = 0; i < p->n_structs; i++)
		if (strcmp(p->structs[i].name, name) == 0) {
			*hit = (struct type_hit){GEN_STRUCT, i, p->structs[i].loc};
			return true;
		}
	for (size_t i = 0; i < p->n_datatypes; i++)
		if (strcmp(p->datatypes[i].name, name) == 0) {
			*hit = (struct type_hit){GEN_DATATYPE, i, p->datatypes[i].loc};
			return true;
		}
	return false;
}

static int parse_string_size(gen_diag *d, const gen_attr *a, uint32_t *ret)
{
	const char *s = a->size_text;
	uint64_t v = 0;

	if (s == NULL)
		return gen_error(d, a->loc, "DDS_string attribute '%s' has no 'size'", a->name);
	if (*s == '\0')
		return gen_error(d, a->loc, "bad size '' for DDS_string attribute '%s'", a->name);
	for (const char *c = s; *c != '\0'; c++) {
		if (*c < '0' || *c > '9')
			return gen_error(d, a->loc,
					 "bad size '%s' for DDS_string attribute '%s' (a decimal number)", s,
					 a->name);
		v = v * 10 + (uint64_t)(*c - '0');
		if (v > GEN_MAX_STRING)
			break;
	}
	if (v < 1 || v > GEN_MAX_STRING)
		return gen_error(d, a->loc, "size %s of DDS_string attribute '%s' is out of range (1..%u)", s,
				 a->name, GEN_MAX_STRING);
	*ret = (uint32_t)v;
	return 0;
}

static int resolve_struct(gen_project *p, size_t si, gen_diag *d, size_t *n_order);

/*
 * Resolve one attribute of a topic or struct: kind, reference and wire size,
 * plus the number of primitive fields it flattens to.
 */
static int resolve_attr(gen_project *p, gen_attr *a, gen_diag *d, size_t *n_order, uint32_t *ret_leaves)
{
	struct type_hit hit;
	gen_kind k;
	int r;

	if (is_float_name(a->type_name))
		return gen_error(d, a->loc,
				 "attribute '%s' has type %s: floating point types are not supported "
				 "(sDDS's generator rejects them too)",
				 a->name, a->type_name);
	if (gen_kind_from_name(a->type_name, &k) == 0) {
		a->kind = k;
		if (k == GEN_STRING) {
			r = parse_string_size(d, a, &a->str_size);
			if (r < 0)
				return r;
			a->wire_size = a->str_size + 1;
		} else {
			a->wire_size = gen_kind_size(k);
		}
		*ret_leaves = 1;
		return 0;
	}
	if (!find_user_type(p, a->type_name, &hit))
		return gen_error(d, a->loc, "unknown type '%s' for attribute '%s'", a->type_name, a->name);
	a->kind = hit.kind;
	a->ref = hit.ref;
	switch (hit.kind) {
	case GEN_ENUM:
		a->wire_size = p->enums[hit.ref].wire_size;
		*ret_leaves = 1;
		return 0;
	case GEN_DATATYPE:
		a->wire_size = p->datatypes[hit.ref].wire_size;
		*ret_leaves = 1;
		return 0;
	case GEN_STRUCT:
		r = resolve_struct(p, hit.ref, d, n_order);
		if (r == -ELOOP)
			return gen_error(d, a->loc, "struct '%s' contains itself (attribute '%s')",
					 p->structs[hit.ref].name, a->name);
		if (r < 0)
			return r;
		a->wire_size = p->structs[hit.ref].wire_size;
		*ret_leaves = p->structs[hit.ref].n_leaves;
		return 0;
	default:
		return gen_error(d, a->loc, "unknown type '%s' for attribute '%s'", a->type_name, a->name);
	}
}

/*
 * Resolve a list of attributes (of a topic or struct named what/name): names
 * unique, at most one primary and one secondary key (each becomes a union
 * alias pkey/skey, which must not clash with a field), sizes summed with
 * the GEN_MAX_SAMPLE bound.
 */
static int resolve_attrs(gen_project *p, gen_attr *attrs, size_t n, const char *what, const char *name,
			 gen_loc loc, gen_diag *d, size_t *n_order, uint32_t *ret_size, uint32_t *ret_leaves)
{
	uint32_t size = 0, leaves = 0;
	const gen_attr *pkey = NULL, *skey = NULL;
	int r;

	if (n == 0)
		return gen_error(d, loc, "%s '%s' has no attributes", what, name);
	for (size_t i = 0; i < n; i++) {
		gen_attr *a = &attrs[i];
		uint32_t l = 0;

		r = check_ident(d, a->loc, "attribute", a->name);
		if (r < 0)
			return r;
		for (size_t j = 0; j < i; j++)
			if (strcmp(attrs[j].name, a->name) == 0)
				return gen_error(d, a->loc,
						 "attribute '%s' declared twice in %s '%s' (first at %s:%u)",
						 a->name, what, name, attrs[j].loc.file, attrs[j].loc.line);
		if (a->key == GEN_KEY_PRIMARY) {
			if (pkey != NULL)
				return gen_error(d, a->loc,
						 "%s '%s' has a second primary key '%s' (first is '%s')",
						 what, name, a->name, pkey->name);
			pkey = a;
		} else if (a->key == GEN_KEY_SECONDARY) {
			if (skey != NULL)
				return gen_error(d, a->loc,
						 "%s '%s' has a second secondary key '%s' (first is '%s')",
						 what, name, a->name, skey->name);
			skey = a;
		}
		r = resolve_attr(p, a, d, n_order, &l);
		if (r < 0)
			return r;
		if (a->wire_size > GEN_MAX_SAMPLE - size)
			return gen_error(d, a->loc,
					 "%s '%s' is larger than %u bytes on the wire at attribute '%s'",
					 what, name, GEN_MAX_SAMPLE, a->name);
		size += a->wire_size;
		leaves += l;
		if (leaves > GEN_MAX_SAMPLE) /* every leaf has >= 1 byte; keeps the count bounded */
			leaves = GEN_MAX_SAMPLE;
	}
	for (size_t i = 0; i < n; i++) {
		if ((pkey != NULL && strcmp(attrs[i].name, "pkey") == 0) ||
		    (skey != NULL && strcmp(attrs[i].name, "skey") == 0))
			return gen_error(
			    d, attrs[i].loc,
			    "attribute '%s' clashes with the key alias of the same name in %s '%s'",
			    attrs[i].name, what, name);
	}
	*ret_size = size;
	*ret_leaves = leaves;
	return 0;
}

static int resolve_struct(gen_project *p, size_t si, gen_diag *d, size_t *n_order)
{
	gen_struct *s = &p->structs[si];
	uint32_t size, leaves;
	int r;

	if (s->state == STRUCT_DONE)
		return 0;
	if (s->state == STRUCT_IN_PROGRESS)
		return -ELOOP;
	s->state = STRUCT_IN_PROGRESS;
	/* A member naming a struct in progress gets -ELOOP from the nested call
	 * and turns it into an error at its own line: the loop is reported once. */
	r = resolve_attrs(p, s->attrs, s->n_attrs, "struct", s->name, s->loc, d, n_order, &size, &leaves);
	if (r < 0)
		return r;
	s->wire_size = size;
	s->n_leaves = leaves;
	s->state = STRUCT_DONE;
	p->struct_order[(*n_order)++] = si;
	return 0;
}

static int resolve_enum(gen_project *p, gen_enum *e, gen_diag *d)
{
	unsigned bits = 0;
	bool any_value = false;
	uint64_t max;

	if (e->n_literals == 0)
		return gen_error(d, e->loc, "enum '%s' has no literals", e->name);
	for (size_t i = 0; i < e->n_literals; i++) {
		gen_literal *l = &e->literals[i];
		int r = check_ident(d, l->loc, "literal", l->name);

		if (r < 0)
			return r;
		for (size_t j = 0; j < i; j++)
			/* Case-insensitive: the generated macro names are upper-cased. */
			if (strcasecmp(e->literals[j].name, l->name) == 0)
				return gen_error(d, l->loc, "literal '%s' declared twice in enum '%s'",
						 l->name, e->name);
		if (l->has_value) {
			unsigned b = gen_count_bits(l->value);
			any_value = true;
			if (b > bits)
				bits = b;
		} else {
			/* sDDS numbers a literal without a value by its position. */
			l->value = i;
		}
	}
	if (!any_value)
		bits = gen_count_bits(e->n_literals);
	e->wire_size = gen_enum_size_for_bits(bits);
	max = e->wire_size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * e->wire_size)) - 1;
	for (size_t i = 0; i < e->n_literals; i++)
		if (e->literals[i].value > max)
			return gen_error(d, e->literals[i].loc,
					 "literal '%s' (value %llu) does not fit the %u-byte enum '%s'",
					 e->literals[i].name, (unsigned long long)e->literals[i].value,
					 e->wire_size, e->name);
	return 0;
}

static int resolve_datatype(gen_datatype *t, gen_diag *d)
{
	gen_kind k;

	if (is_float_name(t->type_name))
		return gen_error(d, t->loc,
				 "datatype '%s' has type %s: floating point types are not supported "
				 "(sDDS's generator rejects them too)",
				 t->name, t->type_name);
	if (gen_kind_from_name(t->type_name, &k) < 0)
		return gen_error(d, t->loc, "datatype '%s' has unknown type '%s' (a DDS_ integer type)",
				 t->name, t->type_name);
	if (k == GEN_STRING)
		return gen_error(d, t->loc, "datatype '%s' cannot be a DDS_string (strings need a size)",
				 t->name);
	t->kind = k;
	t->wire_size = gen_kind_size(k);
	return 0;
}

struct named {
	const char *name, *c_name, *what;
	gen_loc loc;
};

static int named_cmp(const void *a, const void *b)
{
	unsigned x = ((const struct named *)a)->loc.order, y = ((const struct named *)b)->loc.order;

	return x < y ? -1 : x > y;
}

/* Every type gets a C name; two declarations must not produce the same one. */
static int check_type_names(gen_project *p, gen_diag *d)
{
	size_t n = p->n_enums + p->n_datatypes + p->n_structs + p->n_topics;
	struct named *all = calloc(n ? n : 1, sizeof(*all));
	size_t k = 0;
	int r = 0;

	if (all == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_enums; i++)
		all[k++] = (struct named){p->enums[i].name, p->enums[i].c_name, "enum", p->enums[i].loc};
	for (size_t i = 0; i < p->n_datatypes; i++)
		all[k++] = (struct named){p->datatypes[i].name, p->datatypes[i].c_name, "datatype",
					  p->datatypes[i].loc};
	for (size_t i = 0; i < p->n_structs; i++)
		all[k++] =
		    (struct named){p->structs[i].name, p->structs[i].c_name, "struct", p->structs[i].loc};
	for (size_t i = 0; i < p->n_topics; i++)
		all[k++] = (struct named){p->topics[i].name, p->topics[i].c_name, "topic", p->topics[i].loc};

	/* In reading order, so that the later declaration is the one reported. */
	qsort(all, k, sizeof(*all), named_cmp);
	for (size_t i = 0; i < k && r == 0; i++) {
		gen_kind dummy;

		if (gen_kind_from_name(all[i].c_name, &dummy) == 0 || is_float_name(all[i].c_name)) {
			r = gen_error(d, all[i].loc, "%s '%s' has the name of a DDS type", all[i].what,
				      all[i].name);
			break;
		}
		/* DDS_* is the namespace of <sdds/dcps.h> (DDS_Topic, DDS_DataReader...). */
		if (strncmp(all[i].c_name, "DDS_", 4) == 0) {
			r = gen_error(d, all[i].loc,
				      "%s '%s' gets the C name '%s': the DDS_ prefix belongs to the DDS API",
				      all[i].what, all[i].name, all[i].c_name);
			break;
		}
		for (size_t j = 0; j < i; j++) {
			bool types = strcmp(all[i].what, "topic") != 0 && strcmp(all[j].what, "topic") != 0;
			if (strcmp(all[i].what, "topic") == 0 && strcmp(all[j].what, "topic") == 0 &&
			    strcmp(all[i].name, all[j].name) == 0) {
				r = gen_error(d, all[i].loc, "duplicate topic '%s' (first declared at %s:%u)",
					      all[i].name, all[j].loc.file, all[j].loc.line);
				break;
			}
			if (types && strcmp(all[i].name, all[j].name) == 0) {
				r = gen_error(d, all[i].loc,
					      "%s '%s' has the name of the %s declared at %s:%u", all[i].what,
					      all[i].name, all[j].what, all[j].loc.file, all[j].loc.line);
				break;
			}
			if (strcmp(all[i].c_name, all[j].c_name) == 0) {
				r = gen_error(
				    d, all[i].loc,
				    "%s '%s' gets the C name '%s', as the %s '%s' declared at %s:%u",
				    all[i].what, all[i].name, all[i].c_name, all[j].what, all[j].name,
				    all[j].loc.file, all[j].loc.line);
				break;
			}
		}
	}
	free(all);
	return r;
}

/* Check the flattened field names of a topic ("outer.inner.x") against the broker's name limit. */
static int check_leaf_names(const gen_project *p, const gen_topic *t, const gen_attr *attrs, size_t n,
			    size_t prefix_len, gen_diag *d)
{
	for (size_t i = 0; i < n; i++) {
		const gen_attr *a = &attrs[i];
		size_t len = prefix_len + (prefix_len ? 1 : 0) + strlen(a->name);

		if (len > GEN_NAME_MAX)
			return gen_error(
			    d, a->loc,
			    "field name of attribute '%s' in topic '%s' is longer than %u characters "
			    "once structs are flattened",
			    a->name, t->name, GEN_NAME_MAX);
		if (a->kind == GEN_STRUCT) {
			const gen_struct *s = &p->structs[a->ref];
			int r = check_leaf_names(p, t, s->attrs, s->n_attrs, len, d);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int resolve_topic(gen_project *p, size_t ti, gen_diag *d, size_t *n_order)
{
	gen_topic *t = &p->topics[ti];
	uint32_t size, leaves;
	int r;

	r = resolve_attrs(p, t->attrs, t->n_attrs, "topic", t->name, t->loc, d, n_order, &size, &leaves);
	if (r < 0)
		return r;
	t->wire_size = size;
	t->n_leaves = leaves;
	if (leaves > GEN_MAX_FIELDS)
		return gen_error(
		    d, t->loc, "topic '%s' has %u fields once structs are flattened; sddsd takes at most %u",
		    t->name, leaves, GEN_MAX_FIELDS);
	r = check_leaf_names(p, t, t->attrs, t->n_attrs, 0, d);
	if (r < 0)
		return r;
	for (size_t j = 0; j < ti; j++) {
		const gen_topic *o = &p->topics[j];
		if (o->domain == t->domain && o->id == t->id)
			return gen_error(
			    d, t->loc, "topic '%s' has domain %X and id %X, as topic '%s' declared at %s:%u",
			    t->name, t->domain, t->id, o->name, o->loc.file, o->loc.line);
	}
	return 0;
}

static gen_topic *find_topic(gen_project *p, const char *name)
{
	for (size_t i = 0; i < p->n_topics; i++)
		if (strcmp(p->topics[i].name, name) == 0)
			return &p->topics[i];
	return NULL;
}

static int topic_warnings(const gen_topic *t, gen_diag *d)
{
	int r = 0;

	if (t->id > 0xF)
		r = gen_warn(d, t->loc,
			     "warning: topic '%s' has id %X: real sDDS nodes put only its low 4 bits (%X) "
			     "on the wire (snps-wire.md 4.4)",
			     t->name, t->id, t->id & 0xF);
	if (r == 0 && t->domain == 1 && t->id >= 1 && t->id <= 7)
		r = gen_warn(d, t->loc,
			     "warning: topic '%s' has id %X in domain 1, which sDDS's builtin topics use "
			     "(snps-wire.md 4.4)",
			     t->name, t->id);
	if (r == 0 && t->wire_size > GEN_SNPS_MAX_SAMPLE)
		r = gen_warn(d, t->loc,
			     "warning: topic '%s' is %u bytes on the wire: real sDDS nodes carry at most %u "
			     "(snps-wire.md 6.6)",
			     t->name, t->wire_size, GEN_SNPS_MAX_SAMPLE);
	return r;
}

int gen_project_resolve(gen_project *p, gen_diag *d)
{
	size_t n_order = 0, kept = 0;
	int r;

	/* C names first: they are needed by the name checks. */
	for (size_t i = 0; i < p->n_topics; i++) {
		r = check_ident(d, p->topics[i].loc, "topic", p->topics[i].name);
		if (r < 0)
			return r;
		p->topics[i].c_name = upper_first(p, p->topics[i].name);
		if (p->topics[i].c_name == NULL)
			return -ENOMEM;
	}
	for (size_t i = 0; i < p->n_structs; i++) {
		r = check_ident(d, p->structs[i].loc, "struct", p->structs[i].name);
		if (r < 0)
			return r;
		p->structs[i].c_name = upper_first(p, p->structs[i].name);
		if (p->structs[i].c_name == NULL)
			return -ENOMEM;
	}
	for (size_t i = 0; i < p->n_enums; i++) {
		gen_enum *e = &p->enums[i];
		char buf[2 * GEN_NAME_MAX + 2];

		r = check_ident(d, e->loc, "enum", e->name);
		if (r == 0 && e->ns[0] != '\0')
			r = check_ident(d, e->loc, "namespace", e->ns);
		if (r < 0)
			return r;
		snprintf(buf, sizeof(buf), "%s%s%s", e->ns, e->ns[0] ? "_" : "", e->name);
		e->c_name = gen_strdup(p, buf, (size_t)-1);
		if (e->c_name == NULL)
			return -ENOMEM;
	}
	for (size_t i = 0; i < p->n_datatypes; i++) {
		gen_datatype *t = &p->datatypes[i];
		char buf[2 * GEN_NAME_MAX + 2];

		r = check_ident(d, t->loc, "datatype", t->name);
		if (r == 0 && t->ns[0] != '\0')
			r = check_ident(d, t->loc, "namespace", t->ns);
		if (r < 0)
			return r;
		snprintf(buf, sizeof(buf), "%s%s%s", t->ns, t->ns[0] ? "_" : "", t->name);
		t->c_name = gen_strdup(p, buf, (size_t)-1);
		if (t->c_name == NULL)
			return -ENOMEM;
	}
	r = check_type_names(p, d);
	if (r < 0)
		return r;

	for (size_t i = 0; i < p->n_enums; i++) {
		r = resolve_enum(p, &p->enums[i], d);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < p->n_datatypes; i++) {
		r = resolve_datatype(&p->datatypes[i], d);
		if (r < 0)
			return r;
	}
	free(p->struct_order);
	p->struct_order = calloc(p->n_structs ? p->n_structs : 1, sizeof(*p->struct_order));
	if (p->struct_order == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_structs; i++) {
		r = resolve_struct(p, i, d, &n_order);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < p->n_topics; i++) {
		r = resolve_topic(p, i, d, &n_order);
		if (r < 0)
			return r;
	}

	for (size_t i = 0; i < p->n_roles; i++) {
		const gen_role *ro = &p->roles[i];
		gen_topic *t = find_topic(p, ro->topic);

		if (t == NULL)
			return gen_error(d, ro->loc, "role for unknown topic '%s'", ro->topic);
		if (ro->type == GEN_ROLE_PUBLISHER)
			t->publisher = true;
		else
			t->subscriber = true;
	}
	for (size_t i = 0; i < p->n_subscriptions; i++) {
		const gen_subscription *s = &p->subscriptions[i];
		const gen_topic *t = find_topic(p, s->topic);

		if (t == NULL)
			return gen_error(d, s->loc, "subscription for unknown topic '%s'", s->topic);
		if (!t->publisher) {
			r = gen_warn(d, s->loc,
				     "warning: subscription for topic '%s', which this node does not publish",
				     s->topic);
			if (r < 0)
				return r;
		}
	}
	for (size_t i = 0; i < p->n_defines; i++) {
		r = check_ident(d, p->defines[i].loc, "define", p->defines[i].name);
		if (r < 0)
			return r;
		for (size_t j = 0; j < i; j++)
			if (strcmp(p->defines[i].name, p->defines[j].name) == 0)
				return gen_error(
				    d, p->defines[i].loc, "define '%s' given twice (first at %s:%u)",
				    p->defines[i].name, p->defines[j].loc.file, p->defines[j].loc.line);
	}

	/* Topics without a role are dropped, as sDDS's generator does. */
	for (size_t i = 0; i < p->n_topics; i++) {
		gen_topic *t = &p->topics[i];

		if (!t->publisher && !t->subscriber) {
			attrs_free(t->attrs);
			continue;
		}
		r = topic_warnings(t, d);
		if (r < 0)
			return r;
		if (kept != i)
			p->topics[kept] = *t;
		kept++;
	}
	p->n_topics = kept;
	return 0;
}

/* The leaves of attrs, their names after the len characters of name (its prefix). */
static int leaves_of(const gen_project *p, const gen_attr *attrs, size_t n, char *name, size_t len,
		     unsigned depth, uint32_t *offset, gen_leaf_fn fn, void *ctx)
{
	if (depth > GEN_MAX_ITEMS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		const gen_attr *a = &attrs[i];
		size_t l = len + (len ? 1 : 0) + strlen(a->name);
		gen_leaf leaf;
		int r;

		if (l > GEN_NAME_MAX)
			return -EINVAL;
		snprintf(name + len, GEN_NAME_MAX + 1 - len, "%s%s", len ? "." : "", a->name);
		if (a->kind == GEN_STRUCT) {
			const gen_struct *s = &p->structs[a->ref];

			r = leaves_of(p, s->attrs, s->n_attrs, name, l, depth + 1, offset, fn, ctx);
			if (r != 0)
				return r;
			continue;
		}
		leaf.attr = a;
		leaf.kind = a->kind == GEN_DATATYPE ? p->datatypes[a->ref].kind : a->kind;
		leaf.name = name;
		leaf.offset = *offset;
		r = fn(&leaf, ctx);
		if (r != 0)
			return r;
		*offset += a->wire_size;
	}
	return 0;
}

int gen_topic_leaves(const gen_project *p, const gen_topic *t, gen_leaf_fn fn, void *ctx)
{
	char name[GEN_NAME_MAX + 1];
	uint32_t offset = 0;

	name[0] = '\0';
	return leaves_of(p, t->attrs, t->n_attrs, name, 0, 0, &offset, fn, ctx);
}
