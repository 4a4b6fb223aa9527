/* SPDX-License-Identifier: MIT */
/*
 * net.c - `sdds-bench net` (see net.h).
 *
 * Every end of a run is a forked child in its side's namespace (setns), so
 * a client sits where it would on a real node. Results come back through
 * struct net_shm, mapped shared before the fork; the two ends of a
 * throughput run meet on its `ready` and `done` words.
 *
 * Monolithic: once daemon A stops, a monolithic application in A
 * (sdds-bench-mono, mono.h: the broker core and sddsd's network layer in
 * the process, on A's daemon config) pings the isolated pong of daemon B
 * ("mixed"); then B stops too and both sides are monolithic. Every party
 * shares CLOCK_MONOTONIC, so pong's take time splits a round trip into its
 * legs A->B and B->A: with the mixed run that splits the cost of isolation
 * into a send side and a receive side, as the seed paper reports it.
 *
 * Frames: toward a plain peer sddsd sends one sample per frame, toward a
 * peer_pack peer several. Daemon B's counters around a run give the frames
 * and bytes that arrived; the raw runs then send datagrams of that mean
 * frame size with sendmmsg, then as UDP GSO messages of NET_BATCH, the way
 * sddsd hands runs of equal frames to the kernel.
 *
 * The wire may lose a datagram, so the ping-pong is lossy (pingpong.h).
 *
 * --backend tap: after the socket runs both daemons restart on the tap
 * backend (sddsd's own IPv6 stack): in each namespace a bridge joins the
 * veth end and a TAP, the kernel's IPv6 is off on all three, and the
 * daemon's stack owns the node's address (fe80::a, fe80::b), so every
 * config but the backend lines stays as it was. The ping-pong and the
 * throughput run again once `sddsctl stack` says DAD passed; then daemon A
 * restarts under callgrind for a ping-pong of --callgrind-rounds, and the
 * inclusive instructions of the stack's entry points over the frames its
 * counters saw give the stack's cost per frame.
 */
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <net/if.h>
#include <netinet/udp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench.h"
#include "callgrind.h"
#include "json.h"
#include "local.h"
#include "netns_rig.h"
#include "mdrun.h"
#include "mono.h"
#include "pingpong.h"
#include "proc.h"
#include "sddsd.h"
#include "sddsd_run.h"
#include "sdds/sdds.h"

#define NET_MAX_SIZE 100   /* a sample and its headers fit sddsd's 128-byte max_frame */
#define NET_MAX_FRAME 128  /* the largest raw datagram: sddsd's max_frame */
#define NET_RAW_PORT 24100 /* raw ping-pong; +1 raw throughput (the daemons use 23234 and 23254) */
#define NET_BATCH 32
#define NET_EXIT_CANNOT 77   /* cannot run here: the tests' skip code */
#define NET_TAP_DAD_MS 10000 /* DAD takes 1 s (one NS, RFC 4862 §5.4); under valgrind longer */
#define NET_TAP_CG_MS 120000 /* a daemon under callgrind: its start, its DAD, its exit with the dump */

/* The own stack's entry points callgrind counts: per received frame, then the two per sent frame. */
static const char *const net_cg_fn[3] = {"ip6s_input", "ip6s_udp_send", "ip6s_flush"};
/* Side's TAP and bridge with --backend tap. */
static const char *const net_tap_dev[2] = {"tna", "tnb"}, *const net_tap_br[2] = {"bra", "brb"};

struct net_opts {
	struct bench_opts b;
	int monolithic, mono_only, poll, no_ddsperf; /* set by getopt */
	double ddsperf_seconds;
	bool tap;	    /* --backend tap */
	uint64_t cg_rounds; /* round trips daemon A runs under callgrind */
	const char *valgrind;
};

struct net_shm {
	_Atomic uint32_t ready, done;
	struct tput_result t;	 /* written and writer_rate by the writer, the counts by the reader */
	bool legs_bad;		 /* an arrival time outside its round trip: no legs */
	_Atomic uint32_t failed; /* set by the first end that writes why */
	char why[BENCH_WHY_MAX];
	_Atomic int64_t arrive[65536]; /* pong's take time of each 16-bit sequence number */
	uint64_t legs[];	       /* the A->B leg of each measured round, then B->A */
};

struct net_ctx {
	struct net_opts o;
	bool mono[2];		     /* the side's clients are monolithic, on its daemon config */
	bool raw, raw_busy, raw_gso; /* raw UDPv6 instead of sddsd; busy-polled; GSO messages */
	bool pack;		     /* the daemon configs mark the other side peer_pack */
	bool tap;		     /* the daemon configs say backend = tap */
	uint32_t raw_size;	     /* raw throughput datagram bytes */
	struct net_shm *shm;
};

/* The run's one context: the main process's, copied into every forked end; sdds-bench-mono's own. */
static struct net_ctx net;

/* ab and ba: the legs A->B and B->A; n 0 (stats_compute wrote nothing) when not measured. */
struct net_lat {
	struct lat_result lat;
	struct stats ab, ba;
};

/* Daemon B's counts over a throughput run, measured if 2 frames or more; rate over the reader's span. */
struct net_frames {
	char why[BENCH_WHY_MAX];
	uint64_t frames, samples, bytes;
	double rate;
};

/* Daemon A under callgrind on the tap backend: inclusive Ir and calls of net_cg_fn, its stack's counters. */
struct net_tap_cg {
	char why[BENCH_WHY_MAX];
	uint64_t rounds, ir[3], calls[3];
	double eth_in, eth_out, dev_rx, dev_tx;
};

struct net_results {
	struct net_lat sdds, raw, raw_busy, mixed, mono, tap;
	struct tput_result tap_tput;
	struct net_frames tap_frames;
	struct net_tap_cg cg;
	double dad_ms[2]; /* from the tap daemon's start until sddsctl showed its addresses preferred */
	struct tput_result sdds_tput, raw_tput, raw_gso_tput, mono_tput, packed_tput;
	struct net_frames frames, packed_frames;
	struct {
		bool ok;
		char why[BENCH_WHY_MAX], line[512], cmd[1024], payload[96];
	} dp; /* ddsperf: line is its own summary, quoted, never merged with ours */
};

/* An S-byte sample: a sequence number (16 bits, 8 when S is 1), then padding. */
static void net_topic_desc(const char *name, uint16_t id, uint32_t size, sdds_field *f, sdds_topic_desc *d)
{
	*d = (sdds_topic_desc){name, 2, id, size, f, size > 2 ? 2 : 1};
	f[0] = (sdds_field){"seq", size == 1 ? SDDS_FIELD_OCTET : SDDS_FIELD_USHORT, size == 1 ? 1 : 2};
	f[1] = (sdds_field){"pad", size == 3 ? SDDS_FIELD_OCTET : SDDS_FIELD_STRING, size - 2};
}

