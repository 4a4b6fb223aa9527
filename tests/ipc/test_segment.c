/* SPDX-License-Identifier: MIT */
/*
 * test_segment.c - segment creation, sealing and the client's checks.
 *
 * OVERVIEW
 * The corruption tests create a real segment, change one header field
 * through the daemon's mapping, and attach a dup of the fd: attach must
 * answer -EPROTO, leave the fd open (ownership passes on success only) and
 * leak no mapping. Seals are checked by trying what they forbid.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ipc/ring.h"
#include "ipc/segment.h"

static const struct segment_params default_params = {
    .req_cap = 65536,
    .max_record = 16 + 4096,
    .arena_size = 1 << 20,
    .epoch = 0x1122334455667788ull,
    .session_id = 42,
    .flags = SDDS_SEG_F_DAEMON_POLLING,
};

static int count_maps(void)
{
	FILE *fp = fopen("/proc/self/maps", "r");
	int n = 0, c;

	assert_non_null(fp);
	while ((c = fgetc(fp)) != EOF)
		n += c == '\n';
	fclose(fp);
	return n;
}

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static void test_create_attach(void **state)
{
	struct segment d, c;
	struct sdds_seg_hdr *h;
	int fd2;

	(void)state;
	assert_int_equal(segment_create(&default_params, "test-seg", &d), 0);
	assert_true(d.fd >= 0);
	assert_true(fcntl(d.fd, F_GETFD) & FD_CLOEXEC);
	h = segment_hdr(&d);
	assert_int_equal(h->magic, SDDS_SEG_MAGIC);
	assert_int_equal(h->layout_version, SDDS_LAYOUT_VERSION);
	assert_int_equal(h->epoch, default_params.epoch);
	assert_int_equal(h->seg_size, d.size);
	assert_int_equal(h->req_cap, 65536);
	assert_int_equal(h->max_record, 16 + 4096);
	assert_int_equal(h->arena_size, 1 << 20);
	assert_int_equal(h->session_id, 42);
	assert_int_equal(h->flags, SDDS_SEG_F_DAEMON_POLLING);
	assert_int_equal(h->req_off % SDDS_CACHELINE, 0);
	assert_int_equal(h->arena_off % 4096, 0);
	assert_true(h->req_off >= sizeof(*h));
	assert_true(h->arena_off >= h->req_off + sizeof(struct sdds_ring_ctl) + h->req_cap);
	assert_true(h->arena_off + h->arena_size <= d.size);
	assert_int_equal(d.size % 4096, 0);

	fd2 = dup(d.fd);
	assert_true(fd2 >= 0);
	assert_int_equal(segment_attach(fd2, &c), 0);
	assert_int_equal(c.fd, fd2);
	assert_int_equal(c.size, d.size);
	assert_true(c.base != d.base);

	/* Both mappings see the same memory: run the request ring across them. */
	{
		struct ring_prod p;
		struct ring_cons rc;
		struct sdds_rec *r, rec;
		uint8_t buf[4096];
		struct sdds_ring_ctl *pc = segment_at(
		    &c, segment_hdr(&c)->req_off, sizeof(struct sdds_ring_ctl) + segment_hdr(&c)->req_cap);
		struct sdds_ring_ctl *dc =
		    segment_at(&d, h->req_off, sizeof(struct sdds_ring_ctl) + h->req_cap);

		assert_non_null(pc);
		assert_non_null(dc);
		assert_int_equal(ring_prod_init(&p, pc, h->req_cap, h->max_record), 0);
		assert_int_equal(ring_cons_init(&rc, dc, h->req_cap, h->max_record), 0);
		assert_int_equal(ring_prod_reserve(&p, 5, &r), 0);
		r->type = SDDS_REC_WRITE;
		memcpy(r + 1, "hello", 5);
		ring_prod_publish(&p);
		assert_int_equal(ring_cons_next(&rc, &rec, buf, sizeof(buf)), 1);
		assert_memory_equal(buf, "hello", 5);
	}

	/* segment_at bounds. */
	assert_non_null(segment_at(&c, 0, c.size));
	assert_non_null(segment_at(&c, c.size, 0));
	assert_null(segment_at(&c, c.size, 1));
	assert_null(segment_at(&c, 1, c.size));
	assert_null(segment_at(&c, UINT64_MAX, 2));
	assert_null(segment_at(&c, 2, UINT64_MAX));

	segment_close(&c);
	assert_false(fd_open(fd2));
	assert_null(c.base);
	assert_int_equal(c.fd, -1);
	segment_close(&c); /* twice is harmless */
	segment_close(&d);
}

