/* SPDX-License-Identifier: MIT */
/*
 * scale.h - `sdds-bench scale`: latency and daemon memory against the
 * number of connected clients.
 *
 * OVERVIEW
 * For each N of the client list (1..256), a private sddsd (blocking mode,
 * --poll on request) gets N connected clients in total: two of them are the
 * ping-pong pair of `sdds-bench local` measuring one-way latency (RTT/2);
 * the other N - 2 are real clients, each its own sdds_client connection
 * (its own segment on the daemon side) with its own topic, a writer and a
 * reader, held by helper processes of at most SCALE_PER_HELPER clients,
 * idle or writing at --bg-hz. N = 1 is one client writing and taking on
 * one topic (loopback through the daemon; one-way = write to take).
 * Daemon memory (VmRSS, and Pss from /proc/PID/smaps_rollup) is read once
 * every client is connected and registered, before the latency run, and
 * compared with the same daemon before any client connected.
 */
#ifndef SDDS_BENCH_SCALE_H
#define SDDS_BENCH_SCALE_H

/* argv[0] is "scale". Returns the exit status: 0, 1 when a point failed, 2 usage. */
int scale_main(int argc, char **argv);

#endif /* SDDS_BENCH_SCALE_H */
