/* SPDX-License-Identifier: MIT */
/*
 * report.c - text tables and JSON for sdds-trace (see report.h).
 *
 * OVERVIEW
 * Rows of a side-by-side table are the union of both modes' phase deltas,
 * ordered by their first and then their second boundary, so a delta only one
 * mode has (monolithic write_enter->routed against isolated's three steps
 * through the request ring) sits where it belongs. A cell a mode lacks is
 * "-". Only the JSON allocates (json.h builds it with json-c).
 */
#include "report.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "json.h"

#define REPORT_MAX_ROWS (2 * TP_MAX_)

struct row {
	enum trace_phase from, to;
	const struct trace_stat *st[TM_MAX_];
};

static double us(double ns)
{
	return ns / 1000.0;
}

static const struct trace_run *find_run(const struct report_input *in, enum trace_mode mode,
					enum trace_path path, int variant)
{
	bool callback = variant & 1, waited = !(variant & 2);

	for (size_t i = 0; i < in->n_runs; i++) {
		const struct trace_run *r = &in->runs[i];

		if (r->mode == mode && r->path == path && r->callback == callback && r->waited == waited)
			return r;
	}
	return NULL;
}

static size_t rows_build(const struct trace_run *run[TM_MAX_], struct row *rows)
{
	size_t n = 0;

	for (int m = 0; m < TM_MAX_; m++) {
		if (!run[m])
			continue;
		for (unsigned i = 0; i + 1 < run[m]->n_phases; i++) {
			enum trace_phase a = run[m]->phase[i], b = run[m]->phase[i + 1];
			size_t j;

			for (j = 0; j < n && !(rows[j].from == a && rows[j].to == b); j++)
				;
			if (j == n) {
				memset(&rows[n], 0, sizeof(rows[n]));
				rows[n].from = a;
				rows[n].to = b;
				n++;
			}
			rows[j].st[m] = &run[m]->delta[i];
		}
	}
	/* Insertion sort by (from, to): at most a few dozen rows. */
	for (size_t i = 1; i < n; i++) {
		struct row r = rows[i];
		size_t j = i;

		while (j > 0 &&
		       (rows[j - 1].from > r.from || (rows[j - 1].from == r.from && rows[j - 1].to > r.to))) {
			rows[j] = rows[j - 1];
			j--;
		}
		rows[j] = r;
	}
	return n;
}

/*
 * The shortest phase of all: two probe hits with next to nothing between
 * them, so about what one probe hit costs (the trap, the BPF program). Every
 * phase includes about this much of tracing. 0: no phase.
 */
static uint64_t floor_ns(const struct report_input *in)
{
	uint64_t f = 0;

	for (size_t i = 0; i < in->n_runs; i++) {
		for (unsigned k = 0; k + 1 < in->runs[i].n_phases; k++) {
			const struct trace_stat *s = &in->runs[i].delta[k];

			if (s->n > 0 && (f == 0 || s->min_ns < f))
				f = s->min_ns;
		}
	}
	return f;
}

static void cell(FILE *f, const struct trace_stat *s)
{
	if (!s || s->n == 0) {
		fprintf(f, " | %8s %8s %9s %8s", "-", "-", "-", "-");
		return;
	}
	fprintf(f, " | %8.2f %8.2f %9.2f %8.2f", us((double)s->min_ns), us(s->mean_ns), us((double)s->max_ns),
		us(trace_stat_std_ns(s)));
}

static void count(FILE *f, const struct trace_stat *a, const struct trace_stat *b)
{
	fprintf(f, " | %7llu", (unsigned long long)(a ? a->n : 0));
	fprintf(f, " %7llu\n", (unsigned long long)(b ? b->n : 0));
}

