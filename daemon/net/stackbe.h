/* SPDX-License-Identifier: MIT */
/*
 * stackbe.h - the own-stack backends (`tap`: sddsd's IPv6 stack on a TAP
 * device), see stackbe.c.
 */
#ifndef SDDS_DAEMON_NET_STACKBE_H
#define SDDS_DAEMON_NET_STACKBE_H

#include "backend.h"

extern const struct net_backend_ops net_tap_ops;

#endif /* SDDS_DAEMON_NET_STACKBE_H */
