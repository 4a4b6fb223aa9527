/* SPDX-License-Identifier: MIT */
/*
 * local.c - `sdds-bench local`: the local path through sddsd and through
 * the in-process broker of monolithic mode (see local.h).
 *
 * OVERVIEW
 * The main process stays single-threaded and holds no client: every
 * measured party is a forked child, every daemon a private sddsd (sddsd.h).
 *
 * A throughput run shares struct lc_shm, mapped before the fork. The writer
 * waits for `ready` (the reader's endpoints exist: a best-effort writer
 * would lose samples silently) and keeps its connection until
 * `reader_done`, so no sample in flight is lost to a disconnect. A side
 * that fails sets `abort`, which the other sees at its next wait slice (a
 * slice that times out costs nothing on the measured path). An error exit
 * leaves the handles to process exit: the daemon sees the hang-up.
 */
#include "local.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "callgrind.h"
#include "json.h"
#include "layout.h"
#include "mono.h"
#include "pingpong.h"
#include "proc.h"
#include "sddsd.h"

#define LC_TIMEOUT_NS (10 * 1000000000LL) /* for the first sample, and for the reader after the writer */

enum { LC_ID_PING = 1, LC_ID_PONG, LC_ID_DATA };
enum { LC_SIDE_A = 0, LC_SIDE_B = 1 };

struct lc_shm {
	alignas(SDDS_CACHELINE) _Atomic uint32_t ready;
	_Atomic uint32_t abort;
	alignas(SDDS_CACHELINE) _Atomic uint32_t done; /* writer finished; `written` is final */
	uint64_t written;
	int64_t w_ns; /* the writer's time */
	alignas(SDDS_CACHELINE) _Atomic uint32_t reader_done;
	uint64_t received, lost;
	uint64_t count_mark; /* samples taken at t_mark */
	int64_t t_first, t_mark;
	char why[2][BENCH_WHY_MAX];
};

struct lc_args {
	const struct bench_opts *o;
	struct lc_shm *s;
	const char *sock;
	bool polling; /* the clients' spin budgets: o's polling ones, else 0 */
	const struct bench_placement *pl;
	struct local_side *x; /* the monolithic client, shared by its two threads */
};

/* What sdds-bench-mono's local role gets (mono.h): plain values. */
struct lc_mono_args {
	struct mono_opts o;
	bool polling;
	struct bench_placement pl;
};

/* Records why `side` failed and tells the peer to give up; returns code. */
static int lc_fail(struct lc_shm *s, int side, int code, const char *what, int err)
{
	const char *e = err == -ECANCELED ? "peer failed"
			: err == -EPROTO  ? "wrong sample"
					  : sdds_strerror(err);

	bench_why(s->why[side], "%s: %s", what, e);
	atomic_store_explicit(&s->abort, 1, memory_order_relaxed);
	return code;
}

void local_topic_desc(uint16_t id, const char *name, uint32_t size, sdds_field *f, sdds_topic_desc *d)
{
	*d = (sdds_topic_desc){
	    .name = name, .id = id, .sample_size = size, .fields = f, .n_fields = size > 2 ? 2 : 1};
	f[0] = (sdds_field){
	    .name = "seq", .type = size > 1 ? SDDS_FIELD_USHORT : SDDS_FIELD_OCTET, .size = size > 1 ? 2 : 1};
	f[1] = (sdds_field){.name = "pad", .type = SDDS_FIELD_STRING, .size = size > 2 ? size - 2 : 0};
}

void local_side_close(struct local_side *x)
{
	sdds_reader_free(x->r);
	sdds_writer_free(x->w);
	sdds_topic_free(x->t_in);
	sdds_topic_free(x->t_out);
	sdds_client_free(x->client);
	memset(x, 0, sizeof(*x));
}

int local_side_open(const sdds_client_options *co, const sdds_topic_desc *in, const sdds_topic_desc *out,
		    unsigned ends, const sdds_qos *q, struct local_side *x, const char **ret_what)
{
	int err;

	memset(x, 0, sizeof(*x));
	*ret_what = "connect";
	err = sdds_client_new(co, &x->client);
	if (err < 0)
		return err;
	*ret_what = "topics";
	err = sdds_topic_new(x->client, in, &x->t_in);
	if (err == 0 && out)
		err = sdds_topic_new(x->client, out, &x->t_out);
	if (err == 0)
		*ret_what = "endpoints";
	if (err == 0 && (ends & LOCAL_READER))
		err = sdds_reader_new(x->t_in, q, &x->r);
	if (err == 0 && (ends & LOCAL_WRITER))
		err = sdds_writer_new(x->t_out ? x->t_out : x->t_in, q, &x->w);
	if (err < 0)
		local_side_close(x);
	return err;
}

