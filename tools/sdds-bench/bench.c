/* SPDX-License-Identifier: MIT */
/*
 * bench.c - the two helpers every part of sdds-bench uses (see bench.h).
 *
 * OVERVIEW
 * CLOCK_MONOTONIC through the vDSO: one read costs some 20 ns on a
 * kvm-clock guest, which is why the latency loops read it once per
 * iteration (see baseline.c).
 */
#include "bench.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void bench_why(char *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, BENCH_WHY_MAX, fmt, ap);
	va_end(ap);
}

int bench_parse_u64(const char *s, int base, uint64_t min, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	/* strtoull takes "-1" as ULLONG_MAX: a sign is refused before it sees it. */
	errno = 0;
	if (*s == '-')
		return -EINVAL;
	v = strtoull(s, &end, base);
	if (errno || end == s || *end || v < min || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

int bench_parse_cpus(const char *s, int n, int *cpus)
{
	int v[8];

	if (n < 1 || n > 8)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		const char *c = strchr(s, ',');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		char buf[16];
		uint64_t u;

		/* Exactly n fields. */
		if ((i < n - 1) != (c != NULL) || len == 0 || len >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (strcmp(buf, "-") == 0 || strcmp(buf, "any") == 0)
			v[i] = BENCH_CPU_ANY;
		else if (bench_parse_u64(buf, 0, 0, 1023, &u) == 0)
			v[i] = (int)u;
		else
			return -EINVAL;
		s += len + (c != NULL);
	}
	memcpy(cpus, v, (size_t)n * sizeof(*cpus));
	return 0;
}

int bench_parse_double(const char *s, double min, double max, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	/* The negated test also refuses NaN. */
	if (errno || end == s || *end || !(v >= min && v <= max))
		return -EINVAL;
	*ret = v;
	return 0;
}

void bench_lat_finish(const struct bench_opts *o, const char *name, uint64_t *rtt, uint64_t n,
		      struct lat_result *ret)
{
	if (n == 0) {
		ret->ok = false;
		bench_why(ret->why, "no iteration completed");
		return;
	}
	if (o->raw_prefix) {
		char path[PATH_MAX];
		int err;

		snprintf(path, sizeof(path), "%s-%s.txt", o->raw_prefix, name);
		err = stats_dump(path, rtt, n, 0.5);
		if (err < 0)
			fprintf(stderr, "sdds-bench: cannot write %s: %s (figures are kept)\n", path,
				strerror(-err));
	}
	stats_compute(rtt, n, 0.5, &ret->st);
	ret->ok = true;
}
