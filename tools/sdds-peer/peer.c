/* SPDX-License-Identifier: MIT */
/*
 * peer.c - sdds-peer: the Linux counterpart of the MCU test applications.
 *
 * OVERVIEW
 * An ordinary libsddsclient application (native API) reaching the network
 * through the local sddsd, whose node config names the node:
 *
 *   sdds-peer [options]          subscribes Alpha, publishes Beta: every
 *                                period it writes a Beta sample carrying a
 *                                16-bit counter (big-endian, the first two
 *                                bytes; the rest zero) and prints every Alpha
 *                                sample it receives. An Alpha sample whose
 *                                counter is one it sent and not yet seen back
 *                                is an echo: its round-trip time is recorded.
 *   sdds-peer --echo [options]   the node's side of the echo: subscribes
 *                                Beta, publishes Alpha, and writes every Beta
 *                                sample it takes back on Alpha unchanged.
 *
 * So a node that echoes Beta on Alpha (as the MCU test applications do), or
 * a second sdds-peer --echo, gives the round-trip statistics: sent, echoed,
 * lost (sent, never echoed within --wait after the last send), min, median,
 * p99, max in microseconds, on one line starting "rtt:".
 *
 * Topics come from a topic file in sDDS's format (a <domain> of <topic>s,
 * default topics.xml installed next to this program's source, or --topics
 * FILE), read by the same reader the daemon uses for node configs
 * (lib/sddsxml's node-config view), so a topic the daemon
 * would refuse is refused here too with FILE:LINE. Names default to Alpha
 * and Beta (--sub, --pub). A sample is at least 2 bytes.
 *
 * Threads: one. The sender loop takes with a timeout up to the next send,
 * so a period of 0 is a strict ping-pong (send, wait for the echo or for
 * --wait, send the next). Exit status: 0 when everything went as asked
 * (the pinger: at least one echo, or --no-echo-ok; the echo side: --count
 * samples echoed, or stopped by a signal, or idle for --idle), 1 when the
 * counts fall short, 2 on an error.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sddsxml/nodecfg.h>
#include "sdds/sdds.h"

#ifndef PEER_DEFAULT_TOPICS
#define PEER_DEFAULT_TOPICS "topics.xml"
#endif
#define PEER_SEQ_SPACE 65536u /* the counter is 16 bits */

struct peer_opts {
	const char *socket_path;
	const char *topics;
	const char *sub_name, *pub_name;
	bool echo, quiet, reliable;
	uint64_t count;	    /* 0: forever (until a signal) */
	uint64_t period_us; /* pinger: between sends; 0: ping-pong */
	uint64_t wait_ms;   /* pinger: for echoes after the last send; echo side: per take */
	uint64_t idle_ms;   /* echo side: stop after this long without a sample (0: never) */
};

struct peer_topic {
	sdds_topic_desc desc;
	sdds_field fields[NODECFG_MAX_FIELDS];
};

static volatile sig_atomic_t peer_stop;

static void peer_on_signal(int sig)
{
	(void)sig;
	peer_stop = 1;
}

static uint64_t peer_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Load the topics file into nc: wrapped in a throw-away project (a temporary
 * file that includes FILE by its absolute path and gives the two roles), so
 * that the daemon's own reader checks it. *ret is the caller's (free()).
 */
static int peer_load_topics(const struct peer_opts *o, struct nodecfg **ret)
{
	char abs[PATH_MAX], tmp[] = "/tmp/sdds-peer.XXXXXX.xml";
	struct nodecfg_error err;
	FILE *f;
	int fd, rc;

	if (realpath(o->topics, abs) == NULL) {
		fprintf(stderr, "sdds-peer: %s: %s\n", o->topics, strerror(errno));
		return -errno;
	}
	fd = mkstemps(tmp, 4);
	if (fd < 0) {
		fprintf(stderr, "sdds-peer: temporary file: %s\n", strerror(errno));
		return -errno;
	}
	f = fdopen(fd, "w");
	if (f == NULL) {
		close(fd);
		unlink(tmp);
		return -ENOMEM;
	}
	fprintf(f,
		"<project name=\"sdds-peer\" protocol=\"AF_INET6\">\n"
		"  <include filename=\"%s\"/>\n"
		"  <role topic=\"%s\" type=\"subscriber\"/>\n"
		"  <role topic=\"%s\" type=\"publisher\"/>\n"
		"</project>\n",
		abs, o->sub_name, o->pub_name);
	if (fclose(f) != 0) {
		unlink(tmp);
		return -EIO;
	}
	rc = nodecfg_load(tmp, ret, &err);
	unlink(tmp);
	if (rc < 0)
		fprintf(stderr, "sdds-peer: %s\n", err.msg);
	return rc;
}

