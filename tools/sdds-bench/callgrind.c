/* SPDX-License-Identifier: MIT */
/*
 * callgrind.c - `sdds-bench callgrind` (see callgrind.h).
 *
 * OVERVIEW
 * Every run is this program rerun with --client-run (internal): local.c's
 * throughput loops with a fixed count (tput_count), blocking mode, since a
 * polling daemon adds instructions per microsecond, not per sample. For
 * the daemon's runs its --sddsd is a shell script that execs valgrind on
 * the real daemon (both paths and the output file in the environment); for
 * the clients' runs valgrind runs it, and the writer and reader it forks
 * dump their loops into a directory that is read and emptied after each
 * run. A run that did not deliver every sample gives no figure; a client
 * figure that could not be taken leaves the daemon's standing.
 */
#include "callgrind.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef SDDS_BENCH_HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#define CG_CLIENTS 1
#else
/* Without callgrind.h the roles cannot dump their loops: the clients are not counted. */
#define CG_CLIENTS 0
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(label) (void)(label)
#endif

#include "bench.h"
#include "json.h"
#include "local.h"
#include "mdrun.h"
#include "proc.h"
#include "sddsd.h"
#include "sddsd_run.h"

/* The label of a role's dump is "sdds-bench ROLE"; callgrind files it under this line. */
#define CG_ROLE_PREFIX "sdds-bench "
#define CG_TRIGGER "desc: Trigger: Client Request: " CG_ROLE_PREFIX

struct cg_opts {
	struct bench_opts b;		   /* size, sddsd_path */
	uint64_t samples, base, take_many; /* take_many: the client runs' reader only */
	const char *valgrind;
	bool client_run; /* internal: one run of -k samples, the one cg_clients counts */
};

/* The counts of one run: the daemon's, and the loops of the writer [0] and the reader [1]. */
struct cg_run {
	uint64_t ir, client_ir[2];
};

/* A figure stands while its reason is empty. */
struct cg_result {
	char why[BENCH_WHY_MAX], clients_why[BENCH_WHY_MAX];
	char valgrind[PATH_MAX], sddsd[PATH_MAX];
	struct cg_run base, full; /* B samples, B + K */
};

void callgrind_role_begin(void)
{
	CALLGRIND_ZERO_STATS;
}

void callgrind_role_end(const char *role)
{
	char label[64];

	snprintf(label, sizeof(label), CG_ROLE_PREFIX "%s", role);
	CALLGRIND_DUMP_STATS_AT(label);
}

/*
 * A callgrind output file: its instruction total ("summary:" or the newer
 * "totals:", which say the same) and whose dump it is (0 writer, 1
 * reader, -1 no role's). 0, -ENOENT (no total) or -errno.
 */
static int cg_read_out(const char *path, int *ret_role, uint64_t *ret_ir)
{
	unsigned long long ir = 0;
	bool found = false;
	char line[512];
	int role = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strcmp(line, CG_TRIGGER "writer\n") == 0)
			role = 0;
		else if (strcmp(line, CG_TRIGGER "reader\n") == 0)
			role = 1;
		else if (!found)
			found =
			    sscanf(line, "totals: %llu", &ir) == 1 || sscanf(line, "summary: %llu", &ir) == 1;
	}
	fclose(f);
	if (!found)
		return -ENOENT;
	*ret_role = role;
	*ret_ir = ir;
	return 0;
}

/* Which of fn[] a compressed name ("(12) name" defines id 12, "(12)" refers to it) is: -1 for none. */
static int cg_name(char *spec, const char *const *fn, unsigned n, int **ids, size_t *n_ids)
{
	char *end;
	unsigned long id;
	int which = -1;

	spec[strcspn(spec, "\n")] = '\0';
	if (spec[0] != '(')
		goto by_name;
	id = strtoul(spec + 1, &end, 10);
	if (*end != ')' || id > 1000000)
		return -1;
	if (end[1] == '\0')
		return id < *n_ids ? (*ids)[id] : -1;
	if (id >= *n_ids) {
		size_t want = id + 1024;
		int *m = realloc(*ids, want * sizeof(**ids));

		if (m == NULL)
			return -1;
		for (size_t i = *n_ids; i < want; i++)
			m[i] = -1;
		*ids = m;
		*n_ids = want;
	}
	spec = end + 2;
	for (unsigned i = 0; i < n; i++)
		which = strcmp(spec, fn[i]) == 0 ? (int)i : which;
	(*ids)[id] = which;
	return which;
by_name:
	for (unsigned i = 0; i < n; i++)
		which = strcmp(spec, fn[i]) == 0 ? (int)i : which;
	return which;
}

