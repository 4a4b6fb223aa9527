/* SPDX-License-Identifier: MIT */
/*
 * mono.c - handing a role over to sdds-bench-mono (see mono.h).
 *
 * OVERVIEW
 * The arguments travel in a memfd that is not close-on-exec, written
 * before the exec and read with pread after it; the shared areas are the
 * run's own memfds, whose close-on-exec flag mono_exec clears in the child
 * only (descriptor flags are per process after the fork). sdds-bench-mono
 * checks every size it is given: the role's arguments against its struct,
 * each area against what the role will touch (the roles do that).
 */
#include "mono.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"

#ifndef SDDS_BENCH_MONO
#define SDDS_BENCH_MONO "sdds-bench-mono"
#endif

static bool mono_here;

bool mono_process(void)
{
	return mono_here;
}

void mono_opts_put(const struct bench_opts *o, struct mono_opts *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->b = *o;
	ret->b.sddsd_path = NULL;
	ret->b.raw_prefix = NULL;
	if (o->sddsd_path)
		snprintf(ret->sddsd_path, sizeof(ret->sddsd_path), "%s", o->sddsd_path);
	if (o->raw_prefix)
		snprintf(ret->raw_prefix, sizeof(ret->raw_prefix), "%s", o->raw_prefix);
}

const struct bench_opts *mono_opts_get(struct mono_opts *p)
{
	p->sddsd_path[sizeof(p->sddsd_path) - 1] = '\0';
	p->raw_prefix[sizeof(p->raw_prefix) - 1] = '\0';
	p->b.sddsd_path = p->sddsd_path[0] ? p->sddsd_path : NULL;
	p->b.raw_prefix = p->raw_prefix[0] ? p->raw_prefix : NULL;
	return &p->b;
}

/* sdds-bench-mono next to this program, else where the build tree put it. */
static int mono_find(char *buf, size_t cap)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len > 0) {
		exe[len] = '\0';
		if (snprintf(buf, cap, "%s/sdds-bench-mono", dirname(exe)) < (int)cap &&
		    access(buf, X_OK) == 0)
			return 0;
	}
	if (snprintf(buf, cap, "%s", SDDS_BENCH_MONO) >= (int)cap || access(buf, X_OK) < 0)
		return -ENOENT;
	return 0;
}

int mono_exec(const char *role, const void *args, size_t len, void *const *shm, int n_shm)
{
	char path[PATH_MAX], afd[16], sfd[MONO_MAX_SHM][16];
	char *argv[6 + 2 * MONO_MAX_SHM + 1];
	int fd, n = 0, err;

	if (n_shm > MONO_MAX_SHM || len > MONO_MAX_ARGS || strlen(role) >= MONO_ROLE_MAX)
		return -EINVAL;
	err = mono_find(path, sizeof(path));
	if (err < 0)
		return err;
	/* Not close-on-exec: sdds-bench-mono reads it. */
	fd = memfd_create("sdds-bench-args", 0);
	if (fd < 0)
		return -errno;
	if (write(fd, args, len) != (ssize_t)len) {
		err = errno ? -errno : -EIO;
		goto fail_close_fd;
	}
	snprintf(afd, sizeof(afd), "%d", fd);
	argv[n++] = path;
	argv[n++] = "--role";
	argv[n++] = (char *)role;
	argv[n++] = "--args";
	argv[n++] = afd;
	for (int i = 0; i < n_shm; i++) {
		int s = proc_shm_fd(shm[i]);

		if (s < 0) {
			err = s;
			goto fail_close_fd;
		}
		/* This child's descriptor only: the parent's copy stays close-on-exec. */
		if (fcntl(s, F_SETFD, 0) < 0) {
			err = -errno;
			goto fail_close_fd;
		}
		snprintf(sfd[i], sizeof(sfd[i]), "%d", s);
		argv[n++] = "--shm";
		argv[n++] = sfd[i];
	}
	argv[n] = NULL;
	fflush(stdout);
	fflush(stderr);
	execv(path, argv);
	err = -errno;
fail_close_fd:
	close(fd);
	return err;
}

/* The whole of s as a descriptor number: 0 with *ret, or -EINVAL. */
static int mono_parse_fd(const char *s, int *ret)
{
	uint64_t v;

	if (bench_parse_u64(s, 10, 0, INT_MAX, &v) < 0)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

/* The memfd fd mapped shared into m's next area; fd is closed either way. */
static int mono_map(struct mono_call *m, int fd)
{
	struct stat st;
	void *base;
	int err = 0;

	if (m->n_shm == MONO_MAX_SHM) {
		err = -E2BIG;
		goto out_close_fd;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out_close_fd;
	}
	if (st.st_size <= 0) {
		err = -EINVAL;
		goto out_close_fd;
	}
	base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		goto out_close_fd;
	}
	m->shm[m->n_shm] = base;
	m->shm_size[m->n_shm++] = (size_t)st.st_size;
out_close_fd:
	close(fd);
	return err;
}

/* The arguments in memfd fd into m; fd is closed either way. */
static int mono_read_args(struct mono_call *m, int fd)
{
	struct stat st;
	int err = 0;

	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out_close_fd;
	}
	if (st.st_size < 0 || (uint64_t)st.st_size > MONO_MAX_ARGS) {
		err = -E2BIG;
		goto out_close_fd;
	}
	m->len = (size_t)st.st_size;
	m->args = calloc(1, m->len ? m->len : 1);
	if (m->args == NULL) {
		err = -ENOMEM;
		goto out_close_fd;
	}
	if (pread(fd, m->args, m->len, 0) != (ssize_t)m->len)
		err = errno ? -errno : -EIO;
out_close_fd:
	close(fd);
	return err;
}

int mono_call_open(int argc, char **argv, struct mono_call *ret, char *why)
{
	struct mono_call m;
	bool have_args = false;
	int err = 0;

	memset(&m, 0, sizeof(m));
	for (int i = 1; i < argc && err == 0; i += 2) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int fd = -1;

		if (v == NULL) {
			bench_why(why, "%s: no value", argv[i]);
			err = -EINVAL;
		} else if (strcmp(argv[i], "--role") == 0 && strlen(v) < sizeof(m.role)) {
			snprintf(m.role, sizeof(m.role), "%s", v);
		} else if (strcmp(argv[i], "--args") == 0 && !have_args && mono_parse_fd(v, &fd) == 0) {
			have_args = true;
			err = mono_read_args(&m, fd);
			if (err < 0)
				bench_why(why, "--args %s: %s", v, strerror(-err));
		} else if (strcmp(argv[i], "--shm") == 0 && mono_parse_fd(v, &fd) == 0) {
			err = mono_map(&m, fd);
			if (err < 0)
				bench_why(why, "--shm %s: %s", v, strerror(-err));
		} else {
			bench_why(why, "bad argument %s %s (sdds-bench runs this, not people)", argv[i], v);
			err = -EINVAL;
		}
	}
	if (err == 0 && (m.role[0] == '\0' || !have_args)) {
		bench_why(why, "usage: sdds-bench-mono --role NAME --args FD [--shm FD]... "
			       "(sdds-bench runs this, not people)");
		err = -EINVAL;
	}
	if (err < 0) {
		mono_call_close(&m);
		return err;
	}
	mono_here = true;
	*ret = m;
	return 0;
}

void mono_call_close(struct mono_call *m)
{
	free(m->args);
	for (int i = 0; i < m->n_shm; i++)
		munmap(m->shm[i], m->shm_size[i]);
	memset(m, 0, sizeof(*m));
}
