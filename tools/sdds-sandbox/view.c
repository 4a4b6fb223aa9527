/* SPDX-License-Identifier: MIT */
/*
 * view.c - building the filesystem view (see view.h).
 *
 * OVERVIEW
 * Two passes. The plan pass walks every requested path component by
 * component on the host (still visible), records each symbolic link met
 * (its location and its text) and opens the final object O_PATH; no mount
 * happens yet, so a failure leaves nothing behind. The build pass mounts
 * the staging tmpfs, recreates the links, creates mount points and binds,
 * then adds /dev, /proc and the tmpfs mounts, and pivots. Paths in the plan
 * are free of symbolic links, so mount targets under the staging root never
 * follow a link of the view.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/mount.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "view.h"

#define VIEW_MAX_LINKS 40 /* like the kernel's MAXSYMLINKS */

enum view_op_kind { VIEW_OP_LINK, VIEW_OP_BIND };

struct view_op {
	enum view_op_kind kind;
	char *path;   /* absolute, without symbolic links in its directories */
	char *target; /* LINK: the link's text */
	int fd;	      /* BIND: O_PATH fd of the source */
	bool dir;     /* BIND: the source is a directory */
};

struct view_plan {
	struct view_op *ops;
	size_t n, cap;
};

static int view_mount_setattr(const char *path, unsigned int flags, uint64_t set)
{
	struct mount_attr a = {.attr_set = set};

	if (syscall(SYS_mount_setattr, AT_FDCWD, path, flags, &a, sizeof(a)) < 0)
		return -errno;
	return 0;
}

static bool view_plan_has(const struct view_plan *p, enum view_op_kind kind, const char *path)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->ops[i].kind == kind && strcmp(p->ops[i].path, path) == 0)
			return true;
	return false;
}

/* Takes ownership of path and target (freed on failure too). */
static int view_plan_push(struct view_plan *p, enum view_op_kind kind, char *path, char *target, int fd,
			  bool dir)
{
	if (!path || (kind == VIEW_OP_LINK && !target)) {
		free(path);
		free(target);
		return -ENOMEM;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct view_op *g = realloc(p->ops, cap * sizeof(*g));

		if (!g) {
			free(path);
			free(target);
			return -ENOMEM;
		}
		p->ops = g;
		p->cap = cap;
	}
	p->ops[p->n++] = (struct view_op){.kind = kind, .path = path, .target = target, .fd = fd, .dir = dir};
	return 0;
}

static void view_plan_free(struct view_plan *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->ops[i].path);
		free(p->ops[i].target);
		if (p->ops[i].fd >= 0)
			close(p->ops[i].fd);
	}
	free(p->ops);
}

/*
 * Walk path on the host: cur is the resolved, link-free prefix; rest what
 * is left to walk. A link's text is spliced in front of rest.
 */
static int view_plan_path(struct view_plan *p, const char *path)
{
	char cur[PATH_MAX] = "", rest[PATH_MAX], link[PATH_MAX];
	int links = 0, fd;
	struct stat st;

	if (path[0] != '/' || strlen(path) >= sizeof(rest))
		return -EINVAL;
	snprintf(rest, sizeof(rest), "%s", path);
	for (;;) {
		char *s = rest, comp[NAME_MAX + 1], next[PATH_MAX];
		size_t len;
		ssize_t n;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		len = strcspn(s, "/");
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(comp, s, len);
		comp[len] = '\0';
		memmove(rest, s + len, strlen(s + len) + 1);
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			char *slash = strrchr(cur, '/');

			if (slash)
				*slash = '\0';
			continue;
		}
		if ((size_t)snprintf(next, sizeof(next), "%s/%s", cur, comp) >= sizeof(next))
			return -ENAMETOOLONG;
		if (lstat(next, &st) < 0)
			return -errno;
		if (!S_ISLNK(st.st_mode)) {
			memcpy(cur, next, sizeof(cur));
			continue;
		}
		if (++links > VIEW_MAX_LINKS)
			return -ELOOP;
		n = readlink(next, link, sizeof(link) - 1);
		if (n < 0)
			return -errno;
		link[n] = '\0';
		if (!view_plan_has(p, VIEW_OP_LINK, next)) {
			int rc = view_plan_push(p, VIEW_OP_LINK, strdup(next), strdup(link), -1, false);

			if (rc < 0)
				return rc;
		}
		if ((size_t)n + 1 + strlen(rest) >= sizeof(rest))
			return -ENAMETOOLONG;
		memmove(rest + n + 1, rest, strlen(rest) + 1);
		memcpy(rest, link, (size_t)n);
		rest[n] = '/';
		if (link[0] == '/')
			cur[0] = '\0';
	}
	if (cur[0] == '\0')
		return -EINVAL; /* the host's root itself is never bound */
	if (view_plan_has(p, VIEW_OP_BIND, cur))
		return 0;
	fd = open(cur, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return view_plan_push(p, VIEW_OP_BIND, strdup(cur), NULL, fd, S_ISDIR(st.st_mode));
}

