/* SPDX-License-Identifier: MIT */
/*
 * manager.c - the loop: listening socket, signals, heartbeat, the idle pump,
 * stall retries and timeouts, deferred teardown, stats.
 *
 * OVERVIEW
 * See manager.h for the model. Invariants kept here:
 * - Every libuv callback of the daemon ends in manager_reap(), so a session
 *   marked dead during the callback is gone before the loop sleeps again,
 *   and nothing below a callback ever frees a session.
 * - The idle handle runs while (polling mode) or (a session is hot) or (a
 *   stall retry is pending); otherwise the loop sleeps in epoll and only
 *   eventfds, control sockets and timers wake it.
 * - Blocking mode: every established session that is not stalled is hot or
 *   armed (data.waiters announced). A pump that made progress withdraws
 *   the announcement and makes the session hot; a client that kicks takes
 *   the announcement with the kick, and the pump on that kick either finds
 *   its records (hot) or announces again. Only session_arm takes a session
 *   off the hot list. A stalled session is on the stall list
 *   instead and becomes hot when its stall resolves.
 * - The stall timer is armed for the earliest stall deadline, so a stall
 *   never outlives its writer's max_blocking_ms by more than a millisecond
 *   or two.
 * - A socket file is unlinked at the end only if we created it and it is
 *   still the same inode.
 */
#include "manager.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "doorbell.h"
#include "log.h"
#include "netconf.h"
#include "netif.h"
#include "netstats.h"
#include "session.h"

#define MANAGER_HEARTBEAT_MS 100
#define MANAGER_ACCEPT_BATCH 64
#define MANAGER_LISTEN_RETRY_MS 100
#define MANAGER_BACKLOG 128
#define MANAGER_RUN_DIR "/run/sdds"
#define MANAGER_POLL_CLOCK_EVERY 16

/* ---------------- the listening socket ------------------------------------ */

/* Is somebody accepting on path? Only a refused connect proves it stale. */
static bool manager_socket_alive(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, rc;
	bool alive = true;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return true;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (rc < 0 && (errno == ECONNREFUSED || errno == ENOENT))
		alive = false;
	close(fd);
	return alive;
}

/* Create the socket's directory: 0755 for /run/sdds (everyone connects), else 0700. */
static int manager_make_dir(const char *path)
{
	char dir[CONFIG_SOCKET_MAX];
	char *slash;
	mode_t mode;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return 0;
	*slash = '\0';
	mode = strcmp(dir, MANAGER_RUN_DIR) == 0 ? 0755 : 0700;
	if (mkdir(dir, mode) < 0 && errno != EEXIST) {
		int rc = -errno;

		log_err("cannot create %s: %s", dir, strerror(errno));
		return rc;
	}
	return 0;
}

static int manager_bind_at(int fd, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path) >= (int)sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	/* Any local user may be a client; stats are guarded by uid instead. */
	if (chmod(path, 0666) < 0 || listen(fd, MANAGER_BACKLOG) < 0) {
		int rc = -errno;

		unlink(path);
		return rc;
	}
	return 0;
}

static int manager_bind(struct manager *m)
{
	char tmp[CONFIG_SOCKET_MAX + 32];
	struct stat st;
	int fd, rc;

	if (m->cfg.socket[0] != '\0') {
		snprintf(m->sock_path, sizeof(m->sock_path), "%s", m->cfg.socket);
	} else {
		rc = ctl_default_path(m->sock_path, sizeof(m->sock_path));
		if (rc < 0) {
			log_err("the default socket path is too long");
			return rc;
		}
	}
	rc = manager_make_dir(m->sock_path);
	if (rc < 0)
		return rc;
	if (lstat(m->sock_path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			log_err("%s exists and is not a socket", m->sock_path);
			return -EEXIST;
		}
		if (manager_socket_alive(m->sock_path)) {
			log_err("another daemon answers on %s", m->sock_path);
			return -EADDRINUSE;
		}
		log_notice("replacing stale socket %s", m->sock_path);
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		log_err("socket: %s", strerror(errno));
		return rc;
	}
	/*
	 * Bind and listen under a private name, then rename into place: the
	 * path never names a socket that refuses connections, and a stale file
	 * is replaced atomically.
	 */
	rc = snprintf(tmp, sizeof(tmp), "%s.%d.tmp", m->sock_path, (int)getpid());
	if (rc > 0 && (size_t)rc < CONFIG_SOCKET_MAX) {
		unlink(tmp);
		rc = manager_bind_at(fd, tmp);
		if (rc == 0 && rename(tmp, m->sock_path) < 0) {
			rc = -errno;
			unlink(tmp);
		}
	} else {
		unlink(m->sock_path);
		rc = manager_bind_at(fd, m->sock_path);
	}
	if (rc < 0) {
		log_err("cannot listen on %s: %s", m->sock_path, strerror(-rc));
		close(fd);
		return rc;
	}
	if (lstat(m->sock_path, &st) == 0) {
		m->sock_dev = st.st_dev;
		m->sock_ino = st.st_ino;
		m->sock_created = true;
	}
	m->listen_fd = fd;
	return 0;
}

/*
 * Socket activation: returns 1 when fd 3 was inherited and is used, 0 when
 * nothing was passed to us, -errno when what was passed is unusable.
 */
