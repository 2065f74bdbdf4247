#!/bin/bash
# The structure-aware wire fuzzer (tests/tools/wirefuzz.c), both ways,
# with fixed seeds: DST_WIRE_FUZZ messages (default 60000) from clients
# to an in-kernel export, which must never answer an invalid request OK
# and keep serving valid ones; and as many from a fake export to the
# in-kernel client under fio, 1 in DST_WIRE_FUZZ_RATE replies (default
# 1024; each costs a reconnect) and 1 in 8 hello replies mutated.  No
# oops, WARN or hang (the runner checks the kernel log), and the module
# unloads cleanly afterwards.  Both parts run again inside TLS (PSK,
# through the agent), with DST_WIRE_FUZZ_TLS messages (default a
# tenth).  A longer run: DST_WIRE_FUZZ=300000 or more,
# DST_WIRE_FUZZ_SEED=2, DST_WIRE_FUZZ_RATE=256 (docs/TESTING.md).
set -euo pipefail
# shellcheck source=tests/guest/remote-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/remote-lib.sh"

PORT=7330
N=${DST_WIRE_FUZZ:-60000}
# Inside TLS each connection the fuzzer loses costs a handshake.
N_TLS=${DST_WIRE_FUZZ_TLS:-$((N / 10))}
SEED=${DST_WIRE_FUZZ_SEED:-1}
RATE=${DST_WIRE_FUZZ_RATE:-1024}
WIREFUZZ=$DST_ROOT/tests/tools/wirefuzz
DSTSEC=$DST_ROOT/tests/tools/dstsec

remote_setup
trap remote_cleanup EXIT

# --- clients against the in-kernel export ------------------------------------
# Shared: a connection the fuzzer dropped may still be open when the
# next one says hello.
do_export e0 /dev/ram0 127.0.0.1:$PORT --shared
expect_ok bounded 1200 "$WIREFUZZ" client 127.0.0.1 $PORT "$N" "$SEED"
expect_ok bounded 60 "$DSTSEC" client 127.0.0.1 $PORT ok
wait_for 30 "e0 to have no clients" field_is export_field e0 clients 0
undo_export e0
log "export: $N fuzzed messages, still serving"

# fake_export PORT COUNT [IMPORT_OPTIONS...]: the fuzzer as an export
# (with the options in WF_OPTS) sending COUNT messages to an import of it
# (with IMPORT_OPTIONS) under fio.
WF_OPTS=()
fake_export() {
	local port=$1 n=$2 out try dev srv fio_pid rc=0
	shift 2
	bounded 1200 "$WIREFUZZ" "${WF_OPTS[@]}" server "$port" $((64 << 20)) "$n" "$SEED" \
		"$RATE" >/tmp/wf-server.log 2>&1 &
	srv=$!
	wait_for 10 "the fuzzing export to listen" grep -q listening /tmp/wf-server.log
	# Hello replies are fuzzed too: the import may need a few tries.
	for try in $(seq 1 20); do
		if out=$(bounded 60 dstadm import f0 --remote "127.0.0.1:$port" \
			--dead-timeout 0 --reconnect-max 1 --timeout 5 "$@" 2>&1); then
			break
		fi
		((try < 20)) || fail "no import through the fuzzing export: $out"
	done
	IMPORTS+=(f0)
	dev=$(grep -o '/dev/dst[0-9]\+' <<<"$out" | head -n1)
	wait_for 10 "$dev" test -b "$dev"
	bounded 1500 fio --name=fuzzload --filename="$dev" --direct=1 --ioengine=libaio \
		--rw=randrw --bs=4k --iodepth=8 --size=64M --time_based --runtime=1200 \
		--continue_on_error=all --output=/tmp/wf-fio.txt >/dev/null 2>&1 &
	fio_pid=$!
	BG_PIDS+=("$fio_pid")
	wait "$srv" || rc=$?
	cat /tmp/wf-server.log
	((rc == 0)) || fail "the fuzzing export ended with $rc"
	kill "$fio_pid" 2>/dev/null || true
	wait "$fio_pid" 2>/dev/null || true
	# fio's job processes let go of the disk a little after the main one.
	pkill -x fio 2>/dev/null || true
	wait_for 60 "fio to exit" bash -c '! pgrep -x fio >/dev/null'
	undo_import f0
}

# --- the same both ways inside TLS (PSK): each connection through the agent --
dstadm tlsd 2>/tmp/wf-tlsd.log &
TLSD=$!
BG_PIDS+=("$TLSD")
wait_for 20 "the TLS agent" grep -q ready /tmp/wf-tlsd.log
(umask 077 && printf 'wirefuzz-psk-%s\n' "$SEED" >/tmp/wf.psk)
do_export e1 /dev/ram0 127.0.0.1:$((PORT + 2)) --shared --secret-file /tmp/wf.psk --tls
expect_ok bounded 1200 "$WIREFUZZ" --tls-psk /tmp/wf.psk client 127.0.0.1 $((PORT + 2)) \
	"$N_TLS" "$SEED"
wait_for 30 "e1 to have no clients" field_is export_field e1 clients 0
undo_export e1
log "export with TLS: $N_TLS fuzzed messages inside TLS, still serving"
WF_OPTS=(--tls-psk /tmp/wf.psk)
fake_export $((PORT + 3)) "$N_TLS" --secret-file /tmp/wf.psk --tls
WF_OPTS=()
kill "$TLSD"
wait "$TLSD" || fail "dstadm tlsd did not stop cleanly"
BG_PIDS=()
log "client with TLS: $N_TLS fuzzed messages inside TLS from a fake export"

# --- a fake export against the in-kernel client ------------------------------
fake_export $((PORT + 1)) "$N"
nothing_left
unload_dst
log "client: $N fuzzed messages; module unloaded cleanly"
