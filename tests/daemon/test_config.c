/* SPDX-License-Identifier: MIT */
/*
 * test_config.c - the config parser: defaults, every key, every error with
 * its line number, overrides, files, printing round trip.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "admission.h"
#include "config.h"
#include "log.h"

static int parse(struct sddsd_config *cfg, const char *text, struct config_error *err)
{
	return config_parse_text(cfg, "t.conf", text, strlen(text), err);
}

static void test_defaults(void **state)
{
	struct sddsd_config cfg;
	struct config_error err;

	(void)state;
	config_init(&cfg);
	assert_string_equal(cfg.socket, "");
	assert_false(cfg.poll);
	assert_int_equal(cfg.spin_ns, 20000);
	assert_int_equal(cfg.poll_turn_ns, 100000);
	assert_int_equal(cfg.poll_yield_ns, 1000000);
	assert_int_equal(cfg.max_clients, 256);
	assert_int_equal(cfg.max_readers_per_client, 64);
	assert_int_equal(cfg.max_writers_per_client, 64);
	assert_int_equal(cfg.max_topics_per_client, 64);
	assert_int_equal(cfg.request_ring_bytes, 256 * 1024);
	assert_int_equal(cfg.arena_bytes, 4 * 1024 * 1024);
	assert_int_equal(cfg.max_sample, 4096);
	assert_int_equal(cfg.max_requests_per_turn, 1024);
	assert_int_equal(cfg.log_level, LOG_PRIO_INFO);
	assert_int_equal(config_validate(&cfg, "x", &err), 0);
	assert_int_equal(config_max_record(&cfg), 16 + 4096);
	/* An empty text changes nothing. */
	assert_int_equal(parse(&cfg, "", &err), 0);
	assert_int_equal(cfg.max_clients, 256);
}

static void test_every_key(void **state)
{
	struct sddsd_config cfg;
	struct config_error err = {{0}};
	const char *text = "# sddsd test config\n"
			   "\n"
			   "socket = /tmp/x/sddsd.sock\n"
			   "poll = yes\n"
			   "spin_ns = 5000\n"
			   "poll_turn_ns = 20000\n"
			   "poll_yield_ns = 0\n"
			   "max_clients = 7\n"
			   "max_readers_per_client = 3\n"
			   "max_writers_per_client = 4\n"
			   "max_topics_per_client = 5\n"
			   "request_ring_bytes = 64K\n"
			   "arena_bytes = 2M\n"
			   "max_sample = 100\n"
			   "max_requests_per_turn = 33\n"
			   "log_level = debug\n";

	(void)state;
	config_init(&cfg);
	assert_int_equal(parse(&cfg, text, &err), 0);
	assert_string_equal(cfg.socket, "/tmp/x/sddsd.sock");
	assert_true(cfg.poll);
	assert_int_equal(cfg.spin_ns, 5000);
	assert_int_equal(cfg.poll_turn_ns, 20000);
	assert_int_equal(cfg.poll_yield_ns, 0);
	assert_int_equal(cfg.max_clients, 7);
	assert_int_equal(cfg.max_readers_per_client, 3);
	assert_int_equal(cfg.max_writers_per_client, 4);
	assert_int_equal(cfg.max_topics_per_client, 5);
	assert_int_equal(cfg.request_ring_bytes, 65536);
	assert_int_equal(cfg.arena_bytes, 2 * 1024 * 1024);
	assert_int_equal(cfg.max_sample, 100);
	assert_int_equal(cfg.max_requests_per_turn, 33);
	assert_int_equal(cfg.log_level, LOG_PRIO_DEBUG);
	assert_int_equal(config_max_record(&cfg), 128); /* 16 + 100 rounded up to 16 */
}

