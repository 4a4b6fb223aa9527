/* SPDX-License-Identifier: MIT */
/*
 * dcps.c - the sDDS application runtime (include/sdds/dcps.h) on the native
 * API: one process-wide client, DDS return codes, listeners, logging.
 *
 * OVERVIEW
 * sdds_dcps_init connects the process's client once (name from the
 * argument, socket from $SDDS_SOCKET through the default path; linked
 * with libsddsmono, the broker in the process); later calls return SDDS_RT_OK. The client lives
 * until the process ends: generated code holds its writers and readers for
 * the program's lifetime, as sDDS does.
 *
 * DDS handles are the native ones: a DDS_DataWriter is an sdds_writer *, a
 * DDS_DataReader an sdds_reader *. A DDS listener is a plain function
 * pointer; it travels as the native listener's argument and is called on
 * the callback-manager thread.
 *
 * Logging is the one place this library writes to stderr: the sDDS API
 * makes the application's Log_* calls part of it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <unistd.h>

#include "internal.h"

#include "sdds/dcps.h"

static pthread_mutex_t dcps_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(sdds_client *) dcps_client;
static _Atomic uint8_t dcps_log_level = 1;

static const char *const dcps_level_names[] = {"DEBUG", "INFO", "WARN", "ERROR", "PANIC", "PANIC"};

void Log_setLvl(uint8_t lvl)
{
	atomic_store_explicit(&dcps_log_level, lvl, memory_order_relaxed);
}

void sdds_dcps_log(uint8_t lvl, const char *func, const char *fmt, ...)
{
	va_list ap;

	if (lvl < atomic_load_explicit(&dcps_log_level, memory_order_relaxed))
		return;
	if (lvl > 5)
		lvl = 5;
	/* One line per call even when several threads log. */
	flockfile(stderr);
	fprintf(stderr, "[%s] %s: ", dcps_level_names[lvl], func ? func : "?");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (!*fmt || fmt[strlen(fmt) - 1] != '\n')
		fputc('\n', stderr);
	funlockfile(stderr);
}

rc_t sdds_dcps_init(const char *app_name)
{
	sdds_client_options opts;
	sdds_client *c;
	int rc;

	pthread_mutex_lock(&dcps_lock);
	if (atomic_load(&dcps_client)) {
		pthread_mutex_unlock(&dcps_lock);
		return SDDS_RT_OK;
	}
	sdds_client_options_init(&opts);
	opts.name = app_name;
	rc = sdds_client_new(&opts, &c);
	if (rc == 0)
		atomic_store(&dcps_client, c);
	pthread_mutex_unlock(&dcps_lock);
	if (rc < 0) {
		sdds_dcps_log(3, __func__, "cannot connect to sddsd: %s", sdds_strerror(rc));
		return SDDS_RT_FAIL;
	}
	return SDDS_RT_OK;
}

sdds_client *sdds_dcps_client(void)
{
	return atomic_load(&dcps_client);
}

sdds_topic *sdds_dcps_topic(const sdds_topic_desc *desc)
{
	sdds_client *c = sdds_dcps_client();
	sdds_topic *t;
	int rc;

	if (!c) {
		sdds_dcps_log(3, __func__, "sDDS_init() was not called");
		return NULL;
	}
	rc = sdds_topic_new(c, desc, &t);
	if (rc < 0) {
		sdds_dcps_log(3, __func__, "topic %s: %s", desc && desc->name ? desc->name : "?",
			      sdds_strerror(rc));
		return NULL;
	}
	return t;
}

DDS_DataWriter sdds_dcps_writer(sdds_topic *topic, const sdds_qos *qos)
{
	sdds_writer *w;
	int rc;

	rc = sdds_writer_new(topic, qos, &w);
	if (rc < 0) {
		sdds_dcps_log(3, __func__, "cannot create a writer: %s", sdds_strerror(rc));
		return NULL;
	}
	return w;
}

DDS_DataReader sdds_dcps_reader(sdds_topic *topic, const sdds_qos *qos)
{
	sdds_reader *r;
	int rc;

	rc = sdds_reader_new(topic, qos, &r);
	if (rc < 0) {
		sdds_dcps_log(3, __func__, "cannot create a reader: %s", sdds_strerror(rc));
		return NULL;
	}
	return r;
}

DDS_ReturnCode_t sdds_dcps_retcode(int err)
{
	switch (err) {
	case 0:
		return DDS_RETCODE_OK;
	case -EAGAIN:
		return DDS_RETCODE_NO_DATA;
	case -ETIMEDOUT:
		return DDS_RETCODE_TIMEOUT;
	case -EINVAL:
	case -EMSGSIZE:
		return DDS_RETCODE_BAD_PARAMETER;
	case -ENOSPC:
	case -ENOMEM:
		return DDS_RETCODE_OUT_OF_RESOURCES;
	case -EACCES:
		return DDS_RETCODE_ILLEGAL_OPERATION;
	case -ENOTCONN:
	default:
		return DDS_RETCODE_ERROR;
	}
}

DDS_ReturnCode_t sdds_dcps_write(DDS_DataWriter writer, const void *wire, size_t len)
{
	if (!writer || !wire)
		return DDS_RETCODE_BAD_PARAMETER;
	return sdds_dcps_retcode(sdds_writer_write(writer, wire, len));
}

DDS_ReturnCode_t sdds_dcps_take(DDS_DataReader reader, void *wire, size_t len)
{
	if (!reader || !wire)
		return DDS_RETCODE_BAD_PARAMETER;
	return sdds_dcps_retcode(sdds_reader_take(reader, wire, len, NULL, 0));
}

static void dcps_listener_trampoline(sdds_reader *reader, void *arg)
{
	DDS_DataReaderListener_DataAvailableListener fn;

	memcpy(&fn, &arg, sizeof(fn));
	fn(reader);
}

DDS_ReturnCode_t DDS_DataReader_set_listener(DDS_DataReader reader,
					     const struct DDS_DataReaderListener *listener,
					     const DDS_StatusMask mask)
{
	DDS_DataReaderListener_DataAvailableListener fn;
	void *arg;
	int rc;

	_Static_assert(sizeof(fn) == sizeof(arg), "a function pointer travels as void *");
	/* sDDS applications pass 0 for the mask and mean "data available". */
	(void)mask;
	if (!reader)
		return DDS_RETCODE_BAD_PARAMETER;
	if (!listener || !listener->on_data_available) {
		rc = sdds_reader_set_listener(reader, NULL, NULL);
	} else {
		fn = listener->on_data_available;
		memcpy(&arg, &fn, sizeof(arg));
		rc = sdds_reader_set_listener(reader, dcps_listener_trampoline, arg);
	}
	return sdds_dcps_retcode(rc);
}

uint16_t NodeConfig_getNodeID(void)
{
	sdds_client *c = sdds_dcps_client();
	uint32_t v;
	uint16_t id;

	if (!c)
		return 0;
	v = c->mono ? (uint32_t)getpid() : sdds_client_session_id(c);
	/* Fold all 32 bits so that nearby ids stay distinct and never 0. */
	id = (uint16_t)(v ^ (v >> 16));
	return id ? id : 1;
}
