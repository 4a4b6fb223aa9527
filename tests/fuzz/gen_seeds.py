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


# ---------------------------------------------------------------------- netif
# Operations of fuzz_netif.c (its OVERVIEW): a datagram, receive, clock
# steps, local writes (topic 0 temperature: 4 bytes, 1 qnack and 2 qack:
# 2 bytes), takes.

def n_dgram(frame, src=0, port=0, mcast=False):
    return bytes([0, src | port << 2 | (0x80 if mcast else 0), len(frame)]) + frame


def n_recv():
    return bytes([2])


def n_step(ms):
    return bytes([3, ms - 1])


def n_write(topic, payload):
    return bytes([4, topic]) + payload


def n_take():
    return bytes([5])


def n_expire(tenths):
    return bytes([6, tenths])


def netif_seeds():
    seeds = {}
    # Discovery as the capture's nodes announce themselves (test_discovery's frames),
    # a publication and a subscription of temperature (id A), then their expiry.
    pub_participant = bytes.fromhex('0104101168110200000000302 2d26a'.replace(' ', ''))
    sub_participant = bytes.fromhex('01041011681102000000003022d36b')
    publication = bytes.fromhex('0103103162000 0d26a000a'.replace(' ', ''))
    subscription = bytes.fromhex('01041041681102000000001062 0000d36b000a'.replace(' ', ''))
    data = bytes.fromhex('010310a142d26a0015')
    seeds['discovery'] = (n_dgram(pub_participant, 2, 1, True) + n_dgram(sub_participant, 1, 1, True) +
                          n_dgram(publication, 2, 1, True) + n_dgram(subscription, 1, 1, True) +
                          n_recv() + n_write(0, b'\x00\x01\x00\x15') + n_dgram(data, 2, 3) + n_recv() +
                          n_step(100) + n_step(100) + n_take() + n_expire(40) + n_expire(40))
    # Our NACK topic qnack (id B, 4-bit): six local samples, NACKs for 2 and 5 from the
    # static subscriber, a NACK for a number never sent, heartbeats.
    s = b''.join(n_write(1, bytes([0, k])) for k in range(6))
    for k in (2, 5, 9):
        s += n_dgram(bytes([0x01, 0x03, 0x10, 0xb1, k << 4 | 0x6]), 0, 0)
    seeds['nack_publisher'] = s + n_recv() + n_step(10) + n_step(30) + n_step(200) + n_expire(6)
    # Our ACK topic qack (id C, 4-bit): three samples, ACKs of two of them from one of the two
    # subscribers, resends for the other.
    s = b''.join(n_write(2, bytes([0, k])) for k in range(3))
    for k in (0, 1):
        s += n_dgram(bytes([0x01, 0x03, 0x10, 0xc1, k << 4 | 0x5]), 0, 0)
    seeds['ack_publisher'] = s + n_recv() + n_step(10) + n_step(10) + n_step(50) + n_take()
    # Every frame of the real nodes' captures (fuzz_snps's seeds without their two control
    # bytes), from the static subscriber, then the timers.
    d = os.path.join(HERE, 'corpus', 'fuzz_snps')
    s = b''
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), 'rb') as fp:
            frame = fp.read()[2:]
        if len(frame) < 256:
            s += n_dgram(frame, 0, 3)
    seeds['captures'] = s + n_recv() + n_take() + n_step(20) + n_step(200) + n_take()
    return seeds


# -------------------------------------------------------------------- elfdeps
# Program files for fuzz_elfdeps.c: a small dynamic ELF64 (little endian,
# x86-64) with PT_LOAD, PT_INTERP, PT_DYNAMIC (DT_NEEDED, DT_STRTAB,
# DT_STRSZ, DT_RUNPATH) and PT_GNU_STACK, its W+X and executable-stack
# variants, and "#!" scripts.

PT_LOAD, PT_DYNAMIC, PT_INTERP, PT_GNU_STACK = 1, 2, 3, 0x6474e551
PF_X, PF_W, PF_R = 1, 2, 4
DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ, DT_RUNPATH = 0, 1, 5, 10, 29


