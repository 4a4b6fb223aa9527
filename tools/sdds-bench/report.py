#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report.py - `sdds-bench report`: every benchmark in one run, one Markdown report with tables, ratios and PNG
plots (Python 3 standard library; gnuplot when installed). `--show PART` runs nothing: it prints one part's tables
and ratios from the JSON of `sdds-bench PART --json` on stdin.

The script is mostly data: STEPS says how each part runs, ROWS lists every figure of the tables, RATIOS every
ratio with its goal. Each part runs as a child in its own process group with a time cap; its --json goes to
DIR/logs, its per-iteration values to DIR/raw. The output is DIR/report.md, DIR/report.json and PNG plots
(scripts and data in DIR/plots). --replay runs nothing and reads what an earlier run left in DIR.

The refusal rule: a ratio is printed only when both of its figures were measured in full in this run. A figure
that failed, hit its time cap, or measured fewer round trips than requested is not measured; the cell says why
("baseline hit its time cap after 7,776 of 100,000 round trips").
"""
import argparse, copy, glob, json, math, os, shutil, signal, subprocess, sys, time
from statistics import median

NAN = float("nan")
PARTS = ["local", "iceoryx", "ddsperf", "net", "scale", "trace", "callgrind"]
SHOW = ["local", "net", "scale", "iceoryx", "callgrind"]
DEFAULT_N, QUICK_N, DEFAULT_SIZE, DDS_DOMAIN = 100000, 2000, 2, 77
SRCDIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
WHY_MAX = 256  # BENCH_WHY_MAX: a reason is cut, never dropped
_live = set()  # pids of live process groups, stopped on SIGINT/SIGTERM

# How each part runs: (cap with --quick, cap, arguments). "{x}" is the value x of Report.run; a list value
# adds its items. net runs twice: blocking daemons, then "--poll" (step net-poll).
STEPS = {
    "local": (150, 1200, "{bench} local --json -n {n} --warmup {warm} -s {size} --raw {raw}/local {sddsd} {qt}"),
    "iceoryx": (120, 900, "{bench} iceoryx --json -n {n} -s {size} --raw {raw}/ice"),
    "net": (150, 1200, "{bench} net --json --monolithic -n {n} --warmup {warm} -s {size} --raw {raw}/{rawname} "
            "{poll} {qt} {sddsd} {dds}"),
    "scale": (120, 900, "{bench} scale --json --clients {clients}"),
    "trace": (150, 900, "{trace} compare --json -n {tn}"),
    "callgrind": (150, 900, "{bench} callgrind --json -k {k} --base {base} -s {size} --valgrind {valgrind} {sddsd}"),
}
# Per benchmark: the JSON keys of (iterations, reason of a failure, rate).
KEYS = {"local": ("iterations", "error", "samples_per_s"), "iceoryx": ("iterations", "why", None),
        "net": ("n", "why", "rate")}
# The members a table has a column for; a row's other numbers go to its note.
SHOWN = {"ok", "why", "error", "median_us", "p99_us", "p999_us", "max_us", "truncated", "capped", "requested",
         "done", "n", "iterations", "rate", "samples_per_s"}


def table_of(text):
    return [[c.strip() for c in line.split("|")] for line in text.strip().splitlines()]


# Every row: id | part | JSON path | per-iteration file in raw/ | curve in the profile (default: the label) |
# label, which also names the figure in a refusal. The id's prefix is its table: l_ local latency, n_ network
# latency, t_ throughput. A path starting with "?" is optional: absent, the row (and its ratios) are left out.
# iceoryx's paths are the modes' names; ddsperf rows are parsed from its text output.
ROWS = table_of("""
l_spin | local | baseline.spin | local-spin.txt | spin (baseline) | baseline: spin on a shared line
l_futex | local | baseline.futex | local-futex.txt | futex hop (baseline) | baseline: futex wait/wake (one hop)
l_futex_same | local | ?baseline.futex_same_cpu | | | baseline: futex, both on one CPU
l_yield | local | baseline.yield_same_cpu | local-yield-same-cpu.txt | yield, one CPU (floor) | baseline: \
yield-spin, both on one CPU (polling floor on 2 CPUs)
l_poll | local | polling.latency | local-sddsd-polling-*.txt | | sddsd polling
l_block | local | blocking.latency | local-sddsd-blocking-*.txt | | sddsd blocking
l_ice_poll | iceoryx | modes.polling | ice-iceoryx-polling.txt | iceoryx polling | iceoryx polling subscriber
l_ice_wait | iceoryx | modes.waitset | ice-iceoryx-waitset.txt | iceoryx waitset | iceoryx WaitSet
l_dds | ddsperf | | | | Cyclone DDS ddsperf, listener (loopback)
l_dds_wait | ddsperf | | | | Cyclone DDS ddsperf, waitset (loopback)
t_poll | local | polling.throughput | | | local, sddsd polling
t_block | local | blocking.throughput | | | local, sddsd blocking
t_poll_many | local | ?polling.throughput_take_many | | | local, sddsd polling, take_many reader (extra, no ratio)
t_block_many | local | ?blocking.throughput_take_many | | | local, sddsd blocking, take_many reader (extra, no ratio)
t_mono_spin | local | monolithic.spin | | | local, monolithic (polling spin budget)
t_mono_sleep | local | monolithic.sleep | | | local, monolithic (spin budget 0)
t_dds | ddsperf | | | | local, Cyclone DDS ddsperf pub/sub (loopback)
""")
# Both runs of net, as above after the runs they are in: b the blocking daemons' (part net, raw/net-*), p the
# polling daemons' (part net-poll, raw/netpoll-*, id + "_p" when in both). {m} is the daemons' mode; a label
# without it gets ", polling daemons' run" in the polling run.
for _p, _m in ((0, "blocking"), (1, "polling")):
    ROWS += [[i + "_p" * (_p and runs == "bp"), ("net", "net-poll")[_p], path, raw and ("net-", "netpoll-")[_p] + raw,
              curve, label.format(m=_m) if "{" in label else label + ", polling daemons' run" * (_p and runs == "bp")]
             for runs, i, path, raw, curve, label in table_of("""
