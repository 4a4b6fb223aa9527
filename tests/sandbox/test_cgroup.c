/* SPDX-License-Identifier: MIT */
/*
 * test_cgroup.c - the program's own cgroup: sdds-sandbox's memory and task
 * limits reached by cgroup-hog against a real sddsd.
 *
 * OVERVIEW
 *   test_cgroup CASE
 *   shm            3 GiB of MAP_SHARED|MAP_ANONYMOUS touched under --mem 64M
 *                  (RLIMIT_DATA does not count it): the OOM killer of the
 *                  program's cgroup ends it (128+SIGKILL) within the limit,
 *                  sdds-sandbox says so with the kernel's peak, the daemon
 *                  and this process live on and serve a second sandbox
 *   threads, fork  a thread or fork bomb under --pids 16 (RLIMIT_NPROC
 *                  lifted) makes fewer than 16 tasks, and it is reported
 *   refuse         with every cgroup mount read-only (a private mount
 *                  namespace, as ProtectControlGroups= or a container
 *                  gives), sdds-sandbox refuses (125) before the program
 *                  runs; --allow-weak-limits runs it with a warning
 *   refuse_nobody  the same as uid 65534, which has no cgroup of its own to
 *                  write here (skipped where it has one)
 *   pair           two sandboxes at once from the same cgroup (from the
 *                  root cgroup on a v2 host, both supervisors share it):
 *                  each runs in a leaf of its own, both are removed
 *   stale          a supervisor killed with SIGKILL leaves its cgroup
 *                  behind; the next sandbox from the same cgroup removes it
 *   swap_weak      where the host has swap but the kernel does not account
 *                  it (as the LD_PRELOAD shim $SDDS_NOSWAPACCT shows it to
 *                  sdds-sandbox: no kernel since 6.1 can be booted so),
 *                  --mem could be swapped past: refused (125) unless
 *                  --allow-weak-limits, which warns
 *   lock           uid 65534 holding an flock on the cgroup directories
 *                  sdds-sandbox makes its leaves in (world-readable, so
 *                  anyone may) does not hold it up; a holder of its own
 *                  lock file (/run/sdds-sandbox/cgroup.DEV.INO.lock) makes
 *                  it give up after its deadline (125) with the reason,
 *                  not wait for ever (not where sbtest delegates: the
 *                  directory is made per command)
 *   own_leaf       a leaf left with the very pid the next supervisor gets
 *                  (test_cgroup --wrap makes sdds-sandbox.PID, and on v2
 *                  .PID.supervisor, then execs sdds-sandbox as PID): it is
 *                  removed and the sandbox runs there; with a task still
 *                  in it, sdds-sandbox refuses (125) and says so
 *   enabled_xattr  v2 only: BASE's list of the controllers sandboxes
 *                  enabled (xattr trusted.sdds-sandbox.enabled) as a few
 *                  disables and re-enables by hand left it, duplicates up
 *                  to 54 of its 63 bytes: the sandbox runs, and the last
 *                  one out still turns memory and pids off in BASE and
 *                  removes the list
 * Every case that made a cgroup checks that the program ran in the cgroup
 * sdds-sandbox -v named, and that the cgroup is gone afterwards. Root
 * only, but refuse_nobody; 77 where namespaces cannot be made. On a
 * pure-v2 host each sandbox starts in a cgroup of its own unless the test
 * runs in the root cgroup (sbtest_cgroup_delegated).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <poll.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgroup.h"
#include "sbtest.h"

#define CG_MEM_MIB 64
#define CG_TOUCH_MIB 3072
#define CG_PIDS 16

static const char *the_case;
/* The case found nothing to test here: main exits 77, so meson says SKIP, not OK. */
static bool cg_skipped;

#define cg_skip()                                                                                            \
	do {                                                                                                 \
		cg_skipped = true;                                                                           \
		skip();                                                                                      \
	} while (0)

