/* SPDX-License-Identifier: MIT */
/*
 * netns_harness.c - see netns_harness.h. Namespaces are entered with
 * `ip netns exec`, so children see the namespace's /etc/netns too.
 */
#include "netns_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

int netns_write_topics(const char *temperature_config, const char *counter_config)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "<domain id=\"1\">\n"
		 "  <topic name=\"temperature\" domain=\"1\" id=\"A\">\n"
		 "    <attribute name=\"device\" type=\"DDS_unsigned_short\" key=\"secondary\"/>\n"
		 "    <attribute name=\"value\" type=\"DDS_short\"/>\n"
		 "%s%s%s"
		 "  </topic>\n"
		 "  <topic name=\"counter\" domain=\"2\" id=\"B\">\n"
		 "    <attribute name=\"seq\" type=\"DDS_unsigned_long\"/>\n"
		 "    <attribute name=\"tag\" type=\"DDS_string\" size=\"7\"/>\n"
		 "%s%s%s"
		 "  </topic>\n"
		 "</domain>\n",
		 temperature_config ? "    " : "", temperature_config ? temperature_config : "",
		 temperature_config ? "\n" : "", counter_config ? "    " : "",
		 counter_config ? counter_config : "", counter_config ? "\n" : "");
	return netns_write("topics.xml", text);
}

int netns_group_teardown(void **state)
{
	(void)state;
	netns_cleanup();
	return 0;
}

/*
 * The first member named key in document order (depth first) under o
 * whose value, as json-c prints a scalar ("23254", "ff02::10"), is value;
 * any value when value is NULL. Borrowed from o's tree; NULL when none.
 */
static struct json_object *netns_json_first(struct json_object *o, const char *key, const char *value)
{
	struct json_object *hit;

	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			hit = netns_json_first(json_object_array_get_idx(o, i), key, value);
			if (hit != NULL)
				return hit;
		}
		return NULL;
	}
	if (!json_object_is_type(o, json_type_object))
		return NULL;
	json_object_object_foreach(o, k, v)
	{
		const char *text = json_object_get_string(v);

		if (strcmp(k, key) == 0 && (value == NULL || (text != NULL && strcmp(text, value) == 0)))
			return v != NULL ? v : o; /* a member with value null is still found */
		hit = netns_json_first(v, key, value);
		if (hit != NULL)
			return hit;
	}
	return NULL;
}

uint64_t netns_json_u64(const char *json, const char *key)
{
	struct json_object *doc = json_tokener_parse(json), *v;
	uint64_t n = 0;

	v = doc != NULL ? netns_json_first(doc, key, NULL) : NULL;
	if (json_object_is_type(v, json_type_int))
		n = json_object_get_uint64(v);
	json_object_put(doc);
	return n;
}

bool netns_json_has(const char *json, const char *key, const char *value)
{
	struct json_object *doc = json_tokener_parse(json);
	bool found = doc != NULL && netns_json_first(doc, key, value) != NULL;

	json_object_put(doc);
	return found;
}

/* Member key of the peer with address in a parsed `sddsctl peers` document, or NULL. */
static struct json_object *netns_json_peer_member(struct json_object *doc, const char *address,
						  const char *key)
{
	struct json_object *peers, *v;

	if (doc == NULL || !json_object_object_get_ex(doc, "peers", &peers) ||
	    !json_object_is_type(peers, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(peers); i++) {
		struct json_object *p = json_object_array_get_idx(peers, i), *a;

		if (json_object_object_get_ex(p, "address", &a) &&
		    strcmp(json_object_get_string(a), address) == 0)
			return json_object_object_get_ex(p, key, &v) ? v : NULL;
	}
	return NULL;
}

uint64_t netns_json_peer_u64(const char *json, const char *address, const char *key)
{
	struct json_object *doc = json_tokener_parse(json);
	struct json_object *v = netns_json_peer_member(doc, address, key);
	uint64_t n = v != NULL && json_object_is_type(v, json_type_int) ? json_object_get_uint64(v) : 0;

	json_object_put(doc);
	return n;
}

bool netns_json_peer_is(const char *json, const char *address, const char *key, const char *value)
{
	struct json_object *doc = json_tokener_parse(json);
	struct json_object *v = netns_json_peer_member(doc, address, key);
	bool is = v != NULL && strcmp(json_object_get_string(v), value) == 0;

	json_object_put(doc);
	return is;
}

uint64_t netns_net_counter(int side, const char *sddsctl, const char *key)
{
	/* Static: a reading is 10s of KiB and the tests are one thread. */
	static char buf[65536];

	if (netns_ctl_json(side, sddsctl, "net", buf, sizeof(buf)) != 0)
		fail_msg("sddsctl net of %s failed", side == 0 ? "A" : "B");
	return netns_json_u64(buf, key);
}
