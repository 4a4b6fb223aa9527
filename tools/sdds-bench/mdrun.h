/* SPDX-License-Identifier: MIT */
/*
 * mdrun.h - finding a program, and reading the JSON another program printed
 * (sdds-bench net reads sddsctl's, callgrind finds valgrind).
 *
 * OVERVIEW
 * JSON is read with json-c, whose types stay behind this header because
 * json-c and json.h both define a json_bool: callers hold an opaque struct
 * json_object and ask for dotted paths ("net.frames_in").
 */
#ifndef SDDS_BENCH_MDRUN_H
#define SDDS_BENCH_MDRUN_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

/*
 * Where prog is: with a '/', itself if it is an executable file; else the
 * first executable match in PATH. 0 with the path in buf (cap bytes), or
 * -ENOENT.
 */
int mdrun_which(const char *prog, char *buf, size_t cap);

/*
 * The JSON object in s, text before its first '{' skipped, or NULL. The
 * caller frees it with mdrun_json_free.
 */
struct json_object *mdrun_json_parse(const char *s);
void mdrun_json_free(struct json_object *o);

/*
 * The number at a dotted path in o, a component being a member name or an
 * array index ("modes.1.p99_us"): 0 with *ret, or -ENOENT (null included).
 */
int mdrun_jnum(struct json_object *o, const char *path, double *ret);

/* The string at a dotted path in o, as mdrun_jnum, into buf (cap bytes): 0, or -ENOENT. */
int mdrun_jstr(struct json_object *o, const char *path, char *buf, size_t cap);

/* The boolean at a dotted path in o, as mdrun_jnum: 0 with *ret, or -ENOENT. */
int mdrun_jbool(struct json_object *o, const char *path, bool *ret);

#endif /* SDDS_BENCH_MDRUN_H */
