/* SPDX-License-Identifier: MIT */
/*
 * iceoryx.c - `sdds-bench iceoryx` (see iceoryx.h).
 *
 * OVERVIEW
 * The main process starts one private RouDi (roudi.h) for both modes and
 * forks leader and follower per mode through the ping-pong harness
 * (pingpong.h). It never becomes an iceoryx runtime itself, so each child's
 * runtime is its own. SIGINT, SIGTERM and SIGHUP kill the children and stop
 * RouDi, removing its files, before the default action.
 *
 * The leader publishes "ping" and takes "pong", the follower the reverse,
 * on service "sdds-bench"/<instance>, the instance unique per run so a
 * stale subscriber of an earlier run never connects. Modes: polling (a bare
 * take loop, the flags read every 1024 empty takes) and waitset (a WaitSet
 * on the subscriber's HAS_DATA state, waited in slices).
 */
#include "iceoryx.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
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
#define IX_BUILT true
#else
#define IX_BUILT false
#endif

#define IX_DEFAULT_ITERATIONS 100000
#define IX_DEFAULT_WARMUP 1000
#define IX_DEFAULT_SIZE 2
#define IX_DEFAULT_MAX_SECONDS 30.0

enum { IX_POLLING, IX_WAITSET, IX_N_MODES };

static const char *const ix_mode_name[IX_N_MODES] = {"polling", "waitset"};

struct ix_opts {
	struct bench_opts b;
	int cpu[2]; /* leader, follower; BENCH_CPU_ANY: not pinned */
	const char *roudi_path;
};

struct ix_results {
	bool ok;
	char why[BENCH_WHY_MAX];
	char roudi[PATH_MAX]; /* the iox-roudi binary, or "" */
	char roudi_note[BENCH_WHY_MAX];
	int removed;	     /* files removed after RouDi stopped, not by RouDi itself */
	char leftovers[512]; /* iceoryx files present after the run */
	struct lat_result mode[IX_N_MODES];
};

#ifdef SDDS_BENCH_HAVE_ICEORYX

/* What the signal handler stops: the RouDi of the run and the children of the mode running. */
static struct roudi_proc *ix_roudi;
static volatile pid_t ix_children[2];

