-- SPDX-License-Identifier: BSD-3-Clause
-- Pktgen-DPDK example: one UDP flow per direction through fastroute, at 64
-- and 1518 bytes, line rate. Router configuration: scripts/pktgen/router.conf.
--
--   pktgen -l 0-4 -n 4 -a <NIC0> -a <NIC1> -- -P -m "[1:2].0,[3:4].1" \
--       -f scripts/pktgen/fastroute-1flow.lua
--
-- Edit the block below: the router's port MACs (fastroute-cli show port info) are
-- the destination MACs; pktgen's own MACs go into router.conf's neighbours.
-- fastroute-common.lua, beside this script: the counters and the window
local here = debug and debug.getinfo(1, "S")
local fr = dofile((here and here.source:match("^@(.*/)") or "") .. "fastroute-common.lua")

local router_mac = { [0] = "02:00:00:00:00:10", [1] = "02:00:00:00:00:11" }
local src_ip     = { [0] = "192.0.2.2/24",      [1] = "198.51.100.2/24" }
local dst_ip     = { [0] = "198.18.0.1",        [1] = "198.19.0.1" }
local sizes      = { 64, 1518 }        -- frame sizes with FCS, as pktgen counts them
local warmup_ms  = 2000
local window_s   = 10                  -- whole seconds (fastroute-common.lua)
local rate_pct   = 100                 -- percent of line rate

for p = 0, 1 do
	local port = tostring(p)
	pktgen.set_mac(port, "dst", router_mac[p])
	pktgen.set_ipaddr(port, "src", src_ip[p])
	pktgen.set_ipaddr(port, "dst", dst_ip[p])
	pktgen.set_proto(port, "udp")
	pktgen.set(port, "sport", 1024)
	pktgen.set(port, "dport", 1024)
	pktgen.set(port, "count", 0)       -- send until stopped
	pktgen.set(port, "rate", rate_pct)
end

for _, size in ipairs(sizes) do
	pktgen.set("0,1", "size", size)
	fr.report("1flow", size, fr.measure(warmup_ms, window_s))
end
