#!/bin/bash
# A power cut of the array host with a bitmap: A runs mirror(A:/dev/vdb, B,
# C) with --bitmap /dev/vdc, C a write-behind leg 50 ms away (netem on A's
# link to C), and writers of 4 KiB blocks that log each acknowledged write
# on the host's share: four O_DIRECT|O_DSYNC (FUA), two O_DIRECT alone,
# whose writes C gets after they returned (a FUA never goes behind); C
# must be seen behind while they run.  The host SIGKILLs the whole guest A
# mid-write and cuts its power: A's two disks are on QEMU's blklogwrites,
# and each is made again from its log up to the last flush
# (multi_power_cut in tests/lib/multi.sh), what a disk that loses every
# write it was not told to flush holds; B and C keep running.  A boots
# again on those disks and this test goes on there: the storage made again
# from the same nodes and bitmap starts "unclean" from A (never from the
# write-behind leg), resyncs only the regions of the bitmap, every write
# the FUA writers had acknowledged reads back from the storage and from
# A's leg (the plain writers' writes were never flushed: not required),
# and the three legs end identical.  A clean stop and start then resyncs
# nothing.
set -euo pipefail
# shellcheck source=tests/multi/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/multi/lib.sh"
trap multi_cleanup EXIT

CHUNK=65536
LEG_BYTES=$((LEG_MIB << 20))
PHASE=$DST_CTL/crash-phase
WRITERS=4	# FUA, then PLAIN more with O_DIRECT alone
PLAIN=2
BLOCKS=512	# 4 KiB blocks per writer: 2 MiB each
C_OPTS=(--write-behind 256)

net_up
load_dst
wait_for 60 "B to answer" ping -c1 -W1 "$ADDR_B"
wait_for 60 "C to answer" ping -c1 -W1 "$ADDR_C"

if [[ ! -e "$PHASE" ]]; then
	# Before the crash.  A new bitmap: every leg but A's copied in full.
	mirror_abc c --chunk-size 64K --bitmap /dev/vdc
	[[ "$(storage_field c started)" == full ]] || fail "a new bitmap did not start full"
	wait_in_sync c 600
	three_identical
	expect_ok tc qdisc add dev "$(link_of "$MAC_A_C")" root netem delay 50ms
	rm -f "$DST_CTL"/acklog.*
	for ((k = 0; k < WRITERS + PLAIN; k++)); do
		mode=()
		((k < WRITERS)) || mode=(plain)
		"$ACKLOG" write "$DEV" "$DST_CTL/acklog.$k" $((k * 4096)) "$BLOCKS" "$k" \
			"${mode[@]}" &
		BG_PIDS+=($!)
	done
	most=0
	for ((t = 0; t < 15; t++)); do
		sleep 1
		behind=$(leg_field c 2 behind)
		if ((${behind:-0} > most)); then most=$behind; fi
	done
	((most > 0)) || fail "C's write-behind leg was never behind the writers"
	log "C was up to $most write(s) behind"
	for ((k = 0; k < WRITERS + PLAIN; k++)); do
		[[ -s "$DST_CTL/acklog.$k" ]] || fail "writer $k acknowledged nothing"
		# One that ended (an I/O error) would leave its log short.
		kill -0 "${BG_PIDS[k]}" 2>/dev/null || fail "writer $k ended before the crash"
	done
	log "bitmap: $(storage_field c bitmap_regions) region(s) set; crashing A"
	put "$PHASE" 1
	host crash A 73-crash-bitmap
	sleep 600
	fail "still running after the crash was asked for"
fi

# After the crash: the same nodes and bitmap, A's disks as a power cut
# left them.
rm -f "$PHASE"
[[ -s "$DST_CTL/A.power-cut" ]] || fail "the host made no power cut of A's disks"
cat "$DST_CTL/A.power-cut"
! grep -q '^FAIL' "$DST_CTL/A.power-cut" || fail "a power cut of A's disks failed"
grep -q 'A-leg\.log: .*: [1-9][0-9]* writes kept' "$DST_CTL/A.power-cut" ||
	fail "nothing durable on A's disks at the power cut"
# The FUA writers' logs: what must have survived.
FUA_LOGS=()
for ((k = 0; k < WRITERS; k++)); do FUA_LOGS+=("$DST_CTL/acklog.$k"); done
wc -l "${FUA_LOGS[@]}" | tail -n1
# The regions set on the bitmap's disk (after its 4 KiB header, a bit per
# region: src/uapi/dst.h), counted before the start: the resync clears
# them, and may be done before bitmap_regions is read.
regions=$(dd if=/dev/vdc iflag=direct bs=4096 skip=1 count=1 status=none |
	od -An -v -tu1 -N $((LEG_BYTES / CHUNK / 8)) |
	awk '{ for (i = 1; i <= NF; i++) for (b = $i; b; b = int(b / 2)) n += b % 2 }
	     END { print n + 0 }')
mirror_abc c --chunk-size 64K --bitmap /dev/vdc
[[ "$(storage_field c started)" == unclean ]] ||
	fail "started $(storage_field c started), not unclean, after the crash"
log "started unclean with $regions region(s) set in the bitmap"
((regions > 0)) || fail "no region set in the bitmap after a crash mid-write"
wait_in_sync c 600
# The data first: what a dst that loses acknowledged writes fails.
out=$(bounded 300 "$ACKLOG" check "$DEV" "${FUA_LOGS[@]}") ||
	fail "acknowledged writes lost: $(head -n 5 <<<"$out")"
log "$out"
copied=$(storage_field c resync_bytes)
((copied <= regions * CHUNK)) ||
	fail "resynced $copied bytes for $regions regions of 64 KiB"
((copied < LEG_BYTES / 4)) || fail "resynced $copied bytes: not far below the leg size"
log "resynced $((copied >> 10)) KiB of $((LEG_BYTES >> 10)) KiB"
expect_ok bounded 90 dstadm stop c
expect_ok bounded 60 dstadm start c
[[ "$(storage_field c started)" == clean ]] || fail "not clean after a clean stop"
[[ "$(storage_field c resync_bytes)" == 0 ]] || fail "resync after a clean stop"
drop_storage c
out=$(bounded 300 "$ACKLOG" check /dev/vdb "${FUA_LOGS[@]}") ||
	fail "acknowledged writes lost on A's leg: $(head -n 5 <<<"$out")"
log "A's leg: $out"
three_identical
nothing_left
