/* SPDX-License-Identifier: MIT */
/*
 * doorbell.c - futex doorbells and the adaptive spin-then-sleep wait.
 *
 * OVERVIEW
 * The protocol is the one ipc/doorbell.h draws; this file is its only
 * implementation. Invariants it keeps:
 *  - A waiter is counted in `waiters` for exactly the time it may sleep on
 *    `seq`; the spin phase runs uncounted, so a busy peer never pays a
 *    system call for a waiter that is still spinning.
 *  - The futex word is `seq` itself and the value a waiter sleeps on was read
 *    before its last condition check, so a notify that lands in between
 *    makes FUTEX_WAIT fail with EAGAIN instead of being lost.
 *  - Futexes are shared (no FUTEX_PRIVATE_FLAG): the word lives in a memfd
 *    mapped by two processes, and private futexes key on the mm.
 *  - Every wake-up (timeout, EINTR, spurious, real) goes back to the
 *    condition check; nothing here trusts that a wake means data.
 * Threads: any number of waiters and notifiers per doorbell. No allocation,
 * no logging; errors are returned.
 */
#include "doorbell.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* How many spin iterations run between two clock reads. */
#define DOORBELL_SPIN_CLOCK_EVERY 16u

static void doorbell_futex_wait(SDDS_ATOMIC(uint32_t) * word, uint32_t seen, int64_t rel_ns)
{
	struct timespec ts;
	struct timespec *tsp = NULL;

	if (rel_ns >= 0) {
		ts.tv_sec = (time_t)(rel_ns / 1000000000);
		ts.tv_nsec = (long)(rel_ns % 1000000000);
		tsp = &ts;
	}
	/*
	 * Every outcome (woken, EAGAIN because seq moved, ETIMEDOUT, EINTR) is
	 * handled the same way by the caller: re-check the condition and the
	 * clock. So the result is deliberately ignored.
	 */
	(void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen, tsp, NULL, 0);
}

static void doorbell_futex_wake(SDDS_ATOMIC(uint32_t) * word)
{
	(void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

int64_t doorbell_now_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC cannot fail with a valid pointer. */
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool doorbell_notify(struct sdds_doorbell *db)
{
	/*
	 * Full fence: orders the caller's publish (earlier stores) before the
	 * load of `waiters`. The waiter does the mirror image (store waiters,
	 * fence, load data), so one of the two sees the other.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&db->waiters, memory_order_relaxed) == 0)
		return false;
	/*
	 * Release: a waiter that reads the new seq (acquire) and then re-checks
	 * its condition sees the published data.
	 */
	atomic_fetch_add_explicit(&db->seq, 1, memory_order_release);
	doorbell_futex_wake(&db->seq);
	return true;
}

bool doorbell_has_waiters(struct sdds_doorbell *db)
{
	/* Same fence as in doorbell_notify: the caller's publish before the load. */
	atomic_thread_fence(memory_order_seq_cst);
	return atomic_load_explicit(&db->waiters, memory_order_relaxed) != 0;
}

static int64_t doorbell_add_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return INT64_MAX;
	return r;
}

int doorbell_wait(struct sdds_doorbell *db, doorbell_cond_fn cond, void *arg, int64_t timeout_ns,
		  int64_t spin_ns, int64_t slice_ns, doorbell_cond_fn abort_fn)
{
	return doorbell_wait_yield(db, cond, arg, timeout_ns, spin_ns, -1, slice_ns, abort_fn);
}

int doorbell_wait_yield(struct sdds_doorbell *db, doorbell_cond_fn cond, void *arg, int64_t timeout_ns,
			int64_t spin_ns, int64_t yield_after_ns, int64_t slice_ns, doorbell_cond_fn abort_fn)
{
	int64_t start, deadline;
	int rc;

	if (cond(arg))
		return 0;
	if (timeout_ns == 0)
		return -ETIMEDOUT;

	start = -1;
	deadline = INT64_MAX;
	if (spin_ns > 0) {
		int64_t spin_end = INT64_MAX, yield_at = INT64_MAX;
		bool yielding = yield_after_ns == 0;
		unsigned n = 0;

		/*
		 * The clock is first read after the first pause or yield, and
		 * the budgets count from there: a clock read can cost as much
		 * as a fifth of a microsecond on a VM, and on a CPU shared with
		 * the peer the yield that hands it over is the measured path.
		 * So the timeout runs late by at most that one pause or yield.
		 */
		for (;;) {
			if (yielding)
				(void)sched_yield();
			else
				doorbell_cpu_relax();
			if (cond(arg))
				return 0;
			/*
			 * Reading the clock costs more than a pause: not every
			 * turn. A yield costs more than the clock: every turn.
			 */
			if (yielding || start < 0 || ++n % DOORBELL_SPIN_CLOCK_EVERY == 0) {
				int64_t now = doorbell_now_ns();

				if (start < 0) {
					start = now;
					if (timeout_ns > 0)
						deadline = doorbell_add_sat(start, timeout_ns);
					spin_end = doorbell_add_sat(start, spin_ns);
					if (spin_end > deadline)
						spin_end = deadline;
					if (yield_after_ns >= 0)
						yield_at = doorbell_add_sat(start, yield_after_ns);
				}
				if (now >= spin_end)
					break;
				yielding = now >= yield_at;
			}
		}
		if (spin_end >= deadline)
			return -ETIMEDOUT;
	} else {
		start = doorbell_now_ns();
		if (timeout_ns > 0)
			deadline = doorbell_add_sat(start, timeout_ns);
	}

	/* The peer may be gone already: do not go to sleep for nothing. */
	if (abort_fn != NULL && abort_fn(arg))
		return -ECANCELED;

	atomic_fetch_add_explicit(&db->waiters, 1, memory_order_seq_cst);
	/*
	 * Full fence: orders the waiters store before the condition's loads
	 * (Dekker with the fence in doorbell_notify). The seq_cst RMW is a full
	 * barrier on x86 already; the fence states the requirement portably.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	for (;;) {
		/*
		 * Acquire: pairs with the notifier's release bump, so after
		 * reading a bumped seq the condition sees the data. seq is read
		 * before cond() so that a bump after the check fails the
		 * futex_wait instead of being lost.
		 */
		uint32_t seen = atomic_load_explicit(&db->seq, memory_order_acquire);
		int64_t now, wait;

		if (cond(arg)) {
			rc = 0;
			break;
		}
		now = doorbell_now_ns();
		if (now >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		wait = deadline == INT64_MAX ? -1 : deadline - now;
		if (slice_ns > 0 && (wait < 0 || wait > slice_ns))
			wait = slice_ns;
		doorbell_futex_wait(&db->seq, seen, wait);
		if (abort_fn != NULL && abort_fn(arg)) {
			/* Data that arrived together with the abort still wins. */
			rc = cond(arg) ? 0 : -ECANCELED;
			break;
		}
	}
	/*
	 * Relaxed: a notifier that still sees us costs one spurious
	 * FUTEX_WAKE, never a lost wake-up.
	 */
	atomic_fetch_sub_explicit(&db->waiters, 1, memory_order_relaxed);
	return rc;
}
