/* SPDX-License-Identifier: MIT */
/*
 * cgroup.c - the application's own cgroup (see cgroup.h).
 *
 * OVERVIEW
 * Where the hierarchies are comes from /proc/self/mountinfo (the cgroup2
 * mount, or the legacy mount whose options name the controller) and where
 * the supervisor sits in each from /proc/self/cgroup; a mount's root field
 * is taken off the cgroup path, so a bind mount of a subtree (a container)
 * resolves too; both files are read a whole line at a time, whatever its
 * length. Everything written is undone on failure, in the reverse order,
 * by the one cleanup ladder of each create function.
 *
 * Leaves are named for the supervisor's pid. The lock of the directory
 * they are made in (base_lock: a lock file of our uid's, never the
 * world-readable cgroup directory; held from cgroup_create to
 * cgroup_attach, and in cgroup_remove, waited for at most
 * CGROUP_LOCK_WAIT_MS) orders supervisors sharing it: the controllers of a v2
 * BASE are toggled by one at a time, and the sweep of stale leaves (a pid
 * that no longer exists) never meets a leaf made but not yet entered.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "sysfile.h"

#define CGROUP_RMDIR_TRIES 100 /* times 10 ms */
/* The lock files of root's supervisors; another uid's are under $XDG_RUNTIME_DIR. */
#define CGROUP_LOCK_ROOT "/run/sdds-sandbox"
#define CGROUP_LOCK_WAIT_MS 5000
#define CGROUP_LOCK_STEP_MS 20
#define CGROUP_LEAF "sdds-sandbox."
#define CGROUP_SUP_SUFFIX ".supervisor"
/* On BASE: the controllers a supervisor enabled there, for the last one out. */
#define CGROUP_XATTR "trusted.sdds-sandbox.enabled"

static int read_text(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int rc = 0;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	if (n < 0)
		rc = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return rc;
}

static int write_at(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return sysfile_write(path, text);
}

/* Whether word occurs in list, whose words are separated by any of seps. */
static bool has_word(const char *list, const char *word, const char *seps)
{
	size_t wl = strlen(word);

	while (*list) {
		size_t n = strcspn(list, seps);

		if (n == wl && strncmp(list, word, wl) == 0)
			return true;
		list += n;
		list += strspn(list, seps);
	}
	return false;
}

/* The next blank-separated field of *p, NUL-terminated in place; NULL at the end. */
static char *next_field(char **p)
{
	char *f = *p + strspn(*p, " \n");

	if (!*f)
		return NULL;
	*p = f + strcspn(f, " \n");
	if (**p)
		*(*p)++ = '\0';
	return f;
}

int cgroup_mountinfo_find(FILE *f, const char *controller, char *ret_dir, size_t dir_cap, char *ret_root,
			  size_t root_cap)
{
	char *line = NULL, *p, *root, *dir, *type, *opts, *field;
	size_t cap = 0;
	int rc = -ENOENT, i;

	/* getline: a line has no bound (long paths, many options), and a
	 * fixed buffer would split one into two "lines". */
	while (rc == -ENOENT && getline(&line, &cap, f) > 0) {
		p = line;
		root = dir = type = opts = NULL;
		for (i = 0; (field = next_field(&p)); i++) {
			if (i == 3)
				root = field;
			else if (i == 4)
				dir = field;
			else if (i > 5 && strcmp(field, "-") == 0)
				break;
		}
		if (!field || !dir)
			continue;
		type = next_field(&p);
		(void)next_field(&p); /* the source */
		opts = next_field(&p);
		if (!type || !opts)
			continue;
		/* Octal escapes stand for blanks; no hierarchy we use has any. */
		if (strchr(dir, '\\') || strchr(root, '\\'))
			continue;
		if (controller ? strcmp(type, "cgroup") != 0 || !has_word(opts, controller, ",")
			       : strcmp(type, "cgroup2") != 0)
			continue;
		if (strlen(dir) >= dir_cap || strlen(root) >= root_cap)
			rc = -ENAMETOOLONG;
		else {
			strcpy(ret_dir, dir);
			strcpy(ret_root, root);
			rc = 0;
		}
	}
	free(line);
	return rc;
}

