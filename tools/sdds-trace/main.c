/* SPDX-License-Identifier: MIT */
/*
 * main.c - sdds-trace: attach to sddsd's and libsddsclient's USDT probes,
 * follow samples through the phases, print the per-phase table.
 *
 * OVERVIEW
 *   sdds-trace [options] [-- COMMAND ARGS...]
 *   sdds-trace compare [--json] [-n N] [options]
 * One BPF program (trace.bpf.c) is attached to every probe of both binaries
 * with the phase as cookie, for every process (pid -1) or for the -p ones.
 * Events are only collected while tracing (a growing array, about 64 bytes
 * per event); at the end they are sorted by time and fed to the matcher
 * (match.c), which needs them in order: the ring buffer delivers events of
 * different CPUs in reservation order, not quite in time order. With -n N
 * the trace ends at the N-th take_return (a sample reaching an
 * application) and events after it are not counted.
 *
 * Exit status: 0 done, 1 failure (load, attach, workload), 2 usage,
 * SDDS_TRACE_EXIT_PRIV (4) no privilege to load BPF programs (root, or
 * CAP_BPF with CAP_PERFMON, is needed): documented in docs/trace.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "match.h"
#include "report.h"
#include "trace.skel.h"

#define SDDS_TRACE_EXIT_FAIL 1
#define SDDS_TRACE_EXIT_USAGE 2
#define SDDS_TRACE_EXIT_PRIV 4
#define SDDS_TRACE_DEFAULT_N 16500u /* the seed paper's count per table */
#define SDDS_TRACE_MAX_PIDS 16
#define SDDS_TRACE_BENCH_CANNOT 77 /* sdds-bench net: not root, no namespaces */

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

struct opts {
	bool json;
	bool verbose;
	uint64_t n; /* 0: no limit */
	const char *sddsd;
	const char *lib;
	const char *mono_lib;
	pid_t pids[SDDS_TRACE_MAX_PIDS];
	int n_pids;
	char **cmd; /* NULL: until SIGINT or -n */
	/* compare's monolithic network run: -n counts only takes in monolithic clients (epoch 0). */
	bool count_mono;
	/* The command's stdout goes to stderr (--json, and compare: stdout is the report's). */
	bool cmd_out_to_err;
};

struct collect {
	struct sdds_trace_event *ev;
	size_t n, cap;
	uint64_t takes;
	uint64_t limit;
	bool count_mono; /* see struct opts */
	bool full;	 /* limit reached */
	bool closed;	 /* the grace after the limit is over: nothing more is kept */
	bool nomem;
};

/*
 * After the n-th take, events are still collected for this long: a
 * sender's `sent` (after its sendmmsg returned) can come after the peer's
 * take of the same sample when the sender was preempted in between.
 */
#define TRACE_GRACE_MS 200

static volatile sig_atomic_t trace_interrupted;

static void trace_on_sigint(int sig)
{
	(void)sig;
	trace_interrupted = 1;
}

static bool trace_verbose;

__attribute__((format(printf, 2, 0))) static int trace_libbpf_print(enum libbpf_print_level level,
								    const char *fmt, va_list ap)
{
	/* Probes a binary lacks make libbpf warn once per attempt: expected, quiet unless -v. */
	if (!trace_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Root, or CAP_BPF with CAP_PERFMON (or CAP_SYS_ADMIN): what loading and uprobes need. */
static bool trace_privileged(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[2];
	uint64_t eff;

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0)
		return geteuid() == 0;
	eff = (uint64_t)d[0].effective | ((uint64_t)d[1].effective << 32);
	if (eff & (1ull << CAP_SYS_ADMIN))
		return true;
	return (eff & (1ull << CAP_BPF)) && (eff & (1ull << CAP_PERFMON));
}

static int trace_on_event(void *ctx, void *data, size_t size)
{
	struct collect *c = ctx;
	const struct sdds_trace_event *e = data;

	if (size < sizeof(*e) || c->closed)
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 65536;
		struct sdds_trace_event *p = realloc(c->ev, cap * sizeof(*p));

		if (!p) {
			c->nomem = true;
			return -ENOMEM;
		}
		c->ev = p;
		c->cap = cap;
	}
	c->ev[c->n++] = *e;
	if (e->phase == TP_TAKE_RETURN && (!c->count_mono || e->arg[0] == 0) && ++c->takes >= c->limit &&
	    c->limit != 0)
		c->full = true;
	return 0;
}