/* A client of the run as `name`: topic `in` (and `out`, when not 0), the endpoints `ends` asks for. */
static int lc_open(const struct lc_args *a, const char *name, uint16_t in, uint16_t out, unsigned ends,
		   struct local_side *x)
{
	static const char *const topic[] = {"", "bench_ping", "bench_pong", "bench_data"};
	sdds_field f_in[2], f_out[2];
	sdds_topic_desc d_in, d_out;
	sdds_client_options co;
	const char *what;
	sdds_qos q;

	sdds_client_options_init(&co);
	co.socket_path = a->sock;
	co.name = name;
	co.spin_ns = a->polling ? a->o->poll_spin_ns : 0;
	co.spin_yield_ns = a->polling ? a->o->poll_yield_ns : -1;
	local_topic_desc(in, topic[in], a->o->size, f_in, &d_in);
	local_topic_desc(out, topic[out], a->o->size, f_out, &d_out);
	sdds_qos_init(&q);
	q.reliability = a->o->reliable ? SDDS_RELIABLE : SDDS_BEST_EFFORT;
	/* The latency run keeps the default depth. */
	if (in == LC_ID_DATA)
		q.history_depth = a->o->depth;
	/* A reliable write that waits this long means the pipeline is stuck. */
	q.max_blocking_ms = 1000;
	return local_side_open(&co, &d_in, out ? &d_out : NULL, ends, &q, x, &what);
}

void local_put_counter(uint8_t *p, uint32_t size, uint64_t i)
{
	p[0] = (uint8_t)(size == 1 ? i : i >> 8);
	if (size > 1)
		p[1] = (uint8_t)i;
	for (uint32_t k = 2; k < size && k < 8; k++)
		p[k] = (uint8_t)(i >> (8 * k));
}

static int lc_pp_send(void *arg, const void *buf, uint32_t len)
{
	return sdds_writer_write(((struct local_side *)arg)->w, buf, len);
}

static int lc_pp_recv(void *arg, void *buf, size_t cap, size_t *ret_len)
{
	return sdds_reader_take(((struct local_side *)arg)->r, buf, cap, ret_len, PINGPONG_SLICE_NS);
}

const struct pingpong_ops local_pp_ops = {.send = lc_pp_send, .recv = lc_pp_recv, .strerror = sdds_strerror};

/* A role of the latency run: side 0 pings (reads pong, writes ping), side 1 answers. */
static int lc_pp_role(struct pingpong_shm *s, void *arg, int side)
{
	struct local_side x;
	int err, rc;

	err = lc_open(arg, side ? "sdds-bench-pong" : "sdds-bench-ping", side ? LC_ID_PING : LC_ID_PONG,
		      side ? LC_ID_PONG : LC_ID_PING, LOCAL_READER | LOCAL_WRITER, &x);
	if (err < 0)
		return pingpong_fail(s, side, 2, "%s side: connect and create endpoints: %s",
				     side ? "pong" : "ping", sdds_strerror(err));
	rc = pingpong_side(s, side, ((struct lc_args *)arg)->o, &local_pp_ops, &x, "ping side", "pong side");
	if (rc == 0)
		local_side_close(&x);
	return rc;
}

/* ------------------------------------------------------------ throughput */

/* Streams samples until tput_seconds (or tput_count) are done; the reader must exist. 0 or an exit code. */
static int lc_tput_write(sdds_writer *w, const struct bench_opts *o, struct lc_shm *s)
{
	uint8_t out[BENCH_MAX_SIZE] = {0};
	int64_t t0 = bench_now_ns(), end = t0 + (int64_t)(o->tput_seconds * 1e9);
	uint64_t i;

	callgrind_role_begin();
	for (i = 0;; i++) {
		int err;

		local_put_counter(out, o->size, i);
		err = sdds_writer_write(w, out, o->size);
		if (err < 0) {
			char what[96];

			snprintf(what, sizeof(what),
				 "writer: sample %llu (a reliable write waits 1 s for room)",
				 (unsigned long long)i);
			return lc_fail(s, LC_SIDE_A, 3, what, err);
		}
		if (o->tput_count != 0 && i + 1 >= o->tput_count)
			break;
		/* The clock every 256 samples: a read costs a fifth of a sample at 10 M/s. */
		if ((i & 255) == 255 && bench_now_ns() >= end)
			break;
		if ((i & 4095) == 4095 && atomic_load_explicit(&s->abort, memory_order_relaxed))
			return lc_fail(s, LC_SIDE_A, 3, "writer", -ECANCELED);
	}
	callgrind_role_end("writer");
	s->w_ns = bench_now_ns() - t0;
	s->written = i + 1;
	atomic_store_explicit(&s->done, 1, memory_order_release);
	return 0;
}

