/* SPDX-License-Identifier: MIT */
/*
 * test_pubsub.c - a sandboxed subscriber and a sandboxed publisher
 * (itest-peer, libsddsclient through $SDDS_CTL_FD) exchange samples through
 * a real sddsd, with the default seccomp mode (kill on any denied call): the
 * allow-list covers what libc, libpthread and libsddsclient really do.
 *
 *   test_pubsub [--nobody]
 * Cases: reliable take loop; listener (the callback-manager thread, so
 * clone for a thread); the sandbox's own behaviour (exit status passed
 * through, 128+signal, --help, SIGTERM forwarded); --identity (the Attest request, skipped
 * where this build's control protocol lacks it).
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ipc/ctl.h"
#include "sbtest.h"

#define PUBSUB_COUNT "2000"

static bool as_nobody;

/* Read the process's stdout into buf (appending to what it holds) until
 * it printed needle, or fail. */
static void wait_for(int fd, char *buf, size_t cap, const char *needle)
{
	size_t len = strlen(buf);
	int i;

	for (i = 0; i < 300 && !strstr(buf, needle); i++) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
	}
	if (!strstr(buf, needle))
		fail_msg("the sandboxed reader never printed '%s': '%s'", needle, buf);
}

static void wait_ready(int fd, char *buf, size_t cap)
{
	buf[0] = '\0';
	wait_for(fd, buf, cap, "ready");
}

static void run_pair(struct sbtest_daemon *d, bool listener)
{
	char *sb = getenv("SDDS_SANDBOX"), *peer = getenv("SDDS_ITEST_PEER");
	char *reader[] = {sb,		"--socket",  d->sock,	 "--",
			  peer,		"reader",    "--socket", "/nonexistent",
			  "--reliable", "--writers", "1",	 listener ? "--listener" : NULL,
			  NULL};
	char *writer[] = {sb,	      "--socket",     d->sock,	    "--",      peer,	     "writer",
			  "--socket", "/nonexistent", "--reliable", "--count", PUBSUB_COUNT, NULL};
	char first[4096];
	struct sbtest_out r, w;
	pid_t pid;
	int out, err;

	sbtest_start(reader, as_nobody, &pid, &out, &err);
	wait_ready(out, first, sizeof(first));
	sbtest_run(writer, as_nobody, 60000, &w);
	sbtest_finish(pid, out, err, 60000, &r);
	print_message("writer %d: %s%s\nreader %d: %s%s%s\n", w.status, w.out, w.err, r.status, first, r.out,
		      r.err);
	assert_int_equal(w.status, 0);
	assert_non_null(strstr(w.out, "done written=" PUBSUB_COUNT " errors=0"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "done received=" PUBSUB_COUNT " "));
	assert_non_null(strstr(r.out, " errors=0"));
	assert_null(strstr(r.err, "denied system call"));
	assert_null(strstr(w.err, "denied system call"));
	sbtest_out_free(&r);
	sbtest_out_free(&w);
}

static void test_reliable(void **state)
{
	run_pair(*state, false);
}

static void test_listener(void **state)
{
	run_pair(*state, true);
}

/* The program's exit status and death by signal come through. */
static void test_exit_status(void **state)
{
	struct sbtest_daemon *d = *state;
	char *sb = getenv("SDDS_SANDBOX"), *probe = getenv("SDDS_PROBE");
	char *ok[] = {sb, "--socket", d->sock, "--", probe, "true", NULL};
	char *bad[] = {sb, "--socket", d->sock, "--", probe, "no-such-attempt", NULL};
	char *help[] = {sb, "--help", NULL};
	char *nothing[] = {sb, "--socket", d->sock, NULL};
	struct sbtest_out o;

	sbtest_run(ok, as_nobody, 30000, &o);
	assert_int_equal(o.status, 0);
	sbtest_out_free(&o);
	sbtest_run(bad, as_nobody, 30000, &o);
	assert_int_equal(o.status, 2);
	assert_non_null(strstr(o.err, "unknown attempt"));
	sbtest_out_free(&o);
	sbtest_run(help, as_nobody, 30000, &o);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "usage: sdds-sandbox"));
	sbtest_out_free(&o);
	sbtest_run(nothing, as_nobody, 30000, &o);
	assert_int_equal(o.status, 125);
	sbtest_out_free(&o);
}

