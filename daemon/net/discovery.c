/* SPDX-License-Identifier: MIT */
/*
 * discovery.c - the §10.3 state machines (see discovery.h).
 *
 * OVERVIEW
 * Invariants:
 * - Participant ids in the table are unique, never 0, never ours.
 * - (participant, topic) is unique in the subscription table: a repeated
 *   DCPSSubscription refreshes its entry (the §15.8 leak avoided).
 * - Tables are arrays sized at disc_new; removal moves the last entry into
 *   the hole, so the order of entries carries no meaning.
 * - Every frame is built in d->buf and handed to `send` before the next
 *   one is built.
 */
#include "discovery.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct disc {
	struct disc_options o;
	struct disc_callbacks cb;
	struct disc_participant *parts;
	uint32_t n_parts;
	struct disc_sub *subs;
	uint32_t n_subs;
	int64_t next_part_ns, next_pub_ns;
	bool started;
	struct disc_counters c;
	uint8_t buf[SNPS_DATAGRAM_MAX < 512 ? SNPS_DATAGRAM_MAX : 512];
};

void disc_options_init(struct disc_options *o)
{
	memset(o, 0, sizeof(*o));
	o->port = SNPS_PORT;
	o->n_links = 1;
	o->participant_ms = 1000;
	o->publication_ms = 5000;
	o->expire_ms = 5000;
	o->max_participants = 32;
	o->max_subs = 64;
	o->max_frame = SNPS_MAX_FRAME_DEFAULT;
}

uint16_t disc_node_id_from_addr(const struct in6_addr *a)
{
	uint16_t id = (uint16_t)(a->s6_addr[14] << 8 | a->s6_addr[15]);

	if (id == 0) {
		/* §15.10: 0 marks a free slot at real receivers; fold the rest of the interface id in. */
		for (int i = 8; i < 14; i += 2)
			id ^= (uint16_t)(a->s6_addr[i] << 8 | a->s6_addr[i + 1]);
		if (id == 0)
			id = 1;
	}
	return id;
}

int disc_new(const struct disc_options *o, const struct disc_callbacks *cb, struct disc **ret)
{
	struct disc *d;

	if (o->node_id == 0 || o->n_links == 0 || o->max_participants == 0 || o->max_subs == 0 ||
	    o->n_pub > 16 || o->n_sub > 16 || o->max_frame < 16 || cb == NULL || cb->send == NULL)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return -ENOMEM;
	d->o = *o;
	if (d->o.max_frame > sizeof(d->buf))
		d->o.max_frame = sizeof(d->buf);
	d->cb = *cb;
	d->parts = calloc(o->max_participants, sizeof(*d->parts));
	d->subs = calloc(o->max_subs, sizeof(*d->subs));
	if (d->parts == NULL || d->subs == NULL) {
		disc_free(d);
		return -ENOMEM;
	}
	*ret = d;
	return 0;
}

void disc_free(struct disc *d)
{
	if (d == NULL)
		return;
	free(d->parts);
	free(d->subs);
	free(d);
}

/* ---------------- sending ------------------------------------------------- */

static struct disc_locator disc_group(uint32_t link, uint8_t group, uint16_t port)
{
	struct disc_locator l = {
	    .group = true, .port = (uint16_t)(port + SNPS_MCAST_PORT_OFFSET), .link = link};

	l.ip.s6_addr[0] = 0xff;
	l.ip.s6_addr[1] = 0x02;
	l.ip.s6_addr[15] = group;
	return l;
}

/*
 * One builtin sample in one frame: [DOMAIN 1] TOPIC [ADDRESS] DATA, the §7
 * recipe, then STATUS status when not 0 (last, so that a real receiver,
 * which skips it, or reads it as the SEQNR of a DATA that never follows,
 * does with the frame what it does without it).
 */