/*
 * The mount of a hierarchy: the cgroup2 one (controller NULL) or the
 * legacy one whose options hold controller. Writes its mount point and
 * root (the hierarchy path mounted there). 0 or -errno.
 */
static int find_mount(const char *controller, char *ret_dir, char *ret_root)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int rc;

	if (!f)
		return -errno;
	rc = cgroup_mountinfo_find(f, controller, ret_dir, PATH_MAX, ret_root, PATH_MAX);
	fclose(f);
	return rc;
}

int cgroup_proc_path(FILE *f, const char *controller, char *ret, size_t cap)
{
	char *line = NULL;
	size_t n = 0;
	int rc = -ENOENT;

	while (rc == -ENOENT && getline(&line, &n, f) > 0) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL, *path;

		if (!b)
			continue;
		*b = '\0';
		if (controller ? !has_word(a + 1, controller, ",") : strcmp(line, "0:") != 0)
			continue;
		path = b + 1;
		path[strcspn(path, "\n")] = '\0';
		if (path[0] != '/')
			rc = -EINVAL;
		else if (strlen(path) >= cap)
			rc = -ENAMETOOLONG;
		else {
			strcpy(ret, path);
			rc = 0;
		}
	}
	free(line);
	return rc;
}

/*
 * This process's cgroup directory in a hierarchy (controller NULL: the
 * unified one, "0::" in /proc/self/cgroup). 0 or -errno.
 */
static int own_dir(const char *controller, char *ret, size_t cap)
{
	char mnt[PATH_MAX], root[PATH_MAX], path[PATH_MAX];
	const char *rel;
	size_t rl;
	FILE *f;
	int rc;

	rc = find_mount(controller, mnt, root);
	if (rc < 0)
		return rc;
	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -errno;
	rc = cgroup_proc_path(f, controller, path, sizeof(path));
	fclose(f);
	if (rc < 0)
		return rc;
	/* The mount shows the hierarchy from root on: take it off the path. */
	rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
	if (rl > 0 && (strncmp(path, root, rl) != 0 || (path[rl] != '/' && path[rl] != '\0')))
		return -ENOENT;
	rel = path + rl;
	if ((size_t)snprintf(ret, cap, "%s%s", mnt, strcmp(rel, "/") == 0 ? "" : rel) >= cap)
		return -ENAMETOOLONG;
	return 0;
}

/* The controllers sdds-sandbox enables, in the order it writes them. */
static const char *const cgroup_ctrl_names[] = {"memory", "pids"};

unsigned cgroup_ctrl_parse(const char *text)
{
	unsigned mask = 0, i;

	for (i = 0; i < sizeof(cgroup_ctrl_names) / sizeof(cgroup_ctrl_names[0]); i++)
		if (has_word(text, cgroup_ctrl_names[i], " \n"))
			mask |= 1u << i;
	return mask;
}

int cgroup_ctrl_text(unsigned mask, char sign, char *buf, size_t cap)
{
	size_t n = 0, i;
	int w;

	if (cap == 0)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	for (i = 0; i < sizeof(cgroup_ctrl_names) / sizeof(cgroup_ctrl_names[0]); i++) {
		if (!(mask & (1u << i)))
			continue;
		w = sign ? snprintf(buf + n, cap - n, "%s%c%s", n ? " " : "", sign, cgroup_ctrl_names[i])
			 : snprintf(buf + n, cap - n, "%s%s", n ? " " : "", cgroup_ctrl_names[i]);
		if (w < 0 || (size_t)w >= cap - n) {
			buf[0] = '\0';
			return -ENAMETOOLONG;
		}
		n += (size_t)w;
	}
	return 0;
}

static void limit_text(uint64_t v, const char *none, char *buf, size_t cap)
{
	if (v == 0)
		snprintf(buf, cap, "%s", none);
	else
		snprintf(buf, cap, "%" PRIu64, v);
}

/* rmdir, waiting for the kernel to let go of tasks that just died. */
static int remove_dir(const char *dir)
{
	struct timespec ts = {.tv_nsec = 10 * 1000 * 1000};
	int i;

	for (i = 0; i < CGROUP_RMDIR_TRIES; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		nanosleep(&ts, NULL);
	}
	return -EBUSY;
}

/*
 * The supervisor pid a child's name carries: "sdds-sandbox.PID" (a
 * program's leaf) or "sdds-sandbox.PID.supervisor" (v2: where the
 * supervisor moved itself). 0 for any other name.
 */
