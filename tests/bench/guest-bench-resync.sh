#!/bin/bash
# Benchmark, not a test: resync of a 1 GiB mirror leg that missed
# scattered writes, dst against md raid1 with an internal bitmap, in one
# guest; then the application's throughput during such a resync.
#   dst: mirror(ram0, remote export of ram1) --assume-clean; the export
#        stops, 4 KiB writes land in 10 % of the 1 MiB regions, the export
#        comes back; timed from the kernel's "node1: reconnected" to its
#        "node1 in sync" (so the time the mirror takes to notice is in).
#   md:  raid1(ram0, ram1) --bitmap=internal --bitmap-chunk=1M
#        --assume-clean; ram1 failed and removed, the same writes, then
#        --re-add; timed from the kernel's "recovery of RAID array md0" to
#        its "md0: recovery done".
# Both with their speed limits raised out of the way; the times are the
# kernel log's (to the ms: the script polls every 50 ms to know when to
# go on). Prints the seconds and the ratio dst / md (target <= 1.0).
# Then the same again with both resyncs held to 20 MB/s (dst --resync-min
# and --resync-max, md speed_limit_min and _max), so that each lasts about
# 5 s, and fio 4 KiB random read/write (QD 8) on the array for 3 s from
# the moment the leg is back: the application's MB/s during the resync,
# then the same for 3 s after it, and the share kept during the resync,
# dst against md (higher is better; the MB/s differ: dst's second leg is
# remote over loopback, md's a local ram disk). The legs are new ram disks,
# all zeros, so --assume-clean is the truth.
# Output: $DST_RESULTS/bench-resync.txt
set -euo pipefail
# shellcheck source=tests/bench/bench-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/bench/bench-lib.sh"

MIB=1024
APP_SECS=3
SLOW=20M		# the throttled resync, both peers
SLOW_KIBS=19532
PORT=7310
export DM_DISABLE_UDEV=1

cleanup() {
	set +e
	bounded 60 dstadm delete brs 2>/dev/null
	bounded 60 dstadm unexport brsx 2>/dev/null
	[[ -b /dev/md0 ]] && mdadm --stop /dev/md0 >/dev/null 2>&1
	dst_loaded && rmmod dst_storage
	grep -q '^brd ' /proc/modules && rmmod brd
}
trap cleanup EXIT


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
ip link set lo up
modprobe dst_storage

# app DEV: fio on DEV for APP_SECS s, in the background; app_wait waits
# for it and sets APP_MBS (run in this shell: only it can wait for fio).
app() {
	fio --name=app --filename="$1" --direct=1 --ioengine=libaio --rw=randrw \
		--bs=4k --iodepth=8 --time_based --runtime=$APP_SECS \
		--output-format=json --output=/tmp/app.json >/dev/null 2>&1 &
	APP=$!
}
app_wait() {
	wait "$APP"
	APP_MBS=$(jq '.jobs[0] | (.read.bw_bytes + .write.bw_bytes) / 1e6 | . * 100 | round / 100' /tmp/app.json)
}

# app_then DEV: the run during the resync, then one after it: sets
# APP_DURING and APP_AFTER.
app_then() {
	app_wait
	APP_DURING=$APP_MBS
	app "$1"
	app_wait
	APP_AFTER=$APP_MBS
}

# Two new ram disks, written whole first so that no peer pays for brd's
# page allocation during its resync.
fresh_rams() {
	local i
	if grep -q '^brd ' /proc/modules; then rmmod brd; fi
	modprobe brd rd_nr=2 rd_size=$((MIB * 1024))
	for i in 0 1; do
		bounded 300 dd if=/dev/zero of=/dev/ram$i bs=1M count=$MIB oflag=direct status=none
	done
}

