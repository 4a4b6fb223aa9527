/* SPDX-License-Identifier: MIT */
/*
 * test_admission.c - the per-uid admission bookkeeping (daemon/core/admission.c)
 * on its own: who is admitted, who is dropped to make room, which Hello is
 * refused, what is counted, and that records do not pile up.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "admission.h"

#define T_MAX 512

static struct admission_ticket tk[T_MAX];

static void limits(struct admission *a, uint32_t pend, uint32_t pend_uid, uint32_t sess, uint32_t sess_uid,
		   uint32_t reserved)
{
	struct admission_limits lim = {pend, pend_uid, sess, sess_uid, reserved, 0};

	memset(tk, 0, sizeof(tk));
	admission_init(a, &lim);
}

/* Admit ticket i of uid; returns the victim's index, -1 for none, -2 when refused. */
static int conn(struct admission *a, int i, uid_t uid, bool trusted, bool pressure)
{
	struct admission_ticket *v = NULL;
	int rc = admission_connect(a, uid, trusted, pressure, &tk[i], &v);

	if (rc == -EBUSY)
		return -2;
	assert_int_equal(rc, 0);
	assert_int_equal(tk[i].state, ADMISSION_PENDING);
	if (v == NULL)
		return -1;
	assert_int_equal(v->state, ADMISSION_NONE);
	return (int)(v - tk);
}

static const struct admission_uid *rec(const struct admission *a, uid_t uid)
{
	const struct admission_uid *u = admission_find(a, uid);

	assert_non_null(u);
	return u;
}

/* A uid at its pending cap pushes out its own oldest, never another uid's. */
static void test_own_oldest_dropped(void **state)
{
	struct admission a;

	(void)state;
	limits(&a, 64, 4, 16, 4, 2);
	for (int i = 0; i < 4; i++)
		assert_int_equal(conn(&a, i, 65534, false, false), -1);
	assert_int_equal(conn(&a, 4, 1000, false, false), -1);
	/* Flood: each newcomer of 65534 drops 65534's oldest, in arrival order. */
	for (int i = 5; i < 105; i++)
		assert_int_equal(conn(&a, i, 65534, false, false), i == 5   ? 0
								   : i == 6 ? 1
								   : i == 7 ? 2
								   : i == 8 ? 3
									    : i - 4);
	assert_int_equal(rec(&a, 65534)->n_pending, 4);
	assert_int_equal(rec(&a, 65534)->dropped, 100);
	assert_int_equal(rec(&a, 1000)->n_pending, 1);
	assert_int_equal(rec(&a, 1000)->dropped, 0);
	assert_int_equal(tk[4].state, ADMISSION_PENDING);
	assert_int_equal(a.n_pending, 5);
	assert_int_equal(a.dropped, 100);
	/* Leaving on a dropped ticket is a no-op. */
	admission_leave(&a, &tk[0]);
	assert_int_equal(a.n_pending, 5);
	admission_fini(&a);
}

/* A full table drops the oldest of the biggest holder, only if it holds more. */
static void test_full_table(void **state)
{
	struct admission a;

	(void)state;
	limits(&a, 6, 4, 16, 4, 2);
	for (int i = 0; i < 4; i++)
		assert_int_equal(conn(&a, i, 100, false, false), -1);
	assert_int_equal(conn(&a, 4, 200, false, false), -1);
	assert_int_equal(conn(&a, 5, 200, false, false), -1);
	/* Full (6). A new uid: 100 holds the most (4 > 0), its oldest goes. */
	assert_int_equal(conn(&a, 6, 300, false, false), 0);
	/* 100:3 200:2 300:1. uid 300 again: 100 (3 > 1) gives way. */
	assert_int_equal(conn(&a, 7, 300, false, false), 1);
	/* 100:2 200:2 300:2: nobody holds more than 300, so 300 pays itself. */
	assert_int_equal(conn(&a, 8, 300, false, false), 6);
	assert_int_equal(rec(&a, 300)->dropped, 1);
	assert_int_equal(rec(&a, 300)->n_pending, 2);
	assert_int_equal(rec(&a, 100)->dropped, 2);
	assert_int_equal(a.n_pending, 6);
	assert_int_equal(a.refused, 0);
	/* A newcomer uid still gets in (everyone holds more than 0). */
	assert_int_equal(conn(&a, 9, 400, false, false), 2);
	admission_fini(&a);
}

