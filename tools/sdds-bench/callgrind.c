/* SPDX-License-Identifier: MIT */
/*
 * callgrind.c - `sdds-bench callgrind` (see callgrind.h).
 *
 * OVERVIEW
 * sddsd_start runs a binary with the daemon's arguments; here that binary
 * is a two-line shell script in the run's directory that execs valgrind
 * with the real daemon, its output file taken from the environment
 * (SDDS_BENCH_CG_OUT, set before each start and inherited). The workload
 * is local.c's throughput writer and reader with a fixed count
 * (bench_opts.tput_count), blocking mode (a polling daemon would add
 * instructions per microsecond of wall time, not per sample). Both runs
 * must deliver every sample, else no figure. Exit status 0, 1 (a run
 * failed: JSON with ok false and why), 2 usage.
 */
#include "callgrind.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "json.h"
#include "local.h"
#include "mdrun.h"
#include "sddsd.h"

#define CG_DEFAULT_SAMPLES 50000
#define CG_DEFAULT_BASE 1000
#define CG_DEFAULT_SIZE 2
#define CG_RUN_SECONDS 120.0

struct cg_run {
	uint64_t samples;
	uint64_t ir;
	struct tput_result t;
};

struct cg_result {
	bool ok;
	char why[BENCH_WHY_MAX];
	char valgrind[PATH_MAX];
	char sddsd[PATH_MAX];
	struct cg_run base, full;
	double ir_per_sample;
};

