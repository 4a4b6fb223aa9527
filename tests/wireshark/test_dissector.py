#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# test_dissector.py - the SNPS Wireshark dissector (tools/wireshark/snps.lua)
# run by tshark over captures of real sDDS nodes and over synthetic frames.
#
# OVERVIEW
# Each check runs `tshark -X lua_script:snps.lua` and compares what it prints
# with files in data/ that were written without the dissector:
#   install     (when meson passes the folder it installs snps.lua into)
#               that folder is the one `tshark -G folders` loads Lua from;
#   captures    NAME.pcap dissected to -T fields must give NAME.expected line
#               for line (written from the capture's hand decode by
#               expected_from_decoded.py; tests/snps holds lib/snps to the
#               same decode), with no Lua error, no malformed packet and no
#               expert info above "note" in the full -V output;
#   filter      -Y 'snps.topic == 0xA' keeps the frames the expected files
#               say carry topic 10;
#   heuristic   with the base port moved away the captures decode the same
#               through the heuristic dissector, and nothing without it;
#               heuristic.frames on another port are taken or refused as
#               marked;
#   synthetic   synthetic.frames (spec examples and broken frames) carry
#               exactly the expert infos and field values listed.
# Frames are made with text2pcap in a temporary directory. Exits 77 when
# tshark or text2pcap is missing, 1 on the first failing group (after
# printing every difference in it), 0 when all pass.
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

FIELDS = ["frame.number", "snps.count", "snps.submsg.hdr", "snps.domain", "snps.topic",
          "snps.data.len", "snps.data.size", "snps.sample", "snps.seqnr", "snps.seqnr.bits",
          "snps.ack", "snps.nack", "snps.addr.cast", "snps.addr.group",
          "snps.participant.key", "snps.endpoint.key", "snps.endpoint.participant",
          "snps.endpoint.topic_id"]

# Captures, and the options their nodes call for: the probes were built
# without builtin topics (their user topics reuse ids 1..7 in domain 1).
CAPTURES = {
    "basic": [],
    "discovery": [],
    "probe_wide": ["-o", "snps.builtins:FALSE"],
    "probe_qback": ["-o", "snps.builtins:FALSE"],
    "probe_qnack": ["-o", "snps.builtins:FALSE"],
    "probe_zero": ["-o", "snps.builtins:FALSE"],
    "probe_qbe": ["-o", "snps.builtins:FALSE"],
    "probe_qbig": ["-o", "snps.builtins:FALSE"],
    "probe_tiny": ["-o", "snps.builtins:FALSE"],
    "probe_bigid": ["-o", "snps.builtins:FALSE"],
}

# Every expert info of the dissector (snps.lua, table e).
EXPERTS = ["snps.short_header", "snps.bad_version", "snps.count_high", "snps.count_low",
           "snps.truncated", "snps.unknown_ext", "snps.no_topic", "snps.bad_address",
           "snps.ack_no_seqnr", "snps.bad_secure", "snps.data.nibble_mismatch",
           "snps.data.size_unknown", "snps.data.not_builtin", "snps.reserved", "snps.internal"]

lua, data = sys.argv[1], sys.argv[2]
luadir = sys.argv[3] if len(sys.argv) > 3 else None
failures = []
# How tshark gets the dissector: from the source tree, or (see main) from an
# installed copy identical to it, which then must not be loaded twice.
load = ["-X", "lua_script:" + lua]


