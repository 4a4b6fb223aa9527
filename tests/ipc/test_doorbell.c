/* SPDX-License-Identifier: MIT */
/*
 * test_doorbell.c - the doorbell protocol: immediate conditions, timeouts,
 * wake-ups from another thread and from another process (shared futex on a
 * memfd), abort_fn with slicing, EINTR not shortening a wait, and the
 * yielding spin (doorbell_wait_yield): bounded by its budget like a pure
 * spin, and two yielding spinners on one CPU hand it to each other.
 *
 * OVERVIEW
 * Timing assertions use generous upper bounds (the VM is shared and a wake
 * can take tens of ms under load) and exact lower bounds (a timeout must
 * never end early).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ipc/doorbell.h"

#define MS 1000000LL

struct flagdb {
	struct sdds_doorbell db;
	atomic_int flag;  /* the condition */
	atomic_int abort; /* what abort_fn reports */
	atomic_int cond_calls;
};

static struct flagdb *flagdb_new(void)
{
	struct flagdb *f = aligned_alloc(64, sizeof(struct flagdb) + 64 - sizeof(struct flagdb) % 64);

	assert_non_null(f);
	memset(f, 0, sizeof(*f));
	return f;
}

static bool flag_cond(void *arg)
{
	struct flagdb *f = arg;

	atomic_fetch_add(&f->cond_calls, 1);
	return atomic_load(&f->flag) != 0;
}

static bool flag_abort(void *arg)
{
	struct flagdb *f = arg;

	return atomic_load(&f->abort) != 0;
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void test_cond_true(void **state)
{
	struct flagdb *f = flagdb_new();

	(void)state;
	atomic_store(&f->flag, 1);
	assert_int_equal(doorbell_wait(&f->db, flag_cond, f, 0, 0, 0, NULL), 0);
	assert_int_equal(doorbell_wait(&f->db, flag_cond, f, -1, 1000, 0, NULL), 0);
	assert_int_equal(atomic_load(&f->db.waiters), 0);
	free(f);
}

static void test_timeout_zero(void **state)
{
	struct flagdb *f = flagdb_new();

	(void)state;
	assert_int_equal(doorbell_wait(&f->db, flag_cond, f, 0, 1000000, 0, NULL), -ETIMEDOUT);
	assert_int_equal(atomic_load(&f->cond_calls), 1);
	free(f);
}

static void test_timeout_sleep(void **state)
{
	struct flagdb *f = flagdb_new();
	int64_t t0 = doorbell_now_ns(), dt;

	(void)state;
	assert_int_equal(doorbell_wait(&f->db, flag_cond, f, 50 * MS, 0, 0, NULL), -ETIMEDOUT);
	dt = doorbell_now_ns() - t0;
	assert_true(dt >= 50 * MS);
	assert_true(dt < 5000 * MS);
	assert_int_equal(atomic_load(&f->db.waiters), 0);
	free(f);
}

/* The spin budget outlasting the timeout: the wait ends spinning, on time. */
static void test_timeout_spin_only(void **state)
{
	struct flagdb *f = flagdb_new();
	int64_t t0 = doorbell_now_ns(), dt;

	(void)state;
	assert_int_equal(doorbell_wait(&f->db, flag_cond, f, 5 * MS, 1000 * MS, 0, NULL), -ETIMEDOUT);
	dt = doorbell_now_ns() - t0;
	assert_true(dt >= 5 * MS);
	assert_true(dt < 5000 * MS);
	/* It never slept, so it never announced itself. */
	assert_int_equal(atomic_load(&f->db.seq), 0);
	assert_true(atomic_load(&f->cond_calls) > 10);
	free(f);
}

static void test_notify_without_waiters(void **state)
{
	struct flagdb *f = flagdb_new();

	(void)state;
	assert_false(doorbell_has_waiters(&f->db));
	assert_false(doorbell_notify(&f->db));
	assert_int_equal(atomic_load(&f->db.seq), 0);
	atomic_store(&f->db.waiters, 1);
	assert_true(doorbell_has_waiters(&f->db));
	assert_true(doorbell_notify(&f->db));
	assert_int_equal(atomic_load(&f->db.seq), 1);
	free(f);
}

struct waker {
	struct flagdb *f;
	int64_t delay_ns;
	bool set_flag;
	bool set_abort;
	bool notify;
	atomic_bool notified_someone;
};

static void *waker_main(void *arg)
{
	struct waker *w = arg;

	sleep_ns(w->delay_ns);
	if (w->set_flag)
		atomic_store(&w->f->flag, 1);
	if (w->set_abort)
		atomic_store(&w->f->abort, 1);
	if (w->notify)
		atomic_store(&w->notified_someone, doorbell_notify(&w->f->db));
	return NULL;
}

static void test_wake_thread(void **state)
{
	struct flagdb *f = flagdb_new();
	struct waker w = {.f = f, .delay_ns = 30 * MS, .set_flag = true, .notify = true};
	pthread_t th;
	int64_t t0, dt;

	(void)state;
	t0 = doorbell_now_ns();
	assert_int_equal(pthread_create(&th, NULL, waker_main, &w), 0);
	assert_int_equal(doorbell_wait(&f->db, flag_cond, f, -1, 0, 0, NULL), 0);
	dt = doorbell_now_ns() - t0;
	pthread_join(th, NULL);
	assert_true(dt >= 30 * MS);
	assert_true(dt < 5000 * MS);
	/* The waiter was asleep: the notifier had to issue a wake. */
	assert_true(atomic_load(&w.notified_someone));
	assert_int_equal(atomic_load(&f->db.waiters), 0);
	/* One check at entry plus few after wake-ups: it slept, it did not poll. */
	assert_true(atomic_load(&f->cond_calls) < 10);
	free(f);
}

/* Spin phase catches the condition before anyone has to notify. */
static void test_wake_during_spin(void **state)
{
	struct flagdb *f = flagdb_new();
	struct waker w = {.f = f, .delay_ns = 5 * MS, .set_flag = true, .notify = true};
	pthread_t th;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, waker_main, &w), 0);
	assert_int_equal(doorbell_wait(&f->db, flag_cond, f, 10000 * MS, 2000 * MS, 0, NULL), 0);
	pthread_join(th, NULL);
	assert_false(atomic_load(&w.notified_someone));
	free(f);
}