/*
 * Counts sample p (len bytes) and checks its sequence in reliable runs. The
 * rate is (count_mark - 1) / (t_mark - t_first), both taken at the same
 * sample, the clock read every 1024 samples. 1 after the last one, 0, or
 * an exit code.
 */
static inline __attribute__((always_inline)) int lc_tput_count(const struct bench_opts *o, struct lc_shm *s,
							       const uint8_t *p, size_t len, uint8_t *want,
							       uint64_t *count)
{
	if (o->reliable) {
		local_put_counter(want, o->size, *count);
		if (len != o->size || memcmp(p, want, o->size < 2 ? o->size : 2) != 0)
			return lc_fail(s, LC_SIDE_B, 4, "reader: reliable sample out of sequence", -EPROTO);
	}
	(*count)++;
	if (*count == 1) {
		s->t_first = bench_now_ns();
	} else if ((*count & 1023) == 0) {
		s->t_mark = bench_now_ns();
		s->count_mark = *count;
	}
	if (atomic_load_explicit(&s->done, memory_order_acquire) && *count >= s->written) {
		s->t_mark = bench_now_ns();
		s->count_mark = *count;
		return 1;
	}
	return 0;
}

/*
 * Takes until every written sample arrived, or after the writer is done
 * nothing came for one slice (the rest is lost). take_batch > 1 takes with
 * sdds_reader_take_many, that many at most per call. 0 or an exit code.
 */
static int lc_tput_read(sdds_reader *r, const struct bench_opts *o, struct lc_shm *s)
{
	/* A batch of take_batch samples, back to back (bss: 256 KiB at most). */
	static uint8_t batch[BENCH_MAX_SIZE * BENCH_MAX_TAKE_BATCH];
	uint8_t buf[BENCH_MAX_SIZE], want[BENCH_MAX_SIZE] = {0};
	int64_t t0 = bench_now_ns();
	uint64_t count = 0;

	callgrind_role_begin();
	for (;;) {
		size_t len = 0, n = 0, k;
		int err, rc = 0;

		if (o->take_batch > 1) {
			err = sdds_reader_take_many(r, batch, o->size, o->take_batch, &n, PINGPONG_SLICE_NS);
			for (k = 0; err == 0 && k < n && rc == 0; k++)
				rc = lc_tput_count(o, s, batch + k * o->size, o->size, want, &count);
		} else {
			err = sdds_reader_take(r, buf, sizeof(buf), &len, PINGPONG_SLICE_NS);
			if (err == 0)
				rc = lc_tput_count(o, s, buf, len, want, &count);
		}
		if (rc > 1)
			return rc;
		if (rc == 1)
			break;
		if (err == 0)
			continue;
		if (err != -ETIMEDOUT && err != -EAGAIN)
			return lc_fail(s, LC_SIDE_B, 3, "reader: take", err);
		if (atomic_load_explicit(&s->abort, memory_order_relaxed))
			return lc_fail(s, LC_SIDE_B, 3, "reader", -ECANCELED);
		if (atomic_load_explicit(&s->done, memory_order_acquire))
			break;
		if (count == 0 && bench_now_ns() - t0 > LC_TIMEOUT_NS)
			return lc_fail(s, LC_SIDE_B, 3, "reader: no first sample within 10 s", -ETIMEDOUT);
	}
	callgrind_role_end("reader");
	s->received = count;
	s->lost = sdds_reader_lost(r);
	atomic_store_explicit(&s->reader_done, 1, memory_order_release);
	return 0;
}

