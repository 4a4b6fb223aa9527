/* SPDX-License-Identifier: MIT */
/*
 * mdreport.c - `sdds-bench report` (see mdreport.h).
 *
 * OVERVIEW
 * One pass: machine facts and load, then the parts in a fixed order, each
 * filling its rows of struct md_ctx from its child's JSON; then the plots,
 * the ratios and the two outputs. Every row and ratio carries ok and a
 * reason: a row is filled from a figure only when the JSON holds that
 * figure as a number and the part said ok; everything else is a reason.
 * The children write into DIR/logs (stdout JSON, stderr) and DIR/raw
 * (per-iteration one-way ns); both stay for inspection.
 *
 * The report's process holds no client and no daemon of its own; while a
 * child runs, it only waits (mdrun_wait), so it takes no CPU from the
 * figures.
 */
#include "mdreport.h"

#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "ddsperf.h"
#include "json.h"
#include "mdplot.h"
#include "mdrun.h"

/*
 * Paths, keys and reasons are built with snprintf into fixed buffers of
 * PATH_MAX or BENCH_WHY_MAX; a reason cut short is still a reason, and a
 * path longer than PATH_MAX fails at open() anyway. GCC's guesses about
 * truncation would only turn every one of these into a length check.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#ifndef SDDS_BENCH_SRCDIR
#define SDDS_BENCH_SRCDIR "."
#endif

#define MD_WHY BENCH_WHY_MAX
#define MD_MAX_STEPS 24
#define MD_MAX_SCALE 16
#define MD_MAX_TRACE 16
#define MD_MAX_PHASES 16
#define MD_DEFAULT_N 100000
#define MD_QUICK_N 2000
#define MD_DEFAULT_SIZE 2
#define MD_DDS_DOMAIN 77

enum md_part { MD_LOCAL, MD_ICEORYX, MD_DDSPERF, MD_NET, MD_SCALE, MD_TRACE, MD_CALLGRIND, MD_N_PARTS };

static const char *const md_part_names[MD_N_PARTS] = {"local", "iceoryx", "ddsperf",  "net",
						      "scale", "trace",	  "callgrind"};

struct md_opts {
	const char *out;
	bool quick;
	uint64_t n;
	uint32_t size;
	bool no_peers;
	bool json;
	const char *ddsperf, *trace, *gnuplot, *valgrind, *sddsd;
	unsigned skip; /* 1 << enum md_part */
};

/* One latency row: one-way us. */
struct md_lat {
	const char *label;
	bool ok;
	char why[MD_WHY];
	double p50, p99, p999, max, n; /* p999 NaN when the tool does not give it */
	bool truncated;
	char raw[PATH_MAX]; /* per-iteration file, "" when none */
	char note[192];
};

struct md_tput {
	const char *label;
	bool ok;
	char why[MD_WHY];
	double rate; /* samples/s */
	char note[192];
};

/* A figure a ratio uses. */
struct md_fig {
	const char *name;
	bool ok;
	double v;
	const char *why;
};

struct md_ratio {
	const char *name;
	const char *unit; /* "x", "us", "M/s", "%", "Ir" */
	bool ok;
	double v;
	char why[MD_WHY];
	int cmp; /* 0 no goal, -1 at most goal, +1 at least goal */
	double goal;
	const char *goal_text;
};

struct md_step {
	char name[48];
	char cmd[1536];
	char result[MD_WHY];
	double secs;
};

struct md_phase {
	char name[64];
	double min, avg, max, std, count;
};

struct md_trace_run {
	char mode[16];
	char path[40]; /* "send", "receive", "local"; ", callback" added for a listener-callback run */
	double samples, unmatched;
	struct md_phase ph[MD_MAX_PHASES];
	int n_ph;
	bool has_total;
	struct md_phase total;
};

struct md_scale_pt {
	double clients, p50, p99, rss, pss, rss_pc;
	char why[MD_WHY]; /* the point failed: its reason */
};

struct md_part_state {
	bool ok; /* the part produced its JSON (rows may still carry their own failure) */
	char why[MD_WHY];
};

struct md_plotres {
	const char *file;
	const char *what;
	bool ok;
	char why[MD_WHY];
};

enum { MD_PLOT_LOCAL, MD_PLOT_NET, MD_PLOT_PHASES, MD_PLOT_SCALING, MD_N_PLOTS };

struct md_ctx {
	struct md_opts o;
	char self[PATH_MAX], dir[PATH_MAX], cmdline[2048];
	char cpu_model[160], kernel[160], date[64], commit[128];
	int cpus;
	double load0[3], load1[3];
	struct md_part_state part[MD_N_PARTS];
	struct md_step steps[MD_MAX_STEPS];
	int n_steps;

	struct md_lat l_spin, l_futex, l_yield, l_poll, l_block, l_ice_poll, l_ice_wait, l_dds, l_dds_wait;
	struct md_tput t_poll, t_block, t_mono_spin, t_mono_sleep, t_dds;
	char local_poll_note[200];
	bool local_poll_yield; /* the polling clients yield (poll_yield_ns >= 0) */

	struct md_lat n_blk, n_poll, n_mono_blk, n_mono_poll, n_raw, n_raw_busy, n_dds;
	struct md_tput t_net, t_net_frames, t_net_raw, t_net_raw_gso, t_net_mono;
	struct md_tput t_net_packed, t_net_packed_frames; /* the peer_pack run, beside the others */
	/* net --poll --monolithic: isolated / monolithic per leg (A->B send side, B->A receive side). */
	struct md_num {
		bool ok;
		double v;
		char why[MD_WHY];
	} leg_send, leg_recv;
	char dds_payload[128];

	struct md_scale_pt sc[MD_MAX_SCALE];
	int n_sc;

	struct md_trace_run tr[MD_MAX_TRACE];
	int n_tr;
	char tr_missing[MD_MAX_TRACE][MD_WHY]; /* "isolated send: why" */
	int n_tr_missing;

	bool cg_ok;
	char cg_why[MD_WHY];
	double cg_ir, cg_base_ir, cg_full_ir, cg_k, cg_base;
	bool cg_clients_ok; /* the writer's and reader's figures too */
	char cg_clients_why[MD_WHY];
	double cg_writer_ir, cg_reader_ir;

	struct md_plotres plots[MD_N_PLOTS];
	struct md_ratio ratios[24];
	int n_ratios;
};

/* ------------------------------------------------------------ helpers */

static void md_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void md_progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "sdds-bench report: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void md_lat_init(struct md_lat *l, const char *label)
{
	memset(l, 0, sizeof(*l));
	l->label = label;
	l->p999 = NAN;
	bench_why(l->why, "not run");
}

static void md_tput_init(struct md_tput *t, const char *label)
{
	memset(t, 0, sizeof(*t));
	t->label = label;
	bench_why(t->why, "not run");
}

/* A row of a part that did not run (or did not answer) takes the part's reason. */
static void md_lat_fail(struct md_lat *l, const char *why)
{
	l->ok = false;
	bench_why(l->why, "%s", why);
}

static void md_tput_fail(struct md_tput *t, const char *why)
{
	t->ok = false;
	bench_why(t->why, "%s", why);
}

static bool md_skipped(const struct md_ctx *c, enum md_part p)
{
	return (c->o.skip & (1u << p)) != 0;
}

/*
 * Run argv as step `name`, stdout to DIR/logs/<name>.json and stderr to
 * DIR/logs/<name>.err, for at most cap_s. Returns the JSON object it
 * printed (caller frees) or NULL with why (the exit status and the last
 * line of its stderr). *ret_status gets the wait status (-1 when it did
 * not end by itself).
 */
static struct json_object *md_exec(struct md_ctx *c, const char *name, char *const argv[], char *const env[],
				   double cap_s, int *ret_status, char *why)
{
	char out[PATH_MAX + 64], err_path[PATH_MAX + 64], last[200], s[64];
	struct md_step *st = c->n_steps < MD_MAX_STEPS ? &c->steps[c->n_steps++] : NULL;
	struct json_object *j = NULL;
	int64_t t0 = bench_now_ns();
	int status = -1, err;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/logs/%s.json", c->dir, name);
	snprintf(err_path, sizeof(err_path), "%s/logs/%s.err", c->dir, name);
	if (st != NULL) {
		snprintf(st->name, sizeof(st->name), "%s", name);
		mdrun_cmdline(argv, st->cmd, sizeof(st->cmd));
	}
	md_progress("%s (at most %.0f s)", name, cap_s);
	err = mdrun_spawn(argv, env, out, err_path, &pid);
	if (err == 0)
		err = mdrun_wait(pid, cap_s, &status);
	if (err == -ETIMEDOUT)
		bench_why(why, "stopped after its %.0f-s cap", cap_s);
	else if (err < 0)
		bench_why(why, "cannot run %s: %s", argv[0], strerror(-err));
	if (err == 0) {
		j = mdrun_json_load(out);
		mdrun_status_str(status, s, sizeof(s));
		if (j == NULL) {
			mdrun_last_line(err_path, last, sizeof(last));
			bench_why(why, "%s, no JSON%s%s", s, last[0] ? ": " : "", last);
		}
	}
	if (st != NULL) {
		st->secs = (double)(bench_now_ns() - t0) / 1e9;
		if (j != NULL)
			mdrun_status_str(status, st->result, sizeof(st->result));
		else
			snprintf(st->result, sizeof(st->result), "%s", why);
	}
	*ret_status = status;
	return j;
}

/* A part's reason w (borrowed, may be NULL or empty) into why, or that none was given. */
static void md_why_given(char *why, const char *w)
{
	bench_why(why, "%s", w && *w ? w : "failed (no reason given)");
}

/*
 * Whether the object at path of j says ok; when it does not, or has no
 * "ok", why (BENCH_WHY_MAX bytes, the caller's) says so, with the reason at
 * path.why_key when there is one.
 */
static bool md_json_ok(struct json_object *j, const char *path, const char *why_key, char *why)
{
	char k[160];
	bool ok = false;

	snprintf(k, sizeof(k), "%s.ok", path);
	if (mdrun_jbool(j, k, &ok) < 0) {
		bench_why(why, "no '%s' in the JSON", path);
		return false;
	}
	if (!ok) {
		snprintf(k, sizeof(k), "%s.%s", path, why_key);
		md_why_given(why, mdrun_jstr(j, k));
	}
	return ok;
}

/* Fill a latency row from a JSON object at path with the given key names. */
static void md_lat_json(struct md_lat *l, struct json_object *j, const char *path, const char *n_key,
			const char *why_key)
{
	char k[160];

	if (!md_json_ok(j, path, why_key, l->why))
		return;
#define MD_NUM(key, dst)                                                                                     \
	do {                                                                                                 \
		snprintf(k, sizeof(k), "%s.%s", path, key);                                                  \
		if (mdrun_jnum(j, k, dst) < 0) {                                                             \
			bench_why(l->why, "no number '%s' in the JSON", k);                                  \
			return;                                                                              \
		}                                                                                            \
	} while (0)
	MD_NUM("median_us", &l->p50);
	MD_NUM("p99_us", &l->p99);
	MD_NUM("max_us", &l->max);
	MD_NUM(n_key, &l->n);
#undef MD_NUM
	snprintf(k, sizeof(k), "%s.p999_us", path);
	if (mdrun_jnum(j, k, &l->p999) < 0)
		l->p999 = NAN;
	snprintf(k, sizeof(k), "%s.truncated", path);
	mdrun_jbool(j, k, &l->truncated);
	l->ok = true;
	l->why[0] = '\0';
}

static void md_tput_json(struct md_tput *t, struct json_object *j, const char *path, const char *rate_key,
			 const char *why_key)
{
	char k[160];

	if (!md_json_ok(j, path, why_key, t->why))
		return;
	snprintf(k, sizeof(k), "%s.%s", path, rate_key);
	if (mdrun_jnum(j, k, &t->rate) < 0 || !(t->rate > 0)) {
		bench_why(t->why, "no rate '%s' in the JSON", k);
		return;
	}
	t->ok = true;
	t->why[0] = '\0';
}

/* The per-iteration file a row's curve comes from, when the child wrote it. */
static void md_lat_raw(struct md_lat *l, const char *path)
{
	struct stat st;

	if (l->ok && stat(path, &st) == 0 && st.st_size > 0)
		snprintf(l->raw, sizeof(l->raw), "%s", path);
}

/* The first file matching a glob pattern into l->raw. */
static void md_lat_raw_glob(struct md_lat *l, const char *pattern)
{
	glob_t g;

	if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0)
		md_lat_raw(l, g.gl_pathv[0]);
	globfree(&g);
}

/* ------------------------------------------------------------ machine */

