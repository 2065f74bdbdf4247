#!/bin/bash
# TLS 1.3 on the wire, handshakes by the agent (dstadm tlsd), records by
# the kernel's TLS layer.  Without the agent a TLS import fails and says
# so; with an agent that says done without turning TLS on, both ends
# refuse.  With PSK (the secret) and with X.509 (a CA of the test's own) an
# import works under fio verify and ext4, status says TLS on both ends,
# and a pattern written through it never crosses lo in the clear, while
# it does through a plaintext export (the capture can see it).  Refused,
# each with its reason: a wrong PSK, a plaintext client of a TLS export
# and a TLS client of a plaintext one, a wrong CA, no client certificate
# where the export asks for one, a name the certificate does not have,
# an expired certificate, a client certificate without the name its
# allow list entry gives.  One cipher: what the export or the node allows
# alone is what the kernel's TLS layer runs (inet_diag) and what status
# shows for both ends, and a node that allows none the export has is
# refused.  TLS over IPv6.  gnutls-cli
# completes a PSK handshake with an export, and none with one whose allow
# list does not have it, which refuses it (and an import) before TLS.  A
# mirror leg over TLS whose export goes under fio reconnects with TLS when
# it is back, and resyncs: legs identical.  A bit flipped on the wire,
# either way, ends the connection, which is made again; what the device
# holds and what reads back is what was written.  The agent follows the
# module when it is unloaded and loaded again.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7330
SNIFF=$DST_ROOT/tests/tools/sniff.py
FLIPPROXY=$DST_ROOT/tests/tools/flipproxy.py
# 16 bytes; the data written is made of it, so every segment holds copies.
MARK=dst-TLS-marker-1

node_is() { [[ "$(leg_field "$1" "$2" state)" == "$3" ]]; }

mirror_setup 3 256
W=$(mktemp -d)
tls_cleanup() {
	local rc=$?
	set +e
	[[ -s "$W/tlsd.log" ]] && sed 's/^/  tlsd: /' "$W/tlsd.log"
	(exit "$rc")
	mirror_cleanup
}
trap tls_cleanup EXIT

umask 077
printf 'tls-psk-%s\n' "$RANDOM$RANDOM" >"$W/s.good"
printf 'not-the-psk-%s\n' "$RANDOM" >"$W/s.bad"

# --- certificates: a CA, the export's, the client's, another CA, expired --
cert() {
	local name=$1 tmpl=$2 ca=${3:-}
	bounded 60 certtool --generate-privkey --key-type=ecdsa \
		--outfile "$W/$name.key" 2>/dev/null
	printf '%b' "$tmpl" >"$W/$name.tmpl"
	if [[ -z "$ca" ]]; then
		bounded 60 certtool --generate-self-signed --load-privkey "$W/$name.key" \
			--template "$W/$name.tmpl" --outfile "$W/$name.pem" 2>/dev/null
	else
		bounded 60 certtool --generate-certificate --load-privkey "$W/$name.key" \
			--load-ca-certificate "$W/$ca.pem" --load-ca-privkey "$W/$ca.key" \
			--template "$W/$name.tmpl" --outfile "$W/$name.pem" 2>/dev/null
	fi
	[[ -s "$W/$name.pem" ]] || fail "certtool made no $name.pem"
}
cert ca 'cn = "dst test CA"\nca\ncert_signing_key\nexpiration_days = 30\n'
cert other 'cn = "another CA"\nca\ncert_signing_key\nexpiration_days = 30\n'
cert srv 'cn = "dst export"\ndns_name = "localhost"\nip_address = "127.0.0.1"\ntls_www_server\nexpiration_days = 30\n' ca
cert cli 'cn = "dst client"\ndns_name = "client.example"\ntls_www_client\nexpiration_days = 30\n' ca
cert old 'cn = "old export"\nip_address = "127.0.0.1"\ntls_www_server\nactivation_date = "2020-01-01 00:00:00 UTC"\nexpiration_date = "2021-01-01 00:00:00 UTC"\n' ca
log "certificates made"

# marks_through EXPORTED WHAT: the marks written through the import ($DEV)
# must be what EXPORTED, the export's device, then holds.
marks_through() {
	expect_ok bounded 120 dd if="$W/marks" of="$DEV" bs=1M oflag=direct status=none
	[[ "$(dev_sha "$1" 8)" == "$(file_sha "$W/marks")" ]] ||
		fail "$2 does not hold what was written"
}

