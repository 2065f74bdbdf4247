#!/bin/bash
# Legs added to a running mirror while fio writes and verifies: a local
# third leg and a remote fourth one are fully dirty, resync in the
# background and end in sync; fio verify is clean and all four legs are
# byte-identical. A leg smaller than the mirror is refused and changes
# nothing.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"
trap mirror_cleanup EXIT

MIB=128
mirror_setup 4 "$MIB"
do_export leg3 /dev/ram3 127.0.0.1:7102
loop_dev /tmp/small-leg "$((MIB / 4))"
SMALL=$LOOP
# Different data on the new legs than on the mirror: resync must copy.
expect_ok dd if=/dev/urandom of=/dev/ram2 bs=1M count="$MIB" oflag=direct status=none
expect_ok dd if=/dev/urandom of=/dev/ram3 bs=1M count="$MIB" oflag=direct status=none

make_storage m mirror --chunk-size 64K -- /dev/ram0 /dev/ram1 -- --assume-clean
M=$DEV

# fio runs until both resyncs are done (then SIGINT ends it).
# timeout itself, not the bounded function: $! must be what to kill.
timeout -k 5 400 fio --name=grow --filename="$M" --direct=1 --ioengine=libaio \
	--rw=randwrite --bsrange=4k-256k --iodepth=16 --time_based --runtime=300 \
	--verify=crc32c --verify_fatal=1 --verify_backlog=32 --verify_state_save=0 \
	--output-format=json --output=/tmp/fio-grow.json &
FIO=$!
BG_PIDS+=("$FIO")
sleep 4

out=$(bounded 30 dstadm add m local /dev/ram2) || fail "adding a third leg failed"
[[ "$out" == node2 ]] || fail "add printed '$out', not node2"
sync=$(leg_field m 2 sync)
[[ "$sync" == resyncing || "$sync" == in-sync ]] || fail "a new leg is $sync"
log "node2 added: $sync, $(leg_field m 2 dirty_regions) dirty regions"
wait_in_sync m 240
kill -0 "$FIO" 2>/dev/null || fail "fio ended before node2's resync did: no race with it"
first=$(storage_field m resync_bytes)
((first >= MIB << 20)) || fail "resync of node2 copied $first bytes"

out=$(bounded 60 dstadm add m remote 127.0.0.1:7102) || fail "adding a remote fourth leg failed"
[[ "$out" == node3 ]] || fail "add printed '$out', not node3"
log "node3 added: $(leg_field m 3 sync)"

# Smaller than the mirror: refused while it runs, nothing changes.
before=$(status_json | jq -c '[.storages[0].nodes[].id]')
rc=0
err=$(bounded 30 dstadm add m local "$SMALL" 2>&1) || rc=$?
((rc == 1)) || fail "adding a smaller leg exited $rc, not 1"
[[ "$err" == *"smaller than the mirror"* ]] || fail "refusing a small leg does not say why: $err"
[[ "$(status_json | jq -c '[.storages[0].nodes[].id]')" == "$before" ]] ||
	fail "a refused leg changed the nodes"

wait_in_sync m 300
kill -0 "$FIO" 2>/dev/null || fail "fio ended before node3's resync did: no race with it"
kill -INT "$FIO"
fio_wait "$FIO" /tmp/fio-grow.json "while legs were added" stopped
dstadm status m
total=$(storage_field m resync_bytes)
((total >= first + (MIB << 20))) || fail "resync of node3 copied $((total - first)) bytes"
legs_identical "$MIB" /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3

# A stopped mirror takes a smaller node; it is the size of the smallest.
drop_storage m
undo_export leg3
make_storage small mirror -- /dev/ram0 "$SMALL" -- --assume-clean
[[ "$(blockdev --getsize64 "$DEV")" == $(((MIB / 4) << 20)) ]] || fail "mirror is not the smallest leg's size"
drop_storage small
nothing_left
