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
 * no namespace flags), mprotect and pkey_mprotect (never PROT_EXEC), ioctl
 * (terminal queries only: no TIOCSTI), prctl (names and queries), kill and
 * tgkill (only the program itself), prlimit64 (only itself).
 *
 * W^X. Code the program wrote must never run. Writable memory is never
 * made executable (mprotect and pkey_mprotect without PROT_EXEC), and an
 * mmap with PROT_EXEC is never allowed by the filter itself: it stops at
 * the supervisor, which lets it continue only when filter_exec_map_refusal
 * finds nothing to refuse: a private, read-only mapping of a regular file that lies on a
 * read-only mount of the program's own view (the bound program, ld.so and
 * libraries), asked for while the program has one thread. The segment
 * memfd fails the mount test (it lives on the kernel's internal shmem
 * mount, which is in no mount namespace), so neither a MAP_SHARED nor a
 * MAP_PRIVATE executable alias of memory the program can write exists; a
 * private mapping would show the file's pages, written through the shared
 * RW mapping, until it is written itself. The filter cannot tell files
 * apart (it sees the fd number only), hence the supervisor. The one-thread
 * rule closes the race seccomp_unotify(2) warns of: with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE the kernel runs the call on whatever the
 * fd number names at that time, and only another thread of the group could
 * have changed it (clone is limited to threads, so no other process shares
 * the fd table); the one thread waits in the kernel for our answer.
 * --allow-syscall cannot name a call whose arguments W^X depends on
 * (mmap, mprotect, pkey_mprotect, personality: READ_IMPLIES_EXEC), since
 * an unconditional rule would win over the checked ones.
 */
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filter.h"

#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#endif
#ifndef PR_MDWE_REFUSE_EXEC_GAIN
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif

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

	/* No PROT_EXEC in the filter: such an mmap goes to the supervisor
	 * (filter_exec_map_allowed), and no protection change ever adds it. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
			       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
			       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(pkey_mprotect), 1,
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

bool filter_allow_refused(const char *name)
{
	static const char *const names[] = {"mmap", "mprotect", "pkey_mprotect", "personality"};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

int filter_load(const char *const *extra, size_t n_extra, int *ret_notify_fd)
{
	scmp_filter_ctx ctx;
	size_t i;
	int rc, fd;

	for (i = 0; i < n_extra; i++)
		if (filter_allow_refused(extra[i]))
			return -EPERM;
	/*
	 * The kernel's own W^X where it has it (Linux 6.3): no mapping both
	 * writable and executable, none that gains PROT_EXEC, whatever the list
	 * says. It survives execve. Older kernels (Debian 12's 6.1) say EINVAL:
	 * the filter alone holds the line there.
	 */
	if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
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

/* "Threads:" of /proc/<tid>/status: the thread group's count, or 0. */
static unsigned long filter_threads(pid_t tid)
{
	char path[64], line[128];
	unsigned long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %lu", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* The mount id of the program's fd (fdinfo "mnt_id:"), or -1. */
static long filter_fd_mount(pid_t tid, int fd)
{
	char path[64], line[128];
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)tid, fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "mnt_id: %ld", &id) == 1)
			break;
	fclose(f);
	return id;
}

/*
 * Whether mount id is a mount of the program's own namespace and mounted
 * read-only there: field 1 of /proc/<tid>/mountinfo is the id, field 6 the
 * mount's own options ("ro,nosuid,..."). -1: not there at all.
 */
static int filter_mount_ro(pid_t tid, long mnt_id)
{
	char path[64], opts[256];
	char *line = NULL;
	size_t cap = 0;
	int ro = -1;
	long id;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	/* getline: a long mount point must not split into a second "line". */
	while (ro < 0 && getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%ld %*d %*s %*s %*s %255s", &id, opts) != 2 || id != mnt_id)
			continue;
		ro = strcmp(opts, "ro") == 0 || strncmp(opts, "ro,", 3) == 0;
	}
	free(line);
	fclose(f);
	return ro;
}

bool filter_is_exec_map(const struct seccomp_notif *req)
{
	return req->data.nr == SCMP_SYS(mmap) && (req->data.args[2] & PROT_EXEC);
}

const char *filter_exec_map_refusal(int notify_fd, const struct seccomp_notif *req)
{
	const uint64_t prot = req->data.args[2], flags = req->data.args[3];
	const int fd = (int)req->data.args[4];
	const pid_t tid = (pid_t)req->pid;
	char path[64];
	struct stat st;
	long mnt;
	int ro;

	if (prot & ~(uint64_t)(PROT_READ | PROT_EXEC))
		return "executable and writable";
	if ((flags & MAP_TYPE) != MAP_PRIVATE)
		return "executable MAP_SHARED mapping";
	if ((flags & MAP_ANONYMOUS) || fd < 0)
		return "executable anonymous memory";
	/* Checked first: with one thread nothing can change the fd table
	 * until we answer (OVERVIEW). */
	if (filter_threads(tid) != 1)
		return "executable mapping while the program has more than one thread";
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)tid, fd);
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return "executable mapping of no regular file";
	mnt = filter_fd_mount(tid, fd);
	ro = mnt < 0 ? -1 : filter_mount_ro(tid, mnt);
	if (ro < 0)
		return "executable mapping of a file outside the view, such as a memfd";
	if (!ro)
		return "executable mapping of a file on a writable mount";
	/* The pid we read about may have died and been reused meanwhile. */
	if (seccomp_notify_id_valid(notify_fd, req->id) < 0)
		return "the caller went away";
	return NULL;
}