/* argv for sdds-sandbox: SANDBOX -s SOCK -v OPTS... -- HOG ARGS... */
static void cg_argv(const struct sbtest_daemon *d, const char *const *opts, const char *const *prog,
		    char **argv, size_t cap)
{
	size_t n = 0;

	argv[n++] = getenv("SDDS_SANDBOX");
	argv[n++] = "-s";
	argv[n++] = (char *)d->sock;
	argv[n++] = "-v";
	/* A sanitizer runtime's shadow reservation needs RLIMIT_DATA lifted;
	 * --mem (the cgroup) stays what the case says. */
	if (sbtest_sanitized())
		argv[n++] = "--data", argv[n++] = "0";
	while (*opts && n < cap - 4)
		argv[n++] = (char *)*opts++;
	argv[n++] = "--";
	argv[n++] = getenv("SDDS_CGROUP_HOG");
	while (*prog && n < cap - 1)
		argv[n++] = (char *)*prog++;
	argv[n] = NULL;
}

/*
 * The cgroup directories sdds-sandbox -v named ("program cgroup A[ and B]"),
 * checked against the program's own /proc/self/cgroup line.
 */
static void cg_paths(const struct sbtest_out *o, char *a, char *b, size_t cap)
{
	const char *p = strstr(o->err, "program cgroup "), *q, *line;
	char mine[4096];
	size_t n;

	if (!p)
		fail_msg("sdds-sandbox named no cgroup:\n%s", o->err);
	p += strlen("program cgroup ");
	n = strcspn(p, " \n");
	assert_true(n < cap);
	memcpy(a, p, n);
	a[n] = '\0';
	b[0] = '\0';
	q = p + n;
	if (strncmp(q, " and ", 5) == 0) {
		q += 5;
		n = strcspn(q, "\n");
		assert_true(n < cap);
		memcpy(b, q, n);
		b[n] = '\0';
	}
	/* "cgroup 4:memory:/PATH" or "cgroup 0::/PATH": A ends with PATH. */
	line = strstr(o->out, "cgroup ");
	if (!line)
		fail_msg("the program printed no cgroup:\n%s", o->out);
	line = strchr(strchr(line, ':') + 1, ':') + 1;
	n = strcspn(line, "\n");
	snprintf(mine, sizeof(mine), "%.*s", (int)n, line);
	if (strlen(a) < strlen(mine) || strcmp(a + strlen(a) - strlen(mine), mine) != 0)
		fail_msg("the program ran in %s, not in %s", mine, a);
}

static void cg_assert_gone(const char *dir)
{
	struct stat st;

	if (dir[0] && stat(dir, &st) == 0)
		fail_msg("cgroup %s is still there", dir);
}

static long last_number(const char *text, const char *key)
{
	const char *p = text, *q;
	long v = -1;

	while ((q = strstr(p, key))) {
		v = strtol(q + strlen(key), NULL, 10);
		p = q + 1;
	}
	return v;
}

static bool cg_read(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
	return true;
}

/* This process's cgroup directory in a hierarchy (NULL: the unified one),
 * found as sdds-sandbox finds its own (cgroup.c's parsers). */