static int manager_inherit(struct manager *m)
{
	const char *pid_s = getenv("LISTEN_PID");
	const char *fds_s = getenv("LISTEN_FDS");
	struct sockaddr_un sa;
	socklen_t len = sizeof(int);
	int type = 0, domain = 0, accepting = 0, flags;
	char *end;
	long pid, n;

	if (pid_s == NULL || fds_s == NULL)
		return 0;
	pid = strtol(pid_s, &end, 10);
	if (*end != '\0' || pid != (long)getpid())
		return 0;
	n = strtol(fds_s, &end, 10);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (*end != '\0' || n < 1)
		return 0;
	if (getsockopt(3, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
	    (len = sizeof(int), getsockopt(3, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0) ||
	    (len = sizeof(int), getsockopt(3, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &len) < 0) ||
	    type != SOCK_SEQPACKET || domain != AF_UNIX || !accepting) {
		log_err("LISTEN_FDS: fd 3 is not a listening AF_UNIX SOCK_SEQPACKET socket");
		return -ENOTSOCK;
	}
	flags = fcntl(3, F_GETFL);
	if (flags < 0 || fcntl(3, F_SETFL, flags | O_NONBLOCK) < 0 || fcntl(3, F_SETFD, FD_CLOEXEC) < 0) {
		int rc = -errno;

		log_err("LISTEN_FDS: cannot set up fd 3: %s", strerror(errno));
		return rc;
	}
	if (n > 1)
		log_notice("LISTEN_FDS=%ld: using fd 3 only", n);
	memset(&sa, 0, sizeof(sa));
	len = sizeof(sa);
	if (getsockname(3, (struct sockaddr *)&sa, &len) == 0 && sa.sun_path[0] != '\0')
		snprintf(m->sock_path, sizeof(m->sock_path), "%s", sa.sun_path);
	else
		snprintf(m->sock_path, sizeof(m->sock_path), "(inherited fd 3)");
	m->listen_fd = 3;
	m->listen_inherited = true;
	return 1;
}

static void manager_on_listen(uv_poll_t *h, int status, int events);

static void manager_on_listen_retry(uv_timer_t *t)
{
	struct manager *m = t->data;

	if (m->stopping || !m->listen_paused)
		return;
	m->listen_paused = false;
	uv_poll_start(&m->listen_poll, UV_READABLE, manager_on_listen);
}

/* Take the reserve descriptor (again); it stays -1 while none is free. */
static void manager_reserve_take(struct manager *m)
{
	if (m->reserve_fd < 0)
		m->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/*
 * accept failed for want of a descriptor: give up the reserve to accept one
 * newcomer anyway, so that admission can drop a pending connection of the
 * biggest holder for it (or refuse it), and take the reserve back. Without
 * this the newcomer would wait in the backlog behind the flood, and the
 * readable socket would make the loop spin. Returns 0 when a connection was
 * taken off the backlog, or -errno.
 */
static int manager_accept_pressed(struct manager *m)
{
	int fd, rc;

	if (m->reserve_fd < 0)
		return -EMFILE;
	close(m->reserve_fd);
	m->reserve_fd = -1;
	fd = accept4(m->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		manager_reserve_take(m);
		return rc;
	}
	rc = session_new(m, fd, true);
	if (rc < 0 && rc != -EBUSY)
		log_rl(LOG_PRIO_ERR, "cannot start a session: %s", strerror(-rc));
	/* A dropped connection's descriptor is free once it is torn down. */
	manager_reap(m);
	manager_reserve_take(m);
	return 0;
}

static void manager_on_listen(uv_poll_t *h, int status, int events)
{
	struct manager *m = h->data;

	(void)events;
	if (status < 0) {
		log_rl(LOG_PRIO_ERR, "listening socket: %s", uv_strerror(status));
		return;
	}
	for (int i = 0; i < MANAGER_ACCEPT_BATCH; i++) {
		int fd = accept4(m->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		int rc;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EAGAIN)
				break;
			if ((errno == EMFILE || errno == ENFILE) && manager_accept_pressed(m) == 0)
				continue;
			/*
			 * Out of memory, or no reserve descriptor: the socket stays
			 * readable, so stop polling it for a while instead of
			 * spinning on it.
			 */
			log_rl(LOG_PRIO_ERR, "accept: %s; pausing for %d ms", strerror(errno),
			       MANAGER_LISTEN_RETRY_MS);
			uv_poll_stop(&m->listen_poll);
			m->listen_paused = true;
			uv_timer_start(&m->listen_retry, manager_on_listen_retry, MANAGER_LISTEN_RETRY_MS, 0);
			break;
		}
		/* Admission (caps per uid) is decided in session_new, from the peer's uid. */
		rc = session_new(m, fd, false);
		if (rc < 0 && rc != -EBUSY)
			log_rl(LOG_PRIO_ERR, "cannot start a session: %s", strerror(-rc));
		/* Close what admission dropped now, not 64 connections later. */
		manager_reap(m);
	}
	manager_reap(m);
}

/* ---------------- hot sessions, stalls ------------------------------------ */

static void manager_on_idle(uv_idle_t *h);

static void manager_idle_ensure(struct manager *m)
{
	if (m->idle_active || m->stopping)
		return;
	m->idle_active = true;
	uv_idle_start(&m->idle, manager_on_idle);
}

void manager_mark_hot(struct manager *m, struct session *s)
{
	if (m->cfg.poll || s->on_hot || s->dead)
		return;
	s->on_hot = true;
	TAILQ_INSERT_TAIL(&m->hot, s, hot_link);
	manager_idle_ensure(m);
}

static void manager_hot_remove(struct manager *m, struct session *s)
{
	if (!s->on_hot)
		return;
	TAILQ_REMOVE(&m->hot, s, hot_link);
	s->on_hot = false;
}

static void manager_on_stall_timer(uv_timer_t *t);

/* Arm the stall timer for the earliest deadline, or stop it. */
static void manager_stall_timer_update(struct manager *m)
{
	struct session *s;
	int64_t due = 0, now, ms;

	TAILQ_FOREACH(s, &m->stalled, stall_link)
	{
		if (due == 0 || s->stall_deadline_ns < due)
			due = s->stall_deadline_ns;
	}
	if (due == 0) {
		uv_timer_stop(&m->stall_timer);
		m->stall_timer_due_ns = 0;
		return;
	}
	if (m->stall_timer_due_ns != 0 && m->stall_timer_due_ns <= due)
		return;
	now = log_now_ns();
	/* Round up, plus one: uv's millisecond clock must not fire early. */
	ms = due > now ? (due - now + 999999) / 1000000 + 1 : 0;
	m->stall_timer_due_ns = due;
	uv_timer_start(&m->stall_timer, manager_on_stall_timer, (uint64_t)ms, 0);
}

void manager_stall_add(struct manager *m, struct session *s)
{
	if (!s->on_stall) {
		s->on_stall = true;
		TAILQ_INSERT_TAIL(&m->stalled, s, stall_link);
	}
	manager_stall_timer_update(m);
	if (m->retry_pending || m->cfg.poll)
		manager_idle_ensure(m);
}

void manager_stall_remove(struct manager *m, struct session *s)
{
	if (!s->on_stall)
		return;
	TAILQ_REMOVE(&m->stalled, s, stall_link);
	s->on_stall = false;
}

void manager_reader_gone(struct manager *m, struct broker_reader *r)
{
	struct session *s;

	TAILQ_FOREACH(s, &m->stalled, stall_link)
	{
		if (s->stall_blocker != r)
			continue;
		rring_prod_stop_wait_space(broker_reader_ring(r));
		s->stall_blocker = NULL;
		m->retry_pending = true;
	}
	netif_reader_gone(m->net, r);
	if (m->retry_pending)
		manager_idle_ensure(m);
}

struct session *manager_find_session(struct manager *m, uint32_t id)
{
	struct session *s;

	if (id == 0)
		return NULL;
	TAILQ_FOREACH(s, &m->sessions, link)
	{
		if (s->id == id && s->state == SESSION_READY && !s->dead)
			return s;
	}
	return NULL;
}

void manager_retry_stalled(struct manager *m)
{
	struct session *s;
	uint32_t n = 0;

	m->retry_pending = false;
	/* Pumping can move a session to the tail again: walk a snapshot. */
	TAILQ_FOREACH(s, &m->stalled, stall_link)
	{
		if (n < m->cfg.max_clients)
			m->scratch[n++] = s;
	}
	for (uint32_t i = 0; i < n; i++) {
		s = m->scratch[i];
		if (!s->dead && s->stalled)
			session_pump(s, false);
	}
	/*
	 * A resolved stall withdrew its wait on the blocker's ring, which
	 * another stalled session may share: announce again for all.
	 */
	TAILQ_FOREACH(s, &m->stalled, stall_link)
	{
		if (!s->dead)
			session_stall_rearm(s);
	}
	manager_stall_timer_update(m);
	if (m->retry_pending)
		manager_idle_ensure(m);
}

static void manager_on_stall_timer(uv_timer_t *t)
{
	struct manager *m = t->data;

	m->stall_timer_due_ns = 0;
	manager_retry_stalled(m);
	manager_reap(m);
}

/*
 * Polling mode, one idle callback: pump every session's request ring in a
 * tight loop for up to poll_turn_ns, then return to libuv for one turn
 * (control sockets, timers, signals, the network: one epoll_wait(0)). So a
 * sample costs no system call, and control and timers still run at least
 * every poll_turn_ns. Once nothing moved for poll_yield_ns the loop yields
 * the CPU every round: a client sharing the CPU runs within microseconds
 * instead of at the next tick, and an idle daemon lets others work.
 * Sessions are only added and removed in libuv callbacks or manager_reap,
 * so walking the list here is safe; the clock is read every
 * MANAGER_POLL_CLOCK_EVERY rounds while samples move (it costs more than a
 * round over empty rings).
 */
static void manager_poll_turn(struct manager *m)
{
	int64_t now = log_now_ns();
	int64_t end = now + m->cfg.poll_turn_ns;
	uint32_t round = 0;

	for (;;) {
		struct session *s;
		bool moved = false;

		if (m->retry_pending || !TAILQ_EMPTY(&m->stalled))
			manager_retry_stalled(m);
		TAILQ_FOREACH(s, &m->sessions, link)
		{
			if (!s->dead && !s->stalled && session_pump(s, false) > 0)
				moved = true;
		}
		/* Frames for the network go out now, not at the next loop turn. */
		if (moved && m->net != NULL)
			netif_flush(m->net);
		manager_reap(m);
		if (m->stopping)
			return;
		if (moved) {
			m->poll_moved = true;
			if (++round % MANAGER_POLL_CLOCK_EVERY != 0)
				continue;
		}
		/* The network's data path, busy-polled (backend poll_rx) as often as the clock is read. */
		netif_poll(m->net);
		now = log_now_ns();
		if (m->poll_moved) {
			m->poll_moved = false;
			m->poll_active_ns = now;
		} else if (m->cfg.poll_yield_ns > 0 && now - m->poll_active_ns >= m->cfg.poll_yield_ns) {
			(void)sched_yield();
		}
		if (now >= end)
			return;
		doorbell_cpu_relax();
	}
}

static void manager_on_idle(uv_idle_t *h)
{
	struct manager *m = h->data;
	struct session *s, *next;
	int64_t now;

	if (m->cfg.poll) {
		manager_poll_turn(m);
		return;
	}
	if (m->retry_pending)
		manager_retry_stalled(m);
	now = log_now_ns();
	for (s = TAILQ_FIRST(&m->hot); s != NULL; s = next) {
		next = TAILQ_NEXT(s, hot_link);
		if (s->dead)
			continue;
		if (s->stalled) {
			/* Nothing to spin for: the stall's retry marks it hot again. */
			manager_hot_remove(m, s);
			continue;
		}
		if (session_pump(s, false) > 0)
			continue;
		if (now - s->last_active_ns < m->cfg.spin_ns)
			continue;
		if (session_arm(s))
			manager_hot_remove(m, s);
	}
	manager_reap(m);
	if (TAILQ_EMPTY(&m->hot) && !m->retry_pending) {
		uv_idle_stop(&m->idle);
		m->idle_active = false;
	}
}

/* ---------------- teardown ------------------------------------------------ */

void manager_reap(struct manager *m)
{
	struct session *s;

	while ((s = TAILQ_FIRST(&m->doomed)) != NULL) {
		TAILQ_REMOVE(&m->doomed, s, doom_link);
		TAILQ_REMOVE(&m->sessions, s, link);
		manager_hot_remove(m, s);
		session_teardown(s);
	}
	if (m->retry_pending)
		manager_idle_ensure(m);
}

/* ---------------- descriptors --------------------------------------------- */

/* Beyond the sessions: the loop, signals, the network, logging, the policy file. */
#define MANAGER_FD_MARGIN 128

/*
 * Raise the soft RLIMIT_NOFILE (up to the hard one) to what the caps can
 * hold: three per session (socket, segment memfd, eventfd), one per
 * pending connection, a batch of connections being dropped, the rest.
 * Short of that, say so: admission still keeps the descriptors shared out
 * (manager_accept_pressed), but sessions may fail to start.
 */
static void manager_raise_nofile(struct manager *m)
{
	uint64_t need =
	    3ull * m->cfg.max_clients + m->cfg.max_handshakes + MANAGER_ACCEPT_BATCH + MANAGER_FD_MARGIN;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ? (rlim_t)need : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_cur < need)
		log_warning("RLIMIT_NOFILE is %llu, below the %llu descriptors that max_clients = %u and "
			    "max_handshakes = %u can hold; admission keeps connections to what fits",
			    (unsigned long long)rl.rlim_cur, (unsigned long long)need, m->cfg.max_clients,
			    m->cfg.max_handshakes);
}

/* Descriptors open now (/proc/self/fd, not counting the directory's own), or -errno. */
static int manager_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] != '.')
			n++;
	}
	closedir(d);
	return n - 1;
}

