/* SPDX-License-Identifier: MIT */
/*
 * stackstats.h - the StackInfo of one own-stack link for the Stats message
 * (sddsctl stack), built by netstats.c into its one allocation.
 */
#ifndef SDDS_DAEMON_NET_STACKSTATS_H
#define SDDS_DAEMON_NET_STACKSTATS_H

#include <stddef.h>

#include <ip6/stack.h>
#include <netdev/netdev.h>

#include "control.pb-c.h"

/* Bytes stackstats_fill needs at most for one link. */
size_t stackstats_size(void);

/*
 * Fills a StackInfo of ip on dev into mem (stackstats_size() bytes, 16-byte
 * aligned): every pointer of the result points into mem or static storage.
 */
Sdds__Ctl__StackInfo *stackstats_fill(const struct ip6s *ip, const struct netdev *dev, void *mem);

#endif /* SDDS_DAEMON_NET_STACKSTATS_H */
