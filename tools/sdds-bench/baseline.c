/* SPDX-License-Identifier: MIT */
/*
 * baseline.c - spin and futex ping-pong between two processes (see
 * baseline.h).
 *
 * OVERVIEW
 * Shared layout (struct bl_shm, one memfd mapping):
 *   ctl   - ready/abort flags, the measured count and a reason per side;
 *   line  - the word both sides wait on, followed by the payload;
 *   rtt[] - one round-trip time per measured iteration, written by the
 *           ping side only.
 * Word protocol: 0 at start; ping i stores 2i+1, pong stores 2i+2; the ping
 * side ends the run by storing BL_STOP. Each side waits while the word still
 * holds the value it stored last, so a side never misses a value (only one
 * value is ever in flight). The payload is written before the release store
 * of the word and read after the acquire load that saw it.
 *
 * Timing: the ping side reads the clock once per iteration; a round trip is
 * the difference between consecutive reads, so a clock read is paid once,
 * not twice, per sample, the same way as on the sddsd path (local.c).
 */
#include "baseline.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <linux/futex.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "doorbell.h"
#include "proc.h"

#define BL_STOP UINT32_MAX
/* A hop slower than this is a failure, not a figure. */
#define BL_HOP_TIMEOUT_NS (5 * 1000000000LL)
#define BL_READY_TIMEOUT_NS (10 * 1000000000LL)

struct bl_ctl {
	alignas(SDDS_CACHELINE) _Atomic uint32_t ready; /* pong side is up */
	_Atomic uint32_t abort;				/* a side failed */
	uint64_t n_measured;				/* written by ping before it exits */
	uint32_t truncated;
	char why[2][BENCH_WHY_MAX];
};

struct bl_line {
	alignas(SDDS_CACHELINE) _Atomic uint32_t word;
	uint32_t pad_[3];
	/* For payloads up to 48 bytes the payload shares the word's cache line. */
	uint8_t payload[BENCH_MAX_SIZE];
};

struct bl_shm {
	struct bl_ctl ctl;
	struct bl_line line;
	alignas(SDDS_CACHELINE) uint64_t rtt[];
};

struct bl_args {
	enum baseline_kind kind;
	const struct bench_opts *o;
	struct bl_shm *shm;
};

static long bl_futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	/* Shared futex (no FUTEX_PRIVATE_FLAG): the word is in a mapping of two processes. */
	return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

static void bl_store(struct bl_args *a, uint32_t v)
{
	atomic_store_explicit(&a->shm->line.word, v, memory_order_release);
	if (a->kind == BASELINE_FUTEX)
		bl_futex(&a->shm->line.word, FUTEX_WAKE, 1, NULL);
}

/*
 * Wait while the word equals `old`; return the new value in *ret.
 * Returns 0, -ETIMEDOUT after BL_HOP_TIMEOUT_NS or -ECANCELED when the peer
 * failed.
 */
static int bl_wait_change(struct bl_args *a, uint32_t old, uint32_t *ret)
{
	_Atomic uint32_t *w = &a->shm->line.word;
	int64_t deadline = bench_now_ns() + BL_HOP_TIMEOUT_NS;
	uint32_t v;

	if (a->kind == BASELINE_SPIN || a->kind == BASELINE_YIELD) {
		/*
		 * The clock and the abort flag cost more than a spin: read them
		 * every 64k spins, or every 256 yields (a yield costs more).
		 */
		unsigned spins = 0, every = a->kind == BASELINE_YIELD ? 0xff : 0xffff;

		while ((v = atomic_load_explicit(w, memory_order_acquire)) == old) {
			if (a->kind == BASELINE_YIELD)
				(void)sched_yield();
			else
				doorbell_cpu_relax();
			if ((++spins & every) == 0) {
				if (atomic_load_explicit(&a->shm->ctl.abort, memory_order_relaxed))
					return -ECANCELED;
				if (bench_now_ns() > deadline)
					return -ETIMEDOUT;
			}
		}
	} else {
		struct timespec slice = {.tv_sec = 0, .tv_nsec = 100 * 1000000};

		while ((v = atomic_load_explicit(w, memory_order_acquire)) == old) {
			/* Returns at once if the word changed after the load (EAGAIN). */
			if (bl_futex(w, FUTEX_WAIT, old, &slice) < 0 && errno == ETIMEDOUT) {
				if (atomic_load_explicit(&a->shm->ctl.abort, memory_order_relaxed))
					return -ECANCELED;
				if (bench_now_ns() > deadline)
					return -ETIMEDOUT;
			}
		}
	}
	*ret = v;
	return 0;
}

static void bl_put_counter(uint8_t *p, uint32_t size, uint64_t i)
{
	for (uint32_t k = 0; k < size && k < 8; k++)
		p[k] = (uint8_t)(i >> (8 * k));
}

/* Record why side failed (at iteration i) and tell the peer to give up. */
static int bl_fail(struct bl_args *a, int side, int code, const char *what, uint64_t i, int err)
{
	bench_why(a->shm->ctl.why[side], "%s %llu: %s", what, (unsigned long long)i,
		  err == -ETIMEDOUT   ? "no answer within 5 s"
		  : err == -ECANCELED ? "peer failed"
		  : err == -EPROTO    ? "wrong answer"
				      : strerror(-err));
	atomic_store_explicit(&a->shm->ctl.abort, 1, memory_order_relaxed);
	return code;
}

