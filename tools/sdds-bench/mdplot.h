/* SPDX-License-Identifier: MIT */
/*
 * mdplot.h - the PNG plots of `sdds-bench report`, drawn by gnuplot.
 *
 * OVERVIEW
 * Each plot is a data file and a gnuplot script written next to the PNG
 * (DIR/plots/), then one gnuplot child with a time cap (mdrun). Keeping
 * script and data lets anyone redraw or restyle a plot by hand. Titles are
 * printed verbatim (gnuplot's enhanced text mode is off: an underscore in a
 * name is an underscore).
 *
 * Latency profile: the cumulative histogram of the seed paper, counted from
 * the right: for every latency x, the number of samples with latency >= x,
 * on a log-scale count axis (and a log-scale latency axis, since spin and
 * futex paths differ by two orders of magnitude). The tail is the bottom
 * right of each curve; a curve ending further right has a worse maximum.
 */
#ifndef SDDS_BENCH_MDPLOT_H
#define SDDS_BENCH_MDPLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One curve of a latency profile: per-iteration one-way ns, one per line (stats_dump). */
struct mdplot_curve {
	const char *title; /* legend; copied into the script */
	const char *raw;   /* the per-iteration file, read only */
};

/* One bar group of the per-phase chart: a phase, its isolated and monolithic average in us (NaN: absent). */
struct mdplot_bar {
	const char *phase;
	double iso_us, mono_us;
};

/* One panel of the per-phase chart: a path ("send", "receive", "local") and its phases. */
struct mdplot_panel {
	const char *title;
	const struct mdplot_bar *bars;
	size_t n_bars;
};

/* One point of the scaling plot. */
struct mdplot_scale_point {
	double clients, p50_us, p99_us, rss_per_client_kib;
};

struct mdplot {
	char gnuplot[4096]; /* the gnuplot binary */
	char dir[4096];	    /* DIR: PNGs go here, scripts and data in DIR/plots */
	const char *term;   /* "pngcairo" or "png" */
};

/*
 * Find gnuplot (gnuplot_arg: a path, or a name looked up in PATH) and the
 * PNG terminal it has, and make DIR/plots. 0, or -errno with why.
 */
int mdplot_init(struct mdplot *p, const char *gnuplot_arg, const char *dir, char *why);

/*
 * The profile of n curves into DIR/<png>. Curves whose file cannot be read
 * are left out and named in why (the plot is still drawn when one is
 * left); 0 when the PNG was drawn, -errno with why otherwise.
 */
int mdplot_profile(const struct mdplot *p, const char *png, const char *title, const struct mdplot_curve *c,
		   size_t n, char *why);

/* The per-phase bar chart: one panel per path, isolated next to monolithic. 0, or -errno with why. */
int mdplot_phases(const struct mdplot *p, const char *png, const struct mdplot_panel *panels, size_t n,
		  char *why);

/* p50 and p99 latency and daemon RSS per client against the number of clients. 0, or -errno with why. */
int mdplot_scaling(const struct mdplot *p, const char *png, const struct mdplot_scale_point *pts, size_t n,
		   char *why);

/*
 * Write the profile data of one per-iteration file (ns) to dat as
 * "latency_us samples_at_or_above" lines, thinned to about 1,400 points
 * (every point of the last 200, then one per 1% fewer samples). 0 and the
 * sample count in *ret_n, or -errno. Exposed for the tests.
 */
int mdplot_ccdf_write(const char *raw, const char *dat, uint64_t *ret_n);

#endif /* SDDS_BENCH_MDPLOT_H */
