/* SPDX-License-Identifier: MIT */
/*
 * test_netconfig.c - the daemon config keys of the network side: values,
 * repeatable keys, refusals with FILE:LINE, net = on without a node
 * config, and config_print writing them back in a form that parses.
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

#include "config.h"

static int parse(struct sddsd_config *c, const char *text, struct config_error *err)
{
	return config_parse_text(c, "n.conf", text, strlen(text), err);
}

static void test_values(void **state)
{
	static const char text[] = "node_config = /etc/sdds/node.xml\n"
				   "net = auto\n"
				   "backend = socket\n"
				   "interface = eth0\n"
				   "interface = eth1\n"
				   "interface = eth0\n"
				   "max_frame = 250\n"
				   "max_peers = 10\n"
				   "peer_endian_swap = fe80::1\n"
				   "peer_endian_swap = fe80::2\n";
	struct sddsd_config c;
	struct config_error err;
	struct in6_addr a;

	(void)state;
	config_init(&c);
	assert_int_equal(c.net, -1);
	assert_string_equal(c.backend, "socket");
	assert_int_equal(c.max_frame, 128);
	if (parse(&c, text, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(c.node_config, "/etc/sdds/node.xml");
	assert_int_equal(c.n_interfaces, 2);
	assert_string_equal(c.interfaces[1], "eth1");
	assert_int_equal(c.max_frame, 250);
	assert_int_equal(c.max_peers, 10);
	assert_int_equal(c.n_peer_endian_swap, 2);
	inet_pton(AF_INET6, "fe80::2", &a);
	assert_memory_equal(c.peer_endian_swap[1], &a, 16);
	assert_int_equal(config_set(&c, "--x", "net", "off", &err), 0);
	assert_int_equal(c.net, 0);
	assert_int_equal(config_set(&c, "--x", "net", "on", &err), 0);
	assert_int_equal(c.net, 1);
}

static void test_refusals(void **state)
{
	static const struct {
		const char *text;
		const char *want;
	} bad[] = {
		{ "net = maybe\n", "n.conf:1: net" },
		{ "\ninterface = eth0/x\n", "n.conf:2: interface" },
		{ "interface = abcdefghijklmnopq\n", "longer than 15" },
		{ "peer_endian_swap = 10.0.0.1\n", "not an IPv6 address" },
		{ "max_frame = 8\n", "out of range" },
		{ "backend = a b\n", "not a name" },
		{ "net = on\n", "node_config" },
		{ "node_config = /x\nnode_config = /y\n", "n.conf:2: duplicate key" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sddsd_config c;
		struct config_error err;

		config_init(&c);
		if (parse(&c, bad[i].text, &err) != -EINVAL)
			fail_msg("case %zu accepted", i);
		if (strstr(err.msg, bad[i].want) == NULL)
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].want);
	}
	{
		struct sddsd_config c;
		struct config_error err;
		char text[4096] = "";

		config_init(&c);
		for (int i = 0; i < 9; i++)
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "interface = if%d\n", i);
		assert_int_equal(parse(&c, text, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "n.conf:9:"));
	}
}

static void test_print_round_trip(void **state)
{
	static const char text[] = "node_config = /n.xml\nnet = off\ninterface = vna\ninterface = vnb\n"
				   "peer_endian_swap = fe80::c0ef:1\nmax_frame = 200\n";
	struct sddsd_config c, d;
	struct config_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	config_init(&c);
	assert_int_equal(parse(&c, text, &err), 0);
	f = open_memstream(&buf, &len);
	config_print(&c, f);
	fclose(f);
	config_init(&d);
	if (config_parse_text(&d, "printed", buf, len, &err) < 0)
		fail_msg("%s\n%s", err.msg, buf);
	assert_string_equal(d.node_config, "/n.xml");
	assert_int_equal(d.net, 0);
	assert_int_equal(d.n_interfaces, 2);
	assert_string_equal(d.interfaces[1], "vnb");
	assert_int_equal(d.n_peer_endian_swap, 1);
	assert_memory_equal(d.peer_endian_swap[0], c.peer_endian_swap[0], 16);
	assert_int_equal(d.max_frame, 200);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_print_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