static int lc_tput_writer_role(void *arg)
{
	struct lc_args *a = arg;
	int64_t deadline;
	struct local_side x;
	int err, rc;

	err = lc_open(a, "sdds-bench-writer", LC_ID_DATA, 0, LOCAL_WRITER, &x);
	if (err < 0)
		return lc_fail(a->s, LC_SIDE_A, 2, "writer: connect and create the writer", err);
	err = bench_wait_flag(&a->s->ready, &a->s->abort, LC_TIMEOUT_NS);
	if (err < 0)
		return lc_fail(a->s, LC_SIDE_A, 2, "writer: waiting for the reader", err);
	rc = lc_tput_write(x.w, a->o, a->s);
	if (rc != 0)
		return rc;
	deadline = bench_now_ns() + LC_TIMEOUT_NS;
	while (!atomic_load_explicit(&a->s->reader_done, memory_order_acquire) &&
	       !atomic_load_explicit(&a->s->abort, memory_order_relaxed) && bench_now_ns() < deadline)
		usleep(1000);
	local_side_close(&x);
	return 0;
}

static int lc_tput_reader_role(void *arg)
{
	struct lc_args *a = arg;
	struct local_side x;
	int err, rc;

	err = lc_open(a, "sdds-bench-reader", LC_ID_DATA, 0, LOCAL_READER, &x);
	if (err < 0)
		return lc_fail(a->s, LC_SIDE_B, 2, "reader: connect and create the reader", err);
	atomic_store_explicit(&a->s->ready, 1, memory_order_release);
	rc = lc_tput_read(x.r, a->o, a->s);
	if (rc == 0)
		local_side_close(&x);
	return rc;
}

/* ------------------------------------------------------------ monolithic */

static void *lc_mono_reader(void *arg)
{
	struct lc_args *a = arg;
	int err = proc_pin_self(a->pl->b_cpu);

	if (err < 0)
		return (void *)(intptr_t)lc_fail(a->s, LC_SIDE_B, 5, "reader thread: pin", err);
	return (void *)(intptr_t)lc_tput_read(a->x->r, a->o, a->s);
}

/* In sdds-bench-mono: one client, its reader in a thread on pl->b_cpu, its writer here on pl->a_cpu. */
int local_mono_role(struct mono_call *m)
{
	struct lc_mono_args *p = m->args;
	struct local_side x;
	struct lc_args a = {.s = m->shm[0], .pl = &p->pl, .x = &x};
	pthread_t th;
	void *trc;
	int err, rc;

	if (m->len != sizeof(*p) || m->n_shm != 1 || m->shm_size[0] < sizeof(struct lc_shm)) {
		fprintf(stderr, "sdds-bench-mono: %s: arguments of %zu bytes, %d shared areas: not mine\n",
			m->role, m->len, m->n_shm);
		return 2;
	}
	a.o = mono_opts_get(&p->o);
	a.polling = p->polling;
	err = lc_open(&a, "sdds-bench-monolithic", LC_ID_DATA, 0, LOCAL_READER | LOCAL_WRITER, &x);
	if (err == 0 && (err = -pthread_create(&th, NULL, lc_mono_reader, &a)) < 0)
		local_side_close(&x);
	if (err < 0)
		return lc_fail(a.s, LC_SIDE_A, 2, "monolithic client, endpoints and reader thread", err);
	err = proc_pin_self(p->pl.a_cpu);
	rc = err < 0 ? lc_fail(a.s, LC_SIDE_A, 5, "writer thread: pin", err) : lc_tput_write(x.w, a.o, a.s);
	pthread_join(th, &trc);
	local_side_close(&x);
	return rc ? rc : (int)(intptr_t)trc;
}

/* The monolithic run's forked child: becomes sdds-bench-mono, which runs local_mono_role. */
static int lc_mono_exec(void *arg)
{
	struct lc_args *a = arg;
	struct lc_mono_args p = {.polling = a->polling, .pl = *a->pl};
	void *shm[1] = {a->s};

	mono_opts_put(a->o, &p.o);
	return lc_fail(a->s, LC_SIDE_A, 2, "monolithic: cannot run sdds-bench-mono",
		       mono_exec(LOCAL_MONO_ROLE, &p, sizeof(p), shm, 1));
}