/* A flag set without a notify is found by the next slice, not the timeout. */
static void test_slices_recheck(void **state)
{
	struct flagdb *f = flagdb_new();
	struct waker w = {.f = f, .delay_ns = 20 * MS, .set_flag = true};
	pthread_t th;
	int64_t t0, dt;

	(void)state;
	t0 = doorbell_now_ns();
	assert_int_equal(pthread_create(&th, NULL, waker_main, &w), 0);
	assert_int_equal(doorbell_wait(&f->db, flag_cond, f, 20000 * MS, 0, 10 * MS, NULL), 0);
	dt = doorbell_now_ns() - t0;
	pthread_join(th, NULL);
	assert_true(dt < 10000 * MS);
	free(f);
}

static void test_abort_slices(void **state)
{
	struct flagdb *f = flagdb_new();
	struct waker w = {.f = f, .delay_ns = 30 * MS, .set_abort = true};
	pthread_t th;
	int64_t t0, dt;

	(void)state;
	t0 = doorbell_now_ns();
	assert_int_equal(pthread_create(&th, NULL, waker_main, &w), 0);
	/* No notify ever comes: only the slices can notice the abort. */
	assert_int_equal(doorbell_wait(&f->db, flag_cond, f, -1, 0, 10 * MS, flag_abort), -ECANCELED);
	dt = doorbell_now_ns() - t0;
	pthread_join(th, NULL);
	assert_true(dt >= 30 * MS);
	assert_true(dt < 5000 * MS);
	assert_int_equal(atomic_load(&f->db.waiters), 0);
	free(f);
}

