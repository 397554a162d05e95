#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Throughput harness: fastroute vs dpdk-testpmd io/mac vs DPDK l3fwd-LPM, each
# as the memif client of a one-core generator (fastroute-pktgen), interleaved,
# with vCPU placement probes before and after every run. Bounded in time; every
# process it starts is stopped and its files removed on exit.
#
#   scripts/bench/throughput.sh --quick                  # smoke run, ~30 s
#   scripts/bench/throughput.sh --out runs.jsonl         # default run, ~11 min
#   scripts/bench/throughput.sh --routes 1,10000 --profiles 1flow,random1m \
#       --sizes 64 --rounds 2
#
# Options (--help for all): --routes, --profiles, --sizes, --duts, --rounds,
# --rounds-for ROUTES:PROFILE:SIZE=N (more rounds for one configuration),
# --warmup, --duration, --seed, --out FILE (JSON lines), --summary FILE,
# --quick, --wait-idle SEC (shared machines), --time-limit SEC, --keep (logs).
# Needs root (memif sockets, DPDK), 2 CPUs, 'ninja -C build' done, dpdk-testpmd
# (Debian 'dpdk-dev') and dpdk-doc (l3fwd sources) for the reference DUTs.
# The logic lives in scripts/bench/fastbench.py (see its header for the method).
set -eu
here=$(dirname "$0")
py=/usr/bin/python3
[ -x "$py" ] || py=python3
# the harness's own --time-limit ends it first, cleaning up; this is the
# backstop: the harness is told its seconds and refuses a --time-limit that
# leaves it less than a minute
limit=7200
FASTBENCH_WRAPPER_TIMEOUT=$limit
export FASTBENCH_WRAPPER_TIMEOUT
exec timeout --signal=TERM --kill-after=60 "$limit" "$py" "$here/fastbench.py" throughput "$@"
