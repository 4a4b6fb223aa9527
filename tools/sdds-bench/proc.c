/* SPDX-License-Identifier: MIT */
/* proc.c - shared memory, pinning and role processes (see proc.h). */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "sddsd_run.h"

#define PROC_MAX_CHILDREN 8
#define PROC_MAX_SHM 8
#define PROC_EXIT_PIN 120

/* The live mappings and their memfds; a forked child has its copy of the table. */
static struct {
	void *base; /* NULL: a free slot */
	int fd;
} proc_shms[PROC_MAX_SHM];

int proc_shm_new(size_t size, struct proc_shm *ret)
{
	void *base;
	int fd, err, slot = -1;

	for (int i = 0; i < PROC_MAX_SHM && slot < 0; i++)
		if (proc_shms[i].base == NULL)
			slot = i;
	if (slot < 0)
		return -EMFILE;

	/* A memfd like the daemon's segments, so both paths use the same kind of memory. */
	fd = memfd_create("sdds-bench", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	base = ftruncate(fd, (off_t)size) < 0 ? MAP_FAILED
					      : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	proc_shms[slot].base = base;
	proc_shms[slot].fd = fd;
	*ret = (struct proc_shm){base, size};
	return 0;
}

void proc_shm_free(struct proc_shm *s)
{
	for (int i = 0; s->base && i < PROC_MAX_SHM; i++) {
		if (proc_shms[i].base == s->base) {
			close(proc_shms[i].fd);
			proc_shms[i].base = NULL;
		}
	}
	if (s->base)
		munmap(s->base, s->size);
	*s = (struct proc_shm){NULL, 0};
}

int proc_shm_fd(const void *base)
{
	for (int i = 0; base && i < PROC_MAX_SHM; i++)
		if (proc_shms[i].base == base)
			return proc_shms[i].fd;
	return -ENOENT;
}

int proc_cpu_count(void)
{
	cpu_set_t set;

	/* A mask the kernel returns has at least one CPU: this one runs on it. */
	return sched_getaffinity(0, sizeof(set), &set) < 0 ? 1 : CPU_COUNT(&set);
}

int proc_cpu_nth(int idx)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return idx;
	idx %= CPU_COUNT(&set);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && idx-- == 0)
			return cpu;
	return 0;
}

int proc_pin_self(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	/* CPU_SET ignores a cpu beyond the set: the empty mask is then EINVAL. */
	CPU_SET(cpu, &set);
	/* pid 0 is the calling thread; children inherit the mask at fork. */
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	return 0;
}

/* Buffered output would be written twice, once by each process. */
static pid_t proc_fork(void)
{
	fflush(stdout);
	fflush(stderr);
	return fork();
}

int proc_spawn(int cpu, proc_role_fn fn, void *arg, pid_t *ret_pid)
{
	pid_t pid = proc_fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int rc;

		/* The parent's handlers clean up its namespaces and RouDi; a role just dies. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (proc_pin_self(cpu) < 0)
			_exit(PROC_EXIT_PIN);
		rc = fn(arg);
		fflush(stdout);
		fflush(stderr);
		_exit(rc & 0xff);
	}
	*ret_pid = pid;
	return 0;
}

int proc_wait_all(const pid_t *pids, size_t n, int64_t deadline_ns, int *statuses)
{
	struct pollfd pfd[PROC_MAX_CHILDREN];
	bool done[PROC_MAX_CHILDREN] = {false};
	bool timed_out = false, failed = false, killed = false;
	size_t left = n;

	if (n > PROC_MAX_CHILDREN)
		return -EINVAL;
	/*
	 * A pidfd (Linux 5.3) becomes readable when its process exits, so the
	 * parent sleeps in poll with a deadline. Without one (an old kernel)
	 * poll just times out and waitpid still reaps.
	 */
	for (size_t i = 0; i < n; i++)
		pfd[i] = (struct pollfd){.fd = (int)syscall(SYS_pidfd_open, pids[i], 0), .events = POLLIN};
	while (left > 0) {
		int64_t now = bench_now_ns();
		int timeout_ms = (int)((deadline_ns - now) / 1000000 + 1);

		/* The peer of a failed role would only wait for it: stop it now. */
		if (!killed && (failed || now >= deadline_ns)) {
			timed_out = !failed;
			killed = true;
			for (size_t i = 0; i < n; i++)
				if (!done[i])
					kill(pids[i], SIGKILL);
		}
		/* A failed poll (EINTR, ENOMEM) only makes the loop come round sooner. */
		poll(pfd, n, killed ? 100 : timeout_ms > 1000 ? 1000 : timeout_ms);
		for (size_t i = 0; i < n; i++) {
			pid_t r;

			if (done[i] || (r = waitpid(pids[i], &statuses[i], WNOHANG)) == 0)
				continue;
			if (r < 0)
				statuses[i] = 0x7f00; /* reaped elsewhere: report as exit 127 */
			done[i] = true;
			left--;
			failed |= !WIFEXITED(statuses[i]) || WEXITSTATUS(statuses[i]) != 0;
			/* An exited process's pidfd stays readable: poll no more on it. */
			if (pfd[i].fd >= 0)
				close(pfd[i].fd);
			pfd[i].fd = -1;
		}
	}
	return timed_out ? -ETIMEDOUT : failed ? -ECHILD : 0;
}

