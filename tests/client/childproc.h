/* SPDX-License-Identifier: MIT */
/*
 * childproc.h - client processes of the client tests: the test program run
 * again with a role.
 *
 * OVERVIEW
 * A test that needs a second client process spawns its own executable
 * again (argv "--child ROLE SOCKET"; the program's main dispatches on ROLE
 * before anything else) instead of going on in a forked copy of itself. The
 * test process runs threads (every client has a monitor thread), and the
 * child of a multithreaded process inherits every lock another thread held
 * at fork time, held for good: it may make only async-signal-safe calls
 * until it execs. A forked copy that created a client anyway hung, under
 * ASan, in its monitor thread's start (an allocator lock of the sanitizer
 * runtime that the parent's starting monitor held), never saw the daemon
 * die, and its writer timed out on the request ring of the dead daemon
 * (issue 2). An exec'd child starts with one thread, fresh runtimes, and
 * none of the parent's mappings or close-on-exec descriptors.
 *
 * Test-only code linked into each test program that uses it. childproc_wait
 * calls CMocka's fail_msg, so it may only be called from a running CMocka
 * test. Nothing here keeps state or owns what it is given.
 */
#ifndef SDDS_TESTS_CHILDPROC_H
#define SDDS_TESTS_CHILDPROC_H

#include <sys/types.h>

/*
 * Run self (the test program, argv[0] of main) with "--child role sock";
 * the child's stdin is in_fd (borrowed: the parent keeps and closes its
 * copy), or the parent's stdin when in_fd < 0. Between fork and exec the
 * child makes only async-signal-safe calls. Returns the pid, or -errno
 * when fork failed.
 */
pid_t childproc_spawn(const char *self, const char *role, const char *sock, int in_fd);

/*
 * Wait up to ms for pid to exit and return its exit status. A child still
 * running then is killed (SIGKILL) and reaped, and the test fails; so does
 * one that a signal ended.
 */
int childproc_wait(pid_t pid, int ms);

#endif /* SDDS_TESTS_CHILDPROC_H */