# --- dstadm's checks -----------------------------------------------------
expect_error 2 "needs a secret file" dstadm import r9 --remote 127.0.0.1:$PORT --tls
expect_error 2 "needs a CA file" dstadm import r9 --remote 127.0.0.1:$PORT \
	--tls-cert "$W/cli.pem" --tls-key "$W/cli.key"
expect_error 2 "needs its key" dstadm export e9 --device /dev/ram0 \
	--listen 127.0.0.1:$PORT --tls-cert "$W/srv.pem"
expect_error 2 "No such file" dstadm export e9 --device /dev/ram0 \
	--listen 127.0.0.1:$PORT --tls-cert "$W/none.pem" --tls-key "$W/srv.key"
nothing_left
log "dstadm: PSK without a secret, X.509 without CA or key, missing files refused"

# --- PSK, and no agent ---------------------------------------------------
do_export e0 /dev/ram0 127.0.0.1:$PORT --secret-file "$W/s.good" --tls
[[ "$(export_field e0 tls)" == psk ]] || fail "status does not say e0 has TLS with PSK"
expect_error 1 "no TLS handshake agent runs" dstadm import r0 \
	--remote 127.0.0.1:$PORT --secret-file "$W/s.good" --tls

# An agent that says "done" without turning TLS on: both ends refuse.
# The export asks for a handshake once bytes come; a node sends none
# without TLS, so the second connection writes some.
"$DST_ROOT/tests/tools/nlfuzz" liar 2 >"$W/liar.log" 2>&1 &
LIAR=$!
BG_PIDS+=("$LIAR")
wait_for 20 "the lying agent" grep -q ready "$W/liar.log"
kmsg_mark
expect_error 1 "did not turn kernel TLS on" dstadm import r0 \
	--remote 127.0.0.1:$PORT --secret-file "$W/s.good" --tls
refused_before=$(export_field e0 auth_failed)
exec {raw}<>"/dev/tcp/127.0.0.1/$PORT"
printf 'not a TLS record' >&"$raw"
e0_refused() { (($(export_field e0 auth_failed) > refused_before)); }
wait_for 20 "e0 to refuse the connection the agent lied about" e0_refused
exec {raw}>&-
wait "$LIAR" || fail "the lying agent did not take both handshakes: $(cat "$W/liar.log")"
grep -q "export e0: client .*: the TLS agent did not turn kernel TLS on" <(kmsg_new) ||
	fail "e0 did not say why it refused the connection"
log "an agent that does not turn TLS on: both ends refuse"

dstadm tlsd 2>"$W/tlsd.log" &
TLSD=$!
BG_PIDS+=("$TLSD")
wait_for 20 "the agent to be ready" grep -q "ready" "$W/tlsd.log"

# Through the import, captured on lo: no marker may cross in the clear.
"$SNIFF" $PORT "$MARK" >"$W/sniff.tls" &
SNIFFER=$!
wait_for 20 "the capture" grep -q ready "$W/sniff.tls"
do_import r0 127.0.0.1:$PORT --secret-file "$W/s.good" --tls
[[ "$(node_field r0 tls)" == psk ]] || fail "status does not say r0 uses TLS with PSK"
status_json | jq -e '.exports[] | select(.name == "e0") | .client_list[0].tls' >/dev/null ||
	fail "e0's client is not shown with TLS"
head -c $((8 << 20)) < <(yes "$MARK" | tr -d '\n') >"$W/marks"
expect_ok bounded 120 dd if="$W/marks" of="$DEV" bs=1M oflag=direct status=none
[[ "$(dev_sha "$DEV" 8)" == "$(file_sha "$W/marks")" ]] ||
	fail "what was written through TLS does not read back"
[[ "$(dev_sha /dev/ram0 8)" == "$(file_sha "$W/marks")" ]] ||
	fail "the export's device does not hold what was written"
kill "$SNIFFER"
wait "$SNIFFER" || true
log "capture of the TLS import: $(tail -n1 "$W/sniff.tls")"
grep -q "matches=0$" "$W/sniff.tls" || fail "the marker crossed lo in the clear with TLS"
bytes=$(sed -n 's/.*bytes=\([0-9]*\).*/\1/p' "$W/sniff.tls")
((bytes > 8 << 20)) || fail "the capture saw only $bytes bytes of the TLS connection"

