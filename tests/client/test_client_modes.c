/* SPDX-License-Identifier: MIT */
/*
 * test_client_modes.c - libsddsclient is only a client: asked for
 * monolithic mode (sdds_client_options.monolithic or $SDDS_MONOLITHIC) it
 * refuses with -ENOTSUP instead of running a broker or connecting
 * somewhere; without it, it connects to sddsd (here: to a path where no
 * daemon listens, so the error is the connection's).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sdds/sdds.h"

static void test_option_refused(void **state)
{
	sdds_client_options o;
	sdds_client *c = NULL;

	(void)state;
	sdds_client_options_init(&o);
	o.monolithic = true;
	o.reconnect = 0;
	assert_int_equal(sdds_client_new(&o, &c), -ENOTSUP);
	assert_null(c);
}

static void test_env_refused(void **state)
{
	sdds_client_options o;
	sdds_client *c = NULL;

	(void)state;
	assert_int_equal(setenv("SDDS_MONOLITHIC", "1", 1), 0);
	sdds_client_options_init(&o);
	o.reconnect = 0;
	assert_int_equal(sdds_client_new(&o, &c), -ENOTSUP);
	assert_null(c);
	assert_int_equal(unsetenv("SDDS_MONOLITHIC"), 0);
}

static void test_connects_otherwise(void **state)
{
	sdds_client_options o;
	sdds_client *c = NULL;
	int rc;

	(void)state;
	sdds_client_options_init(&o);
	o.socket_path = "/nonexistent/sddsd.sock";
	o.reconnect = 0;
	rc = sdds_client_new(&o, &c);
	assert_true(rc < 0);
	assert_int_not_equal(rc, -ENOTSUP);
	assert_null(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_option_refused),
	    cmocka_unit_test(test_env_refused),
	    cmocka_unit_test(test_connects_otherwise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
