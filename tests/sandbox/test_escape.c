/* SPDX-License-Identifier: MIT */
/*
 * test_escape.c - the escape suite: one way out of sdds-sandbox per meson
 * test, tried by escape-probe inside the sandbox against a real sddsd.
 *
 * OVERVIEW
 *   test_escape CASE [--nobody]
 * Each case says which layer must stop the attempt and how:
 *   - a system call the seccomp list denies: in the default mode the
 *     sandbox reports it by name and the exit status is 159 (128+SIGSYS),
 *     and the probe never gets to print a result; with
 *     --seccomp-default=eperm the probe sees EPERM and the report is there;
 *   - with --no-seccomp (the other layers alone), the errno the namespaces,
 *     the view, the mount flags or the missing capabilities give (ENOENT
 *     for a path outside the view, ESRCH for a pid outside the PID
 *     namespace, ENETUNREACH in the empty network namespace, EACCES for
 *     exec on a noexec tmpfs, EPERM without capabilities), where such a
 *     layer exists for the attempt.
 * Attempts the seccomp list allows by design (open) must fail through the
 * view with the expected errno in every mode. Where the filter (with the
 * supervisor) is the only layer, the report must give the reason and, as a
 * control, the attempt must work with --no-seccomp (the W^X cases).
 * --nobody runs the same as uid 65534 through setpriv; it skips (77) where
 * unprivileged user namespaces are off.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sbtest.h"

enum arg_kind { ARG_NONE, ARG_SOCK, ARG_DIR, ARG_PID, ARG_SCRATCH, ARG_HOST_PROC, ARG_PROC1, ARG_TEXT };

struct escape_case {
	const char *name;
	const char *attempt;
	enum arg_kind arg;
	const char *syscall;	 /* denied by seccomp; NULL: allowed by the list */
	const char *layer_errno; /* with --no-seccomp (or always, if syscall is NULL); NULL: no such layer */
	const char *text;	 /* the argument, for ARG_TEXT */
	const char *reason;	 /* in the report after the pid; NULL: none asked for */
	bool control_escapes;	 /* with --no-seccomp the attempt works: the probe is real */
	const char *probe;	 /* the variable naming the probe program; NULL: SDDS_PROBE */
	bool refused;		 /* the sandbox refuses to start it (125) in every mode */
	int scripts;		 /* > 0: the program is that many "#!" scripts, the last run by probe */
};

