#!/bin/bash
# No command holds a lock that others need while it waits (kernel review
# H3).  A remote node is added at a port whose SYNs vanish (nftables), so
# its connect waits for its deadline (10 s): meanwhile dstadm status,
# another storage's create and delete, and a generic netlink family
# lookup (the controller's, which every genetlink tool uses) all answer
# before the add has ended.  The add then fails, saying why.  On 262ada2
# every one of them waited for the add (genl_mutex and the registry's
# mutex were held across the connect): seen failing there.
set -euo pipefail
# shellcheck source=tests/guest/remote-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/remote-lib.sh"

PORT=7390
par_cleanup() {
	local rc=$?
	set +e
	nft delete table inet dsthole 2>/dev/null
	dstadm delete bh 2>/dev/null
	dstadm delete other 2>/dev/null
	(exit "$rc")
	remote_cleanup
}
remote_setup
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
nothing_left
log "ok"
