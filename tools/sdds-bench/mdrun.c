/* SPDX-License-Identifier: MIT */
/* mdrun.c - finding a program and json-c lookups (see mdrun.h). */
#include "mdrun.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool mdrun_is_exec(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int mdrun_which(const char *prog, char *buf, size_t cap)
{
	const char *path = getenv("PATH");
	char cand[PATH_MAX];

	if (strchr(prog, '/') != NULL) {
		if (!mdrun_is_exec(prog))
			return -ENOENT;
		return snprintf(buf, cap, "%s", prog) < (int)cap ? 0 : -ENAMETOOLONG;
	}
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		if (len > 0 &&
		    snprintf(cand, sizeof(cand), "%.*s/%s", (int)len, path, prog) < (int)sizeof(cand) &&
		    mdrun_is_exec(cand))
			return snprintf(buf, cap, "%s", cand) < (int)cap ? 0 : -ENAMETOOLONG;
		path += len + (path[len] == ':');
	}
	return -ENOENT;
}

struct json_object *mdrun_json_parse(const char *s)
{
	const char *start = strchr(s, '{');
	struct json_object *o;

	/* A tool may print a line before its object; the object is what counts. */
	if (start == NULL)
		return NULL;
	o = json_tokener_parse(start);
	if (o != NULL && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

void mdrun_json_free(struct json_object *o)
{
	json_object_put(o); /* NULL is a no-op */
}

/* The member at a dotted path, as a JSON pointer ("/net/frames_in"): json-c walks members and indices alike.
 */
static struct json_object *mdrun_jget(struct json_object *o, const char *path)
{
	struct json_object *m;
	char ptr[128];

	snprintf(ptr, sizeof(ptr), "/%s", path);
	for (char *p = strchr(ptr, '.'); p; p = strchr(p, '.'))
		*p = '/';
	return json_pointer_get(o, ptr, &m) < 0 ? NULL : m;
}

int mdrun_jnum(struct json_object *o, const char *path, double *ret)
{
	struct json_object *m = mdrun_jget(o, path);

	if (m == NULL || !(json_object_is_type(m, json_type_double) || json_object_is_type(m, json_type_int)))
		return -ENOENT;
	*ret = json_object_get_double(m);
	return 0;
}

int mdrun_jstr(struct json_object *o, const char *path, char *buf, size_t cap)
{
	struct json_object *m = mdrun_jget(o, path);

	if (m == NULL || !json_object_is_type(m, json_type_string))
		return -ENOENT;
	snprintf(buf, cap, "%s", json_object_get_string(m));
	return 0;
}

int mdrun_jbool(struct json_object *o, const char *path, bool *ret)
{
	struct json_object *m = mdrun_jget(o, path);

	if (m == NULL || !json_object_is_type(m, json_type_boolean))
		return -ENOENT;
	*ret = json_object_get_boolean(m);
	return 0;
}
