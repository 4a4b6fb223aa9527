/* SPDX-License-Identifier: MIT */
/*
 * test_sddsctl.c - `sddsctl --json` against a fake daemon: the strings a
 * daemon sends (client and topic names, identities, addresses, interfaces,
 * drop reasons) with quotes, backslashes, '/', newlines, control
 * characters, UTF-8 and bytes that are not UTF-8 come out as JSON that
 * json-c parses back, strictly and with UTF-8 checked, to the same text
 * (a byte that is not UTF-8 as U+FFFD); members keep their names and order;
 * each view prints its own members; "net" is null when the network is off.
 *
 * OVERVIEW
 * The fake daemon is this process: it listens on a private socket, runs
 * sddsctl as a child with stdout to a file, answers its Hello and its
 * StatsQuery (ipc/ctl.h) with a Stats the test built, and reads the file
 * once sddsctl exited. The real daemon would replace such bytes in names
 * with '?' (daemon/session.c); sddsctl must not rely on that.
 *
 * Usage: test_sddsctl PATH_TO_SDDSCTL
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "ctl.h"

static const char *sddsctl_path;

/* A name with everything a JSON writer must escape or check. */
#define AWKWARD_NAME                                                                                         \
	"q\"uote\\back/slash\nnew\ttab\x01\x1f e\xcc\x81 \xe2\x98\x83 \xf0\x9f\x98\x80 bad\xff end"
/* The same as JSON gives it back: the 0xff byte is U+FFFD. */
#define AWKWARD_BACK                                                                                         \
	"q\"uote\\back/slash\nnew\ttab\x01\x1f e\xcc\x81 \xe2\x98\x83 \xf0\x9f\x98\x80 bad\xef\xbf\xbd end"

/* ---------------- the fake daemon ---------------------------------------- */

struct fake {
	char dir[32];
	char sock[64];
	char out[64];
	int lfd;
};

static void fake_open(struct fake *f)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_sddsctl.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->sock, sizeof(f->sock), "%s/s.sock", f->dir);
	snprintf(f->out, sizeof(f->out), "%s/out.json", f->dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->sock);
	f->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	assert_true(f->lfd >= 0);
	assert_int_equal(bind(f->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(f->lfd, 1), 0);
}

static void fake_close(struct fake *f)
{
	close(f->lfd);
	unlink(f->sock);
	unlink(f->out);
	rmdir(f->dir);
}

/* Receive one request (5 s at most) and answer it with rep, its id set here. */
static void fake_answer(int fd, Sdds__Ctl__Reply *rep, Sdds__Ctl__Request__BodyCase want)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	Sdds__Ctl__Request *req = NULL;
	int fds[4];
	size_t n_fds = 0;

	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_int_equal(ctl_recv_request(fd, &req, fds, 4, &n_fds), 0);
	assert_int_equal(n_fds, 0);
	assert_int_equal(req->body_case, want);
	rep->id = req->id;
	sdds__ctl__request__free_unpacked(req, NULL);
	assert_int_equal(ctl_send_reply(fd, rep, NULL, 0), 0);
}

/*
 * Run `sddsctl --json --socket SOCK view`, serve it st, and return what it
 * printed, parsed strictly with UTF-8 checked (caller puts it). Fails the
 * test when sddsctl does not exit with 0 or its output does not parse.
 */
