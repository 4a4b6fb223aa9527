/* SPDX-License-Identifier: MIT */
/* stats.c - order statistics of per-iteration latencies (see stats.h). */
#include "stats.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

static int stats_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The nearest-rank percentile q (< 1) of sorted[0..n), n > 0: rank ceil(q * n), 1-based. */
static double stats_rank(const uint64_t *sorted, size_t n, double q)
{
	return (double)sorted[(size_t)ceil(q * (double)n) - 1];
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
	ret->median = scale * stats_rank(v, n, 0.5);
	ret->p99 = scale * stats_rank(v, n, 0.99);
	ret->p999 = scale * stats_rank(v, n, 0.999);
	ret->max = scale * (double)v[n - 1];
	ret->mean = scale * (double)(sum / n);
	return 0;
}

int stats_dump(const char *path, const uint64_t *v, size_t n, double scale)
{
	FILE *f = fopen(path, "we");
	int err;

	if (!f)
		return -errno;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.1f\n", scale * (double)v[i]);
	err = ferror(f) ? -EIO : 0;
	if (fclose(f) != 0 && err == 0)
		err = -errno;
	return err;
}
