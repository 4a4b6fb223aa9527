/* SPDX-License-Identifier: MIT */
/*
 * timerq.h - a queue of one-shot timers for an event loop that owns it: the
 * network layer's retransmits, discovery announcements and backlog retries,
 * and the IPv6 stack's ND and MLD timers (the role of lwIP's timeouts,
 * Cyclone DDS's xevent queue and libuv's timer heap).
 *
 * OVERVIEW
 * Intrusive and allocation-free: the caller embeds a struct timerq_timer in
 * its own object, gets the object back in the callback with
 * TIMERQ_CONTAINER_OF, and owns both the queue and every timer's memory.
 * The queue only links timers; it never allocates, never logs, never reads
 * a clock and keeps no global state. It includes only <stdint.h>,
 * <stddef.h> and <stdbool.h>, so the Cortex-M4 firmware can build it too.
 *
 * Time is an int64_t supplied by the caller, in nanoseconds by convention:
 * that is what CLOCK_MONOTONIC, uv_hrtime() and Cyclone DDS's dds_time_t
 * give, 64 bits of it span 292 years so nothing wraps, and millisecond
 * protocol timers (ND, MLD) convert by one multiplication. The queue only
 * compares times, never adds or subtracts them, so any monotonic unit
 * works as long as one queue uses one unit; overflow in "now + period" is
 * the caller's arithmetic.
 *
 * Invariants:
 * - A timer is in one of three states: idle (not armed), in the heap
 *   (armed), or on the ready list (armed, taken out of the heap by a
 *   running timerq_run and about to run). timerq_armed() is true in the
 *   last two. A timer is linked into at most one queue at a time.
 * - The heap is a binary min-heap of pointers (left, right, parent), kept
 *   complete: node k's children are 2k and 2k+1, the path to node k is the
 *   bits of k, so insertion and removal of any node are O(log n) in the
 *   worst case, with no rebalancing and no array to grow.
 * - Timers are ordered by (due, seq): seq is a per-queue counter taken at
 *   every arm, so timers with equal due run in the order they were armed
 *   (FIFO), and re-arming puts a timer behind every equal one armed
 *   before. seq is 64 bits and never wraps in practice.
 * - timerq_run(q, now) first moves every timer with due <= now from the
 *   heap to the ready list, in (due, seq) order, and then runs the list.
 *   A timer armed or re-armed while it runs goes into the heap, not the
 *   list: it runs in a later call even when its due is <= now. A periodic
 *   callback that re-arms itself in the past therefore runs once per call
 *   (catching up one period per call) instead of looping forever. Timers
 *   cancelled or re-armed while on the list leave it and do not run.
 *
 * Complexity: arm, cancel and re-arm O(log n); next_due O(1); run O(k log n)
 * for k timers due. Memory: the structs below, nothing else.
 *
 * Threads: none. The queue and its timers belong to one owner that
 * serialises every call (the event loop's thread, or the MCU's main loop
 * with interrupts kept out of it). Callbacks run on the caller of
 * timerq_run, inside it.
 */
#ifndef SDDS_TIMERQ_TIMERQ_H
#define SDDS_TIMERQ_TIMERQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct timerq;
struct timerq_timer;

/*
 * Runs when t is due, from timerq_run(q, now); t is idle (not armed) by
 * then. The callback may arm, re-arm or cancel any timer of q, t included,
 * and may free the object t is embedded in unless it re-armed t. It must
 * not call timerq_init on q; a nested timerq_run does nothing.
 */
typedef void (*timerq_cb)(struct timerq *q, struct timerq_timer *t, int64_t now);

/* The object that embeds the timer at member, from the timer pointer ptr. */
#define TIMERQ_CONTAINER_OF(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/*
 * A timer, embedded in the caller's object. Every field is private: read
 * them through the functions below.
 */
struct timerq_timer {
	union {
		struct {
			struct timerq_timer *left, *right, *parent;
		} heap; /* in the heap */
		struct {
			struct timerq_timer *next, *prev;
		} ready; /* on the ready list */
	} link;
	int64_t due;
	uint64_t seq;
	timerq_cb cb;
	uint8_t state; /* TIMERQ_S_* of timerq.c */
};

/* A queue, owned by the caller; every field is private. */
struct timerq {
	struct timerq_timer *root;  /* heap minimum, or NULL */
	size_t n_heap;		    /* timers in the heap */
	struct timerq_timer *ready; /* head of the ready list (timerq_run only) */
	struct timerq_timer *ready_tail;
	size_t n_armed; /* timers in the heap or on the ready list */
	uint64_t seq;	/* taken by every arm */
	bool running;	/* inside timerq_run */
};

/* Makes q an empty queue. q must not hold armed timers (they would be lost). */
void timerq_init(struct timerq *q);

/*
 * Makes t an idle timer that calls cb when it runs. t must not be armed;
 * call it once before t's first arm (it may be called again on an idle t
 * to change cb).
 */
void timerq_timer_init(struct timerq_timer *t, timerq_cb cb);

/*
 * Arms t to run at due, behind every timer of q already armed with the same
 * due. An armed t moves (it runs once, at the new due). A due <= the now of
 * a running timerq_run still waits for the next call. q keeps a pointer to
 * t until it runs or is cancelled: t's memory must stay valid until then.
 */
void timerq_arm(struct timerq *q, struct timerq_timer *t, int64_t due);

/* Disarms t, which then does not run; nothing happens if t is idle. */
void timerq_cancel(struct timerq *q, struct timerq_timer *t);

/* Whether t is armed (in a queue, due to run). */
bool timerq_armed(const struct timerq_timer *t);

/* The due t was last armed with (meaningless before its first arm). */
int64_t timerq_timer_due(const struct timerq_timer *t);

/*
 * Stores in *ret_due the earliest due of q's armed timers and returns true,
 * or returns false, leaving *ret_due alone, when none is armed. The loop
 * sleeps until then; a due <= now means "call timerq_run again now".
 */
bool timerq_next_due(const struct timerq *q, int64_t *ret_due);

/* How many timers of q are armed. */
size_t timerq_count(const struct timerq *q);

/*
 * Runs every timer of q armed with due <= now before this call, in order of
 * due, equal dues in arm order, each disarmed just before its callback.
 * Timers armed or re-armed by the callbacks wait for the next call, and
 * those they cancel do not run (OVERVIEW). Returns how many ran; 0, doing
 * nothing, when called from one of q's callbacks.
 */
size_t timerq_run(struct timerq *q, int64_t now);

#endif /* SDDS_TIMERQ_TIMERQ_H */