static void test_seals(void **state)
{
	struct segment d;
	struct stat st;
	int seals;

	(void)state;
	assert_int_equal(segment_create(&default_params, NULL, &d), 0);
	seals = fcntl(d.fd, F_GET_SEALS);
	assert_int_equal(seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
			 F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	/* Growing, shrinking and new seals are refused, even to the creator. */
	assert_int_equal(ftruncate(d.fd, (off_t)d.size * 2), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(d.fd, 4096), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(d.fd, 0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(fcntl(d.fd, F_ADD_SEALS, F_SEAL_WRITE), -1);
	assert_int_equal(errno, EPERM);
	/* Writing beyond the end would grow it. */
	assert_int_equal(pwrite(d.fd, "x", 1, (off_t)d.size), -1);
	assert_int_equal(errno, EPERM);
	/* fallocate beyond the end would grow it. */
	assert_int_equal(fallocate(d.fd, 0, (off_t)d.size, 4096), -1);
	assert_int_equal(fstat(d.fd, &st), 0);
	assert_int_equal((size_t)st.st_size, d.size);
	/* Writing inside is allowed (that is how the segment is used). */
	assert_int_equal(pwrite(d.fd, "x", 1, (off_t)d.size - 1), 1);
	segment_close(&d);
}

static void test_create_rejects(void **state)
{
	struct segment d = {.fd = -1};
	struct segment_params p;

	(void)state;
	p = default_params;
	p.req_cap = 65535;
	assert_int_equal(segment_create(&p, NULL, &d), -EINVAL);
	p = default_params;
	p.max_record = 65536 / 4 + 1;
	assert_int_equal(segment_create(&p, NULL, &d), -EINVAL);
	p = default_params;
	p.max_record = 8;
	assert_int_equal(segment_create(&p, NULL, &d), -EINVAL);
	p = default_params;
	p.arena_size = 1000;
	assert_int_equal(segment_create(&p, NULL, &d), -EINVAL);
	assert_int_equal(segment_create(NULL, NULL, &d), -EINVAL);
	assert_int_equal(d.fd, -1); /* out-parameter untouched */
	p = default_params;
	p.arena_size = 0;
	assert_int_equal(segment_create(&p, NULL, &d), 0);
	segment_close(&d);
}

static void test_attach_not_memfd(void **state)
{
	struct segment c = {.fd = -7};
	int pfd[2];
	char path[] = "/tmp/test-seg-XXXXXX";
	int tfd;

	(void)state;
	assert_int_equal(segment_attach(-1, &c), -EBADF);
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(segment_attach(pfd[0], &c), -EINVAL);
	close(pfd[0]);
	close(pfd[1]);
	/* A plain file cannot carry seals. */
	tfd = mkstemp(path);
	assert_true(tfd >= 0);
	unlink(path);
	assert_int_equal(ftruncate(tfd, 1 << 20), 0);
	assert_true(segment_attach(tfd, &c) < 0);
	assert_true(fd_open(tfd));
	close(tfd);
	assert_int_equal(c.fd, -7);
}

/* A memfd with a perfect header but without the seals. */
static void test_attach_unsealed(void **state)
{
	struct segment d, c;
	int fd;

	(void)state;
	assert_int_equal(segment_create(&default_params, NULL, &d), 0);
	fd = memfd_create("unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)d.size), 0);
	assert_int_equal(pwrite(fd, d.base, 4096, 0), 4096);
	assert_int_equal(segment_attach(fd, &c), -EPROTO);
	/* Only some of the seals. */
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
	assert_int_equal(segment_attach(fd, &c), -EPROTO);
	/* All of them: now it is acceptable. */
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL), 0);
	assert_int_equal(segment_attach(fd, &c), 0);
	segment_close(&c);
	segment_close(&d);
}

/* A memfd without MFD_ALLOW_SEALING is born with F_SEAL_SEAL only. */
static void test_attach_no_sealing(void **state)
{
	struct segment c;
	int fd = memfd_create("nosealing", MFD_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	assert_int_equal(segment_attach(fd, &c), -EPROTO);
	close(fd);
}

typedef void (*corrupt_fn)(struct sdds_seg_hdr *h, size_t size);

static void c_magic(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->magic ^= 1;
}
static void c_version(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->layout_version = 2;
}
static void c_size_small(struct sdds_seg_hdr *h, size_t s)
{
	h->seg_size = s - 4096;
}
static void c_size_big(struct sdds_seg_hdr *h, size_t s)
{
	h->seg_size = s + 4096;
}
static void c_req_misaligned(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->req_off += 8;
}
static void c_req_in_hdr(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->req_off = 64;
}
static void c_req_beyond(struct sdds_seg_hdr *h, size_t s)
{
	h->req_off = s;
}
static void c_req_huge(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->req_off = UINT64_MAX - 63;
}
static void c_req_cap_pow2(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->req_cap -= 1;
}
static void c_req_cap_zero(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->req_cap = 0;
}
static void c_req_cap_big(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->req_cap = 1u << 31;
}
static void c_req_into_arena(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->req_cap *= 2;
}
static void c_max_record_big(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->max_record = h->req_cap / 4 + 1;
}
static void c_max_record_small(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->max_record = 4;
}
static void c_arena_beyond(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->arena_size += 4096;
}
static void c_arena_off_beyond(struct sdds_seg_hdr *h, size_t s)
{
	h->arena_off = s + 4096;
	h->arena_size = 0;
}
static void c_arena_huge(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->arena_size = UINT64_MAX - 4095;
}
static void c_arena_overlaps_req(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->arena_off = h->req_off + 256 + 64;
}
static void c_arena_overlaps_hdr(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->arena_off = 64;
}
static void c_arena_misaligned(struct sdds_seg_hdr *h, size_t s)
{
	(void)s;
	h->arena_off += 16;
	h->arena_size -= 4096;
}

static const struct {
	const char *name;
	corrupt_fn fn;
} corruptions[] = {
    {"magic", c_magic},
    {"version", c_version},
    {"size_small", c_size_small},
    {"size_big", c_size_big},
    {"req_misaligned", c_req_misaligned},
    {"req_in_hdr", c_req_in_hdr},
    {"req_beyond", c_req_beyond},
    {"req_huge", c_req_huge},
    {"req_cap_pow2", c_req_cap_pow2},
    {"req_cap_zero", c_req_cap_zero},
    {"req_cap_big", c_req_cap_big},
    {"req_into_arena", c_req_into_arena},
    {"max_record_big", c_max_record_big},
    {"max_record_small", c_max_record_small},
    {"arena_beyond", c_arena_beyond},
    {"arena_off_beyond", c_arena_off_beyond},
    {"arena_huge", c_arena_huge},
    {"arena_overlaps_req", c_arena_overlaps_req},
    {"arena_overlaps_hdr", c_arena_overlaps_hdr},
    {"arena_misaligned", c_arena_misaligned},
};

static void test_attach_corrupt(void **state)
{
	struct segment d, c;
	struct sdds_seg_hdr saved;
	int maps_before;

	(void)state;
	assert_int_equal(segment_create(&default_params, NULL, &d), 0);
	memcpy(&saved, d.base, sizeof(saved));
	maps_before = count_maps();
	for (size_t i = 0; i < sizeof(corruptions) / sizeof(corruptions[0]); i++) {
		int fd = dup(d.fd);

		assert_true(fd >= 0);
		corruptions[i].fn(segment_hdr(&d), d.size);
		c.fd = -5;
		c.base = NULL;
		if (segment_attach(fd, &c) != -EPROTO)
			fail_msg("corruption %s was accepted", corruptions[i].name);
		assert_int_equal(c.fd, -5);
		assert_true(fd_open(fd));
		close(fd);
		memcpy(d.base, &saved, sizeof(saved));
	}
	/* No mapping leaked by the failed attaches. */
	assert_int_equal(count_maps(), maps_before);
	/* The restored header is accepted again. */
	{
		int fd = dup(d.fd);

		assert_int_equal(segment_attach(fd, &c), 0);
		segment_close(&c);
	}
	segment_close(&d);
}

static void test_close_zeroed(void **state)
{
	struct segment z;
	int fd0_open = fd_open(0);

	(void)state;
	memset(&z, 0, sizeof(z));
	segment_close(&z);
	segment_close(NULL);
	/* A zeroed segment (fd 0, no mapping) must not close stdin. */
	assert_int_equal(fd_open(0), fd0_open);
}

/* The child of a fork gets the fd, attaches and writes; the parent reads. */
static void test_cross_process(void **state)
{
	struct segment d;
	struct ring_cons rc;
	struct sdds_seg_hdr *h;
	struct sdds_rec rec;
	uint8_t buf[64];
	pid_t pid;
	int status, got = 0;

	(void)state;
	assert_int_equal(segment_create(&default_params, NULL, &d), 0);
	h = segment_hdr(&d);
	assert_int_equal(
	    ring_cons_init(&rc, segment_at(&d, h->req_off, 256 + h->req_cap), h->req_cap, h->max_record), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct segment c;
		struct ring_prod p;
		struct sdds_seg_hdr *ch;

		/* Drop the inherited mapping: only what attach maps is used. */
		munmap(d.base, d.size);
		if (segment_attach(dup(d.fd), &c) != 0)
			_exit(2);
		ch = segment_hdr(&c);
		if (ring_prod_init(&p, segment_at(&c, ch->req_off, 256 + ch->req_cap), ch->req_cap,
				   ch->max_record) != 0)
			_exit(3);
		for (uint32_t i = 0; i < 100; i++) {
			struct sdds_rec *r;

			if (ring_prod_reserve(&p, 4, &r) != 0)
				_exit(4);
			r->type = SDDS_REC_WRITE;
			r->handle = i;
			memcpy(r + 1, &i, 4);
		}
		ring_prod_publish(&p);
		segment_close(&c);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	while (ring_cons_next(&rc, &rec, buf, sizeof(buf)) == 1) {
		uint32_t v;

		memcpy(&v, buf, 4);
		assert_int_equal(v, (uint32_t)got);
		assert_int_equal(rec.handle, (uint32_t)got);
		got++;
	}
	assert_int_equal(got, 100);
	segment_close(&d);
}

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008u
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020
#endif

/* Where the kernel has MFD_NOEXEC_SEAL, the segment is not executable and
 * cannot be made so; elsewhere the test skips. */
static void test_noexec(void **state)
{
	struct segment d;
	struct stat st;
	int probe = memfd_create("probe", MFD_CLOEXEC | MFD_NOEXEC_SEAL);

	(void)state;
	if (probe < 0) {
		assert_int_equal(errno, EINVAL);
		print_message("no MFD_NOEXEC_SEAL in this kernel (Linux < 6.3)\n");
		skip();
	}
	close(probe);
	assert_int_equal(segment_create(&default_params, NULL, &d), 0);
	assert_int_equal(fstat(d.fd, &st), 0);
	assert_int_equal(st.st_mode & 0111, 0);
	assert_int_equal(fcntl(d.fd, F_GET_SEALS) & F_SEAL_EXEC, F_SEAL_EXEC);
	assert_int_equal(fchmod(d.fd, 0755), -1);
	assert_int_equal(errno, EPERM);
	/* The other seals and the size are as without the flag. */
	assert_int_equal(fcntl(d.fd, F_GET_SEALS) & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
			 F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	assert_int_equal((size_t)st.st_size, d.size);
	segment_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_create_attach),   cmocka_unit_test(test_seals),
	    cmocka_unit_test(test_create_rejects),  cmocka_unit_test(test_attach_not_memfd),
	    cmocka_unit_test(test_attach_unsealed), cmocka_unit_test(test_attach_no_sealing),
	    cmocka_unit_test(test_attach_corrupt),  cmocka_unit_test(test_close_zeroed),
	    cmocka_unit_test(test_cross_process),   cmocka_unit_test(test_noexec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