/*
 * What connections may hold: the soft RLIMIT_NOFILE less what is open once
 * everything else is set up, less MANAGER_FD_SLACK for descriptors opened
 * later (pidfds at accept, the policy file at SIGHUP, logging).
 */
#define MANAGER_FD_SLACK 32
static uint32_t manager_fd_budget(void)
{
	struct rlimit rl;
	int open_now = manager_count_fds();

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if (open_now < 0)
		open_now = 64;
	if (rl.rlim_cur <= (rlim_t)open_now + MANAGER_FD_SLACK + 3)
		return 3;
	if (rl.rlim_cur - (rlim_t)open_now - MANAGER_FD_SLACK > UINT32_MAX)
		return 0;
	return (uint32_t)(rl.rlim_cur - (rlim_t)open_now - MANAGER_FD_SLACK);
}

/* ---------------- timers, signals, stop ----------------------------------- */

static void manager_on_heartbeat(uv_timer_t *t)
{
	struct manager *m = t->data;
	struct session *s;
	int64_t now = log_now_ns();

	TAILQ_FOREACH(s, &m->sessions, link)
	{
		if (s->dead)
			continue;
		if (s->state == SESSION_READY)
			session_heartbeat(s);
		else if (now - s->created_ns > SESSION_HANDSHAKE_NS)
			session_kill(s, true, "no Hello within 5 s");
	}
	manager_reap(m);
}

