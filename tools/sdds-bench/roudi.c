/* SPDX-License-Identifier: MIT */
/* roudi.c - a private iceoryx RouDi, a child of the main benchmark process (see roudi.h). */
#include "roudi.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "proc.h"
#include "sddsd_run.h"

#define ROUDI_READY_LINE "RouDi is ready for clients"
/* How long a run waits for another sdds-bench iceoryx run to end. */
#define ROUDI_LOCK_WAIT_S 300

/* What RouDi makes in /tmp besides the shared memory it logs. */
static const char *const roudi_tmp_files[] = {"/tmp/roudi", "/tmp/roudi.lock", "/tmp/iox-unique-roudi.lock"};

/*
 * Claim path, with if_new only when it does not exist yet. The count is
 * raised after the write: a signal handler never sees a half-written path.
 */
static void roudi_claim(struct roudi_proc *r, const char *path, bool if_new)
{
	struct stat st;

	if (if_new && lstat(path, &st) == 0)
		return;
	if (r->n_files == ROUDI_MAX_FILES) {
		fprintf(stderr, "sdds-bench iceoryx: %s is not removed at the end: too many files\n", path);
		return;
	}
	snprintf(r->files[r->n_files], sizeof(r->files[0]), "%s", path);
	r->n_files++;
}

/*
 * The shared memory RouDi logged ("shared memory [NAME]") before making it.
 * RouDi purges and remakes a segment that existed, so each one is its own.
 */
static void roudi_claim_logged(struct roudi_proc *r)
{
	char log[8192], path[128];

	proc_log_read(r->log, log, sizeof(log));
	for (const char *p = log; (p = strstr(p, "shared memory [")) != NULL;) {
		const char *name = p += strlen("shared memory ["), *end = strchr(name, ']');
		int len = end ? (int)(end - name) : 0;

		if (len > 0 && len < 100 && !memchr(name, '/', (size_t)len)) {
			snprintf(path, sizeof(path), "/dev/shm/%.*s", len, name);
			roudi_claim(r, path, false);
		}
	}
}

/* Remove the claimed files and the directory, free the lock. Async-signal safe; how many files existed. */
static int roudi_clean(struct roudi_proc *r)
{
	int n = 0;

	for (int i = 0; i < r->n_files; i++)
		n += unlink(r->files[i]) == 0;
	unlink(r->cfg);
	unlink(r->log);
	rmdir(r->dir);
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	r->lock_fd = -1;
	return n;
}

