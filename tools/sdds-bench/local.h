/* SPDX-License-Identifier: MIT */
/*
 * local.h - the local path through sddsd (and through the in-process broker
 * of monolithic mode), measured with the native API of libsddsclient.
 *
 * OVERVIEW
 * Latency: two client processes, A and B, connected to one daemon. A writes
 * topic "bench_ping", B takes it and writes the same bytes on "bench_pong",
 * A takes that: one round trip, one-way = RTT / 2.
 * Throughput: a writer process streams samples for tput_seconds to a reader
 * process; the figure is samples per second taken by the reader.
 * Monolithic: the same writer and reader loops as two threads of one
 * process whose client runs the broker core in-process (opts.monolithic).
 *
 * Client spin budget: polling runs give the clients o->poll_spin_ns (very
 * large: they never sleep), blocking runs give them 0, so every wait sleeps
 * on the futex. The daemon's mode (--poll or not) is the caller's business.
 * Processes are forked from the (single-threaded) caller; no client exists
 * in the caller.
 */
#ifndef SDDS_BENCH_LOCAL_H
#define SDDS_BENCH_LOCAL_H

#include <stdbool.h>

#include "bench.h"

/* Ping-pong through the daemon listening on sock; fills *ret. */
void local_latency(const struct bench_opts *o, const char *sock, bool polling,
		   const struct bench_placement *pl, const char *name, struct lat_result *ret);

/* Writer process to reader process through the daemon on sock; fills *ret. */
void local_throughput(const struct bench_opts *o, const char *sock, bool polling,
		      const struct bench_placement *pl, struct tput_result *ret);

/*
 * Writer thread (on pl->a_cpu) to reader thread (on pl->b_cpu) in one
 * monolithic client; spinning chooses the polling or the zero spin budget.
 */
void local_monolithic(const struct bench_opts *o, bool spinning, const struct bench_placement *pl,
		      struct tput_result *ret);

#endif /* SDDS_BENCH_LOCAL_H */
