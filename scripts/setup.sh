#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Set up a Debian 12 machine for fastroute and build it.
#   scripts/setup.sh           packages to build and run, then build/
#   scripts/setup.sh --test    also what the tests need, and build-asan/, build-fuzz/
#   scripts/setup.sh --bench   also what make bench needs (dpdk-doc's l3fwd, gnuplot)
# Idempotent: installs only missing packages, reconfigures only when needed.
set -eu
cd "$(dirname "$0")/.."

RUN_PKGS="gcc libc6-dev pkg-config meson ninja-build libdpdk-dev dpdk dpdk-dev libnuma-dev
libpcap-dev iproute2 ethtool iputils-ping procps"
TEST_PKGS="libcmocka-dev python3 python3-scapy iperf3 traceroute clang-format tcpdump clang dpdk-doc
libclang-rt-14-dev lua5.4 make"

BENCH_PKGS="dpdk-doc gnuplot-nox python3 make git"

want="$RUN_PKGS"
test_mode=0
case "${1:-}" in
--test)
	want="$RUN_PKGS $TEST_PKGS"
	test_mode=1
	;;
--bench)
	want="$RUN_PKGS $BENCH_PKGS"
	;;
-h | --help)
	sed -n '3,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
	exit 0
	;;
'') ;;
*)
	echo "setup: unknown option '$1' (--test, --bench, --help)" >&2
	exit 2
	;;
esac
if [ $# -gt 1 ]; then
	echo "setup: one option at most" >&2
	exit 2
fi

missing=""
for p in $want; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing Debian packages:$missing" >&2
		echo "setup: run as root (or: sudo apt-get install$missing)" >&2
		exit 1
	fi
	echo "setup: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi

# A build directory configured before these packages came (make run, then
# make test) would keep what it found then: no unit tests without cmocka, no
# integration or end-to-end suites without python3. Configure it again when
# packages were just added, or (for the tests) when it lacks the unit suite.
reconf() {
	# a setup stopped before it wrote build.ninja (Ctrl-C) leaves
	# meson-private/ behind, and meson setup then says "already
	# configured" while ninja finds nothing to build: set up anew
	if [ ! -f "$1/build.ninja" ] && [ -e "$1/meson-private" ]; then
		echo "setup: $1/ was left half set up: removing it"
		rm -rf "$1"
	fi
	[ -f "$1/build.ninja" ] || return 0
	if [ -n "$missing" ]; then
		echo "setup: packages were added: reconfiguring $1/"
	elif [ "$test_mode" = 1 ] && [ "$1" != build-fuzz ] &&
		! meson introspect "$1" --tests | grep -q '"fastroute:unit"'; then
		echo "setup: $1/ has no unit tests: reconfiguring it"
	else
		return 0
	fi
	meson setup --reconfigure "$1"
}

# build/: the release build, warnings are errors
reconf build
if [ ! -f build/build.ninja ]; then
	meson setup build -Dwerror=true
fi
ninja -C build

# build-asan/: ASan + UBSan, for the unit and end-to-end suites
if [ "$test_mode" = 1 ]; then
	reconf build-asan
	if [ ! -f build-asan/build.ninja ]; then
		meson setup build-asan -Dwerror=true -Dbuildtype=debug \
			-Db_sanitize=address,undefined -Db_lundef=false
	fi
	ninja -C build-asan
	# build-fuzz/: libFuzzer targets, clang, ASan + UBSan (scripts/fuzz.sh)
	reconf build-fuzz
	if [ ! -f build-fuzz/build.ninja ]; then
		CC=clang meson setup build-fuzz -Dfuzz=enabled -Dtests=false \
			-Dbuildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false
	fi
	ninja -C build-fuzz
fi
