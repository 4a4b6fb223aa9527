/* SPDX-License-Identifier: MIT */
/*
 * json.c - the document-order JSON writer on json-c (see json.h).
 *
 * OVERVIEW
 * j->open holds the containers from the outermost to the one values go to
 * now; they belong to j->root's tree, which alone is freed. A value handed
 * to json-c is owned by its container from then on. json-c writes strings
 * as given (it escapes quotes, backslashes and control characters, and
 * passes other bytes through), so text that is not UTF-8 is repaired here
 * first. Numbers given as doubles keep the text the tools always printed
 * (json_object_new_double_s with our own format), not json-c's double
 * format; '/' is not escaped.
 */

/*
 * json-c names its boolean type json_bool, which is also this module's
 * json_bool(): the typedef is renamed while json-c's header is read (it is
 * an int either way, so nothing changes at the ABI).
 */
#define json_bool json_c_bool
#include <json-c/json_object.h>
#undef json_bool

#include "json.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void json_init_flags(struct json *j, FILE *f, int flags)
{
	j->f = f;
	j->flags = flags | JSON_C_TO_STRING_NOSLASHESCAPE;
	j->depth = 0;
	j->failed = false;
	j->root = NULL;
}

void json_init(struct json *j, FILE *f)
{
	json_init_flags(j, f, JSON_C_TO_STRING_PLAIN);
}

void json_init_pretty(struct json *j, FILE *f)
{
	json_init_flags(j, f, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
}

/*
 * Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), 0 if there is none. p is
 * NUL-terminated; NUL is never a continuation byte, so nothing is read past it.
 */
static size_t json_utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		lo = p[0] == 0xe0 ? 0xa0 : 0x80;
		hi = p[0] == 0xed ? 0x9f : 0xbf;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		lo = p[0] == 0xf0 ? 0x90 : 0x80;
		hi = p[0] == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0;
	}
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++) {
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	}
	return n;
}

/*
 * s itself when it is UTF-8; otherwise a copy with U+FFFD for every byte
 * that starts no well-formed sequence, in *ret_copy, which the caller
 * frees (NULL when s was returned). NULL when the copy cannot be allocated.
 */
static const char *json_utf8(const char *s, char **ret_copy)
{
	static const char replacement[] = "\xef\xbf\xbd";
	const unsigned char *p = (const unsigned char *)s;
	char *copy, *q;
	size_t n;

	*ret_copy = NULL;
	while (*p != '\0' && (n = json_utf8_len(p)) != 0)
		p += n;
	if (*p == '\0')
		return s;
	copy = malloc(3 * strlen(s) + 1);
	if (copy == NULL)
		return NULL;
	q = copy;
	for (p = (const unsigned char *)s; *p != '\0';) {
		n = json_utf8_len(p);
		if (n == 0) {
			memcpy(q, replacement, 3);
			q += 3;
			p++;
		} else {
			memcpy(q, p, n);
			q += n;
			p += n;
		}
	}
	*q = '\0';
	*ret_copy = copy;
	return copy;
}

/*
 * Give v (owned by the caller until here; NULL is JSON null when is_null)
 * to the open container under key, or make it the document. v is freed
 * when it cannot be placed. Returns whether it was placed.
 */
static bool json_place(struct json *j, const char *key, struct json_object *v, bool is_null)
{
	struct json_object *parent;
	const char *k;
	char *kcopy;
	int rc;

	if (j->failed || (v == NULL && !is_null))
		goto fail_put;
	if (j->depth == 0) {
		assert(key == NULL && j->root == NULL);
		j->root = v;
		return true;
	}
	parent = j->open[j->depth - 1];
	if (!json_object_is_type(parent, json_type_object)) {
		assert(key == NULL);
		if (json_object_array_add(parent, v) != 0)
			goto fail_put;
		return true;
	}
	assert(key != NULL);
	k = json_utf8(key, &kcopy);
	if (k == NULL)
		goto fail_put;
	assert(!json_object_object_get_ex(parent, k, NULL));
	rc = json_object_object_add(parent, k, v);
	free(kcopy);
	if (rc != 0)
		goto fail_put;
	return true;
fail_put:
	json_object_put(v);
	j->failed = true;
	return false;
}

static void json_open(struct json *j, const char *key, struct json_object *c)
{
	assert(j->depth < JSON_MAX_DEPTH);
	if (json_place(j, key, c, false))
		j->open[j->depth] = c;
	/* Counted even when it failed, so the closing call still matches. */
	j->depth++;
}

static void json_close(struct json *j, enum json_type type)
{
	assert(j->depth > 0);
	j->depth--;
	assert(j->failed || json_object_is_type(j->open[j->depth], type));
	(void)type;
}

void json_obj_begin(struct json *j, const char *key)
{
	json_open(j, key, j->failed ? NULL : json_object_new_object());
}

void json_obj_end(struct json *j)
{
	json_close(j, json_type_object);
}

void json_arr_begin(struct json *j, const char *key)
{
	json_open(j, key, j->failed ? NULL : json_object_new_array());
}

void json_arr_end(struct json *j)
{
	json_close(j, json_type_array);
}

void json_num(struct json *j, const char *key, double v)
{
	char text[32];

	if (!isfinite(v)) {
		json_null(j, key);
		return;
	}
	snprintf(text, sizeof(text), "%.9g", v);
	json_place(j, key, j->failed ? NULL : json_object_new_double_s(v, text), false);
}

void json_fixed(struct json *j, const char *key, double v, int decimals)
{
	char text[384]; /* DBL_MAX has 309 digits before the point */

	assert(decimals >= 0 && decimals <= 17);
	if (!isfinite(v)) {
		json_null(j, key);
		return;
	}
	snprintf(text, sizeof(text), "%.*f", decimals, v);
	json_place(j, key, j->failed ? NULL : json_object_new_double_s(v, text), false);
}

void json_uint(struct json *j, const char *key, uint64_t v)
{
	json_place(j, key, j->failed ? NULL : json_object_new_uint64(v), false);
}

void json_int(struct json *j, const char *key, int64_t v)
{
	json_place(j, key, j->failed ? NULL : json_object_new_int64(v), false);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_place(j, key, j->failed ? NULL : json_object_new_boolean(v), false);
}

void json_null(struct json *j, const char *key)
{
	json_place(j, key, NULL, true);
}

void json_str(struct json *j, const char *key, const char *s)
{
	struct json_object *v = NULL;
	const char *text;
	char *copy = NULL;

	if (s == NULL) {
		json_null(j, key);
		return;
	}
	if (!j->failed) {
		text = json_utf8(s, &copy);
		if (text != NULL)
			v = json_object_new_string(text);
		free(copy);
	}
	json_place(j, key, v, false);
}

int json_finish(struct json *j)
{
	const char *text = NULL;
	int rc = 0;

	assert(j->depth == 0);
	if (!j->failed)
		text = json_object_to_json_string_ext(j->root, j->flags);
	if (text == NULL)
		rc = -ENOMEM;
	else if (fprintf(j->f, "%s\n", text) < 0 || fflush(j->f) != 0)
		rc = -EIO;
	json_object_put(j->root);
	json_init_flags(j, j->f, j->flags);
	return rc;
}
