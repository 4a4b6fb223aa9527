/* SPDX-License-Identifier: MIT */
/*
 * scale.c - `sdds-bench scale` (see scale.h).
 *
 * OVERVIEW
 * One point = one private daemon, started and stopped here (sddsd.c). The
 * main process stays single-threaded and holds no client; every client
 * lives in a forked child (proc_spawn). Shared state (struct sc_shm, a
 * memfd mapping made before the forks):
 *   - `registered`: clients connected with their topic, writer and reader
 *     (helpers add theirs; each side of the pair adds one). The main
 *     process reads the daemon's memory when it reaches N.
 *   - `go`: the memory is read; the pair starts its ping-pong.
 *   - `helpers_stop`: the pair is done; the helpers end;
 *   - `pp`: the pair's ping-pong control block (pingpong.h) right after
 *     this one in the mapping: its `abort` is every role's (a role that
 *     failed makes the others give up at their next slice), its rtt[] the
 *     ping side's (or the loopback client's for N = 1) round trips.
 * Each role frees every handle before it exits 0, so the daemon sees
 * orderly goodbyes; an error exit leaves that to process exit.
 *
 * Clients sleep when they wait (spin budget 0), in both daemon modes: on
 * two CPUs a polling daemon plus spinning clients are three busy processes
 * taking turns at the scheduler tick (see README, local polling).
 *
 * RLIMIT_NOFILE: a client holds five descriptors and the daemon some per
 * client, so the soft limit is raised to the hard one before anything is
 * forked (children and daemon inherit it).
 */
#include "scale.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sdds/sdds.h>

#include "bench.h"
#include "json.h"
#include "local.h"
#include "pingpong.h"
#include "proc.h"
#include "sddsd.h"

#define SC_MAX_POINTS 32
#define SC_MAX_CLIENTS 256
#define SC_PER_HELPER 64
#define SC_MAX_HELPERS ((SC_MAX_CLIENTS - 2 + SC_PER_HELPER - 1) / SC_PER_HELPER)
#define SC_DEFAULT_ITERATIONS 20000
#define SC_DEFAULT_WARMUP 500
#define SC_DEFAULT_SIZE 2
#define SC_DEFAULT_MAX_SECONDS 30.0
/* Registering 256 clients on a loaded 2-CPU machine: generous. */
#define SC_REGISTER_TIMEOUT_NS (120 * 1000000000LL)
#define SC_CACHELINE 64
#define SC_ID_PING 1
#define SC_ID_PONG 2
#define SC_ID_IDLE0 100

struct sc_opts {
	struct bench_opts
	    b; /* the pair's ping-pong: size, iterations, warmup, max_seconds; json, sddsd_path */
	uint32_t clients[SC_MAX_POINTS];
	int n_points;
	double bg_hz;
	bool poll;
};

struct sc_point {
	uint32_t clients;
	bool ok;
	char why[BENCH_WHY_MAX];
	struct stats st; /* one-way, ns */
	bool truncated;
	uint64_t rss0_kib, pss0_kib; /* the daemon before any client */
	uint64_t rss_kib, pss_kib;   /* with every client registered */
	double rss_per_client_kib, pss_per_client_kib;
};

struct sc_shm {
	alignas(SC_CACHELINE) _Atomic uint32_t registered;
	alignas(SC_CACHELINE) _Atomic uint32_t go;
	_Atomic uint32_t helpers_stop;
	char why[BENCH_WHY_MAX]; /* the first role that failed outside the ping-pong */
	struct pingpong_shm *pp; /* the pair's control block, after this one in the mapping */
};

struct sc_args {
	const struct sc_opts *o;
	struct sc_shm *s;
	const char *sock;
	uint32_t first, count; /* helper: idle clients [first, first + count) */
};

/* Record why a role failed (first one wins) and tell the others; returns code. */
static int sc_fail(struct sc_shm *s, int code, const char *what, int err)
{
	uint32_t was = atomic_exchange_explicit(&s->pp->abort, 1, memory_order_acq_rel);

	if (!was)
		bench_why(s->why, "%s: %s", what,
			  err == -ECANCELED ? "another role failed"
			  : err == -EPROTO  ? "wrong sample"
					    : sdds_strerror(err));
	return code;
}

/* ------------------------------------------------------------- endpoints */

/*
 * Connect as `name` and register a reader of topic (rid, rname) and a
 * writer of (wid, wname); the same topic when the ids are equal.
 */
