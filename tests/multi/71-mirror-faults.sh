#!/bin/bash
# Across three hosts: A runs mirror(A:/dev/vdb, B, C) with acklog writers
# (FUA writes of 16 MiB of it, each followed by a read back of an earlier
# one, checked) the whole time, while C's cable is pulled and put back
# 6 times and the whole guest B is SIGKILLed mid-write and booted again
# twice.  Each time the leg goes out of sync, reconnects by itself and
# resyncs only its dirty regions and, after B's restarts, the regions the
# bitmap had set (far below the leg size); no write or read fails or
# reads stale data, A's leg holds every acknowledged write and the three
# legs, each read on its own host, are identical.  All of it over TLS 1.3 (PSK): every reconnect, B's boots
# included, goes through the agents of A and B or C.  The kernel logs of
# all hosts are checked by the harness.
set -euo pipefail
# shellcheck source=tests/multi/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/multi/lib.sh"
trap multi_cleanup EXIT

LINK_CYCLES=${DST_LINK_CYCLES:-6}
KILL_CYCLES=${DST_KILL_CYCLES:-2}
LEG_BYTES=$((LEG_MIB << 20))

net_up
load_dst
wait_for 60 "B and C to answer" ping -c1 -W1 "$ADDR_B"
wait_for 60 "C to answer" ping -c1 -W1 "$ADDR_C"
multi_tls on
# Three new, zeroed disks: identical, so --assume-clean is the truth.
three_identical
# With a bitmap: B's export restarts after its SIGKILL, and may have lost
# what it had not flushed; only the regions the bitmap has set can hold it
# (without a bitmap B's leg would be compared in full).
rm -f /tmp/m71.bm
mirror_abc m --chunk-size 16K --bitmap /tmp/m71.bm -- --assume-clean
M=$DEV

# Writes to 16 MiB of the 128 MiB: an outage dirties at most that much.
ack_start faults "$M" 0 1024 4

# cycle LEG WHAT: after the leg went out of sync and came back, it resyncs
# a small part of itself.
resynced_since() { echo $(($(storage_field m resync_bytes) - $1)); }
# Without the writers' I/O nothing notices a cut: one failing ends the wait.
out_or_ack_failed() { ack_alive faults && leg_is m "$1" out-of-sync; }
check_cycle() {
	local leg=$1 what=$2 before=$3 copied
	wait_for 300 "node$leg in sync after $what" leg_is m "$leg" in-sync
	copied=$(resynced_since "$before")
	ack_alive faults
	((copied > 0)) || fail "nothing resynced after $what"
	((copied < LEG_BYTES / 4)) ||
		fail "$what: resynced $copied bytes, not far below the leg's $LEG_BYTES"
	log "$what: node$leg resynced $((copied >> 10)) KiB of $((LEG_BYTES >> 10)) KiB"
}

sleep 5
for ((i = 1; i <= LINK_CYCLES; i++)); do
	before=$(storage_field m resync_bytes)
	host link C off
	wait_for 120 "node2 out of sync with C's cable out" out_or_ack_failed 2
	ack_alive faults
	sleep 2
	host link C on
	check_cycle 2 "cable cut $i" "$before"
done

for ((i = 1; i <= KILL_CYCLES; i++)); do
	sleep 3
	before=$(storage_field m resync_bytes)
	host kill B
	wait_for 120 "node1 out of sync with B killed" out_or_ack_failed 1
	ack_alive faults
	host boot B
	check_cycle 1 "SIGKILL of B $i" "$before"
	[[ "$(leg_field m 1 reconnects)" -ge "$i" ]] || fail "node1 counts no reconnect"
done

ack_stop faults
wait_in_sync m
ack_check faults "$M"
[[ "$(leg_field m 1 tls)" == psk && "$(leg_field m 2 tls)" == psk ]] ||
	fail "the remote legs are not on TLS at the end"
drop_storage m
ack_check faults /dev/vdb
three_identical
nothing_left
multi_tls off