static void md_machine(struct md_ctx *c)
{
	char line[512], cmd[PATH_MAX + 96];
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;

	snprintf(c->cpu_model, sizeof(c->cpu_model), "unknown");
	f = fopen("/proc/cpuinfo", "re");
	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			char *colon = strchr(line, ':');

			if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
				snprintf(c->cpu_model, sizeof(c->cpu_model), "%s", colon + 2);
				c->cpu_model[strcspn(c->cpu_model, "\n")] = '\0';
				break;
			}
		}
		fclose(f);
	}
	c->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (uname(&u) == 0)
		snprintf(c->kernel, sizeof(c->kernel), "%s %s %s", u.sysname, u.release, u.machine);
	gmtime_r(&now, &tm);
	strftime(c->date, sizeof(c->date), "%Y-%m-%d %H:%M:%S UTC", &tm);
	if (getloadavg(c->load0, 3) != 3)
		c->load0[0] = c->load0[1] = c->load0[2] = -1;
	snprintf(c->commit, sizeof(c->commit), "unknown (not a git checkout)");
	snprintf(cmd, sizeof(cmd), "git -C '%s' describe --always --dirty 2>/dev/null", SDDS_BENCH_SRCDIR);
	f = popen(cmd, "r");
	if (f != NULL) {
		if (fgets(line, sizeof(line), f) != NULL && line[0] != '\n') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(c->commit, sizeof(c->commit), "%s", line);
		}
		pclose(f);
	}
}

/* ------------------------------------------------------------ parts */

static void md_local(struct md_ctx *c)
{
	char n[32], w[32], s[32], raw[PATH_MAX + 32], pat[PATH_MAX + 64], why[MD_WHY];
	const char *quick_args[] = {"-t", "0.3", "--max-seconds", "5", NULL};
	char *argv[24];
	struct json_object *j;
	int i = 0, st;
	double d;

	snprintf(n, sizeof(n), "%" PRIu64, c->o.n);
	snprintf(w, sizeof(w), "%" PRIu64, c->o.quick ? (uint64_t)100 : (uint64_t)1000);
	snprintf(s, sizeof(s), "%u", c->o.size);
	snprintf(raw, sizeof(raw), "%s/raw/local", c->dir);
	argv[i++] = c->self;
	argv[i++] = "local";
	argv[i++] = "--json";
	argv[i++] = "-n";
	argv[i++] = n;
	argv[i++] = "--warmup";
	argv[i++] = w;
	argv[i++] = "-s";
	argv[i++] = s;
	argv[i++] = "--raw";
	argv[i++] = raw;
	if (c->o.sddsd) {
		argv[i++] = "--sddsd";
		argv[i++] = (char *)c->o.sddsd;
	}
	for (int k = 0; c->o.quick && quick_args[k]; k++)
		argv[i++] = (char *)quick_args[k];
	argv[i] = NULL;
	j = md_exec(c, "local", argv, NULL, c->o.quick ? 150 : 1200, &st, why);
	if (j == NULL) {
		bench_why(c->part[MD_LOCAL].why, "%s", why);
		md_lat_fail(&c->l_spin, why);
		md_lat_fail(&c->l_futex, why);
		md_lat_fail(&c->l_yield, why);
		md_lat_fail(&c->l_poll, why);
		md_lat_fail(&c->l_block, why);
		md_tput_fail(&c->t_poll, why);
		md_tput_fail(&c->t_block, why);
		md_tput_fail(&c->t_mono_spin, why);
		md_tput_fail(&c->t_mono_sleep, why);
		return;
	}
	c->part[MD_LOCAL].ok = true;
	md_lat_json(&c->l_spin, j, "baseline.spin", "iterations", "error");
	md_lat_json(&c->l_futex, j, "baseline.futex", "iterations", "error");
	md_lat_json(&c->l_yield, j, "baseline.yield_same_cpu", "iterations", "error");
	md_lat_json(&c->l_poll, j, "polling.latency", "iterations", "error");
	md_lat_json(&c->l_block, j, "blocking.latency", "iterations", "error");
	md_tput_json(&c->t_poll, j, "polling.throughput", "samples_per_s", "error");
	md_tput_json(&c->t_block, j, "blocking.throughput", "samples_per_s", "error");
	md_tput_json(&c->t_mono_spin, j, "monolithic.spin", "samples_per_s", "error");
	md_tput_json(&c->t_mono_sleep, j, "monolithic.sleep", "samples_per_s", "error");
	snprintf(pat, sizeof(pat), "%s-spin.txt", raw);
	md_lat_raw(&c->l_spin, pat);
	snprintf(pat, sizeof(pat), "%s-futex.txt", raw);
	md_lat_raw(&c->l_futex, pat);
	snprintf(pat, sizeof(pat), "%s-yield-same-cpu.txt", raw);
	md_lat_raw(&c->l_yield, pat);
	snprintf(pat, sizeof(pat), "%s-sddsd-polling-*.txt", raw);
	md_lat_raw_glob(&c->l_poll, pat);
	snprintf(pat, sizeof(pat), "%s-sddsd-blocking-*.txt", raw);
	md_lat_raw_glob(&c->l_block, pat);
	if (mdrun_jnum(j, "poll_spin_ns", &d) == 0) {
		double y = -1;
		const char *pl = mdrun_jstr(j, "polling.placement.text");

		/* poll_yield_ns: pure spin before each sched_yield; absent or < 0: never yields. */
		if (mdrun_jnum(j, "poll_yield_ns", &y) != 0)
			y = -1;
		if (y >= 0)
			snprintf(c->local_poll_note, sizeof(c->local_poll_note),
				 "the daemon polls; the clients spin and yield the CPU (sched_yield) after "
				 "%.0f ns "
				 "of pure spinning, placed %s",
				 y, pl != NULL ? pl : "unpinned");
		else if (d >= 1e9)
			snprintf(c->local_poll_note, sizeof(c->local_poll_note),
				 "the daemon polls; the clients spin and never yield, placed %s",
				 pl != NULL ? pl : "unpinned");
		else
			snprintf(c->local_poll_note, sizeof(c->local_poll_note),
				 "the daemon polls; client spin budget %.0f ns, placed %s", d,
				 pl != NULL ? pl : "unpinned");
		c->local_poll_yield = y >= 0;
	}
	mdrun_json_free(j);
}

static void md_iceoryx(struct md_ctx *c)
{
	char n[32], s[32], raw[PATH_MAX + 32], path[PATH_MAX + 64], why[MD_WHY];
	char *argv[] = {c->self, "iceoryx", "--json", "-n", n, "-s", s, "--raw", raw, NULL};
	struct json_object *j;
	bool ok = false;
	int st, modes;

	if (c->o.no_peers || md_skipped(c, MD_ICEORYX)) {
		bench_why(c->part[MD_ICEORYX].why, "%s", c->o.no_peers ? "--no-peers" : "--skip iceoryx");
		md_lat_fail(&c->l_ice_poll, c->part[MD_ICEORYX].why);
		md_lat_fail(&c->l_ice_wait, c->part[MD_ICEORYX].why);
		return;
	}
	snprintf(n, sizeof(n), "%" PRIu64, c->o.n);
	snprintf(s, sizeof(s), "%u", c->o.size);
	snprintf(raw, sizeof(raw), "%s/raw/ice", c->dir);
	j = md_exec(c, "iceoryx", argv, NULL, c->o.quick ? 120 : 900, &st, why);
	if (j == NULL) {
		if (WIFEXITED(st) && WEXITSTATUS(st) == 2)
			bench_why(why,
				  "this sdds-bench has no working 'iceoryx' command (usage error, exit 2)");
		bench_why(c->part[MD_ICEORYX].why, "%s", why);
		md_lat_fail(&c->l_ice_poll, why);
		md_lat_fail(&c->l_ice_wait, why);
		return;
	}
	c->part[MD_ICEORYX].ok = true;
	if (mdrun_jbool(j, "ok", &ok) == 0 && !ok) {
		md_why_given(why, mdrun_jstr(j, "why"));
		md_lat_fail(&c->l_ice_poll, why);
		md_lat_fail(&c->l_ice_wait, why);
	}
	modes = mdrun_jlen(j, "modes");
	for (int i = 0; i < modes; i++) {
		char k[64];
		const char *mode;
		struct md_lat *l;

		snprintf(k, sizeof(k), "modes.%d.mode", i);
		mode = mdrun_jstr(j, k);
		if (mode == NULL)
			continue;
		if (strcmp(mode, "polling") == 0)
			l = &c->l_ice_poll;
		else if (strcmp(mode, "waitset") == 0)
			l = &c->l_ice_wait;
		else
			continue;
		snprintf(k, sizeof(k), "modes.%d", i);
		md_lat_json(l, j, k, "iterations", "why");
		snprintf(path, sizeof(path), "%s-iceoryx-%s.txt", raw, mode);
		md_lat_raw(l, path);
	}
	mdrun_json_free(j);
}

/* ---- Cyclone DDS ddsperf on loopback (PERF.md) ---- */

static int md_dds_config(struct md_ctx *c, char *uri, size_t cap)
{
	char path[PATH_MAX + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/logs/cyclonedds-lo6.xml", c->dir);
	f = fopen(path, "we");
	if (f == NULL)
		return -errno;
	/* The content of tools/sdds-bench/cyclonedds-lo6.xml. */
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n"
		   "<CycloneDDS xmlns=\"https://cdds.io/config\">\n"
		   "  <Domain id=\"any\">\n"
		   "    <General>\n"
		   "      <Interfaces><NetworkInterface name=\"lo\" multicast=\"false\"/></Interfaces>\n"
		   "      <AllowMulticast>false</AllowMulticast>\n"
		   "      <Transport>udp6</Transport>\n"
		   "    </General>\n"
		   "    <Discovery>\n"
		   "      <Peers><Peer address=\"[::1]\"/></Peers>\n"
		   "      <ParticipantIndex>auto</ParticipantIndex>\n"
		   "      <MaxAutoParticipantIndex>20</MaxAutoParticipantIndex>\n"
		   "    </Discovery>\n"
		   "    <Tracing><Verbosity>warning</Verbosity><OutputFile>stderr</OutputFile></Tracing>\n"
		   "  </Domain>\n"
		   "</CycloneDDS>\n");
	if (fclose(f) != 0)
		return -EIO;
	snprintf(uri, cap, "CYCLONEDDS_URI=file://%s", path);
	return 0;
}

/*
 * Server argv in the background, client argv for at most cap_s, then the
 * server stopped (or, wait_server, waited for: it ends by its own -D and
 * its output is what is parsed). The step records the client. 0 when the
 * client (and the awaited server) ended with status 0, else -1 with why.
 */
static int md_dds_pair(struct md_ctx *c, const char *name, char *const server[], char *const client[],
		       char *env[], double cap_s, bool wait_server, char *why)
{
	char sout[PATH_MAX + 64], serr[PATH_MAX + 64], step[64];
	struct json_object *none;
	pid_t spid;
	int st = -1, sst = -1, err;

	snprintf(sout, sizeof(sout), "%s/logs/%s-server.txt", c->dir, name);
	snprintf(serr, sizeof(serr), "%s/logs/%s-server.err", c->dir, name);
	err = mdrun_spawn(server, env, sout, serr, &spid);
	if (err < 0) {
		bench_why(why, "cannot start %s: %s", server[0], strerror(-err));
		return -1;
	}
	usleep(300000);
	snprintf(step, sizeof(step), "%s", name);
	/* The client prints text, not JSON: md_exec's "no JSON" is expected; its status is what counts. */
	none = md_exec(c, step, client, env, cap_s, &st, why);
	mdrun_json_free(none);
	if (c->n_steps > 0) {
		/* The step shows both sides and the environment they shared. */
		struct md_step *s = &c->steps[c->n_steps - 1];
		char srv[512], line[sizeof(s->cmd)];

		mdrun_cmdline(server, srv, sizeof(srv));
		snprintf(line, sizeof(line), "%s%s%s & %s", env && env[0] ? env[0] : "",
			 env && env[0] ? " " : "", srv, s->cmd);
		memcpy(s->cmd, line, sizeof(s->cmd));
	}
	if (wait_server) {
		if (mdrun_wait(spid, 15, &sst) < 0)
			sst = -1;
	} else {
		mdrun_stop(spid);
	}
	if (c->n_steps > 0 && st != -1) {
		struct md_step *s = &c->steps[c->n_steps - 1];

		mdrun_status_str(st, s->result, sizeof(s->result));
	}
	if (st == -1)
		return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		char last[200], s[48], lp[PATH_MAX + 64];

		snprintf(lp, sizeof(lp), "%s/logs/%s.err", c->dir, name);
		mdrun_last_line(lp, last, sizeof(last));
		mdrun_status_str(st, s, sizeof(s));
		bench_why(why, "ddsperf %s%s%s", s, last[0] ? ": " : "", last);
		return -1;
	}
	if (wait_server && (sst == -1 || !WIFEXITED(sst) || WEXITSTATUS(sst) != 0)) {
		bench_why(why, "the ddsperf server side did not end cleanly");
		return -1;
	}
	return 0;
}

