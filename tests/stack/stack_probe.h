/* SPDX-License-Identifier: MIT */
/*
 * stack_probe.h - what the `stack` suite's tests use to look at sddsd's
 * own IPv6 stack from the kernel's side of its TAP device: raw Ethernet
 * frames in and out (AF_PACKET on the kernel end of the TAP), ICMPv6 echo
 * through the kernel's stack, `sddsctl stack --json` readings, the
 * kernel's neighbor table and a bridge's multicast database, and a pcap
 * file reader.
 *
 * OVERVIEW
 * Sockets are opened inside a namespace of the rig (netns_rig.h) by the
 * calling thread entering it and coming back to the namespace it started
 * in; a socket stays in the namespace it was made in. Frames are built and
 * parsed here by hand (RFC 8200 header, RFC 8200 §8.1 pseudo-header
 * checksum for UDP and ICMPv6) so that a test can send what no socket
 * would: a wrong checksum, a forged source. Single-threaded; every
 * function returns 0 or -errno (or a count) and never exits the test.
 */
#ifndef SDDS_TESTS_STACK_PROBE_H
#define SDDS_TESTS_STACK_PROBE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "netns_harness.h"

#define PROBE_ETH_HLEN 14u
#define PROBE_IP6_HLEN 40u
#define PROBE_NH_HOPOPTS 0u
#define PROBE_NH_UDP 17u
#define PROBE_NH_ICMP6 58u

/*
 * Fails the running CMocka test (the caller includes cmocka.h) with a
 * message, after dump (sddsctl's JSON, longer than CMocka's message
 * buffer) on stderr.
 */
#define probe_fail(dump, ...)                                                                                \
	do {                                                                                                 \
		fprintf(stderr, "%s\n", (dump));                                                             \
		fail_msg(__VA_ARGS__);                                                                       \
	} while (0)

/* A parsed IPv6 frame: pointers into the caller's frame. */
struct probe_pkt {
	const uint8_t *dmac, *smac;
	struct in6_addr src, dst;
	uint8_t hlim;
	uint8_t nh;	   /* the upper protocol, after a hop-by-hop header when there is one */
	const uint8_t *l4; /* its header */
	size_t l4_len;	   /* as the IPv6 payload length says, less the hop-by-hop header */
};

/* Parses an Ethernet II frame holding IPv6 (EtherType 0x86dd); false when it is not one or is short. */
bool probe_parse(const uint8_t *frame, size_t len, struct probe_pkt *ret);

/* The RFC 8200 §8.1 checksum of an upper-layer message l4 (its checksum field taken as it is). */
uint16_t probe_cksum(const struct in6_addr *src, const struct in6_addr *dst, uint8_t nh, const uint8_t *l4,
		     size_t len);

/*
 * Builds Ethernet + IPv6 + l4 (len bytes, next header nh, hop limit hlim)
 * into out (cap bytes) and, for UDP and ICMPv6, writes the correct checksum
 * into the copy of l4. The frame's length, or 0 when cap is too small.
 */
size_t probe_frame(uint8_t *out, size_t cap, const uint8_t dmac[6], const uint8_t smac[6],
		   const struct in6_addr *src, const struct in6_addr *dst, uint8_t nh, uint8_t hlim,
		   const uint8_t *l4, size_t len);

/*
 * An AF_PACKET socket for every EtherType on ifname in side's namespace,
 * non-blocking; its ifindex and MAC into *ret_ifindex and ret_mac (either
 * may be NULL). The fd (the caller's) or -errno.
 */
int probe_raw_open(int side, const char *ifname, int *ret_ifindex, uint8_t ret_mac[6]);
/* Sends one whole frame out of ifindex (to the device: the TAP hands it to its reader). 0 or -errno. */
int probe_raw_send(int fd, int ifindex, const uint8_t *frame, size_t len);
/* The next frame within ms: its length, 0 on timeout, -errno. *pkttype (may be NULL): PACKET_HOST etc. */
ssize_t probe_raw_recv(int fd, uint8_t *buf, size_t cap, int ms, int *pkttype);

/*
 * The kernel pings dst (scope ifname, in side's namespace) through its own
 * ICMPv6 socket: count echo requests, one every 200 ms, each waiting up to
 * ms for its reply. The number of matching replies from dst, or -errno.
 */
int probe_ping(int side, const char *ifname, const struct in6_addr *dst, int count, int ms);

/*
 * Starts a further sddsd in side's namespace (the rig runs one per side):
 * `sddsd --socket DIR/NAME.sock -c DIR/NAME.conf`, its output to
 * DIR/NAME.log, killed with this process; waits for its socket. 0 with
 * *ret_pid (the caller's, to stop with probe_daemon_stop), or -errno.
 */
int probe_daemon_start(int side, const char *sddsd, const char *name, pid_t *ret_pid);
/* SIGTERM, SIGKILL after 2 s, reaped. Nothing when pid <= 0. */
void probe_daemon_stop(pid_t pid);

/* "02:00:5e:10:00:01" into mac; false when it is not one. */
bool probe_mac_parse(const char *text, uint8_t mac[6]);
/* fe80:: + the EUI-64 of mac (RFC 4291 appendix A). */
void probe_eui64_ll(const uint8_t mac[6], struct in6_addr *ret);

/*
 * `sddsctl stack --json` in side's namespace, parsed: the object of link
 * 0 in its "stack" array, a new reference the caller puts with
 * probe_stack_put(); NULL when sddsctl fails or the output has no link.
 * raw (may be NULL) gets the text, for failure messages.
 */
struct json_object *probe_stack_link(int side, const char *sddsctl, char *raw, size_t cap);
/* The same for the daemon whose socket is DIR/sock (name) in side's namespace. */
struct json_object *probe_stack_link_of(int side, const char *sddsctl, const char *sock, char *raw,
					size_t cap);
void probe_stack_put(struct json_object *link);
/* The state of address addr in link's "addresses" ("preferred"...), or NULL when absent. */
const char *probe_stack_addr_state(struct json_object *link, const struct in6_addr *addr);
/* The neighbor entry of addr in link's "neighbors", or NULL. */
struct json_object *probe_stack_neigh(struct json_object *link, const struct in6_addr *addr);
/* A string member of o, or "" when absent. */
const char *probe_str(struct json_object *o, const char *key);
/* link's "counters" (or "drops", "pool") member key; 0 when absent. */
uint64_t probe_stack_u64(struct json_object *link, const char *group, const char *key);
/* Whether link's "groups" holds group. */
bool probe_stack_has_group(struct json_object *link, const struct in6_addr *group);

/*
 * The kernel's neighbor entry of addr on dev in side's namespace (`ip -6
 * neigh show`): its lladdr into mac and its state word ("REACHABLE") into
 * state (cap bytes). false when there is none.
 */
bool probe_kernel_neigh(int side, const char *dev, const struct in6_addr *addr, uint8_t mac[6], char *state,
			size_t cap);
/* The first link-local address of dev in side's namespace (`ip -6 addr show`); false when none. */
bool probe_kernel_ll(int side, const char *dev, struct in6_addr *ret);

/* Whether `bridge mdb show dev br` in side's namespace lists group on port. */
bool probe_mdb_has(int side, const char *br, const char *port, const struct in6_addr *group);

/* Calls fn for each record of the pcap file at path; the record count or -errno (bad file: -EBADMSG). */
int probe_pcap_each(const char *path, void (*fn)(void *ctx, const uint8_t *frame, size_t len), void *ctx,
		    uint32_t *ret_linktype);

#endif /* SDDS_TESTS_STACK_PROBE_H */