static pid_t leaf_owner(const char *name)
{
	const char *p;
	char *end;
	long pid;

	if (strncmp(name, CGROUP_LEAF, strlen(CGROUP_LEAF)) != 0)
		return 0;
	p = name + strlen(CGROUP_LEAF);
	if (*p < '1' || *p > '9')
		return 0;
	pid = strtol(p, &end, 10);
	if (pid <= 0 || pid > INT32_MAX || (*end && strcmp(end, CGROUP_SUP_SUFFIX) != 0))
		return 0;
	return (pid_t)pid;
}

/*
 * The directory of the lock files, open: /run/sdds-sandbox for root,
 * $XDG_RUNTIME_DIR/sdds-sandbox for another uid, made (0700) where
 * missing. Refused unless it is a directory (not a symbolic link) of our
 * uid that no other uid may write. -ENOENT: no runtime directory (a
 * non-root uid without $XDG_RUNTIME_DIR). The fd or -errno, with a reason.
 */
static int lock_dir_open(char *ret_path, size_t cap, char *why, size_t why_cap)
{
	const char *parent = geteuid() == 0 ? CGROUP_LOCK_ROOT : getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int fd;

	if (!parent || parent[0] != '/') {
		snprintf(why, why_cap, "$XDG_RUNTIME_DIR is not set");
		return -ENOENT;
	}
	if (geteuid() == 0)
		snprintf(ret_path, cap, "%s", parent);
	else if ((size_t)snprintf(ret_path, cap, "%s/sdds-sandbox", parent) >= cap) {
		snprintf(why, why_cap, "%s: %s", parent, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	if (mkdir(ret_path, 0700) < 0 && errno != EEXIST) {
		fd = -errno;
		snprintf(why, why_cap, "cannot create %s: %s", ret_path, strerror(-fd));
		return fd;
	}
	fd = open(ret_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		snprintf(why, why_cap, "cannot open %s: %s%s", ret_path, strerror(-fd),
			 fd == -ELOOP || fd == -ENOTDIR ? " (not a directory: refused)" : "");
		return fd;
	}
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(why, why_cap, "%s is not a directory of uid %u that only it may write: refused",
			 ret_path, (unsigned)geteuid());
		close(fd);
		return -EPERM;
	}
	return fd;
}

/*
 * Take the cgroup lock of the directory base: every supervisor that makes
 * or removes a child of base holds it, so two never toggle the same
 * controllers or sweep each other's new leaf. It is an flock on
 * LOCKDIR/cgroup.DEV.INO.lock (base's st_dev and st_ino), a file only our
 * uid can open: a cgroup directory is world-readable, so an flock on base
 * itself could be held by anyone. The holder unlinks the file before it
 * unlocks (base_unlock), so the files do not pile up; a waiter that then
 * gets the lock of the unlinked file sees that the name no longer leads to
 * it and tries again. Never waits longer than CGROUP_LOCK_WAIT_MS.
 *
 * Returns 0 and the fd (the caller's) in *ret_fd, its path in ret_path;
 * or 0 with *ret_fd -1 and the reason in note when there is no lock
 * directory to use (a non-root uid without $XDG_RUNTIME_DIR): unlocked;
 * or -errno with a reason in why (-ETIMEDOUT: held past the deadline).
 */
static int base_lock(const char *base, int *ret_fd, char *ret_path, size_t path_cap, char *note,
		     size_t note_cap, char *why, size_t why_cap)
{
	struct timespec step = {.tv_nsec = CGROUP_LOCK_STEP_MS * 1000 * 1000};
	char dir[PATH_MAX], name[80], reason[PATH_MAX + 128];
	struct stat st, now;
	int dfd, fd, rc, i;

	if (stat(base, &st) < 0) {
		rc = -errno;
		snprintf(why, why_cap, "cannot lock %s: %s", base, strerror(-rc));
		return rc;
	}
	dfd = lock_dir_open(dir, sizeof(dir), reason, sizeof(reason));
	if (dfd == -ENOENT && geteuid() != 0) {
		snprintf(note, note_cap,
			 "$XDG_RUNTIME_DIR is not set: no lock orders the sandboxes of uid %u in %s",
			 (unsigned)geteuid(), base);
		*ret_fd = -1;
		ret_path[0] = '\0';
		return 0;
	}
	if (dfd < 0) {
		snprintf(why, why_cap, "cannot lock %s: %s", base, reason);
		return dfd;
	}
	snprintf(name, sizeof(name), "cgroup.%ju.%ju.lock", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
	if ((size_t)snprintf(ret_path, path_cap, "%s/%s", dir, name) >= path_cap) {
		rc = -ENAMETOOLONG;
		snprintf(why, why_cap, "cannot lock %s: %s: %s", base, dir, strerror(-rc));
		goto out_close_dir;
	}
	for (i = 0;; i++) {
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			rc = -errno;
			snprintf(why, why_cap, "cannot open %s: %s", ret_path, strerror(-rc));
			goto out_close_dir;
		}
		if (fstat(fd, &now) < 0 || !S_ISREG(now.st_mode) || now.st_uid != geteuid()) {
			rc = -EPERM;
			snprintf(why, why_cap, "%s is not a file of uid %u: refused", ret_path,
				 (unsigned)geteuid());
			goto out_close;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			struct stat named;

			/* Still the file the name leads to, not one its last
			 * holder unlinked? Then it is ours. */
			if (fstatat(dfd, name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
			    named.st_dev == now.st_dev && named.st_ino == now.st_ino)
				break;
			close(fd);
			continue;
		}
		if (errno != EWOULDBLOCK && errno != EINTR) {
			rc = -errno;
			snprintf(why, why_cap, "cannot lock %s: %s", ret_path, strerror(-rc));
			goto out_close;
		}
		close(fd);
		if (i >= CGROUP_LOCK_WAIT_MS / CGROUP_LOCK_STEP_MS) {
			rc = -ETIMEDOUT;
			snprintf(why, why_cap,
				 "the cgroup lock %s (of %s) was held for more than %d s (another "
				 "sdds-sandbox of uid %u stuck in setting up or removing its cgroup?)",
				 ret_path, base, CGROUP_LOCK_WAIT_MS / 1000, (unsigned)geteuid());
			goto out_close_dir;
		}
		nanosleep(&step, NULL);
	}
	close(dfd);
	*ret_fd = fd;
	return 0;

out_close:
	close(fd);
out_close_dir:
	close(dfd);
	ret_path[0] = '\0';
	return rc;
}

/* Release base_lock's lock: unlink its file first (see base_lock). */
static void base_unlock(int *fd, char *path)
{
	if (*fd >= 0) {
		if (path[0])
			(void)unlink(path);
		/* Unlocks the open file description, which init inherited. */
		(void)flock(*fd, LOCK_UN);
		close(*fd);
	}
	*fd = -1;
}

/*
 * Remove the leaves of supervisors that died without removing them (a
 * SIGKILL, a crash): children of base named for a pid that no longer
 * exists. A leaf that still holds a task is not removed (rmdir fails).
 * Under base's lock, so no supervisor is between making a leaf and moving
 * its sandbox in. Returns how many children of base remain that are not
 * our own (-errno when base cannot be read).
 */
static int sweep_stale(const char *base)
{
	char path[PATH_MAX + 300];
	struct dirent *e;
	int others = 0;
	DIR *d = opendir(base);

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		pid_t owner;

		if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		owner = leaf_owner(e->d_name);
		if (owner == getpid())
			continue;
		if (owner > 0 && kill(owner, 0) < 0 && errno == ESRCH) {
			snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
			if (rmdir(path) == 0)
				continue;
		}
		others++;
	}
	closedir(d);
	return others;
}

/*
 * A leaf named for our own pid cannot be ours yet (we make it next): an
 * earlier supervisor with this pid left it (killed, in a PID namespace or
 * container where the supervisor gets the same pid at every start).
 * Remove it under the lock, like any stale leaf; refuse only when it
 * still holds tasks. 0 or -errno with a reason.
 */
static int clear_own_leaf(const char *path, char *why, size_t why_cap)
{
	int rc;

	if (rmdir(path) == 0 || errno == ENOENT)
		return 0;
	rc = -errno;
	if (rc == -EBUSY)
		snprintf(why, why_cap,
			 "%s, left by an earlier sdds-sandbox with this pid, still holds tasks: refusing to "
			 "share it",
			 path);
	else
		snprintf(why, why_cap, "cannot remove %s, left by an earlier sdds-sandbox with this pid: %s",
			 path, strerror(-rc));
	return rc;
}

/* Whether the host has swap (then a memory limit must bound it too). */
static bool host_has_swap(void)
{
	char text[512];

	/* A header line, then one line per swap area. */
	return read_text("/proc/swaps", text, sizeof(text)) == 0 && strchr(text, '\n') &&
	       strchr(text, '\n')[1] != '\0';
}

/*
 * Enable the controllers in enabled (what base lacked) and note them in
 * base's xattr, so that whichever supervisor leaves base last disables
 * them, not only the one that enabled them. The xattr holds each name at
 * most once, whatever it held before: a list that only grew would, after
 * a few disables and re-enables, no longer fit and be cut mid-name. 0 or
 * -errno.
 */
static int enable_controllers(const char *base, const char *enabled)
{
	char on[64], had[64] = "", all[64];
	unsigned mask = cgroup_ctrl_parse(enabled);
	ssize_t n;
	int rc;

	rc = cgroup_ctrl_text(mask, '+', on, sizeof(on));
	if (rc < 0)
		return rc;
	rc = write_at(base, "cgroup.subtree_control", on);
	if (rc < 0)
		return rc;
	/* Too long (-ERANGE) is no list of ours: only what we enabled. */
	n = getxattr(base, CGROUP_XATTR, had, sizeof(had) - 1);
	had[n > 0 ? n : 0] = '\0';
	if (cgroup_ctrl_text(mask | cgroup_ctrl_parse(had), 0, all, sizeof(all)) == 0 &&
	    strcmp(all, had) != 0)
		/* Without xattrs (an old kernel) only the enabling one disables. */
		(void)setxattr(base, CGROUP_XATTR, all, strlen(all), 0);
	return 0;
}

/*
 * The last one out of base: disable what supervisors enabled there (the
 * xattr, else what we enabled ourselves), unless another child of base
 * still needs it.
 */
static void disable_controllers(const char *base, const char *own, int others)
{
	char what[64] = "", off[64];
	unsigned mask;
	ssize_t n;

	if (others != 0)
		return;
	n = getxattr(base, CGROUP_XATTR, what, sizeof(what) - 1);
	what[n > 0 ? n : 0] = '\0';
	mask = cgroup_ctrl_parse(what) | cgroup_ctrl_parse(own);
	if (!mask || cgroup_ctrl_text(mask, '-', off, sizeof(off)) < 0)
		return;
	if (write_at(base, "cgroup.subtree_control", off) == 0)
		(void)removexattr(base, CGROUP_XATTR);
}

/* The unified layout (cgroup.h); base's lock is held. */
static int create_v2(const char *base, uint64_t mem_max, uint64_t pids_max, struct cgroup *cg, char *why,
		     size_t why_cap)
{
	char path[PATH_MAX + 64], text[512], val[32];
	bool root_cgroup;
	int rc, others;

	others = sweep_stale(base);
	if (others < 0) {
		snprintf(why, why_cap, "read %s: %s", base, strerror(-others));
		return others;
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", base);
	rc = read_text(path, text, sizeof(text));
	if (rc < 0) {
		snprintf(why, why_cap, "read %s: %s", path, strerror(-rc));
		return rc;
	}
	/* The root cgroup is exempt from the no-internal-process rule. */
	snprintf(path, sizeof(path), "%s/cgroup.type", base);
	root_cgroup = access(path, F_OK) != 0;
	(void)cgroup_ctrl_text(CGROUP_CTRL_ALL & ~cgroup_ctrl_parse(text), 0, cg->enabled,
			       sizeof(cg->enabled));

	if ((size_t)snprintf(cg->sup, sizeof(cg->sup), "%s/" CGROUP_LEAF "%d" CGROUP_SUP_SUFFIX, base,
			     (int)getpid()) >= sizeof(cg->sup) ||
	    (size_t)snprintf(cg->app, sizeof(cg->app), "%s/" CGROUP_LEAF "%d", base, (int)getpid()) >=
		sizeof(cg->app)) {
		rc = -ENAMETOOLONG;
		snprintf(why, why_cap, "%s: %s", base, strerror(-rc));
		return rc;
	}
	rc = clear_own_leaf(cg->app, why, why_cap);
	if (rc == 0)
		rc = clear_own_leaf(cg->sup, why, why_cap);
	if (rc < 0)
		return rc;
	if (!root_cgroup && cg->enabled[0]) {
		if (mkdir(cg->sup, 0755) < 0) {
			rc = -errno;
			snprintf(why, why_cap, "cannot create a cgroup under %s: %s", base, strerror(-rc));
			return rc;
		}
		rc = write_at(cg->sup, "cgroup.procs", "0");
		if (rc < 0) {
			snprintf(why, why_cap, "cannot move into %s: %s", cg->sup, strerror(-rc));
			goto fail_rmdir_sup;
		}
		cg->moved_self = true;
	}
	if (cg->enabled[0]) {
		rc = enable_controllers(base, cg->enabled);
		if (rc == -EBUSY)
			snprintf(
			    why, why_cap,
			    "%s holds other processes, so it cannot enable %s for a child (run sdds-sandbox "
			    "in a cgroup of its own: sdds-app@.service, or systemd-run --scope -p "
			    "Delegate=yes)",
			    base, cg->enabled);
		else if (rc < 0)
			snprintf(why, why_cap, "cannot enable %s in %s/cgroup.subtree_control: %s",
				 cg->enabled, base, strerror(-rc));
		if (rc < 0) {
			cg->enabled[0] = '\0';
			goto fail_move_back;
		}
	}
	if (mkdir(cg->app, 0755) < 0) {
		rc = -errno;
		snprintf(why, why_cap, "cannot create %s: %s", cg->app, strerror(-rc));
		goto fail_disable;
	}
	limit_text(mem_max, "max", val, sizeof(val));
	rc = write_at(cg->app, "memory.max", val);
	if (rc < 0) {
		snprintf(why, why_cap, "set %s/memory.max: %s", cg->app, strerror(-rc));
		goto fail_rmdir_app;
	}
	/* Without swap accounting the file is missing: with swap on, the
	 * program could swap past --mem, a weak limit (cgroup.h). */
	rc = write_at(cg->app, "memory.swap.max", "0");
	if (rc == -ENOENT && mem_max > 0 && host_has_swap())
		snprintf(cg->weak, sizeof(cg->weak),
			 "%s/memory.swap.max is missing (no swap accounting) while the host has swap: "
			 "the program could swap past --mem",
			 cg->app);
	else if (rc < 0 && rc != -ENOENT) {
		snprintf(why, why_cap, "set %s/memory.swap.max: %s", cg->app, strerror(-rc));
		goto fail_rmdir_app;
	}
	/* The OOM killer takes the whole sandbox, not one process of it. */
	(void)write_at(cg->app, "memory.oom.group", "1");
	limit_text(pids_max, "max", val, sizeof(val));
	rc = write_at(cg->app, "pids.max", val);
	if (rc < 0) {
		snprintf(why, why_cap, "set %s/pids.max: %s", cg->app, strerror(-rc));
		goto fail_rmdir_app;
	}
	snprintf(cg->base, sizeof(cg->base), "%s", base);
	cg->kind = CGROUP_V2;
	return 0;

fail_rmdir_app:
	(void)rmdir(cg->app);
fail_disable:
	disable_controllers(base, cg->enabled, others);
fail_move_back:
	if (cg->moved_self)
		(void)write_at(base, "cgroup.procs", "0");
	cg->moved_self = false;
fail_rmdir_sup:
	(void)rmdir(cg->sup);
	return rc;
}

/* One legacy hierarchy's child: DIR/sdds-sandbox.PID, stale ones swept. */
static int create_v1_child(const char *controller, char *ret, size_t cap, char *why, size_t why_cap)
{
	char dir[PATH_MAX];
	int rc;

	rc = own_dir(controller, dir, sizeof(dir));
	if (rc < 0) {
		snprintf(why, why_cap, "no %s cgroup of this process: %s", controller, strerror(-rc));
		return rc;
	}
	if ((size_t)snprintf(ret, cap, "%s/" CGROUP_LEAF "%d", dir, (int)getpid()) >= cap) {
		snprintf(why, why_cap, "%s: %s", dir, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	(void)sweep_stale(dir);
	rc = clear_own_leaf(ret, why, why_cap);
	if (rc < 0)
		return rc;
	if (mkdir(ret, 0755) < 0) {
		rc = -errno;
		snprintf(why, why_cap, "cannot create a cgroup under %s: %s", dir, strerror(-rc));
		return rc;
	}
	return 0;
}

/* The legacy layout (cgroup.h). */
static int create_v1(uint64_t mem_max, uint64_t pids_max, struct cgroup *cg, char *why, size_t why_cap)
{
	char val[32];
	int rc;

	rc = create_v1_child("memory", cg->app, sizeof(cg->app), why, why_cap);
	if (rc < 0)
		return rc;
	rc = create_v1_child("pids", cg->pids, sizeof(cg->pids), why, why_cap);
	if (rc < 0)
		goto fail_rmdir_mem;
	limit_text(mem_max, "-1", val, sizeof(val));
	rc = write_at(cg->app, "memory.limit_in_bytes", val);
	if (rc < 0) {
		snprintf(why, why_cap, "set %s/memory.limit_in_bytes: %s", cg->app, strerror(-rc));
		goto fail_rmdir_pids;
	}
	/* Memory plus swap no more than memory: no swapping past the limit.
	 * The file exists only where swap is accounted; without it, and with
	 * swap on, the limit is weak (cgroup.h). */
	rc = write_at(cg->app, "memory.memsw.limit_in_bytes", val);
	if (rc == -ENOENT && mem_max > 0 && host_has_swap())
		snprintf(cg->weak, sizeof(cg->weak),
			 "%s/memory.memsw.limit_in_bytes is missing (no swap accounting) while the host "
			 "has swap: the program could swap past --mem",
			 cg->app);
	else if (rc < 0 && rc != -ENOENT) {
		snprintf(why, why_cap, "set %s/memory.memsw.limit_in_bytes: %s", cg->app, strerror(-rc));
		goto fail_rmdir_pids;
	}
	limit_text(pids_max, "max", val, sizeof(val));
	rc = write_at(cg->pids, "pids.max", val);
	if (rc < 0) {
		snprintf(why, why_cap, "set %s/pids.max: %s", cg->pids, strerror(-rc));
		goto fail_rmdir_pids;
	}
	cg->kind = CGROUP_V1;
	return 0;

fail_rmdir_pids:
	(void)rmdir(cg->pids);
fail_rmdir_mem:
	(void)rmdir(cg->app);
	return rc;
}

int cgroup_create(uint64_t mem_max, uint64_t pids_max, struct cgroup *ret, char *why, size_t why_cap)
{
	char base[PATH_MAX], path[PATH_MAX + 32], text[512], mnt[PATH_MAX], root[PATH_MAX];
	struct cgroup *cg;
	int rc;

	cg = calloc(1, sizeof(*cg));
	if (!cg) {
		snprintf(why, why_cap, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	cg->lock_fd = -1;
	if (own_dir(NULL, base, sizeof(base)) == 0) {
		snprintf(path, sizeof(path), "%s/cgroup.controllers", base);
		if (read_text(path, text, sizeof(text)) == 0 && cgroup_ctrl_parse(text) == CGROUP_CTRL_ALL) {
			rc = base_lock(base, &cg->lock_fd, cg->lock_path, sizeof(cg->lock_path), cg->unlocked,
				       sizeof(cg->unlocked), why, why_cap);
			if (rc == 0)
				rc = create_v2(base, mem_max, pids_max, cg, why, why_cap);
			goto out;
		}
	}
	if (find_mount("memory", mnt, root) == 0 && find_mount("pids", mnt, root) == 0) {
		rc = own_dir("memory", base, sizeof(base));
		if (rc < 0) {
			snprintf(why, why_cap, "no memory cgroup of this process: %s", strerror(-rc));
			goto out;
		}
		rc = base_lock(base, &cg->lock_fd, cg->lock_path, sizeof(cg->lock_path), cg->unlocked,
			       sizeof(cg->unlocked), why, why_cap);
		if (rc == 0)
			rc = create_v1(mem_max, pids_max, cg, why, why_cap);
		goto out;
	}
	rc = -ENOENT;
	snprintf(why, why_cap,
		 "neither this process's cgroup v2 offers the memory and pids controllers nor are "
		 "their v1 hierarchies mounted");
out:
	if (rc == 0)
		*ret = *cg;
	else
		base_unlock(&cg->lock_fd, cg->lock_path);
	free(cg);
	return rc;
}

int cgroup_attach(struct cgroup *cg, pid_t pid)
{
	char text[32];
	int rc;

	snprintf(text, sizeof(text), "%d", (int)pid);
	rc = write_at(cg->app, "cgroup.procs", text);
	if (rc == 0 && cg->kind == CGROUP_V1)
		rc = write_at(cg->pids, "cgroup.procs", text);
	/* The leaf holds a task now: no sweep takes it for a stale one. */
	base_unlock(&cg->lock_fd, cg->lock_path);
	return rc;
}

/* The number after "key " in a flat keyed file; 0 when absent. */
static uint64_t keyed_value(const char *dir, const char *file, const char *key)
{
	char path[PATH_MAX + 64], text[2048], *p = text;
	size_t kl = strlen(key);

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_text(path, text, sizeof(text)) < 0)
		return 0;
	while (*p) {
		if (strncmp(p, key, kl) == 0 && p[kl] == ' ')
			return strtoull(p + kl + 1, NULL, 10);
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
	return 0;
}

static uint64_t single_value(const char *dir, const char *file)
{
	char path[PATH_MAX + 64], text[64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_text(path, text, sizeof(text)) < 0)
		return 0;
	return strtoull(text, NULL, 10);
}

int cgroup_read_events(const struct cgroup *cg, struct cgroup_events *ret)
{
	struct cgroup_events ev = {0};

	switch (cg->kind) {
	case CGROUP_V2:
		ev.oom_kills = keyed_value(cg->app, "memory.events", "oom_kill");
		ev.pids_denied = keyed_value(cg->app, "pids.events", "max");
		ev.peak = single_value(cg->app, "memory.peak");
		break;
	case CGROUP_V1:
		ev.oom_kills = keyed_value(cg->app, "memory.oom_control", "oom_kill");
		ev.pids_denied = keyed_value(cg->pids, "pids.events", "max");
		ev.peak = single_value(cg->app, "memory.max_usage_in_bytes");
		break;
	default:
		return -EINVAL;
	}
	*ret = ev;
	return 0;
}

int cgroup_remove(struct cgroup *cg)
{
	char dir[PATH_MAX], why[PATH_MAX + 256], note[PATH_MAX + 128];
	int rc = 0, r, others, locked = 0;

	/* Without the lock (held past its deadline) only our own leaves go:
	 * the sweep and BASE's controllers are left to the next supervisor. */
	if (cg->lock_fd < 0 && cg->kind == CGROUP_V2)
		locked = base_lock(cg->base, &cg->lock_fd, cg->lock_path, sizeof(cg->lock_path), note,
				   sizeof(note), why, sizeof(why));
	else if (cg->lock_fd < 0 && cg->kind == CGROUP_V1)
		locked = own_dir("memory", dir, sizeof(dir)) == 0
			     ? base_lock(dir, &cg->lock_fd, cg->lock_path, sizeof(cg->lock_path), note,
					 sizeof(note), why, sizeof(why))
			     : -ENOENT;
	switch (cg->kind) {
	case CGROUP_V2:
		rc = remove_dir(cg->app);
		/* Controllers go off and the supervisor back into BASE only
		 * when no other child of BASE is left (another sandbox's). */
		others = rc == 0 && locked == 0 ? sweep_stale(cg->base) : -1;
		if (others == 0) {
			disable_controllers(cg->base, cg->enabled, others);
			if (cg->moved_self) {
				r = write_at(cg->base, "cgroup.procs", "0");
				if (r == 0)
					r = rmdir(cg->sup) < 0 ? -errno : 0;
				rc = rc ? rc : r;
			}
		}
		/* Else our .supervisor leaf stays: the next supervisor in BASE
		 * sweeps it once we are gone. */
		break;
	case CGROUP_V1:
		rc = remove_dir(cg->app);
		r = remove_dir(cg->pids);
		rc = rc ? rc : r;
		break;
	default:
		break;
	}
	base_unlock(&cg->lock_fd, cg->lock_path);
	cg->kind = CGROUP_NONE;
	return rc ? rc : locked;
}