/* Side's node config (its daemon sends `ping` from A, `pong` from B) and daemon config. 0 or -1. */
static int net_write_side(int side)
{
	static const char *const topic[2] = {"ping", "pong"}, *const ip[2] = {"fe80::a", "fe80::b"};
	uint32_t size = net.o.b.size;
	const char *seq = size == 1 ? "octet" : "unsigned_short";
	char pad[80] = "", xml[1536], extra[256];
	const char *dev = net.tap ? net_tap_dev[side] : netns.dev[side];

	/* net_topic_desc's layout; the node config counts a string's characters, not its bytes. */
	if (size == 3)
		snprintf(pad, sizeof(pad), "<attribute name=\"pad\" type=\"DDS_octet\"/>");
	else if (size > 3)
		snprintf(pad, sizeof(pad), "<attribute name=\"pad\" type=\"DDS_string\" size=\"%u\"/>",
			 size - 3);
	snprintf(xml, sizeof(xml),
		 "<project name=\"bench%c\" endian=\"little\" os=\"linux\" protocol=\"AF_INET6\" ip=\"%s\" "
		 "iface=\"%s\" port=\"23234\">\n"
		 "  <topic name=\"ping\" domain=\"2\" id=\"A\"><attribute name=\"seq\" "
		 "type=\"DDS_%s\"/>%s</topic>\n"
		 "  <topic name=\"pong\" domain=\"2\" id=\"B\"><attribute name=\"seq\" "
		 "type=\"DDS_%s\"/>%s</topic>\n"
		 "  <role topic=\"%s\" type=\"publisher\"/>\n  <role topic=\"%s\" type=\"subscriber\"/>\n"
		 "  <subscription topic=\"%s\"><subscriber ip=\"%s\"/></subscription>\n</project>\n",
		 'a' + side, ip[side], dev, seq, pad, seq, pad, topic[side], topic[!side], topic[side],
		 ip[!side]);
	snprintf(extra, sizeof(extra), "poll = %s\n%s%s%s", net.o.poll ? "true" : "false",
		 net.pack ? "peer_pack = " : "", net.pack ? ip[!side] : "", net.pack ? "\n" : "");
	/* The stack's own MAC (the TAP's is the kernel's), and the node's address, which the veth gave up. */
	if (net.tap)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 "backend = tap\ninterface = %s\nmac = 02:5d:d5:00:00:%02x\naddress = %s\n", dev,
			 0xa + side, ip[side]);
	return netns_write_configs(side, xml, extra);
}

/* Both sides' configs, then both daemons, pinned to --cpus. 0 or -1 with why. */
static int net_daemons_up(char *why)
{
	if (net_write_side(0) < 0 || net_write_side(1) < 0)
		bench_why(why, "cannot write the configs in %s", netns.dir);
	else if (netns_daemon_start(0, net.o.b.sddsd_path, "a.log") < 0 ||
		 netns_daemon_start(1, net.o.b.sddsd_path, "b.log") < 0)
		bench_why(why, "%s", netns.why);
	else
		return 0;
	return -1;
}

/*
 * Records why an end failed, unless another did first (the first reason
 * wins: both ends of a run may fail at once, in two processes); evaluates
 * to code.
 */
#define net_fail(code, ...)                                                                                  \
	(atomic_exchange(&net.shm->failed, 1) == 0 ? bench_why(net.shm->why, __VA_ARGS__) : (void)0, (code))

/* ---- the ends of a run ---- */

/* The parts of a run; an even part runs in A, an odd one in B. */
enum net_part { NET_PING, NET_PONG, NET_WRITER, NET_READER };

/* One end, in its process: a client of its side's daemon, or a raw UDPv6 socket. */
struct net_end {
	int side, fd;
	struct local_side nc;
	struct mmsghdr m[64]; /* raw throughput: one datagram each */
	struct iovec iov[64];
	uint8_t buf[64][NET_MAX_FRAME];
	_Alignas(struct cmsghdr) char gso[CMSG_SPACE(sizeof(uint16_t))];
};

/* Side's client (or monolithic) with a writer of its own topic and a reader of the other. 0 or 2. */
static int net_client_open(struct net_end *x, bool reliable, uint32_t depth)
{
	int side = x->side, rc;
	sdds_field f_in[2], f_out[2];
	sdds_topic_desc in, out;
	static const char *const file[2][2] = {{"a.sock", "b.sock"}, {"a.conf", "b.conf"}};
	char path[PATH_MAX];
	sdds_client_options co;
	const char *what;
	sdds_qos q;

	net_topic_desc(side ? "ping" : "pong", side ? 0xA : 0xB, net.o.b.size, f_in, &in);
	net_topic_desc(side ? "pong" : "ping", side ? 0xB : 0xA, net.o.b.size, f_out, &out);
	sdds_client_options_init(&co);
	/* Only sdds-bench-mono links libsddsmono, which reads the daemon's config instead of its socket. */
	netns_path(file[mono_process()][side], path, sizeof(path));
	co.socket_path = co.net_config = path;
	co.name = "sdds-bench-net";
	co.reconnect = 0;
	sdds_qos_init(&q);
	q.reliability = reliable ? SDDS_RELIABLE : SDDS_BEST_EFFORT;
	q.history_depth = depth;
	q.max_blocking_ms = 1000;
	rc = local_side_open(&co, &in, &out, LOCAL_READER | LOCAL_WRITER, &q, &x->nc, &what);
	if (rc < 0)
		return net_fail(2, "%s %s: %s", what, path, sdds_strerror(rc));
	return 0;
}

