/* SPDX-License-Identifier: MIT */
/*
 * itest.h - harness of the multi-process integration tests: a private sddsd,
 * child processes with piped stdin/stdout, the daemon's stats and its
 * resource use as /proc shows it.
 *
 * OVERVIEW
 * Binaries come from the environment meson sets: $SDDSD (the daemon) and
 * $SDDS_ITEST_PEER (tests/integration/peer.c). Each daemon gets a fresh
 * temp directory holding its socket and config file.
 *
 * Cleanup even on failure: every child is started with PR_SET_PDEATHSIG =
 * SIGKILL (it dies with the test process, whatever kills it), is recorded in
 * a process-wide table, and is killed and reaped by itest_proc_cleanup /
 * itest_daemon_stop, which CMocka teardowns call after a failed assertion.
 * SIGTERM/SIGINT/SIGALRM (meson's timeout) kill every recorded child and
 * remove the recorded temp files before the test process dies.
 *
 * Threads: single-threaded use only (the test's main thread).
 */
#ifndef SDDS_ITEST_H
#define SDDS_ITEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "control.pb-c.h"

#define ITEST_SKIP 77
#define ITEST_LINE_MAX 1024

/* Monotonic clock in ns / ms; sleep in ms. */
int64_t itest_now_ns(void);
int64_t itest_now_ms(void);
void itest_sleep_ms(int ms);

/* 0 when $SDDSD and $SDDS_ITEST_PEER name executables, else ITEST_SKIP. */
int itest_check_env(void);
/* True when this binary was built with AddressSanitizer. */
bool itest_asan(void);

/* ---------------------------------------------------------- daemon */

struct itest_daemon {
	pid_t pid;	  /* 0 when not running */
	char dir[128];	  /* private temp directory */
	char sock[192];	  /* control socket path inside dir */
	char config[192]; /* config file inside dir, "" without one */
};

/*
 * Start $SDDSD --socket DIR/sddsd.sock [-c DIR/sddsd.conf] [extra...] and
 * wait (up to 10 s) until the socket accepts connections. config_text: the
 * config file's content, or NULL for none. extra: NULL-terminated, may be
 * NULL. Returns 0 or -errno (-ECHILD: the daemon exited during start).
 */
int itest_daemon_start(struct itest_daemon *d, const char *config_text, const char *const *extra);
/* Likewise, the daemon started with RLIMIT_NOFILE soft = hard = nofile (0: ours). */
int itest_daemon_start_nofile(struct itest_daemon *d, const char *config_text, const char *const *extra,
			      unsigned long nofile);

/*
 * Stop the daemon with `sig` (SIGTERM: clean shutdown), SIGKILL after
 * timeout_ms, reap it, remove its directory. *ret_status (may be NULL) gets
 * the wait status. Safe to call on a stopped daemon (returns -ESRCH).
 */
int itest_daemon_stop(struct itest_daemon *d, int sig, int timeout_ms, int *ret_status);

/* True while the daemon process exists and has not exited. */
bool itest_daemon_alive(struct itest_daemon *d);

/* Kill with sig and reap without removing the directory. */
int itest_daemon_kill(struct itest_daemon *d, int sig, int *ret_status);

/* ---------------------------------------------------------- processes */

struct itest_proc {
	pid_t pid;  /* 0 when not running or reaped */
	int in_fd;  /* write end of the child's stdin, -1 when closed */
	int out_fd; /* read end of the child's stdout */
	int status; /* wait status once reaped */
	bool reaped;
	size_t len;
	char buf[8192]; /* unread output */
};

/*
 * Start argv[0] with argv (NULL-terminated) and piped stdin/stdout (stderr
 * inherited, so it lands in the test log). Returns 0 or -errno.
 */
int itest_proc_spawn(struct itest_proc *p, const char *const *argv);
/*
 * Likewise, the child running as uid (groups dropped, gid = uid; -1: as we
 * are, which must be root to change) with RLIMIT_NOFILE nofile (0: ours).
 */
