/* SPDX-License-Identifier: MIT */
/*
 * socket.h - the `socket` backend (UDPv6 through the kernel), see socket.c.
 */
#ifndef SDDS_DAEMON_NET_SOCKET_H
#define SDDS_DAEMON_NET_SOCKET_H

#include "backend.h"

extern const struct net_backend_ops net_socket_ops;

#endif /* SDDS_DAEMON_NET_SOCKET_H */
