/* SPDX-License-Identifier: MIT */
/*
 * ctl.h - control-socket framing: one protobuf message per SOCK_SEQPACKET
 * packet, optional file descriptors with SCM_RIGHTS, peer credentials.
 *
 * OVERVIEW
 * Messages are Sdds__Ctl__Request (client -> daemon) and
 * Sdds__Ctl__Reply (daemon -> client), generated from ipc/control.proto.
 * Every packet is at most CTL_MAX_PACKET bytes and carries at most
 * CTL_MAX_FDS descriptors. Received descriptors beyond what the caller asked
 * for are closed, never leaked. Library code: it returns errors, never logs.
 */
#ifndef SDDS_IPC_CTL_H
#define SDDS_IPC_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "control.pb-c.h"

#define CTL_MAX_PACKET 65536
#define CTL_MAX_FDS 4

/* Layout version the control protocol speaks (goes in Hello). */
#define CTL_PROTOCOL_VERSION 1u

/*
 * Send one message (packed with protobuf-c) and n_fds descriptors (not
 * closed; the caller keeps them). MSG_NOSIGNAL. Returns 0 or -errno
 * (-EMSGSIZE when the packed message exceeds CTL_MAX_PACKET).
 */
int ctl_send_request(int sock, const Sdds__Ctl__Request *req, const int *fds, size_t n_fds);
int ctl_send_reply(int sock, const Sdds__Ctl__Reply *rep, const int *fds, size_t n_fds);

/*
 * Receive one packet and unpack it. *ret (caller frees with
 * sdds__ctl__request__free_unpacked(*ret, NULL)) is set on success.
 * Up to max_fds received descriptors are stored in fds (owned by the caller
 * afterwards) and their count in *ret_n_fds; more are closed. Returns 0,
 * -ECONNRESET on orderly hang-up (0-byte read), -EBADMSG when the packet does
 * not unpack or was truncated (MSG_TRUNC / MSG_CTRUNC), -EAGAIN on a
 * non-blocking socket with nothing to read, or -errno.
 */
int ctl_recv_request(int sock, Sdds__Ctl__Request **ret, int *fds, size_t max_fds, size_t *ret_n_fds);
int ctl_recv_reply(int sock, Sdds__Ctl__Reply **ret, int *fds, size_t max_fds, size_t *ret_n_fds);

/* SO_PEERCRED of a connected UNIX socket. Returns 0 or -errno. */
int ctl_peercred(int sock, pid_t *ret_pid, uid_t *ret_uid, gid_t *ret_gid);

/*
 * Default control-socket path: $SDDS_SOCKET if set; /run/sdds/sddsd.sock
 * for root; $XDG_RUNTIME_DIR/sdds/sddsd.sock otherwise (falling back to
 * /tmp/sdds-<uid>/sddsd.sock when XDG_RUNTIME_DIR is unset). Writes at most
 * cap bytes (NUL included). Returns 0 or -ENAMETOOLONG.
 */
int ctl_default_path(char *buf, size_t cap);

#endif /* SDDS_IPC_CTL_H */
