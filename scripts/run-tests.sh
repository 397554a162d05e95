#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every test suite, as 'make test' and CI run them (after scripts/setup.sh --test):
#   formatting, unit (cmocka), integration (daemon with net_null ports),
#   end-to-end (root: netns + veth + net_af_packet + kernel hosts), then unit,
#   integration and end-to-end again under ASan + UBSan, a smoke run of the
#   benchmark tools (root), then each fuzz target for 30 s. Fails when a
#   build directory lacks a suite rather than run fewer.
set -eu
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }
t0=$(date +%s)

# UBSan's findings fail the test that hits them (gcc's runtime only prints
# them, and meson 1.0 sets no UBSAN_OPTIONS)
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
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
done

step "lint: clang-format"
scripts/lint.sh

step "unit, integration (release build)"
meson test -C build --suite unit --suite integration --print-errorlogs

if [ "$(id -u)" -eq 0 ]; then
	step "end-to-end (release build)"
	meson test -C build --suite e2e --print-errorlogs
else
	step "end-to-end: SKIPPED, they need root (network namespaces, veth, af_packet)"
fi

step "unit, integration, end-to-end under ASan + UBSan"
if [ "$(id -u)" -eq 0 ]; then
	meson test -C build-asan --suite unit --suite integration --suite e2e --print-errorlogs
else
	meson test -C build-asan --suite unit --suite integration --print-errorlogs
	echo "(end-to-end under ASan SKIPPED: needs root)"
fi

if [ "$(id -u)" -eq 0 ]; then
	step "benchmark tools: a smoke run of each (well-formed output, never a speed)"
	scripts/bench/run.sh --quick
else
	step "benchmark tools: SKIPPED, they need root (memif, DPDK)"
fi

step "fuzzing: each libFuzzer target for 30 s (ASan + UBSan)"
scripts/fuzz.sh 30

step "all suites passed in $(($(date +%s) - t0)) s"