static bool cg_own(const char *controller, char *ret, size_t cap)
{
	char mnt[4096], root[4096], path[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t rl;
	int rc = f ? cgroup_mountinfo_find(f, controller, mnt, sizeof(mnt), root, sizeof(root)) : -1;

	if (f)
		fclose(f);
	f = rc == 0 ? fopen("/proc/self/cgroup", "re") : NULL;
	rc = f ? cgroup_proc_path(f, controller, path, sizeof(path)) : -1;
	if (f)
		fclose(f);
	if (rc < 0)
		return false;
	rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
	if (strncmp(path, root, rl) != 0)
		return false;
	return (size_t)snprintf(ret, cap, "%s%s", mnt, strcmp(path + rl, "/") == 0 ? "" : path + rl) < cap;
}

/*
 * The directories a sdds-sandbox started in this process's cgroups makes
 * its leaves in: BASE (v2, *v2 set) or the memory and pids cgroups (v1).
 * Returns how many (1, 2), 0 when neither layout is here.
 */
static int cg_bases(char dirs[2][4096], bool *v2)
{
	char path[8300], text[512];

	*v2 = false;
	if (cg_own(NULL, dirs[0], sizeof(dirs[0]))) {
		snprintf(path, sizeof(path), "%s/cgroup.controllers", dirs[0]);
		if (cg_read(path, text, sizeof(text)) && cgroup_ctrl_parse(text) == CGROUP_CTRL_ALL) {
			*v2 = true;
			return 1;
		}
	}
	if (cg_own("memory", dirs[0], sizeof(dirs[0])) && cg_own("pids", dirs[1], sizeof(dirs[1])))
		return 2;
	return 0;
}

static int64_t cg_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A child that holds an flock on path (as uid 65534 when nobody) until it
 * is killed, or dies with the test. Returns its pid once it holds it.
 */
static pid_t cg_flock_holder(const char *path, bool nobody)
{
	int p[2], fd;
	char c;
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (nobody && (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0))
			_exit(1);
		fd = open(path, O_RDONLY | O_CLOEXEC | (nobody ? O_DIRECTORY : O_CREAT), 0600);
		if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0 || write(p[1], "k", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		fail_msg("could not hold an flock on %s%s", path, nobody ? " as uid 65534" : "");
	close(p[0]);
	return pid;
}

static void cg_holder_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_shm(struct sbtest_daemon *d)
{
	char mem[16], touch[16], a[4096], b[4096];
	const char *opts[] = {"--mem", mem, NULL}, *prog[] = {"shm", touch, NULL},
		   *small[] = {"shm", "16", NULL};
	char *argv[32];
	struct sbtest_out o;
	long touched, peak;
	int st;

	snprintf(mem, sizeof(mem), "%dM", CG_MEM_MIB);
	snprintf(touch, sizeof(touch), "%d", CG_TOUCH_MIB);
	cg_argv(d, opts, prog, argv, 32);
	sbtest_run(argv, false, 60000, &o);
	touched = last_number(o.out, "touched ");
	print_message("status %d, touched %ld MiB of %d; %s", o.status, touched, CG_TOUCH_MIB, o.err);
	assert_null(strstr(o.out, "done"));
	assert_int_equal(o.status, 128 + SIGKILL);
	assert_true(touched <= CG_MEM_MIB);
	cg_paths(&o, a, b, sizeof(a));
	assert_non_null(strstr(o.err, "killed by the OOM killer at its memory limit"));
	peak = last_number(o.err, "peak ");
	/* 0: the kernel keeps no peak (v2 before 5.19). */
	assert_true(peak >= 0 && peak <= (long)CG_MEM_MIB << 20);
	cg_assert_gone(a);
	cg_assert_gone(b);
	sbtest_out_free(&o);

	/* The host is unaffected: the daemon lives and serves the next one. */
	assert_int_equal(waitpid(d->pid, &st, WNOHANG), 0);
	assert_int_equal(kill(d->pid, 0), 0);
	cg_argv(d, opts, small, argv, 32);
	sbtest_run(argv, false, 60000, &o);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "done"));
	assert_null(strstr(o.err, "OOM"));
	sbtest_out_free(&o);
}

static void test_bomb(struct sbtest_daemon *d, bool fork_mode)
{
	char pids[16], a[4096], b[4096], want[64];
	const char *opts_t[] = {"--nproc", "0", "--pids", pids, NULL};
	const char *opts_f[] = {"--no-seccomp", "--nproc", "0", "--pids", pids, NULL};
	const char *prog[] = {fork_mode ? "fork" : "threads", "1000", NULL};
	char *argv[32];
	struct sbtest_out o;
	long made;

	snprintf(pids, sizeof(pids), "%d", CG_PIDS);
	cg_argv(d, fork_mode ? opts_f : opts_t, prog, argv, 32);
	sbtest_run(argv, false, 60000, &o);
	print_message("status %d, %s%s", o.status, o.out, o.err);
	assert_int_equal(o.status, 0);
	made = last_number(o.out, "made ");
	/* Init and the program's first thread count too. */
	assert_true(made > 0 && made <= CG_PIDS - 2);
	cg_paths(&o, a, b, sizeof(a));
	snprintf(want, sizeof(want), "refused at its task limit (--pids %d)", CG_PIDS);
	assert_non_null(strstr(o.err, want));
	cg_assert_gone(a);
	cg_assert_gone(b);
	sbtest_out_free(&o);
}

