#!/bin/bash
# A write that fails on the last leg in sync while another leg is being
# resynced, into a region that leg already has: the write fails (EIO),
# and the resyncing leg, which took it, must get the in-sync leg's data
# back before it is called in sync.  Once the mirror is in sync the legs
# are identical.  Kernel review D2: on 262ada2 both legs end "in-sync"
# and differ in that block; seen failing there.
# Then D3: a resync must not copy from a leg that fails a write to the
# region while the resync drains it.  Legs a3 and c3 in sync, each with a
# write in flight to region 0 (dm-delay: c3 takes it after 5 s, a3 fails
# it after 10 s); a new leg added meanwhile starts its resync at region 0
# and waits for that write.  The new leg must get c3's copy: on 262ada2 it
# got a3's (picked before the drain, both legs busy alike), and ended "in
# sync" without the acknowledged write; seen failing there.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"
trap mirror_cleanup EXIT

mirror_setup 5 64
dm_linear a /dev/ram0
expect_ok dd if=/dev/urandom of=/dev/mapper/a bs=1M count=64 oflag=direct status=none
make_storage m mirror --chunk-size 1M --resync-max 2M -- /dev/mapper/a
SYS=/sys/block/${DEV#/dev/}/dst
expect_ok bounded 30 dstadm add m local /dev/ram1
region0_copied() { [[ "$(cut -c1 "$SYS/node1/chunks")" == + ]]; }
wait_for 60 "node1 to have region 0" region0_copied
leg_is m 1 resyncing || fail "node1 is not resyncing any more: the test came too late"

# The first 4 KiB of the in-sync leg fail from now on.
sectors=$(blockdev --getsz /dev/ram0)
expect_ok dmsetup suspend --noflush --nolockfs a
printf '0 8 error\n8 %d linear /dev/ram0 8\n' $((sectors - 8)) | dmsetup load a ||
	fail "dmsetup load a"
expect_ok dmsetup resume a
head -c 4096 /dev/urandom >/tmp/v1
expect_fail dd if=/tmp/v1 of="$DEV" bs=4k count=1 oflag=direct status=none
expect_ok dmsetup suspend --noflush --nolockfs a
expect_ok dmsetup load a --table "0 $sectors linear /dev/ram0 0"
expect_ok dmsetup resume a
log "a write failed on the last leg in sync while node1 had its region"

echo 1048576 >"$SYS/resync_max"
expect_ok bounded 180 dstadm wait m
all_in_sync m || fail "not in sync after dstadm wait"
cmp -n 4096 /dev/ram0 /dev/ram1 || fail "the legs differ in the block the failed write was to"
legs_identical 64 /dev/ram0 /dev/ram1
log "legs identical after the failed write and the resync"
drop_storage m

# D3.
expect_ok dd if=/dev/urandom of=/dev/ram2 bs=1M count=64 oflag=direct status=none
expect_ok dd if=/dev/ram2 of=/dev/ram3 bs=1M count=64 iflag=direct oflag=direct status=none
dm_linear a3 /dev/ram2
dm_linear c3 /dev/ram3
make_storage d mirror --chunk-size 1M -- /dev/mapper/a3 /dev/mapper/c3 -- --assume-clean
D=$DEV
sectors=$(blockdev --getsz /dev/ram2)
expect_ok dmsetup create err3 --table "0 $sectors error"
DMS+=(err3)
dm_table() {
	expect_ok dmsetup suspend --nolockfs "$1"
	expect_ok dmsetup load "$1" --table "$2"
	expect_ok dmsetup resume "$1"
}
dm_table a3 "0 $sectors delay /dev/ram2 0 0 /dev/mapper/err3 0 10000"
dm_table c3 "0 $sectors delay /dev/ram3 0 0 /dev/ram3 0 5000"
head -c 4096 /dev/urandom >/tmp/w3
dd if=/tmp/w3 of="$D" bs=4k count=1 oflag=direct status=none &
write=$!
BG_PIDS+=("$write")
sleep 1
out=$(bounded 30 dstadm add d local /dev/ram4) || fail "adding a leg to d failed"
[[ "$out" == node2 ]] || fail "add printed '$out', not node2"
kill -0 "$write" 2>/dev/null || fail "the write ended before the new leg's resync began"
wait "$write" || fail "the write failed, although c3 took it"
BG_PIDS=()
leg_is d 0 out-of-sync || fail "a3 is $(leg_field d 0 sync) after failing a write"
dm_table c3 "0 $sectors linear /dev/ram3 0"
wait_for 120 "the new leg to be in sync" leg_is d 2 in-sync
leg_is d 1 in-sync || fail "c3 is $(leg_field d 1 sync)"
cmp -n 4096 /tmp/w3 /dev/ram4 || fail "the new leg lacks the acknowledged write (copied from a3)"
legs_identical 64 /dev/ram3 /dev/ram4
log "the new leg was copied from the leg that took the write"
drop_storage d
log "ok"
