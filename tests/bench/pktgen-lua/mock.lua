-- SPDX-License-Identifier: BSD-3-Clause
-- A stand-in for Pktgen-DPDK's Lua API, for test.lua: what the fastroute
-- scripts call, each call checked for the form Pktgen takes, a virtual clock
-- (pktgen.delay() oversleeps a little, as a real sleep does) and port
-- counters that Pktgen's timer refreshes once a second. @style: "old"
-- (Pktgen up to 25.08: portStats(ports, "port"), fields flat) or "new"
-- (26.02 on: portStats(ports), fields under .curr). Each port sends
-- @tx_pps / 2; port 0 receives @rx0_pps, port 1 @rx1_pps.
local M = {}

function M.install(style, tx_pps, rx0_pps, rx1_pps)
	local st = {now = 0, sending = false, errors = {}, range = false, rnd = {}}
	local live, snap, tick = {tx = 0, rx0 = 0, rx1 = 0}, {tx = 0, rx0 = 0, rx1 = 0}, 0
	local function bad(fmt, ...)
		st.errors[#st.errors + 1] = string.format(fmt, ...)
	end
	local function ports(p)
		if type(p) ~= "string" or not p:match("^%d[%d,%-]*$") then
			bad("not a port list: %s", tostring(p))
		end
	end
	local function advance(ms)
		for _ = 1, ms do
			st.now = st.now + 1
			if st.sending then
				live.tx = live.tx + tx_pps / 1000
				live.rx0 = live.rx0 + rx0_pps / 1000
				live.rx1 = live.rx1 + rx1_pps / 1000
			end
			if st.now - tick >= 1000 then
				tick = st.now
				snap.tx, snap.rx0, snap.rx1 = live.tx, live.rx0, live.rx1
			end
		end
	end
	local keys = {size = true, rate = true, count = true, sport = true, dport = true,
		      burst = true, ttl = true}
	local rkeys = {start = true, inc = true, min = true, max = true}
	local range = setmetatable({}, {__index = function(_, name)
		return function(p, what, v)
			ports(p)
			if name == "ip_proto" then
				if v ~= nil or (what ~= "udp" and what ~= "tcp") then
					bad("range.ip_proto(%s, %s)", p, tostring(what))
				end
			elseif not rkeys[what] or v == nil then
				bad("range.%s(%s, %s, %s)", name, p, tostring(what), tostring(v))
			end
		end
	end})
	pktgen = {
		set = function(p, k, v)
			ports(p)
			if not keys[k] or type(v) ~= "number" then
				bad("set(%s, %s, %s)", p, tostring(k), tostring(v))
			end
		end,
		set_mac = function(p, which, mac)
			ports(p)
			if (which ~= "src" and which ~= "dst") or
			    not tostring(mac):match("^%x%x:%x%x:%x%x:%x%x:%x%x:%x%x$") then
				bad("set_mac(%s, %s, %s)", p, tostring(which), tostring(mac))
			end
		end,
		-- the source address takes its prefix length, the destination none
		set_ipaddr = function(p, which, a)
			ports(p)
			local pat = which == "src" and "^%d+%.%d+%.%d+%.%d+/%d+$" or "^%d+%.%d+%.%d+%.%d+$"
			if (which ~= "src" and which ~= "dst") or not tostring(a):match(pat) then
				bad("set_ipaddr(%s, %s, %s)", p, tostring(which), tostring(a))
			end
		end,
		set_proto = function(p, proto)
			ports(p)
			if proto ~= "udp" and proto ~= "tcp" then
				bad("set_proto(%s, %s)", p, tostring(proto))
			end
		end,
		set_range = function(p, on)
			ports(p)
			st.range = on == "on"
		end,
		rnd = function(p, idx, off, mask)
			ports(p)
			if type(idx) ~= "number" or type(off) ~= "number" or
			    (mask ~= "off" and #mask:gsub(" ", "") ~= 32) then
				bad("rnd(%s, %s, %s, %s)", p, tostring(idx), tostring(off), tostring(mask))
			end
			for one in p:gmatch("%d+") do
				st.rnd[one] = mask ~= "off"
			end
		end,
		clr = function()
			live.tx, live.rx0, live.rx1 = 0, 0, 0
		end,
		start = function(p)
			ports(p)
			st.sending = true
		end,
		stop = function(p)
			ports(p)
			st.sending = false
		end,
		delay = function(ms)
			advance(ms + 3)
		end,
		range = range,
		portStats = function(p, kind)
			ports(p)
			if (style == "new") ~= (kind == nil) then
				error("portStats, wrong number of arguments")
			end
			local tx = math.floor(snap.tx / 2)
			local c0 = {opackets = tx, ipackets = math.floor(snap.rx0)}
			local c1 = {opackets = tx, ipackets = math.floor(snap.rx1)}
			if style == "new" then
				return {[0] = {curr = c0}, [1] = {curr = c1}, n = 2}
			end
			return {[0] = c0, [1] = c1, n = 2}
		end,
	}
	return st
end

return M
