/* SPDX-License-Identifier: MIT */
/*
 * benchutil.h - what the sdds-bench end-to-end tests share: running a
 * command with its output to a file, checking that output with a python3
 * script, and the usage-error check.
 *
 * OVERVIEW
 * Test-only code linked into each test_bench_* executable (with CMocka).
 * The checks call CMocka's assert/skip/fail macros, so they may only be
 * called from inside a running CMocka test. No function here keeps any
 * state, owns a buffer it is given, or leaves a child process behind: each
 * waits for the one it forked.
 */
#ifndef SDDS_TESTS_BENCHUTIL_H
#define SDDS_TESTS_BENCHUTIL_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Runs argv (argv[0] looked up in PATH unless it has a '/') with stdout,
 * and stderr too when err_too, to fd (borrowed, not closed). Returns the
 * wait status, or -1 when the fork or the wait failed; *ret_pid (may be
 * NULL) gets the child's pid once it was forked.
 */
int benchutil_run(char *const argv[], int fd, bool err_too, pid_t *ret_pid);

/*
 * benchutil_run() with stdout to a new file made by mkstemp() from path
 * (the caller's template, its XXXXXX rewritten in place; the caller
 * removes the file) and stderr passing through. The wait status, or -1
 * when the file could not be made or the fork or the wait failed.
 */
int benchutil_run_to_temp(char *const argv[], char *path, pid_t *ret_pid);

/* Asserts that the wait status status is an exit with code. */
void benchutil_assert_exit(int status, int code);

/*
 * python3 -c SCRIPT FILE [ARG] (ARG left out when NULL; all borrowed).
 * Returns its exit code (127 when python3 is missing), or -1 when it did
 * not exit normally.
 */
int benchutil_python(const char *script, const char *file, const char *arg);

/*
 * Runs the python3 check SCRIPT on the JSON in FILE (ARG as for
 * benchutil_python): skips the test without python3, fails it with the
 * file's first 4 KiB when the check fails.
 */
void benchutil_check_json(const char *script, const char *file, const char *arg);

/* Asserts that argv, its output thrown away, exits 2 (a usage error). */
void benchutil_assert_usage_error(char *const argv[]);

#endif