static int trace_event_cmp(const void *a, const void *b)
{
	const struct sdds_trace_event *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

struct tracer {
	struct trace_bpf *skel;
	struct bpf_link *links[3 * TP_MAX_ * (SDDS_TRACE_MAX_PIDS + 1)];
	int n_links;
	struct bpf_link *fork_link;
	struct ring_buffer *rb;
	struct collect col;
};

static void tracer_close(struct tracer *t)
{
	ring_buffer__free(t->rb);
	t->rb = NULL;
	for (int i = 0; i < t->n_links; i++)
		bpf_link__destroy(t->links[i]);
	t->n_links = 0;
	bpf_link__destroy(t->fork_link);
	t->fork_link = NULL;
	trace_bpf__destroy(t->skel);
	t->skel = NULL;
}

/*
 * Load and attach; with filter, only processes added by tracer_follow (and
 * their descendants) are traced. Returns 0, or an exit status with the
 * reason printed.
 */
static int tracer_open(struct tracer *t, const struct opts *o, bool filter)
{
	const char *bins[3] = {o->sddsd, o->lib, o->mono_lib};
	bool found[TP_MAX_] = {false};
	int rc;

	memset(t, 0, sizeof(*t));
	t->skel = trace_bpf__open();
	if (!t->skel) {
		fprintf(stderr, "sdds-trace: cannot open the BPF object: %s\n", strerror(errno));
		return SDDS_TRACE_EXIT_FAIL;
	}
	t->skel->rodata->filter_pids = filter;
	rc = trace_bpf__load(t->skel);
	if (rc < 0) {
		fprintf(stderr, "sdds-trace: cannot load the BPF program: %s\n", strerror(-rc));
		tracer_close(t);
		return rc == -EPERM || rc == -EACCES ? SDDS_TRACE_EXIT_PRIV : SDDS_TRACE_EXIT_FAIL;
	}
	if (filter) {
		t->fork_link = bpf_program__attach(t->skel->progs.sdds_fork);
		if (!t->fork_link) {
			fprintf(stderr,
				"sdds-trace: cannot attach to the sched_process_fork tracepoint: %s\n",
				strerror(errno));
			tracer_close(t);
			return SDDS_TRACE_EXIT_FAIL;
		}
	}
	for (int b = 0; b < 3; b++) {
		if (access(bins[b], R_OK) != 0) {
			fprintf(stderr, "sdds-trace: %s: %s\n", bins[b], strerror(errno));
			tracer_close(t);
			return SDDS_TRACE_EXIT_FAIL;
		}
		for (int p = 0; p < TP_MAX_; p++) {
			for (int k = 0; k < (o->n_pids ? o->n_pids : 1); k++) {
				LIBBPF_OPTS(bpf_usdt_opts, uo, .usdt_cookie = (__u64)p);
				struct bpf_link *l = bpf_program__attach_usdt(
				    t->skel->progs.sdds_probe, o->n_pids ? o->pids[k] : -1, bins[b], "sdds",
				    trace_phase_name(p), &uo);

				if (!l)
					continue; /* this binary has no such probe (or the pid does not map
						     it) */
				t->links[t->n_links++] = l;
				found[p] = true;
			}
		}
	}
	for (int p = 0; p < TP_MAX_; p++) {
		if (!found[p]) {
			fprintf(stderr, "sdds-trace: probe sdds:%s not in %s, %s or %s (-Dprobes=false?)\n",
				trace_phase_name(p), o->sddsd, o->lib, o->mono_lib);
			tracer_close(t);
			return SDDS_TRACE_EXIT_FAIL;
		}
	}
	t->col.limit = o->n;
	t->col.count_mono = o->count_mono;
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events), trace_on_event, &t->col, NULL);
	if (!t->rb) {
		fprintf(stderr, "sdds-trace: ring buffer: %s\n", strerror(errno));
		tracer_close(t);
		return SDDS_TRACE_EXIT_FAIL;
	}
	return 0;
}

