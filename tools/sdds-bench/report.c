/* SPDX-License-Identifier: MIT */
/*
 * report.c - the JSON object of `sdds-bench local` (see report.h).
 *
 * OVERVIEW
 * Figures only: report.py makes the tables, ratios and goals. A daemon
 * mode shows its best placement (lowest median latency among the runs that
 * succeeded); with a placement sweep every placement is listed.
 */
#include "report.h"

#include <string.h>

#include "json.h"
#include "pingpong.h"

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

/* The placement a summary row shows: the best, or the first when all failed (for its reason). */
static const struct mode_result *report_shown(const struct mode_result *m, int best)
{
	return best >= 0 ? &m[best] : &m[0];
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

void report_json(FILE *f, const struct bench_opts *o, const struct bench_results *r)
{
	struct json j;
	char pl[96];

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
