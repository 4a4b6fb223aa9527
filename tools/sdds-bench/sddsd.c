/* SPDX-License-Identifier: MIT */
/*
 * sddsd.c - start and stop a private sddsd (see sddsd.h).
 *
 * OVERVIEW
 * The daemon is a child of the main benchmark process; `pid` is valid until
 * sddsd_stop or sddsd_alive reaped it (then it is 0). The readiness probe
 * is a bare connect() that hangs up at once: the daemon must cope with a
 * client that leaves before its Hello anyway.
 */
#include "sddsd.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

#define SDDSD_READY_TIMEOUT_NS (10 * 1000000000LL)
#define SDDSD_STOP_TIMEOUT_NS (3 * 1000000000LL)

int sddsd_find(const char *explicit_path, char *buf, size_t cap)
{
	char exe[PATH_MAX], cand[PATH_MAX + 32];
	ssize_t len;
	const char *dir;

	if (explicit_path) {
		if (access(explicit_path, X_OK) < 0)
			return -ENOENT;
		if (snprintf(buf, cap, "%s", explicit_path) >= (int)cap)
			return -ENAMETOOLONG;
		return 0;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		return -ENOENT;
	exe[len] = '\0';
	dir = dirname(exe);
	/* Build tree: build/tools/sdds-bench/sdds-bench and build/daemon/sddsd. */
	snprintf(cand, sizeof(cand), "%s/../../daemon/sddsd", dir);
	if (access(cand, X_OK) == 0)
		goto found;
	snprintf(cand, sizeof(cand), "%s/sddsd", dir);
	if (access(cand, X_OK) == 0)
		goto found;
	return -ENOENT;
found:
	if (snprintf(buf, cap, "%s", cand) >= (int)cap)
		return -ENAMETOOLONG;
	return 0;
}

/* The last non-empty line of the daemon's log, or "" (into buf). */
static void sddsd_log_tail(const struct sddsd_proc *d, char *buf, size_t cap)
{
	char tail[512];
	ssize_t n;
	off_t size;
	int fd = open(d->log, O_RDONLY | O_CLOEXEC);
	char *end, *line;

	buf[0] = '\0';
	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	if (size > (off_t)sizeof(tail) - 1)
		lseek(fd, size - (off_t)sizeof(tail) + 1, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	n = read(fd, tail, sizeof(tail) - 1);
	close(fd);
	if (n <= 0)
		return;
	tail[n] = '\0';
	end = tail + n;
	while (end > tail && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	line = strrchr(tail, '\n');
	line = line ? line + 1 : tail;
	n = (ssize_t)strlen(line);
	if ((size_t)n >= cap)
		n = (ssize_t)cap - 1;
	memcpy(buf, line, (size_t)n);
	buf[n] = '\0';
}

static void sddsd_cleanup_files(struct sddsd_proc *d)
{
	unlink(d->sock);
	unlink(d->log);
	rmdir(d->dir);
}

static int sddsd_probe(const char *sock)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd, rc = 0;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int sddsd_start(const char *bin, bool poll_mode, int cpu, struct sddsd_proc *ret, char *why)
{
	struct sddsd_proc d = {0};
	const char *tmp = getenv("TMPDIR");
	int64_t deadline;
	pid_t pid;
	int err;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(d.dir, sizeof(d.dir), "%s/sdds-bench.XXXXXX", tmp);
	if (!mkdtemp(d.dir)) {
		err = -errno;
		bench_why(why, "mkdtemp in %s: %s", tmp, strerror(errno));
		return err;
	}
	if (snprintf(d.sock, sizeof(d.sock), "%s/sddsd.sock", d.dir) >= (int)sizeof(d.sock)) {
		bench_why(why, "socket path under %s is too long", d.dir);
		rmdir(d.dir);
		return -ENAMETOOLONG;
	}
	if (snprintf(d.log, sizeof(d.log), "%s/sddsd.log", d.dir) >= (int)sizeof(d.log)) {
		bench_why(why, "log path under %s is too long", d.dir);
		rmdir(d.dir);
		return -ENAMETOOLONG;
	}

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		bench_why(why, "fork: %s", strerror(errno));
		rmdir(d.dir);
		return err;
	}
	if (pid == 0) {
		char *argv[] = {(char *)bin, "--socket", d.sock, poll_mode ? "--poll" : NULL, NULL};

		if (proc_child_to_log(d.log) < 0)
			_exit(126);
		if (proc_pin_self(cpu) < 0)
			_exit(125);
		execv(bin, argv);
		dprintf(STDERR_FILENO, "exec %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	d.pid = pid;

	deadline = bench_now_ns() + SDDSD_READY_TIMEOUT_NS;
	for (;;) {
		err = sddsd_probe(d.sock);
		if (err == 0)
			break;
		if (!sddsd_alive(&d)) {
			char tail[160];

			sddsd_log_tail(&d, tail, sizeof(tail));
			bench_why(why, "sddsd (%s) exited at start: %s", bin, tail[0] ? tail : "no output");
			sddsd_cleanup_files(&d);
			return -ECHILD;
		}
		if (bench_now_ns() > deadline) {
			char tail[160], scratch[BENCH_WHY_MAX];

			sddsd_log_tail(&d, tail, sizeof(tail));
			bench_why(why, "sddsd did not accept connections within 10 s (%s)%s%s",
				  strerror(-err), tail[0] ? ": " : "", tail);
			sddsd_stop(&d, scratch);
			return -ETIMEDOUT;
		}
		usleep(5000);
	}
	*ret = d;
	return 0;
}

bool sddsd_alive(struct sddsd_proc *d)
{
	int st;

	if (d->pid <= 0)
		return false;
	if (waitpid(d->pid, &st, WNOHANG) == 0)
		return true;
	d->pid = 0;
	return false;
}

int sddsd_stop(struct sddsd_proc *d, char *why)
{
	int st = 0, err = 0;
	pid_t pid = d->pid;

	if (pid <= 0) {
		char tail[160];

		sddsd_log_tail(d, tail, sizeof(tail));
		bench_why(why, "sddsd had died during the run%s%s", tail[0] ? ": " : "", tail);
		sddsd_cleanup_files(d);
		return -ECHILD;
	}
	kill(pid, SIGTERM);
	err = proc_wait_all(&pid, 1, bench_now_ns() + SDDSD_STOP_TIMEOUT_NS, &st);
	d->pid = 0;
	if (err == -ETIMEDOUT) {
		bench_why(why, "sddsd ignored SIGTERM for 3 s and was killed");
		err = -ECHILD;
	} else if ((WIFEXITED(st) && WEXITSTATUS(st) == 0) || (WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM)) {
		err = 0;
	} else {
		char s[64], tail[160];

		proc_status_str(st, s, sizeof(s));
		sddsd_log_tail(d, tail, sizeof(tail));
		bench_why(why, "sddsd ended with %s%s%s", s, tail[0] ? ": " : "", tail);
		err = -ECHILD;
	}
	sddsd_cleanup_files(d);
	return err;
}
