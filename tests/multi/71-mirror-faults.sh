#!/bin/bash
# Across three hosts: A runs mirror(A:/dev/vdb, B, C) with fio verify
# (crc32c) writing the whole time, while C's cable is pulled and put back
# 6 times and the whole guest B is SIGKILLed mid-write and booted again
# twice.  Each time the leg goes out of sync, reconnects by itself and
# resyncs only its dirty regions and, after B's restarts, the regions the
# bitmap had set (far below the leg size); at the end fio
# verify is clean and the three legs, each read on its own host, are
# identical.  All of it over TLS 1.3 (PSK): every reconnect, B's boots
# included, goes through the agents of A and B or C.  The kernel logs of
# all hosts are checked by the harness.
set -euo pipefail
# shellcheck source=tests/multi/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/multi/lib.sh"
trap multi_cleanup EXIT

LINK_CYCLES=${DST_LINK_CYCLES:-6}
KILL_CYCLES=${DST_KILL_CYCLES:-2}
LEG_BYTES=$((LEG_MIB << 20))
STOP=/tmp/fio-stop
FIO_FAIL=/tmp/fio-failed

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

# fio verify in 30 s passes until told to stop; writes paced so that an
# outage dirties a small part of the leg.
fio_loop() {
	local n=0
	rm -f "$STOP" "$FIO_FAIL"
	while [[ ! -e "$STOP" ]]; do
		n=$((n + 1))
		if ! fio --name=faults --filename="$M" --direct=1 --ioengine=libaio \
			--rw=randrw --bsrange=4k-64k --iodepth=8 --rate=256k,256k \
			--time_based --runtime=30 --verify=crc32c --verify_fatal=1 \
			--verify_state_save=0 --output="/tmp/fio-$n.txt" ||
			! grep -q "err= 0" "/tmp/fio-$n.txt"; then
			cp "/tmp/fio-$n.txt" "$FIO_FAIL" 2>/dev/null || touch "$FIO_FAIL"
			return 1
		fi
	done
	echo "$n" >/tmp/fio-passes
}
fio_loop &
BG_PIDS+=($!)

# cycle LEG WHAT: after the leg went out of sync and came back, it resyncs
# a small part of itself.
resynced_since() { echo $(($(storage_field m resync_bytes) - $1)); }
# Without fio's I/O nothing notices a cut: fio failing ends the wait.
# fio_ok WHAT: fio has not failed (by WHAT).
fio_ok() { [[ ! -e "$FIO_FAIL" ]] || fail "fio failed ${1:-}: $(cat "$FIO_FAIL")"; }
out_or_fio_failed() { [[ -e "$FIO_FAIL" ]] || leg_is m "$1" out-of-sync; }
check_cycle() {
	local leg=$1 what=$2 before=$3 copied
	wait_for 300 "node$leg in sync after $what" leg_is m "$leg" in-sync
	copied=$(resynced_since "$before")
	fio_ok "by the end of $what"
	((copied > 0)) || fail "nothing resynced after $what"
	((copied < LEG_BYTES / 4)) ||
		fail "$what: resynced $copied bytes, not far below the leg's $LEG_BYTES"
	log "$what: node$leg resynced $((copied >> 10)) KiB of $((LEG_BYTES >> 10)) KiB"
}

sleep 5
for ((i = 1; i <= LINK_CYCLES; i++)); do
	before=$(storage_field m resync_bytes)
	host link C off
	wait_for 120 "node2 out of sync with C's cable out" out_or_fio_failed 2
	fio_ok "during cable cut $i"
	sleep 2
	host link C on
	check_cycle 2 "cable cut $i" "$before"
done

for ((i = 1; i <= KILL_CYCLES; i++)); do
	sleep 3
	before=$(storage_field m resync_bytes)
	host kill B
	wait_for 120 "node1 out of sync with B killed" out_or_fio_failed 1
	fio_ok "during SIGKILL of B $i"
	host boot B
	check_cycle 1 "SIGKILL of B $i" "$before"
	[[ "$(leg_field m 1 reconnects)" -ge "$i" ]] || fail "node1 counts no reconnect"
done

touch "$STOP"
wait "${BG_PIDS[0]}" || fail "fio failed: $(cat "$FIO_FAIL" 2>/dev/null)"
BG_PIDS=()
log "fio verify clean over $(cat /tmp/fio-passes) pass(es)"
wait_in_sync m
[[ "$(leg_field m 1 tls)" == psk && "$(leg_field m 2 tls)" == psk ]] ||
	fail "the remote legs are not on TLS at the end"
drop_storage m
three_identical
nothing_left
multi_tls off
