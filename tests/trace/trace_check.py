#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sdds-trace checks (suite 'trace'); each mode is its own meson test.

  trace_check.py unprivileged SDDS_TRACE
      run as nobody without capabilities: the documented exit status (4)
      and a one-line reason.
  trace_check.py local N SDDS_TRACE LOAD SDDSD
      root: N round trips of sdds-trace-load (isolated, then --mono) under
      sdds-trace --json; every sample (2N per mode) followed through every
      phase of the local path, counts equal, nothing unmatched or lost.
  trace_check.py net N SDDS_TRACE BENCH SDDSD
      root and network namespaces: sdds-bench net ping-pong of N round trips
      traced with -n 2N; 2N samples on the send path and 2N on the receive
      path, every phase counted 2N times; the same for the monolithic
      network path (sdds-bench net --monolithic-only) where it exists.
Exit 0 pass, 1 fail, 77 skip (the reason on stderr).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

EXIT_PRIV = 4

PHASES = {
    ("isolated", "local"): ["write_enter", "req_enqueued", "daemon_dequeue", "routed",
                            "client_enqueued", "client_woken", "callback_enter", "take_return"],
    ("monolithic", "local"): ["write_enter", "routed", "client_enqueued", "client_woken",
                              "callback_enter", "take_return"],
    ("isolated", "send"): ["write_enter", "req_enqueued", "daemon_dequeue", "routed", "encoded",
                           "backend_handed", "sent"],
    ("isolated", "receive"): ["received", "decoded", "routed", "client_enqueued", "client_woken",
                              "take_return"],
    ("monolithic", "send"): ["write_enter", "routed", "encoded", "backend_handed", "sent"],
    ("monolithic", "receive"): ["received", "decoded", "routed", "client_enqueued", "client_woken",
                                "take_return"],
}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)


def skip(why):
    print("skip: " + why, file=sys.stderr)
    sys.exit(77)


def need_root():
    if os.geteuid() != 0:
        skip("sdds-trace needs root (or CAP_BPF and CAP_PERFMON)")


def run_trace(cmd, timeout, workload_may_fail=False):
    """workload_may_fail: sdds-bench net also runs raw UDP and throughput runs that
    may fail on a loaded machine (exit 1); the traced ping-pong is what counts."""
    print("+ " + " ".join(cmd), file=sys.stderr)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, text=True)
    sys.stderr.write(p.stderr[-4000:])
    if workload_may_fail and p.returncode == 1 and "did not exit with 0" in p.stderr:
        print("note: the workload failed after the traced part; checking the trace", file=sys.stderr)
    elif p.returncode != 0:
        check(False, "%s exited with %d" % (cmd[0], p.returncode))
        return None
    try:
        return json.loads(p.stdout)
    except ValueError as e:
        check(False, "the JSON does not parse: %s: %r" % (e, p.stdout[:200]))
        return None


