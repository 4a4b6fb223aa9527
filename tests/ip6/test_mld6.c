/* SPDX-License-Identifier: MIT */
/*
 * test_mld6.c - MLDv2 of the IPv6 stack (lib/ip6/src/mld6.c) alone: State
 * Change Reports on join and leave with robustness - 1 retransmissions
 * within the Unsolicited Report Interval and no more, a join during a
 * pending leave and the reverse, reports on start, answers to General,
 * Multicast-Address-Specific, source-specific and MLDv1 queries within the
 * Maximum Response Delay (exponential form decoded), the RFC 3810 §6.2
 * scheduling rules, QRV, reference counts, a full table, ff02::1 and
 * interface-local groups never reported, a report split over messages,
 * invalid messages counted and without effect, and random operations that
 * end with no timer armed and no MAC left in the filter.
 *
 * OVERVIEW
 * The test is the stack core: it defines the ip6s_* functions mld6.h asks
 * for on a struct ip6s of its own, which records every message sent (with
 * the fake clock's time), keeps the MAC filter as a set (adding a group
 * twice or removing an absent one fails the test) and counts drops. The
 * timer queue is the real lib/timerq, run on the fake clock by run_until.
 * Every message sent is parsed back byte by byte by parse_report. Random
 * numbers come from a fixed-seed xorshift, or a fixed value where a test
 * needs the exact delay (0xffffffff gives the maximum).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mld6.h"

#define MS 1000000ll
#define SEC 1000000000ll
#define MAX_SENT 512
#define MAX_MACS 64

struct sent {
	struct in6_addr dst;
	uint8_t msg[1500];
	uint32_t len;
	int64_t at;
};

struct ip6s {
	struct mld6 m;
	struct timerq tq;
	int64_t now;
	bool running;
	int mac_fail; /* ip6s_mac_filter's result for an add, when not 0 */
	struct ip6s_stats stats;
	struct sent sent[MAX_SENT];
	unsigned n_sent;
	struct in6_addr macs[MAX_MACS]; /* the filter: groups whose MAC was added */
	unsigned n_macs, mac_adds, mac_removes;
	bool rand_fixed;
	uint32_t rand_value;
	uint64_t rng;
};

static struct ip6s g_s;

/* The fake stack core. */

int ip6s_mld_send(struct ip6s *s, const struct in6_addr *dst, const uint8_t *msg, uint32_t len)
{
	struct sent *x;

	/* mld6.c must hold its reports while the stack does not run. */
	assert_true(s->running);
	assert_true(s->n_sent < MAX_SENT);
	assert_true(len <= sizeof(x->msg));
	x = &s->sent[s->n_sent++];
	x->dst = *dst;
	memcpy(x->msg, msg, len);
	x->len = len;
	x->at = s->now;
	s->stats.mld_report_out++;
	return 0;
}

static int mac_find(const struct ip6s *s, const struct in6_addr *group)
{
	for (unsigned i = 0; i < s->n_macs; i++)
		if (memcmp(&s->macs[i], group, sizeof(*group)) == 0)
			return (int)i;
	return -1;
}

int ip6s_mac_filter(struct ip6s *s, const struct in6_addr *group, bool add)
{
	int i = mac_find(s, group);

	if (add) {
		if (s->mac_fail)
			return s->mac_fail;
		assert_int_equal(i, -1);
		assert_true(s->n_macs < MAX_MACS);
		s->macs[s->n_macs++] = *group;
		s->mac_adds++;
	} else {
		assert_true(i >= 0);
		s->macs[i] = s->macs[--s->n_macs];
		s->mac_removes++;
	}
	return 0;
}

bool ip6s_running(const struct ip6s *s)
{
	return s->running;
}

int64_t ip6s_now(const struct ip6s *s)
{
	return s->now;
}

uint32_t ip6s_random(const struct ip6s *s)
{
	struct ip6s *w = (struct ip6s *)(uintptr_t)s;

	if (s->rand_fixed)
		return s->rand_value;
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return (uint32_t)(w->rng >> 32);
}

struct timerq *ip6s_tq(const struct ip6s *s)
{
	return (struct timerq *)(uintptr_t)&s->tq;
}

void ip6s_count_drop(struct ip6s *s, enum ip6s_drop why)
{
	assert_true(why < IP6S_DROP_MAX);
	s->stats.drops[why]++;
}

struct ip6s_stats *ip6s_stats_mut(struct ip6s *s)
{
	return &s->stats;
}

/* Helpers. */

/* ff<b1>::<hi>:<lo>, b1 holding the flags and the scope. */
static struct in6_addr mc(uint8_t b1, uint16_t hi, uint16_t lo)
{
	struct in6_addr a;

	memset(&a, 0, sizeof(a));
	a.s6_addr[0] = 0xff;
	a.s6_addr[1] = b1;
	a.s6_addr[12] = (uint8_t)(hi >> 8);
	a.s6_addr[13] = (uint8_t)hi;
	a.s6_addr[14] = (uint8_t)(lo >> 8);
	a.s6_addr[15] = (uint8_t)lo;
	return a;
}

static struct in6_addr addr_of(const char *kind)
{
	struct in6_addr a;

