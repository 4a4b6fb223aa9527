/* SPDX-License-Identifier: MIT */
/*
 * sdds-gen - generate the typed sDDS API of one node from its sdds.xml.
 *
 *   sdds-gen [-o OUTDIR] [--depfile FILE] path/to/sdds.xml
 *   sdds-gen --dump path/to/sdds.xml
 *
 * OVERVIEW
 * Writes OUTDIR/<project>_sdds_impl.h and .c (OUTDIR defaults to "."), each
 * through a temporary file renamed into place, so an interrupted run never
 * leaves half a file for the build to pick up. --depfile writes a Makefile
 * rule naming every XML file read, for meson's depfile: so the build reruns
 * the generator when an included topic file changes. Errors and warnings go
 * to stderr as FILE:LINE: message. Exit status: 0 done, 1 the configuration
 * is wrong or a file could not be written, 2 bad usage.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emit.h"
#include <sddsxml/sddsxml.h>

static void usage(FILE *out)
{
	fputs("usage: sdds-gen [-o|--output OUTDIR] [--depfile FILE] path/to/sdds.xml\n"
	      "       sdds-gen --dump path/to/sdds.xml\n"
	      "       sdds-gen -h|--help\n"
	      "Writes OUTDIR/<project>_sdds_impl.h and OUTDIR/<project>_sdds_impl.c (OUTDIR and\n"
	      "its parents are made when missing; default: the current directory).\n",
	      out);
}

typedef int (*emit_fn)(const gen_project *p, const void *arg, FILE *out);

static int emit_h(const gen_project *p, const void *arg, FILE *out)
{
	(void)arg;
	return emit_header(p, out);
}

static int emit_c(const gen_project *p, const void *arg, FILE *out)
{
	return emit_source(p, arg, out);
}

/* Write path through path.tmp and rename. Prints its own error. */
static int write_file(const char *path, const gen_project *p, emit_fn fn, const void *arg)
{
	size_t len = strlen(path) + 5;
	char *tmp = malloc(len);
	FILE *out;
	int r;

	if (tmp == NULL)
		return -ENOMEM;
	snprintf(tmp, len, "%s.tmp", path);
	out = fopen(tmp, "w");
	if (out == NULL) {
		r = -errno;
		fprintf(stderr, "sdds-gen: cannot write %s: %s\n", tmp, strerror(-r));
		free(tmp);
		return r;
	}
	r = fn(p, arg, out);
	if (fclose(out) != 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		fprintf(stderr, "sdds-gen: cannot write %s: %s\n", path, strerror(-r));
		unlink(tmp);
	}
	free(tmp);
	return r;
}

/*
 * The output directory and its missing parents, as mkdir -p makes them (a
 * build system names a directory of its own that may not exist yet).
 * Prints its own error.
 */
static int make_dirs(const char *dir)
{
	char *p = strdup(dir);
	int r = 0;

	if (p == NULL)
		return -ENOMEM;
	for (char *s = p + 1;; s++) {
		bool end = *s == '\0';
		struct stat st;

		if (*s != '/' && !end)
			continue;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST)
			r = -errno;
		else if (stat(p, &st) < 0)
			r = -errno;
		else if (!S_ISDIR(st.st_mode))
			r = -ENOTDIR;
		if (r < 0 || end)
			break;
		*s = '/';
	}
	if (r < 0)
		fprintf(stderr, "sdds-gen: cannot create %s: %s\n", dir, strerror(-r));
	free(p);
	return r;
}

/* A path in a Makefile rule: spaces, '#' and '$' escaped. */
static void put_make_path(FILE *out, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == ' ' || *s == '#' || *s == '\\')
			fputc('\\', out);
		if (*s == '$')
			fputc('$', out);
		fputc(*s, out);
	}
}

struct dep_arg {
	const char *h, *c;
};

static int emit_dep(const gen_project *p, const void *arg, FILE *out)
{
	const struct dep_arg *d = arg;

	put_make_path(out, d->h);
	fputc(' ', out);
	put_make_path(out, d->c);
	fputc(':', out);
	for (size_t i = 0; i < p->n_files; i++) {
		fputc(' ', out);
		put_make_path(out, p->files[i]);
	}
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"depfile", required_argument, NULL, 'd'},
	    {"dump", no_argument, NULL, 'D'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *outdir = ".", *depfile = NULL;
	bool dump = false;
	gen_project *p = NULL;
	gen_diag d;
	char base[GEN_NAME_MAX + 16], *h_path = NULL, *c_path = NULL;
	size_t plen;
	int opt, r, status = 1;

	while ((opt = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			outdir = optarg;
			break;
		case 'd':
			depfile = optarg;
			break;
		case 'D':
			dump = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}

	gen_diag_init(&d);
	r = sddsxml_load_file(argv[optind], &p, &d);
	for (size_t i = 0; i < d.n_warnings; i++)
		fprintf(stderr, "%s\n", d.warnings[i]);
	if (r < 0) {
		if (d.error[0] != '\0')
			fprintf(stderr, "%s\n", d.error);
		else
			fprintf(stderr, "sdds-gen: %s\n", strerror(-r));
		goto out;
	}
	if (dump) {
		status = emit_dump(p, stdout) < 0 ? 1 : 0;
		goto out;
	}

	if (emit_basename(p, base, sizeof(base)) < 0) {
		fprintf(stderr, "sdds-gen: project name too long\n");
		goto out;
	}
	plen = strlen(outdir) + 1 + strlen(base) + 3;
	h_path = malloc(plen);
	c_path = malloc(plen);
	if (h_path == NULL || c_path == NULL) {
		fprintf(stderr, "sdds-gen: %s\n", strerror(ENOMEM));
		goto out;
	}
	if (make_dirs(outdir) < 0)
		goto out;
	snprintf(h_path, plen, "%s/%s.h", outdir, base);
	snprintf(c_path, plen, "%s/%s.c", outdir, base);
	{
		char h_name[GEN_NAME_MAX + 20];
		struct dep_arg da = {h_path, c_path};

		snprintf(h_name, sizeof(h_name), "%s.h", base);
		if (write_file(h_path, p, emit_h, NULL) < 0 || write_file(c_path, p, emit_c, h_name) < 0)
			goto out;
		if (depfile != NULL && write_file(depfile, p, emit_dep, &da) < 0)
			goto out;
	}
	status = 0;
out:
	free(h_path);
	free(c_path);
	gen_project_free(p);
	gen_diag_free(&d);
	return status;
}
