/* SPDX-License-Identifier: MIT */
/* clang-format off: the point is sDDS's own style, unchanged. */
/*
 * A listener subscriber in the style of sDDS's Linux examples (a listener
 * struct with a designated initializer, NULL as the status mask, the sDDS
 * print format), built unchanged against the generated header: it only has
 * to compile and link, it is not run.
 */
#include <unistd.h>
#include "linux_temperature_sub_listener_sdds_impl.h"

static void on_temperature(DDS_DataReader reader);

int main()
{
	DDS_ReturnCode_t ret;

	Log_setLvl(4);
	if (sDDS_init() == SDDS_RT_FAIL) {
		return 1;
	}

	struct DDS_DataReaderListener listener = {.on_data_available = &on_temperature};

	ret = DDS_DataReader_set_listener(g_Temperature_reader, &listener, NULL);
	if (ret == DDS_RETCODE_ERROR) {
		Log_error("Unable to set the temperature listener.\n");
		return EXIT_FAILURE;
	}

	for (;;) {
		Log_debug("still here\n");
		sleep(10);
	}

	return EXIT_SUCCESS;
}

static void on_temperature(DDS_DataReader reader)
{
	DDS_ReturnCode_t ret;
	static Temperature t;
	Temperature *p = &t;

	ret = DDS_TemperatureDataReader_take_next_sample(reader, &p, NULL);
	if (ret == DDS_RETCODE_NO_DATA) {
		printf("no data for temperature\n");
	} else {
		printf("Received a sample from topic 'temperature': {\n"
		       "   device => %04X\n"
		       "   value => %" PRId16 "\n"
		       "}\n",
		       p->device, p->value);
		printf("%04X %" PRId16 "\n", p->device, p->value);
	}
}