static int disc_build(struct disc *d, uint16_t topic, const struct snps_addr *addr, const uint8_t *sample,
		      uint32_t len, uint8_t status, uint32_t *ret_len)
{
	struct snps_frame_options fo;
	struct snps_frame f;
	struct snps_sample_meta m = {.domain = SNPS_BUILTIN_DOMAIN, .topic = topic, .addr = addr};
	size_t flen;
	int rc;

	snps_frame_options_init(&fo);
	fo.max_frame = d->o.max_frame;
	rc = snps_frame_init(&f, d->buf, sizeof(d->buf), &fo);
	if (rc == 0)
		rc = snps_frame_add_sample(&f, &m, sample, len);
	if (rc == 0 && status != 0)
		rc = snps_frame_put_skippable(&f, (uint8_t)(status << 4 | SNPS_BT_STATUS), NULL, 0);
	if (rc == 0)
		rc = snps_frame_finish(&f, &flen);
	if (rc < 0)
		return rc;
	*ret_len = (uint32_t)flen;
	return 0;
}

static void disc_emit(struct disc *d, uint32_t len, const struct disc_locator *dst)
{
	d->c.frames_out++;
	d->cb.send(d->cb.ctx, d->buf, len, dst);
}

/* Endpoint announcements go to ff02::30 on every link and to every participant that asked for unicast. */
static void disc_emit_endpoint(struct disc *d, uint32_t len)
{
	for (uint32_t l = 0; l < d->o.n_links; l++) {
		struct disc_locator g = disc_group(l, SNPS_GROUP_ENDPOINT, d->o.port);

		disc_emit(d, len, &g);
	}
	for (uint32_t i = 0; i < d->n_parts; i++) {
		const struct disc_participant *p = &d->parts[i];
		struct disc_locator u = {.ip = p->src, .port = p->src_port, .link = p->link};

		if (p->adv_unicast)
			disc_emit(d, len, &u);
	}
}

static void disc_send_participant(struct disc *d)
{
	struct snps_participant v = {.key = d->o.node_id};
	uint8_t s[SNPS_PARTICIPANT_SIZE];
	struct snps_addr a;
	uint32_t len;

	if (d->o.unicast)
		snps_addr_unicast(&a);
	else
		snps_addr_link_group(SNPS_GROUP_ENDPOINT, &a);
	snps_participant_encode(&v, s, sizeof(s));
	if (disc_build(d, SNPS_BUILTIN_PARTICIPANT, &a, s, sizeof(s), d->o.packs ? SNPS_STATUS_PACKS : 0,
		       &len) < 0)
		return;
	for (uint32_t l = 0; l < d->o.n_links; l++) {
		struct disc_locator g = disc_group(l, SNPS_GROUP_PARTICIPANT, d->o.port);

		disc_emit(d, len, &g);
	}
}

static void disc_send_publications(struct disc *d)
{
	for (uint32_t i = 0; i < d->o.n_pub; i++) {
		/* Key = writer index: real nodes without reliability compiled in (§10.1). */
		struct snps_endpoint v = {
		    .key = (uint16_t)i, .participant = d->o.node_id, .topic_id = d->o.pub_topics[i]};
		uint8_t s[SNPS_ENDPOINT_SIZE];
		uint32_t len;

		snps_endpoint_encode(&v, s, sizeof(s));
		if (disc_build(d, SNPS_BUILTIN_PUBLICATION, NULL, s, sizeof(s), 0, &len) == 0)
			disc_emit_endpoint(d, len);
	}
}

static void disc_send_subscription(struct disc *d, uint32_t reader)
{
	struct snps_endpoint v = {
	    .key = (uint16_t)reader, .participant = d->o.node_id, .topic_id = d->o.sub_topics[reader]};
	uint8_t s[SNPS_ENDPOINT_SIZE];
	struct snps_addr a;
	uint32_t len;

	if (d->o.unicast)
		snps_addr_unicast(&a);
	else
		snps_addr_link_group(SNPS_GROUP_DATA, &a);
	snps_endpoint_encode(&v, s, sizeof(s));
	if (disc_build(d, SNPS_BUILTIN_SUBSCRIPTION, &a, s, sizeof(s), 0, &len) == 0)
		disc_emit_endpoint(d, len);
}

