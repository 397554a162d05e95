#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make bench: the lookup microbenchmark and the throughput harness, then
# docs/benchmarks.md (tables, targets, a PNG chart, the previous run for
# comparison). Not part of make test. About 10 to 15 minutes, 14 from a clean clone (the total is printed
# at the end and in the page's header); needs root and the two CPUs to itself
# (other load makes the harness discard runs).
#
#   scripts/bench/run.sh            everything
#   scripts/bench/run.sh --quick    a smoke run of each tool (make test uses it):
#                                   kbench, every throughput DUT (l3fwd built),
#                                   the route cache and IPv6 rows, the zero-loss
#                                   search and its count of frames back on the
#                                   wrong port; fails unless every DUT run
#                                   forwarded packets and every output is well
#                                   formed
#
# A run still going after BENCH_DEADLINE seconds (default 1800, about twice
# a normal run on a busy machine) is stopped as by SIGTERM: its processes
# end, the hugepages are given back, docs/benchmarks.md is never left
# half-written, and it exits 143 saying so.
set -eu
cd "$(dirname "$0")/../.."
# make bench passes BENCH_T0, when its setup (and build) began, so that the
# page's wall time is the whole of make bench's
t_start=$(date +%s)
wall_from=run
case "${BENCH_T0:-}" in
'' | *[!0-9]*) ;;
*) [ "$BENCH_T0" -le "$t_start" ] && t_start=$BENCH_T0 && wall_from=make ;;
esac
quick=0
case "${1:-}" in
--quick) quick=1 ;;
-h | --help)
	sed -n '3,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
	exit 0
	;;
'') ;;
*)
	echo "bench: unknown option '$1' (--quick, --help)" >&2
	exit 2
	;;
esac
if [ $# -gt 1 ]; then
	echo "bench: one option at most" >&2
	exit 2
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root (memif sockets, hugepages, DPDK)" >&2
	exit 1
fi
deadline=${BENCH_DEADLINE:-1800}
case "$deadline" in
'' | *[!0-9]* | 0*)
	echo "bench: BENCH_DEADLINE must be a number of seconds above 0, not '$deadline'" >&2
	exit 2
	;;
esac
T=$(mktemp -d /tmp/fastroute-bench.XXXXXX)
# the measurements outlive the run: report.py can be run on them again
RAW=build/bench-raw
mkdir -p "$RAW"
orig_huge=
kbpid=
child=
mounted_huge=
watchdog=
cleanup() {
	# every step of it runs: under set -e, a failing 'wait' (a step that a
	# signal ended) would end the trap there
	set +e
	# a second ^C, or the deadline's signal arriving now, must not cut it
	# short (an 'exit' in a trap here would end the shell at once)
	trap '' HUP INT TERM
	trap '' PIPE # a reader gone (make bench | head) must not stop the cleanup
	# the deadline's timer (its TERM trap takes its sleep with it)
	[ -n "$watchdog" ] && kill "$watchdog" 2>/dev/null
	# the step running (see step()): throughput.sh stops what it started on TERM
	[ -n "$child" ] && kill "$child" 2>/dev/null && wait "$child" 2>/dev/null
	[ -n "$kbpid" ] && kill "$kbpid" 2>/dev/null && wait "$kbpid" 2>/dev/null
	# a signal between a step's start and its '$!' leaves it unnamed: any
	# child still running is stopped too (pkill spares itself)
	pkill -TERM -P $$ 2>/dev/null && sleep 1
	# kbench stopped by a signal (ours, or the quick run's timeout) leaves
	# its EAL runtime directory behind
	rm -rf "/var/run/dpdk/frkb$$" 2>/dev/null || true
	rm -f /dev/hugepages/frkb$$* 2>/dev/null || true
	if [ -n "$orig_huge" ]; then
		echo "$orig_huge" > /proc/sys/vm/nr_hugepages
	fi
	# what this script mounted, unless something still uses it
	if [ -n "$mounted_huge" ]; then
		umount /dev/hugepages 2>/dev/null && [ "$mounted_huge" = dir ] &&
			rmdir /dev/hugepages 2>/dev/null
	fi
	rm -rf "$T"
	return 0
}
# Long steps run in the background, waited for: sh runs a trap only once
# the foreground command has ended, while 'wait' returns at the signal
# (the EXIT trap then stops the step). Its status is the step's.
step() {
	"$@" &
	child=$!
	rc=0
	wait "$child" || rc=$?
	child=
	return "$rc"
}
# signals end the script through its EXIT trap, which cleans up once
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM
# the deadline: a timer that sends this script SIGTERM ($$ is the script's
# PID in the subshell too); the trap above then stops the run. It sleeps
# in slices of 5 s and ends when the script is no longer its parent (killed
# without its EXIT trap): it never outlives the run by more than a slice,
# nor signals a process that took the script's PID.
(
	s=
	trap 'kill "$s" 2>/dev/null; exit 0' TERM
	left=$deadline
	while [ "$left" -gt 0 ]; do
		n=5
		[ "$left" -lt 5 ] && n=$left
		sleep "$n" &
		s=$!
		wait "$s" || exit 0
		read -r _ _ _ pp _ </proc/self/stat
		[ "$pp" = "$$" ] || exit 0
		left=$((left - n))
	done
	echo "bench: stopped: still running after $deadline s (BENCH_DEADLINE)" >&2
	kill -TERM $$
) &
watchdog=$!

