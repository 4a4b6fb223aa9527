/* SPDX-License-Identifier: MIT */
/*
 * sbtest.c - harness of the sandbox tests (see sbtest.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgroup.h"
#include "sbtest.h"

static void sbtest_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static int64_t sbtest_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool sbtest_exe(const char *var)
{
	const char *p = getenv(var);

	return p && access(p, X_OK) == 0;
}

bool sbtest_sanitized(void)
{
	const char *v = getenv("SDDS_SANITIZED");

	return v && *v && strcmp(v, "none") != 0;
}

int sbtest_need_tools(void)
{
	int st;
	pid_t pid;

	if (!sbtest_exe("SDDSD") || !sbtest_exe("SDDS_SANDBOX") || !sbtest_exe("SDDS_PROBE")) {
		fprintf(stderr, "skip: $SDDSD, $SDDS_SANDBOX or $SDDS_PROBE missing\n");
		return 77;
	}
	pid = fork();
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET) == 0 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "skip: cannot create namespaces here\n");
		return 77;
	}
	return 0;
}

bool sbtest_nobody_weak_limits = true;

bool sbtest_nobody_userns(void)
{
	char *const argv[] = {
	    "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "unshare", "-U", "-n", "true",
	    NULL};
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int sbtest_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void sbtest_daemon_spawn(struct sbtest_daemon *d)
{
	const char *sddsd = getenv("SDDSD");
	int i, fd, st;

	d->pid = fork();
	assert_true(d->pid >= 0);
	if (d->pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (null >= 0 && !getenv("SDDS_TEST_VERBOSE"))
			dup2(null, 1);
		execl(sddsd, sddsd, "--socket", d->sock, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 1000; i++) {
		fd = sbtest_connect(d->sock);
		if (fd >= 0) {
			close(fd);
			return;
		}
		if (waitpid(d->pid, &st, WNOHANG) == d->pid) {
			d->pid = 0;
			fail_msg("sddsd exited during start-up (status 0x%x)", st);
		}
		sbtest_sleep_ms(10);
	}
	fail_msg("sddsd did not listen on %s within 10 s", d->sock);
}

void sbtest_daemon_start(struct sbtest_daemon *d)
{
	snprintf(d->dir, sizeof(d->dir), "/tmp/sdds-sandbox-test.XXXXXX");
	assert_non_null(mkdtemp(d->dir));
	assert_int_equal(chmod(d->dir, 0755), 0);
	snprintf(d->sock, sizeof(d->sock), "%s/sddsd.sock", d->dir);
	sbtest_daemon_spawn(d);
}

void sbtest_daemon_restart(struct sbtest_daemon *d)
{
	if (d->pid > 0) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, NULL, 0);
		d->pid = 0;
	}
	unlink(d->sock);
	sbtest_daemon_spawn(d);
}

void sbtest_daemon_stop(struct sbtest_daemon *d)
{
	int st = 0, i;

	if (d->pid > 0) {
		kill(d->pid, SIGTERM);
		for (i = 0; i < 500 && waitpid(d->pid, &st, WNOHANG) == 0; i++)
			sbtest_sleep_ms(10);
		if (i == 500) {
			kill(d->pid, SIGKILL);
			waitpid(d->pid, NULL, 0);
		}
		d->pid = 0;
	}
	unlink(d->sock);
	rmdir(d->dir);
}

/* ---------------- a cgroup of its own for each root command (sbtest.h) ---------------- */

static char sbtest_cg_dir[1100]; /* D; "" when commands stay where the test is */
static char sbtest_cg_mnt[1024]; /* the cgroup2 mount, whose root holds D */
static int sbtest_cg_state;	 /* 0 not looked at yet, 1 D made, -1 none */
static pid_t sbtest_cg_owner;

static bool sbtest_read(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

static bool sbtest_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok;
}