/* Trusted uids have the whole table as their pending cap. */
static void test_trusted_pending(void **state)
{
	struct admission a;

	(void)state;
	limits(&a, 16, 2, 16, 4, 2);
	for (int i = 0; i < 12; i++)
		assert_int_equal(conn(&a, i, 0, true, false), -1);
	assert_int_equal(rec(&a, 0)->n_pending, 12);
	for (int i = 12; i < 14; i++)
		assert_int_equal(conn(&a, i, 1000, false, false), -1);
	assert_int_equal(conn(&a, 14, 1000, false, false), 12);
	admission_fini(&a);
}

/* Pressure (out of descriptors): admitted only by dropping someone bigger. */
static void test_pressure(void **state)
{
	struct admission a;

	(void)state;
	limits(&a, 64, 8, 16, 4, 2);
	assert_int_equal(conn(&a, 0, 100, false, true), -2);
	assert_int_equal(rec(&a, 100)->refused, 1);
	assert_int_equal(conn(&a, 1, 200, false, false), -1);
	assert_int_equal(conn(&a, 2, 200, false, false), -1);
	assert_int_equal(conn(&a, 3, 100, false, true), 1);
	/* 100:1 200:1: 100 holds as much as anyone, its own oldest goes. */
	assert_int_equal(conn(&a, 4, 100, false, true), 3);
	assert_int_equal(a.n_pending, 2);
	admission_fini(&a);
}

/* The descriptor budget: a pending connection costs 1, a session 3. */
static void test_fd_budget(void **state)
{
	struct admission a;
	char why[160];

	(void)state;
	limits(&a, 64, 32, 16, 8, 0);
	a.lim.fd_budget = 20;
	/* Two sessions (6) and pending connections up to 20 - 2 spare for a Hello. */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(conn(&a, i, 100, false, false), -1);
		assert_int_equal(admission_hello(&a, &tk[i], why, sizeof(why)), 0);
	}
	for (int i = 2; i < 14; i++)
		assert_int_equal(conn(&a, i, 65534, false, false), -1);
	/* 12 + 6 + 3 > 20: the flood pays for the next one, of its own. */
	assert_int_equal(conn(&a, 14, 65534, false, false), 2);
	assert_int_equal(conn(&a, 15, 1000, false, false), 3);
	assert_int_equal(a.n_pending, 12);
	/* The honest one's Hello has its two descriptors. */
	assert_int_equal(admission_hello(&a, &tk[15], why, sizeof(why)), 0);
	assert_int_equal(a.n_pending + 3 * a.n_sessions, 20);
	/* Nothing left for another Hello. */
	assert_int_equal(admission_hello(&a, &tk[5], why, sizeof(why)), -ENOSPC);
	assert_non_null(strstr(why, "out of descriptors"));
	admission_fini(&a);
}

