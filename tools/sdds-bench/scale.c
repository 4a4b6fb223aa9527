/* SPDX-License-Identifier: MIT */
/*
 * scale.c - `sdds-bench scale` (see scale.h).
 *
 * OVERVIEW
 * One point = one private daemon (sddsd.c). The main process stays
 * single-threaded and holds no client: every client lives in a forked
 * child. They share struct sc_shm, mapped before the forks: `registered`
 * counts clients with topic, writer and reader (the main process reads the
 * daemon's memory at N), `go` starts the pair, and `pp`, the pair's
 * ping-pong block, follows it in the mapping: its `stop` ends the other
 * clients and its `abort` is every role's. A role frees its handles before
 * it exits 0, so the daemon sees orderly goodbyes.
 *
 * Clients sleep when they wait (spin budget 0), in both daemon modes: on
 * two CPUs a polling daemon and spinning clients are three busy processes
 * taking turns at the scheduler tick (see README, local polling).
 */
#include "scale.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
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
#define SC_MAX_ROLES (2 + (SC_MAX_CLIENTS - 2 + SC_PER_HELPER - 1) / SC_PER_HELPER)
#define SC_SEC_NS 1000000000LL
/* Registering 256 clients on a loaded 2-CPU machine: generous. */
#define SC_REGISTER_TIMEOUT_NS (120 * SC_SEC_NS)
/* The longest a helper sleeps before it looks at the flags again. */
#define SC_NAP_NS (10 * 1000000LL)
#define SC_ID_PING 1
#define SC_ID_PONG 2
#define SC_ID_IDLE0 100

struct sc_opts {
	struct bench_opts b; /* the pair's ping-pong; size, sddsd_path */
	uint32_t clients[SC_MAX_POINTS];
	int n_points;
	double bg_hz;
	bool poll;
};

/* A point was measured when its reason is empty. */
struct sc_point {
	uint32_t clients;
	char why[BENCH_WHY_MAX];
	struct stats st; /* one-way, ns */
	bool capped;
	uint64_t rss0_kib, pss0_kib; /* the daemon before any client */
	uint64_t rss_kib, pss_kib;   /* with every client registered */
};

struct sc_shm {
	alignas(PINGPONG_CACHELINE) _Atomic uint32_t registered;
	alignas(PINGPONG_CACHELINE) _Atomic uint32_t go;
	char why[BENCH_WHY_MAX]; /* the first role that failed outside the ping-pong */
	struct pingpong_shm *pp;
};

enum { SC_LOOP, SC_PING, SC_PONG, SC_HELPER };

struct sc_args {
	const struct sc_opts *o;
	struct sc_shm *s;
	const char *sock;
	int role;
	uint32_t first, count; /* its clients: 1 of the pair, or idle clients [first, first + count) */
};

/* Record why a role failed (the first one wins) and tell the others; returns code. */
static int sc_fail(struct sc_shm *s, int code, int err, const char *who, const char *what)
{
	if (!atomic_exchange_explicit(&s->pp->abort, 1, memory_order_acq_rel))
		bench_why(s->why, "%s: %s: %s", who, what, sdds_strerror(err));
	return code;
}

/* The pair's side on x: the pong side answers from the first ping, the others start at `go`. */
static int sc_pingpong(const struct sc_args *a, const char *who, struct local_side *x)
{
	struct sc_shm *s = a->s;
	int err;

	if (a->role == SC_PONG)
		return pingpong_pong(s->pp, &a->o->b, &local_pp_ops, x, who);
	err = bench_wait_flag(&s->go, &s->pp->abort, SC_REGISTER_TIMEOUT_NS + 30 * SC_SEC_NS);
	if (err < 0)
		return sc_fail(s, 2, err, who, "waiting for go");
	/* The loopback client takes its own samples: no pong side to say it is ready. */
	if (a->role == SC_LOOP)
		atomic_store_explicit(&s->pp->ready, 1, memory_order_release);
	return pingpong_ping(s->pp, &a->o->b, &local_pp_ops, x, who);
}

