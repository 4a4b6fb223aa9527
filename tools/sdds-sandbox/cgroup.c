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
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "sysfile.h"

#define CGROUP_RMDIR_TRIES 100 /* times 10 ms */

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

/* "memory pids" as "+memory +pids" (sign '+') or "-memory -pids". */
static void toggle_text(const char *enabled, char sign, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = '\0';
	while (*enabled && n < cap) {
		size_t w = strcspn(enabled, " ");

		n += (size_t)snprintf(buf + n, cap - n, "%s%c%.*s", n ? " " : "", sign, (int)w, enabled);
		enabled += w;
		enabled += *enabled == ' ';
	}
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

/* The unified layout (cgroup.h). */
static int create_v2(const char *base, uint64_t mem_max, uint64_t pids_max, struct cgroup *cg, char *why,
		     size_t why_cap)
{
	char path[PATH_MAX + 64], sup[PATH_MAX + 16], text[512], val[32];
	bool root_cgroup;
	int rc;

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", base);
	rc = read_text(path, text, sizeof(text));
	if (rc < 0) {
		snprintf(why, why_cap, "read %s: %s", path, strerror(-rc));
		return rc;
	}
	/* The root cgroup is exempt from the no-internal-process rule. */
	snprintf(path, sizeof(path), "%s/cgroup.type", base);
	root_cgroup = access(path, F_OK) != 0;
	text[strcspn(text, "\n")] = '\0';
	if (!has_word(text, "memory", " "))
		strcat(cg->enabled, "memory");
	if (!has_word(text, "pids", " "))
		strcat(cg->enabled, cg->enabled[0] ? " pids" : "pids");

	snprintf(sup, sizeof(sup), "%s/supervisor", base);
	if (!root_cgroup && cg->enabled[0]) {
		if (mkdir(sup, 0755) < 0 && errno != EEXIST) {
			rc = -errno;
			snprintf(why, why_cap, "cannot create a cgroup under %s: %s", base, strerror(-rc));
			return rc;
		}
		rc = write_at(sup, "cgroup.procs", "0");
		if (rc < 0) {
			snprintf(why, why_cap, "cannot move into %s: %s", sup, strerror(-rc));
			goto fail_rmdir_sup;
		}
		cg->moved_self = true;
	}
	if (cg->enabled[0]) {
		char on[40];

		toggle_text(cg->enabled, '+', on, sizeof(on));
		rc = write_at(base, "cgroup.subtree_control", on);
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
	if ((size_t)snprintf(cg->app, sizeof(cg->app), "%s/app", base) >= sizeof(cg->app)) {
		rc = -ENAMETOOLONG;
		snprintf(why, why_cap, "%s: %s", base, strerror(-rc));
		goto fail_disable;
	}
	/* A stale, empty leaf of a supervisor that was killed goes first. */
	if (rmdir(cg->app) < 0 && errno != ENOENT) {
		rc = -errno;
		snprintf(why, why_cap, "%s exists and cannot be removed: %s", cg->app, strerror(-rc));
		goto fail_disable;
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
	/* Without swap accounting (or swap) the file is missing: nothing to bound. */
	rc = write_at(cg->app, "memory.swap.max", "0");
	if (rc < 0 && rc != -ENOENT) {
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
	if (cg->enabled[0]) {
		toggle_text(cg->enabled, '-', text, sizeof(text));
		(void)write_at(base, "cgroup.subtree_control", text);
	}
fail_move_back:
	if (cg->moved_self)
		(void)write_at(base, "cgroup.procs", "0");
	cg->moved_self = false;
fail_rmdir_sup:
	(void)rmdir(sup);
	return rc;
}

/* One legacy hierarchy's child: DIR/sdds-sandbox.PID. */
static int create_v1_child(const char *controller, char *ret, size_t cap, char *why, size_t why_cap)
{
	char dir[PATH_MAX];
	int rc;

	rc = own_dir(controller, dir, sizeof(dir));
	if (rc < 0) {
		snprintf(why, why_cap, "no %s cgroup of this process: %s", controller, strerror(-rc));
		return rc;
	}
	if ((size_t)snprintf(ret, cap, "%s/sdds-sandbox.%d", dir, (int)getpid()) >= cap) {
		snprintf(why, why_cap, "%s: %s", dir, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
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
	 * The file exists only where swap is accounted. */
	rc = write_at(cg->app, "memory.memsw.limit_in_bytes", val);
	if (rc < 0 && rc != -ENOENT) {
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
	if (own_dir(NULL, base, sizeof(base)) == 0) {
		snprintf(path, sizeof(path), "%s/cgroup.controllers", base);
		if (read_text(path, text, sizeof(text)) == 0 && has_word(text, "memory", " \n") &&
		    has_word(text, "pids", " \n")) {
			rc = create_v2(base, mem_max, pids_max, cg, why, why_cap);
			goto out;
		}
	}
	if (find_mount("memory", mnt, root) == 0 && find_mount("pids", mnt, root) == 0) {
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
	free(cg);
	return rc;
}

int cgroup_attach(const struct cgroup *cg, pid_t pid)
{
	char text[32];
	int rc;

	snprintf(text, sizeof(text), "%d", (int)pid);
	rc = write_at(cg->app, "cgroup.procs", text);
	if (rc == 0 && cg->kind == CGROUP_V1)
		rc = write_at(cg->pids, "cgroup.procs", text);
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
	char text[40], sup[PATH_MAX + 16];
	int rc = 0, r;

	switch (cg->kind) {
	case CGROUP_V2:
		rc = remove_dir(cg->app);
		if (cg->enabled[0] && rc == 0) {
			toggle_text(cg->enabled, '-', text, sizeof(text));
			r = write_at(cg->base, "cgroup.subtree_control", text);
			rc = rc ? rc : r;
		}
		if (cg->moved_self && rc == 0) {
			snprintf(sup, sizeof(sup), "%s/supervisor", cg->base);
			r = write_at(cg->base, "cgroup.procs", "0");
			if (r == 0)
				r = rmdir(sup) < 0 ? -errno : 0;
			rc = rc ? rc : r;
		}
		break;
	case CGROUP_V1:
		rc = remove_dir(cg->app);
		r = remove_dir(cg->pids);
		rc = rc ? rc : r;
		break;
	default:
		break;
	}
	cg->kind = CGROUP_NONE;
	return rc;
}
