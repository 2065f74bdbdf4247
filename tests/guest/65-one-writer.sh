#!/bin/bash
# One writer at a time: an export serves one session that may write.  A
# second import of it is refused with a reason that names the writer's
# address (kernel log of both ends), and so is a mirror leg on it, so two
# storages can no longer write to one device and diverge silently.  A
# reconnect of the writer itself (same session) is not a second writer;
# read-only clients never count; once the writer is gone another may
# write; an export made --shared takes writers of many sessions.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7660

# client_addrs EXPORT: the addresses of its clients, one per line.
client_addrs() {
	status_json | jq -r --arg e "$1" \
		'.exports[] | select(.name == $e) | .client_list[].address'
}

mirror_setup 3 32
trap mirror_cleanup EXIT

do_export e1 /dev/ram0 127.0.0.1:$PORT
[[ "$(export_field e1 shared)" == false ]] || fail "a new export is shared"
grep -q "writers: one at a time" <<<"$(bounded 30 dstadm status)" ||
	fail "status does not say the export takes one writer"
do_import w1 127.0.0.1:$PORT
DEV1=$DEV
head -c 1M /dev/urandom >/tmp/w1
dd if=/tmp/w1 of="$DEV1" bs=1M oflag=direct status=none
writer=$(client_addrs e1)
[[ "$writer" == 127.0.0.1:* ]] || fail "e1's client list: '$writer'"

# --- a second writer is refused, naming the first ---------------------------
mark=$(dmesg | wc -l)
expect_error 1 "another client writes to the export" \
	bounded 90 dstadm import w2 --remote 127.0.0.1:$PORT
dstadm status w2 >/dev/null 2>&1 && fail "the refused import left storage w2"
log=$(dmesg | tail -n +$((mark + 1)))
grep -q "export e1: client 127.0.0.1:[0-9]*: refused, $writer writes to it (not shared)" <<<"$log" ||
	fail "the export did not log the writer $writer: $log"
grep -q "refused the connection: in use by $writer" <<<"$log" ||
	fail "the client did not log the writer $writer: $log"

# A mirror leg on it likewise: the storage keeps only its local leg.
expect_ok bounded 30 dstadm create m --alg mirror
STORAGES+=(m)
expect_ok bounded 30 dstadm add m local /dev/ram1
expect_error 1 "another client writes to the export" \
	bounded 90 dstadm add m remote 127.0.0.1:$PORT
[[ "$(status_json | jq '.storages[] | select(.name == "m") | .nodes | length')" == 1 ]] ||
	fail "the refused leg is in mirror m"

# The writer's own reconnect is no second writer: cut its connection.
killed=$(ss -HK dport = :$PORT) || fail "ss -K could not cut w1's connection"
[[ -n "$killed" ]] || fail "ss -K cut no socket (a kernel without CONFIG_INET_DIAG_DESTROY?)"
wait_for 30 "w1 to reconnect" \
	bash -c "dmesg | tail -n +$((mark + 1)) | grep -q 'node0: reconnected to 127.0.0.1:$PORT'"
cmp -n 1M /tmp/w1 "$DEV1" || fail "w1 reads other data after its reconnect"
dd if=/tmp/w1 of="$DEV1" bs=1M oflag=direct status=none

# Once the writer is gone, the next one may write.
undo_import w1
do_import w2 127.0.0.1:$PORT
cmp -n 1M /tmp/w1 "$DEV" || fail "w2 reads other data than w1 wrote"
undo_import w2

# --- read-only clients never count ------------------------------------------
do_export r1 /dev/ram2 127.0.0.1:$((PORT + 1)) --read-only
do_import r1a 127.0.0.1:$((PORT + 1))
do_import r1b 127.0.0.1:$((PORT + 1))
[[ "$(export_field r1 clients)" == 2 ]] || fail "r1 does not serve both readers"

# --- a shared export takes many writers ---------------------------------------
undo_export e1
do_export e1 /dev/ram0 127.0.0.1:$PORT --shared
[[ "$(export_field e1 shared)" == true ]] || fail "export e1 --shared is not shared"
grep -q "writers: shared" <<<"$(bounded 30 dstadm status)" ||
	fail "status does not say the export is shared"
do_import s1 127.0.0.1:$PORT
DEV1=$DEV
do_import s2 127.0.0.1:$PORT
dd if=/tmp/w1 of="$DEV1" bs=64K count=8 oflag=direct status=none
dd if=/tmp/w1 of="$DEV" bs=64K skip=8 seek=8 count=8 oflag=direct status=none
cmp -n 1M /tmp/w1 /dev/ram0 || fail "the two writers' data is not on the device"
log "one writer at a time: refused with the writer named; shared takes two"
