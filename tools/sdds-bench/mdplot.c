/* SPDX-License-Identifier: MIT */
/*
 * mdplot.c - gnuplot scripts and data for the report (see mdplot.h).
 *
 * OVERVIEW
 * The per-iteration files hold up to some 10^6 lines; they are read whole
 * (8 bytes a sample), sorted, and thinned: a profile of 100,000 samples
 * drawn point by point would make a 2-MB script input for a picture that
 * shows a few hundred distinguishable steps. Every point of the last 200
 * (the tail, where each sample is visible) is kept.
 */
#include "mdplot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bench.h"
#include "mdrun.h"

#define MDPLOT_CAP_S 60.0
#define MDPLOT_MAX_SAMPLES (50u * 1000 * 1000)
#define MDPLOT_TAIL_POINTS 200
#define MDPLOT_STEP 1.01

static int mdplot_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int mdplot_ccdf_write(const char *raw, const char *dat, uint64_t *ret_n)
{
	size_t n = 0, cap = 4096;
	double *v, x, next;
	FILE *in, *out;
	int err = 0;

	in = fopen(raw, "re");
	if (in == NULL)
		return -errno;
	v = malloc(cap * sizeof(*v));
	if (v == NULL) {
		fclose(in);
		return -ENOMEM;
	}
	while (fscanf(in, "%lf", &x) == 1) {
		if (n == cap) {
			double *nv;

			if (cap >= MDPLOT_MAX_SAMPLES) {
				err = -EFBIG;
				break;
			}
			nv = realloc(v, 2 * cap * sizeof(*v));
			if (nv == NULL) {
				err = -ENOMEM;
				break;
			}
			v = nv;
			cap *= 2;
		}
		v[n++] = x;
	}
	fclose(in);
	if (err == 0 && n == 0)
		err = -ENODATA;
	if (err < 0) {
		free(v);
		return err;
	}
	qsort(v, n, sizeof(*v), mdplot_cmp);
	out = fopen(dat, "we");
	if (out == NULL) {
		err = -errno;
		free(v);
		return err;
	}
	/* Sample i (sorted ascending) has n - i samples at or above it (ties: the first of them). */
	next = (double)n;
	for (size_t i = 0; i < n; i++) {
		double at_or_above = (double)(n - i);

		if (i > 0 && v[i] == v[i - 1])
			continue;
		if (at_or_above <= MDPLOT_TAIL_POINTS || at_or_above <= next || i == 0) {
			fprintf(out, "%.4f %.0f\n", v[i] / 1e3, at_or_above);
			next = at_or_above / MDPLOT_STEP;
		}
	}
	if (ferror(out))
		err = -EIO;
	if (fclose(out) != 0 && err == 0)
		err = -errno;
	free(v);
	if (err == 0)
		*ret_n = n;
	return err;
}

int mdplot_init(struct mdplot *p, const char *gnuplot_arg, const char *dir, char *why)
{
	char sub[sizeof(p->dir) + 8];
	char *argv[] = {p->gnuplot, "-e", "set terminal pngcairo", NULL};
	pid_t pid;
	int st, err;

	memset(p, 0, sizeof(*p));
	if (mdrun_which(gnuplot_arg, p->gnuplot, sizeof(p->gnuplot)) < 0) {
		bench_why(why, "gnuplot not found%s%s (apt-get install gnuplot-nox)",
			  strchr(gnuplot_arg, '/') ? " at " : "",
			  strchr(gnuplot_arg, '/') ? gnuplot_arg : "");
		return -ENOENT;
	}
	snprintf(p->dir, sizeof(p->dir), "%s", dir);
	snprintf(sub, sizeof(sub), "%s/plots", dir);
	if (mkdir(sub, 0755) < 0 && errno != EEXIST) {
		err = -errno;
		bench_why(why, "mkdir %s: %s", sub, strerror(errno));
		return err;
	}
	/* gnuplot-nox has pngcairo; a build without cairo has only the libgd png terminal. */
	p->term = "png";
	if (mdrun_spawn(argv, NULL, NULL, NULL, &pid) == 0 && mdrun_wait(pid, 20, &st) == 0 &&
	    WIFEXITED(st) && WEXITSTATUS(st) == 0)
		p->term = "pngcairo";
	return 0;
}