static int sc_client_open(const struct sc_args *a, const char *name, uint16_t rid, const char *rname,
			  uint16_t wid, const char *wname, struct local_side *x)
{
	sdds_field f_r[2], f_w[2];
	sdds_topic_desc d_r, d_w;
	sdds_client_options opts;
	const char *what;
	sdds_qos q;

	sdds_client_options_init(&opts);
	opts.socket_path = a->sock;
	opts.name = name;
	opts.spin_ns = 0;
	/* A daemon that goes away ends the point; nothing to reconnect to. */
	opts.reconnect = 0;
	local_topic_desc(rid, rname, a->o->b.size, f_r, &d_r);
	local_topic_desc(wid, wname, a->o->b.size, f_w, &d_w);
	sdds_qos_init(&q);
	q.reliability = SDDS_RELIABLE;
	q.max_blocking_ms = 1000;
	return local_side_open(&opts, &d_r, wid != rid ? &d_w : NULL, LOCAL_READER | LOCAL_WRITER, &q, x,
			       &what);
}

/* ----------------------------------------------------------------- roles */

enum { SC_LOOP, SC_PING, SC_PONG };

/*
 * A role of the measured pair: N = 1 one client, writer and reader on one
 * topic, that takes its own samples (the ping loop with no pong side);
 * else the ping or the pong side. Each registers, then the ping sides wait
 * for `go` (the pong side waits for the first ping).
 */
static int sc_pair_role(struct sc_args *a, int role)
{
	static const char *const who[] = {"loopback client", "ping side", "pong side"};
	struct sc_shm *s = a->s;
	struct local_side x;
	char what[64];
	int err, rc;

	if (role == SC_LOOP)
		err = sc_client_open(a, "scale-loopback", SC_ID_PING, "scale_ping", SC_ID_PING, "scale_ping",
				     &x);
	else if (role == SC_PING)
		err = sc_client_open(a, "scale-ping", SC_ID_PONG, "scale_pong", SC_ID_PING, "scale_ping", &x);
	else
		err = sc_client_open(a, "scale-pong", SC_ID_PING, "scale_ping", SC_ID_PONG, "scale_pong", &x);
	snprintf(what, sizeof(what), "%s: connect and register", who[role]);
	if (err < 0)
		return sc_fail(s, 2, what, err);
	atomic_fetch_add_explicit(&s->registered, 1, memory_order_release);
	if (role == SC_PONG) {
		rc = pingpong_pong(s->pp, &a->o->b, &local_pp_ops, &x, who[role]);
	} else {
		err = bench_wait_flag(&s->go, &s->pp->abort, SC_REGISTER_TIMEOUT_NS + 30 * 1000000000LL);
		snprintf(what, sizeof(what), "%s: waiting for go", who[role]);
		if (err < 0)
			return sc_fail(s, 2, what, err);
		if (role == SC_LOOP)
			atomic_store_explicit(&s->pp->ready, 1, memory_order_release);
		rc = pingpong_ping(s->pp, &a->o->b, &local_pp_ops, &x, who[role]);
	}
	if (rc != 0)
		return rc;
	local_side_close(&x);
	return 0;
}

static int sc_loop_role(void *arg)
{
	return sc_pair_role(arg, SC_LOOP);
}

static int sc_ping_role(void *arg)
{
	return sc_pair_role(arg, SC_PING);
}

static int sc_pong_role(void *arg)
{
	return sc_pair_role(arg, SC_PONG);
}

/*
 * A helper: clients [first, first + count), each its own connection with
 * its own topic, writer and reader. Idle, or each writes one sample per
 * 1/bg_hz seconds and takes what its reader holds.
 */
