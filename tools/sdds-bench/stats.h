/* SPDX-License-Identifier: MIT */
/*
 * stats.h - order statistics of per-iteration latencies.
 *
 * OVERVIEW
 * A run records one value per iteration (a round-trip time in ns). The
 * statistics are those of the values times a scale (0.5 turns a round trip
 * into a one-way figure). Percentiles are nearest-rank, the value at rank
 * ceil(q * n), so p99.9 of fewer than 1000 values is the maximum, never an
 * interpolation between two samples. Sorting 100k values after the
 * measurement takes milliseconds, so no histogram approximates them.
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
 * Sorts v[0..n) in place (the caller's) and writes the statistics of
 * scale * v to *ret. 0, or -EINVAL when n == 0.
 */
int stats_compute(uint64_t *v, size_t n, double scale, struct stats *ret);

/*
 * Writes scale * v[i], one per line in array order, to the file at path
 * (created or truncated); call it before stats_compute sorts v. 0 or -errno.
 */
int stats_dump(const char *path, const uint64_t *v, size_t n, double scale);

#endif /* SDDS_BENCH_STATS_H */
