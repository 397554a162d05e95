-- SPDX-License-Identifier: BSD-3-Clause
-- Pktgen-DPDK example: range mode, 256 destination networks per direction
-- (198.18.0.1, 198.18.1.1, ... 198.18.255.1 out of pktgen port 0 and
-- 198.19.x.1 out of port 1), 64 and 1518 bytes. Add the 512 /24 routes shown
-- in scripts/pktgen/router.conf to the router for 256 distinct routes.
--
--   pktgen -l 0-4 -n 4 -a <NIC0> -a <NIC1> -- -P -m "[1:2].0,[3:4].1" \
--       -f scripts/pktgen/fastroute-range.lua
package.path = package.path .. ";?.lua;test/?.lua;app/?.lua;"
require "Pktgen"

local router_mac = { [0] = "02:00:00:00:00:10", [1] = "02:00:00:00:00:11" }
local pktgen_mac = { [0] = "02:00:00:00:00:00", [1] = "02:00:00:00:00:01" }
local src_ip     = { [0] = "192.0.2.2",         [1] = "198.51.100.2" }
local dst_net    = { [0] = "198.18",            [1] = "198.19" }
local sizes      = { 64, 1518 }
local warmup_ms  = 2000
local window_ms  = 10000

local function counters()
	local s = pktgen.portStats("0,1", "port")
	return s[0].opackets + s[1].opackets, s[0].ipackets + s[1].ipackets
end

local function range4(fn, port, start, inc, min, max)
	fn(port, "start", start)
	fn(port, "inc", inc)
	fn(port, "min", min)
	fn(port, "max", max)
end

for p = 0, 1 do
	local port = tostring(p)
	pktgen.range.dst_mac(port, "start", router_mac[p])
	pktgen.range.src_mac(port, "start", pktgen_mac[p])
	-- destination walks the third octet: one address in each of 256 /24s
	range4(pktgen.range.dst_ip, port, dst_net[p] .. ".0.1", "0.0.1.0",
		dst_net[p] .. ".0.1", dst_net[p] .. ".255.1")
	range4(pktgen.range.src_ip, port, src_ip[p], "0.0.0.0", src_ip[p], src_ip[p])
	range4(pktgen.range.src_port, port, 1024, 0, 1024, 1024)
	range4(pktgen.range.dst_port, port, 1024, 0, 1024, 1024)
	pktgen.set_proto(port, "udp")
	-- the range's own protocol (set_proto sets the single-packet one;
	-- the range keeps the default, TCP)
	pktgen.range.ip_proto(port, "udp")
	pktgen.set(port, "count", 0)
	pktgen.set(port, "rate", 100)
end
pktgen.set_range("0,1", "on")

for _, size in ipairs(sizes) do
	range4(pktgen.range.pkt_size, "0,1", size, 0, size, size)
	pktgen.clr()
	pktgen.start("0,1")
	pktgen.delay(warmup_ms)
	local tx0, rx0 = counters()
	pktgen.delay(window_ms)
	local tx1, rx1 = counters()
	pktgen.stop("0,1")
	local sec = window_ms / 1000
	print(string.format("256nets %4d B: tx %.3f Mpps, rx %.3f Mpps (router forwarded)",
		size, (tx1 - tx0) / sec / 1e6, (rx1 - rx0) / sec / 1e6))
	pktgen.delay(1000)
end
pktgen.set_range("0,1", "off")