/*
 * The other clients until the pair is done: idle, or every 1/bg_hz
 * seconds each writes one sample and takes what its reader holds.
 */
static int sc_background(const struct sc_args *a, struct local_side *x)
{
	const struct sc_opts *o = a->o;
	struct sc_shm *s = a->s;
	uint8_t out[BENCH_MAX_SIZE] = {0}, in[BENCH_MAX_SIZE];
	int64_t period = o->bg_hz > 0 ? (int64_t)(1e9 / o->bg_hz) : 0, next = bench_now_ns() + period;
	uint64_t tick = 0;

	while (!atomic_load_explicit(&s->pp->stop, memory_order_acquire) &&
	       !atomic_load_explicit(&s->pp->abort, memory_order_relaxed)) {
		int64_t sleep_ns = period ? next - bench_now_ns() : SC_NAP_NS;

		if (sleep_ns > 0) {
			struct timespec ts = {0, sleep_ns < SC_NAP_NS ? sleep_ns : SC_NAP_NS};

			nanosleep(&ts, NULL);
			continue;
		}
		local_put_counter(out, o->b.size, tick++);
		for (uint32_t k = 0; k < a->count; k++) {
			size_t len;
			int err = sdds_writer_write(x[k].w, out, o->b.size);

			if (err < 0)
				return sc_fail(s, 3, err, "idle client", "background write");
			while (sdds_reader_take(x[k].r, in, sizeof(in), &len, 0) == 0)
				;
		}
		next += period;
		if (next < bench_now_ns())
			next = bench_now_ns() + period; /* overloaded: skip ticks rather than burst */
	}
	return 0;
}

/* A role: its clients connect and register, then the pair's side or the background runs. */
static int sc_role(void *arg)
{
	static const struct sc_pair_role {
		const char *who, *name, *rname, *wname;
		uint16_t rid, wid;
	} pair[] = {
	    [SC_LOOP] = {"loopback client", "scale-loopback", "scale_ping", "scale_ping", SC_ID_PING,
			 SC_ID_PING},
	    [SC_PING] = {"ping side", "scale-ping", "scale_pong", "scale_ping", SC_ID_PONG, SC_ID_PING},
	    [SC_PONG] = {"pong side", "scale-pong", "scale_ping", "scale_pong", SC_ID_PING, SC_ID_PONG},
	};
	const struct sc_args *a = arg;
	const struct sc_pair_role *r = a->role == SC_HELPER ? NULL : &pair[a->role];
	struct local_side x[SC_PER_HELPER] = {0};
	sdds_client_options co;
	sdds_qos q;
	int rc = 0;

	sdds_client_options_init(&co);
	co.socket_path = a->sock;
	co.spin_ns = 0;
	/* A daemon that goes away ends the point; nothing to reconnect to. */
	co.reconnect = 0;
	sdds_qos_init(&q);
	q.reliability = SDDS_RELIABLE;
	q.max_blocking_ms = 1000;
	for (uint32_t k = 0; k < a->count && rc == 0; k++) {
		uint16_t id = (uint16_t)(SC_ID_IDLE0 + a->first + k);
		char name[32], topic[32];
		sdds_field f_r[2], f_w[2];
		sdds_topic_desc d_r, d_w;
		const char *what;
		int err;

		/* An idle client reads and writes a topic of its own; the pair's sides cross over. */
		snprintf(name, sizeof(name), "scale-idle-%u", a->first + k);
		snprintf(topic, sizeof(topic), "scale_idle_%u", a->first + k);
		co.name = r ? r->name : name;
		local_topic_desc(r ? r->rid : id, r ? r->rname : topic, a->o->b.size, f_r, &d_r);
		local_topic_desc(r ? r->wid : id, r ? r->wname : topic, a->o->b.size, f_w, &d_w);
		err = local_side_open(&co, &d_r, d_w.id != d_r.id ? &d_w : NULL, LOCAL_READER | LOCAL_WRITER,
				      &q, &x[k], &what);
		if (err < 0)
			rc = sc_fail(a->s, 2, err, r ? r->who : name, what);
		else
			atomic_fetch_add_explicit(&a->s->registered, 1, memory_order_release);
	}
	if (rc == 0)
		rc = r ? sc_pingpong(a, r->who, x) : sc_background(a, x);
	for (uint32_t k = 0; k < a->count; k++)
		local_side_close(&x[k]);
	return rc;
}

