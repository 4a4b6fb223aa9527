/* SPDX-License-Identifier: MIT */
/*
 * test_ctl.c - control-socket framing over socketpair(AF_UNIX,
 * SOCK_SEQPACKET): round trips with descriptors, surplus and excess
 * descriptors closed, garbage and truncated packets, hang-up, credentials,
 * the default path.
 *
 * OVERVIEW
 * Descriptor leaks are measured by counting /proc/self/fd before and after
 * each scenario; received descriptors are compared with the sent ones by
 * (st_dev, st_ino).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ipc/ctl.h"

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own fd */
}

static void pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	assert_int_equal(fstat(a, &sa), 0);
	assert_int_equal(fstat(b, &sb), 0);
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Send raw bytes with n descriptors of fd, bypassing ctl.c. */
static void raw_send(int sock, const void *buf, size_t len, int fd, size_t n)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * 16)];
	} cbuf;
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	assert_true(n <= 16);
	if (n > 0) {
		struct cmsghdr *cm;

		memset(&cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
		for (size_t i = 0; i < n; i++)
			memcpy(CMSG_DATA(cm) + i * sizeof(int), &fd, sizeof(int));
	}
	assert_int_equal(sendmsg(sock, &msg, MSG_NOSIGNAL), (ssize_t)len);
}

static void test_request_roundtrip_fds(void **state)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Hello hello = SDDS__CTL__HELLO__INIT;
	Sdds__Ctl__Request *got = NULL;
	int sv[2], fds[2], rfds[CTL_MAX_FDS] = {-1, -1, -1, -1};
	size_t n = 99;
	int before;

	(void)state;
	pair(sv);
	fds[0] = memfd_create("test-ctl", MFD_CLOEXEC);
	fds[1] = eventfd(0, EFD_CLOEXEC);
	assert_true(fds[0] >= 0 && fds[1] >= 0);
	before = count_fds();

	req.id = 17;
	req.body_case = SDDS__CTL__REQUEST__BODY_HELLO;
	req.hello = &hello;
	hello.protocol_version = CTL_PROTOCOL_VERSION;
	hello.layout_version = 1;
	hello.name = "test-app";
	assert_int_equal(ctl_send_request(sv[0], &req, fds, 2), 0);
	/* The sender keeps its descriptors. */
	assert_true(fcntl(fds[0], F_GETFD) >= 0);
	assert_int_equal(ctl_recv_request(sv[1], &got, rfds, CTL_MAX_FDS, &n), 0);
	assert_non_null(got);
	assert_int_equal(got->id, 17);
	assert_int_equal(got->body_case, SDDS__CTL__REQUEST__BODY_HELLO);
	assert_string_equal(got->hello->name, "test-app");
	assert_int_equal(got->hello->protocol_version, CTL_PROTOCOL_VERSION);
	assert_int_equal(n, 2);
	assert_true(same_file(rfds[0], fds[0]));
	assert_true(same_file(rfds[1], fds[1]));
	/* MSG_CMSG_CLOEXEC. */
	assert_true(fcntl(rfds[0], F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(rfds[1], F_GETFD) & FD_CLOEXEC);
	assert_int_equal(count_fds(), before + 2);
	sdds__ctl__request__free_unpacked(got, NULL);
	close(rfds[0]);
	close(rfds[1]);
	close(fds[0]);
	close(fds[1]);
	close(sv[0]);
	close(sv[1]);
}

