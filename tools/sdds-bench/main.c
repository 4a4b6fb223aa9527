/* SPDX-License-Identifier: MIT */
/*
 * main.c - sdds-bench: the local-path benchmark of sddsd.
 *
 * OVERVIEW
 * `sdds-bench local [options]` measures, in one run and on one payload:
 *   1. the raw baselines between two processes: spin on a shared cache line,
 *      futex wait/wake, and yield-spin with both on one CPU, the floor of
 *      polling on two CPUs (baseline.c);
 *   2. one-way latency between two client processes through a private sddsd,
 *      in polling mode (sddsd --poll, clients spin) and blocking mode (sddsd
 *      sleeps, client spin budget 0), and throughput writer -> reader in
 *      both modes (local.c, sddsd.c);
 *   3. throughput of monolithic mode (broker in-process, in sdds-bench-mono:
 *      this code linked with libsddsmono, mono.h) as the reference for
 *      what isolation costs;
 * and prints a table or one JSON object (report.c) with ratios against the
 * baselines and the goals. With --pin it pins every process and tries
 * several placements of the daemon and the two clients (or the one given).
 * `sdds-bench report` runs report.py (every benchmark, one Markdown report).
 *
 * The main process stays single-threaded and holds no client: every
 * measured party is a forked child, and each daemon run is stopped and its
 * directory removed before the next starts. Exit status: 0, 1 when any run
 * of the sddsd path failed, 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "bench.h"
#include "iceoryx.h"
#include "callgrind.h"
#include "local.h"
#include "net.h"
#include "proc.h"
#include "report.h"
#include "scale.h"
#include "sddsd.h"

#define MAIN_DEFAULT_ITERATIONS 100000
#define MAIN_DEFAULT_WARMUP 1000
#define MAIN_DEFAULT_SIZE 2
#define MAIN_DEFAULT_MAX_SECONDS 30.0
#define MAIN_DEFAULT_TPUT_SECONDS 2.0
#define MAIN_DEFAULT_DEPTH 1024
/* "Very large": longer than any wait of the benchmark, so polling clients never sleep. */
#define MAIN_DEFAULT_POLL_SPIN_NS (10 * 1000000000LL)
#define MAIN_DEFAULT_POLL_YIELD_NS 0LL

#ifndef SDDS_BENCH_REPORT_PY
#define SDDS_BENCH_REPORT_PY "report.py"
#endif

/*
 * `sdds-bench report`: the script SDDS_BENCH_REPORT_PY (the source tree's
 * tools/sdds-bench/report.py, baked in by meson) under python3, given this
 * binary as --bench and the rest of argv (argv[0] is "report") as typed.
 * Returns only when it cannot be started.
 */
static int main_report(int argc, char **argv)
{
	char self[PATH_MAX];
	char **args = calloc((size_t)argc + 4, sizeof(*args));
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (args == NULL || len <= 0) {
		fprintf(stderr, "sdds-bench report: cannot find my own binary\n");
		free(args);
		return 1;
	}
	self[len] = '\0';
	args[0] = "python3";
	args[1] = SDDS_BENCH_REPORT_PY;
	args[2] = "--bench";
	args[3] = self;
	for (int i = 1; i < argc; i++)
		args[3 + i] = argv[i];
	execvp(args[0], args);
	fprintf(stderr, "sdds-bench report: cannot run python3 %s: %s\n", SDDS_BENCH_REPORT_PY,
		strerror(errno));
	free(args);
	return 1;
}