/* Side's socket for part, connected unless it is the reader. 0 or 2. */
static int net_raw_open(struct net_end *x, enum net_part part)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6,
				 .sin6_port = htons(part < NET_WRITER ? NET_RAW_PORT : NET_RAW_PORT + 1),
				 .sin6_scope_id = if_nametoindex(netns.dev[x->side])};
	struct timeval tv = {.tv_usec = part == NET_READER ? 300000 : 100000}; /* a ping-pong slice */
	int rcv = 4 << 20, snd = 1 << 20;

	if ((x->fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return net_fail(2, "raw socket: %s", strerror(errno));
	/* The daemon's queue sizes (FORCE: root passes the sysctl caps), so only the path differs. */
	setsockopt(x->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv));
	setsockopt(x->fd, SOL_SOCKET, SO_SNDBUFFORCE, &snd, sizeof(snd));
	setsockopt(x->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	inet_pton(AF_INET6, x->side ? "fe80::b" : "fe80::a", &a.sin6_addr);
	if (bind(x->fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return net_fail(2, "raw socket: bind on %s: %s", netns.dev[x->side], strerror(errno));
	inet_pton(AF_INET6, x->side ? "fe80::a" : "fe80::b", &a.sin6_addr);
	if (part != NET_READER && connect(x->fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return net_fail(2, "raw socket: connect: %s", strerror(errno));
	for (int i = 0; i < 64; i++) {
		x->iov[i] = (struct iovec){x->buf[i], part == NET_WRITER ? net.raw_size : NET_MAX_FRAME};
		x->m[i].msg_hdr.msg_iov = &x->iov[i];
		x->m[i].msg_hdr.msg_iovlen = 1;
	}
	if (part == NET_WRITER && net.raw_gso) {
		/* The whole batch as one message the kernel cuts into datagrams, as sddsd sends a run. */
		uint16_t seg = (uint16_t)net.raw_size;
		struct msghdr *h = &x->m[0].msg_hdr;

		h->msg_iovlen = NET_BATCH;
		h->msg_control = x->gso;
		h->msg_controllen = sizeof(x->gso);
		*CMSG_FIRSTHDR(h) = (struct cmsghdr){
		    .cmsg_len = CMSG_LEN(sizeof(seg)), .cmsg_level = SOL_UDP, .cmsg_type = UDP_SEGMENT};
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(h)), &seg, sizeof(seg));
	}
	return 0;
}

static uint32_t net_seq(const uint8_t *s, uint32_t size)
{
	return size == 1 ? s[0] : (uint32_t)s[0] << 8 | s[1];
}

static int net_pp_send(void *arg, const void *buf, uint32_t len)
{
	struct net_end *x = arg;

	if (!net.raw)
		return sdds_writer_write(x->nc.w, buf, len);
	return send(x->fd, buf, len, 0) < 0 && errno != ECONNREFUSED ? -errno : 0;
}

static int net_pp_recv(void *arg, void *buf, size_t cap, size_t *ret_len)
{
	struct net_end *x = arg;
	ssize_t n;
	int rc;

	if (net.raw) {
		/* One slice: SO_RCVTIMEO, or one non-blocking try when busy-polling. */
		if ((n = recv(x->fd, buf, cap, net.raw_busy ? MSG_DONTWAIT : 0)) < 0)
			return errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED ? -EAGAIN : -errno;
		*ret_len = (size_t)n;
		return 0;
	}
	rc = sdds_reader_take(x->nc.r, buf, cap, ret_len, PINGPONG_SLICE_NS);
	/* Pong's take time, stored before the answer leaves, so ping finds it once the answer is in. */
	if (rc == 0 && x->side == 1)
		atomic_store_explicit(&net.shm->arrive[net_seq(buf, net.o.b.size)], bench_now_ns(),
				      memory_order_release);
	return rc;
}

/* Ping through sddsd: the legs of measured round k from pong's take time of its answer. */
static void net_pp_legs(void *arg, uint64_t k, uint64_t i, int64_t t0, int64_t t1, const void *in)
{
	struct net_shm *s = net.shm;
	int64_t at = atomic_load_explicit(&s->arrive[net_seq(in, net.o.b.size)], memory_order_acquire);

	if (at < t0 || at > t1)
		s->legs_bad = true;
	s->legs[k] = (uint64_t)(at - t0);
	s->legs[net.o.b.iterations + k] = (uint64_t)(t1 - at);
}

/* By net.raw: a ping unanswered for a second is lost, the next one goes out. */
static const struct pingpong_ops net_pp_ops[2] = {
    {net_pp_send, net_pp_recv, sdds_strerror, net_pp_legs, 1000},
    {net_pp_send, net_pp_recv, NULL, NULL, 1000}};

/* The writer: streams for tput_seconds once the reader is ready, in batches of NET_BATCH. */
static int net_stream(struct net_end *x)
{
	struct net_shm *s = net.shm;
	uint32_t size = net.raw ? net.raw_size : net.o.b.size;
	uint64_t n = 0;
	int64_t t0, end;
	int rc;

	if (bench_wait_flag(&s->ready, NULL, 10000000000LL) < 0)
		return net_fail(2, "the reader never got ready");
	t0 = bench_now_ns();
	end = t0 + (int64_t)(net.o.b.tput_seconds * 1e9);
	while (bench_now_ns() < end) {
		for (int i = 0; i < NET_BATCH; i++)
			local_put_counter(x->buf[i], size, n + (uint64_t)i);
		if (net.raw) {
			rc = sendmmsg(x->fd, x->m, net.raw_gso ? 1 : NET_BATCH, 0);
			if (rc < 0 && errno != ENOBUFS && errno != EAGAIN && errno != ECONNREFUSED &&
			    errno != EINTR)
				return net_fail(2, "sendmmsg: %s", strerror(errno));
			n += rc < 0 ? 0 : (uint64_t)rc * (net.raw_gso ? NET_BATCH : 1);
			continue;
		}
		for (int i = 0; i < NET_BATCH; i++) {
			rc = sdds_writer_write(x->nc.w, x->buf[i], size);
			if (rc < 0 && rc != -ETIMEDOUT && rc != -EAGAIN)
				return net_fail(2, "write: %s", sdds_strerror(rc));
			n += rc == 0;
		}
	}
	s->t.written = n;
	s->t.writer_rate = (double)n * 1e9 / (double)(bench_now_ns() - t0);
	atomic_store(&s->done, 1);
	return 0;
}

/* The reader: counts what arrives until the writer is done and 300 ms pass without anything. */
static int net_count(struct net_end *x)
{
	struct net_shm *s = net.shm;
	int64_t first = 0, last = 0;
	size_t len;
	int k;

	atomic_store(&s->ready, 1);
	do {
		if (net.raw) {
			k = recvmmsg(x->fd, x->m, 64, MSG_WAITFORONE, NULL);
			if (k < 0 && errno != EAGAIN && errno != EINTR)
				return net_fail(2, "recvmmsg: %s", strerror(errno));
		} else {
			k = sdds_reader_take(x->nc.r, x->buf[0], NET_MAX_FRAME, &len, 300 * 1000000LL);
			if (k < 0 && k != -ETIMEDOUT)
				return net_fail(2, "take: %s", sdds_strerror(k));
			k = k == 0;
		}
		if (k > 0) {
			last = bench_now_ns();
			first = s->t.received == 0 ? last : first;
			s->t.received += (uint64_t)k;
		}
	} while (k > 0 || !atomic_load(&s->done));
	s->t.seconds = (double)(last - first) / 1e9;
	s->t.lost = net.raw ? 0 : sdds_reader_lost(x->nc.r);
	return 0;
}

/* A part in its namespace: its end opened and run; s is the ping-pong's control block. */
static int net_part(enum net_part part, struct pingpong_shm *s)
{
	static struct net_end x;
	int rc;

	x = (struct net_end){.side = part & 1};
	/* Through sddsd the ping-pong is reliable, the throughput run best effort into a deep reader. */
	rc =
	    net.raw ? net_raw_open(&x, part) : net_client_open(&x, s != NULL, part == NET_READER ? 4096 : 64);
	if (rc != 0)
		return s ? pingpong_fail(s, x.side, 2, "%s", net.shm->why) : rc;
	if (part == NET_WRITER)
		rc = net_stream(&x);
	else if (part == NET_READER)
		rc = net_count(&x);
	else
		rc = pingpong_side(s, x.side, &net.o.b, &net_pp_ops[net.raw], &x,
				   net.raw ? "raw ping" : "ping", net.raw ? "raw pong" : "pong");
	/* A raw socket closes as the end's process exits; a client says goodbye to its daemon first. */
	if (rc == 0 && !net.raw)
		local_side_close(&x.nc);
	return rc;
}

/* What sdds-bench-mono's net role gets. */
struct net_mono_args {
	struct mono_opts o;
	uint32_t part;		     /* enum net_part */
	char dir[sizeof(netns.dir)]; /* the rig's netns.dir, where the daemon configs are */
};

/* A part's forked child: into its side's namespace, then the part here or in sdds-bench-mono. */
static int net_start(enum net_part part, struct pingpong_shm *s)
{
	struct net_mono_args a = {.part = part};
	void *shm[2] = {net.shm, s};
	const char *what = "setns";
	int side = part & 1, rc = netns_enter(side);

	if (rc == 0 && !net.mono[side])
		return net_part(part, s);
	if (rc == 0) {
		mono_opts_put(&net.o.b, &a.o);
		memcpy(a.dir, netns.dir, sizeof(a.dir));
		what = "cannot run sdds-bench-mono";
		rc = mono_exec(NET_MONO_ROLE, &a, sizeof(a), shm, s ? 2 : 1);
	}
	if (s)
		return pingpong_fail(s, side, 2, "side %c: %s: %s", 'A' + side, what, strerror(-rc));
	return net_fail(2, "side %c: %s: %s", 'A' + side, what, strerror(-rc));
}

static int net_pp_role(struct pingpong_shm *s, void *arg, int side)
{
	return net_start(side ? NET_PONG : NET_PING, s);
}

/* arg: the enum net_part of a throughput end. */
static int net_tput_role(void *arg)
{
	return net_start((enum net_part)(intptr_t)arg, NULL);
}

/* The arguments and areas are net_start's, of this same build: only a role mix-up is checked. */
int net_mono_role(struct mono_call *m)
{
	struct net_mono_args *a = m->args;

	if (m->len != sizeof(*a) || m->n_shm != (a->part < NET_WRITER ? 2 : 1)) {
		fprintf(stderr, "sdds-bench-mono: %s: arguments of %zu bytes, %d shared areas: not mine\n",
			m->role, m->len, m->n_shm);
		return 2;
	}
	net.o.b = *mono_opts_get(&a->o);
	memcpy(netns.dir, a->dir, sizeof(netns.dir));
	net.shm = m->shm[0];
	return net_part(a->part, m->n_shm == 2 ? m->shm[1] : NULL);
}

/* ---- the runs ---- */

/* One ping-pong; through sddsd it also gives the legs. */
static void net_latency(const char *name, struct net_lat *ret)
{
	const struct bench_opts *o = &net.o.b;
	struct pingpong_run_args r = {
	    .role = net_pp_role, .ping_cpu = netns.cpu[0], .pong_cpu = netns.cpu[1], .name = name};

	fprintf(stderr, "sdds-bench net: latency, %s\n", name);
	memset(net.shm, 0, sizeof(*net.shm));
	pingpong_run(o, &r, &ret->lat);
	if (!net.raw && ret->lat.ok && !net.shm->legs_bad) {
		stats_compute(net.shm->legs, ret->lat.done, 1.0, &ret->ab);
		stats_compute(net.shm->legs + o->iterations, ret->lat.done, 1.0, &ret->ba);
	}
}

/*
 * Side's `sddsctl --json CMD`, parsed, or NULL with why (for what: what
 * needs it). sddsctl is the one beside sddsd in the build tree, else the
 * one on PATH.
 */
static struct json_object *net_ctl(int side, const char *cmd, const char *what, char *why)
{
	const char *d = net.o.b.sddsd_path, *slash = strrchr(d, '/');
	char ctl[PATH_MAX + 64];
	static char buf[65536];
	struct json_object *doc;

	snprintf(ctl, sizeof(ctl), "%.*s/../tools/sddsctl/sddsctl", slash ? (int)(slash - d) : 1,
		 slash ? d : ".");
	if (access(ctl, X_OK) != 0 && mdrun_which("sddsctl", ctl, sizeof(ctl)) < 0) {
		bench_why(why, "sddsctl not found (%s)", what);
		return NULL;
	}
	fflush(stdout);
	if (netns_ctl_json(side, ctl, cmd, buf, sizeof(buf)) < 0 || (doc = mdrun_json_parse(buf)) == NULL) {
		bench_why(why, "sddsctl %s: no JSON object", cmd);
		return NULL;
	}
	return doc;
}

/* Daemon B's totals of frames, samples and bytes in (sddsctl --json net) into v. 0, or -1 with why. */
static int net_ctl_counts(double v[3], char *why)
{
	static const char *const key[3] = {"net.frames_in", "net.samples_in", "net.bytes_in"};
	struct json_object *doc = net_ctl(1, "net", "frames/s need daemon B's counters", why);
	int rc = 0;

	if (doc == NULL)
		return -1;
	/* The daemon's totals, not a peer's ("net" is null when its network is off). */
	for (int i = 0; i < 3 && rc == 0; i++)
		rc = mdrun_jnum(doc, key[i], &v[i]);
	if (rc < 0)
		bench_why(why, "sddsctl net: no network counters frames_in/samples_in/bytes_in");
	mdrun_json_free(doc);
	return rc < 0 ? -1 : 0;
}

/*
 * One throughput run, the writer in A and the reader in B; when fr is given,
 * daemon B's counters around it give the frames that carried its samples.
 */
static void net_throughput(const char *name, struct tput_result *ret, struct net_frames *fr)
{
	struct net_shm *s = net.shm;
	struct proc_pair p = {.fn = {net_tput_role, net_tput_role},
			      .arg = {(void *)(intptr_t)NET_WRITER, (void *)(intptr_t)NET_READER},
			      .cpu = {netns.cpu[0], netns.cpu[1]},
			      .name = {"A side", "B side"},
			      .why = {s->why, NULL}};
	double v0[3], v1[3];
	bool before = fr != NULL && net_ctl_counts(v0, fr->why) == 0;

	fprintf(stderr, "sdds-bench net: throughput, %s\n", name);
	memset(s, 0, sizeof(*s));
	if (proc_run_pair(&p, bench_now_ns() + (int64_t)((net.o.b.tput_seconds + 25) * 1e9), ret->why) == 0) {
		*ret = s->t;
		ret->ok = ret->received >= 2 && ret->seconds > 0;
		if (ret->ok)
			ret->rate = (double)(ret->received - 1) / ret->seconds;
		else
			bench_why(ret->why, "%llu received of %llu sent", (unsigned long long)ret->received,
				  (unsigned long long)ret->written);
	}
	if (before && !ret->ok)
		bench_why(fr->why, "no throughput run: %s", ret->why);
	if (!before || !ret->ok || net_ctl_counts(v1, fr->why) < 0)
		return;
	fr->frames = (uint64_t)(v1[0] - v0[0]);
	fr->samples = (uint64_t)(v1[1] - v0[1]);
	fr->bytes = (uint64_t)(v1[2] - v0[2]);
	/* Over the reader's interval, as the samples/s: a frame is taken with its samples. */
	fr->rate = (double)fr->frames * ((double)(ret->received - 1) / (double)ret->received) / ret->seconds;
	if (fr->frames < 2)
		bench_why(fr->why, "%llu frames arrived", (unsigned long long)fr->frames);
}

/*
 * ddsperf pong in B, ping in A, for ddsperf_seconds, configured inline
 * (UDPv6 on the side's veth, multicast for SPDP only) so that the printed
 * command runs as is. Its payload is the nearest it has: up to 4 bytes its
 * OU topic (one 4-byte unsigned), else its KS topic, whose size counts a
 * 12-byte fixed part.
 */
static void net_ddsperf(struct net_results *r)
{
	static const char conf[] =
	    "CYCLONEDDS_URI=<General><Interfaces><NetworkInterface "
	    "name=\"%s\"/></Interfaces><AllowMulticast>spdp"
	    "</AllowMulticast><Transport>udp6</Transport></General><Discovery><ParticipantIndex>auto"
	    "</ParticipantIndex><MaxAutoParticipantIndex>20</MaxAutoParticipantIndex></Discovery><Tracing>"
	    "<Verbosity>warning</Verbosity><OutputFile>stderr</OutputFile></Tracing>";
	uint32_t size = net.o.b.size < 12 ? 12 : net.o.b.size;
	bool ou = net.o.b.size <= 4;
	int secs = (int)(net.o.ddsperf_seconds + 0.5), st;
	char uri[2][512], dur[16], sz[24], log[PATH_MAX + 32], cmd[sizeof(r->dp.cmd) + 8], line[512],
	    last[512] = "";
	const char *argv[] = {"ip", "netns", "exec",	       netns.ns[1], "env", uri[1], "ddsperf", "-i",
			      "77", "-T",    ou ? "OU" : "KS", "-D",	    dur,   "pong", NULL};
	struct proc_exec x = {.argv = argv, .log = log, .name = "ddsperf pong"};
	pid_t pong;
	FILE *f;

	snprintf(r->dp.payload, sizeof(r->dp.payload),
		 ou ? "OU topic, 4 bytes (ddsperf has nothing smaller)"
		    : "KS topic, %u bytes including its 12-byte fixed part",
		 size);
	if (mdrun_which("ddsperf", log, sizeof(log)) < 0) {
		bench_why(r->dp.why, "ddsperf not installed (apt-get install cyclonedds-tools)");
		return;
	}
	for (int i = 0; i < 2; i++)
		snprintf(uri[i], sizeof(uri[i]), conf, netns.dev[i]);
	netns_path("ddsperf-pong.txt", log, sizeof(log));
	snprintf(dur, sizeof(dur), "%d", secs + 5);
	if (proc_exec_start(&x, &pong, r->dp.why) < 0)
		return;
	snprintf(sz, sizeof(sz), " size %u", size);
	snprintf(r->dp.cmd, sizeof(r->dp.cmd), "ip netns exec %s env '%s' ddsperf -i 77 -T %s -D %d ping%s",
		 netns.ns[0], uri[0], argv[10], secs, ou ? "" : sz);
	snprintf(cmd, sizeof(cmd), "%s 2>&1", r->dp.cmd);
	fflush(stdout);
	if ((f = popen(cmd, "r")) == NULL)
		bench_why(r->dp.why, "popen: %s", strerror(errno));
	/* One summary per second, its latencies already halved (one-way): the last is kept. */
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] != '\0')
			snprintf(last, sizeof(last), "%s", line);
		if (strstr(line, "mean") != NULL && strchr(line, '%') != NULL)
			snprintf(r->dp.line, sizeof(r->dp.line), "%s", line);
	}
	st = f != NULL ? pclose(f) : -1;
	r->dp.ok = r->dp.line[0] != '\0' && st == 0;
	if (!r->dp.ok && f != NULL)
		bench_why(r->dp.why, "ddsperf ping printed no round-trip summary (status %d): %s", st, last);
	proc_exec_stop(pong, SIGTERM, 5, x.name, NULL, line); /* its figures are ping's */
}

