/* SPDX-License-Identifier: MIT */
/*
 * net.c - `sdds-bench net` (see net.h).
 *
 * Roles run in forked children (proc_spawn) that enter their namespace with
 * setns(CLONE_NEWNET) on /run/netns/NAME. Clients reach their daemon through
 * its socket file, which the namespace does not hide; they enter it all the
 * same, so every party of a run sits where it would on a real node. Results
 * come back through a MAP_SHARED area (struct net_shm) made before the fork;
 * the two sides of a run meet on its `ready` and `done` words.
 *
 * Monolithic (--monolithic): after the isolated runs the daemons stop,
 * one by one: first A, and a monolithic application in A (sdds-bench-mono,
 * linked with libsddsmono: the broker core and sddsd's network layer in
 * the process, client-lib/mono/mononet.c, reading A's daemon config;
 * mono.h) plays ping against the isolated pong of daemon B
 * ("mixed"); then B, and both sides are monolithic. All parties run on one
 * machine and share CLOCK_MONOTONIC, so each round trip splits into its two
 * legs (pong's take time is the midpoint): A->B and B->A. With the mixed
 * run that splits the cost of isolation into its send side (A->B: isolated
 * vs monolithic sender, isolated receiver) and its receive side (B->A:
 * isolated sender, isolated vs monolithic receiver), as the seed paper
 * reports it.
 *
 * Throughput in frames: toward a real node sddsd sends one sample per
 * frame (the default, and the path deployments take), toward a peer_pack
 * peer several. Daemon B's counters (sddsctl net) around the run give the
 * frames and bytes that arrived; the raw sendmmsg run then sends datagrams
 * of that mean frame size, and the ratio is frames/s against datagrams/s.
 * sddsd hands the kernel runs of equal frames as UDP GSO messages, so the
 * same datagrams follow as GSO messages of NET_BATCH (raw GSO): the
 * kernel's ceiling for that way of sending, shown beside, not the goal's
 * baseline. A second sddsd run follows with each daemon marking the other peer_pack
 * (both daemons restarted): the packed figure, printed next to it and
 * never in the ratio.
 *
 * Losses: the wire is not reliable. A ping whose answer does not come within
 * NET_PING_TIMEOUT_MS is counted lost and the next one goes out; a late
 * answer is recognised by its sequence number (the first two bytes of the
 * sample, one with --size 1) and dropped.
 */
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/udp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "json.h"
#include "local.h"
#include "netns_rig.h"
#include "mdrun.h"
#include "mono.h"
#include "pingpong.h"
#include "proc.h"
#include "sddsd.h"
#include "sdds/sdds.h"

#define NET_DEFAULT_ITERATIONS 100000
#define NET_DEFAULT_WARMUP 1000
#define NET_DEFAULT_SIZE 2
#define NET_MAX_SIZE 100  /* the node config's frame limit is 128 bytes (max_frame) */
#define NET_MAX_FRAME 128 /* largest raw datagram: sddsd's max_frame */
#define NET_ARRIVE 65536u /* pong's arrival times, by the sample's 16-bit sequence number */
#define NET_PING_TIMEOUT_MS 1000
#define NET_RAW_PORT 24100 /* raw latency; +1 raw throughput (the daemons use 23234 and 23254) */
#define NET_BATCH 32

struct net_opts {
	struct bench_opts
	    b; /* size, iterations, warmup, max_seconds, tput_seconds, json, sddsd_path, raw_prefix */
	bool monolithic;
	bool mono_only; /* only the monolithic ping-pong and throughput (for sdds-trace) */
	bool poll;
	bool no_ddsperf;
	double ddsperf_seconds;
	int cpu[2]; /* --cpus A,B: every process of side A (daemon, client) on CPU A, of B on B; -1 any */
};

struct net_shm {
	_Atomic uint32_t ready;
	_Atomic uint32_t done;
	uint64_t sent;	   /* throughput: samples or datagrams sent */
	uint64_t received; /* throughput: samples or datagrams received */
	uint64_t rlost;	   /* throughput: sdds_reader_lost at the reader */
	int64_t first_ns, last_ns, w_start_ns, w_end_ns;
	bool legs_bad; /* an arrival time outside its round trip: no legs */
	char why[BENCH_WHY_MAX];
	_Atomic int64_t arrive[NET_ARRIVE]; /* latency: pong's take time of sequence number s */
	uint64_t legs[];		    /* latency: the A->B leg of each measured round, then B->A */
};

/* A run; its namespaces, directory and daemons are the rig's (`netns`, netns_rig.h). */
struct net_ctx {
	const struct net_opts *o;
	char sock_a[108], sock_b[108];
	bool mono_a, mono_b; /* that side's clients run monolithic with its daemon config */
	bool raw_busy;	     /* raw ping-pong busy-polls (non-blocking recv) */
	bool pack;	     /* the daemon configs mark the other side peer_pack */
	bool raw_gso;	     /* the raw throughput sender sends UDP GSO messages */
	uint32_t raw_size;   /* raw throughput datagram bytes */
	char conf_a[PATH_MAX], conf_b[PATH_MAX];
	char sddsctl[PATH_MAX]; /* "" when not found */
	struct net_shm *shm;
	size_t shm_size;
};

struct net_ddsperf {
	bool ran, ok;
	char why[BENCH_WHY_MAX];
	char line[512]; /* ddsperf's own summary line of the ping side */
	char cmd[1024];
	char payload[96]; /* what ddsperf sent: its smallest topics are 4 and 12 bytes */
};

/* One latency run: one-way = RTT/2, and the legs A->B, B->A from the shared clock. */
struct net_lat {
	struct lat_result lat;
	uint64_t lost;
	bool legs;
	struct stats ab, ba;
};

/* What daemon B's counters say about a throughput run. */
struct net_frames {
	bool ok;
	char why[BENCH_WHY_MAX];
	uint64_t frames, samples, bytes;
	double rate; /* frames/s over the reader's first-to-last interval */
};

struct net_results {
	struct net_lat sdds, raw, raw_busy, mixed, mono;
	struct tput_result sdds_tput, raw_tput, raw_gso_tput, mono_tput, packed_tput;
	struct net_frames frames, packed_frames;
	uint32_t raw_size; /* bytes of the raw throughput datagrams */
	struct net_ddsperf dp;
};

/* The topic attributes of an S-byte sample: a sequence number, then padding. */
static void net_topic_xml(FILE *f, const char *name, unsigned id, uint32_t size)
{
	fprintf(f, "  <topic name=\"%s\" domain=\"2\" id=\"%X\">\n", name, id);
	if (size == 1) {
		fprintf(f, "    <attribute name=\"seq\" type=\"DDS_octet\"/>\n");
	} else {
		fprintf(f, "    <attribute name=\"seq\" type=\"DDS_unsigned_short\"/>\n");
		if (size == 3)
			fprintf(f, "    <attribute name=\"pad\" type=\"DDS_octet\"/>\n");
		else if (size > 3)
			fprintf(f, "    <attribute name=\"pad\" type=\"DDS_string\" size=\"%u\"/>\n",
				size - 3);
	}
	fprintf(f, "  </topic>\n");
}

