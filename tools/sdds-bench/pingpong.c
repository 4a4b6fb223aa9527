/* SPDX-License-Identifier: MIT */
/* pingpong.c - the ping-pong harness of the latency benchmarks (see pingpong.h). */
#include "pingpong.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "proc.h"

/* A hop slower than this is a failure, not a figure (lossless transports). */
#define PP_HOP_TIMEOUT_NS (5 * 1000000000LL)
#define PP_READY_TIMEOUT_NS (10 * 1000000000LL)
#define PP_LOST 2 /* pp_recv: nothing came for lost_ms */

enum { PP_PING = 0, PP_PONG = 1 };

int pingpong_fail(struct pingpong_shm *s, int side, int code, const char *fmt, ...)
{
	va_list ap;

	if (s->why[side][0] == '\0') {
		va_start(ap, fmt);
		vsnprintf(s->why[side], sizeof(s->why[side]), fmt, ap);
		va_end(ap);
	}
	atomic_store_explicit(&s->abort, 1, memory_order_relaxed);
	return code;
}

static const char *pp_strerror(const struct pingpong_ops *ops, int err)
{
	if (err == -ECANCELED)
		return "peer failed";
	if (err == -ETIMEDOUT)
		return "no answer within 5 s";
	if (err == -EPROTO)
		return "wrong sample";
	return ops->strerror ? ops->strerror(err) : strerror(-err);
}

/*
 * One message into buf. Returns 0, 1 when `stop` was seen (pong side),
 * PP_LOST after lost_at (lossy ping side), -ECANCELED when the peer failed,
 * -ETIMEDOUT after PP_HOP_TIMEOUT_NS (the pong side only once it has had a
 * ping: before that it waits as long as the ping side prepares), or the
 * transport's error.
 */
static int pp_recv(struct pingpong_shm *s, const struct pingpong_ops *ops, void *ctx, void *buf,
		   size_t *ret_len, bool pong, bool started, int64_t lost_at)
{
	/*
	 * The clock is read only after an empty slice: a read costs up to a
	 * fifth of a microsecond on a VM, and the pong side's next receive is
	 * on the measured path.
	 */
	int64_t deadline = -1;

	for (;;) {
		int err = ops->recv(ctx, buf, BENCH_MAX_SIZE, ret_len);
		int64_t now;

		if (err != -EAGAIN && err != -ETIMEDOUT)
			return err;
		if (atomic_load_explicit(&s->abort, memory_order_relaxed))
			return -ECANCELED;
		if (pong && atomic_load_explicit(&s->stop, memory_order_acquire))
			return 1;
		now = bench_now_ns();
		if (lost_at > 0 && now > lost_at)
			return PP_LOST;
		if (started && deadline < 0)
			deadline = now + PP_HOP_TIMEOUT_NS;
		else if (started && now > deadline)
			return -ETIMEDOUT;
	}
}

int pingpong_ping(struct pingpong_shm *s, const struct bench_opts *o, const struct pingpong_ops *ops,
		  void *ctx, const char *who)
{
	uint8_t out[BENCH_MAX_SIZE] = {0}, in[BENCH_MAX_SIZE];
	uint32_t seq_len = o->size < 2 ? o->size : 2;
	int64_t t_prev, t_cap = 0, warm_cap;
	bool measuring = o->warmup == 0;
	uint64_t i, n = 0;
	int err;

	err = bench_wait_flag(&s->ready, &s->abort, PP_READY_TIMEOUT_NS);
	if (err < 0)
		return pingpong_fail(s, PP_PING, 2, "%s: waiting for the pong side: %s", who,
				     err == -ETIMEDOUT ? "not ready within 10 s" : "peer failed");
	t_prev = bench_now_ns();
	warm_cap = t_prev + (int64_t)(o->max_seconds / 4 * 1e9);
	for (i = 0; n < o->iterations; i++) {
		int64_t lost_at = ops->lost_ms ? t_prev + (int64_t)ops->lost_ms * 1000000 : 0;
		size_t len = 0;
		int64_t t;

		out[0] = (uint8_t)(o->size == 1 ? i : i >> 8);
		if (o->size > 1)
			out[1] = (uint8_t)i;
		err = ops->send(ctx, out, o->size);
		if (err < 0)
			return pingpong_fail(s, PP_PING, 3, "%s: send ping %llu: %s", who,
					     (unsigned long long)i, pp_strerror(ops, err));
		/* A lossy wire may bring the late answer to an earlier ping: skip it. */
		do {
			err = pp_recv(s, ops, ctx, in, &len, false, true, lost_at);
		} while (err == 0 && ops->lost_ms && (len < seq_len || memcmp(in, out, seq_len) != 0));
		if (err == 0 && !ops->lost_ms && (len != o->size || memcmp(in, out, o->size) != 0))
			err = -EPROTO;
		if (err < 0)
			return pingpong_fail(s, PP_PING, 3, "%s: answer to ping %llu: %s", who,
					     (unsigned long long)i, pp_strerror(ops, err));
		t = bench_now_ns();
		if (err == PP_LOST) {
			s->lost++;
			if (s->lost > 100 && s->lost * 10 > i + 1)
				return pingpong_fail(s, PP_PING, 1,
						     "%s: more than 10%% of the pings were never answered "
						     "(%llu of %llu)",
						     who, (unsigned long long)s->lost,
						     (unsigned long long)(i + 1));
		} else if (measuring) {
			if (ops->measured)
				ops->measured(ctx, n, i, t_prev, t, in);
			s->rtt[n++] = (uint64_t)(t - t_prev);
			if (n == 1)
				t_cap = t + (int64_t)(o->max_seconds * 1e9);
			else if (t > t_cap)
				break;
		} else if (i + 1 >= o->warmup || t > warm_cap) {
			measuring = true;
		}
		t_prev = t;
	}
	s->done = n;
	s->capped = n < o->iterations;
	atomic_store_explicit(&s->stop, 1, memory_order_release);
	/* The last ping only carries `stop`; the pong side does not answer it. */
	ops->send(ctx, out, o->size);
	return 0;
}