static void ix_on_signal(int sig)
{
	for (int i = 0; i < 2; i++) {
		pid_t pid = ix_children[i];

		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
	}
	if (ix_roudi)
		roudi_stop(ix_roudi, NULL);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void ix_signals(void (*handler)(int))
{
	signal(SIGINT, handler);
	signal(SIGTERM, handler);
	signal(SIGHUP, handler);
}

struct ix_args {
	const struct ix_opts *o;
	bool waitset;
	char instance[64];
	char name[2][64]; /* runtime names: leader, follower */
};

/* The endpoints of one side, in its process. */
struct ix_side {
	iox_pub_storage_t pub_st;
	iox_sub_storage_t sub_st;
	iox_ws_storage_t ws_st;
	iox_pub_t pub;
	iox_sub_t sub;
	iox_ws_t ws;
	uint32_t size; /* the C binding tells no payload size: every sample has the run's */
};

static int ix_recv(void *arg, void *buf, size_t cap, size_t *ret_len)
{
	struct ix_side *x = arg;

	for (int spins = 0; spins < 1024; spins++) {
		const void *chunk = NULL;
		enum iox_ChunkReceiveResult r = iox_sub_take_chunk(x->sub, &chunk);

		if (r == ChunkReceiveResult_SUCCESS) {
			/* Copied out as the other benchmarks' samples are. */
			memcpy(buf, chunk, x->size < cap ? x->size : cap);
			*ret_len = x->size;
			iox_sub_release_chunk(x->sub, chunk);
			return 0;
		}
		/* One chunk is held at a time: the only other failure is UNDEFINED_ERROR. */
		if (r != ChunkReceiveResult_NO_CHUNK_AVAILABLE)
			return -EIO;
		if (x->ws) {
			/* HAS_DATA is a state: a sample already queued ends the wait at once. */
			iox_notification_info_t info[1];
			uint64_t missed = 0;

			iox_ws_timed_wait(x->ws, (struct timespec){0, PINGPONG_SLICE_NS}, info, 1, &missed);
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
		return -ENOBUFS;
	memcpy(chunk, p, len);
	iox_pub_publish_chunk(x->pub, chunk);
	return 0;
}

static const struct pingpong_ops ix_ops = {.send = ix_send, .recv = ix_recv};

/*
 * A role in its child (side 0 leader, 1 follower). It ends with exit(), not
 * by returning into proc_spawn's _exit: the runtime unregisters from RouDi,
 * which frees its ports and waitset, in a static destructor, and RouDi
 * 2.0.3 aborts later on a runtime that vanished unregistered.
 */
static int ix_role(struct pingpong_shm *s, void *arg, int side)
{
	struct ix_args *a = arg;
	const char *who = side ? "follower" : "leader";
	struct ix_side x = {.size = a->o->b.size};
	iox_pub_options_t po;
	iox_sub_options_t so;
	int64_t deadline;
	int rc = 0;

	/* Die with the benchmark: nobody else would stop a spinning side. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Its debug lines on stderr would mix with the benchmark's progress. */
	iox_set_loglevel(Iceoryx_LogLevel_Warn);
	iox_runtime_init(a->name[side]);
	deadline = bench_now_ns() + 10 * 1000000000LL;
	/* No init returns NULL: a port RouDi refuses goes to iceoryx's error handler, not to us. */
	iox_pub_options_init(&po);
	po.historyCapacity = 0;
	po.nodeName = "sdds-bench";
	x.pub = iox_pub_init(&x.pub_st, "sdds-bench", a->instance, side ? "pong" : "ping", &po);
	iox_sub_options_init(&so);
	so.queueCapacity = 16;
	so.historyRequest = 0;
	so.nodeName = "sdds-bench";
	x.sub = iox_sub_init(&x.sub_st, "sdds-bench", a->instance, side ? "ping" : "pong", &so);
	x.ws = a->waitset ? iox_ws_init(&x.ws_st) : NULL;
	if (x.ws && iox_ws_attach_subscriber_state(x.ws, x.sub, SubscriberState_HAS_DATA, 0, NULL) !=
			WaitSetResult_SUCCESS)
		rc = pingpong_fail(s, side, 2, "%s: the iceoryx waitset refused the subscriber", who);
	/* iceoryx drops a sample published before its subscriber connected: both directions first. */
	while (!rc && (iox_sub_get_subscription_state(x.sub) != SubscribeState_SUBSCRIBED ||
		       !iox_pub_has_subscribers(x.pub))) {
		if (atomic_load_explicit(&s->abort, memory_order_relaxed))
			rc = pingpong_fail(s, side, 2, "%s: peer failed before the start", who);
		else if (bench_now_ns() > deadline)
			rc = pingpong_fail(s, side, 2, "%s: ping and pong not connected within 10 s", who);
		usleep(1000);
	}
	if (!rc)
		rc = pingpong_side(s, side, &a->o->b, &ix_ops, &x, who, who);
	fflush(NULL);
	exit(rc);
}

static void ix_run(const struct ix_opts *o, struct ix_results *r)
{
	static struct roudi_proc rp;
	struct ix_args a = {.o = o};
	char label[64];
	struct pingpong_run_args pr = {.role = ix_role,
				       .arg = &a,
				       .ping_cpu = o->cpu[0],
				       .pong_cpu = o->cpu[1],
				       .name = label,
				       .running = ix_children};

	if (!r->roudi[0]) {
		bench_why(r->why, "iox-roudi not found %s%s (Debian package iceoryx)",
			  o->roudi_path ? "at " : "in PATH", o->roudi_path ? o->roudi_path : "");
		return;
	}
	fprintf(stderr, "sdds-bench: starting %s\n", r->roudi);
	if (roudi_start(r->roudi, o->b.size, &rp, r->why) < 0)
		return;
	ix_roudi = &rp;
	ix_signals(ix_on_signal);
	for (int m = 0; m < IX_N_MODES; m++) {
		fprintf(stderr, "sdds-bench: iceoryx %s latency\n", ix_mode_name[m]);
		a.waitset = m == IX_WAITSET;
		snprintf(label, sizeof(label), "iceoryx-%s", ix_mode_name[m]);
		snprintf(a.instance, sizeof(a.instance), "run%d-%s", (int)getpid(), ix_mode_name[m]);
		for (int side = 0; side < 2; side++) {
			/* test_bench_iceoryx looks for these names in /tmp. */
			snprintf(a.name[side], sizeof(a.name[side]), "sddsbench-iox-%d-%s-%s", (int)getpid(),
				 ix_mode_name[m], side ? "follower" : "leader");
			roudi_claim_runtime(&rp, a.name[side]);
		}
		pingpong_run(&o->b, &pr, &r->mode[m]);
		if (!r->mode[m].ok)
			roudi_explain(&rp, r->mode[m].why);
	}
	/* Its figures stand: RouDi misbehaving at the stop is only noted. */
	r->removed = roudi_stop(&rp, r->roudi_note);
	ix_roudi = NULL;
	ix_signals(SIG_DFL);
	r->ok = r->mode[IX_POLLING].ok && r->mode[IX_WAITSET].ok;
	if (!r->ok)
		bench_why(r->why, "a mode failed");
}

#else /* !SDDS_BENCH_HAVE_ICEORYX */

static void ix_run(const struct ix_opts *o, struct ix_results *r)
{
	(void)o;
	bench_why(r->why, "not built: iceoryx C binding not found at build time");
}

#endif /* SDDS_BENCH_HAVE_ICEORYX */

static void ix_json(const struct ix_opts *o, const struct ix_results *r, double load_start, double load_end)
{
	struct json j;
	char cpu[2][16];

	for (int i = 0; i < 2; i++)
		snprintf(cpu[i], sizeof(cpu[i]), o->cpu[i] == BENCH_CPU_ANY ? "unpinned" : "cpu%d",
			 o->cpu[i]);
	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "bench", "iceoryx");
	json_bool(&j, "ok", r->ok);
	json_str(&j, "why", r->why);
	json_uint(&j, "size", o->b.size);
	json_uint(&j, "n", o->b.iterations);
	json_uint(&j, "warmup", o->b.warmup);
	json_bool(&j, "built", IX_BUILT);
	json_str(&j, "roudi", r->roudi[0] ? r->roudi : NULL);
	json_str(&j, "leader_cpu", cpu[0]);
	json_str(&j, "follower_cpu", cpu[1]);
	json_str(&j, "roudi_note", r->roudi_note);
	json_int(&j, "leftovers_removed", r->removed);
	json_str(&j, "leftovers", r->leftovers);
	json_num(&j, "load_start", load_start);
	json_num(&j, "load_end", load_end);
	json_arr_begin(&j, "modes");
	for (int m = 0; m < IX_N_MODES; m++) {
		const struct lat_result *l = &r->mode[m];

		json_obj_begin(&j, NULL);
		json_str(&j, "mode", ix_mode_name[m]);
		json_bool(&j, "ok", l->ok);
		/* A mode that never ran fails for the run's reason. */
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

static void ix_usage(FILE *f)
{
	fprintf(f,
		"usage: sdds-bench iceoryx [options]\n"
		"One-way latency (RTT/2) of an iceoryx ping-pong, polling and WaitSet.\n"
		"  -n, --iterations N   round trips per mode (default %d)\n"
		"      --warmup N       unmeasured round trips first (default %d)\n"
		"  -s, --size N         payload bytes, 1..%u (default %d)\n"
		"      --max-seconds S  cap on one mode's measured part (default %.0f)\n"
		"      --pin A,B        leader and follower CPUs ('-': unpinned; default: two CPUs)\n"
		"      --roudi PATH     the iox-roudi binary (default: from PATH)\n"
		"      --raw PREFIX     one-way ns per iteration to PREFIX-iceoryx-<mode>.txt\n"
		"      --json           print the JSON itself, not report.py's table of it\n",
		IX_DEFAULT_ITERATIONS, IX_DEFAULT_WARMUP, BENCH_MAX_SIZE, IX_DEFAULT_SIZE,
		IX_DEFAULT_MAX_SECONDS);
}

enum { IX_OPT_PIN = BENCH_OPT_OWN, IX_OPT_ROUDI };

static int ix_option(void *ctx, int c, const char *arg)
{
	struct ix_opts *o = ctx;

	if (c == IX_OPT_ROUDI) {
		o->roudi_path = arg;
		return 0;
	}
	return bench_parse_cpus(arg, 2, o->cpu);
}

int iceoryx_main(int argc, char **argv)
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
	static struct ix_results r;
	/* Two busy-polling sides need a CPU each, unless --pin says otherwise; RouDi sleeps anywhere. */
	bool two_cpus = proc_cpu_count() >= 2;
	struct ix_opts o = {
	    .b = {.size = IX_DEFAULT_SIZE,
		  .iterations = IX_DEFAULT_ITERATIONS,
		  .warmup = IX_DEFAULT_WARMUP,
		  .max_seconds = IX_DEFAULT_MAX_SECONDS},
	    .cpu = {two_cpus ? proc_cpu_nth(0) : BENCH_CPU_ANY, two_cpus ? proc_cpu_nth(1) : BENCH_CPU_ANY},
	};
	double load[2] = {-1, -1};
	int rc = bench_cli_parse(&cli, argc, argv, &o.b, &o);

	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (mdrun_which(o.roudi_path ? o.roudi_path : "iox-roudi", r.roudi, sizeof(r.roudi)) < 0)
		r.roudi[0] = '\0';
	getloadavg(&load[0], 1);
	ix_run(&o, &r);
	roudi_leftovers(r.leftovers, sizeof(r.leftovers));
	getloadavg(&load[1], 1);
	ix_json(&o, &r, load[0], load[1]);
	return r.ok ? 0 : 1;
}
