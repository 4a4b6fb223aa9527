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
 *
 * The clients (see callgrind.h): when built with <valgrind/callgrind.h>,
 * after the daemon's runs callgrind_main (cg_clients) runs itself again as
 * `valgrind -q --tool=callgrind --callgrind-out-file=DIR/cl.%p ...
 * --clients-dir DIR` and waits for it. That rerun (cg_clients_inner) does
 * the two runs with sddsd running natively; the writer and reader it forks
 * dump "sdds-bench writer" / "sdds-bench reader" files into DIR, which it
 * reads and removes after each run, and it leaves the four counts in
 * DIR/result. The outer process reads them and removes DIR. A client
 * figure that could not be taken leaves the daemon's figure standing
 * (clients_why says why).
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
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef SDDS_BENCH_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#endif

#include "bench.h"
#include "json.h"
#include "local.h"
#include "mdrun.h"
#include "proc.h"
#include "sddsd.h"

#define CG_DEFAULT_SAMPLES 50000
#define CG_DEFAULT_BASE 1000
#define CG_DEFAULT_SIZE 2
#define CG_RUN_SECONDS 120.0

/* The labels of the role dumps: "sdds-bench " + role. */
#define CG_ROLE_PREFIX "sdds-bench "
#define CG_TRIGGER "desc: Trigger: Client Request: " CG_ROLE_PREFIX

struct cg_run {
	uint64_t samples;
	uint64_t ir;
	struct tput_result t;
	uint64_t writer_ir, reader_ir; /* the role dumps, when clients_found */
	bool clients_found;
};

/* --take-many: the reader of the client runs takes that many per call (0: per sample). */
static uint32_t cg_take_batch;

struct cg_result {
	bool ok;
	char why[BENCH_WHY_MAX];
	char valgrind[PATH_MAX];
	char sddsd[PATH_MAX];
	struct cg_run base, full;
	double ir_per_sample;
	bool clients_ok;
	char clients_why[BENCH_WHY_MAX];
	double writer_ir_per_sample, reader_ir_per_sample;
};

void callgrind_role_begin(void)
{
#ifdef SDDS_BENCH_HAVE_CALLGRIND
	CALLGRIND_ZERO_STATS;
#endif
}

void callgrind_role_end(const char *role)
{
#ifdef SDDS_BENCH_HAVE_CALLGRIND
	char label[64];

	snprintf(label, sizeof(label), CG_ROLE_PREFIX "%s", role);
	CALLGRIND_DUMP_STATS_AT(label);
#else
	(void)role;
#endif
}

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

/*
 * A role dump: the role of its trigger label into role (cap bytes) and its
 * instruction count. 0, -ENOENT (not a role dump, or no count), or -errno.
 */
static int cg_read_role(const char *path, char *role, size_t cap, uint64_t *ret_ir)
{
	char line[512];
	bool labelled = false;
	uint64_t ir = 0;
	FILE *f;
	int rc;

	if (cg_read_ir(path, &ir) < 0)
		return -ENOENT;
	f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, CG_TRIGGER, strlen(CG_TRIGGER)) == 0) {
			size_t n = strcspn(line + strlen(CG_TRIGGER), "\n");

			if (n >= cap)
				n = cap - 1;
			memcpy(role, line + strlen(CG_TRIGGER), n);
			role[n] = '\0';
			labelled = true;
			break;
		}
	}
	fclose(f);
	rc = labelled ? 0 : -ENOENT;
	if (rc == 0)
		*ret_ir = ir;
	return rc;
}

/*
 * After a run: read the writer's and the reader's dumps in dir into r and
 * remove every file the run's processes left there (the children's
 * end-of-process dumps too). Both must be there.
 */
