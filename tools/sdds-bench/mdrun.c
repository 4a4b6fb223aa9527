/* SPDX-License-Identifier: MIT */
/*
 * mdrun.c - child processes with a time cap, and json-c lookups (see mdrun.h).
 *
 * OVERVIEW
 * The live groups are kept in a small table so a signal handler can stop
 * them; the report runs one child at a time, two at most (ddsperf pong and
 * ping), so MDRUN_MAX_LIVE is ample and a full table only means that a
 * group is not stopped on SIGINT (it still is on its own cap). Waiting uses
 * waitpid(WNOHANG) every 10 ms: the report's children run for seconds, and
 * the poll costs nothing the figures see (they are measured by the children).
 */
#include "mdrun.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define MDRUN_MAX_LIVE 8
#define MDRUN_STOP_GRACE_NS (3 * 1000000000LL)
#define MDRUN_JSON_MAX (64u << 20)

static volatile pid_t mdrun_live[MDRUN_MAX_LIVE];

static void mdrun_live_set(pid_t old, pid_t pid)
{
	for (int i = 0; i < MDRUN_MAX_LIVE; i++)
		if (mdrun_live[i] == old) {
			mdrun_live[i] = pid;
			return;
		}
}

int mdrun_which(const char *prog, char *buf, size_t cap)
{
	const char *path = getenv("PATH");
	struct stat st;

	if (strchr(prog, '/') != NULL) {
		if (stat(prog, &st) < 0 || !S_ISREG(st.st_mode) || access(prog, X_OK) < 0)
			return -ENOENT;
		if (snprintf(buf, cap, "%s", prog) >= (int)cap)
			return -ENAMETOOLONG;
		return 0;
	}
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char cand[PATH_MAX];

		if (len > 0 &&
		    snprintf(cand, sizeof(cand), "%.*s/%s", (int)len, path, prog) < (int)sizeof(cand) &&
		    stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
			if (snprintf(buf, cap, "%s", cand) >= (int)cap)
				return -ENAMETOOLONG;
			return 0;
		}
		path += len;
		if (*path == ':')
			path++;
	}
	return -ENOENT;
}

int mdrun_spawn(char *const argv[], char *const env[], const char *out_path, const char *err_path,
		pid_t *ret_pid)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		int out =
		    open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		int err =
		    open(err_path ? err_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (nul < 0 || out < 0 || err < 0)
			_exit(126);
		dup2(nul, STDIN_FILENO);
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
		for (size_t i = 0; env != NULL && env[i] != NULL; i++)
			putenv(strdup(env[i]));
		execvp(argv[0], argv);
		dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	/* Both sides set the group, so a signal to it cannot race the child's setpgid. */
	setpgid(pid, pid);
	mdrun_live_set(0, pid);
	*ret_pid = pid;
	return 0;
}

static void mdrun_sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

void mdrun_stop(pid_t pid)
{
	int64_t end = bench_now_ns() + MDRUN_STOP_GRACE_NS;
	int st;

	kill(-pid, SIGTERM);
	kill(pid, SIGTERM);
	while (bench_now_ns() < end) {
		if (waitpid(pid, &st, WNOHANG) != 0)
			goto out;
		mdrun_sleep_ms(10);
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
out:
	/* Whatever of the group outlived its leader goes too. */
	kill(-pid, SIGKILL);
	mdrun_live_set(pid, 0);
}

int mdrun_wait(pid_t pid, double cap_s, int *ret_status)
{
	int64_t end = bench_now_ns() + (int64_t)(cap_s * 1e9);
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid) {
			/* Helpers the child left behind (a daemon, a pong side) go with it. */
			kill(-pid, SIGKILL);
			mdrun_live_set(pid, 0);
			*ret_status = st;
			return 0;
		}
		if (r < 0 && errno != EINTR) {
			mdrun_live_set(pid, 0);
			return -errno;
		}
		if (bench_now_ns() >= end) {
			mdrun_stop(pid);
			return -ETIMEDOUT;
		}
		mdrun_sleep_ms(10);
	}
}