/* The same layout for the native API (the daemon compares it with its node config). */
static void net_topic_desc(const char *name, unsigned id, uint32_t size, sdds_field *fields,
			   sdds_topic_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->name = name;
	d->domain = 2;
	d->id = (uint16_t)id;
	d->sample_size = size;
	d->fields = fields;
	fields[0] = (sdds_field){"seq", size == 1 ? SDDS_FIELD_OCTET : SDDS_FIELD_USHORT, size == 1 ? 1 : 2};
	d->n_fields = 1;
	if (size == 3) {
		fields[1] = (sdds_field){"pad", SDDS_FIELD_OCTET, 1};
		d->n_fields = 2;
	} else if (size > 3) {
		fields[1] = (sdds_field){"pad", SDDS_FIELD_STRING, size - 2};
		d->n_fields = 2;
	}
}

/*
 * Side's node config (its daemon publishes out_topic to the peer and
 * subscribes to in_topic) and daemon config (poll, peer_pack) in the rig's
 * directory. 0 or -1.
 */
static int net_write_side(struct net_ctx *c, int side, const char *out_topic, const char *in_topic)
{
	const char *me = side ? "fe80::b" : "fe80::a", *peer = side ? "fe80::a" : "fe80::b";
	char *xml = NULL, extra[128];
	size_t len = 0;
	FILE *f = open_memstream(&xml, &len);
	int rc;

	if (f == NULL)
		return -1;
	fprintf(f,
		"<project name=\"bench%s\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"%s\" "
		"iface=\"%s\" "
		"port=\"23234\">\n",
		side ? "b" : "a", me, netns.dev[side]);
	net_topic_xml(f, "ping", 0xA, c->o->b.size);
	net_topic_xml(f, "pong", 0xB, c->o->b.size);
	fprintf(f,
		"  <role topic=\"%s\" type=\"publisher\"/>\n"
		"  <role topic=\"%s\" type=\"subscriber\"/>\n"
		"  <subscription topic=\"%s\"><subscriber ip=\"%s\"/></subscription>\n"
		"</project>\n",
		out_topic, in_topic, out_topic, peer);
	if (fclose(f) != 0) {
		free(xml);
		return -1;
	}
	snprintf(extra, sizeof(extra), "poll = %s\n%s%s%s", c->o->poll ? "true" : "false",
		 c->pack ? "peer_pack = " : "", c->pack ? peer : "", c->pack ? "\n" : "");
	rc = netns_write_configs(side, xml, extra);
	free(xml);
	return rc;
}

static int net_write_sides(struct net_ctx *c)
{
	return net_write_side(c, 0, "ping", "pong") < 0 || net_write_side(c, 1, "pong", "ping") < 0 ? -1 : 0;
}

/* Both daemons, pinned to --cpus, logging to DIR/a.log and DIR/b.log. 0 or -1 with why. */
static int net_start_daemons(struct net_ctx *c, char *why)
{
	if (netns_daemon_start(0, c->o->b.sddsd_path, "a.log") < 0 ||
	    netns_daemon_start(1, c->o->b.sddsd_path, "b.log") < 0) {
		bench_why(why, "%s", netns.why);
		return -1;
	}
	return 0;
}

/* The rig's namespaces, veth and directory, the node configs, the daemons. Returns 0 or -1 with why. */
static int net_setup(struct net_ctx *c, char *why)
{
	netns.cpu[0] = c->o->cpu[0];
	netns.cpu[1] = c->o->cpu[1];
	if (netns_pair_setup("bn", "vna", "vnb") < 0) {
		bench_why(why, "%s", netns.why);
		return -1;
	}
	if (net_write_sides(c) < 0) {
		bench_why(why, "cannot write the node configs in %s", netns.dir);
		return -1;
	}
	netns_path("a.sock", c->sock_a, sizeof(c->sock_a));
	netns_path("b.sock", c->sock_b, sizeof(c->sock_b));
	netns_path("a.conf", c->conf_a, sizeof(c->conf_a));
	netns_path("b.conf", c->conf_b, sizeof(c->conf_b));
	return net_start_daemons(c, why);
}

static void net_shm_reset(struct net_ctx *c)
{
	memset(c->shm, 0, sizeof(*c->shm));
}