static void main_usage(FILE *f)
{
	fprintf(f,
		"usage: sdds-bench local [options]\n"
		"       sdds-bench net [options]   (the network path; sdds-bench net --help)\n"
		"       sdds-bench iceoryx [options]  (the iceoryx peer; sdds-bench iceoryx --help)\n"
		"       sdds-bench scale [options]    (clients 1..256; sdds-bench scale --help)\n"
		"       sdds-bench callgrind [options]   (instructions per sample in sddsd)\n"
		"       sdds-bench report [options]   (every benchmark, a Markdown report with plots)\n"
		"\n"
		"One-way latency (ping-pong, RTT/2) between two client processes through a\n"
		"private sddsd in polling and blocking mode, throughput writer -> reader, the\n"
		"same in monolithic mode, and the raw baselines (spin, futex) of this machine.\n"
		"\n"
		"  -n, --iterations N   measured round trips per latency run (default %d;\n"
		"                       use >= 100000 for figures you report)\n"
		"      --warmup N       unmeasured round trips first (default %d)\n"
		"  -s, --size N         sample bytes, 1..%u (default %d)\n"
		"      --max-seconds S  cap on the measured part of one latency run (default %.0f)\n"
		"  -t, --tput-seconds S length of one throughput run (default %.1f)\n"
		"      --depth N        reader history depth in throughput runs (default %d)\n"
		"      --take-many N    one more throughput run per daemon mode whose reader\n"
		"                       takes up to N (2..%u) samples per call with\n"
		"                       sdds_reader_take_many: an extra figure, labelled so;\n"
		"                       the headline stays the per-sample sdds_reader_take\n"
		"      --best-effort    best-effort QoS (default: reliable)\n"
		"      --pin[=D,A,B]    pin the daemon (D) and the clients (A = ping/writer,\n"
		"                       B = pong/reader) to CPUs; without a value try several\n"
		"                       placements and report the best; '-' leaves one unpinned\n"
		"      --poll-spin-ns N client spin budget in polling mode (default %lld)\n"
		"      --poll-yield-ns N|never  polling clients yield the CPU between checks\n"
		"                       after N ns of pure spinning (default %lld); 'never'\n"
		"                       spins purely (three busy processes on two CPUs then\n"
		"                       take turns at the scheduler tick)\n"
		"      --sddsd PATH     the daemon binary (default: ../../daemon/sddsd from here)\n"
		"      --raw PREFIX     write per-iteration one-way ns to PREFIX-<run>.txt\n"
		"      --json           print one JSON object instead of the table\n"
		"  -h, --help\n",
		MAIN_DEFAULT_ITERATIONS, MAIN_DEFAULT_WARMUP, BENCH_MAX_SIZE, MAIN_DEFAULT_SIZE,
		MAIN_DEFAULT_MAX_SECONDS, MAIN_DEFAULT_TPUT_SECONDS, MAIN_DEFAULT_DEPTH, BENCH_MAX_TAKE_BATCH,
		(long long)MAIN_DEFAULT_POLL_SPIN_NS, (long long)MAIN_DEFAULT_POLL_YIELD_NS);
}

/* "D,A,B" into *ret. */
static int main_parse_placement(const char *s, struct bench_placement *ret)
{
	int cpu[3];

	if (bench_parse_cpus(s, 3, cpu) < 0)
		return -EINVAL;
	*ret = (struct bench_placement){.daemon_cpu = cpu[0], .a_cpu = cpu[1], .b_cpu = cpu[2]};
	return 0;
}

enum { OPT_DEPTH = BENCH_OPT_OWN, OPT_BEST_EFFORT, OPT_PIN, OPT_POLL_SPIN, OPT_POLL_YIELD, OPT_TAKE_MANY };

/* The options of `local` beyond the common ones (bench_cli). */
static int main_option(void *ctx, int c, const char *arg)
{
	struct bench_opts *o = ctx;
	uint64_t v;
	int err = 0;

	switch (c) {
	case OPT_DEPTH:
		err = bench_parse_u64(arg, 0, 1, 1u << 20, &v);
		o->depth = (uint32_t)v;
		break;
	case OPT_TAKE_MANY:
		err = bench_parse_u64(arg, 0, 2, BENCH_MAX_TAKE_BATCH, &v);
		o->take_many = (uint32_t)v;
		break;
	case OPT_BEST_EFFORT:
		o->reliable = false;
		break;
	case OPT_PIN:
		o->pin = true;
		o->pin_sweep = arg == NULL;
		if (arg)
			err = main_parse_placement(arg, &o->pin_spec);
		break;
	case OPT_POLL_SPIN:
		err = bench_parse_u64(arg, 0, 0, INT64_MAX, &v);
		o->poll_spin_ns = (int64_t)v;
		break;
	case OPT_POLL_YIELD:
		/* "never": the pure-spin variant (three busy processes take turns at the tick). */
		if (strcmp(arg, "never") == 0) {
			o->poll_yield_ns = -1;
			break;
		}
		err = bench_parse_u64(arg, 0, 0, INT64_MAX, &v);
		o->poll_yield_ns = (int64_t)v;
		break;
	}
	return err;
}