bp | n_sddsd | latency.sddsd | net-sddsd.txt | | sddsd isolated, {m} daemons
bp | n_tap | ?tap.latency.sddsd | net-tap.txt | sddsd over tap | sddsd isolated, tap backend (own IPv6 stack), {m} daemons
bp | n_mono | monolithic.latency | *mono*.txt | | monolithic, {m}
bp | n_mixed | monolithic.latency_mixed | | | monolithic A, isolated B ({m})
bp | n_raw | latency.raw_udp6 | net-raw.txt | raw UDPv6 | raw UDPv6 ping-pong, blocking recv (baseline)
p | n_raw_busy | latency.raw_udp6_busy | net-raw-busy.txt | raw UDPv6, busy-polled | raw UDPv6 ping-pong, busy-polled \
recv (baseline)
bp | t_net | throughput.sddsd | | | net, sddsd ({m} daemons, one sample per frame)
bp | t_net_frames | throughput.sddsd_frames | | | net, sddsd frames/s (daemon B's counters; not samples)
bp | t_net_tap | ?tap.throughput.sddsd | | | net, sddsd over tap ({m} daemons, one sample per frame)
bp | t_net_tap_frames | ?tap.throughput.sddsd_frames | | | net, sddsd over tap, frames/s (daemon B's counters)
bp | t_net_packed | throughput.sddsd_packed | | | net, sddsd packed (peer_pack both ways; samples)
bp | t_net_packed_frames | throughput.sddsd_packed_frames | | | net, sddsd packed frames/s (daemon B's counters)
bp | t_net_mono | monolithic.throughput | | | net, monolithic
bp | t_net_raw | throughput.raw_udp6_sendmmsg | | | net, raw UDPv6 sendmmsg (baseline)
bp | t_net_raw_gso | throughput.raw_udp6_gso | | | net, raw UDPv6 GSO messages of 32 (the kernel's ceiling for \
sddsd's way)
""") if "bp"[_p] in runs]
ROWS.append(["n_dds", "net-dds", "", "", "", "Cyclone DDS ddsperf (veth)"])

# Every ratio: label | unit | numerator | denominator (none: the figure itself) | goal. A figure is a row id
# (":p99" for its p99 instead of its median) or one made in Report.compute_ratios. A goal starting with <= or >=
# is judged against its first number. The net ratios are made for each run (its name gets ", blocking daemons"
# or ", polling daemons"; {s} is its ids' suffix); those starting with "b " or "p " only for that run.
RATIOS = table_of("""
local one-way, sddsd polling / iceoryx polling (median) | x | l_poll | l_ice_poll | <= 1 (0.6 us = iceoryx here)
local one-way, sddsd polling median | us | l_poll | | <= 0.6 us
local one-way, sddsd polling / spin (median) | x | l_poll | l_spin |
local one-way, sddsd polling / spin (p99) | x | l_poll:p99 | l_spin:p99 |
local one-way, sddsd polling / yield-spin on one CPU (median) | x | l_poll | l_yield | 1.0x: sddsd adds nothing \
to the one switch per hop
local one-way, sddsd polling / yield-spin on one CPU (p99) | x | l_poll:p99 | l_yield:p99 |
local one-way, sddsd blocking / one futex hop (median) | x | l_block | l_futex | <= 2.1
local one-way, sddsd blocking / one futex hop (p99) | x | l_block:p99 | l_futex:p99 |
local one-way, sddsd blocking / futex hop on one CPU (median) | x | l_block | l_futex_same |
local one-way, sddsd blocking / iceoryx WaitSet (median) | x | l_block | l_ice_wait |
local one-way, sddsd blocking / ddsperf on loopback (median) | x | l_block | l_dds |
local throughput, sddsd (better daemon mode) | M/s | best | | >= 10 M samples/s
local throughput, sddsd polling | M/s | t_poll | | >= 10 M samples/s
local throughput, sddsd blocking | M/s | t_block | | >= 10 M samples/s
local throughput, isolated / monolithic (polling budget) | x | t_poll | t_mono_spin |
local throughput, isolated / monolithic (spin budget 0) | x | t_block | t_mono_sleep |
local throughput, sddsd / ddsperf pub-sub on loopback | x | best | t_dds |
net one-way, sddsd / ddsperf (median, veth) | x | n_sddsd | n_dds | <= 1
""")
for _s, _m in (("", "blocking"), ("_p", "polling")):
    RATIOS += [[name[2:] if name[1] == " " else name + ", %s daemons" % _m] + [x.format(s=_s) for x in rest]
               for name, *rest in table_of("""
net one-way, sddsd / raw UDPv6 (median, veth) | x | n_sddsd{s} | n_raw{s} | <= 1.15
net one-way, sddsd / raw UDPv6 (p99, veth) | x | n_sddsd{s}:p99 | n_raw{s}:p99 |
p net one-way, sddsd / raw UDPv6 busy-polled (median), polling daemons | x | n_sddsd_p | n_raw_busy | <= 1.15 \
(same mode)
b net isolation cost: isolated / monolithic - 1 (median), blocking daemons | % | n_sddsd | n_mono |
p net isolation cost: isolated / monolithic - 1 (median), polling daemons | % | n_sddsd_p | n_mono_p | <= 5%
b net one-way, monolithic / raw UDPv6 (median), blocking daemons | x | n_mono | n_raw |
p net one-way, monolithic / busy-polled raw UDPv6 (median), polling daemons | x | n_mono_p | n_raw_busy |
net isolation cost, send side (A->B legs, median) | % | leg_send{s} | one | paper (STM32F4): +16%
net isolation cost, receive side (B->A legs, median) | % | leg_receive{s} | one | paper (STM32F4): +44%
net throughput, sddsd frames / raw UDPv6 sendmmsg datagrams (same size) | x | t_net_frames{s} | t_net_raw{s} | >= 0.9
net throughput, sddsd frames / raw UDPv6 GSO datagrams (same size) | x | t_net_frames{s} | t_net_raw_gso{s} |
net throughput, sddsd samples / raw UDPv6 datagrams | x | t_net{s} | t_net_raw{s} |
net throughput, packed sddsd samples (peer_pack) / raw UDPv6 datagrams | x | t_net_packed{s} | t_net_raw{s} |
net one-way, tap / socket backend (median) | x | n_tap{s} | n_sddsd{s} | <= 1.0 (tap not slower)
net one-way, tap / socket backend (p99) | x | n_tap{s}:p99 | n_sddsd{s}:p99 | <= 1.0 (tap not slower)
net throughput, tap / socket backend (samples) | x | t_net_tap{s} | t_net{s} | >= 1.0 (tap not slower)
net tap, own stack instructions per received frame (ip6s_input, callgrind) | Ir | tapcg_in{s} | |
net tap, own stack instructions per sent frame (ip6s_udp_send + ip6s_flush, callgrind) | Ir | tapcg_out{s} | |
""") if name[1] != " " or name[0] == "bp"[bool(_s)]]
RATIOS += table_of("""
isolation cost, receive path (traced total, avg) | % | iso_receive | mono_receive | paper (STM32F4): +44%
isolation cost, send path (traced total, avg) | % | iso_send | mono_send | paper (STM32F4): +16%
isolation cost, local path (traced total, avg) | % | iso_local | mono_local |
sddsd instructions per sample (callgrind) | Ir | cg | |
""")
# The plots: (file, what it shows). Report.draw says how each is drawn and why one is not.
PLOTS = [("latency-local", "local latency profile"), ("latency-net", "network latency profile"),
         ("phases", "per-phase bar chart"), ("scaling", "scaling plot")]
# The scaling table: column | JSON member of a point | decimals (none: a latency).
SCALE = table_of("""
clients: | clients | 0
p50 us: | p50_us |
p99 us: | p99_us |
p99.9 us: | p999_us |
max us: | max_us |
daemon RSS KiB: | daemon_rss_kib | 0
daemon PSS KiB: | daemon_pss_kib | 0
RSS before KiB: | daemon_rss0_kib | 0
PSS before KiB: | daemon_pss0_kib | 0
RSS per client KiB: | rss_per_client_kib | 1
PSS per client KiB: | pss_per_client_kib | 1
""")


def progress(msg):
    print("sdds-bench report: " + msg, file=sys.stderr, flush=True)


def given(w):
    return w if w else "failed (no reason given)"


# ------------------------------------------------------------ figures and the refusal rule


class Fig:
    """A figure: a latency row (v: median us), a throughput row (tput; v: rate/s) or one made from others.

    n is what was measured, requested what was asked for; deps must be measured in full too; part is the part
    it came from; hidden: an optional row its JSON did not have.
    """

    def __init__(self, name, ok=False, v=0.0, why="not run", tput=False, deps=(), part=None):
        self.name = name
        self.ok, self.v, self.why, self.tput, self.deps, self.part = ok, v, why, tput, deps, part
        self.p99 = self.max = self.n = 0.0
        self.p999, self.capped, self.requested, self.raw, self.note, self.hidden = NAN, False, None, "", "", False

    def fail(self, why):
        self.ok, self.why = False, why[:WHY_MAX - 1]

    def named(self, name, attr="v"):
        f = copy.copy(self)
        f.name, f.v = name, getattr(self, attr)
        return f

    def add_note(self, s):
        self.note = "; ".join(x for x in (self.note, s) if x)


def shortfall(f):
    """How a measured latency figure fell short ("hit its time cap after ..."), or None when it is full."""
    have = "%s of %s round trips" % (count(f.n), count(f.requested)) if f.requested else ""
    if f.capped:
        return "hit its time cap" + (" after " + have if have else "")
    if f.requested is not None and f.n is not None and f.n < f.requested:
        return "fell short of its iterations: " + have
    return None


def refusal(f):
    """Why f (or one of its deps) was not measured in full, or None when it was."""
    if not f.ok:
        return "%s not measured: %s" % (f.name, f.why)
    s = shortfall(f)
    return f.name + " " + s if s else next(filter(None, map(refusal, f.deps)), None)


def ratio(name, unit, a, b=None, goal=""):
    """a / b (100 * (a / b - 1) for "%"; a itself without b), or n/a with the first figure's refusal."""
    r = {"name": name, "unit": unit, "ok": False, "v": 0.0, "why": "", "goal": goal}
    why = next(filter(None, (refusal(f) for f in (a, b) if f)), None)
    if why is None and b is not None and not b.v > 0:
        why = "%s is zero" % b.name
    if why is not None:
        r["why"] = why[:WHY_MAX - 1]
    else:
        v = a.v / b.v if b is not None else a.v
        r.update(ok=True, v={"%": 100 * (v - 1), "M/s": v * 1e-6}.get(unit, v))
    return r


def ratio_met(r):
    """Whether r meets a goal of "<= N" or ">= N" (None: no such goal, or no value)."""
    g = r["goal"]
    if g[:2] not in ("<=", ">=") or not r["ok"]:
        return None
    goal = float(g[2:].split()[0].rstrip("%"))
    return r["v"] <= goal if g[0] == "<" else r["v"] >= goal


def ratio_cell(r):
    if not r["ok"]:
        return "n/a (%s)" % md_cell(r["why"])
    return {"x": "%.2fx", "%": "%+.1f%%", "Ir": "%.0f instructions"}.get(r["unit"], "%.3f " + r["unit"]) % r["v"]


# ------------------------------------------------------------ readers


def jget(j, path):
    """A member by dotted path ("modes.1.p99_us"), or None."""
    for k in path.split("."):
        if isinstance(j, list):
            j = j[int(k)] if k.isdigit() and int(k) < len(j) else None
        else:
            j = j.get(k) if isinstance(j, dict) else None
        if j is None:
            return None
    return j


def jnum(j, path, none=None):
    """A number by dotted path, or none (NaN for a table cell that shows "-")."""
    v = jget(j, path)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else none


def read_row(r, j, path, keys, requested=None):
    """Fill r from the object at path. keys: the benchmark's (iterations, reason, rate) keys, as in KEYS.

    requested: the iterations asked for; the row's own "requested" wins, its "done" is what was measured.
    The time cap is "truncated" (or the harness's "capped"). The object's other numbers go to the note.
    """
    n_key, why_key, rate_key = keys
    x = jget(j, path)
    if not isinstance(jget(x, "ok"), bool):
        return r.fail("no '%s' in the JSON" % path)
    if not x["ok"]:
        return r.fail(given(jget(x, why_key)))
    v = {k: jnum(x, k) for k in ((rate_key,) if r.tput else ("median_us", "p99_us", "max_us", n_key))}
    bad = next((k for k in v if v[k] is None or r.tput and not v[k] > 0), None)
    if bad:
        return r.fail("no %s '%s.%s' in the JSON" % ("rate" if r.tput else "number", path, bad))
    r.ok, r.why, r.v = True, "", v.get(rate_key if r.tput else "median_us")
    r.note = "; ".join("%s %s" % (k, num(jnum(x, k))) for k in x if k not in SHOWN and jnum(x, k) is not None)
    if not r.tput:
        r.p99, r.max, r.p999 = v["p99_us"], v["max_us"], jnum(x, "p999_us", NAN)
        r.capped = bool(jget(x, "truncated")) or bool(jget(x, "capped"))
        own, done = jnum(x, "requested"), jnum(x, "done")
        r.requested, r.n = requested if own is None else own, v[n_key] if done is None else done


def ddsperf_lat(text):
    """ddsperf ping's per-second summaries: medians of p50 and p99, the largest max, the count.

    With three or more lines the first (discovery, warm-up) is dropped. None when there is none.
    """
    rows = []
    for line in text.splitlines():
        t = line[line.find(" size "):].split()
        if " size " in line and "mean" in t:
            try:
                rows.append([float(t[t.index(k) + 1].rstrip("us")) for k in ("50%", "99%", "max", "cnt")])
            except (ValueError, IndexError):
                pass
    used = rows[1:] if len(rows) >= 3 else rows
    return {"p50": median([r[0] for r in used]), "p99": median([r[1] for r in used]), "max": max(r[2] for r in used),
            "count": sum(r[3] for r in used), "seconds": len(used), "first_dropped": len(rows) >= 3} if rows else None


def ddsperf_tput(text):
    """ddsperf sub: the deltas over the intervals, leaving out the first and last with data; None if < 3."""
    pts = []
    for line in text.splitlines():
        try:
            if " delta " in line and " total " in line:
                pts.append((float(line.split("]", 1)[1].split()[0]), float(line.split(" delta ")[1].split()[0])))
        except (IndexError, ValueError):
            pass
    data = [i for i, (_, d) in enumerate(pts) if d > 0]
    if not data or data[-1] - data[0] < 2:
        return None
    lo, hi = data[0], data[-1]
    samples, secs = sum(pts[i][1] for i in range(lo + 1, hi)), pts[hi - 1][0] - pts[lo][0]
    return {"rate": samples / secs, "samples": samples, "intervals": hi - lo - 1} if secs > 0 else None


def trace_phase(ph, name=None):
    return dict({k: jnum(ph, k + "_us", NAN) for k in ("min", "avg", "max", "std")},
                name=name or ph.get("phase") or "?")


def phase_pairs(iso, mono):
    """[(phase, isolated, monolithic)]: each isolated phase beside the monolithic one of its name, then the rest."""
    iph, mph = (iso["ph"] if iso else []), (mono["ph"] if mono else [])
    return ([(x["name"], x, next((y for y in mph if y["name"] == x["name"]), None)) for x in iph] +
            [(y["name"], None, y) for y in mph if all(x["name"] != y["name"] for x in iph)])


def ccdf(raw):
    """Latency profile lines "us samples_at_or_above" of a per-iteration file (ns): every point of the last
    200 (the tail), then one per 1% fewer samples."""
    with open(raw) as f:
        v = sorted(float(x) for x in f.read().split())
    if not v:
        raise ValueError("no data")
    out, nxt = [], float(len(v))
    for i, x in enumerate(v):
        above = len(v) - i
        if (i == 0 or x != v[i - 1]) and (above <= 200 or above <= nxt or i == 0):
            out.append("%.4f %d" % (x / 1e3, above))
            nxt = above / 1.01
    return out


# ------------------------------------------------------------ Markdown and gnuplot


def md_cell(s):
    """Table cells must not hold a '|' or a newline."""
    return s.replace("|", "/").replace("\n", " ").replace("\r", " ")


def table(head, rows):
    """A Markdown table. head: column names, ":" at the end right-aligns; None is an empty cell, as in rows."""
    def line(cells):
        return "|" + "|".join(" " if c is None else " %s " % c for c in cells) + "|\n"
    return line([h and h.rstrip(":") for h in head]) + line(["---:" if h and h.endswith(":") else "---"
                                                             for h in head]) + "".join(map(line, rows))


def fixed(v, d):
    return "-" if v is None or math.isnan(v) else "%.*f" % (d, v)


def us(v):
    """A latency in us with as many decimals as its size deserves; "-" when absent."""
    return fixed(v, 3 if v is None or v < 10 else 1 if v < 1000 else 0)


def count(v):
    return "{:,}".format(int(v)) if v is not None else "?"


def num(v):
    """Any other number of a row: a count with separators, else three decimals (none when large)."""
    return count(v) if v == int(v) else "%.3f" % v if abs(v) < 1000 else "{:,.0f}".format(v)


def lat_table(rows):
    out = []
    for r in rows:
        s = r.ok and shortfall(r)
        note = [x for x in (s and s + "; not used in ratios", md_cell(r.note), r.raw and "profile plotted") if x]
        out.append([r.name, "%.0f" % r.n, us(r.v), us(r.p99), us(r.p999), us(r.max), "; ".join(note)] if r.ok else
                   [r.name, "not run: " + md_cell(r.why)] + [None] * 5)
    return table(["path", "samples:", "median:", "p99:", "p99.9:", "max:", "note"], out)


def tput_table(rows):
    return table(["path", "M samples/s:", "note"], [[t.name, "%.3f" % (t.v / 1e6), md_cell(t.note)] if t.ok else
                                                    [t.name, "not run: " + md_cell(t.why), None] for t in rows])


def ratio_table(ratios):
    return table(["ratio", "measured", "goal", None], [
        [r["name"], ratio_cell(r), r["goal"] or "-", {None: "-", True: "met", False: "NOT met"}[ratio_met(r)]]
        for r in ratios])


def gnuplot(g, d, name, size, head, panels):
    """Draws d/NAME.png. panels: [(title, [(data lines or None for the previous file, "using ...")])]; a head
    with "set multiplot" gets one plot per panel. Script and data stay in d/plots; g: (gnuplot, terminal)."""
    gp, png = "%s/plots/%s.gp" % (d, name), "%s/%s.png" % (d, name)
    body = "set terminal %s size %d,%d noenhanced\nset output '%s'\nset grid\nset key inside right top\n%s" % (
        g[1], size[0], size[1], png, head)
    for i, (title, series) in enumerate(panels):
        for k, (lines, how) in enumerate(series):
            if lines is not None:
                with open("%s/plots/%s-%d-%d.dat" % (d, name, i, k), "w") as f:
                    f.write("".join(x + "\n" for x in lines))
        body += "set title '%s'\nplot %s\n" % (title.replace("'", "''"), ", \\\n    ".join(
            ("''" if lines is None else "'%s/plots/%s-%d-%d.dat'" % (d, name, i, k)) + " " + how
            for k, (lines, how) in enumerate(series)))
    with open(gp, "w") as f:
        f.write(body + "unset multiplot\n" * ("set multiplot" in head))
    with open(gp[:-2] + "err", "w") as ef:
        try:
            rc = subprocess.run([g[0], gp], stdout=subprocess.DEVNULL, stderr=ef, timeout=60).returncode
        except subprocess.TimeoutExpired:
            raise RuntimeError("gnuplot took more than 60 s")
    if rc != 0 or not os.path.isfile(png) or os.path.getsize(png) == 0:
        raise RuntimeError("gnuplot failed on %s (exit %d): %s" % (gp, rc, last_line(gp[:-2] + "err") or "no PNG"))


def plot_profile(g, d, name, title, curves):
    """curves: [(title, raw file)]. Returns a note naming curves left out ("" when none)."""
    series, missing = [], []
    for t, raw in curves:
        try:
            series.append((ccdf(raw), "using 1:2 with fsteps lw 2 title '%s'" % t.replace("'", "''")))
        except (OSError, ValueError) as e:
            missing.append("%s: %s" % (t, e))
    if not series:
        raise RuntimeError("no per-iteration data: " + "; ".join(missing))
    gnuplot(g, d, name, (1100, 650), "set logscale xy\nset format x '%g'\nset format y '%g'\nset xlabel 'one-way "
            "latency x (us, log scale)'\nset ylabel 'samples with latency >= x (log scale)'\n", [(title, series)])
    return "left out: " + "; ".join(missing) if missing else ""


# ------------------------------------------------------------ children


def slurp(path):
    """The text of a file, or "" when it cannot be read."""
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def last_line(path):
    lines = [x.rstrip(" \r") for x in slurp(path).splitlines() if x.strip(" \r")]
    return lines[-1][:199] if lines else ""


def status_str(rc):
    return "exit %d" % rc if rc >= 0 else "killed by signal %d" % -rc


def cmdline(argv):
    return " ".join("'%s'" % a if a == "" or any(c in a for c in " \t'\"$*?;&|<>") else a for a in argv)


def spawn(argv, env, out, err):
    with open(out, "w") as o, open(err, "w") as er:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=o, stderr=er, env=dict(os.environ, **(env or {})),
                             start_new_session=True)
    _live.add(p.pid)
    return p


def wait(p, cap):
    """The exit code (negative: signal), or None when the cap passed: then SIGTERM goes to p's group (the net
    benchmark removes its namespaces on it) and SIGKILL 3 s later."""
    for sig, grace in ((0, cap), (signal.SIGTERM, 3), (signal.SIGKILL, 10)):
        try:
            sig and os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            rc = p.wait(grace)
            _live.discard(p.pid)
            return None if sig else rc
        except subprocess.TimeoutExpired:
            pass


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
    def __init__(self, o, argv=()):
        self.o, self.dir, self.steps = o, o.out, []
        self.cmdline = " ".join(["sdds-bench report", cmdline(argv)]).strip()
        self.ok, self.pwhy, self.notes = {p: False for p in PARTS}, {p: "" for p in PARTS}, {p: [] for p in PARTS}
        self.rows, self.read, self.cpus = {}, set(), os.sysconf("SC_NPROCESSORS_ONLN")
        for i, part, path, raw, curve, label in ROWS:
            r = self.rows[i] = Fig(label, tput=i[0] == "t", part=part)
            r.path, r.raw_glob, r.curve = path, raw, curve or label
        self.legs = {"leg_%s%s" % (s, p): Fig("%s-side ratio" % s, part=("net", "net-poll")[p == "_p"])
                     for s in ("send", "receive") for p in ("", "_p")}
        # net --backend tap: the own stack's instructions per frame, left out (hidden) without a tap object.
        self.tapcg = {"tapcg_%s%s" % (d, p): Fig("instructions per %s frame" % w, part=("net", "net-poll")[p == "_p"])
                      for d, w in (("in", "received"), ("out", "sent")) for p in ("", "_p")}
        self.tapj = {}
        for f in self.tapcg.values():
            f.hidden = True
        self.poll_note, self.poll_yield, self.dds_payload, self.sc, self.tr, self.tr_missing = "", False, "", [], [], []
        self.plots, self.ratios, self.cg = [], [], {"ok": False, "why": "", "clients_ok": False, "clients_why": ""}

    def fail(self, part, why):
        """The part did not run: its rows and figures say why (net's: those of both runs and ddsperf's)."""
        self.pwhy[part] = why
        self.cg["why"] = why if part == "callgrind" else self.cg["why"]
        parts = ("net", "net-poll", "net-dds") if part == "net" else (part,)
        for r in list(self.rows.values()) + list(self.legs.values()):
            if r.part in parts:
                r.fail(why)

    def read_part(self, part, j, requested, missing=lambda r: None):
        """Every row of part from j, and its per-iteration file. missing(row): the reason when its path is absent."""
        self.read.add(part)
        for r in [r for r in self.rows.values() if r.part == part]:
            path = r.path.lstrip("?")
            if jget(j, path) is None and r.path[:1] == "?":
                r.hidden = True
                continue
            why = missing(r) if jget(j, path) is None else None
            r.fail(why) if why else read_row(r, j, path, KEYS[part.split("-")[0]], requested)
            g = sorted(glob.glob(os.path.join(self.dir, "raw", r.raw_glob))) if r.raw_glob and self.dir else []
            r.raw = g[0] if r.ok and g and os.path.isfile(g[0]) and os.path.getsize(g[0]) > 0 else ""

    def run_parts(self):
        """Every part in the order of PARTS; one left out (--skip, --no-peers) fails its rows with the reason."""
        for part in PARTS:
            why = "--no-peers" if self.o.no_peers and part in ("iceoryx", "ddsperf") else \
                "--skip " + part if part in self.o.skip else None
            if why:
                self.fail(part, why)
            elif part in ("local", "iceoryx", "scale", "callgrind"):  # run, then read the JSON as --show does
                j = self.run(part)[0]
                j and getattr(self, "read_" + part)(j)
            else:
                getattr(self, "part_" + part)()

    def run(self, part, name=None, env=None, **values):
        """Runs part as STEPS says, as step name (default: part); (JSON object or None, exit code, why)."""
        o, q = self.o, self.o.quick
        v = dict(bench=o.bench, n=o.n, size=o.size, warm="100" if q else "1000", raw=self.dir + "/raw",
                 sddsd=["--sddsd", o.sddsd] if o.sddsd else [], qt=["-t", "0.3", "--max-seconds", "5"] if q else [],
                 clients="1,2,4,8" if q else "1,2,4,8,16,32,64,128,256", k="5000" if q else "50000",
                 base="500" if q else "1000", valgrind=o.valgrind, **values)
        argv = []
        for a in STEPS[part][2].split():
            x = v[a[1:-1]] if a[0] == "{" and a[1:-1].isidentifier() else a.format(**v)
            argv += x if isinstance(x, list) else [str(x)]
        j, rc, why = self.exec(name or part, argv, STEPS[part][0 if q else 1], env)
        if j is None and part != "net":
            self.fail(part, why)
        return j, rc, why

    def exec(self, name, argv, cap, env=None):
        """Runs argv as step name, stdout to logs/NAME.json; (JSON object or None, exit code or None, why).
        --replay runs nothing: logs/NAME.rc holds an exit code other than 0, "cap" a run stopped at its cap."""
        out, err = "%s/logs/%s.json" % (self.dir, name), "%s/logs/%s.err" % (self.dir, name)
        progress("%s (at most %.0f s)" % (name, cap))
        t0, j, rc, why = time.monotonic(), None, None, ""
        try:
            if not self.o.replay:
                rc = wait(spawn(argv, env, out, err), cap)
            else:
                rc = slurp(out[:-5] + ".rc").strip() or "0"
                rc = None if rc == "cap" else int(rc)
            why = "stopped after its %.0f-s cap" % cap if rc is None else ""
        except OSError as e:
            why = "cannot run %s: %s" % (argv[0], e.strerror)
        if rc is not None:
            try:
                j = json.loads(slurp(out))
            except ValueError:
                pass
            if not isinstance(j, dict):
                j, last = None, last_line(err)
                why = "%s, no JSON%s" % (status_str(rc), ": " + last if last else "")
        self.steps.append({"name": name, "cmd": cmdline(argv), "secs": time.monotonic() - t0,
                           "result": status_str(rc) if j is not None else why})
        return j, rc, why[:WHY_MAX - 1]

    # ---- the parts: read_X reads the JSON of X (the report's and --show's), part_X runs what run_parts cannot

    def read_local(self, j):
        self.ok["local"], self.cpus, n = True, int(jnum(j, "cpus") or self.cpus), jnum(j, "iterations") or self.o.n
        self.read_part("local", j, n)
        for k, mode in (("l_poll", "polling"), ("l_block", "blocking")):
            pl = jget(j, mode + ".placement.text")
            self.rows[k].add_note(pl and self.rows[k].ok and "ran " + pl)
        spin, y = jnum(j, "poll_spin_ns"), jnum(j, "poll_yield_ns", -1)
        if spin is not None:
            self.poll_yield, pl = y >= 0, jget(j, "polling.placement.text") or "unpinned"
            self.poll_note = "the daemon polls; %s, placed %s" % (
                "the clients spin and yield the CPU (sched_yield) after %.0f ns of pure spinning" % y if y >= 0 else
                "the clients spin and never yield" if spin >= 1e9 else "client spin budget %.0f ns" % spin, pl)
        pls = [p for p in jget(j, "placements") or [] if isinstance(p, dict)]
        for k, p in enumerate(pls if len(pls) > 2 else []):  # --pin: every placement of both daemon modes
            text, mode = jget(p, "placement.text") or "?", p.get("mode") or "?"
            label = "placement: %s %s%s" % (mode, text, " (best)" * (text == jget(j, mode + ".placement.text")))
            for kind, sub in (("l", "latency"), ("t", "throughput")):
                read_row(self.rows.setdefault("%s_pl%d" % (kind, k), Fig(label, tput=kind == "t", part="local")), p,
                         sub, KEYS["local"], n)
        self.notes["local"] += ["daemon note, %s %s: %s" % (p.get("mode"), jget(p, "placement.text"),
                                                             p["daemon_note"]) for p in pls if p.get("daemon_note")]

    def read_iceoryx(self, j):
        self.ok["iceoryx"] = True
        j["modes"] = {jget(m, "mode"): m for m in jget(j, "modes") or [] if isinstance(m, dict)}
        self.read_part("iceoryx", j, jnum(j, "n") or self.o.n, lambda r: given(jget(j, "why")) if jget(j, "ok") is
                       False else "iceoryx printed no '%s' mode" % r.path[6:])
        self.notes["iceoryx"] += ["iceoryx %s: %s" % (k, j[k]) for k in ("roudi_note", "leftovers_removed", "leftovers")
                                  if j.get(k)]

    def dds_lat(self, text, r, note=None):
        d = ddsperf_lat(text)
        if d is None:
            return r.fail("ddsperf printed no round-trip summary")
        r.v, r.p99, r.p999, r.max, r.n, r.ok, r.why = d["p50"], d["p99"], NAN, d["max"], d["count"], True, ""
        r.note = note or ("ddsperf's own per-second summaries: median of %d per-second p50s and p99s%s"
                          % (d["seconds"], ", first second dropped" if d["first_dropped"] else ""))

    def dds_missing(self):
        """Why ddsperf cannot run, or None."""
        o = self.o
        if o.no_peers or "ddsperf" in o.skip:
            return "--no-peers" if o.no_peers else "--skip ddsperf"
        if shutil.which(o.ddsperf) is None:
            return "ddsperf not found%s (apt-get install cyclonedds-tools)" % (" at " + o.ddsperf) * ("/" in o.ddsperf)
        return None

    def part_ddsperf(self):
        """Ping/pong (listener, waitset) and pub/sub on loopback: a server in the background, then the client."""
        o, why = self.o, self.dds_missing()
        if why:
            return self.fail("ddsperf", why)
        xml = "%s/logs/cyclonedds-lo6.xml" % self.dir
        shutil.copyfile(os.path.join(SRCDIR, "tools/sdds-bench/cyclonedds-lo6.xml"), xml)
        env, self.ok["ddsperf"] = {"CYCLONEDDS_URI": "file://" + xml}, True
        ping_s, sub_s = (3, 6) if o.quick else (12, 12)
        self.read.add("ddsperf")
        self.dds_payload = "OU topic, 4 bytes (ddsperf has nothing smaller)" if o.size <= 4 else \
            "KS topic, %d bytes with its 12-byte fixed part" % max(o.size, 12)
        size = [] if o.size <= 4 else ["size", str(max(o.size, 12))]
        base = [shutil.which(o.ddsperf), "-i", str(DDS_DOMAIN), "-TOU" if o.size <= 4 else "-TKS", "-D"]
        for k, mode, server, client, secs, sub in (
                ("l_dds", "listener", ["pong", "listener"], ["listener"], ping_s, 0),
                ("l_dds_wait", "waitset", ["pong", "waitset"], ["waitset"], ping_s, 0),
                ("t_dds", "pubsub", ["sub"], [], sub_s, 1)):
            name, r = "ddsperf-lo-" + mode, self.rows[k]
            log, server = "%s/logs/%s" % (self.dir, name), base + [str(secs + 3 - sub)] + server
            sp = None if o.replay else spawn(server, env, log + "-server.txt", log + "-server.err")
            time.sleep(0.3 * (sp is not None))
            _, rc, why = self.exec(name, base + [str(secs), ("ping", "pub")[sub]] + size + client, secs + 20, env)
            st = self.steps[-1]  # the client prints text: "no JSON" is expected
            st["cmd"] = "%s %s & %s" % (" ".join("%s=%s" % kv for kv in env.items()), cmdline(server), st["cmd"])
            st["result"], src = status_str(rc) if rc is not None else why, wait(sp, 15 * sub) if sp else 0
            text, last = slurp(log + ("-server.txt" if sub else ".json")), last_line(log + ".err")
            t = sub and ddsperf_tput(text)
            if rc != 0:
                r.fail(why if rc is None else "ddsperf %s%s" % (status_str(rc), ": " + last if last else ""))
            elif not sub:
                self.dds_lat(text, r)
            elif src != 0 or t is None:
                r.fail("the ddsperf server side did not end cleanly" if src != 0 else
                       "ddsperf sub saw data in fewer than 3 intervals")
            else:
                r.v, r.ok, r.why = t["rate"], True, ""
                r.note = "ddsperf sub's per-second deltas over %d full intervals" % t["intervals"]

    def part_net(self):
        """Blocking daemons, then (when that ran) polling; a polling run would fail for the same reason."""
        dds_why = self.dds_missing()
        for poll in (False, True):
            name, env, dds = ("net", "net-poll")[poll], None, ["--no-ddsperf"]
            if not poll and dds_why is None:  # net runs ddsperf from PATH: the one the report was given goes first
                env = {"PATH": "%s:%s" % (os.path.dirname(shutil.which(self.o.ddsperf)),
                                          os.environ.get("PATH", "/usr/bin:/bin"))}
                dds = ["--ddsperf-seconds", "2" if self.o.quick else "10"]
            j, rc, why = self.run("net", name, env, rawname=name.replace("-", ""), poll=["--poll"] * poll, dds=dds)
            if j is None:
                self.fail(name, "cannot run here: " + last_line("%s/logs/%s.err" % (self.dir, name)) if rc == 77
                          else why)
                break
            self.read_net(j, poll, not poll and dds_why is None)
        if dds_why:  # ddsperf's row says why it did not run, even when net failed too
            self.rows["n_dds"].fail(dds_why)

    def read_net(self, j, poll, dds=True):
        """One run of net: the blocking daemons' rows or (poll) the polling ones'; dds: its ddsperf row too."""
        name, s, mode = ("net-poll", "_p", "polling") if poll else ("net", "", "blocking")
        self.ok["net"], self.pwhy["net"] = True, ""
        mono = "" if jget(j, "monolithic.latency") is not None else "net printed no monolithic figures" if jget(
            j, "monolithic.available") is not False else jget(j, "monolithic.why") or "not available (no reason given)"
        self.read_part(name, j, jnum(j, "iterations") or self.o.n, lambda r: mono if r.path.startswith(
            "monolithic.") and mono else "net printed no mixed run" if r.path.endswith("_mixed") else None)
        for side in ("send", "receive"):  # net computes them from the isolated and the mixed run
            f, v = self.legs["leg_" + side + s], jnum(j, "monolithic.ratio_" + side)
            f.ok, f.v, f.why, f.deps = v is not None, v or 0.0, mono or "net printed no monolithic.ratio_%s (it " \
                "needs both legs of both runs)" % side, (self.rows["n_sddsd" + s], self.rows["n_mixed" + s])
        for k in ("t_net_frames", "t_net_packed_frames"):
            r, x = self.rows[k + s], jget(j, self.rows[k + s].path)
            r.add_note(r.ok and jnum(x, "frames") and "; ".join("%.1f %s per frame" % (
                jnum(x, u) / jnum(x, "frames"), u) for u in ("samples", "bytes") if jnum(x, u) is not None))
        for k in ("t_net_raw", "t_net_raw_gso"):
            b = jnum(j, "throughput.raw_datagram_bytes")
            self.rows[k + s].add_note(b is not None and "%d-byte datagrams (sddsd's mean frame)" % b)
        r, d = self.rows["n_dds"], jget(j, "ddsperf") or {}
        if dds and d.get("ok") is True and d.get("summary"):  # one line of ddsperf: its last full second
            self.dds_lat(d["summary"], r, "ddsperf's own summary of one second (run by sdds-bench net), %s: %s" % (
                d.get("payload") or "payload not given", d.get("command") or "command not given"))
        elif dds:
            r.fail(d.get("why") or "ddsperf failed (no reason given)")
        self.read |= {"net-dds"} if dds else set()
        self.read_tap(j, s)

    def read_tap(self, j, s):
        """net --backend tap's callgrind figures of one run (s: its ids' suffix); nothing without a tap object."""
        cg = jget(j, "tap.callgrind")
        if not isinstance(cg, dict):
            return
        self.tapj[s] = cg
        for d in ("in", "out"):
            f, v = self.tapcg["tapcg_%s%s" % (d, s)], jnum(cg, "ir_per_frame_" + d)
            f.hidden, f.ok, f.v = False, cg.get("ok") is True and v is not None, v or 0.0
            f.why = "" if f.ok else given(cg.get("why"))

    def read_scale(self, j):
        self.read.add("scale")
        self.pwhy["scale"] = given(jget(j, "why")) if jget(j, "ok") is False else ""
        for p in (jget(j, "points") or [])[:16]:
            pt = {k: jnum(p, k, NAN) for _, k, _ in SCALE}
            pt["why"] = given(jget(p, "why")) if jget(p, "ok") is False else "hit its time cap after %s of %s " \
                "round trips" % (count(jnum(p, "iterations") or 0), count(jnum(j, "n") or 0)) if jget(
                p, "truncated") else ""
            self.sc += [] if math.isnan(pt["clients"]) else [pt]
        self.ok["scale"] = bool(self.sc)
        self.pwhy["scale"] = self.pwhy["scale"] or ("" if self.sc else "scale printed no points")

    def part_trace(self):
        o = self.o  # in the build tree sdds-trace is tools/sdds-trace/sdds-trace, next to sdds-bench's directory
        b = shutil.which(o.trace) if o.trace is not None else (shutil.which(os.path.join(
            os.path.dirname(o.bench), "..", "sdds-trace", "sdds-trace")) or shutil.which("sdds-trace"))
        if b is None:
            return self.fail("trace", "sdds-trace not found at " + o.trace if o.trace is not None else
                             "sdds-trace not built (tools/sdds-trace; or give --sdds-trace PATH)")
        j, rc, why = self.run("trace", trace=b, tn=o.n if o.quick else min(o.n, 20000))
        for r in (jget(j, "runs") or [])[:16]:
            if jget(r, "mode") is not None and jget(r, "path") is not None:
                t = r.get("total")
                self.tr.append({"mode": r["mode"], "path": r["path"] + (", callback" if r.get("callback") else ""),
                                "samples": jnum(r, "samples"), "unmatched": jnum(r, "unmatched"),
                                "ph": [trace_phase(p) for p in (r.get("phases") or [])[:16] if isinstance(p, dict)],
                                "total": trace_phase(t, "total") if isinstance(t, dict) else None})
        self.tr_missing = [("%s %s: %s" % (m["mode"], m["path"], m["why"]))[:WHY_MAX - 1] for m in
                           jget(j, "missing") or [] if m.get("mode") and m.get("path") and m.get("why")]
        self.ok["trace"] = bool(self.tr)
        self.read |= {"trace"} if j else set()
        self.pwhy["trace"] = "" if self.tr else why if j is None else "sdds-trace printed no runs (%s)" % status_str(rc)

    def read_callgrind(self, j):
        self.ok["callgrind"], cg = True, self.cg
        self.read.add("callgrind")
        cg["size"], cg["take_many"] = jnum(j, "size") or self.o.size, jnum(j, "reader_take_many") or 0
        # The daemon's figures, then the clients' (counted only when the daemon's were).
        for ok, why, keys, what in (
                ("ok", "why", ("ir_per_sample", "ir_base", "ir_full", "samples", "base_samples"), "figure"),
                ("clients_ok", "clients_why", [w + x for w in ("writer_ir_", "reader_ir_")
                                               for x in ("per_sample", "base", "full")], "client figures")):
            v = {k: jnum(j, k) for k in keys}
            if jget(j, ok) is not True or None in v.values() or ok == "clients_ok" and not cg["ok"]:
                cg[why] = jget(j, why) or "no %s in the JSON" % what
            else:
                cg.update(v, **{ok: True})

    # ---- figures, ratios, plots

    def trace_pairs(self):
        """[(path, isolated run, monolithic run)] in the order sdds-trace printed the paths."""
        return [(p,) + tuple(next((r for r in self.tr if r["path"] == p and r["mode"] == m), None)
                             for m in ("isolated", "monolithic")) for p in dict.fromkeys(r["path"] for r in self.tr)]

    def compute_ratios(self):
        """RATIOS from the rows and the figures made here, each with the reason it is missing and its parts."""
        tp, tb, cg = self.rows["t_poll"], self.rows["t_block"], self.cg
        f = dict(self.legs, **self.tapcg, one=Fig("one", True, 1), cg=Fig("instructions per sample", cg["ok"], cg.get(
            "ir_per_sample", 0), cg["why"], part="callgrind"),  # the throughput goal is the better mode's
                 best=(tb if not tp.ok or (tb.ok and tb.v > tp.v) else tp).named("sddsd throughput"))
        for path in ("receive", "send", "local"):
            for mode in ("isolated", "monolithic"):
                x = f[mode[:4].rstrip("l") + "_" + path] = Fig("%s trace total" % mode, why=self.pwhy["trace"],
                                                                part="trace")
                run = next((r for r in self.tr if r["path"] == path and r["mode"] == mode), None)
                # sdds-trace prints the samples it matched, not what was asked for: a total is never "short".
                if run and run["total"] is not None and not math.isnan(run["total"]["avg"]):
                    x.ok, x.v = True, run["total"]["avg"]
                elif self.ok["trace"]:  # sdds-trace says why a run is missing: that is the reason to give
                    x.why = "the run has no total" if run else next((m for m in self.tr_missing if m.startswith(
                        "%s %s:" % (mode, path))), "sdds-trace printed no such run")
        def fig(s):
            r = None if not s or s in f else self.rows[s.split(":")[0]]
            return f.get(s) if r is None else r.named(r.name, "p99" if s.endswith(":p99") else "v")
        self.ratios = []
        for name, unit, a, b, goal in RATIOS:
            a, b = fig(a), fig(b)
            if not any(x.hidden for x in (a, b) if x):
                self.ratios.append(dict(ratio(name, unit, a, b, goal), parts={x.part for x in (a, b) if x} - {None}))

    def draw(self):
        self.plots = [{"file": f + ".png", "what": w, "ok": False, "why": ""} for f, w in PLOTS]
        for p in self.plots:  # a PNG of an earlier run in the same DIR must not pass for this run's
            if os.path.exists(os.path.join(self.dir, p["file"])):
                os.unlink(os.path.join(self.dir, p["file"]))
        g, d = shutil.which(self.o.gnuplot), self.dir  # gnuplot-nox has pngcairo; one without cairo libgd's png
        nogp = None if g else "gnuplot not found%s (apt-get install gnuplot-nox)" % (" at " + self.o.gnuplot) * (
            "/" in self.o.gnuplot)
        g = g and (g, "pngcairo" if subprocess.run([g, "-e", "set terminal pngcairo"], stdout=subprocess.DEVNULL,
                                                   stderr=subprocess.DEVNULL, timeout=20).returncode == 0 else "png")
        os.makedirs(os.path.join(d, "plots"), exist_ok=True)
        loc, net = ([(r.curve, r.raw) for i, r in self.rows.items() if i[:2] == s and r.raw] for s in ("l_", "n_"))
        panels = [(path, [(['"%s" %s %s' % (ph, fixed(a and a["avg"], 4), fixed(b and b["avg"], 4))
                            for ph, a, b in bars], "using 2:xtic(1) title 'isolated'"),
                          (None, "using 3 title 'monolithic'")])
                  for path, iso, mono in self.trace_pairs() if (bars := phase_pairs(iso, mono))]
        cols, nrows = 1 if len(panels) < 2 else 2, (len(panels) + 1) // 2
        sc = [" ".join(fixed(p[k], 4) for k in ("clients", "p50_us", "p99_us", "rss_per_client_kib")) for p in self.sc]
        jobs = [  # (what draws it, why it cannot be drawn)
            (lambda: plot_profile(g, d, "latency-local", "local one-way latency profile", loc),
             None if loc else "no local latency run wrote per-iteration values"),
            (lambda: plot_profile(g, d, "latency-net", "network one-way latency profile (veth, netns)", net),
             None if net else self.pwhy["net"] or "no network latency run wrote per-iteration values"),
            (lambda: gnuplot(g, d, "phases", (700 * cols + 100, 560 * nrows + 40), "set datafile missing '-'\nset "
                             "style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8 "
                             "border -1\nset boxwidth 0.9\nset xtics rotate by -35 left\nset yrange [0:*]\nset key "
                             "inside left top\nset ylabel 'average us per phase'\nset bmargin 12\nset multiplot "
                             "layout %d,%d title 'per-phase average, isolated (sddsd) vs monolithic'\n"
                             % (nrows, cols), panels), self.pwhy["trace"] or (None if panels else "no phases to draw")),
            (lambda: gnuplot(g, d, "scaling", (1000, 600), "set datafile missing '-'\nset logscale x 2\nset format x "
                             "'%g'\nset key opaque\nset xlabel 'connected clients'\nset ylabel 'one-way latency (us, "
                             "log scale)'\nset logscale y\nset y2label 'daemon RSS per client (KiB)'\nset ytics "
                             "nomirror\nset y2tics\nset y2range [0:*]\n", [(
                                 "scaling with the number of connected clients", [
                                     (sc, "using 1:2 with linespoints lw 2 title 'p50 latency'"),
                                     (None, "using 1:3 with linespoints lw 2 title 'p99 latency'"),
                                     (None, "using 1:4 axes x1y2 with linespoints lw 2 title 'RSS per client'")])]),
             None if self.ok["scale"] else self.pwhy["scale"]),
        ]
        for p, (draw, why) in zip(self.plots, jobs):
            why = nogp or why
            try:
                p["why"], p["ok"] = (why, False) if why is not None else (draw() or "", True)
            except (RuntimeError, OSError) as e:
                p["why"] = str(e)[:WHY_MAX - 1]

    # ---- output: report.md and --show share the sections

    def plot_ref(self, i):
        p = self.plots[i]
        if p["ok"]:
            return "\n![%s](%s)\n" % (p["what"], p["file"]) + ("(%s)\n" % md_cell(p["why"]) if p["why"] else "")
        return "\n%s: not drawn: %s\n" % (p["what"], md_cell(p["why"]))

    def not_run(self, *parts):
        return "".join("%s: not run: %s\n\n" % (what, md_cell(self.pwhy[p])) for p, what in parts if not self.ok[p])

    def shown(self, kind, parts=None):
        """The rows of one table (kind: "l_", "n_" or "t") that are not left out, optionally of some parts only."""
        return [r for i, r in self.rows.items() if i.startswith(kind) and not r.hidden and (not parts or
                                                                                            r.part in parts)]

    def local_md(self):
        """Where sddsd polled and the one-CPU floor it is held against; the local parts' notes."""
        poll, floor, out = self.rows["l_poll"], self.rows["l_yield"], []
        if self.poll_note:
            out.append("\nsddsd polling: %s. %s\n" % (self.poll_note, "One busy process per CPU at most." if
                       self.cpus > 2 else "On two CPUs the two clients share one: yielding hands it over within "
                       "microseconds, but every hop still pays a context switch." if self.poll_yield else "On two "
                       "CPUs that is three busy processes on two CPUs: two of them take turns at the scheduler tick, "
                       "so a round trip can cost milliseconds."))
        if self.poll_note and floor.ok:
            out.append("The floor of a hop between two busy processes that share a CPU is the yield-spin baseline on "
                       "one CPU: one system call and one context switch (%.3f us median here%s). %s\n" % (
                           floor.v, "; sddsd polling is %.2fx that" % (poll.v / floor.v) if poll.ok and floor.v > 0
                           else "", "With a CPU for each busy process no hop needs a switch." if self.cpus > 2 else
                           "The 0.6 us goal needs a CPU for each of the three busy processes (sddsd and two "
                           "clients); this machine has two."))
        return "".join(out + ["\n%s\n" % md_cell(x) for x in self.notes["local"] + self.notes["iceoryx"]])

    def scale_md(self):
        if not self.ok["scale"]:
            return "not run: %s\n" % md_cell(self.pwhy["scale"])
        return table([c for c, _, _ in SCALE] + ["note"], [  # a point that failed has no figures: "-", never NaN
            [fixed(p[k], int(d)) if d else us(p[k]) for _, k, d in SCALE] + [md_cell(p["why"]) or None]
            for p in self.sc]) + ("\nscale reported a failure: %s\n" % md_cell(self.pwhy["scale"])) * bool(
            self.pwhy["scale"])

    def cg_md(self):
        cg = self.cg
        if not cg["ok"]:
            return "not run: %s\n" % md_cell(cg["why"])
        return ("**%.0f instructions per sample** in sddsd (all its threads), %d-byte reliable samples, blocking mode. "
                "How: sddsd runs under `valgrind --tool=callgrind` twice with the same setup (start, two clients, one "
                "topic, writer -> reader, stop): once for %.0f samples (%.0f Ir) and once for %.0f more (%.0f Ir); the "
                "figure is the difference divided by %.0f. It counts instructions, not time.\n" % (
                    cg["ir_per_sample"], cg["size"], cg["base_samples"], cg["ir_base"], cg["samples"], cg["ir_full"],
                    cg["samples"])) + ("\nThe clients, counted the same way in two more runs with sddsd running "
                "natively: **%.0f instructions per sample in the writer process (%.0f and %.0f Ir), %.0f in the reader "
                "process (%.0f and %.0f Ir%s)**, each over its write or take loop, the benchmark's own included.\n" % (
                    *(cg[w + x] for w in ("writer_ir_", "reader_ir_") for x in ("per_sample", "base", "full")),
                    "; sdds_reader_take_many(%d)" % cg["take_many"] if cg["take_many"] > 1 else "")
                if cg["clients_ok"] else "\nThe clients: not counted: %s\n" % md_cell(cg["clients_why"]))

    def tap_md(self):
        """net --backend tap: the goal (tap not slower than socket: latency median and p99, throughput) of each
        run that has the tap figures, and how its instructions per frame were counted."""
        out = []
        for s, mode in (("", "blocking"), ("_p", "polling")):
            rs = [r for r in self.ratios if "tap / socket backend" in r["name"] and r["name"].endswith(
                ", %s daemons" % mode) and r["parts"] <= self.read]
            if not rs:
                continue
            met = [ratio_met(r) for r in rs]
            bad = ["latency " + r["name"].split("(")[1].split(")")[0] if "one-way" in r["name"] else "throughput"
                   for r, m in zip(rs, met) if m is False]
            out.append("\n**tap not slower than socket, %s daemons: %s**\n" % (mode, "met" if all(met) else (
                "NOT met (%s)" % ", ".join(bad)) if bad else "not judged (%s)" % md_cell(next(
                    r["why"] for r in rs if not r["ok"]))))
            cg = self.tapj.get(s)
            if cg and cg.get("ok") is True:
                out.append("\nOwn stack under callgrind (daemon A, tap backend, %s round trips): **%.0f instructions per "
                           "received frame** (ip6s_input, inclusive, %s Ir over %s frames in, eth_in), **%.0f per sent "
                           "frame** (ip6s_udp_send + ip6s_flush, %s + %s Ir over %s frames out, eth_out). User-space "
                           "instructions only: the read() and write() on the TAP and the kernel's bridge are not in "
                           "them.\n" % (count(jnum(cg, "rounds")), jnum(cg, "ir_per_frame_in"),
                                        count(jnum(cg, "ip6s_input_ir")), count(jnum(cg, "eth_in")),
                                        jnum(cg, "ir_per_frame_out"), count(jnum(cg, "ip6s_udp_send_ir")),
                                        count(jnum(cg, "ip6s_flush_ir")), count(jnum(cg, "eth_out"))))
            elif cg:
                out.append("\nOwn stack instructions per frame: not counted: %s\n" % md_cell(given(cg.get("why"))))
        return "".join(out)

    def show(self, part, j):
        """`--show PART`: the part's tables and every ratio whose figures it measured, as Markdown."""
        self.read_net(j, jget(j, "daemon_mode") == "polling") if part == "net" else getattr(self, "read_" + part)(j)
        # The parameters: the scalars of the object and of its objects ("throughput.seconds"); net's
        # monolithic.ratio_send and _receive are figures, shown among the ratios.
        par = [(k, v) for k, v in j.items() if k not in ("tool", "command", "bench")] + [
            (k + "." + s, v) for k, o in j.items() if isinstance(o, dict) for s, v in o.items() if "ratio" not in s]
        out = ["# sdds-bench %s\n\nParameters: %s.\n" % (part, ", ".join(
            "%s %s" % (k, v) for k, v in par if isinstance(v, (str, int, float)) and v != "") or "none")]
        lat, tput = self.shown("l_", self.read) + self.shown("n_", self.read), self.shown("t", self.read)
        out += ["\n" + lat_table(lat)] * bool(lat) + ["\n" + tput_table(tput)] * bool(tput)
        out.append("\n" + {"local": self.local_md, "scale": self.scale_md, "callgrind": self.cg_md}.get(
            part, lambda: "".join("%s\n" % md_cell(x) for x in self.notes.get(part, [])))().lstrip("\n"))
        self.compute_ratios()
        out.append(self.tap_md() if part == "net" else "")
        ratios = [r for r in self.ratios if r["parts"] <= self.read]
        sys.stdout.write("".join(out) + ("\n## Ratios\n\n" + ratio_table(ratios)) * bool(ratios))

    def write_md(self, path, m):
        o, out = self.o, []
        w = out.append
        w("# sddsd performance report\n\nGenerated by `%s` on %s. Every figure below was measured in this one run; a "
          "ratio is printed only when both of its figures were measured in full (no time cap, every requested round "
          "trip), otherwise it says why.\n\n## Machine\n\n" % (md_cell(self.cmdline), m["date"]))
        w(table([None, None], [["CPU", m["cpu"]], ["CPUs online", "%d" % m["cpus"]], ["kernel", m["kernel"]]] + [
            ["load average (1/5/15 min) %s" % k, "%.2f / %.2f / %.2f" % tuple(m[x])]
            for k, x in (("before", "load0"), ("after", "load1"))] + [
            ["date", m["date"]], ["commit", m["commit"]], ["payload", "%d bytes" % o.size],
            ["latency iterations", "%d%s" % (o.n, " (--quick: a smoke run, not figures to quote)" * o.quick)]]))
        w("\n%s\nLatency is one-way (round trip / 2) in microseconds; throughput in million samples per second.\n" % (
            "The machine was shared with other work during the run (see the load): absolute figures are noisy, ratios "
            "of figures from the same run less so." if m["load0"][0] >= 0.5 or m["load1"][0] >= 1.5 else
            "The machine was quiet before the run."))
        w("\n## Headline ratios\n\n" + ratio_table(self.ratios))
        w("\n## Local latency (one machine, shared memory)\n\n" + self.not_run(
            ("local", "sdds-bench local"), ("iceoryx", "iceoryx"), ("ddsperf", "Cyclone DDS ddsperf")))
        w(lat_table(self.shown("l_")) + self.local_md())
        w("ddsperf payload: %s; Cyclone DDS over UDPv6 on ::1 (config %s/logs/cyclonedds-lo6.xml, as tools/sdds-bench/"
          "cyclonedds-lo6.xml).\n" % (self.dds_payload, self.dir) if self.dds_payload else "")
        w(self.plot_ref(0) + "\nThe profiles are cumulative histograms counted from the right (as the PCIe seed paper "
          "draws them): for each latency x, the number of samples at or above x, log-scale on both axes.\n")
        w("\n## Network latency (two namespaces, two daemons, UDPv6 over a veth pair)\n\n" +
          self.not_run(("net", "sdds-bench net")) + lat_table(self.shown("n_")) + self.tap_md() + self.plot_ref(1))
        w("\n## Throughput (M samples/s at the reader)\n\n" + tput_table(self.shown("t")))
        w("\n## Scaling with the number of connected clients\n\n" + self.scale_md())
        w(self.plot_ref(3) + "\n## Per-phase latency, isolated vs monolithic (sdds-trace, USDT probes)\n\nThe layout "
          "of the seed paper's Tables 1 and 2: per phase MIN, AVG, MAX, STD in us.\n")
        w("".join("\nnot traced: %s\n" % md_cell(x) for x in self.tr_missing) if self.ok["trace"] else
          "\nnot run: %s\n" % md_cell(self.pwhy["trace"]))
        desc = lambda r: "%s samples, %s unmatched" % (fixed(r["samples"], 0), fixed(r["unmatched"], 0)) if r else \
            "not traced"
        for tpath, iso, mono in self.trace_pairs():
            tot = (iso and iso["total"], mono and mono["total"])
            pairs = phase_pairs(iso, mono) + [("**total**",) + tot] * any(tot)
            w("\n**%s path** (us; isolated: %s; monolithic: %s)\n\n" % (tpath, desc(iso), desc(mono)) + table(
                ["phase"] + ["%s %s:" % (m, k) for m in ("iso", "mono") for k in ("MIN", "AVG", "MAX", "STD")],
                [[name] + [us(z[k]) if z else "-" for z in (x, y) for k in ("min", "avg", "max", "std")]
                 for name, x, y in pairs]))
        w(self.plot_ref(2) + "\n## Instructions per sample through the daemon (callgrind)\n\n" + self.cg_md())
        w("\n## How this report was made\n\nEach part ran as a child process with a time cap; its output is in "
          "`logs/` (JSON on stdout, progress on stderr) and its per-iteration values in `raw/`.\n\n")
        w(table(["step", "command", "result", "seconds:"], [
            [s["name"], "`%s`" % md_cell(s["cmd"]), md_cell(s["result"]), "%.1f" % s["secs"]] for s in self.steps]))
        w("".join("\nSkipped on request: %s.\n" % p for p in PARTS if p in self.o.skip))
        with open(path, "w") as f:
            f.write("".join(out))

    def to_json(self, m):
        def lat(sec, r):
            return dict(section=sec, path=r.name, ok=r.ok, **(dict(
                n=r.n, median_us=r.v, p99_us=r.p99, p999_us=None if math.isnan(r.p999) else r.p999, max_us=r.max,
                raw=r.raw or None, truncated=r.capped, requested=r.requested, full=refusal(r) is None)
                if r.ok else {"why": r.why}))
        return {
            "tool": "sdds-bench", "command": "report", "out": self.dir, "quick": self.o.quick, "size": self.o.size,
            "iterations": self.o.n, "machine": {"cpu": m["cpu"], "cpus": m["cpus"], "kernel": m["kernel"], "date":
                                                m["date"], "commit": m["commit"], "loadavg_before": m["load0"][0],
                                                "loadavg_after": m["load1"][0]},
            "parts": {p: {"ok": self.ok[p], "why": "" if self.ok[p] else self.pwhy[p]} for p in PARTS},
            "latency": [lat("local", r) for r in self.shown("l_")] + [lat("net", r) for r in self.shown("n_")],
            "throughput": [dict(path=t.name, ok=t.ok, **({"samples_per_s": t.v} if t.ok else {"why": t.why}))
                           for t in self.shown("t")],
            "ratios": [{"name": r["name"], "unit": r["unit"], "value": r["v"] if r["ok"] else None,
                        "why": "" if r["ok"] else r["why"], "goal": r["goal"], "met": ratio_met(r)}
                       for r in self.ratios],
            "plots": [{"file": p["file"], "ok": p["ok"], "why": "" if p["ok"] else p["why"]} for p in self.plots],
        }


def machine():
    try:
        commit = subprocess.run(["git", "-C", SRCDIR, "describe", "--always", "--dirty"], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, timeout=30).stdout.decode().strip()
    except (OSError, subprocess.TimeoutExpired):
        commit = ""
    return {"cpus": os.sysconf("SC_NPROCESSORS_ONLN"), "load0": list(os.getloadavg()),
            "kernel": " ".join(os.uname()[i] for i in (0, 2, 4)),
            "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            "cpu": next((x.split(":", 1)[1].strip() for x in slurp("/proc/cpuinfo").splitlines()
                         if x.startswith("model name") and ":" in x), "unknown"),
            "commit": commit or "unknown (not a git checkout)"}


