/* SPDX-License-Identifier: MIT */
/*
 * report.h - print the per-phase tables (text, the seed paper's layout) and
 * the JSON that tools/sdds-bench's report reads.
 *
 * OVERVIEW
 * A report is a list of runs (match.h) plus, per path, why a mode is
 * missing. Runs of the same path and variant are printed side by side,
 * isolated | monolithic, one row per phase delta (the time between two
 * consecutive boundaries), then the end-to-end total and the ratio
 * isolated / monolithic of the mean totals. All figures are microseconds.
 * The caller owns every array it hands in; nothing is kept.
 */
#ifndef SDDS_TRACE_REPORT_H
#define SDDS_TRACE_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "match.h"

struct report_input {
	const struct trace_run *runs;
	size_t n_runs;
	/* Why a mode has no run for a path, NULL: nothing to say. [mode][path] */
	const char *missing[TM_MAX_][TPATH_MAX_];
	uint64_t unmatched_other; /* samples that fit no run */
	uint64_t dropped;	  /* events the ring buffer had no room for */
	const char *workload;	  /* what ran, for the header; NULL: none */
};

void report_text(FILE *f, const struct report_input *in);
/* 0, or -ENOMEM / -EIO as json_finish (tools/json/json.h). */
int report_json(FILE *f, const struct report_input *in);

#endif /* SDDS_TRACE_REPORT_H */
