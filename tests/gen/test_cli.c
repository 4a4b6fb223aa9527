/* SPDX-License-Identifier: MIT */
/*
 * test_cli.c - the sdds-gen executable: exit status, messages on stderr,
 * the files it writes (and does not write on error), --depfile, --dump.
 *
 * Usage: test_cli SDDS_GEN DATA_DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static const char *gen_path;
static const char *data_dir;

struct run {
	int status; /* exit status, or -1 when killed */
	char out[16384];
	char err[16384];
};

/* Read all of fd into buf (cap bytes, NUL-terminated). */
static void drain(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
}

/* Run sdds-gen with args (NULL-terminated); stdout and stderr go to files to avoid pipe deadlocks. */
static void run(struct run *res, const char *const *args)
{
	char *argv[16];
	FILE *out = tmpfile(), *err = tmpfile();
	int st;
	size_t n = 0;
	pid_t pid;

	assert_non_null(out);
	assert_non_null(err);
	argv[n++] = (char *)gen_path;
	for (; args[n - 1] != NULL && n < 15; n++)
		argv[n] = (char *)args[n - 1];
	argv[n] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		execv(gen_path, argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	rewind(out);
	rewind(err);
	drain(fileno(out), res->out, sizeof(res->out));
	drain(fileno(err), res->err, sizeof(res->err));
	fclose(out);
	fclose(err);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static char *make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char tmpl[PATH_MAX];
	char *dir;

	snprintf(tmpl, sizeof(tmpl), "%s/sdds-gen-cli.XXXXXX", base != NULL ? base : "/tmp");
	dir = mkdtemp(tmpl);
	assert_non_null(dir);
	return strdup(dir);
}

static void remove_tree(char *dir)
{
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static char *slurp(const char *path)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	drain(fd, buf, sizeof(buf));
	close(fd);
	return buf;
}

static size_t count_entries(const char *dir)
{
	char cmd[PATH_MAX + 32];
	size_t n = 0;
	struct stat st;

	/* The fixed names sdds-gen may write, temporaries included. */
	static const char *const names[] = {"t_sdds_impl.h", "t_sdds_impl.c", "t_sdds_impl.h.tmp",
					    "t_sdds_impl.c.tmp", "dep.d"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s/%s", dir, names[i]);
		if (stat(cmd, &st) == 0)
			n++;
	}
	return n;
}

static void test_usage(void **state)
{
	struct run r;

	(void)state;
	run(&r, (const char *const[]){NULL});
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "usage: sdds-gen"));
	run(&r, (const char *const[]){"--bogus", "x.xml", NULL});
	assert_int_equal(r.status, 2);
	run(&r, (const char *const[]){"--help", NULL});
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "usage: sdds-gen"));
}

static void test_error_writes_nothing(void **state)
{
	char *dir = make_tmpdir();
	char xml[PATH_MAX], dep[PATH_MAX], want[PATH_MAX + 100];
	FILE *f;
	struct run r;

	(void)state;
	snprintf(xml, sizeof(xml), "%s/sdds.xml", dir);
	f = fopen(xml, "w");
	assert_non_null(f);
	fputs("<project name=\"t\">\n<topic name=\"a\" domain=\"1\" id=\"A\">\n<attribute name=\"x\" "
	      "type=\"DDS_foo\"/>\n"
	      "</topic>\n</project>\n",
	      f);
	fclose(f);
	snprintf(dep, sizeof(dep), "%s/dep.d", dir);
	run(&r, (const char *const[]){"-o", dir, "--depfile", dep, xml, NULL});
	assert_int_equal(r.status, 1);
	snprintf(want, sizeof(want), "%s/sdds.xml:3: unknown type 'DDS_foo' for attribute 'x'\n", dir);
	assert_string_equal(r.err, want);
	assert_int_equal(count_entries(dir), 0);
	remove_tree(dir);
}

