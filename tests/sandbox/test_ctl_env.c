/* SPDX-License-Identifier: MIT */
/*
 * test_ctl_env.c - libsddsclient takes the control socket a sandbox hands
 * over in $SDDS_CTL_FD (client-lib/remote.c, remote_env_fd), against a real
 * sddsd.
 *
 * Covers: the fd is used instead of any path, the variable is unset and the
 * fd made close-on-exec once claimed, sdds_client_free closes it; a bad
 * value, a descriptor that is no socket and a socket of the wrong type are
 * refused (and the variable is gone all the same); opts->ctl_fd >= 0 wins
 * and leaves the variable alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "sdds/sdds.h"
#include "sbtest.h"

static int ctl_connect(const struct sbtest_daemon *d)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->sock);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void set_fd_env(int fd)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", fd);
	assert_int_equal(setenv("SDDS_CTL_FD", v, 1), 0);
}

static int client_new(sdds_client **ret)
{
	sdds_client_options o;

	sdds_client_options_init(&o);
	o.socket_path = "/nonexistent/never/used.sock";
	return sdds_client_new(&o, ret);
}

static void test_env_fd_claimed(void **state)
{
	struct sbtest_daemon *d = *state;
	sdds_client *c = NULL;
	int fd = ctl_connect(d);

	set_fd_env(fd);
	assert_int_equal(client_new(&c), 0);
	assert_null(getenv("SDDS_CTL_FD"));
	assert_int_not_equal(sdds_client_session_id(c), 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	sdds_client_free(c);
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
}

static void test_env_fd_bad_value(void **state)
{
	sdds_client *c = NULL;

	(void)state;
	assert_int_equal(setenv("SDDS_CTL_FD", "3x", 1), 0);
	assert_int_equal(client_new(&c), -EBADF);
	assert_null(c);
	assert_null(getenv("SDDS_CTL_FD"));
	assert_int_equal(setenv("SDDS_CTL_FD", "-1", 1), 0);
	assert_int_equal(client_new(&c), -EBADF);
	assert_null(getenv("SDDS_CTL_FD"));
}

static void test_env_fd_not_a_socket(void **state)
{
	sdds_client *c = NULL;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	set_fd_env(p[0]);
	assert_int_equal(client_new(&c), -ENOTSOCK);
	assert_null(getenv("SDDS_CTL_FD"));
	close(p[0]);
	close(p[1]);
}

static void test_env_fd_wrong_type(void **state)
{
	sdds_client *c = NULL;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	set_fd_env(sv[0]);
	assert_int_equal(client_new(&c), -EPROTOTYPE);
	assert_null(getenv("SDDS_CTL_FD"));
	close(sv[0]);
	close(sv[1]);
}

static void test_opts_fd_wins(void **state)
{
	struct sbtest_daemon *d = *state;
	sdds_client_options o;
	sdds_client *c = NULL;
	int fd = ctl_connect(d);

	assert_int_equal(setenv("SDDS_CTL_FD", "not-used", 1), 0);
	sdds_client_options_init(&o);
	o.ctl_fd = fd;
	assert_int_equal(sdds_client_new(&o, &c), 0);
	assert_non_null(getenv("SDDS_CTL_FD"));
	assert_string_equal(getenv("SDDS_CTL_FD"), "not-used");
	sdds_client_free(c);
	unsetenv("SDDS_CTL_FD");
}

static int setup(void **state)
{
	static struct sbtest_daemon d;

	unsetenv("SDDS_CTL_FD");
	sbtest_daemon_start(&d);
	*state = &d;
	return 0;
}

static int teardown(void **state)
{
	unsetenv("SDDS_CTL_FD");
	sbtest_daemon_stop(*state);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_env_fd_claimed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_env_fd_bad_value, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_env_fd_not_a_socket, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_env_fd_wrong_type, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_opts_fd_wins, setup, teardown),
	};
	const char *sddsd = getenv("SDDSD");

	if (!sddsd || access(sddsd, X_OK) != 0) {
		fprintf(stderr, "skip: $SDDSD missing\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