void report_text(FILE *f, const struct report_input *in)
{
	static const char *const title[TPATH_MAX_] = {
	    "Send path (application write -> datagram sent)",
	    "Receive path (datagram received -> take returns)",
	    "Local path (application write -> take returns in another client, no network)",
	};
	bool any = false;

	if (in->workload)
		fprintf(f, "workload: %s\n", in->workload);
	for (int p = 0; p < TPATH_MAX_; p++) {
		for (int cb = 0; cb < 4; cb++) {
			const struct trace_run *run[TM_MAX_];
			struct row rows[REPORT_MAX_ROWS];
			size_t n;

			for (int m = 0; m < TM_MAX_; m++)
				run[m] = find_run(in, (enum trace_mode)m, (enum trace_path)p, cb);
			if (!run[TM_ISOLATED] && !run[TM_MONOLITHIC])
				continue;
			any = true;
			n = rows_build(run, rows);
			fprintf(f, "\n%s%s%s\n", title[p], (cb & 1) ? ", taken in a listener callback" : "",
				(cb & 2) ? ", the sample was there before the reader waited" : "");
			fprintf(f, "%-34s | %-36s | %-36s | %s\n", "", "isolated (sddsd), us",
				"monolithic (broker in the app), us", "count");
			fprintf(f, "%-34s | %8s %8s %9s %8s | %8s %8s %9s %8s | %7s %7s\n", "phase", "MIN",
				"AVG", "MAX", "STD", "MIN", "AVG", "MAX", "STD", "iso", "mono");
			for (size_t i = 0; i < n; i++) {
				char label[64];

				snprintf(label, sizeof(label), "%s->%s", trace_phase_name(rows[i].from),
					 trace_phase_name(rows[i].to));
				fprintf(f, "%-34s", label);
				cell(f, rows[i].st[TM_ISOLATED]);
				cell(f, rows[i].st[TM_MONOLITHIC]);
				count(f, rows[i].st[TM_ISOLATED], rows[i].st[TM_MONOLITHIC]);
			}
			fprintf(f, "%-34s", "total");
			cell(f, run[TM_ISOLATED] ? &run[TM_ISOLATED]->total : NULL);
			cell(f, run[TM_MONOLITHIC] ? &run[TM_MONOLITHIC]->total : NULL);
			count(f, run[TM_ISOLATED] ? &run[TM_ISOLATED]->total : NULL,
			      run[TM_MONOLITHIC] ? &run[TM_MONOLITHIC]->total : NULL);
			for (int m = 0; m < TM_MAX_; m++) {
				if (run[m] && run[m]->unmatched)
					fprintf(f, "%s: %llu samples could not be followed (unmatched)\n",
						trace_mode_name((enum trace_mode)m),
						(unsigned long long)run[m]->unmatched);
			}
			if (run[TM_ISOLATED] && run[TM_MONOLITHIC] && run[TM_MONOLITHIC]->total.mean_ns > 0) {
				double r =
				    run[TM_ISOLATED]->total.mean_ns / run[TM_MONOLITHIC]->total.mean_ns;

				fprintf(f, "isolated / monolithic (mean total): %.2f (%+.0f%%)\n", r,
					(r - 1) * 100);
			}
		}
		for (int m = 0; m < TM_MAX_; m++) {
			if (in->missing[m][p])
				fprintf(f, "%s %s path: not measured: %s\n",
					trace_mode_name((enum trace_mode)m),
					trace_path_name((enum trace_path)p), in->missing[m][p]);
		}
	}
	if (!any)
		fprintf(f, "no sample was followed through all of its phases\n");
	else
		fprintf(f,
			"\nshortest phase seen: %.2f us, about the cost of one probe hit, included in every "
			"phase\n",
			us((double)floor_ns(in)));
	if (in->unmatched_other)
		fprintf(f, "%llu samples fit no path (seen only in part)\n",
			(unsigned long long)in->unmatched_other);
	if (in->dropped)
		fprintf(f, "%llu events lost (ring buffer full): their samples count as unmatched\n",
			(unsigned long long)in->dropped);
}

