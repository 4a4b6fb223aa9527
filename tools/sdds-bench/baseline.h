/* SPDX-License-Identifier: MIT */
/*
 * baseline.h - the raw two-process baselines: ping-pong on one shared
 * cache line by spinning, and by futex wait/wake.
 *
 * OVERVIEW
 * Two forked processes share one word in a memfd mapping (and the payload
 * next to it, copied in and out like a sample). The ping side writes an odd
 * value, the pong side answers with the next even one. Spin: both sides
 * busy-wait on the word. Futex: a waiter that does not see its value sleeps
 * at once in FUTEX_WAIT (shared futex, no spin), and every store is followed
 * by FUTEX_WAKE, so every hop is one wake-up of a sleeping process: "one
 * futex hop" is the one-way figure of this run. Yield: both sides busy-wait
 * but call sched_yield() between checks, and the caller pins both to ONE
 * CPU: every hop is one hand-over of that CPU from the side that stored to
 * the side that waits (a system call and a context switch, no wake-up).
 * That is the floor of sddsd's polling mode on two CPUs, where the two
 * clients share one CPU (see docs/DESIGN.md, "Polling"). Nothing here uses
 * sddsd.
 */
#ifndef SDDS_BENCH_BASELINE_H
#define SDDS_BENCH_BASELINE_H

#include "bench.h"

enum baseline_kind {
	BASELINE_SPIN,
	BASELINE_FUTEX,
	BASELINE_YIELD,
};

/*
 * Run one baseline with the ping side on cpu_a and the pong side on cpu_b
 * (BENCH_CPU_ANY: not pinned). name labels the raw dump. Fills *ret
 * (ok and figures, or why).
 */
void baseline_run(enum baseline_kind kind, const struct bench_opts *o, int cpu_a, int cpu_b, const char *name,
		  struct lat_result *ret);

#endif /* SDDS_BENCH_BASELINE_H */
