#!/bin/bash
# The race between resync and application writes, forced: the source leg
# sits on dm-delay, so that every region copy takes a while, and fio
# writes and verifies all over the mirror while a new leg resyncs. Writes
# into the region being copied must wait (resync_held counts them) and
# must never be overwritten by the older data resync read: fio verify is
# clean and the legs end identical.
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

make_storage m mirror --chunk-size 1M --resync-min 400M --resync-max 400M -- \
	/dev/mapper/slow -- --assume-clean
M=$DEV
expect_ok bounded 120 fio --name=fill --filename="$M" --direct=1 --ioengine=libaio \
	--rw=write --bs=1M --iodepth=4 --size="${MIB}M" --output=/tmp/fio-fill.txt
expect_ok dd if=/dev/urandom of=/dev/ram1 bs=1M count="$MIB" oflag=direct status=none

stat=/sys/block/${M#/dev/}/stat
W0=$(awk '{ print $5 }' "$stat")
timeout -k 5 400 fio --name=race --filename="$M" --direct=1 --ioengine=libaio \
	--rw=randrw --rwmixwrite=70 --bsrange=4k-64k --iodepth=16 --time_based \
	--runtime=40 --verify=crc32c --verify_fatal=1 --verify_state_save=0 \
	--output=/tmp/fio-race.txt &
FIO=$!
BG_PIDS+=("$FIO")
# The leg comes only once fio writes (its start takes a while here): a
# resync done before that would race with nothing.
written() { (($(awk '{ print $5 }' "$stat") > W0 + 200)); }
wait_for 60 "fio writing to $M" written
out=$(bounded 30 dstadm add m local /dev/ram1) || fail "adding the second leg failed"
[[ "$out" == node1 ]] || fail "add printed '$out'"
wait_in_sync m 300
rc=0
wait "$FIO" || rc=$?
BG_PIDS=()
((rc == 0)) || fail "fio failed ($rc) during the resync"
grep -q "err= 0" /tmp/fio-race.txt || fail "fio reported errors during the resync"
held=$(sysfs_leg m 0 ../resync_held)
log "writes held by the resync window: $held"
((held > 0)) || fail "no write hit the region being copied: the race was not exercised"
dstadm status m
drop_storage m
legs_identical "$MIB" /dev/mapper/slow /dev/ram1
nothing_left
