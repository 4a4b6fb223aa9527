/* SPDX-License-Identifier: MIT */
/*
 * net.h - `sdds-bench net`: the network path of sddsd against raw UDPv6.
 *
 * OVERVIEW
 * Two network namespaces joined by a veth pair (netns_rig.h), one sddsd in
 * each. It measures the one-way latency (ping-pong, RTT/2) through both
 * daemons and of raw UDPv6 sockets, the throughput of one streaming writer
 * (samples/s, and the frames daemon B counted) and of raw sendmmsg and GSO,
 * optionally the monolithic path, and Cyclone DDS ddsperf when installed.
 * It prints JSON only, with the two leg ratios; report.py makes the tables
 * and every other ratio. Needs root, else exits 77 (the tests' skip code).
 * The rig is removed at the end, also on SIGINT or SIGTERM.
 */
#ifndef SDDS_BENCH_NET_H
#define SDDS_BENCH_NET_H

/* `sdds-bench net [options]`: argv[0] is "net". Returns the exit status. */
int net_main(int argc, char **argv);

/* The role name of the monolithic sides' processes in sdds-bench-mono. */
#define NET_MONO_ROLE "net"

struct mono_call;
/* In sdds-bench-mono: a monolithic side's part, handed over by net_main's child in its namespace. */
int net_mono_role(struct mono_call *m);

#endif /* SDDS_BENCH_NET_H */