/* The monitor-thread pattern: abort and notify together wake a forever-waiter. */
static void test_abort_notified(void **state)
{
	struct flagdb *f = flagdb_new();
	struct waker w = {.f = f, .delay_ns = 20 * MS, .set_abort = true, .notify = true};
	pthread_t th;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, waker_main, &w), 0);
	assert_int_equal(doorbell_wait(&f->db, flag_cond, f, -1, 0, 0, flag_abort), -ECANCELED);
	pthread_join(th, NULL);
	assert_true(atomic_load(&w.notified_someone));
	free(f);
}

static void test_abort_before_sleep(void **state)
{
	struct flagdb *f = flagdb_new();

	(void)state;
	atomic_store(&f->abort, 1);
	assert_int_equal(doorbell_wait(&f->db, flag_cond, f, -1, 0, 0, flag_abort), -ECANCELED);
	/* The condition still wins over an abort. */
	atomic_store(&f->flag, 1);
	assert_int_equal(doorbell_wait(&f->db, flag_cond, f, -1, 0, 0, flag_abort), 0);
	free(f);
}

static void on_usr1(int sig)
{
	(void)sig;
}

struct killer {
	pthread_t target;
	atomic_int stop;
	atomic_int sent;
};

static void *killer_main(void *arg)
{
	struct killer *k = arg;

	while (!atomic_load(&k->stop)) {
		sleep_ns(2 * MS);
		pthread_kill(k->target, SIGUSR1);
		atomic_fetch_add(&k->sent, 1);
	}
	return NULL;
}

/* Signals interrupt FUTEX_WAIT with EINTR: the wait goes on to its deadline. */
static void test_eintr(void **state)
{
	struct flagdb *f = flagdb_new();
	struct sigaction sa;
	struct killer k = {.target = pthread_self()};
	pthread_t th;
	int64_t t0, dt;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1; /* no SA_RESTART: the futex really sees EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	assert_int_equal(pthread_create(&th, NULL, killer_main, &k), 0);
	t0 = doorbell_now_ns();
	assert_int_equal(doorbell_wait(&f->db, flag_cond, f, 100 * MS, 0, 0, NULL), -ETIMEDOUT);
	dt = doorbell_now_ns() - t0;
	atomic_store(&k.stop, 1);
	pthread_join(th, NULL);
	signal(SIGUSR1, SIG_DFL);
	assert_true(dt >= 100 * MS);
	assert_true(atomic_load(&k.sent) >= 5);
	free(f);
}

/* Two processes, one memfd: the futex must be a shared one. */
static void test_cross_process(void **state)
{
	int fd = memfd_create("test-doorbell", MFD_CLOEXEC);
	struct flagdb *f;
	pid_t pid;
	int status;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4096), 0);
	f = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(f != MAP_FAILED);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* Child: wait with no spin and no slicing, so only a real wake helps. */
		alarm(20);
		_exit(doorbell_wait(&f->db, flag_cond, f, -1, 0, 0, NULL) == 0 ? 0 : 1);
	}
	/* Give the child time to fall asleep, then wake it. */
	for (int i = 0; i < 2000 && atomic_load(&f->db.waiters) == 0; i++)
		sleep_ns(1 * MS);
	assert_int_equal(atomic_load(&f->db.waiters), 1);
	sleep_ns(10 * MS);
	atomic_store(&f->flag, 1);
	assert_true(doorbell_notify(&f->db));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(atomic_load(&f->db.waiters), 0);
	munmap(f, 4096);
	close(fd);
}

/* A yielding spin ends at its budget and then sleeps like any other wait. */
static void test_yield_budget(void **state)
{
	struct flagdb *f = flagdb_new();
	int64_t t0, dt;

	(void)state;
	t0 = doorbell_now_ns();
	assert_int_equal(doorbell_wait_yield(&f->db, flag_cond, f, 20 * MS, 1000 * MS, 0, 0, NULL),
			 -ETIMEDOUT);
	dt = doorbell_now_ns() - t0;
	assert_true(dt >= 20 * MS);
	assert_true(dt < 5000 * MS);
	/* Pure spin first, then yields: every check still runs. */
	atomic_store(&f->cond_calls, 0);
	assert_int_equal(doorbell_wait_yield(&f->db, flag_cond, f, 20 * MS, 1000 * MS, 2 * MS, 0, NULL),
			 -ETIMEDOUT);
	assert_true(atomic_load(&f->cond_calls) > 1);
	assert_int_equal(atomic_load(&f->db.waiters), 0);
	free(f);
}

