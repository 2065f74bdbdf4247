#!/bin/bash
# CRC-32C on the wire.  An export that wants it refuses clients without
# it.  The module's checksums agree with an independent implementation
# (tests/tools/wire.c) both ways.  1000 WRITEs with one bit flipped in the
# header or the data after the checksums are all caught by the export:
# ECRC or the connection closed, never written, counted.  Replies of a
# fake export with one bit flipped are caught by the in-kernel client:
# 1000 such reads all fail with EIO while good reads of the same link
# return the right data; in a mirror such a leg goes out of sync and fio
# verify stays clean.  A writer that changes its O_DIRECT buffer while it
# is written makes the export answer ECRC: that write alone is sent again
# (from a copy), the connection stays up, the remote leg of a mirror stays
# in sync (kernel review S3: on 262ada2 it went out of sync for good; on
# 20f0e7d every ECRC reset the connection).  And such a writer, an
# unprivileged user on its own file, cannot abort the ext4 of an import
# while root appends and syncs (kernel review K2-S2: on 20f0e7d the reset
# failed every request in flight, and the journal aborted; seen failing).
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7320
DSTSEC=$DST_ROOT/tests/tools/dstsec
TRIALS=${DST_FLIP_TRIALS:-1000}
MIB=64

mirror_setup 4 $MIB
load_dst
trap mirror_cleanup EXIT

# --- the export checks ---------------------------------------------------------
do_export e0 /dev/ram0 127.0.0.1:$PORT --integrity
[[ "$(export_field e0 integrity)" == crc32c ]] || fail "e0 integrity $(export_field e0 integrity)"
expect_ok bounded 60 "$DSTSEC" client 127.0.0.1 $PORT denied
expect_error 1 "does not let this host in" dstadm import r9 --remote 127.0.0.1:$PORT --timeout 5
expect_ok bounded 60 "$DSTSEC" --crc client 127.0.0.1 $PORT ok 1048576
before=$(dev_sha /dev/ram0 $MIB)
expect_ok bounded 600 "$DSTSEC" --crc client 127.0.0.1 $PORT flip "$TRIALS"
[[ "$(dev_sha /dev/ram0 $MIB)" == "$before" ]] || fail "a corrupted WRITE reached the device"
[[ "$(export_field e0 crc_errors)" == "$TRIALS" ]] ||
	fail "e0 counted $(export_field e0 crc_errors) checksum errors, want $TRIALS"
undo_export e0
log "export: $TRIALS corrupted WRITEs detected, none written, all counted"

