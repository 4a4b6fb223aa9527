/* SPDX-License-Identifier: MIT */
/*
 * log.c - journald-prefixed stderr lines with per call site rate limits.
 *
 * OVERVIEW
 * See log.h. A line is formatted into a stack buffer first and written with
 * one fputs, so that lines of concurrent writers (a test thread and the loop)
 * never interleave inside a line. Lines longer than the buffer are cut and
 * end in "...".
 */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define LOG_LINE_MAX 1024

static atomic_int log_level = LOG_PRIO_INFO;
static FILE *_Atomic log_stream;

static const char *const log_names[] = {
    "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

void log_set_level(int level)
{
	if (level < LOG_PRIO_EMERG)
		level = LOG_PRIO_EMERG;
	if (level > LOG_PRIO_DEBUG)
		level = LOG_PRIO_DEBUG;
	atomic_store_explicit(&log_level, level, memory_order_relaxed);
}

int log_get_level(void)
{
	return atomic_load_explicit(&log_level, memory_order_relaxed);
}

void log_set_stream(FILE *f)
{
	atomic_store(&log_stream, f);
}

int log_level_parse(const char *s, int *ret_level)
{
	if (s == NULL || *s == '\0')
		return -EINVAL;
	if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0') {
		*ret_level = s[0] - '0';
		return 0;
	}
	for (int i = 0; i <= LOG_PRIO_DEBUG; i++) {
		if (strcasecmp(s, log_names[i]) == 0) {
			*ret_level = i;
			return 0;
		}
	}
	if (strcasecmp(s, "error") == 0) {
		*ret_level = LOG_PRIO_ERR;
		return 0;
	}
	if (strcasecmp(s, "warn") == 0) {
		*ret_level = LOG_PRIO_WARNING;
		return 0;
	}
	return -EINVAL;
}

const char *log_level_name(int level)
{
	if (level < LOG_PRIO_EMERG || level > LOG_PRIO_DEBUG)
		return "?";
	return log_names[level];
}

int64_t log_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void log_write(int prio, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void log_write(int prio, const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];
	FILE *f = atomic_load(&log_stream);
	int n;
	size_t len;

	if (f == NULL)
		f = stderr;
	n = snprintf(line, sizeof(line), "<%d>sddsd: ", prio);
	if (n < 0)
		return;
	len = (size_t)n;
	n = vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	if (n < 0)
		return;
	if (len + (size_t)n >= sizeof(line) - 1) {
		/* Cut: keep room for "...\n" and the NUL. */
		len = sizeof(line) - 5;
		memcpy(line + len, "...", 3);
		len += 3;
	} else {
		len += (size_t)n;
	}
	line[len++] = '\n';
	line[len] = '\0';
	fputs(line, f);
	fflush(f);
}

void log_emit(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio > log_get_level())
		return;
	va_start(ap, fmt);
	log_write(prio, fmt, ap);
	va_end(ap);
}

static void log_suppressed_line(int prio, uint64_t n)
{
	log_emit(prio, "suppressed %llu messages", (unsigned long long)n);
}

int log_emit_rl(struct log_ratelimit *rl, int64_t now_ns, int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio > log_get_level())
		return 0;
	if (rl->printed == 0 || now_ns - rl->begin_ns >= LOG_RL_INTERVAL_NS || now_ns < rl->begin_ns) {
		/* A new window: report what the last one swallowed first. */
		if (rl->suppressed > 0)
			log_suppressed_line(prio, rl->suppressed);
		rl->begin_ns = now_ns;
		rl->printed = 0;
		rl->suppressed = 0;
	}
	if (rl->printed >= LOG_RL_BURST) {
		rl->suppressed++;
		return 0;
	}
	rl->printed++;
	va_start(ap, fmt);
	log_write(prio, fmt, ap);
	va_end(ap);
	return 1;
}
