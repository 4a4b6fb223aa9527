/* SPDX-License-Identifier: MIT */
/*
 * noswapacct.c - an LD_PRELOAD shim that shows sdds-sandbox a kernel with
 * swap but without swap accounting, for test_cgroup's swap_weak case.
 *
 * OVERVIEW
 * Kernels since 6.1 ignore swapaccount=0, so no kernel the tests can boot
 * lacks memory.swap.max (v2) or memory.memsw.limit_in_bytes (v1); older
 * ones (and Debian's before 5.8, by default) did. Under this shim open(2)
 * of either file fails with ENOENT, as there, and /proc/swaps lists one
 * swap area. Everything else is the real kernel's. The constructor drops
 * LD_PRELOAD, so the sandboxed program does not look for the shim.
 */
/* open and open64 are two symbols to define here, not one name for the other. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

__attribute__((constructor)) static void noswapacct_init(void)
{
	unsetenv("LD_PRELOAD");
}

static int noswapacct_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int noswapacct_open(const char *sym, const char *path, int flags, mode_t mode)
{
	static const char swaps[] = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
				    "/dev/noswapacct                         partition\t262140\t\t0\t\t-2\n";
	int (*real)(const char *, int, ...);
	int fd;

	if (noswapacct_ends(path, "/memory.swap.max") ||
	    noswapacct_ends(path, "/memory.memsw.limit_in_bytes")) {
		errno = ENOENT;
		return -1;
	}
	if (strcmp(path, "/proc/swaps") == 0) {
		fd = memfd_create("swaps", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
		if (fd < 0 || write(fd, swaps, sizeof(swaps) - 1) != (ssize_t)sizeof(swaps) - 1 ||
		    lseek(fd, 0, SEEK_SET) != 0)
			return -1;
		return fd;
	}
	real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, sym);
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(path, flags, mode);
}

static mode_t noswapacct_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = noswapacct_mode(flags, ap);
	va_end(ap);
	return noswapacct_open("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = noswapacct_mode(flags, ap);
	va_end(ap);
	return noswapacct_open("open64", path, flags, mode);
}
