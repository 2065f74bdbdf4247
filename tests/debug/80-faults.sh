#!/bin/bash
# Fault injection on the debug kernel (make test-debug), aimed so that the
# rest of the guest (the 9p share above all) is left alone.  Control path:
# systematic failslab (fail-nth, as syzkaller does): each dstadm command
# is run again and again with the Nth slab allocation of each of its
# requests to the dst family failing, N = 1..40, counted from the request's
# sendto, in which the module's handler runs, and disarmed after it; each
# run works or fails cleanly, some with the module's ENOMEM, a command
# none of whose requests had a fault and which follows only successes
# works, and all can be removed afterwards.  I/O path: failslab at random
# (task-filter, make-it-fail) in dst's own kernel threads (export clients,
# remote nodes, mirror resync) and in fio, which submits through dst's
# submit path, under fio on a mirror of a remote (CRC-32C) and a local
# leg: I/O may fail, nothing may crash or hang, the mirror comes back in
# sync and fio verify is clean.  Then a resync whose thread can allocate
# nothing: it copies with the one buffer it has.  Last, fail_make_request
# on a mirror leg's device: the leg goes out of sync and fio verify stays
# clean.  Each part checks that faults were injected (fail-nth left at 0,
# the attributes' times counted down).
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

FI=/sys/kernel/debug
PORT=7400
[[ -d $FI/failslab && -d $FI/fail_make_request ]] || fail "no failslab/fail_make_request: not the debug kernel"

# Faults an attribute may inject; what is left of it tells how many were.
TIMES=1000000

# failslab_tasks PROBABILITY: slab allocations of marked tasks fail.
failslab_tasks() {
	echo Y >"$FI/failslab/task-filter"
	echo N >"$FI/failslab/ignore-gfp-wait"
	echo 0 >"$FI/failslab/verbose"
	echo 0 >"$FI/failslab/space"
	echo $TIMES >"$FI/failslab/times"
	echo 1 >"$FI/failslab/interval"
	echo "$1" >"$FI/failslab/probability"
}

# failpage_tasks PROBABILITY: page allocations of marked tasks fail, of
# any order.
failpage_tasks() {
	echo Y >"$FI/fail_page_alloc/task-filter"
	echo N >"$FI/fail_page_alloc/ignore-gfp-wait"
	echo 0 >"$FI/fail_page_alloc/verbose"
	echo 0 >"$FI/fail_page_alloc/space"
	echo 0 >"$FI/fail_page_alloc/min-order"
	echo $TIMES >"$FI/fail_page_alloc/times"
	echo 1 >"$FI/fail_page_alloc/interval"
	echo "$1" >"$FI/fail_page_alloc/probability"
}

# injected ATTR: how many faults ATTR injected since its times was set.
injected() {
	echo $((TIMES - $(<"$FI/$1/times")))
}

# fault_tasks: pids of dst's kernel threads and of fio, which submits the
# bios through dst's submit path.
fault_tasks() {
	ps -e -o pid=,comm= | awk '$2 ~ /^dst/ || $2 == "fio" { print $1 }'
}

# mark_tasks 0|1: make-it-fail of the fault_tasks.
mark_tasks() {
	local t
	for t in $(fault_tasks); do
		echo "$1" >"/proc/$t/make-it-fail" 2>/dev/null || true
	done
}

faults_off() {
	echo 0 >"$FI/failslab/probability"
	echo 0 >"$FI/fail_page_alloc/probability"
	echo 11 >"$FI/fail_page_alloc/min-order"
	echo 0 >"$FI/fail_make_request/probability"
	mark_tasks 0
	[[ ! -e /sys/block/ram2/make-it-fail ]] || echo 0 >/sys/block/ram2/make-it-fail
}

# drop_all [KEEP]: every storage but KEEP and every export there is (none
# is a node of another).
drop_all() {
	local s e
	for s in $(status_json | jq -r '.storages[].name'); do
		[[ "$s" != "${1:-}" ]] || continue
		bounded 60 dstadm delete "$s" || echo "cleanup: dstadm delete $s failed"
	done
	for e in $(status_json | jq -r '(.exports // [])[].name'); do
		bounded 60 dstadm unexport "$e" || echo "cleanup: dstadm unexport $e failed"
	done
}

