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
 * process linked with libsddsmono (the broker core in-process): the
 * forked child execs sdds-bench-mono, which runs local_mono_role (mono.h).
 *
 * Client spin budget: polling runs give the clients o->poll_spin_ns (very
 * large: they never sleep), blocking runs give them 0, so every wait sleeps
 * on the futex. The daemon's mode (--poll or not) is the caller's business.
 * Processes are forked from the (single-threaded) caller; no client exists
 * in the caller, and none in sdds-bench is monolithic.
 */
#ifndef SDDS_BENCH_LOCAL_H
#define SDDS_BENCH_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include <sdds/sdds.h>

#include "bench.h"

/*
 * A topic of `size` bytes in domain 0 laid out as a real sample would be: a
 * 16-bit sequence number first, the rest an octet string (K + 1 bytes on
 * the wire). The benchmarks' topics through a local daemon (scale.c too).
 */
int local_topic_new(sdds_client *c, uint16_t id, const char *name, uint32_t size, sdds_topic **ret);

/* The description local_topic_new registers: in *d, its fields in f[2] (the caller's). */
void local_topic_desc(uint16_t id, const char *name, uint32_t size, sdds_field *f, sdds_topic_desc *d);

/* The handles of one client of a benchmark; local_side_close frees whatever is set. */
struct local_side {
	sdds_client *client;
	sdds_topic *t_in, *t_out;
	sdds_reader *r;
	sdds_writer *w;
};

#define LOCAL_READER 1u
#define LOCAL_WRITER 2u

/*
 * Connects with co (borrowed), registers topic in and, when not NULL, out;
 * then, as `ends` asks, a reader of in and a writer of out (or of in),
 * both with q. Returns 0 with x filled, or -errno with nothing held and
 * *ret_what naming the step that failed ("connect", "topics",
 * "endpoints"). The client opener of local, scale and net.
 */
int local_side_open(const sdds_client_options *co, const sdds_topic_desc *in, const sdds_topic_desc *out,
		    unsigned ends, const sdds_qos *q, struct local_side *x, const char **ret_what);

/* Frees every handle x holds (a zeroed struct too) and zeroes it. */
void local_side_close(struct local_side *x);

/* The ping-pong harness's transport on a local_side's writer and reader (pingpong.h). */
struct pingpong_ops;
extern const struct pingpong_ops local_pp_ops;

/* Sample i's sequence number (big-endian like the marshalled seq field) and bytes 2..7 of i into p. */
void local_put_counter(uint8_t *p, uint32_t size, uint64_t i);

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

/* The role name of local_monolithic's process in sdds-bench-mono. */
#define LOCAL_MONO_ROLE "local"

struct mono_call;
/*
 * In sdds-bench-mono: the monolithic run local_monolithic handed over
 * (its arguments and shared area in m). Returns the role's exit code.
 */
int local_mono_role(struct mono_call *m);

/* `sdds-bench local` (argv[0] is "local"): the figures as one JSON object; the exit status. */
int local_main(int argc, char **argv);

#endif /* SDDS_BENCH_LOCAL_H */
