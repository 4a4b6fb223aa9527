#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_report_rules.py - the rules of tools/sdds-bench/report.py, without
running a benchmark: small JSON documents as the benchmarks print them go
through the script's own readers and ratio code.

usage: test_report_rules.py PATH/TO/report.py

The refusal rule: a ratio is printed only when both of its figures were
measured in full. A baseline that hit its time cap gives no ratio and says
why; so does one that fell short of its iterations; a full pair gives the
ratio. Also: ddsperf's summary lines (copied from Cyclone DDS 0.10.2's
ddsperf), the latency profile data of a per-iteration file, and `--show
PART`, which prints one part's tables and ratios from its JSON on stdin
(net with `--backend tap`: the tap / socket ratios, their goal and the own
stack's instructions per frame).
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

REPORT = sys.argv.pop(1) if len(sys.argv) > 1 else "report.py"
spec = importlib.util.spec_from_file_location("report", REPORT)
rp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rp)


def lat_doc(n, truncated, median=20.0):
    """One latency object as `sdds-bench net --json` prints it."""
    return {"ok": True, "n": n, "truncated": truncated, "median_us": median, "p99_us": 40.0,
            "p999_us": 50.0, "max_us": 60.0}


def net_doc(sddsd, raw_busy):
    return {"bench": "net", "iterations": 100000, "latency": {"sddsd": sddsd, "raw_udp6_busy": raw_busy}}


def lat_from(doc, key):
    l = rp.Fig(key)
    rp.read_row(l, doc, "latency." + key, rp.KEYS["net"], rp.jnum(doc, "iterations"))
    return l


def busy_ratio(doc):
    return rp.ratio("net one-way, sddsd polling / raw UDPv6 busy-polled (median)", "x",
                    lat_from(doc, "sddsd").named("net sddsd (polling daemons)"),
                    lat_from(doc, "raw_udp6_busy").named("busy-polled raw UDPv6"))


class Refusal(unittest.TestCase):
    def test_capped_baseline_gives_no_ratio(self):
        # The run of issue 11: the baseline reached its time cap after 7,776 of 100,000 round trips.
        r = busy_ratio(net_doc(lat_doc(100000, False, 250.0), lat_doc(7776, True, 25000.0)))
        self.assertFalse(r["ok"])
        self.assertEqual(r["why"], "busy-polled raw UDPv6 hit its time cap after 7,776 of 100,000 round trips")
        self.assertEqual(rp.ratio_cell(r), "n/a (%s)" % r["why"])
        self.assertIsNone(rp.ratio_met(r))

    def test_short_run_gives_no_ratio(self):
        r = busy_ratio(net_doc(lat_doc(90000, False), lat_doc(100000, False)))
        self.assertFalse(r["ok"])
        self.assertIn("net sddsd (polling daemons) fell short", r["why"])
        self.assertIn("90,000 of 100,000 round trips", r["why"])

    def test_failed_figure_says_why(self):
        doc = net_doc(lat_doc(100000, False), {"ok": False, "why": "no CPU to spare"})
        r = busy_ratio(doc)
        self.assertFalse(r["ok"])
        self.assertEqual(r["why"], "busy-polled raw UDPv6 not measured: no CPU to spare")

    def test_full_pair_gives_the_ratio(self):
        r = busy_ratio(net_doc(lat_doc(100000, False, 30.0), lat_doc(100000, False, 20.0)))
        self.assertTrue(r["ok"], r["why"])
        self.assertAlmostEqual(r["v"], 1.5)
        self.assertEqual(rp.ratio_cell(r), "1.50x")

    def test_row_requested_and_capped_fields(self):
        # The harness's own fields (requested, done, capped) win over the run's iterations.
        doc = {"iterations": 100000, "baseline": {"futex": {
            "ok": True, "iterations": 500, "requested": 500, "done": 500, "capped": False,
            "median_us": 5.0, "p99_us": 9.0, "max_us": 12.0}}}
        l = rp.Fig("futex")
        rp.read_row(l, doc, "baseline.futex", rp.KEYS["local"], 100000)
        self.assertIsNone(rp.refusal(l.named("futex hop")))
        doc["baseline"]["futex"]["capped"] = True
        rp.read_row(l, doc, "baseline.futex", rp.KEYS["local"], 100000)
        self.assertEqual(rp.refusal(l.named("futex hop")),
                         "futex hop hit its time cap after 500 of 500 round trips")

    def test_goal_and_units(self):
        a, b = rp.Fig("a", True, 3.0), rp.Fig("b", True, 2.0)
        r = rp.ratio("cost", "%", a, b, "<= 5%")
        self.assertEqual(rp.ratio_cell(r), "+50.0%")
        self.assertFalse(rp.ratio_met(r))
        self.assertEqual(rp.ratio("z", "x", a, rp.Fig("b", True, 0.0))["why"], "b is zero")
        self.assertEqual(rp.ratio_cell(rp.ratio("t", "M/s", rp.Fig("a", True, 2.5e6))), "2.500 M/s")

    def test_capped_row_in_the_table(self):
        l = lat_from(net_doc(lat_doc(100000, False), lat_doc(7776, True)), "raw_udp6_busy")
        row = rp.lat_table([l]).splitlines()[2]
        self.assertIn("hit its time cap after 7,776 of 100,000 round trips; not used in ratios", row)