void disc_start(struct disc *d, int64_t now_ns)
{
	d->started = true;
	disc_send_participant(d);
	disc_send_publications(d);
	d->next_part_ns = now_ns + (int64_t)d->o.participant_ms * 1000000;
	d->next_pub_ns = now_ns + (int64_t)d->o.publication_ms * 1000000;
}

/* ---------------- tables -------------------------------------------------- */

static struct disc_participant *disc_part_find(struct disc *d, uint16_t id)
{
	for (uint32_t i = 0; i < d->n_parts; i++) {
		if (d->parts[i].id == id)
			return &d->parts[i];
	}
	return NULL;
}

static bool disc_expired(const struct disc *d, int64_t last_ns, int64_t now_ns)
{
	return d->o.expire_ms != 0 && now_ns - last_ns > (int64_t)d->o.expire_ms * 1000000;
}

static void disc_expire(struct disc *d, int64_t now_ns)
{
	bool changed = false;

	for (uint32_t i = 0; i < d->n_parts;) {
		if (disc_expired(d, d->parts[i].last_ns, now_ns)) {
			d->parts[i] = d->parts[--d->n_parts];
			d->c.participants_expired++;
		} else {
			i++;
		}
	}
	for (uint32_t i = 0; i < d->n_subs;) {
		struct disc_sub *s = &d->subs[i];
		const struct disc_participant *p = disc_part_find(d, s->participant);
		int64_t last = s->last_ns;

		/* Real subscribers only re-announce on our Publications: the participant's own lease counts
		 * too. */
		if (p != NULL && p->last_ns > last)
			last = p->last_ns;
		if (disc_expired(d, last, now_ns)) {
			*s = d->subs[--d->n_subs];
			d->c.subs_expired++;
			changed = true;
		} else {
			i++;
		}
	}
	if (changed && d->cb.changed != NULL)
		d->cb.changed(d->cb.ctx);
}

void disc_tick(struct disc *d, int64_t now_ns)
{
	if (!d->started)
		disc_start(d, now_ns);
	disc_expire(d, now_ns);
	if (d->o.participant_ms != 0 && now_ns >= d->next_part_ns) {
		disc_send_participant(d);
		d->next_part_ns = now_ns + (int64_t)d->o.participant_ms * 1000000;
	}
	if (d->o.publication_ms != 0 && now_ns >= d->next_pub_ns) {
		disc_send_publications(d);
		d->next_pub_ns = now_ns + (int64_t)d->o.publication_ms * 1000000;
	}
}

/* ---------------- receiving ----------------------------------------------- */

static void disc_on_participant(struct disc *d, int64_t now_ns, const struct snps_participant *v,
				const struct snps_addr *addr, const struct in6_addr *src, uint16_t port,
				uint32_t link)
{
	struct disc_participant *p;

	if (v->key == 0) {
		d->c.ignored++;
		return;
	}
	if (v->key == d->o.node_id) {
		/* netif drops our own frames before they get here: this is another node. */
		d->c.id_clash++;
		return;
	}
	p = disc_part_find(d, v->key);
	if (p != NULL) {
		p->last_ns = now_ns;
		p->src = *src;
		p->src_port = port;
		p->link = link;
		if (addr != NULL)
			p->adv_unicast = addr->cast == SNPS_CAST_UNICAST;
		return;
	}
	if (d->n_parts == d->o.max_participants) {
		d->c.table_full++;
		return;
	}
	p = &d->parts[d->n_parts++];
	memset(p, 0, sizeof(*p));
	p->id = v->key;
	p->src = *src;
	p->src_port = port;
	p->link = link;
	p->last_ns = now_ns;
	/* No ADDRESS: real receivers reuse a stale slot (§4.6); the multicast default is the safe reading. */
	p->adv_unicast = addr != NULL && addr->cast == SNPS_CAST_UNICAST;
	d->c.participants_new++;
	/* §10.3: publications first, then our participant, as the capture shows. */
	disc_send_publications(d);
	disc_send_participant(d);
}

