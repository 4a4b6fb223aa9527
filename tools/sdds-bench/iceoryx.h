/* SPDX-License-Identifier: MIT */
/*
 * iceoryx.h - `sdds-bench iceoryx`: the peer figure, an iceoryx ping-pong
 * through the iceoryx C binding, in the shape of `sdds-bench local`.
 *
 * OVERVIEW
 * Two processes, leader and follower, each an iceoryx runtime under a
 * private RouDi (roudi.c). The leader publishes "ping", the follower takes
 * it and publishes the same bytes as "pong", the leader takes that: one
 * round trip, one-way = RTT / 2. Two modes: polling (both sides busy-poll
 * iox_sub_take_chunk) and waitset (both sides block in a WaitSet on their
 * subscriber's HAS_DATA state). Built only when the iceoryx C binding was
 * found at build time (SDDS_BENCH_HAVE_ICEORYX); without it the subcommand
 * exists and reports ok=false with the reason.
 */
#ifndef SDDS_BENCH_ICEORYX_H
#define SDDS_BENCH_ICEORYX_H

/* argv[0] is "iceoryx". Prints one JSON object; returns 0, 1 when a mode failed, 2 usage. */
int iceoryx_main(int argc, char **argv);

#endif /* SDDS_BENCH_ICEORYX_H */
