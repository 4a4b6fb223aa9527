/* SPDX-License-Identifier: MIT */
/*
 * net.h - `sdds-bench net`: the network path of sddsd against raw UDPv6.
 *
 * OVERVIEW
 * Two network namespaces joined by a veth pair (link-local fe80::a and
 * fe80::b, DAD off), one sddsd in each with a node config whose static
 * subscriptions send topic `ping` (domain 2, id A) from A to B and `pong`
 * (id B) from B to A. In one run, on one payload size:
 *   1. one-way latency (ping-pong RTT / 2) of a sample from a client in A
 *      through daemon A, UDPv6, daemon B to a client in B and back;
 *   2. the same between two processes with plain UDPv6 sockets on the same
 *      veth pair (the baseline) and the ratio;
 *   3. throughput: a client in A streams `ping` as fast as it can, a client
 *      in B counts what arrives (samples/s); the baseline is sendmmsg of
 *      one datagram per sample between the same namespaces (frames/s
 *      counted by a recvmmsg receiver), and the ratio;
 *   4. Cyclone DDS ddsperf ping/pong between the same namespaces with the
 *      same payload, when ddsperf is installed (its own output, quoted).
 * It prints the figures as JSON only; report.py makes the tables and ratios.
 *
 * Needs root (namespaces, veth); otherwise it says so and exits with
 * NET_EXIT_CANNOT (77, the skip code of the tests). The namespaces, the veth
 * pair, the daemons and the files are removed at the end, also on SIGINT or
 * SIGTERM. Every measured party is a forked child that enters its
 * namespace with setns(); the main process holds no client. A monolithic
 * side's child then execs sdds-bench-mono (libsddsmono, mono.h), which
 * keeps the namespace.
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
 * In sdds-bench-mono: a monolithic side's part (ping, pong, writer or
 * reader) that net_main's forked child handed over, already in its
 * namespace. Returns the part's exit code.
 */
int net_mono_role(struct mono_call *m);

#endif /* SDDS_BENCH_NET_H */
