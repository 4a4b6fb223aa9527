/* SPDX-License-Identifier: MIT */
/*
 * iceoryx.c - `sdds-bench iceoryx` (see iceoryx.h).
 *
 * OVERVIEW
 * The main process parses the options, starts one private RouDi (roudi.c)
 * for both modes, forks leader and follower for each mode (proc_spawn;
 * the main process never becomes an iceoryx runtime, so each child's
 * runtime is its own), waits for them, stops RouDi and prints one JSON
 * object (report.py makes the table). SIGINT, SIGTERM and SIGHUP stop
 * RouDi and remove its files before the default action; the children die
 * with their parent (PR_SET_PDEATHSIG).
 *
 * The leader (ping) and the follower (pong) are the ping-pong harness
 * (pingpong.h) over iceoryx publishers and subscribers. Service "sdds-bench"/<instance>/"ping" and "pong",
 * the instance unique per run, so a stale subscriber of an earlier run can
 * never connect. The leader sends its first ping only when its ping has a
 * subscriber and its pong subscription is up: iceoryx drops a sample
 * published before the subscriber connected (no history requested).
 *
 * Waiting: polling reads the clock and the flags every 1024 empty takes,
 * so the measured path is a bare take loop; waitset mode waits in slices
 * of PINGPONG_SLICE_NS (iox_ws_timed_wait; HAS_DATA is a state, so a
 * sample already queued ends the wait at once).
 */
#include "iceoryx.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "json.h"
#include "mdrun.h"
#include "pingpong.h"
#include "proc.h"
#include "roudi.h"

#ifdef SDDS_BENCH_HAVE_ICEORYX
#include <iceoryx_binding_c/log.h>
#include <iceoryx_binding_c/publisher.h>
#include <iceoryx_binding_c/runtime.h>
#include <iceoryx_binding_c/subscriber.h>
#include <iceoryx_binding_c/wait_set.h>
#endif

#define IX_DEFAULT_ITERATIONS 100000
#define IX_DEFAULT_WARMUP 1000
#define IX_DEFAULT_SIZE 2
#define IX_DEFAULT_MAX_SECONDS 30.0
#define IX_CONNECT_TIMEOUT_NS (10 * 1000000000LL)
#define IX_NOT_BUILT "not built: iceoryx C binding not found at build time"
/* Runtime names of the benchmark's processes start with this (the test looks for them in /tmp). */
#define IX_APP_PREFIX "sddsbench-iox-"

enum { IX_POLLING = 0, IX_WAITSET = 1, IX_N_MODES = 2 };

static const char *const ix_mode_name[IX_N_MODES] = {"polling", "waitset"};

struct ix_opts {
	struct bench_opts b; /* size, iterations, warmup, max_seconds, json, raw_prefix */
	int cpu[2];	     /* leader, follower; BENCH_CPU_ANY: not pinned */
	bool pin_given;
	const char *roudi_path;
};

struct ix_results {
	bool ok;
	char why[BENCH_WHY_MAX];
	char roudi[PATH_MAX]; /* the iox-roudi binary, or "" */
	char roudi_note[BENCH_WHY_MAX];
	int removed;	     /* files removed after RouDi stopped (not by RouDi itself) */
	char leftovers[512]; /* iceoryx files still present after the run */
	double load_start, load_end;
	struct lat_result mode[IX_N_MODES];
};

struct ix_args {
	const struct ix_opts *o;
	bool waitset;
	char instance[64];
	char name_a[64], name_b[64];
};

/* For the signal handler: the RouDi of the run and the children of the mode running. */
static struct roudi_proc *ix_roudi;
static volatile pid_t ix_children[2];

static void ix_on_signal(int sig)
{
	for (int i = 0; i < 2; i++) {
		pid_t pid = ix_children[i];
		int st;

		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
		}
	}
	if (ix_roudi)
		roudi_stop_on_signal(ix_roudi);
	signal(sig, SIG_DFL);
	raise(sig);
}

#ifdef SDDS_BENCH_HAVE_ICEORYX

