/* SPDX-License-Identifier: MIT */
/*
 * capture.h - loaders for the captures of real sDDS nodes in tests/snps/data
 * (copied from shared/captures): the frames (NAME.frames.tsv), the decode
 * written by hand from the spec (NAME.decoded.txt), the topic files the
 * nodes were generated from (topics/NAME.xml) and the node logs.
 *
 * OVERVIEW
 * Test-only code: it allocates freely and reports failures by returning -1
 * after printing to stderr, so the calling test fails with a message.
 * Everything a loader returns is owned by the caller and freed with the
 * matching _free function.
 */
#ifndef SDDS_TESTS_SNPS_CAPTURE_H
#define SDDS_TESTS_SNPS_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include <snps/snps.h>

#define CAP_FRAME_MAX 512
#define CAP_LINES_MAX 16
#define CAP_FIELDS_MAX 32

/* One UDP datagram of NAME.frames.tsv. */
struct cap_frame {
	unsigned no;
	char src[64];
	unsigned sport;
	char dst[64];
	unsigned dport;
	unsigned hlim;
	uint8_t bytes[CAP_FRAME_MAX];
	size_t len;
};

/* One submessage line of NAME.decoded.txt: "  [hh hh] TEXT". */
struct cap_line {
	uint8_t hdr[2];
	unsigned n_hdr;
	char text[512];
};

/* One frame of NAME.decoded.txt. */
struct cap_decoded {
	unsigned no;
	unsigned version;
	unsigned submsgs;
	struct cap_line lines[CAP_LINES_MAX];
	unsigned n_lines;
};

struct capture {
	struct cap_frame *frames;
	struct cap_decoded *decoded;
	size_t n_frames;
	size_t n_decoded;
};

/* A topic of a topics/NAME.xml file, as the sdds.xml generator sees it. */
struct cap_topic {
	char name[64];
	uint8_t domain;
	uint16_t id; /* as declared (hex in the file); may exceed 15 */
	struct snps_field fields[CAP_FIELDS_MAX];
	char field_names[CAP_FIELDS_MAX][32];
	uint32_t n_fields;
	struct snps_layout layout;
	uint32_t size;
};

/* Directory of the data files (argv[1] of the test, or SNPS_DATA). */
const char *cap_data_dir(void);
void cap_set_data_dir(const char *dir);

/* Load NAME.frames.tsv and NAME.decoded.txt. Returns 0 or -1. */
int cap_load(const char *name, struct capture *ret);
void cap_free(struct capture *c);

/* Load topics/FILE (one <domain> with one <topic>). Returns 0 or -1. */
int cap_topic_load(const char *file, struct cap_topic *ret);
/* Index of the field called name, or -1. */
int cap_topic_field(const struct cap_topic *t, const char *name);

/* Read the whole file data_dir/NAME into a NUL-terminated malloc'd string
 * (caller frees), or NULL. */
char *cap_read_file(const char *name);

/* Parse "aabbcc" into out (cap bytes). Returns the byte count or -1. */
int cap_hex(const char *hex, uint8_t *out, size_t cap);

/* Last 16 bits of an IPv6 address text (the sDDS node id of a
 * MAC-derived link-local address, §9.4), or -1. */
int cap_addr_low16(const char *text);

/* Parse an IPv6 text address into 16 bytes. Returns 0 or -1. */
int cap_addr_parse(const char *text, uint8_t out[16]);

#endif /* SDDS_TESTS_SNPS_CAPTURE_H */
