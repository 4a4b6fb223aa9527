/* SPDX-License-Identifier: MIT */
/*
 * json.h - a tiny streaming JSON emitter (no dependency).
 *
 * OVERVIEW
 * The caller opens and closes objects and arrays in order; the emitter
 * writes commas, keys and escapes. Inside an object every value needs a
 * key; inside an array and at the top the key is NULL. A non-finite number
 * is written as null (JSON has no NaN). Nesting deeper than JSON_MAX_DEPTH
 * is a bug of the caller (assert). Output goes to the caller's FILE, which
 * the caller owns; nothing is buffered here.
 */
#ifndef SDDS_BENCH_JSON_H
#define SDDS_BENCH_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH]; /* no member written yet at this level */
};

void json_init(struct json *j, FILE *f);
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_num(struct json *j, const char *key, double v);
void json_uint(struct json *j, const char *key, uint64_t v);
void json_int(struct json *j, const char *key, int64_t v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* s is copied out escaped; NULL writes null. */
void json_str(struct json *j, const char *key, const char *s);
/* Ends the top-level value with a newline. */
void json_finish(struct json *j);

#endif /* SDDS_BENCH_JSON_H */
