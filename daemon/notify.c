/* SPDX-License-Identifier: MIT */
/*
 * notify.c - sd_notify and the watchdog variables, hand-written.
 *
 * OVERVIEW
 * See notify.h. The protocol is small and stable (sd_notify(3)): a datagram
 * to the socket named in NOTIFY_SOCKET. It is written here rather than
 * taken from libsystemd so the daemon has no dependency for four messages;
 * the tests drive it with a socket of their own, without systemd.
 */
#include "notify.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOTIFY_MSG_MAX 1024

static void notify_unset(void)
{
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
}

/* The watchdog period, or 0 when it is off or meant for another process. */
static int notify_watchdog(uint64_t *ret)
{
	const char *us = getenv("WATCHDOG_USEC");
	const char *pid = getenv("WATCHDOG_PID");
	unsigned long long v;
	char *end;

	*ret = 0;
	if (us == NULL)
		return 0;
	if (pid != NULL) {
		long p;

		errno = 0;
		p = strtol(pid, &end, 10);
		if (errno != 0 || end == pid || *end != '\0' || p <= 0)
			return -EINVAL;
		if ((pid_t)p != getpid())
			return 0;
	}
	errno = 0;
	v = strtoull(us, &end, 10);
	if (errno != 0 || end == us || *end != '\0' || v == 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

int notify_open(struct notify *ret)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct notify n = {.fd = -1};
	size_t len;
	int rc;

	rc = notify_watchdog(&n.watchdog_usec);
	if (rc < 0)
		goto done;
	if (path == NULL || path[0] == '\0')
		goto done;
	len = strlen(path);
	/* Only filesystem and abstract AF_UNIX names; no AF_VSOCK here. */
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(n.addr.sun_path) || len < 2) {
		rc = -EINVAL;
		goto done;
	}
	n.addr.sun_family = AF_UNIX;
	memcpy(n.addr.sun_path, path, len);
	if (path[0] == '@')
		n.addr.sun_path[0] = '\0';
	n.addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	n.fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (n.fd < 0)
		rc = -errno;
done:
	if (rc < 0 && n.fd >= 0) {
		close(n.fd);
		n.fd = -1;
	}
	if (n.fd < 0)
		n.addr_len = 0;
	notify_unset();
	*ret = n;
	return rc;
}

int notify_send(const struct notify *n, const char *text)
{
	ssize_t r;

	if (n->fd < 0)
		return 0;
	do {
		r = sendto(n->fd, text, strlen(text), MSG_NOSIGNAL, (const struct sockaddr *)&n->addr,
			   n->addr_len);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

int notify_sendf(const struct notify *n, const char *fmt, ...)
{
	char buf[NOTIFY_MSG_MAX];
	va_list ap;

	if (n->fd < 0)
		return 0;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return notify_send(n, buf);
}

void notify_close(struct notify *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
}
