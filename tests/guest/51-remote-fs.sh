#!/bin/bash
# ext4 on an imported disk survives umount, fsck and remount and is the
# same filesystem on the exported brd; a read-only export gives a
# read-only disk and refuses raw WRITEs with EROFS; unexporting under
# load fails the client's I/O without hanging anything.
set -euo pipefail
# shellcheck source=tests/guest/remote-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/remote-lib.sh"

remote_setup
trap remote_cleanup EXIT
mkdir -p /mnt/t

# --- ext4 ---------------------------------------------------------------
do_export e0 /dev/ram0 127.0.0.1:7101
do_import r0 127.0.0.1:7101
d0=$DEV
expect_ok bounded 120 mkfs.ext4 -q -F "$d0"
expect_ok bounded 60 mount "$d0" /mnt/t
MOUNTS+=(/mnt/t)
mkdir -p /mnt/t/a/b/c
for i in $(seq 1 20); do
	head -c $((i * 100 * 1024)) /dev/urandom >"/mnt/t/a/f$i"
done
head -c 16M /dev/urandom >/mnt/t/a/b/c/big
echo hello >/mnt/t/small
ln -s a/f1 /mnt/t/link
for f in /mnt/t/a/f* /mnt/t/a/b/c/big /mnt/t/small; do
	expect_ok bounded 60 python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd)' "$f"
done
(cd /mnt/t && find . -type f -print0 | sort -z | xargs -0 sha256sum) >/tmp/sums
expect_ok bounded 60 umount /mnt/t
MOUNTS=()
expect_ok bounded 120 e2fsck -fn "$d0"
expect_ok bounded 60 mount "$d0" /mnt/t
MOUNTS+=(/mnt/t)
(cd /mnt/t && expect_ok bounded 60 sha256sum --quiet -c /tmp/sums)
[[ "$(readlink /mnt/t/link)" == a/f1 ]] || fail "symlink lost"
expect_ok bounded 60 umount /mnt/t
MOUNTS=()
undo_import r0
undo_export e0
# The same filesystem, directly on the brd.
expect_ok bounded 120 e2fsck -fn /dev/ram0
expect_ok bounded 60 mount -o ro /dev/ram0 /mnt/t
MOUNTS+=(/mnt/t)
(cd /mnt/t && expect_ok bounded 60 sha256sum --quiet -c /tmp/sums)
expect_ok bounded 60 umount /mnt/t
MOUNTS=()
log "ext4 through dst: fsync, umount, e2fsck clean, remount identical, same on brd"

# --- read-only export ----------------------------------------------------
head -c 32M /dev/urandom >/tmp/ro
expect_ok bounded 60 dd if=/tmp/ro of=/dev/ram1 bs=1M oflag=direct status=none
ro_sum=$(dev_sha /dev/ram1 32)
do_export ero /dev/ram1 127.0.0.1:7102 --read-only
[[ "$(export_field ero read_only)" == true ]] || fail "status of ero has read_only=$(export_field ero read_only)"
do_import rro 127.0.0.1:7102
dro=$DEV
[[ "$(blockdev --getro "$dro")" == 1 ]] || fail "import of a read-only export: blockdev --getro $dro is not 1"
expect_fail bounded 30 dd if=/dev/zero of="$dro" bs=4k count=1 oflag=direct status=none
expect_fail bounded 30 dd if=/dev/zero of="$dro" bs=4k count=1 conv=fsync status=none
[[ "$(dev_sha "$dro" 32)" == "$ro_sum" ]] || fail "$dro reads other data than the brd holds"
expect_ok bounded 60 "$DSTPEER" client 127.0.0.1 7102 write-ro
expect_ok bounded 60 "$DSTPEER" client 127.0.0.1 7102 write-ro 4096
[[ "$(dev_sha /dev/ram1 32)" == "$ro_sum" ]] || fail "read-only export: the brd data changed"
undo_import rro
undo_export ero
log "read-only export: read-only disk, writes fail, raw WRITE gets EROFS, data unchanged"

# --- unexport under load --------------------------------------------------
do_export e2 /dev/ram0 127.0.0.1:7103
do_import r2 127.0.0.1:7103 --timeout 10
d2=$DEV
bounded 120 fio --name=load --filename="$d2" --direct=1 --ioengine=libaio \
	--rw=randrw --bs=64k --iodepth=16 --size=128M --time_based --runtime=60 \
	--output=/tmp/fio-unexport.txt &
fio_pid=$!
BG_PIDS+=("$fio_pid")
sleep 5
kill -0 "$fio_pid" 2>/dev/null || fail "fio ended before the unexport"
start=$SECONDS
undo_export e2
log "unexport under load took $((SECONDS - start)) s"
rc=0
wait "$fio_pid" || rc=$?
BG_PIDS=()
cat /tmp/fio-unexport.txt || true
log "fio ended $((SECONDS - start)) s after the unexport with status $rc"
((rc != 124 && rc != 137)) || fail "fio hung after the unexport (killed by timeout)"
((rc != 0)) || fail "fio reported no error although the export went away"
wait_for 30 "node of r2 dead" field_is node_field r2 state dead
expect_fail bounded 30 dd if="$d2" of=/dev/null bs=4k count=1 iflag=direct status=none
[[ "$(node_field r2 inflight)" == 0 ]] || fail "r2 has requests in flight after the failure"
undo_import r2
nothing_left
log "unexport under load: client I/O failed, nothing hung, cleanup ok"