	memset(&a, 0, sizeof(a));
	if (strcmp(kind, "ll") == 0) {
		a.s6_addr[0] = 0xfe;
		a.s6_addr[1] = 0x80;
		a.s6_addr[15] = 1;
	} else if (strcmp(kind, "global") == 0) {
		a.s6_addr[0] = 0x20;
		a.s6_addr[1] = 0x01;
		a.s6_addr[2] = 0x0d;
		a.s6_addr[3] = 0xb8;
		a.s6_addr[15] = 1;
	} else if (strcmp(kind, "all-nodes") == 0) {
		a = mc(0x02, 0, 1);
	}
	return a;
}

static bool addr_eq(const struct in6_addr *a, const struct in6_addr *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* Runs every timer due up to t_end on the fake clock, which ends at t_end. */
static void run_until(int64_t t_end)
{
	int64_t due;

	while (timerq_next_due(&g_s.tq, &due) && due <= t_end) {
		if (due > g_s.now)
			g_s.now = due;
		timerq_run(&g_s.tq, g_s.now);
	}
	if (t_end > g_s.now)
		g_s.now = t_end;
}

/*
 * Parses sent message i as an MLDv2 Report (RFC 3810 §5.2) byte by byte:
 * to ff02::16, type 143, code 0, checksum left 0 for the core, reserved 0,
 * every record of type rec_type with no aux data and no sources. Returns
 * the number of records and their groups in out.
 */
static unsigned parse_report(unsigned i, uint8_t rec_type, struct in6_addr *out, unsigned max)
{
	const struct sent *x;
	struct in6_addr routers = mc(0x02, 0, 0x16);
	unsigned n;

	assert_true(i < g_s.n_sent);
	x = &g_s.sent[i];
	assert_true(addr_eq(&x->dst, &routers));
	assert_true(x->len >= 8);
	assert_int_equal(x->msg[0], 143);
	assert_int_equal(x->msg[1], 0);
	assert_int_equal(x->msg[2], 0);
	assert_int_equal(x->msg[3], 0);
	assert_int_equal(x->msg[4], 0);
	assert_int_equal(x->msg[5], 0);
	n = (unsigned)x->msg[6] << 8 | x->msg[7];
	assert_true(n >= 1);
	assert_int_equal(x->len, 8 + 20 * n);
	assert_true(n <= max);
	for (unsigned k = 0; k < n; k++) {
		const uint8_t *r = x->msg + 8 + 20 * k;

		assert_int_equal(r[0], rec_type);
		assert_int_equal(r[1], 0);
		assert_int_equal(r[2], 0);
		assert_int_equal(r[3], 0);
		memcpy(&out[k], r + 4, sizeof(out[k]));
		assert_int_equal(out[k].s6_addr[0], 0xff);
	}
	return n;
}

/* Sent message i is a report of one record, rec_type, for group. */
static void expect_one(unsigned i, uint8_t rec_type, const struct in6_addr *group)
{
	struct in6_addr g[4];

	assert_int_equal(parse_report(i, rec_type, g, 4), 1);
	assert_true(addr_eq(&g[0], group));
}

#define TO_IN 3
#define TO_EX 4
#define IS_EX 2

/* An MLDv2 query (RFC 3810 §5.1) of nsrc sources, into buf; returns its length. */
static uint32_t make_query(uint8_t *buf, uint16_t mrc, const struct in6_addr *group, uint8_t qrv,
			   uint16_t nsrc)
{
	uint32_t len = 28 + 16u * nsrc;

	memset(buf, 0, len);
	buf[0] = 130;
	buf[4] = (uint8_t)(mrc >> 8);
	buf[5] = (uint8_t)mrc;
	memcpy(buf + 8, group, 16);
	buf[24] = qrv & 7;
	buf[25] = 125;
	buf[26] = (uint8_t)(nsrc >> 8);
	buf[27] = (uint8_t)nsrc;
	for (uint16_t k = 0; k < nsrc; k++) {
		struct in6_addr src = addr_of("global");

		src.s6_addr[14] = (uint8_t)k;
		memcpy(buf + 28 + 16 * k, &src, 16);
	}
	return len;
}

/* A valid query from a link-local querier, as the core hands it over. */
static void input(const uint8_t *msg, uint32_t len, const struct in6_addr *dst)
{
	struct in6_addr src = addr_of("ll");

	mld6_input(&g_s.m, &src, dst, 1, true, msg, len);
}

static void general_query(uint16_t mrc, uint8_t qrv)
{
	uint8_t buf[64];
	struct in6_addr any, dst = addr_of("all-nodes");

	memset(&any, 0, sizeof(any));
	input(buf, make_query(buf, mrc, &any, qrv, 0), &dst);
}

static void specific_query(const struct in6_addr *group, uint16_t mrc, uint16_t nsrc)
{
	uint8_t buf[28 + 16 * 4];

	assert_true(nsrc <= 4);
	input(buf, make_query(buf, mrc, group, 0, nsrc), group);
}

static uint64_t drops_total(void)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < IP6S_DROP_MAX; i++)
		n += g_s.stats.drops[i];
	return n;
}

/* Joins group and lets its State Change retransmissions run out. */
static void join_settled(const struct in6_addr *group)
{
	assert_int_equal(mld6_join(&g_s.m, group), 0);
	run_until(g_s.now + 10 * SEC);
}

