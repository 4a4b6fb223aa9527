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

#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "netconf.h"

static const char *sddsd_bin;

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
				   "peer_endian_swap = fe80::2\n"
				   "peer_pack = fe80::3\n"
				   "peer_pack = fe80::3\n";
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
	assert_int_equal(c.peer_endian_swap.n, 2);
	inet_pton(AF_INET6, "fe80::2", &a);
	assert_memory_equal(c.peer_endian_swap.addr[1], &a, 16);
	/* Two lists: the pack list holds only its own address, once. */
	assert_int_equal(c.peer_pack.n, 1);
	inet_pton(AF_INET6, "fe80::3", &a);
	assert_memory_equal(c.peer_pack.addr[0], &a, 16);
	assert_int_equal(config_set(&c, "--x", "net", "off", &err), 0);
	assert_int_equal(c.net, 0);
	assert_int_equal(config_set(&c, "--x", "net", "on", &err), 0);
	assert_int_equal(c.net, 1);
}

/* The discovery keys (daemon/net/discovery.h): defaults, values, ranges. */
static void test_discovery_keys(void **state)
{
	static const char text[] = "discovery = on\n"
				   "node_id = 53866\n"
				   "discovery_participant_ms = 200\n"
				   "discovery_publication_ms = 0\n"
				   "discovery_expire_ms = 1500\n"
				   "discovery_unicast = yes\n"
				   "discovery_max_subscriptions = 8\n"
				   "announce_pack = off\n";
	static const char *const bad[] = {
	    "node_id = 65536\n",	  "node_id = 0xd26a\n", /* decimal, as every number key */
	    "discovery = maybe\n",	  "discovery_max_subscriptions = 0\n",
	    "discovery_expire_ms = -1\n", "announce_pack = sometimes\n",
	};
	struct sddsd_config c;
	struct config_error err;

	(void)state;
	config_init(&c);
	assert_false(c.discovery);
	assert_int_equal(c.node_id, 0);
	assert_int_equal(c.discovery_participant_ms, 1000);
	assert_int_equal(c.discovery_publication_ms, 5000);
	assert_int_equal(c.discovery_expire_ms, 5000);
	assert_int_equal(c.discovery_max_subscriptions, 64);
	assert_true(c.announce_pack);
	if (parse(&c, text, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(c.node_id, 0xd26a);
	assert_true(c.discovery);
	assert_int_equal(c.discovery_participant_ms, 200);
	assert_int_equal(c.discovery_publication_ms, 0);
	assert_int_equal(c.discovery_expire_ms, 1500);
	assert_true(c.discovery_unicast);
	assert_int_equal(c.discovery_max_subscriptions, 8);
	assert_false(c.announce_pack);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		config_init(&c);
		if (parse(&c, bad[i], &err) == 0)
			fail_msg("accepted: %s", bad[i]);
		assert_non_null(strstr(err.msg, "n.conf:1"));
	}
}

static void test_refusals(void **state)
{
	static const struct {
		const char *text;
		const char *want;
	} bad[] = {
	    {"net = maybe\n", "n.conf:1: net"},
	    {"\ninterface = eth0/x\n", "n.conf:2: interface"},
	    {"interface = abcdefghijklmnopq\n", "longer than 15"},
	    {"peer_endian_swap = 10.0.0.1\n", "not an IPv6 address"},
	    {"peer_pack = fe80::zz\n", "peer_pack: 'fe80::zz' is not an IPv6 address"},
	    {"max_frame = 8\n", "out of range"},
	    {"backend = a b\n", "not a name"},
	    {"net = on\n", "node_config"},
	    {"node_config = /x\nnode_config = /y\n", "n.conf:2: duplicate key"},
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
				   "peer_endian_swap = fe80::c0ef:1\nmax_frame = 200\npeer_pack = fe80::b\n";
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
	assert_int_equal(d.peer_endian_swap.n, 1);
	assert_memory_equal(d.peer_endian_swap.addr[0], c.peer_endian_swap.addr[0], 16);
	assert_int_equal(d.peer_pack.n, 1);
	assert_memory_equal(d.peer_pack.addr[0], c.peer_pack.addr[0], 16);
	assert_int_equal(d.max_frame, 200);
	free(buf);
}

/* A node config with discovery on and timers of 2 s and 7 s, as DIR/n.xml (dir is mkdtemp's template). */
static void write_disc_node(char *dir, char *path, size_t cap)
{
	static const char xml[] =
	    "<project name=\"t\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"fe80::1\" "
	    "iface=\"x\">\n"
	    "<topic name=\"a\" domain=\"1\" id=\"A\"><attribute name=\"v\" type=\"DDS_short\"/></topic>\n"
	    "<role topic=\"a\" type=\"publisher\"/>\n"
	    "<define name=\"FEATURE_SDDS_BUILTIN_TOPICS_ENABLED\"/>\n"
	    "<define name=\"FEATURE_SDDS_DISCOVERY_ENABLED\"/>\n"
	    "<define name=\"SDDS_BUILTIN_TOPIC_PARTICIPANT_TIMER\" value=\"2\"/>\n"
	    "<define name=\"SDDS_BUILTIN_TOPIC_PUBLICATION_TIMER\" value=\"7\"/>\n"
	    "</project>\n";
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, cap, "%s/n.xml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(xml, f);
	fclose(f);
}

/*
 * The node config's discovery defines configure the network as on a real
 * node; a daemon config key, when given, wins (docs/DESIGN.md).
 */
static void test_node_config_discovery(void **state)
{
	char dir[] = "/tmp/sddsnetdisc.XXXXXX", path[256], text[512];
	struct sddsd_config c;
	struct config_error err;
	struct netconf nc;
	char why[512];

	(void)state;
	write_disc_node(dir, path, sizeof(path));
	/* Nothing in the daemon config: the node's defines. */
	config_init(&c);
	snprintf(text, sizeof(text), "node_config = %s\n", path);
	assert_int_equal(parse(&c, text, &err), 0);
	if (netconf_load(&c, &nc, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_true(nc.o.disc.on);
	assert_int_equal(nc.o.disc.participant_ms, 2000);
	assert_int_equal(nc.o.disc.publication_ms, 7000);
	assert_int_equal(nc.o.disc.expire_ms, 10000); /* five participant periods */
	netconf_fini(&nc);
	/* The daemon config overrides each of them. */
	config_init(&c);
	snprintf(text, sizeof(text),
		 "node_config = %s\ndiscovery = off\ndiscovery_participant_ms = 300\n"
		 "discovery_publication_ms = 400\ndiscovery_expire_ms = 900\n",
		 path);
	assert_int_equal(parse(&c, text, &err), 0);
	if (netconf_load(&c, &nc, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_false(nc.o.disc.on);
	assert_int_equal(nc.o.disc.participant_ms, 300);
	assert_int_equal(nc.o.disc.publication_ms, 400);
	assert_int_equal(nc.o.disc.expire_ms, 900);
	netconf_fini(&nc);
	/* config_set (a command-line flag) counts as given too. */
	config_init(&c);
	snprintf(text, sizeof(text), "node_config = %s\n", path);
	assert_int_equal(parse(&c, text, &err), 0);
	assert_int_equal(config_set(&c, "--x", "discovery", "off", &err), 0);
	assert_true(config_given(&c, "discovery"));
	assert_false(config_given(&c, "max_frame"));
	if (netconf_load(&c, &nc, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_false(nc.o.disc.on);
	netconf_fini(&nc);
	unlink(path);
	rmdir(dir);
}

/*
 * Repeatable backend blocks: the interface lines after a `backend` line
 * belong to it, those before the first to the first; printed and parsed
 * again the same; netconf gives the network layer one backend per block.
 */
static void test_backend_blocks(void **state)
{
	static const char text[] = "interface = va\n"
				   "backend = socket\n"
				   "interface = vb\n"
				   "backend = socket\n"
				   "interface = vc\n"
				   "interface = vd\n";
	char dir[] = "/tmp/sddsnetbe.XXXXXX", path[256], full[512];
	struct sddsd_config c, d;
	struct config_error err;
	struct netconf nc;
	char why[512], *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	config_init(&c);
	if (parse(&c, text, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(c.n_backends, 2);
	assert_string_equal(c.backend, "socket");
	assert_int_equal(c.n_interfaces, 4);
	assert_int_equal(c.interface_backend[0], 0);
	assert_int_equal(c.interface_backend[1], 0);
	assert_int_equal(c.interface_backend[2], 1);
	assert_int_equal(c.interface_backend[3], 1);
	f = open_memstream(&buf, &len);
	config_print(&c, f);
	fclose(f);
	config_init(&d);
	if (config_parse_text(&d, "printed", buf, len, &err) < 0)
		fail_msg("%s\n%s", err.msg, buf);
	assert_int_equal(d.n_backends, 2);
	assert_int_equal(d.n_interfaces, 4);
	assert_memory_equal(d.interface_backend, c.interface_backend, 4);
	free(buf);
	/* Too many backends, and a block without interfaces. */
	config_init(&c);
	assert_int_equal(parse(&c,
			       "backend = socket\nbackend = socket\nbackend = socket\n"
			       "backend = socket\nbackend = socket\n",
			       &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "more than 4 backends"));
	/* One link named in two blocks: refused where the second one names it. */
	config_init(&c);
	assert_int_equal(
	    parse(&c, "interface = va\nbackend = socket\nbackend = socket\ninterface = va\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'va' already belongs to backend 1"));
	assert_non_null(strstr(err.msg, ":4:"));
	/* Named twice in its own block: one link. */
	config_init(&c);
	assert_int_equal(parse(&c, "interface = va\ninterface = va\n", &err), 0);
	assert_int_equal(c.n_interfaces, 1);
	write_disc_node(dir, path, sizeof(path));
	config_init(&c);
	snprintf(full, sizeof(full), "node_config = %s\n%s", path, text);
	assert_int_equal(parse(&c, full, &err), 0);
	if (netconf_load(&c, &nc, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_int_equal(nc.o.n_backends, 2);
	assert_int_equal(nc.o.backends[0].n_links, 2);
	assert_string_equal(nc.o.backends[0].links[1], "vb");
	assert_int_equal(nc.o.backends[1].n_links, 2);
	assert_string_equal(nc.o.backends[1].links[0], "vc");
	assert_int_equal(nc.o.n_links, 2); /* the single-backend view: the first block */
	netconf_fini(&nc);
	config_init(&c);
	snprintf(full, sizeof(full), "node_config = %s\nbackend = socket\ninterface = va\nbackend = socket\n",
		 path);
	assert_int_equal(parse(&c, full, &err), 0);
	assert_int_equal(netconf_load(&c, &nc, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "backend 2 of 2"));
	/* One block as before: the node config's iface when no interface line. */
	config_init(&c);
	snprintf(full, sizeof(full), "node_config = %s\nbackend = socket\n", path);
	assert_int_equal(parse(&c, full, &err), 0);
	if (netconf_load(&c, &nc, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_int_equal(nc.o.n_backends, 1);
	assert_string_equal(nc.o.backends[0].links[0], "x");
	netconf_fini(&nc);
	unlink(path);
	rmdir(dir);
}

/* The own stack's keys: mac, address, dad_transmits, pcap; one tap backend, at most 4 addresses. */
static void test_stack_keys(void **state)
{
	char dir[] = "/tmp/sddsnetst.XXXXXX", path[256], full[1024];
	struct sddsd_config c;
	struct config_error err;
	struct netconf nc;
	char why[512];
	struct in6_addr a;

	(void)state;
	config_init(&c);
	assert_int_equal(c.dad_transmits, 1);
	assert_false(c.mac.set);
	assert_int_equal(parse(&c, "mac = 02:00:5e:10:00:0A\n", &err), 0);
	assert_true(c.mac.set);
	assert_int_equal(c.mac.b[5], 0x0a);
	config_init(&c);
	assert_int_equal(parse(&c, "log_level = info\nmac = 02:00:5e:10:00\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, ":2:"));
	assert_non_null(strstr(err.msg, "not a MAC address"));
	config_init(&c);
	assert_int_equal(parse(&c, "mac = 03:00:5e:10:00:01\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "multicast"));
	config_init(&c);
	assert_int_equal(parse(&c, "mac = 02:00:5e:10:00:01x\n", &err), -EINVAL);
	config_init(&c);
	assert_int_equal(parse(&c, "dad_transmits = 11\n", &err), -EINVAL);
	write_disc_node(dir, path, sizeof(path));
	config_init(&c);
	snprintf(
	    full, sizeof(full),
	    "node_config = %s\nbackend = tap\ninterface = tp0\ninterface = tp1\nmac = 02:00:5e:10:00:01\n"
	    "address = fd00::10\naddress = fd00::11\ndad_transmits = 2\npcap = /tmp/x.pcap\n",
	    path);
	assert_int_equal(parse(&c, full, &err), 0);
	if (netconf_load(&c, &nc, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	assert_string_equal(nc.o.backends[0].ops->name, "tap");
	assert_int_equal(nc.o.backends[0].n_links, 2);
	assert_true(nc.o.stack.has_mac);
	assert_int_equal(nc.o.stack.mac[5], 0x01);
	assert_int_equal(nc.o.stack.dad_transmits, 2);
	assert_int_equal(nc.o.stack.n_addrs, 2);
	inet_pton(AF_INET6, "fd00::11", &a);
	assert_memory_equal(&nc.o.stack.addrs[1], &a, 16);
	assert_string_equal(nc.o.stack.pcap, "/tmp/x.pcap");
	netconf_fini(&nc);
	/* Two tap blocks would share one pcap and one MAC: refused. */
	config_init(&c);
	snprintf(full, sizeof(full),
		 "node_config = %s\nbackend = tap\ninterface = tp0\nbackend = tap\ninterface = tp1\n", path);
	assert_int_equal(parse(&c, full, &err), 0);
	assert_int_equal(netconf_load(&c, &nc, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "one own-stack backend at most"));
	/* A socket block beside the tap one is fine; a fifth address is not. */
	config_init(&c);
	snprintf(full, sizeof(full),
		 "node_config = %s\nbackend = socket\ninterface = va\nbackend = tap\ninterface = tp0\n"
		 "address = fd00::1\naddress = fd00::2\naddress = fd00::3\naddress = fd00::4\n",
		 path);
	assert_int_equal(parse(&c, full, &err), 0);
	if (netconf_load(&c, &nc, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	netconf_fini(&nc);
	assert_int_equal(parse(&c, "address = fd00::5\n", &err), 0);
	assert_int_equal(netconf_load(&c, &nc, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "at most 4"));
	unlink(path);
	rmdir(dir);
}

/* Run sddsd with args, its stderr into out; returns the exit status. */
static int run_sddsd(const char *args, char *out, size_t cap)
{
	char cmd[1024];
	FILE *p;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", sddsd_bin, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, cap - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* --check-config prints the discovery keys as they take effect, the node config's <define>s included. */
static void test_check_config_discovery(void **state)
{
	char dir[] = "/tmp/sddschkdisc.XXXXXX", path[256], args[512], out[16384];

	(void)state;
	write_disc_node(dir, path, sizeof(path));
	snprintf(args, sizeof(args), "--check-config --node-config %s", path);
	assert_int_equal(run_sddsd(args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "\ndiscovery = true\n"));
	assert_non_null(strstr(out, "\ndiscovery_participant_ms = 2000\n"));
	assert_non_null(strstr(out, "\ndiscovery_publication_ms = 7000\n"));
	assert_non_null(strstr(out, "\ndiscovery_expire_ms = 10000\n"));
	unlink(path);
	rmdir(dir);
}

static void test_daemon_start_errors(void **state)
{
	static const char bad_xml[] =
	    "<project name=\"t\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"fe80::1\" "
	    "iface=\"x\">\n"
	    "<topic name=\"a\" domain=\"1\" id=\"A\"><attribute name=\"v\" type=\"DDS_short\"/></topic>\n"
	    "<topic name=\"b\" domain=\"2\" id=\"A\"><attribute name=\"v\" type=\"DDS_short\"/></topic>\n"
	    "<role topic=\"a\" type=\"publisher\"/><role topic=\"b\" type=\"publisher\"/></project>\n";
	static const char good_xml[] =
	    "<project name=\"t\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"fe80::1\" "
	    "iface=\"sddsnone0\">\n"
	    "<topic name=\"a\" domain=\"1\" id=\"A\"><attribute name=\"v\" type=\"DDS_short\"/></topic>\n"
	    "<role topic=\"a\" type=\"publisher\"/></project>\n";
	char dir[] = "/tmp/sddsnetcfg.XXXXXX", path[256], args[768], out[4096];
	FILE *f;

	(void)state;
	if (sddsd_bin == NULL)
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/bad.xml", dir);
	f = fopen(path, "w");
	fputs(bad_xml, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/good.xml", dir);
	f = fopen(path, "w");
	fputs(good_xml, f);
	fclose(f);
	/* A broken node config is a configuration error, with FILE:LINE. */
	snprintf(args, sizeof(args), "--check-config --node-config %s/bad.xml --socket %s/s", dir, dir);
	assert_int_equal(run_sddsd(args, out, sizeof(out)), 1);
	if (strstr(out, "bad.xml:3: topic 'b' has the id 10") == NULL)
		fail_msg("%s", out);
	/* A node config whose interface does not exist stops the start. */
	snprintf(args, sizeof(args), "--node-config %s/good.xml --socket %s/s", dir, dir);
	assert_int_not_equal(run_sddsd(args, out, sizeof(out)), 0);
	if (strstr(out, "network: cannot open the socket backend on sddsnone0") == NULL)
		fail_msg("%s", out);
	/* net = on without a node config is refused before anything starts. */
	snprintf(path, sizeof(path), "%s/d.conf", dir);
	f = fopen(path, "w");
	fputs("net = on\n", f);
	fclose(f);
	snprintf(args, sizeof(args), "-c %s/d.conf --socket %s/s", dir, dir);
	assert_int_equal(run_sddsd(args, out, sizeof(out)), 1);
	assert_non_null(strstr(out, "net = on needs node_config"));
	snprintf(args, sizeof(args), "rm -rf '%s'", dir);
	assert_int_equal(system(args), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_check_config_discovery),
	    cmocka_unit_test(test_daemon_start_errors),
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_discovery_keys),
	    cmocka_unit_test(test_node_config_discovery),
	    cmocka_unit_test(test_print_round_trip),
	    cmocka_unit_test(test_backend_blocks),
	    cmocka_unit_test(test_stack_keys),
	};

	sddsd_bin = argc > 1 ? argv[1] : NULL;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
