/* SPDX-License-Identifier: MIT */
/*
 * mld6.c - MLDv2 (RFC 3810), the host side: the groups this stack listens
 * to, told to the device filter and to the link's multicast routers.
 *
 * OVERVIEW
 * Every group is an EXCLUDE {} listener (any source): sDDS never asks for
 * source filtering, so the only records ever sent are CHANGE_TO_EXCLUDE_MODE
 * {} (join), CHANGE_TO_INCLUDE_MODE {} (leave) and MODE_IS_EXCLUDE {} (the
 * current state, in answers to queries), each with no sources.
 *
 * The table (struct mld6.groups) is fixed. A slot is used from the first
 * join until its leave has been reported robustness times; meanwhile the
 * MAC stays in the device filter and the slot can be joined again, which
 * turns the pending leave into a pending join (RFC 3810 §6.1: a new state
 * change replaces the one being retransmitted, and the count starts over).
 *
 * Timers, all on the stack's queue, in ns, with millisecond jitter:
 *   change_t   per group: the next State Change retransmission (§6.1);
 *   query_t    per group: the answer to a Multicast-Address-Specific Query;
 *   general_t  the answer to a General Query (§6.2).
 * A slot's timers are idle whenever the slot is free, and mld6_fini
 * cancels all of them.
 *
 * Reports are built on the stack (at most MLD6_REPORT_MAX_RECORDS records,
 * 1228 bytes) and handed to ip6s_mld_send, which adds the IPv6 header, the
 * Router Alert and the checksum. A failed send is not retried: the next
 * retransmission or query covers it, as for a lost packet.
 *
 * MLDv1 (RFC 2710) queries are answered with MLDv2 reports; the MLDv1
 * compatibility mode of RFC 3810 §8 (Older Version Querier Present timer,
 * v1 reports and Done messages) is not implemented.
 *
 * Bad input: mld6_input trusts nothing but the checksum (icmp6.c's). A
 * message failing a check is counted as IP6S_DROP_MLD_INVALID and has no
 * other effect.
 *
 * Threads: none; the stack's owner serialises every call.
 * Errors: 0 or -errno.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mld6.h"

/* ICMPv6 types (RFC 3810 §5, RFC 2710 §3). */
#define MLD6_QUERY 130u
#define MLD6_V1_REPORT 131u
#define MLD6_V1_DONE 132u
#define MLD6_V2_REPORT 143u

/* Multicast Address Record types (RFC 3810 §5.2.12). */
#define MLD6_MODE_IS_EXCLUDE 2u
#define MLD6_CHANGE_TO_INCLUDE 3u
#define MLD6_CHANGE_TO_EXCLUDE 4u

/* Lengths: MLDv1 message (RFC 2710 §3), MLDv2 query without sources (§5.1), report header and record (§5.2).
 */
#define MLD6_V1_LEN 24u
#define MLD6_V2_QUERY_LEN 28u
#define MLD6_REPORT_HDR_LEN 8u
#define MLD6_RECORD_LEN 20u

/* RFC 3810 §9.1 Robustness Variable, §9.11 Unsolicited Report Interval (ms). */
#define MLD6_ROBUSTNESS 2u
#define MLD6_UNSOLICITED_MS 1000u

#define MLD6_NS_PER_MS 1000000

/* ff02::16, all MLDv2-capable routers: where every report goes (§5.2.14). */
static const struct in6_addr mld6_all_routers = {
    .s6_addr = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x16}};

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static bool is_multicast(const struct in6_addr *a)
{
	return a->s6_addr[0] == 0xff;
}

static bool is_unspecified(const struct in6_addr *a)
{
	static const struct in6_addr any;

	return memcmp(a, &any, sizeof(any)) == 0;
}

/* fe80::/10 (RFC 4291 §2.5.6). */
static bool is_linklocal(const struct in6_addr *a)
{
	return a->s6_addr[0] == 0xfe && (a->s6_addr[1] & 0xc0) == 0x80;
}

