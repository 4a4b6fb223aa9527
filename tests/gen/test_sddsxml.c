/* SPDX-License-Identifier: MIT */
/*
 * test_sddsxml.c - the sdds.xml reader: the real node configurations of the
 * captures (tests/gen/data/config, copied from shared/captures/config) and
 * broken files, each with its exact FILE:LINE: message.
 *
 * Usage: test_sddsxml DATA_DIR (meson passes tests/gen/data).
 * Broken files are written to a fresh temporary directory per case, so that
 * include paths, cycles and line numbers are real.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <sddsxml/sddsxml.h>

static const char *data_dir;

/* ---- helpers ---- */

static gen_project *load_ok(const char *rel, gen_diag *d)
{
	char path[PATH_MAX];
	gen_project *p = NULL;
	int r;

	snprintf(path, sizeof(path), "%s/%s", data_dir, rel);
	gen_diag_init(d);
	r = sddsxml_load_file(path, &p, d);
	if (r != 0)
		fail_msg("loading %s: %d: %s", rel, r, d->error);
	assert_non_null(p);
	return p;
}

static const gen_topic *topic(const gen_project *p, const char *name)
{
	for (size_t i = 0; i < p->n_topics; i++)
		if (strcmp(p->topics[i].name, name) == 0)
			return &p->topics[i];
	fail_msg("no topic %s", name);
	return NULL;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static char *make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char tmpl[PATH_MAX];
	char *dir;

	snprintf(tmpl, sizeof(tmpl), "%s/sddsxml-test.XXXXXX", base != NULL ? base : "/tmp");
	dir = mkdtemp(tmpl);
	assert_non_null(dir);
	return strdup(dir);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	const char *slash = strrchr(name, '/');
	FILE *f;

	if (slash != NULL) {
		snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(slash - name), name);
		mkdir(path, 0700);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Copy the file at src to dir/name. */
static void copy_file(const char *src, const char *dir, const char *name)
{
	char buf[65536];
	FILE *f = fopen(src, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	write_file(dir, name, buf);
}

struct file {
	const char *name;
	const char *text;
};

/*
 * Write files into a fresh directory, load DIR/sdds.xml, expect failure with
 * the message "DIR/<where>: <msg>" (where = "file:line"); prefix: msg is only
 * the start of the message (libxml2's own wording follows).
 */
static void expect_error_files(const struct file *files, size_t n, const char *where, const char *msg,
			       bool prefix)
{
	char *dir = make_tmpdir();
	char path[PATH_MAX], want[2048];
	gen_project *p = NULL;
	gen_diag d;
	int r;

	for (size_t i = 0; i < n; i++)
		write_file(dir, files[i].name, files[i].text);
	snprintf(path, sizeof(path), "%s/sdds.xml", dir);
	gen_diag_init(&d);
	r = sddsxml_load_file(path, &p, &d);
	snprintf(want, sizeof(want), "%s/%s: %s", dir, where, msg);
	/* The message may name the directory more than once ("first declared at DIR/..."). */
	{
		char *at;
		while ((at = strstr(want, "@DIR@")) != NULL) {
			char rest[2048];
			snprintf(rest, sizeof(rest), "%s", at + 5);
			snprintf(at, sizeof(want) - (size_t)(at - want), "%s%s", dir, rest);
		}
	}
	if (r != -EINVAL || p != NULL)
		fail_msg("expected an error, got %d", r);
	if (prefix ? strncmp(d.error, want, strlen(want)) != 0 : strcmp(d.error, want) != 0)
		fail_msg("\nwant: %s\ngot:  %s", want, d.error);
	gen_diag_free(&d);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static void expect_error(const char *xml, const char *where, const char *msg)
{
	struct file f = {"sdds.xml", xml};

	expect_error_files(&f, 1, where, msg, false);
}

#define PROJ(body) "<project name=\"t\">\n" body "</project>\n"
/* A topic on lines 2..4 with one attribute line (3) and a role on line 5. */
#define TOPIC_WITH(attr)                                                                                     \
	PROJ("<topic name=\"a\" domain=\"1\" id=\"A\">\n" attr                                               \
	     "</topic>\n<role topic=\"a\" type=\"publisher\"/>\n")

/* ---- the real configurations ---- */

static void test_basic_pub(void **state)
{
	gen_diag d;
	gen_project *p = load_ok("config/basic_linux_linux_temperature_pub/sdds.xml", &d);
	const gen_topic *t;
	char inc[PATH_MAX];

	(void)state;
	assert_string_equal(p->name, "linux_temperature_pub");
	assert_string_equal(p->endian, "little");
	assert_string_equal(p->os, "linux");
	assert_string_equal(p->protocol, "AF_INET6");
	assert_string_equal(p->ip, "fe80::c0ef:62ff:fed4:d26a");
	assert_string_equal(p->iface, "tap0");
	assert_string_equal(p->device, "tap0");
	assert_int_equal(p->port, 23234);
	assert_string_equal(p->description, "\"Linux Temperature Topic - Publisher\"");
	assert_int_equal(p->n_topics, 1);
	t = topic(p, "temperature");
	assert_string_equal(t->c_name, "Temperature");
	assert_int_equal(t->domain, 1);
	assert_int_equal(t->id, 0xA);
	assert_true(t->publisher);
	assert_false(t->subscriber);
	assert_false(t->has_reliability);
	assert_false(t->has_history);
	assert_int_equal(t->wire_size, 4);
	assert_int_equal(t->n_attrs, 2);
	assert_string_equal(t->attrs[0].name, "device");
	assert_int_equal(t->attrs[0].kind, GEN_USHORT);
	assert_int_equal(t->attrs[0].key, GEN_KEY_SECONDARY);
	assert_string_equal(t->attrs[0].description, "Device ID");
	assert_string_equal(t->attrs[1].name, "value");
	assert_int_equal(t->attrs[1].kind, GEN_SHORT);
	assert_int_equal(t->attrs[1].key, GEN_KEY_NONE);
	assert_string_equal(t->description, "Alpha testing topic.");
	/* Line of the topic in the included file. */
	snprintf(inc, sizeof(inc), "%s/config/basic_linux_linux_temperature_pub/../topics/temperature.xml",
		 data_dir);
	assert_string_equal(t->loc.file, inc);
	assert_int_equal(t->loc.line, 2);
	assert_int_equal(t->attrs[1].loc.line, 5);
	assert_int_equal(p->n_subscriptions, 1);
	assert_string_equal(p->subscriptions[0].topic, "temperature");
	assert_int_equal(p->subscriptions[0].n_subscribers, 1);
	assert_string_equal(p->subscriptions[0].subscribers[0].ip, "fe80::c0ef:62ff:fed4:d36b");
	assert_int_equal(p->subscriptions[0].subscribers[0].port, 0);
	assert_int_equal(p->n_defines, 0);
	assert_int_equal(p->n_files, 2);
	assert_string_equal(p->files[1], inc);
	assert_int_equal(d.n_warnings, 0);
	gen_project_free(p);
	gen_diag_free(&d);
}

static void test_basic_sub(void **state)
{
	gen_diag d;
	gen_project *p = load_ok("config/basic_linux_linux_temperature_sub_listener/sdds.xml", &d);
	const gen_topic *t = topic(p, "temperature");

	(void)state;
	assert_string_equal(p->name, "linux_temperature_sub_listener");
	assert_string_equal(p->iface, "tap1");
	/* No port attribute: sDDS's default. */
	assert_int_equal(p->port, 23234);
	assert_false(t->publisher);
	assert_true(t->subscriber);
	assert_int_equal(p->n_subscriptions, 0);
	gen_project_free(p);
	gen_diag_free(&d);
}

static void test_discovery_defines(void **state)
{
	gen_diag d;
	gen_project *p = load_ok("config/discovery_linux_linux_temperature_sub_listener/sdds.xml", &d);

	(void)state;
	assert_int_equal(p->n_defines, 7);
	assert_string_equal(p->defines[0].name, "FEATURE_SDDS_MULTICAST_ENABLED");
	assert_null(p->defines[0].value);
	assert_string_equal(p->defines[3].name, "SDDS_BUILTIN_TOPIC_PARTICIPANT_TIMER");
	assert_string_equal(p->defines[3].value, "1");
	assert_string_equal(p->defines[5].name, "SDDS_BUILTIN_TOPIC_TOPIC_TIMER");
	assert_string_equal(p->defines[5].value, "0");
	assert_true(topic(p, "temperature")->subscriber);
	gen_project_free(p);
	gen_diag_free(&d);
}

static void test_qos_reliable(void **state)
{
	gen_diag d;
	gen_project *p = load_ok("config/probe_qback_pub/sdds.xml", &d);
	const gen_topic *t = topic(p, "qback");

	(void)state;
	assert_true(t->has_reliability);
	assert_int_equal(t->reliability, GEN_REL_RELIABLE);
	assert_int_equal(t->confirm, GEN_CONFIRM_ACK);
	assert_int_equal(t->seqnr_bits, 4);
	assert_true(t->has_max_blocking);
	assert_int_equal(t->max_blocking_ms, 100);
	assert_int_equal(t->id, 3);
	assert_int_equal(p->n_defines, 4);
	/* id 3 in domain 1 is one of the builtin topics' ids: a warning, not an error. */
	assert_int_equal(d.n_warnings, 1);
	assert_non_null(
	    strstr(d.warnings[0], "topics/qback.xml:2: warning: topic 'qback' has id 3 in domain 1"));
	gen_project_free(p);
	gen_diag_free(&d);

	p = load_ok("config/probe_qnack_sub/sdds.xml", &d);
	t = topic(p, "qnack");
	assert_int_equal(t->reliability, GEN_REL_RELIABLE);
	assert_int_equal(t->confirm, GEN_CONFIRM_NACK);
	assert_int_equal(t->max_blocking_ms, 3000);
	assert_true(t->subscriber);
	gen_project_free(p);
	gen_diag_free(&d);
}

static void test_wide_and_zero(void **state)
{
	static const struct {
		const char *name;
		gen_kind kind;
		uint32_t size;
	} want[] = {
	    {"o", GEN_OCTET, 1},     {"c", GEN_CHAR, 1},	{"b", GEN_BOOLEAN, 1}, {"s", GEN_SHORT, 2},
	    {"us", GEN_USHORT, 2},   {"str", GEN_STRING, 6},	{"l", GEN_LONG, 4},    {"ul", GEN_ULONG, 4},
	    {"ll", GEN_LONGLONG, 8}, {"ull", GEN_ULONGLONG, 8},
	};
	gen_diag d;
	gen_project *p = load_ok("config/probe_wide_sub/sdds.xml", &d);
	const gen_topic *t = topic(p, "wide");

	(void)state;
	assert_int_equal(t->domain, 2);
	assert_int_equal(t->id, 0xB);
	assert_int_equal(t->wire_size, 37);
	assert_int_equal(t->n_leaves, 10);
	assert_int_equal(t->n_attrs, 10);
	for (size_t i = 0; i < 10; i++) {
		assert_string_equal(t->attrs[i].name, want[i].name);
		assert_int_equal(t->attrs[i].kind, want[i].kind);
		assert_int_equal(t->attrs[i].wire_size, want[i].size);
	}
	assert_int_equal(t->attrs[5].str_size, 5);
	gen_project_free(p);
	gen_diag_free(&d);

	p = load_ok("config/probe_zero_pub/sdds.xml", &d);
	t = topic(p, "zero");
	assert_int_equal(t->domain, 0);
	assert_int_equal(t->id, 4);
	assert_int_equal(t->wire_size, 2);
	gen_project_free(p);
	gen_diag_free(&d);
}

static void test_every_config_loads(void **state)
{
	static const char *const nodes[] = {
	    "basic_linux_linux_temperature_pub",
	    "basic_linux_linux_temperature_sub_listener",
	    "discovery_linux_linux_temperature_pub",
	    "discovery_linux_linux_temperature_sub_listener",
	    "probe_qback_pub",
	    "probe_qnack_pub",
	    "probe_qnack_sub",
	    "probe_tiny_pub",
	    "probe_wide_pub",
	    "probe_wide_sub",
	    "probe_zero_pub",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		char rel[PATH_MAX];
		gen_diag d;
		gen_project *p;

		snprintf(rel, sizeof(rel), "config/%s/sdds.xml", nodes[i]);
		p = load_ok(rel, &d);
		assert_int_equal(p->n_topics, 1);
		assert_true(p->topics[0].publisher != p->topics[0].subscriber);
		gen_project_free(p);
		gen_diag_free(&d);
	}
}

/* The probe topics no captured node includes, and a topic without a role. */
static void test_probe_topics_and_dropping(void **state)
{
	struct file files[] = {
	    {"sdds.xml", PROJ("<include filename=\"../topics/qbe.xml\"/>\n"
			      "<include filename=\"../topics/qbig.xml\"/>\n"
			      "<include filename=\"../topics/bigid.xml\"/>\n"
			      "<include filename=\"../topics/temperature.xml\"/>\n"
			      "<role topic=\"qbe\" type=\"publisher\"/>\n"
			      "<role topic=\"qbig\" type=\"subscriber\"/>\n"
			      "<role topic=\"bigid\" type=\"subscriber\"/>\n")},
	};
	static const char *const topic_files[] = {"qbe.xml", "qbig.xml", "bigid.xml", "temperature.xml"};
	char *tmp = make_tmpdir();
	char dir[PATH_MAX / 2], path[PATH_MAX], want[PATH_MAX + 200];
	gen_project *p = NULL;
	gen_diag d;
	const gen_topic *t;

	(void)state;
	/* node/sdds.xml next to topics/, the layout of the captured configs. */
	for (size_t i = 0; i < sizeof(topic_files) / sizeof(topic_files[0]); i++) {
		char src[PATH_MAX], dst[PATH_MAX];
		snprintf(src, sizeof(src), "%s/config/topics/%s", data_dir, topic_files[i]);
		snprintf(dst, sizeof(dst), "topics/%s", topic_files[i]);
		copy_file(src, tmp, dst);
	}
	write_file(tmp, "node/sdds.xml", files[0].text);
	snprintf(dir, sizeof(dir), "%s/node", tmp);
	snprintf(path, sizeof(path), "%s/sdds.xml", dir);
	gen_diag_init(&d);
	assert_int_equal(sddsxml_load_file(path, &p, &d), 0);
	nftw(tmp, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	free(tmp);
	/* temperature has no role: dropped, as sDDS does. */
	assert_int_equal(p->n_topics, 3);
	t = topic(p, "qbe");
	assert_int_equal(t->reliability, GEN_REL_BEST_EFFORT);
	assert_int_equal(t->seqnr_bits, 4);
	assert_int_equal(t->confirm, GEN_CONFIRM_NONE);
	assert_false(t->has_max_blocking);
	t = topic(p, "qbig");
	assert_int_equal(t->seqnr_bits, 16);
	t = topic(p, "bigid");
	assert_int_equal(t->id, 0x1A);
	/* The truncation of ids above 15 by real nodes is worth a warning. */
	snprintf(
	    want, sizeof(want),
	    "%s/../topics/bigid.xml:2: warning: topic 'bigid' has id 1A: real sDDS nodes put only its low 4 "
	    "bits (A) on the wire (snps-wire.md 4.4)",
	    dir);
	/* bigid, and the ids 5 (qbe) and 4 (qbig) in domain 1, in topic order. */
	assert_int_equal(d.n_warnings, 3);
	assert_string_equal(d.warnings[2], want);
	assert_int_equal(p->n_files, 5);
	gen_project_free(p);
	gen_diag_free(&d);
}

static void test_old_role_syntax_and_memory(void **state)
{
	static const char xml[] =
	    "<project name=\"m\">\n"
	    "<domain id=\"5\">\n"
	    "<topic name=\"t\" id=\"E\"><attribute name=\"v\" type=\"DDS_long\"/></topic>\n"
	    "</domain>\n"
	    "<role topic=\"t\" type=\"publisher\"><subscriber ip=\"fe80::2\" port=\"4000\"/></role>\n"
	    "</project>\n";
	gen_project *p = NULL;
	gen_diag d;

	(void)state;
	gen_diag_init(&d);
	assert_int_equal(sddsxml_load_memory(xml, sizeof(xml) - 1, "mem.xml", NULL, &p, &d), 0);
	assert_int_equal(p->n_topics, 1);
	assert_int_equal(p->topics[0].domain, 5);
	assert_int_equal(p->topics[0].id, 0xE);
	assert_int_equal(p->n_subscriptions, 1);
	assert_string_equal(p->subscriptions[0].subscribers[0].ip, "fe80::2");
	assert_int_equal(p->subscriptions[0].subscribers[0].port, 4000);
	gen_project_free(p);
	gen_diag_free(&d);
}

static void test_memory_includes(void **state)
{
	static const char xml[] = "<project name=\"m\">\n<include filename=\"topics/temperature.xml\"/>\n"
				  "<role topic=\"temperature\" type=\"subscriber\"/>\n</project>\n";
	char dir[PATH_MAX];
	gen_project *p = NULL;
	gen_diag d;

	(void)state;
	gen_diag_init(&d);
	assert_int_equal(sddsxml_load_memory(xml, sizeof(xml) - 1, "mem.xml", NULL, &p, &d), -EINVAL);
	assert_null(p);
	assert_string_equal(d.error,
			    "mem.xml:2: include 'topics/temperature.xml': includes are disabled here");
	gen_diag_free(&d);

	snprintf(dir, sizeof(dir), "%s/config", data_dir);
	gen_diag_init(&d);
	assert_int_equal(sddsxml_load_memory(xml, sizeof(xml) - 1, "mem.xml", dir, &p, &d), 0);
	assert_int_equal(p->topics[0].wire_size, 4);
	gen_project_free(p);
	gen_diag_free(&d);
}

/* ---- broken files ---- */

static void test_err_malformed(void **state)
{
	(void)state;
	expect_error(PROJ("<topic>\n"), "sdds.xml:3",
		     "malformed XML: Opening and ending tag mismatch: topic line 2 and project");
	{
		struct file f = {"sdds.xml", ""};
		expect_error_files(&f, 1, "sdds.xml:1", "malformed XML: Document is empty", false);
	}
	{
		struct file f = {"sdds.xml", "<project name=\"t\">\n<topic name=\"a\" id=A/>\n</project>\n"};
		expect_error_files(&f, 1, "sdds.xml:2", "malformed XML: ", true);
	}
	expect_error("<!DOCTYPE project [ <!ENTITY e \"x\"> ]>\n<project name=\"t\"/>\n", "sdds.xml:2",
		     "DOCTYPE declarations are not allowed in an sdds.xml");
}

static void test_err_project(void **state)
{
	(void)state;
	expect_error("<domain id=\"1\"/>\n", "sdds.xml:1", "root element is <domain>, expected <project>");
	expect_error("<project>\n</project>\n", "sdds.xml:1", "missing attribute 'name' on <project>");
	expect_error("<project name=\"a/b\"/>\n", "sdds.xml:1",
		     "project name 'a/b' may only hold letters, digits, '_', '-' and '.'");
	expect_error("<project name=\"t\" port=\"70000\"/>\n", "sdds.xml:1",
		     "port 70000 is out of range (1..65535)");
	expect_error("<project name=\"t\" endian=\"middle\"/>\n", "sdds.xml:1",
		     "bad endian 'middle' (little or big)");
	expect_error(PROJ("<topci/>\n"), "sdds.xml:2", "unknown element <topci> in <project>");
}

static void test_err_types(void **state)
{
	(void)state;
	expect_error(TOPIC_WITH("<attribute name=\"x\" type=\"DDS_foo\"/>\n"), "sdds.xml:3",
		     "unknown type 'DDS_foo' for attribute 'x'");
	expect_error(
	    TOPIC_WITH("<attribute name=\"x\" type=\"DDS_float\"/>\n"), "sdds.xml:3",
	    "attribute 'x' has type DDS_float: floating point types are not supported (sDDS's generator "
	    "rejects them too)");
	expect_error(
	    TOPIC_WITH("<attribute name=\"x\" type=\"DDS_double\"/>\n"), "sdds.xml:3",
	    "attribute 'x' has type DDS_double: floating point types are not supported (sDDS's generator "
	    "rejects them too)");
	expect_error(TOPIC_WITH("<attribute name=\"x\"/>\n"), "sdds.xml:3",
		     "missing attribute 'type' on <attribute>");
	expect_error(TOPIC_WITH("<attribute type=\"DDS_long\"/>\n"), "sdds.xml:3",
		     "missing attribute 'name' on <attribute>");
	expect_error(TOPIC_WITH("<attribute name=\"s\" type=\"DDS_string\"/>\n"), "sdds.xml:3",
		     "DDS_string attribute 's' has no 'size'");
	expect_error(TOPIC_WITH("<attribute name=\"s\" type=\"DDS_string\" size=\"0\"/>\n"), "sdds.xml:3",
		     "size 0 of DDS_string attribute 's' is out of range (1..4095)");
	expect_error(TOPIC_WITH("<attribute name=\"s\" type=\"DDS_string\" size=\"x\"/>\n"), "sdds.xml:3",
		     "bad size 'x' for DDS_string attribute 's' (a decimal number)");
	expect_error(TOPIC_WITH("<attribute name=\"x\" type=\"DDS_long\" key=\"tertiary\"/>\n"), "sdds.xml:3",
		     "bad key 'tertiary' for attribute 'x' (primary or secondary)");
	expect_error(TOPIC_WITH("<attribute name=\"2x\" type=\"DDS_long\"/>\n"), "sdds.xml:3",
		     "attribute name '2x' is not a C identifier");
	expect_error(TOPIC_WITH("<attribute name=\"int\" type=\"DDS_long\"/>\n"), "sdds.xml:3",
		     "attribute name 'int' is a C keyword or a standard macro");
	expect_error(TOPIC_WITH("<attribute name=\"NULL\" type=\"DDS_long\"/>\n"), "sdds.xml:3",
		     "attribute name 'NULL' is a C keyword or a standard macro");
	expect_error(
	    TOPIC_WITH(
		"<attribute name=\"x\" type=\"DDS_long\"/>\n<attribute name=\"x\" type=\"DDS_octet\"/>\n"),
	    "sdds.xml:4", "attribute 'x' declared twice in topic 'a' (first at @DIR@/sdds.xml:3)");
	expect_error(TOPIC_WITH("<attribute name=\"x\" type=\"DDS_long\" key=\"primary\"/>\n"
				"<attribute name=\"y\" type=\"DDS_long\" key=\"primary\"/>\n"),
		     "sdds.xml:4", "topic 'a' has a second primary key 'y' (first is 'x')");
	expect_error(TOPIC_WITH("<attribute name=\"x\" type=\"DDS_long\" key=\"secondary\"/>\n"
				"<attribute name=\"skey\" type=\"DDS_long\"/>\n"),
		     "sdds.xml:4",
		     "attribute 'skey' clashes with the key alias of the same name in topic 'a'");
	expect_error(TOPIC_WITH("<frob/>\n"), "sdds.xml:3", "unexpected element <frob> in <topic>");
	expect_error(PROJ("<topic name=\"a\" domain=\"1\" id=\"A\">\n</topic>\n<role topic=\"a\" "
			  "type=\"publisher\"/>\n"),
		     "sdds.xml:2", "topic 'a' has no attributes");
	expect_error(PROJ("<enum name=\"E\"/>\n"), "sdds.xml:2", "enum 'E' has no literals");
	expect_error(PROJ("<enum name=\"E\"><literal name=\"a\"/><literal name=\"A\"/></enum>\n"),
		     "sdds.xml:2", "literal 'A' declared twice in enum 'E'");
	expect_error(PROJ("<enum name=\"E\"><literal name=\"a\" value=\"-1\"/></enum>\n"), "sdds.xml:2",
		     "bad literal value '-1' (a decimal number)");
	expect_error(PROJ("<enum name=\"E\"><literal name=\"a\" value=\"18446744073709551616\"/></enum>\n"),
		     "sdds.xml:2",
		     "literal value 18446744073709551616 is out of range (0..18446744073709551615)");
	expect_error(PROJ("<datatype name=\"D\" type=\"DDS_string\"/>\n"), "sdds.xml:2",
		     "datatype 'D' cannot be a DDS_string (strings need a size)");
	expect_error(
	    PROJ("<datatype name=\"D\" type=\"DDS_float\"/>\n"), "sdds.xml:2",
	    "datatype 'D' has type DDS_float: floating point types are not supported (sDDS's generator "
	    "rejects them too)");
	expect_error(PROJ("<struct name=\"s\">\n<attribute name=\"a\" type=\"s\"/>\n</struct>\n"),
		     "sdds.xml:3", "struct 's' contains itself (attribute 'a')");
	expect_error(PROJ("<struct name=\"s\">\n<attribute name=\"a\" type=\"u\"/>\n</struct>\n"
			  "<struct name=\"u\">\n<attribute name=\"b\" type=\"s\"/>\n</struct>\n"),
		     "sdds.xml:6", "struct 's' contains itself (attribute 'b')");
	expect_error(PROJ("<struct name=\"s\"><attribute name=\"a\" type=\"DDS_octet\"/></struct>\n"
			  "<enum name=\"s\"><literal name=\"x\"/></enum>\n"),
		     "sdds.xml:3", "enum 's' has the name of the struct declared at @DIR@/sdds.xml:2");
	expect_error(PROJ("<enum name=\"DDS_long\"><literal name=\"x\"/></enum>\n"), "sdds.xml:2",
		     "enum 'DDS_long' has the name of a DDS type");
	expect_error(
	    PROJ("<struct name=\"DDS_Topic\"><attribute name=\"a\" type=\"DDS_octet\"/></struct>\n"),
	    "sdds.xml:2",
	    "struct 'DDS_Topic' gets the C name 'DDS_Topic': the DDS_ prefix belongs to the DDS API");
}

static void test_err_topics(void **state)
{
	(void)state;
	expect_error(PROJ("<topic name=\"a\" domain=\"1\" id=\"0xA\"/>\n"), "sdds.xml:2",
		     "bad hex id '0xA': write the hex digits without 0x");
	expect_error(PROJ("<topic name=\"a\" domain=\"1\" id=\"G\"/>\n"), "sdds.xml:2",
		     "bad hex id 'G' (hex digits without 0x)");
	expect_error(PROJ("<topic name=\"a\" domain=\"1\" id=\"\"/>\n"), "sdds.xml:2",
		     "bad hex id '' (hex digits without 0x)");
	expect_error(PROJ("<topic name=\"a\" domain=\"1\" id=\"10000\"/>\n"), "sdds.xml:2",
		     "id 10000 is out of range (0..FFFF)");
	expect_error(PROJ("<topic name=\"a\" domain=\"10\" id=\"1\"/>\n"), "sdds.xml:2",
		     "domain 10 is out of range (0..F: SNPS carries the domain in 4 bits)");
	expect_error(PROJ("<topic name=\"a\" id=\"1\"/>\n"), "sdds.xml:2",
		     "missing attribute 'domain' on <topic>");
	expect_error(PROJ("<topic name=\"a\" domain=\"1\"/>\n"), "sdds.xml:2",
		     "missing attribute 'id' on <topic>");
	expect_error(PROJ("<topic domain=\"1\" id=\"1\"/>\n"), "sdds.xml:2",
		     "missing attribute 'name' on <topic>");
	expect_error(PROJ("<topic name=\"a-b\" domain=\"1\" id=\"1\"><attribute name=\"x\" "
			  "type=\"DDS_octet\"/></topic>\n"),
		     "sdds.xml:2", "topic name 'a-b' is not a C identifier");
	expect_error(TOPIC_WITH("<attribute name=\"x\" type=\"DDS_long\"/>\n<config type=\"qos_foo\"/>\n"),
		     "sdds.xml:4", "unknown config type 'qos_foo' in topic 'a'");
	expect_error(TOPIC_WITH("<attribute name=\"x\" type=\"DDS_long\"/>\n<config type=\"qos_reliability\" "
				"kind=\"sometimes\"/>\n"),
		     "sdds.xml:4", "bad qos_reliability kind 'sometimes' (besteffort or reliable)");
	expect_error(
	    TOPIC_WITH("<attribute name=\"x\" type=\"DDS_long\"/>\n<config type=\"qos_reliability\"/>\n"),
	    "sdds.xml:4", "missing attribute 'kind' on <config>");
	expect_error(
	    TOPIC_WITH("<attribute name=\"x\" type=\"DDS_long\"/>\n"
		       "<config type=\"qos_reliability\" kind=\"reliable\" confirmationtype=\"maybe\"/>\n"),
	    "sdds.xml:4", "bad confirmationtype 'maybe' (ack or nack)");
	expect_error(
	    TOPIC_WITH("<attribute name=\"x\" type=\"DDS_long\"/>\n"
		       "<config type=\"qos_reliability\" kind=\"reliable\" max_blocking_time=\"1s\"/>\n"),
	    "sdds.xml:4", "bad max_blocking_time '1s' (a decimal number)");
	expect_error(
	    TOPIC_WITH(
		"<attribute name=\"x\" type=\"DDS_long\"/>\n"
		"<config type=\"qos_reliability\" kind=\"besteffort\" reliabilitySeqnrSize=\"tiny\"/>\n"),
	    "sdds.xml:4", "bad reliabilitySeqnrSize 'tiny' (basic, small, big or huge)");
	expect_error(
	    TOPIC_WITH(
		"<attribute name=\"x\" type=\"DDS_long\"/>\n<config type=\"qos_history\" depth=\"0\"/>\n"),
	    "sdds.xml:4", "history depth 0 is out of range (1..65536)");
	expect_error(
	    PROJ("<topic name=\"a\" domain=\"1\" id=\"A\"><attribute name=\"x\" type=\"DDS_long\"/></topic>\n"
		 "<topic name=\"b\" domain=\"1\" id=\"A\"><attribute name=\"x\" "
		 "type=\"DDS_long\"/></topic>\n"),
	    "sdds.xml:3", "topic 'b' has domain 1 and id A, as topic 'a' declared at @DIR@/sdds.xml:2");
	expect_error(PROJ("<topic name=\"foo\" domain=\"1\" id=\"A\"><attribute name=\"x\" "
			  "type=\"DDS_long\"/></topic>\n"
			  "<topic name=\"Foo\" domain=\"1\" id=\"B\"><attribute name=\"x\" "
			  "type=\"DDS_long\"/></topic>\n"),
		     "sdds.xml:3",
		     "topic 'Foo' gets the C name 'Foo', as the topic 'foo' declared at @DIR@/sdds.xml:2");
	expect_error(PROJ("<role topic=\"nope\" type=\"publisher\"/>\n"), "sdds.xml:2",
		     "role for unknown topic 'nope'");
	expect_error(
	    PROJ("<topic name=\"a\" domain=\"1\" id=\"A\"><attribute name=\"x\" type=\"DDS_long\"/></topic>\n"
		 "<role topic=\"a\" type=\"reader\"/>\n"),
	    "sdds.xml:3", "bad role type 'reader' (publisher or subscriber)");
	expect_error(PROJ("<subscription topic=\"nope\"><subscriber ip=\"fe80::1\"/></subscription>\n"),
		     "sdds.xml:2", "subscription for unknown topic 'nope'");
	expect_error(PROJ("<subscription topic=\"a\"><subscriber/></subscription>\n"), "sdds.xml:2",
		     "missing attribute 'ip' on <subscriber>");
	expect_error(PROJ("<define value=\"1\"/>\n"), "sdds.xml:2", "missing attribute 'name' on <define>");
	expect_error(PROJ("<define name=\"A\"/>\n<define name=\"A\" value=\"2\"/>\n"), "sdds.xml:3",
		     "define 'A' given twice (first at @DIR@/sdds.xml:2)");
}

static void test_err_limits(void **state)
{
	char *xml = malloc(16384);
	size_t n = 0;

	(void)state;
	assert_non_null(xml);
	/* 65 fields: one more than the broker keeps. */
	n += (size_t)sprintf(xml + n, "<project name=\"t\">\n<topic name=\"a\" domain=\"1\" id=\"A\">\n");
	for (int i = 0; i < 65; i++)
		n += (size_t)sprintf(xml + n, "<attribute name=\"f%d\" type=\"DDS_octet\"/>\n", i);
	sprintf(xml + n, "</topic>\n</project>\n");
	expect_error(xml, "sdds.xml:2",
		     "topic 'a' has 65 fields once structs are flattened; sddsd takes at most 64");

	/* 65 fields again, through a struct used 5 times (13 each). */
	n = (size_t)sprintf(xml, "<project name=\"t\">\n<struct name=\"s\">\n");
	for (int i = 0; i < 13; i++)
		n += (size_t)sprintf(xml + n, "<attribute name=\"f%d\" type=\"DDS_octet\"/>\n", i);
	n += (size_t)sprintf(xml + n, "</struct>\n<topic name=\"a\" domain=\"1\" id=\"A\">\n");
	for (int i = 0; i < 5; i++)
		n += (size_t)sprintf(xml + n, "<attribute name=\"s%d\" type=\"s\"/>\n", i);
	sprintf(xml + n, "</topic>\n</project>\n");
	expect_error(xml, "sdds.xml:17",
		     "topic 'a' has 65 fields once structs are flattened; sddsd takes at most 64");
	free(xml);

	expect_error(TOPIC_WITH("<attribute name=\"s\" type=\"DDS_string\" size=\"4095\"/>\n"
				"<attribute name=\"o\" type=\"DDS_octet\"/>\n"),
		     "sdds.xml:4", "topic 'a' is larger than 4096 bytes on the wire at attribute 'o'");
	/* Nested structs doubling in size: the sum is bounded, never overflows. */
	expect_error(
	    PROJ("<struct name=\"s0\"><attribute name=\"a\" type=\"DDS_string\" size=\"3000\"/></struct>\n"
		 "<struct name=\"s1\"><attribute name=\"a\" type=\"s0\"/><attribute name=\"b\" "
		 "type=\"s0\"/></struct>\n"),
	    "sdds.xml:3", "struct 's1' is larger than 4096 bytes on the wire at attribute 'b'");
	expect_error(
	    TOPIC_WITH("<attribute name=\"abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd\" "
		       "type=\"DDS_octet\"/>\n"),
	    "sdds.xml:3",
	    "attribute name 'abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd' is longer "
	    "than 63 "
	    "characters");
}

static void test_err_includes(void **state)
{
	(void)state;
	{
		struct file f = {"sdds.xml", PROJ("<include filename=\"missing.xml\"/>\n")};
		expect_error_files(&f, 1, "sdds.xml:2",
				   "include '@DIR@/missing.xml' not found: No such file or directory", false);
	}
	{
		struct file f = {"sdds.xml", PROJ("<include/>\n")};
		expect_error_files(&f, 1, "sdds.xml:2", "missing attribute 'filename' on <include>", false);
	}
	{
		struct file f = {"sdds.xml", PROJ("<include filename=\"sdds.xml\"/>\n")};
		expect_error_files(&f, 1, "sdds.xml:2",
				   "include cycle: '@DIR@/sdds.xml' is already being read", false);
	}
	{
		struct file f[] = {
		    {"sdds.xml", PROJ("<include filename=\"sub/a.xml\"/>\n")},
		    {"sub/a.xml", "<domain id=\"1\">\n<include filename=\"b.xml\"/>\n</domain>\n"},
		    {"sub/b.xml", "<domain id=\"1\">\n\n<include filename=\"a.xml\"/>\n</domain>\n"},
		};
		/* Paths resolve relative to the including file: sub/b.xml names sub/a.xml. */
		expect_error_files(f, 3, "sub/b.xml:3",
				   "include cycle: '@DIR@/sub/a.xml' is already being read", false);
	}
	{
		struct file f[] = {
		    {"sdds.xml", PROJ("<include filename=\"a.xml\"/>\n<include filename=\"b.xml\"/>\n")},
		    {"a.xml", "<domain id=\"1\">\n<topic name=\"t\" id=\"1\"><attribute name=\"x\" "
			      "type=\"DDS_octet\"/></topic>\n</domain>\n"},
		    {"b.xml", "<domain id=\"2\">\n\n<topic name=\"t\" id=\"2\"><attribute name=\"x\" "
			      "type=\"DDS_octet\"/></topic>\n</domain>\n"},
		};
		expect_error_files(f, 3, "b.xml:3", "duplicate topic 't' (first declared at @DIR@/a.xml:2)",
				   false);
	}
	{
		struct file f[] = {
		    {"sdds.xml", PROJ("<include filename=\"a.xml\"/>\n")},
		    {"a.xml", "<domain id=\"1F\">\n<topic name=\"t\" id=\"1\"/>\n</domain>\n"},
		};
		/* The default domain comes from <domain id>: its line is the one at fault. */
		expect_error_files(f, 2, "a.xml:1",
				   "domain 1F is out of range (0..F: SNPS carries the domain in 4 bits)",
				   false);
	}
	{
		struct file f[] = {
		    {"sdds.xml", PROJ("<include filename=\"a.xml\"/>\n")},
		    {"a.xml", "<domain id=\"1\">\n<topic name=\"t\" id=\"1\">\n</domain>\n"},
		};
		expect_error_files(f, 2, "a.xml:3",
				   "malformed XML: Opening and ending tag mismatch: topic line 2 and domain",
				   false);
	}
	{
		/* main + 15 nested files are fine; a 17th file is one too deep. */
		struct file f[18];
		char names[18][24], texts[18][128];

		snprintf(texts[0], sizeof(texts[0]), PROJ("<include filename=\"f1.xml\"/>\n"));
		f[0] = (struct file){"sdds.xml", texts[0]};
		for (int i = 1; i <= 16; i++) {
			snprintf(names[i], sizeof(names[i]), "f%d.xml", i);
			snprintf(texts[i], sizeof(texts[i]),
				 "<domain id=\"1\">\n<include filename=\"f%d.xml\"/>\n</domain>\n", i + 1);
			f[i] = (struct file){names[i], texts[i]};
		}
		snprintf(texts[17], sizeof(texts[17]), "<domain id=\"1\"/>\n");
		f[17] = (struct file){"f17.xml", texts[17]};
		expect_error_files(f, 18, "f15.xml:2",
				   "include '@DIR@/f16.xml': includes nested deeper than 16 files", false);
		/* 15 nested files load. */
		snprintf(texts[15], sizeof(texts[15]), "<domain id=\"1\"/>\n");
		{
			char *dir = make_tmpdir();
			char path[PATH_MAX];
			gen_project *p = NULL;
			gen_diag d;

			for (int i = 0; i <= 15; i++)
				write_file(dir, f[i].name, f[i].text);
			snprintf(path, sizeof(path), "%s/sdds.xml", dir);
			gen_diag_init(&d);
			assert_int_equal(sddsxml_load_file(path, &p, &d), 0);
			assert_int_equal(p->n_files, 16);
			gen_project_free(p);
			gen_diag_free(&d);
			nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
			free(dir);
		}
	}
	{
		struct file f[] = {
		    {"sdds.xml", PROJ("<include filename=\"a.xml\"/>\n")},
		    {"a.xml", "<project name=\"x\"/>\n"},
		};
		expect_error_files(f, 2, "a.xml:1", "an included file cannot be a <project>", false);
	}
}

static void test_err_main_missing(void **state)
{
	gen_project *p = NULL;
	gen_diag d;

	(void)state;
	gen_diag_init(&d);
	assert_int_equal(sddsxml_load_file("/nonexistent/sdds.xml", &p, &d), -EINVAL);
	assert_string_equal(d.error, "/nonexistent/sdds.xml: cannot read: No such file or directory");
	assert_null(p);
	gen_diag_free(&d);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_basic_pub),
	    cmocka_unit_test(test_basic_sub),
	    cmocka_unit_test(test_discovery_defines),
	    cmocka_unit_test(test_qos_reliable),
	    cmocka_unit_test(test_wide_and_zero),
	    cmocka_unit_test(test_every_config_loads),
	    cmocka_unit_test(test_probe_topics_and_dropping),
	    cmocka_unit_test(test_old_role_syntax_and_memory),
	    cmocka_unit_test(test_memory_includes),
	    cmocka_unit_test(test_err_malformed),
	    cmocka_unit_test(test_err_project),
	    cmocka_unit_test(test_err_types),
	    cmocka_unit_test(test_err_topics),
	    cmocka_unit_test(test_err_limits),
	    cmocka_unit_test(test_err_includes),
	    cmocka_unit_test(test_err_main_missing),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
		return 2;
	}
	data_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
