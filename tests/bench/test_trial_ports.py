#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The zero-loss search's count of frames back (fastroute-pktgen, mode=trial)
takes a frame only on the port its route leaves by, the one opposite the
port that sent it; one that came back on the port that sent it was not
forwarded (the DUT sent it back where it came from) and is counted apart,
as lost (rx_wrong_port).

A fastroute DUT whose table sends every route, IPv4 and IPv6, out of its
port 0, while the generator's table sends half of them out of port 1: the
frames the generator sends on port 0 (for routes it expects out of the
DUT's port 1) come back on port 0, forwarded (their TTL taken down) but on
the wrong port; those it sends on port 1 come back on port 0, as they
should. Run as root (memif, DPDK), from scripts/bench/run.sh --quick.
"""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "bench"))
import fastbench as fb  # noqa: E402

NROUTES = 200
RATE_MPPS = 0.2  # far below what either side takes: nothing lost to a full ring


def fail(msg):
    print("FAIL: trial ports: " + msg, file=sys.stderr)
    sys.exit(1)


def check(name, r):
    """Every frame sent on side 0 back on side 0 (wrong), every frame sent
    on side 1 back on side 0 (right), nothing on side 1."""
    tx, rx, wrong = r["tx_per_port"], r["rx_per_port"], r["rx_wrong_port_per_port"]
    print("trial ports, %s: sent %s, back on the right port %s, on the port that sent "
          "them %s, refused %s" % (name, tx, rx, wrong, r["tx_fail_per_port"]))
    if r["tx_fail"] != 0:
        fail("%s: the DUT's ring refused %d frames at %.1f Mpps" % (name, r["tx_fail"],
                                                                    RATE_MPPS))
    if tx[0] < 1000 or tx[1] < 1000:
        fail("%s: too few frames sent on a side to tell (%s)" % (name, tx))
    if rx[1] != 0 or wrong[1] != 0:
        fail("%s: frames came back on port 1, where the DUT sends none: %s" % (name, r))
    # the DUT loses none at this rate; a few in flight at a run's edges
    # are the most a slow machine could cost
    if not 0.99 * tx[0] <= wrong[0] <= tx[0]:
        fail("%s: %d of the %d frames sent on port 0 counted back on it (wrong port): %s"
             % (name, wrong[0], tx[0], r))
    if not 0.99 * tx[1] <= rx[0] <= tx[1]:
        fail("%s: %d of the %d frames sent on port 1 counted back on port 0: %s"
             % (name, rx[0], tx[1], r))
    if r["rx_pkts"] != rx[0] or r["rx_wrong_port"] != wrong[0]:
        fail("%s: totals disagree with the per-port counts: %s" % (name, r))
    if r["loss_pkts"] != r["tx_pkts"] - r["rx_pkts"] or r["loss_pkts"] < wrong[0]:
        fail("%s: the frames back on the wrong port are not counted lost: %s" % (name, r))


def main():
    if os.geteuid() != 0:
        print("SKIP: trial ports: needs root (memif, DPDK)")
        sys.exit(77)
    fb.check_tools()
    ses = fb.Session()
    try:
        plain, plain6 = ses.path("routes.plain"), ses.path("routes6.plain")
        for g in (fb.gen_tables(NROUTES, 1, [("plain", plain, "")]),
                  fb.gen_tables(NROUTES, 1, [("plain", plain6, "")], ipv6=True)):
            if g.wait(60) != 0:
                fail("scripts/gen-routes failed")
        nets = [net for net, _ in fb.read_plain_routes(plain)]
        with open(plain6) as f:
            nets6 = [line.split()[0] for line in f if line.strip() and line[0] != "#"]
        sides = [int(line.split()[1]) for line in open(plain) if line.strip() and
                 line[0] != "#"]
        if 0 not in sides or 1 not in sides:
            fail("the generated table leaves by one port only: %s" % sorted(set(sides)))
        conf = ses.path("hairpin.conf")
        with open(conf, "w") as f:
            for p in (0, 1):
                f.write("port %d address %s\n" % (p, fb.DUT_ADDR[p]))
                f.write("port %d address %s\n" % (p, fb.DUT_ADDR6[p]))
            f.write("neigh add %s lladdr %s port 0\n" % (fb.GW[0], fb.GEN_MAC[0]))
            f.write("neigh add %s lladdr %s port 0\n" % (fb.GW6[0], fb.GEN_MAC[0]))
            for net in nets:
                f.write("route add %s via %s\n" % (net, fb.GW[0]))
            for net in nets6:
                f.write("route add %s via %s\n" % (net, fb.GW6[0]))
        ses.choose_memory(1536)
        gen = fb.Generator(ses, 1, plain, 1, 256, NROUTES, routes6_plain=plain6)
        dut = fb.FastrouteDut(ses, 0, gen, conf, 1024)
        dut.wait_ready(60)
        gen.wait_pair_up(0, 20)
        dut.begin()
        for name, profile in (("IPv4", "1kflows"), ("IPv6", "random6")):
            check(name, gen.run(0, profile, 64, 0.2, 0.5, rate=RATE_MPPS, mode="trial",
                                routed=True))
        dut.end()
        dut.stop()
        gen.quit()
    except fb.BenchError as e:
        fail(str(e))
    finally:
        ses.cleanup()
    print("trial ports: frames back on the port that sent them counted apart, as lost")


if __name__ == "__main__":
    main()
