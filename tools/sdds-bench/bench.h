/* SPDX-License-Identifier: MIT */
/*
 * bench.h - options, result records and command-line parsing shared by the
 * parts of sdds-bench.
 *
 * OVERVIEW
 * sdds-bench prints figures; it is never a timed test. Each subcommand
 * parses its command line into struct bench_opts (bench_cli_parse), runs
 * its benchmarks and prints the filled result records as JSON. A run that
 * failed keeps ok == false and a reason in `why`, and no figure of it is
 * printed. Latencies are one-way figures in nanoseconds: every measured
 * iteration is a round trip, and one-way = RTT / 2.
 */
#ifndef SDDS_BENCH_BENCH_H
#define SDDS_BENCH_BENCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stats.h"

#define BENCH_WHY_MAX 256
#define BENCH_MAX_SIZE 4096u
#define BENCH_MAX_TAKE_BATCH 64u
/* Not pinned. */
#define BENCH_CPU_ANY (-1)

/* CPU ids (or BENCH_CPU_ANY) of the three processes of the sddsd path. */
struct bench_placement {
	int daemon_cpu;
	int a_cpu; /* ping side; writer in the throughput run */
	int b_cpu; /* pong side; reader in the throughput run */
};

struct bench_opts {
	uint32_t size;
	uint64_t iterations; /* measured round trips per latency run */
	uint64_t warmup;     /* unmeasured round trips before them (cut at max_seconds / 4) */
	double max_seconds;  /* cap on the measured part of one latency run */
	double tput_seconds;
	uint64_t tput_count; /* 0, or the writer stops after this many samples (callgrind.c) */
	uint32_t depth;	     /* reader history depth in the throughput run */
	uint32_t take_many;  /* > 1: an extra throughput run per mode taking that many per call */
	uint32_t take_batch; /* > 1: this run's reader takes with sdds_reader_take_many */
	bool reliable;
	bool pin;
	bool pin_sweep; /* --pin without a value: try several placements */
	struct bench_placement pin_spec;
	int64_t poll_spin_ns;  /* client spin budget in polling mode */
	int64_t poll_yield_ns; /* polling clients yield after this much pure spin; -1: never */
	const char *sddsd_path;
	const char *raw_prefix; /* NULL, or write per-iteration values to PREFIX-<run>.txt */
};

/* One latency run. */
struct lat_result {
	bool ran;
	bool ok;
	char why[BENCH_WHY_MAX];
	uint64_t requested;
	uint64_t done;
	uint64_t lost;	 /* pings never answered (a lossy wire: sdds-bench net) */
	bool capped;	 /* --max-seconds stopped it before `requested` */
	struct stats st; /* one-way, ns */
};

/* Measured in full: a capped run's median is that of its easy part. */
static inline bool bench_lat_full(const struct lat_result *l)
{
	return l->ok && !l->capped;
}

/* One throughput run. */
struct tput_result {
	bool ran;
	bool ok;
	char why[BENCH_WHY_MAX];
	uint64_t written;
	uint64_t received;
	uint64_t lost;	    /* best effort */
	double seconds;	    /* reader: first to last counted sample */
	double rate;	    /* samples/s at the reader */
	double writer_rate; /* samples/s at the writer */
};

/*
 * CLOCK_MONOTONIC in ns. Through the vDSO a read costs some 20 ns on a
 * kvm-clock guest, so the latency loops read it once per iteration.
 */
int64_t bench_now_ns(void);

/* snprintf into a result's why (BENCH_WHY_MAX bytes), truncating silently. */
void bench_why(char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The option parsers: the whole of s (borrowed), in [min, max]. 0 with
 * *ret, or -EINVAL with *ret untouched. bench_parse_u64 takes strtoull's
 * base but no sign. bench_parse_cpus reads n comma-separated CPU ids
 * (0..1023, or "-" / "any" for BENCH_CPU_ANY) into cpus[0..n).
 */
int bench_parse_u64(const char *s, int base, uint64_t min, uint64_t max, uint64_t *ret);
int bench_parse_double(const char *s, double min, double max, double *ret);
int bench_parse_cpus(const char *s, int n, int *cpus);

/*
 * Waits, polling every millisecond, until *flag is set (acquire): 0, or
 * -ECANCELED when *abort (NULL: none) is set first, -ETIMEDOUT after
 * timeout_ns.
 */
int bench_wait_flag(_Atomic uint32_t *flag, _Atomic uint32_t *abort, int64_t timeout_ns);

/* The options every subcommand spells alike; the values go into struct bench_opts. */
enum {
	BENCH_OPT_ITERATIONS = 1 << 0,	 /* -n, --iterations N */
	BENCH_OPT_WARMUP = 1 << 1,	 /* --warmup N */
	BENCH_OPT_SIZE = 1 << 2,	 /* -s, --size N (1..max_size) */
	BENCH_OPT_MAX_SECONDS = 1 << 3,	 /* --max-seconds S */
	BENCH_OPT_TPUT_SECONDS = 1 << 4, /* -t, --tput-seconds S */
	BENCH_OPT_SDDSD = 1 << 5,	 /* --sddsd PATH */
	BENCH_OPT_RAW = 1 << 6,		 /* --raw PREFIX */
	BENCH_OPT_JSON = 1 << 7,	 /* --json: the JSON, not report.py's table (main.c) */
};

/* First getopt value free for a subcommand's own long options. */
#define BENCH_OPT_OWN 300

struct option;
/* One subcommand's command line; everything is the caller's (static). */
struct bench_cli {
	const char *prog;	  /* names the subcommand in the bad-value message */
	unsigned common;	  /* BENCH_OPT_* it takes */
	uint32_t max_size;	  /* -s */
	uint64_t max_iterations;  /* -n and --warmup */
	const struct option *own; /* its own options, {NULL}-terminated */
	/* Its own option c with arg (NULL: none) into ctx: 0 or -EINVAL. */
	int (*parse)(void *ctx, int c, const char *arg);
	void (*usage)(FILE *f);
};

/*
 * Parses argv into o (defaults already in it) and the subcommand's own
 * options through cli->parse into ctx. Returns 0, 1 for --help (usage on
 * stdout) or -EINVAL (message or usage on stderr).
 */
int bench_cli_parse(const struct bench_cli *cli, int argc, char **argv, struct bench_opts *o, void *ctx);

#endif /* SDDS_BENCH_BENCH_H */
