/* SPDX-License-Identifier: MIT */
/*
 * roudi.h - a private iceoryx RouDi for `sdds-bench iceoryx`.
 *
 * OVERVIEW
 * iceoryx 2.0 allows one RouDi per machine: its shared memory, its socket
 * and its lock files have fixed names. So a run takes a machine-wide lock
 * first (a second sdds-bench, e.g. another worktree's test, waits), never
 * touches an iox-roudi it did not start, and runs its own with a small
 * config from a fresh temporary directory that also holds its log.
 * Process monitoring is off: under load a runtime's keep-alive can miss
 * RouDi's deadline, and RouDi would then cut a live ping-pong. RouDi dies
 * with sdds-bench (PR_SET_PDEATHSIG) and removes its shared memory itself.
 *
 * Files: RouDi's shared memory (the names it logs; it remakes a segment
 * that existed) and the /tmp files of RouDi and of the benchmark's runtimes
 * that did not exist at the start are claimed as soon as they are known, so
 * the signal-handler stop removes them without parsing or allocating. No
 * other file is ever removed.
 */
#ifndef SDDS_BENCH_ROUDI_H
#define SDDS_BENCH_ROUDI_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#define ROUDI_LOCK_PATH "/tmp/sdds-bench-iceoryx.lock"
/* About 13 are claimed (3 fixed, the logged segments, 4 per mode): room to spare. */
#define ROUDI_MAX_FILES 64

struct roudi_proc {
	pid_t pid; /* 0 once reaped */
	int lock_fd;
	char dir[PATH_MAX - 16], cfg[PATH_MAX], log[PATH_MAX];
	int n_files; /* ours to remove */
	char files[ROUDI_MAX_FILES][128];
};

/*
 * Take the lock, check no other RouDi runs, start bin with mempools for
 * max_payload bytes and wait until it is ready. 0 (*ret filled, to end with
 * roudi_stop) or -errno with a reason in why (BENCH_WHY_MAX bytes), then
 * nothing is left and the lock is free.
 */
int roudi_start(const char *bin, uint32_t max_payload, struct roudi_proc *ret, char *why);

/* Claim the /tmp socket and lock file of runtime `name` before it starts. */
void roudi_claim_runtime(struct roudi_proc *r, const char *name);

/*
 * Stop RouDi, remove the claimed files and the directory, free the lock.
 * Returns how many files were removed here, not by RouDi itself; a reason
 * in why (BENCH_WHY_MAX bytes) when RouDi had failed or had to be killed.
 * In a signal handler why is NULL, and only async-signal-safe calls are made.
 */
int roudi_stop(struct roudi_proc *r, char *why);

/* Append "; RouDi said: LINE" to why when RouDi logged a line after "ready". */
void roudi_explain(const struct roudi_proc *r, char *why);

/* The iceoryx files present now, space-separated into buf (cap bytes). */
void roudi_leftovers(char *buf, size_t cap);

#endif /* SDDS_BENCH_ROUDI_H */