/* Every cgroup mount read-only, in a mount namespace of the command's own. */
static const char cg_ro_script[] =
    "while read -r src dir type rest; do case $type in cgroup|cgroup2) "
    "mount -o remount,bind,ro \"$dir\" || exit 99;; esac; done </proc/self/mounts; exec \"$0\" \"$@\"";

static void test_refuse(struct sbtest_daemon *d, bool nobody)
{
	const char *none[] = {NULL}, *weak[] = {"--allow-weak-limits", NULL}, *prog[] = {"shm", "1", NULL};
	char *argv[32], *wrapped[40];
	struct sbtest_out o;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		char **run = argv;

		cg_argv(d, pass ? weak : none, prog, argv, 32);
		if (!nobody) {
			size_t i, n = 0;

			wrapped[n++] = "unshare";
			wrapped[n++] = "-m";
			wrapped[n++] = "sh";
			wrapped[n++] = "-c";
			wrapped[n++] = (char *)cg_ro_script;
			for (i = 0; argv[i]; i++)
				wrapped[n++] = argv[i];
			wrapped[n] = NULL;
			run = wrapped;
		}
		sbtest_run(run, nobody, 60000, &o);
		print_message("pass %d: status %d\n%s%s", pass, o.status, o.out, o.err);
		if (nobody && pass == 0 && o.status == 0 && strstr(o.err, "program cgroup ")) {
			sbtest_out_free(&o);
			cg_skip(); /* uid 65534 has a cgroup it may write here */
		}
		if (pass == 0) {
			assert_int_equal(o.status, 125);
			assert_non_null(strstr(o.err, "no cgroup for the program's limits"));
			assert_non_null(strstr(o.err, "refusing to start"));
			/* It never ran. */
			assert_null(strstr(o.out, "cgroup "));
		} else {
			assert_int_equal(o.status, 0);
			assert_non_null(strstr(o.err, "warning: no cgroup for the program's limits"));
			assert_non_null(strstr(o.out, "done"));
		}
		sbtest_out_free(&o);
	}
}

static void test_pair(struct sbtest_daemon *d)
{
	const char *none[] = {NULL}, *hold_a[] = {"hold", "4", NULL}, *hold_b[] = {"hold", "1", NULL};
	char *argv_a[32], *argv_b[32], a1[4096], a2[4096], b1[4096], b2[4096];
	struct sbtest_out oa, ob;
	pid_t pa, pb;
	int out_a, err_a, out_b, err_b;

	/* B starts while A holds for 4 s: both cgroups exist at once. */
	cg_argv(d, none, hold_a, argv_a, 32);
	cg_argv(d, none, hold_b, argv_b, 32);
	sbtest_start(argv_a, false, &pa, &out_a, &err_a);
	sbtest_start(argv_b, false, &pb, &out_b, &err_b);
	sbtest_finish(pb, out_b, err_b, 60000, &ob);
	sbtest_finish(pa, out_a, err_a, 60000, &oa);
	print_message("A: status %d\n%s%sB: status %d\n%s%s", oa.status, oa.out, oa.err, ob.status, ob.out,
		      ob.err);
	assert_int_equal(oa.status, 0);
	assert_int_equal(ob.status, 0);
	assert_non_null(strstr(oa.out, "done"));
	assert_non_null(strstr(ob.out, "done"));
	cg_paths(&oa, a1, b1, sizeof(a1));
	cg_paths(&ob, a2, b2, sizeof(a2));
	assert_string_not_equal(a1, a2);
	cg_assert_gone(a1);
	cg_assert_gone(b1);
	cg_assert_gone(a2);
	cg_assert_gone(b2);
	sbtest_out_free(&oa);
	sbtest_out_free(&ob);
}

/* Whether the cgroup dir holds no task (or is gone), within 10 s. */
static bool cg_wait_empty(const char *dir)
{
	char path[4200], buf[64];
	int i;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	for (i = 0; i < 1000; i++) {
		FILE *f = fopen(path, "re");
		bool empty = !f || !fgets(buf, sizeof(buf), f);

		if (f)
			fclose(f);
		if (empty)
			return true;
		usleep(10000);
	}
	return false;
}