def show(part, doc):
    """report.py --show PART with doc (a str as is, else as JSON) on stdin: (exit code, stdout, stderr)."""
    p = subprocess.run([sys.executable, REPORT, "--show", part], input=doc if isinstance(doc, str) else
                       json.dumps(doc), stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                       timeout=30)
    return p.returncode, p.stdout, p.stderr


def row(md, label):
    """The cells of the Markdown row that starts with label."""
    line = next((x for x in md.splitlines() if x.startswith("| %s |" % label)), None)
    assert line is not None, "no row '%s' in:\n%s" % (label, md)
    return [c.strip() for c in line.split("|")[1:-1]]


def tput_doc(rate):
    return {"ok": True, "samples_per_s": rate, "writer_samples_per_s": rate, "written": 100, "received": 100,
            "lost": 0, "seconds": 0.5}


def local_doc(futex):
    lat = {"ok": True, "iterations": 100000, "requested": 100000, "done": 100000, "capped": False,
           "median_us": 6.0, "p99_us": 12.0, "p999_us": 20.0, "max_us": 30.0, "min_us": 5.0}
    return {"tool": "sdds-bench", "command": "local", "iterations": 100000, "cpus": 2, "poll_spin_ns": 10 ** 10,
            "poll_yield_ns": 0, "baseline": {"spin": dict(lat, median_us=0.2, p99_us=0.4), "futex": futex,
                                             "yield_same_cpu": dict(lat, median_us=5.0, p99_us=8.0)},
            "polling": {"placement": {"text": "sddsd:cpu0 A:cpu1 B:cpu1"}, "latency": lat,
                        "throughput": tput_doc(4e6)},
            "blocking": {"placement": {"text": "unpinned"}, "latency": dict(lat, median_us=15.0, p99_us=40.0),
                         "throughput": tput_doc(12e6)},
            "monolithic": {"spin": tput_doc(8e6), "sleep": tput_doc(3e6)}}


