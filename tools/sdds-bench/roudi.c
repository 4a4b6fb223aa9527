/* SPDX-License-Identifier: MIT */
/*
 * roudi.c - a private iceoryx RouDi (see roudi.h).
 *
 * OVERVIEW
 * The RouDi is a child of the main benchmark process; `pid` is valid until
 * roudi_stop reaped it. `files` lists the iceoryx paths that did not exist
 * before the start and so are ours to remove: fixed at the start, so the
 * signal handler can unlink them without parsing or allocating. roudi_stop
 * adds the shared-memory names RouDi logged and the /tmp files of the
 * benchmark's runtimes (ROUDI_APP_PREFIX) found at the end.
 */
#include "roudi.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"
#include "sddsd_run.h"

#define ROUDI_READY_LINE "RouDi is ready for clients"

/* The pid of a running iox-roudi, or 0. */
static pid_t roudi_running(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d)) != NULL) {
		char path[300], comm[32] = "";
		FILE *f;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && strncmp(comm, "iox-roudi", 9) == 0)
			found = (pid_t)atoi(e->d_name);
		fclose(f);
	}
	closedir(d);
	return found;
}

static int roudi_lock(char *why)
{
	int64_t deadline = bench_now_ns() + ROUDI_LOCK_WAIT_NS;
	int fd = open(ROUDI_LOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC, 0666);

	if (fd < 0) {
		int err = -errno;

		bench_why(why, "open %s: %s", ROUDI_LOCK_PATH, strerror(errno));
		return err;
	}
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int err = -errno;

			bench_why(why, "flock %s: %s", ROUDI_LOCK_PATH, strerror(errno));
			close(fd);
			return err;
		}
		if (bench_now_ns() > deadline) {
			bench_why(why, "another sdds-bench iceoryx run held %s for 300 s", ROUDI_LOCK_PATH);
			close(fd);
			return -EBUSY;
		}
		usleep(100000);
	}
	return fd;
}

/* Add path to the removal list unless it exists now (then it is not ours). */
static void roudi_claim(struct roudi_proc *r, const char *path)
{
	struct stat st;

	if (r->n_files >= ROUDI_MAX_FILES || lstat(path, &st) == 0)
		return;
	snprintf(r->files[r->n_files++], sizeof(r->files[0]), "%.120s", path);
}

/* Add path to the removal list at stop time (it appeared during the run). */
static void roudi_claim_late(struct roudi_proc *r, const char *path)
{
	for (int i = 0; i < r->n_files; i++)
		if (strcmp(r->files[i], path) == 0)
			return;
	if (r->n_files < ROUDI_MAX_FILES)
		snprintf(r->files[r->n_files++], sizeof(r->files[0]), "%.120s", path);
}

static bool roudi_was_there(const struct roudi_proc *r, const char *name)
{
	for (int i = 0; i < r->n_before; i++)
		if (strcmp(r->before[i], name) == 0)
			return true;
	return false;
}

/* Record what exists before the start; list what RouDi will create. */
static void roudi_snapshot(struct roudi_proc *r)
{
	struct group *g = getgrgid(getegid());
	char path[200];
	DIR *d;

	roudi_claim(r, "/dev/shm/iceoryx_mgmt");
	if (g && g->gr_name && strlen(g->gr_name) < 64) {
		/* iceoryx 2.0 names the user's data segment after the group. */
		snprintf(path, sizeof(path), "/dev/shm/%s", g->gr_name);
		roudi_claim(r, path);
	}
	roudi_claim(r, "/tmp/roudi");
	roudi_claim(r, "/tmp/roudi.lock");
	roudi_claim(r, "/tmp/iox-unique-roudi.lock");
	d = opendir("/dev/shm");
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strstr(e->d_name, "iceoryx") && r->n_before < ROUDI_MAX_FILES)
			snprintf(r->before[r->n_before++], sizeof(r->before[0]), "%.120s", e->d_name);
	closedir(d);
}

