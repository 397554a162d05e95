#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The built-in demo behind 'make run': two kernel hosts in network
# namespaces, fastroute between them on net_af_packet ports, a ping from h1
# to h2 through the router, the router's counters. Cleans up on exit.
set -eu
cd "$(dirname "$0")/.."
case "${1:-}" in
-h | --help)
	sed -n '3,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
	exit 0
	;;
'') ;;
*)
	echo "demo: takes no arguments (--help)" >&2
	exit 2
	;;
esac

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: needs root (it creates network namespaces and veth pairs); try: sudo make run" >&2
	exit 1
fi

# this run's own names: a second demo at the same time (or the tests) keeps
# its namespaces, DPDK prefix and socket (topo.sh up first removes whatever
# holds NAME's namespaces, a router in them included)
NAME=frdemo$$
SOCK=/run/fastroute/demo-$$.sock
LOG=$(mktemp /tmp/fastroute-demo.XXXXXX)
PID=

cleanup() {
	trap '' PIPE # a reader gone (make run | head) must not stop the cleanup
	if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
		kill -TERM "$PID" 2>/dev/null || true
		# bounded: a router that does not stop in 10 s is killed
		i=0
		while kill -0 "$PID" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$PID" 2>/dev/null || true
		wait "$PID" 2>/dev/null || true
	fi
	scripts/topo.sh down "$NAME"
	rm -f "$LOG" "$SOCK"
	# the runtime directory DPDK leaves for this run's own prefix
	rm -rf "/var/run/dpdk/$NAME"
}
# signals end the script through its EXIT trap, which cleans up once
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM

scripts/topo.sh up "$NAME"
echo "demo: h1 (192.0.2.2, 2001:db8:1::2) --- fastroute --- h2 (198.51.100.2, 2001:db8:2::2),"
echo "      config/demo.conf:"
grep -v '^#' config/demo.conf | grep . | sed 's/^/    /'

# control thread on lcore 0, one worker on lcore 1; no hugepages needed
ip netns exec "$NAME-r" build/app/fastroute --no-pci --no-huge -m 1024 \
	--file-prefix "$NAME" -l 0-1 --log-level lib.eal:warning \
	--vdev net_af_packet0,iface=p0 --vdev net_af_packet1,iface=p1 \
	-- -f config/demo.conf -s "$SOCK" --max-routes 65536 --tbl8 1024 >"$LOG" 2>&1 &
PID=$!
i=0
until grep -q ready "$LOG"; do
	i=$((i + 1))
	if [ $i -gt 300 ] || ! kill -0 "$PID" 2>/dev/null; then
		echo "demo: the router did not start:" >&2
		cat "$LOG" >&2
		exit 1
	fi
	sleep 0.1
done
grep fastroute: "$LOG" | sed 's/^/    /'

echo
echo "demo: ping from h1 to h2 through the router (h2 answers with TTL 64, the router"
echo "      takes one off, so h1 sees ttl=63):"
ok=0
ip netns exec "$NAME-h1" ping -c 4 -i 0.2 -W 2 198.51.100.2 && ok=1
echo
echo "demo: the same over IPv6 (the router finds h2 with neighbour discovery):"
ok6=0
ip netns exec "$NAME-h1" ping -6 -c 4 -i 0.2 -W 2 2001:db8:2::2 && ok6=1
echo
echo "demo: fastroute-cli -s $SOCK show route"
build/app/fastroute-cli -s "$SOCK" show route
echo
echo "demo: fastroute-cli -s $SOCK show neigh (resolved by ARP and ND, no static entries)"
build/app/fastroute-cli -s "$SOCK" show neigh
echo
echo "demo: fastroute-cli -s $SOCK show stats (non-zero counters)"
stats=$(build/app/fastroute-cli -s "$SOCK" show stats) || {
	echo "demo: FAILED: show stats: the router did not answer" >&2
	exit 1
}
echo "$stats" | awk '/:$/ || $NF != 0'
if [ "$ok" != 1 ] || [ "$ok6" != 1 ]; then
	echo "demo: FAILED: no reply through the router (IPv4 ok=$ok, IPv6 ok=$ok6)" >&2
	exit 1
fi
echo
echo "demo: success: h1 -> fastroute -> h2 and back, over IPv4 and IPv6"
