/* SPDX-License-Identifier: MIT */
/*
 * report.c - the table and the JSON object (see report.h).
 *
 * OVERVIEW
 * Figures are kept in nanoseconds and samples per second; they are printed
 * in microseconds and M samples/s. The "best" placement of a daemon mode
 * (lowest median latency among the runs that succeeded) is the one the
 * ratios and goals use; with a placement sweep every placement is listed.
 */
#include "report.h"

#include <math.h>
#include <string.h>

#include "json.h"
#include "pingpong.h"
#include "table.h"

/* A ratio of two figures measured in full, or NAN. */
static double report_ratio(bool ok_a, double a, bool ok_b, double b)
{
	if (!ok_a || !ok_b || b <= 0)
		return NAN;
	return a / b;
}

void report_placement_str(const struct bench_placement *pl, char *buf, size_t cap)
{
	char d[16], a[16], b[16];

	if (pl->daemon_cpu < 0 && pl->a_cpu < 0 && pl->b_cpu < 0) {
		snprintf(buf, cap, "unpinned");
		return;
	}
	snprintf(d, sizeof(d), pl->daemon_cpu < 0 ? "any" : "cpu%d", pl->daemon_cpu);
	snprintf(a, sizeof(a), pl->a_cpu < 0 ? "any" : "cpu%d", pl->a_cpu);
	snprintf(b, sizeof(b), pl->b_cpu < 0 ? "any" : "cpu%d", pl->b_cpu);
	snprintf(buf, cap, "sddsd:%s A:%s B:%s", d, a, b);
}

static const struct mode_result *report_best(const struct mode_result *m, int best)
{
	return best >= 0 ? &m[best] : NULL;
}

/* The placement a summary row shows: the best, or the first when all failed (for its reason). */
static const struct mode_result *report_shown(const struct mode_result *m, int best)
{
	return best >= 0 ? &m[best] : &m[0];
}

/* The figures the ratios and goals use; NaN where a run failed. */
struct report_ratios {
	double polling_over_spin, polling_over_spin_p99;
	double polling_over_floor, polling_over_floor_p99; /* against the one-CPU yield-spin hop */
	double blocking_over_hop, blocking_over_hop_p99;
	double blocking_over_hop_same; /* against the same-CPU futex hop, when measured */
	double tput_polling_over_mono, tput_blocking_over_mono;
};

static void report_ratios_compute(const struct bench_results *r, struct report_ratios *x)
{
	const struct mode_result *p = report_best(r->polling, r->best_polling);
	const struct mode_result *b = report_best(r->blocking, r->best_blocking);
	bool p_ok = p && bench_lat_full(&p->lat), b_ok = b && bench_lat_full(&b->lat);

	x->polling_over_spin =
	    report_ratio(p_ok, p_ok ? p->lat.st.median : 0, bench_lat_full(&r->spin), r->spin.st.median);
	x->polling_over_spin_p99 =
	    report_ratio(p_ok, p_ok ? p->lat.st.p99 : 0, bench_lat_full(&r->spin), r->spin.st.p99);
	x->polling_over_floor = report_ratio(p_ok, p_ok ? p->lat.st.median : 0,
					     bench_lat_full(&r->yield_same), r->yield_same.st.median);
	x->polling_over_floor_p99 = report_ratio(p_ok, p_ok ? p->lat.st.p99 : 0,
						 bench_lat_full(&r->yield_same), r->yield_same.st.p99);
	x->blocking_over_hop =
	    report_ratio(b_ok, b_ok ? b->lat.st.median : 0, bench_lat_full(&r->futex), r->futex.st.median);
	x->blocking_over_hop_p99 =
	    report_ratio(b_ok, b_ok ? b->lat.st.p99 : 0, bench_lat_full(&r->futex), r->futex.st.p99);
	x->blocking_over_hop_same = report_ratio(b_ok, b_ok ? b->lat.st.median : 0,
						 bench_lat_full(&r->futex_same), r->futex_same.st.median);
	x->tput_polling_over_mono = report_ratio(p && p->tput.ok, p && p->tput.ok ? p->tput.rate : 0,
						 r->mono_spin.ok, r->mono_spin.rate);
	x->tput_blocking_over_mono = report_ratio(b && b->tput.ok, b && b->tput.ok ? b->tput.rate : 0,
						  r->mono_sleep.ok, r->mono_sleep.rate);
}

