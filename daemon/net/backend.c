/* SPDX-License-Identifier: MIT */
/*
 * backend.c - the registry of network backends, by name (config `backend`).
 *
 * OVERVIEW
 * A static table; a new backend (uio-igb) adds one line here and its own
 * .c/.h pair. No state.
 */
#include <string.h>

#include "backend.h"
#include "socket.h"
#include "stackbe.h"

static const struct net_backend_ops *const net_backends[] = {
    &net_socket_ops,
    &net_tap_ops,
};

const struct net_backend_ops *net_backend_find(const char *name)
{
	for (size_t i = 0; i < sizeof(net_backends) / sizeof(net_backends[0]); i++) {
		if (strcmp(net_backends[i]->name, name) == 0)
			return net_backends[i];
	}
	return NULL;
}

const char *net_backend_names(void)
{
	return "socket, tap";
}
