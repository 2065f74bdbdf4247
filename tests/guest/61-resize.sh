#!/bin/bash
# Online resize.  An export's device (a dm-linear table reloaded larger)
# grows under fio verify: "dstadm resize" on the export tells the import,
# whose /dev/dstN grows in place (size event, new area written and read
# where the device has it); a raw client without size notices
# (dstpeer old-size) keeps reading its old last block meanwhile.  ext4
# on the import grows online with resize2fs after the next grow, its
# files intact, e2fsck clean.  A mirror grows to its smallest leg only,
# resyncs the new area (each leg's area was filled with other data first:
# the legs end identical) while fio verify runs on it, or not with
# --assume-clean; a leg that shrank is refused; a linear storage grows
# with its last node only.  A mirror with a bitmap grows while it runs,
# its bitmap file with it (header with the new size on disk when resize
# returns: a clean restart and one from a copy taken then both start at
# the new size); stopped, it is refused.  Made again on legs that grew
# meanwhile (as at boot), it starts clean at its bitmap's size, and
# resize takes the rest.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7610
MIB=$((1024 * 1024))

resize_cleanup() {
	local rc=$?
	set +e
	[[ -n "${MON:-}" ]] && kill "$MON" 2>/dev/null
	mountpoint -q /mnt/rs && umount /mnt/rs
	rm -f /tmp/resize-lin.data /tmp/tail /tmp/mb.bitmap /tmp/mb-crash.bitmap
	(exit "$rc")
	mirror_cleanup
}

# grow_dm NAME DEV MIB: reload dm-linear NAME over DEV with MIB MiB.
grow_dm() {
	expect_ok dmsetup reload "$1" --table "0 $(($3 * 2048)) linear $2 0"
	expect_ok dmsetup resume "$1"
}

# size_is DEV BYTES
size_is() { [[ "$(blockdev --getsize64 "$1")" == "$2" ]]; }

mirror_setup 4 160
trap resize_cleanup EXIT
for i in 0 1 2 3; do
	expect_ok dmsetup create "g$i" --table "0 $((32 * 2048)) linear /dev/ram$i 0"
	DMS+=("g$i")
done
dstadm monitor >/tmp/resize-events 2>&1 &
MON=$!

# --- an export grows under fio verify; an old client keeps its size -----------
do_export e0 /dev/mapper/g0 127.0.0.1:$PORT --shared
do_import i0 127.0.0.1:$PORT
I0=$DEV
size_is "$I0" $((32 * MIB)) || fail "$I0 is not 32 MiB"
"$DSTPEER" client 127.0.0.1 $PORT old-size 8 >/tmp/old-size.log 2>&1 &
PEER=$!
fio_verify grow "$I0" 9 --size=32M &
FIO=$!
sleep 3
grow_dm g0 /dev/ram0 64
kmsg_mark
out=$(bounded 30 dstadm resize e0) || fail "dstadm resize e0 failed"
[[ "$out" == "export e0: 64.00 MiB (67108864 bytes)" ]] || fail "resize e0 printed '$out'"
wait_for 30 "$I0 to grow to 64 MiB" size_is "$I0" $((64 * MIB))
wait "$FIO" || fail "fio verify across the grow failed"
wait "$PEER" || { cat /tmp/old-size.log; fail "the client without size notices broke"; }
grep -q "old-size: [0-9]* READs of the last of its 33554432 bytes" /tmp/old-size.log ||
	fail "dstpeer old-size: $(tail -n1 /tmp/old-size.log)"
[[ "$(storage_field i0 size)" == $((64 * MIB)) ]] || fail "status: i0 is not 64 MiB"
grep -q "dst0: node0: 127.0.0.1:$PORT grew to $((64 * MIB)) bytes" <(kmsg_new) ||
	fail "no 'grew' line in the kernel log"
head -c 1M /dev/urandom >/tmp/tail
dd if=/tmp/tail of="$I0" bs=1M seek=63 oflag=direct status=none
cmp -n $MIB /tmp/tail <(dd if=/dev/mapper/g0 bs=1M skip=63 count=1 status=none) ||
	fail "the new area written through $I0 is not on the export's device"
# The same size again: nothing changes, and it says so.
out=$(bounded 30 dstadm resize e0) || fail "dstadm resize e0 (unchanged) failed"
[[ "$out" == "export e0: 64.00 MiB (67108864 bytes)" ]] || fail "resize e0 printed '$out'"

# --- ext4 grows online ----------------------------------------------------------
expect_ok mkfs.ext4 -q -F "$I0"
mkdir -p /mnt/rs
expect_ok mount "$I0" /mnt/rs
head -c 20M /dev/urandom >/mnt/rs/a
sync -f /mnt/rs/a
sum_a=$(file_sha /mnt/rs/a)
grow_dm g0 /dev/ram0 160
expect_ok bounded 30 dstadm resize e0
wait_for 30 "$I0 to grow to 160 MiB" size_is "$I0" $((160 * MIB))
expect_ok resize2fs "$I0"
blocks=$(df -B1M --output=size /mnt/rs | tail -n1)
((blocks > 120)) || fail "ext4 on $I0 is $blocks MiB after resize2fs"
head -c 90M /dev/urandom >/mnt/rs/b
sync -f /mnt/rs/b
sum_b=$(file_sha /mnt/rs/b)
expect_ok umount /mnt/rs
expect_ok e2fsck -fn "$I0"
expect_ok mount "$I0" /mnt/rs
[[ "$(file_sha /mnt/rs/a)" == "$sum_a" && "$(file_sha /mnt/rs/b)" == "$sum_b" ]] ||
	fail "files on the grown ext4 changed"
