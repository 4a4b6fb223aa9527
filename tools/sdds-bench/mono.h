/* SPDX-License-Identifier: MIT */
/*
 * mono.h - the monolithic process of a run: a role handed over from
 * sdds-bench (linked with libsddsclient) to sdds-bench-mono (the same code
 * linked with libsddsmono).
 *
 * OVERVIEW
 * Linking libsddsmono is what makes an application monolithic, so every
 * monolithic role runs in sdds-bench-mono. Its child is forked as for any
 * role (pinned, in its namespace: both survive the exec) and calls
 * mono_exec; sdds-bench-mono (main_mono.c) gets the role's arguments and
 * shared areas back with mono_call_open and runs it. Its exit code is the
 * child's, so to the parent it is the same child as before.
 */
#ifndef SDDS_BENCH_MONO_H
#define SDDS_BENCH_MONO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "bench.h"

#define MONO_MAX_SHM 2

/* struct bench_opts as plain values: its two strings as arrays, the pointers NULL. */
struct mono_opts {
	struct bench_opts b;
	char sddsd_path[PATH_MAX];
	char raw_prefix[PATH_MAX];
};

/* Copies o (borrowed) into *ret, its strings into the arrays. */
void mono_opts_put(const struct bench_opts *o, struct mono_opts *ret);

/* The options in p, their strings pointing into p's arrays (or NULL when empty). */
const struct bench_opts *mono_opts_get(struct mono_opts *p);

/*
 * In a role's forked child: execs sdds-bench-mono to run role with a copy
 * of len bytes of args and the n_shm mappings of proc_shm_new at shm[i].
 * Returns only on failure: -errno.
 */
int mono_exec(const char *role, const void *args, size_t len, void *const *shm, int n_shm);

/* A role as sdds-bench-mono received it; every area is mapped and owned. */
struct mono_call {
	const char *role; /* in argv */
	void *args;	  /* len bytes */
	size_t len;
	void *shm[MONO_MAX_SHM];
	size_t shm_size[MONO_MAX_SHM];
	int n_shm;
};

/*
 * In sdds-bench-mono: what mono_exec handed over in argv, the descriptors
 * closed. 0 with *ret (for mono_call_close), or -errno with a reason in why.
 */
int mono_call_open(int argc, char **argv, struct mono_call *ret, char *why);

/* Unmaps the arguments and the areas; accepts a zeroed struct. */
void mono_call_close(struct mono_call *m);

/* True in sdds-bench-mono once mono_call_open succeeded: only there may a monolithic client be made. */
bool mono_process(void);

#endif /* SDDS_BENCH_MONO_H */