/* A ping's summaries into a row (ddsperf.h says how they are combined); no p99.9, no per-sample file. */
static void md_dds_parse_lat(const char *path, struct md_lat *l)
{
	struct ddsperf_lat d;
	FILE *f = fopen(path, "re");
	int err;

	if (f == NULL) {
		bench_why(l->why, "no ddsperf output (%s)", strerror(errno));
		return;
	}
	err = ddsperf_parse_lat(f, &d);
	fclose(f);
	if (err < 0) {
		bench_why(l->why, "ddsperf printed no round-trip summary");
		return;
	}
	l->p50 = d.p50_us;
	l->p99 = d.p99_us;
	l->p999 = NAN;
	l->max = d.max_us;
	l->n = d.count;
	snprintf(l->note, sizeof(l->note),
		 "ddsperf's own per-second summaries: median of %d per-second p50s and p99s%s", d.seconds,
		 d.first_dropped ? ", first second dropped" : "");
	l->ok = true;
	l->why[0] = '\0';
}

static void md_dds_parse_tput(const char *path, struct md_tput *t)
{
	struct ddsperf_tput d;
	FILE *f = fopen(path, "re");
	int err;

	if (f == NULL) {
		bench_why(t->why, "no ddsperf sub output (%s)", strerror(errno));
		return;
	}
	err = ddsperf_parse_tput(f, &d);
	fclose(f);
	if (err < 0) {
		bench_why(t->why, "ddsperf sub saw data in fewer than 3 intervals");
		return;
	}
	t->rate = d.rate;
	snprintf(t->note, sizeof(t->note), "ddsperf sub's per-second deltas over %d full intervals",
		 d.intervals);
	t->ok = true;
	t->why[0] = '\0';
}

static void md_ddsperf(struct md_ctx *c)
{
	char bin[PATH_MAX], uri[PATH_MAX + 64], dom[16], pong_d[16], ping_d[16], sub_d[16], pub_d[16];
	char size_arg[16], out[PATH_MAX + 64], why[MD_WHY];
	char *env[] = {uri, NULL};
	const char *topic = c->o.size <= 4 ? "-TOU" : "-TKS";
	int ping_s = c->o.quick ? 3 : 12, pong_s = ping_s + 3;
	uint32_t sz = c->o.size < 12 ? 12 : c->o.size;

	if (c->o.no_peers || md_skipped(c, MD_DDSPERF)) {
		bench_why(why, "%s", c->o.no_peers ? "--no-peers" : "--skip ddsperf");
		goto fail_all;
	}
	if (mdrun_which(c->o.ddsperf, bin, sizeof(bin)) < 0) {
		bench_why(why, "ddsperf not found%s%s (apt-get install cyclonedds-tools)",
			  strchr(c->o.ddsperf, '/') ? " at " : "",
			  strchr(c->o.ddsperf, '/') ? c->o.ddsperf : "");
		goto fail_all;
	}
	if (md_dds_config(c, uri, sizeof(uri)) < 0) {
		bench_why(why, "cannot write the Cyclone DDS config");
		goto fail_all;
	}
	c->part[MD_DDSPERF].ok = true;
	snprintf(dom, sizeof(dom), "%d", MD_DDS_DOMAIN);
	snprintf(pong_d, sizeof(pong_d), "%d", pong_s);
	snprintf(ping_d, sizeof(ping_d), "%d", ping_s);
	snprintf(size_arg, sizeof(size_arg), "%u", sz);
	if (c->o.size <= 4)
		snprintf(c->dds_payload, sizeof(c->dds_payload),
			 "OU topic, 4 bytes (ddsperf has nothing smaller)");
	else
		snprintf(c->dds_payload, sizeof(c->dds_payload),
			 "KS topic, %u bytes with its 12-byte fixed part", sz);
	for (int ws = 0; ws < 2; ws++) {
		struct md_lat *l = ws ? &c->l_dds_wait : &c->l_dds;
		const char *mode = ws ? "waitset" : "listener";
		char *pong[] = {bin, "-i", dom, (char *)topic, "-D", pong_d, "pong", (char *)mode, NULL};
		char *ping_small[] = {bin,    "-i",   dom,	    (char *)topic, "-D",
				      ping_d, "ping", (char *)mode, NULL};
		char *ping_big[] = {bin,    "-i",   dom,      (char *)topic, "-D", ping_d,
				    "ping", "size", size_arg, (char *)mode,  NULL};
		const char *name = ws ? "ddsperf-lo-waitset" : "ddsperf-lo-listener";

		if (md_dds_pair(c, name, pong, c->o.size <= 4 ? ping_small : ping_big, env, ping_s + 20,
				false, l->why) < 0)
			continue;
		snprintf(out, sizeof(out), "%s/logs/%s.json", c->dir, name);
		md_dds_parse_lat(out, l);
	}
	{
		int sub_s = c->o.quick ? 6 : 12;
		char *sub[] = {bin, "-i", dom, (char *)topic, "-D", sub_d, "sub", NULL};
		char *pub_small[] = {bin, "-i", dom, (char *)topic, "-D", pub_d, "pub", NULL};
		char *pub_big[] = {bin, "-i", dom, (char *)topic, "-D", pub_d, "pub", "size", size_arg, NULL};

		snprintf(sub_d, sizeof(sub_d), "%d", sub_s + 2);
		snprintf(pub_d, sizeof(pub_d), "%d", sub_s);
		if (md_dds_pair(c, "ddsperf-lo-pubsub", sub, c->o.size <= 4 ? pub_small : pub_big, env,
				sub_s + 20, true, c->t_dds.why) == 0) {
			snprintf(out, sizeof(out), "%s/logs/ddsperf-lo-pubsub-server.txt", c->dir);
			md_dds_parse_tput(out, &c->t_dds);
		}
	}
	return;

fail_all:
	bench_why(c->part[MD_DDSPERF].why, "%s", why);
	md_lat_fail(&c->l_dds, why);
	md_lat_fail(&c->l_dds_wait, why);
	md_tput_fail(&c->t_dds, why);
}

/* ---- the network path ---- */

/* The monolithic row of one net run: in the JSON when `net --monolithic` measured it, else its reason. */
static void md_net_mono(struct json_object *j, const char *raw, struct md_lat *l, struct md_tput *t)
{
	char pat[PATH_MAX + 32];
	const char *why = mdrun_jstr(j, "monolithic.why");
	bool avail = false;

	if (mdrun_jget(j, "latency.monolithic") != NULL)
		md_lat_json(l, j, "latency.monolithic", "n", "why");
	else if (mdrun_jget(j, "monolithic.latency") != NULL)
		md_lat_json(l, j, "monolithic.latency", "n", "why");
	else if (mdrun_jbool(j, "monolithic.available", &avail) == 0 && !avail)
		bench_why(l->why, "%s", why && *why ? why : "not available (no reason given)");
	else
		bench_why(l->why, "net printed no monolithic figures");
	if (t != NULL) {
		if (mdrun_jget(j, "throughput.monolithic") != NULL)
			md_tput_json(t, j, "throughput.monolithic", "rate", "why");
		else if (mdrun_jget(j, "monolithic.throughput") != NULL)
			md_tput_json(t, j, "monolithic.throughput", "rate", "why");
		else
			bench_why(t->why, "%s", l->why);
	}
	snprintf(pat, sizeof(pat), "%s-*mono*.txt", raw);
	md_lat_raw_glob(l, pat);
}

/* Every row of one net run (blocking: poll false) takes why; the ddsperf row only when dds. */
static void md_net_fail(struct md_ctx *c, bool poll, bool dds, const char *why)
{
	if (poll) {
		md_lat_fail(&c->n_poll, why);
		md_lat_fail(&c->n_mono_poll, why);
		md_lat_fail(&c->n_raw_busy, why);
		bench_why(c->leg_send.why, "%s", why);
		bench_why(c->leg_recv.why, "%s", why);
		return;
	}
	md_lat_fail(&c->n_blk, why);
	md_lat_fail(&c->n_mono_blk, why);
	md_lat_fail(&c->n_raw, why);
	if (dds)
		md_lat_fail(&c->n_dds, why);
	md_tput_fail(&c->t_net, why);
	md_tput_fail(&c->t_net_frames, why);
	md_tput_fail(&c->t_net_packed, why);
	md_tput_fail(&c->t_net_packed_frames, why);
	md_tput_fail(&c->t_net_raw, why);
	md_tput_fail(&c->t_net_raw_gso, why);
	md_tput_fail(&c->t_net_mono, why);
}

/* A ratio net computed from its shared clock; without it, the monolithic row's reason. */
static void md_net_leg(struct json_object *j, const char *key, const struct md_lat *mono, struct md_num *n)
{
	if (mdrun_jnum(j, key, &n->v) == 0) {
		n->ok = true;
		n->why[0] = '\0';
	} else if (!mono->ok) {
		bench_why(n->why, "%s", mono->why);
	} else {
		bench_why(n->why, "net printed no %s (it needs both legs of both runs)", key);
	}
}

static void md_net_run(struct md_ctx *c, bool poll)
{
	char n[32], w[32], s[32], raw[PATH_MAX + 32], path[PATH_MAX + 64], why[MD_WHY], dpath[PATH_MAX + 8];
	char dds_s[16];
	char *argv[32];
	char *env[] = {dpath, NULL};
	struct json_object *j;
	struct md_lat *l = poll ? &c->n_poll : &c->n_blk;
	bool with_dds = !poll && !c->o.no_peers && !md_skipped(c, MD_DDSPERF);
	char bin[PATH_MAX];
	int i = 0, st;

	snprintf(n, sizeof(n), "%" PRIu64, c->o.n);
	snprintf(w, sizeof(w), "%" PRIu64, c->o.quick ? (uint64_t)100 : (uint64_t)1000);
	snprintf(s, sizeof(s), "%u", c->o.size);
	snprintf(raw, sizeof(raw), "%s/raw/%s", c->dir, poll ? "netpoll" : "net");
	snprintf(dds_s, sizeof(dds_s), "%d", c->o.quick ? 2 : 10);
	argv[i++] = c->self;
	argv[i++] = "net";
	argv[i++] = "--json";
	argv[i++] = "--monolithic";
	argv[i++] = "-n";
	argv[i++] = n;
	argv[i++] = "--warmup";
	argv[i++] = w;
	argv[i++] = "-s";
	argv[i++] = s;
	argv[i++] = "--raw";
	argv[i++] = raw;
	if (poll)
		argv[i++] = "--poll";
	if (c->o.quick) {
		argv[i++] = "-t";
		argv[i++] = "0.3";
		argv[i++] = "--max-seconds";
		argv[i++] = "5";
	}
	if (c->o.sddsd) {
		argv[i++] = "--sddsd";
		argv[i++] = (char *)c->o.sddsd;
	}
	/* net runs ddsperf from PATH: the one the report was given goes first in it. */
	dpath[0] = '\0';
	if (with_dds && mdrun_which(c->o.ddsperf, bin, sizeof(bin)) < 0) {
		bench_why(c->n_dds.why, "ddsperf not found%s%s (apt-get install cyclonedds-tools)",
			  strchr(c->o.ddsperf, '/') ? " at " : "",
			  strchr(c->o.ddsperf, '/') ? c->o.ddsperf : "");
		with_dds = false;
	} else if (with_dds) {
		const char *old = getenv("PATH");

		*strrchr(bin, '/') = '\0';
		snprintf(dpath, sizeof(dpath), "PATH=%s:%s", bin, old ? old : "/usr/bin:/bin");
	}
	if (with_dds) {
		argv[i++] = "--ddsperf-seconds";
		argv[i++] = dds_s;
	} else {
		argv[i++] = "--no-ddsperf";
		if (!poll && (c->o.no_peers || md_skipped(c, MD_DDSPERF)))
			bench_why(c->n_dds.why, "%s", c->o.no_peers ? "--no-peers" : "--skip ddsperf");
	}
	argv[i] = NULL;
	j = md_exec(c, poll ? "net-poll" : "net", argv, dpath[0] ? env : NULL, c->o.quick ? 150 : 1200, &st,
		    why);
	if (j == NULL) {
		if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
			char last[200];

			snprintf(path, sizeof(path), "%s/logs/%s.err", c->dir, poll ? "net-poll" : "net");
			mdrun_last_line(path, last, sizeof(last));
			bench_why(why, "cannot run here: %s", last);
		}
		if (!poll)
			bench_why(c->part[MD_NET].why, "%s", why);
		md_net_fail(c, poll, with_dds || poll, why);
		return;
	}
	c->part[MD_NET].ok = true;
	c->part[MD_NET].why[0] = '\0';
	md_lat_json(l, j, "latency.sddsd", "n", "why");
	snprintf(path, sizeof(path), "%s-net-sddsd.txt", raw);
	md_lat_raw(l, path);
	md_net_mono(j, raw, poll ? &c->n_mono_poll : &c->n_mono_blk, poll ? NULL : &c->t_net_mono);
	if (poll) {
		md_lat_json(&c->n_raw_busy, j, "latency.raw_udp6_busy", "n", "why");
		snprintf(path, sizeof(path), "%s-net-raw-busy.txt", raw);
		md_lat_raw(&c->n_raw_busy, path);
		md_net_leg(j, "monolithic.ratio_send", &c->n_mono_poll, &c->leg_send);
		md_net_leg(j, "monolithic.ratio_receive", &c->n_mono_poll, &c->leg_recv);
	} else {
		md_tput_json(&c->t_net_frames, j, "throughput.sddsd_frames", "rate", "why");
		md_lat_json(&c->n_raw, j, "latency.raw_udp6", "n", "why");
		snprintf(path, sizeof(path), "%s-net-raw.txt", raw);
		md_lat_raw(&c->n_raw, path);
		md_tput_json(&c->t_net, j, "throughput.sddsd", "rate", "why");
		md_tput_json(&c->t_net_raw, j, "throughput.raw_udp6_sendmmsg", "rate", "why");
		md_tput_json(&c->t_net_raw_gso, j, "throughput.raw_udp6_gso", "rate", "why");
		md_tput_json(&c->t_net_packed, j, "throughput.sddsd_packed", "rate", "why");
		md_tput_json(&c->t_net_packed_frames, j, "throughput.sddsd_packed_frames", "rate", "why");
		if (with_dds) {
			bool ok = false;
			const char *sum = mdrun_jstr(j, "ddsperf.summary");

			if (mdrun_jbool(j, "ddsperf.ok", &ok) == 0 && ok && sum != NULL) {
				/* One summary line of ddsperf (its last full second): parse it like the
				 * loopback ones. */
				snprintf(path, sizeof(path), "%s/logs/net-ddsperf-summary.txt", c->dir);
				FILE *f = fopen(path, "we");

				if (f != NULL) {
					fprintf(f, "%s\n", sum);
					fclose(f);
				}
				md_dds_parse_lat(path, &c->n_dds);
				if (c->n_dds.ok)
					snprintf(
					    c->n_dds.note, sizeof(c->n_dds.note),
					    "ddsperf's own summary of one second (run by sdds-bench net)");
			} else {
				const char *dw = mdrun_jstr(j, "ddsperf.why");

				bench_why(c->n_dds.why, "%s",
					  dw && *dw ? dw : "ddsperf failed (no reason given)");
			}
		}
	}
	mdrun_json_free(j);
}