def check_runs(doc, mode, path, expect):
    """All runs of (mode, path): samples sum to expect, each phase counted per run."""
    check(doc.get("tool") == "sdds-trace", "tool is sdds-trace")
    check(doc.get("dropped_events") == 0, "no event lost (dropped_events %s)" % doc.get("dropped_events"))
    check(doc.get("unmatched_other") == 0, "every sample fits a path (unmatched_other %s)"
          % doc.get("unmatched_other"))
    check(all(r["waited"] for r in doc["runs"]), "runs: the samples the reader waited for")
    check(all(not r["waited"] for r in doc.get("runs_no_wait", [])), "runs_no_wait: the others")
    # One main run per mode, path and callback (what sdds-bench report keys on).
    keys = [(r["mode"], r["path"], r["callback"]) for r in doc["runs"]]
    check(len(keys) == len(set(keys)), "one run per mode, path and callback in runs")
    runs = [r for r in doc["runs"] + doc.get("runs_no_wait", []) if r["mode"] == mode and r["path"] == path]
    check(len(runs) > 0, "%s %s: a run" % (mode, path))
    total = sum(r["samples"] for r in runs)
    check(total == expect, "%s %s: %d samples followed, %d expected" % (mode, path, total, expect))
    seen = set()
    for r in runs:
        check(r["unmatched"] == 0, "%s %s: %d unmatched" % (mode, path, r["unmatched"]))
        check(r["total"]["count"] == r["samples"], "%s %s: total counted per sample" % (mode, path))
        for ph in r["phases"]:
            a, b = ph["phase"].split("->")
            seen.update((a, b))
            check(ph["count"] == r["samples"], "%s %s: %s counted %d times, %d samples"
                  % (mode, path, ph["phase"], ph["count"], r["samples"]))
            for k in ("min_us", "avg_us", "max_us", "std_us"):
                check(isinstance(ph[k], (int, float)) and ph[k] >= 0, "%s %s: %s %s" % (mode, path, ph["phase"], k))
            check(ph["min_us"] <= ph["avg_us"] <= ph["max_us"], "%s %s: %s min <= avg <= max"
                  % (mode, path, ph["phase"]))
    for p in PHASES[(mode, path)]:
        check(p in seen, "%s %s: phase %s seen" % (mode, path, p))
    # Counts per boundary pair summed over the variants (waited or not, callback or not).
    print("%s %s: %d samples in %d runs" % (mode, path, total, len(runs)))


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    mode = sys.argv[1]
    if mode == "unprivileged":
        trace = sys.argv[2]
        cmd = [trace, "-n", "1"]
        tmp = None
        if os.geteuid() == 0:
            if shutil.which("setpriv") is None:
                skip("setpriv (util-linux) not installed")
            # A copy nobody can execute, wherever the build tree is.
            tmp = tempfile.mkdtemp()
            os.chmod(tmp, 0o755)
            shutil.copy(trace, tmp)
            cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
                   os.path.join(tmp, os.path.basename(trace)), "-n", "1"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30, text=True)
        if tmp:
            shutil.rmtree(tmp)
        err = p.stderr.strip()
        check(p.returncode == EXIT_PRIV, "exit status %d, expected %d" % (p.returncode, EXIT_PRIV))
        check(len(err.splitlines()) == 1, "one line on stderr: %r" % err)
        check("CAP_BPF" in err and "root" in err, "the message says what is missing: %r" % err)
        check(p.stdout == "", "nothing on stdout")
    elif mode == "local":
        n, trace, load, sddsd, load_mono = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
        need_root()
        doc = run_trace([trace, "--json", "--", load, "local", "-n", str(n), "--sddsd", sddsd], 120)
        if doc:
            check_runs(doc, "isolated", "local", 2 * n)
            check(not [r for r in doc["runs"] + doc["runs_no_wait"] if r["mode"] != "isolated"],
                  "isolated workload: isolated runs only")
        # The monolithic load is the same program linked with libsddsmono.
        doc = run_trace([trace, "--json", "--", load_mono, "local", "--mono", "-n", str(n)], 120)
        if doc:
            check_runs(doc, "monolithic", "local", 2 * n)
            check(not [r for r in doc["runs"] + doc["runs_no_wait"] if r["mode"] != "monolithic"],
                  "--mono: monolithic runs only")
    elif mode == "net":
        n, trace, bench, sddsd = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
        need_root()
        if shutil.which("ip") is None or subprocess.run(["unshare", "--net", "true"]).returncode != 0:
            skip("no network namespaces here")
        doc = run_trace([trace, "--json", "-n", str(2 * n), "--", bench, "net", "-n", str(n), "--warmup", "0",
                         "--no-ddsperf", "-t", "0.05", "--sddsd", sddsd], 240, workload_may_fail=True)
        if doc:
            check_runs(doc, "isolated", "send", 2 * n)
            check_runs(doc, "isolated", "receive", 2 * n)
        # The monolithic network path (broker and network layer in the application), where built.
        helptext = subprocess.run([bench, "net", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True).stdout
        if "--monolithic-only" not in helptext:
            print("note: sdds-bench net has no --monolithic-only: monolithic network path not checked",
                  file=sys.stderr)
            return 1 if failures else 0
        doc = run_trace([trace, "--json", "-n", str(2 * n), "--", bench, "net", "--monolithic-only", "-n", str(n),
                         "--warmup", "0", "--no-ddsperf", "-t", "0.05", "--sddsd", sddsd], 240,
                        workload_may_fail=True)
        if doc:
            check_runs(doc, "monolithic", "send", 2 * n)
            check_runs(doc, "monolithic", "receive", 2 * n)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