static int bl_ping(void *arg)
{
	struct bl_args *a = arg;
	const struct bench_opts *o = a->o;
	struct bl_shm *s = a->shm;
	int64_t ready_deadline = bench_now_ns() + BL_READY_TIMEOUT_NS;
	struct bench_pace pace;
	uint8_t out[BENCH_MAX_SIZE] = {0}, in[BENCH_MAX_SIZE];
	uint64_t i, n = 0;

	while (!atomic_load_explicit(&s->ctl.ready, memory_order_acquire)) {
		if (bench_now_ns() > ready_deadline)
			return bl_fail(a, 0, 2, "pong side not ready at iteration", 0, -ETIMEDOUT);
		usleep(1000);
	}
	bench_pace_start(&pace, o->warmup, o->max_seconds);
	for (i = 0; n < o->iterations; i++) {
		uint32_t v;
		int err;

		bl_put_counter(out, o->size, i);
		memcpy(s->line.payload, out, o->size);
		bl_store(a, (uint32_t)(2 * i + 1));
		err = bl_wait_change(a, (uint32_t)(2 * i + 1), &v);
		if (err < 0)
			return bl_fail(a, 0, 3, "ping", i, err);
		memcpy(in, s->line.payload, o->size);
		if (v != 2 * i + 2 || memcmp(in, out, o->size) != 0)
			return bl_fail(a, 0, 4, "ping", i, -EPROTO);
		if (bench_pace_round(&pace, i, s->rtt, &n))
			break;
	}
	s->ctl.n_measured = n;
	s->ctl.truncated = n < o->iterations;
	bl_store(a, BL_STOP);
	return 0;
}

static int bl_pong(void *arg)
{
	struct bl_args *a = arg;
	const struct bench_opts *o = a->o;
	struct bl_shm *s = a->shm;
	uint8_t buf[BENCH_MAX_SIZE];
	uint32_t last = 0;

	atomic_store_explicit(&s->ctl.ready, 1, memory_order_release);
	for (;;) {
		uint32_t v;
		int err = bl_wait_change(a, last, &v);

		if (err < 0)
			return bl_fail(a, 1, 3, "pong after iteration", last / 2, err);
		if (v == BL_STOP)
			return 0;
		if (v != last + 1)
			return bl_fail(a, 1, 4, "pong after iteration", last / 2, -EPROTO);
		/* Copy out and back like a reader that takes and a writer that writes. */
		memcpy(buf, s->line.payload, o->size);
		memcpy(s->line.payload, buf, o->size);
		last = v + 1;
		bl_store(a, last);
	}
}

void baseline_run(enum baseline_kind kind, const struct bench_opts *o, int cpu_a, int cpu_b, const char *name,
		  struct lat_result *ret)
{
	struct proc_shm shm;
	struct bl_args a = {.kind = kind, .o = o};
	pid_t pids[2];
	int st[2], err;
	char s0[64], s1[64];
	int64_t deadline;

	memset(ret, 0, sizeof(*ret));
	ret->ran = true;
	ret->requested = o->iterations;
	err = proc_shm_new(sizeof(struct bl_shm) + o->iterations * sizeof(uint64_t), &shm);
	if (err < 0) {
		bench_why(ret->why, "shared memory: %s", strerror(-err));
		return;
	}
	a.shm = shm.base;
	err = proc_spawn(cpu_b, bl_pong, &a, &pids[1]);
	if (err < 0) {
		bench_why(ret->why, "fork: %s", strerror(-err));
		goto out_free_shm;
	}
	err = proc_spawn(cpu_a, bl_ping, &a, &pids[0]);
	if (err < 0) {
		bench_why(ret->why, "fork: %s", strerror(-err));
		kill(pids[1], SIGKILL);
		proc_wait_all(&pids[1], 1, 0, &st[1]);
		goto out_free_shm;
	}
	/* Warm-up and the capped measured part, plus room for slow hops and the start. */
	deadline = bench_now_ns() + (int64_t)((o->max_seconds * 2 + 30) * 1e9);
	err = proc_wait_all(pids, 2, deadline, st);
	if (err < 0) {
		proc_status_str(st[0], s0, sizeof(s0));
		proc_status_str(st[1], s1, sizeof(s1));
		bench_why(ret->why, "%s%s%s%s(ping: %s, pong: %s)", a.shm->ctl.why[0],
			  a.shm->ctl.why[0][0] ? "; " : "", a.shm->ctl.why[1],
			  a.shm->ctl.why[1][0] ? " " : "", s0, s1);
		if (err == -ETIMEDOUT)
			bench_why(ret->why, "run did not end in time (ping: killed, pong: killed)");
		goto out_free_shm;
	}
	ret->truncated = a.shm->ctl.truncated != 0;
	bench_lat_finish(o, name, a.shm->rtt, a.shm->ctl.n_measured, ret);

out_free_shm:
	proc_shm_free(&shm);
}
