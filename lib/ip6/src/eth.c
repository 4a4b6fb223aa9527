/* SPDX-License-Identifier: MIT */
/*
 * eth.c - Ethernet II for the stack: the input filter (EtherType 0x86dd,
 * destination our MAC or a 33:33 MAC the stack let in), the multicast MAC
 * mapping (RFC 2464 §7: 33:33 and the group's low 32 bits) and the
 * reference counted device multicast filter behind ip6s_mac_filter.
 *
 * OVERVIEW
 * Several groups map to one MAC (only 32 bits survive the mapping), so
 * the stack counts references per MAC and tells the device on the first
 * add and the last remove. ff02::1 holds one reference from ip6s_new to
 * ip6s_free (every host listens to it, RFC 4291 §2.8). The broadcast MAC
 * is never let in: IPv6 does not use it.
 *
 * Errors: ip6s_mac_filter returns the device's error, or -ENOSPC.
 */
#include <errno.h>

#include "stack_impl.h"

void ip6s_eth_mcast_mac(const struct in6_addr *group, uint8_t mac[NETDEV_ETH_ALEN])
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, group->s6_addr + 12, 4);
}

static struct ip6s_mac_ref *mac_find(struct ip6s *s, const uint8_t mac[NETDEV_ETH_ALEN])
{
	for (unsigned i = 0; i < IP6S_MAX_GROUPS + 1; i++)
		if (s->macs[i].refs > 0 && memcmp(s->macs[i].mac, mac, NETDEV_ETH_ALEN) == 0)
			return &s->macs[i];
	return NULL;
}

int ip6s_mac_filter(struct ip6s *s, const struct in6_addr *group, bool add)
{
	uint8_t mac[NETDEV_ETH_ALEN];
	struct ip6s_mac_ref *m;
	int rc = 0;

	ip6s_eth_mcast_mac(group, mac);
	m = mac_find(s, mac);
	if (!add) {
		if (m == NULL)
			return -ENOENT;
		if (--m->refs == 0 && s->dev->ops->mcast_del != NULL)
			rc = s->dev->ops->mcast_del(s->dev, mac);
		return rc;
	}
	if (m != NULL) {
		m->refs++;
		return 0;
	}
	for (unsigned i = 0; i < IP6S_MAX_GROUPS + 1; i++) {
		if (s->macs[i].refs != 0)
			continue;
		if (s->dev->ops->mcast_add != NULL)
			rc = s->dev->ops->mcast_add(s->dev, mac);
		if (rc < 0)
			return rc;
		memcpy(s->macs[i].mac, mac, NETDEV_ETH_ALEN);
		s->macs[i].refs = 1;
		return 0;
	}
	return -ENOSPC;
}

void ip6s_eth_filter_clear(struct ip6s *s)
{
	for (unsigned i = 0; i < IP6S_MAX_GROUPS + 1; i++) {
		if (s->macs[i].refs == 0)
			continue;
		if (s->dev->ops->mcast_del != NULL)
			s->dev->ops->mcast_del(s->dev, s->macs[i].mac);
		s->macs[i].refs = 0;
	}
}

bool ip6s_eth_accept(struct ip6s *s, const struct netdev_buf *b, enum ip6s_drop *why)
{
	const uint8_t *f = b->data;

	if (b->len < NETDEV_ETH_HLEN) {
		*why = IP6S_DROP_ETH_SHORT;
		return false;
	}
	/* The device's MTU bounds what a conforming peer sends us (RFC 2464 §2). */
	if (b->len > NETDEV_ETH_HLEN + s->dev->mtu) {
		*why = IP6S_DROP_OVERSIZE;
		return false;
	}
	if (f[6] & 1) {
		*why = IP6S_DROP_ETH_SRC_MCAST;
		return false;
	}
	if (f[0] & 1) {
		if (f[0] != 0x33 || f[1] != 0x33 || mac_find(s, f) == NULL) {
			*why = IP6S_DROP_ETH_OTHER_MAC;
			return false;
		}
	} else if (memcmp(f, s->dev->mac, NETDEV_ETH_ALEN) != 0) {
		*why = IP6S_DROP_ETH_OTHER_MAC;
		return false;
	}
	if (ip6s_rd16(f + 12) != 0x86dd) {
		*why = IP6S_DROP_ETH_TYPE;
		return false;
	}
	s->st.eth_in++;
	return true;
}

void ip6s_eth_fill(struct ip6s *s, struct netdev_buf *b, const uint8_t dst[NETDEV_ETH_ALEN])
{
	memcpy(b->data, dst, NETDEV_ETH_ALEN);
	memcpy(b->data + NETDEV_ETH_ALEN, s->dev->mac, NETDEV_ETH_ALEN);
	ip6s_wr16(b->data + 12, 0x86dd);
}
