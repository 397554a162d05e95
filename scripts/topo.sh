#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Demo topology: namespaces NAME-r (router), NAME-h1, NAME-h2 joined by veth.
#   h1 eth0 192.0.2.2    --- p0 [router ns] p1 --- eth0 198.51.100.2 h2
#           2001:db8:1::2                              2001:db8:2::2
#   scripts/topo.sh up NAME | down NAME
# MACs are fixed, so a capture of the demo reads the same every run (the
# router still finds the hosts with ARP and ND: demo.conf has no neighbours).
set -eu
case "${1:-}" in
-h | --help)
	echo "usage: scripts/topo.sh up|down NAME: make (or remove) the namespaces NAME-r,"
	echo "NAME-h1, NAME-h2 and their veth links drawn at the top of this file"
	exit 0
	;;
esac
if [ $# -ne 2 ]; then
	echo "usage: topo.sh up|down NAME" >&2
	exit 2
fi
cmd=$1
n=$2

down() {
	for ns in "$n-r" "$n-h1" "$n-h2"; do
		# a router left by a killed demo holds its DPDK prefix and socket
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
}

up() {
	down
	ip netns add "$n-r"
	ip netns exec "$n-r" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$n-r" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	i=0
	for h in h1 h2; do
		i=$((i + 1))
		ip netns add "$n-$h"
		ip -n "$n-r" link add "p$((i - 1))" type veth peer name eth0 netns "$n-$h"
		ip -n "$n-r" link set "p$((i - 1))" address "02:00:00:00:0$i:01"
		ip -n "$n-$h" link set eth0 address "02:00:00:00:0$i:02"
		# veth offloads off, or kernel hosts send unfinished checksums
		ip netns exec "$n-r" ethtool -K "p$((i - 1))" tx off tso off gso off gro off rx off \
			>/dev/null 2>&1 || true
		ip netns exec "$n-$h" ethtool -K eth0 tx off tso off gso off gro off rx off \
			>/dev/null 2>&1 || true
		# dual stack hosts: no DAD wait, no autoconfiguration from RAs
		for k in accept_dad=0 accept_ra=0 autoconf=0; do
			ip netns exec "$n-$h" sysctl -qw "net.ipv6.conf.all.$k"
			ip netns exec "$n-$h" sysctl -qw "net.ipv6.conf.default.$k"
		done
		ip -n "$n-r" link set "p$((i - 1))" up
		ip -n "$n-$h" link set lo up
		ip -n "$n-$h" link set eth0 up
	done
	ip -n "$n-h1" addr add 192.0.2.2/24 dev eth0
	ip -n "$n-h1" route add default via 192.0.2.1
	ip -n "$n-h2" addr add 198.51.100.2/24 dev eth0
	ip -n "$n-h2" route add default via 198.51.100.1
	ip -n "$n-h1" -6 addr add 2001:db8:1::2/64 dev eth0 nodad
	ip -n "$n-h1" -6 route add default via 2001:db8:1::1 dev eth0
	ip -n "$n-h2" -6 addr add 2001:db8:2::2/64 dev eth0 nodad
	ip -n "$n-h2" -6 route add default via 2001:db8:2::1 dev eth0
}

case "$cmd" in
up) up ;;
down) down ;;
*) echo "usage: topo.sh up|down NAME" >&2; exit 2 ;;
esac