static void manager_close_handle(uv_handle_t *h)
{
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* Close every session and handle; uv_run then returns once all are closed. */
static void manager_shutdown(struct manager *m)
{
	struct session *s;
	struct stat st;

	if (m->stopping)
		return;
	m->stopping = true;
	TAILQ_FOREACH(s, &m->sessions, link)
	session_kill(s, false, "daemon shutting down");
	manager_reap(m);
	manager_close_handle((uv_handle_t *)&m->listen_poll);
	if (m->listen_fd >= 0) {
		close(m->listen_fd);
		m->listen_fd = -1;
	}
	if (m->sock_created && lstat(m->sock_path, &st) == 0 && st.st_dev == m->sock_dev &&
	    st.st_ino == m->sock_ino)
		unlink(m->sock_path);
	m->sock_created = false;
	manager_close_handle((uv_handle_t *)&m->listen_retry);
	manager_close_handle((uv_handle_t *)&m->sig_int);
	manager_close_handle((uv_handle_t *)&m->sig_term);
	manager_close_handle((uv_handle_t *)&m->heartbeat);
	manager_close_handle((uv_handle_t *)&m->stall_timer);
	manager_close_handle((uv_handle_t *)&m->idle);
	manager_close_handle((uv_handle_t *)&m->stop_async);
	netif_close(m->net);
	manager_close_handle((uv_handle_t *)&m->sig_hup);
	manager_close_handle((uv_handle_t *)&m->watchdog);
	notify_send(&m->notify, "STOPPING=1");
}

static void manager_on_signal(uv_signal_t *h, int signum)
{
	struct manager *m = h->data;

	log_info("signal %d: shutting down", signum);
	manager_shutdown(m);
}

/* ---------------- access policy, service manager ------------------------- */

/* STATUS= for systemctl status; state is "" or a "READY=1\n"-style prefix. */
static void manager_notify_status(struct manager *m, const char *state)
{
	if (m->policy != NULL)
		notify_sendf(&m->notify, "%sSTATUS=serving %s; policy %s (%zu identities, %zu rules)", state,
			     m->sock_path, m->cfg.policy, policy_n_identities(m->policy),
			     policy_n_rules(m->policy));
	else
		notify_sendf(&m->notify, "%sSTATUS=serving %s; no policy: every topic is open", state,
			     m->sock_path);
}

/* Load the configured policy at start; a file that does not parse stops the start. */
static int manager_policy_start(struct manager *m)
{
	struct policy_error err;
	int rc;

	if (m->cfg.policy[0] == '\0') {
		log_notice("no access policy (policy = FILE): every client that can connect to the socket "
			   "may write and read every topic");
		return 0;
	}
	rc = policy_load_file(m->cfg.policy, &m->policy, &err);
	if (rc < 0) {
		log_err("access policy refused: %s", err.msg);
		return rc;
	}
	log_info("access policy %s: %zu identities, %zu rules", m->cfg.policy, policy_n_identities(m->policy),
		 policy_n_rules(m->policy));
	return 0;
}

/*
 * Endpoints the current policy would no longer allow. They are kept: the
 * client library has no way to learn that the daemon closed one, and
 * closing its whole session would drop samples of allowed endpoints too.
 */
static unsigned manager_policy_audit(struct manager *m)
{
	struct policy_verdict v;
	struct session *s;
	unsigned n = 0;

	TAILQ_FOREACH(s, &m->sessions, link)
	{
		if (s->dead || s->state != SESSION_READY)
			continue;
		for (uint32_t k = 0; k < (1u << s->writer_bits); k++) {
			const struct broker_topic_desc *d;

			if (s->writers[k].id == 0)
				continue;
			d = broker_topic_desc(broker_writer_topic(s->writers[k].w));
			if (policy_check(m->policy, &s->peer, POLICY_WRITE, d->domain, d->topic_id, &v) ==
				0 &&
			    !v.allowed)
				n++;
		}
		for (uint32_t k = 0; k < (1u << s->reader_bits); k++) {
			const struct broker_topic_desc *d;

			if (s->readers[k].id == 0)
				continue;
			d = broker_topic_desc(broker_reader_topic(s->readers[k].r));
			if (policy_check(m->policy, &s->peer, POLICY_READ, d->domain, d->topic_id, &v) == 0 &&
			    !v.allowed)
				n++;
		}
	}
	return n;
}

static void manager_on_hup(uv_signal_t *h, int signum)
{
	struct manager *m = h->data;
	struct policy_error err;
	struct policy *p;
	unsigned stale;

	(void)signum;
	if (m->cfg.policy[0] == '\0') {
		log_notice("SIGHUP: no policy file configured, nothing to reload (every topic stays open)");
		return;
	}
	notify_send(&m->notify, "RELOADING=1");
	if (policy_load_file(m->cfg.policy, &p, &err) < 0) {
		m->policy_reload_failures++;
		log_err("SIGHUP: policy refused: %s; keeping the last good policy", err.msg);
	} else {
		policy_free(m->policy);
		m->policy = p;
		m->policy_reloads++;
		log_notice("SIGHUP: policy %s reloaded: %zu identities, %zu rules", m->cfg.policy,
			   policy_n_identities(p), policy_n_rules(p));
		stale = manager_policy_audit(m);
		if (stale > 0)
			log_warning(
			    "%u endpoints created earlier are not allowed by the new policy; they stay "
			    "until deleted or their client reconnects",
			    stale);
	}
	manager_notify_status(m, "READY=1\n");
	manager_reap(m);
}

static void manager_on_watchdog(uv_timer_t *t)
{
	struct manager *m = t->data;

	notify_send(&m->notify, "WATCHDOG=1");
}

bool manager_may_attest(const struct manager *m, uid_t uid)
{
	if (uid == 0 || uid == m->uid)
		return true;
	for (uint32_t i = 0; i < m->cfg.n_attest_uids; i++) {
		if (m->cfg.attest_uids[i] == (uint32_t)uid)
			return true;
	}
	return false;
}

void manager_policy_denied(struct manager *m, const struct policy_denial *d)
{
	m->policy_denied++;
	policy_denials_push(&m->denials, d);
}

static void manager_on_stop(uv_async_t *h)
{
	manager_shutdown(h->data);
}

/* ---------------- life cycle ---------------------------------------------- */

static uint64_t manager_random_epoch(void)
{
	uint64_t e = 0;

	if (getrandom(&e, sizeof(e), GRND_NONBLOCK) != (ssize_t)sizeof(e)) {
		struct timespec ts;

		/* No entropy yet (early boot): still unique per start in practice. */
		clock_gettime(CLOCK_REALTIME, &ts);
		e = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 16);
	}
	return e != 0 ? e : 1;
}

