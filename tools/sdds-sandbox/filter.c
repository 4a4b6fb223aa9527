/* SPDX-License-Identifier: MIT */
/*
 * filter.c - the seccomp allow-list (see filter.h for the design).
 *
 * OVERVIEW
 * The list is what glibc's dynamic loader, libc, libpthread and
 * libsddsclient use (strace -f of examples/temperature and itest-peer),
 * plus harmless file calls for a --tmpfs. Calls that would widen what the
 * program can reach are left out on purpose: socket, socketpair, connect,
 * bind, memfd_create, execve (after the first), execveat, ptrace,
 * process_vm_*, pidfd_*, mount and friends, unshare, setns, bpf,
 * perf_event_open, keyctl, add_key, userfaultfd, io_uring_*, open_by_handle_at.
 * Arguments are checked where they decide the risk: clone (threads only,
 * no namespace flags), mmap and mprotect (no executable memory that is or
 * was writable, no anonymous executable memory), ioctl (terminal queries
 * only: no TIOCSTI), prctl (names and queries), kill and tgkill (only the
 * program itself), prlimit64 (only itself).
 */
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "filter.h"

/* Allowed without looking at arguments, grouped by purpose. Names missing
 * on an architecture are skipped. */
/* clang-format off */
static const char *const filter_plain[] = {
	/* files and descriptors */
	"read", "write", "readv", "writev", "pread64", "pwrite64", "preadv",
	"pwritev", "preadv2", "pwritev2", "close", "close_range", "lseek",
	"fstat", "newfstatat", "stat", "lstat", "statx", "fstatfs", "statfs",
	"access", "faccessat", "faccessat2", "readlink", "readlinkat",
	"getdents64", "getcwd", "chdir", "fchdir", "umask", "open", "openat",
	"fcntl", "dup", "dup2", "dup3", "pipe", "pipe2", "eventfd2",
	"mkdir", "mkdirat", "unlink", "unlinkat", "rename", "renameat",
	"renameat2", "ftruncate", "truncate", "fsync", "fdatasync",
	"fallocate", "fadvise64", "timerfd_create", "timerfd_settime",
	"timerfd_gettime",
	/* memory (mmap and mprotect below) */
	"brk", "munmap", "mremap", "madvise", "msync", "mincore",
	/* threads and futexes */
	"futex", "futex_waitv", "set_robust_list", "get_robust_list", "rseq",
	"set_tid_address", "sched_yield", "sched_getaffinity",
	"sched_getparam", "sched_getscheduler", "getcpu", "membarrier",
	"exit", "exit_group", "tkill",
	/* signals */
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend",
	"rt_sigtimedwait", "rt_sigpending", "sigaltstack", "restart_syscall",
	"pause",
	/* time */
	"clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep",
	"gettimeofday", "time",
	/* identity and accounting */
	"getpid", "gettid", "getppid", "getuid", "geteuid", "getgid",
	"getegid", "getresuid", "getresgid", "getgroups", "getpgrp", "getpgid",
	"getsid", "getrlimit", "getrusage", "sysinfo", "times", "uname",
	"getrandom",
	/* waiting */
	"poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1",
	"epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2",
	/* the control socket and the eventfd the daemon handed over */
	"sendmsg", "recvmsg", "sendto", "recvfrom", "sendmmsg", "recvmmsg",
	"shutdown", "getsockopt", "setsockopt", "getsockname", "getpeername",
	/* x86-64 TLS setup in the dynamic loader */
	"arch_prctl",
};
/* clang-format on */

static int filter_add_plain(scmp_filter_ctx ctx, const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return -EINVAL;
	if (nr < 0)
		return 0; /* a pseudo number: not a call of this architecture */
	return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
}

static int filter_add_checked(scmp_filter_ctx ctx)
{
	/* Threads only: the VM, signal handlers and thread group are shared,
	 * and no namespace is asked for. */
	const uint64_t clone_mask = CLONE_VM | CLONE_SIGHAND | CLONE_THREAD | CLONE_NEWNS | CLONE_NEWUSER |
				    CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS |
				    CLONE_NEWCGROUP | CLONE_VFORK;
	const uint64_t clone_want = CLONE_VM | CLONE_SIGHAND | CLONE_THREAD;
	static const uint64_t ioctls[] = {TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIOCLEX, FIONCLEX};
	static const uint64_t prctls[] = {PR_SET_NAME,	     PR_GET_NAME,	  PR_GET_DUMPABLE,
					  PR_CAPBSET_READ,   PR_GET_NO_NEW_PRIVS, PR_GET_SECCOMP,
					  PR_GET_TIMERSLACK, PR_SET_VMA};
	int rc = 0;
	size_t i;

	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
			       SCMP_A0(SCMP_CMP_MASKED_EQ, clone_mask, clone_want));
	/* clone3 passes its flags in memory: say "not implemented" and glibc
	 * falls back to clone, checked above. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);

	/* Executable mappings only from files and never writable. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
			       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 2,
			       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC | PROT_WRITE, PROT_EXEC),
			       SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
			       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));

	for (i = 0; i < sizeof(ioctls) / sizeof(ioctls[0]); i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_EQ, ioctls[i], 0));
	for (i = 0; i < sizeof(prctls) / sizeof(prctls[0]); i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1,
				       SCMP_A0(SCMP_CMP_EQ, prctls[i], 0));

	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1,
			       SCMP_A0(SCMP_CMP_EQ, FILTER_PROGRAM_PID, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
			       SCMP_A0(SCMP_CMP_EQ, FILTER_PROGRAM_PID, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, SCMP_A0(SCMP_CMP_EQ, 0, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(setrlimit), 0);
	return rc ? -EINVAL : 0;
}

int filter_load(const char *const *extra, size_t n_extra, int *ret_notify_fd)
{
	scmp_filter_ctx ctx;
	size_t i;
	int rc, fd;

	ctx = seccomp_init(SCMP_ACT_NOTIFY);
	if (!ctx)
		return -ENOMEM;
	/* The filter must not leave the thread it was made for. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 0);
	if (rc < 0)
		goto fail_release;
	/* Another ABI (int 0x80, x32) bypasses the list's numbers: the whole
	 * process dies, unreported, as the kernel cannot notify for it here. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc < 0)
		goto fail_release;
	for (i = 0; i < sizeof(filter_plain) / sizeof(filter_plain[0]); i++) {
		rc = filter_add_plain(ctx, filter_plain[i]);
		if (rc < 0)
			goto fail_release;
	}
	for (i = 0; i < n_extra; i++) {
		rc = filter_add_plain(ctx, extra[i]);
		if (rc < 0)
			goto fail_release;
	}
	rc = filter_add_checked(ctx);
	if (rc < 0)
		goto fail_release;
	rc = seccomp_load(ctx);
	if (rc < 0)
		goto fail_release;
	fd = seccomp_notify_fd(ctx);
	if (fd < 0) {
		rc = fd;
		goto fail_release;
	}
	/* seccomp_release closes nothing we keep: the notify fd is ours. */
	seccomp_release(ctx);
	*ret_notify_fd = fd;
	return 0;

fail_release:
	seccomp_release(ctx);
	return rc;
}

const char *filter_syscall_name(int nr, char *buf, size_t cap)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

	if (name) {
		snprintf(buf, cap, "%s", name);
		free(name);
	} else {
		snprintf(buf, cap, "nr %d", nr);
	}
	return buf;
}

int filter_execve_nr(void)
{
	return SCMP_SYS(execve);
}
