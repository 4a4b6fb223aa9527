/* SPDX-License-Identifier: MIT */
/*
 * listen_exec.c - sdds-listen-exec FD PROGRAM [ARGS...]: hand an inherited
 * listening socket to PROGRAM the way systemd does (socket activation):
 * the socket becomes fd 3, LISTEN_FDS=1 and LISTEN_PID names the process
 * that execs PROGRAM, which is this one (exec keeps the pid, and only the
 * process that sets LISTEN_PID to its own pid before exec gets it right).
 *
 * OVERVIEW
 * A test keeps one listening socket for its whole run and starts every new
 * sddsd through this wrapper, so that clients connect to the same socket
 * across daemon restarts, as under systemd's sddsd.socket. Exits 127 when
 * something fails before the exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char pid[32];
	char *end;
	long fd;

	if (argc < 3) {
		fprintf(stderr, "usage: sdds-listen-exec FD PROGRAM [ARGS...]\n");
		return 127;
	}
	errno = 0;
	fd = strtol(argv[1], &end, 10);
	if (errno || *end || fd < 0 || fd > 1024) {
		fprintf(stderr, "sdds-listen-exec: bad fd %s\n", argv[1]);
		return 127;
	}
	if (fd != 3 && dup2((int)fd, 3) < 0) {
		perror("sdds-listen-exec: dup2");
		return 127;
	}
	if (fd != 3)
		close((int)fd);
	/* dup2 clears close-on-exec on the copy; fd 3 itself may have it. */
	if (fcntl(3, F_SETFD, 0) < 0) {
		perror("sdds-listen-exec: fcntl");
		return 127;
	}
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if (setenv("LISTEN_FDS", "1", 1) < 0 || setenv("LISTEN_PID", pid, 1) < 0) {
		perror("sdds-listen-exec: setenv");
		return 127;
	}
	unsetenv("LISTEN_FDNAMES");
	execv(argv[2], argv + 2);
	fprintf(stderr, "sdds-listen-exec: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
