/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ctl.c - control packets from a hostile peer through ctl_recv_*,
 * and the protobuf-c unpack of Request and Reply.
 *
 * OVERVIEW
 * Input: byte 0 is a mode, the rest is one packet.
 *   mode bit 0     receive as Request (1) or Reply (0)
 *   mode bits 1-3  descriptors attached to the packet (0..7; more than
 *                  CTL_MAX_FDS must come back as -EBADMSG)
 *   mode bits 4-6  descriptors the receiver accepts (0..CTL_MAX_FDS)
 * The packet goes through a real socketpair(AF_UNIX, SOCK_SEQPACKET), so
 * the recvmsg, control-message and truncation paths of ctl.c run as in the
 * daemon. Checked per input: only 0, -EBADMSG or -ECONNRESET (an empty
 * packet) come back; no descriptor leaks (the lowest free descriptor is
 * the same before and after); an accepted message without unknown fields
 * survives a round trip through ctl_send_* and ctl_recv_* unchanged (same
 * packed bytes). The
 * same bytes are also unpacked directly as Request and as Reply.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "ipc/ctl.h"

#define FUZZ_CTL_MAX_INPUT (CTL_MAX_PACKET + 64)

static int sv[2] = {-1, -1};
static int attach_fd = -1;

static void fuzz_ctl_setup(void)
{
	int sndbuf = 4 * CTL_MAX_PACKET;

	if (sv[0] >= 0)
		return;
	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) == 0);
	FUZZ_CHECK(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) == 0);
	FUZZ_CHECK(setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) == 0);
	attach_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	FUZZ_CHECK(attach_fd >= 0);
}

/* The lowest free descriptor number: grows if anything leaked. */
static int lowest_free_fd(void)
{
	int fd = fcntl(attach_fd, F_DUPFD_CLOEXEC, 0);

	FUZZ_CHECK(fd >= 0);
	close(fd);
	return fd;
}

static void send_raw(int sock, const uint8_t *buf, size_t len, size_t n_fds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * 8)];
	} cbuf;
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	if (n_fds > 0) {
		struct cmsghdr *cm;

		memset(&cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
		for (size_t i = 0; i < n_fds; i++)
			memcpy(CMSG_DATA(cm) + i * sizeof(int), &attach_fd, sizeof(int));
	}
	FUZZ_CHECK(sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)len);
}

/* Packed bytes of m, heap-allocated (caller frees); *len set. */
static uint8_t *pack(const ProtobufCMessage *m, size_t *len)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *b = malloc(n > 0 ? n : 1);

	FUZZ_CHECK(b != NULL);
	FUZZ_CHECK(protobuf_c_message_pack(m, b) == n);
	*len = n;
	return b;
}

/*
 * True when m or a message inside it kept unknown fields. protobuf-c keeps
 * them as raw bytes and repacks them as it parsed them, which is not always
 * parseable again (a field number 0 written as the non-minimal tag 80 00
 * comes back as 00 and is refused), so the round trip is only checked for
 * messages without them.
 */
static bool has_unknown(const ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;

	if (m->n_unknown_fields != 0)
		return true;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		const uint8_t *base = (const uint8_t *)m;

		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n;
			ProtobufCMessage *const *arr;

			memcpy(&n, base + f->quantifier_offset, sizeof(n));
			memcpy(&arr, base + f->offset, sizeof(arr));
			for (size_t k = 0; k < n; k++)
				if (has_unknown(arr[k]))
					return true;
		} else {
			const ProtobufCMessage *sub;

			if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
				uint32_t which;

				memcpy(&which, base + f->quantifier_offset, sizeof(which));
				if (which != f->id)
					continue;
			}
			memcpy(&sub, base + f->offset, sizeof(sub));
			if (sub != NULL && has_unknown(sub))
				return true;
		}
	}
	return false;
}