void local_throughput(const struct bench_opts *o, const char *sock, bool polling,
		      const struct bench_placement *pl, struct tput_result *ret)
{
	struct lc_args a = {.o = o, .sock = sock, .polling = polling, .pl = pl};
	/* The monolithic threads pin themselves; its process is not pinned as a whole. */
	struct proc_pair p = {
	    .fn = {sock ? lc_tput_writer_role : lc_mono_exec, sock ? lc_tput_reader_role : NULL},
	    .arg = {&a, &a},
	    .cpu = {sock ? pl->a_cpu : BENCH_CPU_ANY, pl->b_cpu},
	    .name = {sock ? "writer" : "monolithic", "reader"}};
	struct proc_shm shm;
	int err;

	*ret = (struct tput_result){.ran = true};
	err = proc_shm_new(sizeof(struct lc_shm), &shm);
	if (err < 0) {
		bench_why(ret->why, "shared memory: %s", strerror(-err));
		return;
	}
	a.s = shm.base;
	p.why[0] = a.s->why[0];
	p.why[1] = a.s->why[1];
	if (proc_run_pair(&p, bench_now_ns() + (int64_t)((o->tput_seconds + 60) * 1e9), ret->why) < 0)
		goto out_free;
	ret->written = a.s->written;
	ret->received = a.s->received;
	ret->lost = a.s->lost;
	ret->seconds = (double)(a.s->t_mark - a.s->t_first) / 1e9;
	if (a.s->count_mark < 2 || ret->seconds <= 0) {
		bench_why(ret->why, "too few samples arrived to time (%llu)",
			  (unsigned long long)a.s->received);
		goto out_free;
	}
	ret->rate = (double)(a.s->count_mark - 1) / ret->seconds;
	ret->writer_rate = a.s->w_ns > 0 ? (double)a.s->written * 1e9 / (double)a.s->w_ns : 0;
	ret->ok = true;
out_free:
	proc_shm_free(&shm);
}

/* ------------------------------------------------------------ the subcommand */

#define LC_MAX_PLACEMENTS 5

/* The sddsd path in one daemon mode and one placement. */
struct lc_mode {
	struct bench_placement pl;
	struct lat_result lat;
	struct tput_result tput, tput_many; /* tput_many: --take-many's batch-taking reader */
	char daemon_note[BENCH_WHY_MAX];    /* the daemon misbehaved at stop; figures kept */
};

static void lc_usage(FILE *f)
{
	fprintf(f,
		"usage: sdds-bench local [options]   (defaults in brackets)\n"
		"One-way latency and throughput through a private sddsd (polling, blocking), monolithic\n"
		"throughput, and the spin, futex and yield baselines.\n"
		"  -n, --iterations N [100000]  --warmup N [1000]  -s, --size N (1..%u) [2]\n"
		"  --max-seconds S [30]     cap on one latency run\n"
		"  -t, --tput-seconds S [2] one throughput run; --depth N [1024] its reader's history\n"
		"  --take-many N            one more throughput run per mode taking 2..%u per call\n"
		"  --best-effort            best-effort QoS [reliable]\n"
		"  --pin[=D,A,B]            CPUs of daemon, ping/writer, pong/reader ('-': any), or a sweep\n"
		"  --poll-spin-ns N [10 s]  polling clients' spin budget (never sleep)\n"
		"  --poll-yield-ns N|never [0]  they yield after N ns of spinning\n"
		"  --sddsd PATH [../../daemon/sddsd from here]\n"
		"  --raw PREFIX             per-iteration one-way ns to PREFIX-<run>.txt\n"
		"  --json                   the JSON itself, not report.py's table of it\n",
		BENCH_MAX_SIZE, BENCH_MAX_TAKE_BATCH);
}

enum { OPT_DEPTH = BENCH_OPT_OWN, OPT_BEST_EFFORT, OPT_PIN, OPT_POLL_SPIN, OPT_POLL_YIELD, OPT_TAKE_MANY };

static int lc_option(void *ctx, int c, const char *arg)
{
	struct bench_opts *o = ctx;
	int cpu[3], err = 0;
	uint64_t v = 0;

	switch (c) {
	case OPT_DEPTH:
		err = bench_parse_u64(arg, 0, 1, 1u << 20, &v);
		o->depth = (uint32_t)v;
		break;
	case OPT_TAKE_MANY:
		err = bench_parse_u64(arg, 0, 2, BENCH_MAX_TAKE_BATCH, &v);
		o->take_many = (uint32_t)v;
		break;
	case OPT_BEST_EFFORT:
		o->reliable = false;
		break;
	case OPT_PIN:
		o->pin = true;
		o->pin_sweep = arg == NULL;
		if (arg && (err = bench_parse_cpus(arg, 3, cpu)) == 0)
			o->pin_spec = (struct bench_placement){cpu[0], cpu[1], cpu[2]};
		break;
	case OPT_POLL_SPIN:
		err = bench_parse_u64(arg, 0, 0, INT64_MAX, &v);
		o->poll_spin_ns = (int64_t)v;
		break;
	case OPT_POLL_YIELD:
		/* "never": pure spin; three busy processes on two CPUs then take turns at the tick. */
		err = strcmp(arg, "never") == 0 ? 0 : bench_parse_u64(arg, 0, 0, INT64_MAX, &v);
		o->poll_yield_ns = strcmp(arg, "never") == 0 ? -1 : (int64_t)v;
		break;
	}
	return err;
}