static int net_fail(struct net_ctx *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Record why a role failed (first one wins) and return its exit code. */
static int net_fail(struct net_ctx *c, int code, const char *fmt, ...)
{
	va_list ap;

	if (c->shm->why[0] == '\0') {
		va_start(ap, fmt);
		vsnprintf(c->shm->why, sizeof(c->shm->why), fmt, ap);
		va_end(ap);
	}
	return code;
}

/* ---- sddsd path ---- */

static int net_client_open(struct net_ctx *c, int side, const char *in, unsigned in_id, const char *out,
			   unsigned out_id, bool reliable, uint32_t depth, struct local_side *nc)
{
	const char *sock = side == 0 ? c->sock_a : c->sock_b, *what;
	bool mono = side == 0 ? c->mono_a : c->mono_b;
	sdds_field f_in[2], f_out[2];
	sdds_topic_desc d_in, d_out;
	sdds_client_options co;
	sdds_qos q;
	int rc;

	net_topic_desc(in, in_id, c->o->b.size, f_in, &d_in);
	net_topic_desc(out, out_id, c->o->b.size, f_out, &d_out);
	sdds_client_options_init(&co);
	co.socket_path = sock;
	co.name = "sdds-bench-net";
	co.reconnect = 0;
	/* libsddsmono is what makes the client monolithic: only sdds-bench-mono links it. */
	if (mono && !mono_process())
		return net_fail(c, 2, "a monolithic client outside sdds-bench-mono");
	if (mono)
		co.net_config = side == 0 ? c->conf_a : c->conf_b;
	sdds_qos_init(&q);
	q.reliability = reliable ? SDDS_RELIABLE : SDDS_BEST_EFFORT;
	q.history_depth = depth;
	q.max_blocking_ms = 1000;
	rc = local_side_open(&co, &d_in, &d_out, LOCAL_READER | LOCAL_WRITER, &q, nc, &what);
	if (rc < 0 && strcmp(what, "connect") == 0)
		return net_fail(c, 2, "%s %s: %s", mono ? "monolithic with" : "connect",
				mono ? co.net_config : sock, sdds_strerror(rc));
	if (rc < 0)
		return net_fail(c, 2, "%s: %s", what, sdds_strerror(rc));
	return 0;
}

static void net_seq_put(uint8_t *s, uint32_t size, uint32_t seq)
{
	if (size == 1) {
		s[0] = (uint8_t)seq;
	} else {
		s[0] = (uint8_t)(seq >> 8);
		s[1] = (uint8_t)seq;
	}
}

static uint32_t net_seq_get(const uint8_t *s, uint32_t size)
{
	return size == 1 ? s[0] : (uint32_t)s[0] << 8 | s[1];
}

/*
 * The harness's transport (pingpong.h) of one side of a latency run: a
 * client of that side's daemon, or a raw UDPv6 socket.
 */
struct net_pp {
	struct net_ctx *c;
	int side; /* 0: A pings, 1: B answers */
	struct local_side nc;
	int fd; /* raw */
};

static int net_pp_send(void *arg, const void *buf, uint32_t len)
{
	return sdds_writer_write(((struct net_pp *)arg)->nc.w, buf, len);
}

static int net_pp_recv(void *arg, void *buf, size_t cap, size_t *ret_len)
{
	struct net_pp *x = arg;
	int rc = sdds_reader_take(x->nc.r, buf, cap, ret_len, PINGPONG_SLICE_NS);

	/* Pong: its take time, before the answer leaves, so ping finds it once the answer is in. */
	if (rc == 0 && x->side == 1)
		atomic_store_explicit(&x->c->shm->arrive[net_seq_get(buf, x->c->o->b.size)], bench_now_ns(),
				      memory_order_release);
	return rc;
}

/* Ping: the legs of measured round k from pong's take time of its answer. */
static void net_pp_legs(void *arg, uint64_t k, uint64_t i, int64_t t0, int64_t t1, const void *in)
{
	struct net_pp *x = arg;
	struct net_shm *s = x->c->shm;
	int64_t at = atomic_load_explicit(&s->arrive[net_seq_get(in, x->c->o->b.size)], memory_order_acquire);

	(void)i;
	if (at < t0 || at > t1)
		s->legs_bad = true;
	s->legs[k] = (uint64_t)(at - t0);
	s->legs[x->c->o->b.iterations + k] = (uint64_t)(t1 - at);
}

static const struct pingpong_ops net_sdds_ops = {.send = net_pp_send,
						 .recv = net_pp_recv,
						 .strerror = sdds_strerror,
						 .measured = net_pp_legs,
						 .lost_ms = NET_PING_TIMEOUT_MS};

/* A side of the sddsd-path ping-pong, in its namespace. */
static int net_sdds_role(struct pingpong_shm *s, struct net_ctx *c, int side)
{
	struct net_pp x = {.c = c, .side = side};
	int rc;

	rc = side ? net_client_open(c, 1, "ping", 0xA, "pong", 0xB, true, 64, &x.nc)
		  : net_client_open(c, 0, "pong", 0xB, "ping", 0xA, true, 64, &x.nc);
	if (rc != 0)
		return pingpong_fail(s, side, 2, "%s", c->shm->why);
	rc = pingpong_side(s, side, &c->o->b, &net_sdds_ops, &x, "ping", "pong");
	if (rc == 0)
		local_side_close(&x.nc);
	return rc;
}

/* Throughput: the writer in A streams `ping` for tput_seconds (in A's namespace). */
static int net_sdds_write(struct net_ctx *c)
{
	struct local_side nc;
	uint8_t s[NET_MAX_SIZE];
	uint64_t n = 0;
	int64_t end;
	int rc;

	if (net_client_open(c, 0, "pong", 0xB, "ping", 0xA, false, 64, &nc) != 0)
		return 2;
	if (bench_wait_flag(&c->shm->ready, NULL, 10000000000LL) < 0)
		return net_fail(c, 2, "the reader never got ready");
	memset(s, 0, sizeof(s));
	c->shm->w_start_ns = bench_now_ns();
	end = c->shm->w_start_ns + (int64_t)(c->o->b.tput_seconds * 1e9);
	while (bench_now_ns() < end) {
		for (int b = 0; b < 64; b++) {
			net_seq_put(s, c->o->b.size, (uint32_t)n);
			rc = sdds_writer_write(nc.w, s, c->o->b.size);
			if (rc == -ETIMEDOUT || rc == -EAGAIN)
				continue;
			if (rc < 0)
				return net_fail(c, 2, "write: %s", sdds_strerror(rc));
			n++;
		}
	}
	c->shm->w_end_ns = bench_now_ns();
	c->shm->sent = n;
	atomic_store(&c->shm->done, 1);
	local_side_close(&nc);
	return 0;
}

static int net_sdds_read(struct net_ctx *c)
{
	struct local_side nc;
	uint8_t s[NET_MAX_SIZE];
	uint64_t n = 0;
	int rc;

	if (net_client_open(c, 1, "ping", 0xA, "pong", 0xB, false, 4096, &nc) != 0)
		return 2;
	atomic_store(&c->shm->ready, 1);
	for (;;) {
		size_t len;

		/* Once the writer is done, 300 ms without a sample ends the run. */
		rc = sdds_reader_take(nc.r, s, sizeof(s), &len, 300 * 1000000LL);
		if (rc == -ETIMEDOUT) {
			if (atomic_load(&c->shm->done))
				break;
			continue;
		}
		if (rc < 0)
			return net_fail(c, 2, "take: %s", sdds_strerror(rc));
		c->shm->last_ns = bench_now_ns();
		if (n++ == 0)
			c->shm->first_ns = c->shm->last_ns;
	}
	c->shm->received = n;
	c->shm->rlost = sdds_reader_lost(nc.r);
	local_side_close(&nc);
	return 0;
}

/*
 * The parts of the sddsd path. A part whose side is monolithic runs in
 * sdds-bench-mono (mono.h): its forked child enters the namespace, then
 * execs that with the part's arguments, the run's net_shm and, for the
 * ping-pong, the harness's control block.
 */
enum net_part { NET_PART_PING, NET_PART_PONG, NET_PART_WRITER, NET_PART_READER };

#define NET_PART_SIDE(p) ((int)(p)&1)

/* What sdds-bench-mono's net role gets: plain values. */
struct net_mono_args {
	struct mono_opts o;
	uint32_t part; /* enum net_part */
	uint8_t mono[2];
	char sock[2][108];
	char conf[2][PATH_MAX];
};

static int net_sdds_part(struct net_ctx *c, enum net_part part, struct pingpong_shm *s)
{
	switch (part) {
	case NET_PART_PING:
	case NET_PART_PONG:
		return net_sdds_role(s, c, NET_PART_SIDE(part));
	case NET_PART_WRITER:
		return net_sdds_write(c);
	case NET_PART_READER:
		return net_sdds_read(c);
	}
	return 2;
}

/* A part's forked child: into the side's namespace, then the part here or in sdds-bench-mono. */
static int net_sdds_start(struct net_ctx *c, enum net_part part, struct pingpong_shm *s)
{
	int side = NET_PART_SIDE(part);
	struct net_mono_args a;
	void *shm[2] = {c->shm, s};
	char what[64];
	int rc;

	snprintf(what, sizeof(what), "setns %s", netns.ns[side]);
	if ((rc = netns_enter(side)) < 0)
		goto fail;
	if (!(side ? c->mono_b : c->mono_a))
		return net_sdds_part(c, part, s);
	memset(&a, 0, sizeof(a));
	mono_opts_put(&c->o->b, &a.o);
	a.part = part;
	a.mono[0] = c->mono_a;
	a.mono[1] = c->mono_b;
	memcpy(a.sock[0], c->sock_a, sizeof(a.sock[0]));
	memcpy(a.sock[1], c->sock_b, sizeof(a.sock[1]));
	memcpy(a.conf[0], c->conf_a, sizeof(a.conf[0]));
	memcpy(a.conf[1], c->conf_b, sizeof(a.conf[1]));
	snprintf(what, sizeof(what), "monolithic side %c: cannot run sdds-bench-mono", side ? 'B' : 'A');
	rc = mono_exec(NET_MONO_ROLE, &a, sizeof(a), shm, s ? 2 : 1);
fail:
	if (s)
		return pingpong_fail(s, side, 2, "%s: %s", what, strerror(-rc));
	return net_fail(c, 2, "%s: %s", what, strerror(-rc));
}

static int net_sdds_pp(struct pingpong_shm *s, void *arg, int side)
{
	return net_sdds_start(arg, side ? NET_PART_PONG : NET_PART_PING, s);
}

static int net_sdds_writer(void *arg)
{
	return net_sdds_start(arg, NET_PART_WRITER, NULL);
}

static int net_sdds_reader(void *arg)
{
	return net_sdds_start(arg, NET_PART_READER, NULL);
}

int net_mono_role(struct mono_call *m)
{
	static struct net_opts o;
	static struct net_ctx c;
	struct net_mono_args *a = m->args;
	bool pp;

	if (m->len != sizeof(*a) || m->n_shm < 1 || a->part > NET_PART_READER)
		goto bad;
	pp = a->part == NET_PART_PING || a->part == NET_PART_PONG;
	o.b = *mono_opts_get(&a->o);
	if (o.b.size < 1 || o.b.size > NET_MAX_SIZE || m->n_shm != (pp ? 2 : 1) ||
	    m->shm_size[0] < sizeof(struct net_shm) + 2 * o.b.iterations * sizeof(uint64_t) ||
	    (pp && m->shm_size[1] < pingpong_shm_size(&o.b)))
		goto bad;
	c.o = &o;
	c.mono_a = a->mono[0];
	c.mono_b = a->mono[1];
	memcpy(c.sock_a, a->sock[0], sizeof(c.sock_a));
	memcpy(c.sock_b, a->sock[1], sizeof(c.sock_b));
	memcpy(c.conf_a, a->conf[0], sizeof(c.conf_a));
	memcpy(c.conf_b, a->conf[1], sizeof(c.conf_b));
	c.sock_a[sizeof(c.sock_a) - 1] = c.sock_b[sizeof(c.sock_b) - 1] = '\0';
	c.conf_a[sizeof(c.conf_a) - 1] = c.conf_b[sizeof(c.conf_b) - 1] = '\0';
	c.shm = m->shm[0];
	c.shm_size = m->shm_size[0];
	return net_sdds_part(&c, a->part, pp ? m->shm[1] : NULL);
bad:
	fprintf(stderr, "sdds-bench-mono: %s: arguments of %zu bytes, %d shared areas: not mine\n", m->role,
		m->len, m->n_shm);
	return 2;
}

/* ---- raw UDPv6 ---- */

/* A socket bound to [me%dev]:port, connected to [peer%dev]:port when peer is given. */
static int net_udp(const char *me, const char *peer, const char *dev, uint16_t port, int *ret_fd)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), big = 4 << 20;

	if (fd < 0)
		return -errno;
	a.sin6_scope_id = if_nametoindex(dev);
	inet_pton(AF_INET6, me, &a.sin6_addr);
	/* The same queues as the daemon's sockets (FORCE as root). */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	big = 1 << 20;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	if (a.sin6_scope_id == 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		goto fail;
	if (peer != NULL) {
		inet_pton(AF_INET6, peer, &a.sin6_addr);
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			goto fail;
	}
	*ret_fd = fd;
	return 0;
fail : {
	int rc = -errno;

	close(fd);
	return rc ? rc : -ENODEV;
}
}

