/* SPDX-License-Identifier: MIT */
/*
 * sbtest.h - harness of the sandbox tests: a private sddsd, and commands
 * run to completion with their output captured and a deadline.
 *
 * OVERVIEW
 * Every test program starts its own sddsd ($SDDSD) on a socket in a fresh
 * temporary directory (mode 0755, so an unprivileged sandbox can reach the
 * socket) and stops it in the teardown. Commands run with stdin from
 * /dev/null; their stdout and stderr are read into buffers the harness owns
 * (sbtest_run's struct sbtest_out, freed by sbtest_out_free). A command
 * that outlives its deadline is killed (SIGKILL) and the test fails.
 * Children die with the test (PR_SET_PDEATHSIG). Under a sanitizer build
 * a sandbox gets --mem 0 and the program ASAN_OPTIONS detect_leaks=0 (see
 * sbtest_start): the seccomp list itself stays the same.
 */
#ifndef SDDS_TESTS_SANDBOX_SBTEST_H
#define SDDS_TESTS_SANDBOX_SBTEST_H

#include <stdbool.h>
#include <sys/types.h>

struct sbtest_daemon {
	pid_t pid;
	char dir[64];
	char sock[96];
};

struct sbtest_out {
	int status; /* exit code, or 128+signal */
	char *out;  /* stdout, NUL-terminated */
	char *err;  /* stderr, NUL-terminated */
};

/* 77 (skip) unless $SDDSD, $SDDS_SANDBOX and $SDDS_PROBE are executables;
 * also 77 when namespaces cannot be made here. Returns 0 to go on. */
int sbtest_need_tools(void);

/* Start and stop sddsd; fails the current test on error. */
void sbtest_daemon_start(struct sbtest_daemon *d);
void sbtest_daemon_stop(struct sbtest_daemon *d);
/* SIGKILL the daemon and start a new one on the same socket path. */
void sbtest_daemon_restart(struct sbtest_daemon *d);

/*
 * Run argv (NULL-terminated) with a deadline of timeout_ms; as_nobody runs
 * it through setpriv as uid/gid 65534. Returns 0 and *ret, or fails the
 * test. A background variant returns the pid and pipe fds for a process
 * the test finishes with sbtest_finish.
 */
void sbtest_run(char *const argv[], bool as_nobody, int timeout_ms, struct sbtest_out *ret);
void sbtest_start(char *const argv[], bool as_nobody, pid_t *ret_pid, int *ret_out, int *ret_err);
/* The same with stdin a pipe whose write end *ret_in the caller closes. */
void sbtest_start_in(char *const argv[], bool as_nobody, pid_t *ret_pid, int *ret_in, int *ret_out,
		     int *ret_err);
void sbtest_finish(pid_t pid, int out_fd, int err_fd, int timeout_ms, struct sbtest_out *ret);
void sbtest_out_free(struct sbtest_out *o);

/*
 * A sandbox run as uid 65534 gets --allow-weak-limits unless a test clears
 * this: that uid has no cgroup it may write (no delegated subtree), so
 * sdds-sandbox would refuse to start, and the tests that run as it are
 * about the other layers (test_cgroup tests the limits and the refusal).
 */
extern bool sbtest_nobody_weak_limits;

/*
 * Where sdds-sandbox takes the cgroup v2 path (the unified hierarchy has
 * the memory and pids controllers: a pure-v2 host) and the test runs in a
 * cgroup other than the root (a login session's scope, shared with the
 * shell, the test and its sddsd), a root sandbox would be refused: v2
 * enables controllers only in a cgroup without processes. So, as systemd's
 * Delegate=yes would, the harness makes D = MOUNT/sdds-test.PID with memory
 * and pids enabled, and every command it runs as root starts alone in
 * D/run.CHILD, removed when it was reaped (D at exit). memory and pids
 * are enabled in the mount's root only where off, and the last test
 * program out disables what test programs enabled there (listed in
 * /run/sdds-test-cgroup.lock), so the host is left as found. Returns D, or NULL
 * where commands stay in the test's own cgroup (a v1 or hybrid host, the
 * root cgroup, not root).
 */
const char *sbtest_cgroup_delegated(void);

/* True when an unprivileged user may create user namespaces here. */
bool sbtest_nobody_userns(void);

/* True when the tests run under a sanitizer build (meson sets $SDDS_SANITIZED). */
bool sbtest_sanitized(void);

#endif /* SDDS_TESTS_SANDBOX_SBTEST_H */