/*
 * RFC 3810 §6: no MLD message for ff02::1 (every node listens to it, so
 * routers need not be told) nor for scopes 0 (reserved) and 1
 * (interface-local), which never leave the node.
 */
static bool is_reported(const struct in6_addr *a)
{
	static const struct in6_addr all_nodes = {
	    .s6_addr = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};
	unsigned scope = a->s6_addr[1] & 0x0f;

	return scope > 1 && memcmp(a, &all_nodes, sizeof(all_nodes)) != 0;
}

/* A random delay in [0, max_ms] ms, in ns: max_ms is at most 2^23 (§5.1.3), so the product fits. */
static int64_t random_delay(const struct mld6 *m, uint32_t max_ms)
{
	uint64_t ms = ((uint64_t)ip6s_random(m->s) * ((uint64_t)max_ms + 1)) >> 32;

	return (int64_t)ms * MLD6_NS_PER_MS;
}

static struct mld6_group *find(struct mld6 *m, const struct in6_addr *group)
{
	for (unsigned i = 0; i < IP6S_MAX_GROUPS; i++) {
		struct mld6_group *g = &m->groups[i];

		if (g->used && memcmp(&g->addr, group, sizeof(*group)) == 0)
			return g;
	}
	return NULL;
}

/*
 * A Report (RFC 3810 §5.2): type 143, code (reserved) 0, checksum 0 for
 * the core to fill, 16 reserved bits, the record count, then the records
 * already written at buf + MLD6_REPORT_HDR_LEN. Sent only while the stack
 * runs (ip6s_running); otherwise the change waits for mld6_start.
 */
static void send_report(struct mld6 *m, uint8_t *buf, uint32_t n_records)
{
	if (n_records == 0 || !ip6s_running(m->s))
		return;
	buf[0] = MLD6_V2_REPORT;
	buf[1] = 0;
	put16(buf + 2, 0);
	put16(buf + 4, 0);
	put16(buf + 6, (uint16_t)n_records);
	/* A failure (no buffer) is a lost report: retransmissions and queries cover it. */
	(void)ip6s_mld_send(m->s, &mld6_all_routers, buf, MLD6_REPORT_HDR_LEN + n_records * MLD6_RECORD_LEN);
}

/* Record type, aux data length 0, no sources, the group (§5.2.4 to §5.2.8). */
static void put_record(uint8_t *p, uint8_t type, const struct in6_addr *group)
{
	p[0] = type;
	p[1] = 0;
	put16(p + 2, 0);
	memcpy(p + 4, group, sizeof(*group));
}

static void send_one(struct mld6 *m, uint8_t type, const struct in6_addr *group)
{
	uint8_t buf[MLD6_REPORT_HDR_LEN + MLD6_RECORD_LEN];

	put_record(buf + MLD6_REPORT_HDR_LEN, type, group);
	send_report(m, buf, 1);
}

/* Returns the slot to the table: timers idle, MAC out of the filter. */
static void free_slot(struct mld6 *m, struct mld6_group *g)
{
	timerq_cancel(ip6s_tq(m->s), &g->change_t);
	timerq_cancel(ip6s_tq(m->s), &g->query_t);
	if (g->mac_in)
		(void)ip6s_mac_filter(m->s, &g->addr, false);
	g->mac_in = false;
	g->used = false;
	g->refs = 0;
	g->change_left = 0;
}

/*
 * A state change of g (join or leave, §6.1): the State Change Report now,
 * then robustness - 1 retransmissions at random intervals within the
 * Unsolicited Report Interval. Whatever change was pending is replaced.
 * A leave with nothing left to retransmit frees the slot at once.
 */
