/* SPDX-License-Identifier: MIT */
/*
 * roudi.h - start and stop a private iceoryx RouDi for `sdds-bench iceoryx`.
 *
 * OVERVIEW
 * iceoryx 2.0 allows one RouDi per machine: its shared memory
 * (/dev/shm/iceoryx_mgmt and one segment named after the user's group), its
 * socket /tmp/roudi and its lock files have fixed names. So a run takes a
 * machine-wide lock first (flock on ROUDI_LOCK_PATH; a second sdds-bench,
 * e.g. another worktree's test, waits for it), refuses to start when an
 * iox-roudi it did not start is running (it never touches someone else's
 * RouDi), and starts iox-roudi with a private config (small mempools) from
 * a fresh temporary directory, which also holds its log, with process
 * monitoring off (under load a keep-alive can miss RouDi's deadline and
 * RouDi would disconnect a live runtime mid-run). RouDi is up when
 * its log says "RouDi is ready for clients". The RouDi child gets
 * PR_SET_PDEATHSIG(SIGTERM): if sdds-bench dies, RouDi stops and removes its
 * shared memory itself.
 *
 * roudi_stop sends SIGTERM (RouDi removes its shared memory then), waits,
 * SIGKILLs if needed, and removes whatever iceoryx files appeared while it
 * ran: the shared-memory names RouDi logged, new /dev/shm entries whose name
 * contains "iceoryx", and the new socket and lock files under /tmp. Files
 * that existed before the start are never removed. Then it drops the lock.
 * roudi_stop_on_signal does the same from a signal handler (async-signal
 * safe calls only).
 */
#ifndef SDDS_BENCH_ROUDI_H
#define SDDS_BENCH_ROUDI_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench.h"

#define ROUDI_LOCK_PATH "/tmp/sdds-bench-iceoryx.lock"
/* How long a run waits for another sdds-bench iceoryx run to finish. */
#define ROUDI_LOCK_WAIT_NS (300 * 1000000000LL)
#define ROUDI_MAX_FILES 32
/* Runtime names of the benchmark's processes start with this; their files under /tmp too. */
#define ROUDI_APP_PREFIX "sddsbench-iox-"

struct roudi_proc {
	pid_t pid;
	int lock_fd;
	char dir[PATH_MAX]; /* private: config and log */
	char cfg[PATH_MAX];
	char log[PATH_MAX];
	/* Files to remove at stop (absolute paths): candidates that did not exist before. */
	int n_files;
	char files[ROUDI_MAX_FILES][128];
	/* /dev/shm entries containing "iceoryx" before the start: never removed. */
	int n_before;
	char before[ROUDI_MAX_FILES][128];
};

/*
 * Take the lock, check no other RouDi runs, start bin with a config whose
 * mempools hold payloads of max_payload bytes, wait until it is ready.
 * Returns 0 (*ret filled; stop it with roudi_stop) or -errno with a reason
 * in why (BENCH_WHY_MAX bytes); on failure nothing is left and the lock is
 * released.
 */
int roudi_start(const char *bin, uint32_t max_payload, struct roudi_proc *ret, char *why);

/*
 * Stop RouDi, remove its leftovers and the private directory, release the
 * lock. Returns 0, or -ECHILD with a reason in why when RouDi had died,
 * ended with an error or had to be killed (the files are removed all the
 * same). *ret_removed (may be NULL) gets how many leftovers were removed
 * here, i.e. not by RouDi itself.
 */
int roudi_stop(struct roudi_proc *r, int *ret_removed, char *why);

/* The signal-handler version of roudi_stop: no reason, no allocation. */
void roudi_stop_on_signal(struct roudi_proc *r);

/* RouDi's last log line when it logged anything after "ready" (a warning), else "". */
void roudi_log_tail(const struct roudi_proc *r, char *buf, size_t cap);

/*
 * Names of iceoryx files present now: /dev/shm entries named iceoryx_mgmt
 * or containing "iceoryx", and /tmp/roudi. Written space-separated into buf
 * ("" when none). Returns how many.
 */
int roudi_leftovers(char *buf, size_t cap);

#endif /* SDDS_BENCH_ROUDI_H */