/* Send m back through ctl_send_*, receive it, compare the packed forms. */
static void roundtrip(const ProtobufCMessage *m, bool request)
{
	ProtobufCMessage *back = NULL;
	uint8_t *a, *b;
	size_t alen, blen;
	int rc;

	if (request)
		rc = ctl_send_request(sv[1], (const Sdds__Ctl__Request *)m, NULL, 0);
	else
		rc = ctl_send_reply(sv[1], (const Sdds__Ctl__Reply *)m, NULL, 0);
	if (rc == -EMSGSIZE)
		return;
	FUZZ_CHECK(rc == 0);
	if (request)
		rc = ctl_recv_request(sv[0], (Sdds__Ctl__Request **)&back, NULL, 0, NULL);
	else
		rc = ctl_recv_reply(sv[0], (Sdds__Ctl__Reply **)&back, NULL, 0, NULL);
	FUZZ_CHECK(rc == 0 && back != NULL);
	a = pack(m, &alen);
	b = pack(back, &blen);
	FUZZ_CHECK(alen == blen && memcmp(a, b, alen) == 0);
	free(a);
	free(b);
	protobuf_c_message_free_unpacked(back, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode;
	const uint8_t *pkt;
	size_t len, n_fds, max_fds, n_got = 0;
	int fds[CTL_MAX_FDS];
	ProtobufCMessage *m = NULL;
	bool request;
	int before, rc;

	if (size < 1)
		return 0;
	fuzz_ctl_setup();
	mode = data[0];
	pkt = data + 1;
	len = size - 1 < FUZZ_CTL_MAX_INPUT ? size - 1 : FUZZ_CTL_MAX_INPUT;
	request = mode & 1;
	n_fds = (mode >> 1) & 7;
	max_fds = ((mode >> 4) & 7) % (CTL_MAX_FDS + 1);

	/* Direct unpack of both message kinds. */
	{
		Sdds__Ctl__Request *rq = sdds__ctl__request__unpack(NULL, len, pkt);
		Sdds__Ctl__Reply *rp = sdds__ctl__reply__unpack(NULL, len, pkt);

		if (rq != NULL)
			sdds__ctl__request__free_unpacked(rq, NULL);
		if (rp != NULL)
			sdds__ctl__reply__free_unpacked(rp, NULL);
	}

	before = lowest_free_fd();
	send_raw(sv[0], pkt, len, n_fds);
	if (request)
		rc = ctl_recv_request(sv[1], (Sdds__Ctl__Request **)&m, fds, max_fds, &n_got);
	else
		rc = ctl_recv_reply(sv[1], (Sdds__Ctl__Reply **)&m, fds, max_fds, &n_got);

	if (rc == 0) {
		FUZZ_CHECK(m != NULL);
		FUZZ_CHECK(len > 0 && len <= CTL_MAX_PACKET && n_fds <= CTL_MAX_FDS);
		FUZZ_CHECK(n_got == (n_fds < max_fds ? n_fds : max_fds));
		for (size_t i = 0; i < n_got; i++) {
			FUZZ_CHECK(fcntl(fds[i], F_GETFD) & FD_CLOEXEC);
			close(fds[i]);
		}
		if (!has_unknown(m))
			roundtrip(m, request);
		protobuf_c_message_free_unpacked(m, NULL);
	} else {
		FUZZ_CHECK(m == NULL);
		/* An empty packet reads as a hang-up; everything else is a bad message. */
		FUZZ_CHECK(rc == (len == 0 ? -ECONNRESET : -EBADMSG));
		FUZZ_CHECK(len == 0 || len > CTL_MAX_PACKET || n_fds > CTL_MAX_FDS ||
			   (request ? sdds__ctl__request__unpack(NULL, len, pkt) == NULL
				    : sdds__ctl__reply__unpack(NULL, len, pkt) == NULL));
	}
	FUZZ_CHECK(lowest_free_fd() == before);
	return 0;
}
