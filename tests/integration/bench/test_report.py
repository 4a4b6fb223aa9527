#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_report.py - `sdds-bench report` writes every section, plot and ratio,
and refuses a ratio whose baseline did not run.

usage: test_report.py MODE SDDS-BENCH
  refusal  (default suite, no root needed, ~15 s): the local part only,
           ddsperf given as /nonexistent/ddsperf. The ratio against ddsperf
           must be n/a with the reason in report.md and null with the reason
           in --json; the ratio of two figures that were measured in full
           (sddsd blocking / futex hop, and sddsd polling / the one-CPU yield
           floor, explained in the polling note) must be a number, and one
           whose figure hit its time cap must be n/a; the local latency profile
           is a PNG; a bad --skip is a usage error (2).
  quick    (root: network namespaces; otherwise exit 77): the whole
           `report --quick`. Every section heading is there; each part either
           ran or says "not run: <why>"; each plot is a PNG or says "not drawn:
           <why>"; the local and network profiles are PNGs; every ratio is a
           number or n/a with a reason, in report.md and in JSON alike; no NaN.
Figures are never compared with a bound: this is not a timed test.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FLOOR = "baseline: yield-spin, both on one CPU (polling floor on 2 CPUs)"
SECTIONS = [
    "## Machine",
    "## Headline ratios",
    "## Local latency",
    "## Network latency",
    "## Throughput",
    "## Scaling with the number of connected clients",
    "## Per-phase latency",
    "## Instructions per sample through the daemon",
    "## How this report was made",
]


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def run_report(bench, out, extra, timeout):
    cmd = [bench, "report", "--quick", "--json", "--out", out] + extra
    print("running: " + " ".join(cmd), file=sys.stderr)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    sys.stderr.write(p.stderr.decode(errors="replace")[-4000:])
    check(p.returncode == 0, "report exited %d" % p.returncode)
    try:
        js = json.loads(p.stdout.decode())
    except ValueError as e:
        fail("--json printed no JSON object: %s" % e)
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    with open(os.path.join(out, "report.json")) as f:
        check(json.load(f) == js, "report.json differs from the --json output")
    return md, js


def is_png(path):
    try:
        with open(path, "rb") as f:
            head = f.read(8)
        return os.path.getsize(path) > 100 and head == PNG_MAGIC
    except OSError:
        return False


def ratio_line(md, name):
    for line in md.splitlines():
        if line.startswith("| " + name + " |"):
            return line
    fail("no ratio row '%s' in report.md" % name)


def check_ratios(md, js):
    check(len(js["ratios"]) >= 10, "too few ratios in the JSON")
    for r in js["ratios"]:
        line = ratio_line(md, r["name"])
        v = r["value"]
        if v is None:
            check(r["why"], "ratio '%s' is null without a reason" % r["name"])
            check(r["met"] is None, "ratio '%s' without a value is judged" % r["name"])
            check("| n/a (" in line, "ratio '%s' is null in JSON but not n/a in report.md: %s"
                  % (r["name"], line))
        else:
            check(isinstance(v, (int, float)) and math.isfinite(v),
                  "ratio '%s' is not a finite number" % r["name"])
            check("n/a" not in line, "ratio '%s' has a value but report.md says n/a" % r["name"])


def check_common(md, js, out):
    for s in SECTIONS:
        check(s in md, "section '%s' missing from report.md" % s)
    for word in ("nan", "inf"):
        for tok in md.replace("|", " ").split():
            check(tok.lower() != word, "report.md prints '%s'" % word)
    for name, part in js["parts"].items():
        if not part["ok"]:
            check(part["why"], "part %s failed without a reason" % name)
            check("not run: " + part["why"][:40] in md,
                  "part %s: report.md lacks 'not run: %s'" % (name, part["why"][:40]))
    for p in js["plots"]:
        path = os.path.join(out, p["file"])
        if p["ok"]:
            check(is_png(path), "%s is not a non-empty PNG" % p["file"])
            check("](%s)" % p["file"] in md, "report.md does not show %s" % p["file"])
        else:
            check(p["why"], "plot %s missing without a reason" % p["file"])
            check("not drawn: " in md, "report.md does not say why %s is missing" % p["file"])
            check(not os.path.exists(path), "%s exists but is reported missing" % p["file"])
    for x in js["latency"]:
        if x["ok"] and not x["full"]:
            check("not used in ratios" in ratio_line(md, x["path"]),
                  "row '%s' was capped but report.md does not say so" % x["path"])
    check_ratios(md, js)


def plot_ok(js, name):
    return [p for p in js["plots"] if p["file"] == name][0]["ok"]