/* ---------------- the network side (daemon/net) -------------------------- */

static void manager_net_kill_owner(void *ctx, uint32_t owner, const char *why)
{
	struct session *s = manager_find_session(ctx, owner);

	if (s != NULL)
		session_kill(s, true, why);
}

static void manager_net_after(void *ctx)
{
	manager_reap(ctx);
}

/* Peers can send anything at any rate: one rate-limited line, counters carry the rest. */
static void manager_net_dropped(void *ctx, unsigned reason, const struct net_addr *src)
{
	char a[INET6_ADDRSTRLEN];

	(void)ctx;
	log_rl(LOG_PRIO_NOTICE, "network: dropped a datagram from [%s]:%u: %s (sddsctl net counts them all)",
	       inet_ntop(AF_INET6, &src->ip, a, sizeof(a)) != NULL ? a : "?", src->port,
	       netif_drop_name(reason));
}

/*
 * Load the node config and start the network layer when the config asks
 * for it (net = on, or auto with a node_config). Logs what fails.
 */
static int manager_net_start(struct manager *m)
{
	struct netif_hooks hooks = {manager_net_kill_owner, manager_net_after, manager_net_dropped, m, NULL};
	struct netconf nc;
	char why[NODECFG_ERROR_MAX];
	int rc;

	if (!netconf_wanted(&m->cfg))
		return 0;
	rc = netconf_load(&m->cfg, &nc, why, sizeof(why));
	if (rc < 0) {
		log_err("%s", why);
		return rc;
	}
	rc = netif_new(&m->loop, m->broker, &nc.o, &hooks, &m->net, why, sizeof(why));
	if (rc < 0)
		log_err("network: %s", why[0] != '\0' ? why : strerror(-rc));
	else
		log_info("network: %u topics from %s, %s backend on %s%s, port %u, %u static subscribers",
			 nc.node->n_topics, m->cfg.node_config, m->cfg.backend, nc.o.links[0],
			 nc.o.n_links > 1 ? ",..." : "", nc.node->port, nc.node->n_dests);
	if (rc == 0 && netif_discovery(m->net) != NULL)
		log_info("network: discovery on, node id 0x%04x, %s mode",
			 disc_node_id(netif_discovery(m->net)),
			 m->cfg.discovery_unicast ? "unicast" : "multicast");
	netconf_fini(&nc);
	return rc;
}