/* The fields after layer_errno are left out where they are none. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct escape_case escape_cases[] = {
    {"inet", "inet", ARG_NONE, "socket", "ENETUNREACH"},
    /* No address of the family at all: lo is down in the new namespace. */
    {"inet6", "inet6", ARG_NONE, "socket", "EADDRNOTAVAIL"},
    {"packet", "packet", ARG_NONE, "socket", "EPERM"},
    {"netlink", "netlink", ARG_NONE, "socket", NULL},
    {"unix", "unix", ARG_NONE, "socket", NULL},
    {"socketpair", "socketpair", ARG_NONE, "socketpair", NULL},
    {"connect_daemon", "connect", ARG_SOCK, "socket", "ENOENT"},
    {"open_passwd", "open", ARG_NONE, NULL, "ENOENT"},
    {"open_socket_dir", "open", ARG_DIR, NULL, "ENOENT"},
    {"open_host_proc", "open", ARG_HOST_PROC, NULL, "ENOENT"},
    /* /proc/1 is the sandbox's init: its root is the same view, and as a
     * process that changed its ids it is not even readable. */
    {"open_proc1_root", "open", ARG_PROC1, NULL, "ENOENT|EACCES"},
    {"ptrace_daemon", "ptrace", ARG_PID, "ptrace", "ESRCH"},
    {"kill_daemon", "kill", ARG_PID, "kill", "ESRCH"},
    {"exec_sh", "exec-sh", ARG_NONE, "execve", "ENOENT"},
    {"execveat_sh", "execveat", ARG_NONE, "execveat", "ENOENT"},
    {"exec_copy", "exec-copy", ARG_SCRATCH, "execve", "EACCES"},
    {"segment_proc_fd", "segment", ARG_PID, NULL, "ENOENT"},
    {"segment_pidfd_getfd", "pidfd-getfd", ARG_PID, "pidfd_open", "ESRCH"},
    {"devshm", "devshm", ARG_NONE, NULL, "ENOENT"},
    {"memfd", "memfd", ARG_NONE, "memfd_create", NULL},
    {"mount", "mount", ARG_NONE, "mount", "EPERM"},
    {"unshare", "unshare", ARG_NONE, "unshare", NULL},
    {"setns", "setns", ARG_NONE, "setns", "EPERM"},
    {"bpf", "bpf", ARG_NONE, "bpf", NULL},
    {"perf_event_open", "perf", ARG_NONE, "perf_event_open", NULL},
    {"keyctl", "keyctl", ARG_NONE, "keyctl", NULL},
    {"process_vm_readv", "vm-readv", ARG_PID, "process_vm_readv", "ESRCH"},
    {"fork", "fork", ARG_NONE, "clone", NULL},
    {"wx_mmap", "wx-mmap", ARG_NONE, "mmap", NULL, .reason = "executable and writable",
     .control_escapes = true},
    /* W^X against aliases of the segment memfd, got by the program's own
     * Hello on fd 3 and mapped read-write: a second, executable mapping of
     * it, shared or private, or the protection of a read-only one raised. */
    {"wx_alias_shared", "wx-alias", ARG_TEXT, "mmap", NULL, "shared", "executable MAP_SHARED mapping", true},
    {"wx_alias_private", "wx-alias", ARG_TEXT, "mmap", NULL, "private",
     "executable mapping of a file outside the view, such as a memfd", true},
    {"wx_alias_mprotect", "wx-alias", ARG_TEXT, "mprotect", NULL, "mprotect", NULL, true},
    {"wx_alias_pkey_mprotect", "wx-alias", ARG_TEXT, "pkey_mprotect", NULL, "pkey", NULL, true},
    /* An executable mapping of a bound file is fine with one thread only:
     * with two, the fd could change between the check and the call. */
    {"exec_map_threaded", "exec-map-threaded", ARG_NONE, "mmap", NULL, NULL,
     "executable mapping while the program has more than one thread", true},
    /* What the kernel maps at execve, before any filter rule: refused. The
     * control runs the same program bare and finds its W+X memory. */
    {"wx_execstack", "wx-self", ARG_NONE, NULL, NULL, .probe = "SDDS_PROBE_EXECSTACK", .refused = true},
    {"wx_load_segment", "wx-self", ARG_NONE, NULL, NULL, .probe = "SDDS_PROBE_WXLOAD", .refused = true},
    /* The same program as a script's interpreter, directly and through a second script. */
    {"wx_script", "wx-self", ARG_NONE, NULL, NULL, .probe = "SDDS_PROBE_EXECSTACK", .refused = true,
     .scripts = 1},
    {"wx_script_nested", "wx-self", ARG_NONE, NULL, NULL, .probe = "SDDS_PROBE_EXECSTACK", .refused = true,
     .scripts = 2},
    /* Five scripts deep, as far as Linux follows them: still the interpreter is checked. */
    {"wx_script_deep", "wx-self", ARG_NONE, NULL, NULL, .probe = "SDDS_PROBE_EXECSTACK", .refused = true,
     .scripts = 5},
    /* The supervisor used the connection's one Attest already. */
    {"attest_self", "attest", ARG_NONE, NULL, "EPERM"},
};
#pragma GCC diagnostic pop

static const struct escape_case *the_case;
static bool as_nobody;
static char script_dir[64];
static char script_path[160]; /* the program when the_case->scripts > 0 */

/* The program the case runs: the probe, or the outermost of its scripts. */
static char *case_program(void)
{
	return the_case->scripts > 0 ? script_path : getenv(the_case->probe ? the_case->probe : "SDDS_PROBE");
}

static void scripts_remove(void)
{
	char path[160];

	for (int i = 0; i < the_case->scripts; i++) {
		snprintf(path, sizeof(path), "%s/s%d", script_dir, i);
		unlink(path);
	}
	rmdir(script_dir);
}

