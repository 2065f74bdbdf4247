#!/bin/bash
# A single remote disk on A, imported from B, while the whole guest B is
# SIGKILLed and booted again: within --dead-timeout, acklog writers (FUA
# writes, each followed by a read back of an earlier one) see no I/O
# error and no stale read (the I/O is held and sent again), and every
# write they were acknowledged, before, during and after the outage, is on
# the disk afterwards; beyond it, I/O fails within a bounded time, nothing
# hangs, and the disk works again once B is back.
# Over TLS 1.3 (PSK): the reconnects go through the agents of A and B.
set -euo pipefail
# shellcheck source=tests/multi/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/multi/lib.sh"
trap multi_cleanup EXIT

net_up
load_dst
wait_for 60 "B to answer" ping -c1 -W1 "$ADDR_B"
wait_for 60 "C to answer" ping -c1 -W1 "$ADDR_C"
multi_tls on

# Within the dead timeout: held and resent.
do_import d "$ADDR_B:$PORT" --timeout 5 --reconnect-max 1 --dead-timeout 300 "${TLS_OPTS[@]}"
D=$DEV
ack_start held "$D" 0 2048 4
sleep 10
host kill B
wait_for 60 "the node to be reconnecting" field_is node_field d state reconnecting
ack_alive held
host boot B
wait_for 120 "the node to be connected again" field_is node_field d state connected
sleep 5
ack_stop held
ack_check held "$D"
log "every acknowledged write kept through a SIGKILL and boot of B within the dead timeout"
undo_import d

# Beyond it: errors, in bounded time.
do_import e "$ADDR_B:$PORT" --timeout 5 --reconnect-max 1 --dead-timeout 5 "${TLS_OPTS[@]}"
E=$DEV
fio --name=dead --filename="$E" --direct=1 --ioengine=libaio --rw=randwrite \
	--bs=16k --iodepth=8 --rate=512k --time_based --runtime=300 \
	--output=/tmp/fio-dead.txt &
FIO=$!
BG_PIDS+=("$FIO")
sleep 5
host kill B
t0=$SECONDS
rc=0
wait "$FIO" || rc=$?
BG_PIDS=()
((rc != 0)) || fail "fio saw no error with B dead beyond the dead timeout"
took=$((SECONDS - t0))
((took < 60)) || fail "fio took $took s to fail after B died (dead timeout 5 s)"
log "I/O failed $took s after B died, beyond the 5 s dead timeout"
expect_fail bounded 60 dd if="$E" of=/dev/null bs=4k count=1 iflag=direct
field_is node_field e state dead || fail "node state is $(node_field e state), not dead"
host boot B
wait_for 120 "the node to be connected again" field_is node_field e state connected
expect_ok bounded 60 dd if="$E" of=/dev/null bs=4k count=16 iflag=direct
[[ "$(node_field e tls)" == psk ]] || fail "the node is not on TLS"
undo_import e
nothing_left
multi_tls off