static void lc_placement_str(const struct bench_placement *pl, char *buf, size_t cap)
{
	int c[3] = {pl->daemon_cpu, pl->a_cpu, pl->b_cpu};
	char s[3][16];

	for (int i = 0; i < 3; i++)
		snprintf(s[i], sizeof(s[i]), c[i] < 0 ? "any" : "cpu%d", c[i]);
	snprintf(buf, cap, c[0] < 0 && c[1] < 0 && c[2] < 0 ? "unpinned" : "sddsd:%s A:%s B:%s", s[0], s[1],
		 s[2]);
}

/*
 * The placements to try: the one given, or unpinned, then on two or more
 * CPUs the daemon alone on one CPU with both clients on the other, the
 * daemon sharing with either client, and everything on one CPU (where a
 * futex wake-up needs no cross-CPU interrupt). Unpinned polling on two CPUs
 * runs as the best of them: the daemon alone, so a hop is one hand-over of
 * the clients' CPU, the yield floor (docs/DESIGN.md, "Polling").
 */
static int lc_placements(const struct bench_opts *o, int n_cpus, bool polling, struct bench_placement *pl)
{
	int c0 = proc_cpu_nth(0), c1 = proc_cpu_nth(1), n = 0;

	if (o->pin && !o->pin_sweep) {
		pl[0] = o->pin_spec;
		return 1;
	}
	if (!o->pin && polling && n_cpus >= 2)
		pl[n++] = (struct bench_placement){c0, c1, c1};
	else
		pl[n++] = (struct bench_placement){BENCH_CPU_ANY, BENCH_CPU_ANY, BENCH_CPU_ANY};
	if (!o->pin)
		return n;
	if (n_cpus >= 2) {
		pl[n++] = (struct bench_placement){c0, c1, c1};
		pl[n++] = (struct bench_placement){c0, c0, c1};
		pl[n++] = (struct bench_placement){c0, c1, c0};
	}
	pl[n++] = (struct bench_placement){c0, c0, c0};
	return n;
}

/* One daemon mode in one placement: start sddsd, latency, throughput, stop. */
static void lc_run_mode(const struct bench_opts *o, const char *sddsd_path, bool polling, struct lc_mode *m)
{
	const char *mode = polling ? "polling" : "blocking";
	char name[64], pl[96], why[BENCH_WHY_MAX] = "sddsd binary not found (give --sddsd PATH)";
	struct sddsd_proc d;
	struct lc_args a = {.o = o, .sock = d.sock, .polling = polling, .pl = &m->pl};
	struct pingpong_run_args r = {
	    .role = lc_pp_role, .arg = &a, .ping_cpu = m->pl.a_cpu, .pong_cpu = m->pl.b_cpu, .name = name};

	lc_placement_str(&m->pl, pl, sizeof(pl));
	if (!sddsd_path || sddsd_start(sddsd_path, polling, m->pl.daemon_cpu, &d, why) < 0) {
		memcpy(m->lat.why, why, sizeof(why));
		memcpy(m->tput.why, why, sizeof(why));
		return;
	}
	snprintf(name, sizeof(name), "sddsd-%s-d%d-a%d-b%d", mode, m->pl.daemon_cpu, m->pl.a_cpu,
		 m->pl.b_cpu);
	fprintf(stderr, "sdds-bench: sddsd %s, %s\n", mode, pl);
	pingpong_run(o, &r, &m->lat);
	if (!sddsd_alive(&d))
		bench_why(m->tput.why, "sddsd died during the latency run");
	else
		local_throughput(o, d.sock, polling, &m->pl, &m->tput);
	if (o->take_many > 1 && sddsd_alive(&d)) {
		struct bench_opts ob = *o;

		ob.take_batch = o->take_many;
		local_throughput(&ob, d.sock, polling, &m->pl, &m->tput_many);
	}
	if (sddsd_stop(&d, m->daemon_note) < 0)
		fprintf(stderr, "sdds-bench: %s, %s: %s\n", mode, pl, m->daemon_note);
}