static void md_net(struct md_ctx *c)
{
	if (md_skipped(c, MD_NET)) {
		const char *why = "--skip net";

		bench_why(c->part[MD_NET].why, "%s", why);
		md_net_fail(c, false, true, why);
		md_net_fail(c, true, true, why);
		return;
	}
	md_net_run(c, false);
	if (!c->part[MD_NET].ok) {
		/* The polling run would fail for the same reason. */
		md_net_fail(c, true, false, c->part[MD_NET].why);
		return;
	}
	md_net_run(c, true);
}

static void md_scale(struct md_ctx *c)
{
	char why[MD_WHY];
	char *argv[] = {
	    c->self, "scale", "--json", "--clients", c->o.quick ? "1,2,4,8" : "1,2,4,8,16,32,64,128,256",
	    NULL};
	struct json_object *j;
	bool ok = false;
	int st, n;

	if (md_skipped(c, MD_SCALE)) {
		bench_why(c->part[MD_SCALE].why, "--skip scale");
		return;
	}
	j = md_exec(c, "scale", argv, NULL, c->o.quick ? 120 : 900, &st, why);
	if (j == NULL) {
		if (WIFEXITED(st) && WEXITSTATUS(st) == 2)
			bench_why(why,
				  "this sdds-bench has no working 'scale' command (usage error, exit 2)");
		bench_why(c->part[MD_SCALE].why, "%s", why);
		return;
	}
	if (mdrun_jbool(j, "ok", &ok) == 0 && !ok)
		md_why_given(c->part[MD_SCALE].why, mdrun_jstr(j, "why"));
	n = mdrun_jlen(j, "points");
	for (int i = 0; i < n && c->n_sc < MD_MAX_SCALE; i++) {
		struct md_scale_pt *p = &c->sc[c->n_sc];
		bool pt_ok = true;
		char k[64];

#define MD_PT(key, dst)                                                                                      \
	do {                                                                                                 \
		snprintf(k, sizeof(k), "points.%d.%s", i, key);                                              \
		if (mdrun_jnum(j, k, dst) < 0)                                                               \
			*(dst) = NAN;                                                                        \
	} while (0)
		MD_PT("clients", &p->clients);
		MD_PT("p50_us", &p->p50);
		MD_PT("p99_us", &p->p99);
		MD_PT("daemon_rss_kib", &p->rss);
		MD_PT("daemon_pss_kib", &p->pss);
		MD_PT("rss_per_client_kib", &p->rss_pc);
#undef MD_PT
		snprintf(k, sizeof(k), "points.%d.ok", i);
		p->why[0] = '\0';
		if (mdrun_jbool(j, k, &pt_ok) == 0 && !pt_ok) {
			snprintf(k, sizeof(k), "points.%d.why", i);
			md_why_given(p->why, mdrun_jstr(j, k));
		}
		if (!isnan(p->clients))
			c->n_sc++;
	}
	if (c->n_sc > 0)
		c->part[MD_SCALE].ok = true;
	else if (!c->part[MD_SCALE].why[0])
		bench_why(c->part[MD_SCALE].why, "scale printed no points");
	mdrun_json_free(j);
}

static void md_trace(struct md_ctx *c)
{
	char bin[PATH_MAX], n[32], why[MD_WHY];
	char *argv[] = {bin, "compare", "--json", "-n", n, NULL};
	struct json_object *j;
	int st, runs;

	if (md_skipped(c, MD_TRACE)) {
		bench_why(c->part[MD_TRACE].why, "--skip trace");
		return;
	}
	if (c->o.trace != NULL) {
		if (mdrun_which(c->o.trace, bin, sizeof(bin)) < 0) {
			bench_why(c->part[MD_TRACE].why, "sdds-trace not found at %s", c->o.trace);
			return;
		}
	} else {
		char cand[PATH_MAX + 64];

		/* In the build tree sdds-trace is tools/sdds-trace/sdds-trace, next to this one's directory.
		 */
		snprintf(cand, sizeof(cand), "%.*s/../sdds-trace/sdds-trace",
			 (int)(strrchr(c->self, '/') - c->self), c->self);
		if (mdrun_which(cand, bin, sizeof(bin)) < 0 &&
		    mdrun_which("sdds-trace", bin, sizeof(bin)) < 0) {
			bench_why(c->part[MD_TRACE].why,
				  "sdds-trace not built (tools/sdds-trace; or give --sdds-trace PATH)");
			return;
		}
	}
	snprintf(n, sizeof(n), "%" PRIu64, c->o.quick ? c->o.n : (c->o.n < 20000 ? c->o.n : 20000));
	j = md_exec(c, "trace", argv, NULL, c->o.quick ? 150 : 900, &st, why);
	if (j == NULL) {
		bench_why(c->part[MD_TRACE].why, "%s", why);
		return;
	}
	runs = mdrun_jlen(j, "runs");
	for (int i = 0; i < runs && c->n_tr < MD_MAX_TRACE; i++) {
		struct md_trace_run *r = &c->tr[c->n_tr];
		const char *mode, *path;
		char k[96];
		bool cb;
		int np;

		snprintf(k, sizeof(k), "runs.%d.mode", i);
		mode = mdrun_jstr(j, k);
		snprintf(k, sizeof(k), "runs.%d.path", i);
		path = mdrun_jstr(j, k);
		if (mode == NULL || path == NULL)
			continue;
		memset(r, 0, sizeof(*r));
		snprintf(r->mode, sizeof(r->mode), "%s", mode);
		snprintf(k, sizeof(k), "runs.%d.callback", i);
		cb = false;
		mdrun_jbool(j, k, &cb);
		snprintf(r->path, sizeof(r->path), "%s%s", path, cb ? ", callback" : "");
		snprintf(k, sizeof(k), "runs.%d.samples", i);
		if (mdrun_jnum(j, k, &r->samples) < 0)
			r->samples = NAN;
		snprintf(k, sizeof(k), "runs.%d.unmatched", i);
		if (mdrun_jnum(j, k, &r->unmatched) < 0)
			r->unmatched = NAN;
		snprintf(k, sizeof(k), "runs.%d.phases", i);
		np = mdrun_jlen(j, k);
		for (int p = 0; p <= np; p++) {
			struct md_phase *ph = p < np ? &r->ph[r->n_ph] : &r->total;
			char base[96];
			const char *name;

			if (p < np && r->n_ph >= MD_MAX_PHASES)
				continue;
			if (p < np)
				snprintf(base, sizeof(base), "runs.%d.phases.%d", i, p);
			else
				snprintf(base, sizeof(base), "runs.%d.total", i);
			if (mdrun_jget(j, base) == NULL)
				continue;
			snprintf(k, sizeof(k), "%s.phase", base);
			name = mdrun_jstr(j, k);
			snprintf(ph->name, sizeof(ph->name), "%s", p < np ? (name ? name : "?") : "total");
#define MD_PH(key, dst)                                                                                      \
	do {                                                                                                 \
		snprintf(k, sizeof(k), "%s.%s", base, key);                                                  \
		if (mdrun_jnum(j, k, dst) < 0)                                                               \
			*(dst) = NAN;                                                                        \
	} while (0)
			MD_PH("min_us", &ph->min);
			MD_PH("avg_us", &ph->avg);
			MD_PH("max_us", &ph->max);
			MD_PH("std_us", &ph->std);
			MD_PH("count", &ph->count);
#undef MD_PH
			if (p < np)
				r->n_ph++;
			else
				r->has_total = true;
		}
		c->n_tr++;
	}
	runs = mdrun_jlen(j, "missing");
	for (int i = 0; i < runs && c->n_tr_missing < MD_MAX_TRACE; i++) {
		char k[3][64];

		snprintf(k[0], sizeof(k[0]), "missing.%d.mode", i);
		snprintf(k[1], sizeof(k[1]), "missing.%d.path", i);
		snprintf(k[2], sizeof(k[2]), "missing.%d.why", i);
		if (mdrun_jstr(j, k[0]) && mdrun_jstr(j, k[1]) && mdrun_jstr(j, k[2]))
			bench_why(c->tr_missing[c->n_tr_missing++], "%s %s: %s", mdrun_jstr(j, k[0]),
				  mdrun_jstr(j, k[1]), mdrun_jstr(j, k[2]));
	}
	if (c->n_tr > 0) {
		c->part[MD_TRACE].ok = true;
	} else {
		char s[48];

		mdrun_status_str(st, s, sizeof(s));
		bench_why(c->part[MD_TRACE].why, "sdds-trace printed no runs (%s)", s);
	}
	mdrun_json_free(j);
}

static void md_callgrind(struct md_ctx *c)
{
	char k[32], b[32], s[32], why[MD_WHY];
	char *argv[16];
	struct json_object *j;
	bool ok = false;
	int i = 0, st;

	if (md_skipped(c, MD_CALLGRIND)) {
		bench_why(c->cg_why, "--skip callgrind");
		bench_why(c->part[MD_CALLGRIND].why, "--skip callgrind");
		return;
	}
	snprintf(k, sizeof(k), "%d", c->o.quick ? 5000 : 50000);
	snprintf(b, sizeof(b), "%d", c->o.quick ? 500 : 1000);
	snprintf(s, sizeof(s), "%u", c->o.size);
	argv[i++] = c->self;
	argv[i++] = "callgrind";
	argv[i++] = "--json";
	argv[i++] = "-k";
	argv[i++] = k;
	argv[i++] = "--base";
	argv[i++] = b;
	argv[i++] = "-s";
	argv[i++] = s;
	argv[i++] = "--valgrind";
	argv[i++] = (char *)c->o.valgrind;
	if (c->o.sddsd) {
		argv[i++] = "--sddsd";
		argv[i++] = (char *)c->o.sddsd;
	}
	argv[i] = NULL;
	j = md_exec(c, "callgrind", argv, NULL, c->o.quick ? 150 : 900, &st, why);
	if (j == NULL) {
		bench_why(c->cg_why, "%s", why);
		bench_why(c->part[MD_CALLGRIND].why, "%s", why);
		return;
	}
	c->part[MD_CALLGRIND].ok = true;
	if (mdrun_jbool(j, "ok", &ok) < 0 || !ok || mdrun_jnum(j, "ir_per_sample", &c->cg_ir) < 0 ||
	    mdrun_jnum(j, "ir_base", &c->cg_base_ir) < 0 || mdrun_jnum(j, "ir_full", &c->cg_full_ir) < 0 ||
	    mdrun_jnum(j, "samples", &c->cg_k) < 0 || mdrun_jnum(j, "base_samples", &c->cg_base) < 0) {
		const char *w = mdrun_jstr(j, "why");

		bench_why(c->cg_why, "%s", w && *w ? w : "no figure in the JSON");
	} else {
		c->cg_ok = true;
	}
	if (c->cg_ok && mdrun_jbool(j, "clients_ok", &ok) == 0 && ok &&
	    mdrun_jnum(j, "writer_ir_per_sample", &c->cg_writer_ir) == 0 &&
	    mdrun_jnum(j, "reader_ir_per_sample", &c->cg_reader_ir) == 0) {
		c->cg_clients_ok = true;
	} else {
		const char *w = mdrun_jstr(j, "clients_why");

		bench_why(c->cg_clients_why, "%s", w && *w ? w : "no client figures in the JSON");
	}
	mdrun_json_free(j);
}

