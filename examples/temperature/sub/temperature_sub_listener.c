/* SPDX-License-Identifier: MIT */
/*
 * temperature_sub_listener - an sDDS application: subscribes to the
 * temperature topic with a listener and prints every sample.
 *
 * Written the way sDDS applications are: sDDS_init(), a
 * DDS_DataReaderListener whose on_data_available takes the sample with
 * DDS_TemperatureDataReader_take_next_sample(), and the sDDS print format.
 * The listener runs on libsddsclient's callback-manager thread, once per
 * arrived sample.
 *
 *   temperature_sub_listener [-n COUNT] [-t TIMEOUT_S]
 *
 * Exits after COUNT samples (default: $SDDS_EXAMPLE_COUNT, else runs
 * forever), or with status 1 when TIMEOUT_S seconds pass first.
 */
#include <errno.h>
#include <getopt.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "linux_temperature_sub_listener_sdds_impl.h"

static long count; /* 0: forever */
static atomic_long received;
static sem_t all_received; /* posted once, by the listener, at COUNT samples */

static void on_temperature(DDS_DataReader reader)
{
	DDS_ReturnCode_t ret;
	static Temperature temperature_sub;
	Temperature *temperature_sub_p = &temperature_sub;

	ret = DDS_TemperatureDataReader_take_next_sample(reader, &temperature_sub_p, NULL);
	if (ret == DDS_RETCODE_NO_DATA) {
		Log_debug("no data for temperature\n");
		return;
	}
	if (ret != DDS_RETCODE_OK) {
		Log_error("cannot take a temperature sample: %d\n", (int)ret);
		return;
	}
	printf("Received a sample from topic 'temperature': {\n"
	       "   device => %04X\n"
	       "   value => %" PRId16 "\n"
	       "}\n",
	       temperature_sub_p->device, temperature_sub_p->value);
	fflush(stdout);
	if (atomic_fetch_add(&received, 1) + 1 == count)
		sem_post(&all_received);
}

static void usage(void)
{
	fprintf(stderr, "usage: temperature_sub_listener [-n COUNT] [-t TIMEOUT_S]\n");
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

int main(int argc, char **argv)
{
	DDS_ReturnCode_t ret;
	struct DDS_DataReaderListener temperature_listener = {.on_data_available = &on_temperature};
	const char *env = getenv("SDDS_EXAMPLE_COUNT");
	long timeout_s = 0;
	int opt;

	if (env != NULL && parse_count(env, &count) < 0) {
		fprintf(stderr, "temperature_sub_listener: bad SDDS_EXAMPLE_COUNT '%s'\n", env);
		return EXIT_FAILURE;
	}
	while ((opt = getopt(argc, argv, "n:t:h")) != -1) {
		switch (opt) {
		case 'n':
			if (parse_count(optarg, &count) < 0) {
				usage();
				return EXIT_FAILURE;
			}
			break;
		case 't':
			if (parse_count(optarg, &timeout_s) < 0) {
				usage();
				return EXIT_FAILURE;
			}
			break;
		default:
			usage();
			return opt == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
		}
	}
	if (sem_init(&all_received, 0, 0) < 0)
		return EXIT_FAILURE;

	Log_setLvl(3); /* errors and worse; 0 shows everything */
	if (sDDS_init() == SDDS_RT_FAIL) {
		Log_error("sDDS_init failed: is sddsd running?\n");
		return EXIT_FAILURE;
	}
	ret = DDS_DataReader_set_listener(g_Temperature_reader, &temperature_listener, DDS_STATUS_MASK_NONE);
	if (ret != DDS_RETCODE_OK) {
		Log_error("Unable to set the temperature listener.\n");
		return EXIT_FAILURE;
	}
	if (count > 0)
		printf("Waiting for %ld samples of topic 'temperature'\n", count);
	else
		printf("Waiting for samples of topic 'temperature'\n");
	fflush(stdout);

	for (;;) {
		int r;

		if (count > 0 && timeout_s > 0) {
			struct timespec deadline;
			clock_gettime(CLOCK_REALTIME, &deadline);
			deadline.tv_sec += timeout_s;
			r = sem_timedwait(&all_received, &deadline);
		} else if (count > 0) {
			r = sem_wait(&all_received);
		} else {
			sleep(10);
			continue;
		}
		if (r == 0)
			return EXIT_SUCCESS;
		if (errno == ETIMEDOUT) {
			fprintf(stderr, "temperature_sub_listener: %ld of %ld samples after %ld s\n",
				atomic_load(&received), count, timeout_s);
			return EXIT_FAILURE;
		}
		/* EINTR: wait again (the deadline restarts, which only lengthens it). */
	}
}
