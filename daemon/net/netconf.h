/* SPDX-License-Identifier: MIT */
/*
 * netconf.h - the network layer's options from sddsd's config (config.h).
 *
 * OVERVIEW
 * One translation of the daemon-style config (node_config, interface,
 * backend, max_frame, discovery keys...) into netif_options, used by sddsd
 * (manager.c) and by a monolithic application (client-lib/mono/mononet.c), so
 * both read the same keys the same way. The result owns the node config it
 * loaded; netif_new copies what it needs, so it may be freed right after.
 * Library code: it does not log; failures come back as a message.
 */
#ifndef SDDS_DAEMON_NET_NETCONF_H
#define SDDS_DAEMON_NET_NETCONF_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "netif.h"

struct netconf {
	struct netif_options o; /* points into node, swap and the config given to load */
	struct nodecfg *node;	/* owned: netconf_fini frees it */
	struct in6_addr swap[CONFIG_NET_SWAP_MAX];
	struct in6_addr pack[CONFIG_NET_SWAP_MAX];
	struct in6_addr stack_addrs[CONFIG_NET_SWAP_MAX]; /* config address lines (o.stack) */
	char pcap[CONFIG_SOCKET_MAX];			  /* config pcap (o.stack) */
};

/* The config asks for a network side: net not off and a node_config set. */
bool netconf_wanted(const struct sddsd_config *cfg);

/*
 * Load cfg's node config and fill *ret (cfg must outlive *ret: interface
 * names are borrowed). Returns 0, or -errno with why (NUL-terminated,
 * "FILE:LINE: ..." where a file is at fault) and nothing held.
 */
int netconf_load(const struct sddsd_config *cfg, struct netconf *ret, char *why, size_t why_len);

/*
 * The discovery keys of cfg (discovery, discovery_participant_ms,
 * discovery_publication_ms, discovery_expire_ms) as they take effect with
 * node config nc: each not given in cfg takes the node config's <define>
 * where it has one, and the expiry at least five participant periods.
 */
void netconf_discovery(struct sddsd_config *cfg, const struct nodecfg *nc);

/* Free the node config; accepts a zeroed or finished struct. */
void netconf_fini(struct netconf *nc);

#endif /* SDDS_DAEMON_NET_NETCONF_H */
