/* SPDX-License-Identifier: MIT */
/*
 * capture.c - loaders for the capture files (see capture.h).
 *
 * OVERVIEW
 * Plain stdio parsing of the TSV and text formats written by the capture
 * scripts, and libxml2 for the topic files, mapping the sdds.xml attribute
 * types to field layouts the way the sDDS generator does (§6.2: strings
 * take K+1 bytes).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "capture.h"

static char data_dir[1024];

void cap_set_data_dir(const char *dir)
{
	snprintf(data_dir, sizeof(data_dir), "%s", dir);
}

const char *cap_data_dir(void)
{
	if (data_dir[0] == '\0') {
		const char *env = getenv("SNPS_DATA");
		cap_set_data_dir(env != NULL ? env : "data");
	}
	return data_dir;
}

static FILE *open_data(const char *name)
{
	char path[2048];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cap_data_dir(), name);
	f = fopen(path, "r");
	if (f == NULL)
		fprintf(stderr, "capture: cannot open %s\n", path);
	return f;
}

char *cap_read_file(const char *name)
{
	FILE *f = open_data(name);
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap = cap * 2 + 4096;
			buf = realloc(buf, cap + 1);
			if (buf == NULL) {
				fclose(f);
				return NULL;
			}
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

int cap_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = strlen(hex);

	if (n % 2 != 0 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return (int)(n / 2);
}

int cap_addr_parse(const char *text, uint8_t out[16])
{
	return inet_pton(AF_INET6, text, out) == 1 ? 0 : -1;
}

int cap_addr_low16(const char *text)
{
	uint8_t a[16];

	if (cap_addr_parse(text, a) < 0)
		return -1;
	return (a[14] << 8) | a[15];
}

static int load_frames(const char *name, struct capture *c)
{
	char fname[256], line[4096];
	size_t cap = 0;
	FILE *f;

	snprintf(fname, sizeof(fname), "%s.frames.tsv", name);
	f = open_data(fname);
	if (f == NULL)
		return -1;
	/* The first line is tshark's column header. */
	if (fgets(line, sizeof(line), f) == NULL || strncmp(line, "frame.number", 12) != 0)
		goto fail;
	while (fgets(line, sizeof(line), f) != NULL) {
		struct cap_frame *fr;
		char hex[2 * CAP_FRAME_MAX + 2];
		double t;
		int n;

		if (line[0] == '\n' || line[0] == '\0')
			continue;
		if (c->n_frames == cap) {
			cap = cap * 2 + 16;
			c->frames = realloc(c->frames, cap * sizeof(*c->frames));
			if (c->frames == NULL)
				goto fail;
		}
		fr = &c->frames[c->n_frames];
		memset(fr, 0, sizeof(*fr));
		if (sscanf(line, "%u\t%lf\t%63s\t%u\t%63s\t%u\t%u\t%1025s", &fr->no, &t, fr->src, &fr->sport,
			   fr->dst, &fr->dport, &fr->hlim, hex) != 8) {
			fprintf(stderr, "capture: bad line in %s: %s", fname, line);
			goto fail;
		}
		n = cap_hex(hex, fr->bytes, sizeof(fr->bytes));
		if (n < 0) {
			fprintf(stderr, "capture: bad hex in %s frame %u\n", fname, fr->no);
			goto fail;
		}
		fr->len = (size_t)n;
		c->n_frames++;
	}
	fclose(f);
	return 0;

fail:
	fclose(f);
	return -1;
}

static int load_decoded(const char *name, struct capture *c)
{
	char fname[256], line[4096];
	struct cap_decoded *cur = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(fname, sizeof(fname), "%s.decoded.txt", name);
	f = open_data(fname);
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#') {
			if (c->n_decoded == cap) {
				cap = cap * 2 + 16;
				c->decoded = realloc(c->decoded, cap * sizeof(*c->decoded));
				if (c->decoded == NULL)
					goto fail;
			}
			cur = &c->decoded[c->n_decoded++];
			memset(cur, 0, sizeof(*cur));
			if (sscanf(line, "#%u", &cur->no) != 1)
				goto fail_line;
		} else if (strncmp(line, "version=", 8) == 0) {
			if (cur == NULL ||
			    sscanf(line, "version=%u submsgs=%u", &cur->version, &cur->submsgs) != 2)
				goto fail_line;
		} else if (strncmp(line, "  [", 3) == 0) {
			struct cap_line *l;
			char *end = strchr(line, ']');
			unsigned b0, b1;

			if (cur == NULL || end == NULL || cur->n_lines == CAP_LINES_MAX)
				goto fail_line;
			l = &cur->lines[cur->n_lines++];
			if (sscanf(line + 3, "%2x %2x", &b0, &b1) == 2 && end - line > 6) {
				l->n_hdr = 2;
				l->hdr[1] = (uint8_t)b1;
			} else if (sscanf(line + 3, "%2x", &b0) == 1) {
				l->n_hdr = 1;
			} else {
				goto fail_line;
			}
			l->hdr[0] = (uint8_t)b0;
			snprintf(l->text, sizeof(l->text), "%s", end + 2);
		} else if (line[0] != '\0') {
			goto fail_line;
		}
	}
	fclose(f);
	return 0;