/* The daemon's VmRSS and its Pss (smaps_rollup: shared pages split among their users), in KiB. */
static int sc_mem(pid_t pid, uint64_t *ret_rss, uint64_t *ret_pss)
{
	static const char *const file[] = {"status", "smaps_rollup"}, *const key[] = {"VmRSS:", "Pss:"};
	unsigned long long v[2];

	for (int i = 0; i < 2; i++) {
		char path[64], line[256];
		int err = -ENOENT;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file[i]);
		f = fopen(path, "re");
		if (!f)
			return -errno;
		while (err < 0 && fgets(line, sizeof(line), f))
			if (strncmp(line, key[i], strlen(key[i])) == 0 &&
			    sscanf(line + strlen(key[i]), "%llu", &v[i]) == 1)
				err = 0;
		fclose(f);
		if (err < 0)
			return err;
	}
	*ret_rss = v[0];
	*ret_pss = v[1];
	return 0;
}

/*
 * Wait until n clients registered: 0, or -errno with why when the deadline
 * passed or a child (a role, the daemon) ended or failed.
 */
static int sc_wait_registered(struct sc_shm *s, struct sddsd_proc *d, uint32_t n, char *why)
{
	int64_t deadline = bench_now_ns() + SC_REGISTER_TIMEOUT_NS;

	while (atomic_load_explicit(&s->registered, memory_order_acquire) < n) {
		siginfo_t si = {0};

		/* Ending before `go` is failing; WNOWAIT leaves the reaping to the child's owner. */
		if (atomic_load_explicit(&s->pp->abort, memory_order_relaxed) ||
		    (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid != 0)) {
			bench_why(why, "%s died while the clients registered",
				  sddsd_alive(d) ? "a client process" : "sddsd");
			return -ECHILD;
		}
		if (bench_now_ns() > deadline) {
			bench_why(why, "%u of %u clients registered within 120 s",
				  atomic_load(&s->registered), n);
			return -ETIMEDOUT;
		}
		usleep(2000);
	}
	return 0;
}