/* Returns 0, 1 for --help (exit 0) or -EINVAL (usage error, message printed). */
static int main_parse(int argc, char **argv, struct bench_opts *o)
{
	static const struct option own[] = {
	    {"depth", required_argument, NULL, OPT_DEPTH},
	    {"take-many", required_argument, NULL, OPT_TAKE_MANY},
	    {"best-effort", no_argument, NULL, OPT_BEST_EFFORT},
	    {"pin", optional_argument, NULL, OPT_PIN},
	    {"poll-spin-ns", required_argument, NULL, OPT_POLL_SPIN},
	    {"poll-yield-ns", required_argument, NULL, OPT_POLL_YIELD},
	    {NULL, 0, NULL, 0},
	};
	static const struct bench_cli cli = {
	    .prog = "sdds-bench",
	    .verb = "local",
	    .common = BENCH_OPT_ITERATIONS | BENCH_OPT_WARMUP | BENCH_OPT_SIZE | BENCH_OPT_MAX_SECONDS |
		      BENCH_OPT_TPUT_SECONDS | BENCH_OPT_SDDSD | BENCH_OPT_RAW | BENCH_OPT_JSON,
	    .max_size = BENCH_MAX_SIZE,
	    .max_iterations = 1000000000,
	    .own = own,
	    .parse = main_option,
	    .usage = main_usage,
	};

	*o = (struct bench_opts){
	    .size = MAIN_DEFAULT_SIZE,
	    .iterations = MAIN_DEFAULT_ITERATIONS,
	    .warmup = MAIN_DEFAULT_WARMUP,
	    .max_seconds = MAIN_DEFAULT_MAX_SECONDS,
	    .tput_seconds = MAIN_DEFAULT_TPUT_SECONDS,
	    .depth = MAIN_DEFAULT_DEPTH,
	    .reliable = true,
	    .poll_spin_ns = MAIN_DEFAULT_POLL_SPIN_NS,
	    .poll_yield_ns = MAIN_DEFAULT_POLL_YIELD_NS,
	};
	return bench_cli_parse(&cli, argc, argv, o, o);
}

/*
 * The placements to try. Unpinned first; then, on two or more CPUs, the
 * daemon alone on one CPU with both clients on the other, the daemon
 * sharing with either client, and everything on one CPU (where a futex
 * wake-up needs no cross-CPU interrupt).
 */
static int main_placements(const struct bench_opts *o, int n_cpus, struct bench_placement *pl)
{
	int c0 = proc_cpu_nth(0), c1 = proc_cpu_nth(1);
	int n = 0;

	if (!o->pin) {
		pl[n++] = (struct bench_placement){BENCH_CPU_ANY, BENCH_CPU_ANY, BENCH_CPU_ANY};
		return n;
	}
	if (!o->pin_sweep) {
		pl[n++] = o->pin_spec;
		return n;
	}
	pl[n++] = (struct bench_placement){BENCH_CPU_ANY, BENCH_CPU_ANY, BENCH_CPU_ANY};
	if (n_cpus >= 2) {
		pl[n++] = (struct bench_placement){c0, c1, c1};
		pl[n++] = (struct bench_placement){c0, c0, c1};
		pl[n++] = (struct bench_placement){c0, c1, c0};
	}
	pl[n++] = (struct bench_placement){c0, c0, c0};
	return n;
}

/*
 * The CPU of the polling floor (both sides of the yield baseline): where
 * the polling clients share a CPU. That is the second CPU in the default
 * placement, the pong side's CPU of --pin=D,A,B, the only CPU on one.
 */