/* ------------------------------------------------------------ plots */

/* The distinct paths of the traced runs, in the order sdds-trace printed them; returns how many. */
static int md_trace_paths(const struct md_ctx *c, const char **ret, int max)
{
	int n = 0;

	for (int i = 0; i < c->n_tr; i++) {
		bool seen = false;

		for (int k = 0; k < n; k++)
			seen = seen || strcmp(ret[k], c->tr[i].path) == 0;
		if (!seen && n < max)
			ret[n++] = c->tr[i].path;
	}
	return n;
}

static void md_plots(struct md_ctx *c)
{
	struct mdplot p;
	char why[MD_WHY];
	const char *files[MD_N_PLOTS] = {"latency-local.png", "latency-net.png", "phases.png", "scaling.png"};
	const char *what[MD_N_PLOTS] = {"local latency profile", "network latency profile",
					"per-phase bar chart", "scaling plot"};

	for (int i = 0; i < MD_N_PLOTS; i++) {
		char old[PATH_MAX + 32];

		c->plots[i].file = files[i];
		c->plots[i].what = what[i];
		/* A PNG of an earlier run in the same DIR must not pass for this run's. */
		snprintf(old, sizeof(old), "%s/%s", c->dir, files[i]);
		unlink(old);
	}
	if (mdplot_init(&p, c->o.gnuplot, c->dir, why) < 0) {
		for (int i = 0; i < MD_N_PLOTS; i++)
			bench_why(c->plots[i].why, "%s", why);
		return;
	}
	{
		const struct md_lat *rows[] = {&c->l_spin,  &c->l_futex,    &c->l_yield,   &c->l_poll,
					       &c->l_block, &c->l_ice_poll, &c->l_ice_wait};
		const char *titles[] = {"spin (baseline)", "futex hop (baseline)", "yield, one CPU (floor)",
					"sddsd polling",   "sddsd blocking",	   "iceoryx polling",
					"iceoryx waitset"};
		struct mdplot_curve cv[7];
		size_t n = 0;

		for (size_t i = 0; i < 7; i++)
			if (rows[i]->raw[0])
				cv[n++] = (struct mdplot_curve){titles[i], rows[i]->raw};
		if (n == 0)
			bench_why(c->plots[MD_PLOT_LOCAL].why,
				  "no local latency run wrote per-iteration values");
		else
			c->plots[MD_PLOT_LOCAL].ok =
			    mdplot_profile(&p, files[MD_PLOT_LOCAL], "local one-way latency profile", cv, n,
					   c->plots[MD_PLOT_LOCAL].why) == 0;
	}
	{
		const struct md_lat *rows[] = {&c->n_blk,	&c->n_poll, &c->n_mono_blk,
					       &c->n_mono_poll, &c->n_raw,  &c->n_raw_busy};
		const char *titles[] = {"sddsd isolated, blocking daemons",
					"sddsd isolated, polling daemons",
					"monolithic, blocking",
					"monolithic, polling",
					"raw UDPv6",
					"raw UDPv6, busy-polled"};
		struct mdplot_curve cv[6];
		size_t n = 0;

		for (size_t i = 0; i < 6; i++)
			if (rows[i]->raw[0])
				cv[n++] = (struct mdplot_curve){titles[i], rows[i]->raw};
		if (n == 0)
			bench_why(c->plots[MD_PLOT_NET].why, "%s",
				  c->part[MD_NET].ok ? "no network latency run wrote per-iteration values"
						     : c->part[MD_NET].why);
		else
			c->plots[MD_PLOT_NET].ok =
			    mdplot_profile(&p, files[MD_PLOT_NET],
					   "network one-way latency profile (veth, netns)", cv, n,
					   c->plots[MD_PLOT_NET].why) == 0;
	}
	if (!c->part[MD_TRACE].ok) {
		bench_why(c->plots[MD_PLOT_PHASES].why, "%s", c->part[MD_TRACE].why);
	} else {
		/* One panel per path; bars pair each isolated phase with the monolithic one of that name. */
		static struct mdplot_bar bars[MD_MAX_TRACE][MD_MAX_PHASES * 2];
		struct mdplot_panel panels[MD_MAX_TRACE];
		const char *paths[MD_MAX_TRACE];
		int n_paths = md_trace_paths(c, paths, MD_MAX_TRACE);
		size_t np = 0;

		for (int pi = 0; pi < n_paths; pi++) {
			const struct md_trace_run *iso = NULL, *mono = NULL;
			size_t nb = 0;

			for (int i = 0; i < c->n_tr; i++) {
				if (strcmp(c->tr[i].path, paths[pi]) != 0)
					continue;
				if (strcmp(c->tr[i].mode, "isolated") == 0)
					iso = &c->tr[i];
				else if (strcmp(c->tr[i].mode, "monolithic") == 0)
					mono = &c->tr[i];
			}
			if (iso == NULL && mono == NULL)
				continue;
			for (int k = 0; iso && k < iso->n_ph; k++) {
				double m = NAN;

				for (int q = 0; mono && q < mono->n_ph; q++)
					if (strcmp(mono->ph[q].name, iso->ph[k].name) == 0)
						m = mono->ph[q].avg;
				bars[pi][nb++] = (struct mdplot_bar){iso->ph[k].name, iso->ph[k].avg, m};
			}
			for (int q = 0; mono && q < mono->n_ph; q++) {
				bool seen = false;

				for (int k = 0; iso && k < iso->n_ph; k++)
					seen = seen || strcmp(mono->ph[q].name, iso->ph[k].name) == 0;
				if (!seen)
					bars[pi][nb++] =
					    (struct mdplot_bar){mono->ph[q].name, NAN, mono->ph[q].avg};
			}
			if (nb > 0)
				panels[np++] = (struct mdplot_panel){paths[pi], bars[pi], nb};
		}
		c->plots[MD_PLOT_PHASES].ok =
		    mdplot_phases(&p, files[MD_PLOT_PHASES], panels, np, c->plots[MD_PLOT_PHASES].why) == 0;
	}
	if (!c->part[MD_SCALE].ok) {
		bench_why(c->plots[MD_PLOT_SCALING].why, "%s", c->part[MD_SCALE].why);
	} else {
		struct mdplot_scale_point pts[MD_MAX_SCALE];

		for (int i = 0; i < c->n_sc; i++)
			pts[i] = (struct mdplot_scale_point){c->sc[i].clients, c->sc[i].p50, c->sc[i].p99,
							     c->sc[i].rss_pc};
		c->plots[MD_PLOT_SCALING].ok =
		    mdplot_scaling(&p, files[MD_PLOT_SCALING], pts, (size_t)c->n_sc,
				   c->plots[MD_PLOT_SCALING].why) == 0;
	}
}

/* ------------------------------------------------------------ ratios */

static struct md_fig md_fig_p50(const char *name, const struct md_lat *l)
{
	return (struct md_fig){name, l->ok, l->p50, l->why};
}

static struct md_fig md_fig_rate(const char *name, const struct md_tput *t)
{
	return (struct md_fig){name, t->ok, t->rate, t->why};
}

static struct md_ratio *md_ratio_new(struct md_ctx *c, const char *name, const char *unit, int cmp,
				     double goal, const char *goal_text)
{
	struct md_ratio *r = &c->ratios[c->n_ratios++];

	*r = (struct md_ratio){.name = name, .unit = unit, .cmp = cmp, .goal = goal, .goal_text = goal_text};
	return r;
}

/* r = scale * (a / b + offset), or n/a with the reason of the first missing figure. */
static void md_ratio_div(struct md_ratio *r, struct md_fig a, struct md_fig b, double scale, double offset)
{
	if (!a.ok) {
		bench_why(r->why, "%s not measured: %s", a.name, a.why);
		return;
	}
	if (!b.ok) {
		bench_why(r->why, "%s not measured: %s", b.name, b.why);
		return;
	}
	if (!(b.v > 0)) {
		bench_why(r->why, "%s is zero", b.name);
		return;
	}
	r->v = scale * (a.v / b.v + offset);
	r->ok = true;
}

static void md_ratio_abs(struct md_ratio *r, struct md_fig a, double scale)
{
	if (!a.ok) {
		bench_why(r->why, "%s not measured: %s", a.name, a.why);
		return;
	}
	r->v = a.v * scale;
	r->ok = true;
}

/* The isolated and monolithic total averages of one traced path. */
static void md_trace_totals(const struct md_ctx *c, const char *path, struct md_fig *iso, struct md_fig *mono)
{
	*iso = (struct md_fig){"isolated trace total", false, 0, c->part[MD_TRACE].why};
	*mono = (struct md_fig){"monolithic trace total", false, 0, c->part[MD_TRACE].why};
	if (!c->part[MD_TRACE].ok) {
		return;
	}
	iso->why = mono->why = "sdds-trace printed no such run";
	/* sdds-trace says why a run is missing ("monolithic send: why"); that is the reason to give. */
	for (int i = 0; i < c->n_tr_missing; i++) {
		char want[64];

		snprintf(want, sizeof(want), "isolated %s:", path);
		if (strncmp(c->tr_missing[i], want, strlen(want)) == 0)
			iso->why = c->tr_missing[i];
		snprintf(want, sizeof(want), "monolithic %s:", path);
		if (strncmp(c->tr_missing[i], want, strlen(want)) == 0)
			mono->why = c->tr_missing[i];
	}
	for (int i = 0; i < c->n_tr; i++) {
		const struct md_trace_run *r = &c->tr[i];
		struct md_fig *f;

		if (strcmp(r->path, path) != 0)
			continue;
		f = strcmp(r->mode, "isolated") == 0 ? iso : strcmp(r->mode, "monolithic") == 0 ? mono : NULL;
		if (f == NULL)
			continue;
		if (r->has_total && !isnan(r->total.avg)) {
			f->ok = true;
			f->v = r->total.avg;
		} else {
			f->why = "the run has no total";
		}
	}
}

