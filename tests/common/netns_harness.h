/* SPDX-License-Identifier: MIT */
/*
 * netns_harness.h - the fixture of the network-namespace tests: the rig of
 * tools/common/netns_rig.h (namespaces, veth pair, daemons, helpers,
 * nftables loss), and what only the tests need on top: the test domain's
 * topics, `sddsctl --json` readings, a CMocka group teardown.
 *
 * OVERVIEW
 * netns_net_counter() fails the running CMocka test when sddsctl fails: it
 * may only be called from inside a test.
 */
#ifndef SDDS_TESTS_NETNS_HARNESS_H
#define SDDS_TESTS_NETNS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netns_rig.h"

/* A CMocka group teardown that is netns_cleanup(). Always 0. */
int netns_group_teardown(void **state);

/* The reliability <config/> of a topic: seqnr size basic|big, confirmation ack|nack. */
#define NETNS_QOS_RELIABLE(size, confirmation)                                                               \
	"<config type=\"qos_reliability\" reliabilitySeqnrSize=\"" size "\" kind=\"reliable\" "              \
	"confirmationtype=\"" confirmation "\" max_blocking_time=\"100\"/>"

/*
 * Writes DIR/topics.xml, the domain 1 of the netns tests: topic
 * "temperature" (id A, domain 1: device key, value) and topic "counter"
 * (id B, domain 2: seq, tag of 7 bytes), each with its <config/> line
 * (NULL: none, best effort). 0 or -1.
 */
int netns_write_topics(const char *temperature_config, const char *counter_config);

/*
 * json is sddsctl's --json output, parsed here with json-c. The number of
 * the first member named key in document order (depth first), or 0 when
 * there is none, it is not a number or json does not parse.
 */
uint64_t netns_json_u64(const char *json, const char *key);
/* Whether some member named key has value (as a scalar prints: "23254"); any value when value is NULL. */
bool netns_json_has(const char *json, const char *key, const char *value);
/* The number key of the peer with address in `sddsctl peers` output, or 0 as netns_json_u64. */
uint64_t netns_json_peer_u64(const char *json, const char *address, const char *key);
/* Whether the peer with address has member key printing as value (false when no such peer or key). */
bool netns_json_peer_is(const char *json, const char *address, const char *key, const char *value);

/*
 * The counter key of `sddsctl net` in side's namespace (0 when absent);
 * fails the running CMocka test when sddsctl fails.
 */
uint64_t netns_net_counter(int side, const char *sddsctl, const char *key);

#endif /* SDDS_TESTS_NETNS_HARNESS_H */
