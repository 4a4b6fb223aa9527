/* SPDX-License-Identifier: MIT */
/*
 * ctl.c - control-socket framing: one protobuf-c message per SOCK_SEQPACKET
 * packet, descriptors with SCM_RIGHTS, peer credentials, default path.
 *
 * OVERVIEW
 * Invariants:
 *  - One packet is one message; SOCK_SEQPACKET keeps the boundaries, so
 *    there is no length prefix. A packet is never empty: a message that
 *    packs to zero bytes (every field at its default) is sent as the two
 *    bytes 0x08 0x00, field 1 (`id`, in both Request and Reply) written
 *    explicitly as 0, which unpacks to the same message. A zero-byte read
 *    therefore always means the peer hung up.
 *  - Every descriptor the kernel hands us is either given to the caller or
 *    closed before we return, on every path, error paths included.
 *    Received descriptors are close-on-exec (MSG_CMSG_CLOEXEC).
 *  - A packet longer than CTL_MAX_PACKET, or with more descriptors than
 *    CTL_MAX_FDS, is reported as -EBADMSG (MSG_TRUNC / MSG_CTRUNC), never
 *    parsed in part.
 * Buffers: ctl_send_* packs into a buffer of its own and frees it; the
 * receive buffer is allocated per call and freed before returning (the
 * unpacked message owns copies of everything it needs). Library code:
 * never logs, returns -errno.
 */
#include "ctl.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* Packs up to this size on the stack; larger messages use the heap. */
#define CTL_STACK_PACK 1024

static const uint8_t ctl_empty_message[] = {0x08, 0x00};

static int ctl_sendmsg(int sock, const void *buf, size_t len, const int *fds, size_t n_fds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * CTL_MAX_FDS)];
	} cbuf;
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	if (n_fds > 0) {
		struct cmsghdr *cm;

		memset(&cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * n_fds);
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* SOCK_SEQPACKET sends a packet whole or not at all. */
	return (size_t)n == len ? 0 : -EIO;
}

/*
 * Pack with the given functions and send. The message is the caller's;
 * the packing buffer is ours.
 */
static int ctl_send(int sock, const ProtobufCMessage *m, const int *fds, size_t n_fds)
{
	uint8_t stack[CTL_STACK_PACK];
	uint8_t *buf = stack;
	size_t len;
	int rc;

	if (m == NULL || n_fds > CTL_MAX_FDS || (n_fds > 0 && fds == NULL))
		return -EINVAL;
	len = protobuf_c_message_get_packed_size(m);
	if (len > CTL_MAX_PACKET)
		return -EMSGSIZE;
	if (len == 0)
		return ctl_sendmsg(sock, ctl_empty_message, sizeof(ctl_empty_message), fds, n_fds);
	if (len > sizeof(stack)) {
		buf = malloc(len);
		if (buf == NULL)
			return -ENOMEM;
	}
	if (protobuf_c_message_pack(m, buf) != len)
		rc = -EINVAL;
	else
		rc = ctl_sendmsg(sock, buf, len, fds, n_fds);
	if (buf != stack)
		free(buf);
	return rc;
}

int ctl_send_request(int sock, const Sdds__Ctl__Request *req, const int *fds, size_t n_fds)
{
	return ctl_send(sock, req != NULL ? &req->base : NULL, fds, n_fds);
}

int ctl_send_reply(int sock, const Sdds__Ctl__Reply *rep, const int *fds, size_t n_fds)
{
	return ctl_send(sock, rep != NULL ? &rep->base : NULL, fds, n_fds);
}

static void ctl_close_fds(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
}

/*
 * Receive one packet and unpack it with desc. On success *ret owns the
 * message and the first min(n, max_fds) descriptors go to the caller.
 */