/* The topic called name in nc as a native-API description (strings borrowed from nc). */
static int peer_topic_of(const struct nodecfg *nc, const char *name, struct peer_topic *t)
{
	for (uint32_t i = 0; i < nc->n_topics; i++) {
		const struct nodecfg_desc *d = &nc->topics[i].desc;

		if (strcmp(d->name, name) != 0)
			continue;
		if (d->sample_size < 2) {
			fprintf(stderr,
				"sdds-peer: topic %s: %u-byte samples cannot carry the 2-byte counter\n",
				name, d->sample_size);
			return -EINVAL;
		}
		memset(t, 0, sizeof(*t));
		for (uint32_t k = 0; k < d->n_fields; k++) {
			t->fields[k].name = d->fields[k].name;
			t->fields[k].type = (sdds_field_type)d->fields[k].type;
			t->fields[k].size = d->fields[k].size;
		}
		t->desc.name = d->name;
		t->desc.domain = d->domain;
		t->desc.id = d->topic_id;
		t->desc.sample_size = d->sample_size;
		t->desc.fields = t->fields;
		t->desc.n_fields = d->n_fields;
		return 0;
	}
	fprintf(stderr, "sdds-peer: no topic %s in %s\n", name, "the topic file");
	return -ENOENT;
}

static int peer_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the value at rank ceil(q * n) of sorted v[0..n), n > 0. */
static uint64_t peer_rank(const uint64_t *v, size_t n, double q)
{
	size_t r = (size_t)(q * (double)n + 0.999999);

	if (r < 1)
		r = 1;
	if (r > n)
		r = n;
	return v[r - 1];
}

static void peer_print_sample(const char *topic, const uint8_t *s, size_t len)
{
	printf("recv %s counter=%u bytes=", topic, (unsigned)s[0] << 8 | s[1]);
	for (size_t i = 0; i < len; i++)
		printf("%02x", s[i]);
	putchar('\n');
}

struct peer_rtt {
	uint64_t sent_ns[PEER_SEQ_SPACE]; /* 0: nothing outstanding with this counter */
	uint64_t *rtt;			  /* one per echo, in arrival order */
	size_t n_rtt, cap_rtt;
	uint64_t unexpected; /* Alpha samples that are not an outstanding echo */
};

static int peer_rtt_add(struct peer_rtt *r, uint64_t v)
{
	if (r->n_rtt == r->cap_rtt) {
		size_t cap = r->cap_rtt ? r->cap_rtt * 2 : 1024;
		uint64_t *p = realloc(r->rtt, cap * sizeof(*p));

		if (p == NULL)
			return -ENOMEM;
		r->rtt = p;
		r->cap_rtt = cap;
	}
	r->rtt[r->n_rtt++] = v;
	return 0;
}

/* Take every sample that arrives until deadline (or, with stop_on_echo, the first echo). */
static int peer_drain(const struct peer_opts *o, sdds_reader *rd, const struct peer_topic *sub,
		      struct peer_rtt *r, uint64_t deadline, bool stop_on_echo)
{
	uint8_t s[4096];

	while (!peer_stop) {
		uint64_t now = peer_now_ns();
		size_t len;
		unsigned c;
		int rc;

		if (now >= deadline)
			return 0;
		rc = sdds_reader_take(rd, s, sizeof(s), &len, (int64_t)(deadline - now));
		now = peer_now_ns();
		if (rc == -ETIMEDOUT || rc == -EAGAIN)
			return 0;
		if (rc < 0) {
			fprintf(stderr, "sdds-peer: take %s: %s\n", sub->desc.name, sdds_strerror(rc));
			return rc;
		}
		if (!o->quiet)
			peer_print_sample(sub->desc.name, s, len);
		c = (unsigned)s[0] << 8 | s[1];
		if (r->sent_ns[c] != 0) {
			if (peer_rtt_add(r, now - r->sent_ns[c]) < 0)
				return -ENOMEM;
			r->sent_ns[c] = 0;
			if (stop_on_echo)
				return 0;
		} else {
			r->unexpected++;
		}
	}
	return 0;
}