/* mkdir -p of every directory above rel (a path under the staging root). */
static int view_mkdirs(const char *root, const char *abs, bool last_too)
{
	char buf[PATH_MAX];
	size_t i, base = strlen(root);

	if ((size_t)snprintf(buf, sizeof(buf), "%s%s", root, abs) >= sizeof(buf))
		return -ENAMETOOLONG;
	for (i = base + 1; buf[i]; i++) {
		if (buf[i] != '/')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		buf[i] = '/';
	}
	if (last_too && mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int view_mountpoint(const char *target, bool dir)
{
	int fd;

	if (dir)
		return mkdir(target, 0755) < 0 && errno != EEXIST ? -errno : 0;
	fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int view_bind_fd(int fd, const char *target, bool dir, uint64_t attrs)
{
	char src[64];
	int rc;

	rc = view_mountpoint(target, dir);
	if (rc < 0)
		return rc;
	snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);
	if (mount(src, target, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -errno;
	return view_mount_setattr(target, AT_RECURSIVE, attrs);
}

static int view_build_ops(const struct view_plan *p, const char *root, const struct view_opts *o,
			  const char **ret_step)
{
	char target[PATH_MAX];
	size_t i;
	int rc;
	int pass;

	/* Links first, then file binds, then directory binds: a directory
	 * bound over files bound before it shows the same files. */
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < p->n; i++) {
			const struct view_op *op = &p->ops[i];

			if ((pass == 0) != (op->kind == VIEW_OP_LINK) || (pass > 0 && op->dir != (pass == 2)))
				continue;
			if ((size_t)snprintf(target, sizeof(target), "%s%s", root, op->path) >=
			    sizeof(target))
				return -ENAMETOOLONG;
			if (o->verbose)
				fprintf(stderr, "sdds-sandbox: view: %s %s%s%s\n",
					op->kind == VIEW_OP_LINK ? "link" : "bind", op->path,
					op->kind == VIEW_OP_LINK ? " -> " : "",
					op->kind == VIEW_OP_LINK ? op->target : "");
			*ret_step = "create directories";
			rc = view_mkdirs(root, op->path, false);
			if (rc < 0)
				return rc;
			if (op->kind == VIEW_OP_LINK) {
				*ret_step = "symlink";
				if (symlink(op->target, target) < 0 && errno != EEXIST)
					return -errno;
				continue;
			}
			*ret_step = "bind mount";
			rc = view_bind_fd(op->fd, target, op->dir,
					  MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static int view_build_dev_proc(const char *root, const char **ret_step)
{
	static const char *const devs[] = {"null", "zero", "urandom"};
	char target[PATH_MAX];
	size_t i;
	int fd, rc;

	*ret_step = "/dev";
	snprintf(target, sizeof(target), "%s/dev", root);
	if (mkdir(target, 0755) < 0)
		return -errno;
	for (i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		char src[32];

		snprintf(src, sizeof(src), "/dev/%s", devs[i]);
		snprintf(target, sizeof(target), "%s/dev/%s", root, devs[i]);
		fd = open(src, O_PATH | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		rc = view_bind_fd(fd, target, false, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
		close(fd);
		if (rc < 0)
			return rc;
	}
	*ret_step = "/proc";
	snprintf(target, sizeof(target), "%s/proc", root);
	if (mkdir(target, 0755) < 0)
		return -errno;
	if (mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return -errno;
	return view_mount_setattr(target, 0, MOUNT_ATTR_RDONLY);
}

static int view_build_tmpfs(const struct view_opts *o, const char *root, const char **ret_step)
{
	char target[PATH_MAX], data[128];
	size_t i;
	int rc;

	*ret_step = "--tmpfs";
	snprintf(data, sizeof(data), "size=%zu,mode=0700,uid=%u,gid=%u", o->tmpfs_size, (unsigned)o->uid,
		 (unsigned)o->gid);
	for (i = 0; i < o->n_tmpfs; i++) {
		if (o->tmpfs[i][0] != '/' || strcmp(o->tmpfs[i], "/") == 0)
			return -EINVAL;
		rc = view_mkdirs(root, o->tmpfs[i], true);
		if (rc < 0)
			return rc;
		snprintf(target, sizeof(target), "%s%s", root, o->tmpfs[i]);
		if (mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, data) < 0)
			return -errno;
	}
	return 0;
}

int view_build(const struct view_opts *o, const char **ret_step)
{
	static const char *const stages[] = {"/tmp", "/mnt"};
	struct view_plan plan = {0};
	const char *root = NULL;
	size_t i;
	int rc;

	*ret_step = "make mounts private";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;

	*ret_step = "resolve paths";
	for (i = 0; i < o->n_files; i++) {
		rc = view_plan_path(&plan, o->files[i]);
		if (rc < 0) {
			if (o->verbose)
				fprintf(stderr, "sdds-sandbox: view: %s: %s\n", o->files[i], strerror(-rc));
			goto out;
		}
	}

	*ret_step = "staging tmpfs";
	for (i = 0; i < sizeof(stages) / sizeof(stages[0]) && !root; i++)
		if (mount("tmpfs", stages[i], "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") == 0)
			root = stages[i];
	if (!root) {
		rc = -errno;
		goto out;
	}
	rc = view_build_ops(&plan, root, o, ret_step);
	if (rc < 0)
		goto out;
	rc = view_build_dev_proc(root, ret_step);
	if (rc < 0)
		goto out;
	rc = view_build_tmpfs(o, root, ret_step);
	if (rc < 0)
		goto out;

	*ret_step = "pivot_root";
	if (chdir(root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 || umount2(".", MNT_DETACH) < 0 ||
	    chdir("/") < 0) {
		rc = -errno;
		goto out;
	}
	*ret_step = "seal the root";
	rc = view_mount_setattr("/", 0,
				MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
out:
	view_plan_free(&plan);
	return rc;
}
