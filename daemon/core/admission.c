/* SPDX-License-Identifier: MIT */
/*
 * admission.c - per-uid caps on pending connections and sessions.
 *
 * OVERVIEW
 * See admission.h for the rules. Invariants kept here:
 * - a->n_pending is the sum of every record's n_pending, and equals the
 *   number of tickets in state PENDING, each on its uid's pending list in
 *   arrival order; likewise n_sessions for SESSION tickets, and
 *   n_ordinary_sessions counts those of records that are not trusted.
 * - A record with connections is never idle and never freed; a record
 *   without connections is on the idle list, or freed when it has counted
 *   nothing (so a flood of distinct uids cannot grow the table beyond the
 *   live connections plus ADMISSION_IDLE_MAX).
 */
#include "admission.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fibonacci hashing: the top 8 bits of the product pick one of 256 buckets. */
static uint32_t admission_hash(uid_t uid)
{
	return ((uint32_t)uid * 2654435761u) >> 24;
}

void admission_init(struct admission *a, const struct admission_limits *lim)
{
	memset(a, 0, sizeof(*a));
	a->lim = *lim;
	for (size_t i = 0; i < ADMISSION_BUCKETS; i++)
		LIST_INIT(&a->buckets[i]);
	TAILQ_INIT(&a->uids);
	TAILQ_INIT(&a->idle);
}

static void admission_free_record(struct admission *a, struct admission_uid *u)
{
	if (u->idle) {
		TAILQ_REMOVE(&a->idle, u, idle_link);
		a->n_idle--;
	}
	LIST_REMOVE(u, hash_link);
	TAILQ_REMOVE(&a->uids, u, all_link);
	a->n_uids--;
	free(u);
}

void admission_fini(struct admission *a)
{
	struct admission_uid *u;

	while ((u = TAILQ_FIRST(&a->uids)) != NULL)
		admission_free_record(a, u);
}

static struct admission_uid *admission_lookup(const struct admission *a, uid_t uid)
{
	struct admission_uid *u;

	LIST_FOREACH(u, &a->buckets[admission_hash(uid)], hash_link)
	{
		if (u->uid == uid)
			return u;
	}
	return NULL;
}

const struct admission_uid *admission_find(const struct admission *a, uid_t uid)
{
	return admission_lookup(a, uid);
}

/* The record of uid, created if needed, taken off the idle list. */
static struct admission_uid *admission_get(struct admission *a, uid_t uid, bool trusted)
{
	struct admission_uid *u = admission_lookup(a, uid);

	if (u == NULL) {
		u = calloc(1, sizeof(*u));
		if (u == NULL)
			return NULL;
		u->uid = uid;
		u->trusted = trusted;
		TAILQ_INIT(&u->pending);
		LIST_INSERT_HEAD(&a->buckets[admission_hash(uid)], u, hash_link);
		TAILQ_INSERT_TAIL(&a->uids, u, all_link);
		a->n_uids++;
	}
	if (u->idle) {
		TAILQ_REMOVE(&a->idle, u, idle_link);
		u->idle = false;
		a->n_idle--;
	}
	return u;
}

/* A record may have lost its last connection: keep it for its counters, or free it. */
static void admission_settle(struct admission *a, struct admission_uid *u)
{
	if (u->n_pending > 0 || u->n_sessions > 0 || u->idle)
		return;
	if (u->dropped == 0 && u->refused == 0 && u->hello_refused == 0) {
		admission_free_record(a, u);
		return;
	}
	u->idle = true;
	TAILQ_INSERT_TAIL(&a->idle, u, idle_link);
	a->n_idle++;
	while (a->n_idle > ADMISSION_IDLE_MAX)
		admission_free_record(a, TAILQ_FIRST(&a->idle));
}

/* Drop u's oldest pending connection: out of the counts, handed to the caller. */
static struct admission_ticket *admission_drop_oldest(struct admission *a, struct admission_uid *u)
{
	struct admission_ticket *v = TAILQ_FIRST(&u->pending);

	TAILQ_REMOVE(&u->pending, v, link);
	v->state = ADMISSION_NONE;
	v->u = NULL;
	u->n_pending--;
	a->n_pending--;
	u->dropped++;
	a->dropped++;
	return v;
}

/* The record holding the most pending connections (the first of equals), or NULL. */
static struct admission_uid *admission_biggest(struct admission *a)
{
	struct admission_uid *u, *best = NULL;

	TAILQ_FOREACH(u, &a->uids, all_link)
	{
		if (u->n_pending > 0 && (best == NULL || u->n_pending > best->n_pending))
			best = u;
	}
	return best;
}