static void test_stale(struct sbtest_daemon *d)
{
	const char *none[] = {NULL}, *hold[] = {"hold", "60", NULL}, *small[] = {"shm", "1", NULL};
	char *argv[32], err[8192] = "", a[4096], b[4096];
	const char *p;
	size_t n = 0, len;
	struct sbtest_out o;
	struct stat st;
	pid_t pid;
	int out_fd, err_fd;

	cg_argv(d, none, hold, argv, 32);
	sbtest_start(argv, false, &pid, &out_fd, &err_fd);
	/* Until -v named the cgroup(s): the line is complete. */
	for (;;) {
		struct pollfd pf = {.fd = err_fd, .events = POLLIN};
		ssize_t r = 0;

		p = strstr(err, "program cgroup ");
		if (n > 0 && p && strchr(p, '\n'))
			break;
		if (poll(&pf, 1, 30000) <= 0 || (r = read(err_fd, err + n, sizeof(err) - 1 - n)) <= 0)
			fail_msg("sdds-sandbox named no cgroup:\n%.*s", (int)n, err);
		n += (size_t)r;
		err[n] = '\0';
	}
	p += strlen("program cgroup ");
	len = strcspn(p, " \n");
	snprintf(a, sizeof(a), "%.*s", (int)len, p);
	b[0] = '\0';
	if (strncmp(p + len, " and ", 5) == 0)
		snprintf(b, sizeof(b), "%.*s", (int)strcspn(p + len + 5, "\n"), p + len + 5);
	/* A crash of the supervisor: nothing of it removes the cgroup. */
	kill(pid, SIGKILL);
	sbtest_finish(pid, out_fd, err_fd, 30000, &o);
	print_message("killed supervisor: status %d, cgroup %s %s\n", o.status, a, b);
	assert_int_equal(o.status, 128 + SIGKILL);
	sbtest_out_free(&o);
	if (sbtest_cgroup_delegated()) {
		/* Its cgroup went with the one the harness gave it, as systemd
		 * removes a stopped unit's: no later supervisor starts there. */
		print_message("delegated cgroups: the harness removed it\n");
		cg_assert_gone(a);
		return;
	}
	assert_int_equal(stat(a, &st), 0);
	/* The sandbox dies with its supervisor (PR_SET_PDEATHSIG). */
	assert_true(cg_wait_empty(a));
	assert_true(!b[0] || cg_wait_empty(b));

	cg_argv(d, none, small, argv, 32);
	sbtest_run(argv, false, 60000, &o);
	print_message("next sandbox: status %d\n%s", o.status, o.err);
	assert_int_equal(o.status, 0);
	cg_assert_gone(a);
	cg_assert_gone(b);
	sbtest_out_free(&o);
}

static void test_swap_weak(struct sbtest_daemon *d)
{
	const char *strict[] = {"--mem", "64M", NULL},
		   *weak[] = {"--mem", "64M", "--allow-weak-limits", NULL}, *prog[] = {"shm", "1", NULL};
	const char *old = getenv("ASAN_OPTIONS");
	char *argv[32], asan[512];
	struct sbtest_out o;

	/* sdds-sandbox alone runs under the shim (it drops LD_PRELOAD); a
	 * sanitizer runtime must then not insist on coming first. */
	setenv("LD_PRELOAD", getenv("SDDS_NOSWAPACCT"), 1);
	snprintf(asan, sizeof(asan), "%s%sverify_asan_link_order=0", old ? old : "", old ? ":" : "");
	setenv("ASAN_OPTIONS", asan, 1);
	cg_argv(d, strict, prog, argv, 32);
	sbtest_run(argv, false, 60000, &o);
	print_message("strict: status %d\n%s%s", o.status, o.out, o.err);
	assert_int_equal(o.status, 125);
	assert_non_null(strstr(o.err, "the program's cgroup cannot bound swap"));
	assert_non_null(strstr(o.err, "refusing to start"));
	assert_null(strstr(o.out, "cgroup "));
	sbtest_out_free(&o);

	cg_argv(d, weak, prog, argv, 32);
	sbtest_run(argv, false, 60000, &o);
	print_message("weak: status %d\n%s%s", o.status, o.out, o.err);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.err, "warning: the program's cgroup cannot bound swap"));
	assert_non_null(strstr(o.out, "done"));
	sbtest_out_free(&o);
	unsetenv("LD_PRELOAD");
}