static int setup(void **state)
{
	(void)state;
	memset(&g_s, 0, sizeof(g_s));
	timerq_init(&g_s.tq);
	g_s.now = 1000 * SEC;
	g_s.running = true;
	g_s.rng = 0x9e3779b97f4a7c15u;
	mld6_init(&g_s.m, &g_s);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mld6_fini(&g_s.m);
	assert_int_equal(timerq_count(&g_s.tq), 0);
	return 0;
}

/* Tests. */

/* Join: TO_EX {} at once, one retransmission within 1 s (robustness 2), then nothing (§6.1). */
static void test_join_reports(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1);
	int64_t t0 = g_s.now;

	(void)state;
	assert_int_equal(mld6_join(&g_s.m, &a), 0);
	assert_int_equal(g_s.n_macs, 1);
	assert_true(addr_eq(&g_s.macs[0], &a));
	assert_true(mld6_joined(&g_s.m, &a));
	assert_int_equal(g_s.n_sent, 1);
	assert_int_equal(g_s.sent[0].at, t0);
	expect_one(0, TO_EX, &a);
	run_until(t0 + 60 * SEC);
	assert_int_equal(g_s.n_sent, 2);
	expect_one(1, TO_EX, &a);
	assert_true(g_s.sent[1].at >= t0 && g_s.sent[1].at <= t0 + SEC);
	assert_int_equal(timerq_count(&g_s.tq), 0);
	assert_int_equal(g_s.stats.mld_report_out, 2);
	assert_int_equal(drops_total(), 0);
}

/* The largest random number gives the longest delay: exactly the Unsolicited Report Interval. */
static void test_join_delay_bound(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1);
	int64_t t0 = g_s.now;

	(void)state;
	g_s.rand_fixed = true;
	g_s.rand_value = UINT32_MAX;
	assert_int_equal(mld6_join(&g_s.m, &a), 0);
	run_until(t0 + SEC - 1);
	assert_int_equal(g_s.n_sent, 1);
	run_until(t0 + SEC);
	assert_int_equal(g_s.n_sent, 2);
	assert_int_equal(g_s.sent[1].at, t0 + SEC);
	g_s.rand_value = 0;
	assert_int_equal(mld6_leave(&g_s.m, &a), 0);
	/* The smallest: the retransmission is due at once, on the next run. */
	run_until(g_s.now);
	assert_int_equal(g_s.n_sent, 4);
	assert_int_equal(g_s.sent[3].at, t0 + SEC);
	expect_one(3, TO_IN, &a);
}

/* Last leave: TO_IN {} and its retransmission, and only then the MAC goes and the slot frees. */
static void test_leave_reports(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1);
	struct ip6s_group_info info[4];
	int64_t t1;

	(void)state;
	join_settled(&a);
	assert_int_equal(g_s.n_sent, 2);
	t1 = g_s.now;
	assert_int_equal(mld6_leave(&g_s.m, &a), 0);
	assert_int_equal(g_s.n_sent, 3);
	expect_one(2, TO_IN, &a);
	assert_false(mld6_joined(&g_s.m, &a));
	assert_int_equal(mld6_groups(&g_s.m, info, 4), 0);
	/* The group's traffic stops at the leave; the retransmission still goes. */
	assert_int_equal(g_s.n_macs, 0);
	assert_int_equal(g_s.mac_removes, 1);
	assert_int_equal(mld6_leave(&g_s.m, &a), -ENOENT);
	run_until(t1 + 60 * SEC);
	assert_int_equal(g_s.n_sent, 4);
	expect_one(3, TO_IN, &a);
	assert_true(g_s.sent[3].at <= t1 + SEC);
	assert_int_equal(g_s.n_macs, 0);
	assert_int_equal(g_s.mac_removes, 1);
	assert_int_equal(timerq_count(&g_s.tq), 0);
	/* The slot is free: a new join adds the MAC again. */
	assert_int_equal(mld6_join(&g_s.m, &a), 0);
	assert_int_equal(g_s.mac_adds, 2);
	expect_one(4, TO_EX, &a);
}

/* A join during the leave's retransmissions replaces them, and the MAC comes back into the filter. */
static void test_join_during_leave(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1);

	(void)state;
	join_settled(&a);
	assert_int_equal(mld6_leave(&g_s.m, &a), 0);
	assert_int_equal(g_s.n_sent, 3);
	assert_int_equal(mld6_join(&g_s.m, &a), 0);
	assert_int_equal(g_s.n_sent, 4);
	expect_one(3, TO_EX, &a);
	run_until(g_s.now + 60 * SEC);
	assert_int_equal(g_s.n_sent, 5);
	expect_one(4, TO_EX, &a);
	assert_true(mld6_joined(&g_s.m, &a));
	assert_int_equal(g_s.n_macs, 1);
	assert_int_equal(g_s.mac_adds, 2);
	assert_int_equal(g_s.mac_removes, 1);
}

/* A leave during the join's retransmissions: TO_IN now and once more, nothing of the join after. */
static void test_leave_during_join(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1);

	(void)state;
	assert_int_equal(mld6_join(&g_s.m, &a), 0);
	assert_int_equal(mld6_leave(&g_s.m, &a), 0);
	assert_int_equal(g_s.n_sent, 2);
	expect_one(0, TO_EX, &a);
	expect_one(1, TO_IN, &a);
	run_until(g_s.now + 60 * SEC);
	assert_int_equal(g_s.n_sent, 3);
	expect_one(2, TO_IN, &a);
	assert_int_equal(g_s.n_macs, 0);
}