static void disc_on_publication(struct disc *d, const struct snps_endpoint *v)
{
	for (uint32_t i = 0; i < d->o.n_sub; i++) {
		if (d->o.sub_topics[i] == v->topic_id) {
			/* §10.5 step 5: answer every Publication, also repeated ones. */
			disc_send_subscription(d, i);
			return;
		}
	}
	d->c.ignored++;
}

static void disc_on_subscription(struct disc *d, int64_t now_ns, const struct snps_endpoint *v,
				 const struct snps_addr *addr, const struct in6_addr *src, uint16_t port,
				 uint32_t link)
{
	struct disc_locator loc = {.link = link};
	bool ours = false;
	struct disc_sub *s;

	for (uint32_t i = 0; i < d->o.n_pub; i++)
		ours |= d->o.pub_topics[i] == v->topic_id;
	if (!ours || v->participant == 0 || v->participant == d->o.node_id) {
		d->c.ignored++;
		return;
	}
	if (addr != NULL && addr->cast != SNPS_CAST_UNICAST) {
		if (snps_addr_group(addr, loc.ip.s6_addr) < 0) {
			d->c.ignored++;
			return;
		}
		/* §4.6: the group is reached on the receiver's own base port + 20. */
		loc.group = true;
		loc.port = (uint16_t)(d->o.port + SNPS_MCAST_PORT_OFFSET);
	} else {
		/* Unicast (or no ADDRESS): the frame's source locator. */
		loc.ip = *src;
		loc.port = port;
	}
	for (uint32_t i = 0; i < d->n_subs; i++) {
		s = &d->subs[i];
		if (s->participant == v->participant && s->topic == v->topic_id) {
			bool moved = memcmp(&s->loc, &loc, sizeof(loc)) != 0;

			s->loc = loc;
			s->last_ns = now_ns;
			d->c.subs_refreshed++;
			if (moved && d->cb.changed != NULL)
				d->cb.changed(d->cb.ctx);
			return;
		}
	}
	if (d->n_subs == d->o.max_subs) {
		d->c.table_full++;
		return;
	}
	s = &d->subs[d->n_subs++];
	s->participant = v->participant;
	s->topic = v->topic_id;
	s->loc = loc;
	s->last_ns = now_ns;
	d->c.subs_new++;
	if (d->cb.changed != NULL)
		d->cb.changed(d->cb.ctx);
}

void disc_receive(struct disc *d, int64_t now_ns, uint16_t topic, const uint8_t *sample, uint32_t len,
		  const struct snps_addr *addr, const struct in6_addr *src, uint16_t src_port, uint32_t link)
{
	struct snps_participant p;
	struct snps_endpoint e;

	switch (topic) {
	case SNPS_BUILTIN_PARTICIPANT:
		if (snps_participant_decode(sample, len, &p) == 0)
			disc_on_participant(d, now_ns, &p, addr, src, src_port, link);
		return;
	case SNPS_BUILTIN_PUBLICATION:
		if (snps_endpoint_decode(sample, len, &e) == 0)
			disc_on_publication(d, &e);
		return;
	case SNPS_BUILTIN_SUBSCRIPTION:
		if (snps_endpoint_decode(sample, len, &e) == 0)
			disc_on_subscription(d, now_ns, &e, addr, src, src_port, link);
		return;
	default:
		/* DCPSTopic, Location, Management, security: not used by this daemon. */
		d->c.ignored++;
		return;
	}
}

const struct disc_sub *disc_subs(const struct disc *d, uint32_t *ret_n)
{
	*ret_n = d->n_subs;
	return d->subs;
}

const struct disc_participant *disc_participants(const struct disc *d, uint32_t *ret_n)
{
	*ret_n = d->n_parts;
	return d->parts;
}

const struct disc_counters *disc_counters(const struct disc *d)
{
	return &d->c;
}

uint16_t disc_node_id(const struct disc *d)
{
	return d->o.node_id;
}
