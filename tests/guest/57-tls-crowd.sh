#!/bin/bash
# Kernel review K2-S3: a TLS export refuses a peer its allow list refuses
# before any thread, handshake slot or handshake of the agent, and one
# allowed host cannot take every handshake slot.  1000 idle connections
# from a refused address (127.0.0.3): an import from an allowed one
# (127.0.0.1) still connects within 5 s, the export counts them in
# `denied` at once, no dst-srv thread and no agent handshake is spent on
# them, and a TLS client that is refused is told why, in the clear.  40
# idle connections from an allowed address (127.0.0.2): the import from
# 127.0.0.1 still connects within 5 s, those beyond the host's share are
# closed (`refused`) and at most 16 threads serve them.  On 20f0e7d each
# refused peer took a thread, one of the 32 slots and a handshake of the
# agent for 10 s: the import could not connect; and the 40 idle
# connections of the allowed host held all 32 slots: "the export did not
# complete the handshake in time".
set -euo pipefail
# shellcheck source=tests/guest/remote-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/remote-lib.sh"

PORT=7350
CROWD=$DST_ROOT/tests/tools/crowd.py

remote_setup
W=$(mktemp -d)
crowd_cleanup() {
	local rc=$?
	set +e
	[[ -s "$W/tlsd.log" ]] && tail -n 20 "$W/tlsd.log" | sed 's/^/  tlsd: /'
	(exit "$rc")
	remote_cleanup
}
trap crowd_cleanup EXIT

umask 077
printf 'tls-psk-%s\n' "$RANDOM$RANDOM" >"$W/s"
: >"$W/tlsd.log"
dstadm tlsd 2>"$W/tlsd.log" &
BG_PIDS+=($!)
wait_for 20 "the agent to be ready" grep -q "ready" "$W/tlsd.log"

# srv_threads: the export's client threads (dst-srv/INDEX; one export).
srv_threads() { pgrep -c '^dst-srv/' || true; }

denied_at_least() { (($(export_field e0 denied) >= $1)); }

# crowd SOURCE COUNT: COUNT idle connections from SOURCE to the export,
# held open in the background (CROWD_PID).
crowd() {
	"$CROWD" "$1" 127.0.0.1 $PORT "$2" >"$W/crowd.$1" 2>&1 &
	CROWD_PID=$!
	BG_PIDS+=("$CROWD_PID")
	wait_for 30 "$2 connections from $1" grep -q ready "$W/crowd.$1"
	log "crowd from $1: $(cat "$W/crowd.$1")"
}

# timed_import NAME: imports the export from 127.0.0.1, within 5 s.
timed_import() {
	local t0=$EPOCHREALTIME ms
	do_import "$1" 127.0.0.1:$PORT --secret-file "$W/s" --tls
	ms=$(((${EPOCHREALTIME/./} - ${t0/./}) / 1000))
	log "import $1 connected in $ms ms"
	((ms <= 5000)) || fail "import $1 took $ms ms, not within 5 s"
}

do_export e0 /dev/ram0 127.0.0.1:$PORT --secret-file "$W/s" --tls \
	--allow 127.0.0.1 --allow 127.0.0.2

# --- 1000 idle connections from a refused address -----------------------
# A first import, unhindered, warms up the agent and GnuTLS.
do_import r0 127.0.0.1:$PORT --secret-file "$W/s" --tls
undo_import r0
crowd 127.0.0.3 1000
timed_import r0
t0=$SECONDS
wait_for 20 "e0 to count the 1000 refused connections" denied_at_least 1000
log "e0 counted the 1000 refused connections $((SECONDS - t0)) s after the import"
n=$(srv_threads)
log "dst-srv threads with 1000 refused connections held open: $n"
((n <= 2)) || fail "$n dst-srv threads for one client and 1000 refused peers"
! grep -q "127\.0\.0\.3" "$W/tlsd.log" || fail "the agent did handshakes with a refused peer"
[[ "$(export_field e0 clients)" == 1 ]] || fail "e0 has $(export_field e0 clients) clients, want 1"
marks=$(head -c 1M /dev/urandom | tee "$W/data" | sha256sum | cut -c1-64)
expect_ok bounded 60 dd if="$W/data" of="$DEV" bs=1M oflag=direct status=none
[[ "$(dev_sha /dev/ram0 1)" == "$marks" ]] || fail "e0's device does not hold what r0 wrote"
undo_import r0
kill "$CROWD_PID"
wait "$CROWD_PID" || true
BG_PIDS=("${BG_PIDS[0]}")
log "1000 refused peers: no thread, no agent handshake, the import served at once"

# A refused TLS client is told why, in the clear, before TLS.
denied=$(export_field e0 denied)
undo_export e0
do_export e0 /dev/ram0 127.0.0.1:$PORT --secret-file "$W/s" --tls --allow 10.9.9.9
expect_error 1 "does not let this host in" dstadm import r1 \
	--remote 127.0.0.1:$PORT --secret-file "$W/s" --tls
denied_at_least 1 || fail "e0 counted no refusal"
grep -q "refused this host before TLS: not on the export's allow list" "$W/tlsd.log" ||
	fail "the client's agent did not read the refusal"
undo_export e0
log "a refused TLS client reads the refusal in the clear ($denied denied before)"

# --- 40 idle connections from one allowed address ------------------------
do_export e0 /dev/ram0 127.0.0.1:$PORT --secret-file "$W/s" --tls \
	--allow 127.0.0.1 --allow 127.0.0.2
crowd 127.0.0.2 40
timed_import r2
n=$(srv_threads)
log "dst-srv threads with 40 idle connections from one allowed host: $n"
((n <= 17)) || fail "$n dst-srv threads: one host took more than its share"
refused=$(export_field e0 refused)
((refused >= 40 - 16)) || fail "e0 refused $refused connections of the crowded host, want >= 24"
undo_import r2
kill "$CROWD_PID"
wait "$CROWD_PID" || true
BG_PIDS=("${BG_PIDS[0]}")
undo_export e0
log "one allowed host: at most half the handshake slots, the import served at once"

kill "${BG_PIDS[0]}"
wait "${BG_PIDS[0]}" || fail "dstadm tlsd did not stop cleanly"
BG_PIDS=()
nothing_left