def tshark(args):
    cmd = ["tshark", "-n"] + load + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        failures.append("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    # tshark reports Lua errors on stderr and keeps going: they count.
    for line in p.stderr.splitlines():
        if "Running as user" not in line:
            if "lua" in line.lower() or "error" in line.lower():
                failures.append("%s: stderr: %s" % (" ".join(cmd), line))
    return p.stdout


def fields(pcap, names, opts=(), display=None):
    args = ["-r", pcap] + list(opts) + ["-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,",
                                          "-E", "separator=/t"]
    if display:
        args += ["-Y", display]
    for n in names:
        args += ["-e", n]
    out = tshark(args)
    return [line.split("\t") for line in out.splitlines()]


def each_capture(fn):
    # One tshark start costs most of a second: run the captures side by side.
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
        list(pool.map(lambda item: fn(*item), CAPTURES.items()))


def group(name):
    if failures:
        print("FAIL %s" % name)
        for f in failures:
            print("  " + f)
        sys.exit(1)
    print("ok   %s" % name)


def read_expected(name):
    with open(os.path.join(data, name + ".expected")) as fh:
        return [line.rstrip("\n").split("\t") for line in fh if line.strip()]


def compare_rows(label, got, want):
    if len(got) != len(want):
        failures.append("%s: %d SNPS frames, expected %d" % (label, len(got), len(want)))
    for g, w in zip(got, want):
        for i, name in enumerate(FIELDS):
            gv = g[i] if i < len(g) else ""
            if gv != w[i]:
                failures.append("%s frame %s: %s = %r, expected %r" % (label, w[0], name, gv, w[i]))


def check_clean(label, pcap, opts):
    out = tshark(["-r", pcap, "-V", "-O", "snps"] + list(opts))
    for bad in ("Lua Error", "Malformed", "Expert Info (Error", "Expert Info (Warn", "internal error"):
        if bad in out:
            line = next(x for x in out.splitlines() if bad in x)
            failures.append("%s: %r in the -V output: %s" % (label, bad, line.strip()))
    if "sDDS SNPS" not in out:
        failures.append("%s: no SNPS in the -V output" % label)


def write_pcap(tmp, name, payloads, port):
    txt = os.path.join(tmp, name + ".txt")
    pcap = os.path.join(tmp, name + ".pcap")
    with open(txt, "w") as fh:
        for p in payloads:
            fh.write("0000 " + p + "\n")
    subprocess.run(["text2pcap", "-q", "-6", "fe80::1,fe80::2", "-u", "40000,%d" % port, txt, pcap],
                   check=True, capture_output=True)
    return pcap


def read_frames(name):
    rows = []
    with open(os.path.join(data, name)) as fh:
        for line in fh:
            line = line.strip()
            if line and not line.startswith("#"):
                rows.append([c.strip() for c in line.split("|")])
    return rows


def main():
    for tool in ("tshark", "text2pcap"):
        if shutil.which(tool) is None:
            print("SKIP: %s is not installed (scripts/install-deps.sh)" % tool)
            sys.exit(77)
    # An installed snps.lua (meson install) is loaded by every tshark run,
    # and Wireshark refuses a second "snps" protocol from -X lua_script.
    global load
    out = subprocess.run(["tshark", "-G", "plugins"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        cols = line.split("\t")
        if cols[0].strip() == "snps.lua" and cols[-1] != os.path.realpath(lua):
            with open(cols[-1], "rb") as a, open(lua, "rb") as b:
                if a.read() != b.read():
                    print("SKIP: %s, an older snps.lua, shadows the one under test: remove it" % cols[-1])
                    sys.exit(77)
            print("note: testing the installed copy %s (identical to %s)" % (cols[-1], lua))
            load = []
    tmp = tempfile.mkdtemp(prefix="snps-ws-")
    try:
        run(tmp)
    finally:
        shutil.rmtree(tmp)


def run(tmp):
    # 0. meson installs the dissector where this tshark loads Lua plugins from.
    if luadir is not None:
        out = subprocess.run(["tshark", "-G", "folders"], capture_output=True, text=True).stdout
        m = re.search(r"^Global Lua Plugins:\s*(\S+)$", out, re.M)
        if not m or os.path.normpath(m.group(1)) != os.path.normpath(luadir):
            failures.append("meson installs snps.lua into %s, tshark loads Lua plugins from %s"
                            % (luadir, m.group(1) if m else "(not listed)"))
        group("install folder is tshark's global Lua plugin folder")

    # 1. Every capture, field by field, and clean in full.
    def decode(name, opts):
        pcap = os.path.join(data, name + ".pcap")
        compare_rows(name, fields(pcap, FIELDS, opts, "snps"), read_expected(name))
        check_clean(name, pcap, opts)
    each_capture(decode)
    group("captures decode as their hand decodes, with no error")

    # 2. A topic size from the preference wins over the rest of the frame.
    pcap = os.path.join(data, "probe_wide.pcap")
    opts = ["-o", "snps.builtins:FALSE", "-o", "snps.topics:2:0xB=37"]
    compare_rows("probe_wide+topics", fields(pcap, FIELDS, opts, "snps"), read_expected("probe_wide"))
    src = fields(pcap, ["snps.data.size_from"], opts, "snps")
    if not src or any(r != ["topic table"] for r in src):
        failures.append("probe_wide+topics: size taken from %r, expected the topic table" % src)
    # The byte order of §2: the same bytes read little-endian.
    pcap = os.path.join(data, "discovery.pcap")
    col = FIELDS.index("snps.participant.key")
    want = ["0x" + r[col][4:6] + r[col][2:4] for r in read_expected("discovery") if r[col]]
    got = [r[0] for r in fields(pcap, ["snps.participant.key"], ["-o", "snps.swapped:TRUE"], "snps.participant.key")]
    if not want or got != want:
        failures.append("discovery, swapped: participant keys %s, expected %s" % (got, want))
    group("the topic sizes and byte order preferences")

    # 3. Display filter on the topic.
    def topic_filter(name, opts):
        pcap = os.path.join(data, name + ".pcap")
        want = [r[0] for r in read_expected(name) if "10" in r[FIELDS.index("snps.topic")].split(",")]
        got = [r[0] for r in fields(pcap, ["frame.number"], opts, "snps.topic == 0xA")]
        if got != want:
            failures.append("%s: snps.topic == 0xA kept frames %s, expected %s" % (name, got, want))
    each_capture(topic_filter)
    if not any(r for r in fields(os.path.join(data, "basic.pcap"), ["frame.number"], [], "snps.topic == 0xA")):
        failures.append("basic: the topic filter kept nothing")
    group("display filter snps.topic == 0xA")

    # 4. The heuristic dissector, on the captures with the ports moved away
    # (the port table then does not match 23234/23254) and on its own frames.
    def heuristic(name, opts):
        pcap = os.path.join(data, name + ".pcap")
        moved = opts + ["-o", "snps.port:40100"]
        compare_rows(name + " (heuristic)", fields(pcap, FIELDS, moved, "snps"), read_expected(name))
        off = fields(pcap, ["frame.number"], moved + ["-o", "snps.heuristic:FALSE"], "snps")
        if off:
            failures.append("%s: %d frames are SNPS with neither the ports nor the heuristic" % (name, len(off)))
    each_capture(heuristic)
    rows = read_frames("heuristic.frames")
    pcap = write_pcap(tmp, "heuristic", [r[0] for r in rows], 40001)
    taken = {r[0] for r in fields(pcap, ["frame.number"], [], "snps")}
    for i, r in enumerate(rows, 1):
        if (str(i) in taken) != (r[1] == "yes"):
            failures.append("heuristic frame %d (%s): taken=%s, expected %s" % (i, r[0], str(i) in taken, r[1]))
    group("heuristic dissector")

    # 5. Synthetic frames: expert infos and fields.
    rows = read_frames("synthetic.frames")
    pcap = write_pcap(tmp, "synthetic", [r[0] for r in rows], 23234)
    names = set()
    for r in rows:
        for kv in filter(None, r[2].split(";")):
            names.add(kv.split("=", 1)[0])
    names = sorted(names)
    got = fields(pcap, ["frame.number"] + EXPERTS + names)
    if len(got) != len(rows):
        failures.append("synthetic: %d frames dissected, expected %d" % (len(got), len(rows)))
    for i, (r, g) in enumerate(zip(rows, got), 1):
        g = g + [""] * (1 + len(EXPERTS) + len(names) - len(g))
        experts = {EXPERTS[j] for j in range(len(EXPERTS)) if g[1 + j]}
        want = set() if r[1] == "-" else set(r[1].split(","))
        if experts != want:
            failures.append("synthetic %d (%s): experts %s, expected %s" % (i, r[0], sorted(experts), sorted(want)))
        for kv in filter(None, r[2].split(";")):
            k, v = kv.split("=", 1)
            gv = g[1 + len(EXPERTS) + names.index(k)]
            if gv != v:
                failures.append("synthetic %d (%s): %s = %r, expected %r" % (i, r[0], k, gv, v))
    check_lua = tshark(["-r", pcap, "-V"])
    if "Lua Error" in check_lua or "internal error" in check_lua:
        failures.append("synthetic: a Lua error in the -V output")
    group("synthetic frames: spec examples and broken frames")


main()
