#!/bin/bash
# A write the client gave up on never lands after a newer one (kernel
# review D1).  The export's thread of the first connection is put in a
# cgroup whose writes to the device are throttled to 8 KiB/s, so that a
# 64 KiB write of it takes 8 s: the client times out after 2 s and
# connects again.  The export must fence the old connection (its requests
# done, no more read) before it answers the new one: only then is the
# write sent again and the next write to the same place made.
#   - an import with --dead-timeout: A then B written to the same 64 KiB,
#     both acknowledged; the device holds B, also after the old write of
#     A had all the time it needed;
#   - a mirror leg: the same; the legs are identical once in sync.
# On 262ada2 both fail (the device holds A; the legs differ while both
# are in sync): seen failing there.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7650
CG=/sys/fs/cgroup

fence_cleanup() {
	local rc=$? p
	set +e
	while read -r p; do
		echo "$p" >"$CG/cgroup.procs"
	done 2>/dev/null <"$CG/dstslow/cgroup.procs"
	rmdir "$CG/dstslow" 2>/dev/null
	(exit "$rc")
	mirror_cleanup
}

mirror_setup 2 64
trap fence_cleanup EXIT
mountpoint -q "$CG" || mount -t cgroup2 none "$CG"
grep -qw io "$CG/cgroup.controllers" || fail "no io controller in cgroup v2"
echo +io >"$CG/cgroup.subtree_control"
mkdir -p "$CG/dstslow"
echo "$(cat /sys/block/ram0/dev) wbps=8192" >"$CG/dstslow/io.max"
head -c 64K /dev/urandom >/tmp/fA
head -c 64K /dev/urandom >/tmp/fB

# slow_server EXPORT: the export's client threads into the slow cgroup.
slow_server() {
	local p n=0
	for p in $(pgrep '^dst-srv/'); do
		echo "$p" >"$CG/dstslow/cgroup.procs"
		n=$((n + 1))
	done
	((n > 0)) || fail "no server thread of $1"
}

# write_at DEV FILE: FILE written at the start of DEV.
write_at() { expect_ok bounded 120 dd if="$2" of="$1" bs=64k count=1 oflag=direct status=none; }
first_64k() { bounded 60 dd if="$1" bs=64k count=1 iflag=direct status=none | sha256sum | cut -c1-64; }

# --- an import with --dead-timeout ------------------------------------------
do_export e /dev/ram0 127.0.0.1:$PORT
do_import r 127.0.0.1:$PORT --timeout 2 --dead-timeout 120
slow_server e
write_at "$DEV" /tmp/fA
write_at "$DEV" /tmp/fB
log "A then B written, both acknowledged; giving the first connection's write time"
sleep 12
[[ "$(first_64k "$DEV")" == "$(file_sha /tmp/fB)" ]] ||
	fail "the import reads other data than B, the last write acknowledged"
[[ "$(first_64k /dev/ram0)" == "$(file_sha /tmp/fB)" ]] ||
	fail "the exported device holds other data than B: an old write landed after a newer one"
[[ "$(node_field r reconnects)" -ge 1 ]] || fail "the node did not reconnect: the test did not test"
log "import: the write given up on did not land after the newer one"
undo_import r
undo_export e

# --- a mirror leg -------------------------------------------------------------
do_export e /dev/ram0 127.0.0.1:$PORT
expect_ok bounded 30 dstadm create m --alg mirror --chunk-size 1M
STORAGES+=(m)
expect_ok bounded 30 dstadm add m local /dev/ram1
expect_ok bounded 60 dstadm add m remote 127.0.0.1:$PORT --timeout 2 --reconnect-max 1
expect_ok bounded 60 dstadm start m --assume-clean
DEV=$(storage_dev m)
wait_for 10 "$DEV to appear" test -b "$DEV"
slow_server e
write_at "$DEV" /tmp/fA
write_at "$DEV" /tmp/fB
leg_out() { leg_behind m 1; }
wait_for 60 "the remote leg out of sync" leg_out
log "A then B written; the remote leg went out of sync"
wait_in_sync m 120
sleep 12
legs_identical 64 /dev/ram1 /dev/ram0
[[ "$(first_64k /dev/ram0)" == "$(file_sha /tmp/fB)" ]] || fail "the remote leg does not hold B"
log "mirror: the legs are identical once in sync"
drop_storage m
undo_export e
nothing_left
log "ok"
