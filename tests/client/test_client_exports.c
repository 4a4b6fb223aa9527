/* SPDX-License-Identifier: MIT */
/*
 * test_client_exports.c - libsddsclient.so (or libsddsmono.so, the same
 * API) exports the public API and nothing else (the ipc code, and in
 * libsddsmono the broker core and the network layer, stay hidden), every
 * symbol carries the LIBSDDSCLIENT_0 version, and the library has the
 * soname of its file name (libNAME.so.0). Reads `nm -D --defined-only` and `objdump -p`; skips (77) when
 * binutils are missing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static const char *lib_path;

/* Every name of include/sdds/sdds.h and dcps.h that is a function. */
static const char *const expected[] = {
    "sdds_client_options_init",
    "sdds_client_new",
    "sdds_client_free",
    "sdds_client_session_id",
    "sdds_client_connected",
    "sdds_client_reconnects",
    "sdds_topic_new",
    "sdds_topic_free",
    "sdds_topic_sample_size",
    "sdds_qos_init",
    "sdds_writer_new",
    "sdds_writer_free",
    "sdds_writer_write",
    "sdds_reader_new",
    "sdds_reader_free",
    "sdds_reader_take",
    "sdds_reader_take_many",
    "sdds_reader_set_listener",
    "sdds_reader_lost",
    "sdds_strerror",
    "Log_setLvl",
    "sdds_dcps_log",
    "NodeConfig_getNodeID",
    "DDS_DataReader_set_listener",
    "sdds_dcps_init",
    "sdds_dcps_client",
    "sdds_dcps_topic",
    "sdds_dcps_writer",
    "sdds_dcps_reader",
    "sdds_dcps_write",
    "sdds_dcps_take",
    "sdds_dcps_retcode",
};
#define N_EXPECTED (sizeof(expected) / sizeof(expected[0]))

static bool public_prefix(const char *name)
{
	static const char *const prefixes[] = {"sdds_", "DDS_"};
	static const char *const exact[] = {"Log_setLvl", "NodeConfig_getNodeID"};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(name, exact[i]) == 0)
			return true;
	return false;
}

static void test_exports(void **state)
{
	char cmd[4096], line[1024];
	bool seen[N_EXPECTED] = {false};
	unsigned n_syms = 0, bad = 0;
	FILE *p;

	(void)state;
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s'", lib_path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char addr[64], type[8], name[512], *at;

		if (sscanf(line, "%63s %7s %511s", addr, type, name) != 3)
			continue;
		/* The version node itself ("A LIBSDDSCLIENT_0"). */
		if (strcmp(type, "A") == 0 && strcmp(name, "LIBSDDSCLIENT_0") == 0)
			continue;
		n_syms++;
		at = strstr(name, "@@LIBSDDSCLIENT_0");
		if (!at) {
			print_error("unversioned export: %s\n", name);
			bad++;
			continue;
		}
		*at = 0;
		if (!public_prefix(name)) {
			print_error("private symbol exported: %s\n", name);
			bad++;
		}
		if (strcmp(type, "T") != 0) {
			print_error("export is not a function: %s (%s)\n", name, type);
			bad++;
		}
		for (size_t i = 0; i < N_EXPECTED; i++)
			if (strcmp(name, expected[i]) == 0)
				seen[i] = true;
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(bad, 0);
	for (size_t i = 0; i < N_EXPECTED; i++)
		if (!seen[i])
			fail_msg("public function not exported: %s", expected[i]);
	assert_int_equal(n_syms, N_EXPECTED);
}

static void test_soname(void **state)
{
	char cmd[4096], line[1024], want[256];
	const char *base = strrchr(lib_path, '/') != NULL ? strrchr(lib_path, '/') + 1 : lib_path;
	bool soname = false;
	FILE *p;

	(void)state;
	/* libsddsclient.so... -> libsddsclient.so.0 */
	snprintf(want, sizeof(want), "%.*s.so.0", (int)strcspn(base, "."), base);
	snprintf(cmd, sizeof(cmd), "objdump -p '%s'", lib_path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (strstr(line, "SONAME") && strstr(line, want))
			soname = true;
	assert_int_equal(pclose(p), 0);
	assert_true(soname);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exports),
	    cmocka_unit_test(test_soname),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s LIBSDDSCLIENT.so\n", argv[0]);
		return 2;
	}
	lib_path = argv[1];
	if (access(lib_path, R_OK) != 0)
		return 1;
	if (system("nm --version >/dev/null 2>&1") != 0 || system("objdump --version >/dev/null 2>&1") != 0)
		return 77;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
