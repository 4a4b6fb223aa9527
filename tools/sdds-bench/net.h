/* SPDX-License-Identifier: MIT */
/*
 * net.h - `sdds-bench net`: the network path of sddsd against raw UDPv6.
 *
 * OVERVIEW
 * Two network namespaces joined by a veth pair (netns_rig.h), one sddsd in
 * each, whose static subscriptions send topic `ping` from A to B and `pong`
 * from B to A. On one payload size it measures the one-way latency
 * (ping-pong, RTT/2) of clients through both daemons and of raw UDPv6
 * sockets, the throughput of one streaming writer (samples/s, and the
 * frames daemon B counted) and of raw sendmmsg and GSO, optionally the
 * monolithic path, and runs Cyclone DDS ddsperf ping/pong when it is
 * installed. It prints the figures as JSON only; report.py makes the tables
 * and the ratios.
 *
 * Needs root; otherwise it exits with NET_EXIT_CANNOT (77, the skip code of
 * the tests). The rig is removed at the end, also on SIGINT or SIGTERM.
 */
#ifndef SDDS_BENCH_NET_H
#define SDDS_BENCH_NET_H

#define NET_EXIT_CANNOT 77

/* `sdds-bench net [options]`: argv[0] is "net". Returns the exit status. */
int net_main(int argc, char **argv);

/* The role name of the monolithic sides' processes in sdds-bench-mono. */
#define NET_MONO_ROLE "net"

struct mono_call;
/*
 * In sdds-bench-mono: the part of a monolithic side that net_main's forked
 * child handed over, already in its namespace. Returns its exit code.
 */
int net_mono_role(struct mono_call *m);

#endif /* SDDS_BENCH_NET_H */