static void test_reply_roundtrip(void **state)
{
	Sdds__Ctl__Reply rep = SDDS__CTL__REPLY__INIT;
	Sdds__Ctl__ReaderReply rr = SDDS__CTL__READER_REPLY__INIT;
	Sdds__Ctl__Reply *got = NULL;
	int sv[2];
	size_t n = 99;

	(void)state;
	pair(sv);
	rep.id = 5;
	rep.status = -ENOSPC;
	rep.reason = "too many readers";
	rep.body_case = SDDS__CTL__REPLY__BODY_READER;
	rep.reader = &rr;
	rr.reader_id = 3;
	rr.ring_off = 1ull << 33;
	rr.cap = 64;
	rr.slot_size = 48;
	assert_int_equal(ctl_send_reply(sv[1], &rep, NULL, 0), 0);
	assert_int_equal(ctl_recv_reply(sv[0], &got, NULL, 0, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(got->id, 5);
	assert_int_equal(got->status, -ENOSPC);
	assert_string_equal(got->reason, "too many readers");
	assert_int_equal(got->body_case, SDDS__CTL__REPLY__BODY_READER);
	assert_int_equal(got->reader->ring_off, 1ull << 33);
	assert_int_equal(got->reader->slot_size, 48);
	sdds__ctl__reply__free_unpacked(got, NULL);
	close(sv[0]);
	close(sv[1]);
}

/* All fields at their defaults pack to nothing; it must not read as a hang-up. */
static void test_empty_message(void **state)
{
	Sdds__Ctl__Reply rep = SDDS__CTL__REPLY__INIT;
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Reply *got = NULL;
	Sdds__Ctl__Request *greq = NULL;
	int sv[2];

	(void)state;
	pair(sv);
	assert_int_equal(protobuf_c_message_get_packed_size(&rep.base), 0);
	assert_int_equal(ctl_send_reply(sv[1], &rep, NULL, 0), 0);
	assert_int_equal(ctl_recv_reply(sv[0], &got, NULL, 0, NULL), 0);
	assert_int_equal(got->id, 0);
	assert_int_equal(got->status, 0);
	assert_int_equal(got->body_case, SDDS__CTL__REPLY__BODY__NOT_SET);
	sdds__ctl__reply__free_unpacked(got, NULL);
	assert_int_equal(ctl_send_request(sv[0], &req, NULL, 0), 0);
	assert_int_equal(ctl_recv_request(sv[1], &greq, NULL, 0, NULL), 0);
	assert_int_equal(greq->id, 0);
	sdds__ctl__request__free_unpacked(greq, NULL);
	close(sv[0]);
	close(sv[1]);
}

/* More descriptors than the caller asked for: the rest are closed. */
static void test_surplus_fds_closed(void **state)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Request *got = NULL;
	int sv[2], fds[4], rfd = -1;
	size_t n = 99;
	int before;

	(void)state;
	pair(sv);
	for (int i = 0; i < 4; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
	before = count_fds();
	req.id = 1;
	assert_int_equal(ctl_send_request(sv[0], &req, fds, 4), 0);
	assert_int_equal(ctl_recv_request(sv[1], &got, &rfd, 1, &n), 0);
	assert_int_equal(n, 1);
	assert_true(same_file(rfd, fds[0]));
	assert_int_equal(count_fds(), before + 1);
	close(rfd);
	sdds__ctl__request__free_unpacked(got, NULL);

	/* Asking for none closes all. */
	assert_int_equal(ctl_send_request(sv[0], &req, fds, 3), 0);
	assert_int_equal(ctl_recv_request(sv[1], &got, NULL, 0, NULL), 0);
	assert_int_equal(count_fds(), before);
	sdds__ctl__request__free_unpacked(got, NULL);
	for (int i = 0; i < 4; i++)
		close(fds[i]);
	close(sv[0]);
	close(sv[1]);
}

/* More descriptors than CTL_MAX_FDS: MSG_CTRUNC, -EBADMSG, nothing leaked. */
static void test_too_many_fds(void **state)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Request *got = NULL;
	uint8_t buf[64];
	int sv[2], fd, rfds[CTL_MAX_FDS];
	size_t len, n = 99;
	int before;

	(void)state;
	pair(sv);
	fd = eventfd(0, EFD_CLOEXEC);
	req.id = 9;
	len = sdds__ctl__request__pack(&req, buf);
	before = count_fds();
	raw_send(sv[0], buf, len, fd, CTL_MAX_FDS + 3);
	assert_int_equal(ctl_recv_request(sv[1], &got, rfds, CTL_MAX_FDS, &n), -EBADMSG);
	assert_null(got);
	assert_int_equal(n, 99);
	assert_int_equal(count_fds(), before);
	/* The sender is refused before anything goes out. */
	{
		int many[CTL_MAX_FDS + 1];

		for (int i = 0; i <= CTL_MAX_FDS; i++)
			many[i] = fd;
		assert_int_equal(ctl_send_request(sv[0], &req, many, CTL_MAX_FDS + 1), -EINVAL);
	}
	close(fd);
	close(sv[0]);
	close(sv[1]);
}

static void test_garbage(void **state)
{
	static const uint8_t garbage[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	static const uint8_t truncated_varint[] = {0x08, 0x80};
	static const uint8_t bad_wiretype[] = {0x0f, 0x00};
	static const uint8_t short_submsg[] = {0x12, 0x10, 0x08}; /* hello: 16 bytes claimed, 1 there */
	const struct {
		const uint8_t *b;
		size_t n;
	} cases[] = {
	    {garbage, sizeof(garbage)},
	    {truncated_varint, sizeof(truncated_varint)},
	    {bad_wiretype, sizeof(bad_wiretype)},
	    {short_submsg, sizeof(short_submsg)},
	};
	Sdds__Ctl__Request *got = NULL;
	Sdds__Ctl__Reply *rgot = NULL;
	int sv[2], fd, rfds[2];
	size_t n = 99;
	int before;

	(void)state;
	pair(sv);
	fd = eventfd(0, EFD_CLOEXEC);
	before = count_fds();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		raw_send(sv[0], cases[i].b, cases[i].n, fd, 2);
		assert_int_equal(ctl_recv_request(sv[1], &got, rfds, 2, &n), -EBADMSG);
		raw_send(sv[1], cases[i].b, cases[i].n, fd, 1);
		assert_int_equal(ctl_recv_reply(sv[0], &rgot, rfds, 2, &n), -EBADMSG);
	}
	assert_null(got);
	assert_null(rgot);
	assert_int_equal(n, 99);
	/* The garbage packets' descriptors were closed. */
	assert_int_equal(count_fds(), before);
	close(fd);
	close(sv[0]);
	close(sv[1]);
}

/* A packet longer than CTL_MAX_PACKET is truncated by the kernel: -EBADMSG. */
static void test_oversized_packet(void **state)
{
	Sdds__Ctl__Request *got = NULL;
	Sdds__Ctl__Reply rep = SDDS__CTL__REPLY__INIT;
	size_t big = CTL_MAX_PACKET + 100;
	uint8_t *buf = calloc(1, big);
	char *reason = malloc(CTL_MAX_PACKET + 1);
	int sv[2], sndbuf = 4 * CTL_MAX_PACKET;

	(void)state;
	pair(sv);
	assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)), 0);
	/* Whatever the bytes, a packet cut by the kernel is never parsed. */
	raw_send(sv[0], buf, big, -1, 0);
	assert_int_equal(ctl_recv_request(sv[1], &got, NULL, 0, NULL), -EBADMSG);
	assert_null(got);
	/* Our own sender refuses to build such a packet. */
	memset(reason, 'x', CTL_MAX_PACKET);
	reason[CTL_MAX_PACKET] = '\0';
	rep.reason = reason;
	assert_int_equal(ctl_send_reply(sv[0], &rep, NULL, 0), -EMSGSIZE);
	/* The socket is still usable afterwards. */
	rep.reason = "ok";
	rep.id = 3;
	assert_int_equal(ctl_send_reply(sv[0], &rep, NULL, 0), 0);
	{
		Sdds__Ctl__Reply *r = NULL;

		assert_int_equal(ctl_recv_reply(sv[1], &r, NULL, 0, NULL), 0);
		assert_int_equal(r->id, 3);
		sdds__ctl__reply__free_unpacked(r, NULL);
	}
	free(buf);
	free(reason);
	close(sv[0]);
	close(sv[1]);
}