/* ------------------------------------------------------------------ table */

/* A goal's verdict after a figure: "<= 2.0x: met". */
static const char *report_goal(char *buf, size_t cap, const char *goal, bool met)
{
	snprintf(buf, cap, "%s: %s", goal, met ? "met" : "NOT MET");
	return buf;
}

/* The throughput goal after a daemon mode's rate. */
static const char *report_tput_goal(char *buf, size_t cap, const struct tput_result *t)
{
	char g[32];

	snprintf(g, sizeof(g), "goal >= %.0f samples/s", BENCH_GOAL_TPUT);
	return report_goal(buf, cap, g, t->rate >= BENCH_GOAL_TPUT);
}

void report_table(FILE *f, const struct bench_opts *o, const struct bench_results *r)
{
	const struct mode_result *p = report_best(r->polling, r->best_polling);
	const struct mode_result *b = report_best(r->blocking, r->best_blocking);
	const struct mode_result *ps = report_shown(r->polling, r->best_polling);
	const struct mode_result *bs = report_shown(r->blocking, r->best_blocking);
	struct report_ratios x;
	char pl[96], poll_label[80], floor_label[48], g[80], hops[16];

	report_ratios_compute(r, &x);
	/* The default budget never runs out; a smaller one (--poll-spin-ns) is named. */
	if (o->poll_spin_ns == 0)
		snprintf(poll_label, sizeof(poll_label), "sddsd --poll, clients sleep");
	else if (o->poll_spin_ns >= 1000000000)
		snprintf(poll_label, sizeof(poll_label), "sddsd --poll, clients %s",
			 o->poll_yield_ns < 0 ? "spin" : "yield-spin");
	else
		snprintf(poll_label, sizeof(poll_label), "sddsd --poll, clients %s %lld us",
			 o->poll_yield_ns < 0 ? "spin" : "yield-spin", (long long)(o->poll_spin_ns / 1000));
	fprintf(f,
		"sdds-bench local: %u-byte samples, %s, %llu iterations (+%llu warm-up, cap %g s), %d CPUs\n",
		o->size, o->reliable ? "reliable" : "best effort", (unsigned long long)o->iterations,
		(unsigned long long)o->warmup, o->max_seconds, r->n_cpus);
	fprintf(f, "sddsd: %s\n", r->sddsd_path ? r->sddsd_path : "(not found)");
	report_placement_str(&r->base_pl, pl, sizeof(pl));
	fprintf(f, "baselines: ping side %s\n", strstr(pl, "A:") ? strstr(pl, "A:") : pl);
	if (!o->pin && r->n_cpus >= 2)
		fprintf(f, "pinning: polling as sddsd alone on one CPU, both clients on the other (the "
			   "best placement measured on two CPUs: one context switch per hop, the yield "
			   "floor; sddsd sharing a CPU with a client was slower); blocking and monolithic "
			   "unpinned (--pin tries placements, --pin=D,A,B sets one, --pin=-,-,- pins "
			   "nothing)\n");
	else if (!o->pin)
		fprintf(f, "pinning: none (--pin tries placements, --pin=D,A,B sets one)\n");
	if (o->poll_spin_ns != 0)
		fprintf(f, "polling clients: %s\n",
			o->poll_yield_ns < 0 ? "spin purely (--poll-yield-ns never)"
					     : "spin, yielding the CPU between checks (sched_yield) after "
					       "--poll-yield-ns of pure spin");
	fprintf(f,
		"polling floor: two processes yield-spinning on one CPU (cpu%d), one context switch "
		"per hop: what a hop costs when two busy parties share a CPU. Polling runs three "
		"busy processes (sddsd and two clients); %s\n",
		r->floor_cpu,
		r->n_cpus >= 3
		    ? "with three or more CPUs they need not share one (pin them apart)"
		    : "on two CPUs two of them share one, and the 0.6 us goal needs a CPU for each");
	if (r->load_start >= 0)
		fprintf(f, "load average (1 min): %.2f before, %.2f after the run (which adds its own)%s\n",
			r->load_start, r->load_end,
			r->load_start >= 0.5 ? ": other work shared the machine, figures are disturbed" : "");
	if (o->iterations < 100000)
		fprintf(f, "note: %llu iterations; report figures from >= 100000\n",
			(unsigned long long)o->iterations);

	table_lat_head(f, "one-way latency, us (RTT/2)");
	table_lat(f, "baseline: spin on a shared line", &r->spin);
	table_lat(f, "baseline: futex wait/wake (1 hop)", &r->futex);
	table_lat(f, "baseline: futex, both on one CPU", &r->futex_same);
	snprintf(floor_label, sizeof(floor_label), "baseline: yield, one CPU (cpu%d)", r->floor_cpu);
	table_lat(f, floor_label, &r->yield_same);
	table_lat(f, poll_label, &ps->lat);
	table_lat(f, "sddsd blocking, clients sleep", &bs->lat);
	if (p) {
		report_placement_str(&p->pl, pl, sizeof(pl));
		table_row(f, "  sddsd polling ran", "%s", pl);
	}
	if (b) {
		report_placement_str(&b->pl, pl, sizeof(pl));
		table_row(f, "  sddsd blocking ran", "%s", pl);
	}

	fprintf(f, "\nratios and goals\n");
	table_ratio(f, "sddsd polling / spin (median)", x.polling_over_spin, NULL);
	table_ratio(f, "sddsd polling / spin (p99)", x.polling_over_spin_p99, NULL);
	table_ratio(f, "sddsd polling / one-CPU yield floor (median)", x.polling_over_floor, NULL);
	table_ratio(f, "sddsd polling / one-CPU yield floor (p99)", x.polling_over_floor_p99, NULL);
	if (p && p->lat.ok) {
		snprintf(hops, sizeof(hops), "<= %.1f us", BENCH_GOAL_POLLING_US);
		table_row(f, "sddsd polling median", "%9.3f us   goal %s (iceoryx polling)",
			  p->lat.st.median / 1e3,
			  report_goal(g, sizeof(g), hops, p->lat.st.median / 1e3 <= BENCH_GOAL_POLLING_US));
	}
	snprintf(hops, sizeof(hops), "<= %.1fx", BENCH_GOAL_BLOCKING_HOPS);
	table_ratio(f, "sddsd blocking / one futex hop (median)", x.blocking_over_hop,
		    report_goal(g, sizeof(g), hops, x.blocking_over_hop <= BENCH_GOAL_BLOCKING_HOPS));
	table_ratio(f, "sddsd blocking / one futex hop (p99)", x.blocking_over_hop_p99, NULL);
	if (r->futex_same.ran)
		table_ratio(f, "sddsd blocking / same-CPU futex hop (median)", x.blocking_over_hop_same,
			    NULL);

	fprintf(f, "\nthroughput, samples/s taken by the reader (%.1f s each, reader depth %u)\n",
		o->tput_seconds, o->depth);
	table_tput(f, poll_label, &ps->tput, report_tput_goal(g, sizeof(g), &ps->tput));
	table_tput(f, "sddsd blocking, clients sleep", &bs->tput, report_tput_goal(g, sizeof(g), &bs->tput));
	table_tput(f, "monolithic, polling spin budget", &r->mono_spin, NULL);
	table_tput(f, "monolithic, spin budget 0", &r->mono_sleep, NULL);
	table_ratio(f, "isolated / monolithic, polling budget", x.tput_polling_over_mono, NULL);
	table_ratio(f, "isolated / monolithic, spin budget 0", x.tput_blocking_over_mono, NULL);
	if (o->take_many > 1) {
		/* Extra figures, not the headline: the reader takes in batches. */
		fprintf(f,
			"  extra: the reader calls sdds_reader_take_many (not the per-sample API above)\n");
		snprintf(pl, sizeof(pl), "polling, take_many(%u) reader", o->take_many);
		table_tput(f, pl, &ps->tput_many, NULL);
		snprintf(pl, sizeof(pl), "blocking, take_many(%u) reader", o->take_many);
		table_tput(f, pl, &bs->tput_many, NULL);
	}

	if (r->n_placements > 1) {
		table_lat_head(f, "placements (A: ping/writer, B: pong/reader)");
		for (int mode = 0; mode < 2; mode++) {
			const struct mode_result *m = mode == 0 ? r->polling : r->blocking;
			int best = mode == 0 ? r->best_polling : r->best_blocking;

			for (int i = 0; i < r->n_placements; i++) {
				char label[128];

				report_placement_str(&m[i].pl, pl, sizeof(pl));
				snprintf(label, sizeof(label), "%s %s%s", mode == 0 ? "polling" : "blocking",
					 pl, i == best ? " (best)" : "");
				table_lat(f, label, &m[i].lat);
				table_tput(f, label, &m[i].tput, NULL);
			}
		}
	}
	for (int mode = 0; mode < 2; mode++) {
		const struct mode_result *m = mode == 0 ? r->polling : r->blocking;

		for (int i = 0; i < r->n_placements; i++) {
			report_placement_str(&m[i].pl, pl, sizeof(pl));
			if (m[i].daemon_note[0])
				fprintf(f, "note: %s, %s: %s\n", mode == 0 ? "polling" : "blocking", pl,
					m[i].daemon_note);
		}
	}
}

