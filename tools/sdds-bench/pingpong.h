/* SPDX-License-Identifier: MIT */
/*
 * pingpong.h - the one ping-pong harness of every latency benchmark: the
 * ping and pong loops over a transport given as callbacks, warm-up, the
 * --max-seconds cap and the RTT/2 result.
 *
 * OVERVIEW
 * A run is two processes forked from the single-threaded main process that
 * share one struct pingpong_shm, mapped before the fork:
 *   - `ready`: the pong side can answer; a best-effort writer would lose a
 *     ping sent before it.
 *   - `abort`: a side failed; the other gives up at its next slice instead
 *     of waiting out the hop timeout.
 *   - `stop`: the ping side is done. It sets it (release), then sends a
 *     last ping that carries the flag through the transport's own
 *     acquire/release chain; a pong side that receives a ping while `stop`
 *     is set exits without answering, and checks the flag after every
 *     empty slice in case that ping is lost.
 *   - the figures, written by the ping side, and a reason per side.
 *
 * Ping i carries i in its first bytes (the topics' big-endian 16-bit
 * sequence number), which the pong side echoes. The ping side reads the
 * clock once per round, so every transport pays one read per sample.
 * Warm-up lasts o->warmup rounds or a quarter of max_seconds; the cap
 * counts from the first measured round.
 *
 * recv waits at most one slice, so the loops can check the flags between
 * slices. A lossless transport fails a round without an answer within 5 s
 * or with a wrong one. A lossy one (lost_ms > 0, a wire) counts a ping
 * unanswered for lost_ms as lost, skips late answers to earlier pings, and
 * fails only when more than 10% are lost.
 */
#ifndef SDDS_BENCH_PINGPONG_H
#define SDDS_BENCH_PINGPONG_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench.h"

#define PINGPONG_CACHELINE 64
/* What a recv callback waits at most before it returns -EAGAIN. */
#define PINGPONG_SLICE_NS (100 * 1000000LL)

struct pingpong_shm {
	alignas(PINGPONG_CACHELINE) _Atomic uint32_t ready;
	_Atomic uint32_t abort;
	alignas(PINGPONG_CACHELINE) _Atomic uint32_t stop;
	uint64_t done;
	uint64_t lost;
	uint32_t capped;
	char why[2][BENCH_WHY_MAX];
	alignas(PINGPONG_CACHELINE) uint64_t rtt[];
};

_Static_assert(offsetof(struct pingpong_shm, rtt) % PINGPONG_CACHELINE == 0, "rtt[] starts a cache line");

/* The transport of one side; ctx is the side's own. */
struct pingpong_ops {
	/* Sends len bytes of buf (borrowed). 0 or -errno. */
	int (*send)(void *ctx, const void *buf, uint32_t len);
	/*
	 * Waits at most one slice for one message into buf (cap bytes). 0 with
	 * *ret_len; -EAGAIN or -ETIMEDOUT when nothing came; any other -errno
	 * fails the run.
	 */
	int (*recv)(void *ctx, void *buf, size_t cap, size_t *ret_len);
	/* NULL, or the text of the transport's -errno. */
	const char *(*strerror)(int err);
	/* NULL, or told of measured round k (ping i, answer `in`) from t0 to t1. */
	void (*measured)(void *ctx, uint64_t k, uint64_t i, int64_t t0, int64_t t1, const void *in);
	/* 0: lossless. Else a ping unanswered this long is lost. */
	unsigned lost_ms;
};

/*
 * The two loops. who names the side in its reason. Each returns 0, or an
 * exit code for the role with `abort` set and the reason in s->why.
 */
int pingpong_ping(struct pingpong_shm *s, const struct bench_opts *o, const struct pingpong_ops *ops,
		  void *ctx, const char *who);
int pingpong_pong(struct pingpong_shm *s, const struct bench_opts *o, const struct pingpong_ops *ops,
		  void *ctx, const char *who);

/*
 * Records why side (0 ping, 1 pong) failed, unless it has a reason, and
 * sets `abort`. Returns code.
 */
int pingpong_fail(struct pingpong_shm *s, int side, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The size of a control block with room for o->iterations round trips. */
size_t pingpong_shm_size(const struct bench_opts *o);

/* pingpong_ping on side 0 (named ping_who), else pingpong_pong (pong_who). */
int pingpong_side(struct pingpong_shm *s, int side, const struct bench_opts *o,
		  const struct pingpong_ops *ops, void *ctx, const char *ping_who, const char *pong_who);

/*
 * The role of pingpong_run in each forked child: opens side's endpoints
 * (0 pings, 1 answers) and runs pingpong_side. Returns the exit code.
 */
typedef int (*pingpong_role_fn)(struct pingpong_shm *s, void *arg, int side);

struct pingpong_run_args {
	pingpong_role_fn role;
	void *arg;		 /* to both roles */
	int ping_cpu, pong_cpu;	 /* BENCH_CPU_ANY: not pinned */
	const char *name;	 /* labels the --raw dump */
	volatile pid_t *running; /* NULL, or 2 slots holding the children while they run */
};

/*
 * One run: forks the role as pong then as ping, waits for both (killing
 * them after 2 * max_seconds + 60 s) and fills *ret with the one-way
 * figures or why it failed.
 */
void pingpong_run(const struct bench_opts *o, const struct pingpong_run_args *r, struct lat_result *ret);

struct json;
/*
 * l's figures into the open JSON object j when it succeeded (median_us,
 * p99_us, p999_us, max_us, min_us, mean_us when `mean`, truncated), then
 * always requested, done and capped.
 */
void pingpong_json(struct json *j, const struct lat_result *l, bool mean);

#endif /* SDDS_BENCH_PINGPONG_H */
