/* SPDX-License-Identifier: MIT */
/*
 * test_netns_multi.c - one sddsd with two `socket` backends, each on its
 * own veth link, and a node on each link:
 *
 *     namespace B                          namespace A
 *     sddsd b + writer  [fe80::b] vmb ---- vma [fe80::a]   link 0, backend 0
 *     realnode [fe80::c]:23300    vmc ---- vmx [fe80::a]   link 1, backend 1
 *                                                          sddsd a + a reader
 *
 * Daemon a's config holds two backend blocks (`backend = socket` followed
 * by its `interface` line, twice) and `forward = on`; its node config has
 * static subscribers fe80::c%vmx port 23300 (the model of a real node,
 * tests/net/realnode.c, bound there) and fe80::b%vma (daemon b, on the
 * link the samples come in on). Daemon b publishes temperature to
 * fe80::a. Checked:
 *   - the samples a writer gives daemon b reach a's local reader (all, in
 *     order) and the node on a's other link (all taken), through the
 *     other backend; a counts them forwarded;
 *   - `sddsctl net --json` of a lists two backends, and the link ids are
 *     one sequence over both: vma 0 (backend 0), vmx 1 (backend 1);
 *   - daemon b, on the side of link 0 only, gets nothing back (a sample
 *     never goes back to the link it came from);
 *   - discovery on both backends: the model on link 1 announces itself
 *     there, and a sends to the group it subscribed with on that link.
 *
 * The two namespaces and the first veth pair are the shared fixture
 * (tests/common/netns_harness.h); the second pair is made here and goes
 * with the namespaces. Skips (77) when not root or when `ip netns add`
 * fails. argv: sddsd, sddsctl, net_helper, realnode.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netns_harness.h"

static const char *sddsd_bin, *sddsctl_bin, *helper_bin, *realnode_bin;

#define A 0
#define B 1
#define COUNT "200"

/* The second link, vmx in A and vmc in B, made under names unique to this process. */
static int link2_setup(void)
{
	int p = (int)getpid();

	if (netns_run("ip link add nxa%d type veth peer name nxb%d", p, p) != 0 ||
	    netns_run("ip link set nxa%d netns %s && ip link set nxb%d netns %s", p, netns.ns[A], p,
		      netns.ns[B]) != 0 ||
	    netns_run("ip -n %s link set nxa%d name vmx && ip -n %s link set nxb%d name vmc", netns.ns[A], p,
		      netns.ns[B], p) != 0)
		return -1;
	if (netns_run("ip netns exec %s sysctl -qw net.ipv6.conf.vmx.accept_dad=0", netns.ns[A]) != 0 ||
	    netns_run("ip netns exec %s sysctl -qw net.ipv6.conf.vmc.accept_dad=0", netns.ns[B]) != 0 ||
	    netns_run("ip -n %s addr add fe80::a/64 dev vmx nodad && ip -n %s link set vmx up", netns.ns[A],
		      netns.ns[A]) != 0 ||
	    netns_run("ip -n %s addr add fe80::c/64 dev vmc nodad && ip -n %s link set vmc up", netns.ns[B],
		      netns.ns[B]) != 0)
		return -1;
	return 0;
}

static int write_configs(void)
{
	static const char node_a[] =
	    "<project name=\"a\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"fe80::a\" "
	    "port=\"23234\">\n"
	    "  <include filename=\"topics.xml\"/>\n"
	    "  <role topic=\"temperature\" type=\"subscriber\"/>\n"
	    "  <subscription topic=\"temperature\"><subscriber ip=\"fe80::c%vmx\" port=\"23300\"/>"
	    "<subscriber ip=\"fe80::b%vma\"/></subscription>\n"
	    "</project>\n";
	static const char node_b[] =
	    "<project name=\"b\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"fe80::b\" "
	    "iface=\"vmb\" port=\"23234\">\n"
	    "  <include filename=\"topics.xml\"/>\n"
	    "  <role topic=\"temperature\" type=\"publisher\"/>\n"
	    "  <subscription topic=\"temperature\"><subscriber ip=\"fe80::a\"/></subscription>\n"
	    "</project>\n";

	if (netns_write_topics(NULL, NULL) < 0)
		return -1;
	if (netns_write_configs(A, node_a,
				"backend = socket\ninterface = vma\n"
				"backend = socket\ninterface = vmx\n"
				"forward = on\n") < 0)
		return -1;
	return netns_write_configs(B, node_b, NULL);
}

static int group_setup(void **state)
{
	(void)state;
	if (netns_pair_setup("mb", "vma", "vmb") < 0 || link2_setup() < 0)
		return -1;
	if (write_configs() < 0)
		return -1;
	return netns_daemons_start(sddsd_bin);
}

/* The object member key of o, or fail. */
static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (o == NULL || !json_object_object_get_ex(o, key, &v))
		fail_msg("no member %s", key);
	return v;
}

static void test_link_ids_one_sequence(void **state)
{
	static char buf[65536];
	static const char *const names[2] = {"vma", "vmx"};
	json_object *root, *bes;

	(void)state;
	assert_int_equal(netns_ctl_json(A, sddsctl_bin, "net", buf, sizeof(buf)), 0);
	root = json_tokener_parse(buf);
	if (root == NULL)
		fail_msg("sddsctl net --json does not parse:\n%s", buf);
	bes = member(member(root, "net"), "backends");
	if (json_object_array_length(bes) != 2)
		fail_msg("want two backends:\n%s", buf);
	for (size_t k = 0; k < 2; k++) {
		json_object *be = json_object_array_get_idx(bes, k);
		json_object *links = member(be, "links");
		json_object *l;

		assert_string_equal(json_object_get_string(member(be, "name")), "socket");
		if (json_object_array_length(links) != 1)
			fail_msg("backend %zu: want one link:\n%s", k, buf);
		l = json_object_array_get_idx(links, 0);
		/* One sequence over both backends: the second backend's first link is 1, its own 0. */
		assert_int_equal(json_object_get_int64(member(l, "id")), (int64_t)k);
		assert_int_equal(json_object_get_int64(member(l, "local")), 0);
		assert_string_equal(json_object_get_string(member(l, "name")), names[k]);
	}
	json_object_put(root);
}

