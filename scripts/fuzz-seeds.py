#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Seed corpora for the fuzz targets, from the packets and commands the
tests use: scripts/fuzz-seeds.py DIR writes DIR/packet/* and DIR/config/*.
A packet seed is one knob byte (input port, rpf mode, martian check, route
cache; see tests/fuzz/fuzz_packet.c) and an Ethernet frame."""
import glob
import os
import socket
import struct
import sys

R0 = bytes.fromhex("020000000101")
H0 = bytes.fromhex("020000000102")
BC = b"\xff" * 6


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    s += s >> 16
    return ~s & 0xffff


def ip(src, dst, proto, payload, ttl=64, ihl=5, flags=0, frag=0, opts=b""):
    hl = 20 + len(opts)
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | (hl // 4 if ihl == 5 else ihl), 0,
                    hl + len(payload), 0x1234, (flags << 13) | frag, ttl, proto, 0,
                    socket.inet_aton(src), socket.inet_aton(dst)) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def udp(sport, dport, data):
    return struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data


def icmp(t, c, data=b""):
    h = struct.pack("!BBHI", t, c, 0, 0x00010001) + data
    return h[:2] + struct.pack("!H", csum(h)) + h[4:]


def eth(payload, dst=R0, etype=0x0800):
    return dst + H0 + struct.pack("!H", etype) + payload


def arp(op, sha, spa, tha, tpa, dst=BC):
    return eth(struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, op, sha, socket.inet_aton(spa),
                           tha, socket.inet_aton(tpa)), dst=dst, etype=0x0806)


def ip6(src, dst, nh, payload, hlim=64):
    a, b = socket.inet_pton(socket.AF_INET6, src), socket.inet_pton(socket.AF_INET6, dst)
    if nh == 58:  # ICMPv6 checksum over the pseudo-header
        ph = a + b + struct.pack("!I3xB", len(payload), 58)
        ck = csum(ph + payload[:2] + b"\0\0" + payload[4:])
        payload = payload[:2] + struct.pack("!H", ck) + payload[4:]
    return struct.pack("!IHBB", 6 << 28, len(payload), nh, hlim) + a + b + payload


def icmp6(t, c, body):
    return struct.pack("!BBH", t, c, 0) + body


def packets6():
    h1, h2, r0 = "2001:db8:1::2", "2001:db8:2::2", "2001:db8:1::1"
    data = bytes(range(64))
    e6 = 0x86dd
    snm = "ff02::1:ff00:1"
    mm = bytes.fromhex("3333ff000001")
    yield eth(ip6(h1, "2001:db8:5::3", 17, udp(1, 2, data)), etype=e6)      # forwarded
    yield eth(ip6(h1, h2, 17, udp(1, 2, data * 20)), etype=e6)              # 2/0 (MTU 1280)
    yield eth(ip6(h1, h2, 17, udp(1, 2, data), hlim=1), etype=e6)           # 3/0
    yield eth(ip6(h1, "3fff::1", 17, udp(1, 2, data)), etype=e6)            # 1/0
    yield eth(ip6(r0, r0, 17, udp(1, 2, data)), etype=e6)
    yield eth(ip6(h1, r0, 58, icmp6(128, 0, data)), etype=e6)               # echo
    yield eth(ip6(h1, r0, 17, udp(1, 9, data)), etype=e6)                   # 1/4
    yield eth(ip6(h1, r0, 44, b"\x3a\x00\x00\x01\x00\x00\x5e\xef" + icmp6(128, 0, data)),
              etype=e6)                                                     # first piece
    yield eth(ip6(h1, r0, 44, b"\x3a\x00\x00\x48\x00\x00\x5e\xef" + data[:8]),
              etype=e6)                                                     # last piece
    yield eth(ip6(h1, "fe80::1", 17, udp(1, 2, data)), etype=e6)            # scope
    yield eth(ip6("fe80::2", h2, 17, udp(1, 2, data)), etype=e6)            # 1/2
    yield eth(ip6(h1, h2, 0, b"\x11\x00" + b"\x01\x04" + b"\0" * 4 + udp(1, 2, data)),
              etype=e6)                                                     # ext header
    ns = icmp6(135, 0, b"\0" * 4 + socket.inet_pton(socket.AF_INET6, r0) + b"\x01\x01" + H0)
    yield eth(ip6(h1, snm, 58, ns, hlim=255), dst=mm, etype=e6)             # NS for us
    yield eth(ip6("::", snm, 58, ns[:24], hlim=255), dst=mm, etype=e6)      # DAD
    na = icmp6(136, 0, b"\x60\0\0\0" + socket.inet_pton(socket.AF_INET6, h1) + b"\x02\x01" +
               H0)
    yield eth(ip6(h1, r0, 58, na, hlim=255), etype=e6)                      # NA


def packets():
    h1, h2 = "192.0.2.2", "198.51.100.2"
    data = bytes(range(64))
    yield eth(ip(h1, "10.1.2.3", 17, udp(1234, 5678, data)))          # forwarded
    yield eth(ip(h1, h2, 17, udp(1, 2, data * 20)))                    # fragmented
    yield eth(ip(h1, h2, 17, udp(1, 2, data * 20), flags=2))           # DF: 3/4
    yield eth(ip(h1, h2, 17, udp(1, 2, data), ttl=1))                  # 11/0
    yield eth(ip(h1, "100.64.9.9", 17, udp(1, 2, data)))               # 3/0
    yield eth(ip(h1, "198.19.0.1", 17, udp(1, 2, data)))               # 3/13
    yield eth(ip(h1, "192.0.2.1", 1, icmp(8, 0, data)))                # echo
    yield eth(ip(h1, "192.0.2.1", 17, udp(1, 9, data)))                # 3/3
    yield eth(ip(h1, "192.0.2.1", 253, data))                          # 3/2
    yield eth(ip(h1, "100.64.9.9", 1, icmp(3, 1, data)))               # error about error
    yield eth(ip(h1, h2, 17, udp(1, 2, data), frag=9))                 # fragment
    yield eth(ip(h1, "192.0.2.1", 1, icmp(8, 0, data), flags=1))      # first piece, to us
    yield eth(ip(h1, "192.0.2.1", 1, data[:8], frag=9))                # last piece, to us
    yield eth(ip(h1, h2, 17, udp(1, 2, data), opts=b"\x94\x04\x00\x00\x07\x03\x04\x00"))
    yield eth(ip("127.0.0.1", h2, 17, udp(1, 2, data)))                # martian
    yield eth(ip(h1, "255.255.255.255", 17, udp(68, 67, data)), dst=BC)
    yield eth(ip(h1, "10.9.9.9", 17, udp(1, 2, data)), dst=BC)         # l2 bcast
    yield arp(1, H0, h1, b"\0" * 6, "192.0.2.1")                       # request for us
    yield arp(2, H0, h1, R0, "192.0.2.1", dst=R0)                      # reply
    yield arp(1, H0, h1, b"\0" * 6, h1)                                # gratuitous
    bad = bytearray(eth(ip(h1, h2, 17, udp(1, 2, data))))
    bad[24] ^= 0xff                                                    # checksum
    yield bytes(bad)
    yield eth(b"\x45\x00")                                             # too short
    yield eth(data, etype=0x86dd)                                      # IPv6
    yield from packets6()


def commands():
    for f in sorted(glob.glob(os.path.join(os.path.dirname(__file__), "../config/*.conf"))):
        with open(f, "rb") as fh:
            yield fh.read()
    yield b"\n".join([
        b"show route", b"show route lookup 10.1.2.3", b"show route summary", b"show neigh",
        b"show neigh stats", b"show stats", b"show stats lcores", b"show config",
        b"show memory", b"show version", b"help", b"help route",
        b"route replace 10.0.0.0/8 blackhole", b"route del 10.0.0.0/8",
        b"port 0 address add 192.0.3.1/24", b"port 0 address del 192.0.3.1/24",
        b"port 0 rpf strict", b"port 0 rpf loose ignore-default", b"port 1 mtu 1280",
        b"set ip martians off", b"set ip directed-broadcast on", b"set icmp rate 10 burst 5",
        b"set ip reassembly-timeout 5",
        b"set neigh reachable-time 1000 retrans-time 300 hold 2",
        b"neigh add 192.0.2.9 lladdr 02:00:00:00:00:09 port 0", b"neigh del 192.0.2.9 port 0"])


def main():
    out = sys.argv[1]
    for sub in ("packet", "config"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    n = 0
    for i, p in enumerate(packets()):
        # 0x20, 0x24: the route cache on (without, with rpf strict)
        for knob in (0x00, 0x01, 0x02, 0x04, 0x0a, 0x10, 0x20, 0x24):
            with open(os.path.join(out, "packet", "seed-%02d-%02x" % (i, knob)), "wb") as f:
                f.write(bytes([knob]) + p)
            n += 1
    for i, c in enumerate(commands()):
        with open(os.path.join(out, "config", "seed-%02d" % i), "wb") as f:
            f.write(c)
        n += 1
    print("fuzz-seeds: %d seeds in %s" % (n, out))


if __name__ == "__main__":
    main()
