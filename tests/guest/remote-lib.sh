#!/bin/bash
# Helpers for the remote (export/import) guest tests:
#   source "$DST_ROOT/tests/guest/remote-lib.sh"
# Every dstadm call and every I/O is bounded by a timeout; remote_cleanup
# (run it from an EXIT trap) removes what the test made so that
# "rmmod dst_storage" succeeds afterwards.
set -euo pipefail
# shellcheck source=tests/guest/lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/lib.sh"

DSTPEER=$DST_ROOT/tests/tools/dstpeer
EXPORTS=()
IMPORTS=()
MOUNTS=()
BG_PIDS=()
DEV=

# bounded SECONDS CMD...: CMD under timeout (exit 124 when it ran out).
bounded() {
	local s=$1
	shift
	timeout -k 5 "$s" "$@"
}

# wait_for SECONDS WHAT CMD...: polls CMD every 0.5 s until it succeeds.
wait_for() {
	local s=$1 what=$2 end
	shift 2
	end=$((SECONDS + s))
	until "$@"; do
		((SECONDS < end)) || fail "timed out after ${s}s waiting for: $what"
		sleep 0.5
	done
}

remote_setup() {
	[[ -x "$DSTPEER" ]] || fail "$DSTPEER missing (make tools)"
	ip link set lo up
	if grep -q '^brd ' /proc/modules; then rmmod brd; fi
	modprobe brd rd_nr=2 rd_size=262144 || fail "modprobe brd failed"
	load_dst
	udevadm settle 2>/dev/null || true
}

# do_export NAME DEVICE ADDR:PORT [OPTIONS...]
do_export() {
	local name=$1 dev=$2 addr=$3
	shift 3
	expect_ok bounded 30 dstadm export "$name" --device "$dev" --listen "$addr" "$@"
	EXPORTS+=("$name")
	log "exported $dev as $name on $addr $*"
}

undo_export() {
	local name=$1 e
	local -a keep=()
	expect_ok bounded 60 dstadm unexport "$name"
	for e in "${EXPORTS[@]}"; do [[ "$e" == "$name" ]] || keep+=("$e"); done
	EXPORTS=("${keep[@]}")
}

# do_import NAME ADDR:PORT [OPTIONS...]: sets DEV to the new /dev/dstN.
do_import() {
	local name=$1 addr=$2 out rc=0
	shift 2
	out=$(bounded 90 dstadm import "$name" --remote "$addr" "$@") || rc=$?
	echo "$out"
	((rc == 0)) || fail "dstadm import $name --remote $addr $* failed ($rc)"
	IMPORTS+=("$name")
	DEV=$(grep -o '/dev/dst[0-9]\+' <<<"$out" | head -n1 || true)
	[[ -n "$DEV" ]] || fail "dstadm import printed no /dev/dstN: '$out'"
	wait_for 10 "$DEV to appear" test -b "$DEV"
	log "imported $addr as $name: $DEV"
}

undo_import() {
	local name=$1 i
	local -a keep=()
	expect_ok bounded 90 dstadm stop "$name"
	expect_ok bounded 30 dstadm delete "$name"
	for i in "${IMPORTS[@]}"; do [[ "$i" == "$name" ]] || keep+=("$i"); done
	IMPORTS=("${keep[@]}")
}

# ratelimit_max START: the most lines printk's rate limit (a burst of 10
# per 5 s) lets through since $SECONDS was START.
ratelimit_max() {
	echo $((10 * ((SECONDS - $1) / 5 + 2)))
}

status_json() { bounded 30 dstadm status --json; }

# node_field STORAGE FIELD: FIELD of the first node of STORAGE.
node_field() {
	status_json | jq -r --arg n "$1" --arg f "$2" \
		'.storages[] | select(.name == $n) | .nodes[0][$f]'
}

# export_field EXPORT FIELD
export_field() {
	status_json | jq -r --arg n "$1" --arg f "$2" \
		'.exports[] | select(.name == $n) | .[$f]'
}

field_is() { [[ "$("$1" "$2" "$3")" == "$4" ]]; }

# dev_sha DEV MIB [SKIP_MIB]: sha256 of MIB MiB of DEV, read with O_DIRECT.
dev_sha() {
	bounded 180 dd if="$1" bs=1M count="$2" skip="${3:-0}" iflag=direct status=none |
		sha256sum | cut -c1-64
}

file_sha() { sha256sum <"$1" | cut -c1-64; }

# The data oracle for I/O across a fault (docs/TESTING.md): acklog writers
# (tests/tools/acklog) that log every write once it is acknowledged and
# read back, after each write, one they wrote before; afterwards every
# logged write is checked on each device given (each leg's own, the
# storage).  A run that acknowledged or verified nothing fails.
ACKLOG=$DST_ROOT/tests/tools/acklog
ACK_DIR=${ACK_DIR:-/tmp}