/* ---- the tap backend ---- */

/*
 * Both sides' tap rig: a bridge joining the side's veth end and a TAP (made
 * here, persistent, so the daemon attaches to it and the bridge port exists
 * before the daemon starts). The veth gives up its address, and the
 * kernel's IPv6 is off on the veth, the TAP's kernel side and the bridge:
 * the daemon's stack owns the node's address now, and the kernel would only
 * add its own ND and MLD frames. Snooping off: the bridge floods multicast
 * as a plain switch does. 0 or -1 with why.
 */
static int net_tap_rig(char *why)
{
	for (int i = 0; i < 2; i++) {
		const char *ns = netns.ns[i], *veth = netns.dev[i], *tap = net_tap_dev[i],
			   *br = net_tap_br[i];

		if (netns_run("ip -n %s addr flush dev %s && ip -n %s tuntap add dev %s mode tap && "
			      "ip -n %s link add %s type bridge mcast_snooping 0",
			      ns, veth, ns, tap, ns, br) != 0 ||
		    netns_run("ip netns exec %s sysctl -qw net.ipv6.conf.%s.disable_ipv6=1 "
			      "net.ipv6.conf.%s.disable_ipv6=1 net.ipv6.conf.%s.disable_ipv6=1",
			      ns, veth, tap, br) != 0 ||
		    netns_run("ip -n %s link set %s master %s && ip -n %s link set %s master %s && "
			      "ip -n %s link set %s up && ip -n %s link set %s up",
			      ns, veth, br, ns, tap, br, ns, tap, ns, br) != 0) {
			bench_why(why, "cannot make bridge %s with %s and TAP %s in %s", br, veth, tap, ns);
			return -1;
		}
	}
	return 0;
}