static void lc_json_lat(struct json *j, const char *key, const struct lat_result *l)
{
	json_obj_begin(j, key);
	json_bool(j, "ok", l->ok);
	if (!l->ok)
		json_str(j, "error", l->why);
	else
		json_uint(j, "iterations", l->st.n);
	pingpong_json(j, l, true);
	json_obj_end(j);
}

static void lc_json_tput(struct json *j, const char *key, const struct tput_result *t)
{
	json_obj_begin(j, key);
	json_bool(j, "ok", t->ok);
	if (!t->ok) {
		json_str(j, "error", t->why);
	} else {
		json_num(j, "samples_per_s", t->rate);
		json_num(j, "writer_samples_per_s", t->writer_rate);
		json_uint(j, "written", t->written);
		json_uint(j, "received", t->received);
		json_uint(j, "lost", t->lost);
		json_num(j, "seconds", t->seconds);
	}
	json_obj_end(j);
}

/* m as the object key (NULL: an array element) in j. */
static void lc_json_mode(struct json *j, const char *key, const char *mode, const struct lc_mode *m)
{
	char s[96];

	lc_placement_str(&m->pl, s, sizeof(s));
	json_obj_begin(j, key);
	if (mode)
		json_str(j, "mode", mode);
	json_obj_begin(j, "placement");
	json_str(j, "text", s);
	json_int(j, "daemon_cpu", m->pl.daemon_cpu);
	json_int(j, "a_cpu", m->pl.a_cpu);
	json_int(j, "b_cpu", m->pl.b_cpu);
	json_obj_end(j);
	lc_json_lat(j, "latency", &m->lat);
	lc_json_tput(j, "throughput", &m->tput);
	if (m->tput_many.ran)
		lc_json_tput(j, "throughput_take_many", &m->tput_many);
	if (m->daemon_note[0])
		json_str(j, "daemon_note", m->daemon_note);
	json_obj_end(j);
}

/* A baseline of the run into the object open in j. */
static void lc_baseline(struct json *j, const struct bench_opts *o, enum baseline_kind kind, int cpu_a,
			int cpu_b, const char *name, const char *key)
{
	struct lat_result l;

	baseline_run(kind, o, cpu_a, cpu_b, name, &l);
	lc_json_lat(j, key, &l);
}

