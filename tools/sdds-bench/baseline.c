/* SPDX-License-Identifier: MIT */
/*
 * baseline.c - spin, futex and yield ping-pong between two processes (see
 * baseline.h); nothing here uses sddsd.
 *
 * OVERVIEW
 * The transport of the harness (pingpong.h) is one word and the payload
 * after it (struct bl_line, its own memfd mapping), copied in and out like
 * a sample. Every send stores the next value (ping 2i+1, pong 2i+2), so
 * each side waits while the word still holds the value it stored or saw
 * last, and never misses one (only one is ever in flight). The payload is
 * written before the release store of the word, read after the acquire
 * load that saw it. A futex waiter sleeps at once (a shared futex, no
 * spin) and every store is followed by FUTEX_WAKE, so each hop is one
 * wake-up. Yield-spin on one CPU makes each hop one hand-over of that CPU
 * (a system call and a context switch, no wake-up): the floor of sddsd's
 * polling mode on two CPUs, where the two clients share one (docs/DESIGN.md,
 * "Polling").
 */
#include "baseline.h"

#include <errno.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdalign.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "doorbell.h"
#include "pingpong.h"
#include "proc.h"

struct bl_line {
	alignas(SDDS_CACHELINE) _Atomic uint32_t word;
	uint32_t pad_[3];
	/* For payloads up to 48 bytes the payload shares the word's cache line. */
	uint8_t payload[BENCH_MAX_SIZE];
};

/* One side's transport; each process has its own copy (the fork's). */
struct bl_ctx {
	enum baseline_kind kind;
	const struct bench_opts *o;
	struct bl_line *line; /* shared */
	uint32_t last;	      /* the value this side stored or saw last */
};

static long bl_futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	/* Shared futex (no FUTEX_PRIVATE_FLAG): the word is in a mapping of two processes. */
	return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

static int bl_send(void *arg, const void *buf, uint32_t len)
{
	struct bl_ctx *x = arg;

	memcpy(x->line->payload, buf, len);
	atomic_store_explicit(&x->line->word, ++x->last, memory_order_release);
	if (x->kind == BASELINE_FUTEX)
		bl_futex(&x->line->word, FUTEX_WAKE, 1, NULL);
	return 0;
}

/* Waits while the word holds x->last: 64k spins, 256 yields or one futex slice. */
static int bl_recv(void *arg, void *buf, size_t cap, size_t *ret_len)
{
	struct bl_ctx *x = arg;
	_Atomic uint32_t *w = &x->line->word;
	struct timespec slice = {.tv_sec = 0, .tv_nsec = PINGPONG_SLICE_NS};
	unsigned spins = x->kind == BASELINE_YIELD ? 0x100 : 0x10000;
	uint32_t v;

	(void)cap;
	while ((v = atomic_load_explicit(w, memory_order_acquire)) == x->last) {
		if (x->kind == BASELINE_FUTEX) {
			/* Returns at once if the word changed after the load (EAGAIN). */
			if (bl_futex(w, FUTEX_WAIT, x->last, &slice) < 0 && errno == ETIMEDOUT)
				return -EAGAIN;
		} else {
			if (x->kind == BASELINE_YIELD)
				(void)sched_yield();
			else
				doorbell_cpu_relax();
			if (--spins == 0)
				return -EAGAIN;
		}
	}
	if (v != x->last + 1)
		return -EPROTO;
	x->last = v;
	memcpy(buf, x->line->payload, x->o->size);
	*ret_len = x->o->size;
	return 0;
}

static const struct pingpong_ops bl_ops = {.send = bl_send, .recv = bl_recv};

static int bl_role(struct pingpong_shm *s, void *arg, int side)
{
	return pingpong_side(s, side, ((struct bl_ctx *)arg)->o, &bl_ops, arg, "ping", "pong");
}

void baseline_run(enum baseline_kind kind, const struct bench_opts *o, int cpu_a, int cpu_b, const char *name,
		  struct lat_result *ret)
{
	struct bl_ctx x = {.kind = kind, .o = o};
	struct pingpong_run_args r = {
	    .role = bl_role, .arg = &x, .ping_cpu = cpu_a, .pong_cpu = cpu_b, .name = name};
	struct proc_shm line;
	int err = proc_shm_new(sizeof(struct bl_line), &line);

	if (err < 0) {
		*ret = (struct lat_result){.ran = true};
		bench_why(ret->why, "shared memory: %s", strerror(-err));
		return;
	}
	x.line = line.base;
	pingpong_run(o, &r, ret);
	proc_shm_free(&line);
}
