/* SPDX-License-Identifier: MIT */
/*
 * netconf.c - sddsd's config to netif_options (see netconf.h).
 */
#include "netconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool netconf_wanted(const struct sddsd_config *cfg)
{
	return cfg->net != 0 && cfg->node_config[0] != '\0';
}

void netconf_discovery(struct sddsd_config *cfg, const struct nodecfg *nc)
{
	/*
	 * As the node config's <define>s say, as on a real node; a key of the
	 * daemon config wins (docs/DESIGN.md "Discovery from the node config").
	 */
	if (!config_given(cfg, "discovery"))
		cfg->discovery = nc->discovery;
	if (!config_given(cfg, "discovery_participant_ms") && nc->participant_ms >= 0)
		cfg->discovery_participant_ms = (uint32_t)nc->participant_ms;
	if (!config_given(cfg, "discovery_publication_ms") && nc->publication_ms >= 0)
		cfg->discovery_publication_ms = (uint32_t)nc->publication_ms;
	/* A peer announces itself every participant period: give it five before it expires. */
	if (!config_given(cfg, "discovery_expire_ms") && cfg->discovery_expire_ms != 0 &&
	    cfg->discovery_participant_ms > cfg->discovery_expire_ms / 5)
		cfg->discovery_expire_ms = cfg->discovery_participant_ms * 5;
}

int netconf_load(const struct sddsd_config *cfg, struct netconf *ret, char *why, size_t why_len)
{
	struct sddsd_config eff; /* cfg with the node config's discovery defines applied */
	struct nodecfg_error nerr;
	struct netif_options *o;
	struct nodecfg *nc = NULL;
	int rc;

	if (!netconf_wanted(cfg)) {
		snprintf(why, why_len, "no network side configured (node_config unset or net = off)");
		return -ENOENT;
	}
	rc = nodecfg_load(cfg->node_config, &nc, &nerr);
	if (rc < 0) {
		snprintf(why, why_len, "%s", nerr.msg);
		return rc;
	}
	memset(ret, 0, sizeof(*ret));
	o = &ret->o;
	netif_options_init(o);
	o->backend = net_backend_find(cfg->backend);
	if (o->backend == NULL) {
		snprintf(why, why_len, "backend = %s: unknown (known: %s)", cfg->backend,
			 net_backend_names());
		free(nc);
		return -EINVAL;
	}
	o->node = nc;
	for (uint32_t i = 0; i < cfg->n_interfaces && i < NET_MAX_LINKS; i++)
		o->links[o->n_links++] = cfg->interfaces[i];
	if (o->n_links == 0 && nc->iface[0] != '\0')
		o->links[o->n_links++] = nc->iface;
	if (o->n_links == 0) {
		snprintf(
		    why, why_len,
		    "%s: no interface: set interface = NAME in the daemon config or iface in the node config",
		    nc->loc);
		free(nc);
		return -EINVAL;
	}
	o->max_frame = cfg->max_frame;
	o->max_peers = cfg->max_peers;
	o->gso = cfg->gso;
	for (uint32_t i = 0; i < cfg->peer_endian_swap.n && i < CONFIG_NET_SWAP_MAX; i++)
		memcpy(&ret->swap[i], cfg->peer_endian_swap.addr[i], 16);
	o->swap_peers = ret->swap;
	o->n_swap_peers = cfg->peer_endian_swap.n;
	for (uint32_t i = 0; i < cfg->peer_pack.n && i < CONFIG_NET_SWAP_MAX; i++)
		memcpy(&ret->pack[i], cfg->peer_pack.addr[i], 16);
	o->pack_peers = ret->pack;
	o->n_pack_peers = cfg->peer_pack.n;
	eff = *cfg;
	netconf_discovery(&eff, nc);
	o->disc.on = eff.discovery;
	o->disc.node_id = (uint16_t)cfg->node_id;
	o->disc.participant_ms = eff.discovery_participant_ms;
	o->disc.publication_ms = eff.discovery_publication_ms;
	o->disc.expire_ms = eff.discovery_expire_ms;
	o->disc.unicast = cfg->discovery_unicast;
	o->disc.max_subs = cfg->discovery_max_subscriptions;
	o->disc.announce_pack = cfg->announce_pack;
	ret->node = nc;
	return 0;
}

void netconf_fini(struct netconf *nc)
{
	free(nc->node);
	nc->node = NULL;
	nc->o.node = NULL;
}