static void md_ratios(struct md_ctx *c)
{
	struct md_ratio *r;
	struct md_fig iso, mono, best_tput, one = {"one", true, 1, ""};

	r = md_ratio_new(c, "local one-way, sddsd polling / iceoryx polling (median)", "x", -1, 1.0,
			 "<= 1 (sddsd polling <= 0.6 us = iceoryx polling here)");
	md_ratio_div(r, md_fig_p50("sddsd polling", &c->l_poll),
		     md_fig_p50("iceoryx polling", &c->l_ice_poll), 1, 0);
	r = md_ratio_new(c, "local one-way, sddsd polling median", "us", -1, BENCH_GOAL_POLLING_US,
			 "<= 0.6 us");
	md_ratio_abs(r, md_fig_p50("sddsd polling", &c->l_poll), 1);
	r = md_ratio_new(c, "local one-way, sddsd polling / yield-spin on one CPU (median)", "x", 0, 0,
			 "1.0x: sddsd adds nothing to the one switch per hop");
	md_ratio_div(r, md_fig_p50("sddsd polling", &c->l_poll),
		     md_fig_p50("one-CPU yield floor", &c->l_yield), 1, 0);
	r = md_ratio_new(c, "local one-way, sddsd blocking / one futex hop (median)", "x", -1,
			 BENCH_GOAL_BLOCKING_HOPS, "<= 2.1");
	md_ratio_div(r, md_fig_p50("sddsd blocking", &c->l_block), md_fig_p50("futex hop", &c->l_futex), 1,
		     0);
	r = md_ratio_new(c, "local one-way, sddsd blocking / iceoryx WaitSet (median)", "x", 0, 0, "");
	md_ratio_div(r, md_fig_p50("sddsd blocking", &c->l_block),
		     md_fig_p50("iceoryx waitset", &c->l_ice_wait), 1, 0);
	r = md_ratio_new(c, "local one-way, sddsd blocking / ddsperf on loopback (median)", "x", 0, 0, "");
	md_ratio_div(r, md_fig_p50("sddsd blocking", &c->l_block), md_fig_p50("ddsperf loopback", &c->l_dds),
		     1, 0);
	/* The better of the two daemon modes is the figure the goal is about. */
	best_tput = md_fig_rate("sddsd throughput", c->t_poll.ok ? &c->t_poll : &c->t_block);
	if (c->t_poll.ok && c->t_block.ok && c->t_block.rate > c->t_poll.rate)
		best_tput = md_fig_rate("sddsd throughput", &c->t_block);
	r = md_ratio_new(c, "local throughput, sddsd (better daemon mode)", "M/s", +1, BENCH_GOAL_TPUT / 1e6,
			 ">= 10 M samples/s");
	md_ratio_abs(r, best_tput, 1e-6);
	r = md_ratio_new(c, "local throughput, isolated / monolithic (polling budget)", "x", 0, 0, "");
	md_ratio_div(r, md_fig_rate("sddsd polling throughput", &c->t_poll),
		     md_fig_rate("monolithic throughput", &c->t_mono_spin), 1, 0);
	r = md_ratio_new(c, "local throughput, sddsd / ddsperf pub-sub on loopback", "x", 0, 0, "");
	md_ratio_div(r, best_tput, md_fig_rate("ddsperf throughput", &c->t_dds), 1, 0);
	r = md_ratio_new(c, "net one-way, sddsd / ddsperf (median, veth)", "x", -1, 1.0, "<= 1");
	md_ratio_div(r, md_fig_p50("net sddsd (blocking daemons)", &c->n_blk),
		     md_fig_p50("net ddsperf", &c->n_dds), 1, 0);
	r = md_ratio_new(c, "net one-way, sddsd / raw UDPv6 (median, veth)", "x", -1, 1.15, "<= 1.15");
	md_ratio_div(r, md_fig_p50("net sddsd (blocking daemons)", &c->n_blk),
		     md_fig_p50("net raw UDPv6", &c->n_raw), 1, 0);
	r = md_ratio_new(c, "net isolation cost, polling: isolated / monolithic - 1 (median)", "%", -1, 5,
			 "<= 5%");
	md_ratio_div(r, md_fig_p50("net sddsd (polling daemons)", &c->n_poll),
		     md_fig_p50("net monolithic (polling)", &c->n_mono_poll), 100, -1);
	r = md_ratio_new(c, "net isolation cost, polling, send side (A->B legs, median)", "%", 0, 0,
			 "paper (STM32F4): +16%");
	md_ratio_div(r, (struct md_fig){"send-side ratio", c->leg_send.ok, c->leg_send.v, c->leg_send.why},
		     one, 100, -1);
	r = md_ratio_new(c, "net isolation cost, polling, receive side (B->A legs, median)", "%", 0, 0,
			 "paper (STM32F4): +44%");
	md_ratio_div(r, (struct md_fig){"receive-side ratio", c->leg_recv.ok, c->leg_recv.v, c->leg_recv.why},
		     one, 100, -1);
	r = md_ratio_new(c, "net one-way, sddsd polling / raw UDPv6 busy-polled (median)", "x", 0, 0, "");
	md_ratio_div(r, md_fig_p50("net sddsd (polling daemons)", &c->n_poll),
		     md_fig_p50("busy-polled raw UDPv6", &c->n_raw_busy), 1, 0);
	r = md_ratio_new(c, "net throughput, sddsd frames / raw UDPv6 sendmmsg datagrams (same size)", "x",
			 +1, 0.9, ">= 0.9");
	md_ratio_div(r, md_fig_rate("sddsd frames/s", &c->t_net_frames),
		     md_fig_rate("raw UDPv6 throughput", &c->t_net_raw), 1, 0);
	r = md_ratio_new(c, "net throughput, sddsd frames / raw UDPv6 GSO datagrams (same size)", "x", 0, 0,
			 "");
	md_ratio_div(r, md_fig_rate("sddsd frames/s", &c->t_net_frames),
		     md_fig_rate("raw UDPv6 GSO throughput", &c->t_net_raw_gso), 1, 0);
	r = md_ratio_new(c, "net throughput, sddsd samples / raw UDPv6 datagrams", "x", 0, 0, "");
	md_ratio_div(r, md_fig_rate("net sddsd throughput", &c->t_net),
		     md_fig_rate("raw UDPv6 throughput", &c->t_net_raw), 1, 0);
	r = md_ratio_new(c, "net throughput, packed sddsd samples (peer_pack) / raw UDPv6 datagrams", "x", 0,
			 0, "");
	md_ratio_div(r, md_fig_rate("packed sddsd throughput", &c->t_net_packed),
		     md_fig_rate("raw UDPv6 throughput", &c->t_net_raw), 1, 0);
	md_trace_totals(c, "receive", &iso, &mono);
	r = md_ratio_new(c, "isolation cost, receive path (traced total, avg)", "%", 0, 44,
			 "paper (STM32F4): +44%");
	md_ratio_div(r, iso, mono, 100, -1);
	md_trace_totals(c, "send", &iso, &mono);
	r = md_ratio_new(c, "isolation cost, send path (traced total, avg)", "%", 0, 16,
			 "paper (STM32F4): +16%");
	md_ratio_div(r, iso, mono, 100, -1);
	md_trace_totals(c, "local", &iso, &mono);
	r = md_ratio_new(c, "isolation cost, local path (traced total, avg)", "%", 0, 0, "");
	md_ratio_div(r, iso, mono, 100, -1);
	r = md_ratio_new(c, "sddsd instructions per sample (callgrind)", "Ir", 0, 0, "");
	md_ratio_abs(r, (struct md_fig){"instructions per sample", c->cg_ok, c->cg_ir, c->cg_why}, 1);
}

/* ------------------------------------------------------------ Markdown */

/* A latency in us with as many decimals as its size deserves. */
static const char *md_us(double v, char *buf, size_t cap)
{
	if (isnan(v))
		snprintf(buf, cap, "-");
	else if (v < 10)
		snprintf(buf, cap, "%.3f", v);
	else if (v < 1000)
		snprintf(buf, cap, "%.1f", v);
	else
		snprintf(buf, cap, "%.0f", v);
	return buf;
}

/* v with `decimals` decimals, or "-" for a figure that is absent. */
static const char *md_fixed(double v, int decimals, char *buf, size_t cap)
{
	if (isnan(v))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%.*f", decimals, v);
	return buf;
}

/* Table cells must not hold a '|' or a newline. */
static const char *md_cell(const char *s, char *buf, size_t cap)
{
	size_t j = 0;

	for (size_t i = 0; s[i] && j + 2 < cap; i++) {
		if (s[i] == '|') {
			buf[j++] = '/';
		} else if (s[i] == '\n' || s[i] == '\r') {
			buf[j++] = ' ';
		} else {
			buf[j++] = s[i];
		}
	}
	buf[j] = '\0';
	return buf;
}

static void md_lat_row(FILE *f, const struct md_lat *l)
{
	char a[32], b[32], d[32], e[32], w[MD_WHY + 8];

	if (!l->ok) {
		fprintf(f, "| %s | not run: %s | | | | | |\n", l->label, md_cell(l->why, w, sizeof(w)));
		return;
	}
	fprintf(f, "| %s | %.0f | %s | %s | %s | %s | %s%s%s |\n", l->label, l->n,
		md_us(l->p50, a, sizeof(a)), md_us(l->p99, b, sizeof(b)), md_us(l->p999, d, sizeof(d)),
		md_us(l->max, e, sizeof(e)), l->truncated ? "time cap reached; " : "",
		md_cell(l->note, w, sizeof(w)),
		l->raw[0] ? (l->note[0] ? "; profile plotted" : "profile plotted") : "");
}

