#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every test suite, as 'make test' and CI run them (after scripts/setup.sh --test):
#   formatting, unit (cmocka), integration (daemon with net_null ports),
#   end-to-end (root: netns + veth + net_af_packet + kernel hosts), then unit,
#   integration and end-to-end again under ASan + UBSan (the suites of a
#   build two at a time), make run's demo, a smoke run of the benchmark
#   tools and one stopped by its deadline (root), then each fuzz target for
#   20 s. Fails when a
#   build directory lacks a suite rather than run fewer.
set -eu
cd "$(dirname "$0")/.."
case "${1:-}" in
-h | --help)
	sed -n '3,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
	exit 0
	;;
'') ;;
*)
	echo "run-tests: takes no arguments (--help)" >&2
	exit 2
	;;
esac

step() { printf '\n== %s\n' "$*"; }
t0=$(date +%s)

# What did not run is listed at the end, so a partial run never reads as a
# whole one: whole suites meson reports as skipped (exit 77), the tests a
# suite skipped within itself (frlib's Runner writes them here), the steps
# this script skips without root.
FASTROUTE_SKIPS=$(mktemp /tmp/fastroute-skips.XXXXXX)
export FASTROUTE_SKIPS
dl=
demo=
trap 'rm -f "$FASTROUTE_SKIPS"; [ -z "$dl" ] || rm -f "$dl" "$dl.before" "$dl.after"; [ -z "$demo" ] || rm -f "$demo"' EXIT
# dash runs the EXIT trap on exit only: signals end the script through it
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
skipped() { echo "$*" >>"$FASTROUTE_SKIPS"; }
# meson test -C DIR ARGS..., then the suites it skipped into the list
mtest() {
	meson test -C "$@"
	/usr/bin/python3 - "$1/meson-logs/testlog.json" >>"$FASTROUTE_SKIPS" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t.get("result") == "SKIP":
        print("%s: the whole suite" % t["name"])
PY
}

# UBSan's findings fail the test that hits them (gcc's runtime only prints
# them, and meson 1.0 sets no UBSAN_OPTIONS). A sanitizer's finding exits 86,
# not 1: the tests that want the router to refuse something (exit 1, a
# message) would otherwise take a finding after the message for the refusal
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86
export ASAN_OPTIONS=exitcode=86
# as root every end-to-end suite can run: one that would skip for a missing
# tool or package fails instead (only a machine's limits skip: hugepages, tun)
[ "$(id -u)" -ne 0 ] || export FASTROUTE_NO_SKIP=1

# Every suite must be there to pass: a build directory configured without
# cmocka or python3 registers fewer tests, and meson would run what is left.
for b in build build-asan; do
	tests=$(meson introspect "$b" --tests)
	for suite in unit integration e2e; do
		if ! printf '%s' "$tests" | grep -q "\"fastroute:$suite\""; then
			echo "run-tests: $b/ has no $suite tests: it was configured before what they need was installed (scripts/setup.sh --test); run: meson setup --reconfigure $b" >&2
			exit 1
		fi
	done
	# and each test a tool decides on (lua5.4: the Pktgen scripts' test)
	for name in pktgen_lua daemon replace_random; do
		if ! printf '%s' "$tests" | grep -q "\"name\": \"$name\""; then
			echo "run-tests: $b/ has no test $name: it was configured before what it needs was installed (scripts/setup.sh --test); run: meson setup --reconfigure $b" >&2
			exit 1
		fi
	done
done

step "lint: clang-format"
scripts/lint.sh

# Two suites at a time, whatever the machine's count of cores: every
# router's worker polls on CPU 1 (-l 0-1), and three side by side starved
# the tests that watch a neighbour's state change or the ASan build's
# answers. Two at a time take about half the time one at a time took
# (most of a suite's time is waiting: timers, replies, a router's start).
# The daemon suite runs alone, first (tests/meson.build says why).
if [ "$(id -u)" -eq 0 ]; then
	step "unit, integration, end-to-end (release build)"
	mtest build --num-processes 2 --suite unit --suite integration --suite e2e \
		--print-errorlogs