struct yield_pp {
	struct flagdb *ping, *pong;
	int cpu;
	int rounds;
	atomic_int failed;
};

static void yield_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* A condition true once `flag` reached the round the waiter wants. */
struct yield_want {
	struct flagdb *f;
	int want;
};

static bool yield_want_cond(void *arg)
{
	struct yield_want *w = arg;

	return atomic_load(&w->f->flag) >= w->want;
}

/* Pong side: wait for ping i (yielding), answer with pong i. */
static void *yield_pong_main(void *arg)
{
	struct yield_pp *pp = arg;

	yield_pin(pp->cpu);
	for (int i = 1; i <= pp->rounds; i++) {
		struct yield_want w = {pp->ping, i};

		if (doorbell_wait_yield(&pp->ping->db, yield_want_cond, &w, 10000 * MS, 60000 * MS, 0, 0,
					NULL) != 0 ||
		    atomic_load(&pp->ping->flag) != i) {
			atomic_store(&pp->failed, 1);
			return NULL;
		}
		atomic_store(&pp->pong->flag, i);
		doorbell_notify(&pp->pong->db);
	}
	return NULL;
}

/*
 * Two spinners pinned to one CPU: pure spinners only take turns at the
 * scheduler tick (4 ms here); yielding ones hand the CPU over at once when
 * nothing else runs there. Every round must arrive, and neither side ever
 * falls asleep on the futex (the spin budget is a minute). The time is
 * printed, not asserted: on the shared VM other runnable processes get
 * the CPU at every yield too.
 */
static void test_yield_same_cpu(void **state)
{
	struct yield_pp pp = {.ping = flagdb_new(), .pong = flagdb_new(), .rounds = 5000};
	pthread_t th;
	int64_t t0, dt;

	(void)state;
	pp.cpu = sched_getcpu();
	assert_true(pp.cpu >= 0);
	yield_pin(pp.cpu);
	assert_int_equal(pthread_create(&th, NULL, yield_pong_main, &pp), 0);
	t0 = doorbell_now_ns();
	for (int i = 1; i <= pp.rounds && !atomic_load(&pp.failed); i++) {
		struct yield_want w = {pp.pong, i};

		atomic_store(&pp.ping->flag, i);
		doorbell_notify(&pp.ping->db);
		assert_int_equal(doorbell_wait_yield(&pp.pong->db, yield_want_cond, &w, 10000 * MS,
						     60000 * MS, 0, 0, NULL),
				 0);
		assert_int_equal(atomic_load(&pp.pong->flag), i);
	}
	pthread_join(th, NULL);
	dt = doorbell_now_ns() - t0;
	assert_int_equal(atomic_load(&pp.failed), 0);
	assert_int_equal(atomic_load(&pp.ping->db.waiters), 0);
	assert_int_equal(atomic_load(&pp.pong->db.waiters), 0);
	print_message("%d round trips on cpu %d: %.1f us each\n", pp.rounds, pp.cpu,
		      (double)dt / pp.rounds / 1e3);
	free(pp.ping);
	free(pp.pong);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cond_true),
	    cmocka_unit_test(test_timeout_zero),
	    cmocka_unit_test(test_timeout_sleep),
	    cmocka_unit_test(test_timeout_spin_only),
	    cmocka_unit_test(test_notify_without_waiters),
	    cmocka_unit_test(test_wake_thread),
	    cmocka_unit_test(test_wake_during_spin),
	    cmocka_unit_test(test_slices_recheck),
	    cmocka_unit_test(test_abort_slices),
	    cmocka_unit_test(test_abort_notified),
	    cmocka_unit_test(test_abort_before_sleep),
	    cmocka_unit_test(test_eintr),
	    cmocka_unit_test(test_cross_process),
	    cmocka_unit_test(test_yield_budget),
	    cmocka_unit_test(test_yield_same_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
