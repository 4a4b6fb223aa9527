/* SPDX-License-Identifier: MIT */
/*
 * pingpong.h - the one ping-pong harness of every latency benchmark: the
 * shared control block, the ping and pong loops over a transport given as
 * two callbacks, warm-up, the iteration count, the --max-seconds cap and
 * the RTT/2 result.
 *
 * OVERVIEW
 * A run is two processes forked from the single-threaded main process
 * (pingpong_run, or the caller's own forks calling pingpong_ping and
 * pingpong_pong) that share one struct pingpong_shm, a memfd mapping made
 * before the fork:
 *   - `ready`: the pong side can answer; the ping side sends nothing before
 *     it (a best-effort writer would lose its first ping silently);
 *   - `abort`: a side failed; the other gives up at its next slice instead
 *     of waiting out the hop timeout;
 *   - `stop`: the ping side is done. It sets it (release) and then sends one
 *     last ping, which carries the flag to the pong side through the
 *     transport's own acquire/release chain: a pong side that received a
 *     ping while `stop` is set exits without answering. It also checks the
 *     flag whenever a receive slice passes empty, in case the last ping is
 *     lost;
 *   - the figures: rounds measured (`done`), pings lost, whether the cap
 *     ended the run, a reason per side, and rtt[], one round-trip time per
 *     measured round, written by the ping side only.
 *
 * Ping i carries its number in its first bytes (the 16-bit sequence number
 * of the benchmark topics, big-endian; one byte when the sample has one);
 * the pong side echoes the sample it received. The ping side reads the
 * clock once per round: a round trip is the difference of consecutive
 * reads, so a clock read is paid once per sample, on every transport alike.
 *
 * Transports: recv waits at most one slice (about 100 ms, or a bounded
 * spin) and returns -EAGAIN (or -ETIMEDOUT) when nothing came; the loops
 * check the flags and the deadlines between slices. A lossless transport
 * fails a round that gets no answer within 5 s or a wrong answer; a lossy
 * one (lost_ms > 0, a wire) counts a ping unanswered for lost_ms as lost,
 * skips late answers to earlier pings and fails only when more than 10%
 * are lost.
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

/* The shared control block; see the OVERVIEW. */
struct pingpong_shm {
	alignas(PINGPONG_CACHELINE) _Atomic uint32_t ready;
	_Atomic uint32_t abort;
	alignas(PINGPONG_CACHELINE) _Atomic uint32_t stop;
	uint64_t done;	 /* measured rounds; written by the ping side before it exits */
	uint64_t lost;	 /* pings without an answer (lossy transports) */
	uint32_t capped; /* the --max-seconds cap ended the run */
	char why[2][BENCH_WHY_MAX];
	alignas(PINGPONG_CACHELINE) uint64_t rtt[];
};

_Static_assert(offsetof(struct pingpong_shm, rtt) % PINGPONG_CACHELINE == 0, "rtt[] starts a cache line");

/* The transport of one side. ctx is the side's own (in its process). */
struct pingpong_ops {
	/* Sends len bytes of buf (borrowed). 0 or -errno. */
	int (*send)(void *ctx, const void *buf, uint32_t len);
	/*
	 * Waits at most one slice for one message into buf (cap bytes, the
	 * caller's). 0 with *ret_len; -EAGAIN or -ETIMEDOUT when nothing came;
	 * any other -errno fails the run.
	 */
	int (*recv)(void *ctx, void *buf, size_t cap, size_t *ret_len);
	/* NULL, or the text of a transport's -errno (sdds_strerror). */
	const char *(*strerror)(int err);
	/*
	 * NULL, or called by the ping side for measured round k (ping i, the
	 * answer in `in`), which started at t0 and ended at t1 (CLOCK_MONOTONIC).
	 */
	void (*measured)(void *ctx, uint64_t k, uint64_t i, int64_t t0, int64_t t1, const void *in);
	/* 0: lossless. Else a ping unanswered this long is lost and the next one goes out. */
	unsigned lost_ms;
};

/*
 * The ping side's loop: waits for `ready`, runs o->warmup unmeasured
 * rounds (at most max_seconds / 4), then measured rounds into s->rtt until
 * o->iterations are done or max_seconds passed, then sets `stop` and sends
 * the last ping. who names the side in s->why[0] ("ping side"). Returns 0
 * or an exit code for the role (abort set, reason written).
 */
int pingpong_ping(struct pingpong_shm *s, const struct bench_opts *o, const struct pingpong_ops *ops,
		  void *ctx, const char *who);

/*
 * The pong side's loop: sets `ready`, then echoes every ping of o->size
 * bytes until it sees `stop`. Returns 0 or an exit code (abort set, reason
 * in s->why[1]).
 */
int pingpong_pong(struct pingpong_shm *s, const struct bench_opts *o, const struct pingpong_ops *ops,
		  void *ctx, const char *who);

/*
 * Records why side (0 ping, 1 pong) failed, unless a reason is there, and
 * sets `abort`. Returns code. For the roles' own set-up errors.
 */
int pingpong_fail(struct pingpong_shm *s, int side, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The size of a control block with room for o->iterations round trips. */
size_t pingpong_shm_size(const struct bench_opts *o);

/* pingpong_ping on side 0 (named ping_who), else pingpong_pong (pong_who). */
int pingpong_side(struct pingpong_shm *s, int side, const struct bench_opts *o,
		  const struct pingpong_ops *ops, void *ctx, const char *ping_who, const char *pong_who);

/*
 * The role of pingpong_run, in each forked child: open side's endpoints
 * (0 pings, 1 answers) and run pingpong_side on s. Returns the exit code.
 */
typedef int (*pingpong_role_fn)(struct pingpong_shm *s, void *arg, int side);

struct pingpong_run_args {
	pingpong_role_fn role;
	void *arg;		 /* to both roles (copied into each child by the fork) */
	int ping_cpu, pong_cpu;	 /* BENCH_CPU_ANY: not pinned */
	const char *name;	 /* labels the raw dump (--raw) */
	volatile pid_t *running; /* NULL, or 2 slots holding the children while they run (signal handlers) */
};

/*
 * One run: maps the control block, forks the role as pong then as ping,
 * waits for both (killing them after 2 * max_seconds + 60 s) and fills
 * *ret: the one-way figures, requested, done and capped, or why it failed.
 * The control block is unmapped before this returns.
 */
void pingpong_run(const struct bench_opts *o, const struct pingpong_run_args *r, struct lat_result *ret);

/*
 * Fills ret from the control block of a run whose roles all exited 0
 * (rtt[] is sorted in place); for callers that fork the roles themselves.
 */
void pingpong_result(const struct bench_opts *o, const char *name, struct pingpong_shm *s,
		     struct lat_result *ret);

struct json;
/*
 * l in the JSON object open in j: when it succeeded its figures (median_us,
 * p99_us, p999_us, max_us, min_us, mean_us when `mean`, truncated), then
 * always its completeness (requested, done, capped). The one latency
 * writer of the benchmarks that report these keys.
 */
void pingpong_json(struct json *j, const struct lat_result *l, bool mean);

#endif /* SDDS_BENCH_PINGPONG_H */
