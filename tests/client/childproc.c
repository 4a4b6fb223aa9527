/* SPDX-License-Identifier: MIT */
/*
 * childproc.c - client processes of the client tests (see childproc.h).
 */
#include "childproc.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

pid_t childproc_spawn(const char *self, const char *role, const char *sock, int in_fd)
{
	/* Built before fork: the child calls only dup2, fcntl, execv and _exit. */
	char *argv[] = {(char *)self, "--child", (char *)role, (char *)sock, NULL};
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* dup2 leaves the copy without close-on-exec; fd 0 itself needs fcntl. */
		if (in_fd == 0 ? fcntl(0, F_SETFD, 0) < 0 : in_fd > 0 && dup2(in_fd, 0) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static int64_t childproc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int childproc_wait(pid_t pid, int ms)
{
	int64_t end = childproc_now_ms() + ms;
	struct timespec pause = {0, 5 * 1000 * 1000};
	pid_t got;
	int st;

	for (;;) {
		got = waitpid(pid, &st, WNOHANG);
		if (got < 0 && errno != EINTR)
			fail_msg("waitpid %d: errno %d", (int)pid, errno);
		if (got == pid)
			break;
		if (childproc_now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			fail_msg("child %d still running after %d ms", (int)pid, ms);
		}
		nanosleep(&pause, NULL);
	}
	if (!WIFEXITED(st))
		fail_msg("child %d ended by signal %d", (int)pid, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return WEXITSTATUS(st);
}