/* Session caps: per uid, the reserve for trusted uids, the global cap. */
static void test_sessions(void **state)
{
	struct admission a;
	char why[160];
	int i = 0;

	(void)state;
	limits(&a, 64, 16, 8, 3, 2);
	for (; i < 3; i++) {
		assert_int_equal(conn(&a, i, 65534, false, false), -1);
		assert_int_equal(admission_hello(&a, &tk[i], why, sizeof(why)), 0);
		assert_int_equal(tk[i].state, ADMISSION_SESSION);
	}
	assert_int_equal(conn(&a, i, 65534, false, false), -1);
	assert_int_equal(admission_hello(&a, &tk[i], why, sizeof(why)), -ENOSPC);
	assert_string_equal(why, "uid 65534 has 3 sessions (max_clients_per_uid = 3)");
	assert_int_equal(tk[i].state, ADMISSION_PENDING);
	assert_int_equal(rec(&a, 65534)->hello_refused, 1);
	admission_leave(&a, &tk[i++]);
	/* 1000 takes 3: ordinary uids now hold 6 = 8 - 2 reserved. */
	for (int k = 0; k < 3; k++, i++) {
		assert_int_equal(conn(&a, i, 1000, false, false), -1);
		assert_int_equal(admission_hello(&a, &tk[i], why, sizeof(why)), 0);
	}
	assert_int_equal(conn(&a, i, 1001, false, false), -1);
	assert_int_equal(admission_hello(&a, &tk[i], why, sizeof(why)), -ENOSPC);
	assert_non_null(strstr(why, "reserved for root and launcher uids"));
	admission_leave(&a, &tk[i++]);
	/* The reserve is root's (and a launcher's), beyond the per-uid cap. */
	for (int k = 0; k < 3; k++, i++) {
		assert_int_equal(conn(&a, i, 0, true, false), -1);
		assert_int_equal(admission_hello(&a, &tk[i], why, sizeof(why)), k == 2 ? -ENOSPC : 0);
	}
	assert_string_equal(why, "too many clients (max_clients = 8)");
	assert_int_equal(a.n_sessions, 8);
	assert_int_equal(a.n_ordinary_sessions, 6);
	/* A session leaving makes room for its uid again. */
	admission_leave(&a, &tk[0]);
	assert_int_equal(rec(&a, 65534)->n_sessions, 2);
	assert_int_equal(conn(&a, i, 65534, false, false), -1);
	assert_int_equal(admission_hello(&a, &tk[i], why, sizeof(why)), 0);
	admission_fini(&a);
}

/* Records go with their last connection, or stay (bounded) for their counters. */
static void test_records_bounded(void **state)
{
	struct admission a;
	char why[160];

	(void)state;
	limits(&a, 4, 2, 8, 1, 0);
	assert_int_equal(conn(&a, 0, 7, false, false), -1);
	admission_leave(&a, &tk[0]);
	assert_null(admission_find(&a, 7));
	assert_int_equal(a.n_uids, 0);
	/* 300 distinct uids, each refused once: at most ADMISSION_IDLE_MAX records stay. */
	for (int i = 0; i < 4; i++)
		assert_int_equal(conn(&a, i, 1, false, false), i < 2 ? -1 : i - 2);
	assert_int_equal(conn(&a, 4, 2, false, false), -1);
	assert_int_equal(conn(&a, 5, 2, false, false), -1);
	for (uid_t u = 1000; u < 1300; u++)
		admission_count_refused(&a, u, false);
	assert_true(a.n_uids <= 2 + ADMISSION_IDLE_MAX);
	assert_int_equal(a.n_idle, ADMISSION_IDLE_MAX);
	assert_null(admission_find(&a, 1000));
	assert_non_null(admission_find(&a, 1299));
	assert_int_equal(a.refused, 300);
	/* A uid with connections keeps its record through all that. */
	assert_int_equal(rec(&a, 1)->dropped, 2);
	assert_int_equal(admission_hello(&a, &tk[4], why, sizeof(why)), 0);
	admission_leave(&a, &tk[4]);
	admission_leave(&a, &tk[5]);
	admission_leave(&a, &tk[2]);
	admission_leave(&a, &tk[3]);
	assert_int_equal(a.n_pending, 0);
	assert_int_equal(a.n_sessions, 0);
	/* uid 1 dropped some: it stays idle for its counters. */
	assert_non_null(admission_find(&a, 1));
	assert_null(admission_find(&a, 2));
	admission_fini(&a);
	assert_int_equal(a.n_uids, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_own_oldest_dropped), cmocka_unit_test(test_full_table),
	    cmocka_unit_test(test_trusted_pending),    cmocka_unit_test(test_pressure),
	    cmocka_unit_test(test_fd_budget),	       cmocka_unit_test(test_sessions),
	    cmocka_unit_test(test_records_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
