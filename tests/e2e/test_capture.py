#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Packet capture the DPDK way: dpdk-dumpcap (Debian's dpdk package)
attaches to a running router as a secondary process and writes the pings
crossing it to a pcapng file, which the test reads back. dumpcap needs a
hugepage-backed primary, so this test reserves hugepages for the router
(and gives them back)."""
import os
import shutil
import subprocess
import tempfile
import time

import frlib
from frlib import HOST_IP, HOST_MAC, ROUTER_MAC, check, log, sh

frlib.require_root(("ip", "ethtool", "ping", "dpdk-dumpcap"))
s = frlib.scapy()


def test_dumpcap(topo, r):
    d = tempfile.mkdtemp()
    out = os.path.join(d, "cap.pcapng")
    # -p: leave promiscuous mode alone; capture what port 1 sends and gets
    # for 6 s (a count would also take the router's ARP: its announcements
    # at start, repeated 2 s later, its resolution of h2)
    cap = subprocess.Popen(["dpdk-dumpcap", "--file-prefix=" + r.prefix, "-i",
                            "net_af_packet1", "-p", "-w", out, "-a", "duration:6", "-q"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        # dumpcap is attached once the router registered its callbacks
        time.sleep(3)
        sh(["ping", "-c", "4", "-i", "0.2", "-W", "2", HOST_IP[1]], ns=topo.hosts[0])
        text, _ = cap.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        cap.kill()
        text, _ = cap.communicate()
        raise AssertionError("dumpcap did not stop after 6 s:\n" + text)
    check(cap.returncode == 0, "dumpcap exited %d:\n%s" % (cap.returncode, text))
    pkts = s.rdpcap(out)
    requests = [p for p in pkts if p.haslayer(s.ICMP) and p[s.ICMP].type == 8]
    replies = [p for p in pkts if p.haslayer(s.ICMP) and p[s.ICMP].type == 0]
    log("     %d packets in %s: %d echo requests, %d replies" %
        (len(pkts), out, len(requests), len(replies)))
    check(len(requests) >= 3 and len(replies) >= 3, "pings not in the capture")
    # requests leave port 1 already rewritten: router MAC -> h2, TTL 63
    q = requests[0]
    check(q.src == ROUTER_MAC[1] and q.dst == HOST_MAC[1] and q[s.IP].ttl == 63,
          "captured request %s -> %s ttl %d" % (q.src, q.dst, q[s.IP].ttl))
    check(replies[0].src == HOST_MAC[1] and replies[0][s.IP].ttl == 64,
          "captured reply as received from h2")
    shutil.rmtree(d)


def main():
    runner = frlib.Runner()
    with frlib.Hugepages(400), frlib.Topo(hosts=2) as topo:
        # a secondary maps the primary's memory at the primary's addresses:
        # where ASLR put them, the new process may already have something
        # (dumpcap then fails "Cannot get a virtual area at requested
        # address"). A base far above the usual mappings is free in both.
        r = frlib.Router(topo, frlib.base_config(), huge=True, mem=512,
                         eal=("--base-virtaddr", "0x200000000000"))
        try:
            runner.run("dumpcap_pings", test_dumpcap, topo, r)
        finally:
            runner.run("clean_stop", r.stop)
    runner.exit()


if __name__ == "__main__":
    main()
