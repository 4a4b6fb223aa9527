/* SPDX-License-Identifier: MIT */
/*
 * report.h - print the results of a run as one JSON object.
 *
 * OVERVIEW
 * Pure output: reads the options and results, writes to the given FILE
 * (owned by the caller). A run that failed has its reason, no figures.
 */
#ifndef SDDS_BENCH_REPORT_H
#define SDDS_BENCH_REPORT_H

#include <stdio.h>

#include "bench.h"

void report_json(FILE *f, const struct bench_opts *o, const struct bench_results *r);

/* "sddsd:cpu0 A:cpu1 B:cpu1" or "unpinned" into buf. */
void report_placement_str(const struct bench_placement *pl, char *buf, size_t cap);

#endif /* SDDS_BENCH_REPORT_H */
