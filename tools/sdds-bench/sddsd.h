/* SPDX-License-Identifier: MIT */
/*
 * sddsd.h - start and stop a private sddsd for one benchmark run.
 *
 * OVERVIEW
 * Each run gets its own daemon on a socket in a fresh temporary directory
 * (mkdtemp under $TMPDIR or /tmp), so the benchmark never touches a system
 * daemon and needs no privileges. The daemon's stdout and stderr go to a log
 * file in that directory; its last lines are quoted when it fails. The
 * daemon is ready when a connect() on its socket succeeds. sddsd_stop sends
 * SIGTERM, waits, then SIGKILLs, reaps it and removes the directory: after
 * it returns nothing of the run is left.
 */
#ifndef SDDS_BENCH_SDDSD_H
#define SDDS_BENCH_SDDSD_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "bench.h"

struct sddsd_proc {
	pid_t pid;
	char dir[PATH_MAX]; /* the private directory, removed by sddsd_stop */
	char sock[108];	    /* sun_path */
	char log[PATH_MAX];
};

/*
 * Start bin as `bin --socket DIR/sddsd.sock [--poll]` pinned to cpu
 * (BENCH_CPU_ANY: not pinned) and wait until it accepts connections.
 * Returns 0 (*ret filled, the caller stops it with sddsd_stop) or -errno
 * with a reason in why (BENCH_WHY_MAX bytes); on failure nothing is left.
 */
int sddsd_start(const char *bin, bool poll_mode, int cpu, struct sddsd_proc *ret, char *why);

/* True while the daemon runs; a daemon that exited is reaped here. */
bool sddsd_alive(struct sddsd_proc *d);

/*
 * Stop, reap and clean up. Returns 0 when the daemon ended on SIGTERM (exit
 * status 0, or killed by the signal), or -ECHILD with a reason in why when
 * it had died before, ended with an error or had to be killed.
 */
int sddsd_stop(struct sddsd_proc *d, char *why);

/*
 * Resolve the daemon binary: explicit (if not NULL), else next to this
 * program in the build tree (../../daemon/sddsd), else ./sddsd beside it.
 * Writes into buf (cap bytes). Returns 0 or -ENOENT.
 */
int sddsd_find(const char *explicit_path, char *buf, size_t cap);

#endif /* SDDS_BENCH_SDDSD_H */
