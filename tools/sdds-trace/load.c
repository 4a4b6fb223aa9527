/* SPDX-License-Identifier: MIT */
/*
 * load.c - sdds-trace-load: the local ping-pong sdds-trace follows.
 *
 * OVERVIEW
 *   sdds-trace-load local [--mono] [-n N] [--sddsd PATH] [--spin-ns NS]
 * Two clients in one process: A writes `ping` and takes `pong` with a
 * blocking take; B takes each ping inside a listener callback and writes it
 * back on `pong`. So both ways of taking show in the trace (a blocked take,
 * and the callback-manager thread), and exactly N round trips = 2N samples
 * pass the local path, each taken once: a tracer's counts can be checked
 * against N. Isolated (default): a private sddsd on a socket in a fresh
 * temporary directory, stopped and removed at the end; --mono: both clients
 * run the broker in-process. Reliable QoS, so no sample is dropped; the
 * client spin budget is 0 by default so every wait sleeps (a take that
 * never waits has no wake-up to measure). Exit 0 when every pong came back
 * in order, 1 otherwise (with the reason), 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sdds/sdds.h"

#define LOAD_DOMAIN 1
#define LOAD_TAKE_TIMEOUT_NS 5000000000ll

struct load_opts {
	bool mono;
	uint64_t n;
	const char *sddsd;
	int64_t spin_ns;
};

struct load_side {
	sdds_client *c;
	sdds_topic *ping, *pong;
	sdds_writer *w;
	sdds_reader *r;
};

struct load_daemon {
	pid_t pid;
	char dir[PATH_MAX];
	char sock[108];
};

static const sdds_field load_fields[] = {{.name = "seq", .type = SDDS_FIELD_ULONGLONG, .size = 8}};

static int load_topics(struct load_side *s)
{
	sdds_topic_desc d = {.name = "trace_ping",
			     .domain = LOAD_DOMAIN,
			     .id = 1,
			     .sample_size = 8,
			     .fields = load_fields,
			     .n_fields = 1};
	int rc = sdds_topic_new(s->c, &d, &s->ping);

	if (rc < 0)
		return rc;
	d.name = "trace_pong";
	d.id = 2;
	return sdds_topic_new(s->c, &d, &s->pong);
}

/* B: every ping is taken in the callback and written back as a pong. */
static void load_on_ping(sdds_reader *r, void *arg)
{
	struct load_side *b = arg;
	uint64_t v;
	size_t len;

	while (sdds_reader_take(r, &v, sizeof(v), &len, 0) == 0)
		(void)sdds_writer_write(b->w, &v, sizeof(v));
}

