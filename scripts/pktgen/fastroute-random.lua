-- SPDX-License-Identifier: BSD-3-Clause
-- Pktgen-DPDK example: random destinations (the cache-miss / DoS case).
-- Pktgen rewrites the low 16 bits of the IPv4 destination (frame offset 30)
-- with random bits on every packet: 65,536 destinations per direction inside
-- 198.18.0.0/16 (port 0) and 198.19.0.0/16 (port 1). For random destinations
-- over an Internet-like table, load 'scripts/gen-routes 1000000' into the
-- router and widen the mask (e.g. "0XXXXXXX XXXXXXXX XXXXXXXX XXXXXXXX" for
-- 0.0.0.0/1); packets then leave by both router ports: read the totals
-- (the per-direction line means nothing then).
--
-- Caveat: Pktgen applies random bits after building the packet and does not
-- recompute the IPv4 header checksum. Unless the NIC computes it (TX IPv4
-- checksum offload enabled in your Pktgen build), fastroute drops these
-- packets as ip4_bad_checksum (RFC 1812 validation; fastroute-cli show
-- stats) and the test measures the drop path. Check the counter first; for
-- checksum-correct traffic to many destinations use fastroute-range.lua
-- (pktgen rebuilds range packets, checksum included).
--
--   pktgen -l 0-4 -n 4 -a <NIC0> -a <NIC1> -- -P -m "[1:2].0,[3:4].1" \
--       -f scripts/pktgen/fastroute-random.lua
--
-- Edit the block below: the router's port MACs (fastroute-cli show port info) are
-- the destination MACs; pktgen's own MACs go into router.conf's neighbours.
-- fastroute-common.lua, beside this script: the counters and the window
local here = debug and debug.getinfo(1, "S")
local fr = dofile((here and here.source:match("^@(.*/)") or "") .. "fastroute-common.lua")

local router_mac = { [0] = "02:00:00:00:00:10", [1] = "02:00:00:00:00:11" }
local src_ip     = { [0] = "192.0.2.2/24",      [1] = "198.51.100.2/24" }
local dst_ip     = { [0] = "198.18.0.1",        [1] = "198.19.0.1" }
-- bit masks over the destination address: 0/1 fixed, X random, . unchanged
local dst_mask   = { [0] = "11000110 00010010 XXXXXXXX XXXXXXXX",   -- 198.18.x.x
                     [1] = "11000110 00010011 XXXXXXXX XXXXXXXX" }  -- 198.19.x.x
local IPV4_DST_OFFSET = 30            -- 14 (Ethernet) + 16
local sizes      = { 64, 1518 }
local warmup_ms  = 2000
local window_s   = 10                  -- whole seconds (fastroute-common.lua)

for p = 0, 1 do
	local port = tostring(p)
	pktgen.set_mac(port, "dst", router_mac[p])
	pktgen.set_ipaddr(port, "src", src_ip[p])
	pktgen.set_ipaddr(port, "dst", dst_ip[p])
	pktgen.set_proto(port, "udp")
	pktgen.set(port, "count", 0)
	pktgen.set(port, "rate", 100)
	-- random bitfield 0 of this port (see the checksum caveat above)
	pktgen.rnd(port, 0, IPV4_DST_OFFSET, dst_mask[p])
end

for _, size in ipairs(sizes) do
	pktgen.set("0,1", "size", size)
	fr.report("random", size, fr.measure(warmup_ms, window_s))
end
pktgen.rnd("0,1", 0, IPV4_DST_OFFSET, "off")