/* Run gnuplot on DIR/plots/<name>.gp and check the PNG it should have drawn. */
static int mdplot_run(const struct mdplot *p, const char *name, const char *png, char *why)
{
	char gp[sizeof(p->dir) + 128], err_path[sizeof(p->dir) + 128], out[sizeof(p->dir) + 128];
	char *argv[] = {(char *)p->gnuplot, gp, NULL};
	struct stat st;
	pid_t pid;
	int status, err;

	snprintf(gp, sizeof(gp), "%s/plots/%s.gp", p->dir, name);
	snprintf(err_path, sizeof(err_path), "%s/plots/%s.err", p->dir, name);
	snprintf(out, sizeof(out), "%s/%s", p->dir, png);
	unlink(out);
	err = mdrun_spawn(argv, NULL, NULL, err_path, &pid);
	if (err < 0) {
		bench_why(why, "gnuplot: %s", strerror(-err));
		return err;
	}
	err = mdrun_wait(pid, MDPLOT_CAP_S, &status);
	if (err < 0) {
		bench_why(why, "gnuplot %s", err == -ETIMEDOUT ? "took more than 60 s" : strerror(-err));
		return err;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || stat(out, &st) < 0 || st.st_size == 0) {
		char last[160], s[48];

		mdrun_last_line(err_path, last, sizeof(last));
		mdrun_status_str(status, s, sizeof(s));
		bench_why(why, "gnuplot failed on %s (%s): %s", gp, s, last[0] ? last : "no PNG");
		return -EIO;
	}
	return 0;
}

/* Open DIR/plots/<name>.gp and write the common head: terminal, output, no enhanced text. */
static FILE *mdplot_script(const struct mdplot *p, const char *name, const char *png, int w, int h, char *why)
{
	char gp[sizeof(p->dir) + 128];
	FILE *f;

	snprintf(gp, sizeof(gp), "%s/plots/%s.gp", p->dir, name);
	f = fopen(gp, "we");
	if (f == NULL) {
		bench_why(why, "%s: %s", gp, strerror(errno));
		return NULL;
	}
	fprintf(f, "set terminal %s size %d,%d noenhanced\n", p->term, w, h);
	fprintf(f, "set output '%s/%s'\n", p->dir, png);
	fprintf(f, "set grid\nset key inside right top\n");
	return f;
}

/* A title safe inside gnuplot single quotes. */
static void mdplot_quote(const char *s, char *buf, size_t cap)
{
	size_t j = 0;

	for (size_t i = 0; s[i] && j + 3 < cap; i++) {
		if (s[i] == '\'')
			buf[j++] = '\'';
		buf[j++] = s[i];
	}
	buf[j] = '\0';
}

int mdplot_profile(const struct mdplot *p, const char *png, const char *title, const struct mdplot_curve *c,
		   size_t n, char *why)
{
	char name[64], dat[sizeof(p->dir) + 128], q[256], missing[BENCH_WHY_MAX] = "";
	size_t drawn = 0;
	bool *ok;
	FILE *f;
	int err;

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(png, "."), png);
	ok = calloc(n ? n : 1, sizeof(*ok));
	if (ok == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t cnt;

		snprintf(dat, sizeof(dat), "%s/plots/%s-%zu.dat", p->dir, name, i);
		err = mdplot_ccdf_write(c[i].raw, dat, &cnt);
		if (err == 0) {
			ok[i] = true;
			drawn++;
		} else {
			size_t used = strlen(missing);

			snprintf(missing + used, sizeof(missing) - used, "%s%s: %s", used ? "; " : "",
				 c[i].title, strerror(-err));
		}
	}
	if (drawn == 0) {
		bench_why(why, "no per-iteration data%s%s", missing[0] ? ": " : "", missing);
		free(ok);
		return -ENODATA;
	}
	f = mdplot_script(p, name, png, 1100, 650, why);
	if (f == NULL) {
		free(ok);
		return -EIO;
	}
	mdplot_quote(title, q, sizeof(q));
	fprintf(f, "set title '%s'\n", q);
	fprintf(f, "set logscale xy\nset format x '%%g'\nset format y '%%g'\n");
	fprintf(f, "set xlabel 'one-way latency x (us, log scale)'\n");
	fprintf(f, "set ylabel 'samples with latency >= x (log scale)'\n");
	fprintf(f, "plot");
	for (size_t i = 0, k = 0; i < n; i++) {
		if (!ok[i])
			continue;
		snprintf(dat, sizeof(dat), "%s/plots/%s-%zu.dat", p->dir, name, i);
		mdplot_quote(c[i].title, q, sizeof(q));
		fprintf(f, "%s '%s' using 1:2 with fsteps lw 2 title '%s'", k++ ? ", \\\n    " : " ", dat, q);
	}
	fprintf(f, "\n");
	free(ok);
	if (fclose(f) != 0) {
		bench_why(why, "writing the %s script: %s", name, strerror(errno));
		return -EIO;
	}
	err = mdplot_run(p, name, png, why);
	if (err == 0 && missing[0])
		bench_why(why, "left out: %s", missing);
	return err;
}

