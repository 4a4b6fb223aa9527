/* SPDX-License-Identifier: MIT */
/*
 * test_client_dcps.c - the sDDS runtime (dcps.h) linked with libsddsmono:
 * process-wide init, return-code mapping, write/take, listeners on the
 * callback thread, node id, logging levels. The tests run in order: the
 * runtime is a process-wide singleton.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sdds/dcps.h"

static const sdds_field fields[] = {
    {"id", SDDS_FIELD_USHORT, 2},
    {"temp", SDDS_FIELD_LONG, 4},
    {"name", SDDS_FIELD_STRING, 6},
};
static const sdds_topic_desc desc = {
    .name = "Temperature",
    .domain = 1,
    .id = 7,
    .sample_size = 12,
    .fields = fields,
    .n_fields = 3,
};

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static void test_before_init(void **state)
{
	(void)state;
	assert_null(sdds_dcps_client());
	assert_int_equal(NodeConfig_getNodeID(), 0);
	Log_setLvl(5); /* the failure below logs */
	assert_null(sdds_dcps_topic(&desc));
}

static void test_retcodes(void **state)
{
	(void)state;
	assert_int_equal(sdds_dcps_retcode(0), DDS_RETCODE_OK);
	assert_int_equal(sdds_dcps_retcode(-EAGAIN), DDS_RETCODE_NO_DATA);
	assert_int_equal(sdds_dcps_retcode(-ETIMEDOUT), DDS_RETCODE_TIMEOUT);
	assert_int_equal(sdds_dcps_retcode(-ENOTCONN), DDS_RETCODE_ERROR);
	assert_int_equal(sdds_dcps_retcode(-EINVAL), DDS_RETCODE_BAD_PARAMETER);
	assert_int_equal(sdds_dcps_retcode(-EMSGSIZE), DDS_RETCODE_BAD_PARAMETER);
	assert_int_equal(sdds_dcps_retcode(-ENOSPC), DDS_RETCODE_OUT_OF_RESOURCES);
	assert_int_equal(sdds_dcps_retcode(-ENOMEM), DDS_RETCODE_OUT_OF_RESOURCES);
	assert_int_equal(sdds_dcps_retcode(-EIO), DDS_RETCODE_ERROR);
}

static void test_init(void **state)
{
	sdds_client *c;

	(void)state;
	assert_int_equal(sdds_dcps_init("dcps-test"), SDDS_RT_OK);
	c = sdds_dcps_client();
	assert_non_null(c);
	assert_int_equal(sdds_dcps_init("again"), SDDS_RT_OK);
	assert_ptr_equal(sdds_dcps_client(), c);
	assert_true(sdds_client_connected(c));
	assert_int_not_equal(NodeConfig_getNodeID(), 0);
	assert_int_equal(NodeConfig_getNodeID(), NodeConfig_getNodeID());
}

static void test_write_take(void **state)
{
	sdds_topic *t = sdds_dcps_topic(&desc);
	sdds_qos q;
	DDS_DataWriter w;
	DDS_DataReader r;
	uint8_t out[12], in[12];

	(void)state;
	assert_non_null(t);
	sdds_qos_init(&q);
	w = sdds_dcps_writer(t, &q);
	r = sdds_dcps_reader(t, &q);
	assert_non_null(w);
	assert_non_null(r);

	assert_int_equal(sdds_dcps_take(r, in, sizeof(in)), DDS_RETCODE_NO_DATA);
	sdds_put_u16(out, 0x1234);
	sdds_put_u32(out + 2, (uint32_t)-215);
	memcpy(out + 6, "node1", 6);
	assert_int_equal(sdds_dcps_write(w, out, sizeof(out)), DDS_RETCODE_OK);
	assert_int_equal(sdds_dcps_take(r, in, sizeof(in)), DDS_RETCODE_OK);
	assert_memory_equal(in, out, sizeof(out));
	assert_int_equal(sdds_get_u16(in), 0x1234);
	assert_int_equal((int32_t)sdds_get_u32(in + 2), -215);
	assert_int_equal(sdds_dcps_take(r, in, sizeof(in)), DDS_RETCODE_NO_DATA);

	assert_int_equal(sdds_dcps_write(w, out, 5), DDS_RETCODE_BAD_PARAMETER);
	assert_int_equal(sdds_dcps_write(NULL, out, sizeof(out)), DDS_RETCODE_BAD_PARAMETER);
	assert_int_equal(sdds_dcps_take(NULL, in, sizeof(in)), DDS_RETCODE_BAD_PARAMETER);
	assert_int_equal(sdds_dcps_take(r, in, 4), DDS_RETCODE_BAD_PARAMETER);
	assert_null(sdds_dcps_writer(NULL, &q));
	assert_null(sdds_dcps_reader(NULL, &q));

	sdds_writer_free(w);
	sdds_reader_free(r);
	sdds_topic_free(t);
}

