#!/bin/bash
# A new session of a client is not overtaken by what a connection of its
# old session still holds (kernel review K2-D3).  Export e over /dev/ram0;
# mirror m of /dev/ram1 and e (--timeout 2, CRC-32C, started
# --assume-clean).  kdelay (tests/debug/kdelay, built for the guest's
# kernel by make tools) holds the export's thread (asleep) in the check
# of the header of write A (4 KiB at 0, all of it in the socket's
# receive queue), before it reads A's data, until the test lets it go:
# the client gives up on the connection after 2 s (a reset), the leg
# goes out of sync.  nftables drops new connections to the export
# meanwhile, so that the leg's own reconnect (same session, fenced since
# review D1) does not come first.  The leg is removed and added again (a
# new session).  On 20f0e7d the add is answered at once: B is written to
# the same 4 KiB after the resync, the thread let go, and it writes A's
# data on ram0 after B: the legs differ while both are in sync (seen
# failing there).  Now the add waits until the old connection is gone:
# its connection up and the add still waiting 2 s later, the thread is
# let go, the add ends, B is written, and that connection started
# nothing it had not started when its client reset it: both legs hold
# B.  No step depends on how fast the guest is (the debug kernel's
# removal came 8 to 15 s after A).  The same again with the export
# --shared, where the fence covers the connections of the new session's
# host.
set -euo pipefail
# shellcheck source=tests/guest/mirror-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/mirror-lib.sh"

PORT=7655
# The most the thread is held: the test lets it go itself.
DELAY=120
[[ -f "$KDELAY" ]] || fail "$KDELAY missing (make tools builds it)"

fence_cleanup() {
	local rc=$?
	set +e
	nft delete table inet dstfence 2>/dev/null
	if grep -q '^kdelay ' /proc/modules; then
		echo 1 >/sys/module/kdelay/parameters/release
		sleep 1
		rmmod kdelay
	fi
	(exit "$rc")
	mirror_cleanup
}
trap fence_cleanup EXIT
mirror_setup 2 64

now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }
# A connection to the export is up (the old one was reset by its client).
new_conn() { ss -Htn state established "( dport = :$PORT )" | grep -q .; }
first_4k() { bounded 60 dd if="$1" bs=4k count=1 iflag=direct status=none | sha256sum | cut -c1-64; }
leg_out() { leg_behind m 1; }

# fence_case [EXPORT OPTIONS]: the scenario above, the export made with
# the options given.
fence_case() {
	local t0 t1 waited
	head -c 4K /dev/urandom >/tmp/fA
	head -c 4K /dev/urandom >/tmp/fB
	do_export e /dev/ram0 127.0.0.1:$PORT --integrity "$@"
	expect_ok bounded 30 dstadm create m --alg mirror --chunk-size 1M
	STORAGES+=(m)
	expect_ok bounded 30 dstadm add m local /dev/ram1
	expect_ok bounded 60 dstadm add m remote 127.0.0.1:$PORT --timeout 2 --integrity
	expect_ok bounded 60 dstadm start m --assume-clean
	DEV=$(storage_dev m)
	wait_for 10 "$DEV to appear" test -b "$DEV"

	# The thread sleeps (sleep=1): a busy-wait would hold one of the guest's
	# two CPUs, and the client's timeout work queued there, for the delay.
	expect_ok insmod "$KDELAY" symbol=dst_crc_hdr comm=dst-srv/ delay_ms=$((DELAY * 1000)) times=1 sleep=1
	nft add table inet dstfence
	nft add chain inet dstfence in '{ type filter hook input priority 0; }'
	nft add rule inet dstfence in tcp dport $PORT tcp flags syn drop

	t0=$(now_ms)
	echo "65-fence-session: write A" >/dev/kmsg
	expect_ok bounded 60 dd if=/tmp/fA of="$DEV" bs=4k count=1 oflag=direct status=none
	[[ "$(cat /sys/module/kdelay/parameters/hits)" == 1 ]] ||
		fail "the export's thread was not held in front of write A"
	wait_for 30 "the remote leg out of sync" leg_out
	log "A written; the export's thread held, the remote leg out of sync after $(($(now_ms) - t0)) ms"

	echo "65-fence-session: remove and add" >/dev/kmsg
	expect_ok bounded 60 dstadm remove m node1
	nft delete table inet dstfence
	t1=$(now_ms)
	# The add, while the thread is held: it must wait for the old
	# connection to go (20f0e7d answered it at once). Once its connection
	# is up and it has not ended 2 s later, it waits: the thread is let
	# go (within the export's 10 s handshake deadline) and the add ends.
	# Had it ended, B is written while the thread is held, and let go
	# only then: A's data must not land after B.
	bounded 60 dstadm add m remote 127.0.0.1:$PORT --integrity >/tmp/add.out 2>&1 &
	add=$!
	BG_PIDS+=("$add")
	wait_for 30 "the add's connection" new_conn
	sleep 2
	waited=
	if kill -0 "$add" 2>/dev/null; then
		waited=yes
		echo 1 >/sys/module/kdelay/parameters/release
	fi
	wait "$add" || fail "the add failed: $(cat /tmp/add.out)"
	if [[ -n "$waited" ]]; then
		log "the add waited for the old connection: let go $(($(now_ms) - t1)) ms after the remove"
	else
		log "the add was answered while the old connection was held"
	fi
	expect_ok bounded 60 dstadm wait m
	expect_ok bounded 60 dd if=/tmp/fB of="$DEV" bs=4k count=1 oflag=direct status=none
	# Let go now if not yet (writing it again changes nothing).
	echo 1 >/sys/module/kdelay/parameters/release
	BG_PIDS=()
	echo "65-fence-session: B written" >/dev/kmsg
	# A moment for a write of A by the thread let go.
	sleep 3
	all_in_sync m || fail "a leg of m is not in sync"
	[[ "$(first_4k /dev/ram1)" == "$(file_sha /tmp/fB)" ]] || fail "the local leg does not hold B"
	[[ "$(first_4k /dev/ram0)" == "$(file_sha /tmp/fB)" ]] ||
		fail "the remote leg's device holds other data than B (A's: $([[ "$(first_4k /dev/ram0)" == "$(file_sha /tmp/fA)" ]] && echo yes || echo no)): the old session's write landed after the new session's"
	log "both legs hold B: the old connection's write did not land after the new session's"
	expect_ok rmmod kdelay
	drop_storage m
	undo_export e
}

fence_case
# A shared export fences the connections of the new session's own host
# (a cluster's other hosts are their own affair): the same scenario.
fence_case --shared
nothing_left
log "ok"
