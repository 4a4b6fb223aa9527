/* SPDX-License-Identifier: MIT */
/*
 * peerrun.h - processes of the sdds-peer tests: start a program (optionally
 * inside a network namespace) with its stdout and stderr in a file, wait for
 * a line in that file, wait for the exit with a deadline.
 *
 * OVERVIEW
 * Every started process is the caller's to reap with peerrun_wait (which
 * kills it when the deadline passes). Paths are the caller's strings.
 */
#ifndef SDDS_TESTS_PEERRUN_H
#define SDDS_TESTS_PEERRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Run argv (NULL-terminated) with stdout+stderr to out (removed first, then
 * created by the child); ns NULL: this namespace. Returns the pid or -errno.
 */
pid_t peerrun_start(const char *ns, const char *out, char *const argv[]);

/* True once the file at path holds a line starting with prefix, within ms. */
bool peerrun_wait_line(const char *path, const char *prefix, int ms);

/* Exit status of pid (128 + signal when killed), SIGKILL after ms; -1 on error. */
int peerrun_wait(pid_t pid, int ms);

/* The file's first 64 KiB, NUL-terminated, into buf (cap bytes). */
int peerrun_slurp(const char *path, char *buf, size_t cap);

#endif /* SDDS_TESTS_PEERRUN_H */