/* The endpoints of one side; ix_close frees whatever is set. */
struct ix_side {
	iox_pub_storage_t pub_st;
	iox_sub_storage_t sub_st;
	iox_ws_storage_t ws_st;
	iox_pub_t pub;
	iox_sub_t sub;
	iox_ws_t ws;
	bool runtime;
	uint32_t size; /* sample bytes */
};

static void ix_close(struct ix_side *x)
{
	if (x->ws) {
		iox_ws_detach_subscriber_state(x->ws, x->sub, SubscriberState_HAS_DATA);
		iox_ws_deinit(x->ws);
	}
	if (x->sub)
		iox_sub_deinit(x->sub);
	if (x->pub)
		iox_pub_deinit(x->pub);
	if (x->runtime)
		iox_runtime_shutdown();
	x->ws = NULL;
	x->sub = NULL;
	x->pub = NULL;
	x->runtime = false;
}

/*
 * Become runtime `name`, publish `out`, subscribe to `in`; with a waitset,
 * attach the subscriber's HAS_DATA state. Returns 0 or -EIO.
 */
static int ix_open(const struct ix_args *a, const char *name, const char *in, const char *out,
		   struct ix_side *x)
{
	iox_pub_options_t po;
	iox_sub_options_t so;

	/* Die with the benchmark: nobody else would stop a spinning side. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Its debug lines on stderr would mix with the benchmark's progress. */
	iox_set_loglevel(Iceoryx_LogLevel_Warn);
	iox_runtime_init(name);
	x->runtime = true;
	iox_pub_options_init(&po);
	po.historyCapacity = 0;
	po.nodeName = "sdds-bench";
	x->pub = iox_pub_init(&x->pub_st, "sdds-bench", a->instance, out, &po);
	iox_sub_options_init(&so);
	so.queueCapacity = 16;
	so.historyRequest = 0;
	so.nodeName = "sdds-bench";
	x->sub = iox_sub_init(&x->sub_st, "sdds-bench", a->instance, in, &so);
	if (!x->pub || !x->sub)
		return -EIO;
	if (a->waitset) {
		x->ws = iox_ws_init(&x->ws_st);
		if (!x->ws)
			return -EIO;
		if (iox_ws_attach_subscriber_state(x->ws, x->sub, SubscriberState_HAS_DATA, 0, NULL) !=
		    WaitSetResult_SUCCESS) {
			iox_ws_deinit(x->ws);
			x->ws = NULL;
			return -EIO;
		}
	}
	return 0;
}

/* Both directions connected: our publisher has a subscriber, our subscription is up. */
static int ix_wait_connected(struct ix_side *x, struct pingpong_shm *s)
{
	int64_t deadline = bench_now_ns() + IX_CONNECT_TIMEOUT_NS;

	while (iox_sub_get_subscription_state(x->sub) != SubscribeState_SUBSCRIBED ||
	       !iox_pub_has_subscribers(x->pub)) {
		if (atomic_load_explicit(&s->abort, memory_order_relaxed))
			return -ECANCELED;
		if (bench_now_ns() > deadline)
			return -ETIMEDOUT;
		usleep(1000);
	}
	return 0;
}

/*
 * The harness's transport (pingpong.h). A take copies the chunk out and
 * releases it, a publish loans one and copies in: both sides of the
 * ping-pong copy the sample as the other benchmarks' do.
 */
static int ix_recv(void *arg, void *buf, size_t cap, size_t *ret_len)
{
	struct ix_side *x = arg;

	/* Polling: 1024 empty takes per slice, so the measured path is a bare take loop. */
	for (int spins = 0; spins < 1024; spins++) {
		const void *chunk = NULL;
		enum iox_ChunkReceiveResult r = iox_sub_take_chunk(x->sub, &chunk);

		if (r == ChunkReceiveResult_SUCCESS) {
			/* The C binding tells no payload size: every sample has the run's. */
			memcpy(buf, chunk, x->size < cap ? x->size : cap);
			*ret_len = x->size;
			iox_sub_release_chunk(x->sub, chunk);
			return 0;
		}
		if (r != ChunkReceiveResult_NO_CHUNK_AVAILABLE)
			return r == ChunkReceiveResult_TOO_MANY_CHUNKS_HELD_IN_PARALLEL ? -EMFILE : -EIO;
		if (x->ws) {
			/* HAS_DATA is a state: a sample already queued ends the wait at once. */
			iox_notification_info_t info[1];
			uint64_t missed = 0;
			struct timespec ts = {0, PINGPONG_SLICE_NS};

			iox_ws_timed_wait(x->ws, ts, info, 1, &missed);
			return -EAGAIN;
		}
	}
	return -EAGAIN;
}

