/* SPDX-License-Identifier: MIT */
/*
 * open.c - libsddsmono's transport (internal.h, client_transport_open):
 * always the broker in this process. The application's source is the same
 * as for libsddsclient; linking libsddsmono instead is what makes it
 * monolithic, so sdds_client_options.monolithic and $SDDS_MONOLITHIC are
 * not needed here. A daemon-style config (options.net_config, else
 * $SDDS_NET_CONFIG) adds sddsd's network layer on a thread (mononet.c).
 */
#include <stdlib.h>

#include "internal.h"

int client_transport_open(struct sdds_client *c, const sdds_client_options *opts)
{
	c->mono = true;
	c->ops = &mono_ops;
	return mono_open(c, opts->net_config != NULL ? opts->net_config : getenv("SDDS_NET_CONFIG"));
}