class Show(unittest.TestCase):
    FUTEX = {"ok": True, "iterations": 500, "requested": 100000, "done": 500, "capped": True,
             "median_us": 10.0, "p99_us": 20.0, "p999_us": 25.0, "max_us": 30.0}

    def test_local_with_a_capped_baseline(self):
        rc, md, err = show("local", local_doc(self.FUTEX))
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(row(md, "sddsd polling")[1:6], ["100000", "6.000", "12.0", "20.0", "30.0"])
        self.assertIn("hit its time cap after 500 of 100,000 round trips; not used in ratios",
                      row(md, "baseline: futex wait/wake (one hop)")[6])
        # The futex hop was cut short: both of its ratios are refused, with the reason.
        for which in ("median", "p99"):
            self.assertEqual(row(md, "local one-way, sddsd blocking / one futex hop (%s)" % which)[1],
                             "n/a (baseline: futex wait/wake (one hop) hit its time cap after 500 of 100,000 "
                             "round trips)")
        # The ratios report.c printed, now made here from the figures, with their goals.
        self.assertEqual(row(md, "local one-way, sddsd polling / spin (median)")[1], "30.00x")
        self.assertEqual(row(md, "local one-way, sddsd polling / spin (p99)")[1], "30.00x")
        self.assertEqual(row(md, "local one-way, sddsd polling / yield-spin on one CPU (median)")[1], "1.20x")
        self.assertEqual(row(md, "local one-way, sddsd polling median")[1:], ["6.000 us", "<= 0.6 us", "NOT met"])
        self.assertEqual(row(md, "local throughput, sddsd blocking")[1:], ["12.000 M/s", ">= 10 M samples/s", "met"])
        self.assertEqual(row(md, "local throughput, isolated / monolithic (spin budget 0)")[1], "4.00x")
        self.assertEqual(row(md, "local, sddsd polling")[1], "4.000")
        self.assertIn("written 100", row(md, "local, sddsd polling")[2])
        self.assertNotIn("iceoryx", md)  # a ratio needs figures of this part only

    def test_local_full_baseline_gives_the_ratio(self):
        rc, md, _ = show("local", local_doc(dict(self.FUTEX, iterations=100000, done=100000, capped=False)))
        self.assertEqual(rc, 0)
        self.assertEqual(row(md, "local one-way, sddsd blocking / one futex hop (median)")[1:],
                         ["1.50x", "<= 2.1", "met"])

    def test_net_polling_run(self):
        doc = net_doc(lat_doc(100000, False, 30.0), lat_doc(100000, False, 20.0))
        doc["daemon_mode"], doc["latency"]["raw_udp6"] = "polling", lat_doc(100000, False, 25.0)
        doc["monolithic"] = {"available": True, "latency": lat_doc(100000, False, 24.0),
                             "latency_mixed": lat_doc(100000, False, 27.0), "ratio_send": 1.25, "ratio_receive": 1.1}
        doc["throughput"] = {"sddsd_frames": {"ok": True, "rate": 9e5, "frames": 10, "samples": 10, "bytes": 70},
                             "raw_udp6_sendmmsg": {"ok": True, "rate": 1e6}, "raw_datagram_bytes": 7}
        doc["ddsperf"] = {"ran": False, "ok": False, "why": "--no-ddsperf"}
        rc, md, _ = show("net", doc)
        self.assertEqual(rc, 0)
        self.assertEqual(row(md, "sddsd isolated, polling daemons")[2], "30.0")
        self.assertEqual(row(md, "Cyclone DDS ddsperf (veth)")[1], "not run: --no-ddsperf")
        self.assertIn("7-byte datagrams", row(md, "net, raw UDPv6 sendmmsg (baseline), polling daemons' run")[2])
        for name, cell in (("sddsd / raw UDPv6 busy-polled (median)", "1.50x"), ("sddsd / raw UDPv6 (median, veth)",
                           "1.20x"), ("monolithic / busy-polled raw UDPv6 (median)", "1.20x")):
            self.assertEqual(row(md, "net one-way, %s, polling daemons" % name)[1], cell)
        self.assertEqual(row(md, "net isolation cost, send side (A->B legs, median), polling daemons")[1], "+25.0%")
        self.assertEqual(row(md, "net throughput, sddsd frames / raw UDPv6 sendmmsg datagrams (same size), polling "
                                 "daemons")[1:], ["0.90x", ">= 0.9", "met"])
        self.assertNotIn("blocking daemons", md)

    def test_net_tap_backend(self):
        # net --backend tap: the tap figures beside the socket ones, their ratios, the goal and the callgrind line.
        doc = net_doc(lat_doc(100000, False, 40.0), lat_doc(100000, False))
        doc["daemon_mode"], doc["latency"]["raw_udp6"] = "blocking", lat_doc(100000, False, 10.0)
        doc["throughput"] = {"sddsd": {"ok": True, "rate": 4e5}, "raw_udp6_sendmmsg": {"ok": True, "rate": 1e6}}
        doc["ddsperf"] = {"ran": False, "ok": False, "why": "--no-ddsperf"}
        cg = {"ok": True, "rounds": 2000, "eth_in": 2010, "eth_out": 2030, "ip6s_input_ir": 1407000,
              "ip6s_udp_send_ir": 1624000, "ip6s_flush_ir": 203000, "ir_per_frame_in": 700.0, "ir_per_frame_out": 900.0}
        doc["tap"] = {"latency": {"sddsd": lat_doc(100000, False, 30.0)}, "callgrind": cg,
                      "throughput": {"sddsd": {"ok": True, "rate": 5e5}, "sddsd_frames": {"ok": True, "rate": 5e5}}}
        rc, md, _ = show("net", doc)
        self.assertEqual(rc, 0)
        self.assertEqual(row(md, "sddsd isolated, tap backend (own IPv6 stack), blocking daemons")[2], "30.0")
        self.assertEqual(row(md, "net, sddsd over tap (blocking daemons, one sample per frame)")[1], "0.500")
        self.assertEqual(row(md, "net one-way, tap / socket backend (median), blocking daemons")[1:],
                         ["0.75x", "<= 1.0 (tap not slower)", "met"])
        self.assertEqual(row(md, "net one-way, tap / socket backend (p99), blocking daemons")[1:3],
                         ["1.00x", "<= 1.0 (tap not slower)"])
        self.assertEqual(row(md, "net throughput, tap / socket backend (samples), blocking daemons")[1], "1.25x")
        self.assertIn("**tap not slower than socket, blocking daemons: met**", md)
        self.assertEqual(row(md, "net tap, own stack instructions per received frame (ip6s_input, callgrind), "
                                 "blocking daemons")[1], "700 instructions")
        self.assertIn("**900 per sent frame**", md)
        # Slower over tap: the goal says which figure missed it.
        doc["tap"]["latency"]["sddsd"] = lat_doc(100000, False, 50.0)
        rc, md, _ = show("net", doc)
        self.assertIn("**tap not slower than socket, blocking daemons: NOT met (latency median)**", md)
        # No valgrind: the run says why, and so does the report; a tap figure cut short is refused.
        doc["tap"]["callgrind"] = {"ok": False, "why": "valgrind not found", "rounds": 2000}
        doc["tap"]["latency"]["sddsd"] = lat_doc(7776, True, 30.0)
        rc, md, _ = show("net", doc)
        self.assertIn("Own stack instructions per frame: not counted: valgrind not found", md)
        self.assertIn("n/a (sddsd isolated, tap backend (own IPv6 stack), blocking daemons hit its time cap",
                      row(md, "net one-way, tap / socket backend (median), blocking daemons")[1])
        self.assertIn("blocking daemons: not judged (", md)
        # Without --backend tap there is no tap row, ratio or goal.
        del doc["tap"]
        rc, md, _ = show("net", doc)
        self.assertEqual(rc, 0)
        self.assertNotIn("tap", md.replace("--no-ddsperf", ""))

    def test_scale_iceoryx_callgrind(self):
        pt = {"clients": 4, "ok": True, "p50_us": 12.5, "p99_us": 50.0, "p999_us": 70.0, "max_us": 90.0,
              "iterations": 20000, "daemon_rss_kib": 4600, "daemon_pss_kib": 2500, "daemon_rss0_kib": 4500,
              "daemon_pss0_kib": 2400, "rss_per_client_kib": 25.0, "pss_per_client_kib": 25.0}
        rc, md, _ = show("scale", {"bench": "scale", "ok": True, "n": 20000, "points": [
            pt, {"clients": 8, "ok": False, "why": "too many files"}]})
        self.assertEqual(rc, 0)
        self.assertEqual(row(md, "4"), ["4", "12.5", "50.0", "70.0", "90.0", "4600", "2500", "4500", "2400", "25.0",
                                        "25.0", ""])
        self.assertEqual(row(md, "8")[-1], "too many files")
        mode = {"ok": True, "iterations": 2000, "median_us": 2.0, "p99_us": 7.0, "p999_us": 9.0, "max_us": 30.0}
        rc, md, _ = show("iceoryx", {"bench": "iceoryx", "ok": True, "n": 2000, "roudi_note": "RouDi said hi",
                                     "modes": [dict(mode, mode="polling"), {"mode": "waitset", "ok": False,
                                                                            "why": "RouDi left"}]})
        self.assertEqual(row(md, "iceoryx polling subscriber")[2], "2.000")
        self.assertEqual(row(md, "iceoryx WaitSet")[1], "not run: RouDi left")
        self.assertIn("RouDi said hi", md)
        rc, md, _ = show("callgrind", {"bench": "callgrind", "ok": True, "size": 2, "base_samples": 500,
                                       "samples": 5000, "ir_base": 1000, "ir_full": 11000, "ir_per_sample": 2.0,
                                       "clients_ok": False, "clients_why": "no callgrind.h"})
        self.assertIn("**2 instructions per sample**", md)
        self.assertIn("not counted: no callgrind.h", md)
        self.assertEqual(row(md, "sddsd instructions per sample (callgrind)")[1], "2 instructions")

    def test_bad_numbers_are_usage_errors(self):
        with tempfile.TemporaryDirectory() as d:  # every part skipped: a missed check runs nothing
            for bad in (["-n", "0"], ["-n", "x"], ["-s", "101"], ["--skip", "local,bogus"]):
                p = subprocess.run([sys.executable, REPORT, "--bench", "/nonexistent", "--out", d, "--skip",
                                    ",".join(rp.PARTS)] + bad, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   timeout=30)
                self.assertEqual(p.returncode, 2, bad)

    def test_unreadable_input(self):
        for doc in ("", "{not json", "[1, 2]"):
            rc, md, err = show("local", doc)
            self.assertEqual((rc, md), (1, ""))
            self.assertEqual(len(err.strip().splitlines()), 1, err)