int local_main(int argc, char **argv)
{
	static const struct option own[] = {
	    {"depth", required_argument, NULL, OPT_DEPTH},
	    {"take-many", required_argument, NULL, OPT_TAKE_MANY},
	    {"best-effort", no_argument, NULL, OPT_BEST_EFFORT},
	    {"pin", optional_argument, NULL, OPT_PIN},
	    {"poll-spin-ns", required_argument, NULL, OPT_POLL_SPIN},
	    {"poll-yield-ns", required_argument, NULL, OPT_POLL_YIELD},
	    {NULL, 0, NULL, 0},
	};
	static const struct bench_cli cli = {
	    .prog = "sdds-bench local",
	    .common = BENCH_OPT_ITERATIONS | BENCH_OPT_WARMUP | BENCH_OPT_SIZE | BENCH_OPT_MAX_SECONDS |
		      BENCH_OPT_TPUT_SECONDS | BENCH_OPT_SDDSD | BENCH_OPT_RAW | BENCH_OPT_JSON,
	    .max_size = BENCH_MAX_SIZE,
	    .max_iterations = 1000000000,
	    .own = own,
	    .parse = lc_option,
	    .usage = lc_usage,
	};
	static const char *const mode_name[2] = {"polling", "blocking"};
	static struct lc_mode mode[2][LC_MAX_PLACEMENTS];
	/* A spin budget longer than any wait of the benchmark: polling clients never sleep. */
	struct bench_opts o = {.size = 2,
			       .iterations = 100000,
			       .warmup = 1000,
			       .max_seconds = 30,
			       .tput_seconds = 2,
			       .depth = 1024,
			       .reliable = true,
			       .poll_spin_ns = 10 * 1000000000LL};
	int rc = bench_cli_parse(&cli, argc, argv, &o, &o), c0 = proc_cpu_nth(0), c1 = proc_cpu_nth(1);
	int n_cpus = proc_cpu_count(), n_pl[2], floor_cpu;
	struct bench_placement pl[LC_MAX_PLACEMENTS], base_pl = {BENCH_CPU_ANY, BENCH_CPU_ANY, BENCH_CPU_ANY};
	struct tput_result t;
	char sddsd[PATH_MAX], s[96];
	double load;
	struct json j;

	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (sddsd_find(o.sddsd_path, sddsd, sizeof(sddsd)) < 0) {
		fprintf(stderr, "sdds-bench: sddsd not found at %s\n",
			o.sddsd_path ? o.sddsd_path : "../../daemon/sddsd (give --sddsd PATH)");
		sddsd[0] = '\0';
	}
	/* With --pin the baselines' sides run on two CPUs, as the clients do at best. */
	if (o.pin && n_cpus >= 2)
		base_pl = (struct bench_placement){BENCH_CPU_ANY, c0, c1};
	/* The polling floor runs where the polling clients share a CPU: B's of --pin=D,A,B, else c1. */
	floor_cpu = o.pin && !o.pin_sweep && o.pin_spec.b_cpu != BENCH_CPU_ANY ? o.pin_spec.b_cpu
		    : n_cpus >= 2					       ? c1
									       : c0;
	lc_placement_str(&base_pl, s, sizeof(s));
	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "tool", "sdds-bench");
	json_str(&j, "command", "local");
	json_uint(&j, "size_bytes", o.size);
	json_uint(&j, "iterations", o.iterations);
	json_uint(&j, "warmup", o.warmup);
	json_num(&j, "max_seconds", o.max_seconds);
	json_num(&j, "tput_seconds", o.tput_seconds);
	json_uint(&j, "take_many", o.take_many);
	json_uint(&j, "depth", o.depth);
	json_str(&j, "reliability", o.reliable ? "reliable" : "best_effort");
	json_int(&j, "poll_spin_ns", o.poll_spin_ns);
	json_int(&j, "poll_yield_ns", o.poll_yield_ns);
	json_int(&j, "cpus", n_cpus);
	json_num(&j, "loadavg_start", getloadavg(&load, 1) == 1 ? load : -1);
	json_str(&j, "sddsd", sddsd[0] ? sddsd : NULL);
	json_str(&j, "pinning", !o.pin ? "none" : o.pin_sweep ? "sweep" : "explicit");
	json_str(&j, "baseline_placement", s);
	json_int(&j, "floor_cpu", floor_cpu);

	fprintf(stderr, "sdds-bench: baselines spin, futex%s, yield-spin on cpu%d\n",
		o.pin ? ", futex on one CPU" : "", floor_cpu);
	json_obj_begin(&j, "baseline");
	lc_baseline(&j, &o, BASELINE_SPIN, base_pl.a_cpu, base_pl.b_cpu, "spin", "spin");
	lc_baseline(&j, &o, BASELINE_FUTEX, base_pl.a_cpu, base_pl.b_cpu, "futex", "futex");
	if (o.pin)
		lc_baseline(&j, &o, BASELINE_FUTEX, c0, c0, "futex-same-cpu", "futex_same_cpu");
	lc_baseline(&j, &o, BASELINE_YIELD, floor_cpu, floor_cpu, "yield-same-cpu", "yield_same_cpu");
	json_obj_end(&j);

	for (int k = 0; k < 2; k++) {
		int best = 0;

		n_pl[k] = lc_placements(&o, n_cpus, k == 0, pl);
		for (int i = 0; i < n_pl[k]; i++) {
			struct lc_mode *m = &mode[k][i];

			m->pl = pl[i];
			lc_run_mode(&o, sddsd[0] ? sddsd : NULL, k == 0, m);
			rc |= !m->lat.ok || !m->tput.ok;
			/* A mode shows its lowest median, or its first placement for the reason. */
			if (m->lat.ok &&
			    (!mode[k][best].lat.ok || m->lat.st.median < mode[k][best].lat.st.median))
				best = i;
		}
		lc_json_mode(&j, mode_name[k], NULL, &mode[k][best]);
	}
	/* The monolithic threads go where the baselines ran: the clients' best case. */
	fprintf(stderr, "sdds-bench: monolithic throughput\n");
	json_obj_begin(&j, "monolithic");
	local_throughput(&o, NULL, true, &base_pl, &t);
	lc_json_tput(&j, "spin", &t);
	local_throughput(&o, NULL, false, &base_pl, &t);
	lc_json_tput(&j, "sleep", &t);
	json_obj_end(&j);
	json_arr_begin(&j, "placements");
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < n_pl[k]; i++)
			lc_json_mode(&j, NULL, mode_name[k], &mode[k][i]);
	json_arr_end(&j);
	json_num(&j, "loadavg_end", getloadavg(&load, 1) == 1 ? load : -1);
	json_obj_end(&j);
	json_finish(&j);
	return rc;
}