bounded 300 fio --name=tls --filename="$DEV" --rw=randwrite --bs=4k,64k \
	--size=64M --ioengine=libaio --iodepth=16 --direct=1 --verify=crc32c \
	--verify_fatal=1 --verify_backlog=32 --do_verify=1 --output=/dev/null ||
	fail "fio verify through the TLS import failed"
expect_ok bounded 120 mkfs.ext4 -q -F "$DEV"
mkdir -p /mnt/tls
expect_ok bounded 60 mount "$DEV" /mnt/tls
MOUNTS+=(/mnt/tls)
expect_ok bounded 60 dd if="$W/marks" of=/mnt/tls/f bs=1M conv=fsync status=none
expect_ok bounded 60 umount /mnt/tls
MOUNTS=()
expect_ok bounded 120 fsck.ext4 -n -f "$DEV"
undo_import r0
log "PSK: import served, fio verify and ext4 clean, no marker in the clear"

# The capture sees the marker on a plaintext connection: it can fail.
do_export e1 /dev/ram1 127.0.0.1:$((PORT + 1))
"$SNIFF" $((PORT + 1)) "$MARK" >"$W/sniff.plain" &
SNIFFER=$!
wait_for 20 "the capture" grep -q ready "$W/sniff.plain"
do_import r1 127.0.0.1:$((PORT + 1))
expect_ok bounded 120 dd if="$W/marks" of="$DEV" bs=1M count=1 oflag=direct status=none
kill "$SNIFFER"
wait "$SNIFFER" || true
grep -q "matches=[1-9]" "$W/sniff.plain" ||
	fail "the capture did not see the marker in plaintext: $(cat "$W/sniff.plain")"
undo_import r1
log "plaintext control: the capture sees the marker"

# --- refusals with PSK ---------------------------------------------------
kmsg_mark
expect_error 1 "the TLS peer did not authenticate" dstadm import r2 \
	--remote 127.0.0.1:$PORT --secret-file "$W/s.bad" --tls
expect_error 1 "the export needs TLS" dstadm import r2 \
	--remote 127.0.0.1:$PORT --secret-file "$W/s.good"
expect_error 1 "does the other end use TLS" dstadm import r2 \
	--remote 127.0.0.1:$((PORT + 1)) --secret-file "$W/s.good" --tls
grep -q "client uses TLS, this export does not" <(kmsg_new) ||
	fail "the plaintext export did not log the TLS client"
log "refused: wrong PSK, plaintext client of TLS, TLS client of plaintext"
undo_export e1

# gnutls_psk PORT: gnutls-cli completes a PSK handshake with the export
# on PORT (it then sends no hello and is closed).
gnutls_psk() {
	local out
	out=$(bounded 30 gnutls-cli --pskusername dst \
		--pskkey "$(od -An -tx1 "$W/s.good" | tr -d ' \n' | sed 's/0a$//')" \
		--priority 'NORMAL:-VERS-ALL:+VERS-TLS1.3:-KX-ALL:+ECDHE-PSK' \
		-p "$1" 127.0.0.1 </dev/null 2>&1) || true
	grep -q "Handshake was completed" <<<"$out" ||
		fail "gnutls-cli did not complete a handshake on port $1: $out"
}
gnutls_psk $PORT
log "gnutls-cli completed a PSK handshake with e0"

# Not on the allow list: refused before TLS, in the clear, so that no
# handshake is spent on it (K2-S3): gnutls-cli completes none, the
# import's agent reads the refusal.
do_export e5 /dev/ram1 127.0.0.1:$((PORT + 6)) --secret-file "$W/s.good" --tls \
	--allow 10.9.9.9
out=$(bounded 30 gnutls-cli --pskusername dst \
	--pskkey "$(od -An -tx1 "$W/s.good" | tr -d ' \n' | sed 's/0a$//')" \
	--priority 'NORMAL:-VERS-ALL:+VERS-TLS1.3:-KX-ALL:+ECDHE-PSK' \
	-p $((PORT + 6)) 127.0.0.1 </dev/null 2>&1) || true
! grep -q "Handshake was completed" <<<"$out" ||
	fail "gnutls-cli completed a handshake with an export that does not let it in"
expect_error 1 "does not let this host in" dstadm import r6 \
	--remote 127.0.0.1:$((PORT + 6)) --secret-file "$W/s.good" --tls
[[ "$(export_field e5 denied)" -ge 2 ]] ||
	fail "e5 counted $(export_field e5 denied) clients not on its allow list, want 2"
undo_export e5
log "not on the allow list: refused before TLS, no handshake"