static int peer_run_pinger(const struct peer_opts *o, sdds_writer *w, sdds_reader *rd,
			   const struct peer_topic *pub, const struct peer_topic *sub)
{
	struct peer_rtt *r = calloc(1, sizeof(*r));
	uint8_t s[4096];
	uint64_t sent = 0, next = peer_now_ns();
	int rc = 0;

	if (r == NULL)
		return 2;
	memset(s, 0, pub->desc.sample_size);
	while (!peer_stop && (o->count == 0 || sent < o->count)) {
		unsigned c = (unsigned)(sent % PEER_SEQ_SPACE);

		s[0] = (uint8_t)(c >> 8);
		s[1] = (uint8_t)c;
		/* An older send with this counter that was never echoed is lost, not an echo of this one. */
		r->sent_ns[c] = peer_now_ns() | 1;
		rc = sdds_writer_write(w, s, pub->desc.sample_size);
		if (rc < 0) {
			fprintf(stderr, "sdds-peer: write %s: %s\n", pub->desc.name, sdds_strerror(rc));
			break;
		}
		sent++;
		if (o->period_us == 0) {
			rc = peer_drain(o, rd, sub, r, peer_now_ns() + o->wait_ms * 1000000u, true);
		} else {
			next += o->period_us * 1000u;
			rc = peer_drain(o, rd, sub, r, next, false);
		}
		if (rc < 0)
			break;
	}
	if (rc >= 0)
		rc = peer_drain(o, rd, sub, r, peer_now_ns() + o->wait_ms * 1000000u, false);
	printf("sent %llu %s, received %llu echoes on %s, %llu other samples\n", (unsigned long long)sent,
	       pub->desc.name, (unsigned long long)r->n_rtt, sub->desc.name,
	       (unsigned long long)r->unexpected);
	if (r->n_rtt > 0) {
		uint64_t lost = sent > r->n_rtt ? sent - r->n_rtt : 0;

		qsort(r->rtt, r->n_rtt, sizeof(r->rtt[0]), peer_cmp_u64);
		printf("rtt: count %zu lost %llu min %.1f us median %.1f us p99 %.1f us max %.1f us\n",
		       r->n_rtt, (unsigned long long)lost, (double)r->rtt[0] / 1e3,
		       (double)peer_rank(r->rtt, r->n_rtt, 0.5) / 1e3,
		       (double)peer_rank(r->rtt, r->n_rtt, 0.99) / 1e3, (double)r->rtt[r->n_rtt - 1] / 1e3);
	} else {
		printf("rtt: no echo received\n");
	}
	fflush(stdout);
	{
		int ret = rc < 0 ? 2 : (r->n_rtt > 0 ? 0 : 1);

		free(r->rtt);
		free(r);
		return ret;
	}
}

static int peer_run_echo(const struct peer_opts *o, sdds_writer *w, sdds_reader *rd,
			 const struct peer_topic *pub, const struct peer_topic *sub)
{
	uint8_t s[4096], out[4096];
	uint64_t echoed = 0;

	memset(out, 0, sizeof(out));
	while (!peer_stop && (o->count == 0 || echoed < o->count)) {
		int64_t timeout = o->idle_ms ? (int64_t)o->idle_ms * 1000000 : 200 * 1000000;
		size_t len;
		int rc = sdds_reader_take(rd, s, sizeof(s), &len, timeout);

		if (rc == -ETIMEDOUT) {
			if (o->idle_ms)
				break;
			continue;
		}
		if (rc < 0) {
			fprintf(stderr, "sdds-peer: take %s: %s\n", sub->desc.name, sdds_strerror(rc));
			return 2;
		}
		if (!o->quiet)
			peer_print_sample(sub->desc.name, s, len);
		/* Same counter back; a longer sample of the other topic is zero-filled, a shorter one cut. */
		memcpy(out, s, len < pub->desc.sample_size ? len : pub->desc.sample_size);
		rc = sdds_writer_write(w, out, pub->desc.sample_size);
		if (rc < 0) {
			fprintf(stderr, "sdds-peer: write %s: %s\n", pub->desc.name, sdds_strerror(rc));
			return 2;
		}
		echoed++;
	}
	printf("echoed %llu samples of %s on %s\n", (unsigned long long)echoed, sub->desc.name,
	       pub->desc.name);
	fflush(stdout);
	return o->count == 0 || echoed >= o->count || peer_stop ? 0 : 1;
}

