/* SPDX-License-Identifier: MIT */
/*
 * cgroup-hog.c - what test_cgroup runs inside sdds-sandbox to reach its
 * cgroup's limits.
 *
 * OVERVIEW
 *   cgroup-hog shm MIB       map MIB MiB MAP_SHARED|MAP_ANONYMOUS (which
 *                            RLIMIT_DATA does not count) and touch every
 *                            page, printing "touched N" (MiB) every 4 MiB;
 *                            "done" when all of it was touched
 *   cgroup-hog threads MAX   start threads that wait, until one fails or MAX
 *   cgroup-hog fork MAX      fork children that wait, likewise (needs a
 *                            sandbox without the seccomp filter)
 *   cgroup-hog hold SECONDS  print "holding", sleep, then "done": a sandbox
 *                            that is there for a while (two at once, or one
 *                            whose supervisor the test kills)
 * Every mode first prints "cgroup <the memory line of /proc/self/cgroup>",
 * the cgroup the program really runs in. threads and fork end with
 * "made N" and exit 0; the children and threads die with the sandbox.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void print_cgroup(void)
{
	char line[4096];
	FILE *f = fopen("/proc/self/cgroup", "re");

	/* The unified line ("0::") where memory is a v2 controller, else the
	 * legacy memory hierarchy's line. */
	while (f && fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;

		if (b && (strncmp(a, ":memory:", 8) == 0 || strncmp(line, "0::", 3) == 0))
			printf("cgroup %s", line);
	}
	if (f)
		fclose(f);
	fflush(stdout);
}

static int hog_shm(size_t mib)
{
	size_t size = mib << 20, i;
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		printf("mmap: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < size; i += 4096) {
		p[i] = 1;
		if ((i + 4096) % (4u << 20) == 0) {
			printf("touched %zu\n", (i + 4096) >> 20);
			fflush(stdout);
		}
	}
	printf("done\n");
	return 0;
}

static void *hog_wait(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int hog_threads(long max)
{
	pthread_attr_t attr;
	pthread_t t;
	long n;
	int rc = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (n = 0; n < max; n++) {
		rc = pthread_create(&t, &attr, hog_wait, NULL);
		if (rc)
			break;
	}
	printf("made %ld (%s)\n", n, rc ? strerror(rc) : "all");
	return 0;
}

static int hog_fork(long max)
{
	long n;
	int err = 0;

	for (n = 0; n < max; n++) {
		pid_t pid = fork();

		if (pid == 0) {
			for (;;)
				pause();
		}
		if (pid < 0) {
			err = errno;
			break;
		}
	}
	printf("made %ld (%s)\n", n, err ? strerror(err) : "all");
	return 0;
}

int main(int argc, char **argv)
{
	long v;

	if (argc != 3 || (v = strtol(argv[2], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: cgroup-hog shm MIB | threads MAX | fork MAX | hold SECONDS\n");
		return 2;
	}
	print_cgroup();
	if (strcmp(argv[1], "shm") == 0)
		return hog_shm((size_t)v);
	if (strcmp(argv[1], "threads") == 0)
		return hog_threads(v);
	if (strcmp(argv[1], "fork") == 0)
		return hog_fork(v);
	if (strcmp(argv[1], "hold") == 0) {
		printf("holding\n");
		fflush(stdout);
		sleep((unsigned)v);
		printf("done\n");
		return 0;
	}
	fprintf(stderr, "cgroup-hog: unknown mode '%s'\n", argv[1]);
	return 2;
}