# --- a mirror leg over TLS: its export goes under fio, comes back ---------
expect_ok bounded 30 dstadm create m --alg mirror
STORAGES+=(m)
expect_ok bounded 30 dstadm add m local /dev/ram2
expect_ok bounded 60 dstadm add m remote 127.0.0.1:$PORT --secret-file "$W/s.good" --tls
expect_ok bounded 60 dstadm start m
DEV=$(storage_dev m)
wait_in_sync m 180
timeout -k 5 300 fio --name=back --filename="$DEV" --direct=1 --ioengine=libaio \
	--rw=randwrite --bs=4k --iodepth=8 --time_based --runtime=20 --size=32M \
	--verify=crc32c --verify_fatal=1 --verify_backlog=32 --verify_state_save=0 \
	--output-format=json --output="$W/fio-back.json" &
FIO=$!
BG_PIDS+=("$FIO")
sleep 4
undo_export e0
wait_for 60 "the TLS leg out of sync" leg_is m 1 out-of-sync
sleep 2
do_export e0 /dev/ram0 127.0.0.1:$PORT --secret-file "$W/s.good" --tls
wait_for 60 "the TLS leg reconnected" node_is m 1 connected
wait_in_sync m 120
fio_wait "$FIO" "$W/fio-back.json" "while the TLS leg went and came back"
[[ "$(leg_field m 1 reconnects)" -ge 1 ]] || fail "the TLS leg counts no reconnect"
[[ "$(leg_field m 1 tls)" == psk ]] || fail "the TLS leg is $(leg_field m 1 tls) after its reconnect"
legs_identical 256 /dev/ram2 /dev/ram0
expect_ok bounded 60 dstadm delete m
STORAGES=()
log "mirror: the TLS leg reconnected with TLS and resynced, legs identical"
undo_export e0

# --- a bit flipped on the wire, each way: the connection ends, no harm ----
kmsg_mark
do_export e4 /dev/ram1 127.0.0.1:$((PORT + 4)) --secret-file "$W/s.good" --tls
# 1.5 MiB: in a write's data one way, in the second read's data the other.
"$FLIPPROXY" $((PORT + 5)) $((PORT + 4)) $((3 << 19)) >"$W/flip.log" &
BG_PIDS+=($!)
wait_for 20 "the flipping proxy" grep -q ready "$W/flip.log"
do_import r5 127.0.0.1:$((PORT + 5)) --secret-file "$W/s.good" --tls --dead-timeout 60
expect_ok bounded 120 dd if="$W/marks" of="$DEV" bs=1M oflag=direct status=none
[[ "$(dev_sha "$DEV" 8)" == "$(file_sha "$W/marks")" ]] ||
	fail "what was written through the flips does not read back"
[[ "$(dev_sha /dev/ram1 8)" == "$(file_sha "$W/marks")" ]] ||
	fail "the export's device does not hold what was written through the flips"
cat "$W/flip.log"
[[ "$(grep -c flipped "$W/flip.log")" == 2 ]] || fail "the proxy did not flip a bit each way"
[[ "$(node_field r5 reconnects)" -ge 2 ]] ||
	fail "r5 reconnected $(node_field r5 reconnects) times, not after each flip"
grep -q "export e4: client .*: a TLS record did not decrypt" <(kmsg_new) ||
	fail "the export did not say a record did not decrypt"
grep -q "127.0.0.1:$((PORT + 5)): a TLS record did not decrypt" <(kmsg_new) ||
	fail "the import did not say a record did not decrypt"
undo_import r5
undo_export e4
log "flips: each ended its connection, the data is what was written"

# --- X.509 ---------------------------------------------------------------
do_export e2 /dev/ram0 127.0.0.1:$((PORT + 2)) --tls-cert "$W/srv.pem" \
	--tls-key "$W/srv.key" --tls-ca "$W/ca.pem"
do_import r3 127.0.0.1:$((PORT + 2)) --tls-ca "$W/ca.pem" \
	--tls-cert "$W/cli.pem" --tls-key "$W/cli.key"
[[ "$(node_field r3 tls)" == x509 ]] || fail "status does not say r3 uses X.509"
marks_through /dev/ram0 "the X.509 export"
undo_import r3
expect_error 1 "authenticate" dstadm import r4 --remote 127.0.0.1:$((PORT + 2)) \
	--tls-ca "$W/other.pem" --tls-cert "$W/cli.pem" --tls-key "$W/cli.key"