static int main_floor_cpu(const struct bench_opts *o, int n_cpus)
{
	if (o->pin && !o->pin_sweep && o->pin_spec.b_cpu != BENCH_CPU_ANY)
		return o->pin_spec.b_cpu;
	return proc_cpu_nth(n_cpus >= 2 ? 1 : 0);
}

/* The 1-minute load average, or -1: other work on a shared machine shows here. */
static double main_loadavg(void)
{
	double l;

	return getloadavg(&l, 1) == 1 ? l : -1;
}

/* Lowest median among the placements whose latency run succeeded, or -1. */
static int main_best(const struct mode_result *m, int n)
{
	int best = -1;

	for (int i = 0; i < n; i++)
		if (m[i].lat.ok && (best < 0 || m[i].lat.st.median < m[best].lat.st.median))
			best = i;
	return best;
}

/* Progress goes to stderr, so stdout holds only the table or the JSON. */
__attribute__((format(printf, 1, 2))) static void main_progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

/* One daemon mode in one placement: start sddsd, latency, throughput, stop. */
static void main_run_mode(const struct bench_opts *o, const char *sddsd_path, bool polling,
			  struct mode_result *m)
{
	struct sddsd_proc d;
	char name[64], pl[96], why[BENCH_WHY_MAX];
	const char *mode = polling ? "polling" : "blocking";
	int err;

	report_placement_str(&m->pl, pl, sizeof(pl));
	if (!sddsd_path) {
		m->lat.ran = m->tput.ran = true;
		bench_why(m->lat.why, "sddsd binary not found (give --sddsd PATH)");
		bench_why(m->tput.why, "sddsd binary not found (give --sddsd PATH)");
		return;
	}
	err = sddsd_start(sddsd_path, polling, m->pl.daemon_cpu, &d, why);
	if (err < 0) {
		m->lat.ran = m->tput.ran = true;
		memcpy(m->lat.why, why, sizeof(why));
		memcpy(m->tput.why, why, sizeof(why));
		return;
	}
	snprintf(name, sizeof(name), "sddsd-%s-%c%d-%c%d-%c%d", mode, 'd', m->pl.daemon_cpu, 'a', m->pl.a_cpu,
		 'b', m->pl.b_cpu);
	main_progress("sdds-bench: sddsd %s latency, %s\n", mode, pl);
	local_latency(o, d.sock, polling, &m->pl, name, &m->lat);
	if (sddsd_alive(&d)) {
		main_progress("sdds-bench: sddsd %s throughput, %s\n", mode, pl);
		local_throughput(o, d.sock, polling, &m->pl, &m->tput);
		if (o->take_many > 1 && sddsd_alive(&d)) {
			struct bench_opts ob = *o;

			ob.take_batch = o->take_many;
			main_progress("sdds-bench: sddsd %s throughput, sdds_reader_take_many(%u), %s\n",
				      mode, o->take_many, pl);
			local_throughput(&ob, d.sock, polling, &m->pl, &m->tput_many);
		}
	} else {
		m->tput.ran = true;
		bench_why(m->tput.why, "sddsd died during the latency run");
	}
	err = sddsd_stop(&d, why);
	if (err < 0) {
		memcpy(m->daemon_note, why, sizeof(why));
		fprintf(stderr, "sdds-bench: %s, %s: %s\n", mode, pl, why);
	}
}

