/* SPDX-License-Identifier: MIT */
/*
 * netloop_uv.h - netloop.h on a libuv loop (netloop_uv.c): the adapter
 * side, for the code that owns the uv_loop_t (netif.c, tests).
 */
#ifndef SDDS_DAEMON_NET_NETLOOP_UV_H
#define SDDS_DAEMON_NET_NETLOOP_UV_H

#include <uv.h>

#include "netloop.h"

/* The net_loop view of a uv loop: the same object, no allocation. */
static inline struct net_loop *net_loop_uv(uv_loop_t *loop)
{
	return (struct net_loop *)(void *)loop;
}

#endif /* SDDS_DAEMON_NET_NETLOOP_UV_H */