def parse(argv):
    ap = argparse.ArgumentParser(prog="sdds-bench report", description=(
        "Runs every benchmark as a child process with a time cap and writes DIR/report.md, DIR/report.json and "
        "PNG plots. A ratio whose figures were not both measured in full is n/a with the reason."))

    add = ap.add_argument
    add("--bench", help="the sdds-bench binary (given by `sdds-bench report`)")
    add("--show", choices=SHOW, help="run nothing: print the tables and ratios of `sdds-bench PART --json` on stdin")
    add("--out", default="bench-report", help="output directory (default bench-report)")
    add("--quick", action="store_true", help="a short smoke run (about a minute): small N, short runs")
    add("-n", "--iterations", dest="n", type=int,
        help="latency iterations, 1..10000000 (default %d, --quick %d)" % (DEFAULT_N, QUICK_N))
    add("-s", "--size", type=int, default=DEFAULT_SIZE,
        help="sample bytes, 1..100: the network path's limit (default %d)" % DEFAULT_SIZE)
    add("--no-peers", action="store_true", help="do not run iceoryx and ddsperf")
    add("--skip", type=lambda s: set(s.split(",")), default=set(), metavar="PART[,...]",
        help="leave out parts: " + " ".join(PARTS))
    add("--ddsperf", default="ddsperf", help="Cyclone DDS ddsperf (default: ddsperf in PATH)")
    add("--sdds-trace", dest="trace", help="sdds-trace (default: ../sdds-trace/sdds-trace from sdds-bench)")
    add("--gnuplot", default="gnuplot", help="gnuplot (default: gnuplot in PATH)")
    add("--valgrind", default="valgrind", help="valgrind (default: valgrind in PATH)")
    add("--sddsd", help="the daemon (default: ../../daemon/sddsd from sdds-bench)")
    add("--json", action="store_true", help="also print the report's JSON on stdout")
    add("--replay", action="store_true", help="run nothing: read the JSON and per-iteration files an earlier run "
        "left in --out (logs/, raw/; logs/STEP.rc holds an exit code other than 0)")
    o = ap.parse_args(argv)
    for bad, why in ((not o.show and not o.bench, "the following arguments are required: --bench (or --show PART)"),
                     (o.skip - set(PARTS), "--skip takes parts of: " + " ".join(PARTS)),
                     (o.n is not None and not 1 <= o.n <= 10000000, "-n takes 1..10000000"),
                     (not 1 <= o.size <= 100, "-s takes 1..100")):
        if bad:
            ap.error(why)
    o.n = o.n or (QUICK_N if o.quick else DEFAULT_N)
    return o