int main(int argc, char **argv)
{
	static struct bench_results r;
	struct bench_placement pl[BENCH_MAX_PLACEMENTS];
	char sddsd_buf[PATH_MAX];
	struct bench_opts o;
	int rc, n;

	/* `sdds-bench net`: the network path, its own options (net.c). */
	if (argc >= 2 && strcmp(argv[1], "net") == 0)
		return net_main(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "iceoryx") == 0)
		return iceoryx_main(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "scale") == 0)
		return scale_main(argc - 1, argv + 1);
	/* `sdds-bench callgrind`: instructions per sample (callgrind.c); `report`: all of it (report.py). */
	if (argc >= 2 && strcmp(argv[1], "callgrind") == 0)
		return callgrind_main(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "report") == 0)
		return main_report(argc - 1, argv + 1);
	rc = main_parse(argc, argv, &o);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	r.n_cpus = proc_cpu_count();
	r.load_start = main_loadavg();
	if (sddsd_find(o.sddsd_path, sddsd_buf, sizeof(sddsd_buf)) == 0)
		r.sddsd_path = sddsd_buf;
	else
		fprintf(stderr, "sdds-bench: sddsd not found%s%s\n", o.sddsd_path ? " at " : "",
			o.sddsd_path ? o.sddsd_path : " next to sdds-bench (give --sddsd PATH)");
	if (o.iterations < 100000)
		fprintf(stderr, "sdds-bench: note: %llu iterations; report figures from >= 100000\n",
			(unsigned long long)o.iterations);

	/* Baselines: the two processes on different CPUs when pinning, like the clients at best. */
	r.base_pl = (struct bench_placement){BENCH_CPU_ANY, BENCH_CPU_ANY, BENCH_CPU_ANY};
	if (o.pin && r.n_cpus >= 2) {
		r.base_pl.a_cpu = proc_cpu_nth(0);
		r.base_pl.b_cpu = proc_cpu_nth(1);
	}
	main_progress("sdds-bench: baseline spin\n");
	baseline_run(BASELINE_SPIN, &o, r.base_pl.a_cpu, r.base_pl.b_cpu, "spin", &r.spin);
	main_progress("sdds-bench: baseline futex\n");
	baseline_run(BASELINE_FUTEX, &o, r.base_pl.a_cpu, r.base_pl.b_cpu, "futex", &r.futex);
	if (o.pin) {
		int c0 = proc_cpu_nth(0);

		main_progress("sdds-bench: baseline futex on one CPU\n");
		baseline_run(BASELINE_FUTEX, &o, c0, c0, "futex-same-cpu", &r.futex_same);
	}
	r.floor_cpu = main_floor_cpu(&o, r.n_cpus);
	main_progress("sdds-bench: baseline yield-spin on one CPU (the polling floor)\n");
	baseline_run(BASELINE_YIELD, &o, r.floor_cpu, r.floor_cpu, "yield-same-cpu", &r.yield_same);

	n = main_placements(&o, r.n_cpus, pl);
	r.n_placements = n;
	for (int i = 0; i < n; i++) {
		r.polling[i].pl = pl[i];
		/*
		 * Unpinned, polling means three busy processes on however many
		 * CPUs: on two, the daemon alone on one CPU and the yielding
		 * clients on the other is the best placement measured (a hop
		 * is one hand-over of the clients' CPU, the yield floor; with
		 * the daemon sharing a CPU with a client a hop also waits for
		 * the daemon to give that CPU up). docs/DESIGN.md, "Polling".
		 */
		if (!o.pin && r.n_cpus >= 2)
			r.polling[i].pl =
			    (struct bench_placement){proc_cpu_nth(0), proc_cpu_nth(1), proc_cpu_nth(1)};
		main_run_mode(&o, r.sddsd_path, true, &r.polling[i]);
	}
	for (int i = 0; i < n; i++) {
		r.blocking[i].pl = pl[i];
		main_run_mode(&o, r.sddsd_path, false, &r.blocking[i]);
	}
	r.best_polling = main_best(r.polling, n);
	r.best_blocking = main_best(r.blocking, n);

	main_progress("sdds-bench: monolithic throughput\n");
	{
		/* The threads go where the baselines ran: the clients' best case. */
		struct bench_placement mono_pl = r.base_pl;

		local_monolithic(&o, true, &mono_pl, &r.mono_spin);
		local_monolithic(&o, false, &mono_pl, &r.mono_sleep);
	}

	r.load_end = main_loadavg();
	report_json(stdout, &o, &r);

	rc = 0;
	for (int i = 0; i < n; i++)
		if (!r.polling[i].lat.ok || !r.polling[i].tput.ok || !r.blocking[i].lat.ok ||
		    !r.blocking[i].tput.ok)
			rc = 1;
	return rc;
}
