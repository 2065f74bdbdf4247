#!/bin/bash
# Write-mostly and write-behind legs.  A mirror of a local leg and a
# remote one whose export is 50 ms away (netem on its port of lo): with
# --write-behind, 4 KiB O_DIRECT writes (fio, queue depth 1) complete at
# the local leg's pace, under half the delay, while status shows the leg
# writes behind; the same mirror with a plain remote leg takes at least
# the delay (the control).  Reads never go to a write-mostly leg (its
# read_bytes stay 0).  After "dstadm wait" nothing is behind and the legs
# are identical.  A second write to a place whose copy to the leg is still
# behind waits for that copy (the leg's export on dm-delay), a write
# elsewhere does not.  A leg added to a mirror whose first leg writes
# behind is copied from the other one.  --write-behind on a linear
# storage is refused.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7620

wb_cleanup() {
	local rc=$?
	set +e
	tc qdisc del dev lo root 2>/dev/null
	(exit "$rc")
	mirror_cleanup
}

# clat_ms NAME: mean completion latency of fio job NAME's writes, in ms.
clat_ms() {
	jq '.jobs[0].write.clat_ns.mean / 1000000 | floor' "/tmp/fio-$1.json"
}

# not_behind NAME: node1 of NAME has no write behind.
not_behind() { [[ "$(leg_field "$1" 1 behind)" == 0 ]]; }

# write_qd1 NAME DEV: 4 s of 4 KiB random O_DIRECT writes, one at a time.
write_qd1() {
	expect_ok bounded 120 fio --name="$1" --filename="$2" --direct=1 \
		--ioengine=psync --rw=randwrite --bs=4k --size=32M --time_based \
		--runtime=4 --output-format=json --output="/tmp/fio-$1.json"
}

mirror_setup 3 64
trap wb_cleanup EXIT
expect_ok tc qdisc add dev lo root handle 1: prio
expect_ok tc qdisc add dev lo parent 1:3 handle 30: netem delay 50ms
expect_ok tc filter add dev lo parent 1: protocol ip prio 1 u32 \
	match ip dport $PORT 0xffff flowid 1:3

do_export e1 /dev/ram1 127.0.0.1:$PORT

# --- the control: a plain remote leg makes every write wait ---------------
make_storage p mirror -- /dev/ram0 127.0.0.1:$PORT -- --assume-clean
write_qd1 plain "$DEV"
plain=$(clat_ms plain)
log "plain remote leg 50 ms away: writes take $plain ms"
((plain >= 50)) || fail "writes to a mirror with a leg 50 ms away took $plain ms"
drop_storage p
wait_for 30 "e1 to have no clients" field_is export_field e1 clients 0

# --- write-behind: writes follow the local leg -------------------------------
expect_ok bounded 30 dstadm create m --alg mirror
STORAGES+=(m)
[[ "$(bounded 30 dstadm add m local /dev/ram0)" == node0 ]] || fail "add local"
[[ "$(bounded 60 dstadm add m remote 127.0.0.1:$PORT --write-behind 256)" == node1 ]] ||
	fail "add remote --write-behind"
expect_ok bounded 60 dstadm start m --assume-clean
M=$(storage_dev m)
wait_for 10 "$M to appear" test -b "$M"
[[ "$(leg_field m 1 write_mostly)" == true && "$(leg_field m 1 write_behind)" == 256 ]] ||
	fail "status does not show node1 write-mostly, write-behind 256"
grep -q "write-mostly, write-behind: 256, now [0-9]* behind" <<<"$(bounded 30 dstadm status m)" ||
	fail "status text does not show the write-behind leg"

write_qd1 behind "$M" &
FIO=$!
seen=0
for _ in 1 2 3 4 5 6; do
	sleep 0.5
	b=$(leg_field m 1 behind)
	((b > seen)) && seen=$b
done
wait "$FIO" || fail "fio on the write-behind mirror failed"
behind=$(clat_ms behind)
log "write-behind leg 50 ms away: writes take $behind ms, up to $seen behind seen"
((behind < 25)) || fail "writes to a mirror with a write-behind leg took $behind ms"
((seen > 0)) || fail "status never showed a write behind"

# --- reads avoid the write-mostly leg ------------------------------------------
before=$(leg_field m 1 read_bytes)
expect_ok bounded 120 fio --name=rd --filename="$M" --direct=1 --ioengine=libaio \
	--rw=randread --bs=64k --iodepth=8 --size=32M --time_based --runtime=2 \
	--output=/tmp/fio-rd.txt
[[ "$(leg_field m 1 read_bytes)" == "$before" ]] ||
	fail "reads went to the write-mostly leg"

