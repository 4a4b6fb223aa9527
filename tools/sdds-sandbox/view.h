/* SPDX-License-Identifier: MIT */
/*
 * view.h - the sandbox's filesystem view: a fresh tmpfs root holding
 * read-only bind mounts of what the program needs, /dev/null, /dev/zero,
 * /dev/urandom, the /proc of the new PID namespace, optional writable
 * tmpfs directories, and nothing else.
 *
 * OVERVIEW
 * view_build runs in the sandbox child after it entered its new user and
 * mount namespaces (it needs CAP_SYS_ADMIN there) and before it drops
 * capabilities. Every path is bound at the same absolute path it has
 * outside, and every symbolic link met on the way to it (/lib64 ->
 * /lib/..., merged /usr) is recreated as the same link, so that a program
 * finds its files by the names it was built with. Sources are opened first
 * (O_PATH) and bound through /proc/self/fd, so the staging mount point may
 * shadow them. At the end the root is pivoted to the tmpfs, the old root is
 * detached, and the tmpfs root itself is made read-only, noexec, nosuid,
 * nodev: only the bound files can be executed.
 */
#ifndef SDDS_SANDBOX_VIEW_H
#define SDDS_SANDBOX_VIEW_H

#include <stddef.h>
#include <sys/types.h>

struct view_opts {
	const char *const *files; /* bound read-only; also directories */
	size_t n_files;
	const char *const *tmpfs; /* writable tmpfs mounts, noexec,nosuid,nodev */
	size_t n_tmpfs;
	size_t tmpfs_size; /* bytes, per tmpfs */
	uid_t uid;	   /* owner of the tmpfs mounts, inside */
	gid_t gid;
	int verbose; /* print each step on stderr (the tool, not a library) */
};

/*
 * Build the view and pivot into it. On failure *ret_step names what failed
 * (static text) and the mount namespace is left half-built: the caller
 * exits. Returns 0 or -errno.
 */
int view_build(const struct view_opts *o, const char **ret_step);

#endif /* SDDS_SANDBOX_VIEW_H */
