/* SPDX-License-Identifier: MIT */
/*
 * netconf.c - sddsd's config to netif_options (see netconf.h).
 */
#include "netconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(CONFIG_NET_BACKENDS_MAX <= NET_MAX_BACKENDS, "a config's backends must fit the layer");

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

/*
 * The backend blocks of cfg into o->backends (netif.h): each `backend` line
 * with the `interface` lines after it (those before the first belong to the
 * first); no `backend` line: the default one. One backend without
 * interface lines takes the node config's iface. The single-backend fields
 * (backend, links) are the first block, for messages.
 */
static int netconf_backends(const struct sddsd_config *cfg, const struct nodecfg *nc, struct netif_options *o,
			    char *why, size_t why_len)
{
	uint32_t nb = cfg->n_backends > 0 ? cfg->n_backends : 1; /* config_init makes one */

	for (uint32_t b = 0; b < nb && b < NET_MAX_BACKENDS; b++) {
		const char *name = cfg->n_backends > 0 ? cfg->backends[b] : cfg->backend;
		struct netif_backend_options *bo = &o->backends[b];

		bo->ops = net_backend_find(name);
		if (bo->ops == NULL) {
			snprintf(why, why_len, "backend = %s: unknown (known: %s)", name,
				 net_backend_names());
			return -EINVAL;
		}
		for (uint32_t i = 0; i < cfg->n_interfaces && bo->n_links < NET_MAX_LINKS; i++) {
			if (nb == 1 || cfg->interface_backend[i] == b)
				bo->links[bo->n_links++] = cfg->interfaces[i];
		}
		if (nb == 1 && bo->n_links == 0 && nc->iface[0] != '\0')
			bo->links[bo->n_links++] = nc->iface;
		if (bo->n_links == 0 && nb == 1) {
			snprintf(
			    why, why_len,
			    "%s: no interface: set interface = NAME in the daemon config or iface in the "
			    "node config",
			    nc->loc);
			return -EINVAL;
		}
		if (bo->n_links == 0) {
			snprintf(
			    why, why_len,
			    "backend = %s (backend %u of %u): no interface: put interface = NAME lines after "
			    "it",
			    name, b + 1, nb);
			return -EINVAL;
		}
	}
	/* One tap backend takes every TAP link: two would share one pcap file and one MAC. */
	for (uint32_t b = 0, taps = 0; b < nb && b < NET_MAX_BACKENDS; b++) {
		if (o->backends[b].ops->stack != NULL && ++taps > 1) {
			snprintf(
			    why, why_len,
			    "backend = %s (backend %u of %u): one own-stack backend at most: put all its "
			    "interface lines after one backend = %s line",
			    o->backends[b].ops->name, b + 1, nb, o->backends[b].ops->name);
			return -EINVAL;
		}
	}
	if (cfg->address.n > NET_STACK_MAX_ADDRS) {
		snprintf(why, why_len, "address: %u lines; the own stack takes at most %u", cfg->address.n,
			 NET_STACK_MAX_ADDRS);
		return -EINVAL;
	}
	o->n_backends = nb;
	o->backend = o->backends[0].ops;
	for (uint32_t i = 0; i < o->backends[0].n_links; i++)
		o->links[i] = o->backends[0].links[i];
	o->n_links = o->backends[0].n_links;
	return 0;
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
	o->node = nc;
	rc = netconf_backends(cfg, nc, o, why, why_len);
	if (rc < 0) {
		free(nc);
		return rc;
	}
	o->max_frame = cfg->max_frame;
	o->max_peers = cfg->max_peers;
	o->gso = cfg->gso;
	o->stack.has_mac = cfg->mac.set;
	memcpy(o->stack.mac, cfg->mac.b, sizeof(o->stack.mac));
	o->stack.dad_transmits = cfg->dad_transmits;
	for (uint32_t i = 0; i < cfg->address.n && i < CONFIG_NET_SWAP_MAX; i++)
		memcpy(&ret->stack_addrs[i], cfg->address.addr[i], 16);
	o->stack.addrs = ret->stack_addrs;
	o->stack.n_addrs = cfg->address.n;
	o->stack.pcap = cfg->pcap[0] != '\0' ? ret->pcap : NULL;
	snprintf(ret->pcap, sizeof(ret->pcap), "%s", cfg->pcap);
	o->forward = cfg->forward;
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
