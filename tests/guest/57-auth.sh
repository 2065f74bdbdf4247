#!/bin/bash
# Shared secrets.  dstadm refuses a secret file that group or others may
# read.  An export with a secret lets in only a client that proves it:
# raw clients with no secret, a wrong one, or a handshake replayed from an
# earlier session (same challenge, recorded answer) or an answer with a
# reserved field set are refused, and a
# client with the wrong secret cannot verify the export's answer either;
# imports likewise, with a clear reason.  The right secret works, with
# CRC-32C on, under fio verify.  The secret is never readable back: not in
# status (text, JSON), sysfs, the events, or the kernel log.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7310
DSTSEC=$DST_ROOT/tests/tools/dstsec
SECRET="s3cr3t-$RANDOM$RANDOM-never-shown"

mirror_setup 2 64
load_dst
trap mirror_cleanup EXIT

umask 077
printf '%s\n' "$SECRET" >/tmp/s.good
printf 'not-%s\n' "$SECRET" >/tmp/s.bad
cp /tmp/s.good /tmp/s.open
chmod 644 /tmp/s.open
: >/tmp/s.empty
head -c 65 /dev/zero | tr '\0' k >/tmp/s.long

# --- dstadm and the secret file ----------------------------------------------
expect_error 1 "group or others may access it" dstadm export e0 --device /dev/ram0 \
	--listen 127.0.0.1:$PORT --secret-file /tmp/s.open
expect_error 1 "1 to 64 bytes" dstadm export e0 --device /dev/ram0 \
	--listen 127.0.0.1:$PORT --secret-file /tmp/s.empty
expect_error 1 "1 to 64 bytes" dstadm export e0 --device /dev/ram0 \
	--listen 127.0.0.1:$PORT --secret-file /tmp/s.long
expect_error 1 "No such file" dstadm export e0 --device /dev/ram0 \
	--listen 127.0.0.1:$PORT --secret-file /tmp/s.none
expect_error 1 "group or others may access it" dstadm import r9 \
	--remote 127.0.0.1:$PORT --secret-file /tmp/s.open
nothing_left
log "secret files: open, empty, too long or missing refused, nothing made"

bounded 600 dstadm monitor --json >/tmp/events.json 2>&1 &
BG_PIDS+=($!)
do_export e0 /dev/ram0 127.0.0.1:$PORT --secret-file /tmp/s.good
[[ "$(export_field e0 secret)" == true ]] || fail "status does not say e0 has a secret"
do_export e1 /dev/ram1 127.0.0.1:$((PORT + 1))

# --- raw clients ---------------------------------------------------------------
expect_ok bounded 60 "$DSTSEC" --secret /tmp/s.good client 127.0.0.1 $PORT ok
expect_ok bounded 60 "$DSTSEC" client 127.0.0.1 $PORT denied
expect_ok bounded 60 "$DSTSEC" --secret /tmp/s.bad client 127.0.0.1 $PORT refused
expect_ok bounded 60 "$DSTSEC" --secret /tmp/s.good client 127.0.0.1 $PORT replay
# Kernel review K2-M3: an answer with its reserved field set (20f0e7d
# let it in).
expect_ok bounded 60 "$DSTSEC" --secret /tmp/s.good client 127.0.0.1 $PORT auth-reserved
# An export without a secret refuses a client that wants the handshake.
expect_ok bounded 60 "$DSTSEC" --secret /tmp/s.good client 127.0.0.1 $((PORT + 1)) denied
[[ "$(export_field e0 auth_failed)" == 4 ]] ||
	fail "e0 counted $(export_field e0 auth_failed) failed handshakes, want 4"
log "raw clients: right secret in; none, wrong, replayed, reserved set refused and counted"

# --- imports -----------------------------------------------------------------
expect_error 1 "does not know the secret" dstadm import r9 --remote 127.0.0.1:$PORT \
	--secret-file /tmp/s.bad --timeout 5
expect_error 1 "does not let this host in" dstadm import r9 --remote 127.0.0.1:$PORT \
	--timeout 5
expect_error 1 "does not let this host in" dstadm import r9 \
	--remote 127.0.0.1:$((PORT + 1)) --secret-file /tmp/s.good --timeout 5
do_import r0 127.0.0.1:$PORT --secret-file /tmp/s.good --integrity --timeout 20
[[ "$(node_field r0 secret)" == true ]] || fail "status does not say r0 has a secret"
[[ "$(node_field r0 integrity)" == crc32c ]] || fail "r0 integrity $(node_field r0 integrity)"
sysdir=/sys/block/${DEV#/dev/}/dst/node0
[[ "$(cat "$sysdir/secret")" == yes && "$(cat "$sysdir/integrity")" == crc32c ]] ||
	fail "sysfs: secret $(cat "$sysdir/secret"), integrity $(cat "$sysdir/integrity")"
fio_verify auth "$DEV" 15 --size=48M
[[ "$(node_field r0 crc_errors)" == 0 ]] || fail "checksum errors on a clean link"
log "import with the secret and crc32c: fio verify clean"

# --- never readable back -----------------------------------------------------
dump=/tmp/everything.txt
{
	bounded 30 dstadm status
	bounded 30 dstadm status --json
	grep -r . "/sys/block/${DEV#/dev/}/dst" /sys/module/dst_storage 2>/dev/null
	dmesg
} >"$dump" || true
undo_import r0
undo_export e0
undo_export e1
sleep 1
cat /tmp/events.json >>"$dump"
for f in /tmp/s.good /tmp/s.bad; do
	s=$(head -n1 "$f")
	if grep -a -q -F -- "$s" "$dump"; then
		grep -a -n -F -- "$s" "$dump" | head -n 3
		fail "a secret is readable back"
	fi
done
grep -q '"event"\|"type"' /tmp/events.json || fail "the event monitor saw nothing: $(head -c 300 /tmp/events.json)"
nothing_left
log "the secrets appear in no status, sysfs file, event or log line"
