#!/bin/bash
# Benchmark, not a test: resync of a mirror leg that missed scattered
# writes, dst against md raid1 with an internal bitmap, in one guest.
#   dst: mirror(ram0, remote export of ram1) --assume-clean; the export
#        stops, 4 KiB writes land in 10 % of the 1 MiB regions, the export
#        comes back; timed from the node connected again to every leg in
#        sync.
#   md:  raid1(ram2, ram3) --bitmap=internal --bitmap-chunk=1M
#        --assume-clean; ram3 failed and removed, the same writes, then
#        --re-add; timed from the re-add to the end of the recovery.
# Both with their speed limits raised out of the way, both polled every
# 50 ms (so times under a few tenths of a second are coarse). Prints the
# seconds and the ratio dst / md (target <= 1.0). Not measured: the
# application's throughput during the resync.
# Output: $DST_RESULTS/bench-resync.txt
set -euo pipefail
# shellcheck source=tests/bench/bench-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/bench/bench-lib.sh"

MIB=256
PORT=7310
export DM_DISABLE_UDEV=1

cleanup() {
	set +e
	bounded 60 dstadm delete brs 2>/dev/null
	bounded 60 dstadm unexport brsx 2>/dev/null
	[[ -b /dev/md0 ]] && mdadm --stop /dev/md0 >/dev/null 2>&1
	dst_loaded && rmmod dst
	grep -q '^brd ' /proc/modules && rmmod brd
}
trap cleanup EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# The writes: one 4 KiB block in every tenth 1 MiB region, at an offset
# that moves from region to region.
scatter() {
	local dev=$1 r
	for ((r = 0; r < MIB; r += 10)); do
		dd if=/dev/urandom of="$dev" bs=4K count=1 seek=$((r * 256 + (r * 37) % 256)) \
			oflag=direct status=none
	done
}

if grep -q '^brd ' /proc/modules; then rmmod brd; fi
modprobe brd rd_nr=4 rd_size=$((MIB * 1024))
for i in 0 1 2 3; do
	bounded 120 dd if=/dev/zero of=/dev/ram$i bs=1M count=$MIB oflag=direct status=none
done
ip link set lo up
modprobe dst

# dst
bounded 30 dstadm export brsx --device /dev/ram1 --listen 127.0.0.1:$PORT
bounded 30 dstadm create brs --alg mirror --chunk-size 1M --resync-min 4000M --resync-max 4000M
bounded 30 dstadm add brs local /dev/ram0 >/dev/null
bounded 30 dstadm add brs remote 127.0.0.1:$PORT --reconnect-max 1 >/dev/null
bounded 30 dstadm start brs --assume-clean
DEV=$(dstadm status brs --json | jq -r '.storages[0].device')
bounded 30 dstadm unexport brsx
scatter "$DEV"
dirty=$(dstadm status brs --json | jq '.storages[0].nodes[1].dirty_regions')
bounded 30 dstadm export brsx --device /dev/ram1 --listen 127.0.0.1:$PORT
until [[ "$(dstadm status brs --json | jq -r '.storages[0].nodes[1].state')" == connected ]]; do
	sleep 0.05
done
SYNC=/sys/block/${DEV#/dev/}/dst/node1/sync
t0=$(now)
# Polled in sysfs every 50 ms, as md below.
until [[ "$(cat "$SYNC")" == in-sync ]]; do
	sleep 0.05
done
t1=$(now)
DST_S=$(elapsed "$t0" "$t1")
echo "bench: dst resynced $dirty dirty regions in $DST_S s"
bounded 60 dstadm delete brs
bounded 30 dstadm unexport brsx

# md
echo 4000000 >/proc/sys/dev/raid/speed_limit_max
echo 4000000 >/proc/sys/dev/raid/speed_limit_min
bounded 60 mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
	--bitmap=internal --bitmap-chunk=1M --assume-clean /dev/ram2 /dev/ram3 >/dev/null 2>&1
bounded 60 mdadm /dev/md0 --fail /dev/ram3 >/dev/null 2>&1
bounded 60 mdadm /dev/md0 --remove /dev/ram3 >/dev/null 2>&1
scatter /dev/md0
t0=$(now)
bounded 60 mdadm /dev/md0 --re-add /dev/ram3 >/dev/null 2>&1
until [[ "$(cat /sys/block/md0/md/degraded)" == 0 &&
	"$(cat /sys/block/md0/md/sync_action)" == idle ]]; do
	sleep 0.05
done
t1=$(now)
MD_S=$(elapsed "$t0" "$t1")
echo "bench: md re-add recovered in $MD_S s"
grep -A3 md0 /proc/mdstat || true

{
	echo "dst resync bench: ${MIB} MiB legs, 1 MiB regions, 10 % of them written while a leg was away"
	printf '%-8s %10s\n' peer seconds
	printf '%-8s %10s\n' dst "$DST_S" md "$MD_S"
	printf 'dst/md %s (target <= 1.00)\n' \
		"$(awk -v a="$DST_S" -v b="$MD_S" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }')"
} | tee "$OUT/bench-resync.txt"
