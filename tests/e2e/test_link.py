#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""'port N down' takes the link down with it where the driver can: a tap
port (net_tap, whose kernel interface the router sets down and up) loses
its link on 'port 2 down', in the running router and from the configuration
file at start, and has it back on 'port 2 up'. An af_packet port, whose
driver cannot set its link, still stops forwarding and says why its link
stayed up."""
import json
import os

import frlib
from frlib import check, log, sh

frlib.require_root()

TAP = "frtap%d"


def tap_up(topo, name):
    """Is the router's tap interface administratively up (IFF_UP)?"""
    out = sh(["ip", "-j", "link", "show", name], ns=topo.r)
    return "UP" in json.loads(out)[0]["flags"]


def info(r, port):
    return json.loads(r.cli("show port info %d" % port, json=True))


def port_info(r, port):
    """The one port's object, whatever the JSON wraps it in."""
    o = info(r, port)
    if isinstance(o, dict) and "ports" in o:
        o = o["ports"][0]
    elif isinstance(o, list):
        o = o[0]
    return o


def test_tap_down_up(topo, r, tap):
    check(tap_up(topo, tap), "the tap interface is not up to start with")
    r.cli("port 2 down")
    check(not tap_up(topo, tap), "'port 2 down' left the tap interface up")
    p = port_info(r, 2)
    check(p["admin_down"] and p["link_held_down"] and p["link_set_error"] is None, str(p))
    # the link poll sees it: the link is down, as the peer sees it
    check(frlib.wait_for(lambda: port_info(r, 2).get("link_up") is False, timeout=5),
          "the port's link is not down: %s" % port_info(r, 2))
    check("link set down by 'port N down'" in r.cli("show port info 2"),
          r.cli("show port info 2"))
    r.cli("port 2 up")
    check(tap_up(topo, tap), "'port 2 up' did not bring the tap interface back")
    p = port_info(r, 2)
    check(not p["admin_down"] and not p["link_held_down"], str(p))
    check(frlib.wait_for(lambda: port_info(r, 2).get("link_up") is True, timeout=5),
          "the port's link is not up again: %s" % port_info(r, 2))


def test_af_packet_cannot(topo, r):
    r.cli("port 0 down")
    try:
        p = port_info(r, 0)
        check(p["admin_down"] and p["forwarding_down"] and not p["link_held_down"], str(p))
        check(p["link_set_error"] is not None, "no reason given for the link left up: %s" % p)
        text = r.cli("show port info 0")
        check("left up, the driver cannot set it down" in text and
              "traffic is still dropped" in text, text)
        # forwarding stops all the same: h1 cannot reach h2
        res = sh(["ping", "-c", "2", "-i", "0.2", "-W", "1", frlib.HOST_IP[1]],
                 ns=topo.hosts[0], check=False)
        check(" 0 received" in res, "a ping went through a port taken down:\n" + res)
    finally:
        r.cli("port 0 up")
    p = port_info(r, 0)
    check(not p["admin_down"] and p["link_set_error"] is None, str(p))
    sh(["ping", "-c", "1", "-W", "2", frlib.HOST_IP[1]], ns=topo.hosts[0])


def test_down_from_config(topo):
    tap = TAP % 2
    r = frlib.Router(topo, frlib.base_config() + "port 2 down\n",
                     vdevs=["net_tap1,iface=%s" % tap])
    try:
        check(not tap_up(topo, tap), "the configuration's 'port 2 down' left the link up")
        check(port_info(r, 2)["link_held_down"], str(port_info(r, 2)))
        r.cli("port 2 up")
        check(tap_up(topo, tap), "'port 2 up' did not bring it back")
    finally:
        r.stop()


def main():
    runner = frlib.Runner()
    # net_tap needs the kernel's tun device; without it only the af_packet case runs
    have_tun = os.path.exists("/dev/net/tun")
    if not have_tun:
        log("SKIP tap_down_up, down_from_config: no /dev/net/tun for net_tap")
    with frlib.Topo(hosts=2) as topo:
        tap = TAP % 1
        r = frlib.Router(topo, frlib.base_config(),
                         vdevs=["net_tap0,iface=%s" % tap] if have_tun else [])
        try:
            sh(["ping", "-c", "1", "-W", "2", frlib.HOST_IP[1]], ns=topo.hosts[0])
            if have_tun:
                runner.run("tap_down_up", test_tap_down_up, topo, r, tap)
            runner.run("af_packet_cannot", test_af_packet_cannot, topo, r)
        finally:
            runner.run("clean_stop", r.stop)
        if have_tun:
            runner.run("down_from_config", test_down_from_config, topo)
    runner.exit()


if __name__ == "__main__":
    main()