static int ctl_recv(int sock, const ProtobufCMessageDescriptor *desc, ProtobufCMessage **ret, int *fds,
		    size_t max_fds, size_t *ret_n_fds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * CTL_MAX_FDS)];
	} cbuf;
	int got[CTL_MAX_FDS];
	size_t n_got = 0, keep;
	struct iovec iov;
	struct msghdr msg;
	struct cmsghdr *cm;
	ProtobufCMessage *m;
	uint8_t *buf;
	ssize_t n;
	int rc;

	if (ret == NULL || (max_fds > 0 && (fds == NULL || ret_n_fds == NULL)))
		return -EINVAL;
	buf = malloc(CTL_MAX_PACKET);
	if (buf == NULL)
		return -ENOMEM;
	iov.iov_base = buf;
	iov.iov_len = CTL_MAX_PACKET;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf.buf;
	msg.msg_controllen = sizeof(cbuf.buf);
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		rc = -errno;
		goto out_free;
	}

	/* Collect every descriptor first, so that each path below can close them. */
	for (cm = CMSG_FIRSTHDR(&msg); cm != NULL; cm = CMSG_NXTHDR(&msg, cm)) {
		size_t k;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			/* The control buffer holds CTL_MAX_FDS at most; guard anyway. */
			if (n_got < CTL_MAX_FDS)
				got[n_got++] = fd;
			else
				close(fd);
		}
	}

	if (n == 0) {
		rc = -ECONNRESET;
		goto out_close;
	}
	if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
		rc = -EBADMSG;
		goto out_close;
	}
	m = protobuf_c_message_unpack(desc, NULL, (size_t)n, buf);
	if (m == NULL) {
		rc = -EBADMSG;
		goto out_close;
	}

	keep = n_got < max_fds ? n_got : max_fds;
	if (keep > 0)
		memcpy(fds, got, keep * sizeof(int));
	ctl_close_fds(got + keep, n_got - keep);
	if (ret_n_fds != NULL)
		*ret_n_fds = keep;
	*ret = m;
	free(buf);
	return 0;

out_close:
	ctl_close_fds(got, n_got);
out_free:
	free(buf);
	return rc;
}

int ctl_recv_request(int sock, Sdds__Ctl__Request **ret, int *fds, size_t max_fds, size_t *ret_n_fds)
{
	ProtobufCMessage *m;
	int rc = ctl_recv(sock, &sdds__ctl__request__descriptor, &m, fds, max_fds, ret_n_fds);

	if (rc == 0)
		*ret = (Sdds__Ctl__Request *)m;
	return rc;
}

int ctl_recv_reply(int sock, Sdds__Ctl__Reply **ret, int *fds, size_t max_fds, size_t *ret_n_fds)
{
	ProtobufCMessage *m;
	int rc = ctl_recv(sock, &sdds__ctl__reply__descriptor, &m, fds, max_fds, ret_n_fds);

	if (rc == 0)
		*ret = (Sdds__Ctl__Reply *)m;
	return rc;
}

int ctl_peercred(int sock, pid_t *ret_pid, uid_t *ret_uid, gid_t *ret_gid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	if (len != sizeof(cred))
		return -EIO;
	if (ret_pid != NULL)
		*ret_pid = cred.pid;
	if (ret_uid != NULL)
		*ret_uid = cred.uid;
	if (ret_gid != NULL)
		*ret_gid = cred.gid;
	return 0;
}

int ctl_default_path(char *buf, size_t cap)
{
	char tmp[4096];
	const char *env;
	int n;

	env = getenv("SDDS_SOCKET");
	if (env != NULL && env[0] != '\0') {
		n = snprintf(tmp, sizeof(tmp), "%s", env);
	} else if (geteuid() == 0) {
		n = snprintf(tmp, sizeof(tmp), "/run/sdds/sddsd.sock");
	} else {
		env = getenv("XDG_RUNTIME_DIR");
		if (env != NULL && env[0] != '\0')
			n = snprintf(tmp, sizeof(tmp), "%s/sdds/sddsd.sock", env);
		else
			n = snprintf(tmp, sizeof(tmp), "/tmp/sdds-%u/sddsd.sock", (unsigned)geteuid());
	}
	if (n < 0 || (size_t)n >= sizeof(tmp) || (size_t)n >= cap)
		return -ENAMETOOLONG;
	memcpy(buf, tmp, (size_t)n + 1);
	return 0;
}
