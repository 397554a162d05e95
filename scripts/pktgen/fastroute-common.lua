-- SPDX-License-Identifier: BSD-3-Clause
-- What the fastroute Pktgen-DPDK scripts share: the counters, read through
-- either form of Pktgen's Lua API, and a measuring window of whole seconds.
-- The scripts load it from their own directory.
local M = {}

-- Packets sent and received by each of Pktgen's ports 0 and 1: tx[p],
-- rx[p]. Pktgen up to 25.08 takes portStats(ports, "port") and gives the
-- fields flat; from 26.02 on it takes portStats(ports) alone and gives them
-- under .curr.
function M.counters()
	local ok, s = pcall(pktgen.portStats, "0,1", "port")
	if not ok then
		s = pktgen.portStats("0,1")
	end
	local tx, rx = {}, {}
	for p = 0, 1 do
		local c = s[p].curr or s[p]
		tx[p], rx[p] = c.opackets, c.ipackets
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
		if t[0] ~= tx[0] or t[1] ~= tx[1] then
			return t, r
		end
	end
	return tx, rx
end

local function loss_pct(tx, rx)
	return tx > 0 and 100 * (1 - rx / tx) or 0
end

-- Send from ports 0 and 1 as they are set up, @warmup_ms first, then count
-- @seconds, from one refresh of the counters to the one @seconds later
-- (so the window is whole seconds, however long pktgen.delay() sleeps),
-- and stop. Returns, in packets per second, what both ports sent (tx) and
-- received (rx) and the loss in percent of what was sent (loss); and the
-- same per direction, dir[p] from port p to port 1-p: what p sent, what
-- came back on the other port.
function M.measure(warmup_ms, seconds)
	pktgen.clr()
	pktgen.start("0,1")
	pktgen.delay(warmup_ms)
	local tx0, rx0 = refreshed()
	pktgen.delay(seconds * 1000 - 500)
	local tx1, rx1 = refreshed()
	pktgen.stop("0,1")
	pktgen.delay(1000) -- what is still in flight arrives before the next run
	local r = {tx = 0, rx = 0, dir = {}}
	for p = 0, 1 do
		local t, x = (tx1[p] - tx0[p]) / seconds, (rx1[1 - p] - rx0[1 - p]) / seconds
		r.dir[p] = {tx = t, rx = x, loss = loss_pct(t, x)}
		r.tx, r.rx = r.tx + t, r.rx + x
	end
	r.loss = loss_pct(r.tx, r.rx)
	return r
end

-- Print what M.measure() returned for profile @name and frame size @size:
-- the totals, then each direction. A router that sends one direction's
-- packets out of the wrong port shows there (a loss one way, more back than
-- sent the other), not in the totals; one that sends each packet back out of
-- the port it came in on shows in neither (its per-port counters, `show
-- port stats`, do).
function M.report(name, size, r)
	print(string.format("%s %4d B: tx %.3f Mpps, rx %.3f Mpps (router forwarded), loss %.4f%%",
		name, size, r.tx / 1e6, r.rx / 1e6, r.loss))
	print(string.format("%s %4d B: port 0 -> 1 tx %.3f rx %.3f Mpps, loss %.4f%%; " ..
		"port 1 -> 0 tx %.3f rx %.3f Mpps, loss %.4f%%", name, size,
		r.dir[0].tx / 1e6, r.dir[0].rx / 1e6, r.dir[0].loss,
		r.dir[1].tx / 1e6, r.dir[1].rx / 1e6, r.dir[1].loss))
end

return M