/* The sDDS-style examples (generated code, listener) run sandboxed. */
static void test_temperature_example(void **state)
{
	struct sbtest_daemon *d = *state;
	char *sb = getenv("SDDS_SANDBOX"), *pub = getenv("SDDS_TEMP_PUB"), *sub = getenv("SDDS_TEMP_SUB");
	char *subv[] = {sb, "--socket", d->sock, "--", sub, "-n", "5", NULL};
	char *pubv[] = {sb, "--socket", d->sock, "--", pub, "-n", "5", "-i", "50", NULL};
	struct sbtest_out r, w;
	char first[4096];
	const char *p;
	pid_t pid;
	int out, err, n = 0;

	if (!pub || !sub || access(pub, X_OK) != 0 || access(sub, X_OK) != 0)
		skip();
	sbtest_start(subv, as_nobody, &pid, &out, &err);
	first[0] = '\0';
	wait_for(out, first, sizeof(first), "Waiting for");
	sbtest_run(pubv, as_nobody, 60000, &w);
	sbtest_finish(pid, out, err, 60000, &r);
	print_message("pub %d: %s%s\nsub %d: %s%s\n", w.status, w.out, w.err, r.status, r.out, r.err);
	assert_int_equal(w.status, 0);
	assert_int_equal(r.status, 0);
	for (p = r.out; (p = strstr(p, "Received a sample")) != NULL; p++)
		n++;
	assert_int_equal(n, 5);
	sbtest_out_free(&r);
	sbtest_out_free(&w);
}

/* A static program: nothing but itself in the view (with or without
 * --no-deps), and the filter reports it all the same. */
static void test_static_program(void **state)
{
	struct sbtest_daemon *d = *state;
	char *sb = getenv("SDDS_SANDBOX"), *probe = getenv("SDDS_PROBE_STATIC");
	char *ok[] = {sb, "--socket", d->sock, "--", probe, "open", "/usr/lib", NULL};
	char *nodeps[] = {sb, "--socket", d->sock, "--no-deps", "--", probe, "true", NULL};
	char *bad[] = {sb, "--socket", d->sock, "--no-deps", "--", probe, "exec-sh", NULL};
	struct sbtest_out o;

	if (!probe || access(probe, X_OK) != 0)
		skip();
	/* No libraries were needed, so none are there. */
	sbtest_run(ok, as_nobody, 30000, &o);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "result=blocked errno=ENOENT"));
	sbtest_out_free(&o);
	sbtest_run(nodeps, as_nobody, 30000, &o);
	assert_int_equal(o.status, 0);
	sbtest_out_free(&o);
	sbtest_run(bad, as_nobody, 30000, &o);
	assert_int_equal(o.status, 159);
	assert_non_null(strstr(o.err, "denied system call execve "));
	sbtest_out_free(&o);
}

/* --ro shows a directory read-only; --tmpfs gives a writable one. */
static void test_ro_and_tmpfs(void **state)
{
	struct sbtest_daemon *d = *state;
	char *sb = getenv("SDDS_SANDBOX"), *probe = getenv("SDDS_PROBE");
	char file[160];
	char *see[] = {sb, "--socket", d->sock, "--ro", d->dir, "--", probe, "open", d->dir, NULL};
	char *write_ro[] = {sb, "--socket", d->sock, "--ro", d->dir, "--", probe, "create", file, NULL};
	char *write_tmp[] = {sb,   "--socket", d->sock,	 "--tmpfs",    "/scratch",
			     "--", probe,      "create", "/scratch/x", NULL};
	struct sbtest_out o;

	snprintf(file, sizeof(file), "%s/new-file", d->dir);
	sbtest_run(see, as_nobody, 30000, &o);
	assert_int_equal(o.status, 1);
	assert_non_null(strstr(o.out, "result=escaped opened"));
	sbtest_out_free(&o);
	sbtest_run(write_ro, as_nobody, 30000, &o);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "result=blocked errno=EROFS"));
	assert_int_equal(access(file, F_OK), -1);
	sbtest_out_free(&o);
	sbtest_run(write_tmp, as_nobody, 30000, &o);
	assert_int_equal(o.status, 1);
	assert_non_null(strstr(o.out, "result=escaped opened"));
	sbtest_out_free(&o);
}

/* A script is no ELF program: refused unless --no-deps and --ro say what
 * it needs. */
