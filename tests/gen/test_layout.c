/* SPDX-License-Identifier: MIT */
/*
 * test_layout.c - wire sizes and layouts the model computes (snps-wire.md
 * §6): every primitive type, strings K+1, the enum size rule of §6.2 with
 * its early step, datatypes, struct flattening, and the bounds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <sddsxml/sddsxml.h>

/* Load an in-memory project whose single topic "t" (publisher) has the given attributes. */
static gen_project *load_topic(const char *decls, const char *attrs)
{
	char xml[65536];
	gen_project *p = NULL;
	gen_diag d;
	int r;

	snprintf(xml, sizeof(xml),
		 "<project name=\"layout\">\n%s\n<topic name=\"t\" domain=\"1\" id=\"A\">\n%s\n</topic>\n"
		 "<role topic=\"t\" type=\"publisher\"/>\n</project>\n",
		 decls, attrs);
	gen_diag_init(&d);
	r = sddsxml_load_memory(xml, strlen(xml), "layout.xml", NULL, &p, &d);
	if (r != 0)
		fail_msg("%d: %s", r, d.error);
	gen_diag_free(&d);
	assert_int_equal(p->n_topics, 1);
	return p;
}

static void test_primitive_sizes(void **state)
{
	static const struct {
		const char *type;
		gen_kind kind;
		uint32_t size;
	} prims[] = {
	    {"DDS_octet", GEN_OCTET, 1},
	    {"DDS_char", GEN_CHAR, 1},
	    {"DDS_boolean", GEN_BOOLEAN, 1},
	    {"DDS_short", GEN_SHORT, 2},
	    {"DDS_unsigned_short", GEN_USHORT, 2},
	    {"DDS_long", GEN_LONG, 4},
	    {"DDS_unsigned_long", GEN_ULONG, 4},
	    {"DDS_long_long", GEN_LONGLONG, 8},
	    {"DDS_unsigned_long_long", GEN_ULONGLONG, 8},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(prims) / sizeof(prims[0]); i++) {
		char attr[128];
		gen_project *p;
		gen_kind k;

		assert_int_equal(gen_kind_from_name(prims[i].type, &k), 0);
		assert_int_equal(k, prims[i].kind);
		assert_int_equal(gen_kind_size(k), prims[i].size);
		assert_string_equal(gen_kind_ctype(k), prims[i].type);
		snprintf(attr, sizeof(attr), "<attribute name=\"v\" type=\"%s\"/>", prims[i].type);
		p = load_topic("", attr);
		assert_int_equal(p->topics[0].wire_size, prims[i].size);
		assert_int_equal(p->topics[0].attrs[0].kind, prims[i].kind);
		gen_project_free(p);
	}
	assert_int_equal(gen_kind_from_name("DDS_float", &(gen_kind){0}), -ENOENT);
}

static void test_strings(void **state)
{
	static const uint32_t ks[] = {1, 5, 20, 121, 4095};

	(void)state;
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		char attr[128];
		gen_project *p;

		snprintf(attr, sizeof(attr), "<attribute name=\"s\" type=\"DDS_string\" size=\"%u\"/>",
			 ks[i]);
		p = load_topic("", attr);
		/* K text bytes plus the one sDDS never writes (§6.3). */
		assert_int_equal(p->topics[0].wire_size, ks[i] + 1);
		assert_int_equal(p->topics[0].attrs[0].str_size, ks[i]);
		gen_project_free(p);
	}
}

static void test_count_bits(void **state)
{
	(void)state;
	assert_int_equal(gen_count_bits(0), 0);
	assert_int_equal(gen_count_bits(1), 1);
	assert_int_equal(gen_count_bits(2), 2);
	assert_int_equal(gen_count_bits(3), 2);
	assert_int_equal(gen_count_bits(127), 7);
	assert_int_equal(gen_count_bits(128), 8);
	assert_int_equal(gen_count_bits(255), 8);
	assert_int_equal(gen_count_bits(256), 9);
	assert_int_equal(gen_count_bits(UINT64_C(1) << 31), 32);
	assert_int_equal(gen_count_bits(UINT64_MAX), 64);
	assert_int_equal(gen_enum_size_for_bits(0), 1);
	assert_int_equal(gen_enum_size_for_bits(7), 1);
	assert_int_equal(gen_enum_size_for_bits(8), 2);
	assert_int_equal(gen_enum_size_for_bits(15), 2);
	assert_int_equal(gen_enum_size_for_bits(16), 4);
	assert_int_equal(gen_enum_size_for_bits(31), 4);
	assert_int_equal(gen_enum_size_for_bits(32), 8);
	assert_int_equal(gen_enum_size_for_bits(64), 8);
}

