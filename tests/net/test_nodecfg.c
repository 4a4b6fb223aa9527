/* SPDX-License-Identifier: MIT */
/*
 * test_nodecfg.c - sdds.xml -> the network topic table: the example and
 * capture configs, includes, layouts, static subscriptions with and
 * without zones, and every refusal with its FILE:LINE.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sddsxml/nodecfg.h>
#include <snps/snps.h>

static const char *data_dir(void)
{
	const char *d = getenv("NET_TEST_DATA");

	return d != NULL ? d : "tests/net/data";
}

static void test_file_with_include(void **state)
{
	struct nodecfg_error err;
	struct nodecfg *nc;
	char path[512], a[64];
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/node_a.xml", data_dir());
	rc = nodecfg_load(path, &nc, &err);
	if (rc < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(nc->name, "node_a");
	assert_string_equal(nc->iface, "vna");
	assert_int_equal(nc->port, 23234);
	assert_false(nc->endian_big);
	assert_int_equal(nc->n_topics, 2);
	assert_int_equal(nc->topics[0].desc.domain, 1);
	assert_int_equal(nc->topics[0].desc.topic_id, 10);
	assert_int_equal(nc->topics[0].desc.sample_size, 4);
	assert_int_equal(nc->topics[0].desc.fields[0].type, SNPS_FIELD_USHORT);
	assert_int_equal(nc->topics[1].desc.domain, 2);
	assert_int_equal(nc->topics[1].desc.topic_id, 11);
	assert_int_equal(nc->topics[1].desc.sample_size, 12);
	assert_int_equal(nc->topics[1].desc.fields[1].type, SNPS_FIELD_STRING);
	assert_int_equal(nc->topics[1].desc.fields[1].size, 8);
	assert_string_equal(nc->topics[1].desc.fields[1].name, "tag");
	assert_non_null(strstr(nc->topics[1].loc, "topics.xml:"));
	assert_int_equal(nc->n_dests, 2);
	inet_ntop(AF_INET6, &nc->dests[0].ip, a, sizeof(a));
	assert_string_equal(a, "fe80::b");
	assert_string_equal(nc->dests[0].iface, "");
	assert_string_equal(nc->dests[1].iface, "vna");
	assert_int_equal(nc->dests[1].topic, 1);
	assert_int_equal(nodecfg_topic_by_id(nc, 11), 1);
	assert_int_equal(nodecfg_topic_by_id(nc, 3), -ENOENT);
	free(nc);
}

static void test_example_configs(void **state)
{
	static const char *const files[] = {
	    "../../../examples/temperature/pub/sdds.xml",
	    "../../../examples/temperature/sub/sdds.xml",
	    "../../gen/data/config/basic_linux_linux_temperature_pub/sdds.xml",
	    "../../gen/data/config/probe_wide_sub/sdds.xml",
	};
	char path[512];

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct nodecfg_error err;
		struct nodecfg *nc;

		snprintf(path, sizeof(path), "%s/%s", data_dir(), files[i]);
		if (nodecfg_load(path, &nc, &err) < 0)
			fail_msg("%s: %s", files[i], err.msg);
		assert_true(nc->n_topics >= 1);
		free(nc);
	}
}

/* The discovery example's defines map to discovery on, 1 s and 5 s (§10.2). */
static void test_discovery_defines(void **state)
{
	struct nodecfg_error err;
	struct nodecfg *nc;
	char path[512];

	(void)state;
	snprintf(path, sizeof(path),
		 "%s/../../gen/data/config/discovery_linux_linux_temperature_pub/sdds.xml", data_dir());
	if (nodecfg_load(path, &nc, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(nc->discovery);
	assert_int_equal(nc->participant_ms, 1000);
	assert_int_equal(nc->publication_ms, 5000);
	free(nc);
	/* The basic example defines neither: discovery off, periods not given. */
	snprintf(path, sizeof(path), "%s/../../gen/data/config/basic_linux_linux_temperature_pub/sdds.xml",
		 data_dir());
	if (nodecfg_load(path, &nc, &err) < 0)
		fail_msg("%s", err.msg);
	assert_false(nc->discovery);
	assert_int_equal(nc->participant_ms, -1);
	assert_int_equal(nc->publication_ms, -1);
	free(nc);
}

struct bad {
	const char *xml;
	const char *want; /* substring of the message */
};

#define HEAD                                                                                                 \
	"<project name=\"t\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"fe80::1\" "           \
	"iface=\"x\">\n"
#define T(name, dom, id)                                                                                     \
	"<topic name=\"" name "\" domain=\"" dom "\" id=\"" id                                               \
	"\"><attribute name=\"v\" type=\"DDS_short\"/></topic>\n"

static void test_refusals(void **state)
{
	static const struct bad bads[] = {
	    {HEAD T("a", "1", "1A") "<role topic=\"a\" type=\"publisher\"/></project>",
	     "bad.xml:2: topic 'a': id 26"},
	    {HEAD T("a", "12", "A") "<role topic=\"a\" type=\"publisher\"/></project>", "out of range"},
	    {HEAD T("a", "1", "3") "<role topic=\"a\" type=\"publisher\"/></project>", "builtin"},
	    {HEAD T("a", "1", "A") T("b", "2", "A") "<role topic=\"a\" type=\"publisher\"/><role topic=\"b\" "
						    "type=\"publisher\"/></project>",
	     "bad.xml:3: topic 'b' has the id 10"},
	    {HEAD T("a", "1",
		    "A") "<role topic=\"a\" type=\"publisher\"/>\n"
			 "<subscription topic=\"a\"><subscriber ip=\"10.0.0.1\"/></subscription></project>",
	     "bad.xml:4: subscriber ip '10.0.0.1'"},
	    {HEAD T("a", "1",
		    "A") "<role topic=\"a\" type=\"publisher\"/>\n"
			 "<subscription topic=\"a\"><subscriber ip=\"ff02::10\"/></subscription></project>",
	     "not a unicast"},
	    {HEAD T("a", "1",
		    "A") "<role topic=\"a\" type=\"publisher\"/>\n"
			 "<subscription topic=\"a\"><subscriber ip=\"fe80::1%\"/></subscription></project>",
	     "bad.xml:4:"},
	    {"<project name=\"t\" protocol=\"AF_INET\">" T(
		 "a", "1", "A") "<role topic=\"a\" type=\"publisher\"/></project>",
	     "UDPv6"},
	    {HEAD T("a", "1", "A") "<role topic=\"a\" type=\"publisher\"/>", "bad.xml"},
	    {HEAD T("a", "1",
		    "A") "<role topic=\"a\" type=\"publisher\"/>\n"
			 "<define name=\"SDDS_BUILTIN_TOPIC_PARTICIPANT_TIMER\" value=\"1s\"/></project>",
	     "bad.xml:4: SDDS_BUILTIN_TOPIC_PARTICIPANT_TIMER: '1s' is not a number of seconds"},
	    {HEAD T("a", "1", "A") "<role topic=\"a\" type=\"publisher\"/>\n"
				   "<define name=\"SDDS_DISCOVERY_PUBLICATION_TIMER\"/></project>",
	     "bad.xml:4: SDDS_DISCOVERY_PUBLICATION_TIMER: want a number of seconds"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct nodecfg_error err;
		struct nodecfg *nc = NULL;
		int rc = nodecfg_load_memory(bads[i].xml, strlen(bads[i].xml), "bad.xml", &nc, &err);

		if (rc != -EINVAL)
			fail_msg("case %zu: rc %d, want -EINVAL", i, rc);
		assert_null(nc);
		if (strstr(err.msg, bads[i].want) == NULL)
			fail_msg("case %zu: message '%s' lacks '%s'", i, err.msg, bads[i].want);
	}
}

static void test_missing_file(void **state)
{
	struct nodecfg_error err;
	struct nodecfg *nc = NULL;

	(void)state;
	assert_true(nodecfg_load("/nonexistent/sdds.xml", &nc, &err) < 0);
	assert_null(nc);
	assert_non_null(strstr(err.msg, "/nonexistent/sdds.xml"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_file_with_include), cmocka_unit_test(test_example_configs),
	    cmocka_unit_test(test_discovery_defines), cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
