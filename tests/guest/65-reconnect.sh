#!/bin/bash
# Remote nodes that go away and come back. A remote leg of a mirror whose
# export stops during fio goes out of sync, reconnects by itself when the
# export is back and resyncs only the regions its bitmap had set; fio
# verify is clean and the legs end identical. A single remote disk with a
# dead timeout holds its I/O through a short outage (fio sees no error)
# and fails it after a longer one (no hang), and works again when the
# export is back. A write held through a cut link is not left behind on
# the cut connection to land late, and the export lets that connection go.
# An export that came back smaller is refused. status --check exits 0, 3
# (degraded) and 4 (failed) as the nodes come and go, and monitor --state
# --program lists what is there and runs the program for each event.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"
# A test that fails with the link cut puts it back on the way out.
reconnect_cleanup() {
	local rc=$?
	nft_mend 2>/dev/null || true
	(exit "$rc")
	mirror_cleanup
}
trap reconnect_cleanup EXIT

MIB=64
mirror_setup 5 "$MIB"

# node_is STORAGE ID STATE: the node's connection state is STATE.
node_is() { [[ "$(leg_field "$1" "$2" state)" == "$3" ]]; }

# A mirror leg comes back: only its dirty regions are copied; the events
# say so, in order.
dstadm monitor --json >/tmp/events.json &
MON=$!
BG_PIDS+=("$MON")
sleep 1
do_export leg2 /dev/ram2 127.0.0.1:7110
# With a bitmap: its export restarts, and only the regions the bitmap has
# set can hold what it lost (without one the leg is compared in full).
rm -f /tmp/rc.bm
make_storage m mirror --chunk-size 64K --bitmap /tmp/rc.bm -- /dev/ram0 /dev/ram1 127.0.0.1:7110 -- --assume-clean
M=$DEV
expect_ok dstadm status --check m
# What is there first, then each event, through a program as well.
cat >/tmp/alert.sh <<'ALERT'
#!/bin/sh
echo "$# $* | $DST_EVENT $DST_STORAGE ${DST_NODE:--}" >>/tmp/alerts.txt
ALERT
chmod +x /tmp/alert.sh
rm -f /tmp/alerts.txt
dstadm monitor --state --timestamps --program /tmp/alert.sh >/tmp/events.txt &
MON2=$!
BG_PIDS+=("$MON2")
wait_for 30 "monitor --state" grep -q "storage m node2: exists connected in-sync" /tmp/events.txt
# Random writes to one MiB in eight, each read back: few regions get dirty.
timeout -k 5 300 fio --name=back --filename="$M" --direct=1 --ioengine=libaio \
	--rw=randwrite --bs=4k --iodepth=8 --time_based --runtime=30 --size=8M \
	--verify=crc32c --verify_fatal=1 --verify_backlog=32 --verify_state_save=0 \
	--output-format=json --output=/tmp/fio-back.json &
FIO=$!
BG_PIDS+=("$FIO")
sleep 4
undo_export leg2
wait_for 60 "node2 out of sync" leg_is m 2 out-of-sync
node_is m 2 dead || fail "node2 is $(leg_field m 2 state), not dead"
expect_rc 3 dstadm status --check m
out=$(dstadm status --check m) || true
grep -q "^m: degraded: node2 (127.0.0.1:7110) out-of-sync" <<<"$out" || fail "status --check: $out"
sleep 3
do_export leg2 /dev/ram2 127.0.0.1:7110
wait_for 60 "node2 reconnected" node_is m 2 connected
wait_in_sync m 120
expect_ok dstadm status --check m
fio_wait "$FIO" /tmp/fio-back.json "while a leg went and came back"
dstadm status m
[[ "$(leg_field m 2 reconnects)" -ge 1 ]] || fail "node2 counts no reconnect"
resynced=$(storage_field m resync_bytes)
((resynced > 0 && resynced <= 16 << 20)) ||
	fail "resync copied $resynced bytes: not only the dirty regions of 8 MiB"