static void peer_usage(FILE *f)
{
	fprintf(f,
		"usage: sdds-peer [options]\n"
		"\n"
		"Subscribes Alpha and publishes Beta through the local sddsd: writes a Beta\n"
		"sample with a 16-bit counter every period, prints every Alpha sample, and\n"
		"when Alpha echoes the counter prints the round-trip statistics (rtt: ...).\n"
		"With --echo it plays the node: takes Beta and writes it back on Alpha.\n"
		"\n"
		"  -s, --socket PATH   sddsd's socket (default: $SDDS_SOCKET or the default path)\n"
		"  -t, --topics FILE   topic definitions, sDDS format (default %s)\n"
		"      --sub NAME      topic received (default Alpha; Beta with --echo)\n"
		"      --pub NAME      topic sent (default Beta; Alpha with --echo)\n"
		"  -e, --echo          echo side: take the sent topic, write it back\n"
		"  -p, --period MS     between sends, milliseconds, fractions allowed\n"
		"                      (default 100; 0: ping-pong, next send after the echo)\n"
		"  -n, --count N       samples to send (echo side: to echo); 0 = until a signal\n"
		"                      (default 10; echo side 0)\n"
		"  -w, --wait MS       wait for echoes after the last send (and per ping in\n"
		"                      ping-pong) (default 1000)\n"
		"      --idle MS       echo side: stop after MS without a sample (default 0: never)\n"
		"      --best-effort   best-effort readers and writers (default reliable)\n"
		"  -q, --quiet         do not print every received sample\n"
		"  -h, --help\n",
		PEER_DEFAULT_TOPICS);
}

/* The long name of option c, for messages. */
static const char *peer_longname(const struct option *opts, int c)
{
	for (; opts->name != NULL; opts++)
		if (opts->val == c)
			return opts->name;
	return "?";
}