/* A large message that fits goes through the heap packing path. */
static void test_large_message(void **state)
{
	Sdds__Ctl__Reply rep = SDDS__CTL__REPLY__INIT;
	Sdds__Ctl__Reply *got = NULL;
	char *reason = malloc(60000);
	int sv[2], sndbuf = 4 * CTL_MAX_PACKET;

	(void)state;
	pair(sv);
	assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)), 0);
	memset(reason, 'r', 59999);
	reason[59999] = '\0';
	rep.reason = reason;
	rep.id = 77;
	assert_int_equal(ctl_send_reply(sv[0], &rep, NULL, 0), 0);
	assert_int_equal(ctl_recv_reply(sv[1], &got, NULL, 0, NULL), 0);
	assert_int_equal(strlen(got->reason), 59999);
	assert_int_equal(got->id, 77);
	sdds__ctl__reply__free_unpacked(got, NULL);
	free(reason);
	close(sv[0]);
	close(sv[1]);
}

static void test_hangup(void **state)
{
	Sdds__Ctl__Request req = SDDS__CTL__REQUEST__INIT;
	Sdds__Ctl__Request *got = NULL;
	int sv[2];

	(void)state;
	pair(sv);
	close(sv[0]);
	assert_int_equal(ctl_recv_request(sv[1], &got, NULL, 0, NULL), -ECONNRESET);
	assert_null(got);
	/* Sending to a gone peer: an error, not SIGPIPE (MSG_NOSIGNAL). */
	assert_int_equal(ctl_send_request(sv[1], &req, NULL, 0), -EPIPE);
	close(sv[1]);
}

