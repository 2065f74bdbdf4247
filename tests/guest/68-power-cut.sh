#!/bin/bash
# A power cut under a mirror, modelled: a device that loses every write it
# was not told to flush.  The mirror's local leg, the device of the export
# that is its remote leg, and its bitmap's device each sit on dm-log-writes
# over a loop device (which has a write cache, so flushes and FUA reach
# it): dm-log-writes logs a write only once it is durable (a FUA write
# when it completes, another once a flush sent after it completes), so
# its log replayed up to a mark (tests/tools/lwreplay) is what the device
# would hold after a power cut at that mark.  acklog writers run on the
# mirror, two with FUA writes and two with plain writes and an fdatasync
# after every 32 (logged once that returned), each reading back an earlier
# write after each one.  Every 2 s they are stopped (SIGSTOP), their logs
# copied and a mark put in the three logs, and they go on.  Afterwards, for every mark, each leg's image
# at that mark holds every write acknowledged before it; and for the
# middle and the last mark, the mirror started again from the three
# images (same names and address, so the bitmap knows its legs) starts
# unclean, resyncs, and then the mirror and both legs hold every write
# acknowledged before the mark, the legs identical: the bitmap said dirty
# for every region where a leg could have lost a write.  Seen failing
# with the mirror's clones stripped of REQ_FUA and REQ_PREFLUSH.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7680
MIB=64
MARKS=6
LWREPLAY=$DST_ROOT/tests/tools/lwreplay
W=/tmp/pc
CHUNK=64K

pc_cleanup() {
	local rc=$?
	set +e
	umount "$W" 2>/dev/null
	(exit "$rc")
	mirror_cleanup
}
trap pc_cleanup EXIT
mirror_setup 1 1
mkdir -p "$W"
mount -t tmpfs -o size=1200m tmpfs "$W"

# lw_dev NAME DEV LOG: NAME on dm-log-writes over DEV, its log on LOG.
lw_dev() {
	expect_ok dmsetup create "$1" --table "0 $(blockdev --getsz "$2") log-writes $2 $3"
	DMS+=("$1")
	wait_for 10 "/dev/mapper/$1" test -b "/dev/mapper/$1"
}
# Zeroed devices, each with a log.
for d in leg0 leg1 bm; do
	loop_dev "$W/$d.img" "$MIB"
	dev=$LOOP
	loop_dev "$W/$d.log" 384
	lw_dev "$d" "$dev" "$LOOP"
done

# The mirror m of /dev/mapper/leg0 and an export of /dev/mapper/leg1,
# with its bitmap on /dev/mapper/bm, started with the options given: the
# same each time, so that a start from the images of a cut is the start
# of the storage that was cut.
mirror_up() {
	do_export e1 /dev/mapper/leg1 127.0.0.1:$PORT
	expect_ok bounded 30 dstadm create m --alg mirror --chunk-size $CHUNK --bitmap /dev/mapper/bm
	STORAGES+=(m)
	expect_ok bounded 30 dstadm add m local /dev/mapper/leg0
	expect_ok bounded 60 dstadm add m remote 127.0.0.1:$PORT
	expect_ok bounded 60 dstadm start m "$@"
	M=$(storage_dev m)
	wait_for 10 "$M" test -b "$M"
}

mirror_up --assume-clean

# Two writers with FUA writes, two with fdatasync, 1024 blocks each.
ack_start fua "$M" 0 1024 2
ack_start sync "$M" 2048 1024 2 sync
sleep 2
for ((k = 1; k <= MARKS; k++)); do
	ack_alive fua
	ack_alive sync
	# The writers held while the mark goes in: their last writes before
	# it are not made durable by another's flush after them.
	ack_signal fua STOP
	ack_signal sync STOP
	sleep 0.2
	for f in "$ACK_DIR"/ack.{fua,sync}.log.*; do cp "$f" "$W/snap.$k.${f##*/}"; done
	for d in leg0 leg1 bm; do expect_ok dmsetup message "$d" 0 mark "cut$k"; done
	ack_signal fua CONT
	ack_signal sync CONT
	sleep 2
done
ack_stop fua
ack_stop sync
all_in_sync m || fail "a leg of m went out of sync"
expect_ok bounded 90 dstadm stop m
drop_storage m
undo_export e1
for d in leg0 leg1 bm; do expect_ok dmsetup remove "$d"; done
DMS=()

# image NAME MARK: $W/NAME.cut, what NAME's device held at MARK.
image() {
	rm -f "$W/$1.cut"
	truncate -s "${MIB}M" "$W/$1.cut"
	out=$(bounded 120 "$LWREPLAY" "$W/$1.log" "$W/$1.cut" "$2") ||
		fail "replay of $1's log to $2: $out"
	echo "$out"
}

for ((k = 1; k <= MARKS; k++)); do
	for d in leg0 leg1; do
		image "$d" "cut$k"
		# acklog reads with O_DIRECT, which tmpfs has not: a loop device.
		img=$(losetup --find --show --read-only "$W/$d.cut")
		rc=0
		out=$(bounded 120 "$ACKLOG" check "$img" "$W/snap.$k".ack.*) || rc=$?
		losetup -d "$img"
		((rc == 0)) ||
			fail "a power cut at mark $k: $d lacks acknowledged writes: $(head -n 5 <<<"$out")"
		log "power cut at mark $k: $d: ${out##*$'\n'}"
	done
done

# The mirror made again from the images at a mark: it must start unclean
# and resync whatever a leg could have lost.
recover() {
	local k=$1 d regions
	for d in leg0 leg1 bm; do
		image "$d" "cut$k" >/dev/null
		loop_dev "$W/$d.cut" "$MIB"
		dm_linear "$d" "$LOOP"
	done
	mirror_up
	[[ "$(storage_field m started)" == unclean ]] ||
		fail "mark $k: started $(storage_field m started), not unclean, after a power cut"
	regions=$(storage_field m bitmap_regions)
	wait_in_sync m 300
	log "mark $k: started unclean, $regions region(s) set, $(storage_field m resync_bytes) bytes resynced"
	out=$(bounded 120 "$ACKLOG" check "$M" "$W/snap.$k".ack.*) ||
		fail "mark $k: the mirror lacks acknowledged writes: $(head -n 5 <<<"$out")"
	drop_storage m
	undo_export e1
	for d in leg0 leg1; do
		out=$(bounded 120 "$ACKLOG" check "/dev/mapper/$d" "$W/snap.$k".ack.*) ||
			fail "mark $k: $d lacks acknowledged writes after the resync: $(head -n 5 <<<"$out")"
	done
	legs_identical "$MIB" /dev/mapper/leg0 /dev/mapper/leg1
	for d in leg0 leg1 bm; do expect_ok dmsetup remove "$d"; done
	DMS=()
	for d in "${LOOPS[@]: -3}"; do losetup -d "$d"; done
	LOOPS=("${LOOPS[@]:0:${#LOOPS[@]}-3}")
	log "mark $k: every acknowledged write on the mirror and on both legs after the resync"
}
recover $((MARKS / 2))
recover "$MARKS"
nothing_left
log "ok"