/*
 * The file format (valgrind's "Callgrind Format Specification"): fn= opens
 * a function's block, its cost lines are positions then events; calls=
 * COUNT TARGET names the callee of the cfn= before it, and the cost line
 * after it is that call's inclusive cost. A function's inclusive cost is
 * therefore its own lines plus the lines after its calls=, summed over
 * every block of its name (there is one per object and file it spans).
 */
int callgrind_inclusive(const char *path, const char *const *fn, unsigned n, uint64_t *ir, uint64_t *calls)
{
	unsigned npos = 1, ev = 0;
	int cur = -1, callee = -1, *ids = NULL;
	bool any = false;
	size_t n_ids = 0, cap = 0;
	char *line = NULL;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	memset(ir, 0, n * sizeof(*ir));
	memset(calls, 0, n * sizeof(*calls));
	while (getline(&line, &cap, f) > 0) {
		char *save = NULL, *tok;
		unsigned k = 0;
		uint64_t v = 0;

		if (strncmp(line, "positions:", 10) == 0) {
			npos = 0;
			for (tok = strtok_r(line + 10, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
				npos++;
		} else if (strncmp(line, "events:", 7) == 0) {
			any = true;
			for (tok = strtok_r(line + 7, " \n", &save); tok && strcmp(tok, "Ir") != 0;
			     tok = strtok_r(NULL, " \n", &save))
				ev++;
		} else if (strncmp(line, "fn=", 3) == 0) {
			cur = cg_name(line + 3, fn, n, &ids, &n_ids);
		} else if (strncmp(line, "cfn=", 4) == 0) {
			callee = cg_name(line + 4, fn, n, &ids, &n_ids);
		} else if (strncmp(line, "calls=", 6) == 0) {
			/* The cost line after it is the call's inclusive cost: the caller's, added below. */
			if (callee >= 0)
				calls[callee] += strtoull(line + 6, NULL, 10);
		} else if (isdigit((unsigned char)line[0]) || line[0] == '+' || line[0] == '-' ||
			   line[0] == '*') {
			/* Positions first (a relative one is "+N", "-N" or "*"), then the events. */
			for (tok = strtok_r(line, " \n", &save); tok && k < npos + ev;
			     tok = strtok_r(NULL, " \n", &save))
				k++;
			if (tok)
				v = strtoull(tok, NULL, 10);
			if (cur >= 0)
				ir[cur] += v;
		}
	}
	free(line);
	free(ids);
	fclose(f);
	return any ? 0 : -EINVAL;
}

/*
 * Remove every file in dir (there are no subdirectories), reading the
 * writer's and reader's dumps into r first when r is not NULL. Returns 0,
 * or -ENOENT when r did not get both.
 */
static int cg_sweep(const char *dir, struct cg_run *r)
{
	unsigned found = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		uint64_t ir;
		int role;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (r && cg_read_out(path, &role, &ir) == 0 && role >= 0) {
			r->client_ir[role] = ir;
			found |= 1u << role;
		}
		unlink(path);
	}
	closedir(d);
	return !r || found == 3 ? 0 : -ENOENT;
}

/*
 * The --client-run: exactly -k samples writer -> reader through a daemon
 * started from --sddsd, then stopped. Returns the exit status, the reason
 * of a failure on stderr.
 */
static int cg_client_run(const struct cg_opts *co)
{
	struct bench_placement pl = {BENCH_CPU_ANY, BENCH_CPU_ANY, BENCH_CPU_ANY};
	struct bench_opts o = {.size = co->b.size,
			       .tput_seconds = 120,
			       .tput_count = co->samples,
			       .depth = 1024,
			       .reliable = true,
			       .take_batch = (uint32_t)co->take_many};
	char bin[PATH_MAX], w[BENCH_WHY_MAX] = "";
	struct tput_result t = {0};
	struct sddsd_proc d;
	bool all;

	if (sddsd_find(co->b.sddsd_path, bin, sizeof(bin)) < 0) {
		bench_why(w, "sddsd not found");
	} else if (sddsd_start(bin, false, BENCH_CPU_ANY, &d, w) == 0) {
		local_throughput(&o, d.sock, false, &pl, &t);
		sddsd_stop(&d, w);
		/*
		 * Every sample delivered is what counts, not a rate: a reader that
		 * caught up before the writer said it is done has no time mark (not
		 * ok) but all the samples.
		 */
		all = t.written == co->samples && t.received == co->samples;
		if (!all && !t.ok)
			bench_why(w, "%s", t.why);
		else if (!all)
			bench_why(w, "%" PRIu64 " written, %" PRIu64 " taken (a 120 s cap)", t.written,
				  t.received);
	}
	if (w[0])
		fprintf(stderr, "%" PRIu64 "-sample run: %s\n", co->samples, w);
	return w[0] ? 1 : 0;
}

/*
 * The four runs of this program's --client-run, B and B + K samples each:
 * sddsd under callgrind (started by a script) with the clients native, then
 * the clients under callgrind with sddsd native. The daemon's runs take a
 * sample at a time, so the figure stays comparable with the ones before
 * --take-many. One directory holds every file.
 */
static void cg_measure(const struct cg_opts *co, struct cg_result *r)
{
	static const char script_text[] =
	    "#!/bin/sh\nexec \"$SDDS_BENCH_VALGRIND\" --tool=callgrind "
	    "--callgrind-out-file=\"$SDDS_BENCH_CG_OUT\" \"$SDDS_BENCH_SDDSD\" \"$@\"\n";
	char dir[] = "/tmp/sdds-bench-cg.XXXXXX", script[PATH_MAX], out[PATH_MAX + 16], log[PATH_MAX];
	char self[PATH_MAX] = "", out_opt[PATH_MAX + 64], vlog_opt[PATH_MAX + 64], k[24], s[24], m[32];
	const char *args[] = {r->valgrind, "-q",	"--tool=callgrind", out_opt,  vlog_opt,
			      self,	   "callgrind", "--client-run",	    "--json", "-k",
			      k,	   s,		"--sddsd",	    script,   NULL,
			      NULL};
	struct proc_exec x = {.log = log, .name = "sdds-bench --client-run"};
	const char *v = co->valgrind;
	pid_t pid;
	int role;

	if (mdrun_which(v, r->valgrind, sizeof(r->valgrind)) < 0) {
		bench_why(r->why, "valgrind not found%s%s (apt-get install valgrind)",
			  strchr(v, '/') ? " at " : "", strchr(v, '/') ? v : "");
		return;
	}
	if (sddsd_find(co->b.sddsd_path, r->sddsd, sizeof(r->sddsd)) < 0) {
		bench_why(r->why, "sddsd not found (give --sddsd PATH)");
		return;
	}
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0 || !mkdtemp(dir)) {
		bench_why(r->why, "cannot name this program (/proc/self/exe) or make a directory: %s",
			  strerror(errno));
		return;
	}
	snprintf(script, sizeof(script), "%s/sddsd-callgrind.sh", dir);
	snprintf(out, sizeof(out), "%s/sddsd.out", dir);
	snprintf(out_opt, sizeof(out_opt), "--callgrind-out-file=%s/cl.%%p", dir);
	/* Its warnings (pidfd_open is unknown to valgrind 3.19) are no figure. */
	snprintf(vlog_opt, sizeof(vlog_opt), "--log-file=%s/valgrind.%%p.log", dir);
	snprintf(log, sizeof(log), "%s/log", dir);
	snprintf(s, sizeof(s), "-s%" PRIu32, co->b.size);
	snprintf(m, sizeof(m), "--take-many=%" PRIu64, co->take_many);
	if (sddsd_run_write(script, script_text) < 0 || chmod(script, 0700) < 0 ||
	    setenv("SDDS_BENCH_VALGRIND", r->valgrind, 1) < 0 ||
	    setenv("SDDS_BENCH_SDDSD", r->sddsd, 1) < 0 || setenv("SDDS_BENCH_CG_OUT", out, 1) < 0)
		bench_why(r->why, "%s: %s", script, strerror(errno));
	for (int i = 0; i < 2 + 2 * CG_CLIENTS && !r->why[0] && !r->clients_why[0]; i++) {
		uint64_t n = i % 2 ? co->base + co->samples : co->base;
		struct cg_run *run = i % 2 ? &r->full : &r->base;
		char *why = i < 2 ? r->why : r->clients_why;

		if (i == 2) {
			fprintf(stderr,
				"sdds-bench callgrind: writer and reader under callgrind, sddsd native\n");
			args[13] = r->sddsd;
			args[14] = co->take_many > 1 ? m : NULL;
		}
		snprintf(k, sizeof(k), "%" PRIu64, n);
		x.argv = &args[i < 2 ? 5 : 0];
		unlink(out); /* no total of the run before */
		/* No time cap: a run under callgrind takes as long as it takes. */
		if (proc_exec_start(&x, &pid, why) < 0 ||
		    proc_exec_stop(pid, 0, INT_MAX / 1000, x.name, log, why) < 0)
			break;
		if (i < 2 && cg_read_out(out, &role, &run->ir) < 0)
			bench_why(why, "%" PRIu64 "-sample run: no instruction total from callgrind", n);
		else if (i >= 2 && cg_sweep(dir, run) < 0)
			bench_why(why, "%" PRIu64 "-sample run: no writer and reader dumps", n);
	}
	if (!r->why[0] && r->full.ir <= r->base.ir)
		bench_why(r->why, "the longer run counted no more instructions (%" PRIu64 " <= %" PRIu64 ")",
			  r->full.ir, r->base.ir);
	if (!r->clients_why[0] &&
	    (r->full.client_ir[0] <= r->base.client_ir[0] || r->full.client_ir[1] <= r->base.client_ir[1]))
		bench_why(r->clients_why, "the longer run counted no more client instructions");
	cg_sweep(dir, NULL);
	rmdir(dir);
}