static void state_change(struct mld6 *m, struct mld6_group *g, bool join)
{
	struct timerq *tq = ip6s_tq(m->s);

	g->change_is_join = join;
	g->change_left = 0;
	timerq_cancel(tq, &g->change_t);
	if (!is_reported(&g->addr) || !ip6s_running(m->s)) {
		/* Nothing goes on the wire: a leave is complete now. */
		if (!join)
			free_slot(m, g);
		return;
	}
	send_one(m, join ? MLD6_CHANGE_TO_EXCLUDE : MLD6_CHANGE_TO_INCLUDE, &g->addr);
	g->change_left = (uint8_t)(m->robustness - 1);
	if (g->change_left > 0)
		timerq_arm(tq, &g->change_t, ip6s_now(m->s) + random_delay(m, MLD6_UNSOLICITED_MS));
	else if (!join)
		free_slot(m, g);
}

static void change_cb(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct mld6_group *g = TIMERQ_CONTAINER_OF(t, struct mld6_group, change_t);
	struct mld6 *m = g->m;

	send_one(m, g->change_is_join ? MLD6_CHANGE_TO_EXCLUDE : MLD6_CHANGE_TO_INCLUDE, &g->addr);
	if (g->change_left > 0)
		g->change_left--;
	if (g->change_left > 0)
		timerq_arm(q, &g->change_t, now + random_delay(m, MLD6_UNSOLICITED_MS));
	else if (!g->change_is_join)
		free_slot(m, g);
}

/*
 * The answer to a Multicast-Address-Specific Query: the group's current
 * state (§6.3). query_t is armed only while the group is joined: the last
 * leave cancels it.
 */
static void query_cb(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct mld6_group *g = TIMERQ_CONTAINER_OF(t, struct mld6_group, query_t);

	(void)q;
	(void)now;
	send_one(g->m, MLD6_MODE_IS_EXCLUDE, &g->addr);
}

/*
 * The answer to a General Query (§6.3): one Current State Report with a
 * MODE_IS_EXCLUDE {} record per joined, reported group, split into as many
 * messages as max_records requires.
 */
static void general_cb(struct timerq *q, struct timerq_timer *t, int64_t now)
{
	struct mld6 *m = TIMERQ_CONTAINER_OF(t, struct mld6, general_t);
	uint8_t buf[MLD6_REPORT_HDR_LEN + MLD6_REPORT_MAX_RECORDS * MLD6_RECORD_LEN];
	uint32_t n = 0, max = m->max_records;

	(void)q;
	(void)now;
	if (max == 0 || max > MLD6_REPORT_MAX_RECORDS)
		max = MLD6_REPORT_MAX_RECORDS;
	for (unsigned i = 0; i < IP6S_MAX_GROUPS; i++) {
		const struct mld6_group *g = &m->groups[i];

		if (!g->used || g->refs == 0 || !is_reported(&g->addr))
			continue;
		put_record(buf + MLD6_REPORT_HDR_LEN + n * MLD6_RECORD_LEN, MLD6_MODE_IS_EXCLUDE, &g->addr);
		if (++n == max) {
			send_report(m, buf, n);
			n = 0;
		}
	}
	send_report(m, buf, n);
}

void mld6_init(struct mld6 *m, struct ip6s *s)
{
	memset(m, 0, sizeof(*m));
	m->s = s;
	m->robustness = MLD6_ROBUSTNESS;
	m->max_records = MLD6_REPORT_MAX_RECORDS;
	timerq_timer_init(&m->general_t, general_cb);
	for (unsigned i = 0; i < IP6S_MAX_GROUPS; i++) {
		m->groups[i].m = m;
		timerq_timer_init(&m->groups[i].change_t, change_cb);
		timerq_timer_init(&m->groups[i].query_t, query_cb);
	}
}

void mld6_fini(struct mld6 *m)
{
	struct timerq *tq = ip6s_tq(m->s);

	timerq_cancel(tq, &m->general_t);
	for (unsigned i = 0; i < IP6S_MAX_GROUPS; i++) {
		timerq_cancel(tq, &m->groups[i].change_t);
		timerq_cancel(tq, &m->groups[i].query_t);
	}
}