fail_line:
	fprintf(stderr, "capture: bad line in %s: %s\n", fname, line);
fail:
	fclose(f);
	return -1;
}

int cap_load(const char *name, struct capture *ret)
{
	struct capture c;

	memset(&c, 0, sizeof(c));
	if (load_frames(name, &c) < 0 || load_decoded(name, &c) < 0) {
		cap_free(&c);
		return -1;
	}
	*ret = c;
	return 0;
}

void cap_free(struct capture *c)
{
	free(c->frames);
	free(c->decoded);
	memset(c, 0, sizeof(*c));
}

/* sdds.xml attribute type -> field; strings take size + 1 bytes (§6.3). */
static int map_type(const char *type, const char *size, struct snps_field *ret)
{
	static const struct {
		const char *name;
		uint8_t type;
		uint32_t size;
	} prim[] = {
	    {"DDS_octet", SNPS_FIELD_OCTET, 1},
	    {"DDS_char", SNPS_FIELD_CHAR, 1},
	    {"DDS_boolean", SNPS_FIELD_BOOLEAN, 1},
	    {"DDS_short", SNPS_FIELD_SHORT, 2},
	    {"DDS_unsigned_short", SNPS_FIELD_USHORT, 2},
	    {"DDS_long", SNPS_FIELD_LONG, 4},
	    {"DDS_unsigned_long", SNPS_FIELD_ULONG, 4},
	    {"DDS_long_long", SNPS_FIELD_LONGLONG, 8},
	    {"DDS_unsigned_long_long", SNPS_FIELD_ULONGLONG, 8},
	};

	if (strcmp(type, "DDS_string") == 0) {
		if (size == NULL)
			return -1;
		ret->type = SNPS_FIELD_STRING;
		ret->size = (uint32_t)strtoul(size, NULL, 10) + 1;
		return 0;
	}
	for (size_t i = 0; i < sizeof(prim) / sizeof(prim[0]); i++) {
		if (strcmp(type, prim[i].name) == 0) {
			ret->type = prim[i].type;
			ret->size = prim[i].size;
			return 0;
		}
	}
	return -1;
}

static char *prop(xmlNode *n, const char *name)
{
	return (char *)xmlGetProp(n, (const xmlChar *)name);
}

static int load_topic_node(xmlNode *topic, struct cap_topic *t)
{
	char *name = prop(topic, "name"), *domain = prop(topic, "domain"), *id = prop(topic, "id");
	int rc = -1;

	if (name == NULL || domain == NULL || id == NULL)
		goto out;
	snprintf(t->name, sizeof(t->name), "%s", name);
	/* Ids and domains are hex without 0x in sdds.xml (§4.4). */
	t->domain = (uint8_t)strtoul(domain, NULL, 16);
	t->id = (uint16_t)strtoul(id, NULL, 16);
	for (xmlNode *a = topic->children; a != NULL; a = a->next) {
		char *aname, *type, *size;
		int bad;

		if (a->type != XML_ELEMENT_NODE || strcmp((const char *)a->name, "attribute") != 0)
			continue;
		if (t->n_fields == CAP_FIELDS_MAX)
			goto out;
		aname = prop(a, "name");
		type = prop(a, "type");
		size = prop(a, "size");
		bad = aname == NULL || type == NULL || map_type(type, size, &t->fields[t->n_fields]) < 0;
		if (!bad)
			snprintf(t->field_names[t->n_fields], sizeof(t->field_names[0]), "%s", aname);
		xmlFree(aname);
		xmlFree(type);
		xmlFree(size);
		if (bad)
			goto out;
		t->n_fields++;
	}
	rc = 0;
out:
	xmlFree(name);
	xmlFree(domain);
	xmlFree(id);
	return rc;
}

int cap_topic_load(const char *file, struct cap_topic *ret)
{
	char path[2048];
	struct cap_topic t;
	xmlDoc *doc;
	xmlNode *root;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/topics/%s", cap_data_dir(), file);
	doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (doc == NULL) {
		fprintf(stderr, "capture: cannot parse %s\n", path);
		return -1;
	}
	memset(&t, 0, sizeof(t));
	root = xmlDocGetRootElement(doc);
	if (root == NULL || strcmp((const char *)root->name, "domain") != 0)
		goto out;
	for (xmlNode *n = root->children; n != NULL; n = n->next) {
		if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, "topic") == 0) {
			rc = load_topic_node(n, &t);
			break;
		}
	}
	if (rc == 0) {
		t.layout.fields = t.fields;
		t.layout.n_fields = t.n_fields;
		if (snps_layout_check(&t.layout, &t.size) < 0)
			rc = -1;
	}
out:
	xmlFreeDoc(doc);
	if (rc < 0) {
		fprintf(stderr, "capture: bad topic file %s\n", path);
		return -1;
	}
	*ret = t;
	/* The struct was copied: point the layout at the copy's fields. */
	ret->layout.fields = ret->fields;
	return 0;
}

int cap_topic_field(const struct cap_topic *t, const char *name)
{
	for (uint32_t i = 0; i < t->n_fields; i++)
		if (strcmp(t->field_names[i], name) == 0)
			return (int)i;
	return -1;
}