int manager_new(const struct sddsd_config *cfg, struct manager **ret)
{
	struct broker_limits lim;
	struct manager *m;
	int rc;

	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	m->cfg = *cfg;
	m->listen_fd = -1;
	m->reserve_fd = -1;
	{
		struct admission_limits al;

		config_admission_limits(cfg, &al);
		admission_init(&m->adm, &al);
	}
	m->uid = geteuid();
	m->start_ns = log_now_ns();
	m->epoch = manager_random_epoch();
	m->next_session_id = 1;
	TAILQ_INIT(&m->sessions);
	TAILQ_INIT(&m->hot);
	TAILQ_INIT(&m->stalled);
	TAILQ_INIT(&m->doomed);
	m->scratch = calloc(cfg->max_clients, sizeof(*m->scratch));
	if (m->scratch == NULL) {
		rc = -ENOMEM;
		goto fail_free;
	}
	/* A client that vanishes must never kill the daemon with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	manager_raise_nofile(m);
	manager_reserve_take(m);
	notify_open(&m->notify);
	rc = manager_policy_start(m);
	if (rc < 0)
		goto fail_free;

	broker_limits_init(&lim);
	lim.max_sample = cfg->max_sample;
	rc = broker_new(&lim, &m->broker);
	if (rc < 0) {
		log_err("cannot create the broker: %s", strerror(-rc));
		goto fail_free;
	}
	rc = uv_loop_init(&m->loop);
	if (rc < 0) {
		log_err("cannot create the event loop: %s", uv_strerror(rc));
		goto fail_broker;
	}
	uv_timer_init(&m->loop, &m->listen_retry);
	uv_signal_init(&m->loop, &m->sig_int);
	uv_signal_init(&m->loop, &m->sig_term);
	uv_timer_init(&m->loop, &m->heartbeat);
	uv_timer_init(&m->loop, &m->stall_timer);
	uv_idle_init(&m->loop, &m->idle);
	uv_async_init(&m->loop, &m->stop_async, manager_on_stop);
	uv_signal_init(&m->loop, &m->sig_hup);
	uv_timer_init(&m->loop, &m->watchdog);
	m->sig_hup.data = m;
	m->watchdog.data = m;
	m->listen_retry.data = m;
	m->sig_int.data = m;
	m->sig_term.data = m;
	m->heartbeat.data = m;
	m->stall_timer.data = m;
	m->idle.data = m;
	m->stop_async.data = m;

	rc = manager_net_start(m);
	if (rc < 0)
		goto fail_loop;
	rc = manager_inherit(m);
	if (rc == 0)
		rc = manager_bind(m);
	if (rc < 0)
		goto fail_loop;
	rc = uv_poll_init(&m->loop, &m->listen_poll, m->listen_fd);
	if (rc < 0) {
		log_err("cannot poll the listening socket: %s", uv_strerror(rc));
		goto fail_loop;
	}
	m->listen_poll.data = m;
	uv_poll_start(&m->listen_poll, UV_READABLE, manager_on_listen);
	uv_signal_start(&m->sig_int, manager_on_signal, SIGINT);
	uv_signal_start(&m->sig_term, manager_on_signal, SIGTERM);
	uv_signal_start(&m->sig_hup, manager_on_hup, SIGHUP);
	if (m->notify.watchdog_usec > 0) {
		uint64_t ms = m->notify.watchdog_usec / 2000;

		uv_timer_start(&m->watchdog, manager_on_watchdog, ms > 0 ? ms : 1, ms > 0 ? ms : 1);
	}
	uv_timer_start(&m->heartbeat, manager_on_heartbeat, MANAGER_HEARTBEAT_MS, MANAGER_HEARTBEAT_MS);
	if (cfg->poll)
		manager_idle_ensure(m);
	/* Everything but the connections is open now: the rest of the limit is theirs. */
	m->adm.lim.fd_budget = manager_fd_budget();
	log_info("listening on %s (%s mode, epoch %016" PRIx64 ")", m->sock_path,
		 cfg->poll ? "polling" : "blocking", m->epoch);
	*ret = m;
	return 0;

fail_loop : {
	uv_handle_t *hs[] = {
	    (uv_handle_t *)&m->listen_retry, (uv_handle_t *)&m->sig_int,     (uv_handle_t *)&m->sig_term,
	    (uv_handle_t *)&m->heartbeat,    (uv_handle_t *)&m->stall_timer, (uv_handle_t *)&m->idle,
	    (uv_handle_t *)&m->stop_async,   (uv_handle_t *)&m->sig_hup,     (uv_handle_t *)&m->watchdog,
	};
	for (size_t i = 0; i < sizeof(hs) / sizeof(hs[0]); i++)
		manager_close_handle(hs[i]);
	/* calloc left the type UV_UNKNOWN_HANDLE if uv_poll_init never ran. */
	if (m->listen_poll.type == UV_POLL)
		manager_close_handle((uv_handle_t *)&m->listen_poll);
}
	netif_close(m->net);
	uv_run(&m->loop, UV_RUN_DEFAULT);
	netif_free(m->net);
	m->net = NULL;
	uv_loop_close(&m->loop);
	if (m->listen_fd >= 0 && !m->listen_inherited)
		close(m->listen_fd);
fail_broker:
	broker_free(m->broker);
fail_free:
	policy_free(m->policy);
	notify_close(&m->notify);
	if (m->reserve_fd >= 0)
		close(m->reserve_fd);
	admission_fini(&m->adm);
	free(m->scratch);
	free(m);
	return rc;
}

int manager_run(struct manager *m)
{
	int rc;

	/* Connections queue in the backlog until the loop accepts them. */
	manager_notify_status(m, "READY=1\n");
	rc = uv_run(&m->loop, UV_RUN_DEFAULT);
	if (!m->stopping) {
		/* The loop ran dry without a shutdown: a bug, but end cleanly. */
		manager_shutdown(m);
		uv_run(&m->loop, UV_RUN_DEFAULT);
		return rc < 0 ? rc : -EIO;
	}
	return 0;
}

void manager_stop(struct manager *m)
{
	uv_async_send(&m->stop_async);
}

void manager_free(struct manager *m)
{
	if (m == NULL)
		return;
	if (!m->stopping) {
		manager_shutdown(m);
		uv_run(&m->loop, UV_RUN_DEFAULT);
	}
	uv_loop_close(&m->loop);
	/* Before the broker: the network layer holds broker objects. */
	netif_free(m->net);
	broker_free(m->broker);
	policy_free(m->policy);
	notify_close(&m->notify);
	if (m->reserve_fd >= 0)
		close(m->reserve_fd);
	admission_fini(&m->adm);
	free(m->scratch);
	free(m);
}

