#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report.py - `sdds-bench report`: every benchmark in one run, one Markdown
report with tables, ratios and PNG plots.

usage: report.py --bench SDDS-BENCH [options]   (or: sdds-bench report [options])

Runs each part as a child in its own process group with a time cap
(`sdds-bench local`, `iceoryx`, `net` with blocking and polling daemons,
`scale`, `callgrind`, `sdds-trace compare`, Cyclone DDS `ddsperf` on
loopback), reads their --json and per-iteration files and writes
DIR/report.md, DIR/report.json and PNG plots drawn by gnuplot (scripts and
data kept in DIR/plots). A part that cannot run says "not run: <why>".

The refusal rule: a ratio is printed only when both of its figures were
measured in full in this run. A figure that failed, hit its time cap, or
measured fewer round trips than requested is not measured; the cell says
why ("baseline hit its time cap after 7,776 of 100,000 round trips").

Python 3 standard library only; gnuplot when installed.
"""
import argparse
import glob
import json
import math
import os
import shlex
import signal
import subprocess
import sys
import time

NAN = float("nan")
PARTS = ["local", "iceoryx", "ddsperf", "net", "scale", "trace", "callgrind"]
DEFAULT_N, QUICK_N, DEFAULT_SIZE, DDS_DOMAIN = 100000, 2000, 2, 77
SRCDIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
GOAL_POLLING_US, GOAL_BLOCKING_HOPS, GOAL_TPUT = 0.6, 2.1, 10e6  # bench.h
WHY_MAX = 256  # BENCH_WHY_MAX: a reason is cut, never dropped
_live = set()  # pids of live process groups, stopped on SIGINT/SIGTERM


def progress(msg):
    print("sdds-bench report: " + msg, file=sys.stderr, flush=True)


def why_cut(s):
    return s[:WHY_MAX - 1]


# ------------------------------------------------------------ rows and the refusal rule


class Lat:
    """One latency row, one-way us. n is what was measured; requested what was asked for."""

    def __init__(self, label):
        self.label, self.ok, self.why = label, False, "not run"
        self.p50 = self.p99 = self.max = self.n = 0.0
        self.p999 = NAN
        self.truncated, self.requested, self.raw, self.note = False, None, "", ""

    def fail(self, why):
        self.ok, self.why = False, why_cut(why)


class Tput:
    def __init__(self, label):
        self.label, self.ok, self.why, self.rate, self.note = label, False, "not run", 0.0, ""

    def fail(self, why):
        self.ok, self.why = False, why_cut(why)


class Fig:
    """A figure a ratio uses; why says what is missing when it is not usable."""

    def __init__(self, name, ok, v, why="", capped=False, n=None, requested=None):
        self.name, self.ok, self.v, self.why = name, ok, v, why
        self.capped, self.n, self.requested = capped, n, requested


def fig_p50(name, l):
    return Fig(name, l.ok, l.p50, l.why, l.truncated, l.n, l.requested)


def fig_rate(name, t):
    return Fig(name, t.ok, t.rate, t.why)


def fig_refusal(f):
    """Why f was not measured in full, or None when it was."""
    if not f.ok:
        return "%s not measured: %s" % (f.name, f.why)
    have = "%s of %s round trips" % (fmt_count(f.n), fmt_count(f.requested)) if f.requested else ""
    if f.capped:
        return "%s hit its time cap%s" % (f.name, " after " + have if have else "")
    if f.requested is not None and f.n is not None and f.n < f.requested:
        return "%s fell short of its iterations: %s" % (f.name, have)
    return None


def fmt_count(v):
    return "{:,}".format(int(v)) if v is not None else "?"


class Ratio:
    def __init__(self, name, unit, cmp=0, goal=0.0, goal_text=""):
        self.name, self.unit, self.cmp, self.goal, self.goal_text = name, unit, cmp, goal, goal_text
        self.ok, self.v, self.why = False, 0.0, ""

    def div(self, a, b, scale=1.0, offset=0.0):
        """scale * (a / b + offset), or n/a with the reason of the first figure not measured in full."""
        for f in (a, b):
            w = fig_refusal(f)
            if w:
                self.why = why_cut(w)
                return self
        if not b.v > 0:
            self.why = "%s is zero" % b.name
            return self
        self.v, self.ok = scale * (a.v / b.v + offset), True
        return self

    def abs(self, a, scale=1.0):
        w = fig_refusal(a)
        if w:
            self.why = why_cut(w)
        else:
            self.v, self.ok = a.v * scale, True
        return self

    def met(self):
        if self.cmp == 0 or not self.ok:
            return None
        return self.v <= self.goal if self.cmp < 0 else self.v >= self.goal

    def cell(self):
        if not self.ok:
            return "n/a (%s)" % md_cell(self.why)
        if self.unit == "x":
            return "%.2fx" % self.v
        if self.unit == "%":
            return "%+.1f%%" % self.v
        if self.unit == "Ir":
            return "%.0f instructions" % self.v
        return "%.3f %s" % (self.v, self.unit)


# ------------------------------------------------------------ JSON lookups


def jget(j, path):
    """A member by dotted path ("modes.1.p99_us"), or None."""
    for k in path.split("."):
        if isinstance(j, list):
            try:
                j = j[int(k)]
            except (ValueError, IndexError):
                return None
        elif isinstance(j, dict):
            j = j.get(k)
        else:
            return None
        if j is None:
            return None
    return j


def jnum(j, path):
    v = jget(j, path)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def given(w):
    return w if w else "failed (no reason given)"


def json_ok(j, path, why_key):
    """(True, "") when the object at path says ok, else (False, why)."""
    ok = jget(j, path + ".ok")
    if not isinstance(ok, bool):
        return False, "no '%s' in the JSON" % path
    if not ok:
        return False, given(jget(j, "%s.%s" % (path, why_key)))
    return True, ""


def lat_json(l, j, path, n_key, why_key, requested):
    """Fill l from the object at path; requested: the iterations asked for (a row's own 'requested' wins)."""
    ok, why = json_ok(j, path, why_key)
    if not ok:
        return l.fail(why)
    vals = {}
    for key in ("median_us", "p99_us", "max_us", n_key):
        vals[key] = jnum(j, path + "." + key)
        if vals[key] is None:
            return l.fail("no number '%s.%s' in the JSON" % (path, key))
    l.p50, l.p99, l.max, l.n = vals["median_us"], vals["p99_us"], vals["max_us"], vals[n_key]
    p999 = jnum(j, path + ".p999_us")
    l.p999 = NAN if p999 is None else p999
    # The time cap is "truncated" (or the harness's "capped"); rounds done "done" when given.
    l.truncated = bool(jget(j, path + ".truncated")) or bool(jget(j, path + ".capped"))
    own = jnum(j, path + ".requested")
    l.requested = own if own is not None else requested
    done = jnum(j, path + ".done")
    if done is not None:
        l.n = done
    l.ok, l.why = True, ""


def tput_json(t, j, path, rate_key, why_key):
    ok, why = json_ok(j, path, why_key)
    if not ok:
        return t.fail(why)
    rate = jnum(j, "%s.%s" % (path, rate_key))
    if rate is None or not rate > 0:
        return t.fail("no rate '%s.%s' in the JSON" % (path, rate_key))
    t.rate, t.ok, t.why = rate, True, ""


def lat_raw(l, path):
    if l.ok and os.path.isfile(path) and os.path.getsize(path) > 0:
        l.raw = path


def lat_raw_glob(l, pattern):
    g = sorted(glob.glob(pattern))
    if g:
        lat_raw(l, g[0])


# ------------------------------------------------------------ ddsperf's text


def ddsperf_lat(text):
    """ddsperf ping's per-second summaries: medians of p50 and p99, the largest max, the count.

    With three or more lines the first (discovery, warm-up) is dropped. None when there is none.
    """
    rows = []
    for line in text.splitlines():
        p = line.find(" size ")
        if p < 0 or " mean " not in line[p:]:
            continue
        t = line[p:].split()
        try:
            i = t.index("50%")
            rows.append((float(t[i + 1].rstrip("us")), float(t[t.index("99%") + 1].rstrip("us")),
                         float(t[t.index("max") + 1].rstrip("us")), float(t[t.index("cnt") + 1])))
        except (ValueError, IndexError):
            continue
    if not rows:
        return None
    first = 1 if len(rows) >= 3 else 0
    used = rows[first:]
    return {"p50": median([r[0] for r in used]), "p99": median([r[1] for r in used]),
            "max": max(r[2] for r in used), "count": sum(r[3] for r in used),
            "seconds": len(used), "first_dropped": first == 1}


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def ddsperf_tput(text):
    """ddsperf sub: the deltas over the intervals, leaving out the first and last with data; None if < 3."""
    pts = []
    for line in text.splitlines():
        p = line.find(" delta ")
        if p < 0 or " total " not in line:
            continue
        try:
            pts.append((float(line.split("]", 1)[1].split()[0]), float(line[p:].split()[1])))
        except (IndexError, ValueError):
            continue
    data = [i for i, (_, d) in enumerate(pts) if d > 0]
    if not data or data[-1] - data[0] < 2:
        return None
    lo, hi = data[0], data[-1]
    samples = sum(pts[i][1] for i in range(lo + 1, hi))
    secs = pts[hi - 1][0] - pts[lo][0]
    if not secs > 0:
        return None
    return {"rate": samples / secs, "samples": samples, "intervals": hi - lo - 1}


# ------------------------------------------------------------ plots (gnuplot)


def ccdf_write(raw, dat):
    """Latency profile data of a per-iteration file (ns): "us samples_at_or_above", thinned. Returns n."""
    with open(raw) as f:
        v = sorted(float(x) for x in f.read().split())
    if not v:
        raise ValueError("no data")
    n, nxt = len(v), float(len(v))
    with open(dat, "w") as out:
        for i, x in enumerate(v):
            above = n - i
            if i > 0 and x == v[i - 1]:
                continue
            # Every point of the last 200 (the tail), then one per 1% fewer samples.
            if above <= 200 or above <= nxt or i == 0:
                out.write("%.4f %d\n" % (x / 1e3, above))
                nxt = above / 1.01
    return n


def gq(s):
    return s.replace("'", "''")


class Plotter:
    def __init__(self, gnuplot, d):
        self.dir, self.bin, self.term = d, which(gnuplot), "png"
        if self.bin is None:
            raise RuntimeError("gnuplot not found%s (apt-get install gnuplot-nox)"
                               % (" at " + gnuplot if "/" in gnuplot else ""))
        os.makedirs(os.path.join(d, "plots"), exist_ok=True)
        # gnuplot-nox has pngcairo; a build without cairo has only the libgd png terminal.
        try:
            if subprocess.run([self.bin, "-e", "set terminal pngcairo"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=20).returncode == 0:
                self.term = "pngcairo"
        except (OSError, subprocess.TimeoutExpired):
            pass

    def _script(self, name, png, w, h, body):
        gp = os.path.join(self.dir, "plots", name + ".gp")
        with open(gp, "w") as f:
            f.write("set terminal %s size %d,%d noenhanced\n" % (self.term, w, h))
            f.write("set output '%s/%s'\nset grid\nset key inside right top\n" % (self.dir, png))
            f.write(body)
        out, err = os.path.join(self.dir, png), os.path.join(self.dir, "plots", name + ".err")
        with open(err, "w") as ef:
            try:
                rc = subprocess.run([self.bin, gp], stdout=subprocess.DEVNULL, stderr=ef, timeout=60).returncode
            except subprocess.TimeoutExpired:
                raise RuntimeError("gnuplot took more than 60 s")
        if rc != 0 or not os.path.isfile(out) or os.path.getsize(out) == 0:
            raise RuntimeError("gnuplot failed on %s (exit %d): %s" % (gp, rc, last_line(err) or "no PNG"))

    def profile(self, png, title, curves):
        """curves: [(title, raw file)]. Returns a note naming curves left out ("" when none)."""
        name, plots, missing = png.split(".")[0], [], []
        for i, (t, raw) in enumerate(curves):
            dat = os.path.join(self.dir, "plots", "%s-%d.dat" % (name, i))
            try:
                ccdf_write(raw, dat)
                plots.append("'%s' using 1:2 with fsteps lw 2 title '%s'" % (dat, gq(t)))
            except (OSError, ValueError) as e:
                missing.append("%s: %s" % (t, e))
        if not plots:
            raise RuntimeError("no per-iteration data: " + "; ".join(missing))
        self._script(name, png, 1100, 650,
                     "set title '%s'\nset logscale xy\nset format x '%%g'\nset format y '%%g'\n"
                     "set xlabel 'one-way latency x (us, log scale)'\n"
                     "set ylabel 'samples with latency >= x (log scale)'\nplot %s\n"
                     % (gq(title), ", \\\n    ".join(plots)))
        return "left out: " + "; ".join(missing) if missing else ""

    def phases(self, png, panels):
        """panels: [(title, [(phase, iso_us, mono_us)])]; NaN: that mode lacks the phase."""
        if not panels:
            raise RuntimeError("no phases to draw")
        body, cols = "", 1 if len(panels) < 2 else 2
        rows = (len(panels) + 1) // 2
        body = ("set datafile missing '-'\nset style data histograms\nset style histogram clustered gap 1\n"
                "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
                "set xtics rotate by -35 left\nset yrange [0:*]\nset key inside left top\n"
                "set ylabel 'average us per phase'\nset bmargin 12\n"
                "set multiplot layout %d,%d title 'per-phase average, isolated (sddsd) vs monolithic'\n"
                % (rows, cols))
        for i, (title, bars) in enumerate(panels):
            dat = os.path.join(self.dir, "plots", "phases-%d.dat" % i)
            with open(dat, "w") as d:
                for ph, a, b in bars:
                    d.write('"%s" %s %s\n' % (ph, num_or_dash(a), num_or_dash(b)))
            body += ("set title '%s'\nplot '%s' using 2:xtic(1) title 'isolated', '' using 3 title 'monolithic'\n"
                     % (gq(title), dat))
        self._script("phases", png, 700 * cols + 100, 560 * rows + 40, body + "unset multiplot\n")

    def scaling(self, png, pts):
        if not pts:
            raise RuntimeError("no scaling points to draw")
        dat = os.path.join(self.dir, "plots", "scaling.dat")
        with open(dat, "w") as d:
            for p in pts:
                d.write("%g %s %s %s\n" % (p["clients"], num_or_dash(p["p50"]), num_or_dash(p["p99"]),
                                           num_or_dash(p["rss_pc"])))
        self._script("scaling", png, 1000, 600,
                     "set datafile missing '-'\nset logscale x 2\nset format x '%%g'\nset key opaque\n"
                     "set title 'scaling with the number of connected clients'\n"
                     "set xlabel 'connected clients'\nset ylabel 'one-way latency (us, log scale)'\n"
                     "set logscale y\nset y2label 'daemon RSS per client (KiB)'\nset ytics nomirror\n"
                     "set y2tics\nset y2range [0:*]\n"
                     "plot '%s' using 1:2 with linespoints lw 2 title 'p50 latency', "
                     "'' using 1:3 with linespoints lw 2 title 'p99 latency', "
                     "'' using 1:4 axes x1y2 with linespoints lw 2 title 'RSS per client'\n" % dat)


def num_or_dash(v):
    return "-" if v is None or math.isnan(v) else "%.4f" % v


# ------------------------------------------------------------ children


def which(prog):
    if "/" in prog:
        return prog if os.path.isfile(prog) and os.access(prog, os.X_OK) else None
    for d in os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin").split(":"):
        c = os.path.join(d, prog)
        if d and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def last_line(path):
    try:
        with open(path, errors="replace") as f:
            lines = [x.rstrip(" \r\n") for x in f]
    except OSError:
        return ""
    lines = [x for x in lines if x]
    return lines[-1][:199] if lines else ""


def status_str(rc):
    return "exit %d" % rc if rc >= 0 else "killed by signal %d" % -rc


def cmdline(argv):
    return " ".join("'%s'" % a if a == "" or any(c in a for c in " \t'\"$*?;&|<>") else a for a in argv)


def spawn(argv, env, out, err):
    e = dict(os.environ, **(env or {}))
    with open(out, "w") as o, open(err if err else os.devnull, "w") as er:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=o, stderr=er, env=e,
                             start_new_session=True)
    _live.add(p.pid)
    return p


def stop(p):
    """SIGTERM to p's group (the net benchmark removes its namespaces on it), SIGKILL after 3 s."""
    for sig, grace in ((signal.SIGTERM, 3), (signal.SIGKILL, 10)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            p.wait(grace)
            break
        except subprocess.TimeoutExpired:
            continue
    _live.discard(p.pid)


def wait(p, cap):
    """The exit code (negative: signal), or None when the cap passed (the group is then stopped)."""
    try:
        rc = p.wait(cap)
    except subprocess.TimeoutExpired:
        stop(p)
        return None
    _live.discard(p.pid)
    return rc


def on_signal(sig, frame):
    for pid in list(_live):
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)


# ------------------------------------------------------------ the report


class Report:
    def __init__(self, o, argv):
        self.o, self.dir, self.steps, self.ok, self.pwhy = o, o.out, [], {}, {}
        self.cmdline = "sdds-bench report" + ("" if not argv else " " + cmdline(argv))
        for p in PARTS:
            self.ok[p], self.pwhy[p] = False, ""
        L = Lat
        self.l_spin, self.l_futex = L("baseline: spin on a shared line"), L("baseline: futex wait/wake (one hop)")
        self.l_yield = L("baseline: yield-spin, both on one CPU (polling floor on 2 CPUs)")
        self.l_poll, self.l_block = L("sddsd polling"), L("sddsd blocking")
        self.l_ice_poll, self.l_ice_wait = L("iceoryx polling subscriber"), L("iceoryx WaitSet")
        self.l_dds = L("Cyclone DDS ddsperf, listener (loopback)")
        self.l_dds_wait = L("Cyclone DDS ddsperf, waitset (loopback)")
        self.n_blk, self.n_poll = L("sddsd isolated, blocking daemons"), L("sddsd isolated, polling daemons")
        self.n_mono_blk, self.n_mono_poll = L("monolithic, blocking"), L("monolithic, polling")
        self.n_mixed = L("isolated A, monolithic B (polling)")  # only for the leg ratios
        self.n_raw = L("raw UDPv6 ping-pong, blocking recv (baseline)")
        self.n_raw_busy = L("raw UDPv6 ping-pong, busy-polled recv (baseline)")
        self.n_dds = L("Cyclone DDS ddsperf (veth)")
        T = Tput
        self.t_poll, self.t_block = T("local, sddsd polling"), T("local, sddsd blocking")
        self.t_mono_spin = T("local, monolithic (polling spin budget)")
        self.t_mono_sleep = T("local, monolithic (spin budget 0)")
        self.t_dds = T("local, Cyclone DDS ddsperf pub/sub (loopback)")
        self.t_net = T("net, sddsd (blocking daemons, one sample per frame)")
        self.t_net_packed = T("net, sddsd packed (peer_pack both ways; samples)")
        self.t_net_packed_frames = T("net, sddsd packed frames/s (daemon B's counters)")
        self.t_net_mono = T("net, monolithic")
        self.t_net_frames = T("net, sddsd frames/s (daemon B's counters; not samples)")
        self.t_net_raw = T("net, raw UDPv6 sendmmsg (baseline)")
        self.t_net_raw_gso = T("net, raw UDPv6 GSO messages of 32 (the kernel's ceiling for sddsd's way)")
        self.leg_send, self.leg_recv = [False, 0.0, "not run"], [False, 0.0, "not run"]
        self.local_poll_note, self.local_poll_yield, self.dds_payload = "", False, ""
        self.sc, self.tr, self.tr_missing = [], [], []
        self.cg = {"ok": False, "why": "", "clients_ok": False, "clients_why": ""}
        self.plots, self.ratios = [], []

    def skipped(self, part):
        return part in self.o.skip

    def exec(self, name, argv, cap, env=None):
        """Run argv as step name (stdout to logs/NAME.json); (JSON object or None, exit code or None, why)."""
        out, err = "%s/logs/%s.json" % (self.dir, name), "%s/logs/%s.err" % (self.dir, name)
        step = {"name": name, "cmd": cmdline(argv), "result": "", "secs": 0.0}
        self.steps.append(step)
        progress("%s (at most %.0f s)" % (name, cap))
        t0, j, rc, why = time.monotonic(), None, None, ""
        try:
            rc = self.replayed(name) if self.o.replay else wait(spawn(argv, env, out, err), cap)
            if rc is None:
                why = "stopped after its %.0f-s cap" % cap
        except OSError as e:
            why = "cannot run %s: %s" % (argv[0], e.strerror)
        if rc is not None:
            try:
                with open(out) as f:
                    j = json.load(f)
                if not isinstance(j, dict):
                    j = None
            except (OSError, ValueError):
                j = None
            if j is None:
                last = last_line(err)
                why = "%s, no JSON%s" % (status_str(rc), ": " + last if last else "")
        step["secs"] = time.monotonic() - t0
        step["result"] = status_str(rc) if j is not None else why
        return j, rc, why_cut(why)

    def replayed(self, name):
        """--replay: the exit code an earlier run left (logs/NAME.rc; "cap": stopped at its cap; none: 0)."""
        try:
            with open("%s/logs/%s.rc" % (self.dir, name)) as f:
                rc = f.read().strip()
        except FileNotFoundError:
            return 0
        return None if rc == "cap" else int(rc)

    # ---- the parts

    def local(self):
        rows = [self.l_spin, self.l_futex, self.l_yield, self.l_poll, self.l_block,
                self.t_poll, self.t_block, self.t_mono_spin, self.t_mono_sleep]
        if self.skipped("local"):
            self.pwhy["local"] = "--skip local"
            return [r.fail("--skip local") for r in rows]
        o, raw = self.o, self.dir + "/raw/local"
        argv = [o.bench, "local", "--json", "-n", str(o.n), "--warmup", "100" if o.quick else "1000",
                "-s", str(o.size), "--raw", raw] + (["--sddsd", o.sddsd] if o.sddsd else [])
        argv += ["-t", "0.3", "--max-seconds", "5"] if o.quick else []
        j, rc, why = self.exec("local", argv, 150 if o.quick else 1200)
        if j is None:
            self.pwhy["local"] = why
            return [r.fail(why) for r in rows]
        self.ok["local"] = True
        req = jnum(j, "iterations") or o.n
        for l, path in ((self.l_spin, "baseline.spin"), (self.l_futex, "baseline.futex"),
                        (self.l_yield, "baseline.yield_same_cpu"), (self.l_poll, "polling.latency"),
                        (self.l_block, "blocking.latency")):
            lat_json(l, j, path, "iterations", "error", req)
        for t, path in ((self.t_poll, "polling.throughput"), (self.t_block, "blocking.throughput"),
                        (self.t_mono_spin, "monolithic.spin"), (self.t_mono_sleep, "monolithic.sleep")):
            tput_json(t, j, path, "samples_per_s", "error")
        lat_raw(self.l_spin, raw + "-spin.txt")
        lat_raw(self.l_futex, raw + "-futex.txt")
        lat_raw(self.l_yield, raw + "-yield-same-cpu.txt")
        lat_raw_glob(self.l_poll, raw + "-sddsd-polling-*.txt")
        lat_raw_glob(self.l_block, raw + "-sddsd-blocking-*.txt")
        spin = jnum(j, "poll_spin_ns")
        if spin is not None:
            y = jnum(j, "poll_yield_ns")
            y = -1 if y is None else y
            pl = jget(j, "polling.placement.text") or "unpinned"
            if y >= 0:
                self.local_poll_note = ("the daemon polls; the clients spin and yield the CPU (sched_yield) "
                                        "after %.0f ns of pure spinning, placed %s" % (y, pl))
            elif spin >= 1e9:
                self.local_poll_note = "the daemon polls; the clients spin and never yield, placed %s" % pl
            else:
                self.local_poll_note = "the daemon polls; client spin budget %.0f ns, placed %s" % (spin, pl)
            self.local_poll_yield = y >= 0

    def iceoryx(self):
        rows = [self.l_ice_poll, self.l_ice_wait]
        if self.o.no_peers or self.skipped("iceoryx"):
            self.pwhy["iceoryx"] = "--no-peers" if self.o.no_peers else "--skip iceoryx"
            return [r.fail(self.pwhy["iceoryx"]) for r in rows]
        o, raw = self.o, self.dir + "/raw/ice"
        j, rc, why = self.exec("iceoryx", [o.bench, "iceoryx", "--json", "-n", str(o.n), "-s", str(o.size),
                                           "--raw", raw], 120 if o.quick else 900)
        if j is None:
            if rc == 2:
                why = "this sdds-bench has no working 'iceoryx' command (usage error, exit 2)"
            self.pwhy["iceoryx"] = why
            return [r.fail(why) for r in rows]
        self.ok["iceoryx"] = True
        if jget(j, "ok") is False:
            [r.fail(given(jget(j, "why"))) for r in rows]
        for i, m in enumerate(jget(j, "modes") or []):
            l = {"polling": self.l_ice_poll, "waitset": self.l_ice_wait}.get(jget(m, "mode"))
            if l is not None:
                lat_json(l, j, "modes.%d" % i, "iterations", "why", jnum(j, "n") or o.n)
                lat_raw(l, "%s-iceoryx-%s.txt" % (raw, m["mode"]))

    def dds_pair(self, name, server, client, env, cap, wait_server):
        """Server in the background, client for at most cap; None when both ended well, else why."""
        try:
            sp = None if self.o.replay else spawn(server, env, "%s/logs/%s-server.txt" % (self.dir, name),
                                                  "%s/logs/%s-server.err" % (self.dir, name))
        except OSError as e:
            return "cannot start %s: %s" % (server[0], e.strerror)
        time.sleep(0 if sp is None else 0.3)
        # The client prints text, not JSON: exec's "no JSON" is expected; its status is what counts.
        _, rc, why = self.exec(name, client, cap, env)
        st = self.steps[-1]
        st["cmd"] = "%s %s & %s" % (" ".join("%s=%s" % kv for kv in env.items()), cmdline(server), st["cmd"])
        src = 0 if sp is None else wait(sp, 15) if wait_server else stop(sp)
        if rc is None:
            return why
        st["result"] = status_str(rc)
        if rc != 0:
            last = last_line("%s/logs/%s.err" % (self.dir, name))
            return "ddsperf %s%s" % (status_str(rc), ": " + last if last else "")
        if wait_server and src != 0:
            return "the ddsperf server side did not end cleanly"
        return None

    def dds_lat(self, path, l, note=None):
        try:
            with open(path, errors="replace") as f:
                d = ddsperf_lat(f.read())
        except OSError as e:
            return l.fail("no ddsperf output (%s)" % e.strerror)
        if d is None:
            return l.fail("ddsperf printed no round-trip summary")
        l.p50, l.p99, l.p999, l.max, l.n = d["p50"], d["p99"], NAN, d["max"], d["count"]
        l.note = note or ("ddsperf's own per-second summaries: median of %d per-second p50s and p99s%s"
                          % (d["seconds"], ", first second dropped" if d["first_dropped"] else ""))
        l.ok, l.why = True, ""

    def ddsperf(self):
        o, rows = self.o, [self.l_dds, self.l_dds_wait, self.t_dds]
        if o.no_peers or self.skipped("ddsperf"):
            why = "--no-peers" if o.no_peers else "--skip ddsperf"
        elif which(o.ddsperf) is None:
            why = "ddsperf not found%s (apt-get install cyclonedds-tools)" % (
                " at " + o.ddsperf if "/" in o.ddsperf else "")
        else:
            why = None
        if why:
            self.pwhy["ddsperf"] = why
            return [r.fail(why) for r in rows]
        bin_, xml = which(o.ddsperf), "%s/logs/cyclonedds-lo6.xml" % self.dir
        with open(os.path.join(SRCDIR, "tools/sdds-bench/cyclonedds-lo6.xml")) as src, open(xml, "w") as dst:
            dst.write(src.read())
        env = {"CYCLONEDDS_URI": "file://" + xml}
        self.ok["ddsperf"] = True
        topic, sz = "-TOU" if o.size <= 4 else "-TKS", max(o.size, 12)
        ping_s = 3 if o.quick else 12
        self.dds_payload = ("OU topic, 4 bytes (ddsperf has nothing smaller)" if o.size <= 4
                            else "KS topic, %d bytes with its 12-byte fixed part" % sz)
        size = [] if o.size <= 4 else ["size", str(sz)]
        base = [bin_, "-i", str(DDS_DOMAIN), topic, "-D"]
        for l, mode in ((self.l_dds, "listener"), (self.l_dds_wait, "waitset")):
            name = "ddsperf-lo-" + mode
            why = self.dds_pair(name, base + [str(ping_s + 3), "pong", mode],
                                base + [str(ping_s), "ping"] + size + [mode], env, ping_s + 20, False)
            if why:
                l.fail(why)
            else:
                self.dds_lat("%s/logs/%s.json" % (self.dir, name), l)
        sub_s = 6 if o.quick else 12
        why = self.dds_pair("ddsperf-lo-pubsub", base + [str(sub_s + 2), "sub"],
                            base + [str(sub_s), "pub"] + size, env, sub_s + 20, True)
        if why:
            return self.t_dds.fail(why)
        try:
            with open("%s/logs/ddsperf-lo-pubsub-server.txt" % self.dir, errors="replace") as f:
                d = ddsperf_tput(f.read())
        except OSError as e:
            return self.t_dds.fail("no ddsperf sub output (%s)" % e.strerror)
        if d is None:
            return self.t_dds.fail("ddsperf sub saw data in fewer than 3 intervals")
        self.t_dds.rate, self.t_dds.ok, self.t_dds.why = d["rate"], True, ""
        self.t_dds.note = "ddsperf sub's per-second deltas over %d full intervals" % d["intervals"]

    def net_fail(self, poll, dds, why):
        if poll:
            rows = [self.n_poll, self.n_mono_poll, self.n_raw_busy, self.n_mixed]
            self.leg_send, self.leg_recv = [False, 0, why], [False, 0, why]
        else:
            rows = [self.n_blk, self.n_mono_blk, self.n_raw, self.t_net, self.t_net_frames, self.t_net_packed,
                    self.t_net_packed_frames, self.t_net_raw, self.t_net_raw_gso, self.t_net_mono]
            rows += [self.n_dds] if dds else []
        for r in rows:
            r.fail(why)

    def net_run(self, poll):
        o, name = self.o, "net-poll" if poll else "net"
        raw = "%s/raw/%s" % (self.dir, "netpoll" if poll else "net")
        with_dds = not poll and not o.no_peers and not self.skipped("ddsperf")
        argv = [o.bench, "net", "--json", "--monolithic", "-n", str(o.n), "--warmup",
                "100" if o.quick else "1000", "-s", str(o.size), "--raw", raw]
        argv += ["--poll"] if poll else []
        argv += ["-t", "0.3", "--max-seconds", "5"] if o.quick else []
        argv += ["--sddsd", o.sddsd] if o.sddsd else []
        env = None
        if with_dds:
            b = which(o.ddsperf)
            if b is None:
                self.n_dds.fail("ddsperf not found%s (apt-get install cyclonedds-tools)"
                                % (" at " + o.ddsperf if "/" in o.ddsperf else ""))
                with_dds = False
            else:  # net runs ddsperf from PATH: the one the report was given goes first in it
                env = {"PATH": os.path.dirname(b) + ":" + os.environ.get("PATH", "/usr/bin:/bin")}
        if with_dds:
            argv += ["--ddsperf-seconds", "2" if o.quick else "10"]
        else:
            argv += ["--no-ddsperf"]
            if not poll and (o.no_peers or self.skipped("ddsperf")):
                self.n_dds.fail("--no-peers" if o.no_peers else "--skip ddsperf")
        j, rc, why = self.exec(name, argv, 150 if o.quick else 1200, env)
        if j is None:
            if rc == 77:
                why = why_cut("cannot run here: " + last_line("%s/logs/%s.err" % (self.dir, name)))
            if not poll:
                self.pwhy["net"] = why
            return self.net_fail(poll, with_dds or poll, why)
        self.ok["net"], self.pwhy["net"] = True, ""
        req = jnum(j, "iterations") or o.n
        l = self.n_poll if poll else self.n_blk
        lat_json(l, j, "latency.sddsd", "n", "why", req)
        lat_raw(l, raw + "-net-sddsd.txt")
        mono = self.n_mono_poll if poll else self.n_mono_blk
        mw = jget(j, "monolithic.why")
        if jget(j, "monolithic.latency") is not None:
            lat_json(mono, j, "monolithic.latency", "n", "why", req)
        elif jget(j, "monolithic.available") is False:
            mono.fail(mw or "not available (no reason given)")
        else:
            mono.fail("net printed no monolithic figures")
        lat_raw_glob(mono, raw + "-*mono*.txt")
        if poll:
            lat_json(self.n_raw_busy, j, "latency.raw_udp6_busy", "n", "why", req)
            lat_raw(self.n_raw_busy, raw + "-net-raw-busy.txt")
            if jget(j, "monolithic.latency_mixed") is not None:
                lat_json(self.n_mixed, j, "monolithic.latency_mixed", "n", "why", req)
            else:
                self.n_mixed.fail(mono.why or "net printed no mixed run")
            for leg, key in ((self.leg_send, "monolithic.ratio_send"), (self.leg_recv, "monolithic.ratio_receive")):
                v = jnum(j, key)
                if v is not None:
                    leg[:] = [True, v, ""]
                elif not mono.ok:
                    leg[:] = [False, 0, mono.why]
                else:
                    leg[:] = [False, 0, "net printed no %s (it needs both legs of both runs)" % key]
            return
        if jget(j, "monolithic.throughput") is not None:
            tput_json(self.t_net_mono, j, "monolithic.throughput", "rate", "why")
        else:
            self.t_net_mono.fail(mono.why)
        tput_json(self.t_net_frames, j, "throughput.sddsd_frames", "rate", "why")
        lat_json(self.n_raw, j, "latency.raw_udp6", "n", "why", req)
        lat_raw(self.n_raw, raw + "-net-raw.txt")
        for t, k in ((self.t_net, "sddsd"), (self.t_net_raw, "raw_udp6_sendmmsg"),
                     (self.t_net_raw_gso, "raw_udp6_gso"), (self.t_net_packed, "sddsd_packed"),
                     (self.t_net_packed_frames, "sddsd_packed_frames")):
            tput_json(t, j, "throughput." + k, "rate", "why")
        if with_dds:
            s = jget(j, "ddsperf.summary")
            if jget(j, "ddsperf.ok") is True and s:
                # One summary line of ddsperf (its last full second): parsed like the loopback ones.
                path = "%s/logs/net-ddsperf-summary.txt" % self.dir
                with open(path, "w") as f:
                    f.write(s + "\n")
                self.dds_lat(path, self.n_dds, "ddsperf's own summary of one second (run by sdds-bench net)")
            else:
                self.n_dds.fail(jget(j, "ddsperf.why") or "ddsperf failed (no reason given)")

    def net(self):
        if self.skipped("net"):
            self.pwhy["net"] = "--skip net"
            self.net_fail(False, True, "--skip net")
            return self.net_fail(True, True, "--skip net")
        self.net_run(False)
        if not self.ok["net"]:  # the polling run would fail for the same reason
            return self.net_fail(True, False, self.pwhy["net"])
        self.net_run(True)

    def scale(self):
        if self.skipped("scale"):
            self.pwhy["scale"] = "--skip scale"
            return
        argv = [self.o.bench, "scale", "--json", "--clients",
                "1,2,4,8" if self.o.quick else "1,2,4,8,16,32,64,128,256"]
        j, rc, why = self.exec("scale", argv, 120 if self.o.quick else 900)
        if j is None:
            if rc == 2:
                why = "this sdds-bench has no working 'scale' command (usage error, exit 2)"
            self.pwhy["scale"] = why
            return
        if jget(j, "ok") is False:
            self.pwhy["scale"] = given(jget(j, "why"))
        for p in (jget(j, "points") or [])[:16]:
            pt = {k: (jnum(p, s) if jnum(p, s) is not None else NAN) for k, s in (
                ("clients", "clients"), ("p50", "p50_us"), ("p99", "p99_us"), ("rss", "daemon_rss_kib"),
                ("pss", "daemon_pss_kib"), ("rss_pc", "rss_per_client_kib"))}
            pt["why"] = given(jget(p, "why")) if jget(p, "ok") is False else ""
            if pt["why"] == "" and jget(p, "truncated"):
                pt["why"] = "hit its time cap after %s of %s round trips" % (
                    fmt_count(jnum(p, "iterations") or 0), fmt_count(jnum(j, "n") or 0))
            if not math.isnan(pt["clients"]):
                self.sc.append(pt)
        if self.sc:
            self.ok["scale"] = True
        elif not self.pwhy["scale"]:
            self.pwhy["scale"] = "scale printed no points"

    def trace(self):
        o = self.o
        if self.skipped("trace"):
            self.pwhy["trace"] = "--skip trace"
            return
        if o.trace is not None:
            b = which(o.trace)
            if b is None:
                self.pwhy["trace"] = "sdds-trace not found at " + o.trace
                return
        else:  # in the build tree sdds-trace is tools/sdds-trace/sdds-trace, next to sdds-bench's directory
            b = which(os.path.join(os.path.dirname(o.bench), "..", "sdds-trace", "sdds-trace")) or which("sdds-trace")
            if b is None:
                self.pwhy["trace"] = "sdds-trace not built (tools/sdds-trace; or give --sdds-trace PATH)"
                return
        n = o.n if o.quick else min(o.n, 20000)
        j, rc, why = self.exec("trace", [b, "compare", "--json", "-n", str(n)], 150 if o.quick else 900)
        if j is None:
            self.pwhy["trace"] = why
            return
        for r in (jget(j, "runs") or [])[:16]:
            if jget(r, "mode") is None or jget(r, "path") is None:
                continue
            run = {"mode": r["mode"], "path": r["path"] + (", callback" if r.get("callback") else ""),
                   "samples": jnum(r, "samples"), "unmatched": jnum(r, "unmatched"), "ph": [], "total": None}
            run["ph"] = [trace_phase(ph) for ph in (r.get("phases") or [])[:16] if isinstance(ph, dict)]
            if isinstance(r.get("total"), dict):
                run["total"] = trace_phase(dict(r["total"], phase="total"))
            self.tr.append(run)
        for m in jget(j, "missing") or []:
            if m.get("mode") and m.get("path") and m.get("why"):
                self.tr_missing.append(why_cut("%s %s: %s" % (m["mode"], m["path"], m["why"])))
        if self.tr:
            self.ok["trace"] = True
        else:
            self.pwhy["trace"] = "sdds-trace printed no runs (%s)" % status_str(rc)

    def callgrind(self):
        o, cg = self.o, self.cg
        if self.skipped("callgrind"):
            cg["why"] = self.pwhy["callgrind"] = "--skip callgrind"
            return
        argv = [o.bench, "callgrind", "--json", "-k", "5000" if o.quick else "50000", "--base",
                "500" if o.quick else "1000", "-s", str(o.size), "--valgrind", o.valgrind]
        argv += ["--sddsd", o.sddsd] if o.sddsd else []
        j, rc, why = self.exec("callgrind", argv, 150 if o.quick else 900)
        if j is None:
            cg["why"] = self.pwhy["callgrind"] = why
            return
        self.ok["callgrind"] = True
        keys = ("ir_per_sample", "ir_base", "ir_full", "samples", "base_samples")
        if jget(j, "ok") is not True or any(jnum(j, k) is None for k in keys):
            cg["why"] = jget(j, "why") or "no figure in the JSON"
        else:
            cg.update({k: jnum(j, k) for k in keys}, ok=True)
        w, r = jnum(j, "writer_ir_per_sample"), jnum(j, "reader_ir_per_sample")
        if cg["ok"] and jget(j, "clients_ok") is True and w is not None and r is not None:
            cg.update(clients_ok=True, writer=w, reader=r)
        else:
            cg["clients_why"] = jget(j, "clients_why") or "no client figures in the JSON"

    # ---- plots and ratios

    def trace_paths(self):
        seen = []
        for r in self.tr:
            if r["path"] not in seen:
                seen.append(r["path"])
        return seen

    def trace_pair(self, path):
        iso = mono = None
        for r in self.tr:
            if r["path"] == path:
                if r["mode"] == "isolated":
                    iso = r
                elif r["mode"] == "monolithic":
                    mono = r
        return iso, mono

    def draw(self):
        specs = [("latency-local.png", "local latency profile"), ("latency-net.png", "network latency profile"),
                 ("phases.png", "per-phase bar chart"), ("scaling.png", "scaling plot")]
        self.plots = [{"file": f, "what": w, "ok": False, "why": ""} for f, w in specs]
        for p in self.plots:  # a PNG of an earlier run in the same DIR must not pass for this run's
            try:
                os.unlink(os.path.join(self.dir, p["file"]))
            except FileNotFoundError:
                pass
        try:
            g = Plotter(self.o.gnuplot, self.dir)
        except (RuntimeError, OSError) as e:
            for p in self.plots:
                p["why"] = str(e)
            return
        loc = [(self.l_spin, "spin (baseline)"), (self.l_futex, "futex hop (baseline)"),
               (self.l_yield, "yield, one CPU (floor)"), (self.l_poll, "sddsd polling"),
               (self.l_block, "sddsd blocking"), (self.l_ice_poll, "iceoryx polling"),
               (self.l_ice_wait, "iceoryx waitset")]
        net = [(self.n_blk, "sddsd isolated, blocking daemons"), (self.n_poll, "sddsd isolated, polling daemons"),
               (self.n_mono_blk, "monolithic, blocking"), (self.n_mono_poll, "monolithic, polling"),
               (self.n_raw, "raw UDPv6"), (self.n_raw_busy, "raw UDPv6, busy-polled")]
        jobs = [
            (lambda: g.profile("latency-local.png", "local one-way latency profile",
                               [(t, l.raw) for l, t in loc if l.raw]),
             None if any(l.raw for l, _ in loc) else "no local latency run wrote per-iteration values"),
            (lambda: g.profile("latency-net.png", "network one-way latency profile (veth, netns)",
                               [(t, l.raw) for l, t in net if l.raw]),
             None if any(l.raw for l, _ in net) else
             ("no network latency run wrote per-iteration values" if self.ok["net"] else self.pwhy["net"])),
            (lambda: g.phases("phases.png", self.phase_panels()), None if self.ok["trace"] else self.pwhy["trace"]),
            (lambda: g.scaling("scaling.png", self.sc), None if self.ok["scale"] else self.pwhy["scale"]),
        ]
        for p, (draw, why) in zip(self.plots, jobs):
            if why is not None:
                p["why"] = why
                continue
            try:
                p["why"] = draw() or ""
                p["ok"] = True
            except (RuntimeError, OSError) as e:
                p["why"] = why_cut(str(e))

    def phase_panels(self):
        """One panel per path; bars pair each isolated phase with the monolithic one of that name."""
        panels = []
        for path in self.trace_paths():
            iso, mono = self.trace_pair(path)
            if iso is None and mono is None:
                continue
            mph = {x["name"]: x["avg"] for x in (mono["ph"] if mono else [])}
            bars = [(x["name"], x["avg"], mph.get(x["name"], NAN)) for x in (iso["ph"] if iso else [])]
            inames = {x["name"] for x in (iso["ph"] if iso else [])}
            bars += [(x["name"], NAN, x["avg"]) for x in (mono["ph"] if mono else []) if x["name"] not in inames]
            if bars:
                panels.append((path, bars))
        return panels

    def trace_totals(self, path):
        iso = Fig("isolated trace total", False, 0, self.pwhy["trace"])
        mono = Fig("monolithic trace total", False, 0, self.pwhy["trace"])
        if not self.ok["trace"]:
            return iso, mono
        iso.why = mono.why = "sdds-trace printed no such run"
        for m in self.tr_missing:  # sdds-trace says why a run is missing: that is the reason to give
            for f, mode in ((iso, "isolated"), (mono, "monolithic")):
                if m.startswith("%s %s:" % (mode, path)):
                    f.why = m
        for r in self.tr:
            f = {"isolated": iso, "monolithic": mono}.get(r["mode"]) if r["path"] == path else None
            if f is None:
                continue
            if r["total"] is not None and not math.isnan(r["total"]["avg"]):
                # sdds-trace prints the samples it matched, not what was asked for or a cap: never "short".
                f.ok, f.v = True, r["total"]["avg"]
            else:
                f.why = "the run has no total"
        return iso, mono

    def compute_ratios(self):
        R, p50, rate, rs = Ratio, fig_p50, fig_rate, self.ratios
        one = Fig("one", True, 1)
        rs.append(R("local one-way, sddsd polling / iceoryx polling (median)", "x", -1, 1.0,
                    "<= 1 (sddsd polling <= 0.6 us = iceoryx polling here)")
                  .div(p50("sddsd polling", self.l_poll), p50("iceoryx polling", self.l_ice_poll)))
        rs.append(R("local one-way, sddsd polling median", "us", -1, GOAL_POLLING_US, "<= 0.6 us")
                  .abs(p50("sddsd polling", self.l_poll)))
        rs.append(R("local one-way, sddsd polling / yield-spin on one CPU (median)", "x", 0, 0,
                    "1.0x: sddsd adds nothing to the one switch per hop")
                  .div(p50("sddsd polling", self.l_poll), p50("one-CPU yield floor", self.l_yield)))
        rs.append(R("local one-way, sddsd blocking / one futex hop (median)", "x", -1, GOAL_BLOCKING_HOPS, "<= 2.1")
                  .div(p50("sddsd blocking", self.l_block), p50("futex hop", self.l_futex)))
        rs.append(R("local one-way, sddsd blocking / iceoryx WaitSet (median)", "x")
                  .div(p50("sddsd blocking", self.l_block), p50("iceoryx waitset", self.l_ice_wait)))
        rs.append(R("local one-way, sddsd blocking / ddsperf on loopback (median)", "x")
                  .div(p50("sddsd blocking", self.l_block), p50("ddsperf loopback", self.l_dds)))
        # The better of the two daemon modes is the figure the goal is about.
        best = self.t_poll if self.t_poll.ok else self.t_block
        if self.t_poll.ok and self.t_block.ok and self.t_block.rate > self.t_poll.rate:
            best = self.t_block
        best = rate("sddsd throughput", best)
        rs.append(R("local throughput, sddsd (better daemon mode)", "M/s", +1, GOAL_TPUT / 1e6,
                    ">= 10 M samples/s").abs(best, 1e-6))
        rs.append(R("local throughput, isolated / monolithic (polling budget)", "x")
                  .div(rate("sddsd polling throughput", self.t_poll), rate("monolithic throughput", self.t_mono_spin)))
        rs.append(R("local throughput, sddsd / ddsperf pub-sub on loopback", "x")
                  .div(best, rate("ddsperf throughput", self.t_dds)))
        rs.append(R("net one-way, sddsd / ddsperf (median, veth)", "x", -1, 1.0, "<= 1")
                  .div(p50("net sddsd (blocking daemons)", self.n_blk), p50("net ddsperf", self.n_dds)))
        rs.append(R("net one-way, sddsd / raw UDPv6 (median, veth)", "x", -1, 1.15, "<= 1.15")
                  .div(p50("net sddsd (blocking daemons)", self.n_blk), p50("net raw UDPv6", self.n_raw)))
        rs.append(R("net isolation cost, polling: isolated / monolithic - 1 (median)", "%", -1, 5, "<= 5%")
                  .div(p50("net sddsd (polling daemons)", self.n_poll),
                       p50("net monolithic (polling)", self.n_mono_poll), 100, -1))
        for leg, side, paper in ((self.leg_send, "send", "A->B legs, median"),
                                 (self.leg_recv, "receive", "B->A legs, median")):
            r = R("net isolation cost, polling, %s side (%s)" % (side, paper), "%", 0, 0,
                  "paper (STM32F4): %s" % ("+16%" if side == "send" else "+44%"))
            # net computes the leg ratio itself from the isolated and the mixed run: both must be full.
            w = None
            if leg[0]:
                w = (fig_refusal(p50("net sddsd (polling daemons)", self.n_poll)) or
                     fig_refusal(p50("net isolated A, monolithic B", self.n_mixed)))
            if w:
                r.why = why_cut(w)
            else:
                r.div(Fig("%s-side ratio" % side, leg[0], leg[1], leg[2]), one, 100, -1)
            rs.append(r)
        rs.append(R("net one-way, sddsd polling / raw UDPv6 busy-polled (median)", "x")
                  .div(p50("net sddsd (polling daemons)", self.n_poll), p50("busy-polled raw UDPv6", self.n_raw_busy)))
        rs.append(R("net throughput, sddsd frames / raw UDPv6 sendmmsg datagrams (same size)", "x", +1, 0.9, ">= 0.9")
                  .div(rate("sddsd frames/s", self.t_net_frames), rate("raw UDPv6 throughput", self.t_net_raw)))
        rs.append(R("net throughput, sddsd frames / raw UDPv6 GSO datagrams (same size)", "x")
                  .div(rate("sddsd frames/s", self.t_net_frames), rate("raw UDPv6 GSO throughput", self.t_net_raw_gso)))
        rs.append(R("net throughput, sddsd samples / raw UDPv6 datagrams", "x")
                  .div(rate("net sddsd throughput", self.t_net), rate("raw UDPv6 throughput", self.t_net_raw)))
        rs.append(R("net throughput, packed sddsd samples (peer_pack) / raw UDPv6 datagrams", "x")
                  .div(rate("packed sddsd throughput", self.t_net_packed), rate("raw UDPv6 throughput", self.t_net_raw)))
        for path, goal, text in (("receive", 44, "paper (STM32F4): +44%"), ("send", 16, "paper (STM32F4): +16%"),
                                 ("local", 0, "")):
            iso, mono = self.trace_totals(path)
            rs.append(R("isolation cost, %s path (traced total, avg)" % path, "%", 0, goal, text)
                      .div(iso, mono, 100, -1))
        cg = self.cg
        rs.append(R("sddsd instructions per sample (callgrind)", "Ir")
                  .abs(Fig("instructions per sample", cg["ok"], cg.get("ir_per_sample", 0), cg["why"])))

    # ---- output

    def write_md(self, path, machine):
        m, o, out = machine, self.o, []
        w = out.append
        w("# sddsd performance report\n\n")
        w("Generated by `%s` on %s. Every figure below was measured in this one run; a ratio is printed only "
          "when both of its figures were measured in full (no time cap, every requested round trip), "
          "otherwise it says why.\n\n" % (md_cell(self.cmdline), m["date"]))
        w("## Machine\n\n| | |\n| --- | --- |\n")
        w("| CPU | %s |\n| CPUs online | %d |\n| kernel | %s |\n" % (m["cpu"], m["cpus"], m["kernel"]))
        w("| load average (1/5/15 min) before | %.2f / %.2f / %.2f |\n" % tuple(m["load0"]))
        w("| load average (1/5/15 min) after | %.2f / %.2f / %.2f |\n" % tuple(m["load1"]))
        w("| date | %s |\n| commit | %s |\n" % (m["date"], m["commit"]))
        w("| payload | %d bytes |\n| latency iterations | %d%s |\n"
          % (o.size, o.n, " (--quick: a smoke run, not figures to quote)" if o.quick else ""))
        w("\n%s\n" % ("The machine was shared with other work during the run (see the load): absolute figures "
                      "are noisy, ratios of figures from the same run less so."
                      if m["load0"][0] >= 0.5 or m["load1"][0] >= 1.5 else "The machine was quiet before the run."))
        w("Latency is one-way (round trip / 2) in microseconds; throughput in million samples per second.\n")
        w("\n## Headline ratios\n\n| ratio | measured | goal | |\n| --- | --- | --- | --- |\n")
        for r in self.ratios:
            met = r.met()
            w("| %s | %s | %s | %s |\n" % (r.name, r.cell(), r.goal_text or "-",
                                          "-" if met is None else "met" if met else "NOT met"))
        w("\n## Local latency (one machine, shared memory)\n\n")
        for part, what in (("local", "sdds-bench local"), ("iceoryx", "iceoryx"), ("ddsperf", "Cyclone DDS ddsperf")):
            if not self.ok[part]:
                w("%s: not run: %s\n\n" % (what, md_cell(self.pwhy[part])))
        w(lat_table([self.l_spin, self.l_futex, self.l_yield, self.l_poll, self.l_block, self.l_ice_poll,
                     self.l_ice_wait, self.l_dds, self.l_dds_wait]))
        cpus = m["cpus"]
        if self.local_poll_note:
            w("\nsddsd polling: %s. %s\n" % (self.local_poll_note, "One busy process per CPU at most." if cpus > 2 else
              "On two CPUs the two clients share one: yielding hands it over within microseconds, but every "
              "hop still pays a context switch." if self.local_poll_yield else
              "On two CPUs that is three busy processes on two CPUs: two of them take turns at the scheduler "
              "tick, so a round trip can cost milliseconds."))
        if self.local_poll_note and self.l_yield.ok:
            ratio = ("; sddsd polling is %.2fx that" % (self.l_poll.p50 / self.l_yield.p50)
                     if self.l_poll.ok and self.l_yield.p50 > 0 else "")
            w("The floor of a hop between two busy processes that share a CPU is the yield-spin baseline on one "
              "CPU: one system call and one context switch (%.3f us median here%s). %s\n"
              % (self.l_yield.p50, ratio, "With a CPU for each busy process no hop needs a switch." if cpus > 2
                 else "The 0.6 us goal needs a CPU for each of the three busy processes (sddsd and two clients); "
                      "this machine has two."))
        if self.dds_payload:
            w("ddsperf payload: %s; Cyclone DDS over UDPv6 on ::1 (config %s/logs/cyclonedds-lo6.xml, as "
              "tools/sdds-bench/cyclonedds-lo6.xml).\n" % (self.dds_payload, self.dir))
        w(self.plot_ref(0))
        w("\nThe profiles are cumulative histograms counted from the right (as the PCIe seed paper draws them): "
          "for each latency x, the number of samples at or above x, log-scale on both axes.\n")
        w("\n## Network latency (two namespaces, two daemons, UDPv6 over a veth pair)\n\n")
        if not self.ok["net"]:
            w("sdds-bench net: not run: %s\n\n" % md_cell(self.pwhy["net"]))
        w(lat_table([self.n_blk, self.n_poll, self.n_mono_blk, self.n_mono_poll, self.n_raw, self.n_raw_busy,
                     self.n_dds]))
        w(self.plot_ref(1))
        w("\n## Throughput (M samples/s at the reader)\n\n| path | M samples/s | note |\n| --- | ---: | --- |\n")
        for t in self.tputs():
            w("| %s | not run: %s | |\n" % (t.label, md_cell(t.why)) if not t.ok else
              "| %s | %.3f | %s |\n" % (t.label, t.rate / 1e6, md_cell(t.note)))
        w("\n## Scaling with the number of connected clients\n\n")
        if not self.ok["scale"]:
            w("not run: %s\n" % md_cell(self.pwhy["scale"]))
        else:
            w("| clients | p50 us | p99 us | daemon RSS KiB | daemon PSS KiB | RSS per client KiB |\n")
            w("| ---: | ---: | ---: | ---: | ---: | ---: |\n")
            for p in self.sc:  # a point that failed has no figures: "-", never a NaN
                w("| %.0f | %s | %s | %s | %s | %s |\n" % (p["clients"], us(p["p50"]), us(p["p99"]),
                                                         fixed(p["rss"], 0), fixed(p["pss"], 0), fixed(p["rss_pc"], 1)))
                if p["why"]:
                    w("| | point failed: %s | | | | |\n" % md_cell(p["why"]))
            if self.pwhy["scale"]:
                w("\nscale reported a failure: %s\n" % md_cell(self.pwhy["scale"]))
        w(self.plot_ref(3))
        w("\n## Per-phase latency, isolated vs monolithic (sdds-trace, USDT probes)\n\n")
        w("The layout of the seed paper's Tables 1 and 2: per phase MIN, AVG, MAX, STD in us.\n")
        w("\nnot run: %s\n" % md_cell(self.pwhy["trace"]) if not self.ok["trace"] else self.phase_tables())
        w(self.plot_ref(2))
        w("\n## Instructions per sample through the daemon (callgrind)\n\n")
        cg = self.cg
        if cg["ok"]:
            w("**%.0f instructions per sample** in sddsd (all its threads), %d-byte reliable samples, blocking "
              "mode. How: sddsd runs under `valgrind --tool=callgrind` twice with the same setup (start, two "
              "clients, one topic, writer -> reader, stop): once for %.0f samples (%.0f Ir) and once for %.0f "
              "more (%.0f Ir); the figure is the difference divided by %.0f. It counts instructions, not time: "
              "the same on a quiet and a busy machine.\n"
              % (cg["ir_per_sample"], o.size, cg["base_samples"], cg["ir_base"], cg["samples"], cg["ir_full"],
                 cg["samples"]))
            if cg["clients_ok"]:
                w("\nThe clients, counted the same way in two more runs with sddsd running natively: **%.0f "
                  "instructions per sample in the writer process, %.0f in the reader process** "
                  "(`sdds_writer_write`, `sdds_reader_take`; each process over its write or take loop, the "
                  "benchmark's own loop included).\n" % (cg["writer"], cg["reader"]))
            else:
                w("\nThe clients: not counted: %s\n" % md_cell(cg["clients_why"]))
        else:
            w("not run: %s\n" % md_cell(cg["why"]))
        w("\n## How this report was made\n\nEach part ran as a child process with a time cap; its output is in "
          "`logs/` (JSON on stdout, progress on stderr) and its per-iteration values in `raw/`.\n\n"
          "| step | command | result | seconds |\n| --- | --- | --- | ---: |\n")
        for s in self.steps:
            w("| %s | `%s` | %s | %.1f |\n" % (s["name"], md_cell(s["cmd"]), md_cell(s["result"]), s["secs"]))
        for p in PARTS:
            if self.skipped(p):
                w("\nSkipped on request: %s.\n" % p)
        with open(path, "w") as f:
            f.write("".join(out))

    def plot_ref(self, i):
        p = self.plots[i]
        if p["ok"]:
            return "\n![%s](%s)\n" % (p["what"], p["file"]) + ("(%s)\n" % md_cell(p["why"]) if p["why"] else "")
        return "\n%s: not drawn: %s\n" % (p["what"], md_cell(p["why"]))

    def phase_tables(self):
        out = ["\nnot traced: %s\n" % md_cell(m) for m in self.tr_missing]
        for path in self.trace_paths():
            iso, mono = self.trace_pair(path)
            if iso is None and mono is None:
                continue
            out.append("\n**%s path** (us; isolated: %s samples, %s unmatched; monolithic: %s)\n\n" % (
                path, fixed(iso["samples"] if iso else None, 0), fixed(iso["unmatched"] if iso else None, 0),
                "%s samples, %s unmatched" % (fixed(mono["samples"], 0), fixed(mono["unmatched"], 0))
                if mono else "not traced"))
            out.append("| phase | iso MIN | iso AVG | iso MAX | iso STD | mono MIN | mono AVG | mono MAX | mono STD |\n"
                       "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
            iph, mph = (iso["ph"] if iso else []), (mono["ph"] if mono else [])
            rows = [(x["name"], x, next((y for y in mph if y["name"] == x["name"]), None)) for x in iph]
            rows += [(y["name"], None, y) for y in mph if all(x["name"] != y["name"] for x in iph)]
            if (iso and iso["total"]) or (mono and mono["total"]):
                rows.append(("**total**", iso and iso["total"], mono and mono["total"]))
            for name, x, y in rows:
                cells = [us(z[k]) if z else "-" for z in (x, y) for k in ("min", "avg", "max", "std")]
                out.append("| %s | %s |\n" % (name, " | ".join(cells)))
        return "".join(out)

    def lats(self):
        return ([("local", l) for l in (self.l_spin, self.l_futex, self.l_yield, self.l_poll, self.l_block,
                                        self.l_ice_poll, self.l_ice_wait, self.l_dds, self.l_dds_wait)] +
                [("net", l) for l in (self.n_blk, self.n_poll, self.n_mono_blk, self.n_mono_poll, self.n_raw,
                                      self.n_raw_busy, self.n_dds)])

    def tputs(self):
        return [self.t_poll, self.t_block, self.t_mono_spin, self.t_mono_sleep, self.t_dds, self.t_net,
                self.t_net_frames, self.t_net_packed, self.t_net_packed_frames, self.t_net_mono, self.t_net_raw,
                self.t_net_raw_gso]

    def to_json(self, m):
        def lat(sec, l):
            d = {"section": sec, "path": l.label, "ok": l.ok}
            if l.ok:
                d.update(n=l.n, median_us=l.p50, p99_us=l.p99, p999_us=None if math.isnan(l.p999) else l.p999,
                         max_us=l.max, raw=l.raw or None, truncated=l.truncated, requested=l.requested,
                         full=fig_refusal(fig_p50(l.label, l)) is None)
            else:
                d["why"] = l.why
            return d

        return {
            "tool": "sdds-bench", "command": "report", "out": self.dir, "quick": self.o.quick,
            "size": self.o.size, "iterations": self.o.n,
            "machine": {"cpu": m["cpu"], "cpus": m["cpus"], "kernel": m["kernel"], "date": m["date"],
                        "commit": m["commit"], "loadavg_before": m["load0"][0], "loadavg_after": m["load1"][0]},
            "parts": {p: {"ok": self.ok[p], "why": "" if self.ok[p] else self.pwhy[p]} for p in PARTS},
            "latency": [lat(s, l) for s, l in self.lats()],
            "throughput": [dict(path=t.label, ok=t.ok, **({"samples_per_s": t.rate} if t.ok else {"why": t.why}))
                           for t in self.tputs()],
            "ratios": [{"name": r.name, "unit": r.unit, "value": r.v if r.ok else None, "why": "" if r.ok else r.why,
                        "goal": r.goal_text, "met": r.met()} for r in self.ratios],
            "plots": [{"file": p["file"], "ok": p["ok"], "why": "" if p["ok"] else p["why"]} for p in self.plots],
        }


def trace_phase(ph):
    x = {"name": ph.get("phase") or "?"}
    x.update({k: (jnum(ph, k + "_us") if jnum(ph, k + "_us") is not None else NAN) for k in ("min", "avg", "max", "std")})
    return x


def us(v):
    """A latency in us with as many decimals as its size deserves; "-" when absent."""
    if v is None or math.isnan(v):
        return "-"
    return "%.3f" % v if v < 10 else "%.1f" % v if v < 1000 else "%.0f" % v


def fixed(v, d):
    return "-" if v is None or math.isnan(v) else "%.*f" % (d, v)


def md_cell(s):
    """Table cells must not hold a '|' or a newline."""
    return s.replace("|", "/").replace("\n", " ").replace("\r", " ")


def lat_table(rows):
    out = ["| path | samples | median | p99 | p99.9 | max | note |\n| --- | ---: | ---: | ---: | ---: | ---: | --- |\n"]
    for l in rows:
        if not l.ok:
            out.append("| %s | not run: %s | | | | | |\n" % (l.label, md_cell(l.why)))
            continue
        note = fig_refusal(fig_p50(l.label, l))
        note = [note.replace(l.label + " ", "", 1) + "; not used in ratios"] if note else []
        note += [md_cell(l.note)] if l.note else []
        note += ["profile plotted"] if l.raw else []
        out.append("| %s | %.0f | %s | %s | %s | %s | %s |\n" % (l.label, l.n, us(l.p50), us(l.p99), us(l.p999),
                                                                us(l.max), "; ".join(note)))
    return "".join(out)


def machine():
    m = {"cpu": "unknown", "cpus": os.sysconf("SC_NPROCESSORS_ONLN"), "commit": "unknown (not a git checkout)"}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and ":" in line:
                    m["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    u = os.uname()
    m["kernel"] = "%s %s %s" % (u.sysname, u.release, u.machine)
    m["date"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    m["load0"] = list(os.getloadavg())
    try:
        c = subprocess.run(["git", "-C", SRCDIR, "describe", "--always", "--dirty"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=30).stdout.decode().strip()
        if c:
            m["commit"] = c
    except (OSError, subprocess.TimeoutExpired):
        pass
    return m


def parse(argv):
    ap = argparse.ArgumentParser(prog="sdds-bench report", description=(
        "Runs every benchmark (local, iceoryx, Cyclone DDS ddsperf, net, scale, sdds-trace compare, callgrind) "
        "as child processes with time caps and writes DIR/report.md, DIR/report.json and PNG plots (gnuplot). "
        "A part that cannot run says why; a ratio whose figures were not both measured in full is n/a with "
        "the reason."))

    def bounded(lo, hi, what):
        def f(s):
            if not s.isdigit() or not lo <= int(s) <= hi:
                raise argparse.ArgumentTypeError("%s (%s)" % (s, what))
            return int(s)
        return f

    def skip(s):
        parts = [p for p in s.split(",") if p]
        if not parts or any(p not in PARTS for p in parts):
            raise argparse.ArgumentTypeError("--skip takes parts of: " + " ".join(PARTS))
        return set(parts)

    ap.add_argument("--bench", required=True, help="the sdds-bench binary (given by `sdds-bench report`)")
    ap.add_argument("--out", default="bench-report", help="output directory (default bench-report)")
    ap.add_argument("--quick", action="store_true", help="a short smoke run (about a minute): small N, short runs")
    ap.add_argument("-n", "--iterations", dest="n", type=bounded(1, 10000000, "1..10000000"),
                    help="latency iterations (default %d, --quick %d)" % (DEFAULT_N, QUICK_N))
    ap.add_argument("-s", "--size", type=bounded(1, 100, "1..100, the network path's limit"), default=DEFAULT_SIZE,
                    help="sample bytes (default %d)" % DEFAULT_SIZE)
    ap.add_argument("--no-peers", action="store_true", help="do not run iceoryx and ddsperf")
    ap.add_argument("--skip", type=skip, default=set(), metavar="PART[,...]", help="leave out parts: " + " ".join(PARTS))
    ap.add_argument("--ddsperf", default="ddsperf", help="Cyclone DDS ddsperf (default: ddsperf in PATH)")
    ap.add_argument("--sdds-trace", dest="trace", help="sdds-trace (default: ../sdds-trace/sdds-trace from sdds-bench)")
    ap.add_argument("--gnuplot", default="gnuplot", help="gnuplot (default: gnuplot in PATH)")
    ap.add_argument("--valgrind", default="valgrind", help="valgrind (default: valgrind in PATH)")
    ap.add_argument("--sddsd", help="the daemon (default: ../../daemon/sddsd from sdds-bench)")
    ap.add_argument("--json", action="store_true", help="also print the report's JSON on stdout")
    ap.add_argument("--replay", action="store_true", help="run nothing: read the JSON and per-iteration files an "
                    "earlier run left in --out (logs/, raw/; logs/STEP.rc holds an exit code other than 0)")
    o = ap.parse_args(argv)
    if o.n is None:
        o.n = QUICK_N if o.quick else DEFAULT_N
    return o


def main(argv):
    o = parse(argv)
    shown = []  # the line as typed, without --bench (sdds-bench report adds it)
    it = iter(argv)
    for a in it:
        if a == "--bench":
            next(it, None)
        elif not a.startswith("--bench="):
            shown.append(a)
    try:
        os.makedirs(o.out, exist_ok=True)
        o.out = os.path.realpath(o.out)
        for sub in ("logs", "raw"):
            os.makedirs(os.path.join(o.out, sub), exist_ok=True)
    except OSError as e:
        print("sdds-bench report: cannot make %s: %s" % (o.out, e.strerror), file=sys.stderr)
        return 1
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    r = Report(o, shown)
    m = machine()
    progress("writing to " + r.dir)
    for part in (r.local, r.iceoryx, r.ddsperf, r.net, r.scale, r.trace, r.callgrind):
        part()
    m["load1"] = list(os.getloadavg())
    progress("plots")
    r.draw()
    r.compute_ratios()
    js = r.to_json(m)
    try:
        r.write_md(os.path.join(r.dir, "report.md"), m)
        with open(os.path.join(r.dir, "report.json"), "w") as f:
            json.dump(js, f, indent=1)
            f.write("\n")
    except OSError as e:
        print("sdds-bench report: writing: %s" % e, file=sys.stderr)
        return 1
    if o.json:
        json.dump(js, sys.stdout, indent=1)
        print()
    progress("wrote %s/report.md" % r.dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
