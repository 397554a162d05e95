#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Packet capture the DPDK way: dpdk-dumpcap (Debian's dpdk-dev package)
attaches to a running router as a secondary process and writes the pings
crossing it to a pcapng file, which the test reads back. dumpcap needs a
hugepage-backed primary, so this test reserves hugepages for the router
(and gives them back)."""
import os
import shutil
import subprocess
import threading

import frlib
from frlib import HOST_IP, HOST_MAC, ROUTER_MAC, check, log

frlib.require_root(("ip", "ethtool", "ping", "dpdk-dumpcap"))
s = frlib.scapy()


def text_of(chunks):
    return b"".join(chunks).decode(errors="replace")


def test_dumpcap(topo, r):
    d = frlib.tmpdir()
    out = os.path.join(d, "cap.pcapng")
    # -p: leave promiscuous mode alone; capture what port 1 sends and gets
    # for 6 s (a count would also take the router's ARP: its announcements
    # at start, repeated 2 s later, its resolution of h2). Without -q it
    # counts packets on stderr ("Packets captured: 0" first) from when
    # the router has its callbacks on the port (its "Capturing on" goes
    # to a buffered stdout: seen only at its exit)
    cap = subprocess.Popen(["dpdk-dumpcap", "--file-prefix=" + r.prefix, "-i",
                            "net_af_packet1", "-p", "-w", out, "-a", "duration:6"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    said = []
    attached = threading.Event()

    def read():
        while True:
            b = cap.stdout.read1(4096)
            if not b:
                break
            said.append(b)
            if b"Packets captured:" in b"".join(said):
                attached.set()

    reader = frlib.Thread(target=read, daemon=True)
    reader.start()
    pinger = None
    try:
        # attaching may take a while on a loaded machine: its 6 s start
        # about then, so the pings go on until it stops, not a fixed count
        frlib.wait_for(lambda: attached.is_set() or cap.poll() is not None, timeout=30)
        check(attached.is_set(), "dumpcap not capturing after 30 s (exit %s):\n%s" %
              (cap.poll(), text_of(said)))
        pinger = subprocess.Popen(["ip", "netns", "exec", topo.hosts[0], "ping", "-i", "0.2",
                                   "-w", "40", "-W", "2", HOST_IP[1]], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        cap.wait(timeout=20)
    except subprocess.TimeoutExpired:
        cap.kill()
        cap.wait()
        raise AssertionError("dumpcap did not stop after 6 s:\n" + text_of(said))
    finally:
        if pinger is not None:
            pinger.kill()
            pinger.wait()
        if cap.poll() is None:
            cap.kill()
            cap.wait()
        reader.join(10)
    text = text_of(said)
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


def test_hugepages_given_back(r):
    # a stopped router leaves no hugepage file of its prefix behind: DPDK
    # 22.11 keeps them at exit, each holding its page until deleted (a
    # machine whose hugetlbfs stays mounted lost 512 MiB a run)
    mounts, left = frlib.hugepage_files(r.prefix)
    check(mounts and not left, "hugetlbfs mounts %s; %d files of prefix %s left: %s" %
          (mounts, len(left), r.prefix, left[:3]))


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
        runner.run("hugepages_given_back", test_hugepages_given_back, r)
    runner.exit()


if __name__ == "__main__":
    main()
