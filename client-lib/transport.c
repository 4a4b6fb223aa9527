/* SPDX-License-Identifier: MIT */
/*
 * transport.c - libsddsclient's transport (internal.h,
 * client_transport_open): sddsd, through the control socket and the shared
 * segment. This library has no broker and no network code; monolithic mode
 * is libsddsmono's (client-lib/mono/), so asking for it here is an error
 * rather than a silent connection to a daemon.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* $SDDS_MONOLITHIC says 1, yes or true. */
static bool client_mono_from_env(void)
{
	const char *v = getenv("SDDS_MONOLITHIC");

	return v && (strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "true") == 0);
}

int client_transport_open(struct sdds_client *c, const sdds_client_options *opts)
{
	if (opts->monolithic || client_mono_from_env())
		return -ENOTSUP;
	c->mono = false;
	c->ops = &remote_ops;
	return remote_open(c, opts);
}