static int roudi_write_config(const struct roudi_proc *r, uint32_t max_payload)
{
	/* A chunk holds its header (some 40 bytes) before the payload. */
	uint32_t big = ((max_payload + 256) + 63) & ~63u;
	FILE *f = fopen(r->cfg, "we");

	if (!f)
		return -errno;
	fprintf(f,
		"# sdds-bench iceoryx: small mempools, one run at a time\n"
		"[general]\nversion = 1\n\n[[segment]]\n\n"
		"[[segment.mempool]]\nsize = 128\ncount = 512\n\n"
		"[[segment.mempool]]\nsize = %u\ncount = 128\n",
		big < 256 ? 256 : big);
	if (fclose(f) != 0)
		return -EIO;
	return 0;
}

static void roudi_remove_dir(struct roudi_proc *r)
{
	if (r->cfg[0])
		unlink(r->cfg);
	if (r->log[0])
		unlink(r->log);
	if (r->dir[0])
		rmdir(r->dir);
}

/* Unlink every claimed file; returns how many existed. Async-signal safe. */
static int roudi_unlink_files(struct roudi_proc *r)
{
	int n = 0;

	for (int i = 0; i < r->n_files; i++)
		if (unlink(r->files[i]) == 0)
			n++;
	return n;
}

static void roudi_claim_run_files(struct roudi_proc *r);

int roudi_start(const char *bin, uint32_t max_payload, struct roudi_proc *ret, char *why)
{
	struct roudi_proc r = {.lock_fd = -1};
	/*
	 * Monitoring off: under load a runtime's keep-alive thread can starve
	 * past RouDi's 1.5 s limit, and RouDi then cuts the ping-pong mid-run.
	 * Dead runtimes are this program's to clean. RouDi must not outlive
	 * the benchmark: on SIGTERM it cleans up itself.
	 */
	const char *argv[] = {bin, "-c", r.cfg, "-m", "off", NULL};
	struct proc_exec x = {.argv = argv,
			      .log = r.log,
			      .pdeathsig = SIGTERM,
			      .ready_line = ROUDI_READY_LINE,
			      .ready_s = 15,
			      .name = "iox-roudi"};
	const char *tmp = getenv("TMPDIR");
	pid_t other;
	int err;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	err = roudi_lock(why);
	if (err < 0)
		return err;
	r.lock_fd = err;
	other = roudi_running();
	if (other > 0) {
		bench_why(why, "an iox-roudi not started by this run is running (pid %d): not touching it",
			  (int)other);
		err = -EBUSY;
		goto fail_unlock;
	}
	snprintf(r.dir, sizeof(r.dir), "%s/sdds-bench-roudi.XXXXXX", tmp);
	if (!mkdtemp(r.dir)) {
		err = -errno;
		bench_why(why, "mkdtemp in %s: %s", tmp, strerror(errno));
		r.dir[0] = '\0';
		goto fail_unlock;
	}
	if (snprintf(r.cfg, sizeof(r.cfg), "%.*s/roudi.toml", PATH_MAX - 64, r.dir) >= (int)sizeof(r.cfg) ||
	    snprintf(r.log, sizeof(r.log), "%.*s/roudi.log", PATH_MAX - 64, r.dir) >= (int)sizeof(r.log)) {
		bench_why(why, "path under %s is too long", tmp);
		err = -ENAMETOOLONG;
		goto fail_rmdir;
	}
	err = roudi_write_config(&r, max_payload);
	if (err < 0) {
		bench_why(why, "write %s: %s", r.cfg, strerror(-err));
		goto fail_rmdir;
	}
	roudi_snapshot(&r);

	err = proc_exec_start(&x, &r.pid, why);
	if (err < 0)
		goto fail_files;
	*ret = r;
	return 0;

fail_files:
	roudi_claim_run_files(&r);
	roudi_unlink_files(&r);
fail_rmdir:
	roudi_remove_dir(&r);
fail_unlock:
	close(r.lock_fd);
	return err;
}

