/* SPDX-License-Identifier: MIT */
/*
 * timerq.c - the timer queue: an intrusive binary min-heap of pointers
 * ordered by (due, seq), and the ready list timerq_run drains.
 *
 * OVERVIEW
 * The heap is complete: with n timers in it, they are nodes 1..n of the
 * usual numbering (root 1, children of k are 2k and 2k+1), but stored as
 * pointers, so a node's number is never kept; heap_slot() finds node k by
 * walking the bits of k below its top bit from the root (0 is left, 1 is
 * right). Insertion hangs a timer at node n + 1 and sifts it up; removal
 * of any timer moves node n into its place and sifts that one down or up.
 * heap_swap() exchanges a node with its parent by relinking, so timers
 * never move in memory and the caller's pointers stay valid.
 *
 * See timerq.h for the invariants every function keeps.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timerq/timerq.h"

enum {
	TIMERQ_S_IDLE = 0,
	TIMERQ_S_HEAP,
	TIMERQ_S_READY,
};

/* Whether a runs before b: earlier due, or the same due armed earlier. */
static bool timer_before(const struct timerq_timer *a, const struct timerq_timer *b)
{
	return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

/* Points *slot of c's parent (or the root) at n instead of c. */
static void heap_replace_child(struct timerq *q, struct timerq_timer *parent, struct timerq_timer *c,
			       struct timerq_timer *n)
{
	if (parent == NULL)
		q->root = n;
	else if (parent->link.heap.left == c)
		parent->link.heap.left = n;
	else
		parent->link.heap.right = n;
}

/* Exchanges c with its parent p, relinking both and their neighbours. */
static void heap_swap(struct timerq *q, struct timerq_timer *p, struct timerq_timer *c)
{
	struct timerq_timer *cl = c->link.heap.left;
	struct timerq_timer *cr = c->link.heap.right;
	struct timerq_timer *sibling;

	heap_replace_child(q, p->link.heap.parent, p, c);
	c->link.heap.parent = p->link.heap.parent;
	if (p->link.heap.left == c) {
		sibling = p->link.heap.right;
		c->link.heap.left = p;
		c->link.heap.right = sibling;
	} else {
		sibling = p->link.heap.left;
		c->link.heap.left = sibling;
		c->link.heap.right = p;
	}
	if (sibling != NULL)
		sibling->link.heap.parent = c;
	p->link.heap.parent = c;
	p->link.heap.left = cl;
	p->link.heap.right = cr;
	if (cl != NULL)
		cl->link.heap.parent = p;
	if (cr != NULL)
		cr->link.heap.parent = p;
}

/*
 * The parent of node k (k >= 2) of q's heap, which must hold nodes up to
 * k / 2 at least.
 */
static struct timerq_timer *heap_parent_of_slot(const struct timerq *q, size_t k)
{
	struct timerq_timer *n = q->root;
	unsigned bit = 0;

	/* The bits of k below its top bit, high to low, but the last one. */
	while ((k >> bit) > 1)
		bit++;
	while (bit-- > 1)
		n = ((k >> bit) & 1) ? n->link.heap.right : n->link.heap.left;
	return n;
}

static void heap_sift_up(struct timerq *q, struct timerq_timer *t)
{
	while (t->link.heap.parent != NULL && timer_before(t, t->link.heap.parent))
		heap_swap(q, t->link.heap.parent, t);
}

static void heap_sift_down(struct timerq *q, struct timerq_timer *t)
{
	for (;;) {
		struct timerq_timer *least = t;

		if (t->link.heap.left != NULL && timer_before(t->link.heap.left, least))
			least = t->link.heap.left;
		if (t->link.heap.right != NULL && timer_before(t->link.heap.right, least))
			least = t->link.heap.right;
		if (least == t)
			return;
		heap_swap(q, t, least);
	}
}

static void heap_insert(struct timerq *q, struct timerq_timer *t)
{
	size_t k = ++q->n_heap;

	t->link.heap.left = NULL;
	t->link.heap.right = NULL;
	if (k == 1) {
		t->link.heap.parent = NULL;
		q->root = t;
		return;
	}
	struct timerq_timer *p = heap_parent_of_slot(q, k);
	t->link.heap.parent = p;
	if (k & 1)
		p->link.heap.right = t;
	else
		p->link.heap.left = t;
	heap_sift_up(q, t);
}

static void heap_remove(struct timerq *q, struct timerq_timer *t)
{
	size_t k = q->n_heap--;

	if (k == 1) {
		q->root = NULL;
		return;
	}
	/* Unhang the last node; if that was t, nothing else moves. */
	struct timerq_timer *lp = heap_parent_of_slot(q, k);
	struct timerq_timer *last = (k & 1) ? lp->link.heap.right : lp->link.heap.left;
	if (k & 1)
		lp->link.heap.right = NULL;
	else
		lp->link.heap.left = NULL;
	if (last == t)
		return;

	/* Put the last node in t's place, then where its key belongs. */
	last->link.heap.left = t->link.heap.left;
	last->link.heap.right = t->link.heap.right;
	last->link.heap.parent = t->link.heap.parent;
	heap_replace_child(q, t->link.heap.parent, t, last);
	if (last->link.heap.left != NULL)
		last->link.heap.left->link.heap.parent = last;
	if (last->link.heap.right != NULL)
		last->link.heap.right->link.heap.parent = last;
	heap_sift_down(q, last);
	heap_sift_up(q, last);
}

static void ready_append(struct timerq *q, struct timerq_timer *t)
{
	t->link.ready.next = NULL;
	t->link.ready.prev = q->ready_tail;
	if (q->ready_tail != NULL)
		q->ready_tail->link.ready.next = t;
	else
		q->ready = t;
	q->ready_tail = t;
}

static void ready_remove(struct timerq *q, struct timerq_timer *t)
{
	if (t->link.ready.prev != NULL)
		t->link.ready.prev->link.ready.next = t->link.ready.next;
	else
		q->ready = t->link.ready.next;
	if (t->link.ready.next != NULL)
		t->link.ready.next->link.ready.prev = t->link.ready.prev;
	else
		q->ready_tail = t->link.ready.prev;
}

void timerq_init(struct timerq *q)
{
	q->root = NULL;
	q->n_heap = 0;
	q->ready = NULL;
	q->ready_tail = NULL;
	q->n_armed = 0;
	q->seq = 0;
	q->running = false;
}

void timerq_timer_init(struct timerq_timer *t, timerq_cb cb)
{
	t->link.heap.left = NULL;
	t->link.heap.right = NULL;
	t->link.heap.parent = NULL;
	t->due = 0;
	t->seq = 0;
	t->cb = cb;
	t->state = TIMERQ_S_IDLE;
}

void timerq_cancel(struct timerq *q, struct timerq_timer *t)
{
	switch (t->state) {
	case TIMERQ_S_HEAP:
		heap_remove(q, t);
		break;
	case TIMERQ_S_READY:
		ready_remove(q, t);
		break;
	default:
		return;
	}
	t->state = TIMERQ_S_IDLE;
	q->n_armed--;
}

void timerq_arm(struct timerq *q, struct timerq_timer *t, int64_t due)
{
	timerq_cancel(q, t);
	t->due = due;
	t->seq = q->seq++;
	t->state = TIMERQ_S_HEAP;
	q->n_armed++;
	heap_insert(q, t);
}

bool timerq_armed(const struct timerq_timer *t)
{
	return t->state != TIMERQ_S_IDLE;
}

int64_t timerq_timer_due(const struct timerq_timer *t)
{
	return t->due;
}

bool timerq_next_due(const struct timerq *q, int64_t *ret_due)
{
	/*
	 * During a run, the ready list's head comes before every other ready
	 * timer, but a timer armed since may sit in the heap with an earlier due.
	 */
	const struct timerq_timer *first = q->root;

	if (q->ready != NULL && (first == NULL || timer_before(q->ready, first)))
		first = q->ready;
	if (first == NULL)
		return false;
	*ret_due = first->due;
	return true;
}

size_t timerq_count(const struct timerq *q)
{
	return q->n_armed;
}

size_t timerq_run(struct timerq *q, int64_t now)
{
	struct timerq_timer *t;
	size_t ran = 0;

	if (q->running)
		return 0;
	q->running = true;
	/*
	 * Take everything due out of the heap first: what the callbacks arm
	 * goes into the heap and so cannot run before the next call.
	 */
	while (q->root != NULL && q->root->due <= now) {
		t = q->root;
		heap_remove(q, t);
		t->state = TIMERQ_S_READY;
		ready_append(q, t);
	}
	while ((t = q->ready) != NULL) {
		ready_remove(q, t);
		t->state = TIMERQ_S_IDLE;
		q->n_armed--;
		ran++;
		/* t may be re-armed, or its object freed, from here on. */
		t->cb(q, t, now);
	}
	q->running = false;
	return ran;
}
