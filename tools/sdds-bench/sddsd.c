/* SPDX-License-Identifier: MIT */
/*
 * sddsd.c - start and stop a private sddsd (see sddsd.h) with the launcher
 * the test harnesses use too (tools/common/sddsd_run.h); this file adds the
 * private directory, the log and the reasons.
 */
#include "sddsd.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "sddsd_run.h"

int sddsd_find(const char *explicit_path, char *buf, size_t cap)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *dir;

	if (explicit_path)
		return snprintf(buf, cap, "%s", explicit_path) < (int)cap && access(buf, X_OK) == 0 ? 0
												    : -ENOENT;
	if (len <= 0)
		return -ENOENT;
	exe[len] = '\0';
	dir = dirname(exe);
	if (snprintf(buf, cap, "%s/../../daemon/sddsd", dir) < (int)cap && access(buf, X_OK) == 0)
		return 0;
	return snprintf(buf, cap, "%s/sddsd", dir) < (int)cap && access(buf, X_OK) == 0 ? 0 : -ENOENT;
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
	int err;

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
	err = sddsd_run_start(&o, &d.pid, NULL);
	if (err < 0) {
		sddsd_run_log_tail(d.log, tail, sizeof(tail));
		bench_why(why, "sddsd (%s): %s%s%s", bin,
			  err == -ECHILD      ? "exited at start"
			  : err == -ETIMEDOUT ? "accepted no connection within 10 s"
					      : strerror(-err),
			  tail[0] ? ": " : "", tail);
		sddsd_cleanup_files(&d);
		return err;
	}
	*ret = d;
	return 0;
}

bool sddsd_alive(struct sddsd_proc *d)
{
	int st;

	if (d->pid > 0 && waitpid(d->pid, &st, WNOHANG) != 0)
		d->pid = 0;
	return d->pid > 0;
}

int sddsd_stop(struct sddsd_proc *d, char *why)
{
	char tail[160];
	int err = -ECHILD;

	if (d->pid > 0) {
		err = proc_exec_stop(d->pid, SIGTERM, 3, "sddsd", d->log, why);
	} else {
		sddsd_run_log_tail(d->log, tail, sizeof(tail));
		bench_why(why, "sddsd had died during the run%s%s", tail[0] ? ": " : "", tail);
	}
	d->pid = 0;
	sddsd_cleanup_files(d);
	return err;
}
