/* SPDX-License-Identifier: MIT */
/* bench.c - the clock, reasons and command-line parsing of sdds-bench (see bench.h). */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	char buf[64], *rest = buf, *f;
	int v[8], i = 0;
	uint64_t u;

	if (n > 8 || snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return -EINVAL;
	while (i < n && (f = strsep(&rest, ",")) != NULL) {
		if (strcmp(f, "-") == 0 || strcmp(f, "any") == 0)
			v[i++] = BENCH_CPU_ANY;
		else if (bench_parse_u64(f, 0, 0, 1023, &u) == 0)
			v[i++] = (int)u;
		else
			return -EINVAL;
	}
	/* Exactly n fields: none missing, none left. */
	if (i < n || rest != NULL)
		return -EINVAL;
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

int bench_wait_flag(_Atomic uint32_t *flag, _Atomic uint32_t *abort, int64_t timeout_ns)
{
	int64_t deadline = bench_now_ns() + timeout_ns;

	while (!atomic_load_explicit(flag, memory_order_acquire)) {
		if (abort && atomic_load_explicit(abort, memory_order_relaxed))
			return -ECANCELED;
		if (bench_now_ns() > deadline)
			return -ETIMEDOUT;
		usleep(1000);
	}
	return 0;
}

/* A count: an unsigned number in strtoull's base 0, or a whole one in strtod's syntax ("1e5"). */
static int bench_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	double v;

	if (bench_parse_u64(s, 0, min, max, ret) == 0)
		return 0;
	if (bench_parse_double(s, (double)min, (double)max, &v) < 0 || v != (double)(uint64_t)v)
		return -EINVAL;
	*ret = (uint64_t)v;
	return 0;
}

/* The common options: their long names, getopt values and bits. */
static const struct option bench_common[] = {
    {"iterations", required_argument, NULL, 'n'},   {"warmup", required_argument, NULL, 256},
    {"size", required_argument, NULL, 's'},	    {"max-seconds", required_argument, NULL, 257},
    {"tput-seconds", required_argument, NULL, 't'}, {"sddsd", required_argument, NULL, 258},
    {"raw", required_argument, NULL, 259},	    {"json", no_argument, NULL, 260},
};

static int bench_common_parse(const struct bench_cli *cli, int c, const char *arg, struct bench_opts *o)
{
	uint64_t v;
	int err;

	switch (c) {
	case 'n':
		return bench_parse_count(arg, 1, cli->max_iterations, &o->iterations);
	case 256:
		return bench_parse_count(arg, 0, cli->max_iterations, &o->warmup);
	case 's':
		err = bench_parse_count(arg, 1, cli->max_size, &v);
		if (err == 0)
			o->size = (uint32_t)v;
		return err;
	case 257:
		return bench_parse_double(arg, 0.1, 86400, &o->max_seconds);
	case 't':
		return bench_parse_double(arg, 0.05, 3600, &o->tput_seconds);
	case 258:
		o->sddsd_path = arg;
		return 0;
	case 259:
		o->raw_prefix = arg;
		return 0;
	default:
		/* --json: JSON is the only output; main.c pipes it to report.py without it. */
		return 0;
	}
}

int bench_cli_parse(const struct bench_cli *cli, int argc, char **argv, struct bench_opts *o, void *ctx)
{
	struct option longopts[32];
	char shortopts[32] = "h";
	size_t n = 0, ns = 1;
	int c;

	for (size_t i = 0; i < sizeof(bench_common) / sizeof(bench_common[0]); i++)
		if (cli->common & (1u << i))
			longopts[n++] = bench_common[i];
	for (size_t i = 0; cli->own[i].name && n < 30; i++)
		longopts[n++] = cli->own[i];
	longopts[n++] = (struct option){"help", no_argument, NULL, 'h'};
	longopts[n] = (struct option){NULL, 0, NULL, 0};
	/* Every option with a one-letter value has that short form too. */
	for (size_t i = 0; i < n && ns < sizeof(shortopts) - 3; i++) {
		if (longopts[i].val >= 'a' && longopts[i].val <= 'z' && longopts[i].val != 'h') {
			shortopts[ns++] = (char)longopts[i].val;
			if (longopts[i].has_arg == required_argument)
				shortopts[ns++] = ':';
		}
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		int err;

		if (c == 'h' || c == '?') {
			cli->usage(c == 'h' ? stdout : stderr);
			return c == 'h' ? 1 : -EINVAL;
		}
		if (c == 'n' || c == 's' || c == 't' || (c >= 256 && c < BENCH_OPT_OWN))
			err = bench_common_parse(cli, c, optarg, o);
		else
			err = cli->parse(ctx, c, optarg);
		if (err < 0) {
			const char *name = "?";

			/* The option's long name, however it was spelt (-n 5, --iterations=5). */
			for (size_t i = 0; i < n; i++)
				if (longopts[i].val == c)
					name = longopts[i].name;
			fprintf(stderr, "%s: bad value for --%s: %s\n", cli->prog, name,
				optarg ? optarg : "");
			return -EINVAL;
		}
	}
	if (optind != argc) {
		cli->usage(stderr);
		return -EINVAL;
	}
	return 0;
}
