/* SPDX-License-Identifier: MIT */
/*
 * builtin.c - layouts and codecs of the builtin topic samples.
 *
 * OVERVIEW
 * Static const layouts, one per builtin id, checked by the tests against
 * the sizes of §10.1. Every multi-byte field is an unsigned 16-bit number
 * in canonical order except Location's expiration and age (signed); the raw
 * slots (DCPSTopic name, Management mKey/mValue, the security strings) are
 * modelled as STRING fields so that byte-order conversion leaves them alone.
 */
#include <string.h>

#include "snps/builtin.h"

#define U16                                                                                                  \
	{                                                                                                    \
		SNPS_FIELD_USHORT, 2                                                                         \
	}
#define I16                                                                                                  \
	{                                                                                                    \
		SNPS_FIELD_SHORT, 2                                                                          \
	}
#define RAW(n)                                                                                               \
	{                                                                                                    \
		SNPS_FIELD_STRING, (n)                                                                       \
	}

static const struct snps_field participant_fields[] = {U16};
static const struct snps_field dcpstopic_fields[] = {U16, RAW(SNPS_DCPSTOPIC_NAME_LEN)};
static const struct snps_field endpoint_fields[] = {U16, U16, U16};
/* §12.4: msgid, key, message_class_id[16], class_id[16], 3 x (key[16], value[50]). */
static const struct snps_field stateless_fields[] = {
    U16, U16, RAW(16), RAW(16), RAW(16), RAW(50), RAW(16), RAW(50), RAW(16), RAW(50),
};
static const struct snps_field location_fields[] = {U16, U16, U16, U16, U16, U16, U16, I16, I16};
static const struct snps_field management_fields[] = {U16, U16, RAW(SNPS_MANAGEMENT_SLOT),
						      RAW(SNPS_MANAGEMENT_SLOT)};

#define LAYOUT(a)                                                                                            \
	{                                                                                                    \
		(a), sizeof(a) / sizeof((a)[0])                                                              \
	}

/* Indexed by builtin id; [0] is no builtin. */
static const struct snps_layout layouts[8] = {
    [SNPS_BUILTIN_PARTICIPANT] = LAYOUT(participant_fields),
    [SNPS_BUILTIN_TOPIC] = LAYOUT(dcpstopic_fields),
    [SNPS_BUILTIN_PUBLICATION] = LAYOUT(endpoint_fields),
    [SNPS_BUILTIN_SUBSCRIPTION] = LAYOUT(endpoint_fields),
    [SNPS_BUILTIN_STATELESS] = LAYOUT(stateless_fields),
    [SNPS_BUILTIN_LOCATION] = LAYOUT(location_fields),
    [SNPS_BUILTIN_MANAGEMENT] = LAYOUT(management_fields),
};

static const uint16_t sizes[8] = {
    [SNPS_BUILTIN_PARTICIPANT] = SNPS_PARTICIPANT_SIZE, [SNPS_BUILTIN_TOPIC] = SNPS_DCPSTOPIC_SIZE,
    [SNPS_BUILTIN_PUBLICATION] = SNPS_ENDPOINT_SIZE,	[SNPS_BUILTIN_SUBSCRIPTION] = SNPS_ENDPOINT_SIZE,
    [SNPS_BUILTIN_STATELESS] = SNPS_STATELESS_SIZE,	[SNPS_BUILTIN_LOCATION] = SNPS_LOCATION_SIZE,
    [SNPS_BUILTIN_MANAGEMENT] = SNPS_MANAGEMENT_SIZE,
};

bool snps_builtin_is(uint16_t topic)
{
	return topic >= SNPS_BUILTIN_PARTICIPANT && topic <= SNPS_BUILTIN_MANAGEMENT;
}

int snps_builtin_size(uint16_t topic, uint32_t *ret_size)
{
	if (!snps_builtin_is(topic))
		return SNPS_ENOENT;
	*ret_size = sizes[topic];
	return 0;
}

const struct snps_layout *snps_builtin_layout(uint16_t topic)
{
	return snps_builtin_is(topic) ? &layouts[topic] : NULL;
}

int snps_builtin_lookup(void *ctx, uint8_t domain, uint16_t topic, uint32_t *ret_size)
{
	(void)ctx;
	(void)domain;
	return snps_builtin_size(topic, ret_size);
}

static uint16_t ld(const uint8_t *p)
{
	return snps_load16(p, false);
}

static void st(uint8_t *p, uint16_t v)
{
	snps_store16(p, v, false);
}

int snps_participant_encode(const struct snps_participant *v, uint8_t *buf, size_t cap)
{
	if (cap < SNPS_PARTICIPANT_SIZE)
		return SNPS_EMSGSIZE;
	st(buf, v->key);
	return 0;
}