/* rmdir dir and the cgroups under it, waiting out dying tasks. */
static void sbtest_cg_rmdir(const char *dir, int depth)
{
	char path[4096 + 300];
	struct dirent *e;
	DIR *d = depth > 0 ? opendir(dir) : NULL;
	int i;

	while (d && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		sbtest_cg_rmdir(path, depth - 1);
	}
	if (d)
		closedir(d);
	for (i = 0; i < 200 && rmdir(dir) < 0 && errno == EBUSY; i++)
		sbtest_sleep_ms(10);
}

/*
 * The controllers the harness enabled in the mount's root (a host whose
 * root had memory or pids off, as the QEMU guest's before its session
 * case) are listed in SBTEST_CG_LOCK, read and written under an flock on
 * it: test programs run in parallel, and the last one out (no other
 * sdds-test.* left) disables what the list names, so the host is left as
 * found. Where the file cannot be had, the controllers are still enabled
 * but not listed, and stay on as before.
 */
#define SBTEST_CG_LOCK "/run/sdds-test-cgroup.lock"

static int sbtest_cg_lock(void)
{
	int fd = open(SBTEST_CG_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	while (fd >= 0 && flock(fd, LOCK_EX) < 0 && errno == EINTR)
		;
	return fd;
}

static void sbtest_cg_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* and with it the flock */
}

/* Whether mnt has a child sdds-test.* other than ours. */
static bool sbtest_cg_others(void)
{
	char own[64];
	struct dirent *e;
	bool others = false;
	DIR *d = opendir(sbtest_cg_mnt);

	snprintf(own, sizeof(own), "sdds-test.%d", (int)getpid());
	while (d && !others && (e = readdir(d)))
		others = strncmp(e->d_name, "sdds-test.", 10) == 0 && strcmp(e->d_name, own) != 0;
	if (d)
		closedir(d);
	return others;
}

static void sbtest_cg_remove(void)
{
	char list[64] = "", path[1200];
	ssize_t n;
	int fd;

	if (getpid() != sbtest_cg_owner || sbtest_cg_state != 1)
		return;
	fd = sbtest_cg_lock();
	sbtest_cg_rmdir(sbtest_cg_dir, 3);
	if (fd >= 0 && !sbtest_cg_others() && (n = pread(fd, list, sizeof(list) - 1, 0)) > 0) {
		list[n] = '\0';
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", sbtest_cg_mnt);
		/* Fails (EBUSY) while another cgroup enabled them for its own
		 * children: then they stay, and so does the list. */
		unsigned had = cgroup_ctrl_parse(list);

		if ((!(had & CGROUP_CTRL_MEMORY) || sbtest_write(path, "-memory")) &&
		    (!(had & CGROUP_CTRL_PIDS) || sbtest_write(path, "-pids")))
			(void)ftruncate(fd, 0);
	}
	sbtest_cg_unlock(fd);
}