static const char *cg_self; /* this program, for --wrap */

/* Duplicates, as appending at every re-enable left them: 54 bytes. */
#define CG_XATTR "trusted.sdds-sandbox.enabled"
#define CG_XATTR_LONG "memory pids memory pids memory pids memory pids memory"

/*
 * test_cgroup --wrap WHAT SANDBOX ARGS...: leave WHAT in the cgroup this
 * process runs in (where sbtest put it), then exec SANDBOX with this pid:
 *   leaf       sdds-sandbox.PID (v2: and .PID.supervisor), as a supervisor
 *              with this pid that was killed leaves them
 *   leaf_busy  the same, with a task (a child that dies with SANDBOX) in
 *              the program's leaf
 *   xattr      (v2) BASE's trusted.sdds-sandbox.enabled holding CG_XATTR_LONG
 * Says "test_cgroup: made DIR" for each directory made.
 */
static int cg_wrap(int argc, char **argv)
{
	char dirs[2][4096], leaf[3][4200];
	int n, i, m = 0, p[2];
	bool v2;
	char c;

	if (argc < 4)
		return 2;
	n = cg_bases(dirs, &v2);
	if (strcmp(argv[2], "xattr") == 0) {
		if (!v2 || setxattr(dirs[0], CG_XATTR, CG_XATTR_LONG, strlen(CG_XATTR_LONG), 0) < 0) {
			fprintf(stderr, "test_cgroup: set %s on %s: %s\n", CG_XATTR, dirs[0],
				strerror(errno));
			return 1;
		}
		n = 0;
	}
	for (i = 0; i < n; i++)
		snprintf(leaf[m++], sizeof(leaf[0]), "%.4000s/sdds-sandbox.%d", dirs[i], (int)getpid());
	if (v2 && n > 0)
		snprintf(leaf[m++], sizeof(leaf[0]), "%.4000s/sdds-sandbox.%d.supervisor", dirs[0],
			 (int)getpid());
	for (i = 0; i < m; i++) {
		if (mkdir(leaf[i], 0755) < 0) {
			fprintf(stderr, "test_cgroup: mkdir %s: %s\n", leaf[i], strerror(errno));
			return 1;
		}
		fprintf(stderr, "test_cgroup: made %s\n", leaf[i]);
	}
	if (strcmp(argv[2], "leaf_busy") == 0 && m > 0) {
		if (pipe(p) < 0)
			return 1;
		if (fork() == 0) {
			char procs[4300];
			FILE *f;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			snprintf(procs, sizeof(procs), "%s/cgroup.procs", leaf[0]);
			f = fopen(procs, "we");
			if (!f || fputs("0", f) < 0 || fclose(f) != 0 || write(p[1], "k", 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			return 1;
		close(p[0]);
	}
	execv(argv[3], argv + 3);
	fprintf(stderr, "test_cgroup: exec %s: %s\n", argv[3], strerror(errno));
	return 127;
}

/* Remove the directories cg_wrap said it made, once they hold no task;
 * returns how many were still there. */
static int cg_wrap_clean(const char *err)
{
	const char *p = err;
	char dir[4200];
	struct stat st;
	int left = 0;

	while ((p = strstr(p, "test_cgroup: made "))) {
		p += strlen("test_cgroup: made ");
		snprintf(dir, sizeof(dir), "%.*s", (int)strcspn(p, "\n"), p);
		if (stat(dir, &st) < 0)
			continue;
		left++;
		(void)cg_wait_empty(dir);
		(void)rmdir(dir);
	}
	return left;
}

static void test_own_leaf(struct sbtest_daemon *d)
{
	const char *none[] = {NULL}, *small[] = {"shm", "1", NULL};
	char *argv[32], *wrapped[40], a[4096], b[4096], made[4200];
	struct sbtest_out o;
	size_t i, n;
	int pass, left;

	cg_argv(d, none, small, argv, 32);
	for (pass = 0; pass < 2; pass++) {
		n = 0;
		wrapped[n++] = (char *)cg_self;
		wrapped[n++] = "--wrap";
		wrapped[n++] = pass ? "leaf_busy" : "leaf";
		for (i = 0; argv[i]; i++)
			wrapped[n++] = argv[i];
		wrapped[n] = NULL;
		sbtest_run(wrapped, false, 60000, &o);
		print_message("%s: status %d\n%s%s", wrapped[2], o.status, o.out, o.err);
		/* Nothing of it is left behind, whatever the outcome. */
		left = cg_wrap_clean(o.err);
		if (pass == 0) {
			assert_int_equal(o.status, 0);
			assert_non_null(strstr(o.out, "done"));
			/* It ran in the very leaf that was left there, and
			 * removed it and the others. */
			cg_paths(&o, a, b, sizeof(a));
			snprintf(made, sizeof(made), "test_cgroup: made %s\n", a);
			assert_non_null(strstr(o.err, made));
			assert_int_equal(left, 0);
		} else {
			assert_int_equal(o.status, 125);
			assert_non_null(strstr(o.err, "still holds tasks: refusing to share it"));
			assert_null(strstr(o.out, "cgroup "));
		}
		sbtest_out_free(&o);
	}
}

static void test_enabled_xattr(struct sbtest_daemon *d)
{
	const char *none[] = {NULL}, *small[] = {"shm", "1", NULL};
	char *argv[32], *wrapped[40], dirs[2][4096], path[8300], text[512];
	struct sbtest_out o;
	size_t i, n = 0;
	bool v2;

	if (cg_bases(dirs, &v2) == 0 || !v2) {
		print_message("no cgroup v2 path here\n");
		cg_skip();
	}
	cg_argv(d, none, small, argv, 32);
	wrapped[n++] = (char *)cg_self;
	wrapped[n++] = "--wrap";
	wrapped[n++] = "xattr";
	for (i = 0; argv[i]; i++)
		wrapped[n++] = argv[i];
	wrapped[n] = NULL;
	sbtest_run(wrapped, false, 60000, &o);
	print_message("status %d\n%s%s", o.status, o.out, o.err);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "done"));
	/* In a non-root BASE a cut list leaves memory on, and then the
	 * supervisor cannot move back into BASE. */
	assert_null(strstr(o.err, "could not remove"));
	if (!sbtest_cgroup_delegated()) {
		/* BASE is this test's cgroup (the root cgroup): left as found. */
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dirs[0]);
		assert_true(cg_read(path, text, sizeof(text)));
		print_message("%s: '%s'\n", path, text);
		/* Neither memory nor pids is left enabled. */
		assert_int_equal(cgroup_ctrl_parse(text), 0);
		assert_true(getxattr(dirs[0], CG_XATTR, text, sizeof(text)) < 0);
	}
	sbtest_out_free(&o);
}

