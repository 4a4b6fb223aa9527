/* SPDX-License-Identifier: MIT */
/*
 * sddsd_run.h - start and stop a private sddsd as a child process: the one
 * launcher of the benchmarks (tools/sdds-bench/sddsd.c) and the test
 * harnesses (tests/integration/itest.c, tests/daemon/tclient.c).
 *
 * OVERVIEW
 * The caller owns the daemon's pid, directory and paths (each harness keeps
 * its own record of them, and its own table of live daemons for its signal
 * handlers); this module forks and execs, prepares the child, probes the
 * socket and reaps. `bin --socket SOCK [-c CONFIG] [EXTRA...]` runs with
 * stdin from /dev/null, every signal at its default and none blocked (a
 * test that ignores SIGPIPE does not hand that on), optionally pinned to a
 * CPU, with an RLIMIT_NOFILE, with its output in a log file, and killed
 * with its parent. The daemon is ready when a connect() on its socket
 * succeeds: the probe hangs up at once, which the daemon must cope with
 * anyway. Nothing here logs; errors are -errno. Single-threaded callers.
 */
#ifndef SDDS_TOOLS_SDDSD_RUN_H
#define SDDS_TOOLS_SDDSD_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What to start; sddsd_run_opts_init() gives the defaults. Strings are the caller's. */
struct sddsd_run_opts {
	const char *bin;	  /* the daemon binary */
	const char *sock;	  /* --socket */
	const char *config;	  /* NULL, or -c CONFIG */
	const char *const *extra; /* NULL-terminated arguments after those (at most 24), or NULL */
	const char *log;	  /* NULL: stdout and stderr are ours; else both to this file (0600) */
	int cpu;		  /* pin the daemon to this CPU; -1 (default): not pinned */
	unsigned long nofile;	  /* RLIMIT_NOFILE soft = hard = nofile; 0 (default): ours */
	bool die_with_parent;	  /* PR_SET_PDEATHSIG = SIGKILL */
	int ready_ms;		  /* how long to wait for the socket (default 10000) */
};

void sddsd_run_opts_init(struct sddsd_run_opts *o);

/*
 * Makes the directory $TMPDIR/prefix.XXXXXX (/tmp without TMPDIR) into dir
 * (cap bytes). 0 or -errno.
 */
int sddsd_run_tmpdir(const char *prefix, char *dir, size_t cap);

/* Writes text to path (created or truncated, 0600). 0 or -errno. */
int sddsd_run_write(const char *path, const char *text);

/*
 * Starts the daemon and waits until its socket accepts a connection.
 * 0 with *ret_pid (the caller's child, to stop with sddsd_run_stop);
 * -ECHILD when it exited during the start (reaped, its wait status in
 * *ret_status, which may be NULL); -ETIMEDOUT when it did not answer in
 * ready_ms (killed and reaped); or -errno of fork.
 */
int sddsd_run_start(const struct sddsd_run_opts *o, pid_t *ret_pid, int *ret_status);

/* Whether a connect() on the socket at path succeeds (it hangs up at once). */
bool sddsd_run_answers(const char *path);

/*
 * Waits up to timeout_ms for pid to exit: 0 with its wait status in
 * *ret_status, -ETIMEDOUT (still running), or -errno of waitpid.
 */
int sddsd_run_reap(pid_t pid, int timeout_ms, int *ret_status);

/*
 * Sends sig, waits up to timeout_ms, then SIGKILLs; always reaped. 0 when
 * it exited in time, -ETIMEDOUT when it had to be killed, or -errno; the
 * wait status in *ret_status either way (may be NULL).
 */
int sddsd_run_stop(pid_t pid, int sig, int timeout_ms, int *ret_status);

/* The last non-empty line of the file at path into buf (cap bytes), or "". */
void sddsd_run_log_tail(const char *path, char *buf, size_t cap);

#endif /* SDDS_TOOLS_SDDSD_RUN_H */