def elf_seed(load_flags=PF_R | PF_X, stack_flags=PF_R | PF_W, needed=(b'libc.so.6',),
             runpath=b'$ORIGIN/lib', interp=b'/lib64/ld-linux-x86-64.so.2'):
    n_ph = 4
    ph_off = 64
    interp_off = ph_off + 56 * n_ph
    interp_z = interp + b'\0'
    strtab = b'\0'
    idx = []
    for n in needed:
        idx.append(len(strtab))
        strtab += n + b'\0'
    rp = len(strtab)
    strtab += runpath + b'\0'
    str_off = interp_off + len(interp_z)
    dyn_off = (str_off + len(strtab) + 7) & ~7
    dyn = b''.join(struct.pack('<qQ', DT_NEEDED, i) for i in idx)
    dyn += struct.pack('<qQ', DT_STRTAB, str_off) + struct.pack('<qQ', DT_STRSZ, len(strtab))
    dyn += struct.pack('<qQ', DT_RUNPATH, rp) + struct.pack('<qQ', DT_NULL, 0)
    size = dyn_off + len(dyn)
    ident = b'\x7fELF' + bytes([2, 1, 1, 0]) + b'\0' * 8
    eh = ident + struct.pack('<HHIQQQIHHHHHH', 3, 62, 1, 0, ph_off, 0, 0, 64, 56, n_ph, 64, 0, 0)

    def ph(ptype, flags, off, filesz):
        return struct.pack('<IIQQQQQQ', ptype, flags, off, off, off, filesz, filesz, 8)
    phs = (ph(PT_LOAD, load_flags, 0, size) + ph(PT_INTERP, PF_R, interp_off, len(interp_z)) +
           ph(PT_DYNAMIC, PF_R | PF_W, dyn_off, len(dyn)) + ph(PT_GNU_STACK, stack_flags, 0, 0))
    body = eh + phs + interp_z + strtab
    return body + b'\0' * (dyn_off - len(body)) + dyn


def elfdeps_seeds():
    return {
        'dynamic': elf_seed(),
        'two_needed': elf_seed(needed=(b'libc.so.6', b'libm.so.6')),
        'needed_path': elf_seed(needed=(b'./lib/libx.so',), runpath=b''),
        'wx_load': elf_seed(load_flags=PF_R | PF_W | PF_X),
        'exec_stack': elf_seed(stack_flags=PF_R | PF_W | PF_X),
        'empty_interp': elf_seed(needed=(), interp=b''),
        # Tables at offsets no linker writes: read in place, they were misaligned loads.
        'misaligned_phoff': (lambda e: e[:32] + struct.pack('<Q', 65) + e[40:64] + b'\0' +
                             e[64:])(elf_seed()),
        'script': b'#!/bin/sh -e\necho hi\n',
        'script_relative': b'#!./interp\n',
    }


# ------------------------------------------------------------------------ ip6
# Records of fuzz_ip6.c (its OVERVIEW): frames (op 1 has the payload length
# and checksum fixed by the harness, so they are left zero here), clock
# steps, UDP sends, group changes, link changes. The stack's MAC is
# 02:00:00:00:00:01 (link-local fe80::ff:fe00:1), the peer's ...:02.

IP6_OUR_MAC = bytes.fromhex('020000000001')
IP6_PEER_MAC = bytes.fromhex('020000000002')
IP6_ROUTER_MAC = bytes.fromhex('0200000000fe')
IP6_OUR_LL = bytes.fromhex('fe80000000000000000000fffe000001')
IP6_PEER_LL = bytes.fromhex('fe80000000000000000000fffe000002')
IP6_ROUTER_LL = bytes.fromhex('fe800000000000000000000000000001')
IP6_ALL_NODES = bytes.fromhex('ff020000000000000000000000000001')
IP6_OUR_SN = bytes.fromhex('ff0200000000000000000001ff000001')
IP6_STATIC = bytes.fromhex('20010db8000000000000000000000001')


def ip6_frame(dmac, smac, src, dst, hlim, nh, payload):
    hdr = bytes([0x60, 0, 0, 0]) + struct.pack('>HBB', len(payload), nh, hlim) + src + dst
    return dmac + smac + b'\x86\xdd' + hdr + payload


def ip6_rec_frame(frame, fix=True):
    return bytes([1 if fix else 0, len(frame)]) + frame


def ip6_step(n):
    return bytes([2, n])


def ip6_send(dst, length):
    return bytes([3, dst, length])


