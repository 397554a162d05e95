-- SPDX-License-Identifier: BSD-3-Clause
-- Pktgen-DPDK example: range mode, 256 destination networks per direction
-- (198.18.0.1, 198.18.1.1, ... 198.18.255.1 out of pktgen port 0 and
-- 198.19.x.1 out of port 1), 64 and 1518 bytes. Add the 512 /24 routes shown
-- in scripts/pktgen/router.conf to the router for 256 distinct routes.
--
--   pktgen -l 0-4 -n 4 -a <NIC0> -a <NIC1> -- -P -m "[1:2].0,[3:4].1" \
--       -f scripts/pktgen/fastroute-range.lua
--
-- Edit the block below: the router's port MACs (fastroute-cli show port info) are
-- the destination MACs; pktgen's own MACs go into router.conf's neighbours.
-- fastroute-common.lua, beside this script: the counters and the window
local here = debug and debug.getinfo(1, "S")
local fr = dofile((here and here.source:match("^@(.*/)") or "") .. "fastroute-common.lua")

local router_mac = { [0] = "02:00:00:00:00:10", [1] = "02:00:00:00:00:11" }
local src_ip     = { [0] = "192.0.2.2",         [1] = "198.51.100.2" }
local dst_net    = { [0] = "198.18",            [1] = "198.19" }
local sizes      = { 64, 1518 }
local warmup_ms  = 2000
local window_s   = 10                  -- whole seconds (fastroute-common.lua)

local function range4(fn, port, start, inc, min, max)
	fn(port, "start", start)
	fn(port, "inc", inc)
	fn(port, "min", min)
	fn(port, "max", max)
end

for p = 0, 1 do
	local port = tostring(p)
	pktgen.range.dst_mac(port, "start", router_mac[p])
	-- (the source MAC stays the port's own, Pktgen's default)
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
	fr.report("256nets", size, fr.measure(warmup_ms, window_s))
end
pktgen.set_range("0,1", "off")
