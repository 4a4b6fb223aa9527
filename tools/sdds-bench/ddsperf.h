/* SPDX-License-Identifier: MIT */
/*
 * ddsperf.h - reading what Cyclone DDS's ddsperf prints.
 *
 * OVERVIEW
 * ddsperf prints summaries, not samples. `ping` prints one line a second,
 * its latencies already one-way:
 *   [pid] T  host:pid size S mean Mus min Xus 50% Aus 90% Bus 99% Cus max Dus cnt N
 * and `sub` one a second:
 *   [pid] T  size S total N lost L delta D lost L rate R kS/s ...
 * Lines of any other shape are skipped. Figures come out as ddsperf's own
 * summaries combined in a stated way (see each function), never as
 * per-sample statistics, which ddsperf does not give.
 */
#ifndef SDDS_BENCH_DDSPERF_H
#define SDDS_BENCH_DDSPERF_H

#include <stdbool.h>
#include <stdio.h>

#define DDSPERF_MAX_LINES 512

struct ddsperf_lat {
	double p50_us, p99_us; /* medians of the per-second p50s and p99s */
	double max_us;	       /* the largest per-second max */
	double count;	       /* round trips in the seconds used */
	int seconds;	       /* per-second summaries used */
	bool first_dropped;    /* the first second was left out as warm-up */
};

struct ddsperf_tput {
	double rate;	/* samples/s */
	double samples; /* samples in the intervals used */
	int intervals;	/* full intervals used */
};

/*
 * Ping summaries from f (read to its end; the caller keeps and closes it).
 * With three or more the first is dropped (discovery and warm-up). 0 and
 * *ret, or -ENODATA when there is no summary line.
 */
int ddsperf_parse_lat(FILE *f, struct ddsperf_lat *ret);

/*
 * Sub summaries from f. The rate is the sum of the deltas over the sum of
 * the intervals, leaving out the first and the last interval that carried
 * data (the publisher starting and stopping within them). 0 and *ret, or
 * -ENODATA when fewer than three intervals carried data.
 */
int ddsperf_parse_tput(FILE *f, struct ddsperf_tput *ret);

#endif /* SDDS_BENCH_DDSPERF_H */