void proc_status_str(int status, char *buf, size_t cap)
{
	if (WIFEXITED(status))
		snprintf(buf, cap, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, cap, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, cap, "status 0x%x", status);
}

int proc_run_pair(const struct proc_pair *p, int64_t deadline_ns, char *why)
{
	size_t n = p->fn[1] ? 2 : 1;
	pid_t pids[2] = {0, 0};
	int st[2] = {0, 0}, err = 0;
	char s0[64], s1[64];
	const char *w0 = p->why[0] ? p->why[0] : "", *w1 = p->why[1] ? p->why[1] : "";

	/* Role 1 goes first: role 0 waits until it is ready. */
	for (int role = (int)n - 1; role >= 0 && err == 0; role--) {
		err = proc_spawn(p->cpu[role], p->fn[role], p->arg[role], &pids[role]);
		if (err == 0 && p->running)
			p->running[role] = pids[role];
	}
	if (err < 0) {
		bench_why(why, "fork: %s", strerror(-err));
		/* A deadline already past kills the role forked first, and reaps it. */
		if (pids[1] > 0)
			proc_wait_all(&pids[1], 1, 0, &st[1]);
	} else {
		err = proc_wait_all(pids, n, deadline_ns, st);
		proc_status_str(st[0], s0, sizeof(s0));
		proc_status_str(st[1], s1, sizeof(s1));
		if (err < 0 && (w0[0] || w1[0]))
			bench_why(why, "%s%s%s%s", err == -ETIMEDOUT ? "killed at the deadline: " : "", w0,
				  w0[0] && w1[0] ? "; " : "", w1);
		else if (err < 0)
			bench_why(why, "%s (%s: %s%s%s%s%s)",
				  err == -ETIMEDOUT ? "did not end in time" : "a side died", p->name[0], s0,
				  n == 2 ? ", " : "", n == 2 ? p->name[1] : "", n == 2 ? ": " : "",
				  n == 2 ? s1 : "");
	}
	if (p->running)
		p->running[0] = p->running[1] = 0;
	return err;
}

void proc_log_read(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, cap - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
}

int proc_exec_start(const struct proc_exec *x, pid_t *ret_pid, char *why)
{
	int64_t deadline = bench_now_ns() + (int64_t)x->ready_s * 1000000000;
	char log[8192], tail[160];
	pid_t pid = proc_fork();
	int st, err = -errno;

	if (pid < 0) {
		/* errno read before bench_why's vsnprintf may change it. */
		bench_why(why, "fork: %s", strerror(-err));
		return err;
	}
	if (pid == 0) {
		int fd = open(x->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

		/* dup2 clears close-on-exec on the copies only. */
		if (fd < 0 || nul < 0 || dup2(nul, STDIN_FILENO) < 0 || dup2(fd, STDOUT_FILENO) < 0 ||
		    dup2(fd, STDERR_FILENO) < 0)
			_exit(126);
		prctl(PR_SET_PDEATHSIG, x->pdeathsig);
		execvp(x->argv[0], (char *const *)x->argv);
		dprintf(STDERR_FILENO, "exec %s: %s\n", x->argv[0], strerror(errno));
		_exit(127);
	}
	while (x->ready_line) {
		bool exited;

		proc_log_read(x->log, log, sizeof(log));
		if (strstr(log, x->ready_line))
			break;
		/* Reaped here it is gone, deadline or not: never stop a pid that may be reused. */
		exited = waitpid(pid, &st, WNOHANG) == pid;
		if (exited || bench_now_ns() > deadline) {
			if (!exited)
				sddsd_run_stop(pid, SIGTERM, 5000, NULL);
			sddsd_run_log_tail(x->log, tail, sizeof(tail));
			bench_why(why, "%s %s: %s", x->name, exited ? "exited at start" : "not ready in time",
				  tail[0] ? tail : "no output");
			return exited ? -ECHILD : -ETIMEDOUT;
		}
		usleep(10000);
	}
	*ret_pid = pid;
	return 0;
}

int proc_exec_stop(pid_t pid, int sig, int timeout_s, const char *name, const char *log, char *why)
{
	char s[64], tail[160] = "";
	int st = 0;

	/* SIGCONT is a no-op to a running program: then this only waits. */
	if (sddsd_run_stop(pid, sig ? sig : SIGCONT, timeout_s * 1000, &st) == -ETIMEDOUT) {
		bench_why(why, "%s %s%s for %d s and was killed", name, sig ? "ignored SIG" : "did not end",
			  sig ? sigabbrev_np(sig) : "", timeout_s);
		return -ECHILD;
	}
	if ((WIFEXITED(st) && WEXITSTATUS(st) == 0) || (WIFSIGNALED(st) && WTERMSIG(st) == sig))
		return 0;
	if (log)
		sddsd_run_log_tail(log, tail, sizeof(tail));
	proc_status_str(st, s, sizeof(s));
	bench_why(why, "%s ended with %s%s%s", name, s, tail[0] ? ": " : "", tail);
	return -ECHILD;
}