static int ix_send(void *arg, const void *p, uint32_t len)
{
	struct ix_side *x = arg;
	void *chunk = NULL;

	if (iox_pub_loan_chunk(x->pub, &chunk, len) != AllocationResult_SUCCESS)
		return -ENOMEM;
	memcpy(chunk, p, len);
	iox_pub_publish_chunk(x->pub, chunk);
	return 0;
}

static const char *ix_strerror(int err)
{
	return err == -ENOMEM	? "no chunk to loan"
	       : err == -EMFILE ? "too many chunks held"
	       : err == -EIO	? "iceoryx take error"
				: strerror(-err);
}

static const struct pingpong_ops ix_ops = {.send = ix_send, .recv = ix_recv, .strerror = ix_strerror};

/* Side 0 (leader) publishes ping and takes pong; side 1 (follower) the reverse. */
static int ix_side_run(struct pingpong_shm *s, struct ix_args *a, int side, struct ix_side *x)
{
	const char *who = side ? "follower" : "leader";
	int err;

	x->size = a->o->b.size;
	if (ix_open(a, side ? a->name_b : a->name_a, side ? "ping" : "pong", side ? "pong" : "ping", x) < 0)
		return pingpong_fail(s, side, 2, "%s: iceoryx publisher, subscriber or waitset refused", who);
	/*
	 * Both directions connected before the first ping: iceoryx drops a
	 * sample published before its subscriber connected.
	 */
	err = ix_wait_connected(x, s);
	if (err < 0)
		return pingpong_fail(s, side, 2, "%s: %s", who,
				     err == -ETIMEDOUT ? "ping and pong not connected within 10 s"
						       : "peer failed before the start");
	return pingpong_side(s, side, &a->o->b, &ix_ops, x, who, who);
}

/*
 * The roles as processes. They end with exit(), not by returning into
 * proc_spawn's _exit: the iceoryx runtime unregisters from RouDi in its
 * static destructor, and a runtime that vanishes unregistered makes RouDi
 * 2.0.3 try to kill it later and abort on the failure.
 */
static int ix_role(struct pingpong_shm *s, void *arg, int side)
{
	struct ix_side x = {0};
	int rc = ix_side_run(s, arg, side, &x);

	ix_close(&x);
	fflush(stdout);
	fflush(stderr);
	exit(rc);
}

/* One mode: the harness's run of follower and leader. */
static void ix_run_mode(const struct ix_opts *o, int mode, struct lat_result *ret)
{
	struct ix_args a = {.o = o, .waitset = mode == IX_WAITSET};
	char name[64];
	struct pingpong_run_args r = {.role = ix_role,
				      .arg = &a,
				      .ping_cpu = o->cpu[0],
				      .pong_cpu = o->cpu[1],
				      .name = name,
				      .running = ix_children};

	snprintf(name, sizeof(name), "iceoryx-%s", ix_mode_name[mode]);
	snprintf(a.instance, sizeof(a.instance), "run%d-%s", (int)getpid(), ix_mode_name[mode]);
	snprintf(a.name_a, sizeof(a.name_a), IX_APP_PREFIX "%d-%s-leader", (int)getpid(), ix_mode_name[mode]);
	snprintf(a.name_b, sizeof(a.name_b), IX_APP_PREFIX "%d-%s-follower", (int)getpid(),
		 ix_mode_name[mode]);
	roudi_claim_runtime(ix_roudi, a.name_a);
	roudi_claim_runtime(ix_roudi, a.name_b);
	pingpong_run(&o->b, &r, ret);
}

