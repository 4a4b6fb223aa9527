/* SPDX-License-Identifier: MIT */
/*
 * replay_main.c - run a fuzz target over files, without libFuzzer.
 *
 * usage: fuzz_TARGET FILE_OR_DIR...
 *
 * OVERVIEW
 * Linked with each fuzz target in a normal (gcc) build so that the seed
 * corpus is replayed as a meson test. Each file is read into a heap
 * buffer of exactly its size (so an ASan build catches reads past the
 * input) and passed once to LLVMFuzzerTestOneInput. Directories are read
 * one level deep, in name order, so a failure is reproducible. Exit 0 when
 * every input ran, 1 on an I/O error, 77 (skip) when there was no input at
 * all; a finding crashes the process.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Optional in the target: weak, so its absence leaves a null pointer. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int replay_file(const char *path, unsigned *count)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (fp == NULL || fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		if (fp != NULL)
			fclose(fp);
		return -1;
	}
	buf = malloc(len > 0 ? (size_t)len : 1);
	if (buf == NULL || fread(buf, 1, (size_t)len, fp) != (size_t)len) {
		fprintf(stderr, "replay: %s: short read\n", path);
		free(buf);
		fclose(fp);
		return -1;
	}
	fclose(fp);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	(*count)++;
	return 0;
}

static int replay_dir(const char *dir, unsigned *count)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	int rc = 0;

	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		if (names[i]->d_name[0] != '.' &&
		    snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) < (int)sizeof(path) &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode) && replay_file(path, count) < 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int rc = 0;

	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0) {
			/* A target without seeds yet: nothing to replay. */
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			continue;
		}
		if ((S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) : replay_file(argv[i], &count)) < 0)
			rc = 1;
	}
	printf("replay: %u inputs\n", count);
	if (rc == 0 && count == 0)
		return 77;
	return rc;
}
