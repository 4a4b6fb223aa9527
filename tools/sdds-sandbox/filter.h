/* SPDX-License-Identifier: MIT */
/*
 * filter.h - the seccomp allow-list of sdds-sandbox.
 *
 * OVERVIEW
 * filter_load installs, in the calling thread (the sandbox child, single
 * threaded, right before execve), a filter whose default action is
 * SECCOMP_RET_USER_NOTIF: every system call outside the allow-list stops
 * in the kernel until the supervisor, which holds the listener fd, answers.
 * The supervisor reports the call by name and then kills the sandbox or
 * fails the call with EPERM (--seccomp-default). execve and execveat are
 * never allowed by the filter: the supervisor lets the very first execve
 * through (SECCOMP_USER_NOTIF_FLAG_CONTINUE) and treats every later one as
 * a violation. clone3 fails with ENOSYS without a report, since its flags
 * live in memory the filter cannot read; libc then falls back to clone,
 * whose flags the filter checks (threads only). An mmap with PROT_EXEC is
 * never allowed by the filter either: the supervisor asks
 * filter_exec_map_refusal and lets it continue or denies it (W^X, see
 * filter.c).
 */
#ifndef SDDS_SANDBOX_FILTER_H
#define SDDS_SANDBOX_FILTER_H

/* The program's pid inside its PID namespace: the sandbox's init is 1 and
 * forks the program first. kill and tgkill may only aim at it. */
#define FILTER_PROGRAM_PID 2

#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Load the filter into the calling thread. extra (n_extra names, may be
 * NULL) are system calls allowed on top of the list (unknown names give
 * -EINVAL; mmap, mprotect, pkey_mprotect and personality give -EPERM, as
 * W^X depends on their arguments). Sets PR_SET_MDWE where the kernel has
 * it. On success *ret_notify_fd is the listener fd (owned by the
 * caller). PR_SET_NO_NEW_PRIVS must be set already. Returns 0 or -errno.
 */
int filter_load(const char *const *extra, size_t n_extra, int *ret_notify_fd);

/* Whether name may not be an extra of filter_load: a call whose arguments
 * W^X depends on, for which an unconditional rule would win over the
 * checked ones. */
bool filter_allow_refused(const char *name);

/* Whether a call the filter sent to the supervisor is an mmap with
 * PROT_EXEC (req: the notification, the caller's). */
bool filter_is_exec_map(const struct seccomp_notif *req);

/*
 * Why the executable mapping of req must be denied, as a static string, or
 * NULL when it may continue (SECCOMP_USER_NOTIF_FLAG_CONTINUE): a private
 * read-only mapping of a regular file on a read-only mount of the
 * program's view, by a program of one thread. notify_fd: the listener.
 */
const char *filter_exec_map_refusal(int notify_fd, const struct seccomp_notif *req);

/* Name of system call nr of the native architecture into buf (cap bytes,
 * the caller's); "nr N" when libseccomp does not know it. Returns buf. */
const char *filter_syscall_name(int nr, char *buf, size_t cap);

/* The native number of execve, for the supervisor's first-exec check. */
int filter_execve_nr(void);

#endif /* SDDS_SANDBOX_FILTER_H */