/*
 * Waits up to ms for side's stack to hold the node's address, every address
 * "preferred" (DAD passed, RFC 4862 §5.4) and the link up, asking `sddsctl
 * stack` every 50 ms. 0 with the milliseconds it took in *ret_ms (may be
 * NULL), or -1 with why.
 */
static int net_tap_dad(int side, int ms, double *ret_ms, char *why)
{
	static const char *const ip[2] = {"fe80::a", "fe80::b"};
	int64_t t0 = netns_now_ms();
	char state[32] = "", addr[64], path[64];
	bool mine = false, up = false;

	while (netns_now_ms() - t0 < ms) {
		struct json_object *doc = net_ctl(side, "stack", "DAD is read from sddsctl stack", why);
		bool all = true;
		int k;

		if (doc == NULL)
			return -1;
		mine = false;
		for (k = 0;; k++) {
			snprintf(path, sizeof(path), "stack.0.addresses.%d.address", k);
			if (mdrun_jstr(doc, path, addr, sizeof(addr)) < 0)
				break;
			snprintf(path, sizeof(path), "stack.0.addresses.%d.state", k);
			mdrun_jstr(doc, path, state, sizeof(state));
			mine |= strcmp(addr, ip[side]) == 0;
			all &= strcmp(state, "preferred") == 0;
		}
		if (mdrun_jbool(doc, "stack.0.link_up", &up) < 0)
			up = false;
		mdrun_json_free(doc);
		if (mine && all && k > 0 && up) {
			if (ret_ms != NULL)
				*ret_ms = (double)(netns_now_ms() - t0);
			return 0;
		}
		usleep(50000);
	}
	bench_why(why, "side %c: %s within %d ms (last address state \"%s\", link %s)", 'A' + side,
		  mine ? "addresses not all preferred" : "the stack never held its address", ms, state,
		  up ? "up" : "down");
	return -1;
}

/* Daemon A's stack and device counters into cg. 0 or -1 with cg->why. */
static int net_tap_counts(struct net_tap_cg *cg)
{
	struct json_object *doc =
	    net_ctl(0, "stack", "frames per entry point need the stack's counters", cg->why);
	int rc;

	if (doc == NULL)
		return -1;
	rc = mdrun_jnum(doc, "stack.0.counters.eth_in", &cg->eth_in) < 0 ||
	     mdrun_jnum(doc, "stack.0.counters.eth_out", &cg->eth_out) < 0;
	if (mdrun_jnum(doc, "stack.0.device_counters.rx_frames", &cg->dev_rx) < 0 ||
	    mdrun_jnum(doc, "stack.0.device_counters.tx_frames", &cg->dev_tx) < 0)
		cg->dev_rx = cg->dev_tx = NAN;
	mdrun_json_free(doc);
	if (rc)
		bench_why(cg->why, "sddsctl stack: no counters eth_in/eth_out");
	return rc ? -1 : 0;
}

