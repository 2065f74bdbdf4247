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
# md speed_limit_min and _max) after a leg missed a write in every
# region (1 GiB to copy), with fio 4 KiB random read/write (QD 8) on the
# array for 48 s from the moment the leg is back, during which the
# resync runs and is paused by turns in 6 s phases, ABBA (dst: both
# limits to 1 KiB/s and back; md: sync_action frozen and idle). The
# share of the application's throughput kept while the resync runs is
# the mean of its seconds with the resync running over that of its
# seconds with it paused, in one fio run, so that the guest's swings (an
# application on a remote leg under TCG moves 3 to 28 MB/s from one
# second to the next, and separate 10 s runs differed by tens of
# percent) fall on both sides. Also the mean write latency, running over
# paused. Three rounds, the peers taking turns. Higher shares are
# better; compare shares, not MB/s (md's second member is a local ram
# disk).
# The legs are new ram disks, all zeros, so --assume-clean is the truth.
# Output: $DST_RESULTS/bench-resync.txt
set -euo pipefail
# shellcheck source=tests/bench/bench-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/bench/bench-lib.sh"

MIB=1024
TOGGLE_SECS=48
PHASE=6
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

# toggle DEV PAUSE RESUME COPIED: fio on DEV for TOGGLE_SECS s with a log of
# every second, in phases of PHASE s: the resync running, paused (the
# command PAUSE), paused, running (RESUME), and so on (ABBA, so that a
# steady drift of the guest's speed falls on both sides alike); then the
# means of the seconds with the resync running and paused, each phase's
# first second left out: sets ON_MBS, OFF_MBS, ON_LAT and OFF_LAT (the
# mean write latency, ms), and COPY_MBS, the resync's MB/s over the time
# it ran (from the bytes the command COPIED prints before and after).
# Run in this shell: only it can wait for fio; the commands are builtins
# and the waits read -t, no forks in between.
toggle() {
	local dev=$1 pause=$2 resume=$3 copied=$4 t0 k left c0
	rm -f /tmp/tg_*.log
	c0=$("$copied")
	fio --name=app --filename="$dev" --direct=1 --ioengine=libaio --rw=randrw \
		--bs=4k --iodepth=8 --time_based --runtime=$TOGGLE_SECS \
		--write_bw_log=/tmp/tg --write_lat_log=/tmp/tg --log_avg_msec=1000 \
		--output-format=json --output=/tmp/app.json >/dev/null 2>&1 &
	APP=$!
	t0=${EPOCHREALTIME/./}
	for ((k = 1; k * PHASE < TOGGLE_SECS; k++)); do
		((k % 4 == 1 || k % 4 == 3)) || continue
		left=$((t0 + k * PHASE * 1000000 - ${EPOCHREALTIME/./}))
		if ((left > 0)); then
			printf -v left '%d.%06d' $((left / 1000000)) $((left % 1000000))
			read -r -t "$left" -u "$NAP" || true
		fi
		if ((k % 4 == 1)); then "$pause"; else "$resume"; fi
	done
	wait "$APP"
	COPY_MBS=$(awk -v b=$(($("$copied") - c0)) -v t=$((TOGGLE_SECS / 2)) \
		'BEGIN { printf "%.1f", b / 1e6 / t }')
	read -r ON_MBS OFF_MBS ON_LAT OFF_LAT < <(awk -F', *' -v p=$PHASE '
		FNR == 1 { f++ }
		{ s = int(($1 - 1) / 1000) }
		s % p == 0 { next }
		{ q = int(s / p) % 4; on = q == 0 || q == 3; secs[on, s] = 1 }
		f == 1 { bw[on] += $2 }
		f == 2 && $3 == 1 { lat[on] += $2; nl[on]++ }
		END {
			for (k in secs) { split(k, o, SUBSEP); n[o[1]]++ }
			printf "%.2f %.2f %.2f %.2f\n", bw[1] * 1024 / 1e6 / n[1],
				bw[0] * 1024 / 1e6 / n[0], lat[1] / 1e6 / nl[1],
				lat[0] / 1e6 / nl[0] }' /tmp/tg_bw.1.log /tmp/tg_clat.1.log)
}

# The pause and resume of each peer (dst: its limits, KiB/s; md: frozen
# stops the recovery, idle starts it again where it was).
dst_pause() {
	echo 1 >"$SYS/resync_min"
	echo 1 >"$SYS/resync_max"
}
dst_resume() {
	echo $SLOW_KIBS >"$SYS/resync_min"
	echo $SLOW_KIBS >"$SYS/resync_max"
}
md_pause() { echo frozen >/sys/block/md0/md/sync_action; }
md_resume() { echo idle >/sys/block/md0/md/sync_action; }
# What each has copied, bytes: dst counts them; md's recovery position
# in /proc/mdstat (KiB; none before it starts), which goes on where it
# was after frozen and idle (every region is to copy).
dst_copied() { echo "$(<"$SYS/resync_bytes")"; }
md_copied() {
	local re='recovery = *[0-9.]+% \(([0-9]+)/'
	if [[ "$(</proc/mdstat)" =~ $re ]]; then
		echo $((BASH_REMATCH[1] * 1024))
	else
		echo 0
	fi
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

# dst_round LIMIT TOGGLE: fresh ram disks 0 and 1 (all zeros), the leg
# away during the writes (to every tenth region, or with TOGGLE 1 to
# every one), back; sets DST_S, or with TOGGLE the application's
# numbers (toggle) and ENDED if the resync was over before fio.
dst_round() {
	local state sync stride=$(($2 == 0 ? 10 : 1))
	fresh_rams
	bounded 30 dstadm export brsx --device /dev/ram1 --listen 127.0.0.1:$PORT
	bounded 30 dstadm create brs --alg mirror --chunk-size 1M --resync-min "$1" --resync-max "$1"
	bounded 30 dstadm add brs local /dev/ram0 >/dev/null
	bounded 30 dstadm add brs remote 127.0.0.1:$PORT --reconnect-max 1 >/dev/null
	bounded 30 dstadm start brs --assume-clean
	DEV=$(dstadm status brs --json | jq -r '.storages[0].device')
	SYS=/sys/block/${DEV#/dev/}/dst
	sync=$SYS/node1/sync
	bounded 30 dstadm unexport brsx
	scatter "$DEV" "$stride"
	dirty=$(dstadm status brs --json | jq '.storages[0].nodes[1].dirty_regions')
	log0=$(klog_count)
	bounded 30 dstadm export brsx --device /dev/ram1 --listen 127.0.0.1:$PORT
	state=".storages[0].nodes[1].state"
	until [[ "$(dstadm status brs --json | jq -r "$state")" == connected ]]; do
		sleep 0.05
	done
	if [[ "$2" == 1 ]]; then
		toggle "$DEV" dst_pause dst_resume dst_copied
		ENDED=0
		sys_is "$sync" in-sync && ENDED=1
		echo "bench: dst app $ON_MBS MB/s resyncing, $OFF_MBS paused"
	else
		# Polled in sysfs every 50 ms, as md below, without a fork: the
		# polls forked a cat and a sleep before da22811, and with the
		# resync that cut dst's application share to about half.
		until sys_is "$sync" in-sync; do
			nap
		done
		DST_S=$(klog_secs "$log0" "node1: reconnected to" "brs: node1 in sync")
		echo "bench: dst resynced $dirty dirty regions in $DST_S s"
	fi
	bounded 60 dstadm delete brs
	bounded 30 dstadm unexport brsx
}

# md_round KIBS TOGGLE MEMBER: the same with md raid1, its second member
# ram1 itself (MEMBER local) or a dst import of an export of it over
# loopback (MEMBER remote: the same network leg as dst's mirror, so that
# only the mirrors differ); sets MD_S, or the application's numbers.
md_round() {
	local stride=$(($2 == 0 ? 10 : 1)) member=/dev/ram1 out
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
	if [[ "$2" == 1 ]]; then
		toggle /dev/md0 md_pause md_resume md_copied
		ENDED=0
		sys_is /sys/block/md0/md/degraded 0 && ENDED=1
		echo "bench: md ($3 member) app $ON_MBS MB/s recovering, $OFF_MBS frozen"
	else
		until sys_is /sys/block/md0/md/degraded 0 &&
			sys_is /sys/block/md0/md/sync_action idle; do
			nap
		done
		MD_S=$(klog_secs "$log0" "md: recovery of RAID array md0" "md: md0: recovery done")
		echo "bench: md ($3 member) re-add recovered in $MD_S s"
	fi
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

# toggled PEER ROUND: a line of the throttled table in ROWS from
# toggle's numbers, and the round's share and latency ratio kept in
# SHARES[PEER], LATS[PEER] and COPIES[PEER].
declare -A SHARES LATS COPIES
toggled() {
	local share lat row short=''
	share=$(ratio "$ON_MBS" "$OFF_MBS")
	lat=$(ratio "$ON_LAT" "$OFF_LAT")
	((ENDED == 0)) || short=' (resync ended first)'
	printf -v row '%-6s %5s %9s %9s %6s %9s %9s %6s %7s%s' "$1" "$2" "$ON_MBS" "$OFF_MBS" \
		"$share" "$ON_LAT" "$OFF_LAT" "$lat" "$COPY_MBS" "$short"
	ROWS+=("$row")
	SHARES[$1]+=" $share"
	LATS[$1]+=" $lat"
	COPIES[$1]+=" $COPY_MBS"
}

dst_round 4000M 0
FAST_DST=$DST_S
md_round 4000000 0 local
FAST_MD=$MD_S
md_round 4000000 0 remote
FAST_MDR=$MD_S
ROWS=()
for ((k = 1; k <= ROUNDS; k++)); do
	dst_round $SLOW 1
	toggled dst "$k"
	md_round $SLOW_KIBS 1 local
	toggled md "$k"
	md_round $SLOW_KIBS 1 remote
	toggled md-dst "$k"
done
# shellcheck disable=SC2086 # the lists of numbers split on purpose
{
	echo "dst resync bench: ${MIB} MiB legs, 1 MiB regions; md: raid1 with an internal bitmap,"
	echo "its second member ram1 itself (md) or a dst import of it over loopback (md-dst),"
	echo "the network leg of dst's mirror"
	echo "unthrottled, 10 % of the regions written while a leg was away:"
	printf '%-6s %8s\n' peer seconds dst "$FAST_DST" md "$FAST_MD" md-dst "$FAST_MDR"
	printf 'resync time dst/md %s, dst/md-dst %s (target <= 1.00)\n' \
		"$(ratio "$FAST_DST" "$FAST_MD")" "$(ratio "$FAST_DST" "$FAST_MDR")"
	echo "at $SLOW/s, every region written: fio 4 KiB randrw QD 8 for ${TOGGLE_SECS} s, the"
	echo "resync running and paused by turns (ABBA) every ${PHASE} s (MB/s and write latency"
	echo "in ms, means of the seconds; kept = running/paused, lat x = its latency/paused;"
	echo "copy: the resync's MB/s while it ran, from dst's resync_bytes, md's /proc/mdstat)"
	printf '%-6s %5s %9s %9s %6s %9s %9s %6s %7s\n' peer round "MB/s run" "MB/s off" kept \
		"lat run" "lat off" "lat x" copy
	printf '%s\n' "${ROWS[@]}"
	printf 'share kept (means of %s rounds): dst %s, md %s, md-dst %s\n' "$ROUNDS" \
		"$(mean ${SHARES[dst]})" "$(mean ${SHARES[md]})" "$(mean ${SHARES[md-dst]})"
	printf 'dst/md %s, dst/md-dst %s (target >= 1.00)\n' \
		"$(ratio "$(mean ${SHARES[dst]})" "$(mean ${SHARES[md]})")" \
		"$(ratio "$(mean ${SHARES[dst]})" "$(mean ${SHARES[md-dst]})")"
	printf 'write latency running/paused (means): dst %s, md %s, md-dst %s\n' \
		"$(mean ${LATS[dst]})" "$(mean ${LATS[md]})" "$(mean ${LATS[md-dst]})"
	printf 'resync MB/s while it ran (means): dst %s, md %s, md-dst %s\n' \
		"$(mean ${COPIES[dst]})" "$(mean ${COPIES[md]})" "$(mean ${COPIES[md-dst]})"
} | tee "$OUT/bench-resync.txt"