static void net_rcvtimeo(int fd, int ms)
{
	struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

static int net_raw_send(void *arg, const void *buf, uint32_t len)
{
	if (send(((struct net_pp *)arg)->fd, buf, len, 0) < 0 && errno != ECONNREFUSED)
		return -errno;
	return 0;
}

/* One slice: SO_RCVTIMEO of 100 ms, or one non-blocking try when busy-polling. */
static int net_raw_recv(void *arg, void *buf, size_t cap, size_t *ret_len)
{
	struct net_pp *x = arg;
	ssize_t n = recv(x->fd, buf, cap, x->c->raw_busy ? MSG_DONTWAIT : 0);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED ? -EAGAIN : -errno;
	*ret_len = (size_t)n;
	return 0;
}

static const struct pingpong_ops net_raw_ops = {
    .send = net_raw_send, .recv = net_raw_recv, .lost_ms = NET_PING_TIMEOUT_MS};

static int net_raw_role(struct pingpong_shm *s, void *arg, int side)
{
	struct net_ctx *c = arg;
	struct net_pp x = {.c = c, .side = side};
	int rc;

	if ((rc = netns_enter(side)) < 0 ||
	    (rc = side ? net_udp("fe80::b", "fe80::a", "vnb", NET_RAW_PORT, &x.fd)
		       : net_udp("fe80::a", "fe80::b", "vna", NET_RAW_PORT, &x.fd)) < 0)
		return pingpong_fail(s, side, 2, "raw %s socket: %s", side ? "pong" : "ping", strerror(-rc));
	net_rcvtimeo(x.fd, 100);
	rc = pingpong_side(s, side, &c->o->b, &net_raw_ops, &x, "raw ping", "raw pong");
	close(x.fd);
	return rc;
}

static int net_raw_sender(void *arg)
{
	struct net_ctx *c = arg;
	uint8_t buf[NET_BATCH][NET_MAX_FRAME];
	struct iovec iov[NET_BATCH];
	struct mmsghdr m[NET_BATCH];
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} gso_ctl;
	uint64_t n = 0;
	int64_t end;
	int fd, rc;

	if ((rc = netns_enter(0)) < 0 ||
	    (rc = net_udp("fe80::a", "fe80::b", "vna", NET_RAW_PORT + 1, &fd)) < 0)
		return net_fail(c, 2, "raw sender socket: %s", strerror(-rc));
	if (bench_wait_flag(&c->shm->ready, NULL, 10000000000LL) < 0)
		return net_fail(c, 2, "the raw receiver never got ready");
	memset(buf, 0, sizeof(buf));
	memset(m, 0, sizeof(m));
	for (int i = 0; i < NET_BATCH; i++) {
		iov[i] = (struct iovec){buf[i], c->raw_size};
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	/* GSO: the whole batch as one message the kernel cuts into datagrams, as sddsd sends a run. */
	if (c->raw_gso) {
		uint16_t seg = (uint16_t)c->raw_size;
		struct cmsghdr *cm;

		memset(&gso_ctl, 0, sizeof(gso_ctl));
		m[0].msg_hdr.msg_iovlen = NET_BATCH;
		m[0].msg_hdr.msg_control = gso_ctl.buf;
		m[0].msg_hdr.msg_controllen = sizeof(gso_ctl.buf);
		cm = CMSG_FIRSTHDR(&m[0].msg_hdr);
		cm->cmsg_level = SOL_UDP;
		cm->cmsg_type = UDP_SEGMENT;
		cm->cmsg_len = CMSG_LEN(sizeof(seg));
		memcpy(CMSG_DATA(cm), &seg, sizeof(seg));
	}
	c->shm->w_start_ns = bench_now_ns();
	end = c->shm->w_start_ns + (int64_t)(c->o->b.tput_seconds * 1e9);
	while (bench_now_ns() < end) {
		for (int i = 0; i < NET_BATCH; i++)
			net_seq_put(buf[i], c->raw_size, (uint32_t)(n + (uint64_t)i));
		rc = sendmmsg(fd, m, c->raw_gso ? 1 : NET_BATCH, 0);
		if (rc < 0 &&
		    (errno == ENOBUFS || errno == EAGAIN || errno == ECONNREFUSED || errno == EINTR))
			continue;
		if (rc < 0)
			return net_fail(c, 2, "sendmmsg: %s", strerror(errno));
		n += c->raw_gso ? (uint64_t)rc * NET_BATCH : (uint64_t)rc;
	}
	c->shm->w_end_ns = bench_now_ns();
	c->shm->sent = n;
	atomic_store(&c->shm->done, 1);
	close(fd);
	return 0;
}

static int net_raw_receiver(void *arg)
{
	struct net_ctx *c = arg;
	static uint8_t buf[64][NET_MAX_FRAME];
	struct iovec iov[64];
	struct mmsghdr m[64];
	uint64_t n = 0;
	int fd, rc;

	if ((rc = netns_enter(1)) < 0 || (rc = net_udp("fe80::b", NULL, "vnb", NET_RAW_PORT + 1, &fd)) < 0)
		return net_fail(c, 2, "raw receiver socket: %s", strerror(-rc));
	net_rcvtimeo(fd, 300);
	memset(m, 0, sizeof(m));
	for (int i = 0; i < 64; i++) {
		iov[i] = (struct iovec){buf[i], sizeof(buf[i])};
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	atomic_store(&c->shm->ready, 1);
	for (;;) {
		rc = recvmmsg(fd, m, 64, MSG_WAITFORONE, NULL);
		if (rc < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (atomic_load(&c->shm->done))
				break;
			continue;
		}
		if (rc < 0)
			return net_fail(c, 2, "recvmmsg: %s", strerror(errno));
		c->shm->last_ns = bench_now_ns();
		if (n == 0)
			c->shm->first_ns = c->shm->last_ns;
		n += (uint64_t)rc;
	}
	c->shm->received = n;
	close(fd);
	return 0;
}

/* ---- running the pairs ---- */

/* Run two roles (a in ns A, b in ns B), b first; returns 0 or -1 with why. */
static int net_pair(struct net_ctx *c, proc_role_fn a, proc_role_fn b, double seconds, char *why)
{
	struct proc_pair p = {.fn = {a, b},
			      .arg = {c, c},
			      .cpu = {c->o->cpu[0], c->o->cpu[1]},
			      .name = {"A side", "B side"},
			      .why = {c->shm->why, NULL}};

	net_shm_reset(c);
	return proc_run_pair(&p, bench_now_ns() + (int64_t)((seconds + 20) * 1e9), why) < 0 ? -1 : 0;
}

static void net_latency(struct net_ctx *c, pingpong_role_fn role, const char *name, bool legs,
			struct net_lat *ret)
{
	const struct bench_opts *o = &c->o->b;
	struct pingpong_run_args r = {
	    .role = role, .arg = c, .ping_cpu = c->o->cpu[0], .pong_cpu = c->o->cpu[1], .name = name};
	uint64_t n;

	net_shm_reset(c);
	pingpong_run(o, &r, &ret->lat);
	ret->lost = ret->lat.lost;
	n = ret->lat.done;
	if (legs && ret->lat.ok && n > 0 && !c->shm->legs_bad) {
		stats_compute(c->shm->legs, n, 1.0, &ret->ab);
		stats_compute(c->shm->legs + o->iterations, n, 1.0, &ret->ba);
		ret->legs = true;
	}
}

static void net_throughput(struct net_ctx *c, proc_role_fn writer, proc_role_fn reader,
			   struct tput_result *ret)
{
	ret->ran = true;
	if (net_pair(c, writer, reader, c->o->b.tput_seconds + 5, ret->why) < 0)
		return;
	ret->written = c->shm->sent;
	ret->received = c->shm->received;
	ret->lost = c->shm->rlost;
	ret->seconds = (double)(c->shm->last_ns - c->shm->first_ns) / 1e9;
	if (c->shm->w_end_ns > c->shm->w_start_ns)
		ret->writer_rate =
		    (double)ret->written / ((double)(c->shm->w_end_ns - c->shm->w_start_ns) / 1e9);
	if (ret->received < 2 || ret->seconds <= 0) {
		bench_why(ret->why, "%llu received of %llu sent", (unsigned long long)ret->received,
			  (unsigned long long)ret->written);
		return;
	}
	ret->rate = (double)(ret->received - 1) / ret->seconds;
	ret->ok = true;
}

/*
 * Daemon B's network counters (sddsctl --json net): frames, samples and
 * bytes in. 0, or -1 with why.
 */
static int net_ctl_counts(struct net_ctx *c, uint64_t *frames, uint64_t *samples, uint64_t *bytes, char *why)
{
	char cmd[PATH_MAX * 2 + 128], buf[16384];
	struct json_object *doc;
	double fr, sa, by;
	size_t len;
	FILE *f;
	int rc = 0;

	if (c->sddsctl[0] == '\0') {
		bench_why(why, "sddsctl not found (frames/s need daemon B's counters)");
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "ip netns exec %s %s --json --socket %s net 2>/dev/null", netns.ns[1],
		 c->sddsctl, c->sock_b);
	fflush(stdout);
	f = popen(cmd, "r");
	if (f == NULL) {
		bench_why(why, "popen: %s", strerror(errno));
		return -1;
	}
	len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = '\0';
	if (pclose(f) != 0 || (doc = mdrun_json_parse(buf)) == NULL) {
		bench_why(why, "sddsctl net: no JSON object");
		return -1;
	}
	/* The daemon's totals, not a peer's ("net" is null when its network is off). */
	if (mdrun_jnum(doc, "net.frames_in", &fr) < 0 || mdrun_jnum(doc, "net.samples_in", &sa) < 0 ||
	    mdrun_jnum(doc, "net.bytes_in", &by) < 0) {
		bench_why(why, "sddsctl net: no network counters frames_in/samples_in/bytes_in");
		rc = -1;
	} else {
		*frames = (uint64_t)fr;
		*samples = (uint64_t)sa;
		*bytes = (uint64_t)by;
	}
	mdrun_json_free(doc);
	return rc;
}

/* Where sddsctl is: next to sddsd in the build tree or the install, else on PATH. */
static void net_find_sddsctl(struct net_ctx *c)
{
	char dir[PATH_MAX], cand[PATH_MAX + 64];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", c->o->b.sddsd_path);
	slash = strrchr(dir, '/');
	if (slash != NULL) {
		*slash = '\0';
		snprintf(cand, sizeof(cand), "%s/../tools/sddsctl/sddsctl", dir);
		if (access(cand, X_OK) == 0 && realpath(cand, c->sddsctl) != NULL)
			return;
		snprintf(cand, sizeof(cand), "%s/sddsctl", dir);
		if (access(cand, X_OK) == 0 && realpath(cand, c->sddsctl) != NULL)
			return;
	}
	if (mdrun_which("sddsctl", c->sddsctl, sizeof(c->sddsctl)) < 0)
		c->sddsctl[0] = '\0';
}

/* The sddsd throughput run between two readings of daemon B's counters. */
static void net_sdds_throughput(struct net_ctx *c, struct tput_result *t, struct net_frames *fr)
{
	uint64_t f0, s0, b0, f1, s1, b1;
	bool before = net_ctl_counts(c, &f0, &s0, &b0, fr->why) == 0;

	net_throughput(c, net_sdds_writer, net_sdds_reader, t);
	if (!before || !t->ok || net_ctl_counts(c, &f1, &s1, &b1, fr->why) < 0)
		return;
	fr->frames = f1 - f0;
	fr->samples = s1 - s0;
	fr->bytes = b1 - b0;
	if (fr->frames < 2 || t->seconds <= 0) {
		bench_why(fr->why, "%llu frames arrived", (unsigned long long)fr->frames);
		return;
	}
	/* Over the reader's interval, as the samples/s: a frame is taken with its samples. */
	fr->rate = (double)fr->frames * ((double)(t->received - 1) / (double)t->received) / t->seconds;
	fr->ok = true;
}

/*
 * The throughput run again with each daemon marking the other peer_pack:
 * both daemons are restarted on the rewritten configs, which are put back
 * afterwards (a monolithic side reads A's). Fails into t->why / fr->why.
 */
static void net_packed_throughput(struct net_ctx *c, struct tput_result *t, struct net_frames *fr)
{
	netns_daemon_stop(0);
	netns_daemon_stop(1);
	c->pack = true;
	if (net_write_sides(c) < 0) {
		bench_why(t->why, "cannot write the configs in %s", netns.dir);
		goto restore;
	}
	if (net_start_daemons(c, t->why) < 0)
		goto restore;
	net_sdds_throughput(c, t, fr);
restore:
	c->pack = false;
	if (net_write_sides(c) < 0)
		fprintf(stderr, "sdds-bench net: cannot put the configs back in %s\n", netns.dir);
}

/* ---- Cyclone DDS ddsperf ---- */

static int net_ddsperf_xml(struct net_ctx *c, const char *name, const char *dev)
{
	char path[PATH_MAX + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cyclonedds-%s.xml", netns.dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	/* The content of tools/sdds-bench/cyclonedds-veth6.xml, with this side's interface. */
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n"
		"<CycloneDDS xmlns=\"https://cdds.io/config\">\n"
		"  <Domain id=\"any\">\n"
		"    <General>\n"
		"      <Interfaces><NetworkInterface name=\"%s\"/></Interfaces>\n"
		"      <AllowMulticast>spdp</AllowMulticast>\n"
		"      <Transport>udp6</Transport>\n"
		"    </General>\n"
		"    <Discovery><ParticipantIndex>auto</ParticipantIndex>"
		"<MaxAutoParticipantIndex>20</MaxAutoParticipantIndex></Discovery>\n"
		"    <Tracing><Verbosity>warning</Verbosity><OutputFile>stderr</OutputFile></Tracing>\n"
		"  </Domain>\n"
		"</CycloneDDS>\n",
		dev);
	return fclose(f) != 0 ? -EIO : 0;
}

/*
 * ddsperf pong in B, ping in A, for ddsperf_seconds; keeps ping's last
 * summary. The payload is the nearest ddsperf has: up to 4 bytes its OU
 * topic (one 4-byte unsigned), else its KS topic, whose size counts a
 * 12-byte fixed part (so at least 12 bytes); the report says which.
 */
static void net_ddsperf(struct net_ctx *c, struct net_ddsperf *r)
{
	char out[PATH_MAX + 32], line[512], uri[PATH_MAX + 64], dur[16], size_buf[32] = "";
	char stop_why[BENCH_WHY_MAX];
	int secs = (int)(c->o->ddsperf_seconds + 0.5), st;
	const char *topic = "OU", *size_arg = "";
	const char *argv[] = {"ip", "netns", "exec", netns.ns[1], "env", uri,	 "ddsperf", "-i",
			      "77", "-T",    topic,  "-D",	  dur,	 "pong", NULL};
	struct proc_exec x = {.argv = argv, .log = out, .name = "ddsperf pong"};
	pid_t pong;
	FILE *f;

	r->ran = true;
	if (c->o->b.size <= 4) {
		snprintf(r->payload, sizeof(r->payload), "OU topic, 4 bytes (ddsperf has nothing smaller)");
	} else {
		uint32_t sz = c->o->b.size < 12 ? 12 : c->o->b.size;

		topic = argv[10] = "KS";
		snprintf(size_buf, sizeof(size_buf), " size %u", sz);
		size_arg = size_buf;
		snprintf(r->payload, sizeof(r->payload),
			 "KS topic, %u bytes including its 12-byte fixed part", sz);
	}
	if (mdrun_which("ddsperf", out, sizeof(out)) < 0) {
		bench_why(r->why, "ddsperf not installed (apt-get install cyclonedds-tools)");
		return;
	}
	if (net_ddsperf_xml(c, "a", "vna") < 0 || net_ddsperf_xml(c, "b", "vnb") < 0) {
		bench_why(r->why, "cannot write the Cyclone DDS configs");
		return;
	}
	snprintf(out, sizeof(out), "%s/ddsperf-pong.txt", netns.dir);
	snprintf(uri, sizeof(uri), "CYCLONEDDS_URI=file://%s/cyclonedds-b.xml", netns.dir);
	snprintf(dur, sizeof(dur), "%d", secs + 5);
	if (proc_exec_start(&x, &pong, r->why) < 0)
		return;
	snprintf(
	    r->cmd, sizeof(r->cmd),
	    "ip netns exec %s env CYCLONEDDS_URI=file://%s/cyclonedds-a.xml ddsperf -i 77 -T %s -D %d ping%s",
	    netns.ns[0], netns.dir, topic, secs, size_arg);
	snprintf(out, sizeof(out), "%s 2>&1", r->cmd);
	fflush(stdout);
	f = popen(out, "r");
	if (f == NULL) {
		bench_why(r->why, "popen: %s", strerror(errno));
	} else {
		/*
		 * ddsperf prints one summary per reporting interval (1 s), its
		 * latencies already halved (one-way); the last one is kept and
		 * quoted as such, not merged with our figures.
		 */
		char last[512] = "";

		while (fgets(line, sizeof(line), f) != NULL) {
			line[strcspn(line, "\n")] = '\0';
			if (line[0] != '\0')
				snprintf(last, sizeof(last), "%s", line);
			if (strstr(line, "mean") != NULL && strstr(line, "%") != NULL)
				snprintf(r->line, sizeof(r->line), "%s", line);
		}
		st = pclose(f);
		if (r->line[0] != '\0' && st == 0)
			r->ok = true;
		else
			bench_why(r->why, "ddsperf ping printed no round-trip summary (status %d): %s", st,
				  last);
	}
	proc_exec_stop(pong, SIGTERM, 5, x.name, NULL, stop_why); /* its figures are ping's */
}

/* ---- report ---- */

/* a / b of two legs' medians, or -1 when either run lacks its legs or was cut short. */
static double net_leg_ratio(const struct stats *a, const struct stats *b, bool ok)
{
	return ok && b->median > 0 ? a->median / b->median : -1;
}

static void net_json_lat(struct json *j, const char *key, const struct net_lat *nl)
{
	const struct lat_result *l = &nl->lat;

	json_obj_begin(j, key);
	json_bool(j, "ok", l->ok);
	if (l->ok) {
		json_uint(j, "n", l->st.n);
		json_uint(j, "unanswered", nl->lost);
		if (nl->legs) {
			json_num(j, "a_to_b_median_us", nl->ab.median / 1e3);
			json_num(j, "a_to_b_p99_us", nl->ab.p99 / 1e3);
			json_num(j, "b_to_a_median_us", nl->ba.median / 1e3);
			json_num(j, "b_to_a_p99_us", nl->ba.p99 / 1e3);
		}
	} else {
		json_str(j, "why", l->why);
	}
	pingpong_json(j, l, false);
	json_obj_end(j);
}

static void net_json_tput(struct json *j, const char *key, const struct tput_result *t)
{
	json_obj_begin(j, key);
	json_bool(j, "ok", t->ok);
	if (t->ok) {
		json_num(j, "rate", t->rate);
		json_uint(j, "sent", t->written);
		json_uint(j, "received", t->received);
		json_uint(j, "reader_lost", t->lost);
		json_num(j, "sender_rate", t->writer_rate);
	} else {
		json_str(j, "why", t->why);
	}
	json_obj_end(j);
}

static void net_json_ratio(struct json *j, const char *key, double v)
{
	if (v < 0)
		json_null(j, key);
	else
		json_num(j, key, v);
}

static void net_report_json(FILE *f, const struct net_opts *o, const struct net_results *r)
{
	bool split =
	    r->sdds.legs && r->mixed.legs && bench_lat_full(&r->sdds.lat) && bench_lat_full(&r->mixed.lat);
	struct json j;

	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_str(&j, "bench", "net");
	json_uint(&j, "size", o->b.size);
	json_uint(&j, "iterations", o->b.iterations);
	json_str(&j, "daemon_mode", o->poll ? "polling" : "blocking");
	json_int(&j, "cpu_a", o->cpu[0]);
	json_int(&j, "cpu_b", o->cpu[1]);
	json_obj_begin(&j, "latency");
	net_json_lat(&j, "sddsd", &r->sdds);
	net_json_lat(&j, "raw_udp6", &r->raw);
	if (o->poll)
		net_json_lat(&j, "raw_udp6_busy", &r->raw_busy);
	json_obj_end(&j);
	json_obj_begin(&j, "throughput");
	json_num(&j, "seconds", o->b.tput_seconds);
	net_json_tput(&j, "sddsd", &r->sdds_tput);
	net_json_tput(&j, "raw_udp6_sendmmsg", &r->raw_tput);
	/* The same datagrams as UDP GSO messages of NET_BATCH: the kernel's ceiling for sddsd's way. */
	net_json_tput(&j, "raw_udp6_gso", &r->raw_gso_tput);
	json_obj_begin(&j, "sddsd_frames");
	json_bool(&j, "ok", r->frames.ok);
	if (r->frames.ok) {
		json_num(&j, "rate", r->frames.rate);
		json_uint(&j, "frames", r->frames.frames);
		json_uint(&j, "samples", r->frames.samples);
		json_uint(&j, "bytes", r->frames.bytes);
	} else {
		json_str(&j, "why", r->frames.why);
	}
	json_obj_end(&j);
	json_uint(&j, "raw_datagram_bytes", r->raw_size);
	/* The packed run (peer_pack both ways): shown beside, never in the ratios. */
	net_json_tput(&j, "sddsd_packed", &r->packed_tput);
	json_obj_begin(&j, "sddsd_packed_frames");
	json_bool(&j, "ok", r->packed_frames.ok);
	if (r->packed_frames.ok) {
		json_num(&j, "rate", r->packed_frames.rate);
		json_uint(&j, "frames", r->packed_frames.frames);
		json_uint(&j, "samples", r->packed_frames.samples);
	} else {
		json_str(&j, "why", r->packed_frames.why);
	}
	json_obj_end(&j);
	json_obj_end(&j);
	json_obj_begin(&j, "ddsperf");
	json_bool(&j, "ran", r->dp.ran);
	json_bool(&j, "ok", r->dp.ok);
	if (r->dp.ok) {
		json_str(&j, "payload", r->dp.payload);
		json_str(&j, "summary", r->dp.line);
		json_str(&j, "command", r->dp.cmd);
	} else {
		json_str(&j, "why", r->dp.ran ? r->dp.why : "--no-ddsperf");
	}
	json_obj_end(&j);
	json_obj_begin(&j, "monolithic");
	json_bool(&j, "requested", o->monolithic);
	json_bool(&j, "available", true);
	if (o->monolithic) {
		net_json_lat(&j, "latency", &r->mono);
		net_json_lat(&j, "latency_mixed", &r->mixed);
		net_json_tput(&j, "throughput", &r->mono_tput);
		net_json_ratio(&j, "ratio_send", net_leg_ratio(&r->sdds.ab, &r->mixed.ab, split));
		net_json_ratio(&j, "ratio_receive", net_leg_ratio(&r->sdds.ba, &r->mixed.ba, split));
	}
	json_obj_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

/* ---- command line ---- */

enum {
	NET_OPT_MONO = BENCH_OPT_OWN,
	NET_OPT_MONO_ONLY,
	NET_OPT_POLL,
	NET_OPT_NO_DDSPERF,
	NET_OPT_DDSPERF_SECONDS,
	NET_OPT_CPUS
};

static void net_usage(FILE *f)
{
	fprintf(f,
		"usage: sdds-bench net [options]   (root: network namespaces and a veth pair)\n"
		"\n"
		"One-way latency (ping-pong, RTT/2) of a sample from a client in namespace A\n"
		"through sddsd A, UDPv6 over veth, sddsd B to a client in namespace B and\n"
		"back, against raw UDPv6 ping-pong between the same namespaces; throughput of\n"
		"one streaming writer against raw UDPv6 sendmmsg; Cyclone DDS ddsperf\n"
		"ping/pong alongside when it is installed.\n"
		"\n"
		"  -n, --iterations N     measured round trips per latency run (default %d)\n"
		"      --warmup N         unmeasured round trips first (default %d)\n"
		"  -s, --size N           sample bytes, 1..%d (default %d)\n"
		"      --max-seconds S    cap on the measured part of one latency run (default 60)\n"
		"  -t, --tput-seconds S   length of one throughput run (default 2)\n"
		"      --poll             daemons (and monolithic applications) in polling mode, and a\n"
		"                         busy-polled raw UDPv6 ping-pong for the same-mode ratio\n"
		"      --ddsperf-seconds S  length of the ddsperf run (default 10)\n"
		"      --no-ddsperf       do not run ddsperf\n"
		"      --monolithic       also the same path with the broker core and sddsd's network\n"
		"                         layer in the applications (A, then both), and the ratios\n"
		"      --monolithic-only  only the monolithic (both sides) ping-pong and throughput\n"
		"      --cpus A,B         side A's processes (daemon, clients) on CPU A, side B's on\n"
		"                         CPU B (default: anywhere; ddsperf is not pinned)\n"
		"      --sddsd PATH       the daemon binary (default: ../../daemon/sddsd from here)\n"
		"      --raw PREFIX       write per-iteration one-way ns to PREFIX-net-<run>.txt\n"
		"      --json             print JSON (the only output; kept for scripts)\n"
		"  -h, --help\n"
		"\n"
		"Exit status: 0 all runs succeeded, 1 a run failed, 2 usage error,\n"
		"%d cannot run here (not root, no network namespaces).\n",
		NET_DEFAULT_ITERATIONS, NET_DEFAULT_WARMUP, NET_MAX_SIZE, NET_DEFAULT_SIZE, NET_EXIT_CANNOT);
}

/* The options of `net` beyond the common ones (bench_cli). */
static int net_option(void *ctx, int c, const char *arg)
{
	struct net_opts *o = ctx;

	switch (c) {
	case NET_OPT_DDSPERF_SECONDS:
		return bench_parse_double(arg, 1, 3600, &o->ddsperf_seconds);
	case NET_OPT_POLL:
		o->poll = true;
		break;
	case NET_OPT_NO_DDSPERF:
		o->no_ddsperf = true;
		break;
	case NET_OPT_MONO_ONLY:
		o->mono_only = true;
		/* fall through */
	case NET_OPT_MONO:
		o->monolithic = true;
		break;
	case NET_OPT_CPUS:
		return bench_parse_cpus(arg, 2, o->cpu);
	}
	return 0;
}

static int net_parse(int argc, char **argv, struct net_opts *o)
{
	static const struct option own[] = {
	    {"poll", no_argument, NULL, NET_OPT_POLL},
	    {"ddsperf-seconds", required_argument, NULL, NET_OPT_DDSPERF_SECONDS},
	    {"no-ddsperf", no_argument, NULL, NET_OPT_NO_DDSPERF},
	    {"monolithic", no_argument, NULL, NET_OPT_MONO},
	    {"monolithic-only", no_argument, NULL, NET_OPT_MONO_ONLY},
	    {"cpus", required_argument, NULL, NET_OPT_CPUS},
	    {NULL, 0, NULL, 0},
	};
	static const struct bench_cli cli = {
	    .prog = "sdds-bench net",
	    .common = BENCH_OPT_ITERATIONS | BENCH_OPT_WARMUP | BENCH_OPT_SIZE | BENCH_OPT_MAX_SECONDS |
		      BENCH_OPT_TPUT_SECONDS | BENCH_OPT_SDDSD | BENCH_OPT_RAW | BENCH_OPT_JSON,
	    .max_size = NET_MAX_SIZE,
	    .max_iterations = 1000000000,
	    .own = own,
	    .parse = net_option,
	    .usage = net_usage,
	};

	*o = (struct net_opts){
	    .b = {.size = NET_DEFAULT_SIZE,
		  .iterations = NET_DEFAULT_ITERATIONS,
		  .warmup = NET_DEFAULT_WARMUP,
		  .max_seconds = 60,
		  .tput_seconds = 2,
		  .reliable = true},
	    .ddsperf_seconds = 10,
	    .cpu = {BENCH_CPU_ANY, BENCH_CPU_ANY},
	};
	return bench_cli_parse(&cli, argc, argv, &o->b, o);
}

int net_main(int argc, char **argv)
{
	static struct net_ctx c;
	static struct net_results r;
	char sddsd_buf[PATH_MAX], why[BENCH_WHY_MAX];
	struct proc_shm shm;
	struct net_opts o;
	int rc;

	rc = net_parse(argc, argv, &o);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (geteuid() != 0) {
		fprintf(stderr,
			"sdds-bench net: needs root (network namespaces, a veth pair): not run (exit %d)\n",
			NET_EXIT_CANNOT);
		return NET_EXIT_CANNOT;
	}
	if (sddsd_find(o.b.sddsd_path, sddsd_buf, sizeof(sddsd_buf)) < 0) {
		fprintf(stderr, "sdds-bench net: sddsd not found (give --sddsd PATH)\n");
		return 1;
	}
	o.b.sddsd_path = sddsd_buf;
	if (o.b.iterations < 100000)
		fprintf(stderr, "sdds-bench: note: %llu iterations; report figures from >= 100000\n",
			(unsigned long long)o.b.iterations);
	c.o = &o;
	/* The RTTs, then the A->B legs. */
	c.shm_size = sizeof(struct net_shm) + 2 * o.b.iterations * sizeof(uint64_t);
	rc = proc_shm_new(c.shm_size, &shm);
	if (rc < 0) {
		fprintf(stderr, "sdds-bench net: shared memory: %s\n", strerror(-rc));
		return 1;
	}
	c.shm = shm.base;
	fprintf(stderr, "sdds-bench net: namespaces, veth, daemons\n");
	if (net_setup(&c, why) < 0) {
		bool cannot = strstr(why, "ip netns add") != NULL;

		fprintf(stderr, "sdds-bench net: setup failed: %s\n", why);
		netns_cleanup();
		proc_shm_free(&shm);
		return cannot ? NET_EXIT_CANNOT : 1;
	}
	net_find_sddsctl(&c);
	if (o.mono_only) {
		char *skipped[] = {r.sdds.lat.why,    r.raw.lat.why,	  r.raw_busy.lat.why, r.mixed.lat.why,
				   r.sdds_tput.why,   r.raw_tput.why,	  r.raw_gso_tput.why, r.frames.why,
				   r.packed_tput.why, r.packed_frames.why};

		for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
			bench_why(skipped[i], "not run (--monolithic-only)");
		o.no_ddsperf = true;
		goto mono;
	}
	fprintf(stderr, "sdds-bench net: sddsd latency\n");
	net_latency(&c, net_sdds_pp, "net-sddsd", true, &r.sdds);
	fprintf(stderr, "sdds-bench net: raw UDPv6 latency\n");
	net_latency(&c, net_raw_role, "net-raw", false, &r.raw);
	if (o.poll) {
		fprintf(stderr, "sdds-bench net: raw UDPv6 latency, busy-polled\n");
		c.raw_busy = true;
		net_latency(&c, net_raw_role, "net-raw-busy", false, &r.raw_busy);
		c.raw_busy = false;
	}
	fprintf(stderr, "sdds-bench net: sddsd throughput\n");
	net_sdds_throughput(&c, &r.sdds_tput, &r.frames);
	/* Raw datagrams of sddsd's mean frame size, else of one sample. */
	c.raw_size = o.b.size;
	if (r.frames.ok) {
		uint64_t mean = (r.frames.bytes + r.frames.frames / 2) / r.frames.frames;

		c.raw_size = mean < 2 ? 2 : mean > NET_MAX_FRAME ? NET_MAX_FRAME : (uint32_t)mean;
	}
	r.raw_size = c.raw_size;
	fprintf(stderr, "sdds-bench net: raw UDPv6 sendmmsg throughput (%u-byte datagrams)\n", c.raw_size);
	net_throughput(&c, net_raw_sender, net_raw_receiver, &r.raw_tput);
	fprintf(stderr, "sdds-bench net: raw UDPv6 GSO throughput (%u-byte datagrams)\n", c.raw_size);
	c.raw_gso = true;
	net_throughput(&c, net_raw_sender, net_raw_receiver, &r.raw_gso_tput);
	c.raw_gso = false;
	fprintf(stderr, "sdds-bench net: sddsd throughput, packed (peer_pack)\n");
	net_packed_throughput(&c, &r.packed_tput, &r.packed_frames);
	if (!o.no_ddsperf) {
		fprintf(stderr, "sdds-bench net: ddsperf ping/pong\n");
		net_ddsperf(&c, &r.dp);
	}
mono:
	if (o.monolithic) {
		/* A's port is free once its daemon is gone; the mono side reads A's daemon config. */
		netns_daemon_stop(0);
		c.mono_a = true;
		if (!o.mono_only) {
			fprintf(stderr, "sdds-bench net: mixed latency (monolithic A, sddsd B)\n");
			net_latency(&c, net_sdds_pp, "net-mixed", true, &r.mixed);
		}
		netns_daemon_stop(1);
		c.mono_b = true;
		fprintf(stderr, "sdds-bench net: monolithic latency\n");
		net_latency(&c, net_sdds_pp, "net-mono", true, &r.mono);
		fprintf(stderr, "sdds-bench net: monolithic throughput\n");
		net_throughput(&c, net_sdds_writer, net_sdds_reader, &r.mono_tput);
	}
	netns_cleanup();
	proc_shm_free(&shm);
	net_report_json(stdout, &o, &r);
	if (o.mono_only)
		return r.mono.lat.ok && r.mono_tput.ok ? 0 : 1;
	if (o.monolithic && !(r.mixed.lat.ok && r.mono.lat.ok && r.mono_tput.ok))
		return 1;
	return r.sdds.lat.ok && r.raw.lat.ok && r.sdds_tput.ok && r.raw_tput.ok ? 0 : 1;
}
