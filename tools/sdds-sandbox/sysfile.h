/* SPDX-License-Identifier: MIT */
/*
 * sysfile.h - one write of a short text to a kernel file (/proc/PID/uid_map,
 * cgroup knobs), shared by the supervisor (main.c) and cgroup.c. Such files
 * take a value in a single write(2): a short write is an error.
 */
#ifndef SDDS_SANDBOX_SYSFILE_H
#define SDDS_SANDBOX_SYSFILE_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Writes text to path in one write. 0, or -errno (-EIO on a short write). */
static inline int sysfile_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);
	ssize_t n;
	int rc = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n != (ssize_t)len)
		rc = n < 0 ? -errno : -EIO;
	close(fd);
	return rc;
}

#endif /* SDDS_SANDBOX_SYSFILE_H */
