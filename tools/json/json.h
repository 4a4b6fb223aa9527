/* SPDX-License-Identifier: MIT */
/*
 * json.h - write one JSON document in document order, built with json-c;
 * the JSON output of sdds-bench, sdds-trace and sddsctl.
 *
 * OVERVIEW
 * The caller opens and closes objects and arrays in order, as if it wrote
 * the text; underneath, each call adds a json-c value to the container open
 * at the time, and json_finish serializes the tree (json-c places the
 * commas, escapes and indents) and frees it. Inside an object every value
 * needs a key; inside an array and at the top the key is NULL. Keys and
 * strings are copied, so the caller may pass temporary buffers; bytes that
 * are not UTF-8 (a client's name, say) become U+FFFD, so the output is
 * always valid JSON. A non-finite number is written as null (JSON has no
 * NaN). Nesting deeper than JSON_MAX_DEPTH, a value without a key in an
 * object, a repeated key or a second top-level value is a bug of the caller
 * (assert). Output goes to the caller's FILE, which the caller owns, at
 * json_finish only. Once an allocation failed the remaining calls do
 * nothing and json_finish writes nothing and says so.
 */
#ifndef SDDS_TOOLS_JSON_H
#define SDDS_TOOLS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json_object;

struct json {
	FILE *f;
	int flags;				  /* json-c's JSON_C_TO_STRING_* for json_finish */
	int depth;				  /* containers open */
	bool failed;				  /* an allocation failed: the document is incomplete */
	struct json_object *root;		  /* the top-level value, owned here until json_finish */
	struct json_object *open[JSON_MAX_DEPTH]; /* open[d]: container at depth d+1 */
};

/* Compact output, one line: what programs read. */
void json_init(struct json *j, FILE *f);
/* One member per line, indented, "key": value: what people read. */
void json_init_pretty(struct json *j, FILE *f);
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
/* Printed with 9 significant digits ("%.9g"). */
void json_num(struct json *j, const char *key, double v);
/* Printed with a fixed number of decimals ("%.*f"). */
void json_fixed(struct json *j, const char *key, double v, int decimals);
void json_uint(struct json *j, const char *key, uint64_t v);
void json_int(struct json *j, const char *key, int64_t v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* s is copied; NULL writes null. */
void json_str(struct json *j, const char *key, const char *s);
/*
 * Write the document and a newline to the FILE, flush it and free the tree
 * (j is ready for a new document in the same form). Returns 0, -ENOMEM when
 * a value could not be allocated (nothing written) or -EIO when the write
 * failed.
 */
int json_finish(struct json *j);

#endif /* SDDS_TOOLS_JSON_H */
