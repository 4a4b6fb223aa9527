/* SPDX-License-Identifier: MIT */
/*
 * mld6.h - MLDv2 (RFC 3810) for the stack: the multicast listener part of
 * a host. Internal to lib/ip6 (stack.h is the public face).
 *
 * OVERVIEW
 * The stack keeps one struct mld6 (in struct ip6s). Groups are reference
 * counted here; mld6 tells the device filter and the wire. A join or a
 * leave (the first reference, the last) sends a State Change Report at
 * once and retransmits it robustness - 1 more times at random intervals
 * within the Unsolicited Report Interval (§6.1; robustness 2, interval 1 s
 * by default); a General Query (§5.1.3) is answered with one Current State
 * Report of every group after a random delay within its Maximum Response
 * Delay, a Multicast-Address-Specific Query for a joined group with that
 * group's record. ff02::1 (all-nodes) is never reported (§6). Reports go to
 * ff02::16 with hop limit 1 and a Router Alert option (the stack's
 * ip6s_mld_send does the IPv6 part), from the link-local address, or from
 * :: while it is tentative (§5.2.13).
 *
 * Bad input: the stack's icmp6.c verified the checksum; mld6_input checks
 * the rest (hop limit 1, link-local source, Router Alert present, lengths
 * against the message, the number of sources) and counts a failure as
 * IP6S_DROP_MLD_INVALID. Reports from other listeners are ignored (a
 * host's MLDv2 does not suppress its own).
 *
 * Memory: the table below, nothing else. Timers on the stack's queue.
 */
#ifndef SDDS_IP6_MLD6_H
#define SDDS_IP6_MLD6_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include <timerq/timerq.h>

#include <ip6/stack.h>

struct ip6s;

/*
 * One slot of the group table. A slot is used while the group is joined
 * (refs > 0) or while its leave is still being reported (refs 0, leaving);
 * the MAC leaves the device filter at the last leave, since the group's
 * traffic is no longer wanted while the leave is retransmitted.
 */
struct mld6_group {
	struct in6_addr addr;
	uint32_t refs; /* joins less leaves */
	bool used;     /* the slot holds addr (joined, or leaving) */
	bool mac_in;   /* the group's MAC is in the device filter (from the first join to the last leave) */
	bool change_is_join;	      /* the pending change: join (TO_EX {}) or leave (TO_IN {}) */
	uint8_t change_left;	      /* State Change Report retransmissions still to send */
	struct mld6 *m;		      /* back to the owner, for the timer callbacks */
	struct timerq_timer change_t; /* next State Change retransmission */
	struct timerq_timer query_t;  /* Multicast-Address-Specific Query answer */
};

/* Records per Report: a 1280-byte IPv6 minimum MTU less 40 (IPv6), 8 (Router Alert), 8 (MLD header). */
#define MLD6_REPORT_MAX_RECORDS 61u

struct mld6 {
	struct ip6s *s;
	struct mld6_group groups[IP6S_MAX_GROUPS];
	struct timerq_timer general_t; /* General Query answer */
	uint32_t robustness;	       /* RFC 3810 §9.1: 2, or the querier's QRV */
	uint32_t max_records;	       /* records per Report: MLD6_REPORT_MAX_RECORDS (tests lower it) */
};

/* Readies m for stack s (nothing sent). */
void mld6_init(struct mld6 *m, struct ip6s *s);
/* Cancels m's timers; sends nothing. */
void mld6_fini(struct mld6 *m);
/*
 * Adds a reference to group (a multicast address): the first one adds the
 * MAC to the device filter and, once the stack runs, reports (never for
 * ff02::1 or a reserved or interface-local scope, RFC 3810 §6). -EINVAL
 * (not multicast), -ENOSPC (table full), -EOVERFLOW (2^32 - 1 references),
 * or ip6s_mac_filter's error.
 */
int mld6_join(struct mld6 *m, const struct in6_addr *group);
/* Drops a reference; the last one reports the leave and removes the MAC. -ENOENT. */
int mld6_leave(struct mld6 *m, const struct in6_addr *group);
/*
 * The stack started, or the link came back up: report every joined group
 * again as a State Change (RFC 3810 §6.1 on interface start).
 */
void mld6_start(struct mld6 *m);
/* Whether group is joined (ip6.c's destination check). */
bool mld6_joined(const struct mld6 *m, const struct in6_addr *group);
/*
 * One received MLD message (ICMPv6 type 130 query, 131/143 reports, 132
 * done), checksum already verified: msg is the ICMPv6 message, len its
 * length, src/dst/hlim from the IPv6 header, router_alert whether a
 * Hop-by-Hop Router Alert (value 0, MLD) came with it.
 */
void mld6_input(struct mld6 *m, const struct in6_addr *src, const struct in6_addr *dst, uint8_t hlim,
		bool router_alert, const uint8_t *msg, uint32_t len);
/* The joined groups, for ip6s_groups. */
unsigned mld6_groups(const struct mld6 *m, struct ip6s_group_info *out, unsigned n);

/* What the stack core (stack.c, icmp6.c, eth.c) gives mld6.c. */
/*
 * Sends an MLD message (msg: ICMPv6 type, code, checksum 0, body) to dst
 * (ff02::16 for reports) with hop limit 1 and a Hop-by-Hop Router Alert,
 * from the link-local address or :: while it is tentative; the core fills
 * the checksum and counts mld_report_out. -ENOBUFS, -EMSGSIZE.
 */
int ip6s_mld_send(struct ip6s *s, const struct in6_addr *dst, const uint8_t *msg, uint32_t len);
/* Adds or removes the group's 33:33 MAC in the device filter. */
int ip6s_mac_filter(struct ip6s *s, const struct in6_addr *group, bool add);
/* Whether the stack runs (ip6s_start called, link up): reports wait otherwise. */
bool ip6s_running(const struct ip6s *s);
int64_t ip6s_now(const struct ip6s *s);
uint32_t ip6s_random(const struct ip6s *s);
struct timerq *ip6s_tq(const struct ip6s *s);
void ip6s_count_drop(struct ip6s *s, enum ip6s_drop why);
/* The stack's counters, writable (mld_query_in). */
struct ip6s_stats *ip6s_stats_mut(struct ip6s *s);

#endif /* SDDS_IP6_MLD6_H */