/* The "totals:" (or older "summary:") line of a callgrind output file: 0 and *ret, or -ENOENT. */
static int cg_read_ir(const char *path, uint64_t *ret)
{
	char line[512];
	int rc = -ENOENT;
	FILE *f = fopen(path, "re");

	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long long v;

		if ((sscanf(line, "totals: %llu", &v) == 1) ||
		    (rc != 0 && sscanf(line, "summary: %llu", &v) == 1)) {
			*ret = v;
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/* One run: sddsd under callgrind, exactly `samples` samples writer -> reader, stop, count. */
static int cg_run_one(const char *script, const char *dir, uint32_t size, uint64_t samples, struct cg_run *r,
		      char *why)
{
	struct bench_placement pl = {BENCH_CPU_ANY, BENCH_CPU_ANY, BENCH_CPU_ANY};
	struct bench_opts o = {
	    .size = size,
	    .tput_seconds = CG_RUN_SECONDS,
	    .tput_count = samples,
	    .depth = 1024,
	    .reliable = true,
	    .poll_spin_ns = 0,
	};
	char out[PATH_MAX + 64], stop_why[BENCH_WHY_MAX];
	struct sddsd_proc d;
	int err;

	r->samples = samples;
	snprintf(out, sizeof(out), "%s/callgrind.%" PRIu64 ".out", dir, samples);
	unlink(out);
	if (setenv("SDDS_BENCH_CG_OUT", out, 1) < 0)
		return -errno;
	err = sddsd_start(script, false, BENCH_CPU_ANY, &d, why);
	if (err < 0)
		return err;
	local_throughput(&o, d.sock, false, &pl, &r->t);
	err = sddsd_stop(&d, stop_why);
	if (!r->t.ok) {
		bench_why(why, "%" PRIu64 "-sample run: %s", samples, r->t.why);
		return -EIO;
	}
	if (r->t.written != samples || r->t.received != samples) {
		bench_why(why, "%" PRIu64 "-sample run: %" PRIu64 " written, %" PRIu64 " taken (a 120 s cap)",
			  samples, r->t.written, r->t.received);
		return -EIO;
	}
	if (err < 0) {
		bench_why(why, "%" PRIu64 "-sample run: %s", samples, stop_why);
		return err;
	}
	err = cg_read_ir(out, &r->ir);
	if (err < 0) {
		bench_why(why, "no instruction total in %s", out);
		return err;
	}
	return 0;
}

static void cg_measure(uint32_t size, uint64_t base, uint64_t samples, const char *valgrind_arg,
		       const char *sddsd_arg, struct cg_result *r)
{
	char dir[] = "/tmp/sdds-bench-cg.XXXXXX", script[PATH_MAX];
	FILE *f;

	if (mdrun_which(valgrind_arg, r->valgrind, sizeof(r->valgrind)) < 0) {
		bench_why(r->why, "valgrind not found%s%s (apt-get install valgrind)",
			  strchr(valgrind_arg, '/') ? " at " : "",
			  strchr(valgrind_arg, '/') ? valgrind_arg : "");
		return;
	}
	if (sddsd_find(sddsd_arg, r->sddsd, sizeof(r->sddsd)) < 0) {
		bench_why(r->why, "sddsd not found (give --sddsd PATH)");
		return;
	}
	if (strchr(r->valgrind, '\'') || strchr(r->sddsd, '\'')) {
		bench_why(r->why, "a quote in the valgrind or sddsd path");
		return;
	}
	if (mkdtemp(dir) == NULL) {
		bench_why(r->why, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(script, sizeof(script), "%s/sddsd-callgrind.sh", dir);
	f = fopen(script, "we");
	if (f == NULL) {
		bench_why(r->why, "%s: %s", script, strerror(errno));
		goto out_rmdir;
	}
	fprintf(
	    f,
	    "#!/bin/sh\nexec '%s' --tool=callgrind --callgrind-out-file=\"$SDDS_BENCH_CG_OUT\" '%s' \"$@\"\n",
	    r->valgrind, r->sddsd);
	if (fclose(f) != 0 || chmod(script, 0755) < 0) {
		bench_why(r->why, "%s: %s", script, strerror(errno));
		goto out_rm;
	}
	if (cg_run_one(script, dir, size, base, &r->base, r->why) < 0)
		goto out_rm;
	if (cg_run_one(script, dir, size, base + samples, &r->full, r->why) < 0)
		goto out_rm;
	if (r->full.ir <= r->base.ir) {
		bench_why(r->why, "the longer run counted no more instructions (%" PRIu64 " <= %" PRIu64 ")",
			  r->full.ir, r->base.ir);
		goto out_rm;
	}
	r->ir_per_sample = (double)(r->full.ir - r->base.ir) / (double)samples;
	r->ok = true;
out_rm : {
	char p[PATH_MAX + 64];

	unlink(script);
	snprintf(p, sizeof(p), "%s/callgrind.%" PRIu64 ".out", dir, base);
	unlink(p);
	snprintf(p, sizeof(p), "%s/callgrind.%" PRIu64 ".out", dir, base + samples);
	unlink(p);
}
out_rmdir:
	rmdir(dir);
}

static void cg_usage(FILE *f)
{
	fprintf(f,
		"usage: sdds-bench callgrind [options]\n"
		"\n"
		"Instructions per sample through the daemon: sddsd (blocking mode) runs under\n"
		"valgrind --tool=callgrind twice, once for B samples writer -> reader and once\n"
		"for B + K; (Ir(B + K) - Ir(B)) / K is printed. Exact: no timing involved.\n"
		"\n"
		"  -k, --samples K    samples the figure is taken over (default %d)\n"
		"      --base B       samples of the reference run (default %d)\n"
		"  -s, --size N       sample bytes, 1..%u (default %d)\n"
		"      --valgrind P   the valgrind binary (default: valgrind in PATH)\n"
		"      --sddsd PATH   the daemon binary (default: ../../daemon/sddsd from here)\n"
		"      --json         print one JSON object\n"
		"  -h, --help\n",
		CG_DEFAULT_SAMPLES, CG_DEFAULT_BASE, BENCH_MAX_SIZE, CG_DEFAULT_SIZE);
}

int callgrind_main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"samples", required_argument, NULL, 'k'}, {"base", required_argument, NULL, 'b'},
	    {"size", required_argument, NULL, 's'},    {"valgrind", required_argument, NULL, 'V'},
	    {"sddsd", required_argument, NULL, 'D'},   {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
	static struct cg_result r;
	uint64_t samples = CG_DEFAULT_SAMPLES, base = CG_DEFAULT_BASE, size = CG_DEFAULT_SIZE;
	const char *valgrind = "valgrind", *sddsd = NULL;
	bool as_json = false;
	int c;

	while ((c = getopt_long(argc, argv, "k:s:h", longopts, NULL)) != -1) {
		int err = 0;

		switch (c) {
		case 'k':
			err = bench_parse_u64(optarg, 0, 1, 100000000, &samples);
			break;
		case 'b':
			err = bench_parse_u64(optarg, 0, 1, 100000000, &base);
			break;
		case 's':
			err = bench_parse_u64(optarg, 0, 1, BENCH_MAX_SIZE, &size);
			break;
		case 'V':
			valgrind = optarg;
			break;
		case 'D':
			sddsd = optarg;
			break;
		case 'j':
			as_json = true;
			break;
		case 'h':
			cg_usage(stdout);
			return 0;
		default:
			cg_usage(stderr);
			return 2;
		}
		if (err < 0) {
			fprintf(stderr, "sdds-bench callgrind: bad value for %s: %s\n", argv[optind - 1],
				optarg);
			return 2;
		}
	}
	if (optind != argc) {
		cg_usage(stderr);
		return 2;
	}
	fprintf(stderr, "sdds-bench callgrind: sddsd under callgrind, %" PRIu64 " and %" PRIu64 " samples\n",
		base, base + samples);
	cg_measure((uint32_t)size, base, samples, valgrind, sddsd, &r);
	if (as_json) {
		struct json j;

		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_str(&j, "bench", "callgrind");
		json_bool(&j, "ok", r.ok);
		json_str(&j, "why", r.ok ? "" : r.why);
		json_uint(&j, "size", size);
		json_uint(&j, "base_samples", base);
		json_uint(&j, "samples", samples);
		if (r.ok) {
			json_uint(&j, "ir_base", r.base.ir);
			json_uint(&j, "ir_full", r.full.ir);
			json_num(&j, "ir_per_sample", r.ir_per_sample);
		}
		json_str(
		    &j, "method",
		    "sddsd (blocking) under valgrind --tool=callgrind; Ir of all its threads from start to "
		    "SIGTERM; (Ir of base+samples run - Ir of base run) / samples");
		json_obj_end(&j);
		json_finish(&j);
	} else if (r.ok) {
		printf("sddsd instructions per sample: %.1f  ((%" PRIu64 " - %" PRIu64 ") Ir / %" PRIu64
		       " samples, %" PRIu64 "-byte, reliable, blocking mode)\n",
		       r.ir_per_sample, r.full.ir, r.base.ir, samples, size);
	} else {
		printf("sddsd instructions per sample: not measured: %s\n", r.why);
	}
	return r.ok ? 0 : 1;
}
