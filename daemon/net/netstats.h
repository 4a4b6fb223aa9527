/* SPDX-License-Identifier: MIT */
/*
 * netstats.h - the network layer's part of the Stats message (sddsctl
 * stats, sddsctl peers).
 *
 * OVERVIEW
 * netstats_build fills an Sdds__Ctl__NetStats from the live layer into one
 * allocation (*ret_mem, the caller frees it after packing). Strings point
 * into that allocation or static storage; nothing points into the layer.
 */
#ifndef SDDS_DAEMON_NET_NETSTATS_H
#define SDDS_DAEMON_NET_NETSTATS_H

#include "control.pb-c.h"
#include "netif.h"

/* Returns 0 with *ret_stats inside *ret_mem (owned by the caller), or -ENOMEM. */
int netstats_build(const struct netif *n, Sdds__Ctl__NetStats **ret_stats, void **ret_mem);

#endif /* SDDS_DAEMON_NET_NETSTATS_H */