/*
 * Daemon A again, under callgrind (a script in the rig's directory execs
 * valgrind on sddsd), for a ping-pong of cg->rounds: every round is one
 * frame out of its stack and one in. Its counters are read before it stops;
 * the dump is written as it exits, and SIGTERM lets it exit (the rig would
 * SIGKILL after 2 s). The daemon stays down.
 */
static void net_tap_callgrind(struct net_tap_cg *cg)
{
	const struct bench_opts keep = net.o.b;
	char vg[PATH_MAX], script[PATH_MAX], out[PATH_MAX], vlog[PATH_MAX], text[4 * PATH_MAX + 128];
	struct net_lat lat = {0};
	pid_t pid;
	int rc;

	cg->rounds = net.o.cg_rounds;
	if (mdrun_which(net.o.valgrind, vg, sizeof(vg)) < 0) {
		bench_why(cg->why, "valgrind not found%s%s (apt-get install valgrind): not counted",
			  strchr(net.o.valgrind, '/') ? " at " : "",
			  strchr(net.o.valgrind, '/') ? net.o.valgrind : "");
		return;
	}
	netns_path("a.callgrind", out, sizeof(out));
	netns_path("a.valgrind.log", vlog, sizeof(vlog));
	netns_path("a-callgrind.sh", script, sizeof(script));
	snprintf(
	    text, sizeof(text),
	    "#!/bin/sh\nexec '%s' --tool=callgrind '--callgrind-out-file=%s' '--log-file=%s' '%s' \"$@\"\n",
	    vg, out, vlog, net.o.b.sddsd_path);
	if (sddsd_run_write(script, text) < 0 || chmod(script, 0700) < 0) {
		bench_why(cg->why, "%s: %s", script, strerror(errno));
		return;
	}
	fprintf(stderr, "sdds-bench net: tap: daemon A under callgrind, %llu round trips\n",
		(unsigned long long)cg->rounds);
	netns_daemon_stop(0);
	netns.start_ms = NET_TAP_CG_MS;
	rc = netns_daemon_start(0, script, "a.log");
	netns.start_ms = 0;
	if (rc < 0) {
		bench_why(cg->why, "%s", netns.why);
		return;
	}
	if (net_tap_dad(0, NET_TAP_CG_MS, NULL, cg->why) == 0) {
		/* The warm-up resolves the neighbors; its frames count in both figures alike. */
		net.o.b.iterations = cg->rounds;
		net.o.b.warmup = 20;
		net.o.b.raw_prefix = NULL;
		net_latency("net-tap-callgrind", &lat);
		net.o.b = keep;
		if (!lat.lat.ok)
			bench_why(cg->why, "ping-pong under callgrind: %s", lat.lat.why);
		else
			net_tap_counts(cg);
	}
	pid = netns.daemon[0];
	netns.daemon[0] = -1;
	if (sddsd_run_stop(pid, SIGTERM, NET_TAP_CG_MS, NULL) < 0 && !cg->why[0])
		bench_why(cg->why, "sddsd under callgrind did not exit within %d ms of SIGTERM",
			  NET_TAP_CG_MS);
	if (cg->why[0])
		return;
	rc = callgrind_inclusive(out, net_cg_fn, 3, cg->ir, cg->calls);
	if (rc < 0)
		bench_why(cg->why, "%s: %s", out, rc == -EINVAL ? "not callgrind's output" : strerror(-rc));
	else if (cg->ir[0] == 0 || cg->ir[1] == 0 || cg->ir[2] == 0)
		bench_why(cg->why, "no cost of %s in %s (inlined, or built without symbols?)",
			  cg->ir[0] == 0   ? net_cg_fn[0]
			  : cg->ir[1] == 0 ? net_cg_fn[1]
					   : net_cg_fn[2],
			  out);
	else if (!(cg->eth_in > 0 && cg->eth_out > 0))
		bench_why(cg->why, "the stack counted %.0f frames in, %.0f out", cg->eth_in, cg->eth_out);
}

/* After the socket runs: both daemons on the tap backend, the ping-pong, the throughput, callgrind. */
static void net_tap(struct net_results *r)
{
	char why[BENCH_WHY_MAX] = "";

	fprintf(stderr, "sdds-bench net: tap: bridges, TAPs, both daemons on the own stack\n");
	netns_daemon_stop(0);
	netns_daemon_stop(1);
	net.mono[0] = net.mono[1] = false;
	net.tap = true;
	if (net_tap_rig(why) < 0 || net_daemons_up(why) < 0 ||
	    net_tap_dad(0, NET_TAP_DAD_MS, &r->dad_ms[0], why) < 0 ||
	    net_tap_dad(1, NET_TAP_DAD_MS, &r->dad_ms[1], why) < 0) {
		bench_why(r->tap.lat.why, "%s", why);
		bench_why(r->tap_tput.why, "%s", why);
		bench_why(r->tap_frames.why, "%s", why);
		bench_why(r->cg.why, "%s", why);
		return;
	}
	net_latency("net-tap", &r->tap);
	net_throughput("sddsd over tap", &r->tap_tput, &r->tap_frames);
	net_tap_callgrind(&r->cg);
}

/* ---- the JSON ---- */

/* Opens object key with its ok, and with why when not ok; returns ok. */
static bool net_json_begin(struct json *j, const char *key, bool ok, const char *why)
{
	json_obj_begin(j, key);
	json_bool(j, "ok", ok);
	/* Only --monolithic-only leaves a run out without a reason. */
	if (!ok)
		json_str(j, "why", why[0] ? why : "not run (--monolithic-only)");
	return ok;
}

static void net_json_lat(struct json *j, const char *key, const struct net_lat *l)
{
	if (net_json_begin(j, key, l->lat.ok, l->lat.why)) {
		json_uint(j, "n", l->lat.st.n);
		json_uint(j, "unanswered", l->lat.lost);
	}
	if (l->ab.n > 0) {
		json_num(j, "a_to_b_median_us", l->ab.median / 1e3);
		json_num(j, "a_to_b_p99_us", l->ab.p99 / 1e3);
		json_num(j, "b_to_a_median_us", l->ba.median / 1e3);
		json_num(j, "b_to_a_p99_us", l->ba.p99 / 1e3);
	}
	pingpong_json(j, &l->lat, false);
	json_obj_end(j);
}

static void net_json_tput(struct json *j, const char *key, const struct tput_result *t)
{
	if (net_json_begin(j, key, t->ok, t->why)) {
		json_num(j, "rate", t->rate);
		json_uint(j, "sent", t->written);
		json_uint(j, "received", t->received);
		json_uint(j, "reader_lost", t->lost);
		json_num(j, "sender_rate", t->writer_rate);
	}
	json_obj_end(j);
}