int mdplot_phases(const struct mdplot *p, const char *png, const struct mdplot_panel *panels, size_t n,
		  char *why)
{
	char dat[sizeof(p->dir) + 128], q[256];
	size_t rows, cols;
	FILE *f;

	if (n == 0) {
		bench_why(why, "no phases to draw");
		return -ENODATA;
	}
	for (size_t i = 0; i < n; i++) {
		FILE *d;

		snprintf(dat, sizeof(dat), "%s/plots/phases-%zu.dat", p->dir, i);
		d = fopen(dat, "we");
		if (d == NULL) {
			bench_why(why, "%s: %s", dat, strerror(errno));
			return -EIO;
		}
		for (size_t b = 0; b < panels[i].n_bars; b++) {
			const struct mdplot_bar *x = &panels[i].bars[b];

			/* gnuplot reads "-" as a missing value: a phase one mode lacks has no bar. */
			fprintf(d, "\"%s\"", x->phase);
			fprintf(d, isnan(x->iso_us) ? " -" : " %.4f", x->iso_us);
			fprintf(d, isnan(x->mono_us) ? " -\n" : " %.4f\n", x->mono_us);
		}
		if (fclose(d) != 0) {
			bench_why(why, "%s: %s", dat, strerror(errno));
			return -EIO;
		}
	}
	/* Two panels a row: phase names are long and are printed slanted below each panel. */
	cols = n < 2 ? 1 : 2;
	rows = (n + 1) / 2;
	f = mdplot_script(p, "phases", png, 700 * (int)cols + 100, 560 * (int)rows + 40, why);
	if (f == NULL)
		return -EIO;
	fprintf(f, "set datafile missing '-'\n");
	fprintf(f, "set style data histograms\nset style histogram clustered gap 1\n");
	fprintf(f, "set style fill solid 0.8 border -1\nset boxwidth 0.9\n");
	fprintf(f, "set xtics rotate by -35 left\nset yrange [0:*]\nset key inside left top\n");
	fprintf(f, "set ylabel 'average us per phase'\nset bmargin 12\n");
	fprintf(f, "set multiplot layout %zu,%zu title 'per-phase average, isolated (sddsd) vs monolithic'\n",
		rows, cols);
	for (size_t i = 0; i < n; i++) {
		snprintf(dat, sizeof(dat), "%s/plots/phases-%zu.dat", p->dir, i);
		mdplot_quote(panels[i].title, q, sizeof(q));
		fprintf(f, "set title '%s'\n", q);
		fprintf(f, "plot '%s' using 2:xtic(1) title 'isolated', '' using 3 title 'monolithic'\n",
			dat);
	}
	fprintf(f, "unset multiplot\n");
	if (fclose(f) != 0) {
		bench_why(why, "writing the phases script: %s", strerror(errno));
		return -EIO;
	}
	return mdplot_run(p, "phases", png, why);
}

int mdplot_scaling(const struct mdplot *p, const char *png, const struct mdplot_scale_point *pts, size_t n,
		   char *why)
{
	char dat[sizeof(p->dir) + 128];
	FILE *f, *d;

	if (n == 0) {
		bench_why(why, "no scaling points to draw");
		return -ENODATA;
	}
	snprintf(dat, sizeof(dat), "%s/plots/scaling.dat", p->dir);
	d = fopen(dat, "we");
	if (d == NULL) {
		bench_why(why, "%s: %s", dat, strerror(errno));
		return -EIO;
	}
	for (size_t i = 0; i < n; i++) {
		fprintf(d, "%g", pts[i].clients);
		fprintf(d, isnan(pts[i].p50_us) ? " -" : " %.4f", pts[i].p50_us);
		fprintf(d, isnan(pts[i].p99_us) ? " -" : " %.4f", pts[i].p99_us);
		fprintf(d, isnan(pts[i].rss_per_client_kib) ? " -\n" : " %.4f\n", pts[i].rss_per_client_kib);
	}
	if (fclose(d) != 0) {
		bench_why(why, "%s: %s", dat, strerror(errno));
		return -EIO;
	}
	f = mdplot_script(p, "scaling", png, 1000, 600, why);
	if (f == NULL)
		return -EIO;
	fprintf(f, "set datafile missing '-'\nset logscale x 2\nset format x '%%g'\nset key opaque\n");
	fprintf(f, "set title 'scaling with the number of connected clients'\n");
	fprintf(
	    f,
	    "set xlabel 'connected clients'\nset ylabel 'one-way latency (us, log scale)'\nset logscale y\n");
	fprintf(f, "set y2label 'daemon RSS per client (KiB)'\nset ytics nomirror\nset y2tics\n");
	fprintf(f, "set y2range [0:*]\n");
	fprintf(f,
		"plot '%s' using 1:2 with linespoints lw 2 title 'p50 latency', "
		"'' using 1:3 with linespoints lw 2 title 'p99 latency', "
		"'' using 1:4 axes x1y2 with linespoints lw 2 title 'RSS per client'\n",
		dat);
	if (fclose(f) != 0) {
		bench_why(why, "writing the scaling script: %s", strerror(errno));
		return -EIO;
	}
	return mdplot_run(p, "scaling", png, why);
}