# dst_round MIN MAX WITH_APP: fresh ram disks 0 and 1 (all zeros),
# the leg away during the writes, back; sets DST_S (and DST_APP).
dst_round() {
	local state sync
	fresh_rams
	bounded 30 dstadm export brsx --device /dev/ram1 --listen 127.0.0.1:$PORT
	bounded 30 dstadm create brs --alg mirror --chunk-size 1M --resync-min "$1" --resync-max "$2"
	bounded 30 dstadm add brs local /dev/ram0 >/dev/null
	bounded 30 dstadm add brs remote 127.0.0.1:$PORT --reconnect-max 1 >/dev/null
	bounded 30 dstadm start brs --assume-clean
	DEV=$(dstadm status brs --json | jq -r '.storages[0].device')
	bounded 30 dstadm unexport brsx
	scatter "$DEV"
	dirty=$(dstadm status brs --json | jq '.storages[0].nodes[1].dirty_regions')
	log0=$(klog_count)
	bounded 30 dstadm export brsx --device /dev/ram1 --listen 127.0.0.1:$PORT
	state=".storages[0].nodes[1].state"
	until [[ "$(dstadm status brs --json | jq -r "$state")" == connected ]]; do
		sleep 0.05
	done
	[[ "$3" == 0 ]] || app "$DEV"
	sync=/sys/block/${DEV#/dev/}/dst/node1/sync
	# Polled in sysfs every 50 ms, as md below, without a fork: the
	# polls forked a cat and a sleep before da22811, and with the resync
	# that cut dst's application share to about half, though the same
	# polling cost an in-sync mirror nothing.
	until sys_is "$sync" in-sync; do
		nap
	done
	DST_S=$(klog_secs "$log0" "node1: reconnected to" "brs: node1 in sync")
	if [[ "$3" != 0 ]]; then
		app_then "$DEV"
		DST_APP=$APP_DURING DST_IDLE=$APP_AFTER
	fi
	echo "bench: dst resynced $dirty dirty regions in $DST_S s${DST_APP:+, app $DST_APP MB/s, $DST_IDLE MB/s after}"
	bounded 60 dstadm delete brs
	bounded 30 dstadm unexport brsx
}

# md_round KIBS WITH_APP: the same with md raid1; sets MD_S (and MD_APP).
md_round() {
	fresh_rams
	echo "$1" >/proc/sys/dev/raid/speed_limit_max
	echo "$1" >/proc/sys/dev/raid/speed_limit_min
	bounded 60 mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		--bitmap=internal --bitmap-chunk=1M --assume-clean /dev/ram0 /dev/ram1 >/dev/null 2>&1
	bounded 60 mdadm /dev/md0 --fail /dev/ram1 >/dev/null 2>&1
	bounded 60 mdadm /dev/md0 --remove /dev/ram1 >/dev/null 2>&1
	scatter /dev/md0
	log0=$(klog_count)
	bounded 60 mdadm /dev/md0 --re-add /dev/ram1 >/dev/null 2>&1
	[[ "$2" == 0 ]] || app /dev/md0
	until sys_is /sys/block/md0/md/degraded 0 &&
		sys_is /sys/block/md0/md/sync_action idle; do
		nap
	done
	MD_S=$(klog_secs "$log0" "md: recovery of RAID array md0" "md: md0: recovery done")
	if [[ "$2" != 0 ]]; then
		app_then /dev/md0
		MD_APP=$APP_DURING MD_IDLE=$APP_AFTER
	fi
	echo "bench: md re-add recovered in $MD_S s${MD_APP:+, app $MD_APP MB/s, $MD_IDLE MB/s after}"
	bounded 60 mdadm --stop /dev/md0 >/dev/null 2>&1
}


DST_APP='' DST_IDLE=''
MD_APP='' MD_IDLE=''
dst_round 4000M 4000M 0
FAST_DST=$DST_S
md_round 4000000 0
FAST_MD=$MD_S
dst_round $SLOW $SLOW 1
md_round $SLOW_KIBS 1

{
	echo "dst resync bench: ${MIB} MiB legs, 1 MiB regions, 10 % of them written while a leg was away"
	printf '%-6s %8s %10s %15s %13s %6s\n' peer seconds "at $SLOW/s" "app MB/s then" "app MB/s after" kept
	printf '%-6s %8s %10s %15s %13s %6s\n' \
		dst "$FAST_DST" "$DST_S" "$DST_APP" "$DST_IDLE" "$(ratio "$DST_APP" "$DST_IDLE")" \
		md "$FAST_MD" "$MD_S" "$MD_APP" "$MD_IDLE" "$(ratio "$MD_APP" "$MD_IDLE")"
	printf 'resync time dst/md %s (target <= 1.00)\n' "$(ratio "$FAST_DST" "$FAST_MD")"
	printf 'app throughput during a %s/s resync, share of the same without resync: dst/md %s\n' \
		"$SLOW" "$(ratio "$(ratio "$DST_APP" "$DST_IDLE")" "$(ratio "$MD_APP" "$MD_IDLE")")"
	echo "(dst's mirror has a remote leg over loopback, md two local ram disks: compare shares, not MB/s)"
} | tee "$OUT/bench-resync.txt"