fault_cleanup() {
	local rc=$?
	set +e
	faults_off
	drop_all
	(exit "$rc")
	mirror_cleanup
}

# nth N CMD...: CMD (dstadm from /tmp) with the Nth fault injection point
# of each dst request's sendto failing (tests/tools/failnth.so); in /, so
# that nothing of the 9p share is touched while armed.  Prints CMD's status
# and output.
nth() {
	local n=$1 rc=0 out
	shift
	out=$(cd / && FAILNTH=$n LD_PRELOAD=$DST_ROOT/tests/tools/failnth.so \
		bounded 60 "$@" 2>&1) || rc=$?
	echo "$rc $out"
}

mirror_setup 3 64
load_dst
trap fault_cleanup EXIT

# --- the control path ----------------------------------------------------------
cp "$(command -v dstadm)" /tmp/dstadm
echo N >"$FI/failslab/ignore-gfp-wait"
echo 0 >"$FI/failslab/verbose"
# Page allocations do not fail here: their failures warn, by design (the
# resync part below fails them only where dst asks for no warning).
echo 11 >"$FI/fail_page_alloc/min-order" 2>/dev/null || true
# A running mirror that lives through the rounds keeps the slab caches of
# dst's bio sets (the storage's, its disk's, the resync thread's): else
# each round's create and start make them again, and a fault injected in
# kmem_cache_create() makes the kernel dump its stack, by design (as a
# failed page allocation warns), which the runner's log check counts.
expect_ok bounded 30 dstadm create hold --alg mirror --chunk-size 64K
expect_ok bounded 30 dstadm add hold local /dev/ram0
expect_ok bounded 60 dstadm start hold --assume-clean
runs=0 failed=0 enomem=0 injected=0
: >/tmp/nth.log
for n in $(seq 1 40); do
	clean=1 # every command of this round so far succeeded
	for cmd in "create f$n --alg mirror --chunk-size 64K" "add f$n local /dev/ram2" \
		"start f$n --assume-clean" "status --json" \
		"export x$n --device /dev/ram1 --listen 127.0.0.1:$((PORT + 1)) --allow 127.0.0.1" \
		"import i$n --remote 127.0.0.1:$((PORT + 1)) --timeout 5" \
		"delete i$n" "unexport x$n" "delete f$n"; do
		# shellcheck disable=SC2086 # the command's words
		r=$(nth "$n" /tmp/dstadm $cmd)
		runs=$((runs + 1))
		if [[ "$r" == *"failnth: fault injected"* ]]; then
			injected=$((injected + 1))
		elif ((clean)) && [[ "$r" != "0 "* ]]; then
			# No allocation of it failed, none of the round had
			# failed: a failure is what an earlier one left.
			fail "$cmd failed with no fault injected in it: $r"
		fi
		[[ "$r" == "0 "* ]] || { failed=$((failed + 1)); clean=0; }
		# A request's answer names its object: the module said ENOMEM.
		if grep -Eq "dstadm: (storage|export) '[^']*'.*: Cannot allocate memory" <<<"$r"; then
			enomem=$((enomem + 1))
			echo "$n $cmd: $r" >>/tmp/nth.log
		fi
	done
	# What a failed step left behind goes before the next round.
	drop_all hold
	nothing_left hold
done
expect_ok bounded 60 dstadm delete hold
nothing_left
head -n 5 /tmp/nth.log
((injected > 0)) || fail "no fault was injected in any request"
((enomem > 0)) || fail "no command got the module's ENOMEM: the failures did not reach it"
log "control path: $runs runs, a fault injected in $injected; $failed failed cleanly ($enomem with ENOMEM from the kernel); all removed"

# --- the I/O path ---------------------------------------------------------------
do_export e0 /dev/ram0 127.0.0.1:$PORT
expect_ok bounded 30 dstadm create m0 --alg mirror
STORAGES+=(m0)
expect_ok bounded 60 dstadm add m0 remote 127.0.0.1:$PORT --timeout 10 --integrity
expect_ok bounded 30 dstadm add m0 local /dev/ram1
expect_ok bounded 60 dstadm start m0
dev=$(storage_dev m0)
wait_for 10 "$dev" test -b "$dev"
expect_ok bounded 600 dstadm wait m0 --timeout 500
bounded 200 fio --name=faults --filename="$dev" --direct=1 --ioengine=libaio \
	--rw=randrw --bsrange=4k-256k --iodepth=16 --size=48M --time_based \
	--runtime=30 --continue_on_error=all --output=/tmp/fio-faults.txt >/tmp/fio-faults.err 2>&1 &