def mode_refusal(bench, out):
    md, js = run_report(bench, out, [
        "--skip", "iceoryx,net,scale,trace,callgrind",
        "--ddsperf", "/nonexistent/ddsperf"], 180)
    check_common(md, js, out)
    check(js["parts"]["local"]["ok"], "the local part did not run: " + js["parts"]["local"]["why"])
    check(not js["parts"]["ddsperf"]["ok"], "ddsperf ran from /nonexistent")
    check("/nonexistent/ddsperf" in js["parts"]["ddsperf"]["why"],
          "the ddsperf reason does not name the path: " + js["parts"]["ddsperf"]["why"])
    dds = [r for r in js["ratios"] if "ddsperf on loopback" in r["name"]]
    check(len(dds) == 1, "no ratio against ddsperf on loopback")
    check(dds[0]["value"] is None, "a ratio against a ddsperf that never ran has a value")
    check("/nonexistent/ddsperf" in dds[0]["why"], "the refused ratio does not say why: " + dds[0]["why"])
    line = ratio_line(md, dds[0]["name"])
    check("n/a (" in line and "/nonexistent/ddsperf" in line, "report.md row: " + line)
    # Nothing but "n/a" and the reason: no digits before the reason.
    cell = line.split("|")[2].strip()
    check(cell.startswith("n/a ("), "the ddsperf ratio cell is not n/a: " + cell)
    hop = [r for r in js["ratios"] if "futex hop" in r["name"]][0]
    lat = {x["path"]: x for x in js["latency"]}
    blk, futex = lat["sddsd blocking"], lat["baseline: futex wait/wake (one hop)"]
    if blk.get("full") and futex.get("full"):
        check(hop["value"] is not None, "blocking / futex hop missing although both ran in full")
    elif blk["ok"] and futex["ok"]:
        check(hop["value"] is None and ("time cap" in hop["why"] or "fell short" in hop["why"]),
              "blocking / futex hop has a value from a capped run: %r" % hop)
    floor = [r for r in js["ratios"] if "yield-spin on one CPU (median)" in r["name"]]
    check(len(floor) == 1, "no ratio sddsd polling / yield-spin floor")
    if lat["sddsd polling"].get("full") and lat[FLOOR].get("full"):
        check(floor[0]["value"] is not None, "polling / yield floor missing although both ran in full")
    if lat["sddsd polling"]["ok"] and lat[FLOOR]["ok"]:
        check("The floor of a hop" in md, "the polling note does not explain the floor")
    check(plot_ok(js, "latency-local.png"), "no local latency profile")
    p = subprocess.run([bench, "report", "--skip", "bogus", "--out", out],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
    check(p.returncode == 2, "a bad --skip is not a usage error (%d)" % p.returncode)


def mode_quick(bench, out):
    if os.geteuid() != 0:
        print("skip: the quick report needs root (network namespaces)", file=sys.stderr)
        sys.exit(77)
    md, js = run_report(bench, out, [], 300)
    check_common(md, js, out)
    check(js["parts"]["local"]["ok"], "the local part did not run: " + js["parts"]["local"]["why"])
    check(plot_ok(js, "latency-local.png"), "no local latency profile")
    if not js["parts"]["net"]["ok"] and "cannot run here" in js["parts"]["net"]["why"]:
        # Root but no network namespaces (a container): everything else was checked.
        print("skip: " + js["parts"]["net"]["why"], file=sys.stderr)
        sys.exit(77)
    check(js["parts"]["net"]["ok"], "the net part did not run: " + js["parts"]["net"]["why"])
    check(plot_ok(js, "latency-net.png"), "no network latency profile")
    # One sample per frame (what real nodes get) and the packed run, side by side.
    tp = {x["path"]: x for x in js["throughput"]}
    for label in ("net, sddsd frames/s (daemon B's counters; not samples)",
                  "net, sddsd packed (peer_pack both ways; samples)",
                  "net, sddsd packed frames/s (daemon B's counters)",
                  "net, raw UDPv6 GSO messages of 32 (the kernel's ceiling for sddsd's way)"):
        check(label in tp and tp[label]["ok"], "no throughput figure '%s'" % label)
        check(("| " + label + " |") in md, "report.md has no row '%s'" % label)
    # Both net runs (blocking and polling daemons) give the ratios; the blocking one's must have a value.
    for base in ("sendmmsg", "GSO"):
        fr = {r["name"].rsplit(", ", 1)[1]: r for r in js["ratios"]
              if r["name"].startswith("net throughput, sddsd frames / raw UDPv6 " + base)}
        check(sorted(fr) == ["blocking daemons", "polling daemons"], "not one frames / raw %s ratio per run" % base)
        check(fr["blocking daemons"]["value"] is not None, "no single-sample frames / raw %s ratio" % base)
    if js["parts"]["trace"]["ok"]:
        check(plot_ok(js, "phases.png"), "sdds-trace ran but there is no per-phase chart")
        check("| phase | iso MIN |" in md, "sdds-trace ran but there is no per-phase table")
    if js["parts"]["scale"]["ok"]:
        check(plot_ok(js, "scaling.png"), "scale ran but there is no scaling plot")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("refusal", "quick"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    out = tempfile.mkdtemp(prefix="sdds-report-test.")
    try:
        (mode_refusal if sys.argv[1] == "refusal" else mode_quick)(sys.argv[2], out)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