/*
 * Script 0 runs the probe with the attempt ("#!PROBE wx-self": the kernel
 * passes the probe "wx-self", then the script's path and its arguments);
 * script i runs script i-1. Readable by everyone, for --nobody.
 */
static int scripts_make(void)
{
	char path[160], prev[160];
	FILE *f;

	snprintf(script_dir, sizeof(script_dir), "/tmp/sdds-wxscript.XXXXXX");
	if (mkdtemp(script_dir) == NULL || chmod(script_dir, 0755) < 0)
		return -1;
	atexit(scripts_remove);
	for (int i = 0; i < the_case->scripts; i++) {
		snprintf(path, sizeof(path), "%s/s%d", script_dir, i);
		f = fopen(path, "w");
		if (f == NULL)
			return -1;
		if (i == 0)
			fprintf(f, "#!%s %s\n", getenv(the_case->probe), the_case->attempt);
		else
			fprintf(f, "#! %s\n", prev);
		if (fclose(f) != 0 || chmod(path, 0755) < 0)
			return -1;
		snprintf(prev, sizeof(prev), "%s", path);
	}
	snprintf(script_path, sizeof(script_path), "%s", prev);
	return 0;
}

enum mode { MODE_KILL, MODE_EPERM, MODE_NO_SECCOMP, MODE_NO_ATTEST };

static void escape_run(const struct sbtest_daemon *d, enum mode mode, struct sbtest_out *ret)
{
	char arg[256] = "", pid[32];
	char *argv[32];
	size_t n = 0;

	snprintf(pid, sizeof(pid), "%d", (int)d->pid);
	switch (the_case->arg) {
	case ARG_NONE:
		if (strcmp(the_case->attempt, "open") == 0)
			snprintf(arg, sizeof(arg), "/etc/passwd");
		break;
	case ARG_SOCK:
		snprintf(arg, sizeof(arg), "%s", d->sock);
		break;
	case ARG_DIR:
		snprintf(arg, sizeof(arg), "%s", d->dir);
		break;
	case ARG_PID:
		snprintf(arg, sizeof(arg), "%s", pid);
		break;
	case ARG_SCRATCH:
		snprintf(arg, sizeof(arg), "/scratch");
		break;
	case ARG_HOST_PROC:
		snprintf(arg, sizeof(arg), "/proc/%s/environ", pid);
		break;
	case ARG_PROC1:
		snprintf(arg, sizeof(arg), "/proc/1/root/etc/passwd");
		break;
	case ARG_TEXT:
		snprintf(arg, sizeof(arg), "%s", the_case->text);
		break;
	}
	argv[n++] = getenv("SDDS_SANDBOX");
	argv[n++] = "--socket";
	argv[n++] = (char *)d->sock;
	argv[n++] = "--tmpfs";
	argv[n++] = "/scratch";
	if (mode == MODE_EPERM)
		argv[n++] = "--seccomp-default=eperm";
	if (mode == MODE_NO_SECCOMP)
		argv[n++] = "--no-seccomp";
	if (mode == MODE_NO_ATTEST)
		argv[n++] = "--no-attest";
	argv[n++] = "--";
	argv[n++] = case_program();
	argv[n++] = (char *)the_case->attempt;
	if (arg[0])
		argv[n++] = arg;
	argv[n] = NULL;
	sbtest_run(argv, as_nobody, 30000, ret);
	print_message("mode %d: status %d\nstdout: %sstderr: %s\n", (int)mode, ret->status, ret->out,
		      ret->err);
}

/* errnames: one errno name, or alternatives separated by '|'. */
static void expect_blocked(const struct sbtest_out *o, const char *errnames)
{
	const char *p = errnames;
	bool found = false;
	char want[64];

	assert_int_equal(o->status, 0);
	assert_null(strstr(o->out, "result=escaped"));
	while (*p && !found) {
		size_t len = strcspn(p, "|");

		snprintf(want, sizeof(want), "result=blocked errno=%.*s ", (int)len, p);
		found = strstr(o->out, want) != NULL;
		p += len + (p[len] == '|');
	}
	if (!found)
		fail_msg("expected errno %s", errnames);
}