/* The size of an enum whose literals have the given values (NULL: no value). */
static uint32_t enum_size(const char *const *values, size_t n)
{
	char decl[32768];
	size_t len = 0;
	gen_project *p;
	uint32_t size;

	len += (size_t)snprintf(decl + len, sizeof(decl) - len, "<enum name=\"E\">");
	for (size_t i = 0; i < n; i++) {
		if (values[i] != NULL)
			len += (size_t)snprintf(decl + len, sizeof(decl) - len,
						"<literal name=\"l%zu\" value=\"%s\"/>", i, values[i]);
		else
			len +=
			    (size_t)snprintf(decl + len, sizeof(decl) - len, "<literal name=\"l%zu\"/>", i);
	}
	snprintf(decl + len, sizeof(decl) - len, "</enum>");
	p = load_topic(decl, "<attribute name=\"e\" type=\"E\"/>");
	assert_int_equal(p->topics[0].attrs[0].kind, GEN_ENUM);
	size = p->topics[0].wire_size;
	assert_int_equal(size, p->enums[0].wire_size);
	gen_project_free(p);
	return size;
}

static void test_enum_sizes(void **state)
{
	static const struct {
		const char *value;
		uint32_t size;
	} cases[] = {
	    {"0", 1},	       {"1", 1},	  {"127", 1},	     {"128", 2},
	    {"200", 2}, /* the early step of §6.2 */
	    {"255", 2},	       {"32767", 2},	  {"32768", 4},	     {"65535", 4},
	    {"2147483647", 4}, {"2147483648", 8}, {"4294967295", 8}, {"18446744073709551615", 8},
	};
	const char *vals[300];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *v[2] = {"0", cases[i].value};
		if (enum_size(v, 2) != cases[i].size)
			fail_msg("value %s: want %u bytes", cases[i].value, cases[i].size);
	}
	/* Without values the count of literals decides: 127 fit 7 bits, 128 need 8. */
	for (size_t i = 0; i < 300; i++)
		vals[i] = NULL;
	assert_int_equal(enum_size(vals, 1), 1);
	assert_int_equal(enum_size(vals, 127), 1);
	assert_int_equal(enum_size(vals, 128), 2);
	assert_int_equal(enum_size(vals, 255), 2);
	/* With some values given, only the given values count (as sDDS does)... */
	vals[0] = "3";
	assert_int_equal(enum_size(vals, 200), 1);
	vals[0] = NULL;
}

static void test_enum_values(void **state)
{
	gen_project *p = load_topic(
	    "<enum name=\"E\" namespace=\"ns\"><literal name=\"a\"/><literal name=\"b\" value=\"7\"/>"
	    "<literal name=\"c\"/></enum>",
	    "<attribute name=\"e\" type=\"E\"/>");
	const gen_enum *e = &p->enums[0];

	(void)state;
	assert_string_equal(e->c_name, "ns_E");
	assert_int_equal(e->n_literals, 3);
	/* A literal without a value is numbered by its position. */
	assert_int_equal(e->literals[0].value, 0);
	assert_int_equal(e->literals[1].value, 7);
	assert_int_equal(e->literals[2].value, 2);
	assert_int_equal(e->wire_size, 1);
	gen_project_free(p);
}

static void test_datatype(void **state)
{
	gen_project *p =
	    load_topic("<datatype name=\"Id\" namespace=\"x\" type=\"DDS_unsigned_long\"/>"
		       "<datatype name=\"Flag\" type=\"DDS_boolean\"/>",
		       "<attribute name=\"id\" type=\"Id\"/><attribute name=\"f\" type=\"Flag\"/>");

	(void)state;
	assert_int_equal(p->topics[0].wire_size, 5);
	assert_int_equal(p->topics[0].attrs[0].kind, GEN_DATATYPE);
	assert_string_equal(p->datatypes[0].c_name, "x_Id");
	assert_string_equal(p->datatypes[1].c_name, "Flag");
	assert_int_equal(p->datatypes[0].kind, GEN_ULONG);
	gen_project_free(p);
}

/* A topic of a char, a struct outer (octet, struct inner, long) and a struct inner
 * (short, string of 2); inner is declared after outer: declaration order of types does
 * not matter. */
static const char nested_decls[] =
    "<struct name=\"outer\"><attribute name=\"a\" type=\"DDS_octet\"/>"
    "<attribute name=\"in\" type=\"inner\"/><attribute name=\"b\" type=\"DDS_long\"/></struct>"
    "<struct name=\"inner\"><attribute name=\"x\" type=\"DDS_short\"/>"
    "<attribute name=\"s\" type=\"DDS_string\" size=\"2\"/></struct>";
static const char nested_attrs[] = "<attribute name=\"h\" type=\"DDS_char\"/><attribute name=\"o\" "
				   "type=\"outer\"/><attribute name=\"i\" type=\"inner\"/>";