/* Runs `sddsctl [--json] VIEW` against the fake answering st; its output into text (cap bytes). */
static size_t run_sddsctl_text(struct fake *f, bool json, const char *view, Sdds__Ctl__Stats *st, char *text,
			       size_t cap)
{
	Sdds__Ctl__Reply hello = SDDS__CTL__REPLY__INIT, stats = SDDS__CTL__REPLY__INIT;
	struct pollfd p = {.fd = f->lfd, .events = POLLIN};
	size_t len;
	FILE *out;
	pid_t pid;
	int fd, status;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int o = open(f->out, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || dup2(o, STDOUT_FILENO) < 0)
			_exit(127);
		if (json)
			execl(sddsctl_path, sddsctl_path, "--json", "--socket", f->sock, view, (char *)NULL);
		else
			execl(sddsctl_path, sddsctl_path, "--socket", f->sock, view, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(poll(&p, 1, 5000), 1);
	fd = accept4(f->lfd, NULL, NULL, SOCK_CLOEXEC);
	assert_true(fd >= 0);
	fake_answer(fd, &hello, SDDS__CTL__REQUEST__BODY_HELLO);
	stats.body_case = SDDS__CTL__REPLY__BODY_STATS;
	stats.stats = st;
	fake_answer(fd, &stats, SDDS__CTL__REQUEST__BODY_STATS);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(fd);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	out = fopen(f->out, "r");
	assert_non_null(out);
	len = fread(text, 1, cap - 1, out);
	fclose(out);
	assert_true(len > 0 && len < cap - 1);
	text[len] = '\0';
	return len;
}

static struct json_object *run_sddsctl(struct fake *f, const char *view, Sdds__Ctl__Stats *st)
{
	struct json_tokener *tok;
	struct json_object *doc;
	char text[65536];
	size_t len;

	len = run_sddsctl_text(f, true, view, st, text, sizeof(text));
	tok = json_tokener_new();
	assert_non_null(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	doc = json_tokener_parse_ex(tok, text, (int)len);
	if (doc == NULL || json_tokener_get_error(tok) != json_tokener_success)
		fail_msg("sddsctl --json %s: not JSON (%s):\n%s", view,
			 json_tokener_error_desc(json_tokener_get_error(tok)), text);
	/* Nothing after the object but the newline (the tokener may take it). */
	assert_true(json_tokener_get_parse_end(tok) >= len - 1);
	assert_int_equal(text[len - 1], '\n');
	json_tokener_free(tok);
	return doc;
}

/* ---------------- checks -------------------------------------------------- */

/* o's member names, in order, are exactly the NULL-terminated list. */
static void assert_keys(struct json_object *o, const char *const *want)
{
	size_t i = 0;

	assert_true(json_object_is_type(o, json_type_object));
	json_object_object_foreach(o, k, v)
	{
		(void)v;
		if (want[i] == NULL)
			fail_msg("extra member %s", k);
		assert_string_equal(k, want[i]);
		i++;
	}
	if (want[i] != NULL)
		fail_msg("member %s missing", want[i]);
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no member %s", key);
	return v;
}

static struct json_object *element(struct json_object *o, const char *key, size_t i)
{
	struct json_object *a = member(o, key);

	assert_true(json_object_is_type(a, json_type_array));
	assert_true(i < json_object_array_length(a));
	return json_object_array_get_idx(a, i);
}

static const char *text_of(struct json_object *o, const char *key)
{
	struct json_object *v = member(o, key);

	assert_true(json_object_is_type(v, json_type_string));
	return json_object_get_string(v);
}

static int64_t int_of(struct json_object *o, const char *key)
{
	struct json_object *v = member(o, key);

	assert_true(json_object_is_type(v, json_type_int));
	return json_object_get_int64(v);
}

/* ---------------- the stats a daemon might send ---------------------------- */

struct fixture {
	Sdds__Ctl__Stats st;
	Sdds__Ctl__ClientInfo client, *clients[1];
	Sdds__Ctl__TopicInfo topic, *topics[1];
	Sdds__Ctl__EndpointInfo reader, writer, *endpoints[2];
	Sdds__Ctl__Denial denial, *denials[1];
	Sdds__Ctl__Counters counters;
	Sdds__Ctl__NetStats net;
	Sdds__Ctl__NetDrop drop, *drops[1];
	Sdds__Ctl__PeerInfo peer, *peers[1];
	Sdds__Ctl__Admission adm;
	Sdds__Ctl__UidAdmission uid, *uids[1];
	char *interfaces[1];
	uint32_t topics_in[2];
};

static void fixture_init(struct fixture *x, bool with_net)
{
	memset(x, 0, sizeof(*x));
	sdds__ctl__stats__init(&x->st);
	x->st.epoch = 0xdeadbeef;
	x->st.uptime_ms = 12345;
	x->st.sessions_total = 18446744073709551615ull;

	sdds__ctl__counters__init(&x->counters);
	x->counters.written = 10;
	x->counters.delivered = 9;

	sdds__ctl__client_info__init(&x->client);
	x->client.session_id = 7;
	x->client.pid = -1;
	x->client.uid = 4294967295u;
	x->client.name = AWKWARD_NAME;
	x->client.writers = 1;
	x->client.counters = &x->counters;
	x->client.identity = "id \"x\"";
	x->client.denied = 3;
	x->clients[0] = &x->client;
	x->st.n_clients = 1;
	x->st.clients = x->clients;

	sdds__ctl__topic_info__init(&x->topic);
	x->topic.domain = 1;
	x->topic.topic_id = 2;
	x->topic.name = AWKWARD_NAME;
	x->topic.sample_size = 8;
	x->topics[0] = &x->topic;
	x->st.n_topics = 1;
	x->st.topics = x->topics;

	sdds__ctl__endpoint_info__init(&x->reader);
	x->reader.id = 1;
	x->reader.reader = true;
	x->reader.reliability = SDDS__CTL__RELIABILITY__RELIABLE;
	sdds__ctl__endpoint_info__init(&x->writer);
	x->writer.id = 2;
	x->endpoints[0] = &x->reader;
	x->endpoints[1] = &x->writer;
	x->st.n_endpoints = 2;
	x->st.endpoints = x->endpoints;

	sdds__ctl__denial__init(&x->denial);
	x->denial.identity = AWKWARD_NAME;
	x->denial.reader = true;
	x->denials[0] = &x->denial;
	x->st.policy_loaded = true;
	x->st.n_denials = 1;
	x->st.denials = x->denials;

	sdds__ctl__admission__init(&x->adm);
	x->adm.max_clients = 256;
	x->adm.max_clients_per_uid = 64;
	x->adm.max_handshakes_per_uid = 8;
	x->adm.dropped = 18446744073709551615ull;
	sdds__ctl__uid_admission__init(&x->uid);
	x->uid.uid = 65534;
	x->uid.pending = 8;
	x->uid.dropped = 26724;
	x->uid.hello_refused = 3;
	x->uids[0] = &x->uid;
	x->adm.n_uids = 1;
	x->adm.uids = x->uids;
	x->st.admission = &x->adm;

	if (!with_net)
		return;
	sdds__ctl__net_stats__init(&x->net);
	x->net.backend = "socket";
	x->interfaces[0] = "ve\"th\\0";
	x->net.n_interfaces = 1;
	x->net.interfaces = x->interfaces;
	sdds__ctl__net_drop__init(&x->drop);
	x->drop.reason = "bad \"reason\"\n\xfe";
	x->drop.count = 5;
	x->drops[0] = &x->drop;
	x->net.n_drops = 1;
	x->net.drops = x->drops;
	sdds__ctl__peer_info__init(&x->peer);
	x->peer.address = "fe80::1";
	x->peer.iface = "cut\xe2\x98";
	x->topics_in[0] = 1;
	x->topics_in[1] = 4294967295u;
	x->peer.n_topics_in = 2;
	x->peer.topics_in = x->topics_in;
	x->peers[0] = &x->peer;
	x->net.n_peers = 1;
	x->net.peers = x->peers;
	x->st.net = &x->net;
}

/* ---------------- tests -------------------------------------------------- */

/* `stats`: every section, in order; the awkward strings come back as sent. */
static void test_stats_awkward_strings(void **state)
{
	static const char *const top[] = {"epoch",     "uptime_ms", "totals", "clients",
					  "topics",    "endpoints", "policy", "denials",
					  "admission", "net",	    "peers",  NULL};
	static const char *const adm[] = {"limits",  "pending",	      "sessions", "dropped",
					  "refused", "hello_refused", "uids",	  NULL};
	static const char *const uid[] = {"uid",     "trusted", "pending",	 "sessions",
					  "dropped", "refused", "hello_refused", NULL};
	static const char *const client[] = {"session_id", "pid",     "uid",	 "gid",
					     "name",	   "readers", "writers", "counters",
					     "identity",   "denied",  NULL};
	static const char *const counters[] = {"written", "delivered", "dropped", "rejected", NULL};
	struct fixture x;
	struct fake f;
	struct json_object *doc, *c, *net, *drops, *peer;

	(void)state;
	fixture_init(&x, true);
	fake_open(&f);
	doc = run_sddsctl(&f, "stats", &x.st);
	assert_keys(doc, top);
	assert_string_equal(text_of(doc, "epoch"), "00000000deadbeef");
	assert_int_equal(int_of(doc, "uptime_ms"), 12345);
	assert_int_equal(json_object_get_uint64(member(member(doc, "totals"), "sessions_total")),
			 18446744073709551615ull);
	c = element(doc, "clients", 0);
	assert_keys(c, client);
	assert_keys(member(c, "counters"), counters);
	assert_string_equal(text_of(c, "name"), AWKWARD_BACK);
	assert_string_equal(text_of(c, "identity"), "id \"x\"");
	assert_int_equal(int_of(c, "pid"), -1);
	assert_int_equal(int_of(c, "uid"), 4294967295u);
	assert_int_equal(int_of(member(c, "counters"), "written"), 10);
	assert_string_equal(text_of(element(doc, "topics", 0), "name"), AWKWARD_BACK);
	assert_string_equal(text_of(element(doc, "endpoints", 0), "reliability"), "reliable");
	assert_string_equal(text_of(element(doc, "endpoints", 1), "kind"), "writer");
	assert_true(json_object_get_boolean(member(member(doc, "policy"), "loaded")));
	assert_string_equal(text_of(element(doc, "denials", 0), "identity"), AWKWARD_BACK);
	assert_keys(member(doc, "admission"), adm);
	assert_int_equal(int_of(member(member(doc, "admission"), "limits"), "max_clients_per_uid"), 64);
	assert_int_equal(json_object_get_uint64(member(member(doc, "admission"), "dropped")),
			 18446744073709551615ull);
	assert_keys(element(member(doc, "admission"), "uids", 0), uid);
	assert_int_equal(int_of(element(member(doc, "admission"), "uids", 0), "uid"), 65534);
	assert_int_equal(int_of(element(member(doc, "admission"), "uids", 0), "dropped"), 26724);
	assert_false(
	    json_object_get_boolean(member(element(member(doc, "admission"), "uids", 0), "trusted")));

	net = member(doc, "net");
	assert_string_equal(json_object_get_string(element(net, "interfaces", 0)), "ve\"th\\0");
	drops = member(net, "drops");
	assert_int_equal(json_object_object_length(drops), 1);
	assert_int_equal(int_of(drops, "bad \"reason\"\n\xef\xbf\xbd"), 5);
	assert_true(json_object_is_type(member(net, "discovery"), json_type_null));
	peer = element(doc, "peers", 0);
	assert_string_equal(text_of(peer, "iface"), "cut\xef\xbf\xbd\xef\xbf\xbd");
	assert_int_equal(json_object_get_uint64(element(peer, "topics_in", 1)), 4294967295u);
	assert_int_equal(json_object_array_length(member(peer, "topics_out")), 0);
	json_object_put(doc);
	fake_close(&f);
}

/* Each view prints its own section only; no network: net is null, no peers. */
static void test_views(void **state)
{
	static const struct {
		const char *view;
		const char *keys[3];
		size_t n; /* elements of the first member when it is an array */
	} views[] = {
	    {"clients", {"clients", NULL}, 1},	   {"topics", {"topics", NULL}, 1},
	    {"readers", {"readers", NULL}, 1},	   {"writers", {"writers", NULL}, 1},
	    {"endpoints", {"endpoints", NULL}, 2}, {"denials", {"policy", "denials", NULL}, 0},
	    {"peers", {"peers", NULL}, 0},	   {"net", {"net", NULL}, 0},
	    {"admission", {"admission", NULL}, 0},
	};
	struct fixture x;
	struct fake f;

	(void)state;
	fixture_init(&x, false);
	fake_open(&f);
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		struct json_object *doc = run_sddsctl(&f, views[i].view, &x.st), *first;

		assert_keys(doc, views[i].keys);
		first = member(doc, views[i].keys[0]);
		if (strcmp(views[i].view, "net") == 0)
			assert_true(json_object_is_type(first, json_type_null));
		else if (json_object_is_type(first, json_type_array))
			assert_int_equal(json_object_array_length(first), views[i].n);
		json_object_put(doc);
	}
	fake_close(&f);
}

/* The line of `sddsctl peers` that starts with addr, or fail. */
static void peer_line(const char *text, const char *addr, char *line, size_t cap)
{
	const char *p = text;

	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, '\n');
		size_t n = end != NULL ? (size_t)(end - p) : strlen(p);

		if (strncmp(p, addr, strlen(addr)) == 0 && p[strlen(addr)] == ' ' && n < cap) {
			memcpy(line, p, n);
			line[n] = '\0';
			return;
		}
		p = end != NULL ? end + 1 : NULL;
	}
	fail_msg("no line for %s in:\n%s", addr, text);
}

