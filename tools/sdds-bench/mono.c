/* SPDX-License-Identifier: MIT */
/*
 * mono.c - handing a role over to sdds-bench-mono (see mono.h).
 *
 * OVERVIEW
 * The arguments travel in a memfd of their own that is not close-on-exec;
 * the shared areas are the run's own memfds, whose close-on-exec flag
 * mono_exec clears in the child only (descriptor flags are per process
 * after the fork). sdds-bench-mono maps every one of them shared; the
 * roles check the sizes of what they are given.
 */
#include "mono.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"

static bool mono_here;

bool mono_process(void)
{
	return mono_here;
}

void mono_opts_put(const struct bench_opts *o, struct mono_opts *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->b = *o;
	ret->b.sddsd_path = ret->b.raw_prefix = NULL;
	snprintf(ret->sddsd_path, sizeof(ret->sddsd_path), "%s", o->sddsd_path ? o->sddsd_path : "");
	snprintf(ret->raw_prefix, sizeof(ret->raw_prefix), "%s", o->raw_prefix ? o->raw_prefix : "");
}

const struct bench_opts *mono_opts_get(struct mono_opts *p)
{
	p->sddsd_path[sizeof(p->sddsd_path) - 1] = p->raw_prefix[sizeof(p->raw_prefix) - 1] = '\0';
	p->b.sddsd_path = p->sddsd_path[0] ? p->sddsd_path : NULL;
	p->b.raw_prefix = p->raw_prefix[0] ? p->raw_prefix : NULL;
	return &p->b;
}

int mono_exec(const char *role, const void *args, size_t len, void *const *shm, int n_shm)
{
	char exe[PATH_MAX], path[PATH_MAX + 32], fds[1 + MONO_MAX_SHM][16];
	char *argv[4 + MONO_MAX_SHM] = {path, (char *)role, fds[0]};
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int fd, err;

	if (n <= 0 || n_shm > MONO_MAX_SHM)
		return -EINVAL;
	exe[n] = '\0';
	snprintf(path, sizeof(path), "%s/sdds-bench-mono", dirname(exe));
	fd = memfd_create("sdds-bench-args", 0);
	if (fd < 0)
		return -errno;
	err = write(fd, args, len) == (ssize_t)len ? 0 : -EIO;
	snprintf(fds[0], sizeof(fds[0]), "%d", fd);
	for (int i = 0; i < n_shm && err == 0; i++) {
		int s = proc_shm_fd(shm[i]);

		if (s < 0 || fcntl(s, F_SETFD, 0) < 0)
			err = s < 0 ? s : -errno;
		snprintf(fds[1 + i], sizeof(fds[0]), "%d", s);
		argv[3 + i] = fds[1 + i];
	}
	if (err == 0) {
		fflush(stdout);
		fflush(stderr);
		execv(path, argv);
		err = -errno;
	}
	close(fd);
	return err;
}

/* The memfd numbered s mapped shared into *ret (*ret_size bytes); the descriptor is closed. */
static int mono_map(const char *s, void **ret, size_t *ret_size)
{
	struct stat st;
	uint64_t fd;
	void *base = MAP_FAILED;
	int err;

	if (bench_parse_u64(s, 10, 0, INT_MAX, &fd) < 0)
		return -EBADF;
	/* An empty file fails too: mmap refuses a length of 0 (EINVAL). */
	if (fstat((int)fd, &st) == 0)
		base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	err = base == MAP_FAILED ? -errno : 0;
	close((int)fd);
	if (err == 0) {
		*ret = base;
		*ret_size = (size_t)st.st_size;
	}
	return err;
}

int mono_call_open(int argc, char **argv, struct mono_call *ret, char *why)
{
	struct mono_call m = {0};
	int err = 0;

	if (argc < 3 || argc > 3 + MONO_MAX_SHM) {
		bench_why(why, "usage: sdds-bench-mono ROLE ARGS-FD [SHM-FD]... (sdds-bench runs it)");
		return -EINVAL;
	}
	m.role = argv[1];
	err = mono_map(argv[2], &m.args, &m.len);
	for (int i = 3; i < argc && err == 0; i++) {
		err = mono_map(argv[i], &m.shm[m.n_shm], &m.shm_size[m.n_shm]);
		m.n_shm += err == 0;
	}
	if (err < 0) {
		bench_why(why, "descriptor %s: %s", argv[m.args ? 3 + m.n_shm : 2], strerror(-err));
		mono_call_close(&m);
		return err;
	}
	mono_here = true;
	*ret = m;
	return 0;
}

void mono_call_close(struct mono_call *m)
{
	munmap(m->args, m->len); /* EINVAL, harmless, when there are none */
	for (int i = 0; i < m->n_shm; i++)
		munmap(m->shm[i], m->shm_size[i]);
	memset(m, 0, sizeof(*m));
}