/* Claim what RouDi logged ("... shared memory [NAME]") and our runtimes' /tmp files. */
static void roudi_claim_run_files(struct roudi_proc *r)
{
	char log[8192], path[200];
	const char *p = log;
	DIR *d;

	proc_log_read(r->log, log, sizeof(log));
	while ((p = strstr(p, "shared memory [")) != NULL) {
		const char *name = p + strlen("shared memory [");
		const char *end = strchr(name, ']');

		p = name;
		if (!end || end == name || end - name > 100 || memchr(name, '/', (size_t)(end - name)))
			continue;
		snprintf(path, sizeof(path), "/dev/shm/%.*s", (int)(end - name), name);
		if (!roudi_was_there(r, path + strlen("/dev/shm/")))
			roudi_claim_late(r, path);
	}
	d = opendir("/dev/shm");
	if (d) {
		for (struct dirent *e; (e = readdir(d)) != NULL;) {
			if (!strstr(e->d_name, "iceoryx") || roudi_was_there(r, e->d_name) ||
			    strlen(e->d_name) > 100)
				continue;
			snprintf(path, sizeof(path), "/dev/shm/%.100s", e->d_name);
			roudi_claim_late(r, path);
		}
		closedir(d);
	}
	d = opendir("/tmp");
	if (d) {
		for (struct dirent *e; (e = readdir(d)) != NULL;) {
			if (strncmp(e->d_name, ROUDI_APP_PREFIX, strlen(ROUDI_APP_PREFIX)) != 0 ||
			    strlen(e->d_name) > 100)
				continue;
			snprintf(path, sizeof(path), "/tmp/%.100s", e->d_name);
			roudi_claim_late(r, path);
		}
		closedir(d);
	}
}

int roudi_stop(struct roudi_proc *r, int *ret_removed, char *why)
{
	int err = 0, removed;
	pid_t pid = r->pid;

	if (pid <= 0) {
		bench_why(why, "iox-roudi had died during the run");
		err = -ECHILD;
	} else {
		err = proc_exec_stop(pid, SIGTERM, 5, "iox-roudi", r->log, why);
		r->pid = 0;
	}
	roudi_claim_run_files(r);
	removed = roudi_unlink_files(r);
	roudi_remove_dir(r);
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	r->lock_fd = -1;
	if (ret_removed)
		*ret_removed = removed;
	return err;
}

void roudi_stop_on_signal(struct roudi_proc *r)
{
	/* kill, waitpid, nanosleep and clock_gettime: async-signal safe. */
	if (r->pid > 0)
		sddsd_run_stop(r->pid, SIGTERM, 3000, NULL);
	r->pid = 0;
	roudi_unlink_files(r);
	roudi_remove_dir(r);
}

void roudi_log_tail(const struct roudi_proc *r, char *buf, size_t cap)
{
	char log[8192];
	char *ready, *after;

	buf[0] = '\0';
	proc_log_read(r->log, log, sizeof(log));
	ready = strstr(log, ROUDI_READY_LINE);
	if (!ready)
		return;
	after = ready + strlen(ROUDI_READY_LINE);
	for (size_t n = strlen(after); n > 0 && strchr(" \r\n", after[n - 1]); n--)
		after[n - 1] = '\0';
	ready = strrchr(after, '\n');
	/* "" when nothing came after "ready". */
	snprintf(buf, cap, "%s", ready ? ready + 1 : after);
}

int roudi_leftovers(char *buf, size_t cap)
{
	DIR *d = opendir("/dev/shm");
	size_t len = 0;
	int n = 0;

	buf[0] = '\0';
	if (d) {
		for (struct dirent *e; (e = readdir(d)) != NULL;) {
			if (strcmp(e->d_name, "iceoryx_mgmt") != 0 && !strstr(e->d_name, "iceoryx"))
				continue;
			n++;
			if (len < cap)
				len += (size_t)snprintf(buf + len, cap - len, "%s/dev/shm/%s", len ? " " : "",
							e->d_name);
		}
		closedir(d);
	}
	if (access("/tmp/roudi", F_OK) == 0) {
		n++;
		if (len < cap)
			snprintf(buf + len, cap - len, "%s/tmp/roudi", len ? " " : "");
	}
	return n;
}
