#!/bin/bash
# Helpers for the array guest tests:
#   source "$DST_ROOT/tests/guest/mirror-lib.sh"
# Adds to remote-lib.sh: storages made with make_storage, dm devices and
# loop devices, all removed by mirror_cleanup (run it from an EXIT trap).
set -euo pipefail
# shellcheck source=tests/guest/remote-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/guest/remote-lib.sh"

STORAGES=()
DMS=()
# No udev daemon in the test guest: libdevmapper makes the nodes itself.
export DM_DISABLE_UDEV=1
LOOPS=()

# mirror_setup NR SIZE_MIB: NR brd devices /dev/ram0.. of SIZE_MIB each.
mirror_setup() {
	ip link set lo up
	if grep -q '^brd ' /proc/modules; then rmmod brd; fi
	modprobe brd rd_nr="$1" rd_size=$(($2 * 1024)) || fail "modprobe brd failed"
	load_dst
	udevadm settle 2>/dev/null || true
}

# make_storage NAME ALG [CREATE_OPTIONS...] -- NODE... [-- START_OPTIONS...]:
# creates NAME, adds each NODE (a path: local; ADDR:PORT: remote), checks
# that add prints node0, node1, ..., starts it and sets DEV to its disk.
make_storage() {
	local name=$1 alg=$2 n=0 out
	local -a create=() nodes=() start=()
	shift 2
	while (($#)) && [[ "$1" != -- ]]; do
		create+=("$1")
		shift
	done
	(($#)) && shift
	while (($#)) && [[ "$1" != -- ]]; do
		nodes+=("$1")
		shift
	done
	(($#)) && shift
	start=("$@")
	expect_ok bounded 30 dstadm create "$name" --alg "$alg" "${create[@]}"
	STORAGES+=("$name")
	for node in "${nodes[@]}"; do
		if [[ "$node" == /* ]]; then
			out=$(bounded 30 dstadm add "$name" local "$node") || fail "add $name local $node"
		else
			out=$(bounded 60 dstadm add "$name" remote "$node") || fail "add $name remote $node"
		fi
		[[ "$out" == "node$n" ]] || fail "add $name $node printed '$out', not node$n"
		n=$((n + 1))
	done
	expect_ok bounded 60 dstadm start "$name" "${start[@]}"
	DEV=$(storage_dev "$name")
	wait_for 10 "$DEV to appear" test -b "$DEV"
	log "$alg storage $name on ${nodes[*]}: $DEV"
}

# storage_dev NAME: the disk of the running storage NAME.
storage_dev() {
	echo "/dev/dst$(status_json | jq -r --arg n "$1" '.storages[] | select(.name == $n) | .id')"
}

# drop_storage NAME: stop and delete NAME.
drop_storage() {
	local name=$1 s
	local -a keep=()
	expect_ok bounded 90 dstadm delete "$name"
	for s in "${STORAGES[@]}"; do [[ "$s" == "$name" ]] || keep+=("$s"); done
	STORAGES=("${keep[@]}")
}

# storage_field NAME FIELD
storage_field() {
	status_json | jq -r --arg n "$1" --arg f "$2" \
		'.storages[] | select(.name == $n) | .[$f]'
}

# leg_field NAME ID FIELD: FIELD of the node with id ID of storage NAME.
leg_field() {
	status_json | jq -r --arg n "$1" --argjson id "$2" --arg f "$3" \
		'.storages[] | select(.name == $n) | .nodes[] | select(.id == $id) | .[$f]'
}

# leg_is NAME ID SYNC: the leg's sync state is SYNC.
leg_is() { [[ "$(leg_field "$1" "$2" sync)" == "$3" ]]; }

# leg_behind NAME ID: status says the leg is out of sync or resyncing (not
# merely "not in sync", which a failed status or a missing leg is too).
leg_behind() {
	local s
	s=$(leg_field "$1" "$2" sync)
	[[ "$s" == out-of-sync || "$s" == resyncing ]]
}

# all_in_sync NAME: every leg of the mirror NAME is in sync.
all_in_sync() {
	status_json | jq -e --arg n "$1" \
		'[.storages[] | select(.name == $n) | .nodes[] | .sync] | length > 0 and all(. == "in-sync")' \
		>/dev/null
}

# wait_in_sync NAME [SECONDS]
wait_in_sync() {
	wait_for "${2:-180}" "every leg of $1 in sync" all_in_sync "$1"
	log "$1: every leg in sync"
}

# sysfs_leg NAME ID FILE: a file of the leg's sysfs directory.
sysfs_leg() {
	local dev
	dev=$(storage_dev "$1")
	cat "/sys/block/${dev#/dev/}/dst/node$2/$3"
}

# fio_verify NAME DEV SECONDS [FIO_OPTIONS...]: random writes of 4 to
# 256 KiB at depth 16 for SECONDS, each read back and checked (crc32c)
# once 32 more were written (--verify_backlog: a time-based job verifies
# no other way but in passes it completes); fails on any fio error and
# when nothing was read back: every run shows that it verified.
fio_verify() {
	local name=$1 dev=$2 secs=$3 out=/tmp/fio-$1.json
	shift 3
	expect_ok bounded $((secs + 240)) fio --name="$name" --filename="$dev" --direct=1 \
		--ioengine=libaio --rw=randwrite --bsrange=4k-256k --iodepth=16 \
		--time_based --runtime="$secs" --verify=crc32c --verify_fatal=1 \
		--verify_backlog=32 --verify_state_save=0 \
		--output-format=json --output="$out" "$@"
	fio_verified "$out" "fio $name"
}

# fio_verified JSON WHAT: the fio run of JSON had no error and wrote, and
# each of its jobs that verifies (all write only: every read is a verify
# read) read back some of it.
fio_verified() {
	local mib vmib json=$1.only
	# fio puts a line of its own first when it was stopped by a signal.
	sed -n '/^{/,$p' "$1" >"$json"
	set -- "$json" "$2"
	mib=$(jq -r '[.jobs[].write.io_bytes] | add / 1048576 | floor' "$1" 2>/dev/null) ||
		fail "$2: no fio JSON output: $(head -c 400 "$1")"
	jq -e '(."global options".verify // null) as $g |
		all(.jobs[]; .error == 0) and ([.jobs[].write.io_bytes] | add > 0) and
		all(.jobs[] | select((."job options".verify // $g) != null); .read.io_bytes > 0)' \
		"$1" >/dev/null ||
		fail "$2: an error, or nothing verified: $(jq -c '[.jobs[] | {error, written: .write.io_bytes, verified: .read.io_bytes}]' "$1")"
	vmib=$(jq -r '[.jobs[].read.io_bytes] | add / 1048576 | floor' "$1")
	log "$2: $mib MiB written, $vmib MiB read back and verified"
}

# fio_wait PID JSON WHAT [stopped]: wait for the fio of PID, started in
# the background (and in BG_PIDS) with --output-format=json; fails if it
# failed, or as fio_verified, saying WHAT it was doing.  "stopped": it was
# sent SIGINT, after which it reports and exits 128 (or timeout's 130).
fio_wait() {
	local pid=$1 out=$2 what=$3 stopped=${4:-} rc=0 p
	local -a keep=()
	wait "$pid" || rc=$?
	for p in "${BG_PIDS[@]}"; do [[ "$p" == "$pid" ]] || keep+=("$p"); done
	BG_PIDS=("${keep[@]}")
	[[ -z "$stopped" ]] || ((rc != 128 && rc != 130)) || rc=0
	((rc == 0)) || fail "fio failed ($rc) $what: $(head -c 600 "$out")"
	fio_verified "$out" "fio $what"
}

# legs_identical MIB DEV...: the first MIB MiB of each DEV are identical.
legs_identical() {
	local mib=$1 first want d sum
	shift
	first=$1
	want=$(dev_sha "$first" "$mib")
	for d in "$@"; do
		sum=$(dev_sha "$d" "$mib")
		[[ "$sum" == "$want" ]] || fail "$d differs from $first ($sum, $want)"
	done
	log "identical: $*"
}

# dm_linear NAME DEV: a dm device over DEV that can be made to fail.
dm_linear() {
	local sectors
	sectors=$(blockdev --getsz "$2")
	expect_ok dmsetup create "$1" --table "0 $sectors linear $2 0"
	DMS+=("$1")
	wait_for 10 "/dev/mapper/$1" test -b "/dev/mapper/$1"
}

# dm_fail NAME: every I/O to the dm device fails from now on.
dm_fail() {
	local sectors
	sectors=$(blockdev --getsz "/dev/mapper/$1")
	expect_ok dmsetup suspend --noflush --nolockfs "$1"
	expect_ok dmsetup load "$1" --table "0 $sectors error"
	expect_ok dmsetup resume "$1"
	log "dm device $1 now fails every I/O"
}

# loop_dev FILE SIZE_MIB: sets LOOP to a new loop device over FILE.
loop_dev() {
	modprobe loop
	truncate -s "$2M" "$1"
	LOOP=$(losetup --find --show "$1")
	LOOPS+=("$LOOP")
}

mirror_cleanup() {
	local rc=$? i
	set +e
	# A stopped one (SIGSTOP) takes its SIGTERM once it goes on.
	for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; kill -CONT "$p" 2>/dev/null; done
	for p in "${BG_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	BG_PIDS=()
	for m in "${MOUNTS[@]}"; do bounded 60 umount "$m" || echo "cleanup: umount $m failed"; done
	MOUNTS=()
	# The last made first: a storage may be a node of a later one.
	for ((i = ${#STORAGES[@]} - 1; i >= 0; i--)); do
		bounded 90 dstadm delete "${STORAGES[$i]}" ||
			echo "cleanup: dstadm delete ${STORAGES[$i]} failed"
	done
	for i in "${IMPORTS[@]}"; do
		bounded 90 dstadm delete "$i" || echo "cleanup: dstadm delete $i failed"
	done
	IMPORTS=()
	for e in "${EXPORTS[@]}"; do
		bounded 60 dstadm unexport "$e" || echo "cleanup: dstadm unexport $e failed"
	done
	EXPORTS=()
	for d in "${DMS[@]}"; do dmsetup remove "$d" || echo "cleanup: dmsetup remove $d failed"; done
	for l in "${LOOPS[@]}"; do losetup -d "$l" || echo "cleanup: losetup -d $l failed"; done
	if grep -q '^brd ' /proc/modules; then
		rmmod brd || echo "cleanup: rmmod brd failed"
	fi
	exit "$rc"
}
