#!/bin/bash
# The bitmap's promises hold across a power loss of the legs' caches, and
# fail safe when the bitmap itself fails (kernel review D4 and D5):
# - the legs are flushed before a region's bit is cleared, before the
#   bitmap is marked clean at stop, and a resynced leg before it is called
#   in sync (the legs are loop devices, whose flushes /sys/block/*/stat
#   counts: they have a write cache);
# - once a write of the bitmap has failed, a leg's failure cannot be
#   recorded: writes then fail instead of being acknowledged with the
#   header still calling that leg in sync.
# On 262ada2 no leg ever saw a flush, and the write after the failures
# succeeded: seen failing there.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

bf_cleanup() {
	local rc=$?
	set +e
	(exit "$rc")
	mirror_cleanup
}
trap bf_cleanup EXIT

mirror_setup 1 16
mkdir -p /tmp/bf
mountpoint -q /tmp/bf || mount -t tmpfs -o size=400m tmpfs /tmp/bf
L=()
for i in 0 1 2; do
	loop_dev "/tmp/bf/l$i" 64
	L+=("$LOOP")
done
dm_linear bmd /dev/ram0

flushes() { awk '{ print $16 }' "/sys/block/${1#/dev/}/stat"; }
bitmap_clear() { [[ "$(storage_field m bitmap_regions)" == 0 ]]; }
# more_flushes DEV BEFORE WHAT
more_flushes() {
	local n
	n=$(flushes "$1")
	((n > $2)) || fail "$3: no flush reached $1 ($n, $2 before)"
}

make_storage m mirror --chunk-size 1M --bitmap /dev/mapper/bmd -- "${L[0]}" "${L[1]}" -- --assume-clean
M=$DEV
wait_for 30 "the bitmap to clear" bitmap_clear
f0=$(flushes "${L[0]}")
f1=$(flushes "${L[1]}")
expect_ok dd if=/dev/urandom of="$M" bs=64K count=1 seek=80 oflag=direct status=none
[[ "$(storage_field m bitmap_regions)" != 0 ]] || fail "the write set no bit"
wait_for 30 "the bitmap to clear" bitmap_clear
more_flushes "${L[0]}" "$f0" "bits cleared"
more_flushes "${L[1]}" "$f1" "bits cleared"
log "the legs are flushed before the bitmap's bits are cleared"

f2=$(flushes "${L[2]}")
expect_ok bounded 30 dstadm add m local "${L[2]}"
wait_in_sync m
more_flushes "${L[2]}" "$f2" "resynced leg in sync"
log "a resynced leg is flushed before it is called in sync"

f0=$(flushes "${L[0]}")
expect_ok bounded 60 dstadm stop m
more_flushes "${L[0]}" "$f0" "marked clean"
log "the legs are flushed before the bitmap is marked clean"
drop_storage m

# --- the bitmap fails, then a leg -------------------------------------------
dm_linear l1d "${L[1]}"
make_storage m mirror --chunk-size 1M --bitmap /dev/mapper/bmd -- "${L[0]}" /dev/mapper/l1d -- --assume-clean
M=$DEV
expect_ok dd if=/dev/urandom of="$M" bs=64K count=1 seek=48 oflag=direct status=none
kmsg_mark
dm_fail bmd
dm_fail l1d
# This write takes node1 out of sync, which the bitmap cannot record.
expect_fail dd if=/dev/urandom of="$M" bs=64K count=1 seek=48 oflag=direct status=none
wait_for 30 "node1 out of sync" leg_is m 1 out-of-sync
grep -q 'm: writing the bitmap failed' <(kmsg_new) || fail "the kernel log does not say that the bitmap failed"
# The region is set in the bitmap: on 262ada2 this write is acknowledged.
expect_fail dd if=/dev/urandom of="$M" bs=64K count=1 seek=48 oflag=direct status=none
log "with the bitmap failed and a leg out of sync, writes fail instead of being acknowledged"
drop_storage m
log "ok"
