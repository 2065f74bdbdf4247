#!/bin/bash
# dstadm create / delete / status / version round-trip through the module,
# and bad input gets a clear error that changes nothing.
set -euo pipefail
# shellcheck source=tests/guest/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/lib.sh"

snapshot() { dstadm status --json; }

# A request to the family loads the module on demand; where it cannot be
# loaded, dstadm says so.
unload_dst
echo "install dst_storage /bin/false" >/etc/modprobe.d/dst-test-block.conf
expect_error 1 "dst module not loaded (modprobe dst_storage)" dstadm status
expect_error 1 "dst module not loaded" dstadm create x --alg linear
# The tool's own version needs no module (ecosystem review D9).
[[ "$(dstadm version 2>/dev/null)" == "dstadm $(cat "$DST_ROOT/VERSION") (control interface v1)" ]] ||
	fail "dstadm version without the module: $(dstadm version 2>&1)"
rm /etc/modprobe.d/dst-test-block.conf
! dst_loaded || fail "module loaded despite the block"

load_dst
version=$(cat "$DST_ROOT/VERSION")
out=$(dstadm version)
echo "$out"
grep -q "^dstadm $version " <<<"$out" || fail "dstadm version line"
grep -q "^dst module $version " <<<"$out" || fail "module version line"
grep -q "^algorithms: linear, mirror$" <<<"$out" || fail "algorithm list"

[[ "$(dstadm status)" == "" ]] || fail "status of no storages is not empty"
[[ "$(dstadm status --json | jq -c .)" == '{"storages":[],"exports":[]}' ]] || fail "empty json"

expect_ok dstadm create r0 --alg mirror
expect_ok dstadm create --alg linear l0
dstadm status
dstadm status --json | tee /tmp/status.json
jq -e '.storages | length == 2' /tmp/status.json >/dev/null || fail "two storages expected"
jq -e '.storages[] | select(.name == "r0") | .algorithm == "mirror" and .state == "stopped" and .size == 0' \
	/tmp/status.json >/dev/null || fail "r0 in json"
jq -e '.storages[] | select(.name == "l0") | .algorithm == "linear"' /tmp/status.json >/dev/null ||
	fail "l0 in json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert {s["name"] for s in d["storages"]} == {"r0","l0"}' \
	/tmp/status.json || fail "python json"
[[ "$(dstadm status r0 --json | jq -r '.storages[0].name')" == r0 ]] || fail "status r0"
grep -q "^  algorithm: linear$" <<<"$(dstadm status l0)" || fail "text status of l0"

before=$(snapshot)
expect_error 1 "storage 'r0': already exists" dstadm create r0 --alg linear
expect_error 1 "storage 'nope': no such storage" dstadm delete nope
expect_error 1 "'nope': no such storage or export" dstadm status nope
expect_error 1 "storage 'x1': unknown algorithm" dstadm create x1 --alg raid5
# A name the module would refuse is bad usage, said before it is asked.
long=$(printf 'n%.0s' $(seq 200))
expect_error 2 "invalid name" dstadm create "$long" --alg linear
expect_error 2 "invalid name" dstadm create a/b --alg linear
expect_error 2 "invalid name" dstadm create .hidden --alg linear
expect_error 2 "invalid name" dstadm create "" --alg linear
expect_error 2 "invalid name" dstadm import a/b --remote 127.0.0.1:7000
expect_error 2 "invalid name" dstadm export .e --device /dev/ram0 --listen 127.0.0.1:7000
expect_error 1 "argument too long" dstadm create x3 --alg "$(head -c 100000 /dev/zero | tr '\0' x)"
expect_error 2 "missing --alg" dstadm create x2
expect_error 2 "unknown command" dstadm frobnicate
expect_error 2 "Usage: dstadm delete NAME" dstadm delete
[[ "$(snapshot)" == "$before" ]] || fail "a failed command changed the storages"

# Unprivileged: a plain user, and root of a user namespace without
# CAP_NET_ADMIN in the initial one.
expect_error 1 "permission denied (needs CAP_NET_ADMIN)" as_user dstadm status
expect_error 1 "permission denied" as_user dstadm create u0 --alg linear
expect_error 1 "permission denied" as_user dstadm delete r0
expect_error 1 "permission denied" as_user dstadm version
expect_error 1 "permission denied" unshare --user --map-root-user dstadm delete r0
[[ "$(snapshot)" == "$before" ]] || fail "an unprivileged command changed the storages"

# The module stays pinned while storages exist, like dm with its tables.
expect_fail rmmod dst_storage
expect_ok dstadm delete r0
expect_ok dstadm delete l0
[[ "$(snapshot | jq '.storages | length')" == 0 ]] || fail "storages left after delete"

# Names and ids are reused cleanly.
for i in $(seq 1 50); do dstadm create "s$i" --alg linear; done
[[ "$(snapshot | jq '[.storages[].id] | unique | length')" == 50 ]] || fail "ids not unique"
for i in $(seq 1 50); do dstadm delete "s$i"; done
unload_dst
log "round trips and errors ok"
