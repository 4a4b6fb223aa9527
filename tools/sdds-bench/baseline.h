/* SPDX-License-Identifier: MIT */
/*
 * baseline.h - the raw two-process baselines of `sdds-bench local`, the
 * floors the path through sddsd is compared with (see baseline.c).
 */
#ifndef SDDS_BENCH_BASELINE_H
#define SDDS_BENCH_BASELINE_H

#include "bench.h"

enum baseline_kind {
	BASELINE_SPIN,	/* both sides busy-wait on a shared cache line */
	BASELINE_FUTEX, /* every hop wakes a side sleeping in FUTEX_WAIT: "one futex hop" */
	BASELINE_YIELD, /* both busy-wait with sched_yield(), on one CPU: the polling floor */
};

/*
 * One baseline ping-pong with the ping side on cpu_a and the pong side on
 * cpu_b (BENCH_CPU_ANY: not pinned); name labels the raw dump. Fills *ret.
 */
void baseline_run(enum baseline_kind kind, const struct bench_opts *o, int cpu_a, int cpu_b, const char *name,
		  struct lat_result *ret);

#endif /* SDDS_BENCH_BASELINE_H */