log "node2 came back; resync copied $resynced bytes of $((MIB << 20))"
sleep 2
kill "$MON" "$MON2"
wait "$MON" "$MON2" || true
BG_PIDS=()
cat /tmp/events.json /tmp/events.txt /tmp/alerts.txt
grep -q "^[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9:]*[-+][0-9]\{4\} storage m node2: node-down$" /tmp/events.txt ||
	fail "monitor --timestamps printed no timed node-down"
[[ "$(grep -c ": exists" /tmp/events.txt)" == 5 ]] || fail "monitor --state: not m, its 3 legs and leg2"
grep -q "^3 node-down m 2 | node-down m 2$" /tmp/alerts.txt || fail "the program did not get node-down"
grep -q "^3 resync-done m 2 | resync-done m 2$" /tmp/alerts.txt || fail "the program did not get resync-done"
! grep -q exists /tmp/alerts.txt || fail "the program ran for the state lines"
events=$(jq -r 'select(.storage == "m" and .node == 2) | .event' /tmp/events.json | paste -sd' ')
[[ "$events" == "node-down out-of-sync node-up resync-start resync-done" ]] ||
	fail "events of node2: '$events'"
jq -s -e 'any(.[]; .event == "resync-done" and .bytes > 0)' /tmp/events.json >/dev/null ||
	fail "resync-done without bytes"
jq -s -e 'any(.[]; .export == "leg2" and .event == "deleted")' /tmp/events.json >/dev/null ||
	fail "no event for the deleted export"
legs_identical "$MIB" /dev/ram0 /dev/ram1 /dev/ram2
drop_storage m
undo_export leg2

# A single remote disk holds I/O for its dead timeout.
do_export d3 /dev/ram3 127.0.0.1:7111
do_import r3 127.0.0.1:7111 --dead-timeout 60 --reconnect-max 1
R=$DEV
[[ "$(node_field r3 dead_timeout)" == 60 ]] || fail "dead timeout not shown"
timeout -k 5 300 fio --name=hold --filename="$R" --direct=1 --ioengine=libaio \
	--rw=randwrite --bsrange=4k-128k --iodepth=8 --time_based --runtime=20 \
	--verify=crc32c --verify_fatal=1 --verify_backlog=32 --verify_state_save=0 \
	--output-format=json --output=/tmp/fio-hold.json &
FIO=$!
BG_PIDS+=("$FIO")
sleep 4
undo_export d3
wait_for 30 "r3 reconnecting" field_is node_field r3 state reconnecting
sleep 3
do_export d3 /dev/ram3 127.0.0.1:7111
wait_for 60 "r3 connected" field_is node_field r3 state connected
fio_wait "$FIO" /tmp/fio-hold.json "through a short outage"
log "r3 held its I/O through the outage"
undo_import r3

# Beyond the dead timeout: I/O fails, nothing hangs; back again: it works.
do_import r4 127.0.0.1:7111 --dead-timeout 3 --reconnect-max 1
R=$DEV
undo_export d3
expect_fail bounded 60 dd if=/dev/urandom of="$R" bs=64K count=16 oflag=direct status=none
node_is r4 0 dead || fail "r4 is $(node_field r4 state) after its dead timeout"
expect_rc 4 dstadm status --check r4
expect_fail bounded 60 dd if="$R" of=/dev/null bs=64K count=1 iflag=direct status=none
do_export d3 /dev/ram3 127.0.0.1:7111
wait_for 60 "r4 connected" field_is node_field r4 state connected
expect_ok bounded 60 dd if=/dev/urandom of=/tmp/blk bs=64K count=16 status=none
expect_ok bounded 60 dd if=/tmp/blk of="$R" bs=64K oflag=direct status=none
[[ "$(dev_sha "$R" 1)" == "$(dev_sha /dev/ram3 1)" ]] || fail "r4 does not write through after it is back"
undo_import r4
undo_export d3

