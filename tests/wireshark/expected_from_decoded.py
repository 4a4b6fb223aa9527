#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# expected_from_decoded.py - turn a capture's hand decode (NAME.decoded.txt,
# the decode tests/snps checks lib/snps against) into the tshark field lines
# test_dissector.sh expects from the SNPS dissector.
#
# OVERVIEW
# Reads NAME.decoded.txt on stdin and writes one tab-separated line per frame
# with the columns of FIELDS below, in tshark's -T fields form (several
# occurrences joined by ","). It never looks at the dissector: the expected
# files are the hand decode's view, rewritten. It was run once per capture
# to write data/NAME.expected; rerun it only when a hand decode changes:
#   expected_from_decoded.py < NAME.decoded.txt > data/NAME.expected
import ipaddress
import re
import sys

FIELDS = ["frame.number", "snps.count", "snps.submsg.hdr", "snps.domain", "snps.topic",
          "snps.data.len", "snps.data.size", "snps.sample", "snps.seqnr", "snps.seqnr.bits",
          "snps.ack", "snps.nack", "snps.addr.cast", "snps.addr.group",
          "snps.participant.key", "snps.endpoint.key", "snps.endpoint.participant",
          "snps.endpoint.topic_id"]
SEQNR_BITS = {"SEQNR": 4, "ext SEQNR_SMALL": 8, "ext SEQNR_BIG": 16, "ext SEQNR_HUGE": 32}
CAST = {"uni": 0, "multi": 1, "broad": 2}


def group(text):
    # "ff02::00:0000:0030" -> "ff02::30" (tshark's canonical form)
    return str(ipaddress.IPv6Address(text))


def emit(frame):
    if frame is not None:
        print("\t".join(",".join(frame[k]) for k in FIELDS))


def main():
    frame = None
    for line in sys.stdin:
        line = line.rstrip("\n")
        m = re.match(r"#(\d+) ", line)
        if m:
            emit(frame)
            frame = {k: [] for k in FIELDS}
            frame["frame.number"].append(m.group(1))
            continue
        m = re.match(r"version=1 submsgs=(\d+)", line)
        if m:
            frame["snps.count"].append(m.group(1))
            continue
        m = re.match(r"\s+\[([0-9a-f]{2})[^\]]*\] (.*)$", line)
        if not m:
            sys.exit("cannot read: " + line)
        frame["snps.submsg.hdr"].append("0x" + m.group(1))
        body = m.group(2)
        if (m2 := re.match(r"DOMAIN (\d+)", body)):
            frame["snps.domain"].append(m2.group(1))
        elif (m2 := re.match(r"TOPIC (\d+)", body)):
            frame["snps.topic"].append(m2.group(1))
        elif (m2 := re.match(r"(SEQNR|ext SEQNR_\w+) (\d+)", body)):
            frame["snps.seqnr"].append(m2.group(2))
            frame["snps.seqnr.bits"].append(str(SEQNR_BITS[m2.group(1)]))
        elif (m2 := re.match(r"ACKSEQ (\d+)", body)):
            frame["snps.ack"].append(m2.group(1))
        elif (m2 := re.match(r"NACKSEQ (\d+)", body)):
            frame["snps.nack"].append(m2.group(1))
        elif (m2 := re.match(r"ADDRESS len=\d+ cast=(\w+) type=IPv6 addr=(\S+)", body)):
            frame["snps.addr.cast"].append(str(CAST[m2.group(1)]))
            frame["snps.addr.group"].append(group(m2.group(2)))
        elif (m2 := re.match(r"DATA nibble=(\d+) used=(\d+): ([0-9a-f]*)(.*)$", body)):
            frame["snps.data.len"].append(m2.group(1))
            frame["snps.data.size"].append(m2.group(2))
            frame["snps.sample"].append(m2.group(3))
            rest = m2.group(4)
            if (m3 := re.search(r"participant key=0x([0-9a-f]+)", rest)):
                frame["snps.participant.key"].append("0x" + m3.group(1))
            elif (m3 := re.search(r"key=0x([0-9a-f]+) participant=0x([0-9a-f]+) topic_id=(\d+)", rest)):
                frame["snps.endpoint.key"].append("0x" + m3.group(1))
                frame["snps.endpoint.participant"].append("0x" + m3.group(2))
                frame["snps.endpoint.topic_id"].append(m3.group(3))
            elif rest.strip():
                sys.exit("cannot read sample decode: " + line)
        else:
            sys.exit("cannot read: " + line)
    emit(frame)


if __name__ == "__main__":
    main()