def ip6_seeds():
    mc1 = bytes.fromhex('333300000001')
    sn = bytes.fromhex('3333ff000001')
    echo = bytes([128, 0, 0, 0, 0x12, 0x34, 0, 1]) + b'ping'
    ns = bytes([135, 0, 0, 0, 0, 0, 0, 0]) + IP6_OUR_LL + bytes([1, 1]) + IP6_PEER_MAC
    na = bytes([136, 0, 0, 0, 0x60, 0, 0, 0]) + IP6_PEER_LL + bytes([2, 1]) + IP6_PEER_MAC
    prefix = bytes([3, 4, 64, 0xc0]) + struct.pack('>III', 3600, 1800, 0) + bytes.fromhex('20010db8000100000000000000000000')
    ra = (bytes([134, 0, 0, 0, 64, 0]) + struct.pack('>HII', 1800, 0, 0) + bytes([1, 1]) + IP6_ROUTER_MAC +
          bytes([5, 1, 0, 0]) + struct.pack('>I', 1400) + prefix)
    udp = struct.pack('>HHHH', 40000, 23234, 13, 0) + b'snps!'
    udp_unbound = struct.pack('>HHHH', 40000, 9999, 13, 0) + b'snps!'
    hbh = bytes([60, 0, 5, 2, 0, 0, 1, 0]) + bytes([58, 0, 1, 4, 0, 0, 0, 0])
    dad_ns = bytes([135, 0, 0, 0, 0, 0, 0, 0]) + IP6_OUR_LL
    return {
        'echo': (ip6_step(60) + ip6_rec_frame(ip6_frame(IP6_OUR_MAC, IP6_PEER_MAC, IP6_PEER_LL, IP6_OUR_LL, 64, 58, echo)) +
                 ip6_rec_frame(ip6_frame(IP6_OUR_MAC, IP6_PEER_MAC, IP6_PEER_LL, IP6_OUR_LL, 255, 58, na)) +
                 ip6_step(50)),
        'ns_na': (ip6_step(60) + ip6_rec_frame(ip6_frame(sn, IP6_PEER_MAC, IP6_PEER_LL, IP6_OUR_SN, 255, 58, ns)) +
                  ip6_send(0, 20) + ip6_step(255) + ip6_step(255) + ip6_step(100)),
        'resolve': (ip6_step(60) + ip6_send(0, 10) + ip6_send(0, 30) + ip6_step(50) +
                    ip6_rec_frame(ip6_frame(IP6_OUR_MAC, IP6_PEER_MAC, IP6_PEER_LL, IP6_OUR_LL, 255, 58, na)) +
                    ip6_step(255) + ip6_send(0, 1) + ip6_step(255) + ip6_step(255)),
        'ra_slaac': (ip6_step(60) + ip6_rec_frame(ip6_frame(mc1, IP6_ROUTER_MAC, IP6_ROUTER_LL, IP6_ALL_NODES, 255, 58, ra)) +
                     ip6_step(60) + ip6_send(3, 40) + ip6_send(2, 40) + ip6_step(200)),
        'udp': (ip6_step(60) + ip6_rec_frame(ip6_frame(sn, IP6_PEER_MAC, IP6_PEER_LL, IP6_OUR_SN, 255, 58, ns)) +
                ip6_rec_frame(ip6_frame(IP6_OUR_MAC, IP6_PEER_MAC, IP6_PEER_LL, IP6_OUR_LL, 64, 17, udp)) +
                ip6_rec_frame(ip6_frame(IP6_OUR_MAC, IP6_PEER_MAC, IP6_PEER_LL, IP6_OUR_LL, 64, 17, udp_unbound)) +
                ip6_rec_frame(ip6_frame(IP6_OUR_MAC, IP6_PEER_MAC, IP6_PEER_LL, IP6_OUR_LL, 64, 17, udp), False)),
        'ext_headers': (ip6_step(60) +
                        ip6_rec_frame(ip6_frame(IP6_OUR_MAC, IP6_PEER_MAC, IP6_PEER_LL, IP6_OUR_LL, 64, 0, hbh + echo)) +
                        ip6_rec_frame(ip6_frame(IP6_OUR_MAC, IP6_PEER_MAC, IP6_PEER_LL, IP6_OUR_LL, 64, 44, bytes(8) + echo)) +
                        ip6_rec_frame(ip6_frame(IP6_OUR_MAC, IP6_PEER_MAC, IP6_PEER_LL, IP6_OUR_LL, 64, 253, echo))),
        'dad_conflict': (ip6_rec_frame(ip6_frame(sn, IP6_PEER_MAC, bytes(16), IP6_OUR_SN, 255, 58, dad_ns)) +
                         ip6_step(60) + ip6_send(1, 8) + ip6_step(60)),
        'groups_link': (ip6_step(60) + bytes([4, 0x22, 4, 0x22, 4, 0xa2, 4, 0xa2, 4, 0xa2]) + ip6_send(1, 4) +
                        bytes([5, 0]) + ip6_send(1, 4) + bytes([5, 1]) + ip6_step(60) + ip6_send(1, 4)),
    }


if __name__ == '__main__':
    write('fuzz_elfdeps', elfdeps_seeds())
    write('fuzz_ring_records', ring_seeds())
    write('fuzz_ctl', ctl_seeds())
    write('fuzz_netif', netif_seeds())
    write('fuzz_ip6', ip6_seeds())
