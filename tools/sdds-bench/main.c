/* SPDX-License-Identifier: MIT */
/*
 * main.c - sdds-bench: the benchmarks of sddsd, one subcommand each.
 *
 * OVERVIEW
 * `sdds-bench local|net|scale|iceoryx|callgrind [options]` runs one
 * benchmark (local.c, net.c, ...). Each measures and prints one JSON object
 * on stdout, progress on stderr; all presentation is report.py's. So that a
 * person typing the command still gets tables, a run without --json (and
 * without -h/--help) hands its JSON to `python3 report.py --show PART`.
 * `sdds-bench report` execs report.py, which runs every benchmark
 * for one Markdown report. The exit status is the benchmark's: 0, 1 when a
 * run failed, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/*
 * cmd with its stdout in a temporary file, then that file as the stdin of
 * `python3 report.py --show NAME`, or of cat when python3 cannot run, so the
 * figures of a long run are never lost. Returns cmd's exit status.
 */
static int main_show(const struct main_cmd *cmd, int argc, char **argv)
{
	FILE *json = tmpfile();
	/* Close-on-exec: the daemons, RouDi and valgrind the run starts inherit neither. */
	int out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0), rc, st = 0;
	struct stat js;
	bool shown;
	pid_t pid = -1;

	if (json == NULL || out < 0)
		return cmd->run(argc, argv);
	/* fd 1 stays inheritable: dup2 clears the flag on the copy only. */
	fcntl(fileno(json), F_SETFD, FD_CLOEXEC);
	dup2(fileno(json), STDOUT_FILENO);
	rc = cmd->run(argc, argv);
	fflush(stdout);
	dup2(out, STDOUT_FILENO);
	/*
	 * A usage error (2), or a run refused before it measured anything (net
	 * without root: 77), prints no JSON and has already said why on stderr.
	 */
	shown = fstat(fileno(json), &js) == 0 && js.st_size > 0;
	if (shown && lseek(fileno(json), 0, SEEK_SET) == 0 && (pid = fork()) == 0) {
		dup2(fileno(json), STDIN_FILENO);
		execlp("python3", "python3", SDDS_BENCH_REPORT_PY, "--show", cmd->name, (char *)NULL);
		fprintf(stderr, "sdds-bench: cannot run python3 %s: %s; the JSON follows\n",
			SDDS_BENCH_REPORT_PY, strerror(errno));
		execlp("cat", "cat", (char *)NULL);
		_exit(127);
	}
	if (shown && (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0))
		fprintf(stderr, "sdds-bench: python3 %s --show %s failed\n", SDDS_BENCH_REPORT_PY, cmd->name);
	fclose(json);
	close(out);
	return rc;
}

int main(int argc, char **argv)
{
	bool help = argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0);

	if (argc >= 2 && strcmp(argv[1], "report") == 0)
		return main_report(argc - 1, argv + 1);
	for (size_t i = 0; argc >= 2 && i < sizeof(main_cmds) / sizeof(main_cmds[0]); i++) {
		bool json = false;

		if (strcmp(argv[1], main_cmds[i].name) != 0)
			continue;
		for (int k = 2; k < argc; k++)
			json |= strcmp(argv[k], "--json") == 0 || strcmp(argv[k], "-h") == 0 ||
				strcmp(argv[k], "--help") == 0;
		return json ? main_cmds[i].run(argc - 1, argv + 1)
			    : main_show(&main_cmds[i], argc - 1, argv + 1);
	}
	fprintf(help ? stdout : stderr,
		"usage: sdds-bench local|net|scale|iceoryx|callgrind [options] (one benchmark; --help)\n"
		"       sdds-bench report [options] (every benchmark, one Markdown report with plots)\n"
		"A benchmark prints its figures as one JSON object with --json, else as tables.\n");
	return help ? 0 : 2;
}
