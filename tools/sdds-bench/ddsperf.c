/* SPDX-License-Identifier: MIT */
/*
 * ddsperf.c - ddsperf's summary lines (see ddsperf.h).
 *
 * OVERVIEW
 * At most DDSPERF_MAX_LINES summaries are kept (one a second: more than
 * eight minutes of ddsperf), the rest ignored. Parsing starts at " size "
 * or " delta ", so the host:pid field before it may be anything.
 */
#include "ddsperf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int ddsperf_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of v[0..n-1] (n > 0), sorting v in place. */
static double ddsperf_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), ddsperf_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int ddsperf_parse_lat(FILE *f, struct ddsperf_lat *ret)
{
	static double p50[DDSPERF_MAX_LINES], p99[DDSPERF_MAX_LINES], mx[DDSPERF_MAX_LINES],
	    cnt[DDSPERF_MAX_LINES];
	struct ddsperf_lat r = {0};
	char line[1024];
	int n = 0, first;

	while (fgets(line, sizeof(line), f) != NULL) {
		const char *p = strstr(line, " size ");
		unsigned size;
		double mean, mn, a, b90, c, d, k;

		if (n == DDSPERF_MAX_LINES || p == NULL || strstr(p, " mean ") == NULL)
			continue;
		if (sscanf(p,
			   " size %u mean %lfus min %lfus 50%% %lfus 90%% %lfus 99%% %lfus max %lfus cnt %lf",
			   &size, &mean, &mn, &a, &b90, &c, &d, &k) != 8)
			continue;
		p50[n] = a;
		p99[n] = c;
		mx[n] = d;
		cnt[n] = k;
		n++;
	}
	if (n == 0)
		return -ENODATA;
	first = n >= 3 ? 1 : 0;
	for (int i = first; i < n; i++) {
		r.max_us = fmax(r.max_us, mx[i]);
		r.count += cnt[i];
	}
	r.seconds = n - first;
	r.first_dropped = first == 1;
	r.p50_us = ddsperf_median(p50 + first, n - first);
	r.p99_us = ddsperf_median(p99 + first, n - first);
	*ret = r;
	return 0;
}

int ddsperf_parse_tput(FILE *f, struct ddsperf_tput *ret)
{
	static double ts[DDSPERF_MAX_LINES], dl[DDSPERF_MAX_LINES];
	struct ddsperf_tput r = {0};
	double prev, secs = 0;
	char line[1024];
	int n = 0, lo = -1, hi = -1;

	while (fgets(line, sizeof(line), f) != NULL) {
		const char *p = strstr(line, " delta ");
		double t, d;

		if (n == DDSPERF_MAX_LINES || p == NULL || strstr(line, " total ") == NULL)
			continue;
		if (sscanf(line, "[%*d] %lf", &t) != 1 || sscanf(p, " delta %lf", &d) != 1)
			continue;
		ts[n] = t;
		dl[n] = d;
		n++;
	}
	for (int i = 0; i < n; i++) {
		if (dl[i] > 0) {
			if (lo < 0)
				lo = i;
			hi = i;
		}
	}
	if (lo < 0 || hi - lo < 2)
		return -ENODATA;
	/* Interval i runs from ts[i-1] to ts[i]; the first one used is lo + 1. */
	prev = ts[lo];
	for (int i = lo + 1; i < hi; i++) {
		r.samples += dl[i];
		secs += ts[i] - prev;
		prev = ts[i];
	}
	if (!(secs > 0))
		return -ENODATA;
	r.rate = r.samples / secs;
	r.intervals = hi - lo - 1;
	*ret = r;
	return 0;
}