static void mdrun_on_signal(int sig)
{
	for (int i = 0; i < MDRUN_MAX_LIVE; i++)
		if (mdrun_live[i] > 0)
			kill(-mdrun_live[i], SIGTERM);
	signal(sig, SIG_DFL);
	raise(sig);
}

void mdrun_install_signals(void)
{
	signal(SIGINT, mdrun_on_signal);
	signal(SIGTERM, mdrun_on_signal);
}

void mdrun_last_line(const char *path, char *buf, size_t cap)
{
	char line[1024];
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		size_t len = strcspn(line, "\n");

		line[len] = '\0';
		while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len > 0)
			snprintf(buf, cap, "%s", line);
	}
	fclose(f);
}

void mdrun_cmdline(char *const argv[], char *buf, size_t cap)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; argv[i] != NULL && used < cap; i++) {
		bool quote = argv[i][0] == '\0' || strpbrk(argv[i], " \t'\"$*?;&|<>") != NULL;
		int n = snprintf(buf + used, cap - used, quote ? "%s'%s'" : "%s%s", i ? " " : "", argv[i]);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

void mdrun_status_str(int status, char *buf, size_t cap)
{
	if (WIFEXITED(status))
		snprintf(buf, cap, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, cap, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, cap, "status %#x", (unsigned)status);
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

struct json_object *mdrun_json_load(const char *path)
{
	struct json_object *o = NULL;
	struct stat st;
	char *text;
	FILE *f = fopen(path, "re");

	if (f == NULL)
		return NULL;
	if (fstat(fileno(f), &st) < 0 || st.st_size <= 0 || (uint64_t)st.st_size > MDRUN_JSON_MAX)
		goto out_close;
	text = malloc((size_t)st.st_size + 1);
	if (text == NULL)
		goto out_close;
	if (fread(text, 1, (size_t)st.st_size, f) == (size_t)st.st_size) {
		text[st.st_size] = '\0';
		o = mdrun_json_parse(text);
	}
	free(text);
out_close:
	fclose(f);
	return o;
}

void mdrun_json_free(struct json_object *o)
{
	if (o != NULL)
		json_object_put(o);
}

struct json_object *mdrun_jget(struct json_object *o, const char *path)
{
	char key[128];

	while (o != NULL && *path) {
		size_t len = strcspn(path, ".");
		char *end;

		if (len >= sizeof(key))
			return NULL;
		memcpy(key, path, len);
		key[len] = '\0';
		path += len;
		if (*path == '.')
			path++;
		if (json_object_is_type(o, json_type_array)) {
			unsigned long idx = strtoul(key, &end, 10);

			if (end == key || *end != '\0' || idx >= json_object_array_length(o))
				return NULL;
			o = json_object_array_get_idx(o, idx);
		} else if (json_object_is_type(o, json_type_object)) {
			struct json_object *m;

			if (!json_object_object_get_ex(o, key, &m))
				return NULL;
			o = m;
		} else {
			return NULL;
		}
	}
	return o;
}

int mdrun_jnum(struct json_object *o, const char *path, double *ret)
{
	struct json_object *m = mdrun_jget(o, path);

	if (m == NULL || !(json_object_is_type(m, json_type_double) || json_object_is_type(m, json_type_int)))
		return -ENOENT;
	*ret = json_object_get_double(m);
	return 0;
}

const char *mdrun_jstr(struct json_object *o, const char *path)
{
	struct json_object *m = mdrun_jget(o, path);

	if (m == NULL || !json_object_is_type(m, json_type_string))
		return NULL;
	return json_object_get_string(m);
}

int mdrun_jbool(struct json_object *o, const char *path, bool *ret)
{
	struct json_object *m = mdrun_jget(o, path);

	if (m == NULL || !json_object_is_type(m, json_type_boolean))
		return -ENOENT;
	*ret = json_object_get_boolean(m);
	return 0;
}

int mdrun_jlen(struct json_object *o, const char *path)
{
	struct json_object *m = *path ? mdrun_jget(o, path) : o;

	if (m == NULL || !json_object_is_type(m, json_type_array))
		return -1;
	return (int)json_object_array_length(m);
}