static void cg_json(const struct cg_opts *co, const struct cg_result *r)
{
	double k = (double)co->samples;
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "bench", "callgrind");
	json_bool(&j, "ok", !r->why[0]);
	json_str(&j, "why", r->why);
	json_uint(&j, "size", co->b.size);
	json_uint(&j, "base_samples", co->base);
	json_uint(&j, "samples", co->samples);
	if (!r->why[0]) {
		json_uint(&j, "ir_base", r->base.ir);
		json_uint(&j, "ir_full", r->full.ir);
		json_num(&j, "ir_per_sample", (double)(r->full.ir - r->base.ir) / k);
	}
	json_bool(&j, "clients_ok", !r->clients_why[0]);
	json_str(&j, "clients_why", r->clients_why);
	if (!r->clients_why[0]) {
		json_num(&j, "writer_ir_per_sample",
			 (double)(r->full.client_ir[0] - r->base.client_ir[0]) / k);
		json_num(&j, "reader_ir_per_sample",
			 (double)(r->full.client_ir[1] - r->base.client_ir[1]) / k);
		json_uint(&j, "reader_take_many", co->take_many);
		json_uint(&j, "writer_ir_base", r->base.client_ir[0]);
		json_uint(&j, "writer_ir_full", r->full.client_ir[0]);
		json_uint(&j, "reader_ir_base", r->base.client_ir[1]);
		json_uint(&j, "reader_ir_full", r->full.client_ir[1]);
	}
	json_obj_end(&j);
	json_finish(&j);
}