int snps_participant_decode(const uint8_t *sample, size_t len, struct snps_participant *ret)
{
	if (len != SNPS_PARTICIPANT_SIZE)
		return SNPS_EMSGSIZE;
	ret->key = ld(sample);
	return 0;
}

int snps_endpoint_encode(const struct snps_endpoint *v, uint8_t *buf, size_t cap)
{
	if (cap < SNPS_ENDPOINT_SIZE)
		return SNPS_EMSGSIZE;
	st(buf, v->key);
	st(buf + 2, v->participant);
	st(buf + 4, v->topic_id);
	return 0;
}

int snps_endpoint_decode(const uint8_t *sample, size_t len, struct snps_endpoint *ret)
{
	if (len != SNPS_ENDPOINT_SIZE)
		return SNPS_EMSGSIZE;
	ret->key = ld(sample);
	ret->participant = ld(sample + 2);
	ret->topic_id = ld(sample + 4);
	return 0;
}

int snps_dcpstopic_encode(const struct snps_dcpstopic *v, uint8_t *buf, size_t cap)
{
	size_t n = 0;

	/* The name array may lack a NUL: scan no further than it. */
	while (n < sizeof(v->name) && v->name[n] != '\0')
		n++;
	if (n > SNPS_DCPSTOPIC_NAME_LEN)
		return SNPS_EINVAL;
	if (cap < SNPS_DCPSTOPIC_SIZE)
		return SNPS_EMSGSIZE;
	st(buf, v->key);
	memcpy(buf + 2, v->name, n);
	memset(buf + 2 + n, 0, SNPS_DCPSTOPIC_NAME_LEN - n);
	return 0;
}

int snps_dcpstopic_decode(const uint8_t *sample, size_t len, struct snps_dcpstopic *ret)
{
	size_t n = 0;

	if (len != SNPS_DCPSTOPIC_SIZE)
		return SNPS_EMSGSIZE;
	while (n < SNPS_DCPSTOPIC_NAME_LEN && sample[2 + n] != 0)
		n++;
	ret->key = ld(sample);
	memcpy(ret->name, sample + 2, n);
	memset(ret->name + n, 0, sizeof(ret->name) - n);
	return 0;
}

int snps_location_encode(const struct snps_location *v, uint8_t *buf, size_t cap)
{
	if (cap < SNPS_LOCATION_SIZE)
		return SNPS_EMSGSIZE;
	st(buf, v->key);
	st(buf + 2, v->device);
	st(buf + 4, v->x);
	st(buf + 6, v->y);
	st(buf + 8, v->z);
	st(buf + 10, v->width);
	st(buf + 12, v->length);
	st(buf + 14, (uint16_t)v->expiration);
	st(buf + 16, (uint16_t)v->age);
	return 0;
}

static int16_t to_i16(uint16_t v)
{
	return v <= INT16_MAX ? (int16_t)v : (int16_t)(-(int32_t)(uint16_t)~v - 1);
}

int snps_location_decode(const uint8_t *sample, size_t len, struct snps_location *ret)
{
	if (len != SNPS_LOCATION_SIZE)
		return SNPS_EMSGSIZE;
	ret->key = ld(sample);
	ret->device = ld(sample + 2);
	ret->x = ld(sample + 4);
	ret->y = ld(sample + 6);
	ret->z = ld(sample + 8);
	ret->width = ld(sample + 10);
	ret->length = ld(sample + 12);
	ret->expiration = to_i16(ld(sample + 14));
	ret->age = to_i16(ld(sample + 16));
	return 0;
}

int snps_management_encode(const struct snps_management *v, uint8_t *buf, size_t cap)
{
	if (cap < SNPS_MANAGEMENT_SIZE)
		return SNPS_EMSGSIZE;
	st(buf, v->key);
	st(buf + 2, v->participant);
	memcpy(buf + 4, v->mkey, SNPS_MANAGEMENT_SLOT);
	memcpy(buf + 4 + SNPS_MANAGEMENT_SLOT, v->mvalue, SNPS_MANAGEMENT_SLOT);
	return 0;
}

int snps_management_decode(const uint8_t *sample, size_t len, struct snps_management *ret)
{
	if (len != SNPS_MANAGEMENT_SIZE)
		return SNPS_EMSGSIZE;
	ret->key = ld(sample);
	ret->participant = ld(sample + 2);
	memcpy(ret->mkey, sample + 4, SNPS_MANAGEMENT_SLOT);
	memcpy(ret->mvalue, sample + 4 + SNPS_MANAGEMENT_SLOT, SNPS_MANAGEMENT_SLOT);
	return 0;
}

uint16_t snps_publication_key(uint16_t node_id, uint16_t index, bool reliability)
{
	if (!reliability)
		return index;
	return (uint16_t)(((uint32_t)node_id << 4) | index);
}
