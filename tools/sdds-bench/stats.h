/* SPDX-License-Identifier: MIT */
/*
 * stats.h - order statistics of per-iteration latencies.
 *
 * OVERVIEW
 * A run records one unsigned value per iteration (a round-trip time in ns).
 * stats_compute sorts the caller's array in place and reports min, median,
 * p99, p99.9, max and mean, each multiplied by a scale (0.5 turns a
 * round trip into a one-way figure). Percentiles use the nearest-rank
 * definition: the value at rank ceil(q * n), so p99.9 of fewer than 1000
 * values is the maximum, never an interpolation between two samples.
 */
#ifndef SDDS_BENCH_STATS_H
#define SDDS_BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

struct stats {
	uint64_t n;
	double min;
	double median;
	double p99;
	double p999;
	double max;
	double mean;
};

/*
 * Sort v[0..n) in place (the caller owns v and keeps it) and write the
 * statistics of scale * v to *ret. Returns 0, or -EINVAL when n == 0.
 */
int stats_compute(uint64_t *v, size_t n, double scale, struct stats *ret);

/*
 * Write scale * v[i], one value per line in array order, to the file at
 * path (created or truncated). Call before stats_compute sorts v.
 * Returns 0 or -errno.
 */
int stats_dump(const char *path, const uint64_t *v, size_t n, double scale);

/* Nearest-rank percentile of a sorted array: q in (0, 1]; n > 0. */
uint64_t stats_rank(const uint64_t *sorted, size_t n, double q);

#endif /* SDDS_BENCH_STATS_H */
