#!/bin/bash
# The bitmap sweep's flush pins the legs it flushes (kernel review K2-C1):
# with the bitmap thread held 3 s on entry to dst_mirror_flush() by kdelay
# (a kprobe, built for the guest's kernel by make tools), `dstadm remove`
# of a leg waits for that flush instead of freeing the leg under it.  On
# 20f0e7d's module the sweep then read the freed slot: a NULL pointer
# dereference in dst_mirror_flush (an oops, seen failing there).
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

BM=/tmp/sr/m.bm
[[ -f "$KDELAY" ]] || fail "$KDELAY missing (make tools builds it)"

sr_cleanup() {
	local rc=$?
	set +e
	grep -q '^kdelay ' /proc/modules && rmmod kdelay
	(exit "$rc")
	mirror_cleanup
}
trap sr_cleanup EXIT
mirror_setup 2 16
mkdir -p /tmp/sr
rm -f "$BM"

make_storage m mirror --chunk-size 1M --bitmap "$BM" -- /dev/ram0 /dev/ram1 -- --assume-clean
bm_thread=$(pgrep -l '_bitmap$' | awk '{print $2}')
[[ "$bm_thread" == dst*_bitmap ]] || fail "no bitmap thread: '$bm_thread'"
expect_ok insmod "$KDELAY" symbol=dst_mirror_flush comm="$bm_thread" delay_ms=3000 times=1
# A set bit: the next sweep flushes the legs before it clears it.
expect_ok dd if=/dev/urandom of="$DEV" bs=1M seek=2 count=1 oflag=direct status=none
hit() { [[ "$(cat /sys/module/kdelay/parameters/hits)" == 1 ]]; }
wait_for 20 "the sweep's flush held" hit
t0=$SECONDS
expect_ok bounded 60 dstadm remove m node1
log "remove took $((SECONDS - t0)) s with the sweep's flush held"
expect_ok rmmod kdelay
expect_ok dd if=/dev/urandom of="$DEV" bs=1M seek=3 count=1 oflag=direct status=none
[[ "$(storage_field m nodes | jq length)" == 1 ]] || fail "node1 still in m"
drop_storage m
nothing_left
