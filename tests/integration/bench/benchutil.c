/* SPDX-License-Identifier: MIT */
/* benchutil.c - the helpers of benchutil.h. */
#include "benchutil.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

int benchutil_run(char *const argv[], int fd, bool err_too, pid_t *ret_pid)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fd, STDOUT_FILENO);
		if (err_too)
			dup2(fd, STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (ret_pid)
		*ret_pid = pid;
	return waitpid(pid, &st, 0) == pid ? st : -1;
}

int benchutil_run_to_temp(char *const argv[], char *path, pid_t *ret_pid)
{
	int fd = mkstemp(path), st;

	if (fd < 0)
		return -1;
	st = benchutil_run(argv, fd, false, ret_pid);
	close(fd);
	return st;
}

void benchutil_assert_exit(int status, int code)
{
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), code);
}

int benchutil_python(const char *script, const char *file, const char *arg)
{
	/* A NULL arg ends the list early: python3 sees only the file. */
	char *const argv[] = {"python3", "-c", (char *)script, (char *)file, (char *)arg, NULL};
	int st = benchutil_run(argv, STDOUT_FILENO, false, NULL);

	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void benchutil_check_json(const char *script, const char *file, const char *arg)
{
	int rc = benchutil_python(script, file, arg);
	char buf[4096];
	FILE *f;
	size_t n;

	if (rc == 127)
		skip();
	if (rc == 0)
		return;
	f = fopen(file, "r");
	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	fail_msg("the JSON lacks a figure:\n%s", buf);
}

void benchutil_assert_usage_error(char *const argv[])
{
	int fd = open("/dev/null", O_WRONLY), st;

	assert_true(fd >= 0);
	st = benchutil_run(argv, fd, true, NULL);
	close(fd);
	benchutil_assert_exit(st, 2);
}