static void expect_report(const struct sbtest_out *o, const char *syscall)
{
	char want[160];

	snprintf(want, sizeof(want), "denied system call %s ", syscall);
	assert_non_null(strstr(o->err, want));
	if (the_case->reason) {
		snprintf(want, sizeof(want), ": %s), ", the_case->reason);
		assert_non_null(strstr(o->err, want));
	}
}

/* A program the sandbox must not start: 125 and the reason, whatever the
 * mode; bare, the same program does have W+X memory. */
static void test_refused(const struct sbtest_daemon *d)
{
	static const enum mode modes[] = {MODE_KILL, MODE_NO_SECCOMP};
	char *bare[] = {case_program(), (char *)the_case->attempt, NULL};
	struct sbtest_out o;
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		escape_run(d, modes[i], &o);
		assert_int_equal(o.status, 125);
		assert_null(strstr(o.out, "trying "));
		assert_non_null(strstr(o.err, "asks for writable and executable memory"));
		sbtest_out_free(&o);
	}
	sbtest_run(bare, as_nobody, 30000, &o);
	print_message("bare: status %d\nstdout: %s", o.status, o.out);
	assert_int_equal(o.status, 1);
	assert_non_null(strstr(o.out, "result=escaped"));
	sbtest_out_free(&o);
}

static void test_escape(void **state)
{
	struct sbtest_daemon *d = *state;
	struct sbtest_out o;

	if (the_case->refused) {
		test_refused(d);
		return;
	}

	/* The probe reached the sandbox's end of the pipe: it ran. */
	escape_run(d, MODE_KILL, &o);
	assert_non_null(strstr(o.out, "trying "));
	if (o.status == 3 && strstr(o.out, "result=untestable")) {
		sbtest_out_free(&o);
		skip();
	}
	if (the_case->syscall) {
		assert_int_equal(o.status, 159);
		expect_report(&o, the_case->syscall);
		assert_null(strstr(o.out, "result="));
	} else {
		expect_blocked(&o, the_case->layer_errno);
		assert_null(strstr(o.err, "denied system call"));
	}
	sbtest_out_free(&o);

	if (the_case->syscall) {
		escape_run(d, MODE_EPERM, &o);
		expect_blocked(&o, "EPERM");
		expect_report(&o, the_case->syscall);
		sbtest_out_free(&o);
	}

	if (the_case->layer_errno) {
		escape_run(d, MODE_NO_SECCOMP, &o);
		expect_blocked(&o, the_case->layer_errno);
		sbtest_out_free(&o);
	}

	/* The control: the filter is all that stops it. */
	if (the_case->control_escapes) {
		escape_run(d, MODE_NO_SECCOMP, &o);
		assert_int_equal(o.status, 1);
		assert_non_null(strstr(o.out, "result=escaped"));
		sbtest_out_free(&o);
	}

	/* The control: with the slot left free, a program launched by a
	 * trusted uid (root) attests whatever it likes. */
	if (strcmp(the_case->attempt, "attest") == 0 && !as_nobody) {
		escape_run(d, MODE_NO_ATTEST, &o);
		assert_non_null(strstr(o.out, "result=escaped"));
		sbtest_out_free(&o);
	}
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
	    cmocka_unit_test_setup_teardown(test_escape, setup, teardown),
	};
	size_t i;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: test_escape CASE [--nobody]\n");
		return 2;
	}
	for (i = 0; i < sizeof(escape_cases) / sizeof(escape_cases[0]); i++)
		if (strcmp(escape_cases[i].name, argv[1]) == 0)
			the_case = &escape_cases[i];
	if (!the_case) {
		fprintf(stderr, "test_escape: unknown case '%s'\n", argv[1]);
		return 2;
	}
	as_nobody = argc > 2 && strcmp(argv[2], "--nobody") == 0;
	if (the_case->scripts > 0 && scripts_make() < 0) {
		perror("test_escape: scripts");
		return 1;
	}
	rc = sbtest_need_tools();
	if (rc)
		return rc;
	if (as_nobody && !sbtest_nobody_userns()) {
		fprintf(stderr, "skip: no unprivileged user namespaces here\n");
		return 77;
	}
	return cmocka_run_group_tests_name(argv[1], tests, NULL, NULL);
}