/* ------------------------------------------------------------------- JSON */

static void report_json_lat(struct json *j, const char *key, const struct lat_result *l)
{
	json_obj_begin(j, key);
	json_bool(j, "ok", l->ok);
	if (!l->ok)
		json_str(j, "error", l->ran ? l->why : "not run");
	else
		json_uint(j, "iterations", l->st.n);
	pingpong_json(j, l, true);
	json_obj_end(j);
}

static void report_json_tput(struct json *j, const char *key, const struct tput_result *t)
{
	json_obj_begin(j, key);
	json_bool(j, "ok", t->ok);
	if (!t->ok) {
		json_str(j, "error", t->ran ? t->why : "not run");
	} else {
		json_num(j, "samples_per_s", t->rate);
		json_num(j, "writer_samples_per_s", t->writer_rate);
		json_uint(j, "written", t->written);
		json_uint(j, "received", t->received);
		json_uint(j, "lost", t->lost);
		json_num(j, "seconds", t->seconds);
	}
	json_obj_end(j);
}

static void report_json_pl(struct json *j, const struct bench_placement *pl)
{
	char s[96];

	json_obj_begin(j, "placement");
	report_placement_str(pl, s, sizeof(s));
	json_str(j, "text", s);
	json_int(j, "daemon_cpu", pl->daemon_cpu);
	json_int(j, "a_cpu", pl->a_cpu);
	json_int(j, "b_cpu", pl->b_cpu);
	json_obj_end(j);
}

