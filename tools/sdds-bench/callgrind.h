/* SPDX-License-Identifier: MIT */
/*
 * callgrind.h - `sdds-bench callgrind`: instructions per sample through the
 * daemon, counted by valgrind's callgrind tool.
 *
 * OVERVIEW
 * Two runs of the same fixed workload through a private sddsd (blocking
 * mode) started under `valgrind --tool=callgrind`: a writer client streams
 * exactly B samples to a reader client, then exactly B + K. The daemon's
 * instruction count (Ir, every thread) of the first run is the cost of
 * starting, accepting both clients, creating the topic, B samples and
 * stopping; the second costs the same plus K samples. Their difference
 * divided by K is the daemon's instructions per sample: exact, and free of
 * the noise of a shared machine (only timer wake-ups while idle differ).
 *
 * The clients are counted the same way in two more runs of the same
 * counts, with the daemon running natively: built with valgrind's
 * <valgrind/callgrind.h>, `sdds-bench callgrind` reruns itself under
 * callgrind (the writer and reader processes that rerun forks are then
 * under callgrind too), and local.c's throughput loops zero the counters
 * when they start (callgrind_role_begin) and dump them, labelled with the
 * role, when they end (callgrind_role_end). A dump counts every thread of
 * that process over the loop alone: (dump of B + K - dump of B) / K is the
 * writer's and the reader's instructions per sample, the bench's own loop
 * included. Separate runs, because a writer slowed down by callgrind would
 * change how the daemon batches (its figure would no longer compare with
 * the figures before). Without the header the two calls do nothing and only
 * the daemon is counted.
 */
#ifndef SDDS_BENCH_CALLGRIND_H
#define SDDS_BENCH_CALLGRIND_H

/*
 * In a role process: start counting anew (callgrind's counters of every
 * thread to zero). Does nothing unless the process runs under callgrind.
 */
void callgrind_role_begin(void);
/*
 * In a role process: dump the counters since callgrind_role_begin, labelled
 * "sdds-bench ROLE" (role is the caller's string, e.g. "writer"). Does
 * nothing unless the process runs under callgrind.
 */
void callgrind_role_end(const char *role);

/* Entry point of `sdds-bench callgrind`; argv[0] is "callgrind". Exit status 0, 1 failed, 2 usage. */
int callgrind_main(int argc, char **argv);

#endif /* SDDS_BENCH_CALLGRIND_H */
