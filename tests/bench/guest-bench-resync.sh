#!/bin/bash
# Benchmark, not a test: resync of a 1 GiB mirror leg that missed
# scattered writes, dst against md raid1 with an internal bitmap, in one
# guest; then the application's throughput during such a resync.
#   dst:    mirror(ram0, remote export of ram1) --assume-clean; the export
#           stops, 4 KiB writes land in 10 % of the 1 MiB regions, the
#           export comes back; timed from the kernel's "node1: reconnected"
#           to its "node1 in sync" (so the time the mirror takes to notice
#           is in).
#   md:     raid1(ram0, ram1) --bitmap=internal --bitmap-chunk=1M
#           --assume-clean; ram1 failed and removed, the same writes, then
#           --re-add; timed from the kernel's "recovery of RAID array md0"
#           to its "md0: recovery done".
#   md-dst: the same md, its second member a dst import of an export of
#           ram1 over loopback: the network leg of dst's mirror, so that
#           only the mirrors differ.
# All with their speed limits raised out of the way; the times are the
# kernel log's (to the ms: the script polls every 50 ms to know when to
# go on). Prints the seconds and the ratios of dst's (target <= 1.0).
# Then the resyncs held to 20 MB/s (dst --resync-min and --resync-max,
# md speed_limit_min and _max) after a leg missed a write in every second
# region (512 MiB to copy, about 26 s), and fio 4 KiB random read/write
# (QD 8) on the array for 10 s from the moment the leg is back: the
# application's MB/s during the resync, then the same for 10 s after it,
# and the share kept during the resync. The peers take turns, three times
# each, and the shares are averaged: single 3 s runs differed by 20 % from
# one run to the next, and an application on a remote leg under TCG moves
# 3 to 28 MB/s from one second to the next. Higher is better; compare
# shares, not MB/s (md's second member is a local ram disk).
# The legs are new ram disks, all zeros, so --assume-clean is the truth.
# Output: $DST_RESULTS/bench-resync.txt
set -euo pipefail
# shellcheck source=tests/bench/bench-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/bench/bench-lib.sh"

MIB=1024
APP_SECS=10
ROUNDS=3
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


