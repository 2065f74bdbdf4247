#!/bin/bash
# Shared secrets.  dstadm refuses a secret file that group or others may
# read.  An export with a secret lets in only a client that proves it:
# raw clients with no secret, a wrong one, or a handshake replayed from an
# earlier session (same challenge, recorded answer) or an answer with a
# reserved field set are refused, and a
# client with the wrong secret cannot verify the export's answer either;
# imports likewise, with a clear reason.  The right secret works, with
# CRC-32C on, under fio verify.  The secret is never readable back: not in
# status (text, JSON), sysfs, the events, or the kernel log.  A session is
# taken over by no one who saw its id (kernel review K2-M2): a raw client
# that knows the secret and shows a seen, missing, random or too distant
# proof is refused while the session's connection stays; the in-kernel
# client shows proofs that form the chain across a reconnect, and a
# client that replays what it saw of them is refused.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7310
DSTSEC=$DST_ROOT/tests/tools/dstsec
SNIFF=$DST_ROOT/tests/tools/sniff.py
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
# Kernel review K2-M2: 20f0e7d let "generation 5, proof seen on 3" in.
expect_ok bounded 60 "$DSTSEC" --secret /tmp/s.good client 127.0.0.1 $PORT session
[[ "$(export_field e0 auth_failed)" == 8 ]] ||
	fail "e0 counted $(export_field e0 auth_failed) failed handshakes, want 8"
log "raw clients: a session is continued only with the next proofs of its chain"

# --- imports -----------------------------------------------------------------
expect_error 1 "does not know the secret" dstadm import r9 --remote 127.0.0.1:$PORT \
	--secret-file /tmp/s.bad --timeout 5
expect_error 1 "does not let this host in" dstadm import r9 --remote 127.0.0.1:$PORT \
	--timeout 5
expect_error 1 "does not let this host in" dstadm import r9 \
	--remote 127.0.0.1:$((PORT + 1)) --secret-file /tmp/s.good --timeout 5
"$SNIFF" $PORT --dst >/tmp/sniff.dst &
BG_PIDS+=($!)
wait_for 20 "the capture" grep -q ready /tmp/sniff.dst
do_import r0 127.0.0.1:$PORT --secret-file /tmp/s.good --integrity --timeout 20
[[ "$(node_field r0 secret)" == true ]] || fail "status does not say r0 has a secret"
[[ "$(node_field r0 integrity)" == crc32c ]] || fail "r0 integrity $(node_field r0 integrity)"
sysdir=/sys/block/${DEV#/dev/}/dst/node0
[[ "$(cat "$sysdir/secret")" == yes && "$(cat "$sysdir/integrity")" == crc32c ]] ||
	fail "sysfs: secret $(cat "$sysdir/secret"), integrity $(cat "$sysdir/integrity")"
fio_verify auth "$DEV" 15 --size=48M
[[ "$(node_field r0 crc_errors)" == 0 ]] || fail "checksum errors on a clean link"
log "import with the secret and crc32c: fio verify clean"

# --- r0's session, as another client that watches the link sees it ---------
# proof_of GEN: the proof r0's connection of generation GEN showed.
proof_of() {
	awk -v s="session=$session" -v g="generation=$1" '
		/^hello / { want = $2 == s && $3 == g }
		/^proof=/ && want { sub("proof=", ""); print; exit }' /tmp/sniff.dst
}
# hijack GEN PROOF: a client with the secret claims r0's session.
hijack() {
	expect_ok bounded 60 "$DSTSEC" --secret /tmp/s.good client 127.0.0.1 $PORT \
		hijack "$session" "$1" "$2"
}
# r0_serves: r0 is up, never reconnected since, and writes and reads 1 MiB.
r0_serves() {
	head -c 1M /dev/urandom >/tmp/r0.data
	expect_ok bounded 60 dd if=/tmp/r0.data of="$DEV" bs=1M seek=2 oflag=direct status=none
	[[ "$(dev_sha "$DEV" 1 2)" == "$(file_sha /tmp/r0.data)" ]] || fail "r0: read back differs"
	[[ "$(node_field r0 state)" == connected && "$(node_field r0 reconnects)" == "$reconnects" ]] ||
		fail "r0 $(node_field r0 state), $(node_field r0 reconnects) reconnects, want connected, $reconnects"
}
session=$(sed -n 's/^hello session=\([0-9a-f]*\) generation=1$/\1/p' /tmp/sniff.dst | head -n1)
[[ -n "$session" ]] || fail "the capture saw no hello of r0: $(head -c 300 /tmp/sniff.dst)"
p1=$(proof_of 1)
[[ -n "$p1" && "$p1" != "$(printf '0%.0s' {1..64})" ]] || fail "r0 showed no session proof: '$p1'"
reconnects=$(node_field r0 reconnects)
hijack 3 "$p1"
hijack 3 0
r0_serves
log "r0's session id and proof seen on the link: a client that claims them is refused, r0 kept"
killed=$(ss -HK dport = :$PORT) || fail "ss -K could not cut r0's connection"
[[ -n "$killed" ]] || fail "ss -K cut no socket"
r0_reconnected() { (($(node_field r0 reconnects) > reconnects)); }
wait_for 60 "r0 to reconnect" r0_reconnected
wait_for 30 "r0 up" field_is node_field r0 state connected
reconnects=$(node_field r0 reconnects)
p2=$(proof_of 2)
[[ -n "$p2" ]] || fail "the capture saw no proof of r0's second connection"
python3 -c '
import hashlib, sys
p2, p1 = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2])
sys.exit(hashlib.sha256(b"dst session\0" + p2).digest() != p1)' "$p2" "$p1" ||
	fail "r0's second proof does not lead to its first"
hijack 3 "$p2"
hijack 4 "$p1"
r0_serves
log "r0 reconnected with the next proof of its chain; replays of both refused, r0 kept"

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
