#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The zero-loss search's count of frames back (fastroute-pktgen, mode=trial)
takes a frame only on the port its route leaves by, the one opposite the
port that sent it; one that came back on the port that sent it was not
forwarded (the DUT sent it back where it came from) and is counted apart,
as lost (rx_wrong_port).

A fastroute DUT whose table sends every route, IPv4 and IPv6, out of its
port 0, against a generator whose table sends them all one way, so that
only one of its ports sends (both sending at one rate would make a swap of
the two counts invisible):
  * every route out of port 1: the generator sends on its port 0, the DUT
    sends each frame back out of port 0, forwarded (its TTL taken down) but
    where it came from: all counted on the wrong port, none received;
  * every route out of port 0: the generator sends on its port 1, the DUT
    forwards out of port 0, as the generator expects: all received, none on
    the wrong port.
Run as root (memif, DPDK), from scripts/bench/run.sh --quick.
"""
import os
import signal
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "bench"))
import fastbench as fb  # noqa: E402

NROUTES = 200
RATE_MPPS = 0.1  # far below what either side takes


def fail(msg):
    print("FAIL: trial ports: " + msg, file=sys.stderr)
    sys.exit(1)


def check(name, r, gen_port):
    """Only generator port @gen_port sent; everything should come back on
    port 0: wrong when port 0 sent it, right when port 1 did. The counts
    that must be 0 carry the test; the others allow for what a stalled
    core loses (nothing at this rate, on a quiet machine)."""
    tx, rx, wrong = r["tx_per_port"], r["rx_per_port"], r["rx_wrong_port_per_port"]
    print("trial ports, %s: sent %s, back on the right port %s, on the port that sent "
          "them %s, refused %s" % (name, tx, rx, wrong, r["tx_fail_per_port"]))
    if tx[gen_port] < 1000 or tx[1 - gen_port] != 0:
        fail("%s: sent %s, want port %d alone" % (name, tx, gen_port))
    if gen_port == 0:
        ok = rx == [0, 0] and wrong[1] == 0 and tx[0] // 2 <= wrong[0] <= tx[0]
    else:
        ok = wrong == [0, 0] and rx[1] == 0 and tx[1] // 2 <= rx[0] <= tx[1]
    if not ok:
        fail("%s: frames back on the wrong port %s, counted received %s, of %s sent: %s"
             % (name, wrong, rx, tx, r))
    if r["rx_pkts"] != sum(rx) or r["rx_wrong_port"] != sum(wrong) or \
            r["loss_pkts"] != r["tx_pkts"] - r["rx_pkts"]:
        fail("%s: totals disagree with the per-port counts: %s" % (name, r))


def one_way(ses, nets, nets6, gen_port):
    """Generator tables with every route out of DUT port 1 - @gen_port (so
    generator port @gen_port sends), the DUT's out of its port 0."""
    tag = "p%d" % gen_port
    plain, plain6 = ses.path(tag + ".plain"), ses.path(tag + "-6.plain")
    with open(plain, "w") as f:
        f.writelines("%s %d\n" % (n, 1 - gen_port) for n in nets)
    with open(plain6, "w") as f:
        f.writelines("%s %d\n" % (n, 1 - gen_port) for n in nets6)
    conf = ses.path(tag + ".conf")
    with open(conf, "w") as f:
        for p in (0, 1):
            f.write("port %d address %s\n" % (p, fb.DUT_ADDR[p]))
            f.write("port %d address %s\n" % (p, fb.DUT_ADDR6[p]))
        f.write("neigh add %s lladdr %s port 0\n" % (fb.GW[0], fb.GEN_MAC[0]))
        f.write("neigh add %s lladdr %s port 0\n" % (fb.GW6[0], fb.GEN_MAC[0]))
        f.writelines("route add %s via %s\n" % (n, fb.GW[0]) for n in nets)
        f.writelines("route add %s via %s\n" % (n, fb.GW6[0]) for n in nets6)
    gen = fb.Generator(ses, 1, plain, 1, 512, NROUTES, routes6_plain=plain6)
    dut = fb.FastrouteDut(ses, 0, gen, conf, 1024, name="fastroute-" + tag)
    dut.wait_ready(60)
    gen.wait_pair_up(0, 20)
    dut.begin()
    for name, profile in (("IPv4", "1kflows"), ("IPv6", "random6")):
        check("%s, port %d sending" % (name, gen_port),
              gen.run(0, profile, 64, 0.2, 0.5, rate=RATE_MPPS, mode="trial", routed=True),
              gen_port)
    dut.end()
    dut.stop()
    gen.quit()


def main():
    if os.geteuid() != 0:
        print("SKIP: trial ports: needs root (memif, DPDK)")
        sys.exit(77)

    def on_signal(sig, frame):  # run.sh's deadline or ^C: clean up, as fastbench does
        raise KeyboardInterrupt("signal %d" % sig)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    ses = fb.Session()
    gens = []
    try:
        fb.check_tools()
        plain, plain6 = ses.path("routes.plain"), ses.path("routes6.plain")
        gens = [fb.gen_tables(NROUTES, 1, [("plain", plain, "")]),
                fb.gen_tables(NROUTES, 1, [("plain", plain6, "")], ipv6=True)]
        if any(g.wait(60) != 0 for g in gens):
            fail("scripts/gen-routes failed")
        nets = [net for net, _ in fb.read_plain_routes(plain)]
        with open(plain6) as f:
            nets6 = [line.split()[0] for line in f if line.strip() and line[0] != "#"]
        ses.choose_memory(2048)
        for gen_port in (0, 1):
            one_way(ses, nets, nets6, gen_port)
    except fb.BenchError as e:
        fail(str(e))
    finally:
        for g in gens:
            if g.poll() is None:
                g.kill()
        ses.cleanup()
    print("trial ports: frames back on the port that sent them counted apart, as lost")


if __name__ == "__main__":
    main()
