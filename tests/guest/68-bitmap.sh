#!/bin/bash
# The write-intent bitmap of a mirror (--bitmap FILE), in one guest:
# - a new bitmap: full resync, then its bits clear lazily; a write's region
#   is set in the file before the write returns;
# - a clean stop marks it clean and clears it: the next start trusts the
#   legs (no resync);
# - the file as it was while running (what a crash of the host leaves) with
#   a leg changed in its regions: the start says "unclean" and resyncs
#   those regions only, and the legs end identical;
# - a leg that fails is marked out of sync in the file before the write it
#   missed returns;
# - a bitmap of another storage, of another chunk size, or holding junk is
#   refused, --assume-clean takes it over; a leg as the bitmap device is
#   refused (it is opened exclusively); linear takes none.
# The crash of a real host is in tests/multi (SIGKILL of the guest).
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"
trap mirror_cleanup EXIT

MIB=64
DIR=/tmp/dst-bitmap
BM=$DIR/m.bitmap
rm -rf "$DIR"
mkdir -p "$DIR"

# hdr_u32 FILE OFFSET: a little-endian u32 of the bitmap header.
hdr_u32() { od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
# state of the file (1 clean, 2 running), and of its leg K (1 in sync, 2 dirty, 3 full)
file_state() { hdr_u32 "$1" 12; }
file_leg_state() { hdr_u32 "$1" $((72 + 128 * $2 + 4)); }
# bits64 FILE: the first 64 regions' bits on disk, as a number.
bits64() { echo $((16#$(od -An -t x8 -j 4096 -N 8 "$1" | tr -d ' '))); }

write_at() { # DEV MIB_OFFSET: 64 KiB of random data
	expect_ok dd if=/dev/urandom of="$1" bs=64K count=1 seek=$(($2 * 16)) \
		oflag=direct status=none
}

mirror_setup 4 "$MIB"
expect_ok dd if=/dev/urandom of=/dev/ram0 bs=1M count="$MIB" oflag=direct status=none

make_storage m mirror --chunk-size 1M --bitmap "$BM" -- /dev/ram0 /dev/ram1
M=$DEV
SYS=/sys/block/${M#/dev/}/dst
[[ "$(storage_field m bitmap)" == "$BM" ]] || fail "status does not name the bitmap"
[[ "$(storage_field m started)" == full ]] || fail "a new bitmap did not start a full resync"
[[ "$(cat "$SYS/started")" == full ]] || fail "sysfs started is not full"
[[ -f "$BM" && "$(file_state "$BM")" == 2 ]] || fail "the bitmap file is not marked running"
[[ "$(file_leg_state "$BM" 1)" == 3 ]] || fail "node1 is not marked as copied in full"
wait_in_sync m
bitmap_clear() { [[ "$(storage_field m bitmap_regions)" == 0 ]]; }
wait_for 30 "the bitmap to clear after the resync" bitmap_clear
grep -q "^  bitmap: $BM, 0 region(s) set" <<<"$(dstadm status m)" || fail "text status shows no bitmap"
grep -q "^  started: full resync" <<<"$(dstadm status m)" || fail "text status shows no start"

# Each write's region is in the file before the write returns (read
# through the page cache: that it is on the disk is what 68-power-cut
# and the multi tier's 73 show; tests audit L12).
for off in 5 20 40; do write_at "$M" "$off"; done
want=$(((1 << 5) | (1 << 20) | (1 << 40)))
[[ "$(bits64 "$BM")" == "$want" ]] ||
	fail "bits on disk $(bits64 "$BM"), want $want after writes to regions 5, 20, 40"
[[ "$(storage_field m bitmap_regions)" == 3 ]] || fail "status does not count 3 regions"
cp "$BM" "$DIR/crash.bitmap"
log "regions 5, 20 and 40 are in the file before their writes returned"

# A clean stop: clean and cleared; the next start resyncs nothing.
expect_ok bounded 60 dstadm stop m
[[ "$(file_state "$BM")" == 1 ]] || fail "the bitmap is not clean after a stop"
[[ "$(bits64 "$BM")" == 0 ]] || fail "bits left set after a clean stop"
legs_identical "$MIB" /dev/ram0 /dev/ram1
expect_ok bounded 60 dstadm start m
[[ "$(storage_field m started)" == clean ]] || fail "not started clean after a clean stop"
all_in_sync m || fail "legs not in sync at once after a clean stop"
[[ "$(storage_field m resync_bytes)" == 0 ]] || fail "resync after a clean stop"
expect_ok bounded 60 dstadm stop m

# The file as a crash left it, and leg 1 changed in its regions as writes
# cut short would leave it: only those regions are copied.
for off in 5 20 40; do write_at /dev/ram1 "$off"; done
cp "$DIR/crash.bitmap" "$BM"
kmsg_mark
expect_ok bounded 60 dstadm start m
[[ "$(storage_field m started)" == unclean ]] || fail "not started unclean from a running bitmap"
grep -q "^  started: after an unclean stop" <<<"$(dstadm status m)" || fail "text status does not say unclean"
wait_in_sync m
[[ "$(storage_field m resync_bytes)" == $((3 << 20)) ]] ||
	fail "resynced $(storage_field m resync_bytes) bytes, not the 3 regions of the bitmap"
legs_identical "$MIB" /dev/ram0 /dev/ram1
grep -q "m: started after an unclean stop" <(kmsg_new) || fail "no log line for the unclean start"
expect_ok bounded 60 dstadm stop m
log "an unclean start copied the 3 regions of the bitmap and nothing else"

# A leg's failure is on disk before the write it missed returns.
dm_linear dstbm1 /dev/ram3
expect_ok bounded 30 dstadm create f --alg mirror --chunk-size 1M --bitmap "$DIR/f.bitmap"
STORAGES+=(f)
expect_ok bounded 30 dstadm add f local /dev/ram2
expect_ok bounded 30 dstadm add f local /dev/mapper/dstbm1
expect_ok bounded 60 dstadm start f --assume-clean
[[ "$(storage_field f started)" == assume-clean ]] || fail "f not started assume-clean"
F=$(storage_dev f)
[[ "$(file_leg_state "$DIR/f.bitmap" 1)" == 1 ]] || fail "node1 of f not in sync in its file"
dm_fail dstbm1
write_at "$F" 7
leg_is f 1 out-of-sync || fail "node1 of f not out of sync after a failed write"
[[ "$(file_leg_state "$DIR/f.bitmap" 1)" == 2 ]] ||
	fail "node1's failure is not in the file when the write returned"
(($(bits64 "$DIR/f.bitmap") & (1 << 7))) || fail "region 7 not set in f's bitmap"
drop_storage f

# Refusals: another storage's bitmap, another chunk size, junk.
expect_ok bounded 30 dstadm create g --alg mirror --chunk-size 1M --bitmap "$BM"
STORAGES+=(g)
expect_ok bounded 30 dstadm add g local /dev/ram2
out=$(bounded 30 dstadm start g 2>&1) && fail "started with another storage's bitmap"
grep -q "belongs to another storage" <<<"$out" || fail "no reason for another storage's bitmap: $out"
drop_storage g
drop_storage m
make_storage m mirror --chunk-size 512K --bitmap "$BM" -- /dev/ram0 /dev/ram1 -- --assume-clean
[[ "$(storage_field m started)" == assume-clean ]] || fail "--assume-clean did not take the bitmap over"
drop_storage m
expect_ok bounded 30 dstadm create m --alg mirror --chunk-size 1M --bitmap "$BM"
STORAGES+=(m)
expect_ok bounded 30 dstadm add m local /dev/ram0
out=$(bounded 30 dstadm start m 2>&1) && fail "started with a bitmap of another chunk size"
grep -q "made for another chunk size" <<<"$out" || fail "no reason for the chunk size: $out"
drop_storage m
expect_ok bounded 30 dstadm create k --alg mirror --bitmap /dev/ram1
STORAGES+=(k)
expect_ok bounded 30 dstadm add k local /dev/ram0
expect_ok bounded 30 dstadm add k local /dev/ram1
out=$(bounded 30 dstadm start k 2>&1) && fail "started with a leg as its bitmap"
grep -q "bitmap device is in use" <<<"$out" || fail "no reason for a leg as bitmap: $out"
drop_storage k
echo junk >"$DIR/junk"
expect_ok bounded 30 dstadm create j --alg mirror --bitmap "$DIR/junk"
STORAGES+=(j)
expect_ok bounded 30 dstadm add j local /dev/ram0
out=$(bounded 30 dstadm start j 2>&1) && fail "started with junk as its bitmap"
grep -q "holds something else" <<<"$out" || fail "no reason for junk: $out"
drop_storage j
expect_rc 1 bounded 30 dstadm create l --alg linear --bitmap "$DIR/l"
nothing_left
