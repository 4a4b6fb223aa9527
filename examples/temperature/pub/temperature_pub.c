/* SPDX-License-Identifier: MIT */
/*
 * temperature_pub - an sDDS application: publishes the temperature topic.
 *
 * Written the way sDDS applications are (sDDS_init(), a static sample,
 * DDS_TemperatureDataWriter_write() in a loop); the typed API comes from
 * linux_temperature_pub_sdds_impl.h, which sdds-gen generates from sdds.xml
 * at build time. Through libsddsclient the samples go to sddsd
 * ($SDDS_SOCKET or the default socket), not to the network directly.
 *
 *   temperature_pub [-n COUNT] [-i INTERVAL_MS]
 *
 * COUNT samples (default: $SDDS_EXAMPLE_COUNT, else forever), one every
 * INTERVAL_MS (default 1000). The values are 21, 22, 23... so that a
 * subscriber can tell whether it saw every sample in order.
 */
#include <getopt.h>
#include <time.h>
#include <unistd.h>

#include "linux_temperature_pub_sdds_impl.h"

static void usage(void)
{
	fprintf(stderr, "usage: temperature_pub [-n COUNT] [-i INTERVAL_MS]\n");
}

static int parse_count(const char *s, long *ret)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0)
		return -1;
	*ret = v;
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	DDS_ReturnCode_t ret;
	static Temperature temperature_pub;
	long count = 0, interval_ms = 1000; /* count 0: forever */
	const char *env = getenv("SDDS_EXAMPLE_COUNT");
	int opt;

	if (env != NULL && parse_count(env, &count) < 0) {
		fprintf(stderr, "temperature_pub: bad SDDS_EXAMPLE_COUNT '%s'\n", env);
		return EXIT_FAILURE;
	}
	while ((opt = getopt(argc, argv, "n:i:h")) != -1) {
		switch (opt) {
		case 'n':
			if (parse_count(optarg, &count) < 0) {
				usage();
				return EXIT_FAILURE;
			}
			break;
		case 'i':
			if (parse_count(optarg, &interval_ms) < 0) {
				usage();
				return EXIT_FAILURE;
			}
			break;
		default:
			usage();
			return opt == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
		}
	}

	Log_setLvl(3); /* errors and worse; 0 shows everything */
	if (sDDS_init() == SDDS_RT_FAIL) {
		Log_error("sDDS_init failed: is sddsd running?\n");
		return EXIT_FAILURE;
	}

	temperature_pub.device = NodeConfig_getNodeID();
	printf("Publishing topic 'temperature' as device %04X\n", temperature_pub.device);
	fflush(stdout);
	for (long i = 0; count == 0 || i < count; i++) {
		temperature_pub.value = (DDS_short)(21 + i);
		ret = DDS_TemperatureDataWriter_write(g_Temperature_writer, &temperature_pub, NULL);
		if (ret != DDS_RETCODE_OK)
			printf("Failed to send topic temperature\n");
		else
			printf("Send a temperature sample\n");
		fflush(stdout);
		/* Also after the last sample: the daemon takes it before we leave. */
		sleep_ms(interval_ms);
	}
	return EXIT_SUCCESS;
}
