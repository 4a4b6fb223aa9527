/* SPDX-License-Identifier: MIT */
/*
 * sddsctl - show what sddsd is doing: clients, topics, endpoints, totals.
 *
 * OVERVIEW
 * Connects like a client (Hello), closes the segment and eventfd the
 * daemon hands every client without mapping them, asks StatsQuery once and
 * prints the answer as tables or, with --json, as one JSON object. Stats are
 * only for root and the daemon's own uid; others get "permission denied".
 * Every receive has a timeout, so a stuck daemon cannot hang the tool.
 * Strings from the daemon have non-printable bytes replaced in tables; the
 * JSON is built with json-c (tools/json), which escapes them and replaces
 * bytes that are not UTF-8, so any daemon's answer prints as valid JSON.
 *
 * Exit status: 0 success, 1 usage error, 2 cannot connect or the daemon
 * refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <unistd.h>

#include "ctl.h"
#include "json.h"
#include "layout.h"

#define SDDSCTL_TIMEOUT_S 5

enum sddsctl_view {
	VIEW_CLIENTS,
	VIEW_TOPICS,
	VIEW_READERS,
	VIEW_WRITERS,
	VIEW_ENDPOINTS,
	VIEW_STATS,
	VIEW_DENIALS,
	VIEW_PEERS,
	VIEW_NET,
	VIEW_STACK,
	VIEW_ADMISSION
};

static const struct {
	const char *name;
	enum sddsctl_view view;
} sddsctl_views[] = {
    {"clients", VIEW_CLIENTS}, {"topics", VIEW_TOPICS},	      {"readers", VIEW_READERS},
    {"writers", VIEW_WRITERS}, {"endpoints", VIEW_ENDPOINTS}, {"stats", VIEW_STATS},
    {"denials", VIEW_DENIALS}, {"peers", VIEW_PEERS},	      {"net", VIEW_NET},
    {"stack", VIEW_STACK},     {"admission", VIEW_ADMISSION},
};

static void usage(FILE *f)
{
	fputs("Usage: sddsctl COMMAND [--json] [--socket PATH]\n"
	      "Show the state of sddsd.\n"
	      "\n"
	      "Commands:\n"
	      "  clients     connected applications: session, pid, uid, name, endpoints, counters\n"
	      "  topics      topics: domain, id, name, sample size, readers, writers, counters\n"
	      "  readers     data readers\n"
	      "  writers     data writers\n"
	      "  endpoints   readers and writers\n"
	      "  stats       totals, then all of the above\n"
	      "  denials     access policy: counters and the newest refused requests\n"
	      "  peers       SNPS peers: address, interface, last seen, topics, per-peer counters\n"
	      "  net         network counters: frames and samples in/out, drops by reason\n"
	      "  stack       the own IPv6 stack of each tap link: MAC, addresses and their DAD\n"
	      "              state, neighbor cache, joined groups, counters, drops by reason\n"
	      "  admission   caps per uid, and per uid: connections without Hello, sessions,\n"
	      "              connections dropped or refused, Hellos refused\n"
	      "\n"
	      "Options:\n"
	      "  -j, --json          print one JSON object instead of tables\n"
	      "  -s, --socket PATH   the daemon's control socket (default: $SDDS_SOCKET or\n"
	      "                      the per-user / system default path)\n"
	      "  -h, --help          show this help\n",
	      f);
}

/* ---------------- talking to the daemon ----------------------------------- */

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
}

/* Receive the reply to request id; fds it carries are closed. 0 or -errno. */
static int sddsctl_recv(int fd, uint32_t id, Sdds__Ctl__Reply **ret)
{
	int fds[CTL_MAX_FDS];
	size_t n_fds = 0;
	Sdds__Ctl__Reply *rep = NULL;
	int rc;

	rc = ctl_recv_reply(fd, &rep, fds, CTL_MAX_FDS, &n_fds);
	if (rc < 0)
		return rc;
	/* sddsctl never maps the segment: drop the memfd and eventfd at once. */
	close_fds(fds, n_fds);
	if (rep->id != id) {
		sdds__ctl__reply__free_unpacked(rep, NULL);
		return -EPROTO;
	}
	*ret = rep;
	return 0;
}

/*
 * Connect, Hello, StatsQuery. On success *ret is the Stats reply (caller
 * frees with sdds__ctl__reply__free_unpacked). On failure prints why.
 */