int mld6_join(struct mld6 *m, const struct in6_addr *group)
{
	struct mld6_group *g;
	int err;

	if (!is_multicast(group))
		return -EINVAL;
	g = find(m, group);
	if (g && g->refs > 0) {
		if (g->refs == UINT32_MAX)
			return -EOVERFLOW;
		g->refs++;
		return 0;
	}
	if (!g) {
		for (unsigned i = 0; i < IP6S_MAX_GROUPS && !g; i++)
			if (!m->groups[i].used)
				g = &m->groups[i];
		if (!g)
			return -ENOSPC;
		g->addr = *group;
	}
	/* A first join, or a join while the leave is still being reported: the MAC goes back in. */
	if (!g->mac_in) {
		err = ip6s_mac_filter(m->s, group, true);
		if (err < 0)
			return err;
		g->mac_in = true;
	}
	g->used = true;
	g->refs = 1;
	state_change(m, g, true);
	return 0;
}

int mld6_leave(struct mld6 *m, const struct in6_addr *group)
{
	struct mld6_group *g = find(m, group);

	if (!g || g->refs == 0)
		return -ENOENT;
	if (--g->refs > 0)
		return 0;
	/* Not a listener any more: a pending query answer would report a state we left. */
	timerq_cancel(ip6s_tq(m->s), &g->query_t);
	/* The group's traffic stops at once; only the leave's retransmissions keep the slot. */
	(void)ip6s_mac_filter(m->s, &g->addr, false);
	g->mac_in = false;
	state_change(m, g, false);
	return 0;
}

void mld6_start(struct mld6 *m)
{
	for (unsigned i = 0; i < IP6S_MAX_GROUPS; i++) {
		struct mld6_group *g = &m->groups[i];

		if (g->used && g->refs > 0)
			state_change(m, g, true);
	}
}

bool mld6_joined(const struct mld6 *m, const struct in6_addr *group)
{
	for (unsigned i = 0; i < IP6S_MAX_GROUPS; i++) {
		const struct mld6_group *g = &m->groups[i];

		if (g->used && g->refs > 0 && memcmp(&g->addr, group, sizeof(*group)) == 0)
			return true;
	}
	return false;
}

unsigned mld6_groups(const struct mld6 *m, struct ip6s_group_info *out, unsigned n)
{
	unsigned k = 0;

	for (unsigned i = 0; i < IP6S_MAX_GROUPS && k < n; i++) {
		const struct mld6_group *g = &m->groups[i];

		if (!g->used || g->refs == 0)
			continue;
		out[k].addr = g->addr;
		out[k].refs = g->refs;
		k++;
	}
	return k;
}

/*
 * Maximum Response Code to ms (§5.1.3): below 32768 it is the delay; above,
 * a floating-point form, mantissa (12 bits, with an implied 13th) shifted
 * by exponent + 3. The largest is 0x1fff << 10 = 8387584 ms.
 */
static uint32_t max_resp_ms(uint16_t code)
{
	uint32_t exp, mant;

	if (code < 0x8000)
		return code;
	exp = (code >> 12) & 0x7;
	mant = code & 0x0fff;
	return (mant | 0x1000) << (exp + 3);
}

/*
 * Schedules the answer to a query after a random delay within max_ms,
 * by the four rules of RFC 3810 §6.2. Source lists play no part: an
 * EXCLUDE {} listener answers a Multicast Address and Source Specific
 * Query with its whole state, MODE_IS_EXCLUDE {}, which tells the router
 * no less than the record §6.3 asks for.
 */
