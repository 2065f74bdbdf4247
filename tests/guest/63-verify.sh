#!/bin/bash
# Verify and repair of a mirror of two local legs and a remote one.  The
# export answers CHECKSUM with the XXH64 of each 4 KiB, as a raw client
# computes it (dstpeer checksum).  A verify of a clean mirror under fio
# verify finds nothing, and moves sums, not data, over the network (lo's
# bytes).  Blocks corrupted behind dst's back (three on the remote leg's
# device, two on a local leg, one of them at the same place): verify
# counts exactly the 4 blocks that differ (status, JSON, sysfs, event)
# and changes nothing; --repair makes the legs identical; a second verify
# finds 0.  16 blocks that hold their own CRC-32C (fio verify's), written
# again on the remote leg's device: verify counts all 16 (a CRC-32C
# CHECKSUM found none), repair.  Checksum resync: the remote leg removed,
# 1 % of its blocks and those 16 changed behind dst's back and 1 MiB
# written to the mirror meanwhile, it
# is added again (at once: the export lets the closed connection's
# writer go) and copied in full, but only the blocks whose sums differ
# are written to it (its write_bytes under 5 % of 64 MiB); legs
# identical.  A remote leg whose export lacks CHECKSUM (dstpeer's fake
# export) is copied and verified by its data: 3 blocks corrupted on the
# local leg are found, repaired, 0 after.  A verify while one runs, of a
# linear storage, or of a mirror with one leg in sync, is refused.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7640
MIB=$((1024 * 1024))

verify_cleanup() {
	local rc=$?
	set +e
	[[ -n "${MON:-}" ]] && kill "$MON" 2>/dev/null
	[[ -n "${PEER:-}" ]] && kill "$PEER" 2>/dev/null
	rm -f /tmp/m.data
	(exit "$rc")
	mirror_cleanup
}

# corrupt DEV BLOCK...: random data over each 4 KiB BLOCK of DEV.
corrupt() {
	local dev=$1 b
	shift
	for b in "$@"; do
		head -c 4096 /dev/urandom |
			dd of="$dev" bs=4096 seek="$b" oflag=direct status=none
	done
}

verify_done() { [[ "$(storage_field m verify_left)" == 0 ]]; }

mirror_setup 4 64
trap verify_cleanup EXIT
dstadm monitor >/tmp/verify-events 2>&1 &
MON=$!

do_export e2 /dev/ram2 127.0.0.1:$PORT
expect_ok bounded 60 "$DSTPEER" client 127.0.0.1 $PORT checksum 8192
make_storage m mirror --chunk-size 1M -- /dev/ram1 127.0.0.1:$PORT /dev/ram3
M=$DEV
wait_in_sync m
head -c 64M /dev/urandom >/tmp/m.data
dd if=/tmp/m.data of="$M" bs=1M oflag=direct status=none

# --- a clean mirror under I/O: nothing differs --------------------------------
fio_verify vio "$M" 12 &
FIO=$!
sleep 2
expect_ok bounded 30 dstadm verify m
expect_ok bounded 120 dstadm wait m --timeout 100
wait "$FIO" || fail "fio verify during verify failed"
[[ "$(storage_field m mismatches)" == 0 ]] ||
	fail "verify of a clean mirror under I/O found $(storage_field m mismatches) blocks"

# Sums, not data, cross the network: 64 MiB verified, lo carries little.
before=$(lo_bytes)
expect_ok bounded 30 dstadm verify m
expect_ok bounded 120 dstadm wait m --timeout 100
moved=$(($(lo_bytes) - before))
log "verify of 64 MiB moved $moved bytes over lo"
((moved < 2 * MIB)) || fail "verify moved $moved bytes over the network"

# --- corrupted blocks are counted, then repaired ------------------------------
corrupt /dev/ram2 100 2000 9000
corrupt /dev/ram3 100 5000
sum1=$(dev_sha /dev/ram1 64)
sum2=$(dev_sha /dev/ram2 64)
# Paced to 1 MiB/s, so that it still runs when the second one comes.
echo 1024 >"/sys/block/${M#/dev/}/dst/resync_max"
expect_ok bounded 30 dstadm verify m
expect_error 1 "a verify of the mirror is running" bounded 30 dstadm verify m
echo 200000 >"/sys/block/${M#/dev/}/dst/resync_max"
expect_ok bounded 120 dstadm wait m --timeout 100
[[ "$(storage_field m mismatches)" == 4 ]] ||
	fail "verify found $(storage_field m mismatches) blocks, not 4"
grep -q "mismatches: 4 block(s)$" <<<"$(bounded 30 dstadm status m)" ||
	fail "status text: $(dstadm status m)"
