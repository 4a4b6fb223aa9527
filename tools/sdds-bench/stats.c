/* SPDX-License-Identifier: MIT */
/*
 * stats.c - order statistics of per-iteration latencies (see stats.h).
 *
 * OVERVIEW
 * Sorting is qsort on uint64_t: 100k values sort in a few milliseconds,
 * after the measurement, so no histogram approximation is needed.
 */
#include "stats.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

static int stats_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a;
	uint64_t y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

uint64_t stats_rank(const uint64_t *sorted, size_t n, double q)
{
	double r = ceil(q * (double)n);
	size_t idx;

	/* ceil(q * n) is the 1-based rank; clamp for q rounding at both ends. */
	if (r < 1.0)
		r = 1.0;
	idx = (size_t)r - 1;
	if (idx >= n)
		idx = n - 1;
	return sorted[idx];
}

int stats_compute(uint64_t *v, size_t n, double scale, struct stats *ret)
{
	long double sum = 0;

	if (n == 0)
		return -EINVAL;
	qsort(v, n, sizeof(v[0]), stats_cmp_u64);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	ret->n = n;
	ret->min = scale * (double)v[0];
	ret->median = scale * (double)stats_rank(v, n, 0.5);
	ret->p99 = scale * (double)stats_rank(v, n, 0.99);
	ret->p999 = scale * (double)stats_rank(v, n, 0.999);
	ret->max = scale * (double)v[n - 1];
	ret->mean = scale * (double)(sum / n);
	return 0;
}

int stats_dump(const char *path, const uint64_t *v, size_t n, double scale)
{
	FILE *f = fopen(path, "we");
	int err = 0;

	if (!f)
		return -errno;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.1f\n", scale * (double)v[i]);
	if (ferror(f))
		err = -EIO;
	if (fclose(f) != 0 && err == 0)
		err = -errno;
	return err;
}
