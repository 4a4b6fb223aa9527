/* SPDX-License-Identifier: MIT */
/*
 * netns_rig.h - two network namespaces joined by a veth pair (fe80::a on
 * side 0, fe80::b on side 1, DAD off, addresses `nodad`), a temporary
 * directory for the configs and sockets, one sddsd per side started from
 * DIR/a.conf or DIR/b.conf, helper processes inside a namespace, nftables
 * loss. The rig of the netns tests (tests/common/netns_harness.h adds
 * their CMocka and JSON helpers) and of `sdds-bench net`.
 *
 * OVERVIEW
 * One pair per process, in the global `netns`. netns_pair_setup()
 * registers netns_cleanup() with atexit() and for SIGTERM/SIGINT (meson's
 * timeout), so the daemons, the namespaces (and with them the veth pair and
 * the nftables rules) and the directory are removed however the process
 * ends. Every process started here is the caller's to reap (netns_wait),
 * except the daemons, which netns_daemon_stop()/netns_cleanup() reap. Paths
 * and arguments are the caller's strings; nothing is kept past the call.
 * Side 0 is daemon "a", side 1 daemon "b": DIR/a.conf, DIR/a.sock and so on.
 * Nothing here needs root to build, only to run.
 */
#ifndef SDDS_TOOLS_NETNS_RIG_H
#define SDDS_TOOLS_NETNS_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct netns_pair {
	char ns[2][32];	 /* namespace names */
	char dev[2][16]; /* the veth end inside each namespace */
	char dir[64];	 /* temporary directory; "" when none */
	pid_t daemon[2]; /* -1 when not running */
	bool made[2];	 /* namespace created (to delete) */
	int cpu[2];	 /* the CPU each side's daemon is pinned to; -1 (the default): none */
	int start_ms;	 /* how long netns_daemon_start waits for the socket; 0 (the default): 5000 */
	char why[256];	 /* why netns_pair_setup or netns_daemon_start failed last */
};

extern struct netns_pair netns;

/* A shell command; returns its exit status (or -1). */
int netns_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * 0 when this machine can run the tests (root, `ip netns add` works);
 * otherwise prints "PROG: REASON: skipped" to stderr and returns 77.
 */
int netns_available(const char *prog);

/* netns_available(), and nft in PATH (the loss tests drop with it); else 77. */
int netns_available_nft(const char *prog);

/*
 * Creates the directory /tmp/sdds<tag>.XXXXXX, the namespaces sdds<tag>A<pid>
 * and sdds<tag>B<pid>, the veth pair with dev_a in A and dev_b in B, the
 * addresses and links up. 0 or -1 (what was made is removed by cleanup).
 */
int netns_pair_setup(const char *tag, const char *dev_a, const char *dev_b);

/* Stops the daemons, deletes the namespaces and the directory. Idempotent. */
void netns_cleanup(void);

/* Moves the calling process (or thread) into side's namespace (setns). 0 or -errno. */
int netns_enter(int side);

/* DIR/name into out (cap bytes). */
void netns_path(const char *name, char *out, size_t cap);

/* Writes text to DIR/name. 0 or -1. */
int netns_write(const char *name, const char *text);

/*
 * Writes side's node config DIR/a.xml (b.xml) with node_xml and its daemon
 * config DIR/a.conf (b.conf): socket DIR/a.sock, that node config,
 * log_level notice, then the lines of extra (may be NULL). 0 or -1.
 */
int netns_write_configs(int side, const char *node_xml, const char *extra);

/*
 * Starts sddsd (binary sddsd) in side's namespace with DIR/a.conf (b.conf),
 * pinned to netns.cpu[side] when that is >= 0, and waits up to 5 s (or
 * netns.start_ms) for its socket DIR/a.sock (b.sock). Its stdout and stderr go to log
 * (DIR-relative name) or, when log is NULL, to ours. 0 or -1 with a reason
 * in netns.why (the last line of log when the daemon exited).
 */
int netns_daemon_start(int side, const char *sddsd, const char *log);

/* netns_daemon_start() of side A then side B, logs to ours. 0 or -1. */
int netns_daemons_start(const char *sddsd);

/* SIGTERM, then SIGKILL after 2 s; reaped. Nothing when not running. */
void netns_daemon_stop(int side);

/*
 * Runs bin with the arguments up to the first NULL (at most 8) in side's
 * namespace, its stdout to a pipe; with want_ready, waits for its first
 * line to start with "ready". The pid or -1.
 */
pid_t netns_helper(int side, bool want_ready, const char *bin, ...) __attribute__((sentinel));

/* Waits for pid: its exit status, 128 + signal when killed, -1 on error. */
int netns_wait(pid_t pid);

/* `sddsctl --json --socket DIR/x.sock CMD` in side's namespace into buf. 0 or -1. */
int netns_ctl_json(int side, const char *sddsctl, const char *cmd, char *buf, size_t cap);

/* CLOCK_MONOTONIC in milliseconds. */
int64_t netns_now_ms(void);

/*
 * Drops percent % (100: all) of the UDP datagrams to port dport on input in
 * side's namespace, at random (nftables numgen), counting them in the
 * table inet t<dport>; the other side's link then segments GSO messages
 * before the veth, so the rule sees datagrams as a wire carries them.
 * false when nft does not work.
 */
bool netns_drop(int side, unsigned dport, unsigned percent);

/* Removes the drop rule of netns_drop (and its count); the veth carries GSO messages whole again. */
void netns_undrop(int side, unsigned dport);

/* Datagrams the rule of netns_drop dropped so far (0 without one). */
uint64_t netns_dropped(int side, unsigned dport);

/* The sum of the packet counters of nftables table ("inet t23234", "bridge x") in side's namespace. */
uint64_t netns_nft_counted(int side, const char *table);

#endif /* SDDS_TOOLS_NETNS_RIG_H */