PING = """[3921] participant vm:3921: new (self)
[3921] 1.000  vm:3860 size 12 mean 90.000us min 10.229us 50% 80.000us 90% 16.476us 99% 900.000us max 9999.000us cnt 100
[3921] 2.000  vm:3860 size 12 mean 17.347us min 10.229us 50% 11.266us 90% 16.476us 99% 42.285us max 2729.139us cnt 28665
[3921] 2.000  rss:7.6MB vcsw:14445 ivcsw:14374 ddsperf:0%+1% recvUC:11%+26%
[3921] 3.000  vm:3860 size 12 mean 19.734us min 10.249us 50% 11.230us 90% 12.553us 99% 41.954us max 3012.719us cnt 25217
[3921] 4.000  vm:3860 size 12 mean 19.120us min 10.254us 50% 11.251us 90% 12.669us 99% 41.884us max 2735.923us cnt 26061
"""
SUB = """[9114] 0.500  rss:7.0MB vcsw:10 ivcsw:2
[9114] 1.002  size 4 total 375828 lost 0 delta 375828 lost 0 rate 374.97 kS/s 12.00 Mb/s (37.50 kS/s 1.20 Mb/s)
[9114] 2.000  size 4 total 1229894 lost 0 delta 854066 lost 0 rate 855.90 kS/s 27.39 Mb/s (123.25 kS/s 3.94 Mb/s)
[9114] 3.004  size 4 total 1827363 lost 0 delta 597469 lost 0 rate 595.06 kS/s 19.04 Mb/s (182.00 kS/s 5.82 Mb/s)
[9114] 4.000  size 4 total 2623039 lost 0 delta 795676 lost 0 rate 798.68 kS/s 25.56 Mb/s (263.29 kS/s 8.43 Mb/s)
[9114] 5.000  size 4 total 2909595 lost 0 delta 286556 lost 0 rate 286.65 kS/s 9.17 Mb/s (291.05 kS/s 9.31 Mb/s)
[9114] 6.000  size 4 total 2909595 lost 0 delta 0 lost 0 rate 0.00 kS/s 0.00 Mb/s (0.00 kS/s 0.00 Mb/s)
"""