expect_error 1 "refuse this host's certificate\\|did not authenticate" dstadm import r4 \
	--remote 127.0.0.1:$((PORT + 2)) --tls-ca "$W/ca.pem"
expect_error 1 "authenticate" dstadm import r4 --remote 127.0.0.1:$((PORT + 2)) \
	--tls-ca "$W/ca.pem" --tls-cert "$W/cli.pem" --tls-key "$W/cli.key" \
	--tls-name wrong.example
do_export e3 /dev/ram1 127.0.0.1:$((PORT + 3)) --tls-cert "$W/old.pem" \
	--tls-key "$W/old.key"
expect_error 1 "authenticate" dstadm import r4 --remote 127.0.0.1:$((PORT + 3)) \
	--tls-ca "$W/ca.pem"
grep -q "expired" "$W/tlsd.log" || fail "the agent did not say the certificate expired"
log "X.509: served; wrong CA, no client certificate, wrong name, expired refused"


undo_export e2
undo_export e3

# The allow list names the clients' certificates: another name is refused.
allow_export() {
	do_export e9 /dev/ram1 127.0.0.1:$((PORT + 9)) --tls-cert "$W/srv.pem" \
		--tls-key "$W/srv.key" --tls-ca "$W/ca.pem" --allow "127.0.0.1,name=$1"
}
allow_export client.example
[[ "$(status_json | jq -r '.exports[] | select(.name == "e9") | .allow[0].name')" == \
	client.example ]] || fail "status does not show the allow list's certificate name"
do_import r11 127.0.0.1:$((PORT + 9)) --tls-ca "$W/ca.pem" --tls-cert "$W/cli.pem" \
	--tls-key "$W/cli.key"
undo_import r11
undo_export e9
allow_export other.example
expect_error 1 "refuse this host's certificate\\|did not authenticate" dstadm import r11 \
	--remote 127.0.0.1:$((PORT + 9)) --tls-ca "$W/ca.pem" --tls-cert "$W/cli.pem" \
	--tls-key "$W/cli.key"
grep -q "client with .*does not match" "$W/tlsd.log" ||
	fail "the agent did not say the client's certificate has another name"
undo_export e9
expect_error 2 "need TLS with X.509 and a CA" dstadm export e9 --device /dev/ram1 \
	--listen 127.0.0.1:$((PORT + 9)) --tls-cert "$W/srv.pem" --tls-key "$W/srv.key" \
	--allow "127.0.0.1,name=client.example"
log "allow list: a client certificate with the entry's name served, another refused"

# --- one cipher: the export allows it alone, the kernel's TLS layer has it
# tls_ciphers PORT: the ciphers the kernel's TLS layer reports for both
# ends' sockets of the connection on PORT (inet_diag, through ss, which
# names AES-GCM only: "-" for another), one line each.
tls_ciphers() {
	ss -tni "( sport = :$1 or dport = :$1 )" | grep -o 'tcp-ulp-tls.*' |
		sed -n 's/.*cipher: \([^ ]*\).*/\1/p; t; s/.*/-/p'
}

# in_use NODE EXPORT: the ciphers status says NODE's connection and
# EXPORT's (one) client run, as "NODE'S EXPORT'S".
in_use() {
	echo "$(node_field "$1" tls_cipher_used)" \
		"$(export_field "$2" client_list | jq -r '.[0].tls_cipher')"
}

# AES-256-GCM's suite hashes with SHA-384: X.509 only (a PSK is SHA-256).
expect_error 2 "is for X.509" dstadm export e8 --device /dev/ram1 \
	--listen 127.0.0.1:$((PORT + 8)) --secret-file "$W/s.good" --tls-cipher aes-256-gcm
do_export e7 /dev/ram1 127.0.0.1:$((PORT + 8)) --tls-cert "$W/srv.pem" \
	--tls-key "$W/srv.key" --tls-cipher aes-256-gcm
[[ "$(export_field e7 tls_cipher)" == aes-256-gcm ]] || fail "status does not show e7's cipher"
do_import r9 127.0.0.1:$((PORT + 8)) --tls-ca "$W/ca.pem"
[[ "$(node_field r9 tls_cipher)" == any ]] || fail "status does not show r9's cipher as any"
got=$(tls_ciphers $((PORT + 8)) | tr '\n' ' ')
[[ "$got" == "aes-gcm-256 aes-gcm-256 " ]] ||
	fail "the connection to e7 does not use AES-256-GCM both ways: '$got'"