int pingpong_pong(struct pingpong_shm *s, const struct bench_opts *o, const struct pingpong_ops *ops,
		  void *ctx, const char *who)
{
	uint8_t buf[BENCH_MAX_SIZE];
	int err;

	atomic_store_explicit(&s->ready, 1, memory_order_release);
	for (uint64_t i = 0;; i++) {
		size_t len = 0;

		err = pp_recv(s, ops, ctx, buf, &len, true, i > 0, 0);
		if (err == 1 || (err == 0 && atomic_load_explicit(&s->stop, memory_order_acquire)))
			return 0;
		if (err == 0 && len != o->size)
			err = -EPROTO;
		if (err < 0)
			return pingpong_fail(s, PP_PONG, 3, "%s: ping %llu: %s", who, (unsigned long long)i,
					     pp_strerror(ops, err));
		err = ops->send(ctx, buf, (uint32_t)len);
		if (err < 0)
			return pingpong_fail(s, PP_PONG, 3, "%s: answer %llu: %s", who, (unsigned long long)i,
					     pp_strerror(ops, err));
	}
}

int pingpong_side(struct pingpong_shm *s, int side, const struct bench_opts *o,
		  const struct pingpong_ops *ops, void *ctx, const char *ping_who, const char *pong_who)
{
	return side ? pingpong_pong(s, o, ops, ctx, pong_who) : pingpong_ping(s, o, ops, ctx, ping_who);
}

size_t pingpong_shm_size(const struct bench_opts *o)
{
	return sizeof(struct pingpong_shm) + o->iterations * sizeof(uint64_t);
}

/* The figures of a run whose roles both exited 0; sorts rtt[] in place. */
static void pp_result(const struct bench_opts *o, const char *name, struct pingpong_shm *s,
		      struct lat_result *ret)
{
	ret->done = s->done;
	ret->lost = s->lost;
	ret->capped = s->capped != 0;
	if (s->done == 0) {
		bench_why(ret->why, "no iteration completed");
		return;
	}
	if (o->raw_prefix) {
		char path[PATH_MAX];
		int err;

		snprintf(path, sizeof(path), "%s-%s.txt", o->raw_prefix, name);
		err = stats_dump(path, s->rtt, s->done, 0.5);
		if (err < 0)
			fprintf(stderr, "sdds-bench: cannot write %s: %s (figures are kept)\n", path,
				strerror(-err));
	}
	stats_compute(s->rtt, s->done, 0.5, &ret->st);
	ret->ok = true;
	if (ret->capped)
		bench_why(ret->why, "capped: --max-seconds %g ended it after %llu of %llu round trips",
			  o->max_seconds, (unsigned long long)ret->done, (unsigned long long)ret->requested);
}

struct pp_child {
	pingpong_role_fn fn;
	struct pingpong_shm *s;
	void *arg;
	int side;
};

static int pp_child(void *arg)
{
	struct pp_child *c = arg;

	return c->fn(c->s, c->arg, c->side);
}

void pingpong_run(const struct bench_opts *o, const struct pingpong_run_args *r, struct lat_result *ret)
{
	struct pp_child ping = {.fn = r->role, .arg = r->arg},
			pong = {.fn = r->role, .arg = r->arg, .side = 1};
	struct proc_pair pair = {.fn = {pp_child, pp_child},
				 .arg = {&ping, &pong},
				 .cpu = {r->ping_cpu, r->pong_cpu},
				 .name = {"ping", "pong"},
				 .running = r->running};
	struct proc_shm shm;
	int err;

	*ret = (struct lat_result){.ran = true, .requested = o->iterations};
	err = proc_shm_new(pingpong_shm_size(o), &shm);
	if (err < 0) {
		bench_why(ret->why, "shared memory: %s", strerror(-err));
		return;
	}
	ping.s = pong.s = shm.base;
	pair.why[0] = ping.s->why[0];
	pair.why[1] = ping.s->why[1];
	/* Warm-up and the capped measured part, plus room for slow hops and the start. */
	if (proc_run_pair(&pair, bench_now_ns() + (int64_t)((o->max_seconds * 2 + 60) * 1e9), ret->why) == 0)
		pp_result(o, r->name, ping.s, ret);
	proc_shm_free(&shm);
}

void pingpong_json(struct json *j, const struct lat_result *l, bool mean)
{
	if (l->ok) {
		json_num(j, "median_us", l->st.median / 1e3);
		json_num(j, "p99_us", l->st.p99 / 1e3);
		json_num(j, "p999_us", l->st.p999 / 1e3);
		json_num(j, "max_us", l->st.max / 1e3);
		json_num(j, "min_us", l->st.min / 1e3);
		if (mean)
			json_num(j, "mean_us", l->st.mean / 1e3);
		json_bool(j, "truncated", l->capped);
	}
	json_uint(j, "requested", l->requested);
	json_uint(j, "done", l->done);
	json_bool(j, "capped", l->capped);
}