/* Joins before the stack runs touch only the filter; mld6_start reports them (§6.1). */
static void test_start_reports(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1), b = mc(0x02, 0x1, 0xff00), all = addr_of("all-nodes");
	struct in6_addr c = mc(0x05, 0x5dd5, 3), g[4];
	bool seen_a = false, seen_b = false;

	(void)state;
	g_s.running = false;
	assert_int_equal(mld6_join(&g_s.m, &a), 0);
	assert_int_equal(mld6_join(&g_s.m, &b), 0);
	assert_int_equal(mld6_join(&g_s.m, &all), 0);
	assert_int_equal(mld6_join(&g_s.m, &c), 0);
	/* A leave while stopped completes at once: nothing to tell anyone. */
	assert_int_equal(mld6_leave(&g_s.m, &c), 0);
	assert_int_equal(g_s.n_macs, 3);
	assert_int_equal(g_s.n_sent, 0);
	assert_int_equal(timerq_count(&g_s.tq), 0);
	g_s.running = true;
	mld6_start(&g_s.m);
	assert_int_equal(g_s.n_sent, 2);
	run_until(g_s.now + 60 * SEC);
	assert_int_equal(g_s.n_sent, 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(parse_report(i, TO_EX, g, 4), 1);
		seen_a |= addr_eq(&g[0], &a);
		seen_b |= addr_eq(&g[0], &b);
		assert_false(addr_eq(&g[0], &all));
	}
	assert_true(seen_a && seen_b);
}

/* The groups that may be joined and listed but never reported (§6). */
static void test_never_reported(void **state)
{
	struct in6_addr all = addr_of("all-nodes"), ifl = mc(0x01, 0, 5), rsv = mc(0x00, 0, 7);
	struct ip6s_group_info info[4];

	(void)state;
	assert_int_equal(mld6_join(&g_s.m, &all), 0);
	assert_int_equal(mld6_join(&g_s.m, &ifl), 0);
	assert_int_equal(mld6_join(&g_s.m, &rsv), 0);
	assert_int_equal(g_s.n_macs, 3);
	assert_true(mld6_joined(&g_s.m, &all));
	assert_int_equal(mld6_groups(&g_s.m, info, 4), 3);
	assert_int_equal(timerq_count(&g_s.tq), 0);
	general_query(1000, 0);
	specific_query(&all, 1000, 0);
	run_until(g_s.now + 60 * SEC);
	assert_int_equal(g_s.n_sent, 0);
	assert_int_equal(g_s.stats.mld_query_in, 2);
	assert_int_equal(mld6_leave(&g_s.m, &all), 0);
	assert_int_equal(g_s.n_macs, 2);
	assert_int_equal(g_s.n_sent, 0);
	assert_int_equal(drops_total(), 0);
}

/* A General Query: one report of every reported group, within the Maximum Response Delay, once. */
static void test_general_query(void **state)
{
	struct in6_addr want[3] = {mc(0x05, 0x5dd5, 1), mc(0x02, 0x1, 0xff00), mc(0x12, 0xabcd, 2)};
	struct in6_addr all = addr_of("all-nodes"), ifl = mc(0x01, 0, 5), g[8];
	unsigned n, sent0;
	int64_t t0, due;

	(void)state;
	for (unsigned i = 0; i < 3; i++)
		join_settled(&want[i]);
	join_settled(&all);
	join_settled(&ifl);
	sent0 = g_s.n_sent;
	t0 = g_s.now;
	general_query(5000, 0);
	assert_int_equal(g_s.stats.mld_query_in, 1);
	assert_int_equal(g_s.n_sent, sent0);
	assert_true(timerq_next_due(&g_s.tq, &due));
	assert_true(due >= t0 && due <= t0 + 5 * SEC);
	run_until(t0 + 5 * SEC);
	assert_int_equal(g_s.n_sent, sent0 + 1);
	n = parse_report(sent0, IS_EX, g, 8);
	assert_int_equal(n, 3);
	for (unsigned i = 0; i < 3; i++) {
		bool found = false;

		for (unsigned k = 0; k < n; k++)
			found |= addr_eq(&g[k], &want[i]);
		assert_true(found);
	}
	run_until(t0 + 600 * SEC);
	assert_int_equal(g_s.n_sent, sent0 + 1);
	assert_int_equal(drops_total(), 0);
}

/*
 * Maximum Response Code (§5.1.3): linear below 32768, exponential above;
 * with the largest random number the answer is due exactly at the decoded
 * delay. Each shorter query replaces the pending answer (§6.2 rule 2), a
 * longer one leaves it (rule 1).
 */
static void test_max_resp_code(void **state)
{
	static const struct {
		uint16_t code;
		int64_t ms;
	} cases[] = {
	    {0xffff, 0x1fffll << 10}, /* exp 7, mant 0xfff */
	    {0x9234, 0x1234ll << 4},  /* exp 1, mant 0x234 */
	    {0x8000, 0x1000ll << 3},  /* exp 0, mant 0: 32768 */
	    {0x7fff, 0x7fff},	      /* the largest linear */
	    {1234, 1234},
	    {0, 0},
	};
	struct in6_addr a = mc(0x05, 0x5dd5, 1);
	int64_t due, t0;

	(void)state;
	join_settled(&a);
	t0 = g_s.now;
	g_s.rand_fixed = true;
	g_s.rand_value = UINT32_MAX;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		general_query(cases[i].code, 0);
		assert_true(timerq_next_due(&g_s.tq, &due));
		assert_int_equal(due, t0 + cases[i].ms * MS);
	}
	general_query(10000, 0);
	assert_true(timerq_next_due(&g_s.tq, &due));
	assert_int_equal(due, t0);
	assert_int_equal(timerq_count(&g_s.tq), 1);
}

