/* SPDX-License-Identifier: MIT */
/*
 * test_bench_net_smoke.c - `sdds-bench net` runs end to end and prints
 * every figure.
 *
 * OVERVIEW
 * argv: the sdds-bench binary, the sddsd binary. Needs root (namespaces):
 * otherwise exit 77. Runs once in the group setup
 *   sdds-bench net --json -n 500 --warmup 20 --size 3 -t 0.3 --monolithic
 *                  --ddsperf-seconds 2 --sddsd SDDSD
 *                  [--backend tap --valgrind /nonexistent/valgrind]
 * (the tap backend where /dev/net/tun opens; no callgrind, which would take
 * long) and checks: exit 0; one JSON object (python3's json module; 77 without
 * python3) with the payload size asked for, every latency figure of the
 * sddsd path and of the raw UDPv6 baseline positive, every throughput rate
 * positive, the frames daemon B counted, the monolithic path (mixed and
 * both sides) with its latency figures, legs, throughput and the leg
 * ratios report.py reads (the other ratios are report.py's, made from these
 * figures), and ddsperf either with its summary and payload or with the
 * reason it did not run; with the tap backend, its latency and throughput
 * with the socket run's fields, DAD's time on both sides and callgrind's
 * reason (valgrind not found). Then: a bad size is a usage error (2), and an
 * unprivileged user gets 77 and the reason.
 * Figures are never compared with a bound: this is not a timed test.
 */
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchutil.h"

static const char *bench_bin, *sddsd_bin;
static char out_path[64] = "/tmp/sdds-bench-net-smoke-XXXXXX";
static int run_status = -1;

static const char *const check_py =
    "import json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "assert d['bench'] == 'net' and d['size'] == 3, d\n"
    "for k in ('sddsd', 'raw_udp6'):\n"
    "    l = d['latency'][k]\n"
    "    assert l['ok'] is True, l\n"
    "    assert l['n'] > 0, l\n"
    "    for f in ('median_us', 'p99_us', 'p999_us', 'max_us', 'min_us'):\n"
    "        assert l[f] > 0, (k, f, l)\n"
    "    assert l['median_us'] <= l['p99_us'] <= l['p999_us'] <= l['max_us'], l\n"
    "for k in ('sddsd', 'raw_udp6_sendmmsg', 'raw_udp6_gso'):\n"
    "    t = d['throughput'][k]\n"
    "    assert t['ok'] is True and t['rate'] > 0 and t['received'] > 0 and t['sent'] > 0, t\n"
    "f = d['throughput']['sddsd_frames']\n"
    "assert f['ok'] is True and f['rate'] > 0 and f['frames'] > 0 and f['bytes'] > 0, f\n"
    "assert d['throughput']['raw_datagram_bytes'] >= 3, d\n"
    "assert f['samples'] == f['frames'], ('one sample per frame toward a plain peer', f)\n"
    "t = d['throughput']['sddsd_packed']\n"
    "assert t['ok'] is True and t['rate'] > 0, t\n"
    "pf = d['throughput']['sddsd_packed_frames']\n"
    "assert pf['ok'] is True and pf['samples'] > pf['frames'] > 0, ('packed toward peer_pack', pf)\n"
    "m = d['monolithic']\n"
    "assert m['requested'] is True and m['available'] is True, m\n"
    "for k in ('latency', 'latency_mixed'):\n"
    "    l = m[k]\n"
    "    assert l['ok'] is True and l['n'] > 0 and l['median_us'] > 0, (k, l)\n"
    "    assert l['a_to_b_median_us'] > 0 and l['b_to_a_median_us'] > 0, (k, l)\n"
    "assert m['throughput']['ok'] is True and m['throughput']['rate'] > 0, m\n"
    "for k in ('ratio_send', 'ratio_receive'):\n"
    "    assert m[k] > 0, (k, m)\n"
    "assert d['latency']['sddsd']['a_to_b_median_us'] > 0, d['latency']\n"
    "p = d['ddsperf']\n"
    "assert p['ran'] is True, p\n"
    "if p['ok']:\n"
    "    assert '%' in p['summary'] and 'ddsperf' in p['command'] and p['payload'], p\n"
    "else:\n"
    "    assert len(p['why']) > 0, p\n"
    "if len(sys.argv) > 2 and sys.argv[2] == 'tap':\n"
    "    t = d['tap']\n"
    "    assert t['dad_ms_a'] > 0 and t['dad_ms_b'] > 0, t\n"
    "    l = t['latency']['sddsd']\n"
    "    assert l['ok'] is True and l['n'] > 0, l\n"
    "    assert set(d['latency']['sddsd']) == set(l), (sorted(l), sorted(d['latency']['sddsd']))\n"
    "    assert 0 < l['median_us'] <= l['p99_us'] <= l['max_us'], l\n"
    "    x = t['throughput']\n"
    "    assert x['sddsd']['ok'] is True and x['sddsd']['rate'] > 0, x\n"
    "    assert x['sddsd_frames']['ok'] is True and x['sddsd_frames']['frames'] > 0, x\n"
    "    c = t['callgrind']\n"
    "    assert c['ok'] is False and 'valgrind not found' in c['why'], c\n"
    "else:\n"
    "    assert 'tap' not in d, d['tap']\n";