static void test_syntax_variants(void **state)
{
	struct sddsd_config cfg;
	struct config_error err = {{0}};

	(void)state;
	config_init(&cfg);
	/* Blanks, tabs, CRLF, trailing comments, '#' inside a path, G suffix. */
	assert_int_equal(parse(&cfg,
			       "   # indented comment\r\n"
			       "\tpoll\t=\tOn   # trailing comment\r\n"
			       "socket=/tmp/a#b/s.sock\n"
			       "arena_bytes = 1g\n"
			       "log_level = 3\n"
			       "   \n"
			       "max_clients = 65536",
			       &err),
			 0);
	assert_true(cfg.poll);
	assert_string_equal(cfg.socket, "/tmp/a#b/s.sock");
	assert_int_equal(cfg.arena_bytes, 1ull << 30);
	assert_int_equal(cfg.log_level, 3);
	assert_int_equal(cfg.max_clients, 65536);

	for (const char *const *b = (const char *const[]){"true", "TRUE", "yes", "on", "1", NULL}; *b; b++) {
		char line[64];

		config_init(&cfg);
		snprintf(line, sizeof(line), "poll = %s", *b);
		assert_int_equal(parse(&cfg, line, &err), 0);
		assert_true(cfg.poll);
	}
	for (const char *const *b = (const char *const[]){"false", "No", "off", "0", NULL}; *b; b++) {
		char line[64];

		config_init(&cfg);
		cfg.poll = true;
		snprintf(line, sizeof(line), "poll = %s", *b);
		assert_int_equal(parse(&cfg, line, &err), 0);
		assert_false(cfg.poll);
	}
	for (int lv = 0; lv <= 7; lv++) {
		char line[64];

		config_init(&cfg);
		snprintf(line, sizeof(line), "log_level = %s", log_level_name(lv));
		assert_int_equal(parse(&cfg, line, &err), 0);
		assert_int_equal(cfg.log_level, lv);
	}
	config_init(&cfg);
	assert_int_equal(parse(&cfg, "log_level = warn", &err), 0);
	assert_int_equal(cfg.log_level, LOG_PRIO_WARNING);
}

struct bad_case {
	const char *text;
	const char *message; /* exact expected message */
};