const char *manager_socket_path(const struct manager *m)
{
	return m->sock_path;
}

/* ---------------- stats --------------------------------------------------- */

struct manager_topic_walk {
	struct broker_topic **topics;
	size_t n, cap;
};

static int manager_topic_collect(struct broker_topic *t, void *arg)
{
	struct manager_topic_walk *w = arg;

	if (w->topics != NULL && w->n < w->cap)
		w->topics[w->n] = t;
	w->n++;
	return 0;
}

static uint32_t manager_topic_key(const struct broker_topic *t)
{
	const struct broker_topic_desc *d = broker_topic_desc(t);

	return ((uint32_t)d->domain << 16) | d->topic_id;
}

static int manager_topic_cmp(const void *a, const void *b)
{
	uint32_t ka = manager_topic_key(*(struct broker_topic *const *)a);
	uint32_t kb = manager_topic_key(*(struct broker_topic *const *)b);

	return ka < kb ? -1 : ka > kb;
}

static void manager_counters_set(Sdds__Ctl__Counters *c, const struct broker_counters *bc)
{
	sdds__ctl__counters__init(c);
	c->written = bc->written;
	c->delivered = bc->delivered;
	c->dropped = bc->dropped;
	c->rejected = bc->rejected;
}

static int manager_uid_cmp(const void *a, const void *b)
{
	uint32_t x = (*(Sdds__Ctl__UidAdmission *const *)a)->uid;
	uint32_t y = (*(Sdds__Ctl__UidAdmission *const *)b)->uid;

	return x < y ? -1 : x > y;
}

/* The admission part of Stats: the caps in force, totals, one entry per known uid. */
static int manager_admission_stats(struct manager *m, struct manager_stats *ret)
{
	const struct admission *a = &m->adm;
	Sdds__Ctl__Admission *x = &ret->adm;
	Sdds__Ctl__UidAdmission *us = NULL, **ptrs = NULL;
	const struct admission_uid *r;
	size_t n = 0;

	sdds__ctl__admission__init(x);
	x->max_clients = a->lim.max_sessions;
	x->max_clients_per_uid = a->lim.max_sessions_per_uid;
	x->reserved_clients = a->lim.reserved_sessions;
	x->max_handshakes = a->lim.max_pending;
	x->max_handshakes_per_uid = a->lim.max_pending_per_uid;
	x->pending = a->n_pending;
	x->sessions = a->n_sessions;
	x->dropped = a->dropped;
	x->refused = a->refused;
	x->hello_refused = a->hello_refused;
	ret->adm_mem = NULL;
	if (a->n_uids > 0) {
		ret->adm_mem = calloc(a->n_uids, sizeof(*us) + sizeof(*ptrs));
		if (ret->adm_mem == NULL)
			return -ENOMEM;
		us = ret->adm_mem;
		ptrs = (void *)(us + a->n_uids);
	}
	TAILQ_FOREACH(r, &a->uids, all_link)
	{
		Sdds__Ctl__UidAdmission *u = &us[n];

		sdds__ctl__uid_admission__init(u);
		u->uid = (uint32_t)r->uid;
		u->trusted = r->trusted;
		u->pending = r->n_pending;
		u->sessions = r->n_sessions;
		u->dropped = r->dropped;
		u->refused = r->refused;
		u->hello_refused = r->hello_refused;
		ptrs[n++] = u;
	}
	if (n > 0)
		qsort(ptrs, n, sizeof(*ptrs), manager_uid_cmp);
	x->n_uids = n;
	x->uids = ptrs;
	ret->stats.admission = x;
	return 0;
}