static void test_nonblocking_empty(void **state)
{
	Sdds__Ctl__Reply *got = NULL;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(ctl_recv_reply(sv[0], &got, NULL, 0, NULL), -EAGAIN);
	assert_null(got);
	close(sv[0]);
	close(sv[1]);
}

static void test_peercred(void **state)
{
	pid_t pid = 0;
	uid_t uid = 1;
	gid_t gid = 1;
	int sv[2];

	(void)state;
	pair(sv);
	assert_int_equal(ctl_peercred(sv[0], &pid, &uid, &gid), 0);
	assert_int_equal(pid, getpid());
	assert_int_equal(uid, geteuid());
	assert_int_equal(gid, getegid());
	close(sv[0]);
	close(sv[1]);
	assert_int_equal(ctl_peercred(-1, &pid, &uid, &gid), -EBADF);
}

static void test_default_path(void **state)
{
	char buf[256], small[8], expect[256];

	(void)state;
	setenv("SDDS_SOCKET", "/some/where.sock", 1);
	assert_int_equal(ctl_default_path(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/some/where.sock");
	memcpy(small, "untouch", 8);
	assert_int_equal(ctl_default_path(small, sizeof(small)), -ENAMETOOLONG);
	assert_memory_equal(small, "untouch", 8);
	/* Exactly fitting, NUL included. */
	assert_int_equal(ctl_default_path(buf, strlen("/some/where.sock") + 1), 0);
	assert_int_equal(ctl_default_path(buf, strlen("/some/where.sock")), -ENAMETOOLONG);

	unsetenv("SDDS_SOCKET");
	setenv("XDG_RUNTIME_DIR", "/run/user/1234", 1);
	assert_int_equal(ctl_default_path(buf, sizeof(buf)), 0);
	if (geteuid() == 0)
		assert_string_equal(buf, "/run/sdds/sddsd.sock");
	else
		assert_string_equal(buf, "/run/user/1234/sdds/sddsd.sock");

	unsetenv("XDG_RUNTIME_DIR");
	assert_int_equal(ctl_default_path(buf, sizeof(buf)), 0);
	if (geteuid() == 0)
		snprintf(expect, sizeof(expect), "/run/sdds/sddsd.sock");
	else
		snprintf(expect, sizeof(expect), "/tmp/sdds-%u/sddsd.sock", (unsigned)geteuid());
	assert_string_equal(buf, expect);
}

/* The non-root branches, whatever user runs the test: a child drops to nobody. */
static void test_default_path_unprivileged(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	if (geteuid() != 0)
		skip();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[256];

		if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0)
			_exit(77);
		unsetenv("SDDS_SOCKET");
		setenv("XDG_RUNTIME_DIR", "/run/user/65534", 1);
		if (ctl_default_path(buf, sizeof(buf)) != 0 ||
		    strcmp(buf, "/run/user/65534/sdds/sddsd.sock") != 0)
			_exit(1);
		unsetenv("XDG_RUNTIME_DIR");
		if (ctl_default_path(buf, sizeof(buf)) != 0 || strcmp(buf, "/tmp/sdds-65534/sddsd.sock") != 0)
			_exit(2);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_request_roundtrip_fds),
	    cmocka_unit_test(test_reply_roundtrip),
	    cmocka_unit_test(test_empty_message),
	    cmocka_unit_test(test_surplus_fds_closed),
	    cmocka_unit_test(test_too_many_fds),
	    cmocka_unit_test(test_garbage),
	    cmocka_unit_test(test_oversized_packet),
	    cmocka_unit_test(test_large_message),
	    cmocka_unit_test(test_hangup),
	    cmocka_unit_test(test_nonblocking_empty),
	    cmocka_unit_test(test_peercred),
	    cmocka_unit_test(test_default_path),
	    cmocka_unit_test(test_default_path_unprivileged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
