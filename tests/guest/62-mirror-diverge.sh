#!/bin/bash
# A write that fails on the last leg in sync while another leg is being
# resynced, into a region that leg already has: the write fails (EIO),
# and the resyncing leg, which took it, must get the in-sync leg's data
# back before it is called in sync.  Once the mirror is in sync the legs
# are identical.  Kernel review D2: on 262ada2 both legs end "in-sync"
# and differ in that block; seen failing there.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"
trap mirror_cleanup EXIT

mirror_setup 2 64
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
log "ok"
