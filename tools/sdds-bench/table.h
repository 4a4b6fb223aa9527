/* SPDX-License-Identifier: MIT */
/*
 * table.h - the text tables of every benchmark: a label column, then figures.
 *
 * OVERVIEW
 * Every row starts with two spaces and a label padded to TABLE_LABEL
 * columns, so the tables of local, net, scale, iceoryx and callgrind line
 * up the same way. Latencies are printed in microseconds with three
 * decimals, always in the order median, p99, p99.9, max, n; a run that
 * failed prints "failed: WHY" in place of its figures. Only text output
 * goes through here; the --json writers are separate and keep their keys.
 */
#ifndef SDDS_BENCH_TABLE_H
#define SDDS_BENCH_TABLE_H

#include <stdio.h>

#include "bench.h"

#define TABLE_LABEL 44

/* A row: the label, then fmt's text. */
void table_row(FILE *f, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A blank line and the heading of a latency table: title in the label column, then median p99 p99.9 max n. */
void table_lat_head(FILE *f, const char *title);

/* l's figures (us), or why it failed; nothing when it never ran
 * and has no reason. A time cap is said. */
void table_lat(FILE *f, const char *label, const struct lat_result *l);

/*
 * t's rate at the reader and the writer, samples taken and lost, then note
 * (NULL: none); or why it failed; nothing when it never ran (no reason).
 */
void table_tput(FILE *f, const char *label, const struct tput_result *t, const char *note);

/* A ratio "1.23x" and goal text (NULL: none); v NaN or < 0: "n/a (a run it needs failed)". */
void table_ratio(FILE *f, const char *label, double v, const char *goal);

#endif /* SDDS_BENCH_TABLE_H */