static int sddsctl_query(const char *path, Sdds__Ctl__Reply **ret)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = SDDSCTL_TIMEOUT_S};
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Hello hello = SDDS__CTL__HELLO__INIT;
	Sdds__Ctl__StatsQuery sq = SDDS__CTL__STATS_QUERY__INIT;
	Sdds__Ctl__Reply *rep = NULL;
	int fd, rc;

	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path) >= (int)sizeof(sa.sun_path)) {
		fprintf(stderr, "sddsctl: socket path too long: %s\n", path);
		return -ENAMETOOLONG;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		fprintf(stderr, "sddsctl: socket: %s\n", strerror(errno));
		return rc;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		fprintf(stderr, "sddsctl: cannot connect to %s: %s\n", path, strerror(errno));
		goto out_close;
	}

	hello.protocol_version = CTL_PROTOCOL_VERSION;
	hello.layout_version = SDDS_LAYOUT_VERSION;
	hello.name = "sddsctl";
	req.id = 1;
	req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
	req.hello = &hello;
	rc = ctl_send_request(fd, &req, NULL, 0);
	if (rc == 0)
		rc = sddsctl_recv(fd, 1, &rep);
	if (rc < 0) {
		fprintf(stderr, "sddsctl: handshake with %s failed: %s\n", path, strerror(-rc));
		goto out_close;
	}
	if (rep->status != 0) {
		rc = rep->status < 0 ? rep->status : -EPROTO;
		fprintf(stderr, "sddsctl: the daemon refused the connection: %s\n",
			rep->reason && rep->reason[0] ? rep->reason : strerror(-rc));
		sdds__ctl__reply__free_unpacked(rep, NULL);
		goto out_close;
	}
	sdds__ctl__reply__free_unpacked(rep, NULL);
	rep = NULL;

	req = (Sdds__Ctl__Request)SDDS__CTL__REQUEST__INIT;
	req.id = 2;
	req.body_case = SDDS__CTL__REQUEST__BODY_STATS;
	req.stats = &sq;
	rc = ctl_send_request(fd, &req, NULL, 0);
	if (rc == 0)
		rc = sddsctl_recv(fd, 2, &rep);
	if (rc < 0) {
		fprintf(stderr, "sddsctl: stats query failed: %s\n", strerror(-rc));
		goto out_close;
	}
	if (rep->status != 0 || rep->body_case != SDDS__CTL__REPLY__BODY_STATS || rep->stats == NULL) {
		rc = rep->status < 0 ? rep->status : -EPROTO;
		fprintf(stderr, "sddsctl: %s%s%s\n", rc == -EACCES ? "permission denied: " : "",
			rep->reason && rep->reason[0] ? rep->reason : strerror(-rc), "");
		sdds__ctl__reply__free_unpacked(rep, NULL);
		goto out_close;
	}
	if (rep->reason != NULL && rep->reason[0] != '\0')
		fprintf(stderr, "sddsctl: note: %s\n", rep->reason);
	*ret = rep;
	rc = 0;
out_close:
	close(fd);
	return rc;
}

/* ---------------- JSON ---------------------------------------------------- */

static void json_counters(struct json *j, const char *key, const Sdds__Ctl__Counters *c)
{
	static const Sdds__Ctl__Counters zero = SDDS__CTL__COUNTERS__INIT;

	if (c == NULL)
		c = &zero;
	json_obj_begin(j, key);
	json_uint(j, "written", c->written);
	json_uint(j, "delivered", c->delivered);
	json_uint(j, "dropped", c->dropped);
	json_uint(j, "rejected", c->rejected);
	json_obj_end(j);
}

static const char *reliability_name(Sdds__Ctl__Reliability r)
{
	return r == SDDS__CTL__RELIABILITY__RELIABLE ? "reliable" : "best_effort";
}

/* Strings from the daemon; protobuf-c gives "" for an absent one, this keeps it so. */
static void json_text(struct json *j, const char *key, const char *s)
{
	json_str(j, key, s != NULL ? s : "");
}