# scatter DEV STRIDE: one 4 KiB write in every STRIDE-th 1 MiB region, at
# an offset that moves from region to region, up to DEV's end (md's is a
# little short of the ram disk's); one process (xfs_io), so that 512
# writes do not cost 512 forks.
scatter() {
	local dev=$1 stride=$2 r off size cmds=()
	size=$(blockdev --getsize64 "$dev")
	for ((r = 0; r < MIB; r += stride)); do
		off=$(((r * 256 + (r * 37) % 256) * 4096))
		((off + 4096 <= size)) || break
		cmds+=(-c "pwrite -q -S 0x5a $off 4k")
	done
	xfs_io -d "${cmds[@]}" "$dev"
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

# dst_round MIN MAX WITH_APP: fresh ram disks 0 and 1 (all zeros), the
# leg away during the writes (to every tenth region, or with the
# application to every second), back; sets DST_S (and DST_APP, DST_IDLE).
dst_round() {
	local state sync stride=$(($3 == 0 ? 10 : 2))
	fresh_rams
	bounded 30 dstadm export brsx --device /dev/ram1 --listen 127.0.0.1:$PORT
	bounded 30 dstadm create brs --alg mirror --chunk-size 1M --resync-min "$1" --resync-max "$2"
	bounded 30 dstadm add brs local /dev/ram0 >/dev/null
	bounded 30 dstadm add brs remote 127.0.0.1:$PORT --reconnect-max 1 >/dev/null
	bounded 30 dstadm start brs --assume-clean
	DEV=$(dstadm status brs --json | jq -r '.storages[0].device')
	bounded 30 dstadm unexport brsx
	scatter "$DEV" "$stride"
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

# md_round KIBS WITH_APP MEMBER: the same with md raid1, its second
# member ram1 itself (MEMBER local) or a dst import of an export of it
# over loopback (MEMBER remote: the same network leg as dst's mirror, so
# that only the mirrors differ); sets MD_S (and MD_APP, MD_IDLE).
md_round() {
	local stride=$(($2 == 0 ? 10 : 2)) member=/dev/ram1 out
	fresh_rams
	if [[ "$3" == remote ]]; then
		bounded 30 dstadm export brsx --device /dev/ram1 --listen 127.0.0.1:$PORT
		out=$(bounded 60 dstadm import bri --remote 127.0.0.1:$PORT)
		member=$(grep -o '/dev/dst[0-9]\+' <<<"$out" | head -n1)
		until [[ -b "$member" ]]; do nap; done
	fi
	echo "$1" >/proc/sys/dev/raid/speed_limit_max
	echo "$1" >/proc/sys/dev/raid/speed_limit_min
	bounded 60 mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		--bitmap=internal --bitmap-chunk=1M --assume-clean /dev/ram0 "$member" >/dev/null 2>&1
	bounded 60 mdadm /dev/md0 --fail "$member" >/dev/null 2>&1
	bounded 60 mdadm /dev/md0 --remove "$member" >/dev/null 2>&1
	scatter /dev/md0 "$stride"
	log0=$(klog_count)
	bounded 60 mdadm /dev/md0 --re-add "$member" >/dev/null 2>&1
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
	echo "bench: md ($3 member) re-add recovered in $MD_S s${MD_APP:+, app $MD_APP MB/s, $MD_IDLE MB/s after}"
	bounded 60 mdadm --stop /dev/md0 >/dev/null 2>&1
	if [[ "$3" == remote ]]; then
		bounded 60 dstadm delete bri
		bounded 30 dstadm unexport brsx
	fi
}

# mean X...: the mean of the numbers, two decimals; "-" if one is not.
mean() {
	printf '%s\n' "$@" | awk '!/^[0-9.e+]+$/ { bad = 1 } { s += $1; n++ }
		END { if (bad || !n) printf "-"; else printf "%.2f", s / n }'
}

# row PEER ROUND SECONDS DURING AFTER: a line of the throttled table; a
# resync shorter than the application's run says so.
row() {
	local short=''
	awk -v s="$3" -v a=$APP_SECS 'BEGIN { exit !(s < a) }' && short=' (resync ended first)'
	printf '%-6s %5s %10s %15s %14s %6s%s\n' "$1" "$2" "$3" "$4" "$5" "$(ratio "$4" "$5")" "$short"
}

DST_APP='' DST_IDLE=''
MD_APP='' MD_IDLE=''
dst_round 4000M 4000M 0
FAST_DST=$DST_S
md_round 4000000 0 local
FAST_MD=$MD_S
md_round 4000000 0 remote
FAST_MDR=$MD_S
ROWS=() DST_SHARES=() MD_SHARES=() MDR_SHARES=()
for ((k = 1; k <= ROUNDS; k++)); do
	dst_round $SLOW $SLOW 1
	ROWS+=("$(row dst "$k" "$DST_S" "$DST_APP" "$DST_IDLE")")
	DST_SHARES+=("$(ratio "$DST_APP" "$DST_IDLE")")
	md_round $SLOW_KIBS 1 local
	ROWS+=("$(row md "$k" "$MD_S" "$MD_APP" "$MD_IDLE")")
	MD_SHARES+=("$(ratio "$MD_APP" "$MD_IDLE")")
	md_round $SLOW_KIBS 1 remote
	ROWS+=("$(row md-dst "$k" "$MD_S" "$MD_APP" "$MD_IDLE")")
	MDR_SHARES+=("$(ratio "$MD_APP" "$MD_IDLE")")
done
DST_SHARE=$(mean "${DST_SHARES[@]}")
MD_SHARE=$(mean "${MD_SHARES[@]}")
MDR_SHARE=$(mean "${MDR_SHARES[@]}")

{
	echo "dst resync bench: ${MIB} MiB legs, 1 MiB regions; md: raid1 with an internal bitmap,"
	echo "its second member ram1 itself (md) or a dst import of it over loopback (md-dst),"
	echo "the network leg of dst's mirror"
	echo "unthrottled, 10 % of the regions written while a leg was away:"
	printf '%-6s %8s\n' peer seconds dst "$FAST_DST" md "$FAST_MD" md-dst "$FAST_MDR"
	printf 'resync time dst/md %s, dst/md-dst %s (target <= 1.00)\n' \
		"$(ratio "$FAST_DST" "$FAST_MD")" "$(ratio "$FAST_DST" "$FAST_MDR")"
	echo "at $SLOW/s, 50 % of the regions written, fio for ${APP_SECS} s during the resync and after it:"
	printf '%-6s %5s %10s %15s %14s %6s\n' peer round seconds "app MB/s then" "app MB/s after" kept
	printf '%s\n' "${ROWS[@]}"
	printf 'share kept (means of %s rounds): dst %s, md %s, md-dst %s\n' \
		"$ROUNDS" "$DST_SHARE" "$MD_SHARE" "$MDR_SHARE"
	printf 'dst/md %s, dst/md-dst %s (target >= 1.00)\n' \
		"$(ratio "$DST_SHARE" "$MD_SHARE")" "$(ratio "$DST_SHARE" "$MDR_SHARE")"
} | tee "$OUT/bench-resync.txt"