int admission_connect(struct admission *a, uid_t uid, bool trusted, bool pressure, struct admission_ticket *t,
		      struct admission_ticket **ret_victim)
{
	struct admission_ticket *victim = NULL;
	struct admission_uid *u = admission_get(a, uid, trusted);
	uint32_t cap;

	if (u == NULL)
		return -ENOMEM;
	cap = u->trusted ? a->lim.max_pending : a->lim.max_pending_per_uid;
	/* The newcomer's socket now, and two more should it say Hello. */
	if (a->lim.fd_budget > 0 && (uint64_t)a->n_pending + 3ull * a->n_sessions + 3 > a->lim.fd_budget)
		pressure = true;
	if (u->n_pending > 0 && u->n_pending >= cap) {
		/* The uid pushes out its own oldest: nobody else pays for its flood. */
		victim = admission_drop_oldest(a, u);
	} else if (pressure || a->n_pending >= a->lim.max_pending) {
		struct admission_uid *big = admission_biggest(a);

		/*
		 * Only a uid holding more than the newcomer's gives way, so the
		 * shares even out; a newcomer whose uid holds the most (or as
		 * much as anyone) pushes out its own oldest instead.
		 */
		if (big != NULL && big->n_pending > u->n_pending) {
			victim = admission_drop_oldest(a, big);
			admission_settle(a, big);
		} else if (u->n_pending > 0) {
			victim = admission_drop_oldest(a, u);
		} else {
			u->refused++;
			a->refused++;
			admission_settle(a, u);
			return -EBUSY;
		}
	}
	t->u = u;
	t->state = ADMISSION_PENDING;
	TAILQ_INSERT_TAIL(&u->pending, t, link);
	u->n_pending++;
	a->n_pending++;
	*ret_victim = victim;
	return 0;
}

int admission_hello(struct admission *a, struct admission_ticket *t, char *why, size_t why_size)
{
	struct admission_uid *u = t->u;
	uint32_t ordinary_cap = a->lim.max_sessions > a->lim.reserved_sessions
				    ? a->lim.max_sessions - a->lim.reserved_sessions
				    : 0;

	if (t->state != ADMISSION_PENDING) {
		snprintf(why, why_size, "not a pending connection");
		return -EINVAL;
	}
	if (a->n_sessions >= a->lim.max_sessions)
		snprintf(why, why_size, "too many clients (max_clients = %u)", a->lim.max_sessions);
	else if (!u->trusted && u->n_sessions >= a->lim.max_sessions_per_uid)
		snprintf(why, why_size, "uid %u has %u sessions (max_clients_per_uid = %u)", (unsigned)u->uid,
			 u->n_sessions, a->lim.max_sessions_per_uid);
	else if (a->lim.fd_budget > 0 && (uint64_t)a->n_pending + 3ull * a->n_sessions + 2 > a->lim.fd_budget)
		snprintf(
		    why, why_size,
		    "out of descriptors: %u sessions and %u connections without Hello fill RLIMIT_NOFILE",
		    a->n_sessions, a->n_pending);
	else if (!u->trusted && a->n_ordinary_sessions >= ordinary_cap)
		snprintf(
		    why, why_size,
		    "too many clients: the last %u of max_clients = %u are reserved for root and launcher "
		    "uids (reserved_clients)",
		    a->lim.reserved_sessions, a->lim.max_sessions);
	else {
		TAILQ_REMOVE(&u->pending, t, link);
		u->n_pending--;
		a->n_pending--;
		t->state = ADMISSION_SESSION;
		u->n_sessions++;
		a->n_sessions++;
		if (!u->trusted)
			a->n_ordinary_sessions++;
		return 0;
	}
	u->hello_refused++;
	a->hello_refused++;
	return -ENOSPC;
}

void admission_leave(struct admission *a, struct admission_ticket *t)
{
	struct admission_uid *u = t->u;

	if (t->state == ADMISSION_PENDING) {
		TAILQ_REMOVE(&u->pending, t, link);
		u->n_pending--;
		a->n_pending--;
	} else if (t->state == ADMISSION_SESSION) {
		u->n_sessions--;
		a->n_sessions--;
		if (!u->trusted)
			a->n_ordinary_sessions--;
	} else {
		return;
	}
	t->state = ADMISSION_NONE;
	t->u = NULL;
	admission_settle(a, u);
}

void admission_count_refused(struct admission *a, uid_t uid, bool trusted)
{
	struct admission_uid *u = admission_get(a, uid, trusted);

	a->refused++;
	if (u == NULL)
		return;
	u->refused++;
	admission_settle(a, u);
}