static int peer_parse(int argc, char **argv, struct peer_opts *o)
{
	static const struct option longopts[] = {
	    {"socket", required_argument, NULL, 's'},
	    {"topics", required_argument, NULL, 't'},
	    {"sub", required_argument, NULL, 'S'},
	    {"pub", required_argument, NULL, 'P'},
	    {"echo", no_argument, NULL, 'e'},
	    {"period", required_argument, NULL, 'p'},
	    {"count", required_argument, NULL, 'n'},
	    {"wait", required_argument, NULL, 'w'},
	    {"idle", required_argument, NULL, 'I'},
	    {"best-effort", no_argument, NULL, 'B'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool count_given = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->topics = PEER_DEFAULT_TOPICS;
	o->reliable = true;
	o->count = 10;
	o->period_us = 100000;
	o->wait_ms = 1000;
	while ((c = getopt_long(argc, argv, "s:t:ep:n:w:qh", longopts, NULL)) != -1) {
		char *end;

		errno = 0;
		switch (c) {
		case 's':
			o->socket_path = optarg;
			break;
		case 't':
			o->topics = optarg;
			break;
		case 'S':
			o->sub_name = optarg;
			break;
		case 'P':
			o->pub_name = optarg;
			break;
		case 'e':
			o->echo = true;
			break;
		case 'p': {
			double ms = strtod(optarg, &end);

			if (*end != '\0' || end == optarg || !(ms >= 0) || ms > 3600e3)
				goto bad;
			o->period_us = (uint64_t)(ms * 1000.0 + 0.5);
			break;
		}
		case 'n':
			o->count = strtoull(optarg, &end, 0);
			count_given = true;
			if (*end != '\0' || end == optarg || errno || optarg[0] == '-')
				goto bad;
			break;
		case 'w':
			o->wait_ms = strtoull(optarg, &end, 0);
			if (*end != '\0' || end == optarg || errno || o->wait_ms > 3600000)
				goto bad;
			break;
		case 'I':
			o->idle_ms = strtoull(optarg, &end, 0);
			if (*end != '\0' || end == optarg || errno || o->idle_ms > 3600000)
				goto bad;
			break;
		case 'B':
			o->reliable = false;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			peer_usage(stdout);
			exit(0);
		default:
			peer_usage(stderr);
			return -EINVAL;
		}
		continue;
	bad:
		fprintf(stderr, "sdds-peer: bad value for --%s: %s\n", peer_longname(longopts, c), optarg);
		return -EINVAL;
	}
	if (optind != argc) {
		peer_usage(stderr);
		return -EINVAL;
	}
	if (o->sub_name == NULL)
		o->sub_name = o->echo ? "Beta" : "Alpha";
	if (o->pub_name == NULL)
		o->pub_name = o->echo ? "Alpha" : "Beta";
	if (o->echo && !count_given)
		o->count = 0;
	return 0;
}

int main(int argc, char **argv)
{
	struct peer_opts o;
	struct nodecfg *nc = NULL;
	struct peer_topic *sub = NULL, *pub = NULL;
	sdds_client_options co;
	sdds_client *cl = NULL;
	sdds_topic *tsub = NULL, *tpub = NULL;
	sdds_writer *w = NULL;
	sdds_reader *rd = NULL;
	struct sigaction sa;
	sdds_qos q;
	int rc, ret = 2;

	if (peer_parse(argc, argv, &o) < 0)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = peer_on_signal; /* no SA_RESTART: a blocked take returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (peer_load_topics(&o, &nc) < 0)
		return 2;
	sub = malloc(sizeof(*sub));
	pub = malloc(sizeof(*pub));
	if (sub == NULL || pub == NULL || peer_topic_of(nc, o.sub_name, sub) < 0 ||
	    peer_topic_of(nc, o.pub_name, pub) < 0)
		goto out;
	sdds_client_options_init(&co);
	co.socket_path = o.socket_path;
	co.name = o.echo ? "sdds-peer-echo" : "sdds-peer";
	rc = sdds_client_new(&co, &cl);
	if (rc < 0) {
		fprintf(stderr, "sdds-peer: connect: %s\n", sdds_strerror(rc));
		goto out;
	}
	rc = sdds_topic_new(cl, &sub->desc, &tsub);
	if (rc == 0)
		rc = sdds_topic_new(cl, &pub->desc, &tpub);
	if (rc < 0) {
		fprintf(stderr, "sdds-peer: topics %s/%s: %s\n", o.sub_name, o.pub_name, sdds_strerror(rc));
		goto out;
	}
	sdds_qos_init(&q);
	q.reliability = o.reliable ? SDDS_RELIABLE : SDDS_BEST_EFFORT;
	q.history_depth = 1024;
	q.max_blocking_ms = 1000;
	rc = sdds_reader_new(tsub, &q, &rd);
	if (rc == 0)
		rc = sdds_writer_new(tpub, &q, &w);
	if (rc < 0) {
		fprintf(stderr, "sdds-peer: endpoints: %s\n", sdds_strerror(rc));
		goto out;
	}
	printf("ready: %s %s (domain %u id %u, %u bytes) -> %s (domain %u id %u, %u bytes)\n",
	       o.echo ? "echo" : "ping", o.sub_name, sub->desc.domain, sub->desc.id, sub->desc.sample_size,
	       o.pub_name, pub->desc.domain, pub->desc.id, pub->desc.sample_size);
	ret = o.echo ? peer_run_echo(&o, w, rd, pub, sub) : peer_run_pinger(&o, w, rd, pub, sub);
out:
	sdds_writer_free(w);
	sdds_reader_free(rd);
	sdds_topic_free(tpub);
	sdds_topic_free(tsub);
	sdds_client_free(cl);
	free(sub);
	free(pub);
	free(nc);
	return ret;
}