static void sc_run_point(const struct sc_opts *o, const char *sddsd_bin, struct sc_point *p)
{
	struct sc_args a[SC_MAX_ROLES];
	pid_t pids[SC_MAX_ROLES];
	int st[SC_MAX_ROLES] = {0};
	uint32_t n_idle = p->clients >= 3 ? p->clients - 2 : 0;
	size_t n_help = (n_idle + SC_PER_HELPER - 1) / SC_PER_HELPER, n_pair = p->clients == 1 ? 1 : 2;
	size_t n_pids = 0, i = 0;
	struct proc_shm shm;
	struct sc_shm *s;
	struct sddsd_proc d;
	char seen[BENCH_WHY_MAX] = "", status[64];
	double wait_s;
	int err, err2;

	err = proc_shm_new(sizeof(struct sc_shm) + pingpong_shm_size(&o->b), &shm);
	if (err < 0) {
		bench_why(p->why, "shared memory: %s", strerror(-err));
		return;
	}
	s = shm.base;
	s->pp = (struct pingpong_shm *)(s + 1);
	if (sddsd_start(sddsd_bin, o->poll, BENCH_CPU_ANY, &d, p->why) < 0)
		goto out_free_shm;
	/* The daemon before any client (the readiness probe has come and gone). */
	err = sc_mem(d.pid, &p->rss0_kib, &p->pss0_kib);
	if (err < 0)
		bench_why(seen, "daemon memory before the clients: %s", strerror(-err));
	/* Helpers first: the pair is measured with every other client connected. */
	while (err == 0 && n_pids < n_help + n_pair) {
		static const int pair[2][2] = {{SC_LOOP}, {SC_PONG, SC_PING}};
		uint32_t first = (uint32_t)n_pids * SC_PER_HELPER;
		int role = n_pids < n_help ? SC_HELPER : pair[n_pair - 1][n_pids - n_help];

		a[n_pids] = (struct sc_args){
		    o, s, d.sock, role, first, role == SC_HELPER ? MIN(n_idle - first, SC_PER_HELPER) : 1};
		err = proc_spawn(BENCH_CPU_ANY, sc_role, &a[n_pids], &pids[n_pids]);
		if (err < 0)
			bench_why(seen, "fork: %s", strerror(-err));
		else
			n_pids++;
	}
	if (err == 0)
		err = sc_wait_registered(s, &d, p->clients, seen);
	if (err == 0 && (err = sc_mem(d.pid, &p->rss_kib, &p->pss_kib)) < 0)
		bench_why(seen, "daemon memory: %s", strerror(-err));
	/* The helpers run until the pair stops or a role aborts; aborted roles end at once. */
	atomic_store_explicit(err < 0 ? &s->pp->abort : &s->go, 1, memory_order_release);
	wait_s = err < 0 ? 10 : o->b.max_seconds * 2 + 90;
	err2 = proc_wait_all(pids, n_pids, bench_now_ns() + (int64_t)(wait_s * 1e9), st);
	if (err == 0 && err2 < 0) {
		/* The first role that failed, rather than one killed for it. */
		for (size_t k = 0; k < n_pids; k++)
			if (st[k] != 0 && (st[i] == 0 || (WIFSIGNALED(st[i]) && WTERMSIG(st[i]) == SIGKILL)))
				i = k;
		proc_status_str(st[i], status, sizeof(status));
		bench_why(seen, "%s (%s)",
			  err2 == -ETIMEDOUT ? "a role did not end in time and was killed" : "a role died",
			  status);
	}
	if (seen[0]) {
		/* A role's own reason, else what the main process saw. */
		const char *w = s->why[0] ? s->why : s->pp->why[0][0] ? s->pp->why[0] : s->pp->why[1];

		bench_why(p->why, "%s", w[0] ? w : seen);
	} else if (s->pp->done == 0) {
		bench_why(p->why, "no iteration completed");
	} else {
		/* Loopback times one hop; the pair a round trip, halved. */
		stats_compute(s->pp->rtt, s->pp->done, p->clients == 1 ? 1.0 : 0.5, &p->st);
		p->capped = s->pp->capped != 0;
	}
	/* A point measured in full still fails when its daemon did not stop cleanly. */
	sddsd_stop(&d, p->why[0] ? seen : p->why);
out_free_shm:
	proc_shm_free(&shm);
}

static void sc_point_json(struct json *j, const struct sc_point *p)
{
	json_obj_begin(j, NULL);
	json_uint(j, "clients", p->clients);
	json_bool(j, "ok", !p->why[0]);
	json_str(j, "why", p->why);
	if (!p->why[0]) {
		json_num(j, "p50_us", p->st.median / 1e3);
		json_num(j, "p99_us", p->st.p99 / 1e3);
		json_num(j, "p999_us", p->st.p999 / 1e3);
		json_num(j, "max_us", p->st.max / 1e3);
		json_uint(j, "iterations", p->st.n);
		json_bool(j, "truncated", p->capped);
		json_uint(j, "daemon_rss_kib", p->rss_kib);
		json_uint(j, "daemon_pss_kib", p->pss_kib);
		json_uint(j, "daemon_rss0_kib", p->rss0_kib);
		json_uint(j, "daemon_pss0_kib", p->pss0_kib);
		/* Per client: what N clients added, over N (can be negative: noise). */
		json_num(j, "rss_per_client_kib", ((double)p->rss_kib - (double)p->rss0_kib) / p->clients);
		json_num(j, "pss_per_client_kib", ((double)p->pss_kib - (double)p->pss0_kib) / p->clients);
	}
	json_obj_end(j);
}

