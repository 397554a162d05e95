-- SPDX-License-Identifier: BSD-3-Clause
-- The Pktgen-DPDK example scripts (scripts/pktgen) run against mock.lua's
-- stand-in for Pktgen's Lua API, in both forms of its portStats: each
-- call in a form Pktgen takes, both frame sizes measured, the rates and
-- loss those of the mock's traffic to the digit (a window of whole
-- seconds), in all and per direction (the mock's router sends more out of
-- port 1 than port 0 sent it, and less out of port 0: a loss in the totals,
-- more back than sent one way), the traffic stopped and range and random
-- modes off at the end. Usage: lua5.4 test.lua SCRIPTS_DIR
local here = arg[0]:match("^(.*/)") or ""
local mock = dofile(here .. "mock.lua")
local dir = assert(arg[1], "usage: test.lua SCRIPTS_DIR")
local failed = 0

local function check(ok, fmt, ...)
	if not ok then
		io.stderr:write("FAIL " .. string.format(fmt, ...) .. "\n")
		failed = failed + 1
	end
end

for _, style in ipairs({"old", "new"}) do
	for _, name in ipairs({"fastroute-1flow.lua", "fastroute-range.lua",
			       "fastroute-random.lua"}) do
		local failed_before = failed
		local st = mock.install(style, 10e6, 3.6e6, 5.4e6)
		local lines, real_print = {}, print
		print = function(s)
			lines[#lines + 1] = s
		end
		local ok, err = pcall(dofile, dir .. "/" .. name)
		print = real_print
		local what = style .. " " .. name
		check(ok, "%s: %s", what, tostring(err))
		check(#st.errors == 0, "%s: %s", what, table.concat(st.errors, "; "))
		check(#lines == 4, "%s: %d result lines, want 4", what, #lines)
		for i, size in ipairs({64, 1518}) do
			local l = lines[2 * i - 1] or ""
			check(l:match("^%w+ +" .. size .. " B: tx 10%.000 Mpps, rx 9%.000 Mpps " ..
				      "%(router forwarded%), loss 10%.0000%%$"),
			      "%s: line %d: %s", what, 2 * i - 1, l)
			l = lines[2 * i] or ""
			check(l:match("^%w+ +" .. size .. " B: port 0 %-> 1 tx 5%.000 rx 5%.400 Mpps, " ..
				      "loss %-8%.0000%%; port 1 %-> 0 tx 5%.000 rx 3%.600 Mpps, " ..
				      "loss 28%.0000%%$"),
			      "%s: line %d: %s", what, 2 * i, l)
		end
		check(not st.sending and not st.range, "%s: still sending, or range mode on", what)
		for p, on in pairs(st.rnd) do
			check(not on, "%s: random bits left on for ports %s", what, p)
		end
		print(string.format("%-3s %-22s %s", style, name,
				    failed == failed_before and "ok" or "FAIL"))
	end
end
os.exit(failed == 0 and 0 or 1)
