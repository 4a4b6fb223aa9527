/* SPDX-License-Identifier: MIT */
/*
 * sddsd.c - start and stop a private sddsd (see sddsd.h).
 *
 * OVERVIEW
 * The daemon is a child of the main benchmark process, started and stopped
 * by the launcher the test harnesses use too (tools/common/sddsd_run.h);
 * this file adds the private directory, the log and the reasons. `pid` is
 * valid until sddsd_stop or sddsd_alive reaped it (then it is 0).
 */
#include "sddsd.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "sddsd_run.h"

#define SDDSD_READY_TIMEOUT_MS 10000
#define SDDSD_STOP_TIMEOUT_S 3

int sddsd_find(const char *explicit_path, char *buf, size_t cap)
{
	char exe[PATH_MAX], cand[PATH_MAX + 32];
	ssize_t len;
	const char *dir;

	if (explicit_path) {
		if (access(explicit_path, X_OK) < 0)
			return -ENOENT;
		if (snprintf(buf, cap, "%s", explicit_path) >= (int)cap)
			return -ENAMETOOLONG;
		return 0;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		return -ENOENT;
	exe[len] = '\0';
	dir = dirname(exe);
	/* Build tree: build/tools/sdds-bench/sdds-bench and build/daemon/sddsd. */
	snprintf(cand, sizeof(cand), "%s/../../daemon/sddsd", dir);
	if (access(cand, X_OK) == 0)
		goto found;
	snprintf(cand, sizeof(cand), "%s/sddsd", dir);
	if (access(cand, X_OK) == 0)
		goto found;
	return -ENOENT;
found:
	if (snprintf(buf, cap, "%s", cand) >= (int)cap)
		return -ENAMETOOLONG;
	return 0;
}

static void sddsd_cleanup_files(struct sddsd_proc *d)
{
	unlink(d->sock);
	unlink(d->log);
	rmdir(d->dir);
}

int sddsd_start(const char *bin, bool poll_mode, int cpu, struct sddsd_proc *ret, char *why)
{
	static const char *const poll_arg[] = {"--poll", NULL};
	struct sddsd_proc d = {0};
	struct sddsd_run_opts o;
	char tail[160];
	int err, st = 0;

	err = sddsd_run_tmpdir("sdds-bench", d.dir, sizeof(d.dir));
	if (err < 0) {
		bench_why(why, "private directory for the daemon: %s", strerror(-err));
		return err;
	}
	if (snprintf(d.sock, sizeof(d.sock), "%s/sddsd.sock", d.dir) >= (int)sizeof(d.sock) ||
	    snprintf(d.log, sizeof(d.log), "%s/sddsd.log", d.dir) >= (int)sizeof(d.log)) {
		bench_why(why, "socket path under %s is too long", d.dir);
		rmdir(d.dir);
		return -ENAMETOOLONG;
	}
	sddsd_run_opts_init(&o);
	o.bin = bin;
	o.sock = d.sock;
	o.extra = poll_mode ? poll_arg : NULL;
	o.log = d.log;
	o.cpu = cpu;
	o.ready_ms = SDDSD_READY_TIMEOUT_MS;
	err = sddsd_run_start(&o, &d.pid, &st);
	if (err < 0) {
		sddsd_run_log_tail(d.log, tail, sizeof(tail));
		if (err == -ECHILD)
			bench_why(why, "sddsd (%s) exited at start: %s", bin, tail[0] ? tail : "no output");
		else if (err == -ETIMEDOUT)
			bench_why(why, "sddsd did not accept connections within 10 s%s%s",
				  tail[0] ? ": " : "", tail);
		else
			bench_why(why, "fork: %s", strerror(-err));
		sddsd_cleanup_files(&d);
		return err;
	}
	*ret = d;
	return 0;
}

bool sddsd_alive(struct sddsd_proc *d)
{
	int st;

	if (d->pid <= 0)
		return false;
	if (waitpid(d->pid, &st, WNOHANG) == 0)
		return true;
	d->pid = 0;
	return false;
}

int sddsd_stop(struct sddsd_proc *d, char *why)
{
	char tail[160];
	int err;

	if (d->pid <= 0) {
		sddsd_run_log_tail(d->log, tail, sizeof(tail));
		bench_why(why, "sddsd had died during the run%s%s", tail[0] ? ": " : "", tail);
		err = -ECHILD;
	} else {
		err = proc_exec_stop(d->pid, SIGTERM, SDDSD_STOP_TIMEOUT_S, "sddsd", d->log, why);
	}
	d->pid = 0;
	sddsd_cleanup_files(d);
	return err;
}
