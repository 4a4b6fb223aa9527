/* SPDX-License-Identifier: MIT */
/*
 * fuzz_tap_vnet.c - the TAP driver's receive offload undoing
 * (drivers/tap/vnet.c) fed any virtio-net header and frame; every frame
 * it makes must be one the wire could carry.
 *
 * OVERVIEW
 * Input: one mode byte, a 10-byte struct virtio_net_hdr (host order, as
 * the kernel writes it), then the frame. Mode bits 0-1 pick the largest
 * frame the caller's buffers take (1519, 2048, 9018 or 65600 bytes); bit
 * 2 makes the header and frame a plausible UDP run first (GSO_UDP_L4,
 * NEEDS_CSUM at 54 + 6, EtherType 0x86dd, version 6, next header 17), so
 * the fuzzer reaches the cutting past the checks. The frame is copied
 * into a buffer of its exact size (ASan sees reads past it).
 *
 * Checks, with a checksum of the target's own (bytewise, RFC 1071):
 * vnet_prepare's count equals the frames vnet_next writes; none is larger
 * than the input frame or max_frame. A plain frame comes out as the
 * input, but for the checksum field when the header says NEEDS_CSUM,
 * which must then be the inverted sum from csum_start (0xffff for a UDP
 * 0). A run's frames carry the input's first 62 bytes but for the
 * lengths and checksum, IPv6 payload length and UDP length equal to the
 * frame's, a UDP checksum that verifies over the pseudo-header (RFC 8200
 * section 8.1) and is not 0, and together the input's payload in order.
 * A failure crashes (FUZZ_CHECK).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "vnet.h"

static const size_t fz_caps[4] = {1519, 2048, 9018, 65600};

/* The one's complement sum of p's n bytes as big-endian words, folded (RFC 1071), plus s. */
static uint32_t fz_sum(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static unsigned fz_get16(const uint8_t *p)
{
	return (unsigned)(p[0] << 8 | p[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct virtio_net_hdr h;
	struct vnet_run r;
	uint8_t *in, *frame, *out;
	size_t len, max, payload = 0;
	unsigned made = 0;
	int k;

	if (size < 1 + sizeof(h))
		return 0;
	max = fz_caps[data[0] & 3];
	memcpy(&h, data + 1, sizeof(h));
	len = size - 1 - sizeof(h);
	in = malloc(len + 1);
	frame = malloc(len + 1);
	out = malloc(max);
	FUZZ_CHECK(in != NULL && frame != NULL && out != NULL);
	memcpy(in, data + 1 + sizeof(h), len);
	if ((data[0] & 4) && len >= 62) {
		h.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4;
		h.csum_start = 54;
		h.csum_offset = 6;
		in[12] = 0x86, in[13] = 0xdd, in[14] = (uint8_t)(0x60 | (in[14] & 15)), in[20] = 17;
	}
	memcpy(frame, in, len);
	k = vnet_prepare(&r, &h, frame, len, max);
	if (k < 0)
		goto out;
	FUZZ_CHECK(k >= 1);
	for (;;) {
		size_t n = vnet_next(&r, out, max);

		if (n == 0)
			break;
		made++;
		FUZZ_CHECK(n <= len && n <= max);
		if (h.gso_type == VIRTIO_NET_HDR_GSO_NONE) {
			size_t at = (size_t)h.csum_start + h.csum_offset;

			FUZZ_CHECK(n == len);
			if (h.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
				unsigned want = (~fz_sum(0, in + h.csum_start, len - h.csum_start)) & 0xffff;

				if (want == 0 && h.csum_offset == 6)
					want = 0xffff;
				FUZZ_CHECK(fz_get16(out + at) == want);
				FUZZ_CHECK(memcmp(out, in, at) == 0 &&
					   memcmp(out + at + 2, in + at + 2, len - at - 2) == 0);
			} else {
				FUZZ_CHECK(memcmp(out, in, len) == 0);
			}
			continue;
		}
		/* A datagram of the run. */
		FUZZ_CHECK(n > 62 && n - 62 <= h.gso_size);
		FUZZ_CHECK(fz_get16(out + 18) == n - 54 && fz_get16(out + 58) == n - 54);
		FUZZ_CHECK(memcmp(out, in, 18) == 0 && memcmp(out + 20, in + 20, 38) == 0);
		FUZZ_CHECK(fz_get16(out + 60) != 0);
		FUZZ_CHECK(fz_sum(fz_sum((uint32_t)(n - 54) + 17u, out + 22, 32), out + 54, n - 54) ==
			   0xffff);
		FUZZ_CHECK(memcmp(out + 62, in + 62 + payload, n - 62) == 0);
		payload += n - 62;
	}
	FUZZ_CHECK(made == (unsigned)k);
	if (h.gso_type != VIRTIO_NET_HDR_GSO_NONE)
		FUZZ_CHECK(payload == len - 62);
out:
	free(in);
	free(frame);
	free(out);
	return 0;
}
