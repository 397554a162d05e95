#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""IPv4 forwarding end to end: ping and TCP through the router, exact bytes of
a forwarded packet, and each drop reason (blackhole, bad checksum, IHL 4,
total length beyond the frame, TTL 1) with nothing leaving and its own
counter rising by exactly the number sent."""
import json
import re
import time

import frlib
from frlib import HOST_IP, HOST_MAC, ROUTER_IP, ROUTER_MAC, check, delta, log, sh

frlib.require_root(("ip", "ethtool", "ping", "iperf3"))
s = frlib.scapy()

CONFIG = frlib.base_config() + """
route add 10.0.0.0/8 via 198.51.100.2
route add 203.0.113.0/24 blackhole
route add 192.88.99.0/24 unreachable
route add 192.0.0.0/24 prohibit
"""


def test_ping(topo, r):
    out = sh(["ping", "-c", "3", "-i", "0.2", "-W", "2", HOST_IP[1]], ns=topo.hosts[0])
    check("3 received" in out, "ping h1 -> h2 failed:\n" + out)
    ttls = re.findall(r"ttl=(\d+)", out)
    # h2 answers with TTL 64; the router takes one off on the way back
    check(ttls and all(t == "63" for t in ttls), "reply TTLs %s, want 63" % ttls)


def test_iperf3(topo, r):
    srv = frlib.subprocess.Popen(["ip", "netns", "exec", topo.hosts[1], "iperf3", "-s", "-1",
                                  "-B", HOST_IP[1]], stdout=frlib.subprocess.DEVNULL,
                                 stderr=frlib.subprocess.DEVNULL)
    try:
        frlib.wait_listening(topo.hosts[1], 5201, srv)
        out = sh(["iperf3", "-c", HOST_IP[1], "-t", "2", "-J"], ns=topo.hosts[0], timeout=30)
        res = json.loads(out)
        got = res["end"]["sum_received"]["bytes"]
        log("     iperf3: %.1f Mbit/s, %d bytes received" %
            (res["end"]["sum_received"]["bits_per_second"] / 1e6, got))
        check(got > 1_000_000, "iperf3 moved only %d bytes" % got)
    finally:
        srv.kill()
        srv.wait()


def test_forwarded_bytes(topo, r):
    w = frlib.Wire(topo, 0, 1)
    try:
        sent = frlib.udp(s, 0, "10.1.2.3", ttl=17, payload=bytes(range(200)))
        before = r.stats()
        w.send(sent)
        got = w.recv(match=lambda p: p.haslayer(s.UDP) and p[s.UDP].dport == 5678)
        after = r.stats()
    finally:
        w.close()
    check(len(got) == 1, "want 1 packet at h2, got %d" % len(got))
    p = got[0]
    check(p.src == ROUTER_MAC[1] and p.dst == HOST_MAC[1],
          "Ethernet %s -> %s, want %s -> %s" % (p.src, p.dst, ROUTER_MAC[1], HOST_MAC[1]))
    ip = p[s.IP]
    check(ip.ttl == 16, "TTL %d, want 16" % ip.ttl)
    ref = s.IP(bytes(ip))
    del ref.chksum
    check(s.IP(bytes(ref)).chksum == ip.chksum, "IPv4 checksum wrong after rewrite")
    exp = sent[s.IP].copy()
    exp.ttl = 16
    del exp.chksum
    check(bytes(ip) == bytes(s.IP(bytes(exp))), "IP packet bytes differ beyond TTL/checksum")
    check(delta(before, after, "forwarded") == 1, "forwarded counter rose by %d" %
          delta(before, after, "forwarded"))


def expect_dropped(topo, r, pkt, counter, n=3):
    w = frlib.Wire(topo, 0, 1)
    try:
        before = r.stats()
        w.send([pkt] * n)
        got = w.recv(timeout=0.5)
        after = frlib.wait_for(lambda: (lambda a: a if delta(before, a, counter) >= n else None)
                               (r.stats()), timeout=3) or r.stats()
    finally:
        w.close()
    check(not got, "%d packets left the router, want none" % len(got))
    check(delta(before, after, counter) == n, "%s rose by %d, want %d" %
          (counter, delta(before, after, counter), n))
    check(delta(before, after, "forwarded") == 0, "forwarded rose")
    # the total of drops counts each of the packets sent, once
    check(delta(before, after, "dropped") == n, "dropped rose by %d for %d packets sent to %s" %
          (delta(before, after, "dropped"), n, counter))


def test_blackhole(topo, r):
    expect_dropped(topo, r, frlib.udp(s, 0, "203.0.113.5"), "blackhole")


def test_unreachable_prohibit(topo, r):
    expect_dropped(topo, r, frlib.udp(s, 0, "192.88.99.9"), "unreachable")
    expect_dropped(topo, r, frlib.udp(s, 0, "192.0.0.9"), "prohibit")
    expect_dropped(topo, r, frlib.udp(s, 0, "8.8.8.8"), "no_route")


def test_options_link_local(topo, r):
    # a loose source route, even through h2 itself, is never followed nor
    # forwarded (RFC 7126); nor is anything from or to 169.254/16 (RFC 3927)
    h2 = bytes(int(x) for x in HOST_IP[1].split("."))
    lsrr = frlib.with_options(s, frlib.udp(s, 0, HOST_IP[1]), b"\x83\x07\x04" + h2 + b"\x00")
    expect_dropped(topo, r, lsrr, "ip4_source_route")
    past = frlib.with_options(s, frlib.udp(s, 0, HOST_IP[1]), b"\x07\x09\x04\x00")
    expect_dropped(topo, r, past, "ip4_bad_options")
    ll = frlib.udp(s, 0, HOST_IP[1])
    ll[s.IP].src = "169.254.3.4"
    expect_dropped(topo, r, ll, "ip4_link_local")
    # nor from a connected subnet's broadcast address (RFC 1812 4.2.2.11),
    # nor its network address, which the router takes as a broadcast too
    # (as a destination it is one: local_broadcast)
    for a in ("192.0.2.255", "192.0.2.0", "198.51.100.0"):
        bc = frlib.udp(s, 0, HOST_IP[1])
        bc[s.IP].src = a
        expect_dropped(topo, r, bc, "martian_source")


FAR = "10.9.9.9"


def through(topo, pkt):
    # what h2 receives of one packet h1 sends (a moment more for a second)
    w = frlib.Wire(topo, 0, 1)
    try:
        w.send(pkt)
        got = w.recv(timeout=2.0, match=lambda p: p.haslayer(s.UDP), want=1)
        return got + w.recv(timeout=0.1, match=lambda p: p.haslayer(s.UDP))
    finally:
        w.close()


def test_record_route_timestamp(topo, r):
    # RFC 1812 4.2.2.1, RFC 791: Record Route gets the address of the port
    # the packet leaves by, a Timestamp the time of day in ms since midnight
    # UT (with that address before it under flag 1), a full one its
    # overflow count raised; the checksum is right again, the TTL spent.
    # Sent beyond h2 (10.0.0.0/8 by it), which drops them without an error
    # (an error from Linux would echo the options back through the router)
    out_ip = bytes(int(x) for x in ROUTER_IP[1].split("."))
    z4 = b"\0" * 4
    rr_full = b"\x07\x07\x08\x01\x02\x03\x04\x00"
    cases = [
        ("rr", b"\x07\x0b\x04" + z4 + z4 + b"\x00",
         b"\x07\x0b\x08" + out_ip + z4 + b"\x00", None),
        ("rr_full", rr_full, rr_full, None),
        ("ts_flag1", b"\x44\x0c\x05\x01" + z4 + z4, b"\x44\x0c\x0d\x01" + out_ip, 8),
        ("ts_flag0", b"\x44\x08\x05\x00" + z4, b"\x44\x08\x09\x00", 4),
        ("ts_full", b"\x44\x04\x05\x21", b"\x44\x04\x05\x31", None),
        ("nop_rr_alert", b"\x01\x07\x07\x04" + z4 + b"\x94\x04\x00\x00",
         b"\x01\x07\x07\x08" + out_ip + b"\x94\x04\x00\x00", None),
    ]

    def run(cache):
        for name, opts, want, ts_at in cases:
            before = r.stats()
            t0 = time.time()
            got = through(topo, frlib.with_options(s, frlib.udp(s, 0, FAR), opts))
            t1 = time.time()
            check(len(got) == 1, "%s (cache %s): %d packets at h2, want 1" %
                  (name, cache, len(got)))
            ip = got[0][s.IP]
            raw = bytes(ip)
            o = raw[20:20 + len(opts)]
            check(o[:len(want)] == want, "%s (cache %s): options %s, want %s..." %
                  (name, cache, o.hex(), want.hex()))
            check(ip.ttl == 63 and s.checksum(raw[:ip.ihl * 4]) == 0,
                  "%s: TTL %d, header checksum %s" %
                  (name, ip.ttl, "wrong" if s.checksum(raw[:ip.ihl * 4]) else "right"))
            check(raw[20 + len(opts):] == bytes(frlib.udp(s, 0, FAR)[s.UDP]),
                  "%s: the payload changed" % name)
            if ts_at is not None:
                # the time of day, read between sending and receiving
                # (the window crossing midnight UT is allowed for)
                ts = int.from_bytes(o[ts_at:ts_at + 4], "big")
                lo, hi = int(t0 % 86400 * 1000) - 1, int(t1 % 86400 * 1000) + 1
                ok = lo <= ts <= hi if lo <= hi else (ts >= lo or ts <= hi)
                check(ok, "%s: timestamp %d ms, want within [%d, %d]" % (name, ts, lo, hi))
                check(o[len(want) + 4:] == b"\0" * (len(o) - len(want) - 4),
                      "%s: more than one slot written: %s" % (name, o.hex()))
            filled = delta(before, r.stats(), "options_filled")
            check(filled == (0 if name == "rr_full" else 1),
                  "%s: options_filled rose by %d" % (name, filled))

    run("auto")
    # with the route cache on and warm for the flow, a packet with options
    # still takes the path that fills them in
    r.cli("rtcache on")
    try:
        for _ in range(3):
            through(topo, frlib.udp(s, 0, FAR))
        run("on")
    finally:
        r.cli("rtcache auto")
    # held for its neighbour, then sent by the control thread: filled in
    # there (h2's entry goes and is learnt again)
    r.cli("neigh del %s port 1" % HOST_IP[1])
    try:
        got = through(topo, frlib.with_options(s, frlib.udp(s, 0, FAR), cases[0][1]))
        check(len(got) == 1 and bytes(got[0][s.IP])[20:31] == cases[0][2][:11],
              "held Record Route: %s" % [bytes(g[s.IP])[20:32].hex() for g in got])
    finally:
        r.cli("neigh del %s port 1" % HOST_IP[1], check=False)
        r.cli("neigh add %s lladdr %s port 1" % (HOST_IP[1], HOST_MAC[1]))
    # too big for port 1's MTU, DF clear: filled in, then fragmented, the
    # option in the first fragment only (its copy bit is clear)
    r.cli("port 1 mtu 1000")
    try:
        big = frlib.with_options(s, frlib.udp(s, 0, FAR, payload=b"f" * 1400),
                                 cases[0][1])
        w = frlib.Wire(topo, 0, 1)
        try:
            w.send(big)
            frags = w.recv(timeout=1.5, match=lambda p: p.haslayer(s.IP) and
                           p[s.IP].dst == FAR)
        finally:
            w.close()
        firsts = [f for f in frags if f[s.IP].frag == 0]
        check(len(frags) == 2 and len(firsts) == 1 and
              bytes(firsts[0][s.IP])[20:31] == cases[0][2][:11] and
              all(f[s.IP].ihl == 5 for f in frags if f[s.IP].frag != 0),
              "fragmented Record Route: %s" %
              [(f[s.IP].frag, bytes(f[s.IP])[20:32].hex()) for f in frags])
    finally:
        r.cli("port 1 mtu 1500")


def test_bad_checksum(topo, r):
    expect_dropped(topo, r, frlib.udp(s, 0, HOST_IP[1], chksum=0x1234), "ip4_bad_checksum")


def test_multicast_dest(topo, r):
    # a group address in a unicast frame to the router, with a default route
    # that would take it: never sent on (no multicast routing), no error
    r.cli("route add 0.0.0.0/0 via %s" % HOST_IP[1])
    try:
        st0 = r.stats()
        expect_dropped(topo, r, frlib.udp(s, 0, "239.1.2.3"), "ip4_multicast")
        check(delta(st0, r.stats(), "icmp_queued") == 0, "an ICMP error was queued")
        # the same route still forwards unicast
        w = frlib.Wire(topo, 0, 1)
        try:
            w.send([frlib.udp(s, 0, "223.1.2.3")])
            got = w.recv(timeout=1.0)
        finally:
            w.close()
        check(len(got) == 1, "223.1.2.3 by the default route: %d out, want 1" % len(got))
    finally:
        r.cli("route del 0.0.0.0/0", check=False)


def test_mtu_device(topo, r):
    # above the device's MTU the device must take it too, never beyond what
    # a 2048-byte buffer holds; net_af_packet takes nothing above 1500: the
    # command fails with the driver's reason and changes nothing. Below, the
    # router alone keeps it.
    def kernel_mtu():
        out = sh(["ip", "-j", "link", "show", "p1"], ns=topo.r)
        return json.loads(out)[0]["mtu"]

    def mtu_shown():
        return re.search(r"\bmtu (\d+)", r.cli("show port info 1")).group(1)

    out = r.cli("port 1 mtu 9000", check=False)
    check("at most 2030" in out, "port 1 mtu 9000: want refused, got %r" % out)
    out = r.cli("port 1 mtu 1600", check=False)
    check("cannot take MTU 1600 (at most 1500)" in out and "net_af_packet1" in out,
          "port 1 mtu 1600: want the device's refusal, with its bound, got %r" % out)
    check(mtu_shown() == "1500" and kernel_mtu() == 1500,
          "a refused MTU changed something: shown %s, interface %d" %
          (mtu_shown(), kernel_mtu()))
    r.cli("port 1 mtu 1400")
    try:
        check(mtu_shown() == "1400" and kernel_mtu() == 1500,
              "port 1 mtu 1400: shown %s, interface %d" % (mtu_shown(), kernel_mtu()))
        out = sh(["ping", "-c", "1", "-W", "2", HOST_IP[1]], ns=topo.hosts[0], check=False)
        check("1 received" in out, "ping after the MTU changes:\n" + out)
        mtu_enforced(topo, r)
    finally:
        r.cli("port 1 mtu 1500")


def mtu_enforced(topo, r):
    # the workers use the MTU the command set, not only show port: 1450
    # bytes with DF are refused with 1400 in the error; without DF they
    # leave in fragments of at most 1400 bytes
    big = frlib.udp(s, 0, HOST_IP[1], payload=b"m" * 1422)  # 1450-byte IP packet
    big[s.IP].flags = "DF"
    ls = frlib.Listen(topo, 0)
    w = frlib.Wire(topo, 0, 1)
    before = r.stats()
    try:
        w.send(big)
        err = ls.collect(timeout=1.5, want=1,
                         match=lambda p: p.haslayer(s.ICMP) and p[s.IP].dst == HOST_IP[0])
        out = w.recv(timeout=0.3)
        check(len(err) == 1 and err[0][s.ICMP].type == 3 and err[0][s.ICMP].code == 4 and
              err[0][s.ICMP].nexthopmtu == 1400,
              "1450 bytes with DF at MTU 1400: want ICMP 3/4 mtu 1400, got %s" %
              [e.summary() for e in err])
        check(not out, "1450 bytes with DF left by an MTU-1400 port")
        check(delta(before, r.stats(), "frag_needed_df") == 1, "frag_needed_df not counted once")
        big[s.IP].flags = 0
        w.send(big)
        frags = w.recv(timeout=1.5, match=lambda p: p.haslayer(s.IP) and
                       p[s.IP].dst == HOST_IP[1])
    finally:
        w.close()
        ls.close()
    lens = sorted(len(f[s.IP]) for f in frags)
    check(len(frags) == 2 and max(lens) <= 1400 and sum(lens) - 20 * (len(lens) - 1) == 1450,
          "1450 bytes without DF at MTU 1400: fragments of %s bytes" % lens)


def test_ihl4(topo, r):
    p = frlib.udp(s, 0, HOST_IP[1])
    raw = bytearray(bytes(p))
    raw[14] = 0x44  # IHL 4, then a checksum that is right for those 16 bytes
    raw[24:26] = b"\0\0"
    ck = s.checksum(bytes(raw[14:30]))
    raw[24:26] = ck.to_bytes(2, "big")
    expect_dropped(topo, r, s.Ether(bytes(raw)), "ip4_bad_ihl")


def test_total_length(topo, r):
    p = frlib.udp(s, 0, HOST_IP[1], payload=b"x" * 100)
    p[s.IP].len = 400  # beyond the frame
    expect_dropped(topo, r, p, "ip4_bad_length")


def test_ttl1(topo, r):
    expect_dropped(topo, r, frlib.udp(s, 0, HOST_IP[1], ttl=1), "ttl_exceeded")
    expect_dropped(topo, r, frlib.udp(s, 0, "10.1.1.1", ttl=0), "ttl_exceeded")


def test_counters_consistent(topo, r):
    # (that dropped is the sum of the reasons is how the router computes
    # it; expect_dropped() checks it against the packets sent instead)
    st = r.stats()
    drops = sum(v for k, v in st.items() if k in DROP_NAMES)
    # every received packet is forwarded, handed to the control thread or
    # dropped for a named reason: nothing disappears
    check(st["rx"] == st["forwarded"] + st["to_control"] + drops,
          "rx %d != forwarded %d + to_control %d + dropped %d" %
          (st["rx"], st["forwarded"], st["to_control"], drops))
    # and every packet the control thread sent (the suite's ARP replies and
    # ICMP errors) left by a worker or was counted where it was lost, once
    # its ring is drained
    lost = ("ctrl_tx", "ctrl_tx_full", "ctrl_tx_port_down", "ctrl_tx_no_port")
    st = frlib.wait_for(lambda: (lambda a: a if a["ctrl_sent"] == sum(a[k] for k in lost)
                                 else None)(r.stats()), timeout=2.0) or r.stats()
    check(st["ctrl_sent"] > 0 and st["ctrl_sent"] == sum(st[k] for k in lost),
          "ctrl_sent %d != %s" % (st["ctrl_sent"], " + ".join("%s %d" % (k, st[k])
                                                               for k in lost)))


DROP_NAMES = set()


def main():
    runner = frlib.Runner()
    with frlib.Topo(hosts=2) as topo:
        r = frlib.Router(topo, CONFIG)
        try:
            out = r.cli("show stats")
            in_drops = False
            for line in out.splitlines():
                if line.startswith("drops:"):
                    in_drops = True
                elif not line.startswith(" "):
                    in_drops = False
                elif in_drops:
                    DROP_NAMES.add(line.split()[0])
            for name, fn in [("ping", test_ping), ("iperf3", test_iperf3),
                             ("forwarded_bytes", test_forwarded_bytes),
                             ("blackhole", test_blackhole),
                             ("unreachable_prohibit_noroute", test_unreachable_prohibit),
                             ("multicast_dest_not_forwarded", test_multicast_dest),
                             ("mtu_above_device", test_mtu_device),
                             ("options_link_local", test_options_link_local),
                             ("record_route_timestamp", test_record_route_timestamp),
                             ("bad_checksum", test_bad_checksum), ("ihl4", test_ihl4),
                             ("total_length", test_total_length), ("ttl1", test_ttl1),
                             ("counters_consistent", test_counters_consistent)]:
                runner.run(name, fn, topo, r)
        finally:
            runner.run("clean_stop", r.stop)
    runner.exit()


if __name__ == "__main__":
    main()
