/* SPDX-License-Identifier: MIT */
/*
 * benchutil.h - what the sdds-bench end-to-end tests share: running a
 * command with its output to a file, checking that output with a python3
 * script, and the usage-error check.
 *
 * OVERVIEW
 * The checks use CMocka's assert, skip and fail macros, so they may only be
 * called from inside a running CMocka test. Each helper waits for the child
 * it forked, and a descriptor or buffer it is given stays the caller's.
 */
#ifndef SDDS_TESTS_BENCHUTIL_H
#define SDDS_TESTS_BENCHUTIL_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Runs argv (argv[0] looked up in PATH) with stdout, and stderr too when
 * err_too, to fd. The wait status, or -1 when the fork or the wait failed;
 * *ret_pid (may be NULL) gets the child's pid once it was forked.
 */
int benchutil_run(char *const argv[], int fd, bool err_too, pid_t *ret_pid);

/*
 * benchutil_run with stdout to a new file made by mkstemp from the
 * template path (rewritten in place; the caller removes the file). The
 * wait status, or -1.
 */
int benchutil_run_to_temp(char *const argv[], char *path, pid_t *ret_pid);

/* Asserts that the wait status status is an exit with code. */
void benchutil_assert_exit(int status, int code);

/*
 * python3 -c SCRIPT FILE [ARG] (ARG left out when NULL): its exit code (127
 * when python3 is missing), or -1 when it did not exit normally.
 */
int benchutil_python(const char *script, const char *file, const char *arg);

/*
 * benchutil_python: skips the test without python3, fails it with the
 * file's first 4 KiB when the check fails.
 */
void benchutil_check_json(const char *script, const char *file, const char *arg);

/* Asserts that argv, its output thrown away, exits 2 (a usage error). */
void benchutil_assert_usage_error(char *const argv[]);

#endif