static pthread_t main_thread;
static int avail_calls;
static int avail_wrong;
static DDS_DataReader avail_reader;

static void on_avail(DDS_DataReader reader)
{
	uint8_t b[12];

	if (reader != avail_reader || pthread_equal(pthread_self(), main_thread))
		__atomic_add_fetch(&avail_wrong, 1, __ATOMIC_SEQ_CST);
	if (sdds_dcps_take(reader, b, sizeof(b)) != DDS_RETCODE_OK)
		__atomic_add_fetch(&avail_wrong, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&avail_calls, 1, __ATOMIC_SEQ_CST);
}

static void test_listener(void **state)
{
	sdds_topic *t = sdds_dcps_topic(&desc);
	struct DDS_DataReaderListener l = {.on_data_available = on_avail};
	DDS_DataWriter w = sdds_dcps_writer(t, NULL);
	DDS_DataReader r = sdds_dcps_reader(t, NULL);
	uint8_t b[12] = {0};

	(void)state;
	main_thread = pthread_self();
	avail_reader = r;
	assert_int_equal(DDS_DataReader_set_listener(NULL, &l, DDS_STATUS_MASK_ANY),
			 DDS_RETCODE_BAD_PARAMETER);
	/* sDDS applications pass 0 as the mask. */
	assert_int_equal(DDS_DataReader_set_listener(r, &l, 0), DDS_RETCODE_OK);
	for (int i = 0; i < 5; i++)
		assert_int_equal(sdds_dcps_write(w, b, sizeof(b)), DDS_RETCODE_OK);
	for (int i = 0; i < 3000 && __atomic_load_n(&avail_calls, __ATOMIC_SEQ_CST) < 5; i++)
		sleep_ms(1);
	assert_int_equal(__atomic_load_n(&avail_calls, __ATOMIC_SEQ_CST), 5);
	assert_int_equal(__atomic_load_n(&avail_wrong, __ATOMIC_SEQ_CST), 0);

	assert_int_equal(DDS_DataReader_set_listener(r, NULL, 0), DDS_RETCODE_OK);
	assert_int_equal(sdds_dcps_write(w, b, sizeof(b)), DDS_RETCODE_OK);
	sleep_ms(30);
	assert_int_equal(__atomic_load_n(&avail_calls, __ATOMIC_SEQ_CST), 5);
	sdds_writer_free(w);
	sdds_reader_free(r);
	sdds_topic_free(t);
}

static char *capture_stderr(void (*fn)(void))
{
	static char buf[4096];
	FILE *tmp = tmpfile();
	int saved;
	size_t n;

	assert_non_null(tmp);
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = 0;
	fclose(tmp);
	return buf;
}

static void log_some(void)
{
	Log_setLvl(2);
	Log_debug("hidden-debug");
	Log_info("hidden-info %d", 1);
	Log_warn("shown-warn %d", 42);
	Log_error("shown-error %s\n", "x");
	Log_setLvl(4);
	Log_error("hidden-error");
	Log_panic("shown-panic");
}

static void test_log_levels(void **state)
{
	char *out;

	(void)state;
	out = capture_stderr(log_some);
	assert_null(strstr(out, "hidden"));
	assert_non_null(strstr(out, "shown-warn 42\n"));
	assert_non_null(strstr(out, "shown-error x\n"));
	assert_null(strstr(out, "x\n\n"));
	assert_non_null(strstr(out, "shown-panic\n"));
	assert_non_null(strstr(out, "log_some"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_before_init), cmocka_unit_test(test_retcodes),
	    cmocka_unit_test(test_init),	cmocka_unit_test(test_write_take),
	    cmocka_unit_test(test_listener),	cmocka_unit_test(test_log_levels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