static void md_lat_head(FILE *f)
{
	fprintf(f, "| path | samples | median | p99 | p99.9 | max | note |\n");
	fprintf(f, "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
}

static void md_tput_row(FILE *f, const struct md_tput *t)
{
	char w[MD_WHY + 8];

	if (!t->ok)
		fprintf(f, "| %s | not run: %s | |\n", t->label, md_cell(t->why, w, sizeof(w)));
	else
		fprintf(f, "| %s | %.3f | %s |\n", t->label, t->rate / 1e6, md_cell(t->note, w, sizeof(w)));
}

static void md_plot_ref(FILE *f, const struct md_plotres *p)
{
	char w[MD_WHY + 8];

	if (p->ok)
		fprintf(f, "\n![%s](%s)\n", p->what, p->file);
	else
		fprintf(f, "\n%s: not drawn: %s\n", p->what, md_cell(p->why, w, sizeof(w)));
	if (p->ok && p->why[0])
		fprintf(f, "(%s)\n", md_cell(p->why, w, sizeof(w)));
}

static const char *md_ratio_val(const struct md_ratio *r, char *buf, size_t cap)
{
	char w[MD_WHY + 8];

	if (!r->ok)
		snprintf(buf, cap, "n/a (%s)", md_cell(r->why, w, sizeof(w)));
	else if (strcmp(r->unit, "x") == 0)
		snprintf(buf, cap, "%.2fx", r->v);
	else if (strcmp(r->unit, "%") == 0)
		snprintf(buf, cap, "%+.1f%%", r->v);
	else if (strcmp(r->unit, "Ir") == 0)
		snprintf(buf, cap, "%.0f instructions", r->v);
	else
		snprintf(buf, cap, "%.3f %s", r->v, r->unit);
	return buf;
}

static const char *md_ratio_met(const struct md_ratio *r)
{
	if (r->cmp == 0 || !r->ok)
		return "-";
	return (r->cmp < 0 ? r->v <= r->goal : r->v >= r->goal) ? "met" : "NOT met";
}

static void md_phase_tables(FILE *f, const struct md_ctx *c)
{
	const char *paths[MD_MAX_TRACE];
	int n_paths = md_trace_paths(c, paths, MD_MAX_TRACE);
	char a[8][32], w[MD_WHY + 8];

	for (int i = 0; i < c->n_tr_missing; i++)
		fprintf(f, "\nnot traced: %s\n", md_cell(c->tr_missing[i], w, sizeof(w)));
	for (int pi = 0; pi < n_paths; pi++) {
		const struct md_trace_run *iso = NULL, *mono = NULL;

		for (int i = 0; i < c->n_tr; i++) {
			if (strcmp(c->tr[i].path, paths[pi]) != 0)
				continue;
			if (strcmp(c->tr[i].mode, "isolated") == 0)
				iso = &c->tr[i];
			else if (strcmp(c->tr[i].mode, "monolithic") == 0)
				mono = &c->tr[i];
		}
		if (iso == NULL && mono == NULL)
			continue;
		fprintf(f,
			"\n**%s path** (us; isolated: %.0f samples, %.0f unmatched; monolithic: ", paths[pi],
			iso ? iso->samples : NAN, iso ? iso->unmatched : NAN);
		if (mono)
			fprintf(f, "%.0f samples, %.0f unmatched)\n\n", mono->samples, mono->unmatched);
		else
			fprintf(f, "not traced)\n\n");
		fprintf(f,
			"| phase | iso MIN | iso AVG | iso MAX | iso STD | mono MIN | mono AVG | mono MAX | "
			"mono STD |\n");
		fprintf(f, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
		for (int pass = 0; pass < 3; pass++) {
			/* Pass 0: isolated phases (with their monolithic twin), 1: monolithic-only, 2: total.
			 */
			const struct md_trace_run *outer = pass == 1 ? mono : iso;
			int n = pass == 2 ? 1 : outer ? outer->n_ph : 0;

			if (pass == 2 && !((iso && iso->has_total) || (mono && mono->has_total)))
				continue;
			for (int k = 0; k < n; k++) {
				const struct md_phase *x = NULL, *y = NULL;
				const char *name;

				if (pass == 2) {
					x = iso && iso->has_total ? &iso->total : NULL;
					y = mono && mono->has_total ? &mono->total : NULL;
					name = "**total**";
				} else {
					const struct md_trace_run *other = pass == 0 ? mono : iso;
					const struct md_phase *twin = NULL;

					for (int q = 0; other && q < other->n_ph; q++)
						if (strcmp(other->ph[q].name, outer->ph[k].name) == 0)
							twin = &other->ph[q];
					if (pass == 1 && twin != NULL)
						continue;
					x = pass == 0 ? &outer->ph[k] : NULL;
					y = pass == 0 ? twin : &outer->ph[k];
					name = outer->ph[k].name;
				}
				fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name,
					md_us(x ? x->min : NAN, a[0], 32), md_us(x ? x->avg : NAN, a[1], 32),
					md_us(x ? x->max : NAN, a[2], 32), md_us(x ? x->std : NAN, a[3], 32),
					md_us(y ? y->min : NAN, a[4], 32), md_us(y ? y->avg : NAN, a[5], 32),
					md_us(y ? y->max : NAN, a[6], 32), md_us(y ? y->std : NAN, a[7], 32));
			}
		}
	}
}

static int md_write_md(const struct md_ctx *c, const char *path)
{
	char v[MD_WHY + 64], w[MD_WHY + 8];
	FILE *f = fopen(path, "we");
	int err = 0;

	if (f == NULL)
		return -errno;
	fprintf(f, "# sddsd performance report\n\n");
	fprintf(f,
		"Generated by `%s` on %s. Every figure below was measured in this one run; "
		"a ratio is printed only when both of its figures were, otherwise it says why.\n\n",
		md_cell(c->cmdline, w, sizeof(w)), c->date);
	fprintf(f, "## Machine\n\n| | |\n| --- | --- |\n");
	fprintf(f, "| CPU | %s |\n| CPUs online | %d |\n| kernel | %s |\n", c->cpu_model, c->cpus, c->kernel);
	fprintf(f, "| load average (1/5/15 min) before | %.2f / %.2f / %.2f |\n", c->load0[0], c->load0[1],
		c->load0[2]);
	fprintf(f, "| load average (1/5/15 min) after | %.2f / %.2f / %.2f |\n", c->load1[0], c->load1[1],
		c->load1[2]);
	fprintf(f, "| date | %s |\n| commit | %s |\n", c->date, c->commit);
	fprintf(f, "| payload | %u bytes |\n| latency iterations | %" PRIu64 "%s |\n", c->o.size, c->o.n,
		c->o.quick ? " (--quick: a smoke run, not figures to quote)" : "");
	fprintf(f, "\n%s\n",
		c->load0[0] >= 0.5 || c->load1[0] >= 1.5
		    ? "The machine was shared with other work during the run (see the load): absolute "
		      "figures are "
		      "noisy, ratios of figures from the same run less so."
		    : "The machine was quiet before the run.");
	fprintf(f, "Latency is one-way (round trip / 2) in microseconds; throughput in million samples per "
		   "second.\n");

	fprintf(f, "\n## Headline ratios\n\n| ratio | measured | goal | |\n| --- | --- | --- | --- |\n");
	for (int i = 0; i < c->n_ratios; i++)
		fprintf(f, "| %s | %s | %s | %s |\n", c->ratios[i].name,
			md_ratio_val(&c->ratios[i], v, sizeof(v)),
			c->ratios[i].goal_text[0] ? c->ratios[i].goal_text : "-",
			md_ratio_met(&c->ratios[i]));

	fprintf(f, "\n## Local latency (one machine, shared memory)\n\n");
	if (!c->part[MD_LOCAL].ok)
		fprintf(f, "sdds-bench local: not run: %s\n\n", md_cell(c->part[MD_LOCAL].why, w, sizeof(w)));
	if (!c->part[MD_ICEORYX].ok)
		fprintf(f, "iceoryx: not run: %s\n\n", md_cell(c->part[MD_ICEORYX].why, w, sizeof(w)));
	if (!c->part[MD_DDSPERF].ok)
		fprintf(f, "Cyclone DDS ddsperf: not run: %s\n\n",
			md_cell(c->part[MD_DDSPERF].why, w, sizeof(w)));
	md_lat_head(f);
	md_lat_row(f, &c->l_spin);
	md_lat_row(f, &c->l_futex);
	md_lat_row(f, &c->l_yield);
	md_lat_row(f, &c->l_poll);
	md_lat_row(f, &c->l_block);
	md_lat_row(f, &c->l_ice_poll);
	md_lat_row(f, &c->l_ice_wait);
	md_lat_row(f, &c->l_dds);
	md_lat_row(f, &c->l_dds_wait);
	if (c->local_poll_note[0])
		fprintf(f, "\nsddsd polling: %s. %s\n", c->local_poll_note,
			c->cpus > 2 ? "One busy process per CPU at most."
			: c->local_poll_yield
			    ? "On two CPUs the two clients share one: yielding hands it over "
			      "within microseconds, but every hop still pays a context switch."
			    : "On two CPUs that is three busy processes on two CPUs: two of them "
			      "take turns at the scheduler tick, so a round trip can cost milliseconds.");
	if (c->local_poll_note[0] && c->l_yield.ok) {
		char ratio[64] = "";

		if (c->l_poll.ok && c->l_yield.p50 > 0)
			snprintf(ratio, sizeof(ratio), "; sddsd polling is %.2fx that",
				 c->l_poll.p50 / c->l_yield.p50);
		fprintf(f,
			"The floor of a hop between two busy processes that share a CPU is the yield-spin "
			"baseline on one CPU: one system call and one context switch (%.3f us median "
			"here%s). %s\n",
			c->l_yield.p50, ratio,
			c->cpus > 2 ? "With a CPU for each busy process no hop needs a switch."
				    : "The 0.6 us goal needs a CPU for each of the three busy processes "
				      "(sddsd and two clients); this machine has two.");
	}
	if (c->dds_payload[0])
		fprintf(
		    f,
		    "ddsperf payload: %s; Cyclone DDS over UDPv6 on ::1 (config %s/logs/cyclonedds-lo6.xml, "
		    "as tools/sdds-bench/cyclonedds-lo6.xml).\n",
		    c->dds_payload, c->dir);
	md_plot_ref(f, &c->plots[MD_PLOT_LOCAL]);
	fprintf(
	    f,
	    "\nThe profiles are cumulative histograms counted from the right (as the PCIe seed paper draws "
	    "them): for each latency x, the number of samples at or above x, log-scale on both axes.\n");

	fprintf(f, "\n## Network latency (two namespaces, two daemons, UDPv6 over a veth pair)\n\n");
	if (!c->part[MD_NET].ok)
		fprintf(f, "sdds-bench net: not run: %s\n\n", md_cell(c->part[MD_NET].why, w, sizeof(w)));
	md_lat_head(f);
	md_lat_row(f, &c->n_blk);
	md_lat_row(f, &c->n_poll);
	md_lat_row(f, &c->n_mono_blk);
	md_lat_row(f, &c->n_mono_poll);
	md_lat_row(f, &c->n_raw);
	md_lat_row(f, &c->n_raw_busy);
	md_lat_row(f, &c->n_dds);
	md_plot_ref(f, &c->plots[MD_PLOT_NET]);

	fprintf(f, "\n## Throughput (M samples/s at the reader)\n\n| path | M samples/s | note |\n| --- | "
		   "---: | --- "
		   "|\n");
	md_tput_row(f, &c->t_poll);
	md_tput_row(f, &c->t_block);
	md_tput_row(f, &c->t_mono_spin);
	md_tput_row(f, &c->t_mono_sleep);
	md_tput_row(f, &c->t_dds);
	md_tput_row(f, &c->t_net);
	md_tput_row(f, &c->t_net_frames);
	md_tput_row(f, &c->t_net_packed);
	md_tput_row(f, &c->t_net_packed_frames);
	md_tput_row(f, &c->t_net_mono);
	md_tput_row(f, &c->t_net_raw);
	md_tput_row(f, &c->t_net_raw_gso);

	fprintf(f, "\n## Scaling with the number of connected clients\n\n");
	if (!c->part[MD_SCALE].ok) {
		fprintf(f, "not run: %s\n", md_cell(c->part[MD_SCALE].why, w, sizeof(w)));
	} else {
		char a[32], b[32];

		fprintf(
		    f,
		    "| clients | p50 us | p99 us | daemon RSS KiB | daemon PSS KiB | RSS per client KiB |\n");
		fprintf(f, "| ---: | ---: | ---: | ---: | ---: | ---: |\n");
		for (int i = 0; i < c->n_sc; i++) {
			char r[3][32];

			/* A point that failed has no figures: "-", never a NaN. */
			fprintf(f, "| %.0f | %s | %s | %s | %s | %s |\n", c->sc[i].clients,
				md_us(c->sc[i].p50, a, sizeof(a)), md_us(c->sc[i].p99, b, sizeof(b)),
				md_fixed(c->sc[i].rss, 0, r[0], sizeof(r[0])),
				md_fixed(c->sc[i].pss, 0, r[1], sizeof(r[1])),
				md_fixed(c->sc[i].rss_pc, 1, r[2], sizeof(r[2])));
			if (c->sc[i].why[0])
				fprintf(f, "| | point failed: %s | | | | |\n",
					md_cell(c->sc[i].why, w, sizeof(w)));
		}
		if (c->part[MD_SCALE].why[0])
			fprintf(f, "\nscale reported a failure: %s\n",
				md_cell(c->part[MD_SCALE].why, w, sizeof(w)));
	}
	md_plot_ref(f, &c->plots[MD_PLOT_SCALING]);

	fprintf(f, "\n## Per-phase latency, isolated vs monolithic (sdds-trace, USDT probes)\n\n");
	fprintf(f, "The layout of the seed paper's Tables 1 and 2: per phase MIN, AVG, MAX, STD in us.\n");
	if (!c->part[MD_TRACE].ok)
		fprintf(f, "\nnot run: %s\n", md_cell(c->part[MD_TRACE].why, w, sizeof(w)));
	else
		md_phase_tables(f, c);
	md_plot_ref(f, &c->plots[MD_PLOT_PHASES]);

	fprintf(f, "\n## Instructions per sample through the daemon (callgrind)\n\n");
	if (c->cg_ok)
		fprintf(
		    f,
		    "**%.0f instructions per sample** in sddsd (all its threads), %u-byte reliable samples, "
		    "blocking mode. How: sddsd runs under `valgrind --tool=callgrind` twice with the same "
		    "setup (start, two clients, one topic, writer -> reader, stop): once for %.0f samples "
		    "(%.0f Ir) and once for %.0f more (%.0f Ir); the figure is the difference divided by "
		    "%.0f. It counts instructions, not time: the same on a quiet and a busy machine.\n",
		    c->cg_ir, c->o.size, c->cg_base, c->cg_base_ir, c->cg_k, c->cg_full_ir, c->cg_k);
	if (c->cg_ok && c->cg_clients_ok)
		fprintf(f,
			"\nThe clients, counted the same way in two more runs with sddsd running natively: "
			"**%.0f instructions per sample in the writer process, %.0f in the reader process** "
			"(`sdds_writer_write`, `sdds_reader_take`; each process over its write or take loop, "
			"the benchmark's own loop included).\n",
			c->cg_writer_ir, c->cg_reader_ir);
	else if (c->cg_ok)
		fprintf(f, "\nThe clients: not counted: %s\n", md_cell(c->cg_clients_why, w, sizeof(w)));
	if (!c->cg_ok)
		fprintf(f, "not run: %s\n", md_cell(c->cg_why, w, sizeof(w)));

	fprintf(f,
		"\n## How this report was made\n\nEach part ran as a child process with a time cap; its "
		"output is in `logs/` (JSON on stdout, progress on stderr) and its per-iteration values in "
		"`raw/`.\n\n| step | command | result | seconds |\n| --- | --- | --- | ---: |\n");
	for (int i = 0; i < c->n_steps; i++) {
		char cmd[1700];

		fprintf(f, "| %s | `%s` | %s | %.1f |\n", c->steps[i].name,
			md_cell(c->steps[i].cmd, cmd, sizeof(cmd)), md_cell(c->steps[i].result, w, sizeof(w)),
			c->steps[i].secs);
	}
	for (int i = 0; i < MD_N_PARTS; i++)
		if (md_skipped(c, (enum md_part)i))
			fprintf(f, "\nSkipped on request: %s.\n", md_part_names[i]);
	if (ferror(f))
		err = -EIO;
	if (fclose(f) != 0 && err == 0)
		err = -errno;
	return err;
}

/* ------------------------------------------------------------ JSON */

static void md_json_lat(struct json *j, const char *section, const struct md_lat *l)
{
	json_obj_begin(j, NULL);
	json_str(j, "section", section);
	json_str(j, "path", l->label);
	json_bool(j, "ok", l->ok);
	if (l->ok) {
		json_num(j, "n", l->n);
		json_num(j, "median_us", l->p50);
		json_num(j, "p99_us", l->p99);
		json_num(j, "p999_us", l->p999);
		json_num(j, "max_us", l->max);
		json_str(j, "raw", l->raw[0] ? l->raw : NULL);
	} else {
		json_str(j, "why", l->why);
	}
	json_obj_end(j);
}

static void md_json_tput(struct json *j, const struct md_tput *t)
{
	json_obj_begin(j, NULL);
	json_str(j, "path", t->label);
	json_bool(j, "ok", t->ok);
	if (t->ok)
		json_num(j, "samples_per_s", t->rate);
	else
		json_str(j, "why", t->why);
	json_obj_end(j);
}

static void md_write_json(const struct md_ctx *c, FILE *f)
{
	const struct md_lat *loc[] = {&c->l_spin,     &c->l_futex,    &c->l_yield, &c->l_poll,	  &c->l_block,
				      &c->l_ice_poll, &c->l_ice_wait, &c->l_dds,   &c->l_dds_wait};
	const struct md_lat *net[] = {&c->n_blk, &c->n_poll,	 &c->n_mono_blk, &c->n_mono_poll,
				      &c->n_raw, &c->n_raw_busy, &c->n_dds};
	const struct md_tput *tp[] = {&c->t_poll,	 &c->t_block,	   &c->t_mono_spin,
				      &c->t_mono_sleep,	 &c->t_dds,	   &c->t_net,
				      &c->t_net_frames,	 &c->t_net_mono,   &c->t_net_raw,
				      &c->t_net_raw_gso, &c->t_net_packed, &c->t_net_packed_frames};
	struct json j;

	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_str(&j, "tool", "sdds-bench");
	json_str(&j, "command", "report");
	json_str(&j, "out", c->dir);
	json_bool(&j, "quick", c->o.quick);
	json_uint(&j, "size", c->o.size);
	json_uint(&j, "iterations", c->o.n);
	json_obj_begin(&j, "machine");
	json_str(&j, "cpu", c->cpu_model);
	json_int(&j, "cpus", c->cpus);
	json_str(&j, "kernel", c->kernel);
	json_str(&j, "date", c->date);
	json_str(&j, "commit", c->commit);
	json_num(&j, "loadavg_before", c->load0[0]);
	json_num(&j, "loadavg_after", c->load1[0]);
	json_obj_end(&j);
	json_obj_begin(&j, "parts");
	for (int i = 0; i < MD_N_PARTS; i++) {
		json_obj_begin(&j, md_part_names[i]);
		json_bool(&j, "ok", c->part[i].ok);
		json_str(&j, "why", c->part[i].ok ? "" : c->part[i].why);
		json_obj_end(&j);
	}
	json_obj_end(&j);
	json_arr_begin(&j, "latency");
	for (size_t i = 0; i < sizeof(loc) / sizeof(loc[0]); i++)
		md_json_lat(&j, "local", loc[i]);
	for (size_t i = 0; i < sizeof(net) / sizeof(net[0]); i++)
		md_json_lat(&j, "net", net[i]);
	json_arr_end(&j);
	json_arr_begin(&j, "throughput");
	for (size_t i = 0; i < sizeof(tp) / sizeof(tp[0]); i++)
		md_json_tput(&j, tp[i]);
	json_arr_end(&j);
	json_arr_begin(&j, "ratios");
	for (int i = 0; i < c->n_ratios; i++) {
		const struct md_ratio *r = &c->ratios[i];

		json_obj_begin(&j, NULL);
		json_str(&j, "name", r->name);
		json_str(&j, "unit", r->unit);
		if (r->ok)
			json_num(&j, "value", r->v);
		else
			json_null(&j, "value");
		json_str(&j, "why", r->ok ? "" : r->why);
		json_str(&j, "goal", r->goal_text);
		if (r->cmp != 0 && r->ok)
			json_bool(&j, "met", r->cmp < 0 ? r->v <= r->goal : r->v >= r->goal);
		else
			json_null(&j, "met");
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "plots");
	for (int i = 0; i < MD_N_PLOTS; i++) {
		json_obj_begin(&j, NULL);
		json_str(&j, "file", c->plots[i].file);
		json_bool(&j, "ok", c->plots[i].ok);
		json_str(&j, "why", c->plots[i].ok ? "" : c->plots[i].why);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

/* ------------------------------------------------------------ main */

static void md_usage(FILE *f)
{
	fprintf(f,
		"usage: sdds-bench report [options]\n"
		"\n"
		"Runs every benchmark (local, iceoryx, Cyclone DDS ddsperf, net, scale,\n"
		"sdds-trace compare, callgrind) as child processes with time caps and writes\n"
		"DIR/report.md, DIR/report.json and PNG plots (gnuplot). A part that cannot\n"
		"run says why; a ratio missing a figure is n/a with the reason.\n"
		"\n"
		"  --out DIR          output directory (default bench-report)\n"
		"  --quick            a short smoke run (about a minute): small N, short runs\n"
		"  -n N               latency iterations (default %d, --quick %d)\n"
		"  -s, --size N       sample bytes (default %d)\n"
		"  --no-peers         do not run iceoryx and ddsperf\n"
		"  --skip PART[,...]  leave out parts: local iceoryx ddsperf net scale trace callgrind\n"
		"  --ddsperf PATH     Cyclone DDS ddsperf (default: ddsperf in PATH)\n"
		"  --sdds-trace PATH  sdds-trace (default: ../sdds-trace/sdds-trace from here)\n"
		"  --gnuplot PATH     gnuplot (default: gnuplot in PATH)\n"
		"  --valgrind PATH    valgrind (default: valgrind in PATH)\n"
		"  --sddsd PATH       the daemon (default: ../../daemon/sddsd from here)\n"
		"  --json             also print the report's JSON on stdout\n"
		"  -h, --help\n",
		MD_DEFAULT_N, MD_QUICK_N, MD_DEFAULT_SIZE);
}

static int md_parse_skip(const char *s, unsigned *ret)
{
	unsigned m = 0;

	while (*s) {
		size_t len = strcspn(s, ",");
		bool found = false;

		for (int i = 0; i < MD_N_PARTS; i++)
			if (strlen(md_part_names[i]) == len && strncmp(s, md_part_names[i], len) == 0) {
				m |= 1u << i;
				found = true;
			}
		if (!found)
			return -EINVAL;
		s += len;
		if (*s == ',')
			s++;
	}
	*ret = m;
	return 0;
}

static int md_parse(int argc, char **argv, struct md_opts *o)
{
	enum {
		O_OUT = 256,
		O_QUICK,
		O_NOPEERS,
		O_SKIP,
		O_DDSPERF,
		O_TRACE,
		O_GNUPLOT,
		O_VALGRIND,
		O_SDDSD,
		O_JSON
	};
	static const struct option longopts[] = {
	    {"out", required_argument, NULL, O_OUT},
	    {"quick", no_argument, NULL, O_QUICK},
	    {"iterations", required_argument, NULL, 'n'},
	    {"size", required_argument, NULL, 's'},
	    {"no-peers", no_argument, NULL, O_NOPEERS},
	    {"skip", required_argument, NULL, O_SKIP},
	    {"ddsperf", required_argument, NULL, O_DDSPERF},
	    {"sdds-trace", required_argument, NULL, O_TRACE},
	    {"gnuplot", required_argument, NULL, O_GNUPLOT},
	    {"valgrind", required_argument, NULL, O_VALGRIND},
	    {"sddsd", required_argument, NULL, O_SDDSD},
	    {"json", no_argument, NULL, O_JSON},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool n_set = false;
	int ch;

	*o = (struct md_opts){.out = "bench-report",
			      .n = MD_DEFAULT_N,
			      .size = MD_DEFAULT_SIZE,
			      .ddsperf = "ddsperf",
			      .gnuplot = "gnuplot",
			      .valgrind = "valgrind"};
	while ((ch = getopt_long(argc, argv, "n:s:h", longopts, NULL)) != -1) {
		char *end;
		unsigned long long v;

		switch (ch) {
		case O_OUT:
			o->out = optarg;
			break;
		case O_QUICK:
			o->quick = true;
			break;
		case 'n':
		case 's':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-' || v < 1 ||
			    v > (ch == 'n' ? 10000000ull : 100ull)) {
				fprintf(stderr, "sdds-bench report: bad value for %s: %s (%s)\n",
					argv[optind - 1], optarg,
					ch == 'n' ? "1..10000000" : "1..100, the network path's limit");
				return -EINVAL;
			}
			if (ch == 'n') {
				o->n = v;
				n_set = true;
			} else {
				o->size = (uint32_t)v;
			}
			break;
		case O_NOPEERS:
			o->no_peers = true;
			break;
		case O_SKIP:
			if (md_parse_skip(optarg, &o->skip) < 0) {
				fprintf(stderr,
					"sdds-bench report: --skip takes parts of: local iceoryx ddsperf net "
					"scale trace callgrind\n");
				return -EINVAL;
			}
			break;
		case O_DDSPERF:
			o->ddsperf = optarg;
			break;
		case O_TRACE:
			o->trace = optarg;
			break;
		case O_GNUPLOT:
			o->gnuplot = optarg;
			break;
		case O_VALGRIND:
			o->valgrind = optarg;
			break;
		case O_SDDSD:
			o->sddsd = optarg;
			break;
		case O_JSON:
			o->json = true;
			break;
		case 'h':
			md_usage(stdout);
			return 1;
		default:
			md_usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		md_usage(stderr);
		return -EINVAL;
	}
	if (o->quick && !n_set)
		o->n = MD_QUICK_N;
	return 0;
}

static int md_mkdir(const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int mdreport_main(int argc, char **argv)
{
	static struct md_ctx c;
	char path[PATH_MAX + 32], abs[PATH_MAX];
	ssize_t len;
	int rc;
	FILE *f;

	rc = md_parse(argc, argv, &c.o);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	/* argv[0] is "report": the line as typed, but with the program's short name. */
	memcpy(c.cmdline, "sdds-bench ", 11);
	mdrun_cmdline(argv, c.cmdline + 11, sizeof(c.cmdline) - 11);
	len = readlink("/proc/self/exe", c.self, sizeof(c.self) - 1);
	if (len <= 0) {
		fprintf(stderr, "sdds-bench report: cannot find my own binary: %s\n", strerror(errno));
		return 1;
	}
	c.self[len] = '\0';
	if (md_mkdir(c.o.out) < 0 || realpath(c.o.out, abs) == NULL) {
		fprintf(stderr, "sdds-bench report: cannot make %s: %s\n", c.o.out, strerror(errno));
		return 1;
	}
	snprintf(c.dir, sizeof(c.dir), "%s", abs);
	snprintf(path, sizeof(path), "%s/logs", c.dir);
	if (md_mkdir(path) < 0) {
		fprintf(stderr, "sdds-bench report: cannot make %s: %s\n", path, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/raw", c.dir);
	if (md_mkdir(path) < 0) {
		fprintf(stderr, "sdds-bench report: cannot make %s: %s\n", path, strerror(errno));
		return 1;
	}
	mdrun_install_signals();

	md_lat_init(&c.l_spin, "baseline: spin on a shared line");
	md_lat_init(&c.l_futex, "baseline: futex wait/wake (one hop)");
	md_lat_init(&c.l_yield, "baseline: yield-spin, both on one CPU (polling floor on 2 CPUs)");
	md_lat_init(&c.l_poll, "sddsd polling");
	md_lat_init(&c.l_block, "sddsd blocking");
	md_lat_init(&c.l_ice_poll, "iceoryx polling subscriber");
	md_lat_init(&c.l_ice_wait, "iceoryx WaitSet");
	md_lat_init(&c.l_dds, "Cyclone DDS ddsperf, listener (loopback)");
	md_lat_init(&c.l_dds_wait, "Cyclone DDS ddsperf, waitset (loopback)");
	md_lat_init(&c.n_blk, "sddsd isolated, blocking daemons");
	md_lat_init(&c.n_poll, "sddsd isolated, polling daemons");
	md_lat_init(&c.n_mono_blk, "monolithic, blocking");
	md_lat_init(&c.n_mono_poll, "monolithic, polling");
	md_lat_init(&c.n_raw, "raw UDPv6 ping-pong, blocking recv (baseline)");
	md_lat_init(&c.n_raw_busy, "raw UDPv6 ping-pong, busy-polled recv (baseline)");
	bench_why(c.leg_send.why, "not run");
	bench_why(c.leg_recv.why, "not run");
	md_lat_init(&c.n_dds, "Cyclone DDS ddsperf (veth)");
	md_tput_init(&c.t_poll, "local, sddsd polling");
	md_tput_init(&c.t_block, "local, sddsd blocking");
	md_tput_init(&c.t_mono_spin, "local, monolithic (polling spin budget)");
	md_tput_init(&c.t_mono_sleep, "local, monolithic (spin budget 0)");
	md_tput_init(&c.t_dds, "local, Cyclone DDS ddsperf pub/sub (loopback)");
	md_tput_init(&c.t_net, "net, sddsd (blocking daemons, one sample per frame)");
	md_tput_init(&c.t_net_packed, "net, sddsd packed (peer_pack both ways; samples)");
	md_tput_init(&c.t_net_packed_frames, "net, sddsd packed frames/s (daemon B's counters)");
	md_tput_init(&c.t_net_mono, "net, monolithic");
	md_tput_init(&c.t_net_frames, "net, sddsd frames/s (daemon B's counters; not samples)");
	md_tput_init(&c.t_net_raw, "net, raw UDPv6 sendmmsg (baseline)");
	md_tput_init(&c.t_net_raw_gso,
		     "net, raw UDPv6 GSO messages of 32 (the kernel's ceiling for sddsd's way)");

	md_machine(&c);
	md_progress("writing to %s", c.dir);
	if (md_skipped(&c, MD_LOCAL)) {
		bench_why(c.part[MD_LOCAL].why, "--skip local");
		md_lat_fail(&c.l_spin, "--skip local");
		md_lat_fail(&c.l_futex, "--skip local");
		md_lat_fail(&c.l_yield, "--skip local");
		md_lat_fail(&c.l_poll, "--skip local");
		md_lat_fail(&c.l_block, "--skip local");
		md_tput_fail(&c.t_poll, "--skip local");
		md_tput_fail(&c.t_block, "--skip local");
		md_tput_fail(&c.t_mono_spin, "--skip local");
		md_tput_fail(&c.t_mono_sleep, "--skip local");
	} else {
		md_local(&c);
	}
	md_iceoryx(&c);
	md_ddsperf(&c);
	md_net(&c);
	md_scale(&c);
	md_trace(&c);
	md_callgrind(&c);
	if (getloadavg(c.load1, 3) != 3)
		c.load1[0] = c.load1[1] = c.load1[2] = -1;
	md_progress("plots");
	md_plots(&c);
	md_ratios(&c);

	snprintf(path, sizeof(path), "%s/report.md", c.dir);
	rc = md_write_md(&c, path);
	if (rc < 0) {
		fprintf(stderr, "sdds-bench report: writing %s: %s\n", path, strerror(-rc));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/report.json", c.dir);
	f = fopen(path, "we");
	if (f == NULL) {
		fprintf(stderr, "sdds-bench report: writing %s: %s\n", path, strerror(errno));
		return 1;
	}
	md_write_json(&c, f);
	if (fclose(f) != 0) {
		fprintf(stderr, "sdds-bench report: writing %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (c.o.json)
		md_write_json(&c, stdout);
	md_progress("wrote %s/report.md", c.dir);
	return 0;
}