expect_ok umount /mnt/rs
log "ext4 grew online to $blocks MiB, files intact"
undo_import i0

# --- a mirror grows to its smallest leg, resyncing the new area ------------------
# What each leg's device will grow into holds other data now.
for i in 1 2; do
	head -c 32M /dev/urandom | dd of=/dev/ram$i bs=1M seek=32 oflag=direct status=none
done
make_storage m mirror --chunk-size 1M -- /dev/mapper/g1 /dev/mapper/g2
M=$DEV
wait_in_sync m
grow_dm g1 /dev/ram1 64
out=$(bounded 30 dstadm resize m) || fail "dstadm resize m failed"
[[ "$out" == "storage m: 32.00 MiB (33554432 bytes)" ]] ||
	fail "a mirror with one leg grown printed '$out'"
fio_verify mgrow "$M" 8 --size=32M &
FIO=$!
sleep 3
grow_dm g2 /dev/ram2 64
out=$(bounded 30 dstadm resize m) || fail "dstadm resize m failed"
[[ "$out" == "storage m: 64.00 MiB (67108864 bytes)" ]] || fail "resize m printed '$out'"
size_is "$M" $((64 * MIB)) || fail "$M did not grow"
leg_is m 1 resyncing || all_in_sync m || fail "node1 is $(leg_field m 1 sync) after the grow"
wait "$FIO" || fail "fio verify on the mirror across its grow failed"
wait_in_sync m
legs_identical 64 /dev/mapper/g1 /dev/mapper/g2
[[ "$(leg_field m 1 regions)" == 64 ]] || fail "node1 has $(leg_field m 1 regions) regions, not 64"

# --assume-clean: the new area is taken as it is.
for i in 1 2; do
	dd if=/dev/zero of=/dev/ram$i bs=1M seek=64 count=32 oflag=direct status=none
done
grow_dm g1 /dev/ram1 96
grow_dm g2 /dev/ram2 96
before=$(storage_field m resync_bytes)
expect_ok bounded 30 dstadm resize m --assume-clean
size_is "$M" $((96 * MIB)) || fail "$M did not grow with --assume-clean"
all_in_sync m || fail "--assume-clean left a leg resyncing"
[[ "$(storage_field m resync_bytes)" == "$before" ]] || fail "--assume-clean resynced"

# A leg smaller than the mirror uses is refused; the mirror goes on.
grow_dm g2 /dev/ram2 16
expect_error 1 "a node is smaller than the storage uses" bounded 30 dstadm resize m
grow_dm g2 /dev/ram2 96
size_is "$M" $((96 * MIB)) || fail "the refused resize changed $M"
drop_storage m

# --- linear: only the last node's growth counts ---------------------------------
make_storage l linear -- /dev/mapper/g3 /dev/mapper/g1
L=$DEV
head -c 128M /dev/urandom >/tmp/resize-lin.data
dd if=/tmp/resize-lin.data of="$L" bs=1M count=128 oflag=direct status=none
grow_dm g3 /dev/ram3 64
out=$(bounded 30 dstadm resize l) || fail "dstadm resize l failed"
[[ "$out" == "storage l: 128.00 MiB (134217728 bytes)" ]] || fail "first node grown: '$out'"
grow_dm g1 /dev/ram1 128
out=$(bounded 30 dstadm resize l) || fail "dstadm resize l failed"
[[ "$out" == "storage l: 160.00 MiB (167772160 bytes)" ]] || fail "last node grown: '$out'"
cmp -n $((128 * MIB)) /tmp/resize-lin.data "$L" || fail "linear data moved when it grew"
drop_storage l

# --- a mirror with a bitmap grows, and its bitmap with it ------------------------
# g2 has 96 MiB, g3 64 MiB; what they grow into holds other data.
grow_dm g2 /dev/ram2 64
head -c 64M /dev/urandom | dd of=/dev/ram2 bs=1M seek=64 oflag=direct status=none
head -c 64M /dev/urandom | dd of=/dev/ram3 bs=1M seek=64 oflag=direct status=none
BM=/tmp/mb.bitmap
rm -f "$BM"
make_storage mb mirror --chunk-size 1M --bitmap "$BM" -- /dev/mapper/g2 /dev/mapper/g3
MB=$DEV
wait_in_sync mb
grow_dm g2 /dev/ram2 128
grow_dm g3 /dev/ram3 128
# Stopped, its bitmap file is made for its size: it grows only running.
expect_ok bounded 60 dstadm stop mb
expect_error 1 "a stopped mirror with a bitmap does not grow: start it, then resize" \
	bounded 30 dstadm resize mb