# hugepages where the machine can give them (the harness says which it used)
# (the route cache rows run three 1M-route routers at once, about 7 GiB,
# while kbench holds its 2 GiB)
want=5120
if [ "$quick" = 0 ]; then
	if ! mountpoint -q /dev/hugepages; then
		made=mount
		[ -d /dev/hugepages ] || { mkdir /dev/hugepages && made=dir; }
		mount -t hugetlbfs nodev /dev/hugepages
		mounted_huge=$made
	fi
	free_pages=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	if [ "$free_pages" -lt "$want" ]; then
		orig_huge=$(cat /proc/sys/vm/nr_hugepages)
		echo $((orig_huge + want - free_pages)) > /proc/sys/vm/nr_hugepages || true
	fi
fi
mem="--no-huge -m 2048"
# --huge-unlink: the hugepage files go with the process (else they stay
# in /dev/hugepages and the throughput harness finds none left)
[ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 1536 ] && mem="-m 2048 --huge-unlink"

if [ "$quick" = 1 ]; then
	scripts/gen-routes 300 --format plain > "$T/r300"
	scripts/gen-routes 1000 --ipv6 --format plain > "$T/r6"
	step timeout 180 taskset -c 1 build/tests/bench/fastroute-kbench --no-pci --no-huge -m 512 -l 1 \
		--file-prefix frkb$$ --log-level lib.eal:error -- --routes "$T/r300" \
		--routes6 "$T/r6" --dests 1,1000 --reps 3 --min-pkts 100000 --json > "$T/kbench.jsonl"
	step scripts/bench/throughput.sh --quick --out "$T/tp.jsonl" --summary "$T/tp.json" \
		> "$T/tp.log" 2>&1 || { cat "$T/tp.log" >&2; exit 1; }
	step scripts/bench/throughput.sh --routes 300 --profiles random1m --sizes 64 \
		--duts fastroute,fastroute6 --rounds 1 --warmup 0.2 --duration 0.5 --time-limit 180 \
		--out "$T/ipv6.jsonl" --summary "$T/ipv6.json" > "$T/ipv6.log" 2>&1 ||
		{ cat "$T/ipv6.log" >&2; exit 1; }
	step scripts/bench/throughput.sh --routes 300 --profiles 1kflows --sizes 64 \
		--duts fr-strict-off,fr-strict-on,fr-strict-auto --rounds 1 --warmup 0.2 \
		--duration 0.5 --time-limit 180 --out "$T/cache.jsonl" --summary "$T/cache.json" \
		> "$T/cache.log" 2>&1 || { cat "$T/cache.log" >&2; exit 1; }
	step scripts/bench/rfc2544.sh --routes 300 --trial 0.3 --warmup 0.1 --max-trials 3 \
		--time-limit 120 --out "$T/rfc2544.jsonl" > "$T/rfc2544.log" 2>&1 ||
		{ cat "$T/rfc2544.log" >&2; exit 1; }
	# the search's count of frames back: a frame back on the port that
	# sent it is lost, not received
	step /usr/bin/python3 tests/bench/test_trial_ports.py
	# every DUT run must have forwarded (discarded or not); the page is
	# rendered into a temporary directory, never docs/
	step /usr/bin/python3 scripts/bench/report.py --check --kbench "$T/kbench.jsonl" \
		--throughput "$T/tp.json" --runs "$T/tp.jsonl" --ipv6 "$T/ipv6.json" \
		--ipv6-runs "$T/ipv6.jsonl" --cache "$T/cache.json" --cache-runs "$T/cache.jsonl" \
		--rfc2544 "$T/rfc2544.jsonl" ||
		{ cat "$T/tp.log" "$T/ipv6.log" "$T/cache.log" "$T/rfc2544.log" >&2; exit 1; }
	exit 0
fi

