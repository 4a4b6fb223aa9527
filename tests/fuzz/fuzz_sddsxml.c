/* SPDX-License-Identifier: MIT */
/*
 * fuzz_sddsxml.c - sdds.xml bytes through the sdds-gen reader, and what it
 * accepts through the code emitters.
 *
 * OVERVIEW
 * Input: byte 0 is a mode, the rest is the sdds.xml.
 *   mode bit 0   includes resolved in a private directory (1) or refused (0)
 * The directory is made once per process and holds a topic file, a types
 * file, a file that includes another and one that includes itself, so the
 * include, domain-default and cycle paths run; it is removed at exit.
 * Checked per input: a refusal says why ("FILE:LINE: ..." in the diag); an
 * accepted project keeps every bound the model promises (each topic has a
 * role, at most GEN_MAX_FIELDS fields, a size that is the sum of its
 * fields and at most GEN_MAX_SAMPLE), and the header, source and dump
 * emitters run over it. Leaks are findings (ASan).
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emit.h"
#include "fuzz.h"
#include <sddsxml/sddsxml.h>

static char include_dir[PATH_MAX];

static const struct {
	const char *name;
	const char *text;
} include_files[] = {
    {"topics/temperature.xml", "<domain id=\"1\">\n<topic name=\"temperature\" domain=\"1\" id=\"A\">\n"
			       "<attribute name=\"device\" type=\"DDS_unsigned_short\" key=\"secondary\"/>\n"
			       "<attribute name=\"value\" type=\"DDS_short\"/>\n</topic>\n</domain>\n"},
    {"types.xml",
     "<types>\n<enum name=\"Level\"><literal name=\"lo\"/><literal name=\"hi\" value=\"300\"/></enum>\n"
     "<datatype name=\"Id\" type=\"DDS_unsigned_long\"/>\n"
     "<struct name=\"pos\"><attribute name=\"x\" type=\"DDS_long\"/>"
     "<attribute name=\"tag\" type=\"DDS_string\" size=\"3\"/></struct>\n</types>\n"},
    {"nest.xml", "<domain id=\"2\">\n<include filename=\"topics/temperature.xml\"/>\n"
		 "<topic name=\"nested\" id=\"B\"><attribute name=\"p\" type=\"pos\"/></topic>\n</domain>\n"},
    {"self.xml", "<domain id=\"3\">\n<include filename=\"self.xml\"/>\n</domain>\n"},
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void fuzz_sddsxml_cleanup(void)
{
	if (include_dir[0] != '\0')
		nftw(include_dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void fuzz_sddsxml_setup(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX + 64];

	if (include_dir[0] != '\0')
		return;
	snprintf(include_dir, sizeof(include_dir), "%s/fuzz-sddsxml.XXXXXX", tmp != NULL ? tmp : "/tmp");
	FUZZ_CHECK(mkdtemp(include_dir) != NULL);
	atexit(fuzz_sddsxml_cleanup);
	snprintf(path, sizeof(path), "%s/topics", include_dir);
	FUZZ_CHECK(mkdir(path, 0700) == 0);
	for (size_t i = 0; i < sizeof(include_files) / sizeof(include_files[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", include_dir, include_files[i].name);
		f = fopen(path, "w");
		FUZZ_CHECK(f != NULL);
		FUZZ_CHECK(fputs(include_files[i].text, f) >= 0);
		FUZZ_CHECK(fclose(f) == 0);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_sddsxml_setup();
	return 0;
}

static void fuzz_sddsxml_check(const gen_project *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	for (size_t i = 0; i < p->n_topics; i++) {
		const gen_topic *t = &p->topics[i];
		uint32_t sum = 0;

		FUZZ_CHECK(t->publisher || t->subscriber);
		FUZZ_CHECK(t->n_leaves >= 1 && t->n_leaves <= GEN_MAX_FIELDS);
		for (size_t j = 0; j < t->n_attrs; j++)
			sum += t->attrs[j].wire_size;
		FUZZ_CHECK(sum == t->wire_size && sum >= 1 && sum <= GEN_MAX_SAMPLE);
		FUZZ_CHECK(t->domain <= 0xF);
	}
	out = open_memstream(&buf, &len);
	FUZZ_CHECK(out != NULL);
	FUZZ_CHECK(emit_header(p, out) == 0);
	FUZZ_CHECK(emit_source(p, "fuzz_sdds_impl.h", out) == 0);
	FUZZ_CHECK(emit_dump(p, out) == 0);
	FUZZ_CHECK(fclose(out) == 0);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gen_project *p = NULL;
	gen_diag d;
	int r;

	if (size < 1)
		return 0;
	fuzz_sddsxml_setup();
	gen_diag_init(&d);
	r = sddsxml_load_memory(data + 1, size - 1, "fuzz.xml", (data[0] & 1) ? include_dir : NULL, &p, &d);
	if (r == 0) {
		FUZZ_CHECK(p != NULL);
		fuzz_sddsxml_check(p);
		gen_project_free(p);
	} else {
		FUZZ_CHECK(p == NULL);
		FUZZ_CHECK(r == -ENOMEM || (r == -EINVAL && d.error[0] != '\0'));
	}
	gen_diag_free(&d);
	return 0;
}