expect_ok bounded 120 dstadm wait m --timeout 100
wait_for 30 "node1 to be behind by nothing" not_behind m
all_in_sync m || fail "a leg is out of sync after the writes behind"
legs_identical 64 /dev/ram0 /dev/ram1
drop_storage m
wait_for 30 "e1 to have no clients" field_is export_field e1 clients 0

# --- resync reads from a leg that is not write-mostly ------------------------
# Kernel review K2-M11: the write-behind leg comes first and, with no I/O
# in flight anywhere, 20f0e7d copied a new leg from it (read_bytes 64 MiB).
expect_ok bounded 30 dstadm create r --alg mirror
STORAGES+=(r)
expect_ok bounded 60 dstadm add r remote 127.0.0.1:$PORT --write-behind 16
expect_ok bounded 30 dstadm add r local /dev/ram0
expect_ok bounded 60 dstadm start r --assume-clean
before=$(leg_field r 0 read_bytes)
[[ "$(bounded 30 dstadm add r local /dev/ram2)" == node2 ]] || fail "add a third leg"
expect_ok bounded 120 dstadm wait r --timeout 100
all_in_sync r || fail "a leg of r is out of sync after its resync"
[[ "$(leg_field r 0 read_bytes)" == "$before" ]] ||
	fail "the resync read $(($(leg_field r 0 read_bytes) - before)) bytes from the write-behind leg"
legs_identical 64 /dev/ram0 /dev/ram2
drop_storage r
log "resync: the new leg copied from the local leg, not the write-behind one"

# --- a write to a place written behind waits for that copy ------------------
# The leg's export writes through dm-delay (writes 3 s), not netem: the
# copy is at the export in no time and waits there. A first 4 KiB write
# to block X completes at the local leg's pace while its copy waits; a
# write to another block goes on meanwhile (X on the leg's device still
# as before); a second write to X completes only when the first one's
# copy is on the leg (X there no longer as before), so that the leg can
# never get the two in the wrong order (md serializes its write-behind
# writes so). After "dstadm wait" the legs are identical, X the second.
block() { bounded 30 dd if="$1" bs=4k skip="$2" count=1 iflag=direct status=none | sha256sum; }
write_block() {
	head -c 4096 /dev/zero | tr '\0' "$2" >/tmp/wb.blk
	expect_ok bounded 60 dd if=/tmp/wb.blk of="$1" bs=4k seek="$3" count=1 \
		oflag=direct status=none
}
undo_export e1
expect_ok dmsetup create wbslow --table \
	"0 $((64 * 2048)) delay /dev/ram1 0 0 /dev/ram1 0 3000"
DMS+=(wbslow)
do_export e2 /dev/mapper/wbslow 127.0.0.1:$((PORT + 1))
expect_ok bounded 30 dstadm create w --alg mirror
STORAGES+=(w)
expect_ok bounded 30 dstadm add w local /dev/ram0
expect_ok bounded 60 dstadm add w remote 127.0.0.1:$((PORT + 1)) --write-behind 16
expect_ok bounded 60 dstadm start w --assume-clean
W=$(storage_dev w)
wait_for 10 "$W to appear" test -b "$W"
X=1283
old=$(block /dev/ram1 $X)
write_block "$W" '\252' $X
[[ "$(leg_field w 1 behind)" -ge 1 && "$(block /dev/ram1 $X)" == "$old" ]] ||
	fail "the first write to block $X is not behind: the test needs it so"
write_block "$W" '\273' $((X + 512))
[[ "$(block /dev/ram1 $X)" == "$old" ]] ||
	fail "a write to another block waited for the copy of block $X"
write_block "$W" '\273' $X
[[ "$(block /dev/ram1 $X)" != "$old" ]] ||
	fail "a second write to block $X completed before the first one's copy was on the leg"
expect_ok bounded 120 dstadm wait w --timeout 100
wait_for 30 "node1 of w to be behind by nothing" not_behind w
legs_identical 64 /dev/ram0 /dev/ram1
[[ "$(block /dev/ram1 $X)" == "$(sha256sum </tmp/wb.blk)" ]] ||
	fail "block $X on the leg is not the second write"
drop_storage w
log "write behind: a second write to a place waits for the first one's copy"

# --- a linear storage has no write-mostly legs -----------------------------------
expect_ok bounded 30 dstadm create l --alg linear
STORAGES+=(l)
expect_error 1 "write-mostly is for the legs of a mirror" \
	bounded 30 dstadm add l local /dev/ram0 --write-behind 4
log "write-behind: writes at the local leg's pace, reads off the leg, legs identical"
