/* SPDX-License-Identifier: MIT */
/*
 * local.h - `sdds-bench local`, and the clients of the local path that
 * scale.c, net.c and callgrind.c share.
 *
 * OVERVIEW
 * Latency: clients A and B of one daemon; A writes topic "bench_ping", B
 * takes it and writes the same bytes on "bench_pong", A takes that: one
 * round trip, one-way = RTT / 2. Throughput: a writer process streams
 * samples to a reader process; the figure is samples per second taken by
 * the reader. Monolithic: the same loops as two threads of one process
 * linked with libsddsmono (the broker in-process), sdds-bench-mono (mono.h).
 * Polling runs give the clients o->poll_spin_ns (very large: they never
 * sleep), blocking runs 0, so every wait sleeps on the futex.
 */
#ifndef SDDS_BENCH_LOCAL_H
#define SDDS_BENCH_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include <sdds/sdds.h>

#include "bench.h"

/* Into *d, f[2] (the caller's): a topic of `size` bytes in domain 0, a 16-bit seq number, a string. */
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
 * *ret_what naming the step that failed ("connect", "topics", "endpoints").
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

/*
 * Writer process (on pl->a_cpu) to reader process (pl->b_cpu) through the
 * daemon on sock; sock NULL: writer and reader threads of one monolithic
 * process. polling chooses the clients' spin budget. Fills *ret.
 */
void local_throughput(const struct bench_opts *o, const char *sock, bool polling,
		      const struct bench_placement *pl, struct tput_result *ret);

/* `sdds-bench local` (argv[0] is "local"): the figures as one JSON object; the exit status. */
int local_main(int argc, char **argv);

/* The role name of the monolithic run in sdds-bench-mono. */
#define LOCAL_MONO_ROLE "local"

struct mono_call;
/* In sdds-bench-mono: the monolithic run handed over in m. Returns the role's exit code. */
int local_mono_role(struct mono_call *m);

#endif /* SDDS_BENCH_LOCAL_H */
