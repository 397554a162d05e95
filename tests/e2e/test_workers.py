#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Several workers: three worker lcores oversubscribed onto the machine's
CPUs (EAL --lcores), ports with three queue pairs (af_packet fanout spreads
flows over them). 100 UDP flows, 5 packets each: every flow is forwarded,
more than one worker carries traffic, and the per-lcore forwarded counts
sum to the packets sent and received."""
import re

import frlib
from frlib import HOST_IP, ROUTER_IP, check, log

frlib.require_root()
s = frlib.scapy()

FLOWS, PER_FLOW = 100, 5


def per_lcore(r):
    """'show stats lcores' -> {counter: ([per worker...], total)}"""
    rows = {}
    for line in r.cli("show stats lcores").splitlines()[1:]:
        f = line.split()
        if len(f) >= 3 and re.match(r"^\d+$", f[-1]):
            rows[f[0]] = ([int(x) for x in f[1:-1]], int(f[-1]))
    return rows


def test_flows(topo, r):
    rows0, st0 = per_lcore(r), r.stats()
    w = frlib.Wire(topo, 0, 1)
    # and what the router forwards back to h1 meanwhile: h2's kernel
    # answers some of the packets (port unreachable, rate-limited)
    at_h1 = frlib.Listen(topo, 0)
    try:
        pkts = [frlib.udp(s, 0, HOST_IP[1], sport=10000 + f, dport=20000 + f)
                for f in range(FLOWS) for _ in range(PER_FLOW)]
        w.send(pkts)
        got = w.recv(timeout=2.0, match=lambda p: p.haslayer(s.UDP))
        back = at_h1.collect(timeout=0.3, match=lambda p: p.haslayer(s.IP) and
                             p[s.IP].src != ROUTER_IP[0])
    finally:
        w.close()
        at_h1.close()
    flows = {}
    for p in got:
        flows[p[s.UDP].sport] = flows.get(p[s.UDP].sport, 0) + 1
    missing = [f for f in range(FLOWS) if 10000 + f not in flows]
    log("     %d packets of %d received, %d flows of %d" % (len(got), len(pkts), len(flows),
                                                            FLOWS))
    check(not missing, "flows never forwarded: %s" % missing[:10])
    check(len(got) == len(pkts), "%d of %d packets arrived" % (len(got), len(pkts)))

    check(len(rows0["rx"][0]) == 3, "want 3 workers, show stats lcores has %d" %
          len(rows0["rx"][0]))

    # the per-worker forwarded counts add up to the packets seen leaving
    # the router: ours at h2, h2's answers at h1 (nothing else crosses it
    # here: static neighbours, IPv4-only hosts); the workers count a
    # packet after its send, so the last may show a moment after it arrived
    crossed = len(got) + len(back)

    def forwarded():
        rows = per_lcore(r)
        return rows, [a - b for a, b in zip(rows["forwarded"][0], rows0["forwarded"][0])]

    rows, fwd = frlib.wait_for(lambda: (lambda x: x if sum(x[1]) >= crossed else None)(
        forwarded()), timeout=3) or forwarded()
    log("     per-worker forwarded: %s (%d at h2, %d back at h1)" % (fwd, len(got), len(back)))
    check(sum(fwd) == crossed, "the workers forwarded %s, %d in all, for the %d packets seen "
          "leaving the router (%d at h2, %d at h1)" % (fwd, sum(fwd), crossed, len(got),
                                                       len(back)))
    # forwarded, not tx: worker 0's tx also carries what the control
    # thread sends (ARP replies), so a tx row shows it busy regardless
    busy = [v for v in fwd if v >= len(pkts) // 10]
    check(len(busy) >= 2, "fewer than 2 of 3 workers forwarded a tenth of the %d packets: %s" %
          (len(pkts), fwd))
    rx = [a - b for a, b in zip(rows["rx"][0], rows0["rx"][0])]
    check(sum(rx) >= len(pkts), "the workers received %s, %d in all, for %d packets sent" %
          (rx, sum(rx), len(pkts)))
    # show stats, the sum over the workers, counted the same packets
    st = r.stats()
    check(frlib.delta(st0, st, "forwarded") == crossed,
          "show stats: forwarded rose by %d for the %d packets seen leaving the router" %
          (frlib.delta(st0, st, "forwarded"), crossed))
    # each worker zeroes its own counters; the CLI answers once they have
    r.cli("clear stats")
    rows = per_lcore(r)
    check(all(v < 5 for v in rows["rx"][0] + rows["tx"][0]),
          "clear stats: per-worker rx %s, tx %s" % (rows["rx"][0], rows["tx"][0]))


def test_rss_said(topo, r):
    # af_packet has no RSS: three workers on its queues are told about
    err = r.stderr()
    for port in (0, 1):
        check("port %d (net_af_packet%d) offers no RSS" % (port, port) in err,
              "no RSS warning for port %d:\n%s" % (port, err))


def main():
    runner = frlib.Runner()
    with frlib.Topo(hosts=2) as topo:
        # 3 workers + the control thread on the machine's CPUs (2 here)
        r = frlib.Router(topo, frlib.base_config(), workers=3, lcores="0@0,1@1,2@0,3@1")
        try:
            runner.run("100_flows_3_workers", test_flows, topo, r)
            runner.run("rss_said", test_rss_said, topo, r)
        finally:
            runner.run("clean_stop", r.stop)
    runner.exit()


if __name__ == "__main__":
    main()