# --- the in-kernel client checks ------------------------------------------------
bounded 3600 "$DSTSEC" server $((PORT + 1)) $((MIB << 20)) flip >/tmp/flipsrv.log 2>&1 &
BG_PIDS+=($!)
wait_for 10 "the fake export to listen" grep -q serving /tmp/flipsrv.log
do_import f0 127.0.0.1:$((PORT + 1)) --integrity --dead-timeout 0 --reconnect-max 1 --timeout 10
sysdir=/sys/block/${DEV#/dev/}/dst/node0
half=$((MIB << 7))	# 4 KiB blocks in half the export
head -c 4096 /dev/urandom >/tmp/blk
expect_ok bounded 30 dd if=/tmp/blk of="$DEV" bs=4096 seek=7 oflag=direct status=none
# Each trial: wait until the node is connected, one O_DIRECT read of a
# block in the corrupted half, which must fail with EIO; every tenth, a
# read of block 7, which must return what was written.
good=$(bounded 900 python3 - "$DEV" "$sysdir/state" "$TRIALS" "$half" /tmp/blk <<'PY'
import errno, mmap, os, random, sys, time
dev, state, trials, half, blk = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
want = open(blk, "rb").read()
fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
rng = random.Random(7)
def connected():
    end = time.monotonic() + 20
    while open(state).read().strip() != "connected":
        if time.monotonic() > end:
            sys.exit("the node did not reconnect within 20 s")
        time.sleep(0.01)
good = 0
for i in range(1, trials + 1):
    connected()
    try:
        os.preadv(fd, [buf], (half + rng.randrange(half)) * 4096)
        sys.exit(f"trial {i}: a corrupted read returned data")
    except OSError as e:
        if e.errno != errno.EIO:
            sys.exit(f"trial {i}: a corrupted read failed with {e}, not EIO")
    if i % 10 == 0:
        connected()
        os.preadv(fd, [buf], 7 * 4096)
        if buf[:] != want:
            sys.exit(f"trial {i}: a good read of the same link returned wrong data")
        good += 1
print(good)
PY
) || fail "corrupted reads: $good"
errors=$(cat "$sysdir/crc_errors")
((errors >= TRIALS)) || fail "f0 counted $errors checksum errors after $TRIALS corrupted reads"
undo_import f0
log "client: $TRIALS corrupted reads failed with EIO ($errors checksum errors counted), $good good reads right"

# --- a mirror leg that returns bad data goes out of sync --------------------
# The corrupting export first: with nothing in flight, a read goes to the
# first leg, and a sequential one stays there.  Both legs are zeros in the
# upper half.
expect_ok bounded 30 dstadm create m0 --alg mirror
STORAGES+=(m0)
[[ "$(bounded 60 dstadm add m0 remote 127.0.0.1:$((PORT + 1)) --integrity --timeout 10)" == node0 ]] ||
	fail "add m0 remote"
[[ "$(bounded 30 dstadm add m0 local /dev/ram1)" == node1 ]] || fail "add m0 local"
expect_ok bounded 60 dstadm start m0 --assume-clean
wait_for 10 "m0's disk" test -b "$(storage_dev m0)"
cmp -n $((1 << 20)) <(bounded 60 dd if="$(storage_dev m0)" bs=4096 skip="$half" count=256 \
	iflag=direct status=none) /dev/zero || fail "a read of the mirror returned bad data or failed"
[[ "$(sysfs_leg m0 0 sync)" == out-of-sync ]] || fail "the corrupting leg is $(sysfs_leg m0 0 sync)"
((($(sysfs_leg m0 0 crc_errors)) > 0)) || fail "no checksum error counted on the leg"
fio_verify leg "$(storage_dev m0)" 10
log "mirror: the corrupting leg went out of sync, fio verify clean"

# --- a writer that changes its data while it is written --------------------
do_export e2 /dev/ram2 127.0.0.1:$((PORT + 2)) --integrity
expect_ok bounded 30 dstadm create m1 --alg mirror
STORAGES+=(m1)
expect_ok bounded 30 dstadm add m1 local /dev/ram3
expect_ok bounded 60 dstadm add m1 remote 127.0.0.1:$((PORT + 2)) --integrity --timeout 10 \
	--reconnect-max 1
expect_ok bounded 60 dstadm start m1 --assume-clean
wait_for 10 "m1's disk" test -b "$(storage_dev m1)"
expect_ok bounded 60 "$DST_ROOT/tests/tools/unstable" "$(storage_dev m1)" 5
crc=$(sysfs_leg m1 1 crc_errors)
((crc > 0)) || fail "no checksum mismatch counted: the test did not test"
[[ "$(sysfs_leg m1 1 reconnects)" == 0 ]] ||
	fail "a checksum mismatch reset the connection ($(sysfs_leg m1 1 reconnects) reconnects)"
[[ "$(leg_field m1 1 sync)" == in-sync ]] || fail "the remote leg is $(leg_field m1 1 sync)"
# The legs may hold different versions of a block whose writer changed it
# while it was written (as md's raid1): the next write makes them equal.
expect_ok bounded 30 dd if=/dev/urandom of="$(storage_dev m1)" bs=4096 count=1 oflag=direct \
	status=none
legs_identical "$MIB" /dev/ram3 /dev/ram2
log "mirror: $crc writes changed under their checksum, sent again; the remote leg stayed in sync"

# --- an unprivileged writer cannot abort another user's filesystem --------
do_export e3 /dev/ram0 127.0.0.1:$((PORT + 3)) --integrity
do_import i3 127.0.0.1:$((PORT + 3)) --integrity --timeout 10
node=/sys/block/${DEV#/dev/}/dst/node0
expect_ok bounded 60 mkfs.ext4 -q -F "$DEV"
mkdir -p /mnt/s2
expect_ok bounded 30 mount "$DEV" /mnt/s2
MOUNTS+=(/mnt/s2)
mkdir /mnt/s2/u
chown "$DST_USER:" /mnt/s2/u
expect_ok as_user timeout -k 5 30 dd if=/dev/zero of=/mnt/s2/u/f bs=4096 count=1 status=none
crc0=$(cat "$node/crc_errors")
aborts=$(dmesg | grep -c "Aborting journal" || true)
# Root appends and syncs all along (sync FILE: fsync, which reports EIO).
# shellcheck disable=SC2016 # expanded by the inner shell
bounded 60 bash -c 'n=0; end=$((SECONDS + 6))
	while ((SECONDS < end)); do
		if ! { date >>/mnt/s2/log && sync /mnt/s2/log; }; then
			echo "failed after $n appends"; exit 1
		fi
		n=$((n + 1))
	done
	echo "$n"' >/tmp/s2loop.out 2>&1 &
loop=$!
BG_PIDS+=("$loop")
sleep 0.5
writer=$(as_user timeout -k 5 30 "$DST_ROOT/tests/tools/unstable" /mnt/s2/u/f 5) ||
	fail "the unprivileged writer could not run"
rc=0
wait "$loop" || rc=$?
keep=()
for p in "${BG_PIDS[@]}"; do [[ "$p" == "$loop" ]] || keep+=("$p"); done
BG_PIDS=("${keep[@]}")
((rc == 0)) || fail "root's appends failed: $(cat /tmp/s2loop.out)"
appends=$(cat /tmp/s2loop.out)
crc=$(($(cat "$node/crc_errors") - crc0))
((crc > 0)) || fail "no checksum mismatch counted ($writer): the test did not test"
(($(dmesg | grep -c "Aborting journal" || true) == aborts)) || fail "ext4 aborted its journal"
! findmnt -n -o OPTIONS /mnt/s2 | grep -qw ro || fail "ext4 is read-only now"
expect_ok touch /mnt/s2/x
(($(wc -l </mnt/s2/log) == appends)) || fail "$(wc -l </mnt/s2/log) appends in the log, not $appends"
[[ "$(cat "$node/reconnects")" == 0 ]] ||
	fail "a checksum mismatch reset the connection ($(cat "$node/reconnects") reconnects)"
log "ext4: $writer, $crc checksum mismatches; root's $appends appends and syncs all done, ext4 writable"
