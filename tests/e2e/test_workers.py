#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Several workers: three worker lcores oversubscribed onto the machine's
CPUs (EAL --lcores), ports with three queue pairs (af_packet fanout spreads
flows over them). 100 UDP flows, 5 packets each: every flow is forwarded,
more than one worker carries traffic, and the per-lcore counters sum to
the totals."""
import re

import frlib
from frlib import HOST_IP, check, log

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
    w = frlib.Wire(topo, 0, 1)
    try:
        pkts = [frlib.udp(s, 0, HOST_IP[1], sport=10000 + f, dport=20000 + f)
                for f in range(FLOWS) for _ in range(PER_FLOW)]
        w.send(pkts)
        got = w.recv(timeout=2.0, match=lambda p: p.haslayer(s.UDP))
    finally:
        w.close()
    flows = {}
    for p in got:
        flows[p[s.UDP].sport] = flows.get(p[s.UDP].sport, 0) + 1
    missing = [f for f in range(FLOWS) if 10000 + f not in flows]
    log("     %d packets of %d received, %d flows of %d" % (len(got), len(pkts), len(flows),
                                                            FLOWS))
    check(not missing, "flows never forwarded: %s" % missing[:10])
    check(len(got) == len(pkts), "%d of %d packets arrived" % (len(got), len(pkts)))

    rows = per_lcore(r)
    for name, (vals, total) in rows.items():
        check(sum(vals) == total, "%s: per-lcore %s sums to %d, total says %d" %
              (name, vals, sum(vals), total))
    check(len(rows["rx"][0]) == 3, "want 3 workers, show stats lcores has %d" %
          len(rows["rx"][0]))
    # forwarded, not tx: worker 0's tx also carries what the control
    # thread sends (ARP replies), so a tx row shows it busy regardless
    fwd = rows["forwarded"][0]
    log("     per-worker forwarded: %s" % fwd)
    busy = [v for v in fwd if v >= len(pkts) // 10]
    check(len(busy) >= 2, "fewer than 2 of 3 workers forwarded a tenth of the %d packets: %s" %
          (len(pkts), fwd))
    check(rows["tx"][1] >= len(pkts), "tx total %d < %d sent" % (rows["tx"][1], len(pkts)))
    st = r.stats()
    check(st["rx"] == rows["rx"][1] and st["forwarded"] == rows["tx"][1] - rows["ctrl_tx"][1],
          "show stats and show stats lcores disagree")
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
