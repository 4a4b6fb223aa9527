/* SPDX-License-Identifier: MIT */
/*
 * proc.h - the processes of a benchmark run: shared memory, CPU pinning,
 * forked role processes and waiting for them with a deadline.
 *
 * OVERVIEW
 * Every run forks its role processes from the single-threaded main process
 * (so fork is safe: no lock of another thread can be held) and shares
 * results with them through a MAP_SHARED memfd mapping made before the fork.
 * A role function returns 0 or an exit code; it never returns into the
 * caller's stack in the child (the child _exits). The parent waits on pidfds
 * with poll(), so it sleeps and costs the measured processes no CPU, and
 * kills every child still running when the deadline passes or when one of
 * them failed (its peer would otherwise wait for it until its own timeout).
 * All descriptors made here are close-on-exec, so the daemon exec'd later
 * inherits none of them. A shared mapping keeps its memfd open until
 * proc_shm_free (a table of at most PROC_MAX_SHM live mappings), so a role
 * that execs another program (mono.h) can hand the same memory over.
 * Programs the benchmark runs beside it (proc_exec_start) are children of
 * the main process too, ended and explained by proc_exec_stop.
 */
#ifndef SDDS_BENCH_PROC_H
#define SDDS_BENCH_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_shm {
	void *base; /* mapping, owned */
	size_t size;
};

#define PROC_MAX_SHM 8

/*
 * Map size zeroed bytes shared with children forked later. Returns 0, or
 * -errno (-EMFILE with PROC_MAX_SHM mappings live).
 */
int proc_shm_new(size_t size, struct proc_shm *ret);
/* Unmap and close its memfd; accepts a zeroed struct. */
void proc_shm_free(struct proc_shm *s);
/*
 * The memfd (close-on-exec, proc.c's) of the live mapping that starts at
 * base, also in a forked child; -ENOENT when there is none.
 */
int proc_shm_fd(const void *base);

/* Number of CPUs in this process's affinity mask (>= 1). */
int proc_cpu_count(void);
/* The idx-th CPU id of the affinity mask (idx taken modulo the count). */
int proc_cpu_nth(int idx);
/* Pin the calling thread to cpu; cpu < 0 does nothing. Returns 0 or -errno. */
int proc_pin_self(int cpu);

/* A role run in a child; returns its exit code (0 = success). */
typedef int (*proc_role_fn)(void *arg);

/*
 * Fork a child that pins itself to cpu (< 0: not pinned), runs fn(arg) and
 * _exits with its result (an exit code 120 if pinning failed). *ret_pid is
 * the child. Returns 0 or -errno.
 */
int proc_spawn(int cpu, proc_role_fn fn, void *arg, pid_t *ret_pid);

/*
 * Wait for the n children in pids until deadline_ns (CLOCK_MONOTONIC).
 * statuses[i] gets the wait status of child i. A child that fails (non-zero
 * exit or a signal) makes the others be killed at once; at the deadline
 * everyone left is killed. Every child is reaped before this returns.
 * Returns 0 when all exited 0, -ETIMEDOUT when the deadline killed someone,
 * -ECHILD when a child failed, or another -errno.
 */
int proc_wait_all(const pid_t *pids, size_t n, int64_t deadline_ns, int *statuses);

/* Describe a wait status ("exit 3", "signal 9 (Killed)") into buf. */
void proc_status_str(int status, char *buf, size_t cap);

/* The two roles of a run (ping and pong, writer and reader), as proc_run_pair forks them. */
struct proc_pair {
	proc_role_fn fn[2];	 /* fn[1] NULL: a run of one process */
	void *arg[2];		 /* copied into each child by the fork */
	int cpu[2];		 /* BENCH_CPU_ANY: not pinned */
	const char *name[2];	 /* how the reason names them ("ping", "pong") */
	const char *why[2];	 /* NULL, or each role's own reason (shared memory), read once they ended */
	volatile pid_t *running; /* NULL, or 2 slots holding the children while they run (signal handlers) */
};

/*
 * Forks role 1, then role 0 (role 1 announces that it is ready), and waits
 * for both until deadline_ns as proc_wait_all does. Returns 0, or -errno
 * with a reason in why (BENCH_WHY_MAX bytes): the roles' own reasons, else
 * their wait statuses.
 */
int proc_run_pair(const struct proc_pair *p, int64_t deadline_ns, char *why);

/*
 * A program run beside the benchmark (iox-roudi, valgrind, ddsperf): forked,
 * exec'd, optionally awaited until its log holds a line, stopped at the end.
 * The strings are the caller's.
 */
struct proc_exec {
	const char *const *argv; /* argv[0]: a path, or a name looked up in PATH */
	const char *log;	 /* NULL: our stdout and stderr; else both to it (0600), stdin /dev/null */
	int pdeathsig;		 /* 0, or the signal the child gets when this process dies */
	const char *ready_line;	 /* NULL, or wait until the log holds this text */
	int ready_s;		 /* how long to wait for it */
	const char *name;	 /* how the reasons name the program */
};

/*
 * Start x. 0 with *ret_pid (the caller's child, to end with proc_exec_stop);
 * else -errno with a reason in why: -ECHILD when it exited before it was
 * ready (reaped), -ETIMEDOUT when it was not ready in time (stopped and
 * reaped), or the error of fork.
 */
int proc_exec_start(const struct proc_exec *x, pid_t *ret_pid, char *why);

/*
 * End pid: send sig (0: none, just wait), wait up to timeout_s, then
 * SIGKILL; always reaped. 0 when it exited 0 or died of sig; else -ECHILD
 * with a reason in why naming it `name` and quoting the last line of log
 * (may be NULL).
 */
int proc_exec_stop(pid_t pid, int sig, int timeout_s, const char *name, const char *log, char *why);

/* Up to cap - 1 bytes of the file at path into buf, NUL-terminated ("" when unreadable). */
void proc_log_read(const char *path, char *buf, size_t cap);

#endif /* SDDS_BENCH_PROC_H */
