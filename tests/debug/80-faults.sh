#!/bin/bash
# Fault injection on the debug kernel (make test-debug).  failslab makes
# the control path's allocations fail at random (dstadm as the only task
# that fails): every command fails cleanly or works, and what is left can
# be removed.  Then the I/O path: allocations of the dst threads (export
# clients, remote nodes, mirror resync) fail at random under fio; I/O may
# fail, nothing may crash or hang, and all comes down cleanly.  Last,
# fail_make_request on a mirror leg's device: the leg goes out of sync and
# fio verify stays clean.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

FI=/sys/kernel/debug
PORT=7400
[[ -d $FI/failslab && -d $FI/fail_make_request ]] || fail "no failslab/fail_make_request: not the debug kernel"

# fault_set NAME PROBABILITY: task-filtered, silent, unlimited.
fault_set() {
	echo "$2" >"$FI/$1/probability"
	echo 1 >"$FI/$1/interval"
	echo -1 >"$FI/$1/times"
	echo 0 >"$FI/$1/verbose"
	echo 0 >"$FI/$1/space"
	[[ ! -e "$FI/$1/task-filter" ]] || echo Y >"$FI/$1/task-filter"
	[[ ! -e "$FI/$1/ignore-gfp-wait" ]] || echo N >"$FI/$1/ignore-gfp-wait"
}

faults_off() {
	echo 0 >"$FI/failslab/probability"
	echo 0 >"$FI/fail_make_request/probability"
}

fault_cleanup() {
	local rc=$?
	set +e
	faults_off
	(exit "$rc")
	mirror_cleanup
}

mirror_setup 3 64
load_dst
trap fault_cleanup EXIT

# --- the control path ----------------------------------------------------------
fault_set failslab 20
ok=0 failed=0
for i in $(seq 1 60); do
	if bash -c 'echo 1 >/proc/self/make-it-fail; exec "$@"' _ \
		dstadm create "f$i" --alg mirror >/dev/null 2>&1; then
		ok=$((ok + 1))
		bash -c 'echo 1 >/proc/self/make-it-fail; exec "$@"' _ \
			dstadm add "f$i" local /dev/ram2 >/dev/null 2>&1 || true
		bash -c 'echo 1 >/proc/self/make-it-fail; exec "$@"' _ \
			dstadm start "f$i" --assume-clean >/dev/null 2>&1 || true
		bash -c 'echo 1 >/proc/self/make-it-fail; exec "$@"' _ \
			dstadm status --json >/dev/null 2>&1 || true
		bash -c 'echo 1 >/proc/self/make-it-fail; exec "$@"' _ \
			dstadm delete "f$i" >/dev/null 2>&1 || true
	else
		failed=$((failed + 1))
	fi
done
faults_off
for s in $(status_json | jq -r '.storages[].name'); do
	expect_ok bounded 60 dstadm delete "$s"
done
nothing_left
log "control path under failslab: $ok creates went through, $failed failed cleanly; all removed"

# --- the I/O path ---------------------------------------------------------------
do_export e0 /dev/ram0 127.0.0.1:$PORT
expect_ok bounded 30 dstadm create m0 --alg mirror
STORAGES+=(m0)
expect_ok bounded 60 dstadm add m0 remote 127.0.0.1:$PORT --timeout 10 --integrity
expect_ok bounded 30 dstadm add m0 local /dev/ram1
expect_ok bounded 60 dstadm start m0
dev=$(storage_dev m0)
wait_for 10 "$dev" test -b "$dev"
dstadm wait m0 --timeout 300 >/dev/null 2>&1 || true
bounded 200 fio --name=faults --filename="$dev" --direct=1 --ioengine=libaio \
	--rw=randrw --bsrange=4k-256k --iodepth=16 --size=48M --time_based \
	--runtime=30 --continue_on_error=all --output=/tmp/fio-faults.txt >/dev/null 2>&1 &
fio=$!
BG_PIDS+=("$fio")
sleep 3
fault_set failslab 5
for t in $(pgrep -f '^\[?dst' || true) $(pgrep 'dst-srv' || true) $(pgrep 'dst[0-9]' || true); do
	echo 1 >"/proc/$t/make-it-fail" 2>/dev/null || true
done
wait "$fio" || true
faults_off
for t in $(pgrep 'dst' || true); do echo 0 >"/proc/$t/make-it-fail" 2>/dev/null || true; done
log "fio under failslab: $(grep -o 'err=[ 0-9]*' /tmp/fio-faults.txt | head -n2 | tr '\n' ' ')"
# Whatever failed, it comes back: the remote leg is resynced or in sync.
expect_ok bounded 600 dstadm wait m0 --timeout 500
fio_verify after "$dev" 10 --size=32M
drop_storage m0
undo_export e0
nothing_left
log "I/O path under failslab: no crash, no hang, back in sync, verify clean"

# --- fail_make_request on a mirror leg ----------------------------------------
make_storage m1 mirror -- /dev/ram1 /dev/ram2 -- --assume-clean
fault_set fail_make_request 10
echo 1 >/sys/block/ram2/make-it-fail
fio_verify leg "$DEV" 10 --size=32M
echo 0 >/sys/block/ram2/make-it-fail
faults_off
[[ "$(sysfs_leg m1 1 sync)" == out-of-sync ]] || fail "the failing leg is $(sysfs_leg m1 1 sync)"
drop_storage m1
nothing_left
log "fail_make_request on a leg: out of sync, fio verify clean"