static void net_json_frames(struct json *j, const char *key, const struct net_frames *fr)
{
	if (net_json_begin(j, key, fr->frames >= 2, fr->why)) {
		json_num(j, "rate", fr->rate);
		json_uint(j, "frames", fr->frames);
		json_uint(j, "samples", fr->samples);
		json_uint(j, "bytes", fr->bytes);
	}
	json_obj_end(j);
}

/* The stack's cost per frame: inclusive Ir of its entry points over the frames its counters saw. */
static void net_json_cg(struct json *j, const struct net_tap_cg *cg)
{
	if (net_json_begin(j, "callgrind", !cg->why[0], cg->why)) {
		json_str(j, "daemon", "A");
		json_uint(j, "rounds", cg->rounds);
		json_num(j, "eth_in", cg->eth_in);
		json_num(j, "eth_out", cg->eth_out);
		json_num(j, "device_rx_frames", cg->dev_rx);
		json_num(j, "device_tx_frames", cg->dev_tx);
		for (int i = 0; i < 3; i++) {
			char k[48];

			snprintf(k, sizeof(k), "%s_ir", net_cg_fn[i]);
			json_uint(j, k, cg->ir[i]);
			snprintf(k, sizeof(k), "%s_calls", net_cg_fn[i]);
			json_uint(j, k, cg->calls[i]);
		}
		json_num(j, "ir_per_frame_in", (double)cg->ir[0] / cg->eth_in);
		json_num(j, "ir_per_frame_out", (double)(cg->ir[1] + cg->ir[2]) / cg->eth_out);
	} else {
		json_uint(j, "rounds", cg->rounds);
	}
	json_obj_end(j);
}

/* The tap runs, the same members as the socket ones at the same paths under "tap". */
static void net_json_tap(struct json *j, const struct net_results *r)
{
	json_obj_begin(j, "tap");
	json_str(j, "backend", "tap");
	json_num(j, "dad_ms_a", r->dad_ms[0]);
	json_num(j, "dad_ms_b", r->dad_ms[1]);
	json_obj_begin(j, "latency");
	net_json_lat(j, "sddsd", &r->tap);
	json_obj_end(j);
	json_obj_begin(j, "throughput");
	json_num(j, "seconds", net.o.b.tput_seconds);
	net_json_tput(j, "sddsd", &r->tap_tput);
	net_json_frames(j, "sddsd_frames", &r->tap_frames);
	json_obj_end(j);
	net_json_cg(j, &r->cg);
	json_obj_end(j);
}

static void net_report_json(const struct net_results *r)
{
	const struct net_opts *o = &net.o;
	/* The leg ratios report.py reads: isolated over mixed, both measured in full; else NaN (null). */
	bool split = r->sdds.ab.n > 0 && r->mixed.ab.n > 0 && bench_lat_full(&r->sdds.lat) &&
		     bench_lat_full(&r->mixed.lat);
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "bench", "net");
	json_uint(&j, "size", o->b.size);
	json_uint(&j, "iterations", o->b.iterations);
	json_str(&j, "daemon_mode", o->poll ? "polling" : "blocking");
	json_str(&j, "backend", o->tap ? "socket, then tap" : "socket");
	json_int(&j, "cpu_a", netns.cpu[0]);
	json_int(&j, "cpu_b", netns.cpu[1]);
	json_obj_begin(&j, "latency");
	net_json_lat(&j, "sddsd", &r->sdds);
	net_json_lat(&j, "raw_udp6", &r->raw);
	if (o->poll)
		net_json_lat(&j, "raw_udp6_busy", &r->raw_busy);
	json_obj_end(&j);
	json_obj_begin(&j, "throughput");
	json_num(&j, "seconds", o->b.tput_seconds);
	net_json_tput(&j, "sddsd", &r->sdds_tput);
	net_json_frames(&j, "sddsd_frames", &r->frames);
	net_json_tput(&j, "raw_udp6_sendmmsg", &r->raw_tput);
	net_json_tput(&j, "raw_udp6_gso", &r->raw_gso_tput);
	json_uint(&j, "raw_datagram_bytes", net.raw_size);
	net_json_tput(&j, "sddsd_packed", &r->packed_tput);
	net_json_frames(&j, "sddsd_packed_frames", &r->packed_frames);
	json_obj_end(&j);
	if (net_json_begin(&j, "ddsperf", r->dp.ok, o->no_ddsperf ? "--no-ddsperf" : r->dp.why)) {
		json_str(&j, "payload", r->dp.payload);
		json_str(&j, "summary", r->dp.line);
		json_str(&j, "command", r->dp.cmd);
	}
	json_bool(&j, "ran", !o->no_ddsperf);
	json_obj_end(&j);
	json_obj_begin(&j, "monolithic");
	json_bool(&j, "requested", o->monolithic);
	json_bool(&j, "available", true);
	if (o->monolithic) {
		net_json_lat(&j, "latency", &r->mono);
		net_json_lat(&j, "latency_mixed", &r->mixed);
		net_json_tput(&j, "throughput", &r->mono_tput);
		json_num(&j, "ratio_send", split ? r->sdds.ab.median / r->mixed.ab.median : NAN);
		json_num(&j, "ratio_receive", split ? r->sdds.ba.median / r->mixed.ba.median : NAN);
	}
	json_obj_end(&j);
	if (o->tap)
		net_json_tap(&j, r);
	json_obj_end(&j);
	json_finish(&j);
}

/* ---- command line ---- */

enum {
	NET_OPT_DDSPERF_S = BENCH_OPT_OWN,
	NET_OPT_CPUS,
	NET_OPT_BACKEND,
	NET_OPT_CG_ROUNDS,
	NET_OPT_VALGRIND
};

static void net_usage(FILE *f)
{
	fprintf(f, "usage: sdds-bench net [options]   (root: network namespaces and a veth pair)\n"
		   "One-way latency (RTT/2) and throughput of sddsd, raw UDPv6, ddsperf.\n"
		   "  -n, --iterations N (100000)  --warmup N (1000)  -s, --size N (1..100, 2)\n"
		   "  --max-seconds S (60, per latency run)  -t, --tput-seconds S (2)\n"
		   "  --poll              polling daemons, and a busy-polled raw ping-pong too\n"
		   "  --monolithic        also the monolithic path (A, then both); --monolithic-only\n"
		   "  --cpus A,B          side A's processes on CPU A, side B's on CPU B\n"
		   "  --ddsperf-seconds S (10), --no-ddsperf, --sddsd PATH\n"
		   "  --backend tap       then both daemons on the tap backend (own IPv6 stack) too:\n"
		   "                      latency, throughput, and daemon A under callgrind for\n"
		   "  --callgrind-rounds N (2000) round trips, --valgrind PATH (valgrind)\n"
		   "  --json              the JSON itself, not report.py's table of it\n"
		   "  --raw PREFIX        one-way ns of every round to PREFIX-net-<run>.txt\n"
		   "Exit: 0 every run succeeded, 1 a run failed, 2 usage, 77 cannot run here.\n");
}