/* The tap backend runs where a TAP can be made; the check then expects its figures. */
static bool with_tap;

static int group_setup(void **state)
{
	char *argv[] = {(char *)bench_bin,
			"net",
			"--json",
			"-n",
			"500",
			"--warmup",
			"20",
			"--size",
			"3",
			"-t",
			"0.3",
			"--monolithic",
			"--ddsperf-seconds",
			"2",
			"--sddsd",
			(char *)sddsd_bin,
			"--backend",
			"tap",
			"--valgrind",
			"/nonexistent/valgrind",
			NULL};

	(void)state;
	with_tap = access("/dev/net/tun", R_OK | W_OK) == 0;
	if (!with_tap)
		argv[16] = NULL;
	run_status = benchutil_run_to_temp(argv, out_path, NULL);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	unlink(out_path);
	return 0;
}

static void test_exit_zero(void **state)
{
	(void)state;
	benchutil_assert_exit(run_status, 0);
}

static void test_every_figure(void **state)
{
	(void)state;
	benchutil_check_json(check_py, out_path, with_tap ? "tap" : "socket");
}

static void test_bad_size(void **state)
{
	char *argv[] = {(char *)bench_bin, "net", "--size", "0", NULL};

	(void)state;
	benchutil_assert_usage_error(argv);
}

static void test_unprivileged(void **state)
{
	char path[] = "/tmp/sdds-bench-net-np-XXXXXX", buf[1024];
	char *argv[] = {"setpriv",	  "--reuid=65534",   "--regid=65534",
			"--clear-groups", (char *)bench_bin, "net",
			"--sddsd",	  (char *)sddsd_bin, NULL};
	int fd = mkstemp(path), st;
	ssize_t n;

	(void)state;
	assert_true(fd >= 0);
	st = benchutil_run(argv, fd, true, NULL);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	unlink(path);
	buf[n > 0 ? n : 0] = '\0';
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 127)
		skip(); /* no setpriv, or the binary is not reachable by nobody */
	assert_int_equal(WEXITSTATUS(st), 77);
	assert_non_null(strstr(buf, "needs root"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exit_zero),
	    cmocka_unit_test(test_every_figure),
	    cmocka_unit_test(test_bad_size),
	    cmocka_unit_test(test_unprivileged),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: test_bench_net_smoke SDDS_BENCH SDDSD\n");
		return 2;
	}
	bench_bin = argv[1];
	sddsd_bin = argv[2];
	if (geteuid() != 0) {
		fprintf(stderr, "test_bench_net_smoke: not root: skipped\n");
		return 77;
	}
	if (access("/run/netns", F_OK) != 0 && system("ip netns list >/dev/null 2>&1") != 0) {
		fprintf(stderr, "test_bench_net_smoke: no ip netns: skipped\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