static void test_struct_flattening(void **state)
{
	gen_project *p = load_topic(nested_decls, nested_attrs);
	const gen_topic *t = &p->topics[0];

	(void)state;
	/* inner: 2 + 3 = 5; outer: 1 + 5 + 4 = 10; topic: 1 + 10 + 5 = 16. */
	assert_int_equal(p->n_structs, 2);
	assert_int_equal(p->structs[0].wire_size, 10);
	assert_int_equal(p->structs[1].wire_size, 5);
	assert_int_equal(p->structs[0].n_leaves, 4);
	assert_int_equal(p->structs[1].n_leaves, 2);
	assert_string_equal(p->structs[0].c_name, "Outer");
	/* C needs inner before outer. */
	assert_int_equal(p->struct_order[0], 1);
	assert_int_equal(p->struct_order[1], 0);
	assert_int_equal(t->wire_size, 16);
	assert_int_equal(t->n_leaves, 1 + 4 + 2);
	assert_int_equal(t->attrs[1].kind, GEN_STRUCT);
	assert_int_equal(t->attrs[1].wire_size, 10);
	gen_project_free(p);
}

struct leaves_seen {
	char names[16][GEN_NAME_MAX + 1];
	uint32_t offsets[16];
	gen_kind kinds[16];
	unsigned n, stop_at;
};

static int see_leaf(const gen_leaf *l, void *ctx)
{
	struct leaves_seen *s = ctx;

	assert_true(s->n < 16);
	snprintf(s->names[s->n], sizeof(s->names[0]), "%s", l->name);
	s->offsets[s->n] = l->offset;
	s->kinds[s->n] = l->kind;
	return ++s->n == s->stop_at ? 42 : 0;
}

/* gen_topic_leaves: names, offsets and kinds through nested structs, and the stop. */
static void test_topic_leaves(void **state)
{
	gen_project *p = load_topic(nested_decls, nested_attrs);
	static const char *const names[] = {"h", "o.a", "o.in.x", "o.in.s", "o.b", "i.x", "i.s"};
	static const uint32_t offsets[] = {0, 1, 2, 4, 7, 11, 13};
	static const gen_kind kinds[] = {GEN_CHAR, GEN_OCTET, GEN_SHORT, GEN_STRING,
					 GEN_LONG, GEN_SHORT, GEN_STRING};
	struct leaves_seen s = {.stop_at = 0};

	(void)state;
	assert_int_equal(gen_topic_leaves(p, &p->topics[0], see_leaf, &s), 0);
	assert_int_equal(s.n, 7);
	for (unsigned i = 0; i < 7; i++) {
		assert_string_equal(s.names[i], names[i]);
		assert_int_equal(s.offsets[i], offsets[i]);
		assert_int_equal(s.kinds[i], kinds[i]);
	}
	/* The callback's non-zero return stops the walk and comes back. */
	memset(&s, 0, sizeof(s));
	s.stop_at = 3;
	assert_int_equal(gen_topic_leaves(p, &p->topics[0], see_leaf, &s), 42);
	assert_int_equal(s.n, 3);
	gen_project_free(p);
}

static void test_bounds(void **state)
{
	char attrs[8192];
	size_t n = 0;
	gen_project *p;

	(void)state;
	/* Exactly the largest sample and exactly the most fields sddsd takes. */
	p = load_topic("", "<attribute name=\"s\" type=\"DDS_string\" size=\"4094\"/><attribute name=\"o\" "
			   "type=\"DDS_octet\"/>");
	assert_int_equal(p->topics[0].wire_size, GEN_MAX_SAMPLE);
	gen_project_free(p);
	for (int i = 0; i < (int)GEN_MAX_FIELDS; i++)
		n += (size_t)snprintf(attrs + n, sizeof(attrs) - n,
				      "<attribute name=\"f%d\" type=\"DDS_octet\"/>", i);
	p = load_topic("", attrs);
	assert_int_equal(p->topics[0].n_leaves, GEN_MAX_FIELDS);
	gen_project_free(p);
}

static void test_diag(void **state)
{
	gen_diag d;

	(void)state;
	gen_diag_init(&d);
	assert_int_equal(gen_error(&d, (gen_loc){.file = "f.xml", .line = 3}, "first %d", 1), -EINVAL);
	assert_int_equal(gen_error(&d, (gen_loc){.file = "f.xml", .line = 4}, "second"), -EINVAL);
	/* Only the first error is kept: later ones are usually its consequences. */
	assert_string_equal(d.error, "f.xml:3: first 1");
	assert_int_equal(gen_warn(&d, (gen_loc){.file = "g.xml", .line = 9}, "w"), 0);
	assert_int_equal(d.n_warnings, 1);
	assert_string_equal(d.warnings[0], "g.xml:9: w");
	gen_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_primitive_sizes),
	    cmocka_unit_test(test_strings),
	    cmocka_unit_test(test_count_bits),
	    cmocka_unit_test(test_enum_sizes),
	    cmocka_unit_test(test_enum_values),
	    cmocka_unit_test(test_datatype),
	    cmocka_unit_test(test_struct_flattening),
	    cmocka_unit_test(test_topic_leaves),
	    cmocka_unit_test(test_bounds),
	    cmocka_unit_test(test_diag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