static void report_json_mode(struct json *j, const char *key, const struct mode_result *m, int best)
{
	const struct mode_result *x = report_shown(m, best);

	json_obj_begin(j, key);
	report_json_pl(j, &x->pl);
	report_json_lat(j, "latency", &x->lat);
	report_json_tput(j, "throughput", &x->tput);
	/* --take-many: the same run with a batch-taking reader (an extra figure). */
	if (x->tput_many.ran)
		report_json_tput(j, "throughput_take_many", &x->tput_many);
	json_obj_end(j);
}

/* A goal check: true/false, or null when a figure is missing. */
static void report_json_met(struct json *j, const char *key, double v, double goal, bool at_most)
{
	if (isnan(v))
		json_null(j, key);
	else
		json_bool(j, key, at_most ? v <= goal : v >= goal);
}

void report_json(FILE *f, const struct bench_opts *o, const struct bench_results *r)
{
	const struct mode_result *p = report_best(r->polling, r->best_polling);
	const struct mode_result *b = report_best(r->blocking, r->best_blocking);
	struct report_ratios x;
	struct json j;
	char pl[96];

	report_ratios_compute(r, &x);
	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_str(&j, "tool", "sdds-bench");
	json_str(&j, "command", "local");
	json_uint(&j, "size_bytes", o->size);
	json_uint(&j, "iterations", o->iterations);
	json_uint(&j, "warmup", o->warmup);
	json_num(&j, "max_seconds", o->max_seconds);
	json_num(&j, "tput_seconds", o->tput_seconds);
	json_uint(&j, "take_many", o->take_many);
	json_uint(&j, "depth", o->depth);
	json_str(&j, "reliability", o->reliable ? "reliable" : "best_effort");
	json_int(&j, "poll_spin_ns", o->poll_spin_ns);
	json_int(&j, "poll_yield_ns", o->poll_yield_ns);
	json_int(&j, "cpus", r->n_cpus);
	json_num(&j, "loadavg_start", r->load_start);
	json_num(&j, "loadavg_end", r->load_end);
	json_str(&j, "sddsd", r->sddsd_path);
	json_str(&j, "pinning", !o->pin ? "none" : o->pin_sweep ? "sweep" : "explicit");
	report_placement_str(&r->base_pl, pl, sizeof(pl));
	json_str(&j, "baseline_placement", pl);

	json_obj_begin(&j, "baseline");
	report_json_lat(&j, "spin", &r->spin);
	report_json_lat(&j, "futex", &r->futex);
	if (r->futex_same.ran)
		report_json_lat(&j, "futex_same_cpu", &r->futex_same);
	report_json_lat(&j, "yield_same_cpu", &r->yield_same);
	json_obj_end(&j);
	json_int(&j, "floor_cpu", r->floor_cpu);

	report_json_mode(&j, "polling", r->polling, r->best_polling);
	report_json_mode(&j, "blocking", r->blocking, r->best_blocking);

	json_obj_begin(&j, "monolithic");
	report_json_tput(&j, "spin", &r->mono_spin);
	report_json_tput(&j, "sleep", &r->mono_sleep);
	json_obj_end(&j);

	json_obj_begin(&j, "ratios");
	json_num(&j, "polling_over_spin", x.polling_over_spin);
	json_num(&j, "polling_over_spin_p99", x.polling_over_spin_p99);
	json_num(&j, "polling_over_yield_floor", x.polling_over_floor);
	json_num(&j, "polling_over_yield_floor_p99", x.polling_over_floor_p99);
	json_num(&j, "blocking_over_futex_hop", x.blocking_over_hop);
	json_num(&j, "blocking_over_futex_hop_p99", x.blocking_over_hop_p99);
	if (r->futex_same.ran)
		json_num(&j, "blocking_over_futex_hop_same_cpu", x.blocking_over_hop_same);
	json_num(&j, "tput_polling_over_monolithic", x.tput_polling_over_mono);
	json_num(&j, "tput_blocking_over_monolithic", x.tput_blocking_over_mono);
	json_obj_end(&j);

	json_obj_begin(&j, "goals");
	json_num(&j, "polling_median_us_max", BENCH_GOAL_POLLING_US);
	report_json_met(&j, "polling_met", p && p->lat.ok ? p->lat.st.median / 1e3 : NAN,
			BENCH_GOAL_POLLING_US, true);
	json_num(&j, "blocking_over_futex_hop_max", BENCH_GOAL_BLOCKING_HOPS);
	report_json_met(&j, "blocking_met", x.blocking_over_hop, BENCH_GOAL_BLOCKING_HOPS, true);
	json_num(&j, "tput_samples_per_s_min", BENCH_GOAL_TPUT);
	report_json_met(&j, "tput_polling_met", p && p->tput.ok ? p->tput.rate : NAN, BENCH_GOAL_TPUT, false);
	report_json_met(&j, "tput_blocking_met", b && b->tput.ok ? b->tput.rate : NAN, BENCH_GOAL_TPUT,
			false);
	json_obj_end(&j);

	json_arr_begin(&j, "placements");
	for (int mode = 0; mode < 2; mode++) {
		const struct mode_result *m = mode == 0 ? r->polling : r->blocking;

		for (int i = 0; i < r->n_placements; i++) {
			json_obj_begin(&j, NULL);
			json_str(&j, "mode", mode == 0 ? "polling" : "blocking");
			report_json_pl(&j, &m[i].pl);
			report_json_lat(&j, "latency", &m[i].lat);
			report_json_tput(&j, "throughput", &m[i].tput);
			if (m[i].daemon_note[0])
				json_str(&j, "daemon_note", m[i].daemon_note);
			json_obj_end(&j);
		}
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}