/* Start RouDi, run both modes, stop it. */
static void ix_run(const struct ix_opts *o, struct ix_results *r)
{
	static struct roudi_proc rp;
	char why[BENCH_WHY_MAX];
	int err;

	if (mdrun_which(o->roudi_path ? o->roudi_path : "iox-roudi", r->roudi, sizeof(r->roudi)) < 0) {
		r->roudi[0] = '\0';
		bench_why(r->why, "iox-roudi not found%s%s (Debian package iceoryx)",
			  o->roudi_path ? " at " : " in PATH", o->roudi_path ? o->roudi_path : "");
		return;
	}
	fprintf(stderr, "sdds-bench: starting %s\n", r->roudi);
	err = roudi_start(r->roudi, o->b.size, &rp, why);
	if (err < 0) {
		memcpy(r->why, why, sizeof(why));
		return;
	}
	ix_roudi = &rp;
	signal(SIGINT, ix_on_signal);
	signal(SIGTERM, ix_on_signal);
	signal(SIGHUP, ix_on_signal);
	for (int m = 0; m < IX_N_MODES; m++) {
		fprintf(stderr, "sdds-bench: iceoryx %s latency\n", ix_mode_name[m]);
		ix_run_mode(o, m, &r->mode[m]);
		if (!r->mode[m].ok)
			roudi_explain(&rp, r->mode[m].why);
	}
	err = roudi_stop(&rp, &r->removed, why);
	ix_roudi = NULL;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (err < 0)
		memcpy(r->roudi_note, why, sizeof(why));
	r->ok = r->mode[IX_POLLING].ok && r->mode[IX_WAITSET].ok;
	if (!r->ok)
		bench_why(r->why, "a mode failed");
}

#else /* !SDDS_BENCH_HAVE_ICEORYX */

static void ix_run(const struct ix_opts *o, struct ix_results *r)
{
	(void)o;
	(void)ix_on_signal;
	(void)ix_roudi;
	if (mdrun_which("iox-roudi", r->roudi, sizeof(r->roudi)) < 0)
		r->roudi[0] = '\0';
	bench_why(r->why, IX_NOT_BUILT);
}

#endif /* SDDS_BENCH_HAVE_ICEORYX */

/* --------------------------------------------------------------- output */

static void ix_cpu_str(int cpu, char *buf, size_t cap)
{
	if (cpu == BENCH_CPU_ANY)
		snprintf(buf, cap, "unpinned");
	else
		snprintf(buf, cap, "cpu%d", cpu);
}

static void ix_json(const struct ix_opts *o, const struct ix_results *r)
{
	struct json j;
	char a[16], b[16];

	ix_cpu_str(o->cpu[0], a, sizeof(a));
	ix_cpu_str(o->cpu[1], b, sizeof(b));
	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "bench", "iceoryx");
	json_bool(&j, "ok", r->ok);
	json_str(&j, "why", r->why);
	json_uint(&j, "size", o->b.size);
	json_uint(&j, "n", o->b.iterations);
	json_uint(&j, "warmup", o->b.warmup);
#ifdef SDDS_BENCH_HAVE_ICEORYX
	json_bool(&j, "built", true);
#else
	json_bool(&j, "built", false);
