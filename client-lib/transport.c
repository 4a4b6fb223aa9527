/* SPDX-License-Identifier: MIT */
/*
 * transport.c - libsddsclient's choice of transport (internal.h,
 * client_transport_open): sddsd through the control socket, or the broker in
 * this process when the application asks for monolithic mode.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

bool client_mono_from_env(void)
{
	const char *v = getenv("SDDS_MONOLITHIC");

	return v && (strcmp(v, "1") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "true") == 0);
}

int client_transport_open(struct sdds_client *c, const sdds_client_options *opts)
{
	c->mono = opts->monolithic || client_mono_from_env();
	if (c->mono) {
		c->ops = &mono_ops;
		return mono_open(c, opts->net_config != NULL ? opts->net_config : getenv("SDDS_NET_CONFIG"));
	}
	c->ops = &remote_ops;
	return remote_open(c, opts);
}