static void test_script_refused(void **state)
{
	struct sbtest_daemon *d = *state;
	char *sb = getenv("SDDS_SANDBOX");
	char path[128];
	char *argv[] = {sb, "--socket", d->sock, "--", path, NULL};
	struct sbtest_out o;
	FILE *f;

	snprintf(path, sizeof(path), "%s/script.sh", d->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nexit 0\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	sbtest_run(argv, as_nobody, 30000, &o);
	unlink(path);
	assert_int_equal(o.status, 125);
	assert_non_null(strstr(o.err, "not an ELF program"));
	sbtest_out_free(&o);
}

/*
 * The renewal channel: sddsd is killed and started again on the same path;
 * the sandboxed publisher and subscriber (restart-peer, which reconnects)
 * cannot connect() themselves, so each asks its sandbox for a new control
 * socket ($SDDS_CTL_RENEW_FD) and carries on.
 */
static void test_daemon_restart_renews(void **state)
{
	struct sbtest_daemon *d = *state;
	char *sb = getenv("SDDS_SANDBOX"), *peer = getenv("SDDS_RESTART_PEER");
	char *subv[] = {sb, "--socket", d->sock, "--", peer, "sub", "--socket", "/nonexistent", NULL};
	char *pubv[] = {sb,	    "--socket",	    d->sock,	   "--",   peer, "pub",
			"--socket", "/nonexistent", "--period-us", "2000", NULL};
	struct sbtest_out r, w;
	char buf[8192];
	pid_t sub, pub;
	int sub_in, sub_out, sub_err, pub_in, pub_out, pub_err;

	if (!peer || access(peer, X_OK) != 0)
		skip();
	buf[0] = '\0';
	sbtest_start_in(subv, as_nobody, &sub, &sub_in, &sub_out, &sub_err);
	wait_for(sub_out, buf, sizeof(buf), "ready");
	sbtest_start_in(pubv, as_nobody, &pub, &pub_in, &pub_out, &pub_err);
	wait_for(sub_out, buf, sizeof(buf), "flowing");
	sbtest_daemon_restart(d);
	/* The first sample after the reconnection ends a gap. */
	wait_for(sub_out, buf, sizeof(buf), "gap n=1");
	close(pub_in);
	sbtest_finish(pub, pub_out, pub_err, 30000, &w);
	close(sub_in);
	sbtest_finish(sub, sub_out, sub_err, 30000, &r);
	print_message("pub %d: %s%s\nsub %d: %s%s\n", w.status, w.out, w.err, r.status, r.out, r.err);
	assert_int_equal(w.status, 0);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, " errors=0"));
	assert_null(strstr(r.err, "denied system call"));
	assert_null(strstr(w.err, "denied system call"));
	sbtest_out_free(&r);
	sbtest_out_free(&w);
}

/* SIGTERM to the sandbox reaches the program, which dies of it. */
static void test_signal_forwarded(void **state)
{
	struct sbtest_daemon *d = *state;
	char *sb = getenv("SDDS_SANDBOX"), *probe = getenv("SDDS_PROBE");
	char *argv[] = {sb, "--socket", d->sock, "--", probe, "pause", NULL};
	struct sbtest_out o;
	char first[4096];
	pid_t pid;
	int out, err;

	char *nofilter[] = {sb, "--socket", d->sock, "--no-seccomp", "--", probe, "pause", NULL};

	sbtest_start(argv, as_nobody, &pid, &out, &err);
	wait_ready(out, first, sizeof(first));
	assert_int_equal(kill(pid, SIGTERM), 0);
	sbtest_finish(pid, out, err, 30000, &o);
	assert_int_equal(o.status, 128 + SIGTERM);
	sbtest_out_free(&o);
	/* Without the filter's exec notification the supervisor finds the
	 * program as init's child. */
	sbtest_start(nofilter, as_nobody, &pid, &out, &err);
	wait_ready(out, first, sizeof(first));
	assert_int_equal(kill(pid, SIGTERM), 0);
	sbtest_finish(pid, out, err, 30000, &o);
	assert_int_equal(o.status, 128 + SIGTERM);
	sbtest_out_free(&o);
}

static void test_identity(void **state)
{
#ifdef SDDS__CTL__ATTEST__INIT
	struct sbtest_daemon *d = *state;
	char *sb = getenv("SDDS_SANDBOX"), *probe = getenv("SDDS_PROBE");
	char *argv[] = {sb, "--socket", d->sock, "--identity", "vendor-app", "--", probe, "true", NULL};
	struct sbtest_out o;

	sbtest_run(argv, as_nobody, 30000, &o);
	print_message("identity: %d %s%s\n", o.status, o.out, o.err);
	if (as_nobody) {
		/* The daemon (root) trusts no uid 65534 launcher by default. */
		assert_int_equal(o.status, 125);
		assert_non_null(strstr(o.err, "attest"));
	} else {
		assert_int_equal(o.status, 0);
	}
	sbtest_out_free(&o);
#else
	(void)state;
	skip();
#endif
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
	    cmocka_unit_test_setup_teardown(test_reliable, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_listener, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_temperature_example, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exit_status, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_static_program, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_script_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ro_and_tmpfs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_daemon_restart_renews, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_signal_forwarded, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_identity, setup, teardown),
	};
	int rc;

	as_nobody = argc > 1 && strcmp(argv[1], "--nobody") == 0;
	rc = sbtest_need_tools();
	if (rc)
		return rc;
	if (!getenv("SDDS_ITEST_PEER") || access(getenv("SDDS_ITEST_PEER"), X_OK) != 0)
		return 77;
	if (as_nobody && !sbtest_nobody_userns()) {
		fprintf(stderr, "skip: no unprivileged user namespaces here\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name(as_nobody ? "pubsub_nobody" : "pubsub", tests, NULL, NULL);
}
