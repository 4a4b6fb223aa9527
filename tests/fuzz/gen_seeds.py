#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seed corpora of the ipc fuzz targets (tests/fuzz/corpus/).

usage: tests/fuzz/gen_seeds.py     (rewrites the seeds it owns, idempotent)

The input formats are described at the top of fuzz_ring_records.c and
fuzz_ctl.c; protobuf messages are encoded by hand (control.proto field
numbers) so that no protobuf Python package is needed.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# --------------------------------------------------------------- ring records

REC_PAD, REC_WRITE = 1, 2


def rec(length, rtype=REC_WRITE, flags=0, handle=1, seq=0, payload=None):
    if payload is None:
        payload = bytes((i * 7) & 0xFF for i in range(length))
    body = struct.pack('<IHHII', length, rtype, flags, handle, seq) + payload
    return body + b'\0' * (-len(body) % 16)


def ring_seed(cap_sel, max_record_sel, bufsel, start, delta1, delta2, first, content):
    return (struct.pack('<BHB', cap_sel, max_record_sel, bufsel) +
            struct.pack('<QQQH', start, delta1, delta2, first) + content)


def ring_seeds():
    cap = 256  # cap_sel 2; max_record = 16 + sel % 49 -> sel 48 gives 64
    seeds = {}
    recs = rec(10) + rec(48) + rec(0) + rec(32)
    seeds['valid_batch'] = ring_seed(2, 48, 1, 0, len(recs), 0, len(recs), recs)
    # Records up to the end, a PAD, and one record at the start of the ring.
    ring = bytearray(cap)
    ring[0:32] = rec(8)
    ring[64:128] = rec(48)
    ring[128:192] = rec(48)
    ring[192:224] = rec(16)
    ring[224:256] = rec(16, REC_PAD, payload=b'\0' * 16)
    seeds['pad_wrap'] = ring_seed(2, 48, 1, 64, 224, 0, cap, bytes(ring))
    # A second pass: first publish one record, then a client scribble.
    one = rec(20)
    seeds['two_pass'] = ring_seed(2, 48, 1, 1 << 40, len(one), 64, len(one), one + rec(40) + rec(4))
    # Hostile: prod backwards, beyond cap, misaligned; bad type, flags, lengths.
    seeds['prod_backwards'] = ring_seed(2, 48, 1, 4096, (1 << 64) - 32, 0, 16, rec(0))
    seeds['prod_beyond'] = ring_seed(2, 48, 1, 0, cap + 16, 0, 16, rec(0))
    seeds['prod_misaligned'] = ring_seed(2, 48, 1, 0, 24, 0, 32, rec(4))
    seeds['bad_type'] = ring_seed(2, 48, 1, 0, 16, 0, 16, rec(0, rtype=7))
    seeds['bad_flags'] = ring_seed(2, 48, 1, 0, 16, 0, 16, rec(0, flags=1))
    seeds['len_big'] = ring_seed(2, 48, 1, 0, 128, 0, 128, rec(49) + b'\0' * 48)
    seeds['len_unpublished'] = ring_seed(2, 48, 1, 0, 32, 0, 64, rec(40))
    bad_pad = bytes(192) + rec(32, REC_PAD, payload=b'\0' * 32)
    seeds['pad_wrong'] = ring_seed(2, 48, 1, 192, 64, 0, len(bad_pad), bad_pad)
    seeds['small_buf'] = ring_seed(2, 48, 2, 0, 64, 0, 64, rec(40))
    # The free-running indices wrap through 2**64 in the middle of a batch.
    big = bytearray(4096)
    big[0:128] = rec(100)
    big[4032:4096] = rec(48)
    seeds['wrap_64bit'] = ring_seed(6, 1000, 1, (1 << 64) - 64, 192, 0, 4096, bytes(big))
    return seeds

# ---------------------------------------------------------------- protobuf


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def f_varint(field, v):
    return varint(field << 3) + varint(v)


def f_sint(field, v):
    return f_varint(field, (v << 1) ^ (v >> 31) if v < 0 else v << 1)


