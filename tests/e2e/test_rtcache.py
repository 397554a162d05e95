#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Route cache coherency on the wire: with the cache on and warmed, after a
more specific route is added, a route deleted or replaced, a neighbour's MAC
changed, or rpf switched on, the very next packet follows the new state, and
the cache counts the entries that went stale. Its memory does not grow. In
auto mode a worker measures the cache's cost and shows what it measured."""
import json
import time

import frlib
from frlib import HOST_IP, HOST_MAC, check, log, sh

frlib.require_root()
s = frlib.scapy()

CONFIG = frlib.base_config(nhosts=3) + """
rtcache size 4096
rtcache on
route add 10.0.0.0/8 via 198.51.100.2
"""


def rtc(r):
    return json.loads(r.cli("show rtcache stats", json=True))


def one(topo, tag, src=None):
    """Send one packet to 10.1.2.3; return (host index, dst MAC) where it left, or None."""
    p = frlib.udp(s, 0, "10.1.2.3", payload=tag.encode())
    if src:
        p[s.IP].src = src
    wires = [frlib.Wire(topo, 0, h) for h in (1, 2)]
    try:
        wires[0].send(p)
        # both watched at once, until it arrives (each was watched 0.3 s
        # in turn, whether it came or not); 1.5 s for a worker a busy
        # machine held back (a drop waits it out: two cases)
        got = frlib.collect_from({1: wires[0], 2: wires[1]}, 1.5, 1,
                                 lambda x: x.haslayer(s.Raw) and x[s.Raw].load == tag.encode(),
                                 linger=0)
        for h in (1, 2):
            if got[h]:
                return h, got[h][0].dst
        return None
    finally:
        for w in wires:
            w.close()


def warm(topo, r, n=3):
    before = rtc(r)["total"]["hits"]
    for i in range(n):
        one(topo, "warm-%f-%d" % (time.time(), i))
    check(rtc(r)["total"]["hits"] >= before + n - 1, "the cache is not being hit")


def test_coherency(topo, r):
    mem0 = rtc(r)["memory_bytes"]
    warm(topo, r)
    check(one(topo, "t0") == (1, HOST_MAC[1]), "not via h2 to start with")

    def step(what, cmd, want):
        stale = rtc(r)["total"]["stale"]
        warm(topo, r)
        for c in cmd if isinstance(cmd, list) else [cmd]:
            r.cli(c)
        got = one(topo, what)
        check(got == want, "%s: the next packet went %s, want %s" % (what, got, want))
        check(rtc(r)["total"]["stale"] > stale, "%s: no stale entry counted" % what)

    step("more specific route", "route add 10.1.2.0/24 via 203.0.113.2", (2, HOST_MAC[2]))
    step("route delete", "route del 10.1.2.0/24", (1, HOST_MAC[1]))
    step("route replace", "route replace 10.0.0.0/8 via 203.0.113.2", (2, HOST_MAC[2]))
    step("route replace back", "route replace 10.0.0.0/8 via 198.51.100.2", (1, HOST_MAC[1]))
    step("neighbour MAC", "neigh add 198.51.100.2 lladdr 02:00:00:00:02:77 port 1",
         (1, "02:00:00:00:02:77"))
    r.cli("neigh add 198.51.100.2 lladdr %s port 1" % HOST_MAC[1])
    # rpf: a source routed back through another port is dropped at once
    warm(topo, r)
    spoof = "203.0.113.77"
    for i in range(3):
        check(one(topo, "spoof-warm-%d" % i, src=spoof) is not None, "warm with rpf off")
    r.cli("port 0 rpf strict")
    try:
        # (with rpf on, the source joins the key: the warm entry is not even
        # looked at, so nothing goes stale; the filter decides)
        before = r.stats()
        check(one(topo, "spoof-after", src=spoof) is None,
              "rpf strict did not stop the next spoofed packet")
        after = r.stats()
        check(frlib.delta(before, after, "rpf_strict") == 1 and
              frlib.delta(before, after, "port0_strict") == 1,
              "the spoofed packet was not counted as rpf_strict on port 0")
        check(one(topo, "good-after") == (1, HOST_MAC[1]), "rpf strict stopped a good one")
    finally:
        r.cli("port 0 rpf off")
    # rpf loose lets in a source that only the default route covers; with
    # ignore-default switched on, the next packet of a cached flow from it
    # is dropped too (the entry holds the mode, not the flag)
    r.cli("route add 0.0.0.0/0 via 203.0.113.2")
    r.cli("port 0 rpf loose")
    try:
        by_default = "100.64.1.1"
        for i in range(4):
            check(one(topo, "dflt-warm-%d" % i, src=by_default) is not None,
                  "rpf loose dropped a source the default route covers")
        hits = rtc(r)["total"]["hits"]
        check(one(topo, "dflt-hit", src=by_default) is not None, "dropped while warm")
        check(rtc(r)["total"]["hits"] > hits, "the flow from the default's source is not cached")
        drops = r.stats()["rpf_loose"]
        r.cli("port 0 rpf loose ignore-default")
        check(one(topo, "dflt-after", src=by_default) is None,
              "rpf loose ignore-default did not stop a cached flow's next packet")
        check(r.stats()["rpf_loose"] == drops + 1, "not counted rpf_loose")
        check(one(topo, "good-after-dflt") == (1, HOST_MAC[1]), "ignore-default stopped a good one")
    finally:
        r.cli("port 0 rpf off")
        r.cli("route del 0.0.0.0/0")
    st = rtc(r)
    log("     lookups %d hits %d misses %d stale %d inserts %d" %
        (st["total"]["lookups"], st["total"]["hits"], st["total"]["misses"],
         st["total"]["stale"], st["total"]["inserts"]))
    check(st["memory_bytes"] == mem0, "cache memory changed")