/* The machine-wide lock, waiting up to ROUDI_LOCK_WAIT_S for another run to end: its fd, or -errno. */
static int roudi_lock(char *why)
{
	int fd = open(ROUDI_LOCK_PATH, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	int err = fd < 0 ? -errno : -EBUSY;

	for (int i = 0; fd >= 0 && i < ROUDI_LOCK_WAIT_S * 10; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		usleep(100000);
	}
	if (fd >= 0)
		close(fd);
	bench_why(why, "lock %s: %s", ROUDI_LOCK_PATH,
		  fd < 0 ? strerror(-err) : "another sdds-bench iceoryx run held it for 300 s");
	return err;
}

/* The pid of a running iox-roudi, or 0. */
static pid_t roudi_running(void)
{
	DIR *d = opendir("/proc");
	pid_t found = 0;

	for (struct dirent *e; d && !found && (e = readdir(d)) != NULL;) {
		char path[300], comm[32];

		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		proc_log_read(path, comm, sizeof(comm));
		if (isdigit((unsigned char)e->d_name[0]) && strncmp(comm, "iox-roudi", 9) == 0)
			found = (pid_t)atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

int roudi_start(const char *bin, uint32_t max_payload, struct roudi_proc *ret, char *why)
{
	struct roudi_proc r = {.lock_fd = -1};
	const char *argv[] = {bin, "-c", r.cfg, "-m", "off", NULL};
	struct proc_exec x = {.argv = argv,
			      .log = r.log,
			      .pdeathsig = SIGTERM,
			      .ready_line = ROUDI_READY_LINE,
			      .ready_s = 15,
			      .name = "iox-roudi"};
	char cfg[256];
	pid_t other;
	int err;

	err = r.lock_fd = roudi_lock(why);
	if (err < 0)
		return err;
	if ((other = roudi_running()) > 0) {
		bench_why(why, "an iox-roudi not started by this run is running (pid %d): not touching it",
			  (int)other);
		err = -EBUSY;
		goto fail;
	}
	err = sddsd_run_tmpdir("sdds-bench-roudi", r.dir, sizeof(r.dir));
	if (err < 0) {
		bench_why(why, "mkdtemp %s: %s", r.dir, strerror(-err));
		r.dir[0] = '\0';
		goto fail;
	}
	snprintf(r.cfg, sizeof(r.cfg), "%s/roudi.toml", r.dir);
	snprintf(r.log, sizeof(r.log), "%s/roudi.log", r.dir);
	/* Two mempools: iceoryx's own 128-byte chunks, and ours (a chunk header before the payload). */
	snprintf(cfg, sizeof(cfg),
		 "[general]\nversion = 1\n\n[[segment]]\n\n"
		 "[[segment.mempool]]\nsize = 128\ncount = 512\n\n"
		 "[[segment.mempool]]\nsize = %u\ncount = 128\n",
		 (max_payload + 256 + 63) & ~63u);
	err = sddsd_run_write(r.cfg, cfg);
	if (err < 0) {
		bench_why(why, "write %s: %s", r.cfg, strerror(-err));
		goto fail;
	}
	for (size_t i = 0; i < sizeof(roudi_tmp_files) / sizeof(roudi_tmp_files[0]); i++)
		roudi_claim(&r, roudi_tmp_files[i], true);
	err = proc_exec_start(&x, &r.pid, why);
	roudi_claim_logged(&r);
	if (err < 0)
		goto fail;
	*ret = r;
	return 0;

fail:
	roudi_clean(&r);
	return err;
}

void roudi_claim_runtime(struct roudi_proc *r, const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/tmp/%.100s", name);
	roudi_claim(r, path, true);
	snprintf(path, sizeof(path), "/tmp/%.100s.lock", name);
	roudi_claim(r, path, true);
}

int roudi_stop(struct roudi_proc *r, char *why)
{
	/* sddsd_run_stop calls kill, waitpid, nanosleep and clock_gettime: async-signal safe. */
	if (why)
		proc_exec_stop(r->pid, SIGTERM, 5, "iox-roudi", r->log, why);
	else if (r->pid > 0)
		sddsd_run_stop(r->pid, SIGTERM, 3000, NULL);
	r->pid = 0;
	return roudi_clean(r);
}

void roudi_explain(const struct roudi_proc *r, char *why)
{
	char tail[200];
	size_t len = strlen(why);

	sddsd_run_log_tail(r->log, tail, sizeof(tail));
	if (tail[0] && !strstr(tail, ROUDI_READY_LINE))
		snprintf(why + len, BENCH_WHY_MAX - len, "; RouDi said: %s", tail);
}

void roudi_leftovers(char *buf, size_t cap)
{
	DIR *d = opendir("/dev/shm");
	size_t len = 0;

	buf[0] = '\0';
	for (struct dirent *e; d && (e = readdir(d)) != NULL && len < cap;)
		if (strstr(e->d_name, "iceoryx"))
			len += (size_t)snprintf(buf + len, cap - len, "%s/dev/shm/%s", len ? " " : "",
						e->d_name);
	if (d)
		closedir(d);
	for (size_t i = 0; i < sizeof(roudi_tmp_files) / sizeof(roudi_tmp_files[0]) && len < cap; i++)
		if (access(roudi_tmp_files[i], F_OK) == 0)
			len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? " " : "",
						roudi_tmp_files[i]);
}
