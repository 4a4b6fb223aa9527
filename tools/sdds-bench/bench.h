/* SPDX-License-Identifier: MIT */
/*
 * bench.h - options and result records shared by the parts of sdds-bench.
 *
 * OVERVIEW
 * sdds-bench is a program that prints figures; it is never a timed test.
 * main.c parses the command line into struct bench_opts, runs the baselines
 * (baseline.c), the path through sddsd (local.c, with sddsd.c starting the
 * daemon) and monolithic mode, and hands the filled result records to
 * report.c. A run that failed keeps ok == false and a reason in `why`; no
 * figure and no ratio is ever printed for it.
 *
 * Latency results are one-way figures in nanoseconds: every measured
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
/* The largest --take-many batch. */
#define BENCH_MAX_TAKE_BATCH 64u
/* Not pinned. */
#define BENCH_CPU_ANY (-1)

/* Where the three processes of the sddsd path run (CPU ids, or BENCH_CPU_ANY). */
struct bench_placement {
	int daemon_cpu;
	int a_cpu; /* ping side; writer in the throughput run */
	int b_cpu; /* pong side; reader in the throughput run */
};

struct bench_opts {
	uint32_t size;	     /* sample bytes */
	uint64_t iterations; /* measured round trips per latency run */
	uint64_t warmup;     /* unmeasured round trips before them (cut at max_seconds / 4) */
	double max_seconds;  /* cap on the measured part of one latency run */
	double tput_seconds; /* length of one throughput run */
	uint64_t tput_count; /* 0, or the writer stops after this many samples (callgrind.c) */
	uint32_t depth;	     /* reader history depth in the throughput run */
	uint32_t take_many;  /* > 1: an extra throughput run per mode taking that many per call */
	uint32_t take_batch; /* the reader of a run: > 1 takes with sdds_reader_take_many (local.c) */
	bool reliable;	     /* QoS of every writer and reader */
	bool json;
	bool pin;			 /* pin anything at all */
	bool pin_sweep;			 /* try every placement of pin_list */
	struct bench_placement pin_spec; /* the placement when pin && !pin_sweep */
	int64_t poll_spin_ns;		 /* client spin budget in polling mode */
	int64_t poll_yield_ns;		 /* polling clients yield after this much pure spin; -1: never */
	const char *sddsd_path;		 /* the daemon binary */
	const char *raw_prefix;		 /* NULL, or write per-iteration values to PREFIX-<run>.txt */
};

/* One latency run (a baseline or a path through sddsd). */
struct lat_result {
	bool ran; /* attempted at all */
	bool ok;
	char why[BENCH_WHY_MAX];
	uint64_t requested; /* iterations asked for */
	uint64_t done;	    /* iterations measured */
	uint64_t lost;	    /* pings never answered (a lossy wire: sdds-bench net) */
	bool capped;	    /* the --max-seconds cap stopped it before `requested` (why says so) */
	struct stats st;    /* one-way, ns */
};

/*
 * Measured in full: it ran, and neither the time cap nor a failure cut it
 * short. A ratio or a goal is computed only from figures measured in full
 * (a capped run's median is of the easy part of it).
 */
static inline bool bench_lat_full(const struct lat_result *l)
{
	return l->ok && !l->capped && l->done >= l->requested;
}

/* One throughput run. */
struct tput_result {
	bool ran;
	bool ok;
	char why[BENCH_WHY_MAX];
	uint64_t written;   /* samples the writer wrote */
	uint64_t received;  /* samples the reader took */
	uint64_t lost;	    /* samples the reader lost (best effort) */
	double seconds;	    /* reader: first to last counted sample */
	double rate;	    /* samples/s at the reader */
	double writer_rate; /* samples/s at the writer */
};

/* The sddsd path in one daemon mode and one placement. */
struct mode_result {
	struct bench_placement pl;
	struct lat_result lat;
	struct tput_result tput;
	struct tput_result tput_many; /* --take-many: the reader takes in batches (sdds_reader_take_many) */
	char daemon_note[BENCH_WHY_MAX]; /* the daemon misbehaved at stop; figures kept */
};

#define BENCH_MAX_PLACEMENTS 8