/* c 0: a flag getopt set. --cpus pins every process of a side, its daemon included, to one CPU. */
static int net_option(void *ctx, int c, const char *arg)
{
	if (c == NET_OPT_CPUS)
		return bench_parse_cpus(arg, 2, netns.cpu);
	if (c == NET_OPT_BACKEND) {
		if (strcmp(arg, "tap") != 0 && strcmp(arg, "socket") != 0)
			return -EINVAL;
		net.o.tap = strcmp(arg, "tap") == 0;
		return 0;
	}
	if (c == NET_OPT_VALGRIND) {
		net.o.valgrind = arg;
		return 0;
	}
	if (c == NET_OPT_CG_ROUNDS)
		return bench_parse_u64(arg, 0, 1, 10000000, &net.o.cg_rounds);
	return c == NET_OPT_DDSPERF_S ? bench_parse_double(arg, 1, 3600, &net.o.ddsperf_seconds) : 0;
}

static int net_parse(int argc, char **argv, struct net_opts *o)
{
	const struct option own[] = {
	    {"poll", no_argument, &o->poll, 1},
	    {"no-ddsperf", no_argument, &o->no_ddsperf, 1},
	    {"monolithic", no_argument, &o->monolithic, 1},
	    {"monolithic-only", no_argument, &o->mono_only, 1},
	    {"ddsperf-seconds", required_argument, NULL, NET_OPT_DDSPERF_S},
	    {"cpus", required_argument, NULL, NET_OPT_CPUS},
	    {"backend", required_argument, NULL, NET_OPT_BACKEND},
	    {"callgrind-rounds", required_argument, NULL, NET_OPT_CG_ROUNDS},
	    {"valgrind", required_argument, NULL, NET_OPT_VALGRIND},
	    {NULL, 0, NULL, 0},
	};
	const struct bench_cli cli = {
	    .prog = "sdds-bench net",
	    .common = BENCH_OPT_ITERATIONS | BENCH_OPT_WARMUP | BENCH_OPT_SIZE | BENCH_OPT_MAX_SECONDS |
		      BENCH_OPT_TPUT_SECONDS | BENCH_OPT_SDDSD | BENCH_OPT_RAW | BENCH_OPT_JSON,
	    .max_size = NET_MAX_SIZE,
	    .max_iterations = 1000000000,
	    .own = own,
	    .parse = net_option,
	    .usage = net_usage,
	};
	int rc;

	*o = (struct net_opts){
	    .b = {.size = 2,
		  .iterations = 100000,
		  .warmup = 1000,
		  .max_seconds = 60,
		  .tput_seconds = 2,
		  .reliable = true},
	    .ddsperf_seconds = 10,
	    .cg_rounds = 2000,
	    .valgrind = "valgrind",
	};
	rc = bench_cli_parse(&cli, argc, argv, &o->b, o);
	o->monolithic |= o->mono_only;
	o->no_ddsperf |= o->mono_only;
	o->tap &= !o->mono_only;
	return rc;
}

/* The runs with both daemons: latency, throughput, the raw baselines, packed, ddsperf. */
static void net_isolated(struct net_results *r)
{
	net_latency("net-sddsd", &r->sdds);
	net.raw = true;
	net_latency("net-raw", &r->raw);
	if (net.o.poll) {
		net.raw_busy = true;
		net_latency("net-raw-busy", &r->raw_busy);
	}
	net.raw = false;
	net_throughput("sddsd", &r->sdds_tput, &r->frames);
	/* Raw datagrams of sddsd's mean frame size, else of one sample. */
	net.raw_size = net.o.b.size;
	if (r->frames.frames >= 2) {
		uint64_t mean = (r->frames.bytes + r->frames.frames / 2) / r->frames.frames;

		net.raw_size = mean < 2 ? 2 : mean > NET_MAX_FRAME ? NET_MAX_FRAME : (uint32_t)mean;
	}
	net.raw = true;
	net_throughput("raw UDPv6 sendmmsg", &r->raw_tput, NULL);
	net.raw_gso = true;
	net_throughput("raw UDPv6 GSO", &r->raw_gso_tput, NULL);
	net.raw = false;
	/* Packed: both daemons restarted marking each other peer_pack, then the plain configs put back. */
	netns_daemon_stop(0);
	netns_daemon_stop(1);
	net.pack = true;
	if (net_daemons_up(r->packed_tput.why) == 0)
		net_throughput("sddsd, packed (peer_pack)", &r->packed_tput, &r->packed_frames);
	else
		bench_why(r->packed_frames.why, "%s", r->packed_tput.why);
	net.pack = false;
	if (net_write_side(0) < 0 || net_write_side(1) < 0)
		fprintf(stderr, "sdds-bench net: cannot put the configs back in %s\n", netns.dir);
	if (!net.o.no_ddsperf)
		net_ddsperf(r);
}

int net_main(int argc, char **argv)
{
	static struct net_results r;
	char sddsd[PATH_MAX], why[BENCH_WHY_MAX] = "";
	struct net_opts *o = &net.o;
	struct proc_shm shm;
	int rc = net_parse(argc, argv, o);

	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (geteuid() != 0) {
		fprintf(stderr, "sdds-bench net: needs root (network namespaces, a veth pair): not run\n");
		return NET_EXIT_CANNOT;
	}
	if (sddsd_find(o->b.sddsd_path, sddsd, sizeof(sddsd)) < 0) {
		fprintf(stderr, "sdds-bench net: sddsd not found (give --sddsd PATH)\n");
		return 1;
	}
	o->b.sddsd_path = sddsd;
	if (o->b.iterations < 100000)
		fprintf(stderr, "sdds-bench: note: %llu iterations; report figures from >= 100000\n",
			(unsigned long long)o->b.iterations);
	/* Room for the A->B and the B->A leg of every measured round. */
	if ((rc = proc_shm_new(sizeof(struct net_shm) + 2 * o->b.iterations * sizeof(uint64_t), &shm)) < 0) {
		fprintf(stderr, "sdds-bench net: shared memory: %s\n", strerror(-rc));
		return 1;
	}
	net.shm = shm.base;
	fprintf(stderr, "sdds-bench net: namespaces, veth, daemons\n");
	/* On failure the rig's exit handler removes what it made. */
	if (netns_pair_setup("bn", "vna", "vnb") < 0 || net_daemons_up(why) < 0) {
		fprintf(stderr, "sdds-bench net: setup failed: %s\n", why[0] ? why : netns.why);
		return strstr(netns.why, "ip netns add") != NULL ? NET_EXIT_CANNOT : 1;
	}
	if (!o->mono_only)
		net_isolated(&r);
	if (o->monolithic) {
		/* A daemon's port is free once it is gone; the monolithic side reads its config. */
		netns_daemon_stop(0);
		net.mono[0] = true;
		if (!o->mono_only)
			net_latency("net-mixed", &r.mixed);
		netns_daemon_stop(1);
		net.mono[1] = true;
		net_latency("net-mono", &r.mono);
		net_throughput("monolithic", &r.mono_tput, NULL);
	}
	if (o->tap)
		net_tap(&r);
	netns_cleanup();
	proc_shm_free(&shm);
	net_report_json(&r);
	if (o->mono_only)
		return r.mono.lat.ok && r.mono_tput.ok ? 0 : 1;
	if (o->monolithic && !(r.mixed.lat.ok && r.mono.lat.ok && r.mono_tput.ok))
		return 1;
	if (o->tap && !(r.tap.lat.ok && r.tap_tput.ok))
		return 1;
	return r.sdds.lat.ok && r.raw.lat.ok && r.sdds_tput.ok && r.raw_tput.ok ? 0 : 1;
}
