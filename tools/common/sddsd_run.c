/* SPDX-License-Identifier: MIT */
/*
 * sddsd_run.c - see sddsd_run.h.
 */
#include "sddsd_run.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Exit codes of a child that could not become the daemon. */
#define SDDSD_RUN_EXIT_SETUP 126
#define SDDSD_RUN_EXIT_EXEC 127

void sddsd_run_opts_init(struct sddsd_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cpu = -1;
	o->ready_ms = 10000;
}

static int64_t sddsd_run_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sddsd_run_sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

int sddsd_run_tmpdir(const char *prefix, char *dir, size_t cap)
{
	const char *tmp = getenv("TMPDIR");

	if (snprintf(dir, cap, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix) >= (int)cap)
		return -ENAMETOOLONG;
	return mkdtemp(dir) ? 0 : -errno;
}

int sddsd_run_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t len = strlen(text), off = 0;

	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		off += (size_t)n;
	}
	return close(fd) < 0 ? -errno : 0;
}

bool sddsd_run_answers(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;
	bool ok;

	if (strlen(path) >= sizeof(sa.sun_path))
		return false;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

/* In the child between fork and exec; returns only on failure. */
static void sddsd_run_child(const struct sddsd_run_opts *o, const char *const *argv, pid_t parent)
{
	int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	sigset_t none;

	if (o->die_with_parent) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The parent died before prctl: nobody would stop this daemon. */
		if (getppid() != parent)
			return;
	}
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (in < 0 || dup2(in, 0) < 0)
		return;
	if (o->log) {
		int fd = open(o->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			return;
	}
	if (o->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			return;
	}
	if (o->nofile > 0) {
		struct rlimit rl = {o->nofile, o->nofile};

		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			return;
	}
	execv(o->bin, (char *const *)argv);
	dprintf(2, "exec %s: %s\n", o->bin, strerror(errno));
	_exit(SDDSD_RUN_EXIT_EXEC);
}

int sddsd_run_start(const struct sddsd_run_opts *o, pid_t *ret_pid, int *ret_status)
{
	const char *argv[32];
	size_t n = 0;
	pid_t parent = getpid(), pid;
	int64_t deadline;
	int status = 0;

	argv[n++] = o->bin;
	argv[n++] = "--socket";
	argv[n++] = o->sock;
	if (o->config) {
		argv[n++] = "-c";
		argv[n++] = o->config;
	}
	for (size_t i = 0; o->extra && o->extra[i] && n < 31; i++)
		argv[n++] = o->extra[i];
	argv[n] = NULL;
	/* Buffered output would be written twice, once by each process. */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		sddsd_run_child(o, argv, parent);
		_exit(SDDSD_RUN_EXIT_SETUP);
	}
	deadline = sddsd_run_now_ms() + o->ready_ms;
	while (!sddsd_run_answers(o->sock)) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			if (ret_status)
				*ret_status = status;
			return -ECHILD;
		}
		if (sddsd_run_now_ms() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			if (ret_status)
				*ret_status = status;
			return -ETIMEDOUT;
		}
		sddsd_run_sleep_ms(5);
	}
	*ret_pid = pid;
	return 0;
}

int sddsd_run_reap(pid_t pid, int timeout_ms, int *ret_status)
{
	int64_t deadline = sddsd_run_now_ms() + timeout_ms;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid) {
			*ret_status = status;
			return 0;
		}
		if (r < 0)
			return -errno;
		if (sddsd_run_now_ms() > deadline)
			return -ETIMEDOUT;
		sddsd_run_sleep_ms(2);
	}
}

int sddsd_run_stop(pid_t pid, int sig, int timeout_ms, int *ret_status)
{
	int status = 0, rc;

	kill(pid, sig);
	rc = sddsd_run_reap(pid, timeout_ms, &status);
	if (rc == -ETIMEDOUT) {
		kill(pid, SIGKILL);
		if (waitpid(pid, &status, 0) < 0)
			rc = -errno;
	}
	if (ret_status)
		*ret_status = status;
	return rc;
}

void sddsd_run_log_tail(const char *path, char *buf, size_t cap)
{
	char tail[512], *end, *line;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t size;
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	lseek(fd, size > (off_t)sizeof(tail) - 1 ? size - (off_t)sizeof(tail) + 1 : 0, SEEK_SET);
	n = read(fd, tail, sizeof(tail) - 1);
	close(fd);
	if (n <= 0)
		return;
	tail[n] = '\0';
	end = tail + n;
	while (end > tail && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	line = strrchr(tail, '\n');
	snprintf(buf, cap, "%s", line ? line + 1 : tail);
}
