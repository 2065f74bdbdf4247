#!/bin/bash
# Discard and write-zeroes pass through to an export whose device has them
# (a loop device on tmpfs), the sysfs state of a remote disk matches its
# status, and rmmod is refused while an export exists.
set -euo pipefail
# shellcheck source=tests/guest/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/lib.sh"

LOOP=
cleanup() {
	set +e
	dstadm delete dz 2>/dev/null
	dstadm unexport dz 2>/dev/null
	[[ -z "$LOOP" ]] || losetup -d "$LOOP"
	umount /tmp/dz 2>/dev/null
}
trap cleanup EXIT

ip link set lo up
modprobe loop
mkdir -p /tmp/dz
mount -t tmpfs -o size=80m tmpfs /tmp/dz
truncate -s 64M /tmp/dz/img
LOOP=$(losetup --find --show /tmp/dz/img)
[[ "$(cat "/sys/block/${LOOP#/dev/}/queue/discard_max_bytes")" != 0 ]] ||
	fail "$LOOP has no discard: the test needs a device that has it"

load_dst
expect_ok dstadm export dz --device "$LOOP" --listen 127.0.0.1:7700
expect_rc 1 rmmod dst_storage
dev=$(dstadm import dz --remote 127.0.0.1:7700)
sys=/sys/block/${dev#/dev/}
[[ "$(cat "$sys/queue/discard_max_bytes")" != 0 ]] || fail "$dev does not offer discard"

# sysfs says what status says.
[[ "$(cat "$sys/dst/name")" == dz ]] || fail "dst/name"
[[ "$(cat "$sys/dst/algorithm")" == linear ]] || fail "dst/algorithm"
[[ "$(cat "$sys/dst/node0/type")" == remote ]] || fail "node0/type"
[[ "$(cat "$sys/dst/node0/address")" == 127.0.0.1:7700 ]] || fail "node0/address"
[[ "$(cat "$sys/dst/node0/state")" == connected ]] || fail "node0/state"
[[ "$(cat "$sys/dst/node0/size")" == $((64 << 20)) ]] || fail "node0/size"
[[ "$(cat "$sys/dst/node0/timeout")" == 30 ]] || fail "node0/timeout"

# Fill with a pattern, discard 1 MiB at 8 MiB (tmpfs punches a hole: zeros),
# zero 1 MiB at 16 MiB with write-zeroes; the rest keeps the pattern.
# Write-zeroes offered, not a fallback to writing zero pages.
[[ "$(cat "$sys/queue/write_zeroes_max_bytes")" != 0 ]] ||
	fail "$dev offers no write-zeroes: blkdiscard -z would write zero pages"
head -c 32M /dev/zero | tr '\0' '\252' >/tmp/pattern
expect_ok dd if=/tmp/pattern of="$dev" bs=1M oflag=direct status=none
w0=$(cat "$sys/dst/node0/write_bytes")
expect_ok blkdiscard -o $((8 << 20)) -l $((1 << 20)) "$dev"
expect_ok blkdiscard -z -o $((16 << 20)) -l $((1 << 20)) "$dev"
zero=$(head -c 1M /dev/zero | sha256sum | cut -d' ' -f1)
pat=$(head -c 1M /tmp/pattern | sha256sum | cut -d' ' -f1)
for mib in 7 8 9 15 16 17; do
	got=$(dd if="$dev" bs=1M skip="$mib" count=1 iflag=direct status=none | sha256sum | cut -d' ' -f1)
	case $mib in
	8 | 16) want=$zero ;;
	*) want=$pat ;;
	esac
	[[ "$got" == "$want" ]] || fail "MiB $mib through $dev holds the wrong data"
	got=$(dd if="$LOOP" bs=1M skip="$mib" count=1 iflag=direct status=none | sha256sum | cut -d' ' -f1)
	[[ "$got" == "$want" ]] || fail "MiB $mib on $LOOP holds the wrong data"
done
[[ "$(cat "$sys/dst/node0/read_bytes")" -ge $((6 << 20)) ]] || fail "read_bytes did not count the reads"
log "discard and write-zeroes ok; write_bytes $w0"

expect_ok dstadm delete dz
expect_ok dstadm unexport dz
unload_dst
log "ok"