static int sc_helper_role(void *arg)
{
	struct sc_args *a = arg;
	const struct sc_opts *o = a->o;
	struct sc_shm *s = a->s;
	struct local_side *x = calloc(a->count, sizeof(*x));
	uint8_t out[BENCH_MAX_SIZE] = {0}, in[BENCH_MAX_SIZE];
	int64_t period = o->bg_hz > 0 ? (int64_t)(1e9 / o->bg_hz) : 0, next;
	uint64_t tick = 0;
	int rc = 0;

	if (!x)
		return sc_fail(s, 2, "helper", -ENOMEM);
	for (uint32_t k = 0; k < a->count; k++) {
		uint32_t id = a->first + k;
		char name[32], topic[32];
		int err;

		snprintf(name, sizeof(name), "scale-idle-%u", id);
		snprintf(topic, sizeof(topic), "scale_idle_%u", id);
		err = sc_client_open(a, name, (uint16_t)(SC_ID_IDLE0 + id), topic,
				     (uint16_t)(SC_ID_IDLE0 + id), topic, &x[k]);
		if (err < 0) {
			char what[64];

			snprintf(what, sizeof(what), "idle client %u: connect and register", id);
			rc = sc_fail(s, 2, what, err);
			goto out_close;
		}
		atomic_fetch_add_explicit(&s->registered, 1, memory_order_release);
	}
	next = bench_now_ns() + period;
	while (!atomic_load_explicit(&s->helpers_stop, memory_order_acquire) &&
	       !atomic_load_explicit(&s->pp->abort, memory_order_relaxed)) {
		int64_t now = bench_now_ns(), sleep_ns = period ? next - now : 10 * 1000000LL;

		if (sleep_ns > 10 * 1000000LL)
			sleep_ns = 10 * 1000000LL;
		if (sleep_ns > 0) {
			struct timespec ts = {0, sleep_ns};

			nanosleep(&ts, NULL);
			continue;
		}
		/* A background tick: every client writes once and drains its reader. */
		local_put_counter(out, o->b.size, tick++);
		for (uint32_t k = 0; k < a->count; k++) {
			size_t len;
			int err = sdds_writer_write(x[k].w, out, o->b.size);

			if (err < 0) {
				rc = sc_fail(s, 3, "idle client: background write", err);
				goto out_close;
			}
			while (sdds_reader_take(x[k].r, in, sizeof(in), &len, 0) == 0)
				;
		}
		next += period;
		if (next < bench_now_ns())
			next = bench_now_ns() + period; /* overloaded: skip, do not burst */
	}
out_close:
	for (uint32_t k = 0; k < a->count; k++)
		local_side_close(&x[k]);
	free(x);
	return rc;
}

/* ---------------------------------------------------------------- memory */

