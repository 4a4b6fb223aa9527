/* SPDX-License-Identifier: MIT */
/*
 * stress_wakeup.c - two processes, one sealed segment, millions of
 * sleep/wake hand-overs through every wake-up path of the design.
 *
 * usage: stress_wakeup [CYCLES [SEED]]
 *
 * OVERVIEW
 * The parent plays the daemon, the forked child the client; the child maps
 * the segment with segment_attach like a real client. One cycle is one
 * round trip: the client writes request i into the request ring, the daemon
 * takes it, checks it and answers with reply i in a reliable reader ring,
 * the client takes and checks the reply. Every wait sleeps without spinning
 * most of the time, so most hand-overs are real sleeps and wake-ups:
 *   client -> daemon  eventfd kick when ring_prod_publish reports that the
 *                     daemon announced sleep (data.waiters), and when
 *                     rring_cons_take reports that the daemon waits for room
 *                     in the reader ring (space.waiters);
 *   daemon -> client  futex on the segment's evt doorbell (reply ready) and
 *                     on the request ring's space doorbell (room again).
 * Requests come in bursts of 1..8 into a request ring of 4 records and a
 * reader ring of 4 slots, so the client blocks on space and the daemon on
 * reader-ring room; bursts of at most 8 keep that free of deadlock by
 * construction, so any hang is a lost wake-up. Random short delays (spins,
 * yields) on both sides move the notify around the waiter's re-check.
 *
 * Checks: every request and reply arrives once, in order, with the payload
 * it was written with; a progress watchdog (SIGALRM each second) fails the
 * test when neither side advanced for WATCHDOG_SECONDS, printing the ring
 * indices and doorbell words. Printed at the end: cycles, seconds, and how
 * many futex wakes and eventfd sleeps happened.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ipc/doorbell.h"
#include "ipc/ring.h"
#include "ipc/segment.h"

#define DEFAULT_CYCLES 1000000u
#define WATCHDOG_SECONDS 15
#define REQ_CAP 256u   /* 4 records of 64 bytes */
#define MAX_RECORD 64u /* payload up to 48 */
#define RR_CAP 4u
#define RR_PAYLOAD 48u
#define MAX_BURST (REQ_CAP / 64u + RR_CAP)
#define RR_OFF 0u	 /* reader ring at the start of the arena */
#define SHARED_OFF 2048u /* progress counters after it */

/* Progress and statistics, in the arena, written by one side each. */
struct shared {
	SDDS_ATOMIC(uint64_t) daemon_done;
	SDDS_ATOMIC(uint64_t) client_done;
	SDDS_ATOMIC(uint64_t) daemon_data_sleeps;
	SDDS_ATOMIC(uint64_t) daemon_space_sleeps;
	SDDS_ATOMIC(uint64_t) client_kicks;
};

static uint64_t g_cycles = DEFAULT_CYCLES;
static uint64_t g_seed;

/* ---- helpers shared by both sides --------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64* */
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static void fill(uint8_t *buf, uint32_t len, uint64_t idx, uint8_t salt)
{
	memcpy(buf, &idx, 8);
	for (uint32_t i = 8; i < len; i++)
		buf[i] = (uint8_t)(idx * 31u + i * salt);
}

static bool check(const uint8_t *buf, uint32_t len, uint64_t idx, uint8_t salt)
{
	uint64_t v;

	if (len < 8)
		return false;
	memcpy(&v, buf, 8);
	if (v != idx)
		return false;
	for (uint32_t i = 8; i < len; i++)
		if (buf[i] != (uint8_t)(idx * 31u + i * salt))
			return false;
	return true;
}

/* Most of the time nothing; sometimes a short spin or a yield. */
static void rand_delay(uint64_t *rng)
{
	uint64_t r = rng_next(rng);

	switch (r & 15) {
	case 12:
	case 13:
	case 14: {
		int64_t end = doorbell_now_ns() + (int64_t)((r >> 8) % 5000);

		while (doorbell_now_ns() < end)
			doorbell_cpu_relax();
		break;
	}
	case 15:
		sched_yield();
		break;
	default:
		break;
	}
}

/* Spin budget for a wait: usually none, so that the waiter really sleeps. */
static int64_t rand_spin(uint64_t *rng)
{
	return (rng_next(rng) & 7) == 0 ? 2000 : 0;
}