echo "bench: route tables"
for n in 1 10000 1000000 100000; do
	step scripts/gen-routes $n --format plain > "$T/r$n"
done
step scripts/gen-routes 100000 --ipv6 --format plain > "$T/r6"
kb_reps=11
kb_pkts=1000000
# kbench builds its tables on CPU0 while the throughput harness loads its
# DUTs on CPU1: rte_lpm takes about three minutes for the million routes,
# in kbench's reference table and in l3fwd alike, so the two loads overlap
# (the harness takes the 1M table first and waits for the CPUs to go quiet
# before each measurement). kbench then waits (--wait) and measures on
# CPU1 after the harness is done, with the machine to itself.
echo "bench: kbench tables (CPU0, in the background), memory: $mem"
mkfifo "$T/kbgo"
# shellcheck disable=SC2086
taskset -c 0 build/tests/bench/fastroute-kbench --no-pci $mem -l 0 --file-prefix frkb$$ \
	--log-level lib.eal:error -- --routes "$T/r1,$T/r10000,$T/r1000000,$T/r100000" \
	--routes6 "$T/r6" --dests 1,1000,1000000 --reps $kb_reps --min-pkts $kb_pkts \
	--json --wait < "$T/kbgo" > "$T/kbench.jsonl" 2> "$T/kbench.err" &
kbpid=$!
exec 3> "$T/kbgo"
echo "bench: throughput (fastroute, testpmd io and mac, l3fwd-LPM)"
# the headline row (the targets against io and l3fwd) gets five rounds: a
# target is judged on at least three telling pairs, and generator-bound runs
# leave some pairs short of the target (about 20 s more)
step scripts/bench/throughput.sh --wait-idle 90 --duration 1.0 --routes 1000000,10000,1 \
	--rounds-for 1000000:random1m:64=5 --out "$T/tp.jsonl" --summary "$T/tp.json"
# five rounds: auto against off under a flood is judged to 3%, and single
# rounds here swing by +-20%
echo "bench: route cache rows (1M routes, rpf strict, cache off/on/auto)"
step scripts/bench/throughput.sh --wait-idle 20 --duration 1.0 --routes 1000000 --profiles 1flow,1kflows,random1m \
	--sizes 64 --duts fr-strict-off,fr-strict-on,fr-strict-auto --rounds 5 \
	--out "$T/cache.jsonl" --summary "$T/cache.json"
echo "bench: IPv6 rows (100,000 IPv4 routes vs 100,000 IPv6 /48 and /64, random destinations)"
step scripts/bench/throughput.sh --wait-idle 20 --duration 1.0 --routes 100000 --profiles random1m --sizes 64 \
	--duts fastroute,fastroute6 --out "$T/ipv6.jsonl" --summary "$T/ipv6.json"
echo "bench: kbench (one core, no PMD, CPU1)"
# alive and waiting for its go line: kill -0 would also pass an exited,
# unreaped kbench (a zombie), and the go line then dies of SIGPIPE
case "$(ps -o stat= -p "$kbpid" 2>/dev/null || true)" in
"" | Z*) cat "$T/kbench.err" >&2; echo "bench: kbench died" >&2; exit 1 ;;
esac
taskset -pc 1 "$kbpid" > /dev/null
echo go >&3
exec 3>&-
wait "$kbpid" || { cat "$T/kbench.err" >&2; echo "bench: kbench failed" >&2; exit 1; }
kbpid=
cp "$T/kbench.jsonl" "$T/tp.json" "$T/tp.jsonl" "$T/cache.json" "$T/cache.jsonl" \
	"$T/ipv6.json" "$T/ipv6.jsonl" "$RAW/"
echo "bench: raw results in $RAW (scripts/bench/report.py --help to redo the report)"
wall=$(($(date +%s) - t_start))
step /usr/bin/python3 scripts/bench/report.py --kbench "$RAW/kbench.jsonl" --throughput "$RAW/tp.json" \
	--runs "$RAW/tp.jsonl" --cache "$RAW/cache.json" --cache-runs "$RAW/cache.jsonl" \
	--ipv6 "$RAW/ipv6.json" --ipv6-runs "$RAW/ipv6.jsonl" --kbench-reps $kb_reps --kbench-min-pkts $kb_pkts \
	--kbench-memory "$mem" --wall-seconds "$wall" --wall-from "$wall_from" \
	--wall-cold "${BENCH_COLD:-}" --out docs/benchmarks.md \
	--png docs/benchmarks.png --history docs/bench-history
echo "bench: wrote docs/benchmarks.md"
echo "bench: wall time $((wall / 60))m$(printf %02d $((wall % 60)))s"