[[ "$(cat "/sys/block/${M#/dev/}/dst/mismatch_cnt")" == 4 ]] || fail "sysfs mismatch_cnt"
[[ "$(dev_sha /dev/ram1 64)" == "$sum1" && "$(dev_sha /dev/ram2 64)" == "$sum2" ]] ||
	fail "verify without --repair changed a leg"
all_in_sync m || fail "verify changed the legs' sync state"

expect_ok bounded 30 dstadm verify m --repair
expect_ok bounded 120 dstadm wait m --timeout 100
[[ "$(storage_field m mismatches)" == 4 ]] ||
	fail "repair found $(storage_field m mismatches) blocks, not 4"
[[ "$(storage_field m verify_repair)" == true ]] || fail "status does not say repair"
legs_identical 64 /dev/ram1 /dev/ram2 /dev/ram3
[[ "$(dev_sha /dev/ram1 64)" == "$sum1" ]] ||
	fail "repair changed the first leg in sync, its source"
expect_ok bounded 30 dstadm verify m
expect_ok bounded 120 dstadm wait m --timeout 100
[[ "$(storage_field m mismatches)" == 0 ]] || fail "a verify after repair found blocks"

# --- blocks that hold their own CRC-32C ----------------------------------------
# fio's verify header ends in the CRC-32C of the header, so two writes of a
# block differ in its time and that CRC while the block's CRC-32C is the
# same (a CRC is affine).  A leg holding the older copy must still count:
# the multi-host tier saw a CRC-32C CHECKSUM miss 1219 such blocks.
fio_blocks() {
	expect_ok bounded 60 fio --name=own --filename="$1" --rw=write --bs=4k \
		--offset=32M --size=64k --direct=1 --verify=crc32c --do_verify=0 \
		--output=/dev/null
}
fio_blocks "$M"
sleep 1.1
fio_blocks /dev/ram2
[[ "$(dev_sha /dev/ram1 64)" != "$(dev_sha /dev/ram2 64)" ]] ||
	fail "the second fio wrote the same blocks again"
expect_ok bounded 30 dstadm verify m --repair
expect_ok bounded 120 dstadm wait m --timeout 100
[[ "$(storage_field m mismatches)" == 16 ]] ||
	fail "verify found $(storage_field m mismatches) of 16 blocks that carry their own CRC-32C"
legs_identical 64 /dev/ram1 /dev/ram2 /dev/ram3

# --- checksum resync: only what differs crosses the network ------------------------
expect_ok bounded 60 dstadm remove m node1
for ((b = 37; b < 16384; b += 100)); do
	corrupt /dev/ram2 "$b"
done
sleep 1.1
fio_blocks /dev/ram2
head -c 1M /dev/urandom | dd of="$M" bs=1M seek=10 oflag=direct status=none
before=$(lo_bytes)
out=$(bounded 60 dstadm add m remote 127.0.0.1:$PORT) || fail "adding the leg back failed"
[[ "$out" == node3 ]] || fail "add printed '$out'"
wait_in_sync m
written=$(leg_field m 3 write_bytes)
moved=$(($(lo_bytes) - before))
log "full resync of 64 MiB with 1 % + 1 MiB changed: $written bytes written to the leg, $moved over lo"
((written < 64 * MIB / 20)) || fail "checksum resync wrote $written bytes to the leg"
((written >= MIB)) || fail "checksum resync wrote only $written bytes: the new MiB is missing"
legs_identical 64 /dev/ram1 /dev/ram2 /dev/ram3

# --- a remote leg whose export does not sum (no CHECKSUM) ----------------------
# dstpeer's fake export offers FLUSH and FUA only, as an export older
# than CHECKSUM: its leg is copied and verified by its data.
"$DSTPEER" server $((PORT + 1)) $((16 * MIB)) ok 0 600 >/tmp/verify-peer.log 2>&1 &
PEER=$!
wait_for 10 "dstpeer server listening" grep -q listening /tmp/verify-peer.log
make_storage o mirror --chunk-size 1M -- /dev/ram0 127.0.0.1:$((PORT + 1))
O=$DEV
wait_in_sync o
written=$(leg_field o 1 write_bytes)
[[ "$written" == $((16 * MIB)) ]] || fail "the full copy to an export without CHECKSUM wrote $written bytes"
corrupt /dev/ram0 10 200 3000
before=$(lo_bytes)
expect_ok bounded 30 dstadm verify o
expect_ok bounded 120 dstadm wait o --timeout 100
moved=$(($(lo_bytes) - before))
[[ "$(storage_field o mismatches)" == 3 ]] ||
	fail "verify against an export without CHECKSUM found $(storage_field o mismatches) blocks, not 3"
((moved >= 16 * MIB)) || fail "verify without CHECKSUM moved only $moved bytes: it did not read the leg"
expect_ok bounded 30 dstadm verify o --repair
expect_ok bounded 120 dstadm wait o --timeout 100
expect_ok bounded 30 dstadm verify o
expect_ok bounded 120 dstadm wait o --timeout 100
[[ "$(storage_field o mismatches)" == 0 ]] || fail "a verify after repair without CHECKSUM found blocks"
cmp -n $((16 * MIB)) /dev/ram0 "$O" || fail "$O does not read what its first leg holds"
drop_storage o
wait "$PEER" || fail "dstpeer server: $(tail -n 3 /tmp/verify-peer.log)"
log "an export without CHECKSUM: copied and verified by its data, 3 blocks found and repaired"

# --- refusals -------------------------------------------------------------------
expect_ok bounded 30 dstadm remove m node0
expect_ok bounded 30 dstadm remove m node2
expect_error 1 "fewer than two legs in sync" bounded 30 dstadm verify m
drop_storage m
make_storage l linear -- /dev/ram1
expect_error 1 "only a mirror has copies to verify" bounded 30 dstadm verify l
drop_storage l

sleep 1
grep -q "storage m: verify-start" /tmp/verify-events || fail "no verify-start event"
grep -q "storage m: verify-done (4 mismatched blocks)" /tmp/verify-events ||
	fail "no verify-done event with 4 blocks: $(cat /tmp/verify-events)"
log "verify: 4 blocks found, repaired, 0 after; sums only over the network"
