#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Build DPDK's l3fwd example, the bare-lookup reference of the throughput
# harness, from the sources Debian's dpdk-doc package ships
# (/usr/share/dpdk/examples/l3fwd), into a directory outside git.
#
#   scripts/bench/l3fwd-build.sh [-o OUTDIR] [-f]     default OUTDIR: build-bench/l3fwd
#
# The sources are copied and the COPY is patched at build time (never
# commit l3fwd code or a patched copy):
#   - IPV4_L3FWD_LPM_MAX_RULES 1024 -> 1<<21 and IPV4_L3FWD_LPM_NUMBER_TBL8S
#     1<<8 -> 1<<16, so a 1,000,000-route Internet-like table fits (about 3%
#     of its routes, ~30k, are longer than /24 and need a tbl8 group each);
#   - the requested RX offloads are masked with the device's capabilities:
#     l3fwd 22.11 asks for RX checksum offload, which net_memif lacks, and
#     port setup fails otherwise;
#   - "LPM: Adding route" is printed for the first 4 routes only (not for
#     a million).
# Note: rte_lpm inserts a 1M-route table slowly (181 to 274 s on the 2-vCPU VM in
# make bench runs): the harness waits for it once per table.
# Prints the path of the binary on the last line of stdout.
set -eu
cd "$(dirname "$0")/../.."
out=build-bench/l3fwd
force=0
while [ $# -gt 0 ]; do
	case "$1" in
	-o)
		if [ $# -lt 2 ] || [ -z "$2" ]; then
			echo "l3fwd-build: -o needs a directory" >&2
			exit 2
		fi
		out=$2
		shift 2
		;;
	-f) force=1; shift ;;
	-h|--help) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "l3fwd-build: unknown option '$1' (-o OUTDIR, -f)" >&2; exit 2 ;;
	esac
done
src=/usr/share/dpdk/examples
if [ ! -f "$src/l3fwd/main.c" ]; then
	echo "l3fwd-build: $src/l3fwd not found: apt-get install dpdk-doc" >&2
	exit 1
fi
if ! pkg-config --exists libdpdk; then
	echo "l3fwd-build: libdpdk not found by pkg-config: apt-get install libdpdk-dev" >&2
	exit 1
fi
bin="$out/l3fwd"
stamp="$out/.stamp"
sum=$(cat "$0" "$src/l3fwd/"*.c "$src/l3fwd/"*.h | md5sum | cut -d' ' -f1)
want="$(pkg-config --modversion libdpdk) $sum"
if [ "$force" = 0 ] && [ -x "$bin" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	echo "l3fwd-build: up to date"
	echo "$bin"
	exit 0
fi

rm -rf "$out/src"
mkdir -p "$out/src"
cp -r "$src/l3fwd" "$src/common" "$out/src/"
s="$out/src/l3fwd"

# 1. LPM table sizes
sed -i -e 's/^#define IPV4_L3FWD_LPM_MAX_RULES .*/#define IPV4_L3FWD_LPM_MAX_RULES (1 << 21)/' \
	-e 's/^#define IPV4_L3FWD_LPM_NUMBER_TBL8S .*/#define IPV4_L3FWD_LPM_NUMBER_TBL8S (1 << 16)/' \
	"$s/l3fwd_lpm.c"
# 2. RX offloads the device cannot do (the queue setup reads the global port_conf)
mask='local_port_conf.rxmode.offloads \&= dev_info.rx_offload_capa;'
mask2='port_conf.rxmode.offloads \&= dev_info.rx_offload_capa;'
sed -i "s/^\([[:space:]]*\)if (dev_info.max_rx_queues == 1)\$/\1$mask\n\1$mask2\n&/" "$s/main.c"
# 3. one line per route is too many
sed -i 's/printf("LPM: Adding route/if (i < 4) printf("LPM: Adding route/' "$s/l3fwd_lpm.c"

# every patch must have applied (the sources may change with DPDK releases)
if ! grep -q 'IPV4_L3FWD_LPM_MAX_RULES (1 << 21)' "$s/l3fwd_lpm.c" ||
	! grep -q 'IPV4_L3FWD_LPM_NUMBER_TBL8S (1 << 16)' "$s/l3fwd_lpm.c" ||
	! grep -q 'port_conf.rxmode.offloads &= dev_info.rx_offload_capa' "$s/main.c" ||
	! grep -q 'if (i < 4) printf("LPM: Adding route' "$s/l3fwd_lpm.c"; then
	echo "l3fwd-build: patching the l3fwd sources failed (DPDK $(pkg-config --modversion libdpdk))" >&2
	exit 1
fi

# the example's own Makefile builds against the installed libdpdk via pkg-config
echo "l3fwd-build: building DPDK $(pkg-config --modversion libdpdk) l3fwd in $s"
make -s -C "$s" shared >"$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2
	echo "l3fwd-build: build failed (log: $out/build.log)" >&2
	exit 1
}
cp "$s/build/l3fwd-shared" "$bin"
echo "$want" >"$stamp"
echo "l3fwd-build: built $bin"
echo "$bin"
