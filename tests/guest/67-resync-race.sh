#!/bin/bash
# The race between resync and application writes, forced: the source leg
# sits on dm-delay for reads and the new leg for writes, so that every
# region copy takes a while, and while the new leg resyncs fio writes and
# verifies half of the mirror and only writes the other half. Writes
# into the region being copied must wait (resync_held counts them) and
# must never be overwritten by the older data resync read: fio verify is
# clean and the legs end identical. Then the same race after a remote leg
# missed scattered writes: one window copies regions with clean ones
# between them, whose writes wait as well.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"
trap mirror_cleanup EXIT

MIB=16
mirror_setup 2 "$MIB"
modprobe dm-delay || fail "no dm-delay"
sectors=$(blockdev --getsz /dev/ram0)
# Reads from the source wait 100 ms; writes go through at once.
expect_ok dmsetup create slow --table "0 $sectors delay /dev/ram0 0 100 /dev/ram0 0 0"
DMS+=(slow)
wait_for 10 /dev/mapper/slow test -b /dev/mapper/slow
# Writes to the new leg wait 50 ms; reads go through at once.
expect_ok dmsetup create slowin --table "0 $sectors delay /dev/ram1 0 0 /dev/ram1 0 50"
DMS+=(slowin)
wait_for 10 /dev/mapper/slowin test -b /dev/mapper/slowin

make_storage m mirror --chunk-size 1M --resync-min 400M --resync-max 400M -- \
	/dev/mapper/slow -- --assume-clean
M=$DEV
expect_ok bounded 120 fio --name=fill --filename="$M" --direct=1 --ioengine=libaio \
	--rw=write --bs=1M --iodepth=4 --size="${MIB}M" --output=/tmp/fio-fill.txt
expect_ok dd if=/dev/urandom of=/dev/mapper/slowin bs=1M count="$MIB" oflag=direct status=none

