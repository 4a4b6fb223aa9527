/* SPDX-License-Identifier: MIT */
/*
 * vnet.c - the checksum finishing and UDP run cutting of vnet.h.
 *
 * OVERVIEW
 * Checksums are summed in the host's byte order, four bytes at a time, and
 * the folded sum swapped to network order at the end: the one's
 * complement sum does not care which byte of a 16-bit word is the high one
 * as long as every word is taken the same way (RFC 1071 section 2 (B)).
 * Every sum starts at an even offset of the checksummed data, so words
 * never straddle two calls.
 *
 * A plain frame with NEEDS_CSUM: the kernel left the pseudo-header sum
 * (folded, not inverted) in the field at csum_start + csum_offset, so the
 * sum from csum_start to the frame's end, inverted, is the checksum
 * (virtio 1.2 section 5.1.6.2). A UDP result of 0 is sent as 0xffff (RFC
 * 768: 0 means "no checksum"; for other protocols both mean the same).
 *
 * A run (GSO_UDP_L4): the header must say NEEDS_CSUM at the UDP checksum
 * (csum_start 54, csum_offset 6), the frame must be IPv6 (EtherType 0x86dd,
 * version 6) with UDP right after the fixed header (next header 17), and
 * gso_size must be non-zero. Each datagram's checksum is computed afresh
 * over its pseudo-header (RFC 8200 section 8.1: addresses, upper-layer
 * length, next header 17), UDP header and payload; the run's own lengths
 * and partial sum are not trusted. A frame shorter than an Ethernet header,
 * or whatever fails a check, is -EINVAL, and the caller drops the frame.
 *
 * Ownership, threads, errors: vnet.h.
 */
#include "vnet.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

/* The sum of p's n bytes as host-order 16-bit words, not folded (n < 2^32 words: no carry out of 64 bits). */
static uint64_t vnet_sum_raw(const uint8_t *p, size_t n, uint64_t acc)
{
	uint32_t w32;
	uint16_t w16 = 0;

	for (; n >= 4; p += 4, n -= 4) {
		memcpy(&w32, p, 4);
		acc += w32;
	}
	if (n >= 2) {
		memcpy(&w16, p, 2);
		acc += w16;
		p += 2;
		n -= 2;
	}
	if (n == 1) {
		/* The odd byte is the first of a word whose second is zero, in either byte order. */
		w16 = 0;
		memcpy(&w16, p, 1);
		acc += w16;
	}
	return acc;
}

/* acc folded to 16 bits, in network order as a number. */
static uint16_t vnet_fold(uint64_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return ntohs((uint16_t)acc);
}

uint16_t vnet_csum_add(uint16_t sum, const uint8_t *p, size_t n)
{
	uint32_t s = (uint32_t)sum + vnet_fold(vnet_sum_raw(p, n, 0));

	return (uint16_t)((s & 0xffff) + (s >> 16));
}

static uint16_t vnet_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void vnet_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The checksum from the partial sum at start + off over frame[start..len) (OVERVIEW); -EINVAL if out of it.
 */
static int vnet_finish(uint8_t *frame, size_t len, size_t start, size_t off)
{
	uint16_t c;

	if (start >= len || off + 2 > len - start)
		return -EINVAL;
	c = (uint16_t)~vnet_csum_add(0, frame + start, len - start);
	if (c == 0 && off == 6)
		c = 0xffff; /* UDP's checksum field (RFC 768) */
	vnet_put16(frame + start + off, c);
	return 0;
}

int vnet_prepare(struct vnet_run *r, const struct virtio_net_hdr *h, uint8_t *frame, size_t len,
		 size_t max_frame)
{
	const size_t udp = VNET_L4_OFF;
	size_t payload;

	*r = (struct vnet_run){.frame = frame, .len = len};
	/* Not even an Ethernet header (and vnet_next's 0 means done, not an empty frame). */
	if (len < 14)
		return -EINVAL;
	if (h->gso_type == VIRTIO_NET_HDR_GSO_NONE) {
		if (len > max_frame)
			return -EMSGSIZE;
		if ((h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
		    vnet_finish(frame, len, h->csum_start, h->csum_offset) < 0)
			return -EINVAL;
		r->left = 1;
		return 1;
	}
	/* Only UDP runs were offered (TUNSETOFFLOAD); anything else, ECN bit included, is not ours. */
	if (h->gso_type != VIRTIO_NET_HDR_GSO_UDP_L4 || !(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return -EINVAL;
	if (h->gso_size == 0 || h->hdr_len > len || h->csum_start != udp || h->csum_offset != 6)
		return -EINVAL;
	if (len <= udp + 8 || len > VNET_FRAME_MAX)
		return -EINVAL;
	if (vnet_get16(frame + 12) != 0x86dd || (frame[14] >> 4) != 6 || frame[20] != 17)
		return -EINVAL;
	if (udp + 8 + h->gso_size > max_frame)
		return -EMSGSIZE;
	payload = len - udp - 8;
	r->seg = h->gso_size;
	r->left = (unsigned)((payload + r->seg - 1) / r->seg);
	return (int)r->left;
}

size_t vnet_next(struct vnet_run *r, uint8_t *out, size_t cap)
{
	const size_t udp = VNET_L4_OFF;
	size_t n, ulen;
	uint16_t sum;

	if (r->left == 0)
		return 0;
	if (r->seg == 0) {
		if (r->len > cap)
			return 0;
		memcpy(out, r->frame, r->len);
		r->left = 0;
		return r->len;
	}
	n = r->len - udp - 8 - r->off;
	if (n > r->seg)
		n = r->seg;
	ulen = 8 + n;
	if (udp + ulen > cap)
		return 0;
	memcpy(out, r->frame, udp + 8);
	memcpy(out + udp + 8, r->frame + udp + 8 + r->off, n);
	/* RFC 8200 section 3: payload length; RFC 768: UDP length, header included. */
	vnet_put16(out + 18, (uint16_t)ulen);
	vnet_put16(out + udp + 4, (uint16_t)ulen);
	vnet_put16(out + udp + 6, 0);
	/* RFC 8200 section 8.1: source and destination, upper-layer length, next header (17). */
	sum = vnet_csum_add(0, out + 22, 32);
	sum = vnet_csum_add(sum, out + udp, ulen);
	{
		uint32_t s = (uint32_t)sum + (uint32_t)ulen + 17u;

		while (s >> 16)
			s = (s & 0xffff) + (s >> 16);
		sum = (uint16_t)~s;
	}
	vnet_put16(out + udp + 6, sum != 0 ? sum : 0xffff);
	r->off += n;
	r->left--;
	return udp + ulen;
}