# A cut link: nftables drops loopback TCP to and from the export's port.
# A write held through it is sent again on the next connection; the one
# it was first sent on is aborted, so that nothing is left to retransmit
# it once the link is back, where it would land after a later write to
# the same place.  The export lets go of the cut connection, whose reset
# was lost, after its keepalive probes go unanswered.
# nft_drop MATCH...: loopback TCP matching any MATCH ("dport 7113") is
# dropped until nft_mend; nft_cut PORT: both ways.
nft_drop() {
	local m
	nft add table inet dstcut
	nft add chain inet dstcut in '{ type filter hook input priority 0; }'
	# shellcheck disable=SC2086 # a match's words
	for m in "$@"; do nft add rule inet dstcut in tcp $m drop; done
}
nft_cut() { nft_drop "dport $1" "sport $1"; }
nft_mend() { nft delete table inet dstcut; }
not_running() { ! kill -0 "$1" 2>/dev/null; }
# Connections to PORT closed here and still sending.
closed_sending() { ss -Htn state fin-wait-1 state closing state last-ack "( dport = :$1 )"; }
dd if=/dev/urandom of=/tmp/blk-first bs=64K count=1 status=none
dd if=/dev/urandom of=/tmp/blk-later bs=64K count=1 status=none
do_export d5 /dev/ram3 127.0.0.1:7113
do_import r6 127.0.0.1:7113 --timeout 2 --dead-timeout 120 --reconnect-max 1
R=$DEV
expect_ok bounded 30 dd if=/dev/zero of="$R" bs=64K count=1 oflag=direct status=none
nft_cut 7113
bounded 150 dd if=/tmp/blk-first of="$R" bs=64K oflag=direct status=none &
DD=$!
BG_PIDS+=("$DD")
wait_for 30 "r6 reconnecting" field_is node_field r6 state reconnecting
sleep 3
out=$(closed_sending 7113)
[[ -z "$out" ]] || fail "the cut connection still holds data to send: $out"
nft_mend
wait "$DD" || fail "the write held through the cut failed"
BG_PIDS=()
wait_for 60 "r6 connected" field_is node_field r6 state connected
expect_ok bounded 30 dd if=/tmp/blk-later of="$R" bs=64K oflag=direct status=none
wait_for 90 "export d5 to let go of the cut connection" field_is export_field d5 clients 1
[[ "$(dd if=/dev/ram3 bs=64K count=1 iflag=direct status=none | sha256sum | cut -c1-64)" == \
	"$(file_sha /tmp/blk-later)" ]] || fail "the export does not hold the later write"
log "the cut connection was aborted; the export let it go; the later write stays"
undo_import r6

# A client that stops acknowledging (what the export sends is dropped): the
# export's reply stays unacknowledged, and its TCP user timeout lets the
# connection go after about 50 s, where retransmission alone would hold it
# for about 15 minutes and keepalive does not probe a socket with data in
# flight. The client, waiting out a 600 s timeout, has not given up; once
# the link is back its retransmitted request meets a reset, and the read,
# held (--dead-timeout), is sent again on a new connection.
do_import r7 127.0.0.1:7113 --timeout 600 --dead-timeout 120
R=$DEV
nft_drop "sport 7113"
bounded 700 dd if="$R" of=/dev/null bs=64K count=1 iflag=direct status=none &
DD=$!
BG_PIDS+=("$DD")
wait_for 120 "export d5 to give up on its unacknowledged reply" field_is export_field d5 clients 0
field_is node_field r7 state connected || fail "r7 gave up first: $(node_field r7 state)"
nft_mend
wait_for 180 "the read to complete after the mend" not_running "$DD"
wait "$DD" || fail "the read failed after the link was back"
BG_PIDS=()
log "the export let go of a client that stopped acknowledging; the read completed after the mend"
undo_import r7
undo_export d5

# Back smaller: refused; back right: accepted.
loop_dev /tmp/small-export 32
do_export d4 /dev/ram4 127.0.0.1:7112
do_import r5 127.0.0.1:7112 --reconnect-max 1
undo_export d4
kmsg_mark
do_export d4 "$LOOP" 127.0.0.1:7112
sleep 4
field_is node_field r5 state dead || fail "r5 took an export that became smaller"
grep -q "the export became smaller" <(kmsg_new) || fail "no log line for the smaller export"
undo_export d4
do_export d4 /dev/ram4 127.0.0.1:7112
wait_for 60 "r5 connected" field_is node_field r5 state connected
undo_import r5
undo_export d4
nothing_left