def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return varint(field << 3 | 2) + varint(len(b)) + b


def ctl_seed(request, n_fds, max_fds, pkt):
    return bytes([(1 if request else 0) | (n_fds << 1) | (max_fds << 4)]) + pkt


def ctl_seeds():
    hello = f_varint(1, 1) + f_varint(2, 1) + f_bytes(3, 'sdds-app')
    field = lambda n, t, s: f_bytes(1, n) + f_varint(2, t) + f_varint(3, s)
    topic = (f_varint(1, 0) + f_varint(2, 7) + f_bytes(3, 'temperature') + f_varint(4, 6) +
             f_bytes(5, field('value', 4, 2)) + f_bytes(5, field('id', 6, 4)))
    qos = f_varint(1, 1) + f_varint(2, 64) + f_varint(3, 100)
    counters = f_varint(1, 10) + f_varint(2, 20) + f_varint(3, 1) + f_varint(4, 2)
    client = (f_varint(1, 1) + f_varint(2, 1234) + f_varint(3, 1000) + f_varint(4, 1000) +
              f_bytes(5, 'app') + f_varint(6, 1) + f_varint(7, 1) + f_bytes(8, counters))
    tinfo = f_varint(1, 0) + f_varint(2, 7) + f_bytes(3, 'temperature') + f_bytes(7, counters)
    einfo = f_varint(1, 3) + f_varint(2, 1) + f_varint(5, 1) + f_varint(6, 1) + f_bytes(8, counters)
    stats = (f_varint(1, 0xDEADBEEF) + f_varint(2, 5000) + f_bytes(3, client) + f_bytes(4, tinfo) +
             f_bytes(5, einfo) + f_varint(6, 3) + f_varint(7, 1))
    seeds = {
        'req_hello': ctl_seed(True, 0, 0, f_varint(1, 1) + f_bytes(2, hello)),
        'req_topic': ctl_seed(True, 0, 0, f_varint(1, 2) + f_bytes(3, topic)),
        'req_writer': ctl_seed(True, 0, 0, f_varint(1, 3) + f_bytes(4, f_varint(1, 1) + f_bytes(2, qos))),
        'req_reader': ctl_seed(True, 0, 0, f_varint(1, 4) + f_bytes(5, f_varint(1, 1) + f_bytes(2, qos))),
        'req_delete': ctl_seed(True, 0, 0, f_varint(1, 5) + f_bytes(7, f_varint(1, 3))),
        'req_stats_fds': ctl_seed(True, 2, 1, f_varint(1, 6) + f_bytes(8, b'')),
        'req_too_many_fds': ctl_seed(True, 6, 4, f_varint(1, 7) + f_bytes(8, b'')),
        'rep_hello_fds': ctl_seed(False, 2, 2, f_varint(1, 1) + f_bytes(
            4, f_varint(1, 9) + f_varint(2, 0x1122334455667788) + f_varint(3, 5 << 20) +
            f_varint(4, 4096) + f_varint(5, 1))),
        'rep_error': ctl_seed(False, 0, 0, f_varint(1, 2) + f_sint(2, -22) + f_bytes(3, 'bad topic')),
        'rep_reader': ctl_seed(False, 0, 0, f_varint(1, 4) + f_bytes(
            7, f_varint(1, 3) + f_varint(2, 1 << 16) + f_varint(3, 64) + f_varint(4, 32))),
        'rep_stats': ctl_seed(False, 0, 0, f_varint(1, 6) + f_bytes(8, stats)),
        'empty_id0': ctl_seed(False, 0, 0, f_varint(1, 0)),
        'garbage': ctl_seed(True, 1, 1, b'\xff' * 11),
        'truncated': ctl_seed(False, 0, 0, f_bytes(8, stats)[:-5]),
    }
    return seeds


def write(target, seeds):
    d = os.path.join(HERE, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(d, 'seed_' + name), 'wb') as fp:
            fp.write(data)


if __name__ == '__main__':
    write('fuzz_ring_records', ring_seeds())
    write('fuzz_ctl', ctl_seeds())
