/* SPDX-License-Identifier: MIT */
/*
 * proc.h - the processes of a benchmark run: shared memory, CPU pinning,
 * forked roles, and programs run beside the benchmark.
 *
 * OVERVIEW
 * Every run forks its role processes from the single-threaded main process,
 * so no other thread can hold a lock across the fork, and shares results
 * with them through a MAP_SHARED memfd mapping made before it. A role
 * returns an exit code and its child _exits with it. The parent waits on
 * pidfds with poll(), so it costs the measured processes no CPU, and kills
 * every child still running at the deadline or as soon as one failed, since
 * its peer would otherwise wait for it until its own timeout. Descriptors
 * made here are close-on-exec, so the daemon exec'd later inherits none. A
 * mapping keeps its memfd open until proc_shm_free, so a role that execs
 * another program (mono.h) can hand the same memory over.
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

/* Maps size zeroed bytes shared with children forked later. 0 or -errno. */
int proc_shm_new(size_t size, struct proc_shm *ret);
/* Unmaps and closes its memfd; accepts a zeroed struct. */
void proc_shm_free(struct proc_shm *s);
/* The memfd of the live mapping at base, also in a forked child; -ENOENT when none. */
int proc_shm_fd(const void *base);

/* The number of CPUs in this process's affinity mask (>= 1). */
int proc_cpu_count(void);
/* The idx-th CPU of the affinity mask, idx taken modulo the count. */
int proc_cpu_nth(int idx);
/* Pins the calling thread to cpu (< 0: does nothing). 0 or -errno. */
int proc_pin_self(int cpu);

/* A role run in a child; returns its exit code (0 = success). */
typedef int (*proc_role_fn)(void *arg);

/*
 * Forks a child that pins itself to cpu (< 0: not pinned) and _exits with
 * fn(arg). 0 with *ret_pid, or -errno.
 */
int proc_spawn(int cpu, proc_role_fn fn, void *arg, pid_t *ret_pid);

/*
 * Reaps the n (<= 8) children in pids, their wait statuses into statuses:
 * 0 when all exited 0, -ETIMEDOUT when deadline_ns killed one, or -ECHILD
 * when one failed.
 */
int proc_wait_all(const pid_t *pids, size_t n, int64_t deadline_ns, int *statuses);

/* A wait status as text ("exit 3", "signal 9 (Killed)") into buf. */
void proc_status_str(int status, char *buf, size_t cap);

/* The two roles of a run (ping and pong, writer and reader). */
struct proc_pair {
	proc_role_fn fn[2]; /* fn[1] NULL: a run of one process */
	void *arg[2];
	int cpu[2];		 /* BENCH_CPU_ANY: not pinned */
	const char *name[2];	 /* how the reason names them */
	const char *why[2];	 /* NULL, or each role's own reason (shared memory) */
	volatile pid_t *running; /* NULL, or 2 slots holding the children while they run */
};

/*
 * Forks and waits for the roles as proc_wait_all does: 0, or -errno with a
 * reason in why (BENCH_WHY_MAX bytes), the roles' own or their statuses.
 */
int proc_run_pair(const struct proc_pair *p, int64_t deadline_ns, char *why);

/* A program run beside the benchmark (iox-roudi, valgrind, ddsperf). */
struct proc_exec {
	const char *const *argv; /* argv[0]: a path, or a name looked up in PATH */
	const char *log;	 /* its stdout and stderr; stdin is /dev/null */
	int pdeathsig;		 /* 0, or the signal it gets when this process dies */
	const char *ready_line;	 /* NULL, or wait until the log holds this text */
	int ready_s;		 /* how long to wait for it */
	const char *name;	 /* how the reasons name the program */
};

/*
 * Starts x. 0 with *ret_pid, to end with proc_exec_stop; else -errno with a
 * reason in why: -ECHILD when it exited before it was ready, -ETIMEDOUT
 * when it was not ready in time (then it is stopped), or fork's error.
 */
int proc_exec_start(const struct proc_exec *x, pid_t *ret_pid, char *why);

/*
 * Ends pid: sends sig (0: none, just waits), waits up to timeout_s, then
 * SIGKILL. 0 when it exited 0 or died of sig; else -ECHILD with a reason in
 * why naming it `name` and quoting the last line of log (may be NULL).
 */
int proc_exec_stop(pid_t pid, int sig, int timeout_s, const char *name, const char *log, char *why);

/* Up to cap - 1 bytes of the file at path into buf ("" when unreadable). */
void proc_log_read(const char *path, char *buf, size_t cap);

#endif /* SDDS_BENCH_PROC_H */
