#!/bin/bash
# A 3-way mirror of two local brd and one remote export: the initial resync
# copies node0 to the others; fio verify is clean; afterwards all three
# legs are byte-identical; random reads are spread over the legs. Then
# ext4 on a 2-way mirror: after a stop, each leg on its own passes
# e2fsck -fn and mounts with the same files.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"
trap mirror_cleanup EXIT

MIB=64
mirror_setup 5 "$MIB"
# Data on node0 only: the initial resync has something to copy.
expect_ok dd if=/dev/urandom of=/dev/ram0 bs=1M count="$MIB" oflag=direct status=none
do_export leg2 /dev/ram2 127.0.0.1:7100

make_storage m mirror --chunk-size 256K -- /dev/ram0 /dev/ram1 127.0.0.1:7100
M=$DEV
[[ "$(blockdev --getsize64 "$M")" == $((MIB << 20)) ]] || fail "mirror size is not the legs' size"
[[ "$(storage_field m chunk_size)" == 262144 ]] || fail "chunk size is not 256 KiB"
[[ "$(leg_field m 0 sync)" == in-sync ]] || fail "node0 is not in sync at start"
[[ "$(leg_field m 0 regions)" == $((MIB * 4)) ]] || fail "regions are not size / chunk size"
[[ "$(sysfs_leg m 0 regions)" == $((MIB * 4)) ]] || fail "sysfs regions"
wait_in_sync m
dstadm status m
resynced=$(storage_field m resync_bytes)
# Read once from node0, written to both new legs at once.
((resynced >= MIB << 20)) || fail "resync copied $resynced bytes, less than the mirror"
[[ "$(sysfs_leg m 2 dirty_regions)" == 0 ]] || fail "node2 has dirty regions after resync"
[[ "$(sysfs_leg m 1 chunks)" =~ ^\++$ ]] || fail "node1's chunks view is not all clean"
legs_identical "$MIB" /dev/ram0 /dev/ram1 /dev/ram2

fio_verify m3 "$M" 15

# Reads spread: random reads at depth, then each leg's read counter.
declare -a before
for i in 0 1 2; do before[i]=$(leg_field m "$i" read_bytes); done
expect_ok bounded 120 fio --name=spread --filename="$M" --direct=1 --ioengine=libaio \
	--rw=randread --bs=4k --iodepth=32 --numjobs=2 --time_based --runtime=5 \
	--output=/tmp/fio-spread.txt
used=0
for i in 0 1 2; do
	got=$(($(leg_field m "$i" read_bytes) - before[i]))
	log "node$i served $got bytes of random reads"
	((got == 0)) || used=$((used + 1))
done
((used == 3)) || fail "random reads went to $used of 3 legs"

drop_storage m
legs_identical "$MIB" /dev/ram0 /dev/ram1 /dev/ram2
undo_export leg2

# ext4 on a 2-way mirror; each leg alone is the whole file system.
make_storage fs mirror -- /dev/ram3 /dev/ram4
wait_in_sync fs
expect_ok mkfs.ext4 -q "$DEV"
mkdir -p /tmp/fs
expect_ok mount "$DEV" /tmp/fs
MOUNTS+=(/tmp/fs)
for i in 1 2 3 4 5; do
	expect_ok dd if=/dev/urandom of="/tmp/fs/f$i" bs=64K count=$((i * 7)) status=none
done
mkdir /tmp/fs/dir
echo hello >/tmp/fs/dir/small
sync
(cd /tmp/fs && find . -type f -print0 | sort -z | xargs -0 sha256sum) >/tmp/fs.sums
expect_ok umount /tmp/fs
MOUNTS=()
drop_storage fs
for leg in /dev/ram3 /dev/ram4; do
	expect_ok e2fsck -fn "$leg"
	expect_ok mount -o ro,noload "$leg" /tmp/fs
	MOUNTS=(/tmp/fs)
	(cd /tmp/fs && find . -type f -print0 | sort -z | xargs -0 sha256sum) >/tmp/leg.sums
	expect_ok umount /tmp/fs
	MOUNTS=()
	cmp -s /tmp/fs.sums /tmp/leg.sums || fail "$leg alone does not hold the same files"
	log "$leg alone: clean ext4 with the same files"
done
nothing_left
