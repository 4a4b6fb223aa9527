/* SPDX-License-Identifier: MIT */
/*
 * fake_dcps.c - see fake_dcps.h.
 *
 * OVERVIEW
 * Handles given to the generated code are pointers into fake.topics and
 * fake.endpoints, so a handle the fake never gave out is recognised and
 * counted as an error instead of being dereferenced.
 */
#include "fake_dcps.h"

#include <stdarg.h>

struct fake_state fake;
static uint8_t fake_log_level = 1;

void fake_reset(void)
{
	memset(&fake, 0, sizeof(fake));
}

struct fake_endpoint *fake_endpoint_of(const void *handle)
{
	for (size_t i = 0; i < fake.n_endpoints; i++)
		if (handle == &fake.endpoints[i])
			return &fake.endpoints[i];
	return NULL;
}

static struct fake_topic *fake_topic_of(const void *handle)
{
	for (size_t i = 0; i < fake.n_topics; i++)
		if (handle == &fake.topics[i])
			return &fake.topics[i];
	return NULL;
}

void Log_setLvl(uint8_t lvl)
{
	fake_log_level = lvl;
}

void sdds_dcps_log(uint8_t lvl, const char *func, const char *fmt, ...)
{
	va_list ap;

	if (lvl < fake_log_level)
		return;
	fprintf(stderr, "[fake %u] %s: ", lvl, func);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

uint16_t NodeConfig_getNodeID(void)
{
	return 0xD26A;
}

void sdds_qos_init(sdds_qos *qos)
{
	/* The defaults sdds.h documents. */
	qos->reliability = SDDS_BEST_EFFORT;
	qos->history_depth = 64;
	qos->max_blocking_ms = 100;
}

rc_t sdds_dcps_init(const char *app_name)
{
	fake.init_calls++;
	if (fake.fail_init)
		return SDDS_RT_FAIL;
	snprintf(fake.app_name, sizeof(fake.app_name), "%s", app_name);
	return SDDS_RT_OK;
}

sdds_client *sdds_dcps_client(void)
{
	return NULL;
}

sdds_topic *sdds_dcps_topic(const sdds_topic_desc *desc)
{
	uint32_t sum = 0;
	struct fake_topic *t;

	if (fake.fail_topic_calls > 0) {
		fake.fail_topic_calls--;
		return NULL;
	}
	if (fake.app_name[0] == '\0' || desc == NULL || fake.n_topics == FAKE_MAX_TOPICS) {
		fake.errors++;
		return NULL;
	}
	/* What the broker checks: the fields add up to the sample size. */
	for (size_t i = 0; i < desc->n_fields; i++)
		sum += desc->fields[i].size;
	if (sum != desc->sample_size || desc->sample_size > FAKE_MAX_SAMPLE) {
		fake.errors++;
		return NULL;
	}
	t = &fake.topics[fake.n_topics++];
	t->desc = desc;
	return (sdds_topic *)(void *)t;
}

static void *fake_endpoint_new(sdds_topic *topic, const sdds_qos *qos, bool writer)
{
	struct fake_topic *t = fake_topic_of(topic);
	struct fake_endpoint *e;

	if (t == NULL || qos == NULL || fake.n_endpoints == FAKE_MAX_ENDPOINTS) {
		fake.errors++;
		return NULL;
	}
	e = &fake.endpoints[fake.n_endpoints++];
	e->writer = writer;
	e->topic = t;
	e->qos = *qos;
	return e;
}

DDS_DataWriter sdds_dcps_writer(sdds_topic *topic, const sdds_qos *qos)
{
	return fake_endpoint_new(topic, qos, true);
}

DDS_DataReader sdds_dcps_reader(sdds_topic *topic, const sdds_qos *qos)
{
	return fake_endpoint_new(topic, qos, false);
}

DDS_ReturnCode_t sdds_dcps_retcode(int err)
{
	return err == 0 ? DDS_RETCODE_OK : DDS_RETCODE_ERROR;
}

DDS_ReturnCode_t sdds_dcps_write(DDS_DataWriter writer, const void *wire, size_t len)
{
	struct fake_endpoint *e = fake_endpoint_of(writer);
	struct fake_topic *t;

	if (e == NULL || !e->writer || wire == NULL || len != e->topic->desc->sample_size) {
		fake.errors++;
		return DDS_RETCODE_BAD_PARAMETER;
	}
	t = e->topic;
	fake.writes++;
	memcpy(fake.last_written, wire, len);
	fake.last_written_len = len;
	if (t->queued == FAKE_MAX_QUEUE)
		return DDS_RETCODE_OK; /* best effort: dropped */
	memcpy(t->queue[(t->head + t->queued) % FAKE_MAX_QUEUE], wire, len);
	t->queued++;
	return DDS_RETCODE_OK;
}

DDS_ReturnCode_t sdds_dcps_take(DDS_DataReader reader, void *wire, size_t len)
{
	struct fake_endpoint *e = fake_endpoint_of(reader);
	struct fake_topic *t;

	if (e == NULL || e->writer || wire == NULL || len < e->topic->desc->sample_size) {
		fake.errors++;
		return DDS_RETCODE_BAD_PARAMETER;
	}
	t = e->topic;
	if (t->queued == 0)
		return DDS_RETCODE_NO_DATA;
	memcpy(wire, t->queue[t->head], t->desc->sample_size);
	t->head = (t->head + 1) % FAKE_MAX_QUEUE;
	t->queued--;
	fake.takes++;
	return DDS_RETCODE_OK;
}

DDS_ReturnCode_t DDS_DataReader_set_listener(DDS_DataReader reader,
					     const struct DDS_DataReaderListener *listener,
					     const DDS_StatusMask mask)
{
	struct fake_endpoint *e = fake_endpoint_of(reader);

	(void)mask;
	if (e == NULL || e->writer) {
		fake.errors++;
		return DDS_RETCODE_BAD_PARAMETER;
	}
	e->listener = listener;
	return DDS_RETCODE_OK;
}

unsigned fake_notify(const void *writer_handle)
{
	struct fake_endpoint *w = fake_endpoint_of(writer_handle);
	unsigned n = 0;

	if (w == NULL)
		return 0;
	for (size_t i = 0; i < fake.n_endpoints; i++) {
		struct fake_endpoint *e = &fake.endpoints[i];
		if (!e->writer && e->topic == w->topic && e->listener != NULL &&
		    e->listener->on_data_available) {
			e->listener->on_data_available(e);
			n++;
		}
	}
	return n;
}
