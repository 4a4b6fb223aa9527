/* SPDX-License-Identifier: MIT */
/*
 * test_cgroup_parse.c - the parsers behind sdds-sandbox's cgroup lookup
 * (tools/sdds-sandbox/cgroup.c): /proc/PID/mountinfo and /proc/PID/cgroup,
 * and the list of enabled controllers kept in a v2 BASE's xattr.
 *
 * OVERVIEW
 * The kernel puts no bound on a line of either file: a mount point or
 * root deep in a container's tree, many super options, a long cgroup path.
 * Each case feeds a made-up file through fmemopen and checks that a line
 * longer than any fixed buffer (4 KiB was used before) is read whole: the
 * mount it describes is found, and its tail is never taken for a line of
 * its own. The controller list is a set: merged again and again it stays
 * "memory pids", never a list that grows until it is cut mid-name.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cgroup.h"

static FILE *text_file(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	return f;
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* A v1 memory hierarchy mounted at a deep path, from a deep root: one line
 * of about 4.6 KiB. */
static void test_mountinfo_long_cgroup_line(void **state)
{
	char *dir_tail = repeat('d', 3000), *root_tail = repeat('r', 1500), *text, dir[PATH_MAX],
	     root[PATH_MAX];
	FILE *f;

	(void)state;
	assert_true(
	    asprintf(&text,
		     "22 1 0:21 / /proc rw,nosuid shared:12 - proc proc rw\n"
		     "35 26 0:30 /%s /c/%s rw,nosuid,nodev,noexec shared:14 - cgroup cgroup rw,memory\n"
		     "36 26 0:31 / /sys/fs/cgroup/pids rw shared:15 - cgroup cgroup rw,pids\n",
		     root_tail, dir_tail) > 4096);
	f = text_file(text);
	assert_int_equal(cgroup_mountinfo_find(f, "memory", dir, sizeof(dir), root, sizeof(root)), 0);
	assert_int_equal(strlen(dir), 3 + 3000);
	assert_int_equal(strncmp(dir, "/c/ddd", 6), 0);
	assert_int_equal(strlen(root), 1 + 1500);
	fclose(f);

	f = text_file(text);
	assert_int_equal(cgroup_mountinfo_find(f, "pids", dir, sizeof(dir), root, sizeof(root)), 0);
	assert_string_equal(dir, "/sys/fs/cgroup/pids");
	assert_string_equal(root, "/");
	fclose(f);
	free(text);
	free(dir_tail);
	free(root_tail);
}

/* Before the cgroup2 line, an overlay mount with 6 KiB of super options;
 * and a memory hierarchy whose options list it after 5 KiB of others. */
static void test_mountinfo_long_other_line(void **state)
{
	char *lower = repeat('l', 6000), *name = repeat('n', 5000), *text, dir[PATH_MAX], root[PATH_MAX];
	FILE *f;

	(void)state;
	assert_true(
	    asprintf(&text,
		     "40 1 0:40 / / rw,relatime - overlay overlay rw,lowerdir=/%s,upperdir=/u\n"
		     "41 40 0:41 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,name=%s,memory\n"
		     "42 40 0:42 / /sys/fs/cgroup rw,nosuid master:3 - cgroup2 cgroup2 rw,nsdelegate\n",
		     lower, name) > 0);
	f = text_file(text);
	assert_int_equal(cgroup_mountinfo_find(f, NULL, dir, sizeof(dir), root, sizeof(root)), 0);
	assert_string_equal(dir, "/sys/fs/cgroup");
	assert_string_equal(root, "/");
	fclose(f);

	f = text_file(text);
	assert_int_equal(cgroup_mountinfo_find(f, "memory", dir, sizeof(dir), root, sizeof(root)), 0);
	assert_string_equal(dir, "/sys/fs/cgroup/memory");
	fclose(f);

	/* No pids hierarchy at all; a path that does not fit is said so. */
	f = text_file(text);
	assert_int_equal(cgroup_mountinfo_find(f, "pids", dir, sizeof(dir), root, sizeof(root)), -ENOENT);
	fclose(f);
	f = text_file(text);
	assert_int_equal(cgroup_mountinfo_find(f, NULL, dir, 8, root, sizeof(root)), -ENAMETOOLONG);
	fclose(f);
	free(text);
	free(lower);
	free(name);
}

/* A named hierarchy's long line whose tail reads like the unified one's
 * (a cgroup name may hold ':'): the tail is no line of its own. */
static void test_proc_cgroup_long_line(void **state)
{
	char *pad = repeat('a', 4096 - strlen("1:name=x:/") - 1), *text, path[PATH_MAX];
	FILE *f;

	(void)state;
	assert_true(asprintf(&text, "1:name=x:/%s0::/evil\n4:memory,pids:/m\n0::/good/scope\n", pad) > 4096);
	f = text_file(text);
	assert_int_equal(cgroup_proc_path(f, NULL, path, sizeof(path)), 0);
	assert_string_equal(path, "/good/scope");
	fclose(f);
	f = text_file(text);
	assert_int_equal(cgroup_proc_path(f, "pids", path, sizeof(path)), 0);
	assert_string_equal(path, "/m");
	fclose(f);
	f = text_file(text);
	assert_int_equal(cgroup_proc_path(f, "cpu", path, sizeof(path)), -ENOENT);
	fclose(f);
	free(text);
	free(pad);
}

/* What enable_controllers writes back after each re-enable: never grows. */
static void test_ctrl_set(void **state)
{
	char text[64] = "", next[64];
	int i;

	(void)state;
	assert_int_equal(cgroup_ctrl_parse("memory pids"), 3);
	assert_int_equal(cgroup_ctrl_parse("pids\n"), 2);
	/* What the old appending left: duplicates and a cut name. */
	assert_int_equal(cgroup_ctrl_parse("memory pids memory pids memory memory p"), 3);
	assert_int_equal(cgroup_ctrl_parse("memory pi"), 1);
	assert_int_equal(cgroup_ctrl_parse("cpu io memoryx"), 0);
	for (i = 0; i < 100; i++) {
		assert_int_equal(cgroup_ctrl_text(cgroup_ctrl_parse(text) | cgroup_ctrl_parse("memory pids"),
						  0, next, sizeof(next)),
				 0);
		snprintf(text, sizeof(text), "%s", next);
	}
	assert_string_equal(text, "memory pids");
	assert_int_equal(cgroup_ctrl_text(3, '-', next, sizeof(next)), 0);
	assert_string_equal(next, "-memory -pids");
	assert_int_equal(cgroup_ctrl_text(2, '+', next, sizeof(next)), 0);
	assert_string_equal(next, "+pids");
	/* Never a cut name to write to cgroup.subtree_control. */
	assert_int_equal(cgroup_ctrl_text(3, '-', next, 10), -ENAMETOOLONG);
	assert_string_equal(next, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mountinfo_long_cgroup_line),
	    cmocka_unit_test(test_mountinfo_long_other_line),
	    cmocka_unit_test(test_proc_cgroup_long_line),
	    cmocka_unit_test(test_ctrl_set),
	};

	return cmocka_run_group_tests_name("cgroup_parse", tests, NULL, NULL);
}
