#!/bin/bash
# The export's teardown races of the kernel review, C1 and C2, made
# certain with a delay (tests/debug/kdelay, a kprobe that busy-waits) so
# that KASAN sees a use-after-free if there is one.  Seen failing (KASAN
# use-after-free) on 262ada2's module, built against the debug kernel.
#
# C1: an export with two idle clients is removed while the first client
# thread to leave is held 3 s on entry to its first wake-up (262ada2:
# wake_up(&exp->wait) after its count was dropped); the other client's
# exit lets the removal go on.  The export must outlive that wake-up.
#
# C2: a client's READ completes in dm-delay's worker and is held 10 s on
# entry to queue_work_on() for its client's reply work (262ada2: queued
# after the request was published, outside the client's lock); a WRITE
# sent 2 s later completes at once and sends both replies, and the
# client (dstpeer) closes, so the client thread ends.  The client must outlive that queue_work()
# (now it is queued under the client's lock, so the WRITE's completion
# and the replies wait for it: the window does not open at all).
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7410
[[ -e /sys/kernel/debug/kmemleak ]] || fail "no kmemleak: not the debug kernel"
[[ -f "$KDELAY" ]] || fail "$KDELAY missing (tests/lib/debug.sh builds it)"

race_cleanup() {
	local rc=$?
	set +e
	grep -q '^kdelay ' /proc/modules && rmmod kdelay
	(exit "$rc")
	mirror_cleanup
}
trap race_cleanup EXIT
mirror_setup 2 64

kdelay_hits() { cat /sys/module/kdelay/parameters/hits; }
hits_are() { [[ "$(kdelay_hits)" == "$1" ]]; }

# kdelay_load ARGS...: the probe, once optimized into a jump, whose
# handler runs with interrupts as the caller had them (an int3 probe's
# runs with them off, which would stall the rest of the guest, waiting
# for IPIs, for as long as the delay lasts).
kdelay_load() {
	expect_ok insmod "$KDELAY" "$@"
	wait_for 30 "the probe to be optimized" \
		grep -q "${1#symbol=}+0x0 .*\[OPTIMIZED\]" /sys/kernel/debug/kprobes/list
}

# C1.
# Two clients that write: the export is shared (one writer otherwise).
do_export c1 /dev/ram0 127.0.0.1:$PORT --shared
do_import i1 127.0.0.1:$PORT --timeout 5
do_import i2 127.0.0.1:$PORT --timeout 5
wait_for 30 "two clients on the export" field_is export_field c1 clients 2
kdelay_load symbol=__wake_up comm=dst-srv/ delay_ms=3000 times=1
undo_export c1
sleep 4
[[ "$(kdelay_hits)" == 1 ]] || fail "no client thread was delayed at its wake-up ($(kdelay_hits))"
expect_ok rmmod kdelay
undo_import i1
undo_import i2
log "C1: an export removed while a leaving client thread was held: no use-after-free"

# C2.
sectors=$(blockdev --getsz /dev/ram1)
expect_ok dmsetup create slowread --table "0 $sectors delay /dev/ram1 0 100 /dev/ram1 0 0"
DMS+=(slowread)
wait_for 10 "/dev/mapper/slowread" test -b /dev/mapper/slowread
do_export c2 /dev/mapper/slowread 127.0.0.1:$((PORT + 1))
kdelay_load symbol=queue_work_on work=dst_client_tx delay_ms=10000 times=1
t0=$SECONDS
expect_ok bounded 60 "$DSTPEER" client 127.0.0.1 $((PORT + 1)) read-write 2
log "C2: the client had both replies and closed after $((SECONDS - t0)) s; the READ's reply work was held 10 s"
hits_are 1 || fail "the READ's reply work was not held ($(kdelay_hits))"
sleep 11
expect_ok rmmod kdelay
undo_export c2
log "C2: a client closed while its reply work was being queued: no use-after-free"
nothing_left
log "ok"