static void test_errors_with_line(void **state)
{
	static const struct bad_case cases[] = {
	    {"\n\nfoo = 1\n", "t.conf:3: unknown key 'foo'"},
	    {"poll = maybe", "t.conf:1: poll: 'maybe' is not a boolean (true/false, yes/no, on/off, 1/0)"},
	    {"# c\nmax_clients = 0", "t.conf:2: max_clients: '0' is out of range 1..65536"},
	    {"max_clients = 65537", "t.conf:1: max_clients: '65537' is out of range 1..65536"},
	    {"max_clients = -1", "t.conf:1: max_clients: '-1' is not a non-negative decimal number"},
	    {"max_clients = 12abc", "t.conf:1: max_clients: '12abc' is not a non-negative decimal number"},
	    {"max_clients = 99999999999999999999999",
	     "t.conf:1: max_clients: '99999999999999999999999' is out of range 1..65536"},
	    {"max_readers_per_client = 4097",
	     "t.conf:1: max_readers_per_client: '4097' is out of range 0..4096"},
	    {"max_writers_per_client = x",
	     "t.conf:1: max_writers_per_client: 'x' is not a non-negative decimal number"},
	    {"max_topics_per_client = 1.5",
	     "t.conf:1: max_topics_per_client: '1.5' is not a non-negative decimal number"},
	    {"request_ring_bytes = 5000", "t.conf:1: request_ring_bytes: 5000 is not a power of two"},
	    {"request_ring_bytes = 2K",
	     "t.conf:1: request_ring_bytes: '2K' is out of range 4096..1073741824"},
	    {"request_ring_bytes = K",
	     "t.conf:1: request_ring_bytes: 'K' is not a size (a number with an optional K, M or G)"},
	    {"arena_bytes = 1000", "t.conf:1: arena_bytes: 1000 is not a multiple of 4096"},
	    {"arena_bytes = 5G", "t.conf:1: arena_bytes: '5G' is out of range 0..4294967296"},
	    {"max_sample = 0", "t.conf:1: max_sample: '0' is out of range 1..1048576"},
	    {"max_sample = 2M", "t.conf:1: max_sample: '2M' is out of range 1..1048576"},
	    {"max_requests_per_turn = 0", "t.conf:1: max_requests_per_turn: '0' is out of range 1..1048576"},
	    {"spin_ns = 10000000001", "t.conf:1: spin_ns: '10000000001' is out of range 0..10000000000"},
	    {"spin_ns = 1K", "t.conf:1: spin_ns: '1K' is not a non-negative decimal number"},
	    /* The polling loop must give control and timers a turn within 100 ms. */
	    {"poll_turn_ns = 100000001", "t.conf:1: poll_turn_ns: '100000001' is out of range 0..100000000"},
	    {"poll_yield_ns = -1", "t.conf:1: poll_yield_ns: '-1' is not a non-negative decimal number"},
	    {"log_level = loud",
	     "t.conf:1: log_level: 'loud' is not a log level (0..7 or err, warning, notice, info, debug)"},
	    {"log_level = 8",
	     "t.conf:1: log_level: '8' is not a log level (0..7 or err, warning, notice, info, debug)"},
	    {"just some words", "t.conf:1: expected 'key = value', got 'just some words'"},
	    {"\n = 5", "t.conf:2: missing key before '='"},
	    {"socket =", "t.conf:1: socket: empty value"},
	    {"socket = # only a comment", "t.conf:1: socket: empty value"},
	    {"poll = true\npoll = false", "t.conf:2: duplicate key 'poll' (first set on line 1)"},
	    {"Poll = true", "t.conf:1: unknown key 'Poll'"},
	    /* Cross-key check: the request ring must hold 4 records of max_sample. */
	    {"max_sample = 4K\nrequest_ring_bytes = 16K",
	     "t.conf: request_ring_bytes (16384) must be at least 4 records of max_sample 4096 (4 * 4112 = "
	     "16448 bytes)"},
	    /* Admission caps per uid: ranges, "auto", and the room they must leave (FILE:LINE of the last
	       key). */
	    {"max_clients_per_uid = 0", "t.conf:1: max_clients_per_uid: '0' is out of range 1..65536"},
	    {"max_clients_per_uid = many",
	     "t.conf:1: max_clients_per_uid: 'many' is not a non-negative decimal number or 'auto'"},
	    {"max_handshakes = auto",
	     "t.conf:1: max_handshakes: 'auto' is not a non-negative decimal number"},
	    {"max_handshakes = 1", "t.conf:1: max_handshakes: '1' is out of range 2..65536"},
	    {"max_clients = 100\n# one uid may not take all\nmax_clients_per_uid = 100",
	     "t.conf:3: max_clients_per_uid (100) + reserved_clients (12) must be below max_clients (100), "
	     "so "
	     "that one uid's sessions leave room for the others"},
	    {"reserved_clients = 10\nmax_clients = 10",
	     "t.conf:2: reserved_clients (10) must be below max_clients (10)"},
	    {"max_clients_per_uid = 230\npoll = on", "t.conf:1: max_clients_per_uid (230) + reserved_clients "
						     "(32) must be below max_clients (256), so "
						     "that one uid's sessions leave room for the others"},
	    {"max_handshakes_per_uid = 64\nlog_level = info",
	     "t.conf:1: max_handshakes_per_uid (64) must be below max_handshakes (64), so that one uid's "
	     "connections leave room for the others"},
	};
	struct sddsd_config cfg, before;
	struct config_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		config_init(&cfg);
		before = cfg;
		memset(&err, 0, sizeof(err));
		assert_int_equal(parse(&cfg, cases[i].text, &err), -EINVAL);
		if (strcmp(err.msg, cases[i].message) != 0)
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, err.msg, cases[i].message);
		/* Out-parameter written only on success. */
		assert_memory_equal(&cfg, &before, sizeof(cfg));
	}
}

/* "auto" derives the per-uid session cap and the reserve from max_clients. */
static void test_admission_keys(void **state)
{
	struct admission_limits lim;
	struct sddsd_config cfg;
	struct config_error err;

	(void)state;
	config_init(&cfg);
	config_admission_limits(&cfg, &lim);
	assert_int_equal(lim.max_sessions, 256);
	assert_int_equal(lim.max_sessions_per_uid, 64);
	assert_int_equal(lim.reserved_sessions, 32);
	assert_int_equal(lim.max_pending, 64);
	assert_int_equal(lim.max_pending_per_uid, 8);
	/* Small max_clients (tests use 2..9) stay valid with the automatic values. */
	for (unsigned n = 1; n <= 9; n++) {
		char text[64];

		config_init(&cfg);
		snprintf(text, sizeof(text), "max_clients = %u", n);
		assert_int_equal(parse(&cfg, text, &err), 0);
		config_admission_limits(&cfg, &lim);
		assert_true(lim.max_sessions_per_uid >= 1);
		assert_true(n == 1 || lim.max_sessions_per_uid + lim.reserved_sessions < n);
	}
	config_init(&cfg);
	assert_int_equal(parse(&cfg,
			       "max_clients = 40\nmax_clients_per_uid = 10\nreserved_clients = auto\n"
			       "max_handshakes = 100\nmax_handshakes_per_uid = 99",
			       &err),
			 0);
	assert_int_equal(cfg.reserved_clients, CONFIG_AUTO);
	config_admission_limits(&cfg, &lim);
	assert_int_equal(lim.max_sessions_per_uid, 10);
	assert_int_equal(lim.reserved_sessions, 5);
	assert_int_equal(lim.max_pending, 100);
	assert_int_equal(lim.max_pending_per_uid, 99);
	/* config_set (command-line style) then config_validate: origin only, no line. */
	config_init(&cfg);
	assert_int_equal(config_set(&cfg, "--x", "max_handshakes", "8", &err), 0);
	assert_int_equal(config_validate(&cfg, "sddsd", &err), -EINVAL);
	assert_string_equal(err.msg, "sddsd: max_handshakes_per_uid (8) must be below max_handshakes (8), so "
				     "that one uid's connections leave room for the others");
}

