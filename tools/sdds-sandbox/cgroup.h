/* SPDX-License-Identifier: MIT */
/*
 * cgroup.h - the application's own cgroup: the memory and task limits that
 * rlimits cannot give (RLIMIT_DATA does not count MAP_SHARED memory, so
 * only a memory cgroup bounds what the application can make the host
 * hold).
 *
 * OVERVIEW
 * cgroup_create runs in the supervisor before the sandbox exists;
 * cgroup_attach moves init into the new cgroup while init still waits for
 * its uid/gid maps, so init, the program and every thread it makes are
 * charged there before the program's first instruction; cgroup_remove runs
 * after init was reaped, which in a PID namespace means every process of
 * the sandbox is gone.
 *
 * Two layouts, both with leaves named for the supervisor's pid, so that
 * sandboxes started from the same cgroup never meet:
 *   v2  (unified hierarchy with the memory and pids controllers): the
 *       supervisor's own cgroup BASE must be one it may write and that
 *       holds no other process (a unit with Delegate=yes, a delegated
 *       scope), or the root cgroup, which any number of supervisors may
 *       share. v2 allows processes only in leaves once a non-root cgroup
 *       enables controllers for its children, so there the supervisor
 *       first moves itself into BASE/sdds-sandbox.PID.supervisor; then it
 *       enables memory and pids in BASE/cgroup.subtree_control (noting
 *       them in BASE's xattr trusted.sdds-sandbox.enabled,
 *       each name once) and creates
 *       BASE/sdds-sandbox.PID with memory.max, memory.swap.max=0,
 *       memory.oom.group=1 and pids.max. cgroup_remove removes the leaf;
 *       the last supervisor out of BASE (no other child left) disables
 *       what was enabled and moves back, so BASE is left as found.
 *   v1  (the memory and pids controllers on legacy hierarchies, as on a
 *       "hybrid" host): no such rule there, so a child sdds-sandbox.PID of
 *       the supervisor's cgroup in each of the two hierarchies, with
 *       memory.limit_in_bytes (and memory.memsw.limit_in_bytes, equal, so
 *       no swap past the limit, where swap is accounted) and pids.max.
 * v2 is used when the supervisor's unified cgroup offers both controllers,
 * else v1 when both legacy hierarchies are mounted.
 *
 * Concurrency and crashes: every create and remove holds a lock for the
 * directory the leaves are made in (BASE, or the v1 memory cgroup), from
 * cgroup_create until cgroup_attach has moved init in, and in
 * cgroup_remove: an flock on a file only our uid may open
 * (/run/sdds-sandbox/ for root, $XDG_RUNTIME_DIR/sdds-sandbox/ for
 * another uid), named for the directory's st_dev and st_ino, waited for
 * at most 5 s. Under it, leaves named for a pid that no longer exists
 * (a supervisor killed before it could remove them) are removed, and
 * those named for our own pid (an earlier supervisor with this pid left
 * them); one of these that still holds tasks makes cgroup_create fail.
 *
 * Swap: where the host has swap but the kernel does not account it
 * (memory.swap.max, memory.memsw.limit_in_bytes missing), the program
 * could swap past mem_max: cgroup_create succeeds and says so in weak; the
 * caller decides whether such a limit is enough.
 *
 * The functions never print: a failure of cgroup_create fills a reason for
 * a person (the caller decides whether it is fatal).
 */
#ifndef SDDS_SANDBOX_CGROUP_H
#define SDDS_SANDBOX_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

enum cgroup_kind { CGROUP_NONE, CGROUP_V2, CGROUP_V1 };

struct cgroup {
	enum cgroup_kind kind;
	char app[PATH_MAX];	       /* v2: BASE/sdds-sandbox.PID; v1: the memory cgroup */
	char pids[PATH_MAX];	       /* v1: the pids cgroup; v2: unused */
	char base[PATH_MAX];	       /* v2: BASE, restored by cgroup_remove */
	char sup[PATH_MAX];	       /* v2: BASE/sdds-sandbox.PID.supervisor */
	bool moved_self;	       /* v2: the supervisor moved into sup */
	char enabled[32];	       /* v2: the controllers we enabled in BASE, e.g. "memory pids" */
	char weak[PATH_MAX + 128];     /* why mem_max does not bound swap; "" when it does */
	int lock_fd;		       /* the flock held until cgroup_attach; -1 */
	char lock_path[PATH_MAX];      /* its file, unlinked when it is released; "" */
	char unlocked[PATH_MAX + 128]; /* why no lock orders the supervisors; "" when one does */
};

struct cgroup_events {
	uint64_t oom_kills;   /* tasks the OOM killer killed at the limit */
	uint64_t pids_denied; /* forks and clones refused at pids.max */
	uint64_t peak;	      /* the most memory charged, bytes; 0 unknown */
};

/*
 * Create the application's cgroup with memory limit mem_max (bytes, 0: no
 * limit) and task limit pids_max (0: no limit). Returns 0 and fills *ret,
 * or -errno and writes a reason (one line, no newline) into why. A
 * non-root uid without $XDG_RUNTIME_DIR gets no lock: ret->unlocked says
 * so, for the caller to print.
 */
int cgroup_create(uint64_t mem_max, uint64_t pids_max, struct cgroup *ret, char *why, size_t why_cap);

/* Move process pid (all its threads) into the cgroup and release the
 * lock cgroup_create took. 0 or -errno. */
int cgroup_attach(struct cgroup *cg, pid_t pid);

/* The cgroup's counters; 0 or -errno. Valid until cgroup_remove. */
int cgroup_read_events(const struct cgroup *cg, struct cgroup_events *ret);

/*
 * Remove the cgroup (its processes must be gone; a dying one is waited for
 * up to a second) and, for v2, restore BASE. 0 or the first -errno
 * (-ETIMEDOUT: the lock was held past its deadline; then only our own
 * leaves were removed, BASE is left to the next supervisor).
 */
int cgroup_remove(struct cgroup *cg);

/*
 * The parsers behind cgroup_create, separate for the tests. From an open
 * /proc/PID/mountinfo, the mount point and root of the cgroup2 mount
 * (controller NULL) or of the legacy hierarchy with controller: 0,
 * -ENOENT, or -ENAMETOOLONG when a path does not fit its cap. From an open
 * /proc/PID/cgroup, the cgroup path in that hierarchy ("0::" for NULL): 0,
 * -ENOENT, -EINVAL, -ENAMETOOLONG. Lines of any length are read whole.
 */
int cgroup_mountinfo_find(FILE *f, const char *controller, char *ret_dir, size_t dir_cap, char *ret_root,
			  size_t root_cap);
int cgroup_proc_path(FILE *f, const char *controller, char *ret, size_t cap);

/*
 * The controllers sdds-sandbox enables in a v2 BASE (memory, pids), as a
 * set: cgroup_ctrl_parse takes the names it knows from a blank-separated
 * list (BASE's xattr), each once, and ignores any other word;
 * cgroup_ctrl_text writes a set as "memory pids" (sign 0) or
 * "+memory +pids" (sign '+' or '-'): 0, or -ENAMETOOLONG and "" when it
 * does not fit cap.
 */
#define CGROUP_CTRL_MEMORY 1u
#define CGROUP_CTRL_PIDS 2u
#define CGROUP_CTRL_ALL (CGROUP_CTRL_MEMORY | CGROUP_CTRL_PIDS)
unsigned cgroup_ctrl_parse(const char *text);
int cgroup_ctrl_text(unsigned mask, char sign, char *buf, size_t cap);

#endif /* SDDS_SANDBOX_CGROUP_H */