/* A later General Query due sooner replaces the pending answer; one answer in all. */
static void test_general_query_sooner(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1);
	unsigned sent0;
	int64_t t0;

	(void)state;
	join_settled(&a);
	sent0 = g_s.n_sent;
	t0 = g_s.now;
	g_s.rand_fixed = true;
	g_s.rand_value = UINT32_MAX;
	general_query(10000, 0);
	run_until(t0 + 2 * SEC);
	general_query(1000, 0);
	run_until(t0 + 600 * SEC);
	assert_int_equal(g_s.n_sent, sent0 + 1);
	assert_int_equal(g_s.sent[sent0].at, t0 + 3 * SEC);
}

/* A Multicast-Address-Specific Query: that group's record alone; unjoined groups are not answered. */
static void test_specific_query(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1), b = mc(0x05, 0x5dd5, 2), c = mc(0x05, 0x5dd5, 3);
	unsigned sent0;
	int64_t t0;

	(void)state;
	join_settled(&a);
	join_settled(&b);
	sent0 = g_s.n_sent;
	t0 = g_s.now;
	specific_query(&c, 1000, 0);
	assert_int_equal(timerq_count(&g_s.tq), 0);
	specific_query(&a, 2000, 0);
	assert_int_equal(g_s.n_sent, sent0);
	run_until(t0 + 2 * SEC);
	assert_int_equal(g_s.n_sent, sent0 + 1);
	expect_one(sent0, IS_EX, &a);
	assert_true(g_s.sent[sent0].at <= t0 + 2 * SEC);
	/* Source-specific: answered as the group's whole state, EXCLUDE {}. */
	specific_query(&b, 500, 2);
	run_until(t0 + 600 * SEC);
	assert_int_equal(g_s.n_sent, sent0 + 2);
	expect_one(sent0 + 1, IS_EX, &b);
	assert_int_equal(g_s.stats.mld_query_in, 3);
	assert_int_equal(drops_total(), 0);
}

/* §6.2 rules 1, 3 and 4: one answer per group, at the earliest delay; a sooner general answer covers it. */
static void test_specific_query_rules(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1), g[4];
	unsigned sent0;
	int64_t t0;

	(void)state;
	join_settled(&a);
	sent0 = g_s.n_sent;
	t0 = g_s.now;
	g_s.rand_fixed = true;
	g_s.rand_value = UINT32_MAX;
	specific_query(&a, 10000, 0);
	specific_query(&a, 1000, 0);
	specific_query(&a, 5000, 0);
	run_until(t0 + 600 * SEC);
	assert_int_equal(g_s.n_sent, sent0 + 1);
	assert_int_equal(g_s.sent[sent0].at, t0 + SEC);
	expect_one(sent0, IS_EX, &a);
	t0 = g_s.now;
	general_query(1000, 0);
	specific_query(&a, 5000, 0);
	run_until(t0 + 600 * SEC);
	assert_int_equal(g_s.n_sent, sent0 + 2);
	assert_int_equal(parse_report(sent0 + 1, IS_EX, g, 4), 1);
	assert_int_equal(g_s.sent[sent0 + 1].at, t0 + SEC);
}

/* A leave drops the group's pending query answer: no MODE_IS_EXCLUDE after TO_IN. */
static void test_leave_cancels_answer(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1), b = mc(0x05, 0x5dd5, 2), g[4];
	unsigned sent0, n;

	(void)state;
	join_settled(&a);
	join_settled(&b);
	sent0 = g_s.n_sent;
	specific_query(&a, 5000, 0);
	general_query(5000, 0);
	assert_int_equal(mld6_leave(&g_s.m, &a), 0);
	/* Left armed: the general answer and the leave's retransmission, not a's answer. */
	assert_int_equal(timerq_count(&g_s.tq), 2);
	run_until(g_s.now + 600 * SEC);
	for (unsigned i = sent0; i < g_s.n_sent; i++) {
		if (g_s.sent[i].msg[8] == TO_IN) {
			expect_one(i, TO_IN, &a);
			continue;
		}
		n = parse_report(i, IS_EX, g, 4);
		assert_int_equal(n, 1);
		assert_true(addr_eq(&g[0], &b));
	}
	assert_int_equal(g_s.n_sent, sent0 + 3);
}