static void test_link0_to_link1_and_local(void **state)
{
	char sa[128], sb[128];
	uint64_t fwd0, b_in0;
	pid_t rn, rd, w;

	(void)state;
	netns_path("a.sock", sa, sizeof(sa));
	netns_path("b.sock", sb, sizeof(sb));
	fwd0 = netns_net_counter(A, sddsctl_bin, "forwarded");
	b_in0 = netns_net_counter(B, sddsctl_bin, "samples_in");
	/* The node on link 1 (bound to [::]:23300 in B, reached only through vmx), a's local reader. */
	rn = netns_helper(B, true, realnode_bin, "23300", COUNT, "8000", NULL);
	assert_true(rn > 0);
	rd = netns_helper(A, true, helper_bin, "read", sa, "temperature", COUNT, "8000", NULL);
	assert_true(rd > 0);
	/* The node on link 0: daemon b and a writer. */
	w = netns_helper(B, false, helper_bin, "write", sb, "temperature", COUNT, NULL);
	assert_int_equal(netns_wait(w), 0);
	assert_int_equal(netns_wait(rd), 0);
	assert_int_equal(netns_wait(rn), 0);
	assert_int_equal(netns_net_counter(A, sddsctl_bin, "forwarded") - fwd0, strtoull(COUNT, NULL, 10));
	/* Nothing came back to link 0. */
	assert_int_equal(netns_net_counter(B, sddsctl_bin, "samples_in") - b_in0, 0);
}

/*
 * Discovery over the second backend: a alone, discovery on, publishing
 * temperature; the model on link 1 takes part in discovery on vmc (its
 * Participant, a subscription naming ff02::10 in answer to a's
 * Publications). a learns the subscription on link id 1 and sends a
 * local writer's samples to ff02::10 there, through backend 1.
 */
static void test_discovery_on_link1(void **state)
{
	static const char node_a[] =
	    "<project name=\"a\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"fe80::a\" "
	    "port=\"23234\">\n"
	    "  <include filename=\"topics.xml\"/>\n"
	    "  <role topic=\"temperature\" type=\"publisher\"/>\n"
	    "</project>\n";
	static char buf[65536];
	int64_t end = netns_now_ms() + 5000;
	json_object *root, *peers;
	bool on_link1 = false;
	char sa[128];
	pid_t rn, w;

	(void)state;
	netns_daemon_stop(A);
	netns_daemon_stop(B); /* the model binds [::]:23234 in B */
	assert_int_equal(netns_write_configs(A, node_a,
					     "backend = socket\ninterface = vma\n"
					     "backend = socket\ninterface = vmx\n"
					     "discovery = on\ndiscovery_participant_ms = 200\n"
					     "discovery_publication_ms = 200\ndiscovery_expire_ms = 5000\n"),
			 0);
	assert_int_equal(netns_daemon_start(A, sddsd_bin, NULL), 0);
	rn = netns_helper(B, true, realnode_bin, "23234", "20", "8000", "20", "vmc", NULL);
	assert_true(rn > 0);
	while (netns_ctl_json(A, sddsctl_bin, "peers", buf, sizeof(buf)) != 0 ||
	       !netns_json_has(buf, "address", "ff02::10")) {
		if (netns_now_ms() > end)
			fail_msg("A did not learn the model's subscription:\n%s", buf);
		usleep(50000);
	}
	/* The learnt destination is on the second backend's link. */
	root = json_tokener_parse(buf);
	assert_non_null(root);
	peers = member(root, "peers");
	for (size_t i = 0; i < json_object_array_length(peers); i++) {
		json_object *p = json_object_array_get_idx(peers, i);

		if (strcmp(json_object_get_string(member(p, "address")), "ff02::10") == 0 &&
		    strcmp(json_object_get_string(member(p, "iface")), "vmx") == 0)
			on_link1 = true;
	}
	json_object_put(root);
	if (!on_link1)
		fail_msg("ff02::10 is not on vmx:\n%s", buf);
	netns_path("a.sock", sa, sizeof(sa));
	w = netns_helper(A, false, helper_bin, "pairs", sa, "10", "20", NULL);
	assert_int_equal(netns_wait(w), 0);
	assert_int_equal(netns_wait(rn), 0);
	assert_int_equal(netns_ctl_json(A, sddsctl_bin, "peers", buf, sizeof(buf)), 0);
	assert_int_equal(netns_json_peer_u64(buf, "ff02::10", "samples_out"), 20);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_link_ids_one_sequence),
	    cmocka_unit_test(test_link0_to_link1_and_local),
	    cmocka_unit_test(test_discovery_on_link1),
	};
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: %s SDDSD SDDSCTL NET_HELPER REALNODE\n", argv[0]);
		return 2;
	}
	sddsd_bin = argv[1];
	sddsctl_bin = argv[2];
	helper_bin = argv[3];
	realnode_bin = argv[4];
	rc = netns_available("test_netns_multi");
	if (rc != 0)
		return rc;
	return cmocka_run_group_tests(tests, group_setup, netns_group_teardown);
}