static void schedule_answer(struct mld6 *m, const struct in6_addr *group, uint32_t max_ms)
{
	struct timerq *tq = ip6s_tq(m->s);
	int64_t due = ip6s_now(m->s) + random_delay(m, max_ms);
	struct mld6_group *g;

	/* Rule 1: a General Query answer due sooner covers this query too. */
	if (timerq_armed(&m->general_t) && timerq_timer_due(&m->general_t) <= due)
		return;
	/* Rule 2: a General Query replaces the pending answer to the previous one. */
	if (is_unspecified(group)) {
		timerq_arm(tq, &m->general_t, due);
		return;
	}
	/* A query for a group we do not listen to needs no answer. */
	g = find(m, group);
	if (!g || g->refs == 0 || !is_reported(group))
		return;
	/* Rules 3 and 4: the group's answer at the earlier of the pending one and the new delay. */
	if (timerq_armed(&g->query_t) && timerq_timer_due(&g->query_t) <= due)
		return;
	timerq_arm(tq, &g->query_t, due);
}

/*
 * A Multicast Listener Query (§5.1, RFC 2710 §3.6 for MLDv1): 24 bytes is
 * MLDv1, 28 or more MLDv2 with its sources, anything else is invalid
 * (§8.1). Bytes after the last source are ignored, as IGMPv3 (RFC 3376
 * §4.1.10) does for the same layout. A General Query carries no sources
 * (§5.1.10) and a specific one a multicast address. The destination is
 * not checked: §5.1.15 asks a node to process a query sent to any of its
 * addresses, and the core delivered only those.
 */
static bool query_input(struct mld6 *m, const uint8_t *msg, uint32_t len)
{
	struct in6_addr group;
	uint32_t max_ms;

	if (len != MLD6_V1_LEN && len < MLD6_V2_QUERY_LEN)
		return false;
	memcpy(&group, msg + 8, sizeof(group));
	if (!is_unspecified(&group) && !is_multicast(&group))
		return false;
	if (len == MLD6_V1_LEN) {
		/* RFC 2710 §3.4: Maximum Response Delay in ms, no exponential form, no QRV. */
		max_ms = get16(msg + 4);
	} else {
		uint16_t n_src = get16(msg + 26);
		uint8_t qrv = msg[24] & 0x7;

		if ((uint32_t)n_src * 16u > len - MLD6_V2_QUERY_LEN)
			return false;
		if (n_src > 0 && is_unspecified(&group))
			return false;
		max_ms = max_resp_ms(get16(msg + 4));
		/* §5.1.8 and §9.1: a host adopts the querier's QRV; 0 means the querier sent none. */
		if (qrv != 0)
			m->robustness = qrv;
	}
	ip6s_stats_mut(m->s)->mld_query_in++;
	schedule_answer(m, &group, max_ms);
	return true;
}

/*
 * Reports and Dones of other nodes (§5.2, RFC 2710 §3): a host does not
 * suppress its own reports in MLDv2 (§6), so they are only checked for
 * length and ignored. A report's Nr of Records is not walked: nothing
 * here reads them.
 */
static bool other_input(uint8_t type, uint32_t len)
{
	if (type == MLD6_V2_REPORT)
		return len >= MLD6_REPORT_HDR_LEN;
	return len >= MLD6_V1_LEN;
}

void mld6_input(struct mld6 *m, const struct in6_addr *src, const struct in6_addr *dst, uint8_t hlim,
		bool router_alert, const uint8_t *msg, uint32_t len)
{
	bool ok;
	uint8_t type;

	(void)dst;
	/*
	 * §5.1.14, §5.2.13, §7: every MLD message comes with hop limit 1, a
	 * Router Alert and a link-local source; a report may come from ::
	 * while its sender's link-local address is tentative.
	 */
	if (len < 4 || hlim != 1 || !router_alert)
		goto invalid;
	type = msg[0];
	if (!is_linklocal(src) && !(type != MLD6_QUERY && is_unspecified(src)))
		goto invalid;
	switch (type) {
	case MLD6_QUERY:
		ok = query_input(m, msg, len);
		break;
	case MLD6_V1_REPORT:
	case MLD6_V1_DONE:
	case MLD6_V2_REPORT:
		ok = other_input(type, len);
		break;
	default:
		ok = false;
		break;
	}
	if (ok)
		return;
invalid:
	ip6s_count_drop(m->s, IP6S_DROP_MLD_INVALID);
}
