/* SPDX-License-Identifier: MIT */
/* clang-format off: the point is sDDS's own style, unchanged. */
/*
 * An application source in the style of sDDS's Linux examples (old-style
 * main(), Log_setLvl, a static sample, an endless write loop), built
 * unchanged against the header sdds-gen generates from a captured node
 * configuration: this file only has to compile and link, it is not run.
 */
#include <unistd.h>
#include "linux_temperature_pub_sdds_impl.h"

int main()
{
	DDS_ReturnCode_t ret;

	Log_setLvl(4);
	if (sDDS_init() == SDDS_RT_FAIL) {
		return 1;
	}

	static Temperature temperature_pub;
	temperature_pub.device = NodeConfig_getNodeID();
	temperature_pub.value = 21;

	for (;;) {
		ret = DDS_TemperatureDataWriter_write(g_Temperature_writer, &temperature_pub, NULL);
		if (ret != DDS_RETCODE_OK)
			printf("Failed to send topic temperature\n");
		else
			printf("Send a temperature sample\n");
		Log_debug("node %04X\n", temperature_pub.device);
		sleep(1);
	}

	return 0;
}