static void kick(int efd)
{
	uint64_t one = 1;

	while (write(efd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}

static void sleep_on_eventfd(int efd)
{
	uint64_t v;

	while (read(efd, &v, sizeof(v)) < 0 && errno == EINTR)
		;
}

/* ---- client (child) ------------------------------------------------ */

struct room_arg {
	struct ring_prod *p;
	uint32_t len;
};

/*
 * The conditions delay after deciding, now and then: that stretches the
 * window between a waiter's last check and its sleep, where a notify must
 * not get lost (doorbell_wait reads seq before calling cond, so a bump in
 * the window fails the futex_wait). Without it the window is a few
 * nanoseconds and a broken ordering would go unnoticed.
 */
static uint64_t cond_rng = 1;

static bool delayed(bool v)
{
	if ((rng_next(&cond_rng) & 3) == 0) {
		int64_t end = doorbell_now_ns() + (int64_t)(rng_next(&cond_rng) % 3000);

		while (doorbell_now_ns() < end)
			doorbell_cpu_relax();
	}
	return v;
}

static bool room_cond(void *arg)
{
	struct room_arg *a = arg;

	return delayed(ring_prod_has_room(a->p, a->len));
}

static bool rr_cond(void *arg)
{
	return delayed(!rring_cons_empty(arg));
}

static void publish(struct ring_prod *p, int efd, struct shared *sh)
{
	if (ring_prod_publish(p)) {
		kick(efd);
		atomic_fetch_add_explicit(&sh->client_kicks, 1, memory_order_relaxed);
	}
}

static int client_fail(const char *what, uint64_t i)
{
	fprintf(stderr, "client: %s at cycle %" PRIu64 "\n", what, i);
	return 1;
}

static int client_main(int seg_fd, int efd)
{
	struct segment c;
	struct sdds_seg_hdr *h;
	struct ring_prod p;
	struct rring_cons rc;
	struct shared *sh;
	uint64_t rng = g_seed ^ 0x9e3779b97f4a7c15ull, sent = 0, got = 0;
	uint8_t buf[RR_PAYLOAD];

	cond_rng = g_seed | 1;
	if (segment_attach(seg_fd, &c) != 0)
		return client_fail("segment_attach", 0);
	h = segment_hdr(&c);
	if (ring_prod_init(&p, segment_at(&c, h->req_off, sizeof(struct sdds_ring_ctl) + h->req_cap),
			   h->req_cap, h->max_record) != 0)
		return client_fail("ring_prod_init", 0);
	if (rring_cons_init(&rc, segment_at(&c, h->arena_off + RR_OFF, rring_size(RR_CAP, RR_PAYLOAD)),
			    RR_CAP, rring_slot_size(RR_PAYLOAD)) != 0)
		return client_fail("rring_cons_init", 0);
	sh = segment_at(&c, h->arena_off + SHARED_OFF, sizeof(*sh));

	while (got < g_cycles) {
		uint64_t burst = 1 + (rng_next(&rng) & 1 ? rng_next(&rng) % MAX_BURST : 0);

		if (burst > g_cycles - sent)
			burst = g_cycles - sent;
		for (uint64_t j = 0; j < burst; j++, sent++) {
			uint32_t len = 8 + (uint32_t)(rng_next(&rng) % (MAX_RECORD - 16 - 8 + 1));
			struct room_arg ra = {.p = &p, .len = len};
			struct sdds_rec *r;
			int rc2;

			while ((rc2 = ring_prod_reserve(&p, len, &r)) == -EAGAIN) {
				/* What is reserved must be visible before we wait on it. */
				publish(&p, efd, sh);
				if (doorbell_wait(&p.ctl->space, room_cond, &ra, -1, rand_spin(&rng), 0,
						  NULL) != 0)
					return client_fail("space wait", sent);
			}
			if (rc2 != 0)
				return client_fail("reserve", sent);
			r->type = SDDS_REC_WRITE;
			r->handle = (uint32_t)sent;
			fill((uint8_t *)(r + 1), len, sent, 7);
			if (rng_next(&rng) & 1)
				publish(&p, efd, sh);
			rand_delay(&rng);
		}
		publish(&p, efd, sh);

		for (uint64_t j = 0; j < burst; j++, got++) {
			uint32_t len = 0, origin = 0;
			bool need_kick = false;
			int rc2;

			while ((rc2 = rring_cons_take(&rc, buf, sizeof(buf), &len, &origin, &need_kick)) ==
			       0) {
				if (doorbell_wait(&h->evt, rr_cond, &rc, -1, rand_spin(&rng), 0, NULL) != 0)
					return client_fail("evt wait", got);
			}
			if (rc2 != 1)
				return client_fail("take", got);
			if (need_kick) {
				kick(efd);
				atomic_fetch_add_explicit(&sh->client_kicks, 1, memory_order_relaxed);
			}
			if (origin != (uint32_t)got || !check(buf, len, got, 13))
				return client_fail("reply out of order or corrupt", got);
			atomic_store_explicit(&sh->client_done, got + 1, memory_order_relaxed);
			rand_delay(&rng);
		}
	}
	if (rc.lost != 0)
		return client_fail("reliable ring lost samples", got);
	segment_close(&c);
	return 0;
}

/* ---- watchdog ------------------------------------------------------ */

static struct segment *wd_seg;
static pid_t wd_child;
static uint64_t wd_last_d = UINT64_MAX, wd_last_c = UINT64_MAX;
static int wd_idle;

static void watchdog(int sig)
{
	struct sdds_seg_hdr *h = segment_hdr(wd_seg);
	struct shared *sh = segment_at(wd_seg, h->arena_off + SHARED_OFF, sizeof(*sh));
	struct sdds_ring_ctl *req = segment_at(wd_seg, h->req_off, sizeof(*req));
	struct sdds_rring_ctl *rr = segment_at(wd_seg, h->arena_off + RR_OFF, sizeof(*rr));
	uint64_t d = atomic_load(&sh->daemon_done), c = atomic_load(&sh->client_done);
	char msg[512];
	int n;

	(void)sig;
	if (d != wd_last_d || c != wd_last_c) {
		wd_last_d = d;
		wd_last_c = c;
		wd_idle = 0;
		return;
	}
	if (++wd_idle < WATCHDOG_SECONDS)
		return;
	n = snprintf(msg, sizeof(msg),
		     "stress_wakeup: HANG (no progress for %d s): daemon %" PRIu64 " client %" PRIu64
		     "\n  req prod %" PRIu64 " cons %" PRIu64 " data.waiters %u space.seq %u space.waiters %u"
		     "\n  rr prod %" PRIu64 " cons %" PRIu64 " space.waiters %u evt.seq %u evt.waiters %u\n",
		     WATCHDOG_SECONDS, d, c, atomic_load(&req->prod), atomic_load(&req->cons),
		     atomic_load(&req->data.waiters), atomic_load(&req->space.seq),
		     atomic_load(&req->space.waiters), atomic_load(&rr->prod), atomic_load(&rr->cons),
		     atomic_load(&rr->space.waiters), atomic_load(&h->evt.seq), atomic_load(&h->evt.waiters));
	if (n > 0)
		(void)!write(2, msg, (size_t)n);
	kill(wd_child, SIGKILL);
	_exit(1);
}

/* ---- daemon (parent) ----------------------------------------------- */

struct daemon_state {
	struct ring_cons c;
	struct rring_prod rp;
	struct sdds_seg_hdr *h;
	struct shared *sh;
	int efd;
	bool dirty;
	uint64_t evt_wakes;
	uint64_t space_wakes;
};

/* The broker's flush: one evt notify per batch of replies. */
static void daemon_flush(struct daemon_state *st)
{
	if (ring_cons_release(&st->c))
		st->space_wakes++;
	if (st->dirty) {
		if (doorbell_notify(&st->h->evt))
			st->evt_wakes++;
		st->dirty = false;
	}
}

static void test_stress(void **state)
{
	struct segment_params params = {
	    .req_cap = REQ_CAP,
	    .max_record = MAX_RECORD,
	    .arena_size = 4096,
	    .epoch = 1,
	    .session_id = 1,
	};
	struct segment seg;
	struct daemon_state st;
	struct sigaction sa;
	struct itimerval it = {.it_interval = {1, 0}, .it_value = {1, 0}};
	uint64_t rng = g_seed, handled = 0;
	uint8_t req_buf[MAX_RECORD], reply[RR_PAYLOAD];
	uint32_t reply_len = 0;
	bool pending = false;
	int64_t t0, t1;
	pid_t pid;
	int status;

	(void)state;
	memset(&st, 0, sizeof(st));
	assert_int_equal(segment_create(&params, "stress-wakeup", &seg), 0);
	st.h = segment_hdr(&seg);
	assert_true(rring_size(RR_CAP, RR_PAYLOAD) <= SHARED_OFF);
	rring_format(segment_at(&seg, st.h->arena_off + RR_OFF, rring_size(RR_CAP, RR_PAYLOAD)), RR_CAP,
		     rring_slot_size(RR_PAYLOAD));
	assert_int_equal(
	    rring_prod_init(&st.rp,
			    segment_at(&seg, st.h->arena_off + RR_OFF, rring_size(RR_CAP, RR_PAYLOAD)),
			    RR_CAP, rring_slot_size(RR_PAYLOAD)),
	    0);
	assert_int_equal(
	    ring_cons_init(&st.c, segment_at(&seg, st.h->req_off, sizeof(struct sdds_ring_ctl) + REQ_CAP),
			   st.h->req_cap, st.h->max_record),
	    0);
	st.sh = segment_at(&seg, st.h->arena_off + SHARED_OFF, sizeof(*st.sh));
	st.efd = eventfd(0, EFD_CLOEXEC);
	assert_true(st.efd >= 0);

	t0 = doorbell_now_ns();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = dup(seg.fd);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(3);
		/* Use only what a real client has: the fd, attached afresh. */
		munmap(seg.base, seg.size);
		_exit(client_main(fd, st.efd));
	}

	wd_seg = &seg;
	wd_child = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watchdog;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);

	while (handled < g_cycles) {
		int rc;

		if (!pending) {
			struct sdds_rec rec;

			rc = ring_cons_next(&st.c, &rec, req_buf, sizeof(req_buf));
			if (rc < 0) {
				kill(pid, SIGKILL);
				fail_msg("ring_cons_next: %d at cycle %" PRIu64, rc, handled);
			}
			if (rc == 0) {
				daemon_flush(&st);
				if (!ring_cons_wait_data(&st.c)) {
					sleep_on_eventfd(st.efd);
					atomic_fetch_add_explicit(&st.sh->daemon_data_sleeps, 1,
								  memory_order_relaxed);
				}
				ring_cons_stop_wait_data(&st.c);
				continue;
			}
			if (rec.handle != (uint32_t)handled || rec.seq != (uint32_t)handled ||
			    !check(req_buf, rec.len, handled, 7)) {
				kill(pid, SIGKILL);
				fail_msg("request out of order or corrupt at cycle %" PRIu64, handled);
			}
			reply_len = 8 + (uint32_t)(rng_next(&rng) % (RR_PAYLOAD - 8 + 1));
			fill(reply, reply_len, handled, 13);
			pending = true;
		}
		rc = rring_prod_push(&st.rp, reply, reply_len, (uint32_t)handled, true);
		if (rc == -EAGAIN) {
			daemon_flush(&st);
			if (!rring_prod_wait_space(&st.rp)) {
				sleep_on_eventfd(st.efd);
				atomic_fetch_add_explicit(&st.sh->daemon_space_sleeps, 1,
							  memory_order_relaxed);
			}
			rring_prod_stop_wait_space(&st.rp);
			continue;
		}
		if (rc != 0) {
			kill(pid, SIGKILL);
			fail_msg("rring_prod_push: %d at cycle %" PRIu64, rc, handled);
		}
		pending = false;
		st.dirty = true;
		handled++;
		atomic_store_explicit(&st.sh->daemon_done, handled, memory_order_relaxed);
		/* Batches of random length between flushes. */
		if (rng_next(&rng) & 1)
			daemon_flush(&st);
		rand_delay(&rng);
	}
	daemon_flush(&st);

	assert_int_equal(waitpid(pid, &status, 0), pid);
	t1 = doorbell_now_ns();
	it.it_value.tv_sec = 0;
	it.it_interval.tv_sec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(atomic_load(&st.sh->client_done), g_cycles);
	assert_int_equal(st.rp.overwritten, 0);

	printf("stress_wakeup: %" PRIu64 " cycles in %.2f s (%.1f us/cycle), seed %" PRIu64 "\n"
	       "  futex wakes: evt %" PRIu64 ", space %" PRIu64 "; daemon eventfd sleeps: data %" PRIu64
	       ", reader-space %" PRIu64 "; client kicks %" PRIu64 "\n",
	       g_cycles, (double)(t1 - t0) / 1e9, (double)(t1 - t0) / 1e3 / (double)g_cycles, g_seed,
	       st.evt_wakes, st.space_wakes, atomic_load(&st.sh->daemon_data_sleeps),
	       atomic_load(&st.sh->daemon_space_sleeps), atomic_load(&st.sh->client_kicks));
	close(st.efd);
	segment_close(&seg);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stress),
	};

	if (argc > 1) {
		char *end;

		g_cycles = strtoull(argv[1], &end, 10);
		if (*end != '\0' || g_cycles == 0) {
			fprintf(stderr, "usage: %s [CYCLES [SEED]]\n", argv[0]);
			return 2;
		}
	}
	g_seed = argc > 2 ? strtoull(argv[2], NULL, 10) : (uint64_t)doorbell_now_ns();
	if (g_seed == 0)
		g_seed = 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
