#!/bin/bash
# Benchmark, not a test: what dst does with a mirror's data (issue 17),
# each against md raid1 side by side in one guest, on 1 GiB ram disks.
#   verify:   dstadm verify of mirror(ram0, remote export of ram1) against
#             md's check of raid1(ram0, ram1), the same random data on
#             both legs; seconds, and the bytes the verify moved over lo
#             (the export digests its blocks: no data crosses).
#   checksum resync: the remote leg differs from the first in about 1 %
#             of its 4 KiB blocks; a mirror started without a bitmap copies
#             it in full, by digests (only the blocks that differ are sent),
#             against a plain copy of the leg to the same export (fio, 1 MiB
#             writes at queue depth 8, through an import) and md's initial
#             resync of raid1(ram0, ram1), a plain copy of local disks;
#             seconds from dstadm start (md: from mdadm --create), and the
#             bytes over lo as a share of the leg (target <= 5 %).  Then
#             both again over a link of 1 Gbit/s (netem's rate on lo for
#             the export's port): on loopback the digests cost more than
#             the network under TCG, on a link the network costs more.
#   resync of every region: the remote leg was away while the whole
#             mirror was written (fio, as the plain copy); timed from the
#             node connected again to the leg in sync, every region copied
#             plainly; its speed against the plain copy (target >= 0.80).
#   write-behind: the second leg 50 ms away (dm-delay on ram1, exported
#             over lo for dst, a member for md): fio 4 KiB random writes at
#             queue depth 1, mean latency with a plain second leg and with
#             --write-mostly --write-behind 256 (md: --write-mostly,
#             --write-behind=256 and the internal bitmap it needs; md 6.1
#             takes write-behind only with a write-mostly member first, so
#             both are flagged there).
# Both peers with their speed limits raised out of the way, polled in
# sysfs every 50 ms, without a fork.  Output: $DST_RESULTS/bench-data.txt
set -euo pipefail
# shellcheck source=tests/bench/bench-lib.sh
source "${DST_ROOT:-/mnt/dst}/tests/bench/bench-lib.sh"

MIB=1024
PORT=7320
DELAY_MS=50
BEHIND=256
export DM_DISABLE_UDEV=1

cleanup() {
	set +e
	bounded 60 dstadm delete bd 2>/dev/null
	bounded 60 dstadm stop bdi 2>/dev/null
	bounded 60 dstadm delete bdi 2>/dev/null
	bounded 60 dstadm unexport bdx 2>/dev/null
	[[ -b /dev/md0 ]] && mdadm --stop /dev/md0 >/dev/null 2>&1
	dmsetup remove bd-slow 2>/dev/null
	dst_loaded && rmmod dst_storage
	grep -q '^brd ' /proc/modules && rmmod brd
}
trap cleanup EXIT

field() { dstadm status bd --json | jq -r ".storages[0].$1"; }
# Polled in sysfs every 50 ms without a fork (nap, sys_is).
poll() { until "$@"; do nap; done; }
verified() { sys_is "$SYS/verify_left" 0; }
leg_connected() { sys_is "$SYS/node1/state" connected; }
leg_in_sync() { sys_is "$SYS/node1/sync" in-sync; }

# fresh_rams: new ram disks 0 and 1, ram0 random, ram1 a copy of it.
fresh_rams() {
	if grep -q '^brd ' /proc/modules; then rmmod brd; fi
	modprobe brd rd_nr=2 rd_size=$((MIB * 1024))
	bounded 600 dd if=/dev/urandom of=/dev/ram0 bs=1M count=$MIB oflag=direct status=none
	bounded 300 dd if=/dev/ram0 of=/dev/ram1 bs=1M count=$MIB iflag=direct oflag=direct status=none
}