int manager_stats_build(struct manager *m, struct manager_stats *ret)
{
	struct manager_topic_walk walk = {0};
	size_t n_clients = 0, n_eps = 0, n_topics, ci = 0, ei = 0, bytes;
	Sdds__Ctl__ClientInfo *clients, **client_ptrs;
	Sdds__Ctl__TopicInfo *topics, **topic_ptrs;
	Sdds__Ctl__EndpointInfo *eps, **ep_ptrs;
	Sdds__Ctl__Counters *counters;
	struct broker_topic **tarr;
	struct session *s;
	char *mem;

	TAILQ_FOREACH(s, &m->sessions, link)
	{
		if (s->dead || s->state != SESSION_READY)
			continue;
		n_clients++;
		n_eps += s->n_readers + s->n_writers;
	}
	broker_foreach_topic(m->broker, manager_topic_collect, &walk);
	n_topics = walk.n;

	/* One block: structs first (8-aligned), then pointer arrays. */
	bytes = n_clients * sizeof(*clients) + n_topics * sizeof(*topics) + n_eps * sizeof(*eps) +
		(n_clients + n_topics + n_eps) * sizeof(*counters) +
		(n_clients + n_topics + n_eps) * sizeof(void *) + n_topics * sizeof(*tarr) + 16;
	mem = calloc(1, bytes);
	if (mem == NULL)
		return -ENOMEM;
	clients = (void *)mem;
	topics = (void *)(clients + n_clients);
	eps = (void *)(topics + n_topics);
	counters = (void *)(eps + n_eps);
	client_ptrs = (void *)(counters + n_clients + n_topics + n_eps);
	topic_ptrs = (void *)(client_ptrs + n_clients);
	ep_ptrs = (void *)(topic_ptrs + n_topics);
	tarr = (void *)(ep_ptrs + n_eps);

	walk.topics = tarr;
	walk.cap = n_topics;
	walk.n = 0;
	broker_foreach_topic(m->broker, manager_topic_collect, &walk);
	qsort(tarr, n_topics, sizeof(*tarr), manager_topic_cmp);
	for (size_t i = 0; i < n_topics; i++) {
		const struct broker_topic_desc *d = broker_topic_desc(tarr[i]);
		Sdds__Ctl__TopicInfo *ti = &topics[i];

		sdds__ctl__topic_info__init(ti);
		ti->domain = d->domain;
		ti->topic_id = d->topic_id;
		ti->name = (char *)d->name;
		ti->sample_size = d->sample_size;
		ti->readers = broker_topic_readers(tarr[i]);
		ti->writers = broker_topic_writers(tarr[i]);
		ti->counters = &counters[n_clients + i];
		manager_counters_set(ti->counters, broker_topic_counters(tarr[i]));
		topic_ptrs[i] = ti;
	}

	TAILQ_FOREACH(s, &m->sessions, link)
	{
		Sdds__Ctl__ClientInfo *c;
		uint32_t k;

		if (s->dead || s->state != SESSION_READY)
			continue;
		c = &clients[ci];
		sdds__ctl__client_info__init(c);
		c->session_id = s->id;
		c->pid = (int32_t)s->pid;
		c->uid = (uint32_t)s->uid;
		c->gid = (uint32_t)s->gid;
		c->name = s->name;
		c->readers = s->n_readers;
		c->writers = s->n_writers;
		c->counters = &counters[ci];
		manager_counters_set(c->counters, &s->retired);
		c->counters->rejected += s->rejected;
		c->counters->dropped += s->dropped;
		c->identity = (char *)policy_identity(m->policy, &s->peer);
		if (c->identity == NULL)
			c->identity = "";
		c->denied = s->denied;
		client_ptrs[ci++] = c;

		for (k = 0; k < (1u << s->writer_bits); k++) {
			const struct session_writer *sw = &s->writers[k];
			Sdds__Ctl__EndpointInfo *e;
			const struct broker_topic_desc *d;

			if (sw->id == 0)
				continue;
			e = &eps[ei];
			d = broker_topic_desc(broker_writer_topic(sw->w));
			sdds__ctl__endpoint_info__init(e);
			e->id = sw->id;
			e->session_id = s->id;
			e->domain = d->domain;
			e->topic_id = d->topic_id;
			e->reader = false;
			e->reliability = broker_writer_qos(sw->w)->reliability == BROKER_RELIABLE
					     ? SDDS__CTL__RELIABILITY__RELIABLE
					     : SDDS__CTL__RELIABILITY__BEST_EFFORT;
			e->depth = broker_writer_qos(sw->w)->history_depth;
			e->counters = &counters[n_clients + n_topics + ei];
			manager_counters_set(e->counters, broker_writer_counters(sw->w));
			/* A client's written and rejected come from its writers. */
			c->counters->written += e->counters->written;
			c->counters->rejected += e->counters->rejected;
			ep_ptrs[ei++] = e;
		}
		for (k = 0; k < (1u << s->reader_bits); k++) {
			const struct session_reader *sr = &s->readers[k];
			Sdds__Ctl__EndpointInfo *e;
			const struct broker_topic_desc *d;

			if (sr->id == 0)
				continue;
			e = &eps[ei];
			d = broker_topic_desc(broker_reader_topic(sr->r));
			sdds__ctl__endpoint_info__init(e);
			e->id = sr->id;
			e->session_id = s->id;
			e->domain = d->domain;
			e->topic_id = d->topic_id;
			e->reader = true;
			e->reliability = broker_reader_qos(sr->r)->reliability == BROKER_RELIABLE
					     ? SDDS__CTL__RELIABILITY__RELIABLE
					     : SDDS__CTL__RELIABILITY__BEST_EFFORT;
			e->depth = sr->cap;
			e->counters = &counters[n_clients + n_topics + ei];
			manager_counters_set(e->counters, broker_reader_counters(sr->r));
			/* Its delivered and dropped come from its readers. */
			c->counters->delivered += e->counters->delivered;
			c->counters->dropped += e->counters->dropped;
			ep_ptrs[ei++] = e;
		}
	}

	sdds__ctl__stats__init(&ret->stats);
	ret->stats.epoch = m->epoch;
	ret->stats.uptime_ms = (uint64_t)(log_now_ns() - m->start_ns) / 1000000;
	ret->stats.n_clients = ci;
	ret->stats.clients = client_ptrs;
	ret->stats.n_topics = n_topics;
	ret->stats.topics = topic_ptrs;
	ret->stats.n_endpoints = ei;
	ret->stats.endpoints = ep_ptrs;
	ret->stats.sessions_total = m->sessions_total;
	ret->stats.sessions_protocol_errors = m->sessions_protocol_errors;
	ret->stats.sessions_over_limit = m->sessions_over_limit;
	ret->stats.policy_loaded = m->policy != NULL;
	ret->stats.policy_denied = m->policy_denied;
	ret->stats.policy_reloads = m->policy_reloads;
	ret->stats.policy_reload_failures = m->policy_reload_failures;
	for (size_t i = 0; i < POLICY_DENIALS_MAX; i++) {
		const struct policy_denial *d = policy_denials_get(&m->denials, i);
		Sdds__Ctl__Denial *x = &ret->denials[i];

		if (d == NULL)
			break;
		sdds__ctl__denial__init(x);
		x->session_id = d->session_id;
		x->pid = (int32_t)d->pid;
		x->uid = (uint32_t)d->uid;
		x->identity = (char *)d->identity;
		x->reader = d->op == POLICY_READ;
		x->domain = d->domain;
		x->topic_id = d->topic_id;
		x->age_ms = (uint64_t)(log_now_ns() - d->when_ns) / 1000000;
		ret->denial_ptrs[i] = x;
		ret->stats.n_denials = i + 1;
	}
	ret->stats.denials = ret->denial_ptrs;
	ret->net_mem = NULL;
	if (manager_admission_stats(m, ret) < 0) {
		free(mem);
		return -ENOMEM;
	}
	if (m->net != NULL && netstats_build(m->net, &ret->stats.net, &ret->net_mem) < 0) {
		free(ret->adm_mem);
		ret->adm_mem = NULL;
		free(mem);
		return -ENOMEM;
	}
	ret->mem = mem;
	return 0;
}

void manager_stats_free(struct manager_stats *st)
{
	free(st->mem);
	st->mem = NULL;
	free(st->net_mem);
	st->net_mem = NULL;
	free(st->adm_mem);
	st->adm_mem = NULL;
}