struct bench_results {
	int n_cpus;			/* CPUs this process may run on */
	const char *sddsd_path;		/* resolved daemon binary, or NULL */
	double load_start, load_end;	/* 1-minute load average before and after; < 0 unknown */
	struct bench_placement base_pl; /* where the baselines ran (daemon_cpu unused) */
	struct lat_result spin;
	struct lat_result futex;
	struct lat_result futex_same; /* only when pinning: both on one CPU */
	/*
	 * Both sides yield-spinning on one CPU, floor_cpu (the polling clients'
	 * CPU): the context switch that polling on two CPUs pays per hop.
	 */
	struct lat_result yield_same;
	int floor_cpu;
	int n_placements;
	struct mode_result polling[BENCH_MAX_PLACEMENTS];
	struct mode_result blocking[BENCH_MAX_PLACEMENTS];
	int best_polling; /* index of the lowest median that ran, or -1 */
	int best_blocking;
	struct tput_result mono_spin;  /* monolithic, clients spinning */
	struct tput_result mono_sleep; /* monolithic, spin budget 0 */
};

/* Goals printed next to the figures (PERF.md, on this machine kind). */
#define BENCH_GOAL_POLLING_US 0.6
#define BENCH_GOAL_BLOCKING_HOPS 2.1
#define BENCH_GOAL_TPUT 10e6

/* Monotonic clock in nanoseconds. */
int64_t bench_now_ns(void);

/*
 * Finish a latency run: dump the n round trips in rtt (owned by the caller,
 * sorted in place here) when o->raw_prefix is set, to PREFIX-<name>.txt as
 * one-way values, then fill ret->st with one-way statistics and ret->ok.
 * n == 0 leaves ret->ok false with a reason.
 */
void bench_lat_finish(const struct bench_opts *o, const char *name, uint64_t *rtt, uint64_t n,
		      struct lat_result *ret);

/* snprintf into a result's why; returns nothing, truncates silently. */
void bench_why(char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The whole of s (borrowed) as an unsigned number in strtoull's base
 * (0: 0x.. hex and 0.. octal too), in [min, max]; no sign. 0 with *ret,
 * or -EINVAL (*ret untouched). The option values of every subcommand.
 */
int bench_parse_u64(const char *s, int base, uint64_t min, uint64_t max, uint64_t *ret);

/*
 * s (borrowed) as n comma-separated CPU ids (0..1023), each "-" or "any"
 * for BENCH_CPU_ANY: the --pin and --cpus values. 0 with cpus[0..n), or
 * -EINVAL (cpus untouched).
 */
int bench_parse_cpus(const char *s, int n, int *cpus);

/* The whole of s (borrowed) as a number in [min, max]: 0 with *ret, or -EINVAL. */
int bench_parse_double(const char *s, double min, double max, double *ret);

/*
 * Waits until *flag is set (acquire), polling every millisecond: 0, or
 * -ECANCELED when *abort (NULL: none) is set first, -ETIMEDOUT after
 * timeout_ns. The start signals between the roles of a run.
 */
int bench_wait_flag(_Atomic uint32_t *flag, _Atomic uint32_t *abort, int64_t timeout_ns);

/*
 * The options every subcommand spells alike, one bit each in
 * bench_cli.common; the values go into struct bench_opts.
 */
enum {
	BENCH_OPT_ITERATIONS = 1 << 0,	 /* -n, --iterations N */
	BENCH_OPT_WARMUP = 1 << 1,	 /* --warmup N */
	BENCH_OPT_SIZE = 1 << 2,	 /* -s, --size N (1..max_size) */
	BENCH_OPT_MAX_SECONDS = 1 << 3,	 /* --max-seconds S */
	BENCH_OPT_TPUT_SECONDS = 1 << 4, /* -t, --tput-seconds S */
	BENCH_OPT_SDDSD = 1 << 5,	 /* --sddsd PATH */
	BENCH_OPT_RAW = 1 << 6,		 /* --raw PREFIX */
	BENCH_OPT_JSON = 1 << 7,	 /* --json */
};

/* First getopt value free for a subcommand's own long options. */
#define BENCH_OPT_OWN 300

struct option;
/* One subcommand's command line; everything is the caller's (static). */
struct bench_cli {
	const char *prog;	  /* names the subcommand in the bad-value message */
	const char *verb;	  /* NULL, or the one operand there must be ("local") */
	unsigned common;	  /* BENCH_OPT_* it takes */
	uint32_t max_size;	  /* -s */
	uint64_t max_iterations;  /* -n and --warmup */
	const struct option *own; /* its own options, {NULL}-terminated, or NULL */
	/* Its own option c with arg (NULL: none) into ctx: 0 or -EINVAL. */
	int (*parse)(void *ctx, int c, const char *arg);
	void (*usage)(FILE *f);
};

/*
 * Parses argv into o (defaults already in it) and, for the subcommand's own
 * options, through cli->parse into ctx. Returns 0, 1 for --help (usage
 * printed to stdout) or -EINVAL (message or usage printed to stderr).
 */
int bench_cli_parse(const struct bench_cli *cli, int argc, char **argv, struct bench_opts *o, void *ctx);

#endif /* SDDS_BENCH_BENCH_H */