/* MLDv1 queries (24 bytes, RFC 2710): answered with MLDv2 reports, delay in plain ms. */
static void test_v1_query(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1), b = mc(0x05, 0x5dd5, 2), any, all = addr_of("all-nodes"),
			g[4];
	uint8_t buf[24];
	unsigned sent0;
	int64_t t0, due;

	(void)state;
	join_settled(&a);
	join_settled(&b);
	sent0 = g_s.n_sent;
	t0 = g_s.now;
	g_s.rand_fixed = true;
	g_s.rand_value = UINT32_MAX;
	memset(&any, 0, sizeof(any));
	memset(buf, 0, sizeof(buf));
	buf[0] = 130;
	buf[4] = 0x9c; /* 40000 ms: linear in MLDv1, where §5.1.3's form would read it as exponential */
	buf[5] = 0x40;
	input(buf, sizeof(buf), &all);
	assert_true(timerq_next_due(&g_s.tq, &due));
	assert_int_equal(due, t0 + 40000 * MS);
	run_until(t0 + 40 * SEC);
	assert_int_equal(g_s.n_sent, sent0 + 1);
	assert_int_equal(parse_report(sent0, IS_EX, g, 4), 2);
	/* Group-specific. */
	buf[4] = 0;
	buf[5] = 100;
	memcpy(buf + 8, &b, 16);
	input(buf, sizeof(buf), &b);
	run_until(g_s.now + 600 * SEC);
	assert_int_equal(g_s.n_sent, sent0 + 2);
	expect_one(sent0 + 1, IS_EX, &b);
	assert_int_equal(g_s.m.robustness, 2);
	assert_int_equal(g_s.stats.mld_query_in, 2);
}

/* Sends one message to mld6_input and checks it was counted invalid and changed nothing else. */
static void expect_invalid(const struct in6_addr *src, uint8_t hlim, bool ra, const uint8_t *msg,
			   uint32_t len)
{
	struct in6_addr dst = addr_of("all-nodes");
	uint64_t drops = g_s.stats.drops[IP6S_DROP_MLD_INVALID], all = drops_total();
	uint64_t queries = g_s.stats.mld_query_in;
	size_t armed = timerq_count(&g_s.tq);
	unsigned sent = g_s.n_sent;
	uint32_t robustness = g_s.m.robustness;

	mld6_input(&g_s.m, src, &dst, hlim, ra, msg, len);
	assert_int_equal(g_s.stats.drops[IP6S_DROP_MLD_INVALID], drops + 1);
	assert_int_equal(drops_total(), all + 1);
	assert_int_equal(g_s.stats.mld_query_in, queries);
	assert_int_equal(timerq_count(&g_s.tq), armed);
	assert_int_equal(g_s.n_sent, sent);
	assert_int_equal(g_s.m.robustness, robustness);
}

static void test_invalid(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1), any, ll = addr_of("ll"), global = addr_of("global");
	struct in6_addr uni = addr_of("global"), dst = addr_of("all-nodes");
	uint8_t buf[128];
	uint32_t len;

	(void)state;
	join_settled(&a);
	memset(&any, 0, sizeof(any));
	/* Queries: each would set QRV 5 and arm an answer if it were taken. */
	len = make_query(buf, 1000, &any, 5, 0);
	expect_invalid(&ll, 2, true, buf, len);
	expect_invalid(&ll, 255, true, buf, len);
	expect_invalid(&ll, 0, true, buf, len);
	expect_invalid(&global, 1, true, buf, len);
	expect_invalid(&any, 1, true, buf, len);
	expect_invalid(&ll, 1, false, buf, len);
	expect_invalid(&ll, 1, true, buf, 0);
	expect_invalid(&ll, 1, true, buf, 3);
	expect_invalid(&ll, 1, true, buf, 20);
	expect_invalid(&ll, 1, true, buf, 23);
	expect_invalid(&ll, 1, true, buf, 25);
	expect_invalid(&ll, 1, true, buf, 26);
	expect_invalid(&ll, 1, true, buf, 27);
	/* Sources past the end: one claimed in 28 bytes, two in 44, 65535 in 60. */
	len = make_query(buf, 1000, &a, 5, 0);
	buf[27] = 1;
	expect_invalid(&ll, 1, true, buf, len);
	len = make_query(buf, 1000, &a, 5, 1);
	buf[27] = 2;
	expect_invalid(&ll, 1, true, buf, len);
	len = make_query(buf, 1000, &a, 5, 2);
	buf[26] = 0xff;
	buf[27] = 0xff;
	expect_invalid(&ll, 1, true, buf, len);
	/* A General Query with sources; a query for a unicast address. */
	len = make_query(buf, 1000, &a, 5, 1);
	memset(buf + 8, 0, 16);
	expect_invalid(&ll, 1, true, buf, len);
	len = make_query(buf, 1000, &uni, 5, 0);
	expect_invalid(&ll, 1, true, buf, len);
	/* Reports and Done: hop limit, Router Alert, source, length; an unknown type. */
	memset(buf, 0, sizeof(buf));
	buf[0] = 143;
	expect_invalid(&ll, 2, true, buf, 28);
	expect_invalid(&ll, 1, false, buf, 28);
	expect_invalid(&global, 1, true, buf, 28);
	expect_invalid(&ll, 1, true, buf, 6);
	buf[0] = 131;
	expect_invalid(&ll, 1, true, buf, 23);
	buf[0] = 132;
	expect_invalid(&ll, 64, true, buf, 24);
	buf[0] = 128;
	expect_invalid(&ll, 1, true, buf, 24);
	/* Valid messages of others: ignored, not counted. */
	buf[0] = 143;
	mld6_input(&g_s.m, &ll, &dst, 1, true, buf, 28);
	mld6_input(&g_s.m, &any, &dst, 1, true, buf, 8);
	buf[0] = 131;
	mld6_input(&g_s.m, &ll, &a, 1, true, buf, 24);
	buf[0] = 132;
	mld6_input(&g_s.m, &ll, &dst, 1, true, buf, 24);
	assert_int_equal(g_s.stats.drops[IP6S_DROP_MLD_INVALID], 25);
	assert_int_equal(drops_total(), 25);
	assert_int_equal(timerq_count(&g_s.tq), 0);
	/* Extra bytes after the sources are ignored; the query is taken. */
	len = make_query(buf, 1000, &a, 0, 1);
	input(buf, len + 8, &a);
	assert_int_equal(g_s.stats.mld_query_in, 1);
	assert_int_equal(timerq_count(&g_s.tq), 1);
	assert_int_equal(drops_total(), 25);
}