/*
 * `sddsctl peers` as text: PORT is the port the peer was last heard from
 * (a real node's ephemeral or multicast source port, not the 23234 it is
 * answered at), DEST where its data goes, PACK whether several samples
 * share a frame to it (cfg, ann, -); a group destination is "group", not a
 * peer "never" seen.
 */
static void test_peers_text(void **state)
{
	Sdds__Ctl__PeerInfo heard, group, *peers[3];
	char text[16384], line[512];
	char w[10][64];
	struct fixture x;
	struct fake f;

	(void)state;
	fixture_init(&x, true);
	x.peer.port = 23234;
	x.peer.is_static = true;
	heard = x.peer;
	heard.address = "fe80::c0ef:62ff:fed4:d26a";
	heard.iface = "veth0";
	heard.seen = true;
	heard.last_seen_ms = 1500;
	heard.last_port = 37327;
	heard.is_static = false;
	heard.pack = "announced";
	group = x.peer;
	group.address = "ff02::10";
	group.iface = "veth0";
	group.port = 23254;
	group.is_static = true;
	peers[0] = &x.peer;
	peers[1] = &heard;
	peers[2] = &group;
	x.net.peers = peers;
	x.net.n_peers = 3;
	fake_open(&f);
	run_sddsctl_text(&f, false, "peers", &x.st, text, sizeof(text));
	fake_close(&f);

	/* ADDRESS IFACE PORT DEST KIND PACK LAST-SEEN ... */
	peer_line(text, "fe80::c0ef:62ff:fed4:d26a", line, sizeof(line));
	assert_int_equal(
	    sscanf(line, "%63s %63s %63s %63s %63s %63s %63s", w[0], w[1], w[2], w[3], w[4], w[5], w[6]), 7);
	assert_string_equal(w[2], "37327");
	assert_string_equal(w[3], "23234");
	assert_string_equal(w[4], "heard");
	assert_string_equal(w[5], "ann");
	assert_string_equal(w[6], "1.5s");
	peer_line(text, "ff02::10", line, sizeof(line));
	assert_int_equal(
	    sscanf(line, "%63s %63s %63s %63s %63s %63s %63s", w[0], w[1], w[2], w[3], w[4], w[5], w[6]), 7);
	assert_string_equal(w[2], "-");
	assert_string_equal(w[3], "23254");
	assert_string_equal(w[4], "group");
	assert_string_equal(w[5], "-");
	assert_string_equal(w[6], "-");
	peer_line(text, "fe80::1", line, sizeof(line));
	assert_int_equal(
	    sscanf(line, "%63s %63s %63s %63s %63s %63s %63s", w[0], w[1], w[2], w[3], w[4], w[5], w[6]), 7);
	assert_string_equal(w[2], "-");
	assert_string_equal(w[4], "static");
	assert_string_equal(w[5], "-");
	assert_string_equal(w[6], "never");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stats_awkward_strings),
	    cmocka_unit_test(test_views),
	    cmocka_unit_test(test_peers_text),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH_TO_SDDSCTL\n", argv[0]);
		return 2;
	}
	sddsctl_path = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
