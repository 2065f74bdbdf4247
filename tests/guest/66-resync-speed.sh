#!/bin/bash
# Resync speed limits and progress: a mirror created with --resync-max 4M
# copies no faster than that (rate, bytes left and the limits in status and
# sysfs), a limit of 1 KiB/s holds it, a higher limit written to sysfs
# then takes effect at once, and
# "dstadm wait" returns when every leg is in sync; it fails on a storage
# that is not a running mirror and after its --timeout.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"
trap mirror_cleanup EXIT

MIB=64
mirror_setup 4 "$MIB"
expect_ok dd if=/dev/urandom of=/dev/ram0 bs=1M count="$MIB" oflag=direct status=none

make_storage m mirror --chunk-size 256K --resync-min 1M --resync-max 4M -- /dev/ram0 /dev/ram1
M=$DEV
SYS=/sys/block/${M#/dev/}/dst
[[ "$(cat "$SYS/resync_max")" == 4096 && "$(cat "$SYS/resync_min")" == 1024 ]] ||
	fail "sysfs limits are not 1024 and 4096 KiB/s"
[[ "$(storage_field m resync_max)" == $((4 << 20)) ]] || fail "status resync_max"
# Measured between two readings (a slow kernel takes seconds to get here
# from the start), with one second at the limit as slack for the
# throttle's one-second windows and the time a reading takes.
c0=$(storage_field m resync_bytes)
t0=$(date +%s%N)
sleep 3
copied=$(($(storage_field m resync_bytes) - c0))
ms=$((($(date +%s%N) - t0) / 1000000))
log "copied $copied bytes in $ms ms at 4 MiB/s"
((copied <= (4 << 20) * (ms + 1000) / 1000)) ||
	fail "resync copied $copied bytes in $ms ms: over 4 MiB/s"
leg_is m 1 resyncing || fail "node1 is not resyncing 3 s later at 4 MiB/s"
left=$(storage_field m resync_left)
rate=$(storage_field m resync_rate)
((left > 0 && rate > 0)) || fail "resync shows left $left and rate $rate"
grep -q "^  resync: .* left" <<<"$(dstadm status m)" || fail "text status shows no resync progress"

# Not done before its timeout at this speed.
expect_rc 1 bounded 30 dstadm wait m --timeout 2
# Held to 1 KiB/s, as good as paused: after the window in flight, the
# next window (a 256 KiB region) puts the thread to sleep for minutes.
echo 1 >"$SYS/resync_min"
echo 1 >"$SYS/resync_max"
sleep 1
c0=$(storage_field m resync_bytes)
sleep 2
copied=$(($(storage_field m resync_bytes) - c0))
((copied <= 512 << 10)) || fail "resync copied $copied bytes in 2 s at 1 KiB/s"
# Faster now: the thread sleeping under the old limit goes on at once
# (before, it slept out those minutes); wait returns when in sync.
echo 400000 >"$SYS/resync_min"
echo 400000 >"$SYS/resync_max"
[[ "$(storage_field m resync_max)" == $((400000 << 10)) ]] || fail "sysfs write of resync_max not in status"
expect_fail sh -c "echo 0 >$SYS/resync_max"
expect_fail sh -c "echo fast >$SYS/resync_min"
expect_ok bounded 60 dstadm wait m --timeout 20
all_in_sync m || fail "dstadm wait returned before every leg was in sync"
[[ "$(storage_field m resync_left)" == 0 ]] || fail "bytes left after resync"
legs_identical "$MIB" /dev/ram0 /dev/ram1
expect_ok bounded 30 dstadm wait m --timeout 5

# Not a running mirror, no such storage.
make_storage l linear -- /dev/ram2
expect_rc 1 bounded 30 dstadm wait l
expect_rc 1 bounded 30 dstadm wait nosuch
expect_rc 2 dstadm wait
expect_rc 1 bounded 30 dstadm create x --alg linear --resync-max 4M
drop_storage l
drop_storage m
nothing_left