const char *sbtest_cgroup_delegated(void)
{
	char line[4096], mnt[1024] = "", path[1200], text[512];
	bool on_mem, on_pids;
	FILE *f;
	int fd;

	if (sbtest_cg_state)
		return sbtest_cg_state > 0 ? sbtest_cg_dir : NULL;
	sbtest_cg_state = -1;
	if (geteuid() != 0)
		return NULL;
	f = fopen("/proc/self/mounts", "re");
	while (f && !mnt[0] && fgets(line, sizeof(line), f)) {
		char dir[1024], type[64];

		if (sscanf(line, "%*s %1023s %63s", dir, type) == 2 && strcmp(type, "cgroup2") == 0)
			strcpy(mnt, dir);
	}
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/cgroup.controllers", mnt);
	/* Only where sdds-sandbox takes the v2 path (not a hybrid host's). */
	if (!mnt[0] || !sbtest_read(path, text, sizeof(text)) || cgroup_ctrl_parse(text) != CGROUP_CTRL_ALL)
		return NULL;
	/* The root cgroup may be shared: nothing to do there. */
	if (!sbtest_read("/proc/self/cgroup", text, sizeof(text)) || !strstr(text, "0::/") ||
	    strncmp(strstr(text, "0::/"), "0::/\n", 5) == 0)
		return NULL;
	snprintf(sbtest_cg_mnt, sizeof(sbtest_cg_mnt), "%s", mnt);
	/* Enabled in the root only where off, and listed for the last one out
	 * (sbtest_cg_remove); D made under the same lock, so no test takes
	 * them away between. */
	fd = sbtest_cg_lock();
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", mnt);
	if (sbtest_read(path, text, sizeof(text))) {
		char list[64] = "";
		ssize_t n = fd >= 0 ? pread(fd, list, sizeof(list) - 1, 0) : 0;

		unsigned was = cgroup_ctrl_parse(text);

		list[n > 0 ? n : 0] = '\0';
		on_mem = !(was & CGROUP_CTRL_MEMORY) && sbtest_write(path, "+memory");
		on_pids = !(was & CGROUP_CTRL_PIDS) && sbtest_write(path, "+pids");
		if (fd >= 0 && (on_mem || on_pids)) {
			(void)cgroup_ctrl_text((on_mem ? CGROUP_CTRL_MEMORY : 0) |
						   (on_pids ? CGROUP_CTRL_PIDS : 0) | cgroup_ctrl_parse(list),
					       0, text, sizeof(text));
			if (ftruncate(fd, 0) < 0 || pwrite(fd, text, strlen(text), 0) < 0)
				fprintf(stderr, "sbtest: %s: %s\n", SBTEST_CG_LOCK, strerror(errno));
		}
	}
	snprintf(sbtest_cg_dir, sizeof(sbtest_cg_dir), "%s/sdds-test.%d", mnt, (int)getpid());
	if (mkdir(sbtest_cg_dir, 0755) < 0) {
		fprintf(stderr, "sbtest: mkdir %s: %s\n", sbtest_cg_dir, strerror(errno));
		sbtest_cg_unlock(fd);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", sbtest_cg_dir);
	if (!sbtest_write(path, "+memory +pids")) {
		fprintf(stderr, "sbtest: enable memory pids in %s: %s\n", sbtest_cg_dir, strerror(errno));
		rmdir(sbtest_cg_dir);
		sbtest_cg_unlock(fd);
		return NULL;
	}
	sbtest_cg_unlock(fd);
	sbtest_cg_owner = getpid();
	sbtest_cg_state = 1;
	atexit(sbtest_cg_remove);
	return sbtest_cg_dir;
}

/* In the child: into D/run.PID, alone. 0, or -1 with the reason on stderr. */
static int sbtest_cg_enter(const char *d)
{
	char dir[1200], path[1300];

	snprintf(dir, sizeof(dir), "%s/run.%d", d, (int)getpid());
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (mkdir(dir, 0755) < 0 || !sbtest_write(path, "0")) {
		fprintf(stderr, "sbtest: cannot run in cgroup %s: %s\n", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static void sbtest_cg_leave(pid_t pid)
{
	char dir[1200];

	if (sbtest_cg_state != 1)
		return;
	snprintf(dir, sizeof(dir), "%s/run.%d", sbtest_cg_dir, (int)pid);
	sbtest_cg_rmdir(dir, 2);
}

void sbtest_start(char *const argv[], bool as_nobody, pid_t *ret_pid, int *ret_out, int *ret_err)
{
	sbtest_start_in(argv, as_nobody, ret_pid, NULL, ret_out, ret_err);
}

void sbtest_start_in(char *const argv[], bool as_nobody, pid_t *ret_pid, int *ret_in, int *ret_out,
		     int *ret_err)
{
	const char *cg = as_nobody ? NULL : sbtest_cgroup_delegated();
	int in[2] = {-1, -1}, out[2], err[2];
	pid_t pid;

	if (ret_in)
		assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		char *nargv[64];
		size_t n = 0, i;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(ret_in ? in[0] : null, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		if (cg && sbtest_cg_enter(cg) < 0)
			_exit(127);
		if (as_nobody) {
			nargv[n++] = "setpriv";
			nargv[n++] = "--reuid=65534";
			nargv[n++] = "--regid=65534";
			nargv[n++] = "--clear-groups";
			nargv[n++] = "--";
		}
		for (i = 0; argv[i] && n < 60; i++) {
			nargv[n++] = argv[i];
			/* See sbtest.h: uid 65534 has no cgroup of its own to write. */
			if (i == 0 && as_nobody && sbtest_nobody_weak_limits &&
			    strcmp(argv[0], getenv("SDDS_SANDBOX")) == 0)
				nargv[n++] = "--allow-weak-limits";
			/*
			 * A sanitizer runtime reserves terabytes of shadow memory,
			 * which RLIMIT_DATA forbids, and LeakSanitizer stops threads
			 * with ptrace, which the filter forbids: lift the one,
			 * switch the other off inside the sandbox.
			 */
			if (i == 0 && sbtest_sanitized() && strcmp(argv[0], getenv("SDDS_SANDBOX")) == 0) {
				const char *old = getenv("ASAN_OPTIONS");
				char opts[512];

				nargv[n++] = "--mem";
				nargv[n++] = "0";
				snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0", old ? old : "",
					 old ? ":" : "");
				setenv("ASAN_OPTIONS", opts, 1);
			}
		}
		nargv[n] = NULL;
		execvp(nargv[0], nargv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	if (ret_in) {
		close(in[0]);
		*ret_in = in[1];
	}
	*ret_pid = pid;
	*ret_out = out[0];
	*ret_err = err[0];
}

static void sbtest_append(char **buf, size_t *len, int fd, bool *open_)
{
	char tmp[4096];
	ssize_t n = read(fd, tmp, sizeof(tmp));
	char *g;

	if (n <= 0) {
		*open_ = false;
		return;
	}
	g = realloc(*buf, *len + (size_t)n + 1);
	assert_non_null(g);
	memcpy(g + *len, tmp, (size_t)n);
	*len += (size_t)n;
	g[*len] = '\0';
	*buf = g;
}

void sbtest_finish(pid_t pid, int out_fd, int err_fd, int timeout_ms, struct sbtest_out *ret)
{
	int64_t deadline = sbtest_now_ms() + timeout_ms;
	size_t out_len = 0, err_len = 0;
	bool out_open = true, err_open = true;
	int st;

	memset(ret, 0, sizeof(*ret));
	ret->out = calloc(1, 1);
	ret->err = calloc(1, 1);
	assert_non_null(ret->out);
	assert_non_null(ret->err);
	while (out_open || err_open) {
		struct pollfd p[2] = {{.fd = out_open ? out_fd : -1, .events = POLLIN},
				      {.fd = err_open ? err_fd : -1, .events = POLLIN}};
		int64_t left = deadline - sbtest_now_ms();

		if (left <= 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			sbtest_cg_leave(pid);
			fail_msg("command did not finish within %d ms; stdout:\n%s\nstderr:\n%s", timeout_ms,
				 ret->out, ret->err);
		}
		if (poll(p, 2, (int)left) < 0)
			continue;
		if (p[0].revents)
			sbtest_append(&ret->out, &out_len, out_fd, &out_open);
		if (p[1].revents)
			sbtest_append(&ret->err, &err_len, err_fd, &err_open);
	}
	close(out_fd);
	close(err_fd);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	sbtest_cg_leave(pid);
	ret->status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

void sbtest_run(char *const argv[], bool as_nobody, int timeout_ms, struct sbtest_out *ret)
{
	pid_t pid;
	int out, err;

	sbtest_start(argv, as_nobody, &pid, &out, &err);
	sbtest_finish(pid, out, err, timeout_ms, ret);
}

void sbtest_out_free(struct sbtest_out *o)
{
	free(o->out);
	free(o->err);
	o->out = o->err = NULL;
}
