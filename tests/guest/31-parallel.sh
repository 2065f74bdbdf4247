#!/bin/bash
# No command holds a lock that others need while it waits (kernel review
# H3).  A remote node is added at a port whose SYNs vanish (nftables), so
# its connect waits for its deadline (10 s): meanwhile dstadm status,
# another storage's create and delete, and a generic netlink family
# lookup (the controller's, which every genetlink tool uses) all answer
# before the add has ended.  The add then fails, saying why.  On 262ada2
# every one of them waited for the add (genl_mutex and the registry's
# mutex were held across the connect): seen failing there.
# Then a resync that drains: a mirror whose first leg delays writes by
# 8 s (dm-delay) gets a new leg while a write is in flight, so the resync
# waits for that write before it copies anything; the add, status and
# status --json answer before the write has ended, and the three legs end
# identical.  (This half passes on 262ada2 too: its resync held no lock
# while it drained; it stays as a guard.)
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7390
par_cleanup() {
	local rc=$?
	set +e
	nft delete table inet dsthole 2>/dev/null
	dstadm delete bh 2>/dev/null
	dstadm delete other 2>/dev/null
	(exit "$rc")
	mirror_cleanup
}
mirror_setup 3 64
trap par_cleanup EXIT

nft add table inet dsthole
nft add chain inet dsthole out '{ type filter hook output priority 0; }'
nft add rule inet dsthole out tcp dport $PORT drop
expect_ok bounded 30 dstadm create bh --alg linear
bounded 60 dstadm add bh remote 127.0.0.1:$PORT --timeout 30 >/tmp/bh.out 2>&1 &
add=$!
BG_PIDS+=("$add")
adding() { kill -0 "$add" 2>/dev/null; }
sleep 1
adding || fail "the add ended at once: $(cat /tmp/bh.out)"

expect_ok bounded 30 dstadm status
expect_ok bounded 30 dstadm create other --alg mirror
expect_ok bounded 30 dstadm delete other
# dstadm version resolves the family through the genetlink controller.
expect_ok bounded 30 dstadm version
adding || fail "the add ended before the other commands answered: they waited for it"
log "status, create, delete and a family lookup answered while an add was connecting"

rc=0
wait "$add" || rc=$?
BG_PIDS=()
cat /tmp/bh.out
((rc == 1)) || fail "the add of an unreachable export exited $rc, not 1"
grep -q 'connection timed out' /tmp/bh.out || fail "the add did not say that the connection timed out"
[[ "$(status_json | jq '.storages[] | select(.name == "bh") | .nodes | length')" == 0 ]] ||
	fail "the failed add left a node"
expect_ok bounded 30 dstadm delete bh

# A resync that drains.
sectors=$(blockdev --getsz /dev/ram0)
expect_ok dmsetup create slow --table "0 $sectors delay /dev/ram0 0 0 /dev/ram0 0 8000"
DMS+=(slow)
wait_for 10 "/dev/mapper/slow" test -b /dev/mapper/slow
make_storage m mirror --chunk-size 64K -- /dev/mapper/slow /dev/ram1 -- --assume-clean
M=$DEV
dd if=/dev/urandom of="$M" bs=4k count=1 seek=7 oflag=direct status=none &
write=$!
BG_PIDS+=("$write")
writing() { kill -0 "$write" 2>/dev/null; }
sleep 1
out=$(bounded 30 dstadm add m local /dev/ram2) || fail "adding a leg failed"
[[ "$out" == node2 ]] || fail "add printed '$out', not node2"
expect_ok bounded 30 dstadm status
expect_ok bounded 30 dstadm status --json
writing || fail "the add and status answered only after the write ended"
leg_is m 2 resyncing || fail "the new leg is $(leg_field m 2 sync), not resyncing"
[[ "$(storage_field m resync_bytes)" == 0 ]] ||
	fail "the resync copied $(storage_field m resync_bytes) bytes before the write in flight ended"
log "add, status and status --json answered while the resync waited for a write"
wait "$write" || fail "the write during the resync failed"
BG_PIDS=()
wait_in_sync m 120
legs_identical 64 /dev/ram0 /dev/ram1 /dev/ram2
drop_storage m
nothing_left
log "ok"
