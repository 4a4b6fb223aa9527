/* SPDX-License-Identifier: MIT */
/*
 * iceoryx.h - `sdds-bench iceoryx`: the peer figure, a ping-pong through
 * the iceoryx C binding under a private RouDi, in the shape of
 * `sdds-bench local`. Without the binding at build time the subcommand
 * exists and reports ok=false with the reason.
 */
#ifndef SDDS_BENCH_ICEORYX_H
#define SDDS_BENCH_ICEORYX_H

/* argv[0] is "iceoryx". Prints one JSON object; returns 0, 1 when a mode failed, 2 usage. */
int iceoryx_main(int argc, char **argv);

#endif /* SDDS_BENCH_ICEORYX_H */