int itest_proc_spawn_as(struct itest_proc *p, const char *const *argv, uid_t uid, unsigned long nofile);

/*
 * Start $SDDS_ITEST_PEER role --socket sock args... (args NULL-terminated).
 */
int itest_peer_spawn(struct itest_proc *p, const char *role, const char *sock, const char *const *args);

/*
 * Read one line (without the newline) into line (cap bytes). Returns 0,
 * -ETIMEDOUT, or -EPIPE when the child closed its stdout first.
 */
int itest_proc_readline(struct itest_proc *p, char *line, size_t cap, int timeout_ms);

/*
 * Read lines until one starts with prefix; copies that line into line.
 * Other lines are echoed to stderr (they are the peer's diagnostics).
 * Returns 0, -ETIMEDOUT or -EPIPE.
 */
int itest_proc_expect(struct itest_proc *p, const char *prefix, char *line, size_t cap, int timeout_ms);

/*
 * Read up to the line starting with "done" (copied into line), then reap
 * the child. Returns its wait status (>= 0) or -errno; on a timeout the
 * child is left running (itest_proc_cleanup kills it).
 */
int itest_proc_finish(struct itest_proc *p, char *line, size_t cap, int timeout_ms);

/* Close the child's stdin: the peers' stop signal. */
void itest_proc_close_stdin(struct itest_proc *p);

/* Wait for exit up to timeout_ms. Returns 0 (status in *ret_status) or -ETIMEDOUT. */
int itest_proc_wait(struct itest_proc *p, int timeout_ms, int *ret_status);

/* Send a signal (no reap). */
void itest_proc_kill(struct itest_proc *p, int sig);

/* SIGKILL if still running, reap, close pipes. Accepts a zeroed struct. */
void itest_proc_cleanup(struct itest_proc *p);

/* Zero a struct itest_proc so that cleanup is a no-op. */
void itest_proc_init(struct itest_proc *p);

/* key=value lookup in a line ("done written=5 errors=0"). */
bool itest_kv_u64(const char *line, const char *key, uint64_t *ret);
bool itest_kv_i64(const char *line, const char *key, int64_t *ret);

/* ---------------------------------------------------------- stats */

/*
 * Connect to sock, Hello, StatsQuery. *ret: the reply (status 0 checked;
 * free with sdds__ctl__reply__free_unpacked(*ret, NULL)); *ret_self: the
 * session id of this query's own connection (it appears in the client
 * list). Retries for up to 3 s while the daemon refuses (over a cap).
 * Returns 0 or -errno.
 */
int itest_stats(const char *sock, Sdds__Ctl__Reply **ret, uint32_t *ret_self);

/* The client with this session id in the stats, or NULL. */
const Sdds__Ctl__ClientInfo *itest_stats_client(const Sdds__Ctl__Stats *st, uint32_t session);
/* Number of clients other than `self`. */
size_t itest_stats_other_clients(const Sdds__Ctl__Stats *st, uint32_t self);
/* First endpoint of session with the given role (reader or writer), or NULL. */
const Sdds__Ctl__EndpointInfo *itest_stats_endpoint(const Sdds__Ctl__Stats *st, uint32_t session,
						    bool reader);
/* The topic (domain, id) or NULL. */
const Sdds__Ctl__TopicInfo *itest_stats_topic(const Sdds__Ctl__Stats *st, uint32_t domain, uint32_t id);

/* ---------------------------------------------------------- /proc */

/* Open descriptors of pid (entries of /proc/PID/fd), or -errno. */
int itest_proc_fds(pid_t pid);
/* VmRSS of pid in KiB, or -errno. */
long itest_proc_rss_kb(pid_t pid);
/* Mappings of pid whose path starts with "/memfd:", or -errno. */
int itest_proc_memfd_maps(pid_t pid);

#endif /* SDDS_ITEST_H */
