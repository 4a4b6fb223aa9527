/* SPDX-License-Identifier: MIT */
/*
 * tap.h - the netdev (lib/netdev/include/netdev/netdev.h) on a Linux TAP
 * device: whole Ethernet frames read from and written to /dev/net/tun
 * (IFF_TAP | IFF_NO_PI), the kernel's interface of the same name being the
 * other end of the wire.
 *
 * OVERVIEW
 * tap_open creates the named TAP or attaches to an existing (persistent)
 * one, and gives back a struct netdev whose ops are the TAP's. The stack
 * above is a host of its own on the link: it gets a MAC of its own
 * (tap_config.mac, or a random locally administered one), not the kernel
 * interface's, which is the kernel's address on the same wire. Because the
 * TAP hands over every frame the kernel sends on that interface, rx_batch
 * filters in software (our unicast MAC, broadcast, the multicast MACs added
 * with mcast_add); the rest is counted rx_filtered.
 *
 * Ownership: the caller owns the struct netdev from tap_open until it
 * calls its ops->close (which frees it and closes the fd: a TAP that is not
 * persistent disappears then). Buffers follow netdev.h.
 *
 * Threads: none; one owner serialises every call (netdev.h).
 *
 * Errors: 0 or -errno; on failure `why` holds a sentence for a human (the
 * caller logs it: the driver never logs).
 */
#ifndef SDDS_DRIVERS_TAP_H
#define SDDS_DRIVERS_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netdev/netdev.h>

/* Pool buffers when tap_config.pool_size is 0. */
#define TAP_POOL_DEFAULT 256u

struct tap_config {
	/* The interface: an existing TAP to attach to, or one to create. "" lets the kernel name it (tapN).
	 */
	char name[16];
	/* The stack's MAC when mac_set; otherwise a random locally administered one. */
	uint8_t mac[NETDEV_ETH_ALEN];
	bool mac_set;
	/* Buffers in the device's pool (rx and tx share it); 0: TAP_POOL_DEFAULT. */
	uint32_t pool_size;
	/* Set IFF_UP on the kernel side if it is down (needs CAP_NET_ADMIN). */
	bool bring_up;
	/* Fail when the interface is still down after open: -EPERM (not allowed to), -ENETDOWN (bring_up
	 * off). */
	bool need_up;
};

/* The defaults: no name (the kernel picks), random MAC, TAP_POOL_DEFAULT buffers, bring_up on, need_up off.
 */
void tap_config_init(struct tap_config *cfg);

/*
 * Opens the TAP of cfg; *ret is its netdev (the caller's, until ops->close).
 * why (why_len bytes, may be NULL when why_len is 0) gets a sentence on
 * every failure, and also on success when something was left undone that
 * the caller should tell its user (the interface could not be brought up);
 * it is "" otherwise. Errors: -EINVAL (bad config; the name is a TUN or
 * not a TAP at all), -EBUSY (another process has the TAP open), -EPERM
 * (not allowed to create or attach, or to bring it up with need_up),
 * -ENETDOWN (down, need_up without bring_up), -ENOMEM, or what opening
 * /dev/net/tun says (-ENOENT: no TUN/TAP support).
 */
int tap_open(const struct tap_config *cfg, struct netdev **ret, char *why, size_t why_len);

/*
 * What rx_batch undid of the kernel's offloads on d since open: *runs, UDP
 * segmentation runs handed over in one read and cut into datagrams;
 * *csums, plain frames whose partial checksum it finished. Both 0 where
 * the kernel hands none, or d is not a TAP.
 */
void tap_rx_offloads(struct netdev *d, uint64_t *runs, uint64_t *csums);

#endif /* SDDS_DRIVERS_TAP_H */