stat=/sys/block/${M#/dev/}/stat
W0=$(awk '{ print $5 }' "$stat")
# Two jobs: one writes and verifies the first half; the other only
# writes the second half, 16 at a time, so that writes keep coming while
# windows are open (the first job's reads wait 100 ms on the source and
# come back in dm-delay's batches, with resync's: in two full runs its
# writes came in bursts that no window met).
timeout -k 5 400 fio --filename="$M" --direct=1 --ioengine=libaio --time_based \
	--runtime=40 --output-format=json --output=/tmp/fio-race.json \
	--name=race --size=$((MIB / 2))M --rw=randwrite --bsrange=4k-64k \
	--iodepth=16 --verify=crc32c --verify_fatal=1 --verify_backlog=32 --verify_state_save=0 \
	--name=writer --offset=$((MIB / 2))M --size=$((MIB / 2))M --rw=randwrite \
	--bs=4k --iodepth=16 &
FIO=$!
BG_PIDS+=("$FIO")
# The leg comes only once fio writes (its start takes a while here): a
# resync done before that would race with nothing.
written() { (($(awk '{ print $5 }' "$stat") > W0 + 200)); }
wait_for 60 "fio writing to $M" written
W1=$(awk '{ print $5 }' "$stat")
out=$(bounded 30 dstadm add m local /dev/mapper/slowin) || fail "adding the second leg failed"
[[ "$out" == node1 ]] || fail "add printed '$out'"
wait_in_sync m 300
log "writes done from the add to in sync: $(($(awk '{ print $5 }' "$stat") - W1))"
fio_wait "$FIO" /tmp/fio-race.json "during the resync"
held=$(sysfs_leg m 0 ../resync_held)
log "writes held by the resync window: $held"
((held > 0)) || fail "no write hit the region being copied: the race was not exercised"
dstadm status m
drop_storage m
expect_ok dmsetup remove slowin
DMS=(slow)
legs_identical "$MIB" /dev/mapper/slow /dev/ram1

# The legs are identical now. The remote one misses a 4 KiB write in
# every third region, at a place that moves from region to region, so
# that the resync copies two windows of four dirty regions (0, 3, 4, 5
# and 6 to 15) with clean regions between them, whose writes wait too.
# Reads from the source now take 1 s, so that each window stays open
# that long.
expect_ok dmsetup suspend slow
expect_ok dmsetup reload slow --table "0 $sectors delay /dev/ram0 0 1000 /dev/ram0 0 0"
expect_ok dmsetup resume slow
do_export leg1 /dev/ram1 127.0.0.1:7120
# Retried every second, not up to 30 s apart: fio still runs when it is back.
expect_ok bounded 30 dstadm create m --alg mirror --chunk-size 1M --resync-min 400M \
	--resync-max 400M
STORAGES+=(m)
expect_ok bounded 30 dstadm add m local /dev/mapper/slow
expect_ok bounded 60 dstadm add m remote 127.0.0.1:7120 --reconnect-max 1
expect_ok bounded 60 dstadm start m --assume-clean
M=$(storage_dev m)
stat=/sys/block/${M#/dev/}/stat
# A writer of the clean regions between (1-2, 7-8, 10-11, 13-14), one
# process (--thread, signalled itself, not through timeout), started now (fio takes seconds to start here) and
# stopped while the leg is away: a write then would make its region
# dirty. It goes on once the leg resyncs.
fio --thread --filename="$M" --direct=1 --ioengine=libaio --time_based \
	--runtime=300 --rw=randwrite --bs=4k --iodepth=4 --output=/tmp/fio-between.txt \
	--name=b1 --offset=1M --size=2M --name=b7 --offset=7M --size=2M \
	--name=b10 --offset=10M --size=2M --name=b13 --offset=13M --size=2M &
BETWEEN=$!
BG_PIDS+=("$BETWEEN")
W0=$(awk '{ print $5 }' "$stat")
wait_for 60 "fio writing to the clean regions" written
expect_ok kill -STOP "$BETWEEN"
sleep 1
undo_export leg1
for ((r = 0; r < MIB; r += 3)); do
	expect_ok dd if=/dev/urandom of="$M" bs=4K count=1 oflag=direct status=none \
		seek=$((r * 256 + (r * 37) % 256))
done
wait_for 60 "node1 out of sync" leg_is m 1 out-of-sync
dirty=$(leg_field m 1 dirty_regions)
((dirty == (MIB + 2) / 3)) || fail "node1 has $dirty dirty regions, not $(((MIB + 2) / 3))"
# fio keeps to regions 4 and 5 (dirty too before the leg is back), so
# that the scattered blocks stay as they were written: a copy that put a
# piece in the wrong region leaves others different.
timeout -k 5 400 fio --name=scatter --filename="$M" --offset=4M --size=2M \
	--direct=1 --ioengine=libaio --rw=randwrite --bsrange=4k-64k \
	--iodepth=16 --time_based --runtime=20 --verify=crc32c --verify_fatal=1 --verify_backlog=32 --verify_state_save=0 \
	--output-format=json --output=/tmp/fio-scatter.json &
FIO=$!
BG_PIDS+=("$FIO")
W0=$(awk '{ print $5 }' "$stat")
wait_for 60 "fio writing to $M" written
dirty=$(leg_field m 1 dirty_regions)
((dirty == (MIB + 2) / 3 + 2)) || fail "node1 has $dirty dirty regions, not $(((MIB + 2) / 3 + 2))"
do_export leg1 /dev/ram1 127.0.0.1:7120
wait_for 30 "node1 resyncing" leg_is m 1 resyncing
expect_ok kill -CONT "$BETWEEN"
wait_in_sync m 300
expect_ok kill -INT "$BETWEEN"
rc=0
wait "$BETWEEN" || rc=$?
((rc == 0 || rc == 128 || rc == 130)) || fail "the writer of the clean regions failed ($rc): $(head -c 600 /tmp/fio-between.txt)"
fio_wait "$FIO" /tmp/fio-scatter.json "during the scattered resync"
held=$(sysfs_leg m 0 ../resync_held)
log "writes held by the resync windows: $held"
((held > 0)) || fail "no write met a window of the scattered resync: the race was not exercised"
dstadm status m
drop_storage m
undo_export leg1
legs_identical "$MIB" /dev/mapper/slow /dev/ram1
nothing_left