static void sc_usage(FILE *f)
{
	fprintf(f,
		"usage: sdds-bench scale [options]\n"
		"\n"
		"Ping-pong latency and daemon memory against N connected clients: per N a private\n"
		"sddsd, the pair and N - 2 other clients, each with a topic, writer and reader.\n"
		"\n"
		"  --clients LIST       counts 1..%d (default 1,2,4,8,16,32,64,128,256)\n"
		"  -n, --iterations N   round trips per point (default 20000)\n"
		"      --warmup N       unmeasured round trips first (default 500)\n"
		"  -s, --size N         sample bytes, 1..%u (default 2)\n"
		"      --max-seconds S  cap on the measured part of a point (default 30)\n"
		"      --bg-hz HZ       the other clients write HZ samples/s each (default 0)\n"
		"      --poll           the daemon polls (clients still sleep)\n"
		"      --sddsd PATH     the daemon (default: ../../daemon/sddsd from here)\n"
		"      --json           print the JSON itself, not report.py's table of it\n",
		SC_MAX_CLIENTS, BENCH_MAX_SIZE);
}

enum { SC_OPT_CLIENTS = BENCH_OPT_OWN, SC_OPT_BG_HZ, SC_OPT_POLL };

static int sc_option(void *ctx, int c, const char *arg)
{
	struct sc_opts *o = ctx;
	char buf[256], *save = NULL;
	uint64_t v;

	if (c == SC_OPT_BG_HZ)
		return bench_parse_double(arg, 0, 10000, &o->bg_hz);
	if (c == SC_OPT_POLL) {
		o->poll = true;
		return 0;
	}
	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		return -EINVAL;
	o->n_points = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (o->n_points >= SC_MAX_POINTS || bench_parse_u64(t, 10, 1, SC_MAX_CLIENTS, &v) < 0)
			return -EINVAL;
		o->clients[o->n_points++] = (uint32_t)v;
	}
	return o->n_points > 0 ? 0 : -EINVAL;
}

int scale_main(int argc, char **argv)
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
	struct sc_opts o = {
	    .b = {.iterations = 20000, .warmup = 500, .size = 2, .max_seconds = 30},
	    .clients = {1, 2, 4, 8, 16, 32, 64, 128, 256},
	    .n_points = 9,
	};
	char bin[PATH_MAX], why[BENCH_WHY_MAX] = "";
	struct rlimit rl;
	struct json j;
	int rc = bench_cli_parse(&cli, argc, argv, &o.b, &o);

	if (rc != 0)
		return rc > 0 ? 0 : 2;
	/*
	 * A client holds five descriptors and the daemon some per client: the
	 * soft limit goes up to the hard one before any fork (all inherit it).
	 */
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (sddsd_find(o.b.sddsd_path, bin, sizeof(bin)) < 0) {
		bench_why(why, "sddsd not found%s%s",
			  o.b.sddsd_path ? " at " : " next to sdds-bench (give --sddsd PATH)",
			  o.b.sddsd_path ? o.b.sddsd_path : "");
		o.n_points = 0;
	}
	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "bench", "scale");
	json_str(&j, "daemon_mode", o.poll ? "polling" : "blocking");
	json_uint(&j, "n", o.b.iterations);
	json_uint(&j, "size", o.b.size);
	json_num(&j, "bg_hz", o.bg_hz);
	/* Each point is printed when it is done: the ok and why of the whole come last. */
	json_arr_begin(&j, "points");
	for (int i = 0; i < o.n_points; i++) {
		struct sc_point p = {.clients = o.clients[i]};

		if (rl.rlim_cur < (rlim_t)p.clients * 8 + 64) {
			bench_why(p.why, "RLIMIT_NOFILE %llu is too low for %u clients",
				  (unsigned long long)rl.rlim_cur, p.clients);
		} else {
			fprintf(stderr, "sdds-bench: scale, %u client%s\n", p.clients,
				p.clients == 1 ? "" : "s");
			sc_run_point(&o, bin, &p);
		}
		if (p.why[0])
			bench_why(why, "a point failed");
		sc_point_json(&j, &p);
	}
	json_arr_end(&j);
	json_bool(&j, "ok", !why[0]);
	json_str(&j, "why", why);
	json_obj_end(&j);
	json_finish(&j);
	return why[0] ? 1 : 0;
}