static void test_error_leaves_config(void **state)
{
	struct sddsd_config cfg, before;
	struct config_error err;

	(void)state;
	config_init(&cfg);
	before = cfg;
	/* Valid lines before the bad one must not be applied either. */
	assert_int_equal(parse(&cfg, "poll = true\nmax_clients = 3\nnope = 1\n", &err), -EINVAL);
	assert_string_equal(err.msg, "t.conf:3: unknown key 'nope'");
	assert_memory_equal(&cfg, &before, sizeof(cfg));
}

static void test_hostile_text(void **state)
{
	struct sddsd_config cfg;
	struct config_error err;
	char longpath[300];
	char text[400];
	char *big;

	(void)state;
	config_init(&cfg);
	/* A NUL byte inside the text. */
	assert_int_equal(config_parse_text(&cfg, "t.conf", "poll = true\nmax\0_clients = 1\n", 29, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "t.conf:2: NUL byte in line");
	/* A socket path that does not fit in sockaddr_un. */
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	snprintf(text, sizeof(text), "socket = /%.200s", longpath);
	assert_int_equal(parse(&cfg, text, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "t.conf:1: socket: path is 201 bytes, at most 107 fit in a socket address");
	/* A value that a file would read as a comment when printed back is refused. */
	assert_int_equal(parse(&cfg, "socket =#x", &err), -EINVAL);
	assert_string_equal(err.msg,
			    "t.conf:1: socket: '#' at the start or after a blank reads as a comment");
	assert_int_equal(config_set(&cfg, "--socket", "socket", "/tmp/a #b", &err), -EINVAL);
	/* A path with control characters is refused. */
	assert_int_equal(parse(&cfg, "socket = /tmp/a\tb", &err), -EINVAL);
	assert_string_equal(err.msg, "t.conf:1: socket: control character in value");
	assert_int_equal(config_set(&cfg, "--socket", "socket", "/tmp/a\nb", &err), -EINVAL);
	assert_string_equal(err.msg, "--socket: socket: control character in value");
	/* Control characters and overlong keys are not echoed raw. */
	snprintf(text, sizeof(text), "\x1b[31m%.100s = 1", longpath);
	assert_int_equal(parse(&cfg, text, &err), -EINVAL);
	assert_null(strchr(err.msg, '\x1b'));
	assert_true(strlen(err.msg) < 120);
	assert_non_null(strstr(err.msg, "..."));
	/* Over the size limit. */
	big = calloc(1, CONFIG_FILE_MAX + 2);
	assert_non_null(big);
	memset(big, '\n', CONFIG_FILE_MAX + 1);
	assert_int_equal(config_parse_text(&cfg, "t.conf", big, CONFIG_FILE_MAX + 1, &err), -EFBIG);
	/* Exactly at the limit, blank lines only: fine. */
	assert_int_equal(config_parse_text(&cfg, "t.conf", big, CONFIG_FILE_MAX, &err), 0);
	free(big);
	/* The last line without a newline counts; a longer text keeps counting lines. */
	assert_int_equal(parse(&cfg, "\n\n\n\n\n\n\n\n\nbad", &err), -EINVAL);
	assert_string_equal(err.msg, "t.conf:10: expected 'key = value', got 'bad'");
}

static void test_set_and_validate(void **state)
{
	struct sddsd_config cfg, before;
	struct config_error err;

	(void)state;
	config_init(&cfg);
	assert_int_equal(config_set(&cfg, "--socket", "socket", "/tmp/y.sock", &err), 0);
	assert_string_equal(cfg.socket, "/tmp/y.sock");
	assert_int_equal(config_set(&cfg, "--poll", "poll", "true", &err), 0);
	assert_true(cfg.poll);
	assert_int_equal(config_set(&cfg, "--log-level", "log_level", "err", &err), 0);
	assert_int_equal(cfg.log_level, LOG_PRIO_ERR);
	before = cfg;
	assert_int_equal(config_set(&cfg, "--log-level", "log_level", "99", &err), -EINVAL);
	assert_string_equal(
	    err.msg,
	    "--log-level: log_level: '99' is not a log level (0..7 or err, warning, notice, info, debug)");
	assert_int_equal(config_set(&cfg, "x", "no_such_key", "1", &err), -ENOENT);
	assert_string_equal(err.msg, "x: unknown key 'no_such_key'");
	assert_memory_equal(&cfg, &before, sizeof(cfg));

	/* Overrides can break a cross-key rule; validate catches it. */
	assert_int_equal(config_set(&cfg, "o", "request_ring_bytes", "4096", &err), 0);
	assert_int_equal(config_validate(&cfg, "sddsd", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "sddsd: request_ring_bytes (4096) must be at least"));
}

static void test_file(void **state)
{
	char path[] = "/tmp/sddsd-test-config.XXXXXX";
	struct sddsd_config cfg;
	struct config_error err;
	int fd;

	(void)state;
	config_init(&cfg);
	assert_int_equal(config_parse_file(&cfg, "/nonexistent/sddsd.conf", &err), -ENOENT);
	assert_string_equal(err.msg, "/nonexistent/sddsd.conf: cannot open: No such file or directory");

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "max_clients = 9\nbad line\n", 25), 25);
	close(fd);
	assert_int_equal(config_parse_file(&cfg, path, &err), -EINVAL);
	{
		char want[128];

		snprintf(want, sizeof(want), "%s:2: expected 'key = value', got 'bad line'", path);
		assert_string_equal(err.msg, want);
	}
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "max_clients = 9\n", 16), 16);
	close(fd);
	assert_int_equal(config_parse_file(&cfg, path, &err), 0);
	assert_int_equal(cfg.max_clients, 9);
	unlink(path);
	/* A directory cannot be read as a config. */
	assert_true(config_parse_file(&cfg, "/tmp", &err) < 0);
}

