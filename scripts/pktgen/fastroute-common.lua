-- SPDX-License-Identifier: BSD-3-Clause
-- What the fastroute Pktgen-DPDK scripts share: the counters, read through
-- either form of Pktgen's Lua API, and a measuring window of whole seconds.
-- The scripts load it from their own directory.
local M = {}

-- Packets sent and received by Pktgen's ports 0 and 1 together. Pktgen up
-- to 25.08 takes portStats(ports, "port") and gives the fields flat; from
-- 26.02 on it takes portStats(ports) alone and gives them under .curr.
function M.counters()
	local ok, s = pcall(pktgen.portStats, "0,1", "port")
	if not ok then
		s = pktgen.portStats("0,1")
	end
	local tx, rx = 0, 0
	for p = 0, 1 do
		local c = s[p].curr or s[p]
		tx, rx = tx + c.opackets, rx + c.ipackets
	end
	return tx, rx
end

-- Pktgen's timer refreshes those counters once a second: the counters at
-- the next refresh (2 s at most: none shows while nothing is sent).
local function refreshed()
	local tx, rx = M.counters()
	for _ = 1, 200 do
		pktgen.delay(10)
		local t, r = M.counters()
		if t ~= tx then
			return t, r
		end
	end
	return tx, rx
end

-- Send from ports 0 and 1 as they are set up, @warmup_ms first, then count
-- @seconds, from one refresh of the counters to the one @seconds later
-- (so the window is whole seconds, however long pktgen.delay() sleeps),
-- and stop. Returns packets per second sent and received, and the loss in
-- percent of those sent.
function M.measure(warmup_ms, seconds)
	pktgen.clr()
	pktgen.start("0,1")
	pktgen.delay(warmup_ms)
	local tx0, rx0 = refreshed()
	pktgen.delay(seconds * 1000 - 500)
	local tx1, rx1 = refreshed()
	pktgen.stop("0,1")
	pktgen.delay(1000) -- what is still in flight arrives before the next run
	local tx, rx = (tx1 - tx0) / seconds, (rx1 - rx0) / seconds
	return tx, rx, tx > 0 and 100 * (1 - rx / tx) or 0
end

return M