class Readers(unittest.TestCase):
    def test_ddsperf_four_seconds(self):
        # The first (warm-up) second is dropped; medians of the other three.
        d = rp.ddsperf_lat(PING)
        self.assertEqual((d["seconds"], d["first_dropped"]), (3, True))
        self.assertAlmostEqual(d["p50"], 11.251)
        self.assertAlmostEqual(d["p99"], 41.954)
        self.assertAlmostEqual(d["max"], 3012.719)
        self.assertEqual(d["count"], 28665 + 25217 + 26061)

    def test_ddsperf_two_seconds(self):
        d = rp.ddsperf_lat(PING[PING.index("[3921] 3.000"):])
        self.assertFalse(d["first_dropped"])
        self.assertAlmostEqual(d["p50"], (11.230 + 11.251) / 2)
        self.assertIsNone(rp.ddsperf_lat("[1] 1.000  rss:7.6MB vcsw:1\nddsperf: error\n"))

    def test_ddsperf_tput(self):
        # The first and last intervals with data are left out.
        d = rp.ddsperf_tput(SUB)
        self.assertEqual(d["intervals"], 3)
        self.assertAlmostEqual(d["rate"], (854066 + 597469 + 795676) / (4.000 - 1.002))
        self.assertIsNone(rp.ddsperf_tput(SUB[SUB.index("[9114] 4.000"):]))

    def test_ccdf(self):
        # 5 samples (ns) 5,1,3,3,2: at or above 1 us/1000: 5; 2: 4; 3: 3 (the tie once); 5: 1.
        with tempfile.TemporaryDirectory() as d:
            raw = os.path.join(d, "raw.txt")
            with open(raw, "w") as f:
                f.write("5\n1\n3\n3\n2\n")
            lines = rp.ccdf(raw)
            self.assertEqual(int(lines[0].split()[1]), 5)  # every sample is at or above the smallest
            self.assertEqual(lines, ["0.0010 5", "0.0020 4", "0.0030 3", "0.0050 1"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
