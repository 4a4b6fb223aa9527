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
 */
#ifndef SDDS_BENCH_CALLGRIND_H
#define SDDS_BENCH_CALLGRIND_H

/* Entry point of `sdds-bench callgrind`; argv[0] is "callgrind". Exit status 0, 1 failed, 2 usage. */
int callgrind_main(int argc, char **argv);

#endif /* SDDS_BENCH_CALLGRIND_H */