# ack_start NAME DEV FIRST COUNT [WRITERS [plain]]: WRITERS (default 4)
# writers on DEV, writer k on the COUNT 4 KiB blocks from FIRST + k * COUNT;
# with "plain" their writes are not FUA (O_DIRECT alone).
ack_start() {
	local name=$1 dev=$2 first=$3 count=$4 n=${5:-4} mode=${6:-} k
	rm -f "$ACK_DIR/ack.$name".*
	for ((k = 0; k < n; k++)); do
		# shellcheck disable=SC2086 # mode: empty or one word
		"$ACKLOG" write "$dev" "$ACK_DIR/ack.$name.log.$k" $((first + k * count)) \
			"$count" $((RANDOM * 32768 + RANDOM + 1)) read $mode \
			>"$ACK_DIR/ack.$name.out.$k" 2>&1 &
		echo $! >>"$ACK_DIR/ack.$name.pids"
		BG_PIDS+=($!)
	done
	log "$name: $n acklog writers on $dev from block $first, $count blocks each${mode:+, $mode}"
}

# ack_alive NAME: every writer still runs (none saw a failed write, a
# failed read or a read of other data than its last write).
ack_alive() {
	local pid k=0
	for pid in $(<"$ACK_DIR/ack.$1.pids"); do
		kill -0 "$pid" 2>/dev/null ||
			fail "$1: acklog writer $k ended: $(cat "$ACK_DIR/ack.$1.out.$k")"
		k=$((k + 1))
	done
}

# ack_signal NAME SIG: SIG (STOP, CONT) to NAME's writers.
ack_signal() {
	local -a pids
	mapfile -t pids <"$ACK_DIR/ack.$1.pids"
	kill -"$2" "${pids[@]}"
}

# ack_stop NAME: stops the writers; fails if one failed or verified no read.
ack_stop() {
	local name=$1 pid k=0 rc end acks=0 reads=0 w r
	local -a keep=()
	ack_alive "$name"
	for pid in $(<"$ACK_DIR/ack.$name.pids"); do
		kill -TERM "$pid"
		end=$((SECONDS + 120))
		while kill -0 "$pid" 2>/dev/null && ((SECONDS < end)); do sleep 0.5; done
		rc=0
		wait "$pid" || rc=$?
		((rc == 0)) || fail "$name: acklog writer $k exited $rc: $(cat "$ACK_DIR/ack.$name.out.$k")"
		read -r _ w _ _ r _ < <(grep '^acklog: [0-9]* writes' "$ACK_DIR/ack.$name.out.$k") ||
			fail "$name: acklog writer $k printed no counts"
		((w > 0 && r > 0)) || fail "$name: acklog writer $k acknowledged $w writes, verified $r reads"
		acks=$((acks + w))
		reads=$((reads + r))
		k=$((k + 1))
	done
	for pid in "${BG_PIDS[@]}"; do
		grep -qx "$pid" "$ACK_DIR/ack.$name.pids" || keep+=("$pid")
	done
	BG_PIDS=("${keep[@]}")
	log "$name: $acks writes, $reads reads verified during the run"
}

# ack_check NAME DEV...: each DEV holds every write NAME's writers
# acknowledged (its last write of each block, or one in flight after it).
ack_check() {
	local name=$1 dev out
	shift
	for dev in "$@"; do
		out=$(bounded 300 "$ACKLOG" check "$dev" "$ACK_DIR/ack.$name.log".*) ||
			fail "$name: $dev lacks acknowledged writes: $(head -n 5 <<<"$out")"
		log "$name: $dev: ${out##*$'\n'}"
	done
}

remote_cleanup() {
	local rc=$? p m i e
	set +e
	for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${BG_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	for m in "${MOUNTS[@]}"; do bounded 60 umount "$m" || echo "cleanup: umount $m failed"; done
	for i in "${IMPORTS[@]}"; do
		bounded 90 dstadm stop "$i" || echo "cleanup: dstadm stop $i failed"
		bounded 30 dstadm delete "$i" || echo "cleanup: dstadm delete $i failed"
	done
	for e in "${EXPORTS[@]}"; do
		bounded 60 dstadm unexport "$e" || echo "cleanup: dstadm unexport $e failed"
	done
	if grep -q '^brd ' /proc/modules; then
		rmmod brd || echo "cleanup: rmmod brd failed"
	fi
	exit "$rc"
}

# nothing_left [KEEP]: no storage (but the storage KEEP) and no export remains.
# shellcheck disable=SC2120 # KEEP is optional; most callers pass none
nothing_left() {
	local s
	s=$(status_json) || fail "dstadm status --json failed"
	jq -e --arg keep "${1:-}" \
		'[(.storages // [])[].name] == ([$keep] - [""]) and ((.exports // []) | length) == 0' \
		<<<"$s" >/dev/null || fail "storages${1:+ but $1} or exports left: $s"
}