static void test_lock(struct sbtest_daemon *d)
{
	const char *none[] = {NULL}, *small[] = {"shm", "1", NULL};
	char dirs[2][4096], lock[4200], *argv[32];
	struct sbtest_out o;
	pid_t holders[2];
	struct stat st;
	int64_t t0;
	int n, i;
	bool v2;

	if (sbtest_cgroup_delegated()) {
		print_message("each command gets a cgroup of its own here: nothing to lock before\n");
		cg_skip();
	}
	n = cg_bases(dirs, &v2);
	if (n == 0)
		cg_skip();
	/* Anyone may open a cgroup directory and flock it. */
	for (i = 0; i < n; i++)
		holders[i] = cg_flock_holder(dirs[i], true);
	cg_argv(d, none, small, argv, 32);
	sbtest_run(argv, false, 30000, &o);
	print_message("%s held by uid 65534: status %d\n%s", dirs[0], o.status, o.err);
	for (i = 0; i < n; i++)
		cg_holder_stop(holders[i]);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "done"));
	sbtest_out_free(&o);

	/* A supervisor stuck while holding the real lock: a deadline, then 125. */
	assert_int_equal(stat(dirs[0], &st), 0);
	(void)mkdir("/run/sdds-sandbox", 0700);
	snprintf(lock, sizeof(lock), "/run/sdds-sandbox/cgroup.%ju.%ju.lock", (uintmax_t)st.st_dev,
		 (uintmax_t)st.st_ino);
	holders[0] = cg_flock_holder(lock, false);
	t0 = cg_now_ms();
	sbtest_run(argv, false, 30000, &o);
	print_message("lock file held: status %d after %lld ms\n%s", o.status, (long long)(cg_now_ms() - t0),
		      o.err);
	cg_holder_stop(holders[0]);
	(void)unlink(lock);
	assert_int_equal(o.status, 125);
	assert_non_null(strstr(o.err, "was held for more than"));
	assert_null(strstr(o.out, "cgroup "));
	assert_true(cg_now_ms() - t0 < 20000);
	sbtest_out_free(&o);
}