def main(argv):
    o = parse(argv)
    if o.show:
        try:
            j = json.load(sys.stdin)
        except (OSError, ValueError) as e:
            j = str(e)
        if not isinstance(j, dict):
            print("sdds-bench %s: no JSON object on stdin (%s)" % (o.show, j), file=sys.stderr)
            return 1
        o.out = None
        return Report(o).show(o.show, j) or 0
    it = iter(argv)  # shown: the line as typed, without --bench (sdds-bench report adds it)
    shown = [a for a in it if not (a == "--bench" and next(it, None) or a.startswith("--bench"))]
    try:
        o.out = os.path.realpath(o.out)
        for sub in ("logs", "raw"):
            os.makedirs(os.path.join(o.out, sub), exist_ok=True)
    except OSError as e:
        print("sdds-bench report: cannot make %s: %s" % (o.out, e.strerror), file=sys.stderr)
        return 1
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    r, m = Report(o, shown), machine()
    progress("writing to " + r.dir)
    r.run_parts()
    m["load1"] = list(os.getloadavg())
    progress("plots")
    r.draw()
    r.compute_ratios()
    js = json.dumps(r.to_json(m), indent=1) + "\n"
    try:
        r.write_md(os.path.join(r.dir, "report.md"), m)
        with open(os.path.join(r.dir, "report.json"), "w") as f:
            f.write(js)
    except OSError as e:
        print("sdds-bench report: writing: %s" % e, file=sys.stderr)
        return 1
    sys.stdout.write(js * o.json)
    progress("wrote %s/report.md" % r.dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