/* The querier's QRV becomes the robustness (§9.1); 0 keeps it. */
static void test_qrv(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1), b = mc(0x05, 0x5dd5, 2), c = mc(0x05, 0x5dd5, 3);
	unsigned sent0;

	(void)state;
	general_query(100, 3);
	assert_int_equal(g_s.m.robustness, 3);
	run_until(g_s.now + 10 * SEC);
	join_settled(&a);
	assert_int_equal(g_s.n_sent, 3);
	for (unsigned i = 0; i < 3; i++)
		expect_one(i, TO_EX, &a);
	assert_true(g_s.sent[1].at - g_s.sent[0].at <= SEC);
	assert_true(g_s.sent[2].at - g_s.sent[1].at <= SEC);
	general_query(100, 0);
	assert_int_equal(g_s.m.robustness, 3);
	run_until(g_s.now + 10 * SEC);
	sent0 = g_s.n_sent;
	join_settled(&b);
	assert_int_equal(g_s.n_sent, sent0 + 3);
	/* Robustness 1: no retransmission, and a leave frees the slot at once. */
	general_query(0xffff, 1);
	assert_int_equal(g_s.m.robustness, 1);
	sent0 = g_s.n_sent;
	assert_int_equal(mld6_join(&g_s.m, &c), 0);
	assert_int_equal(g_s.n_sent, sent0 + 1);
	assert_int_equal(mld6_leave(&g_s.m, &c), 0);
	assert_int_equal(g_s.n_sent, sent0 + 2);
	expect_one(sent0 + 1, TO_IN, &c);
	assert_int_equal(g_s.n_macs, 2);
	assert_int_equal(timerq_count(&g_s.tq), 1); /* the general answer alone */
}

/* References: only the first join and the last leave reach the filter and the wire. */
static void test_refcount(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1), b = mc(0x05, 0x5dd5, 2);
	struct ip6s_group_info info[4];

	(void)state;
	join_settled(&a);
	assert_int_equal(mld6_join(&g_s.m, &a), 0);
	assert_int_equal(mld6_join(&g_s.m, &a), 0);
	run_until(g_s.now + 10 * SEC);
	assert_int_equal(g_s.n_sent, 2);
	assert_int_equal(g_s.mac_adds, 1);
	assert_int_equal(mld6_groups(&g_s.m, info, 4), 1);
	assert_true(addr_eq(&info[0].addr, &a));
	assert_int_equal(info[0].refs, 3);
	assert_int_equal(mld6_leave(&g_s.m, &a), 0);
	assert_int_equal(mld6_leave(&g_s.m, &a), 0);
	assert_int_equal(g_s.n_sent, 2);
	assert_true(mld6_joined(&g_s.m, &a));
	assert_int_equal(mld6_groups(&g_s.m, info, 4), 1);
	assert_int_equal(info[0].refs, 1);
	assert_int_equal(mld6_leave(&g_s.m, &a), 0);
	assert_int_equal(g_s.n_sent, 3);
	expect_one(2, TO_IN, &a);
	assert_int_equal(mld6_leave(&g_s.m, &a), -ENOENT);
	assert_int_equal(mld6_leave(&g_s.m, &b), -ENOENT);
	run_until(g_s.now + 10 * SEC);
	assert_int_equal(g_s.n_macs, 0);
	assert_int_equal(g_s.mac_removes, 1);
}

/* A full table: -ENOSPC until a leaving slot has finished; bad groups and filter errors take no slot. */
static void test_table_full(void **state)
{
	struct in6_addr uni = addr_of("global"), extra = mc(0x05, 0x7777, 0), first = mc(0x05, 0x5dd5, 0);
	struct ip6s_group_info info[IP6S_MAX_GROUPS + 1];

	(void)state;
	assert_int_equal(mld6_join(&g_s.m, &uni), -EINVAL);
	g_s.mac_fail = -ENOBUFS;
	assert_int_equal(mld6_join(&g_s.m, &extra), -ENOBUFS);
	g_s.mac_fail = 0;
	assert_false(mld6_joined(&g_s.m, &extra));
	for (unsigned i = 0; i < IP6S_MAX_GROUPS; i++) {
		struct in6_addr g = mc(0x05, 0x5dd5, (uint16_t)i);

		assert_int_equal(mld6_join(&g_s.m, &g), 0);
	}
	assert_int_equal(mld6_groups(&g_s.m, info, IP6S_MAX_GROUPS + 1), IP6S_MAX_GROUPS);
	assert_int_equal(mld6_groups(&g_s.m, info, 5), 5);
	assert_int_equal(mld6_join(&g_s.m, &extra), -ENOSPC);
	assert_int_equal(mld6_join(&g_s.m, &first), 0);
	assert_int_equal(mld6_leave(&g_s.m, &first), 0);
	assert_int_equal(mld6_leave(&g_s.m, &first), 0);
	/* The leave is being reported: the slot is still taken. */
	assert_int_equal(mld6_join(&g_s.m, &extra), -ENOSPC);
	run_until(g_s.now + 10 * SEC);
	assert_int_equal(mld6_join(&g_s.m, &extra), 0);
	assert_int_equal(g_s.n_macs, IP6S_MAX_GROUPS);
}