static void test_cgroup(void **state)
{
	struct sbtest_daemon *d = *state;

	if (strcmp(the_case, "shm") == 0)
		test_shm(d);
	else if (strcmp(the_case, "threads") == 0)
		test_bomb(d, false);
	else if (strcmp(the_case, "fork") == 0)
		test_bomb(d, true);
	else if (strcmp(the_case, "refuse") == 0)
		test_refuse(d, false);
	else if (strcmp(the_case, "refuse_nobody") == 0)
		test_refuse(d, true);
	else if (strcmp(the_case, "pair") == 0)
		test_pair(d);
	else if (strcmp(the_case, "stale") == 0)
		test_stale(d);
	else if (strcmp(the_case, "lock") == 0)
		test_lock(d);
	else if (strcmp(the_case, "own_leaf") == 0)
		test_own_leaf(d);
	else if (strcmp(the_case, "enabled_xattr") == 0)
		test_enabled_xattr(d);
	else
		test_swap_weak(d);
}

static int setup(void **state)
{
	static struct sbtest_daemon d;

	sbtest_daemon_start(&d);
	*state = &d;
	return 0;
}

static int teardown(void **state)
{
	sbtest_daemon_stop(*state);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_cgroup, setup, teardown),
	};
	const char *cases[] = {"shm",	"threads",   "fork", "refuse",	 "refuse_nobody", "pair",
			       "stale", "swap_weak", "lock", "own_leaf", "enabled_xattr"};
	size_t i;
	int rc;

	if (argc >= 2 && strcmp(argv[1], "--wrap") == 0)
		return cg_wrap(argc, argv);
	cg_self = realpath("/proc/self/exe", NULL);
	for (i = 0; argc == 2 && i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strcmp(argv[1], cases[i]) == 0)
			the_case = cases[i];
	if (!the_case) {
		fprintf(stderr,
			"usage: test_cgroup shm|threads|fork|refuse|refuse_nobody|pair|stale|swap_weak|"
			"lock|own_leaf|enabled_xattr\n");
		return 2;
	}
	rc = sbtest_need_tools();
	if (rc)
		return rc;
	/* What sbtest does for a sandbox it starts itself (sbtest.h), for the
	 * ones started through unshare(1) too: LeakSanitizer's ptrace is denied. */
	if (sbtest_sanitized()) {
		const char *old = getenv("ASAN_OPTIONS");
		char opts[512];

		snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0", old ? old : "", old ? ":" : "");
		setenv("ASAN_OPTIONS", opts, 1);
	}
	if (!getenv("SDDS_CGROUP_HOG") || access(getenv("SDDS_CGROUP_HOG"), X_OK) != 0) {
		fprintf(stderr, "skip: $SDDS_CGROUP_HOG missing\n");
		return 77;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "skip: not root\n");
		return 77;
	}
	if (strcmp(the_case, "swap_weak") == 0 &&
	    (!getenv("SDDS_NOSWAPACCT") || access(getenv("SDDS_NOSWAPACCT"), R_OK) != 0)) {
		fprintf(stderr, "skip: $SDDS_NOSWAPACCT missing\n");
		return 77;
	}
	if (strcmp(the_case, "refuse_nobody") == 0) {
		if (!sbtest_nobody_userns()) {
			fprintf(stderr, "skip: no unprivileged user namespaces here\n");
			return 77;
		}
		sbtest_nobody_weak_limits = false;
	}
	rc = cmocka_run_group_tests_name(the_case, tests, NULL, NULL);
	return rc == 0 && cg_skipped ? 77 : rc;
}
