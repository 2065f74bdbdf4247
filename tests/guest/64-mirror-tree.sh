#!/bin/bash
# A tree of two levels: S1 = mirror(ram0, ram1) is exported, S2 =
# linear(remote S1, ram2); fio verify on S2 is clean and S1's legs are
# identical. A storage that is a local node of another is drawn under it
# by status. Then bad input for arrays, each refused with a clear error
# and nothing changed, a storage's own disk as its node among them, also
# through an export of this host imported back.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"
trap mirror_cleanup EXIT

MIB=48
mirror_setup 6 "$MIB"

make_storage s1 mirror -- /dev/ram0 /dev/ram1
S1=$DEV
wait_in_sync s1
do_export s1x "$S1" 127.0.0.1:7103
make_storage s2 linear -- 127.0.0.1:7103 /dev/ram2
S2=$DEV
[[ "$(blockdev --getsize64 "$S2")" == $((2 * MIB << 20)) ]] || fail "S2 is not S1 + ram2"
fio_verify tree "$S2" 15 --size=$((2 * MIB))M
# The first half of S2 is S1, which is each of its legs.
[[ "$(dev_sha "$S2" "$MIB")" == "$(dev_sha "$S1" "$MIB")" ]] || fail "S2's first half is not S1"
[[ "$(dev_sha "$S2" "$MIB" "$MIB")" == "$(dev_sha /dev/ram2 "$MIB")" ]] || fail "S2's second half is not ram2"
drop_storage s2
undo_export s1x
legs_identical "$MIB" /dev/ram0 /dev/ram1 "$S1"

# A local tree: S3 = mirror(S1's disk, ram3), drawn with S1 under it.
make_storage s3 mirror -- "$S1" /dev/ram3
wait_in_sync s3
dstadm status >/tmp/tree.txt
cat /tmp/tree.txt
grep -q "^  .- node0: local $S1\$" /tmp/tree.txt || fail "S3's node0 is not S1's disk"
grep -q "^  |    storage: s1 ($S1)\$" /tmp/tree.txt || fail "S1 is not drawn under S3's node0"
[[ "$(grep -c "storage: s1 " /tmp/tree.txt)" == 1 ]] || fail "S1 is drawn more than once"
fio_verify local-tree "$DEV" 8
drop_storage s3
legs_identical "$MIB" /dev/ram0 /dev/ram1 /dev/ram3

# Bad input: each is refused, with a message, and changes nothing.
state() { status_json | jq -cS .; }
# refused WHAT CMD...: CMD fails with exit status 1 and a message on
# stderr that contains WHAT; the state is the same afterwards.
refused() {
	local what=$1 before err rc=0
	shift
	before=$(state)
	err=$(bounded 60 "$@" 2>&1) || rc=$?
	((rc == 1)) || fail "'$*' exited $rc, not 1"
	[[ "$err" == *"$what"* ]] || fail "'$*' said '$err', not '$what'"
	[[ "$(state)" == "$before" ]] || fail "'$*' changed the state"
	log "refused: $* ($err)"
}
refused "unknown algorithm" dstadm create x --alg nosuch
refused "chunk size" dstadm create x --alg linear --chunk-size 64K
expect_ok bounded 30 dstadm create empty --alg mirror
STORAGES+=(empty)
refused "no nodes" dstadm start empty
refused "no such storage" dstadm add nosuch local /dev/ram4
make_storage busy mirror -- /dev/ram4 -- --assume-clean
refused "in use" dstadm add empty local /dev/ram4
refused "last leg in sync" dstadm remove busy node0
refused "cannot connect" dstadm add empty remote 127.0.0.1:7199
do_export gone /dev/ram5 127.0.0.1:7104
undo_export gone
refused "cannot connect" dstadm add busy remote 127.0.0.1:7104
refused "no such node" dstadm remove busy node9
refused "no such node" dstadm remove empty 0
expect_rc 2 dstadm create x --alg mirror --chunk-size 3000
expect_rc 2 dstadm remove busy nodeX
# A storage never takes itself as a node, directly or through another
# storage on it, or through an export of this host imported back; on
# 262ada2 the mirror took its own disk and the guest hung (seen failing
# there; the imported export was not tried there).
BUSY=$(storage_dev busy)
refused "this storage, or sits on it" dstadm add busy local "$BUSY"
make_storage onbusy linear -- "$BUSY"
refused "this storage, or sits on it" dstadm add busy local "$DEV"
drop_storage onbusy
# Nor through an export of this host imported back: the mirror's disk
# exported and added to it as a remote node, or a storage on an import
# of that export added as a local node.  (The remote node connects
# before it is refused, so the export's clients change meanwhile.)
do_export busyx "$BUSY" 127.0.0.1:7105
rc=0
err=$(bounded 60 dstadm add busy remote 127.0.0.1:7105 2>&1) || rc=$?
((rc == 1)) || fail "adding busy's own export to it exited $rc, not 1: $err"
[[ "$err" == *"this storage, or sits on it"* ]] || fail "adding busy's own export said '$err'"
[[ "$(status_json | jq '.storages[] | select(.name == "busy") | .nodes | length')" == 1 ]] ||
	fail "busy took its own export as a node"
log "refused: busy's own export as its remote node ($err)"
make_storage onimport linear -- 127.0.0.1:7105
refused "this storage, or sits on it" dstadm add busy local "$DEV"
drop_storage onimport
undo_export busyx
# A mirror grows and shrinks while it runs; linear does not.
make_storage lin linear -- /dev/ram5
refused "stop the storage" dstadm add lin local /dev/ram3
refused "stop the storage" dstadm remove lin node0
drop_storage lin
drop_storage busy
drop_storage empty
drop_storage s1
nothing_left
