/* SPDX-License-Identifier: MIT */
/*
 * elfdeps.h - what a dynamically linked program needs to start: its
 * interpreter (PT_INTERP) and its shared libraries (DT_NEEDED, resolved the
 * way the dynamic loader does, recursively).
 *
 * OVERVIEW
 * Only the native ELF class and machine are read; a library of another
 * class or machine found on a search path is skipped, as ld.so does. The
 * search follows ld.so: DT_RPATH (when there is no DT_RUNPATH),
 * $LD_LIBRARY_PATH, DT_RUNPATH ($ORIGIN expanded), then the directories of
 * /etc/ld.so.conf(.d) and the default ones. Every offset read from a file is
 * bounds-checked: the files are whatever lies on disk.
 */
#ifndef SDDS_SANDBOX_ELFDEPS_H
#define SDDS_SANDBOX_ELFDEPS_H

#include <stddef.h>

/* A set of absolute paths (owned by the set, freed by elfdeps_free). */
struct elfdeps {
	char **paths;
	size_t n;
	size_t cap;
};

/*
 * Add exe (an absolute path), its interpreter and every library it needs,
 * recursively, to deps (which may hold paths already; duplicates are not
 * added). A static executable adds only itself; a file that is not ELF
 * (a script) gives -ENOEXEC. A library that cannot be found gives -ENOENT
 * and its name in *ret_missing (static storage, until the next call).
 * Returns 0 or -errno.
 */
int elfdeps_collect(struct elfdeps *deps, const char *exe, const char **ret_missing);

/*
 * W^X for what the kernel maps at execve, before any filter applies: exe
 * and its interpreter must have no PT_LOAD both writable and executable
 * and no executable stack (PT_GNU_STACK with PF_X). For a "#!" script the
 * program checked is its interpreter (through up to 5 scripts, as Linux);
 * an interpreter named by a relative path gives -ENOEXEC, more than 5
 * levels -ELOOP. Returns 0 (also for a file that is neither ELF nor a
 * script: its exec fails, unless a binfmt_misc handler runs it, whose
 * interpreter is not checked), -EPERM when one of them asks for W+X memory, or
 * -errno when a file cannot be read.
 */
int elfdeps_check_wx(const char *exe);

/* Add one path (copied). Returns 0 or -ENOMEM. */
int elfdeps_add(struct elfdeps *deps, const char *path);

void elfdeps_free(struct elfdeps *deps);

#endif /* SDDS_SANDBOX_ELFDEPS_H */
