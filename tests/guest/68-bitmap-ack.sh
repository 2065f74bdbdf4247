#!/bin/bash
# A leg that goes out of sync is in the bitmap's header before anything
# it missed is acknowledged (kernel review K2-D2), also when what it
# missed is an empty flush (fsync of the disk) and when it is removed at
# runtime: right after the fsync returns, and right after a write that
# follows the removal, the header on disk no longer calls that leg in
# sync.  After a crash then, the stale leg would be the source of the
# restart.  On 20f0e7d's module the header still said in sync: seen
# failing there.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7520
BM=/tmp/ba/m.bm
trap mirror_cleanup EXIT
mirror_setup 2 64
mkdir -p /tmp/ba

# leg_on_disk ID: the state the header gives node ID (1 in sync, 2 dirty,
# 3 full), or "absent".
leg_on_disk() {
	python3 - "$BM" "$1" <<'PY'
import struct, sys
h = open(sys.argv[1], "rb").read(4096)
nr, = struct.unpack_from("<I", h, 36)
for n in range(nr):
    ident, state = struct.unpack_from("<II", h, 72 + 128 * n)
    if ident == int(sys.argv[2]):
        print(state)
        break
else:
    print("absent")
PY
}

# --- an empty flush node0 failed ------------------------------------------
do_export e /dev/ram1 127.0.0.1:$PORT
expect_ok bounded 30 dstadm create m --alg mirror --chunk-size 1M --bitmap "$BM"
STORAGES+=(m)
expect_ok bounded 60 dstadm add m remote 127.0.0.1:$PORT --timeout 2
expect_ok bounded 30 dstadm add m local /dev/ram0
expect_ok bounded 60 dstadm start m --assume-clean
DEV=$(storage_dev m)
expect_ok dd if=/dev/urandom of="$DEV" bs=1M seek=5 count=1 oflag=direct status=none
[[ "$(leg_on_disk 0)" == 1 ]] || fail "node0 not in sync in the header at first: $(leg_on_disk 0)"
undo_export e
# The fsync and the look at the header, with nothing in between.
state=$(python3 - "$DEV" "$BM" <<'PY'
import os, struct, sys
fd = os.open(sys.argv[1], os.O_RDWR)
os.fsync(fd)
h = open(sys.argv[2], "rb").read(4096)
print(struct.unpack_from("<I", h, 76)[0])
PY
) || fail "fsync of $DEV failed"
leg_is m 0 out-of-sync || fail "node0 is $(leg_field m 0 sync) after a failed flush"
[[ "$state" == 2 ]] || fail "right after the fsync the header gives node0 state $state, not 2 (dirty)"
log "a failed empty flush is on the header before the fsync returns"
drop_storage m

# --- a leg removed at runtime ---------------------------------------------
rm -f "$BM"
make_storage m mirror --chunk-size 1M --bitmap "$BM" -- /dev/ram0 /dev/ram1 -- --assume-clean
expect_ok dd if=/dev/urandom of="$DEV" bs=1M seek=7 count=1 oflag=direct status=none
expect_ok bounded 30 dstadm remove m node0
# Region 7's bit is set: this write needs no round of its own.
expect_ok dd if=/dev/urandom of="$DEV" bs=1M seek=7 count=1 oflag=direct status=none
state=$(leg_on_disk 0)
[[ "$state" != 1 ]] || fail "after a write that followed its removal, the header has node0 in sync"
log "a removed leg is off the header's in-sync legs before the next write is acknowledged ($state)"
drop_storage m
nothing_left