static int cg_collect_roles(const char *dir, struct cg_run *r, char *why)
{
	unsigned found = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (d == NULL) {
		bench_why(why, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	while ((e = readdir(d)) != NULL) {
		char path[PATH_MAX], role[32];
		uint64_t ir = 0;

		if (strncmp(e->d_name, "cl.", 3) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (cg_read_role(path, role, sizeof(role), &ir) == 0) {
			if (strcmp(role, "writer") == 0) {
				r->writer_ir = ir;
				found |= 1;
			} else if (strcmp(role, "reader") == 0) {
				r->reader_ir = ir;
				found |= 2;
			}
		}
		/* This process's own dump is written at its exit, after the last look. */
		unlink(path);
	}
	closedir(d);
	if (found != 3) {
		bench_why(why, "%" PRIu64 "-sample run: no %s dump in %s", r->samples,
			  (found & 1) ? "reader" : "writer", dir);
		return -ENOENT;
	}
	r->clients_found = true;
	return 0;
}

/*
 * One run: exactly `samples` samples writer -> reader through a private
 * daemon started from daemon_bin, then stop it. cg_out: the daemon runs
 * under callgrind (daemon_bin is the script) and writes its count there;
 * NULL: it runs natively. clients_dir: this process runs under callgrind
 * and the writer's and reader's role dumps are collected from there; NULL:
 * none. why gets the reason of a failure.
 */
static int cg_run_one(const char *daemon_bin, const char *cg_out, const char *clients_dir, uint32_t size,
		      uint64_t samples, struct cg_run *r, char *why)
{
	struct bench_placement pl = {BENCH_CPU_ANY, BENCH_CPU_ANY, BENCH_CPU_ANY};
	struct bench_opts o = {
	    .size = size,
	    .tput_seconds = CG_RUN_SECONDS,
	    .tput_count = samples,
	    .depth = 1024,
	    .reliable = true,
	    .poll_spin_ns = 0,
	    .take_batch = clients_dir != NULL ? cg_take_batch : 0,
	};
	char stop_why[BENCH_WHY_MAX];
	struct sddsd_proc d;
	int err;

	r->samples = samples;
	if (cg_out != NULL) {
		unlink(cg_out);
		if (setenv("SDDS_BENCH_CG_OUT", cg_out, 1) < 0)
			return -errno;
	}
	err = sddsd_start(daemon_bin, false, BENCH_CPU_ANY, &d, why);
	if (err < 0)
		return err;
	local_throughput(&o, d.sock, false, &pl, &r->t);
	err = sddsd_stop(&d, stop_why);
	/*
	 * Every sample delivered is what counts here, not a rate: a reader
	 * that caught up before the writer said it is done has no time mark
	 * (not ok) but all the samples.
	 */
	if (!r->t.ok && (r->t.written != samples || r->t.received != samples)) {
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
	if (clients_dir != NULL) {
		err = cg_collect_roles(clients_dir, r, why);
		if (err < 0)
			return err;
	}
	if (cg_out != NULL) {
		err = cg_read_ir(cg_out, &r->ir);
		if (err < 0) {
			bench_why(why, "no instruction total in %s", cg_out);
			return err;
		}
	}
	return 0;
}

static void cg_measure(uint32_t size, uint64_t base, uint64_t samples, const char *valgrind_arg,
		       const char *sddsd_arg, struct cg_result *r)
{
	char dir[] = "/tmp/sdds-bench-cg.XXXXXX", script[PATH_MAX];
	char out_base[PATH_MAX + 64] = "", out_full[PATH_MAX + 64] = "";
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
	snprintf(out_base, sizeof(out_base), "%s/callgrind.%" PRIu64 ".out", dir, base);
	snprintf(out_full, sizeof(out_full), "%s/callgrind.%" PRIu64 ".out", dir, base + samples);
	if (cg_run_one(script, out_base, NULL, size, base, &r->base, r->why) < 0)
		goto out_rm;
	if (cg_run_one(script, out_full, NULL, size, base + samples, &r->full, r->why) < 0)
		goto out_rm;
	if (r->full.ir <= r->base.ir) {
		bench_why(r->why, "the longer run counted no more instructions (%" PRIu64 " <= %" PRIu64 ")",
			  r->full.ir, r->base.ir);
		goto out_rm;
	}
	r->ir_per_sample = (double)(r->full.ir - r->base.ir) / (double)samples;
	r->ok = true;
out_rm:
	unlink(script);
	unlink(out_base);
	unlink(out_full);
out_rmdir:
	rmdir(dir);
}

#ifdef SDDS_BENCH_HAVE_CALLGRIND
/* Remove dir and the files in it (no subdirectories are made there). */
static void cg_rm_dir(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (d != NULL) {
		while ((e = readdir(d)) != NULL) {
			char path[PATH_MAX];

			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
}

/*
 * The rerun under callgrind (--clients-dir DIR): two runs, B and B + K
 * samples, through the daemon at sddsd (natively), with the writer and
 * reader (forked from here, so under callgrind too) dumping their loops
 * into dir. Writes one line to DIR/result: "ok WB WF RB RF" (the writer's
 * and reader's counts of both runs) or "fail WHY". Exit status 0 or 1.
 */
static int cg_clients_inner(uint32_t size, uint64_t base, uint64_t samples, const char *sddsd,
			    const char *dir)
{
	static struct cg_run rb, rf;
	char path[PATH_MAX], why[BENCH_WHY_MAX] = "";
	bool ok = cg_run_one(sddsd, NULL, dir, size, base, &rb, why) == 0 &&
		  cg_run_one(sddsd, NULL, dir, size, base + samples, &rf, why) == 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/result", dir);
	f = fopen(path, "we");
	if (f == NULL)
		return 1;
	if (ok)
		fprintf(f, "ok %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", rb.writer_ir, rf.writer_ir,
			rb.reader_ir, rf.reader_ir);
	else
		fprintf(f, "fail %s\n", why);
	return fclose(f) == 0 && ok ? 0 : 1;
}

/*
 * Count the clients (see the OVERVIEW): rerun this program under callgrind
 * with --clients-dir, read its result, fill r's client figures or
 * r->clients_why.
 */
static void cg_clients(uint32_t size, uint64_t base, uint64_t samples, struct cg_result *r)
{
	char self[PATH_MAX], dir[] = "/tmp/sdds-bench-cgc.XXXXXX", outopt[PATH_MAX + 64],
			     logopt[PATH_MAX + 64];
	char path[PATH_MAX], line[BENCH_WHY_MAX + 16], k_arg[32], b_arg[32], s_arg[32], m_arg[32];
	unsigned long long wb, wf, rb, rf;
	ssize_t n;
	char status[BENCH_WHY_MAX] = "";
	pid_t pid;
	FILE *f;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		bench_why(r->clients_why, "cannot name this program (/proc/self/exe)");
		return;
	}
	self[n] = '\0';
	if (mkdtemp(dir) == NULL) {
		bench_why(r->clients_why, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(outopt, sizeof(outopt), "--callgrind-out-file=%s/cl.%%p", dir);
	/* Its warnings (pidfd_open is unknown to valgrind 3.19) are no figure. */
	snprintf(logopt, sizeof(logopt), "--log-file=%s/valgrind.%%p.log", dir);
	snprintf(k_arg, sizeof(k_arg), "%" PRIu64, samples);
	snprintf(b_arg, sizeof(b_arg), "%" PRIu64, base);
	snprintf(s_arg, sizeof(s_arg), "%" PRIu32, size);
	snprintf(m_arg, sizeof(m_arg), "--take-many=%" PRIu32, cg_take_batch);
	{
		const char *args[] = {r->valgrind,
				      "-q",
				      "--tool=callgrind",
				      outopt,
				      logopt,
				      self,
				      "callgrind",
				      "-k",
				      k_arg,
				      "--base",
				      b_arg,
				      "-s",
				      s_arg,
				      "--sddsd",
				      r->sddsd,
				      "--clients-dir",
				      dir,
				      cg_take_batch > 1 ? m_arg : NULL,
				      NULL};
		struct proc_exec x = {.argv = args, .name = "sdds-bench under callgrind"};

		/* No cap: the rerun under callgrind takes as long as it takes. */
		if (proc_exec_start(&x, &pid, r->clients_why) < 0)
			goto out_rm;
		proc_exec_stop(pid, 0, INT_MAX / 1000, x.name, NULL, status);
	}
	snprintf(path, sizeof(path), "%s/result", dir);
	f = fopen(path, "re");
	if (f == NULL || fgets(line, sizeof(line), f) == NULL) {
		bench_why(r->clients_why, "the run under callgrind gave no result (%s)",
			  status[0] ? status : "exit 0");
	} else if (strncmp(line, "fail ", 5) == 0) {
		line[strcspn(line, "\n")] = '\0';
		bench_why(r->clients_why, "%s", line + 5);
	} else if (sscanf(line, "ok %llu %llu %llu %llu", &wb, &wf, &rb, &rf) != 4 || wf <= wb || rf <= rb) {
		bench_why(r->clients_why, "the longer run counted no more client instructions");
	} else {
		r->base.writer_ir = wb;
		r->full.writer_ir = wf;
		r->base.reader_ir = rb;
		r->full.reader_ir = rf;
		r->writer_ir_per_sample = (double)(wf - wb) / (double)samples;
		r->reader_ir_per_sample = (double)(rf - rb) / (double)samples;
		r->clients_ok = true;
	}
	if (f != NULL)
		fclose(f);
out_rm:
	cg_rm_dir(dir);
}
#endif /* SDDS_BENCH_HAVE_CALLGRIND */

static void cg_usage(FILE *f)
{
	fprintf(f,
		"usage: sdds-bench callgrind [options]\n"
		"\n"
		"Instructions per sample through the daemon: sddsd (blocking mode) runs under\n"
		"valgrind --tool=callgrind twice, once for B samples writer -> reader and once\n"
		"for B + K; (Ir(B + K) - Ir(B)) / K is printed. Exact: no timing involved.\n"
		"Then the writer and reader processes are counted the same way (their write\n"
		"and take loops only; sddsd native; this program reruns itself under callgrind\n"
		"for it) when built with valgrind's callgrind.h.\n"
		"\n"
		"  -k, --samples K    samples the figure is taken over (default %d)\n"
		"      --base B       samples of the reference run (default %d)\n"
		"  -s, --size N       sample bytes, 1..%u (default %d)\n"
		"      --valgrind P   the valgrind binary (default: valgrind in PATH)\n"
		"      --sddsd PATH   the daemon binary (default: ../../daemon/sddsd from here)\n"
		"      --take-many N  the reader of the client runs takes up to N (2..%u) per\n"
		"                     call with sdds_reader_take_many (default: sdds_reader_take)\n"
		"      --json         print the JSON itself, not report.py's table of it\n"
		"  -h, --help\n",
		CG_DEFAULT_SAMPLES, CG_DEFAULT_BASE, BENCH_MAX_SIZE, CG_DEFAULT_SIZE, BENCH_MAX_TAKE_BATCH);
}

enum { CG_OPT_BASE = BENCH_OPT_OWN, CG_OPT_VALGRIND, CG_OPT_CLIENTS_DIR, CG_OPT_TAKE_MANY };

/* What `callgrind` takes beyond the common options (bench_cli). */
struct cg_opts {
	uint64_t samples, base;
	const char *valgrind, *clients_dir;
};

static int cg_option(void *ctx, int c, const char *arg)
{
	struct cg_opts *o = ctx;
	uint64_t v = 0;
	int err = 0;

	switch (c) {
	case 'k':
		return bench_parse_u64(arg, 0, 1, 100000000, &o->samples);
	case CG_OPT_BASE:
		return bench_parse_u64(arg, 0, 1, 100000000, &o->base);
	case CG_OPT_VALGRIND:
		o->valgrind = arg;
		break;
	case CG_OPT_CLIENTS_DIR:
		/* Internal: the rerun under callgrind (cg_clients). */
		o->clients_dir = arg;
		break;
	case CG_OPT_TAKE_MANY:
		err = bench_parse_u64(arg, 0, 2, BENCH_MAX_TAKE_BATCH, &v);
		cg_take_batch = (uint32_t)v;
		break;
	}
	return err;
}

int callgrind_main(int argc, char **argv)
{
	static const struct option own[] = {
	    {"samples", required_argument, NULL, 'k'},
	    {"base", required_argument, NULL, CG_OPT_BASE},
	    {"valgrind", required_argument, NULL, CG_OPT_VALGRIND},
	    {"clients-dir", required_argument, NULL, CG_OPT_CLIENTS_DIR},
	    {"take-many", required_argument, NULL, CG_OPT_TAKE_MANY},
	    {NULL, 0, NULL, 0},
	};
	static const struct bench_cli cli = {
	    .prog = "sdds-bench callgrind",
	    .common = BENCH_OPT_SIZE | BENCH_OPT_SDDSD | BENCH_OPT_JSON,
	    .max_size = BENCH_MAX_SIZE,
	    .own = own,
	    .parse = cg_option,
	    .usage = cg_usage,
	};
	static struct cg_result r;
	struct bench_opts b = {.size = CG_DEFAULT_SIZE};
	struct json j;
	struct cg_opts co = {.samples = CG_DEFAULT_SAMPLES, .base = CG_DEFAULT_BASE, .valgrind = "valgrind"};
	uint64_t samples, base, size;
	const char *sddsd, *clients_dir;
	int rc = bench_cli_parse(&cli, argc, argv, &b, &co);

	if (rc != 0)
		return rc > 0 ? 0 : 2;
	samples = co.samples;
	base = co.base;
	size = b.size;
	sddsd = b.sddsd_path;
	clients_dir = co.clients_dir;
	if (clients_dir != NULL) {
#ifdef SDDS_BENCH_HAVE_CALLGRIND
		char path[PATH_MAX];

		/* Internal: the rerun under callgrind that counts the clients (cg_clients). */
		if (!RUNNING_ON_VALGRIND || sddsd == NULL || sddsd_find(sddsd, path, sizeof(path)) < 0) {
			fprintf(stderr,
				"sdds-bench callgrind: --clients-dir is for the rerun under valgrind\n");
			return 2;
		}
		return cg_clients_inner((uint32_t)size, base, samples, path, clients_dir);
#else
		fprintf(stderr,
			"sdds-bench callgrind: built without valgrind/callgrind.h: no --clients-dir\n");
		return 2;
#endif
	}
	fprintf(stderr, "sdds-bench callgrind: sddsd under callgrind, %" PRIu64 " and %" PRIu64 " samples\n",
		base, base + samples);
	cg_measure((uint32_t)size, base, samples, co.valgrind, sddsd, &r);
#ifdef SDDS_BENCH_HAVE_CALLGRIND
	if (r.ok) {
		fprintf(stderr, "sdds-bench callgrind: writer and reader under callgrind (sddsd native), the "
				"same counts\n");
		cg_clients((uint32_t)size, base, samples, &r);
	} else {
		bench_why(r.clients_why, "the daemon's runs failed first");
	}
#else
	bench_why(r.clients_why, "built without valgrind/callgrind.h: clients not counted");
#endif
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
	json_bool(&j, "clients_ok", r.clients_ok);
	json_str(&j, "clients_why", r.clients_ok ? "" : r.clients_why);
	if (r.clients_ok) {
		json_num(&j, "writer_ir_per_sample", r.writer_ir_per_sample);
		json_num(&j, "reader_ir_per_sample", r.reader_ir_per_sample);
		json_uint(&j, "reader_take_many", cg_take_batch);
		json_uint(&j, "writer_ir_base", r.base.writer_ir);
		json_uint(&j, "writer_ir_full", r.full.writer_ir);
		json_uint(&j, "reader_ir_base", r.base.reader_ir);
		json_uint(&j, "reader_ir_full", r.full.reader_ir);
	}
	json_obj_end(&j);
	json_finish(&j);
	return r.ok ? 0 : 1;
}
