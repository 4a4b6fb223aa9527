/* SPDX-License-Identifier: MIT */
/*
 * mdreport.h - `sdds-bench report`: every benchmark in one run, one
 * Markdown report with tables, ratios and plots.
 *
 * OVERVIEW
 * The report runs each part as a child with a time cap (mdrun.h):
 * `sdds-bench local`, `iceoryx`, `net` (blocking and polling daemons),
 * `scale` and `callgrind` (this binary), `sdds-trace compare`, Cyclone DDS
 * `ddsperf` on loopback, and gnuplot (mdplot.h). It reads their JSON and
 * per-iteration files and writes DIR/report.md, DIR/report.json and the
 * PNGs. A part whose tool is missing, is refused, fails or is skipped is
 * reported as "not run: <why>"; every ratio needs both of its figures
 * from this run, otherwise it is "n/a (<why>)", never a number.
 */
#ifndef SDDS_BENCH_MDREPORT_H
#define SDDS_BENCH_MDREPORT_H

/* Entry point of `sdds-bench report`; argv[0] is "report". Exit 0 report written, 1 not, 2 usage. */
int mdreport_main(int argc, char **argv);

#endif /* SDDS_BENCH_MDREPORT_H */