got=$(in_use r9 e7)
[[ "$got" == "aes-256-gcm aes-256-gcm" ]] || fail "status does not show AES-256-GCM in use: '$got'"
marks_through /dev/ram1 "the AES-256-GCM export"
undo_import r9
expect_error 1 "no cipher in common" dstadm import r10 \
	--remote 127.0.0.1:$((PORT + 8)) --tls-ca "$W/ca.pem" --tls-cipher chacha20-poly1305
undo_export e7
# Any cipher at the export: AES-128-GCM, the first, unless the node asks.
do_export e7 /dev/ram1 127.0.0.1:$((PORT + 8)) --secret-file "$W/s.good" --tls
do_import r9 127.0.0.1:$((PORT + 8)) --secret-file "$W/s.good" --tls
got=$(tls_ciphers $((PORT + 8)) | tr '\n' ' ')
[[ "$got" == "aes-gcm-128 aes-gcm-128 " ]] || fail "the default is not AES-128-GCM: '$got'"
got=$(in_use r9 e7)
[[ "$got" == "aes-128-gcm aes-128-gcm" ]] || fail "status does not show AES-128-GCM in use: '$got'"
undo_import r9
do_import r9 127.0.0.1:$((PORT + 8)) --secret-file "$W/s.good" \
	--tls-cipher chacha20-poly1305
[[ "$(node_field r9 tls_cipher)" == chacha20-poly1305 ]] || fail "status does not show r9's cipher"
got=$(tls_ciphers $((PORT + 8)) | tr '\n' ' ')
[[ "$got" == "- - " ]] || fail "the connection does not use a cipher other than AES-GCM: '$got'"
got=$(in_use r9 e7)
[[ "$got" == "chacha20-poly1305 chacha20-poly1305" ]] ||
	fail "status does not show ChaCha20-Poly1305 in use: '$got'"
dstadm status r9 | grep -q "tls: psk chacha20-poly1305 (in use: chacha20-poly1305)," ||
	fail "status text does not show the cipher in use: $(dstadm status r9)"
dstadm status e7 | grep -q "^    127\.0\.0\.1:[0-9]*.* tls chacha20-poly1305$" ||
	fail "status text does not show the client's cipher: $(dstadm status e7)"
marks_through /dev/ram1 "the export of the ChaCha20-Poly1305 import"
undo_import r9
undo_export e7
log "one cipher: AES-256-GCM by the export's choice, ChaCha20-Poly1305 by the node's, a mismatch refused"

# --- IPv6: X.509 checked by name, an allow entry of ::1 with a name ------
do_export e10 /dev/ram1 "[::1]:$((PORT + 10))" --tls-cert "$W/srv.pem" \
	--tls-key "$W/srv.key" --tls-ca "$W/ca.pem" --allow "::1,name=client.example"
do_import r12 "[::1]:$((PORT + 10))" --tls-ca "$W/ca.pem" --tls-name localhost \
	--tls-cert "$W/cli.pem" --tls-key "$W/cli.key"
got=$(tls_ciphers $((PORT + 10)) | tr '\n' ' ')
[[ "$got" == "aes-gcm-128 aes-gcm-128 " ]] || fail "the IPv6 connection is not in TLS: '$got'"
marks_through /dev/ram1 "the IPv6 TLS export"
undo_import r12
# The export's certificate has no ::1: checked by the address, refused.
expect_error 1 "authenticate" dstadm import r13 --remote "[::1]:$((PORT + 10))" \
	--tls-ca "$W/ca.pem" --tls-cert "$W/cli.pem" --tls-key "$W/cli.key"
undo_export e10
log "IPv6: X.509 by name, an allow entry of ::1 with a certificate name"

# --- the module unloaded and loaded again: the agent follows it ----------
unload_dst
wait_for 20 "the agent to see the module go" grep -q "went away" "$W/tlsd.log"
load_dst
wait_for 20 "the agent to join again" \
	bash -c "[[ \$(grep -c 'ready for TLS' '$W/tlsd.log') -ge 2 ]]"
do_export e6 /dev/ram0 127.0.0.1:$((PORT + 7)) --secret-file "$W/s.good" --tls
do_import r8 127.0.0.1:$((PORT + 7)) --secret-file "$W/s.good" --tls
undo_import r8
undo_export e6
log "the agent joined the module loaded again, and does its handshakes"

kill "$TLSD"
wait "$TLSD" || fail "dstadm tlsd did not stop cleanly"
BG_PIDS=()
nothing_left
