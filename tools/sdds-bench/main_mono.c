/* SPDX-License-Identifier: MIT */
/*
 * main_mono.c - sdds-bench-mono: the monolithic roles of sdds-bench in a
 * program linked with libsddsmono (mono.h). sdds-bench execs it in a
 * role's child; people do not run it. Its exit code is the role's (2 when
 * the hand-over failed), as a forked role's would be.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "local.h"
#include "mono.h"
#include "net.h"

int main(int argc, char **argv)
{
	char why[BENCH_WHY_MAX];
	struct mono_call m;
	int rc = 2;

	if (mono_call_open(argc, argv, &m, why) < 0) {
		fprintf(stderr, "sdds-bench-mono: %s\n", why);
		return 2;
	}
	if (strcmp(m.role, LOCAL_MONO_ROLE) == 0)
		rc = local_mono_role(&m);
	else if (strcmp(m.role, NET_MONO_ROLE) == 0)
		rc = net_mono_role(&m);
	else
		fprintf(stderr, "sdds-bench-mono: no role %s\n", m.role);
	mono_call_close(&m);
	fflush(stdout);
	fflush(stderr);
	/* As a forked role ends: no exit handlers of a failed role's half-closed client. */
	_exit(rc & 0xff);
}
