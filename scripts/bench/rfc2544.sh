#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# RFC 2544-style zero-loss throughput search (binary search on the offered
# rate, bounded number of trials) with fastroute-pktgen as the generator.
# Usage and method: scripts/bench/README-rfc2544.md.
#
#   scripts/bench/rfc2544.sh                          # memif demo against a local fastroute
#   scripts/bench/rfc2544.sh --gen-eal '-l 2 -a 0000:03:00.0 -a 0000:03:00.1' \
#       --dut-mac0 MAC0 --dut-mac1 MAC1 --routes 10000 --size 64 --trial 30
set -eu
here=$(dirname "$0")
py=/usr/bin/python3
[ -x "$py" ] || py=python3
# the harness's own --time-limit ends it first, printing what it found and
# cleaning up; this is the backstop: the harness is told its seconds and
# refuses a --time-limit, given or computed, that leaves it less than a
# minute
limit=7200
FASTBENCH_WRAPPER_TIMEOUT=$limit
export FASTBENCH_WRAPPER_TIMEOUT
exec timeout --signal=TERM --kill-after=60 "$limit" "$py" "$here/fastbench.py" rfc2544 "$@"
