/* SPDX-License-Identifier: MIT */
/*
 * table.c - the text tables (see table.h).
 */
#include "table.h"

#include <math.h>
#include <stdarg.h>

void table_row(FILE *f, const char *label, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "  %-*s ", TABLE_LABEL, label);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

void table_lat_head(FILE *f, const char *title)
{
	fprintf(f, "\n%-*s %10s %10s %10s %10s %9s\n", TABLE_LABEL + 2, title, "median", "p99", "p99.9",
		"max", "n");
}

void table_lat(FILE *f, const char *label, const struct lat_result *l)
{
	if (!l->ran && !l->why[0])
		return;
	if (!l->ok) {
		table_row(f, label, "failed: %s", l->why);
		return;
	}
	table_row(f, label, "%10.3f %10.3f %10.3f %10.3f %9llu%s", l->st.median / 1e3, l->st.p99 / 1e3,
		  l->st.p999 / 1e3, l->st.max / 1e3, (unsigned long long)l->st.n,
		  l->capped ? "  (time cap)" : "");
}

void table_tput(FILE *f, const char *label, const struct tput_result *t, const char *note)
{
	if (!t->ran && !t->why[0])
		return;
	if (!t->ok) {
		table_row(f, label, "failed: %s", t->why);
		return;
	}
	table_row(f, label, "%12.0f/s taken (%llu of %llu written, writer %.0f/s, %llu lost)%s%s", t->rate,
		  (unsigned long long)t->received, (unsigned long long)t->written, t->writer_rate,
		  (unsigned long long)t->lost, note ? "  " : "", note ? note : "");
}

void table_ratio(FILE *f, const char *label, double v, const char *goal)
{
	if (isnan(v) || v < 0)
		table_row(f, label, "n/a (a run it needs failed or was cut short)");
	else
		table_row(f, label, "%9.2fx%s%s", v, goal ? "   goal " : "", goal ? goal : "");
}
