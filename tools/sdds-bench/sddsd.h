/* SPDX-License-Identifier: MIT */
/*
 * sddsd.h - a private sddsd for one benchmark run.
 *
 * OVERVIEW
 * Each run gets its own daemon on a socket in a fresh temporary directory,
 * so the benchmark never touches a system daemon and needs no privileges.
 * The daemon's output goes to a log there, whose last line is quoted when
 * it fails. After sddsd_stop nothing of the run is left.
 */
#ifndef SDDS_BENCH_SDDSD_H
#define SDDS_BENCH_SDDSD_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "bench.h"

struct sddsd_proc {
	pid_t pid; /* 0 once reaped */
	char dir[PATH_MAX];
	char sock[108]; /* sun_path */
	char log[PATH_MAX];
};

/*
 * Starts `bin --socket DIR/sddsd.sock [--poll]` pinned to cpu (BENCH_CPU_ANY:
 * not pinned), ready for connections. 0 with *ret (end it with sddsd_stop),
 * or -errno with a reason in why (BENCH_WHY_MAX bytes) and nothing left.
 */
int sddsd_start(const char *bin, bool poll_mode, int cpu, struct sddsd_proc *ret, char *why);

/* True while the daemon runs; a daemon that exited is reaped here. */
bool sddsd_alive(struct sddsd_proc *d);

/*
 * SIGTERM, wait, SIGKILL; reaps and removes the directory. 0 when it ended
 * on SIGTERM, or -ECHILD with a reason in why when it had died, failed or
 * had to be killed.
 */
int sddsd_stop(struct sddsd_proc *d, char *why);

/* Into buf (cap bytes): explicit_path, else ../../daemon/sddsd or sddsd beside this program. 0 or -ENOENT. */
int sddsd_find(const char *explicit_path, char *buf, size_t cap);

#endif /* SDDS_BENCH_SDDSD_H */
