#!/bin/bash
# The bitmap's promises hold across a power loss of the legs' caches, and
# fail safe when the bitmap itself fails (kernel review D4 and D5):
# - the legs are flushed before a region's bit is cleared on disk, before
#   a resynced leg is called in sync, and before the bitmap is marked clean
#   at stop.  The legs and the bitmap are loop devices (blk-mq, with a
#   write cache); an ftrace of their requests (block_rq_issue/complete),
#   of a kprobe on dst_bitmap_legs_changed (a leg called in sync) and of
#   marks between the steps gives the order, which tests/tools/flushorder.py
#   checks: each data write a leg completed is followed by a flush issued
#   after it and completed before the bitmap is written / the leg state
#   changes.  For the sweep, the write to node1 is held in a dm-delay
#   (flushes pass) across one sweep, so that a sweep that writes the
#   cleared bits before it flushes finds only an older flush (tests audit
#   M5: seen failing on modules built with each order reversed);
# - once a write of the bitmap has failed, a leg's failure cannot be
#   recorded: writes then fail instead of being acknowledged with the
#   header still calling that leg in sync.
# On 262ada2 no leg ever saw a flush, and the write after the failures
# succeeded: seen failing there.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

T=/sys/kernel/tracing
ORDER=$DST_ROOT/tests/tools/flushorder.py
TRACE=/tmp/bf/trace

trace_off() {
	[[ -e $T/tracing_on ]] || return 0
	echo 0 >"$T/tracing_on"
	echo 1 >"$T/options/pause-on-trace"
	echo 0 >"$T/events/block/block_rq_issue/enable"
	echo 0 >"$T/events/block/block_rq_complete/enable"
	if [[ -d $T/events/dst ]]; then
		echo 0 >"$T/events/dst/enable"
		echo '-:dst/legs_changed' >>"$T/kprobe_events"
	fi
	echo 0 >"$T/events/block/block_rq_issue/filter"
	echo 0 >"$T/events/block/block_rq_complete/filter"
	echo local >"$T/trace_clock"
	echo >"$T/trace"
}

bf_cleanup() {
	local rc=$?
	set +e
	trace_off
	(exit "$rc")
	mirror_cleanup
}
trap bf_cleanup EXIT

mirror_setup 1 16
mkdir -p /tmp/bf
mountpoint -q /tmp/bf || mount -t tmpfs -o size=400m tmpfs /tmp/bf
L=()
for i in 0 1 2 3; do
	loop_dev "/tmp/bf/l$i" 64
	L+=("$LOOP")
done
# The bitmap on node 3 of the loop devices, under dm to be made to fail.
dm_linear bmd "${L[3]}"
# node1 under a dm-delay that holds writes 60 s until it is suspended,
# and passes reads and flushes at once.
modprobe dm-delay
sectors=$(blockdev --getsz "${L[1]}")
expect_ok dmsetup create l1d --table "0 $sectors delay ${L[1]} 0 0 ${L[1]} 0 60000 ${L[1]} 0 0"
DMS+=(l1d)
wait_for 10 /dev/mapper/l1d test -b /dev/mapper/l1d

flushes() { awk '{ print $16 }' "/sys/block/${1#/dev/}/stat"; }
bitmap_clear() { [[ "$(storage_field m bitmap_regions)" == 0 ]]; }
more_flushes() { (($(flushes "$1") > $2)); }
devno() { tr : , <"/sys/block/${1#/dev/}/dev"; }
mark() { echo "$1" >"$T/trace_marker"; }
# order CHECK FROM TO ARG...: flushorder.py on the trace so far.
order() {
	cat "$T/trace" >"$TRACE"
	if ! python3 "$ORDER" "$TRACE" "$@"; then
		[[ -z "${DST_RESULTS:-}" ]] || cp "$TRACE" "$DST_RESULTS/68-bitmap-flush.trace"
		fail "flush order ($1): see above (the trace: 68-bitmap-flush.trace)"
	fi
}

