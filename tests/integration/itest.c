/* SPDX-License-Identifier: MIT */
/*
 * itest.c - harness of the integration tests (see itest.h).
 *
 * OVERVIEW
 * The table of live children and temp paths is process-wide and written
 * only by the main thread; the signal handler reads it and uses nothing but
 * async-signal-safe calls (kill, unlink, rmdir, _exit through raise).
 */
#include "itest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "layout.h"
#include "sddsd_run.h"

#define ITEST_MAX_CHILDREN 128
#define ITEST_MAX_DAEMONS 4

static volatile sig_atomic_t itest_child_pids[ITEST_MAX_CHILDREN];
static struct itest_daemon *volatile itest_daemons[ITEST_MAX_DAEMONS];
static bool itest_handlers_installed;

int64_t itest_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t itest_now_ms(void)
{
	return itest_now_ns() / 1000000;
}

void itest_sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

bool itest_asan(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return true;
#else
	return false;
#endif
#else
	return false;
#endif
}

static bool itest_executable(const char *env)
{
	const char *p = getenv(env);

	return p != NULL && *p != '\0' && access(p, X_OK) == 0;
}

int itest_check_env(void)
{
	if (!itest_executable("SDDSD")) {
		fprintf(stderr, "itest: $SDDSD does not name an executable: skipped\n");
		return ITEST_SKIP;
	}
	if (!itest_executable("SDDS_ITEST_PEER")) {
		fprintf(stderr, "itest: $SDDS_ITEST_PEER does not name an executable: skipped\n");
		return ITEST_SKIP;
	}
	return 0;
}

/* ---------------------------------------------------------- cleanup */