expect_ok bounded 60 dstadm start mb
size_is "$MB" $((64 * MIB)) || fail "the refused resize changed $MB"
fio_verify mbgrow "$MB" 8 --size=64M &
FIO=$!
sleep 3
out=$(bounded 30 dstadm resize mb) || fail "dstadm resize mb failed"
[[ "$out" == "storage mb: 128.00 MiB (134217728 bytes)" ]] || fail "resize mb printed '$out'"
# The header with the new size is on disk when resize returns, with the
# new regions' bits: a crash now restarts at the new size.
# Two reads alike: not one torn by a round writing the file meanwhile.
for _ in 1 2 3 4 5; do
	cp "$BM" /tmp/mb-crash.bitmap
	cmp -s "$BM" /tmp/mb-crash.bitmap && break
done
hdr_size=$(od -An -t u8 -j 24 -N 8 /tmp/mb-crash.bitmap | tr -d ' ')
[[ "$hdr_size" == $((128 * MIB)) ]] || fail "the bitmap header says $hdr_size bytes after the grow"
(($(stat -c %s "$BM") == 4096 + 16)) || fail "the bitmap file has $(stat -c %s "$BM") bytes, not 4096 + 128 bits"
size_is "$MB" $((128 * MIB)) || fail "$MB did not grow"
wait "$FIO" || fail "fio verify on the mirror with a bitmap across its grow failed"
head -c 8M /dev/urandom >/tmp/tail
dd if=/tmp/tail of="$MB" bs=1M seek=100 oflag=direct status=none
wait_in_sync mb
legs_identical 128 /dev/mapper/g2 /dev/mapper/g3
cmp -n $((8 * MIB)) /tmp/tail <(dd if=/dev/mapper/g3 bs=1M skip=100 count=8 status=none) ||
	fail "the new area written through $MB is not on node1"
# A clean stop and start: the bitmap is valid at the new size, no resync.
expect_ok bounded 60 dstadm stop mb
expect_ok bounded 60 dstadm start mb
[[ "$(storage_field mb started)" == clean ]] || fail "the grown mirror did not start clean"
all_in_sync mb || fail "the grown mirror's legs are not in sync after a clean stop"
[[ "$(storage_field mb resync_bytes)" == 0 ]] || fail "resync after a clean stop of the grown mirror"
# As after a crash just after the grow: started unclean at the new size.
expect_ok bounded 60 dstadm stop mb
cp /tmp/mb-crash.bitmap "$BM"
expect_ok bounded 60 dstadm start mb
[[ "$(storage_field mb started)" == unclean ]] || fail "not started unclean from the bitmap of the grow"
size_is "$(storage_dev mb)" $((128 * MIB)) || fail "the mirror restarted from the grow's bitmap is not 128 MiB"
wait_in_sync mb
legs_identical 128 /dev/mapper/g2 /dev/mapper/g3
log "a mirror with a bitmap grew under fio verify; its bitmap restarts it at the new size"

# Legs that grew while it was stopped (made again, as at boot): it starts
# clean at the size of its bitmap; resize takes the rest, resynced.
drop_storage mb
for i in 2 3; do
	head -c 32M /dev/urandom | dd of=/dev/ram$i bs=1M seek=128 oflag=direct status=none
done
grow_dm g2 /dev/ram2 160
grow_dm g3 /dev/ram3 160
kmsg_mark
make_storage mb mirror --chunk-size 1M --bitmap "$BM" -- /dev/mapper/g2 /dev/mapper/g3
MB=$DEV
size_is "$MB" $((128 * MIB)) || fail "the mirror of grown legs did not start at its bitmap's size"
[[ "$(storage_field mb started)" == clean ]] || fail "the mirror of grown legs did not start clean"
all_in_sync mb || fail "the mirror of grown legs is resyncing"
grep -q "mb: starts at the $((128 * MIB)) bytes of its bitmap" <(kmsg_new) || fail "no log line for the bitmap's size"
out=$(bounded 30 dstadm resize mb) || fail "dstadm resize mb failed"
[[ "$out" == "storage mb: 160.00 MiB (167772160 bytes)" ]] || fail "resize mb printed '$out'"
wait_in_sync mb
[[ "$(storage_field mb resync_bytes)" == $((32 * MIB)) ]] ||
	fail "the grow resynced $(storage_field mb resync_bytes) bytes, not the new 32 MiB"
legs_identical 160 /dev/mapper/g2 /dev/mapper/g3
drop_storage mb
log "legs grown while stopped: started at the bitmap's 128 MiB, resized to 160 MiB"

# Events: the import's and the mirror's growth.
sleep 1
grep -q "storage i0: resize ($((64 * MIB)) bytes)" /tmp/resize-events ||
	fail "no resize event of i0: $(cat /tmp/resize-events)"
grep -q "storage m: resize ($((96 * MIB)) bytes)" /tmp/resize-events ||
	fail "no resize event of m: $(cat /tmp/resize-events)"
expect_error 1 "no such storage or export" bounded 30 dstadm resize nosuch
log "online resize: export, import, ext4, mirror, linear"