mountpoint -q "$T" || mount -t tracefs nodev "$T"
grep -qw dst_bitmap_legs_changed /proc/kallsyms || fail "no dst_bitmap_legs_changed in kallsyms"
echo 0 >"$T/tracing_on"
# A global counter, not a clock: one order for the events of every CPU,
# where the clocks of a TCG guest give a burst of events one time.
echo counter >"$T/trace_clock"
# Reading the trace between the steps must not stop the recording.
echo 0 >"$T/options/pause-on-trace"
echo 4096 >"$T/buffer_size_kb"
echo 'p:dst/legs_changed dst_storage:dst_bitmap_legs_changed' >>"$T/kprobe_events"
echo 1 >"$T/events/dst/legs_changed/enable"
# Loop devices only: major 7, dev_t as the kernel has it (major << 20).
for e in block_rq_issue block_rq_complete; do
	echo 'dev >= 7340032 && dev < 8388608' >"$T/events/block/$e/filter"
	echo 1 >"$T/events/block/$e/enable"
done
echo >"$T/trace"
D0=$(devno "${L[0]}")
D1=$(devno "${L[1]}")
D2=$(devno "${L[2]}")
D3=$(devno "${L[3]}")

make_storage m mirror --chunk-size 1M --bitmap /dev/mapper/bmd -- "${L[0]}" /dev/mapper/l1d -- --assume-clean
M=$DEV
wait_for 30 "the bitmap to clear" bitmap_clear
echo 1 >"$T/tracing_on"
mark sweep
f1=$(flushes "${L[1]}")
dd if=/dev/urandom of="$M" bs=64K count=1 seek=80 oflag=direct status=none &
dd_pid=$!
BG_PIDS+=("$dd_pid")
wait_for 30 "a sweep's flush of node1 while its write is held" more_flushes "${L[1]}" "$f1"
[[ "$(storage_field m bitmap_regions)" != 0 ]] || fail "the write set no bit"
# Suspending a dm-delay sends what it holds; linear from then on.
expect_ok dmsetup suspend l1d
expect_ok dmsetup load l1d --table "0 $sectors linear ${L[1]} 0"
expect_ok dmsetup resume l1d
wait "$dd_pid" || fail "the held write failed"
BG_PIDS=()
wait_for 30 "the bitmap to clear" bitmap_clear
mark resync
order sweep sweep resync "$D3" "$D1" "$D0" "$D1"
log "the legs are flushed before the bitmap's bits are cleared on disk"

expect_ok bounded 30 dstadm add m local "${L[2]}"
wait_in_sync m
mark insync
order insync resync insync "$D0" "$D1" "$D2"
log "a resynced leg is flushed before it is called in sync"

wait_for 30 "the bitmap to clear" bitmap_clear
mark stop
expect_ok bounded 60 dstadm stop m
mark stopped
order clean stop stopped "$D3" "$D0" "$D1" "$D2"
log "the legs are flushed before the bitmap is marked clean"
trace_off
drop_storage m

# --- the bitmap fails, then a leg -------------------------------------------
make_storage m mirror --chunk-size 1M --bitmap /dev/mapper/bmd -- "${L[0]}" /dev/mapper/l1d -- --assume-clean
M=$DEV
expect_ok dd if=/dev/urandom of="$M" bs=64K count=1 seek=48 oflag=direct status=none
kmsg_mark
dm_fail bmd
dm_fail l1d
# This write takes node1 out of sync, which the bitmap cannot record; on
# a slow guest (the debug kernel) a sweep may have cleared the region's
# bit since the write above, and the write then fails on the bitmap
# alone: reads, which go to both legs and to node0 again when node1
# fails, take node1 out of sync then.
expect_fail dd if=/dev/urandom of="$M" bs=64K count=1 seek=48 oflag=direct status=none
for ((i = 0; i < 8; i++)); do
	leg_is m 1 in-sync || break
	expect_ok dd if="$M" of=/dev/null bs=64K count=1 skip=48 iflag=direct status=none
done
wait_for 30 "node1 out of sync" leg_is m 1 out-of-sync
grep -q 'm: writing the bitmap failed' <(kmsg_new) || fail "the kernel log does not say that the bitmap failed"
# The region is set in the bitmap: on 262ada2 this write is acknowledged.
expect_fail dd if=/dev/urandom of="$M" bs=64K count=1 seek=48 oflag=direct status=none
log "with the bitmap failed and a leg out of sync, writes fail instead of being acknowledged"
drop_storage m
log "ok"
