/* SPDX-License-Identifier: MIT */
/*
 * mdrun.h - the child processes of `sdds-bench report` and the JSON they print.
 *
 * OVERVIEW
 * Every part of the report (sdds-bench itself, sdds-trace, ddsperf,
 * valgrind, gnuplot) runs as a child in a process group of its own, with
 * its stdout and stderr in files and a time cap: when the cap passes the
 * whole group gets SIGTERM (the net benchmark removes its namespaces on
 * it), then SIGKILL after 3 s. Groups still alive when the report itself
 * gets SIGINT or SIGTERM are stopped the same way first.
 *
 * JSON is read with json-c; its types stay behind this header (json-c and
 * json.h both define a json_bool), so callers hold an opaque
 * struct json_object and ask for dotted paths ("latency.sddsd.median_us").
 */
#ifndef SDDS_BENCH_MDRUN_H
#define SDDS_BENCH_MDRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct json_object;

/*
 * Where prog is: with a '/' it must be an executable file; without, the
 * first executable match in PATH. 0 and the path in buf (caller's, cap
 * bytes), or -ENOENT.
 */
int mdrun_which(const char *prog, char *buf, size_t cap);

/*
 * Start argv (argv[0] looked up in PATH) in a new process group, stdout to
 * out_path and stderr to err_path (NULL: /dev/null), stdin from /dev/null,
 * with env (NULL or a NULL-terminated list of "NAME=VALUE", copied by the
 * child) added to the environment. 0 and *ret_pid, or -errno. Nothing of
 * the caller's is kept.
 */
int mdrun_spawn(char *const argv[], char *const env[], const char *out_path, const char *err_path,
		pid_t *ret_pid);

/*
 * Wait for pid for at most cap_s seconds. 0 and its wait status in
 * *ret_status; -ETIMEDOUT when the cap passed (its group is then stopped
 * and it is reaped).
 */
int mdrun_wait(pid_t pid, double cap_s, int *ret_status);

/* Stop pid's group (SIGTERM, 3 s, SIGKILL) and reap pid. */
void mdrun_stop(pid_t pid);

/* Stop every live group on SIGINT and SIGTERM, then die of the signal. */
void mdrun_install_signals(void);

/* The last non-empty line of a file, at most cap - 1 bytes, into buf; "" when none. */
void mdrun_last_line(const char *path, char *buf, size_t cap);

/* argv as one line (arguments with spaces quoted) into buf (cap bytes), for the report. */
void mdrun_cmdline(char *const argv[], char *buf, size_t cap);

/* A wait status as text ("exit 1", "killed by signal 9") into buf. */
void mdrun_status_str(int status, char *buf, size_t cap);

/*
 * The JSON object a file holds, or NULL (no file, not JSON, not an
 * object). The caller owns it and frees it with mdrun_json_free.
 */
struct json_object *mdrun_json_load(const char *path);
/* The JSON object in the string s, or NULL; as mdrun_json_load. */
struct json_object *mdrun_json_parse(const char *s);
void mdrun_json_free(struct json_object *o);

/*
 * Members by dotted path; a component may be an array index ("modes.1.p99_us").
 * mdrun_jnum: 0 and *ret for a JSON number, -ENOENT otherwise (null included).
 * mdrun_jstr: the string (owned by o) or NULL. mdrun_jbool: 0 and *ret, or -ENOENT.
 * mdrun_jget: the member (owned by o) or NULL; mdrun_jlen: array length, or -1.
 */
int mdrun_jnum(struct json_object *o, const char *path, double *ret);
const char *mdrun_jstr(struct json_object *o, const char *path);
int mdrun_jbool(struct json_object *o, const char *path, bool *ret);
struct json_object *mdrun_jget(struct json_object *o, const char *path);
int mdrun_jlen(struct json_object *o, const char *path);

#endif /* SDDS_BENCH_MDRUN_H */