static void itest_on_fatal_signal(int sig)
{
	for (int i = 0; i < ITEST_MAX_CHILDREN; i++)
		if (itest_child_pids[i] > 0)
			kill((pid_t)itest_child_pids[i], SIGKILL);
	for (int i = 0; i < ITEST_MAX_DAEMONS; i++) {
		struct itest_daemon *d = itest_daemons[i];

		if (d == NULL)
			continue;
		if (d->pid > 0)
			kill(d->pid, SIGKILL);
		unlink(d->sock);
		if (d->config[0])
			unlink(d->config);
		rmdir(d->dir);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void itest_install_handlers(void)
{
	struct sigaction sa;

	if (itest_handlers_installed)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = itest_on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	/* A peer that died makes a write to its stdin fail; that is not fatal here. */
	signal(SIGPIPE, SIG_IGN);
	itest_handlers_installed = true;
}

static void itest_track_child(pid_t pid, bool add)
{
	for (int i = 0; i < ITEST_MAX_CHILDREN; i++) {
		if (add && itest_child_pids[i] == 0) {
			itest_child_pids[i] = pid;
			return;
		}
		if (!add && itest_child_pids[i] == pid) {
			itest_child_pids[i] = 0;
			return;
		}
	}
}

static void itest_track_daemon(struct itest_daemon *d, bool add)
{
	for (int i = 0; i < ITEST_MAX_DAEMONS; i++) {
		if (add && itest_daemons[i] == NULL) {
			itest_daemons[i] = d;
			return;
		}
		if (!add && itest_daemons[i] == d) {
			itest_daemons[i] = NULL;
			return;
		}
	}
}

/* In the child between fork and exec: die with the test, default signals. */
static void itest_child_prepare(pid_t parent)
{
	sigset_t none;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* ---------------------------------------------------------- daemon */

int itest_daemon_start(struct itest_daemon *d, const char *config_text, const char *const *extra)
{
	return itest_daemon_start_nofile(d, config_text, extra, 0);
}

int itest_daemon_start_nofile(struct itest_daemon *d, const char *config_text, const char *const *extra,
			      unsigned long nofile)
{
	struct sddsd_run_opts o;
	int rc, status = 0;

	sddsd_run_opts_init(&o);
	o.bin = getenv("SDDSD");
	if (o.bin == NULL)
		return -ENOENT;
	itest_install_handlers();
	memset(d, 0, sizeof *d);
	rc = sddsd_run_tmpdir("sddsd-itest", d->dir, sizeof d->dir);
	if (rc < 0)
		return rc;
	snprintf(d->sock, sizeof d->sock, "%s/sddsd.sock", d->dir);
	if (config_text != NULL) {
		snprintf(d->config, sizeof d->config, "%s/sddsd.conf", d->dir);
		rc = sddsd_run_write(d->config, config_text);
		if (rc < 0) {
			rmdir(d->dir);
			return rc;
		}
	}
	o.sock = d->sock;
	o.config = config_text != NULL ? d->config : NULL;
	o.extra = extra;
	o.nofile = nofile;
	o.die_with_parent = true;
	itest_track_daemon(d, true);
	rc = sddsd_run_start(&o, &d->pid, &status);
	if (rc == 0)
		return 0;
	if (rc == -ECHILD)
		fprintf(stderr, "itest: sddsd exited during start (status 0x%x)\n", status);
	d->pid = 0;
	unlink(d->sock);
	if (d->config[0])
		unlink(d->config);
	rmdir(d->dir);
	itest_track_daemon(d, false);
	return rc;
}

bool itest_daemon_alive(struct itest_daemon *d)
{
	int status;

	if (d->pid <= 0)
		return false;
	if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
		fprintf(stderr, "itest: sddsd exited (status 0x%x)\n", status);
		d->pid = 0;
		return false;
	}
	return true;
}

int itest_daemon_kill(struct itest_daemon *d, int sig, int *ret_status)
{
	int status = 0, rc;

	if (d->pid <= 0)
		return -ESRCH;
	rc = sddsd_run_stop(d->pid, sig, 10000, &status);
	d->pid = 0;
	if (rc == -ETIMEDOUT)
		rc = 0; /* killed by the SIGKILL that followed */
	if (rc == 0 && ret_status)
		*ret_status = status;
	return rc;
}

int itest_daemon_stop(struct itest_daemon *d, int sig, int timeout_ms, int *ret_status)
{
	int status = 0, rc = -ESRCH;

	if (d->pid > 0) {
		rc = sddsd_run_stop(d->pid, sig, timeout_ms, &status);
		if (rc == -ETIMEDOUT)
			fprintf(stderr, "itest: sddsd did not exit within %d ms: SIGKILL\n", timeout_ms);
		d->pid = 0;
	}
	if (d->dir[0]) {
		unlink(d->sock);
		if (d->config[0])
			unlink(d->config);
		rmdir(d->dir);
		d->dir[0] = '\0';
	}
	itest_track_daemon(d, false);
	if (rc == 0 && ret_status)
		*ret_status = status;
	return rc;
}

/* ---------------------------------------------------------- processes */

void itest_proc_init(struct itest_proc *p)
{
	memset(p, 0, sizeof *p);
	p->in_fd = -1;
	p->out_fd = -1;
}

int itest_proc_spawn(struct itest_proc *p, const char *const *argv)
{
	return itest_proc_spawn_as(p, argv, (uid_t)-1, 0);
}

int itest_proc_spawn_as(struct itest_proc *p, const char *const *argv, uid_t uid, unsigned long nofile)
{
	int in[2], out[2], rc;
	pid_t parent = getpid(), pid;

	itest_install_handlers();
	itest_proc_init(p);
	if (pipe2(in, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(out, O_CLOEXEC) < 0) {
		rc = -errno;
		goto fail_in;
	}
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		goto fail_out;
	}
	if (pid == 0) {
		itest_child_prepare(parent);
		dup2(in[0], 0);
		dup2(out[1], 1);
		if (nofile > 0) {
			struct rlimit rl = {nofile, nofile};

			if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
				_exit(126);
		}
		/* Groups first: after setuid the process may no longer change them. */
		if (uid != (uid_t)-1 &&
		    (setgroups(0, NULL) < 0 || setgid((gid_t)uid) < 0 || setuid(uid) < 0 || getuid() != uid))
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->pid = pid;
	p->in_fd = in[1];
	p->out_fd = out[0];
	itest_track_child(pid, true);
	return 0;

fail_out:
	close(out[0]);
	close(out[1]);
fail_in:
	close(in[0]);
	close(in[1]);
	return rc;
}

int itest_peer_spawn(struct itest_proc *p, const char *role, const char *sock, const char *const *args)
{
	const char *argv[64];
	size_t n = 0;

	argv[n++] = getenv("SDDS_ITEST_PEER");
	argv[n++] = role;
	argv[n++] = "--socket";
	argv[n++] = sock;
	for (size_t i = 0; args != NULL && args[i] != NULL && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (argv[0] == NULL)
		return -ENOENT;
	return itest_proc_spawn(p, argv);
}

int itest_proc_readline(struct itest_proc *p, char *line, size_t cap, int timeout_ms)
{
	int64_t deadline = itest_now_ms() + timeout_ms;

	for (;;) {
		char *nl = memchr(p->buf, '\n', p->len);

		if (nl != NULL) {
			size_t n = (size_t)(nl - p->buf);
			size_t copy = n < cap - 1 ? n : cap - 1;

			memcpy(line, p->buf, copy);
			line[copy] = '\0';
			memmove(p->buf, nl + 1, p->len - n - 1);
			p->len -= n + 1;
			return 0;
		}
		if (p->out_fd < 0)
			return -EPIPE;
		if (p->len == sizeof p->buf) {
			/* A line longer than the buffer: hand out what we have. */
			size_t copy = cap - 1 < p->len ? cap - 1 : p->len;

			memcpy(line, p->buf, copy);
			line[copy] = '\0';
			p->len = 0;
			return 0;
		}
		int64_t left = deadline - itest_now_ms();
		struct pollfd pfd = {.fd = p->out_fd, .events = POLLIN};

		if (left <= 0)
			return -ETIMEDOUT;
		int r = poll(&pfd, 1, (int)left);

		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		ssize_t got = read(p->out_fd, p->buf + p->len, sizeof p->buf - p->len);

		if (got < 0 && errno != EINTR)
			return -errno;
		if (got == 0) {
			close(p->out_fd);
			p->out_fd = -1;
			if (p->len == 0)
				return -EPIPE;
			/* Last line without a newline. */
			p->buf[p->len == sizeof p->buf ? p->len - 1 : p->len] = '\n';
			if (p->len < sizeof p->buf)
				p->len++;
		}
		if (got > 0)
			p->len += (size_t)got;
	}
}

int itest_proc_expect(struct itest_proc *p, const char *prefix, char *line, size_t cap, int timeout_ms)
{
	int64_t deadline = itest_now_ms() + timeout_ms;
	size_t plen = strlen(prefix);

	if (cap > 0)
		line[0] = '\0';
	for (;;) {
		int64_t left = deadline - itest_now_ms();
		int rc;

		if (left < 0)
			left = 0;
		rc = itest_proc_readline(p, line, cap, (int)left);
		if (rc < 0) {
			fprintf(stderr, "itest: pid %d: no line \"%s...\": %s\n", (int)p->pid, prefix,
				strerror(-rc));
			return rc;
		}
		if (strncmp(line, prefix, plen) == 0)
			return 0;
		fprintf(stderr, "itest: pid %d says: %s\n", (int)p->pid, line);
	}
}

int itest_proc_finish(struct itest_proc *p, char *line, size_t cap, int timeout_ms)
{
	int64_t deadline = itest_now_ms() + timeout_ms;
	int rc, status;

	rc = itest_proc_expect(p, "done", line, cap, timeout_ms);
	if (rc < 0)
		return rc;
	rc = itest_proc_wait(p, (int)(deadline - itest_now_ms() > 2000 ? deadline - itest_now_ms() : 2000),
			     &status);
	return rc < 0 ? rc : status;
}

void itest_proc_close_stdin(struct itest_proc *p)
{
	if (p->in_fd >= 0) {
		close(p->in_fd);
		p->in_fd = -1;
	}
}

int itest_proc_wait(struct itest_proc *p, int timeout_ms, int *ret_status)
{
	int rc;

	if (!p->reaped) {
		if (p->pid <= 0)
			return -ECHILD;
		rc = sddsd_run_reap(p->pid, timeout_ms, &p->status);
		if (rc < 0)
			return rc;
		p->reaped = true;
		itest_track_child(p->pid, false);
	}
	if (ret_status)
		*ret_status = p->status;
	return 0;
}

void itest_proc_kill(struct itest_proc *p, int sig)
{
	if (p->pid > 0 && !p->reaped)
		kill(p->pid, sig);
}

void itest_proc_cleanup(struct itest_proc *p)
{
	if (p->pid > 0 && !p->reaped) {
		kill(p->pid, SIGKILL);
		if (sddsd_run_reap(p->pid, 10000, &p->status) == 0)
			p->reaped = true;
		itest_track_child(p->pid, false);
	}
	itest_proc_close_stdin(p);
	if (p->out_fd >= 0) {
		close(p->out_fd);
		p->out_fd = -1;
	}
	p->pid = 0;
}

static const char *itest_kv_find(const char *line, const char *key)
{
	size_t klen = strlen(key);

	for (const char *s = line; (s = strstr(s, key)) != NULL; s += klen) {
		if ((s == line || s[-1] == ' ') && s[klen] == '=')
			return s + klen + 1;
	}
	return NULL;
}

bool itest_kv_u64(const char *line, const char *key, uint64_t *ret)
{
	const char *v = itest_kv_find(line, key);
	char *end;
	unsigned long long x;

	if (v == NULL)
		return false;
	errno = 0;
	x = strtoull(v, &end, 0);
	if (end == v || errno != 0)
		return false;
	*ret = x;
	return true;
}

bool itest_kv_i64(const char *line, const char *key, int64_t *ret)
{
	const char *v = itest_kv_find(line, key);
	char *end;
	long long x;

	if (v == NULL)
		return false;
	errno = 0;
	x = strtoll(v, &end, 0);
	if (end == v || errno != 0)
		return false;
	*ret = x;
	return true;
}

/* ---------------------------------------------------------- stats */

/* One Hello + StatsQuery exchange; -EAGAIN when the daemon refused the Hello. */
static int itest_stats_once(const char *sock, Sdds__Ctl__Reply **ret, uint32_t *ret_self)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Hello hello = SDDS__CTL__HELLO__INIT;
	Sdds__Ctl__StatsQuery sq = SDDS__CTL__STATS_QUERY__INIT;
	Sdds__Ctl__Reply *rep = NULL;
	int fds[2];
	size_t n_fds = 0;
	uint32_t self;
	int fd, rc;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (strlen(sock) >= sizeof sa.sun_path) {
		rc = -ENAMETOOLONG;
		goto out;
	}
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		rc = -errno;
		goto out;
	}
	hello.protocol_version = CTL_PROTOCOL_VERSION;
	hello.layout_version = SDDS_LAYOUT_VERSION;
	hello.name = (char *)"itest-stats";
	req.id = 1;
	req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
	req.hello = &hello;
	rc = ctl_send_request(fd, &req, NULL, 0);
	if (rc < 0)
		goto out;
	rc = ctl_recv_reply(fd, &rep, fds, 2, &n_fds);
	for (size_t i = 0; i < n_fds; i++)
		close(fds[i]);
	if (rc < 0) {
		/* A refused Hello may be a closed socket. */
		rc = -EAGAIN;
		goto out;
	}
	if (rep->status != 0 || rep->body_case != SDDS__CTL__REPLY__BODY_HELLO) {
		rc = -EAGAIN;
		goto out;
	}
	self = rep->hello->session_id;
	sdds__ctl__reply__free_unpacked(rep, NULL);
	rep = NULL;

	req = (Sdds__Ctl__Request)SDDS__CTL__REQUEST__INIT;
	req.id = 2;
	req.body_case = SDDS__CTL__REQUEST__BODY_STATS;
	req.stats = &sq;
	rc = ctl_send_request(fd, &req, NULL, 0);
	if (rc < 0)
		goto out;
	rc = ctl_recv_reply(fd, &rep, NULL, 0, &n_fds);
	if (rc < 0)
		goto out;
	if (rep->id != 2 || rep->status != 0 || rep->body_case != SDDS__CTL__REPLY__BODY_STATS) {
		fprintf(stderr, "itest: StatsQuery refused: id %u status %d (%s)\n", rep->id, rep->status,
			rep->reason ? rep->reason : "");
		rc = rep->status < 0 ? rep->status : -EPROTO;
		goto out;
	}
	*ret = rep;
	*ret_self = self;
	rep = NULL;
	rc = 0;
out:
	if (rep)
		sdds__ctl__reply__free_unpacked(rep, NULL);
	close(fd);
	return rc;
}

int itest_stats(const char *sock, Sdds__Ctl__Reply **ret, uint32_t *ret_self)
{
	int64_t deadline = itest_now_ms() + 3000;
	int rc;

	for (;;) {
		rc = itest_stats_once(sock, ret, ret_self);
		if (rc != -EAGAIN || itest_now_ms() > deadline)
			return rc;
		itest_sleep_ms(20);
	}
}

const Sdds__Ctl__ClientInfo *itest_stats_client(const Sdds__Ctl__Stats *st, uint32_t session)
{
	for (size_t i = 0; i < st->n_clients; i++)
		if (st->clients[i]->session_id == session)
			return st->clients[i];
	return NULL;
}

size_t itest_stats_other_clients(const Sdds__Ctl__Stats *st, uint32_t self)
{
	size_t n = 0;

	for (size_t i = 0; i < st->n_clients; i++)
		if (st->clients[i]->session_id != self)
			n++;
	return n;
}

const Sdds__Ctl__EndpointInfo *itest_stats_endpoint(const Sdds__Ctl__Stats *st, uint32_t session, bool reader)
{
	for (size_t i = 0; i < st->n_endpoints; i++)
		if (st->endpoints[i]->session_id == session && st->endpoints[i]->reader == reader)
			return st->endpoints[i];
	return NULL;
}

const Sdds__Ctl__TopicInfo *itest_stats_topic(const Sdds__Ctl__Stats *st, uint32_t domain, uint32_t id)
{
	for (size_t i = 0; i < st->n_topics; i++)
		if (st->topics[i]->domain == domain && st->topics[i]->topic_id == id)
			return st->topics[i];
	return NULL;
}

/* ---------------------------------------------------------- /proc */

int itest_proc_fds(pid_t pid)
{
	char path[64];
	DIR *dir;
	struct dirent *e;
	int n = 0;

	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	dir = opendir(path);
	if (dir == NULL)
		return -errno;
	while ((e = readdir(dir)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

long itest_proc_rss_kb(pid_t pid)
{
	char path[64], line[256];
	FILE *f;
	long kb = -ENOENT;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int itest_proc_memfd_maps(pid_t pid)
{
	char path[64], line[512];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof line, f) != NULL)
		if (strstr(line, " /memfd:") != NULL)
			n++;
	fclose(f);
	return n;
}
