/* SPDX-License-Identifier: MIT */
/*
 * vnet.h - what the TAP driver does to a frame the kernel hands it with a
 * virtio-net header (struct virtio_net_hdr, the legacy 10-byte form):
 * finish a partial checksum, cut a UDP segmentation run into datagrams.
 * No I/O, so that the fuzz target (tests/fuzz/fuzz_tap_vnet.c) runs it.
 *
 * OVERVIEW
 * vnet_prepare checks the header against the frame and sets up a struct
 * vnet_run over it; vnet_next then writes the run's frames one at a time
 * into the caller's buffers, each a whole frame the wire could carry with
 * its checksum done. A plain frame is a run of one (its checksum finished
 * in place first when the header says NEEDS_CSUM); a GSO_UDP_L4 frame
 * (Ethernet + IPv6 without extension headers + UDP) is a run of
 * ceil(payload / gso_size) datagrams, each with the headers copied, its
 * own IPv6 payload length, UDP length and UDP checksum (RFC 768, RFC 8200
 * section 8.1).
 *
 * Ownership: the run points into the caller's frame, which must stay put
 * until the run is done (vnet_left is 0). Threads: none. Errors: -EINVAL
 * (a header that does not fit the frame), -EMSGSIZE (a frame or datagram
 * larger than max_frame).
 */
#ifndef SDDS_DRIVERS_TAP_VNET_H
#define SDDS_DRIVERS_TAP_VNET_H

#include <stddef.h>
#include <stdint.h>

#include <linux/virtio_net.h>

#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
/* UDP segmentation (virtio 1.2, Linux 6.2); bookworm's kernel headers (6.1) lack the name. */
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif

/* Ethernet and IPv6 headers: where a run's UDP header is. */
#define VNET_L4_OFF (14u + 40u)
/* The largest frame a run may be: Ethernet, IPv6 and the largest IPv6 payload without a jumbogram. */
#define VNET_FRAME_MAX (VNET_L4_OFF + 65535u)

struct vnet_run {
	const uint8_t *frame; /* the caller's frame */
	size_t len;	      /* its bytes */
	size_t seg;	      /* UDP payload bytes per datagram; 0: a plain frame, copied whole */
	size_t off;	      /* run: payload offset (from VNET_L4_OFF + 8) of the next datagram */
	unsigned left;	      /* frames vnet_next has still to write */
};

/*
 * Checks h against frame (len bytes) and sets r up over it; plain frames
 * with NEEDS_CSUM get their checksum finished in frame. Every frame the
 * run makes is at most max_frame bytes. The number of frames (>= 1), or
 * -EINVAL / -EMSGSIZE (nothing to emit: the frame is dropped).
 */
int vnet_prepare(struct vnet_run *r, const struct virtio_net_hdr *h, uint8_t *frame, size_t len,
		 size_t max_frame);

/* Writes the run's next frame to out (cap bytes, at least max_frame of vnet_prepare); its length, 0 when
 * done. */
size_t vnet_next(struct vnet_run *r, uint8_t *out, size_t cap);

/* The Internet checksum (RFC 1071) of p's n bytes plus sum (a folded, network-order 16-bit value); not
 * inverted. */
uint16_t vnet_csum_add(uint16_t sum, const uint8_t *p, size_t n);

#endif /* SDDS_DRIVERS_TAP_VNET_H */