# dst_mirror DEV1 [ADD_OPTIONS...] -- [START_OPTIONS...]: mirror bd of
# ram0 and the export of DEV1 over lo; sets DEV, its sysfs directory SYS
# and T_START, the time of its start.
dst_mirror() {
	local dev1=$1
	local -a add=()
	shift
	while (($#)) && [[ "$1" != -- ]]; do
		add+=("$1")
		shift
	done
	(($#)) && shift
	bounded 30 dstadm export bdx --device "$dev1" --listen 127.0.0.1:$PORT
	bounded 30 dstadm create bd --alg mirror --chunk-size 1M --resync-min 4000M --resync-max 4000M
	bounded 30 dstadm add bd local /dev/ram0 >/dev/null
	bounded 60 dstadm add bd remote 127.0.0.1:$PORT "${add[@]}" >/dev/null
	T_START=$(now)
	bounded 60 dstadm start bd "$@"
	DEV=$(field device)
	SYS=/sys/block/${DEV#/dev/}/dst
}

dst_drop() {
	bounded 60 dstadm delete bd
	bounded 30 dstadm unexport bdx
}

md_fast() {
	echo 4000000 >/proc/sys/dev/raid/speed_limit_max
	echo 4000000 >/proc/sys/dev/raid/speed_limit_min
}

md_idle() { sys_is /sys/block/md0/md/sync_action idle && sys_is /sys/block/md0/md/degraded 0; }

md_stop() { bounded 60 mdadm --stop /dev/md0 >/dev/null 2>&1; }

if grep -q '^brd ' /proc/modules; then rmmod brd; fi
ip link set lo up
modprobe dst_storage
modprobe dm-delay

# --- verify ---------------------------------------------------------------------
fresh_rams
dst_mirror /dev/ram1 -- --assume-clean
lo0=$(lo_bytes)
t0=$(now)
bounded 30 dstadm verify bd
poll verified
V_DST=$(elapsed "$t0" "$(now)")
V_LO=$(($(lo_bytes) - lo0))
V_BAD=$(field mismatches)
dst_drop
echo "bench: dst verify of $MIB MiB in $V_DST s, $V_LO bytes over lo, $V_BAD mismatches"
md_fast
bounded 60 mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
	--bitmap=none --assume-clean /dev/ram0 /dev/ram1 >/dev/null 2>&1
t0=$(now)
echo check >/sys/block/md0/md/sync_action
sleep 0.2
poll md_idle
V_MD=$(elapsed "$t0" "$(now)")
md_stop
echo "bench: md check of $MIB MiB in $V_MD s"

# --- checksum resync of a leg that differs in about 1 % ---------------------------
# one_pct: ram1 differs from ram0 in about 1 % of its 4 KiB blocks.
one_pct() {
	bounded 120 fio --name=onepct --filename=/dev/ram1 --direct=1 --ioengine=libaio \
		--rw=randwrite --bs=4k --iodepth=8 --io_size=$((MIB * 1024 * 1024 / 100)) \
		--randrepeat=0 --output=/dev/null
}

# csum_resync P: the mirror copies ram1 in full by digests; sets P_DST
# (s), P_LO (bytes over lo) and P_WRITTEN (bytes written to the leg).
csum_resync() {
	local lo0
	lo0=$(lo_bytes)
	dst_mirror /dev/ram1
	poll leg_in_sync
	printf -v "$1_DST" '%s' "$(elapsed "$T_START" "$(now)")"
	printf -v "$1_LO" '%s' $(($(lo_bytes) - lo0))
	printf -v "$1_WRITTEN" '%s' "$(field "nodes[1].write_bytes")"
	dst_drop
}

# plain_copy: the copy the checksum resync saves, the whole leg written to
# the same export through an import, 1 MiB at a time at queue depth 8;
# sets P_PLAIN (s).
plain_copy() {
	local out imp t0
	bounded 30 dstadm export bdx --device /dev/ram1 --listen 127.0.0.1:$PORT
	out=$(bounded 60 dstadm import bdi --remote 127.0.0.1:$PORT)
	imp=$(grep -o '/dev/dst[0-9]\+' <<<"$out" | head -n1)
	poll test -b "$imp"
	t0=$(now)
	bounded 600 fio --name=plain --filename="$imp" --direct=1 --ioengine=libaio --rw=write \
		--bs=1M --iodepth=8 --size=${MIB}M --output=/dev/null
	printf -v "$1_PLAIN" '%s' "$(elapsed "$t0" "$(now)")"
	bounded 60 dstadm stop bdi
	bounded 30 dstadm delete bdi
	bounded 30 dstadm unexport bdx
}

# Set by csum_resync and plain_copy: on loopback C_*, at 1 Gbit/s G_*.
C_DST='' C_LO='' C_WRITTEN='' C_PLAIN='' G_DST='' G_LO='' G_PLAIN=''
fresh_rams
one_pct
csum_resync C
echo "bench: dst checksum resync of $MIB MiB in $C_DST s, $C_LO bytes over lo, $C_WRITTEN written to the leg"
plain_copy C
echo "bench: dst plain copy of $MIB MiB to the export in $C_PLAIN s"

# The same two over a link of 1 Gbit/s (netem's rate on the traffic to
# the export's port): on loopback in this guest the network costs less
# than the digests of both ends under TCG, on a real link the reverse.
bounded 300 dd if=/dev/ram0 of=/dev/ram1 bs=1M count=$MIB iflag=direct oflag=direct status=none
one_pct
tc qdisc add dev lo root handle 1: prio
tc qdisc add dev lo parent 1:3 handle 30: netem rate 1gbit
tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip dport $PORT 0xffff flowid 1:3
csum_resync G
echo "bench: at 1 Gbit/s, dst checksum resync of $MIB MiB in $G_DST s, $G_LO bytes over lo"
plain_copy G
echo "bench: at 1 Gbit/s, dst plain copy of $MIB MiB to the export in $G_PLAIN s"
tc qdisc del dev lo root
# A resync that copies every region plainly: the leg was away while the
# whole mirror was written.
dst_mirror /dev/ram1 --reconnect-max 1 -- --assume-clean
bounded 30 dstadm unexport bdx
bounded 600 fio --name=over --filename="$DEV" --direct=1 --ioengine=libaio --rw=write \
	--bs=1M --iodepth=8 --size=${MIB}M --output=/dev/null
bounded 30 dstadm export bdx --device /dev/ram1 --listen 127.0.0.1:$PORT
poll leg_connected
t0=$(now)
poll leg_in_sync
R_DST=$(elapsed "$t0" "$(now)")
dst_drop
echo "bench: dst resync of every region of $MIB MiB in $R_DST s"
md_fast
t0=$(now)
bounded 60 mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
	--bitmap=none /dev/ram0 /dev/ram1 >/dev/null 2>&1
sleep 0.2
poll md_idle
C_MD=$(elapsed "$t0" "$(now)")
md_stop
echo "bench: md initial resync of $MIB MiB in $C_MD s"

# --- write-behind -----------------------------------------------------------------
# wb_lat PEER: fio on DEVS[PEER], mean write latency in ms into LAT[PEER]:
# submission and completion (lat_ns), since a write that completes within
# io_submit (a local leg of brd, the remote one behind) shows only in the
# submission time, its completion latency (clat_ns) near 0.
declare -A LAT
wb_lat() {
	run_fio data "$1" wb randwrite 4k 1
	LAT[$1]=$(jq '.jobs[0].write.lat_ns.mean / 1e6 | . * 100 | round / 100' \
		"$OUT/data-$1-wb.json")
	echo "bench: $1: ${LAT[$1]} ms per write"
}

if grep -q '^brd ' /proc/modules; then rmmod brd; fi
modprobe brd rd_nr=2 rd_size=$((MIB * 1024))
dmsetup create bd-slow --table "0 $((MIB * 2048)) delay /dev/ram1 0 $DELAY_MS"
dst_mirror /dev/mapper/bd-slow -- --assume-clean
DEVS[dst-plain]=$DEV
wb_lat dst-plain
dst_drop
dst_mirror /dev/mapper/bd-slow --write-mostly --write-behind $BEHIND -- --assume-clean
DEVS[dst-behind]=$DEV
wb_lat dst-behind
bounded 600 dstadm wait bd --timeout 590
dst_drop
bounded 60 mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
	--bitmap=internal --assume-clean /dev/ram0 --write-mostly /dev/mapper/bd-slow >/dev/null 2>&1
DEVS[md-plain]=/dev/md0
wb_lat md-plain
md_stop
# md (6.1) decides write-behind by its first member, so the slow one is
# first; mdadm's create has no way to flag only it, so both members are
# write-mostly: a write is then acknowledged when the first has it.
bounded 60 mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
	--bitmap=internal --write-behind=$BEHIND --assume-clean \
	--write-mostly /dev/mapper/bd-slow /dev/ram0 >/dev/null 2>&1
DEVS[md-behind]=/dev/md0
wb_lat md-behind
md_stop

{
	echo "dst data bench: ${MIB} MiB ram disks, dst's second leg an export over loopback"
	printf '%-34s %10s %10s %8s\n' row dst md dst/md
	printf '%-34s %10s %10s %8s\n' "verify, seconds" "$V_DST" "$V_MD" "$(ratio "$V_DST" "$V_MD")"
	printf '%-34s %10s %10s %8s\n' "resync of a 1 %-different leg, s" "$C_DST" "$C_MD" "$(ratio "$C_DST" "$C_MD")"
	printf '%-34s %10s %10s %8s\n' "plain copy of the leg, s" "$C_PLAIN" "$C_MD" "$(ratio "$C_PLAIN" "$C_MD")"
	printf '%-34s %10s %10s %8s\n' "resync of every region, s" "$R_DST" "$C_MD" "$(ratio "$R_DST" "$C_MD")"
	printf '%-34s %10s %10s %8s\n' "write, plain slow leg, ms" "${LAT[dst-plain]}" "${LAT[md-plain]}" \
		"$(ratio "${LAT[dst-plain]}" "${LAT[md-plain]}")"
	printf '%-34s %10s %10s %8s\n' "write, write-behind leg, ms" "${LAT[dst-behind]}" "${LAT[md-behind]}" \
		"$(ratio "${LAT[dst-behind]}" "${LAT[md-behind]}")"
	printf 'verify moved %s bytes over lo for %s MiB (%s mismatches)\n' "$V_LO" "$MIB" "$V_BAD"
	printf 'checksum resync: %s bytes over lo, %s%% of the leg (target <= 5 %%), %s bytes written to it\n' \
		"$C_LO" "$(awk -v a="$C_LO" -v m="$MIB" 'BEGIN { printf "%.2f", a * 100 / (m * 1048576) }')" "$C_WRITTEN"
	printf 'checksum resync against a plain copy to the same export: %s (target < 1.00)\n' \
		"$(ratio "$C_DST" "$C_PLAIN")"
	printf 'the same over a link of 1 Gbit/s: %s s against %s s, %s (target < 1.00)\n' \
		"$G_DST" "$G_PLAIN" "$(ratio "$G_DST" "$G_PLAIN")"
	printf 'resync of every region: speed against a plain copy to the same export: %s (target >= 0.80)\n' \
		"$(ratio "$C_PLAIN" "$R_DST")"
	echo "(the slow leg: dm-delay of ${DELAY_MS} ms; md's resync is a plain copy of the whole leg)"
} | tee "$OUT/bench-data.txt"