fio=$!
BG_PIDS+=("$fio")
sleep 3
failslab_tasks 5
mark_tasks 1
log "failing allocations of dst's threads and fio: $(fault_tasks | wc -l) task(s)"
# Off before fio ends, so that it can write its report.
sleep 24
n=$(injected failslab)
faults_off
rc=0
wait "$fio" || rc=$?
# fio may fail: its own allocations fail too.
log "fio under failslab: $n allocations failed; fio exited $rc, $(grep -o 'err=[ 0-9]*' /tmp/fio-faults.txt | head -n2 | tr '\n' ' ')$(tail -n 3 /tmp/fio-faults.err)"
((n > 0)) || fail "failslab failed no allocation of dst's threads or fio"
# Whatever failed, it comes back: a leg that went out of sync reconnects
# and resyncs.
expect_ok bounded 600 dstadm wait m0 --timeout 500
# Before new writes cover them: a write acknowledged under the faults but
# missing on a leg called in sync shows here (tests audit H4).
legs_identical 64 /dev/ram1 /dev/ram0
fio_verify after "$dev" 10 --size=32M
drop_storage m0
undo_export e0
nothing_left
log "I/O path under failslab: no crash, no hang, back in sync, verify clean"

# --- the resync thread short of memory -------------------------------------------
# Its buffers beyond the first are made when a resync begins, without
# reclaim's retries and without a warning: with every slab and page
# allocation of the thread failing while a new leg is added (a buffer is
# larger than kmalloc's slabs: its pages come from the page allocator,
# and then from vmalloc's), it copies with one buffer
# (its pr_debug says so), quietly (the runner's check of the kernel log),
# and the legs end identical.
make_storage m2 mirror -- /dev/ram1 /dev/ram2 -- --assume-clean
expect_ok dd if=/dev/urandom of="$DEV" bs=1M count=64 oflag=direct status=none
# brd allocates a page when a sector is first written, in the writer's
# context: the new leg gets all of its pages first.
expect_ok dd if=/dev/zero of=/dev/ram0 bs=1M count=64 oflag=direct status=none
echo 'func dst_resync_bufs +p' >"$FI/dynamic_debug/control"
resync=$(pgrep -x "${DEV#/dev/}_resync") || fail "no resync thread of $DEV"
failslab_tasks 100
failpage_tasks 100
echo 1 >"/proc/$resync/make-it-fail"
log0=$(dmesg | wc -l)
expect_ok bounded 30 dstadm add m2 local /dev/ram0
expect_ok bounded 300 dstadm wait m2 --timeout 240
n=$(($(injected failslab) + $(injected fail_page_alloc)))
faults_off
echo 'func dst_resync_bufs -p' >"$FI/dynamic_debug/control"
((n > 0)) || fail "no allocation of the resync thread failed"
dmesg | tail -n +"$((log0 + 1))" | grep -q 'm2: resync with 1 of 4 buffers' ||
	fail "the resync thread did not fall back to one buffer"
legs_identical 64 /dev/ram1 /dev/ram2 /dev/ram0
drop_storage m2
nothing_left
log "resync thread short of memory: $n allocations failed, one buffer, legs identical"

# --- fail_make_request on a mirror leg ----------------------------------------
make_storage m1 mirror -- /dev/ram1 /dev/ram2 -- --assume-clean
echo 10 >"$FI/fail_make_request/probability"
echo 1 >"$FI/fail_make_request/interval"
echo $TIMES >"$FI/fail_make_request/times"
echo 0 >"$FI/fail_make_request/verbose"
echo 1 >/sys/block/ram2/make-it-fail
fio_verify leg "$DEV" 10 --size=32M
n=$(injected fail_make_request)
faults_off
((n > 0)) || fail "fail_make_request failed no bio of the leg"
[[ "$(sysfs_leg m1 1 sync)" == out-of-sync ]] || fail "the failing leg is $(sysfs_leg m1 1 sync)"
drop_storage m1
nothing_left
log "fail_make_request on a leg: $n bios failed, the leg out of sync, fio verify clean"
