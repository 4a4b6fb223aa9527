/* SPDX-License-Identifier: MIT */
/*
 * doorbell.h - futex doorbells and the adaptive wait.
 *
 * OVERVIEW
 * A waiter announces itself, then re-checks its condition, then sleeps on the
 * futex word `seq` with the value it read *before* the re-check:
 *
 *   waiter                                 notifier
 *   waiters += 1          (seq_cst)        publish data  (release)
 *   s = seq               (acquire)        fence         (seq_cst)
 *   if cond(): waiters -= 1, done          if waiters != 0:
 *   futex_wait(&seq, s, timeout)               seq += 1; futex_wake(&seq, all)
 *   waiters -= 1
 *
 * The futex word is the counter the notifier bumps, so a bump that lands
 * between the re-check and the sleep makes futex_wait return at once: no
 * wake-up can be spent before the waiter is queued (the trap PERF.md tells).
 * The store to `waiters` and the notifier's publish are each followed by a
 * full fence (Dekker): either the waiter sees the data or the notifier sees
 * the waiter.
 *
 * Cost when the other side is awake: one fence and one load per notify
 * batch, no system call.
 *
 * The spin phase may yield: after yield_after_ns of pure spinning it calls
 * sched_yield() between checks. Two spinning processes that share one CPU
 * then hand it to each other within microseconds, where pure spinners take
 * turns only at the scheduler tick (4 ms at 250 Hz). A spinner alone on its
 * CPU pays one system call per check and otherwise loses nothing.
 *
 * The futex is shared (no FUTEX_PRIVATE_FLAG): the word lives in a memfd
 * mapped by two processes.
 */
#ifndef SDDS_IPC_DOORBELL_H
#define SDDS_IPC_DOORBELL_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"

/* Condition a waiter re-checks; returns true when it may stop waiting. */
typedef bool (*doorbell_cond_fn)(void *arg);

/*
 * Notify: call after publishing (the function issues the full fence itself).
 * Returns true when a futex_wake was issued (waiters were present).
 */
bool doorbell_notify(struct sdds_doorbell *db);

/*
 * Returns true when someone waits on `db` (after a full fence). For sides
 * that wake the other by another means (the daemon's eventfd).
 */
bool doorbell_has_waiters(struct sdds_doorbell *db);

/*
 * Wait until cond(arg) is true, with the adaptive strategy: spin (checking
 * cond) for up to spin_ns, then sleep on the futex. timeout_ns < 0 waits
 * forever; 0 checks once. A sleep is cut into slices of at most
 * slice_ns (0 = no slicing) after each of which abort_fn(arg) is consulted
 * (may be NULL): a way to notice that the peer died.
 * Returns 0 when cond became true, -ETIMEDOUT, or -ECANCELED when abort_fn
 * said so.
 */
int doorbell_wait(struct sdds_doorbell *db, doorbell_cond_fn cond, void *arg, int64_t timeout_ns,
		  int64_t spin_ns, int64_t slice_ns, doorbell_cond_fn abort_fn);

/*
 * doorbell_wait whose spin phase yields the CPU (sched_yield) between checks
 * once it has spun yield_after_ns without yielding; yield_after_ns < 0 never
 * yields (doorbell_wait), 0 yields from the first check on. The spin budget
 * spin_ns covers both parts. With spin_ns > 0 the clock is first read after
 * the first pause or yield, and the budgets and the timeout count from
 * there (late by that one pause or yield at most): nothing but the
 * condition check runs between the call and the first yield.
 */
int doorbell_wait_yield(struct sdds_doorbell *db, doorbell_cond_fn cond, void *arg, int64_t timeout_ns,
			int64_t spin_ns, int64_t yield_after_ns, int64_t slice_ns, doorbell_cond_fn abort_fn);

/* Monotonic clock in nanoseconds. */
int64_t doorbell_now_ns(void);

/* CPU relax hint for spin loops. */
static inline void doorbell_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

#endif /* SDDS_IPC_DOORBELL_H */
