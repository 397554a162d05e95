#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The CLI socket as operators and scripts use it: every command answers as
documented (text and JSON), bad commands change nothing, show config
rebuilds the same router, load is all-or-nothing, 200 idle clients and a
1 MiB line neither stall forwarding nor kill the router, a router terminal
nobody reads does not stop the router answering, and dpdk-telemetry.py
reads the /fastroute endpoints."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time

import frlib
from frlib import HOST_IP, ROUTER_IP, check, log, sh

frlib.require_root()

CONFIG = frlib.base_config() + """
route add 10.0.0.0/8 via 198.51.100.2
route add 172.16.0.0/12 via 192.0.2.2 port 0
route add 203.0.113.0/24 blackhole
route add 198.18.0.0/15 dev 1
"""


def cli_fails(r, cmd):
    p = subprocess.run([os.path.join(frlib.BUILD, "app/fastroute-cli"), "-s", r.sock] +
                       cmd.split(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=30)
    return p.returncode, p.stderr


def test_commands(topo, r):
    out = r.cli("show version")
    check(out.startswith("fastroute ") and "DPDK" in out, out)
    out = r.cli("show route")
    for want in ("10.0.0.0/8           unicast      198.51.100.2       1     static",
                 "192.0.2.1/32         local", "198.51.100.0/24      connected",
                 "203.0.113.0/24       blackhole", "255.255.255.255/32   broadcast",
                 # a subnet's network address is a broadcast's, never a host's
                 "192.0.2.0/32         broadcast", "192.0.2.255/32       broadcast",
                 "198.18.0.0/15        connected    -                  1     static"):
        check(want in out, "show route lacks %r:\n%s" % (want, out))
    out = r.cli("show route 10.0.0.0/8")
    check(len(out.splitlines()) == 2 and "198.51.100.2" in out, out)
    out = r.cli("show route lookup 10.200.1.1")
    check("10.0.0.0/8" in out and "198.51.100.2" in out, out)
    # addresses the workers never forward, whatever route matches
    for addr, why in (("127.0.0.1", "martian_dest"), ("fe80::99", "ip6_link_local_scope"),
                      ("ff0e::1", "ip6_multicast"), ("::ffff:10.1.1.1", "ip6_bad_dest")):
        out = r.cli("show route lookup " + addr)
        check("never forwarded (the workers drop it as %s)" % why in out, out)
        v = json.loads(r.cli("show route lookup " + addr, json=True))
        check(v.get("dropped_as") == why, v)
    r.cli("route add 0.0.0.0/0 via 198.51.100.2")
    check("ip4_multicast" in r.cli("show route lookup 224.0.0.5"), "a group by the default")
    r.cli("route del 0.0.0.0/0")
    # the router's own: for it, not a route's
    out = r.cli("show route lookup ff02::1")
    check("never forwarded: for the router, its ICMPv6 (ND, MLD); the workers drop the rest "
          "as ip6_multicast" in out, out)
    v = json.loads(r.cli("show route lookup ff02::1", json=True))
    check(v.get("dropped_as") == "ip6_multicast" and "ICMPv6" in v.get("for_the_router", ""), v)
    out = r.cli("show route lookup 8.8.8.8")
    check("no route" in out, out)
    out = r.cli("show route summary")
    check("routes       13" in out and "/8           1" in out, out)
    out = r.cli("show neigh")
    check("198.51.100.2       1     02:00:00:00:02:02  STATIC" in out, out)
    # a static entry has no timer: '-', JSON null
    check([l.split()[-1] for l in out.splitlines() if l.startswith("198.51.100.2 ")] == ["-"],
          out)
    check([e["timer_ms"] for e in json.loads(r.cli("show neigh", json=True))
           if e["address"] == "198.51.100.2"] == [None], "a static entry's timer_ms")
    out = r.cli("show port info all")
    check("port 0 (net_af_packet0)" in out and "address 192.0.2.1/24" in out and
          "mac 02:00:00:00:01:01" in out, out)
    out = r.cli("show port stats 1")
    check("port 1 (net_af_packet1)" in out and "rx_packets" in out and "xstats:" in out and
          "port 0" not in out, out)
    out = r.cli("show stats lcores")
    check(out.splitlines()[0].split()[1:] == ["lcore1", "total"], out)
    out = r.cli("show memory")
    check("socket0_in_use" in out and "routes" in out, out)
    # both families' routes
    r.cli("route add 2001:db8:aa::/48 blackhole")
    mem = json.loads(r.cli("show memory", json=True))["tables"]
    r.cli("route del 2001:db8:aa::/48")
    check(mem["routes6"] >= 1 and mem["routes"] >= 4, "show memory tables: %s" % mem)
    out = r.cli("help")
    check("route add PREFIX via GW" in out and "show config" in out, out)
    out = r.cli("help show route")
    check("show route lookup ADDR" in out and "neigh add" not in out, out)

    # changes, and what they change
    r.cli("route add 10.1.0.0/16 via 192.0.2.2")
    check("192.0.2.2" in r.cli("show route lookup 10.1.2.3"), "route add had no effect")
    r.cli("route replace 10.1.0.0/16 blackhole")
    check("blackhole" in r.cli("show route lookup 10.1.2.3"), "route replace had no effect")
    r.cli("route del 10.1.0.0/16")
    check("198.51.100.2" in r.cli("show route lookup 10.1.2.3"), "route del had no effect")
    r.cli("neigh add 192.0.2.77 lladdr 02:00:00:00:00:77 port 0")
    check("02:00:00:00:00:77" in r.cli("show neigh"), "neigh add had no effect")
    r.cli("neigh del 192.0.2.77 port 0")
    check("192.0.2.77" not in r.cli("show neigh"), "neigh del had no effect")
    r.cli("port 0 address add 192.0.3.1/24")
    check("192.0.3.0/24" in r.cli("show route") and
          "address 192.0.3.1/24" in r.cli("show port info 0"), "port address add")
    r.cli("port 0 address del 192.0.3.1/24")
    check("192.0.3.0/24" not in r.cli("show route"), "port address del left routes")

    # counters, and clearing them
    sh(["ping", "-c", "5", "-i", "0.2", "-W", "2", HOST_IP[1]], ns=topo.hosts[0])
    st0 = r.stats()
    check(st0["forwarded"] >= 10, "no forwarding counted")
    ports0 = json.loads(r.cli("show port stats 0", json=True))
    check(ports0[0]["rx_packets"] >= 5, "port 0 counted no packets: %s" % ports0)
    r.cli("clear stats")
    # what the hosts send between the clear and the read (ARP, IPv6 ND,
    # MLD) counts again: fewer than before the clear, unless it did nothing
    st = r.stats()
    check(st["forwarded"] == 0 and st["rx"] < st0["rx"],
          "clear stats left %s (before: rx %d)" % (st, st0["rx"]))
    # the devices' counters too, as 'clear counters' does on a router
    ports = json.loads(r.cli("show port stats 0", json=True))
    check(ports[0]["rx_packets"] < ports0[0]["rx_packets"],
          "clear stats left the device's: %s (before: rx_packets %d)" %
          (ports, ports0[0]["rx_packets"]))
    good0 = ports0[0]["xstats"].get("rx_good_packets")
    good = ports[0]["xstats"].get("rx_good_packets")
    check(good0 is None or (good is not None and good < good0),
          "clear stats left the device's xstats: %s (before: rx_good_packets %s)" %
          (ports[0]["xstats"], good0))
    # and they count on from there: 3 more echo requests in on port 0 and
    # out of port 1
    tx1 = json.loads(r.cli("show port stats 1", json=True))[0]["tx_packets"]
    sh(["ping", "-c", "3", "-i", "0.2", "-W", "2", HOST_IP[1]], ns=topo.hosts[0])
    after = json.loads(r.cli("show port stats all", json=True))
    check(after[0]["rx_packets"] >= ports[0]["rx_packets"] + 3 and
          after[1]["tx_packets"] >= tx1 + 3,
          "the devices' counters after clear stats did not count on: port 0 rx %d then "
          "%d, port 1 tx %d then %d" % (ports[0]["rx_packets"], after[0]["rx_packets"],
                                        tx1, after[1]["tx_packets"]))

    # quit ends the session, not the router
    (ok, body), = r.raw(["quit"])
    check(ok, body)
    check(r.p.poll() is None, "quit stopped the router")


def test_json(topo, r):
    for cmd in ("show route", "show route lookup 10.1.1.1", "show route summary", "show neigh",
                "show stats", "show stats lcores", "show port info all", "show port stats 0",
                "show memory", "show version", "show route 10.0.0.0/8", "show config",
                "show rtcache stats", "show neigh stats", "show route summary"):
        out = r.cli(cmd, json=True)
        try:
            v = json.loads(out)
        except ValueError as e:
            raise AssertionError("%s -j: not JSON (%s): %r" % (cmd, e, out[:200]))
        check(v is not None, cmd)
    # 'json' names no command: an error, with or without a blank after
    # it (once the blank made it the empty line's silent OK)
    lines = ("json", "json ", "json  show version", "json\tshow version", " json show version")
    for (ok, body), line in zip(r.raw(list(lines)), lines):
        if line.endswith("version"):
            check(ok and json.loads(body)["fastroute"], "%r: %s" % (line, body))
        else:
            check(not ok and "json needs a command" in body, "%r: %s" % (line, body))
    # fastroute-cli -j reading commands: a blank line is the empty OK it is
    # without -j, not 'json' alone (an error, exit 1)
    p = subprocess.run([os.path.join(frlib.BUILD, "app/fastroute-cli"), "-s", r.sock, "-j"],
                       input="show version\n\n \t\nshow version\n", stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=30)
    check(p.returncode == 0 and p.stdout.count('"fastroute"') == 2 and not p.stderr,
          "fastroute-cli -j with blank lines: exit %d, %r, %r" % (p.returncode, p.stdout,
                                                                 p.stderr))
    # the config file, a line a string
    v = json.loads(r.cli("show config", json=True))
    check(v["lines"] == r.cli("show config").splitlines(), v)
    v = json.loads(r.cli("show route lookup 10.1.1.1", json=True))
    check(v["route"]["gateway"] == "198.51.100.2" and v["route"]["port"] == 1, v)
    v = json.loads(r.cli("show stats", json=True))
    check("no_route" in v["drops"] and v["workers"] == 1, v)
    # per lcore, a row per counter with a value per worker, and the totals
    # the text's last column gives; the load's figures are there per lcore
    lc = json.loads(r.cli("show stats lcores", json=True))
    check(lc["lcores"] == [1], "one worker, lcore 1: %s" % lc["lcores"])
    for name in ("rx", "idle_polls", "forwarded", "dropped", "icmp_queued", "no_route",
                 "blackhole"):
        check(name in lc and len(lc[name]) == 1 and name in lc["total"],
              "show stats lcores lacks %s: %s" % (name, lc))
    # what they count: packets the test sends to a blackhole route
    sc = frlib.scapy()
    lst = frlib.Listen(topo, 1)
    try:
        frlib.l2send(topo, [frlib.udp(sc, 0, "203.0.113.9")] * 3)
        fwd = lst.collect(timeout=0.5, match=lambda p: p.haslayer(sc.UDP))
    finally:
        lst.close()
    check(not fwd, "a packet to the blackhole route left by port 1")
    lc1 = frlib.wait_for(lambda: (lambda v: v if v["total"]["blackhole"] >=
                                  lc["total"]["blackhole"] + 3 else None)(
        json.loads(r.cli("show stats lcores", json=True))), timeout=3) or \
        json.loads(r.cli("show stats lcores", json=True))
    for name, want in (("blackhole", 3), ("dropped", 3), ("forwarded", 0)):
        got = (lc1[name][0] - lc[name][0], lc1["total"][name] - lc["total"][name])
        check(got == (want, want), "%s rose by %d on lcore 1, %d in total, for 3 packets sent "
              "to a blackhole route, want %d" % (name, got[0], got[1], want))


def test_bad_commands_change_nothing(topo, r):
    before = r.cli("show config")
    gen = json.loads(r.cli("show route summary", json=True))["generation"]
    for cmd, msg in [("route add 10.0.0.0/8 blackhole", "route 10.0.0.0/8 exists"),
                     ("route add 10.1.0.0/8 blackhole", "not a canonical prefix"),
                     ("route del 11.0.0.0/8", "no route 11.0.0.0/8"),
                     ("route add 11.0.0.0/8 via 8.8.8.8", "not on a connected network"),
                     ("neigh add 192.0.2.9 lladdr zz port 0", "bad MAC address 'zz'"),
                     ("port 7 address add 1.2.3.4/24", "port 7 does not exist"),
                     ("route frob", "unknown 'frob' after 'route'"),
                     ("show bogus", "unknown 'bogus' after 'show'"),
                     ("route del 192.0.2.0/24", "installed by a port address"),
                     ("load /nonexistent.conf", "No such file")]:
        rc, err = cli_fails(r, cmd)
        check(rc == 1, "'%s' exited %d, want 1" % (cmd, rc))
        check(msg in err, "'%s': error %r lacks %r" % (cmd, err, msg))
    check(r.cli("show config") == before, "a failed command changed the configuration")
    g2 = json.loads(r.cli("show route summary", json=True))["generation"]
    check(g2 == gen, "FIB generation moved from %d to %d" % (gen, g2))


def test_load_all_or_nothing(topo, r):
    d = frlib.tmpdir()
    good = os.path.join(d, "good.conf")
    bad = os.path.join(d, "bad.conf")
    with open(good, "w") as f:
        f.write("".join("route add 10.%d.%d.0/24 via 198.51.100.2\n" % (i // 256, i % 256)
                        for i in range(500)))
    with open(bad, "w") as f:
        f.write("".join("route add 11.%d.%d.0/24 via 198.51.100.2\n" % (i // 256, i % 256)
                        for i in range(500)))
        f.write("route add 12.0.0.0/8 via 9.9.9.9\n")
    before = r.cli("show config")
    rc, err = cli_fails(r, "load " + bad)
    check(rc == 1 and "%s:501: gateway 9.9.9.9" % bad in err, err)
    check(r.cli("show config") == before, "a failed load changed the configuration")
    gen0 = json.loads(r.cli("show route summary", json=True))["generation"]
    out = r.cli("load " + good)
    check("loaded" in out, out)
    check("10.1.243.0/24" in r.cli("show route 10.1.243.0/24"), "load applied nothing")
    gen1 = json.loads(r.cli("show route summary", json=True))["generation"]
    # each route a generation of its own, as the tables have it at once
    # (a flow the route cache holds sees each change at once too)
    check(gen1 - gen0 >= 500, "a 500-line load took %d generations, want 500" % (gen1 - gen0))
    with open(good.replace("good", "undo"), "w") as f:
        f.write("".join("route del 10.%d.%d.0/24\n" % (i // 256, i % 256) for i in range(500)))
    r.cli("load " + good.replace("good", "undo"))
    check(r.cli("show config") == before, "undo load did not restore the configuration")
    shutil.rmtree(d)


def test_config_roundtrip(topo, r):
    r.cli("route add 100.64.0.0/10 prohibit")
    r.cli("route add 192.88.99.0/24 unreachable")
    r.cli("port 1 address add 192.168.7.1/24")
    r.cli("port 1 hold-time down 700")
    conf = r.cli("show config")
    check("port 1 hold-time up 0 down 700" in conf, conf)
    r.cli("port 1 address del 192.168.7.1/24")
    r.cli("port 1 hold-time up 0")
    r2 = frlib.Router(topo, conf, sock=r.sock + "2")
    try:
        conf2 = r2.cli("show config")
        check(conf == conf2, "show config differs after reload:\n%s\n---\n%s" % (conf, conf2))
        check(r.cli("show route").count("\n") <= r2.cli("show route").count("\n"),
              "route tables differ")
        # both tables, side by side, minus the address only r had
        routes2 = r2.cli("show route")
        for line in r.cli("show route").splitlines():
            check(line in routes2, "route missing after reload: " + line)
    finally:
        r2.stop()
    # the same text loaded into a router that started with nothing (its
    # 'rtcache size' line names the size the router has: accepted)
    r3 = frlib.Router(topo, "", sock=r.sock + "3")
    try:
        with open(os.path.join(r3.dir, "saved.conf"), "w") as f:
            f.write(conf)
        out = r3.cli("load " + os.path.join(r3.dir, "saved.conf"))
        check("loaded" in out, out)
        conf3 = r3.cli("show config")
        check(conf == conf3, "show config differs after load:\n%s\n---\n%s" % (conf, conf3))
        rc, err = cli_fails(r3, "rtcache size 100")
        check(rc == 1 and "fixed at startup at 65536" in err and "put 128" in err, err)
    finally:
        r3.stop()


def test_configure_replace(topo, r):
    """configure replace under traffic: h1 pings h2 through the whole of
    two replaces (to a file with 5,000 more routes and one less, then back
    to the router's own show config); the addresses, neighbours and routes
    the files keep never leave the tables, so not one ping is lost, and
    the router ends as it began."""
    d, before, orig, new = frlib.config_pair(r, lambda c: "".join(
        x + "\n" for x in c.splitlines() if not x.startswith("route add 10.0.0.0/8 ")) +
        "".join("route add 100.%d.%d.0/24 via 198.51.100.2\n" % (64 + i // 256, i % 256)
                for i in range(5000)))
    # pinging from before the first replace until after the second
    # (stopped then: its summary covers both, however long they took)
    ping = subprocess.Popen(["ip", "netns", "exec", topo.hosts[0], "ping", "-i", "0.01", "-W",
                             "1", "-w", "120", HOST_IP[1]], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(0.3)
        out = r.cli("configure replace " + new)
        check("; 1 removed" in out and ", 5000 applied;" in out, out)
        check("10.0.0.0/8" not in r.cli("show config") and
              "100.83.135.0/24" in r.cli("show route 100.83.135.0/24"),
              "the new file not in force")
        out = r.cli("configure replace " + orig)
        check(", 1 applied; 5000 removed" in out and " 0 settings" in out, out)
        time.sleep(0.3)
        check(ping.poll() is None, "the ping ended before the replaces did")
    finally:
        ping.send_signal(signal.SIGINT)
        summary = ping.communicate(timeout=10)[0]
    # every one answered but, perhaps, the last, still on its way at the
    # signal
    m = re.search(r"(\d+) packets transmitted", summary)
    sent = int(m.group(1)) if m else 0
    seqs = {int(x) for x in re.findall(r"icmp_seq=(\d+) ", summary)}
    check(sent >= 30 and set(range(1, sent)) <= seqs,
          "pings lost across the replaces (%s not answered):\n%s" % (
              sorted(set(range(1, sent)) - seqs)[:20], summary[-300:]))
    check(r.cli("show config") == before, "not back to the configuration it began with")
    shutil.rmtree(d)


def raw_exchange(r, data, until=None, shut=False):
    """Send bytes as they are over the CLI socket (shut: then end the
    sending side); what comes back until @until is in it, or the end."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(r.sock)
    s.settimeout(10)
    s.sendall(data)
    if shut:
        s.shutdown(socket.SHUT_WR)
    got = b""
    while until is None or until not in got:
        b = s.recv(4096)
        if not b:
            break
        got += b
    s.close()
    return got


def test_idle_clients_and_huge_line(topo, r):
    clients = []
    try:
        for _ in range(200):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(r.sock)
            clients.append(s)
        out = sh(["ping", "-c", "20", "-i", "0.05", "-W", "1", HOST_IP[1]], ns=topo.hosts[0])
        check("20 received" in out, "pings lost with 200 idle clients:\n" + out)
        check("fastroute" in r.cli("show version"), "CLI stalled with 200 idle clients")
    finally:
        for s in clients:
            s.close()
    # a 1 MiB line: an error, then the connection is closed
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(r.sock)
    s.settimeout(10)
    sent = 0
    chunk = b"x" * 65536
    try:
        while sent < (1 << 20):
            sent += s.send(chunk)
    except (BrokenPipeError, ConnectionResetError, socket.timeout):
        pass
    data = b""
    try:
        while True:
            b = s.recv(4096)
            if not b:
                break
            data += b
    except (ConnectionResetError, socket.timeout):
        pass
    s.close()
    check(data.startswith(b"ERR ") and b"4095 bytes or more" in data,
          "no error for a 1 MiB line: %r" % data[:100])
    check(r.p.poll() is None, "router died on a 1 MiB line")
    out = sh(["ping", "-c", "3", "-i", "0.2", "-W", "1", HOST_IP[1]], ns=topo.hosts[0])
    check("3 received" in out, "forwarding broken after the 1 MiB line")
    check("fastroute" in r.cli("show version"), "CLI broken after the 1 MiB line")
    # a NUL would cut the line short and run another command than the one
    # sent; control bytes are no command's: refused, nothing run
    data = raw_exchange(r, b"route add 10.77.0.0/16 blackhole\0 via 192.0.2.99\n"
                        b"show version\n", until=b"DPDK")
    check(data.startswith(b"ERR ") and b"control byte 0x00" in data,
          "a line with a NUL: %r" % data[:120])
    check("10.77.0.0/16" not in r.cli("show route"), "the line cut at its NUL ran")
    # a last line without its newline, the sending side then closed: answered
    data = raw_exchange(r, b"show version", shut=True)
    check(data.startswith(b"OK ") and b"fastroute" in data,
          "a last line without its newline went unanswered: %r" % data[:100])
    # but such a line may have been cut short ('port 0 mtu 150' of 1500,
    # a dropped ssh session): a change is not run from it, the lines
    # before it are
    mtu = r.port_info(0)["mtu"]
    data = raw_exchange(r, b"route add 10.78.0.0/16 blackhole\nport 0 mtu 150", shut=True)
    check(data.startswith(b"OK 0\nERR ") and b"cut short?" in data,
          "a change on a last line without its newline: %r" % data[:200])
    check("10.78.0.0/16" in r.cli("show route") and r.port_info(0)["mtu"] == mtu,
          "the lines before it not run, or the cut line run: MTU %s" % r.port_info(0)["mtu"])
    r.cli("route del 10.78.0.0/16")
    # fastroute-cli reading standard input: the same (a show answered, exit
    # 0; a change refused, exit 1)
    cli = [os.path.join(frlib.BUILD, "app/fastroute-cli"), "-s", r.sock]
    p = subprocess.run(cli, input="show version", stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=10)
    check(p.returncode == 0 and "fastroute" in p.stdout,
          "fastroute-cli, a show without its newline: exit %d, %r, %r" %
          (p.returncode, p.stdout, p.stderr))
    p = subprocess.run(cli, input="port 0 mtu 150", stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=10)
    check(p.returncode == 1 and "cut short?" in p.stdout + p.stderr and
          r.port_info(0)["mtu"] == mtu,
          "fastroute-cli, a change without its newline: exit %d, %r, %r, MTU %s" %
          (p.returncode, p.stdout, p.stderr, r.port_info(0)["mtu"]))


def test_telemetry(topo, r):
    tool = shutil.which("dpdk-telemetry.py")
    if tool is None:
        raise AssertionError("dpdk-telemetry.py not installed (Debian's dpdk-dev)")
    r.cli("route add 2001:db8:ab::/48 blackhole")
    # counters that are not zero and then stand still: 3 packets to no
    # route, 2 into a blackhole (values telemetry must give as they are)
    sc = frlib.scapy()
    before = r.stats()
    frlib.l2send(topo, [frlib.udp(sc, 0, "192.31.196.1")] * 3 +
                 [frlib.udp(sc, 0, "203.0.113.5")] * 2)
    shown = frlib.wait_for(lambda: (lambda st: st if frlib.delta(before, st, "no_route") == 3 and
                                    frlib.delta(before, st, "blackhole") == 2 else None)(
        r.stats()), timeout=5)
    check(shown is not None, "the 5 packets were not counted as no_route and blackhole")
    p = subprocess.run(["/usr/bin/python3", tool, "-f", r.prefix], input="/fastroute/stats\n"
                       "/fastroute/routes\n/fastroute/neigh\n/fastroute/fib\n",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
    r.cli("route del 2001:db8:ab::/48")
    replies = []
    for line in p.stdout.splitlines():
        line = line.strip().lstrip("-->").strip()
        if line.startswith("{"):
            replies.append(json.loads(line))
    byname = {}
    for rep in replies:
        byname.update(rep)
    check("/fastroute/stats" in byname and "rx" in byname["/fastroute/stats"] and
          "no_route" in byname["/fastroute/stats"], "telemetry stats: %s" % p.stdout[-500:])
    # every counter 'show stats' shows, telemetry gives too, with the same
    # value where it did not move: the same before the telemetry reads and
    # after them (the kernel hosts' ND and MLD may move some meanwhile)
    tel = byname.get("/fastroute/stats", {})
    after = r.stats()
    missing = sorted(set(after) - set(tel))
    check(not missing, "telemetry lacks %s" % missing)
    # (a drop reason shows once it is not zero: one may appear between)
    still = [n for n in after if n in shown and shown[n] == after[n]]
    frlib.log("     telemetry: %d of %d counters stood still, all equal" % (len(still), len(after)))
    check(len(still) >= 0.8 * len(after), "only %d of %d counters stood still" %
          (len(still), len(after)))
    differ = ["%s: telemetry %s, show stats %s" % (n, tel[n], after[n]) for n in still
              if tel[n] != after[n]]
    check(not differ, "telemetry and show stats differ: %s" % differ[:5])
    shown = after
    for name in ("icmp_ring_full", "icmp_unreach_host", "ctrl_too_big", "port0_strict",
                 "workers", "dropped"):
        check(name in tel, "telemetry lacks %s" % name)
    for name in ("no_route", "blackhole"):
        check(tel[name] == shown[name] and tel[name] > 0, "%s: telemetry %d, show stats %d" %
              (name, tel[name], shown[name]))
    check(byname.get("/fastroute/routes", {}).get("routes", 0) >= 9, str(byname))
    check(byname.get("/fastroute/neigh", {}).get("entries") == 2, str(byname))
    # and every neighbour counter of show neigh stats
    ns = json.loads(r.cli("show neigh stats", json=True))
    want = set(ns["table"]) | set(ns["counters"])
    missing = sorted(want - set(byname.get("/fastroute/neigh", {})))
    check(not missing, "telemetry /fastroute/neigh lacks %s" % missing)
    check(byname.get("/fastroute/routes", {}).get("len6_48") == 1,
          "telemetry routes lack the IPv6 lengths: %s" % byname.get("/fastroute/routes"))
    check(byname.get("/fastroute/fib", {}).get("backend") == "fib", str(byname))


def test_answers_kept_bounded(topo, r):
    """Clients that ask for big answers and never read them: the router
    keeps at most 256 MiB of answers waiting; past that a big answer is an
    error (the show ran, nothing changed), a small one is still given, and
    once those clients go the big answers come back."""
    import tempfile
    n = 50000  # the test router holds 65,536 routes
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
        for i in range(n):
            f.write("route add %d.%d.%d.0/24 via 198.51.100.2\n" %
                    (10 + (i >> 16), (i >> 8) & 255, i & 255))
        add = f.name
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
        for i in range(n):
            f.write("route del %d.%d.%d.0/24\n" % (10 + (i >> 16), (i >> 8) & 255, i & 255))
        dele = f.name
    clients = []

    def ask(cmd, read=True):
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(r.sock)
        # an ASan build makes a 50,000-route answer in about 0.6 s, and
        # in several times that beside another suite: a hung router
        # still fails the test, a slow one does not
        c.settimeout(60)
        c.sendall(cmd)
        if not read:
            clients.append(c)
            return b""
        data = c.recv(65536)
        c.close()
        return data

    try:
        r.cli("load " + add)
        first = ask(b"json show route\n")
        check(first.startswith(b"OK "), "json show route: %r" % first[:80])
        size = int(first.split(b"\n", 1)[0].split()[1])
        # clients that ask and never read, until one is refused: not before
        # 256 MiB of answers wait (what the sockets took of them aside)
        late = b""
        t0 = time.time()
        for _ in range(2 * (256 << 20) // size + 8):
            ask(b"json show route\n", read=False)
            head = clients[-1].recv(64, socket.MSG_PEEK)  # its answer begins
            if head.startswith(b"ERR "):
                late = clients.pop().recv(65536)
                break
            if time.time() - t0 > 35:  # the first is let go by now (below)
                break
        if not late and time.time() - t0 > 30:
            # a slow build (ASan: about 0.6 s an answer) takes longer than
            # the 30 s a client may leave its answer unread: the router lets
            # go of the first ones before 256 MiB wait, a bound as well.
            # The first client's answer ends short of its size
            got, c = b"", clients.pop(0)
            c.settimeout(5)
            while True:
                b = c.recv(1 << 20)
                if not b:
                    break
                got += b
            c.close()
            log("answers_kept_bounded: %d answers took %.0f s; the 30 s limit let go of "
                "the first (%d of %d bytes)" % (len(clients) + 1, time.time() - t0, len(got),
                                                size))
            check(len(got) < size, "an answer left unread for %.0f s was kept whole" %
                  (time.time() - t0))
        else:
            check(late.startswith(b"ERR ") and b"is not kept" in late and
                  len(clients) >= (256 << 20) // size,
                  "%d big answers waiting (%d MiB), then %r" %
                  (len(clients), len(clients) * size >> 20, late[:160]))
        check(frlib.wait_for(lambda: "fastroute" in r.cli("show version"), timeout=30),
              "small answers refused while big ones wait")
        for c in clients:
            c.close()
        clients = []
        # the closed clients' answers are let go as the router sees them go
        again = frlib.wait_for(lambda: (lambda d: d if d.startswith(b"OK ") else None)(
            ask(b"json show route\n")), timeout=20)
        check(again is not None, "big answers still refused after the waiting clients went")
    finally:
        for c in clients:
            c.close()
        r.cli("load " + dele, check=False)
        os.unlink(add)
        os.unlink(dele)


def test_slow_terminal(topo):
    """An answer the router's own terminal cannot take yet (a slow remote
    session, or output stopped with Ctrl-S) must not stall the control
    thread: here nobody reads the terminal while 'show route' prints 6,000
    routes, and the router keeps answering ARP and pings meanwhile; the
    whole answer arrives once the terminal is read."""
    n = 6000
    routes = "".join("route add 10.%d.%d.0/24 via 198.51.100.2\n" % (i >> 8, i & 255)
                     for i in range(n))
    r = frlib.Router(topo, frlib.base_config() + routes, tty=True)
    try:
        r.tty_read(0.5)
        check("fastroute> " in r.stdout(), "no prompt on the router's terminal:\n" +
              r.stdout()[-500:])
        r.tty_write("show route\r")
        # the answer (about 500 KB) fills the terminal's buffers, and stays
        time.sleep(1)
        out = sh(["ping", "-c", "5", "-i", "0.2", "-W", "2", ROUTER_IP[0]],
                 ns=topo.hosts[0], check=False)
        check(" 5 received" in out, "the router stopped answering while its terminal "
              "was full:\n" + out)
        text = ""
        end = time.time() + 30
        while time.time() < end and "fastroute> " not in text.split("show route", 1)[-1]:
            text += r.tty_read(0.5)
        got = sum(1 for line in text.splitlines()
                  if line.startswith("10.") and "198.51.100.2" in line)
        check(got == n, "the terminal got %d of the %d routes" % (got, n))
    finally:
        r.stop()


def test_stopped_terminal(topo):
    """Output stopped with Ctrl-S, then keys typed: the echo the terminal
    cannot take must not block the control thread (it answers pings and
    the socket's clients meanwhile); once output resumes, the typed line
    runs. A line longer than the terminal keeps is refused, not cut."""
    r = frlib.Router(topo, frlib.base_config(), tty=True)
    try:
        r.tty_read(0.5)
        r.tty_write("\x13")  # Ctrl-S: the terminal takes no more output
        time.sleep(0.2)
        r.tty_write("show version")  # echoed a key at a time
        time.sleep(0.3)
        out = sh(["ping", "-c", "3", "-i", "0.2", "-W", "2", ROUTER_IP[0]],
                 ns=topo.hosts[0], check=False)
        check(" 3 received" in out, "the router stopped answering after keys were typed "
              "on its stopped terminal:\n" + out)
        check("fastroute" in r.cli("show version"), "the socket's client got no answer")

        def typed(keys, until):
            # what the terminal shows within 5 s of @keys, up to @until
            r.tty_write(keys)
            text = ""
            end = time.time() + 5
            while time.time() < end and until not in text:
                text += r.tty_read(0.3)
            return text

        text = typed("\x11\r", "DPDK")  # Ctrl-Q, then the line runs
        check("DPDK" in text, "the typed line did not run once output resumed:\n" + text[-300:])
        # a line past what the terminal keeps (512 bytes): refused whole,
        # not run without the words it dropped (here 'port 0': the route
        # would go by port 1); the same with the cursor moved to its start
        # (Ctrl-A) before Enter
        for end_keys, how in (("\r", "a line past the terminal's 512 bytes"),
                              ("\x01\r", "a long line entered with the cursor at its start")):
            text = typed("route add 64.0.0.0/8 via 198.51.100.2" + " " * 480 + "port 0" + end_keys,
                         "not run")
            check("fills this terminal" in text and "not run" in text,
                  "no error for %s:\n%s" % (how, text[-300:]))
            check("64.0.0.0/8" not in r.cli("show route"), "a line cut short by the terminal ran")
        # and the terminal still runs lines
        r.tty_write("route add 64.0.0.0/8 via 198.51.100.2 port 1\r")
        check(frlib.wait_for(lambda: "64.0.0.0/8" in r.cli("show route"), timeout=5),
              "the terminal ran no line after the long one")
    finally:
        r.stop()


def test_port_rates(topo, r):
    """show port stats gives each port's packets and bits a second over the
    last second: under ping's 100 frames a second of 1014 bytes from h1
    to h2, port 0 receives and port 1 sends about that many, of that size
    (the bits are 8 times the bytes); once it stops, the rates fall to
    nothing."""
    def rates():
        return {p["port"]: p for p in json.loads(r.cli("show port stats all", json=True))}

    ping = subprocess.Popen(["ip", "netns", "exec", topo.hosts[0], "ping", "-q", "-c", "260",
                             "-i", "0.01", "-s", "972", "-W", "2", HOST_IP[1]],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(2.2)  # a whole second of readings under the pings
        now = rates()
        text = r.cli("show port stats 0")
    finally:
        out, _ = ping.communicate(timeout=30)
    check(ping.returncode == 0, "ping failed:\n%s" % out)
    check(all(now[p]["rates_known"] for p in (0, 1)), "no rates: %s" % now)
    check("rx_pps" in text and "tx_bps" in text, text)
    for port, d in ((0, "rx"), (1, "tx")):
        pps, bps = now[port][d + "_pps"], now[port][d + "_bps"]
        # ping's pace, loosely: a loaded machine may hold it back
        check(30 <= pps <= 150, "port %d %s_pps %d under 100 pings a second" % (port, d, pps))
        size = bps / 8.0 / pps
        check(990 <= size <= 1030, "port %d: %s_bps %d for %d packets a second: %.1f bytes "
              "a frame, want about 1014" % (port, d, bps, pps, size))
    # the replies come back the other way at the same pace
    check(abs(now[1]["rx_pps"] - now[0]["tx_pps"]) <= 0.2 * now[0]["tx_pps"] + 2,
          "port 1 rx_pps %d against port 0 tx_pps %d" % (now[1]["rx_pps"], now[0]["tx_pps"]))
    quiet = frlib.wait_for(lambda: rates()[0]["rx_pps"] <= 2, timeout=4.0)
    check(quiet, "port 0's rx_pps stayed at %d after the pings" % rates()[0]["rx_pps"])


def main():
    runner = frlib.Runner()
    with frlib.Topo(hosts=2) as topo:
        r = frlib.Router(topo, CONFIG)
        try:
            for name, fn in [("commands", test_commands), ("json", test_json),
                             ("bad_commands_change_nothing", test_bad_commands_change_nothing),
                             ("load_all_or_nothing", test_load_all_or_nothing),
                             ("config_roundtrip", test_config_roundtrip),
                             ("configure_replace", test_configure_replace),
                             ("idle_clients_and_1MiB_line", test_idle_clients_and_huge_line),
                             ("answers_kept_bounded", test_answers_kept_bounded),
                             ("port_rates", test_port_rates),
                             ("telemetry", test_telemetry)]:
                runner.run(name, fn, topo, r)
        finally:
            runner.run("clean_stop", r.stop)
        # a router of its own, its terminal a pty (the ports are the topology's)
        runner.run("slow_terminal", test_slow_terminal, topo)
        runner.run("stopped_terminal_echo", test_stopped_terminal, topo)
    runner.exit()


if __name__ == "__main__":
    main()
