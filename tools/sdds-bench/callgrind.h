/* SPDX-License-Identifier: MIT */
/*
 * callgrind.h - `sdds-bench callgrind`: instructions per sample through the
 * daemon and in the clients, counted by valgrind's callgrind tool.
 *
 * OVERVIEW
 * The same fixed workload runs twice through a private sddsd (blocking
 * mode) under callgrind: a writer streams exactly B samples to a reader,
 * then exactly B + K. The daemon's instruction count (Ir, every thread) of
 * the first run is the cost of starting, two clients, a topic, B samples
 * and stopping; the second costs the same plus K samples, so the
 * difference over K is its instructions per sample: exact, and free of a
 * shared machine's noise.
 *
 * The clients are counted in two more runs of the same counts, sddsd
 * native and sdds-bench under callgrind (built with <valgrind/callgrind.h>):
 * local.c's throughput loops zero the counters when they start and dump
 * them, labelled with the role, when they end. Separate runs, because a
 * writer slowed down by callgrind would change how the daemon batches.
 */
#ifndef SDDS_BENCH_CALLGRIND_H
#define SDDS_BENCH_CALLGRIND_H

#include <stdint.h>

/* In a role process under callgrind: zero the counters of every thread; else nothing. */
void callgrind_role_begin(void);
/* In a role process under callgrind: dump the counters as "sdds-bench ROLE"; else nothing. */
void callgrind_role_end(const char *role);

/*
 * From the callgrind output file at path: the inclusive instructions (Ir)
 * of each function named in fn[0..n-1] into ir[], and how often it was
 * called into calls[] (a name not in the file keeps 0 in both). 0, or
 * -errno (-EINVAL: not callgrind's format).
 */
int callgrind_inclusive(const char *path, const char *const *fn, unsigned n, uint64_t *ir, uint64_t *calls);

/* argv[0] is "callgrind". Returns the exit status: 0, 1 when a run failed, 2 usage. */
int callgrind_main(int argc, char **argv);

#endif /* SDDS_BENCH_CALLGRIND_H */
