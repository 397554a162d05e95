#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Build the libFuzzer targets (clang, ASan+UBSan, build-fuzz/) and run them
# side by side, each for a bounded time: scripts/fuzz.sh [SECONDS] (1 to
# 999999, default 300; make test uses 20). Seeds come from
# scripts/fuzz-seeds.py; what each run finds is kept in
# build-fuzz/corpus/TARGET.run. A crash, leak, timeout, out-of-memory or
# sanitizer report fails (an input running over 25 s is a timeout), with the
# input kept in build-fuzz/. An input that was only slow (libFuzzer's
# slow-unit report: the machine stalled, or a slow path worth a look) is
# named, not failed. A failing input an earlier run left is run again first:
# still failing, it fails this run at once (fix it, or remove the file);
# passing now, it is moved to build-fuzz/art-old/, never deleted.
set -eu
cd "$(dirname "$0")/.."
case "${1:-300}" in
-h | --help)
	sed -n '3,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
	exit 0
	;;
'' | *[!0-9]* | *[!0]*[0-9][0-9][0-9][0-9][0-9][0-9]* | 0*)
	# libFuzzer takes 0 (and 00) as no limit; a million seconds is none too
	echo "fuzz: SECONDS must be a number from 1 to 999999 without leading zeros, not '$1' (scripts/fuzz.sh --help)" >&2
	exit 2
	;;
esac
if [ $# -gt 1 ]; then
	echo "fuzz: takes one argument, SECONDS, not '$*' (scripts/fuzz.sh --help)" >&2
	exit 2
fi
secs=${1:-300}

if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz -Dfuzz=enabled -Dtests=false -Dbuildtype=debugoptimized \
		-Db_sanitize=address,undefined -Db_lundef=false
fi
ninja -C build-fuzz
python3 scripts/fuzz-seeds.py build-fuzz/corpus
# the targets run side by side (one core each on a machine of two: make
# test's 30 s each take 30 s, not 60), each with its own log, judged once
# both have ended
logs=$(mktemp -d)
pids=
# dash runs the EXIT trap on exit only: signals end the script through it
trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$logs"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
targets="packet config"
# an earlier run's failing inputs, which libFuzzer keeps out of the corpus:
# run once each (a file as the argument); this run's verdict is its own
# only once they pass
stale=
for t in $targets; do
	for f in build-fuzz/art-"$t"-*; do
		[ -e "$f" ] || continue
		case "$f" in
		*-slow-unit-*) ;;
		*)
			# the fuzzing runs' own limit: a timeout input is one still
			if ! "build-fuzz/tests/fuzz/fuzz_$t" -timeout=25 "$f" >"$logs/replay" 2>&1; then
				tail -n 40 "$logs/replay" >&2
				stale="$stale $f"
				continue
			fi
			;;
		esac
		mkdir -p build-fuzz/art-old
		mv "$f" build-fuzz/art-old/
		echo "fuzz: $f (an earlier run's) passes now: moved to build-fuzz/art-old/"
	done
done
if [ -n "$stale" ]; then
	echo "fuzz: an earlier run's input still fails:$stale (fix it, or remove the file)" >&2
	exit 1
fi
for t in $targets; do
	mkdir -p "build-fuzz/corpus/$t.run"
	echo "fuzz: $t for $secs s"
	# the fuzzer itself in the background: its pid is what the trap stops
	build-fuzz/tests/fuzz/fuzz_$t -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="build-fuzz/art-$t-" -max_len=4096 -timeout=25 \
		"build-fuzz/corpus/$t.run" "build-fuzz/corpus/$t" >"$logs/$t" 2>&1 &
	pids="$pids $!"
done
for p in $pids; do
	rc=0
	wait "$p" || rc=$?
	echo "$rc" >"$logs/$p.rc"
done
set -- $pids
pids=
failed=
for t in $targets; do
	log=$logs/$t
	rc=$(cat "$logs/$1.rc")
	shift
	echo "fuzz: $t:"
	grep -E "^(stat::number_of_executed_units|stat::average_exec_per_sec|Done|INFO: seed)|ERROR|SUMMARY|runtime error|Slow unit" "$log" || true
	bad=$(ls build-fuzz/art-$t-crash-* build-fuzz/art-$t-leak-* build-fuzz/art-$t-timeout-* \
		build-fuzz/art-$t-oom-* 2>/dev/null || true)
	if [ "$rc" -ne 0 ] || [ -n "$bad" ] || grep -q "runtime error" "$log"; then
		# the whole report, stack frames included
		tail -n 80 "$log" >&2
		echo "fuzz: $t failed (exit $rc): ${bad:-see the report above}" >&2
		failed="$failed $t"
	fi
	for f in build-fuzz/art-$t-slow-unit-*; do
		if [ -e "$f" ]; then
			echo "fuzz: $t: slow input kept (not a failure): $f"
		fi
	done
done
[ -z "$failed" ] || exit 1
