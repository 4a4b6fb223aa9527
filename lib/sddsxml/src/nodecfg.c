/* SPDX-License-Identifier: MIT */
/*
 * nodecfg.c - sdds.xml (through lib/sddsxml, sdds-gen's reader) -> struct nodecfg.
 *
 * OVERVIEW
 * The reader resolves the project (types, layouts, roles); this file only
 * takes each topic's leaf fields in wire order from it (gen_topic_leaves,
 * the walk sdds-gen's emitters use for the generated field tables), and checks what
 * the network side needs beyond what a code generator needs (see
 * nodecfg.h). The gen_project is freed before returning; the nodecfg keeps
 * copies only.
 */
#include "sddsxml/nodecfg.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sddsxml/model.h>
#include <snps/snps.h>
#include <sddsxml/sddsxml.h>

static int nodecfg_errorf(struct nodecfg_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int nodecfg_errorf(struct nodecfg_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void nodecfg_loc(char *dst, const gen_loc *l)
{
	snprintf(dst, NODECFG_LOC_MAX, "%s:%u", l->file != NULL ? l->file : "?", l->line);
}

static uint8_t nodecfg_field_type(gen_kind k)
{
	switch (k) {
	case GEN_OCTET:
		return SNPS_FIELD_OCTET;
	case GEN_CHAR:
		return SNPS_FIELD_CHAR;
	case GEN_BOOLEAN:
		return SNPS_FIELD_BOOLEAN;
	case GEN_SHORT:
		return SNPS_FIELD_SHORT;
	case GEN_USHORT:
		return SNPS_FIELD_USHORT;
	case GEN_LONG:
		return SNPS_FIELD_LONG;
	case GEN_ULONG:
		return SNPS_FIELD_ULONG;
	case GEN_LONGLONG:
		return SNPS_FIELD_LONGLONG;
	case GEN_ULONGLONG:
		return SNPS_FIELD_ULONGLONG;
	case GEN_STRING:
		return SNPS_FIELD_STRING;
	case GEN_ENUM:
		return SNPS_FIELD_ENUM;
	default:
		return 0;
	}
}

/* One leaf of the topic (lib/sddsxml, wire order) into the next field of d. */
static int nodecfg_field(const gen_leaf *l, void *ctx)
{
	struct nodecfg_desc *d = ctx;
	struct nodecfg_field *f;

	if (d->n_fields >= NODECFG_MAX_FIELDS || nodecfg_field_type(l->kind) == 0)
		return -EINVAL;
	f = &d->fields[d->n_fields++];
	f->type = nodecfg_field_type(l->kind);
	f->size = l->attr->wire_size;
	/* The model bounds flattened names to GEN_NAME_MAX, which fits. */
	memcpy(f->name, l->name, strnlen(l->name, sizeof(f->name) - 1));
	return 0;
}

static int nodecfg_topic(const gen_project *p, const gen_topic *t, struct nodecfg_topic *nt,
			 struct nodecfg_error *err)
{
	struct snps_field sf[NODECFG_MAX_FIELDS];
	struct snps_layout l;
	uint32_t size = 0;

	nodecfg_loc(nt->loc, &t->loc);
	if (t->domain > 15)
		return nodecfg_errorf(err,
				      "%s: topic '%s': domain %u does not fit the 4-bit DOMAIN submessage",
				      nt->loc, t->name, t->domain);
	if (t->id > 15)
		return nodecfg_errorf(
		    err,
		    "%s: topic '%s': id %u (hex %X) is over 15; real nodes truncate it to %u "
		    "(snps-wire.md §4.4)",
		    nt->loc, t->name, t->id, t->id, t->id & 15u);
	if (t->domain == 1 && t->id >= 1 && t->id <= 7)
		return nodecfg_errorf(err, "%s: topic '%s': domain 1, id %u is a builtin topic id (1..7)",
				      nt->loc, t->name, t->id);
	nt->desc.domain = t->domain;
	nt->desc.topic_id = t->id;
	snprintf(nt->desc.name, sizeof(nt->desc.name), "%s", t->name);
	nt->desc.sample_size = t->wire_size;
	if (gen_topic_leaves(p, t, nodecfg_field, &nt->desc) != 0)
		return nodecfg_errorf(err, "%s: topic '%s': more than %u fields", nt->loc, t->name,
				      NODECFG_MAX_FIELDS);
	for (uint32_t i = 0; i < nt->desc.n_fields; i++) {
		sf[i].type = nt->desc.fields[i].type;
		sf[i].size = nt->desc.fields[i].size;
	}
	l.fields = sf;
	l.n_fields = nt->desc.n_fields;
	if (snps_layout_check(&l, &size) < 0 || size != t->wire_size || size == 0)
		return nodecfg_errorf(err, "%s: topic '%s': layout of %u bytes is not a valid sample",
				      nt->loc, t->name, t->wire_size);
	nt->publisher = t->publisher;
	nt->subscriber = t->subscriber;
	nt->reliable = t->has_reliability && t->reliability == GEN_REL_RELIABLE;
	nt->nack = nt->reliable && t->confirm == GEN_CONFIRM_NACK;
	nt->seq_bits = (uint8_t)(t->seqnr_bits != 0 ? t->seqnr_bits : 4);
	nt->history_depth = t->has_history ? t->history_depth : 0;
	return 0;
}

/* "fe80::1" or "fe80::1%eth0" -> address and zone name. */
static int nodecfg_parse_ip(const char *text, struct in6_addr *ret_ip, char *ret_iface)
{
	char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	char *pct;

	if (strlen(text) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, text);
	pct = strchr(buf, '%');
	if (pct != NULL) {
		*pct++ = '\0';
		if (*pct == '\0' || strlen(pct) >= IF_NAMESIZE)
			return -EINVAL;
	}
	if (inet_pton(AF_INET6, buf, ret_ip) != 1)
		return -EINVAL;
	snprintf(ret_iface, IF_NAMESIZE, "%s", pct != NULL ? pct : "");
	return 0;
}

/* A timer define in seconds (0..3600) into *ret_ms; -1 left when absent. */
static int nodecfg_timer(const gen_project *p, const char *name, const char *alt, int64_t *ret_ms,
			 struct nodecfg_error *err)
{
	for (size_t i = 0; i < p->n_defines; i++) {
		const gen_define *d = &p->defines[i];
		char loc[NODECFG_LOC_MAX], *end;
		unsigned long s;

		if (strcmp(d->name, name) != 0 && strcmp(d->name, alt) != 0)
			continue;
		nodecfg_loc(loc, &d->loc);
		if (d->value == NULL || d->value[0] < '0' || d->value[0] > '9')
			return nodecfg_errorf(err, "%s: %s: want a number of seconds", loc, d->name);
		errno = 0;
		s = strtoul(d->value, &end, 10);
		if (errno != 0 || *end != '\0' || s > 3600)
			return nodecfg_errorf(err, "%s: %s: '%s' is not a number of seconds (0..3600)", loc,
					      d->name, d->value);
		*ret_ms = (int64_t)s * 1000;
	}
	return 0;
}

static bool nodecfg_defined(const gen_project *p, const char *name)
{
	for (size_t i = 0; i < p->n_defines; i++) {
		if (strcmp(p->defines[i].name, name) == 0)
			return true;
	}
	return false;
}

static int nodecfg_discovery(const gen_project *p, struct nodecfg *nc, struct nodecfg_error *err)
{
	int rc;

	nc->discovery = nodecfg_defined(p, "FEATURE_SDDS_BUILTIN_TOPICS_ENABLED") &&
			nodecfg_defined(p, "FEATURE_SDDS_DISCOVERY_ENABLED");
	nc->participant_ms = -1;
	nc->publication_ms = -1;
	rc = nodecfg_timer(p, "SDDS_BUILTIN_TOPIC_PARTICIPANT_TIMER", "SDDS_DISCOVERY_PARTICIPANT_TIMER",
			   &nc->participant_ms, err);
	if (rc < 0)
		return rc;
	return nodecfg_timer(p, "SDDS_BUILTIN_TOPIC_PUBLICATION_TIMER", "SDDS_DISCOVERY_PUBLICATION_TIMER",
			     &nc->publication_ms, err);
}

static int nodecfg_from_project(const gen_project *p, struct nodecfg *nc, struct nodecfg_error *err)
{
	char iface[IF_NAMESIZE];

	nodecfg_loc(nc->loc, &p->loc);
	snprintf(nc->name, sizeof(nc->name), "%s", p->name != NULL ? p->name : "");
	if (p->protocol != NULL && strcmp(p->protocol, "AF_INET6") != 0)
		return nodecfg_errorf(err, "%s: protocol '%s': sddsd speaks SNPS over UDPv6 only (AF_INET6)",
				      nc->loc, p->protocol);
	if (p->iface != NULL && strlen(p->iface) >= IF_NAMESIZE)
		return nodecfg_errorf(err, "%s: iface '%s' is too long for an interface name", nc->loc,
				      p->iface);
	snprintf(nc->iface, sizeof(nc->iface), "%s", p->iface != NULL ? p->iface : "");
	if (p->ip != NULL && nodecfg_parse_ip(p->ip, &nc->ip, iface) < 0)
		return nodecfg_errorf(err, "%s: ip '%s' is not an IPv6 address", nc->loc, p->ip);
	nc->port = p->port != 0 ? p->port : SNPS_PORT;
	if (nc->port > 65535 - SNPS_MCAST_PORT_OFFSET)
		return nodecfg_errorf(err, "%s: port %u leaves no room for the multicast port (+20)", nc->loc,
				      nc->port);
	nc->endian_big = p->endian != NULL && strcmp(p->endian, "big") == 0;
	if (nodecfg_discovery(p, nc, err) < 0)
		return -EINVAL;
	if (p->n_topics > NODECFG_MAX_TOPICS)
		return nodecfg_errorf(err, "%s: %zu topics; SNPS carries at most %u (ids 0..15)", nc->loc,
				      p->n_topics, NODECFG_MAX_TOPICS);
	for (size_t i = 0; i < p->n_topics; i++) {
		int rc = nodecfg_topic(p, &p->topics[i], &nc->topics[i], err);

		if (rc < 0)
			return rc;
		for (size_t k = 0; k < i; k++) {
			if (nc->topics[k].desc.topic_id == nc->topics[i].desc.topic_id)
				return nodecfg_errorf(
				    err,
				    "%s: topic '%s' has the id %u of topic '%s' (%s); receivers "
				    "look topics up by id only (snps-wire.md §4.4)",
				    nc->topics[i].loc, nc->topics[i].desc.name, nc->topics[i].desc.topic_id,
				    nc->topics[k].desc.name, nc->topics[k].loc);
		}
		nc->n_topics++;
	}
	for (size_t i = 0; i < p->n_subscriptions; i++) {
		const gen_subscription *s = &p->subscriptions[i];
		int ti = -1;

		for (uint32_t k = 0; k < nc->n_topics; k++) {
			if (strcmp(nc->topics[k].desc.name, s->topic) == 0)
				ti = (int)k;
		}
		if (ti < 0) {
			char loc[NODECFG_LOC_MAX];

			nodecfg_loc(loc, &s->loc);
			return nodecfg_errorf(
			    err, "%s: subscription for topic '%s', which the node has no role for", loc,
			    s->topic);
		}
		for (size_t k = 0; k < s->n_subscribers; k++) {
			const gen_subscriber *sub = &s->subscribers[k];
			struct nodecfg_dest *d;

			if (nc->n_dests >= NODECFG_MAX_DESTS) {
				char loc[NODECFG_LOC_MAX];

				nodecfg_loc(loc, &sub->loc);
				return nodecfg_errorf(err, "%s: more than %u static subscribers", loc,
						      NODECFG_MAX_DESTS);
			}
			d = &nc->dests[nc->n_dests];
			nodecfg_loc(d->loc, &sub->loc);
			if (sub->ip == NULL || nodecfg_parse_ip(sub->ip, &d->ip, d->iface) < 0)
				return nodecfg_errorf(
				    err, "%s: subscriber ip '%s' is not an IPv6 address[%%iface]", d->loc,
				    sub->ip != NULL ? sub->ip : "");
			if (IN6_IS_ADDR_MULTICAST(&d->ip) || IN6_IS_ADDR_UNSPECIFIED(&d->ip))
				return nodecfg_errorf(err, "%s: subscriber ip '%s' is not a unicast address",
						      d->loc, sub->ip);
			d->topic = (uint32_t)ti;
			d->port = sub->port;
			nc->n_dests++;
		}
	}
	return 0;
}

static int nodecfg_finish(int rc, gen_project *p, gen_diag *d, struct nodecfg **ret,
			  struct nodecfg_error *err)
{
	struct nodecfg *nc;

	if (rc < 0) {
		if (rc == -ENOMEM)
			nodecfg_errorf(err, "out of memory reading the node config");
		else
			nodecfg_errorf(err, "%s",
				       d->error[0] != '\0' ? d->error : "cannot read the node config");
		gen_diag_free(d);
		return rc;
	}
	nc = calloc(1, sizeof(*nc));
	if (nc == NULL) {
		rc = -ENOMEM;
		nodecfg_errorf(err, "out of memory reading the node config");
		goto out;
	}
	rc = nodecfg_from_project(p, nc, err);
	if (rc < 0) {
		free(nc);
		goto out;
	}
	*ret = nc;
out:
	gen_project_free(p);
	gen_diag_free(d);
	return rc;
}

int nodecfg_load(const char *path, struct nodecfg **ret, struct nodecfg_error *err)
{
	gen_project *p = NULL;
	gen_diag d;
	int rc;

	gen_diag_init(&d);
	rc = sddsxml_load_file(path, &p, &d);
	return nodecfg_finish(rc, p, &d, ret, err);
}

int nodecfg_load_memory(const void *buf, size_t len, const char *name, struct nodecfg **ret,
			struct nodecfg_error *err)
{
	gen_project *p = NULL;
	gen_diag d;
	int rc;

	gen_diag_init(&d);
	rc = sddsxml_load_memory(buf, len, name, NULL, &p, &d);
	return nodecfg_finish(rc, p, &d, ret, err);
}

int nodecfg_topic_by_id(const struct nodecfg *nc, uint16_t id)
{
	for (uint32_t i = 0; i < nc->n_topics; i++) {
		if (nc->topics[i].desc.topic_id == id)
			return (int)i;
	}
	return -ENOENT;
}