/* A "Key:   N kB" line of a /proc file, in KiB. */
static int sc_proc_kib(pid_t pid, const char *file, const char *key, uint64_t *ret)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	FILE *f;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (strncmp(line, key, klen) == 0 && line[klen] == ':' &&
		    sscanf(line + klen + 1, "%llu", &v) == 1) {
			*ret = v;
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

static int sc_mem(pid_t pid, uint64_t *ret_rss, uint64_t *ret_pss)
{
	uint64_t rss, pss;
	int err = sc_proc_kib(pid, "status", "VmRSS", &rss);

	if (err == 0)
		err = sc_proc_kib(pid, "smaps_rollup", "Pss", &pss);
	if (err < 0)
		return err;
	*ret_rss = rss;
	*ret_pss = pss;
	return 0;
}

/* ----------------------------------------------------------------- point */

/* Wait until n clients registered, the deadline passed or a child ended. */
static int sc_wait_registered(struct sc_shm *s, uint32_t n, const pid_t *pids, size_t n_pids,
			      struct sddsd_proc *d)
{
	int64_t deadline = bench_now_ns() + SC_REGISTER_TIMEOUT_NS;

	while (atomic_load_explicit(&s->registered, memory_order_acquire) < n) {
		if (atomic_load_explicit(&s->pp->abort, memory_order_relaxed))
			return -ECANCELED;
		if (!sddsd_alive(d))
			return -ECHILD;
		for (size_t i = 0; i < n_pids; i++) {
			siginfo_t si = {0};

			/* A child that ended before `go` failed; WNOWAIT leaves it to proc_wait_all. */
			if (waitid(P_PID, (id_t)pids[i], &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    si.si_pid == pids[i])
				return -ECHILD;
		}
		if (bench_now_ns() > deadline)
			return -ETIMEDOUT;
		usleep(2000);
	}
	return 0;
}

static void sc_run_point(const struct sc_opts *o, const char *sddsd_bin, struct sc_point *p)
{
	struct sc_args a[2 + SC_MAX_HELPERS];
	pid_t pids[2 + SC_MAX_HELPERS];
	int st[2 + SC_MAX_HELPERS];
	uint32_t n = p->clients, n_idle = n >= 3 ? n - 2 : 0;
	size_t n_pair = n == 1 ? 1 : 2, n_pids = 0;
	struct proc_shm shm;
	struct sc_shm *s;
	struct sddsd_proc d;
	char why[BENCH_WHY_MAX];
	int64_t deadline;
	int err;

	err = sddsd_start(sddsd_bin, o->poll, BENCH_CPU_ANY, &d, why);
	if (err < 0) {
		memcpy(p->why, why, sizeof(why));
		return;
	}
	/* The daemon before any client (the readiness probe has come and gone). */
	err = sc_mem(d.pid, &p->rss0_kib, &p->pss0_kib);
	if (err < 0) {
		bench_why(p->why, "daemon memory before the clients: %s", strerror(-err));
		goto out_stop;
	}
	err = proc_shm_new(sizeof(struct sc_shm) + pingpong_shm_size(&o->b), &shm);
	if (err < 0) {
		bench_why(p->why, "shared memory: %s", strerror(-err));
		goto out_stop;
	}
	s = shm.base;
	s->pp = (struct pingpong_shm *)(s + 1);
	for (size_t i = 0; i < 2 + SC_MAX_HELPERS; i++)
		a[i] = (struct sc_args){.o = o, .s = s, .sock = d.sock};

	/* Helpers first: the pair's latency is measured with all of them connected. */
	for (uint32_t first = 0; first < n_idle; first += SC_PER_HELPER) {
		struct sc_args *h = &a[2 + n_pids];

		h->first = first;
		h->count = n_idle - first < SC_PER_HELPER ? n_idle - first : SC_PER_HELPER;
		err = proc_spawn(BENCH_CPU_ANY, sc_helper_role, h, &pids[n_pids]);
		if (err < 0)
			goto fail_fork;
		n_pids++;
	}
	if (n == 1) {
		err = proc_spawn(BENCH_CPU_ANY, sc_loop_role, &a[0], &pids[n_pids]);
		if (err < 0)
			goto fail_fork;
		n_pids++;
	} else {
		err = proc_spawn(BENCH_CPU_ANY, sc_pong_role, &a[0], &pids[n_pids]);
		if (err < 0)
			goto fail_fork;
		n_pids++;
		err = proc_spawn(BENCH_CPU_ANY, sc_ping_role, &a[1], &pids[n_pids]);
		if (err < 0)
			goto fail_fork;
		n_pids++;
	}

	err = sc_wait_registered(s, n, pids, n_pids, &d);
	if (err == 0)
		err = sc_mem(d.pid, &p->rss_kib, &p->pss_kib);
	if (err < 0) {
		atomic_store_explicit(&s->pp->abort, 1, memory_order_relaxed);
		proc_wait_all(pids, n_pids, bench_now_ns() + 10 * 1000000000LL, st);
		if (s->why[0])
			bench_why(p->why, "%s", s->why);
		else if (err == -ETIMEDOUT)
			bench_why(p->why, "%u of %u clients registered within 120 s",
				  atomic_load(&s->registered), n);
		else if (err == -ECHILD)
			bench_why(p->why, "%s died while the clients registered",
				  sddsd_alive(&d) ? "a client process" : "sddsd");
		else
			bench_why(p->why, "daemon memory: %s", strerror(-err));
		goto out_free_shm;
	}
	atomic_store_explicit(&s->go, 1, memory_order_release);

	/* The pair (the last n_pair children) first, then the helpers. */
	deadline = bench_now_ns() + (int64_t)((o->b.max_seconds * 2 + 60) * 1e9);
	err = proc_wait_all(&pids[n_pids - n_pair], n_pair, deadline, st);
	atomic_store_explicit(&s->helpers_stop, 1, memory_order_release);
	if (n_pids > n_pair) {
		int err2 = proc_wait_all(pids, n_pids - n_pair, bench_now_ns() + 30 * 1000000000LL, st);

		if (err == 0)
			err = err2;
	}
	if (err < 0) {
		const char *w = s->why[0] ? s->why : s->pp->why[0][0] ? s->pp->why[0] : s->pp->why[1];
		char s0[64];

		proc_status_str(st[0], s0, sizeof(s0));
		if (w[0])
			bench_why(p->why, "%s", w);
		else
			bench_why(p->why, "%s (%s)",
				  err == -ETIMEDOUT ? "a role did not end in time and was killed"
						    : "a role died",
				  s0);
		goto out_free_shm;
	}
	if (s->pp->done == 0) {
		bench_why(p->why, "no iteration completed");
		goto out_free_shm;
	}
	/* Loopback times one hop; the pair a round trip, halved. */
	stats_compute(s->pp->rtt, s->pp->done, n == 1 ? 1.0 : 0.5, &p->st);
	p->truncated = s->pp->capped != 0;
	p->rss_per_client_kib = ((double)p->rss_kib - (double)p->rss0_kib) / n;
	p->pss_per_client_kib = ((double)p->pss_kib - (double)p->pss0_kib) / n;
	p->ok = true;
	goto out_free_shm;

fail_fork:
	bench_why(p->why, "fork: %s", strerror(-err));
	atomic_store_explicit(&s->pp->abort, 1, memory_order_relaxed);
	if (n_pids > 0)
		proc_wait_all(pids, n_pids, bench_now_ns() + 10 * 1000000000LL, st);
out_free_shm:
	proc_shm_free(&shm);
out_stop:
	err = sddsd_stop(&d, why);
	if (err < 0 && p->ok) {
		p->ok = false;
		memcpy(p->why, why, sizeof(why));
	}
}

/* --------------------------------------------------------------- output */

static void sc_json(const struct sc_opts *o, const struct sc_point *pts, bool ok, const char *why)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "bench", "scale");
	json_bool(&j, "ok", ok);
	json_str(&j, "why", why);
	json_str(&j, "daemon_mode", o->poll ? "polling" : "blocking");
	json_uint(&j, "n", o->b.iterations);
	json_uint(&j, "size", o->b.size);
	json_num(&j, "bg_hz", o->bg_hz);
	json_arr_begin(&j, "points");
	for (int i = 0; i < o->n_points; i++) {
		const struct sc_point *p = &pts[i];

		json_obj_begin(&j, NULL);
		json_uint(&j, "clients", p->clients);
		json_bool(&j, "ok", p->ok);
		json_str(&j, "why", p->why);
		if (p->ok) {
			json_num(&j, "p50_us", p->st.median / 1e3);
			json_num(&j, "p99_us", p->st.p99 / 1e3);
			json_num(&j, "p999_us", p->st.p999 / 1e3);
			json_num(&j, "max_us", p->st.max / 1e3);
			json_uint(&j, "iterations", p->st.n);
			json_bool(&j, "truncated", p->truncated);
			json_uint(&j, "requested", o->b.iterations);
			json_uint(&j, "done", p->st.n);
			json_bool(&j, "capped", p->truncated);
			json_uint(&j, "daemon_rss_kib", p->rss_kib);
			json_uint(&j, "daemon_pss_kib", p->pss_kib);
			json_uint(&j, "daemon_rss0_kib", p->rss0_kib);
			json_uint(&j, "daemon_pss0_kib", p->pss0_kib);
			json_num(&j, "rss_per_client_kib", p->rss_per_client_kib);
			json_num(&j, "pss_per_client_kib", p->pss_per_client_kib);
		}
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

/* ---------------------------------------------------------------- options */

static void sc_usage(FILE *f)
{
	fprintf(f,
		"usage: sdds-bench scale [options]\n"
		"\n"
		"Latency of a ping-pong pair and daemon memory against the number of connected\n"
		"clients: for each N a private sddsd, N clients in all (the pair and N - 2 others,\n"
		"each with its own topic, writer and reader).\n"
		"\n"
		"  --clients LIST       client counts, 1..%d, comma-separated\n"
		"                       (default 1,2,4,8,16,32,64,128,256)\n"
		"  -n, --iterations N   measured round trips per point (default %d)\n"
		"      --warmup N       unmeasured round trips first (default %d)\n"
		"  -s, --size N         sample bytes, 1..%u (default %d)\n"
		"      --max-seconds S  cap on the measured part of one point (default %.0f)\n"
		"      --bg-hz HZ       every other client writes HZ samples/s (default 0: idle)\n"
		"      --poll           run the daemon with --poll (clients still sleep)\n"
		"      --sddsd PATH     the daemon binary (default: ../../daemon/sddsd from here)\n"
		"      --json           print the JSON itself, not report.py's table of it\n"
		"  -h, --help\n",
		SC_MAX_CLIENTS, SC_DEFAULT_ITERATIONS, SC_DEFAULT_WARMUP, BENCH_MAX_SIZE, SC_DEFAULT_SIZE,
		SC_DEFAULT_MAX_SECONDS);
}

static int sc_parse_list(const char *s, struct sc_opts *o)
{
	char buf[256];
	char *save = NULL, *tok;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return -EINVAL;
	o->n_points = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (o->n_points >= SC_MAX_POINTS || bench_parse_u64(tok, 10, 1, SC_MAX_CLIENTS, &v) < 0)
			return -EINVAL;
		o->clients[o->n_points++] = (uint32_t)v;
	}
	return o->n_points > 0 ? 0 : -EINVAL;
}

enum { SC_OPT_CLIENTS = BENCH_OPT_OWN, SC_OPT_BG_HZ, SC_OPT_POLL };

/* The options of `scale` beyond the common ones (bench_cli). */
static int sc_option(void *ctx, int c, const char *arg)
{
	struct sc_opts *o = ctx;

	if (c == SC_OPT_CLIENTS)
		return sc_parse_list(arg, o);
	if (c == SC_OPT_BG_HZ)
		return bench_parse_double(arg, 0, 10000, &o->bg_hz);
	o->poll = true;
	return 0;
}

static int sc_parse(int argc, char **argv, struct sc_opts *o)
{
	static const struct option own[] = {
	    {"clients", required_argument, NULL, SC_OPT_CLIENTS},
	    {"bg-hz", required_argument, NULL, SC_OPT_BG_HZ},
	    {"poll", no_argument, NULL, SC_OPT_POLL},
	    {NULL, 0, NULL, 0},
	};
	static const struct bench_cli cli = {
	    .prog = "sdds-bench scale",
	    .common = BENCH_OPT_ITERATIONS | BENCH_OPT_WARMUP | BENCH_OPT_SIZE | BENCH_OPT_MAX_SECONDS |
		      BENCH_OPT_SDDSD | BENCH_OPT_JSON,
	    .max_size = BENCH_MAX_SIZE,
	    .max_iterations = 100000000,
	    .own = own,
	    .parse = sc_option,
	    .usage = sc_usage,
	};
	static const uint32_t defaults[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};

	*o = (struct sc_opts){
	    .b = {.iterations = SC_DEFAULT_ITERATIONS,
		  .warmup = SC_DEFAULT_WARMUP,
		  .size = SC_DEFAULT_SIZE,
		  .max_seconds = SC_DEFAULT_MAX_SECONDS},
	};
	memcpy(o->clients, defaults, sizeof(defaults));
	o->n_points = (int)(sizeof(defaults) / sizeof(defaults[0]));
	return bench_cli_parse(&cli, argc, argv, &o->b, o);
}

/* Soft RLIMIT_NOFILE up to the hard limit; returns the soft limit now. */
static uint64_t sc_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
}

