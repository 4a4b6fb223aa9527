/* SPDX-License-Identifier: MIT */
/*
 * scale.h - `sdds-bench scale`: latency and daemon memory against the
 * number of connected clients.
 *
 * OVERVIEW
 * For each N of the client list (1..256), a private sddsd (blocking, or
 * --poll) gets N clients in all: the ping-pong pair of `sdds-bench local`
 * measuring one-way latency (RTT/2), and N - 2 others, each its own
 * connection with its own topic, writer and reader, idle or writing at
 * --bg-hz. N = 1 is one client writing and taking on one topic (one-way =
 * write to take). The daemon's VmRSS and Pss are read before any client
 * connects and again once all have registered, before the latency run.
 */
#ifndef SDDS_BENCH_SCALE_H
#define SDDS_BENCH_SCALE_H

/* argv[0] is "scale". Returns the exit status: 0, 1 when a point failed, 2 usage. */
int scale_main(int argc, char **argv);

#endif /* SDDS_BENCH_SCALE_H */