static void test_print_round_trip(void **state)
{
	struct sddsd_config cfg, back;
	struct config_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	config_init(&cfg);
	assert_int_equal(
	    parse(&cfg,
		  "socket = /run/x.sock\npoll = on\nspin_ns = 0\nmax_clients = 2\narena_bytes = 64K\n"
		  "log_level = notice\nmax_sample = 64\nrequest_ring_bytes = 4K\n",
		  &err),
	    0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	config_print(&cfg, f);
	fclose(f);
	assert_non_null(strstr(buf, "poll = true\n"));
	assert_non_null(strstr(buf, "log_level = notice\n"));
	config_init(&back);
	assert_int_equal(config_parse_text(&back, "printed", buf, len, &err), 0);
	/* The printed file sets (nearly) every key: compare the values, not the given mask. */
	back.given = cfg.given;
	assert_memory_equal(&cfg, &back, sizeof(cfg));
	free(buf);

	/* The default (empty) socket prints as a comment, so the output still parses. */
	config_init(&cfg);
	buf = NULL;
	f = open_memstream(&buf, &len);
	config_print(&cfg, f);
	fclose(f);
	assert_non_null(strstr(buf, "# socket = (built-in default)\n"));
	config_init(&back);
	assert_int_equal(config_parse_text(&back, "printed", buf, len, &err), 0);
	/* The printed file sets (nearly) every key: compare the values, not the given mask. */
	back.given = cfg.given;
	assert_memory_equal(&cfg, &back, sizeof(cfg));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_every_key),
	    cmocka_unit_test(test_syntax_variants),
	    cmocka_unit_test(test_errors_with_line),
	    cmocka_unit_test(test_error_leaves_config),
	    cmocka_unit_test(test_admission_keys),
	    cmocka_unit_test(test_hostile_text),
	    cmocka_unit_test(test_set_and_validate),
	    cmocka_unit_test(test_file),
	    cmocka_unit_test(test_print_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
