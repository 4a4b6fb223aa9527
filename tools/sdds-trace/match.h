/* SPDX-License-Identifier: MIT */
/*
 * match.h - follow samples through the probe events and gather per-phase
 * statistics (no BPF here: the matcher is fed events, so tests can feed it
 * made-up ones).
 *
 * OVERVIEW
 * Events must be fed in time order. A sample is followed across processes
 * by what the probes carry (docs/trace.md, "Following a sample"):
 *   client -> daemon: (daemon epoch, session id, record seq);
 *   inside one process: the thread (a daemon loop handles one sample from
 *     dequeue or decode to the last reader push before the next one);
 *   broker -> reader ring: (broker pid, ring owner, topic, ring position),
 *     the net layer's own ring (owner SDDS_TRACE_NET_OWNER) on to `encoded`;
 *   frames: every sample encoded before a backend hand-off goes with it;
 *   reader ring -> client: (daemon epoch (or the client's own pid in
 *     monolithic mode), session id, topic, ring position); the wake-up and
 *     the callback are the taking thread's last ones after the push.
 * A sample that fans out to several readers becomes one delivery per reader.
 * A take that found its sample already there (it did not wait) has no
 * wake-up: such deliveries form their own run (waited = false). A delivery
 * that misses a boundary its path needs (lost event, an ambiguous key) is
 * counted as unmatched, never guessed.
 *
 * Ownership: the matcher owns everything it allocates; matcher_runs points
 * into it until matcher_free. Errors are 0 or -errno; nothing here logs.
 */
#ifndef SDDS_TRACE_MATCH_H
#define SDDS_TRACE_MATCH_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

#define SDDS_TRACE_NET_OWNER 0xffffffffu /* NETIF_OWNER (daemon/net/netif.h) */

enum trace_mode { TM_ISOLATED = 0, TM_MONOLITHIC, TM_MAX_ };
enum trace_path { TPATH_SEND = 0, TPATH_RECEIVE, TPATH_LOCAL, TPATH_MAX_ };

struct trace_stat {
	uint64_t n;
	uint64_t min_ns, max_ns;
	double mean_ns, m2; /* Welford */
};

struct trace_run {
	enum trace_mode mode;
	enum trace_path path;
	bool callback;	    /* the reader took inside a listener callback */
	bool waited;	    /* the reader slept (or spun) for the sample: client_woken is a boundary */
	uint64_t samples;   /* complete deliveries */
	uint64_t unmatched; /* deliveries of this mode and path missing a boundary */
	unsigned n_phases;  /* boundaries; n_phases - 1 deltas */
	enum trace_phase phase[TP_MAX_];
	struct trace_stat delta[TP_MAX_]; /* delta[i]: phase[i] -> phase[i + 1] */
	struct trace_stat total;	  /* phase[0] -> phase[n_phases - 1] */
};

struct trace_matcher;

int matcher_new(struct trace_matcher **ret);
void matcher_free(struct trace_matcher *m); /* accepts NULL */
/* Feed one event (time order). Returns 0 or -ENOMEM. */
int matcher_feed(struct trace_matcher *m, const struct sdds_trace_event *e);
/* After the last event: what never completed is counted as unmatched. */
void matcher_finish(struct trace_matcher *m);
/* The runs seen so far (borrowed from m), in a fixed order. */
const struct trace_run *matcher_runs(const struct trace_matcher *m, size_t *ret_n);
/* Unmatched samples whose mode or path is not known (no run to count them in). */
uint64_t matcher_unmatched_other(const struct trace_matcher *m);
/* Deliveries completed so far that end in a take (the -n count). */
uint64_t matcher_taken(const struct trace_matcher *m);

const char *trace_phase_name(enum trace_phase p);
const char *trace_mode_name(enum trace_mode m);
const char *trace_path_name(enum trace_path p);

void trace_stat_add(struct trace_stat *s, uint64_t v);
double trace_stat_std_ns(const struct trace_stat *s); /* population STD, 0 below 2 values */

#endif /* SDDS_TRACE_MATCH_H */