else
	step "unit, integration (release build); end-to-end SKIPPED, they need root (network namespaces, veth, af_packet)"
	mtest build --num-processes 2 --suite unit --suite integration --print-errorlogs
	skipped "end-to-end (release build): needs root"
fi

step "unit, integration, end-to-end under ASan + UBSan"
if [ "$(id -u)" -eq 0 ]; then
	mtest build-asan --num-processes 2 --suite unit --suite integration --suite e2e \
		--print-errorlogs
else
	mtest build-asan --num-processes 2 --suite unit --suite integration --print-errorlogs
	echo "(end-to-end under ASan SKIPPED: needs root)"
	skipped "end-to-end under ASan + UBSan: needs root"
fi

if [ "$(id -u)" -eq 0 ]; then
	# the README's first command: its demo must keep working too
	step "make run's demo (scripts/demo.sh): h1 -> fastroute -> h2 over IPv4 and IPv6"
	demo=$(mktemp /tmp/fastroute-demo-out.XXXXXX)
	rc=0
	timeout 120 scripts/demo.sh >"$demo" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q "^demo: success: " "$demo"; then
		cat "$demo" >&2
		rm -f "$demo"
		echo "FAIL: the demo (make run) failed: exit $rc" >&2
		exit 1
	fi
	grep "^demo: success: " "$demo"
	rm -f "$demo"
else
	step "make run's demo: SKIPPED, it needs root (network namespaces, veth)"
	skipped "make run's demo: needs root"
fi

if [ "$(id -u)" -eq 0 ]; then
	step "benchmark tools: a smoke run of each (well-formed output, never a speed)"
	scripts/bench/run.sh --quick
	step "benchmark tools: a run past its deadline stops, says so, leaves nothing behind"
	# the bench's DPDK processes: kbench (frkb), the harness's (frb)
	bench_procs="file-prefix frkb|file-prefix frb|fastroute-pktgen"
	dl=$(mktemp /tmp/fastroute-deadline.XXXXXX)
	ls -d /tmp/fastroute-bench.* >"$dl.before" 2>/dev/null || true
	rc=0
	BENCH_DEADLINE=3 scripts/bench/run.sh --quick >/dev/null 2>"$dl" || rc=$?
	sleep 1
	ls -d /tmp/fastroute-bench.* >"$dl.after" 2>/dev/null || true
	why=
	if [ "$rc" -ne 143 ] || ! grep -q "still running after 3 s (BENCH_DEADLINE)" "$dl"; then
		why="BENCH_DEADLINE=3 run.sh --quick: exit $rc, not 143 with its message"
	elif pgrep -f "$bench_procs" >/dev/null; then
		why="a run stopped at its deadline left its DPDK processes running"
	elif ! cmp -s "$dl.before" "$dl.after"; then
		why="a run stopped at its deadline left its /tmp/fastroute-bench.* directory"
	fi
	[ -z "$why" ] || { cat "$dl" >&2; pgrep -af "$bench_procs" >&2 || true; }
	rm -f "$dl" "$dl.before" "$dl.after"
	[ -z "$why" ] || { echo "FAIL: $why" >&2; exit 1; }
	echo "stopped at its deadline (exit 143), nothing left running"
else
	step "benchmark tools: SKIPPED, they need root (memif, DPDK)"
	skipped "benchmark tools' smoke run: needs root"
fi

step "fuzzing: each libFuzzer target for 20 s (ASan + UBSan; make fuzz: longer)"
scripts/fuzz.sh 20

if [ -s "$FASTROUTE_SKIPS" ]; then
	step "the suites that ran passed in $(($(date +%s) - t0)) s; these did NOT run:"
	sed 's/^/  SKIPPED /' "$FASTROUTE_SKIPS"
else
	step "all suites passed in $(($(date +%s) - t0)) s"
fi
# the suite is kept under 20 minutes (CI allows 90): past that, said
# loudly, not failed (a slow or shared machine is not a fault of the code)
if [ $(($(date +%s) - t0)) -gt 1200 ]; then
	step "WARNING: the suites took $(($(date +%s) - t0)) s, over their 20-minute budget"
fi
