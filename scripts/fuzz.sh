#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Build the libFuzzer targets (clang, ASan+UBSan, build-fuzz/) and run each
# for a bounded time: scripts/fuzz.sh [SECONDS] (default 300; make test
# uses 30). Seeds come from scripts/fuzz-seeds.py; what each run finds is
# kept in build-fuzz/corpus/TARGET.run. Any crash or sanitizer report fails.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-300}

if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz -Dfuzz=enabled -Dtests=false -Dbuildtype=debugoptimized \
		-Db_sanitize=address,undefined -Db_lundef=false
fi
ninja -C build-fuzz
python3 scripts/fuzz-seeds.py build-fuzz/corpus
for t in packet config; do
	mkdir -p "build-fuzz/corpus/$t.run"
	echo "fuzz: $t for $secs s"
	build-fuzz/tests/fuzz/fuzz_$t -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="build-fuzz/crash-$t-" -max_len=4096 \
		"build-fuzz/corpus/$t.run" "build-fuzz/corpus/$t" 2>&1 |
		grep -E "^(stat::number_of_executed_units|stat::average_exec_per_sec|Done|INFO: seed)|ERROR|SUMMARY|runtime error" || true
	if ls build-fuzz/crash-$t-* >/dev/null 2>&1; then
		echo "fuzz: $t found a crash: $(ls build-fuzz/crash-$t-*)" >&2
		exit 1
	fi
done
