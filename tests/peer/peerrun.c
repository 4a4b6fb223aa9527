/* SPDX-License-Identifier: MIT */
/*
 * peerrun.c - see peerrun.h. Namespaces are entered with `ip netns exec`,
 * as tests/net does, so the child sees the namespace's /etc/netns too.
 */
#include "peerrun.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

pid_t peerrun_start(const char *ns, const char *out, char *const argv[])
{
	pid_t pid;

	/* A file left by an earlier run would show its lines until the child truncates it. */
	if (unlink(out) < 0 && errno != ENOENT)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		char *args[32];
		size_t n = 0;

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		if (ns != NULL) {
			args[n++] = (char *)"ip";
			args[n++] = (char *)"netns";
			args[n++] = (char *)"exec";
			args[n++] = (char *)ns;
		}
		for (size_t i = 0; argv[i] != NULL && n < 31; i++)
			args[n++] = argv[i];
		args[n] = NULL;
		execvp(args[0], args);
		_exit(127);
	}
	return pid;
}

int peerrun_slurp(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return -errno;
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

bool peerrun_wait_line(const char *path, const char *prefix, int ms)
{
	static char buf[65536];

	for (int t = 0; t <= ms; t += 10) {
		if (peerrun_slurp(path, buf, sizeof(buf)) == 0) {
			const char *p = buf;

			while (p != NULL && *p != '\0') {
				if (strncmp(p, prefix, strlen(prefix)) == 0)
					return true;
				p = strchr(p, '\n');
				if (p != NULL)
					p++;
			}
		}
		usleep(10000);
	}
	return false;
}

int peerrun_wait(pid_t pid, int ms)
{
	int st;

	if (pid <= 0)
		return -1;
	for (int t = 0; t <= ms; t += 5) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (r < 0)
			return -1;
		usleep(5000);
	}
	kill(pid, SIGKILL);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return 128 + SIGKILL;
}
