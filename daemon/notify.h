/* SPDX-License-Identifier: MIT */
/*
 * notify.h - the service manager's notification protocol (sd_notify) and
 * watchdog, without libsystemd.
 *
 * OVERVIEW
 * systemd passes NOTIFY_SOCKET (a datagram socket path; a leading '@' means
 * the abstract namespace) and, with WatchdogSec=, WATCHDOG_USEC and
 * WATCHDOG_PID. notify_open() reads them once, keeps a datagram socket and
 * the address, and removes the variables from the environment so nothing
 * the daemon might start inherits them. Each message is one datagram of
 * newline-separated VAR=VALUE lines (READY=1, RELOADING=1, STOPPING=1,
 * WATCHDOG=1, STATUS=...).
 *
 * Library code: it returns errors and never logs; without NOTIFY_SOCKET
 * every send is a no-op that returns 0. Not thread-safe: the daemon sends
 * from its loop thread only, which is the point of the watchdog (a stalled
 * loop stops feeding it).
 */
#ifndef SDDS_DAEMON_NOTIFY_H
#define SDDS_DAEMON_NOTIFY_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

struct notify {
	int fd; /* -1: no service manager listens */
	struct sockaddr_un addr;
	socklen_t addr_len;
	uint64_t watchdog_usec; /* 0: no watchdog for this process */
};

/*
 * Read NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID (the watchdog counts
 * only when WATCHDOG_PID is unset or our pid), then unset them. Always
 * writes *ret; returns 0, or -EINVAL for a malformed variable (*ret is then
 * the disabled state), or -errno of socket().
 */
int notify_open(struct notify *ret);

/* Send one message (text owned by the caller). Returns 0 or -errno. */
int notify_send(const struct notify *n, const char *text);

/* Send a printf-formatted message. */
int notify_sendf(const struct notify *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Close the socket; accepts a disabled or closed struct. */
void notify_close(struct notify *n);

#endif /* SDDS_DAEMON_NOTIFY_H */