static void json_clients(struct json *j, const Sdds__Ctl__Stats *st)
{
	json_arr_begin(j, "clients");
	for (size_t i = 0; i < st->n_clients; i++) {
		const Sdds__Ctl__ClientInfo *c = st->clients[i];

		json_obj_begin(j, NULL);
		json_uint(j, "session_id", c->session_id);
		json_int(j, "pid", c->pid);
		json_uint(j, "uid", c->uid);
		json_uint(j, "gid", c->gid);
		json_text(j, "name", c->name);
		json_uint(j, "readers", c->readers);
		json_uint(j, "writers", c->writers);
		json_counters(j, "counters", c->counters);
		json_text(j, "identity", c->identity);
		json_uint(j, "denied", c->denied);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_topics(struct json *j, const Sdds__Ctl__Stats *st)
{
	json_arr_begin(j, "topics");
	for (size_t i = 0; i < st->n_topics; i++) {
		const Sdds__Ctl__TopicInfo *t = st->topics[i];

		json_obj_begin(j, NULL);
		json_uint(j, "domain", t->domain);
		json_uint(j, "topic_id", t->topic_id);
		json_text(j, "name", t->name);
		json_uint(j, "sample_size", t->sample_size);
		json_uint(j, "readers", t->readers);
		json_uint(j, "writers", t->writers);
		json_counters(j, "counters", t->counters);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static bool endpoint_shown(const Sdds__Ctl__EndpointInfo *e, enum sddsctl_view v)
{
	if (v == VIEW_READERS)
		return e->reader;
	if (v == VIEW_WRITERS)
		return !e->reader;
	return true;
}

static void json_endpoints(struct json *j, const Sdds__Ctl__Stats *st, enum sddsctl_view v, const char *key)
{
	json_arr_begin(j, key);
	for (size_t i = 0; i < st->n_endpoints; i++) {
		const Sdds__Ctl__EndpointInfo *e = st->endpoints[i];

		if (!endpoint_shown(e, v))
			continue;
		json_obj_begin(j, NULL);
		json_uint(j, "id", e->id);
		json_uint(j, "session_id", e->session_id);
		json_uint(j, "domain", e->domain);
		json_uint(j, "topic_id", e->topic_id);
		json_str(j, "kind", e->reader ? "reader" : "writer");
		json_str(j, "reliability", reliability_name(e->reliability));
		json_uint(j, "depth", e->depth);
		json_counters(j, "counters", e->counters);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* Sum of the topics' counters: every sample is counted once there. */
static void stats_totals(const Sdds__Ctl__Stats *st, Sdds__Ctl__Counters *tot, uint32_t *readers,
			 uint32_t *writers)
{
	sdds__ctl__counters__init(tot);
	*readers = 0;
	*writers = 0;
	for (size_t i = 0; i < st->n_topics; i++) {
		const Sdds__Ctl__Counters *c = st->topics[i]->counters;

		if (c != NULL) {
			tot->written += c->written;
			tot->delivered += c->delivered;
			tot->dropped += c->dropped;
			tot->rejected += c->rejected;
		}
	}
	for (size_t i = 0; i < st->n_endpoints; i++) {
		if (st->endpoints[i]->reader)
			(*readers)++;
		else
			(*writers)++;
	}
}

static void json_denials(struct json *j, const Sdds__Ctl__Stats *st)
{
	json_obj_begin(j, "policy");
	json_bool(j, "loaded", st->policy_loaded);
	json_uint(j, "denied", st->policy_denied);
	json_uint(j, "reloads", st->policy_reloads);
	json_uint(j, "reload_failures", st->policy_reload_failures);
	json_obj_end(j);
	json_arr_begin(j, "denials");
	for (size_t i = 0; i < st->n_denials; i++) {
		const Sdds__Ctl__Denial *d = st->denials[i];

		json_obj_begin(j, NULL);
		json_uint(j, "session", d->session_id);
		json_int(j, "pid", d->pid);
		json_uint(j, "uid", d->uid);
		json_text(j, "identity", d->identity);
		json_str(j, "kind", d->reader ? "reader" : "writer");
		json_uint(j, "domain", d->domain);
		json_uint(j, "topic_id", d->topic_id);
		json_uint(j, "age_ms", d->age_ms);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* ---------------- the network side ---------------------------------------- */

static void json_topic_ids(struct json *j, const char *key, const uint32_t *ids, size_t n)
{
	json_arr_begin(j, key);
	for (size_t i = 0; i < n; i++)
		json_uint(j, NULL, ids[i]);
	json_arr_end(j);
}

static void json_peers(struct json *j, const Sdds__Ctl__Stats *st)
{
	const Sdds__Ctl__NetStats *n = st->net;

	json_arr_begin(j, "peers");
	for (size_t i = 0; n != NULL && i < n->n_peers; i++) {
		const Sdds__Ctl__PeerInfo *p = n->peers[i];

		json_obj_begin(j, NULL);
		json_text(j, "address", p->address);
		json_text(j, "iface", p->iface);
		json_uint(j, "port", p->port);
		json_bool(j, "static", p->is_static);
		json_bool(j, "swapped", p->swapped);
		json_bool(j, "seen", p->seen);
		json_uint(j, "last_seen_ms", p->last_seen_ms);
		json_uint(j, "last_port", p->last_port);
		json_text(j, "pack", p->pack);
		json_topic_ids(j, "topics_in", p->topics_in, p->n_topics_in);
		json_topic_ids(j, "topics_out", p->topics_out, p->n_topics_out);
		json_uint(j, "frames_in", p->frames_in);
		json_uint(j, "samples_in", p->samples_in);
		json_uint(j, "frames_out", p->frames_out);
		json_uint(j, "samples_out", p->samples_out);
		json_uint(j, "malformed", p->malformed);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_discovery(struct json *j, const Sdds__Ctl__DiscoveryStats *d)
{
	if (d == NULL) {
		json_null(j, "discovery");
		return;
	}
	json_obj_begin(j, "discovery");
	json_uint(j, "node_id", d->node_id);
	json_uint(j, "participants", d->participants);
	json_uint(j, "subscriptions", d->subscriptions);
	json_uint(j, "participants_expired", d->participants_expired);
	json_uint(j, "subscriptions_expired", d->subscriptions_expired);
	json_uint(j, "table_full", d->table_full);
	json_uint(j, "id_clash", d->id_clash);
	json_uint(j, "frames_out", d->frames_out);
	json_obj_end(j);
}

static void json_named(struct json *j, const char *key, Sdds__Ctl__NetDrop *const *v, size_t n)
{
	json_obj_begin(j, key);
	for (size_t i = 0; i < n; i++)
		json_uint(j, v[i]->reason != NULL ? v[i]->reason : "", v[i]->count);
	json_obj_end(j);
}

/* The own IPv6 stack of every link that runs one (tap backend). */
static void json_stack(struct json *j, const Sdds__Ctl__Stats *st)
{
	const Sdds__Ctl__NetStats *n = st->net;

	json_arr_begin(j, "stack");
	for (size_t i = 0; n != NULL && i < n->n_links; i++) {
		const Sdds__Ctl__NetLink *l = n->links[i];
		const Sdds__Ctl__StackInfo *s = l->stack;

		if (s == NULL)
			continue;
		json_obj_begin(j, NULL);
		json_uint(j, "link", l->id);
		json_text(j, "name", l->name);
		json_text(j, "device", s->device);
		json_text(j, "mac", s->mac);
		json_uint(j, "mtu", s->mtu);
		json_bool(j, "link_up", s->link_up);
		json_arr_begin(j, "addresses");
		for (size_t k = 0; k < s->n_addresses; k++) {
			json_obj_begin(j, NULL);
			json_text(j, "address", s->addresses[k]->address);
			json_uint(j, "prefix_len", s->addresses[k]->prefix_len);
			json_text(j, "state", s->addresses[k]->state);
			json_text(j, "origin", s->addresses[k]->origin);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_arr_begin(j, "neighbors");
		for (size_t k = 0; k < s->n_neighbors; k++) {
			json_obj_begin(j, NULL);
			json_text(j, "address", s->neighbors[k]->address);
			json_text(j, "mac", s->neighbors[k]->mac);
			json_text(j, "state", s->neighbors[k]->state);
			json_bool(j, "router", s->neighbors[k]->router);
			json_uint(j, "pending", s->neighbors[k]->pending);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_arr_begin(j, "groups");
		for (size_t k = 0; k < s->n_groups; k++)
			json_text(j, NULL, s->groups[k]);
		json_arr_end(j);
		json_named(j, "counters", s->counters, s->n_counters);
		json_named(j, "drops", s->drops, s->n_drops);
		json_named(j, "device_counters", s->device_counters, s->n_device_counters);
		json_obj_begin(j, "pool");
		json_uint(j, "size", s->pool_size);
		json_uint(j, "out", s->pool_out);
		json_uint(j, "alloc_fail", s->pool_alloc_fail);
		json_obj_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_net(struct json *j, const Sdds__Ctl__Stats *st)
{
	const Sdds__Ctl__NetStats *n = st->net;

	if (n == NULL) {
		json_null(j, "net");
		return;
	}
	json_obj_begin(j, "net");
	json_text(j, "backend", n->backend);
	json_uint(j, "port", n->port);
	json_uint(j, "max_frame", n->max_frame);
	json_arr_begin(j, "interfaces");
	for (size_t i = 0; i < n->n_interfaces; i++)
		json_text(j, NULL, n->interfaces[i]);
	json_arr_end(j);
	/* Every backend with its links; link ids are one sequence over all of them. */
	json_arr_begin(j, "backends");
	for (size_t k = 0; k < n->n_backends; k++) {
		json_obj_begin(j, NULL);
		json_uint(j, "index", k);
		json_text(j, "name", n->backends[k]->name);
		json_arr_begin(j, "links");
		for (size_t i = 0; i < n->n_links; i++) {
			const Sdds__Ctl__NetLink *l = n->links[i];

			if (l->backend != k)
				continue;
			json_obj_begin(j, NULL);
			json_uint(j, "id", l->id);
			json_uint(j, "local", l->local);
			json_text(j, "name", l->name);
			json_text(j, "address", l->address);
			json_uint(j, "rx_overflow", l->rx_overflow);
			json_uint(j, "tx_gso", l->tx_gso);
			json_bool(j, "gso_refused", l->gso_refused);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_uint(j, "frames_in", n->frames_in);
	json_uint(j, "samples_in", n->samples_in);
	json_uint(j, "bytes_in", n->bytes_in);
	json_uint(j, "frames_out", n->frames_out);
	json_uint(j, "samples_out", n->samples_out);
	json_uint(j, "bytes_out", n->bytes_out);
	json_uint(j, "tx_errors", n->tx_errors);
	json_uint(j, "malformed", n->malformed);
	json_uint(j, "backlog", n->backlog);
	json_uint(j, "backlog_forced", n->backlog_forced);
	json_uint(j, "peer_table_full", n->peer_table_full);
	json_uint(j, "local_overwritten", n->local_overwritten);
	json_uint(j, "rx_overflow", n->rx_overflow);
	json_uint(j, "tx_gso", n->tx_gso);
	json_uint(j, "gso_refused", n->gso_refused);
	json_named(j, "drops", n->drops, n->n_drops);
	json_uint(j, "peers_expired", n->peers_expired);
	json_uint(j, "dests_full", n->dests_full);
	json_uint(j, "seq_dropped", n->seq_dropped);
	json_uint(j, "acks_out", n->acks_out);
	json_uint(j, "acks_in", n->acks_in);
	json_uint(j, "ack_bogus", n->ack_bogus);
	json_uint(j, "resent", n->resent);
	json_uint(j, "seq_resync", n->seq_resync);
	json_uint(j, "rel_given_up", n->rel_given_up);
	json_uint(j, "nacks_out", n->nacks_out);
	json_uint(j, "nacks_in", n->nacks_in);
	json_uint(j, "nack_resent", n->nack_resent);
	json_uint(j, "nack_unknown", n->nack_unknown);
	json_uint(j, "nack_bogus", n->nack_bogus);
	json_uint(j, "nack_limited", n->nack_limited);
	json_uint(j, "gaps_recovered", n->gaps_recovered);
	json_uint(j, "gaps_given_up", n->gaps_given_up);
	json_uint(j, "nack_heartbeats", n->nack_heartbeats);
	json_uint(j, "forwarded", n->forwarded);
	json_discovery(j, n->discovery);
	json_obj_end(j);
}

/* One JSON object on f; 0 or -errno as json_finish. */
static void json_admission(struct json *j, const Sdds__Ctl__Stats *st)
{
	static const Sdds__Ctl__Admission none = SDDS__CTL__ADMISSION__INIT;
	const Sdds__Ctl__Admission *a = st->admission != NULL ? st->admission : &none;

	json_obj_begin(j, "admission");
	json_obj_begin(j, "limits");
	json_uint(j, "max_clients", a->max_clients);
	json_uint(j, "max_clients_per_uid", a->max_clients_per_uid);
	json_uint(j, "reserved_clients", a->reserved_clients);
	json_uint(j, "max_handshakes", a->max_handshakes);
	json_uint(j, "max_handshakes_per_uid", a->max_handshakes_per_uid);
	json_obj_end(j);
	json_uint(j, "pending", a->pending);
	json_uint(j, "sessions", a->sessions);
	json_uint(j, "dropped", a->dropped);
	json_uint(j, "refused", a->refused);
	json_uint(j, "hello_refused", a->hello_refused);
	json_arr_begin(j, "uids");
	for (size_t i = 0; i < a->n_uids; i++) {
		const Sdds__Ctl__UidAdmission *u = a->uids[i];

		json_obj_begin(j, NULL);
		json_uint(j, "uid", u->uid);
		json_bool(j, "trusted", u->trusted);
		json_uint(j, "pending", u->pending);
		json_uint(j, "sessions", u->sessions);
		json_uint(j, "dropped", u->dropped);
		json_uint(j, "refused", u->refused);
		json_uint(j, "hello_refused", u->hello_refused);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static int json_print(FILE *f, const Sdds__Ctl__Stats *st, enum sddsctl_view v)
{
	struct json j;

	json_init_pretty(&j, f);
	json_obj_begin(&j, NULL);
	switch (v) {
	case VIEW_CLIENTS:
		json_clients(&j, st);
		break;
	case VIEW_TOPICS:
		json_topics(&j, st);
		break;
	case VIEW_READERS:
		json_endpoints(&j, st, v, "readers");
		break;
	case VIEW_WRITERS:
		json_endpoints(&j, st, v, "writers");
		break;
	case VIEW_ENDPOINTS:
		json_endpoints(&j, st, v, "endpoints");
		break;
	case VIEW_DENIALS:
		json_denials(&j, st);
		break;
	case VIEW_PEERS:
		json_peers(&j, st);
		break;
	case VIEW_NET:
		json_net(&j, st);
		break;
	case VIEW_STACK:
		json_stack(&j, st);
		break;
	case VIEW_ADMISSION:
		json_admission(&j, st);
		break;
	case VIEW_STATS: {
		Sdds__Ctl__Counters tot;
		uint32_t nr, nw;
		char epoch[17];

		stats_totals(st, &tot, &nr, &nw);
		snprintf(epoch, sizeof(epoch), "%016" PRIx64, st->epoch);
		json_str(&j, "epoch", epoch);
		json_uint(&j, "uptime_ms", st->uptime_ms);
		json_obj_begin(&j, "totals");
		json_uint(&j, "clients", st->n_clients);
		json_uint(&j, "topics", st->n_topics);
		json_uint(&j, "readers", nr);
		json_uint(&j, "writers", nw);
		json_uint(&j, "sessions_total", st->sessions_total);
		json_uint(&j, "sessions_protocol_errors", st->sessions_protocol_errors);
		json_uint(&j, "sessions_over_limit", st->sessions_over_limit);
		json_counters(&j, "counters", &tot);
		json_obj_end(&j);
		json_clients(&j, st);
		json_topics(&j, st);
		json_endpoints(&j, st, VIEW_ENDPOINTS, "endpoints");
		json_denials(&j, st);
		json_admission(&j, st);
		json_net(&j, st);
		json_peers(&j, st);
		break;
	}
	}
	json_obj_end(&j);
	return json_finish(&j);
}

/* ---------------- tables -------------------------------------------------- */

/* Copy at most cap-1 bytes of s, replacing what a terminal should not see. */
static const char *printable(const char *s, char *buf, size_t cap)
{
	size_t i = 0;

	for (; s != NULL && s[i] != '\0' && i + 1 < cap; i++)
		buf[i] = ((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f) ? s[i] : '?';
	buf[i] = '\0';
	return i ? buf : "-";
}

#define COUNTER_HDR "%12s %12s %10s %10s\n", "WRITTEN", "DELIVERED", "DROPPED", "REJECTED"

static void text_counters(FILE *f, const Sdds__Ctl__Counters *c)
{
	static const Sdds__Ctl__Counters zero = SDDS__CTL__COUNTERS__INIT;

	if (c == NULL)
		c = &zero;
	fprintf(f, "%12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n", c->written, c->delivered,
		c->dropped, c->rejected);
}

static void text_clients(FILE *f, const Sdds__Ctl__Stats *st)
{
	char nb[64], ib[64];

	fprintf(f, "%-8s %-8s %-6s %-20s %-16s %7s %7s ", "SESSION", "PID", "UID", "NAME", "IDENTITY",
		"READERS", "WRITERS");
	fprintf(f, COUNTER_HDR);
	for (size_t i = 0; i < st->n_clients; i++) {
		const Sdds__Ctl__ClientInfo *c = st->clients[i];

		fprintf(f, "%-8u %-8d %-6u %-20s %-16s %7u %7u ", c->session_id, c->pid, c->uid,
			printable(c->name, nb, 21), printable(c->identity, ib, 17), c->readers, c->writers);
		text_counters(f, c->counters);
	}
	if (st->n_clients == 0)
		fputs("(no clients)\n", f);
}

static void text_topics(FILE *f, const Sdds__Ctl__Stats *st)
{
	char nb[64];

	fprintf(f, "%-6s %-6s %-24s %6s %7s %7s ", "DOMAIN", "ID", "NAME", "SIZE", "READERS", "WRITERS");
	fprintf(f, COUNTER_HDR);
	for (size_t i = 0; i < st->n_topics; i++) {
		const Sdds__Ctl__TopicInfo *t = st->topics[i];

		fprintf(f, "%-6u %-6u %-24s %6u %7u %7u ", t->domain, t->topic_id, printable(t->name, nb, 25),
			t->sample_size, t->readers, t->writers);
		text_counters(f, t->counters);
	}
	if (st->n_topics == 0)
		fputs("(no topics)\n", f);
}

static void text_endpoints(FILE *f, const Sdds__Ctl__Stats *st, enum sddsctl_view v)
{
	size_t shown = 0;

	fprintf(f, "%-10s %-8s %-6s %-6s %-6s %-11s %6s ", "ID", "SESSION", "KIND", "DOMAIN", "TOPIC",
		"RELIABILITY", "DEPTH");
	fprintf(f, COUNTER_HDR);
	for (size_t i = 0; i < st->n_endpoints; i++) {
		const Sdds__Ctl__EndpointInfo *e = st->endpoints[i];

		if (!endpoint_shown(e, v))
			continue;
		fprintf(f, "%-10u %-8u %-6s %-6u %-6u %-11s %6u ", e->id, e->session_id,
			e->reader ? "reader" : "writer", e->domain, e->topic_id,
			reliability_name(e->reliability), e->depth);
		text_counters(f, e->counters);
		shown++;
	}
	if (shown == 0)
		fprintf(f, "(no %s)\n",
			v == VIEW_READERS   ? "readers"
			: v == VIEW_WRITERS ? "writers"
					    : "endpoints");
}

static void text_denials(FILE *f, const Sdds__Ctl__Stats *st)
{
	char nb[64];

	fprintf(f, "access policy             %s\n",
		st->policy_loaded ? "loaded" : "none (every topic open)");
	fprintf(f, "requests denied           %" PRIu64 "\n", st->policy_denied);
	fprintf(f, "reloads / refused files   %" PRIu64 " / %" PRIu64 "\n", st->policy_reloads,
		st->policy_reload_failures);
	fprintf(f, "%-8s %-8s %-6s %-20s %-6s %-6s %-6s %10s\n", "SESSION", "PID", "UID", "IDENTITY", "KIND",
		"DOMAIN", "TOPIC", "AGO (ms)");
	for (size_t i = 0; i < st->n_denials; i++) {
		const Sdds__Ctl__Denial *d = st->denials[i];

		fprintf(f, "%-8u %-8d %-6u %-20s %-6s %-6u %-6u %10" PRIu64 "\n", d->session_id, d->pid,
			d->uid, printable(d->identity, nb, 21), d->reader ? "reader" : "writer", d->domain,
			d->topic_id, d->age_ms);
	}
	if (st->n_denials == 0)
		fputs("(no denials)\n", f);
}

static void text_topic_ids(FILE *f, const uint32_t *ids, size_t n)
{
	if (n == 0)
		fputc('-', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? "," : "", ids[i]);
}

static void text_peers(FILE *f, const Sdds__Ctl__Stats *st)
{
	const Sdds__Ctl__NetStats *n = st->net;
	char a[64], nm[32];

	if (n == NULL) {
		fputs("(network off)\n", f);
		return;
	}
	/*
	 * PORT is where the peer was last heard from (a real node sends from
	 * an ephemeral or multicast port), DEST where its data goes, PACK
	 * whether several samples share a frame to it (cfg: peer_pack; ann: an
	 * sddsd that announced it; -: one sample per frame). A group
	 * destination is never heard from: it shows as "group", seen "-".
	 */
	fprintf(f, "%-28s %-10s %5s %5s %-6s %-4s %10s %8s %8s %8s %8s %8s  %s\n", "ADDRESS", "IFACE", "PORT",
		"DEST", "KIND", "PACK", "LAST SEEN", "FR IN", "SMP IN", "FR OUT", "SMP OUT", "MALFORM",
		"TOPICS in/out");
	for (size_t i = 0; i < n->n_peers; i++) {
		const Sdds__Ctl__PeerInfo *p = n->peers[i];
		struct in6_addr ip;
		char seen[32], port[8];
		bool group = p->address != NULL && inet_pton(AF_INET6, p->address, &ip) == 1 &&
			     IN6_IS_ADDR_MULTICAST(&ip);

		if (p->seen) {
			snprintf(seen, sizeof(seen), "%" PRIu64 ".%01" PRIu64 "s", p->last_seen_ms / 1000,
				 (p->last_seen_ms % 1000) / 100);
			snprintf(port, sizeof(port), "%u", p->last_port);
		} else {
			snprintf(seen, sizeof(seen), "%s", group ? "-" : "never");
			snprintf(port, sizeof(port), "-");
		}
		fprintf(f,
			"%-28s %-10s %5s %5u %-6s %-4s %10s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
			" %8" PRIu64 "  ",
			printable(p->address, a, sizeof(a)), printable(p->iface, nm, sizeof(nm)), port,
			p->port,
			group	       ? "group"
			: p->is_static ? (p->swapped ? "st/sw" : "static")
				       : (p->swapped ? "dyn/sw" : "heard"),
			p->pack == NULL || p->pack[0] == '\0' ? "-"
			: strcmp(p->pack, "config") == 0      ? "cfg"
							      : "ann",
			seen, p->frames_in, p->samples_in, p->frames_out, p->samples_out, p->malformed);
		text_topic_ids(f, p->topics_in, p->n_topics_in);
		fputc('/', f);
		text_topic_ids(f, p->topics_out, p->n_topics_out);
		fputc('\n', f);
	}
	if (n->n_peers == 0)
		fputs("(no peers)\n", f);
}

static void text_named(FILE *f, const char *title, Sdds__Ctl__NetDrop *const *v, size_t n)
{
	char b[64];
	int col = 0;

	fprintf(f, "  %s:", title);
	for (size_t i = 0; i < n; i++) {
		if (col >= 4) {
			fputs("\n   ", f);
			col = 0;
		}
		fprintf(f, " %s %" PRIu64, printable(v[i]->reason, b, sizeof(b)), v[i]->count);
		col++;
	}
	fputs(n == 0 ? " none\n" : "\n", f);
}

static void text_stack(FILE *f, const Sdds__Ctl__Stats *st)
{
	const Sdds__Ctl__NetStats *n = st->net;
	/* Every string is the daemon's: printable() keeps control bytes off the terminal. */
	char b[64], c[64], d[64], e[64];
	bool any = false;

	for (size_t i = 0; n != NULL && i < n->n_links; i++) {
		const Sdds__Ctl__NetLink *l = n->links[i];
		const Sdds__Ctl__StackInfo *s = l->stack;

		if (s == NULL)
			continue;
		any = true;
		fprintf(f, "link %u %s (%s): mac %s, mtu %u, link %s\n", l->id,
			printable(l->name, b, sizeof(b)), printable(s->device, c, sizeof(c)),
			printable(s->mac, d, sizeof(d)), s->mtu, s->link_up ? "up" : "down");
		for (size_t k = 0; k < s->n_addresses; k++) {
			const Sdds__Ctl__StackAddr *a = s->addresses[k];

			fprintf(f, "  address   %s/%u %s", printable(a->address, b, sizeof(b)), a->prefix_len,
				printable(a->state, c, sizeof(c)));
			fprintf(f, " (%s)\n", printable(a->origin, d, sizeof(d)));
		}
		for (size_t k = 0; k < s->n_neighbors; k++) {
			const Sdds__Ctl__StackNeigh *nb = s->neighbors[k];

			fprintf(f, "  neighbor  %s %s %s%s%s\n", printable(nb->address, b, sizeof(b)),
				nb->mac != NULL && nb->mac[0] != '\0' ? printable(nb->mac, c, sizeof(c))
								      : "-",
				printable(nb->state, d, sizeof(d)), nb->router ? " router" : "",
				nb->pending > 0 ? " (held)" : "");
		}
		fputs("  groups   ", f);
		for (size_t k = 0; k < s->n_groups; k++)
			fprintf(f, " %s", printable(s->groups[k], e, sizeof(e)));
		fputc('\n', f);
		text_named(f, "counters", s->counters, s->n_counters);
		text_named(f, "drops", s->drops, s->n_drops);
		text_named(f, "device", s->device_counters, s->n_device_counters);
		fprintf(f, "  pool: %u buffers, %u in use, %" PRIu64 " refused\n", s->pool_size, s->pool_out,
			s->pool_alloc_fail);
	}
	if (!any)
		fputs("(no link runs the own stack: backend = tap)\n", f);
}

static void text_net(FILE *f, const Sdds__Ctl__Stats *st)
{
	const Sdds__Ctl__NetStats *n = st->net;
	char b[64];

	if (n == NULL) {
		fputs("(network off)\n", f);
		return;
	}
	fprintf(f, "backend                   %s, port %u, max_frame %u, on",
		printable(n->backend, b, sizeof(b)), n->port, n->max_frame);
	for (size_t i = 0; i < n->n_interfaces; i++)
		fprintf(f, " %s", printable(n->interfaces[i], b, sizeof(b)));
	fputc('\n', f);
	/* Each backend and its links (link ids: one sequence over all backends). */
	for (size_t k = 0; k < n->n_backends; k++) {
		const char *sep = "";

		fprintf(f, "  backend %-15zu %s, links", k, printable(n->backends[k]->name, b, sizeof(b)));
		for (size_t i = 0; i < n->n_links; i++) {
			if (n->links[i]->backend != k)
				continue;
			fprintf(f, "%s %u %s", sep, n->links[i]->id,
				printable(n->links[i]->name, b, sizeof(b)));
			fprintf(f, " (%s)", printable(n->links[i]->address, b, sizeof(b)));
			sep = ",";
		}
		fputc('\n', f);
	}
	fprintf(f, "frames in / out           %" PRIu64 " / %" PRIu64 "\n", n->frames_in, n->frames_out);
	fprintf(f, "samples in / out          %" PRIu64 " / %" PRIu64 "\n", n->samples_in, n->samples_out);
	fprintf(f, "bytes in / out            %" PRIu64 " / %" PRIu64 "\n", n->bytes_in, n->bytes_out);
	fprintf(f, "send errors               %" PRIu64 "\n", n->tx_errors);
	fprintf(f, "frames out in GSO         %" PRIu64 "%s\n", n->tx_gso,
		n->gso_refused > 0 ? " (refused on some links: plain datagrams there)" : "");
	fprintf(f, "receive queue overflows   %" PRIu64 "\n", n->rx_overflow);
	fprintf(f, "malformed datagrams       %" PRIu64 "\n", n->malformed);
	for (size_t i = 0; i < n->n_drops; i++)
		fprintf(f, "  %-23s %" PRIu64 "\n", printable(n->drops[i]->reason, b, sizeof(b)),
			n->drops[i]->count);
	fprintf(f, "backlog now / forced      %u / %" PRIu64 "\n", n->backlog, n->backlog_forced);
	fprintf(f, "peer table full           %" PRIu64 "\n", n->peer_table_full);
	fprintf(f, "local samples lost        %" PRIu64 "\n", n->local_overwritten);
	fprintf(f, "peers expired             %" PRIu64 "\n", n->peers_expired);
	fprintf(f, "learnt dests not added    %" PRIu64 "\n", n->dests_full);
	fprintf(f, "seqnr drops / resyncs     %" PRIu64 " / %" PRIu64 "\n", n->seq_dropped, n->seq_resync);
	fprintf(f,
		"acks out / in, resent     %" PRIu64 " / %" PRIu64 ", %" PRIu64 " (given up %" PRIu64
		"), bogus %" PRIu64 "\n",
		n->acks_out, n->acks_in, n->resent, n->rel_given_up, n->ack_bogus);
	fprintf(f, "nacks out / in, resent    %" PRIu64 " / %" PRIu64 ", %" PRIu64 "\n", n->nacks_out,
		n->nacks_in, n->nack_resent);
	fprintf(f, "nacks unknown/bogus/limit %" PRIu64 " / %" PRIu64 " / %" PRIu64 "\n", n->nack_unknown,
		n->nack_bogus, n->nack_limited);
	fprintf(f, "gaps recovered / given up %" PRIu64 " / %" PRIu64 ", heartbeats %" PRIu64 "\n",
		n->gaps_recovered, n->gaps_given_up, n->nack_heartbeats);
	fprintf(f, "forwarded between links   %" PRIu64 "\n", n->forwarded);
	if (n->discovery == NULL) {
		fputs("discovery                 off\n", f);
		return;
	}
	fprintf(f, "discovery                 node id 0x%04x, %u participants, %u subscriptions\n",
		n->discovery->node_id, n->discovery->participants, n->discovery->subscriptions);
	fprintf(f, "  expired                 %" PRIu64 " participants, %" PRIu64 " subscriptions\n",
		n->discovery->participants_expired, n->discovery->subscriptions_expired);
	fprintf(f, "  table full / id clash   %" PRIu64 " / %" PRIu64 "\n", n->discovery->table_full,
		n->discovery->id_clash);
	fprintf(f, "  announcements sent      %" PRIu64 "\n", n->discovery->frames_out);
}

static void text_admission(FILE *f, const Sdds__Ctl__Stats *st)
{
	static const Sdds__Ctl__Admission none = SDDS__CTL__ADMISSION__INIT;
	const Sdds__Ctl__Admission *a = st->admission != NULL ? st->admission : &none;

	fprintf(f, "sessions %u of max_clients %u (per uid %u, %u reserved for root and launchers)\n",
		a->sessions, a->max_clients, a->max_clients_per_uid, a->reserved_clients);
	fprintf(f, "without Hello %u of max_handshakes %u (per uid %u)\n", a->pending, a->max_handshakes,
		a->max_handshakes_per_uid);
	fprintf(f, "dropped %" PRIu64 ", refused %" PRIu64 ", Hello refused %" PRIu64 "\n", a->dropped,
		a->refused, a->hello_refused);
	fprintf(f, "%10s %7s %8s %8s %12s %12s %12s\n", "UID", "TRUSTED", "PENDING", "SESSIONS", "DROPPED",
		"REFUSED", "HELLO-REFUSED");
	for (size_t i = 0; i < a->n_uids; i++) {
		const Sdds__Ctl__UidAdmission *u = a->uids[i];

		fprintf(f, "%10u %7s %8u %8u %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", u->uid,
			u->trusted ? "yes" : "no", u->pending, u->sessions, u->dropped, u->refused,
			u->hello_refused);
	}
}

static void text_print(FILE *f, const Sdds__Ctl__Stats *st, enum sddsctl_view v)
{
	Sdds__Ctl__Counters tot;
	uint32_t nr, nw;

	switch (v) {
	case VIEW_CLIENTS:
		text_clients(f, st);
		return;
	case VIEW_TOPICS:
		text_topics(f, st);
		return;
	case VIEW_READERS:
	case VIEW_WRITERS:
	case VIEW_ENDPOINTS:
		text_endpoints(f, st, v);
		return;
	case VIEW_DENIALS:
		text_denials(f, st);
		return;
	case VIEW_PEERS:
		text_peers(f, st);
		return;
	case VIEW_NET:
		text_net(f, st);
		return;
	case VIEW_STACK:
		text_stack(f, st);
		return;
	case VIEW_ADMISSION:
		text_admission(f, st);
		return;
	case VIEW_STATS:
		break;
	}
	stats_totals(st, &tot, &nr, &nw);
	fprintf(f, "epoch                     %016" PRIx64 "\n", st->epoch);
	fprintf(f, "uptime                    %" PRIu64 ".%03" PRIu64 " s\n", st->uptime_ms / 1000,
		st->uptime_ms % 1000);
	fprintf(f, "clients                   %zu\n", st->n_clients);
	fprintf(f, "topics                    %zu\n", st->n_topics);
	fprintf(f, "readers / writers         %u / %u\n", nr, nw);
	fprintf(f, "sessions since start      %" PRIu64 "\n", st->sessions_total);
	fprintf(f, "protocol errors           %" PRIu64 "\n", st->sessions_protocol_errors);
	fprintf(f, "over a limit              %" PRIu64 "\n", st->sessions_over_limit);
	fprintf(f, "samples written           %" PRIu64 "\n", tot.written);
	fprintf(f, "samples delivered         %" PRIu64 "\n", tot.delivered);
	fprintf(f, "samples dropped           %" PRIu64 "\n", tot.dropped);
	fprintf(f, "samples rejected          %" PRIu64 "\n", tot.rejected);
	fputs("\nCLIENTS\n", f);
	text_clients(f, st);
	fputs("\nTOPICS\n", f);
	text_topics(f, st);
	fputs("\nENDPOINTS\n", f);
	text_endpoints(f, st, VIEW_ENDPOINTS);
	fputs("\nPOLICY\n", f);
	text_denials(f, st);
	fputs("\nADMISSION\n", f);
	text_admission(f, st);
	if (st->net != NULL) {
		fputs("\nNETWORK\n", f);
		text_net(f, st);
		fputs("\nPEERS\n", f);
		text_peers(f, st);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"socket", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *sock = NULL, *cmd = NULL;
	enum sddsctl_view view = VIEW_STATS;
	Sdds__Ctl__Reply *rep = NULL;
	bool json = false;
	size_t i;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "hjs:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 's':
			sock = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 1;
	}
	cmd = argv[optind];
	for (i = 0; i < sizeof(sddsctl_views) / sizeof(sddsctl_views[0]); i++) {
		if (strcmp(cmd, sddsctl_views[i].name) == 0) {
			view = sddsctl_views[i].view;
			break;
		}
	}
	if (i == sizeof(sddsctl_views) / sizeof(sddsctl_views[0])) {
		fprintf(stderr, "sddsctl: unknown command '%s'\n", cmd);
		usage(stderr);
		return 1;
	}
	if (sock == NULL) {
		if (ctl_default_path(path, sizeof(path)) < 0) {
			fprintf(stderr, "sddsctl: the default socket path is too long\n");
			return 2;
		}
		sock = path;
	}
	if (sddsctl_query(sock, &rep) < 0)
		return 2;
	if (json) {
		rc = json_print(stdout, rep->stats, view);
		if (rc < 0)
			fprintf(stderr, "sddsctl: cannot print the JSON: %s\n", strerror(-rc));
	} else {
		text_print(stdout, rep->stats, view);
	}
	sdds__ctl__reply__free_unpacked(rep, NULL);
	return rc == 0 && fflush(stdout) == 0 ? 0 : 2;
}