/* Over max_records groups, the General Query answer is split; every group in exactly one record. */
static void test_split(void **state)
{
	struct in6_addr g[8];
	unsigned sent0, count[5] = {0}, sizes[3] = {2, 2, 1};

	(void)state;
	g_s.m.max_records = 2;
	for (unsigned i = 0; i < 5; i++) {
		struct in6_addr x = mc(0x05, 0x5dd5, (uint16_t)i);

		join_settled(&x);
	}
	sent0 = g_s.n_sent;
	general_query(1000, 0);
	run_until(g_s.now + 600 * SEC);
	assert_int_equal(g_s.n_sent, sent0 + 3);
	for (unsigned i = 0; i < 3; i++) {
		unsigned n = parse_report(sent0 + i, IS_EX, g, 8);

		assert_int_equal(n, sizes[i]);
		for (unsigned k = 0; k < n; k++) {
			assert_int_equal(g[k].s6_addr[13], 0xd5);
			assert_true(g[k].s6_addr[15] < 5);
			count[g[k].s6_addr[15]]++;
		}
	}
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(count[i], 1);
}

/* fini with every kind of timer armed leaves none. */
static void test_fini(void **state)
{
	struct in6_addr a = mc(0x05, 0x5dd5, 1), b = mc(0x05, 0x5dd5, 2), c = mc(0x05, 0x5dd5, 3);

	(void)state;
	join_settled(&a);
	join_settled(&b);
	assert_int_equal(mld6_join(&g_s.m, &c), 0);
	assert_int_equal(mld6_leave(&g_s.m, &b), 0);
	specific_query(&a, 5000, 0);
	general_query(5000, 0);
	assert_int_equal(timerq_count(&g_s.tq), 4);
	mld6_fini(&g_s.m);
	assert_int_equal(timerq_count(&g_s.tq), 0);
}

/*
 * Random joins, leaves, queries, starts and stops and time steps; after
 * every step each message sent is a well-formed report, and at the end,
 * every group left and the timers run out, no timer is armed and the
 * filter is empty.
 */
static void test_random(void **state)
{
	struct in6_addr groups[8];
	uint32_t refs[8] = {0};
	uint64_t x = 0x2545f4914f6cdd1dull;

	(void)state;
	for (unsigned i = 0; i < 8; i++)
		groups[i] = i == 7 ? addr_of("all-nodes") : mc(0x05, 0x5dd5, (uint16_t)i);
	for (unsigned step = 0; step < 20000; step++) {
		unsigned op, k;
		struct in6_addr out[IP6S_MAX_GROUPS];

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		op = (unsigned)(x % 8);
		k = (unsigned)((x >> 8) % 8);
		switch (op) {
		case 0:
		case 1:
			assert_int_equal(mld6_join(&g_s.m, &groups[k]), 0);
			refs[k]++;
			break;
		case 2:
		case 3:
			assert_int_equal(mld6_leave(&g_s.m, &groups[k]), refs[k] ? 0 : -ENOENT);
			if (refs[k])
				refs[k]--;
			break;
		case 4:
			general_query((uint16_t)(x >> 16), (uint8_t)(x >> 40));
			break;
		case 5:
			specific_query(&groups[k], (uint16_t)(x >> 16), (uint16_t)((x >> 40) % 3));
			break;
		case 6:
			g_s.running = !g_s.running;
			if (g_s.running)
				mld6_start(&g_s.m);
			break;
		default:
			run_until(g_s.now + (int64_t)((x >> 16) % 3000) * MS);
			break;
		}
		for (unsigned i = 0; i < 8; i++)
			assert_int_equal(mld6_joined(&g_s.m, &groups[i]), refs[i] > 0);
		for (unsigned i = 0; i < g_s.n_sent; i++) {
			uint8_t type = g_s.sent[i].msg[8];

			assert_true(type == TO_IN || type == TO_EX || type == IS_EX);
			parse_report(i, type, out, IP6S_MAX_GROUPS);
		}
		g_s.n_sent = 0;
	}
	g_s.running = true;
	for (unsigned i = 0; i < 8; i++)
		while (refs[i]-- > 0)
			assert_int_equal(mld6_leave(&g_s.m, &groups[i]), 0);
	run_until(g_s.now + 3600 * SEC * 3);
	assert_int_equal(timerq_count(&g_s.tq), 0);
	assert_int_equal(g_s.n_macs, 0);
	assert_int_equal(g_s.mac_adds, g_s.mac_removes);
	assert_int_equal(drops_total(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_join_reports, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_join_delay_bound, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_leave_reports, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_join_during_leave, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_leave_during_join, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_start_reports, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_never_reported, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_general_query, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_max_resp_code, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_general_query_sooner, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_specific_query, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_specific_query_rules, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_leave_cancels_answer, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_v1_query, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_invalid, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_qrv, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refcount, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_table_full, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_split, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fini, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_random, setup, teardown),
	};

	return cmocka_run_group_tests_name("ip6_mld6", tests, NULL, NULL);
}