static void test_generate(void **state)
{
	char *dir = make_tmpdir();
	char xml[PATH_MAX], h[PATH_MAX], c[PATH_MAX], dep[PATH_MAX], want[5 * PATH_MAX];
	struct run r;
	char *text;

	(void)state;
	snprintf(xml, sizeof(xml), "%s/config/basic_linux_linux_temperature_pub/sdds.xml", data_dir);
	snprintf(dep, sizeof(dep), "%s/dep.d", dir);
	run(&r, (const char *const[]){"-o", dir, "--depfile", dep, xml, NULL});
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	snprintf(h, sizeof(h), "%s/linux_temperature_pub_sdds_impl.h", dir);
	snprintf(c, sizeof(c), "%s/linux_temperature_pub_sdds_impl.c", dir);
	text = slurp(h);
	assert_non_null(text);
	assert_non_null(strstr(text, "#include <sdds/dcps.h>"));
	assert_non_null(strstr(text, "struct Temperature {"));
	assert_non_null(strstr(text, "extern DDS_DataWriter g_Temperature_writer;"));
	assert_null(strstr(text, "g_Temperature_reader")); /* publisher only */
	text = slurp(c);
	assert_non_null(text);
	assert_non_null(strstr(text, "#include \"linux_temperature_pub_sdds_impl.h\""));
	assert_non_null(strstr(text, "sdds_dcps_init(\"linux_temperature_pub\")"));
	/* The depfile names both outputs and every XML file read. */
	text = slurp(dep);
	assert_non_null(text);
	snprintf(want, sizeof(want),
		 "%s %s: %s %s/config/basic_linux_linux_temperature_pub/../topics/temperature.xml\n", h, c,
		 xml, data_dir);
	assert_string_equal(text, want);
	remove_tree(dir);
}

static void test_dump_and_warnings(void **state)
{
	char xml[PATH_MAX];
	struct run r;

	(void)state;
	snprintf(xml, sizeof(xml), "%s/config/probe_wide_pub/sdds.xml", data_dir);
	run(&r, (const char *const[]){"--dump", xml, NULL});
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "topic wide (Wide): domain 2, id B, 37 bytes, publisher\n"));
	assert_non_null(strstr(r.out, "     7 str                      DDS_string[5] (6 bytes)\n"));
	assert_non_null(strstr(r.out, "subscription wide -> [fe80::c0ef:62ff:fed4:d36b]:23234\n"));

	/* A warning goes to stderr; the run still succeeds. */
	snprintf(xml, sizeof(xml), "%s/config/probe_tiny_pub/sdds.xml", data_dir);
	run(&r, (const char *const[]){"--dump", xml, NULL});
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "tiny.xml:2: warning: topic 'tiny' has id 1 in domain 1"));
}

/* A directory that cannot be made (a file is in the way, even for root): exit 1, its reason. */
static void test_unwritable(void **state)
{
	char *dir = make_tmpdir();
	char xml[PATH_MAX], file[PATH_MAX], out[PATH_MAX + 8], want[PATH_MAX + 64];
	struct run r;
	FILE *f;

	(void)state;
	snprintf(xml, sizeof(xml), "%s/config/probe_zero_pub/sdds.xml", data_dir);
	snprintf(file, sizeof(file), "%s/file", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(out, sizeof(out), "%s/sub", file);
	run(&r, (const char *const[]){"-o", out, xml, NULL});
	assert_int_equal(r.status, 1);
	snprintf(want, sizeof(want), "sdds-gen: cannot create %s: Not a directory", out);
	assert_non_null(strstr(r.err, want));
	remove_tree(dir);
}

/* -o names a directory that does not exist yet: it is made, parents too. */
static void test_makes_outdir(void **state)
{
	char *dir = make_tmpdir();
	char xml[PATH_MAX], out[PATH_MAX + 8], h[2 * PATH_MAX];
	struct run r;

	(void)state;
	snprintf(xml, sizeof(xml), "%s/config/probe_zero_pub/sdds.xml", data_dir);
	snprintf(out, sizeof(out), "%s/a/b/", dir);
	run(&r, (const char *const[]){"-o", out, xml, NULL});
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	snprintf(h, sizeof(h), "%s/probe_zero_pub_sdds_impl.h", out);
	assert_non_null(slurp(h));
	remove_tree(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_usage),      cmocka_unit_test(test_error_writes_nothing),
	    cmocka_unit_test(test_generate),   cmocka_unit_test(test_dump_and_warnings),
	    cmocka_unit_test(test_unwritable), cmocka_unit_test(test_makes_outdir),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: %s SDDS_GEN DATA_DIR\n", argv[0]);
		return 2;
	}
	gen_path = argv[1];
	data_dir = argv[2];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
