#!/bin/bash
# Failing legs of a running 3-way mirror under fio verify: a local leg on
# a dm device switched to the error target, and a remote leg whose export
# goes away. Writes go on without an error, each failed leg shows out of
# sync with dirty regions, reads never return stale data, the failed legs
# can be removed, and the last leg in sync cannot.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"
trap mirror_cleanup EXIT

MIB=64
mirror_setup 3 "$MIB"
dm_linear dleg /dev/ram1
do_export leg2 /dev/ram2 127.0.0.1:7101

# New brd devices are all zeroes: identical, so no initial resync.
make_storage m mirror --chunk-size 64K -- /dev/ram0 /dev/mapper/dleg 127.0.0.1:7101 \
	-- --assume-clean
M=$DEV
all_in_sync m || fail "--assume-clean did not start every leg in sync"
[[ "$(storage_field m resync_bytes)" == 0 ]] || fail "--assume-clean still resynced"

# fio writes and verifies for 25 s; the legs fail under it.
# timeout itself, not the bounded function: $! must be what to kill.
timeout -k 5 300 fio --name=fail --filename="$M" --direct=1 --ioengine=libaio \
	--rw=randwrite --bsrange=4k-256k --iodepth=16 --time_based --runtime=25 \
	--verify=crc32c --verify_fatal=1 --verify_backlog=32 --verify_state_save=0 \
	--output-format=json --output=/tmp/fio-fail.json &
FIO=$!
BG_PIDS+=("$FIO")
sleep 6
dm_fail dleg
wait_for 60 "node1 out of sync" leg_is m 1 out-of-sync
log "node1 (dm error) is out of sync"
undo_export leg2
wait_for 90 "node2 out of sync" leg_is m 2 out-of-sync
log "node2 (export gone) is out of sync"
fio_wait "$FIO" /tmp/fio-fail.json "while legs failed"
dstadm status m

[[ "$(leg_field m 0 sync)" == in-sync ]] || fail "node0 is not in sync"
declare -a dirty
for i in 1 2; do
	dirty[i]=$(leg_field m "$i" dirty_regions)
	((dirty[i] > 0)) || fail "node$i is out of sync without dirty regions"
	[[ "$(sysfs_leg m "$i" dirty_regions)" == "${dirty[i]}" ]] || fail "sysfs and status differ on node$i"
	[[ "$(sysfs_leg m "$i" chunks)" == *-* ]] || fail "node$i's chunks view shows no dirty region"
	log "node$i: ${dirty[i]} dirty regions"
done

# Reads come from node0 only now: the whole disk reads as node0.
[[ "$(dev_sha "$M" "$MIB")" == "$(dev_sha /dev/ram0 "$MIB")" ]] ||
	fail "the mirror does not read as its only leg in sync"
# Writes still work and verify, on one leg.
fio_verify after "$M" 8
now=$(leg_field m 2 dirty_regions)
((now >= dirty[2] && now <= $(leg_field m 2 regions))) ||
	fail "node2's dirty regions went from ${dirty[2]} to $now"

# The last leg in sync stays; the failed ones go.
expect_fail bounded 30 dstadm remove m node0
[[ "$(status_json | jq '.storages[0].nodes | length')" == 3 ]] || fail "refused remove changed the nodes"
expect_ok bounded 60 dstadm remove m node1
expect_ok bounded 60 dstadm remove m 2
[[ "$(status_json | jq -c '[.storages[0].nodes[].id]')" == "[0]" ]] || fail "nodes left are not [0]"
[[ ! -e "/sys/block/${M#/dev/}/dst/node1" ]] || fail "sysfs node1 stays after remove"
expect_fail bounded 30 dstadm remove m node0
expect_fail bounded 30 dstadm remove m node7
fio_verify single "$M" 5
nothing_left_but_m() {
	[[ "$(status_json | jq -c '[.storages[].name]')" == '["m"]' ]]
}
nothing_left_but_m || fail "unexpected storages"
drop_storage m
nothing_left