static void json_stat(struct json *j, const struct trace_stat *s)
{
	json_fixed(j, "min_us", us((double)s->min_ns), 3);
	json_fixed(j, "avg_us", us(s->mean_ns), 3);
	json_fixed(j, "max_us", us((double)s->max_ns), 3);
	json_fixed(j, "std_us", us(trace_stat_std_ns(s)), 3);
	json_uint(j, "count", s->n);
}

static void json_run(struct json *j, const struct trace_run *r)
{
	char phase[64];

	json_obj_begin(j, NULL);
	json_str(j, "mode", trace_mode_name(r->mode));
	json_str(j, "path", trace_path_name(r->path));
	json_bool(j, "callback", r->callback);
	json_bool(j, "waited", r->waited);
	json_uint(j, "samples", r->samples);
	json_uint(j, "unmatched", r->unmatched);
	json_arr_begin(j, "phases");
	for (unsigned k = 0; k + 1 < r->n_phases; k++) {
		snprintf(phase, sizeof(phase), "%s->%s", trace_phase_name(r->phase[k]),
			 trace_phase_name(r->phase[k + 1]));
		json_obj_begin(j, NULL);
		json_str(j, "phase", phase);
		json_stat(j, &r->delta[k]);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_begin(j, "total");
	json_stat(j, &r->total);
	json_obj_end(j);
	json_obj_end(j);
}

int report_json(FILE *f, const struct report_input *in)
{
	struct json j;

	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_str(&j, "tool", "sdds-trace");
	if (in->workload)
		json_str(&j, "workload", in->workload);
	/*
	 * "runs" holds one run per mode, path and callback: the samples the
	 * reader waited for. Those it found already there go to "runs_no_wait"
	 * (same shape), so a consumer keyed on mode and path gets the main run.
	 */
	for (int w = 1; w >= 0; w--) {
		json_arr_begin(&j, w ? "runs" : "runs_no_wait");
		for (size_t i = 0; i < in->n_runs; i++) {
			if (in->runs[i].waited == (w == 1))
				json_run(&j, &in->runs[i]);
		}
		json_arr_end(&j);
	}
	json_arr_begin(&j, "missing");
	for (int m = 0; m < TM_MAX_; m++) {
		for (int p = 0; p < TPATH_MAX_; p++) {
			if (!in->missing[m][p])
				continue;
			json_obj_begin(&j, NULL);
			json_str(&j, "mode", trace_mode_name((enum trace_mode)m));
			json_str(&j, "path", trace_path_name((enum trace_path)p));
			json_str(&j, "why", in->missing[m][p]);
			json_obj_end(&j);
		}
	}
	json_arr_end(&j);
	json_arr_begin(&j, "ratios");
	for (int p = 0; p < TPATH_MAX_; p++) {
		for (int cb = 0; cb < 2; cb++) {
			const struct trace_run *a = find_run(in, TM_ISOLATED, (enum trace_path)p, cb);
			const struct trace_run *b = find_run(in, TM_MONOLITHIC, (enum trace_path)p, cb);

			if (!a || !b || b->total.mean_ns <= 0 || a->total.n == 0)
				continue;
			json_obj_begin(&j, NULL);
			json_str(&j, "path", trace_path_name((enum trace_path)p));
			json_bool(&j, "callback", cb & 1);
			json_bool(&j, "waited", !(cb & 2));
			json_fixed(&j, "isolated_avg_us", us(a->total.mean_ns), 3);
			json_fixed(&j, "monolithic_avg_us", us(b->total.mean_ns), 3);
			json_fixed(&j, "ratio", a->total.mean_ns / b->total.mean_ns, 4);
			json_obj_end(&j);
		}
	}
	json_arr_end(&j);
	json_fixed(&j, "floor_us", us((double)floor_ns(in)), 3);
	json_uint(&j, "unmatched_other", in->unmatched_other);
	json_uint(&j, "dropped_events", in->dropped);
	json_obj_end(&j);
	return json_finish(&j);
}
