#!/bin/bash
# Memory pressure (kernel review, issue 15): A swaps to a dst import of
# B's disk while a program dirties 1.25 times the memory A has and checks every
# page it reads back.  A's memory is cut to about 320 MiB by reserving the
# rest as huge pages, so that reclaim is global and the pages written to
# swap go out through dst's own socket, which must get the memory it
# needs from the reserves (a memalloc socket, GFP_NOIO allocations) while
# the machine has none to spare.  No deadlock, no I/O error, every page
# back as written, in a bounded time.  Swap readahead is raised to 32
# pages (vm.page-cluster 5), as for swap on any network disk: each fault
# is a round trip.  Transparent huge pages and proactive compaction are
# off meanwhile: with most memory held as hugetlb pages, what is left is
# fragmented, and compacting it (kcompactd, or a THP fault) ran for over
# 20 s without a reschedule under TCG, tripping the soft lockup watchdog;
# that is the guest's memory manager on a slow CPU, not swap over dst.
# For the same reason the RCU stall timeout is 120 s meanwhile (21 s by
# default), and the soft lockup watchdog's threshold 60 s (a lockup after
# 120 s, 20 s by default): CI runs saw memhog's vCPU clear one page for
# 21 s, and for 24 s, while the host ran the three guests on two cores.  The import holds its I/O
# through a reconnect (--dead-timeout), as swap on a network disk must:
# another saw a request of B's take over 30 s, and the swap-ins that
# failed with it killed init.  It runs first in the tier: on an A that had
# run the other tests memhog took two to three times as long.
set -euo pipefail
# shellcheck source=tests/multi/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/multi/lib.sh"

SWAP_PORT=7001
KEEP_MIB=${DST_SWAP_KEEP_MIB:-320}
MEMHOG=$DST_ROOT/tests/tools/memhog

swap_cleanup() {
	local rc=$?
	set +e
	echo 0 >/proc/sys/vm/nr_hugepages
	echo "$CLUSTER" >/proc/sys/vm/page-cluster
	echo "$PROACTIVE" >/proc/sys/vm/compaction_proactiveness
	echo "$THP" >/sys/kernel/mm/transparent_hugepage/enabled
	echo "$THP_DEFRAG" >/sys/kernel/mm/transparent_hugepage/defrag
	echo "$STALL" >"$STALL_PARAM"
	echo "$THRESH" >/proc/sys/kernel/watchdog_thresh
	[[ -z "${SWAPDEV:-}" ]] || swapoff "$SWAPDEV" 2>/dev/null
	on B "dstadm unexport swap 2>/dev/null; true" >/dev/null
	(exit "$rc")
	multi_cleanup
}
CLUSTER=$(</proc/sys/vm/page-cluster)
PROACTIVE=$(</proc/sys/vm/compaction_proactiveness)
THP=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
THP_DEFRAG=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/defrag)
STALL_PARAM=/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
STALL=$(<"$STALL_PARAM")
THRESH=$(</proc/sys/kernel/watchdog_thresh)
trap swap_cleanup EXIT

vmstat_field() { awk -v f="$1" '$1 == f { print $2 }' /proc/vmstat; }
meminfo_kib() { awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo; }

net_up
load_dst
wait_for 60 "B to answer" ping -c1 -W1 "$ADDR_B"
[[ -z "$(swapon --noheadings --show)" ]] || fail "A already has swap: $(swapon --show)"

on B "dstadm export swap --device /dev/vdc --listen $ADDR_B:$SWAP_PORT --allow $ADDR_A_B" ||
	fail "export of B's /dev/vdc failed"
do_import swap "$ADDR_B:$SWAP_PORT" --timeout 30 --dead-timeout 600
SWAPDEV=$DEV
expect_ok bounded 60 mkswap "$SWAPDEV"
expect_ok bounded 60 swapon "$SWAPDEV"

# Take A's memory away but KEEP_MIB: huge pages are never swapped out.
echo 0 >/proc/sys/vm/compaction_proactiveness
echo never >/sys/kernel/mm/transparent_hugepage/enabled
echo never >/sys/kernel/mm/transparent_hugepage/defrag
echo 120 >"$STALL_PARAM"
echo 60 >/proc/sys/kernel/watchdog_thresh
sync
echo 3 >/proc/sys/vm/drop_caches
total=$(($(meminfo_kib MemTotal) / 1024))
want=$(((total - KEEP_MIB) / 2))
echo "$want" >/proc/sys/vm/nr_hugepages
got=$(($(meminfo_kib HugePages_Total) * 2))
usable=$((total - got))
((usable <= KEEP_MIB + 128)) ||
	fail "reserved only $got of $total MiB as huge pages ($usable MiB left)"
hog=$((5 * usable / 4))
log "memory: $total MiB, $got MiB of it reserved, $usable MiB left; dirtying $hog MiB"
echo 5 >/proc/sys/vm/page-cluster

out0=$(vmstat_field pswpout)
in0=$(vmstat_field pswpin)
t0=$SECONDS
rc=0
timeout 900 "$MEMHOG" "$hog" 1 2>&1 | tee /tmp/memhog.txt || rc=$?
took=$((SECONDS - t0))
((rc == 0)) || fail "memhog failed ($rc) after $took s: $(tail -n 3 /tmp/memhog.txt)"
grep -q " 0 mismatches" /tmp/memhog.txt || fail "memhog: $(tail -n 1 /tmp/memhog.txt)"
swapped_out=$((($(vmstat_field pswpout) - out0) / 256))
swapped_in=$((($(vmstat_field pswpin) - in0) / 256))
log "$hog MiB dirtied and checked in $took s: $swapped_out MiB swapped out, $swapped_in MiB in"
# What did not fit had to go to swap, and come back.
((swapped_out >= hog - usable)) || fail "only $swapped_out MiB went to swap"
((swapped_in >= (hog - usable) / 2)) || fail "only $swapped_in MiB came back from swap"

echo 0 >/proc/sys/vm/nr_hugepages
echo "$CLUSTER" >/proc/sys/vm/page-cluster
expect_ok bounded 300 swapoff "$SWAPDEV"
SWAPDEV=
dmesg | grep -iE "write-error on swap|read-error on swap|I/O error.*dst|dst[0-9]+:.*error" &&
	fail "swap I/O errors in the kernel log"
field_is node_field swap state connected || fail "node state is $(node_field swap state)"
undo_import swap
on B "dstadm unexport swap" || fail "unexport on B failed"
nothing_left
