/* SPDX-License-Identifier: MIT */
/*
 * log.h - the daemon's log: stderr lines with journald priority prefixes.
 *
 * OVERVIEW
 * Only the event-loop layer (manager, session, main) logs; the broker and
 * the ipc primitives return errors and never call this. Every line is
 * "<P>sddsd: text\n" where P is the syslog priority (3 err .. 7 debug), which
 * journald turns into the entry's priority when stderr is a stream.
 *
 * Rate limiting is per call site: log_rl() keeps a static window in the
 * caller, lets LOG_RL_BURST lines through per LOG_RL_INTERVAL_NS and swallows
 * the rest; the first line after the window closes is preceded by one
 * "suppressed K messages" line. A hostile client can therefore not flood the
 * journal through a logged error path.
 *
 * Threads: the level and the stream are process globals set at start-up;
 * each line is written with one fputs on a locked stdio stream. Rate limit
 * windows are not locked: they belong to call sites that run on the loop
 * thread only.
 */
#ifndef SDDS_DAEMON_LOG_H
#define SDDS_DAEMON_LOG_H

#include <stdint.h>
#include <stdio.h>

enum log_prio {
	LOG_PRIO_EMERG = 0,
	LOG_PRIO_ALERT = 1,
	LOG_PRIO_CRIT = 2,
	LOG_PRIO_ERR = 3,
	LOG_PRIO_WARNING = 4,
	LOG_PRIO_NOTICE = 5,
	LOG_PRIO_INFO = 6,
	LOG_PRIO_DEBUG = 7,
};

#define LOG_RL_INTERVAL_NS (5LL * 1000 * 1000 * 1000)
#define LOG_RL_BURST 10u

/* Per call site window; zero-initialised static storage is a valid start. */
struct log_ratelimit {
	int64_t begin_ns;    /* start of the current window (monotonic) */
	uint32_t printed;    /* lines let through in this window */
	uint64_t suppressed; /* lines swallowed since the last report */
};

/* Lines with a priority above level are dropped. Default LOG_PRIO_INFO. */
void log_set_level(int level);
int log_get_level(void);

/*
 * Where lines go (default stderr). The stream stays owned by the caller and
 * must outlive every later log call; NULL restores stderr. For tests.
 */
void log_set_stream(FILE *f);

/*
 * Parse a level: a number 0..7 or a name (emerg, alert, crit, err/error,
 * warning/warn, notice, info, debug). Returns 0 and *ret_level, or -EINVAL.
 */
int log_level_parse(const char *s, int *ret_level);
/* Name of a level ("info"), or "?" out of range. Static storage. */
const char *log_level_name(int level);

/* Write one line (a newline is added). */
void log_emit(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Like log_emit, through the rate limit rl at now_ns (monotonic). Returns 1
 * when the line was written, 0 when it was suppressed or filtered.
 */
int log_emit_rl(struct log_ratelimit *rl, int64_t now_ns, int prio, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Monotonic clock, nanoseconds. */
int64_t log_now_ns(void);

#define log_err(...) log_emit(LOG_PRIO_ERR, __VA_ARGS__)
#define log_warning(...) log_emit(LOG_PRIO_WARNING, __VA_ARGS__)
#define log_notice(...) log_emit(LOG_PRIO_NOTICE, __VA_ARGS__)
#define log_info(...) log_emit(LOG_PRIO_INFO, __VA_ARGS__)
#define log_debug(...) log_emit(LOG_PRIO_DEBUG, __VA_ARGS__)

/* Rate-limited line; the window is a static of this call site. */
#define log_rl(prio, ...)                                                                                    \
	do {                                                                                                 \
		static struct log_ratelimit log_rl_site_;                                                    \
		if ((prio) <= log_get_level())                                                               \
			log_emit_rl(&log_rl_site_, log_now_ns(), (prio), __VA_ARGS__);                       \
	} while (0)

#endif /* SDDS_DAEMON_LOG_H */