static void cg_usage(FILE *f)
{
	fprintf(f,
		"usage: sdds-bench callgrind [options]\n"
		"\n"
		"Instructions per sample, (Ir(B + K) - Ir(B)) / K: in sddsd (blocking) under callgrind,\n"
		"then in the writer's and reader's loops (sddsd native; needs valgrind's callgrind.h).\n"
		"\n"
		"  -k, --samples K    samples the figure is taken over (default 50000)\n"
		"      --base B       samples of the reference run (default 1000)\n"
		"  -s, --size N       sample bytes, 1..%u (default 2)\n"
		"      --valgrind P   the valgrind binary (default: valgrind in PATH)\n"
		"      --sddsd PATH   the daemon (default: ../../daemon/sddsd from here)\n"
		"      --take-many N  the clients' reader takes up to N (2..%u) per call\n"
		"      --json         print the JSON itself, not report.py's table of it\n",
		BENCH_MAX_SIZE, BENCH_MAX_TAKE_BATCH);
}

enum { CG_OPT_BASE = BENCH_OPT_OWN, CG_OPT_VALGRIND, CG_OPT_CLIENT_RUN, CG_OPT_TAKE_MANY };

static int cg_option(void *ctx, int c, const char *arg)
{
	struct cg_opts *o = ctx;

	if (c == CG_OPT_VALGRIND)
		o->valgrind = arg;
	else if (c == CG_OPT_CLIENT_RUN)
		o->client_run = true;
	else if (c == CG_OPT_TAKE_MANY)
		return bench_parse_u64(arg, 0, 2, BENCH_MAX_TAKE_BATCH, &o->take_many);
	else
		return bench_parse_u64(arg, 0, 1, 100000000, c == 'k' ? &o->samples : &o->base);
	return 0;
}

int callgrind_main(int argc, char **argv)
{
	static const struct option own[] = {
	    {"samples", required_argument, NULL, 'k'},
	    {"base", required_argument, NULL, CG_OPT_BASE},
	    {"valgrind", required_argument, NULL, CG_OPT_VALGRIND},
	    {"client-run", no_argument, NULL, CG_OPT_CLIENT_RUN},
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
	struct cg_opts co = {.b = {.size = 2}, .samples = 50000, .base = 1000, .valgrind = "valgrind"};
	int rc = bench_cli_parse(&cli, argc, argv, &co.b, &co);

	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (co.client_run)
		return cg_client_run(&co);
	fprintf(stderr, "sdds-bench callgrind: sddsd under callgrind, %" PRIu64 " and %" PRIu64 " samples\n",
		co.base, co.base + co.samples);
	cg_measure(&co, &r);
	/* The clients' figures stand only on the daemon's, and need callgrind.h. */
	if (r.why[0] || !CG_CLIENTS)
		bench_why(r.clients_why, "%s",
			  CG_CLIENTS ? "the daemon's runs failed first"
				     : "built without valgrind/callgrind.h: clients not counted");
	cg_json(&co, &r);
	return r.why[0] ? 1 : 0;
}