def test_auto_measures(topo, r):
    """In auto mode the worker times its bursts with the cache probed and
    bypassed and says what it measured: a stream of one flow from h1 (in
    chunks of 2,000 frames until a measurement ends, at most 60,000: a whole
    one takes 9 samples of 1,024 packets) takes it through a whole
    measurement, and `show rtcache stats` shows both figures."""
    import socket as so
    r.cli("rtcache auto")
    try:
        before = rtc(r)["lcores"][0]["measurements"]
        frame = bytes(frlib.udp(s, 0, "10.1.2.3", payload=b"auto-measure"))
        with frlib.netns(topo.hosts[0]):
            tx = so.socket(so.AF_PACKET, so.SOCK_RAW)
            tx.bind(("eth0", 0))
        lc = {}
        torn = []

        def measured():
            st = rtc(r)
            lc.update(st["lcores"][0])
            # read under traffic, the total still adds up the rows shown
            for k in ("lookups", "hits", "misses", "inserts", "bypassed"):
                if st["total"][k] != sum(x[k] for x in st["lcores"]):
                    torn.append((k, st["total"][k], [x[k] for x in st["lcores"]]))
            return lc["measurements"] > before
        sent = 0
        try:
            while sent < 60000 and not measured():
                for i in range(2000):
                    tx.send(frame)
                    if i % 500 == 499:
                        time.sleep(0.005)  # let the router's ring drain
                sent += 2000
                frlib.wait_for(measured, timeout=0.5)
        finally:
            tx.close()
        check(measured(), "no measurement after %d packets: %s" % (sent, lc))
        check(not torn, "show rtcache stats: a total not the sum of its rows: %s" % torn[:3])
        # measured, and holding its verdict (the next is 2^20 packets away)
        check(lc["state"] in ("probing", "bypass"), "state %s" % lc["state"])
        check(lc["probe_cycles"] > 0 and lc["bypass_cycles"] > 0,
              "measured cycles missing: %s" % lc)
        check(lc["measured_hit_pct"] >= 90,
              "one flow, but its probed samples hit %d%%" % lc["measured_hit_pct"])
        text = r.cli("show rtcache stats")
        row = [ln for ln in text.splitlines() if ln.split()[:1] == [str(lc["lcore"])]]
        check(len(row) == 1 and row[0].split()[-2] == "%.1f" % lc["probe_cycles"] and
              row[0].split()[-1] == "%.1f" % lc["bypass_cycles"],
              "the table does not show the measured cycles:\n" + text)
        log("     auto: probed %.1f, bypassed %.1f cycles a packet, hit %d%%, state %s" %
            (lc["probe_cycles"], lc["bypass_cycles"], lc["measured_hit_pct"], lc["state"]))
    finally:
        r.cli("rtcache on")


def main():
    runner = frlib.Runner()
    with frlib.Topo(hosts=3) as topo:
        r = frlib.Router(topo, CONFIG)
        try:
            for h in (1, 2):
                sh(["ping", "-c", "1", "-W", "2", HOST_IP[h]], ns=topo.hosts[0])
            runner.run("coherency", test_coherency, topo, r)
            runner.run("auto_measures", test_auto_measures, topo, r)
        finally:
            runner.run("clean_stop", r.stop)
    runner.exit()


if __name__ == "__main__":
    main()
