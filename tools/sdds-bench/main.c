/* SPDX-License-Identifier: MIT */
/*
 * main.c - sdds-bench: the benchmarks of sddsd, one subcommand each.
 *
 * OVERVIEW
 * `sdds-bench local|net|scale|iceoryx|callgrind [options]` runs one
 * benchmark (local.c, net.c, ...). `sdds-bench report` execs report.py,
 * which runs every benchmark for one Markdown report. The exit status is the benchmark's: 0, 1 when a
 * run failed, 2 on a usage error.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callgrind.h"
#include "iceoryx.h"
#include "local.h"
#include "net.h"
#include "scale.h"

#ifndef SDDS_BENCH_REPORT_PY
#define SDDS_BENCH_REPORT_PY "report.py"
#endif

static const struct main_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
} main_cmds[] = {
    {"local", local_main},	   {"net", net_main}, {"scale", scale_main}, {"iceoryx", iceoryx_main},
    {"callgrind", callgrind_main},
};

/* `sdds-bench report ARGS...`: python3 report.py --bench SELF ARGS...; returns only on failure. */
static int main_report(int argc, char **argv)
{
	char self[PATH_MAX];
	char **args = calloc((size_t)argc + 4, sizeof(*args));
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (args == NULL || len <= 0) {
		fprintf(stderr, "sdds-bench report: cannot find my own binary\n");
		free(args);
		return 1;
	}
	self[len] = '\0';
	args[0] = "python3";
	args[1] = SDDS_BENCH_REPORT_PY;
	args[2] = "--bench";
	args[3] = self;
	memcpy(args + 4, argv + 1, (size_t)(argc - 1) * sizeof(*args));
	execvp(args[0], args);
	fprintf(stderr, "sdds-bench report: cannot run python3 %s: %s\n", SDDS_BENCH_REPORT_PY,
		strerror(errno));
	free(args);
	return 1;
}

int main(int argc, char **argv)
{
	bool help = argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0);

	if (argc >= 2 && strcmp(argv[1], "report") == 0)
		return main_report(argc - 1, argv + 1);
	for (size_t i = 0; argc >= 2 && i < sizeof(main_cmds) / sizeof(main_cmds[0]); i++) {
		if (strcmp(argv[1], main_cmds[i].name) == 0)
			return main_cmds[i].run(argc - 1, argv + 1);
	}
	fprintf(help ? stdout : stderr,
		"usage: sdds-bench local|net|scale|iceoryx|callgrind [options] (one benchmark; --help)\n"
		"       sdds-bench report [options] (every benchmark, one Markdown report with plots)\n");
	return help ? 0 : 2;
}
