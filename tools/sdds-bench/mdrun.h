/* SPDX-License-Identifier: MIT */
/*
 * mdrun.h - finding a program, and reading the JSON another program printed
 * (sdds-bench net reads sddsctl's, callgrind finds valgrind).
 *
 * OVERVIEW
 * JSON is read with json-c; its types stay behind this header (json-c and
 * json.h both define a json_bool), so callers hold an opaque
 * struct json_object and ask for dotted paths ("net.frames_in").
 * The report that once ran the benchmarks from here is report.py.
 */
#ifndef SDDS_BENCH_MDRUN_H
#define SDDS_BENCH_MDRUN_H

#include <stddef.h>

struct json_object;

/*
 * Where prog is: with a '/' it must be an executable file; without, the
 * first executable match in PATH. 0 and the path in buf (caller's, cap
 * bytes), or -ENOENT.
 */
int mdrun_which(const char *prog, char *buf, size_t cap);

/*
 * The JSON object in the string s (text before its first '{' is skipped),
 * or NULL. The caller owns it and frees it with mdrun_json_free.
 */
struct json_object *mdrun_json_parse(const char *s);
void mdrun_json_free(struct json_object *o);

/*
 * Members by dotted path; a component may be an array index ("modes.1.p99_us").
 * mdrun_jget: the member (owned by o) or NULL.
 * mdrun_jnum: 0 and *ret for a JSON number, -ENOENT otherwise (null included).
 */
struct json_object *mdrun_jget(struct json_object *o, const char *path);
int mdrun_jnum(struct json_object *o, const char *path, double *ret);

#endif /* SDDS_BENCH_MDRUN_H */