/*
 * Fork the command, mark it traced, then let it exec (a pipe holds it until
 * the mark is in the map, so not even its first probe is missed). With
 * out_to_err the command's stdout goes to stderr: stdout carries only our
 * report.
 */
static pid_t trace_spawn(struct tracer *t, char **cmd, bool out_to_err)
{
	int go[2];
	pid_t pid;
	__u32 key;
	__u8 one = 1;
	char c = 0;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		if (out_to_err)
			(void)dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(cmd[0], cmd);
		fprintf(stderr, "sdds-trace: %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	key = (__u32)pid;
	if (bpf_map__update_elem(t->skel->maps.traced, &key, sizeof(key), &one, sizeof(one), BPF_ANY) < 0) {
		fprintf(stderr, "sdds-trace: cannot mark the command traced: %s\n", strerror(errno));
		close(go[1]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	if (write(go[1], &c, 1) != 1) {
		close(go[1]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(go[1]);
	return pid;
}

/*
 * Trace until the command exits, SIGINT, or the limit; then match. On
 * success fills *ret (owned by the caller, matcher_free) and the command's
 * wait status. Returns 0 or an exit status.
 */
static int trace_run(const struct opts *o, char **cmd, struct trace_matcher **ret, int *ret_status,
		     uint64_t *ret_dropped)
{
	struct tracer t;
	struct trace_matcher *m;
	pid_t child = -1;
	int status = 0, rc;
	uint64_t takes = 0;
	int n_links;
	size_t end;

	rc = tracer_open(&t, o, cmd != NULL);
	if (rc != 0)
		return rc;
	if (cmd) {
		child = trace_spawn(&t, cmd, o->json || o->cmd_out_to_err);
		if (child < 0) {
			fprintf(stderr, "sdds-trace: cannot start %s: %s\n", cmd[0], strerror(errno));
			tracer_close(&t);
			return SDDS_TRACE_EXIT_FAIL;
		}
	}
	while (!trace_interrupted && !t.col.full && !t.col.nomem) {
		rc = ring_buffer__poll(t.rb, 100);
		if (rc < 0 && rc != -EINTR)
			break;
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			child = -1;
			break;
		}
	}
	if (t.col.full && !t.col.nomem) {
		struct timespec t0, now;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			rc = ring_buffer__poll(t.rb, 20);
			if (rc < 0 && rc != -EINTR)
				break;
			clock_gettime(CLOCK_MONOTONIC, &now);
		} while (!trace_interrupted && !t.col.nomem &&
			 (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 <
			     TRACE_GRACE_MS);
	}
	(void)ring_buffer__consume(t.rb);
	t.col.closed = true;
	*ret_dropped = t.skel->bss->dropped;
	n_links = t.n_links;
	tracer_close(&t);
	if (child > 0) {
		/* The limit was reached (or SIGINT): the workload runs to its end untraced. */
		if (trace_interrupted)
			kill(child, SIGINT);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (t.col.nomem) {
		fprintf(stderr, "sdds-trace: out of memory for events\n");
		free(t.col.ev);
		return SDDS_TRACE_EXIT_FAIL;
	}
	if (o->verbose)
		fprintf(stderr, "sdds-trace: %zu events, %llu dropped, %d probe attachments\n", t.col.n,
			(unsigned long long)*ret_dropped, n_links);
	qsort(t.col.ev, t.col.n, sizeof(t.col.ev[0]), trace_event_cmp);
	/* Cut after the n-th take in time order: what follows belongs to samples not counted. */
	end = t.col.n;
	for (size_t i = 0; o->n != 0 && i < t.col.n; i++) {
		if (t.col.ev[i].phase == TP_TAKE_RETURN && (!o->count_mono || t.col.ev[i].arg[0] == 0) &&
		    ++takes == o->n) {
			end = i + 1;
			break;
		}
	}
	if (matcher_new(&m) < 0) {
		free(t.col.ev);
		return SDDS_TRACE_EXIT_FAIL;
	}
	/*
	 * Past the cut only the hand-offs and sends: they complete samples
	 * encoded before it (a sender preempted after its sendmmsg) and carry
	 * nothing else, since no later sample's earlier phases are fed.
	 */
	for (size_t i = 0; i < t.col.n; i++) {
		if (i >= end && t.col.ev[i].phase != TP_BACKEND_HANDED && t.col.ev[i].phase != TP_SENT)
			continue;
		if (matcher_feed(m, &t.col.ev[i]) < 0) {
			fprintf(stderr, "sdds-trace: out of memory matching events\n");
			matcher_free(m);
			free(t.col.ev);
			return SDDS_TRACE_EXIT_FAIL;
		}
	}
	matcher_finish(m);
	free(t.col.ev);
	*ret = m;
	*ret_status = status;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sdds-trace [options] [-- COMMAND ARGS...]\n"
		"       sdds-trace compare [options]\n"
		"\n"
		"Follows samples through the phases of sddsd's and libsddsclient's send and\n"
		"receive paths (USDT probes, docs/trace.md) and prints MIN/AVG/MAX/STD in us\n"
		"per phase, isolated (through sddsd) and monolithic side by side. With a\n"
		"command: traces while it runs; without: until SIGINT or -n samples.\n"
		"compare: runs the local ping-pong (sdds-trace-load) isolated and monolithic\n"
		"and the network ping-pong (sdds-bench net, root) and prints both tables.\n"
		"\n"
		"  -n N           stop after N samples reached an application (take_return);\n"
		"                 compare: N round trips per workload (default %u)\n"
		"  -p PID         trace only this process (repeatable; default every process)\n"
		"      --sddsd PATH  the daemon binary to attach to (default %s)\n"
		"      --lib PATH    libsddsclient.so to attach to (default %s)\n"
		"      --mono-lib PATH  libsddsmono.so to attach to (default %s)\n"
		"      --json     one JSON object instead of the tables\n"
		"  -v, --verbose  libbpf's warnings\n"
		"  -h, --help\n"
		"\n"
		"Needs root or CAP_BPF and CAP_PERFMON. Exit status: 0 done, 1 failure,\n"
		"2 usage error, %d not privileged.\n",
		SDDS_TRACE_DEFAULT_N, SDDS_TRACE_SDDSD, SDDS_TRACE_LIB, SDDS_TRACE_MONO_LIB,
		SDDS_TRACE_EXIT_PRIV);
}

static int parse(int argc, char **argv, struct opts *o)
{
	enum { O_SDDSD = 256, O_LIB, O_MONO_LIB, O_JSON };
	static const struct option longopts[] = {
	    {"sddsd", required_argument, NULL, O_SDDSD},
	    {"lib", required_argument, NULL, O_LIB},
	    {"mono-lib", required_argument, NULL, O_MONO_LIB},
	    {"json", no_argument, NULL, O_JSON},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->sddsd = SDDS_TRACE_SDDSD;
	o->lib = SDDS_TRACE_LIB;
	o->mono_lib = SDDS_TRACE_MONO_LIB;
	while ((c = getopt_long(argc, argv, "+n:p:vh", longopts, NULL)) != -1) {
		char *end;
		unsigned long long v;

		switch (c) {
		case 'n':
		case 'p':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || *end || end == optarg || v == 0 ||
			    v > (c == 'p' ? 0x7fffffffull : 1000000000ull)) {
				fprintf(stderr, "sdds-trace: bad value for -%c: %s\n", c, optarg);
				return -EINVAL;
			}
			if (c == 'n') {
				o->n = v;
			} else {
				if (o->n_pids == SDDS_TRACE_MAX_PIDS) {
					fprintf(stderr, "sdds-trace: at most %d -p\n", SDDS_TRACE_MAX_PIDS);
					return -EINVAL;
				}
				o->pids[o->n_pids++] = (pid_t)v;
			}
			break;
		case O_SDDSD:
			o->sddsd = optarg;
			break;
		case O_LIB:
			o->lib = optarg;
			break;
		case O_MONO_LIB:
			o->mono_lib = optarg;
			break;
		case O_JSON:
			o->json = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc)
		o->cmd = &argv[optind];
	return 0;
}

/* What ran, for the report: the command line, shortened. */
static void cmd_string(char **cmd, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; cmd && cmd[i] && len + 2 < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? " " : "", cmd[i]);
}

static int main_trace(const struct opts *o)
{
	struct report_input in;
	struct trace_matcher *m;
	uint64_t dropped = 0;
	char what[512];
	int status, rc;

	rc = trace_run(o, o->cmd, &m, &status, &dropped);
	if (rc != 0)
		return rc;
	memset(&in, 0, sizeof(in));
	in.runs = matcher_runs(m, &in.n_runs);
	in.unmatched_other = matcher_unmatched_other(m);
	in.dropped = dropped;
	if (o->cmd) {
		cmd_string(o->cmd, what, sizeof(what));
		in.workload = what;
	}
	if (o->json)
		rc = report_json(stdout, &in);
	else
		report_text(stdout, &in);
	matcher_free(m);
	if (rc != 0) {
		fprintf(stderr, "sdds-trace: cannot write the JSON report: %s\n", strerror(-rc));
		return SDDS_TRACE_EXIT_FAIL;
	}
	if (o->cmd && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		fprintf(stderr, "sdds-trace: %s did not exit with 0\n", o->cmd[0]);
		return SDDS_TRACE_EXIT_FAIL;
	}
	return 0;
}

/* sdds-bench net has the monolithic network path when its help lists --monolithic-only. */
static bool bench_net_has_mono(void)
{
	char cmd[1024];
	char line[512];
	bool says_why = true;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' net --help 2>&1", SDDS_TRACE_BENCH);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, "--monolithic-only"))
			says_why = false;
	}
	pclose(p);
	return !says_why;
}

struct cmp_part {
	struct trace_matcher *m;
	enum trace_mode keep;
};

static int main_compare(const struct opts *o0)
{
	static struct trace_run all[64];
	struct report_input in;
	struct cmp_part parts[4];
	int n_parts = 0, rc = 0;
	uint64_t iters = o0->n ? o0->n : SDDS_TRACE_DEFAULT_N;
	char n_s[32];
	struct opts o = *o0;
	uint64_t dropped = 0;

	memset(&in, 0, sizeof(in));
	o.cmd_out_to_err = true;
	snprintf(n_s, sizeof(n_s), "%llu", (unsigned long long)iters);

	/* Local ping-pong: N round trips = 2N samples, each taken once; the load exits. */
	for (int mono = 0; mono < 2; mono++) {
		/* The monolithic run is the same load linked with libsddsmono. */
		char *cmd[] = {mono ? SDDS_TRACE_LOAD_MONO : SDDS_TRACE_LOAD,
			       "local",
			       "-n",
			       n_s,
			       "--sddsd",
			       (char *)o.sddsd,
			       mono ? "--mono" : NULL,
			       NULL};
		uint64_t d = 0;
		int status;

		o.n = 0;
		rc = trace_run(&o, cmd, &parts[n_parts].m, &status, &d);
		if (rc != 0)
			goto out;
		dropped += d;
		parts[n_parts++].keep = mono ? TM_MONOLITHIC : TM_ISOLATED;
		if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			fprintf(stderr, "sdds-trace: the %s local workload failed\n",
				mono ? "monolithic" : "isolated");
			rc = SDDS_TRACE_EXIT_FAIL;
			goto out;
		}
	}
	/* Network ping-pong: stop at 2N takes (pings at B, pongs at A), before the throughput run. */
	{
		char *cmd[] = {SDDS_TRACE_BENCH, "net", "-n",	n_s,	   "--warmup",	    "0",
			       "--no-ddsperf",	 "-t",	"0.05", "--sddsd", (char *)o.sddsd, NULL};
		uint64_t d = 0;
		int status;

		o.n = iters * 2;
		rc = trace_run(&o, cmd, &parts[n_parts].m, &status, &d);
		if (rc != 0)
			goto out;
		dropped += d;
		parts[n_parts++].keep = TM_ISOLATED;
		if (WIFEXITED(status) && WEXITSTATUS(status) == SDDS_TRACE_BENCH_CANNOT) {
			in.missing[TM_ISOLATED][TPATH_SEND] =
			    "sdds-bench net cannot run here (root and network namespaces needed)";
			in.missing[TM_ISOLATED][TPATH_RECEIVE] = in.missing[TM_ISOLATED][TPATH_SEND];
		}
	}
	if (!bench_net_has_mono()) {
		in.missing[TM_MONOLITHIC][TPATH_SEND] =
		    "this sdds-bench net has no --monolithic-only (no monolithic network path)";
		in.missing[TM_MONOLITHIC][TPATH_RECEIVE] = in.missing[TM_MONOLITHIC][TPATH_SEND];
	} else {
		char *cmd[] = {SDDS_TRACE_BENCH,
			       "net",
			       "--monolithic-only", /* the 2N takes are the monolithic ping-pong's */
			       "-n",
			       n_s,
			       "--warmup",
			       "0",
			       "--no-ddsperf",
			       "-t",
			       "0.05",
			       "--sddsd",
			       (char *)o.sddsd,
			       NULL};
		uint64_t d = 0;
		int status;

		/* Monolithic clients only take here; counting only theirs keeps a stray isolated take out. */
		o.n = iters * 2;
		o.count_mono = true;
		rc = trace_run(&o, cmd, &parts[n_parts].m, &status, &d);
		if (rc != 0)
			goto out;
		dropped += d;
		parts[n_parts++].keep = TM_MONOLITHIC;
	}

	for (int i = 0; i < n_parts; i++) {
		size_t n;
		const struct trace_run *r = matcher_runs(parts[i].m, &n);

		for (size_t k = 0; k < n && in.n_runs < sizeof(all) / sizeof(all[0]); k++) {
			if (r[k].mode == parts[i].keep)
				all[in.n_runs++] = r[k];
		}
		in.unmatched_other += matcher_unmatched_other(parts[i].m);
	}
	for (int p = TPATH_SEND; p <= TPATH_RECEIVE; p++) {
		for (int md = 0; md < TM_MAX_; md++) {
			bool have = false;

			for (size_t k = 0; k < in.n_runs; k++)
				have |=
				    all[k].mode == (enum trace_mode)md && all[k].path == (enum trace_path)p;
			if (!have && !in.missing[md][p])
				in.missing[md][p] = "the workload produced no complete sample of this path";
		}
	}
	in.runs = all;
	in.dropped = dropped;
	in.workload = "sdds-trace-load local (isolated, --mono), sdds-bench net (ping-pong, --warmup 0)";
	rc = 0;
	if (o.json && report_json(stdout, &in) != 0) {
		fprintf(stderr, "sdds-trace: cannot write the JSON report\n");
		rc = SDDS_TRACE_EXIT_FAIL;
	} else if (!o.json) {
		report_text(stdout, &in);
	}
out:
	for (int i = 0; i < n_parts; i++)
		matcher_free(parts[i].m);
	return rc;
}

int main(int argc, char **argv)
{
	bool compare = argc > 1 && strcmp(argv[1], "compare") == 0;
	struct opts o;
	int rc;

	rc = parse(compare ? argc - 1 : argc, compare ? argv + 1 : argv, &o);
	if (rc != 0)
		return rc > 0 ? 0 : SDDS_TRACE_EXIT_USAGE;
	if (compare && (o.cmd || o.n_pids)) {
		fprintf(stderr, "sdds-trace: compare runs its own workloads (no command, no -p)\n");
		return SDDS_TRACE_EXIT_USAGE;
	}
	if (!trace_privileged()) {
		fprintf(stderr, "sdds-trace: needs root, or CAP_BPF and CAP_PERFMON, to load the BPF program "
				"and attach uprobes; this process has neither\n");
		return SDDS_TRACE_EXIT_PRIV;
	}
	trace_verbose = o.verbose;
	libbpf_set_print(trace_libbpf_print);
	signal(SIGINT, trace_on_sigint);
	return compare ? main_compare(&o) : main_trace(&o);
}