int scale_main(int argc, char **argv)
{
	static struct sc_point pts[SC_MAX_POINTS];
	char bin[PATH_MAX], why[BENCH_WHY_MAX] = "";
	struct sc_opts o;
	uint64_t nofile;
	bool ok = true;
	int rc;

	rc = sc_parse(argc, argv, &o);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	for (int i = 0; i < o.n_points; i++)
		pts[i] = (struct sc_point){.clients = o.clients[i]};
	nofile = sc_raise_nofile();
	if (sddsd_find(o.b.sddsd_path, bin, sizeof(bin)) < 0) {
		bench_why(why, "sddsd not found%s%s",
			  o.b.sddsd_path ? " at " : " next to sdds-bench (give --sddsd PATH)",
			  o.b.sddsd_path ? o.b.sddsd_path : "");
		for (int i = 0; i < o.n_points; i++)
			bench_why(pts[i].why, "%s", why);
		ok = false;
	} else {
		for (int i = 0; i < o.n_points; i++) {
			/* A client holds 5 descriptors, the daemon some per client: leave room. */
			if (nofile < (uint64_t)pts[i].clients * 8 + 64) {
				bench_why(pts[i].why, "RLIMIT_NOFILE %llu is too low for %u clients",
					  (unsigned long long)nofile, pts[i].clients);
			} else {
				fprintf(stderr, "sdds-bench: scale, %u client%s\n", pts[i].clients,
					pts[i].clients == 1 ? "" : "s");
				sc_run_point(&o, bin, &pts[i]);
			}
			if (!pts[i].ok)
				ok = false;
		}
		if (!ok)
			bench_why(why, "a point failed");
	}
	sc_json(&o, pts, ok, why);
	return ok ? 0 : 1;
}