static int load_daemon_start(const char *bin, struct load_daemon *d)
{
	const char *tmp = getenv("TMPDIR");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	snprintf(d->dir, sizeof(d->dir), "%s/sdds-trace-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(d->dir))
		return -errno;
	if ((size_t)snprintf(d->sock, sizeof(d->sock), "%s/sddsd.sock", d->dir) >= sizeof(d->sock))
		return -ENAMETOOLONG;
	d->pid = fork();
	if (d->pid < 0)
		return -errno;
	if (d->pid == 0) {
		char *argv[] = {(char *)bin, "--socket", d->sock, NULL};

		execv(bin, argv);
		fprintf(stderr, "sdds-trace-load: %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	memcpy(sa.sun_path, d->sock, strlen(d->sock) + 1);
	for (int i = 0; i < 500; i++) {
		int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		int st;

		if (fd < 0)
			return -errno;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			close(fd);
			return 0;
		}
		close(fd);
		if (waitpid(d->pid, &st, WNOHANG) == d->pid) {
			d->pid = -1;
			return -ECHILD;
		}
		usleep(10000);
	}
	return -ETIMEDOUT;
}

static void load_daemon_stop(struct load_daemon *d)
{
	if (d->pid > 0) {
		kill(d->pid, SIGTERM);
		while (waitpid(d->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (d->sock[0])
		unlink(d->sock);
	if (d->dir[0])
		rmdir(d->dir);
}

static int load_side_open(const struct load_opts *o, const char *sock, struct load_side *s, bool is_a)
{
	sdds_client_options co;
	sdds_qos q;
	int rc;

	sdds_client_options_init(&co);
	co.socket_path = sock;
	co.monolithic = o->mono;
	co.spin_ns = o->spin_ns;
	co.name = is_a ? "trace-load-a" : "trace-load-b";
	rc = sdds_client_new(&co, &s->c);
	if (rc < 0)
		return rc;
	rc = load_topics(s);
	if (rc < 0)
		return rc;
	sdds_qos_init(&q);
	q.reliability = SDDS_RELIABLE;
	rc = sdds_writer_new(is_a ? s->ping : s->pong, &q, &s->w);
	if (rc < 0)
		return rc;
	return sdds_reader_new(is_a ? s->pong : s->ping, &q, &s->r);
}

static void load_side_close(struct load_side *s)
{
	if (s->r)
		sdds_reader_free(s->r);
	if (s->w)
		sdds_writer_free(s->w);
	if (s->ping)
		sdds_topic_free(s->ping);
	if (s->pong)
		sdds_topic_free(s->pong);
	sdds_client_free(s->c);
}

static int load_local(const struct load_opts *o)
{
	struct load_daemon d = {.pid = -1};
	struct load_side a = {0}, b = {0};
	const char *sock = NULL;
	int rc;

	if (!o->mono) {
		rc = load_daemon_start(o->sddsd, &d);
		if (rc < 0) {
			fprintf(stderr, "sdds-trace-load: cannot start %s: %s\n", o->sddsd, strerror(-rc));
			load_daemon_stop(&d);
			return 1;
		}
		sock = d.sock;
	}
	rc = load_side_open(o, sock, &a, true);
	if (rc == 0)
		rc = load_side_open(o, sock, &b, false);
	if (rc == 0)
		rc = sdds_reader_set_listener(b.r, load_on_ping, &b);
	for (uint64_t i = 0; rc == 0 && i < o->n; i++) {
		uint64_t v = i, got = 0;
		size_t len = 0;

		rc = sdds_writer_write(a.w, &v, sizeof(v));
		if (rc == 0)
			rc = sdds_reader_take(a.r, &got, sizeof(got), &len, LOAD_TAKE_TIMEOUT_NS);
		if (rc == 0 && got != v) {
			fprintf(stderr, "sdds-trace-load: pong %" PRIu64 " came back as %" PRIu64 "\n", v,
				got);
			rc = -EPROTO;
		}
	}
	if (rc < 0)
		fprintf(stderr, "sdds-trace-load: %s\n", sdds_strerror(rc));
	if (b.r)
		(void)sdds_reader_set_listener(b.r, NULL, NULL);
	if (b.c)
		load_side_close(&b);
	if (a.c)
		load_side_close(&a);
	load_daemon_stop(&d);
	if (rc == 0)
		printf("%" PRIu64 " round trips, %s\n", o->n, o->mono ? "monolithic" : "isolated");
	return rc == 0 ? 0 : 1;
}

static void load_usage(FILE *f)
{
	fprintf(f, "usage: sdds-trace-load local [--mono] [-n N] [--sddsd PATH] [--spin-ns NS]\n"
		   "  N round trips (default 1000) of a ping-pong between two clients\n"
		   "  (a blocking take and a listener), through a private sddsd or --mono.\n");
}

int main(int argc, char **argv)
{
	enum { O_MONO = 256, O_SDDSD, O_SPIN };
	static const struct option longopts[] = {
	    {"mono", no_argument, NULL, O_MONO},
	    {"sddsd", required_argument, NULL, O_SDDSD},
	    {"spin-ns", required_argument, NULL, O_SPIN},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct load_opts o = {.n = 1000, .sddsd = "sddsd", .spin_ns = 0};
	int c;

	if (argc < 2 || strcmp(argv[1], "local") != 0) {
		load_usage(stderr);
		return 2;
	}
	optind = 2;
	while ((c = getopt_long(argc, argv, "n:h", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'n':
			errno = 0;
			o.n = strtoull(optarg, &end, 10);
			if (errno || *end || end == optarg || o.n == 0 || *optarg == '-') {
				fprintf(stderr, "sdds-trace-load: bad value for -n: %s\n", optarg);
				return 2;
			}
			break;
		case O_MONO:
			o.mono = true;
			break;
		case O_SDDSD:
			o.sddsd = optarg;
			break;
		case O_SPIN:
			errno = 0;
			o.spin_ns = strtoll(optarg, &end, 10);
			if (errno || *end || end == optarg || o.spin_ns < 0) {
				fprintf(stderr, "sdds-trace-load: bad value for --spin-ns: %s\n", optarg);
				return 2;
			}
			break;
		case 'h':
			load_usage(stdout);
			return 0;
		default:
			load_usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		load_usage(stderr);
		return 2;
	}
	return load_local(&o);
}
