/* SPDX-License-Identifier: MIT */
/*
 * fuzz_elfdeps.c - sdds-sandbox's ELF reader (tools/sdds-sandbox/elfdeps.c)
 * on hostile program files. The supervisor reads the vendor's program
 * before it runs it, as root when the sandbox is started as root: its
 * headers, program headers, interpreter, dynamic section and string table
 * are whatever the file says.
 *
 * OVERVIEW
 * Each input is the program: written to DIR/prog in a private temporary
 * directory (made once), then elfdeps_check_wx (W^X of its PT_LOADs and
 * stack, "#!" scripts followed) and elfdeps_collect (interpreter and
 * DT_NEEDED libraries, resolved as ld.so does: $ORIGIN is DIR, then the
 * system's directories, so real libraries are read too). Any return is
 * fine; a finding is a crash, a sanitizer report, a hang (libFuzzer's
 * -timeout) or a leak. Paths that the input names are opened read-only
 * and only regular files are read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfdeps.h"
#include "fuzz.h"

static char fz_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char tmpl[] = "/tmp/fuzz-elfdeps.XXXXXX";

	(void)argc;
	(void)argv;
	/* The search must not take libraries from a directory the caller set. */
	unsetenv("LD_LIBRARY_PATH");
	if (mkdtemp(tmpl) == NULL) {
		perror("fuzz_elfdeps: mkdtemp");
		__builtin_trap();
	}
	snprintf(fz_path, sizeof(fz_path), "%s/prog", tmpl);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfdeps deps = {0};
	const char *missing = NULL;
	int fd;

	if (fz_path[0] == '\0')
		LLVMFuzzerInitialize(NULL, NULL);
	fd = open(fz_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
	close(fd);
	(void)elfdeps_check_wx(fz_path);
	(void)elfdeps_collect(&deps, fz_path, &missing);
	elfdeps_free(&deps);
	return 0;
}