#endif
	json_str(&j, "roudi", r->roudi[0] ? r->roudi : NULL);
	json_str(&j, "leader_cpu", a);
	json_str(&j, "follower_cpu", b);
	json_str(&j, "roudi_note", r->roudi_note);
	json_int(&j, "leftovers_removed", r->removed);
	json_str(&j, "leftovers", r->leftovers);
	json_num(&j, "load_start", r->load_start);
	json_num(&j, "load_end", r->load_end);
	json_arr_begin(&j, "modes");
	for (int m = 0; m < IX_N_MODES; m++) {
		const struct lat_result *l = &r->mode[m];

		json_obj_begin(&j, NULL);
		json_str(&j, "mode", ix_mode_name[m]);
		json_bool(&j, "ok", l->ok);
		json_str(&j, "why", l->ok ? "" : l->ran ? l->why : r->why);
		if (l->ok)
			json_uint(&j, "iterations", l->st.n);
		pingpong_json(&j, l, true);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

/* ---------------------------------------------------------------- options */

static void ix_usage(FILE *f)
{
	fprintf(f,
		"usage: sdds-bench iceoryx [options]\n"
		"\n"
		"One-way latency (ping-pong, RTT/2) between two iceoryx processes (C binding)\n"
		"under a private iox-roudi, polling subscriber and WaitSet: the peer figures\n"
		"for sdds-bench local.\n"
		"\n"
		"  -n, --iterations N   measured round trips per mode (default %d)\n"
		"      --warmup N       unmeasured round trips first (default %d)\n"
		"  -s, --size N         payload bytes, 1..%u (default %d)\n"
		"      --max-seconds S  cap on the measured part of one mode (default %.0f)\n"
		"      --pin A,B        leader on CPU A, follower on CPU B ('-' unpinned);\n"
		"                       default: two different CPUs when there are two\n"
		"      --roudi PATH     the iox-roudi binary (default: from PATH)\n"
		"      --raw PREFIX     write one-way ns per iteration to PREFIX-iceoryx-<mode>.txt\n"
		"      --json           accepted; the output is always one JSON object\n"
		"  -h, --help\n",
		IX_DEFAULT_ITERATIONS, IX_DEFAULT_WARMUP, BENCH_MAX_SIZE, IX_DEFAULT_SIZE,
		IX_DEFAULT_MAX_SECONDS);
}

enum { IX_OPT_PIN = BENCH_OPT_OWN, IX_OPT_ROUDI };

/* The options of `iceoryx` beyond the common ones (bench_cli). */
static int ix_option(void *ctx, int c, const char *arg)
{
	struct ix_opts *o = ctx;

	if (c == IX_OPT_ROUDI) {
		o->roudi_path = arg;
		return 0;
	}
	o->pin_given = true;
	return bench_parse_cpus(arg, 2, o->cpu);
}

/* Returns 0, 1 for --help or -EINVAL (message printed). */
static int ix_parse(int argc, char **argv, struct ix_opts *o)
{
	static const struct option own[] = {
	    {"pin", required_argument, NULL, IX_OPT_PIN},
	    {"roudi", required_argument, NULL, IX_OPT_ROUDI},
	    {NULL, 0, NULL, 0},
	};
	static const struct bench_cli cli = {
	    .prog = "sdds-bench iceoryx",
	    .common = BENCH_OPT_ITERATIONS | BENCH_OPT_WARMUP | BENCH_OPT_SIZE | BENCH_OPT_MAX_SECONDS |
		      BENCH_OPT_RAW | BENCH_OPT_JSON,
	    .max_size = BENCH_MAX_SIZE,
	    .max_iterations = 1000000000,
	    .own = own,
	    .parse = ix_option,
	    .usage = ix_usage,
	};
	int rc;

	*o = (struct ix_opts){
	    .b = {.size = IX_DEFAULT_SIZE,
		  .iterations = IX_DEFAULT_ITERATIONS,
		  .warmup = IX_DEFAULT_WARMUP,
		  .max_seconds = IX_DEFAULT_MAX_SECONDS},
	    .cpu = {BENCH_CPU_ANY, BENCH_CPU_ANY},
	};
	rc = bench_cli_parse(&cli, argc, argv, &o->b, o);
	/* Two busy-polling sides need a CPU each; RouDi sleeps and runs anywhere. */
	if (rc == 0 && !o->pin_given && proc_cpu_count() >= 2) {
		o->cpu[0] = proc_cpu_nth(0);
		o->cpu[1] = proc_cpu_nth(1);
	}
	return rc;
}

int iceoryx_main(int argc, char **argv)
{
	static struct ix_results r;
	struct ix_opts o;
	double l;
	int rc;

	rc = ix_parse(argc, argv, &o);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	r.load_start = getloadavg(&l, 1) == 1 ? l : -1;
	ix_run(&o, &r);
	roudi_leftovers(r.leftovers, sizeof(r.leftovers));
	r.load_end = getloadavg(&l, 1) == 1 ? l : -1;
	ix_json(&o, &r);
	return r.ok ? 0 : 1;
}
